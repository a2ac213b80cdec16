/*
 * ptxgen.h — random PTX kernels for differential testing of warpvm's engines (fuzz_engines.c): a byte
 * stream (a libFuzzer input, or pseudo-random bytes) chooses a loop-free kernel of integer, floating-point,
 * predicate, conversion, memory and warp instructions, with guards and forward branches that diverge and
 * reconverge. Every register the kernel computes ends up in its output buffer, so two runs that differ in
 * any register or memory byte print different outputs.
 *
 * The kernel is `.entry k(.param .u64 in, .param .u64 out)`, launched as WVG_GRID blocks of WVG_BLOCK
 * threads. Thread g (global index) reads its initial values from in + g * WVG_IN_STRIDE and writes
 * WVG_OUT_STRIDE bytes at out + g * WVG_OUT_STRIDE: every value register, every predicate (0 or 1), its
 * shared-memory slot and its global scratch words.
 */
#ifndef WV_PTXGEN_H
#define WV_PTXGEN_H

#include <stddef.h>
#include <stdint.h>

#define WVG_GRID 2u
#define WVG_BLOCK 64u
#define WVG_THREADS (WVG_GRID * WVG_BLOCK)
#define WVG_NVALS 20u                      /* value registers: 8 b32, 4 b64, 6 f32, 2 f64 */
#define WVG_NPREDS 4u
#define WVG_IN_STRIDE (8u * (WVG_NVALS + WVG_NPREDS))
#define WVG_OUT_STRIDE (8u * (WVG_NVALS + WVG_NPREDS) + 32u + 32u)

/* Writes the kernel chosen by data[0..n) into buf (NUL-terminated); returns its length, or 0 if cap is too
 * small (64 KiB always suffices). Any input gives a kernel; inputs that differ usually give different ones. */
size_t wvg_kernel(const uint8_t *data, size_t n, char *buf, size_t cap);

/* Fills the input buffer (WVG_THREADS * WVG_IN_STRIDE bytes) with values that reach the edge cases: signed
 * zeros, infinities, NaNs with payloads, subnormals, integer extremes, shift counts near the width. */
void wvg_inputs(uint64_t seed, uint8_t *in);

#endif
