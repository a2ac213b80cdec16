// fp32.cu — single-precision arithmetic edge cases: every rounding-mode intrinsic, min/max/copysign,
// comparisons and classification, NaN payloads and signs (to see which NaN bits the hardware returns),
// infinities, signed zeros and denormals. Built twice: plainly (ptx/fp32.sm_XX.ptx) and with -ftz=true
// (ptx/fp32_ftz.sm_80.ptx), where the plain operators and the intrinsics become .ftz forms.
// Inputs: thread t < 1024 takes a = F[t >> 5], b = F[t & 31], c = F[(t * 7 + 3) & 31] from the table of
// special values below (every pair); later threads take random words: odd threads as raw bits, even
// threads reshaped to normal numbers with exponents near 0 (so the rounding modes differ).
// rnd holds 3 * N words (N = grid * block; run with grid 5, block 256): a_r = rnd[t], b_r = rnd[N + t],
// c_r = rnd[2N + t]. Results are bit patterns: out[t * K + k].
__constant__ unsigned F32S[32] = {
    0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x80800000u, 0x3f800000u,
    0xbf800000u, 0x3f000000u, 0x3fc00000u, 0x40200000u, 0xbf000000u, 0x40400000u, 0x3eaaaaabu, 0x7f7fffffu,
    0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0x7f800001u, 0xff800001u,
    0x7fffffffu, 0x4b800000u, 0x4b800001u, 0x33800000u, 0x34000000u, 0x00400000u, 0x1f800000u, 0x5f800000u};

static __device__ __forceinline__ unsigned reshape(unsigned r, unsigned t) {
  if (t & 1) return r;
  // sign and mantissa random, exponent in [-4, 3]
  return (r & 0x807fffffu) | ((123u + ((r >> 23) & 7u)) << 23);
}

struct F3 {
  unsigned t;
  float a, b, c;
};
static __device__ __forceinline__ F3 load3(const unsigned *rnd) {
  F3 v;
  unsigned n = gridDim.x * blockDim.x;
  v.t = blockIdx.x * blockDim.x + threadIdx.x;
  if (v.t < 1024) {
    v.a = __uint_as_float(F32S[v.t >> 5]);
    v.b = __uint_as_float(F32S[v.t & 31]);
    v.c = __uint_as_float(F32S[(v.t * 7 + 3) & 31]);
  } else {
    v.a = __uint_as_float(reshape(rnd[v.t], v.t));
    v.b = __uint_as_float(reshape(rnd[n + v.t], v.t));
    v.c = __uint_as_float(reshape(rnd[2 * n + v.t], v.t));
  }
  return v;
}

#define B(x) __float_as_uint(x)

// K = 31: 0..3 __fadd_rn/rz/rd/ru 4..7 __fsub_* 8..11 __fmul_* 12..15 __fmaf_*(a,b,c) 16..19 __fdiv_*
// 20 fminf 21 fmaxf 22 copysignf(a,b) 23 a+b 24 a*b 25 a/b 26 fmaf(a,b,c) 27 a*b+c (as the compiler
// contracts it) 28 min.NaN.f32 29 max.NaN.f32 30 predicate bits: a<b | a<=b<<1 | a==b<<2 | a!=b<<3 |
// a>b<<4 | isnan(a)<<5 | isinf(a)<<6 | signbit(a)<<7 | isfinite(a)<<8 | (a!=a||b!=b)<<9 | a>=b<<10
extern "C" __global__ void fp32_binary(const unsigned *rnd, unsigned *out) {
  F3 v = load3(rnd);
  float a = v.a, b = v.b, c = v.c;
  unsigned *o = out + v.t * 31;
  o[0] = B(__fadd_rn(a, b));
  o[1] = B(__fadd_rz(a, b));
  o[2] = B(__fadd_rd(a, b));
  o[3] = B(__fadd_ru(a, b));
  o[4] = B(__fsub_rn(a, b));
  o[5] = B(__fsub_rz(a, b));
  o[6] = B(__fsub_rd(a, b));
  o[7] = B(__fsub_ru(a, b));
  o[8] = B(__fmul_rn(a, b));
  o[9] = B(__fmul_rz(a, b));
  o[10] = B(__fmul_rd(a, b));
  o[11] = B(__fmul_ru(a, b));
  o[12] = B(__fmaf_rn(a, b, c));
  o[13] = B(__fmaf_rz(a, b, c));
  o[14] = B(__fmaf_rd(a, b, c));
  o[15] = B(__fmaf_ru(a, b, c));
  o[16] = B(__fdiv_rn(a, b));
  o[17] = B(__fdiv_rz(a, b));
  o[18] = B(__fdiv_rd(a, b));
  o[19] = B(__fdiv_ru(a, b));
  o[20] = B(fminf(a, b));
  o[21] = B(fmaxf(a, b));
  o[22] = B(copysignf(a, b));
  o[23] = B(a + b);
  o[24] = B(a * b);
  o[25] = B(a / b);
  o[26] = B(fmaf(a, b, c));
  o[27] = B(a * b + c);
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  o[28] = B(r);
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  o[29] = B(r);
  o[30] = (a < b) | (a <= b) << 1 | (a == b) << 2 | (a != b) << 3 | (a > b) << 4 | (isnan(a) ? 1 : 0) << 5 |
          (isinf(a) ? 1 : 0) << 6 | (signbit(a) ? 1 : 0) << 7 | (isfinite(a) ? 1 : 0) << 8 |
          (a != a || b != b) << 9 | (a >= b) << 10;
}

// K = 25, one input per thread: x = a of the scheme above, but only F32S[t] for t < 32 (then random).
// 0..3 __frcp_rn/rz/rd/ru 4..7 __fsqrt_rn/rz/rd/ru 8 sqrtf 9 rsqrtf 10 1.0f/x 11 fabsf 12 -x 13 truncf
// 14 floorf 15 ceilf 16 rintf 17 roundf 18 __saturatef 19 testp bits (finite, infinite, number,
// notanumber, normal, subnormal = bits 0..5) 20 add.f32 x, -0.0 21 mul.f32 x, 1.0 22,23 (double)x lo, hi
// 24 __frsqrt_rn
extern "C" __global__ void fp32_unary(const unsigned *rnd, unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float x = __uint_as_float(t < 32 ? F32S[t] : reshape(rnd[t], t));
  unsigned *o = out + t * 25;
  o[0] = B(__frcp_rn(x));
  o[1] = B(__frcp_rz(x));
  o[2] = B(__frcp_rd(x));
  o[3] = B(__frcp_ru(x));
  o[4] = B(__fsqrt_rn(x));
  o[5] = B(__fsqrt_rz(x));
  o[6] = B(__fsqrt_rd(x));
  o[7] = B(__fsqrt_ru(x));
  o[8] = B(sqrtf(x));
  o[9] = B(rsqrtf(x));
  o[10] = B(1.0f / x);
  o[11] = B(fabsf(x));
  o[12] = B(-x);
  o[13] = B(truncf(x));
  o[14] = B(floorf(x));
  o[15] = B(ceilf(x));
  o[16] = B(rintf(x));
  o[17] = B(roundf(x));
  o[18] = B(__saturatef(x));
  unsigned m;
  asm("{ .reg .pred p; .reg .u32 k;\n\t"
      "testp.finite.f32 p, %1; selp.u32 %0, 1, 0, p;\n\t"
      "testp.infinite.f32 p, %1; selp.u32 k, 2, 0, p; or.b32 %0, %0, k;\n\t"
      "testp.number.f32 p, %1; selp.u32 k, 4, 0, p; or.b32 %0, %0, k;\n\t"
      "testp.notanumber.f32 p, %1; selp.u32 k, 8, 0, p; or.b32 %0, %0, k;\n\t"
      "testp.normal.f32 p, %1; selp.u32 k, 16, 0, p; or.b32 %0, %0, k;\n\t"
      "testp.subnormal.f32 p, %1; selp.u32 k, 32, 0, p; or.b32 %0, %0, k; }"
      : "=r"(m) : "f"(x));
  o[19] = m;
  float r;
  asm("add.f32 %0, %1, 0f80000000;" : "=f"(r) : "f"(x));
  o[20] = B(r);
  asm("mul.f32 %0, %1, 0f3F800000;" : "=f"(r) : "f"(x));
  o[21] = B(r);
  unsigned long long d = __double_as_longlong((double)x);
  o[22] = (unsigned)d;
  o[23] = (unsigned)(d >> 32);
  o[24] = B(__frsqrt_rn(x));
}
