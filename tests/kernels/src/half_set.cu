// half_set.cu — `set` with half-precision types (PTX ISA "Half Precision Comparison Instructions: set"), the
// instruction cuda_fp16.h's __heq2/__hlt2/... (1.0 or 0.0 per half) and __heq2_mask/... (0xffff or 0 per half)
// emit, in every comparison, with .ftz, a boolean combination, integer and float destination types, scalar
// forms, bf16 (sm_90; the sm_80 build leaves those slots 0), and f32 sources with a half destination.
//
// half_set(in, out): one thread per 2 input words (a, b: two halves each); every 4th thread compares a with
// itself and every 4th+1 with a copy whose halves are swapped, so equal halves, NaNs and infinities all
// occur. out[t*K + k], K = 28.
#define K 28
#define SET(cmp, dt, st, d, a, b) asm("set." cmp "." dt "." st " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))

/* A 16-bit result goes out through a 16-bit store into the low half of its (zero-filled) word: ptxas 13.0 drops
 * the cvt.u32.u16 after a 16-bit set, and the H200 then stores whatever the high half of the 32-bit register
 * the SASS HSET2 wrote holds (0x14f6..., 0x3c00...), which depends on register allocation, not on PTX. */
static __device__ void h16(unsigned *o, int k, unsigned short v) { asm volatile("st.global.u16 [%0], %1;" ::"l"(o + k), "h"(v)); }

extern "C" __global__ void half_set(const unsigned *in, unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned a = in[2 * t], b = in[2 * t + 1];
  if (t % 4 == 0) b = a;
  if (t % 4 == 1) b = a >> 16 | a << 16;
  if (t % 8 == 2) a = (a & 0xffff0000u) | 0x7c00u; /* +inf low half */
  if (t % 8 == 6) b = (b & 0x0000ffffu) | 0x00010000u; /* a subnormal high half */
  unsigned *o = out + t * K, r;
  SET("eq", "f16x2", "f16x2", r, a, b); o[0] = r;
  SET("ne", "f16x2", "f16x2", r, a, b); o[1] = r;
  SET("lt", "f16x2", "f16x2", r, a, b); o[2] = r;
  SET("le", "f16x2", "f16x2", r, a, b); o[3] = r;
  SET("gt", "f16x2", "f16x2", r, a, b); o[4] = r;
  SET("ge", "f16x2", "f16x2", r, a, b); o[5] = r;
  SET("equ", "f16x2", "f16x2", r, a, b); o[6] = r;
  SET("neu", "f16x2", "f16x2", r, a, b); o[7] = r;
  SET("ltu", "f16x2", "f16x2", r, a, b); o[8] = r;
  SET("leu", "f16x2", "f16x2", r, a, b); o[9] = r;
  SET("gtu", "f16x2", "f16x2", r, a, b); o[10] = r;
  SET("geu", "f16x2", "f16x2", r, a, b); o[11] = r;
  SET("num", "f16x2", "f16x2", r, a, b); o[12] = r;
  SET("nan", "f16x2", "f16x2", r, a, b); o[13] = r;
  SET("lt", "u32", "f16x2", r, a, b); o[14] = r;
  SET("ge", "s32", "f16x2", r, a, b); o[15] = r;
  SET("lt.ftz", "f16x2", "f16x2", r, a, b); o[16] = r;
  SET("eq.ftz", "u32", "f16x2", r, a, b); o[17] = r;
#if __CUDA_ARCH__ >= 900 /* set on bf16 types: sm_90 */
  SET("lt", "bf16x2", "bf16x2", r, a, b); o[18] = r;
  SET("neu", "u32", "bf16x2", r, a, b); o[19] = r;
#endif
  unsigned short ha = (unsigned short)a, hb = (unsigned short)b, hr;
  asm("set.lt.f16.f16 %0, %1, %2;" : "=h"(hr) : "h"(ha), "h"(hb)); h16(o, 20, hr);
  asm("set.gtu.u16.f16 %0, %1, %2;" : "=h"(hr) : "h"(ha), "h"(hb)); h16(o, 21, hr);
  asm("set.le.s32.f16 %0, %1, %2;" : "=r"(r) : "h"(ha), "h"(hb)); o[22] = r;
#if __CUDA_ARCH__ >= 900
  asm("set.ne.u32.bf16 %0, %1, %2;" : "=r"(r) : "h"(ha), "h"(hb)); o[23] = r;
  asm("set.lt.bf16.bf16 %0, %1, %2;" : "=h"(hr) : "h"(ha), "h"(hb)); h16(o, 24, hr);
#endif
  float fa = __uint_as_float(a), fb = __uint_as_float(b);
  asm("set.lt.f16.f32 %0, %1, %2;" : "=h"(hr) : "f"(fa), "f"(fb)); h16(o, 25, hr);
  asm("{ .reg .pred c; setp.ne.u32 c, %3, 0; set.lt.and.f16x2.f16x2 %0, %1, %2, c; }" : "=r"(r) : "r"(a), "r"(b), "r"(t & 1)); o[26] = r;
#if __CUDA_ARCH__ >= 900
  asm("{ .reg .pred c; setp.ne.u32 c, %3, 0; set.gt.xor.u32.bf16x2 %0, %1, %2, !c; }" : "=r"(r) : "r"(a), "r"(b), "r"(t & 2)); o[27] = r;
#endif
}
