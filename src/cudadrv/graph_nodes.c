/*
 * graph_nodes.c — the kinds of graph node and their parameters: building a node's op from the parameter
 * structs of cuda.h (validated as node creation validates them), the cuGraphAdd*Node functions and
 * cuGraphAddNode (every kind through CUgraphNodeParams, conditional nodes with their body graphs),
 * conditional handles (cuGraphConditionalHandleCreate: the handle is the device address of the condition
 * word, which the device-side cudaGraphSetConditional stores to), and the per-kind getters and setters
 * (cuGraph*NodeGet/SetParams, cuGraphNodeSetParams). Memcpy nodes copy linear memory; CUDA arrays are
 * CUDA_ERROR_NOT_SUPPORTED (said once).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/graph.h"

CUresult cu_unsupported(cu_driver *d, const char *what) {
  if (cu_first_time(d, what))
    fprintf(stderr, "warpvm: %s is not supported by warpvm's CUDA driver (CUDA_ERROR_NOT_SUPPORTED)\n", what);
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* ---- parameters -> ops ---- */
/* Kernel arguments in the `extra` form: CU_LAUNCH_PARAM_BUFFER_POINTER (1), buffer,
 * CU_LAUNCH_PARAM_BUFFER_SIZE (2), &size, CU_LAUNCH_PARAM_END (0). *out points into the buffer. */
static CUresult extra_args(const cu_func *f, void **extra, void ***out) {
  uint8_t *buf = NULL;
  size_t size = 0;
  for (size_t i = 0; extra[i]; i += 2) {
    if (extra[i] == (void *)1) buf = extra[i + 1];
    else if (extra[i] == (void *)2 && extra[i + 1]) size = *(const size_t *)extra[i + 1];
    else return CUDA_ERROR_INVALID_VALUE;
  }
  uint32_t n = wv_kernel_param_count(f->k);
  if (!buf && n) return CUDA_ERROR_INVALID_VALUE;
  void **args = calloc(n ? n : 1, sizeof *args);
  if (!args) return CUDA_ERROR_OUT_OF_MEMORY;
  for (uint32_t i = 0; i < n; i++) {
    wv_param_info p = wv_kernel_param(f->k, i);
    if (p.offset + p.size > size) {
      free(args);
      return CUDA_ERROR_INVALID_VALUE;
    }
    args[i] = buf + p.offset;
  }
  *out = args;
  return CUDA_SUCCESS;
}

CUresult cu_kernel_op(cu_driver *d, const cu_kernel_params *p, cu_op *op) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  cu_func *f = p->func ? p->func : p->kern; /* a CUkernel is a function here */
  if (!cu_obj_check(d, f, CU_K_FUNC)) return CUDA_ERROR_INVALID_HANDLE;
  wv_dim3 grid = {p->gridDimX, p->gridDimY, p->gridDimZ}, block = {p->blockDimX, p->blockDimY, p->blockDimZ};
  char why[512];
  CUresult e = wvcu_launch_check(&d->prop, f->k, f->max_dyn_shared, grid, block, p->sharedMemBytes, 0, why,
                                 sizeof why) == WVCU_LAUNCH_OK ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  void **args = p->kernelParams, **tmp = NULL;
  if (!e && !args && p->extra) e = extra_args(f, p->extra, &tmp), args = tmp;
  if (!e && !args && wv_kernel_param_count(f->k)) e = CUDA_ERROR_INVALID_VALUE;
  if (e) return e;
  cu_op b = {.kind = OP_KERNEL, .u.k = {.f = f, .grid = grid, .block = block, .shared = p->sharedMemBytes, .args = args}};
  e = cu_op_copy(d, op, &b, 1);
  free(tmp);
  return e;
}

CUresult cu_memcpy_op(cu_driver *d, const CUDA_MEMCPY3D *p, cu_op *op) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  if (p->srcMemoryType == 3 || p->dstMemoryType == 3) return cu_unsupported(d, "a memcpy node with a CUDA array");
  const void *src = p->srcMemoryType == CU_MEMTYPE_HOST ? p->srcHost : (const void *)(uintptr_t)p->srcDevice;
  const void *dst = p->dstMemoryType == CU_MEMTYPE_HOST ? p->dstHost : (const void *)(uintptr_t)p->dstDevice;
  if (!src || !dst) return CUDA_ERROR_INVALID_VALUE;
  *op = (cu_op){.kind = OP_MEMCPY, .u.cp = *p};
  return CUDA_SUCCESS;
}

CUresult cu_memset_op(cu_driver *d, const cu_memset_params *p, cu_op *op) {
  (void)d;
  if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4))
    return CUDA_ERROR_INVALID_VALUE;
  if (p->height > 1 && (p->width > SIZE_MAX / p->elementSize || p->pitch < p->width * p->elementSize))
    return CUDA_ERROR_INVALID_VALUE;
  *op = (cu_op){.kind = OP_MEMSET, .u.set = {p->dst, p->pitch, p->value, p->elementSize, p->width, p->height}};
  return CUDA_SUCCESS;
}

CUresult cu_host_op(cu_driver *d, const cu_host_params *p, cu_op *op) {
  (void)d;
  if (!p || !p->fn) return CUDA_ERROR_INVALID_VALUE;
  *op = (cu_op){.kind = OP_HOST, .u.host = {p->fn, p->user}};
  return CUDA_SUCCESS;
}

CUresult cu_event_op(cu_driver *d, void *ev, cu_op_kind kind, cu_op *op) {
  cu_event *e;
  CUresult err = cu_event_get(d, ev, kind == OP_EVENT_RECORD ? "an event record node" : "an event wait node", &e);
  if (err) return err;
  *op = (cu_op){.kind = kind, .u.ev = {ev}};
  return CUDA_SUCCESS;
}

CUresult cu_params_op(cu_driver *d, const cu_node_params *p, cu_op *op, const char *api) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  switch (p->type) {
  case CU_NODE_KERNEL: return cu_kernel_op(d, &p->u.kernel, op);
  case CU_NODE_MEMCPY: return cu_memcpy_op(d, &p->u.memcpy.copyParams, op);
  case CU_NODE_MEMSET: return cu_memset_op(d, &p->u.memset, op);
  case CU_NODE_HOST: return cu_host_op(d, &p->u.host, op);
  case CU_NODE_EVENT_RECORD: return cu_event_op(d, p->u.eventRecord.event, OP_EVENT_RECORD, op);
  case CU_NODE_WAIT_EVENT: return cu_event_op(d, p->u.eventWait.event, OP_EVENT_WAIT, op);
  default: {
    char what[96];
    snprintf(what, sizeof what, "%s of a node of type %d", api, p->type);
    return cu_unsupported(d, what);
  }
  }
}

/* ---- adding nodes ---- */
typedef struct adding {
  cu_driver *d;
  cu_graph *g;
  cu_node **deps;
  size_t n;
} adding;

/* The graph and dependencies of a node being added: nodes of g, none twice. */
static CUresult add_begin(adding *a, const char *api, void **out, void *hg, void *const *deps, size_t n) {
  *a = (adding){.d = cu_lock(), .n = n};
  CUresult e = cu_graph_get(a->d, hg, api, &a->g);
  if (e) return e;
  if (!out || (n && !deps) || n > UINT32_MAX) return CUDA_ERROR_INVALID_VALUE;
  if (n && !(a->deps = malloc(n * sizeof *a->deps))) return CUDA_ERROR_OUT_OF_MEMORY;
  for (size_t i = 0; i < n; i++) {
    if ((e = cu_node_get(a->d, deps[i], api, &a->deps[i]))) return e;
    if (a->deps[i]->g != a->g) return CUDA_ERROR_INVALID_VALUE;
    for (size_t j = 0; j < i; j++)
      if (a->deps[j] == a->deps[i]) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* Add the node (taking op over), or give up with e (freeing op if it was built). */
static CUresult add_end(adding *a, CUresult e, cu_op *op, const cu_edge *ed, void **out, cu_node **nd) {
  cu_node *made = NULL;
  if (!e) e = cu_node_add(a->d, a->g, op, a->deps, ed, (uint32_t)a->n, &made);
  if (!e) *out = made->self;
  if (nd) *nd = made;
  free(a->deps);
  return cu_ret(e);
}

#define ADD(api, build)                                  \
  adding a;                                              \
  cu_op op;                                              \
  CUresult e = add_begin(&a, api, out, hg, deps, n);     \
  if (!e) e = (build);                                   \
  return add_end(&a, e, &op, NULL, out, NULL)

CU_EXPORT CUresult cuGraphAddKernelNode_v2(void **out, void *hg, void *const *deps, size_t n,
                                          const cu_kernel_params *p) {
  ADD("cuGraphAddKernelNode", cu_kernel_op(a.d, p, &op));
}
CU_EXPORT CUresult cuGraphAddKernelNode(void **out, void *hg, void *const *deps, size_t n, const cu_kernel_params *p) {
  cu_kernel_params v2 = {0};
  if (p) memcpy(&v2, p, offsetof(cu_kernel_params, kern)); /* CUDA_KERNEL_NODE_PARAMS_v1: no kern, ctx */
  return cuGraphAddKernelNode_v2(out, hg, deps, n, p ? &v2 : NULL);
}
CU_EXPORT CUresult cuGraphAddMemcpyNode(void **out, void *hg, void *const *deps, size_t n, const CUDA_MEMCPY3D *p,
                                       void *ctx) {
  (void)ctx;
  ADD("cuGraphAddMemcpyNode", cu_memcpy_op(a.d, p, &op));
}
CU_EXPORT CUresult cuGraphAddMemsetNode(void **out, void *hg, void *const *deps, size_t n, const cu_memset_params *p,
                                       void *ctx) {
  (void)ctx;
  ADD("cuGraphAddMemsetNode", cu_memset_op(a.d, p, &op));
}
CU_EXPORT CUresult cuGraphAddHostNode(void **out, void *hg, void *const *deps, size_t n, const cu_host_params *p) {
  ADD("cuGraphAddHostNode", cu_host_op(a.d, p, &op));
}
CU_EXPORT CUresult cuGraphAddEventRecordNode(void **out, void *hg, void *const *deps, size_t n, void *ev) {
  ADD("cuGraphAddEventRecordNode", cu_event_op(a.d, ev, OP_EVENT_RECORD, &op));
}
CU_EXPORT CUresult cuGraphAddEventWaitNode(void **out, void *hg, void *const *deps, size_t n, void *ev) {
  ADD("cuGraphAddEventWaitNode", cu_event_op(a.d, ev, OP_EVENT_WAIT, &op));
}
CU_EXPORT CUresult cuGraphAddEmptyNode(void **out, void *hg, void *const *deps, size_t n) {
  ADD("cuGraphAddEmptyNode", (op = (cu_op){.kind = OP_EMPTY}, CUDA_SUCCESS));
}

/* A child graph: a copy of the graph, or (ownership Move) the graph itself, which the node then owns. */
static CUresult child_op(cu_driver *d, void *hc, int move, cu_op *op) {
  cu_graph *c;
  CUresult e = cu_graph_get(d, hc, "a child graph node", &c);
  if (e) return e;
  if (c->origin || c->parent || (!move && cu_graph_restricted(c))) return CUDA_ERROR_INVALID_VALUE;
  if (move) {
    *op = (cu_op){.kind = OP_GRAPH, .u.child = {c}};
    return CUDA_SUCCESS;
  }
  cu_op src = {.kind = OP_GRAPH, .u.child = {c}};
  return cu_op_copy(d, op, &src, 1);
}

CU_EXPORT CUresult cuGraphAddChildGraphNode(void **out, void *hg, void *const *deps, size_t n, void *child) {
  ADD("cuGraphAddChildGraphNode", child_op(a.d, child, 0, &op));
}

enum { CU_MEM_ALLOCATION_TYPE_PINNED = 1, CU_MEM_LOCATION_TYPE_DEVICE = 1 };

static CUresult alloc_op(cu_driver *d, cu_alloc_params *p, cu_op *op) {
  if (!p || !p->bytesize || p->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      p->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  if (p->poolProps.location.id != 0) return CUDA_ERROR_INVALID_DEVICE;
  for (size_t i = 0; i < p->accessDescCount; i++)
    if (!p->accessDescs || p->accessDescs[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        p->accessDescs[i].location.id != 0)
      return CUDA_ERROR_INVALID_DEVICE;
  cu_galloc *ga = cu_galloc_new(d, p->bytesize);
  if (!ga) return CUDA_ERROR_OUT_OF_MEMORY;
  ga->refs = 1; /* the op's */
  *op = (cu_op){.kind = OP_MEM_ALLOC, .u.alloc = {ga}};
  p->dptr = ga->dptr;
  return CUDA_SUCCESS;
}

static CUresult free_op(cu_driver *d, CUdeviceptr dptr, cu_op *op) {
  if (!cu_galloc_find(d, dptr)) return CUDA_ERROR_INVALID_VALUE; /* not memory a graph allocates */
  *op = (cu_op){.kind = OP_MEM_FREE, .u.free = {dptr}};
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuGraphAddMemAllocNode(void **out, void *hg, void *const *deps, size_t n, cu_alloc_params *p) {
  ADD("cuGraphAddMemAllocNode", alloc_op(a.d, p, &op));
}
CU_EXPORT CUresult cuGraphAddMemFreeNode(void **out, void *hg, void *const *deps, size_t n, CUdeviceptr dptr) {
  ADD("cuGraphAddMemFreeNode", free_op(a.d, dptr, &op));
}

/* ---- conditional nodes ---- */
/* A handle created on g or a graph containing it. */
static cu_cond *cond_find(cu_graph *g, unsigned long long h) {
  for (; g; g = g->parent ? g->parent->g : NULL)
    for (uint32_t i = 0; i < g->nconds; i++)
      if (g->conds[i]->cell == h) return g->conds[i];
  return NULL;
}

CU_EXPORT CUresult cuGraphConditionalHandleCreate(unsigned long long *out, void *hg, void *ctx, unsigned dflt,
                                                 unsigned flags) {
  (void)ctx;
  cu_driver *d = cu_lock();
  cu_graph *g;
  CUresult e = cu_graph_get(d, hg, "cuGraphConditionalHandleCreate", &g);
  if (e || !out || (flags & ~(unsigned)CU_COND_ASSIGN_DEFAULT)) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  cu_cond *c = calloc(1, sizeof *c);
  uint32_t cap = g->capconds;
  if (!c || wv_malloc(d->vm, 4, &c->cell) != WV_OK) {
    free(c);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  if (g->nconds == cap) {
    cu_cond **n = realloc(g->conds, (cap ? 2 * cap : 4) * sizeof *n);
    if (!n) {
      wv_free(d->vm, c->cell);
      free(c);
      return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
    }
    g->conds = n, g->capconds = cap ? 2 * cap : 4;
  }
  wv_memcpy_htod(d->vm, c->cell, &dflt, 4); /* also the value before any run */
  c->dflt = dflt, c->flags = flags, c->refs = 1;
  g->conds[g->nconds++] = c;
  *out = c->cell;
  return cu_ret(CUDA_SUCCESS);
}

static CUresult cond_op(cu_driver *d, cu_graph *g, const cu_cond_params *p, cu_op *op) {
  cu_cond *c = cond_find(g, p->handle);
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  unsigned n = p->size;
  if (p->type == CU_COND_IF ? n < 1 || n > 2
      : p->type == CU_COND_WHILE ? n != 1
      : p->type == CU_COND_SWITCH ? n < 1 || n > 1u << 20 : 1)
    return CUDA_ERROR_INVALID_VALUE;
  cu_graph **body = calloc(n, sizeof *body);
  void **hbody = calloc(n, sizeof *hbody);
  *op = (cu_op){.kind = OP_COND, .u.cond = {c, p->type, 0, body, hbody}};
  c->refs++;
  for (unsigned i = 0; body && hbody && i < n; i++, op->u.cond.size++)
    if ((body[i] = cu_graph_new(d, 1))) hbody[i] = body[i]->self;
    else break;
  if (op->u.cond.size == n) return CUDA_SUCCESS;
  cu_op_free(d, op);
  return CUDA_ERROR_OUT_OF_MEMORY;
}

/* cuGraphAddNode: every kind; the output fields (an allocation's address, the conditional bodies) are
 * written back into *p. */
static CUresult add_node(void **out, void *hg, void *const *deps, const cu_edge *ed, size_t n, cu_node_params *p) {
  adding a;
  cu_op op;
  cu_node *nd = NULL;
  CUresult e = add_begin(&a, "cuGraphAddNode", out, hg, deps, n);
  if (!e && !p) e = CUDA_ERROR_INVALID_VALUE;
  if (!e) switch (p->type) {
    case CU_NODE_EMPTY: op = (cu_op){.kind = OP_EMPTY}; break;
    case CU_NODE_GRAPH: e = child_op(a.d, p->u.graph.graph, p->u.graph.ownership == 1, &op); break;
    case CU_NODE_MEM_ALLOC: e = alloc_op(a.d, &p->u.alloc, &op); break;
    case CU_NODE_MEM_FREE: e = free_op(a.d, p->u.free.dptr, &op); break;
    case CU_NODE_CONDITIONAL: e = cond_op(a.d, a.g, &p->u.conditional, &op); break;
    default: e = cu_params_op(a.d, p, &op, "cuGraphAddNode"); break;
    }
  CUresult e2 = add_end(&a, e, &op, ed, out, &nd);
  if (!e2 && nd->op.kind == OP_COND) p->u.conditional.phGraph_out = nd->op.u.cond.hbody;
  return e2;
}

CU_EXPORT CUresult cuGraphAddNode_v2(void **out, void *g, void *const *deps, const cu_edge *ed, size_t n,
                                    cu_node_params *p) {
  return add_node(out, g, deps, ed, n, p);
}
CU_EXPORT CUresult cuGraphAddNode(void **out, void *g, void *const *deps, size_t n, cu_node_params *p) {
  return add_node(out, g, deps, NULL, n, p);
}

/* ---- getters and setters ---- */
/* The node behind h, if it is of the given CUgraphNodeType (and the caller's pointer `ok`). */
static CUresult node_of(cu_driver *d, void *h, int type, const char *api, int ok, cu_node **nd) {
  CUresult e = cu_node_get(d, h, api, nd);
  if (!e && (!ok || cu_node_type((*nd)->op.kind) != type)) e = CUDA_ERROR_INVALID_VALUE;
  return e;
}

/* Replace the node's op with one built from parameters (or give up with e). */
static CUresult set_op(cu_driver *d, cu_node *nd, CUresult e, cu_op *op) {
  return cu_ret(e ? e : cu_node_set_op(d, nd, op));
}

#define SETTER(type, api, build)                         \
  cu_driver *d = cu_lock();                              \
  cu_node *nd;                                           \
  cu_op op;                                              \
  CUresult e = node_of(d, h, type, api, 1, &nd);         \
  if (!e) e = (build);                                   \
  return set_op(d, nd, e, &op)

/* The getters answer while the node is locked: pointers into it stay valid until it changes. */
#define GETTER(type, api, out)                           \
  cu_driver *d = cu_lock();                              \
  cu_node *nd;                                           \
  CUresult e = node_of(d, h, type, api, (out) != NULL, &nd); \
  if (e) return cu_ret(e);                               \
  const cu_op *op = &nd->op

CU_EXPORT CUresult cuGraphKernelNodeGetParams_v2(void *h, cu_kernel_params *p) {
  GETTER(CU_NODE_KERNEL, "cuGraphKernelNodeGetParams", p);
  *p = (cu_kernel_params){op->u.k.f, op->u.k.grid.x, op->u.k.grid.y, op->u.k.grid.z, op->u.k.block.x,
                          op->u.k.block.y, op->u.k.block.z, op->u.k.shared, op->u.k.args, NULL, op->u.k.f, &d->primary};
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuGraphKernelNodeGetParams(void *h, cu_kernel_params *p) {
  cu_kernel_params v2;
  CUresult e = cuGraphKernelNodeGetParams_v2(h, p ? &v2 : NULL);
  if (!e) memcpy(p, &v2, offsetof(cu_kernel_params, kern));
  return e;
}
CU_EXPORT CUresult cuGraphKernelNodeSetParams_v2(void *h, const cu_kernel_params *p) {
  SETTER(CU_NODE_KERNEL, "cuGraphKernelNodeSetParams", cu_kernel_op(d, p, &op));
}
CU_EXPORT CUresult cuGraphKernelNodeSetParams(void *h, const cu_kernel_params *p) {
  cu_kernel_params v2 = {0};
  if (p) memcpy(&v2, p, offsetof(cu_kernel_params, kern));
  return cuGraphKernelNodeSetParams_v2(h, p ? &v2 : NULL);
}

CU_EXPORT CUresult cuGraphMemcpyNodeGetParams(void *h, CUDA_MEMCPY3D *p) {
  GETTER(CU_NODE_MEMCPY, "cuGraphMemcpyNodeGetParams", p);
  *p = op->u.cp;
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuGraphMemcpyNodeSetParams(void *h, const CUDA_MEMCPY3D *p) {
  SETTER(CU_NODE_MEMCPY, "cuGraphMemcpyNodeSetParams", cu_memcpy_op(d, p, &op));
}

CU_EXPORT CUresult cuGraphMemsetNodeGetParams(void *h, cu_memset_params *p) {
  GETTER(CU_NODE_MEMSET, "cuGraphMemsetNodeGetParams", p);
  /* CUDA_MEMSET_NODE_PARAMS (v1): no context */
  memcpy(p, &(cu_memset_params){op->u.set.dst, op->u.set.pitch, op->u.set.value, op->u.set.esize, op->u.set.width,
                                op->u.set.height, NULL},
         offsetof(cu_memset_params, ctx));
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuGraphMemsetNodeSetParams(void *h, const cu_memset_params *p) {
  cu_memset_params v2 = {0};
  if (p) memcpy(&v2, p, offsetof(cu_memset_params, ctx));
  SETTER(CU_NODE_MEMSET, "cuGraphMemsetNodeSetParams", cu_memset_op(d, p ? &v2 : NULL, &op));
}

CU_EXPORT CUresult cuGraphHostNodeGetParams(void *h, cu_host_params *p) {
  GETTER(CU_NODE_HOST, "cuGraphHostNodeGetParams", p);
  *p = (cu_host_params){op->u.host.fn, op->u.host.user};
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuGraphHostNodeSetParams(void *h, const cu_host_params *p) {
  SETTER(CU_NODE_HOST, "cuGraphHostNodeSetParams", cu_host_op(d, p, &op));
}

CU_EXPORT CUresult cuGraphEventRecordNodeGetEvent(void *h, void **ev) {
  GETTER(CU_NODE_EVENT_RECORD, "cuGraphEventRecordNodeGetEvent", ev);
  *ev = op->u.ev.ev;
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuGraphEventWaitNodeGetEvent(void *h, void **ev) {
  GETTER(CU_NODE_WAIT_EVENT, "cuGraphEventWaitNodeGetEvent", ev);
  *ev = op->u.ev.ev;
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuGraphEventRecordNodeSetEvent(void *h, void *ev) {
  SETTER(CU_NODE_EVENT_RECORD, "cuGraphEventRecordNodeSetEvent", cu_event_op(d, ev, OP_EVENT_RECORD, &op));
}
CU_EXPORT CUresult cuGraphEventWaitNodeSetEvent(void *h, void *ev) {
  SETTER(CU_NODE_WAIT_EVENT, "cuGraphEventWaitNodeSetEvent", cu_event_op(d, ev, OP_EVENT_WAIT, &op));
}

CU_EXPORT CUresult cuGraphChildGraphNodeGetGraph(void *h, void **out) {
  GETTER(CU_NODE_GRAPH, "cuGraphChildGraphNodeGetGraph", out);
  *out = op->u.child.g->self;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuGraphMemAllocNodeGetParams(void *h, cu_alloc_params *p) {
  GETTER(CU_NODE_MEM_ALLOC, "cuGraphMemAllocNodeGetParams", p);
  memset(p, 0, sizeof *p);
  p->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  p->poolProps.location = (cu_mem_location){CU_MEM_LOCATION_TYPE_DEVICE, 0};
  p->bytesize = op->u.alloc.a->size;
  p->dptr = op->u.alloc.a->dptr;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuGraphMemFreeNodeGetParams(void *h, CUdeviceptr *dptr_out) {
  GETTER(CU_NODE_MEM_FREE, "cuGraphMemFreeNodeGetParams", dptr_out);
  *dptr_out = op->u.free.dptr;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuGraphNodeSetParams(void *h, cu_node_params *p) {
  cu_driver *d = cu_lock();
  cu_node *nd;
  cu_op op;
  CUresult e = cu_node_get(d, h, "cuGraphNodeSetParams", &nd);
  if (!e && (!p || p->type != cu_node_type(nd->op.kind))) e = CUDA_ERROR_INVALID_VALUE;
  if (!e) e = cu_params_op(d, p, &op, "cuGraphNodeSetParams");
  return set_op(d, nd, e, &op);
}
