/*
 * stream.c — streams, events and host callbacks of the driver, and so of the process (warpvm's runtime's
 * cudaStream_t and cudaEvent_t are these handles). Work runs when it is issued, in issue order: a legal
 * schedule of every CUDA program, since a stream's work is ordered and work on different streams may run in
 * any order. Every piece of work is an op (graph.h) that cu_submit runs at once or, while its stream captures,
 * hands to capture.c (events recorded and waited on in a capture become dependencies between graph nodes).
 * So a stream is always idle: synchronising on it is a flush point (device printf, a pending fault becoming
 * sticky), a query answers CUDA_SUCCESS, an event records the time its stream's earlier work ended, and a
 * host function runs after the earlier work. The special handles CU_STREAM_LEGACY (1) and
 * CU_STREAM_PER_THREAD (2) and NULL name the default stream. Stream and event handles are tokens
 * (handles.c), so a destroyed or made-up one is an error, never a dereference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/graph.h"

enum { CU_EVENT_DISABLE_TIMING = 2, CU_EVENT_RECORD_EXTERNAL = 1, CU_EVENT_WAIT_EXTERNAL = 1 };

CUresult cu_stream_get(cu_driver *d, void *h, const char *api, cu_stream **out) {
  *out = NULL;
  if ((uintptr_t)h <= 2) return CUDA_SUCCESS;
  if ((*out = cu_handle_obj(d, CU_H_STREAM, h))) return CUDA_SUCCESS;
  return cu_bad_handle(d, api, CU_H_STREAM, h, CUDA_ERROR_INVALID_HANDLE);
}

CUresult cu_event_get(cu_driver *d, void *h, const char *api, cu_event **out) {
  if ((*out = cu_handle_obj(d, CU_H_EVENT, h))) return CUDA_SUCCESS;
  return cu_bad_handle(d, api, CU_H_EVENT, h, CUDA_ERROR_INVALID_HANDLE);
}

CUresult cu_run_op(cu_driver *d, const cu_op *op) {
  switch (op->kind) {
  case OP_KERNEL: return cu_launch(d, op->u.k.f, op->u.k.grid, op->u.k.block, op->u.k.shared, op->u.k.args, NULL, op->u.k.coop);
  case OP_MEMCPY: return cu_copy3d(d, &op->u.cp);
  case OP_MEMSET:
    return cu_set2d(d, op->u.set.dst, op->u.set.pitch, op->u.set.value, op->u.set.esize, op->u.set.width, op->u.set.height);
  case OP_HOST:
    cu_flush_printf(d); /* the callback runs after the stream's earlier work, output included */
    op->u.host.fn(op->u.host.user);
    return CUDA_SUCCESS;
  case OP_EVENT_RECORD: {
    cu_event *e; /* a graph's record of an event destroyed since */
    CUresult err = cu_event_get(d, op->u.ev.ev, "cuGraphLaunch (an event record node)", &e);
    if (err) return err;
    clock_gettime(CLOCK_MONOTONIC, &e->t);
    e->recorded = 1;
    return CUDA_SUCCESS;
  }
  case OP_EVENT_WAIT: case OP_EMPTY: return CUDA_SUCCESS;
  default: return CUDA_ERROR_INVALID_VALUE; /* the graph-only kinds run in graph_exec.c */
  }
}

CUresult cu_submit(cu_driver *d, cu_stream *s, const cu_op *op) {
  return s && s->capture ? cu_capture_op(d, s, op) : cu_run_op(d, op);
}

/* ---- streams ---- */
static CUresult stream_create(void **ph, unsigned flags, int prio) {
  cu_driver *d = cu_lock();
  if (!ph || (flags & ~1u)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = cu_check(d);
  if (e) return cu_ret(e);
  cu_stream *s = calloc(1, sizeof *s);
  if (!s || !(s->self = cu_handle_new(d, CU_H_STREAM, s))) {
    free(s);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  s->flags = flags;
  s->prio = prio > 0 ? 0 : prio < -5 ? -5 : prio; /* the device's range: 0 (least) to -5 (greatest) */
  s->ctx = cu_current();
  *ph = s->self;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamCreate(void **ph, unsigned flags) { return stream_create(ph, flags, 0); }
CU_EXPORT CUresult cuStreamCreateWithPriority(void **ph, unsigned flags, int prio) { return stream_create(ph, flags, prio); }

static void stream_free(cu_driver *d, cu_stream *s) {
  cu_capture_leave(d, s);
  cu_handle_drop(d, s->self);
  free(s->deps);
  free(s->dep_edges);
  free(s);
}

CU_EXPORT CUresult cuStreamDestroy_v2(void *h) {
  cu_driver *d = cu_lock();
  cu_stream *s = cu_handle_obj(d, CU_H_STREAM, h);
  if (!s) return cu_ret(cu_bad_handle(d, "cuStreamDestroy", CU_H_STREAM, h, CUDA_ERROR_INVALID_HANDLE));
  stream_free(d, s);
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuStreamDestroy(void *h) { return cuStreamDestroy_v2(h); }

CU_EXPORT CUresult cuStreamSynchronize(void *h) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, "cuStreamSynchronize", &s);
  if (e) return cu_ret(e);
  if (s && s->capture) return cu_ret(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  return cu_ret(cu_synchronize(d));
}

CU_EXPORT CUresult cuStreamQuery(void *h) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, "cuStreamQuery", &s);
  if (e) return cu_ret(e);
  cu_sync_point(d);
  return cu_ret(cu_check(d));
}

/* In a capture: an event recorded in the same capture makes the stream depend on what the event's stream had
 * done (a stream not capturing joins the capture: a fork); CU_EVENT_WAIT_EXTERNAL makes a wait node instead. */
CU_EXPORT CUresult cuStreamWaitEvent(void *hs, void *he, unsigned flags) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  cu_event *e;
  CUresult err = cu_stream_get(d, hs, "cuStreamWaitEvent", &s);
  if (!err) err = cu_event_get(d, he, "cuStreamWaitEvent", &e);
  if (err) return cu_ret(err);
  if (flags > 1) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (s && s->capture && (flags & CU_EVENT_WAIT_EXTERNAL)) {
    cu_op op = {.kind = OP_EVENT_WAIT, .u.ev = {he}};
    return cu_ret(cu_capture_op(d, s, &op));
  }
  if (!e->cap_graph) return cu_ret(CUDA_SUCCESS);
  cu_graph *g = cu_handle_obj(d, CU_H_GRAPH, e->cap_graph);
  if (!g || !g->origin) return cu_ret(CUDA_ERROR_INVALID_VALUE); /* that capture has ended (as an H100 answers) */
  if (!s) return cu_ret(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  if (s->capture && s->capture != g) return cu_ret(CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
  if (!s->capture) { /* fork: s joins the capture */
    s->capture = g;
    s->ndeps = 0;
  }
  return cu_ret(cu_capture_wait(d, s, e));
}

#define STREAM_FIELD(api, field, out, legacy)                \
  cu_driver *d = cu_lock();                                  \
  cu_stream *s;                                              \
  CUresult e = cu_stream_get(d, h, api, &s);                 \
  if (!e && !(out)) e = CUDA_ERROR_INVALID_VALUE;            \
  if (!e) *(out) = s ? s->field : (legacy);                  \
  return cu_ret(e)

CU_EXPORT CUresult cuStreamGetPriority(void *h, int *prio) { STREAM_FIELD("cuStreamGetPriority", prio, prio, 0); }
CU_EXPORT CUresult cuStreamGetFlags(void *h, unsigned *flags) { STREAM_FIELD("cuStreamGetFlags", flags, flags, 0); }
CU_EXPORT CUresult cuStreamGetCtx(void *h, void **pctx) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, "cuStreamGetCtx", &s);
  if (!e && !pctx) e = CUDA_ERROR_INVALID_VALUE;
  cu_ctx *c = s ? s->ctx : cu_current();
  if (!e) *pctx = c ? c : &d->primary;
  return cu_ret(e);
}

CU_EXPORT CUresult cuStreamGetId(void *h, unsigned long long *id) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, "cuStreamGetId", &s);
  if (!e && !id) e = CUDA_ERROR_INVALID_VALUE;
  if (!e) *id = (unsigned long long)(uintptr_t)h <= 2 ? (unsigned long long)(uintptr_t)h : ((uintptr_t)h >> 4) & 0xffffff;
  return cu_ret(e);
}

CU_EXPORT CUresult cuStreamGetDevice(void *h, CUdevice *dev) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, "cuStreamGetDevice", &s);
  if (!e && !dev) e = CUDA_ERROR_INVALID_VALUE;
  if (!e) *dev = 0;
  return cu_ret(e);
}

/* Host work runs after the stream's earlier work (whose printf output comes first), or is captured. */
typedef void (*stream_cb)(void *stream, CUresult status, void *user);

CU_EXPORT CUresult cuLaunchHostFunc(void *h, cu_host_fn fn, void *user) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_check(d);
  if (!e) e = cu_stream_get(d, h, "cuLaunchHostFunc", &s);
  if (!e && !fn) e = CUDA_ERROR_INVALID_VALUE;
  if (e) return cu_ret(e);
  cu_op op = {.kind = OP_HOST, .u.host = {fn, user}};
  return cu_ret(cu_submit(d, s, &op));
}

CU_EXPORT CUresult cuStreamAddCallback(void *h, stream_cb cb, void *user, unsigned flags) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, "cuStreamAddCallback", &s);
  if (!e && (!cb || flags)) e = CUDA_ERROR_INVALID_VALUE;
  if (e) return cu_ret(e);
  cu_sync_point(d);
  cb(h, d->sticky, user);
  return cu_ret(CUDA_SUCCESS);
}

/* Stream attributes (CUlaunchAttributeValue, 64 bytes: access policy windows, ...): kept and given back, as an
 * H200 does (a virtual device has no L2 to manage); the legacy and per-thread streams have none. */
CU_EXPORT CUresult cuStreamSetAttribute(void *h, int attr, const void *value) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, "cuStreamSetAttribute", &s);
  if (!e && (!value || attr <= 0 || attr >= 16)) e = CUDA_ERROR_INVALID_VALUE;
  if (!e && s) memcpy(s->attrs[attr], value, 64);
  return cu_ret(e);
}

CU_EXPORT CUresult cuStreamGetAttribute(void *h, int attr, void *value) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, h, "cuStreamGetAttribute", &s);
  if (!e && (!value || attr <= 0 || attr >= 16)) e = CUDA_ERROR_INVALID_VALUE;
  if (!e && s) memcpy(value, s->attrs[attr], 64);
  else if (!e) memset(value, 0, 64);
  return cu_ret(e);
}

/* ---- events ---- */
CU_EXPORT CUresult cuEventCreate(void **ph, unsigned flags) {
  cu_driver *d = cu_lock();
  if (!ph || (flags & ~0xfu)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  cu_event *ev = calloc(1, sizeof *ev);
  void *h = ev ? cu_handle_new(d, CU_H_EVENT, ev) : NULL;
  if (!h) {
    free(ev);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  ev->flags = flags;
  *ph = h;
  return cu_ret(CUDA_SUCCESS);
}

static void event_free(cu_driver *d, void *h, cu_event *e) {
  cu_handle_drop(d, h);
  free(e->deps);
  free(e);
}

CU_EXPORT CUresult cuEventDestroy_v2(void *h) {
  cu_driver *d = cu_lock();
  cu_event *e;
  CUresult err = cu_event_get(d, h, "cuEventDestroy", &e);
  if (!err) event_free(d, h, e);
  return cu_ret(err);
}
CU_EXPORT CUresult cuEventDestroy(void *h) { return cuEventDestroy_v2(h); }

/* In a capture the record only remembers the stream's dependencies (CU_EVENT_RECORD_EXTERNAL: a record node
 * too); outside one it runs in stream order. */
CU_EXPORT CUresult cuEventRecordWithFlags(void *he, void *hs, unsigned flags) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  cu_event *e;
  CUresult err = cu_event_get(d, he, "cuEventRecord", &e);
  if (!err) err = cu_stream_get(d, hs, "cuEventRecord", &s);
  if (!err && flags > 1) err = CUDA_ERROR_INVALID_VALUE;
  if (err) return cu_ret(err);
  cu_op op = {.kind = OP_EVENT_RECORD, .u.ev = {he}};
  if (s && s->capture) {
    if ((flags & CU_EVENT_RECORD_EXTERNAL) && (err = cu_capture_op(d, s, &op))) return cu_ret(err);
    return cu_ret(cu_capture_record(d, s, e));
  }
  if ((err = cu_run_op(d, &op))) return cu_ret(err);
  e->cap_graph = NULL;
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuEventRecord(void *he, void *hs) { return cuEventRecordWithFlags(he, hs, 0); }

CU_EXPORT CUresult cuEventQuery(void *h) {
  cu_driver *d = cu_lock();
  cu_event *e;
  CUresult err = cu_event_get(d, h, "cuEventQuery", &e);
  return cu_ret(err ? err : cu_check(d));
}

CU_EXPORT CUresult cuEventSynchronize(void *h) {
  cu_driver *d = cu_lock();
  cu_event *e;
  CUresult err = cu_event_get(d, h, "cuEventSynchronize", &e);
  return cu_ret(err ? err : cu_synchronize(d));
}

CU_EXPORT CUresult cuEventElapsedTime_v2(float *ms, void *ha, void *hb) {
  cu_driver *d = cu_lock();
  cu_event *a, *b;
  CUresult err = cu_event_get(d, ha, "cuEventElapsedTime", &a);
  if (!err) err = cu_event_get(d, hb, "cuEventElapsedTime", &b);
  if (err) return cu_ret(err);
  if (!ms) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if ((a->flags & CU_EVENT_DISABLE_TIMING) || (b->flags & CU_EVENT_DISABLE_TIMING) || !a->recorded || !b->recorded)
    return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *ms = (float)((double)(b->t.tv_sec - a->t.tv_sec) * 1e3 + (double)(b->t.tv_nsec - a->t.tv_nsec) * 1e-6);
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuEventElapsedTime(float *ms, void *start, void *end) { return cuEventElapsedTime_v2(ms, start, end); }

void cu_streams_reset(cu_driver *d) {
  uint32_t i = 0;
  void *h;
  for (cu_stream *s; (s = cu_handle_next(d, CU_H_STREAM, &i, NULL));) stream_free(d, s);
  i = 0;
  for (cu_event *e; (e = cu_handle_next(d, CU_H_EVENT, &i, &h));) event_free(d, h, e);
}
