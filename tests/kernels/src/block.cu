// block.cu — block-level communication through shared memory and barriers.
//   block_reduce: per-block sum (u32, wrapping), max and xor, and a float sum with a fixed tree order;
//     blockDim.x is a power of two <= 1024; out[blockIdx.x * 4 + 0..3] = sum, max, xor, float-sum bits.
//   block_scan: Hillis-Steele inclusive scan of (x & 0xffff) in static shared memory (double buffered);
//     out[global thread] = inclusive prefix within the block.
//   block_scan_dyn: the same in dynamic (extern) shared memory: run with --shared 8*blockDim.x; also an
//     exclusive Blelloch scan into out2.
//   dyn_shared_big: uses n words of dynamic shared memory (run with --shared 4*n, above 48 KiB); every
//     thread fills shared[j] = j*3 + blockIdx.x for its strided j, then after the barrier folds
//     shared[n-1-i] over its strided i (acc = acc*31 + v); out[global thread] = acc.
//   sync_count: __syncthreads_count / _and / _or over data-dependent predicates; out[block * 3 + k].
//   dims3d: every thread writes 6 words at its linear global index: tid, ctaid, ntid, nctaid packed as
//     x | y << 10 | z << 20, then %laneid and the linear thread index within the block.
#include "wv_compat.h"

#ifndef __NVCC__
static __device__ __inline__ int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }
static __device__ __inline__ int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }
static __device__ __inline__ int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
#endif

extern "C" __global__ void block_reduce(const unsigned *in, unsigned *out) {
  __shared__ unsigned s_sum[1024], s_max[1024], s_xor[1024];
  __shared__ float s_f[1024];
  unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  unsigned x = in[g];
  s_sum[t] = x;
  s_max[t] = x;
  s_xor[t] = x;
  s_f[t] = (float)(int)(x & 0xfffff) * 0.001f;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) {
      s_sum[t] += s_sum[t + k];
      s_max[t] = s_max[t] > s_max[t + k] ? s_max[t] : s_max[t + k];
      s_xor[t] ^= s_xor[t + k];
      s_f[t] += s_f[t + k];
    }
    __syncthreads();
  }
  if (t == 0) {
    out[blockIdx.x * 4 + 0] = s_sum[0];
    out[blockIdx.x * 4 + 1] = s_max[0];
    out[blockIdx.x * 4 + 2] = s_xor[0];
    out[blockIdx.x * 4 + 3] = __float_as_int(s_f[0]);
  }
}

extern "C" __global__ void block_scan(const unsigned *in, unsigned *out) {
  __shared__ unsigned buf[2][1024];
  unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  int cur = 0;
  buf[0][t] = in[g] & 0xffff;
  __syncthreads();
  for (unsigned off = 1; off < blockDim.x; off <<= 1) {
    unsigned v = buf[cur][t];
    if (t >= off) v += buf[cur][t - off];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  out[g] = buf[cur][t];
}

extern "C" __global__ void block_scan_dyn(const unsigned *in, unsigned *out, unsigned *out2) {
  extern __shared__ unsigned dyn[];
  unsigned n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  unsigned *a = dyn, *b = dyn + n;
  unsigned x = in[g] & 0xffff;
  a[t] = x;
  b[t] = x;
  __syncthreads();
  // Hillis-Steele in place with a read/sync/write split.
  for (unsigned off = 1; off < n; off <<= 1) {
    unsigned v = a[t];
    if (t >= off) v += a[t - off];
    __syncthreads();
    a[t] = v;
    __syncthreads();
  }
  out[g] = a[t];
  // Blelloch exclusive scan on b (n a power of two).
  for (unsigned d = 1; d < n; d <<= 1) {
    unsigned i = (t + 1) * 2 * d - 1;
    if (i < n) b[i] += b[i - d];
    __syncthreads();
  }
  if (t == 0) b[n - 1] = 0;
  __syncthreads();
  for (unsigned d = n / 2; d > 0; d >>= 1) {
    unsigned i = (t + 1) * 2 * d - 1;
    if (i < n) {
      unsigned l = b[i - d];
      b[i - d] = b[i];
      b[i] += l;
    }
    __syncthreads();
  }
  out2[g] = b[t];
}

extern "C" __global__ void dyn_shared_big(unsigned n, unsigned *out) {
  extern __shared__ unsigned big[];
  for (unsigned j = threadIdx.x; j < n; j += blockDim.x) big[j] = j * 3 + blockIdx.x;
  __syncthreads();
  unsigned acc = 0;
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) acc = acc * 31 + big[n - 1 - i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void sync_count(const unsigned *in, unsigned *out) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[g];
  int c = __syncthreads_count((x & 3) == 0);
  int a = __syncthreads_and(x != 0x12345678u && (blockIdx.x != 1 || threadIdx.x != 77));
  int o = __syncthreads_or((x & 0xff) == 0x5a);
  if (threadIdx.x == 0) {
    out[blockIdx.x * 3 + 0] = (unsigned)c;
    out[blockIdx.x * 3 + 1] = (unsigned)a;
    out[blockIdx.x * 3 + 2] = (unsigned)o;
  }
}

extern "C" __global__ void dims3d(unsigned *out) {
  unsigned tl = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned bl = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned g = bl * (blockDim.x * blockDim.y * blockDim.z) + tl;
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  unsigned *o = out + g * 6;
  o[0] = threadIdx.x | threadIdx.y << 10 | threadIdx.z << 20;
  o[1] = blockIdx.x | blockIdx.y << 10 | blockIdx.z << 20;
  o[2] = blockDim.x | blockDim.y << 10 | blockDim.z << 20;
  o[3] = gridDim.x | gridDim.y << 10 | gridDim.z << 20;
  o[4] = lane;
  o[5] = tl;
}
