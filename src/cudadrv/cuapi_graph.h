/*
 * cuapi_graph.h — the driver's entry points for streams, events, stream capture, stream-ordered allocation and
 * graphs and memory pools, with the parameter structs of cuda.h they take (their CUDA 12 layouts; the older ones are
 * prefixes): what the driver defines (stream.c, capture.c, graph*.c, memory.c) and warpvm's runtime calls,
 * its cudaStream*, cudaEvent*, cudaGraph*, capture and memory pool functions being a layer over these. Handles are
 * opaque (void *); a runtime handle is the driver's.
 */
#ifndef WV_CUDADRV_CUAPI_GRAPH_H
#define WV_CUDADRV_CUAPI_GRAPH_H

#include <stddef.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef void (*cu_host_fn)(void *user);

/* A graph edge's data (CUgraphEdgeData): ports and type, all zero for a plain dependency. */
typedef struct { unsigned char from_port, to_port, type, reserved[5]; } cu_edge;

/* CUDA_MEMCPY3D (cuda.h's layout); memory types CU_MEMTYPE_* (3, arrays: not supported). */
typedef struct {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  int srcMemoryType; const void *srcHost; CUdeviceptr srcDevice; void *srcArray; void *reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  int dstMemoryType; void *dstHost; CUdeviceptr dstDevice; void *dstArray; void *reserved1;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;

/* The parameter structs of cuda.h that graph nodes take (their CUDA 12 layouts: the older ones are prefixes). */
typedef struct { int type, id; } cu_mem_location;
typedef struct {
  int allocType, handleTypes;
  cu_mem_location location;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
} cu_mem_pool_props;                                             /* CUmemPoolProps */
typedef struct { cu_mem_location location; int flags; } cu_mem_access_desc;
typedef struct {
  void *func;
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  void **kernelParams, **extra;
  void *kern, *ctx;
} cu_kernel_params;                                              /* CUDA_KERNEL_NODE_PARAMS_v2/v3 */
typedef struct { CUdeviceptr dst; size_t pitch; unsigned value, elementSize; size_t width, height; void *ctx; }
    cu_memset_params;                                            /* CUDA_MEMSET_NODE_PARAMS(_v2) */
typedef struct { cu_host_fn fn; void *user; } cu_host_params;    /* CUDA_HOST_NODE_PARAMS */
typedef struct {
  cu_mem_pool_props poolProps;
  const cu_mem_access_desc *accessDescs;
  size_t accessDescCount, bytesize;
  CUdeviceptr dptr;
} cu_alloc_params;                                               /* CUDA_MEM_ALLOC_NODE_PARAMS */
typedef struct { unsigned long long handle; int type; unsigned size; void **phGraph_out; void *ctx; } cu_cond_params;
typedef struct {
  int type, reserved0[3];
  union {
    long long reserved1[29];
    cu_kernel_params kernel;
    struct { int flags, reserved; void *copyCtx; CUDA_MEMCPY3D copyParams; } memcpy;
    cu_memset_params memset;
    cu_host_params host;
    struct { void *graph; int ownership; } graph;
    struct { void *event; } eventWait, eventRecord;
    cu_alloc_params alloc;
    struct { CUdeviceptr dptr; } free;
    cu_cond_params conditional;
  } u;
  long long reserved2;
} cu_node_params;                                                /* CUgraphNodeParams */

/* CUDA_GRAPH_INSTANTIATE_PARAMS, CUgraphExecUpdateResultInfo */
typedef struct { unsigned long long flags; void *upload_stream; void *err_node_out; int result_out; } cu_inst_params;
typedef struct { int result; void *err_node, *err_from; } cu_update_info;

/* stubs.c and procs.c declare every entry point without parameters: they leave the prototypes out. */
#ifndef WV_CU_NO_PROTOTYPES
CUresult cuInit(unsigned flags);
CUresult cuDevicePrimaryCtxReset_v2(int dev);

/* streams and events (stream.c) */
CUresult cuStreamCreateWithPriority(void **ph, unsigned flags, int prio);
CUresult cuStreamDestroy_v2(void *h);
CUresult cuStreamSynchronize(void *h);
CUresult cuStreamQuery(void *h);
CUresult cuStreamGetFlags(void *h, unsigned *flags);
CUresult cuStreamGetPriority(void *h, int *prio);
CUresult cuStreamWaitEvent(void *hs, void *he, unsigned flags);
CUresult cuLaunchHostFunc(void *h, cu_host_fn fn, void *user);
CUresult cuStreamSetAttribute(void *h, int attr, const void *value);
CUresult cuStreamGetAttribute(void *h, int attr, void *value);
CUresult cuEventCreate(void **ph, unsigned flags);
CUresult cuEventDestroy_v2(void *h);
CUresult cuEventRecordWithFlags(void *he, void *hs, unsigned flags);
CUresult cuEventQuery(void *h);
CUresult cuEventSynchronize(void *h);
CUresult cuEventElapsedTime_v2(float *ms, void *ha, void *hb);

/* memory (memory.c); work on a stream (module.c, memory.c): captured while the stream captures */
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra);
CUresult cuLaunchCooperativeKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned shared, void *stream, void **params);
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *c, void *stream);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t n);
CUresult cuMemHostAlloc(void **pp, size_t n, unsigned flags);
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t n, unsigned flags);
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned flags);
CUresult cuMemHostUnregister(void *p);
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned flags);
CUresult cuMemHostGetFlags(unsigned *flags, void *p);
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, void *s);
CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t n, void *stream);
CUresult cuMemFreeAsync(CUdeviceptr p, void *stream);

/* memory pools (mempool.c) */
CUresult cuDeviceGetDefaultMemPool(void **pool, int dev);
CUresult cuDeviceGetMemPool(void **pool, int dev);
CUresult cuDeviceSetMemPool(int dev, void *pool);
CUresult cuMemGetDefaultMemPool(void **pool, cu_mem_location *loc, int type);
CUresult cuMemGetMemPool(void **pool, cu_mem_location *loc, int type);
CUresult cuMemSetMemPool(cu_mem_location *loc, int type, void *pool);
CUresult cuMemPoolCreate(void **out, const cu_mem_pool_props *props);
CUresult cuMemPoolDestroy(void *h);
CUresult cuMemPoolSetAttribute(void *h, int attr, void *value);
CUresult cuMemPoolGetAttribute(void *h, int attr, void *value);
CUresult cuMemPoolTrimTo(void *h, size_t keep);
CUresult cuMemPoolSetAccess(void *h, const cu_mem_access_desc *descs, size_t n);
CUresult cuMemPoolGetAccess(int *flags, void *h, cu_mem_location *loc);
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t n, void *pool, void *stream);

/* stream capture (capture.c) */
CUresult cuStreamBeginCapture_v2(void *h, int mode);
CUresult cuStreamBeginCaptureToGraph(void *h, void *g, void *const *deps, const cu_edge *ed, size_t n, int mode);
CUresult cuStreamEndCapture(void *h, void **out);
CUresult cuStreamIsCapturing(void *s, int *status);
CUresult cuStreamGetCaptureInfo_v3(void *s, int *status, unsigned long long *id, void **g, void *const **deps,
                                   const cu_edge **edges, size_t *n);
CUresult cuStreamUpdateCaptureDependencies_v2(void *s, void *const *deps, const cu_edge *ed, size_t n, unsigned flags);

/* graphs (graph.c) */
CUresult cuGraphCreate(void **out, unsigned flags);
CUresult cuGraphDestroy(void *h);
CUresult cuGraphClone(void **out, void *h);
CUresult cuGraphNodeFindInClone(void **out, void *orig, void *hclone);
CUresult cuGraphDestroyNode(void *h);
CUresult cuGraphAddDependencies_v2(void *g, void *const *from, void *const *to, const cu_edge *ed, size_t n);
CUresult cuGraphRemoveDependencies_v2(void *g, void *const *from, void *const *to, const cu_edge *ed, size_t n);
CUresult cuGraphGetNodes(void *g, void **nodes, size_t *n);
CUresult cuGraphGetRootNodes(void *g, void **nodes, size_t *n);
CUresult cuGraphGetEdges_v2(void *g, void **from, void **to, cu_edge *ed, size_t *n);
CUresult cuGraphNodeGetDependencies_v2(void *h, void **deps, cu_edge *ed, size_t *n);
CUresult cuGraphNodeGetDependentNodes_v2(void *h, void **out, cu_edge *ed, size_t *n);
CUresult cuGraphNodeGetType(void *h, int *type);
CUresult cuGraphDebugDotPrint(void *h, const char *path, unsigned flags);

/* nodes (graph_nodes.c) */
CUresult cuGraphAddKernelNode_v2(void **out, void *g, void *const *deps, size_t n, const cu_kernel_params *p);
CUresult cuGraphAddMemcpyNode(void **out, void *g, void *const *deps, size_t n, const CUDA_MEMCPY3D *p, void *ctx);
CUresult cuGraphAddMemsetNode(void **out, void *g, void *const *deps, size_t n, const cu_memset_params *p, void *ctx);
CUresult cuGraphAddHostNode(void **out, void *g, void *const *deps, size_t n, const cu_host_params *p);
CUresult cuGraphAddEventRecordNode(void **out, void *g, void *const *deps, size_t n, void *ev);
CUresult cuGraphAddEventWaitNode(void **out, void *g, void *const *deps, size_t n, void *ev);
CUresult cuGraphAddEmptyNode(void **out, void *g, void *const *deps, size_t n);
CUresult cuGraphAddChildGraphNode(void **out, void *g, void *const *deps, size_t n, void *child);
CUresult cuGraphAddMemAllocNode(void **out, void *g, void *const *deps, size_t n, cu_alloc_params *p);
CUresult cuGraphAddMemFreeNode(void **out, void *g, void *const *deps, size_t n, CUdeviceptr dptr);
CUresult cuGraphAddNode_v2(void **out, void *g, void *const *deps, const cu_edge *ed, size_t n, cu_node_params *p);
CUresult cuGraphConditionalHandleCreate(unsigned long long *out, void *g, void *ctx, unsigned dflt, unsigned flags);
CUresult cuGraphKernelNodeGetParams_v2(void *h, cu_kernel_params *p);
CUresult cuGraphKernelNodeSetParams_v2(void *h, const cu_kernel_params *p);
CUresult cuGraphMemcpyNodeGetParams(void *h, CUDA_MEMCPY3D *p);
CUresult cuGraphMemcpyNodeSetParams(void *h, const CUDA_MEMCPY3D *p);
CUresult cuGraphMemsetNodeGetParams(void *h, cu_memset_params *p);
CUresult cuGraphMemsetNodeSetParams(void *h, const cu_memset_params *p);
CUresult cuGraphHostNodeGetParams(void *h, cu_host_params *p);
CUresult cuGraphHostNodeSetParams(void *h, const cu_host_params *p);
CUresult cuGraphEventRecordNodeGetEvent(void *h, void **ev);
CUresult cuGraphEventWaitNodeGetEvent(void *h, void **ev);
CUresult cuGraphEventRecordNodeSetEvent(void *h, void *ev);
CUresult cuGraphEventWaitNodeSetEvent(void *h, void *ev);
CUresult cuGraphChildGraphNodeGetGraph(void *h, void **out);
CUresult cuGraphMemAllocNodeGetParams(void *h, cu_alloc_params *p);
CUresult cuGraphMemFreeNodeGetParams(void *h, CUdeviceptr *dptr_out);
CUresult cuGraphNodeSetParams(void *h, cu_node_params *p);

/* graph memory (graph_mem.c) */
CUresult cuDeviceGetGraphMemAttribute(int dev, int attr, void *value);
CUresult cuDeviceSetGraphMemAttribute(int dev, int attr, void *value);
CUresult cuDeviceGraphMemTrim(int dev);

/* executable graphs (graph_exec.c) */
CUresult cuGraphInstantiateWithFlags(void **out, void *g, unsigned long long flags);
CUresult cuGraphInstantiateWithParams(void **out, void *g, cu_inst_params *p);
CUresult cuGraphExecDestroy(void *h);
CUresult cuGraphExecGetFlags(void *h, unsigned long long *flags);
CUresult cuGraphUpload(void *h, void *hs);
CUresult cuGraphLaunch(void *h, void *hs);
CUresult cuGraphExecUpdate_v2(void *hx, void *hg, cu_update_info *info);
CUresult cuGraphExecKernelNodeSetParams_v2(void *hx, void *h, const cu_kernel_params *p);
CUresult cuGraphExecMemcpyNodeSetParams(void *hx, void *h, const CUDA_MEMCPY3D *p, void *ctx);
CUresult cuGraphExecMemsetNodeSetParams(void *hx, void *h, const cu_memset_params *p, void *ctx);
CUresult cuGraphExecHostNodeSetParams(void *hx, void *h, const cu_host_params *p);
CUresult cuGraphExecEventRecordNodeSetEvent(void *hx, void *h, void *ev);
CUresult cuGraphExecEventWaitNodeSetEvent(void *hx, void *h, void *ev);
CUresult cuGraphExecNodeSetParams(void *hx, void *h, cu_node_params *p);
CUresult cuGraphExecChildGraphNodeSetParams(void *hx, void *h, void *hc);
CUresult cuGraphNodeSetEnabled(void *hx, void *h, unsigned on);
CUresult cuGraphNodeGetEnabled(void *hx, void *h, unsigned *on);
#endif

#endif
