// async_barrier.cu — cuda::barrier<thread_scope_block> (<cuda/barrier>).
//   bar_phases(in, out), any block size <= 256: init(&bar, n) by rank 0, then 6 phases of
//     s[t] = acc * 2654435761 + p; arrive_and_wait(); acc ^= s[(t + p + 1) % n]; arrive_and_wait().
//     out[block*n + t] = acc.
//   bar_token(in, out): the same exchange with `auto tok = bar.arrive(); <local work>; bar.wait(std::move(tok))`
//     around each half; out[(block*n + t)*2] = acc, [.. + 1] = the local work's value.
//   bar_drop(in, out), block 128: phase 0 with all 128 threads; then threads 96..127 write their value and call
//     arrive_and_drop() (the expected count becomes 96), and threads 0..95 exchange over 4 more phases
//     (s[(t + p + 1) % 96]). out[block*128 + t].
//   bar_memcpy(in, out, batches), block 128: the CUDA guide's cooperative_groups + cuda::barrier copy:
//     cuda::memcpy_async(block, s[b%2], in + b*128, cuda::aligned_size_t<16>(512), bar[b%2]);
//     bar[b%2].arrive_and_wait(); out[b*128 + t] = s[t] + s[127 - t] * 5.
#include <cooperative_groups.h>
#include <cuda/barrier>

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

extern "C" __global__ void bar_phases(const unsigned *in, unsigned *out) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  __shared__ unsigned s[256];
  auto block = cg::this_thread_block();
  unsigned t = threadIdx.x, n = blockDim.x, acc = in[blockIdx.x * n + t];
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  for (unsigned p = 0; p < 6; p++) {
    s[t] = acc * 2654435761u + p;
    bar.arrive_and_wait();
    acc ^= s[(t + p + 1) % n];
    bar.arrive_and_wait();
  }
  out[blockIdx.x * n + t] = acc;
}

extern "C" __global__ void bar_token(const unsigned *in, unsigned *out) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  __shared__ unsigned s[256];
  auto block = cg::this_thread_block();
  unsigned t = threadIdx.x, n = blockDim.x, acc = in[blockIdx.x * n + t], work = t;
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  for (unsigned p = 0; p < 5; p++) {
    s[t] = acc + p * 0x01010101u;
    auto tok = bar.arrive();
    work = work * 1664525u + 1013904223u;  // independent work between arrive and wait
    bar.wait(std::move(tok));
    acc = (acc << 1 | acc >> 31) + s[(t + 3 * p + 1) % n];
    auto tok2 = bar.arrive();
    work ^= acc >> 7;
    bar.wait(std::move(tok2));
  }
  out[(blockIdx.x * n + t) * 2] = acc;
  out[(blockIdx.x * n + t) * 2 + 1] = work;
}

extern "C" __global__ void bar_drop(const unsigned *in, unsigned *out) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  __shared__ unsigned s[128];
  unsigned t = threadIdx.x, acc = in[blockIdx.x * 128 + t];
  if (t == 0) init(&bar, 128);
  __syncthreads();
  s[t] = acc * 3u;
  bar.arrive_and_wait();
  acc += s[(t + 1) % 128];
  if (t >= 96) {
    out[blockIdx.x * 128 + t] = acc;
    bar.arrive_and_drop();
    return;
  }
  bar.arrive_and_wait();  // phase 1 completes with 96 arrivals + 32 drops
  for (unsigned p = 0; p < 4; p++) {
    s[t] = acc ^ (p << 24);
    bar.arrive_and_wait();
    acc = acc * 31u + s[(t + p + 1) % 96];
    bar.arrive_and_wait();
  }
  out[blockIdx.x * 128 + t] = acc;
}

extern "C" __global__ void bar_memcpy(const int *in, int *out, unsigned batches) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar[2];
  __shared__ __align__(16) int s[2][128];
  auto block = cg::this_thread_block();
  unsigned t = block.thread_rank();
  if (t == 0) {
    init(&bar[0], block.size());
    init(&bar[1], block.size());
  }
  block.sync();
  for (unsigned b = 0; b < batches; b++) {
    int *d = s[b % 2];
    cuda::memcpy_async(block, d, in + b * 128, cuda::aligned_size_t<16>(sizeof(int) * 128), bar[b % 2]);
    bar[b % 2].arrive_and_wait();
    out[b * 128 + t] = d[t] + d[127 - t] * 5;
  }
}
