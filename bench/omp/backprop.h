// bench/omp/backprop.h — what backprop.c (OpenMP) and backprop.cu (CUDA) share: the network's constants, the
// arguments, the inputs (fixed seed: the input units and the starting weights), the host part of a step (the
// hidden->output layer, the errors and the hidden->output weights) and the checksum line. Each version keeps only
// its input->hidden layer and input->hidden weight update, and its timing. Plain C, for gcc (C17) and nvcc (C++).
#pragma once
#include <math.h>
#include <stdlib.h>

#include "common.h"

#define HIDDEN 16  // hidden units (the CUDA version's blocks are HIDDEN x HIDDEN threads)
#define ETA 0.3f
#define MOMENTUM 0.3f
#define TARGET 0.9f

typedef struct {
  int n, steps;  // input units, training steps
} backprop_params;

// Usage: backprop [N] [STEPS] (default 1048576 8). Returns 0 after printing the usage where the arguments are bad.
static inline int backprop_parse(int argc, char **argv, backprop_params *p) {
  p->n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  p->steps = argc > 2 ? atoi(argv[2]) : 8;
  if (p->n < 1 || p->steps < 1) {
    fprintf(stderr, "usage: %s [N] [STEPS]\n", argv[0]);
    return 0;
  }
  return 1;
}

static inline float backprop_squash(float x) { return 1.0f / (1.0f + expf(-x)); }

// The inputs: n input units in [0, 1), the input->hidden weights w (input i, hidden j at i*HIDDEN + j) small
// around 0, the HIDDEN hidden->output weights w_out in [-0.5, 0.5), and no previous change (oldw, oldw_out).
static inline void backprop_inputs(int n, float *input, float *w, float *oldw, float *w_out, float *oldw_out) {
  bench_lcg g = {2024};
  for (int i = 0; i < n; i++) input[i] = bench_unit(&g);
  for (size_t k = 0; k < (size_t)n * HIDDEN; k++) {
    w[k] = 0.002f * (bench_unit(&g) - 0.5f);
    oldw[k] = 0.0f;
  }
  for (int j = 0; j < HIDDEN; j++) {
    w_out[j] = bench_unit(&g) - 0.5f;
    oldw_out[j] = 0.0f;
  }
}

// The host part of a step, from the squashed hidden units: the output, its error, the hidden units' errors (delta,
// for the input->hidden weight update) and the hidden->output weight update (oldw_out keeps the change for the next
// step's momentum). Returns the output.
static inline float backprop_output_layer(const float *hidden, float *w_out, float *oldw_out, float *delta) {
  float sum = 0.0f;
  for (int j = 0; j < HIDDEN; j++) sum += hidden[j] * w_out[j];
  float output = backprop_squash(sum);
  float delta_out = output * (1.0f - output) * (TARGET - output);
  for (int j = 0; j < HIDDEN; j++) {
    delta[j] = hidden[j] * (1.0f - hidden[j]) * delta_out * w_out[j];
    float change = ETA * delta_out * hidden[j] + MOMENTUM * oldw_out[j];
    w_out[j] += change;
    oldw_out[j] = change;
  }
  return output;
}

// The result line; checksum: the sum of the final input->hidden weights as double, in index order, plus the last
// step's output.
static inline void backprop_report(double ms, const float *w, int n, float output) {
  double checksum = bench_sum_floats(w, (size_t)n * HIDDEN);
  checksum += output;
  bench_report("backprop", ms, checksum);
}
