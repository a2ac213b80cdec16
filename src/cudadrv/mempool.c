/*
 * mempool.c — memory pools of stream-ordered allocation, for both APIs (warpvm's runtime's cudaMemPool* and
 * cudaMallocAsync call these): the device's default pool and pools the program creates (cuMemPoolCreate/
 * Destroy), the current pool cuMemAllocAsync draws from (cuDeviceGetDefaultMemPool, cuDeviceGet/SetMemPool and
 * CUDA 13's cuMemGet/SetMemPool), pool attributes, cuMemPoolTrimTo and access. cuda.core (numba-cuda's memory)
 * allocates through the current pool.
 *
 * Every allocation is its own device allocation (memory.c); a pool keeps the accounting a GPU's does: bytes in
 * use, and bytes reserved from the device in 2 MiB chunks — reserved grows with use, is cut back to the
 * release threshold at a synchronisation (cuCtxSynchronize, cuStreamSynchronize, cuEventSynchronize) and to
 * the requested size by cuMemPoolTrimTo, never below what live allocations need — with high-water marks of
 * both. How much a GPU reserves depends on its granularity; what programs may rely on holds here too: used <=
 * reserved, high >= current, a threshold of 0 releases all unused memory at a synchronisation, and trimming
 * keeps at least what was asked. Only device pools exist (location CU_MEM_LOCATION_TYPE_DEVICE, id 0); a pool
 * on the host is not supported. Pool handles are tokens (handles.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cudadrv/graph.h"

enum { CU_MEM_ALLOCATION_TYPE_PINNED = 1, CU_MEM_LOCATION_TYPE_DEVICE = 1, CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3 };
enum {
  CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
  CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
  CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
  CU_MEMPOOL_ATTR_USED_MEM_HIGH
};

#define CHUNK ((uint64_t)2 << 20)

struct cu_pool {
  void *self;                     /* its handle; NULL once destroyed */
  int is_default;
  uint32_t nlive;                 /* allocations not yet freed: a destroyed pool lives until they are */
  cu_mem_pool_props props;
  uint64_t threshold, used, used_high, reserved, reserved_high;
  int reuse[3];                   /* REUSE_*: 1 (on) unless the program turns them off */
};

static uint64_t chunks_up(uint64_t n) { return n > UINT64_MAX - CHUNK ? UINT64_MAX : (n + CHUNK - 1) / CHUNK * CHUNK; }

static CUresult bad_location(cu_driver *d, const cu_mem_location *l) {
  if (!l) return CUDA_ERROR_INVALID_VALUE;
  if (l->type != CU_MEM_LOCATION_TYPE_DEVICE) return cu_unsupported(d, "a memory pool of host memory");
  return l->id == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static cu_pool *pool_new(cu_driver *d, const cu_mem_pool_props *props, int is_default) {
  cu_pool *p = calloc(1, sizeof *p);
  if (!p || !(p->self = cu_handle_new(d, CU_H_POOL, p))) {
    free(p);
    return NULL;
  }
  p->props = *props;
  p->is_default = is_default;
  p->reuse[0] = p->reuse[1] = p->reuse[2] = 1; /* CUDA's defaults: every reuse policy on */
  return p;
}

/* The device's default pool, made on first use; the current pool starts as it. NULL only when out of memory. */
static cu_pool *default_pool(cu_driver *d) {
  if (!d->pool_default) {
    cu_mem_pool_props props = {.allocType = CU_MEM_ALLOCATION_TYPE_PINNED, .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
    d->pool_default = pool_new(d, &props, 1);
  }
  if (!d->pool_current) d->pool_current = d->pool_default;
  return d->pool_default;
}

static void pool_free(cu_driver *d, cu_pool *p) {
  if (p->self) cu_handle_drop(d, p->self);
  free(p);
}

static CUresult pool_get(cu_driver *d, void *h, const char *api, cu_pool **out) {
  if ((*out = cu_handle_obj(d, CU_H_POOL, h))) return CUDA_SUCCESS;
  return cu_bad_handle(d, api, CU_H_POOL, h, CUDA_ERROR_INVALID_VALUE);
}

/* Give back unused chunks until at most `keep` bytes (rounded as given) stay reserved. */
static void release_to(cu_pool *p, uint64_t keep) {
  uint64_t need = chunks_up(p->used);
  if (keep < need) keep = need;
  if (p->reserved > keep) p->reserved = keep;
}

/* ---- the allocations (memory.c) ---- */
CUresult cu_pool_alloc(cu_driver *d, void *hpool, size_t n, CUdeviceptr *dptr) {
  cu_pool *pool = NULL;
  CUresult e = hpool ? pool_get(d, hpool, "cuMemAllocFromPoolAsync", &pool) : CUDA_SUCCESS;
  if (e) return e;
  if (!pool && (!default_pool(d) || !(pool = d->pool_current))) return CUDA_ERROR_OUT_OF_MEMORY;
  if (pool->props.maxSize && (n > pool->props.maxSize || pool->used > pool->props.maxSize - n))
    return CUDA_ERROR_OUT_OF_MEMORY;
  wv_devptr p;
  if (n > d->prop.totalGlobalMem - d->dev_live || wv_malloc(d->vm, n, &p) != WV_OK) return CUDA_ERROR_OUT_OF_MEMORY;
  if (cu_alloc_add(d, (uintptr_t)p, n, CU_MEMTYPE_DEVICE, 0, 0)) {
    wv_free(d->vm, p);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  cu_alloc_find(d, p)->pool = pool;
  pool->nlive++;
  pool->used += n;
  if (pool->used > pool->used_high) pool->used_high = pool->used;
  if (pool->used > pool->reserved) pool->reserved = chunks_up(pool->used);
  if (pool->reserved > pool->reserved_high) pool->reserved_high = pool->reserved;
  *dptr = p;
  return CUDA_SUCCESS;
}

void cu_pool_freed(cu_driver *d, cu_pool *p, size_t n) {
  p->used -= n <= p->used ? n : p->used;
  if (--p->nlive == 0 && !p->self) pool_free(d, p); /* destroyed while it had allocations */
}

void cu_pools_sync(cu_driver *d) {
  uint32_t i = 0;
  for (cu_pool *p; (p = cu_handle_next(d, CU_H_POOL, &i, NULL));) release_to(p, p->threshold / CHUNK * CHUNK);
}

void cu_pools_reset(cu_driver *d) {
  uint32_t i = 0; /* every allocation is gone: so is every pool (the default one comes back when asked for) */
  for (cu_pool *p; (p = cu_handle_next(d, CU_H_POOL, &i, NULL));) pool_free(d, p);
  d->pool_default = d->pool_current = NULL;
}

/* ---- choosing a pool ---- */
static CUresult device_pool(void **pool, CUdevice dev, int current) {
  cu_driver *d = cu_lock();
  if (!pool) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (dev != 0) return cu_ret(CUDA_ERROR_INVALID_DEVICE);
  CUresult e = cu_check(d);
  if (e) return cu_ret(e);
  if (!default_pool(d)) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  *pool = (current ? d->pool_current : d->pool_default)->self;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuDeviceGetDefaultMemPool(void **pool, CUdevice dev) { return device_pool(pool, dev, 0); }
CU_EXPORT CUresult cuDeviceGetMemPool(void **pool, CUdevice dev) { return device_pool(pool, dev, 1); }

CU_EXPORT CUresult cuDeviceSetMemPool(CUdevice dev, void *h) {
  cu_driver *d = cu_lock();
  cu_pool *p;
  CUresult e = pool_get(d, h, "cuDeviceSetMemPool", &p);
  if (!e && dev != 0) e = CUDA_ERROR_INVALID_DEVICE;
  if (!e && !default_pool(d)) e = CUDA_ERROR_OUT_OF_MEMORY;
  if (!e) d->pool_current = p;
  return cu_ret(e);
}

/* CUDA 13: the same by location and allocation type. */
static CUresult location_ok(const cu_mem_location *loc, int type) {
  cu_driver *d = cu_lock();
  return cu_ret(type != CU_MEM_ALLOCATION_TYPE_PINNED ? CUDA_ERROR_INVALID_VALUE : bad_location(d, loc));
}
CU_EXPORT CUresult cuMemGetDefaultMemPool(void **pool, cu_mem_location *loc, int type) {
  CUresult e = location_ok(loc, type);
  return e ? e : cuDeviceGetDefaultMemPool(pool, 0);
}
CU_EXPORT CUresult cuMemGetMemPool(void **pool, cu_mem_location *loc, int type) {
  CUresult e = location_ok(loc, type);
  return e ? e : cuDeviceGetMemPool(pool, 0);
}
CU_EXPORT CUresult cuMemSetMemPool(cu_mem_location *loc, int type, void *pool) {
  CUresult e = location_ok(loc, type);
  return e ? e : cuDeviceSetMemPool(0, pool);
}

/* ---- pools ---- */
CU_EXPORT CUresult cuMemPoolCreate(void **out, const cu_mem_pool_props *props) {
  cu_driver *d = cu_lock();
  if (!out || !props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = bad_location(d, &props->location);
  if (!e) e = cu_check(d);
  if (e) return cu_ret(e);
  cu_pool *p = pool_new(d, props, 0);
  if (!p) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  *out = p->self;
  return cu_ret(CUDA_SUCCESS);
}

/* A pool with allocations still live goes when the last of them is freed. */
CU_EXPORT CUresult cuMemPoolDestroy(void *h) {
  cu_driver *d = cu_lock();
  cu_pool *p;
  CUresult e = pool_get(d, h, "cuMemPoolDestroy", &p);
  if (!e && p->is_default) e = CUDA_ERROR_INVALID_VALUE; /* a device's default pool cannot be destroyed */
  if (e) return cu_ret(e);
  if (d->pool_current == p) d->pool_current = d->pool_default; /* as CUDA does */
  cu_handle_drop(d, p->self);
  p->self = NULL;
  if (!p->nlive) pool_free(d, p);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemPoolSetAttribute(void *h, int attr, void *value) {
  cu_driver *d = cu_lock();
  cu_pool *p;
  CUresult e = pool_get(d, h, "cuMemPoolSetAttribute", &p);
  if (e || !value) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  uint64_t v = 0;
  switch (attr) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
    p->reuse[attr - 1] = *(const int *)value != 0;
    break;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: p->threshold = *(const uint64_t *)value; break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: case CU_MEMPOOL_ATTR_USED_MEM_HIGH: /* only a reset to the current value */
    memcpy(&v, value, sizeof v);
    if (v) return cu_ret(CUDA_ERROR_INVALID_VALUE);
    if (attr == CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) p->reserved_high = p->reserved;
    else p->used_high = p->used;
    break;
  default: return cu_ret(CUDA_ERROR_INVALID_VALUE); /* the current values are read-only */
  }
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemPoolGetAttribute(void *h, int attr, void *value) {
  cu_driver *d = cu_lock();
  cu_pool *p;
  CUresult e = pool_get(d, h, "cuMemPoolGetAttribute", &p);
  if (e || !value) return cu_ret(e ? e : CUDA_ERROR_INVALID_VALUE);
  uint64_t v;
  switch (attr) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
    *(int *)value = p->reuse[attr - 1];
    return cu_ret(CUDA_SUCCESS);
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: v = p->threshold; break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: v = p->reserved; break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: v = p->reserved_high; break;
  case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: v = p->used; break;
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH: v = p->used_high; break;
  default: return cu_ret(CUDA_ERROR_INVALID_VALUE);
  }
  memcpy(value, &v, sizeof v);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemPoolTrimTo(void *h, size_t keep) {
  cu_driver *d = cu_lock();
  cu_pool *p;
  CUresult e = pool_get(d, h, "cuMemPoolTrimTo", &p);
  if (!e) release_to(p, chunks_up(keep));
  return cu_ret(e);
}

/* Access: the pool's own device (the only one) always reads and writes it; other locations are refused. */
CU_EXPORT CUresult cuMemPoolSetAccess(void *h, const cu_mem_access_desc *descs, size_t n) {
  cu_driver *d = cu_lock();
  cu_pool *p;
  CUresult e = pool_get(d, h, "cuMemPoolSetAccess", &p);
  if (!e && n && !descs) e = CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; !e && i < n; i++) {
    if (descs[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || descs[i].location.id != 0) e = CUDA_ERROR_INVALID_DEVICE;
    else if (descs[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) e = CUDA_ERROR_INVALID_VALUE;
  }
  return cu_ret(e);
}

CU_EXPORT CUresult cuMemPoolGetAccess(int *flags, void *h, cu_mem_location *loc) {
  cu_driver *d = cu_lock();
  cu_pool *p;
  CUresult e = pool_get(d, h, "cuMemPoolGetAccess", &p);
  if (!e && (!flags || !loc)) e = CUDA_ERROR_INVALID_VALUE;
  if (!e && (loc->type != CU_MEM_LOCATION_TYPE_DEVICE || loc->id != 0)) e = CUDA_ERROR_INVALID_DEVICE;
  if (!e) *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return cu_ret(e);
}
