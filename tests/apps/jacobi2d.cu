// jacobi2d — the heat equation on a square plate by Jacobi iteration: a 5-point stencil in global memory and
// the same stencil on shared-memory tiles with halos, ping-ponging two buffers for 200 steps, plus the
// residual's sum of squares (a block tree reduction, then one block over the partial sums).
// u' = u + r * (n + s + e + w - 4u): nvcc contracts it into FMAs, so the result shows the GPU's rounding.
#include "apps.h"

constexpr int N = 96;        // interior points per side
constexpr int P = N + 2;     // with the boundary
constexpr int STEPS = 200;
constexpr int T = 16;        // tile side
constexpr float R = 0.2f;

__global__ void step_global(const float *u, float *v) {
  int x = blockIdx.x * T + threadIdx.x + 1, y = blockIdx.y * T + threadIdx.y + 1;
  if (x > N || y > N) return;
  int i = y * P + x;
  float c = u[i];
  v[i] = c + R * (u[i - 1] + u[i + 1] + u[i - P] + u[i + P] - 4.0f * c);
}

__global__ void step_shared(const float *u, float *v) {
  __shared__ float t[T + 2][T + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * T + tx + 1, y = blockIdx.y * T + ty + 1;
  t[ty + 1][tx + 1] = u[y * P + x];
  if (tx == 0) t[ty + 1][0] = u[y * P + x - 1];
  if (tx == T - 1) t[ty + 1][T + 1] = u[y * P + x + 1];
  if (ty == 0) t[0][tx + 1] = u[(y - 1) * P + x];
  if (ty == T - 1) t[T + 1][tx + 1] = u[(y + 1) * P + x];
  __syncthreads();
  float c = t[ty + 1][tx + 1];
  v[y * P + x] = c + R * (t[ty + 1][tx] + t[ty + 1][tx + 2] + t[ty][tx + 1] + t[ty + 2][tx + 1] - 4.0f * c);
}

// Per block: the sum of squared residuals of its tile, by a shared-memory tree.
__global__ void residual(const float *u, float *partial) {
  __shared__ float s[T * T];
  int x = blockIdx.x * T + threadIdx.x + 1, y = blockIdx.y * T + threadIdx.y + 1;
  int i = y * P + x, t = threadIdx.y * T + threadIdx.x;
  float r = u[i - 1] + u[i + 1] + u[i - P] + u[i + P] - 4.0f * u[i];
  s[t] = r * r;
  __syncthreads();
  for (int w = T * T / 2; w > 0; w >>= 1) {
    if (t < w) s[t] += s[t + w];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.y * gridDim.x + blockIdx.x] = s[0];
}

__global__ void sum_partials(const float *partial, int n, float *out) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x < n ? partial[threadIdx.x] : 0.0f;
  __syncthreads();
  for (int w = 32; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = s[0];
}

static void host_steps(std::vector<float> &u, int steps) {
  std::vector<float> v = u;
  for (int k = 0; k < steps; k++) {
    for (int y = 1; y <= N; y++)
      for (int x = 1; x <= N; x++) {
        int i = y * P + x;
        v[i] = u[i] + R * (u[i - 1] + u[i + 1] + u[i - P] + u[i + P] - 4.0f * u[i]);
      }
    u.swap(v);
  }
}

int main() {
  begin();
  Lcg rng(2024);
  std::vector<float> u0(P * P, 0.0f);
  for (int i = 0; i < P; i++) {  // hot, noisy edges; a cold interior with a few warm spots
    u0[i] = 1.0f + 0.25f * rng.unit();
    u0[(P - 1) * P + i] = 0.5f * rng.unit();
    u0[i * P] = rng.unit();
    u0[i * P + P - 1] = 0.75f;
  }
  for (int k = 0; k < 40; k++) u0[(1 + rng.u32() % N) * P + 1 + rng.u32() % N] = 2.0f * rng.unit();

  dim3 grid(N / T, N / T), block(T, T);
  const int nb = grid.x * grid.y;
  std::vector<float> results[2];
  for (int variant = 0; variant < 2; variant++) {
    float *a = to_device(u0), *b = to_device(u0), *partial, *res;
    TRY(cudaMalloc(&partial, nb * sizeof(float)));
    TRY(cudaMalloc(&res, sizeof(float)));
    for (int k = 0; k < STEPS; k++) {
      if (variant == 0)
        step_global<<<grid, block>>>(a, b);
      else
        step_shared<<<grid, block>>>(a, b);
      LAUNCHED();
      std::swap(a, b);
      if ((k + 1) % 50 == 0) {
        residual<<<grid, block>>>(a, partial);
        sum_partials<<<1, 64>>>(partial, nb, res);
        LAUNCHED();
        float r;
        TRY(cudaMemcpy(&r, res, sizeof r, cudaMemcpyDeviceToHost));
        printf("%s step %d: residual^2 = %a\n", variant ? "shared" : "global", k + 1, (double)r);
      }
    }
    results[variant] = to_host(a, P * P);
    report(variant ? "shared u" : "global u", results[variant]);
    TRY(cudaFree(a));
    TRY(cudaFree(b));
    TRY(cudaFree(partial));
    TRY(cudaFree(res));
  }
  std::vector<float> h = u0;
  host_steps(h, STEPS);
  check(max_rel_err(results[0].data(), h.data(), h.size(), 1e-3) < 1e-4, "global stencil close to the host's");
  check(results[0] == results[1], "shared-memory tiles give the same bits as global memory");
  return finish("jacobi2d");
}
