/*
 * abi_graph.h — the binary interface of CUDA graphs and stream-ordered memory pools as nvcc-built
 * programs see it: node parameter structs (kernel, 3D copy, memset, host, memory allocation,
 * conditional, the generic cudaGraphNodeParams), edge data, instantiate/update results, pool
 * properties and the enums they use. Written from the CUDA 12/13 headers' documented layouts (the
 * same in both); the static asserts hold the sizes NVIDIA's CUDA 13 headers give on x86-64.
 */
#ifndef WV_CUDART_ABI_GRAPH_H
#define WV_CUDART_ABI_GRAPH_H

#include "cudart/abi.h"

typedef struct wv_cr_pool *cudaMemPool_t;
typedef unsigned long long cudaGraphConditionalHandle;

enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0, cudaGraphNodeTypeMemcpy = 1, cudaGraphNodeTypeMemset = 2, cudaGraphNodeTypeHost = 3,
  cudaGraphNodeTypeGraph = 4, cudaGraphNodeTypeEmpty = 5, cudaGraphNodeTypeWaitEvent = 6,
  cudaGraphNodeTypeEventRecord = 7, cudaGraphNodeTypeExtSemaphoreSignal = 8, cudaGraphNodeTypeExtSemaphoreWait = 9,
  cudaGraphNodeTypeMemAlloc = 10, cudaGraphNodeTypeMemFree = 11, cudaGraphNodeTypeConditional = 13
};
enum { cudaGraphCondTypeIf = 0, cudaGraphCondTypeWhile = 1, cudaGraphCondTypeSwitch = 2 };
enum { cudaGraphCondAssignDefault = 1 };
enum { cudaGraphInstantiateFlagAutoFreeOnLaunch = 1, cudaGraphInstantiateFlagUpload = 2,
       cudaGraphInstantiateFlagDeviceLaunch = 4, cudaGraphInstantiateFlagUseNodePriority = 8 };
enum { cudaGraphInstantiateSuccess = 0, cudaGraphInstantiateError = 1, cudaGraphInstantiateInvalidStructure = 2,
       cudaGraphInstantiateConditionalHandleUnused = 5 };
enum { cudaGraphExecUpdateSuccess = 0, cudaGraphExecUpdateError = 1, cudaGraphExecUpdateErrorTopologyChanged = 2,
       cudaGraphExecUpdateErrorNodeTypeChanged = 3, cudaGraphExecUpdateErrorParametersChanged = 5,
       cudaGraphExecUpdateErrorNotSupported = 6 };
enum { cudaStreamAddCaptureDependencies = 0, cudaStreamSetCaptureDependencies = 1 };
enum { cudaChildGraphOwnershipClone = 0, cudaChildGraphOwnershipMove = 1 };
#define cudaEventRecordExternal 0x01
#define cudaEventWaitExternal 0x01

struct cudaPos { size_t x, y, z; };
struct cudaExtent { size_t width, height, depth; };
struct cudaPitchedPtr { void *ptr; size_t pitch, xsize, ysize; };
struct cudaMemcpy3DParms {
  void *srcArray;                    /* CUDA arrays: not supported by warpvm */
  struct cudaPos srcPos;
  struct cudaPitchedPtr srcPtr;
  void *dstArray;
  struct cudaPos dstPos;
  struct cudaPitchedPtr dstPtr;
  struct cudaExtent extent;          /* width in bytes for linear memory */
  int kind;                          /* enum cudaMemcpyKind */
};
struct cudaMemcpyNodeParams { int flags, reserved[3]; struct cudaMemcpy3DParms copyParams; };
struct cudaMemsetParams {
  void *dst;
  size_t pitch;
  unsigned int value, elementSize;   /* elementSize 1, 2 or 4 */
  size_t width, height;              /* width in elements */
};
struct cudaHostNodeParams { cudaHostFn_t fn; void *userData; };
struct cudaKernelNodeParams {
  void *func;                        /* the host stub, or a cudaKernel_t */
  dim3 gridDim, blockDim;
  unsigned int sharedMemBytes;
  void **kernelParams, **extra;
};
enum { cudaMemLocationTypeDevice = 1 };
enum { cudaMemAllocationTypePinned = 1 };
enum { cudaMemAccessFlagsProtNone = 0, cudaMemAccessFlagsProtRead = 1, cudaMemAccessFlagsProtReadWrite = 3 };
struct cudaMemLocation { int type, id; };
struct cudaMemAccessDesc { struct cudaMemLocation location; int flags; };
struct cudaMemPoolProps {
  int allocType, handleTypes;
  struct cudaMemLocation location;
  void *win32SecurityAttributes;
  size_t maxSize;                    /* 0: no limit */
  unsigned short usage;
  unsigned char reserved[54];
};
enum cudaMemPoolAttr {
  cudaMemPoolReuseFollowEventDependencies = 1, cudaMemPoolReuseAllowOpportunistic = 2,
  cudaMemPoolReuseAllowInternalDependencies = 3, cudaMemPoolAttrReleaseThreshold = 4,
  cudaMemPoolAttrReservedMemCurrent = 5, cudaMemPoolAttrReservedMemHigh = 6, cudaMemPoolAttrUsedMemCurrent = 7,
  cudaMemPoolAttrUsedMemHigh = 8
};
struct cudaMemAllocNodeParams {
  struct cudaMemPoolProps poolProps;
  const struct cudaMemAccessDesc *accessDescs;
  size_t accessDescCount, bytesize;
  void *dptr;                        /* out */
};
struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  int type;                          /* cudaGraphCondType* */
  unsigned int size;                 /* bodies: 1 (while), 1 or 2 (if), any (switch) */
  cudaGraph_t *phGraph_out;          /* out: the body graphs, owned by the node */
};
struct cudaChildGraphNodeParams { cudaGraph_t graph; int ownership; };
struct cudaGraphNodeParams {
  int type;                          /* enum cudaGraphNodeType */
  int reserved0[3];
  union {
    long long reserved1[29];
    struct cudaKernelNodeParams kernel;
    struct cudaMemcpyNodeParams memcpy;
    struct cudaMemsetParams memset;
    struct cudaHostNodeParams host;
    struct cudaChildGraphNodeParams graph;
    struct { cudaEvent_t event; } eventWait, eventRecord;
    struct cudaMemAllocNodeParams alloc;
    struct { void *dptr; } free;
    struct cudaConditionalNodeParams conditional;
  } u;
  long long reserved2;
};
typedef struct cudaGraphEdgeData { unsigned char from_port, to_port, type, reserved[5]; } cudaGraphEdgeData;
typedef struct cudaGraphInstantiateParams {
  unsigned long long flags;
  cudaStream_t uploadStream;
  cudaGraphNode_t errNode_out;
  int result_out;                    /* cudaGraphInstantiate* */
} cudaGraphInstantiateParams;
typedef struct cudaGraphExecUpdateResultInfo {
  int result;                        /* cudaGraphExecUpdate* */
  cudaGraphNode_t errorNode, errorFromNode;
} cudaGraphExecUpdateResultInfo;

_Static_assert(sizeof(struct cudaGraphNodeParams) == 256, "cudaGraphNodeParams");
_Static_assert(sizeof(struct cudaMemPoolProps) == 88, "cudaMemPoolProps");
_Static_assert(sizeof(struct cudaKernelNodeParams) == 56, "cudaKernelNodeParams");
_Static_assert(sizeof(struct cudaMemcpy3DParms) == 160, "cudaMemcpy3DParms");
_Static_assert(sizeof(struct cudaMemAllocNodeParams) == 120, "cudaMemAllocNodeParams");
_Static_assert(sizeof(struct cudaConditionalNodeParams) == 24, "cudaConditionalNodeParams");
_Static_assert(sizeof(struct cudaMemsetParams) == 40, "cudaMemsetParams");
_Static_assert(sizeof(cudaGraphInstantiateParams) == 32, "cudaGraphInstantiateParams");

#endif
