// half_oob.cu — fma.rn.oob{.relu} on .f16, .bf16, .f16x2, .bf16x2 (sm_90, PTX ISA 8.1): the "out-of-bounds NaN"
// a tensor load writes for elements outside the tensor makes a product vanish. Every combination of a and b
// from {OOB-NaN 0x7ff7 and 0xfff7, the canonical NaN, 1.0, NaNs next to the OOB pattern, a bf16 look-alike, ...}
// with c from {0, 2.5, -3, NaN, inf, -0, OOB-NaN}, plain and .relu, and a sweep of a over every NaN and
// infinity pattern (b = 1, c = 0; and as c) for f16, bf16 and the x2 forms.
//
// half_oob(out): one block of 252 threads; out holds 4 x 252 + 4 x 2304 u32 words (one result each).
static __device__ unsigned short f16(unsigned short a, unsigned short b, unsigned short c, bool relu) {
  unsigned short r;
  if (relu) asm("fma.rn.oob.relu.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c));
  else asm("fma.rn.oob.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c));
  return r;
}
static __device__ unsigned short bf16(unsigned short a, unsigned short b, unsigned short c, bool relu) {
  unsigned short r;
  if (relu) asm("fma.rn.oob.relu.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c));
  else asm("fma.rn.oob.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c));
  return r;
}

extern "C" __global__ void half_oob(unsigned *out) {
  const unsigned short A[] = {0x7ff7, 0xfff7, 0x7fff, 0x3c00, 0x7ff6, 0x7ef7};
  const unsigned short B[] = {0x3c00, 0x0000, 0x7c00, 0x7fff, 0x7ff7, 0xbc00};
  const unsigned short C[] = {0x0000, 0x4100, 0xc200, 0x7fff, 0x7c00, 0x8000, 0x7ff7};
  const unsigned short BA[] = {0x7ff7, 0xfff7, 0x7fff, 0x3f80, 0x7ff6, 0x7fb7};
  const unsigned short BB[] = {0x3f80, 0x0000, 0x7f80, 0x7fff, 0x7ff7, 0xbf80};
  const unsigned short BC[] = {0x0000, 0x4020, 0xc040, 0x7fff, 0x7f80, 0x8000, 0x7ff7};
  int t = threadIdx.x, i = t / 42, j = (t / 7) % 6, k = t % 7;
  out[t] = f16(A[i], B[j], C[k], false);
  out[252 + t] = f16(A[i], B[j], C[k], true);
  out[504 + t] = bf16(BA[i], BB[j], BC[k], false);
  out[756 + t] = bf16(BA[i], BB[j], BC[k], true);
  unsigned *o = out + 1008;
  for (int x = t; x < 2304; x += blockDim.x) {
    // f16: 0x7c00..0x7fff and 0xfc00..0xffff; bf16: 0x7f80..0x7fff and 0xff80..0xffff (then 0x7f00.. filler)
    unsigned short fa = (unsigned short)(x < 1024 ? 0x7c00 + x : x < 2048 ? 0xfc00 + (x - 1024) : 0x3c00 + x);
    unsigned short ba = (unsigned short)(x < 128 ? 0x7f80 + x : x < 256 ? 0xff80 + (x - 128) : 0x3f00 + x);
    o[x] = f16(fa, 0x3c00, 0x0000, false);
    o[2304 + x] = bf16(ba, 0x3f80, 0x0000, false);
    unsigned a2 = (unsigned)fa | (unsigned)(unsigned short)(fa ^ 0x8000) << 16, r2;
    asm("fma.rn.oob.f16x2 %0, %1, %2, %3;" : "=r"(r2) : "r"(a2), "r"(0x3c003c00u), "r"(0x41004100u));
    o[2 * 2304 + x] = r2;
    unsigned b2 = (unsigned)ba << 16 | 0x3f80u;
    asm("fma.rn.oob.relu.bf16x2 %0, %1, %2, %3;" : "=r"(r2) : "r"(0x3f80bf80u), "r"(b2), "r"((unsigned)ba << 16 | ba));
    o[3 * 2304 + x] = r2;
  }
}
