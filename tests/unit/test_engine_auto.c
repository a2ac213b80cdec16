/*
 * test_engine_auto.c — engine auto (src/rt/engine.c, README "Engines"): a kernel is compiled once its launches have
 * run in the interpreter as long as compiling it would take (the JIT's estimate: a few ms for this kernel; asked
 * once they have run 20 ms), by a thread beside the launch that gets there (a launch of 65536 threads has one from
 * its first); the launch's warps take the code at their next turn once it is there (sched.c take_code), and the
 * launch waits for the compilation at its end, or stops the thread where it has not begun. Checked here: short
 * launches, small or large, compile nothing; the compilation is counted (wv_stats) when the launch that made it
 * returns; every launch's results are the host model's, where the code arrives between CTAs and where it arrives in
 * the middle of the one CTA of a launch (its warps leave the interpreter inside a loop).
 */
/* (mkdtemp, setenv, nftw: _GNU_SOURCE, as the build defines it) */
#include <ftw.h>
#include <stdlib.h>
#include <unistd.h>

#include "wv_test.h"

static const char *PTX = WVT_HDR
    ".visible .entry spin(.param .u64 out, .param .u32 n)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<10>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x;\n"
    "  mov.u32 %r3, %ntid.x;\n"
    "  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  mov.u32 %r6, %r5;\n"
    "  mov.u32 %r7, 0;\n"
    "$L_turn:\n"
    "  mad.lo.s32 %r6, %r6, 1664525, 1013904223;\n"
    "  shr.u32 %r8, %r6, 13;\n"
    "  xor.b32 %r6, %r6, %r8;\n"
    "  add.s32 %r7, %r7, 1;\n"
    "  setp.lt.u32 %p1, %r7, %r1;\n"
    "  @%p1 bra $L_turn;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mul.wide.u32 %rd3, %r5, 4;\n"
    "  add.s64 %rd2, %rd2, %rd3;\n"
    "  st.global.u32 [%rd2], %r6;\n"
    "  ret;\n"
    "}\n";

/* What thread i of spin computes (n >= 1 turns). */
static uint32_t model(uint32_t i, uint32_t n) {
  uint32_t x = i;
  for (uint32_t k = 0; k < n; k++) {
    x = x * 1664525u + 1013904223u;
    x ^= x >> 13;
  }
  return x;
}

typedef struct fix {
  wv_vm *vm;
  const wv_kernel *k;
  wv_devptr out;
  uint32_t *host;
} fix;

static void fix_free(fix *f) {
  if (!f) return;
  wv_destroy(f->vm);
  free(f->host);
  free(f);
}

/* A vm of `engine` on one thread with spin loaded and a buffer of 65536 words (no_cache: the JIT's disk cache
 * off); NULL if out of memory. */
static fix *fix_new(const char *engine, int no_cache) {
  fix *f = calloc(1, sizeof *f);
  wv_config cfg = {0};
  cfg.engine = engine;
  cfg.threads = 1;
  cfg.no_jit_cache = no_cache;
  if (!f || !(f->vm = wv_create(&cfg))) {
    free(f);
    return NULL;
  }
  f->k = wvt_kernel(f->vm, PTX, "spin");
  f->host = malloc(65536 * sizeof *f->host);
  if (!f->host || wv_malloc(f->vm, 65536 * sizeof *f->host, &f->out)) {
    fix_free(f);
    return NULL;
  }
  return f;
}

static int setup(void **state) {
  if (!wv_has_jit()) return 0; /* (each test skips) */
  /* (the cache off: compiled, not loaded, so the counts below are of a compilation) */
  return (*state = fix_new("auto", 1)) ? 0 : -1;
}

static int teardown(void **state) {
  fix_free(*state);
  return 0;
}

/* One launch of grid x block threads, n turns each; its results against the model; the functions compiled so far. */
static uint64_t launch(fix *f, uint32_t grid, uint32_t block, uint32_t n) {
  void *args[] = {&f->out, &n};
  wvt_expect_ok(f->vm, wv_launch(f->vm, f->k, wvt_dim(grid, 1, 1), wvt_dim(block, 1, 1), 0, args));
  size_t threads = (size_t)grid * block;
  assert_int_equal(wv_memcpy_dtoh(f->vm, f->host, f->out, threads * sizeof *f->host), WV_OK);
  for (uint32_t i = 0; i < threads; i++)
    if (f->host[i] != model(i, n)) fail_msg("grid %u x %u, %u turns: thread %u has %#x, the model %#x", grid, block, n, i, f->host[i], model(i, n));
  wv_stats s;
  wv_get_stats(f->vm, &s);
  return s.jit_functions;
}

/* Short small launches do not compile, nor does a large one over in less than 20 ms; a large one that runs long
 * does (its warps take the code between its CTAs), and returns with the kernel compiled; the next runs compiled. */
static void a_large_launch_compiles(void **state) {
  fix *f = *state;
  if (!f) skip();
  for (int i = 0; i < 3; i++) assert_int_equal(launch(f, 16, 256, 4), 0); /* 4096 threads, 0.1 M instructions */
  wv_stats s0, s;
  wv_get_stats(f->vm, &s0);
  uint64_t n = launch(f, 256, 256, 1); /* 65536 threads, 0.8 M instructions */
  wv_get_stats(f->vm, &s);
  if (s.kernel_seconds - s0.kernel_seconds < 0.02) assert_int_equal(n, 0); /* (a slow build may take longer) */
  assert_int_equal(launch(f, 256, 256, 2000), 1);
  wv_get_stats(f->vm, &s);
  assert_true(s.jit_regions >= 1);
  assert_int_equal(launch(f, 256, 256, 500), 1); /* (compiled before it: nothing new) */
}

/* Launches of one CTA (1024 threads) that each run long in the interpreter (0.1 s or more): the first does not
 * compile, a later one starts the compilation, and its warps take the code inside their loop. */
static void long_small_launches_compile(void **state) {
  fix *f = *state;
  if (!f) skip();
  assert_int_equal(launch(f, 1, 1024, 40000), 0);
  int i = 1;
  while (i < 40 && !launch(f, 1, 1024, 40000)) i++;
  if (i == 40) fail_msg("40 launches of 40000 turns each (4 s or more in the interpreter) compiled nothing");
  assert_int_equal(launch(f, 4, 1024, 3), 1);
}

/* A second kernel (its own code, so that its object is its own on disk): out[i] = 3 * i + 1. */
static const char *PTX2 = WVT_HDR
    ".visible .entry triple(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<6>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  mad.lo.s32 %r5, %r4, 3, 1;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mul.wide.u32 %rd3, %r4, 4;\n"
    "  add.s64 %rd2, %rd2, %rd3;\n"
    "  st.global.u32 [%rd2], %r5;\n"
    "  ret;\n"
    "}\n";

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* One run of a program of both kernels under `engine`, the JIT's disk cache in XDG_CACHE_HOME: spin's large long
 * launch (which compiles under auto: LLVM opens), then one short launch of triple, whose results are checked.
 * Returns the functions whose code came from the disk cache. */
static uint64_t program(const char *engine) {
  fix *f = fix_new(engine, 0);
  assert_non_null(f);
  assert_int_equal(launch(f, 256, 256, 2000), 1);
  const wv_kernel *k2 = wvt_kernel(f->vm, PTX2, "triple");
  void *args[] = {&f->out};
  wvt_expect_ok(f->vm, wv_launch(f->vm, k2, wvt_dim(1, 1, 1), wvt_dim(64, 1, 1), 0, args));
  assert_int_equal(wv_memcpy_dtoh(f->vm, f->host, f->out, 64 * sizeof *f->host), WV_OK);
  for (uint32_t i = 0; i < 64; i++) assert_int_equal(f->host[i], 3 * i + 1);
  wv_stats s;
  wv_get_stats(f->vm, &s);
  fix_free(f);
  return s.jit_cached;
}

/* A program's second run, its kernels' code on disk: once LLVM is open (spin compiled, from the disk), a kernel's
 * code loads at its first launch, however short (triple: 64 threads), instead of after 20 ms in the interpreter. */
static void cached_code_loads_at_once(void **state) {
  if (!*state) skip();
  char dir[] = "/tmp/wv_auto_XXXXXX";
  assert_non_null(mkdtemp(dir));
  const char *old = getenv("XDG_CACHE_HOME");
  char *keep = old ? strdup(old) : NULL;
  setenv("XDG_CACHE_HOME", dir, 1);
  assert_int_equal(program("jit"), 0);  /* (the first run compiles both, onto the disk) */
  assert_int_equal(program("auto"), 2); /* spin's code, then triple's at its launch */
  if (keep) setenv("XDG_CACHE_HOME", keep, 1); else unsetenv("XDG_CACHE_HOME");
  free(keep);
  nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(a_large_launch_compiles, setup, teardown),
      cmocka_unit_test_setup_teardown(long_small_launches_compile, setup, teardown),
      cmocka_unit_test_setup_teardown(cached_code_loads_at_once, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
