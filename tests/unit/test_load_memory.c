/*
 * test_load_memory.c — what loading a large PTX module costs (issue 10: a 21 MB file took 616 MB).
 * A generated module of about 12 MB (400 kernels of 1,000 ordinary instructions, nvcc's register
 * naming) must load with the process's peak resident memory growing by less than 6 times the text;
 * every kernel must still be there and run. Skipped under AddressSanitizer, whose shadow memory and
 * redzones are not warpvm's. Linux only (getrusage's ru_maxrss in kilobytes).
 */
#include <sys/resource.h>

#include "wv_test.h"

#if defined(__SANITIZE_ADDRESS__)
#define WVT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WVT_ASAN 1
#endif
#endif

#define NKERNELS 400
#define NBLOCKS 100 /* blocks of 10 instructions per kernel */

static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + at, at < cap ? cap - at : 0, fmt, ap);
  va_end(ap);
  assert_true(n >= 0 && at + (size_t)n < cap);
  return at + (size_t)n;
}

/* k_i(out): out[tid] = tid + i * (number of add blocks); each block is a few loads, adds and a branch. */
static char *gen(size_t *len) {
  size_t cap = (size_t)NKERNELS * NBLOCKS * 420 + 4096, at = 0;
  char *t = malloc(cap);
  assert_non_null(t);
  at = put(t, cap, at, ".version 8.0\n.target sm_90\n.address_size 64\n\n");
  for (int k = 0; k < NKERNELS; k++) {
    at = put(t, cap, at,
             ".visible .entry _Z6kernelILi%dEEvPi(\n\t.param .u64 _Z6kernelILi%dEEvPi_param_0\n)\n{\n"
             "\t.reg .pred \t%%p<4>;\n\t.reg .b32 \t%%r<16>;\n\t.reg .b64 \t%%rd<8>;\n\n"
             "\tld.param.u64 \t%%rd1, [_Z6kernelILi%dEEvPi_param_0];\n\tcvta.to.global.u64 \t%%rd2, %%rd1;\n"
             "\tmov.u32 \t%%r1, %%tid.x;\n\tmul.wide.u32 \t%%rd3, %%r1, 4;\n\tadd.s64 \t%%rd4, %%rd2, %%rd3;\n"
             "\tmov.u32 \t%%r2, %d;\n",
             k, k, k, k);
    for (int b = 0; b < NBLOCKS; b++)
      at = put(t, cap, at,
               "\tadd.s32 \t%%r3, %%r2, 1;\n\tsetp.gt.s32 \t%%p1, %%r3, 1000000;\n\t@%%p1 bra \t$L__BB%d_%d;\n"
               "\tshl.b32 \t%%r4, %%r3, 2;\n\tshr.u32 \t%%r5, %%r4, 2;\n\tand.b32 \t%%r6, %%r5, 2147483647;\n"
               "\txor.b32 \t%%r7, %%r6, 0;\n\tor.b32 \t%%r2, %%r7, 0;\n\tmad.lo.s32 \t%%r8, %%r2, 1, 0;\n"
               "$L__BB%d_%d:\n\tmov.u32 \t%%r2, %%r8;\n",
               k, b, k, b);
    at = put(t, cap, at, "\tadd.s32 \t%%r9, %%r2, %%r1;\n\tst.global.u32 \t[%%rd4], %%r9;\n\tret;\n\n}\n\n");
  }
  *len = at;
  return t;
}

static long max_rss_kb(void) {
  struct rusage ru;
  assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
  return ru.ru_maxrss;
}

static void test_large_module_memory(void **state) {
  (void)state;
#ifdef WVT_ASAN
  skip();
#endif
  size_t len;
  char *text = gen(&len);
  wv_vm *vm = wv_create(NULL);
  assert_non_null(vm);
  long before = max_rss_kb();
  wv_module *m = NULL;
  wv_status st = wv_module_load_string(vm, text, len, "large.ptx", &m);
  if (st != WV_OK) fail_msg("load failed: %s", wv_last_error(vm));
  long grew = max_rss_kb() - before;
  free(text);
  print_message("text %zu KB, peak resident memory grew by %ld KB (%.1fx)\n", len / 1024, grew, grew * 1024.0 / (double)len);
  assert_true(grew * 1024.0 < 6.0 * (double)len);
  assert_int_equal(wv_module_kernel_count(m), NKERNELS);
  /* the last kernel runs from what was kept */
  const wv_kernel *k = wvt_get(m, vm, "_Z6kernelILi399EEvPi");
  int32_t out[32];
  wvt_buf b = {out, sizeof out};
  wvt_run_ok(vm, k, 1, 32, 1, &b);
  for (int i = 0; i < 32; i++) assert_int_equal(out[i], 399 + NBLOCKS + i);
  wv_destroy(vm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_large_module_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
