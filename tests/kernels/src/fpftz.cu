// fpftz.cu — .ftz at the edge of the normal range: results whose exact value lies a few ulps below or
// above 2^-126. IEEE rounding may carry such a value up to 2^-126; whether .ftz flushes it first
// (tininess before rounding) or after (after rounding) is the hardware's choice, and this measures it
// for every rounding mode of mul, fma, div, rcp, add and cvt.f32.f64, next to the plain forms.
// rnd holds one word per thread; out[t * 24 + k] are result bit patterns (k below).
#define B(x) __float_as_uint(x)
#define ASM2(op, d, a, b) asm(op " %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b))
#define ASM3(op, d, a, b, c) asm(op " %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c))

extern "C" __global__ void ftz_edge(const unsigned *rnd, unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, r = rnd[t];
  int k = (int)((r >> 23) & 15u) - 8;                                  // -8..7 ulps from the boundary
  float a = __uint_as_float(0x3f800000u | (r & 0x7fffffu));            // [1, 2)
  float q = __uint_as_float(__float_as_uint(__fdiv_rn(1.17549435e-38f, a)) + k); // a * q ~ 2^-126
  float c = __uint_as_float(((r & 1u) << 31) | (r >> 9 & 0x3fffu));    // a tiny signed subnormal
  float n = __uint_as_float(0x00800000u + (r & 31u));                  // 2^-126 + a few ulps
  float big = __uint_as_float(0x7e800000u + (r & 63u));                // 2^126 (1 + a few ulps)
  float m = __uint_as_float(0x80000000u | (0x00800000u - 1u - ((r >> 5) & 15u)));  // -(just below 2^-126)
  double dd = __longlong_as_double(0x3810000000000000ll + (long long)k * 0x10000000ll + (r & 0xfffffff)); // ~2^-126
  unsigned *o = out + t * 24;
  float d;
  ASM2("mul.rn.ftz.f32", d, a, q); o[0] = B(d);
  ASM2("mul.rz.ftz.f32", d, a, q); o[1] = B(d);
  ASM2("mul.rm.ftz.f32", d, a, q); o[2] = B(d);
  ASM2("mul.rp.ftz.f32", d, a, q); o[3] = B(d);
  ASM2("mul.rn.f32", d, a, q); o[4] = B(d);
  ASM3("fma.rn.ftz.f32", d, a, q, c); o[5] = B(d);
  ASM3("fma.rz.ftz.f32", d, a, q, c); o[6] = B(d);
  ASM3("fma.rm.ftz.f32", d, a, q, c); o[7] = B(d);
  ASM3("fma.rp.ftz.f32", d, a, q, c); o[8] = B(d);
  ASM3("fma.rn.f32", d, a, q, c); o[9] = B(d);
  float p = __fmul_rn(a, __uint_as_float(0x00800000u + (unsigned)(k + 8)));  // a * (2^-126 + ...)
  ASM2("div.rn.ftz.f32", d, p, a); o[10] = B(d);
  ASM2("div.rz.ftz.f32", d, p, a); o[11] = B(d);
  ASM2("div.rp.ftz.f32", d, p, a); o[12] = B(d);
  ASM2("div.rn.f32", d, p, a); o[13] = B(d);
  asm("rcp.rn.ftz.f32 %0, %1;" : "=f"(d) : "f"(big)); o[14] = B(d);
  asm("rcp.rp.ftz.f32 %0, %1;" : "=f"(d) : "f"(big)); o[15] = B(d);
  asm("rcp.rn.f32 %0, %1;" : "=f"(d) : "f"(big)); o[16] = B(d);
  ASM2("add.rn.ftz.f32", d, n, m); o[17] = B(d);
  ASM2("add.rn.f32", d, n, m); o[18] = B(d);
  asm("cvt.rn.ftz.f32.f64 %0, %1;" : "=f"(d) : "d"(dd)); o[19] = B(d);
  asm("cvt.rp.ftz.f32.f64 %0, %1;" : "=f"(d) : "d"(dd)); o[20] = B(d);
  asm("cvt.rn.f32.f64 %0, %1;" : "=f"(d) : "d"(dd)); o[21] = B(d);
  ASM3("mad.rn.ftz.f32", d, a, q, c); o[22] = B(d);
  ASM2("sub.rp.ftz.f32", d, n, __uint_as_float(__float_as_uint(m) & 0x7fffffffu)); o[23] = B(d);
}
