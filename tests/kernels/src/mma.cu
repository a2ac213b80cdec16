// mma.cu — issue 13's warp-level matrix instructions, per lane, so that a layout bug cannot hide behind a
// symmetric input. One warp (block 32) per launch; `in` is random words (ptxrun's rand32), `out` raw bits.
//
// mma_ldmatrix: 4 8x8 .b16 matrices in shared memory, element (i,r,c) = 0x4000 + 64i + 8r + c (all distinct),
//   row r of matrix i at a permuted place (row slot (l*13+5)%32 for lane l = 8i + r, which gives the address);
//   out[(v*32 + lane)*4 + j] = register j of ldmatrix variant v = x1, x1.trans, x2, x2.trans, x4, x4.trans;
//   then out[768 + lane] = movmatrix.trans of a = (0x2000 + 2*lane) | (0x2000 + 2*lane + 1) << 16.
// mma_stmatrix (sm_90): registers j = 0x4000 + 64j + 2*lane (+1 in the high half) stored by x1, x1.trans, x2,
//   x2.trans, x4, x4.trans to the same permuted rows; out[v*128 + w] = the 256 halves of shared memory after v.
// wmma_<shape>_<types>_<layouts>: layout reveal — A, B, C loaded from matrices whose element e (row-major index)
//   holds e (f16/bf16/tf32/f64/u8/f32/s32 as the number e, s8 as e-128; s4/u4 and b1 by bit planes: one load per
//   plane p holding bit/nibble p of e) and their raw fragment registers dumped per lane; then D = A*B + C on
//   random operands (moderate exponents, signs mixed), stored row-major with wmma.store.d, raw bits.
// wmma_gemm, mma_ldmatrix_gemm: a 64x64 f16 GEMM written with wmma, and with ldmatrix + mma.sync (CUTLASS 2.x style).
// mma_<shape>_<types>: mma.sync forms without an H100 recording (tests/tensor covers 9): random fragments
//   (floats with mixed exponents, some zeros, Inf/NaN in a few tests), 8 tests, out = D registers per lane.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;
#pragma nv_diag_suppress 550 // a form's unused operand words
typedef unsigned short u16;
typedef unsigned u32;

// ---------------------------------------------------------------- ldmatrix / movmatrix / stmatrix
__device__ __forceinline__ u32 smaddr(const void *p) { return (u32)__cvta_generic_to_shared(p); }

extern "C" __global__ void mma_ldmatrix(const u32 *in, u32 *out) {
  __shared__ __align__(16) u16 sm[32 * 8];
  int lane = threadIdx.x & 31;
  for (int l = 0; l < 32; l++) { // lane l's row: matrix l/8, row l%8, at slot (l*13+5)%32
    int slot = (l * 13 + 5) % 32;
    if (lane < 8) sm[slot * 8 + lane] = (u16)(0x4000 + 64 * (l / 8) + 8 * (l % 8) + lane);
  }
  __syncwarp();
  u32 a = smaddr(&sm[((lane * 13 + 5) % 32) * 8]);
  u32 r0 = 0, r1 = 0, r2 = 0, r3 = 0;
#define LDM(v, X, T, regs, ...)                                                                                        \
  r0 = r1 = r2 = r3 = 0xdeadbeefu;                                                                                     \
  asm volatile("ldmatrix.sync.aligned.m8n8." X T ".shared.b16 " regs ", [%4];"                                       \
               : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) : "r"(a)); /* unwritten registers keep 0xdeadbeef */                                                    \
  out[(v * 32 + lane) * 4 + 0] = r0; out[(v * 32 + lane) * 4 + 1] = r1;                                              \
  out[(v * 32 + lane) * 4 + 2] = r2; out[(v * 32 + lane) * 4 + 3] = r3
  LDM(0, "x1", "", "{%0}");
  LDM(1, "x1", ".trans", "{%0}");
  LDM(2, "x2", "", "{%0, %1}");
  LDM(3, "x2", ".trans", "{%0, %1}");
  LDM(4, "x4", "", "{%0, %1, %2, %3}");
  LDM(5, "x4", ".trans", "{%0, %1, %2, %3}");
  u32 m = (0x2000u + 2 * lane) | (0x2000u + 2 * lane + 1) << 16, t;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(t) : "r"(m));
  out[768 + lane] = t;
}

extern "C" __global__ void mma_stmatrix(const u32 *in, u32 *out) {
#if __CUDA_ARCH__ >= 900
  __shared__ __align__(16) u16 sm[32 * 8];
  int lane = threadIdx.x & 31;
  u32 a = smaddr(&sm[((lane * 13 + 5) % 32) * 8]);
  u32 r[4];
  for (int j = 0; j < 4; j++) r[j] = (0x4000u + 64 * j + 2 * lane) | (0x4000u + 64 * j + 2 * lane + 1) << 16;
#define STM(v, X, T, regs)                                                                                             \
  for (int i = lane; i < 256; i += 32) sm[i] = 0xdead;                                                                \
  __syncwarp();                                                                                                        \
  asm volatile("stmatrix.sync.aligned.m8n8." X T ".shared.b16 [%0], " regs ";"                                       \
               :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");                                     \
  __syncwarp();                                                                                                        \
  for (int i = lane; i < 128; i += 32) out[v * 128 + i] = sm[2 * i] | (u32)sm[2 * i + 1] << 16;                       \
  __syncwarp()
  STM(0, "x1", "", "{%1}");
  STM(1, "x1", ".trans", "{%1}");
  STM(2, "x2", "", "{%1, %2}");
  STM(3, "x2", ".trans", "{%1, %2}");
  STM(4, "x4", "", "{%1, %2, %3, %4}");
  STM(5, "x4", ".trans", "{%1, %2, %3, %4}");
#endif
}

// ---------------------------------------------------------------- wmma
// random operand bits with moderate exponents (a few zeros), from one random word
__device__ u16 rnd_f16(u32 w) { return (w & 31) == 0 ? 0 : (u16)((w & 0x8000) | ((15 + (int)((w >> 10) % 8) - 4) << 10) | (w >> 16 & 0x3ff)); }
__device__ u16 rnd_bf16(u32 w) { return (w & 31) == 0 ? 0 : (u16)((w & 0x8000) | ((127 + (int)((w >> 10) % 16) - 8) << 7) | (w >> 16 & 0x7f)); }
__device__ u32 rnd_f32(u32 w) { return (w & 31) == 0 ? 0 : (w & 0x80000000u) | (u32)(127 + (int)((w >> 8) % 24) - 12) << 23 | (w >> 9 & 0x7fffff); }
__device__ u32 rnd_tf32(u32 w) { return rnd_f32(w) & 0xffffe000u; }
__device__ unsigned long long rnd_f64(u32 w, u32 v) {
  return (w & 31) == 0 ? 0ull : (unsigned long long)(w & 0x80000000u) << 32 | (unsigned long long)(1023 + (int)((w >> 8) % 40) - 20) << 52 |
         ((unsigned long long)(w >> 13) << 32 | v) & 0xfffffffffffffull;
}

template <typename T> __device__ void dump(const T &f, u32 *out, int lane) {
  const u32 *w = reinterpret_cast<const u32 *>(&f.x[0]);
  constexpr int n = sizeof(f.x) / 4;
  for (int i = 0; i < n; i++) out[lane * n + i] = w[i];
}
template <typename T> __device__ constexpr int words(const T &f) { return sizeof(f.x) / 4; }

// element e of an index-encoded or random matrix, in the storage type S
template <typename S> struct enc;
template <> struct enc<__half> { static __device__ __half idx(int e) { return __ushort_as_half((u16)__half_as_ushort(__int2half_rn(e))); }
                                 static __device__ __half rnd(u32 w) { return __ushort_as_half(rnd_f16(w)); } };
template <> struct enc<__nv_bfloat16> { static __device__ __nv_bfloat16 idx(int e) { return __int2bfloat16_rn(e); }
                                        static __device__ __nv_bfloat16 rnd(u32 w) { return __ushort_as_bfloat16(rnd_bf16(w)); } };
template <> struct enc<float> { static __device__ float idx(int e) { return (float)e; }
                                static __device__ float rnd(u32 w) { return __uint_as_float(rnd_f32(w)); } };
template <> struct enc<double> { static __device__ double idx(int e) { return (double)e; }
                                 static __device__ double rnd(u32 w) { return __longlong_as_double((long long)rnd_f64(w, w * 2654435761u)); } };
template <> struct enc<signed char> { static __device__ signed char idx(int e) { return (signed char)(e - 128); }
                                      static __device__ signed char rnd(u32 w) { return (signed char)w; } };
template <> struct enc<unsigned char> { static __device__ unsigned char idx(int e) { return (unsigned char)e; }
                                        static __device__ unsigned char rnd(u32 w) { return (unsigned char)w; } };
template <> struct enc<int> { static __device__ int idx(int e) { return e; }
                              static __device__ int rnd(u32 w) { return (int)w; } };

// the storage type behind a wmma element type (tf32 is stored as float)
template <typename T> struct store_of { typedef T type; };
template <> struct store_of<wmma::precision::tf32> { typedef float type; };

// One wmma shape/type/layout case. out: [A frags][B frags][C frags][D matrix, row-major, raw bits].
// mem: global scratch for the matrices (in `out` after D).
template <int M, int N, int K, typename TA, typename TC, typename LA, typename LB, typename TD>
__device__ void wmma_case(const u32 *in, u32 *out, int padded) {
  typedef typename store_of<TA>::type SA;
  int lane = threadIdx.x & 31;
  constexpr bool arow = std::is_same<LA, wmma::row_major>::value, brow = std::is_same<LB, wmma::row_major>::value;
  const int lda = (arow ? K : M) + padded * 8, ldb = (brow ? N : K) + padded * 8, ldc = N + padded * 8;
  __shared__ __align__(32) unsigned char smem[(32 + 8) * (32 + 8) * 8 * 3];
  SA *A = reinterpret_cast<SA *>(smem);
  SA *B = A + (arow ? M : K) * lda;
  TC *C = reinterpret_cast<TC *>(B + (brow ? K : N) * ldb + 16);
  C = reinterpret_cast<TC *>(((size_t)C + 31) & ~(size_t)31);
  B = reinterpret_cast<SA *>(((size_t)B + 31) & ~(size_t)31);
  wmma::fragment<wmma::matrix_a, M, N, K, TA, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
  wmma::fragment<wmma::accumulator, M, N, K, TD> fd;
  // layout reveal: element (r, c) holds its row-major index
  for (int i = lane; i < M * K; i += 32) { int r = i / K, c = i % K; A[arow ? r * lda + c : c * lda + r] = enc<SA>::idx(i); }
  for (int i = lane; i < K * N; i += 32) { int r = i / N, c = i % N; B[brow ? r * ldb + c : c * ldb + r] = enc<SA>::idx(i); }
  for (int i = lane; i < M * N; i += 32) C[(i / N) * ldc + i % N] = enc<TC>::idx(i);
  __syncwarp();
  wmma::load_matrix_sync(fa, A, lda);
  wmma::load_matrix_sync(fb, B, ldb);
  wmma::load_matrix_sync(fc, C, ldc, wmma::mem_row_major);
  u32 *o = out;
  dump(fa, o, lane); o += 32 * words(fa);
  dump(fb, o, lane); o += 32 * words(fb);
  dump(fc, o, lane); o += 32 * words(fc);
  __syncwarp();
  // arithmetic on random operands
  for (int i = lane; i < M * K; i += 32) { int r = i / K, c = i % K; A[arow ? r * lda + c : c * lda + r] = enc<SA>::rnd(in[i]); }
  for (int i = lane; i < K * N; i += 32) { int r = i / N, c = i % N; B[brow ? r * ldb + c : c * ldb + r] = enc<SA>::rnd(in[512 + i]); }
  for (int i = lane; i < M * N; i += 32) C[(i / N) * ldc + i % N] = enc<TC>::rnd(in[1024 + i]);
  __syncwarp();
  wmma::load_matrix_sync(fa, A, lda);
  wmma::load_matrix_sync(fb, B, ldb);
  wmma::load_matrix_sync(fc, C, ldc, wmma::mem_row_major);
  if constexpr (std::is_same<TA, wmma::precision::tf32>::value) {
    for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  }
  wmma::mma_sync(fd, fa, fb, fc);
  dump(fd, o, lane); o += 32 * words(fd);
  TD *D = reinterpret_cast<TD *>(o);
  wmma::store_matrix_sync(D, fd, N, wmma::mem_row_major);
}

#define WMMA_CASE(name, M, N, K, TA, TC, LA, LB, TD, PAD)                                                              \
  extern "C" __global__ void name(const u32 *in, u32 *out) {                                                          \
    wmma_case<M, N, K, TA, TC, wmma::LA, wmma::LB, TD>(in, out, PAD);                                                \
  }
WMMA_CASE(wmma_m16n16k16_f16_f32_rr, 16, 16, 16, __half, float, row_major, row_major, float, 0)
WMMA_CASE(wmma_m16n16k16_f16_f32_cc, 16, 16, 16, __half, float, col_major, col_major, float, 0)
WMMA_CASE(wmma_m16n16k16_f16_f16_rc, 16, 16, 16, __half, __half, row_major, col_major, __half, 0)
WMMA_CASE(wmma_m16n16k16_f16_f16_cr_pad, 16, 16, 16, __half, __half, col_major, row_major, __half, 1)
WMMA_CASE(wmma_m32n8k16_f16_f32_rr, 32, 8, 16, __half, float, row_major, row_major, float, 0)
WMMA_CASE(wmma_m8n32k16_f16_f32_cc, 8, 32, 16, __half, float, col_major, col_major, float, 0)
WMMA_CASE(wmma_m16n16k16_bf16_rc, 16, 16, 16, __nv_bfloat16, float, row_major, col_major, float, 0)
WMMA_CASE(wmma_m32n8k16_bf16_cr, 32, 8, 16, __nv_bfloat16, float, col_major, row_major, float, 0)
WMMA_CASE(wmma_m8n32k16_bf16_rr, 8, 32, 16, __nv_bfloat16, float, row_major, row_major, float, 0)
WMMA_CASE(wmma_m16n16k16_s8_rr, 16, 16, 16, signed char, int, row_major, row_major, int, 0)
WMMA_CASE(wmma_m16n16k16_u8_cc, 16, 16, 16, unsigned char, int, col_major, col_major, int, 0)
WMMA_CASE(wmma_m32n8k16_s8_rc, 32, 8, 16, signed char, int, row_major, col_major, int, 0)
WMMA_CASE(wmma_m8n32k16_u8_cr, 8, 32, 16, unsigned char, int, col_major, row_major, int, 0)
WMMA_CASE(wmma_m16n16k8_tf32_rr, 16, 16, 8, wmma::precision::tf32, float, row_major, row_major, float, 0)
WMMA_CASE(wmma_m16n16k8_tf32_cc, 16, 16, 8, wmma::precision::tf32, float, col_major, col_major, float, 0)
WMMA_CASE(wmma_m8n8k4_f64_rc, 8, 8, 4, double, double, row_major, col_major, double, 0)
WMMA_CASE(wmma_m8n8k4_f64_cr, 8, 8, 4, double, double, col_major, row_major, double, 0)

// ---------------------------------------------------------------- mma.sync forms without an H100 recording
// 8 tests x 32 lanes; test t uses in[t*64 + ...] for A (up to 4 words), B (2), C (4) per lane; edge tests 6, 7
// put Inf/NaN/zeros in some words. out[(t*32 + lane)*4 + j] = D register j (0xdeadbeef where unused).
__device__ u32 f16x2(u32 w) { return rnd_f16(w) | (u32)rnd_f16(w * 2654435761u) << 16; }
__device__ u32 bf16x2(u32 w) { return rnd_bf16(w) | (u32)rnd_bf16(w * 2654435761u) << 16; }
__device__ u32 fp8x4(u32 w) { return (w & 0x77777777u) ^ (w >> 3 & 0x80808080u); } // no e4m3 NaN; signs mixed
__device__ u32 edge(u32 w, int t, int i, u32 v) {
  const u32 specials[4] = {0x7c007c00u, 0x7fff0000u, 0x00008000u, 0xfc000001u};
  return t >= 6 && ((w >> 7) % 13 == (u32)i) ? specials[(w >> 3) & 3] : v;
}

#define MMA_TEST(name, A_T, B_T, C_T, ...)                                                                            \
  extern "C" __global__ void name(const u32 *in, u32 *out) {                                                          \
    int lane = threadIdx.x & 31;                                                                                       \
    for (int t = 0; t < 8; t++) {                                                                                      \
      const u32 *w = in + (t * 32 + lane) * 10;                                                                        \
      u32 a0 = edge(w[0], t, 0, A_T(w[0])), a1 = edge(w[1], t, 1, A_T(w[1])), a2 = A_T(w[2]), a3 = A_T(w[3]);        \
      u32 b0 = edge(w[4], t, 2, B_T(w[4])), b1 = B_T(w[5]);                                                            \
      u32 c0 = C_T(w[6]), c1 = C_T(w[7]), c2 = C_T(w[8]), c3 = C_T(w[9]);                                             \
      u32 d0 = 0xdeadbeefu, d1 = 0xdeadbeefu, d2 = 0xdeadbeefu, d3 = 0xdeadbeefu;                                     \
      (void)a2; (void)a3; (void)b1; (void)c2; (void)c3;                                                                \
      __VA_ARGS__;                                                                                                     \
      u32 *o = out + (t * 32 + lane) * 4;                                                                              \
      o[0] = d0; o[1] = d1; o[2] = d2; o[3] = d3;                                                                      \
    }                                                                                                                  \
  }
#define ID(w) (w)
#define F32C(w) rnd_f32(w)
#define D4 "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
MMA_TEST(mma_m16n8k8_f32_f16, f16x2, f16x2, F32C,
         asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                      : D4 : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3)))
MMA_TEST(mma_m16n8k8_f16_f16, f16x2, f16x2, f16x2,
         asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
                      : "=r"(d0), "=r"(d1) : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1)))
MMA_TEST(mma_m16n8k8_f32_bf16, bf16x2, bf16x2, F32C,
         asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                      : D4 : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3)))
MMA_TEST(mma_m16n8k4_f32_tf32, rnd_tf32, rnd_tf32, F32C,
         asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                      : D4 : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3)))
MMA_TEST(mma_m16n8k16_s32_u8s8, ID, ID, ID,
         asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                      : D4 : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3)))
MMA_TEST(mma_m16n8k32_s32_u8u8_sat, ID, ID, ID,
         asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                      : D4 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3)))
MMA_TEST(mma_m8n8k16_s32_s8u8, ID, ID, ID,
         asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32 {%0,%1}, {%2}, {%3}, {%4,%5};"
                      : "=r"(d0), "=r"(d1) : "r"(a0), "r"(b0), "r"(c0), "r"(c1)))
MMA_TEST(mma_m8n8k32_s32_s4s4, ID, ID, ID,
         asm volatile("mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%0,%1}, {%2}, {%3}, {%4,%5};"
                      : "=r"(d0), "=r"(d1) : "r"(a0), "r"(b0), "r"(c0), "r"(c1)))
MMA_TEST(mma_m16n8k32_s32_u4s4, ID, ID, ID,
         asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u4.s4.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                      : D4 : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3)))
MMA_TEST(mma_m16n8k64_s32_u4u4_sat, ID, ID, ID,
         asm volatile("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                      : D4 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3)))
MMA_TEST(mma_m8n8k128_b1_xor, ID, ID, ID,
         asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0,%1}, {%2}, {%3}, {%4,%5};"
                      : "=r"(d0), "=r"(d1) : "r"(a0), "r"(b0), "r"(c0), "r"(c1)))
MMA_TEST(mma_m16n8k128_b1_and, ID, ID, ID,
         asm volatile("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                      : D4 : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3)))
MMA_TEST(mma_m16n8k256_b1_xor, ID, ID, ID,
         asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                      : D4 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3)))
#if __CUDA_ARCH__ >= 890
MMA_TEST(mma_m16n8k32_f16_e4m3e5m2, fp8x4, fp8x4, f16x2,
         asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                      : "=r"(d0), "=r"(d1) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1)))
#endif
#if __CUDA_ARCH__ >= 900
#define F64R(x) "l"(rnd_f64(x, x * 2654435761u))
MMA_TEST(mma_m16n8k4_f64, ID, ID, ID,
         {
           unsigned long long e0, e1, e2, e3;
           asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                        : "=l"(e0), "=l"(e1), "=l"(e2), "=l"(e3)
                        : F64R(a0), F64R(a1), F64R(b0), F64R(c0), F64R(c1), F64R(c2), F64R(c3));
           d0 = (u32)(e0 ^ (e0 >> 32)); d1 = (u32)(e1 ^ (e1 >> 32)); d2 = (u32)(e2 ^ (e2 >> 32)); d3 = (u32)(e3 ^ (e3 >> 32));
         })
#endif

// ---------------------------------------------------------------- a WMMA GEMM written the usual way
// C = A·B (n×n, f16 in, f32 accumulate), A and B made from the random words (rnd_f16: moderate exponents),
// staged through shared memory one 16×16 tile at a time; block 128 = 4 warps, one 16×16 tile of C per warp;
// grid (n/16)^2 / 4. out = C row-major, f32 bits.
extern "C" __global__ void wmma_gemm(const u32 *in, float *out, int n) {
  __shared__ __align__(32) __half sa[4][16 * 16], sb[4][16 * 16];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int tile = blockIdx.x * 4 + warp, tiles = n / 16, ti = tile / tiles, tj = tile % tiles;
  if (ti >= tiles) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k0 = 0; k0 < n; k0 += 16) {
    for (int i = lane; i < 256; i += 32) {
      int r = i / 16, c = i % 16;
      sa[warp][i] = __ushort_as_half(rnd_f16(in[((ti * 16 + r) * n + k0 + c) % 4096]));
      sb[warp][i] = __ushort_as_half(rnd_f16(in[((k0 + r) * n + tj * 16 + c + 7) % 4096]));
    }
    __syncwarp();
    wmma::load_matrix_sync(fa, sa[warp], 16);
    wmma::load_matrix_sync(fb, sb[warp], 16);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncwarp();
  }
  wmma::store_matrix_sync(out + ti * 16 * n + tj * 16, acc, n, wmma::mem_row_major);
}

// ---------------------------------------------------------------- an mma.sync + ldmatrix GEMM (CUTLASS 2.x style)
// Same problem and data as wmma_gemm, but each warp loads its 16×16 A and B tiles from shared memory with
// ldmatrix.x4 (B with .trans) and issues two mma.sync.m16n8k16.f32.f16.f16.f32 per k-step; the accumulator
// fragments are written out by their PTX ISA positions. out = C row-major, f32 bits.
extern "C" __global__ void mma_ldmatrix_gemm(const u32 *in, float *out, int n) {
  __shared__ __align__(128) __half sa[4][16 * 16], sb[4][16 * 16];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int tile = blockIdx.x * 4 + warp, tiles = n / 16, ti = tile / tiles, tj = tile % tiles;
  if (ti >= tiles) return;
  float c[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int mi = lane / 8, r = lane % 8;
  u32 aaddr = smaddr(&sa[warp][(8 * (mi % 2) + r) * 16 + 8 * (mi / 2)]);
  u32 baddr = smaddr(&sb[warp][(8 * (mi % 2) + r) * 16 + 8 * (mi / 2)]);
  for (int k0 = 0; k0 < n; k0 += 16) {
    for (int i = lane; i < 256; i += 32) {
      int rr = i / 16, cc = i % 16;
      sa[warp][i] = __ushort_as_half(rnd_f16(in[((ti * 16 + rr) * n + k0 + cc) % 4096]));
      sb[warp][i] = __ushort_as_half(rnd_f16(in[((k0 + rr) * n + tj * 16 + cc + 7) % 4096]));
    }
    __syncwarp();
    u32 a0, a1, a2, a3, b0, b1, b2, b3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(aaddr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(b0), "=r"(b1), "=r"(b2), "=r"(b3) : "r"(baddr));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[4]), "+f"(c[5]), "+f"(c[6]), "+f"(c[7]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b2), "r"(b3));
    __syncwarp();
  }
  int g = lane / 4, q = lane % 4;
  for (int i = 0; i < 8; i++) {
    int row = ti * 16 + g + 8 * ((i >> 1) & 1), col = tj * 16 + 8 * (i >> 2) + 2 * q + (i & 1);
    out[row * n + col] = c[i];
  }
}
