/*
 * graph_nodes.c — the kinds of graph node and their parameters: building a node's op from the
 * parameter structs the program passes (validated as node creation validates them), the
 * cudaGraphAdd*Node functions and cudaGraphAddNode (every kind through cudaGraphNodeParams, conditional
 * nodes with their body graphs), conditional handles (cudaGraphConditionalHandleCreate: the handle is
 * the device address of the condition word, which the device-side cudaGraphSetConditional stores to),
 * and the per-kind getters and setters (cudaGraph*NodeGet/SetParams, cudaGraphNodeSetParams).
 * Memcpy nodes copy linear memory; CUDA arrays are cudaErrorNotSupported (said once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/graph.h"

cudaError_t wv_cr_unsupported(cudart *r, const char *what) {
  if (wv_cr_first_time(r, what))
    fprintf(stderr, "warpvm: %s is not supported by warpvm's CUDA runtime (cudaErrorNotSupported)\n", what);
  return cudaErrorNotSupported;
}

/* ---- parameters -> ops ---- */
/* Kernel arguments in the `extra` form: CU_LAUNCH_PARAM_BUFFER_POINTER (1), buffer,
 * CU_LAUNCH_PARAM_BUFFER_SIZE (2), &size, CU_LAUNCH_PARAM_END (0). *out points into the buffer. */
static cudaError_t extra_args(const cr_func *f, void **extra, void ***out) {
  uint8_t *buf = NULL;
  size_t size = 0;
  for (size_t i = 0; extra[i]; i += 2) {
    if (extra[i] == (void *)1) buf = extra[i + 1];
    else if (extra[i] == (void *)2 && extra[i + 1]) size = *(const size_t *)extra[i + 1];
    else return cudaErrorInvalidValue;
  }
  uint32_t n = wv_kernel_param_count(f->k);
  if (!buf && n) return cudaErrorInvalidValue;
  void **args = calloc(n ? n : 1, sizeof *args);
  if (!args) return cudaErrorMemoryAllocation;
  for (uint32_t i = 0; i < n; i++) {
    wv_param_info p = wv_kernel_param(f->k, i);
    if (p.offset + p.size > size) {
      free(args);
      return cudaErrorInvalidValue;
    }
    args[i] = buf + p.offset;
  }
  *out = args;
  return cudaSuccess;
}

cudaError_t wv_cr_kernel_op(cudart *r, const struct cudaKernelNodeParams *p, cr_op *op) {
  if (!p) return cudaErrorInvalidValue;
  cr_func *f = wv_cr_func_find(r, p->func);
  if (!f) return cudaErrorInvalidDeviceFunction;
  cudaError_t e = wv_cr_launch_check(r, f, p->gridDim, p->blockDim, p->sharedMemBytes, 0);
  void **args = p->kernelParams, **tmp = NULL;
  if (!e && !args && p->extra) e = extra_args(f, p->extra, &tmp), args = tmp;
  if (!e && !args && wv_kernel_param_count(f->k)) e = cudaErrorInvalidValue;
  if (e) return e;
  cr_op b = {.kind = OP_KERNEL,
             .u.k = {.f = f, .grid = p->gridDim, .block = p->blockDim, .shared = p->sharedMemBytes, .args = args}};
  e = wv_cr_op_copy(r, op, &b, 1);
  free(tmp);
  return e;
}

static int kind_ok(int kind) { return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault; }

cudaError_t wv_cr_memcpy_op(cudart *r, const struct cudaMemcpy3DParms *p, cr_op *op) {
  if (!p) return cudaErrorInvalidValue;
  if (p->srcArray || p->dstArray) return wv_cr_unsupported(r, "a memcpy node with a CUDA array");
  if (!kind_ok(p->kind)) return cudaErrorInvalidMemcpyDirection;
  if (!p->srcPtr.ptr || !p->dstPtr.ptr) return cudaErrorInvalidValue;
  *op = (cr_op){.kind = OP_MEMCPY3D, .u.cp3 = *p};
  return cudaSuccess;
}

cudaError_t wv_cr_memcpy1d_op(cudart *r, void *dst, const void *src, size_t n, int kind, cr_op *op) {
  (void)r;
  if (!kind_ok(kind)) return cudaErrorInvalidMemcpyDirection;
  if (n && (!dst || !src)) return cudaErrorInvalidValue;
  *op = (cr_op){.kind = OP_MEMCPY, .u.cp = {dst, src, n, kind}};
  return cudaSuccess;
}

cudaError_t wv_cr_symbol_op(cudart *r, const void *sym, void *host, size_t n, size_t off, int kind, int to_sym,
                            cr_op *op) {
  void *dev;
  cudaError_t e = wv_cr_symbol_addr(r, sym, off, n, &dev, NULL);
  if (e) return e;
  if (to_sym ? kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault
             : kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  return to_sym ? wv_cr_memcpy1d_op(r, dev, host, n, kind, op) : wv_cr_memcpy1d_op(r, host, dev, n, kind, op);
}

cudaError_t wv_cr_memset_op(cudart *r, const struct cudaMemsetParams *p, cr_op *op) {
  (void)r;
  if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4))
    return cudaErrorInvalidValue;
  if (p->height > 1 && (p->width > SIZE_MAX / p->elementSize || p->pitch < p->width * p->elementSize))
    return cudaErrorInvalidValue;
  *op = (cr_op){.kind = OP_MEMSET, .u.set = {p->dst, p->pitch, p->value, p->elementSize, p->width, p->height}};
  return cudaSuccess;
}

cudaError_t wv_cr_host_op(cudart *r, const struct cudaHostNodeParams *p, cr_op *op) {
  (void)r;
  if (!p || !p->fn) return cudaErrorInvalidValue;
  *op = (cr_op){.kind = OP_HOST, .u.host = {p->fn, p->userData}};
  return cudaSuccess;
}

cudaError_t wv_cr_event_op(cudart *r, cudaEvent_t ev, cr_op_kind kind, cr_op *op) {
  cr_event *e;
  cudaError_t err = wv_cr_event_get(r, ev, kind == OP_EVENT_RECORD ? "an event record node" : "an event wait node", &e);
  if (err) return err;
  *op = (cr_op){.kind = kind, .u.ev = {ev}};
  return cudaSuccess;
}

cudaError_t wv_cr_params_op(cudart *r, const struct cudaGraphNodeParams *p, cr_op *op, const char *api) {
  if (!p) return cudaErrorInvalidValue;
  switch (p->type) {
  case cudaGraphNodeTypeKernel: return wv_cr_kernel_op(r, &p->u.kernel, op);
  case cudaGraphNodeTypeMemcpy: return wv_cr_memcpy_op(r, &p->u.memcpy.copyParams, op);
  case cudaGraphNodeTypeMemset: return wv_cr_memset_op(r, &p->u.memset, op);
  case cudaGraphNodeTypeHost: return wv_cr_host_op(r, &p->u.host, op);
  case cudaGraphNodeTypeEventRecord: return wv_cr_event_op(r, p->u.eventRecord.event, OP_EVENT_RECORD, op);
  case cudaGraphNodeTypeWaitEvent: return wv_cr_event_op(r, p->u.eventWait.event, OP_EVENT_WAIT, op);
  default: {
    char what[96];
    snprintf(what, sizeof what, "%s of a node of type %d", api, p->type);
    return wv_cr_unsupported(r, what);
  }
  }
}

/* ---- adding nodes ---- */
typedef struct adding {
  cudart *r;
  cr_graph *g;
  cr_node **deps;
  size_t n;
} adding;

/* The graph and dependencies of a node being added: nodes of g, none twice. */
static cudaError_t add_begin(adding *a, const char *api, cudaGraphNode_t *out, cudaGraph_t hg,
                             const cudaGraphNode_t *deps, size_t n) {
  *a = (adding){.r = wv_cr(), .n = n};
  cudaError_t e = wv_cr_graph_get(a->r, hg, api, &a->g);
  if (e) return e;
  if (!out || (n && !deps) || n > UINT32_MAX) return cudaErrorInvalidValue;
  if (n && !(a->deps = malloc(n * sizeof *a->deps))) return cudaErrorMemoryAllocation;
  for (size_t i = 0; i < n; i++) {
    if ((e = wv_cr_node_get(a->r, deps[i], api, &a->deps[i]))) return e;
    if (a->deps[i]->g != a->g) return cudaErrorInvalidValue;
    for (size_t j = 0; j < i; j++)
      if (a->deps[j] == a->deps[i]) return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

/* Add the node (taking op over), or give up with e (freeing op if it was built). */
static cudaError_t add_end(adding *a, cudaError_t e, cr_op *op, const cudaGraphEdgeData *ed, cudaGraphNode_t *out,
                           cr_node **nd) {
  cr_node *made = NULL;
  if (!e) e = wv_cr_node_add(a->r, a->g, op, a->deps, ed, (uint32_t)a->n, &made);
  if (!e) *out = made->self;
  if (nd) *nd = made;
  free(a->deps);
  return wv_cr_ret(e);
}

#define ADD(api, build)                                       \
  adding a;                                                   \
  cr_op op;                                                   \
  cudaError_t e = add_begin(&a, api, out, hg, deps, n);        \
  if (!e) e = (build);                                        \
  return add_end(&a, e, &op, NULL, out, NULL)

WV_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                             size_t n, const struct cudaKernelNodeParams *p) {
  ADD("cudaGraphAddKernelNode", wv_cr_kernel_op(a.r, p, &op));
}
WV_EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                             size_t n, const struct cudaMemcpy3DParms *p) {
  ADD("cudaGraphAddMemcpyNode", wv_cr_memcpy_op(a.r, p, &op));
}
WV_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                               size_t n, void *dst, const void *src, size_t count, int kind) {
  ADD("cudaGraphAddMemcpyNode1D", wv_cr_memcpy1d_op(a.r, dst, src, count, kind, &op));
}
WV_EXPORT cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                                     size_t n, const void *sym, const void *src, size_t count,
                                                     size_t off, int kind) {
  ADD("cudaGraphAddMemcpyNodeToSymbol", wv_cr_symbol_op(a.r, sym, (void *)src, count, off, kind, 1, &op));
}
WV_EXPORT cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *out, cudaGraph_t hg,
                                                       const cudaGraphNode_t *deps, size_t n, void *dst,
                                                       const void *sym, size_t count, size_t off, int kind) {
  ADD("cudaGraphAddMemcpyNodeFromSymbol", wv_cr_symbol_op(a.r, sym, dst, count, off, kind, 0, &op));
}
WV_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                             size_t n, const struct cudaMemsetParams *p) {
  ADD("cudaGraphAddMemsetNode", wv_cr_memset_op(a.r, p, &op));
}
WV_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                           size_t n, const struct cudaHostNodeParams *p) {
  ADD("cudaGraphAddHostNode", wv_cr_host_op(a.r, p, &op));
}
WV_EXPORT cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                                  size_t n, cudaEvent_t ev) {
  ADD("cudaGraphAddEventRecordNode", wv_cr_event_op(a.r, ev, OP_EVENT_RECORD, &op));
}
WV_EXPORT cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                                size_t n, cudaEvent_t ev) {
  ADD("cudaGraphAddEventWaitNode", wv_cr_event_op(a.r, ev, OP_EVENT_WAIT, &op));
}
WV_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                            size_t n) {
  ADD("cudaGraphAddEmptyNode", (op = (cr_op){.kind = OP_EMPTY}, cudaSuccess));
}

/* A child graph: a copy of the graph, or (ownership Move) the graph itself, which the node then owns. */
static cudaError_t child_op(cudart *r, cudaGraph_t hc, int move, cr_op *op) {
  cr_graph *c;
  cudaError_t e = wv_cr_graph_get(r, hc, "a child graph node", &c);
  if (e) return e;
  if (c->origin || c->parent || (!move && wv_cr_graph_restricted(c))) return cudaErrorInvalidValue;
  if (move) {
    *op = (cr_op){.kind = OP_GRAPH, .u.child = {c}};
    return cudaSuccess;
  }
  cr_op src = {.kind = OP_GRAPH, .u.child = {c}};
  return wv_cr_op_copy(r, op, &src, 1);
}

WV_EXPORT cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                                 size_t n, cudaGraph_t child) {
  ADD("cudaGraphAddChildGraphNode", child_op(a.r, child, 0, &op));
}

static cudaError_t alloc_op(cudart *r, struct cudaMemAllocNodeParams *p, cr_op *op) {
  if (!p || !p->bytesize || p->poolProps.allocType != cudaMemAllocationTypePinned ||
      p->poolProps.location.type != cudaMemLocationTypeDevice)
    return cudaErrorInvalidValue;
  if (p->poolProps.location.id != 0) return cudaErrorInvalidDevice;
  for (size_t i = 0; i < p->accessDescCount; i++)
    if (!p->accessDescs || p->accessDescs[i].location.type != cudaMemLocationTypeDevice ||
        p->accessDescs[i].location.id != 0)
      return cudaErrorInvalidDevice;
  cr_galloc *ga = wv_cr_galloc_new(r, p->bytesize);
  if (!ga) return cudaErrorMemoryAllocation;
  ga->refs = 1; /* the op's */
  *op = (cr_op){.kind = OP_MEM_ALLOC, .u.alloc = {ga}};
  p->dptr = ga->dptr;
  return cudaSuccess;
}

static cudaError_t free_op(cudart *r, void *dptr, cr_op *op) {
  if (!wv_cr_galloc_find(r, dptr)) return cudaErrorInvalidValue; /* not memory a graph allocates */
  *op = (cr_op){.kind = OP_MEM_FREE, .u.free = {dptr}};
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                               size_t n, struct cudaMemAllocNodeParams *p) {
  ADD("cudaGraphAddMemAllocNode", alloc_op(a.r, p, &op));
}
WV_EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                                              size_t n, void *dptr) {
  ADD("cudaGraphAddMemFreeNode", free_op(a.r, dptr, &op));
}

/* ---- conditional nodes ---- */
/* A handle created on g or a graph containing it. */
static cr_cond *cond_find(cr_graph *g, cudaGraphConditionalHandle h) {
  for (; g; g = g->parent ? g->parent->g : NULL)
    for (uint32_t i = 0; i < g->nconds; i++)
      if (g->conds[i]->cell == h) return g->conds[i];
  return NULL;
}

WV_EXPORT cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *out, cudaGraph_t hg,
                                                       unsigned int dflt, unsigned int flags) {
  cudart *r = wv_cr();
  cr_graph *g;
  cudaError_t e = wv_cr_graph_get(r, hg, "cudaGraphConditionalHandleCreate", &g);
  if (e || !out || (flags & ~(unsigned)cudaGraphCondAssignDefault)) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  cr_cond *c = calloc(1, sizeof *c);
  uint32_t cap = g->capconds;
  if (!c || wv_malloc(r->vm, 4, &c->cell) != WV_OK) {
    free(c);
    return wv_cr_ret(cudaErrorMemoryAllocation);
  }
  if (g->nconds == cap) {
    cr_cond **n = realloc(g->conds, (cap ? 2 * cap : 4) * sizeof *n);
    if (!n) {
      wv_free(r->vm, c->cell);
      free(c);
      return wv_cr_ret(cudaErrorMemoryAllocation);
    }
    g->conds = n, g->capconds = cap ? 2 * cap : 4;
  }
  wv_memcpy_htod(r->vm, c->cell, &dflt, 4); /* also the value before any run */
  c->dflt = dflt, c->flags = flags, c->refs = 1;
  g->conds[g->nconds++] = c;
  *out = c->cell;
  return wv_cr_ret(cudaSuccess);
}

static cudaError_t cond_op(cudart *r, cr_graph *g, const struct cudaConditionalNodeParams *p, cr_op *op) {
  cr_cond *c = cond_find(g, p->handle);
  if (!c) return cudaErrorInvalidValue;
  unsigned n = p->size;
  if (p->type == cudaGraphCondTypeIf ? n < 1 || n > 2
      : p->type == cudaGraphCondTypeWhile ? n != 1
      : p->type == cudaGraphCondTypeSwitch ? n < 1 || n > 1u << 20 : 1)
    return cudaErrorInvalidValue;
  cr_graph **body = calloc(n, sizeof *body);
  cudaGraph_t *hbody = calloc(n, sizeof *hbody);
  *op = (cr_op){.kind = OP_COND, .u.cond = {c, p->type, 0, body, hbody}};
  c->refs++;
  for (unsigned i = 0; body && hbody && i < n; i++, op->u.cond.size++)
    if ((body[i] = wv_cr_graph_new(r, 1))) hbody[i] = body[i]->self;
    else break;
  if (op->u.cond.size == n) return cudaSuccess;
  wv_cr_op_free(r, op);
  return cudaErrorMemoryAllocation;
}

/* cudaGraphAddNode: every kind; the output fields (an allocation's address, the conditional bodies)
 * are written back into *p. */
static cudaError_t add_node(cudaGraphNode_t *out, cudaGraph_t hg, const cudaGraphNode_t *deps,
                            const cudaGraphEdgeData *ed, size_t n, struct cudaGraphNodeParams *p) {
  adding a;
  cr_op op;
  cr_node *nd = NULL;
  cudaError_t e = add_begin(&a, "cudaGraphAddNode", out, hg, deps, n);
  if (!e && !p) e = cudaErrorInvalidValue;
  if (!e) switch (p->type) {
    case cudaGraphNodeTypeEmpty: op = (cr_op){.kind = OP_EMPTY}; break;
    case cudaGraphNodeTypeGraph: e = child_op(a.r, p->u.graph.graph, p->u.graph.ownership == 1, &op); break;
    case cudaGraphNodeTypeMemAlloc: e = alloc_op(a.r, &p->u.alloc, &op); break;
    case cudaGraphNodeTypeMemFree: e = free_op(a.r, p->u.free.dptr, &op); break;
    case cudaGraphNodeTypeConditional: e = cond_op(a.r, a.g, &p->u.conditional, &op); break;
    default: e = wv_cr_params_op(a.r, p, &op, "cudaGraphAddNode"); break;
    }
  cudaError_t e2 = add_end(&a, e, &op, ed, out, &nd);
  if (!e2 && nd->op.kind == OP_COND) p->u.conditional.phGraph_out = nd->op.u.cond.hbody;
  return e2;
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

/* ---- getters and setters ---- */
/* The node behind h, if it is of the given cudaGraphNodeType (and the caller's pointer `ok`). */
static cudaError_t node_of(cudart *r, cudaGraphNode_t h, int type, const char *api, int ok, cr_node **nd) {
  cudaError_t e = wv_cr_node_get(r, h, api, nd);
  if (!e && (!ok || wv_cr_node_type((*nd)->op.kind) != type)) e = cudaErrorInvalidValue;
  return e;
}

/* Replace the node's op with one built from parameters (or give up with e). */
static cudaError_t set_op(cudart *r, cr_node *nd, cudaError_t e, cr_op *op) {
  return wv_cr_ret(e ? e : wv_cr_node_set_op(r, nd, op));
}

#define SETTER(type, api, build)                              \
  cudart *r = wv_cr();                                        \
  cr_node *nd;                                                \
  cr_op op;                                                   \
  cudaError_t e = node_of(r, h, type, api, 1, &nd);           \
  if (!e) e = (build);                                        \
  return set_op(r, nd, e, &op)

WV_EXPORT cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t h, struct cudaKernelNodeParams *p) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = node_of(r, h, cudaGraphNodeTypeKernel, "cudaGraphKernelNodeGetParams", p != NULL, &nd);
  if (e) return wv_cr_ret(e);
  const cr_op *op = &nd->op;
  *p = (struct cudaKernelNodeParams){(void *)op->u.k.f->host_fn, op->u.k.grid, op->u.k.block, op->u.k.shared,
                                     op->u.k.args, NULL};
  return wv_cr_ret(cudaSuccess);
}
WV_EXPORT cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t h, const struct cudaKernelNodeParams *p) {
  SETTER(cudaGraphNodeTypeKernel, "cudaGraphKernelNodeSetParams", wv_cr_kernel_op(r, p, &op));
}

/* A memcpy node's parameters as 3D ones (a 1D copy is one row of one slice). */
static struct cudaMemcpy3DParms copy_params(const cr_op *op) {
  if (op->kind == OP_MEMCPY3D) return op->u.cp3;
  size_t n = op->u.cp.n;
  return (struct cudaMemcpy3DParms){.srcPtr = {(void *)op->u.cp.src, n, n, 1}, .dstPtr = {op->u.cp.dst, n, n, 1},
                                    .extent = {n, 1, 1}, .kind = op->u.cp.kind};
}

WV_EXPORT cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t h, struct cudaMemcpy3DParms *p) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = node_of(r, h, cudaGraphNodeTypeMemcpy, "cudaGraphMemcpyNodeGetParams", p != NULL, &nd);
  if (!e) *p = copy_params(&nd->op);
  return wv_cr_ret(e);
}
WV_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t h, const struct cudaMemcpy3DParms *p) {
  SETTER(cudaGraphNodeTypeMemcpy, "cudaGraphMemcpyNodeSetParams", wv_cr_memcpy_op(r, p, &op));
}
WV_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t h, void *dst, const void *src, size_t n,
                                                     int kind) {
  SETTER(cudaGraphNodeTypeMemcpy, "cudaGraphMemcpyNodeSetParams1D", wv_cr_memcpy1d_op(r, dst, src, n, kind, &op));
}
WV_EXPORT cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t h, const void *sym, const void *src,
                                                           size_t n, size_t off, int kind) {
  SETTER(cudaGraphNodeTypeMemcpy, "cudaGraphMemcpyNodeSetParamsToSymbol",
         wv_cr_symbol_op(r, sym, (void *)src, n, off, kind, 1, &op));
}
WV_EXPORT cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t h, void *dst, const void *sym, size_t n,
                                                             size_t off, int kind) {
  SETTER(cudaGraphNodeTypeMemcpy, "cudaGraphMemcpyNodeSetParamsFromSymbol",
         wv_cr_symbol_op(r, sym, dst, n, off, kind, 0, &op));
}

WV_EXPORT cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t h, struct cudaMemsetParams *p) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = node_of(r, h, cudaGraphNodeTypeMemset, "cudaGraphMemsetNodeGetParams", p != NULL, &nd);
  if (e) return wv_cr_ret(e);
  const cr_op *op = &nd->op;
  *p = (struct cudaMemsetParams){op->u.set.dst, op->u.set.pitch, op->u.set.value, op->u.set.esize, op->u.set.width,
                                 op->u.set.height};
  return wv_cr_ret(cudaSuccess);
}
WV_EXPORT cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t h, const struct cudaMemsetParams *p) {
  SETTER(cudaGraphNodeTypeMemset, "cudaGraphMemsetNodeSetParams", wv_cr_memset_op(r, p, &op));
}

WV_EXPORT cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t h, struct cudaHostNodeParams *p) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = node_of(r, h, cudaGraphNodeTypeHost, "cudaGraphHostNodeGetParams", p != NULL, &nd);
  if (!e) *p = (struct cudaHostNodeParams){nd->op.u.host.fn, nd->op.u.host.user};
  return wv_cr_ret(e);
}
WV_EXPORT cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t h, const struct cudaHostNodeParams *p) {
  SETTER(cudaGraphNodeTypeHost, "cudaGraphHostNodeSetParams", wv_cr_host_op(r, p, &op));
}

static cudaError_t event_get_of(cudaGraphNode_t h, cudaEvent_t *ev, int type, const char *api) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = node_of(r, h, type, api, ev != NULL, &nd);
  if (!e) *ev = nd->op.u.ev.ev;
  return wv_cr_ret(e);
}
WV_EXPORT cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t h, cudaEvent_t *ev) {
  return event_get_of(h, ev, cudaGraphNodeTypeEventRecord, "cudaGraphEventRecordNodeGetEvent");
}
WV_EXPORT cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t h, cudaEvent_t *ev) {
  return event_get_of(h, ev, cudaGraphNodeTypeWaitEvent, "cudaGraphEventWaitNodeGetEvent");
}
WV_EXPORT cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t h, cudaEvent_t ev) {
  SETTER(cudaGraphNodeTypeEventRecord, "cudaGraphEventRecordNodeSetEvent", wv_cr_event_op(r, ev, OP_EVENT_RECORD, &op));
}
WV_EXPORT cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t h, cudaEvent_t ev) {
  SETTER(cudaGraphNodeTypeWaitEvent, "cudaGraphEventWaitNodeSetEvent", wv_cr_event_op(r, ev, OP_EVENT_WAIT, &op));
}

WV_EXPORT cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t h, cudaGraph_t *out) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = node_of(r, h, cudaGraphNodeTypeGraph, "cudaGraphChildGraphNodeGetGraph", out != NULL, &nd);
  if (!e) *out = nd->op.u.child.g->self;
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t h, struct cudaMemAllocNodeParams *p) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = node_of(r, h, cudaGraphNodeTypeMemAlloc, "cudaGraphMemAllocNodeGetParams", p != NULL, &nd);
  if (e) return wv_cr_ret(e);
  memset(p, 0, sizeof *p);
  p->poolProps.allocType = cudaMemAllocationTypePinned;
  p->poolProps.location = (struct cudaMemLocation){cudaMemLocationTypeDevice, 0};
  p->bytesize = nd->op.u.alloc.a->size;
  p->dptr = nd->op.u.alloc.a->dptr;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t h, void *dptr_out) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = node_of(r, h, cudaGraphNodeTypeMemFree, "cudaGraphMemFreeNodeGetParams", dptr_out != NULL, &nd);
  if (!e) memcpy(dptr_out, &nd->op.u.free.dptr, sizeof(void *));
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t h, struct cudaGraphNodeParams *p) {
  cudart *r = wv_cr();
  cr_node *nd;
  cr_op op;
  cudaError_t e = wv_cr_node_get(r, h, "cudaGraphNodeSetParams", &nd);
  if (!e && (!p || p->type != wv_cr_node_type(nd->op.kind))) e = cudaErrorInvalidValue;
  if (!e) e = wv_cr_params_op(r, p, &op, "cudaGraphNodeSetParams");
  return set_op(r, nd, e, &op);
}
