/*
 * fpmath.c — warpvm's scalar PTX float and conversion semantics (see fpmath.h for the contract).
 *
 * Owns: directed-rounding IEEE arithmetic (fesetround around one volatile operation), the f64 NaN
 * policy, min/max/testp, and every cvt through one software
 * rounding engine (round_pack) that never depends on the host's conversion instructions.
 * Built with -frounding-math (CMakeLists.txt), so the compiler neither folds nor moves float
 * operations across the fesetround() calls; the volatile temporaries make that doubly sure.
 */
#include "exec/fpmath.h"

#include <fenv.h>
#include <float.h>
#include <limits.h>

/* NaN priority of fma.f64 when several operands are NaN: a, then c, then b (nvcc-compiled code on
 * an H200; see the NaN policy in fpmath.h). */
#define WV_FP__FMA_NAN_ORDER a, c, b

#if defined(__clang__) /* GCC relies on -frounding-math and ignores (warns on) the pragma */
#pragma STDC FENV_ACCESS ON
#endif

/* ============================================================================================
 * Rounding-mode switching
 * ============================================================================================ */

static int host_mode(wv_fp_rnd r) {
  switch (r) {
  case WV_FP_RZ: return FE_TOWARDZERO;
  case WV_FP_RM: return FE_DOWNWARD;
  case WV_FP_RP: return FE_UPWARD;
  default: return FE_TONEAREST; /* RN, and RNA which only cvt uses (handled in software) */
  }
}

/* Enter `r` for one operation; returns the mode to restore. */
static int mode_enter(wv_fp_rnd r) {
  int old = fegetround();
  int want = host_mode(r);
  if (old != want) fesetround(want);
  return old;
}
static void mode_leave(int old, wv_fp_rnd r) {
  if (old != host_mode(r)) fesetround(old);
}

/* Each helper performs exactly one IEEE operation in mode `r`. The operands are read from and
 * the result written to volatile objects between the two fesetround() calls, so the operation
 * cannot be hoisted, sunk or constant-folded out of the rounding-mode window. */
static float op32(int op, float a, float b, float c, wv_fp_rnd r) {
  if (r == WV_FP_RN) { /* the caller's environment is round-to-nearest (fpmath.h contract) */
    switch (op) {
    case WV_FP__ADD: return a + b;
    case WV_FP__SUB: return a - b;
    case WV_FP__MUL: return a * b;
    case WV_FP__FMA: return fmaf(a, b, c);
    case WV_FP__DIV: return a / b;
    case WV_FP__SQRT: return sqrtf(a);
    default: return 1.0f / a;
    }
  }
  int old = mode_enter(r);
  volatile float va = a, vb = b, vc = c, vr;
  switch (op) {
  case WV_FP__ADD: vr = va + vb; break;
  case WV_FP__SUB: vr = va - vb; break;
  case WV_FP__MUL: vr = va * vb; break;
  case WV_FP__FMA: vr = fmaf(va, vb, vc); break;
  case WV_FP__DIV: vr = va / vb; break;
  case WV_FP__SQRT: vr = sqrtf(va); break; /* callers never pass a negative: no errno */
  default: vr = 1.0f / va; break;          /* RCP */
  }
  mode_leave(old, r);
  return vr;
}

static double op64(int op, double a, double b, double c, wv_fp_rnd r) {
  if (r == WV_FP_RN) {
    switch (op) {
    case WV_FP__ADD: return a + b;
    case WV_FP__SUB: return a - b;
    case WV_FP__MUL: return a * b;
    case WV_FP__FMA: return fma(a, b, c);
    case WV_FP__DIV: return a / b;
    case WV_FP__SQRT: return sqrt(a);
    default: return 1.0 / a;
    }
  }
  int old = mode_enter(r);
  volatile double va = a, vb = b, vc = c, vr;
  switch (op) {
  case WV_FP__ADD: vr = va + vb; break;
  case WV_FP__SUB: vr = va - vb; break;
  case WV_FP__MUL: vr = va * vb; break;
  case WV_FP__FMA: vr = fma(va, vb, vc); break;
  case WV_FP__DIV: vr = va / vb; break;
  case WV_FP__SQRT: vr = sqrt(va); break;
  default: vr = 1.0 / va; break;
  }
  mode_leave(old, r);
  return vr;
}

/* ============================================================================================
 * IEEE arithmetic
 * ============================================================================================ */

/* .sat on f64 and f16/bf16 results, as wv_fp_sat32 (fpmath.h) on f32. */
static uint64_t sat64(uint64_t r) {
  if (wv_fp_isnan64(r) || (r >> 63)) return 0;
  if (r > 0x3ff0000000000000ull) return 0x3ff0000000000000ull;
  return r;
}
static uint32_t sat16(uint32_t r, int ebits, int mbits) { /* f16 / bf16 */
  uint32_t sign = 1u << (ebits + mbits), inf = ((1u << ebits) - 1) << mbits;
  uint32_t one = ((1u << (ebits - 1)) - 1) << mbits;
  if ((r & (sign - 1)) > inf || (r & sign)) return 0;
  return r > one ? one : r;
}

/*
 * .ftz tininess. The GPU decides "subnormal result" on the value rounded with an unbounded
 * exponent (tininess after rounding, before denormalisation): e.g. mul.rn.ftz(1-2^-24, 2^-126)
 * = 2^-126(1-2^-24) is tiny and flushes to 0, although gradual-underflow rounding would give
 * exactly 2^-126 (measured on sm_90). The IEEE result can only disagree when it is exactly
 * ±2^-126; then we redo the operation scaled by 2^64 (exact, and far from underflow) in the same
 * mode and look at the magnitude. add/sub results that close to 2^-126 are always exact.
 */
static int tiny_unbounded(int op, uint32_t a, uint32_t b, uint32_t c, wv_fp_rnd rnd) {
  const float two64 = 18446744073709551616.0f;
  float fa = wv_fp_f32(a), fb = wv_fp_f32(b), fc = wv_fp_f32(c), r;
  switch (op) {
  case WV_FP__MUL: /* one factor is ≤ 2^-63 in magnitude: scale that one */
    if (fabsf(fa) <= fabsf(fb)) r = op32(op, fa * two64, fb, 0, rnd);
    else r = op32(op, fa, fb * two64, 0, rnd);
    break;
  case WV_FP__DIV: r = op32(op, fa * two64, fb, 0, rnd); break; /* |a| ≤ 4 here */
  case WV_FP__RCP: r = op32(WV_FP__DIV, two64, fa, 0, rnd); break;
  case WV_FP__FMA: /* |c| < 2^64 and one factor ≤ 2^33 whenever a*b+c ≈ 2^-126 */
    if (fabsf(fa) <= fabsf(fb)) r = op32(op, fa * two64, fb, fc * two64, rnd);
    else r = op32(op, fa, fb * two64, fc * two64, rnd);
    break;
  default: return 0;
  }
  return fabsf(r) < 0x1p-62f;
}

uint32_t wv_fp__arith_f32(int op, uint32_t a, uint32_t b, uint32_t c, wv_fp_rnd rnd,
                          unsigned flags) {
  if (flags & WV_FP_FTZ) {
    a = wv_fp_flush32(a);
    b = wv_fp_flush32(b);
    c = wv_fp_flush32(c);
  }
  if (rnd == WV_FP_RNA) rnd = WV_FP_RN;
  uint32_t res;
  if (op == WV_FP__SQRT && (a & 0x80000000u) && (a & 0x7fffffffu) != 0) {
    res = WV_FP_F32_NAN; /* sqrt of a negative (or of a NaN with the sign set) */
  } else {
    float r = op32(op, wv_fp_f32(a), wv_fp_f32(b), wv_fp_f32(c), rnd);
    res = wv_fp__canon32(r);
  }
  if (flags & WV_FP_FTZ) {
    res = wv_fp_flush32(res);
    if ((res & 0x7fffffffu) == 0x00800000u && tiny_unbounded(op, a, b, c, rnd))
      res &= 0x80000000u;
  }
  if (flags & WV_FP_SAT) res = wv_fp_sat32(res);
  return res;
}

/*
 * The f64 NaN rule (one place; see fpmath.h). Measured on sm_90: a NaN operand comes back with
 * its quiet bit set, sign and payload kept; when several operands are NaN the hardware picks by
 * operation, so callers pass the operands in priority order (add/sub/mul/min/max: b before a;
 * div: a before b; fma: see wv_fp__arith_f64). NaNs made from numbers are WV_FP_F64_NAN.
 */
uint64_t wv_fp__f64_nan(uint64_t p0, uint64_t p1, uint64_t p2, int nargs) {
#if WV_FP_F64_NAN_PROPAGATE
  const uint64_t in[3] = {p0, p1, p2};
  for (int i = 0; i < nargs && i < 3; i++)
    if (wv_fp_isnan64(in[i])) return in[i] | 0x0008000000000000ull;
#else
  (void)p0; (void)p1; (void)p2; (void)nargs;
#endif
  return WV_FP_F64_NAN;
}

uint64_t wv_fp__arith_f64(int op, uint64_t a, uint64_t b, uint64_t c, wv_fp_rnd rnd) {
  if (rnd == WV_FP_RNA) rnd = WV_FP_RN;
  if (op == WV_FP__SQRT && !wv_fp_isnan64(a) && (a >> 63) && (a << 1) != 0)
    return WV_FP_F64_NAN;
  double r = op64(op, wv_fp_f64(a), wv_fp_f64(b), wv_fp_f64(c), rnd);
  if (r == r) return wv_fp_b64(r);
  switch (op) {
  case WV_FP__ADD:
  case WV_FP__SUB:
  case WV_FP__MUL: return wv_fp__f64_nan(a, b, 0, 2);
  case WV_FP__DIV: return wv_fp__f64_nan(a, b, 0, 2);
  case WV_FP__FMA: return wv_fp__f64_nan(WV_FP__FMA_NAN_ORDER, 3);
  default: return wv_fp__f64_nan(a, 0, 0, 1);
  }
}

/* ============================================================================================
 * testp (min / max are inline in fpmath.h)
 * ============================================================================================ */

static int testp(uint64_t exp, uint64_t expmax, uint64_t mant, wv_fp_testp op) {
  int nan = exp == expmax && mant != 0, inf = exp == expmax && mant == 0;
  switch (op) {
  case WV_FP_TEST_FINITE: return exp != expmax;
  case WV_FP_TEST_INFINITE: return inf;
  case WV_FP_TEST_NUMBER: return !nan;
  case WV_FP_TEST_NOTANUMBER: return nan;
  case WV_FP_TEST_NORMAL: return (exp != 0 && exp != expmax) || (exp == 0 && mant == 0);
  case WV_FP_TEST_SUBNORMAL: return exp == 0 && mant != 0;
  }
  return 0;
}
int wv_fp_testp_f32(uint32_t a, wv_fp_testp op) {
  return testp((a >> 23) & 0xff, 0xff, a & 0x7fffffu, op);
}
int wv_fp_testp_f64(uint64_t a, wv_fp_testp op) {
  return testp((a >> 52) & 0x7ff, 0x7ff, a & 0xfffffffffffffull, op);
}

/* ============================================================================================
 * The rounding engine: sign * (sig / 2^63) * 2^e → a binary format, in any mode, exactly.
 * ============================================================================================ */

typedef struct fmt {
  int mbits, ebits; /* stored mantissa bits, exponent bits */
} fmt;
static const fmt FMT_F16 = {10, 5}, FMT_BF16 = {7, 8}, FMT_TF32 = {10, 8}, FMT_F32 = {23, 8},
                 FMT_F64 = {52, 11};

static int clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }

/* `sig` has bit 63 set (or is 0 with sticky 0: zero); `e` is the exponent of bit 63; `sticky`
 * says nonzero bits lie below sig. Returns the format's bit pattern (sign at bit mbits+ebits). */
static uint64_t round_pack(int sign, int e, uint64_t sig, int sticky, fmt f, wv_fp_rnd rnd) {
  const int bias = (1 << (f.ebits - 1)) - 1, emin = 1 - bias, emax = bias;
  const uint64_t sbit = (uint64_t)(sign != 0) << (f.mbits + f.ebits);
  const uint64_t inf = (uint64_t)((1 << f.ebits) - 1) << f.mbits;
  const uint64_t maxfin = inf - 1;
  if (sig == 0 && !sticky) return sbit;
  if (e > emax) goto overflow;
  {
    int sh = 63 - f.mbits + (e < emin ? emin - e : 0); /* bits dropped; >= 11 */
    uint64_t keep;
    int above, tie, inexact;
    if (sh >= 65) { /* below half of the smallest subnormal */
      keep = 0, above = 0, tie = 0, inexact = 1;
    } else if (sh == 64) { /* the leading bit is the round bit */
      uint64_t rest = sig << 1;
      keep = 0, above = rest != 0 || sticky, tie = !above, inexact = 1;
    } else {
      uint64_t r = sig & ((1ull << sh) - 1), half = 1ull << (sh - 1);
      keep = sig >> sh;
      above = r > half || (r == half && sticky);
      tie = r == half && !sticky;
      inexact = r != 0 || sticky;
    }
    int inc = 0;
    switch (rnd) {
    case WV_FP_RN: inc = above || (tie && (keep & 1)); break;
    case WV_FP_RNA: inc = above || tie; break;
    case WV_FP_RZ: inc = 0; break;
    case WV_FP_RM: inc = inexact && sign; break;
    case WV_FP_RP: inc = inexact && !sign; break;
    }
    keep += (uint64_t)inc;
    /* Normal: keep carries the hidden bit, so adding it to (e-emin)<<mbits yields the biased
     * exponent; a rounding carry ripples into the exponent (and up to inf) by itself. */
    uint64_t bits = e < emin ? keep : ((uint64_t)(e - emin) << f.mbits) + keep;
    if (bits >= inf) goto overflow;
    return sbit | bits;
  }
overflow:;
  int to_inf = rnd == WV_FP_RN || rnd == WV_FP_RNA || (rnd == WV_FP_RP && !sign) ||
               (rnd == WV_FP_RM && sign);
  return sbit | (to_inf ? inf : maxfin);
}

/* Decoded finite value: sign * sig/2^63 * 2^e (sig normalized, or 0 for zero). */
typedef struct dec {
  int sign, e;
  uint64_t sig;
} dec;

static dec decode_f64(uint64_t b) {
  dec d = {(int)(b >> 63), 0, 0};
  int ex = (int)((b >> 52) & 0x7ff);
  uint64_t m = b & 0xfffffffffffffull;
  if (ex == 0) {
    if (m == 0) return d;
    int lz = clz64(m);
    d.sig = m << lz;
    d.e = (63 - lz) - 1074;
  } else {
    d.sig = (m | 0x10000000000000ull) << 11;
    d.e = ex - 1023;
  }
  return d;
}

/* Small formats (f16, bf16, f32, tf32-as-f32) widen exactly into f64 bits. NaN/inf handled by
 * the caller; this only sees finite values. */
static uint64_t small_to_f64_bits(uint32_t b, fmt f) {
  int sign = (b >> (f.mbits + f.ebits)) & 1;
  int ex = (int)((b >> f.mbits) & ((1u << f.ebits) - 1));
  uint64_t m = b & ((1u << f.mbits) - 1);
  int bias = (1 << (f.ebits - 1)) - 1;
  uint64_t s = (uint64_t)sign << 63;
  if (ex == 0) {
    if (m == 0) return s;
    int lz = clz64(m);
    int e = (63 - lz) - (bias - 1) - f.mbits; /* exponent of the leading bit */
    uint64_t frac = lz == 63 ? 0 : (m << (lz + 1)) >> 12; /* bits below the leading one */
    return s | ((uint64_t)(e + 1023) << 52) | frac;
  }
  return s | ((uint64_t)(ex - bias + 1023) << 52) | (m << (52 - f.mbits));
}

/* ============================================================================================
 * cvt
 * ============================================================================================ */

static int is_int(wv_fp_type t) { return t <= WV_FP_S64; }
static int is_signed(wv_fp_type t) { return t >= WV_FP_S8 && t <= WV_FP_S64; }
static int int_bits(wv_fp_type t) { return 8 << ((int)t & 3); }
static fmt type_fmt(wv_fp_type t) {
  switch (t) {
  case WV_FP_F16: return FMT_F16;
  case WV_FP_BF16: return FMT_BF16;
  case WV_FP_TF32: return FMT_TF32;
  case WV_FP_F32: return FMT_F32;
  default: return FMT_F64;
  }
}

/* A float source, classified. */
typedef struct fsrc {
  int nan, inf, sign;
  uint64_t f64; /* the exact value as f64 bits (finite values only) */
} fsrc;

static fsrc read_float(uint64_t bits, wv_fp_type src, unsigned flags) {
  fsrc s = {0, 0, 0, 0};
  if (src == WV_FP_F64) {
    s.sign = (int)(bits >> 63);
    s.nan = wv_fp_isnan64(bits);
    s.inf = (bits << 1) == 0xffe0000000000000ull;
    s.f64 = bits;
    return s;
  }
  fmt f = src == WV_FP_TF32 ? FMT_F32 : type_fmt(src); /* tf32 lives in an f32 pattern */
  uint32_t b = (uint32_t)bits & (uint32_t)((1ull << (1 + f.ebits + f.mbits)) - 1);
  if (src == WV_FP_F32 && (flags & WV_FP_FTZ)) b = wv_fp_flush32(b);
  uint32_t expmask = ((1u << f.ebits) - 1) << f.mbits, mmask = (1u << f.mbits) - 1;
  s.sign = (b >> (f.mbits + f.ebits)) & 1;
  s.nan = (b & expmask) == expmask && (b & mmask) != 0;
  s.inf = (b & expmask) == expmask && (b & mmask) == 0;
  if (!s.nan && !s.inf) s.f64 = small_to_f64_bits(b, f);
  return s;
}

/* Round a finite decoded value to an integer magnitude; *big when it is ≥ 2^64. */
static uint64_t round_int_mag(dec d, wv_fp_rnd rnd, int *big) {
  *big = 0;
  if (d.sig == 0) return 0;
  if (d.e >= 64) {
    *big = 1;
    return 0;
  }
  uint64_t ip, frac; /* frac: the fraction as a 64-bit binary fixed point */
  int sticky = 0;
  if (d.e < 0) {
    ip = 0;
    if (d.e == -1) frac = d.sig;
    else if (d.e >= -64) frac = d.sig >> (-1 - d.e), sticky = (d.sig << (65 + d.e)) != 0;
    else frac = 0, sticky = 1;
  } else if (d.e == 63) {
    ip = d.sig, frac = 0;
  } else {
    ip = d.sig >> (63 - d.e);
    frac = d.sig << (d.e + 1);
  }
  const uint64_t half = 1ull << 63;
  int above = frac > half || (frac == half && sticky), tie = frac == half && !sticky;
  int inexact = frac != 0 || sticky, inc = 0;
  switch (rnd) {
  case WV_FP_RN: inc = above || (tie && (ip & 1)); break;
  case WV_FP_RNA: inc = above || tie; break;
  case WV_FP_RZ: break;
  case WV_FP_RM: inc = inexact && d.sign; break;
  case WV_FP_RP: inc = inexact && !d.sign; break;
  }
  if (inc && ip == UINT64_MAX) {
    *big = 1;
    return 0;
  }
  return ip + (uint64_t)inc;
}

/* Integer (sign, magnitude, too-big) → clamped destination, sign/zero extended to 64 bits. */
static uint64_t clamp_int(int neg, uint64_t mag, int big, wv_fp_type dst) {
  int n = int_bits(dst);
  if (is_signed(dst)) {
    uint64_t maxpos = (1ull << (n - 1)) - 1; /* n ≤ 64: 1ull << 63 is fine */
    if (neg) {
      if (big || mag > maxpos + 1) return (uint64_t)0 - (maxpos + 1); /* MIN, sign-extended */
      return (uint64_t)0 - mag;
    }
    if (big || mag > maxpos) return maxpos;
    return mag;
  }
  uint64_t maxu = n == 64 ? UINT64_MAX : (1ull << n) - 1;
  if (neg) return 0;
  if (big || mag > maxu) return maxu;
  return mag;
}

/* NaN → integer (measured on sm_90): the 32-bit F2I path (f16/bf16/f32 source, destination of at
 * most 32 bits) gives 0; the f64 and 64-bit paths give the destination's sign-bit pattern
 * (0x80, 0x8000, 0x80000000, 0x8000000000000000), sign-extended for signed destinations. */
static uint64_t nan_to_int(wv_fp_type src, wv_fp_type dst) {
  int n = int_bits(dst);
  if (src != WV_FP_F64 && n <= 32) return 0;
  uint64_t v = 1ull << (n - 1);
  if (is_signed(dst) && n < 64) v |= ~((1ull << n) - 1);
  return v;
}

static uint64_t float_to_int(fsrc s, wv_fp_type src, wv_fp_type dst, wv_fp_rnd rnd) {
  if (s.nan) return nan_to_int(src, dst);
  if (s.inf) return clamp_int(s.sign, 0, 1, dst);
  int big;
  uint64_t mag = round_int_mag(decode_f64(s.f64), rnd, &big);
  return clamp_int(s.sign && (mag || big), mag, big, dst);
}

/* Post-processing of a float result in format f (bits): .relu, .satfinite, .sat, .ftz. */
static uint64_t float_post(uint64_t r, wv_fp_type dst, unsigned flags) {
  fmt f = type_fmt(dst);
  if (dst == WV_FP_TF32) f = FMT_F32;
  const uint64_t sbit = 1ull << (f.mbits + f.ebits);
  const uint64_t inf = (uint64_t)((1 << f.ebits) - 1) << f.mbits;
  int nan = (r & (sbit - 1)) > inf;
  if ((flags & WV_FP_RELU) && !nan && (r & sbit)) r = 0;
  if ((flags & WV_FP_SATFINITE) && !nan && (r & (sbit - 1)) == inf) {
    r = (r & sbit) | (inf - 1);
    if (dst == WV_FP_TF32) r &= ~(uint64_t)0x1fff; /* largest tf32 value */
  }
  if (dst == WV_FP_F32 && (flags & WV_FP_FTZ)) r = wv_fp_flush32((uint32_t)r);
  if (flags & WV_FP_SAT) {
    switch (dst) {
    case WV_FP_F64: r = sat64(r); break;
    case WV_FP_F16: r = sat16((uint32_t)r, 5, 10); break;
    case WV_FP_BF16: r = sat16((uint32_t)r, 8, 7); break;
    default: r = wv_fp_sat32((uint32_t)r); break;
    }
  }
  return r;
}

/*
 * NaN through cvt (all measured on sm_90):
 *   f64 → f32/f16/bf16: IEEE narrowing — sign kept, quiet bit set, top payload bits kept;
 *   f16/f32 → f16/f32/bf16 (incl. same-type rounding): the canonical NaN (0x7fff / 0x7fffffff);
 *   bf16 → f32: a plain 16-bit shift (even a signalling NaN stays as it is);
 *   f16/bf16/f32 → f64: IEEE widening (sign kept, quieted, payload shifted up); with .ftz an f32
 *   NaN is canonicalised first (ptxas emits FMUL.FTZ x,1 before the F2F) → 0x7fffffffe0000000;
 *   f64 → f64 (cvt.rni.f64.f64): the input, quieted;
 *   f32 → tf32: .rna keeps the pattern with the low 13 bits cleared (a NaN whose payload lies
 *   only there becomes inf!); .rn/.rz give 0x7fffe000.
 */
static uint64_t cvt_nan(uint64_t bits, wv_fp_type dst, wv_fp_type src, wv_fp_rnd rnd,
                        unsigned flags) {
  if (src == WV_FP_F32 && (flags & WV_FP_FTZ)) bits = WV_FP_F32_NAN;
  if (src == WV_FP_TF32) src = WV_FP_F32;
  if (dst == WV_FP_TF32) return rnd == WV_FP_RNA ? (bits & 0xffffe000u) : 0x7fffe000u;
  if (src == WV_FP_F64) {
    uint64_t sg = bits >> 63, m = bits & 0xfffffffffffffull;
    switch (dst) {
    case WV_FP_F64: return bits | 0x0008000000000000ull;
    case WV_FP_F32: return (sg << 31) | 0x7fc00000u | (m >> 29);
    case WV_FP_F16: return (sg << 15) | 0x7e00u | (m >> 42);
    default: return (sg << 15) | 0x7fc0u | (m >> 45); /* bf16 */
    }
  }
  if (dst == WV_FP_F64) {
    fmt sf = type_fmt(src);
    uint64_t sg = (bits >> (sf.mbits + sf.ebits)) & 1, m = bits & ((1ull << sf.mbits) - 1);
    return (sg << 63) | 0x7ff8000000000000ull | (m << (52 - sf.mbits));
  }
  if (src == WV_FP_BF16 && dst == WV_FP_F32) return (bits & 0xffffu) << 16;
  return dst == WV_FP_F32 ? WV_FP_F32_NAN : 0x7fffu; /* f32 / f16 / bf16 canonical */
}

/* Round-to-integral of a finite decoded value, same format (exact: |v| < 2^53 when rounded). */
static uint64_t rint_bits(uint64_t f64bits, wv_fp_rnd rnd) {
  dec d = decode_f64(f64bits);
  if (d.sig == 0 || d.e >= 52) return f64bits; /* zero, or already integral */
  int big;
  uint64_t mag = round_int_mag(d, rnd, &big);
  if (mag == 0) return f64bits & 0x8000000000000000ull; /* ±0 keeps the sign */
  int lz = clz64(mag);
  return round_pack(d.sign, 63 - lz, mag << lz, 0, FMT_F64, WV_FP_RN);
}

uint64_t wv_fp_cvt(uint64_t bits, wv_fp_type dst, wv_fp_type src, wv_fp_rnd rnd, unsigned flags) {
  /* ---- integer source ---- */
  if (is_int(src)) {
    int n = int_bits(src);
    uint64_t v = n == 64 ? bits : bits & ((1ull << n) - 1);
    int neg = 0;
    uint64_t mag = v;
    if (is_signed(src) && n < 64 && (v >> (n - 1))) v |= ~((1ull << n) - 1); /* sign-extend */
    if (is_signed(src) && (v >> 63)) neg = 1, mag = (uint64_t)0 - v;
    if (is_int(dst)) {
      if (flags & WV_FP_SAT) return clamp_int(neg, mag, 0, dst);
      int m = int_bits(dst);
      uint64_t t = m == 64 ? v : v & ((1ull << m) - 1); /* chop / extend */
      if (is_signed(dst) && m < 64 && (t >> (m - 1))) t |= ~((1ull << m) - 1);
      return t;
    }
    fmt f = type_fmt(dst);
    uint64_t r;
    if (mag == 0) {
      r = 0;
    } else {
      int lz = clz64(mag);
      r = round_pack(neg, 63 - lz, mag << lz, 0, f, rnd);
    }
    if (dst == WV_FP_TF32) r <<= 13; /* a tf32 is an f32 pattern with 13 zero low bits */
    return float_post(r, dst, flags);
  }

  /* ---- float source ---- */
  fsrc s = read_float(bits, src, flags);
  if (is_int(dst)) return float_to_int(s, src, dst, rnd);

  fmt f = type_fmt(dst);
  uint64_t r;
  if (s.nan) return float_post(cvt_nan(bits, dst, src, rnd, flags), dst, flags);
  if (s.inf) {
    uint64_t inf = (uint64_t)((1 << f.ebits) - 1) << f.mbits;
    r = ((uint64_t)s.sign << (f.mbits + f.ebits)) | inf;
    if (dst == WV_FP_TF32) r <<= 13;
    return float_post(r, dst, flags);
  }
  uint64_t v = s.f64;
  if (flags & WV_FP_INTRND) v = rint_bits(v, rnd);
  /* .ftz to f32: a value below 2^-126 survives only if rounding it to 24 bits with an unbounded
   * exponent reaches 2^-126 (tininess after rounding, IEEE 754 §7.5; measured on an H100 for
   * cvt.rn/.rp.ftz.f32.f64: tests/kernels fpftz.edge); otherwise it flushes to a signed zero. */
  uint64_t mag = v & 0x7fffffffffffffffull;
  if (dst == WV_FP_F32 && src == WV_FP_F64 && (flags & WV_FP_FTZ) && !(flags & WV_FP_INTRND) && mag < 0x3810000000000000ull) {
    const uint64_t half = 0x380ffffff0000000ull, one = 0x380fffffe0000000ull; /* 2^-126 - 2^-151, - 2^-150 */
    int up = rnd == WV_FP_RN || rnd == WV_FP_RNA ? mag >= half
             : rnd == (s.sign ? WV_FP_RM : WV_FP_RP) ? mag > one : 0;
    return (uint64_t)s.sign << 31 | (up ? 0x00800000u : 0);
  }
  if (dst == WV_FP_F64) {
    r = v;
  } else {
    dec d = decode_f64(v);
    r = round_pack(d.sign, d.e, d.sig, 0, f, rnd);
    if (dst == WV_FP_TF32) r <<= 13;
  }
  return float_post(r, dst, flags);
}

/* ---- typed fast paths ---- */

uint32_t wv_fp_cvt_f32_f64(uint64_t a, wv_fp_rnd rnd, unsigned flags) {
  return (uint32_t)wv_fp_cvt(a, WV_FP_F32, WV_FP_F64, rnd, flags);
}
uint64_t wv_fp_cvt_f64_f32(uint32_t a, unsigned flags) {
  return wv_fp_cvt(a, WV_FP_F64, WV_FP_F32, WV_FP_RN, flags);
}
uint32_t wv_fp_cvt_f16_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags) {
  return (uint32_t)wv_fp_cvt(a, WV_FP_F16, WV_FP_F32, rnd, flags);
}
uint32_t wv_fp_cvt_f32_f16(uint32_t h, unsigned flags) {
  return (uint32_t)wv_fp_cvt(h, WV_FP_F32, WV_FP_F16, WV_FP_RN, flags);
}
uint32_t wv_fp_cvt_bf16_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags) {
  return (uint32_t)wv_fp_cvt(a, WV_FP_BF16, WV_FP_F32, rnd, flags);
}
uint32_t wv_fp_cvt_f32_bf16(uint32_t h, unsigned flags) {
  return (uint32_t)wv_fp_cvt(h, WV_FP_F32, WV_FP_BF16, WV_FP_RN, flags);
}
int32_t wv_fp_cvt_s32_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags) {
  return (int32_t)(uint32_t)wv_fp_cvt(a, WV_FP_S32, WV_FP_F32, rnd, flags);
}
uint32_t wv_fp_cvt_u32_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags) {
  return (uint32_t)wv_fp_cvt(a, WV_FP_U32, WV_FP_F32, rnd, flags);
}
int64_t wv_fp_cvt_s64_f64(uint64_t a, wv_fp_rnd rnd) {
  uint64_t u = wv_fp_cvt(a, WV_FP_S64, WV_FP_F64, rnd, 0);
  int64_t v;
  memcpy(&v, &u, 8);
  return v;
}
uint64_t wv_fp_cvt_u64_f64(uint64_t a, wv_fp_rnd rnd) {
  return wv_fp_cvt(a, WV_FP_U64, WV_FP_F64, rnd, 0);
}
uint32_t wv_fp_cvt_f32_s64(int64_t v, wv_fp_rnd rnd) {
  uint64_t u;
  memcpy(&u, &v, 8);
  return (uint32_t)wv_fp_cvt(u, WV_FP_F32, WV_FP_S64, rnd, 0);
}
uint32_t wv_fp_cvt_f32_u64(uint64_t v, wv_fp_rnd rnd) {
  return (uint32_t)wv_fp_cvt(v, WV_FP_F32, WV_FP_U64, rnd, 0);
}
uint64_t wv_fp_cvt_f64_s64(int64_t v, wv_fp_rnd rnd) {
  uint64_t u;
  memcpy(&u, &v, 8);
  return wv_fp_cvt(u, WV_FP_F64, WV_FP_S64, rnd, 0);
}
uint64_t wv_fp_cvt_f64_u64(uint64_t v, wv_fp_rnd rnd) {
  return wv_fp_cvt(v, WV_FP_F64, WV_FP_U64, rnd, 0);
}
uint32_t wv_fp_rint_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags) {
  return (uint32_t)wv_fp_cvt(a, WV_FP_F32, WV_FP_F32, rnd, flags | WV_FP_INTRND);
}
uint64_t wv_fp_rint_f64(uint64_t a, wv_fp_rnd rnd) {
  return wv_fp_cvt(a, WV_FP_F64, WV_FP_F64, rnd, WV_FP_INTRND);
}

/* ============================================================================================
 * fp8 (sm_89+): cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 and cvt.rn.f16x2.{e4m3x2,e5m2x2}
 * (PTX ISA §9.7.9.21). e4m3: bias 7, no infinities, NaN 0x7f, largest 448; e5m2: bias 15, the
 * upper byte of an f16. .satfinite clamps overflow and ±inf to the largest finite value; NaN stays
 * NaN; .relu turns negative results into +0.
 * ============================================================================================ */

static uint32_t to_fp8(uint32_t a, int ebits, int mbits, int relu) {
  int bias = (1 << (ebits - 1)) - 1;
  uint32_t nan = ebits == 4 ? 0x7fu : 0x7fu;
  double maxf = ebits == 4 ? 448.0 : 57344.0;
  float f = wv_fp_f32(a);
  if (f != f) return nan;
  uint32_t s = a >> 31;
  if (relu && (s || f == 0)) return 0;
  double x = fabs((double)f);
  if (x == 0) return s << 7;
  if (x > maxf) x = maxf; /* satfinite; inf too */
  int e;
  (void)frexp(x, &e);
  e -= 1; /* x in [2^e, 2^(e+1)) */
  int emin = 1 - bias;
  double quantum = ldexp(1.0, (e < emin ? emin : e) - mbits);
  double r = nearbyint(x / quantum) * quantum; /* round to nearest even in the default mode */
  if (r > maxf) r = maxf;
  uint32_t code;
  if (r < ldexp(1.0, emin)) {
    code = (uint32_t)(r / ldexp(1.0, emin - mbits));
  } else {
    (void)frexp(r, &e);
    e -= 1;
    uint32_t mant = (uint32_t)(r / ldexp(1.0, e - mbits)) - (1u << mbits);
    code = ((uint32_t)(e + bias) << mbits) | mant;
  }
  return (s << 7) | code;
}

uint32_t wv_fp_cvt_fp8x2_f32(uint32_t a, uint32_t b, int e5m2, unsigned flags) {
  int relu = (flags & WV_FP_RELU) != 0;
  int eb = e5m2 ? 5 : 4, mb = e5m2 ? 2 : 3;
  return (to_fp8(a, eb, mb, relu) << 8) | to_fp8(b, eb, mb, relu);
}

static uint32_t fp8_to_f16(uint32_t v, int e5m2) {
  v &= 0xff;
  if (e5m2) {
    if ((v & 0x7c) == 0x7c && (v & 3)) return 0x7fffu; /* NaN */
    return v << 8;
  }
  if ((v & 0x7f) == 0x7f) return 0x7fffu; /* e4m3 NaN */
  uint32_t s = v >> 7, e = (v >> 3) & 15, m = v & 7;
  double x = e ? ldexp(1.0 + m / 8.0, (int)e - 7) : ldexp(m / 8.0, -6);
  float f = (float)(s ? -x : x);
  return wv_fp_cvt_f16_f32(wv_fp_b32(f), WV_FP_RN, 0) & 0xffffu;
}

uint32_t wv_fp_cvt_f16x2_fp8x2(uint32_t v, int e5m2) {
  return (fp8_to_f16(v >> 8, e5m2) << 16) | fp8_to_f16(v, e5m2);
}

/* ============================================================================================
 * Half-precision arithmetic: add sub mul fma on .f16 and .bf16 (one half; the x2 forms call this
 * per half). PTX defines only .rn for them.
 *
 * Exactness: the operation is done once in double with round-to-odd (round toward zero, then the
 * last bit set when inexact), then rounded to the half format with wv_fp_cvt. Round-to-odd to p'
 * bits followed by any rounding to p <= p' - 2 bits equals the direct rounding of the exact value
 * (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
 * rounding to odd", IEEE TC 2008); 53 >= 11 + 2 and 8 + 2. No operand or result of two or three
 * halves is near the double's overflow or subnormal range (bf16 products are above 2^-270), so
 * the double step never leaves its normal range. Exact zeros: x + (-x) is +0 under both
 * round-toward-zero and round-to-nearest, so the sign of a zero is already the .rn one.
 * ============================================================================================ */

static double half_to_f64(uint32_t h, int bf) {
  return wv_fp_f64(wv_fp_cvt(h & 0xffffu, WV_FP_F64, bf ? WV_FP_BF16 : WV_FP_F16, WV_FP_RN, 0));
}
static int half_isnan(uint32_t h, int bf) {
  return bf ? (h & 0x7fffu) > 0x7f80u : (h & 0x7fffu) > 0x7c00u;
}
static uint32_t half_flush(uint32_t h, int bf) { /* .ftz on an input or output half */
  uint32_t emask = bf ? 0x7f80u : 0x7c00u;
  return (h & emask) == 0 ? (h & 0x8000u) : h;
}

uint32_t wv_fp_half_arith(int op, int bf, uint32_t a, uint32_t b, uint32_t c, unsigned flags) {
  a &= 0xffffu, b &= 0xffffu, c &= 0xffffu;
  if (flags & WV_FP_FTZ) a = half_flush(a, bf), b = half_flush(b, bf), c = half_flush(c, bf);
  uint32_t r;
  double x = half_to_f64(a, bf), y = half_to_f64(b, bf), z = half_to_f64(c, bf);
  int old = fegetround();
  fesetround(FE_TOWARDZERO);
  feclearexcept(FE_INEXACT);
  volatile double v;
  switch (op) {
  case WV_FP__ADD: v = x + y; break;
  case WV_FP__SUB: v = x - y; break;
  case WV_FP__MUL: v = x * y; break;
  default: v = fma(x, y, z); break;
  }
  double t = v;
  int inexact = fetestexcept(FE_INEXACT) != 0;
  fesetround(old);
  if (t != t) {
    r = bf ? WV_FP_BF16_NAN : WV_FP_F16_NAN;
  } else {
    uint64_t tb = wv_fp_b64(t);
    if (inexact && !isinf(t)) tb |= 1;
    r = (uint32_t)wv_fp_cvt(tb, bf ? WV_FP_BF16 : WV_FP_F16, WV_FP_F64, WV_FP_RN, 0) & 0xffffu;
    if (flags & WV_FP_FTZ) {
      /* tininess as for f32 (tiny_unbounded): rounded with an unbounded exponent, below the
       * smallest normal. Only a result of exactly ±min-normal can disagree with the IEEE one. */
      uint32_t minn = bf ? 0x0080u : 0x0400u;
      double mn = bf ? 0x1p-126 : 0x1p-14;
      if ((r & 0x7fffu) == minn && fabs(wv_fp_f64(tb)) < mn) {
        double s = nearbyint(fabs(wv_fp_f64(tb)) * (bf ? 0x1p134 : 0x1p25)); /* units of half an ulp below mn */
        if (s < (bf ? 256.0 : 2048.0)) r &= 0x8000u;
      }
      r = half_flush(r, bf);
    }
  }
  if (flags & WV_FP_RELU) {
    if (half_isnan(r, bf)) r = bf ? WV_FP_BF16_NAN : WV_FP_F16_NAN;
    else if (r & 0x8000u) r = 0;
  }
  if (flags & WV_FP_SAT) r = bf ? sat16(r, 8, 7) : sat16(r, 5, 10);
  return r;
}

/* Halves as wv_fp_cvt's f32 values are exact, so comparisons go through f32. */
int wv_fp_half_cmp(uint32_t a, uint32_t b, int bf, int ftz, wv_fp_cmpop op) {
  a &= 0xffffu, b &= 0xffffu;
  if (ftz) a = half_flush(a, bf), b = half_flush(b, bf);
  return wv_fp_cmp_f64(half_to_f64(a, bf), half_to_f64(b, bf), op);
}

uint32_t wv_fp_cvt_half2_f32(uint32_t a, uint32_t b, int bf, unsigned flags) {
  wv_fp_type t = bf ? WV_FP_BF16 : WV_FP_F16;
  uint32_t hi = (uint32_t)wv_fp_cvt(a, t, WV_FP_F32, WV_FP_RN, flags) & 0xffffu;
  uint32_t lo = (uint32_t)wv_fp_cvt(b, t, WV_FP_F32, WV_FP_RN, flags) & 0xffffu;
  return hi << 16 | lo;
}
