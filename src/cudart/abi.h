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
#include "cudadrv/rt_errors.def"
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
enum { cudaLaunchAttributeCooperative = 2, cudaLaunchAttributeClusterDimension = 4 };
enum { cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2, cudaLimitDevRuntimeSyncDepth = 3,
       cudaLimitDevRuntimePendingLaunchCount = 4, cudaLimitMaxL2FetchGranularity = 5, cudaLimitPersistingL2CacheSize = 6 };
enum { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1 };
#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocMapped 0x02

#include "cudadrv/devprops.h"

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
    struct { unsigned x, y, z; } clusterDim;
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
