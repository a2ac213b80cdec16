/*
 * test_its.c — independent thread scheduling: code that is correct on Volta and later because the
 * lanes of one warp make progress independently must also finish under warpvm.
 */
#include "wv_test.h"

/* Every lane of one warp takes a global spin lock in turn (tests/ptx/its/spinlock.cu, nvcc PTX).
 * Under lock-step SIMT the lanes that lose the CAS would spin forever while the winner waits at
 * the loop's reconvergence point; under ITS each lane gets the lock once: the counter ends at 32
 * and the values the lanes saw are 1..32 in some order. */
static void test_spinlock_in_one_warp(void **state) {
  wv_vm *vm = *state;
  const char *src = getenv("WV_SRC");
  assert_non_null(src);
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/ptx/its/spinlock.ptx", src);
  wv_module *m;
  assert_int_equal(wv_module_load_file(vm, path, &m), WV_OK);
  const wv_kernel *k = wvt_get(m, vm, "spinlock");
  uint32_t buf[33] = {0};
  wvt_buf bufs[] = {{buf, sizeof buf}};
  wvt_run_ok(vm, k, 1, 32, 1, bufs);
  assert_int_equal(buf[0], 32);
  uint32_t seen = 0;
  for (int i = 1; i <= 32; i++) {
    assert_true(buf[i] >= 1 && buf[i] <= 32);
    seen |= 1u << (buf[i] - 1);
  }
  assert_int_equal(seen, 0xffffffffu);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_spinlock_in_one_warp, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
