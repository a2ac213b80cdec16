// link_a.cu — one translation unit of tests/unit/test_link.c (nvcc -arch=sm_80 -rdc=true -ptx link_a.cu).
// It defines a __device__ function and a __device__ variable that link_b.cu uses, a static kernel whose source
// name link_b.cu also uses, a static variable link_b.cu also has, and printf strings ($str) of its own.
#include <cstdio>

__device__ int a_func(int x, int y) { return x * 10 + y; }
__device__ unsigned a_var;
static __device__ int which = 1;

__global__ void a_write(unsigned v) {
  a_var = v;
  printf("a: wrote %u\n", v);
}

static __global__ void tag(int *out) {
  out[threadIdx.x] = which * 100 + (int)threadIdx.x;
  printf("a: tag %d of %d\n", (int)threadIdx.x, which);
}

void launch_tag_a(int *out) { tag<<<1, 2>>>(out); }
