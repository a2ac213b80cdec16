// smem_reduce.cu - shared-memory block reduction for bench/bench.c: each of `iters` rounds writes
// one value per thread to shared memory and sums the block with a tree of __syncthreads() steps.
// Launch with 256 threads per block.
// PTX: nvcc -arch=sm_80 -ptx -O3 smem_reduce.cu -o smem_reduce.ptx
extern "C" __global__ void smem_reduce(const unsigned *in, unsigned *out, int iters) {
  __shared__ unsigned buf[256];
  unsigned t = threadIdx.x;
  unsigned v = in[blockIdx.x * blockDim.x + t];
  unsigned acc = 0;
  for (int i = 0; i < iters; i++) {
    buf[t] = v + (unsigned)i;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
      if (t < s) buf[t] += buf[t + s];
      __syncthreads();
    }
    if (t == 0) acc += buf[0];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = acc;
}
