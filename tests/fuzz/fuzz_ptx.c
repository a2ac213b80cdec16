/*
 * fuzz_ptx.c — libFuzzer harness: an input is PTX text. It is loaded as module "fz.ptx" and, when it
 * loads, every kernel (the first 16) is launched with a small watchdog. The machine model, memory
 * model, cp.async delivery, CTA schedule, checks, launch shape and argument values are picked from a
 * hash of the input, so each seed runs under one configuration and mutations reach all of them.
 *
 * Promises checked (a broken one aborts, and libFuzzer keeps the input): a load error is one
 * "fz.ptx:LINE:COL: error: ..." message; every failed launch says why; nothing crashes, hangs,
 * leaks or trips ASan/UBSan (the watchdog bounds each launch at WVF_MAX_STEPS warp instructions).
 */
#include "fuzz.h"
#include "warpvm.h"

#define WVF_MAX_STEPS 20000
#define WVF_MAX_KERNELS 16
#define WVF_MAX_PARAMS 32
#define WVF_BUF_BYTES 8192    /* each pointer argument's buffer */

static FILE *devnull;
static int verbose; /* WVF_VERBOSE=1: say the configuration and each launch on stderr (to triage an input) */

static void quiet(void *user, const char *text, size_t len) { (void)user, (void)text, (void)len; }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  devnull = fopen("/dev/null", "w");
  verbose = getenv("WVF_VERBOSE") != NULL;
  return 0;
}

/* "fz.ptx:LINE:COL: error: " with LINE >= 1 */
static int located(const char *msg) {
  unsigned line, col;
  char word[8] = "";
  return !strncmp(msg, "fz.ptx:", 7) && sscanf(msg + 7, "%u:%u: %6s", &line, &col, word) == 3 && line >= 1 &&
         !strcmp(word, "error:");
}

typedef struct launch_cfg {
  wv_dim3 grid, block;
  uint32_t shared, flags, ival;
} launch_cfg;

/* The vm's configuration and the launch shape, from the input's hash. */
static void pick(uint64_t h, wv_config *cfg, launch_cfg *lc, char *async, char *sched, size_t cap) {
  static const char *const machines[] = {NULL, "sm_90", NULL, "sm_90", "gfx90a", "gfx1100", "gfx1100w64", "gfx90a"};
  static const uint32_t blocks[] = {1, 32, 48, 64, 96, 128, 33, 256}, grids[] = {1, 2, 3, 1};
  static const uint32_t shareds[] = {0, 0, 256, 4096}, ivals[] = {0, 1, 32, 100};
  uint32_t m = wvf_bits(&h, 3), seed = 1 + wvf_bits(&h, 8);
  cfg->max_steps = WVF_MAX_STEPS;
  cfg->printf_out = quiet;
  cfg->machine = machines[m];
  cfg->warps_per_wave = m >= 6 && wvf_bits(&h, 1) ? 2 : 1;
  cfg->memory_model = wvf_bits(&h, 1) ? "weak" : "sc";
  cfg->seed = seed;
  switch (wvf_bits(&h, 2)) {
  case 0: cfg->async_delivery = NULL; break;
  case 1: cfg->async_delivery = "eager"; break;
  case 2: cfg->async_delivery = "at-wait"; break;
  default: snprintf(async, cap, "random:%u", seed); cfg->async_delivery = async;
  }
  switch (wvf_bits(&h, 2)) {
  case 0: cfg->schedule = NULL; break;
  case 1: cfg->schedule = "interleave"; break;
  case 2: cfg->schedule = "serial"; break;
  default: snprintf(sched, cap, "random:%u", seed); cfg->schedule = sched;
  }
  cfg->checks = wvf_bits(&h, 2);
  lc->grid = (wv_dim3){grids[wvf_bits(&h, 2)], 1, 1};
  lc->block = (wv_dim3){blocks[wvf_bits(&h, 3)], 1, 1};
  if (wvf_bits(&h, 3) == 0) lc->block = (wv_dim3){8, 4, 2}; /* a 3-D block now and then */
  lc->shared = shareds[wvf_bits(&h, 2)];
  lc->flags = wvf_bits(&h, 3) == 0 ? WV_LAUNCH_COOPERATIVE : 0;
  lc->ival = ivals[wvf_bits(&h, 2)];
}

/* Arguments for k: a fresh zeroed device buffer for every 8-byte parameter, lc->ival in the first
 * bytes of the others. Returns 0, or -1 when k's parameters are too many or too large to bother. */
static int make_args(wv_vm *vm, const wv_kernel *k, const launch_cfg *lc, void **args, uint8_t *blob, size_t cap) {
  uint32_t np = wv_kernel_param_count(k);
  if (np > WVF_MAX_PARAMS) return -1;
  size_t at = 0;
  for (uint32_t i = 0; i < np; i++) {
    wv_param_info pi = wv_kernel_param(k, i);
    size_t sz = pi.size ? pi.size : 1;
    if (sz > cap - at) return -1;
    uint8_t *v = blob + at;
    memset(v, 0, sz);
    if (pi.size == 8) {
      wv_devptr d = 0;
      if (wv_malloc(vm, WVF_BUF_BYTES, &d) == WV_OK) wv_memset(vm, d, 0, WVF_BUF_BYTES);
      memcpy(v, &d, 8);
    } else {
      memcpy(v, &lc->ival, sz < 4 ? sz : 4);
    }
    args[i] = v;
    at += (sz + 7) & ~(size_t)7;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!devnull) LLVMFuzzerInitialize(NULL, NULL);
  wv_config cfg = {0};
  launch_cfg lc;
  char async[32], sched[32];
  pick(wvf_hash(data, size), &cfg, &lc, async, sched, sizeof async);
  if (verbose)
    fprintf(stderr, "fuzz_ptx: --machine %s --warps-per-wave %u --memory-model %s --seed %u --async-delivery %s "
            "--schedule %s --check %u; grid %u block %ux%ux%u shared %u%s; integer arguments %u\n",
            cfg.machine ? cfg.machine : "sm_90", cfg.warps_per_wave, cfg.memory_model, cfg.seed,
            cfg.async_delivery ? cfg.async_delivery : "at-wait", cfg.schedule ? cfg.schedule : "serial", cfg.checks,
            lc.grid.x, lc.block.x, lc.block.y, lc.block.z, lc.shared, lc.flags ? " cooperative" : "", lc.ival);
  wv_vm *vm = wv_create(&cfg);
  WVF_CHECK(vm != NULL, "wv_create refused a valid configuration (machine %s)", cfg.machine ? cfg.machine : "-");
  wv_module *m = NULL;
  wv_status st = wv_module_load_string(vm, (const char *)data, size, "fz.ptx", &m);
  if (st != WV_OK) {
    const char *e = wv_last_error(vm);
    WVF_CHECK(st == WV_ERR_NOMEM || located(e), "load failed (%s) without a located message: %s", wv_status_name(st), e);
    wv_destroy(vm);
    return 0;
  }
  if (cfg.machine && strncmp(cfg.machine, "gfx", 3) == 0) wv_module_print_lowering(vm, m, devnull);
  static uint8_t blob[64 * 1024];
  void *args[WVF_MAX_PARAMS];
  uint32_t nk = wv_module_kernel_count(m);
  for (uint32_t i = 0; i < nk && i < WVF_MAX_KERNELS; i++) {
    const wv_kernel *k = wv_module_kernel_at(m, i);
    WVF_CHECK(k != NULL && wv_kernel_name(k) != NULL, "kernel %u of %u missing", i, nk);
    if (make_args(vm, k, &lc, args, blob, sizeof blob)) continue;
    if (verbose) fprintf(stderr, "fuzz_ptx: launching %s\n", wv_kernel_name(k));
    st = wv_launch_ex(vm, k, lc.grid, lc.block, lc.shared, args, lc.flags);
    if (verbose) fprintf(stderr, "fuzz_ptx: %s: %s %s\n", wv_kernel_name(k), wv_status_name(st), wv_last_error(vm));
    WVF_CHECK(st == WV_OK || wv_last_error(vm)[0], "launch of %s failed (%s) without a message", wv_kernel_name(k),
              wv_status_name(st));
  }
  wv_stats s;
  wv_get_stats(vm, &s);
  wv_diag_print(vm, devnull);
  wv_destroy(vm);
  return 0;
}
