// shfl_reduce.cu - warp reductions for bench/bench.c: each of `iters` rounds reduces two values
// across the warp, one with a __shfl_xor_sync butterfly and one with a __shfl_down_sync tree.
// PTX: nvcc -arch=sm_80 -ptx -O3 shfl_reduce.cu -o shfl_reduce.ptx
extern "C" __global__ void shfl_reduce(unsigned *out, int iters) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (int i = 0; i < iters; i++) {
    unsigned s = tid + i, t = tid ^ i;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o);
    acc += s ^ t;
  }
  out[tid] = acc;
}
