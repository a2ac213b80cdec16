// nw.c — Needleman-Wunsch global alignment score matrix, OpenMP version.
//
// Two random sequences of N residues over an alphabet of 24, a 24x24 substitution table of random ints in
// [-4, 8] and a gap penalty of 10 give the (N+1)x(N+1) int matrix
//   score[i][j] = max(score[i-1][j-1] + sub[a[i]][b[j]], score[i-1][j] - gap, score[i][j-1] - gap)
// with score[i][0] = -gap*i and score[0][j] = -gap*j.
//
// Parallel shape: the N x N interior is cut into 16x16 tiles, swept by anti-diagonal waves of tiles, first the
// upper-left triangle, then the lower-right one; a parallel for runs over the tiles of one diagonal, and each
// tile is computed row by row.
//
// Timed: the whole wavefront (input generation excluded).
// Usage: ./nw [N]   (N is rounded up to a multiple of 16)
// The constants, the argument, the inputs and the checksum are nw.h's (shared with nw.cu).
#include <stdlib.h>

#include "nw.h"

static void nw_tile(int *score, const int *seq_a, const int *seq_b, const int *sub, int n, int bi, int bj) {
  int width = n + 1;
  for (int i = bi * TILE + 1; i <= bi * TILE + TILE; i++) {
    const int *sub_row = sub + seq_a[i - 1] * ALPHABET;
    int *row = score + (size_t)i * width;
    const int *above = row - width;
    for (int j = bj * TILE + 1; j <= bj * TILE + TILE; j++) {
      int m = above[j - 1] + sub_row[seq_b[j - 1]];
      int up = above[j] - GAP;
      int left = row[j - 1] - GAP;
      if (up > m) m = up;
      if (left > m) m = left;
      row[j] = m;
    }
  }
}

int main(int argc, char **argv) {
  int n = nw_parse(argc, argv);
  int nb = n / TILE;
  size_t cells = (size_t)(n + 1) * (n + 1);

  int *seq_a = malloc(n * sizeof(int));
  int *seq_b = malloc(n * sizeof(int));
  int sub[ALPHABET * ALPHABET];
  int *score = malloc(cells * sizeof(int));
  nw_inputs(n, seq_a, seq_b, sub, score);

  double t0 = bench_now_ms();
  // Upper-left triangle: diagonal d has tiles bi = 0..d.
  for (int d = 0; d < nb; d++) {
#pragma omp parallel for schedule(static)
    for (int bi = 0; bi <= d; bi++) nw_tile(score, seq_a, seq_b, sub, n, bi, d - bi);
  }
  // Lower-right triangle: diagonal d has tiles bi = d-nb+1..nb-1.
  for (int d = nb; d < 2 * nb - 1; d++) {
#pragma omp parallel for schedule(static)
    for (int bi = d - nb + 1; bi < nb; bi++) nw_tile(score, seq_a, seq_b, sub, n, bi, d - bi);
  }
  double t1 = bench_now_ms();

  nw_report(t1 - t0, score, n);

  free(seq_a);
  free(seq_b);
  free(score);
  return 0;
}
