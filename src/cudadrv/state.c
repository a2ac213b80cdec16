/*
 * state.c — the driver object: its creation from the environment the `warpvm ./app` launcher sets
 * (WARPVM_MACHINE, WARPVM_MAX_STEPS, WARPVM_CHECK, ...), the lock, the table of live handles (so a
 * stale or made-up handle is an error, never a crash), the calling thread's current context, CUDA's
 * sticky kernel faults, and teardown at exit (printf flushed, counters and diagnostics printed).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/cu.h"
#include "cudadrv/wvcu.h"

static cu_driver g_drv; /* the one driver of the process (see cu.h) */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static _Thread_local cu_ctx *tl_ctx;
static _Thread_local int tl_ctx_set; /* the thread chose its context (else: the primary one, once retained) */
static _Thread_local const char *tl_caller; /* wvcu_caller: the runtime function calling the driver */

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

static void print_stats(cu_driver *d) {
  wv_stats s;
  wv_get_stats(d->vm, &s);
  fprintf(stderr,
          "warpvm: %llu launches, %llu CTAs, %llu warp instructions, %llu thread instructions, "
          "%.3f s in kernels (%.1f M thread-instructions/s), %.1f ms compiling (JIT)\n",
          (unsigned long long)s.launches, (unsigned long long)s.ctas, (unsigned long long)s.warp_instructions,
          (unsigned long long)s.thread_instructions, s.kernel_seconds,
          s.kernel_seconds > 0 ? (double)s.thread_instructions / s.kernel_seconds * 1e-6 : 0.0, s.jit_seconds * 1e3);
}

/* Library teardown: after every atexit handler of the program and after the runtime's teardown
 * (libcudart depends on this library, so its destructors run first). */
__attribute__((destructor)) static void drv_fini(void) {
  if (!g_drv.vm) return;
  pthread_mutex_lock(&g_drv.lock);
  cu_flush_printf(&g_drv);
  fflush(stdout);
  if (g_drv.stats) print_stats(&g_drv);
  wv_profile_write(g_drv.vm, g_drv.profile ? stderr : NULL, getenv("WARPVM_PROFILE_JSON"), getenv("WARPVM_TRACE"));
  wv_diag_print(g_drv.vm, stderr); /* what the GPU let pass (invalid reads, ...), if anything */
  g_drv.unloading = 1;
  pthread_mutex_unlock(&g_drv.lock);
}

static void drv_init(void) {
  cu_driver *d = &g_drv;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&d->lock, &a);
  pthread_mutexattr_destroy(&a);
  wv_config cfg = {0};
  /* The watchdog (README): 60 s of wall time per launch unless WARPVM_TIMEOUT / WARPVM_MAX_STEPS say otherwise. */
  cfg.max_steps = env_u64("WARPVM_MAX_STEPS", 0, UINT64_MAX);
  cfg.timeout_seconds = (uint32_t)env_u64("WARPVM_TIMEOUT", getenv("WARPVM_MAX_STEPS") ? 0 : 60, UINT32_MAX);
  cfg.printf_out = cu_printf_record;
  cfg.printf_user = d;
  cfg.machine = getenv("WARPVM_MACHINE");
  cfg.warps_per_wave = (uint32_t)env_u64("WARPVM_WARPS_PER_WAVE", 0, 2);
  cfg.async_delivery = getenv("WARPVM_ASYNC_DELIVERY");
  cfg.memory_model = getenv("WARPVM_MEMORY_MODEL");
  cfg.engine = getenv("WARPVM_ENGINE");
  cfg.schedule = getenv("WARPVM_SCHEDULE");
  cfg.stack_bytes = (uint32_t)env_u64("WARPVM_STACK", 0, UINT32_MAX);
  cfg.seed = (uint32_t)env_u64("WARPVM_SEED", 0, UINT32_MAX);
  cfg.no_contract = (int)env_u64("WARPVM_NO_CONTRACT", 0, 1);
  cfg.threads = (uint32_t)env_u64("WARPVM_THREADS", 0, 1024);
  d->profile = (int)env_u64("WARPVM_PROFILE", 0, 1);
  cfg.profile = (d->profile || getenv("WARPVM_PROFILE_JSON") ? WV_PROFILE_ON : 0) |
                (getenv("WARPVM_TRACE") ? WV_PROFILE_ON | WV_PROFILE_TRACE : 0);
  const char *checks = getenv("WARPVM_CHECK");
  if (checks && wv_checks_parse(checks, &cfg.checks) != WV_OK)
    fatal("bad WARPVM_CHECK=%s (memcheck, synccheck, comma-separated)", checks);
  d->vm = wv_create(&cfg);
  if (!d->vm)
    fatal("cannot create the virtual GPU (WARPVM_MACHINE=%s, WARPVM_WARPS_PER_WAVE=%s): see `warpvm machines`",
          cfg.machine ? cfg.machine : "", getenv("WARPVM_WARPS_PER_WAVE") ? getenv("WARPVM_WARPS_PER_WAVE") : "");
  d->verbose = (int)env_u64("WARPVM_VERBOSE", 0, 1);
  d->stats = (int)env_u64("WARPVM_STATS", 0, 1);
  d->heap_limit = 8u << 20;
  d->stack_limit = cfg.stack_bytes;
  cu_printf_reset(d);
  wvcu_fill_props(&d->prop);
  cu_devrt_init(d);
}

cu_driver *cu_lock(void) {
  pthread_once(&g_once, drv_init);
  pthread_mutex_lock(&g_drv.lock);
  return &g_drv;
}

CUresult cu_ret(CUresult e) {
  pthread_mutex_unlock(&g_drv.lock);
  return e;
}

CU_EXPORT wv_vm *wvcu_shared_vm(void) {
  pthread_once(&g_once, drv_init);
  return g_drv.vm;
}

CU_EXPORT int wvcu_verbose(void) {
  pthread_once(&g_once, drv_init);
  return g_drv.verbose;
}

CUresult cu_check(cu_driver *d) {
  if (d->unloading) return CUDA_ERROR_DEINITIALIZED;
  if (!d->initialized) return CUDA_ERROR_NOT_INITIALIZED;
  return d->sticky;
}

CUresult cu_synchronize(cu_driver *d) {
  cu_sync_point(d);
  cu_pools_sync(d);
  fflush(stdout);
  return cu_check(d);
}

void cu_sync_point(cu_driver *d) {
  cu_flush_printf(d);
  if (d->pending != CUDA_SUCCESS && d->sticky == CUDA_SUCCESS) d->sticky = d->pending;
  d->pending = CUDA_SUCCESS;
}

CU_EXPORT void wvcu_caller(const char *api) { tl_caller = api; }
const char *cu_caller(void) { return tl_caller; }

/* The one fault state of the process, for warpvm's runtime too (wvcu.h). */
CU_EXPORT int wvcu_sticky(void) {
  int e = cu_lock()->sticky;
  cu_ret(CUDA_SUCCESS);
  return e;
}
CU_EXPORT void wvcu_pending(int e) {
  cu_driver *d = cu_lock();
  if (d->pending == CUDA_SUCCESS) d->pending = e;
  cu_ret(CUDA_SUCCESS);
}
CU_EXPORT void wvcu_sync_point(void) {
  cu_sync_point(cu_lock());
  cu_ret(CUDA_SUCCESS);
}

CUresult cu_from_status(wv_status st) {
  switch (st) {
  case WV_OK: return CUDA_SUCCESS;
  case WV_ERR_INVALID: case WV_ERR_LAUNCH: return CUDA_ERROR_INVALID_VALUE;
  case WV_ERR_NOMEM: return CUDA_ERROR_OUT_OF_MEMORY;
  case WV_ERR_NOT_FOUND: return CUDA_ERROR_NOT_FOUND;
  case WV_ERR_UNSUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
  case WV_ERR_FAULT: return CUDA_ERROR_ILLEGAL_ADDRESS;
  case WV_ERR_WATCHDOG: return CUDA_ERROR_LAUNCH_TIMEOUT;
  case WV_ERR_PARSE: return CUDA_ERROR_INVALID_PTX;
  case WV_ERR_ASSERT: return CUDA_ERROR_ASSERT;
  case WV_ERR_MISALIGNED: return CUDA_ERROR_MISALIGNED_ADDRESS;
  case WV_ERR_ILLEGAL_INSN: return CUDA_ERROR_ILLEGAL_INSTRUCTION;
  case WV_ERR_CLUSTER: return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  default: return CUDA_ERROR_LAUNCH_FAILED; /* trap, deadlock */
  }
}

/* What was already said on stderr: a list of keys. */
typedef struct said { struct said *next; char key[]; } said;

int cu_first_time(cu_driver *d, const char *what) {
  said **p = (said **)&d->warned;
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

CU_EXPORT int wvcu_first_time(const char *what) {
  cu_driver *d = cu_lock();
  int r = cu_first_time(d, what);
  cu_ret(CUDA_SUCCESS);
  return r;
}

CUresult cu_bad(cu_driver *d, const char *api, const char *what, CUresult e) {
  char key[256];
  snprintf(key, sizeof key, "%s: %s", api, what);
  if (d->verbose && cu_first_time(d, key)) fprintf(stderr, "warpvm: %s (not repeated)\n", key);
  return e;
}

/* ---- live handles: an open-addressing set of pointers with their kind ---- */
static uint32_t slot_of(const cu_driver *d, const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(h >> 32) & (d->objs.cap - 1);
}

static void *const TOMB = (void *)1;

int cu_obj_add(cu_driver *d, void *p, cu_kind k) {
  if (2 * (d->objs.n + 1) > d->objs.cap) {
    uint32_t oc = d->objs.cap, nc = oc ? 2 * oc : 64;
    void **op = d->objs.p;
    cu_kind *ok = d->objs.k;
    void **np = calloc(nc, sizeof *np);
    cu_kind *nk = calloc(nc, sizeof *nk);
    if (!np || !nk) {
      free(np), free(nk);
      return -1;
    }
    d->objs.p = np, d->objs.k = nk, d->objs.cap = nc, d->objs.n = 0;
    for (uint32_t i = 0; i < oc; i++)
      if (op[i] && op[i] != TOMB) cu_obj_add(d, op[i], ok[i]);
    free(op), free(ok);
  }
  uint32_t i = slot_of(d, p);
  while (d->objs.p[i] && d->objs.p[i] != TOMB) i = (i + 1) & (d->objs.cap - 1);
  d->objs.p[i] = p, d->objs.k[i] = k, d->objs.n++;
  return 0;
}

static int64_t obj_find(const cu_driver *d, const void *p) {
  if (!d->objs.cap || !p || p == TOMB) return -1;
  for (uint32_t i = slot_of(d, p), n = 0; d->objs.p[i] && n < d->objs.cap; i = (i + 1) & (d->objs.cap - 1), n++)
    if (d->objs.p[i] == p) return i;
  return -1;
}

int cu_obj_check(const cu_driver *d, const void *p, cu_kind k) {
  int64_t i = obj_find(d, p);
  return i >= 0 && d->objs.k[i] == k;
}

void cu_obj_del(cu_driver *d, const void *p) {
  int64_t i = obj_find(d, p);
  if (i >= 0) d->objs.p[i] = TOMB; /* n keeps counting it: the table grows and is rebuilt */
}

/* ---- the current context ---- */
cu_ctx *cu_current(void) {
  if (tl_ctx_set) return tl_ctx;
  return g_drv.primary_refs ? &g_drv.primary : NULL;
}

void cu_set_current(cu_ctx *c) {
  tl_ctx = c;
  tl_ctx_set = 1;
}
