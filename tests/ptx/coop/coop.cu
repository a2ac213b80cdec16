// Cooperative launches (cudaLaunchCooperativeKernel) for tests/unit/test_runtime_core.c.
// The PTX beside it is what `nvcc -arch=sm_80 -ptx coop.cu` (CUDA 13.0) made; the tests load it.
#include <cooperative_groups.h>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;

// Every round each thread writes its slot, the whole grid syncs, then each thread reads the slot of
// the thread one block further on (wrapping) and adds it up. Without a grid-wide barrier a read could
// see another round's value. A non-cooperative launch has no grid workspace: grid.sync() traps.
extern "C" __global__ void grid_rounds(int *buf, int *out, int rounds) {
  cg::grid_group grid = cg::this_grid();
  unsigned n = grid.size();
  unsigned me = grid.thread_rank();
  unsigned other = (me + blockDim.x) % n;
  int acc = 0;
  for (int r = 0; r < rounds; r++) {
    buf[me] = (int)(me * 7 + r);
    grid.sync();
    acc += buf[other];
    grid.sync();
  }
  out[me] = acc;
}

// grid.is_valid(): 1 under a cooperative launch, 0 otherwise.
extern "C" __global__ void grid_valid(int *out) {
  cg::grid_group grid = cg::this_grid();
  out[blockIdx.x * blockDim.x + threadIdx.x] = grid.is_valid() ? 1 : 0;
}

// Block 0 waits for a flag that only the last block sets: it can finish only if both are resident.
extern "C" __global__ void flag_wait(volatile int *flag, int *out) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      while (*flag == 0) {
      }
      __threadfence();
      out[0] = *flag + out[1];
    }
  } else if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
    out[1] = 42;
    __threadfence();
    *flag = 7;
  }
}

// Each block sums its tile through shared memory (its own, while the other blocks are resident with
// theirs), the grid syncs, every block adds up all partial sums, and writes total + its index.
extern "C" __global__ void grid_sum(const int *in, int *partial, int *out) {
  extern __shared__ int s[];
  cg::grid_group grid = cg::this_grid();
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (t < w) s[t] += s[t + w];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (t == 0) {
    int total = 0;
    for (unsigned b = 0; b < gridDim.x; b++) total += partial[b];
    out[blockIdx.x] = total + (int)blockIdx.x;
  }
}

// cp.async into each block's shared tile, then grid.sync, then every block reads its neighbour's
// result: async copies stay per block while several blocks are alive.
extern "C" __global__ void async_neighbour(const int *in, int *mid, int *out) {
  __shared__ int tile[128];
  cg::grid_group grid = cg::this_grid();
  unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  __pipeline_memcpy_async(&tile[t], &in[g], sizeof(int));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  mid[g] = tile[blockDim.x - 1 - t] * 2;
  grid.sync();
  unsigned nb = (blockIdx.x + 1) % gridDim.x;
  out[g] = mid[nb * blockDim.x + t];
}
