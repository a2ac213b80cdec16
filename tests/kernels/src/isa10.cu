// isa10.cu — what issue 10 added, where the GPU decides the values (the unit tests check the same against
// the PTX ISA text; these runs check them against an H200).
//   isa10_bmsk(rnd, out): 6 words per thread: bmsk.clamp.b32 and bmsk.wrap.b32 of (a, b), then
//     szext.clamp.u32, szext.clamp.s32, szext.wrap.u32, szext.wrap.s32 of (a, b). Thread t < 1024 takes
//     a = E[t >> 5], b = E[t & 31] from a table of edge positions and widths (0, 1, 31, 32, 33, 63, 64,
//     2^31, 2^32-1 ...); later threads take random a, and b = a random word mod 70 (even t) or whole (odd t).
//     Run with grid 5, block 256, rnd = 2 * 1280 words: a_r = rnd[t], b_r = rnd[1280 + t].
//   isa10_gridconst(p, out): a __grid_constant__ parameter {x, y} whose address is taken (cvta.param) and
//     read through a generic pointer by a __noinline__ function. 4 words per thread: p.x or p.y (by
//     thread parity), isspacep.param and isspacep.global of the pointer (1/0), and p.y read as q[1].
//   isa10_zfill(src, out): cp.async of 16 bytes per thread with src-size (t % 5) * 4 (zero fill for the
//     rest); threads whose src-size is 0 pass a null source, which must not be read. Each thread's 16
//     bytes of shared memory (preset to 0xdeadbeef) after cp.async.wait_all: 4 words per thread.
//   isa10_cstore(out): thread 0 stores 99 into a __constant__ word through its generic address (valid PTX; a
//     GPU lets it pass and the constant changes); after a barrier every thread reads the word back through
//     the generic address: 1 word per thread.
//   isa10_big<I>(out): five kernels in one module with 48 KiB of static shared memory each (every GPU
//     runs them; they do not share one area): out[t] = (sum of 16 words of the kernel's array) + I.
#include <cuda_runtime.h>

__constant__ unsigned E[32] = {0u,  1u,  2u,  3u,  4u,  7u,  8u,  15u,  16u,  17u,  24u,         30u,
                               31u, 32u, 33u, 34u, 36u, 48u, 63u,  64u,  65u,  96u,  100u,        127u,
                               128u, 255u, 256u, 0x10001u, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xffffffffu};

__device__ __forceinline__ unsigned bmsk_clamp(unsigned a, unsigned b) {
  unsigned d;
  asm volatile("bmsk.clamp.b32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ unsigned bmsk_wrap(unsigned a, unsigned b) {
  unsigned d;
  asm volatile("bmsk.wrap.b32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}

extern "C" __global__ void isa10_bmsk(const unsigned *rnd, unsigned *out) {
  unsigned n = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x, a, b;
  if (t < 1024) {
    a = E[t >> 5];
    b = E[t & 31];
  } else {
    a = rnd[t];
    b = (t & 1) ? rnd[n + t] : rnd[n + t] % 70u;
  }
  unsigned r[6];
  r[0] = bmsk_clamp(a, b);
  r[1] = bmsk_wrap(a, b);
  asm volatile("szext.clamp.u32 %0, %1, %2;" : "=r"(r[2]) : "r"(a), "r"(b));
  asm volatile("szext.clamp.s32 %0, %1, %2;" : "=r"(r[3]) : "r"(a), "r"(b));
  asm volatile("szext.wrap.u32 %0, %1, %2;" : "=r"(r[4]) : "r"(a), "r"(b));
  asm volatile("szext.wrap.s32 %0, %1, %2;" : "=r"(r[5]) : "r"(a), "r"(b));
  for (int k = 0; k < 6; k++) out[t * 6 + k] = r[k];
}

struct Pair {
  int x, y;
};

__device__ __noinline__ int read_at(const int *p, int i) { return p[i]; }

extern "C" __global__ void isa10_gridconst(const __grid_constant__ Pair p, unsigned *out) {
  const int *q = &p.x;
  unsigned isp, isg, t = blockIdx.x * blockDim.x + threadIdx.x;
  asm volatile("{ .reg .pred a, b; isspacep.param a, %2; isspacep.global b, %2; selp.u32 %0, 1, 0, a; selp.u32 %1, 1, 0, b; }"
               : "=r"(isp), "=r"(isg)
               : "l"(q));
  out[t * 4 + 0] = (unsigned)read_at(q, (int)(t & 1));
  out[t * 4 + 1] = isp;
  out[t * 4 + 2] = isg;
  out[t * 4 + 3] = (unsigned)read_at(q + 1, 0);
}

extern "C" __global__ void isa10_zfill(const unsigned *src, unsigned *out) {
  __shared__ __align__(16) unsigned s[256 * 4];
  unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t, bytes = (t % 5) * 4;
  for (int k = 0; k < 4; k++) s[t * 4 + k] = 0xdeadbeefu;
  __syncthreads();
  const unsigned *from = bytes ? src + g * 4 : nullptr;
  unsigned dst = (unsigned)__cvta_generic_to_shared(&s[t * 4]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(from), "r"(bytes) : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  for (int k = 0; k < 4; k++) out[g * 4 + k] = s[t * 4 + k];
}

template <int I> __device__ __forceinline__ void big(unsigned *out) {
  __shared__ unsigned a[12288]; /* 48 KiB */
  unsigned t = threadIdx.x;
  for (unsigned i = t; i < 12288; i += blockDim.x) a[i] = i * 2654435761u + I;
  __syncthreads();
  unsigned s = 0;
  for (int k = 0; k < 16; k++) s += a[(t * 769u + (unsigned)k * 12281u) % 12288u];
  out[blockIdx.x * blockDim.x + t] = s + I;
}
extern "C" __global__ void isa10_big1(unsigned *out) { big<1>(out); }
extern "C" __global__ void isa10_big2(unsigned *out) { big<2>(out); }
extern "C" __global__ void isa10_big3(unsigned *out) { big<3>(out); }
extern "C" __global__ void isa10_big4(unsigned *out) { big<4>(out); }
extern "C" __global__ void isa10_big5(unsigned *out) { big<5>(out); }

__constant__ unsigned CV[4] = {7, 8, 9, 10};

extern "C" __global__ void isa10_cstore(unsigned *out) {
  unsigned t = threadIdx.x, v;
  if (t == 0) asm volatile("{ .reg .b64 a; cvta.const.u64 a, CV; st.u32 [a+4], 99; }" ::: "memory");
  __syncthreads();
  asm volatile("{ .reg .b64 a; cvta.const.u64 a, CV; ld.volatile.u32 %0, [a+4]; }" : "=r"(v)::"memory");
  out[blockIdx.x * blockDim.x + t] = v;
}
