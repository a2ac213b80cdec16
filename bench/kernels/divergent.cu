// divergent.cu - data-dependent control flow for bench/bench.c: each of `iters` rounds takes one
// of two branches on a bit of the thread's value and then runs an inner loop whose trip count
// (0..7) depends on the value, so lanes of a warp split and reconverge all the time.
// PTX: nvcc -arch=sm_80 -ptx -O3 divergent.cu -o divergent.ptx
extern "C" __global__ void divergent(const unsigned *in, unsigned *out, int iters) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[tid];
  for (int i = 0; i < iters; i++) {
    if (x & 1) {
      x = x * 3u + 1u;
      x ^= x >> 11;
      x += (unsigned)i * 0x9e3779b9u;
    } else {
      x = (x >> 1) ^ 0x5bd1e995u;
      x *= 0x27d4eb2du;
      x ^= x << 7;
    }
    unsigned n = (x >> 5) & 7u;
    for (unsigned j = 0; j < n; j++) x = x * 1103515245u + 12345u;
  }
  out[tid] = x;
}
