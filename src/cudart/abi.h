/*
 * abi.h — the binary interface of NVIDIA's CUDA runtime (libcudart.so.12 / .13) as nvcc-built
 * programs see it: error codes, dim3, handle types, enums and the structs the API fills in.
 * Written from the CUDA headers' documented layouts; warpvm never includes NVIDIA's headers.
 * WV_CUDART_MAJOR (12 or 13) selects the one layout that differs: cudaDeviceProp (CUDA 13
 * removed clockRate, deviceOverlap, computeMode, ... and grew NUMA fields).
 */
#ifndef WV_CUDART_ABI_H
#define WV_CUDART_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifndef WV_CUDART_MAJOR
#define WV_CUDART_MAJOR 13
#endif

typedef enum cudaError {
#define WV_CUDA_ERROR(code, name, str) name = code,
#include "cudart/errors.def"
#undef WV_CUDA_ERROR
} cudaError_t;

typedef struct dim3 {
  unsigned int x, y, z;
} dim3;

typedef struct wv_cr_stream *cudaStream_t;
typedef struct wv_cr_event *cudaEvent_t;
typedef struct wv_cr_graph *cudaGraph_t;
typedef struct wv_cr_graph_exec *cudaGraphExec_t;
typedef struct wv_cr_graph_node *cudaGraphNode_t;
typedef struct wv_cr_func *cudaKernel_t;
typedef void (*cudaHostFn_t)(void *user);
typedef void (*cudaStreamCallback_t)(cudaStream_t s, cudaError_t status, void *user);

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
};
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2,
                      cudaMemoryTypeManaged = 3 };
enum { cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
enum { cudaLaunchAttributeCooperative = 2 };
enum { cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2, cudaLimitDevRuntimeSyncDepth = 3,
       cudaLimitDevRuntimePendingLaunchCount = 4, cudaLimitMaxL2FetchGranularity = 5, cudaLimitPersistingL2CacheSize = 6 };
enum { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1 };
#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocMapped 0x02

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
typedef struct cudaDeviceProp {
#if WV_CUDART_MAJOR >= 13
  WV_DEVICE_PROP_FIELDS(WV_PROP_FIELD, WV_PROP_SKIP, WV_PROP_FIELD, WV_PROP_FIELD)
#else
  WV_DEVICE_PROP_FIELDS(WV_PROP_FIELD, WV_PROP_FIELD, WV_PROP_SKIP, WV_PROP_SKIP)
#endif
} cudaDeviceProp;

struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;
  int maxDynamicSharedSizeBytes, preferredShmemCarveout, clusterDimMustBeSet;
  int requiredClusterWidth, requiredClusterHeight, requiredClusterDepth;
  int clusterSchedulingPolicyPreference, nonPortableClusterSizeAllowed;
  int reserved[16];
};

struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
  long reserved[8];
};

typedef struct cudaLaunchAttribute {
  int id;
  char pad[4];
  union {
    char pad[64];
    int cooperative;
  } val;
} cudaLaunchAttribute;

typedef struct cudaLaunchConfig_t {
  dim3 gridDim, blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;

/* The wrapper nvcc's host code passes to __cudaRegisterFatBinary. */
typedef struct wv_fatbin_wrapper {
  int magic, version;
  const unsigned long long *data;
  void *filename_or_fatbins;
} wv_fatbin_wrapper;

#endif
