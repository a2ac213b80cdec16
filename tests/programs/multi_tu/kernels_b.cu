// kernels_b.cu — another translation unit with a kernel only it launches, and its own `coef` and counter.
#include "parts.h"

static __constant__ int coef[4] = {100, 200, 300, 400};
static __device__ int launches;

static __global__ void b_kernel(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = mix(p[i]) - coef[i % 4];
  if (i == 0) launches++;
}

void b_run(int *p, int n) { b_kernel<<<(n + 63) / 64, 64>>>(p, n); }

int b_launch_count() {
  int v = -1;
  cudaMemcpyFromSymbol(&v, launches, sizeof v);
  return v;
}

#ifdef __CUDACC_RDC__
extern __device__ int a_helper(int v);  // defined in kernels_a.cu
extern __device__ int a_total;

__global__ void b_uses_a(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i] = a_helper(p[i]);
    atomicAdd(&a_total, p[i]);
  }
}

int b_calls_into_a(int *p, int n) {
  int zero = 0, total = -1;
  cudaMemcpyToSymbol(a_total, &zero, sizeof zero);
  b_uses_a<<<(n + 63) / 64, 64>>>(p, n);
  cudaMemcpyFromSymbol(&total, a_total, sizeof total);
  return total;
}
#endif
