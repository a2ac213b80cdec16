/*
 * test_cdp.c — dynamic parallelism through the C API (tests/ptx/cdp/cdp.ptx, nvcc -rdc=true): kernels
 * launching kernels run before wv_launch returns, on one thread and on several (the same results and
 * output); warpvm's schedule (README "Dynamic parallelism": a grid's launches after it, depth first, the
 * non-tail ones in launch order, tail launches last); the device runtime's error state and calls
 * (cudaGetLastError/Peek, bad configurations, device streams, cudaMalloc/cudaFree, cudaMemcpyAsync/MemsetAsync,
 * attributes through wv_devrt_hooks or cudaErrorNotSupported without them); the nesting limit (24 levels), the pending-launch
 * limit (wv_set_pending_launch_limit); a fault in a child failing the host's launch; a kernel's address
 * taken in code.
 */
#include "wv_test.h"

/* cudaError_t values (the device runtime returns the host runtime's numbers) */
enum { SUCCESS = 0, INVALID_VALUE = 1, MEMORY_ALLOCATION = 2, INVALID_CONFIGURATION = 9, MAX_DEPTH = 65,
       PENDING_COUNT = 69, NOT_SUPPORTED = 801 };

typedef struct cdp_state {
  wv_vm *vm;
  wv_module *m;
  char out[8192];
  size_t nout;
} cdp_state;

static void capture(void *user, const char *text, size_t len) {
  cdp_state *s = user;
  size_t room = sizeof s->out - 1 - s->nout;
  if (len > room) len = room;
  memcpy(s->out + s->nout, text, len);
  s->nout += len;
  s->out[s->nout] = 0;
}

/* A vm of `threads` workers with cdp.ptx loaded. */
static cdp_state *open_vm(uint32_t threads) {
  cdp_state *s = calloc(1, sizeof *s);
  assert_non_null(s);
  wv_config cfg = {.printf_out = capture, .printf_user = s, .threads = threads};
  assert_non_null(s->vm = wv_create(&cfg));
  const char *src = getenv("WV_SRC");
  assert_non_null(src);
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/ptx/cdp/cdp.ptx", src);
  wv_status st = wv_module_load_file(s->vm, path, &s->m);
  if (st != WV_OK) fail_msg("%s does not load (%s): %s", path, wv_status_name(st), wv_last_error(s->vm));
  return s;
}

static void close_vm(cdp_state *s) {
  wv_destroy(s->vm);
  free(s);
}

static wv_devptr zeroed(wv_vm *vm, size_t bytes) {
  wv_devptr p = 0;
  assert_int_equal(wv_malloc(vm, bytes, &p), WV_OK);
  assert_int_equal(wv_memset(vm, p, 0, bytes), WV_OK);
  return p;
}

static wv_status run(cdp_state *s, const char *kernel, uint32_t grid, uint32_t block, void **args) {
  return wv_launch(s->vm, wvt_get(s->m, s->vm, kernel), wvt_dim(grid, 1, 1), wvt_dim(block, 1, 1), 0, args);
}

static void get(wv_vm *vm, void *dst, wv_devptr src, size_t n) { assert_int_equal(wv_memcpy_dtoh(vm, dst, src, n), WV_OK); }

/* A recursive tree sum: 4096 values, 255 grids, on 1 and 4 workers. */
static void test_tree_sum(void **state) {
  (void)state;
  for (uint32_t threads = 1; threads <= 4; threads += 3) {
    cdp_state *s = open_vm(threads);
    int32_t h[4096];
    uint64_t want = 0;
    for (int i = 0; i < 4096; i++) want += (uint64_t)(h[i] = (i * 7919) % 1000);
    wv_devptr in = zeroed(s->vm, sizeof h), total = zeroed(s->vm, 8), grids = zeroed(s->vm, 4);
    assert_int_equal(wv_memcpy_htod(s->vm, in, h, sizeof h), WV_OK);
    int n = 4096;
    void *args[] = {&in, &n, &total, &grids};
    wvt_expect_ok(s->vm, run(s, "tree", 1, 32, args));
    uint64_t got = 0;
    int32_t ng = 0;
    get(s->vm, &got, total, 8);
    get(s->vm, &ng, grids, 4);
    assert_int_equal(got, want);
    assert_int_equal(ng, 255);
    close_vm(s);
  }
}

/* warpvm's schedule: after the 3 blocks of `order`, block 0's NULL-stream launches (the second with its
 * child before block 1's), then blocks 1 and 2's, then the three tail launches in block order. */
static void test_schedule(void **state) {
  (void)state;
  static const int32_t want[] = {101, 102, 1021, 201, 202, 2021, 301, 302, 3021, 109, 209, 309};
  for (uint32_t threads = 1; threads <= 4; threads += 3) {
    cdp_state *s = open_vm(threads);
    wv_devptr log = zeroed(s->vm, 64 * 4);
    void *args[] = {&log};
    wvt_expect_ok(s->vm, run(s, "order", 3, 64, args));
    int32_t h[64];
    get(s->vm, h, log, sizeof h);
    assert_int_equal(h[0], 12);
    for (int i = 0; i < 12; i++) assert_int_equal(h[1 + i], want[i]);
    close_vm(s);
  }
}

/* Every thread of 8 blocks of 128 launches a child (half fire-and-forget); printf of the children of 4
 * blocks comes out in launch order, whatever the workers. */
static void test_many_children_and_printf(void **state) {
  (void)state;
  char first[sizeof ((cdp_state *)0)->out] = "";
  for (uint32_t threads = 1; threads <= 4; threads += 3) {
    cdp_state *s = open_vm(threads);
    wv_devptr out = zeroed(s->vm, 1024 * 4);
    void *args[] = {&out};
    wvt_expect_ok(s->vm, run(s, "per_thread", 8, 128, args));
    int32_t h[1024];
    get(s->vm, h, out, sizeof h);
    for (int i = 0; i < 1024; i++) assert_int_equal(h[i], 3 * i + 1);
    wvt_expect_ok(s->vm, run(s, "say", 4, 64, NULL));
    assert_string_equal(s->out, "grid 0 thread 0\ngrid 0 thread 1\ngrid 1 thread 0\ngrid 1 thread 1\n"
                                "grid 2 thread 0\ngrid 2 thread 1\ngrid 3 thread 0\ngrid 3 thread 1\n");
    if (threads == 1) snprintf(first, sizeof first, "%s", s->out);
    else assert_string_equal(s->out, first);
    close_vm(s);
  }
}

static int attr_hook(void *user, int attr, int dev, int *value) {
  (void)user;
  if (dev != 0) return 101;
  *value = attr == 10 ? 32 : -1; /* cudaDevAttrWarpSize */
  return 0;
}

/* The device runtime's error state and calls. */
static void test_errors_and_calls(void **state) {
  (void)state;
  cdp_state *s = open_vm(1);
  wv_devptr out = zeroed(s->vm, 32 * 4);
  void *args[] = {&out};
  wvt_expect_ok(s->vm, run(s, "errors", 1, 1, args));
  int32_t o[32];
  get(s->vm, o, out, sizeof o);
  assert_int_equal(o[0], SUCCESS);
  assert_int_equal(o[1], INVALID_CONFIGURATION); /* 2048 threads: kept by Peek, returned by Get */
  assert_int_equal(o[2], INVALID_CONFIGURATION);
  assert_int_equal(o[3], SUCCESS);
  assert_int_equal(o[4], INVALID_CONFIGURATION); /* grid y of 70000 */
  assert_int_equal(o[5], NOT_SUPPORTED);         /* no hooks: the host runtime's answers are unknown */
  assert_int_equal(o[7], NOT_SUPPORTED);
  assert_int_equal(o[8], SUCCESS);
  assert_int_equal(o[9], 0);
  assert_int_equal(o[10], SUCCESS);
  assert_int_equal(o[11], SUCCESS);
  assert_int_equal(o[12], SUCCESS);
  assert_int_equal(o[13], SUCCESS);
  assert_int_equal(o[14], 1);
  assert_int_equal(o[15], SUCCESS);
  assert_int_equal(o[16], MEMORY_ALLOCATION);
  assert_int_equal(o[17], MEMORY_ALLOCATION);

  wv_devrt_hooks h = {.attribute = attr_hook};
  assert_int_equal(wv_set_devrt_hooks(s->vm, &h), WV_OK);
  assert_int_equal(wv_memset(s->vm, out, 0, 32 * 4), WV_OK);
  wvt_expect_ok(s->vm, run(s, "errors", 1, 1, args));
  get(s->vm, o, out, sizeof o);
  assert_int_equal(o[5], SUCCESS);
  assert_int_equal(o[6], 32);
  assert_int_equal(o[7], SUCCESS);
  close_vm(s);
}

/* Nested launches go deeper than CDP1's 24 levels (an H200 ran 40: tests/programs/cdp_limits.cu); a chain of
 * tail launches is not nesting. */
static void test_limits(void **state) {
  (void)state;
  cdp_state *s = open_vm(1);
  wv_devptr out = zeroed(s->vm, 16), ran = zeroed(s->vm, 4);
  int level = 1;
  void *args[] = {&level, &out};
  wvt_expect_ok(s->vm, run(s, "dive", 1, 1, args));
  int32_t o[4];
  get(s->vm, o, out, 8);
  assert_int_equal(o[0], 40);
  assert_int_equal(o[1], SUCCESS);

  /* 100 tail launches: all pending until their parent ends; a limit of 30 lets 30 through */
  int n = 100;
  void *targs[] = {&n, &out, &ran};
  assert_int_equal(wv_memset(s->vm, out, 0, 16), WV_OK);
  wvt_expect_ok(s->vm, run(s, "tails", 1, 1, targs));
  get(s->vm, o, out, 8);
  get(s->vm, &o[2], ran, 4);
  assert_int_equal(o[0], 100);
  assert_int_equal(o[1], 0);
  assert_int_equal(o[2], 100);
  assert_int_equal(wv_set_pending_launch_limit(s->vm, 30), WV_OK);
  assert_int_equal(wv_memset(s->vm, out, 0, 16), WV_OK);
  assert_int_equal(wv_memset(s->vm, ran, 0, 4), WV_OK);
  wvt_expect_ok(s->vm, run(s, "tails", 1, 1, targs));
  get(s->vm, o, out, 8);
  get(s->vm, &o[2], ran, 4);
  assert_int_equal(o[0], 30);
  assert_int_equal(o[1], PENDING_COUNT);
  assert_int_equal(o[2], 30);
  assert_int_equal(wv_set_pending_launch_limit(s->vm, 0), WV_OK); /* back to 2048 */
  close_vm(s);
}

/* Device-side cudaMemcpyAsync runs in its stream's order, cudaMemsetAsync succeeds and changes nothing (as on an H200); bad arguments get libcudadevrt's
 * codes; cudaGetErrorName without hooks: "unrecognized error code". */
static void test_copies(void **state) {
  (void)state;
  cdp_state *s = open_vm(1);
  wv_devptr a = zeroed(s->vm, 256), b = zeroed(s->vm, 256), c = zeroed(s->vm, 512), err = zeroed(s->vm, 32);
  int32_t h[128];
  for (int i = 0; i < 64; i++) h[i] = 5 * i - 7;
  assert_int_equal(wv_memcpy_htod(s->vm, a, h, 256), WV_OK);
  void *args[] = {&a, &b, &c, &err};
  wvt_expect_ok(s->vm, run(s, "copies", 1, 1, args));
  int32_t e[8];
  get(s->vm, e, err, sizeof e);
  get(s->vm, h, c, sizeof h);
  assert_int_equal(e[0], SUCCESS);
  assert_int_equal(e[1], SUCCESS);
  for (int i = 0; i < 64; i++) assert_int_equal(h[i], 0); /* an H200's libcudadevrt leaves it (tests/programs/cdp.cu) */
  for (int i = 0; i < 64; i++) assert_int_equal(h[64 + i], 2 * (5 * i - 7));
  assert_int_equal(e[2], 21); /* cudaErrorInvalidMemcpyDirection */
  assert_int_equal(e[3], INVALID_VALUE); /* local memory */
  assert_int_equal(e[4], 0);             /* "unrecognized error code" */
  close_vm(s);
}

/* A fault in a child fails the host's launch with the child's report. */
static void test_child_fault(void **state) {
  (void)state;
  cdp_state *s = open_vm(1);
  wv_devptr p = 0x10;
  void *args[] = {&p};
  wvt_assert_status(s->vm, run(s, "faults", 1, 1, args), WV_ERR_FAULT);
  wvt_assert_contains(wv_last_error(s->vm), "in kernel 'bad_store'");
  wv_devptr log = zeroed(s->vm, 64 * 4); /* the vm goes on */
  void *largs[] = {&log};
  wvt_expect_ok(s->vm, run(s, "order", 1, 1, largs));
  close_vm(s);
}

/* A kernel's address in code (what `<<<>>>` in device code passes) is a value a kernel may also store. */
static void test_kernel_address(void **state) {
  wv_vm *vm = *state;
  static const char ptx[] = WVT_HDR
      ".visible .entry child()\n{\nret;\n}\n"
      ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [out];\n"
      "mov.u64 %rd2, child;\nmov.u64 %rd3, k;\nst.global.u64 [%rd1], %rd2;\nst.global.u64 [%rd1+8], %rd3;\nret;\n}\n";
  const wv_kernel *k = wvt_kernel(vm, ptx, "k");
  uint64_t h[2] = {0, 0};
  wvt_buf b = {h, sizeof h};
  wvt_run_ok(vm, k, 1, 1, 1, &b);
  assert_true(h[0] != 0 && h[1] != 0 && h[0] != h[1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tree_sum),
      cmocka_unit_test(test_schedule),
      cmocka_unit_test(test_many_children_and_printf),
      cmocka_unit_test(test_errors_and_calls),
      cmocka_unit_test(test_limits),
      cmocka_unit_test(test_copies),
      cmocka_unit_test(test_child_fault),
      cmocka_unit_test_setup_teardown(test_kernel_address, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
