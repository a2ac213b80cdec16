// bf16_layernorm — the layer normalisation of transformer inference code: bf16 activations and weights
// (__nv_bfloat162 loads, two per thread), statistics in float with Welford's update and a warp-shuffle merge
// of (count, mean, M2), then y = (x - mean) * rsqrt(var + eps) * gamma + beta rounded to bf16; a second kernel
// does a residual add and GELU (tanh form, tanhf) in bf16x2 arithmetic (__hadd2, __hmul2, __hfma2). One warp
// per row. Every output is printed as its bits.
#include "apps.h"

#include <cuda_bf16.h>

constexpr int ROWS = 48, COLS = 1024;

struct Stat { float n, mean, m2; };
__device__ Stat merge(Stat a, Stat b) {
  float n = a.n + b.n;
  if (n == 0.0f) return a;
  float d = b.mean - a.mean, fb = b.n / n;
  return {n, a.mean + d * fb, a.m2 + b.m2 + d * d * a.n * fb};
}

__global__ void layernorm(const __nv_bfloat162 *x, const __nv_bfloat162 *gamma, const __nv_bfloat162 *beta,
                          __nv_bfloat162 *y, float *stats, float eps) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= ROWS) return;
  const __nv_bfloat162 *xr = x + row * (COLS / 2);
  Stat s = {0, 0, 0};
  for (int i = lane; i < COLS / 2; i += 32) {
    float2 v = __bfloat1622float2(xr[i]);
    for (float f : {v.x, v.y}) {  // Welford
      s.n += 1.0f;
      float d = f - s.mean;
      s.mean += d / s.n;
      s.m2 += d * (f - s.mean);
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    Stat t = {__shfl_xor_sync(0xffffffffu, s.n, o), __shfl_xor_sync(0xffffffffu, s.mean, o),
              __shfl_xor_sync(0xffffffffu, s.m2, o)};
    s = merge(s, t);
  }
  float rstd = rsqrtf(s.m2 / COLS + eps);
  if (lane == 0) stats[2 * row] = s.mean, stats[2 * row + 1] = rstd;
  for (int i = lane; i < COLS / 2; i += 32) {
    float2 v = __bfloat1622float2(xr[i]), g = __bfloat1622float2(gamma[i]), b = __bfloat1622float2(beta[i]);
    y[row * (COLS / 2) + i] = __floats2bfloat162_rn((v.x - s.mean) * rstd * g.x + b.x, (v.y - s.mean) * rstd * g.y + b.y);
  }
}

// out = gelu(y + residual), GELU's tanh form with the inner polynomial in bf16x2 and tanh in float.
__global__ void residual_gelu(const __nv_bfloat162 *y, const __nv_bfloat162 *res, __nv_bfloat162 *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ROWS * COLS / 2) return;
  __nv_bfloat162 h = __hadd2(y[i], res[i]);
  const __nv_bfloat162 c0 = __float2bfloat162_rn(0.7978845608f), c1 = __float2bfloat162_rn(0.044715f);
  __nv_bfloat162 h3 = __hmul2(__hmul2(h, h), h);
  __nv_bfloat162 inner = __hmul2(c0, __hfma2(c1, h3, h));
  float2 fi = __bfloat1622float2(inner), fh = __bfloat1622float2(h);
  out[i] = __floats2bfloat162_rn(0.5f * fh.x * (1.0f + tanhf(fi.x)), 0.5f * fh.y * (1.0f + tanhf(fi.y)));
}

static std::vector<unsigned> bits(const std::vector<__nv_bfloat162> &v) {
  std::vector<unsigned> r(v.size());
  memcpy(r.data(), v.data(), v.size() * 4);
  return r;
}

int main() {
  begin();
  Lcg rng(8086);
  std::vector<__nv_bfloat162> x(ROWS * COLS / 2), res(x.size()), gamma(COLS / 2), beta(COLS / 2);
  for (int r = 0; r < ROWS; r++)
    for (int i = 0; i < COLS / 2; i++) {  // each row its own scale and offset
      float scale = (float)(1 + r % 7), off = (float)(r % 5) - 2.0f;
      x[r * COLS / 2 + i] = __floats2bfloat162_rn(off + scale * rng.sym(), off + scale * rng.sym());
      res[r * COLS / 2 + i] = __floats2bfloat162_rn(0.5f * rng.sym(), 0.5f * rng.sym());
    }
  for (int i = 0; i < COLS / 2; i++) {
    gamma[i] = __floats2bfloat162_rn(1.0f + 0.25f * rng.sym(), 1.0f + 0.25f * rng.sym());
    beta[i] = __floats2bfloat162_rn(0.125f * rng.sym(), 0.125f * rng.sym());
  }
  __nv_bfloat162 *dx = to_device(x), *dres = to_device(res), *dg = to_device(gamma), *db = to_device(beta);
  __nv_bfloat162 *dy = to_device(std::vector<__nv_bfloat162>(x.size())), *dout = to_device(std::vector<__nv_bfloat162>(x.size()));
  float *dstats = to_device(std::vector<float>(2 * ROWS));
  layernorm<<<ROWS / 4, 128>>>(dx, dg, db, dy, dstats, 1e-5f);
  LAUNCHED();
  residual_gelu<<<(ROWS * COLS / 2 + 255) / 256, 256>>>(dy, dres, dout);
  LAUNCHED();
  std::vector<__nv_bfloat162> y = to_host(dy, x.size()), out = to_host(dout, x.size());
  std::vector<float> stats = to_host(dstats, 2 * ROWS);
  report("row mean, rstd", stats);
  report("layernorm bf16", bits(y));
  report("residual gelu bf16", bits(out));
  // the statistics agree with a double-precision pass over the bf16 inputs
  double worst = 0;
  for (int r = 0; r < ROWS; r++) {
    double m = 0, v = 0;
    for (int i = 0; i < COLS / 2; i++) m += __low2float(x[r * COLS / 2 + i]) + __high2float(x[r * COLS / 2 + i]);
    m /= COLS;
    for (int i = 0; i < COLS / 2; i++) {
      double a = __low2float(x[r * COLS / 2 + i]) - m, b = __high2float(x[r * COLS / 2 + i]) - m;
      v += a * a + b * b;
    }
    v /= COLS;
    worst = fmax(worst, fabs(stats[2 * r] - m) / fmax(1.0, fabs(m)));
    worst = fmax(worst, fabs(stats[2 * r + 1] - 1.0 / sqrt(v + 1e-5)) * sqrt(v));
  }
  check(worst < 1e-4, "mean and rstd close to a double-precision pass (worst %.3g)", worst);
  TRY(cudaFree(dx));
  TRY(cudaFree(dres));
  TRY(cudaFree(dg));
  TRY(cudaFree(db));
  TRY(cudaFree(dy));
  TRY(cudaFree(dout));
  TRY(cudaFree(dstats));
  return finish("bf16_layernorm");
}
