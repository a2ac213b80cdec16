/*
 * test_memmodel.c — the weak memory model against the PTX memory model's promises, on the examples
 * of simt-divergence-and-thread-communication.md (tests/ptx/memmodel/litmus.cu, nvcc PTX):
 *  - litmus: writer X = 10; Y = 20 (block 0), reader B = Y; A = X (block 1), from X = 1, Y = 2.
 *    Sequential consistency never gives A = 1, B = 20; the weak model does for some seeds; a fence
 *    between the writes forbids it again.
 *  - the last-block reduction is right under the weak model with its __threadfence, and can be
 *    wrong without it.
 */
#include "wv_test.h"

static wv_vm *vm_for(const char *model, uint32_t seed, wv_module **m) {
  wv_config cfg = {.memory_model = model, .seed = seed};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/ptx/memmodel/litmus.ptx", getenv("WV_SRC"));
  assert_int_equal(wv_module_load_file(vm, path, m), WV_OK);
  return vm;
}

/* One litmus run: returns A * 100 + B. */
static int litmus(const char *model, uint32_t seed, int fenced) {
  wv_module *m;
  wv_vm *vm = vm_for(model, seed, &m);
  const wv_kernel *k = wvt_get(m, vm, "litmus");
  wv_devptr out;
  assert_int_equal(wv_malloc(vm, 8, &out), WV_OK);
  void *args[] = {&out, &fenced};
  assert_int_equal(wv_launch(vm, k, wvt_dim(2, 1, 1), wvt_dim(32, 1, 1), 0, args), WV_OK);
  int ab[2];
  assert_int_equal(wv_memcpy_dtoh(vm, ab, out, 8), WV_OK);
  wv_destroy(vm);
  return ab[0] * 100 + ab[1];
}

static void test_litmus(void **state) {
  (void)state;
  int weak_1_20 = 0, fenced_1_20 = 0;
  for (uint32_t seed = 1; seed <= 64; seed++) {
    assert_int_equal(litmus("sc", seed, 0), 10 * 100 + 20);
    int w = litmus("weak", seed, 0), f = litmus("weak", seed, 1);
    /* every outcome is one of the four combinations of old/new X and Y */
    assert_true(w == 102 || w == 120 || w == 1002 || w == 1020);
    assert_true(f == 102 || f == 120 || f == 1002 || f == 1020);
    weak_1_20 += w == 120;
    fenced_1_20 += f == 120;
  }
  assert_true(weak_1_20 > 0);     /* the reordering the text describes happens */
  assert_int_equal(fenced_1_20, 0); /* and __threadfence() between the writes forbids it */
}

static int lastblock(const char *model, uint32_t seed, int fenced) {
  wv_module *m;
  wv_vm *vm = vm_for(model, seed, &m);
  const wv_kernel *k = wvt_get(m, vm, "lastblock");
  int in[512];
  for (int i = 0; i < 512; i++) in[i] = i;
  wv_devptr din, dres, dtot;
  assert_int_equal(wv_malloc(vm, sizeof in, &din), WV_OK);
  assert_int_equal(wv_malloc(vm, 32, &dres), WV_OK);
  assert_int_equal(wv_malloc(vm, 4, &dtot), WV_OK);
  assert_int_equal(wv_memcpy_htod(vm, din, in, sizeof in), WV_OK);
  assert_int_equal(wv_memset(vm, dres, 0, 32), WV_OK);
  void *args[] = {&din, &dres, &dtot, &fenced};
  assert_int_equal(wv_launch(vm, k, wvt_dim(8, 1, 1), wvt_dim(64, 1, 1), 0, args), WV_OK);
  int total;
  assert_int_equal(wv_memcpy_dtoh(vm, &total, dtot, 4), WV_OK);
  wv_destroy(vm);
  return total;
}

static void test_last_block_reduction(void **state) {
  (void)state;
  const int sum = 511 * 512 / 2;
  int wrong_without = 0;
  for (uint32_t seed = 1; seed <= 16; seed++) {
    assert_int_equal(lastblock("sc", seed, 0), sum);
    assert_int_equal(lastblock("weak", seed, 1), sum); /* correct with its fence */
    wrong_without += lastblock("weak", seed, 0) != sum;
  }
  assert_true(wrong_without > 0); /* demonstrably wrong without it */
}

static void test_bad_model(void **state) {
  (void)state;
  wv_config cfg = {.memory_model = "tso"};
  assert_null(wv_create(&cfg));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_litmus),
    cmocka_unit_test(test_last_block_reduction),
    cmocka_unit_test(test_bad_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
