/*
 * device.c — initialisation, the one device (ordinal 0: its name, UUID, memory, attributes from
 * devprops.c) and contexts: the primary context (retain/release/reset/flags) and contexts made
 * with cuCtxCreate, the per-thread current context and its stack (push/pop), limits, and
 * cuCtxSynchronize, a flush point. Every context is a handle on the same device state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/cuapi.h"
#include "cudadrv/graph.h"
#include "cudadrv/wvcu.h"

#define CTX_STACK_MAX 64
static _Thread_local cu_ctx *tl_stack[CTX_STACK_MAX];
static _Thread_local int tl_depth;

CU_EXPORT CUresult cuInit(unsigned flags) {
  cu_driver *d = cu_lock();
  if (flags) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!d->initialized) {
    d->initialized = 1;
    cu_obj_add(d, &d->primary, CU_K_CTX);
    d->primary.primary = 1;
  }
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuDriverGetVersion(int *v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = CU_DRIVER_VERSION;
  return CUDA_SUCCESS;
}

/* Every device call starts here: initialised, a valid ordinal. */
static CUresult dev_ok(cu_driver *d, CUdevice dev) {
  if (!d->initialized) return CUDA_ERROR_NOT_INITIALIZED;
  return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CU_EXPORT CUresult cuDeviceGetCount(int *count) {
  cu_driver *d = cu_lock();
  if (!count) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!d->initialized) return cu_ret(CUDA_ERROR_NOT_INITIALIZED);
  *count = 1;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
  cu_driver *d = cu_lock();
  if (!dev) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, ordinal);
  if (e == CUDA_SUCCESS) *dev = 0;
  return cu_ret(e);
}

CU_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!name || len <= 0) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS) snprintf(name, (size_t)len, "%s", d->prop.name);
  return cu_ret(e);
}

CU_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!bytes) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS) *bytes = d->prop.totalGlobalMem;
  return cu_ret(e);
}

CU_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!uuid) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS) memcpy(uuid->bytes, d->prop.uuid.bytes, 16);
  return cu_ret(e);
}

CU_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) { return cuDeviceGetUuid(uuid, dev); }

CU_EXPORT CUresult cuDeviceGetLuid(char *luid, unsigned *mask, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!luid || !mask) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  return cu_ret(e == CUDA_SUCCESS ? CUDA_ERROR_NOT_SUPPORTED : e); /* Windows only, as on Linux drivers */
}

CU_EXPORT CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!pi) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS && wvcu_attribute(&d->prop, attrib, pi)) e = CUDA_ERROR_INVALID_VALUE;
  return cu_ret(e);
}

CU_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!major || !minor) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS) *major = d->prop.major, *minor = d->prop.minor;
  return cu_ret(e);
}

CU_EXPORT CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!id || len <= 0) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS) snprintf(id, (size_t)len, "0000:00:00.0");
  return cu_ret(e);
}

CU_EXPORT CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *id) {
  cu_driver *d = cu_lock();
  if (!dev || !id) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!d->initialized) return cu_ret(CUDA_ERROR_NOT_INITIALIZED);
  unsigned dom, bus, slot, fn;
  if (sscanf(id, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4 && sscanf(id, "%x:%x.%x", &bus, &slot, &fn) != 3)
    return cu_ret(CUDA_ERROR_INVALID_VALUE);
  *dev = 0;
  return cu_ret(bus == 0 && slot == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE);
}

CU_EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
  cu_driver *d = cu_lock();
  if (!can) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS) e = dev_ok(d, peer);
  if (e == CUDA_SUCCESS) *can = 0;
  return cu_ret(e);
}

CU_EXPORT CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *w, int format, unsigned channels, CUdevice dev) {
  (void)format, (void)channels;
  cu_driver *d = cu_lock();
  if (!w) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS) *w = (size_t)1 << 27;
  return cu_ret(e);
}

/* ---- the primary context ---- */
CU_EXPORT CUresult cuDevicePrimaryCtxRetain(void **pctx, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!pctx) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e != CUDA_SUCCESS) return cu_ret(e);
  d->primary_refs++;
  *pctx = &d->primary;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  cu_driver *d = cu_lock();
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS && d->primary_refs == 0) e = CUDA_ERROR_INVALID_CONTEXT;
  if (e == CUDA_SUCCESS) {
    cu_sync_point(d);
    d->primary_refs--;
  }
  return cu_ret(e);
}

CU_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }

CU_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned *flags, int *active) {
  cu_driver *d = cu_lock();
  if (!flags || !active) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS) *flags = d->primary.flags, *active = d->primary_refs > 0;
  return cu_ret(e);
}

CU_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned flags) {
  cu_driver *d = cu_lock();
  CUresult e = dev_ok(d, dev);
  if (e == CUDA_SUCCESS && (flags & ~0x1fu)) e = CUDA_ERROR_INVALID_VALUE;
  if (e == CUDA_SUCCESS) d->primary.flags = flags;
  return cu_ret(e);
}

CU_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned flags) { return cuDevicePrimaryCtxSetFlags_v2(dev, flags); }

/* The device's state starts afresh (cudaDeviceReset): streams, events and graphs destroyed, memory freed, modules
 * unloaded, faults cleared. */
CU_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  cu_driver *d = cu_lock();
  CUresult e = dev_ok(d, dev);
  if (e != CUDA_SUCCESS) return cu_ret(e);
  cu_sync_point(d);
  cu_cls_destroy(d, &d->primary);
  cu_streams_reset(d);
  cu_graphs_reset(d);
  cu_reset_memory(d);
  cu_pools_reset(d);
  cu_reset_modules(d);
  d->sticky = d->pending = CUDA_SUCCESS;
  cu_printf_reset(d);
  d->primary.flags = 0;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }

/* ---- contexts ---- */
static CUresult ctx_create(void **pctx, unsigned flags, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!pctx) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = dev_ok(d, dev);
  if (e != CUDA_SUCCESS) return cu_ret(e);
  cu_ctx *c = calloc(1, sizeof *c);
  if (!c || cu_obj_add(d, c, CU_K_CTX)) {
    free(c);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  c->flags = flags;
  if (tl_depth < CTX_STACK_MAX) tl_stack[tl_depth++] = c;
  cu_set_current(c);
  *pctx = c;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuCtxCreate_v2(void **pctx, unsigned flags, CUdevice dev) { return ctx_create(pctx, flags, dev); }
CU_EXPORT CUresult cuCtxCreate_v3(void **pctx, void *affinity, int n, unsigned flags, CUdevice dev) {
  (void)affinity, (void)n;
  return ctx_create(pctx, flags, dev);
}
CU_EXPORT CUresult cuCtxCreate_v4(void **pctx, void *params, unsigned flags, CUdevice dev) {
  (void)params;
  return ctx_create(pctx, flags, dev);
}

CU_EXPORT CUresult cuCtxDestroy_v2(void *ctx) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, ctx, CU_K_CTX) || ctx == &d->primary) return cu_ret(CUDA_ERROR_INVALID_CONTEXT);
  cu_sync_point(d);
  cu_cls_destroy(d, ctx);
  for (int i = 0; i < tl_depth; i++)
    if (tl_stack[i] == ctx) {
      memmove(&tl_stack[i], &tl_stack[i + 1], (size_t)(tl_depth - i - 1) * sizeof tl_stack[0]);
      tl_depth--, i--;
    }
  if (cu_current() == ctx) cu_set_current(tl_depth ? tl_stack[tl_depth - 1] : NULL);
  cu_obj_del(d, ctx);
  free(ctx);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuCtxGetCurrent(void **pctx) {
  cu_driver *d = cu_lock();
  if (!pctx) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!d->initialized) return cu_ret(CUDA_ERROR_NOT_INITIALIZED);
  *pctx = cu_current();
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuCtxSetCurrent(void *ctx) {
  cu_driver *d = cu_lock();
  if (!d->initialized) return cu_ret(CUDA_ERROR_NOT_INITIALIZED);
  if (ctx && !cu_obj_check(d, ctx, CU_K_CTX)) return cu_ret(CUDA_ERROR_INVALID_CONTEXT);
  if (tl_depth) tl_stack[tl_depth - 1] = ctx;
  else if (ctx) tl_stack[tl_depth++] = ctx;
  cu_set_current(ctx);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuCtxPushCurrent_v2(void *ctx) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, ctx, CU_K_CTX)) return cu_ret(CUDA_ERROR_INVALID_CONTEXT);
  if (tl_depth == CTX_STACK_MAX) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  tl_stack[tl_depth++] = ctx;
  cu_set_current(ctx);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuCtxPopCurrent_v2(void **pctx) {
  cu_driver *d = cu_lock();
  if (!tl_depth) return cu_ret(CUDA_ERROR_INVALID_CONTEXT);
  cu_ctx *c = tl_stack[--tl_depth];
  if (pctx) *pctx = c;
  cu_set_current(tl_depth ? tl_stack[tl_depth - 1] : NULL);
  (void)d;
  return cu_ret(CUDA_SUCCESS);
}

/* The current context, or why there is none. */
static CUresult need_ctx(cu_driver *d) {
  if (!d->initialized) return CUDA_ERROR_NOT_INITIALIZED;
  return cu_current() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CU_EXPORT CUresult cuCtxGetDevice(CUdevice *dev) {
  cu_driver *d = cu_lock();
  if (!dev) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = need_ctx(d);
  if (e == CUDA_SUCCESS) *dev = 0;
  return cu_ret(e);
}

CU_EXPORT CUresult cuCtxGetDevice_v2(CUdevice *dev, void *ctx) {
  (void)ctx;
  return cuCtxGetDevice(dev);
}

CU_EXPORT CUresult cuCtxGetFlags(unsigned *flags) {
  cu_driver *d = cu_lock();
  if (!flags) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = need_ctx(d);
  if (e == CUDA_SUCCESS) *flags = cu_current()->flags;
  return cu_ret(e);
}

CU_EXPORT CUresult cuCtxSetFlags(unsigned flags) {
  cu_driver *d = cu_lock();
  CUresult e = need_ctx(d);
  if (e == CUDA_SUCCESS) cu_current()->flags = flags;
  return cu_ret(e);
}

CU_EXPORT CUresult cuCtxGetId(void *ctx, unsigned long long *id) {
  cu_driver *d = cu_lock();
  if (!id) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!ctx) ctx = cu_current();
  if (!cu_obj_check(d, ctx, CU_K_CTX)) return cu_ret(CUDA_ERROR_INVALID_CONTEXT);
  *id = ctx == &d->primary ? 1 : (unsigned long long)(uintptr_t)ctx;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuCtxGetApiVersion(void *ctx, unsigned *version) {
  cu_driver *d = cu_lock();
  if (!version) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (ctx && !cu_obj_check(d, ctx, CU_K_CTX)) return cu_ret(CUDA_ERROR_INVALID_CONTEXT);
  *version = 3020;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuCtxSynchronize(void) {
  cu_driver *d = cu_lock();
  CUresult e = need_ctx(d);
  return cu_ret(e ? e : cu_synchronize(d));
}

/* cudaDeviceSynchronize (warpvm's runtime has no current context to name). */
CU_EXPORT int wvcu_synchronize(void) { return cu_ret(cu_synchronize(cu_lock())); }

CU_EXPORT CUresult cuCtxSynchronize_v2(void *ctx) {
  (void)ctx;
  return cuCtxSynchronize();
}

/* CUlimit values (the same numbers as cudaLimit). */
static CUresult get_limit(const cu_driver *d, int limit, size_t *v) {
  switch (limit) {
  case CU_LIMIT_STACK_SIZE: *v = d->stack_limit ? d->stack_limit : 1024; break;
  case CU_LIMIT_PRINTF_FIFO_SIZE: cu_printf_limit((cu_driver *)d, v, 0); break;
  case CU_LIMIT_MALLOC_HEAP_SIZE: *v = d->heap_limit; break;
  case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: *v = d->pending_launches ? d->pending_launches : 2048; break;
  case 5: *v = 32; break; /* L2 fetch granularity */
  case 6: *v = d->persisting_l2 ? d->persisting_l2 : wvcu_persisting_l2(&d->prop, 0, 1); break;
  /* 3, CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: CDP1 only, CUDA_ERROR_UNSUPPORTED_LIMIT on an H200 with CUDA 13. */
  default: return CUDA_ERROR_UNSUPPORTED_LIMIT;
  }
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuCtxGetLimit(size_t *v, int limit) {
  cu_driver *d = cu_lock();
  if (!v) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  return cu_ret(get_limit(d, limit, v));
}

/* ---- the device runtime's questions (dynamic parallelism: src/rt/devrt.c), whichever runtime the program
 * uses. Called by the vm's workers during a launch, which holds the driver's lock: they read only what a
 * launch cannot change. ---- */
static int devrt_attribute(void *user, int attr, int dev, int *value) {
  const cu_driver *d = user;
  if (dev != 0) return 101; /* cudaErrorInvalidDevice */
  return wvcu_attribute(&d->prop, attr, value) ? 1 : 0;
}

static int devrt_limit(void *user, int limit, size_t *value) {
  return get_limit(user, limit, value) == CUDA_SUCCESS ? 0 : 1; /* cudaErrorInvalidValue */
}

static const char *devrt_error_text(void *user, int code, int name) {
  (void)user;
  switch (code) {
#define WV_CUDA_ERROR(c, n, str) case c: return name ? #n : str;
#include "cudadrv/rt_errors.def"
#undef WV_CUDA_ERROR
  default: return NULL;
  }
}

const char *cu_rt_error_name(int e) { return devrt_error_text(NULL, e, 1); }

void cu_devrt_init(cu_driver *d) {
  wv_devrt_hooks h = {.attribute = devrt_attribute, .limit = devrt_limit, .error_text = devrt_error_text,
                      .runtime_version = d->runtime_version ? d->runtime_version : CU_DRIVER_VERSION, .user = d};
  wv_set_devrt_hooks(d->vm, &h);
}

/* warpvm's runtime says which CUDA it is (12080 or 13000): device code's cudaRuntimeGetVersion answers it. */
CU_EXPORT void wvcu_set_runtime_version(int v) {
  cu_driver *d = cu_lock();
  d->runtime_version = v;
  cu_devrt_init(d);
  cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuCtxSetLimit(int limit, size_t v) {
  cu_driver *d = cu_lock();
  switch (limit) {
  case CU_LIMIT_STACK_SIZE:
    if (wv_set_stack_limit(d->vm, v) != WV_OK) return cu_ret(CUDA_ERROR_INVALID_VALUE);
    d->stack_limit = v;
    break;
  case CU_LIMIT_PRINTF_FIFO_SIZE:
    if (cu_printf_limit(d, NULL, v)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
    break;
  case CU_LIMIT_MALLOC_HEAP_SIZE:
    if (wv_set_device_heap(d->vm, v) != WV_OK) return cu_ret(CUDA_ERROR_INVALID_VALUE);
    d->heap_limit = v;
    break;
  case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
    wv_set_pending_launch_limit(d->vm, v);
    d->pending_launches = v;
    break;
  case 5: break;
  case 6: {
    size_t p = wvcu_persisting_l2(&d->prop, v, 0);
    if (!p && v) return cu_ret(CUDA_ERROR_INVALID_VALUE); /* past the maximum: refused, the limit stays */
    d->persisting_l2 = p;
    break;
  }
  default: return cu_ret(CUDA_ERROR_UNSUPPORTED_LIMIT);
  }
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuCtxGetCacheConfig(int *c) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  *c = 0;
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuCtxSetCacheConfig(int c) { return c >= 0 && c <= 3 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CU_EXPORT CUresult cuCtxGetSharedMemConfig(int *c) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  *c = 1; /* four-byte banks */
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuCtxSetSharedMemConfig(int c) { return c >= 0 && c <= 2 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CU_EXPORT CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuCtxResetPersistingL2Cache(void) { return CUDA_SUCCESS; }
