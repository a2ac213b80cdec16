/*
 * wgmma_layout.c — where wgmma's shared-memory matrix descriptors put each element (PTX ISA "Matrix Descriptor
 * Format", "Shared Memory Matrix Layout"): the canonical K-major and MN-major layouts and the 32B/64B/128B swizzles.
 * Pure C17 with no vm state, so that h_wgmma.c and the offline check against CuTe's layouts
 * (tests/tensor/wgmma_layout.cu) run the same code.
 */
#include "exec/wgmma_layout.h"

/* Layout types 1 (128B), 2 (64B), 3 (32B) span 8, 4, 2 core-matrix rows of 16 bytes; 0 (none) one. */
static uint32_t swz_width(int swz) { return swz == 1 ? 8 : swz == 2 ? 4 : swz == 3 ? 2 : 1; }

/* The canonical layouts (PTX ISA "Shared Memory Matrix Layout"; CUTLASS cute/atom/mma_traits_sm90_gmma.hpp), in
 * 16-byte units, with T = 128 / bits elements in 16 bytes and W = swz_width(swz):
 *   K-major,  no swizzle: ((8,m),(T,2)):((1T,SBO),(1,LBO))   swizzled: ((8,m),(T,2)):((W·T,SBO),(1,T))
 *   MN-major, no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) swizzled: ((T,W,m),(8,k)):((1,T,LBO),(W·T,SBO))
 * so a K-major row of 8 rows × 16 bytes is a core matrix, the next 8 rows SBO further, the second 16 bytes of K
 * LBO further (no swizzle) or adjacent (in the W·16-byte row of a swizzle); MN-major swaps the roles of rows and
 * columns, with LBO and SBO exchanged when swizzled. */
uint32_t wv_wgmma_chunk(int mn_major, int swz, uint32_t lbo, uint32_t sbo, int bits, int mn, int k) {
  uint32_t W = swz_width(swz), per = 128u / (uint32_t)bits, umn = (uint32_t)mn, uk = (uint32_t)k;
  if (!mn_major) {
    uint32_t r = umn % 8, g = umn / 8, kc = uk / per;
    return W == 1 ? r * 16 + g * sbo + kc * lbo : r * 16 * W + g * sbo + kc * 16;
  }
  uint32_t mc = umn / per, kr = uk % 8, kg = uk / 8;
  return W == 1 ? mc * sbo + kr * 16 + kg * lbo : mc % W * 16 + mc / W * lbo + kr * 16 * W + kg * sbo;
}

uint32_t wv_wgmma_swizzle(int swz, uint32_t addr) {
  return addr ^ ((addr >> 7 & (swz_width(swz) - 1)) << 4);
}
