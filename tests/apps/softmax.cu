// softmax — row-wise softmax and log-softmax of a 128 x 1000 matrix, built with -use_fast_math (so expf is
// __expf, logf is __logf, division approximate, denormals flushed): one warp per row with shuffle reductions
// (max, then the sum of exponentials), and one block per row with a shared-memory reduction; the "online"
// single-pass variant (running max and rescaled sum, as attention kernels do) per warp.
#include "apps.h"

constexpr int ROWS = 128, COLS = 1000;

__device__ inline float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// One warp per row: softmax into y, log-softmax into ly.
__global__ void softmax_warp(const float *x, float *y, float *ly) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  const float *xr = x + row * COLS;
  float m = -INFINITY;
  for (int c = lane; c < COLS; c += 32) m = fmaxf(m, xr[c]);
  m = warp_max(m);
  float s = 0.0f;
  for (int c = lane; c < COLS; c += 32) s += expf(xr[c] - m);
  s = warp_sum(s);
  float inv = 1.0f / s, ls = logf(s);
  for (int c = lane; c < COLS; c += 32) {
    y[row * COLS + c] = expf(xr[c] - m) * inv;
    ly[row * COLS + c] = xr[c] - m - ls;
  }
}

// One block of 256 threads per row, shared-memory tree reductions.
__global__ void softmax_block(const float *x, float *y) {
  __shared__ float red[256];
  const float *xr = x + blockIdx.x * COLS;
  int t = threadIdx.x;
  float m = -INFINITY;
  for (int c = t; c < COLS; c += 256) m = fmaxf(m, xr[c]);
  red[t] = m;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (t < w) red[t] = fmaxf(red[t], red[t + w]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float s = 0.0f;
  for (int c = t; c < COLS; c += 256) s += __expf(xr[c] - m);
  red[t] = s;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (t < w) red[t] += red[t + w];
    __syncthreads();
  }
  s = red[0];
  for (int c = t; c < COLS; c += 256) y[blockIdx.x * COLS + c] = __expf(xr[c] - m) / s;
}

// Single pass: each lane keeps a running max and a sum rescaled whenever the max grows; lanes then merge.
__global__ void softmax_online(const float *x, float *y) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  const float *xr = x + row * COLS;
  float m = -INFINITY, s = 0.0f;
  for (int c = lane; c < COLS; c += 32) {
    float v = xr[c], nm = fmaxf(m, v);
    s = s * __expf(m - nm) + __expf(v - nm);
    m = nm;
  }
  for (int o = 16; o > 0; o >>= 1) {
    float om = __shfl_xor_sync(0xffffffffu, m, o), os = __shfl_xor_sync(0xffffffffu, s, o);
    float nm = fmaxf(m, om);
    s = s * __expf(m - nm) + os * __expf(om - nm);
    m = nm;
  }
  for (int c = lane; c < COLS; c += 32) y[row * COLS + c] = __fdividef(__expf(xr[c] - m), s);
}

int main() {
  begin();
  Lcg rng(99);
  std::vector<float> x(ROWS * COLS);
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) x[r * COLS + c] = (1.0f + (float)(r % 8)) * 4.0f * rng.sym();  // logits
  float *dx = to_device(x), *dy, *dly;
  TRY(cudaMalloc(&dy, ROWS * COLS * sizeof(float)));
  TRY(cudaMalloc(&dly, ROWS * COLS * sizeof(float)));

  softmax_warp<<<ROWS / 4, 128>>>(dx, dy, dly);
  LAUNCHED();
  std::vector<float> yw = to_host(dy, ROWS * COLS), lyw = to_host(dly, ROWS * COLS);
  softmax_block<<<ROWS, 256>>>(dx, dy);
  LAUNCHED();
  std::vector<float> yb = to_host(dy, ROWS * COLS);
  softmax_online<<<ROWS / 4, 128>>>(dx, dy);
  LAUNCHED();
  std::vector<float> yo = to_host(dy, ROWS * COLS);
  report("softmax (warp per row)", yw);
  report("log-softmax (warp per row)", lyw);
  report("softmax (block per row)", yb);
  report("softmax (online)", yo);

  std::vector<double> ref(ROWS * COLS);
  for (int r = 0; r < ROWS; r++) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < COLS; c++) m = fmax(m, x[r * COLS + c]);
    for (int c = 0; c < COLS; c++) s += exp(x[r * COLS + c] - m);
    for (int c = 0; c < COLS; c++) ref[r * COLS + c] = exp(x[r * COLS + c] - m) / s;
  }
  check(max_rel_err(yw.data(), ref.data(), ref.size(), 1e-6) < 1e-3, "warp softmax close to the host's");
  check(max_rel_err(yb.data(), ref.data(), ref.size(), 1e-6) < 1e-3, "block softmax close to the host's");
  check(max_rel_err(yo.data(), ref.data(), ref.size(), 1e-6) < 1e-3, "online softmax close to the host's");
  return finish("softmax");
}
