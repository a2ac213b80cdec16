/*
 * stream.c — streams, events and host callbacks: the driver's (cudadrv/stream.c), which the runtime's
 * functions call with their handles unchanged (a cudaStream_t is a CUstream, a cudaEvent_t a CUevent; the
 * legacy and per-thread default streams are 0, 1 and 2 in both), the errors CUDA numbers alike in both APIs
 * coming back as they are. What the runtime adds: its error record (the thread's last error), and which
 * kind of copy a memcpy kind is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/cudart.h"

enum { MEMTYPE_HOST = 1, MEMTYPE_DEVICE = 2, MEMTYPE_UNIFIED = 4 }; /* the driver's CU_MEMTYPE_* */

cudaError_t wv_cr_stream_capturing(cudart *r, cudaStream_t h, int *capturing) {
  (void)r;
  int status = 0;
  cudaError_t e = wv_cr_from_cu(cuStreamIsCapturing(h, &status));
  *capturing = !e && status == 1; /* CU_STREAM_CAPTURE_STATUS_ACTIVE */
  return e;
}

void wv_cr_kind_types(int kind, int *src, int *dst) {
  static const int S[] = {MEMTYPE_HOST, MEMTYPE_HOST, MEMTYPE_DEVICE, MEMTYPE_DEVICE},
                   D[] = {MEMTYPE_HOST, MEMTYPE_DEVICE, MEMTYPE_HOST, MEMTYPE_DEVICE};
  *src = kind >= 0 && kind < 4 ? S[kind] : MEMTYPE_UNIFIED;
  *dst = kind >= 0 && kind < 4 ? D[kind] : MEMTYPE_UNIFIED;
}

/* ---- streams ---- */
WV_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int prio) {
  WV_CR_CU(cuStreamCreateWithPriority((void **)s, flags, prio));
}
WV_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithPriority(s, 0, 0); }
WV_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
  return cudaStreamCreateWithPriority(s, flags, 0);
}
WV_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t h) { WV_CR_CU(cuStreamDestroy_v2(h)); }
WV_EXPORT cudaError_t cudaStreamQuery(cudaStream_t h) { WV_CR_CU(cuStreamQuery(h)); }
WV_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t h, unsigned int *flags) { WV_CR_CU(cuStreamGetFlags(h, flags)); }
WV_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t h, int *prio) { WV_CR_CU(cuStreamGetPriority(h, prio)); }
WV_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags) {
  WV_CR_CU(cuStreamWaitEvent(s, e, flags));
}
WV_EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t h, int attr, const void *value) {
  WV_CR_CU(cuStreamSetAttribute(h, attr, value));
}
WV_EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t h, int attr, void *value) {
  WV_CR_CU(cuStreamGetAttribute(h, attr, value));
}

WV_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t h) { WV_CR_CU(cuStreamSynchronize(h)); }

WV_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t h, cudaHostFn_t fn, void *user) {
  WV_CR_CU(cuLaunchHostFunc(h, fn, user));
}

WV_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t h, cudaStreamCallback_t cb, void *user, unsigned int flags) {
  (void)flags;
  cudart *r = wv_cr();
  int capturing;
  cudaError_t e = wv_cr_stream_capturing(r, h, &capturing);
  if (e || !cb) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  wv_cr_sync_point(r);
  cb(h, wvcu_sticky(), user);
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

/* ---- events ---- */
WV_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *out, unsigned int flags) {
  WV_CR_CU(cuEventCreate((void **)out, flags));
}
WV_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, 0); }
WV_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t h) { WV_CR_CU(cuEventDestroy_v2(h)); }
WV_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
  WV_CR_CU(cuEventRecordWithFlags(e, s, flags));
}
WV_EXPORT cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { return cudaEventRecordWithFlags(e, s, 0); }
WV_EXPORT cudaError_t cudaEventQuery(cudaEvent_t h) { WV_CR_CU(cuEventQuery(h)); }
WV_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  WV_CR_CU(cuEventElapsedTime_v2(ms, a, b));
}

WV_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t h) { WV_CR_CU(cuEventSynchronize(h)); }
