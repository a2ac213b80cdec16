// matmul — C = alpha A B + beta C in float and double with the textbook shared-memory tiling (16 x 16 tiles of
// A and B, bounds checks for sizes that are not multiples of the tile), and a register-blocked float kernel
// (64 x 64 block tile, each thread accumulating a 4 x 4 micro-tile). M = 100, N = 84, K = 120.
#include "apps.h"

constexpr int M = 100, N = 84, K = 120, T = 16;

template <class R> __global__ void gemm_tiled(const R *a, const R *b, R *c, R alpha, R beta) {
  __shared__ R as[T][T], bs[T][T];
  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  R acc = 0;
  for (int k0 = 0; k0 < K; k0 += T) {
    as[threadIdx.y][threadIdx.x] = row < M && k0 + threadIdx.x < K ? a[row * K + k0 + threadIdx.x] : R(0);
    bs[threadIdx.y][threadIdx.x] = col < N && k0 + threadIdx.y < K ? b[(k0 + threadIdx.y) * N + col] : R(0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; k++) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) c[row * N + col] = alpha * acc + beta * c[row * N + col];
}

// 64 x 64 tile of C per block of 16 x 16 threads; thread (ty, tx) owns rows ty + 16i, columns tx + 16j.
constexpr int BT = 64, KT = 8;
__global__ void gemm_regblock(const float *a, const float *b, float *c, float alpha, float beta) {
  __shared__ float as[KT][BT], bs[KT][BT];
  int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
  int r0 = blockIdx.y * BT, c0 = blockIdx.x * BT;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += KT) {
    for (int e = t; e < KT * BT; e += 256) {  // A tile transposed into as[k][m], B tile into bs[k][n]
      int kk = e / BT, mm = e % BT;
      as[kk][mm] = r0 + mm < M && k0 + kk < K ? a[(r0 + mm) * K + k0 + kk] : 0.0f;
      bs[kk][mm] = c0 + mm < N && k0 + kk < K ? b[(k0 + kk) * N + c0 + mm] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < KT; k++) {
      float ra[4], rb[4];
      for (int i = 0; i < 4; i++) ra[i] = as[k][ty + 16 * i];
      for (int j = 0; j < 4; j++) rb[j] = bs[k][tx + 16 * j];
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      int r = r0 + ty + 16 * i, cc = c0 + tx + 16 * j;
      if (r < M && cc < N) c[r * N + cc] = alpha * acc[i][j] + beta * c[r * N + cc];
    }
}

template <class R> static std::vector<R> run_tiled(const std::vector<double> &a, const std::vector<double> &b,
                                                   const std::vector<double> &c, R alpha, R beta) {
  R *da = to_device(std::vector<R>(a.begin(), a.end())), *db = to_device(std::vector<R>(b.begin(), b.end()));
  R *dc = to_device(std::vector<R>(c.begin(), c.end()));
  gemm_tiled<R><<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(da, db, dc, alpha, beta);
  LAUNCHED();
  std::vector<R> r = to_host(dc, M * N);
  TRY(cudaFree(da));
  TRY(cudaFree(db));
  TRY(cudaFree(dc));
  return r;
}

int main() {
  begin();
  Lcg rng(555);
  std::vector<double> a(M * K), b(K * N), c(M * N), ref(M * N);
  for (double &e : a) e = rng.sym();
  for (double &e : b) e = rng.sym();
  for (double &e : c) e = rng.sym();
  const double alpha = 1.5, beta = -0.75;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < K; k++) s += a[i * K + k] * b[k * N + j];
      ref[i * N + j] = alpha * s + beta * c[i * N + j];
    }
  std::vector<float> cf = run_tiled<float>(a, b, c, 1.5f, -0.75f);
  std::vector<double> cd = run_tiled<double>(a, b, c, alpha, beta);

  float *da = to_device(std::vector<float>(a.begin(), a.end()));
  float *db = to_device(std::vector<float>(b.begin(), b.end()));
  float *dc = to_device(std::vector<float>(c.begin(), c.end()));
  gemm_regblock<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(16, 16)>>>(da, db, dc, 1.5f, -0.75f);
  LAUNCHED();
  std::vector<float> cr = to_host(dc, M * N);

  report("sgemm (tiled)", cf);
  report("dgemm (tiled)", cd);
  report("sgemm (register-blocked)", cr);
  check(max_rel_err(cf.data(), ref.data(), ref.size(), 1.0) < 1e-5, "tiled sgemm close to the host's");
  check(max_rel_err(cd.data(), ref.data(), ref.size(), 1.0) < 1e-13, "tiled dgemm close to the host's");
  check(max_rel_err(cr.data(), ref.data(), ref.size(), 1.0) < 1e-5, "register-blocked sgemm close to the host's");
  return finish("matmul");
}
