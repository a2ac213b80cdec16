// cdp1_sync.cu — legacy dynamic parallelism (CDP1: -DCUDA_FORCE_CDP1_IF_SUPPORTED, sm_80 only) with a
// device-side cudaDeviceSynchronize, which CUDA 12 removed for sm_90 and later: "such use will cause this module
// to fail to load on sm_90+ devices" (cuda_device_runtime_api.h). What a launch of its kernels then returns is
// printed as observed, for the kernel that synchronises and for a plain kernel of the same module.
#include "check.h"

__global__ void child(int *p) { p[0] = 42; }

__global__ void parent(int *p) {
  child<<<1, 1>>>(p);
  cudaDeviceSynchronize();
  p[1] = p[0] + 1;
}

__global__ void plain(int *p) { p[2] = 7; }

int main() {
  begin();
  int *p;
  CK(cudaMalloc(&p, 4 * sizeof(int)));
  parent<<<1, 1>>>(p);
  cudaError_t e = cudaGetLastError();
  printf("launch of the kernel calling cudaDeviceSynchronize: %s\n", cudaGetErrorName(e));
  e = cudaDeviceSynchronize();
  printf("cudaDeviceSynchronize after it: %s\n", cudaGetErrorName(e));
  plain<<<1, 1>>>(p);
  e = cudaGetLastError();
  printf("launch of a plain kernel of the same module: %s\n", cudaGetErrorName(e));
  e = cudaDeviceSynchronize();
  printf("cudaDeviceSynchronize after it: %s\n", cudaGetErrorName(e));
  return finish("cdp1_sync");
}
