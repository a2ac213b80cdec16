// pathfinder.c — dynamic programming over a grid of weights (the OpenMP version of pathfinder.cu).
//
// A ROWS x COLS grid of int weights (0..9). The cost of reaching cell (r, c) is its weight plus the least
// cost of the three cells above it, (r-1, c-1), (r-1, c) and (r-1, c+1); a neighbour past the left or right
// edge is left out. Row 0's costs are its weights. Row by row, two cost rows swapped after each,
// `#pragma omp parallel for` over the columns of a row.
//
// Timed: the ROWS-1 row steps (input generation and the checksum are not). Checksum: the sum of the last
// row's costs as double, in index order.
//
// Usage: pathfinder [ROWS [COLS]]   (default 1000 250000: the weights take 1 GB)
// The arguments, the weights and the checksum are pathfinder.h's (shared with pathfinder.cu).
#include <stdlib.h>
#include <string.h>

#include "pathfinder.h"

static inline int min_int(int a, int b) { return a < b ? a : b; }

int main(int argc, char **argv) {
  pathfinder_params p;
  if (!pathfinder_parse(argc, argv, &p)) return 1;
  int rows = p.rows, cols = p.cols;

  int *wall = malloc(p.n * sizeof(int));
  int *src = malloc((size_t)cols * sizeof(int));
  int *dst = malloc((size_t)cols * sizeof(int));
  if (!wall || !src || !dst) {
    fprintf(stderr, "pathfinder: out of memory\n");
    return 1;
  }
  pathfinder_inputs(wall, p.n);

  double t0 = bench_now_ms();
  memcpy(src, wall, (size_t)cols * sizeof(int));
  for (int r = 1; r < rows; r++) {
    const int *w = wall + (size_t)r * cols;
#pragma omp parallel for
    for (int c = 0; c < cols; c++) {
      int best = src[c];
      if (c > 0) best = min_int(best, src[c - 1]);
      if (c < cols - 1) best = min_int(best, src[c + 1]);
      dst[c] = w[c] + best;
    }
    int *tmp = src;
    src = dst;
    dst = tmp;
  }
  double ms = bench_now_ms() - t0;

  pathfinder_report(ms, src, cols);
  free(wall);
  free(src);
  free(dst);
  return 0;
}
