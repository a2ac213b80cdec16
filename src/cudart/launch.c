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

/* ---- occupancy: the limits of one SM of the virtual device (see device.c) ---- */
static int dyn_limit(const cr_func *f) {
  uint32_t st = f->k ? wv_kernel_static_shared(f->k) : 0;
  if (f->max_dyn_shared >= 0) return f->max_dyn_shared;
  return st >= WV_DEFAULT_SHARED ? 0 : (int)(WV_DEFAULT_SHARED - st);
}

int wv_cr_occupancy(cudart *r, cr_func *f, int block, size_t dyn_shared) {
  if (block <= 0 || block > r->prop.maxThreadsPerBlock || (f->k && (uint32_t)block > wv_kernel_max_threads(f->k)))
    return 0;
  if (dyn_shared > r->prop.sharedMemPerMultiprocessor) return 0;
  int warps = (block + 31) / 32;
  int n = r->prop.maxThreadsPerMultiProcessor / (warps * 32);
  if (n > r->prop.maxBlocksPerMultiProcessor) n = r->prop.maxBlocksPerMultiProcessor;
  size_t smem = (f->k ? wv_kernel_static_shared(f->k) : 0) + dyn_shared;
  if (smem) {
    size_t per = smem + r->prop.reservedSharedMemPerBlock;
    int by_smem = (int)(r->prop.sharedMemPerMultiprocessor / per);
    if (by_smem < n) n = by_smem;
  }
  return n;
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
  uint64_t threads = (uint64_t)block.x * block.y * block.z;
  if (!threads || threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64)
    return refuse(r, f, WV_BAD_CONFIG, "block (%u,%u,%u): at most 1024 threads, x and y at most 1024, z at most 64",
                  block.x, block.y, block.z);
  if (!grid.x || !grid.y || !grid.z || grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
    return refuse(r, f, WV_BAD_CONFIG, "grid (%u,%u,%u): each dimension from 1 to (2^31-1, 65535, 65535)", grid.x,
                  grid.y, grid.z);
  if (threads > wv_kernel_max_threads(f->k)) /* beyond __launch_bounds__ */
    return refuse(r, f, WV_BAD_CONFIG, "a block of %llu threads, the kernel's __launch_bounds__ allow %u",
                  (unsigned long long)threads, wv_kernel_max_threads(f->k));
  if (shared > (size_t)dyn_limit(f))
    return refuse(r, f, cudaErrorInvalidValue,
                  "%zu bytes of dynamic shared memory, the kernel may have %d (48 KiB less its %u static bytes, unless "
                  "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) allows up to 227 KiB)",
                  shared, dyn_limit(f), wv_kernel_static_shared(f->k));
  if (coop) {
    uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
    uint64_t cap = (uint64_t)wv_cr_occupancy(r, f, (int)threads, shared) * (uint64_t)r->prop.multiProcessorCount;
    if (blocks > cap)
      return refuse(r, f, cudaErrorCooperativeLaunchTooLarge,
                    "a cooperative grid of %llu blocks, at most %llu can be resident at once",
                    (unsigned long long)blocks, (unsigned long long)cap);
  }
  return cudaSuccess;
}

/* Run a kernel now. A launch the vm refuses (its configuration, PTX warpvm does not run, host memory)
 * returns its error at once; a fault in the kernel is reported on stderr and becomes the sticky error
 * at the next synchronising call, as on a GPU. */
cudaError_t wv_cr_launch_now(cudart *r, cr_func *f, dim3 grid, dim3 block, uint32_t shared, void **args, int coop) {
  wv_cr_flush_printf(r); /* CUDA flushes the printf buffer at the start of a launch */
  wv_cr_hostreg_recheck(r);
  wv_status st = wv_launch_ex(r->vm, f->k, (wv_dim3){grid.x, grid.y, grid.z}, (wv_dim3){block.x, block.y, block.z},
                              shared, args, coop ? WV_LAUNCH_COOPERATIVE : 0);
  switch (st) {
  case WV_OK: return cudaSuccess;
  case WV_ERR_LAUNCH: case WV_ERR_INVALID: case WV_ERR_UNSUPPORTED:
    return refuse(r, f, wv_cr_from_status(st), "%s", wv_last_error(r->vm));
  case WV_ERR_NOMEM:
    return refuse(r, f, cudaErrorLaunchOutOfResources, "%s", wv_last_error(r->vm));
  default:
    fprintf(stderr, "warpvm: %s\n", wv_last_error(r->vm));
    if (r->pending == cudaSuccess) r->pending = wv_cr_from_status(st);
    return cudaSuccess;
  }
}

static cudaError_t launch(const char *api, const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                          cudaStream_t hs, int coop) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_device_check(r);
  if (!e) e = wv_cr_stream_get(r, hs, api, &s);
  if (e) return wv_cr_ret(e);
  cr_func *f = wv_cr_func_find(r, func);
  if (!f) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  if ((e = wv_cr_launch_check(r, f, grid, block, shared, coop))) return wv_cr_ret(e);
  /* args are the caller's: copied only if the op is kept (capture). */
  cr_op op = {.kind = OP_KERNEL, .u.k = {.f = f, .grid = grid, .block = block, .shared = (uint32_t)shared,
                                         .coop = coop, .args = args}};
  return wv_cr_ret(wv_cr_submit(r, s, &op));
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

WV_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *cfg, const void *func, void **args) {
  if (!cfg) return cudaErrorInvalidValue;
  int coop = 0;
  for (unsigned i = 0; i < cfg->numAttrs && cfg->attrs; i++)
    if (cfg->attrs[i].id == cudaLaunchAttributeCooperative) coop = cfg->attrs[i].val.cooperative != 0;
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
  } else if (attr < 8 || attr > 15) {
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

WV_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *func, int block, size_t dyn) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, func, block, dyn, 0);
}

WV_EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *out, const void *func, int nblocks, int block) {
  cudart *r = wv_cr();
  cr_func *f = wv_cr_func_find(r, func);
  if (!out || nblocks <= 0) return wv_cr_ret(cudaErrorInvalidValue);
  if (!f || !f->k) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  if (wv_cr_occupancy(r, f, block, 0) < nblocks) {
    *out = 0;
    return wv_cr_ret(cudaSuccess);
  }
  size_t per = r->prop.sharedMemPerMultiprocessor / (size_t)nblocks;
  size_t used = wv_kernel_static_shared(f->k) + r->prop.reservedSharedMemPerBlock;
  size_t avail = per > used ? per - used : 0;
  size_t lim = (size_t)dyn_limit(f);
  *out = avail < lim ? avail : lim;
  return wv_cr_ret(cudaSuccess);
}
