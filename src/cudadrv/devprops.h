/*
 * devprops.h — the virtual device's properties, shared by the driver (cuDeviceGetAttribute, the
 * static runtime's cudaDeviceProp) and warpvm's runtime (cudaGetDeviceProperties): every field of
 * cudaDeviceProp in CUDA 12's and 13's layouts (WV_DEVICE_PROP_FIELDS), and the CUdevice_attribute /
 * cudaDeviceAttr numbers (one numbering) answered from them.
 */
#ifndef WV_CUDADRV_DEVPROPS_H
#define WV_CUDADRV_DEVPROPS_H

#include <stddef.h>

#include "warpvm.h"

/* Exported by libcuda.so.1 for warpvm's runtime. */
#pragma GCC visibility push(default)

typedef struct cudaUUID_t {
  char bytes[16];
} cudaUUID_t;

/* cudaDeviceProp, field by field in declaration order. F(type, name, dims): in both layouts;
 * F12 only in CUDA 12's (cudaGetDeviceProperties_v2), F13 only in CUDA 13's, R13 CUDA 13's
 * reserved tail (shorter than CUDA 12's, which wv_prop_all keeps). */
#define WV_DEVICE_PROP_FIELDS(F, F12, F13, R13)                                                     \
  F(char, name, [256]) F(cudaUUID_t, uuid, ) F(char, luid, [8]) F(unsigned int, luidDeviceNodeMask, ) \
  F(size_t, totalGlobalMem, ) F(size_t, sharedMemPerBlock, ) F(int, regsPerBlock, ) F(int, warpSize, ) \
  F(size_t, memPitch, ) F(int, maxThreadsPerBlock, ) F(int, maxThreadsDim, [3]) F(int, maxGridSize, [3]) \
  F12(int, clockRate, ) F(size_t, totalConstMem, ) F(int, major, ) F(int, minor, )                   \
  F(size_t, textureAlignment, ) F(size_t, texturePitchAlignment, ) F12(int, deviceOverlap, )         \
  F(int, multiProcessorCount, ) F12(int, kernelExecTimeoutEnabled, ) F(int, integrated, )           \
  F(int, canMapHostMemory, ) F12(int, computeMode, ) F(int, maxTexture1D, ) F(int, maxTexture1DMipmap, ) \
  F12(int, maxTexture1DLinear, ) F(int, maxTexture2D, [2]) F(int, maxTexture2DMipmap, [2])           \
  F(int, maxTexture2DLinear, [3]) F(int, maxTexture2DGather, [2]) F(int, maxTexture3D, [3])          \
  F(int, maxTexture3DAlt, [3]) F(int, maxTextureCubemap, ) F(int, maxTexture1DLayered, [2])          \
  F(int, maxTexture2DLayered, [3]) F(int, maxTextureCubemapLayered, [2]) F(int, maxSurface1D, )      \
  F(int, maxSurface2D, [2]) F(int, maxSurface3D, [3]) F(int, maxSurface1DLayered, [2])               \
  F(int, maxSurface2DLayered, [3]) F(int, maxSurfaceCubemap, ) F(int, maxSurfaceCubemapLayered, [2]) \
  F(size_t, surfaceAlignment, ) F(int, concurrentKernels, ) F(int, ECCEnabled, ) F(int, pciBusID, )  \
  F(int, pciDeviceID, ) F(int, pciDomainID, ) F(int, tccDriver, ) F(int, asyncEngineCount, )         \
  F(int, unifiedAddressing, ) F12(int, memoryClockRate, ) F(int, memoryBusWidth, ) F(int, l2CacheSize, ) \
  F(int, persistingL2CacheMaxSize, ) F(int, maxThreadsPerMultiProcessor, ) F(int, streamPrioritiesSupported, ) \
  F(int, globalL1CacheSupported, ) F(int, localL1CacheSupported, ) F(size_t, sharedMemPerMultiprocessor, ) \
  F(int, regsPerMultiprocessor, ) F(int, managedMemory, ) F(int, isMultiGpuBoard, )                 \
  F(int, multiGpuBoardGroupID, ) F(int, hostNativeAtomicSupported, )                                  \
  F12(int, singleToDoublePrecisionPerfRatio, ) F(int, pageableMemoryAccess, )                         \
  F(int, concurrentManagedAccess, ) F(int, computePreemptionSupported, )                              \
  F(int, canUseHostPointerForRegisteredMem, ) F(int, cooperativeLaunch, )                             \
  F12(int, cooperativeMultiDeviceLaunch, ) F(size_t, sharedMemPerBlockOptin, )                        \
  F(int, pageableMemoryAccessUsesHostPageTables, ) F(int, directManagedMemAccessFromHost, )           \
  F(int, maxBlocksPerMultiProcessor, ) F(int, accessPolicyMaxWindowSize, )                            \
  F(size_t, reservedSharedMemPerBlock, ) F(int, hostRegisterSupported, ) F(int, sparseCudaArraySupported, ) \
  F(int, hostRegisterReadOnlySupported, ) F(int, timelineSemaphoreInteropSupported, )                 \
  F(int, memoryPoolsSupported, ) F(int, gpuDirectRDMASupported, )                                     \
  F(unsigned int, gpuDirectRDMAFlushWritesOptions, ) F(int, gpuDirectRDMAWritesOrdering, )            \
  F(unsigned int, memoryPoolSupportedHandleTypes, ) F(int, deferredMappingCudaArraySupported, )       \
  F(int, ipcEventSupported, ) F(int, clusterLaunch, ) F(int, unifiedFunctionPointers, )               \
  F12(int, reserved2, [2]) F12(int, reserved1, [1]) F12(int, reserved, [60])                          \
  F13(int, deviceNumaConfig, ) F13(int, deviceNumaId, ) F13(int, mpsEnabled, ) F13(int, hostNumaId, ) \
  F13(unsigned int, gpuPciDeviceID, ) F13(unsigned int, gpuPciSubsystemID, )                          \
  F13(int, hostNumaMultinodeIpcSupported, ) R13(int, reserved, [56])

#define WV_PROP_FIELD(t, n, d) t n d;
#define WV_PROP_SKIP(t, n, d)
/* Every field of either layout (the runtime fills this, then copies out the chosen layout). */
typedef struct wv_prop_all {
  WV_DEVICE_PROP_FIELDS(WV_PROP_FIELD, WV_PROP_FIELD, WV_PROP_SKIP, WV_PROP_SKIP)
  WV_DEVICE_PROP_FIELDS(WV_PROP_SKIP, WV_PROP_SKIP, WV_PROP_FIELD, WV_PROP_SKIP)
} wv_prop_all;

#define WV_NUM_SMS 16                   /* the virtual device's SMs */
#define WV_SMEM_PER_SM (228u * 1024u)
#define WV_DEFAULT_SHARED (48u * 1024u)  /* dynamic shared memory allowed without opt-in */
#define WV_OPTIN_SHARED (227u * 1024u)   /* cudaFuncAttributeMaxDynamicSharedMemorySize limit */

/* Fill p for the machine WARPVM_MACHINE names (default sm_90). */
void wvcu_fill_props(wv_prop_all *p);
/* Attribute attr (CUdevice_attribute = cudaDeviceAttr) of the device p describes: 0, or -1 if unknown. */
int wvcu_attribute(const wv_prop_all *p, int attr, int *out);

/* ---- launch limits, one set of rules for the driver and warpvm's runtime ---- */
/* The dynamic shared memory a launch of k may ask for: max_dyn if the program set it (>= 0), else
 * 48 KiB less k's static shared memory. */
int wvcu_dyn_shared_limit(const wv_kernel *k, int max_dyn);
/* Blocks of k (block threads, dyn_shared bytes) resident on one SM, as cudaOccupancy... computes. */
int wvcu_occupancy(const wv_prop_all *p, const wv_kernel *k, int block, size_t dyn_shared);
/* The persisting-L2 limit for a request (or its default), rounded as an H200 does; 0: refused (past the maximum). */
size_t wvcu_persisting_l2(const wv_prop_all *p, size_t request, int is_default);
/* cudaOccupancyAvailableDynamicSMemPerBlock: dynamic shared memory a block may have so that nblocks blocks of
 * `block` threads fit on one SM (nblocks > 0). */
size_t wvcu_avail_dyn_shared(const wv_prop_all *p, const wv_kernel *k, int max_dyn, int nblocks, int block);
/* A launch's cluster shape (a launch attribute or cudaFuncSetAttribute's) as wv_launch_ex flags; 0 for 0,0,0. */
uint32_t wvcu_cluster_flags(unsigned x, unsigned y, unsigned z, int nonportable);
/* cudaOccupancyMaxActiveClusters: clusters of csize blocks of k that can be resident at once (0: none fits). */
int wvcu_max_active_clusters(const wv_prop_all *p, const wv_kernel *k, int block, size_t dyn_shared, uint32_t csize);
typedef enum { WVCU_LAUNCH_OK, WVCU_BAD_CONFIG, WVCU_TOO_MUCH_SHARED, WVCU_COOP_TOO_LARGE } wvcu_launch_problem;
/* Whether a launch configuration is within the device's and the kernel's limits; why says what not. */
wvcu_launch_problem wvcu_launch_check(const wv_prop_all *p, const wv_kernel *k, int max_dyn, wv_dim3 grid,
                                      wv_dim3 block, size_t shared, int coop, char *why, size_t whylen);

#pragma GCC visibility pop

#endif
