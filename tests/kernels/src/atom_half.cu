// atom_half.cu — atomic adds on half types and the vector float atomics of sm_90, as CUDA's atomicAdd emits
// them: atom.add.noftz.{f16,f16x2,bf16,bf16x2} (bf16 on sm_90; sm_80 compiles a CAS loop) and
// atom.global.add.v2.f32 / .v4.f32 (sm_90). Every recorded value is independent of the order in which threads
// reach the word: where all threads add the same addend, the chain of roundings x(k+1) = rn(x(k) + a) is the
// same whoever adds; the old values returned are that chain's first n values in some order, so their XOR and
// their sum (as integers) are fixed. NaN and infinity cases end in NaN whatever the order.
//
// atom_half(cells, olds): any grid and block; cells is 32 u32 words, zero-filled; olds 64 u32 words, zero.
//   cells (as u16 halves where noted): see the slots below. olds[2k] ^= old bits, olds[2k+1] += old bits.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

static __device__ void note(unsigned *olds, int k, unsigned bits) {
  atomicXor(&olds[2 * k], bits);
  atomicAdd(&olds[2 * k + 1], bits);
}

extern "C" __global__ void atom_half(unsigned *cells, unsigned *olds) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  __half *h = (__half *)cells;                     // words 0..3: 8 f16 slots
  __half2 *h2 = (__half2 *)(cells + 4);            // words 4..5
  __nv_bfloat16 *b = (__nv_bfloat16 *)(cells + 8); // words 8..11: 8 bf16 slots
  __nv_bfloat162 *b2 = (__nv_bfloat162 *)(cells + 12);

  // f16: 0.1 repeatedly (rounding chain, stops growing at 256), the smallest subnormal (kept: .noftz), a NaN
  // from thread 5, +inf and -inf from two threads, -0.0 onto +0.0.
  note(olds, 0, __half_as_ushort(atomicAdd(&h[0], __float2half(0.1f))));
  note(olds, 1, __half_as_ushort(atomicAdd(&h[1], __ushort_as_half(0x0001))));
  atomicAdd(&h[2], t == 5 ? __ushort_as_half(0x7e55) : __float2half(1.0f));
  atomicAdd(&h[3], t == 7 ? __ushort_as_half(0x7c00) : t == 9 ? __ushort_as_half(0xfc00) : __float2half(1.0f));
  atomicAdd(&h[4], __ushort_as_half(0x8000));
  atomicAdd(&h[5], __float2half(-0.3f));
  // f16x2: low 0.1, high 3.0 (integers stay exact to 2048, then round)
  __half2 old2 = atomicAdd(&h2[0], __halves2half2(__float2half(0.1f), __float2half(3.0f)));
  note(olds, 2, *(unsigned *)&old2);
  atomicAdd(&h2[1], __halves2half2(__ushort_as_half(0x0003), __float2half(-1.5f)));
  // bf16 and bf16x2: the same shapes
  note(olds, 3, __bfloat16_as_ushort(atomicAdd(&b[0], __float2bfloat16(0.1f))));
  note(olds, 4, __bfloat16_as_ushort(atomicAdd(&b[1], __ushort_as_bfloat16(0x0001))));
  atomicAdd(&b[2], t == 5 ? __ushort_as_bfloat16(0x7fc5) : __float2bfloat16(1.0f));
  atomicAdd(&b[3], t == 7 ? __ushort_as_bfloat16(0x7f80) : t == 9 ? __ushort_as_bfloat16(0xff80) : __float2bfloat16(1.0f));
  __nv_bfloat162 ob2 = atomicAdd(&b2[0], __halves2bfloat162(__float2bfloat16(0.1f), __float2bfloat16(3.0f)));
  note(olds, 5, *(unsigned *)&ob2);
  atomicAdd(&b2[1], __halves2bfloat162(__ushort_as_bfloat16(0x0003), __float2bfloat16(-1.5f)));
#if __CUDA_ARCH__ >= 900
  // vector float atomics (sm_90): words 16..17 float2, 20..23 float4 (16-byte aligned); 0.1f chains, a
  // subnormal addend (does the vector form flush like the scalar global f32 add?), integers.
  float2 *f2 = (float2 *)(cells + 16);
  float4 *f4 = (float4 *)(cells + 20);
  float2 o2 = atomicAdd(f2, make_float2(0.1f, __int_as_float(0x00000003)));
  note(olds, 6, __float_as_uint(o2.x));
  note(olds, 7, __float_as_uint(o2.y));
  float4 o4 = atomicAdd(f4, make_float4(1.0f, 0.1f, __int_as_float(0x00400000), -2.5f));
  note(olds, 8, __float_as_uint(o4.x));
  note(olds, 9, __float_as_uint(o4.y));
  note(olds, 10, __float_as_uint(o4.z));
  note(olds, 11, __float_as_uint(o4.w));
  // the scalar global f32 add of the same subnormal, for comparison
  atomicAdd((float *)(cells + 24), __int_as_float(0x00000003));
#endif
}
