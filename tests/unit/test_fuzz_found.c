/*
 * test_fuzz_found.c — bugs the libFuzzer harnesses of tests/fuzz found in the loader and the executor,
 * one test each, written as a user would meet them (the inputs themselves are replayed from
 * tests/fuzz/regressions/ by the fuzz.regress.* tests).
 */
#include "wv_test.h"

/* Lanes run shfl.sync with membermask 3 << (laneid & 6): lanes 0..7 form four pairs, lanes 8..31 run
 * with masks that do not name them. Under --check synccheck the launch must end with the fault (it
 * looped forever: the scheduler retried the faulting collective); without, it runs and is counted. */
static const char *pairs_ptx = WVT_HDR
    ".visible .entry pairs(.param .u64 out)\n"
    "{\n"
    " .reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;\n"
    " mov.u32 %r1, %laneid; and.b32 %r2, %r1, 6; shl.b32 %r3, 3, %r2;\n"
    " shfl.sync.bfly.b32 %r4, %r1, 1, 31, %r3;\n"
    " mul.wide.u32 %rd2, %r1, 4; add.s64 %rd2, %rd1, %rd2; st.global.u32 [%rd2], %r4;\n"
    " ret;\n"
    "}\n";

static void synccheck_fault_with_several_membermasks_ends(void **state) {
  (void)state;
  for (int check = 0; check < 2; check++) {
    wv_config cfg = {.max_steps = 100000, .checks = check ? WV_CHECK_SYNCCHECK : 0};
    wv_vm *vm = wv_create(&cfg);
    assert_non_null(vm);
    const wv_kernel *k = wvt_kernel(vm, pairs_ptx, "pairs");
    uint32_t out[32] = {0};
    wvt_buf b = {out, sizeof out};
    wv_status st = wvt_run(vm, k, 1, 32, 1, &b);
    if (check) {
      assert_int_equal(st, WV_ERR_FAULT);
      assert_non_null(strstr(wv_last_error(vm), "undefined warp collective: shfl.sync"));
    } else {
      wvt_expect_ok(vm, st);
      for (uint32_t l = 0; l < 8; l++) assert_int_equal(out[l], l ^ 1); /* the defined pairs swap */
      assert_true(wv_diag_count(vm, WV_DIAG_UNDEF_COLLECTIVE) > 0);
    }
    wv_destroy(vm);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(synccheck_fault_with_several_membermasks_ends),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
