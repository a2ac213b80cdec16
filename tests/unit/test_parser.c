/*
 * test_parser.c — unit tests of the PTX lexer/parser (src/ptx/parser.c, lexer.c, arena.c):
 * real nvcc output from tests/ptx/parser/, every operand and initializer form, declarations,
 * function headers, .loc tracking, scopes, exact error messages and positions, a fixed-seed
 * fuzz loop (truncation, random bytes, byte flips) and a 50k-line timing check.
 *
 * The PTX files are found through $WV_SRC (set by CTest to the repository root), else relative
 * to this source file's path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ptx/arena.h"
#include "ptx/ast.h"
#include "ptx/lexer.h"

#define HDR ".version 8.0\n.target sm_80\n"

/* ---------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------- */

static char *read_test_file(const char *name, size_t *len) {
  char path[2048];
  const char *src = getenv("WV_SRC");
  if (src && *src) {
    snprintf(path, sizeof path, "%s/tests/ptx/parser/%s", src, name);
  } else {
    const char *self = __FILE__;
    const char *cut = strstr(self, "tests/unit/test_parser.c");
    int prefix = cut ? (int)(cut - self) : 0;
    snprintf(path, sizeof path, "%.*stests/ptx/parser/%s", prefix, self, name);
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    print_error("cannot open %s (set WV_SRC to the repository root)\n", path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(n > 0 ? (size_t)n : 1);
  size_t got = fread(buf, 1, n > 0 ? (size_t)n : 0, f);
  fclose(f);
  *len = got;
  return buf;
}

static ptx_module *parse_text(const char *text, size_t len, const char *name) {
  char err[512] = "";
  ptx_module *m = NULL;
  int rc = ptx_parse(text, len, name, &m, err, sizeof err);
  if (rc != 0) print_error("unexpected parse error: %s\n", err);
  assert_int_equal(rc, 0);
  assert_non_null(m);
  return m;
}

static ptx_module *parse_ok(const char *src) { return parse_text(src, strlen(src), "t.ptx"); }

static ptx_module *parse_file(const char *name) {
  size_t len = 0;
  char *text = read_test_file(name, &len);
  assert_non_null(text);
  ptx_module *m = parse_text(text, len, name);
  free(text);
  return m;
}

static void expect_error_n(const char *src, size_t len, const char *msg) {
  char err[512] = "";
  ptx_module *m = (ptx_module *)(uintptr_t)1;
  int rc = ptx_parse(src, len, "t.ptx", &m, err, sizeof err);
  assert_int_equal(rc, -1);
  assert_null(m);
  assert_string_equal(err, msg);
}

static void expect_error(const char *src, const char *msg) { expect_error_n(src, strlen(src), msg); }

static const ptx_func *find_func(const ptx_module *m, const char *name, int with_body) {
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (strcmp(m->funcs[i].name, name) == 0 && m->funcs[i].has_body == with_body) return &m->funcs[i];
  fail_msg("function %s not found", name);
  return NULL;
}

static const ptx_var *find_var(const ptx_module *m, const char *name) {
  for (uint32_t i = 0; i < m->nvars; i++)
    if (strcmp(m->vars[i].name, name) == 0) return &m->vars[i];
  fail_msg("variable %s not found", name);
  return NULL;
}

/* The k-th (0-based) instruction with this opcode in f's body. */
static const ptx_insn *find_insn(const ptx_func *f, const char *opcode, int k) {
  for (uint32_t i = 0; i < f->nbody; i++) {
    const ptx_stmt *s = &f->body[i];
    if (s->kind == PTX_STMT_INSN && strcmp(s->insn.opcode, opcode) == 0 && k-- == 0) return &s->insn;
  }
  fail_msg("instruction %s not found", opcode);
  return NULL;
}

/* The instruction on a source line. */
static const ptx_insn *insn_at_line(const ptx_func *f, uint32_t line) {
  for (uint32_t i = 0; i < f->nbody; i++)
    if (f->body[i].kind == PTX_STMT_INSN && f->body[i].insn.loc.line == line) return &f->body[i].insn;
  fail_msg("no instruction on line %u", line);
  return NULL;
}

static int count_kind(const ptx_func *f, ptx_stmt_kind k) {
  int n = 0;
  for (uint32_t i = 0; i < f->nbody; i++) n += f->body[i].kind == k;
  return n;
}

/* "ld.global.nc.v2.f64" form of an instruction's opcode and modifiers. */
static const char *full_opcode(const ptx_insn *in, char *buf, size_t n) {
  size_t o = (size_t)snprintf(buf, n, "%s", in->opcode);
  for (uint32_t i = 0; i < in->nmods && o < n; i++) o += (size_t)snprintf(buf + o, n - o, ".%s", in->mods[i]);
  return buf;
}

static void assert_reg(const ptx_operand *o, const char *name) {
  assert_int_equal(o->kind, PTX_OPND_REG);
  assert_string_equal(o->name, name);
}

static void assert_sym(const ptx_operand *o, const char *name) {
  assert_int_equal(o->kind, PTX_OPND_SYM);
  assert_string_equal(o->name, name);
}

static void assert_addr(const ptx_operand *o, const char *base, int is_reg, int64_t off) {
  assert_int_equal(o->kind, PTX_OPND_ADDR);
  if (base) {
    assert_non_null(o->name);
    assert_string_equal(o->name, base);
  } else {
    assert_null(o->name);
  }
  assert_int_equal(o->base_is_reg, is_reg);
  assert_int_equal(o->offset, off);
}

static void assert_int_opnd(const ptx_operand *o, uint64_t v) {
  assert_int_equal(o->kind, PTX_OPND_INT);
  assert_int_equal(o->ival, v);
}

static void assert_init(const ptx_init *in, ptx_init_kind k, uint64_t bits, const char *sym, int64_t off) {
  assert_int_equal(in->kind, k);
  assert_int_equal(in->bits, bits);
  if (sym) {
    assert_non_null(in->sym);
    assert_string_equal(in->sym, sym);
  } else {
    assert_null(in->sym);
  }
  assert_int_equal(in->off, off);
}

static uint64_t f64_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* ---------------------------------------------------------------------------------------------
 * Real nvcc output
 * ------------------------------------------------------------------------------------------- */

static void test_nvcc_printf(void **state) {
  (void)state;
  ptx_module *m = parse_file("printf_sm90.ptx");
  assert_string_equal(m->filename, "printf_sm90.ptx");
  assert_int_equal(m->version_major, 9);
  assert_int_equal(m->version_minor, 0);
  assert_string_equal(m->target, "sm_90");
  assert_int_equal(m->address_size, 64);
  assert_int_equal(m->nvars, 2);
  assert_int_equal(m->nfuncs, 2);

  const ptx_var *s = &m->vars[0];
  assert_string_equal(s->name, "$str");
  assert_int_equal(s->space, PTX_SPACE_GLOBAL);
  assert_string_equal(s->type, "b8");
  assert_int_equal(s->align, 1);
  assert_int_equal(s->nelems, 19);
  assert_int_equal(s->ninit, 18);
  assert_init(&s->init[0], PTX_INIT_INT, 'h', NULL, 0);
  assert_init(&s->init[17], PTX_INIT_INT, '\n', NULL, 0);
  assert_string_equal(m->vars[1].name, "$str$1");

  const ptx_func *vp = &m->funcs[0];
  assert_string_equal(vp->name, "vprintf");
  assert_true(vp->is_extern);
  assert_false(vp->is_entry);
  assert_false(vp->has_body);
  assert_int_equal(vp->nrets, 1);
  assert_string_equal(vp->rets[0].name, "func_retval0");
  assert_string_equal(vp->rets[0].type, "b32");
  assert_int_equal(vp->nparams, 2);
  assert_string_equal(vp->params[1].name, "vprintf_param_1");
  assert_int_equal(vp->params[1].space, PTX_SPACE_PARAM);

  const ptx_func *k = &m->funcs[1];
  assert_string_equal(k->name, "_Z1kifd");
  assert_true(k->is_entry);
  assert_true(k->is_visible);
  assert_true(k->has_body);
  assert_int_equal(k->nparams, 3);
  assert_string_equal(k->params[0].type, "u32");
  assert_string_equal(k->params[1].type, "f32");
  assert_string_equal(k->params[2].type, "f64");
  assert_int_equal(k->nbody, 33);
  assert_int_equal(count_kind(k, PTX_STMT_VAR), 11);
  assert_int_equal(count_kind(k, PTX_STMT_SCOPE_OPEN), 1);
  assert_int_equal(count_kind(k, PTX_STMT_SCOPE_CLOSE), 1);
  assert_int_equal(count_kind(k, PTX_STMT_INSN), 20);

  /* .local .align 16 .b8 __local_depot0[32]; .reg .b32 %r<3>; */
  assert_int_equal(k->body[0].kind, PTX_STMT_VAR);
  assert_int_equal(k->body[0].var.space, PTX_SPACE_LOCAL);
  assert_int_equal(k->body[0].var.align, 16);
  assert_int_equal(k->body[0].var.nelems, 32);
  assert_int_equal(k->body[0].loc.line, 29);
  assert_string_equal(k->body[4].var.name, "%r");
  assert_int_equal(k->body[4].var.range, 3);
  assert_string_equal(k->body[4].var.type, "b32");

  /* st.local.v2.u64 [%rd2+16], {%rd5, %rd4}; */
  const ptx_insn *st = insn_at_line(k, 50);
  char buf[128];
  assert_string_equal(full_opcode(st, buf, sizeof buf), "st.local.v2.u64");
  assert_int_equal(st->loc.col, 2);
  assert_int_equal(st->nops, 2);
  assert_addr(&st->ops[0], "%rd2", 1, 16);
  assert_int_equal(st->ops[1].kind, PTX_OPND_VEC);
  assert_int_equal(st->ops[1].nelems, 2);
  assert_reg(&st->ops[1].elems[0], "%rd5");
  assert_reg(&st->ops[1].elems[1], "%rd4");

  /* call.uni (retval0), vprintf, (param0, param1); spread over several lines */
  const ptx_insn *call = find_insn(k, "call", 0);
  assert_int_equal(call->loc.line, 60);
  assert_int_equal(call->nmods, 1);
  assert_string_equal(call->mods[0], "uni");
  assert_int_equal(call->nops, 3);
  assert_int_equal(call->ops[0].kind, PTX_OPND_LIST);
  assert_int_equal(call->ops[0].nelems, 1);
  assert_sym(&call->ops[0].elems[0], "retval0");
  assert_sym(&call->ops[1], "vprintf");
  assert_int_equal(call->ops[2].kind, PTX_OPND_LIST);
  assert_int_equal(call->ops[2].nelems, 2);
  assert_sym(&call->ops[2].elems[1], "param1");

  /* names are interned: equal strings share one pointer */
  const ptx_insn *cv1 = find_insn(k, "cvta", 1);
  const ptx_insn *cv2 = insn_at_line(k, 48);
  assert_ptr_equal(cv1, cv2);
  assert_ptr_equal(find_insn(k, "cvta", 0)->opcode, cv1->opcode);
  assert_ptr_equal(find_insn(k, "cvta", 2)->mods[0], cv1->mods[0]); /* "global" */
  assert_ptr_equal(find_insn(k, "ret", 0)->opcode, ptx_arena_intern_cstr(m->arena, "ret"));
  ptx_module_free(m);
}

static void test_nvcc_fnptr_callprototype(void **state) {
  (void)state;
  ptx_module *m = parse_file("fnptr_malloc_sm90.ptx");
  assert_int_equal(m->nfuncs, 8);
  assert_int_equal(m->nvars, 2);
  const char *order[] = {"_Z3addii", "_Z3subii", "malloc", "free", "vprintf", "_Z3addii", "_Z3subii", "_Z1kPii"};
  for (int i = 0; i < 8; i++) assert_string_equal(m->funcs[i].name, order[i]);
  assert_false(m->funcs[0].has_body);
  assert_false(m->funcs[0].is_extern);
  assert_true(m->funcs[2].is_extern);
  assert_int_equal(m->funcs[3].nrets, 0);
  assert_true(m->funcs[5].has_body);
  assert_int_equal(m->funcs[5].nbody, 6);

  const ptx_var *table = find_var(m, "table");
  assert_int_equal(table->ninit, 2);
  assert_init(&table->init[0], PTX_INIT_SYM, 0, "_Z3addii", 0);
  assert_init(&table->init[1], PTX_INIT_SYM, 0, "_Z3subii", 0);

  const ptx_func *k = find_func(m, "_Z1kPii", 1);
  assert_int_equal(k->nbody, 184);
  /* prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _); */
  uint32_t i = 0;
  while (i < k->nbody && !(k->body[i].kind == PTX_STMT_LABEL && strcmp(k->body[i].label, "prototype_0") == 0)) i++;
  assert_true(i + 2 < k->nbody);
  assert_int_equal(k->body[i].loc.line, 110);
  assert_int_equal(k->body[i + 1].kind, PTX_STMT_PROTO);
  const ptx_proto *pr = k->body[i + 1].proto;
  assert_ptr_equal(pr->name, k->body[i].label);
  assert_false(pr->is_targets);
  assert_int_equal(pr->nrets, 1);
  assert_int_equal(pr->nparams, 2);
  assert_string_equal(pr->rets[0].type, "b32");
  assert_int_equal(pr->params[1].space, PTX_SPACE_PARAM);
  assert_string_equal(pr->params[1].name, "_");
  const ptx_insn *call = &k->body[i + 2].insn;
  assert_int_equal(k->body[i + 2].kind, PTX_STMT_INSN);
  assert_string_equal(call->opcode, "call");
  assert_int_equal(call->nmods, 0);
  assert_int_equal(call->nops, 4);
  assert_int_equal(call->ops[0].kind, PTX_OPND_LIST);
  assert_reg(&call->ops[1], "%rd11");
  assert_int_equal(call->ops[2].kind, PTX_OPND_LIST);
  assert_int_equal(call->ops[2].nelems, 2);
  assert_sym(&call->ops[3], "prototype_0");
  /* call.uni free, (param0); */
  const ptx_insn *fr = find_insn(k, "call", 2);
  assert_int_equal(fr->nops, 2);
  assert_sym(&fr->ops[0], "free");
  assert_int_equal(fr->ops[1].nelems, 1);
  /* st.param.b64 [param0+0], 16; */
  const ptx_insn *stp = insn_at_line(k, 123);
  assert_addr(&stp->ops[0], "param0", 0, 0);
  assert_int_opnd(&stp->ops[1], 16);
  ptx_module_free(m);
}

static void test_nvcc_const_init(void **state) {
  (void)state;
  ptx_module *m = parse_file("const_init_sm90.ptx");
  assert_int_equal(m->nvars, 9);
  const ptx_var *ci = find_var(m, "ci");
  assert_int_equal(ci->space, PTX_SPACE_CONST);
  assert_int_equal(ci->nelems, 12);
  assert_int_equal(ci->ninit, 12);
  assert_init(&ci->init[7], PTX_INIT_INT, 127, NULL, 0);
  assert_init(&ci->init[11], PTX_INIT_INT, 128, NULL, 0);
  const ptx_var *gv = find_var(m, "gv");
  assert_false(gv->is_array);
  assert_int_equal(gv->nelems, 1);
  assert_init(&gv->init[0], PTX_INIT_INT, 42, NULL, 0);
  assert_init(&find_var(m, "gp")->init[0], PTX_INIT_GENERIC, 0, "gv", 0);
  assert_init(&find_var(m, "str")->init[0], PTX_INIT_GENERIC, 0, "$str", 0);
  assert_int_equal(find_var(m, "garr")->ninit, 21);
  assert_int_equal(find_var(m, "garr")->nelems, 24);
  const ptx_func *k = &m->funcs[0];
  /* .param .align 8 .b8 _Z1kPf1P_param_1[24] — a struct passed by value */
  assert_int_equal(k->params[1].align, 8);
  assert_true(k->params[1].is_array);
  assert_int_equal(k->params[1].nelems, 24);
  assert_int_equal(k->nbody, 55);
  ptx_module_free(m);
}

static void test_nvcc_packed_mask_init(void **state) {
  (void)state;
  ptx_module *m = parse_file("packed_init_sm90.ptx");
  /* .global .align 1 .u8 p[11] = {1, 0XFF(generic(gv)+4), 0xFF00(generic(gv)+4), ..., 7, 0}; */
  const ptx_var *p = find_var(m, "p");
  assert_int_equal(p->ninit, 11);
  assert_init(&p->init[0], PTX_INIT_INT, 1, NULL, 0);
  assert_init(&p->init[1], PTX_INIT_GENERIC, 0xFF, "gv", 4);
  assert_init(&p->init[2], PTX_INIT_GENERIC, 0xFF00, "gv", 4);
  assert_init(&p->init[8], PTX_INIT_GENERIC, 0xFF00000000000000ull, "gv", 4);
  assert_init(&p->init[9], PTX_INIT_INT, 7, NULL, 0);
  ptx_module_free(m);
}

static void test_nvcc_shfl_pairs(void **state) {
  (void)state;
  ptx_module *m = parse_file("shfl_vote_sm90.ptx");
  const ptx_func *k = &m->funcs[0];
  /* shfl.sync.down.b32 %r8|%p1, %r3, %r6, %r5, %r7; */
  const ptx_insn *sh = find_insn(k, "shfl", 0);
  char buf[64];
  assert_string_equal(full_opcode(sh, buf, sizeof buf), "shfl.sync.down.b32");
  assert_int_equal(sh->nops, 5);
  assert_reg(&sh->ops[0], "%r8");
  assert_non_null(sh->ops[0].pair);
  assert_string_equal(sh->ops[0].pair, "%p1");
  assert_null(sh->ops[1].pair);
  const ptx_insn *vote = find_insn(k, "vote", 1);
  assert_string_equal(full_opcode(vote, buf, sizeof buf), "vote.sync.all.pred");
  ptx_module_free(m);
}

static void test_nvcc_lineinfo(void **state) {
  (void)state;
  ptx_module *m = parse_file("lineinfo_sm80.ptx");
  assert_int_equal(m->nfiles, 1);
  assert_int_equal(m->files[0].index, 1);
  assert_string_equal(m->files[0].name, "/tmp/corp/li.cu");
  assert_int_equal(m->nfuncs, 1); /* the .section .debug_str block after it is skipped */
  const ptx_func *k = &m->funcs[0];
  assert_int_equal(k->nbody, 18);
  const ptx_insn *ld = find_insn(k, "ld", 0);
  assert_int_equal(ld->src_file, 1);
  assert_int_equal(ld->src_line, 3);
  assert_int_equal(find_insn(k, "mov", 0)->src_line, 4);
  /* `.loc 1 1 73, function_name $L__info_string1, inlined_at 1 2 73` */
  const ptx_insn *mul = find_insn(k, "mul", 1);
  assert_int_equal(mul->loc.line, 44);
  assert_int_equal(mul->src_line, 1);
  /* fma.rn.f32 %f3, %f2, %f2, 0f3F800000; */
  const ptx_insn *fma = find_insn(k, "fma", 0);
  assert_int_equal(fma->src_line, 6);
  assert_int_equal(fma->ops[3].kind, PTX_OPND_F32);
  assert_int_equal(fma->ops[3].ival, 0x3F800000u);
  assert_int_equal(find_insn(k, "ret", 0)->src_line, 7);
  /* @%p1 bra $L__BB0_2; */
  const ptx_insn *bra = find_insn(k, "bra", 0);
  assert_string_equal(bra->guard, "%p1");
  assert_false(bra->guard_neg);
  assert_sym(&bra->ops[0], "$L__BB0_2");
  assert_int_equal(k->body[16].kind, PTX_STMT_LABEL);
  assert_string_equal(k->body[16].label, "$L__BB0_2");
  assert_int_equal(k->body[16].loc.line, 49);
  assert_int_equal(k->body[16].loc.col, 1);
  ptx_module_free(m);
}

static void test_nvcc_debug_sections(void **state) {
  (void)state;
  ptx_module *m = parse_file("recursion_debug_sm86.ptx");
  assert_string_equal(m->target, "sm_86");
  assert_int_equal(m->nfuncs, 5);
  assert_int_equal(m->nfiles, 1);
  const ptx_func *fib = find_func(m, "_Z3fibi", 1);
  assert_int_equal(fib->nbody, 42);
  assert_int_equal(fib->nrets, 1);
  ptx_module_free(m);
}

static void test_nvcc_perf_directives(void **state) {
  (void)state;
  ptx_module *m = parse_file("launch_bounds_sm90.ptx");
  assert_int_equal(m->nfuncs, 3);
  const ptx_func *k = find_func(m, "_Z1kPiPy", 1);
  assert_int_equal(k->maxntid[0], 256);
  assert_int_equal(k->maxntid[1], 1);
  assert_int_equal(k->maxntid[2], 1);
  assert_int_equal(k->minnctapersm, 2);
  assert_int_equal(k->reqntid[0], 0);
  assert_int_equal(find_func(m, "_Z2kmPi", 1)->maxnreg, 32);
  assert_int_equal(find_func(m, "_Z2kcPi", 1)->maxnreg, 0);
  ptx_module_free(m);
}

static void test_nvcc_texture_and_asm(void **state) {
  (void)state;
  ptx_module *m = parse_file("texture_sm90.ptx");
  const ptx_func *k = &m->funcs[0];
  /* tex.2d.v4.f32.f32 {%f6, %f7, %f8, %f9}, [%rd1, {%f5, %f5}]; */
  const ptx_insn *tex = find_insn(k, "tex", 1);
  char buf[64];
  assert_string_equal(full_opcode(tex, buf, sizeof buf), "tex.2d.v4.f32.f32");
  assert_int_equal(tex->ops[0].nelems, 4);
  assert_addr(&tex->ops[1], "%rd1", 1, 0);
  assert_int_equal(tex->ops[1].nelems, 1);
  assert_int_equal(tex->ops[1].elems[0].kind, PTX_OPND_VEC);
  assert_int_equal(tex->ops[1].elems[0].nelems, 2);
  ptx_module_free(m);

  m = parse_file("inline_asm_sm90.ptx");
  k = &m->funcs[0];
  assert_int_equal(k->nbody, 50);
  /* { .reg .pred p, q; setp.lt.u32 p|q, %r2, %r3; @p add...; @!p sub...; } */
  const ptx_insn *setp = find_insn(k, "setp", 0);
  assert_sym(&setp->ops[0], "p");
  assert_string_equal(setp->ops[0].pair, "q");
  const ptx_insn *sub = find_insn(k, "sub", 0);
  assert_string_equal(sub->guard, "p");
  assert_true(sub->guard_neg);
  assert_reg(&insn_at_line(k, 70)->ops[1], "%envreg3");
  /* st.global.u32 [tmp+-4], %r2; on a line with other statements */
  const ptx_insn *st = find_insn(k, "st", 5);
  assert_int_equal(st->loc.line, 89);
  assert_int_equal(st->loc.col, 49);
  assert_addr(&st->ops[0], "tmp", 0, -4);
  const ptx_insn *fence = find_insn(k, "fence", 0);
  assert_string_equal(full_opcode(fence, buf, sizeof buf), "fence.acq_rel.gpu");
  assert_int_equal(fence->loc.col, 13);
  ptx_module_free(m);

  m = parse_file("bulk_copy_sm90a.ptx");
  k = &m->funcs[0];
  assert_string_equal(m->target, "sm_90a");
  char wide[128];
  const ptx_insn *cp = find_insn(k, "cp", 0);
  assert_string_equal(full_opcode(cp, wide, sizeof wide),
                      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes");
  assert_int_equal(cp->nmods, 5);
  assert_string_equal(cp->mods[4], "mbarrier::complete_tx::bytes");
  assert_int_equal(cp->nops, 4);
  ptx_module_free(m);
}

/* ---------------------------------------------------------------------------------------------
 * Hand-written edge cases
 * ------------------------------------------------------------------------------------------- */

static void test_edge_file_module(void **state) {
  (void)state;
  ptx_module *m = parse_file("edge_cases.ptx");
  assert_int_equal(m->version_major, 7);
  assert_int_equal(m->version_minor, 8);
  assert_string_equal(m->target, "sm_80");
  assert_int_equal(m->nvars, 9);

  const ptx_var *v = find_var(m, "vecs"); /* .v4 .f32 vecs[2] = {{...}, {...}} */
  assert_int_equal(v->vec, 4);
  assert_int_equal(v->align, 16);
  assert_int_equal(v->nelems, 2);
  assert_int_equal(v->ninit, 8);
  assert_init(&v->init[0], PTX_INIT_F64, f64_bits(1.0), NULL, 0);
  assert_init(&v->init[1], PTX_INIT_F64, f64_bits(-2.5), NULL, 0);
  assert_init(&v->init[2], PTX_INIT_F32, 0x3F800000u, NULL, 0);
  assert_init(&v->init[3], PTX_INIT_F64, 0x3FF0000000000000ull, NULL, 0);
  assert_init(&v->init[7], PTX_INIT_INT, 3, NULL, 0);

  v = find_var(m, "ints"); /* {-1, 0x10, 017, 0b101, 42U} */
  assert_init(&v->init[0], PTX_INIT_INT, UINT64_MAX, NULL, 0);
  assert_init(&v->init[1], PTX_INIT_INT, 16, NULL, 0);
  assert_init(&v->init[2], PTX_INIT_INT, 15, NULL, 0);
  assert_init(&v->init[3], PTX_INIT_INT, 5, NULL, 0);
  assert_init(&v->init[4], PTX_INIT_INT, 42, NULL, 0);

  v = find_var(m, "grid");
  assert_int_equal(v->nelems, 6);
  assert_int_equal(v->ninit, 6);
  assert_init(&v->init[5], PTX_INIT_INT, 6, NULL, 0);

  v = find_var(m, "auto_sized");
  assert_true(v->is_array);
  assert_false(v->unsized);
  assert_int_equal(v->nelems, 3);

  v = find_var(m, "addrs"); /* {grid, grid+8, generic(grid), generic(ints)+4} */
  assert_init(&v->init[0], PTX_INIT_SYM, 0, "grid", 0);
  assert_init(&v->init[1], PTX_INIT_SYM, 0, "grid", 8);
  assert_init(&v->init[2], PTX_INIT_GENERIC, 0, "grid", 0);
  assert_init(&v->init[3], PTX_INIT_GENERIC, 0, "ints", 4);

  v = find_var(m, "dyn_smem");
  assert_int_equal(v->space, PTX_SPACE_SHARED);
  assert_true(v->is_extern);
  assert_true(v->unsized);
  assert_true(v->is_array);
  assert_int_equal(v->nelems, 0);

  assert_true(find_var(m, "weak_a")->is_weak);
  assert_true(find_var(m, "weak_b")->is_weak);
  assert_int_equal(find_var(m, "weak_b")->ninit, 0);
  assert_true(find_var(m, "bytes")->is_visible);
  assert_int_equal(find_var(m, "bytes")->loc.line, 16);

  const ptx_func *two = find_func(m, "two_rets", 0);
  assert_true(two->is_weak);
  assert_int_equal(two->nrets, 2);
  assert_int_equal(two->rets[1].align, 16);
  assert_int_equal(two->rets[1].nelems, 16);
  assert_int_equal(two->nparams, 1);
  assert_int_equal(two->params[0].space, PTX_SPACE_REG);

  const ptx_func *die = find_func(m, "die", 1);
  assert_true(die->noreturn);
  assert_int_equal(die->nparams, 0);
  assert_int_equal(die->nbody, 1);

  const ptx_func *k = find_func(m, "kern", 1);
  assert_int_equal(k->reqntid[0], 128);
  assert_int_equal(k->reqntid[1], 2);
  assert_int_equal(k->reqntid[2], 1);
  assert_int_equal(k->maxnctapersm, 4);
  assert_int_equal(k->nparams, 3);
  const ptx_var *p0 = &k->params[0]; /* .param .u64 .ptr .global .align 16 kern_p0 */
  assert_true(p0->is_ptr);
  assert_int_equal(p0->ptr_space, PTX_SPACE_GLOBAL);
  assert_int_equal(p0->ptr_align, 16);
  assert_int_equal(p0->align, 0);
  assert_int_equal(k->params[1].ptr_space, PTX_SPACE_NONE);
  assert_int_equal(k->params[1].ptr_align, 8);
  assert_false(k->params[2].is_ptr);
  ptx_module_free(m);
}

static void test_edge_file_body(void **state) {
  (void)state;
  ptx_module *m = parse_file("edge_cases.ptx");
  const ptx_func *k = find_func(m, "kern", 1);
  assert_int_equal(k->nbody, 25);
  /* the .pragma between header and body comes first */
  assert_int_equal(k->body[0].kind, PTX_STMT_PRAGMA);
  assert_string_equal(k->body[0].label, "nounroll");
  /* .reg .b32 a, b; — two VAR statements */
  assert_int_equal(k->body[1].kind, PTX_STMT_VAR);
  assert_string_equal(k->body[1].var.name, "a");
  assert_string_equal(k->body[2].var.name, "b");
  assert_int_equal(k->body[2].var.loc.col, 15);
  assert_int_equal(k->body[3].var.vec, 2); /* .reg .v2 .f32 %vf<3>; */
  assert_int_equal(k->body[3].var.range, 3);
  assert_string_equal(k->body[4].var.type, "pred");

  assert_sym(&insn_at_line(k, 39)->ops[0], "a"); /* bare register names are SYM */
  assert_reg(&insn_at_line(k, 39)->ops[1], "%tid.x");
  assert_reg(&insn_at_line(k, 40)->ops[1], "%ctaid.y");
  const ptx_insn *setp = insn_at_line(k, 41); /* setp.lt.s32 %p1|%p2, a, -7; */
  assert_reg(&setp->ops[0], "%p1");
  assert_string_equal(setp->ops[0].pair, "%p2");
  assert_int_opnd(&setp->ops[2], (uint64_t)-7);
  const ptx_insn *bra = insn_at_line(k, 42); /* @!%p1 bra $L__BB0_2; */
  assert_string_equal(bra->guard, "%p1");
  assert_true(bra->guard_neg);
  const ptx_insn *ld = insn_at_line(k, 43); /* ld.global.nc.v2.f32 {%vf1, _}, [%rd1+-8]; */
  char buf[64];
  assert_string_equal(full_opcode(ld, buf, sizeof buf), "ld.global.nc.v2.f32");
  assert_int_equal(ld->ops[0].elems[1].kind, PTX_OPND_SINK);
  assert_addr(&ld->ops[1], "%rd1", 1, -8);
  const ptx_insn *st = insn_at_line(k, 44); /* st.shared::cta.b32 [dyn_smem+4], 0x7fffffff; */
  assert_string_equal(st->mods[0], "shared::cta");
  assert_addr(&st->ops[0], "dyn_smem", 0, 4);
  assert_int_opnd(&st->ops[1], 0x7fffffff);
  assert_addr(&insn_at_line(k, 45)->ops[1], NULL, 0, 128); /* [128] */
  const ptx_insn *mb = insn_at_line(k, 46);
  assert_string_equal(full_opcode(mb, buf, sizeof buf), "mbarrier.try_wait.parity.shared::cta.b64");
  const ptx_insn *add = insn_at_line(k, 47); /* add.f64 %rd3, %rd3, 1.5; */
  assert_int_equal(add->ops[2].kind, PTX_OPND_F64);
  assert_int_equal(add->ops[2].ival, f64_bits(1.5));
  assert_int_equal(insn_at_line(k, 48)->ops[1].kind, PTX_OPND_F32);
  assert_int_equal(insn_at_line(k, 48)->ops[1].ival, 0x40490FDBu);
  /* nested scope with its own .reg and .pragma */
  assert_int_equal(k->body[17].kind, PTX_STMT_SCOPE_OPEN);
  assert_int_equal(k->body[18].kind, PTX_STMT_VAR);
  assert_int_equal(k->body[19].kind, PTX_STMT_PRAGMA);
  assert_string_equal(k->body[19].label, "unroll");
  assert_int_opnd(&k->body[20].insn.ops[1], 10);
  assert_int_equal(k->body[21].kind, PTX_STMT_SCOPE_CLOSE);
  assert_int_equal(k->body[22].kind, PTX_STMT_LABEL);
  assert_string_equal(k->body[22].label, "$L__BB0_2");
  /* .loc 2 77 5 applies to what follows; nothing before it had one */
  assert_int_equal(insn_at_line(k, 48)->src_file, 0);
  assert_int_equal(insn_at_line(k, 48)->src_line, 0);
  const ptx_insn *sh = insn_at_line(k, 56);
  assert_int_equal(sh->src_file, 2);
  assert_int_equal(sh->src_line, 77);
  assert_sym(&sh->ops[0], "a");
  assert_string_equal(sh->ops[0].pair, "%p1");
  assert_int_opnd(&sh->ops[4], UINT64_MAX);
  assert_string_equal(insn_at_line(k, 57)->guard, "p");
  assert_int_equal(insn_at_line(k, 57)->src_line, 77);
  ptx_module_free(m);
}

static void test_operand_kinds(void **state) {
  (void)state;
  ptx_module *m = parse_ok(HDR
                           ".entry k()\n"
                           "{\n"
                           "  op %r1, SYM, 42, -42, 0x2A, 052, 0b101010, 42U, 0xffffffffffffffff;\n"
                           "  op 0f3F800000, 0d4000000000000000, 2.5e-1, -0f3F800000, -1.0;\n"
                           "  op [%rd1], [%rd1+4], [%rd1+-8], [%rd1-8], [param0+0], [__local_depot0+8], [sym], [128], [-4];\n"
                           "  op {%r1, %r2, _, %r4}, _, !%p1, %r5|%p1, (a, b), (), %SP, %envreg3, %nctaid.z;\n"
                           "  op.a.b.c.d [%rd2, {%r1, %r2}], [0x10];\n"
                           "}\n");
  const ptx_func *k = &m->funcs[0];
  assert_int_equal(k->nbody, 5);
  const ptx_insn *a = &k->body[0].insn, *b = &k->body[1].insn, *c = &k->body[2].insn,
                 *d = &k->body[3].insn, *e = &k->body[4].insn;
  assert_int_equal(a->nops, 9);
  assert_reg(&a->ops[0], "%r1");
  assert_sym(&a->ops[1], "SYM");
  assert_int_opnd(&a->ops[2], 42);
  assert_int_opnd(&a->ops[3], (uint64_t)-42);
  for (int i = 4; i <= 7; i++) assert_int_opnd(&a->ops[i], 42);
  assert_int_opnd(&a->ops[8], UINT64_MAX);
  assert_int_equal(a->ops[3].loc.line, 5);
  assert_int_equal(a->ops[3].loc.col, 20);

  assert_int_equal(b->ops[0].kind, PTX_OPND_F32);
  assert_int_equal(b->ops[0].ival, 0x3F800000u);
  assert_int_equal(b->ops[1].kind, PTX_OPND_F64);
  assert_int_equal(b->ops[1].ival, 0x4000000000000000ull);
  assert_int_equal(b->ops[2].kind, PTX_OPND_F64);
  assert_int_equal(b->ops[2].ival, f64_bits(0.25));
  assert_int_equal(b->ops[3].kind, PTX_OPND_F32);
  assert_int_equal(b->ops[3].ival, 0xBF800000u);
  assert_int_equal(b->ops[4].ival, f64_bits(-1.0));

  assert_int_equal(c->nops, 9);
  assert_addr(&c->ops[0], "%rd1", 1, 0);
  assert_addr(&c->ops[1], "%rd1", 1, 4);
  assert_addr(&c->ops[2], "%rd1", 1, -8);
  assert_addr(&c->ops[3], "%rd1", 1, -8);
  assert_addr(&c->ops[4], "param0", 0, 0);
  assert_addr(&c->ops[5], "__local_depot0", 0, 8);
  assert_addr(&c->ops[6], "sym", 0, 0);
  assert_addr(&c->ops[7], NULL, 0, 128);
  assert_addr(&c->ops[8], NULL, 0, -4);
  assert_int_equal(c->ops[0].nelems, 0);

  assert_int_equal(d->nops, 9);
  assert_int_equal(d->ops[0].kind, PTX_OPND_VEC);
  assert_int_equal(d->ops[0].nelems, 4);
  assert_reg(&d->ops[0].elems[3], "%r4");
  assert_int_equal(d->ops[0].elems[2].kind, PTX_OPND_SINK);
  assert_int_equal(d->ops[1].kind, PTX_OPND_SINK);
  assert_reg(&d->ops[2], "%p1");
  assert_true(d->ops[2].neg);
  assert_false(d->ops[3].neg);
  assert_string_equal(d->ops[3].pair, "%p1");
  assert_int_equal(d->ops[4].kind, PTX_OPND_LIST);
  assert_int_equal(d->ops[4].nelems, 2);
  assert_int_equal(d->ops[5].kind, PTX_OPND_LIST);
  assert_int_equal(d->ops[5].nelems, 0);
  assert_null(d->ops[5].elems);
  assert_reg(&d->ops[6], "%SP");
  assert_reg(&d->ops[7], "%envreg3");
  assert_reg(&d->ops[8], "%nctaid.z");

  assert_int_equal(e->nmods, 4);
  assert_string_equal(e->mods[3], "d");
  assert_addr(&e->ops[0], "%rd2", 1, 0);
  assert_int_equal(e->ops[0].nelems, 1);
  assert_int_equal(e->ops[0].elems[0].kind, PTX_OPND_VEC);
  assert_addr(&e->ops[1], NULL, 0, 16);
  ptx_module_free(m);
}

static void test_declarations_and_headers(void **state) {
  (void)state;
  ptx_module *m = parse_ok(".version 6.3\n"
                           ".target sm_75\n"
                           ".address_size 32\n"
                           ".global .align 4 .b32 mat[2][3][4];\n"
                           ".shared .v2 .u16 pairs[8];\n"
                           ".global .attribute(.managed) .align 8 .b8 managed_buf[16];\n"
                           ".global .b32 a1 = -2147483648, a2 = 0xFFFFFFFF;\n"
                           ".extern .func (.param .b32 r) ext_f (.param .b64 p0, .param .b64 p1);\n"
                           ".visible .func noparams\n{\n  ret;\n}\n"
                           ".entry k .maxntid 64 .minnctapersm 1 .maxnreg 40 .explicitcluster .reqnctapercluster 2, 1, 1\n"
                           "{\n  .shared .align 4 .b8 demoted[128];\n  exit;\n}\n");
  assert_int_equal(m->address_size, 32);
  assert_int_equal(m->version_major, 6);
  assert_int_equal(m->nvars, 5);
  const ptx_var *mat = find_var(m, "mat");
  assert_int_equal(mat->nelems, 24);
  assert_true(mat->is_array);
  const ptx_var *pairs = find_var(m, "pairs");
  assert_int_equal(pairs->space, PTX_SPACE_SHARED);
  assert_int_equal(pairs->vec, 2);
  assert_int_equal(pairs->nelems, 8);
  assert_int_equal(find_var(m, "managed_buf")->align, 8);
  assert_init(&find_var(m, "a1")->init[0], PTX_INIT_INT, (uint64_t)-2147483648LL, NULL, 0);
  assert_init(&find_var(m, "a2")->init[0], PTX_INIT_INT, 0xFFFFFFFFu, NULL, 0);
  assert_int_equal(m->nfuncs, 3);
  const ptx_func *ext = &m->funcs[0];
  assert_true(ext->is_extern);
  assert_false(ext->has_body);
  assert_int_equal(ext->nrets, 1);
  assert_int_equal(ext->nparams, 2);
  const ptx_func *np = &m->funcs[1];
  assert_true(np->is_visible);
  assert_int_equal(np->nparams, 0);
  assert_int_equal(np->nbody, 1);
  const ptx_func *k = &m->funcs[2];
  assert_true(k->is_entry);
  assert_int_equal(k->maxntid[0], 64);
  assert_int_equal(k->maxntid[1], 1);
  assert_int_equal(k->maxntid[2], 1);
  assert_int_equal(k->minnctapersm, 1);
  assert_int_equal(k->maxnreg, 40);
  assert_int_equal(k->nbody, 2);
  assert_int_equal(k->body[0].var.space, PTX_SPACE_SHARED);
  assert_int_equal(k->body[0].var.nelems, 128);
  ptx_module_free(m);
}

static void test_comments_sections_and_misc(void **state) {
  (void)state;
  const char src[] = "// leading comment\n"
                     "/* block\n   comment */ .version 9.0 /* inline */\n"
                     ".target sm_90 // comment\n"
                     "@@DWARF .section .debug_abbrev\n"
                     ".pragma \"nounroll\";\n"
                     ".alias fa, fb;\n"
                     ".file 1 \"/src/a.cu\", 1700000000, 1234\n"
                     ".file 2 \"b \\\"q\\\".cu\"\n"
                     ".section .debug_info\n{\n.b32 551\n.b8 2, 0\n$L__info_string0:\n.b64 $L__func_begin0\n{ }\n}\n"
                     ".entry k()\r\n{\r\n"
                     "$L__func_begin0:\r\n"
                     "\t.loc 1 10 3\r\n"
                     "\tret; // done\r\n"
                     "ts: .branchtargets L0, L1;\n"
                     "\tbrx.idx %r1, ts;\n"
                     "L0: L1:\n"
                     "}\n";
  ptx_module *m = parse_text(src, sizeof src - 1, "t.ptx");
  assert_int_equal(m->nfiles, 2);
  assert_int_equal(m->files[0].index, 1);
  assert_string_equal(m->files[0].name, "/src/a.cu");
  assert_string_equal(m->files[1].name, "b \"q\".cu");
  assert_int_equal(m->nfuncs, 1);
  const ptx_func *k = &m->funcs[0];
  assert_int_equal(k->nbody, 7);
  assert_int_equal(k->body[0].kind, PTX_STMT_LABEL);
  assert_int_equal(k->body[1].kind, PTX_STMT_INSN);
  assert_int_equal(k->body[1].insn.src_line, 10);
  assert_int_equal(k->body[1].insn.loc.line, 22);
  assert_int_equal(k->body[1].insn.loc.col, 2);
  assert_int_equal(k->body[2].kind, PTX_STMT_LABEL);
  assert_int_equal(k->body[3].kind, PTX_STMT_PRAGMA);
  assert_string_equal(k->body[3].label, ".branchtargets L0, L1");
  assert_string_equal(k->body[4].insn.opcode, "brx");
  assert_int_equal(k->body[5].kind, PTX_STMT_LABEL);
  assert_int_equal(k->body[6].kind, PTX_STMT_LABEL);
  assert_string_equal(k->body[6].label, "L1");
  ptx_module_free(m);

  /* a UTF-8 byte order mark is skipped; columns count from after it */
  expect_error("\xEF\xBB\xBF.version 8.0\n.target sm_80\n.entry k() { ret }",
               "t.ptx:3:18: error: expected ';' after instruction, found '}'");
  m = parse_ok("\xEF\xBB\xBF" HDR);
  assert_int_equal(m->nfuncs, 0);
  ptx_module_free(m);

  /* a prototype ends with ';' and the .loc of a previous function does not leak */
  m = parse_ok(HDR ".func f(.param .b32 x);\n.func g() { .loc 1 5 1\n ret; }\n.func h() { ret; }\n");
  assert_int_equal(m->nfuncs, 3);
  assert_false(m->funcs[0].has_body);
  assert_int_equal(m->funcs[1].body[0].insn.src_line, 5);
  assert_int_equal(m->funcs[2].body[0].insn.src_line, 0);
  ptx_module_free(m);
}

static void test_arena(void **state) {
  (void)state;
  ptx_arena *a = ptx_arena_new();
  assert_non_null(a);
  const char *x = ptx_arena_intern(a, "hello world", 5);
  const char *y = ptx_arena_intern_cstr(a, "hello");
  assert_ptr_equal(x, y);
  assert_string_equal(x, "hello");
  assert_ptr_not_equal(ptx_arena_intern_cstr(a, "hellp"), x);
  char name[32];
  const char *first = NULL;
  for (int i = 0; i < 20000; i++) { /* forces table growth and several chunks */
    snprintf(name, sizeof name, "%%r%d", i);
    const char *p = ptx_arena_intern_cstr(a, name);
    if (i == 7) first = p;
  }
  assert_ptr_equal(ptx_arena_intern_cstr(a, "%r7"), first);
  uint64_t *big = ptx_arena_array(a, 1 << 20, sizeof *big);
  assert_non_null(big);
  assert_int_equal(big[(1 << 20) - 1], 0);
  assert_null(ptx_arena_array(a, SIZE_MAX / 2, 4));
  unsigned char *z = ptx_arena_alloc(a, 0);
  assert_non_null(z);
  assert_true(ptx_arena_bytes(a) > (size_t)8 << 20);
  ptx_arena_free(a);
  ptx_arena_free(NULL);
  ptx_module_free(NULL);
}

/* ---------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------- */

/* Every form of .callprototype (PTX ISA "call": rets and params optional, .noreturn, the .abi_preserve hints)
 * and .calltargets, whose functions are names the body refers to. */
static void test_call_prototypes(void **state) {
  (void)state;
  ptx_module *m = parse_ok(HDR ".func f(.param .b32 a);\n.func g(.param .b32 a);\n.entry k() {\n"
                               "p0: .callprototype _ ;\n"
                               "p1: .callprototype ()_ (.param .b64 _) .noreturn;\n"
                               "p2: .callprototype (.param .align 16 .b8 _[16]) _ (.param .b32 _, .param .f64 _) .abi_preserve 8;\n"
                               "t: .calltargets f, g;\n"
                               "ret;\n}\n");
  const ptx_func *k = find_func(m, "k", 1);
  assert_int_equal(k->nbody, 9);
  const ptx_proto *p0 = k->body[1].proto, *p1 = k->body[3].proto, *p2 = k->body[5].proto, *t = k->body[7].proto;
  assert_int_equal(k->body[1].kind, PTX_STMT_PROTO);
  assert_string_equal(p0->name, "p0");
  assert_int_equal(p0->nrets + p0->nparams, 0);
  assert_true(p1->noreturn);
  assert_int_equal(p1->nrets, 0);
  assert_int_equal(p1->nparams, 1);
  assert_int_equal(p2->nrets, 1);
  assert_int_equal(p2->rets[0].align, 16);
  assert_int_equal(p2->rets[0].nelems, 16);
  assert_string_equal(p2->params[1].type, "f64");
  assert_false(p2->noreturn);
  assert_true(t->is_targets);
  assert_int_equal(t->ntargets, 2);
  assert_string_equal(t->targets[1], "g");
  assert_int_equal(k->nrefs, 2); /* f and g */
  ptx_module_free(m);
  expect_error(HDR ".entry k() {\np: .callprototype (.param .b32 _) f (.param .b32 _);\n}",
               "t.ptx:4:35: error: expected '_' (the prototype's name) in '.callprototype', found 'f'");
  expect_error(HDR ".entry k() {\nt: .calltargets f, 3;\n}",
               "t.ptx:4:20: error: expected function name in '.calltargets', found '3'");
}

/* .version and .target: every target of the PTX ISA loads from the ISA version that introduced it (ptxas
 * 13.0's table) and is refused before it; numba's and CuPy's headers load; newer ISA majors, unknown names
 * and map_f64_to_f32 are errors at the word. */
static void test_targets(void **state) {
  (void)state;
  static const struct { const char *target, *since, *before; } t[] = {
    {"sm_30", "3.0", "2.3"},     {"sm_75", "6.3", "6.2"},     {"sm_80", "7.0", "6.5"},     {"sm_89", "7.8", "7.7"},
    {"sm_90", "7.8", "7.7"},     {"sm_90a", "8.0", "7.8"},    {"sm_100", "8.6", "8.5"},    {"sm_100a", "8.6", "8.5"},
    {"sm_100f", "8.8", "8.7"},   {"sm_101", "8.6", "8.5"},    {"sm_103", "8.8", "8.7"},    {"sm_103a", "8.8", "8.7"},
    {"sm_110", "9.0", "8.8"},    {"sm_110f", "9.0", "8.8"},   {"sm_120", "8.7", "8.6"},    {"sm_120a", "8.7", "8.6"},
    {"sm_120f", "8.8", "8.7"},   {"sm_121", "8.8", "8.7"},    {"sm_121a", "8.8", "8.7"},   {"compute_120", "8.7", "8.6"},
  };
  for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
    char src[128], msg[160];
    snprintf(src, sizeof src, ".version %s\n.target %s\n.entry k() { ret; }", t[i].since, t[i].target);
    ptx_module *m = parse_ok(src);
    assert_string_equal(m->target, t[i].target);
    ptx_module_free(m);
    snprintf(src, sizeof src, ".version %s\n.target %s\n", t[i].before, t[i].target);
    snprintf(msg, sizeof msg, "t.ptx:2:9: error: PTX ISA version %s does not support .target %s (it needs %s or later)",
             t[i].before, t[i].target, t[i].since);
    expect_error(src, msg);
  }
  const char *ok[] = {".version 9.5\n.target sm_90a\n.address_size 64\n",          /* numba-cuda's PTX */
                      ".version 9.9\n.target sm_130f, texmode_independent, debug\n", /* a newer GPU: checked per instruction */
                      ".version 9.0\n.target sm_90, sm_80\n"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) ptx_module_free(parse_ok(ok[i]));
  expect_error(".version 10.0\n.target sm_90\n",
               "t.ptx:1:10: error: PTX ISA version 10.0 is newer than warpvm knows (it reads PTX ISA 1.0 to 9.x)");
  expect_error(".version 0.9\n.target sm_90\n", "t.ptx:1:10: error: PTX ISA version 0.9 is not a PTX ISA version");
  expect_error(".version 9.0\n.target sm_90f\n", "t.ptx:2:9: error: unknown target 'sm_90f'");
  expect_error(".version 9.0\n.target sm_95\n", "t.ptx:2:9: error: unknown target 'sm_95'");
  expect_error(".version 9.0\n.target gfx90a\n",
               "t.ptx:2:9: error: unknown target 'gfx90a' (a target is sm_NN, sm_NNa or sm_NNf, e.g. sm_90)");
  expect_error(".version 9.0\n.target sm_90, map_f64_to_f32\n",
               "t.ptx:2:16: error: '.target map_f64_to_f32' (sm_1x's doubles as floats) is not supported");
}

static void test_errors(void **state) {
  (void)state;
  expect_error(HDR ".entry k() { add.s32 %r1, %r2, %r3 }",
               "t.ptx:3:36: error: expected ';' after instruction, found '}'");
  expect_error(HDR "/* never closed\n.entry k() {}", "t.ptx:3:1: error: unterminated comment");
  expect_error_n(HDR ".entry k() {\n  \x01 ret; }", sizeof(HDR ".entry k() {\n  \x01 ret; }") - 1,
                 "t.ptx:4:3: error: invalid character '\\x01'");
  expect_error(HDR ".entry k()\n{\n  ret;\n", "t.ptx:6:1: error: unexpected end of file in function body");
  expect_error(HDR ".entry k() { add.s32 %r1,", "t.ptx:3:26: error: unexpected end of file in function body");
  expect_error(HDR ".entry k() { .reg .b32 %r<2000000>; }", "t.ptx:3:27: error: '.reg' range too large");
  expect_error(HDR ".entry k() { .reg .b32 %r<0>; }", "t.ptx:3:27: error: '.reg' range must be at least 1");
  expect_error(".target sm_80\n", "t.ptx:1:1: error: expected '.version' at start of module, found '.target'");
  expect_error("", "t.ptx:1:1: error: expected '.version' at start of module, found end of file");
  expect_error(".version 8\n.target sm_80\n",
               "t.ptx:1:10: error: expected version number (e.g. '8.0') after '.version', found '8'");
  expect_error(".version 8.0\n.address_size 64\n",
               "t.ptx:2:1: error: expected '.target' after '.version', found '.address_size'");
  expect_error(HDR ".address_size 48\n", "t.ptx:3:15: error: invalid '.address_size' 48 (expected 32 or 64)");
  expect_error(HDR ".pragma \"abc\n;", "t.ptx:3:9: error: unterminated string");
  expect_error(HDR ".entry k() { mov.f32 %f1, 0f3F80; }", "t.ptx:3:27: error: invalid float literal '0f3F80'");
  expect_error(HDR ".entry k() { mov.u64 %r1, 99999999999999999999; }",
               "t.ptx:3:27: error: integer literal '99999999999999999999' out of range");
  expect_error(HDR ".entry k() { mov.u32 %r1, 09; }", "t.ptx:3:27: error: invalid octal literal '09'");
  expect_error(HDR ".entry k() { mov.u32 %r1, 12abc; }", "t.ptx:3:27: error: invalid number '12abc'");
  expect_error(HDR ".global .b32 big[2000000000];", "t.ptx:3:17: error: array too large");
  expect_error(HDR ".global .b8 big[65536][65536][2];", "t.ptx:3:16: error: array too large");
  expect_error(HDR ".global .u32 x[2] = {1, 2, 3};", "t.ptx:3:14: error: too many initializers for 'x' (3 for 2 elements)");
  expect_error(HDR ".global .u32 x = {1, 2;", "t.ptx:3:23: error: expected ',' or '}' in initializer, found ';'");
  expect_error(HDR ".foo 1;", "t.ptx:3:1: error: unexpected '.foo' at module scope");
  expect_error(HDR "}", "t.ptx:3:1: error: expected directive at module scope, found '}'");
  expect_error(HDR ".entry k() { .maxnreg 4; }", "t.ptx:3:14: error: unexpected directive '.maxnreg' in function body");
  expect_error(HDR ".entry k() { mov.u32 %r1, ; }", "t.ptx:3:27: error: expected operand, found ';'");
  expect_error(HDR ".entry k() { ld.u32 %r1, [%rd1; }", "t.ptx:3:31: error: expected ']' after address, found ';'");
  expect_error(HDR ".entry k() { ld.u32 %r1, [%rd1+%r2]; }",
               "t.ptx:3:32: error: expected integer offset after '+', found '%r2'");
  expect_error(HDR ".entry k() { mov.v2.u32 {%r1, %r2, %r3; }",
               "t.ptx:3:39: error: expected ',' or '}' in vector operand, found ';'");
  expect_error(HDR ".entry k() { @ 5 bra L; }", "t.ptx:3:16: error: expected predicate after '@', found '5'");
  expect_error(HDR ".entry k() { @%p1 [%r1]; }",
               "t.ptx:3:19: error: expected instruction after guard predicate, found '['");
  expect_error(HDR ".entry k() { 42; }", "t.ptx:3:14: error: expected instruction, label or directive, found '42'");
  expect_error(HDR ".entry k() { mov.u32 % ; }", "t.ptx:3:22: error: expected register name after '%'");
  expect_error(HDR ".global .align 3 .b32 x;", "t.ptx:3:16: error: '.align' 3 is not a power of two");
  expect_error(HDR ".global .align 4 x;", "t.ptx:3:18: error: expected type in '.global' declaration, found 'x'");
  expect_error(HDR ".global .b32 .u32 x;", "t.ptx:3:14: error: unexpected '.u32' in '.global' declaration");
  expect_error(HDR ".entry k(.param .u32 a .param .u32 b) {}",
               "t.ptx:3:24: error: expected ',' or ')' in parameter list, found '.param'");
  expect_error(HDR ".entry k(.param .u32 a = 1) {}", "t.ptx:3:24: error: initializer not allowed in '.param' declaration");
  expect_error(HDR ".entry k() .maxntid 1, 2, 3, 4 {}", "t.ptx:3:28: error: '.maxntid' takes at most 3 values");
  expect_error(HDR ".entry k() ret;", "t.ptx:3:12: error: expected '{' or ';' after function header, found 'ret'");
  expect_error(HDR ".func (.param .b32 r) () {}", "t.ptx:3:23: error: expected function name, found '('");
  expect_error(HDR ".entry k() { .loc 1 2\n ret; }", "t.ptx:4:2: error: expected column after '.loc', found 'ret'");
  expect_error(HDR ".section .debug_info { .b8 1", "t.ptx:3:1: error: unterminated '.section' (missing '}')");
  expect_error(HDR ".extern .b32 x;", "t.ptx:3:9: error: expected '.entry', '.func' or a variable declaration after linkage directive, found '.b32'");
  expect_error(HDR ".entry k() { p: .callprototype _ (.param .b32 _) }",
               "t.ptx:3:50: error: expected ';' after '.callprototype' declaration, found '}'");
  expect_error(HDR ".version 8.0", "t.ptx:3:1: error: duplicate '.version' directive");
  expect_error_n(HDR "\0", sizeof HDR, "t.ptx:3:1: error: invalid character '\\x00'");
  expect_error(HDR ".entry k() { ld.global.u32 %r1, [%rd1] ", "t.ptx:3:40: error: unexpected end of file in function body");

  /* limits */
  char buf[4096];
  size_t n = (size_t)snprintf(buf, sizeof buf, HDR ".entry k() {");
  for (int i = 0; i < 65; i++) buf[n++] = '{';
  buf[n] = '\0';
  expect_error(buf, "t.ptx:3:77: error: '{' nested too deeply (limit 64)");
  n = (size_t)snprintf(buf, sizeof buf, HDR ".global .u32 x[1] = ");
  for (int i = 0; i < 17; i++) buf[n++] = '{';
  buf[n] = '\0';
  expect_error(buf, "t.ptx:3:37: error: initializer braces nested too deeply");
  n = (size_t)snprintf(buf, sizeof buf, HDR ".entry k() { op");
  for (int i = 0; i < 33; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, ".m");
  snprintf(buf + n, sizeof buf - n, "; }");
  expect_error(buf, "t.ptx:3:80: error: too many modifiers (limit 32)");
  n = (size_t)snprintf(buf, sizeof buf, HDR ".entry k() { op 0");
  for (int i = 0; i < 64; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, ", 0");
  snprintf(buf + n, sizeof buf - n, "; }");
  expect_error(buf, "t.ptx:3:209: error: too many operands (limit 64)");

  /* error buffer handling: a small buffer is truncated, a NULL one is allowed */
  char small[12];
  ptx_module *m = NULL;
  assert_int_equal(ptx_parse("x", 1, "file.ptx", &m, small, sizeof small), -1);
  assert_string_equal(small, "file.ptx:1:");
  assert_int_equal(ptx_parse("x", 1, NULL, &m, NULL, 0), -1);
  assert_null(m);
  char err[256];
  assert_int_equal(ptx_parse(NULL, 0, NULL, &m, err, sizeof err), -1);
  assert_string_equal(err, "<ptx>:1:1: error: expected '.version' at start of module, found end of file");
}

/* ---------------------------------------------------------------------------------------------
 * Fuzzing and timing
 * ------------------------------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}

/* Parses an exact-size heap copy (so ASan catches any read past len); checks the contract. */
static void fuzz_one(const char *text, size_t len) {
  char *copy = malloc(len ? len : 1);
  if (len) memcpy(copy, text, len);
  char err[512];
  ptx_module *m = NULL;
  int rc = ptx_parse(copy, len, "fz.ptx", &m, err, sizeof err);
  if (rc == 0) {
    assert_non_null(m);
    ptx_module_free(m);
  } else {
    assert_int_equal(rc, -1);
    assert_null(m);
    assert_true(strncmp(err, "fz.ptx:", 7) == 0);
    assert_non_null(strstr(err, ": error: "));
    assert_null(strchr(err, '\n'));
  }
  free(copy);
}

static const char *const fuzz_files[] = {"printf_sm90.ptx", "fnptr_malloc_sm90.ptx", "const_init_sm90.ptx",
                                         "packed_init_sm90.ptx", "lineinfo_sm80.ptx", "edge_cases.ptx",
                                         "texture_sm90.ptx", "inline_asm_sm90.ptx"};

/* Names have no length limit: CUTLASS's mangled kernel names are ~1,500 bytes (issue 10). A kernel, its
 * parameter and a label of 1,500 and 200,000 bytes parse, and a skimmed body parses again to the same
 * names; an error about a long name is still one well-formed line. */
static void test_long_names(void **state) {
  (void)state;
  static const size_t lens[] = {1500, 200000};
  for (int i = 0; i < 2; i++) {
    size_t L = lens[i], cap = 6 * L + 256, n = 0;
    char *name = malloc(L + 1), *text = malloc(cap);
    assert_non_null(name);
    assert_non_null(text);
    memcpy(name, "_ZN7cutlass", 11);
    for (size_t k = 11; k < L; k++) name[k] = (char)('a' + k % 26);
    name[L] = 0;
    n += (size_t)snprintf(text + n, cap - n, HDR ".entry %s(.param .u64 %s_p)\n{\nld.param.u64 %%rd1, [%s_p];\n", name, name, name);
    n += (size_t)snprintf(text + n, cap - n, "bra %s_L;\n%s_L:\nret;\n}\n", name, name);
    for (unsigned flags = 0; flags <= PTX_PARSE_SKIM; flags += PTX_PARSE_SKIM) {
      char err[512] = "";
      ptx_module *m = NULL;
      if (ptx_parse_ex(text, n, "t.ptx", flags, &m, err, sizeof err)) fail_msg("%s", err);
      assert_int_equal(m->nfuncs, 1);
      assert_string_equal(m->funcs[0].name, name);
      assert_int_equal(strlen(m->funcs[0].params[0].name), L + 2);
      ptx_arena *store = ptx_arena_new();
      ptx_stmt *body;
      uint32_t nbody;
      assert_int_equal(ptx_parse_body(m, &m->funcs[0], store, &body, &nbody, err, sizeof err), 0);
      assert_int_equal(nbody, 4); /* ld, bra, label, ret */
      assert_ptr_equal(body[0].insn.ops[1].name, m->funcs[0].params[0].name); /* interned with the module's */
      assert_int_equal(strlen(body[2].label), L + 2);
      assert_int_equal(body[3].insn.loc.line, 8);
      ptx_arena_free(store);
      ptx_module_free(m);
    }
    /* an error naming the long name: one line, truncated by the message buffer */
    n = (size_t)snprintf(text, cap, HDR ".entry k() { bra.uni %s; }", name);
    char err[256] = "";
    ptx_module *m = NULL;
    assert_int_equal(ptx_parse(text, n, "t.ptx", &m, err, sizeof err), 0);
    ptx_module_free(m);
    n = (size_t)snprintf(text, cap, HDR ".entry k() { %s }", name);
    assert_int_equal(ptx_parse(text, n, "t.ptx", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "t.ptx:3:"));
    assert_null(strchr(err, '\n'));
    free(name);
    free(text);
  }
}

static void test_fuzz(void **state) {
  (void)state;
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  for (size_t f = 0; f < sizeof fuzz_files / sizeof fuzz_files[0]; f++) {
    size_t len = 0;
    char *text = read_test_file(fuzz_files[f], &len);
    assert_non_null(text);
    /* every truncation point at a 97-byte stride: each must fail cleanly or parse */
    for (size_t cut = 0; cut < len; cut += 97) fuzz_one(text, cut);
    /* byte flips, and punctuation dropped in */
    char *mut = malloc(len);
    static const char punct[] = "{}[]();,:.%@!|<>+-=\"/*\n_0x";
    for (int iter = 0; iter < 300; iter++) {
      memcpy(mut, text, len);
      int nflips = 1 + (int)(rng_next(&seed) % 6);
      for (int j = 0; j < nflips; j++) {
        size_t at = (size_t)(rng_next(&seed) % len);
        uint64_t r = rng_next(&seed);
        if (r & 1)
          mut[at] = (char)(r >> 8);
        else
          mut[at] = punct[(r >> 8) % (sizeof punct - 1)];
      }
      fuzz_one(mut, len);
    }
    free(mut);
    free(text);
  }
  /* random bytes, and random token soup after a valid header */
  char buf[2048];
  static const char *const words[] = {".reg", ".b32", "%r<4>", "%r1", ",", ";", "{", "}", "[", "]", "(",
                                      ")", ".entry", ".func", "k", "add.s32", "@%p1", "!", "|", "=",
                                      "0f3F800000", "-", "+", "1.5", ".param", ".global", "<", ">", "_",
                                      ".loc", "1", ".section", ":", "generic", "0xFF", ".v4", ".align", "\n"};
  for (int iter = 0; iter < 2000; iter++) {
    size_t len = (size_t)(rng_next(&seed) % sizeof buf);
    for (size_t i = 0; i < len; i++) buf[i] = (char)rng_next(&seed);
    fuzz_one(buf, len);
    size_t n = (size_t)snprintf(buf, sizeof buf, HDR);
    while (n < sizeof buf - 32) {
      const char *w = words[rng_next(&seed) % (sizeof words / sizeof words[0])];
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s ", w);
      if (rng_next(&seed) % 16 == 0) break;
    }
    fuzz_one(buf, n);
  }
}

static void test_large_input_is_fast(void **state) {
  (void)state;
  static const char *const lines[] = {
      "\tld.global.nc.v2.f32 {%f1, %f2}, [%rd1+-8];\n", "\tadd.s32 %r1, %r2, 7;\n",
      "\tsetp.lt.s32 %p1, %r1, %r3;\n",                "\t@%p1 bra $L__BB0_1;\n",
      "\tshfl.sync.down.b32 %r4|%p2, %r1, 16, 31, -1;\n", "\t.loc 1 42 7\n",
      "\tfma.rn.f32 %f3, %f1, %f2, 0f3F800000;\n",         "$L__BB0_1:\n"};
  size_t cap = 4u << 20, n = 0;
  char *text = malloc(cap);
  n += (size_t)snprintf(text, cap, HDR ".visible .entry big(.param .u64 p)\n{\n\t.reg .b32 %%r<9>;\n");
  int nlines = 0;
  for (; nlines < 50000; nlines++) {
    const char *l = lines[nlines % 8];
    size_t ln = strlen(l);
    memcpy(text + n, l, ln);
    n += ln;
  }
  n += (size_t)snprintf(text + n, cap - n, "\tret;\n}\n");
  struct timespec t0, t1;
  timespec_get(&t0, TIME_UTC);
  ptx_module *m = parse_text(text, n, "big.ptx");
  timespec_get(&t1, TIME_UTC);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  print_message("parsed %d lines in %.1f ms\n", nlines, secs * 1e3);
  assert_int_equal(m->funcs[0].nbody, 1 + 50000 - 50000 / 8 + 1);
  assert_true(secs < 5.0); /* generous for sanitizer builds; ~20 ms optimized */
  ptx_module_free(m);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nvcc_printf),
      cmocka_unit_test(test_nvcc_fnptr_callprototype),
      cmocka_unit_test(test_nvcc_const_init),
      cmocka_unit_test(test_nvcc_packed_mask_init),
      cmocka_unit_test(test_nvcc_shfl_pairs),
      cmocka_unit_test(test_nvcc_lineinfo),
      cmocka_unit_test(test_nvcc_debug_sections),
      cmocka_unit_test(test_nvcc_perf_directives),
      cmocka_unit_test(test_nvcc_texture_and_asm),
      cmocka_unit_test(test_edge_file_module),
      cmocka_unit_test(test_edge_file_body),
      cmocka_unit_test(test_operand_kinds),
      cmocka_unit_test(test_declarations_and_headers),
      cmocka_unit_test(test_comments_sections_and_misc),
      cmocka_unit_test(test_arena),
      cmocka_unit_test(test_call_prototypes),
      cmocka_unit_test(test_targets),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_long_names),
      cmocka_unit_test(test_fuzz),
      cmocka_unit_test(test_large_input_is_fast),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
