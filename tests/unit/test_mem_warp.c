/*
 * test_mem_warp.c — a warp's memory access as a whole: lanes whose addresses lie in several allocations or
 * state spaces, or some of which are bad, must behave exactly as if each lane accessed memory on its own
 * (PTX ISA §9.7.9.8 ld, §9.7.9.9 st, §9.7.13.5 atom: per-thread semantics); a fault names the first bad lane
 * in lane order, as a one-lane access would (a cp.async's too, when it is issued). Global atomics stay atomic
 * when two host threads (two vms sharing identity-mapped host memory) run kernels on the same words at once.
 */
#include <pthread.h>
#include <stdlib.h>

#include "wv_test.h"

/* Lane t of each warp reads word t of buffer a (even lanes) or b (odd lanes), and of a shared or local array
 * through generic addresses (t % 4: 0 global a, 1 shared, 2 local, 3 global b), adds 1000 and stores it
 * back to where it read, then writes what it read to out[t]; atom.add 1 on counts[t % 2] too, through
 * the two buffers' generic addresses. Lanes below 24 only (a partial mask) do the second round. */
static const char MIXED_PTX[] = WVT_HDR
    ".visible .entry mixed(.param .u64 pa, .param .u64 pb, .param .u64 pout)\n"
    "{\n"
    ".shared .align 4 .b8 sm[128];\n"
    ".local .align 4 .b8 lm[4];\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<24>; .reg .pred %p<8>;\n"
    "ld.param.u64 %rd1, [pa];\n ld.param.u64 %rd2, [pb];\n ld.param.u64 %rd3, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd4, %r1, 4;\n"
    "mov.u64 %rd5, sm;\n cvta.shared.u64 %rd6, %rd5;\n add.s64 %rd6, %rd6, %rd4;\n" /* &sm[t] */
    "add.u32 %r2, %r1, 500;\n"
    "st.u32 [%rd6], %r2;\n"                                                   /* sm[t] = t + 500 */
    "mov.u64 %rd7, lm;\n cvta.local.u64 %rd8, %rd7;\n"                        /* &lm (each lane's own) */
    "add.u32 %r3, %r1, 700;\n st.local.u32 [lm], %r3;\n"                      /* lm = t + 700 */
    "add.s64 %rd9, %rd1, %rd4;\n add.s64 %rd10, %rd2, %rd4;\n"               /* &a[t], &b[t] */
    "and.b32 %r4, %r1, 3;\n"
    "setp.eq.u32 %p1, %r4, 1;\n setp.eq.u32 %p2, %r4, 2;\n setp.eq.u32 %p3, %r4, 3;\n"
    "selp.b64 %rd11, %rd6, %rd9, %p1;\n selp.b64 %rd11, %rd8, %rd11, %p2;\n selp.b64 %rd11, %rd10, %rd11, %p3;\n"
    "mov.u32 %r10, 0;\n"
    "ROUND:\n"
    "ld.u32 %r5, [%rd11];\n"
    "add.u32 %r6, %r5, 1000;\n"
    "st.u32 [%rd11], %r6;\n"
    "and.b32 %r7, %r1, 1;\n setp.eq.u32 %p4, %r7, 1;\n"
    "selp.b64 %rd12, %rd2, %rd1, %p4;\n"
    "atom.add.u32 %r8, [%rd12+256], 1;\n"                                     /* counts in word 64 of a, b */
    "add.s64 %rd13, %rd3, %rd4;\n mul.wide.u32 %rd14, %r10, 128;\n add.s64 %rd13, %rd13, %rd14;\n"
    "st.global.u32 [%rd13], %r5;\n"
    "add.u32 %r10, %r10, 1;\n"
    "setp.lt.u32 %p5, %r1, 24;\n setp.lt.u32 %p6, %r10, 2;\n and.pred %p7, %p5, %p6;\n"
    "@%p7 bra ROUND;\n"
    "ret;\n"
    "}\n";

static void test_lanes_in_several_spaces(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, MIXED_PTX, "mixed");
  static uint32_t a[65], b[65], out[64];
  for (uint32_t i = 0; i < 64; i++) a[i] = 100 + i, b[i] = 300 + i;
  a[64] = b[64] = 0;
  memset(out, 0, sizeof out);
  wvt_buf bufs[3] = {{a, sizeof a}, {b, sizeof b}, {out, sizeof out}};
  wvt_run_ok(vm, k, 1, 32, 3, bufs);
  for (uint32_t t = 0; t < 32; t++) {
    uint32_t first = t % 4 == 0 ? 100 + t : t % 4 == 1 ? 500 + t : t % 4 == 2 ? 700 + t : 300 + t;
    assert_int_equal(out[t], first);
    if (t < 24) assert_int_equal(out[32 + t], first + 1000); /* the second round read the first's store */
    else assert_int_equal(out[32 + t], 0);
    uint32_t rounds = t < 24 ? 2 : 1;
    if (t % 4 == 0) assert_int_equal(a[t], first + 1000 * rounds);
    if (t % 4 == 3) assert_int_equal(b[t], first + 1000 * rounds);
  }
  assert_int_equal(a[64], 16 + 12); /* even lanes: 16 in round one, 12 of them (t < 24) in round two */
  assert_int_equal(b[64], 16 + 12);
}

/* Each lane loads word t of a 128-byte buffer, except: lane `mis` adds 2 to its address (misaligned) and lane
 * `oob` adds 1 TiB (outside every mapping: a load there faults too); the fault is the first bad lane's. */
static const char BAD_PTX[] = WVT_HDR
    ".visible .entry bad(.param .u64 pbuf, .param .u32 mis, .param .u32 oob, .param .u32 store)\n"
    "{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pbuf];\n"
    "ld.param.u32 %r2, [mis];\n ld.param.u32 %r3, [oob];\n ld.param.u32 %r4, [store];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
    "setp.eq.u32 %p1, %r1, %r2;\n @%p1 add.s64 %rd3, %rd3, 2;\n"
    "setp.eq.u32 %p2, %r1, %r3;\n @%p2 add.s64 %rd3, %rd3, 0x10000000000;\n"
    "setp.ne.u32 %p3, %r4, 0;\n"
    "@%p3 bra STORE;\n"
    "ld.global.u32 %r5, [%rd3]; // BAD_LOAD\n"
    "ret;\n"
    "STORE:\n"
    "st.global.u32 [%rd3], %r1; // BAD_STORE\n"
    "ret;\n"
    "}\n";

static void expect_fault(wv_vm *vm, const wv_kernel *k, wv_devptr buf, uint32_t mis, uint32_t oob, uint32_t store,
                         wv_status want_st, uint32_t lane, uint64_t addr) {
  void *args[4] = {&buf, &mis, &oob, &store};
  wv_status st = wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args);
  wvt_assert_status(vm, st, want_st);
  const char *e = wv_last_error(vm);
  char want[128];
  snprintf(want, sizeof want, "thread (%u,0,0)", lane);
  wvt_assert_contains(e, want);
  snprintf(want, sizeof want, "0x%llx", (unsigned long long)addr);
  wvt_assert_contains(e, want);
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(BAD_PTX, store ? "BAD_STORE" : "BAD_LOAD"));
  wvt_assert_contains(e, want);
}

static void test_first_bad_lane_faults(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, BAD_PTX, "bad");
  wv_devptr buf;
  assert_int_equal(wv_malloc(vm, 128, &buf), WV_OK);
  for (uint32_t store = 0; store < 2; store++) {
    expect_fault(vm, k, buf, 17, 99, store, WV_ERR_MISALIGNED, 17, buf + 17 * 4 + 2);
    expect_fault(vm, k, buf, 17, 9, store, WV_ERR_FAULT, 9, buf + 9 * 4 + (1ull << 40));
    expect_fault(vm, k, buf, 5, 9, store, WV_ERR_MISALIGNED, 5, buf + 5 * 4 + 2);
    void *args[4] = {&buf, &(uint32_t){99}, &(uint32_t){99}, &store};
    wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args)); /* all good */
  }
  assert_int_equal(wv_free(vm, buf), WV_OK);
}

/* cp.async: 32 lanes copy 16 bytes each; lane `oob` reads 1 TiB further (outside every mapping). The copy is
 * checked when issued: the fault is that lane's, at the cp.async. */
static const char BADCP_PTX[] = WVT_HDR
    ".visible .entry badcp(.param .u64 pbuf, .param .u32 oob)\n"
    "{\n"
    ".shared .align 16 .b8 s[512];\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
    "ld.param.u64 %rd1, [pbuf];\n ld.param.u32 %r2, [oob];\n"
    "mov.u32 %r1, %tid.x;\n shl.b32 %r3, %r1, 4;\n mov.u32 %r4, s;\n add.u32 %r5, %r4, %r3;\n"
    "cvt.u64.u32 %rd2, %r3;\n add.s64 %rd3, %rd1, %rd2;\n"
    "setp.eq.u32 %p1, %r1, %r2;\n @%p1 add.s64 %rd3, %rd3, 0x10000000000;\n"
    "cp.async.cg.shared.global [%r5], [%rd3], 16; // BAD_CP\n"
    "cp.async.wait_all;\n"
    "ld.shared.u32 %r6, [%r5];\n"
    "st.global.u32 [%rd3], %r6;\n"
    "ret;\n"
    "}\n";

static void test_first_bad_copy_faults(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, BADCP_PTX, "badcp");
  wv_devptr buf;
  assert_int_equal(wv_malloc(vm, 512, &buf), WV_OK);
  uint32_t oob = 21;
  void *args[2] = {&buf, &oob};
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args), WV_ERR_FAULT);
  const char *e = wv_last_error(vm);
  char want[128];
  wvt_assert_contains(e, "thread (21,0,0)");
  snprintf(want, sizeof want, "0x%llx", (unsigned long long)(buf + 21 * 16 + (1ull << 40)));
  wvt_assert_contains(e, want);
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(BADCP_PTX, "BAD_CP"));
  wvt_assert_contains(e, want);
  oob = 99;
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args));
  assert_int_equal(wv_free(vm, buf), WV_OK);
}

/* ---- global atomics from two host threads ----------------------------------------------------------- */

/* Every thread, `iters` times: atom.add.u32 1 on w[0], atom.add.f32 1.0 on w[1], atom.inc.u32 (bound
 * 0xffffffff) on w[2], red.add.u64 1 on w[4..5], atom.max.u32 on w[6] with its running count, and a
 * cas of w[7] from its value to that value + 1 (counted in w[8] when it wins). */
static const char HAMMER_PTX[] = WVT_HDR
    ".visible .entry hammer(.param .u64 pw, .param .u32 iters)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .f32 %f<2>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pw];\n ld.param.u32 %r1, [iters];\n"
    "mov.u32 %r2, 0;\n"
    "LOOP:\n"
    "atom.global.add.u32 %r3, [%rd1], 1;\n"
    "atom.global.add.f32 %f1, [%rd1+4], 0f3F800000;\n"
    "atom.global.inc.u32 %r4, [%rd1+8], 0xffffffff;\n"
    "red.global.add.u64 [%rd1+16], 1;\n"
    "atom.global.max.u32 %r5, [%rd1+24], %r3;\n"
    "ld.volatile.global.u32 %r6, [%rd1+28];\n"
    "add.u32 %r7, %r6, 1;\n"
    "atom.global.cas.b32 %r8, [%rd1+28], %r6, %r7;\n"
    "setp.eq.u32 %p1, %r8, %r6;\n"
    "@%p1 red.global.add.u32 [%rd1+32], 1;\n"
    "add.u32 %r2, %r2, 1;\n"
    "setp.lt.u32 %p2, %r2, %r1;\n"
    "@%p2 bra LOOP;\n"
    "ret;\n"
    "}\n";

enum { H_GRID = 4, H_BLOCK = 128, H_ITERS = 50, H_LAUNCHES = 4 };

typedef struct hammer {
  uint32_t *words;
  wv_status st;
  char err[256];
} hammer;

static void *hammer_run(void *arg) {
  hammer *h = arg;
  wv_vm *vm = wv_create(NULL);
  wv_module *m = NULL;
  const wv_kernel *k = NULL;
  h->st = vm ? WV_OK : WV_ERR_NOMEM;
  if (!h->st) h->st = wv_map_host(vm, h->words, 4096);
  if (!h->st) h->st = wv_module_load_string(vm, HAMMER_PTX, strlen(HAMMER_PTX), "hammer.ptx", &m);
  if (!h->st) h->st = wv_kernel_get(m, "hammer", &k);
  wv_devptr w = (wv_devptr)(uintptr_t)h->words;
  uint32_t iters = H_ITERS;
  void *args[2] = {&w, &iters};
  for (int i = 0; i < H_LAUNCHES && !h->st; i++)
    h->st = wv_launch(vm, k, wvt_dim(H_GRID, 1, 1), wvt_dim(H_BLOCK, 1, 1), 0, args);
  if (h->st && vm) snprintf(h->err, sizeof h->err, "%s", wv_last_error(vm));
  wv_destroy(vm);
  return NULL;
}

static void test_global_atomics_across_threads(void **state) {
  (void)state;
  uint32_t *words = aligned_alloc(4096, 4096);
  assert_non_null(words);
  memset(words, 0, 4096);
  hammer h[2] = {{words, WV_OK, ""}, {words, WV_OK, ""}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, hammer_run, &h[i]), 0);
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < 2; i++)
    if (h[i].st) fail_msg("thread %d: %s: %s", i, wv_status_name(h[i].st), h[i].err);
  const uint32_t n = 2 * H_LAUNCHES * H_GRID * H_BLOCK * H_ITERS; /* every thread's every iteration */
  float f;
  memcpy(&f, &words[1], 4);
  uint64_t r64;
  memcpy(&r64, &words[4], 8);
  assert_int_equal(words[0], n);
  assert_true(f == (float)n); /* whole numbers below 2^24: exact in any order */
  assert_int_equal(words[2], n);
  assert_int_equal(r64, n);
  assert_int_equal(words[6], n - 1); /* the largest old value of w[0] */
  assert_int_equal(words[7], words[8]); /* each winning cas added exactly 1 */
  free(words);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_lanes_in_several_spaces, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_first_bad_lane_faults, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_first_bad_copy_faults, wvt_setup, wvt_teardown),
      cmocka_unit_test(test_global_atomics_across_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
