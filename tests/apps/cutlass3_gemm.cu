// cutlass3_gemm — Hopper GEMMs as CUTLASS 3.x builds them on CuTe: `CollectiveBuilder` for sm_90 picks a
// warp-specialized kernel whose producer warp loads A and B tiles with TMA (cp.async.bulk.tensor, tensor maps
// made by cuTensorMapEncodeTiled, mbarrier transaction counts) into swizzled shared memory and whose consumer
// warpgroups run wgmma.mma_async on shared-memory descriptors; `GemmUniversalAdapter` launches it (clusters of
// 1 and of 2 CTAs, the second with TMA multicast). D = alpha A B + beta C for f16 and bf16 inputs into f32, A
// row-major, B column-major. Built for sm_90a only (wgmma needs it). CUTLASS's headers come from PyPI.
#include "apps.h"

#include <cute/tensor.hpp>
#include <cutlass/bfloat16.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/half.h>
#include <cutlass/util/packed_stride.hpp>

using namespace cute;

template <class Element, class ClusterShape> struct Config {
  using LayoutA = cutlass::layout::RowMajor;
  using LayoutB = cutlass::layout::ColumnMajor;
  using LayoutC = cutlass::layout::RowMajor;
  static constexpr int Align = 16 / sizeof(Element);
  using TileShape = Shape<_128, _128, _64>;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, float, LayoutC, 4, float, LayoutC, 4,
      cutlass::epilogue::collective::EpilogueScheduleAuto>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, LayoutA, Align, Element, LayoutB, Align, float,
      TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      cutlass::gemm::collective::KernelScheduleAuto>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
};

template <class Element, class ClusterShape>
static void run(const char *what, int M, int N, int K, float alpha, float beta, Lcg &rng) {
  using C = Config<Element, ClusterShape>;
  using Gemm = typename C::Gemm;
  std::vector<Element> a((size_t)M * K), b((size_t)N * K);
  std::vector<float> c((size_t)M * N);
  for (Element &x : a) x = Element(ldexpf(rng.sym(), (int)(rng.u32() % 7) - 3));
  for (Element &x : b) x = Element(ldexpf(rng.sym(), (int)(rng.u32() % 7) - 3));
  for (float &x : c) x = rng.sym();
  Element *da = to_device(a), *db = to_device(b);
  float *dc = to_device(c), *dd = to_device(std::vector<float>(c.size()));
  auto sa = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideA{}, {M, K, 1});
  auto sb = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideB{}, {N, K, 1});
  auto sc = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideC{}, {M, N, 1});
  auto sd = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideD{}, {M, N, 1});
  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                {M, N, K, 1},
                                {da, sa, db, sb},
                                {{alpha, beta}, dc, sc, dd, sd}};
  Gemm gemm;
  size_t ws = Gemm::get_workspace_size(args);
  void *work = nullptr;
  if (ws) TRY(cudaMalloc(&work, ws));
  cutlass::Status st = gemm.can_implement(args);
  if (st == cutlass::Status::kSuccess) st = gemm.initialize(args, work);
  if (st == cutlass::Status::kSuccess) st = gemm.run();
  if (st != cutlass::Status::kSuccess) {
    printf("%s: CUTLASS status %s: FAIL\n", what, cutlassGetStatusString(st));
    exit(1);
  }
  TRY(cudaDeviceSynchronize());
  std::vector<float> d = to_host(dd, c.size());
  report(what, d);
  double err = gemm_error(
      M, N, K, [&](int i, int k) { return (double)(float)a[(size_t)i * K + k]; },
      [&](int k, int j) { return (double)(float)b[(size_t)j * K + k]; }, [&](int i, int j) { return c[(size_t)i * N + j]; },
      [&](int i, int j) { return d[(size_t)i * N + j]; }, false, alpha, beta);
  check(err <= 1e-5, "%s close to the exact result (max error %.3g)", what, err);
  if (work) TRY(cudaFree(work));
  TRY(cudaFree(da));
  TRY(cudaFree(db));
  TRY(cudaFree(dc));
  TRY(cudaFree(dd));
}

int main() {
  begin();
  Lcg rng(90210);
  run<cutlass::half_t, Shape<_1, _1, _1>>("sm90 TMA+wgmma f16 256x256x512", 256, 256, 512, 1.25f, -0.5f, rng);
  run<cutlass::half_t, Shape<_2, _1, _1>>("sm90 TMA multicast cluster 2x1 f16 256x384x256", 256, 384, 256, 1.0f, 1.0f, rng);
  run<cutlass::bfloat16_t, Shape<_1, _1, _1>>("sm90 TMA+wgmma bf16 128x256x384", 128, 256, 384, 0.75f, 0.25f, rng);
  return finish("cutlass3_gemm");
}
