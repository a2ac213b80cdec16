// backprop.c — training steps of a two-layer perceptron by back-propagation, OpenMP version (its CUDA twin is
// backprop.cu). N input units, 16 hidden units, 1 output unit; the input->hidden weights are w[i*16 + j] (input i,
// hidden j). Each step:
//   forward: a parallel for over the inputs adds input[i] * w[i*16 + j] into the sum of each hidden unit j (an
//     array reduction), then the sums are squashed (1/(1+exp(-x)));
//   the hidden->output layer, the output and hidden errors and the hidden->output weight update (serial);
//   the weight update, a parallel for over the inputs: each weight += eta*delta[j]*input[i] + momentum*oldchange,
//     and the change is kept for the next step's momentum.
// Timed: all the steps (the same part as the CUDA version's, input generation excluded).
// Usage: ./backprop [N] [STEPS]
// The constants, the arguments, the inputs, the host part of a step and the checksum are backprop.h's (shared
// with backprop.cu).
#include <stdlib.h>

#include "backprop.h"

int main(int argc, char **argv) {
  backprop_params p;
  if (!backprop_parse(argc, argv, &p)) return 1;
  int n = p.n, steps = p.steps;

  float *input = malloc((size_t)n * sizeof(float));
  float *w = malloc((size_t)n * HIDDEN * sizeof(float));
  float *oldw = malloc((size_t)n * HIDDEN * sizeof(float));
  float w_out[HIDDEN], oldw_out[HIDDEN];
  backprop_inputs(n, input, w, oldw, w_out, oldw_out);
  float hidden[HIDDEN], delta[HIDDEN];
  float output = 0.0f;

  double t0 = bench_now_ms();
  for (int step = 0; step < steps; step++) {
    // input -> hidden
    float hsum[HIDDEN];
    for (int j = 0; j < HIDDEN; j++) hsum[j] = 0.0f;
#pragma omp parallel for reduction(+ : hsum[:HIDDEN])
    for (int i = 0; i < n; i++)
      for (int j = 0; j < HIDDEN; j++) hsum[j] += input[i] * w[(size_t)i * HIDDEN + j];
    for (int j = 0; j < HIDDEN; j++) hidden[j] = backprop_squash(hsum[j]);
    // hidden -> output, the errors and the hidden -> output weights
    output = backprop_output_layer(hidden, w_out, oldw_out, delta);
    // input -> hidden weights
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      for (int j = 0; j < HIDDEN; j++) {
        size_t k = (size_t)i * HIDDEN + j;
        float change = ETA * delta[j] * input[i] + MOMENTUM * oldw[k];
        w[k] += change;
        oldw[k] = change;
      }
  }
  double t1 = bench_now_ms();

  backprop_report(t1 - t0, w, n, output);

  free(input);
  free(w);
  free(oldw);
  return 0;
}
