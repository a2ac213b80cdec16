// async_memmodel.cu — the memory-model examples whose outcome is deterministic when the ordering works.
//   mm_lastblock(in, n_per_block, partial, out), block 256: the CUDA guide's last-block sum (simt text,
//     "Code 1") on unsigned ints: each block reduces its n_per_block words in shared memory, thread 0 stores
//     partial[block] (volatile), __threadfence(), atomicInc(&mm_count, gridDim.x); the block that sees
//     gridDim.x - 1 sums the partials: out[0] = total, out[1] = the number of partials it read, and resets
//     the counter.
//   mm_lastblock_acqrel(in, n_per_block, partial, out): the same with cuda::atomic_ref<unsigned,
//     thread_scope_device>::fetch_add(1, memory_order_acq_rel) instead of fence + atomicInc.
//   mm_msg_release(in, data, flag, out), grid 2, block 32: block 0 writes data[l] = in[l] * 3 + 1, __syncwarp,
//     lane 0 does st.release.gpu flag = 1; block 1 lane 0 spins on ld.acquire.gpu flag, __syncwarp, then
//     out[l] = data[l] ^ 0x5a5a (must be the produced value).
//   mm_msg_fence(in, data, flag, out): the same with volatile stores, __threadfence(), atomicExch(flag, 1);
//     consumer: while (atomicAdd(flag, 0) == 0); __threadfence(); volatile loads.
//   mm_msg_cta(in, out), block 64: warp 0 produces into shared memory and publishes with
//     cuda::atomic_ref<unsigned, thread_scope_block>::store(r + 1, release) (several rounds, each waiting
//     for warp 1's acknowledgement); warp 1 spins with load(acquire). out[r*32 + l] = received value.
#include <cuda/atomic>

__device__ unsigned mm_count = 0;
__device__ unsigned mm_count2 = 0;

__device__ __forceinline__ unsigned block_sum256(const unsigned *in) {
  __shared__ unsigned red[256];
  unsigned t = threadIdx.x;
  red[t] = in[t];
  __syncthreads();
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  unsigned r = red[0];
  __syncthreads();
  return r;
}

extern "C" __global__ void mm_lastblock(const unsigned *in, unsigned n_per_block, volatile unsigned *partial,
                                        unsigned *out) {
  __shared__ bool isLastBlockDone;
  unsigned sum = 0;
  for (unsigned k = 0; k < n_per_block; k += 256) sum += block_sum256(in + blockIdx.x * n_per_block + k);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    __threadfence();
    unsigned value = atomicInc(&mm_count, gridDim.x);
    isLastBlockDone = (value == (gridDim.x - 1));
  }
  __syncthreads();
  if (isLastBlockDone && threadIdx.x == 0) {
    unsigned total = 0, k;
    for (k = 0; k < gridDim.x; k++) total += partial[k];
    out[0] = total;
    out[1] = k;
    mm_count = 0;
  }
}

extern "C" __global__ void mm_lastblock_acqrel(const unsigned *in, unsigned n_per_block, unsigned *partial,
                                               unsigned *out) {
  __shared__ bool isLastBlockDone;
  unsigned sum = 0;
  for (unsigned k = 0; k < n_per_block; k += 256) sum += block_sum256(in + blockIdx.x * n_per_block + k);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> cnt(mm_count2);
    unsigned value = cnt.fetch_add(1, cuda::memory_order_acq_rel);
    isLastBlockDone = (value == (gridDim.x - 1));
  }
  __syncthreads();
  if (isLastBlockDone && threadIdx.x == 0) {
    unsigned total = 0, k;
    for (k = 0; k < gridDim.x; k++) total += partial[k];
    out[0] = total;
    out[1] = k;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(mm_count2).store(0, cuda::memory_order_relaxed);
  }
}

extern "C" __global__ void mm_msg_release(const unsigned *in, unsigned *data, unsigned *flag, unsigned *out) {
  unsigned l = threadIdx.x;
  if (blockIdx.x == 0) {
    data[l] = in[l] * 3u + 1u;
    __syncwarp();
    if (l == 0) asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(1u) : "memory");
  } else {
    if (l == 0) {
      unsigned f;
      do {
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
      } while (f == 0);
    }
    __syncwarp();
    out[l] = data[l] ^ 0x5a5au;
  }
}

extern "C" __global__ void mm_msg_fence(const unsigned *in, volatile unsigned *data, unsigned *flag, unsigned *out) {
  unsigned l = threadIdx.x;
  if (blockIdx.x == 0) {
    data[l] = in[l] * 5u + 7u;
    __threadfence();
    __syncwarp();
    if (l == 0) atomicExch(flag, 1u);
  } else {
    if (l == 0)
      while (atomicAdd(flag, 0u) == 0) {
      }
    __syncwarp();
    __threadfence();
    out[l] = data[l] ^ 0xa5a5u;
  }
}

extern "C" __global__ void mm_msg_cta(const unsigned *in, unsigned *out, unsigned rounds) {
  __shared__ unsigned box[32];
  __shared__ unsigned flag, ack;
  unsigned t = threadIdx.x, l = t % 32;
  if (t == 0) flag = ack = 0;
  __syncthreads();
  cuda::atomic_ref<unsigned, cuda::thread_scope_block> f(flag), a(ack);
  for (unsigned r = 0; r < rounds; r++) {
    if (t < 32) {
      if (l == 0)
        while (a.load(cuda::memory_order_acquire) != r) {
        }
      __syncwarp();
      box[l] = in[r * 32 + l] + r;
      __syncwarp();
      if (l == 0) f.store(r + 1, cuda::memory_order_release);
    } else if (t < 64) {
      if (l == 0)
        while (f.load(cuda::memory_order_acquire) != r + 1) {
        }
      __syncwarp();
      out[r * 32 + l] = box[l];
      __syncwarp();
      if (l == 0) a.store(r + 1, cuda::memory_order_release);
    }
  }
}
