// backprop.cu — training steps of a two-layer perceptron by back-propagation, CUDA version (its OpenMP twin is
// backprop.c). N input units, 16 hidden units, 1 output unit; the input->hidden weights are w[i*16 + j] (input i,
// hidden j). Each step:
//   forward (kernel `layer_forward`, one block of 16x16 threads per 16 input units: thread (x, y) multiplies input
//     y of the block by its weight to hidden unit x into shared memory, then a tree reduction over y leaves the
//     block's partial sum for each hidden unit, which is written out); the host adds the partial sums and
//     squashes them (1/(1+exp(-x)));
//   the hidden->output layer, the output and hidden errors and the hidden->output weight update, on the host;
//   the weight update (kernel `adjust_weights`, the same 16x16 blocks): each weight += eta*delta[j]*input[i] +
//     momentum*oldchange, and the change is kept for the next step's momentum.
// Timed: from the first host-to-device copy to the copy of the final weights back. Usage: ./backprop [N] [STEPS]
// The constants, the arguments, the inputs, the host part of a step and the checksum are backprop.h's (shared
// with backprop.c).
#include <cstdlib>

#include "backprop.h"

// Block b takes inputs b*16 .. b*16+15; partial[b*HIDDEN + j] = sum over them of input[i] * w[i*HIDDEN + j].
__global__ void layer_forward(const float *input, const float *w, int n, float *partial) {
  __shared__ float in_s[HIDDEN];
  __shared__ float prod[HIDDEN][HIDDEN];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = blockIdx.x * HIDDEN + ty;
  if (tx == 0) in_s[ty] = i < n ? input[i] : 0.0f;
  __syncthreads();
  prod[ty][tx] = i < n ? in_s[ty] * w[i * HIDDEN + tx] : 0.0f;
  __syncthreads();
  for (int s = HIDDEN / 2; s > 0; s /= 2) {
    if (ty < s) prod[ty][tx] += prod[ty + s][tx];
    __syncthreads();
  }
  if (ty == 0) partial[blockIdx.x * HIDDEN + tx] = prod[0][tx];
}

// w[i*HIDDEN + j] += eta * delta[j] * input[i] + momentum * oldw[i*HIDDEN + j]; oldw keeps the change.
__global__ void adjust_weights(const float *input, const float *delta, int n, float *w, float *oldw) {
  int i = blockIdx.x * HIDDEN + threadIdx.y;
  int j = threadIdx.x;
  if (i >= n) return;
  float change = ETA * delta[j] * input[i] + MOMENTUM * oldw[i * HIDDEN + j];
  w[i * HIDDEN + j] += change;
  oldw[i * HIDDEN + j] = change;
}

int main(int argc, char **argv) {
  backprop_params p;
  if (!backprop_parse(argc, argv, &p)) return 1;
  int n = p.n, steps = p.steps;
  int blocks = (n + HIDDEN - 1) / HIDDEN;

  float *input = (float *)malloc((size_t)n * sizeof(float));
  float *w = (float *)malloc((size_t)n * HIDDEN * sizeof(float));
  float *oldw = (float *)malloc((size_t)n * HIDDEN * sizeof(float));
  float w_out[HIDDEN], oldw_out[HIDDEN];
  float *partial = (float *)malloc((size_t)blocks * HIDDEN * sizeof(float));
  backprop_inputs(n, input, w, oldw, w_out, oldw_out);
  float hidden[HIDDEN], delta[HIDDEN];
  float output = 0.0f;

  CHECK(cudaFree(0));
  float *d_input, *d_w, *d_oldw, *d_partial, *d_delta;
  CHECK(cudaMalloc(&d_input, (size_t)n * sizeof(float)));
  CHECK(cudaMalloc(&d_w, (size_t)n * HIDDEN * sizeof(float)));
  CHECK(cudaMalloc(&d_oldw, (size_t)n * HIDDEN * sizeof(float)));
  CHECK(cudaMalloc(&d_partial, (size_t)blocks * HIDDEN * sizeof(float)));
  CHECK(cudaMalloc(&d_delta, HIDDEN * sizeof(float)));
  dim3 block(HIDDEN, HIDDEN);

  double t0 = bench_now_ms();
  CHECK(cudaMemcpy(d_input, input, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_w, w, (size_t)n * HIDDEN * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_oldw, oldw, (size_t)n * HIDDEN * sizeof(float), cudaMemcpyHostToDevice));
  for (int step = 0; step < steps; step++) {
    // input -> hidden: partial sums on the device, their total on the host
    layer_forward<<<blocks, block>>>(d_input, d_w, n, d_partial);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(partial, d_partial, (size_t)blocks * HIDDEN * sizeof(float), cudaMemcpyDeviceToHost));
    for (int j = 0; j < HIDDEN; j++) {
      float sum = 0.0f;
      for (int b = 0; b < blocks; b++) sum += partial[b * HIDDEN + j];
      hidden[j] = backprop_squash(sum);
    }
    // hidden -> output, the errors and the hidden -> output weights
    output = backprop_output_layer(hidden, w_out, oldw_out, delta);
    // input -> hidden weights
    CHECK(cudaMemcpy(d_delta, delta, HIDDEN * sizeof(float), cudaMemcpyHostToDevice));
    adjust_weights<<<blocks, block>>>(d_input, d_delta, n, d_w, d_oldw);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaMemcpy(w, d_w, (size_t)n * HIDDEN * sizeof(float), cudaMemcpyDeviceToHost));
  double t1 = bench_now_ms();

  backprop_report(t1 - t0, w, n, output);

  CHECK(cudaFree(d_input));
  CHECK(cudaFree(d_w));
  CHECK(cudaFree(d_oldw));
  CHECK(cudaFree(d_partial));
  CHECK(cudaFree(d_delta));
  free(input);
  free(w);
  free(oldw);
  free(partial);
  return 0;
}
