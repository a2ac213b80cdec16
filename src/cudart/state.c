/*
 * state.c — the runtime object: creation from the environment the `warpvm ./app` launcher sets
 * (WARPVM_MACHINE, WARPVM_MAX_STEPS, WARPVM_CHECK, ...), the lock, CUDA's error model (per-thread last
 * error, sticky kernel faults seen at the next synchronising call), device printf buffering (flushed
 * where CUDA flushes it) and teardown at exit (counters, the vm's diagnostics). Also the error-string API.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/cudart.h"

static cudart g_rt; /* the one runtime of the process (see cudart.h) */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static _Thread_local cudaError_t tl_last = cudaSuccess;

cudaError_t *wv_cr_last_error(void) { return &tl_last; }

/* What was already said on stderr (unsupported entry points, misused handles, ...): a list of keys. */
typedef struct said { struct said *next; char key[]; } said;

int wv_cr_first_time(cudart *r, const char *what) {
  said **p = (said **)&r->warned;
  while (*p && strcmp((*p)->key, what)) p = &(*p)->next;
  if (*p) return 0;
  said *s = malloc(sizeof *s + strlen(what) + 1);
  if (s) {
    s->next = NULL;
    strcpy(s->key, what);
    *p = s;
  }
  return 1;
}

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("warpvm: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* A number from the environment (the `warpvm ./app` launcher sets these from validated options): dflt
 * when unset or empty; anything but a number from 0 to max stops the program with a message. */
static uint64_t env_u64(const char *name, uint64_t dflt, uint64_t max) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 0);
  if (*end || errno || v[0] == '-' || x > max) fatal("bad %s=%s (a number from 0 to %llu)", name, v, (unsigned long long)max);
  return (uint64_t)x;
}

static void print_stats(cudart *r) {
  wv_stats s;
  wv_get_stats(r->vm, &s);
  fprintf(stderr,
          "warpvm: %llu launches, %llu CTAs, %llu warp instructions, %llu thread instructions, "
          "%.3f s in kernels (%.1f M thread-instructions/s)\n",
          (unsigned long long)s.launches, (unsigned long long)s.ctas, (unsigned long long)s.warp_instructions,
          (unsigned long long)s.thread_instructions, s.kernel_seconds,
          s.kernel_seconds > 0 ? (double)s.thread_instructions / s.kernel_seconds * 1e-6 : 0.0);
}

/* Library teardown: after every atexit handler of the program (ours was registered first). */
__attribute__((destructor)) static void rt_fini(void) {
  if (!g_rt.vm) return;
  pthread_mutex_lock(&g_rt.lock);
  wv_cr_flush_printf(&g_rt);
  fflush(stdout);
  if (g_rt.stats) print_stats(&g_rt);
  wv_diag_print(g_rt.vm, stderr); /* what the GPU let pass (invalid reads, ...), if anything */
  g_rt.unloading = 1;
  pthread_mutex_unlock(&g_rt.lock);
}

static void rt_init(void) {
  cudart *r = &g_rt;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&r->lock, &a);
  pthread_mutexattr_destroy(&a);
  wv_config cfg = {0};
  /* The watchdog (README): 60 s of wall time per launch unless WARPVM_TIMEOUT / WARPVM_MAX_STEPS say otherwise. */
  cfg.max_steps = env_u64("WARPVM_MAX_STEPS", 0, UINT64_MAX);
  cfg.timeout_seconds = (uint32_t)env_u64("WARPVM_TIMEOUT", getenv("WARPVM_MAX_STEPS") ? 0 : 60, UINT32_MAX);
  cfg.printf_out = wv_cr_printf_record;
  cfg.printf_user = r;
  cfg.machine = getenv("WARPVM_MACHINE");
  cfg.warps_per_wave = (uint32_t)env_u64("WARPVM_WARPS_PER_WAVE", 0, 2);
  cfg.async_delivery = getenv("WARPVM_ASYNC_DELIVERY");
  cfg.memory_model = getenv("WARPVM_MEMORY_MODEL");
  cfg.schedule = getenv("WARPVM_SCHEDULE");
  cfg.stack_bytes = (uint32_t)env_u64("WARPVM_STACK", 0, UINT32_MAX);
  cfg.seed = (uint32_t)env_u64("WARPVM_SEED", 0, UINT32_MAX);
  cfg.no_contract = (int)env_u64("WARPVM_NO_CONTRACT", 0, 1);
  cfg.threads = (uint32_t)env_u64("WARPVM_THREADS", 0, 1024);
  const char *checks = getenv("WARPVM_CHECK");
  if (checks && wv_checks_parse(checks, &cfg.checks) != WV_OK)
    fatal("bad WARPVM_CHECK=%s (memcheck, synccheck, comma-separated)", checks);
  r->vm = wv_create(&cfg);
  if (!r->vm)
    fatal("cannot create the virtual GPU (WARPVM_MACHINE=%s, WARPVM_WARPS_PER_WAVE=%s): see `warpvm machines`",
          cfg.machine ? cfg.machine : "", getenv("WARPVM_WARPS_PER_WAVE") ? getenv("WARPVM_WARPS_PER_WAVE") : "");
  r->verbose = (int)env_u64("WARPVM_VERBOSE", 0, 1);
  r->stats = (int)env_u64("WARPVM_STATS", 0, 1);
  r->heap_limit = 8u << 20;
  r->stack_limit = cfg.stack_bytes;
  wv_cr_printf_init(r);
  wv_cr_fill_props(r);
  wv_cr_devrt_init(r);
}

cudart *wv_cr(void) {
  pthread_once(&g_once, rt_init);
  pthread_mutex_lock(&g_rt.lock);
  return &g_rt;
}

void wv_cr_unlock(void) { pthread_mutex_unlock(&g_rt.lock); }

cudaError_t wv_cr_ret(cudaError_t e) {
  if (e != cudaSuccess) tl_last = e;
  pthread_mutex_unlock(&g_rt.lock);
  return e;
}

cudaError_t wv_cr_device_check(cudart *r) {
  if (r->unloading) return cudaErrorCudartUnloading;
  return r->sticky;
}

void wv_cr_sync_point(cudart *r) {
  wv_cr_flush_printf(r);
  if (r->pending != cudaSuccess && r->sticky == cudaSuccess) r->sticky = r->pending;
  r->pending = cudaSuccess;
}

cudaError_t wv_cr_synchronize(cudart *r) {
  wv_cr_sync_point(r);
  fflush(stdout);
  return wv_cr_device_check(r);
}

cudaError_t wv_cr_from_status(wv_status st) {
  switch (st) {
  case WV_OK: return cudaSuccess;
  case WV_ERR_INVALID: case WV_ERR_LAUNCH: return WV_BAD_CONFIG; /* what the vm refuses at launch */
  case WV_ERR_NOMEM: return cudaErrorMemoryAllocation;
  case WV_ERR_NOT_FOUND: return cudaErrorInvalidDeviceFunction;
  case WV_ERR_UNSUPPORTED: return cudaErrorNotSupported;
  case WV_ERR_FAULT: return cudaErrorIllegalAddress;
  case WV_ERR_WATCHDOG: return cudaErrorLaunchTimeout;
  case WV_ERR_PARSE: return cudaErrorInvalidPtx;
  case WV_ERR_ASSERT: return cudaErrorAssert;
  case WV_ERR_MISALIGNED: return cudaErrorMisalignedAddress;
  case WV_ERR_ILLEGAL_INSN: return cudaErrorIllegalInstruction;
  default: return cudaErrorLaunchFailure; /* trap, deadlock */
  }
}

/* ---- errors API ---- */
/* Returns and clears the thread's last error. A sticky fault is cleared here too (an H200 with
 * CUDA 13 returns it once, then cudaSuccess), but every later device call returns it again. */
WV_EXPORT cudaError_t cudaGetLastError(void) {
  cudaError_t e = tl_last;
  tl_last = cudaSuccess;
  return e;
}

WV_EXPORT cudaError_t cudaPeekAtLastError(void) { return tl_last; }

WV_EXPORT const char *cudaGetErrorName(cudaError_t e) {
  switch ((int)e) {
#define WV_CUDA_ERROR(code, name, str) case code: return #name;
#include "cudart/errors.def"
#undef WV_CUDA_ERROR
  default: return "unrecognized error code";
  }
}

WV_EXPORT const char *cudaGetErrorString(cudaError_t e) {
  switch ((int)e) {
#define WV_CUDA_ERROR(code, name, str) case code: return str;
#include "cudart/errors.def"
#undef WV_CUDA_ERROR
  default: return "unrecognized error code";
  }
}
