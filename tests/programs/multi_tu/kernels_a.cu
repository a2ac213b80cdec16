// kernels_a.cu — one translation unit's kernels, constants and counters. With -rdc=true it also exports a
// __device__ function and a __device__ variable that kernels_b.cu uses (resolved by the device linker).
#include "parts.h"

static __constant__ int coef[4] = {1, 2, 3, 4};  // kernels_b.cu has its own `coef`
static __device__ int launches;                   // so does kernels_b.cu

__global__ void a_kernel(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = mix(p[i]) + coef[i % 4];
  if (i == 0) launches++;
}

void a_set_coef(const int c[4]) { cudaMemcpyToSymbol(coef, c, 4 * sizeof(int)); }

int a_launch_count() {
  int v = -1;
  cudaMemcpyFromSymbol(&v, launches, sizeof v);
  return v;
}

int a_helper_host(int v) { return v * v - 3; }

#ifdef __CUDACC_RDC__
__device__ int a_total;  // extern in kernels_b.cu
__device__ int a_helper(int v) { return v * v - 3; }
#endif
