// nbody — gravitational N-body in float, written the way the classic GPU code is: positions and masses in
// float4, all-pairs forces over tiles of bodies staged in shared memory, softening and rsqrtf, then a
// leapfrog (kick-drift) update. 512 bodies, 12 steps; the total energy computed by the host at the start
// and the end.
#include "apps.h"

constexpr int N = 512, TILE = 128, STEPS = 12;
constexpr float EPS2 = 0.01f, DT = 0.005f;

__device__ inline float3 interact(float4 bi, float4 bj, float3 a) {
  float3 r = {bj.x - bi.x, bj.y - bi.y, bj.z - bi.z};
  float d2 = r.x * r.x + r.y * r.y + r.z * r.z + EPS2;
  float inv = rsqrtf(d2);
  float s = bj.w * inv * inv * inv;
  a.x += r.x * s;
  a.y += r.y * s;
  a.z += r.z * s;
  return a;
}

__global__ void forces(const float4 *pos, float3 *acc) {
  __shared__ float4 tile[TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = pos[i];
  float3 a = {0.0f, 0.0f, 0.0f};
  for (int t = 0; t < N / TILE; t++) {
    tile[threadIdx.x] = pos[t * TILE + threadIdx.x];
    __syncthreads();
#pragma unroll 4
    for (int j = 0; j < TILE; j++) a = interact(me, tile[j], a);
    __syncthreads();
  }
  acc[i] = a;
}

__global__ void leapfrog(float4 *pos, float3 *vel, const float3 *acc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float3 v = vel[i], a = acc[i];
  v.x += a.x * DT;
  v.y += a.y * DT;
  v.z += a.z * DT;
  float4 p = pos[i];
  p.x += v.x * DT;
  p.y += v.y * DT;
  p.z += v.z * DT;
  vel[i] = v;
  pos[i] = p;
}

static double energy(const std::vector<float4> &p, const std::vector<float3> &v) {
  double e = 0;
  for (int i = 0; i < N; i++) {
    e += 0.5 * p[i].w * ((double)v[i].x * v[i].x + (double)v[i].y * v[i].y + (double)v[i].z * v[i].z);
    for (int j = i + 1; j < N; j++) {
      double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y, dz = p[j].z - p[i].z;
      e -= (double)p[i].w * p[j].w / sqrt(dx * dx + dy * dy + dz * dz + EPS2);
    }
  }
  return e;
}

int main() {
  begin();
  Lcg rng(1234);
  std::vector<float4> p(N);
  std::vector<float3> v(N);
  for (int i = 0; i < N; i++) {
    p[i] = {rng.sym(), rng.sym(), 0.25f * rng.sym(), (1.0f + rng.unit()) / N};
    v[i] = {-0.5f * p[i].y, 0.5f * p[i].x, 0.0f};  // a slowly rotating disc
  }
  double e0 = energy(p, v);
  float4 *dp = to_device(p);
  float3 *dv = to_device(v), *da;
  TRY(cudaMalloc(&da, N * sizeof(float3)));
  for (int s = 1; s <= STEPS; s++) {
    forces<<<N / TILE, TILE>>>(dp, da);
    leapfrog<<<N / TILE, TILE>>>(dp, dv, da);
    LAUNCHED();
    if (s == 1) report("acceleration at step 1", (const float *)to_host(da, N).data(), 3 * N);
  }
  p = to_host(dp, N);
  v = to_host(dv, N);
  report("positions", (const float *)p.data(), 4 * N);
  report("velocities", (const float *)v.data(), 3 * N);
  double e1 = energy(p, v);
  check(fabs(e1 - e0) < 1e-3 * fabs(e0), "energy conserved to 0.1%%");
  return finish("nbody");
}
