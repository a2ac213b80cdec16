// black_scholes — European call and put prices by the Black-Scholes formula for 8192 options in float, with
// the cumulative normal by the Abramowitz-Stegun polynomial (Horner: a chain of FMAs), expf, logf, sqrtf
// and division from CUDA's math library; then the same in double; then the vega (the price's sensitivity
// to volatility), which goes through normpdf and the exact normcdff.
#include "apps.h"

constexpr int N = 8192;

template <class R> __device__ inline R cnd(R d) {
  const R a1 = R(0.31938153), a2 = R(-0.356563782), a3 = R(1.781477937), a4 = R(-1.821255978),
          a5 = R(1.330274429), rsqrt2pi = R(0.39894228040143267794);
  R k = R(1) / (R(1) + R(0.2316419) * fabs(d));
  R c = rsqrt2pi * exp(R(-0.5) * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? R(1) - c : c;
}

template <class R>
__global__ void price(const R *s, const R *x, const R *t, R r, R v, R *call, R *put) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  R sq = sqrt(t[i]);
  R d1 = (log(s[i] / x[i]) + (r + R(0.5) * v * v) * t[i]) / (v * sq);
  R d2 = d1 - v * sq;
  R e = exp(-r * t[i]);
  call[i] = s[i] * cnd(d1) - x[i] * e * cnd(d2);
  put[i] = x[i] * e * (R(1) - cnd(d2)) - s[i] * (R(1) - cnd(d1));
}

__global__ void vega(const float *s, const float *x, const float *t, float r, float v, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float sq = sqrtf(t[i]);
  float d1 = (logf(s[i] / x[i]) + (r + 0.5f * v * v) * t[i]) / (v * sq);
  float pdf = expf(-0.5f * d1 * d1) * 0.39894228f;
  out[i] = s[i] * pdf * sq + 0.0f * normcdff(d1);  // normcdff must run, and be finite
}

template <class R> static void run(const char *name, const std::vector<float> &s, const std::vector<float> &x,
                                   const std::vector<float> &t, std::vector<R> &call, std::vector<R> &put) {
  R *ds = to_device(std::vector<R>(s.begin(), s.end())), *dx = to_device(std::vector<R>(x.begin(), x.end()));
  R *dt = to_device(std::vector<R>(t.begin(), t.end())), *dc, *dp;
  TRY(cudaMalloc(&dc, N * sizeof(R)));
  TRY(cudaMalloc(&dp, N * sizeof(R)));
  price<R><<<N / 128, 128>>>(ds, dx, dt, R(0.02), R(0.30), dc, dp);
  LAUNCHED();
  call = to_host(dc, N);
  put = to_host(dp, N);
  char what[64];
  snprintf(what, sizeof what, "%s calls", name);
  report(what, call);
  snprintf(what, sizeof what, "%s puts", name);
  report(what, put);
}

int main() {
  begin();
  Lcg rng(2718);
  std::vector<float> s(N), x(N), t(N);
  for (int i = 0; i < N; i++) {
    s[i] = 5.0f + 25.0f * rng.unit();
    x[i] = 1.0f + 99.0f * rng.unit();
    t[i] = 0.25f + 9.75f * rng.unit();
  }
  std::vector<float> cf, pf;
  std::vector<double> cd, pd;
  run("float", s, x, t, cf, pf);
  run("double", s, x, t, cd, pd);
  float *ds = to_device(s), *dx = to_device(x), *dt = to_device(t), *dv;
  TRY(cudaMalloc(&dv, N * sizeof(float)));
  vega<<<N / 128, 128>>>(ds, dx, dt, 0.02f, 0.30f, dv);
  LAUNCHED();
  report("float vega", to_host(dv, N));
  // Put-call parity: C - P = S - X e^{-rT}.
  double worst = 0;
  for (int i = 0; i < N; i++) {
    double parity = s[i] - x[i] * exp(-0.02 * t[i]);
    worst = fmax(worst, fabs(cd[i] - pd[i] - parity) / fmax(1.0, fabs(parity)));
  }
  check(worst < 1e-6, "double prices satisfy put-call parity");
  check(max_rel_err(cf.data(), cd.data(), N, 1.0) < 1e-4, "float prices close to double's");
  return finish("black_scholes");
}
