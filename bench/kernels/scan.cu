// scan.cu - the benchmark's block scan (bench/suite/): each block of 256 threads writes the inclusive
// prefix sums of its 256 elements (u32, wrapping), Hillis-Steele in double-buffered shared memory with
// a __syncthreads() per step.
// PTX: nvcc -arch=sm_80 -ptx -O3 scan.cu -o scan.ptx
#define BLOCK 256
extern "C" __global__ void scan(const unsigned *in, unsigned *out) {
  __shared__ unsigned buf[2][BLOCK];
  unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
  int cur = 0;
  buf[0][t] = in[i];
  __syncthreads();
  for (unsigned o = 1; o < BLOCK; o <<= 1) {
    unsigned v = buf[cur][t];
    if (t >= o) v += buf[cur][t - o];
    buf[1 - cur][t] = v;
    cur = 1 - cur;
    __syncthreads();
  }
  out[i] = buf[cur][t];
}
