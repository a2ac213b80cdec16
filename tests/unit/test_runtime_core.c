/*
 * test_runtime_core.c — the core-VM features a CUDA runtime needs, through the public C API:
 *  - cooperative launches (wv_launch_ex, WV_LAUNCH_COOPERATIVE): cooperative_groups' grid.sync()
 *    as nvcc 13 compiles it (tests/ptx/coop/coop.ptx), blocks waiting for each other through
 *    memory, per-block shared memory and cp.async with every block resident, the weak memory
 *    model, deadlock and watchdog reports, the resident-grid limit; %envreg1:%envreg2;
 *  - device malloc/free/new/delete (tests/ptx/runtime/runtime.ptx): per-lane allocations that
 *    outlive the launch, the heap limit, bounds checks, bad and double frees;
 *  - identity-mapped host memory (wv_map_host) and __managed__ variables;
 *  - wv_module_symbol for initialised .global/.const variables (cudaMemcpyToSymbol);
 *  - WV_ERR_ASSERT (device assert, with CUDA's line on stderr) and WV_ERR_MISALIGNED;
 *  - device memory committed at allocation, as cudaMalloc commits it: the first copy takes no page faults.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wv_test.h"

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

static wv_devptr dev_alloc(wv_vm *vm, size_t bytes) {
  wv_devptr p = 0;
  assert_int_equal(wv_malloc(vm, bytes, &p), WV_OK);
  assert_int_equal(wv_memset(vm, p, 0, bytes), WV_OK);
  return p;
}

static wv_status launch(wv_vm *vm, const wv_kernel *k, wv_dim3 grid, wv_dim3 block, uint32_t shared, void **args,
                        uint32_t flags) {
  return wv_launch_ex(vm, k, grid, block, shared, args, flags);
}

/* ---- cooperative launches ---------------------------------------------------------------------- */

/* grid_rounds: out[me] = sum over rounds r of (other * 7 + r), other = (me + blockDim.x) % n. */
static void check_grid_rounds(wv_vm *vm, wv_module *m, wv_dim3 grid, uint32_t block, int rounds) {
  const wv_kernel *k = wvt_get(m, vm, "grid_rounds");
  uint32_t n = grid.x * grid.y * grid.z * block;
  wv_devptr buf = dev_alloc(vm, n * 4), out = dev_alloc(vm, n * 4);
  void *args[] = {&buf, &out, &rounds};
  wvt_expect_ok(vm, launch(vm, k, grid, wvt_dim(block, 1, 1), 0, args, WV_LAUNCH_COOPERATIVE));
  int32_t *got = calloc(n, 4);
  assert_non_null(got);
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, n * 4), WV_OK);
  for (uint32_t me = 0; me < n; me++) {
    uint32_t other = (me + block) % n;
    int32_t want = 0;
    for (int r = 0; r < rounds; r++) want += (int32_t)(other * 7 + (uint32_t)r);
    if (got[me] != want) {
      int32_t g = got[me];
      free(got);
      fail_msg("thread %u: %d, want %d", me, g, want);
    }
  }
  free(got);
  assert_int_equal(wv_free(vm, buf), WV_OK);
  assert_int_equal(wv_free(vm, out), WV_OK);
}

static void test_coop_grid_sync(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load_src(vm, "tests/ptx/coop/coop.ptx");
  wv_stats_reset(vm);
  check_grid_rounds(vm, m, wvt_dim(3, 2, 1), 64, 5); /* 6 blocks (a 2-D grid), 10 grid syncs */
  wv_stats st;
  wv_get_stats(vm, &st);
  assert_int_equal(st.ctas, 6);
  assert_int_equal(st.launches, 1);
  check_grid_rounds(vm, m, wvt_dim(17, 1, 1), 96, 3); /* partial warps, odd block count */
  check_grid_rounds(vm, m, wvt_dim(1, 1, 1), 32, 4);  /* one block: the GPU master alone */
}

/* Several resident CTAs under the weak memory model: grid.sync's release/acquire still orders. */
static void test_coop_weak_memory(void **state) {
  (void)state;
  for (uint32_t seed = 1; seed <= 6; seed++) {
    wv_config cfg = {.memory_model = "weak", .seed = seed};
    wv_vm *vm = wv_create(&cfg);
    assert_non_null(vm);
    check_grid_rounds(vm, wvt_load_src(vm, "tests/ptx/coop/coop.ptx"), wvt_dim(4, 1, 1), 64, 3);
    wv_destroy(vm);
  }
}

/* Without the flag there is no grid workspace: grid.is_valid() is false and grid.sync() traps. */
static void test_noncoop_grid_sync_traps(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load_src(vm, "tests/ptx/coop/coop.ptx");
  const wv_kernel *k = wvt_get(m, vm, "grid_rounds");
  wv_devptr buf = dev_alloc(vm, 256 * 4), out = dev_alloc(vm, 256 * 4);
  int rounds = 2;
  void *args[] = {&buf, &out, &rounds};
  wv_status st = launch(vm, k, wvt_dim(4, 1, 1), wvt_dim(64, 1, 1), 0, args, 0);
  wvt_assert_status(vm, st, WV_ERR_TRAP);
  wvt_assert_contains(wv_last_error(vm), "trap executed");
  wvt_assert_contains(wv_last_error(vm), "'grid_rounds'");
  wvt_assert_contains(wv_last_error(vm), "block (0,0,0)");
  /* wv_launch is flags 0 */
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(4, 1, 1), wvt_dim(64, 1, 1), 0, args), WV_ERR_TRAP);

  const wv_kernel *kv = wvt_get(m, vm, "grid_valid");
  int32_t valid[128];
  void *vargs[] = {&out};
  wvt_expect_ok(vm, launch(vm, kv, wvt_dim(2, 1, 1), wvt_dim(64, 1, 1), 0, vargs, WV_LAUNCH_COOPERATIVE));
  assert_int_equal(wv_memcpy_dtoh(vm, valid, out, sizeof valid), WV_OK);
  for (int i = 0; i < 128; i++) assert_int_equal(valid[i], 1);
  wvt_expect_ok(vm, launch(vm, kv, wvt_dim(2, 1, 1), wvt_dim(64, 1, 1), 0, vargs, 0));
  assert_int_equal(wv_memcpy_dtoh(vm, valid, out, sizeof valid), WV_OK);
  for (int i = 0; i < 128; i++) assert_int_equal(valid[i], 0);
}

/* Block 0 spins on a flag only the last block sets: cooperative, it finishes; one block at a time (one
 * thread running the CTAs), block 0 spins forever and the watchdog stops it. */
static void test_coop_flag_wait(void **state) {
  (void)state;
  wv_config cfg = {.max_steps = 2000000, .threads = 1};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  const wv_kernel *k = wvt_get(wvt_load_src(vm, "tests/ptx/coop/coop.ptx"), vm, "flag_wait");
  wv_devptr flag = dev_alloc(vm, 4), out = dev_alloc(vm, 8);
  void *args[] = {&flag, &out};
  wvt_expect_ok(vm, launch(vm, k, wvt_dim(5, 1, 1), wvt_dim(64, 1, 1), 0, args, WV_LAUNCH_COOPERATIVE));
  int32_t got[2];
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, 8), WV_OK);
  assert_int_equal(got[0], 7 + 42);
  assert_int_equal(got[1], 42);
  assert_int_equal(wv_memset(vm, flag, 0, 4), WV_OK);
  wvt_assert_status(vm, launch(vm, k, wvt_dim(5, 1, 1), wvt_dim(64, 1, 1), 0, args, 0), WV_ERR_WATCHDOG);
  wvt_assert_contains(wv_last_error(vm), "block (0,0,0)");
  wv_destroy(vm);
}

/* Per-block shared-memory reductions with __syncthreads while all blocks are alive, then grid.sync. */
static void test_coop_shared_per_block(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_get(wvt_load_src(vm, "tests/ptx/coop/coop.ptx"), vm, "grid_sum");
  enum { B = 9, T = 128 };
  int32_t in[B * T], total = 0;
  for (int i = 0; i < B * T; i++) total += in[i] = (i * 37) % 101 - 50;
  wv_devptr din = dev_alloc(vm, sizeof in), part = dev_alloc(vm, B * 4), out = dev_alloc(vm, B * 4);
  assert_int_equal(wv_memcpy_htod(vm, din, in, sizeof in), WV_OK);
  void *args[] = {&din, &part, &out};
  wvt_expect_ok(vm, launch(vm, k, wvt_dim(B, 1, 1), wvt_dim(T, 1, 1), T * 4, args, WV_LAUNCH_COOPERATIVE));
  int32_t got[B];
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
  for (int b = 0; b < B; b++) assert_int_equal(got[b], total + b);
}

/* cp.async into each block's own shared tile with every block resident, in each delivery mode. */
static void test_coop_async_copies(void **state) {
  (void)state;
  const char *modes[] = {NULL, "eager", "random:3", "random:11"};
  enum { B = 6, T = 128 };
  for (size_t mi = 0; mi < sizeof modes / sizeof *modes; mi++) {
    wv_config cfg = {.async_delivery = modes[mi]};
    wv_vm *vm = wv_create(&cfg);
    assert_non_null(vm);
    const wv_kernel *k = wvt_get(wvt_load_src(vm, "tests/ptx/coop/coop.ptx"), vm, "async_neighbour");
    int32_t in[B * T], got[B * T];
    for (int i = 0; i < B * T; i++) in[i] = i * 3 + 1;
    wv_devptr din = dev_alloc(vm, sizeof in), mid = dev_alloc(vm, sizeof in), out = dev_alloc(vm, sizeof in);
    assert_int_equal(wv_memcpy_htod(vm, din, in, sizeof in), WV_OK);
    void *args[] = {&din, &mid, &out};
    wvt_expect_ok(vm, launch(vm, k, wvt_dim(B, 1, 1), wvt_dim(T, 1, 1), 0, args, WV_LAUNCH_COOPERATIVE));
    assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
    for (int b = 0; b < B; b++)
      for (int t = 0; t < T; t++) {
        int nb = (b + 1) % B;
        assert_int_equal(got[b * T + t], in[nb * T + (T - 1 - t)] * 2);
      }
    wv_destroy(vm);
  }
}

static const char STUCK_PTX[] = HDR
    ".visible .entry stuck(.param .u64 out)\n{\n"
    ".reg .b32 %r<4>; .reg .pred %p<3>;\n"
    "mov.u32 %r1, %ctaid.x; mov.u32 %r2, %tid.x;\n"
    "setp.ne.u32 %p1, %r1, 2;\n"
    "@%p1 bra DONE;\n"
    "setp.ge.u32 %p2, %r2, 32;\n"
    "@%p2 bra DONE;\n"
    "bar.sync 1, 64; // STUCK\n"
    "DONE:\nret;\n}\n"
    ".visible .entry spin(.param .u64 flag)\n{\n"
    ".reg .b32 %r<2>; .reg .b64 %rd<2>; .reg .pred %p<2>;\n"
    "ld.param.u64 %rd1, [flag];\n"
    "LOOP:\nld.volatile.global.u32 %r1, [%rd1];\n"
    "setp.eq.u32 %p1, %r1, 0;\n"
    "@%p1 bra LOOP;\nret;\n}\n";

/* A block blocked at a barrier that cannot complete is reported while other blocks are resident,
 * and a runaway cooperative kernel is stopped by the watchdog. */
static void test_coop_deadlock_and_watchdog(void **state) {
  (void)state;
  wv_config cfg = {.max_steps = 200000};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  wv_module *m = wvt_load(vm, STUCK_PTX);
  const wv_kernel *k = wvt_get(m, vm, "stuck");
  wv_devptr flag = dev_alloc(vm, 4);
  void *args[] = {&flag};
  wv_status st = launch(vm, k, wvt_dim(4, 1, 1), wvt_dim(64, 1, 1), 0, args, WV_LAUNCH_COOPERATIVE);
  wvt_assert_status(vm, st, WV_ERR_DEADLOCK);
  const char *e = wv_last_error(vm);
  wvt_assert_contains(e, "barrier deadlock: 32 of 64 threads arrived at barrier 1");
  wvt_assert_contains(e, "block (2,0,0)");
  char want[64];
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(STUCK_PTX, "STUCK"));
  wvt_assert_contains(e, want);
  st = launch(vm, wvt_get(m, vm, "spin"), wvt_dim(8, 1, 1), wvt_dim(32, 1, 1), 0, args, WV_LAUNCH_COOPERATIVE);
  wvt_assert_status(vm, st, WV_ERR_WATCHDOG);
  wv_destroy(vm);
}

/* Grids above the resident limit are refused with a message; flags are checked. */
static void test_coop_limits(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load_src(vm, "tests/ptx/coop/coop.ptx");
  const wv_kernel *k = wvt_get(m, vm, "grid_valid");
  uint32_t lim256 = wv_max_coop_blocks(k, wvt_dim(256, 1, 1), 0), lim1024 = wv_max_coop_blocks(k, wvt_dim(1024, 1, 1), 0);
  assert_true(lim256 >= 132 * 8);   /* at least what an H200 holds (132 SMs x 2048 threads) */
  assert_true(lim1024 >= 132 * 2);
  assert_true(lim256 <= 65536 && lim1024 < lim256);
  assert_int_equal(wv_max_coop_blocks(k, wvt_dim(2048, 1, 1), 0), 0);          /* not a valid block */
  assert_int_equal(wv_max_coop_blocks(k, wvt_dim(32, 1, 1), 300 * 1024), 0);   /* too much shared */
  assert_int_equal(wv_max_coop_blocks(NULL, wvt_dim(32, 1, 1), 0), 0);
  wv_devptr out = dev_alloc(vm, 70000 * 4);
  void *args[] = {&out};
  wv_status st = launch(vm, k, wvt_dim(lim1024 + 1, 1, 1), wvt_dim(1024, 1, 1), 0, args, WV_LAUNCH_COOPERATIVE);
  wvt_assert_status(vm, st, WV_ERR_LAUNCH);
  wvt_assert_contains(wv_last_error(vm), "cooperative launch");
  wvt_assert_contains(wv_last_error(vm), "resident");
  st = launch(vm, k, wvt_dim(65537, 1, 1), wvt_dim(1, 1, 1), 0, args, WV_LAUNCH_COOPERATIVE);
  wvt_assert_status(vm, st, WV_ERR_LAUNCH);
  wvt_assert_status(vm, launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args, 4u), WV_ERR_INVALID);
  wvt_assert_status(vm, launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args, 0x81u), WV_ERR_INVALID);
  /* a non-cooperative grid of the same size has no limit but memory (it is not resident) */
  wvt_expect_ok(vm, launch(vm, k, wvt_dim(70000, 1, 1), wvt_dim(1, 1, 1), 0, args, 0));
}

static const char ENVREG_PTX[] = HDR
    ".visible .entry envregs(.param .u64 out)\n{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
    "ld.param.u64 %rd1, [out];\n"
    "mov.u32 %r1, %envreg1; mov.u32 %r2, %envreg2; mov.u32 %r3, %envreg0; mov.u32 %r4, %envreg31;\n"
    "cvt.u64.u32 %rd2, %r1; shl.b64 %rd2, %rd2, 32; cvt.u64.u32 %rd3, %r2; or.b64 %rd2, %rd2, %rd3;\n"
    "st.global.u64 [%rd1], %rd2;\n"
    "st.global.u32 [%rd1+8], %r3;\n"
    "st.global.u32 [%rd1+12], %r4;\n"
    "setp.eq.u64 %p1, %rd2, 0;\n"
    "@%p1 bra DONE;\n"
    "ld.global.u32 %r5, [%rd2];\n"
    "ld.global.u32 %r6, [%rd2+4];\n"
    "st.global.u32 [%rd1+16], %r5;\n"
    "st.global.u32 [%rd1+20], %r6;\n"
    "DONE:\nret;\n}\n";

/* %envreg1:%envreg2 is the grid workspace {wsSize, barrier} of a cooperative launch, 0 otherwise;
 * the workspace is gone after the launch; %envreg0 and %envreg3..31 read 0; %envreg32 does not exist. */
static void test_envregs(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, ENVREG_PTX, "envregs");
  wv_devptr out = dev_alloc(vm, 24);
  void *args[] = {&out};
  wvt_expect_ok(vm, launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args, WV_LAUNCH_COOPERATIVE));
  uint32_t got[6];
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
  uint64_t ws = (uint64_t)got[1] << 32 | got[0];
  assert_true(ws != 0 && ws % 8 == 0);
  assert_int_equal(got[2], 0);
  assert_int_equal(got[3], 0);
  assert_int_equal(got[4], 8); /* wsSize */
  assert_int_equal(got[5], 0); /* barrier: no grid.sync yet */
  uint32_t probe;
  assert_int_equal(wv_memcpy_dtoh(vm, &probe, ws, 4), WV_ERR_INVALID); /* freed with its launch */
  assert_int_equal(wv_memset(vm, out, 0xff, 24), WV_OK);
  wvt_expect_ok(vm, launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args, 0));
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
  assert_int_equal(got[0], 0);
  assert_int_equal(got[1], 0);
  assert_int_equal(got[4], 0xffffffffu); /* not read */
  static const char BAD[] = HDR ".visible .entry e()\n{\n.reg .b32 %r1;\nmov.u32 %r1, %envreg32;\nret;\n}\n";
  wv_module *bm = NULL;
  assert_int_not_equal(wv_module_load_string(vm, BAD, strlen(BAD), "bad.ptx", &bm), WV_OK);
  wvt_assert_contains(wv_last_error(vm), "envreg32");
}

/* ---- device malloc / free / new / delete ------------------------------------------------------- */

static void test_dmalloc_persists_across_launches(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load_src(vm, "tests/ptx/runtime/runtime.ptx");
  enum { T = 48, N = 10 };
  wv_devptr ptrs = dev_alloc(vm, T * 8), sums = dev_alloc(vm, T * 4);
  int n = N;
  void *args[] = {&ptrs, &n};
  wvt_expect_ok(vm, launch(vm, wvt_get(m, vm, "dm_alloc"), wvt_dim(1, 1, 1), wvt_dim(T, 1, 1), 0, args, 0));
  uint64_t p[T];
  assert_int_equal(wv_memcpy_dtoh(vm, p, ptrs, sizeof p), WV_OK);
  for (int t = 0; t < T; t++) {
    assert_true(p[t] != 0);
    assert_int_equal(p[t] % 16, 0);
    for (int u = 0; u < t; u++) assert_true(p[u] != p[t]); /* one allocation per lane */
    int32_t vals[N];
    assert_int_equal(wv_memcpy_dtoh(vm, vals, p[t], sizeof vals), WV_OK); /* cudaMemcpy from it */
    for (int i = 0; i < N; i++) assert_int_equal(vals[i], t * 100 + i);
    assert_int_equal(wv_memcpy_dtoh(vm, vals, p[t], sizeof vals + 4), WV_ERR_INVALID); /* its size */
  }
  wvt_assert_status(vm, wv_free(vm, p[0]), WV_ERR_INVALID); /* cudaFree of a device-malloc pointer */
  wvt_assert_contains(wv_last_error(vm), "device malloc");
  void *args2[] = {&ptrs, &n, &sums};
  wvt_expect_ok(vm, launch(vm, wvt_get(m, vm, "dm_sum_free"), wvt_dim(1, 1, 1), wvt_dim(T, 1, 1), 0, args2, 0));
  int32_t s[T];
  assert_int_equal(wv_memcpy_dtoh(vm, s, sums, sizeof s), WV_OK);
  for (int t = 0; t < T; t++) assert_int_equal(s[t], t * 100 * N + N * (N - 1) / 2);
  uint32_t probe;
  for (int t = 0; t < T; t++) assert_int_equal(wv_memcpy_dtoh(vm, &probe, p[t], 4), WV_ERR_INVALID); /* freed */
}

static void test_dmalloc_heap_limit(void **state) {
  (void)state;
  wv_config cfg = {.device_heap_bytes = 4096};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  const wv_kernel *one = wvt_get(wvt_load_src(vm, "tests/ptx/runtime/runtime.ptx"), vm, "dm_one");
  wv_devptr out = dev_alloc(vm, 8);
  uint64_t got, bytes;
  void *args[] = {&bytes, &out};
#define ONE(b) (bytes = (b), wvt_expect_ok(vm, launch(vm, one, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args, 0)), \
                assert_int_equal(wv_memcpy_dtoh(vm, &got, out, 8), WV_OK), got)
  assert_int_equal(ONE(4097), 0);       /* more than the heap */
  uint64_t a = ONE(1000), b = ONE(1000), c = ONE(1000), d = ONE(1000);
  assert_true(a && b && c && d);         /* 4 x 1008 bytes fit */
  assert_int_equal(ONE(100), 0);         /* exhausted: NULL, not a fault */
  assert_int_equal(ONE(0) != 0, 1);      /* malloc(0) still fits in what is left (16 bytes) */
  assert_int_equal(wv_set_device_heap(vm, 8u << 20), WV_OK); /* cudaDeviceSetLimit */
  assert_true(ONE(1u << 20) != 0);
  assert_int_equal(wv_set_device_heap(vm, 0), WV_OK);        /* back to the 8 MiB default */
  assert_int_equal(ONE((8u << 20) + 1), 0);
  assert_true(ONE(4u << 20) != 0);
  wv_destroy(vm);
#undef ONE
}

/* Device-malloc'd memory is bounds-checked like any allocation: reading past one is an invalid read (the
 * GPU maps the memory around it), a fault with --check memcheck. */
static void test_dmalloc_bounds(void **state) {
  wv_config cfg = {.checks = WV_CHECK_MEMCHECK};
  for (int memcheck = 0; memcheck < 2; memcheck++) {
    wv_vm *vm = memcheck ? wv_create(&cfg) : *state;
    wv_module *m = wvt_load_src(vm, "tests/ptx/runtime/runtime.ptx");
    wv_devptr ptrs = dev_alloc(vm, 32 * 8), sums = dev_alloc(vm, 32 * 4);
    int n = 4;
    void *args[] = {&ptrs, &n};
    wvt_expect_ok(vm, launch(vm, wvt_get(m, vm, "dm_alloc"), wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args, 0));
    uint64_t p0;
    assert_int_equal(wv_memcpy_dtoh(vm, &p0, ptrs, 8), WV_OK);
    int big = 5; /* reads one int past each 4-int allocation */
    void *args2[] = {&ptrs, &big, &sums};
    wv_status st = launch(vm, wvt_get(m, vm, "dm_sum_free"), wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args2, 0);
    char want[64];
    snprintf(want, sizeof want, "at address 0x%llx", (unsigned long long)(p0 + 16));
    if (memcheck) {
      wvt_assert_status(vm, st, WV_ERR_FAULT);
      wvt_assert_contains(wv_last_error(vm), "out-of-bounds global load of 4 bytes");
      wvt_assert_contains(wv_last_error(vm), want);
      wvt_assert_contains(wv_last_error(vm), "'dm_sum_free'");
      wv_destroy(vm);
    } else {
      wvt_expect_ok(vm, st);
      assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 32);
      wvt_assert_contains(wv_diag_record(vm, WV_DIAG_INVALID_READ, 0), want);
      wvt_assert_contains(wv_diag_record(vm, WV_DIAG_INVALID_READ, 0), "'dm_sum_free'");
    }
  }
}

static void test_dmalloc_bad_free(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load_src(vm, "tests/ptx/runtime/runtime.ptx");
  const wv_kernel *kfree = wvt_get(m, vm, "dm_free");
  uint64_t null = 0;
  void *a0[] = {&null};
  wvt_expect_ok(vm, launch(vm, kfree, wvt_dim(2, 1, 1), wvt_dim(32, 1, 1), 0, a0, 0)); /* free(NULL) */
  /* free of host-allocated (wv_malloc) memory */
  wv_devptr buf = dev_alloc(vm, 64);
  void *a1[] = {&buf};
  wv_status st = launch(vm, kfree, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, a1, 0);
  wvt_assert_status(vm, st, WV_ERR_FAULT);
  char want[64];
  snprintf(want, sizeof want, "at address 0x%llx", (unsigned long long)buf);
  wvt_assert_contains(wv_last_error(vm), "free of a pointer that is not a live allocation of device malloc");
  wvt_assert_contains(wv_last_error(vm), want);
  wvt_assert_contains(wv_last_error(vm), "'dm_free'");
  wvt_assert_contains(wv_last_error(vm), "thread (0,0,0)");
  wvt_assert_contains(wv_last_error(vm), "PTX line");
  assert_int_equal(wv_free(vm, buf), WV_OK); /* still the host's */
  /* double free: thread 0 of block 1 frees a pointer dm_sum_free freed already */
  wv_devptr ptrs = dev_alloc(vm, 8), sums = dev_alloc(vm, 4);
  int n = 2;
  void *aa[] = {&ptrs, &n}, *as[] = {&ptrs, &n, &sums};
  wvt_expect_ok(vm, launch(vm, wvt_get(m, vm, "dm_alloc"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, aa, 0));
  uint64_t p;
  assert_int_equal(wv_memcpy_dtoh(vm, &p, ptrs, 8), WV_OK);
  wvt_expect_ok(vm, launch(vm, wvt_get(m, vm, "dm_sum_free"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, as, 0));
  void *a2[] = {&p};
  st = launch(vm, kfree, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, a2, 0);
  wvt_assert_status(vm, st, WV_ERR_FAULT);
  wvt_assert_contains(wv_last_error(vm), "double free");
  snprintf(want, sizeof want, "at address 0x%llx", (unsigned long long)p);
  wvt_assert_contains(wv_last_error(vm), want);
  /* a pointer into the middle of an allocation */
  wvt_expect_ok(vm, launch(vm, wvt_get(m, vm, "dm_alloc"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, aa, 0));
  assert_int_equal(wv_memcpy_dtoh(vm, &p, ptrs, 8), WV_OK);
  p += 4;
  wvt_assert_status(vm, launch(vm, kfree, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, a2, 0), WV_ERR_FAULT);
}

/* Many small allocations and frees (16384 lanes, twice): the table stays sorted and fast. */
static void test_dmalloc_many(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load_src(vm, "tests/ptx/runtime/runtime.ptx");
  enum { G = 64, T = 256 };
  wv_devptr ptrs = dev_alloc(vm, G * T * 8), sums = dev_alloc(vm, G * T * 4);
  int n = 3;
  /* dm_alloc/dm_sum_free index by threadIdx.x: one block of T threads at a time, G times over */
  static uint64_t all[G * T];
  for (int round = 0; round < 2; round++) {
    for (int g = 0; g < G; g++) {
      wv_devptr p = ptrs + (wv_devptr)g * T * 8;
      void *a1[] = {&p, &n};
      wvt_expect_ok(vm, launch(vm, wvt_get(m, vm, "dm_alloc"), wvt_dim(1, 1, 1), wvt_dim(T, 1, 1), 0, a1, 0));
    }
    assert_int_equal(wv_memcpy_dtoh(vm, all, ptrs, sizeof all), WV_OK);
    for (int i = 1; i < G * T; i++) assert_true(all[i] > all[i - 1]); /* increasing, never reused */
    for (int g = 0; g < G; g++) {
      wv_devptr p = ptrs + (wv_devptr)g * T * 8, q = sums + (wv_devptr)g * T * 4;
      void *a2[] = {&p, &n, &q};
      wvt_expect_ok(vm, launch(vm, wvt_get(m, vm, "dm_sum_free"), wvt_dim(1, 1, 1), wvt_dim(T, 1, 1), 0, a2, 0));
    }
    int32_t s0;
    assert_int_equal(wv_memcpy_dtoh(vm, &s0, sums + (G * T - 1) * 4, 4), WV_OK);
    assert_int_equal(s0, (T - 1) * 100 * 3 + 3);
    uint32_t probe;
    assert_int_equal(wv_memcpy_dtoh(vm, &probe, all[G * T / 2], 4), WV_ERR_INVALID);
  }
  /* the whole heap is free again: one 8 MiB allocation fits */
  uint64_t bytes = 8u << 20, got = 0;
  wv_devptr out = dev_alloc(vm, 8);
  void *a3[] = {&bytes, &out};
  wvt_expect_ok(vm, launch(vm, wvt_get(m, vm, "dm_one"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, a3, 0));
  assert_int_equal(wv_memcpy_dtoh(vm, &got, out, 8), WV_OK);
  assert_true(got != 0);
}

static void test_new_delete(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_get(wvt_load_src(vm, "tests/ptx/runtime/runtime.ptx"), vm, "dm_new");
  wv_devptr out = dev_alloc(vm, 64 * 8);
  void *args[] = {&out};
  wvt_expect_ok(vm, launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(64, 1, 1), 0, args, 0));
  int64_t got[64];
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
  for (int t = 0; t < 64; t++) assert_int_equal(got[t], t * 1000 + 9 + 3); /* both 16-byte aligned */
  /* everything was deleted: the whole heap is free again */
  assert_int_equal(wv_set_device_heap(vm, 64 * 64), WV_OK); /* exactly one launch's worth */
  wvt_expect_ok(vm, launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(64, 1, 1), 0, args, 0));
}

/* ---- identity-mapped host memory and managed variables ----------------------------------------- */

static const char SCALE_PTX[] = HDR
    ".visible .entry scale(.param .u64 p, .param .u32 n)\n{\n"
    ".reg .b32 %r<6>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
    "ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];\n"
    "mov.u32 %r2, %tid.x;\n"
    "setp.ge.u32 %p1, %r2, %r1;\n"
    "@%p1 bra DONE;\n"
    "mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2;\n"
    "ld.u32 %r3, [%rd3]; mul.lo.u32 %r4, %r3, 3; st.u32 [%rd3], %r4; // GENERIC\n"
    "DONE:\nret;\n}\n";

static void scale(wv_vm *vm, const wv_kernel *k, void *p, uint32_t n, uint32_t threads, wv_status want) {
  uint64_t dp = (uint64_t)(uintptr_t)p;
  void *args[] = {&dp, &n};
  wvt_assert_status(vm, launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(threads, 1, 1), 0, args, 0), want);
}

/* An allocation's pages are made when it is (heap.c host_zalloc: up to 1 GiB, as a GPU's cudaMalloc commits its
 * memory, while the live allocations stay within a quarter of the host's), so the program's first copy to it
 * runs without the kernel's page faults: 4 MiB (small pages) and 16 MiB (huge pages where the system gives them)
 * took 1024 and 8 faults or more in their first copy before. Skipped where the kernel cannot make pages on request
 * (MADV_POPULATE_WRITE, Linux 5.14) and under AddressSanitizer, whose shadow of the copied bytes faults in at the
 * copy. */
static void test_alloc_committed(void **state) {
  wv_vm *vm = *state;
#if defined(__SANITIZE_ADDRESS__)
  skip();
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  skip();
#endif
#endif
#ifndef MADV_POPULATE_WRITE
  skip();
#else
  void *probe = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(probe != MAP_FAILED);
  int can = madvise(probe, 1 << 16, MADV_POPULATE_WRITE) == 0;
  munmap(probe, 1 << 16);
  if (!can) skip();
  const size_t sizes[] = {4u << 20, 16u << 20};
  uint8_t *h = malloc(16u << 20);
  assert_non_null(h);
  memset(h, 0x5a, 16u << 20); /* (the source's own pages made first) */
  for (int i = 0; i < 2; i++) {
    wv_devptr d;
    assert_int_equal(wv_malloc(vm, sizes[i], &d), WV_OK);
    struct rusage a, b;
    getrusage(RUSAGE_SELF, &a);
    assert_int_equal(wv_memcpy_htod(vm, d, h, sizes[i]), WV_OK);
    getrusage(RUSAGE_SELF, &b);
    long faults = b.ru_minflt - a.ru_minflt;
    if (faults >= 4) fail_msg("%zu bytes: %ld page faults in the first copy", sizes[i], faults);
    uint8_t back[64];
    assert_int_equal(wv_memcpy_dtoh(vm, back, d + sizes[i] - 64, 64), WV_OK);
    for (int j = 0; j < 64; j++) assert_int_equal(back[j], 0x5a);
    assert_int_equal(wv_free(vm, d), WV_OK);
  }
  free(h);
#endif
}

static void test_map_host(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, SCALE_PTX, "scale");
  uint32_t *lo = calloc(64, 4);                      /* the host heap (low addresses) */
  size_t big = 1u << 20;
  uint32_t *hi = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); /* high */
  assert_non_null(lo);
  assert_true(hi != MAP_FAILED);
  wv_devptr before = dev_alloc(vm, 64);
  assert_int_equal(wv_map_host(vm, lo, 64 * 4), WV_OK);
  assert_int_equal(wv_map_host(vm, hi, big), WV_OK);
  wv_devptr after = dev_alloc(vm, 64); /* vm allocations keep working between mappings */
  for (uint32_t i = 0; i < 64; i++) lo[i] = i, hi[i] = 1000 + i;
  scale(vm, k, lo, 64, 64, WV_OK);
  scale(vm, k, hi, 64, 64, WV_OK);
  for (uint32_t i = 0; i < 64; i++) {
    assert_int_equal(lo[i], 3 * i); /* the host sees the kernel's stores at the same pointer */
    assert_int_equal(hi[i], 3 * (1000 + i));
  }
  /* the device API reaches it too, by the host address */
  uint32_t v = 77, r = 0;
  assert_int_equal(wv_memcpy_htod(vm, (wv_devptr)(uintptr_t)(lo + 5), &v, 4), WV_OK);
  assert_int_equal(lo[5], 77);
  assert_int_equal(wv_memcpy_dtoh(vm, &r, (wv_devptr)(uintptr_t)(hi + 7), 4), WV_OK);
  assert_int_equal(r, 3 * 1007);
  /* wv_pointer_query finds the allocation around any address in it (cudaPointerGetAttributes) */
  wv_devptr base = 0;
  size_t size = 0;
  assert_int_equal(wv_pointer_query(vm, (wv_devptr)(uintptr_t)(lo + 5), &base, &size), WV_OK);
  assert_true(base == (wv_devptr)(uintptr_t)lo && size == 64 * 4);
  assert_int_equal(wv_pointer_query(vm, (wv_devptr)(uintptr_t)hi + big - 1, &base, &size), WV_OK);
  assert_true(base == (wv_devptr)(uintptr_t)hi && size == big);
  assert_int_equal(wv_pointer_query(vm, after + 63, &base, &size), WV_OK);
  assert_true(base == after && size == 64);
  assert_int_equal(wv_pointer_query(vm, after + 64, &base, &size), WV_ERR_NOT_FOUND);
  assert_int_equal(wv_pointer_query(vm, (wv_devptr)(uintptr_t)&size, &base, &size), WV_ERR_NOT_FOUND);
  /* bounds: one element past the mapping faults at that address */
  scale(vm, k, lo, 65, 65, WV_ERR_FAULT);
  char want[64];
  snprintf(want, sizeof want, "at address %p", (void *)(lo + 64));
  wvt_assert_contains(wv_last_error(vm), want);
  /* refused: overlaps, reserved ranges, empty */
  wvt_assert_status(vm, wv_map_host(vm, lo + 8, 16), WV_ERR_INVALID);
  wvt_assert_contains(wv_last_error(vm), "overlaps");
  wvt_assert_status(vm, wv_map_host(vm, (uint8_t *)lo - 8, 16), WV_ERR_INVALID);
  wvt_assert_status(vm, wv_map_host(vm, (void *)(uintptr_t)(before - 64), 4096), WV_ERR_INVALID);
  wvt_assert_contains(wv_last_error(vm), "device heap");
  wvt_assert_status(vm, wv_map_host(vm, (void *)(uintptr_t)0x10000000100ull, 64), WV_ERR_INVALID);
  wvt_assert_contains(wv_last_error(vm), "shared window");
  wvt_assert_status(vm, wv_map_host(vm, (void *)(uintptr_t)0x1fffffffff0ull, 64), WV_ERR_INVALID);
  wvt_assert_contains(wv_last_error(vm), "local window");
  wvt_assert_status(vm, wv_map_host(vm, hi, 0), WV_ERR_INVALID);
  wvt_assert_status(vm, wv_map_host(vm, NULL, 16), WV_ERR_INVALID);
  /* only wv_unmap_host removes a mapping; the memory stays the caller's */
  wvt_assert_status(vm, wv_free(vm, (wv_devptr)(uintptr_t)lo), WV_ERR_INVALID);
  wvt_assert_status(vm, wv_unmap_host(vm, lo + 1), WV_ERR_INVALID);
  wvt_assert_status(vm, wv_unmap_host(vm, (void *)(uintptr_t)before), WV_ERR_INVALID);
  assert_int_equal(wv_unmap_host(vm, lo), WV_OK);
  wvt_assert_status(vm, wv_unmap_host(vm, lo), WV_ERR_INVALID);
  scale(vm, k, lo, 1, 1, WV_ERR_FAULT); /* no longer device memory */
  lo[0] = 5;                           /* and still the host's */
  assert_int_equal(wv_map_host(vm, lo, 64 * 4), WV_OK); /* may be mapped again */
  scale(vm, k, lo, 1, 1, WV_OK);
  assert_int_equal(lo[0], 15);
  assert_int_equal(wv_unmap_host(vm, lo), WV_OK);
  assert_int_equal(wv_free(vm, before), WV_OK);
  assert_int_equal(wv_free(vm, after), WV_OK);
  /* hi stays mapped: destroying the vm must not free it */
  wv_destroy(vm);
  *state = wv_create(NULL);
  hi[0] = 1;
  munmap(hi, big);
  free(lo);
}

/* __managed__ variables live at host-dereferenceable addresses; initialised .global/.const and
 * uninitialised .global variables are found by wv_module_symbol and written by memcpy (cudaMemcpyToSymbol). */
static void test_module_variables(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load_src(vm, "tests/ptx/runtime/runtime.ptx");
  wv_devptr counter, mvec, dev_init, cfac, plain;
  size_t sc, sv, si, sf, sp;
  assert_int_equal(wv_module_symbol(m, "counter", &counter, &sc), WV_OK);
  assert_int_equal(wv_module_symbol(m, "mvec", &mvec, &sv), WV_OK);
  assert_int_equal(wv_module_symbol(m, "dev_init", &dev_init, &si), WV_OK);
  assert_int_equal(wv_module_symbol(m, "cfac", &cfac, &sf), WV_OK);
  assert_int_equal(wv_module_symbol(m, "plain", &plain, &sp), WV_OK);
  assert_int_equal(sc, 4);
  assert_int_equal(sv, 256);
  assert_int_equal(si, 16);
  assert_int_equal(sf, 12);
  assert_int_equal(sp, 4);
  wvt_assert_status(vm, wv_module_symbol(m, "nope", NULL, NULL), WV_ERR_NOT_FOUND);
  /* managed: the host reads the initialiser through the pointer itself */
  int32_t *hc = (int32_t *)(uintptr_t)counter;
  float *hv = (float *)(uintptr_t)mvec;
  assert_int_equal(*hc, 5);
  for (int i = 0; i < 64; i++) hv[i] = (float)(i * 10);
  /* initialised .global and .const: readable (cudaMemcpyFromSymbol) */
  int32_t di[4];
  float cf[3];
  assert_int_equal(wv_memcpy_dtoh(vm, di, dev_init, sizeof di), WV_OK);
  assert_int_equal(wv_memcpy_dtoh(vm, cf, cfac, sizeof cf), WV_OK);
  assert_int_equal(di[0], 1);
  assert_int_equal(di[3], 4);
  assert_true(cf[0] == 0.5f && cf[1] == 2.0f && cf[2] == 4.0f);
  /* cudaMemcpyToSymbol on .const and .global */
  const float cf2[3] = {1.0f, 3.0f, 5.0f};
  const int32_t pl = 100;
  assert_int_equal(wv_memcpy_htod(vm, cfac, cf2, sizeof cf2), WV_OK);
  assert_int_equal(wv_memcpy_htod(vm, plain, &pl, 4), WV_OK);
  wvt_assert_status(vm, wv_memcpy_htod(vm, cfac, cf2, sizeof cf2 + 4), WV_ERR_INVALID);
  wv_devptr out = dev_alloc(vm, 64 * 4);
  void *args[] = {&out};
  wvt_expect_ok(vm, launch(vm, wvt_get(m, vm, "mod_vars"), wvt_dim(1, 1, 1), wvt_dim(64, 1, 1), 0, args, 0));
  float got[64];
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
  for (int t = 0; t < 64; t++) {
    float want = (float)(t * 10) + (float)t * cf2[t % 3] + (float)(t % 4 + 1) + 100.0f;
    assert_true(got[t] == want);
    assert_true(hv[t] == want); /* the managed array, straight from the host */
  }
  assert_int_equal(*hc, 5 + 64);
  wv_devptr base = 0;
  size_t size = 0;
  assert_int_equal(wv_pointer_query(vm, mvec + 100, &base, &size), WV_OK);
  assert_true(base == mvec && size == 256);
  assert_int_equal(wv_pointer_query(vm, cfac + 11, &base, &size), WV_OK);
  assert_true(base == cfac && size == 12);
  wvt_assert_status(vm, wv_free(vm, counter), WV_ERR_INVALID); /* the module owns them */
  wvt_assert_status(vm, wv_free(vm, dev_init), WV_ERR_INVALID);
  wvt_assert_status(vm, wv_unmap_host(vm, hc), WV_ERR_INVALID);
  /* unloading the module frees them: the address is no longer device memory */
  wv_module_unload(m);
  int32_t probe;
  wvt_assert_status(vm, wv_memcpy_dtoh(vm, &probe, counter, 4), WV_ERR_INVALID);
  wvt_assert_status(vm, wv_memcpy_dtoh(vm, &probe, dev_init, 4), WV_ERR_INVALID);
}

/* ---- assert vs trap vs misaligned ---------------------------------------------------------------- */

static void test_assert_status(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_get(wvt_load_src(vm, "tests/ptx/runtime/runtime.ptx"), vm, "assert_fail");
  wv_devptr out = dev_alloc(vm, 16 * 4);
  void *args[] = {&out};
  /* capture stderr, where CUDA's assertion line goes */
  char path[] = "/tmp/wv_assert_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  assert_true(saved >= 0);
  dup2(fd, 2);
  wv_status st = launch(vm, k, wvt_dim(2, 1, 1), wvt_dim(8, 1, 1), 0, args, 0);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  char buf[1024] = "";
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  close(fd);
  unlink(path);
  assert_true(n > 0);
  buf[n] = 0;
  wvt_assert_status(vm, st, WV_ERR_ASSERT);
  wvt_assert_contains(wv_last_error(vm), "device-side assertion `v != blockDim.x + 3` failed");
  wvt_assert_contains(wv_last_error(vm), "block (1,0,0), thread (3,0,0)");
  wvt_assert_contains(buf, "runtime.cu:");
  wvt_assert_contains(buf, ": block: [1,0,0], thread: [3,0,0] Assertion `v != blockDim.x + 3` failed.\n");
  assert_string_equal(wv_status_name(WV_ERR_ASSERT), "device-side assert triggered");
  assert_string_equal(wv_status_name(WV_ERR_MISALIGNED), "misaligned address");
  assert_string_equal(wv_status_name(WV_ERR_TRAP), "trap");
}

static const char MIS_PTX[] = HDR
    ".visible .entry mis(.param .u64 p)\n{\n"
    ".reg .b64 %rd<3>; .reg .b32 %r1;\n"
    "ld.param.u64 %rd1, [p]; add.s64 %rd2, %rd1, 2;\n"
    "atom.global.add.u32 %r1, [%rd2], 1;\n"
    "ret;\n}\n";

static void test_misaligned_status(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, MIS_PTX, "mis");
  wv_devptr p = dev_alloc(vm, 16);
  void *args[] = {&p};
  wvt_assert_status(vm, launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args, 0), WV_ERR_MISALIGNED);
  wvt_assert_contains(wv_last_error(vm), "misaligned global");
  uint64_t bad = p + 62; /* the kernel adds 2: out of bounds but aligned, a plain fault */
  void *a2[] = {&bad};
  wvt_assert_status(vm, launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, a2, 0), WV_ERR_FAULT);
  wvt_assert_contains(wv_last_error(vm), "out-of-bounds global");
  bad = p + 64; /* misaligned and out of bounds: the alignment is checked first, as on the GPU */
  wvt_assert_status(vm, launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, a2, 0), WV_ERR_MISALIGNED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_coop_grid_sync, wvt_setup, wvt_teardown),
    cmocka_unit_test(test_coop_weak_memory),
    cmocka_unit_test_setup_teardown(test_noncoop_grid_sync_traps, wvt_setup, wvt_teardown),
    cmocka_unit_test(test_coop_flag_wait),
    cmocka_unit_test_setup_teardown(test_coop_shared_per_block, wvt_setup, wvt_teardown),
    cmocka_unit_test(test_coop_async_copies),
    cmocka_unit_test(test_coop_deadlock_and_watchdog),
    cmocka_unit_test_setup_teardown(test_coop_limits, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_envregs, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_dmalloc_persists_across_launches, wvt_setup, wvt_teardown),
    cmocka_unit_test(test_dmalloc_heap_limit),
    cmocka_unit_test_setup_teardown(test_dmalloc_bounds, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_dmalloc_bad_free, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_dmalloc_many, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_new_delete, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_map_host, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_alloc_committed, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_module_variables, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_assert_status, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_misaligned_status, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
