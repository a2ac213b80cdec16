/*
 * jit_rt.c — what compiled regions call: exec's warp-wide memory check (h_mem.c wv_warp_region_at), so the
 * compiled fast path and the interpreter's are one mechanism; on any doubt the region stops and the
 * interpreter runs the instruction.
 */
#include "exec/handlers.h"
#include "jit/jit.h"

int wv_jit_mem(wv_exec *x, int space, uint64_t lo, uint64_t hi, uint64_t bits, uint32_t bytes, int store,
               uint64_t *out) {
  wv_region r;
  if (!wv_warp_region_at(x, space, lo, hi, bits, bytes, store, &r)) return 0;
  out[0] = (uint64_t)(uintptr_t)r.host - r.abase;
  out[1] = r.stride;
  return 1;
}
