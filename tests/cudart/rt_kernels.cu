// rt_kernels.cu — kernels for test_cudart.c, which registers their PTX (rt_kernels.ptx, made by
// `nvcc -arch=sm_80 -ptx rt_kernels.cu`) the way nvcc's host code would, without nvcc.
#include <cassert>
#include <cstdio>

__device__ int g_dev[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__constant__ int g_const[4];
__managed__ int g_man = 7;

extern "C" __global__ void add(int *p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v + i;
}
extern "C" __global__ void sym(int *out) {
  int i = threadIdx.x;
  out[i] = g_dev[i] * 10 + g_const[i % 4] + g_man;
}
extern "C" __global__ void bump_managed(int *m) { atomicAdd(m, 1); g_man += 0; }
extern "C" __global__ void wild(int *p) { p[1 << 28] = 1; }
extern "C" __global__ void hello(int v) {
  if (threadIdx.x == 0) printf("hello %d\n", v);
}
extern "C" __global__ void fail_assert(int v) { assert(v != (int)threadIdx.x); }
extern "C" __global__ void spin(volatile int *p) {
  while (*p == 0) {
  }
}
// Reads in[threadIdx.x] for every thread (volatile: before the bounds check), keeps only the first n:
// with more threads than in's elements, the rest read past its end (an invalid read).
extern "C" __global__ void overread(const volatile int *in, int *out, int n) {
  int v = in[threadIdx.x];
  if ((int)threadIdx.x < n) out[threadIdx.x] = v;
}
