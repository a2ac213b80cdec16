// hotspot.c — 2-D chip thermal simulation (the OpenMP version of hotspot.cu).
//
// A chip of ROWS x COLS cells, each with a temperature and a dissipated power (float). Each of ITERS
// steps is the explicit RC update of the usual hotspot model: a cell's new temperature is its old one plus
// step/Cap times (its power + the heat flowing in from its north/south neighbours through Ry, from its
// east/west neighbours through Rx, and to the ambient through Rz). A missing neighbour at the border is the
// cell itself. Two temperature buffers, swapped after each step; `#pragma omp parallel for` over rows.
//
// Timed: the ITERS steps (input generation and the checksum are not). Checksum: the sum of the final
// temperatures as double, in index order.
//
// Usage: hotspot [ROWS [COLS [ITERS]]]   (default 1024 1024 150)
// The constants, the arguments, the inputs, a cell's update and the checksum are hotspot.h's (shared with
// hotspot.cu).
#include <stdlib.h>

#include "hotspot.h"

static void hotspot_step(const float *temp, const float *power, float *out, int rows, int cols,
                         float step_div_cap, float rx_inv, float ry_inv, float rz_inv) {
#pragma omp parallel for
  for (int r = 0; r < rows; r++) {
    int rn = r > 0 ? r - 1 : r;
    int rs = r < rows - 1 ? r + 1 : r;
    for (int c = 0; c < cols; c++) {
      int cw = c > 0 ? c - 1 : c;
      int ce = c < cols - 1 ? c + 1 : c;
      float t = temp[(size_t)r * cols + c];
      float tn = temp[(size_t)rn * cols + c];
      float ts = temp[(size_t)rs * cols + c];
      float tw = temp[(size_t)r * cols + cw];
      float te = temp[(size_t)r * cols + ce];
      out[(size_t)r * cols + c] =
          hotspot_cell(t, tn, ts, tw, te, power[(size_t)r * cols + c], step_div_cap, rx_inv, ry_inv, rz_inv);
    }
  }
}

int main(int argc, char **argv) {
  hotspot_params p;
  if (!hotspot_parse(argc, argv, &p)) return 1;

  float *temp = malloc(p.n * sizeof(float));
  float *power = malloc(p.n * sizeof(float));
  float *out = malloc(p.n * sizeof(float));
  if (!temp || !power || !out) {
    fprintf(stderr, "hotspot: out of memory\n");
    return 1;
  }
  hotspot_inputs(temp, power, p.n);

  double t0 = bench_now_ms();
  for (int it = 0; it < p.iters; it++) {
    hotspot_step(temp, power, out, p.rows, p.cols, p.step_div_cap, p.rx_inv, p.ry_inv, p.rz_inv);
    float *tmp = temp;
    temp = out;
    out = tmp;
  }
  double ms = bench_now_ms() - t0;

  hotspot_report(ms, temp, p.n);
  free(temp);
  free(power);
  free(out);
  return 0;
}
