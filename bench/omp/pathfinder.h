// bench/omp/pathfinder.h — what pathfinder.c (OpenMP) and pathfinder.cu (CUDA) share: the arguments, the grid of
// weights (fixed seed) and the checksum line. Each version keeps only its row steps and their timing. Plain C, for
// gcc (C17) and nvcc (C++).
#pragma once
#include <stdlib.h>

#include "common.h"

typedef struct {
  int rows, cols;
  size_t n;  // rows * cols weights
} pathfinder_params;

// Usage: pathfinder [ROWS [COLS]] (default 1000 250000). Returns 0 after printing the usage where the arguments
// are bad.
static inline int pathfinder_parse(int argc, char **argv, pathfinder_params *p) {
  p->rows = argc > 1 ? atoi(argv[1]) : 1000;
  p->cols = argc > 2 ? atoi(argv[2]) : 250000;
  if (p->rows < 1 || p->cols < 1) {
    fprintf(stderr, "usage: pathfinder [ROWS [COLS]]\n");
    return 0;
  }
  p->n = (size_t)p->rows * p->cols;
  return 1;
}

// The input: n weights in 0..9, row-major.
static inline void pathfinder_inputs(int *wall, size_t n) {
  bench_lcg g = {2024};
  for (size_t i = 0; i < n; i++) wall[i] = (int)(bench_u32(&g) % 10);
}

// The result line; checksum: the sum of the last row's costs as double, in index order.
static inline void pathfinder_report(double ms, const int *last_row, int cols) {
  bench_report("pathfinder", ms, bench_sum_ints(last_row, (size_t)cols));
}
