/*
 * wgmma_layout.h — the canonical shared-memory layouts of wgmma's matrix descriptors (wgmma_layout.c).
 */
#ifndef WV_WGMMA_LAYOUT_H
#define WV_WGMMA_LAYOUT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Byte offset, before swizzling, from a descriptor's start address to the 16 bytes of a canonical layout's core
 * matrix row that hold element (mn, k) of an operand with `bits`-bit elements (A: mn = row m; B: mn = column n):
 * K-major, the 16 bytes of row mn holding k; MN-major (`mn_major`), the 16 bytes of row k holding mn. lbo and sbo
 * in bytes, swz the descriptor's layout type (0 none, 1 128B, 2 64B, 3 32B). */
uint32_t wv_wgmma_chunk(int mn_major, int swz, uint32_t lbo, uint32_t sbo, int bits, int mn, int k);
/* The shared-memory address of the 16 bytes at unswizzled address `addr` under layout type swz: bits 4.. of the
 * address XORed with bits 7.. (1, 2 or 3 bits for 32B, 64B, 128B). */
uint32_t wv_wgmma_swizzle(int swz, uint32_t addr);

#ifdef __cplusplus
}
#endif

#endif
