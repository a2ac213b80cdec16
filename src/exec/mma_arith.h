/*
 * mma_arith.h — the arithmetic of one element of a tensor-core product, D = A·B + C, as the H100 computes
 * it (docs/TENSOR.md gives the rule and the evidence). Pure C17 with no vm state: the mma/wmma handlers
 * (h_mma.c) and the offline check against the GPU recordings (tests/tensor/mma_check.c) share it, so the
 * rule that was measured is the rule that runs.
 */
#ifndef WV_MMA_ARITH_H
#define WV_MMA_ARITH_H

#include <stdint.h>

/* element types of mma operands (A/B, C/D) */
enum wv_mt {
  WV_MT_F16, WV_MT_BF16, WV_MT_TF32, WV_MT_E4M3, WV_MT_E5M2, WV_MT_F32, WV_MT_F64,
  WV_MT_S8, WV_MT_U8, WV_MT_S4, WV_MT_U4, WV_MT_B1, WV_MT_S32, WV_MT_COUNT
};

/* flags; b1 defaults to .xor.popc. WV_MMA_WGMMA: Hopper's wgmma.mma_async, whose fp8 products are summed in one
 * step with 13-bit alignment and a 13-bit result (docs/TENSOR.md), not as mma.sync's two HMMA steps. */
enum { WV_MMA_SATFINITE = 1, WV_MMA_B1_AND = 2, WV_MMA_WGMMA = 4 };

/* the element types of one product: A, B, C, D (A and B may differ: e4m3·e5m2, s8·u8; C and D: f16/f32) */
typedef struct wv_mma_types { enum wv_mt a, b, c, d; } wv_mma_types;

/* Bits of one D element: a[0..k) is the row of A, b[0..k) the column of B, raw bit patterns right-aligned
 * (tf32 as an f32 pattern: its low 13 bits are ignored; b1: one bit each), c the raw bits of C. */
uint64_t wv_mma_elem(const wv_mma_types *ty, int k, const uint64_t *a, const uint64_t *b, uint64_t c,
                     unsigned flags);

/* D = A·B + C for a whole tile, each element as wv_mma_elem: a is m×k row-major, bt is B transposed (n×k),
 * c and d are m×n row-major (raw bits). Float elements are decoded once per tile. */
void wv_mma_tile(const wv_mma_types *ty, int m, int n, int k, const uint64_t *a, const uint64_t *bt, const uint64_t *c,
                 uint64_t *d, unsigned flags);

int wv_mma_bits(enum wv_mt t); /* width of an element in bits */

#endif
