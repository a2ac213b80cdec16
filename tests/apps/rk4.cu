// rk4 — classical Runge-Kutta on many independent systems, one thread each: 512 Lorenz systems in float
// (chaotic: a difference in the last bit of any step grows until it shows in the printed state) and 256 damped,
// driven pendulums in double (sin and cos of the library). Each thread integrates 1500 steps in registers and
// writes its state every 500.
#include "apps.h"

constexpr int NL = 512, NP = 256, STEPS = 1500, EVERY = 500, SNAPS = STEPS / EVERY;

struct V3 {
  float x, y, z;
};
__device__ inline V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
__device__ inline V3 operator*(float s, V3 a) { return {s * a.x, s * a.y, s * a.z}; }

__device__ inline V3 lorenz(V3 p, float sigma, float rho, float beta) {
  return {sigma * (p.y - p.x), p.x * (rho - p.z) - p.y, p.x * p.y - beta * p.z};
}

__global__ void integrate_lorenz(const float *init, float *out, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= NL) return;
  V3 p = {init[3 * i], init[3 * i + 1], init[3 * i + 2]};
  float sigma = 10.0f, rho = 24.0f + (float)(i % 16) * 0.5f, beta = 8.0f / 3.0f;
  for (int s = 1; s <= STEPS; s++) {
    V3 k1 = lorenz(p, sigma, rho, beta);
    V3 k2 = lorenz(p + (0.5f * dt) * k1, sigma, rho, beta);
    V3 k3 = lorenz(p + (0.5f * dt) * k2, sigma, rho, beta);
    V3 k4 = lorenz(p + dt * k3, sigma, rho, beta);
    p = p + (dt / 6.0f) * (k1 + 2.0f * k2 + 2.0f * k3 + k4);
    if (s % EVERY == 0) {
      float *o = out + ((s / EVERY - 1) * NL + i) * 3;
      o[0] = p.x;
      o[1] = p.y;
      o[2] = p.z;
    }
  }
}

// theta'' = -g/l sin(theta) - c theta' + A cos(w t)
__device__ inline void pendulum(double t, double th, double om, double c, double amp, double &dth, double &dom) {
  dth = om;
  dom = -9.81 * sin(th) - c * om + amp * cos(2.0 / 3.0 * t);
}

__global__ void integrate_pendulum(const double *init, double *out, double dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= NP) return;
  double th = init[2 * i], om = init[2 * i + 1], c = 0.5, amp = 1.0 + 0.01 * i, t = 0;
  for (int s = 1; s <= STEPS; s++) {
    double a1, b1, a2, b2, a3, b3, a4, b4;
    pendulum(t, th, om, c, amp, a1, b1);
    pendulum(t + 0.5 * dt, th + 0.5 * dt * a1, om + 0.5 * dt * b1, c, amp, a2, b2);
    pendulum(t + 0.5 * dt, th + 0.5 * dt * a2, om + 0.5 * dt * b2, c, amp, a3, b3);
    pendulum(t + dt, th + dt * a3, om + dt * b3, c, amp, a4, b4);
    th += dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
    om += dt / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4);
    t = s * dt;
    if (s % EVERY == 0) {
      out[((s / EVERY - 1) * NP + i) * 2] = th;
      out[((s / EVERY - 1) * NP + i) * 2 + 1] = om;
    }
  }
}

int main() {
  begin();
  Lcg rng(42);
  std::vector<float> li(3 * NL);
  for (int i = 0; i < NL; i++) {
    li[3 * i] = 1.0f + rng.sym();
    li[3 * i + 1] = 1.0f + rng.sym();
    li[3 * i + 2] = 20.0f + 4.0f * rng.sym();
  }
  std::vector<double> pi(2 * NP);
  for (double &e : pi) e = rng.sym();

  float *dli = to_device(li), *dlo;
  double *dpi = to_device(pi), *dpo;
  TRY(cudaMalloc(&dlo, SNAPS * NL * 3 * sizeof(float)));
  TRY(cudaMalloc(&dpo, SNAPS * NP * 2 * sizeof(double)));
  integrate_lorenz<<<NL / 128, 128>>>(dli, dlo, 0.004f);
  integrate_pendulum<<<NP / 64, 64>>>(dpi, dpo, 0.01);
  LAUNCHED();
  std::vector<float> lo = to_host(dlo, SNAPS * NL * 3);
  std::vector<double> po = to_host(dpo, SNAPS * NP * 2);
  for (int s = 0; s < SNAPS; s++) {
    char what[64];
    snprintf(what, sizeof what, "lorenz step %d", (s + 1) * EVERY);
    report(what, lo.data() + s * NL * 3, NL * 3);
    snprintf(what, sizeof what, "pendulum step %d", (s + 1) * EVERY);
    report(what, po.data() + s * NP * 2, NP * 2);
  }
  // Sanity: the Lorenz states stay on the attractor, the pendulums stay bounded.
  bool on = true;
  for (size_t i = 0; i < lo.size(); i += 3)
    on = on && fabsf(lo[i]) < 30 && fabsf(lo[i + 1]) < 40 && lo[i + 2] > 0 && lo[i + 2] < 60;
  check(on, "every Lorenz state is on the attractor");
  bool bounded = true;
  for (size_t i = 1; i < po.size(); i += 2) bounded = bounded && fabs(po[i]) < 20;
  check(bounded, "every pendulum's angular velocity is bounded");
  return finish("rk4");
}
