/*
 * test_jit_live.c — the JIT's register liveness (src/jit/live.c), which decides which registers a compiled
 * region stores back: a register some later instruction may read is live (around a loop's back edge too),
 * one every path overwrites first is dead, a guarded write kills nothing (the guard's other lanes keep the old
 * value), and an instruction whose operands the JIT does not model reads every register, except cp.async's copy,
 * commit and waits, which read their source operands only. A register wrongly
 * found dead would be a silent wrong result under --engine jit; this checks each rule on a decoded kernel.
 */
#include "wv_test.h"

#include "jit/jit.h"
#include "rt/vm_internal.h"

static const char *PTX = WVT_HDR
    ".visible .entry k(.param .u64 p) {\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<3>;\n"
    "  ld.param.u64 %rd1, [p];\n"        /* 0 */
    "  mov.u32 %r1, %tid.x;\n"           /* 1 */
    "  mov.u32 %r2, 0;\n"                /* 2 */
    "L1:\n"
    "  add.s32 %r2, %r2, %r1;\n"         /* 3: r2 and r1 go around the loop */
    "  mul.lo.s32 %r3, %r2, 3;\n"        /* 4 */
    "  add.s32 %r4, %r3, 1;\n"           /* 5: r3's last read; r4 is never read */
    "  setp.lt.s32 %p1, %r2, 100;\n"     /* 6 */
    "  @%p1 bra L1;\n"                   /* 7 */
    "  mov.u32 %r5, 7;\n"                /* 8: kills r5 */
    "  @%p1 mov.u32 %r5, 9;\n"           /* 9: guarded: r5 stays live before it */
    "  st.global.u32 [%rd1], %r2;\n"     /* 10 */
    "  st.global.u32 [%rd1+4], %r5;\n"   /* 11 */
    "  ret;\n"                           /* 12 */
    "}\n"
    ".visible .entry k2(.param .u64 p) {\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<3>;\n"
    "  ld.param.u64 %rd1, [p];\n"        /* 0 */
    "  mov.u32 %r1, %tid.x;\n"           /* 1 */
    "  add.s32 %r2, %r1, 1;\n"           /* 2: r2 is never read ... */
    "  bfe.u32 %r3, %r1, 4, 8;\n"        /* 3: ... but this is not modelled: it reads everything */
    "  st.global.u32 [%rd1], %r3;\n"     /* 4 */
    "  ret;\n"                           /* 5 */
    "}\n"
    ".visible .entry k3(.param .u64 p) {\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<3>;\n"
    "  ld.param.u64 %rd1, [p];\n"                      /* 0 */
    "  mov.u32 %r1, %tid.x;\n"                         /* 1 */
    "  shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;\n"       /* 2: reads r1 of other lanes ... */
    "  mov.u32 %r1, 5;\n"                              /* 3: ... so overwriting it does not make it dead */
    "  st.global.u32 [%rd1], %r2;\n"                   /* 4 */
    "  ret;\n"                                         /* 5 */
    "}\n"
    ".visible .entry k4(.param .u64 p) {\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  .shared .align 16 .b8 buf[512];\n"
    "  ld.param.u64 %rd1, [p];\n"                      /* 0 */
    "  mov.u32 %r1, %tid.x;\n"                         /* 1 */
    "  shl.b32 %r2, %r1, 4;\n"                         /* 2: r2, rd2: cp.async's addresses */
    "  mul.wide.u32 %rd2, %r1, 16;\n"                  /* 3 */
    "  add.s64 %rd2, %rd1, %rd2;\n"                    /* 4 */
    "  add.s32 %r3, %r1, 7;\n"                         /* 5: r3 is never read */
    "  mov.u32 %r4, 16;\n"                             /* 6: r4: the src-size */
    "  cp.async.ca.shared.global [%r2], [%rd2], 16, %r4;\n" /* 7 */
    "  cp.async.commit_group;\n"                       /* 8 */
    "  cp.async.wait_group 0;\n"                       /* 9 */
    "  cp.async.wait_all;\n"                           /* 10 */
    "  ret;\n"                                         /* 11 */
    "}\n"
    ".visible .entry k5() {\n"
    "  .reg .b32 %r<8>;\n"
    "  .shared .align 8 .b64 bar;\n"
    "  mov.u32 %r1, %tid.x;\n"                         /* 0: r1 is never read ... */
    "  cp.async.mbarrier.arrive.shared.b64 [bar];\n"   /* 1: ... but this reads every register */
    "  ret;\n"                                         /* 2 */
    "}\n";

static int live(const uint64_t *t, uint32_t words, uint32_t pc, uint32_t slot) {
  uint32_t r = WV_SLOT_INDEX(slot);
  return (int)(t[(size_t)pc * words + r / 64] >> (r % 64) & 1);
}

static const wv_func *func(wv_module *m, const char *name) {
  for (uint32_t i = 0; i < m->ir.nfuncs; i++)
    if (!strcmp(m->ir.funcs[i].name, name)) return &m->ir.funcs[i];
  fail_msg("no function %s", name);
  return NULL;
}

/* Function name of m (*f) and its liveness table (*words words per instruction), which the caller frees. */
static uint64_t *table(wv_module *m, const char *name, const wv_func **f, uint32_t *words) {
  *f = func(m, name);
  uint64_t *t = wv_jit_live(*f, words);
  assert_non_null(t);
  return t;
}

static void rules(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load(vm, PTX);
  const wv_func *f;
  uint32_t words = 0;
  uint64_t *t = table(m, "k", &f, &words);
  assert_int_equal(f->ncode, 13);
  assert_int_equal(f->code[7].op, WV_OP_BRA);
  uint32_t rd1 = f->code[0].d[0], r1 = f->code[1].d[0], r2 = f->code[2].d[0], r3 = f->code[4].d[0];
  uint32_t r4 = f->code[5].d[0], r5 = f->code[8].d[0];
  /* around the loop: r1 and r2 are read again after the back edge; rd1 after the loop */
  assert_true(live(t, words, 7, r1) && live(t, words, 7, r2) && live(t, words, 3, r2) && live(t, words, 3, r1));
  assert_true(live(t, words, 1, rd1) && live(t, words, 7, rd1) && live(t, words, 4, rd1));
  /* r3: live from its write to its last read, dead outside */
  assert_true(live(t, words, 5, r3));
  assert_false(live(t, words, 6, r3) || live(t, words, 4, r3) || live(t, words, 7, r3) || live(t, words, 3, r3));
  /* r4 is written and never read */
  for (uint32_t pc = 0; pc <= 13; pc++) assert_false(live(t, words, pc, r4));
  /* an unguarded write kills, a guarded one does not */
  assert_false(live(t, words, 8, r5) || live(t, words, 7, r5));
  assert_true(live(t, words, 9, r5) && live(t, words, 10, r5) && live(t, words, 11, r5));
  assert_false(live(t, words, 11, r2));
  /* after ret, and past the end, nothing */
  assert_false(live(t, words, 12, rd1) || live(t, words, 13, rd1));
  free(t);

  /* an instruction the JIT does not model reads every register */
  t = table(m, "k2", &f, &words);
  assert_int_equal(f->code[3].op, WV_OP_BFE);
  uint32_t k2r2 = f->code[2].d[0];
  assert_true(live(t, words, 3, k2r2));
  assert_false(live(t, words, 4, k2r2) || live(t, words, 2, k2r2));
  free(t);

  /* a collective's source is live everywhere: a shfl.sync whose membermask names lanes that are elsewhere reads
   * what their registers hold there (the interpreter's undefined-collective result, which the JIT must match) */
  t = table(m, "k3", &f, &words);
  assert_int_equal(f->code[2].op, WV_OP_SHFL);
  uint32_t k3r1 = f->code[1].d[0], k3r2 = f->code[2].d[0];
  for (uint32_t pc = 0; pc <= f->ncode; pc++) assert_true(live(t, words, pc, k3r1));
  assert_true(live(t, words, 4, k3r2));
  assert_false(live(t, words, 5, k3r2) || live(t, words, 2, k3r2));
  free(t);

  /* cp.async reads its addresses and src-size, commit_group and the waits read no register; the rest (here
   * cp.async.mbarrier.arrive) every register */
  t = table(m, "k4", &f, &words);
  assert_int_equal(f->code[7].op, WV_OP_CP);
  uint32_t k4r1 = f->code[1].d[0], k4r2 = f->code[2].d[0], k4rd2 = f->code[4].d[0], k4r3 = f->code[5].d[0];
  uint32_t k4r4 = f->code[6].d[0];
  assert_true(live(t, words, 7, k4r2) && live(t, words, 7, k4rd2) && live(t, words, 7, k4r4));
  for (uint32_t pc = 0; pc <= f->ncode; pc++) assert_false(live(t, words, pc, k4r3));
  for (uint32_t pc = 8; pc <= f->ncode; pc++)
    assert_false(live(t, words, pc, k4r1) || live(t, words, pc, k4r2) || live(t, words, pc, k4rd2) || live(t, words, pc, k4r4));
  free(t);
  t = table(m, "k5", &f, &words);
  assert_int_equal(f->code[1].op, WV_OP_CP);
  uint32_t k5r1 = f->code[0].d[0];
  assert_true(live(t, words, 1, k5r1));
  free(t);
  wv_module_unload(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(rules)};
  return cmocka_run_group_tests(tests, wvt_setup, wvt_teardown);
}
