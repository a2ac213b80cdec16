// bench/omp/gaussian.h — what gaussian.c (OpenMP) and gaussian.cu (CUDA) share: the argument, the system (fixed
// seed), the back substitution (host code in both) and the checksum line. Each version keeps only its elimination
// and its timing. Plain C, for gcc (C17) and nvcc (C++).
#pragma once
#include <stdlib.h>

#include "common.h"

// Usage: gaussian [N] (default 1024; at least 1).
static inline int gaussian_parse(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  return n < 1 ? 1 : n;
}

// The inputs: the N x N matrix a (random, diagonally dominant) and the right-hand side b in [0, 1).
static inline void gaussian_inputs(float *a, float *b, int n) {
  bench_lcg g = {2024};
  bench_diag_dominant(a, n, &g);
  for (int i = 0; i < n; i++) b[i] = bench_unit(&g);
}

// Back substitution on the upper-triangular system left by the elimination.
static inline void gaussian_back_substitute(const float *a, const float *b, float *x, int n) {
  for (int i = n - 1; i >= 0; i--) {
    float s = b[i];
    for (int j = i + 1; j < n; j++) s -= a[(size_t)i * n + j] * x[j];
    x[i] = s / a[(size_t)i * n + i];
  }
}

// The result line; checksum: the sum of the solution x as double, in index order.
static inline void gaussian_report(double ms, const float *x, int n) {
  bench_report("gaussian", ms, bench_sum_floats(x, (size_t)n));
}
