// wgmma_layout.cu — CuTe's canonical GMMA shared-memory layouts and make_gmma_desc (CUTLASS cute/atom/
// mma_traits_sm90_gmma.hpp) against warpvm's reading of a descriptor (src/exec/wgmma_layout.c): for each swizzle and
// major, f16/tf32/s8/e4m3, tiles of 64 to 256 rows and each k-block of a swizzle row, the byte CuTe places element
// (mn, k) at must be the byte warpvm reads it from. Host code only (no GPU): built by wgmma_layout.sh with nvcc.
#include <cstdio>
#include <cstdint>
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
using namespace cute;
#include "exec/wgmma_layout.h"
alignas(4096) static uint8_t buf[1 << 18];
static int bad = 0, checked = 0;
template <GMMA::Major MAJ, class T, class Atom, int MN, int KT, int KB>
void check(const char *name) {
  // smem tile MN x KT(k) ; each wgmma takes KB k-elements (32 bytes)
  auto layout = tile_to_shape(Atom{}, make_shape(Int<MN>{}, Int<KT>{}));
  T *base = reinterpret_cast<T *>(buf);
  Tensor s = make_tensor(make_smem_ptr(base), layout);
  for (int kb = 0; kb < KT / KB; kb++) {
    Tensor sk = local_tile(s, make_shape(Int<MN>{}, Int<KB>{}), make_coord(0, kb));
    GmmaDescriptor d = GMMA::make_gmma_desc<MAJ>(sk);
    uint64_t desc = d.desc_;
    // the descriptor's start field is the shared address, 0 on the host (CuTe prints that it cannot cast): the
    // tile's own offset stands in for it
    uint32_t start = (uint32_t)((uint8_t *)raw_pointer_cast(sk.data()) - buf), lbo = (uint32_t)(desc >> 16 & 0x3fff) << 4, sbo = (uint32_t)(desc >> 32 & 0x3fff) << 4;
    int swz = (int)(desc >> 62);
    int bits = sizeof_bits<T>::value, per = 128 / bits;
    for (int mn = 0; mn < MN; mn++)
      for (int k = 0; k < KB; k++) {
        uint32_t want = (uint32_t)((uint8_t *)&sk(mn, k) - buf);
        int inner = MAJ == GMMA::Major::K ? k % per : mn % per;
        uint32_t got = wv_wgmma_swizzle(swz, start + wv_wgmma_chunk(MAJ == GMMA::Major::MN, swz, lbo, sbo, bits, mn, k)) + inner * bits / 8;
        checked++;
        if (got != want && bad++ < 10) printf("%s kb=%d (%d,%d): cute %u warpvm %u (desc %016llx)\n", name, kb, mn, k, want, got, (unsigned long long)desc);
      }
  }
}
int main() {
  using namespace cute::GMMA;
  check<Major::K, half_t, Layout_K_SW128_Atom<half_t>, 64, 64, 16>("K SW128 f16");
  check<Major::K, half_t, Layout_K_SW64_Atom<half_t>, 64, 64, 16>("K SW64 f16");
  check<Major::K, half_t, Layout_K_SW32_Atom<half_t>, 64, 32, 16>("K SW32 f16");
  check<Major::K, half_t, Layout_K_INTER_Atom<half_t>, 64, 32, 16>("K INTER f16");
  check<Major::K, half_t, Layout_K_SW128_Atom<half_t>, 256, 64, 16>("K SW128 f16 n256");
  check<Major::MN, half_t, Layout_MN_SW128_Atom<half_t>, 128, 32, 16>("MN SW128 f16");
  check<Major::MN, half_t, Layout_MN_SW64_Atom<half_t>, 64, 32, 16>("MN SW64 f16");
  check<Major::MN, half_t, Layout_MN_SW32_Atom<half_t>, 64, 32, 16>("MN SW32 f16");
  check<Major::MN, half_t, Layout_MN_INTER_Atom<half_t>, 64, 32, 16>("MN INTER f16");
  check<Major::K, tfloat32_t, Layout_K_SW128_Atom<tfloat32_t>, 64, 32, 8>("K SW128 tf32");
  check<Major::K, tfloat32_t, Layout_K_INTER_Atom<tfloat32_t>, 64, 16, 8>("K INTER tf32");
  check<Major::K, int8_t, Layout_K_SW64_Atom<int8_t>, 64, 64, 32>("K SW64 s8");
  check<Major::K, float_e4m3_t, Layout_K_SW32_Atom<float_e4m3_t>, 64, 64, 32>("K SW32 e4m3");
  printf("%d checked, %d bad\n", checked, bad);
  return bad != 0 || checked == 0;
}
