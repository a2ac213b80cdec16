/*
 * stream.c — streams, events and host callbacks. warpvm executes stream work when it is issued,
 * in issue order: a legal schedule of every CUDA program, since a stream's work is ordered and
 * work on different streams may run in any order. Every piece of work is an op (cudart.h) that
 * wv_cr_submit runs at once or, while its stream captures, hands to capture.c (events recorded and
 * waited on in a capture become dependencies between graph nodes). Events carry a host timestamp
 * taken when the record runs. Stream and event handles are looked up in the handle
 * table (handles.c), so a destroyed or made-up one is an error, never a dereference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/graph.h"

cudaError_t wv_cr_stream_get(cudart *r, cudaStream_t h, const char *api, cr_stream **out) {
  *out = NULL;
  if (WV_LEGACY_STREAM(h)) return cudaSuccess;
  if ((*out = wv_cr_handle_obj(r, WV_H_STREAM, h))) return cudaSuccess;
  return wv_cr_bad_handle(r, api, WV_H_STREAM, h, cudaErrorInvalidResourceHandle);
}

cudaError_t wv_cr_event_get(cudart *r, cudaEvent_t h, const char *api, cr_event **out) {
  if ((*out = wv_cr_handle_obj(r, WV_H_EVENT, h))) return cudaSuccess;
  return wv_cr_bad_handle(r, api, WV_H_EVENT, h, cudaErrorInvalidResourceHandle);
}

cudaError_t wv_cr_run_op(cudart *r, const cr_op *op) {
  switch (op->kind) {
  case OP_KERNEL:
    return wv_cr_launch_now(r, op->u.k.f, op->u.k.grid, op->u.k.block, op->u.k.shared, op->u.k.args, op->u.k.coop);
  case OP_MEMCPY: return wv_cr_copy(r, op->u.cp.dst, op->u.cp.src, op->u.cp.n, op->u.cp.kind);
  case OP_MEMCPY3D: return wv_cr_copy3d(r, &op->u.cp3);
  case OP_MEMSET:
    return wv_cr_set2d(r, op->u.set.dst, op->u.set.pitch, op->u.set.value, op->u.set.esize, op->u.set.width,
                       op->u.set.height);
  case OP_HOST:
    wv_cr_flush_printf(r); /* the callback runs after the stream's earlier work, output included */
    op->u.host.fn(op->u.host.user);
    return cudaSuccess;
  case OP_EVENT_RECORD: {
    cr_event *e; /* a graph's record of an event destroyed since */
    cudaError_t err = wv_cr_event_get(r, op->u.ev.ev, "cudaGraphLaunch (an event record node)", &e);
    if (err) return err;
    clock_gettime(CLOCK_MONOTONIC, &e->t);
    e->recorded = 1;
    return cudaSuccess;
  }
  case OP_EVENT_WAIT: case OP_EMPTY: return cudaSuccess;
  default: return cudaErrorInvalidValue; /* the graph-only kinds run in graph_exec.c */
  }
}

cudaError_t wv_cr_submit(cudart *r, cr_stream *s, const cr_op *op) {
  return s && s->capture ? wv_cr_capture_op(r, s, op) : wv_cr_run_op(r, op);
}

/* ---- streams ---- */
static cudaError_t stream_new(cudaStream_t *out, unsigned flags, int prio) {
  cudart *r = wv_cr();
  if (!out) return wv_cr_ret(cudaErrorInvalidValue);
  cr_stream *s = calloc(1, sizeof *s);
  if (!s || !(s->self = wv_cr_handle_new(r, WV_H_STREAM, s))) {
    free(s);
    return wv_cr_ret(cudaErrorMemoryAllocation);
  }
  s->flags = flags, s->prio = prio;
  *out = s->self;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *s) { return stream_new(s, 0, 0); }
WV_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) { return stream_new(s, flags, 0); }
WV_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int prio) {
  return stream_new(s, flags, prio);
}

static void stream_free(cudart *r, cr_stream *s) {
  wv_cr_capture_leave(r, s);
  wv_cr_handle_drop(r, s->self);
  free(s->deps);
  free(s->dep_edges);
  free(s);
}

WV_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t h) {
  cudart *r = wv_cr();
  cr_stream *s = wv_cr_handle_obj(r, WV_H_STREAM, h);
  if (!s) return wv_cr_ret(wv_cr_bad_handle(r, "cudaStreamDestroy", WV_H_STREAM, h, cudaErrorInvalidResourceHandle));
  stream_free(r, s);
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t h) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamSynchronize", &s);
  if (e) return wv_cr_ret(e);
  if (s && s->capture) return wv_cr_ret(cudaErrorStreamCaptureUnsupported);
  return wv_cr_ret(wv_cr_synchronize(r));
}

WV_EXPORT cudaError_t cudaStreamQuery(cudaStream_t h) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamQuery", &s);
  if (e) return wv_cr_ret(e);
  wv_cr_sync_point(r);
  return wv_cr_ret(wv_cr_device_check(r));
}

WV_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t h, unsigned int *flags) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamGetFlags", &s);
  if (e || !flags) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  *flags = s ? s->flags : 0;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t h, int *prio) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamGetPriority", &s);
  if (e || !prio) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  *prio = s ? s->prio : 0;
  return wv_cr_ret(cudaSuccess);
}

/* In a capture: an event recorded in the same capture makes the stream depend on what the event's
 * stream had done (a stream not capturing joins the capture: a fork); cudaEventWaitExternal makes a
 * wait node instead. */
WV_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t hs, cudaEvent_t he, unsigned int flags) {
  cudart *r = wv_cr();
  cr_stream *s;
  cr_event *e;
  cudaError_t err = wv_cr_stream_get(r, hs, "cudaStreamWaitEvent", &s);
  if (!err) err = wv_cr_event_get(r, he, "cudaStreamWaitEvent", &e);
  if (err) return wv_cr_ret(err);
  if (s && s->capture && (flags & cudaEventWaitExternal)) {
    cr_op op = {.kind = OP_EVENT_WAIT, .u.ev = {he}};
    return wv_cr_ret(wv_cr_capture_op(r, s, &op));
  }
  if (!e->cap_graph) return wv_cr_ret(cudaSuccess);
  cr_graph *g = wv_cr_handle_obj(r, WV_H_GRAPH, e->cap_graph);
  if (!g || !g->origin) return wv_cr_ret(cudaErrorInvalidValue); /* that capture has ended (as an H100 answers) */
  if (!s) return wv_cr_ret(cudaErrorStreamCaptureImplicit);
  if (s->capture && s->capture != g) return wv_cr_ret(cudaErrorStreamCaptureIsolation);
  if (!s->capture) { /* fork: s joins the capture */
    s->capture = g;
    s->ndeps = 0;
  }
  return wv_cr_ret(wv_cr_capture_wait(r, s, e));
}

WV_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t h, cudaHostFn_t fn, void *user) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_device_check(r);
  if (!e) e = wv_cr_stream_get(r, h, "cudaLaunchHostFunc", &s);
  if (e) return wv_cr_ret(e);
  if (!fn) return wv_cr_ret(cudaErrorInvalidValue);
  cr_op op = {.kind = OP_HOST, .u.host = {fn, user}};
  return wv_cr_ret(wv_cr_submit(r, s, &op));
}

WV_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t h, cudaStreamCallback_t cb, void *user, unsigned int flags) {
  (void)flags;
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamAddCallback", &s);
  if (e || !cb) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  wv_cr_sync_point(r);
  cb(h, r->sticky, user);
  return wv_cr_ret(cudaSuccess);
}

/* ---- events ---- */
WV_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *out, unsigned int flags) {
  cudart *r = wv_cr();
  if (!out) return wv_cr_ret(cudaErrorInvalidValue);
  cr_event *e = calloc(1, sizeof *e);
  void *h = e ? wv_cr_handle_new(r, WV_H_EVENT, e) : NULL;
  if (!h) {
    free(e);
    return wv_cr_ret(cudaErrorMemoryAllocation);
  }
  e->flags = flags;
  *out = h;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, 0); }

WV_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t h) {
  cudart *r = wv_cr();
  cr_event *e;
  cudaError_t err = wv_cr_event_get(r, h, "cudaEventDestroy", &e);
  if (err) return wv_cr_ret(err);
  wv_cr_handle_drop(r, h);
  free(e->deps);
  free(e);
  return wv_cr_ret(cudaSuccess);
}

/* In a capture the record only remembers the stream's dependencies (cudaEventRecordExternal: a record
 * node too); outside one it runs in stream order. */
static cudaError_t event_record(cudaEvent_t he, cudaStream_t hs, unsigned flags) {
  cudart *r = wv_cr();
  cr_stream *s;
  cr_event *e;
  cudaError_t err = wv_cr_event_get(r, he, "cudaEventRecord", &e);
  if (!err) err = wv_cr_stream_get(r, hs, "cudaEventRecord", &s);
  if (err) return wv_cr_ret(err);
  cr_op op = {.kind = OP_EVENT_RECORD, .u.ev = {he}};
  if (s && s->capture) {
    if ((flags & cudaEventRecordExternal) && (err = wv_cr_capture_op(r, s, &op))) return wv_cr_ret(err);
    return wv_cr_ret(wv_cr_capture_record(r, s, e));
  }
  if ((err = wv_cr_run_op(r, &op))) return wv_cr_ret(err);
  e->cap_graph = NULL;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { return event_record(e, s, 0); }
WV_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
  return event_record(e, s, flags);
}

WV_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t h) {
  cudart *r = wv_cr();
  cr_event *e;
  cudaError_t err = wv_cr_event_get(r, h, "cudaEventSynchronize", &e);
  return wv_cr_ret(err ? err : wv_cr_synchronize(r));
}

WV_EXPORT cudaError_t cudaEventQuery(cudaEvent_t h) {
  cudart *r = wv_cr();
  cr_event *e;
  cudaError_t err = wv_cr_event_get(r, h, "cudaEventQuery", &e);
  return wv_cr_ret(err ? err : wv_cr_device_check(r));
}

WV_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t ha, cudaEvent_t hb) {
  cudart *r = wv_cr();
  cr_event *a, *b;
  cudaError_t err = wv_cr_event_get(r, ha, "cudaEventElapsedTime", &a);
  if (!err) err = wv_cr_event_get(r, hb, "cudaEventElapsedTime", &b);
  if (err) return wv_cr_ret(err);
  if (!ms) return wv_cr_ret(cudaErrorInvalidValue);
  if ((a->flags & cudaEventDisableTiming) || (b->flags & cudaEventDisableTiming) || !a->recorded || !b->recorded)
    return wv_cr_ret(cudaErrorInvalidResourceHandle);
  double d = (double)(b->t.tv_sec - a->t.tv_sec) * 1e3 + (double)(b->t.tv_nsec - a->t.tv_nsec) * 1e-6;
  *ms = (float)d;
  return wv_cr_ret(cudaSuccess);
}

void wv_cr_streams_reset(cudart *r) {
  uint32_t i = 0;
  void *h;
  for (cr_stream *s; (s = wv_cr_handle_next(r, WV_H_STREAM, &i, NULL));) stream_free(r, s);
  i = 0;
  for (cr_event *e; (e = wv_cr_handle_next(r, WV_H_EVENT, &i, &h));) {
    wv_cr_handle_drop(r, h);
    free(e->deps);
    free(e);
  }
}

/* Stream attributes (cudaLaunchAttributeValue, 64 bytes): kept and given back, e.g. the access policy window
 * (accepted and reported as an H200 does; a virtual device has no L2 to manage). The legacy stream has none. */
WV_EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t h, int attr, const void *value) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamSetAttribute", &s);
  if (!e && (!value || attr <= 0 || attr >= 16)) e = cudaErrorInvalidValue;
  if (!e && s) memcpy(s->attrs[attr], value, 64);
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t h, int attr, void *value) {
  cudart *r = wv_cr();
  cr_stream *s;
  cudaError_t e = wv_cr_stream_get(r, h, "cudaStreamGetAttribute", &s);
  if (!e && (!value || attr <= 0 || attr >= 16)) e = cudaErrorInvalidValue;
  if (!e) {
    if (s) memcpy(value, s->attrs[attr], 64);
    else memset(value, 0, 64);
  }
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }
