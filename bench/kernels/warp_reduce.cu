// warp_reduce.cu - the benchmark's shuffle-dominated kernel (bench/suite/): a grid-stride loop over
// in[] where each warp all-reduces the sum and the maximum of its 32 values with __shfl_xor_sync
// butterflies (10 shuffles per element); each thread writes its running sum ^ max to out[thread].
// n must be a multiple of the grid's thread count (every lane active).
// PTX: nvcc -arch=sm_80 -ptx -O3 warp_reduce.cu -o warp_reduce.ptx
extern "C" __global__ void warp_reduce(const unsigned *in, unsigned *out, unsigned n) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (unsigned i = tid; i < n; i += blockDim.x * gridDim.x) {
    unsigned s = in[i], m = s;
    for (int o = 16; o > 0; o >>= 1) {
      s += __shfl_xor_sync(0xffffffffu, s, o);
      m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
    }
    acc += s ^ m;
  }
  out[tid] = acc;
}
