/*
 * capture.c — stream capture. While a stream captures (cudaStreamBeginCapture, or ...ToGraph into an
 * existing graph), its work becomes graph nodes instead of running: each op a node (its own copy,
 * kernel argument values included) that depends on the stream's current dependencies, and which then
 * becomes them. An event recorded in the capture remembers the stream's dependencies; a stream that
 * waits on it joins the capture (fork) or takes them on too (join). Such events make no nodes; those
 * recorded or waited on with cudaEventRecordExternal / cudaEventWaitExternal do. cudaMallocAsync and
 * cudaFreeAsync become alloc and free nodes. A forked stream must be joined back before the capture
 * ends — its dependencies must all lead into the origin stream's — or the capture fails with
 * cudaErrorStreamCaptureUnjoined, and every stream leaves the capture when it ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/graph.h"

/* ---- a stream's dependencies: node handles (dead ones are skipped) ---- */
static cudaError_t deps_reserve(cr_stream *s, uint32_t n) {
  if (n <= s->capdeps) return cudaSuccess;
  uint32_t nc = s->capdeps ? s->capdeps : 4;
  while (nc < n) nc *= 2;
  cudaGraphNode_t *d = realloc(s->deps, nc * sizeof *d);
  if (d) s->deps = d;
  cudaGraphEdgeData *ed = d ? realloc(s->dep_edges, nc * sizeof *ed) : NULL;
  if (!ed) return cudaErrorMemoryAllocation;
  s->dep_edges = ed;
  memset(ed, 0, nc * sizeof *ed);
  s->capdeps = nc;
  return cudaSuccess;
}

static cudaError_t deps_add(cr_stream *s, cudaGraphNode_t h) {
  for (uint32_t i = 0; i < s->ndeps; i++)
    if (s->deps[i] == h) return cudaSuccess;
  cudaError_t e = deps_reserve(s, s->ndeps + 1);
  if (!e) s->deps[s->ndeps++] = h;
  return e;
}

/* s's dependencies as nodes of its capture graph (*out: NULL when there are none). */
static cudaError_t deps_nodes(cudart *r, cr_stream *s, cr_node ***out, uint32_t *n) {
  *out = NULL, *n = 0;
  if (!s->ndeps) return cudaSuccess;
  if (!(*out = malloc(s->ndeps * sizeof **out))) return cudaErrorMemoryAllocation;
  for (uint32_t i = 0; i < s->ndeps; i++) {
    cr_node *nd = wv_cr_handle_obj(r, WV_H_NODE, s->deps[i]);
    if (nd && nd->g == s->capture) (*out)[(*n)++] = nd;
  }
  return cudaSuccess;
}

/* Add a node (taking op over) after s's dependencies; it becomes them. */
static cudaError_t capture_node(cudart *r, cr_stream *s, cr_op *op, cr_node **out) {
  cr_node **deps, *nd;
  uint32_t n;
  cudaError_t e = deps_nodes(r, s, &deps, &n);
  if (e) wv_cr_op_free(r, op);
  else e = wv_cr_node_add(r, s->capture, op, deps, NULL, n, &nd);
  free(deps);
  if (e) return e;
  s->ndeps = 0;
  if ((e = deps_add(s, nd->self))) return e;
  if (out) *out = nd;
  return cudaSuccess;
}

cudaError_t wv_cr_capture_op(cudart *r, cr_stream *s, const cr_op *op) {
  cr_op c;
  cudaError_t e = wv_cr_op_copy(r, &c, op, 1); /* kept in the graph, with its own copy of the argument values */
  return e ? e : capture_node(r, s, &c, NULL);
}

cudaError_t wv_cr_capture_record(cudart *r, cr_stream *s, cr_event *e) {
  (void)r;
  cudaGraphNode_t *d = s->ndeps ? malloc(s->ndeps * sizeof *d) : NULL;
  if (s->ndeps && !d) return cudaErrorMemoryAllocation;
  if (s->ndeps) memcpy(d, s->deps, s->ndeps * sizeof *d);
  free(e->deps);
  e->deps = d, e->ndeps = s->ndeps;
  e->cap_graph = s->capture->self;
  return cudaSuccess;
}

cudaError_t wv_cr_capture_wait(cudart *r, cr_stream *s, cr_event *e) {
  (void)r;
  cudaError_t err = cudaSuccess;
  for (uint32_t i = 0; i < e->ndeps && !err; i++) err = deps_add(s, e->deps[i]);
  return err;
}

cudaError_t wv_cr_capture_alloc(cudart *r, cr_stream *s, size_t n, void **p) {
  cr_galloc *a = wv_cr_galloc_new(r, n);
  if (!a) return cudaErrorMemoryAllocation;
  a->refs = 1; /* the op's */
  cr_op op = {.kind = OP_MEM_ALLOC, .u.alloc = {a}};
  *p = a->dptr;
  cudaError_t e = capture_node(r, s, &op, NULL);
  if (e) *p = NULL;
  return e;
}

cudaError_t wv_cr_capture_free(cudart *r, cr_stream *s, void *p) {
  if (!wv_cr_galloc_find(r, p)) return cudaErrorInvalidValue; /* only graph allocations can be freed in a graph */
  cr_op op = {.kind = OP_MEM_FREE, .u.free = {p}};
  return capture_node(r, s, &op, NULL);
}

/* ---- beginning and ending ---- */
/* Every stream recording into g leaves it (the capture ended or was abandoned). */
static void capture_end(cudart *r, cr_graph *g) {
  uint32_t i = 0;
  for (cr_stream *s; (s = wv_cr_handle_next(r, WV_H_STREAM, &i, NULL));)
    if (s->capture == g) s->capture = NULL, s->ndeps = 0;
  g->origin = NULL;
}

void wv_cr_capture_leave(cudart *r, cr_stream *s) {
  cr_graph *g = s->capture;
  if (!g) return;
  if (g->origin != s) {
    s->capture = NULL;
    return;
  }
  capture_end(r, g); /* its origin is gone: the capture is abandoned, and a graph it made with it */
  if (g->from_capture) wv_cr_graph_free(r, g);
}

static cudaError_t begin(cudaStream_t h, cudaGraph_t hg, const cudaGraphNode_t *deps, size_t n, const char *api) {
  cudart *r = wv_cr();
  cr_stream *s;
  cr_graph *g = NULL;
  cudaError_t e = wv_cr_stream_get(r, h, api, &s);
  if (!e && hg) e = wv_cr_graph_get(r, hg, api, &g);
  if (e) return wv_cr_ret(e);
  if (!s) return wv_cr_ret(cudaErrorStreamCaptureUnsupported);
  if (s->capture || (g && g->origin)) return wv_cr_ret(cudaErrorIllegalState);
  for (size_t i = 0; i < n; i++) {
    cr_node *nd = wv_cr_handle_obj(r, WV_H_NODE, deps ? deps[i] : NULL);
    if (!nd || nd->g != g) return wv_cr_ret(cudaErrorInvalidValue);
  }
  int made = !g;
  if (made && !(g = wv_cr_graph_new(r, 1))) return wv_cr_ret(cudaErrorMemoryAllocation);
  g->from_capture = made;
  s->ndeps = 0;
  for (size_t i = 0; i < n && !e; i++) e = deps_add(s, deps[i]);
  if (e) {
    if (g->from_capture) wv_cr_graph_free(r, g);
    return wv_cr_ret(e);
  }
  s->capture = g;
  g->origin = s;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t h, int mode) {
  (void)mode;
  return begin(h, NULL, NULL, 0, "cudaStreamBeginCapture");
}

WV_EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t h, cudaGraph_t g, const cudaGraphNode_t *deps,
                                                    const cudaGraphEdgeData *ed, size_t n, int mode) {
  (void)ed, (void)mode;
  if (!g) return cudaErrorInvalidValue;
  return begin(h, g, deps, n, "cudaStreamBeginCaptureToGraph");
}

/* Does some stream other than the origin have dependencies that do not lead into the origin's? */
static int unjoined(cudart *r, cr_graph *g, cr_stream *origin) {
  uint8_t *seen = calloc(g->n ? g->n : 1, 1);
  const cr_node **stack = malloc((g->n ? g->n : 1) * sizeof *stack); /* each node is pushed once */
  uint32_t top = 0;
  if (!seen || !stack) {
    free(seen), free(stack);
    return 0;
  }
  for (uint32_t i = 0; i < origin->ndeps; i++) { /* mark the origin's dependencies and all they depend on */
    cr_node *nd = wv_cr_handle_obj(r, WV_H_NODE, origin->deps[i]);
    if (nd && nd->g == g && !seen[nd->idx]) seen[nd->idx] = 1, stack[top++] = nd;
  }
  while (top) {
    const cr_node *nd = stack[--top];
    for (uint32_t j = 0; j < nd->ndeps; j++)
      if (!seen[nd->deps[j]->idx]) seen[nd->deps[j]->idx] = 1, stack[top++] = nd->deps[j];
  }
  free(stack);
  int bad = 0;
  uint32_t it = 0;
  for (cr_stream *o; !bad && (o = wv_cr_handle_next(r, WV_H_STREAM, &it, NULL));)
    for (uint32_t i = 0; o != origin && o->capture == g && i < o->ndeps; i++) {
      cr_node *nd = wv_cr_handle_obj(r, WV_H_NODE, o->deps[i]);
      bad |= nd && nd->g == g && !seen[nd->idx];
    }
  free(seen);
  return bad;
}

WV_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t h, cudaGraph_t *out) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamEndCapture", &s);
  if (e) return wv_cr_ret(e);
  cr_graph *g = s ? s->capture : NULL;
  if (!s || (!out && (!g || g->from_capture))) return wv_cr_ret(cudaErrorInvalidValue); /* NULL: into a graph */
  if (!g) return wv_cr_ret(cudaErrorIllegalState);
  if (g->origin != s) return wv_cr_ret(cudaErrorStreamCaptureUnmatched);
  int bad = unjoined(r, g, s);
  capture_end(r, g);
  if (bad) { /* the capture is invalidated, as on a GPU */
    if (g->from_capture) wv_cr_graph_free(r, g);
    if (out) *out = NULL;
    return wv_cr_ret(cudaErrorStreamCaptureUnjoined);
  }
  g->from_capture = 0;
  if (out) *out = g->self;
  return wv_cr_ret(cudaSuccess);
}

/* ---- queries ---- */
static cudaError_t capture_info(cudaStream_t h, const char *api, int *status, unsigned long long *id, cudaGraph_t *g,
                                const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges, size_t *ndeps) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, api, &s);
  if (e || !status) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  cr_graph *c = s ? s->capture : NULL;
  *status = c ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (id) *id = c ? (unsigned long long)(uintptr_t)c->self : 0;
  if (g) *g = c ? c->self : NULL;
  if (deps) *deps = c && s->ndeps ? s->deps : NULL;
  if (edges) *edges = c && s->ndeps ? s->dep_edges : NULL;
  if (ndeps) *ndeps = c ? s->ndeps : 0;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t s, int *status) {
  return capture_info(s, "cudaStreamIsCapturing", status, NULL, NULL, NULL, NULL, NULL);
}

#if WV_CUDART_MAJOR >= 13
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                               const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                                               size_t *n) {
  return capture_info(s, "cudaStreamGetCaptureInfo", status, id, g, deps, edges, n);
}
#else
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, int *status, unsigned long long *id) {
  return capture_info(s, "cudaStreamGetCaptureInfo", status, id, NULL, NULL, NULL, NULL);
}
#endif
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                                  const cudaGraphNode_t **deps, size_t *n) {
  return capture_info(s, "cudaStreamGetCaptureInfo_v2", status, id, g, deps, NULL, n);
}
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo_v3(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                                  const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                                                  size_t *n) {
  return capture_info(s, "cudaStreamGetCaptureInfo_v3", status, id, g, deps, edges, n);
}

/* Replace (cudaStreamSetCaptureDependencies) or extend (cudaStreamAddCaptureDependencies) the nodes the
 * stream's next captured work depends on: nodes of its capture graph. */
static cudaError_t update_deps(cudaStream_t h, const cudaGraphNode_t *deps, size_t n, unsigned flags) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamUpdateCaptureDependencies", &s);
  if (e) return wv_cr_ret(e);
  if (!s || !s->capture) return wv_cr_ret(cudaErrorIllegalState);
  if (flags > cudaStreamSetCaptureDependencies || (n && !deps)) return wv_cr_ret(cudaErrorInvalidValue);
  for (size_t i = 0; i < n; i++) {
    cr_node *nd = wv_cr_handle_obj(r, WV_H_NODE, deps[i]);
    if (!nd || nd->g != s->capture) return wv_cr_ret(cudaErrorInvalidValue);
  }
  if (flags == cudaStreamSetCaptureDependencies) s->ndeps = 0;
  for (size_t i = 0; i < n && !e; i++) e = deps_add(s, deps[i]);
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies_v2(cudaStream_t s, cudaGraphNode_t *deps,
                                                             const cudaGraphEdgeData *ed, size_t n, unsigned flags) {
  (void)ed;
  return update_deps(s, deps, n, flags);
}
#if WV_CUDART_MAJOR >= 13
WV_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                          const cudaGraphEdgeData *ed, size_t n, unsigned flags) {
  (void)ed;
  return update_deps(s, deps, n, flags);
}
#else
WV_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps, size_t n,
                                                          unsigned flags) {
  return update_deps(s, deps, n, flags);
}
#endif
