// sm90.cu — PTX that needs sm_90: elect.sync, the cluster special registers (an ordinary launch is an
// implicit 1x1x1 cluster), and fp8 (e4m3 / e5m2) conversions, plus native bf16 rounding modes.
//   sm90_elect(in, out): 4 words per thread: elect.sync over the full warp (elected lane, predicate),
//     then inside `if (x & 1)` over __activemask() (elected lane, predicate). Run with block 64 or 40.
//   sm90_cluster(out): 8 words per thread (only thread 0 of each block writes): %cluster_ctarank,
//     %cluster_nctarank, %clusterid.x, %nclusterid.x, %cluster_ctaid.x, %cluster_nctaid.x,
//     %is_explicit_cluster, %ctaid.x.
//   sm90_fp8(rnd, out): 6 words per thread from a float pair (a, b): cvt.rn.satfinite.e4m3x2.f32,
//     cvt.rn.satfinite.e5m2x2.f32, cvt.rn.satfinite.relu.e4m3x2.f32,
//     then cvt.rn.f16x2.e4m3x2 and cvt.rn.f16x2.e5m2x2 of the low 16 bits of a's bits, and cvt.rm.bf16.f32 a.
#include "wv_compat.h"

extern "C" __global__ void sm90_elect(const unsigned *in, unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, x = in[t];
  unsigned first = threadIdx.x & ~31u, cnt = blockDim.x - first;
  unsigned wm = cnt >= 32 ? 0xffffffffu : (1u << cnt) - 1;
  unsigned l = 0xccccccccu, p = 0xccccccccu, l2 = 0xccccccccu, p2 = 0xccccccccu;
  asm volatile("{ .reg .pred q; elect.sync %0|q, %2; selp.u32 %1, 1, 0, q; }" : "=r"(l), "=r"(p) : "r"(wm));
  if (x & 1) {
    unsigned am = __activemask();
    asm volatile("{ .reg .pred q; elect.sync %0|q, %2; selp.u32 %1, 1, 0, q; }" : "=r"(l2), "=r"(p2) : "r"(am));
  }
  out[t * 4 + 0] = l;
  out[t * 4 + 1] = p;
  out[t * 4 + 2] = l2;
  out[t * 4 + 3] = p2;
}

extern "C" __global__ void sm90_cluster(unsigned *out) {
  if (threadIdx.x != 0) return;
  unsigned r[8];
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r[0]));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(r[1]));
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(r[2]));
  asm("mov.u32 %0, %%nclusterid.x;" : "=r"(r[3]));
  asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(r[4]));
  asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(r[5]));
  asm("{ .reg .pred q; mov.pred q, %%is_explicit_cluster; selp.u32 %0, 1, 0, q; }" : "=r"(r[6]));
  r[7] = blockIdx.x;
  for (int k = 0; k < 8; k++) out[blockIdx.x * 8 + k] = r[k];
}

__constant__ unsigned F8S[32] = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x43e00000u, 0x43e80000u,
                                 0x43f00000u, 0x44000000u, 0x47600000u, 0x47700000u, 0x47800000u, 0x3b000000u,
                                 0x3a800000u, 0x3a000000u, 0x37800000u, 0x37000000u, 0x7f800000u, 0xff800000u,
                                 0x7fc00000u, 0xffc00000u, 0x3f880000u, 0x3f900000u, 0x3f980000u, 0x3f840000u,
                                 0x3f8c0000u, 0x40490fdbu, 0xc2f6e979u, 0x3eaaaaabu, 0x00000001u, 0x7f7fffffu,
                                 0x43700000u, 0x3b800000u};

extern "C" __global__ void sm90_fp8(const unsigned *rnd, unsigned *out) {
  unsigned n = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned ab, bb;
  if (t < 1024) {
    ab = F8S[t >> 5];
    bb = F8S[t & 31];
  } else {
    unsigned r0 = rnd[t], r1 = rnd[n + t];
    ab = (r0 & 0x807fffffu) | ((110u + (r0 >> 23) % 40u) << 23);
    bb = (r1 & 0x807fffffu) | ((110u + (r1 >> 23) % 40u) << 23);
  }
  float a = __uint_as_float(ab), b = __uint_as_float(bb);
  unsigned short s;
  unsigned w;
  unsigned *o = out + t * 6;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(s) : "f"(a), "f"(b));
  o[0] = s;
  asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(s) : "f"(a), "f"(b));
  o[1] = s;
  asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(s) : "f"(a), "f"(b));
  o[2] = s;
  unsigned short lo = (unsigned short)ab;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(w) : "h"(lo));
  o[3] = w;
  asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(w) : "h"(lo));
  o[4] = w;
  asm("cvt.rm.bf16.f32 %0, %1;" : "=h"(s) : "f"(a));
  o[5] = s;
}
