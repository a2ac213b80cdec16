// Device heap, managed and module variables, assert: kernels for tests/unit/test_runtime_core.c.
// The PTX beside it is what `nvcc -arch=sm_80 -ptx runtime.cu` (CUDA 13.0) made; the tests load it.
#include <cassert>
#include <cstdio>

// Each thread mallocs n ints, fills them and hands the pointer to the host.
extern "C" __global__ void dm_alloc(int **out, int n) {
  int *p = (int *)malloc(n * sizeof(int));
  if (p)
    for (int i = 0; i < n; i++) p[i] = (int)threadIdx.x * 100 + i;
  out[threadIdx.x] = p;
}

// A later launch reads what dm_alloc's threads wrote, sums it and frees it.
extern "C" __global__ void dm_sum_free(int **in, int n, int *sums) {
  int *p = in[threadIdx.x];
  int s = -1;
  if (p) {
    s = 0;
    for (int i = 0; i < n; i++) s += p[i];
  }
  free(p);
  sums[threadIdx.x] = s;
}

// free of whatever pointer the host passes (a wv_malloc buffer, or a device pointer twice).
extern "C" __global__ void dm_free(int *p) { free(p); }

// One malloc of `bytes` by thread 0: the pointer (NULL when the heap is exhausted).
extern "C" __global__ void dm_one(unsigned long long bytes, unsigned long long *out) {
  out[0] = (unsigned long long)malloc(bytes);
}

struct Pair {
  int a;
  double b;
};

// new and delete (nvcc makes them malloc and free).
extern "C" __global__ void dm_new(long long *out) {
  Pair *p = new Pair;
  p->a = (int)threadIdx.x;
  p->b = 1.5;
  int *arr = new int[10];
  for (int i = 0; i < 10; i++) arr[i] = i * i;
  out[threadIdx.x] = (long long)p->a * 1000 + arr[3] + (long long)(p->b * 2) + ((unsigned long long)p % 16) +
                     ((unsigned long long)arr % 16);
  delete[] arr;
  delete p;
}

// Module variables: managed (host-visible), initialised .global and .const, uninitialised .global.
__managed__ int counter = 5;
__managed__ float mvec[64];
__device__ int dev_init[4] = {1, 2, 3, 4};
__constant__ float cfac[3] = {0.5f, 2.0f, 4.0f};
__device__ int plain;

extern "C" __global__ void mod_vars(float *out) {
  atomicAdd(&counter, 1);
  unsigned t = threadIdx.x;
  mvec[t] = mvec[t] + t * cfac[t % 3] + dev_init[t % 4] + plain;
  out[t] = mvec[t];
}

// A device-side assert that fails for thread 3 of block 1.
extern "C" __global__ void assert_fail(int *out) {
  int v = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  assert(v != blockDim.x + 3);
  out[v] = v;
}
