// bench/omp/nw.h — what nw.c (OpenMP) and nw.cu (CUDA) share: the constants, the argument, the inputs (fixed seed:
// the two sequences, the substitution table and the matrix with its first row and column) and the checksum line.
// Each version keeps only its wavefront over the tiles and its timing. Plain C, for gcc (C17) and nvcc (C++).
#pragma once
#include <stdlib.h>

#include "common.h"

#define TILE 16  // both versions sweep TILE x TILE tiles; N is rounded up to a multiple of it
#define ALPHABET 24
#define GAP 10

// Usage: nw [N] (default 9216): N, at least TILE and rounded up to a multiple of TILE.
static inline int nw_parse(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 9216;
  if (n < TILE) n = TILE;
  return (n + TILE - 1) / TILE * TILE;
}

// The inputs: the sequences seq_a and seq_b (n residues each), the ALPHABET x ALPHABET table sub of ints in
// [-4, 8], and the (n+1) x (n+1) matrix score, zero but for score[i][0] = score[0][i] = -GAP*i.
static inline void nw_inputs(int n, int *seq_a, int *seq_b, int *sub, int *score) {
  int width = n + 1;
  size_t cells = (size_t)width * width;
  bench_lcg g = {12345};
  for (int i = 0; i < n; i++) seq_a[i] = bench_u32(&g) % ALPHABET;
  for (int i = 0; i < n; i++) seq_b[i] = bench_u32(&g) % ALPHABET;
  for (int i = 0; i < ALPHABET * ALPHABET; i++) sub[i] = (int)(bench_u32(&g) % 13) - 4;
  for (size_t i = 0; i < cells; i++) score[i] = 0;
  for (int i = 0; i <= n; i++) {
    score[(size_t)i * width] = -GAP * i;
    score[i] = -GAP * i;
  }
}

// The result line; checksum: the sum of the whole score matrix as double, in index order.
static inline void nw_report(double ms, const int *score, int n) {
  bench_report("nw", ms, bench_sum_ints(score, (size_t)(n + 1) * (n + 1)));
}
