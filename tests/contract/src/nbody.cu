// nbody.cu — particle and geometry kernels (contraction corpus).
#include <cuda_runtime.h>

// all-pairs gravity with shared-memory tiles, float4 positions (w = mass)
extern "C" __global__ void nbody_f(float4 *acc, const float4 *pos, int n, float eps2) {
  __shared__ float4 sh[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = i < n ? pos[i] : make_float4(0, 0, 0, 0);
  float3 a = {0, 0, 0};
  for (int t = 0; t < n; t += blockDim.x) {
    sh[threadIdx.x] = t + threadIdx.x < n ? pos[t + threadIdx.x] : make_float4(0, 0, 0, 0);
    __syncthreads();
    for (int j = 0; j < blockDim.x; j++) {
      float4 q = sh[j];
      float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
      float d2 = dx * dx + dy * dy + dz * dz + eps2;
      float inv = rsqrtf(d2);
      float s = q.w * inv * inv * inv;
      a.x += dx * s; a.y += dy * s; a.z += dz * s;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = make_float4(a.x, a.y, a.z, 0);
}

// double precision, with the potential energy, no tiling
extern "C" __global__ void nbody_d(double *acc, double *pot, const double *pos, const double *m, int n, double eps2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double px = pos[3 * i], py = pos[3 * i + 1], pz = pos[3 * i + 2];
  double ax = 0, ay = 0, az = 0, e = 0;
  for (int j = 0; j < n; j++) {
    if (j == i) continue;
    double dx = pos[3 * j] - px, dy = pos[3 * j + 1] - py, dz = pos[3 * j + 2] - pz;
    double r2 = dx * dx + dy * dy + dz * dz + eps2;
    double r = sqrt(r2), ir = 1.0 / r, ir3 = ir * ir * ir;
    ax += m[j] * dx * ir3; ay += m[j] * dy * ir3; az += m[j] * dz * ir3;
    e -= m[j] * ir;
  }
  acc[3 * i] = ax; acc[3 * i + 1] = ay; acc[3 * i + 2] = az;
  pot[i] = 0.5 * m[i] * e;
}

// leapfrog integration step (kick-drift-kick)
extern "C" __global__ void leapfrog(float *x, float *v, const float *a, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float vh = v[i] + 0.5f * dt * a[i];
  x[i] = x[i] + dt * vh;
  v[i] = vh + 0.5f * dt * a[i];
}

// Lennard-Jones forces with a cutoff (branch between the products and their sums)
extern "C" __global__ void lj(float *f, const float *x, int n, float rc2, float sig2, float eps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xi = x[2 * i], yi = x[2 * i + 1], fx = 0, fy = 0;
  for (int j = 0; j < n; j++) {
    float dx = xi - x[2 * j], dy = yi - x[2 * j + 1];
    float r2 = dx * dx + dy * dy;
    if (r2 < rc2 && r2 > 0) {
      float s2 = sig2 / r2, s6 = s2 * s2 * s2;
      float ff = 24 * eps * (2 * s6 * s6 - s6) / r2;
      fx += ff * dx; fy += ff * dy;
    }
  }
  f[2 * i] = fx; f[2 * i + 1] = fy;
}

// ray-sphere intersections (geometry with shared subexpressions)
extern "C" __global__ void rays(float *t, const float3 *o, const float3 *d, const float4 *spheres, int nr, int ns) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nr) return;
  float3 ro = o[i], rd = d[i];
  float best = 1e30f;
  for (int s = 0; s < ns; s++) {
    float4 sp = spheres[s];
    float ox = ro.x - sp.x, oy = ro.y - sp.y, oz = ro.z - sp.z;
    float b = ox * rd.x + oy * rd.y + oz * rd.z;
    float c = ox * ox + oy * oy + oz * oz - sp.w * sp.w;
    float disc = b * b - c;
    if (disc > 0) {
      float q = sqrtf(disc), t0 = -b - q;
      if (t0 > 1e-4f && t0 < best) best = t0;
    }
  }
  t[i] = best;
}

// 3x3 rotation of vectors and cross products
extern "C" __global__ void rotate(float3 *v, const float *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 a = v[i];
  float3 b = {r[0] * a.x + r[1] * a.y + r[2] * a.z, r[3] * a.x + r[4] * a.y + r[5] * a.z, r[6] * a.x + r[7] * a.y + r[8] * a.z};
  float3 c = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
  v[i] = make_float3(b.x + c.x, b.y + c.y, b.z + c.z);
}
