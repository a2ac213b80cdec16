// softmax.cu — machine-learning style kernels; built with and without -use_fast_math (contraction corpus).
#include <cuda_runtime.h>

__device__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  return v;
}
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

// row softmax, one warp per row
extern "C" __global__ void softmax(float *y, const float *x, int rows, int cols, float scale) {
  int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, l = threadIdx.x & 31;
  if (r >= rows) return;
  const float *xr = x + (size_t)r * cols;
  float m = -1e30f;
  for (int c = l; c < cols; c += 32) m = fmaxf(m, xr[c] * scale);
  m = warp_max(m);
  float s = 0.f;
  for (int c = l; c < cols; c += 32) s += expf(xr[c] * scale - m);
  s = warp_sum(s);
  float inv = 1.f / s;
  for (int c = l; c < cols; c += 32) y[(size_t)r * cols + c] = expf(xr[c] * scale - m) * inv;
}

// layer normalisation with affine parameters
extern "C" __global__ void layernorm(float *y, const float *x, const float *g, const float *b, int rows, int cols, float eps) {
  int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, l = threadIdx.x & 31;
  if (r >= rows) return;
  const float *xr = x + (size_t)r * cols;
  float s = 0.f, s2 = 0.f;
  for (int c = l; c < cols; c += 32) { float v = xr[c]; s += v; s2 += v * v; }
  s = warp_sum(s); s2 = warp_sum(s2);
  float mean = s / cols, var = s2 / cols - mean * mean, inv = rsqrtf(var + eps);
  for (int c = l; c < cols; c += 32) y[(size_t)r * cols + c] = (xr[c] - mean) * inv * g[c] + b[c];
}

// GELU (tanh approximation) and SiLU activations
extern "C" __global__ void gelu(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float u = 0.7978845608f * (v + 0.044715f * v * v * v);
  y[i] = 0.5f * v * (1.f + tanhf(u));
}
extern "C" __global__ void silu(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = x[i]; y[i] = v / (1.f + expf(-v)); }
}

// scaled dot-product attention scores for one query per warp
extern "C" __global__ void attn(float *o, const float *q, const float *k, const float *v, int n, int d) {
  int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, l = threadIdx.x & 31;
  const float *qw = q + w * d;
  float m = -1e30f, den = 0.f, acc = 0.f;
  float sc = rsqrtf((float)d);
  for (int j = 0; j < n; j++) {
    float p = 0.f;
    for (int c = l; c < d; c += 32) p += qw[c] * k[j * d + c];
    p = warp_sum(p) * sc;
    float mn = fmaxf(m, p), a = expf(m - mn), e = expf(p - mn);
    den = den * a + e;
    acc = acc * a + e * (l < d ? v[j * d + l] : 0.f);
    m = mn;
  }
  if (l < d) o[w * d + l] = acc / den;
}

// Adam optimiser step
extern "C" __global__ void adam(float *p, float *m, float *v, const float *g, int n, float lr, float b1, float b2, float eps, float c1, float c2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float gi = g[i];
  float mi = b1 * m[i] + (1 - b1) * gi, vi = b2 * v[i] + (1 - b2) * gi * gi;
  m[i] = mi; v[i] = vi;
  p[i] -= lr * (mi / c1) / (sqrtf(vi / c2) + eps);
}

// cross-entropy loss with log-sum-exp
extern "C" __global__ void xent(float *loss, const float *logits, const int *label, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *z = logits + (size_t)r * cols;
  float m = z[0];
  for (int c = 1; c < cols; c++) m = fmaxf(m, z[c]);
  float s = 0;
  for (int c = 0; c < cols; c++) s += __expf(z[c] - m);
  loss[r] = logf(s) + m - z[label[r]];
}
