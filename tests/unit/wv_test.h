/*
 * wv_test.h — small helpers shared by the instruction-family unit tests (tests/unit/test_exec_*.c,
 * test_decode_errors.c). Everything goes through the public C API of include/warpvm.h.
 *
 *  - wvt_setup / wvt_teardown: a cmocka fixture that puts a fresh wv_vm in *state.
 *  - wvt_load / wvt_kernel: load a PTX string (asserting success) and look a kernel up.
 *  - wvt_launch_bufs / wvt_run: launch a kernel whose parameters are all .u64 device pointers; each
 *    host buffer is copied to a fresh device allocation, the kernel runs, the buffers come back.
 *  - wvt_ops / wvt_check_ops: a one-thread-per-case harness. Every case gives three 64-bit inputs;
 *    the harness kernel loads them into registers of every width and type, runs a PTX snippet,
 *    and stores one result register (selected by a letter) back to a per-thread 64-bit slot.
 *  - wvt_line_of: the 1-based line of the first occurrence of a marker in a PTX text (to compute the
 *    expected line of an error independently of warpvm).
 *
 * All functions are static inline so a test file that uses only some of them stays warning-free.
 */
#ifndef WV_TEST_H
#define WV_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "warpvm.h"

/* Standard module header for hand-written PTX. */
#define WVT_HDR ".version 7.8\n.target sm_80\n.address_size 64\n"

/* ---- fixture ---------------------------------------------------------------------------------- */

static inline int wvt_setup(void **state) {
  wv_vm *vm = wv_create(NULL);
  *state = vm;
  return vm ? 0 : -1;
}

static inline int wvt_teardown(void **state) {
  wv_destroy((wv_vm *)*state);
  *state = NULL;
  return 0;
}

/* ---- modules and kernels ---------------------------------------------------------------------- */

static inline wv_module *wvt_load(wv_vm *vm, const char *ptx) {
  wv_module *m = NULL;
  wv_status st = wv_module_load_string(vm, ptx, strlen(ptx), "test.ptx", &m);
  if (st != WV_OK) fail_msg("module load failed (%s): %s", wv_status_name(st), wv_last_error(vm));
  assert_non_null(m);
  return m;
}

/* A PTX file of the source tree (rel to $WV_SRC, which CTest sets), loaded or the test fails. */
static inline wv_module *wvt_load_src(wv_vm *vm, const char *rel) {
  const char *src = getenv("WV_SRC");
  assert_non_null(src);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", src, rel);
  wv_module *m = NULL;
  wv_status st = wv_module_load_file(vm, path, &m);
  if (st != WV_OK) fail_msg("%s does not load (%s): %s", path, wv_status_name(st), wv_last_error(vm));
  return m;
}

static inline const wv_kernel *wvt_get(wv_module *m, wv_vm *vm, const char *name) {
  const wv_kernel *k = NULL;
  wv_status st = wv_kernel_get(m, name, &k);
  if (st != WV_OK) fail_msg("kernel '%s' not found (%s): %s", name, wv_status_name(st), wv_last_error(vm));
  assert_non_null(k);
  return k;
}

static inline const wv_kernel *wvt_kernel(wv_vm *vm, const char *ptx, const char *name) {
  return wvt_get(wvt_load(vm, ptx), vm, name);
}

/* ---- launches --------------------------------------------------------------------------------- */

typedef struct wvt_buf {
  void *host;   /* copied to the device before the launch and back after it */
  size_t bytes;
} wvt_buf;

static inline wv_dim3 wvt_dim(uint32_t x, uint32_t y, uint32_t z) {
  wv_dim3 d = {x, y, z};
  return d;
}

/* Launches k with one .u64 pointer parameter per buffer, in order. Returns the launch status; the
 * buffers are copied back whatever it is. */
static inline wv_status wvt_launch_bufs(wv_vm *vm, const wv_kernel *k, wv_dim3 grid, wv_dim3 block,
                                        uint32_t shared_bytes, size_t nbuf, wvt_buf *bufs) {
  assert_true(nbuf <= 16);
  wv_devptr dev[16];
  void *args[16];
  for (size_t i = 0; i < nbuf; i++) {
    size_t n = bufs[i].bytes ? bufs[i].bytes : 8;
    assert_int_equal(wv_malloc(vm, n, &dev[i]), WV_OK);
    assert_int_equal(wv_memset(vm, dev[i], 0, n), WV_OK);
    if (bufs[i].bytes) assert_int_equal(wv_memcpy_htod(vm, dev[i], bufs[i].host, bufs[i].bytes), WV_OK);
    args[i] = &dev[i];
  }
  wv_status st = wv_launch(vm, k, grid, block, shared_bytes, args);
  for (size_t i = 0; i < nbuf; i++) {
    if (bufs[i].bytes) assert_int_equal(wv_memcpy_dtoh(vm, bufs[i].host, dev[i], bufs[i].bytes), WV_OK);
    assert_int_equal(wv_free(vm, dev[i]), WV_OK);
  }
  return st;
}

/* 1-D launch. */
static inline wv_status wvt_run(wv_vm *vm, const wv_kernel *k, uint32_t grid, uint32_t block, size_t nbuf,
                                wvt_buf *bufs) {
  return wvt_launch_bufs(vm, k, wvt_dim(grid, 1, 1), wvt_dim(block, 1, 1), 0, nbuf, bufs);
}

/* 1-D launch that must succeed. */
static inline void wvt_run_ok(wv_vm *vm, const wv_kernel *k, uint32_t grid, uint32_t block, size_t nbuf,
                              wvt_buf *bufs) {
  wv_status st = wvt_run(vm, k, grid, block, nbuf, bufs);
  if (st != WV_OK) fail_msg("launch failed (%s): %s", wv_status_name(st), wv_last_error(vm));
}

/* Launch that must succeed, with a status message on failure. */
static inline void wvt_expect_ok(wv_vm *vm, wv_status st) {
  if (st != WV_OK) fail_msg("expected success, got %s: %s", wv_status_name(st), wv_last_error(vm));
}

/* ---- the one-thread-per-case harness ---------------------------------------------------------- */

typedef struct wvt_case {
  uint64_t a, b, c; /* inputs */
  uint64_t want;    /* expected content of the 64-bit result slot */
} wvt_case;

/*
 * Registers the snippet may use (all declared by the harness):
 *   inputs  : %A %B %C (.b64)  %a %b %c (.b32, low halves)  %ha %hb %hc (.b16)
 *             %fa %fb %fc (.f32, low halves)  %ga %gb %gc (.f64)  %pa %pb %pc (.pred: input != 0)
 *   results : %D (.b64)  %d (.b32)  %hd (.b16)  %fd (.f32)  %gd (.f64)  %p (.pred, stored as 0/1)
 *   scratch : %T0..%T7 (.b64)  %t0..%t7 (.b32)  %h0..%h7 (.b16)  %f0..%f7 (.f32)  %g0..%g7 (.f64)
 *             %P0..%P7 (.pred)
 * res selects the stored result: 'D' (64 bits), 'd' (32 bits, upper half of the slot 0),
 * 'h' (16 bits), 'f' (f32), 'g' (f64), 'p' (0 or 1).
 */
#define WVT_MAX_CASES 1024

/* The harness kernel's text for a snippet, in a static buffer (no heap: a failing assertion
 * longjmps out of the helpers, and nothing may leak then). */
static inline const char *wvt_ops_ptx(const char *snippet, char res) {
  const char *store;
  switch (res) {
  case 'D': store = "st.global.u64 [%oo], %D;"; break;
  case 'd': store = "st.global.u32 [%oo], %d;"; break;
  case 'h': store = "st.global.u16 [%oo], %hd;"; break;
  case 'f': store = "st.global.f32 [%oo], %fd;"; break;
  case 'g': store = "st.global.f64 [%oo], %gd;"; break;
  case 'p': store = "selp.u64 %D, 1, 0, %p;\nst.global.u64 [%oo], %D;"; break;
  default: fail_msg("bad result kind '%c'", res); return NULL;
  }
  static const char *const head =
      WVT_HDR
      ".visible .entry wvt_op(.param .u64 wvt_out, .param .u64 wvt_in)\n"
      "{\n"
      ".reg .b64 %A, %B, %C, %D, %io, %oo, %T<8>;\n"
      ".reg .b32 %a, %b, %c, %d, %i, %t<8>;\n"
      ".reg .b16 %ha, %hb, %hc, %hd, %h<8>;\n"
      ".reg .f32 %fa, %fb, %fc, %fd, %f<8>;\n"
      ".reg .f64 %ga, %gb, %gc, %gd, %g<8>;\n"
      ".reg .pred %p, %pa, %pb, %pc, %P<8>;\n"
      "ld.param.u64 %io, [wvt_in];\n"
      "ld.param.u64 %oo, [wvt_out];\n"
      "cvta.to.global.u64 %io, %io;\n"
      "cvta.to.global.u64 %oo, %oo;\n"
      "mov.u32 %i, %tid.x;\n"
      "mul.wide.u32 %T0, %i, 24;\n"
      "add.s64 %io, %io, %T0;\n"
      "mul.wide.u32 %T0, %i, 8;\n"
      "add.s64 %oo, %oo, %T0;\n"
      "ld.global.u64 %A, [%io];\n"
      "ld.global.u64 %B, [%io+8];\n"
      "ld.global.u64 %C, [%io+16];\n"
      "ld.global.u32 %a, [%io];\n"
      "ld.global.u32 %b, [%io+8];\n"
      "ld.global.u32 %c, [%io+16];\n"
      "ld.global.u16 %ha, [%io];\n"
      "ld.global.u16 %hb, [%io+8];\n"
      "ld.global.u16 %hc, [%io+16];\n"
      "ld.global.f32 %fa, [%io];\n"
      "ld.global.f32 %fb, [%io+8];\n"
      "ld.global.f32 %fc, [%io+16];\n"
      "ld.global.f64 %ga, [%io];\n"
      "ld.global.f64 %gb, [%io+8];\n"
      "ld.global.f64 %gc, [%io+16];\n"
      "setp.ne.u64 %pa, %A, 0;\n"
      "setp.ne.u64 %pb, %B, 0;\n"
      "setp.ne.u64 %pc, %C, 0;\n"
      "mov.u64 %D, 0;\n"
      "mov.u32 %d, 0;\n"
      "mov.u16 %hd, 0;\n"
      "mov.f32 %fd, 0f00000000;\n"
      "mov.f64 %gd, 0d0000000000000000;\n"
      "setp.ne.u32 %p, %i, %i;\n";
  static char ptx[16384];
  int k = snprintf(ptx, sizeof ptx, "%s%s\n%s\nret;\n}\n", head, snippet, store);
  assert_true(k > 0 && (size_t)k < sizeof ptx);
  return ptx;
}

/* Runs the snippet once per case (one thread each, in one block); got[i] receives the result slot. */
static inline void wvt_ops(wv_vm *vm, const char *snippet, char res, const wvt_case *cs, size_t n, uint64_t *got) {
  static uint64_t in[3 * WVT_MAX_CASES];
  assert_true(n >= 1 && n <= WVT_MAX_CASES);
  const char *ptx = wvt_ops_ptx(snippet, res);
  wv_module *m = NULL;
  wv_status st = wv_module_load_string(vm, ptx, strlen(ptx), "ops.ptx", &m);
  if (st != WV_OK) fail_msg("snippet '%s' does not load (%s): %s", snippet, wv_status_name(st), wv_last_error(vm));
  const wv_kernel *k = wvt_get(m, vm, "wvt_op");
  for (size_t i = 0; i < n; i++) {
    in[3 * i] = cs[i].a;
    in[3 * i + 1] = cs[i].b;
    in[3 * i + 2] = cs[i].c;
    got[i] = 0;
  }
  wvt_buf bufs[2] = {{got, n * sizeof *got}, {in, n * 3 * sizeof *in}};
  st = wvt_run(vm, k, 1, (uint32_t)n, 2, bufs);
  wv_module_unload(m);
  if (st != WV_OK) fail_msg("snippet '%s' failed to run (%s): %s", snippet, wv_status_name(st), wv_last_error(vm));
}

/* Runs the snippet and compares every result slot with its case's want; up to 12 mismatches are
 * printed before the test fails. */
static inline void wvt_check_ops(wv_vm *vm, const char *snippet, char res, const wvt_case *cs, size_t n) {
  static uint64_t got[WVT_MAX_CASES];
  wvt_ops(vm, snippet, res, cs, n, got);
  size_t bad = 0;
  for (size_t i = 0; i < n; i++)
    if (got[i] != cs[i].want) {
      if (bad < 12)
        print_error("  [%s] case %zu: a=0x%llx b=0x%llx c=0x%llx: got 0x%llx, want 0x%llx\n", snippet, i,
                    (unsigned long long)cs[i].a, (unsigned long long)cs[i].b, (unsigned long long)cs[i].c,
                    (unsigned long long)got[i], (unsigned long long)cs[i].want);
      bad++;
    }
  if (bad) fail_msg("%zu of %zu cases of '%s' differ", bad, n, snippet);
}

typedef uint64_t (*wvt_fn3)(uint64_t a, uint64_t b, uint64_t c);

/* Checks a snippet over the cross product of as × bs (c fixed) against the C model f. */
static inline void wvt_check_cross(wv_vm *vm, const char *snippet, char res, const uint64_t *as, size_t na,
                                   const uint64_t *bs, size_t nb, uint64_t c, wvt_fn3 f) {
  static wvt_case cs[WVT_MAX_CASES];
  assert_true(na * nb >= 1 && na * nb <= WVT_MAX_CASES);
  size_t n = 0;
  for (size_t i = 0; i < na; i++)
    for (size_t j = 0; j < nb; j++, n++) {
      cs[n].a = as[i];
      cs[n].b = bs[j];
      cs[n].c = c;
      cs[n].want = f(as[i], bs[j], c);
    }
  wvt_check_ops(vm, snippet, res, cs, n);
}

/* Checks a snippet over explicit triples (a, b, c) against the C model f. */
static inline void wvt_check_fn(wv_vm *vm, const char *snippet, char res, const uint64_t (*abc)[3], size_t n, wvt_fn3 f) {
  static wvt_case cs[WVT_MAX_CASES];
  assert_true(n >= 1 && n <= WVT_MAX_CASES);
  for (size_t i = 0; i < n; i++) {
    cs[i].a = abc[i][0];
    cs[i].b = abc[i][1];
    cs[i].c = abc[i][2];
    cs[i].want = f(abc[i][0], abc[i][1], abc[i][2]);
  }
  wvt_check_ops(vm, snippet, res, cs, n);
}

/* A fixed-seed generator for extra operands (xorshift64*). */
static inline uint64_t wvt_rand(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

/* ---- float bit patterns ----------------------------------------------------------------------- */

static inline uint32_t wvt_f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float wvt_u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint64_t wvt_d2u(double f) {
  uint64_t u;
  memcpy(&u, &f, 8);
  return u;
}
static inline double wvt_u2d(uint64_t u) {
  double f;
  memcpy(&f, &u, 8);
  return f;
}

/* ---- messages --------------------------------------------------------------------------------- */

/* 1-based line of the first occurrence of marker in text (0 if absent). */
static inline unsigned wvt_line_of(const char *text, const char *marker) {
  const char *p = strstr(text, marker);
  if (!p) return 0;
  unsigned line = 1;
  for (const char *q = text; q < p; q++)
    if (*q == '\n') line++;
  return line;
}

/* 1-based column of the first occurrence of marker on its line (0 if absent). */
static inline unsigned wvt_col_of(const char *text, const char *marker) {
  const char *p = strstr(text, marker);
  if (!p) return 0;
  const char *s = p;
  while (s > text && s[-1] != '\n') s--;
  return (unsigned)(p - s) + 1;
}

/* Asserts that haystack contains needle, with both in the failure message. */
#define wvt_assert_contains(haystack, needle)                                                       \
  do {                                                                                              \
    const char *wvt_h_ = (haystack), *wvt_n_ = (needle);                                            \
    if (!wvt_h_ || !strstr(wvt_h_, wvt_n_)) fail_msg("'%s' does not contain '%s'", wvt_h_ ? wvt_h_ : "(null)", wvt_n_); \
  } while (0)

/* Asserts a status, printing the vm's last error when it differs. */
#define wvt_assert_status(vm, got, want)                                                            \
  do {                                                                                              \
    wv_status wvt_g_ = (got), wvt_w_ = (want);                                                      \
    if (wvt_g_ != wvt_w_)                                                                           \
      fail_msg("status %s (%d), want %s (%d); last error: %s", wv_status_name(wvt_g_), (int)wvt_g_,   \
               wv_status_name(wvt_w_), (int)wvt_w_, wv_last_error(vm));                             \
  } while (0)

#endif
