/*
 * stream.c — streams, events, host callbacks and CUDA graphs. warpvm executes stream work when
 * it is issued, in issue order: a legal schedule of every CUDA program, since a stream's work is
 * ordered and work on different streams may run in any order. What the runtime must still model
 * is capture: while a stream captures (cudaStreamBeginCapture), its work — and the work of streams
 * that join it through cudaStreamWaitEvent on an event recorded in it — is recorded as ops into a
 * graph instead of running; cudaGraphLaunch replays them in recorded order (a topological order
 * of the graph). Events carry a host timestamp taken when the record runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/cudart.h"

#define LEGACY(s) ((uintptr_t)(s) <= 2) /* 0, cudaStreamLegacy (1), cudaStreamPerThread (2) */

static int stream_ok(cudaStream_t s) { return LEGACY(s) || s->magic == WV_STREAM_MAGIC; }
static int event_ok(cudaEvent_t e) { return e && e->magic == WV_EVENT_MAGIC; }

/* ---- ops ---- */
static void op_free(cr_op *op) {
  if (op && op->kind == OP_KERNEL) {
    free(op->u.k.blob);
    free(op->u.k.args);
  }
  free(op);
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

cudaError_t wv_cr_run_op(cudart *r, const cr_op *op) {
  switch (op->kind) {
  case OP_KERNEL:
    return wv_cr_launch_now(r, op->u.k.f, op->u.k.grid, op->u.k.block, op->u.k.shared, op->u.k.args, op->u.k.coop);
  case OP_MEMCPY: return wv_cr_copy(r, op->u.cp.dst, op->u.cp.src, op->u.cp.n, op->u.cp.kind);
  case OP_MEMSET: return wv_cr_set(r, op->u.set.dst, op->u.set.value, op->u.set.n);
  case OP_HOST:
    wv_cr_flush_printf(r); /* the callback runs after the stream's earlier work, output included */
    op->u.host.fn(op->u.host.user);
    return cudaSuccess;
  case OP_EVENT_RECORD:
    clock_gettime(CLOCK_MONOTONIC, &op->u.ev.ev->t);
    op->u.ev.ev->recorded = 1;
    return cudaSuccess;
  case OP_EVENT_WAIT: return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}

static void graph_append(struct wv_cr_graph *g, cr_op *op) {
  op->next = NULL;
  if (g->tail) g->tail->next = op;
  else g->head = op;
  g->tail = op;
  g->n++;
}

cudaError_t wv_cr_submit(cudart *r, cudaStream_t s, const cr_op *op) {
  if (!stream_ok(s)) return cudaErrorInvalidResourceHandle;
  if (LEGACY(s) || !s->capture) return wv_cr_run_op(r, op);
  cr_op *c = op_clone(op); /* kept in the graph, with its own copy of the kernel's argument values */
  if (!c) return cudaErrorMemoryAllocation;
  graph_append(s->capture, c);
  return cudaSuccess;
}

/* ---- streams ---- */
static cudaError_t stream_new(cudaStream_t *s, unsigned flags, int prio) {
  if (!s) return cudaErrorInvalidValue;
  cudaStream_t n = calloc(1, sizeof *n);
  if (!n) return cudaErrorMemoryAllocation;
  n->flags = flags, n->prio = prio, n->magic = WV_STREAM_MAGIC;
  *s = n;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *s) { return stream_new(s, 0, 0); }
WV_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) { return stream_new(s, flags, 0); }
WV_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int prio) {
  return stream_new(s, flags, prio);
}

WV_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t s) {
  (void)wv_cr(); /* lock */
  if (LEGACY(s) || !stream_ok(s)) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  s->magic = 0;
  free(s);
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  cudart *r = wv_cr();
  if (!stream_ok(s)) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  if (!LEGACY(s) && s->capture) return wv_cr_ret(cudaErrorStreamCaptureUnsupported);
  return wv_cr_ret(wv_cr_synchronize(r));
}

WV_EXPORT cudaError_t cudaStreamQuery(cudaStream_t s) {
  cudart *r = wv_cr();
  if (!stream_ok(s)) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  wv_cr_sync_point(r);
  return wv_cr_ret(wv_cr_device_check(r));
}

WV_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int *flags) {
  if (!stream_ok(s) || !flags) return cudaErrorInvalidValue;
  *flags = LEGACY(s) ? 0 : s->flags;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t s, int *prio) {
  if (!stream_ok(s) || !prio) return cudaErrorInvalidValue;
  *prio = LEGACY(s) ? 0 : s->prio;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags) {
  (void)flags;
  (void)wv_cr(); /* lock */
  if (!stream_ok(s) || !event_ok(e)) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  /* Fork/join in capture: a stream that waits on an event recorded while capturing joins the capture. */
  if (!LEGACY(s) && !s->capture && e->capture) s->capture = e->capture;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *user) {
  cudart *r = wv_cr();
  cudaError_t e = wv_cr_device_check(r);
  if (e) return wv_cr_ret(e);
  if (!fn) return wv_cr_ret(cudaErrorInvalidValue);
  cr_op op = {.kind = OP_HOST, .u.host = {fn, user}};
  return wv_cr_ret(wv_cr_submit(r, s, &op));
}

WV_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *user, unsigned int flags) {
  (void)flags;
  cudart *r = wv_cr();
  if (!cb || !stream_ok(s)) return wv_cr_ret(cudaErrorInvalidValue);
  wv_cr_sync_point(r);
  cb(s, r->sticky, user);
  return wv_cr_ret(cudaSuccess);
}

/* ---- events ---- */
WV_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags) {
  if (!e) return cudaErrorInvalidValue;
  cudaEvent_t n = calloc(1, sizeof *n);
  if (!n) return cudaErrorMemoryAllocation;
  n->flags = flags, n->magic = WV_EVENT_MAGIC;
  *e = n;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, 0); }

WV_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t e) {
  (void)wv_cr(); /* lock */
  if (!event_ok(e)) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  e->magic = 0;
  free(e);
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  cudart *r = wv_cr();
  if (!event_ok(e) || !stream_ok(s)) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  cr_op op = {.kind = OP_EVENT_RECORD, .u.ev = {e}};
  e->capture = LEGACY(s) ? NULL : s->capture;
  return wv_cr_ret(wv_cr_submit(r, s, &op));
}

WV_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
  (void)flags;
  return cudaEventRecord(e, s);
}

WV_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  cudart *r = wv_cr();
  if (!event_ok(e)) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  return wv_cr_ret(wv_cr_synchronize(r));
}

WV_EXPORT cudaError_t cudaEventQuery(cudaEvent_t e) {
  cudart *r = wv_cr();
  if (!event_ok(e)) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  return wv_cr_ret(wv_cr_device_check(r));
}

WV_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  (void)wv_cr(); /* lock */
  if (!ms) return wv_cr_ret(cudaErrorInvalidValue);
  if (!event_ok(a) || !event_ok(b) || (a->flags & cudaEventDisableTiming) || (b->flags & cudaEventDisableTiming))
    return wv_cr_ret(cudaErrorInvalidResourceHandle);
  if (!a->recorded || !b->recorded) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  double d = (double)(b->t.tv_sec - a->t.tv_sec) * 1e3 + (double)(b->t.tv_nsec - a->t.tv_nsec) * 1e-6;
  *ms = (float)d;
  return wv_cr_ret(cudaSuccess);
}

/* ---- capture and graphs ---- */
WV_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t s, int mode) {
  (void)mode;
  (void)wv_cr(); /* lock */
  if (LEGACY(s)) return wv_cr_ret(cudaErrorStreamCaptureUnsupported);
  if (!stream_ok(s)) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  if (s->capture) return wv_cr_ret(cudaErrorIllegalState);
  s->capture = calloc(1, sizeof *s->capture);
  return wv_cr_ret(s->capture ? cudaSuccess : cudaErrorMemoryAllocation);
}

WV_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g) {
  (void)wv_cr(); /* lock */
  if (LEGACY(s) || !stream_ok(s) || !g) return wv_cr_ret(cudaErrorInvalidValue);
  if (!s->capture) return wv_cr_ret(cudaErrorIllegalState);
  *g = s->capture;
  s->capture = NULL;
  /* Streams that joined through events leave with it (their work is in the graph). */
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t s, int *status) {
  if (!stream_ok(s) || !status) return cudaErrorInvalidValue;
  *status = !LEGACY(s) && s->capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

static cudaError_t capture_info(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                const cudaGraphNode_t **deps, const void **edges, size_t *ndeps) {
  if (!stream_ok(s) || !status) return cudaErrorInvalidValue;
  int active = !LEGACY(s) && s->capture;
  *status = active ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (id) *id = active ? (unsigned long long)(uintptr_t)s->capture : 0;
  if (g) *g = active ? s->capture : NULL;
  if (deps) *deps = NULL;
  if (edges) *edges = NULL;
  if (ndeps) *ndeps = 0;
  return cudaSuccess;
}

#if WV_CUDART_MAJOR >= 13
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                               const cudaGraphNode_t **deps, const void **edges, size_t *n) {
  return capture_info(s, status, id, g, deps, edges, n);
}
#else
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, int *status, unsigned long long *id) {
  return capture_info(s, status, id, NULL, NULL, NULL, NULL);
}
#endif
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                                  const cudaGraphNode_t **deps, size_t *n) {
  return capture_info(s, status, id, g, deps, NULL, n);
}
WV_EXPORT cudaError_t cudaStreamGetCaptureInfo_v3(cudaStream_t s, int *status, unsigned long long *id, cudaGraph_t *g,
                                                  const cudaGraphNode_t **deps, const void **edges, size_t *n) {
  return capture_info(s, status, id, g, deps, edges, n);
}

WV_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned int flags) {
  (void)flags;
  if (!g) return cudaErrorInvalidValue;
  *g = calloc(1, sizeof **g);
  return *g ? cudaSuccess : cudaErrorMemoryAllocation;
}

static void ops_free(cr_op *op) {
  while (op) {
    cr_op *n = op->next;
    op_free(op);
    op = n;
  }
}

WV_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t g) {
  if (!g) return cudaErrorInvalidValue;
  ops_free(g->head);
  free(g);
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  if (!g || !n) return cudaErrorInvalidValue;
  size_t i = 0;
  for (cr_op *op = g->head; op; op = op->next, i++)
    if (nodes && i < *n) nodes[i] = (cudaGraphNode_t)(void *)op;
  *n = i;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags) {
  (void)flags;
  if (!x || !g) return cudaErrorInvalidValue;
  cudaGraphExec_t e = calloc(1, sizeof *e);
  if (!e) return cudaErrorMemoryAllocation;
  cr_op **tail = &e->head;
  for (cr_op *op = g->head; op; op = op->next) {
    cr_op *c = op_clone(op);
    if (!c) {
      ops_free(e->head);
      free(e);
      return cudaErrorMemoryAllocation;
    }
    *tail = c;
    tail = &c->next;
    e->n++;
  }
  *x = e;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags) {
  return cudaGraphInstantiateWithFlags(x, g, flags);
}

WV_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x) {
  if (!x) return cudaErrorInvalidValue;
  ops_free(x->head);
  free(x);
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t x, cudaStream_t s) {
  (void)s;
  return x ? cudaSuccess : cudaErrorInvalidValue;
}

WV_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s) {
  cudart *r = wv_cr();
  cudaError_t e = wv_cr_device_check(r);
  if (e) return wv_cr_ret(e);
  if (!x) return wv_cr_ret(cudaErrorInvalidValue);
  if (!stream_ok(s)) return wv_cr_ret(cudaErrorInvalidResourceHandle);
  for (cr_op *op = x->head; op && !e; op = op->next) {
    if (!LEGACY(s) && s->capture) { /* launching a graph into a capture records its work */
      cr_op *c = op_clone(op);
      if (!c) return wv_cr_ret(cudaErrorMemoryAllocation);
      graph_append(s->capture, c);
    } else {
      e = wv_cr_run_op(r, op);
    }
  }
  return wv_cr_ret(e);
}
