// mma_gemm — a tensor-core GEMM in the style of CUTLASS 2.x, written with inline PTX: D = C + A B^T (A: M x K
// row-major, B: N x K row-major, i.e. "TN"), 64 x 64 block tiles over BK = 64 bytes of K, 4 warps of 32 x 32,
// tiles staged through shared memory by cp.async in two stages with an XOR swizzle of the 16-byte chunks,
// fragments loaded by ldmatrix.x4 and fed to mma.sync.aligned.m16n8k16 (f16, bf16 into f32) or m16n8k32 (s8
// into s32, also .satfinite), the accumulators starting from C. A second f16 kernel takes B as K x N row-major and loads it with ldmatrix .trans.
// Tensor-core sums are not IEEE sums: every result is printed bit for bit.
#include "apps.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

constexpr int BM = 64, BN = 64, BKB = 64;  // block tile; BKB: bytes of K per stage (4 chunks of 16 bytes)

__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
// chunk c (of 4) of row r, swizzled: rows r and r^2.. spread their chunks over the banks
__device__ __forceinline__ int swz(int r, int c) { return c ^ ((r >> 1) & 3); }

__device__ __forceinline__ void cp_async16(void *dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(dst)), "l"(src));
}
__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}
__device__ __forceinline__ void ldsm_x4_trans(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

enum Kind { F16, BF16, S8, S8SAT };

template <Kind KD> __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1);
template <> __device__ __forceinline__ void mma<F16>(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <> __device__ __forceinline__ void mma<BF16>(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <> __device__ __forceinline__ void mma<S8>(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  int *x = (int *)d;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(x[0]), "+r"(x[1]), "+r"(x[2]), "+r"(x[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <> __device__ __forceinline__ void mma<S8SAT>(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  int *x = (int *)d;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(x[0]), "+r"(x[1]), "+r"(x[2]), "+r"(x[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// T: the element type (2 bytes, or 1 for s8); accumulators are 4 floats or 4 ints per 16 x 8 tile. BT: B given as
// K x N row-major (f16 only), loaded with ldmatrix.trans. C and D are M x N row-major, f32 or s32.
template <Kind KD, class T, bool BT>
__global__ void __launch_bounds__(128) gemm(const T *a, const T *b, const float *c, float *d, int M, int N, int K) {
  constexpr int BK = BKB / sizeof(T);   // elements of K per stage
  __shared__ __align__(128) unsigned char As[2][BM][BKB];
  __shared__ __align__(128) unsigned char Bs[2][BT ? BK : BN][BT ? BN * sizeof(T) : BKB];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  const unsigned char *ab = (const unsigned char *)a, *bb = (const unsigned char *)b;

  auto load = [&](int stage, int k0) {
    for (int i = tid; i < BM * 4; i += 128) {  // A: 64 rows x 4 chunks
      int r = i / 4, ch = i % 4;
      cp_async16(&As[stage][r][swz(r, ch) * 16], ab + ((size_t)(m0 + r) * K + k0) * sizeof(T) + ch * 16);
    }
    if (!BT) {
      for (int i = tid; i < BN * 4; i += 128) {  // B: 64 rows (n) x 4 chunks of K
        int r = i / 4, ch = i % 4;
        cp_async16(&Bs[stage][r][swz(r, ch) * 16], bb + ((size_t)(n0 + r) * K + k0) * sizeof(T) + ch * 16);
      }
    } else {
      for (int i = tid; i < BK * 8; i += 128) {  // B: BK rows (k) x 8 chunks of N, unswizzled
        int r = i / 8, ch = i % 8;
        cp_async16(&Bs[stage][r][ch * 16], bb + ((size_t)(k0 + r) * N + n0) * sizeof(T) + ch * 16);
      }
    }
    asm volatile("cp.async.commit_group;");
  };

  // the accumulators start from C (bit patterns: f32, or s32 for the integer kinds); c0 c1 at (g, 2q..2q+1),
  // c2 c3 at (g + 8, 2q..2q+1)
  int g = lane / 4, q = lane % 4;
  float acc[2][4][4];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++)
      for (int x = 0; x < 4; x++)
        acc[i][j][x] = c[(size_t)(m0 + wm + i * 16 + g + 8 * (x / 2)) * N + n0 + wn + j * 8 + 2 * q + x % 2];
  int nk = K / BK;
  load(0, 0);
  for (int kt = 0; kt < nk; kt++) {
    int st = kt & 1;
    if (kt + 1 < nk) {
      load(st ^ 1, (kt + 1) * BK);
      asm volatile("cp.async.wait_group 1;");
    } else {
      asm volatile("cp.async.wait_group 0;");
    }
    __syncthreads();
    for (int ks = 0; ks < 2; ks++) {  // two mma K steps of 32 bytes per stage
      unsigned af[2][4], bf[4][2];
      for (int i = 0; i < 2; i++) {  // A 16 x 32 bytes: matrices (rows 0-7 | 8-15) x (bytes 0-15 | 16-31)
        int r = wm + i * 16 + (lane % 8) + 8 * ((lane / 8) % 2), ch = ks * 2 + lane / 16;
        ldsm_x4(af[i], &As[st][r][swz(r, ch) * 16]);
      }
      for (int j = 0; j < 4; j += 2) {  // two n8 tiles per ldmatrix.x4
        unsigned t[4];
        if (!BT) {  // matrices: (n 0-7, chunk lo), (n 0-7, chunk hi), (n 8-15, lo), (n 8-15, hi)
          int r = wn + j * 8 + (lane % 8) + 8 * (lane / 16), ch = ks * 2 + (lane / 8) % 2;
          ldsm_x4(t, &Bs[st][r][swz(r, ch) * 16]);
        } else {  // rows k of B, transposed: (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15)
          int k = ks * 16 + (lane % 8) + 8 * ((lane / 8) % 2), n = wn + j * 8 + 8 * (lane / 16);
          ldsm_x4_trans(t, &Bs[st][k][n * sizeof(T)]);
        }
        bf[j][0] = t[0], bf[j][1] = t[1], bf[j + 1][0] = t[2], bf[j + 1][1] = t[3];
      }
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) mma<KD>(acc[i][j], af[i], bf[j][0], bf[j][1]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; i++)  // D = the accumulators
    for (int j = 0; j < 4; j++)
      for (int x = 0; x < 4; x++)
        d[(size_t)(m0 + wm + i * 16 + g + 8 * (x / 2)) * N + n0 + wn + j * 8 + 2 * q + x % 2] = acc[i][j][x];
}

template <Kind KD, class T, bool BT>
static void run(const char *what, int M, int N, int K, Lcg &rng) {
  bool ints = KD == S8 || KD == S8SAT;
  std::vector<T> a((size_t)M * K), b((size_t)N * K);
  std::vector<double> ad(a.size()), bd(b.size());
  for (size_t i = 0; i < a.size(); i++) {
    if (ints) {
      int v = KD == S8SAT ? (rng.u32() % 4 ? 127 : -128) : (int)(rng.u32() % 256) - 128;
      ((signed char *)a.data())[i] = (signed char)v;
      ad[i] = v;
    } else {
      float x = ldexpf(rng.sym(), (int)(rng.u32() % 9) - 4);
      if (KD == F16) ((__half *)a.data())[i] = __float2half(x), ad[i] = __half2float(((__half *)a.data())[i]);
      else ((__nv_bfloat16 *)a.data())[i] = __float2bfloat16(x), ad[i] = __bfloat162float(((__nv_bfloat16 *)a.data())[i]);
    }
  }
  for (size_t i = 0; i < b.size(); i++) {  // bd: logical N x K
    double v;
    T e;
    if (ints) {
      int x = KD == S8SAT ? 127 : (int)(rng.u32() % 256) - 128;
      *(signed char *)&e = (signed char)x;
      v = x;
    } else {
      float x = ldexpf(rng.sym(), (int)(rng.u32() % 9) - 4);
      if (KD == F16) *(__half *)&e = __float2half(x), v = __half2float(*(__half *)&e);
      else *(__nv_bfloat16 *)&e = __float2bfloat16(x), v = __bfloat162float(*(__nv_bfloat16 *)&e);
    }
    bd[i] = v;
    size_t n = i / K, k = i % K;
    b[BT ? k * N + n : i] = e;  // BT: stored K x N
  }
  std::vector<float> c((size_t)M * N);
  for (size_t i = 0; i < c.size(); i++) {
    if (ints) {
      int v = KD == S8SAT ? 2147483647 - (int)(rng.u32() % 4096) * 256 : (int)(rng.u32() % 200001) - 100000;
      memcpy(&c[i], &v, 4);
    } else {
      c[i] = rng.sym();
    }
  }
  T *da = to_device(a), *db = to_device(b);
  float *dc = to_device(c), *dd = to_device(std::vector<float>(c.size()));
  gemm<KD, T, BT><<<dim3(N / BN, M / BM), 128>>>(da, db, dc, dd, M, N, K);
  LAUNCHED();
  std::vector<float> d = to_host(dd, c.size());
  if (ints) {
    std::vector<int> di(d.size());
    memcpy(di.data(), d.data(), d.size() * 4);
    report(what, di);
    size_t bad = 0;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        int cv;
        memcpy(&cv, &c[(size_t)i * N + j], 4);
        long long s = cv;  // each mma adds 32 products to the accumulator: .satfinite clamps after each one
        for (int k0 = 0; k0 < K; k0 += 32) {
          for (int k = k0; k < k0 + 32; k++) s += (long long)ad[(size_t)i * K + k] * (long long)bd[(size_t)j * K + k];
          if (KD == S8SAT) s = s > 2147483647LL ? 2147483647LL : s < -2147483648LL ? -2147483648LL : s;
          else s = (long long)(int)(unsigned)(unsigned long long)s;
        }
        long long want = s;
        bad += di[(size_t)i * N + j] != want;
      }
    check(bad == 0, "%s equals the exact integer result (%zu wrong)", what, bad);
  } else {
    report(what, d);
    double err = gemm_error(
        M, N, K, [&](int i, int k) { return ad[(size_t)i * K + k]; }, [&](int k, int j) { return bd[(size_t)j * K + k]; },
        [&](int i, int j) { return c[(size_t)i * N + j]; }, [&](int i, int j) { return d[(size_t)i * N + j]; }, true);
    check(err < 1e-5, "%s close to the exact product (max error %.3g of the magnitudes)", what, err);
  }
  TRY(cudaFree(da));
  TRY(cudaFree(db));
  TRY(cudaFree(dc));
  TRY(cudaFree(dd));
}

int main() {
  begin();
  Lcg rng(1729);
  run<F16, __half, false>("mma f16 TN 128x128x256", 128, 128, 256, rng);
  run<F16, __half, true>("mma f16 ldmatrix.trans B 64x128x128", 64, 128, 128, rng);
  run<BF16, __nv_bfloat16, false>("mma bf16 TN 128x64x192", 128, 64, 192, rng);
  run<S8, signed char, false>("mma s8 TN 64x128x256", 64, 128, 256, rng);
  run<S8SAT, signed char, false>("mma s8 satfinite TN 64x64x128", 64, 64, 128, rng);
  return finish("mma_gemm");
}
