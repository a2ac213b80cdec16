/*
 * memory.c — memory management of the CUDA runtime: device memory (cudaMalloc: addresses the
 * host cannot dereference, reached only through cudaMemcpy), pinned host memory and managed
 * memory (identity-mapped into the vm: kernels and the host use the same pointer), copies and
 * sets in every direction (the vm knows which pointers are device memory, so cudaMemcpyDefault
 * works), 2D copies, symbols (cudaMemcpyToSymbol ...), cudaMemGetInfo, cudaPointerGetAttributes, and
 * stream-ordered allocation (cudaMallocAsync, cudaMallocFromPoolAsync, cudaFreeAsync: the driver's, from a
 * memory pool or, in a capture, as graph nodes). Allocations are entries of the driver's table (one per
 * process, which records which pool or graph an allocation belongs to); work on a capturing stream is handed
 * to the driver, which makes it graph nodes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/cudart.h"
#include "exec/mem.h"

/* ---- the allocation table: the driver's (one per process, shared by both APIs) ---- */
cr_alloc *wv_cr_alloc_find(cudart *r, const void *ptr) {
  (void)r;
  return wvcu_alloc_find((uintptr_t)ptr);
}

void wv_cr_alloc_free(cudart *r, cr_alloc *a) {
  (void)r;
  wvcu_alloc_remove(a); /* the driver's: a pool's or a graph's accounting too */
}

/* ---- allocation API ---- */
/* Device memory is the driver's (cuMemAlloc); 0 bytes allocate nothing. */
cudaError_t wv_cr_device_alloc(cudart *r, void **p, size_t n) {
  (void)r;
  *p = NULL;
  return n ? wv_cr_from_cu(cuMemAlloc_v2((CUdeviceptr *)p, n)) : cudaSuccess;
}

WV_EXPORT cudaError_t cudaMalloc(void **p, size_t n) {
  cudart *r = wv_cr();
  cudaError_t e = wv_cr_device_check(r);
  if (e) return wv_cr_ret(e);
  if (!p) return wv_cr_ret(cudaErrorInvalidValue);
  return wv_cr_ret(wv_cr_device_alloc(r, p, n));
}

/* Stream-ordered allocation runs at once, from the device's current pool (mempool.c); in a capture it
 * is an alloc node, whose memory exists while the graph's launch runs it (graph_exec.c). */
static cudaError_t malloc_async(cudart *r, void **p, size_t n, cudaMemPool_t pool, cudaStream_t hs) {
  int capturing;
  cudaError_t e = wv_cr_device_check(r);
  if (!e) e = wv_cr_stream_capturing(r, hs, &capturing);
  if (!e && !p) e = cudaErrorInvalidValue;
  if (e) return wv_cr_ret(e);
  if (!n && !capturing) { /* nothing allocated, as cudaMalloc */
    *p = NULL;
    return wv_cr_ret(cudaSuccess);
  }
  return wv_cr_ret(wv_cr_from_cu(cuMemAllocFromPoolAsync((CUdeviceptr *)p, n, pool, hs)));
}

WV_EXPORT cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) { return malloc_async(wv_cr(), p, n, NULL, s); }

WV_EXPORT cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
  cudart *r = wv_cr();
  if (!pool) return wv_cr_ret(cudaErrorInvalidValue);
  return malloc_async(r, p, n, pool, s);
}

/* Rows of `width` bytes, each starting 512 bytes apart (the texture alignment). A width or height of 0
 * allocates nothing (pitch 0); a size past the address space is cudaErrorInvalidValue, as on an H100. */
WV_EXPORT cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
  cudart *r = wv_cr();
  cudaError_t e = wv_cr_device_check(r);
  if (e) return wv_cr_ret(e);
  if (!p || !pitch) return wv_cr_ret(cudaErrorInvalidValue);
  *p = NULL;
  *pitch = 0;
  if (width > SIZE_MAX - 511) return wv_cr_ret(cudaErrorInvalidValue);
  size_t row = (width + 511) & ~(size_t)511;
  if (!width || !height) return wv_cr_ret(cudaSuccess);
  *pitch = row;
  if (height > SIZE_MAX / row) return wv_cr_ret(cudaErrorInvalidValue);
  return wv_cr_ret(wv_cr_device_alloc(r, p, row * height));
}

/* Host memory both sides use at the same address (pinned with cudaHostAllocMapped semantics, or managed): the
 * driver's (cuMemHostAlloc, cuMemAllocManaged). */
static cudaError_t host_shared(void **p, size_t n, int type) {
  cudart *r = wv_cr();
  cudaError_t e = wv_cr_device_check(r);
  if (e) return wv_cr_ret(e);
  if (!p) return wv_cr_ret(cudaErrorInvalidValue);
  *p = NULL;
  if (n == 0) return wv_cr_ret(type == cudaMemoryTypeManaged ? cudaErrorInvalidValue : cudaSuccess);
  if (type == cudaMemoryTypeManaged) return wv_cr_ret(wv_cr_from_cu(cuMemAllocManaged((CUdeviceptr *)p, n, 1)));
  return wv_cr_ret(wv_cr_from_cu(cuMemHostAlloc(p, n, 2))); /* CU_MEMHOSTALLOC_DEVICEMAP */
}

/* Registered host memory is the driver's (cudadrv/hostreg.c); so are its device pointer and flags. */
WV_EXPORT cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags) { WV_CR_CU(cuMemHostRegister_v2(p, n, flags)); }
WV_EXPORT cudaError_t cudaHostUnregister(void *p) { WV_CR_CU(cuMemHostUnregister(p)); }
WV_EXPORT cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned int flags) {
  WV_CR_CU(cuMemHostGetDevicePointer_v2((CUdeviceptr *)d, h, flags));
}
WV_EXPORT cudaError_t cudaHostGetFlags(unsigned int *flags, void *h) { WV_CR_CU(cuMemHostGetFlags(flags, h)); }

WV_EXPORT cudaError_t cudaMallocHost(void **p, size_t n) { return host_shared(p, n, cudaMemoryTypeHost); }
WV_EXPORT cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags) {
  (void)flags;
  return host_shared(p, n, cudaMemoryTypeHost);
}
WV_EXPORT cudaError_t cudaMallocManaged(void **p, size_t n, unsigned int flags) {
  (void)flags;
  return host_shared(p, n, cudaMemoryTypeManaged);
}

static cudaError_t free_of(const void *p, int want_host, int sync) {
  cudart *r = wv_cr();
  if (sync) wv_cr_sync_point(r); /* cudaFree synchronises (cudaFreeAsync does not) */
  if (!p) return wv_cr_ret(wv_cr_from_cu(wvcu_sticky()));
  cudaError_t e = wv_cr_device_check(r);
  if (e) return wv_cr_ret(e);
  cr_alloc *a = wv_cr_alloc_find(r, p);
  if (!a || a->base != (uintptr_t)p) return wv_cr_ret(cudaErrorInvalidValue);
  if (want_host ? a->type != cudaMemoryTypeHost || !a->owned : a->type == cudaMemoryTypeHost)
    return wv_cr_ret(cudaErrorInvalidValue);
  wv_cr_alloc_free(r, a);
  return wv_cr_ret(cudaSuccess);
}

/* cudaFree takes device and managed memory; cudaFreeHost pinned host memory. */
WV_EXPORT cudaError_t cudaFree(void *p) { return free_of(p, 0, 1); }
WV_EXPORT cudaError_t cudaFreeAsync(void *p, cudaStream_t hs) {
  cudart *r = wv_cr();
  int capturing;
  cudaError_t e = wv_cr_stream_capturing(r, hs, &capturing);
  if (e) return wv_cr_ret(e);
  if (capturing) return wv_cr_ret(wv_cr_from_cu(cuMemFreeAsync((CUdeviceptr)(uintptr_t)p, hs)));
  wv_cr_unlock(); /* the lock is recursive: free_of takes it again */
  return free_of(p, 0, 0);
}
WV_EXPORT cudaError_t cudaFreeHost(void *p) { return free_of(p, 1, 1); }

WV_EXPORT cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total) {
  cudart *r = wv_cr();
  cudaError_t e = wv_cr_device_check(r);
  if (e) return wv_cr_ret(e);
  if (free_b) *free_b = r->prop.totalGlobalMem - wvcu_dev_live();
  if (total) *total = r->prop.totalGlobalMem;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *at, const void *p) {
  cudart *r = wv_cr();
  if (!at) return wv_cr_ret(cudaErrorInvalidValue);
  memset(at, 0, sizeof *at);
  cr_alloc *a = wv_cr_alloc_find(r, p);
  wv_devptr base;
  size_t size;
  if (a) at->type = a->type == 4 ? cudaMemoryTypeManaged : (enum cudaMemoryType)a->type;
  else if (p && wv_pointer_query(r->vm, (wv_devptr)(uintptr_t)p, &base, &size) == WV_OK)
    at->type = cudaMemoryTypeDevice; /* a module variable (cudaGetSymbolAddress) */
  else at->type = cudaMemoryTypeUnregistered;
  at->device = at->type == cudaMemoryTypeUnregistered ? -2 : 0;
  if (at->type != cudaMemoryTypeUnregistered) at->devicePointer = (void *)p;
  if (at->type == cudaMemoryTypeHost || at->type == cudaMemoryTypeManaged || at->type == cudaMemoryTypeUnregistered)
    at->hostPointer = (void *)p;
  return wv_cr_ret(cudaSuccess);
}

/* Advice and prefetching change nothing on a machine with one memory. */
WV_EXPORT cudaError_t cudaMemAdvise(const void *p, size_t n, int advice, ...) {
  (void)p, (void)n, (void)advice;
  return cudaSuccess;
}
WV_EXPORT cudaError_t cudaMemPrefetchAsync(const void *p, size_t n, ...) {
  (void)p, (void)n;
  return cudaSuccess;
}
WV_EXPORT cudaError_t cudaMemAdvise_v2(const void *p, size_t n, int advice, ...) {
  (void)p, (void)n, (void)advice;
  return cudaSuccess;
}
WV_EXPORT cudaError_t cudaMemPrefetchAsync_v2(const void *p, size_t n, ...) {
  (void)p, (void)n;
  return cudaSuccess;
}
WV_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t s, void *p, size_t n, unsigned int flags) {
  (void)s, (void)p, (void)n, (void)flags;
  return cudaSuccess;
}

/* ---- copies ---- */
/* 1 if [p, p+n) is vm memory (device, pinned, managed, module variables), 0 host, -1 straddles. */
static int in_vm(cudart *r, const void *p, size_t n) {
  wv_devptr base;
  size_t size;
  if (wv_pointer_query(r->vm, (wv_devptr)(uintptr_t)p, &base, &size) != WV_OK) {
    /* No live allocation. An address in the vm's device range (which no host memory uses) is a stale or
     * made-up device pointer, not host memory: invalid. */
    uintptr_t a = (uintptr_t)p;
    return a >= WV_GLOBAL_BASE && a < WV_HEAP_END ? -1 : 0;
  }
  return n <= size - ((uintptr_t)p - base) ? 1 : -1; /* p is inside: p - base < size */
}

/* Copy n bytes; kind says which side the program thinks is the device. Pointers decide. */
cudaError_t wv_cr_copy(cudart *r, void *dst, const void *src, size_t n, int kind) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (n == 0) return cudaSuccess;
  if (!dst || !src) return cudaErrorInvalidValue;
  int dv = in_vm(r, dst, n), sv = in_vm(r, src, n);
  if (dv < 0 || sv < 0) return cudaErrorInvalidValue;
  if ((kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice) && !dv) return cudaErrorInvalidValue;
  if ((kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice) && !sv) return cudaErrorInvalidValue;
  wv_status st;
  if (dv && sv) st = wv_memcpy_dtod(r->vm, (wv_devptr)(uintptr_t)dst, (wv_devptr)(uintptr_t)src, n);
  else if (dv) st = wv_memcpy_htod(r->vm, (wv_devptr)(uintptr_t)dst, src, n);
  else if (sv) st = wv_memcpy_dtoh(r->vm, dst, (wv_devptr)(uintptr_t)src, n);
  else {
    memmove(dst, src, n);
    st = WV_OK;
  }
  return st == WV_OK ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t wv_cr_set(cudart *r, void *dst, int value, size_t n) {
  if (n == 0) return cudaSuccess;
  if (in_vm(r, dst, n) != 1) return cudaErrorInvalidValue;
  return wv_memset(r->vm, (wv_devptr)(uintptr_t)dst, value, n) == WV_OK ? cudaSuccess : cudaErrorInvalidValue;
}

/* A 2D range: h rows of w bytes, pitch apart, must lie inside the address space. */
static int rows_fit(const void *p, size_t pitch, size_t w, size_t h) {
  if (w > pitch) return 0;
  if (h > 1 && h - 1 > (SIZE_MAX - w) / pitch) return 0;
  return (h - 1) * pitch + w <= UINTPTR_MAX - (uintptr_t)p;
}

static void *row(const void *p, size_t pitch, size_t y) { return (void *)((uintptr_t)p + y * pitch); }

/* A blocking call on the legacy stream: synchronise, then run. */
static cudaError_t blocking_copy(void *dst, const void *src, size_t n, int kind) {
  cudart *r = wv_cr_enter("cudaMemcpy");
  wv_cr_sync_point(r);
  cudaError_t e = wv_cr_device_check(r);
  if (!e) e = wv_cr_copy(r, dst, src, n, kind);
  return wv_cr_ret(e);
}

/* Stream work runs now, or while the stream captures, goes to the driver, which makes it a graph node (a copy's
 * kind kept as the memory types of its two sides). */
static cudaError_t async_copy(void *dst, const void *src, size_t n, int kind, cudaStream_t hs) {
  cudart *r = wv_cr_enter("cudaMemcpyAsync");
  int capturing;
  cudaError_t e = wv_cr_device_check(r);
  if (!e) e = wv_cr_stream_capturing(r, hs, &capturing);
  if (e || !capturing) return wv_cr_ret(e ? e : wv_cr_copy(r, dst, src, n, kind));
  CUDA_MEMCPY3D c = {.srcHost = src, .srcDevice = (CUdeviceptr)(uintptr_t)src, .srcPitch = n, .srcHeight = 1,
                     .dstHost = dst, .dstDevice = (CUdeviceptr)(uintptr_t)dst, .dstPitch = n, .dstHeight = 1,
                     .WidthInBytes = n, .Height = 1, .Depth = 1};
  wv_cr_kind_types(kind, &c.srcMemoryType, &c.dstMemoryType);
  return wv_cr_ret(wv_cr_from_cu(cuMemcpy3DAsync_v2(&c, hs)));
}

static cudaError_t async_set(void *dst, int value, size_t n, cudaStream_t hs) {
  cudart *r = wv_cr_enter("cudaMemsetAsync");
  int capturing;
  cudaError_t e = wv_cr_device_check(r);
  if (!e) e = wv_cr_stream_capturing(r, hs, &capturing);
  if (e || !capturing) return wv_cr_ret(e ? e : wv_cr_set(r, dst, value, n));
  return wv_cr_ret(wv_cr_from_cu(cuMemsetD8Async((CUdeviceptr)(uintptr_t)dst, (unsigned char)value, n, hs)));
}

WV_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, int kind) {
  return blocking_copy(dst, src, n, kind);
}
WV_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, cudaStream_t s) {
  return async_copy(dst, src, n, kind, s);
}
WV_EXPORT cudaError_t cudaMemset(void *dst, int value, size_t n) {
  cudart *r = wv_cr();
  cudaError_t e = wv_cr_device_check(r);
  if (!e) e = wv_cr_set(r, dst, value, n);
  return wv_cr_ret(e);
}
WV_EXPORT cudaError_t cudaMemsetAsync(void *dst, int value, size_t n, cudaStream_t s) {
  return async_set(dst, value, n, s);
}

WV_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int ddev, const void *src, int sdev, size_t n) {
  if (ddev || sdev) return cudaErrorInvalidDevice;
  return blocking_copy(dst, src, n, cudaMemcpyDefault);
}


static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h, int kind,
                          cudaStream_t s, int async) {
  if (!w || !h) return cudaSuccess;
  if (w > dpitch || w > spitch) return cudaErrorInvalidPitchValue;
  if (!rows_fit(dst, dpitch, w, h) || !rows_fit(src, spitch, w, h)) return cudaErrorInvalidValue;
  for (size_t y = 0; y < h; y++) {
    cudaError_t e = async ? async_copy(row(dst, dpitch, y), row(src, spitch, y), w, kind, s)
                          : blocking_copy(row(dst, dpitch, y), row(src, spitch, y), w, kind);
    if (e) return e;
  }
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h,
                                   int kind) {
  return copy2d(dst, dpitch, src, spitch, w, h, kind, NULL, 0);
}
WV_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h,
                                        int kind, cudaStream_t s) {
  return copy2d(dst, dpitch, src, spitch, w, h, kind, s, 1);
}
static cudaError_t set2d(void *dst, size_t pitch, int value, size_t w, size_t h, cudaStream_t s, int async) {
  if (!w || !h) return cudaSuccess;
  if (!rows_fit(dst, pitch, w, h)) return cudaErrorInvalidValue;
  for (size_t y = 0; y < h; y++) {
    cudaError_t e = async ? async_set(row(dst, pitch, y), value, w, s) : cudaMemset(row(dst, pitch, y), value, w);
    if (e) return e;
  }
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaMemset2D(void *dst, size_t pitch, int value, size_t w, size_t h) {
  return set2d(dst, pitch, value, w, h, NULL, 0);
}
WV_EXPORT cudaError_t cudaMemset2DAsync(void *dst, size_t pitch, int value, size_t w, size_t h, cudaStream_t s) {
  return set2d(dst, pitch, value, w, h, s, 1);
}

/* ---- symbols ---- */
cudaError_t wv_cr_symbol_addr(cudart *r, const void *sym, size_t off, size_t n, void **out, size_t *size) {
  cr_var *v = wv_cr_var_find(r, sym);
  if (!v) return cudaErrorInvalidSymbol;
  wv_devptr a;
  size_t sz;
  cudaError_t e = wv_cr_var_addr(r, v, &a, &sz);
  if (e) return e;
  if (off > sz || n > sz - off) return cudaErrorInvalidValue;
  *out = (void *)(uintptr_t)(a + off);
  if (size) *size = sz;
  return cudaSuccess;
}

WV_EXPORT cudaError_t cudaGetSymbolAddress(void **p, const void *sym) {
  cudart *r = wv_cr();
  if (!p) return wv_cr_ret(cudaErrorInvalidValue);
  return wv_cr_ret(wv_cr_symbol_addr(r, sym, 0, 0, p, NULL));
}

WV_EXPORT cudaError_t cudaGetSymbolSize(size_t *n, const void *sym) {
  cudart *r = wv_cr();
  void *p;
  if (!n) return wv_cr_ret(cudaErrorInvalidValue);
  return wv_cr_ret(wv_cr_symbol_addr(r, sym, 0, 0, &p, n));
}

static cudaError_t symbol_copy(const void *sym, void *host, size_t n, size_t off, int kind, int to_sym,
                               cudaStream_t s, int async) {
  cudart *r = wv_cr();
  void *dev;
  cudaError_t e = wv_cr_symbol_addr(r, sym, off, n, &dev, NULL);
  if (e) return wv_cr_ret(e);
  if (to_sym ? kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault
             : kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return wv_cr_ret(cudaErrorInvalidMemcpyDirection);
  wv_cr_unlock();
  if (to_sym) return async ? async_copy(dev, host, n, kind, s) : blocking_copy(dev, host, n, kind);
  return async ? async_copy(host, dev, n, kind, s) : blocking_copy(host, dev, n, kind);
}

WV_EXPORT cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t n, size_t off, int kind) {
  return symbol_copy(sym, (void *)src, n, off, kind, 1, NULL, 0);
}
WV_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off, int kind) {
  return symbol_copy(sym, dst, n, off, kind, 0, NULL, 0);
}
WV_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *sym, const void *src, size_t n, size_t off, int kind,
                                              cudaStream_t s) {
  return symbol_copy(sym, (void *)src, n, off, kind, 1, s, 1);
}
WV_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t n, size_t off, int kind,
                                                cudaStream_t s) {
  return symbol_copy(sym, dst, n, off, kind, 0, s, 1);
}
