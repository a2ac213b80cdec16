/*
 * test_threads.c — a launch's CTAs on several threads (wv_config.threads), through the C API, with the
 * hand-written kernels of tests/ptx/threads/threads.ptx, whose blocks take different times so that they
 * finish out of grid order:
 *   - printf records come out in grid order, each block's in its own order, as with one thread;
 *   - a fault is reported for the first faulting block in grid order, even when a later block faults
 *     first, and nothing a later block printed comes out; a block after a failed one that would never
 *     end is abandoned at once;
 *   - global atomics on one counter from many blocks lose nothing;
 *   - the diagnostics kept are the first in grid order, counts and statistics are the same sums;
 *   - the watchdog (steps and time) still stops an endless launch;
 *   - wv_config.threads: 0 means every core, and kernels that need one order run all the same.
 * Every expected value follows from the kernels' source and the grid order (the serial schedule).
 */
#include <time.h>

#include "wv_test.h"

static wv_module *load_threads(wv_vm *vm) {
  const char *src = getenv("WV_SRC");
  assert_non_null(src);
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/ptx/threads/threads.ptx", src);
  wv_module *m = NULL;
  wv_status st = wv_module_load_file(vm, path, &m);
  if (st != WV_OK) fail_msg("%s does not load (%s): %s", path, wv_status_name(st), wv_last_error(vm));
  return m;
}

/* What the printf callback got, and how many calls (one per record). */
typedef struct capture {
  char buf[1 << 16];
  size_t len;
  unsigned calls;
} capture;

static void capture_out(void *user, const char *text, size_t n) {
  capture *c = user;
  c->calls++;
  if (c->len + n < sizeof c->buf) {
    memcpy(c->buf + c->len, text, n);
    c->len += n;
    c->buf[c->len] = 0;
  }
}

static wv_vm *make_vm(uint32_t threads, capture *cap) {
  wv_config cfg = {.threads = threads, .printf_out = cap ? capture_out : NULL, .printf_user = cap};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  return vm;
}

static wv_devptr dev_zeros(wv_vm *vm, size_t bytes) {
  wv_devptr p = 0;
  assert_int_equal(wv_malloc(vm, bytes, &p), WV_OK);
  assert_int_equal(wv_memset(vm, p, 0, bytes), WV_OK);
  return p;
}

/* ---- printf: grid order, each block's records in order ----------------------------------------- */

static void run_lines(uint32_t threads, uint32_t grid, capture *cap) {
  wv_vm *vm = make_vm(threads, cap);
  const wv_kernel *k = wvt_get(load_threads(vm), vm, "lines");
  uint32_t spin = 2000;
  void *args[] = {&spin};
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(grid, 1, 1), wvt_dim(64, 1, 1), 0, args));
  wv_destroy(vm);
}

static void test_printf_grid_order(void **state) {
  (void)state;
  enum { GRID = 60 };
  char want[GRID * 3 * 32];
  size_t n = 0;
  for (int b = 0; b < GRID; b++)
    for (int l = 0; l < 3; l++) n += (size_t)snprintf(want + n, sizeof want - n, "block %d line %d\n", b, l);
  uint32_t counts[] = {2, 4, 7};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    capture *cap = calloc(1, sizeof *cap);
    assert_non_null(cap);
    run_lines(counts[i], GRID, cap);
    assert_string_equal(cap->buf, want);
    assert_int_equal(cap->calls, GRID * 3); /* one callback per record */
    free(cap);
  }
}

/* ---- faults: the first in grid order --------------------------------------------------------------- */

/* Block 5 spins, then faults at address 0x8; block 9 faults at once at 0x10; the report is block 5's, and
 * only blocks 0..5 printed (as one thread running the blocks in order gives). */
static void test_first_fault_in_grid_order(void **state) {
  (void)state;
  char want[256];
  size_t n = 0;
  for (int b = 0; b <= 5; b++) n += (size_t)snprintf(want + n, sizeof want - n, "block %d\n", b);
  uint32_t counts[] = {1, 2, 4};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    capture *cap = calloc(1, sizeof *cap);
    assert_non_null(cap);
    wv_vm *vm = make_vm(counts[i], cap);
    const wv_kernel *k = wvt_get(load_threads(vm), vm, "faults");
    wv_devptr out = dev_zeros(vm, 64 * 4);
    uint32_t first = 5, second = 9, spin = 300000;
    void *args[] = {&out, &first, &second, &spin};
    wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(64, 1, 1), wvt_dim(32, 1, 1), 0, args), WV_ERR_FAULT);
    wvt_assert_contains(wv_last_error(vm), "block (5,0,0)");
    wvt_assert_contains(wv_last_error(vm), "at address 0x8 ");
    assert_string_equal(cap->buf, want);
    uint32_t got[64];
    assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
    for (int b = 0; b < 5; b++) assert_int_equal(got[b], 1); /* the blocks before it all ran */
    wv_destroy(vm);
    free(cap);
  }
}

/* Block 0 faults at once while the others spin forever: the launch ends with block 0's fault, and soon
 * (the blocks after it are abandoned; without that the 30-second watchdog would end it). */
static void test_later_blocks_abandoned(void **state) {
  (void)state;
  wv_config cfg = {.threads = 3, .timeout_seconds = 30};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  const wv_kernel *k = wvt_get(load_threads(vm), vm, "first_faults");
  time_t t0 = time(NULL);
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(16, 1, 1), wvt_dim(32, 1, 1), 0, NULL), WV_ERR_FAULT);
  assert_true(time(NULL) - t0 < 15);
  wvt_assert_contains(wv_last_error(vm), "block (0,0,0)");
  wv_destroy(vm);
}

/* ---- atomics ---------------------------------------------------------------------------------------- */

/* 512 blocks of 128 threads add 1 to one counter: 65536, each value 0..65535 seen by exactly one thread. */
static void test_atomic_counter(void **state) {
  (void)state;
  enum { GRID = 512, BLOCK = 128, N = GRID * BLOCK };
  uint32_t counts[] = {2, 4};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    wv_vm *vm = make_vm(counts[i], NULL);
    const wv_kernel *k = wvt_get(load_threads(vm), vm, "count");
    wv_devptr counter = dev_zeros(vm, 4), olds = dev_zeros(vm, N * 4);
    void *args[] = {&counter, &olds};
    wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(GRID, 1, 1), wvt_dim(BLOCK, 1, 1), 0, args));
    uint32_t total = 0, *seen = calloc(N, 4), *old = malloc(N * 4);
    assert_non_null(seen);
    assert_non_null(old);
    assert_int_equal(wv_memcpy_dtoh(vm, &total, counter, 4), WV_OK);
    assert_int_equal(total, N);
    assert_int_equal(wv_memcpy_dtoh(vm, old, olds, N * 4), WV_OK);
    for (int t = 0; t < N; t++) {
      assert_true(old[t] < N);
      seen[old[t]]++;
    }
    for (int v = 0; v < N; v++) assert_int_equal(seen[v], 1);
    free(seen);
    free(old);
    wv_destroy(vm);
  }
}

/* ---- diagnostics and statistics --------------------------------------------------------------------- */

/* Each block's thread 0 reads outside every allocation (an invalid read): the records kept are blocks
 * 0..4's, in order, and the count is the grid's, whatever the threads. */
static void test_diagnostics_grid_order(void **state) {
  (void)state;
  enum { GRID = 24 };
  uint32_t counts[] = {1, 2, 4};
  char first[WV_DIAG_KEEP][512];
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    wv_vm *vm = make_vm(counts[i], NULL);
    const wv_kernel *k = wvt_get(load_threads(vm), vm, "overread");
    wv_devptr buf = dev_zeros(vm, 256);
    uint32_t spin = 3000;
    void *args[] = {&buf, &spin};
    wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(GRID, 1, 1), wvt_dim(32, 1, 1), 0, args));
    assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), GRID);
    wv_stats st;
    wv_get_stats(vm, &st);
    assert_int_equal(st.invalid_reads, GRID);
    for (uint32_t r = 0; r < WV_DIAG_KEEP; r++) {
      const char *rec = wv_diag_record(vm, WV_DIAG_INVALID_READ, r);
      assert_non_null(rec);
      char block[32];
      snprintf(block, sizeof block, "block (%u,0,0)", r);
      wvt_assert_contains(rec, block);
      if (i == 0) snprintf(first[r], sizeof first[r], "%s", rec);
      else assert_string_equal(rec, first[r]);
    }
    /* a second launch adds to the counts; the records kept stay the first launch's */
    wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(GRID, 1, 1), wvt_dim(32, 1, 1), 0, args));
    assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 2 * GRID);
    assert_string_equal(wv_diag_record(vm, WV_DIAG_INVALID_READ, 0), first[0]);
    wv_destroy(vm);
  }
}

/* A race-free kernel with divergence, shuffles, shared memory and barriers: the same results and the same
 * statistics (but the time) on 1, 2 and 5 threads. */
static void test_stats_summed(void **state) {
  (void)state;
  enum { GRID = 37, BLOCK = 96 };
  uint32_t counts[] = {1, 2, 5};
  wv_stats ref = {0};
  uint32_t ref_out[GRID];
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    wv_vm *vm = make_vm(counts[i], NULL);
    const wv_kernel *k = wvt_get(load_threads(vm), vm, "blocksum");
    wv_devptr out = dev_zeros(vm, GRID * 4);
    void *args[] = {&out};
    wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(GRID, 1, 1), wvt_dim(BLOCK, 1, 1), 0, args));
    uint32_t got[GRID];
    assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
    for (uint32_t b = 0; b < GRID; b++) { /* the kernel's arithmetic, on the host */
      uint32_t sum = 0;
      for (uint32_t t = 0; t < BLOCK; t++) {
        uint32_t v = t * 7 + b;
        sum += (t & 1) ? v * 3 : v + 5;
      }
      assert_int_equal(got[b], sum);
    }
    wv_stats st;
    wv_get_stats(vm, &st);
    st.kernel_seconds = 0;
    assert_int_equal(st.ctas, GRID);
    assert_true(st.divergent_branches > 0 && st.barriers > 0 && st.collectives > 0 && st.shared_loads > 0);
    if (i == 0) {
      ref = st;
      memcpy(ref_out, got, sizeof got);
    } else {
      assert_memory_equal(&st, &ref, sizeof st);
      assert_memory_equal(got, ref_out, sizeof got);
    }
    wv_destroy(vm);
  }
}

/* ---- the watchdog ----------------------------------------------------------------------------------- */

static void test_watchdog_steps(void **state) {
  (void)state;
  wv_config cfg = {.threads = 2, .max_steps = 3000000};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  const wv_kernel *k = wvt_get(load_threads(vm), vm, "forever");
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(8, 1, 1), wvt_dim(64, 1, 1), 0, NULL), WV_ERR_WATCHDOG);
  wvt_assert_contains(wv_last_error(vm), "more than 3000000 warp instructions");
  wv_stats st;
  wv_get_stats(vm, &st);
  /* the count is the launch's over both threads: it stops near the limit, not at twice it */
  assert_true(st.warp_instructions > 3000000 && st.warp_instructions < 3000000 + 4 * 65536 + 2 * 1024 * 2);
  wv_destroy(vm);
}

static void test_watchdog_time(void **state) {
  (void)state;
  wv_config cfg = {.threads = 2, .timeout_seconds = 1};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  const wv_kernel *k = wvt_get(load_threads(vm), vm, "forever");
  time_t t0 = time(NULL);
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(8, 1, 1), wvt_dim(64, 1, 1), 0, NULL), WV_ERR_WATCHDOG);
  assert_true(time(NULL) - t0 < 10);
  wvt_assert_contains(wv_last_error(vm), "more than 1 s");
  wv_destroy(vm);
}

/* ---- configuration ------------------------------------------------------------------------------------ */

/* threads 0 is every core; more than 1024 is 1024; many more threads than blocks, or a single block, run. */
static void test_thread_counts(void **state) {
  (void)state;
  uint32_t counts[] = {0, 1, 64, 5000};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    wv_vm *vm = make_vm(counts[i], NULL);
    const wv_kernel *k = wvt_get(load_threads(vm), vm, "blocksum");
    wv_devptr out = dev_zeros(vm, 3 * 4);
    void *args[] = {&out};
    wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(3, 1, 1), wvt_dim(32, 1, 1), 0, args));
    wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args));
    wv_destroy(vm);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_printf_grid_order),
      cmocka_unit_test(test_first_fault_in_grid_order),
      cmocka_unit_test(test_later_blocks_abandoned),
      cmocka_unit_test(test_atomic_counter),
      cmocka_unit_test(test_diagnostics_grid_order),
      cmocka_unit_test(test_stats_summed),
      cmocka_unit_test(test_watchdog_steps),
      cmocka_unit_test(test_watchdog_time),
      cmocka_unit_test(test_thread_counts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
