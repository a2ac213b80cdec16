// lud.c — blocked LU decomposition without pivoting of an N x N float matrix, OpenMP version.
//
// The matrix is random and diagonally dominant (off-diagonal entries in [-0.5, 0.5), diagonal N + [0, 1)), so
// no pivoting is needed. It is factored in place into L (unit lower, below the diagonal) and U (upper) with
// 16x16 blocks. For each diagonal block k: the diagonal block is factored; a parallel for over the 2*(nb-k-1)
// perimeter blocks solves the row blocks (k, j > k) for U and the column blocks (i > k, k) for L; a parallel
// for over the (nb-k-1)^2 blocks of the trailing submatrix subtracts L(i, k) U(k, j) from each block (i, j).
//
// Timed: the whole factorisation (input generation excluded).
// Usage: ./lud [N]   (N is rounded up to a multiple of 16)
// The block size, the argument, the matrix and the checksum are lud.h's (shared with lud.cu).
#include <stdlib.h>

#include "lud.h"

// Factors the diagonal block (k, k) in place.
static void lud_diagonal(float *a, int n, int k) {
  float *d = a + (size_t)k * BS * n + k * BS;
  for (int p = 0; p < BS - 1; p++) {
    for (int r = p + 1; r < BS; r++) {
      d[r * n + p] /= d[p * n + p];
      for (int c = p + 1; c < BS; c++) d[r * n + c] -= d[r * n + p] * d[p * n + c];
    }
  }
}

// Perimeter block b of step k: b < rest solves the row block (k, k+1+b) for U, otherwise the column block
// (k+1+b-rest, k) for L.
static void lud_perimeter(float *a, int n, int k, int b, int rest) {
  const float *d = a + (size_t)k * BS * n + k * BS;
  if (b < rest) {
    // U(k, j) = L(k, k)^-1 A(k, j): forward substitution down the rows.
    float *s = a + (size_t)k * BS * n + (k + 1 + b) * BS;
    for (int p = 0; p < BS - 1; p++)
      for (int r = p + 1; r < BS; r++)
        for (int c = 0; c < BS; c++) s[r * n + c] -= d[r * n + p] * s[p * n + c];
  } else {
    // L(i, k) = A(i, k) U(k, k)^-1: substitution across the columns.
    float *s = a + (size_t)(k + 1 + b - rest) * BS * n + k * BS;
    for (int r = 0; r < BS; r++) {
      for (int p = 0; p < BS; p++) {
        s[r * n + p] /= d[p * n + p];
        for (int c = p + 1; c < BS; c++) s[r * n + c] -= s[r * n + p] * d[p * n + c];
      }
    }
  }
}

// Block (i, j) of the trailing submatrix of step k: A(i, j) -= L(i, k) U(k, j).
static void lud_internal(float *a, int n, int k, int i, int j) {
  const float *l = a + (size_t)i * BS * n + k * BS;
  const float *u = a + (size_t)k * BS * n + j * BS;
  float *s = a + (size_t)i * BS * n + j * BS;
  for (int r = 0; r < BS; r++) {
    float sum[BS] = {0};
    for (int p = 0; p < BS; p++)
      for (int c = 0; c < BS; c++) sum[c] += l[r * n + p] * u[p * n + c];
    for (int c = 0; c < BS; c++) s[r * n + c] -= sum[c];
  }
}

int main(int argc, char **argv) {
  int n = lud_parse(argc, argv);
  int nb = n / BS;
  size_t bytes = (size_t)n * n * sizeof(float);

  float *a = malloc(bytes);
  lud_inputs(a, n);

  double t0 = bench_now_ms();
  for (int k = 0; k < nb; k++) {
    lud_diagonal(a, n, k);
    int rest = nb - k - 1;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < 2 * rest; b++) lud_perimeter(a, n, k, b, rest);
#pragma omp parallel for collapse(2) schedule(static)
    for (int i = k + 1; i < nb; i++)
      for (int j = k + 1; j < nb; j++) lud_internal(a, n, k, i, j);
  }
  double t1 = bench_now_ms();

  lud_report(t1 - t0, a, n);

  free(a);
  return 0;
}
