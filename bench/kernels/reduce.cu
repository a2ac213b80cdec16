// reduce.cu - the benchmark's grid-stride sum (bench/suite/): each thread sums in[i] over a grid-stride
// loop, warps reduce with __shfl_down_sync, warp sums meet in shared memory, the first warp reduces them,
// and thread 0 writes the block's sum to out[blockIdx.x] (u32, wrapping). Blocks of 32..1024 threads.
// PTX: nvcc -arch=sm_80 -ptx -O3 reduce.cu -o reduce.ptx
extern "C" __global__ void reduce(const unsigned *in, unsigned *out, unsigned n) {
  __shared__ unsigned warp_sums[32];
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < blockDim.x / 32 ? warp_sums[lane] : 0;
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if (lane == 0) out[blockIdx.x] = sum;
  }
}
