// wmma_gemm — D = A B + C on the tensor cores through nvcuda::wmma, one warp per output tile, the way the CUDA
// Programming Guide's WMMA examples write it, over every fragment shape and element type of sm_80/sm_90: f16
// (m16n16k16, m32n8k16, m8n32k16; f32 and f16 accumulators), bf16, tf32 (with __float_to_tf32 on the loaded
// fragments), s8/u8 into s32, and f64 m8n8k4; row- and column-major A, B and C. Tensor-core sums are not IEEE
// sums: the bits depend on how the hardware adds the products, so every result is printed bit for bit.
#include "apps.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// A (M x K), B (K x N), C and D (M x N), each stored row- or column-major as LA, LB, LC say. One warp per WM x WN
// tile of D; blocks of 4 warps.
template <int WM, int WN, int WK, class FA, class FB, class TA, class TB, class TC, class LA, class LB, bool TF32>
__global__ void wmma_gemm(const TA *a, const TB *b, const TC *c, TC *d, int M, int N, int K, wmma::layout_t lc) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int tiles_n = N / WN, tm = warp / tiles_n, tn = warp % tiles_n;
  if (tm >= M / WM) return;
  bool arow = std::is_same<LA, wmma::row_major>::value, brow = std::is_same<LB, wmma::row_major>::value;
  wmma::fragment<wmma::matrix_a, WM, WN, WK, FA, LA> fa;
  wmma::fragment<wmma::matrix_b, WM, WN, WK, FB, LB> fb;
  wmma::fragment<wmma::accumulator, WM, WN, WK, TC> acc;
  int m0 = tm * WM, n0 = tn * WN;
  const TC *cp = lc == wmma::mem_row_major ? c + m0 * N + n0 : c + n0 * M + m0;
  wmma::load_matrix_sync(acc, cp, lc == wmma::mem_row_major ? N : M, lc);
  for (int k0 = 0; k0 < K; k0 += WK) {
    wmma::load_matrix_sync(fa, arow ? a + m0 * K + k0 : a + k0 * M + m0, arow ? K : M);
    wmma::load_matrix_sync(fb, brow ? b + k0 * N + n0 : b + n0 * K + k0, brow ? N : K);
    if constexpr (TF32) {
      for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
      for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    }
    wmma::mma_sync(acc, fa, fb, acc);
  }
  TC *dp = lc == wmma::mem_row_major ? d + m0 * N + n0 : d + n0 * M + m0;
  wmma::store_matrix_sync(dp, acc, lc == wmma::mem_row_major ? N : M, lc);
}

// Host values: random magnitudes over a few binades, so that products of different sizes meet in one sum.
static double value(Lcg &rng, int spread) {
  int e = (int)(rng.u32() % (2 * spread + 1)) - spread;
  return ldexp((double)rng.sym(), e);
}

template <class T> static T conv(double x);
template <> __half conv<__half>(double x) { return __float2half((float)x); }
template <> __nv_bfloat16 conv<__nv_bfloat16>(double x) { return __float2bfloat16((float)x); }
template <> float conv<float>(double x) { return (float)x; }
template <> double conv<double>(double x) { return x; }
template <> signed char conv<signed char>(double x) { return (signed char)(int)x; }
template <> unsigned char conv<unsigned char>(double x) { return (unsigned char)(int)x; }
template <> int conv<int>(double x) { return (int)x; }
template <class T> static double back(T x) { return (double)x; }
template <> double back<__half>(__half x) { return (double)__half2float(x); }
template <> double back<__nv_bfloat16>(__nv_bfloat16 x) { return (double)__bfloat162float(x); }

// The bits of a result, for report(): halves as their 16-bit patterns.
template <class T> static std::vector<T> bits(const std::vector<T> &v) { return v; }
static std::vector<unsigned> bits(const std::vector<__half> &v) {
  std::vector<unsigned> r;
  for (__half h : v) r.push_back(__half_as_ushort(h));
  return r;
}

// Stores the logical rows x cols matrix m (row-major) row- or column-major.
template <class T> static std::vector<T> store(const std::vector<T> &m, int rows, int cols, bool row_major) {
  if (row_major) return m;
  std::vector<T> r(m.size());
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) r[j * rows + i] = m[i * cols + j];
  return r;
}

template <int WM, int WN, int WK, class FA, class FB, class TA, class TB, class TC, class LA, class LB, bool TF32 = false>
static void run(const char *what, int M, int N, int K, bool c_row, Lcg &rng, int spread, bool ints = false) {
  std::vector<TA> a(M * K);
  std::vector<TB> b(K * N);
  std::vector<TC> c(M * N);
  for (TA &x : a) x = conv<TA>(ints ? (double)(int)(rng.u32() % 256) - (std::is_unsigned<TA>::value ? 0 : 128) : value(rng, spread));
  for (TB &x : b) x = conv<TB>(ints ? (double)(int)(rng.u32() % 256) - (std::is_unsigned<TB>::value ? 0 : 128) : value(rng, spread));
  for (TC &x : c) x = conv<TC>(ints ? (double)(int)(rng.u32() % 2001) - 1000 : value(rng, spread));
  bool arow = std::is_same<LA, wmma::row_major>::value, brow = std::is_same<LB, wmma::row_major>::value;
  TA *da = to_device(store(a, M, K, arow));
  TB *db = to_device(store(b, K, N, brow));
  TC *dc = to_device(store(c, M, N, c_row));
  TC *dd = to_device(std::vector<TC>(M * N));
  int warps = (M / WM) * (N / WN);
  wmma_gemm<WM, WN, WK, FA, FB, TA, TB, TC, LA, LB, TF32><<<(warps + 3) / 4, 128>>>(
      da, db, dc, dd, M, N, K, c_row ? wmma::mem_row_major : wmma::mem_col_major);
  LAUNCHED();
  std::vector<TC> d = store(to_host(dd, M * N), N, M, c_row);  // back to logical row-major
  report(what, bits(d));
  // close to the exact product of the inputs: |d - exact| relative to the sum of the magnitudes that went into
  // it (tf32 rounds the inputs on the device, to 11 significant bits; an f16 accumulator rounds each step)
  double err = gemm_error(
      M, N, K, [&](int i, int k) { return back(a[i * K + k]); }, [&](int k, int j) { return back(b[k * N + j]); },
      [&](int i, int j) { return back(c[i * N + j]); }, [&](int i, int j) { return back(d[i * N + j]); }, true);
  double tol = ints ? 0 : std::is_same<TC, __half>::value ? 4e-3 : TF32 ? 2e-3 : 1e-5;
  check(err <= tol, "%s close to the exact product (max error %.3g of the magnitudes)", what, err);
  TRY(cudaFree(da));
  TRY(cudaFree(db));
  TRY(cudaFree(dc));
  TRY(cudaFree(dd));
}

int main() {
  begin();
  Lcg rng(2026);
  using R = wmma::row_major;
  using C = wmma::col_major;
  run<16, 16, 16, half, half, __half, __half, float, R, C>("f16 m16n16k16 row.col f32", 64, 48, 64, true, rng, 6);
  run<16, 16, 16, half, half, __half, __half, float, C, R>("f16 m16n16k16 col.row f32 C col", 48, 32, 96, false, rng, 6);
  run<32, 8, 16, half, half, __half, __half, float, R, R>("f16 m32n8k16 row.row f32", 64, 32, 48, true, rng, 8);
  run<8, 32, 16, half, half, __half, __half, float, C, C>("f16 m8n32k16 col.col f32", 32, 64, 48, true, rng, 8);
  run<16, 16, 16, half, half, __half, __half, __half, R, C>("f16 m16n16k16 row.col f16", 32, 32, 64, true, rng, 3);
  run<32, 8, 16, half, half, __half, __half, __half, C, R>("f16 m32n8k16 col.row f16 C col", 32, 16, 32, false, rng, 3);
  run<16, 16, 16, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, R, C>("bf16 m16n16k16 row.col f32", 48, 48, 64, true, rng, 10);
  run<8, 32, 16, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, R, R>("bf16 m8n32k16 row.row f32", 16, 64, 32, true, rng, 10);
  run<16, 16, 8, wmma::precision::tf32, wmma::precision::tf32, float, float, float, R, C, true>("tf32 m16n16k8 row.col f32", 48, 32, 64, true, rng, 12);
  run<16, 16, 16, signed char, signed char, signed char, signed char, int, R, C>("s8 m16n16k16 row.col s32", 64, 32, 128, true, rng, 0, true);
  run<32, 8, 16, unsigned char, unsigned char, unsigned char, unsigned char, int, R, C>("u8 m32n8k16 row.col s32", 32, 16, 64, true, rng, 0, true);
  run<8, 8, 4, double, double, double, double, double, R, C>("f64 m8n8k4 row.col f64", 32, 24, 40, true, rng, 20);
  run<8, 8, 4, double, double, double, double, double, C, R>("f64 m8n8k4 col.row f64 C col", 16, 16, 16, false, rng, 20);
  return finish("wmma_gemm");
}
