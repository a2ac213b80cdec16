// arith.cu - convergent arithmetic for bench/bench.c: every thread runs `iters` iterations of
// integer mad/xor/shift and float fma work on registers, with no memory traffic in the loop.
// PTX: nvcc -arch=sm_80 -ptx -O3 arith.cu -o arith.ptx
extern "C" __global__ void arith(unsigned *out, float *fout, int iters) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned a = tid * 2654435761u, b = tid ^ 0x9e3779b9u;
  float x = (float)tid * 0.001f, y = 1.0f;
  for (int i = 0; i < iters; i++) {
    a = a * 1664525u + b;
    b ^= a >> 7;
    b += a << 3;
    x = fmaf(x, 0.9999f, y);
    y = fmaf(y, 0.5f, 0.25f);
  }
  out[tid] = a ^ b;
  fout[tid] = x + y;
}
