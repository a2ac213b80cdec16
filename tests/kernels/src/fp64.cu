// fp64.cu — double-precision edge cases: every rounding-mode intrinsic, min/max/copysign, comparisons,
// NaN payloads, infinities, signed zeros, denormals, and the approximate rsqrt/rcp instructions.
// Inputs: thread t < 1024 takes A = D[t >> 5], B = D[t & 31], C = D[(t * 7 + 3) & 31] (every pair of the
// table below); later threads take random words: odd threads as raw bits, even threads reshaped to normal
// numbers with exponents near 0. rnd holds 6 * N words (N = grid * block; run with grid 5, block 256).
// Results are bit patterns, one u64 per result: out[t * K + k].
typedef unsigned long long ull;

__constant__ ull D64S[32] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull, 0x8000000000000001ull,
    0x000fffffffffffffull, 0x0010000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x3fe0000000000000ull, 0x3ff8000000000000ull, 0x4004000000000000ull, 0xbfe0000000000000ull,
    0x4008000000000000ull, 0x3fd5555555555555ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
    0x7ff8000000000001ull, 0x7ff0000000000001ull, 0x7fffffffffffffffull, 0x4340000000000000ull,
    0x4340000000000001ull, 0x3ff0000000000001ull, 0x3ca0000000000000ull, 0x0008000000000000ull,
    0x1ff0000000000000ull, 0x5ff0000000000000ull, 0x7e37e43c8800759cull, 0x3f847ae147ae147bull};

static __device__ __forceinline__ double mkd(const unsigned *rnd, unsigned n, unsigned k, unsigned t) {
  ull r = ((ull)rnd[(2 * k) * n + t] << 32) | rnd[(2 * k + 1) * n + t];
  if (!(t & 1)) r = (r & 0x800fffffffffffffull) | ((ull)(1019 + ((r >> 52) & 7)) << 52);
  return __longlong_as_double((long long)r);
}

#define B(x) ((ull)__double_as_longlong(x))

// K = 26: 0..3 __dadd_rn/rz/rd/ru 4..7 __dsub_* 8..11 __dmul_* 12..15 __fma_*(a,b,c) 16..19 __ddiv_*
// 20 fmin 21 fmax 22 copysign(a,b) 23 a+b 24 a*b+c (as the compiler contracts it) 25 predicate bits:
// a<b | a<=b<<1 | a==b<<2 | a!=b<<3 | a>b<<4 | isnan(a)<<5 | isinf(a)<<6 | signbit(a)<<7 | a>=b<<8
extern "C" __global__ void fp64_binary(const unsigned *rnd, ull *out) {
  unsigned n = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
  double a, b, c;
  if (t < 1024) {
    a = __longlong_as_double((long long)D64S[t >> 5]);
    b = __longlong_as_double((long long)D64S[t & 31]);
    c = __longlong_as_double((long long)D64S[(t * 7 + 3) & 31]);
  } else {
    a = mkd(rnd, n, 0, t);
    b = mkd(rnd, n, 1, t);
    c = mkd(rnd, n, 2, t);
  }
  ull *o = out + t * 26;
  o[0] = B(__dadd_rn(a, b));
  o[1] = B(__dadd_rz(a, b));
  o[2] = B(__dadd_rd(a, b));
  o[3] = B(__dadd_ru(a, b));
  o[4] = B(__dsub_rn(a, b));
  o[5] = B(__dsub_rz(a, b));
  o[6] = B(__dsub_rd(a, b));
  o[7] = B(__dsub_ru(a, b));
  o[8] = B(__dmul_rn(a, b));
  o[9] = B(__dmul_rz(a, b));
  o[10] = B(__dmul_rd(a, b));
  o[11] = B(__dmul_ru(a, b));
  o[12] = B(__fma_rn(a, b, c));
  o[13] = B(__fma_rz(a, b, c));
  o[14] = B(__fma_rd(a, b, c));
  o[15] = B(__fma_ru(a, b, c));
  o[16] = B(__ddiv_rn(a, b));
  o[17] = B(__ddiv_rz(a, b));
  o[18] = B(__ddiv_rd(a, b));
  o[19] = B(__ddiv_ru(a, b));
  o[20] = B(fmin(a, b));
  o[21] = B(fmax(a, b));
  o[22] = B(copysign(a, b));
  o[23] = B(a + b);
  o[24] = B(a * b + c);
  o[25] = (ull)((a < b) | (a <= b) << 1 | (a == b) << 2 | (a != b) << 3 | (a > b) << 4 | (isnan(a) ? 1 : 0) << 5 |
                (isinf(a) ? 1 : 0) << 6 | (signbit(a) ? 1 : 0) << 7 | (a >= b) << 8);
}

// K = 21, one input per thread (D[t] for t < 32, then random): 0..3 __drcp_rn/rz/rd/ru
// 4..7 __dsqrt_rn/rz/rd/ru 8 sqrt 9 rsqrt (libdevice) 10 rsqrt.approx.f64 11 rcp.approx.ftz.f64 12 trunc
// 13 floor 14 ceil 15 rint 16 round 17 fabs 18 -x 19 testp bits (finite, infinite, number, notanumber,
// normal, subnormal) 20 add.f64 x, -0.0
extern "C" __global__ void fp64_unary(const unsigned *rnd, ull *out) {
  unsigned n = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
  double x = t < 32 ? __longlong_as_double((long long)D64S[t]) : mkd(rnd, n, 0, t);
  ull *o = out + t * 21;
  o[0] = B(__drcp_rn(x));
  o[1] = B(__drcp_rz(x));
  o[2] = B(__drcp_rd(x));
  o[3] = B(__drcp_ru(x));
  o[4] = B(__dsqrt_rn(x));
  o[5] = B(__dsqrt_rz(x));
  o[6] = B(__dsqrt_rd(x));
  o[7] = B(__dsqrt_ru(x));
  o[8] = B(sqrt(x));
  o[9] = B(rsqrt(x));
  double r;
  asm("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(x));
  o[10] = B(r);
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  o[11] = B(r);
  o[12] = B(trunc(x));
  o[13] = B(floor(x));
  o[14] = B(ceil(x));
  o[15] = B(rint(x));
  o[16] = B(round(x));
  o[17] = B(fabs(x));
  o[18] = B(-x);
  unsigned m;
  asm("{ .reg .pred p; .reg .u32 k;\n\t"
      "testp.finite.f64 p, %1; selp.u32 %0, 1, 0, p;\n\t"
      "testp.infinite.f64 p, %1; selp.u32 k, 2, 0, p; or.b32 %0, %0, k;\n\t"
      "testp.number.f64 p, %1; selp.u32 k, 4, 0, p; or.b32 %0, %0, k;\n\t"
      "testp.notanumber.f64 p, %1; selp.u32 k, 8, 0, p; or.b32 %0, %0, k;\n\t"
      "testp.normal.f64 p, %1; selp.u32 k, 16, 0, p; or.b32 %0, %0, k;\n\t"
      "testp.subnormal.f64 p, %1; selp.u32 k, 32, 0, p; or.b32 %0, %0, k; }"
      : "=r"(m) : "d"(x));
  o[19] = m;
  asm("add.f64 %0, %1, 0d8000000000000000;" : "=d"(r) : "d"(x));
  o[20] = B(r);
}
