/*
 * launch.c — kernel launches: the <<<>>> call configuration stack (__cudaPush/PopCallConfiguration),
 * cudaLaunchKernel, __cudaLaunchKernel (CUDA 13 stubs go through cudaKernel_t), cooperative and
 * extensible launches, launch-configuration checks with CUDA's error codes, what a failing kernel
 * does to the runtime (a report on stderr, a sticky error at the next synchronising call), function
 * attributes and the occupancy calculator.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/cudart.h"

/* ---- <<<grid, block, shared, stream>>> ---- */
typedef struct call_config {
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
} call_config;
static _Thread_local call_config tl_cfg[16]; /* nesting: a launch inside an argument expression */
static _Thread_local int tl_ncfg;

WV_EXPORT unsigned int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, cudaStream_t stream) {
  if (tl_ncfg == 16) return 1;
  tl_cfg[tl_ncfg++] = (call_config){grid, block, shared, stream};
  return 0;
}

WV_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, void *stream) {
  if (tl_ncfg == 0) return cudaErrorMissingConfiguration;
  call_config c = tl_cfg[--tl_ncfg];
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *(cudaStream_t *)stream = c.stream;
  return cudaSuccess;
}

/* ---- occupancy and launch limits (cudadrv/devprops.c: the same rules as the driver's) ---- */
static int dyn_limit(const cr_func *f) { return wvcu_dyn_shared_limit(f->k, f->max_dyn_shared); }

int wv_cr_occupancy(cudart *r, cr_func *f, int block, size_t dyn_shared) {
  return wvcu_occupancy(&r->prop, f->k, block, dyn_shared);
}

/* A launch that does not start: its error comes back from the launch (and cudaGetLastError) and is
 * never sticky, as on a GPU; why is said on stderr, once for each distinct reason. */
static cudaError_t refuse(cudart *r, const cr_func *f, cudaError_t e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static cudaError_t refuse(cudart *r, const cr_func *f, cudaError_t e, const char *fmt, ...) {
  char why[768];
  int n = snprintf(why, sizeof why, "warpvm: launch of kernel '%s' refused (%s): ", f->name, cudaGetErrorName(e));
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && (size_t)n < sizeof why) vsnprintf(why + n, sizeof why - (size_t)n, fmt, ap);
  va_end(ap);
  if (wv_cr_first_time(r, why)) fprintf(stderr, "%s\n", why);
  return e;
}

cudaError_t wv_cr_launch_check(cudart *r, cr_func *f, dim3 grid, dim3 block, size_t shared, int coop) {
  cudaError_t e = wv_cr_func_kernel(r, f);
  if (e) return e;
  char why[512];
  switch (wvcu_launch_check(&r->prop, f->k, f->max_dyn_shared, (wv_dim3){grid.x, grid.y, grid.z},
                            (wv_dim3){block.x, block.y, block.z}, shared, coop, why, sizeof why)) {
  case WVCU_LAUNCH_OK: return cudaSuccess;
  case WVCU_BAD_CONFIG: return refuse(r, f, WV_BAD_CONFIG, "%s", why);
  case WVCU_TOO_MUCH_SHARED: return refuse(r, f, cudaErrorInvalidValue, "%s", why);
  default: return refuse(r, f, cudaErrorCooperativeLaunchTooLarge, "%s", why);
  }
}

/* Run a kernel now. A launch the vm refuses (its configuration, PTX warpvm does not run, host memory)
 * returns its error at once; a fault in the kernel is reported on stderr and becomes the sticky error
 * at the next synchronising call, as on a GPU. */
cudaError_t wv_cr_launch_now(cudart *r, cr_func *f, dim3 grid, dim3 block, uint32_t shared, void **args, int coop) {
  wv_cr_flush_printf(r); /* CUDA flushes the printf buffer at the start of a launch */
  wvcu_hostreg_recheck();
  uint32_t flags = (uint32_t)coop; /* WV_LAUNCH_*: cooperative, the cluster shape */
  if (!(flags & WV_LAUNCH_CLUSTER(0xff, 0xff, 0xff)) && f->cluster[0]) /* the shape cudaFuncSetAttribute set */
    flags |= wvcu_cluster_flags(f->cluster[0], f->cluster[1], f->cluster[2], f->nonportable_cluster);
  wv_status st = wv_launch_ex(r->vm, f->k, (wv_dim3){grid.x, grid.y, grid.z}, (wv_dim3){block.x, block.y, block.z},
                              shared, args, flags);
  switch (st) {
  case WV_OK: return cudaSuccess;
  case WV_ERR_LAUNCH: case WV_ERR_INVALID: case WV_ERR_UNSUPPORTED: case WV_ERR_CLUSTER:
    return refuse(r, f, wv_cr_from_status(st), "%s", wv_last_error(r->vm));
  case WV_ERR_NOMEM:
    return refuse(r, f, cudaErrorLaunchOutOfResources, "%s", wv_last_error(r->vm));
  default:
    fprintf(stderr, "warpvm: %s\n", wv_last_error(r->vm));
    wvcu_pending(wv_cr_from_status(st)); /* the driver keeps the process's one fault state */
    return cudaSuccess;
  }
}

/* Checked with the runtime's error codes, then run now, or while the stream captures, handed to the driver,
 * which makes it a kernel node. */
static cudaError_t launch(const char *api, const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                          cudaStream_t hs, int coop) {
  cudart *r = wv_cr_enter(api);
  int capturing = 0;
  cudaError_t e = wv_cr_device_check(r);
  if (!e) e = wv_cr_stream_capturing(r, hs, &capturing);
  if (e) return wv_cr_ret(e);
  cr_func *f = wv_cr_func_find(r, func);
  if (!f) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  if ((e = wv_cr_launch_check(r, f, grid, block, shared, coop))) return wv_cr_ret(e);
  if (!capturing) return wv_cr_ret(wv_cr_launch_now(r, f, grid, block, (uint32_t)shared, args, coop));
  void *cuf = wv_cr_func_cu(f);
  if (!cuf) return wv_cr_ret(cudaErrorMemoryAllocation);
  /* coop: WV_LAUNCH_* flags (cooperative, a cluster shape), kept by the kernel node */
  return wv_cr_ret(wv_cr_from_cu(wvcu_launch_flags(cuf, (wv_dim3){grid.x, grid.y, grid.z}, (wv_dim3){block.x, block.y, block.z},
                                                   (unsigned)shared, hs, args, (uint32_t)coop)));
}

WV_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                       cudaStream_t s) {
  return launch("cudaLaunchKernel", func, grid, block, args, shared, s, 0);
}

WV_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block, void **args, size_t shared,
                                         cudaStream_t s) {
  return launch("cudaLaunchKernel", k, grid, block, args, shared, s, 0);
}

WV_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args,
                                                  size_t shared, cudaStream_t s) {
  return launch("cudaLaunchCooperativeKernel", func, grid, block, args, shared, s, 1);
}

/* The launch attributes warpvm acts on: cooperative, the cluster shape (flags for wv_launch_ex, which checks the
 * shape: a bad one is cudaErrorInvalidClusterSize). */
static int launch_flags(const void *func, const cudaLaunchAttribute *attrs, unsigned n) {
  uint32_t flags = 0;
  cr_func *f = wv_cr_func_find(wv_cr(), func);
  for (unsigned i = 0; attrs && i < n; i++) {
    if (attrs[i].id == cudaLaunchAttributeCooperative && attrs[i].val.cooperative) flags |= WV_LAUNCH_COOPERATIVE;
    if (attrs[i].id == cudaLaunchAttributeClusterDimension)
      flags |= wvcu_cluster_flags(attrs[i].val.clusterDim.x, attrs[i].val.clusterDim.y, attrs[i].val.clusterDim.z,
                                  f && f->nonportable_cluster);
  }
  wv_cr_unlock(); /* (wv_cr locked the runtime) */
  return (int)flags;
}

WV_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *cfg, const void *func, void **args) {
  if (!cfg) return cudaErrorInvalidValue;
  int coop = launch_flags(func, cfg->attrs, cfg->numAttrs);
  return launch("cudaLaunchKernelEx", func, cfg->gridDim, cfg->blockDim, args, cfg->dynamicSmemBytes, cfg->stream, coop);
}

/* ---- function attributes ---- */
WV_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *func) {
  cudart *r = wv_cr();
  cr_func *f = wv_cr_func_find(r, func);
  if (!a) return wv_cr_ret(cudaErrorInvalidValue);
  if (!f || !f->k) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  memset(a, 0, sizeof *a);
  a->sharedSizeBytes = wv_kernel_static_shared(f->k);
  a->maxThreadsPerBlock = (int)wv_kernel_max_threads(f->k);
  a->numRegs = 32; /* no register allocation: the occupancy calculator assumes 32 */
  a->ptxVersion = (int)f->fb->arch;
  a->binaryVersion = (int)f->fb->arch;
  a->maxDynamicSharedSizeBytes = dyn_limit(f);
  a->preferredShmemCarveout = f->carveout ? f->carveout : -1;
  uint32_t c[3];
  int fixed = wv_kernel_cluster(f->k, c, &a->clusterDimMustBeSet);
  a->requiredClusterWidth = (int)(fixed ? c[0] : f->cluster[0]);
  a->requiredClusterHeight = (int)(fixed ? c[1] : f->cluster[1]);
  a->requiredClusterDepth = (int)(fixed ? c[2] : f->cluster[2]);
  a->clusterSchedulingPolicyPreference = f->cluster_policy;
  a->nonPortableClusterSizeAllowed = f->nonportable_cluster;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaFuncSetAttribute(const void *func, int attr, int value) {
  cudart *r = wv_cr();
  cr_func *f = wv_cr_func_find(r, func);
  if (!f || !f->k) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || (size_t)value + wv_kernel_static_shared(f->k) > WV_OPTIN_SHARED)
      return wv_cr_ret(cudaErrorInvalidValue);
    f->max_dyn_shared = value;
  } else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
    if (value < -1 || value > 100) return wv_cr_ret(cudaErrorInvalidValue);
    f->carveout = value;
  } else if (attr >= 11 && attr <= 13) { /* the cluster shape of launches that give none (a compiled-in one is fixed) */
    uint32_t c[3];
    if (wv_kernel_cluster(f->k, c, NULL)) return wv_cr_ret(cudaErrorInvalidValue); /* a compiled-in shape, as an H200 */
    if (value < 0) return wv_cr_ret(cudaErrorInvalidValue);
    f->cluster[attr - 11] = (uint32_t)value;
  } else if (attr == 14) {
    f->nonportable_cluster = value != 0;
  } else if (attr == 15) {
    if (value < 0 || value > 2) return wv_cr_ret(cudaErrorInvalidValue);
    f->cluster_policy = value;
  } else if (attr != 10) {
    return wv_cr_ret(cudaErrorInvalidValue);
  }
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, int c) {
  (void)func, (void)c;
  return cudaSuccess;
}
WV_EXPORT cudaError_t cudaFuncSetSharedMemConfig(const void *func, int c) {
  (void)func, (void)c;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func) {
  cudart *r = wv_cr();
  cr_func *f = wv_cr_func_find(r, func);
  if (!name) return wv_cr_ret(cudaErrorInvalidValue);
  if (!f) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  *name = f->name;
  return wv_cr_ret(cudaSuccess);
}

/* ---- occupancy API ---- */
WV_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, const void *func, int block,
                                                                            size_t dyn, unsigned int flags) {
  (void)flags;
  cudart *r = wv_cr();
  cr_func *f = wv_cr_func_find(r, func);
  if (!n) return wv_cr_ret(cudaErrorInvalidValue);
  if (!f || !f->k) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  *n = wv_cr_occupancy(r, f, block, dyn);
  return wv_cr_ret(cudaSuccess);
}

/* The cluster shape is the config's attribute, else the kernel's (compiled in or set with cudaFuncSetAttribute);
 * a kernel with neither needs the attribute (cudaErrorInvalidClusterSize). */
WV_EXPORT cudaError_t cudaOccupancyMaxActiveClusters(int *n, const void *func, const cudaLaunchConfig_t *cfg) {
  cudart *r = wv_cr();
  cr_func *f = wv_cr_func_find(r, func);
  if (!n || !cfg) return wv_cr_ret(cudaErrorInvalidValue);
  if (!f || !f->k) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  uint32_t cl[3] = {f->cluster[0], f->cluster[1], f->cluster[2]}, fixed[3];
  if (wv_kernel_cluster(f->k, fixed, NULL)) memcpy(cl, fixed, sizeof cl);
  for (unsigned i = 0; cfg->attrs && i < cfg->numAttrs; i++)
    if (cfg->attrs[i].id == cudaLaunchAttributeClusterDimension) {
      cl[0] = cfg->attrs[i].val.clusterDim.x, cl[1] = cfg->attrs[i].val.clusterDim.y, cl[2] = cfg->attrs[i].val.clusterDim.z;
    }
  uint64_t size = (uint64_t)cl[0] * cl[1] * cl[2];
  if (!size || size > (f->nonportable_cluster ? 16u : 8u)) return wv_cr_ret(cudaErrorInvalidClusterSize);
  int threads = (int)(cfg->blockDim.x * cfg->blockDim.y * cfg->blockDim.z);
  *n = wvcu_max_active_clusters(&r->prop, f->k, threads, cfg->dynamicSmemBytes, (uint32_t)size);
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaOccupancyMaxPotentialClusterSize(int *n, const void *func, const cudaLaunchConfig_t *cfg) {
  cudart *r = wv_cr();
  cr_func *f = wv_cr_func_find(r, func);
  if (!n || !cfg) return wv_cr_ret(cudaErrorInvalidValue);
  if (!f || !f->k) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  int threads = (int)(cfg->blockDim.x * cfg->blockDim.y * cfg->blockDim.z);
  *n = wvcu_occupancy(&r->prop, f->k, threads, cfg->dynamicSmemBytes) > 0 ? (f->nonportable_cluster ? 16 : 8) : 0;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *func, int block, size_t dyn) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, func, block, dyn, 0);
}

WV_EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *out, const void *func, int nblocks, int block) {
  cudart *r = wv_cr();
  cr_func *f = wv_cr_func_find(r, func);
  if (!out || nblocks <= 0) return wv_cr_ret(cudaErrorInvalidValue);
  if (!f || !f->k) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  *out = wvcu_avail_dyn_shared(&r->prop, f->k, f->max_dyn_shared, nblocks, block);
  return wv_cr_ret(cudaSuccess);
}
