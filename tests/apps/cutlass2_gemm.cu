// cutlass2_gemm — GEMMs the way most CUDA code gets its tensor cores: CUTLASS 2.x's `cutlass::gemm::device::Gemm`
// with its default sm_80 tensor-op configurations (128x256x64 or 128x128 block tiles, multistage cp.async
// pipelines, ldmatrix, mma.sync, the LinearCombination epilogue D = alpha A B + beta C): f16 and bf16 into f32
// (A row-major, B column-major), s8 into s32. CUTLASS's headers come
// from PyPI (nvidia-cutlass, installed by scripts/setup_python.sh); build.sh puts them on the include path.
#include "apps.h"

#include <cutlass/bfloat16.h>
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/half.h>

using RowMajor = cutlass::layout::RowMajor;
using ColMajor = cutlass::layout::ColumnMajor;

template <class Gemm, class TA, class TC, class TAcc>
static void run(const char *what, int M, int N, int K, TAcc alpha, TAcc beta, Lcg &rng, bool ints) {
  std::vector<TA> a((size_t)M * K), b((size_t)N * K);  // A row-major M x K; B column-major K x N (N rows of K)
  std::vector<TC> c((size_t)M * N);
  std::vector<double> ad(a.size()), bd(b.size()), cd(c.size());
  for (size_t i = 0; i < a.size(); i++) {
    double v = ints ? (double)((int)(rng.u32() % 255) - 127) : ldexp((double)rng.sym(), (int)(rng.u32() % 7) - 3);
    a[i] = TA(v), ad[i] = (double)a[i];
  }
  for (size_t i = 0; i < b.size(); i++) {
    double v = ints ? (double)((int)(rng.u32() % 255) - 127) : ldexp((double)rng.sym(), (int)(rng.u32() % 7) - 3);
    b[i] = TA(v), bd[i] = (double)b[i];
  }
  for (size_t i = 0; i < c.size(); i++) {
    double v = ints ? (double)((int)(rng.u32() % 20001) - 10000) : (double)rng.sym();
    c[i] = TC(v), cd[i] = (double)c[i];
  }
  TA *da = to_device(a), *db = to_device(b);
  TC *dc = to_device(c), *dd = to_device(std::vector<TC>(c.size()));
  Gemm gemm;
  typename Gemm::Arguments args({M, N, K}, {da, K}, {db, K}, {dc, N}, {dd, N}, {alpha, beta});
  cutlass::Status st = gemm(args);
  if (st != cutlass::Status::kSuccess) {
    printf("%s: CUTLASS status %s: FAIL\n", what, cutlassGetStatusString(st));
    exit(1);
  }
  TRY(cudaDeviceSynchronize());
  std::vector<TC> d = to_host(dd, c.size());
  report(what, d);
  double err = gemm_error(
      M, N, K, [&](int i, int k) { return ad[(size_t)i * K + k]; }, [&](int k, int j) { return bd[(size_t)j * K + k]; },
      [&](int i, int j) { return cd[(size_t)i * N + j]; }, [&](int i, int j) { return d[(size_t)i * N + j]; }, false,
      (double)alpha, (double)beta, ints);
  double tol = ints ? 0 : 1e-5;
  check(err <= tol, "%s close to the exact result (max error %.3g)", what, err);
  TRY(cudaFree(da));
  TRY(cudaFree(db));
  TRY(cudaFree(dc));
  TRY(cudaFree(dd));
}

int main() {
  begin();
  Lcg rng(31337);
  using GemmF16 = cutlass::gemm::device::Gemm<cutlass::half_t, RowMajor, cutlass::half_t, ColMajor, float, RowMajor,
                                              float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80>;
  run<GemmF16, cutlass::half_t, float, float>("cutlass f16 TN 256x256x512", 256, 256, 512, 1.5f, -0.75f, rng, false);
  using GemmBF16 = cutlass::gemm::device::Gemm<cutlass::bfloat16_t, RowMajor, cutlass::bfloat16_t, ColMajor, float,
                                               RowMajor, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80>;
  run<GemmBF16, cutlass::bfloat16_t, float, float>("cutlass bf16 TN 128x256x256", 128, 256, 256, 1.0f, 1.0f, rng, false);
  using GemmS8 = cutlass::gemm::device::Gemm<int8_t, RowMajor, int8_t, ColMajor, int32_t, RowMajor, int32_t,
                                             cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80>;
  run<GemmS8, int8_t, int32_t, int32_t>("cutlass s8 TN 128x256x512", 128, 256, 512, 1, 1, rng, true);
  return finish("cutlass2_gemm");
}
