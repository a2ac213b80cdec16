/*
 * state.c — the runtime object: the lock, the vm it shares with warpvm's driver (libcuda.so.1 makes
 * it from the environment the `warpvm ./app` launcher sets), CUDA's error model (per-thread last
 * error, sticky kernel faults seen at the next synchronising call) and teardown. Also the
 * error-string API.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/cudart.h"

static cudart g_rt; /* the one runtime of the process (see cudart.h) */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static _Thread_local cudaError_t tl_last = cudaSuccess;
static _Thread_local int tl_depth; /* the runtime's lock, taken this many times by the thread */

cudaError_t *wv_cr_last_error(void) { return &tl_last; }

/* What was already said on stderr (unsupported entry points, misused handles, ...): the driver keeps the
 * one list of the process. */
int wv_cr_first_time(cudart *r, const char *what) {
  (void)r;
  return wvcu_first_time(what);
}

/* Library teardown: after every atexit handler of the program. Device printf, counters and
 * diagnostics are the driver's (libcuda.so.1), whose teardown comes after this one. */
__attribute__((destructor)) static void rt_fini(void) {
  if (!g_rt.vm) return;
  pthread_mutex_lock(&g_rt.lock);
  wv_cr_flush_printf(&g_rt);
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
  r->vm = wvcu_shared_vm(); /* the process's one vm, made by the driver from the environment */
  cuInit(0);                /* streams, events and graphs are the driver's */
  wvcu_set_runtime_version(WV_CUDART_VERSION); /* device code's cudaRuntimeGetVersion answers it too */
  r->verbose = wvcu_verbose();
  r->heap_limit = 8u << 20;
  r->stack_limit = 0;
  wv_cr_fill_props(r);
}

/* The runtime's lock, then the driver's (whose allocation table the runtime uses): always in this order. */
cudart *wv_cr_enter(const char *api) {
  pthread_once(&g_once, rt_init);
  pthread_mutex_lock(&g_rt.lock);
  wvcu_lock();
  if (!tl_depth++) wvcu_caller(api);
  return &g_rt;
}

void wv_cr_unlock(void) {
  if (!--tl_depth) wvcu_caller(NULL);
  wvcu_unlock();
  pthread_mutex_unlock(&g_rt.lock);
}

cudaError_t wv_cr_ret(cudaError_t e) {
  if (e != cudaSuccess) tl_last = e;
  wv_cr_unlock();
  return e;
}

/* The fault state is the driver's: a fault in a kernel a graph launched there counts too. */
cudaError_t wv_cr_device_check(cudart *r) {
  if (r->unloading) return cudaErrorCudartUnloading;
  return wv_cr_from_cu(wvcu_sticky());
}

void wv_cr_sync_point(cudart *r) {
  (void)r;
  wvcu_sync_point(); /* device printf flushed, a pending fault made sticky */
}

cudaError_t wv_cr_synchronize(cudart *r) {
  cudaError_t e = wv_cr_from_cu(wvcu_synchronize()); /* printf flushed, faults sticky, pools trimmed, stdout */
  return r->unloading ? cudaErrorCudartUnloading : e;
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
  case WV_ERR_CLUSTER: return cudaErrorInvalidClusterSize;
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
#include "cudadrv/rt_errors.def"
#undef WV_CUDA_ERROR
  default: return "unrecognized error code";
  }
}

WV_EXPORT const char *cudaGetErrorString(cudaError_t e) {
  switch ((int)e) {
#define WV_CUDA_ERROR(code, name, str) case code: return str;
#include "cudadrv/rt_errors.def"
#undef WV_CUDA_ERROR
  default: return "unrecognized error code";
  }
}
