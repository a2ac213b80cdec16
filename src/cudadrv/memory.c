/*
 * memory.c — the driver's memory API: device memory (cuMemAlloc: addresses the host cannot
 * dereference), pinned host memory and managed memory (identity-mapped into the vm: kernels and
 * the host use the same pointer), registered host memory, pitched allocations, copies and sets in
 * every direction (unified addressing: the vm knows which pointers are device memory), 2D copies,
 * cuMemGetInfo, cuMemGetAddressRange and pointer attributes; the process's one allocation table (warpvm's
 * runtime's too). Work on a stream runs at once or, while the stream captures, becomes a graph node;
 * stream-ordered allocation draws from a memory pool (mempool.c) or, in a capture, is a graph alloc node.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/cuapi.h"
#include "cudadrv/graph.h"
#include "cudadrv/wvcu.h"
#include "exec/mem.h"

/* ---- the allocation table (sorted by base): the process's one, warpvm's runtime's too (wvcu.h) ---- */
static int alloc_index(cu_driver *d, uintptr_t p) { /* last entry with base <= p, or -1 */
  int lo = 0, hi = (int)d->nallocs;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (d->allocs[mid].base <= p) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

cu_alloc *cu_alloc_find(cu_driver *d, uintptr_t p) {
  int i = alloc_index(d, p);
  if (i < 0) return NULL;
  cu_alloc *a = &d->allocs[i];
  return p - a->base < (a->size ? a->size : 1) ? a : NULL;
}

int cu_alloc_add(cu_driver *d, uintptr_t base, size_t size, int type, int owned, int registered) {
  if (d->nallocs == d->capallocs) {
    if (d->capallocs >= 1u << 30) return -1;
    uint32_t nc = d->capallocs ? 2 * d->capallocs : 64;
    cu_alloc *n = realloc(d->allocs, nc * sizeof *n);
    if (!n) return -1;
    d->allocs = n;
    d->capallocs = nc;
  }
  int i = alloc_index(d, base) + 1;
  memmove(&d->allocs[i + 1], &d->allocs[i], (d->nallocs - (uint32_t)i) * sizeof *d->allocs);
  d->allocs[i] = (cu_alloc){.base = base, .size = size, .type = type, .owned = owned, .registered = registered};
  d->nallocs++;
  if (type == CU_MEMTYPE_DEVICE) d->dev_live += size;
  return 0;
}

static void alloc_release(cu_driver *d, cu_alloc *a) {
  if (a->registered && d->nregistered) d->nregistered--;
  if (a->type == CU_MEMTYPE_DEVICE) {
    if (a->pool) cu_pool_freed(d, a->pool, a->size);
    if (a->galloc) cu_galloc_dead(d, a->galloc); /* its graph keeps the memory */
    else wv_free(d->vm, (wv_devptr)a->base);
    d->dev_live -= a->size;
  } else {
    wv_unmap_host(d->vm, (void *)a->base);
    if (a->owned) free((void *)a->base);
  }
}

void cu_alloc_remove(cu_driver *d, cu_alloc *a) {
  alloc_release(d, a);
  uint32_t i = (uint32_t)(a - d->allocs);
  memmove(a, a + 1, (d->nallocs - i - 1) * sizeof *a);
  d->nallocs--;
}

void cu_reset_memory(cu_driver *d) {
  for (uint32_t i = 0; i < d->nallocs; i++) alloc_release(d, &d->allocs[i]);
  d->nallocs = 0;
  d->nregistered = 0;
  d->dev_live = 0;
}

/* The table for warpvm's runtime (wvcu.h). */
CU_EXPORT void wvcu_lock(void) { cu_lock(); }
CU_EXPORT void wvcu_unlock(void) { cu_ret(CUDA_SUCCESS); }
CU_EXPORT wvcu_alloc *wvcu_alloc_find(uintptr_t p) {
  cu_alloc *a = cu_alloc_find(cu_lock(), p);
  cu_ret(CUDA_SUCCESS);
  return a;
}
CU_EXPORT wvcu_alloc *wvcu_alloc_at(uint32_t i) {
  cu_driver *d = cu_lock();
  cu_alloc *a = i < d->nallocs ? &d->allocs[i] : NULL;
  cu_ret(CUDA_SUCCESS);
  return a;
}
CU_EXPORT int wvcu_alloc_add(uintptr_t base, size_t size, int type, int owned, int registered) {
  int r = cu_alloc_add(cu_lock(), base, size, type, owned, registered);
  cu_ret(CUDA_SUCCESS);
  return r;
}
CU_EXPORT void wvcu_alloc_remove(wvcu_alloc *a) {
  cu_alloc_remove(cu_lock(), a);
  cu_ret(CUDA_SUCCESS);
}
CU_EXPORT size_t wvcu_dev_live(void) {
  size_t n = cu_lock()->dev_live;
  cu_ret(CUDA_SUCCESS);
  return n;
}
CU_EXPORT void wvcu_reset_memory(void) {
  cu_reset_memory(cu_lock());
  cu_ret(CUDA_SUCCESS);
}

/* ---- allocation API ---- */
CU_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t n) {
  cu_driver *d = cu_lock();
  CUresult e = cu_check(d);
  if (e) return cu_ret(e);
  if (!dptr || !n) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  wv_devptr p;
  if (n > d->prop.totalGlobalMem - d->dev_live || wv_malloc(d->vm, n, &p) != WV_OK) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  if (cu_alloc_add(d, (uintptr_t)p, n, CU_MEMTYPE_DEVICE, 0, 0)) {
    wv_free(d->vm, p);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  *dptr = p;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t w, size_t h, unsigned elem) {
  if (!pitch || (elem != 4 && elem != 8 && elem != 16)) return CUDA_ERROR_INVALID_VALUE;
  size_t row = (w + 511) & ~(size_t)511;
  if (!w || !h || row < w || h > SIZE_MAX / row) return CUDA_ERROR_INVALID_VALUE;
  *pitch = row;
  return cuMemAlloc_v2(dptr, row * h);
}

/* Stream-ordered allocation: at once from a memory pool (mempool.c), or while the stream captures, a graph alloc
 * node (its address fixed now). */
CU_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t n, void *pool, void *stream) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_check(d);
  if (!e) e = cu_stream_get(d, stream, "cuMemAllocAsync", &s);
  if (!e && (!dptr || !n)) e = CUDA_ERROR_INVALID_VALUE;
  if (e || (s && s->capture)) return cu_ret(e ? e : cu_capture_alloc(d, s, n, dptr));
  return cu_ret(cu_pool_alloc(d, pool, n, dptr));
}

CU_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t n, void *stream) {
  return cuMemAllocFromPoolAsync(dptr, n, NULL, stream);
}

/* Host memory the vm maps at its own address (pinned, managed): whole pages, zeroed; a size past the address
 * space is CUDA_ERROR_OUT_OF_MEMORY. */
static CUresult host_alloc(void **pp, size_t n, int type) {
  cu_driver *d = cu_lock();
  CUresult e = cu_check(d);
  if (e) return cu_ret(e);
  if (!pp || !n) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (n > SIZE_MAX - 4095) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  size_t sz = (n + 4095) & ~(size_t)4095;
  void *p = aligned_alloc(4096, sz);
  if (!p) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  memset(p, 0, sz);
  if (wv_map_host(d->vm, p, n) != WV_OK) {
    free(p);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  if (cu_alloc_add(d, (uintptr_t)p, n, type, 1, 0)) {
    wv_unmap_host(d->vm, p);
    free(p);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  *pp = p;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t n) { return host_alloc(pp, n, CU_MEMTYPE_HOST); }
CU_EXPORT CUresult cuMemHostAlloc(void **pp, size_t n, unsigned flags) {
  if (flags & ~0xfu) return CUDA_ERROR_INVALID_VALUE;
  return host_alloc(pp, n, CU_MEMTYPE_HOST);
}
CU_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t n, unsigned flags) {
  if (flags != 1 && flags != 2) return CUDA_ERROR_INVALID_VALUE; /* CU_MEM_ATTACH_GLOBAL / HOST */
  void *p = NULL;
  CUresult e = host_alloc(&p, n, CU_MEMTYPE_UNIFIED);
  if (e == CUDA_SUCCESS) *dptr = (CUdeviceptr)(uintptr_t)p;
  return e;
}

static CUresult free_of(uintptr_t p, int host) {
  cu_driver *d = cu_lock();
  cu_sync_point(d); /* cuMemFree synchronises */
  CUresult e = cu_check(d); /* after a device fault the context's error, as on a GPU (tests/programs tma_tile.static) */
  if (e) return cu_ret(e);
  if (!p) return cu_ret(CUDA_SUCCESS);
  cu_alloc *a = cu_alloc_find(d, p);
  if (!a || a->base != p || a->registered || (a->type == CU_MEMTYPE_HOST) != host)
    return cu_ret(CUDA_ERROR_INVALID_VALUE);
  cu_alloc_remove(d, a);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemFree_v2(CUdeviceptr p) { return free_of((uintptr_t)p, 0); }
CU_EXPORT CUresult cuMemFreeHost(void *p) { return free_of((uintptr_t)p, 1); }
/* A free in stream order: at once (no synchronisation), or a graph free node while the stream captures. */
CU_EXPORT CUresult cuMemFreeAsync(CUdeviceptr p, void *stream) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_stream_get(d, stream, "cuMemFreeAsync", &s);
  if (e || (s && s->capture)) return cu_ret(e ? e : cu_capture_free(d, s, p));
  cu_alloc *a = p ? cu_alloc_find(d, p) : NULL;
  if (p && (!a || a->base != p || a->registered || a->type == CU_MEMTYPE_HOST)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (a) cu_alloc_remove(d, a);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned flags) {
  cu_driver *d = cu_lock();
  if (!dptr || flags) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  cu_alloc *a = cu_alloc_find(d, (uintptr_t)p);
  if (!a || a->type == CU_MEMTYPE_DEVICE) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  *dptr = (CUdeviceptr)(uintptr_t)p;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemHostGetFlags(unsigned *flags, void *p) {
  cu_driver *d = cu_lock();
  if (!flags) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  cu_alloc *a = cu_alloc_find(d, (uintptr_t)p);
  if (!a || a->type != CU_MEMTYPE_HOST) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  *flags = 2; /* CU_MEMHOSTALLOC_DEVICEMAP: every host allocation is mapped */
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total) {
  cu_driver *d = cu_lock();
  if (free_b) *free_b = d->prop.totalGlobalMem - d->dev_live;
  if (total) *total = d->prop.totalGlobalMem;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr p) {
  cu_driver *d = cu_lock();
  wv_devptr b;
  size_t s;
  if (wv_pointer_query(d->vm, p, &b, &s) != WV_OK) return cu_ret(CUDA_ERROR_NOT_FOUND);
  if (base) *base = b;
  if (size) *size = s;
  return cu_ret(CUDA_SUCCESS);
}

/* CU_POINTER_ATTRIBUTE_*: what a pointer is (cuda.h numbers). */
static CUresult pointer_attribute(cu_driver *d, void *out, int attr, uintptr_t p) {
  cu_alloc *a = cu_alloc_find(d, p);
  wv_devptr b = 0;
  size_t s = 0;
  int known = a || wv_pointer_query(d->vm, p, &b, &s) == WV_OK;
  int type = a ? (a->type == CU_MEMTYPE_UNIFIED ? CU_MEMTYPE_DEVICE : a->type) : CU_MEMTYPE_DEVICE;
  if (a) b = a->base, s = a->size;
  if (!known && attr != 8 && attr != 13) return CUDA_ERROR_INVALID_VALUE;
  switch (attr) {
  case 1: *(void **)out = &d->primary; break;                          /* CONTEXT */
  case 2: *(unsigned *)out = (unsigned)type; break;                    /* MEMORY_TYPE */
  case 3: *(CUdeviceptr *)out = p; break;                              /* DEVICE_POINTER */
  case 4:                                                              /* HOST_POINTER */
    if (type == CU_MEMTYPE_DEVICE && !(a && a->type == CU_MEMTYPE_UNIFIED)) return CUDA_ERROR_INVALID_VALUE;
    *(void **)out = (void *)p;
    break;
  case 6: *(int *)out = 1; break;                                      /* SYNC_MEMOPS */
  case 7: *(unsigned long long *)out = b; break;                       /* BUFFER_ID */
  case 8: *(int *)out = a && a->type == CU_MEMTYPE_UNIFIED; break;     /* IS_MANAGED */
  case 9: *(int *)out = 0; break;                                      /* DEVICE_ORDINAL */
  case 11: *(CUdeviceptr *)out = b; break;                             /* RANGE_START_ADDR */
  case 12: *(size_t *)out = s; break;                                  /* RANGE_SIZE */
  case 13: *(int *)out = known; break;                                 /* MAPPED */
  case 16: *(int *)out = 3; break;                                     /* ACCESS_FLAGS: read-write */
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr p) {
  cu_driver *d = cu_lock();
  if (!data) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  return cu_ret(pointer_attribute(d, data, attr, (uintptr_t)p));
}

CU_EXPORT CUresult cuPointerGetAttributes(unsigned n, int *attrs, void **data, CUdeviceptr p) {
  cu_driver *d = cu_lock();
  if (!attrs || !data) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  for (unsigned i = 0; i < n; i++) {
    /* For an unknown pointer the attributes read as zero, as the CUDA documentation says. */
    if (data[i] && pointer_attribute(d, data[i], attrs[i], (uintptr_t)p) != CUDA_SUCCESS) {
      size_t z = attrs[i] == 2 || attrs[i] == 6 || attrs[i] == 8 || attrs[i] == 9 || attrs[i] == 13 ? 4 : 8;
      memset(data[i], 0, z);
    }
  }
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuPointerSetAttribute(const void *value, int attr, CUdeviceptr p) {
  (void)value, (void)p;
  return attr == 6 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Advice and prefetching change nothing on a machine with one memory. */
CU_EXPORT CUresult cuMemAdvise_v2(CUdeviceptr p, size_t n, int advice, int loc_type, int loc_id) {
  (void)p, (void)n, (void)advice, (void)loc_type, (void)loc_id;
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuMemPrefetchAsync_v2(CUdeviceptr p, size_t n, int loc_type, int loc_id, unsigned flags, void *s) {
  (void)p, (void)n, (void)loc_type, (void)loc_id, (void)flags, (void)s;
  return CUDA_SUCCESS;
}

/* ---- copies and sets ---- */
/* 1 if [p, p+n) is vm memory (device, pinned, managed, module variables), 0 host, -1 invalid. */
static int in_vm(cu_driver *d, uintptr_t p, size_t n) {
  wv_devptr base;
  size_t size;
  if (wv_pointer_query(d->vm, p, &base, &size) != WV_OK) return p >= WV_GLOBAL_BASE && p < WV_HEAP_END ? -1 : 0;
  return n <= size - (p - base) ? 1 : -1;
}

CUresult cu_copy(cu_driver *d, uintptr_t dst, uintptr_t src, size_t n) {
  if (n == 0) return CUDA_SUCCESS;
  if (!dst || !src) return CUDA_ERROR_INVALID_VALUE;
  int dv = in_vm(d, dst, n), sv = in_vm(d, src, n);
  if (dv < 0 || sv < 0) return CUDA_ERROR_INVALID_VALUE;
  wv_status st = WV_OK;
  if (dv && sv) st = wv_memcpy_dtod(d->vm, dst, src, n);
  else if (dv) st = wv_memcpy_htod(d->vm, dst, (const void *)src, n);
  else if (sv) st = wv_memcpy_dtoh(d->vm, (void *)dst, src, n);
  else memmove((void *)dst, (const void *)src, n);
  return st == WV_OK ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cu_set(cu_driver *d, uintptr_t dst, const void *pattern, unsigned elem, size_t count) {
  if (!count) return CUDA_SUCCESS;
  if (dst % elem || count > SIZE_MAX / elem || in_vm(d, dst, count * elem) != 1) return CUDA_ERROR_INVALID_VALUE;
  if (elem == 1) return wv_memset(d->vm, dst, *(const uint8_t *)pattern, count) == WV_OK ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  uint8_t buf[4096];
  size_t per = sizeof buf / elem;
  for (size_t i = 0; i < per; i++) memcpy(buf + i * elem, pattern, elem);
  for (size_t done = 0; done < count; done += per) {
    size_t k = count - done < per ? count - done : per;
    if (wv_memcpy_htod(d->vm, dst + done * elem, buf, k * elem) != WV_OK) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* Every copy: the context's state, then the copy (a blocking one is a flush point first); on a capturing
 * stream, a memcpy node (the memory types say what the copy's kind was). */
static CUresult copy_on(void *stream, uintptr_t dst, uintptr_t src, size_t n, int blocking, int stype, int dtype) {
  cu_driver *d = cu_lock();
  if (blocking) cu_sync_point(d);
  cu_stream *s = NULL;
  CUresult e = cu_check(d);
  if (!e) e = cu_stream_get(d, stream, "cuMemcpyAsync", &s);
  if (e || !s || !s->capture) return cu_ret(e ? e : cu_copy(d, dst, src, n));
  CUDA_MEMCPY3D c = {.srcMemoryType = stype, .srcHost = (const void *)src, .srcDevice = src, .srcPitch = n,
                     .srcHeight = 1, .dstMemoryType = dtype, .dstHost = (void *)dst, .dstDevice = dst, .dstPitch = n,
                     .dstHeight = 1, .WidthInBytes = n, .Height = 1, .Depth = 1};
  cu_op op;
  if (!(e = cu_memcpy_op(d, &c, &op))) e = cu_capture_op(d, s, &op);
  return cu_ret(e);
}
#define copy(dst, src, n, blocking) copy_on(NULL, dst, src, n, blocking, CU_MEMTYPE_UNIFIED, CU_MEMTYPE_UNIFIED)
enum { U = CU_MEMTYPE_UNIFIED, H = CU_MEMTYPE_HOST, D = CU_MEMTYPE_DEVICE };

CU_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy(dst, src, n, 1); }
CU_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
  return copy_on(s, dst, src, n, 0, U, U);
}
CU_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) { return copy(dst, (uintptr_t)src, n, 1); }
CU_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) { return copy((uintptr_t)dst, src, n, 1); }
CU_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy(dst, src, n, 0); }
CU_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *s) {
  return copy_on(s, dst, (uintptr_t)src, n, 0, H, D);
}
CU_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *s) {
  return copy_on(s, (uintptr_t)dst, src, n, 0, D, H);
}
CU_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
  return copy_on(s, dst, src, n, 0, D, D);
}
CU_EXPORT CUresult cuMemcpyPeer(CUdeviceptr dst, void *dctx, CUdeviceptr src, void *sctx, size_t n) {
  (void)dctx, (void)sctx;
  return copy(dst, src, n, 1);
}
CU_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, void *dctx, CUdeviceptr src, void *sctx, size_t n, void *s) {
  (void)dctx, (void)sctx;
  return copy_on(s, dst, src, n, 0, U, U);
}

/* 2D sets: h rows of w elements, pitch bytes apart (one row: a plain set). */
CUresult cu_set2d(cu_driver *d, CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem, size_t w, size_t h) {
  if (h > 1 && w * elem > pitch) return CUDA_ERROR_INVALID_VALUE;
  for (size_t y = 0; y < h; y++) {
    CUresult e = cu_set(d, dst + y * pitch, &value, elem, w);
    if (e) return e;
  }
  return CUDA_SUCCESS;
}

/* Every set: the context's state, then the set; on a capturing stream, a memset node. */
static CUresult set_on(void *stream, CUdeviceptr dst, size_t pitch, unsigned v, unsigned elem, size_t w, size_t h) {
  cu_driver *d = cu_lock();
  cu_stream *s = NULL;
  CUresult e = cu_check(d);
  if (!e) e = cu_stream_get(d, stream, "cuMemsetAsync", &s);
  if (e || !s || !s->capture) return cu_ret(e ? e : cu_set2d(d, dst, pitch, v, elem, w, h));
  cu_memset_params p = {dst, pitch, v, elem, w, h, NULL};
  cu_op op;
  if (!(e = cu_memset_op(d, &p, &op))) e = cu_capture_op(d, s, &op);
  return cu_ret(e);
}

CU_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) { return set_on(NULL, dst, n, v, 1, n, 1); }
CU_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short v, size_t n) { return set_on(NULL, dst, 2 * n, v, 2, n, 1); }
CU_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned v, size_t n) { return set_on(NULL, dst, 4 * n, v, 4, n, 1); }
CU_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, void *s) { return set_on(s, dst, n, v, 1, n, 1); }
CU_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, void *s) {
  return set_on(s, dst, 2 * n, v, 2, n, 1);
}
CU_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, void *s) { return set_on(s, dst, 4 * n, v, 4, n, 1); }
CU_EXPORT CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char v, size_t w, size_t h) {
  return set_on(NULL, dst, pitch, v, 1, w, h);
}
CU_EXPORT CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short v, size_t w, size_t h) {
  return set_on(NULL, dst, pitch, v, 2, w, h);
}
CU_EXPORT CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned v, size_t w, size_t h) {
  return set_on(NULL, dst, pitch, v, 4, w, h);
}
CU_EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char v, size_t w, size_t h, void *s) {
  return set_on(s, dst, pitch, v, 1, w, h);
}
CU_EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short v, size_t w, size_t h, void *s) {
  return set_on(s, dst, pitch, v, 2, w, h);
}
CU_EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned v, size_t w, size_t h, void *s) {
  return set_on(s, dst, pitch, v, 4, w, h);
}

/* CUDA_MEMCPY2D / CUDA_MEMCPY3D (cuda.h layouts). Arrays are not supported. */
typedef struct {
  size_t srcXInBytes, srcY;
  int srcMemoryType; const void *srcHost; CUdeviceptr srcDevice; void *srcArray; size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType; void *dstHost; CUdeviceptr dstDevice; void *dstArray; size_t dstPitch;
  size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

/* The base address a side of a copy names (memory type HOST, DEVICE or UNIFIED; ARRAY = 3 unsupported). */
static int side(int type, const void *host, CUdeviceptr dev, uintptr_t *out) {
  if (type == CU_MEMTYPE_HOST) *out = (uintptr_t)host;
  else if (type == CU_MEMTYPE_DEVICE || type == CU_MEMTYPE_UNIFIED) *out = (uintptr_t)dev;
  else return -1;
  return 0;
}

CUresult cu_copy3d(cu_driver *d, const CUDA_MEMCPY3D *c) {
  uintptr_t s, dd;
  if (side(c->srcMemoryType, c->srcHost, c->srcDevice, &s) || side(c->dstMemoryType, c->dstHost, c->dstDevice, &dd))
    return CUDA_ERROR_NOT_SUPPORTED;
  size_t w = c->WidthInBytes, h = c->Height, depth = c->Depth;
  if (!w || !h || !depth) return CUDA_SUCCESS;
  if ((h > 1 || depth > 1) && (w > c->srcPitch || w > c->dstPitch)) return CUDA_ERROR_INVALID_VALUE;
  for (size_t z = 0; z < depth; z++)
    for (size_t y = 0; y < h; y++) { /* every row's address computed without wrapping around */
      size_t ra, rb, oa, ob;
      uintptr_t a, b;
      if (__builtin_add_overflow(c->srcZ, z, &ra) || __builtin_mul_overflow(ra, c->srcHeight, &ra) ||
          __builtin_add_overflow(ra, c->srcY + y, &ra) || __builtin_mul_overflow(ra, c->srcPitch, &oa) ||
          __builtin_add_overflow(oa, c->srcXInBytes, &oa) || __builtin_add_overflow(s, oa, &a) ||
          __builtin_add_overflow(c->dstZ, z, &rb) || __builtin_mul_overflow(rb, c->dstHeight, &rb) ||
          __builtin_add_overflow(rb, c->dstY + y, &rb) || __builtin_mul_overflow(rb, c->dstPitch, &ob) ||
          __builtin_add_overflow(ob, c->dstXInBytes, &ob) || __builtin_add_overflow(dd, ob, &b) ||
          a > UINTPTR_MAX - w || b > UINTPTR_MAX - w)
        return CUDA_ERROR_INVALID_VALUE;
      CUresult e = cu_copy(d, b, a, w);
      if (e) return e;
    }
  return CUDA_SUCCESS;
}

/* A 3D copy on a stream: now, or a memcpy node while it captures. */
static CUresult copy3d_on(void *stream, const CUDA_MEMCPY3D *c) {
  cu_driver *d = cu_lock();
  cu_stream *s = NULL;
  CUresult e = cu_check(d);
  if (!e && !c) e = CUDA_ERROR_INVALID_VALUE;
  if (!e) e = cu_stream_get(d, stream, "cuMemcpy3DAsync", &s);
  if (e || !s || !s->capture) return cu_ret(e ? e : cu_copy3d(d, c));
  cu_op op;
  if (!(e = cu_memcpy_op(d, c, &op))) e = cu_capture_op(d, s, &op);
  return cu_ret(e);
}

static CUDA_MEMCPY3D from_2d(const CUDA_MEMCPY2D *c) {
  return (CUDA_MEMCPY3D){.srcXInBytes = c->srcXInBytes, .srcY = c->srcY, .srcMemoryType = c->srcMemoryType,
                         .srcHost = c->srcHost, .srcDevice = c->srcDevice, .srcArray = c->srcArray,
                         .srcPitch = c->srcPitch, .srcHeight = c->srcY + c->Height, .dstXInBytes = c->dstXInBytes,
                         .dstY = c->dstY, .dstMemoryType = c->dstMemoryType, .dstHost = c->dstHost,
                         .dstDevice = c->dstDevice, .dstArray = c->dstArray, .dstPitch = c->dstPitch,
                         .dstHeight = c->dstY + c->Height, .WidthInBytes = c->WidthInBytes, .Height = c->Height,
                         .Depth = 1};
}

CU_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c, void *stream) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  CUDA_MEMCPY3D c3 = from_2d(c);
  return copy3d_on(stream, &c3);
}
CU_EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *c) { return cuMemcpy2DAsync_v2(c, NULL); }
CU_EXPORT CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *c) { return cuMemcpy2D_v2(c); }
CU_EXPORT CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *c) { return copy3d_on(NULL, c); }
CU_EXPORT CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *c, void *stream) { return copy3d_on(stream, c); }
