// bench/omp/srad.h — what srad.c (OpenMP) and srad.cu (CUDA) share: the arguments, the image (fixed seed), the
// speckle scale q0sqr from the image's sums, the per-pixel arithmetic of the coefficient and update steps (called
// from srad.c's loops and srad.cu's kernels) and the checksum line. Each version keeps only how it runs the
// iterations (the sums' reduction, the loops or kernels over the pixels) and their timing. Plain C, for gcc (C17)
// and nvcc (C++).
#pragma once
#include <stdlib.h>

#include "common.h"

#define LAMBDA 0.5f

typedef struct {
  int rows, cols, iters;
  int n;  // rows * cols pixels
} srad_params;

// Usage: srad [ROWS [COLS [ITERS]]] (default 1024 1024 40). Returns 0 after printing the usage where the arguments
// are bad.
static inline int srad_parse(int argc, char **argv, srad_params *p) {
  p->rows = argc > 1 ? atoi(argv[1]) : 1024;
  p->cols = argc > 2 ? atoi(argv[2]) : 1024;
  p->iters = argc > 3 ? atoi(argv[3]) : 40;
  if (p->rows < 1 || p->cols < 1 || p->iters < 0) {
    fprintf(stderr, "usage: srad [ROWS [COLS [ITERS]]]\n");
    return 0;
  }
  p->n = p->rows * p->cols;
  return 1;
}

// The input: n pixels in [1, 2).
static inline void srad_inputs(float *J, int n) {
  bench_lcg g = {777};
  for (int i = 0; i < n; i++) J[i] = 1.0f + bench_unit(&g);
}

// The speckle scale q0sqr = variance / mean^2 of the region of interest (the whole image) from the sum of its n
// pixels and the sum of their squares.
static inline float srad_q0sqr(double sum, double sum2, int n) {
  double mean = sum / n;
  double var = sum2 / n - mean * mean;
  return (float)(var / (mean * mean));
}

// Step 2 of an iteration at pixel (i, j) of the rows x cols image J: the differences to its north, south, west and
// east neighbours (the pixel itself where there is none) into dN, dS, dW, dE, and the diffusion coefficient from the
// normalised gradient and Laplacian against q0sqr, clamped to [0, 1], into c.
static inline BENCH_HD void srad_coeffs_at(const float *J, float *dN, float *dS, float *dW, float *dE, float *c,
                                           int rows, int cols, int i, int j, float q0sqr) {
  int iN = i > 0 ? i - 1 : 0;
  int iS = i < rows - 1 ? i + 1 : rows - 1;
  int jW = j > 0 ? j - 1 : 0;
  int jE = j < cols - 1 ? j + 1 : cols - 1;
  int k = i * cols + j;

  float Jc = J[k];
  float dn = J[iN * cols + j] - Jc;
  float ds = J[iS * cols + j] - Jc;
  float dw = J[i * cols + jW] - Jc;
  float de = J[i * cols + jE] - Jc;
  float G2 = (dn * dn + ds * ds + dw * dw + de * de) / (Jc * Jc);
  float L = (dn + ds + dw + de) / Jc;
  float num = 0.5f * G2 - 0.0625f * L * L;
  float den = 1.0f + 0.25f * L;
  float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float ck = 1.0f / (1.0f + den);
  if (ck < 0.0f) ck = 0.0f;
  if (ck > 1.0f) ck = 1.0f;

  dN[k] = dn;
  dS[k] = ds;
  dW[k] = dw;
  dE[k] = de;
  c[k] = ck;
}

// Step 3 at pixel (i, j): the divergence D = c*dN + c(south)*dS + c*dW + c(east)*dE and J += lambda/4 * D.
static inline BENCH_HD void srad_update_at(float *J, const float *dN, const float *dS, const float *dW,
                                           const float *dE, const float *c, int rows, int cols, int i, int j) {
  int iS = i < rows - 1 ? i + 1 : rows - 1;
  int jE = j < cols - 1 ? j + 1 : cols - 1;
  int k = i * cols + j;

  float cN = c[k];
  float cS = c[iS * cols + j];
  float cW = c[k];
  float cE = c[i * cols + jE];
  float D = cN * dN[k] + cS * dS[k] + cW * dW[k] + cE * dE[k];
  J[k] = J[k] + 0.25f * LAMBDA * D;
}

// The result line; checksum: the sum of the final image as double, in index order.
static inline void srad_report(double ms, const float *J, int n) {
  bench_report("srad", ms, bench_sum_floats(J, (size_t)n));
}
