// pathfinder.cu — dynamic programming over a grid of weights (the CUDA version of pathfinder.c).
//
// A ROWS x COLS grid of int weights (0..9). The cost of reaching cell (r, c) is its weight plus the least
// cost of the three cells above it, (r-1, c-1), (r-1, c) and (r-1, c+1); a neighbour past the left or right
// edge is left out. Row 0's costs are its weights.
//
// Launch: 1-D blocks of 256 threads, one launch per PYRAMID (8) rows, ping-pong cost rows in global memory.
// A block keeps a 256-column segment of the cost row in shared memory (two buffers, one barrier per row) and
// advances it PYRAMID rows; each row step the outermost columns of the segment go stale (they lack a
// neighbour), so each block overlaps its neighbours by PYRAMID columns on each side and writes only the
// 256 - 2*PYRAMID columns in the middle.
//
// Timed: from the first host-to-device copy (the weights) to the end of the copy of the last cost row back
// (the context is created and the buffers allocated before). Checksum: the sum of the last row's costs as
// double, in index order.
//
// Usage: pathfinder [ROWS [COLS]]   (default 1000 250000: the weights take 1 GB)
// The arguments, the weights and the checksum are pathfinder.h's (shared with pathfinder.c).
#include <stdlib.h>

#include "pathfinder.h"

#define BLOCK 256
#define PYRAMID 8
#define VALID (BLOCK - 2 * PYRAMID)  // columns each block writes

// Advances the cost row src (row row0 - 1) by nrows <= PYRAMID rows into dst (row row0 + nrows - 1).
__global__ void pathfinder_rows(const int *wall, const int *src, int *dst, int cols, int row0, int nrows) {
  __shared__ int buf[2][BLOCK];
  int tx = threadIdx.x;
  int c = blockIdx.x * VALID - PYRAMID + tx;
  bool inside = c >= 0 && c < cols;

  int cur = 0;
  if (inside) buf[cur][tx] = src[c];
  __syncthreads();

  for (int i = 0; i < nrows; i++) {
    if (inside) {
      int best = buf[cur][tx];
      if (c > 0 && tx > 0) best = min(best, buf[cur][tx - 1]);
      if (c < cols - 1 && tx < BLOCK - 1) best = min(best, buf[cur][tx + 1]);
      buf[1 - cur][tx] = wall[(size_t)(row0 + i) * cols + c] + best;
    }
    __syncthreads();
    cur = 1 - cur;
  }

  // After nrows steps, threads PYRAMID .. BLOCK-PYRAMID-1 hold correct costs.
  if (inside && tx >= PYRAMID && tx < BLOCK - PYRAMID) dst[c] = buf[cur][tx];
}

int main(int argc, char **argv) {
  pathfinder_params p;
  if (!pathfinder_parse(argc, argv, &p)) return 1;
  int rows = p.rows, cols = p.cols;
  size_t n = p.n;

  int *wall = (int *)malloc(n * sizeof(int));
  int *result = (int *)malloc((size_t)cols * sizeof(int));
  if (!wall || !result) {
    fprintf(stderr, "pathfinder: out of memory\n");
    return 1;
  }
  pathfinder_inputs(wall, n);

  CHECK(cudaFree(0));
  int *d_wall, *d_src, *d_dst;
  CHECK(cudaMalloc(&d_wall, n * sizeof(int)));
  CHECK(cudaMalloc(&d_src, (size_t)cols * sizeof(int)));
  CHECK(cudaMalloc(&d_dst, (size_t)cols * sizeof(int)));

  int blocks = (cols + VALID - 1) / VALID;

  double t0 = bench_now_ms();
  CHECK(cudaMemcpy(d_wall, wall, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_src, d_wall, (size_t)cols * sizeof(int), cudaMemcpyDeviceToDevice));  // row 0
  for (int row0 = 1; row0 < rows; row0 += PYRAMID) {
    int nrows = min(PYRAMID, rows - row0);
    pathfinder_rows<<<blocks, BLOCK>>>(d_wall, d_src, d_dst, cols, row0, nrows);
    CHECK(cudaGetLastError());
    int *tmp = d_src;
    d_src = d_dst;
    d_dst = tmp;
  }
  CHECK(cudaMemcpy(result, d_src, (size_t)cols * sizeof(int), cudaMemcpyDeviceToHost));
  double ms = bench_now_ms() - t0;

  pathfinder_report(ms, result, cols);
  CHECK(cudaFree(d_wall));
  CHECK(cudaFree(d_src));
  CHECK(cudaFree(d_dst));
  free(wall);
  free(result);
  return 0;
}
