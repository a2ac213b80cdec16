/*
 * mempool.c — memory pools of stream-ordered allocation: the device's default pool and pools the program
 * creates (cudaMemPoolCreate/Destroy), the current pool cudaMallocAsync draws from
 * (cudaDeviceGetDefaultMemPool, cudaDeviceGet/SetMemPool and CUDA 13's cudaMemGet/SetMemPool), pool
 * attributes, cudaMemPoolTrimTo and access. Every allocation is its own device allocation (memory.c); a
 * pool keeps the accounting a GPU's does: bytes in use, and bytes reserved from the device in 2 MiB chunks
 * — reserved grows with use, is cut back to the release threshold at a synchronisation (cudaDeviceSynchronize,
 * cudaStreamSynchronize, cudaEventSynchronize) and to the requested size by cudaMemPoolTrimTo, never below
 * what live allocations need — with high-water marks of both. How much a GPU reserves depends on its
 * granularity; what programs may rely on holds here too: used <= reserved, high >= current, a threshold of
 * 0 releases all unused memory at a synchronisation, and trimming keeps at least what was asked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/cudart.h"

#define CHUNK ((uint64_t)2 << 20)

struct cr_pool {
  void *self;                     /* its handle (cudaMemPool_t); NULL once destroyed */
  int is_default;
  uint32_t nlive;                 /* allocations not yet freed: a destroyed pool lives until they are */
  struct cudaMemPoolProps props;
  uint64_t threshold, used, used_high, reserved, reserved_high;
  int reuse[3];                   /* cudaMemPoolReuse*: 1 (on) unless the program turns them off */
};

static uint64_t chunks_up(uint64_t n) { return n > UINT64_MAX - CHUNK ? UINT64_MAX : (n + CHUNK - 1) / CHUNK * CHUNK; }

static cr_pool *pool_new(cudart *r, const struct cudaMemPoolProps *props, int is_default) {
  cr_pool *p = calloc(1, sizeof *p);
  if (!p || !(p->self = wv_cr_handle_new(r, WV_H_POOL, p))) {
    free(p);
    return NULL;
  }
  p->props = *props;
  p->is_default = is_default;
  p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
  return p;
}

/* The default pool, made when first asked for; NULL only when out of memory. */
static cr_pool *default_pool(cudart *r) {
  if (!r->pool_default) {
    struct cudaMemPoolProps props = {.allocType = cudaMemAllocationTypePinned,
                                     .location = {cudaMemLocationTypeDevice, 0}};
    r->pool_default = pool_new(r, &props, 1);
  }
  if (!r->pool_current) r->pool_current = r->pool_default;
  return r->pool_default;
}

static void pool_free(cudart *r, cr_pool *p) {
  if (p->self) wv_cr_handle_drop(r, p->self);
  free(p);
}

static cudaError_t pool_get(cudart *r, cudaMemPool_t h, const char *api, cr_pool **out) {
  if ((*out = wv_cr_handle_obj(r, WV_H_POOL, h))) return cudaSuccess;
  return wv_cr_bad_handle(r, api, WV_H_POOL, h, cudaErrorInvalidValue);
}

/* Give back unused chunks until at most `keep` bytes (rounded as given) stay reserved. */
static void release_to(cr_pool *p, uint64_t keep) {
  uint64_t need = chunks_up(p->used);
  if (keep < need) keep = need;
  if (p->reserved > keep) p->reserved = keep;
}

/* ---- the runtime's side ---- */
cudaError_t wv_cr_pool_alloc(cudart *r, cr_pool *pool, size_t n, void **ptr) {
  if (!pool && (!default_pool(r) || !(pool = r->pool_current))) return cudaErrorMemoryAllocation;
  if (pool->props.maxSize && (n > pool->props.maxSize || pool->used > pool->props.maxSize - n))
    return cudaErrorMemoryAllocation;
  cudaError_t e = wv_cr_device_alloc(r, ptr, n);
  if (e || !*ptr) return e;
  wv_cr_alloc_find(r, *ptr)->pool = pool;
  pool->nlive++;
  pool->used += n;
  if (pool->used > pool->used_high) pool->used_high = pool->used;
  if (pool->used > pool->reserved) pool->reserved = chunks_up(pool->used);
  if (pool->reserved > pool->reserved_high) pool->reserved_high = pool->reserved;
  return cudaSuccess;
}

void wv_cr_pool_freed(cudart *r, cr_pool *p, size_t n) {
  p->used -= n <= p->used ? n : p->used;
  if (--p->nlive == 0 && !p->self) pool_free(r, p); /* destroyed while it had allocations */
}

void wv_cr_pools_sync(cudart *r) {
  uint32_t i = 0;
  for (cr_pool *p; (p = wv_cr_handle_next(r, WV_H_POOL, &i, NULL));) release_to(p, p->threshold / CHUNK * CHUNK);
}

void wv_cr_pools_reset(cudart *r) {
  uint32_t i = 0; /* every allocation is gone: so is every pool (the default one comes back when asked for) */
  for (cr_pool *p; (p = wv_cr_handle_next(r, WV_H_POOL, &i, NULL));) pool_free(r, p);
  r->pool_default = r->pool_current = NULL;
}

/* ---- choosing a pool ---- */
WV_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *out, int dev) {
  cudart *r = wv_cr();
  if (!out) return wv_cr_ret(cudaErrorInvalidValue);
  if (dev != 0) return wv_cr_ret(cudaErrorInvalidDevice);
  if (!default_pool(r)) return wv_cr_ret(cudaErrorMemoryAllocation);
  *out = (cudaMemPool_t)r->pool_default->self;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *out, int dev) {
  cudart *r = wv_cr();
  if (!out) return wv_cr_ret(cudaErrorInvalidValue);
  if (dev != 0) return wv_cr_ret(cudaErrorInvalidDevice);
  if (!default_pool(r)) return wv_cr_ret(cudaErrorMemoryAllocation);
  *out = (cudaMemPool_t)r->pool_current->self;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaDeviceSetMemPool(int dev, cudaMemPool_t h) {
  cudart *r = wv_cr();
  cr_pool *p;
  cudaError_t e = pool_get(r, h, "cudaDeviceSetMemPool", &p);
  if (!e && dev != 0) e = cudaErrorInvalidDevice;
  if (!e) r->pool_current = p;
  return wv_cr_ret(e);
}

/* CUDA 13's form: a location (device 0) and an allocation type (pinned). */
static cudaError_t location_ok(const struct cudaMemLocation *loc, int type) {
  cudart *r = wv_cr();
  cudaError_t e = cudaSuccess;
  if (!loc || type != cudaMemAllocationTypePinned) e = cudaErrorInvalidValue;
  else if (loc->type != cudaMemLocationTypeDevice) e = wv_cr_unsupported(r, "a memory pool of host memory");
  else if (loc->id != 0) e = cudaErrorInvalidDevice;
  return e ? wv_cr_ret(e) : (wv_cr_unlock(), cudaSuccess);
}

WV_EXPORT cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *out, struct cudaMemLocation *loc, int type) {
  cudaError_t e = location_ok(loc, type);
  return e ? e : cudaDeviceGetDefaultMemPool(out, 0);
}
WV_EXPORT cudaError_t cudaMemGetMemPool(cudaMemPool_t *out, struct cudaMemLocation *loc, int type) {
  cudaError_t e = location_ok(loc, type);
  return e ? e : cudaDeviceGetMemPool(out, 0);
}
WV_EXPORT cudaError_t cudaMemSetMemPool(struct cudaMemLocation *loc, int type, cudaMemPool_t h) {
  cudaError_t e = location_ok(loc, type);
  return e ? e : cudaDeviceSetMemPool(0, h);
}

/* ---- pools ---- */
WV_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *out, const struct cudaMemPoolProps *props) {
  cudart *r = wv_cr();
  if (!out || !props || props->allocType != cudaMemAllocationTypePinned) return wv_cr_ret(cudaErrorInvalidValue);
  if (props->location.type != cudaMemLocationTypeDevice)
    return wv_cr_ret(wv_cr_unsupported(r, "a memory pool of host memory"));
  if (props->location.id != 0) return wv_cr_ret(cudaErrorInvalidDevice);
  cr_pool *p = pool_new(r, props, 0);
  if (!p) return wv_cr_ret(cudaErrorMemoryAllocation);
  *out = (cudaMemPool_t)p->self;
  return wv_cr_ret(cudaSuccess);
}

/* A pool with allocations still live goes when the last of them is freed. */
WV_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t h) {
  cudart *r = wv_cr();
  cr_pool *p;
  cudaError_t e = pool_get(r, h, "cudaMemPoolDestroy", &p);
  if (!e && p->is_default) e = cudaErrorInvalidValue; /* a device's default pool cannot be destroyed */
  if (e) return wv_cr_ret(e);
  if (r->pool_current == p) r->pool_current = r->pool_default;
  wv_cr_handle_drop(r, p->self);
  p->self = NULL;
  if (!p->nlive) pool_free(r, p);
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t h, enum cudaMemPoolAttr attr, void *value) {
  cudart *r = wv_cr();
  cr_pool *p;
  cudaError_t e = pool_get(r, h, "cudaMemPoolSetAttribute", &p);
  if (e || !value) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  uint64_t v = 0;
  switch (attr) {
  case cudaMemPoolReuseFollowEventDependencies: case cudaMemPoolReuseAllowOpportunistic:
  case cudaMemPoolReuseAllowInternalDependencies:
    p->reuse[attr - 1] = *(const int *)value != 0;
    break;
  case cudaMemPoolAttrReleaseThreshold: p->threshold = *(const uint64_t *)value; break;
  case cudaMemPoolAttrReservedMemHigh: case cudaMemPoolAttrUsedMemHigh: /* only a reset to the current value */
    memcpy(&v, value, sizeof v);
    if (v) return wv_cr_ret(cudaErrorInvalidValue);
    if (attr == cudaMemPoolAttrReservedMemHigh) p->reserved_high = p->reserved;
    else p->used_high = p->used;
    break;
  default: return wv_cr_ret(cudaErrorInvalidValue); /* the current values are read-only */
  }
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t h, enum cudaMemPoolAttr attr, void *value) {
  cudart *r = wv_cr();
  cr_pool *p;
  cudaError_t e = pool_get(r, h, "cudaMemPoolGetAttribute", &p);
  if (e || !value) return wv_cr_ret(e ? e : cudaErrorInvalidValue);
  uint64_t v;
  switch (attr) {
  case cudaMemPoolReuseFollowEventDependencies: case cudaMemPoolReuseAllowOpportunistic:
  case cudaMemPoolReuseAllowInternalDependencies:
    *(int *)value = p->reuse[attr - 1];
    return wv_cr_ret(cudaSuccess);
  case cudaMemPoolAttrReleaseThreshold: v = p->threshold; break;
  case cudaMemPoolAttrReservedMemCurrent: v = p->reserved; break;
  case cudaMemPoolAttrReservedMemHigh: v = p->reserved_high; break;
  case cudaMemPoolAttrUsedMemCurrent: v = p->used; break;
  case cudaMemPoolAttrUsedMemHigh: v = p->used_high; break;
  default: return wv_cr_ret(cudaErrorInvalidValue);
  }
  memcpy(value, &v, sizeof v);
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t h, size_t keep) {
  cudart *r = wv_cr();
  cr_pool *p;
  cudaError_t e = pool_get(r, h, "cudaMemPoolTrimTo", &p);
  if (!e) release_to(p, chunks_up(keep));
  return wv_cr_ret(e);
}

/* The pool's own device (the only one) always reads and writes it. */
WV_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t h, const struct cudaMemAccessDesc *descs, size_t n) {
  cudart *r = wv_cr();
  cr_pool *p;
  cudaError_t e = pool_get(r, h, "cudaMemPoolSetAccess", &p);
  if (!e && n && !descs) e = cudaErrorInvalidValue;
  for (size_t i = 0; !e && i < n; i++) {
    if (descs[i].location.type != cudaMemLocationTypeDevice || descs[i].location.id != 0) e = cudaErrorInvalidDevice;
    else if (descs[i].flags != cudaMemAccessFlagsProtReadWrite) e = cudaErrorInvalidValue;
  }
  return wv_cr_ret(e);
}

WV_EXPORT cudaError_t cudaMemPoolGetAccess(int *flags, cudaMemPool_t h, struct cudaMemLocation *loc) {
  cudart *r = wv_cr();
  cr_pool *p;
  cudaError_t e = pool_get(r, h, "cudaMemPoolGetAccess", &p);
  if (!e && (!flags || !loc)) e = cudaErrorInvalidValue;
  if (!e && (loc->type != cudaMemLocationTypeDevice || loc->id != 0)) e = cudaErrorInvalidDevice;
  if (!e) *flags = cudaMemAccessFlagsProtReadWrite;
  return wv_cr_ret(e);
}
