// async_cg.cu — cooperative groups: cg::memcpy_async + cg::wait / cg::wait_prior, tiled_partition<16>/<8>
// reductions with their shuffles and .sync(), this_thread_block().sync().
//   cg_memcpy(in, out, ntiles), block 128: tiles of 256 ints; tile 0 copied with cg::memcpy_async(block, ...)
//     then, each iteration, the next tile is copied into the other buffer and cg::wait_prior<1>(block) waits
//     for the current one (cg::wait(block) on the last); out[i*256 + k] = s[k] * 2 - s[255 - k] for k = t,
//     t + 128; block.sync() before the buffer is reused.
//   cg_tiles(in, out), block 128: 6 words per thread: tile16 shfl_down tree (8,4,2,1; lane 0 has the sum,
//     the others partial sums), tile16 shfl_xor all-reduce, tile8 shfl_xor all-reduce, tile8 shfl_up
//     inclusive scan, cg::reduce(tile8, v, cg::plus<unsigned>()), and tile16.meta_group_rank() * 256 +
//     tile16.thread_rank() * 16 + tile8.meta_group_rank(). Every step ends with tile.sync().
//   cg_block_sync(in, out), block 256: block.sync() separated shared-memory exchange (sum of 4 rotations).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_memcpy(const int *in, int *out, unsigned ntiles) {
  __shared__ __align__(16) int s[2][256];
  auto block = cg::this_thread_block();
  unsigned t = block.thread_rank();
  cg::memcpy_async(block, s[0], in, sizeof(int) * 256);
  for (unsigned i = 0; i < ntiles; i++) {
    if (i + 1 < ntiles) {
      cg::memcpy_async(block, s[(i + 1) % 2], in + (i + 1) * 256, sizeof(int) * 256);
      cg::wait_prior<1>(block);
    } else {
      cg::wait(block);
    }
    const int *c = s[i % 2];
    for (unsigned k = t; k < 256; k += 128) out[i * 256 + k] = c[k] * 2 - c[255 - k];
    block.sync();
  }
}

extern "C" __global__ void cg_tiles(const unsigned *in, unsigned *out) {
  auto block = cg::this_thread_block();
  auto t16 = cg::tiled_partition<16>(block);
  auto t8 = cg::tiled_partition<8>(block);
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x, x = in[g], v;
  unsigned *o = out + g * 6;
  v = x;
  for (int d = 8; d > 0; d >>= 1) v += t16.shfl_down(v, d);
  t16.sync();
  o[0] = v;
  v = x;
  for (int d = 1; d < 16; d <<= 1) v += t16.shfl_xor(v, d);
  t16.sync();
  o[1] = v;
  v = x ^ 0x55555555u;
  for (int d = 4; d > 0; d >>= 1) v = max(v, t8.shfl_xor(v, d));
  t8.sync();
  o[2] = v;
  v = x & 0xffffu;
  for (int d = 1; d < 8; d <<= 1) {
    unsigned y = t8.shfl_up(v, d);
    if (t8.thread_rank() >= (unsigned)d) v += y;
  }
  t8.sync();
  o[3] = v;
  o[4] = cg::reduce(t8, x, cg::plus<unsigned>());
  o[5] = t16.meta_group_rank() * 256 + t16.thread_rank() * 16 + t8.meta_group_rank();
  block.sync();
}

extern "C" __global__ void cg_block_sync(const unsigned *in, unsigned *out) {
  __shared__ unsigned s[256];
  auto block = cg::this_thread_block();
  unsigned t = block.thread_rank(), n = block.size(), v = in[blockIdx.x * n + t];
  for (unsigned k = 1; k <= 4; k++) {
    s[t] = v;
    block.sync();
    v += s[(t + k * 37) % n];
    cg::this_thread_block().sync();
  }
  out[blockIdx.x * n + t] = v;
}
