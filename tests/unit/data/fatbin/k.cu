// k.cu — the tiny kernel behind most fatbin test data (see make.sh).
#include <cstdio>

__global__ void add(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += i;
}

int main() {
  int *d;
  cudaMalloc(&d, 64);
  add<<<1, 16>>>(d, 16);
  cudaDeviceSynchronize();
  printf("ok\n");
  return 0;
}
