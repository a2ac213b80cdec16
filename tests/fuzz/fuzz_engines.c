/*
 * fuzz_engines.c — libFuzzer harness, and the differential test of warpvm's two engines: an input chooses a
 * random loop-free kernel (ptxgen.c) and its input values; the kernel runs once with the interpreter and once
 * with the JIT (wv_config.engine "interp" and "jit"), and everything it leaves behind must be equal: the
 * launch's status and error message, every register and predicate of every thread, its shared-memory slot
 * and its global words (all stored to the output buffer), and the thread-instruction count.
 *
 * Promise checked: the JIT is exact. A difference prints the kernel, the inputs' seed and the first differing
 * word (thread, slot), and aborts, so libFuzzer keeps the input. Without LLVM (wv_has_jit() == 0) every input
 * passes untested, and the CTest driver (engine_diff.c) reports the test skipped.
 */
#include "fuzz.h"
#include "ptxgen.h"
#include "warpvm.h"

#define CAP ((size_t)64 << 10)

typedef struct result {
  wv_status load, launch;
  char msg[512];
  uint64_t insns;
  uint8_t out[WVG_THREADS * WVG_OUT_STRIDE];
} result;

static void run(const char *engine, const char *ptx, const uint8_t *in, result *r) {
  memset(r, 0, sizeof *r);
  wv_config cfg = {0};
  cfg.engine = engine;
  cfg.max_steps = 1000000;
  wv_vm *vm = wv_create(&cfg);
  WVF_CHECK(vm != NULL, "wv_create(engine %s) failed", engine);
  wv_module *m = NULL;
  const wv_kernel *k = NULL;
  wv_devptr din = 0, dout = 0;
  r->load = wv_module_load_string(vm, ptx, strlen(ptx), "gen.ptx", &m);
  if (!r->load) r->load = wv_kernel_get(m, "k", &k);
  if (r->load) {
    snprintf(r->msg, sizeof r->msg, "%s", wv_last_error(vm));
  } else {
    WVF_CHECK(!wv_malloc(vm, WVG_THREADS * WVG_IN_STRIDE, &din) && !wv_malloc(vm, sizeof r->out, &dout), "wv_malloc");
    WVF_CHECK(!wv_memcpy_htod(vm, din, in, WVG_THREADS * WVG_IN_STRIDE) && !wv_memset(vm, dout, 0, sizeof r->out),
              "upload");
    void *args[2] = {&din, &dout};
    wv_stats_reset(vm);
    r->launch = wv_launch(vm, k, (wv_dim3){WVG_GRID, 1, 1}, (wv_dim3){WVG_BLOCK, 1, 1}, 0, args);
    if (r->launch) snprintf(r->msg, sizeof r->msg, "%s", wv_last_error(vm));
    wv_stats s;
    wv_get_stats(vm, &s);
    r->insns = s.thread_instructions;
    if (!r->launch) WVF_CHECK(!wv_memcpy_dtoh(vm, r->out, dout, sizeof r->out), "download");
  }
  wv_destroy(vm);
}

static const char *const SLOT[WVG_NVALS + WVG_NPREDS] = {
    "%r0", "%r1", "%r2", "%r3", "%r4", "%r5", "%r6", "%r7", "%rd0", "%rd1", "%rd2", "%rd3",
    "%f0", "%f1", "%f2", "%f3", "%f4", "%f5", "%fd0", "%fd1", "%p0", "%p1", "%p2", "%p3"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!wv_has_jit()) return 0;
  static char ptx[CAP];
  static uint8_t in[WVG_THREADS * WVG_IN_STRIDE];
  static result a, b;
  if (!wvg_kernel(data, size, ptx, CAP)) return 0;
  uint64_t seed = wvf_hash(data, size);
  wvg_inputs(seed, in);
  run("interp", ptx, in, &a);
  run("jit", ptx, in, &b);
  int same = a.load == b.load && a.launch == b.launch && !strcmp(a.msg, b.msg) && a.insns == b.insns;
  size_t at = 0;
  if (same && !a.load && !a.launch)
    for (; at < sizeof a.out && a.out[at] == b.out[at]; at++) {}
  if (same && (a.load || a.launch || at == sizeof a.out)) return 0;
  fprintf(stderr, "%s\n", ptx);
  fprintf(stderr, "engines differ (inputs: wvg_inputs seed 0x%016llx)\n", (unsigned long long)seed);
  fprintf(stderr, "  interp: load %s, launch %s, %llu thread-instructions: %s\n", wv_status_name(a.load),
          wv_status_name(a.launch), (unsigned long long)a.insns, a.msg);
  fprintf(stderr, "  jit:    load %s, launch %s, %llu thread-instructions: %s\n", wv_status_name(b.load),
          wv_status_name(b.launch), (unsigned long long)b.insns, b.msg);
  if (at < sizeof a.out) {
    size_t t = at / WVG_OUT_STRIDE, o = at % WVG_OUT_STRIDE & ~(size_t)7;
    uint64_t va, vb;
    memcpy(&va, a.out + t * WVG_OUT_STRIDE + o, 8);
    memcpy(&vb, b.out + t * WVG_OUT_STRIDE + o, 8);
    const char *what = o / 8 < WVG_NVALS + WVG_NPREDS ? SLOT[o / 8] : o < 224 ? "shared slot" : "global scratch";
    fprintf(stderr, "  first difference: thread %zu (block %zu, tid %zu), %s (byte %zu): interp 0x%016llx, jit 0x%016llx\n",
            t, t / WVG_BLOCK, t % WVG_BLOCK, what, o, (unsigned long long)va, (unsigned long long)vb);
  }
  WVF_CHECK(0, "the JIT engine and the interpreter disagree");
  return 0;
}
