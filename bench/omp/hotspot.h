// bench/omp/hotspot.h — what hotspot.c (OpenMP) and hotspot.cu (CUDA) share: the chip's physical constants, the
// arguments and the RC model's coefficients they give, the inputs (fixed seed), the update of one cell (called from
// hotspot.c's loop and hotspot.cu's kernel) and the checksum line. Each version keeps only how it runs the steps over
// the cells and their timing. Plain C, for gcc (C17) and nvcc (C++).
#pragma once
#include <stdlib.h>

#include "common.h"

// The chip's physical constants (SI units).
#define CHIP_HEIGHT 0.016
#define CHIP_WIDTH 0.016
#define T_CHIP 0.0005
#define FACTOR_CHIP 0.5
#define SPEC_HEAT_SI 1.75e6
#define K_SI 100.0
#define MAX_PD 3.0e6
#define PRECISION 0.001
#define AMB_TEMP 80.0f

typedef struct {
  int rows, cols, iters;
  size_t n;                                    // rows * cols cells
  float step_div_cap, rx_inv, ry_inv, rz_inv;  // the model's coefficients for this grid
} hotspot_params;

// Usage: hotspot [ROWS [COLS [ITERS]]] (default 1024 1024 150). Returns 0 after printing the usage where the
// arguments are bad.
static inline int hotspot_parse(int argc, char **argv, hotspot_params *p) {
  int rows = argc > 1 ? atoi(argv[1]) : 1024;
  int cols = argc > 2 ? atoi(argv[2]) : 1024;
  int iters = argc > 3 ? atoi(argv[3]) : 150;
  if (rows < 1 || cols < 1 || iters < 0) {
    fprintf(stderr, "usage: hotspot [ROWS [COLS [ITERS]]]\n");
    return 0;
  }
  p->rows = rows;
  p->cols = cols;
  p->iters = iters;
  p->n = (size_t)rows * cols;

  // The model's constants for this grid, in double, then rounded to float once.
  double grid_height = CHIP_HEIGHT / rows;
  double grid_width = CHIP_WIDTH / cols;
  double cap = FACTOR_CHIP * SPEC_HEAT_SI * T_CHIP * grid_width * grid_height;
  double rx = grid_width / (2.0 * K_SI * T_CHIP * grid_height);
  double ry = grid_height / (2.0 * K_SI * T_CHIP * grid_width);
  double rz = T_CHIP / (K_SI * grid_height * grid_width);
  double max_slope = MAX_PD / (FACTOR_CHIP * T_CHIP * SPEC_HEAT_SI);
  double step = PRECISION / max_slope;
  p->step_div_cap = (float)(step / cap);
  p->rx_inv = (float)(1.0 / rx);
  p->ry_inv = (float)(1.0 / ry);
  p->rz_inv = (float)(1.0 / rz);
  return 1;
}

// The inputs: temperatures in [323, 343) and powers in [0, 0.001), n cells each.
static inline void hotspot_inputs(float *temp, float *power, size_t n) {
  bench_lcg g = {12345};
  for (size_t i = 0; i < n; i++) temp[i] = 323.0f + 20.0f * bench_unit(&g);
  for (size_t i = 0; i < n; i++) power[i] = 0.001f * bench_unit(&g);
}

// The RC update of one cell: its new temperature from its temperature t, its north, south, west and east
// neighbours' tn, ts, tw, te (the cell's own where there is none) and its power.
static inline BENCH_HD float hotspot_cell(float t, float tn, float ts, float tw, float te, float power,
                                          float step_div_cap, float rx_inv, float ry_inv, float rz_inv) {
  return t + step_div_cap * (power + (tn + ts - 2.0f * t) * ry_inv + (te + tw - 2.0f * t) * rx_inv +
                             (AMB_TEMP - t) * rz_inv);
}

// The result line; checksum: the sum of the final temperatures as double, in index order.
static inline void hotspot_report(double ms, const float *temp, size_t n) {
  bench_report("hotspot", ms, bench_sum_floats(temp, n));
}
