/*
 * graph.c — CUDA graphs and stream capture in the runtime: the driver's (cudadrv/graph*.c, capture.c: the one
 * engine of the process), whose entry points these call with the same handles (a cudaGraph_t is a CUgraph, a
 * cudaGraphNode_t a CUgraphNode, a cudaGraphExec_t a CUgraphExec) and layouts where the two APIs share them
 * (edge data, instantiate parameters, update results), the errors coming back as they are: graphs, edges and
 * queries, instantiation, launch and update, node enabling, graph memory, capture. Node kinds whose parameters differ
 * between the APIs (kernels, copies, sets) are graph_nodes.c's.
 */
#include "cudart/cudart.h"

#define NODES(p) ((void *const *)(p))
#define EDGES(p) ((const cu_edge *)(p))

/* ---- graphs and edges ---- */
WV_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *out, unsigned int flags) { WV_CR_CU(cuGraphCreate((void **)out, flags)); }
WV_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t h) { WV_CR_CU(cuGraphDestroy(h)); }
WV_EXPORT cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t h) { WV_CR_CU(cuGraphClone((void **)out, h)); }
WV_EXPORT cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *out, cudaGraphNode_t orig, cudaGraph_t clone) {
  WV_CR_CU(cuGraphNodeFindInClone((void **)out, orig, clone));
}
WV_EXPORT cudaError_t cudaGraphDestroyNode(cudaGraphNode_t h) { WV_CR_CU(cuGraphDestroyNode(h)); }

WV_EXPORT cudaError_t cudaGraphAddDependencies_v2(cudaGraph_t g, const cudaGraphNode_t *from,
                                                  const cudaGraphNode_t *to, const cudaGraphEdgeData *ed, size_t n) {
  WV_CR_CU(cuGraphAddDependencies_v2(g, NODES(from), NODES(to), EDGES(ed), n));
}
WV_EXPORT cudaError_t cudaGraphRemoveDependencies_v2(cudaGraph_t g, const cudaGraphNode_t *from,
                                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *ed,
                                                     size_t n) {
  WV_CR_CU(cuGraphRemoveDependencies_v2(g, NODES(from), NODES(to), EDGES(ed), n));
}
WV_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  WV_CR_CU(cuGraphGetNodes(g, (void **)nodes, n));
}
WV_EXPORT cudaError_t cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  WV_CR_CU(cuGraphGetRootNodes(g, (void **)nodes, n));
}
WV_EXPORT cudaError_t cudaGraphGetEdges_v2(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                           cudaGraphEdgeData *ed, size_t *n) {
  WV_CR_CU(cuGraphGetEdges_v2(g, (void **)from, (void **)to, (cu_edge *)ed, n));
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependencies_v2(cudaGraphNode_t h, cudaGraphNode_t *deps, cudaGraphEdgeData *ed,
                                                      size_t *n) {
  WV_CR_CU(cuGraphNodeGetDependencies_v2(h, (void **)deps, (cu_edge *)ed, n));
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependentNodes_v2(cudaGraphNode_t h, cudaGraphNode_t *out, cudaGraphEdgeData *ed,
                                                        size_t *n) {
  WV_CR_CU(cuGraphNodeGetDependentNodes_v2(h, (void **)out, (cu_edge *)ed, n));
}
#if WV_CUDART_MAJOR >= 13
WV_EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                               const cudaGraphEdgeData *ed, size_t n) {
  return cudaGraphAddDependencies_v2(g, from, to, ed, n);
}
WV_EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                                  const cudaGraphNode_t *to, const cudaGraphEdgeData *ed, size_t n) {
  return cudaGraphRemoveDependencies_v2(g, from, to, ed, n);
}
WV_EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                        cudaGraphEdgeData *ed, size_t *n) {
  return cudaGraphGetEdges_v2(g, from, to, ed, n);
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t h, cudaGraphNode_t *deps, cudaGraphEdgeData *ed,
                                                   size_t *n) {
  return cudaGraphNodeGetDependencies_v2(h, deps, ed, n);
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t h, cudaGraphNode_t *out, cudaGraphEdgeData *ed,
                                                     size_t *n) {
  return cudaGraphNodeGetDependentNodes_v2(h, out, ed, n);
}
#else
WV_EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                               size_t n) {
  return cudaGraphAddDependencies_v2(g, from, to, NULL, n);
}
WV_EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                                  const cudaGraphNode_t *to, size_t n) {
  return cudaGraphRemoveDependencies_v2(g, from, to, NULL, n);
}
WV_EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to, size_t *n) {
  return cudaGraphGetEdges_v2(g, from, to, NULL, n);
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t h, cudaGraphNode_t *deps, size_t *n) {
  return cudaGraphNodeGetDependencies_v2(h, deps, NULL, n);
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t h, cudaGraphNode_t *out, size_t *n) {
  return cudaGraphNodeGetDependentNodes_v2(h, out, NULL, n);
}
#endif

WV_EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t h, enum cudaGraphNodeType *type) {
  WV_CR_CU(cuGraphNodeGetType(h, (int *)type));
}
WV_EXPORT cudaError_t cudaGraphDebugDotPrint(cudaGraph_t h, const char *path, unsigned int flags) {
  WV_CR_CU(cuGraphDebugDotPrint(h, path, flags));
}

/* ---- executable graphs ---- */
WV_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags) {
  WV_CR_CU(cuGraphInstantiateWithFlags((void **)out, g, flags));
}
WV_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags) {
  return cudaGraphInstantiateWithFlags(out, g, flags);
}
WV_EXPORT cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *out, cudaGraph_t g,
                                                     cudaGraphInstantiateParams *p) {
  WV_CR_CU(cuGraphInstantiateWithParams((void **)out, g, (cu_inst_params *)p));
}
WV_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t h) { WV_CR_CU(cuGraphExecDestroy(h)); }
WV_EXPORT cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t h, unsigned long long *flags) {
  WV_CR_CU(cuGraphExecGetFlags(h, flags));
}
WV_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t h, cudaStream_t s) { WV_CR_CU(cuGraphUpload(h, s)); }
WV_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t h, cudaStream_t s) {
  cudart *r = wv_cr();
  cudaError_t e = wv_cr_device_check(r);
  return wv_cr_ret(e ? e : wv_cr_from_cu(cuGraphLaunch(h, s)));
}
WV_EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hx, cudaGraph_t hg, cudaGraphExecUpdateResultInfo *info) {
  WV_CR_CU(cuGraphExecUpdate_v2(hx, hg, (cu_update_info *)info));
}
WV_EXPORT cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h, cudaGraph_t c) {
  WV_CR_CU(cuGraphExecChildGraphNodeSetParams(hx, h, c));
}
WV_EXPORT cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hx, cudaGraphNode_t h, unsigned int on) {
  WV_CR_CU(cuGraphNodeSetEnabled(hx, h, on));
}
WV_EXPORT cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hx, cudaGraphNode_t h, unsigned int *on) {
  WV_CR_CU(cuGraphNodeGetEnabled(hx, h, on));
}

/* ---- graph memory ---- */
WV_EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int dev, int attr, void *value) {
  WV_CR_CU(cuDeviceGetGraphMemAttribute(dev, attr, value));
}
WV_EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int dev, int attr, void *value) {
  WV_CR_CU(cuDeviceSetGraphMemAttribute(dev, attr, value));
}
WV_EXPORT cudaError_t cudaDeviceGraphMemTrim(int dev) { WV_CR_CU(cuDeviceGraphMemTrim(dev)); }

/* ---- stream capture ---- */
WV_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t h, int mode) { WV_CR_CU(cuStreamBeginCapture_v2(h, mode)); }
WV_EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t h, cudaGraph_t g, const cudaGraphNode_t *deps,
                                                    const cudaGraphEdgeData *ed, size_t n, int mode) {
  WV_CR_CU(cuStreamBeginCaptureToGraph(h, g, NODES(deps), EDGES(ed), n, mode));
}
WV_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t h, cudaGraph_t *out) {
  WV_CR_CU(cuStreamEndCapture(h, (void **)out));
}
WV_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t s, int *status) { WV_CR_CU(cuStreamIsCapturing(s, status)); }
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo_v3(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                                  const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                                                  size_t *n) {
  WV_CR_CU(cuStreamGetCaptureInfo_v3(s, status, id, (void **)g, (void *const **)deps, (const cu_edge **)edges, n));
}
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                                  const cudaGraphNode_t **deps, size_t *n) {
  return cudaStreamGetCaptureInfo_v3(s, status, id, g, deps, NULL, n);
}
#if WV_CUDART_MAJOR >= 13
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                               const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                                               size_t *n) {
  return cudaStreamGetCaptureInfo_v3(s, status, id, g, deps, edges, n);
}
#else
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, int *status, unsigned long long *id) {
  return cudaStreamGetCaptureInfo_v3(s, status, id, NULL, NULL, NULL, NULL);
}
#endif

WV_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies_v2(cudaStream_t s, cudaGraphNode_t *deps,
                                                             const cudaGraphEdgeData *ed, size_t n, unsigned flags) {
  WV_CR_CU(cuStreamUpdateCaptureDependencies_v2(s, NODES(deps), EDGES(ed), n, flags));
}
#if WV_CUDART_MAJOR >= 13
WV_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                          const cudaGraphEdgeData *ed, size_t n, unsigned flags) {
  return cudaStreamUpdateCaptureDependencies_v2(s, deps, ed, n, flags);
}
#else
WV_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps, size_t n,
                                                          unsigned flags) {
  return cudaStreamUpdateCaptureDependencies_v2(s, deps, NULL, n, flags);
}
#endif
