/*
 * tensormap.h — warpvm's encoding of a CUtensorMap (the 128 opaque bytes cuTensorMapEncodeTiled/Im2col fill:
 * src/cudadrv/tensormap.c) and its decoding for the copy engine (bulk.c). NVIDIA's encoding is undocumented;
 * a program only passes the bytes along (to a kernel parameter, global memory, tensormap.replace), so warpvm
 * defines its own. Little-endian fields:
 *
 *   0  u32  magic 'WVTM' (0x4d545657)          4  u8 version (1)   5 u8 kind (0 tiled, 1 im2col)
 *   6  u8   data type (CUtensorMapDataType)    7  u8 rank (1..5)
 *   8  u64  global address
 *  16  u32  global dims - 1, 5 of them (dims up to 2^32)
 *  36  u64  global strides in bytes of dims 1..4 (dim 0's is the element size), 4 of them
 *  68  u8   box dims - 1 (5)                  73  u8 element strides - 1 (5)
 *  78  u8   interleave  79 swizzle  80 L2 promotion  81 out-of-bounds fill (the CUtensorMap* enums)
 *  82  i16  im2col lower corner (3)           88  i16 im2col upper corner (3)
 *  94  u16  im2col channels per pixel         96  u16 im2col pixels per column
 *  the rest 0.
 */
#ifndef WV_TENSORMAP_H
#define WV_TENSORMAP_H

#include <stdint.h>
#include <string.h>

#define WV_TMAP_MAGIC 0x4d545657u
#define WV_TMAP_BYTES 128u

typedef struct wv_tmap {
  uint8_t kind, dtype, rank;
  uint64_t addr;
  uint64_t dim[5];      /* elements */
  uint64_t stride[5];   /* bytes; stride[0] is the element size */
  uint32_t box[5], estr[5];
  uint8_t interleave, swizzle, l2, oob;
  int16_t lower[3], upper[3];
  uint16_t channels, pixels;
  uint32_t esize;       /* bytes of an element (0: a packed sub-byte type) */
} wv_tmap;

/* CUtensorMapDataType: bytes of an element, 0 for the packed 4/6-bit types and unknown values. */
static inline uint32_t wv_tmap_esize(unsigned dtype) {
  static const uint8_t size[13] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return dtype < 13 ? size[dtype] : 0;
}

static inline void wv_tmap_pack(const wv_tmap *t, uint8_t raw[WV_TMAP_BYTES]) {
  memset(raw, 0, WV_TMAP_BYTES);
  uint32_t magic = WV_TMAP_MAGIC;
  memcpy(raw, &magic, 4);
  raw[4] = 1, raw[5] = t->kind, raw[6] = t->dtype, raw[7] = t->rank;
  memcpy(raw + 8, &t->addr, 8);
  for (int i = 0; i < 5; i++) { /* all five (tensormap.replace may raise the rank after setting them) */
    uint32_t d = t->dim[i] ? (uint32_t)(t->dim[i] - 1) : 0;
    memcpy(raw + 16 + 4 * i, &d, 4);
    raw[68 + i] = (uint8_t)(t->box[i] ? t->box[i] - 1 : 0);
    raw[73 + i] = (uint8_t)(t->estr[i] ? t->estr[i] - 1 : 0);
  }
  for (int i = 1; i < 5; i++) memcpy(raw + 36 + 8 * (i - 1), &t->stride[i], 8);
  raw[78] = t->interleave, raw[79] = t->swizzle, raw[80] = t->l2, raw[81] = t->oob;
  memcpy(raw + 82, t->lower, 6);
  memcpy(raw + 88, t->upper, 6);
  memcpy(raw + 94, &t->channels, 2);
  memcpy(raw + 96, &t->pixels, 2);
}

/* 0, or -1 when raw is not a tensor map warpvm made. */
static inline int wv_tmap_unpack(const uint8_t raw[WV_TMAP_BYTES], wv_tmap *t) {
  uint32_t magic;
  memcpy(&magic, raw, 4);
  if (magic != WV_TMAP_MAGIC || raw[4] != 1 || raw[7] < 1 || raw[7] > 5) return -1;
  memset(t, 0, sizeof *t);
  t->kind = raw[5], t->dtype = raw[6], t->rank = raw[7];
  memcpy(&t->addr, raw + 8, 8);
  t->esize = wv_tmap_esize(t->dtype);
  for (int i = 0; i < 5; i++) {
    uint32_t d;
    memcpy(&d, raw + 16 + 4 * i, 4);
    t->dim[i] = (uint64_t)d + 1;
    t->box[i] = (uint32_t)raw[68 + i] + 1;
    t->estr[i] = (uint32_t)raw[73 + i] + 1;
  }
  t->stride[0] = t->esize;
  for (int i = 1; i < 5; i++) memcpy(&t->stride[i], raw + 36 + 8 * (i - 1), 8);
  t->interleave = raw[78], t->swizzle = raw[79], t->l2 = raw[80], t->oob = raw[81];
  memcpy(t->lower, raw + 82, 6);
  memcpy(t->upper, raw + 88, 6);
  memcpy(&t->channels, raw + 94, 2);
  memcpy(&t->pixels, raw + 96, 2);
  return 0;
}

/* A map with nothing set (tensormap.replace on bytes no encoder wrote: Triton builds maps from zeros). */
static inline void wv_tmap_empty(wv_tmap *t) {
  memset(t, 0, sizeof *t);
  t->rank = 1;
  for (int i = 0; i < 5; i++) t->dim[i] = t->box[i] = t->estr[i] = 1;
  t->esize = wv_tmap_esize(0);
  t->stride[0] = t->esize;
}

/* Elements the box holds along dimension i (the traversal stride skips elements), and the box's bytes. */
static inline uint32_t wv_tmap_count(const wv_tmap *t, int i) { return (t->box[i] + t->estr[i] - 1) / t->estr[i]; }
static inline uint64_t wv_tmap_box_bytes(const wv_tmap *t) {
  uint64_t n = t->esize;
  for (int i = 0; i < t->rank; i++) n *= wv_tmap_count(t, i);
  return n;
}

/* The swizzle modes' byte permutation of shared memory (CUtensorMapSwizzle 1, 2, 3: 32, 64, 128 bytes): the
 * 16-byte chunk index (address bits 4..) is XORed with address bits 7.. — 1, 2 or 3 bits (CUTLASS/CuTe's
 * Swizzle<1,4,3>, <2,4,3>, <3,4,3>): a pattern of 8 rows of the swizzle span, repeating every 256, 512 or 1024
 * bytes of shared address. Applied to the shared address itself, as the hardware does (so a destination
 * aligned to the pattern's repeat gets the documented layout). */
static inline uint32_t wv_tmap_swizzle(uint32_t swizzle, uint32_t saddr) {
  if (swizzle < 1 || swizzle > 3) return saddr;
  uint32_t mask = (1u << swizzle) - 1;
  return saddr ^ (((saddr >> 7) & mask) << 4);
}

#endif
