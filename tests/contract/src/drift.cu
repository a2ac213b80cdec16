// drift.cu — iterative programs whose results depend on where ptxas fuses a mul and an add: run on the
// GPU (tests/contract/record_on_gpu.sh) and under warpvm (tests/contract/replay.sh), they must agree bit
// for bit; under `warpvm --no-contract` they drift apart. Inputs come from ptxrun's rand32 buffers.
#include <cuda_runtime.h>

__device__ float unit(unsigned s) { return (s >> 8) * (1.0f / 16777216.0f); }   // [0, 1)
__device__ double unitd(unsigned s) { return (s >> 8) * (1.0 / 16777216.0); }

// six bodies per thread, leapfrog with softened gravity
extern "C" __global__ void nbody(float *out, const unsigned *seed, int steps, float dt) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned *s = seed + 24 * t;
  float x[6], y[6], z[6], vx[6], vy[6], vz[6];
  for (int i = 0; i < 6; i++) {
    x[i] = unit(s[4 * i]) * 2 - 1; y[i] = unit(s[4 * i + 1]) * 2 - 1; z[i] = unit(s[4 * i + 2]) * 2 - 1;
    vx[i] = vy[i] = vz[i] = 0;
  }
  for (int k = 0; k < steps; k++) {
    for (int i = 0; i < 6; i++) {
      float ax = 0, ay = 0, az = 0;
      for (int j = 0; j < 6; j++) {
        float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
        float dx2 = dx * dx, dy2 = dy * dy, dz2 = dz * dz; // each feeds two sums: left to ptxas
        float inv = rsqrtf(dx2 + dy2 + dz2 + 0.01f), aniso = dx2 - dy2 + 0.5f * dz2;
        float f = inv * inv * inv * (1.0f + 0.01f * aniso);
        ax += dx * f; ay += dy * f; az += dz * f;
      }
      vx[i] += dt * ax; vy[i] += dt * ay; vz[i] += dt * az;
    }
    for (int i = 0; i < 6; i++) { x[i] += dt * vx[i]; y[i] += dt * vy[i]; z[i] += dt * vz[i]; }
  }
  for (int i = 0; i < 6; i++) { out[18 * t + 3 * i] = x[i]; out[18 * t + 3 * i + 1] = y[i]; out[18 * t + 3 * i + 2] = z[i]; }
}

// the Lorenz system, classic RK4 in double
struct V3 { double x, y, z; };
__device__ V3 lz(V3 v) { return {10.0 * (v.y - v.x), v.x * (28.0 - v.z) - v.y, v.x * v.y - 8.0 / 3.0 * v.z}; }
__device__ V3 ax(V3 a, double h, V3 k) { return {a.x + h * k.x, a.y + h * k.y, a.z + h * k.z}; }
extern "C" __global__ void lorenz(double *out, const unsigned *seed, int steps, double h) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  V3 v = {unitd(seed[3 * t]) * 20 - 10, unitd(seed[3 * t + 1]) * 20 - 10, unitd(seed[3 * t + 2]) * 30};
  for (int i = 0; i < steps; i++) {
    V3 k1 = lz(v), k2 = lz(ax(v, h / 2, k1)), k3 = lz(ax(v, h / 2, k2)), k4 = lz(ax(v, h, k3));
    v.x += h / 6 * (k1.x + 2 * k2.x + 2 * k3.x + k4.x);
    v.y += h / 6 * (k1.y + 2 * k2.y + 2 * k3.y + k4.y);
    v.z += h / 6 * (k1.z + 2 * k2.z + 2 * k3.z + k4.z);
  }
  out[3 * t] = v.x; out[3 * t + 1] = v.y; out[3 * t + 2] = v.z;
}

// explicit 1-D heat equation on 16 cells, with a source term behind a branch
extern "C" __global__ void heat(float *out, const unsigned *seed, int steps, float r) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float u[16], v[16];
  for (int i = 0; i < 16; i++) u[i] = unit(seed[16 * t + i]);
  for (int k = 0; k < steps; k++) {
    float flux = 0;
    for (int i = 1; i < 15; i++) {
      float d = r * (u[i - 1] - 2 * u[i] + u[i + 1]); // two adds take it
      v[i] = u[i] + d;
      flux = flux - d;
    }
    for (int i = 1; i < 15; i++) u[i] = v[i] > 0.5f ? v[i] - r * 0.01f * v[i] : v[i] + r * 0.02f + 1e-4f * flux;
  }
  for (int i = 0; i < 16; i++) out[16 * t + i] = u[i];
}

// mean and variance the naive way (s2/n - mean*mean), and a normalised cubic of the data
extern "C" __global__ void stats(float *out, const unsigned *seed, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0, s2 = 0, c = 0;
  for (int i = 0; i < n; i++) {
    float v = unit(seed[n * t + i]) * 10 - 3;
    s += v; s2 += v * v; c += v * v * v;
  }
  float mean = s / n, var = s2 / n - mean * mean;
  out[3 * t] = mean; out[3 * t + 1] = var; out[3 * t + 2] = c / n - 3 * mean * var - mean * mean * mean;
}

// a bounded complex iteration z = z^2 * k + c (products feeding two sums each)
extern "C" __global__ void cquad(float *out, const unsigned *seed, int steps) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float cr = unit(seed[2 * t]) * 0.5f - 0.6f, ci = unit(seed[2 * t + 1]) * 0.5f, zr = 0, zi = 0;
  for (int k = 0; k < steps; k++) {
    float nr = zr * zr - zi * zi + cr, ni = 2 * zr * zi + ci;
    float m = nr * nr + ni * ni;
    if (m > 4) { nr *= 0.5f; ni *= 0.5f; }
    zr = nr; zi = ni;
  }
  out[2 * t] = zr; out[2 * t + 1] = zi;
}

// a damped oscillator whose coefficients are kernel parameters (products by constants, across blocks)
extern "C" __global__ void oscillator(double *out, const unsigned *seed, int steps, double k, double c, double dt) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  double x = unitd(seed[t]) * 2 - 1, v = 0, e = 0;
  for (int i = 0; i < steps; i++) {
    double a = -k * x - c * v;
    v += dt * a;
    if (x > 0) x += dt * v;
    else x += dt * v * 0.999;
    e += 0.5 * v * v + 0.5 * k * x * x;
  }
  out[3 * t] = x; out[3 * t + 1] = v; out[3 * t + 2] = e;
}

// softmax of 64 values per thread, then a decaying sum of them (the exp and division are approximate under
// -use_fast_math, where div.approx's multiply is contracted too)
extern "C" __global__ void softmax(float *out, const unsigned *seed) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float m = -1e30f, x[64];
  for (int i = 0; i < 64; i++) { x[i] = unit(seed[64 * t + i]) * 8 - 4; m = fmaxf(m, x[i]); }
  float s = 0;
  for (int i = 0; i < 64; i++) { x[i] = expf(x[i] - m); s += x[i]; }
  float w = 0;
  for (int i = 0; i < 64; i++) w += x[i] / s - 0.015625f;
  out[2 * t] = s; out[2 * t + 1] = w;
}
