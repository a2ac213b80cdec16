// bench/omp/lud.h — what lud.c (OpenMP) and lud.cu (CUDA) share: the block size, the argument, the matrix (fixed
// seed) and the checksum line. Each version keeps only its factorisation and its timing. Plain C, for gcc (C17) and
// nvcc (C++).
#pragma once
#include <stdlib.h>

#include "common.h"

#define BS 16  // the side of the blocks both versions factor by; N is rounded up to a multiple of it

// Usage: lud [N] (default 2048): N, at least BS and rounded up to a multiple of BS.
static inline int lud_parse(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  if (n < BS) n = BS;
  return (n + BS - 1) / BS * BS;
}

// The input: the N x N matrix a, random and diagonally dominant.
static inline void lud_inputs(float *a, int n) {
  bench_lcg g = {777};
  bench_diag_dominant(a, n, &g);
}

// The result line; checksum: the sum of the factored matrix (L below the diagonal, U on and above it) as double,
// in index order.
static inline void lud_report(double ms, const float *a, int n) {
  bench_report("lud", ms, bench_sum_floats(a, (size_t)n * n));
}
