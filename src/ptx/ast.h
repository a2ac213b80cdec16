/*
 * ast.h — the PTX module as the parser leaves it: directives, variables, functions and their
 * statements, with every name and modifier still text and every item carrying its source line.
 *
 * The parser (parser.c) builds it; the decoder (src/ir/decode.c) turns it into executable IR.
 * Nothing here knows what an instruction means: `shfl.sync.down.b32` is the opcode "shfl" with the
 * modifiers {"sync", "down", "b32"}. All memory lives in the module's arena and is freed with it.
 */
#ifndef WV_PTX_AST_H
#define WV_PTX_AST_H

#include <stddef.h>
#include <stdint.h>

typedef struct ptx_loc {
  uint32_t line, col; /* 1-based position in the PTX text */
} ptx_loc;

/* State spaces of variables and of ld/st (the decoder reads the latter from modifiers). */
typedef enum ptx_space {
  PTX_SPACE_NONE = 0,
  PTX_SPACE_REG,
  PTX_SPACE_PARAM,
  PTX_SPACE_GLOBAL,
  PTX_SPACE_SHARED,
  PTX_SPACE_LOCAL,
  PTX_SPACE_CONST,
} ptx_space;

typedef enum ptx_opnd_kind {
  PTX_OPND_REG,  /* %r1, %tid.x, %SP, temp_param_reg: `name` (with any .x/.y/.z suffix) */
  PTX_OPND_INT,  /* integer literal: `ival` holds the two's-complement bits (a leading '-' applied) */
  PTX_OPND_F32,  /* 0fXXXXXXXX: `ival` holds the 32 bits */
  PTX_OPND_F64,  /* 0dXXXXXXXXXXXXXXXX or a decimal float literal: `ival` holds the 64 bits */
  PTX_OPND_SYM,  /* a bare identifier that is not a declared register: label, variable, function */
  PTX_OPND_ADDR, /* [base], [base+off], [base+-off], [off]: `name` is the base (NULL for [imm]) */
  PTX_OPND_VEC,  /* {a, b, c, d}: `elems` */
  PTX_OPND_LIST, /* (a, b) — call's return and argument lists: `elems` */
  PTX_OPND_SINK, /* _ */
} ptx_opnd_kind;

/*
 * Note on REG vs SYM: the lexer cannot tell a register from a symbol when the name has no '%'
 * (nvcc declares `.reg .b32 temp_param_reg;` and `%` is optional in PTX). The parser reports
 * every bare identifier operand as PTX_OPND_SYM and every %-name as PTX_OPND_REG; the decoder,
 * which has the scopes, resolves SYM names that are declared registers.
 */
typedef struct ptx_operand {
  ptx_opnd_kind kind;
  ptx_loc loc;
  const char *name;           /* REG / SYM / ADDR base (interned) */
  const char *pair;           /* second destination of `%r5|%p1` (REG name), else NULL */
  uint8_t neg;                /* '!' before a predicate operand (`!%p1`) */
  uint8_t base_is_reg;        /* ADDR: base began with '%' */
  uint64_t ival;              /* INT / F32 / F64 bits */
  int64_t offset;             /* ADDR: constant offset */
  struct ptx_operand *elems;  /* VEC / LIST */
  uint32_t nelems;
} ptx_operand;

typedef struct ptx_insn {
  ptx_loc loc;
  const char *guard;     /* predicate register of @p / @!p, NULL if unguarded */
  uint8_t guard_neg;
  const char *opcode;    /* "shfl" */
  const char **mods;     /* {"sync", "down", "b32"} in source order, without dots */
  uint32_t nmods;
  ptx_operand *ops;
  uint32_t nops;
  uint32_t src_file, src_line; /* from the last `.loc` before it (0 if none) */
} ptx_insn;

typedef enum ptx_init_kind {
  PTX_INIT_INT,     /* bits */
  PTX_INIT_F32,     /* bits */
  PTX_INIT_F64,     /* bits */
  PTX_INIT_SYM,     /* address of `sym` + off (as written: `sym`, `sym+4`) */
  PTX_INIT_GENERIC, /* generic(sym) + off */
} ptx_init_kind;

typedef struct ptx_init {
  ptx_init_kind kind;
  uint64_t bits;      /* INT/F32/F64: the value; SYM/GENERIC: a byte mask (`0xFF00(generic(x))`), 0 = none */
  const char *sym;
  int64_t off;
} ptx_init;

/* A .reg/.global/.shared/.const/.local/.param declaration (module scope, function body, or a
 * function's parameter/return list). */
typedef struct ptx_var {
  ptx_loc loc;
  ptx_space space;
  const char *type;   /* "b32", "u8", "f32", "pred", "b64", ... (without the dot) */
  const char *name;   /* for a range declaration `%r<68>` this is "%r" */
  uint32_t range;     /* `%r<68>` → 68 (names %r0..%r67); 0 for a single name */
  uint32_t align;     /* .align N; 0 = unspecified */
  uint32_t vec;       /* .v2/.v4 → 2/4; else 1 */
  uint64_t nelems;    /* product of array dimensions; 1 for a scalar */
  uint8_t is_array;   /* declared with [] */
  uint8_t unsized;    /* `[]` with no size and no initializer (extern .shared) */
  uint8_t is_extern, is_visible, is_weak;
  uint8_t is_managed; /* .attribute(.managed): CUDA's __managed__ */
  uint8_t is_ptr;     /* .param .u64 .ptr ... */
  ptx_space ptr_space;/* .ptr .global etc. */
  uint32_t ptr_align; /* .ptr ... .align N */
  ptx_init *init;     /* flattened initializer (nested braces flattened in order) */
  uint32_t ninit;
} ptx_var;

typedef enum ptx_stmt_kind {
  PTX_STMT_INSN,
  PTX_STMT_LABEL,
  PTX_STMT_VAR,        /* .reg/.local/.shared/.param declared in the body */
  PTX_STMT_SCOPE_OPEN, /* { */
  PTX_STMT_SCOPE_CLOSE,/* } */
  PTX_STMT_PRAGMA,     /* .pragma "nounroll"; — `label` holds the string (.branchtargets: its text) */
  PTX_STMT_PROTO,      /* label: .callprototype ... / .calltargets ...; — `proto` */
} ptx_stmt_kind;

/* What an indirect call names after its arguments (PTX ISA "call"): `label: .callprototype (rets) _ (params);`,
 * the signature its callees share (parameter names are `_`), or `label: .calltargets f, g;`, the complete
 * list of its callees. */
typedef struct ptx_proto {
  const char *name;        /* the label */
  uint8_t is_targets;      /* .calltargets: `targets`; else .callprototype: `rets`, `params` */
  uint8_t noreturn;
  ptx_var *rets, *params;
  uint32_t nrets, nparams;
  const char **targets;
  uint32_t ntargets;
} ptx_proto;

typedef struct ptx_stmt {
  ptx_stmt_kind kind;
  ptx_loc loc;
  ptx_insn insn;      /* INSN */
  ptx_var var;        /* VAR */
  const char *label;  /* LABEL name, PRAGMA text */
  ptx_proto *proto;   /* PROTO */
} ptx_stmt;

typedef struct ptx_func {
  ptx_loc loc;
  const char *name;
  uint8_t is_entry, is_visible, is_extern, is_weak, noreturn;
  uint8_t has_body;   /* 0 for a prototype (`.extern .func vprintf(...);`) */
  ptx_var *params;    /* the parenthesised .param list */
  uint32_t nparams;
  ptx_var *rets;      /* .func (.param .b32 func_retval0) f(...) */
  uint32_t nrets;
  uint32_t maxntid[3], reqntid[3]; /* 0 = not given (missing components are 1 when given) */
  uint32_t minnctapersm, maxnreg, maxnctapersm;
  uint32_t reqcluster[3], maxclusterrank; /* .reqnctapercluster (0 = not given), .maxclusterrank */
  uint8_t explicitcluster;
  ptx_stmt *body;     /* NULL when parsed with PTX_PARSE_SKIM: ptx_parse_body gives it */
  uint32_t nbody;
  /* the body's summary, always there: */
  ptx_var *shared;    /* its .shared declarations, in order */
  uint32_t nshared;
  const char **refs;  /* identifiers its instructions name that it does not declare (symbols, not %registers) */
  uint32_t nrefs;
  const char **vrefs; /* those of them named as values (by any instruction but call: a function's address taken) */
  uint32_t nvrefs;
  uint8_t calls_indirect; /* it has a call through a register */
  size_t body_off;    /* where its '{' is in the module's text */
  ptx_loc body_loc;
  uint32_t body_src_file, body_src_line; /* the `.loc` in force at its '{' */
} ptx_func;

typedef struct ptx_file_entry {
  uint32_t index;
  const char *name;
} ptx_file_entry;

typedef struct ptx_module {
  const char *filename;     /* as given to the parser, for messages */
  uint32_t version_major, version_minor; /* .version */
  const char *target;       /* first word of .target, e.g. "sm_90" */
  uint32_t address_size;    /* 64 (default) or 32 */
  ptx_var *vars;            /* module-scope variables in source order */
  uint32_t nvars;
  ptx_func *funcs;          /* in source order; a prototype and its later definition are two entries */
  uint32_t nfuncs;
  ptx_file_entry *files;    /* .file directives */
  uint32_t nfiles;
  struct ptx_arena *arena;  /* owns everything above */
  const char *text;         /* the text it was parsed from: the caller's, valid only while the caller keeps it */
  size_t text_len;
} ptx_module;

/*
 * Parse PTX text. `text` need not be NUL-terminated and may contain any bytes.
 * On success returns 0 and sets *out. On failure returns -1 and writes one message
 * "FILE:LINE:COL: error: MESSAGE" (no trailing newline) into err.
 * Never crashes or loops forever on any input; limits (nesting, counts) are errors (names have none).
 */
int ptx_parse(const char *text, size_t len, const char *filename, ptx_module **out, char *err,
              size_t errlen);
/* ptx_parse with flags: PTX_PARSE_SKIM parses and checks every body as ptx_parse does but keeps only
 * its summary (shared, refs), not its statements, so memory stays near the size of the declarations. */
enum { PTX_PARSE_SKIM = 1 };
int ptx_parse_ex(const char *text, size_t len, const char *filename, unsigned flags, ptx_module **out, char *err,
                 size_t errlen);
/* The statements of f's body: f->body if it was kept, else the body parsed again from m->text (which
 * must still be the caller's text), its lists in `store` and its names interned in m's arena (so
 * they compare with the module's by pointer). 0, or -1 with the message in err. */
struct ptx_arena;
int ptx_parse_body(const ptx_module *m, const ptx_func *f, struct ptx_arena *store, ptx_stmt **body, uint32_t *nbody,
                   char *err, size_t errlen);
void ptx_module_free(ptx_module *m);

#endif
