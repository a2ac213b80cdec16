/*
 * bench.c — how fast warpvm simulates: thread-instructions per second on one core, through the
 * public API (include/warpvm.h). Not a test, though each result is checked against a host model.
 *
 * It owns the benchmark cases: four nvcc-generated kernels in bench/kernels/ (the .cu sources
 * beside them): convergent arithmetic, warp shuffle reductions, data-dependent branches, and a
 * shared-memory block reduction with barriers. Each runs once to warm, then once timed with
 * CLOCK_MONOTONIC; the table gives the thread-instructions (wv_stats), seconds, M thread-instr/s
 * and SIMT efficiency (thread_instructions / (32 * warp_instructions)).
 *
 *   wv_bench [--filter NAME] [--scale N] [--threads N] [--kernels DIR]
 *
 * At --scale 1 each case runs about 200 million thread-instructions (twice: warm, timed), so
 * the whole run takes about 1.6G thread-instructions: a few seconds at the 700-1100 M/s measured
 * on the first working build, under 30 s down to about 60 M/s. --scale N multiplies the grid.
 * --threads N runs the CTAs on N threads (wv_config.threads; default: one per core).
 * Exit status: 0 ok, 1 usage, 2 VM error or wrong result.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "warpvm.h"

/* ---- host models of the kernels (the .cu files, line for line) ------------------------------ */

static void ref_arith(uint32_t tid, int iters, const uint32_t *in, uint32_t *out, float *fout) {
  (void)in;
  uint32_t a = tid * 2654435761u, b = tid ^ 0x9e3779b9u;
  float x = (float)tid * 0.001f, y = 1.0f;
  for (int i = 0; i < iters; i++) {
    a = a * 1664525u + b;
    b ^= a >> 7;
    b += a << 3;
    x = fmaf(x, 0.9999f, y);
    y = fmaf(y, 0.5f, 0.25f);
  }
  out[tid] = a ^ b;
  fout[tid] = x + y;
}

static void ref_divergent(uint32_t tid, int iters, const uint32_t *in, uint32_t *out, float *fout) {
  (void)fout;
  uint32_t x = in[tid];
  for (int i = 0; i < iters; i++) {
    if (x & 1) {
      x = x * 3u + 1u;
      x ^= x >> 11;
      x += (uint32_t)i * 0x9e3779b9u;
    } else {
      x = (x >> 1) ^ 0x5bd1e995u;
      x *= 0x27d4eb2du;
      x ^= x << 7;
    }
    uint32_t n = (x >> 5) & 7u;
    for (uint32_t j = 0; j < n; j++) x = x * 1103515245u + 12345u;
  }
  out[tid] = x;
}

/* Whole warps at once: `tid` is the warp's first thread. */
static void ref_shfl_reduce(uint32_t tid, int iters, const uint32_t *in, uint32_t *out, float *fout) {
  (void)in, (void)fout;
  uint32_t s[32], t[32], n[32], acc[32] = {0};
  for (int i = 0; i < iters; i++) {
    for (uint32_t l = 0; l < 32; l++) s[l] = tid + l + (uint32_t)i, t[l] = (tid + l) ^ (uint32_t)i;
    for (uint32_t o = 16; o > 0; o >>= 1) {
      for (uint32_t l = 0; l < 32; l++) n[l] = s[l] + s[l ^ o];
      memcpy(s, n, sizeof s);
      for (uint32_t l = 0; l < 32; l++) n[l] = t[l] + (l + o < 32 ? t[l + o] : t[l]);
      memcpy(t, n, sizeof t);
    }
    for (uint32_t l = 0; l < 32; l++) acc[l] += s[l] ^ t[l];
  }
  memcpy(out + tid, acc, sizeof acc);
}

/* Whole blocks at once (256 threads): `tid` is the block's first thread; out[block] is its sum. */
static void ref_smem_reduce(uint32_t tid, int iters, const uint32_t *in, uint32_t *out, float *fout) {
  (void)fout;
  uint32_t acc = 0;
  for (int i = 0; i < iters; i++)
    for (uint32_t t = 0; t < 256; t++) acc += in[tid + t] + (uint32_t)i;
  out[tid / 256] = acc;
}

/* ---- the cases ------------------------------------------------------------------------------ */

/*
 * Kernel parameters, in order, one letter each: 'I' the input buffer (one xorshift32 u32 per
 * thread), 'O' the u32 output buffer (one per thread), 'F' the f32 output buffer, 'N' iters.
 */
typedef struct bench_case {
  const char *name;   /* kernel name, and bench/kernels/NAME.ptx */
  const char *params; /* see above */
  uint32_t grid, block, step; /* grid at --scale 1; the model runs `step` threads at a time */
  int iters;
  int per_block;      /* one u32 output per block (else one per thread) */
  void (*ref)(uint32_t tid, int iters, const uint32_t *in, uint32_t *out, float *fout);
} bench_case;

static const bench_case CASES[] = {
    {"arith", "OFN", 64, 256, 1, 1536, 0, ref_arith},
    {"shfl_reduce", "ON", 64, 256, 32, 384, 0, ref_shfl_reduce},
    {"divergent", "ION", 64, 256, 1, 384, 0, ref_divergent},
    {"smem_reduce", "ION", 64, 256, 256, 192, 1, ref_smem_reduce},
};

typedef struct bench_result {
  uint64_t thread_instructions, warp_instructions;
  double seconds;
  int ok; /* outputs match the host model */
} bench_result;

/* Device buffers and host copies of one case. */
typedef struct bench_data {
  uint32_t nthreads;
  uint32_t *in, *out, *want;
  float *fout, *fwant;
  wv_devptr d_in, d_out, d_fout;
} bench_data;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int vm_fail(const wv_vm *vm, const char *what, wv_status st) {
  fprintf(stderr, "wv_bench: %s: %s: %s\n", what, wv_status_name(st), wv_last_error(vm));
  return 2;
}

static void data_free(wv_vm *vm, bench_data *d) {
  free(d->in), free(d->out), free(d->want), free(d->fout), free(d->fwant);
  wv_devptr dev[] = {d->d_in, d->d_out, d->d_fout};
  for (int i = 0; i < 3; i++)
    if (dev[i]) wv_free(vm, dev[i]);
}

/* Host arrays, device buffers (input uploaded), and the expected outputs. */
static wv_status data_make(wv_vm *vm, const bench_case *c, uint32_t grid, bench_data *d) {
  uint32_t n = grid * c->block;
  size_t bytes = (size_t)n * 4;
  memset(d, 0, sizeof *d);
  d->nthreads = n;
  d->in = malloc(bytes), d->out = malloc(bytes), d->want = calloc(n, 4);
  d->fout = malloc(bytes), d->fwant = calloc(n, 4);
  if (!d->in || !d->out || !d->want || !d->fout || !d->fwant) return WV_ERR_NOMEM;
  uint32_t x = 12345;
  for (uint32_t i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; d->in[i] = x; }
  for (uint32_t t = 0; t < n; t += c->step) c->ref(t, c->iters, d->in, d->want, d->fwant);
  wv_status st;
  if ((st = wv_malloc(vm, bytes, &d->d_in)) || (st = wv_malloc(vm, bytes, &d->d_out)) ||
      (st = wv_malloc(vm, bytes, &d->d_fout)))
    return st;
  return wv_memcpy_htod(vm, d->d_in, d->in, bytes);
}

static int data_check(wv_vm *vm, const bench_case *c, bench_data *d, int *ok) {
  size_t bytes = (size_t)d->nthreads * 4;
  wv_status st = wv_memcpy_dtoh(vm, d->out, d->d_out, bytes);
  if (!st) st = wv_memcpy_dtoh(vm, d->fout, d->d_fout, bytes);
  if (st) return vm_fail(vm, "reading results", st);
  uint32_t nout = c->per_block ? d->nthreads / c->block : d->nthreads;
  *ok = !memcmp(d->out, d->want, (size_t)nout * 4);
  if (strchr(c->params, 'F')) *ok = *ok && !memcmp(d->fout, d->fwant, bytes);
  return 0;
}

static int launch(wv_vm *vm, const wv_kernel *k, const bench_case *c, uint32_t grid, bench_data *d) {
  void *args[4];
  int n = 0;
  for (const char *p = c->params; *p; p++)
    args[n++] = *p == 'I' ? (void *)&d->d_in : *p == 'O' ? (void *)&d->d_out : *p == 'F' ? (void *)&d->d_fout
                                                                                  : (void *)&c->iters;
  wv_dim3 g = {grid, 1, 1}, b = {c->block, 1, 1};
  wv_status st = wv_launch(vm, k, g, b, 0, args);
  return st ? vm_fail(vm, c->name, st) : 0;
}

/* Load, warm, time, check one case. */
static int run_case(wv_vm *vm, const char *dir, const bench_case *c, uint32_t scale, bench_result *r) {
  char path[4096];
  wv_module *m;
  const wv_kernel *k;
  wv_status st;
  snprintf(path, sizeof path, "%s/%s.ptx", dir, c->name);
  if ((st = wv_module_load_file(vm, path, &m))) {
    fprintf(stderr, "wv_bench: %s\n(use --kernels DIR to say where the .ptx files are)\n", wv_last_error(vm));
    return 2;
  }
  if ((st = wv_kernel_get(m, c->name, &k))) return vm_fail(vm, path, st);
  bench_data d;
  uint32_t grid = c->grid * scale;
  int rc = (st = data_make(vm, c, grid, &d)) ? vm_fail(vm, "buffers", st) : launch(vm, k, c, grid, &d);
  if (!rc) {
    wv_stats_reset(vm);
    double t0 = now_seconds();
    rc = launch(vm, k, c, grid, &d);
    r->seconds = now_seconds() - t0;
  }
  wv_stats s;
  wv_get_stats(vm, &s);
  r->thread_instructions = s.thread_instructions;
  r->warp_instructions = s.warp_instructions;
  if (!rc) rc = data_check(vm, c, &d, &r->ok);
  data_free(vm, &d);
  wv_module_unload(m);
  return rc;
}

/* ---- main ----------------------------------------------------------------------------------- */

static const char USAGE[] = "usage: wv_bench [--filter NAME] [--scale N] [--threads N] [--kernels DIR]\n"
                            "  --filter NAME   run only the cases whose name contains NAME\n"
                            "  --scale N       multiply every grid by N (default 1)\n"
                            "  --threads N     threads that run the CTAs (default: one per core)\n"
                            "  --kernels DIR   where NAME.ptx are (default: bench/kernels beside bench.c)\n";

typedef struct bench_opts {
  const char *filter, *dir;
  uint32_t scale, threads;
  char dirbuf[4096];
} bench_opts;

static int parse_scale(const char *v, uint32_t *out) {
  char *end;
  unsigned long n = strtoul(v, &end, 10);
  if (v[0] < '1' || v[0] > '9' || *end || n > 1000) return 0;
  *out = (uint32_t)n;
  return 1;
}

/* Returns 0 to run, -1 after --help, 1 after a usage error. */
static int parse_opts(int argc, char **argv, bench_opts *o) {
  const char *slash = strrchr(__FILE__, '/');
  o->filter = NULL;
  o->scale = 1;
  o->threads = 0;
  snprintf(o->dirbuf, sizeof o->dirbuf, "%.*skernels", slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__);
  o->dir = o->dirbuf;
  for (int i = 1; i < argc; i += 2) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(USAGE, stdout); return -1; }
    if (v && !strcmp(a, "--filter")) o->filter = v;
    else if (v && !strcmp(a, "--kernels")) o->dir = v;
    else if (v && !strcmp(a, "--threads") && parse_scale(v, &o->threads)) continue;
    else if (!v || strcmp(a, "--scale") || !parse_scale(v, &o->scale)) { fputs(USAGE, stderr); return 1; }
  }
  return 0;
}

int main(int argc, char **argv) {
  bench_opts o;
  int rc = parse_opts(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : 1;
  wv_vm *vm = wv_create(&(wv_config){.threads = o.threads});
  if (!vm) { fprintf(stderr, "wv_bench: out of memory\n"); return 2; }
  printf("%-12s %10s %14s %9s %14s %9s  %s\n", "kernel", "threads", "thread-instr", "seconds", "M thr-instr/s",
         "simt_eff", "result");
  int ran = 0, wrong = 0;
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0] && !rc; i++) {
    const bench_case *c = &CASES[i];
    if (o.filter && !strstr(c->name, o.filter)) continue;
    bench_result r = {0};
    if ((rc = run_case(vm, o.dir, c, o.scale, &r))) break;
    ran++;
    wrong += !r.ok;
    double eff = r.warp_instructions ? (double)r.thread_instructions / (32.0 * (double)r.warp_instructions) : 0;
    printf("%-12s %10u %14llu %9.4f %14.1f %9.4f  %s\n", c->name, c->grid * o.scale * c->block,
           (unsigned long long)r.thread_instructions, r.seconds,
           r.seconds > 0 ? (double)r.thread_instructions / r.seconds / 1e6 : 0.0, eff, r.ok ? "ok" : "WRONG");
    fflush(stdout);
  }
  wv_destroy(vm);
  if (!rc && !ran) { fprintf(stderr, "wv_bench: no case matches --filter %s\n", o.filter); rc = 1; }
  if (!rc && wrong) { fprintf(stderr, "wv_bench: %d case(s) computed WRONG results\n", wrong); rc = 2; }
  return rc;
}
