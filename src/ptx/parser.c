/*
 * parser.c — the PTX parser: builds the ptx_module of ast.h from the lexer's tokens
 * (ptx_parse, ptx_module_free).
 *
 * Recursive descent with two tokens of look-ahead. Errors are reported once, as
 * "FILE:LINE:COL: error: MESSAGE", by a longjmp back to ptx_parse, which frees everything.
 * Lists are gathered in growable heap vectors and copied into the module's arena when complete;
 * every list, nesting level and size has a limit that is reported as an error.
 *
 * Every function body is parsed (and so checked) in full; besides its statements the parser keeps
 * a summary the decoder needs before any code: the body's .shared declarations and the names its
 * instructions refer to. With PTX_PARSE_SKIM the statements themselves are dropped once parsed (they
 * live in a scratch arena reset after each body), and ptx_parse_body parses one body again from the
 * text when the decoder gets to it, so a large module never holds all its statements at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/arena.h"
#include "ptx/ast.h"
#include "ptx/lexer.h"
#include "ptx/target.h"

#define MAX_OPND_DEPTH 4            /* operand nesting: [a, {b}] or (a, b) inside an instruction */
#define MAX_OPNDS 64                /* top-level operands of one instruction */
#define MAX_LIST 4096               /* elements of a {vector} / (list) / address tuple */
#define MAX_MODS 32                 /* modifiers of one opcode */
#define MAX_SCOPE_DEPTH 64          /* { } nesting inside a function body */
#define MAX_INIT_DEPTH 16           /* nested braces of an initializer */
#define MAX_INITS ((size_t)1 << 24) /* initializer elements of one variable */
#define MAX_DIMS 8                  /* array dimensions */
#define MAX_RANGE ((uint64_t)1 << 20)
#define MAX_ARRAY_BYTES ((uint64_t)1 << 32)
#define MAX_PARAMS 4096
#define MAX_STMTS ((size_t)1 << 24)
#define MAX_ITEMS ((size_t)1 << 20) /* functions, variables, files of a module */
#define MAX_PROTO_TEXT 65536        /* text kept for a .callprototype / .calltargets statement */

typedef struct vec {
  void *data;
  size_t n, cap;
} vec;

/* Pointers seen in one body (interned names), with flags: an open-addressing set. */
enum { SEEN_REF = 1, SEEN_DECL = 2, SEEN_VAL = 4 /* named as a value (not as a callee) */ };
typedef struct pset {
  const void **keys;
  uint8_t *flags;
  size_t cap, n;
} pset;

typedef struct parser {
  ptx_lexer lx;
  ptx_token tok[2]; /* look-ahead: tok[0] is the current token */
  int ntok;
  ptx_arena *arena; /* where lists go: the module's arena, or `store` inside a body */
  ptx_arena *names; /* the module's arena: interned names and module-level items */
  ptx_arena *store; /* a body's statements (the module's arena unless skimming) */
  int skim;         /* PTX_PARSE_SKIM: drop each body's statements once parsed */
  ptx_module *mod;
  const char *filename;
  char *err;
  size_t errlen;
  jmp_buf jb;
  int in_body;
  uint32_t loc_file, loc_line; /* last .loc */
  vec vars, funcs, files, body, params, rets, inits, text, targets;
  vec scratch[MAX_OPND_DEPTH + 1]; /* operand lists, one per nesting depth */
  vec shared, refs;                /* the body's summary: .shared declarations, names referred to */
  pset seen;                       /* the body's names: referred to, declared (labels, variables) */
  int calls_indirect;              /* the body has a call through a register */
} parser;

/* ---------------------------------------------------------------------------------------------
 * Errors, tokens, memory
 * ------------------------------------------------------------------------------------------- */

#if defined(__GNUC__) || defined(__clang__)
#define WV_NORETURN __attribute__((noreturn))
#define WV_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define WV_NORETURN
#define WV_PRINTF(a, b)
#endif

static WV_NORETURN WV_PRINTF(3, 4) void fail(parser *ps, ptx_loc loc, const char *fmt, ...) {
  if (ps->err && ps->errlen) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ptx_format_error(ps->err, ps->errlen, ps->filename, loc, "%s", msg);
  }
  longjmp(ps->jb, 1);
}

/* Fills the look-ahead buffer up to n tokens. */
static void fill(parser *ps, int n) {
  while (ps->ntok < n) {
    if (ps->ntok > 0 && ps->tok[ps->ntok - 1].kind == PTX_TOK_END) {
      ps->tok[ps->ntok] = ps->tok[ps->ntok - 1];
    } else if (ptx_lex_next(&ps->lx, &ps->tok[ps->ntok]) != 0) {
      longjmp(ps->jb, 1); /* the lexer wrote the message */
    }
    ps->ntok++;
  }
}

static ptx_token *cur(parser *ps) {
  fill(ps, 1);
  return &ps->tok[0];
}

static ptx_token *peek2(parser *ps) {
  fill(ps, 2);
  return &ps->tok[1];
}

/* Moves to the next token. A ptx_token pointer obtained before is stale afterwards. */
static void advance(parser *ps) {
  fill(ps, 1);
  if (ps->ntok == 2) ps->tok[0] = ps->tok[1];
  ps->ntok--;
}

static int is_punct(const ptx_token *t, char c) {
  return t->kind == PTX_TOK_PUNCT && t->punct == c;
}

static int tok_is(const ptx_token *t, const char *s) {
  size_t n = strlen(s);
  return t->len == n && memcmp(t->p, s, n) == 0;
}

static int is_dir(const ptx_token *t, const char *s) {
  return t->kind == PTX_TOK_DIRECTIVE && tok_is(t, s);
}

/* "expected WHAT, found TOKEN" (or the end-of-file-in-body message). */
static WV_NORETURN void fail_expected(parser *ps, const char *what) {
  ptx_token *t = cur(ps);
  if (t->kind == PTX_TOK_END && ps->in_body) fail(ps, t->loc, "unexpected end of file in function body");
  char d[96];
  fail(ps, t->loc, "expected %s, found %s", what, ptx_token_describe(t, d, sizeof d));
}

static void expect_punct(parser *ps, char c, const char *what) {
  if (!is_punct(cur(ps), c)) fail_expected(ps, what);
  advance(ps);
}

static void *xalloc(parser *ps, size_t n, size_t elsize) {
  void *p = ptx_arena_array(ps->arena, n, elsize);
  if (!p) fail(ps, cur(ps)->loc, "out of memory");
  return p;
}

static const char *intern(parser *ps, const char *s, size_t len) {
  const char *r = ptx_arena_intern(ps->names, s, len);
  if (!r) fail(ps, cur(ps)->loc, "out of memory");
  return r;
}

static const char *intern_tok(parser *ps, const ptx_token *t) { return intern(ps, t->p, t->len); }

/* A new zeroed slot at the end of v; `what` names the items for the limit message. */
static void *vec_push(parser *ps, vec *v, size_t elsize, size_t limit, const char *what) {
  if (v->n >= limit) fail(ps, cur(ps)->loc, "too many %s (limit %zu)", what, limit);
  if (v->n == v->cap) {
    size_t nc = v->cap ? v->cap * 2 : 16;
    if (nc > limit) nc = limit;
    void *d = realloc(v->data, nc * elsize);
    if (!d) fail(ps, cur(ps)->loc, "out of memory");
    v->data = d;
    v->cap = nc;
  }
  void *slot = (char *)v->data + v->n * elsize;
  memset(slot, 0, elsize);
  v->n++;
  return slot;
}

/* Copies v's items into the arena (NULL when empty) and empties v. */
static void *vec_finish(parser *ps, vec *v, size_t elsize, uint32_t *count) {
  void *r = NULL;
  if (v->n) {
    r = xalloc(ps, v->n, elsize);
    memcpy(r, v->data, v->n * elsize);
  }
  *count = (uint32_t)v->n;
  v->n = 0;
  return r;
}

static void text_append(parser *ps, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) *(char *)vec_push(ps, &ps->text, 1, MAX_PROTO_TEXT, "characters") = s[i];
}

/* Adds flag f to name p in the body's set; returns the flags it had. */
static uint8_t seen_mark(parser *ps, const void *p, uint8_t f) {
  pset *s = &ps->seen;
  if ((s->n + 1) * 2 > s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 256;
    const void **nk = calloc(nc, sizeof *nk);
    uint8_t *nf = calloc(nc, 1);
    if (!nk || !nf) {
      free(nk);
      free(nf);
      fail(ps, cur(ps)->loc, "out of memory");
    }
    for (size_t i = 0; i < s->cap; i++) {
      if (!s->keys[i]) continue;
      size_t j = ((uintptr_t)s->keys[i] >> 4) & (nc - 1);
      while (nk[j]) j = (j + 1) & (nc - 1);
      nk[j] = s->keys[i];
      nf[j] = s->flags[i];
    }
    free(s->keys);
    free(s->flags);
    s->keys = nk;
    s->flags = nf;
    s->cap = nc;
  }
  size_t j = ((uintptr_t)p >> 4) & (s->cap - 1);
  while (s->keys[j] && s->keys[j] != p) j = (j + 1) & (s->cap - 1);
  if (!s->keys[j]) {
    s->keys[j] = p;
    s->n++;
  }
  uint8_t old = s->flags[j];
  s->flags[j] |= f;
  return old;
}

static uint8_t seen_flags(const parser *ps, const void *p) {
  const pset *s = &ps->seen;
  if (!s->cap) return 0;
  size_t j = ((uintptr_t)p >> 4) & (s->cap - 1);
  while (s->keys[j] && s->keys[j] != p) j = (j + 1) & (s->cap - 1);
  return s->keys[j] ? s->flags[j] : 0;
}

static void seen_clear(parser *ps) {
  if (ps->seen.cap) {
    memset(ps->seen.keys, 0, ps->seen.cap * sizeof *ps->seen.keys);
    memset(ps->seen.flags, 0, ps->seen.cap);
  }
  ps->seen.n = 0;
}

/* A name an instruction refers to (a symbol, not a %register): kept in the body's summary unless
 * the body itself declares it (labels, local variables). */
static void note_ref(parser *ps, const char *name) {
  if (name && !(seen_mark(ps, name, SEEN_REF) & SEEN_REF))
    *(const char **)vec_push(ps, &ps->refs, sizeof name, MAX_STMTS, "names in function body") = name;
}

/* val: the operand is a value (any instruction but call), so a function it names has its address taken. */
static void note_operand_refs(parser *ps, const ptx_operand *o, int val) {
  if (o->kind == PTX_OPND_SYM || (o->kind == PTX_OPND_ADDR && !o->base_is_reg)) {
    note_ref(ps, o->name);
    if (val && o->name) seen_mark(ps, o->name, SEEN_VAL);
  }
  for (uint32_t i = 0; i < o->nelems; i++) note_operand_refs(ps, &o->elems[i], val);
}

/* Interned, unescaped text of a STRING token. */
static const char *intern_string(parser *ps, const ptx_token *t) {
  ps->text.n = 0;
  for (size_t i = 0; i < t->len; i++) {
    char c = t->p[i];
    if (c == '\\' && i + 1 < t->len) {
      c = t->p[++i];
      if (c == 'n') c = '\n';
      else if (c == 't') c = '\t';
      else if (c == 'r') c = '\r';
      else if (c == '0') c = '\0';
    }
    text_append(ps, &c, 1);
  }
  return intern(ps, ps->text.data ? ps->text.data : "", ps->text.n);
}

static uint32_t expect_u32(parser *ps, const char *what) {
  ptx_token *t = cur(ps);
  if (t->kind != PTX_TOK_INT) fail_expected(ps, what);
  if (t->ival > UINT32_MAX) fail(ps, t->loc, "value %llu too large", (unsigned long long)t->ival);
  uint32_t v = (uint32_t)t->ival;
  advance(ps);
  return v;
}

/* Skips a balanced `( ... )` (as after .attribute); returns whether it names `.managed`. */
static int skip_parens(parser *ps) {
  expect_punct(ps, '(', "'(' after '.attribute'");
  int depth = 1, managed = 0;
  while (depth > 0) {
    ptx_token *t = cur(ps);
    if (t->kind == PTX_TOK_END) fail_expected(ps, "')'");
    if (tok_is(t, ".managed")) managed = 1;
    if (is_punct(t, '(') && ++depth > MAX_INIT_DEPTH) fail(ps, t->loc, "'(' nested too deeply");
    if (is_punct(t, ')')) depth--;
    advance(ps);
  }
  return managed;
}

/* ---------------------------------------------------------------------------------------------
 * Operands and instructions
 * ------------------------------------------------------------------------------------------- */

static void parse_operand(parser *ps, ptx_operand *o, int depth);

/* Parses `first {, operand} close` into scratch[depth] and attaches them to o->elems. */
static void parse_elems(parser *ps, ptx_operand *o, int depth, char close, const char *what,
                        int allow_empty) {
  if (depth > MAX_OPND_DEPTH) fail(ps, cur(ps)->loc, "operands nested too deeply");
  vec *v = &ps->scratch[depth];
  v->n = 0;
  if (allow_empty && is_punct(cur(ps), close)) {
    advance(ps);
    o->elems = NULL;
    o->nelems = 0;
    return;
  }
  for (;;) {
    ptx_operand *e = vec_push(ps, v, sizeof *e, MAX_LIST, "elements");
    parse_operand(ps, e, depth);
    if (is_punct(cur(ps), ',')) {
      advance(ps);
      continue;
    }
    if (is_punct(cur(ps), close)) break;
    fail_expected(ps, what);
  }
  advance(ps);
  o->elems = vec_finish(ps, v, sizeof(ptx_operand), &o->nelems);
}

static int64_t parse_signed_int(parser *ps, const char *what) {
  int neg = 0;
  if (is_punct(cur(ps), '-')) {
    neg = 1;
    advance(ps);
  }
  ptx_token *t = cur(ps);
  if (t->kind != PTX_TOK_INT) fail_expected(ps, what);
  uint64_t v = neg ? (uint64_t)0 - t->ival : t->ival;
  advance(ps);
  return (int64_t)v;
}

static void parse_address(parser *ps, ptx_operand *o, int depth) {
  advance(ps); /* [ */
  o->kind = PTX_OPND_ADDR;
  ptx_token *t = cur(ps);
  if (t->kind == PTX_TOK_REG || t->kind == PTX_TOK_IDENT) {
    o->name = intern_tok(ps, t);
    o->base_is_reg = t->kind == PTX_TOK_REG;
    advance(ps);
    if (is_punct(cur(ps), '+')) {
      advance(ps);
      o->offset = parse_signed_int(ps, "integer offset after '+'");
    } else if (is_punct(cur(ps), '-')) {
      advance(ps);
      ptx_token *n = cur(ps);
      if (n->kind != PTX_TOK_INT) fail_expected(ps, "integer offset after '-'");
      o->offset = (int64_t)((uint64_t)0 - n->ival);
      advance(ps);
    }
  } else if (t->kind == PTX_TOK_INT || is_punct(t, '-')) {
    o->offset = parse_signed_int(ps, "address");
  } else {
    fail_expected(ps, "register, symbol or integer in address");
  }
  if (is_punct(cur(ps), ',')) {
    /* texture / surface tuple: [tex, {coords}] — the operands after the base go to elems */
    advance(ps);
    parse_elems(ps, o, depth + 1, ']', "',' or ']' in address", 0);
    return;
  }
  expect_punct(ps, ']', "']' after address");
}

static void parse_pair(parser *ps, ptx_operand *o) {
  if (!is_punct(cur(ps), '|')) return;
  advance(ps);
  ptx_token *t = cur(ps);
  if (t->kind != PTX_TOK_REG && t->kind != PTX_TOK_IDENT) fail_expected(ps, "register after '|'");
  o->pair = intern_tok(ps, t);
  advance(ps);
}

static void parse_operand(parser *ps, ptx_operand *o, int depth) {
  ptx_token *t = cur(ps);
  o->loc = t->loc;
  if (is_punct(t, '!')) {
    advance(ps);
    t = cur(ps);
    if (t->kind != PTX_TOK_REG && t->kind != PTX_TOK_IDENT) fail_expected(ps, "predicate after '!'");
    o->kind = t->kind == PTX_TOK_REG ? PTX_OPND_REG : PTX_OPND_SYM;
    o->name = intern_tok(ps, t);
    o->neg = 1;
    advance(ps);
    return;
  }
  if (is_punct(t, '-')) {
    advance(ps);
    t = cur(ps);
    if (t->kind == PTX_TOK_INT) {
      o->kind = PTX_OPND_INT;
      o->ival = (uint64_t)0 - t->ival;
    } else if (t->kind == PTX_TOK_F32) {
      o->kind = PTX_OPND_F32;
      o->ival = t->ival ^ 0x80000000u;
    } else if (t->kind == PTX_TOK_F64) {
      o->kind = PTX_OPND_F64;
      o->ival = t->ival ^ ((uint64_t)1 << 63);
    } else {
      fail_expected(ps, "number after '-'");
    }
    advance(ps);
    return;
  }
  switch (t->kind) {
  case PTX_TOK_INT:
    o->kind = PTX_OPND_INT;
    o->ival = t->ival;
    advance(ps);
    return;
  case PTX_TOK_F32:
    o->kind = PTX_OPND_F32;
    o->ival = t->ival;
    advance(ps);
    return;
  case PTX_TOK_F64:
    o->kind = PTX_OPND_F64;
    o->ival = t->ival;
    advance(ps);
    return;
  case PTX_TOK_REG:
    o->kind = PTX_OPND_REG;
    o->name = intern_tok(ps, t);
    advance(ps);
    parse_pair(ps, o);
    return;
  case PTX_TOK_IDENT:
    if (tok_is(t, "_")) {
      o->kind = PTX_OPND_SINK;
      advance(ps);
      parse_pair(ps, o); /* `_|%p`: setp's first destination discarded */
      return;
    }
    o->kind = PTX_OPND_SYM;
    o->name = intern_tok(ps, t);
    advance(ps);
    parse_pair(ps, o);
    return;
  default:
    break;
  }
  if (is_punct(t, '[')) {
    parse_address(ps, o, depth);
  } else if (is_punct(t, '{')) {
    advance(ps);
    o->kind = PTX_OPND_VEC;
    parse_elems(ps, o, depth + 1, '}', "',' or '}' in vector operand", 0);
  } else if (is_punct(t, '(')) {
    advance(ps);
    o->kind = PTX_OPND_LIST;
    parse_elems(ps, o, depth + 1, ')', "',' or ')' in operand list", 1);
  } else {
    fail_expected(ps, "operand");
  }
}

static int starts_operand(const ptx_token *t) {
  switch (t->kind) {
  case PTX_TOK_INT:
  case PTX_TOK_F32:
  case PTX_TOK_F64:
  case PTX_TOK_REG:
  case PTX_TOK_IDENT:
    return 1;
  case PTX_TOK_PUNCT:
    return strchr("[{(!-;", t->punct) != NULL;
  default:
    return 0;
  }
}

static void push_stmt(parser *ps, const ptx_stmt *s) {
  ptx_stmt *d = vec_push(ps, &ps->body, sizeof *d, MAX_STMTS, "statements in function body");
  *d = *s;
}

static void parse_instruction(parser *ps) {
  ptx_stmt st;
  memset(&st, 0, sizeof st);
  st.kind = PTX_STMT_INSN;
  ptx_insn *in = &st.insn;
  ptx_token *t = cur(ps);
  st.loc = t->loc;
  if (is_punct(t, '@')) {
    advance(ps);
    if (is_punct(cur(ps), '!')) {
      in->guard_neg = 1;
      advance(ps);
    }
    t = cur(ps);
    if (t->kind != PTX_TOK_REG && t->kind != PTX_TOK_IDENT) fail_expected(ps, "predicate after '@'");
    in->guard = intern_tok(ps, t);
    advance(ps);
    t = cur(ps);
    if (t->kind != PTX_TOK_IDENT) fail_expected(ps, "instruction after guard predicate");
  }
  in->loc = t->loc;
  in->opcode = intern_tok(ps, t);
  advance(ps);
  const char *mods[MAX_MODS];
  uint32_t nmods = 0;
  for (t = cur(ps); t->kind == PTX_TOK_DIRECTIVE && !t->spaced; t = cur(ps)) {
    if (nmods == MAX_MODS) fail(ps, t->loc, "too many modifiers (limit %d)", MAX_MODS);
    mods[nmods++] = intern(ps, t->p + 1, t->len - 1);
    advance(ps);
  }
  if (nmods) {
    in->mods = xalloc(ps, nmods, sizeof *in->mods);
    memcpy(in->mods, mods, nmods * sizeof *mods);
    in->nmods = nmods;
  }
  vec *v = &ps->scratch[0];
  v->n = 0;
  if (!starts_operand(cur(ps))) fail_expected(ps, "';' after instruction");
  if (!is_punct(cur(ps), ';')) {
    for (;;) {
      ptx_operand *o = vec_push(ps, v, sizeof *o, MAX_OPNDS, "operands");
      parse_operand(ps, o, 0);
      if (!is_punct(cur(ps), ',')) break;
      advance(ps);
    }
  }
  if (!is_punct(cur(ps), ';')) fail_expected(ps, "';' after instruction");
  advance(ps);
  in->ops = vec_finish(ps, v, sizeof(ptx_operand), &in->nops);
  int call = !strcmp(in->opcode, "call");
  uint32_t callee = in->nops && in->ops[0].kind == PTX_OPND_LIST;
  if (call && callee < in->nops && in->ops[callee].kind == PTX_OPND_REG) ps->calls_indirect = 1;
  for (uint32_t i = 0; i < in->nops; i++) note_operand_refs(ps, &in->ops[i], !call);
  in->src_file = ps->loc_file;
  in->src_line = ps->loc_line;
  push_stmt(ps, &st);
}

/* ---------------------------------------------------------------------------------------------
 * Declarations
 * ------------------------------------------------------------------------------------------- */

static ptx_space space_of(const ptx_token *t) {
  if (t->kind != PTX_TOK_DIRECTIVE) return PTX_SPACE_NONE;
  if (tok_is(t, ".reg")) return PTX_SPACE_REG;
  if (tok_is(t, ".param")) return PTX_SPACE_PARAM;
  if (tok_is(t, ".global")) return PTX_SPACE_GLOBAL;
  if (tok_is(t, ".shared")) return PTX_SPACE_SHARED;
  if (tok_is(t, ".local")) return PTX_SPACE_LOCAL;
  if (tok_is(t, ".const")) return PTX_SPACE_CONST;
  return PTX_SPACE_NONE;
}

/* Size in bytes of a scalar type, for the array-size limit (1 for types it does not know). */
static uint64_t type_size(const char *ty) {
  static const struct {
    const char *name;
    uint8_t size;
  } sizes[] = {
      {"b8", 1},     {"s8", 1},      {"u8", 1},      {"b16", 2},     {"s16", 2},  {"u16", 2},
      {"f16", 2},    {"bf16", 2},    {"b32", 4},     {"s32", 4},     {"u32", 4},  {"f32", 4},
      {"f16x2", 4},  {"bf16x2", 4},  {"tf32", 4},    {"b64", 8},     {"s64", 8},  {"u64", 8},
      {"f64", 8},    {"b128", 16},   {"texref", 8},  {"samplerref", 8}, {"surfref", 8},
  };
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if (strcmp(ty, sizes[i].name) == 0) return sizes[i].size;
  return 1;
}

/* After the state-space directive: {.align N | .vN | .ptr [.space] [.align N] | .attribute(..)}
 * and the type, in any order nvcc uses. Fills space/type/align/vec/ptr fields of *v. */
static void parse_var_head(parser *ps, ptx_var *v, ptx_space space, const char *what) {
  v->space = space;
  v->vec = 1;
  int seen_ptr = 0;
  for (;;) {
    ptx_token *t = cur(ps);
    if (t->kind != PTX_TOK_DIRECTIVE) break;
    if (tok_is(t, ".align")) {
      advance(ps);
      ptx_loc nloc = cur(ps)->loc; /* tokens are overwritten by advance(): keep the position */
      uint32_t a = expect_u32(ps, "integer after '.align'");
      if (a == 0 || (a & (a - 1)) != 0) fail(ps, nloc, "'.align' %u is not a power of two", a);
      if (seen_ptr)
        v->ptr_align = a;
      else
        v->align = a;
      continue;
    }
    if (tok_is(t, ".v2") || tok_is(t, ".v4") || tok_is(t, ".v8")) {
      v->vec = (uint32_t)(t->p[2] - '0');
      advance(ps);
      continue;
    }
    if (tok_is(t, ".ptr")) {
      seen_ptr = 1;
      v->is_ptr = 1;
      advance(ps);
      continue;
    }
    if (seen_ptr && space_of(t) != PTX_SPACE_NONE && v->ptr_space == PTX_SPACE_NONE) {
      v->ptr_space = space_of(t);
      advance(ps);
      continue;
    }
    if (tok_is(t, ".attribute")) {
      advance(ps);
      if (skip_parens(ps)) v->is_managed = 1;
      continue;
    }
    if (v->type) {
      char d[96];
      fail(ps, t->loc, "unexpected %s in %s declaration", ptx_token_describe(t, d, sizeof d), what);
    }
    v->type = intern(ps, t->p + 1, t->len - 1);
    advance(ps);
  }
  if (!v->type) {
    char msg[96];
    snprintf(msg, sizeof msg, "type in %s declaration", what);
    fail_expected(ps, msg);
  }
}

static void push_init(parser *ps, ptx_init_kind kind, uint64_t bits, const char *sym, int64_t off) {
  ptx_init *in = vec_push(ps, &ps->inits, sizeof *in, MAX_INITS, "initializer elements");
  in->kind = kind;
  in->bits = bits;
  in->sym = sym;
  in->off = off;
}

/* `sym`, `sym+4`, `generic(sym)`, `generic(sym)+4`; `mask` (0 = none) goes to bits. */
static void parse_init_address(parser *ps, uint64_t mask) {
  ptx_token *t = cur(ps);
  if (t->kind != PTX_TOK_IDENT) fail_expected(ps, "initializer");
  ptx_init_kind kind = PTX_INIT_SYM;
  const char *sym;
  if (tok_is(t, "generic") && is_punct(peek2(ps), '(')) {
    kind = PTX_INIT_GENERIC;
    advance(ps);
    advance(ps);
    t = cur(ps);
    if (t->kind != PTX_TOK_IDENT) fail_expected(ps, "symbol in 'generic(...)'");
    sym = intern_tok(ps, t);
    advance(ps);
    expect_punct(ps, ')', "')' after 'generic(' symbol");
  } else {
    sym = intern_tok(ps, t);
    advance(ps);
  }
  int64_t off = 0;
  if (is_punct(cur(ps), '+')) {
    advance(ps);
    off = parse_signed_int(ps, "integer offset after '+'");
  } else if (is_punct(cur(ps), '-')) {
    advance(ps);
    ptx_token *n = cur(ps);
    if (n->kind != PTX_TOK_INT) fail_expected(ps, "integer offset after '-'");
    off = (int64_t)((uint64_t)0 - n->ival);
    advance(ps);
  }
  push_init(ps, kind, mask, sym, off);
}

static void parse_init(parser *ps, int depth) {
  ptx_token *t = cur(ps);
  if (is_punct(t, '{')) {
    if (depth >= MAX_INIT_DEPTH) fail(ps, t->loc, "initializer braces nested too deeply");
    advance(ps);
    for (;;) {
      parse_init(ps, depth + 1);
      if (is_punct(cur(ps), ',')) {
        advance(ps);
        continue;
      }
      if (is_punct(cur(ps), '}')) break;
      fail_expected(ps, "',' or '}' in initializer");
    }
    advance(ps);
    return;
  }
  int neg = 0;
  if (is_punct(t, '-')) {
    neg = 1;
    advance(ps);
    t = cur(ps);
  }
  if (t->kind == PTX_TOK_INT) {
    uint64_t v = t->ival;
    if (!neg && is_punct(peek2(ps), '(')) {
      /* byte mask of an address: 0xFF00(generic(sym)+4) */
      advance(ps);
      advance(ps);
      parse_init_address(ps, v);
      expect_punct(ps, ')', "')' after masked address");
      return;
    }
    push_init(ps, PTX_INIT_INT, neg ? (uint64_t)0 - v : v, NULL, 0);
  } else if (t->kind == PTX_TOK_F32) {
    push_init(ps, PTX_INIT_F32, neg ? t->ival ^ 0x80000000u : t->ival, NULL, 0);
  } else if (t->kind == PTX_TOK_F64) {
    push_init(ps, PTX_INIT_F64, neg ? t->ival ^ ((uint64_t)1 << 63) : t->ival, NULL, 0);
  } else if (!neg && t->kind == PTX_TOK_IDENT) {
    parse_init_address(ps, 0);
    return;
  } else {
    fail_expected(ps, neg ? "number after '-'" : "initializer");
  }
  advance(ps);
}

/* One declared name with its range or dimensions and initializer: `%r<68>`, `a[4][2] = {...}`.
 * `v` holds the head already parsed; `allow_init` is 0 in parameter lists. */
static void parse_var_item(parser *ps, ptx_var *v, const char *what, int allow_init) {
  ptx_token *t = cur(ps);
  if (t->kind != PTX_TOK_REG && t->kind != PTX_TOK_IDENT) {
    char msg[96];
    snprintf(msg, sizeof msg, "name in %s declaration", what);
    fail_expected(ps, msg);
  }
  v->loc = t->loc;
  v->name = intern_tok(ps, t);
  v->nelems = 1;
  advance(ps);
  if (is_punct(cur(ps), '<')) {
    advance(ps);
    ptx_token *n = cur(ps);
    if (n->kind != PTX_TOK_INT) fail_expected(ps, "register count after '<'");
    if (n->ival > MAX_RANGE) fail(ps, n->loc, "%s range too large", what);
    if (n->ival == 0) fail(ps, n->loc, "%s range must be at least 1", what);
    v->range = (uint32_t)n->ival;
    advance(ps);
    expect_punct(ps, '>', "'>' after register count");
  }
  uint64_t dims[MAX_DIMS];
  int ndims = 0;
  ptx_loc array_loc = cur(ps)->loc;
  while (is_punct(cur(ps), '[')) {
    ptx_token *b = cur(ps);
    if (ndims == MAX_DIMS) fail(ps, b->loc, "too many array dimensions (limit %d)", MAX_DIMS);
    if (v->range) fail(ps, b->loc, "a register range cannot be an array");
    advance(ps);
    v->is_array = 1;
    if (is_punct(cur(ps), ']')) {
      if (ndims != 0) fail(ps, cur(ps)->loc, "only the first array dimension may be empty");
      v->unsized = 1;
      dims[ndims++] = 0;
    } else {
      ptx_token *n = cur(ps);
      if (n->kind != PTX_TOK_INT) fail_expected(ps, "array size");
      if (n->ival > MAX_ARRAY_BYTES) fail(ps, n->loc, "array too large");
      dims[ndims++] = n->ival;
      advance(ps);
    }
    expect_punct(ps, ']', "']' after array size");
  }
  uint64_t inner = 1; /* product of all dimensions but the first */
  for (int i = 1; i < ndims; i++) {
    if (dims[i] && inner > MAX_ARRAY_BYTES / dims[i]) fail(ps, array_loc, "array too large");
    inner *= dims[i];
  }
  if (is_punct(cur(ps), '=')) {
    ptx_token *eq = cur(ps);
    if (!allow_init) fail(ps, eq->loc, "initializer not allowed in %s declaration", what);
    if (v->range) fail(ps, eq->loc, "a register range cannot have an initializer");
    advance(ps);
    ps->inits.n = 0;
    parse_init(ps, 0);
    uint64_t n = ps->inits.n;
    if (v->unsized) {
      /* x[] = {...}: the size comes from the initializer */
      uint64_t per = inner * v->vec;
      dims[0] = per ? (n + per - 1) / per : 0;
      v->unsized = 0;
    }
    v->init = vec_finish(ps, &ps->inits, sizeof(ptx_init), &v->ninit);
  }
  uint64_t nel = ndims ? dims[0] : 1;
  if (ndims && inner && nel > MAX_ARRAY_BYTES / inner) fail(ps, array_loc, "array too large");
  nel = ndims ? nel * inner : 1;
  if (v->unsized) nel = 0;
  uint64_t bytes_per = type_size(v->type) * v->vec;
  if (nel > MAX_ARRAY_BYTES / bytes_per) fail(ps, array_loc, "array too large");
  v->nelems = nel;
  if ((uint64_t)v->ninit > nel * v->vec)
    fail(ps, v->loc, "too many initializers for '%s' (%u for %llu elements)", v->name,
         (unsigned)v->ninit, (unsigned long long)(nel * v->vec));
}

/* A full declaration statement after its linkage words: `space head item {, item} ;`.
 * Module scope: each item goes to ps->vars; in a body each becomes a VAR statement. */
static void parse_var_decl(parser *ps, uint8_t is_extern, uint8_t is_visible, uint8_t is_weak) {
  ptx_token *t = cur(ps);
  ptx_space space = space_of(t);
  char what[24];
  snprintf(what, sizeof what, "'%.*s'", (int)(t->len < 16 ? t->len : 16), t->p);
  advance(ps);
  ptx_var head;
  memset(&head, 0, sizeof head);
  head.is_extern = is_extern;
  head.is_visible = is_visible;
  head.is_weak = is_weak;
  parse_var_head(ps, &head, space, what);
  for (;;) {
    ptx_var v = head;
    parse_var_item(ps, &v, what, 1);
    if (ps->in_body) {
      ptx_stmt st;
      memset(&st, 0, sizeof st);
      st.kind = PTX_STMT_VAR;
      st.loc = v.loc;
      st.var = v;
      push_stmt(ps, &st);
      seen_mark(ps, v.name, SEEN_DECL);
      if (v.space == PTX_SPACE_SHARED) *(ptx_var *)vec_push(ps, &ps->shared, sizeof v, MAX_STMTS, "shared variables") = v;
    } else {
      *(ptx_var *)vec_push(ps, &ps->vars, sizeof v, MAX_ITEMS, "module variables") = v;
    }
    if (!is_punct(cur(ps), ',')) break;
    advance(ps);
  }
  if (!is_punct(cur(ps), ';')) fail_expected(ps, "';' after declaration");
  advance(ps);
}

/* ( .param .b32 a, .reg .u64 b ) — one declaration per entry, into `out`. */
static void parse_param_list(parser *ps, vec *out) {
  out->n = 0;
  advance(ps); /* ( */
  if (is_punct(cur(ps), ')')) {
    advance(ps);
    return;
  }
  for (;;) {
    ptx_token *t = cur(ps);
    ptx_space sp = space_of(t);
    if (sp != PTX_SPACE_PARAM && sp != PTX_SPACE_REG) fail_expected(ps, "'.param' in parameter list");
    const char *what = sp == PTX_SPACE_PARAM ? "'.param'" : "'.reg'";
    advance(ps);
    ptx_var v;
    memset(&v, 0, sizeof v);
    parse_var_head(ps, &v, sp, what);
    parse_var_item(ps, &v, what, 0);
    *(ptx_var *)vec_push(ps, out, sizeof v, MAX_PARAMS, "parameters") = v;
    if (is_punct(cur(ps), ',')) {
      advance(ps);
      continue;
    }
    if (is_punct(cur(ps), ')')) break;
    fail_expected(ps, "',' or ')' in parameter list");
  }
  advance(ps);
}

/* ---------------------------------------------------------------------------------------------
 * Directives shared by module and body
 * ------------------------------------------------------------------------------------------- */

/* .loc FILE LINE COL [, function_name L, inlined_at F L C] — the tail on the same line is ignored */
static void parse_loc(parser *ps) {
  uint32_t line = cur(ps)->loc.line;
  advance(ps);
  uint32_t file = expect_u32(ps, "file index after '.loc'");
  uint32_t ln = expect_u32(ps, "line number after '.loc'");
  expect_u32(ps, "column after '.loc'");
  while (cur(ps)->kind != PTX_TOK_END && cur(ps)->loc.line == line) advance(ps);
  ps->loc_file = file;
  ps->loc_line = ln;
}

/* .pragma "a" {, "b"} ; — returns the first string. */
static const char *parse_pragma(parser *ps) {
  advance(ps);
  ptx_token *t = cur(ps);
  if (t->kind != PTX_TOK_STRING) fail_expected(ps, "string after '.pragma'");
  const char *s = intern_string(ps, t);
  advance(ps);
  while (is_punct(cur(ps), ',')) {
    advance(ps);
    if (cur(ps)->kind != PTX_TOK_STRING) fail_expected(ps, "string after ','");
    advance(ps);
  }
  expect_punct(ps, ';', "';' after '.pragma'");
  return s;
}

/* .file N "name" [, timestamp, size] */
static void parse_file(parser *ps) {
  advance(ps);
  ptx_file_entry fe;
  fe.index = expect_u32(ps, "file index after '.file'");
  ptx_token *t = cur(ps);
  if (t->kind != PTX_TOK_STRING) fail_expected(ps, "file name string after '.file'");
  fe.name = intern_string(ps, t);
  advance(ps);
  for (int i = 0; i < 2 && is_punct(cur(ps), ','); i++) {
    advance(ps);
    ptx_token *n = cur(ps);
    if (n->kind != PTX_TOK_INT) fail_expected(ps, "integer after ',' in '.file'");
    advance(ps);
  }
  *(ptx_file_entry *)vec_push(ps, &ps->files, sizeof fe, MAX_ITEMS, "'.file' directives") = fe;
}

/* `label: .callprototype {(rets)} _ {(params)} {.noreturn};` — the prototype an indirect call's callees
 * share — or `label: .calltargets f {, f};` — the complete list of its callees (PTX ISA "call"): a PROTO
 * statement. Its functions count as names the body refers to. */
static void parse_proto(parser *ps, const char *label) {
  ptx_stmt st;
  memset(&st, 0, sizeof st);
  st.kind = PTX_STMT_PROTO;
  st.loc = cur(ps)->loc;
  ptx_proto *p = xalloc(ps, 1, sizeof *p);
  p->name = label;
  p->is_targets = (uint8_t)is_dir(cur(ps), ".calltargets");
  const char *what = p->is_targets ? "';' after '.calltargets' declaration" : "';' after '.callprototype' declaration";
  advance(ps);
  if (p->is_targets) {
    ps->targets.n = 0;
    for (;;) {
      ptx_token *t = cur(ps);
      if (t->kind != PTX_TOK_IDENT) fail_expected(ps, "function name in '.calltargets'");
      const char *name = intern_tok(ps, t);
      note_ref(ps, name);
      *(const char **)vec_push(ps, &ps->targets, sizeof name, MAX_PARAMS, "call targets") = name;
      advance(ps);
      if (!is_punct(cur(ps), ',')) break;
      advance(ps);
    }
    p->targets = vec_finish(ps, &ps->targets, sizeof(const char *), &p->ntargets);
  } else {
    if (is_punct(cur(ps), '(')) {
      parse_param_list(ps, &ps->rets);
      p->rets = vec_finish(ps, &ps->rets, sizeof(ptx_var), &p->nrets);
    }
    if (!tok_is(cur(ps), "_")) fail_expected(ps, "'_' (the prototype's name) in '.callprototype'");
    advance(ps);
    if (is_punct(cur(ps), '(')) {
      parse_param_list(ps, &ps->params);
      p->params = vec_finish(ps, &ps->params, sizeof(ptx_var), &p->nparams);
    }
    for (;;) { /* attributes: .noreturn, and the register-usage hints .abi_preserve{_control} N */
      ptx_token *t = cur(ps);
      if (is_dir(t, ".noreturn")) {
        p->noreturn = 1;
        advance(ps);
      } else if (is_dir(t, ".abi_preserve") || is_dir(t, ".abi_preserve_control")) {
        advance(ps);
        expect_u32(ps, "integer after '.abi_preserve'");
      } else {
        break;
      }
    }
  }
  expect_punct(ps, ';', what);
  st.proto = p;
  push_stmt(ps, &st);
}

/* `label: .branchtargets ...;`: a PRAGMA statement holding the directive's text, tokens separated by
 * single spaces where the source had space. */
static void parse_label_directive(parser *ps) {
  ptx_stmt st;
  memset(&st, 0, sizeof st);
  st.kind = PTX_STMT_PRAGMA;
  st.loc = cur(ps)->loc;
  char dir[24];
  snprintf(dir, sizeof dir, "%.*s", (int)(cur(ps)->len < 20 ? cur(ps)->len : 20), cur(ps)->p);
  ps->text.n = 0;
  int first = 1;
  for (;;) {
    ptx_token *t = cur(ps);
    if (t->kind == PTX_TOK_END || is_punct(t, '}') || is_punct(t, '{')) {
      char msg[64];
      snprintf(msg, sizeof msg, "';' after '%s' declaration", dir);
      fail_expected(ps, msg);
    }
    if (is_punct(t, ';')) break;
    if (!first && t->spaced) text_append(ps, " ", 1);
    if (t->kind == PTX_TOK_STRING) text_append(ps, "\"", 1);
    text_append(ps, t->p, t->len);
    if (t->kind == PTX_TOK_STRING) text_append(ps, "\"", 1);
    first = 0;
    advance(ps);
  }
  advance(ps);
  st.label = intern(ps, ps->text.data, ps->text.n);
  push_stmt(ps, &st);
}

/* ---------------------------------------------------------------------------------------------
 * Functions
 * ------------------------------------------------------------------------------------------- */

static void parse_body(parser *ps) {
  advance(ps); /* { */
  ps->in_body = 1;
  ps->arena = ps->store;
  int depth = 0;
  for (;;) {
    ptx_token *t = cur(ps);
    if (t->kind == PTX_TOK_END) fail(ps, t->loc, "unexpected end of file in function body");
    if (is_punct(t, '{')) {
      if (depth >= MAX_SCOPE_DEPTH) fail(ps, t->loc, "'{' nested too deeply (limit %d)", MAX_SCOPE_DEPTH);
      depth++;
      ptx_stmt st;
      memset(&st, 0, sizeof st);
      st.kind = PTX_STMT_SCOPE_OPEN;
      st.loc = t->loc;
      push_stmt(ps, &st);
      advance(ps);
    } else if (is_punct(t, '}')) {
      if (depth == 0) {
        advance(ps);
        break;
      }
      depth--;
      ptx_stmt st;
      memset(&st, 0, sizeof st);
      st.kind = PTX_STMT_SCOPE_CLOSE;
      st.loc = t->loc;
      push_stmt(ps, &st);
      advance(ps);
    } else if (is_punct(t, '@')) {
      parse_instruction(ps);
    } else if (t->kind == PTX_TOK_IDENT) {
      if (is_punct(peek2(ps), ':')) {
        ptx_stmt st;
        memset(&st, 0, sizeof st);
        st.kind = PTX_STMT_LABEL;
        st.loc = t->loc;
        st.label = intern_tok(ps, t);
        seen_mark(ps, st.label, SEEN_DECL);
        push_stmt(ps, &st);
        advance(ps);
        advance(ps);
        ptx_token *d = cur(ps);
        if (is_dir(d, ".callprototype") || is_dir(d, ".calltargets")) parse_proto(ps, st.label);
        else if (is_dir(d, ".branchtargets")) parse_label_directive(ps);
      } else {
        parse_instruction(ps);
      }
    } else if (t->kind == PTX_TOK_DIRECTIVE) {
      if (space_of(t) != PTX_SPACE_NONE) {
        parse_var_decl(ps, 0, 0, 0);
      } else if (tok_is(t, ".loc")) {
        parse_loc(ps);
      } else if (tok_is(t, ".pragma")) {
        ptx_stmt st;
        memset(&st, 0, sizeof st);
        st.kind = PTX_STMT_PRAGMA;
        st.loc = t->loc;
        st.label = parse_pragma(ps);
        push_stmt(ps, &st);
      } else if (tok_is(t, ".file")) {
        parse_file(ps);
      } else {
        char d[96];
        fail(ps, t->loc, "unexpected directive %s in function body", ptx_token_describe(t, d, sizeof d));
      }
    } else {
      fail_expected(ps, "instruction, label or directive");
    }
  }
  ps->in_body = 0;
  ps->arena = ps->names;
}

/* The summary of the body just parsed, in the module's arena: its .shared declarations and the
 * names it refers to that it does not declare itself. */
static void finish_summary(parser *ps, ptx_func *f) {
  f->shared = vec_finish(ps, &ps->shared, sizeof(ptx_var), &f->nshared);
  size_t k = 0;
  const char **r = ps->refs.data;
  for (size_t i = 0; i < ps->refs.n; i++)
    if (!(seen_flags(ps, r[i]) & SEEN_DECL)) r[k++] = r[i];
  ps->refs.n = k;
  const char **vr = xalloc(ps, k + 1, sizeof *vr);
  for (size_t i = 0; i < k; i++)
    if (seen_flags(ps, r[i]) & SEEN_VAL) vr[f->nvrefs++] = r[i];
  f->vrefs = vr;
  f->refs = vec_finish(ps, &ps->refs, sizeof(const char *), &f->nrefs);
  f->calls_indirect = (uint8_t)ps->calls_indirect;
  ps->calls_indirect = 0;
  seen_clear(ps);
}

/* .maxntid / .reqntid: 1 to 3 integers; missing components are 1. */
static void parse_dim3(parser *ps, uint32_t out[3], const char *name) {
  advance(ps);
  out[0] = out[1] = out[2] = 1;
  char what[48];
  snprintf(what, sizeof what, "integer after '%s'", name);
  for (int i = 0; i < 3; i++) {
    out[i] = expect_u32(ps, what);
    if (!is_punct(cur(ps), ',')) break;
    if (i == 2) fail(ps, cur(ps)->loc, "'%s' takes at most 3 values", name);
    advance(ps);
  }
}

/* Directives that may sit between a function's header and its body and carry no meaning here. */
static int is_ignored_perf_directive(const ptx_token *t) {
  static const char *const names[] = {".blocksareclusters", ".abi_preserve", ".abi_preserve_control"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (is_dir(t, names[i])) return 1;
  return 0;
}

static void parse_function(parser *ps, uint8_t is_extern, uint8_t is_visible, uint8_t is_weak) {
  ptx_func f;
  memset(&f, 0, sizeof f);
  ptx_token *t = cur(ps);
  f.loc = t->loc;
  f.is_entry = tok_is(t, ".entry");
  f.is_extern = is_extern;
  f.is_visible = is_visible;
  f.is_weak = is_weak;
  advance(ps);
  ps->body.n = 0;
  ps->loc_file = ps->loc_line = 0;
  if (is_dir(cur(ps), ".attribute")) {
    advance(ps);
    skip_parens(ps);
  }
  if (!f.is_entry && is_punct(cur(ps), '(')) {
    parse_param_list(ps, &ps->rets);
    f.rets = vec_finish(ps, &ps->rets, sizeof(ptx_var), &f.nrets);
  }
  t = cur(ps);
  if (t->kind != PTX_TOK_IDENT) fail_expected(ps, f.is_entry ? "kernel name after '.entry'" : "function name");
  f.name = intern_tok(ps, t);
  advance(ps);
  if (is_punct(cur(ps), '(')) {
    parse_param_list(ps, &ps->params);
    f.params = vec_finish(ps, &ps->params, sizeof(ptx_var), &f.nparams);
  }
  for (;;) {
    t = cur(ps);
    if (is_dir(t, ".maxntid")) {
      parse_dim3(ps, f.maxntid, ".maxntid");
    } else if (is_dir(t, ".reqntid")) {
      parse_dim3(ps, f.reqntid, ".reqntid");
    } else if (is_dir(t, ".minnctapersm")) {
      advance(ps);
      f.minnctapersm = expect_u32(ps, "integer after '.minnctapersm'");
    } else if (is_dir(t, ".maxnctapersm")) {
      advance(ps);
      f.maxnctapersm = expect_u32(ps, "integer after '.maxnctapersm'");
    } else if (is_dir(t, ".maxnreg")) {
      advance(ps);
      f.maxnreg = expect_u32(ps, "integer after '.maxnreg'");
    } else if (is_dir(t, ".reqnctapercluster")) {
      parse_dim3(ps, f.reqcluster, ".reqnctapercluster");
    } else if (is_dir(t, ".explicitcluster")) {
      f.explicitcluster = 1;
      advance(ps);
    } else if (is_dir(t, ".maxclusterrank")) {
      advance(ps);
      f.maxclusterrank = expect_u32(ps, "integer after '.maxclusterrank'");
    } else if (is_dir(t, ".loc")) {
      parse_loc(ps);
    } else if (is_dir(t, ".noreturn")) {
      f.noreturn = 1;
      advance(ps);
    } else if (is_dir(t, ".pragma")) {
      ptx_stmt st;
      memset(&st, 0, sizeof st);
      st.kind = PTX_STMT_PRAGMA;
      st.loc = t->loc;
      st.label = parse_pragma(ps);
      push_stmt(ps, &st);
    } else if (is_ignored_perf_directive(t)) {
      advance(ps);
      while (cur(ps)->kind == PTX_TOK_INT) {
        advance(ps);
        if (!is_punct(cur(ps), ',')) break;
        advance(ps);
      }
    } else {
      break;
    }
  }
  t = cur(ps);
  if (is_punct(t, ';')) {
    advance(ps);
    ps->body.n = 0;
  } else if (is_punct(t, '{')) {
    f.has_body = 1;
    f.body_off = (size_t)(t->p - ps->lx.text);
    f.body_loc = t->loc;
    f.body_src_file = ps->loc_file;
    f.body_src_line = ps->loc_line;
    ps->shared.n = ps->refs.n = 0;
    parse_body(ps);
    finish_summary(ps, &f);
    if (ps->skim) { /* statements dropped: ptx_parse_body parses them again when needed */
      ps->body.n = 0;
      ptx_arena_reset(ps->store);
    } else {
      f.body = vec_finish(ps, &ps->body, sizeof(ptx_stmt), &f.nbody);
    }
  } else {
    fail_expected(ps, "'{' or ';' after function header");
  }
  *(ptx_func *)vec_push(ps, &ps->funcs, sizeof f, MAX_ITEMS, "functions") = f;
}

/* ---------------------------------------------------------------------------------------------
 * Module
 * ------------------------------------------------------------------------------------------- */

static void skip_section(parser *ps) {
  ptx_loc start = cur(ps)->loc;
  advance(ps);
  ptx_token *t = cur(ps);
  if (t->kind != PTX_TOK_DIRECTIVE && t->kind != PTX_TOK_IDENT) fail_expected(ps, "section name after '.section'");
  advance(ps);
  expect_punct(ps, '{', "'{' after section name");
  int depth = 1;
  while (depth > 0) {
    t = cur(ps);
    if (t->kind == PTX_TOK_END) fail(ps, start, "unterminated '.section' (missing '}')");
    if (is_punct(t, '{') && ++depth > MAX_SCOPE_DEPTH) fail(ps, t->loc, "'{' nested too deeply (limit %d)", MAX_SCOPE_DEPTH);
    if (is_punct(t, '}')) depth--;
    advance(ps);
  }
}

static void parse_version(parser *ps) {
  advance(ps);
  ptx_token *t = cur(ps);
  ptx_loc vloc = t->loc;
  /* `9.0` lexes as a decimal float: read major.minor from its text */
  uint32_t major = 0, minor = 0;
  size_t i = 0;
  int ok = t->kind == PTX_TOK_F64 && t->is_decimal_float;
  size_t nd = 0;
  for (; ok && i < t->len && t->p[i] >= '0' && t->p[i] <= '9'; i++, nd++)
    major = major * 10 + (uint32_t)(t->p[i] - '0');
  ok = ok && nd > 0 && nd < 6 && i < t->len && t->p[i] == '.';
  i++;
  nd = 0;
  for (; ok && i < t->len && t->p[i] >= '0' && t->p[i] <= '9'; i++, nd++)
    minor = minor * 10 + (uint32_t)(t->p[i] - '0');
  ok = ok && nd > 0 && nd < 6 && i == t->len;
  if (!ok) fail_expected(ps, "version number (e.g. '8.0') after '.version'");
  char msg[160];
  if (ptx_version_check(major, minor, msg, sizeof msg)) fail(ps, vloc, "%s", msg);
  ps->mod->version_major = major;
  ps->mod->version_minor = minor;
  advance(ps);
}

static void parse_target(parser *ps) {
  advance(ps);
  for (int first = 1;; first = 0) {
    ptx_token *t = cur(ps);
    if (t->kind != PTX_TOK_IDENT) fail_expected(ps, "target name (e.g. 'sm_90') after '.target'");
    char word[32], msg[160];
    snprintf(word, sizeof word, "%.*s", (int)(t->len < 31 ? t->len : 31), t->p);
    if (ptx_target_check(word, ps->mod->version_major, ps->mod->version_minor, msg, sizeof msg))
      fail(ps, t->loc, "%s", msg);
    if (first) ps->mod->target = intern_tok(ps, t);
    advance(ps);
    if (!is_punct(cur(ps), ',')) break;
    advance(ps);
  }
}

static void parse_module(parser *ps) {
  ptx_module *m = ps->mod;
  m->address_size = 64;
  if (!is_dir(cur(ps), ".version")) fail_expected(ps, "'.version' at start of module");
  parse_version(ps);
  if (!is_dir(cur(ps), ".target")) fail_expected(ps, "'.target' after '.version'");
  parse_target(ps);
  for (;;) {
    ptx_token *t = cur(ps);
    if (t->kind == PTX_TOK_END) break;
    if (t->kind != PTX_TOK_DIRECTIVE) fail_expected(ps, "directive at module scope");
    if (tok_is(t, ".version")) fail(ps, t->loc, "duplicate '.version' directive");
    if (tok_is(t, ".target")) fail(ps, t->loc, "duplicate '.target' directive");
    if (tok_is(t, ".address_size")) {
      advance(ps);
      ptx_loc nloc = cur(ps)->loc;
      uint32_t a = expect_u32(ps, "32 or 64 after '.address_size'");
      if (a != 32 && a != 64) fail(ps, nloc, "invalid '.address_size' %u (expected 32 or 64)", a);
      m->address_size = a;
      continue;
    }
    if (tok_is(t, ".file")) {
      parse_file(ps);
      continue;
    }
    if (tok_is(t, ".loc")) {
      parse_loc(ps);
      continue;
    }
    if (tok_is(t, ".section")) {
      skip_section(ps);
      continue;
    }
    if (tok_is(t, ".pragma")) {
      parse_pragma(ps);
      continue;
    }
    if (tok_is(t, ".alias")) {
      /* .alias a, b; — function aliases are not represented */
      advance(ps);
      for (int i = 0; i < 2; i++) {
        if (cur(ps)->kind != PTX_TOK_IDENT) fail_expected(ps, "function name in '.alias'");
        advance(ps);
        if (i == 0) expect_punct(ps, ',', "',' in '.alias'");
      }
      expect_punct(ps, ';', "';' after '.alias'");
      continue;
    }
    uint8_t is_extern = 0, is_visible = 0, is_weak = 0;
    int linkage = 0;
    for (;; t = cur(ps)) {
      if (is_dir(t, ".extern")) is_extern = 1;
      else if (is_dir(t, ".visible")) is_visible = 1;
      else if (is_dir(t, ".weak") || is_dir(t, ".common")) is_weak = 1;
      else break;
      linkage = 1;
      advance(ps);
    }
    if (is_dir(t, ".entry") || is_dir(t, ".func")) {
      parse_function(ps, is_extern, is_visible, is_weak);
    } else if (space_of(t) == PTX_SPACE_GLOBAL || space_of(t) == PTX_SPACE_SHARED ||
               space_of(t) == PTX_SPACE_CONST || space_of(t) == PTX_SPACE_LOCAL) {
      parse_var_decl(ps, is_extern, is_visible, is_weak);
    } else if (linkage) {
      fail_expected(ps, "'.entry', '.func' or a variable declaration after linkage directive");
    } else {
      char d[96];
      fail(ps, t->loc, "unexpected %s at module scope", ptx_token_describe(t, d, sizeof d));
    }
  }
  m->vars = vec_finish(ps, &ps->vars, sizeof(ptx_var), &m->nvars);
  m->funcs = vec_finish(ps, &ps->funcs, sizeof(ptx_func), &m->nfuncs);
  m->files = vec_finish(ps, &ps->files, sizeof(ptx_file_entry), &m->nfiles);
}

static void free_vecs(parser *ps) {
  vec *all[] = {&ps->vars, &ps->funcs, &ps->files, &ps->body, &ps->params, &ps->rets, &ps->inits, &ps->text,
                &ps->targets, &ps->shared, &ps->refs};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free(all[i]->data);
  for (int i = 0; i <= MAX_OPND_DEPTH; i++) free(ps->scratch[i].data);
  free(ps->seen.keys);
  free(ps->seen.flags);
}

/* The setjmp frame: every parse error longjmps back here. `ps` lives on the heap and is never
 * reassigned, so nothing in this frame is clobbered. */
static int run_parser(parser *ps) {
  if (setjmp(ps->jb) != 0) return -1;
  ps->mod->filename = intern(ps, ps->filename, strlen(ps->filename));
  parse_module(ps);
  return 0;
}

int ptx_parse_ex(const char *text, size_t len, const char *filename, unsigned flags, ptx_module **out, char *err,
                 size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (out) *out = NULL;
  const char *fname = filename ? filename : "<ptx>";
  if (!out || (!text && len)) {
    ptx_format_error(err, errlen, fname, (ptx_loc){0, 0}, "invalid arguments to ptx_parse");
    return -1;
  }
  parser *ps = calloc(1, sizeof *ps);
  ptx_arena *arena = ptx_arena_new();
  ptx_arena *store = (flags & PTX_PARSE_SKIM) ? ptx_arena_new() : arena;
  ptx_module *m = arena ? ptx_arena_alloc(arena, sizeof *m) : NULL;
  if (!ps || !m || !store) {
    free(ps);
    if (store != arena) ptx_arena_free(store);
    ptx_arena_free(arena);
    ptx_format_error(err, errlen, fname, (ptx_loc){1, 1}, "out of memory");
    return -1;
  }
  ps->arena = ps->names = arena;
  ps->store = store;
  ps->skim = (flags & PTX_PARSE_SKIM) != 0;
  ps->mod = m;
  ps->err = err;
  ps->errlen = errlen;
  ps->filename = fname;
  m->arena = arena;
  m->text = text ? text : "";
  m->text_len = text ? len : 0;
  ptx_lexer_init(&ps->lx, text ? text : "", len, fname, err, errlen);
  int rc = run_parser(ps);
  free_vecs(ps);
  free(ps);
  if (store != arena) ptx_arena_free(store);
  if (rc != 0) {
    ptx_arena_free(arena);
    return -1;
  }
  *out = m;
  return 0;
}

int ptx_parse(const char *text, size_t len, const char *filename, ptx_module **out, char *err, size_t errlen) {
  return ptx_parse_ex(text, len, filename, 0, out, err, errlen);
}

/* The setjmp frame of ptx_parse_body (as run_parser's): the body's statements into `store`. */
static int run_body(parser *ps, ptx_stmt **body, uint32_t *nbody) {
  if (setjmp(ps->jb) != 0) return -1;
  if (!is_punct(cur(ps), '{')) fail_expected(ps, "'{' (function body)");
  parse_body(ps);
  ps->arena = ps->store;
  *body = vec_finish(ps, &ps->body, sizeof(ptx_stmt), nbody);
  return 0;
}

int ptx_parse_body(const ptx_module *m, const ptx_func *f, ptx_arena *store, ptx_stmt **body, uint32_t *nbody,
                   char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  *body = NULL;
  *nbody = 0;
  if (f->body || !f->has_body) {
    *body = f->body;
    *nbody = f->nbody;
    return 0;
  }
  const char *fname = m->filename ? m->filename : "<ptx>";
  if (!m->text || f->body_off >= m->text_len) {
    ptx_format_error(err, errlen, fname, f->body_loc, "internal: the text of this body is gone");
    return -1;
  }
  parser *ps = calloc(1, sizeof *ps);
  if (!ps) {
    ptx_format_error(err, errlen, fname, f->body_loc, "out of memory");
    return -1;
  }
  ps->names = m->arena;
  ps->arena = ps->store = store;
  ps->err = err;
  ps->errlen = errlen;
  ps->filename = fname;
  ptx_lexer_init(&ps->lx, m->text, m->text_len, fname, err, errlen);
  ps->lx.pos = f->body_off;
  ps->lx.line = f->body_loc.line;
  ps->lx.line_start = f->body_off - (f->body_loc.col - 1);
  ps->loc_file = f->body_src_file;
  ps->loc_line = f->body_src_line;
  int rc = run_body(ps, body, nbody);
  free_vecs(ps);
  free(ps);
  return rc;
}

void ptx_module_free(ptx_module *m) {
  if (m) ptx_arena_free(m->arena);
}
