// half.cu — half-precision arithmetic as inline PTX (one instruction per result, so nvcc/ptxas neither fold
// nor contract them): add sub mul fma (.rn .ftz .sat .relu), min/max (.NaN, .xorsign.abs), neg abs, setp (every
// comparison, as a bit mask) on .f16 .bf16 .f16x2 .bf16x2, and cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32.
// Grid 6, block 256 (1536 threads). Thread t < 1024 takes a = T[t / 32], b = T[t % 32], c = T[(t/32 + t%32 + 7) % 32]
// from the edge tables (zeros, subnormals, min normal, 1 and its neighbours, max finite, inf, quiet and signalling
// NaN with payloads, values whose sums and products tie); later threads take random bits from `in`.
// Results are bit patterns, out[t * K + k] (halves in the low 16 bits); setp results are a mask, bit i for the
// i-th comparison of CMPS. The bf16 add/sub/mul/setp forms need sm_90 and .xorsign.abs sm_86: under sm_80 their
// words are 0xdeadbeef.
#include <cuda_fp16.h>
typedef unsigned short u16;

__constant__ u16 TH[32] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01, 0x3bff,
                           0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe12, 0x3800, 0x4000, 0x1400, 0x0200,
                           0x3555, 0x5bff, 0xc248, 0x0401, 0x83ff, 0x1000, 0x6000, 0x7800, 0x3e00, 0x0002};
__constant__ u16 TB[32] = {0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x8080, 0x3f80, 0xbf80, 0x3f81, 0x3f7f,
                           0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc5, 0x3f00, 0x4000, 0x3b80, 0x0040,
                           0x3eab, 0x7f00, 0xc148, 0x0081, 0x807f, 0x3b00, 0x5000, 0x7e80, 0x3fc0, 0x0002};
__constant__ unsigned TF[32] = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x477fe000u, 0x477fefffu,
                                0x477ff000u, 0x47800000u, 0xc77ff000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u,
                                0xff800000u, 0x7fc00000u, 0xffc12345u, 0x7f800001u, 0x38800000u, 0x387fc000u,
                                0x33800000u, 0x33000000u, 0x33000001u, 0x3f801000u, 0x3f803000u, 0x3f808000u,
                                0x3f818000u, 0x3f808001u, 0x7f7f8000u, 0x00800000u, 0x00000001u, 0x807fffffu,
                                0x3eaaaaabu, 0xc2f6e979u};

#define OP2(ty, op, r, a, b) asm volatile(op "." ty " %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b))
#define OP3(ty, op, r, a, b, c) asm volatile(op "." ty " %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c))
#define OP1(ty, op, r, a) asm volatile(op "." ty " %0, %1;" : "=h"(r) : "h"(a))
#define OP2X(ty, op, r, a, b) asm volatile(op "." ty " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b))
#define OP3X(ty, op, r, a, b, c) asm volatile(op "." ty " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c))
// one comparison of a scalar: bit i of the mask
#define CMP1(ty, cmp, i, a, b)                                                                                         \
  asm volatile("{ .reg .pred p; setp." cmp "." ty " p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(cm_) : "h"(a), "h"(b)); \
  m |= cm_ << (i)
#define CMPS(X, ty, a, b)                                                                                              \
  X(ty, "eq", 0, a, b); X(ty, "ne", 1, a, b); X(ty, "lt", 2, a, b); X(ty, "le", 3, a, b); X(ty, "gt", 4, a, b);     \
  X(ty, "ge", 5, a, b); X(ty, "equ", 6, a, b); X(ty, "neu", 7, a, b); X(ty, "ltu", 8, a, b); X(ty, "leu", 9, a, b); \
  X(ty, "gtu", 10, a, b); X(ty, "geu", 11, a, b); X(ty, "num", 12, a, b); X(ty, "nan", 13, a, b)

__device__ void operands(const unsigned *in, const u16 *T, u16 &a, u16 &b, u16 &c) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < 1024) {
    a = T[t / 32], b = T[t % 32], c = T[(t / 32 + t % 32 + 7) % 32];
  } else {
    unsigned r = in[2 * (t - 1024)], s = in[2 * (t - 1024) + 1];
    a = (u16)r, b = (u16)(r >> 16), c = (u16)s;
  }
}

#define K_F16 32
extern "C" __global__ void half_f16(const unsigned *in, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  u16 a, b, c, r;
  unsigned *o = out + t * K_F16, m = 0, cm_;
  operands(in, TH, a, b, c);
  int k = 0;
  OP2("f16", "add", r, a, b); o[k++] = r;
  OP2("f16", "add.rn", r, a, b); o[k++] = r;
  OP2("f16", "sub.rn", r, a, b); o[k++] = r;
  OP2("f16", "mul.rn", r, a, b); o[k++] = r;
  OP3("f16", "fma.rn", r, a, b, c); o[k++] = r;
  OP2("f16", "add.rn.ftz", r, a, b); o[k++] = r;
  OP2("f16", "sub.rn.ftz", r, a, b); o[k++] = r;
  OP2("f16", "mul.rn.ftz", r, a, b); o[k++] = r;
  OP3("f16", "fma.rn.ftz", r, a, b, c); o[k++] = r;
  OP2("f16", "add.rn.sat", r, a, b); o[k++] = r;
  OP2("f16", "mul.rn.sat", r, a, b); o[k++] = r;
  OP3("f16", "fma.rn.sat", r, a, b, c); o[k++] = r;
  OP3("f16", "fma.rn.ftz.sat", r, a, b, c); o[k++] = r;
  OP3("f16", "fma.rn.relu", r, a, b, c); o[k++] = r;
  OP3("f16", "fma.rn.ftz.relu", r, a, b, c); o[k++] = r;
  OP2("f16", "min", r, a, b); o[k++] = r;
  OP2("f16", "max", r, a, b); o[k++] = r;
  OP2("f16", "min.NaN", r, a, b); o[k++] = r;
  OP2("f16", "max.NaN", r, a, b); o[k++] = r;
  OP2("f16", "min.ftz", r, a, b); o[k++] = r;
  OP2("f16", "max.ftz.NaN", r, a, b); o[k++] = r;
#if __CUDA_ARCH__ >= 860
  OP2("f16", "min.xorsign.abs", r, a, b); o[k++] = r;
  OP2("f16", "max.NaN.xorsign.abs", r, a, b); o[k++] = r;
#else
  o[k++] = 0xdeadbeefu, o[k++] = 0xdeadbeefu;
#endif
  OP1("f16", "neg", r, a); o[k++] = r;
  OP1("f16", "abs", r, a); o[k++] = r;
  OP1("f16", "neg.ftz", r, a); o[k++] = r;
  OP1("f16", "abs.ftz", r, a); o[k++] = r;
  CMPS(CMP1, "f16", a, b);
  o[k++] = m;
  m = 0;
  CMPS(CMP1, "ftz.f16", a, b);
  o[k++] = m;
  // f16x2: lanes (a, b) op (b, c), fma with (c, a)
  unsigned A = (unsigned)a << 16 | b, B = (unsigned)b << 16 | c, C = (unsigned)c << 16 | a, R;
  OP3X("f16x2", "fma.rn", R, A, B, C); o[k++] = R;
  OP2X("f16x2", "add.rn.ftz.sat", R, A, B); o[k++] = R;
  m = 0;
  asm volatile("{ .reg .pred p, q; .reg .u32 t2; setp.ltu.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t2, 2, 0, q; or.b32 %0, %0, t2; }" : "=r"(cm_) : "r"(A), "r"(B));
  o[k++] = cm_;
}

#define K_BF16 24
extern "C" __global__ void half_bf16(const unsigned *in, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  u16 a, b, c, r;
  unsigned *o = out + t * K_BF16, m = 0, cm_;
  (void)m, (void)cm_;
  operands(in, TB, a, b, c);
  int k = 0;
  OP3("bf16", "fma.rn", r, a, b, c); o[k++] = r;
  OP3("bf16", "fma.rn.relu", r, a, b, c); o[k++] = r;
  OP2("bf16", "min", r, a, b); o[k++] = r;
  OP2("bf16", "max", r, a, b); o[k++] = r;
  OP2("bf16", "min.NaN", r, a, b); o[k++] = r;
  OP2("bf16", "max.NaN", r, a, b); o[k++] = r;
#if __CUDA_ARCH__ >= 860
  OP2("bf16", "min.xorsign.abs", r, a, b); o[k++] = r;
  OP2("bf16", "max.NaN.xorsign.abs", r, a, b); o[k++] = r;
#else
  o[k++] = 0xdeadbeefu, o[k++] = 0xdeadbeefu;
#endif
  OP1("bf16", "neg", r, a); o[k++] = r;
  OP1("bf16", "abs", r, a); o[k++] = r;
  unsigned A = (unsigned)a << 16 | b, B = (unsigned)b << 16 | c, C = (unsigned)c << 16 | a, R;
  OP3X("bf16x2", "fma.rn", R, A, B, C); o[k++] = R;
  OP3X("bf16x2", "fma.rn.relu", R, A, B, C); o[k++] = R;
  OP2X("bf16x2", "max.NaN", R, A, B); o[k++] = R;
#if __CUDA_ARCH__ >= 900
  OP2("bf16", "add.rn", r, a, b); o[k++] = r;
  OP2("bf16", "sub.rn", r, a, b); o[k++] = r;
  OP2("bf16", "mul.rn", r, a, b); o[k++] = r;
  OP2("bf16", "add", r, a, b); o[k++] = r;
  OP2X("bf16x2", "add.rn", R, A, B); o[k++] = R;
  OP2X("bf16x2", "mul.rn", R, A, B); o[k++] = R;
  CMPS(CMP1, "bf16", a, b);
  o[k++] = m;
  asm volatile("{ .reg .pred p, q; .reg .u32 t2; setp.gtu.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t2, 2, 0, q; or.b32 %0, %0, t2; }" : "=r"(cm_) : "r"(A), "r"(B));
  o[k++] = cm_;
#else
  for (int i = 0; i < 8; i++) o[k++] = 0xdeadbeefu;
#endif
  for (; k < K_BF16; k++) o[k] = 0;
}

// cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a from the table or random bits, b likewise.
#define K_CVT 6
extern "C" __global__ void half_cvt2(const unsigned *in, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned a, b, r, *o = out + t * K_CVT;
  if (t < 1024) a = TF[t / 32], b = TF[t % 32];
  else a = in[2 * (t - 1024)], b = in[2 * (t - 1024) + 1];
  int k = 0;
  asm volatile("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b))); o[k++] = r;
  asm volatile("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b))); o[k++] = r;
  asm volatile("cvt.rn.satfinite.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b))); o[k++] = r;
  asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b))); o[k++] = r;
  asm volatile("cvt.rn.relu.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b))); o[k++] = r;
  asm volatile("cvt.rn.satfinite.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b))); o[k++] = r;
}
