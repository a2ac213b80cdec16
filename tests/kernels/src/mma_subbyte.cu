// mma_subbyte.cu — the sub-byte wmma forms (CUDA's wmma::experimental: m8n8k32 .s4/.u4 and m8n8k128 .b1), whose
// fragment layout the PTX ISA leaves unspecified: issue 13 wants it read off a GPU per lane, as tests/kernels
// mma.cu does for the other wmma shapes. One warp (block 32) per launch; `in` is random words, `out` raw bits.
//
// Layout reveal by bit planes: A (row-major, M x K) and B (col-major, K x N) hold, in element e (the row-major
// index of the logical matrix), bit plane p of e: nibble (e >> 4p) & 15 for s4/u4 (planes 0, 1), bit (e >> p) & 1
// for b1 (planes 0..9). Per plane: out = A fragment registers per lane, then B fragment registers per lane.
// Then C loaded from the int matrix holding e (row-major), its fragment dumped; then D = A*B + C on random
// A, B, C (for b1, XOR and AND popcounts), D's fragment registers per lane and D stored row-major.
#include <mma.h>
using namespace nvcuda;
typedef unsigned u32;

template <typename T> __device__ void dump(const T &f, u32 *out, int lane) {
  const u32 *w = reinterpret_cast<const u32 *>(&f.x[0]);
  constexpr int n = sizeof(f.x) / 4;
  for (int i = 0; i < n; i++) out[lane * n + i] = w[i];
}
template <typename T> __device__ constexpr int words(const T &f) { return sizeof(f.x) / 4; }

// Set element (r, c) of a packed matrix of BITS-bit elements, row-major with ld elements a row, to v.
template <int BITS> __device__ void put(u32 *m, int ld, int r, int c, u32 v) {
  int i = r * ld + c, w = i * BITS / 32, s = i * BITS % 32;
  u32 mask = ((1u << BITS) - 1) << s;
  atomicAnd(&m[w], ~mask);
  atomicOr(&m[w], (v << s) & mask);
}

// One case: A M x K row-major, B K x N col-major (the only layouts the sub-byte forms have).
template <int M, int N, int K, int BITS, typename T, int OP>
__device__ void subbyte_case(const u32 *in, u32 *out) {
  int lane = threadIdx.x & 31;
  __shared__ __align__(128) u32 A[M * K * BITS / 32], B[K * N * BITS / 32];
  __shared__ __align__(128) int C[M * N];
  wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, int> fc, fd;
  constexpr int planes = BITS == 4 ? 2 : 10;
  u32 *o = out;
  for (int p = 0; p < planes; p++) {
    for (int e = lane; e < M * K; e += 32) put<BITS>(A, K, e / K, e % K, BITS == 4 ? (e >> 4 * p) & 15 : (e >> p) & 1);
    for (int e = lane; e < K * N; e += 32) put<BITS>(B, K, e % N, e / N, BITS == 4 ? (e >> 4 * p) & 15 : (e >> p) & 1);
    __syncwarp();
    wmma::load_matrix_sync(fa, A, K);
    wmma::load_matrix_sync(fb, B, K);
    dump(fa, o, lane); o += 32 * words(fa);
    dump(fb, o, lane); o += 32 * words(fb);
    __syncwarp();
  }
  for (int e = lane; e < M * N; e += 32) C[e] = e;
  __syncwarp();
  wmma::load_matrix_sync(fc, C, N, wmma::mem_row_major);
  dump(fc, o, lane); o += 32 * words(fc);
  __syncwarp();
  // arithmetic on random operands
  for (int w = lane; w < M * K * BITS / 32; w += 32) A[w] = in[w];
  for (int w = lane; w < K * N * BITS / 32; w += 32) B[w] = in[256 + w];
  for (int e = lane; e < M * N; e += 32) C[e] = (int)in[512 + e] >> 8;
  __syncwarp();
  wmma::load_matrix_sync(fa, A, K);
  wmma::load_matrix_sync(fb, B, K);
  wmma::load_matrix_sync(fc, C, N, wmma::mem_row_major);
  if constexpr (BITS == 1)
    wmma::bmma_sync(fd, fa, fb, fc, OP ? wmma::experimental::bmmaBitOpAND : wmma::experimental::bmmaBitOpXOR,
                    wmma::experimental::bmmaAccumulateOpPOPC);
  else
    wmma::mma_sync(fd, fa, fb, fc);
  dump(fd, o, lane); o += 32 * words(fd);
  wmma::store_matrix_sync(reinterpret_cast<int *>(o), fd, N, wmma::mem_row_major);
}

extern "C" __global__ void wmma_m8n8k32_s4(const u32 *in, u32 *out) {
  subbyte_case<8, 8, 32, 4, wmma::experimental::precision::s4, 0>(in, out);
}
extern "C" __global__ void wmma_m8n8k32_u4(const u32 *in, u32 *out) {
  subbyte_case<8, 8, 32, 4, wmma::experimental::precision::u4, 0>(in, out);
}
extern "C" __global__ void wmma_m8n8k128_b1_xor(const u32 *in, u32 *out) {
  subbyte_case<8, 8, 128, 1, wmma::experimental::precision::b1, 0>(in, out);
}
extern "C" __global__ void wmma_m8n8k128_b1_and(const u32 *in, u32 *out) {
  subbyte_case<8, 8, 128, 1, wmma::experimental::precision::b1, 1>(in, out);
}
