// solvers.cu — linear algebra and ODE kernels, float and double (contraction corpus).
#include <cuda_runtime.h>

// CSR sparse matrix-vector product
template <typename T>
__device__ void spmv(T *y, const int *rp, const int *ci, const T *v, const T *x, int n, T alpha, T beta) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  T s = 0;
  for (int k = rp[r]; k < rp[r + 1]; k++) s += v[k] * x[ci[k]];
  y[r] = alpha * s + beta * y[r];
}
extern "C" __global__ void spmv_f(float *y, const int *rp, const int *ci, const float *v, const float *x, int n, float a, float b) { spmv(y, rp, ci, v, x, n, a, b); }
extern "C" __global__ void spmv_d(double *y, const int *rp, const int *ci, const double *v, const double *x, int n, double a, double b) { spmv(y, rp, ci, v, x, n, a, b); }

// CG vector updates: x += alpha p, r -= alpha q, and the residual norm partial sums
extern "C" __global__ void cg_update(double *x, double *r, const double *p, const double *q, double alpha, double *rr, int n) {
  __shared__ double s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = 0;
  if (i < n) {
    x[i] += alpha * p[i];
    double ri = r[i] - alpha * q[i];
    r[i] = ri;
    v = ri * ri;
  }
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(rr, s[0]);
}

// dense matrix multiply, shared-memory tiles
template <typename T, int TS>
__device__ void gemm(T *c, const T *a, const T *b, int n, T alpha, T beta) {
  __shared__ T as[TS][TS], bs[TS][TS];
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
  T acc = 0;
  for (int t = 0; t < n; t += TS) {
    as[ty][tx] = row < n && t + tx < n ? a[row * n + t + tx] : T(0);
    bs[ty][tx] = col < n && t + ty < n ? b[(t + ty) * n + col] : T(0);
    __syncthreads();
    for (int k = 0; k < TS; k++) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = alpha * acc + beta * c[row * n + col];
}
extern "C" __global__ void gemm_f(float *c, const float *a, const float *b, int n, float al, float be) { gemm<float, 16>(c, a, b, n, al, be); }
extern "C" __global__ void gemm_d(double *c, const double *a, const double *b, int n, double al, double be) { gemm<double, 16>(c, a, b, n, al, be); }

// Thomas algorithm, one tridiagonal system per thread
extern "C" __global__ void thomas(float *x, const float *a, const float *b, const float *c, const float *d, float *cp, float *dp, int n, int m) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= m) return;
  int o = s * n;
  cp[o] = c[o] / b[o];
  dp[o] = d[o] / b[o];
  for (int i = 1; i < n; i++) {
    float den = b[o + i] - a[o + i] * cp[o + i - 1];
    cp[o + i] = c[o + i] / den;
    dp[o + i] = (d[o + i] - a[o + i] * dp[o + i - 1]) / den;
  }
  x[o + n - 1] = dp[o + n - 1];
  for (int i = n - 2; i >= 0; i--) x[o + i] = dp[o + i] - cp[o + i] * x[o + i + 1];
}

// classic RK4 on a damped pendulum / Lorenz system, one trajectory per thread
struct V3 { double x, y, z; };
__device__ V3 lorenz(V3 v, double s, double r, double b) { return {s * (v.y - v.x), v.x * (r - v.z) - v.y, v.x * v.y - b * v.z}; }
extern "C" __global__ void rk4_lorenz(double *out, int steps, double h) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  V3 v = {1.0 + 0.01 * t, 1.0, 1.0};
  for (int i = 0; i < steps; i++) {
    V3 k1 = lorenz(v, 10, 28, 8.0 / 3);
    V3 k2 = lorenz({v.x + h / 2 * k1.x, v.y + h / 2 * k1.y, v.z + h / 2 * k1.z}, 10, 28, 8.0 / 3);
    V3 k3 = lorenz({v.x + h / 2 * k2.x, v.y + h / 2 * k2.y, v.z + h / 2 * k2.z}, 10, 28, 8.0 / 3);
    V3 k4 = lorenz({v.x + h * k3.x, v.y + h * k3.y, v.z + h * k3.z}, 10, 28, 8.0 / 3);
    v.x += h / 6 * (k1.x + 2 * k2.x + 2 * k3.x + k4.x);
    v.y += h / 6 * (k1.y + 2 * k2.y + 2 * k3.y + k4.y);
    v.z += h / 6 * (k1.z + 2 * k2.z + 2 * k3.z + k4.z);
  }
  out[3 * t] = v.x; out[3 * t + 1] = v.y; out[3 * t + 2] = v.z;
}
extern "C" __global__ void rk4_pendulum(float *out, int steps, float h, float g, float damp) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float th = 0.1f * t, w = 0.f;
  for (int i = 0; i < steps; i++) {
    float a1 = -g * sinf(th) - damp * w, v1 = w;
    float a2 = -g * sinf(th + 0.5f * h * v1) - damp * (w + 0.5f * h * a1), v2 = w + 0.5f * h * a1;
    float a3 = -g * sinf(th + 0.5f * h * v2) - damp * (w + 0.5f * h * a2), v3 = w + 0.5f * h * a2;
    float a4 = -g * sinf(th + h * v3) - damp * (w + h * a3), v4 = w + h * a3;
    th += h / 6 * (v1 + 2 * v2 + 2 * v3 + v4);
    w += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
  }
  out[2 * t] = th; out[2 * t + 1] = w;
}

// Newton's method for cube roots and a polynomial root, per element
extern "C" __global__ void newton(float *x, const float *a, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = a[i], r = v > 1.f ? v / 3.f : 1.f;
  for (int k = 0; k < iters; k++) {
    float f = r * r * r - v, fp = 3.f * r * r;
    if (fabsf(f) < 1e-7f) break;
    r = r - f / fp;
  }
  x[i] = r;
}

// LU decomposition of many small 4x4 matrices (no pivoting), double
extern "C" __global__ void lu4(double *m, int count) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  double a[4][4];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) a[i][j] = m[16 * t + 4 * i + j];
  for (int k = 0; k < 4; k++)
    for (int i = k + 1; i < 4; i++) {
      double f = a[i][k] / a[k][k];
      a[i][k] = f;
      for (int j = k + 1; j < 4; j++) a[i][j] -= f * a[k][j];
    }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) m[16 * t + 4 * i + j] = a[i][j];
}

// power iteration step: y = A x, then normalise (block-wide)
extern "C" __global__ void power_step(float *y, const float *A, const float *x, int n, float *norm) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  if (r < n) {
    for (int c = 0; c < n; c++) s += A[r * n + c] * x[c];
    y[r] = s;
  }
  float sq = s * s;
  for (int o = 16; o > 0; o >>= 1) sq += __shfl_down_sync(0xffffffff, sq, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(norm, sq);
}

// Horner and Estrin polynomial evaluation, with several results sharing products
extern "C" __global__ void poly(double *o, const double *x, const double *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i], v2 = v * v, v4 = v2 * v2;
  double h = c[7];
  for (int k = 6; k >= 0; k--) h = h * v + c[k];
  double e = (c[0] + c[1] * v) + (c[2] + c[3] * v) * v2 + ((c[4] + c[5] * v) + (c[6] + c[7] * v) * v2) * v4;
  o[2 * i] = h;
  o[2 * i + 1] = e - h;
}
