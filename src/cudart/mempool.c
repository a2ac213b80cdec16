/*
 * mempool.c — memory pools in the runtime: the driver's (cudadrv/mempool.c, the one implementation of the
 * process, with its accounting of used and reserved bytes), which these call with the same handles (a
 * cudaMemPool_t is a CUmemoryPool) and layouts (cudaMemPoolProps, cudaMemAccessDesc, cudaMemLocation are the
 * driver's structs), the errors coming back as they are. cudaMallocAsync and cudaFreeAsync are memory.c's.
 */
#include "cudart/cudart.h"

#define LOC(p) ((cu_mem_location *)(p))

WV_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *out, int dev) {
  WV_CR_CU(cuDeviceGetDefaultMemPool((void **)out, dev));
}
WV_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *out, int dev) { WV_CR_CU(cuDeviceGetMemPool((void **)out, dev)); }
WV_EXPORT cudaError_t cudaDeviceSetMemPool(int dev, cudaMemPool_t h) { WV_CR_CU(cuDeviceSetMemPool(dev, h)); }
WV_EXPORT cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *out, struct cudaMemLocation *loc, int type) {
  WV_CR_CU(cuMemGetDefaultMemPool((void **)out, LOC(loc), type));
}
WV_EXPORT cudaError_t cudaMemGetMemPool(cudaMemPool_t *out, struct cudaMemLocation *loc, int type) {
  WV_CR_CU(cuMemGetMemPool((void **)out, LOC(loc), type));
}
WV_EXPORT cudaError_t cudaMemSetMemPool(struct cudaMemLocation *loc, int type, cudaMemPool_t h) {
  WV_CR_CU(cuMemSetMemPool(LOC(loc), type, h));
}
WV_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *out, const struct cudaMemPoolProps *props) {
  WV_CR_CU(cuMemPoolCreate((void **)out, (const cu_mem_pool_props *)props));
}
WV_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t h) { WV_CR_CU(cuMemPoolDestroy(h)); }
WV_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t h, enum cudaMemPoolAttr attr, void *value) {
  WV_CR_CU(cuMemPoolSetAttribute(h, attr, value));
}
WV_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t h, enum cudaMemPoolAttr attr, void *value) {
  WV_CR_CU(cuMemPoolGetAttribute(h, attr, value));
}
WV_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t h, size_t keep) { WV_CR_CU(cuMemPoolTrimTo(h, keep)); }
WV_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t h, const struct cudaMemAccessDesc *descs, size_t n) {
  WV_CR_CU(cuMemPoolSetAccess(h, (const cu_mem_access_desc *)descs, n));
}
WV_EXPORT cudaError_t cudaMemPoolGetAccess(int *flags, cudaMemPool_t h, struct cudaMemLocation *loc) {
  WV_CR_CU(cuMemPoolGetAccess(flags, h, LOC(loc)));
}
_Static_assert(sizeof(cu_mem_pool_props) == sizeof(struct cudaMemPoolProps), "CUmemPoolProps");
