// advection — two small CFD codes in float. 1-D: the inviscid Burgers equation u_t + (u^2/2)_x = 0 on a periodic
// grid of 1024 cells by a MUSCL scheme (minmod-limited slopes, Rusanov fluxes), 600 steps, one thread per cell
// with the neighbourhood staged in shared memory. 2-D: a scalar blob carried around by a rotating velocity field
// on a 96 x 96 grid with second-order upwind differences and Heun's (RK2) time stepping, 120 steps.
#include "apps.h"

constexpr int NX = 1024, STEPS1 = 600, B1 = 128;
constexpr int G = 96, STEPS2 = 120;

__device__ inline float minmod(float a, float b) {
  return a * b <= 0.0f ? 0.0f : copysignf(fminf(fabsf(a), fabsf(b)), a);
}
__device__ inline float rusanov(float ul, float ur) {
  float a = fmaxf(fabsf(ul), fabsf(ur));
  return 0.25f * (ul * ul + ur * ur) - 0.5f * a * (ur - ul);
}

__global__ void burgers_step(const float *u, float *v, float dtdx) {
  __shared__ float s[B1 + 4];
  int i = blockIdx.x * B1 + threadIdx.x, t = threadIdx.x + 2;
  s[t] = u[i];
  if (threadIdx.x < 2) {
    s[threadIdx.x] = u[(i - 2 + NX) % NX];
    s[B1 + 2 + threadIdx.x] = u[(blockIdx.x * B1 + B1 + threadIdx.x) % NX];
  }
  __syncthreads();
  // Reconstructed states at the left (i-1/2) and right (i+1/2) faces.
  float sl = minmod(s[t - 1] - s[t - 2], s[t] - s[t - 1]);
  float sc = minmod(s[t] - s[t - 1], s[t + 1] - s[t]);
  float sr = minmod(s[t + 1] - s[t], s[t + 2] - s[t + 1]);
  float fl = rusanov(s[t - 1] + 0.5f * sl, s[t] - 0.5f * sc);
  float fr = rusanov(s[t] + 0.5f * sc, s[t + 1] - 0.5f * sr);
  v[i] = s[t] - dtdx * (fr - fl);
}

// du/dt for c carried by (vx, vy) = (-(y - c), x - c): second-order upwind, zero outside the grid.
__device__ inline float at(const float *c, int x, int y) {
  return (x < 0 || y < 0 || x >= G || y >= G) ? 0.0f : c[y * G + x];
}
__device__ inline float rate(const float *c, int x, int y, float h) {
  float vx = -((float)y - 0.5f * G) * h, vy = ((float)x - 0.5f * G) * h;
  float dx = vx > 0 ? 3.0f * at(c, x, y) - 4.0f * at(c, x - 1, y) + at(c, x - 2, y)
                    : -3.0f * at(c, x, y) + 4.0f * at(c, x + 1, y) - at(c, x + 2, y);
  float dy = vy > 0 ? 3.0f * at(c, x, y) - 4.0f * at(c, x, y - 1) + at(c, x, y - 2)
                    : -3.0f * at(c, x, y) + 4.0f * at(c, x, y + 1) - at(c, x, y + 2);
  return -(vx * dx + vy * dy) / (2.0f * h);
}

__global__ void heun_predict(const float *c, float *p, float dt, float h) {
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  p[y * G + x] = c[y * G + x] + dt * rate(c, x, y, h);
}
__global__ void heun_correct(const float *c, const float *p, float *out, float dt, float h) {
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  out[y * G + x] = 0.5f * (c[y * G + x] + p[y * G + x] + dt * rate(p, x, y, h));
}

int main() {
  begin();
  Lcg rng(8);
  std::vector<float> u(NX);
  for (int i = 0; i < NX; i++) u[i] = 0.5f + sinf(2.0f * 3.14159265f * i / NX) + 0.0625f * rng.sym();
  double mass0 = 0;
  for (float e : u) mass0 += e;
  float *a = to_device(u), *b = to_device(u);
  for (int s = 0; s < STEPS1; s++) {
    burgers_step<<<NX / B1, B1>>>(a, b, 0.25f);
    LAUNCHED();
    std::swap(a, b);
  }
  u = to_host(a, NX);
  report("burgers u", u);
  double mass1 = 0;
  float lo = u[0], hi = u[0];
  for (float e : u) {
    mass1 += e;
    lo = fminf(lo, e);
    hi = fmaxf(hi, e);
  }
  check(fabs(mass1 - mass0) < 1e-2, "Burgers: mass conserved");
  check(lo > -0.7f && hi < 1.7f, "Burgers: no new extrema (TVD)");

  std::vector<float> c(G * G);
  for (int y = 0; y < G; y++)
    for (int x = 0; x < G; x++) {
      float dx = (float)(x - 64), dy = (float)(y - 48);
      c[y * G + x] = dx * dx + dy * dy < 100.0f ? 1.0f - 0.25f * rng.unit() : 0.0f;
    }
  float *c0 = to_device(c), *c1 = to_device(c), *p = to_device(c);
  float h = 1.0f / G, dt = 0.4f * h;
  dim3 grid(G / 16, G / 16), block(16, 16);
  for (int s = 0; s < STEPS2; s++) {
    heun_predict<<<grid, block>>>(c0, p, dt, h);
    heun_correct<<<grid, block>>>(c0, p, c1, dt, h);
    LAUNCHED();
    std::swap(c0, c1);
  }
  std::vector<float> cf = to_host(c0, G * G);
  report("rotated blob", cf);
  double m0 = 0, m1 = 0;
  for (int i = 0; i < G * G; i++) {
    m0 += c[i];
    m1 += cf[i];
  }
  check(fabs(m1 - m0) < 0.05 * m0, "2-D advection: mass within 5%%");
  return finish("advection");
}
