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

#define WV_NUM_SMS 16
#define WV_SMEM_PER_SM (228u * 1024u)

void wv_cr_fill_props(cudart *r) {
  wv_prop_all *p = &r->prop;
  memset(p, 0, sizeof *p);
  const char *m = getenv("WARPVM_MACHINE");
  if (!m || !*m) m = "sm_90";
  snprintf(p->name, sizeof p->name, "warpvm virtual GPU (%s)", m);
  memcpy(p->uuid.bytes, "warpvm-virtual-0", 16);
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  size_t total = (size_t)16 << 30;
  if (pages > 0 && psz > 0 && (size_t)pages * (size_t)psz / 2 < total) total = (size_t)pages * (size_t)psz / 2;
  p->totalGlobalMem = total;
  p->sharedMemPerBlock = WV_DEFAULT_SHARED;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
  p->clockRate = 1755000;
  p->totalConstMem = 65536;
  p->major = 9, p->minor = 0;
  p->textureAlignment = 512, p->texturePitchAlignment = 32;
  p->multiProcessorCount = WV_NUM_SMS;
  p->canMapHostMemory = 1;
  p->concurrentKernels = 1;
  p->asyncEngineCount = 2;
  p->unifiedAddressing = 1;
  p->memoryClockRate = 2619000;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 50 << 20;
  p->persistingL2CacheMaxSize = 0;
  p->maxThreadsPerMultiProcessor = 2048;
  p->streamPrioritiesSupported = 1;
  p->globalL1CacheSupported = 1, p->localL1CacheSupported = 1;
  p->sharedMemPerMultiprocessor = WV_SMEM_PER_SM;
  p->regsPerMultiprocessor = 65536;
  p->managedMemory = 1;
  p->singleToDoublePrecisionPerfRatio = 2;
  p->concurrentManagedAccess = 1;
  p->computePreemptionSupported = 1;
  p->canUseHostPointerForRegisteredMem = 1;
  p->cooperativeLaunch = 1;
  p->sharedMemPerBlockOptin = WV_OPTIN_SHARED;
  p->directManagedMemAccessFromHost = 1;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  p->hostRegisterSupported = 1;
  p->memoryPoolsSupported = 1;
  p->unifiedFunctionPointers = 0;
  p->clusterLaunch = 0; /* clusters of one CTA only */
  p->deviceNumaId = -1, p->hostNumaId = -1;
  p->surfaceAlignment = 512;
}

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

/* cudaDeviceAttr value → property (numbers from the CUDA headers' enum cudaDeviceAttr). */
static int attribute(const wv_prop_all *p, int attr, int *out) {
  switch (attr) {
  case 1: *out = p->maxThreadsPerBlock; break;
  case 2: case 3: case 4: *out = p->maxThreadsDim[attr - 2]; break;
  case 5: case 6: case 7: *out = p->maxGridSize[attr - 5]; break;
  case 8: *out = (int)p->sharedMemPerBlock; break;
  case 9: *out = (int)p->totalConstMem; break;
  case 10: *out = p->warpSize; break;
  case 11: *out = (int)p->memPitch; break;
  case 12: *out = p->regsPerBlock; break;
  case 13: *out = p->clockRate; break;
  case 14: *out = (int)p->textureAlignment; break;
  case 15: *out = 1; break; /* GpuOverlap */
  case 16: *out = p->multiProcessorCount; break;
  case 17: case 18: *out = 0; break; /* KernelExecTimeout, Integrated */
  case 19: *out = p->canMapHostMemory; break;
  case 20: *out = 0; break; /* ComputeMode default */
  case 30: *out = (int)p->surfaceAlignment; break;
  case 31: *out = p->concurrentKernels; break;
  case 32: case 33: case 34: case 35: case 50: *out = 0; break; /* ECC, PCI ids, TCC */
  case 36: *out = p->memoryClockRate; break;
  case 37: *out = p->memoryBusWidth; break;
  case 38: *out = p->l2CacheSize; break;
  case 39: *out = p->maxThreadsPerMultiProcessor; break;
  case 40: *out = p->asyncEngineCount; break;
  case 41: *out = p->unifiedAddressing; break;
  case 51: *out = (int)p->texturePitchAlignment; break;
  case 75: *out = p->major; break;
  case 76: *out = p->minor; break;
  case 78: *out = p->streamPrioritiesSupported; break;
  case 79: *out = p->globalL1CacheSupported; break;
  case 80: *out = p->localL1CacheSupported; break;
  case 81: *out = (int)p->sharedMemPerMultiprocessor; break;
  case 82: *out = p->regsPerMultiprocessor; break;
  case 83: *out = p->managedMemory; break;
  case 84: case 85: case 86: case 88: *out = 0; break;
  case 87: *out = p->singleToDoublePrecisionPerfRatio; break;
  case 89: *out = p->concurrentManagedAccess; break;
  case 90: *out = p->computePreemptionSupported; break;
  case 91: *out = p->canUseHostPointerForRegisteredMem; break;
  case 95: *out = p->cooperativeLaunch; break;
  case 97: *out = (int)p->sharedMemPerBlockOptin; break;
  case 98: *out = 0; break;
  case 99: *out = p->hostRegisterSupported; break;
  case 100: *out = 0; break;
  case 101: *out = p->directManagedMemAccessFromHost; break;
  case 106: *out = p->maxBlocksPerMultiProcessor; break;
  case 108: *out = p->persistingL2CacheMaxSize; break;
  case 109: *out = 0; break;
  case 111: *out = (int)p->reservedSharedMemPerBlock; break;
  case 115: *out = p->memoryPoolsSupported; break;
  case 120: *out = p->clusterLaunch; break;
  case 126: *out = 1; break; /* MemSyncDomainCount */
  case 130: *out = 0; break;
  case 131: case 134: *out = -1; break;
  default: /* texture/surface limits (no textures) and attributes without meaning here */
    if (attr > 0 && attr < 160) { *out = 0; break; }
    return -1;
  }
  return 0;
}

WV_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, int attr, int dev) {
  cudart *r = wv_cr();
  if (!value) return wv_cr_ret(cudaErrorInvalidValue);
  if (dev != 0) return wv_cr_ret(cudaErrorInvalidDevice);
  if (attribute(&r->prop, attr, value)) return wv_cr_ret(cudaErrorInvalidValue);
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
  wv_cr_streams_reset(r);
  wv_cr_graphs_reset(r);
  wv_cr_reset_memory(r);
  wv_cr_reload_modules(r);
  r->sticky = r->pending = cudaSuccess;
  *wv_cr_last_error() = cudaSuccess;
  r->fifo.used = 0; /* a new context: its limits are the defaults */
  wv_cr_printf_init(r);
  r->device_flags = 0;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }

WV_EXPORT cudaError_t cudaRuntimeGetVersion(int *v) {
  if (!v) return cudaErrorInvalidValue;
  *v = WV_CUDART_MAJOR >= 13 ? 13000 : 12080;
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
  case cudaLimitPrintfFifoSize: *v = r->fifo.limit; break;
  case cudaLimitMallocHeapSize: *v = r->heap_limit; break;
  case cudaLimitDevRuntimePendingLaunchCount: *v = r->pending_launches ? r->pending_launches : 2048; break;
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

/* Device-side cudaDeviceGetAttribute / cudaDeviceGetLimit (src/rt/devrt.c), called by the vm's workers
 * during a launch, which the launching thread holds the runtime's lock for: they read what a launch
 * cannot change. */
static int devrt_attribute(void *user, int attr, int dev, int *value) {
  cudart *r = user;
  if (dev != 0) return cudaErrorInvalidDevice;
  return attribute(&r->prop, attr, value) ? cudaErrorInvalidValue : cudaSuccess;
}

static int devrt_limit(void *user, int limit, size_t *value) { return get_limit(user, limit, value); }

static const char *devrt_error_text(void *user, int code, int name) {
  (void)user;
  const char *t = name ? cudaGetErrorName((cudaError_t)code) : cudaGetErrorString((cudaError_t)code);
  return strcmp(t, "unrecognized error code") ? t : NULL;
}

void wv_cr_devrt_init(cudart *r) {
  wv_devrt_hooks h = {.attribute = devrt_attribute, .limit = devrt_limit, .error_text = devrt_error_text, .user = r};
  cudaRuntimeGetVersion(&h.runtime_version);
  wv_set_devrt_hooks(r->vm, &h);
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
  } else if (limit == cudaLimitDevRuntimePendingLaunchCount) {
    r->pending_launches = v;
    wv_set_pending_launch_limit(r->vm, v);
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
