/*
 * graph_exec.c — executable graphs: cuGraphInstantiate (a private deep copy of the graph, checked
 * for cycles), cuGraphLaunch (the nodes run one at a time in a topological order, so every
 * dependency is honoured; launched into a capturing stream, the graph becomes a child graph node),
 * conditional nodes (IF/WHILE/SWITCH: the condition word is read when the node runs, a handle made
 * with CU_GRAPH_COND_ASSIGN_DEFAULT is reset at the start of every run of its graph), graph memory
 * (an alloc node makes its fixed address a live allocation, a free node ends it; relaunching while one
 * is live fails unless instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH), cuGraphExecUpdate
 * (same topology, nodes paired in creation order), cuGraphExec*SetParams and cuGraphNodeSetEnabled.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/graph.h"

static CUresult exec_get(cu_driver *d, void *h, const char *api, cu_exec **out) {
  if ((*out = cu_handle_obj(d, CU_H_EXEC, h))) return CUDA_SUCCESS;
  return cu_bad_handle(d, api, CU_H_EXEC, h, CUDA_ERROR_INVALID_VALUE);
}

/* ---- running ---- */
static CUresult alloc_begin(cu_driver *d, cu_galloc *a) {
  if (a->live) return CUDA_ERROR_INVALID_VALUE; /* still allocated by an earlier launch */
  if (cu_alloc_add(d, (uintptr_t)a->dptr, a->size, CU_MEMTYPE_DEVICE, 0, 0)) return CUDA_ERROR_OUT_OF_MEMORY;
  cu_alloc_find(d, a->dptr)->galloc = a;
  a->live = 1;
  cu_graph_mem_note(d);
  return CUDA_SUCCESS;
}

static CUresult alloc_end(cu_driver *d, CUdeviceptr dptr) {
  cu_alloc *a = cu_alloc_find(d, dptr);
  if (!a || a->base != dptr || !a->galloc) return CUDA_ERROR_INVALID_VALUE; /* not live */
  cu_alloc_remove(d, a);
  return CUDA_SUCCESS;
}

static unsigned cond_value(cu_driver *d, const cu_cond *c) {
  unsigned v = 0;
  wv_memcpy_dtoh(d->vm, &v, c->cell, 4);
  return v;
}

static CUresult run_cond(cu_driver *d, const cu_op *op) {
  unsigned v = cond_value(d, op->u.cond.c), n = op->u.cond.size;
  cu_graph **body = op->u.cond.body;
  switch (op->u.cond.type) {
  case CU_COND_IF: return v ? cu_graph_run(d, body[0]) : n == 2 ? cu_graph_run(d, body[1]) : CUDA_SUCCESS;
  case CU_COND_SWITCH: return v < n ? cu_graph_run(d, body[v]) : CUDA_SUCCESS;
  default: break;
  }
  if (v && !cu_graph_has_kind(body[0], OP_KERNEL)) { /* nothing in the body can ever change the condition */
    if (cu_first_time(d, "while-forever"))
      fprintf(stderr, "warpvm: a WHILE conditional node whose condition is set and whose body launches no kernel "
                      "would never finish: the graph launch fails (CUDA_ERROR_LAUNCH_TIMEOUT)\n");
    return CUDA_ERROR_LAUNCH_TIMEOUT;
  }
  for (CUresult e; v; v = cond_value(d, op->u.cond.c))
    if ((e = cu_graph_run(d, body[0]))) return e;
  return CUDA_SUCCESS;
}

CUresult cu_graph_run(cu_driver *d, cu_graph *g) {
  for (uint32_t i = 0; i < g->nconds; i++) {
    const cu_cond *c = g->conds[i];
    if (c->flags & CU_COND_ASSIGN_DEFAULT) wv_memcpy_htod(d->vm, c->cell, &c->dflt, 4);
  }
  cu_node **order = cu_graph_order(g);
  if (!order) return CUDA_ERROR_INVALID_VALUE;
  for (uint32_t i = 0; i < g->n; i++) {
    const cu_op *op = &order[i]->op;
    CUresult e;
    if (order[i]->disabled) continue;
    switch (op->kind) {
    case OP_GRAPH: e = cu_graph_run(d, op->u.child.g); break;
    case OP_COND: e = run_cond(d, op); break;
    case OP_MEM_ALLOC: e = alloc_begin(d, op->u.alloc.a); break;
    case OP_MEM_FREE: e = alloc_end(d, op->u.free.dptr); break;
    case OP_EMPTY: e = CUDA_SUCCESS; break;
    default: e = cu_run_op(d, op); break;
    }
    if (e) return e;
  }
  return CUDA_SUCCESS;
}

/* The graph's allocations still live from an earlier launch: freed (free = 1) or counted. */
static int live_allocs(cu_driver *d, const cu_graph *g, int free) {
  int n = 0;
  for (uint32_t i = 0; i < g->n; i++) {
    const cu_op *op = &g->nodes[i]->op;
    if (op->kind == OP_MEM_ALLOC && op->u.alloc.a->live) n += free ? !alloc_end(d, op->u.alloc.a->dptr) : 1;
    if (op->kind == OP_GRAPH) n += live_allocs(d, op->u.child.g, free);
  }
  return n;
}

/* ---- instantiate ---- */
static int acyclic(cu_graph *g) {
  if (!cu_graph_order(g)) return 0;
  for (uint32_t i = 0; i < g->n; i++) {
    const cu_op *op = &g->nodes[i]->op;
    if (op->kind == OP_GRAPH && !acyclic(op->u.child.g)) return 0;
    for (unsigned b = 0; op->kind == OP_COND && b < op->u.cond.size; b++)
      if (!acyclic(op->u.cond.body[b])) return 0;
  }
  return 1;
}

#define KNOWN_FLAGS (CU_INST_AUTO_FREE | CU_INST_UPLOAD | CU_INST_DEVICE_LAUNCH | CU_INST_NODE_PRIORITY)
enum { INST_SUCCESS = 0, INST_ERROR = 1, INST_INVALID_STRUCTURE = 2 }; /* CUgraphInstantiateResult */

static CUresult instantiate(void **out, void *h, unsigned long long flags, int *result) {
  cu_driver *d = cu_lock();
  cu_graph *g;
  *result = INST_ERROR;
  CUresult e = cu_graph_get(d, h, "cuGraphInstantiate", &g);
  if (e || !out || (flags & ~(unsigned long long)KNOWN_FLAGS)) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  if (flags & CU_INST_DEVICE_LAUNCH)
    return cu_ret(cu_unsupported(d, "CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH (graphs launched from the device)"));
  if (g->nexecs && cu_graph_restricted(g)) return cu_ret(CUDA_ERROR_INVALID_VALUE); /* one at a time */
  cu_exec *x = calloc(1, sizeof *x);
  void *xh = x ? cu_handle_new(d, CU_H_EXEC, x) : NULL;
  if (!xh || !(x->g = cu_graph_clone(d, g, 0))) {
    if (xh) cu_handle_drop(d, xh);
    free(x);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  x->flags = flags;
  if (!acyclic(x->g)) {
    *result = INST_INVALID_STRUCTURE;
    cu_graph_free(d, x->g);
    cu_handle_drop(d, xh);
    free(x);
    return cu_ret(CUDA_ERROR_INVALID_VALUE);
  }
  *result = INST_SUCCESS;
  x->src = h;
  g->nexecs++;
  *out = xh;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuGraphInstantiateWithFlags(void **out, void *g, unsigned long long flags) {
  int result;
  return instantiate(out, g, flags, &result);
}
/* CUDA 10's form: the node at fault and a log (an empty one here). */
CU_EXPORT CUresult cuGraphInstantiate_v2(void **out, void *g, void **err_node, char *log, size_t log_size) {
  int result;
  if (err_node) *err_node = NULL;
  if (log && log_size) log[0] = 0;
  return instantiate(out, g, 0, &result);
}
CU_EXPORT CUresult cuGraphInstantiate(void **out, void *g, void **err_node, char *log, size_t log_size) {
  return cuGraphInstantiate_v2(out, g, err_node, log, log_size);
}
CU_EXPORT CUresult cuGraphInstantiateWithParams(void **out, void *g, cu_inst_params *p) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  int result;
  CUresult e = instantiate(out, g, p->flags, &result);
  p->result_out = result;
  p->err_node_out = NULL;
  return e;
}

CU_EXPORT CUresult cuGraphExecDestroy(void *h) {
  cu_driver *d = cu_lock();
  cu_exec *x;
  CUresult e = exec_get(d, h, "cuGraphExecDestroy", &x);
  if (!e) {
    cu_graph *src = cu_handle_obj(d, CU_H_GRAPH, x->src);
    if (src) src->nexecs--;
    cu_graph_free(d, x->g);
    cu_handle_drop(d, h);
    free(x);
  }
  return cu_ret(e);
}

CU_EXPORT CUresult cuGraphExecGetFlags(void *h, unsigned long long *flags) {
  cu_driver *d = cu_lock();
  cu_exec *x;
  CUresult e = exec_get(d, h, "cuGraphExecGetFlags", &x);
  if (!e && !flags) e = CUDA_ERROR_INVALID_VALUE;
  /* An H200 (CUDA 13.0) does not report CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY (8) back (graph_explicit). */
  if (!e) *flags = x->flags & ~8ull;
  return cu_ret(e);
}

CU_EXPORT CUresult cuGraphUpload(void *h, void *hs) {
  cu_driver *d = cu_lock();
  cu_exec *x;
  cu_stream *s;
  CUresult e = exec_get(d, h, "cuGraphUpload", &x);
  if (!e) e = cu_stream_get(d, hs, "cuGraphUpload", &s);
  return cu_ret(e);
}

CU_EXPORT CUresult cuGraphLaunch(void *h, void *hs) {
  cu_driver *d = cu_lock();
  cu_exec *x = NULL;
  cu_stream *s = NULL;
  CUresult e = cu_check(d);
  if (!e) e = exec_get(d, h, "cuGraphLaunch", &x);
  if (!e) e = cu_stream_get(d, hs, "cuGraphLaunch", &s);
  if (e) return cu_ret(e);
  if (s && s->capture) { /* launched into a capture: a child graph node */
    cu_op op = {.kind = OP_GRAPH, .u.child = {x->g}};
    return cu_ret(cu_capture_op(d, s, &op));
  }
  if (live_allocs(d, x->g, (x->flags & CU_INST_AUTO_FREE) != 0) && !(x->flags & CU_INST_AUTO_FREE))
    return cu_ret(CUDA_ERROR_INVALID_VALUE); /* an allocation of the last launch was not freed */
  return cu_ret(cu_graph_run(d, x->g));
}

/* ---- updates ---- */
enum { UPD_SUCCESS = 0, UPD_ERROR = 1, UPD_TOPOLOGY_CHANGED = 2, UPD_NODE_TYPE_CHANGED = 3,
       UPD_PARAMETERS_CHANGED = 5, UPD_NOT_SUPPORTED = 6 }; /* CUgraphExecUpdateResult */
typedef struct upd {
  int result;
  cu_node *err, *from;
} upd;

static int fail(upd *u, int result, cu_node *err, cu_node *from) {
  u->result = result, u->err = err, u->from = from;
  return 0;
}

/* May x (an executable graph's copy) take g's parameters? Nodes pair up in creation order. */
static int same_shape(const cu_graph *x, const cu_graph *g, upd *u) {
  if (x->n != g->n) return fail(u, UPD_TOPOLOGY_CHANGED, NULL, NULL);
  for (uint32_t i = 0; i < g->n; i++) {
    const cu_node *a = x->nodes[i];
    cu_node *b = g->nodes[i];
    if (cu_node_type(a->op.kind) != cu_node_type(b->op.kind))
      return fail(u, UPD_NODE_TYPE_CHANGED, b, NULL);
    if (a->ndeps != b->ndeps) return fail(u, UPD_TOPOLOGY_CHANGED, b, NULL);
    for (uint32_t j = 0; j < b->ndeps; j++) {
      uint32_t k = 0;
      while (k < a->ndeps && a->deps[k]->idx != b->deps[j]->idx) k++;
      if (k == a->ndeps) return fail(u, UPD_TOPOLOGY_CHANGED, b, b->deps[j]);
    }
    const cu_op *p = &a->op, *q = &b->op;
    switch (q->kind) {
    case OP_GRAPH:
      if (!same_shape(p->u.child.g, q->u.child.g, u)) return 0;
      break;
    case OP_COND:
      if (p->u.cond.c != q->u.cond.c || p->u.cond.type != q->u.cond.type || p->u.cond.size != q->u.cond.size)
        return fail(u, UPD_PARAMETERS_CHANGED, b, NULL);
      for (unsigned k = 0; k < q->u.cond.size; k++)
        if (!same_shape(p->u.cond.body[k], q->u.cond.body[k], u)) return 0;
      break;
    case OP_MEM_ALLOC:
      if (p->u.alloc.a != q->u.alloc.a) return fail(u, UPD_NOT_SUPPORTED, b, NULL);
      break;
    case OP_MEM_FREE:
      if (p->u.free.dptr != q->u.free.dptr) return fail(u, UPD_NOT_SUPPORTED, b, NULL);
      break;
    default: break;
    }
  }
  return 1;
}

/* Copy g's node parameters into x (same_shape said they fit). */
static CUresult take_params(cu_driver *d, cu_graph *x, const cu_graph *g) {
  for (uint32_t i = 0; i < g->n; i++) {
    cu_node *a = x->nodes[i];
    const cu_op *q = &g->nodes[i]->op;
    CUresult e = CUDA_SUCCESS;
    cu_op op;
    if (q->kind == OP_GRAPH) e = take_params(d, a->op.u.child.g, q->u.child.g);
    for (unsigned k = 0; q->kind == OP_COND && k < q->u.cond.size && !e; k++)
      e = take_params(d, a->op.u.cond.body[k], q->u.cond.body[k]);
    if (q->kind <= OP_EVENT_WAIT && !(e = cu_op_copy(d, &op, q, 0))) e = cu_node_set_op(d, a, &op);
    if (e) return e;
  }
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuGraphExecUpdate_v2(void *hx, void *hg, cu_update_info *info) {
  cu_driver *d = cu_lock();
  cu_exec *x;
  cu_graph *g;
  CUresult e = exec_get(d, hx, "cuGraphExecUpdate", &x);
  if (!e) e = cu_graph_get(d, hg, "cuGraphExecUpdate", &g);
  if (e || !info) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  upd u = {UPD_SUCCESS, NULL, NULL};
  if (same_shape(x->g, g, &u)) e = take_params(d, x->g, g);
  else e = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
  info->result = e && !u.result ? UPD_ERROR : u.result;
  info->err_node = u.err ? u.err->self : NULL;
  info->err_from = u.from ? u.from->self : NULL;
  return cu_ret(e);
}
/* CUDA 10's form: the node at fault and the result. */
CU_EXPORT CUresult cuGraphExecUpdate(void *hx, void *hg, void **err_node, int *result) {
  cu_update_info info = {0};
  CUresult e = cuGraphExecUpdate_v2(hx, hg, &info);
  if (err_node) *err_node = info.err_node;
  if (result) *result = info.result;
  return e;
}

/* The executable graph's copy of node h (a node of the graph it was instantiated from). */
static CUresult exec_node(cu_driver *d, void *hx, void *h, const char *api, cu_node **out) {
  cu_exec *x;
  cu_node *orig;
  CUresult e = exec_get(d, hx, api, &x);
  if (!e) e = cu_node_get(d, h, api, &orig);
  if (!e && !(*out = cu_graph_find_orig(x->g, h))) e = CUDA_ERROR_INVALID_VALUE;
  return e;
}

/* Replace the copy's op by one built from parameters; a kernel node keeps its function. */
static CUresult exec_set(cu_driver *d, cu_node *nd, CUresult e, cu_op *op) {
  if (!e && op->kind == OP_KERNEL && nd->op.kind == OP_KERNEL && op->u.k.f != nd->op.u.k.f) {
    cu_op_free(d, op);
    e = CUDA_ERROR_INVALID_VALUE;
  }
  return cu_ret(e ? e : cu_node_set_op(d, nd, op));
}

#define EXEC_SETTER(api, build)              \
  cu_driver *d = cu_lock();                  \
  cu_node *nd;                               \
  cu_op op;                                  \
  CUresult e = exec_node(d, hx, h, api, &nd); \
  if (!e) e = (build);                       \
  return exec_set(d, nd, e, &op)

CU_EXPORT CUresult cuGraphExecKernelNodeSetParams_v2(void *hx, void *h, const cu_kernel_params *p) {
  EXEC_SETTER("cuGraphExecKernelNodeSetParams", cu_kernel_op(d, p, &op));
}
CU_EXPORT CUresult cuGraphExecKernelNodeSetParams(void *hx, void *h, const cu_kernel_params *p) {
  cu_kernel_params v2 = {0};
  if (p) memcpy(&v2, p, offsetof(cu_kernel_params, kern)); /* CUDA_KERNEL_NODE_PARAMS_v1: no kern, ctx */
  return cuGraphExecKernelNodeSetParams_v2(hx, h, p ? &v2 : NULL);
}
CU_EXPORT CUresult cuGraphExecMemcpyNodeSetParams(void *hx, void *h, const CUDA_MEMCPY3D *p, void *ctx) {
  (void)ctx;
  EXEC_SETTER("cuGraphExecMemcpyNodeSetParams", cu_memcpy_op(d, p, &op));
}
CU_EXPORT CUresult cuGraphExecMemsetNodeSetParams(void *hx, void *h, const cu_memset_params *p, void *ctx) {
  (void)ctx;
  EXEC_SETTER("cuGraphExecMemsetNodeSetParams", cu_memset_op(d, p, &op));
}
CU_EXPORT CUresult cuGraphExecHostNodeSetParams(void *hx, void *h, const cu_host_params *p) {
  EXEC_SETTER("cuGraphExecHostNodeSetParams", cu_host_op(d, p, &op));
}
CU_EXPORT CUresult cuGraphExecEventRecordNodeSetEvent(void *hx, void *h, void *ev) {
  EXEC_SETTER("cuGraphExecEventRecordNodeSetEvent", cu_event_op(d, ev, OP_EVENT_RECORD, &op));
}
CU_EXPORT CUresult cuGraphExecEventWaitNodeSetEvent(void *hx, void *h, void *ev) {
  EXEC_SETTER("cuGraphExecEventWaitNodeSetEvent", cu_event_op(d, ev, OP_EVENT_WAIT, &op));
}
CU_EXPORT CUresult cuGraphExecNodeSetParams(void *hx, void *h, cu_node_params *p) {
  EXEC_SETTER("cuGraphExecNodeSetParams", cu_params_op(d, p, &op, "cuGraphExecNodeSetParams"));
}

CU_EXPORT CUresult cuGraphExecChildGraphNodeSetParams(void *hx, void *h, void *hc) {
  cu_driver *d = cu_lock();
  cu_node *nd;
  cu_graph *c;
  CUresult e = exec_node(d, hx, h, "cuGraphExecChildGraphNodeSetParams", &nd);
  if (!e) e = cu_graph_get(d, hc, "cuGraphExecChildGraphNodeSetParams", &c);
  if (!e && nd->op.kind != OP_GRAPH) e = CUDA_ERROR_INVALID_VALUE;
  upd u;
  if (!e) e = same_shape(nd->op.u.child.g, c, &u) ? take_params(d, nd->op.u.child.g, c) : CUDA_ERROR_INVALID_VALUE;
  return cu_ret(e);
}

/* Kernel, memcpy and memset nodes can be disabled in an executable graph (they then do nothing). */
static CUresult enabled(void *hx, void *h, unsigned *get, unsigned set) {
  cu_driver *d = cu_lock();
  cu_node *nd;
  CUresult e = exec_node(d, hx, h, get ? "cuGraphNodeGetEnabled" : "cuGraphNodeSetEnabled", &nd);
  int t = e ? -1 : cu_node_type(nd->op.kind);
  if (!e && t != CU_NODE_KERNEL && t != CU_NODE_MEMCPY && t != CU_NODE_MEMSET)
    e = CUDA_ERROR_INVALID_VALUE;
  if (!e && get) *get = !nd->disabled;
  if (!e && !get) nd->disabled = !set;
  return cu_ret(e);
}

CU_EXPORT CUresult cuGraphNodeSetEnabled(void *hx, void *h, unsigned int on) {
  return enabled(hx, h, NULL, on);
}
CU_EXPORT CUresult cuGraphNodeGetEnabled(void *hx, void *h, unsigned int *on) {
  if (!on) return CUDA_ERROR_INVALID_VALUE;
  return enabled(hx, h, on, 0);
}
