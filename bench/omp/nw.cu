// nw.cu — Needleman-Wunsch global alignment score matrix, CUDA version.
//
// Two random sequences of N residues over an alphabet of 24, a 24x24 substitution table of random ints in
// [-4, 8] and a gap penalty of 10 give the (N+1)x(N+1) int matrix
//   score[i][j] = max(score[i-1][j-1] + sub[a[i]][b[j]], score[i-1][j] - gap, score[i][j-1] - gap)
// with score[i][0] = -gap*i and score[0][j] = -gap*j.
//
// Launch shape: the N x N interior is cut into 16x16 tiles, swept by anti-diagonal waves of tiles, one launch per
// tile diagonal: first the upper-left triangle (diagonals 0..nb-1, growing), then the lower-right one (diagonals
// nb..2nb-2, shrinking). Each tile is one block of 16 threads: it loads its top row and left column of the
// already computed neighbours and its 16x16 substitution values into shared memory, computes the tile along its
// 31 inner anti-diagonals (thread t owns row t of the tile), and writes it back.
//
// Timed: from the first host-to-device copy to the last device-to-host copy (the whole matrix).
// Usage: ./nw [N]   (N is rounded up to a multiple of 16)
// The constants, the argument, the inputs and the checksum are nw.h's (shared with nw.c).
#include <stdlib.h>

#include "nw.h"

// One tile diagonal: block b handles tile (bi, bj) with bi + bj == diag, bi = first_bi + b.
__global__ void nw_tiles(int *score, const int *seq_a, const int *seq_b, const int *sub, int n, int diag,
                         int first_bi) {
  __shared__ int s[TILE + 1][TILE + 1];  // s[0][*] and s[*][0]: the neighbours' row and column
  __shared__ int ref[TILE][TILE];        // the substitution values of the tile's cells
  int t = threadIdx.x;
  int bi = first_bi + blockIdx.x;
  int bj = diag - bi;
  int width = n + 1;
  int row0 = bi * TILE;  // the tile's cells are rows row0+1..row0+TILE, columns col0+1..col0+TILE
  int col0 = bj * TILE;

  if (t == 0) s[0][0] = score[row0 * width + col0];
  s[0][t + 1] = score[row0 * width + col0 + 1 + t];
  s[t + 1][0] = score[(row0 + 1 + t) * width + col0];
  int a = seq_a[row0 + t];
  for (int c = 0; c < TILE; c++) ref[t][c] = sub[a * ALPHABET + seq_b[col0 + c]];
  __syncthreads();

  // Anti-diagonal d of the tile holds cells (r, c) with r + c == d; thread t computes cell (t, d - t).
  for (int d = 0; d < 2 * TILE - 1; d++) {
    int c = d - t;
    if (c >= 0 && c < TILE) {
      int r = t;
      int m = s[r][c] + ref[r][c];
      int up = s[r][c + 1] - GAP;
      int left = s[r + 1][c] - GAP;
      if (up > m) m = up;
      if (left > m) m = left;
      s[r + 1][c + 1] = m;
    }
    __syncthreads();
  }

  for (int c = 0; c < TILE; c++) score[(row0 + 1 + t) * width + col0 + 1 + c] = s[t + 1][c + 1];
}

int main(int argc, char **argv) {
  int n = nw_parse(argc, argv);
  int nb = n / TILE;
  size_t cells = (size_t)(n + 1) * (n + 1);

  int *seq_a = (int *)malloc(n * sizeof(int));
  int *seq_b = (int *)malloc(n * sizeof(int));
  int sub[ALPHABET * ALPHABET];
  int *score = (int *)malloc(cells * sizeof(int));
  nw_inputs(n, seq_a, seq_b, sub, score);

  CHECK(cudaFree(0));
  int *d_score, *d_a, *d_b, *d_sub;
  CHECK(cudaMalloc(&d_score, cells * sizeof(int)));
  CHECK(cudaMalloc(&d_a, n * sizeof(int)));
  CHECK(cudaMalloc(&d_b, n * sizeof(int)));
  CHECK(cudaMalloc(&d_sub, sizeof(sub)));

  double t0 = bench_now_ms();
  CHECK(cudaMemcpy(d_score, score, cells * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_a, seq_a, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, seq_b, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_sub, sub, sizeof(sub), cudaMemcpyHostToDevice));
  // Upper-left triangle: diagonal d has tiles bi = 0..d.
  for (int d = 0; d < nb; d++) {
    nw_tiles<<<d + 1, TILE>>>(d_score, d_a, d_b, d_sub, n, d, 0);
    CHECK(cudaGetLastError());
  }
  // Lower-right triangle: diagonal d has tiles bi = d-nb+1..nb-1.
  for (int d = nb; d < 2 * nb - 1; d++) {
    nw_tiles<<<2 * nb - 1 - d, TILE>>>(d_score, d_a, d_b, d_sub, n, d, d - nb + 1);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaMemcpy(score, d_score, cells * sizeof(int), cudaMemcpyDeviceToHost));
  double t1 = bench_now_ms();

  nw_report(t1 - t0, score, n);

  CHECK(cudaFree(d_score));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_sub));
  free(seq_a);
  free(seq_b);
  free(score);
  return 0;
}
