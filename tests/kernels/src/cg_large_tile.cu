// cg_large_tile.cu — cooperative groups' tiles of more than one warp (thread_block_tile<64> and <128>). From
// sm_80 they keep their barriers and exchange slots in the shared memory the GPU reserves for system
// software, found through %reserved_smem_offset_1 (cooperative_groups/details/memory.h); the kernel's own
// static and dynamic shared memory must come through untouched.
//   cg_tiles(in, out) (256 threads a block, 1024 bytes of dynamic shared memory): 8 words per thread,
//     v = in[t]: cg::reduce(tile64, v, plus), cg::reduce(tile128, v & 0xffff, greater),
//     tile64.shfl(v, 45) + tile128.shfl(v, 100) (broadcasts from another warp: large tiles' shfl takes one
//     source for all), tile128.any(v & 0xff == 7) +
//     2 * tile128.all(v != 0), meta_group_rank * 1000 + thread_rank + 100000 * meta_group_size of tile64,
//     the ballot of (v & 1) over tile64's threads of this warp, and the kernel's static and dynamic
//     shared words (written before the tiles, read after) XOR what was written.
//   cg_tiles_sync(in, out) (256 threads): tiles of 64 exchange through the kernel's shared memory around
//     tile.sync(): out[t] = the value thread (rank + 21) % 64 of the tile wrote, then again after a second
//     round in the other direction: 2 words per thread.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_tiles(const int *in, int *out) {
  extern __shared__ int dyn[];
  __shared__ int own[256];
  cg::thread_block block = cg::this_thread_block();
  const int t = (int)block.thread_rank(), v = in[blockIdx.x * blockDim.x + t];
  own[t] = v ^ 0x5a5a5a5a;
  dyn[t] = v + 12345;
  block.sync();
  cg::thread_block_tile<64> t64 = cg::tiled_partition<64>(block);
  cg::thread_block_tile<128> t128 = cg::tiled_partition<128>(block);
  int *o = out + 8 * (blockIdx.x * blockDim.x + t);
  o[0] = cg::reduce(t64, v, cg::plus<int>());
  o[1] = cg::reduce(t128, v & 0xffff, cg::greater<int>());
  o[2] = t64.shfl(v, 45) + t128.shfl(v, 100); // a broadcast from a thread in another warp
  o[3] = t128.any((v & 0xff) == 7) + 2 * t128.all(v != 0);
  o[4] = (int)(t64.meta_group_rank() * 1000 + t64.thread_rank() + 100000 * t64.meta_group_size());
  o[5] = (int)__ballot_sync(0xffffffffu, v & 1);
  t64.sync();
  t128.sync();
  block.sync();
  o[6] = own[t] ^ 0x5a5a5a5a ^ v;
  o[7] = dyn[t] - 12345 - v;
}

extern "C" __global__ void cg_tiles_sync(const int *in, int *out) {
  __shared__ int slot[256];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
  const int t = (int)block.thread_rank(), base = t - (int)tile.thread_rank(), v = in[blockIdx.x * blockDim.x + t];
  int *o = out + 2 * (blockIdx.x * blockDim.x + t);
  slot[t] = v;
  tile.sync();
  int a = slot[base + (int)((tile.thread_rank() + 21) & 63)];
  tile.sync();
  slot[t] = a * 3 + 1;
  tile.sync();
  o[0] = a;
  o[1] = slot[base + (int)((tile.thread_rank() + 64 - 5) & 63)];
}
