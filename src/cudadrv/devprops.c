/*
 * devprops.c — the virtual device's properties (see devprops.h): what cudaGetDeviceProperties and
 * cuDeviceGetAttribute answer, as an H100-class sm_90 device of 16 SMs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudadrv/devprops.h"

void wvcu_fill_props(wv_prop_all *p) {
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
  /* L2 persistence, in an H200's proportions (its 60 MiB L2: 37.5 MiB may persist, a window of 128 MiB;
   * .device/attrs.cu, 2026-11-26): 5/8 of the L2. */
  p->persistingL2CacheMaxSize = p->l2CacheSize / 8 * 5;
  p->accessPolicyMaxWindowSize = 128 << 20;
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

/* cudaDeviceAttr value → property (numbers from the CUDA headers' enum cudaDeviceAttr). */
int wvcu_attribute(const wv_prop_all *p, int attr, int *out) {
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
  case 109: *out = p->accessPolicyMaxWindowSize; break;
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


/* ---- launch limits ---- */
int wvcu_dyn_shared_limit(const wv_kernel *k, int max_dyn) {
  uint32_t st = k ? wv_kernel_static_shared(k) : 0;
  if (max_dyn >= 0) return max_dyn;
  return st >= WV_DEFAULT_SHARED ? 0 : (int)(WV_DEFAULT_SHARED - st);
}

int wvcu_occupancy(const wv_prop_all *p, const wv_kernel *k, int block, size_t dyn_shared) {
  if (block <= 0 || block > p->maxThreadsPerBlock || (k && (uint32_t)block > wv_kernel_max_threads(k))) return 0;
  if (dyn_shared > p->sharedMemPerMultiprocessor) return 0;
  int warps = (block + 31) / 32;
  int n = p->maxThreadsPerMultiProcessor / (warps * 32);
  if (n > p->maxBlocksPerMultiProcessor) n = p->maxBlocksPerMultiProcessor;
  size_t smem = (k ? wv_kernel_static_shared(k) : 0) + dyn_shared;
  if (smem) {
    size_t per = smem + p->reservedSharedMemPerBlock;
    int by_smem = (int)(p->sharedMemPerMultiprocessor / per);
    if (by_smem < n) n = by_smem;
  }
  return n;
}

size_t wvcu_avail_dyn_shared(const wv_prop_all *p, const wv_kernel *k, int max_dyn, int nblocks, int block) {
  if (wvcu_occupancy(p, k, block, 0) < nblocks) return 0;
  size_t per = p->sharedMemPerMultiprocessor / (size_t)nblocks;
  size_t used = wv_kernel_static_shared(k) + p->reservedSharedMemPerBlock;
  size_t avail = per > used ? per - used : 0;
  size_t lim = (size_t)wvcu_dyn_shared_limit(k, max_dyn);
  return avail < lim ? avail : lim;
}

wvcu_launch_problem wvcu_launch_check(const wv_prop_all *p, const wv_kernel *k, int max_dyn, wv_dim3 grid,
                                      wv_dim3 block, size_t shared, int coop, char *why, size_t whylen) {
  uint64_t threads = (uint64_t)block.x * block.y * block.z;
  if (!threads || threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64) {
    snprintf(why, whylen, "block (%u,%u,%u): at most 1024 threads, x and y at most 1024, z at most 64", block.x,
             block.y, block.z);
    return WVCU_BAD_CONFIG;
  }
  if (!grid.x || !grid.y || !grid.z || grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535) {
    snprintf(why, whylen, "grid (%u,%u,%u): each dimension from 1 to (2^31-1, 65535, 65535)", grid.x, grid.y, grid.z);
    return WVCU_BAD_CONFIG;
  }
  if (threads > wv_kernel_max_threads(k)) { /* beyond __launch_bounds__ */
    snprintf(why, whylen, "a block of %llu threads, the kernel's __launch_bounds__ allow %u",
             (unsigned long long)threads, wv_kernel_max_threads(k));
    return WVCU_BAD_CONFIG;
  }
  int lim = wvcu_dyn_shared_limit(k, max_dyn);
  if (shared > (size_t)lim) {
    snprintf(why, whylen,
             "%zu bytes of dynamic shared memory, the kernel may have %d (48 KiB less its %u static bytes, unless "
             "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) allows up to 227 KiB)",
             shared, lim, wv_kernel_static_shared(k));
    return WVCU_TOO_MUCH_SHARED;
  }
  if (coop & WV_LAUNCH_COOPERATIVE) { /* (coop: the launch's WV_LAUNCH_* flags) */
    uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
    uint64_t cap = (uint64_t)wvcu_occupancy(p, k, (int)threads, shared) * (uint64_t)p->multiProcessorCount;
    if (blocks > cap) {
      snprintf(why, whylen, "a cooperative grid of %llu blocks, at most %llu can be resident at once",
               (unsigned long long)blocks, (unsigned long long)cap);
      return WVCU_COOP_TOO_LARGE;
    }
  }
  return WVCU_LAUNCH_OK;
}

/* (devprops.h) A dimension past 255 cannot be a cluster's and becomes 255, which the vm refuses (exec/launch.c). */
uint32_t wvcu_cluster_flags(unsigned x, unsigned y, unsigned z, int nonportable) {
  if (!x && !y && !z) return 0;
  return WV_LAUNCH_CLUSTER(x > 255 ? 255 : x, y > 255 ? 255 : y, z > 255 ? 255 : z) |
         (nonportable ? WV_LAUNCH_NONPORTABLE_CLUSTER : 0);
}

/* (devprops.h) The modelled GPU places a cluster's blocks on SMs of one GPC; warpvm counts every SM's resident blocks
 * as one pool (no GPC boundaries), so a GPU may answer less for large clusters. */
int wvcu_max_active_clusters(const wv_prop_all *p, const wv_kernel *k, int block, size_t dyn_shared, uint32_t csize) {
  if (!csize || csize > 16) return 0;
  int per_sm = wvcu_occupancy(p, k, block, dyn_shared);
  return (int)((uint64_t)per_sm * (uint64_t)p->multiProcessorCount / csize);
}

/* cudaLimitPersistingL2CacheSize: an H200 starts at 3/16 of its L2 and rounds a request up to a sixteenth of
 * its L2 (1 MiB became 3.75 MiB); a request past persistingL2CacheMaxSize is refused (0 here). */
size_t wvcu_persisting_l2(const wv_prop_all *p, size_t request, int is_default) {
  size_t grain = (size_t)p->l2CacheSize / 16, max = (size_t)p->persistingL2CacheMaxSize;
  if (is_default) return grain * 3;
  if (request > max) return 0;
  size_t v = (request + grain - 1) / grain * grain;
  return v > max ? max : v;
}
