/*
 * stream.c — streams, events and host callbacks of the driver. Work runs when it is enqueued (the
 * vm is synchronous), so a stream is always idle: synchronising on it is a flush point (device
 * printf, a pending fault becoming sticky), a query answers CUDA_SUCCESS, an event records the time
 * its stream's earlier work ended, and a host function runs at once, after the earlier work. The
 * special handles CU_STREAM_LEGACY (1) and CU_STREAM_PER_THREAD (2) and NULL name the default stream.
 * Stream capture is not supported by the driver yet (graphs are warpvm's runtime's, for now).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/cuapi.h"

/* A stream handle the program may pass: NULL, the two special ones, or a live stream. */
static int stream_ok(const cu_driver *d, const void *s) {
  return (uintptr_t)s <= 2 || cu_obj_check(d, s, CU_K_STREAM);
}

static CUresult stream_create(void **ph, unsigned flags, int prio) {
  cu_driver *d = cu_lock();
  if (!ph || (flags & ~1u)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = cu_check(d);
  if (e) return cu_ret(e);
  cu_stream *s = calloc(1, sizeof *s);
  if (!s || cu_obj_add(d, s, CU_K_STREAM)) {
    free(s);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  s->flags = flags;
  s->prio = prio > 0 ? 0 : prio < -5 ? -5 : prio; /* the device's range: 0 (least) to -5 (greatest) */
  s->ctx = cu_current();
  *ph = s;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamCreate(void **ph, unsigned flags) { return stream_create(ph, flags, 0); }
CU_EXPORT CUresult cuStreamCreateWithPriority(void **ph, unsigned flags, int prio) { return stream_create(ph, flags, prio); }

CU_EXPORT CUresult cuStreamDestroy_v2(void *h) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, h, CU_K_STREAM)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_obj_del(d, h);
  free(h);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamSynchronize(void *h) {
  cu_driver *d = cu_lock();
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_sync_point(d);
  fflush(stdout);
  return cu_ret(cu_check(d));
}

CU_EXPORT CUresult cuStreamQuery(void *h) {
  cu_driver *d = cu_lock();
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  return cu_ret(cu_check(d));
}

CU_EXPORT CUresult cuStreamWaitEvent(void *h, void *ev, unsigned flags) {
  cu_driver *d = cu_lock();
  if (!stream_ok(d, h) || !cu_obj_check(d, ev, CU_K_EVENT)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  return cu_ret(flags > 1 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamGetPriority(void *h, int *prio) {
  cu_driver *d = cu_lock();
  if (!prio) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *prio = (uintptr_t)h <= 2 ? 0 : ((cu_stream *)h)->prio;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamGetFlags(void *h, unsigned *flags) {
  cu_driver *d = cu_lock();
  if (!flags) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *flags = (uintptr_t)h <= 2 ? 0 : ((cu_stream *)h)->flags;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamGetId(void *h, unsigned long long *id) {
  cu_driver *d = cu_lock();
  if (!id) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *id = (uintptr_t)h <= 2 ? (unsigned long long)(uintptr_t)h : (unsigned long long)(uintptr_t)h >> 4;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamGetCtx(void *h, void **pctx) {
  cu_driver *d = cu_lock();
  if (!pctx) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_ctx *c = (uintptr_t)h <= 2 ? cu_current() : ((cu_stream *)h)->ctx;
  *pctx = c ? c : &d->primary;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamGetDevice(void *h, CUdevice *dev) {
  cu_driver *d = cu_lock();
  if (!dev) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *dev = 0;
  return cu_ret(CUDA_SUCCESS);
}

/* Capture status: never capturing (CU_STREAM_CAPTURE_STATUS_NONE). */
CU_EXPORT CUresult cuStreamIsCapturing(void *h, int *status) {
  cu_driver *d = cu_lock();
  if (!status) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *status = 0;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamGetCaptureInfo_v3(void *h, int *status, unsigned long long *id, void **graph,
                                            const void **deps, const void **edges, size_t *ndeps) {
  (void)id, (void)edges;
  CUresult e = cuStreamIsCapturing(h, status);
  if (e == CUDA_SUCCESS) {
    if (graph) *graph = NULL;
    if (deps) *deps = NULL;
    if (ndeps) *ndeps = 0;
  }
  return e;
}

CU_EXPORT CUresult cuStreamGetCaptureInfo_v2(void *h, int *status, unsigned long long *id, void **graph,
                                            const void **deps, size_t *ndeps) {
  return cuStreamGetCaptureInfo_v3(h, status, id, graph, deps, NULL, ndeps);
}

/* Host work runs now, after the stream's earlier work (whose printf output comes first). */
typedef void (*host_fn)(void *user);
typedef void (*stream_cb)(void *stream, CUresult status, void *user);

CU_EXPORT CUresult cuLaunchHostFunc(void *h, host_fn fn, void *user) {
  cu_driver *d = cu_lock();
  if (!fn) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  CUresult e = cu_check(d);
  if (e) return cu_ret(e);
  cu_flush_printf(d);
  cu_ret(CUDA_SUCCESS);
  fn(user); /* unlocked: the function may call the driver */
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuStreamAddCallback(void *h, stream_cb cb, void *user, unsigned flags) {
  cu_driver *d = cu_lock();
  if (!cb || flags) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_sync_point(d);
  CUresult st = d->sticky;
  cu_ret(CUDA_SUCCESS);
  cb(h, st, user);
  return CUDA_SUCCESS;
}

/* Stream attributes (CUlaunchAttributeValue, 64 bytes: access policy windows, ...): kept and given back, as an
 * H200 does; the legacy and per-thread streams have none. */
CU_EXPORT CUresult cuStreamSetAttribute(void *h, int attr, const void *value) {
  cu_driver *d = cu_lock();
  if (!value || attr <= 0 || attr >= 16) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  if ((uintptr_t)h > 2) memcpy(((cu_stream *)h)->attrs[attr], value, 64);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuStreamGetAttribute(void *h, int attr, void *value) {
  cu_driver *d = cu_lock();
  if (!value || attr <= 0 || attr >= 16) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!stream_ok(d, h)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  if ((uintptr_t)h > 2) memcpy(value, ((cu_stream *)h)->attrs[attr], 64);
  else memset(value, 0, 64);
  return cu_ret(CUDA_SUCCESS);
}

/* ---- events ---- */
CU_EXPORT CUresult cuEventCreate(void **ph, unsigned flags) {
  cu_driver *d = cu_lock();
  if (!ph || (flags & ~0xfu)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  cu_event *ev = calloc(1, sizeof *ev);
  if (!ev || cu_obj_add(d, ev, CU_K_EVENT)) {
    free(ev);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  ev->flags = flags;
  *ph = ev;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuEventDestroy_v2(void *h) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, h, CU_K_EVENT)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_obj_del(d, h);
  free(h);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuEventRecord(void *h, void *stream) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, h, CU_K_EVENT) || !stream_ok(d, stream)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_event *ev = h;
  ev->recorded = 1;
  clock_gettime(CLOCK_MONOTONIC, &ev->t);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuEventRecordWithFlags(void *h, void *stream, unsigned flags) {
  if (flags > 1) return CUDA_ERROR_INVALID_VALUE;
  return cuEventRecord(h, stream);
}

CU_EXPORT CUresult cuEventQuery(void *h) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, h, CU_K_EVENT)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  return cu_ret(cu_check(d));
}

CU_EXPORT CUresult cuEventSynchronize(void *h) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, h, CU_K_EVENT)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_sync_point(d);
  fflush(stdout);
  return cu_ret(cu_check(d));
}

CU_EXPORT CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  cu_driver *d = cu_lock();
  if (!ms) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, start, CU_K_EVENT) || !cu_obj_check(d, end, CU_K_EVENT)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_event *a = start, *b = end;
  if ((a->flags & 2) || (b->flags & 2)) return cu_ret(CUDA_ERROR_INVALID_HANDLE); /* CU_EVENT_DISABLE_TIMING */
  if (!a->recorded || !b->recorded) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *ms = (float)((double)(b->t.tv_sec - a->t.tv_sec) * 1e3 + (double)(b->t.tv_nsec - a->t.tv_nsec) * 1e-6);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuEventElapsedTime(float *ms, void *start, void *end) { return cuEventElapsedTime_v2(ms, start, end); }
