/*
 * mempool.c — stream-ordered memory pools (cuMemPool*, cuDeviceGet/SetMemPool, CUDA 13's
 * cuMemGet/SetMemPool): the device's default pool, pools made with cuMemPoolCreate, the current
 * pool, and their attributes. cuda.core (numba-cuda's memory) allocates through the current pool.
 *
 * warpvm has one device heap, so a pool is a handle with its attributes: cuMemAllocFromPoolAsync
 * and cuMemAllocAsync (memory.c) allocate from the heap, as cuMemAlloc does, and free with
 * cuMemFreeAsync. The memory attributes (RESERVED/USED_MEM_CURRENT/HIGH) report the device memory
 * in use through the driver and its high mark since the last reset; trimming has nothing to give back.
 * Only device pools exist (location CU_MEM_LOCATION_TYPE_DEVICE, id 0); a pool on the host is not
 * supported.
 */
#include <stdlib.h>
#include <string.h>

#include "cudadrv/graph.h"

enum { CU_MEM_ALLOCATION_TYPE_PINNED = 1, CU_MEM_LOCATION_TYPE_DEVICE = 1 };
enum {
  CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
  CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
  CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
  CU_MEMPOOL_ATTR_USED_MEM_HIGH
};
enum { CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3 };


/* A pool: its attributes (REUSE_* as ints, the release threshold) and the high mark of its memory. */
struct cu_pool {
  int reuse[3];
  uint64_t release_threshold;
  size_t high;
  int is_default;
};

static CUresult bad_location(const cu_mem_location *l) {
  if (!l || l->type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_NOT_SUPPORTED;
  return l->id == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static cu_pool *pool_new(cu_driver *d, int is_default) {
  cu_pool *p = calloc(1, sizeof *p);
  if (!p || cu_obj_add(d, p, CU_K_POOL)) {
    free(p);
    return NULL;
  }
  p->reuse[0] = p->reuse[1] = p->reuse[2] = 1; /* CUDA's defaults: every reuse policy on */
  p->is_default = is_default;
  return p;
}

/* The device's default pool, made on first use; the current pool starts as it. */
static cu_pool *default_pool(cu_driver *d) {
  if (!d->pool_default) d->pool_default = pool_new(d, 1);
  if (!d->pool_current) d->pool_current = d->pool_default;
  return d->pool_default;
}

CU_EXPORT CUresult cuDeviceGetDefaultMemPool(void **pool, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!pool) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (dev != 0) return cu_ret(CUDA_ERROR_INVALID_DEVICE);
  CUresult e = cu_check(d);
  if (e) return cu_ret(e);
  *pool = default_pool(d);
  return cu_ret(*pool ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

CU_EXPORT CUresult cuDeviceGetMemPool(void **pool, CUdevice dev) {
  cu_driver *d = cu_lock();
  if (!pool) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (dev != 0) return cu_ret(CUDA_ERROR_INVALID_DEVICE);
  CUresult e = cu_check(d);
  if (e) return cu_ret(e);
  if (!default_pool(d)) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  *pool = d->pool_current;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuDeviceSetMemPool(CUdevice dev, void *pool) {
  cu_driver *d = cu_lock();
  if (dev != 0) return cu_ret(CUDA_ERROR_INVALID_DEVICE);
  if (!cu_obj_check(d, pool, CU_K_POOL)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!default_pool(d)) return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  d->pool_current = pool;
  return cu_ret(CUDA_SUCCESS);
}

/* CUDA 13: the same by location and allocation type. */
CU_EXPORT CUresult cuMemGetDefaultMemPool(void **pool, cu_mem_location *loc, int type) {
  if (type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_NOT_SUPPORTED;
  CUresult e = bad_location(loc);
  return e ? e : cuDeviceGetDefaultMemPool(pool, 0);
}

CU_EXPORT CUresult cuMemGetMemPool(void **pool, cu_mem_location *loc, int type) {
  if (type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_NOT_SUPPORTED;
  CUresult e = bad_location(loc);
  return e ? e : cuDeviceGetMemPool(pool, 0);
}

CU_EXPORT CUresult cuMemSetMemPool(cu_mem_location *loc, int type, void *pool) {
  if (type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_NOT_SUPPORTED;
  CUresult e = bad_location(loc);
  return e ? e : cuDeviceSetMemPool(0, pool);
}

CU_EXPORT CUresult cuMemPoolCreate(void **pool, const cu_mem_pool_props *props) {
  cu_driver *d = cu_lock();
  if (!pool || !props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = bad_location(&props->location);
  if (!e) e = cu_check(d);
  if (e) return cu_ret(e);
  *pool = pool_new(d, 0);
  return cu_ret(*pool ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

CU_EXPORT CUresult cuMemPoolDestroy(void *pool) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, pool, CU_K_POOL) || ((cu_pool *)pool)->is_default) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (d->pool_current == pool) d->pool_current = d->pool_default; /* as CUDA does */
  cu_obj_del(d, pool);
  free(pool);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemPoolSetAttribute(void *pool, int attr, void *value) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, pool, CU_K_POOL) || !value) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  cu_pool *p = pool;
  switch (attr) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: p->reuse[attr - 1] = *(int *)value != 0; break;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: p->release_threshold = *(uint64_t *)value; break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH: /* only a reset to 0 is allowed */
    if (*(uint64_t *)value) return cu_ret(CUDA_ERROR_INVALID_VALUE);
    p->high = d->dev_live;
    break;
  default: return cu_ret(CUDA_ERROR_INVALID_VALUE);
  }
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemPoolGetAttribute(void *pool, int attr, void *value) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, pool, CU_K_POOL) || !value) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  cu_pool *p = pool;
  if (d->dev_live > p->high) p->high = d->dev_live;
  switch (attr) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: *(int *)value = p->reuse[attr - 1]; break;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *(uint64_t *)value = p->release_threshold; break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
  case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *(uint64_t *)value = d->dev_live; break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *(uint64_t *)value = p->high; break;
  default: return cu_ret(CUDA_ERROR_INVALID_VALUE);
  }
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemPoolTrimTo(void *pool, size_t keep) {
  (void)keep;
  cu_driver *d = cu_lock();
  return cu_ret(cu_obj_check(d, pool, CU_K_POOL) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

/* Access: the one device reads and writes every pool; other locations are refused. */
CU_EXPORT CUresult cuMemPoolSetAccess(void *pool, const cu_mem_access_desc *map, size_t n) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, pool, CU_K_POOL) || (n && !map)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  for (size_t i = 0; i < n; i++) {
    CUresult e = bad_location(&map[i].location);
    if (e) return cu_ret(e == CUDA_ERROR_NOT_SUPPORTED ? CUDA_ERROR_INVALID_VALUE : e);
    if (map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  }
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuMemPoolGetAccess(int *flags, void *pool, cu_mem_location *loc) {
  cu_driver *d = cu_lock();
  if (!flags || !cu_obj_check(d, pool, CU_K_POOL)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = bad_location(loc);
  if (e) return cu_ret(e == CUDA_ERROR_NOT_SUPPORTED ? CUDA_ERROR_INVALID_VALUE : e);
  *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return cu_ret(CUDA_SUCCESS);
}
