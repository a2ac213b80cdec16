// assert.cu — a device-side assert() that fails in exactly one thread (block 2, thread 5). The device prints
// CUDA's "file:line: function: block: [..], thread: [..] Assertion `...` failed." line; the host sees
// cudaErrorAssert from the next synchronising call, and the error is sticky: the context stays unusable.
// What later calls return is printed as observed (their names), not judged.
#include "check.h"

#include <cassert>

__global__ void check_range(const int *v, int n, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] < limit);
}

int main() {
  begin();
  const int N = 256;
  int h[N], *d;
  for (int i = 0; i < N; i++) h[i] = i;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  check_range<<<4, 64>>>(d, N, 1000);  // every assert holds
  CK(cudaDeviceSynchronize());

  h[2 * 64 + 5] = 5000;
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  printf("launching the kernel whose thread (5,0,0) of block (2,0,0) fails its assert\n");
  check_range<<<4, 64>>>(d, N, 1000);
  check_err(cudaDeviceSynchronize(), cudaErrorAssert, "cudaDeviceSynchronize");
  check_err(cudaDeviceSynchronize(), cudaErrorAssert, "cudaDeviceSynchronize again (sticky)");
  printf("cudaMemcpy afterwards: %s\n", cudaGetErrorName(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)));
  cudaError_t e1 = cudaGetLastError(), e2 = cudaGetLastError();
  printf("cudaGetLastError: %s, then %s\n", cudaGetErrorName(e1), cudaGetErrorName(e2));
  printf("cudaPeekAtLastError: %s\n", cudaGetErrorName(cudaPeekAtLastError()));
  int *more = nullptr;
  printf("cudaMalloc afterwards: %s\n", cudaGetErrorName(cudaMalloc(&more, 64)));
  check_range<<<1, 32>>>(d, 32, 1000);
  printf("launch afterwards: %s\n", cudaGetErrorName(cudaGetLastError()));
  return finish("assert");
}
