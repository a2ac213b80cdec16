// cg — conjugate gradients on the 5-point Laplacian of a 32x32 grid (plus a small diagonal shift), in float,
// with the matrix in CSR: SpMV with one thread per row and with four lanes per row (shuffles of width 4); dot
// products by cub::BlockReduce per block and one block over the partial sums, the residual's norm by
// cub::DeviceReduce::Sum; alpha and beta stay on the device. 60 iterations; the residual every 10.
#include "apps.h"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>

constexpr int G = 32, N = G * G;
constexpr int ITERS = 60;
constexpr int TPB = 256, NB = N / TPB;
using BlockSum = cub::BlockReduce<float, TPB>;

__global__ void spmv_scalar(const int *rp, const int *ci, const float *v, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= N) return;
  float s = 0.0f;
  for (int j = rp[r]; j < rp[r + 1]; j++) s += v[j] * x[ci[j]];
  y[r] = s;
}

__global__ void spmv_vector4(const int *rp, const int *ci, const float *v, const float *x, float *y) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, r = t / 4, lane = t % 4;
  float s = 0.0f;
  if (r < N)
    for (int j = rp[r] + lane; j < rp[r + 1]; j += 4) s += v[j] * x[ci[j]];
  s += __shfl_down_sync(0xffffffffu, s, 2, 4);
  s += __shfl_down_sync(0xffffffffu, s, 1, 4);
  if (r < N && lane == 0) y[r] = s;
}

__global__ void dot_partial(const float *a, const float *b, float *partial) {
  __shared__ typename BlockSum::TempStorage tmp;
  int i = blockIdx.x * TPB + threadIdx.x;
  float s = BlockSum(tmp).Sum(a[i] * b[i]);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

__global__ void dot_finish(const float *partial, float *out) {
  __shared__ typename BlockSum::TempStorage tmp;
  float s = BlockSum(tmp).Sum(threadIdx.x < NB ? partial[threadIdx.x] : 0.0f);
  if (threadIdx.x == 0) *out = s;
}

// s[0] = r.r, s[1] = p.Ap, s[2] = new r.r; alpha = s[0] / s[1], beta = s[2] / s[0].
__global__ void update_xr(float *x, float *r, const float *p, const float *ap, const float *s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float alpha = s[0] / s[1];
  x[i] += alpha * p[i];
  r[i] -= alpha * ap[i];
}

__global__ void update_p(float *p, const float *r, float *s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float beta = s[2] / s[0];
  p[i] = r[i] + beta * p[i];
}

__global__ void roll(float *s) { s[0] = s[2]; }

__global__ void square(const float *r, float *sq) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sq[i] = r[i] * r[i];
}

static void dot(const float *a, const float *b, float *partial, float *out) {
  dot_partial<<<NB, TPB>>>(a, b, partial);
  dot_finish<<<1, TPB>>>(partial, out);
  LAUNCHED();
}

int main() {
  begin();
  std::vector<int> rp{0}, ci;
  std::vector<float> val;
  for (int y = 0; y < G; y++)
    for (int x = 0; x < G; x++) {
      const int nb[5][2] = {{x, y - 1}, {x - 1, y}, {x, y}, {x + 1, y}, {x, y + 1}};
      for (auto &q : nb) {
        if (q[0] < 0 || q[1] < 0 || q[0] >= G || q[1] >= G) continue;
        ci.push_back(q[1] * G + q[0]);
        val.push_back(q[0] == x && q[1] == y ? 4.0625f : -1.0f);
      }
      rp.push_back((int)ci.size());
    }
  Lcg rng(11);
  std::vector<float> b(N);
  for (float &e : b) e = rng.sym();

  int *d_rp = to_device(rp), *d_ci = to_device(ci);
  float *d_val = to_device(val), *r = to_device(b), *p = to_device(b);
  float *x = to_device(std::vector<float>(N, 0.0f)), *ap, *partial, *s, *sq, *norm;
  TRY(cudaMalloc(&ap, N * sizeof(float)));
  TRY(cudaMalloc(&sq, N * sizeof(float)));
  TRY(cudaMalloc(&partial, NB * sizeof(float)));
  TRY(cudaMalloc(&s, 3 * sizeof(float)));
  TRY(cudaMalloc(&norm, sizeof(float)));
  size_t tmp_bytes = 0;
  TRY(cub::DeviceReduce::Sum(nullptr, tmp_bytes, sq, norm, N));
  void *tmp;
  TRY(cudaMalloc(&tmp, tmp_bytes));

  dot(r, r, partial, s);
  for (int it = 1; it <= ITERS; it++) {
    spmv_vector4<<<4 * N / TPB, TPB>>>(d_rp, d_ci, d_val, p, ap);
    LAUNCHED();
    dot(p, ap, partial, s + 1);
    update_xr<<<NB, TPB>>>(x, r, p, ap, s);
    LAUNCHED();
    dot(r, r, partial, s + 2);
    update_p<<<NB, TPB>>>(p, r, s);
    roll<<<1, 1>>>(s);
    LAUNCHED();
    if (it % 10 == 0) {
      square<<<NB, TPB>>>(r, sq);
      LAUNCHED();
      TRY(cub::DeviceReduce::Sum(tmp, tmp_bytes, sq, norm, N));
      float rr[2];
      TRY(cudaMemcpy(rr, s, sizeof(float), cudaMemcpyDeviceToHost));
      TRY(cudaMemcpy(rr + 1, norm, sizeof(float), cudaMemcpyDeviceToHost));
      printf("iteration %d: r.r = %a (blocks), %a (DeviceReduce)\n", it, (double)rr[0], (double)rr[1]);
    }
  }
  std::vector<float> hx = to_host(x, N);
  report("x", hx);

  // A x by both SpMV kernels; the residual on the host.
  spmv_scalar<<<NB, TPB>>>(d_rp, d_ci, d_val, x, ap);
  LAUNCHED();
  std::vector<float> ax1 = to_host(ap, N);
  spmv_vector4<<<4 * N / TPB, TPB>>>(d_rp, d_ci, d_val, x, ap);
  LAUNCHED();
  std::vector<float> ax4 = to_host(ap, N);
  report("A x (thread per row)", ax1);
  report("A x (4 lanes per row)", ax4);
  double res = 0, bb = 0;
  for (int i = 0; i < N; i++) {
    double ax = 0;
    for (int j = rp[i]; j < rp[i + 1]; j++) ax += (double)val[j] * hx[ci[j]];
    res += (b[i] - ax) * (b[i] - ax);
    bb += (double)b[i] * b[i];
  }
  check(res < 1e-6 * bb, "|b - A x| < 1e-3 |b| after %d iterations", ITERS);
  check(max_rel_err(ax1.data(), ax4.data(), N, 1.0) < 1e-5, "both SpMV kernels agree");
  return finish("cg");
}
