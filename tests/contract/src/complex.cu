// complex.cu — thrust::complex arithmetic and Thrust/CUB algorithms over it (contraction corpus).
#include <cub/cub.cuh>
#include <thrust/complex.h>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

typedef thrust::complex<float> cf;
typedef thrust::complex<double> cd;

// Durand-Kerner iteration for the roots of a degree-4 polynomial, one polynomial per thread
extern "C" __global__ void durand_kerner(cd *roots, const cd *coef, int count, int iters) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const cd *c = coef + 5 * t;
  cd z[4] = {cd(1, 0), cd(0.4, 0.9), cd(-0.65, 0.72), cd(-0.2, -0.5)};
  for (int it = 0; it < iters; it++)
    for (int i = 0; i < 4; i++) {
      cd p = c[4];
      for (int k = 3; k >= 0; k--) p = p * z[i] + c[k];
      cd q = 1;
      for (int j = 0; j < 4; j++)
        if (j != i) q *= z[i] - z[j];
      z[i] -= p / q;
    }
  for (int i = 0; i < 4; i++) roots[4 * t + i] = z[i];
}

// radix-4 FFT butterfly on float complex
extern "C" __global__ void radix4(cf *a, int n, int quarter) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n / 4) return;
  int g = t / quarter, p = t % quarter, i0 = g * 4 * quarter + p;
  float ang = -6.2831853f * p / (4 * quarter);
  cf w1 = thrust::polar(1.f, ang), w2 = w1 * w1, w3 = w2 * w1;
  cf x0 = a[i0], x1 = a[i0 + quarter] * w1, x2 = a[i0 + 2 * quarter] * w2, x3 = a[i0 + 3 * quarter] * w3;
  cf s02 = x0 + x2, d02 = x0 - x2, s13 = x1 + x3, d13 = (x1 - x3) * cf(0, -1);
  a[i0] = s02 + s13; a[i0 + quarter] = d02 + d13; a[i0 + 2 * quarter] = s02 - s13; a[i0 + 3 * quarter] = d02 - d13;
}

// complex exponentials, logs and powers from thrust::complex
extern "C" __global__ void cmath(cf *o, const cf *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cf v = z[i];
  o[4 * i] = thrust::exp(v) * thrust::conj(v);
  o[4 * i + 1] = thrust::log(v + cf(2, 0)) / v;
  o[4 * i + 2] = thrust::pow(v, cf(1.5f, 0.25f));
  o[4 * i + 3] = thrust::sqrt(v) + thrust::sin(v) * thrust::cos(v);
}

struct cmag { __host__ __device__ double operator()(const cd &z) const { return thrust::norm(z); } };
struct cmuladd { __host__ __device__ cf operator()(const cf &a, const cf &b) const { return a * b + cf(0.5f, -0.5f); } };
struct cplus { __host__ __device__ cd operator()(const cd &a, const cd &b) const { return a + b; } };

void complex_algorithms(thrust::device_vector<cd> &d, thrust::device_vector<cf> &f, thrust::device_vector<cf> &g) {
  double e = thrust::transform_reduce(d.begin(), d.end(), cmag(), 0.0, thrust::plus<double>());
  thrust::transform(f.begin(), f.end(), g.begin(), g.begin(), cmuladd());
  thrust::inclusive_scan(f.begin(), f.end(), g.begin(), thrust::multiplies<cf>());
  cd s = thrust::reduce(d.begin(), d.end(), cd(0, 0), cplus());
  (void)e; (void)s;
}

// Welford's online variance as a CUB block reduction with a custom operator
struct Welford { float n, mean, m2; };
struct WelfordOp {
  __device__ Welford operator()(const Welford &a, const Welford &b) const {
    float n = a.n + b.n;
    if (n == 0) return a;
    float d = b.mean - a.mean, mean = a.mean + d * b.n / n;
    return {n, mean, a.m2 + b.m2 + d * d * a.n * b.n / n};
  }
};
extern "C" __global__ void welford(float *mean, float *var, const float *x, int n) {
  typedef cub::BlockReduce<Welford, 256> BR;
  __shared__ typename BR::TempStorage tmp;
  Welford w = {0, 0, 0};
  for (int i = threadIdx.x; i < n; i += 256) {
    float v = x[blockIdx.x * n + i];
    w.n += 1;
    float d = v - w.mean;
    w.mean += d / w.n;
    w.m2 += d * (v - w.mean);
  }
  Welford r = BR(tmp).Reduce(w, WelfordOp());
  if (threadIdx.x == 0) { mean[blockIdx.x] = r.mean; var[blockIdx.x] = r.m2 / (r.n - 1); }
}
