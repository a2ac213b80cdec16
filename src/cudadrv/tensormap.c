/*
 * tensormap.c — the driver's tensor-map encoders (cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col,
 * cuTensorMapReplaceAddress): the checks the CUDA Driver API documents for each argument, then the 128
 * bytes of a CUtensorMap in warpvm's own encoding (src/exec/tensormap.h), which the copy engine
 * (src/exec/bulk.c) reads when a kernel's cp.async.bulk.tensor names the map. A refused map is
 * CUDA_ERROR_INVALID_VALUE and leaves the map as it was; the reason is said on stderr once. After a device fault every
 * encoder returns the context's sticky error (an H200 answers 715 after an illegal instruction).
 */
#include <stdio.h>
#include <string.h>

#include "cudadrv/cuapi.h"
#include "exec/tensormap.h"

/* CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapFloatOOBfill (cuda.h) */
enum { IL_NONE = 0, IL_16B, IL_32B };
enum { SW_NONE = 0, SW_32B, SW_64B, SW_128B };

static CUresult refuse(cu_driver *d, const char *fn, const char *why) {
  char msg[256];
  snprintf(msg, sizeof msg, "warpvm: %s refused (CUDA_ERROR_INVALID_VALUE): %s", fn, why);
  if (cu_first_time(d, msg)) fprintf(stderr, "%s\n", msg);
  return CUDA_ERROR_INVALID_VALUE;
}

/* The checks common to both encoders; fills t's layout fields. NULL when valid, else why not. */
static const char *check_common(wv_tmap *t, unsigned dtype, unsigned rank, const void *addr, const uint64_t *dims,
                                const uint64_t *strides, const uint32_t *estr, unsigned il, unsigned sw, unsigned l2,
                                unsigned oob, unsigned min_rank) {
  if (dtype > 12) return "data type: only the 1- to 8-byte types (CU_TENSOR_MAP_DATA_TYPE_UINT8 .. TFLOAT32_FTZ) are modelled";
  if (rank < min_rank || rank > 5) return "tensorRank must be 1 to 5 (3 to 5 interleaved or im2col)";
  if (il != IL_NONE && rank < 3) return "an interleaved layout needs tensorRank >= 3";
  if (il > IL_32B || sw > SW_128B || l2 > 3 || oob > 1) return "an enum value out of range (or a swizzle mode this model lacks)";
  if (!addr || (uintptr_t)addr % (il == IL_32B ? 32 : 16)) return "globalAddress must be 16-byte aligned (32 with 32B interleave)";
  if (!dims || (rank > 1 && !strides) || !estr) return "a NULL array";
  t->esize = wv_tmap_esize(dtype);
  t->dtype = (uint8_t)dtype, t->rank = (uint8_t)rank, t->addr = (uint64_t)(uintptr_t)addr;
  t->stride[0] = t->esize;
  for (unsigned i = 0; i < rank; i++) {
    if (!dims[i] || dims[i] > ((uint64_t)1 << 32)) return "globalDim[i] must be from 1 to 2^32";
    t->dim[i] = dims[i];
    if (!estr[i] || estr[i] > 8) return "elementStrides[i] must be from 1 to 8";
    t->estr[i] = estr[i];
    if (i > 0) {
      uint64_t s = strides[i - 1];
      if (s % (il == IL_32B ? 32 : 16) || s >= ((uint64_t)1 << 40)) return "globalStrides[i] must be a multiple of 16 (32 with 32B interleave) and below 2^40";
      t->stride[i] = s;
    }
  }
  if (il == IL_32B && sw != SW_32B) return "32B interleave needs the 32B swizzle";
  if (oob && (dtype < 6 || dtype > 12)) return "the NaN out-of-bounds fill needs a floating-point data type";
  t->interleave = (uint8_t)il, t->swizzle = (uint8_t)sw, t->l2 = (uint8_t)l2, t->oob = (uint8_t)oob;
  return NULL;
}

/* The box's inner dimension in bytes must be a multiple of 16 and, with a swizzle, fit its span. */
static const char *check_inner(const wv_tmap *t, uint64_t inner_bytes) {
  if (t->interleave == IL_NONE) {
    if (inner_bytes % 16) return "boxDim[0] * elementSize must be a multiple of 16 bytes";
    if (t->swizzle && inner_bytes > (16u << t->swizzle)) return "boxDim[0] * elementSize must not exceed the swizzle span (32, 64 or 128 bytes)";
  }
  return NULL;
}

CU_EXPORT CUresult cuTensorMapEncodeTiled(void *map, unsigned dtype, unsigned rank, void *addr, const uint64_t *dims,
                                          const uint64_t *strides, const uint32_t *box, const uint32_t *estr, unsigned il,
                                          unsigned sw, unsigned l2, unsigned oob) {
  cu_driver *d = cu_lock();
  CUresult e = cu_check(d); /* after a device fault the context's error, as on a GPU (715 in tma_tile) */
  if (e) return cu_ret(e);
  if (!map || (uintptr_t)map % 64) return cu_ret(refuse(d, "cuTensorMapEncodeTiled", "tensorMap must be 64-byte aligned"));
  wv_tmap t;
  memset(&t, 0, sizeof t);
  const char *why = check_common(&t, dtype, rank, addr, dims, strides, estr, il, sw, l2, oob, 1);
  for (unsigned i = 0; !why && i < rank; i++) {
    if (!box || !box[i] || box[i] > 256) why = "boxDim[i] must be from 1 to 256";
    else t.box[i] = box[i];
  }
  if (!why) why = check_inner(&t, (uint64_t)t.box[0] * t.esize);
  if (why) return cu_ret(refuse(d, "cuTensorMapEncodeTiled", why));
  t.kind = 0;
  wv_tmap_pack(&t, map);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuTensorMapEncodeIm2col(void *map, unsigned dtype, unsigned rank, void *addr, const uint64_t *dims,
                                           const uint64_t *strides, const int *lower, const int *upper, unsigned channels,
                                           unsigned pixels, const uint32_t *estr, unsigned il, unsigned sw, unsigned l2,
                                           unsigned oob) {
  cu_driver *d = cu_lock();
  CUresult e = cu_check(d); /* after a device fault the context's error, as on a GPU (715 in tma_tile) */
  if (e) return cu_ret(e);
  if (!map || (uintptr_t)map % 64) return cu_ret(refuse(d, "cuTensorMapEncodeIm2col", "tensorMap must be 64-byte aligned"));
  wv_tmap t;
  memset(&t, 0, sizeof t);
  const char *why = check_common(&t, dtype, rank, addr, dims, strides, estr, il, sw, l2, oob, 3);
  /* the corners bound the spatial dimensions (1 .. rank-2): 16, 8 or 4 bits signed for 3, 4, 5 dimensions */
  int lim = rank == 3 ? 1 << 15 : rank == 4 ? 1 << 7 : 1 << 3;
  for (unsigned i = 0; !why && i + 2 < rank; i++) {
    if (!lower || !upper || lower[i] < -lim || lower[i] >= lim || upper[i] < -lim || upper[i] >= lim)
      why = "pixelBoxLowerCorner/UpperCorner out of range for the tensor's rank";
    else t.lower[i] = (int16_t)lower[i], t.upper[i] = (int16_t)upper[i];
  }
  if (!why && (!channels || channels > 256 || !pixels || pixels > 1024)) why = "channelsPerPixel must be 1..256 and pixelsPerColumn 1..1024";
  if (!why) why = check_inner(&t, (uint64_t)channels * t.esize);
  if (why) return cu_ret(refuse(d, "cuTensorMapEncodeIm2col", why));
  t.kind = 1;
  t.channels = (uint16_t)channels, t.pixels = (uint16_t)pixels;
  for (unsigned i = 0; i < rank; i++) t.box[i] = 1;
  wv_tmap_pack(&t, map);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuTensorMapReplaceAddress(void *map, void *addr) {
  cu_driver *d = cu_lock();
  CUresult e = cu_check(d); /* after a device fault the context's error, as on a GPU (715 in tma_tile) */
  if (e) return cu_ret(e);
  wv_tmap t;
  if (!map || (uintptr_t)map % 64 || wv_tmap_unpack(map, &t))
    return cu_ret(refuse(d, "cuTensorMapReplaceAddress", "not a tensor map made by cuTensorMapEncode*"));
  if (!addr || (uintptr_t)addr % (t.interleave == IL_32B ? 32 : 16))
    return cu_ret(refuse(d, "cuTensorMapReplaceAddress", "globalAddress must be 16-byte aligned (32 with 32B interleave)"));
  uint64_t a = (uint64_t)(uintptr_t)addr;
  memcpy((uint8_t *)map + 8, &a, 8);
  return cu_ret(CUDA_SUCCESS);
}
