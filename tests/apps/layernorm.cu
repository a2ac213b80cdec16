// layernorm — layer normalisation of 128 rows of 768 features followed by GELU, built with -use_fast_math:
// per row one block of 256 threads; each thread runs Welford's mean/variance over its features, the block merges
// the partial (count, mean, M2) triples by warp shuffles and then across warps, rsqrtf scales, gamma and beta
// apply; then the tanh form of GELU. Also the two-pass form (sum, then sum of squared deviations) for comparison.
#include "apps.h"

constexpr int ROWS = 128, F = 768, TPB = 256;
constexpr float EPS = 1e-5f;

struct Welford {
  float n, mean, m2;
};

__device__ inline Welford merge(Welford a, Welford b) {
  float n = a.n + b.n;
  if (n == 0.0f) return a;
  float d = b.mean - a.mean, fb = b.n / n;
  return {n, a.mean + d * fb, a.m2 + b.m2 + d * d * a.n * fb};
}

__device__ inline Welford warp_merge(Welford w) {
  for (int o = 16; o > 0; o >>= 1) {
    Welford other = {__shfl_xor_sync(0xffffffffu, w.n, o), __shfl_xor_sync(0xffffffffu, w.mean, o),
                     __shfl_xor_sync(0xffffffffu, w.m2, o)};
    w = merge(w, other);
  }
  return w;
}

__device__ inline float gelu(float x) {
  const float k = 0.7978845608f;  // sqrt(2 / pi)
  return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

__global__ void layernorm_welford(const float *x, const float *gamma, const float *beta, float *y,
                                  float *stats) {
  __shared__ Welford part[TPB / 32];
  __shared__ float mean_rstd[2];
  const float *xr = x + blockIdx.x * F;
  Welford w = {0.0f, 0.0f, 0.0f};
  for (int c = threadIdx.x; c < F; c += TPB) {
    float v = xr[c];
    w.n += 1.0f;
    float d = v - w.mean;
    w.mean += d / w.n;
    w.m2 += d * (v - w.mean);
  }
  w = warp_merge(w);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = w;
  __syncthreads();
  if (threadIdx.x < 32) {
    w = threadIdx.x < TPB / 32 ? part[threadIdx.x] : Welford{0.0f, 0.0f, 0.0f};
    w = warp_merge(w);
    if (threadIdx.x == 0) {
      mean_rstd[0] = w.mean;
      mean_rstd[1] = rsqrtf(w.m2 / F + EPS);
      stats[2 * blockIdx.x] = w.mean;
      stats[2 * blockIdx.x + 1] = mean_rstd[1];
    }
  }
  __syncthreads();
  float mean = mean_rstd[0], rstd = mean_rstd[1];
  for (int c = threadIdx.x; c < F; c += TPB) y[blockIdx.x * F + c] = gelu((xr[c] - mean) * rstd * gamma[c] + beta[c]);
}

__device__ inline float block_sum(float v, float *red) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  float s = 0.0f;
  for (int i = 0; i < TPB / 32; i++) s += red[i];
  __syncthreads();
  return s;
}

__global__ void layernorm_two_pass(const float *x, const float *gamma, const float *beta, float *y) {
  __shared__ float red[TPB / 32];
  const float *xr = x + blockIdx.x * F;
  float s = 0.0f;
  for (int c = threadIdx.x; c < F; c += TPB) s += xr[c];
  float mean = block_sum(s, red) / F;
  float q = 0.0f;
  for (int c = threadIdx.x; c < F; c += TPB) q += (xr[c] - mean) * (xr[c] - mean);
  float rstd = rsqrtf(block_sum(q, red) / F + EPS);
  for (int c = threadIdx.x; c < F; c += TPB) y[blockIdx.x * F + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}

int main() {
  begin();
  Lcg rng(3);
  std::vector<float> x(ROWS * F), gamma(F), beta(F);
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < F; c++) x[r * F + c] = (float)(r % 5) + (0.5f + (float)(r % 3)) * rng.sym();
  for (int c = 0; c < F; c++) {
    gamma[c] = 1.0f + 0.125f * rng.sym();
    beta[c] = 0.25f * rng.sym();
  }
  float *dx = to_device(x), *dg = to_device(gamma), *db = to_device(beta), *dy, *ds;
  TRY(cudaMalloc(&dy, ROWS * F * sizeof(float)));
  TRY(cudaMalloc(&ds, 2 * ROWS * sizeof(float)));
  layernorm_welford<<<ROWS, TPB>>>(dx, dg, db, dy, ds);
  LAUNCHED();
  std::vector<float> yw = to_host(dy, ROWS * F), st = to_host(ds, 2 * ROWS);
  layernorm_two_pass<<<ROWS, TPB>>>(dx, dg, db, dy);
  LAUNCHED();
  std::vector<float> y2 = to_host(dy, ROWS * F);
  report("mean, 1/std per row (Welford)", st);
  report("gelu(layernorm) (Welford)", yw);
  report("layernorm (two-pass)", y2);

  std::vector<double> ref(ROWS * F), refg(ROWS * F);
  for (int r = 0; r < ROWS; r++) {
    double m = 0, v = 0;
    for (int c = 0; c < F; c++) m += x[r * F + c];
    m /= F;
    for (int c = 0; c < F; c++) v += (x[r * F + c] - m) * (x[r * F + c] - m);
    double rstd = 1 / sqrt(v / F + EPS);
    for (int c = 0; c < F; c++) {
      double n = (x[r * F + c] - m) * rstd * gamma[c] + beta[c];
      ref[r * F + c] = n;
      refg[r * F + c] = 0.5 * n * (1 + tanh(0.7978845608 * (n + 0.044715 * n * n * n)));
    }
  }
  check(max_rel_err(y2.data(), ref.data(), ref.size(), 1e-2) < 1e-3, "two-pass layernorm close to the host's");
  check(max_rel_err(yw.data(), refg.data(), refg.size(), 1e-2) < 1e-3, "Welford layernorm + GELU close to the host's");
  return finish("layernorm");
}
