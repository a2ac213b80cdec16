/*
 * capture.c — stream capture. While a stream captures (cuStreamBeginCapture, or ...ToGraph into an
 * existing graph), its work becomes graph nodes instead of running: each op a node (its own copy,
 * kernel argument values included) that depends on the stream's current dependencies, and which then
 * becomes them. An event recorded in the capture remembers the stream's dependencies; a stream that
 * waits on it joins the capture (fork) or takes them on too (join). Such events make no nodes; those
 * recorded or waited on with CU_EVENT_RECORD_EXTERNAL / CU_EVENT_WAIT_EXTERNAL do. cuMemAllocAsync and
 * cuMemFreeAsync become alloc and free nodes. A forked stream must be joined back before the capture
 * ends — its dependencies must all lead into the origin stream's — or the capture fails with
 * CUDA_ERROR_STREAM_CAPTURE_UNJOINED, and every stream leaves the capture when it ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/graph.h"

/* ---- a stream's dependencies: node handles (dead ones are skipped) ---- */
static CUresult deps_reserve(cu_stream *s, uint32_t n) {
  if (n <= s->capdeps) return CUDA_SUCCESS;
  uint32_t nc = s->capdeps ? s->capdeps : 4;
  while (nc < n) nc *= 2;
  void **nd = realloc(s->deps, nc * sizeof *nd);
  if (nd) s->deps = nd;
  cu_edge *ed = nd ? realloc(s->dep_edges, nc * sizeof *ed) : NULL;
  if (!ed) return CUDA_ERROR_OUT_OF_MEMORY;
  s->dep_edges = ed;
  memset(ed, 0, nc * sizeof *ed);
  s->capdeps = nc;
  return CUDA_SUCCESS;
}

static CUresult deps_add(cu_stream *s, void *h) {
  for (uint32_t i = 0; i < s->ndeps; i++)
    if (s->deps[i] == h) return CUDA_SUCCESS;
  CUresult e = deps_reserve(s, s->ndeps + 1);
  if (!e) s->deps[s->ndeps++] = h;
  return e;
}

/* s's dependencies as nodes of its capture graph (*out: NULL when there are none). */
static CUresult deps_nodes(cu_driver *d, cu_stream *s, cu_node ***out, uint32_t *n) {
  *out = NULL, *n = 0;
  if (!s->ndeps) return CUDA_SUCCESS;
  if (!(*out = malloc(s->ndeps * sizeof **out))) return CUDA_ERROR_OUT_OF_MEMORY;
  for (uint32_t i = 0; i < s->ndeps; i++) {
    cu_node *nd = cu_handle_obj(d, CU_H_NODE, s->deps[i]);
    if (nd && nd->g == s->capture) (*out)[(*n)++] = nd;
  }
  return CUDA_SUCCESS;
}

/* Add a node (taking op over) after s's dependencies; it becomes them. */
static CUresult capture_node(cu_driver *d, cu_stream *s, cu_op *op, cu_node **out) {
  cu_node **deps, *nd;
  uint32_t n;
  CUresult e = deps_nodes(d, s, &deps, &n);
  if (e) cu_op_free(d, op);
  else e = cu_node_add(d, s->capture, op, deps, NULL, n, &nd);
  free(deps);
  if (e) return e;
  s->ndeps = 0;
  if ((e = deps_add(s, nd->self))) return e;
  if (out) *out = nd;
  return CUDA_SUCCESS;
}

CUresult cu_capture_op(cu_driver *d, cu_stream *s, const cu_op *op) {
  cu_op c;
  CUresult e = cu_op_copy(d, &c, op, 1); /* kept in the graph, with its own copy of the argument values */
  return e ? e : capture_node(d, s, &c, NULL);
}

CUresult cu_capture_record(cu_driver *d, cu_stream *s, cu_event *e) {
  (void)d;
  void **deps = s->ndeps ? malloc(s->ndeps * sizeof *deps) : NULL;
  if (s->ndeps && !deps) return CUDA_ERROR_OUT_OF_MEMORY;
  if (s->ndeps) memcpy(deps, s->deps, s->ndeps * sizeof *deps);
  free(e->deps);
  e->deps = deps, e->ndeps = s->ndeps;
  e->cap_graph = s->capture->self;
  return CUDA_SUCCESS;
}

CUresult cu_capture_wait(cu_driver *d, cu_stream *s, cu_event *e) {
  (void)d;
  CUresult err = CUDA_SUCCESS;
  for (uint32_t i = 0; i < e->ndeps && !err; i++) err = deps_add(s, e->deps[i]);
  return err;
}

CUresult cu_capture_alloc(cu_driver *d, cu_stream *s, size_t n, CUdeviceptr *p) {
  cu_galloc *a = cu_galloc_new(d, n);
  if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
  a->refs = 1; /* the op's */
  cu_op op = {.kind = OP_MEM_ALLOC, .u.alloc = {a}};
  *p = a->dptr;
  CUresult e = capture_node(d, s, &op, NULL);
  if (e) *p = 0;
  return e;
}

CUresult cu_capture_free(cu_driver *d, cu_stream *s, CUdeviceptr p) {
  if (!cu_galloc_find(d, p)) return CUDA_ERROR_INVALID_VALUE; /* only graph allocations can be freed in a graph */
  cu_op op = {.kind = OP_MEM_FREE, .u.free = {p}};
  return capture_node(d, s, &op, NULL);
}

/* ---- beginning and ending ---- */
/* Every stream recording into g leaves it (the capture ended or was abandoned). */
static void capture_end(cu_driver *d, cu_graph *g) {
  uint32_t i = 0;
  for (cu_stream *s; (s = cu_handle_next(d, CU_H_STREAM, &i, NULL));)
    if (s->capture == g) s->capture = NULL, s->ndeps = 0;
  g->origin = NULL;
}

void cu_capture_leave(cu_driver *d, cu_stream *s) {
  cu_graph *g = s->capture;
  if (!g) return;
  if (g->origin != s) {
    s->capture = NULL;
    return;
  }
  capture_end(d, g); /* its origin is gone: the capture is abandoned, and a graph it made with it */
  if (g->from_capture) cu_graph_free(d, g);
}

static CUresult begin(void *h, void *hg, void *const *deps, size_t n, const char *api) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  cu_graph *g = NULL;
  CUresult e = cu_stream_get(d, h, api, &s);
  if (!e && hg) e = cu_graph_get(d, hg, api, &g);
  if (e) return cu_ret(e);
  if (!s) return cu_ret(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  if (s->capture || (g && g->origin)) return cu_ret(CUDA_ERROR_ILLEGAL_STATE);
  for (size_t i = 0; i < n; i++) {
    cu_node *nd = cu_handle_obj(d, CU_H_NODE, deps ? deps[i] : NULL);
    if (!nd || nd->g != g) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  }
  int made = !g;
  if (made && !(g = cu_graph_new(d, 1))) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  g->from_capture = made;
  s->ndeps = 0;
  for (size_t i = 0; i < n && !e; i++) e = deps_add(s, deps[i]);
  if (e) {
    if (g->from_capture) cu_graph_free(d, g);
    return cu_ret(e);
  }
  s->capture = g;
  g->origin = s;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamBeginCapture_v2(void *h, int mode) {
  (void)mode;
  return begin(h, NULL, NULL, 0, "cuStreamBeginCapture");
}
CU_EXPORT CUresult cuStreamBeginCapture(void *h) { return cuStreamBeginCapture_v2(h, 0); }

CU_EXPORT CUresult cuStreamBeginCaptureToGraph(void *h, void *g, void *const *deps, const cu_edge *ed, size_t n,
                                              int mode) {
  (void)ed, (void)mode;
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  return begin(h, g, deps, n, "cuStreamBeginCaptureToGraph");
}

/* cuThreadExchangeStreamCaptureMode: the thread's mode is kept and given back (captures here never check it). */
static _Thread_local int tl_capture_mode;
CU_EXPORT CUresult cuThreadExchangeStreamCaptureMode(int *mode) {
  if (!mode) return CUDA_ERROR_INVALID_VALUE;
  int old = tl_capture_mode;
  tl_capture_mode = *mode;
  *mode = old;
  return CUDA_SUCCESS;
}

/* Does some stream other than the origin have dependencies that do not lead into the origin's? */
static int unjoined(cu_driver *d, cu_graph *g, cu_stream *origin) {
  uint8_t *seen = calloc(g->n ? g->n : 1, 1);
  const cu_node **stack = malloc((g->n ? g->n : 1) * sizeof *stack); /* each node is pushed once */
  uint32_t top = 0;
  if (!seen || !stack) {
    free(seen), free(stack);
    return 0;
  }
  for (uint32_t i = 0; i < origin->ndeps; i++) { /* mark the origin's dependencies and all they depend on */
    cu_node *nd = cu_handle_obj(d, CU_H_NODE, origin->deps[i]);
    if (nd && nd->g == g && !seen[nd->idx]) seen[nd->idx] = 1, stack[top++] = nd;
  }
  while (top) {
    const cu_node *nd = stack[--top];
    for (uint32_t j = 0; j < nd->ndeps; j++)
      if (!seen[nd->deps[j]->idx]) seen[nd->deps[j]->idx] = 1, stack[top++] = nd->deps[j];
  }
  free(stack);
  int bad = 0;
  uint32_t it = 0;
  for (cu_stream *o; !bad && (o = cu_handle_next(d, CU_H_STREAM, &it, NULL));)
    for (uint32_t i = 0; o != origin && o->capture == g && i < o->ndeps; i++) {
      cu_node *nd = cu_handle_obj(d, CU_H_NODE, o->deps[i]);
      bad |= nd && nd->g == g && !seen[nd->idx];
    }
  free(seen);
  return bad;
}

CU_EXPORT CUresult cuStreamEndCapture(void *h, void **out) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, "cuStreamEndCapture", &s);
  if (e) return cu_ret(e);
  cu_graph *g = s ? s->capture : NULL;
  if (!s || (!out && (!g || g->from_capture))) return cu_ret(CUDA_ERROR_INVALID_VALUE); /* NULL: into a graph */
  if (!g) return cu_ret(CUDA_ERROR_ILLEGAL_STATE);
  if (g->origin != s) return cu_ret(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
  int bad = unjoined(d, g, s);
  capture_end(d, g);
  if (bad) { /* the capture is invalidated, as on a GPU */
    if (g->from_capture) cu_graph_free(d, g);
    if (out) *out = NULL;
    return cu_ret(CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
  }
  g->from_capture = 0;
  if (out) *out = g->self;
  return cu_ret(CUDA_SUCCESS);
}

/* ---- queries ---- */
enum { SET_DEPS = 1 };                       /* CU_STREAM_SET_CAPTURE_DEPENDENCIES */
enum { STATUS_NONE = 0, STATUS_ACTIVE = 1 };  /* CUstreamCaptureStatus */
static CUresult capture_info(void *h, const char *api, int *status, unsigned long long *id, void **g,
                             void *const **deps, const cu_edge **edges, size_t *ndeps) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, api, &s);
  if (e || !status) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  cu_graph *c = s ? s->capture : NULL;
  *status = c ? STATUS_ACTIVE : STATUS_NONE;
  if (id) *id = c ? (unsigned long long)(uintptr_t)c->self : 0;
  if (g) *g = c ? c->self : NULL;
  if (deps) *deps = c && s->ndeps ? s->deps : NULL;
  if (edges) *edges = c && s->ndeps ? s->dep_edges : NULL;
  if (ndeps) *ndeps = c ? s->ndeps : 0;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamIsCapturing(void *s, int *status) {
  return capture_info(s, "cuStreamIsCapturing", status, NULL, NULL, NULL, NULL, NULL);
}
CU_EXPORT CUresult cuStreamGetCaptureInfo(void *s, int *status, unsigned long long *id) {
  return capture_info(s, "cuStreamGetCaptureInfo", status, id, NULL, NULL, NULL, NULL);
}
CU_EXPORT CUresult cuStreamGetCaptureInfo_v2(void *s, int *status, unsigned long long *id, void **g,
                                            void *const **deps, size_t *n) {
  return capture_info(s, "cuStreamGetCaptureInfo", status, id, g, deps, NULL, n);
}
CU_EXPORT CUresult cuStreamGetCaptureInfo_v3(void *s, int *status, unsigned long long *id, void **g,
                                            void *const **deps, const cu_edge **edges, size_t *n) {
  return capture_info(s, "cuStreamGetCaptureInfo", status, id, g, deps, edges, n);
}

/* Replace (CU_STREAM_SET_CAPTURE_DEPENDENCIES) or extend (CU_STREAM_ADD_CAPTURE_DEPENDENCIES) the nodes the
 * stream's next captured work depends on: nodes of its capture graph. */
static CUresult update_deps(void *h, void *const *deps, size_t n, unsigned flags) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, "cuStreamUpdateCaptureDependencies", &s);
  if (e) return cu_ret(e);
  if (!s || !s->capture) return cu_ret(CUDA_ERROR_ILLEGAL_STATE);
  if (flags > SET_DEPS || (n && !deps)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  for (size_t i = 0; i < n; i++) {
    cu_node *nd = cu_handle_obj(d, CU_H_NODE, deps[i]);
    if (!nd || nd->g != s->capture) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  }
  if (flags == SET_DEPS) s->ndeps = 0;
  for (size_t i = 0; i < n && !e; i++) e = deps_add(s, deps[i]);
  return cu_ret(e);
}

CU_EXPORT CUresult cuStreamUpdateCaptureDependencies_v2(void *s, void *const *deps, const cu_edge *ed, size_t n,
                                                        unsigned flags) {
  (void)ed;
  return update_deps(s, deps, n, flags);
}
CU_EXPORT CUresult cuStreamUpdateCaptureDependencies(void *s, void *const *deps, size_t n, unsigned flags) {
  return update_deps(s, deps, n, flags);
}
