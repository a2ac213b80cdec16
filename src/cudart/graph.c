/*
 * graph.c — CUDA graphs as objects (graph.h says what they are): creating, copying and destroying
 * graphs, nodes and edges, the ops nodes own (deep copies: kernel argument values, child graphs,
 * conditional bodies; shared references: graph allocations, conditional handles), topological order,
 * and the structural API: cudaGraphCreate/Destroy/Clone, cudaGraphNodeFindInClone, cudaGraphDestroyNode,
 * dependencies (added, removed, queried), cudaGraphGetNodes/RootNodes/Edges, cudaGraphNodeGetType and
 * cudaGraphDebugDotPrint. Node kinds and their parameters are graph_nodes.c's.
 * Graph and node handles are looked up in the handle table; a destroyed or unknown one is
 * cudaErrorInvalidValue, which is what an H100 with CUDA 13 answers for a destroyed graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/graph.h"

/* ---- graph allocations and conditional handles (shared, counted) ---- */
cr_galloc *wv_cr_galloc_new(cudart *r, size_t size) {
  wv_devptr d;
  cr_galloc *a = calloc(1, sizeof *a);
  if (!a || wv_malloc(r->vm, size ? size : 1, &d) != WV_OK) {
    free(a);
    return NULL;
  }
  a->dptr = (void *)(uintptr_t)d, a->size = size;
  a->next = r->gallocs;
  r->gallocs = a;
  return a;
}

cr_galloc *wv_cr_galloc_find(cudart *r, const void *dptr) {
  for (cr_galloc *a = r->gallocs; a; a = a->next)
    if (a->dptr == dptr) return a;
  return NULL;
}

/* The last node referring to it is gone: a live allocation becomes ordinary device memory (cudaFree
 * releases it), else the memory goes now. */
static void galloc_unref(cudart *r, cr_galloc *a) {
  if (--a->refs) return;
  cr_alloc *t = a->live ? wv_cr_alloc_find(r, a->dptr) : NULL;
  if (t) t->galloc = NULL;
  else wv_free(r->vm, (wv_devptr)(uintptr_t)a->dptr);
  for (cr_galloc **p = &r->gallocs; *p; p = &(*p)->next)
    if (*p == a) {
      *p = a->next;
      break;
    }
  free(a);
}

void wv_cr_galloc_dead(cudart *r, cr_galloc *a) {
  (void)r;
  a->live = 0;
}

static void cond_unref(cudart *r, cr_cond *c) {
  if (--c->refs) return;
  wv_free(r->vm, c->cell);
  free(c);
}

/* ---- ops ---- */
void wv_cr_op_free(cudart *r, cr_op *op) {
  switch (op->kind) {
  case OP_KERNEL:
    free(op->u.k.blob);
    free(op->u.k.args);
    break;
  case OP_GRAPH:
    if (op->u.child.g) wv_cr_graph_free(r, op->u.child.g);
    break;
  case OP_MEM_ALLOC: galloc_unref(r, op->u.alloc.a); break;
  case OP_COND:
    for (unsigned i = 0; op->u.cond.body && i < op->u.cond.size; i++)
      if (op->u.cond.body[i]) wv_cr_graph_free(r, op->u.cond.body[i]);
    free(op->u.cond.body);
    free(op->u.cond.hbody);
    cond_unref(r, op->u.cond.c);
    break;
  default: break;
  }
  op->kind = OP_EMPTY;
}

/* Give a kernel op its own copy of the argument values (sized from the PTX parameter list). */
static int own_args(cr_op *op, void *const *src) {
  const wv_kernel *k = op->u.k.f->k;
  uint32_t n = wv_kernel_param_count(k), bytes = 0;
  for (uint32_t i = 0; i < n; i++) {
    wv_param_info p = wv_kernel_param(k, i);
    if (p.offset + p.size > bytes) bytes = p.offset + p.size;
  }
  op->u.k.blob = calloc(1, bytes ? bytes : 1);
  op->u.k.args = calloc(n ? n : 1, sizeof(void *));
  if (!op->u.k.blob || !op->u.k.args) return -1;
  for (uint32_t i = 0; i < n; i++) {
    wv_param_info p = wv_kernel_param(k, i);
    memcpy(op->u.k.blob + p.offset, src[i], p.size);
    op->u.k.args[i] = op->u.k.blob + p.offset;
  }
  op->u.k.nargs = n;
  return 0;
}

cudaError_t wv_cr_op_copy(cudart *r, cr_op *dst, const cr_op *src, int pub) {
  *dst = *src;
  switch (src->kind) {
  case OP_KERNEL:
    dst->u.k.blob = NULL, dst->u.k.args = NULL;
    if (!src->u.k.args && wv_kernel_param_count(src->u.k.f->k)) {
      dst->kind = OP_EMPTY;
      return cudaErrorInvalidValue; /* a launch without its arguments */
    }
    if (!own_args(dst, src->u.k.args)) return cudaSuccess;
    break;
  case OP_GRAPH:
    if ((dst->u.child.g = wv_cr_graph_clone(r, src->u.child.g, pub))) return cudaSuccess;
    break;
  case OP_MEM_ALLOC: src->u.alloc.a->refs++; return cudaSuccess;
  case OP_COND: {
    unsigned n = src->u.cond.size;
    src->u.cond.c->refs++;
    dst->u.cond.body = calloc(n, sizeof *dst->u.cond.body);
    dst->u.cond.hbody = calloc(n, sizeof *dst->u.cond.hbody);
    if (!dst->u.cond.body || !dst->u.cond.hbody) break;
    for (unsigned i = 0; i < n; i++) {
      if (!(dst->u.cond.body[i] = wv_cr_graph_clone(r, src->u.cond.body[i], pub))) goto fail;
      dst->u.cond.hbody[i] = dst->u.cond.body[i]->self;
    }
    return cudaSuccess;
  }
  default: return cudaSuccess;
  }
fail:
  wv_cr_op_free(r, dst);
  return cudaErrorMemoryAllocation;
}

/* ---- graphs ---- */
cr_graph *wv_cr_graph_new(cudart *r, int pub) {
  cr_graph *g = calloc(1, sizeof *g);
  if (g && pub && !(g->self = wv_cr_handle_new(r, WV_H_GRAPH, g))) {
    free(g);
    return NULL;
  }
  return g;
}

static void node_free(cudart *r, cr_node *nd) {
  wv_cr_op_free(r, &nd->op);
  if (nd->self) wv_cr_handle_drop(r, nd->self);
  free(nd->deps);
  free(nd->edata);
  free(nd);
}

static void order_drop(cr_graph *g) {
  free(g->order);
  g->order = NULL;
}

void wv_cr_graph_free(cudart *r, cr_graph *g) {
  if (g->origin) { /* a capture still records into it: every stream leaves */
    uint32_t i = 0;
    for (cr_stream *s; (s = wv_cr_handle_next(r, WV_H_STREAM, &i, NULL));)
      if (s->capture == g) s->capture = NULL, s->ndeps = 0;
  }
  for (uint32_t i = 0; i < g->n; i++) node_free(r, g->nodes[i]);
  for (uint32_t i = 0; i < g->nconds; i++) cond_unref(r, g->conds[i]);
  if (g->self) wv_cr_handle_drop(r, g->self);
  order_drop(g);
  free(g->nodes);
  free(g->conds);
  free(g);
}

cudaError_t wv_cr_graph_get(cudart *r, cudaGraph_t h, const char *api, cr_graph **out) {
  if ((*out = wv_cr_handle_obj(r, WV_H_GRAPH, h))) return cudaSuccess;
  return wv_cr_bad_handle(r, api, WV_H_GRAPH, h, cudaErrorInvalidValue);
}

cudaError_t wv_cr_node_get(cudart *r, cudaGraphNode_t h, const char *api, cr_node **out) {
  if ((*out = wv_cr_handle_obj(r, WV_H_NODE, h))) return cudaSuccess;
  return wv_cr_bad_handle(r, api, WV_H_NODE, h, cudaErrorInvalidValue);
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return 0;
  uint32_t nc = *cap ? *cap : 4;
  while (nc < need) nc *= 2;
  void *n = realloc(*p, (size_t)nc * elem);
  if (!n) return -1;
  *p = n;
  *cap = nc;
  return 0;
}

static int has_dep(const cr_node *nd, const cr_node *d) {
  for (uint32_t i = 0; i < nd->ndeps; i++)
    if (nd->deps[i] == d) return 1;
  return 0;
}

static cudaError_t dep_add(cr_node *nd, cr_node *d, const cudaGraphEdgeData *ed) {
  uint32_t cap = nd->capdeps;
  if (grow((void **)&nd->deps, &cap, nd->ndeps + 1, sizeof *nd->deps) ||
      grow((void **)&nd->edata, &nd->capdeps, nd->ndeps + 1, sizeof *nd->edata))
    return cudaErrorMemoryAllocation;
  nd->deps[nd->ndeps] = d;
  nd->edata[nd->ndeps++] = ed ? *ed : (cudaGraphEdgeData){0};
  order_drop(nd->g);
  return cudaSuccess;
}

static void adopt(cr_node *nd) { /* the graphs the node's op owns belong to it */
  if (nd->op.kind == OP_GRAPH) nd->op.u.child.g->parent = nd;
  if (nd->op.kind == OP_COND)
    for (unsigned i = 0; i < nd->op.u.cond.size; i++) nd->op.u.cond.body[i]->parent = nd;
}

/* Moves *op into a new node of g (op is consumed, also on failure). */
static cudaError_t node_new(cudart *r, cr_graph *g, cr_op *op, cr_node **out) {
  cr_node *nd = calloc(1, sizeof *nd);
  if (!nd || grow((void **)&g->nodes, &g->cap, g->n + 1, sizeof *g->nodes) ||
      (g->self && !(nd->self = wv_cr_handle_new(r, WV_H_NODE, nd)))) {
    free(nd);
    wv_cr_op_free(r, op);
    return cudaErrorMemoryAllocation;
  }
  nd->op = *op;
  nd->g = g;
  nd->idx = g->n;
  g->nodes[g->n++] = nd;
  order_drop(g);
  adopt(nd);
  *out = nd;
  return cudaSuccess;
}

/* Moves *op into a new node of g after deps (op is consumed, also on failure). */
cudaError_t wv_cr_node_add(cudart *r, cr_graph *g, const cr_op *op, cr_node *const *deps,
                           const cudaGraphEdgeData *ed, uint32_t ndeps, cr_node **out) {
  cr_op own = *op;
  cr_node *nd = NULL;
  cudaError_t e = node_new(r, g, &own, &nd);
  for (uint32_t i = 0; !e && i < ndeps; i++) e = dep_add(nd, deps[i], ed ? &ed[i] : NULL);
  if (e && nd) {
    g->n--;
    node_free(r, nd);
  }
  if (!e && out) *out = nd;
  return e;
}

cr_graph *wv_cr_graph_clone(cudart *r, const cr_graph *src, int pub) {
  cr_graph *g = wv_cr_graph_new(r, pub);
  if (!g) return NULL;
  for (uint32_t i = 0; i < src->n; i++) { /* the nodes, then the edges (a node may depend on a later one) */
    const cr_node *s = src->nodes[i];
    cr_op op;
    cr_node *nd;
    if (wv_cr_op_copy(r, &op, &s->op, pub) || node_new(r, g, &op, &nd)) goto fail;
    nd->orig = s->self ? s->self : s->orig;
    nd->disabled = s->disabled;
  }
  for (uint32_t i = 0; i < src->n; i++)
    for (uint32_t j = 0; j < src->nodes[i]->ndeps; j++)
      if (dep_add(g->nodes[i], g->nodes[src->nodes[i]->deps[j]->idx], &src->nodes[i]->edata[j])) goto fail;
  if (src->nconds && !(g->conds = malloc(src->nconds * sizeof *g->conds))) goto fail;
  for (uint32_t i = 0; i < src->nconds; i++) (g->conds[i] = src->conds[i])->refs++;
  g->nconds = g->capconds = src->nconds;
  return g;
fail:
  wv_cr_graph_free(r, g);
  return NULL;
}

/* Kahn's algorithm, ready nodes taken in creation order: a chain runs in the order it was built. */
cr_node **wv_cr_graph_order(cr_graph *g) {
  if (g->order || !g->n) return g->order ? g->order : (g->order = calloc(1, sizeof *g->order));
  uint32_t n = g->n, nedges = 0;
  for (uint32_t i = 0; i < n; i++) nedges += g->nodes[i]->ndeps;
  uint32_t *indeg = calloc(n, sizeof *indeg), *start = calloc(n + 1, sizeof *start);
  uint32_t *fill = calloc(n + 1, sizeof *fill), *succ = malloc((nedges + 1) * sizeof *succ);
  cr_node **order = malloc(n * sizeof *order);
  if (indeg && start && fill && succ && order) {
    for (uint32_t v = 0; v < n; v++)
      for (uint32_t j = 0; j < g->nodes[v]->ndeps; j++) start[g->nodes[v]->deps[j]->idx + 1]++, indeg[v]++;
    for (uint32_t u = 0; u < n; u++) start[u + 1] += start[u], fill[u] = start[u];
    for (uint32_t v = 0; v < n; v++)
      for (uint32_t j = 0; j < g->nodes[v]->ndeps; j++) succ[fill[g->nodes[v]->deps[j]->idx]++] = v;
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < n; v++)
      if (!indeg[v]) order[tail++] = g->nodes[v];
    while (head < tail) {
      uint32_t u = order[head++]->idx;
      for (uint32_t k = start[u]; k < start[u + 1]; k++)
        if (!--indeg[succ[k]]) order[tail++] = g->nodes[succ[k]];
    }
    if (tail == n) g->order = order, order = NULL; /* else a cycle */
  }
  free(indeg), free(start), free(fill), free(succ), free(order);
  return g->order;
}

int wv_cr_graph_has_kind(const cr_graph *g, cr_op_kind k) {
  for (uint32_t i = 0; i < g->n; i++) {
    const cr_op *op = &g->nodes[i]->op;
    if (op->kind == k) return 1;
    if (op->kind == OP_GRAPH && wv_cr_graph_has_kind(op->u.child.g, k)) return 1;
    for (unsigned b = 0; op->kind == OP_COND && b < op->u.cond.size; b++)
      if (wv_cr_graph_has_kind(op->u.cond.body[b], k)) return 1;
  }
  return 0;
}

int wv_cr_graph_restricted(const cr_graph *g) {
  return wv_cr_graph_has_kind(g, OP_MEM_ALLOC) || wv_cr_graph_has_kind(g, OP_MEM_FREE) ||
         wv_cr_graph_has_kind(g, OP_COND);
}

/* ---- the structural API ---- */
WV_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *out, unsigned int flags) {
  cudart *r = wv_cr();
  if (!out || flags) return wv_cr_ret(cudaErrorInvalidValue);
  cr_graph *g = wv_cr_graph_new(r, 1);
  if (!g) return wv_cr_ret(cudaErrorMemoryAllocation);
  *out = g->self;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t h) {
  cudart *r = wv_cr();
  cr_graph *g;
  cudaError_t e = wv_cr_graph_get(r, h, "cudaGraphDestroy", &g);
  if (e) return wv_cr_ret(e);
  if (g->origin) return wv_cr_ret(cudaErrorStreamCaptureUnsupported); /* a capture still records into it */
  if (g->parent) return wv_cr_ret(cudaErrorInvalidValue);             /* its node owns it */
  wv_cr_graph_free(r, g);
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t h) {
  cudart *r = wv_cr();
  cr_graph *g;
  cudaError_t e = wv_cr_graph_get(r, h, "cudaGraphClone", &g);
  if (e || !out || wv_cr_graph_restricted(g)) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  cr_graph *c = wv_cr_graph_clone(r, g, 1);
  if (!c) return wv_cr_ret(cudaErrorMemoryAllocation);
  *out = c->self;
  return wv_cr_ret(cudaSuccess);
}

cr_node *wv_cr_graph_find_orig(const cr_graph *g, const void *orig) {
  for (uint32_t i = 0; i < g->n; i++) {
    cr_node *nd = g->nodes[i], *f = NULL;
    if (nd->orig == orig) return nd;
    if (nd->op.kind == OP_GRAPH) f = wv_cr_graph_find_orig(nd->op.u.child.g, orig);
    for (unsigned b = 0; !f && nd->op.kind == OP_COND && b < nd->op.u.cond.size; b++)
      f = wv_cr_graph_find_orig(nd->op.u.cond.body[b], orig);
    if (f) return f;
  }
  return NULL;
}

WV_EXPORT cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *out, cudaGraphNode_t orig, cudaGraph_t hclone) {
  cudart *r = wv_cr();
  cr_graph *g;
  cr_node *nd;
  cudaError_t e = wv_cr_graph_get(r, hclone, "cudaGraphNodeFindInClone", &g);
  if (!e) e = wv_cr_node_get(r, orig, "cudaGraphNodeFindInClone", &nd);
  if (e || !out) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  cr_node *c = wv_cr_graph_find_orig(g, orig);
  if (!c) return wv_cr_ret(cudaErrorInvalidValue);
  *out = c->self;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGraphDestroyNode(cudaGraphNode_t h) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = wv_cr_node_get(r, h, "cudaGraphDestroyNode", &nd);
  if (e) return wv_cr_ret(e);
  cr_graph *g = nd->g;
  for (uint32_t i = 0; i < g->n; i++) { /* its edges go with it */
    cr_node *o = g->nodes[i];
    uint32_t k = 0;
    for (uint32_t j = 0; j < o->ndeps; j++)
      if (o->deps[j] != nd) o->edata[k] = o->edata[j], o->deps[k++] = o->deps[j];
    o->ndeps = k;
  }
  memmove(&g->nodes[nd->idx], &g->nodes[nd->idx + 1], (g->n - nd->idx - 1) * sizeof *g->nodes);
  g->n--;
  for (uint32_t i = nd->idx; i < g->n; i++) g->nodes[i]->idx = i;
  order_drop(g);
  node_free(r, nd);
  return wv_cr_ret(cudaSuccess);
}

/* from[i] -> to[i]: nodes of g, not the same node; an edge added twice (or removed when absent) is
 * cudaErrorInvalidValue. */
static cudaError_t edges_change(cudaGraph_t h, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                const cudaGraphEdgeData *ed, size_t n, int add, const char *api) {
  cudart *r = wv_cr();
  cr_graph *g;
  cudaError_t e = wv_cr_graph_get(r, h, api, &g);
  if (e) return wv_cr_ret(e);
  if (n && (!from || !to)) return wv_cr_ret(cudaErrorInvalidValue);
  for (size_t i = 0; i < n && !e; i++) {
    cr_node *a, *b;
    if ((e = wv_cr_node_get(r, from[i], api, &a)) || (e = wv_cr_node_get(r, to[i], api, &b))) break;
    if (a->g != g || b->g != g || a == b || has_dep(b, a) != !add) {
      e = cudaErrorInvalidValue;
      break;
    }
    if (add) {
      e = dep_add(b, a, ed ? &ed[i] : NULL);
      continue;
    }
    uint32_t k = 0;
    for (uint32_t j = 0; j < b->ndeps; j++)
      if (b->deps[j] != a) b->edata[k] = b->edata[j], b->deps[k++] = b->deps[j];
    b->ndeps = k;
    order_drop(g);
  }
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaGraphAddDependencies_v2(cudaGraph_t g, const cudaGraphNode_t *from,
                                                  const cudaGraphNode_t *to, const cudaGraphEdgeData *ed, size_t n) {
  return edges_change(g, from, to, ed, n, 1, "cudaGraphAddDependencies");
}
WV_EXPORT cudaError_t cudaGraphRemoveDependencies_v2(cudaGraph_t g, const cudaGraphNode_t *from,
                                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *ed,
                                                     size_t n) {
  return edges_change(g, from, to, ed, n, 0, "cudaGraphRemoveDependencies");
}
#if WV_CUDART_MAJOR >= 13
WV_EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                               const cudaGraphEdgeData *ed, size_t n) {
  return edges_change(g, from, to, ed, n, 1, "cudaGraphAddDependencies");
}
WV_EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                                  const cudaGraphNode_t *to, const cudaGraphEdgeData *ed, size_t n) {
  return edges_change(g, from, to, ed, n, 0, "cudaGraphRemoveDependencies");
}
#else
WV_EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                               size_t n) {
  return edges_change(g, from, to, NULL, n, 1, "cudaGraphAddDependencies");
}
WV_EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                                  const cudaGraphNode_t *to, size_t n) {
  return edges_change(g, from, to, NULL, n, 0, "cudaGraphRemoveDependencies");
}
#endif

/* The query convention: with an array, fill at most *n entries (NULL past the end) and set *n to
 * the count; without one, set *n. Edge data asked for is zero past the end too; not asked for, a
 * non-default edge makes the query cudaErrorLossyQuery. */
typedef struct listing {
  cudaGraphNode_t *a, *b;   /* the nodes (b: the edges' heads) */
  cudaGraphEdgeData *ed;
  size_t cap, n;
  int lossy;
} listing;

static void list_put(listing *l, const cr_node *a, const cr_node *b, const cudaGraphEdgeData *ed) {
  static const cudaGraphEdgeData zero;
  if (l->a && l->n < l->cap) {
    l->a[l->n] = a->self;
    if (l->b) l->b[l->n] = b->self;
    if (l->ed) l->ed[l->n] = ed ? *ed : zero;
  }
  if (!l->ed && ed && memcmp(ed, &zero, sizeof zero)) l->lossy = 1;
  l->n++;
}

static cudaError_t list_end(listing *l, size_t *n) {
  for (size_t i = l->n; l->a && i < l->cap; i++) {
    l->a[i] = NULL;
    if (l->b) l->b[i] = NULL;
    if (l->ed) memset(&l->ed[i], 0, sizeof *l->ed);
  }
  *n = l->n;
  return l->lossy ? cudaErrorLossyQuery : cudaSuccess;
}

static cudaError_t graph_nodes(cudaGraph_t h, cudaGraphNode_t *nodes, size_t *n, int roots, const char *api) {
  cudart *r = wv_cr();
  cr_graph *g;
  cudaError_t e = wv_cr_graph_get(r, h, api, &g);
  if (e || !n) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  listing l = {.a = nodes, .cap = *n};
  for (uint32_t i = 0; i < g->n; i++)
    if (!roots || !g->nodes[i]->ndeps) list_put(&l, g->nodes[i], NULL, NULL);
  return wv_cr_ret(list_end(&l, n));
}

WV_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  return graph_nodes(g, nodes, n, 0, "cudaGraphGetNodes");
}
WV_EXPORT cudaError_t cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  return graph_nodes(g, nodes, n, 1, "cudaGraphGetRootNodes");
}

static cudaError_t graph_edges(cudaGraph_t h, cudaGraphNode_t *from, cudaGraphNode_t *to, cudaGraphEdgeData *ed,
                               size_t *n) {
  cudart *r = wv_cr();
  cr_graph *g;
  cudaError_t e = wv_cr_graph_get(r, h, "cudaGraphGetEdges", &g);
  if (e || !n || !from != !to) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  listing l = {.a = from, .b = to, .ed = ed, .cap = *n};
  for (uint32_t i = 0; i < g->n; i++)
    for (uint32_t j = 0; j < g->nodes[i]->ndeps; j++)
      list_put(&l, g->nodes[i]->deps[j], g->nodes[i], &g->nodes[i]->edata[j]);
  return wv_cr_ret(list_end(&l, n));
}

/* Incoming (deps) or outgoing edges of one node. */
static cudaError_t node_edges(cudaGraphNode_t h, cudaGraphNode_t *out, cudaGraphEdgeData *ed, size_t *n, int in,
                              const char *api) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = wv_cr_node_get(r, h, api, &nd);
  if (e || !n) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  listing l = {.a = out, .ed = ed, .cap = *n};
  if (in)
    for (uint32_t j = 0; j < nd->ndeps; j++) list_put(&l, nd->deps[j], NULL, &nd->edata[j]);
  else
    for (uint32_t i = 0; i < nd->g->n; i++)
      for (uint32_t j = 0; j < nd->g->nodes[i]->ndeps; j++)
        if (nd->g->nodes[i]->deps[j] == nd) list_put(&l, nd->g->nodes[i], NULL, &nd->g->nodes[i]->edata[j]);
  return wv_cr_ret(list_end(&l, n));
}

WV_EXPORT cudaError_t cudaGraphGetEdges_v2(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                           cudaGraphEdgeData *ed, size_t *n) {
  return graph_edges(g, from, to, ed, n);
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependencies_v2(cudaGraphNode_t h, cudaGraphNode_t *deps, cudaGraphEdgeData *ed,
                                                      size_t *n) {
  return node_edges(h, deps, ed, n, 1, "cudaGraphNodeGetDependencies");
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependentNodes_v2(cudaGraphNode_t h, cudaGraphNode_t *out, cudaGraphEdgeData *ed,
                                                        size_t *n) {
  return node_edges(h, out, ed, n, 0, "cudaGraphNodeGetDependentNodes");
}
#if WV_CUDART_MAJOR >= 13
WV_EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                        cudaGraphEdgeData *ed, size_t *n) {
  return graph_edges(g, from, to, ed, n);
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t h, cudaGraphNode_t *deps, cudaGraphEdgeData *ed,
                                                   size_t *n) {
  return node_edges(h, deps, ed, n, 1, "cudaGraphNodeGetDependencies");
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t h, cudaGraphNode_t *out, cudaGraphEdgeData *ed,
                                                     size_t *n) {
  return node_edges(h, out, ed, n, 0, "cudaGraphNodeGetDependentNodes");
}
#else
WV_EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to, size_t *n) {
  return graph_edges(g, from, to, NULL, n);
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t h, cudaGraphNode_t *deps, size_t *n) {
  return node_edges(h, deps, NULL, n, 1, "cudaGraphNodeGetDependencies");
}
WV_EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t h, cudaGraphNode_t *out, size_t *n) {
  return node_edges(h, out, NULL, n, 0, "cudaGraphNodeGetDependentNodes");
}
#endif

static const char *const KIND_NAME[] = {
    [OP_KERNEL] = "KERNEL", [OP_MEMCPY] = "MEMCPY", [OP_MEMCPY3D] = "MEMCPY", [OP_MEMSET] = "MEMSET",
    [OP_HOST] = "HOST", [OP_EVENT_RECORD] = "EVENT_RECORD", [OP_EVENT_WAIT] = "WAIT_EVENT", [OP_EMPTY] = "EMPTY",
    [OP_GRAPH] = "CHILD_GRAPH", [OP_MEM_ALLOC] = "MEM_ALLOC", [OP_MEM_FREE] = "MEM_FREE", [OP_COND] = "CONDITIONAL"};

static const int NODE_TYPE[] = {
    [OP_KERNEL] = cudaGraphNodeTypeKernel, [OP_MEMCPY] = cudaGraphNodeTypeMemcpy,
    [OP_MEMCPY3D] = cudaGraphNodeTypeMemcpy, [OP_MEMSET] = cudaGraphNodeTypeMemset,
    [OP_HOST] = cudaGraphNodeTypeHost, [OP_EVENT_RECORD] = cudaGraphNodeTypeEventRecord,
    [OP_EVENT_WAIT] = cudaGraphNodeTypeWaitEvent, [OP_EMPTY] = cudaGraphNodeTypeEmpty,
    [OP_GRAPH] = cudaGraphNodeTypeGraph, [OP_MEM_ALLOC] = cudaGraphNodeTypeMemAlloc,
    [OP_MEM_FREE] = cudaGraphNodeTypeMemFree, [OP_COND] = cudaGraphNodeTypeConditional};

int wv_cr_node_type(cr_op_kind k) { return NODE_TYPE[k]; }

cudaError_t wv_cr_node_set_op(cudart *r, cr_node *nd, cr_op *op) {
  if (NODE_TYPE[op->kind] != NODE_TYPE[nd->op.kind]) {
    wv_cr_op_free(r, op);
    return cudaErrorInvalidValue;
  }
  wv_cr_op_free(r, &nd->op);
  nd->op = *op;
  adopt(nd);
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t h, enum cudaGraphNodeType *type) {
  cudart *r = wv_cr();
  cr_node *nd;
  cudaError_t e = wv_cr_node_get(r, h, "cudaGraphNodeGetType", &nd);
  if (e || !type) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  *type = (enum cudaGraphNodeType)NODE_TYPE[nd->op.kind];
  return wv_cr_ret(cudaSuccess);
}

/* ---- cudaGraphDebugDotPrint: one cluster per graph, a node per node, an edge per dependency ---- */
static void dot_graph(FILE *f, const cr_graph *g, unsigned *id, const char *title) {
  unsigned base = *id;
  *id += g->n;
  fprintf(f, "subgraph cluster_%u {\nlabel=\"%s\";\n", base, title);
  for (uint32_t i = 0; i < g->n; i++) {
    const cr_op *op = &g->nodes[i]->op;
    fprintf(f, "n%u [shape=box, label=\"%u: %s", base + i, i, KIND_NAME[op->kind]);
    if (op->kind == OP_KERNEL)
      fprintf(f, "\\n%s\\n<<<(%u,%u,%u), (%u,%u,%u), %u>>>", op->u.k.f->name, op->u.k.grid.x, op->u.k.grid.y,
              op->u.k.grid.z, op->u.k.block.x, op->u.k.block.y, op->u.k.block.z, op->u.k.shared);
    if (op->kind == OP_MEMCPY) fprintf(f, "\\n%zu bytes", op->u.cp.n);
    if (op->kind == OP_MEMSET)
      fprintf(f, "\\n%zu x %zu elements of %u bytes", op->u.set.width, op->u.set.height, op->u.set.esize);
    if (op->kind == OP_MEM_ALLOC) fprintf(f, "\\n%zu bytes", op->u.alloc.a->size);
    fprintf(f, "\"];\n");
    for (uint32_t j = 0; j < g->nodes[i]->ndeps; j++)
      fprintf(f, "n%u -> n%u;\n", base + g->nodes[i]->deps[j]->idx, base + i);
  }
  fprintf(f, "}\n");
  for (uint32_t i = 0; i < g->n; i++) {
    const cr_op *op = &g->nodes[i]->op;
    char t[64];
    if (op->kind == OP_GRAPH) {
      snprintf(t, sizeof t, "child graph of node %u", i);
      dot_graph(f, op->u.child.g, id, t);
    }
    for (unsigned b = 0; op->kind == OP_COND && b < op->u.cond.size; b++) {
      snprintf(t, sizeof t, "body %u of conditional node %u", b, i);
      dot_graph(f, op->u.cond.body[b], id, t);
    }
  }
}

WV_EXPORT cudaError_t cudaGraphDebugDotPrint(cudaGraph_t h, const char *path, unsigned int flags) {
  (void)flags;
  cudart *r = wv_cr();
  cr_graph *g;
  cudaError_t e = wv_cr_graph_get(r, h, "cudaGraphDebugDotPrint", &g);
  if (e || !path) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  FILE *f = fopen(path, "w");
  if (!f) return wv_cr_ret(cudaErrorOperatingSystem);
  unsigned id = 0;
  fprintf(f, "digraph warpvm_graph {\ncompound=true;\n");
  dot_graph(f, g, &id, "graph");
  fprintf(f, "}\n");
  return wv_cr_ret(fclose(f) ? cudaErrorOperatingSystem : cudaSuccess);
}

void wv_cr_graphs_reset(cudart *r) {
  uint32_t i = 0;
  void *h;
  for (cr_exec *x; (x = wv_cr_handle_next(r, WV_H_EXEC, &i, &h));) {
    wv_cr_graph_free(r, x->g);
    wv_cr_handle_drop(r, h);
    free(x);
  }
  i = 0; /* top-level graphs: each frees the graphs its nodes own */
  for (cr_graph *g; (g = wv_cr_handle_next(r, WV_H_GRAPH, &i, NULL));)
    if (!g->parent) wv_cr_graph_free(r, g);
}
