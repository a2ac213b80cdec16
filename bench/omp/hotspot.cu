// hotspot.cu — 2-D chip thermal simulation (the CUDA version of hotspot.c).
//
// A chip of ROWS x COLS cells, each with a temperature and a dissipated power (float). Each of ITERS
// steps is the explicit RC update of the usual hotspot model: a cell's new temperature is its old one plus
// step/Cap times (its power + the heat flowing in from its north/south neighbours through Ry, from its
// east/west neighbours through Rx, and to the ambient through Rz). A missing neighbour at the border is the
// cell itself.
//
// Launch: one kernel per step, 2-D blocks of 16x16 threads over the grid (ping-pong temperature buffers).
// Each block loads its 16x16 tile plus a one-cell halo into shared memory (coordinates clamped to the grid,
// which makes a missing neighbour the cell itself), then each thread updates its cell from the tile.
//
// Timed: from the first host-to-device copy to the end of the copy of the result back (the context is
// created and the buffers allocated before). Checksum: the sum of the final temperatures as double, in
// index order.
//
// Usage: hotspot [ROWS [COLS [ITERS]]]   (default 1024 1024 150)
// The constants, the arguments, the inputs, a cell's update and the checksum are hotspot.h's (shared with
// hotspot.c).
#include <stdlib.h>

#include "hotspot.h"

#define TILE 16

__global__ void hotspot_step(const float *temp, const float *power, float *out, int rows, int cols,
                             float step_div_cap, float rx_inv, float ry_inv, float rz_inv) {
  __shared__ float tile[TILE + 2][TILE + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int c = blockIdx.x * TILE + tx;
  int r = blockIdx.y * TILE + ty;
  // Clamped coordinates: threads past the edge load the edge cell, so every tile slot holds the temperature
  // of its (clamped) cell.
  int rc = min(r, rows - 1);
  int cc = min(c, cols - 1);

  tile[ty + 1][tx + 1] = temp[(size_t)rc * cols + cc];
  if (ty == 0) tile[0][tx + 1] = temp[(size_t)max(rc - 1, 0) * cols + cc];
  if (ty == TILE - 1) tile[TILE + 1][tx + 1] = temp[(size_t)min(rc + 1, rows - 1) * cols + cc];
  if (tx == 0) tile[ty + 1][0] = temp[(size_t)rc * cols + max(cc - 1, 0)];
  if (tx == TILE - 1) tile[ty + 1][TILE + 1] = temp[(size_t)rc * cols + min(cc + 1, cols - 1)];
  __syncthreads();

  if (r < rows && c < cols) {
    float t = tile[ty + 1][tx + 1];
    float tn = tile[ty][tx + 1];
    float ts = tile[ty + 2][tx + 1];
    float tw = tile[ty + 1][tx];
    float te = tile[ty + 1][tx + 2];
    out[(size_t)r * cols + c] =
        hotspot_cell(t, tn, ts, tw, te, power[(size_t)r * cols + c], step_div_cap, rx_inv, ry_inv, rz_inv);
  }
}

int main(int argc, char **argv) {
  hotspot_params p;
  if (!hotspot_parse(argc, argv, &p)) return 1;
  size_t n = p.n;

  float *temp = (float *)malloc(n * sizeof(float));
  float *power = (float *)malloc(n * sizeof(float));
  if (!temp || !power) {
    fprintf(stderr, "hotspot: out of memory\n");
    return 1;
  }
  hotspot_inputs(temp, power, n);

  CHECK(cudaFree(0));
  float *d_temp, *d_power, *d_out;
  CHECK(cudaMalloc(&d_temp, n * sizeof(float)));
  CHECK(cudaMalloc(&d_power, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));

  dim3 block(TILE, TILE);
  dim3 grid((p.cols + TILE - 1) / TILE, (p.rows + TILE - 1) / TILE);

  double t0 = bench_now_ms();
  CHECK(cudaMemcpy(d_temp, temp, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_power, power, n * sizeof(float), cudaMemcpyHostToDevice));
  for (int it = 0; it < p.iters; it++) {
    hotspot_step<<<grid, block>>>(d_temp, d_power, d_out, p.rows, p.cols, p.step_div_cap, p.rx_inv, p.ry_inv,
                                  p.rz_inv);
    CHECK(cudaGetLastError());
    float *tmp = d_temp;
    d_temp = d_out;
    d_out = tmp;
  }
  CHECK(cudaMemcpy(temp, d_temp, n * sizeof(float), cudaMemcpyDeviceToHost));
  double ms = bench_now_ms() - t0;

  hotspot_report(ms, temp, n);
  CHECK(cudaFree(d_temp));
  CHECK(cudaFree(d_power));
  CHECK(cudaFree(d_out));
  free(temp);
  free(power);
  return 0;
}
