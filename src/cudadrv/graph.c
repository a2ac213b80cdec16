/*
 * graph.c — CUDA graphs as objects (graph.h says what they are): creating, copying and destroying
 * graphs, nodes and edges, the ops nodes own (deep copies: kernel argument values, child graphs,
 * conditional bodies; shared references: graph allocations, conditional handles), topological order,
 * and the structural API: cuGraphCreate/Destroy/Clone, cuGraphNodeFindInClone, cuGraphDestroyNode,
 * dependencies (added, removed, queried), cuGraphGetNodes/RootNodes/Edges, cuGraphNodeGetType and
 * cuGraphDebugDotPrint. Node kinds and their parameters are graph_nodes.c's.
 * Graph and node handles are looked up in the handle table; a destroyed or unknown one is
 * CUDA_ERROR_INVALID_VALUE, which is what an H100 with CUDA 13 answers for a destroyed graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/graph.h"

/* ---- graph allocations and conditional handles (shared, counted) ---- */
cu_galloc *cu_galloc_new(cu_driver *d, size_t size) {
  wv_devptr p;
  cu_galloc *a = calloc(1, sizeof *a);
  if (!a || wv_malloc(d->vm, size ? size : 1, &p) != WV_OK) {
    free(a);
    return NULL;
  }
  a->dptr = p, a->size = size;
  a->next = d->gallocs;
  d->gallocs = a;
  cu_graph_mem_note(d);
  return a;
}

cu_galloc *cu_galloc_find(cu_driver *d, CUdeviceptr dptr) {
  for (cu_galloc *a = d->gallocs; a; a = a->next)
    if (a->dptr == dptr) return a;
  return NULL;
}

/* The last node referring to it is gone: a live allocation becomes ordinary device memory (cuMemFree
 * releases it), else the memory goes now. */
static void galloc_unref(cu_driver *d, cu_galloc *a) {
  if (--a->refs) return;
  cu_alloc *t = a->live ? cu_alloc_find(d, a->dptr) : NULL;
  if (t) t->galloc = NULL;
  else wv_free(d->vm, (wv_devptr)a->dptr);
  for (cu_galloc **p = &d->gallocs; *p; p = &(*p)->next)
    if (*p == a) {
      *p = a->next;
      break;
    }
  free(a);
}

void cu_galloc_dead(cu_driver *d, cu_galloc *a) {
  (void)d;
  a->live = 0;
}

static void cond_unref(cu_driver *d, cu_cond *c) {
  if (--c->refs) return;
  wv_free(d->vm, c->cell);
  free(c);
}

/* ---- ops ---- */
void cu_op_free(cu_driver *d, cu_op *op) {
  switch (op->kind) {
  case OP_KERNEL:
    free(op->u.k.blob);
    free(op->u.k.args);
    break;
  case OP_GRAPH:
    if (op->u.child.g) cu_graph_free(d, op->u.child.g);
    break;
  case OP_MEM_ALLOC: galloc_unref(d, op->u.alloc.a); break;
  case OP_COND:
    for (unsigned i = 0; op->u.cond.body && i < op->u.cond.size; i++)
      if (op->u.cond.body[i]) cu_graph_free(d, op->u.cond.body[i]);
    free(op->u.cond.body);
    free(op->u.cond.hbody);
    cond_unref(d, op->u.cond.c);
    break;
  default: break;
  }
  op->kind = OP_EMPTY;
}

/* Give a kernel op its own copy of the argument values (sized from the PTX parameter list). */
static int own_args(cu_op *op, void *const *src) {
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

CUresult cu_op_copy(cu_driver *d, cu_op *dst, const cu_op *src, int pub) {
  *dst = *src;
  switch (src->kind) {
  case OP_KERNEL:
    dst->u.k.blob = NULL, dst->u.k.args = NULL;
    if (!src->u.k.args && wv_kernel_param_count(src->u.k.f->k)) {
      dst->kind = OP_EMPTY;
      return CUDA_ERROR_INVALID_VALUE; /* a launch without its arguments */
    }
    if (!own_args(dst, src->u.k.args)) return CUDA_SUCCESS;
    break;
  case OP_GRAPH:
    if ((dst->u.child.g = cu_graph_clone(d, src->u.child.g, pub))) return CUDA_SUCCESS;
    break;
  case OP_MEM_ALLOC: src->u.alloc.a->refs++; return CUDA_SUCCESS;
  case OP_COND: {
    unsigned n = src->u.cond.size;
    src->u.cond.c->refs++;
    dst->u.cond.body = calloc(n, sizeof *dst->u.cond.body);
    dst->u.cond.hbody = calloc(n, sizeof *dst->u.cond.hbody);
    if (!dst->u.cond.body || !dst->u.cond.hbody) break;
    for (unsigned i = 0; i < n; i++) {
      if (!(dst->u.cond.body[i] = cu_graph_clone(d, src->u.cond.body[i], pub))) goto fail;
      dst->u.cond.hbody[i] = dst->u.cond.body[i]->self;
    }
    return CUDA_SUCCESS;
  }
  default: return CUDA_SUCCESS;
  }
fail:
  cu_op_free(d, dst);
  return CUDA_ERROR_OUT_OF_MEMORY;
}

/* ---- graphs ---- */
cu_graph *cu_graph_new(cu_driver *d, int pub) {
  cu_graph *g = calloc(1, sizeof *g);
  if (g && pub && !(g->self = cu_handle_new(d, CU_H_GRAPH, g))) {
    free(g);
    return NULL;
  }
  return g;
}

static void node_free(cu_driver *d, cu_node *nd) {
  cu_op_free(d, &nd->op);
  if (nd->self) cu_handle_drop(d, nd->self);
  free(nd->deps);
  free(nd->edata);
  free(nd);
}

static void order_drop(cu_graph *g) {
  free(g->order);
  g->order = NULL;
}

void cu_graph_free(cu_driver *d, cu_graph *g) {
  if (g->origin) { /* a capture still records into it: every stream leaves */
    uint32_t i = 0;
    for (cu_stream *s; (s = cu_handle_next(d, CU_H_STREAM, &i, NULL));)
      if (s->capture == g) s->capture = NULL, s->ndeps = 0;
  }
  for (uint32_t i = 0; i < g->n; i++) node_free(d, g->nodes[i]);
  for (uint32_t i = 0; i < g->nconds; i++) cond_unref(d, g->conds[i]);
  if (g->self) cu_handle_drop(d, g->self);
  order_drop(g);
  free(g->nodes);
  free(g->conds);
  free(g);
}

CUresult cu_graph_get(cu_driver *d, void *h, const char *api, cu_graph **out) {
  if ((*out = cu_handle_obj(d, CU_H_GRAPH, h))) return CUDA_SUCCESS;
  return cu_bad_handle(d, api, CU_H_GRAPH, h, CUDA_ERROR_INVALID_VALUE);
}

CUresult cu_node_get(cu_driver *d, void *h, const char *api, cu_node **out) {
  if ((*out = cu_handle_obj(d, CU_H_NODE, h))) return CUDA_SUCCESS;
  return cu_bad_handle(d, api, CU_H_NODE, h, CUDA_ERROR_INVALID_VALUE);
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

static int has_dep(const cu_node *nd, const cu_node *d) {
  for (uint32_t i = 0; i < nd->ndeps; i++)
    if (nd->deps[i] == d) return 1;
  return 0;
}

static CUresult dep_add(cu_node *nd, cu_node *d, const cu_edge *ed) {
  uint32_t cap = nd->capdeps;
  if (grow((void **)&nd->deps, &cap, nd->ndeps + 1, sizeof *nd->deps) ||
      grow((void **)&nd->edata, &nd->capdeps, nd->ndeps + 1, sizeof *nd->edata))
    return CUDA_ERROR_OUT_OF_MEMORY;
  nd->deps[nd->ndeps] = d;
  nd->edata[nd->ndeps++] = ed ? *ed : (cu_edge){0};
  order_drop(nd->g);
  return CUDA_SUCCESS;
}

static void adopt(cu_node *nd) { /* the graphs the node's op owns belong to it */
  if (nd->op.kind == OP_GRAPH) nd->op.u.child.g->parent = nd;
  if (nd->op.kind == OP_COND)
    for (unsigned i = 0; i < nd->op.u.cond.size; i++) nd->op.u.cond.body[i]->parent = nd;
}

/* Moves *op into a new node of g (op is consumed, also on failure). */
static CUresult node_new(cu_driver *d, cu_graph *g, cu_op *op, cu_node **out) {
  cu_node *nd = calloc(1, sizeof *nd);
  if (!nd || grow((void **)&g->nodes, &g->cap, g->n + 1, sizeof *g->nodes) ||
      (g->self && !(nd->self = cu_handle_new(d, CU_H_NODE, nd)))) {
    free(nd);
    cu_op_free(d, op);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  nd->op = *op;
  nd->g = g;
  nd->idx = g->n;
  g->nodes[g->n++] = nd;
  order_drop(g);
  adopt(nd);
  *out = nd;
  return CUDA_SUCCESS;
}

/* Moves *op into a new node of g after deps (op is consumed, also on failure). */
CUresult cu_node_add(cu_driver *d, cu_graph *g, const cu_op *op, cu_node *const *deps,
                           const cu_edge *ed, uint32_t ndeps, cu_node **out) {
  cu_op own = *op;
  cu_node *nd = NULL;
  CUresult e = node_new(d, g, &own, &nd);
  for (uint32_t i = 0; !e && i < ndeps; i++) e = dep_add(nd, deps[i], ed ? &ed[i] : NULL);
  if (e && nd) {
    g->n--;
    node_free(d, nd);
  }
  if (!e && out) *out = nd;
  return e;
}

cu_graph *cu_graph_clone(cu_driver *d, const cu_graph *src, int pub) {
  cu_graph *g = cu_graph_new(d, pub);
  if (!g) return NULL;
  for (uint32_t i = 0; i < src->n; i++) { /* the nodes, then the edges (a node may depend on a later one) */
    const cu_node *s = src->nodes[i];
    cu_op op;
    cu_node *nd;
    if (cu_op_copy(d, &op, &s->op, pub) || node_new(d, g, &op, &nd)) goto fail;
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
  cu_graph_free(d, g);
  return NULL;
}

/* Kahn's algorithm, ready nodes taken in creation order: a chain runs in the order it was built. */
cu_node **cu_graph_order(cu_graph *g) {
  if (g->order || !g->n) return g->order ? g->order : (g->order = calloc(1, sizeof *g->order));
  uint32_t n = g->n, nedges = 0;
  for (uint32_t i = 0; i < n; i++) nedges += g->nodes[i]->ndeps;
  uint32_t *indeg = calloc(n, sizeof *indeg), *start = calloc(n + 1, sizeof *start);
  uint32_t *fill = calloc(n + 1, sizeof *fill), *succ = malloc((nedges + 1) * sizeof *succ);
  cu_node **order = malloc(n * sizeof *order);
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

int cu_graph_has_kind(const cu_graph *g, cu_op_kind k) {
  for (uint32_t i = 0; i < g->n; i++) {
    const cu_op *op = &g->nodes[i]->op;
    if (op->kind == k) return 1;
    if (op->kind == OP_GRAPH && cu_graph_has_kind(op->u.child.g, k)) return 1;
    for (unsigned b = 0; op->kind == OP_COND && b < op->u.cond.size; b++)
      if (cu_graph_has_kind(op->u.cond.body[b], k)) return 1;
  }
  return 0;
}

int cu_graph_restricted(const cu_graph *g) {
  return cu_graph_has_kind(g, OP_MEM_ALLOC) || cu_graph_has_kind(g, OP_MEM_FREE) ||
         cu_graph_has_kind(g, OP_COND);
}

/* ---- the structural API ---- */
CU_EXPORT CUresult cuGraphCreate(void **out, unsigned int flags) {
  cu_driver *d = cu_lock();
  if (!out || flags) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  cu_graph *g = cu_graph_new(d, 1);
  if (!g) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  *out = g->self;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuGraphDestroy(void *h) {
  cu_driver *d = cu_lock();
  cu_graph *g;
  CUresult e = cu_graph_get(d, h, "cuGraphDestroy", &g);
  if (e) return cu_ret(e);
  if (g->origin) return cu_ret(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED); /* a capture still records into it */
  if (g->parent) return cu_ret(CUDA_ERROR_INVALID_VALUE);             /* its node owns it */
  cu_graph_free(d, g);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuGraphClone(void **out, void *h) {
  cu_driver *d = cu_lock();
  cu_graph *g;
  CUresult e = cu_graph_get(d, h, "cuGraphClone", &g);
  if (e || !out || cu_graph_restricted(g)) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  cu_graph *c = cu_graph_clone(d, g, 1);
  if (!c) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  *out = c->self;
  return cu_ret(CUDA_SUCCESS);
}

cu_node *cu_graph_find_orig(const cu_graph *g, const void *orig) {
  for (uint32_t i = 0; i < g->n; i++) {
    cu_node *nd = g->nodes[i], *f = NULL;
    if (nd->orig == orig) return nd;
    if (nd->op.kind == OP_GRAPH) f = cu_graph_find_orig(nd->op.u.child.g, orig);
    for (unsigned b = 0; !f && nd->op.kind == OP_COND && b < nd->op.u.cond.size; b++)
      f = cu_graph_find_orig(nd->op.u.cond.body[b], orig);
    if (f) return f;
  }
  return NULL;
}

CU_EXPORT CUresult cuGraphNodeFindInClone(void **out, void *orig, void *hclone) {
  cu_driver *d = cu_lock();
  cu_graph *g;
  cu_node *nd;
  CUresult e = cu_graph_get(d, hclone, "cuGraphNodeFindInClone", &g);
  if (!e) e = cu_node_get(d, orig, "cuGraphNodeFindInClone", &nd);
  if (e || !out) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  cu_node *c = cu_graph_find_orig(g, orig);
  if (!c) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  *out = c->self;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuGraphDestroyNode(void *h) {
  cu_driver *d = cu_lock();
  cu_node *nd;
  CUresult e = cu_node_get(d, h, "cuGraphDestroyNode", &nd);
  if (e) return cu_ret(e);
  cu_graph *g = nd->g;
  for (uint32_t i = 0; i < g->n; i++) { /* its edges go with it */
    cu_node *o = g->nodes[i];
    uint32_t k = 0;
    for (uint32_t j = 0; j < o->ndeps; j++)
      if (o->deps[j] != nd) o->edata[k] = o->edata[j], o->deps[k++] = o->deps[j];
    o->ndeps = k;
  }
  memmove(&g->nodes[nd->idx], &g->nodes[nd->idx + 1], (g->n - nd->idx - 1) * sizeof *g->nodes);
  g->n--;
  for (uint32_t i = nd->idx; i < g->n; i++) g->nodes[i]->idx = i;
  order_drop(g);
  node_free(d, nd);
  return cu_ret(CUDA_SUCCESS);
}

/* from[i] -> to[i]: nodes of g, not the same node; an edge added twice (or removed when absent) is
 * CUDA_ERROR_INVALID_VALUE. */
static CUresult edges_change(void *h, void *const *from, void *const *to,
                                const cu_edge *ed, size_t n, int add, const char *api) {
  cu_driver *d = cu_lock();
  cu_graph *g;
  CUresult e = cu_graph_get(d, h, api, &g);
  if (e) return cu_ret(e);
  if (n && (!from || !to)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  for (size_t i = 0; i < n && !e; i++) {
    cu_node *a, *b;
    if ((e = cu_node_get(d, from[i], api, &a)) || (e = cu_node_get(d, to[i], api, &b))) break;
    if (a->g != g || b->g != g || a == b || has_dep(b, a) != !add) {
      e = CUDA_ERROR_INVALID_VALUE;
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
  return cu_ret(e);
}

CU_EXPORT CUresult cuGraphAddDependencies_v2(void *g, void *const *from, void *const *to, const cu_edge *ed,
                                            size_t n) {
  return edges_change(g, from, to, ed, n, 1, "cuGraphAddDependencies");
}
CU_EXPORT CUresult cuGraphRemoveDependencies_v2(void *g, void *const *from, void *const *to, const cu_edge *ed,
                                               size_t n) {
  return edges_change(g, from, to, ed, n, 0, "cuGraphRemoveDependencies");
}
CU_EXPORT CUresult cuGraphAddDependencies(void *g, void *const *from, void *const *to, size_t n) {
  return edges_change(g, from, to, NULL, n, 1, "cuGraphAddDependencies");
}
CU_EXPORT CUresult cuGraphRemoveDependencies(void *g, void *const *from, void *const *to, size_t n) {
  return edges_change(g, from, to, NULL, n, 0, "cuGraphRemoveDependencies");
}

/* The query convention: with an array, fill at most *n entries (NULL past the end) and set *n to
 * the count; without one, set *n. Edge data asked for is zero past the end too; not asked for, a
 * non-default edge makes the query CUDA_ERROR_LOSSY_QUERY. */
typedef struct listing {
  void **a, **b;  /* the nodes (b: the edges' heads) */
  cu_edge *ed;
  size_t cap, n;
  int lossy;
} listing;

static void list_put(listing *l, const cu_node *a, const cu_node *b, const cu_edge *ed) {
  static const cu_edge zero;
  if (l->a && l->n < l->cap) {
    l->a[l->n] = a->self;
    if (l->b) l->b[l->n] = b->self;
    if (l->ed) l->ed[l->n] = ed ? *ed : zero;
  }
  if (!l->ed && ed && memcmp(ed, &zero, sizeof zero)) l->lossy = 1;
  l->n++;
}

static CUresult list_end(listing *l, size_t *n) {
  for (size_t i = l->n; l->a && i < l->cap; i++) {
    l->a[i] = NULL;
    if (l->b) l->b[i] = NULL;
    if (l->ed) memset(&l->ed[i], 0, sizeof *l->ed);
  }
  *n = l->n;
  return l->lossy ? CUDA_ERROR_LOSSY_QUERY : CUDA_SUCCESS;
}

static CUresult graph_nodes(void *h, void **nodes, size_t *n, int roots, const char *api) {
  cu_driver *d = cu_lock();
  cu_graph *g;
  CUresult e = cu_graph_get(d, h, api, &g);
  if (e || !n) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  listing l = {.a = nodes, .cap = *n};
  for (uint32_t i = 0; i < g->n; i++)
    if (!roots || !g->nodes[i]->ndeps) list_put(&l, g->nodes[i], NULL, NULL);
  return cu_ret(list_end(&l, n));
}

CU_EXPORT CUresult cuGraphGetNodes(void *g, void **nodes, size_t *n) {
  return graph_nodes(g, nodes, n, 0, "cuGraphGetNodes");
}
CU_EXPORT CUresult cuGraphGetRootNodes(void *g, void **nodes, size_t *n) {
  return graph_nodes(g, nodes, n, 1, "cuGraphGetRootNodes");
}

static CUresult graph_edges(void *h, void **from, void **to, cu_edge *ed,
                               size_t *n) {
  cu_driver *d = cu_lock();
  cu_graph *g;
  CUresult e = cu_graph_get(d, h, "cuGraphGetEdges", &g);
  if (e || !n || !from != !to) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  listing l = {.a = from, .b = to, .ed = ed, .cap = *n};
  for (uint32_t i = 0; i < g->n; i++)
    for (uint32_t j = 0; j < g->nodes[i]->ndeps; j++)
      list_put(&l, g->nodes[i]->deps[j], g->nodes[i], &g->nodes[i]->edata[j]);
  return cu_ret(list_end(&l, n));
}

/* Incoming (deps) or outgoing edges of one node. */
static CUresult node_edges(void *h, void **out, cu_edge *ed, size_t *n, int in,
                              const char *api) {
  cu_driver *d = cu_lock();
  cu_node *nd;
  CUresult e = cu_node_get(d, h, api, &nd);
  if (e || !n) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  listing l = {.a = out, .ed = ed, .cap = *n};
  if (in)
    for (uint32_t j = 0; j < nd->ndeps; j++) list_put(&l, nd->deps[j], NULL, &nd->edata[j]);
  else
    for (uint32_t i = 0; i < nd->g->n; i++)
      for (uint32_t j = 0; j < nd->g->nodes[i]->ndeps; j++)
        if (nd->g->nodes[i]->deps[j] == nd) list_put(&l, nd->g->nodes[i], NULL, &nd->g->nodes[i]->edata[j]);
  return cu_ret(list_end(&l, n));
}

CU_EXPORT CUresult cuGraphGetEdges_v2(void *g, void **from, void **to, cu_edge *ed, size_t *n) {
  return graph_edges(g, from, to, ed, n);
}
CU_EXPORT CUresult cuGraphNodeGetDependencies_v2(void *h, void **deps, cu_edge *ed, size_t *n) {
  return node_edges(h, deps, ed, n, 1, "cuGraphNodeGetDependencies");
}
CU_EXPORT CUresult cuGraphNodeGetDependentNodes_v2(void *h, void **out, cu_edge *ed, size_t *n) {
  return node_edges(h, out, ed, n, 0, "cuGraphNodeGetDependentNodes");
}
CU_EXPORT CUresult cuGraphGetEdges(void *g, void **from, void **to, size_t *n) {
  return graph_edges(g, from, to, NULL, n);
}
CU_EXPORT CUresult cuGraphNodeGetDependencies(void *h, void **deps, size_t *n) {
  return node_edges(h, deps, NULL, n, 1, "cuGraphNodeGetDependencies");
}
CU_EXPORT CUresult cuGraphNodeGetDependentNodes(void *h, void **out, size_t *n) {
  return node_edges(h, out, NULL, n, 0, "cuGraphNodeGetDependentNodes");
}

static const char *const KIND_NAME[] = {
    [OP_KERNEL] = "KERNEL", [OP_MEMCPY] = "MEMCPY", [OP_MEMSET] = "MEMSET",
    [OP_HOST] = "HOST", [OP_EVENT_RECORD] = "EVENT_RECORD", [OP_EVENT_WAIT] = "WAIT_EVENT", [OP_EMPTY] = "EMPTY",
    [OP_GRAPH] = "CHILD_GRAPH", [OP_MEM_ALLOC] = "MEM_ALLOC", [OP_MEM_FREE] = "MEM_FREE", [OP_COND] = "CONDITIONAL"};

static const int NODE_TYPE[] = {
    [OP_KERNEL] = CU_NODE_KERNEL, [OP_MEMCPY] = CU_NODE_MEMCPY, [OP_MEMSET] = CU_NODE_MEMSET,
    [OP_HOST] = CU_NODE_HOST, [OP_EVENT_RECORD] = CU_NODE_EVENT_RECORD, [OP_EVENT_WAIT] = CU_NODE_WAIT_EVENT,
    [OP_EMPTY] = CU_NODE_EMPTY, [OP_GRAPH] = CU_NODE_GRAPH, [OP_MEM_ALLOC] = CU_NODE_MEM_ALLOC,
    [OP_MEM_FREE] = CU_NODE_MEM_FREE, [OP_COND] = CU_NODE_CONDITIONAL};

int cu_node_type(cu_op_kind k) { return NODE_TYPE[k]; }

CUresult cu_node_set_op(cu_driver *d, cu_node *nd, cu_op *op) {
  if (NODE_TYPE[op->kind] != NODE_TYPE[nd->op.kind]) {
    cu_op_free(d, op);
    return CUDA_ERROR_INVALID_VALUE;
  }
  cu_op_free(d, &nd->op);
  nd->op = *op;
  adopt(nd);
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuGraphNodeGetType(void *h, int *type) {
  cu_driver *d = cu_lock();
  cu_node *nd;
  CUresult e = cu_node_get(d, h, "cuGraphNodeGetType", &nd);
  if (e || !type) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  *type = NODE_TYPE[nd->op.kind];
  return cu_ret(CUDA_SUCCESS);
}

/* ---- cuGraphDebugDotPrint: one cluster per graph, a node per node, an edge per dependency ---- */
static void dot_graph(FILE *f, const cu_graph *g, unsigned *id, const char *title) {
  unsigned base = *id;
  *id += g->n;
  fprintf(f, "subgraph cluster_%u {\nlabel=\"%s\";\n", base, title);
  for (uint32_t i = 0; i < g->n; i++) {
    const cu_op *op = &g->nodes[i]->op;
    fprintf(f, "n%u [shape=box, label=\"%u: %s", base + i, i, KIND_NAME[op->kind]);
    if (op->kind == OP_KERNEL)
      fprintf(f, "\\n%s\\n<<<(%u,%u,%u), (%u,%u,%u), %u>>>", op->u.k.f->name, op->u.k.grid.x, op->u.k.grid.y,
              op->u.k.grid.z, op->u.k.block.x, op->u.k.block.y, op->u.k.block.z, op->u.k.shared);
    if (op->kind == OP_MEMCPY)
      fprintf(f, "\\n%zu x %zu x %zu bytes", op->u.cp.WidthInBytes, op->u.cp.Height, op->u.cp.Depth);
    if (op->kind == OP_MEMSET)
      fprintf(f, "\\n%zu x %zu elements of %u bytes", op->u.set.width, op->u.set.height, op->u.set.esize);
    if (op->kind == OP_MEM_ALLOC) fprintf(f, "\\n%zu bytes", op->u.alloc.a->size);
    fprintf(f, "\"];\n");
    for (uint32_t j = 0; j < g->nodes[i]->ndeps; j++)
      fprintf(f, "n%u -> n%u;\n", base + g->nodes[i]->deps[j]->idx, base + i);
  }
  fprintf(f, "}\n");
  for (uint32_t i = 0; i < g->n; i++) {
    const cu_op *op = &g->nodes[i]->op;
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

CU_EXPORT CUresult cuGraphDebugDotPrint(void *h, const char *path, unsigned int flags) {
  (void)flags;
  cu_driver *d = cu_lock();
  cu_graph *g;
  CUresult e = cu_graph_get(d, h, "cuGraphDebugDotPrint", &g);
  if (e || !path) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  FILE *f = fopen(path, "w");
  if (!f) return cu_ret(CUDA_ERROR_OPERATING_SYSTEM);
  unsigned id = 0;
  fprintf(f, "digraph warpvm_graph {\ncompound=true;\n");
  dot_graph(f, g, &id, "graph");
  fprintf(f, "}\n");
  return cu_ret(fclose(f) ? CUDA_ERROR_OPERATING_SYSTEM : CUDA_SUCCESS);
}

void cu_graphs_reset(cu_driver *d) {
  uint32_t i = 0;
  void *h;
  for (cu_exec *x; (x = cu_handle_next(d, CU_H_EXEC, &i, &h));) {
    cu_graph_free(d, x->g);
    cu_handle_drop(d, h);
    free(x);
  }
  i = 0; /* top-level graphs: each frees the graphs its nodes own */
  for (cu_graph *g; (g = cu_handle_next(d, CU_H_GRAPH, &i, NULL));)
    if (!g->parent) cu_graph_free(d, g);
}
