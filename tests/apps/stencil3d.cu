// stencil3d — diffusion with a variable coefficient on a 32^3 box in double precision: a 7-point stencil
// written plainly (one thread per point) and as a 2.5-D sweep (a 2-D block marches along z keeping the column
// below, at and above in registers and the current plane in shared memory), 60 steps each, ping-ponging.
// u' = u + k * (sum of neighbours - 6u) contracts into FMAs.
#include "apps.h"

constexpr int N = 32, P = N + 2;  // interior and padded sides
constexpr int STEPS = 60;
constexpr int BX = 16, BY = 8;

__device__ __host__ inline int at(int x, int y, int z) { return (z * P + y) * P + x; }

__global__ void step_plain(const double *u, const double *k, double *v) {
  int x = blockIdx.x * BX + threadIdx.x + 1, y = blockIdx.y * BY + threadIdx.y + 1, z = blockIdx.z + 1;
  int i = at(x, y, z);
  double c = u[i];
  double s = u[i - 1] + u[i + 1] + u[i - P] + u[i + P] + u[i - P * P] + u[i + P * P];
  v[i] = c + k[i] * (s - 6.0 * c);
}

__global__ void step_sweep(const double *u, const double *k, double *v) {
  __shared__ double plane[BY + 2][BX + 2];
  int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  int x = blockIdx.x * BX + tx, y = blockIdx.y * BY + ty;
  double below = u[at(x, y, 0)], here = u[at(x, y, 1)], above;
  for (int z = 1; z <= N; z++) {
    above = u[at(x, y, z + 1)];
    __syncthreads();
    plane[ty][tx] = here;
    if (tx == 1) plane[ty][0] = u[at(x - 1, y, z)];
    if (tx == BX) plane[ty][BX + 1] = u[at(x + 1, y, z)];
    if (ty == 1) plane[0][tx] = u[at(x, y - 1, z)];
    if (ty == BY) plane[BY + 1][tx] = u[at(x, y + 1, z)];
    __syncthreads();
    double s = plane[ty][tx - 1] + plane[ty][tx + 1] + plane[ty - 1][tx] + plane[ty + 1][tx] + below + above;
    v[at(x, y, z)] = here + k[at(x, y, z)] * (s - 6.0 * here);
    below = here;
    here = above;
  }
}

int main() {
  begin();
  Lcg rng(77);
  std::vector<double> u0(P * P * P, 0.0), kap(P * P * P, 0.0);
  for (int z = 0; z < P; z++)
    for (int y = 0; y < P; y++)
      for (int x = 0; x < P; x++) {
        bool edge = x == 0 || y == 0 || z == 0 || x == P - 1 || y == P - 1 || z == P - 1;
        u0[at(x, y, z)] = edge ? (z == 0 ? 1.0 : 0.0) : rng.unit();
        kap[at(x, y, z)] = 0.05 + 0.1 * rng.unit();  // stable: k < 1/6
      }
  double *k = to_device(kap);
  std::vector<double> results[2];
  for (int variant = 0; variant < 2; variant++) {
    double *a = to_device(u0), *b = to_device(u0);
    for (int s = 0; s < STEPS; s++) {
      if (variant == 0)
        step_plain<<<dim3(N / BX, N / BY, N), dim3(BX, BY)>>>(a, k, b);
      else
        step_sweep<<<dim3(N / BX, N / BY), dim3(BX, BY)>>>(a, k, b);
      LAUNCHED();
      std::swap(a, b);
    }
    results[variant] = to_host(a, u0.size());
    std::vector<double> inner;  // the interior points, z-major
    for (int z = 1; z <= N; z++)
      for (int y = 1; y <= N; y++)
        for (int x = 1; x <= N; x++) inner.push_back(results[variant][at(x, y, z)]);
    report(variant ? "sweep u" : "plain u", inner);
    TRY(cudaFree(a));
    TRY(cudaFree(b));
  }
  // The host's reference, without contraction.
  std::vector<double> h = u0, g = u0;
  for (int s = 0; s < STEPS; s++) {
    for (int z = 1; z <= N; z++)
      for (int y = 1; y <= N; y++)
        for (int x = 1; x <= N; x++) {
          int i = at(x, y, z);
          double sum = h[i - 1] + h[i + 1] + h[i - P] + h[i + P] + h[i - P * P] + h[i + P * P];
          g[i] = h[i] + kap[i] * (sum - 6.0 * h[i]);
        }
    h.swap(g);
  }
  check(max_rel_err(results[0].data(), h.data(), h.size(), 1e-6) < 1e-12, "plain stencil close to the host's");
  check(results[0] == results[1], "the 2.5-D sweep gives the same bits as the plain stencil");
  TRY(cudaFree(k));
  return finish("stencil3d");
}
