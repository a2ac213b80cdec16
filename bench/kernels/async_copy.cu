// async_copy.cu - the benchmark's cp.async double-buffered copy (bench/suite/): each block of 256
// threads streams `tiles` tiles of 1024 u32 from in[] into two shared-memory buffers with 16-byte
// __pipeline_memcpy_async (cp.async), fetching tile k+1 while tile k is used, and writes each tile
// reversed, plus the tile number: out[base + e] = in[base + 1023 - e] + k.
// PTX: nvcc -arch=sm_80 -ptx -O3 async_copy.cu -o async_copy.ptx
#include <cuda_pipeline.h>
#define TILE 1024
extern "C" __global__ void async_copy(const uint4 *in, uint4 *out, unsigned tiles) {
  __shared__ uint4 buf[2][TILE / 4];
  unsigned t = threadIdx.x;
  size_t base = (size_t)blockIdx.x * tiles * (TILE / 4);
  __pipeline_memcpy_async(&buf[0][t], &in[base + t], 16);
  __pipeline_commit();
  for (unsigned k = 0; k < tiles; k++) {
    if (k + 1 < tiles) __pipeline_memcpy_async(&buf[(k + 1) & 1][t], &in[base + (k + 1) * (TILE / 4) + t], 16);
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    uint4 v = buf[k & 1][TILE / 4 - 1 - t];
    out[base + k * (TILE / 4) + t] = make_uint4(v.w + k, v.z + k, v.y + k, v.x + k);
    __syncthreads();
  }
}
