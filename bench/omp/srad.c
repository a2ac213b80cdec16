// srad.c — speckle-reducing anisotropic diffusion (the OpenMP version of srad.cu).
//
// A ROWS x COLS image (float, values in [1, 2)) diffused ITERS times. Each iteration:
//   1. the mean and variance of the region of interest (here the whole image), a reduction in double, give
//      the speckle scale q0sqr = variance / mean^2;
//   2. per pixel, the differences to its north, south, west and east neighbours dN, dS, dW, dE (a missing
//      neighbour at the border is the pixel itself) and the diffusion coefficient c from the normalised
//      gradient and Laplacian against q0sqr, clamped to [0, 1];
//   3. per pixel, the divergence D = c*dN + c(south)*dS + c*dW + c(east)*dE and J += lambda/4 * D.
// Each loop is `#pragma omp parallel for` (over rows for 2 and 3).
//
// Timed: the ITERS iterations (input generation and the checksum are not). Checksum: the sum of the final
// image as double, in index order.
//
// Usage: srad [ROWS [COLS [ITERS]]]   (default 1024 1024 40)
// The arguments, the image, q0sqr from the sums, the per-pixel arithmetic of steps 2 and 3 and the checksum are
// srad.h's (shared with srad.cu).
#include <stdlib.h>

#include "srad.h"

int main(int argc, char **argv) {
  srad_params p;
  if (!srad_parse(argc, argv, &p)) return 1;
  int rows = p.rows, cols = p.cols, iters = p.iters, n = p.n;

  float *J = malloc((size_t)n * sizeof(float));
  float *dN = malloc((size_t)n * sizeof(float));
  float *dS = malloc((size_t)n * sizeof(float));
  float *dW = malloc((size_t)n * sizeof(float));
  float *dE = malloc((size_t)n * sizeof(float));
  float *c = malloc((size_t)n * sizeof(float));
  if (!J || !dN || !dS || !dW || !dE || !c) {
    fprintf(stderr, "srad: out of memory\n");
    return 1;
  }
  srad_inputs(J, n);

  double t0 = bench_now_ms();
  for (int it = 0; it < iters; it++) {
    // Statistics of the region of interest.
    double sum = 0.0, sum2 = 0.0;
#pragma omp parallel for reduction(+ : sum, sum2)
    for (int i = 0; i < n; i++) {
      sum += J[i];
      sum2 += J[i] * J[i];
    }
    float q0sqr = srad_q0sqr(sum, sum2, n);

    // Directional derivatives and diffusion coefficient.
#pragma omp parallel for
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < cols; j++) srad_coeffs_at(J, dN, dS, dW, dE, c, rows, cols, i, j, q0sqr);

    // Divergence and image update.
#pragma omp parallel for
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < cols; j++) srad_update_at(J, dN, dS, dW, dE, c, rows, cols, i, j);
  }
  double ms = bench_now_ms() - t0;

  srad_report(ms, J, n);
  free(J);
  free(dN);
  free(dS);
  free(dW);
  free(dE);
  free(c);
  return 0;
}
