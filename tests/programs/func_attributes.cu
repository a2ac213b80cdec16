// func_attributes.cu — what the runtime says about kernels: cudaFuncGetAttributes (sanity checks only: the
// numbers depend on the compiler and the GPU), __launch_bounds__, cudaFuncSetAttribute to opt in to 100 KiB
// of dynamic shared memory and a launch that uses all of it, cudaFuncSetCacheConfig, and the occupancy
// calculator (sanity only).
#include "check.h"

__global__ void static_smem(int *out) {
  __shared__ int s[256];
  s[threadIdx.x] = threadIdx.x * 2;
  __syncthreads();
  out[threadIdx.x] = s[255 - threadIdx.x];
}

__global__ void __launch_bounds__(128) bounded(int *out) { out[threadIdx.x] = threadIdx.x + 1; }

// Fills all `words` ints of dynamic shared memory, then reads them back in a scattered order.
__global__ void big_smem(unsigned *out, int words) {
  extern __shared__ unsigned sm[];
  for (int k = threadIdx.x; k < words; k += blockDim.x) sm[k] = k * 2654435761u;
  __syncthreads();
  unsigned acc = 0;
  for (int k = threadIdx.x; k < words; k += blockDim.x) acc += sm[(k * 13) % words] ^ k;
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main() {
  begin();
  cudaDeviceProp p = {};
  CK(cudaGetDeviceProperties(&p, 0));

  cudaFuncAttributes fa = {};
  CK(cudaFuncGetAttributes(&fa, static_smem));
  check(fa.maxThreadsPerBlock > 0 && fa.maxThreadsPerBlock <= 1024, "static_smem: 0 < maxThreadsPerBlock <= 1024");
  check(fa.sharedSizeBytes >= 1024, "static_smem: sharedSizeBytes >= 1024");
  check(fa.numRegs > 0 && fa.numRegs <= 255, "static_smem: 0 < numRegs <= 255");
  check(fa.localSizeBytes < 1024, "static_smem: localSizeBytes < 1024");
  check(fa.ptxVersion >= 80 && fa.binaryVersion >= 80, "static_smem: ptxVersion and binaryVersion >= 80");
  CK(cudaFuncGetAttributes(&fa, bounded));
  check(fa.maxThreadsPerBlock == 128, "__launch_bounds__(128) kernel: maxThreadsPerBlock == 128");

  int *d;
  int h[256] = {};
  CK(cudaMalloc(&d, 256 * sizeof(int)));
  static_smem<<<1, 256>>>(d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  check_all(h, 256, [](size_t i) { return (int)(2 * (255 - i)); }, "static_smem result");
  bounded<<<1, 128>>>(d);
  CK(cudaGetLastError());
  bounded<<<1, 256>>>(d);
  cudaError_t e = cudaGetLastError();
  printf("launching the __launch_bounds__(128) kernel with 256 threads: %s\n", cudaGetErrorName(e));
  check(e != cudaSuccess, "launch beyond __launch_bounds__ fails");
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  check_all(h, 128, [](size_t i) { return (int)(i + 1); }, "bounded result (128 threads)");

  // More than 48 KiB of dynamic shared memory needs an opt-in per kernel.
  const int bytes = 100 * 1024, words = bytes / 4;
  check(p.sharedMemPerBlockOptin >= (size_t)bytes, "sharedMemPerBlockOptin >= 100 KiB");
  unsigned *o, ho[2 * 256] = {};
  CK(cudaMalloc(&o, sizeof ho));
  big_smem<<<2, 256, bytes>>>(o, words);
  e = cudaGetLastError();
  printf("100 KiB of dynamic shared memory before opting in: %s\n", cudaGetErrorName(e));
  check(e != cudaSuccess, "100 KiB before opting in fails");
  CK(cudaFuncSetAttribute(big_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  CK(cudaFuncGetAttributes(&fa, big_smem));
  check(fa.maxDynamicSharedSizeBytes == bytes, "maxDynamicSharedSizeBytes == 100 KiB after cudaFuncSetAttribute");
  big_smem<<<2, 256, bytes>>>(o, words);
  CK(cudaGetLastError());
  CK(cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost));
  check_all(ho, 512, [&](size_t i) {
      unsigned acc = 0;
      for (int k = i % 256; k < words; k += 256) acc += ((unsigned)((k * 13) % words) * 2654435761u) ^ k;
      return acc;
    }, "kernel using 100 KiB of dynamic shared memory");

  CK(cudaFuncSetCacheConfig(static_smem, cudaFuncCachePreferShared));

  // Occupancy: sanity only, nothing printed that depends on the GPU.
  int blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, static_smem, 256, 0));
  check(blocks >= 1 && blocks * 256 <= p.maxThreadsPerMultiProcessor, "occupancy of static_smem at 256 threads");
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, big_smem, 256, bytes));
  check(blocks >= 1 && (size_t)blocks * bytes <= p.sharedMemPerMultiprocessor, "occupancy of big_smem with 100 KiB");
  int min_grid = 0, block = 0;
  CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, static_smem, 0, 0));
  check(min_grid >= 1 && block >= 32 && block <= 1024 && block % 32 == 0, "cudaOccupancyMaxPotentialBlockSize");
  CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, bounded, 0, 0));
  check(block >= 32 && block <= 128, "cudaOccupancyMaxPotentialBlockSize respects __launch_bounds__");

  CK(cudaFree(d));
  CK(cudaFree(o));
  return finish("func_attributes");
}
