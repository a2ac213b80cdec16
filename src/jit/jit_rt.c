/*
 * jit_rt.c — what compiled regions call: exec's warp-wide memory check (h_mem.c wv_warp_region_at), so the
 * compiled fast path and the interpreter's are one mechanism; on any doubt the region stops and the
 * interpreter runs the instruction; and the lane-by-lane scatter of targets without a scatter instruction worth
 * using (emit.h WV_EMIT_SCATTER).
 */
#include <string.h>

#include "exec/handlers.h"
#include "jit/jit.h"

#include "rt/vm_internal.h"

int wv_jit_mem(wv_exec *x, int space, uint64_t lo, uint64_t hi, uint64_t bits, uint32_t bytes, int store,
               uint64_t *out, uint32_t site) {
  wv_region r;
  if (!wv_warp_region_at(x, space, lo, hi, bits, bytes, store, &r)) return 0;
  out[0] = (uint64_t)(uintptr_t)r.host - r.abase;
  out[1] = r.stride;
  if ((r.sp == WV_SPACE_GLOBAL && (space == WV_SPACE_GLOBAL || space == WV_SPACE_GENERIC)) ||
      (r.sp == WV_SPACE_CONST && space == WV_SPACE_CONST && !x->mm)) {
    /* (a bank of constants is an allocation of the heap too; under the weak model no window at all, as a global
     * site that shares one, WV_GWINS apart, would take it) */
    const wv_alloc *a = wv_heap_containing(&x->vm->heap, lo); /* (the one wv_heap_lookup found) */
    if (a && a->host)
      x->gwin[site % WV_GWINS] = (wv_gwin){.lo = a->base, .end = a->base + a->size,
                                           .delta = (uint64_t)(uintptr_t)a->host - a->base, .frees = *x->heap_frees};
  }
  return 1;
}

void wv_jit_scatter(void *const *ptrs, const void *vals, uint32_t mask, uint32_t bytes) {
  /* (a loop per element size: memcpy of a constant size is one store, of a variable one a call) */
#define SCATTER(n)                                                                                                     \
  for (; mask; mask &= mask - 1) {                                                                                     \
    uint32_t l = (uint32_t)__builtin_ctz(mask);                                                                        \
    memcpy(ptrs[l], (const char *)vals + (size_t)l * (n), (n));                                                        \
  }
  switch (bytes) {
  case 1: SCATTER(1) break;
  case 2: SCATTER(2) break;
  case 4: SCATTER(4) break;
  case 8: SCATTER(8) break;
  default: SCATTER(bytes)
  }
#undef SCATTER
}
