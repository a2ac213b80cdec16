/*
 * test_fuzz_load.c — bad input never crashes or hangs: real nvcc PTX from the corpus, mutated
 * (truncated, bytes flipped, lines cut, punctuation sprinkled) with a fixed seed, goes through the
 * whole load path and, when it still loads, through launches with a watchdog. Every load failure
 * must be one "FILE:LINE:COL: error: ..." message; every launch must end with a status and, when
 * it fails, a message. ASan/UBSan builds run the same test.
 */
#include "wv_test.h"

static const char *const files[] = {
  "tests/kernels/ptx/ref_shfl.sm_80.ptx", "tests/kernels/ptx/control.sm_80.ptx", "tests/kernels/ptx/block.sm_80.ptx",
  "tests/kernels/ptx/vote.sm_80.ptx",     "tests/kernels/ptx/atomics.sm_80.ptx", "tests/kernels/ptx/printf.sm_80.ptx",
  "examples/shuffle.ptx",
};

static char *slurp(const char *rel, size_t *n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", getenv("WV_SRC"), rel);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc(*n + 1);
  assert_non_null(b);
  assert_int_equal(fread(b, 1, *n, f), *n);
  fclose(f);
  return b;
}

static unsigned next(unsigned *s) { /* xorshift32 */
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static void mutate(char *b, size_t *n, unsigned *s) {
  static const char punct[] = "%;,[]{}.0123456789_@!|-";
  switch (next(s) % 4) {
  case 0: *n = next(s) % (*n + 1); break;
  case 1: for (unsigned k = 0; k < 1 + next(s) % 8; k++) b[next(s) % *n] = (char)(next(s) & 0xff); break;
  case 2: {
    size_t at = next(s) % *n, len = next(s) % 200;
    if (at + len < *n) { memmove(b + at, b + at + len, *n - at - len); *n -= len; }
    break;
  }
  default: for (int k = 0; k < 3; k++) b[next(s) % *n] = punct[next(s) % (sizeof punct - 1)]; break;
  }
}

static void quiet(void *u, const char *t, size_t n) { (void)u; (void)t; (void)n; }

/* "name:LINE:COL: error: " with numbers */
static int well_formed(const char *msg) {
  const char *p = strstr(msg, "fz.ptx:");
  unsigned line, col;
  char rest[16];
  return p == msg && sscanf(p, "fz.ptx:%u:%u: %6s", &line, &col, rest) == 3 && !strcmp(rest, "error:") && line > 0;
}

static void test_mutated_ptx(void **state) {
  (void)state;
  unsigned seed = 2463534242u;
  int loaded = 0, failed = 0;
  for (int it = 0; it < 1200; it++) {
    size_t n;
    char *b = slurp(files[next(&seed) % (sizeof files / sizeof *files)], &n);
    mutate(b, &n, &seed);
    wv_config cfg = {.max_steps = 20000, .printf_out = quiet};
    wv_vm *vm = wv_create(&cfg);
    wv_module *m;
    wv_status st = wv_module_load_string(vm, b, n, "fz.ptx", &m);
    if (st != WV_OK) {
      failed++;
      if (!well_formed(wv_last_error(vm))) fail_msg("iteration %d: malformed message: %s", it, wv_last_error(vm));
    } else {
      loaded++;
      for (uint32_t i = 0; i < wv_module_kernel_count(m); i++) {
        const wv_kernel *k = wv_module_kernel_at(m, i);
        uint32_t np = wv_kernel_param_count(k);
        if (np > 16) continue;
        wv_devptr d[16];
        void *args[16];
        for (uint32_t p = 0; p < np; p++) {
          assert_int_equal(wv_malloc(vm, 4096, &d[p]), WV_OK);
          args[p] = &d[p];
        }
        st = wv_launch(vm, k, wvt_dim(2, 1, 1), wvt_dim(48, 1, 1), 0, args);
        if (st != WV_OK) assert_true(wv_last_error(vm)[0] != 0);
      }
    }
    wv_destroy(vm);
    free(b);
  }
  assert_true(loaded > 0 && failed > 0); /* both paths were exercised */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_mutated_ptx)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
