/*
 * graph_nodes.c — graph nodes in the runtime: the runtime's parameter structs turned into the driver's (and
 * back, for the getters) for the node kinds whose parameters differ between the two APIs, checked with the
 * runtime's errors first: a kernel node names the host stub of a registered kernel (the driver gets its
 * CUfunction, wvcu_func), a copy's cudaMemcpyKind becomes the memory types of its two sides (and comes back
 * from them), a symbol copy is a 1D copy to or from the symbol's address, a set's pointer is a CUdeviceptr.
 * The other kinds (host functions, events, child graphs, allocations, conditional nodes) share their layouts.
 * The node creation, setter and getter functions call the driver (cudadrv/graph_nodes.c, graph_exec.c).
 */
#include <stdio.h>
#include <string.h>

#include "cudart/cudart.h"

#define NODES(p) ((void *const *)(p))

cudaError_t wv_cr_unsupported(cudart *r, const char *what) {
  if (wv_cr_first_time(r, what))
    fprintf(stderr, "warpvm: %s is not supported by warpvm's CUDA runtime (cudaErrorNotSupported)\n", what);
  return cudaErrorNotSupported;
}

/* ---- the runtime's parameters -> the driver's ---- */
static cudaError_t kernel_params(cudart *r, const struct cudaKernelNodeParams *p, cu_kernel_params *out) {
  if (!p) return cudaErrorInvalidValue;
  cr_func *f = wv_cr_func_find(r, p->func);
  if (!f) return cudaErrorInvalidDeviceFunction;
  cudaError_t e = wv_cr_launch_check(r, f, p->gridDim, p->blockDim, p->sharedMemBytes, 0);
  void *cuf = e ? NULL : wv_cr_func_cu(f);
  if (e || !cuf) return e ? e : cudaErrorMemoryAllocation;
  *out = (cu_kernel_params){cuf, p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x, p->blockDim.y, p->blockDim.z,
                            p->sharedMemBytes, p->kernelParams, p->extra, NULL, NULL};
  return cudaSuccess;
}

static int kind_ok(int kind) { return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault; }

static cudaError_t memcpy_params(cudart *r, const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *out) {
  if (!p) return cudaErrorInvalidValue;
  if (p->srcArray || p->dstArray) return wv_cr_unsupported(r, "a memcpy node with a CUDA array");
  if (!kind_ok(p->kind)) return cudaErrorInvalidMemcpyDirection;
  if (!p->srcPtr.ptr || !p->dstPtr.ptr) return cudaErrorInvalidValue;
  *out = (CUDA_MEMCPY3D){.srcXInBytes = p->srcPos.x, .srcY = p->srcPos.y, .srcZ = p->srcPos.z,
                         .srcHost = p->srcPtr.ptr, .srcDevice = (CUdeviceptr)(uintptr_t)p->srcPtr.ptr,
                         .srcPitch = p->srcPtr.pitch, .srcHeight = p->srcPtr.ysize, .dstXInBytes = p->dstPos.x,
                         .dstY = p->dstPos.y, .dstZ = p->dstPos.z, .dstHost = p->dstPtr.ptr,
                         .dstDevice = (CUdeviceptr)(uintptr_t)p->dstPtr.ptr, .dstPitch = p->dstPtr.pitch,
                         .dstHeight = p->dstPtr.ysize, .WidthInBytes = p->extent.width, .Height = p->extent.height,
                         .Depth = p->extent.depth};
  wv_cr_kind_types(p->kind, &out->srcMemoryType, &out->dstMemoryType);
  return cudaSuccess;
}

static cudaError_t memcpy1d_params(void *dst, const void *src, size_t n, int kind, CUDA_MEMCPY3D *out) {
  if (!kind_ok(kind)) return cudaErrorInvalidMemcpyDirection;
  if (n && (!dst || !src)) return cudaErrorInvalidValue;
  struct cudaMemcpy3DParms p = {.srcPtr = {(void *)src, n, n, 1}, .dstPtr = {dst, n, n, 1}, .extent = {n, 1, 1},
                                .kind = kind};
  return memcpy_params(NULL, &p, out);
}

static cudaError_t symbol_params(cudart *r, const void *sym, void *host, size_t n, size_t off, int kind, int to_sym,
                                 CUDA_MEMCPY3D *out) {
  void *dev;
  cudaError_t e = wv_cr_symbol_addr(r, sym, off, n, &dev, NULL);
  if (e) return e;
  if (to_sym ? kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault
             : kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  return to_sym ? memcpy1d_params(dev, host, n, kind, out) : memcpy1d_params(host, dev, n, kind, out);
}

static cu_memset_params memset_params(const struct cudaMemsetParams *p) {
  return (cu_memset_params){(CUdeviceptr)(uintptr_t)p->dst, p->pitch, p->value, p->elementSize, p->width, p->height, NULL};
}

/* cudaGraphNodeParams -> CUgraphNodeParams (the kinds whose layouts differ are translated). */
static cudaError_t node_params(cudart *r, const struct cudaGraphNodeParams *p, cu_node_params *out) {
  if (!p) return cudaErrorInvalidValue;
  memcpy(out, p, sizeof *out); /* the same size and layout but for kernels, copies and sets */
  switch (p->type) {
  case cudaGraphNodeTypeKernel: return kernel_params(r, &p->u.kernel, &out->u.kernel);
  case cudaGraphNodeTypeMemcpy: return memcpy_params(r, &p->u.memcpy.copyParams, &out->u.memcpy.copyParams);
  case cudaGraphNodeTypeMemset:
    if (!p->u.memset.dst) return cudaErrorInvalidValue;
    out->u.memset = memset_params(&p->u.memset);
    return cudaSuccess;
  default: return cudaSuccess;
  }
}
_Static_assert(sizeof(cu_node_params) == sizeof(struct cudaGraphNodeParams), "CUgraphNodeParams");
_Static_assert(sizeof(cu_alloc_params) == sizeof(struct cudaMemAllocNodeParams), "CUDA_MEM_ALLOC_NODE_PARAMS");

/* The runtime's check first (its error), then the driver's call. */
#define NODE_CALL(params_t, build, call)             \
  cudart *r = wv_cr();                               \
  params_t cp;                                       \
  (void)r;                                           \
  cudaError_t e = (build);                           \
  return wv_cr_ret(e ? e : wv_cr_from_cu(call))

/* ---- adding nodes ---- */
WV_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                             size_t n, const struct cudaKernelNodeParams *p) {
  NODE_CALL(cu_kernel_params, kernel_params(r, p, &cp), cuGraphAddKernelNode_v2((void **)out, g, NODES(deps), n, &cp));
}
WV_EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                             size_t n, const struct cudaMemcpy3DParms *p) {
  NODE_CALL(CUDA_MEMCPY3D, memcpy_params(r, p, &cp), cuGraphAddMemcpyNode((void **)out, g, NODES(deps), n, &cp, NULL));
}
WV_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                               size_t n, void *dst, const void *src, size_t count, int kind) {
  NODE_CALL(CUDA_MEMCPY3D, memcpy1d_params(dst, src, count, kind, &cp),
            cuGraphAddMemcpyNode((void **)out, g, NODES(deps), n, &cp, NULL));
}
WV_EXPORT cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                                     size_t n, const void *sym, const void *src, size_t count,
                                                     size_t off, int kind) {
  NODE_CALL(CUDA_MEMCPY3D, symbol_params(r, sym, (void *)src, count, off, kind, 1, &cp),
            cuGraphAddMemcpyNode((void **)out, g, NODES(deps), n, &cp, NULL));
}
WV_EXPORT cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *out, cudaGraph_t g,
                                                       const cudaGraphNode_t *deps, size_t n, void *dst,
                                                       const void *sym, size_t count, size_t off, int kind) {
  NODE_CALL(CUDA_MEMCPY3D, symbol_params(r, sym, dst, count, off, kind, 0, &cp),
            cuGraphAddMemcpyNode((void **)out, g, NODES(deps), n, &cp, NULL));
}
WV_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                             size_t n, const struct cudaMemsetParams *p) {
  NODE_CALL(cu_memset_params, (p ? (cp = memset_params(p), cudaSuccess) : cudaErrorInvalidValue),
            cuGraphAddMemsetNode((void **)out, g, NODES(deps), n, &cp, NULL));
}
WV_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                           size_t n, const struct cudaHostNodeParams *p) {
  WV_CR_CU(cuGraphAddHostNode((void **)out, g, NODES(deps), n, (const cu_host_params *)p));
}
WV_EXPORT cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                                  size_t n, cudaEvent_t ev) {
  WV_CR_CU(cuGraphAddEventRecordNode((void **)out, g, NODES(deps), n, ev));
}
WV_EXPORT cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                                size_t n, cudaEvent_t ev) {
  WV_CR_CU(cuGraphAddEventWaitNode((void **)out, g, NODES(deps), n, ev));
}
WV_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                            size_t n) {
  WV_CR_CU(cuGraphAddEmptyNode((void **)out, g, NODES(deps), n));
}
WV_EXPORT cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                                 size_t n, cudaGraph_t child) {
  WV_CR_CU(cuGraphAddChildGraphNode((void **)out, g, NODES(deps), n, child));
}
WV_EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                               size_t n, struct cudaMemAllocNodeParams *p) {
  WV_CR_CU(cuGraphAddMemAllocNode((void **)out, g, NODES(deps), n, (cu_alloc_params *)p));
}
WV_EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                              size_t n, void *dptr) {
  WV_CR_CU(cuGraphAddMemFreeNode((void **)out, g, NODES(deps), n, (CUdeviceptr)(uintptr_t)dptr));
}
WV_EXPORT cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *out, cudaGraph_t g,
                                                       unsigned int dflt, unsigned int flags) {
  WV_CR_CU(cuGraphConditionalHandleCreate(out, g, NULL, dflt, flags));
}

/* cudaGraphAddNode: the output fields (an allocation's address, the conditional bodies) come back into *p. */
static cudaError_t add_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                            const cudaGraphEdgeData *ed, size_t n, struct cudaGraphNodeParams *p) {
  cudart *r = wv_cr_enter("cudaGraphAddNode");
  cu_node_params np;
  cudaError_t e = node_params(r, p, &np);
  if (!e) e = wv_cr_from_cu(cuGraphAddNode_v2((void **)out, g, NODES(deps), (const cu_edge *)ed, n, &np));
  if (!e && p->type == cudaGraphNodeTypeMemAlloc) p->u.alloc.dptr = (void *)(uintptr_t)np.u.alloc.dptr;
  if (!e && p->type == cudaGraphNodeTypeConditional) p->u.conditional.phGraph_out = (cudaGraph_t *)np.u.conditional.phGraph_out;
  return wv_cr_ret(e);
}
WV_EXPORT cudaError_t cudaGraphAddNode_v2(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                          const cudaGraphEdgeData *ed, size_t n, struct cudaGraphNodeParams *p) {
  return add_node(out, g, deps, ed, n, p);
}
#if WV_CUDART_MAJOR >= 13
WV_EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                       const cudaGraphEdgeData *ed, size_t n, struct cudaGraphNodeParams *p) {
  return add_node(out, g, deps, ed, n, p);
}
#else
WV_EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t n,
                                       struct cudaGraphNodeParams *p) {
  return add_node(out, g, deps, NULL, n, p);
}
#endif

/* ---- getters ---- */
WV_EXPORT cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t h, struct cudaKernelNodeParams *p) {
  cudart *r = wv_cr();
  cu_kernel_params kp;
  cudaError_t e = p ? wv_cr_from_cu(cuGraphKernelNodeGetParams_v2(h, &kp)) : cudaErrorInvalidValue;
  cr_func *f = e ? NULL : wv_cr_func_of_cu(r, kp.func);
  if (!e && !f) e = cudaErrorInvalidDeviceFunction; /* a node the driver API made */
  if (!e)
    *p = (struct cudaKernelNodeParams){(void *)f->host_fn, {kp.gridDimX, kp.gridDimY, kp.gridDimZ},
                                       {kp.blockDimX, kp.blockDimY, kp.blockDimZ}, kp.sharedMemBytes,
                                       kp.kernelParams, NULL};
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t h, struct cudaMemcpy3DParms *p) {
  wv_cr();
  CUDA_MEMCPY3D c;
  cudaError_t e = p ? wv_cr_from_cu(cuGraphMemcpyNodeGetParams(h, &c)) : cudaErrorInvalidValue;
  if (e) return wv_cr_ret(e);
  static const int KIND[5][5] = {[1][1] = cudaMemcpyHostToHost, [1][2] = cudaMemcpyHostToDevice,
                                 [2][1] = cudaMemcpyDeviceToHost, [2][2] = cudaMemcpyDeviceToDevice};
  int st = c.srcMemoryType, dt = c.dstMemoryType;
  void *src = st == 1 ? (void *)c.srcHost : (void *)(uintptr_t)c.srcDevice;
  void *dst = dt == 1 ? c.dstHost : (void *)(uintptr_t)c.dstDevice;
  *p = (struct cudaMemcpy3DParms){.srcPos = {c.srcXInBytes, c.srcY, c.srcZ},
                                  .srcPtr = {src, c.srcPitch, c.srcPitch, c.srcHeight},
                                  .dstPos = {c.dstXInBytes, c.dstY, c.dstZ},
                                  .dstPtr = {dst, c.dstPitch, c.dstPitch, c.dstHeight},
                                  .extent = {c.WidthInBytes, c.Height, c.Depth},
                                  .kind = st < 4 && dt < 4 && (st == 1 || st == 2) && (dt == 1 || dt == 2)
                                              ? KIND[st][dt] : cudaMemcpyDefault};
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t h, struct cudaMemsetParams *p) {
  wv_cr();
  cu_memset_params m;
  cudaError_t e = p ? wv_cr_from_cu(cuGraphMemsetNodeGetParams(h, &m)) : cudaErrorInvalidValue;
  if (!e) *p = (struct cudaMemsetParams){(void *)(uintptr_t)m.dst, m.pitch, m.value, m.elementSize, m.width, m.height};
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t h, struct cudaHostNodeParams *p) {
  WV_CR_CU(cuGraphHostNodeGetParams(h, (cu_host_params *)p));
}
WV_EXPORT cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t h, cudaEvent_t *ev) {
  WV_CR_CU(cuGraphEventRecordNodeGetEvent(h, (void **)ev));
}
WV_EXPORT cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t h, cudaEvent_t *ev) {
  WV_CR_CU(cuGraphEventWaitNodeGetEvent(h, (void **)ev));
}
WV_EXPORT cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t h, cudaGraph_t *out) {
  WV_CR_CU(cuGraphChildGraphNodeGetGraph(h, (void **)out));
}
WV_EXPORT cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t h, struct cudaMemAllocNodeParams *p) {
  WV_CR_CU(cuGraphMemAllocNodeGetParams(h, (cu_alloc_params *)p));
}
WV_EXPORT cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t h, void *dptr_out) {
  WV_CR_CU(cuGraphMemFreeNodeGetParams(h, (CUdeviceptr *)dptr_out));
}

/* ---- setters: of a graph's node, and of an executable graph's copy of it ---- */
WV_EXPORT cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t h, const struct cudaKernelNodeParams *p) {
  NODE_CALL(cu_kernel_params, kernel_params(r, p, &cp), cuGraphKernelNodeSetParams_v2(h, &cp));
}
WV_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t h, const struct cudaMemcpy3DParms *p) {
  NODE_CALL(CUDA_MEMCPY3D, memcpy_params(r, p, &cp), cuGraphMemcpyNodeSetParams(h, &cp));
}
WV_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t h, void *dst, const void *src, size_t n,
                                                     int kind) {
  NODE_CALL(CUDA_MEMCPY3D, memcpy1d_params(dst, src, n, kind, &cp), cuGraphMemcpyNodeSetParams(h, &cp));
}
WV_EXPORT cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t h, const void *sym, const void *src,
                                                           size_t n, size_t off, int kind) {
  NODE_CALL(CUDA_MEMCPY3D, symbol_params(r, sym, (void *)src, n, off, kind, 1, &cp), cuGraphMemcpyNodeSetParams(h, &cp));
}
WV_EXPORT cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t h, void *dst, const void *sym, size_t n,
                                                             size_t off, int kind) {
  NODE_CALL(CUDA_MEMCPY3D, symbol_params(r, sym, dst, n, off, kind, 0, &cp), cuGraphMemcpyNodeSetParams(h, &cp));
}
WV_EXPORT cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t h, const struct cudaMemsetParams *p) {
  NODE_CALL(cu_memset_params, (p ? (cp = memset_params(p), cudaSuccess) : cudaErrorInvalidValue),
            cuGraphMemsetNodeSetParams(h, &cp));
}
WV_EXPORT cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t h, const struct cudaHostNodeParams *p) {
  WV_CR_CU(cuGraphHostNodeSetParams(h, (const cu_host_params *)p));
}
WV_EXPORT cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t h, cudaEvent_t ev) {
  WV_CR_CU(cuGraphEventRecordNodeSetEvent(h, ev));
}
WV_EXPORT cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t h, cudaEvent_t ev) {
  WV_CR_CU(cuGraphEventWaitNodeSetEvent(h, ev));
}
WV_EXPORT cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t h, struct cudaGraphNodeParams *p) {
  NODE_CALL(cu_node_params, node_params(r, p, &cp), cuGraphNodeSetParams(h, &cp));
}

WV_EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h,
                                                       const struct cudaKernelNodeParams *p) {
  NODE_CALL(cu_kernel_params, kernel_params(r, p, &cp), cuGraphExecKernelNodeSetParams_v2(hx, h, &cp));
}
WV_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h,
                                                       const struct cudaMemcpy3DParms *p) {
  NODE_CALL(CUDA_MEMCPY3D, memcpy_params(r, p, &cp), cuGraphExecMemcpyNodeSetParams(hx, h, &cp, NULL));
}
WV_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hx, cudaGraphNode_t h, void *dst,
                                                         const void *src, size_t n, int kind) {
  NODE_CALL(CUDA_MEMCPY3D, memcpy1d_params(dst, src, n, kind, &cp), cuGraphExecMemcpyNodeSetParams(hx, h, &cp, NULL));
}
WV_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hx, cudaGraphNode_t h, const void *sym,
                                                               const void *src, size_t n, size_t off, int kind) {
  NODE_CALL(CUDA_MEMCPY3D, symbol_params(r, sym, (void *)src, n, off, kind, 1, &cp),
            cuGraphExecMemcpyNodeSetParams(hx, h, &cp, NULL));
}
WV_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hx, cudaGraphNode_t h, void *dst,
                                                                 const void *sym, size_t n, size_t off, int kind) {
  NODE_CALL(CUDA_MEMCPY3D, symbol_params(r, sym, dst, n, off, kind, 0, &cp),
            cuGraphExecMemcpyNodeSetParams(hx, h, &cp, NULL));
}
WV_EXPORT cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h,
                                                       const struct cudaMemsetParams *p) {
  NODE_CALL(cu_memset_params, (p ? (cp = memset_params(p), cudaSuccess) : cudaErrorInvalidValue),
            cuGraphExecMemsetNodeSetParams(hx, h, &cp, NULL));
}
WV_EXPORT cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h,
                                                     const struct cudaHostNodeParams *p) {
  WV_CR_CU(cuGraphExecHostNodeSetParams(hx, h, (const cu_host_params *)p));
}
WV_EXPORT cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hx, cudaGraphNode_t h, cudaEvent_t ev) {
  WV_CR_CU(cuGraphExecEventRecordNodeSetEvent(hx, h, ev));
}
WV_EXPORT cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hx, cudaGraphNode_t h, cudaEvent_t ev) {
  WV_CR_CU(cuGraphExecEventWaitNodeSetEvent(hx, h, ev));
}
WV_EXPORT cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h, struct cudaGraphNodeParams *p) {
  NODE_CALL(cu_node_params, node_params(r, p, &cp), cuGraphExecNodeSetParams(hx, h, &cp));
}
