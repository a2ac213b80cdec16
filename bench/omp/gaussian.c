// gaussian.c — Gaussian elimination without pivoting of an N x N float system with one right-hand side, OpenMP
// version.
//
// The matrix is random and diagonally dominant (off-diagonal entries in [-0.5, 0.5), diagonal N + [0, 1)), so
// elimination without pivoting is stable; b is random in [0, 1). For each column k: a parallel for over the rows
// i > k computes the multipliers m[i] = a[i][k] / a[k][k], then a parallel for over the rows i > k updates
// a[i][j] -= m[i] * a[k][j] for j >= k and b[i] -= m[i] * b[k]. The upper-triangular system is then solved by
// back substitution (serial, the same code as gaussian.cu's).
//
// Timed: the elimination and the back substitution (input generation excluded).
// Usage: ./gaussian [N]
// The argument, the system, the back substitution and the checksum are gaussian.h's (shared with gaussian.cu).
#include <stdlib.h>

#include "gaussian.h"

int main(int argc, char **argv) {
  int n = gaussian_parse(argc, argv);

  float *a = malloc((size_t)n * n * sizeof(float));
  float *b = malloc(n * sizeof(float));
  float *x = malloc(n * sizeof(float));
  float *m = malloc(n * sizeof(float));
  gaussian_inputs(a, b, n);

  double t0 = bench_now_ms();
  for (int k = 0; k < n - 1; k++) {
    const float *pivot_row = a + (size_t)k * n;
#pragma omp parallel for schedule(static)
    for (int i = k + 1; i < n; i++) m[i] = a[(size_t)i * n + k] / pivot_row[k];
#pragma omp parallel for schedule(static)
    for (int i = k + 1; i < n; i++) {
      float *row = a + (size_t)i * n;
      for (int j = k; j < n; j++) row[j] -= m[i] * pivot_row[j];
      b[i] -= m[i] * b[k];
    }
  }
  gaussian_back_substitute(a, b, x, n);
  double t1 = bench_now_ms();

  gaussian_report(t1 - t0, x, n);

  free(a);
  free(b);
  free(x);
  free(m);
  return 0;
}
