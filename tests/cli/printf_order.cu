// printf_order.cu - source of printf_order.ptx (nvcc -arch=sm_80 -ptx -O3 printf_order.cu):
// device printf output must reach stdout before the --print blocks.
#include <cstdio>

extern "C" __global__ void hello(unsigned *out) {
  printf("hello from thread %u\n", threadIdx.x);
  out[threadIdx.x] = threadIdx.x + 100;
}
