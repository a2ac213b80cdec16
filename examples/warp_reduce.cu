// warp_reduce.cu — sum a vector of floats on the GPU with warp shuffles.
//
// Build it as an ordinary CUDA program, with the shared CUDA runtime, and run it on a GPU or under warpvm:
//
//   nvcc -cudart shared -arch=sm_90 -O2 examples/warp_reduce.cu -o warp_reduce
//   ./warp_reduce                 # on a machine with an NVIDIA GPU
//   warpvm ./warp_reduce          # anywhere: warpvm runs the PTX inside the binary on the CPU
//
// Each block of 256 threads (8 warps) reduces 256 consecutive values:
//   1. every warp adds its 32 values with __shfl_down_sync (5 steps: 16, 8, 4, 2, 1 lanes apart),
//   2. lane 0 of each warp puts the warp's sum in shared memory,
//   3. warp 0 adds the 8 warp sums the same way, and thread 0 adds the block's sum to the total.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int BLOCK = 256;                   // threads per block
constexpr int WARPS = BLOCK / 32;            // warps per block
constexpr unsigned FULL_MASK = 0xffffffffu;  // every lane of the warp takes part in the shuffle

// The sum of `v` over the 32 lanes of the warp, returned in lane 0 (other lanes hold partial sums).
__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(FULL_MASK, v, offset);  // add the value of the lane `offset` above
  return v;
}

__global__ void reduce(const float *in, int n, float *total) {
  __shared__ float warp_sums[WARPS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  float v = i < n ? in[i] : 0.0f;  // threads past the end contribute 0
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();

  if (warp == 0) {
    v = lane < WARPS ? warp_sums[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(total, v);  // blocks finish in any order
  }
}

// Stops the program with a message if a CUDA call failed.
static void check(cudaError_t err, const char *what) {
  if (err != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    exit(1);
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;

  // Values k/4 with k in 0..16: every partial sum is exact in float, so the order in which the blocks add
  // their sums does not change the result.
  std::vector<float> host(n);
  double expected = 0;
  for (int i = 0; i < n; i++) {
    host[i] = (i % 17) * 0.25f;
    expected += host[i];
  }

  float *in, *total;
  check(cudaMalloc(&in, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&total, sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemset(total, 0, sizeof(float)), "cudaMemset");

  int blocks = (n + BLOCK - 1) / BLOCK;
  reduce<<<blocks, BLOCK>>>(in, n, total);
  check(cudaGetLastError(), "launch");

  float sum = 0;
  check(cudaMemcpy(&sum, total, sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");  // waits for the kernel
  printf("n = %d, sum = %.2f, expected %.2f: %s\n", n, sum, expected, sum == expected ? "PASS" : "FAIL");

  cudaFree(in);
  cudaFree(total);
  return sum == expected ? 0 : 1;
}
