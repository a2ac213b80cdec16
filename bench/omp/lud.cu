// lud.cu — blocked LU decomposition without pivoting of an N x N float matrix, CUDA version.
//
// The matrix is random and diagonally dominant (off-diagonal entries in [-0.5, 0.5), diagonal N + [0, 1)), so
// no pivoting is needed. It is factored in place into L (unit lower, below the diagonal) and U (upper) with
// 16x16 blocks. For each diagonal block k three kernels run, all with 16x16 threads per block:
//   lud_diagonal:  one block factors the diagonal block (k, k) in shared memory;
//   lud_perimeter: 2*(nb-k-1) blocks; the first half each solves one row block (k, j > k) for U with the unit
//                  lower L of the diagonal block, the second half each solves one column block (i > k, k) for L
//                  with the U of the diagonal block, both in shared memory;
//   lud_internal:  (nb-k-1)^2 blocks; block (i, j) loads the L tile (i, k) and the U tile (k, j) into shared
//                  memory and subtracts their product from block (i, j) of the trailing submatrix.
//
// Timed: from the host-to-device copy of the matrix to the device-to-host copy of its factors.
// Usage: ./lud [N]   (N is rounded up to a multiple of 16)
// The block size, the argument, the matrix and the checksum are lud.h's (shared with lud.c).
#include <stdlib.h>

#include "lud.h"

__global__ void lud_diagonal(float *a, int n, int k) {
  __shared__ float s[BS][BS];
  int r = threadIdx.y, c = threadIdx.x;
  int k0 = k * BS;
  s[r][c] = a[(size_t)(k0 + r) * n + k0 + c];
  __syncthreads();
  for (int p = 0; p < BS - 1; p++) {
    if (r > p && c == p) s[r][p] /= s[p][p];
    __syncthreads();
    if (r > p && c > p) s[r][c] -= s[r][p] * s[p][c];
    __syncthreads();
  }
  a[(size_t)(k0 + r) * n + k0 + c] = s[r][c];
}

__global__ void lud_perimeter(float *a, int n, int k) {
  __shared__ float d[BS][BS];  // the factored diagonal block
  __shared__ float s[BS][BS];  // the row or column block being solved
  int r = threadIdx.y, c = threadIdx.x;
  int k0 = k * BS;
  int rest = gridDim.x / 2;
  bool row_block = blockIdx.x < rest;
  int other = k + 1 + (row_block ? blockIdx.x : blockIdx.x - rest);
  size_t base = row_block ? (size_t)k0 * n + other * BS : (size_t)other * BS * n + k0;

  d[r][c] = a[(size_t)(k0 + r) * n + k0 + c];
  s[r][c] = a[base + (size_t)r * n + c];
  __syncthreads();
  if (row_block) {
    // U(k, j) = L(k, k)^-1 A(k, j): forward substitution down the rows.
    for (int p = 0; p < BS - 1; p++) {
      if (r > p) s[r][c] -= d[r][p] * s[p][c];
      __syncthreads();
    }
  } else {
    // L(i, k) = A(i, k) U(k, k)^-1: substitution across the columns.
    for (int p = 0; p < BS; p++) {
      if (c == p) s[r][p] /= d[p][p];
      __syncthreads();
      if (c > p) s[r][c] -= s[r][p] * d[p][c];
      __syncthreads();
    }
  }
  a[base + (size_t)r * n + c] = s[r][c];
}

__global__ void lud_internal(float *a, int n, int k) {
  __shared__ float l[BS][BS];
  __shared__ float u[BS][BS];
  int r = threadIdx.y, c = threadIdx.x;
  int k0 = k * BS;
  int i0 = (k + 1 + blockIdx.y) * BS;
  int j0 = (k + 1 + blockIdx.x) * BS;
  l[r][c] = a[(size_t)(i0 + r) * n + k0 + c];
  u[r][c] = a[(size_t)(k0 + r) * n + j0 + c];
  __syncthreads();
  float sum = 0.0f;
  for (int p = 0; p < BS; p++) sum += l[r][p] * u[p][c];
  a[(size_t)(i0 + r) * n + j0 + c] -= sum;
}

int main(int argc, char **argv) {
  int n = lud_parse(argc, argv);
  int nb = n / BS;
  size_t bytes = (size_t)n * n * sizeof(float);

  float *a = (float *)malloc(bytes);
  lud_inputs(a, n);

  CHECK(cudaFree(0));
  float *d_a;
  CHECK(cudaMalloc(&d_a, bytes));

  double t0 = bench_now_ms();
  CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
  dim3 block(BS, BS);
  for (int k = 0; k < nb; k++) {
    lud_diagonal<<<1, block>>>(d_a, n, k);
    CHECK(cudaGetLastError());
    int rest = nb - k - 1;
    if (rest == 0) break;
    lud_perimeter<<<2 * rest, block>>>(d_a, n, k);
    CHECK(cudaGetLastError());
    lud_internal<<<dim3(rest, rest), block>>>(d_a, n, k);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaMemcpy(a, d_a, bytes, cudaMemcpyDeviceToHost));
  double t1 = bench_now_ms();

  lud_report(t1 - t0, a, n);

  CHECK(cudaFree(d_a));
  free(a);
  return 0;
}
