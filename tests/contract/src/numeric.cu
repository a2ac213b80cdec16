// numeric.cu — complex arithmetic, FFT, finance, image and math-library kernels (contraction corpus).
#include <cuComplex.h>
#include <cuda_runtime.h>

// Mandelbrot escape counts (complex square + c in a loop)
extern "C" __global__ void mandel(int *out, int w, int h, float x0, float y0, float dx, int maxit) {
  int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= w || py >= h) return;
  float cr = x0 + px * dx, ci = y0 + py * dx, zr = 0, zi = 0;
  int k = 0;
  while (k < maxit && zr * zr + zi * zi < 4.f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.f * zr * zi + ci;
    zr = t;
    k++;
  }
  out[py * w + px] = k;
}

// radix-2 FFT butterflies with twiddles, double complex
extern "C" __global__ void butterfly(cuDoubleComplex *a, int n, int half, int sign) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n / 2) return;
  int grp = t / half, pos = t % half, i = grp * 2 * half + pos, j = i + half;
  double ang = sign * 3.14159265358979323846 * pos / half;
  double s, c;
  sincos(ang, &s, &c);
  cuDoubleComplex w = make_cuDoubleComplex(c, s);
  cuDoubleComplex u = a[i], v = cuCmul(a[j], w);
  a[i] = cuCadd(u, v);
  a[j] = cuCsub(u, v);
}

// complex multiply-accumulate (float), a typical DSP filter
extern "C" __global__ void cfir(cuFloatComplex *y, const cuFloatComplex *x, const cuFloatComplex *h, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuFloatComplex acc = make_cuFloatComplex(0, 0);
  for (int k = 0; k < taps && k <= i; k++) acc = cuCaddf(acc, cuCmulf(h[k], x[i - k]));
  y[i] = acc;
}
extern "C" __global__ void cdiv(cuFloatComplex *y, const cuFloatComplex *a, const cuFloatComplex *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = cuCdivf(a[i], b[i]);
}

// Black-Scholes call/put prices
__device__ float cnd(float d) {
  const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f, A5 = 1.330274429f;
  float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float c = 0.3989422804f * expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  return d > 0 ? 1.0f - c : c;
}
extern "C" __global__ void blackscholes(float *call, float *put, const float *S, const float *X, const float *T, float r, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = S[i], x = X[i], t = T[i], sq = sqrtf(t);
  float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sq), d2 = d1 - v * sq;
  float e = expf(-r * t);
  call[i] = s * cnd(d1) - x * e * cnd(d2);
  put[i] = x * e * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
}

// Monte-Carlo option path with an LCG, double
extern "C" __global__ void mc_path(double *out, int steps, double s0, double mu, double sig, double dt) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long st = 0x9E3779B97F4A7C15ull * (t + 1);
  double s = s0, sum = 0;
  for (int i = 0; i < steps; i++) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    double u1 = ((st >> 11) + 0.5) * 0x1.0p-53;
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    double u2 = ((st >> 11) + 0.5) * 0x1.0p-53;
    double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    s = s * exp((mu - 0.5 * sig * sig) * dt + sig * sqrt(dt) * z);
    sum += s;
  }
  out[t] = sum / steps;
}

// colour conversion, gamma, and a 3x3 convolution on RGB
extern "C" __global__ void rgb2yuv(float *y, float *u, float *v, const uchar3 *px, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float r = px[i].x / 255.f, g = px[i].y / 255.f, b = px[i].z / 255.f;
  float Y = 0.299f * r + 0.587f * g + 0.114f * b;
  y[i] = Y; u[i] = 0.492f * (b - Y); v[i] = 0.877f * (r - Y);
}
extern "C" __global__ void sobel(float *o, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
#define P(dx, dy) in[(y + (dy)) * w + x + (dx)]
  float gx = -P(-1, -1) - 2 * P(-1, 0) - P(-1, 1) + P(1, -1) + 2 * P(1, 0) + P(1, 1);
  float gy = -P(-1, -1) - 2 * P(0, -1) - P(1, -1) + P(-1, 1) + 2 * P(0, 1) + P(1, 1);
  o[y * w + x] = sqrtf(gx * gx + gy * gy);
}

// math-library heavy element-wise functions, float and double
extern "C" __global__ void libm_f(float *o, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  o[8 * i] = sinf(v) * cosf(v) + tanf(0.5f * v);
  o[8 * i + 1] = expf(v) - logf(1 + fabsf(v));
  o[8 * i + 2] = powf(fabsf(v), 1.7f) + cbrtf(v);
  o[8 * i + 3] = erff(v) + erfcf(v) * v;
  o[8 * i + 4] = lgammaf(fabsf(v) + 1) + tgammaf(0.1f * v + 2);
  o[8 * i + 5] = atan2f(v, 1.5f) + asinhf(v) + acoshf(fabsf(v) + 1);
  o[8 * i + 6] = hypotf(v, 3.f) + sinhf(0.1f * v) * coshf(0.1f * v);
  o[8 * i + 7] = j0f(v) + y1f(fabsf(v) + 0.5f) + normcdff(v);
}
extern "C" __global__ void libm_d(double *o, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  o[8 * i] = sin(v) * cos(v) + tan(0.5 * v);
  o[8 * i + 1] = exp(v) - log1p(fabs(v));
  o[8 * i + 2] = pow(fabs(v), 1.7) + cbrt(v);
  o[8 * i + 3] = erf(v) + erfc(v) * v;
  o[8 * i + 4] = lgamma(fabs(v) + 1) + tgamma(0.1 * v + 2);
  o[8 * i + 5] = atan2(v, 1.5) + asinh(v) + acosh(fabs(v) + 1);
  o[8 * i + 6] = hypot(v, 3.0) + sinh(0.1 * v) * cosh(0.1 * v);
  o[8 * i + 7] = j0(v) + y1(fabs(v) + 0.5) + normcdf(v);
}

// Kahan-compensated and pairwise summation, where contraction changes results
extern "C" __global__ void kahan(float *o, const float *x, int n, int per) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0, c = 0;
  for (int k = 0; k < per; k++) {
    int i = t * per + k;
    if (i >= n) break;
    float y = x[i] * x[i] - c, u = s + y;
    c = (u - s) - y;
    s = u;
  }
  o[t] = s;
}

// 2x2 determinants and a quadratic solver (classic cancellation)
extern "C" __global__ void quadratic(float2 *roots, const float3 *abc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 q = abc[i];
  float disc = q.y * q.y - 4.f * q.x * q.z;
  float2 r = {0, 0};
  if (disc >= 0) {
    float s = sqrtf(disc), t = -0.5f * (q.y + copysignf(s, q.y));
    r = make_float2(t / q.x, q.z / t);
  }
  roots[i] = r;
}
extern "C" __global__ void det2(double *d, const double2 *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { double2 a = m[2 * i], b = m[2 * i + 1]; d[i] = a.x * b.y - a.y * b.x; }
}
