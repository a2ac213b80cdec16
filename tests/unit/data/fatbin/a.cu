// a.cu — first translation unit of the -rdc=true test data: calls a __device__ function of b.cu.
#include <cstdio>

__device__ int twice(int x);
__global__ void kA(int *a) { a[threadIdx.x] = twice(threadIdx.x); }
void runB(int *d);

int main() {
  int *d;
  cudaMalloc(&d, 64);
  kA<<<1, 16>>>(d);
  runB(d);
  cudaDeviceSynchronize();
  printf("ok\n");
  return 0;
}
