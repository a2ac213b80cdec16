// parts.h — what main.cu knows of kernels_a.cu and kernels_b.cu.
#pragma once
#include <cuda_runtime.h>

// Used by both translation units; each gets its own copy of the device code.
__host__ __device__ inline int mix(int v) { return v * 31 + 7; }

// kernels_a.cu
__global__ void a_kernel(int *p, int n);  // launched directly from main.cu
void a_set_coef(const int c[4]);
int a_launch_count();
int a_helper_host(int v);  // the host's view of a_helper() (see kernels_a.cu)

// kernels_b.cu
void b_run(int *p, int n);  // launches b_kernel, which is private to kernels_b.cu
int b_launch_count();
#ifdef __CUDACC_RDC__
int b_calls_into_a(int *p, int n);  // b's kernel calls a __device__ function and variable defined in a
#endif
