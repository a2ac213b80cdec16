// gaussian.cu — Gaussian elimination without pivoting of an N x N float system with one right-hand side, CUDA
// version.
//
// The matrix is random and diagonally dominant (off-diagonal entries in [-0.5, 0.5), diagonal N + [0, 1)), so
// elimination without pivoting is stable; b is random in [0, 1). For each column k two kernels run:
//   fan1: 1-D blocks of 256 threads, one thread per row i > k: m[i] = a[i][k] / a[k][k];
//   fan2: 16x16 blocks over rows i > k and columns j >= k: a[i][j] -= m[i] * a[k][j], and the column-k thread
//         of each row also does b[i] -= m[i] * b[k].
// The upper-triangular system is then solved by back substitution on the host.
//
// Timed: from the first host-to-device copy to the last device-to-host copy, plus the back substitution.
// Usage: ./gaussian [N]
// The argument, the system, the back substitution and the checksum are gaussian.h's (shared with gaussian.c).
#include <stdlib.h>

#include "gaussian.h"

#define FAN1_THREADS 256
#define FAN2_TILE 16

__global__ void fan1(const float *a, float *m, int n, int k) {
  int i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) m[i] = a[(size_t)i * n + k] / a[(size_t)k * n + k];
}

__global__ void fan2(float *a, float *b, const float *m, int n, int k) {
  int i = k + 1 + blockIdx.y * blockDim.y + threadIdx.y;
  int j = k + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || j >= n) return;
  a[(size_t)i * n + j] -= m[i] * a[(size_t)k * n + j];
  if (j == k) b[i] -= m[i] * b[k];
}

int main(int argc, char **argv) {
  int n = gaussian_parse(argc, argv);

  float *a = (float *)malloc((size_t)n * n * sizeof(float));
  float *b = (float *)malloc(n * sizeof(float));
  float *x = (float *)malloc(n * sizeof(float));
  gaussian_inputs(a, b, n);

  CHECK(cudaFree(0));
  float *d_a, *d_b, *d_m;
  CHECK(cudaMalloc(&d_a, (size_t)n * n * sizeof(float)));
  CHECK(cudaMalloc(&d_b, n * sizeof(float)));
  CHECK(cudaMalloc(&d_m, n * sizeof(float)));

  double t0 = bench_now_ms();
  CHECK(cudaMemcpy(d_a, a, (size_t)n * n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, b, n * sizeof(float), cudaMemcpyHostToDevice));
  for (int k = 0; k < n - 1; k++) {
    int rows = n - 1 - k;  // rows k+1..n-1
    int cols = n - k;      // columns k..n-1
    fan1<<<(rows + FAN1_THREADS - 1) / FAN1_THREADS, FAN1_THREADS>>>(d_a, d_m, n, k);
    CHECK(cudaGetLastError());
    dim3 block(FAN2_TILE, FAN2_TILE);
    dim3 grid((cols + FAN2_TILE - 1) / FAN2_TILE, (rows + FAN2_TILE - 1) / FAN2_TILE);
    fan2<<<grid, block>>>(d_a, d_b, d_m, n, k);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaMemcpy(a, d_a, (size_t)n * n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b, d_b, n * sizeof(float), cudaMemcpyDeviceToHost));
  gaussian_back_substitute(a, b, x, n);
  double t1 = bench_now_ms();

  gaussian_report(t1 - t0, x, n);

  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_m));
  free(a);
  free(b);
  free(x);
  return 0;
}
