// link_b.cu — the other translation unit of tests/unit/test_link.c (nvcc -arch=sm_80 -rdc=true -ptx link_b.cu):
// its kernel calls link_a.cu's a_func and reads link_a.cu's a_var; its static `which`, static kernel `tag` and
// printf strings are its own.
#include <cstdio>

extern __device__ int a_func(int x, int y);
extern __device__ unsigned a_var;
static __device__ int which = 2;

__global__ void b_read(unsigned *out, int x) {
  out[0] = a_var;
  out[1] = (unsigned)a_func(x, 7);
  printf("b: read %u\n", a_var);
}

static __global__ void tag(int *out) {
  out[threadIdx.x] = which * 100 + (int)threadIdx.x;
  printf("b: tag %d of %d\n", (int)threadIdx.x, which);
}

void launch_tag_b(int *out) { tag<<<1, 2>>>(out); }
