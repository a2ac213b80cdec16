/*
 * device.c — the virtual device the runtime presents: its cudaDeviceProp (CUDA 12 or 13
 * layout), cudaDeviceGetAttribute, and device management (count, set/get, flags, limits,
 * synchronize, reset, versions). One device, ordinal 0, compute capability 9.0: warpvm runs PTX
 * up to sm_90 with NVIDIA's warp semantics, or lowered onto an AMD wave model (the name says which).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudart/cudart.h"


void wv_cr_fill_props(cudart *r) { wvcu_fill_props(&r->prop); }

static void copy_props(const wv_prop_all *a, cudaDeviceProp *out) {
  memset(out, 0, sizeof *out);
#define WV_COPY(t, n, d) memcpy(&out->n, &a->n, sizeof out->n);
#if WV_CUDART_MAJOR >= 13
  WV_DEVICE_PROP_FIELDS(WV_COPY, WV_PROP_SKIP, WV_COPY, WV_PROP_SKIP)
#else
  WV_DEVICE_PROP_FIELDS(WV_COPY, WV_COPY, WV_PROP_SKIP, WV_PROP_SKIP)
#endif
#undef WV_COPY
}

WV_EXPORT cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int dev) {
  cudart *r = wv_cr();
  if (!prop) return wv_cr_ret(cudaErrorInvalidValue);
  if (dev != 0) return wv_cr_ret(cudaErrorInvalidDevice);
  copy_props(&r->prop, prop);
  return wv_cr_ret(cudaSuccess);
}

/* CUDA 12's headers call this name (same layout as the plain one in the same library). */
WV_EXPORT cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp *prop, int dev) { return cudaGetDeviceProperties(prop, dev); }

WV_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, int attr, int dev) {
  cudart *r = wv_cr();
  if (!value) return wv_cr_ret(cudaErrorInvalidValue);
  if (dev != 0) return wv_cr_ret(cudaErrorInvalidDevice);
  if (wvcu_attribute(&r->prop, attr, value)) return wv_cr_ret(cudaErrorInvalidValue);
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGetDeviceCount(int *count) {
  if (!count) return cudaErrorInvalidValue;
  *count = 1;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaSetDevice(int dev) {
  cudart *r = wv_cr();
  return wv_cr_ret(dev == 0 ? wv_cr_device_check(r) : cudaErrorInvalidDevice);
}

WV_EXPORT cudaError_t cudaInitDevice(int dev, unsigned int dflags, unsigned int flags) {
  (void)dflags, (void)flags;
  return cudaSetDevice(dev);
}

WV_EXPORT cudaError_t cudaGetDevice(int *dev) {
  if (!dev) return cudaErrorInvalidValue;
  *dev = 0;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaChooseDevice(int *dev, const cudaDeviceProp *prop) {
  (void)prop;
  return cudaGetDevice(dev);
}

WV_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  cudart *r = wv_cr();
  r->device_flags = flags;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
  cudart *r = wv_cr();
  if (!flags) return wv_cr_ret(cudaErrorInvalidValue);
  *flags = r->device_flags;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaDeviceSynchronize(void) {
  cudart *r = wv_cr();
  return wv_cr_ret(wv_cr_synchronize(r));
}

WV_EXPORT cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }

WV_EXPORT cudaError_t cudaDeviceReset(void) {
  cudart *r = wv_cr();
  wv_cr_sync_point(r);
  cuDevicePrimaryCtxReset_v2(0); /* streams, events, graphs, memory and pools, faults: the driver's */
  wv_cr_reload_modules(r);
  *wv_cr_last_error() = cudaSuccess;
  wv_cr_printf_init(r); /* a new context: its limits are the defaults */
  r->device_flags = 0;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }

WV_EXPORT cudaError_t cudaRuntimeGetVersion(int *v) {
  if (!v) return cudaErrorInvalidValue;
  *v = WV_CUDART_VERSION;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaDriverGetVersion(int *v) {
  if (!v) return cudaErrorInvalidValue;
  *v = 13000;
  return cudaSuccess;
}

static cudaError_t get_limit(const cudart *r, int limit, size_t *v) {
  switch (limit) {
  case cudaLimitStackSize: *v = r->stack_limit ? r->stack_limit : 1024; break;
  case cudaLimitPrintfFifoSize: *v = wv_cr_printf_limit(r); break;
  case cudaLimitMallocHeapSize: *v = r->heap_limit; break;
  case cudaLimitDevRuntimePendingLaunchCount: case cudaLimitPersistingL2CacheSize: /* the driver's */
    cuCtxGetLimit(v, limit);
    break;
  case cudaLimitDevRuntimeSyncDepth: return cudaErrorUnsupportedLimit;          /* CDP1 only: as an H200, CUDA 13 */
  default:
    if (limit < 0 || limit > cudaLimitPersistingL2CacheSize) return cudaErrorInvalidValue; /* as an H100 */
    *v = 0;
    break;
  }
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaDeviceGetLimit(size_t *v, int limit) {
  cudart *r = wv_cr();
  if (!v) return wv_cr_ret(cudaErrorInvalidValue);
  return wv_cr_ret(get_limit(r, limit, v));
}

WV_EXPORT cudaError_t cudaDeviceSetLimit(int limit, size_t v) {
  cudart *r = wv_cr();
  if (limit == cudaLimitMallocHeapSize) {
    r->heap_limit = v;
    wv_set_device_heap(r->vm, v);
  } else if (limit == cudaLimitStackSize) {
    if (v > 0xffffffffu) return wv_cr_ret(cudaErrorInvalidValue);
    r->stack_limit = v;
    wv_set_stack_limit(r->vm, v);
  } else if (limit == cudaLimitPrintfFifoSize) {
    return wv_cr_ret(wv_cr_printf_set_limit(r, v));
  } else if (limit == cudaLimitDevRuntimePendingLaunchCount || limit == cudaLimitPersistingL2CacheSize) {
    if (cuCtxSetLimit(limit, v)) return wv_cr_ret(cudaErrorInvalidValue); /* the driver's limits */
  } else if (limit < 0 || limit > cudaLimitPersistingL2CacheSize) {
    return wv_cr_ret(cudaErrorInvalidValue); /* as an H100 answers */
  }
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaThreadGetLimit(size_t *v, int limit) { return cudaDeviceGetLimit(v, limit); }
WV_EXPORT cudaError_t cudaThreadSetLimit(int limit, size_t v) { return cudaDeviceSetLimit(limit, v); }

WV_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}

/* Performance hints with no meaning on a virtual device: accepted. */
WV_EXPORT cudaError_t cudaDeviceSetCacheConfig(int c) { (void)c; return cudaSuccess; }
WV_EXPORT cudaError_t cudaDeviceGetCacheConfig(int *c) { if (c) *c = 0; return cudaSuccess; }
WV_EXPORT cudaError_t cudaDeviceSetSharedMemConfig(int c) { (void)c; return cudaSuccess; }
WV_EXPORT cudaError_t cudaDeviceGetSharedMemConfig(int *c) { if (c) *c = 1; return cudaSuccess; }
WV_EXPORT cudaError_t cudaThreadSetCacheConfig(int c) { (void)c; return cudaSuccess; }
WV_EXPORT cudaError_t cudaThreadGetCacheConfig(int *c) { if (c) *c = 0; return cudaSuccess; }
WV_EXPORT cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
WV_EXPORT cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
WV_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer) {
  (void)dev, (void)peer;
  if (can) *can = 0;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int dev) {
  if (!id || len <= 0) return cudaErrorInvalidValue;
  if (dev != 0) return cudaErrorInvalidDevice;
  snprintf(id, (size_t)len, "0000:00:00.0");
  return cudaSuccess;
}

/* ---- the driver's entry points (how runtime programs reach driver-only functions: cuTensorMapEncodeTiled) ---- */
int cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, unsigned long long flags, int *status);

/* The driver function `symbol` for CUDA version `version` (cuGetProcAddress's table); a name the driver lacks is
 * success with status cudaDriverEntryPointSymbolNotFound (1) and NULL, as CUDA answers. */
static cudaError_t entry_point(const char *symbol, void **fn, int version, unsigned long long flags, int *status) {
  (void)wv_cr(); /* (wv_cr_ret unlocks it) */
  if (!symbol || !fn || flags > 3) return wv_cr_ret(cudaErrorInvalidValue);
  int st = 1;
  cuGetProcAddress_v2(symbol, fn, version, flags, &st);
  if (st) *fn = NULL;
  if (status) *status = st;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags, int *status) {
  return entry_point(symbol, fn, WV_CUDART_VERSION, flags, status);
}

WV_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned int version,
                                                       unsigned long long flags, int *status) {
  return entry_point(symbol, fn, (int)version, flags, status);
}
