// loops.cu — loops whose products cross iterations or are hoisted out of them (contraction corpus).
#include <cuda_runtime.h>

// a loop-invariant product hoisted out of loops of constant and variable trip counts
extern "C" __global__ void invariant(float *o, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float b = x[i], c = x[i + 1], p = b * c, s = 0, t = 0, u = 0;
#pragma unroll 1
  for (int k = 0; k < 100; k++) s += p + x[k];
  for (int k = 0; k < n; k++) t = t * 0.5f + p;
  for (int k = 0; k < 16; k++) u += b * c * x[k];
  o[i] = s + t + u;
}

// a product carried from one iteration into the next
extern "C" __global__ void carried(float *o, const float *x, const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0, p = 0;
  for (int k = 0; k < n; k++) {
    s += p;
    p = x[k] * y[k + i];
  }
  o[i] = s + p;
}
extern "C" __global__ void carried_d(double *o, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double s = 0, p = 1, q = x[i];
  for (int k = 0; k < n; k++) {
    s = s + p;
    p = p * q;
    if (p < 1e-30) break;
  }
  o[i] = s;
}

// recurrences: linear congruence in floats, a damped oscillator, a geometric series
extern "C" __global__ void recur(float *o, const float *x, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float y = x[i], v = 0, g = 1, sum = 0;
  for (int k = 0; k < n; k++) {
    float acc = -a * y - b * v;
    v += 0.01f * acc;
    y += 0.01f * v;
    sum += g;
    g *= 0.99f;
  }
  o[i] = y + v + sum;
}

// nested loops with reductions over rows and a branch on the product
extern "C" __global__ void nested(double *o, const double *A, const double *x, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double pos = 0, neg = 0;
  for (int c = 0; c < cols; c++) {
    double p = A[r * cols + c] * x[c];
    if (p > 0) pos += p;
    else neg += p;
  }
  o[r] = pos - neg;
}

// constant-trip loops that stay loops in the PTX
extern "C" __global__ void fixed_trip(float *o, const float *x, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0, w = x[i], w2 = w * w;
#pragma unroll 1
  for (int k = 0; k < 8; k++) s += w2 + x[k * stride];
  float t = 0;
#pragma unroll 1
  for (int k = 0; k < 64; k++) t = t * w + x[k];
  o[i] = s + t;
}

// while loop with early exit: Newton square roots
extern "C" __global__ void newton_sqrt(double *o, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], r = a > 1 ? a : 1, prev = 0;
  int it = 0;
  while (fabs(r - prev) > 1e-15 * r && it++ < 60) {
    prev = r;
    double r2 = r * r;
    r = r - (r2 - a) / (2 * r);
  }
  o[i] = r;
}
