/* wv_compat.h — lets the corpus sources that must also exist as sm_70 PTX compile with clang-14 in
 * CUDA mode without any CUDA headers (clang-14 --cuda-gpu-arch=sm_70 -nocudainc -nocudalib).
 * nvcc 13 no longer targets sm_70, so those PTX files come from clang instead (see build_ptx.sh).
 * Under nvcc this header does nothing: the real CUDA headers are already in scope.
 * Every definition below mirrors the CUDA 13 header it replaces (sm_30_intrinsics.hpp for the
 * shuffle c operand: ((32-width)<<8)|0x1f, and (32-width)<<8 for shfl.up). Only what the
 * clang-built sources use is defined. */
#ifndef WV_COMPAT_H
#define WV_COMPAT_H
#ifndef __NVCC__

#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __inline__ __inline__
#include <__clang_cuda_builtin_vars.h>

extern "C" __device__ int printf(const char *, ...);
#define WV_D static __device__ __attribute__((always_inline)) inline

WV_D void __threadfence() { __nvvm_membar_gl(); }

WV_D unsigned __activemask() {
  unsigned m;
  asm volatile("activemask.b32 %0;" : "=r"(m));
  return m;
}
WV_D void __syncwarp(unsigned mask = 0xffffffffu) { asm volatile("bar.warp.sync %0;" ::"r"(mask)); }

#define WV_SHFL(name, mode, cexpr)                                                                \
  WV_D int name(unsigned mask, int v, int b, int width = 32) {                                     \
    int r, c = (cexpr);                                                                          \
    asm volatile("shfl.sync." mode ".b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(b), "r"(c), "r"(mask)); \
    return r;                                                                                    \
  }                                                                                              \
  WV_D unsigned name(unsigned mask, unsigned v, int b, int width = 32) { return (unsigned)name(mask, (int)v, b, width); } \
  WV_D float name(unsigned mask, float v, int b, int width = 32) {                                 \
    return __int_as_float(name(mask, __float_as_int(v), b, width));                              \
  }
WV_D int __float_as_int(float f) { return __builtin_bit_cast(int, f); }
WV_D float __int_as_float(int i) { return __builtin_bit_cast(float, i); }
WV_SHFL(__shfl_sync, "idx", ((32 - width) << 8) | 0x1f)
WV_SHFL(__shfl_up_sync, "up", (32 - width) << 8)
WV_SHFL(__shfl_down_sync, "down", ((32 - width) << 8) | 0x1f)
WV_SHFL(__shfl_xor_sync, "bfly", ((32 - width) << 8) | 0x1f)
#undef WV_SHFL

WV_D unsigned __ballot_sync(unsigned mask, int pred) {
  unsigned r;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, %2; }" : "=r"(r) : "r"(pred), "r"(mask));
  return r;
}
WV_D int __all_sync(unsigned mask, int pred) {
  int r;
  asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0; vote.sync.all.pred q, p, %2; selp.s32 %0, 1, 0, q; }" : "=r"(r) : "r"(pred), "r"(mask));
  return r;
}
WV_D int __any_sync(unsigned mask, int pred) {
  int r;
  asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0; vote.sync.any.pred q, p, %2; selp.s32 %0, 1, 0, q; }" : "=r"(r) : "r"(pred), "r"(mask));
  return r;
}
WV_D int __uni_sync(unsigned mask, int pred) {
  int r;
  asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0; vote.sync.uni.pred q, p, %2; selp.s32 %0, 1, 0, q; }" : "=r"(r) : "r"(pred), "r"(mask));
  return r;
}
WV_D unsigned __match_any_sync(unsigned mask, unsigned v) {
  unsigned r;
  asm volatile("match.any.sync.b32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
  return r;
}
WV_D unsigned __match_any_sync(unsigned mask, unsigned long long v) {
  unsigned r;
  asm volatile("match.any.sync.b64 %0, %1, %2;" : "=r"(r) : "l"(v), "r"(mask));
  return r;
}
WV_D unsigned __match_all_sync(unsigned mask, unsigned v, int *pred) {
  unsigned r;
  int p;
  asm volatile("{ .reg .pred q; match.all.sync.b32 %0|q, %2, %3; selp.s32 %1, 1, 0, q; }" : "=r"(r), "=r"(p) : "r"(v), "r"(mask));
  *pred = p;
  return r;
}
WV_D unsigned __match_all_sync(unsigned mask, unsigned long long v, int *pred) {
  unsigned r;
  int p;
  asm volatile("{ .reg .pred q; match.all.sync.b64 %0|q, %2, %3; selp.s32 %1, 1, 0, q; }" : "=r"(r), "=r"(p) : "l"(v), "r"(mask));
  *pred = p;
  return r;
}

WV_D int __popc(unsigned x) { return __builtin_popcount(x); }
WV_D int __ffs(int x) { return __builtin_ffs(x); }
WV_D int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }

WV_D int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
WV_D unsigned atomicAdd(unsigned *p, unsigned v) { return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v); }
WV_D unsigned atomicInc(unsigned *p, unsigned lim) { return __nvvm_atom_inc_gen_ui(p, lim); }
WV_D int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
WV_D int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
WV_D int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }

#undef WV_D
#endif /* !__NVCC__ */
#endif
