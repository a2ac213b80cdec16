// launch_rate.cu — what a CUDA program pays under warpvm: launch overhead (20,000 empty launches) and a
// memory-bound kernel over many CTAs (saxpy on 4 M elements). A benchmark, not a test:
//   nvcc -cudart shared -arch=sm_80 -O2 bench/programs/launch_rate.cu -o launch_rate
//   build/warpvm --stats ./launch_rate
#include <cstdio>
#include <chrono>
__global__ void empty(int *p) { if (p && threadIdx.x == 1024) *p = 0; }
__global__ void saxpy(int n, float a, const float *x, float *y) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }
int main() {
  const int N = 20000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < N; i++) empty<<<1, 32>>>(nullptr);
  cudaDeviceSynchronize();
  auto t1 = std::chrono::steady_clock::now();
  double s = std::chrono::duration<double>(t1 - t0).count();
  printf("empty launches: %d in %.3f s = %.1f us/launch\n", N, s, s / N * 1e6);
  int n = 1 << 22; float *x, *y; cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4); cudaMemset(x, 0, n*4); cudaMemset(y, 0, n*4);
  t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < 5; r++) saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  cudaDeviceSynchronize();
  t1 = std::chrono::steady_clock::now();
  s = std::chrono::duration<double>(t1 - t0).count();
  printf("saxpy 5 x %d elements: %.3f s = %.1f M elements/s\n", n, s, 5.0 * n / s / 1e6);
}
