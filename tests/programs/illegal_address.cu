// illegal_address.cu — one thread stores through a wild pointer (a null pointer plus an index): the launch
// ends with cudaErrorIllegalAddress, which is sticky. Only error names are printed.
#include "check.h"

__global__ void scatter(int *out, int *wild, int bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = i == bad ? wild + 1000 : out;  // wild + 1000: address 4000, never mapped
  p[i % 64] = i;
}

int main() {
  begin();
  int *d;
  CK(cudaMalloc(&d, 64 * sizeof(int)));
  scatter<<<4, 64>>>(d, nullptr, -1);  // all in bounds
  CK(cudaDeviceSynchronize());
  scatter<<<4, 64>>>(d, nullptr, 150);
  CK(cudaGetLastError());
  check_err(cudaDeviceSynchronize(), cudaErrorIllegalAddress, "cudaDeviceSynchronize after the wild store");
  check_err(cudaDeviceSynchronize(), cudaErrorIllegalAddress, "cudaDeviceSynchronize again (sticky)");
  int h[4];
  printf("cudaMemcpy afterwards: %s\n", cudaGetErrorName(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)));
  cudaError_t e1 = cudaGetLastError(), e2 = cudaGetLastError();
  printf("cudaGetLastError: %s, then %s\n", cudaGetErrorName(e1), cudaGetErrorName(e2));
  return finish("illegal_address");
}
