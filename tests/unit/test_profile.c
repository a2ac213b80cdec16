/*
 * test_profile.c — the counts of wv_config.profile (README "Profiling"), each derived by hand from the
 * hardware's rule, not from warpvm's output:
 *   - shared memory has 32 banks of 4-byte words (bank = word address mod 32); a request of up to 4 bytes
 *     per thread is one phase of 32 threads, 8 bytes two phases (half-warps), 16 bytes four (quarter-warps);
 *     a phase takes as many wavefronts as the most distinct words one bank must deliver, and threads
 *     reading the same word share it; bank conflicts = wavefronts - one per phase;
 *   - global memory: a request touches the distinct 32-byte sectors of its threads' bytes;
 *   - a branch is divergent when its active threads go both ways.
 * And what must hold whatever the kernel: the profile's instruction totals equal wv_stats', and profiling
 * changes no result and no count with the number of worker threads.
 */
#include "wv_test.h"

static const char *PTX = WVT_HDR
    ".visible .entry sh32(.param .u32 stride, .param .u32 base) {\n"
    "  .reg .b32 %r<8>;\n"
    "  .shared .align 16 .b8 buf[16384];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  ld.param.u32 %r2, [stride];\n"
    "  ld.param.u32 %r7, [base];\n"
    "  mad.lo.u32 %r3, %r1, %r2, %r7;\n"
    "  mov.u32 %r4, buf;\n"
    "  add.u32 %r5, %r4, %r3;\n"
    "  ld.shared.u32 %r6, [%r5];\n"
    "  st.shared.u32 [%r5], %r6;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry sh64(.param .u32 stride, .param .u32 base) {\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<2>;\n"
    "  .shared .align 16 .b8 buf[16384];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  ld.param.u32 %r2, [stride];\n"
    "  ld.param.u32 %r7, [base];\n"
    "  mad.lo.u32 %r3, %r1, %r2, %r7;\n"
    "  mov.u32 %r4, buf;\n"
    "  add.u32 %r5, %r4, %r3;\n"
    "  ld.shared.u64 %rd1, [%r5];\n"
    "  st.shared.u64 [%r5], %rd1;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry sh128(.param .u32 stride, .param .u32 base) {\n"
    "  .reg .b32 %r<12>;\n"
    "  .shared .align 16 .b8 buf[16384];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  ld.param.u32 %r2, [stride];\n"
    "  ld.param.u32 %r7, [base];\n"
    "  mad.lo.u32 %r3, %r1, %r2, %r7;\n"
    "  mov.u32 %r4, buf;\n"
    "  add.u32 %r5, %r4, %r3;\n"
    "  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r5];\n"
    "  st.shared.v4.u32 [%r5], {%r8, %r9, %r10, %r11};\n"
    "  ret;\n"
    "}\n"
    ".visible .entry g32(.param .u64 p, .param .u32 stride) {\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<6>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  ld.param.u32 %r2, [stride];\n"
    "  mul.wide.u32 %rd3, %r1, %r2;\n"
    "  add.u64 %rd4, %rd2, %rd3;\n"
    "  ld.global.u32 %r6, [%rd4];\n"
    "  add.u32 %r6, %r6, 1;\n"
    "  st.global.u32 [%rd4], %r6;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry g64(.param .u64 p, .param .u32 stride) {\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  ld.param.u32 %r2, [stride];\n"
    "  mul.wide.u32 %rd3, %r1, %r2;\n"
    "  add.u64 %rd4, %rd2, %rd3;\n"
    "  ld.global.u64 %rd6, [%rd4];\n"
    "  st.global.u64 [%rd4], %rd6;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry dv(.param .u32 n, .param .u64 p) {\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<6>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  ld.param.u32 %r2, [n];\n"
    "  setp.lt.u32 %p1, %r1, %r2;\n"
    "  @%p1 bra L1;\n"
    "  add.u32 %r3, %r1, 100;\n"
    "  bra.uni L2;\n"
    "L1:\n"
    "  add.u32 %r3, %r1, 200;\n"
    "L2:\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n"
    "  add.u64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r3;\n"
    "  ret;\n"
    "}\n";

static int setup(void **state) {
  wv_config cfg = {.profile = WV_PROFILE_ON, .threads = 1};
  *state = wv_create(&cfg);
  return *state ? 0 : -1;
}

static double metric(wv_vm *vm, const char *name) {
  double v = -1;
  size_t n = wv_profile_count(vm);
  assert_true(n > 0);
  if (wv_profile_value(vm, n - 1, name, &v)) fail_msg("no metric %s", name);
  return v;
}

/* One warp of kernel k (sh32/sh64/sh128) with a byte stride: its shared-load wavefronts and conflicts. */
static void shared_case(wv_vm *vm, const char *k, uint32_t stride, uint32_t base, double wave, double conflicts) {
  const wv_kernel *kern = wvt_kernel(vm, PTX, k);
  void *args[2] = {&stride, &base};
  wvt_expect_ok(vm, wv_launch(vm, kern, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args));
  if (metric(vm, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") != wave ||
      metric(vm, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum") != conflicts ||
      metric(vm, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum") != wave ||
      metric(vm, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum") != conflicts)
    fail_msg("%s stride %u: wavefronts %g conflicts %g (ld), %g %g (st); want %g %g", k, stride,
             metric(vm, "shared_ld_wavefronts"), metric(vm, "shared_ld_bank_conflicts"),
             metric(vm, "shared_st_wavefronts"), metric(vm, "shared_st_bank_conflicts"), wave, conflicts);
  assert_int_equal(metric(vm, "shared_ld_requests"), 1);
}

static void test_shared_32bit(void **state) {
  wv_vm *vm = *state;
  shared_case(vm, "sh32", 4, 0, 1, 0);     /* consecutive words: 32 banks once */
  shared_case(vm, "sh32", 0, 0, 1, 0);     /* one word for all: a broadcast */
  shared_case(vm, "sh32", 8, 0, 2, 1);     /* stride 2 words: lanes l and l+16 share bank 2l mod 32 */
  shared_case(vm, "sh32", 12, 0, 1, 0);    /* stride 3 words: 3 is odd, 32 distinct banks */
  shared_case(vm, "sh32", 16, 0, 4, 3);    /* stride 4 words: 8 banks, 4 words each */
  shared_case(vm, "sh32", 128, 0, 32, 31); /* stride 32 words (a column of float[32][32]): one bank */
  shared_case(vm, "sh32", 132, 0, 1, 0);   /* stride 33 words (float[32][33]): padded, 32 banks */
}

static void test_shared_64bit(void **state) {
  wv_vm *vm = *state;
  shared_case(vm, "sh64", 8, 0, 2, 0);  /* each half-warp: 16 lanes x 2 words = 32 banks once */
  shared_case(vm, "sh64", 0, 0, 2, 0);  /* one 8-byte word: each half-warp reads words 0,1 */
  shared_case(vm, "sh64", 16, 0, 4, 2); /* half-warp: words 4l, 4l+1: lanes l, l+8 share banks: 2 each */
}

static void test_shared_128bit(void **state) {
  wv_vm *vm = *state;
  shared_case(vm, "sh128", 16, 0, 4, 0); /* each quarter-warp: 8 lanes x 4 words = 32 banks */
  shared_case(vm, "sh128", 32, 0, 8, 4); /* quarter: words 8l..8l+3: lanes l, l+4 share banks: 2 each */
}

static void global_case(wv_vm *vm, const char *k, uint32_t stride, double sectors) {
  const wv_kernel *kern = wvt_kernel(vm, PTX, k);
  wv_devptr p;
  assert_int_equal(wv_malloc(vm, 32 * 256 + 64, &p), WV_OK); /* allocations are 512-byte aligned (README) */
  assert_int_equal(wv_memset(vm, p, 0, 32 * 256 + 64), WV_OK);
  void *args[2] = {&p, &stride};
  wvt_expect_ok(vm, wv_launch(vm, kern, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args));
  assert_int_equal(wv_free(vm, p), WV_OK);
  if (metric(vm, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") != sectors ||
      metric(vm, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum") != sectors ||
      metric(vm, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum") != 1 ||
      metric(vm, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum") != 1)
    fail_msg("%s stride %u: %g sectors, want %g", k, stride, metric(vm, "global_ld_sectors"), sectors);
}

static void test_global_sectors(void **state) {
  wv_vm *vm = *state;
  global_case(vm, "g32", 4, 4);    /* 128 consecutive bytes: 4 sectors */
  global_case(vm, "g32", 0, 1);    /* one word */
  global_case(vm, "g32", 8, 8);    /* every other word: 256 bytes */
  global_case(vm, "g32", 32, 32);  /* a word per sector */
  global_case(vm, "g32", 128, 32); /* a word per 128 bytes */
  global_case(vm, "g64", 8, 8);    /* 256 consecutive bytes */
}

static void test_divergence(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, PTX, "dv");
  wv_devptr p;
  assert_int_equal(wv_malloc(vm, 64 * 4, &p), WV_OK);
  uint32_t n = 10; /* the reference text's threadIdx.x < 10: warp 0 splits, warp 1 goes one way */
  void *args[2] = {&n, &p};
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(64, 1, 1), 0, args));
  assert_int_equal(metric(vm, "smsp__sass_branch_targets_threads_divergent.sum"), 1);
  /* warp 0: 4 before the branch, 2 on the else path, 1 on the then path, 6 after: 13 warp instructions;
   * warp 1: 4 + 2 + 6 = 12 */
  assert_int_equal(metric(vm, "smsp__inst_executed.sum"), 13 + 12);
  n = 32; /* threadIdx.x / warpSize < 1: uniform per warp */
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(64, 1, 1), 0, args));
  assert_int_equal(metric(vm, "divergent_branches"), 0);
  assert_int_equal(metric(vm, "smsp__inst_executed.sum"), 11 + 12); /* warp 0: 4 + 1 + 6 */
  uint32_t out[64];
  assert_int_equal(wv_memcpy_dtoh(vm, out, p, sizeof out), WV_OK);
  for (uint32_t t = 0; t < 64; t++) assert_int_equal(out[t], t + (t < 32 ? 200 : 100));
  assert_int_equal(wv_free(vm, p), WV_OK);
}

/* The suite's transpose (tests/profile/kernels.ptx) with and without the profile, on 1 and 2 workers: the
 * same output; the profile's totals equal wv_stats'; the counts do not depend on the workers. */
static void run_transpose(uint32_t profile, uint32_t threads, float *out, double *counts) {
  wv_config cfg = {.profile = profile, .threads = threads};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  const wv_kernel *k = wvt_get(wvt_load_src(vm, "tests/profile/kernels.ptx"), vm, "transpose_strided");
  enum { N = 64 };
  float in[N * N];
  for (int i = 0; i < N * N; i++) in[i] = (float)i;
  wv_devptr a, b;
  assert_int_equal(wv_malloc(vm, sizeof in, &a), WV_OK);
  assert_int_equal(wv_malloc(vm, sizeof in, &b), WV_OK);
  assert_int_equal(wv_memcpy_htod(vm, a, in, sizeof in), WV_OK);
  int n = N;
  void *args[3] = {&a, &b, &n};
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(2, 2, 1), wvt_dim(32, 8, 1), 0, args));
  assert_int_equal(wv_memcpy_dtoh(vm, out, b, sizeof in), WV_OK);
  if (profile) {
    wv_stats st;
    wv_get_stats(vm, &st);
    assert_int_equal(wv_profile_count(vm), 1);
    assert_string_equal(wv_profile_kernel(vm, 0), "transpose_strided");
    assert_true(metric(vm, "smsp__inst_executed.sum") == (double)st.warp_instructions);
    assert_true(metric(vm, "smsp__thread_inst_executed.sum") == (double)st.thread_instructions);
    assert_true(metric(vm, "shared_ld_requests") == (double)st.shared_loads);
    const char *names[] = {"inst_executed", "thread_inst_executed", "shared_ld_wavefronts", "shared_st_wavefronts",
                           "global_ld_sectors", "global_st_sectors", "barrier_insts", "branches"};
    for (int i = 0; i < 8; i++) counts[i] = metric(vm, names[i]);
    /* 4 CTAs x 8 warps x 4 column reads, each 32-way */
    assert_true(metric(vm, "shared_ld_wavefronts") == 4 * 8 * 4 * 32);
  }
  wv_destroy(vm);
}

static void test_no_change(void **state) {
  (void)state;
  static float plain[64 * 64], prof1[64 * 64], prof2[64 * 64];
  double c1[8], c2[8];
  run_transpose(0, 1, plain, NULL);
  run_transpose(WV_PROFILE_ON | WV_PROFILE_TRACE, 1, prof1, c1);
  run_transpose(WV_PROFILE_ON, 2, prof2, c2);
  assert_memory_equal(plain, prof1, sizeof plain);
  assert_memory_equal(plain, prof2, sizeof plain);
  assert_memory_equal(c1, c2, sizeof c1);
}

/* Many launches: the first 256 are kept one by one, later ones of the same kernel add up in its latest record. */
static void test_many_launches(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, PTX, "sh32");
  uint32_t stride = 4, base = 0;
  void *args[2] = {&stride, &base};
  for (int i = 0; i < 300; i++) wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args));
  assert_int_equal(wv_profile_count(vm), 256);
  double one, all;
  assert_int_equal(wv_profile_value(vm, 0, "inst_executed", &one), 0);
  assert_int_equal(wv_profile_value(vm, 255, "inst_executed", &all), 0);
  assert_true(all == 45 * one); /* launches 256..300 */
  assert_true(metric(vm, "shared_ld_requests") == 45);
  assert_int_equal(wv_profile_value(vm, 0, "no_such_metric", &one), -1);
  wv_profile_reset(vm);
  assert_int_equal(wv_profile_count(vm), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_shared_32bit, setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_shared_64bit, setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_shared_128bit, setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_global_sectors, setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_divergence, setup, wvt_teardown),
      cmocka_unit_test(test_no_change),
      cmocka_unit_test_setup_teardown(test_many_launches, setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
