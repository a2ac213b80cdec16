/*
 * graph_exec.c — executable graphs: cudaGraphInstantiate (a private deep copy of the graph, checked
 * for cycles), cudaGraphLaunch (the nodes run one at a time in a topological order, so every
 * dependency is honoured; launched into a capturing stream, the graph becomes a child graph node),
 * conditional nodes (IF/WHILE/SWITCH: the condition word is read when the node runs, a handle made
 * with cudaGraphCondAssignDefault is reset at the start of every run of its graph), graph memory
 * (an alloc node makes its fixed address a live allocation, a free node ends it; relaunching while one
 * is live fails unless instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaGraphExecUpdate
 * (same topology, nodes paired in creation order), cudaGraphExec*SetParams and cudaGraphNodeSetEnabled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/graph.h"

static cudaError_t exec_get(cudart *r, cudaGraphExec_t h, const char *api, cr_exec **out) {
  if ((*out = wv_cr_handle_obj(r, WV_H_EXEC, h))) return cudaSuccess;
  return wv_cr_bad_handle(r, api, WV_H_EXEC, h, cudaErrorInvalidValue);
}

/* ---- running ---- */
static cudaError_t alloc_begin(cudart *r, cr_galloc *a) {
  if (a->live) return cudaErrorInvalidValue; /* still allocated by an earlier launch */
  if (wv_cr_alloc_add(r, (uintptr_t)a->dptr, a->size, cudaMemoryTypeDevice, 0)) return cudaErrorMemoryAllocation;
  wv_cr_alloc_find(r, a->dptr)->galloc = a;
  a->live = 1;
  return cudaSuccess;
}

static cudaError_t alloc_end(cudart *r, void *dptr) {
  cr_alloc *a = wv_cr_alloc_find(r, dptr);
  if (!a || a->base != (uintptr_t)dptr || !a->galloc) return cudaErrorInvalidValue; /* not live */
  wv_cr_alloc_free(r, a);
  return cudaSuccess;
}

static unsigned cond_value(cudart *r, const cr_cond *c) {
  unsigned v = 0;
  wv_memcpy_dtoh(r->vm, &v, c->cell, 4);
  return v;
}

static cudaError_t run_cond(cudart *r, const cr_op *op) {
  unsigned v = cond_value(r, op->u.cond.c), n = op->u.cond.size;
  cr_graph **body = op->u.cond.body;
  switch (op->u.cond.type) {
  case cudaGraphCondTypeIf: return v ? wv_cr_graph_run(r, body[0]) : n == 2 ? wv_cr_graph_run(r, body[1]) : cudaSuccess;
  case cudaGraphCondTypeSwitch: return v < n ? wv_cr_graph_run(r, body[v]) : cudaSuccess;
  default: break;
  }
  if (v && !wv_cr_graph_has_kind(body[0], OP_KERNEL)) { /* nothing in the body can ever change the condition */
    if (wv_cr_first_time(r, "while-forever"))
      fprintf(stderr, "warpvm: a WHILE conditional node whose condition is set and whose body launches no kernel "
                      "would never finish: the graph launch fails (cudaErrorLaunchTimeout)\n");
    return cudaErrorLaunchTimeout;
  }
  for (cudaError_t e; v; v = cond_value(r, op->u.cond.c))
    if ((e = wv_cr_graph_run(r, body[0]))) return e;
  return cudaSuccess;
}

cudaError_t wv_cr_graph_run(cudart *r, cr_graph *g) {
  for (uint32_t i = 0; i < g->nconds; i++) {
    const cr_cond *c = g->conds[i];
    if (c->flags & cudaGraphCondAssignDefault) wv_memcpy_htod(r->vm, c->cell, &c->dflt, 4);
  }
  cr_node **order = wv_cr_graph_order(g);
  if (!order) return cudaErrorInvalidValue;
  for (uint32_t i = 0; i < g->n; i++) {
    const cr_op *op = &order[i]->op;
    cudaError_t e;
    if (order[i]->disabled) continue;
    switch (op->kind) {
    case OP_GRAPH: e = wv_cr_graph_run(r, op->u.child.g); break;
    case OP_COND: e = run_cond(r, op); break;
    case OP_MEM_ALLOC: e = alloc_begin(r, op->u.alloc.a); break;
    case OP_MEM_FREE: e = alloc_end(r, op->u.free.dptr); break;
    case OP_EMPTY: e = cudaSuccess; break;
    default: e = wv_cr_run_op(r, op); break;
    }
    if (e) return e;
  }
  return cudaSuccess;
}

/* The graph's allocations still live from an earlier launch: freed (free = 1) or counted. */
static int live_allocs(cudart *r, const cr_graph *g, int free) {
  int n = 0;
  for (uint32_t i = 0; i < g->n; i++) {
    const cr_op *op = &g->nodes[i]->op;
    if (op->kind == OP_MEM_ALLOC && op->u.alloc.a->live) n += free ? !alloc_end(r, op->u.alloc.a->dptr) : 1;
    if (op->kind == OP_GRAPH) n += live_allocs(r, op->u.child.g, free);
  }
  return n;
}

/* ---- instantiate ---- */
static int acyclic(cr_graph *g) {
  if (!wv_cr_graph_order(g)) return 0;
  for (uint32_t i = 0; i < g->n; i++) {
    const cr_op *op = &g->nodes[i]->op;
    if (op->kind == OP_GRAPH && !acyclic(op->u.child.g)) return 0;
    for (unsigned b = 0; op->kind == OP_COND && b < op->u.cond.size; b++)
      if (!acyclic(op->u.cond.body[b])) return 0;
  }
  return 1;
}

#define KNOWN_FLAGS                                                                                   \
  (cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUpload |                       \
   cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagUseNodePriority)

static cudaError_t instantiate(cudaGraphExec_t *out, cudaGraph_t h, unsigned long long flags, int *result) {
  cudart *r = wv_cr();
  cr_graph *g;
  *result = cudaGraphInstantiateError;
  cudaError_t e = wv_cr_graph_get(r, h, "cudaGraphInstantiate", &g);
  if (e || !out || (flags & ~(unsigned long long)KNOWN_FLAGS)) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  if (flags & cudaGraphInstantiateFlagDeviceLaunch)
    return wv_cr_ret(wv_cr_unsupported(r, "cudaGraphInstantiateFlagDeviceLaunch (graphs launched from the device)"));
  if (g->nexecs && wv_cr_graph_restricted(g)) return wv_cr_ret(cudaErrorInvalidValue); /* one at a time */
  cr_exec *x = calloc(1, sizeof *x);
  void *xh = x ? wv_cr_handle_new(r, WV_H_EXEC, x) : NULL;
  if (!xh || !(x->g = wv_cr_graph_clone(r, g, 0))) {
    if (xh) wv_cr_handle_drop(r, xh);
    free(x);
    return wv_cr_ret(cudaErrorMemoryAllocation);
  }
  x->flags = flags;
  if (!acyclic(x->g)) {
    *result = cudaGraphInstantiateInvalidStructure;
    wv_cr_graph_free(r, x->g);
    wv_cr_handle_drop(r, xh);
    free(x);
    return wv_cr_ret(cudaErrorInvalidValue);
  }
  *result = cudaGraphInstantiateSuccess;
  x->src = h;
  g->nexecs++;
  *out = xh;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags) {
  int result;
  return instantiate(out, g, flags, &result);
}
WV_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags) {
  int result;
  return instantiate(out, g, flags, &result);
}
WV_EXPORT cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *out, cudaGraph_t g,
                                                     cudaGraphInstantiateParams *p) {
  if (!p) return cudaErrorInvalidValue;
  int result;
  cudaError_t e = instantiate(out, g, p->flags, &result);
  p->result_out = result;
  p->errNode_out = NULL;
  return e;
}

WV_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t h) {
  cudart *r = wv_cr();
  cr_exec *x;
  cudaError_t e = exec_get(r, h, "cudaGraphExecDestroy", &x);
  if (!e) {
    cr_graph *src = wv_cr_handle_obj(r, WV_H_GRAPH, x->src);
    if (src) src->nexecs--;
    wv_cr_graph_free(r, x->g);
    wv_cr_handle_drop(r, h);
    free(x);
  }
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t h, unsigned long long *flags) {
  cudart *r = wv_cr();
  cr_exec *x;
  cudaError_t e = exec_get(r, h, "cudaGraphExecGetFlags", &x);
  if (!e && !flags) e = cudaErrorInvalidValue;
  /* An H200 (CUDA 13.0) does not report cudaGraphInstantiateFlagUseNodePriority (8) back (graph_explicit). */
  if (!e) *flags = x->flags & ~8ull;
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t h, cudaStream_t hs) {
  cudart *r = wv_cr();
  cr_exec *x;
  cr_stream *s;
  cudaError_t e = exec_get(r, h, "cudaGraphUpload", &x);
  if (!e) e = wv_cr_stream_get(r, hs, "cudaGraphUpload", &s);
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t h, cudaStream_t hs) {
  cudart *r = wv_cr();
  cr_exec *x = NULL;
  cr_stream *s = NULL;
  cudaError_t e = wv_cr_device_check(r);
  if (!e) e = exec_get(r, h, "cudaGraphLaunch", &x);
  if (!e) e = wv_cr_stream_get(r, hs, "cudaGraphLaunch", &s);
  if (e) return wv_cr_ret(e);
  if (s && s->capture) { /* launched into a capture: a child graph node */
    cr_op op = {.kind = OP_GRAPH, .u.child = {x->g}};
    return wv_cr_ret(wv_cr_capture_op(r, s, &op));
  }
  if (live_allocs(r, x->g, (x->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) != 0) &&
      !(x->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch))
    return wv_cr_ret(cudaErrorInvalidValue); /* an allocation of the last launch was not freed */
  return wv_cr_ret(wv_cr_graph_run(r, x->g));
}

/* ---- updates ---- */
typedef struct upd {
  int result;
  cr_node *err, *from;
} upd;

static int fail(upd *u, int result, cr_node *err, cr_node *from) {
  u->result = result, u->err = err, u->from = from;
  return 0;
}

/* May x (an executable graph's copy) take g's parameters? Nodes pair up in creation order. */
static int same_shape(const cr_graph *x, const cr_graph *g, upd *u) {
  if (x->n != g->n) return fail(u, cudaGraphExecUpdateErrorTopologyChanged, NULL, NULL);
  for (uint32_t i = 0; i < g->n; i++) {
    const cr_node *a = x->nodes[i];
    cr_node *b = g->nodes[i];
    if (wv_cr_node_type(a->op.kind) != wv_cr_node_type(b->op.kind))
      return fail(u, cudaGraphExecUpdateErrorNodeTypeChanged, b, NULL);
    if (a->ndeps != b->ndeps) return fail(u, cudaGraphExecUpdateErrorTopologyChanged, b, NULL);
    for (uint32_t j = 0; j < b->ndeps; j++) {
      uint32_t k = 0;
      while (k < a->ndeps && a->deps[k]->idx != b->deps[j]->idx) k++;
      if (k == a->ndeps) return fail(u, cudaGraphExecUpdateErrorTopologyChanged, b, b->deps[j]);
    }
    const cr_op *p = &a->op, *q = &b->op;
    switch (q->kind) {
    case OP_GRAPH:
      if (!same_shape(p->u.child.g, q->u.child.g, u)) return 0;
      break;
    case OP_COND:
      if (p->u.cond.c != q->u.cond.c || p->u.cond.type != q->u.cond.type || p->u.cond.size != q->u.cond.size)
        return fail(u, cudaGraphExecUpdateErrorParametersChanged, b, NULL);
      for (unsigned k = 0; k < q->u.cond.size; k++)
        if (!same_shape(p->u.cond.body[k], q->u.cond.body[k], u)) return 0;
      break;
    case OP_MEM_ALLOC:
      if (p->u.alloc.a != q->u.alloc.a) return fail(u, cudaGraphExecUpdateErrorNotSupported, b, NULL);
      break;
    case OP_MEM_FREE:
      if (p->u.free.dptr != q->u.free.dptr) return fail(u, cudaGraphExecUpdateErrorNotSupported, b, NULL);
      break;
    default: break;
    }
  }
  return 1;
}

/* Copy g's node parameters into x (same_shape said they fit). */
static cudaError_t take_params(cudart *r, cr_graph *x, const cr_graph *g) {
  for (uint32_t i = 0; i < g->n; i++) {
    cr_node *a = x->nodes[i];
    const cr_op *q = &g->nodes[i]->op;
    cudaError_t e = cudaSuccess;
    cr_op op;
    if (q->kind == OP_GRAPH) e = take_params(r, a->op.u.child.g, q->u.child.g);
    for (unsigned k = 0; q->kind == OP_COND && k < q->u.cond.size && !e; k++)
      e = take_params(r, a->op.u.cond.body[k], q->u.cond.body[k]);
    if (q->kind <= OP_EVENT_WAIT && !(e = wv_cr_op_copy(r, &op, q, 0))) e = wv_cr_node_set_op(r, a, &op);
    if (e) return e;
  }
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hx, cudaGraph_t hg, cudaGraphExecUpdateResultInfo *info) {
  cudart *r = wv_cr();
  cr_exec *x;
  cr_graph *g;
  cudaError_t e = exec_get(r, hx, "cudaGraphExecUpdate", &x);
  if (!e) e = wv_cr_graph_get(r, hg, "cudaGraphExecUpdate", &g);
  if (e || !info) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  upd u = {cudaGraphExecUpdateSuccess, NULL, NULL};
  if (same_shape(x->g, g, &u)) e = take_params(r, x->g, g);
  else e = cudaErrorGraphExecUpdateFailure;
  info->result = e && !u.result ? cudaGraphExecUpdateError : u.result;
  info->errorNode = u.err ? u.err->self : NULL;
  info->errorFromNode = u.from ? u.from->self : NULL;
  return wv_cr_ret(e);
}

/* The executable graph's copy of node h (a node of the graph it was instantiated from). */
static cudaError_t exec_node(cudart *r, cudaGraphExec_t hx, cudaGraphNode_t h, const char *api, cr_node **out) {
  cr_exec *x;
  cr_node *orig;
  cudaError_t e = exec_get(r, hx, api, &x);
  if (!e) e = wv_cr_node_get(r, h, api, &orig);
  if (!e && !(*out = wv_cr_graph_find_orig(x->g, h))) e = cudaErrorInvalidValue;
  return e;
}

/* Replace the copy's op by one built from parameters; a kernel node keeps its function. */
static cudaError_t exec_set(cudart *r, cr_node *nd, cudaError_t e, cr_op *op) {
  if (!e && op->kind == OP_KERNEL && nd->op.kind == OP_KERNEL && op->u.k.f != nd->op.u.k.f) {
    wv_cr_op_free(r, op);
    e = cudaErrorInvalidValue;
  }
  return wv_cr_ret(e ? e : wv_cr_node_set_op(r, nd, op));
}

#define EXEC_SETTER(api, build)                       \
  cudart *r = wv_cr();                                \
  cr_node *nd;                                        \
  cr_op op;                                           \
  cudaError_t e = exec_node(r, hx, h, api, &nd);      \
  if (!e) e = (build);                                \
  return exec_set(r, nd, e, &op)

WV_EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h,
                                                       const struct cudaKernelNodeParams *p) {
  EXEC_SETTER("cudaGraphExecKernelNodeSetParams", wv_cr_kernel_op(r, p, &op));
}
WV_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h,
                                                       const struct cudaMemcpy3DParms *p) {
  EXEC_SETTER("cudaGraphExecMemcpyNodeSetParams", wv_cr_memcpy_op(r, p, &op));
}
WV_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hx, cudaGraphNode_t h, void *dst,
                                                         const void *src, size_t n, int kind) {
  EXEC_SETTER("cudaGraphExecMemcpyNodeSetParams1D", wv_cr_memcpy1d_op(r, dst, src, n, kind, &op));
}
WV_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hx, cudaGraphNode_t h, const void *sym,
                                                               const void *src, size_t n, size_t off, int kind) {
  EXEC_SETTER("cudaGraphExecMemcpyNodeSetParamsToSymbol", wv_cr_symbol_op(r, sym, (void *)src, n, off, kind, 1, &op));
}
WV_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hx, cudaGraphNode_t h, void *dst,
                                                                 const void *sym, size_t n, size_t off, int kind) {
  EXEC_SETTER("cudaGraphExecMemcpyNodeSetParamsFromSymbol", wv_cr_symbol_op(r, sym, dst, n, off, kind, 0, &op));
}
WV_EXPORT cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h,
                                                       const struct cudaMemsetParams *p) {
  EXEC_SETTER("cudaGraphExecMemsetNodeSetParams", wv_cr_memset_op(r, p, &op));
}
WV_EXPORT cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h,
                                                     const struct cudaHostNodeParams *p) {
  EXEC_SETTER("cudaGraphExecHostNodeSetParams", wv_cr_host_op(r, p, &op));
}
WV_EXPORT cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hx, cudaGraphNode_t h, cudaEvent_t ev) {
  EXEC_SETTER("cudaGraphExecEventRecordNodeSetEvent", wv_cr_event_op(r, ev, OP_EVENT_RECORD, &op));
}
WV_EXPORT cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hx, cudaGraphNode_t h, cudaEvent_t ev) {
  EXEC_SETTER("cudaGraphExecEventWaitNodeSetEvent", wv_cr_event_op(r, ev, OP_EVENT_WAIT, &op));
}
WV_EXPORT cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h, struct cudaGraphNodeParams *p) {
  EXEC_SETTER("cudaGraphExecNodeSetParams", wv_cr_params_op(r, p, &op, "cudaGraphExecNodeSetParams"));
}

WV_EXPORT cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hx, cudaGraphNode_t h, cudaGraph_t hc) {
  cudart *r = wv_cr();
  cr_node *nd;
  cr_graph *c;
  cudaError_t e = exec_node(r, hx, h, "cudaGraphExecChildGraphNodeSetParams", &nd);
  if (!e) e = wv_cr_graph_get(r, hc, "cudaGraphExecChildGraphNodeSetParams", &c);
  if (!e && nd->op.kind != OP_GRAPH) e = cudaErrorInvalidValue;
  upd u;
  if (!e) e = same_shape(nd->op.u.child.g, c, &u) ? take_params(r, nd->op.u.child.g, c) : cudaErrorInvalidValue;
  return wv_cr_ret(e);
}

/* Kernel, memcpy and memset nodes can be disabled in an executable graph (they then do nothing). */
static cudaError_t enabled(cudaGraphExec_t hx, cudaGraphNode_t h, unsigned *get, unsigned set) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = exec_node(r, hx, h, get ? "cudaGraphNodeGetEnabled" : "cudaGraphNodeSetEnabled", &nd);
  int t = e ? -1 : wv_cr_node_type(nd->op.kind);
  if (!e && t != cudaGraphNodeTypeKernel && t != cudaGraphNodeTypeMemcpy && t != cudaGraphNodeTypeMemset)
    e = cudaErrorInvalidValue;
  if (!e && get) *get = !nd->disabled;
  if (!e && !get) nd->disabled = !set;
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hx, cudaGraphNode_t h, unsigned int on) {
  return enabled(hx, h, NULL, on);
}
WV_EXPORT cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hx, cudaGraphNode_t h, unsigned int *on) {
  if (!on) return cudaErrorInvalidValue;
  return enabled(hx, h, on, 0);
}
