// stencil.cu — stencils and iterative grid updates, float and double (contraction corpus).
#include <cuda_runtime.h>

template <typename T>
__device__ void jacobi5(T *out, const T *in, int nx, int ny, T w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  int i = y * nx + x;
  T c = in[i];
  T lap = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] - T(4) * c;
  out[i] = c + w * lap;
}
extern "C" __global__ void jacobi5_f(float *o, const float *i, int nx, int ny, float w) { jacobi5(o, i, nx, ny, w); }
extern "C" __global__ void jacobi5_d(double *o, const double *i, int nx, int ny, double w) { jacobi5(o, i, nx, ny, w); }

template <typename T>
__device__ void heat3d(T *out, const T *in, int n, T alpha, T dt, T h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= n - 1 || y >= n - 1 || z >= n - 1) return;
  int s = n * n, i = z * s + y * n + x;
  T c = in[i];
  T d2 = (in[i - 1] - 2 * c + in[i + 1]) + (in[i - n] - 2 * c + in[i + n]) + (in[i - s] - 2 * c + in[i + s]);
  out[i] = c + alpha * dt / (h * h) * d2;
}
extern "C" __global__ void heat3d_f(float *o, const float *i, int n, float a, float dt, float h) { heat3d(o, i, n, a, dt, h); }
extern "C" __global__ void heat3d_d(double *o, const double *i, int n, double a, double dt, double h) { heat3d(o, i, n, a, dt, h); }

// 9-point weighted stencil with coefficients from constant memory
__constant__ float cw[9];
extern "C" __global__ void stencil9(float *o, const float *in, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  float acc = 0.f;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) acc += cw[(dy + 1) * 3 + dx + 1] * in[(y + dy) * nx + x + dx];
  o[y * nx + x] = acc;
}

// shared-memory tiled 1D stencil of radius 4
#define R 4
extern "C" __global__ void stencil1d(float *o, const float *in, int n, const float *c) {
  __shared__ float t[256 + 2 * R];
  int g = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + R;
  t[l] = g < n ? in[g] : 0.f;
  if (threadIdx.x < R) {
    t[l - R] = g >= R ? in[g - R] : 0.f;
    t[l + blockDim.x] = g + blockDim.x < n ? in[g + blockDim.x] : 0.f;
  }
  __syncthreads();
  float r = c[0] * t[l];
  for (int k = 1; k <= R; k++) r += c[k] * (t[l - k] + t[l + k]);
  if (g < n) o[g] = r;
}

// wave equation leapfrog with damping, double
extern "C" __global__ void wave2d(double *un, const double *u, const double *up, int nx, int ny, double c2, double damp) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  int i = y * nx + x;
  double lap = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0 * u[i];
  double v = 2.0 * u[i] - up[i] + c2 * lap;
  un[i] = v - damp * (u[i] - up[i]);
}

// advection upwind with flux limiter (branchy)
extern "C" __global__ void advect(float *o, const float *q, const float *vel, int n, float dtdx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 || i >= n - 2) return;
  float v = vel[i];
  float dqm = q[i] - q[i - 1], dqp = q[i + 1] - q[i];
  float r = dqp != 0.f ? dqm / dqp : 0.f;
  float phi = fmaxf(0.f, fminf(1.f, r));
  float flux;
  if (v > 0.f) flux = v * (q[i] + 0.5f * phi * (1.f - v * dtdx) * dqp);
  else flux = v * (q[i + 1] - 0.5f * phi * (1.f + v * dtdx) * dqp);
  float fl = vel[i - 1] * q[i - 1];
  o[i] = q[i] - dtdx * (flux - fl);
}

// red-black Gauss-Seidel sweep
extern "C" __global__ void rbgs(double *u, const double *f, int n, double h2, int color) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1 || ((x + y) & 1) != color) return;
  int i = y * n + x;
  u[i] = 0.25 * (u[i - 1] + u[i + 1] + u[i - n] + u[i + n] - h2 * f[i]);
}

// bilinear interpolation / resampling
extern "C" __global__ void resample(float *o, const float *in, int w, int h, int ow, int oh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= ow || y >= oh) return;
  float fx = (x + 0.5f) * w / ow - 0.5f, fy = (y + 0.5f) * h / oh - 0.5f;
  int x0 = max(0, min(w - 2, (int)floorf(fx))), y0 = max(0, min(h - 2, (int)floorf(fy)));
  float ax = fx - x0, ay = fy - y0;
  float a = in[y0 * w + x0], b = in[y0 * w + x0 + 1], c = in[(y0 + 1) * w + x0], d = in[(y0 + 1) * w + x0 + 1];
  float top = a * (1 - ax) + b * ax, bot = c * (1 - ax) + d * ax;
  o[y * ow + x] = top * (1 - ay) + bot * ay;
}
