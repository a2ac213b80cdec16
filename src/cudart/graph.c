/*
 * graph.c — stream capture and CUDA graphs. While a stream captures (cudaStreamBeginCapture), its
 * work — and the work of streams that join it through cudaStreamWaitEvent on an event recorded in
 * it — is recorded as ops into a graph instead of running (each op a private copy, kernel argument
 * values included); cudaGraphLaunch replays an executable graph's ops in recorded order (a
 * topological order of the graph). A forked stream must be joined back before the capture ends
 * (cudaErrorStreamCaptureUnjoined otherwise), and every stream leaves the capture when it ends.
 * Graph handles are looked up in the handle table; a destroyed or unknown graph or executable graph
 * is cudaErrorInvalidValue, which is what an H100 with CUDA 13 answers for a destroyed one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/cudart.h"

/* ---- ops ---- */
static void op_free(cr_op *op) {
  if (op && op->kind == OP_KERNEL) {
    free(op->u.k.blob);
    free(op->u.k.args);
  }
  free(op);
}

static void ops_free(cr_op *op) {
  while (op) {
    cr_op *n = op->next;
    op_free(op);
    op = n;
  }
}

/* Give a kernel op its own copy of the argument values (sized from the PTX parameter list). */
static int own_args(cr_op *op, void **src) {
  const wv_kernel *k = op->u.k.f->k;
  uint32_t n = wv_kernel_param_count(k), bytes = 0;
  for (uint32_t i = 0; i < n; i++) {
    wv_param_info p = wv_kernel_param(k, i);
    if (p.offset + p.size > bytes) bytes = p.offset + p.size;
  }
  op->u.k.blob = malloc(bytes ? bytes : 1);
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

static cr_op *op_clone(const cr_op *op) {
  cr_op *c = malloc(sizeof *c);
  if (!c) return NULL;
  *c = *op;
  c->next = NULL;
  if (op->kind == OP_KERNEL) {
    c->u.k.blob = NULL, c->u.k.args = NULL;
    if (own_args(c, op->u.k.args)) {
      op_free(c);
      return NULL;
    }
  }
  return c;
}

static void graph_append(cr_graph *g, cr_op *op) {
  op->next = NULL;
  if (g->tail) g->tail->next = op;
  else g->head = op;
  g->tail = op;
  g->n++;
}

static cr_graph *graph_new(cudart *r) {
  cr_graph *g = calloc(1, sizeof *g);
  if (g && !(g->self = wv_cr_handle_new(r, WV_H_GRAPH, g))) {
    free(g);
    return NULL;
  }
  return g;
}

static void graph_free(cudart *r, cr_graph *g) {
  ops_free(g->head);
  wv_cr_handle_drop(r, g->self);
  free(g);
}

static void exec_free(cudart *r, cr_exec *x, void *h) {
  ops_free(x->head);
  wv_cr_handle_drop(r, h);
  free(x);
}

static cudaError_t graph_get(cudart *r, cudaGraph_t h, const char *api, cr_graph **out) {
  if ((*out = wv_cr_handle_obj(r, WV_H_GRAPH, h))) return cudaSuccess;
  return wv_cr_bad_handle(r, api, WV_H_GRAPH, h, cudaErrorInvalidValue);
}

static cudaError_t exec_get(cudart *r, cudaGraphExec_t h, const char *api, cr_exec **out) {
  if ((*out = wv_cr_handle_obj(r, WV_H_EXEC, h))) return cudaSuccess;
  return wv_cr_bad_handle(r, api, WV_H_EXEC, h, cudaErrorInvalidValue);
}

/* ---- capture ---- */
cudaError_t wv_cr_capture_op(cudart *r, cr_stream *s, const cr_op *op) {
  (void)r;
  cr_op *c = op_clone(op); /* kept in the graph, with its own copy of the kernel's argument values */
  if (!c) return cudaErrorMemoryAllocation;
  graph_append(s->capture, c);
  s->last_seq = ++s->capture->seq;
  return cudaSuccess;
}

/* Every stream recording into g leaves it (the capture ended or was abandoned). */
static void capture_end(cudart *r, cr_graph *g) {
  uint32_t i = 0;
  for (cr_stream *s; (s = wv_cr_handle_next(r, WV_H_STREAM, &i, NULL));)
    if (s->capture == g) s->capture = NULL;
  g->origin = NULL;
}

void wv_cr_capture_leave(cudart *r, cr_stream *s) {
  cr_graph *g = s->capture;
  if (!g) return;
  if (g->origin != s) {
    s->capture = NULL;
    return;
  }
  capture_end(r, g); /* its origin is gone: the capture is abandoned, and its graph with it */
  graph_free(r, g);
}

WV_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t h, int mode) {
  (void)mode;
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamBeginCapture", &s);
  if (e) return wv_cr_ret(e);
  if (!s) return wv_cr_ret(cudaErrorStreamCaptureUnsupported);
  if (s->capture) return wv_cr_ret(cudaErrorIllegalState);
  if (!(s->capture = graph_new(r))) return wv_cr_ret(cudaErrorMemoryAllocation);
  s->capture->origin = s;
  s->last_seq = s->joined_seq = 0;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t h, cudaGraph_t *out) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamEndCapture", &s);
  if (e) return wv_cr_ret(e);
  if (!s || !out) return wv_cr_ret(cudaErrorInvalidValue);
  cr_graph *g = s->capture;
  if (!g) return wv_cr_ret(cudaErrorIllegalState);
  if (g->origin != s) return wv_cr_ret(cudaErrorStreamCaptureUnmatched);
  /* Every stream that forked from the capture must have been joined back after its last work. */
  uint32_t i = 0;
  int unjoined = 0;
  for (cr_stream *o; (o = wv_cr_handle_next(r, WV_H_STREAM, &i, NULL));)
    unjoined |= o->capture == g && o != s && o->last_seq > o->joined_seq;
  capture_end(r, g);
  if (unjoined) { /* the capture is invalidated, as on a GPU */
    graph_free(r, g);
    *out = NULL;
    return wv_cr_ret(cudaErrorStreamCaptureUnjoined);
  }
  *out = g->self;
  return wv_cr_ret(cudaSuccess);
}

static cudaError_t capture_info(cudaStream_t h, const char *api, int *status, unsigned long long *id, cudaGraph_t *g,
                                const cudaGraphNode_t **deps, const void **edges, size_t *ndeps) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, api, &s);
  if (e || !status) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  cr_graph *c = s ? s->capture : NULL;
  *status = c ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (id) *id = c ? (unsigned long long)(uintptr_t)c->self : 0;
  if (g) *g = c ? c->self : NULL;
  if (deps) *deps = NULL;
  if (edges) *edges = NULL;
  if (ndeps) *ndeps = 0;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t s, int *status) {
  return capture_info(s, "cudaStreamIsCapturing", status, NULL, NULL, NULL, NULL, NULL);
}

#if WV_CUDART_MAJOR >= 13
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                               const cudaGraphNode_t **deps, const void **edges, size_t *n) {
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
                                                  const cudaGraphNode_t **deps, const void **edges, size_t *n) {
  return capture_info(s, "cudaStreamGetCaptureInfo_v3", status, id, g, deps, edges, n);
}

/* ---- graphs ---- */
WV_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *out, unsigned int flags) {
  (void)flags;
  cudart *r = wv_cr();
  if (!out) return wv_cr_ret(cudaErrorInvalidValue);
  cr_graph *g = graph_new(r);
  if (!g) return wv_cr_ret(cudaErrorMemoryAllocation);
  *out = g->self;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t h) {
  cudart *r = wv_cr();
  cr_graph *g;
  cudaError_t e = graph_get(r, h, "cudaGraphDestroy", &g);
  if (e) return wv_cr_ret(e);
  if (g->origin) return wv_cr_ret(cudaErrorStreamCaptureUnsupported); /* a capture still records into it */
  graph_free(r, g);
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t h, cudaGraphNode_t *nodes, size_t *n) {
  cudart *r = wv_cr();
  cr_graph *g;
  cudaError_t e = graph_get(r, h, "cudaGraphGetNodes", &g);
  if (e || !n) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  size_t i = 0;
  for (cr_op *op = g->head; op; op = op->next, i++)
    if (nodes && i < *n) nodes[i] = (cudaGraphNode_t)(void *)op;
  *n = i;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *out, cudaGraph_t h, unsigned long long flags) {
  (void)flags;
  cudart *r = wv_cr();
  cr_graph *g;
  cudaError_t e = graph_get(r, h, "cudaGraphInstantiate", &g);
  if (e || !out) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  cr_exec *x = calloc(1, sizeof *x);
  void *xh = x ? wv_cr_handle_new(r, WV_H_EXEC, x) : NULL;
  if (!xh) {
    free(x);
    return wv_cr_ret(cudaErrorMemoryAllocation);
  }
  cr_op **tail = &x->head;
  for (cr_op *op = g->head; op; op = op->next) {
    cr_op *c = op_clone(op);
    if (!c) {
      exec_free(r, x, xh);
      return wv_cr_ret(cudaErrorMemoryAllocation);
    }
    *tail = c;
    tail = &c->next;
    x->n++;
  }
  *out = xh;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags) {
  return cudaGraphInstantiateWithFlags(x, g, flags);
}

WV_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t h) {
  cudart *r = wv_cr();
  cr_exec *x;
  cudaError_t e = exec_get(r, h, "cudaGraphExecDestroy", &x);
  if (!e) exec_free(r, x, h);
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
  /* Launching a graph into a capture records its work. */
  for (cr_op *op = e ? NULL : x->head; op && !e; op = op->next) e = wv_cr_submit(r, s, op);
  return wv_cr_ret(e);
}

void wv_cr_graphs_reset(cudart *r) {
  uint32_t i = 0;
  void *h;
  for (cr_graph *g; (g = wv_cr_handle_next(r, WV_H_GRAPH, &i, NULL));) graph_free(r, g);
  i = 0;
  for (cr_exec *x; (x = wv_cr_handle_next(r, WV_H_EXEC, &i, &h));) exec_free(r, x, h);
}
