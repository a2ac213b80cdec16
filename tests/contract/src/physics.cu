// physics.cu — simulation kernels whose products feed several sums (contraction corpus).
#include <cuda_runtime.h>

// lattice Boltzmann D2Q9 BGK collision: equilibrium from shared velocity products
__constant__ float lbw[9] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
__constant__ int lbx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1}, lby[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
extern "C" __global__ void lbm_collide(float *f, int n, float omega) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float fi[9], rho = 0, ux = 0, uy = 0;
#pragma unroll
  for (int k = 0; k < 9; k++) { fi[k] = f[k * n + i]; rho += fi[k]; ux += lbx[k] * fi[k]; uy += lby[k] * fi[k]; }
  ux /= rho; uy /= rho;
  float usq = 1.5f * (ux * ux + uy * uy);
#pragma unroll
  for (int k = 0; k < 9; k++) {
    float cu = 3.f * (lbx[k] * ux + lby[k] * uy);
    float feq = lbw[k] * rho * (1.f + cu + 0.5f * cu * cu - usq);
    f[k * n + i] = fi[k] - omega * (fi[k] - feq);
  }
}

// SPH density and pressure force with a cubic spline kernel
extern "C" __global__ void sph(float4 *force, const float4 *pos, const float *rho, int n, float h, float k0, float rho0, float mass) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i];
  float pi = k0 * (rho[i] - rho0), fx = 0, fy = 0, fz = 0, h2 = h * h;
  for (int j = 0; j < n; j++) {
    float4 q = pos[j];
    float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z, r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < h2 && j != i) {
      float r = sqrtf(r2), t = h - r, pj = k0 * (rho[j] - rho0);
      float g = -45.f / (3.14159265f * h2 * h2 * h2) * t * t;
      float s = mass * (pi + pj) / (2.f * rho[j]) * g / r;
      fx += s * dx; fy += s * dy; fz += s * dz;
    }
  }
  force[i] = make_float4(fx, fy, fz, 0);
}

// HLL Riemann solver for the 1-D Euler equations, double
extern "C" __global__ void hll(double *flux, const double *ql, const double *qr, int n, double gam) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double rl = ql[3 * i], ul = ql[3 * i + 1] / rl, el = ql[3 * i + 2], pl = (gam - 1) * (el - 0.5 * rl * ul * ul);
  double rr = qr[3 * i], ur = qr[3 * i + 1] / rr, er = qr[3 * i + 2], pr = (gam - 1) * (er - 0.5 * rr * ur * ur);
  double cl = sqrt(gam * pl / rl), cr = sqrt(gam * pr / rr);
  double sl = fmin(ul - cl, ur - cr), sr = fmax(ul + cl, ur + cr);
  double fl[3] = {rl * ul, rl * ul * ul + pl, (el + pl) * ul}, fr[3] = {rr * ur, rr * ur * ur + pr, (er + pr) * ur};
  double qlv[3] = {rl, rl * ul, el}, qrv[3] = {rr, rr * ur, er};
  for (int k = 0; k < 3; k++) {
    double f;
    if (sl >= 0) f = fl[k];
    else if (sr <= 0) f = fr[k];
    else f = (sr * fl[k] - sl * fr[k] + sl * sr * (qrv[k] - qlv[k])) / (sr - sl);
    flux[3 * i + k] = f;
  }
}

// quaternion rotation and composition
struct Q { float w, x, y, z; };
__device__ Q qmul(Q a, Q b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
extern "C" __global__ void quat(float4 *out, const float4 *q, const float4 *v, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Q a = {q[i].w, q[i].x, q[i].y, q[i].z}, p = {0, v[i].x, v[i].y, v[i].z};
  Q r = qmul(qmul(a, p), Q{a.w, -a.x, -a.y, -a.z});
  Q spin = qmul(Q{0, 0.5f * dt * v[i].x, 0.5f * dt * v[i].y, 0.5f * dt * v[i].z}, a);
  float nw = a.w + spin.w, nx = a.x + spin.x, ny = a.y + spin.y, nz = a.z + spin.z;
  float inv = rsqrtf(nw * nw + nx * nx + ny * ny + nz * nz);
  out[2 * i] = make_float4(r.x, r.y, r.z, r.w);
  out[2 * i + 1] = make_float4(nx * inv, ny * inv, nz * inv, nw * inv);
}

// 4x4 matrix inverse by cofactors (many products used twice)
extern "C" __global__ void inv4(double *m, int count) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  double *a = m + 16 * t, s[6], c[6];
  s[0] = a[0] * a[5] - a[4] * a[1]; s[1] = a[0] * a[6] - a[4] * a[2]; s[2] = a[0] * a[7] - a[4] * a[3];
  s[3] = a[1] * a[6] - a[5] * a[2]; s[4] = a[1] * a[7] - a[5] * a[3]; s[5] = a[2] * a[7] - a[6] * a[3];
  c[5] = a[10] * a[15] - a[14] * a[11]; c[4] = a[9] * a[15] - a[13] * a[11]; c[3] = a[9] * a[14] - a[13] * a[10];
  c[2] = a[8] * a[15] - a[12] * a[11]; c[1] = a[8] * a[14] - a[12] * a[10]; c[0] = a[8] * a[13] - a[12] * a[9];
  double det = s[0] * c[5] - s[1] * c[4] + s[2] * c[3] + s[3] * c[2] - s[4] * c[1] + s[5] * c[0], id = 1.0 / det;
  double b[16];
  b[0] = (a[5] * c[5] - a[6] * c[4] + a[7] * c[3]) * id;
  b[1] = (-a[1] * c[5] + a[2] * c[4] - a[3] * c[3]) * id;
  b[2] = (a[13] * s[5] - a[14] * s[4] + a[15] * s[3]) * id;
  b[3] = (-a[9] * s[5] + a[10] * s[4] - a[11] * s[3]) * id;
  b[4] = (-a[4] * c[5] + a[6] * c[2] - a[7] * c[1]) * id;
  b[5] = (a[0] * c[5] - a[2] * c[2] + a[3] * c[1]) * id;
  b[6] = (-a[12] * s[5] + a[14] * s[2] - a[15] * s[1]) * id;
  b[7] = (a[8] * s[5] - a[10] * s[2] + a[11] * s[1]) * id;
  b[8] = (a[4] * c[4] - a[5] * c[2] + a[7] * c[0]) * id;
  b[9] = (-a[0] * c[4] + a[1] * c[2] - a[3] * c[0]) * id;
  b[10] = (a[12] * s[4] - a[13] * s[2] + a[15] * s[0]) * id;
  b[11] = (-a[8] * s[4] + a[9] * s[2] - a[11] * s[0]) * id;
  b[12] = (-a[4] * c[3] + a[5] * c[1] - a[6] * c[0]) * id;
  b[13] = (a[0] * c[3] - a[1] * c[1] + a[2] * c[0]) * id;
  b[14] = (-a[12] * s[3] + a[13] * s[1] - a[14] * s[0]) * id;
  b[15] = (a[8] * s[3] - a[9] * s[1] + a[10] * s[0]) * id;
  for (int k = 0; k < 16; k++) a[k] = b[k];
}

// Verlet with a harmonic + quartic potential; shared products in energy and force
extern "C" __global__ void verlet(double *x, double *v, double *e, int n, int steps, double dt, double k2, double k4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double xi = x[i], vi = v[i], x2 = xi * xi, f = -k2 * xi - k4 * x2 * xi;
  for (int s = 0; s < steps; s++) {
    vi += 0.5 * dt * f;
    xi += dt * vi;
    x2 = xi * xi;
    f = -k2 * xi - k4 * x2 * xi;
    vi += 0.5 * dt * f;
  }
  x[i] = xi; v[i] = vi;
  e[i] = 0.5 * vi * vi + 0.5 * k2 * x2 + 0.25 * k4 * x2 * x2;
}

// Jacobi rotation for 2x2 symmetric eigenproblems
extern "C" __global__ void eig2(float *ev, const float3 *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = m[i].x, b = m[i].y, d = m[i].z;
  float tr = a + d, det = a * d - b * b, disc = sqrtf(fmaxf(0.f, 0.25f * tr * tr - det));
  float l1 = 0.5f * tr + disc, l2 = 0.5f * tr - disc;
  float theta = 0.5f * atan2f(2.f * b, a - d), c = cosf(theta), s = sinf(theta);
  ev[6 * i] = l1; ev[6 * i + 1] = l2;
  ev[6 * i + 2] = c * c * a + 2 * c * s * b + s * s * d;
  ev[6 * i + 3] = s * s * a - 2 * c * s * b + c * c * d;
  ev[6 * i + 4] = c; ev[6 * i + 5] = s;
}
