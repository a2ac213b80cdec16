/*
 * test_fpmath.c — unit tests of src/exec/fpmath (PTX float/conversion semantics).
 *
 * Where expected values come from: IEEE-754 reasoning spelled out next to each constant; an
 * independent oracle (long double arithmetic, which is exact for f32 sums/products here, plus
 * nextafter-based directed rounding; host casts under fesetround for int/f64 → f32/f64; ldexp
 * for half-precision values); or values measured on an NVIDIA H200 (sm_90, CUDA 13.0, PTX run
 * through inline asm), marked "H200". The approximate functions are tests/unit/test_sfu.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec/fpmath.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static uint32_t fb(float f) { return wv_fp_b32(f); }
static uint64_t db(double d) { return wv_fp_b64(d); }

#define EQ32(got, want)                                                                         \
  do {                                                                                          \
    uint32_t g_ = (uint32_t)(got), w_ = (uint32_t)(want);                                       \
    if (g_ != w_) fail_msg("%s = 0x%08x, want 0x%08x (line %d)", #got, g_, w_, __LINE__);       \
  } while (0)
#define EQ64(got, want)                                                                         \
  do {                                                                                          \
    uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                                       \
    if (g_ != w_)                                                                               \
      fail_msg("%s = 0x%016llx, want 0x%016llx (line %d)", #got, (unsigned long long)g_,        \
               (unsigned long long)w_, __LINE__);                                               \
  } while (0)

static uint64_t rs = 0x243f6a8885a308d3ull;
static uint64_t rnd64(void) {
  uint64_t z = (rs += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* A random finite float with an exponent field in [lo, hi]. */
static uint32_t rf32(int lo, int hi) {
  uint32_t e = (uint32_t)lo + (uint32_t)(rnd64() % (uint64_t)(hi - lo + 1));
  return ((uint32_t)rnd64() & 0x807fffffu) | (e << 23);
}

/* Oracle: round an exactly known long double value to f32 in a mode, by bracketing it between
 * adjacent floats (no fesetround, no code shared with fpmath). Values must be finite and within
 * the f32 range except where overflow is meant. */
static uint32_t ld_round32(long double v, wv_fp_rnd m) {
  if (v == 0) return signbit(v) ? 0x80000000u : 0;
  float f = (float)v; /* some neighbour (round to nearest in the default environment) */
  float lo = f, hi = f;
  if ((long double)f > v) lo = nextafterf(f, -INFINITY);
  if ((long double)f < v) hi = nextafterf(f, INFINITY);
  if ((long double)lo == v) return fb(lo);
  if ((long double)hi == v) return fb(hi);
  switch (m) {
  case WV_FP_RZ: return fb(v > 0 ? lo : hi);
  case WV_FP_RM: return fb(lo);
  case WV_FP_RP: return fb(hi);
  default: {
    long double dl = v - (long double)lo, dh = (long double)hi - v;
    if (dl < dh) return fb(lo);
    if (dh < dl) return fb(hi);
    return (fb(lo) & 1) ? fb(hi) : fb(lo);
  }
  }
}

static const wv_fp_rnd MODES[4] = {WV_FP_RN, WV_FP_RZ, WV_FP_RM, WV_FP_RP};

/* ---- IEEE arithmetic, rounding modes ------------------------------------------------------ */

static void t_add_modes(void **st) {
  (void)st;
  /* 1 + 2^-24: exactly halfway between 1 and 1+2^-23 → RN picks the even 1.0. */
  const uint32_t one = 0x3f800000u, h = 0x33800000u;
  EQ32(wv_fp_add_f32(one, h, WV_FP_RN, 0), 0x3f800000u);
  EQ32(wv_fp_add_f32(one, h, WV_FP_RZ, 0), 0x3f800000u);
  EQ32(wv_fp_add_f32(one, h, WV_FP_RM, 0), 0x3f800000u);
  EQ32(wv_fp_add_f32(one, h, WV_FP_RP, 0), 0x3f800001u);
  /* -1 - 2^-24: mirror image; RM moves away from zero now. */
  EQ32(wv_fp_add_f32(0xbf800000u, 0xb3800000u, WV_FP_RN, 0), 0xbf800000u);
  EQ32(wv_fp_add_f32(0xbf800000u, 0xb3800000u, WV_FP_RZ, 0), 0xbf800000u);
  EQ32(wv_fp_add_f32(0xbf800000u, 0xb3800000u, WV_FP_RM, 0), 0xbf800001u);
  EQ32(wv_fp_add_f32(0xbf800000u, 0xb3800000u, WV_FP_RP, 0), 0xbf800000u);
  /* (1.5+2^-23) + 2^-24: tie between ...01 (odd) and ...02 (even) → RN rounds up. */
  EQ32(wv_fp_add_f32(0x3fc00001u, h, WV_FP_RN, 0), 0x3fc00002u);
  /* 1 + 2^-24(1+2^-23): just above the tie → RN rounds up. */
  EQ32(wv_fp_add_f32(one, 0x33800001u, WV_FP_RN, 0), 0x3f800001u);
  /* x + (-x) = +0 in every mode but RM, where it is -0 (IEEE 754 §6.3). */
  EQ32(wv_fp_add_f32(one, 0xbf800000u, WV_FP_RN, 0), 0x00000000u);
  EQ32(wv_fp_add_f32(one, 0xbf800000u, WV_FP_RM, 0), 0x80000000u);
  EQ32(wv_fp_sub_f32(one, one, WV_FP_RZ, 0), 0x00000000u);
  /* Overflow: FLT_MAX + FLT_MAX → inf in RN/RP, FLT_MAX in RZ/RM. */
  EQ32(wv_fp_add_f32(0x7f7fffffu, 0x7f7fffffu, WV_FP_RN, 0), 0x7f800000u);
  EQ32(wv_fp_add_f32(0x7f7fffffu, 0x7f7fffffu, WV_FP_RZ, 0), 0x7f7fffffu);
  EQ32(wv_fp_add_f32(0x7f7fffffu, 0x7f7fffffu, WV_FP_RM, 0), 0x7f7fffffu);
  EQ32(wv_fp_add_f32(0x7f7fffffu, 0x7f7fffffu, WV_FP_RP, 0), 0x7f800000u);
}

static void t_mul_div_sqrt_modes(void **st) {
  (void)st;
  /* (1+2^-23)^2 = 1 + 2^-22 + 2^-46: RN/RZ/RM drop the 2^-46, RP rounds up. */
  const uint32_t a = 0x3f800001u;
  EQ32(wv_fp_mul_f32(a, a, WV_FP_RN, 0), 0x3f800002u);
  EQ32(wv_fp_mul_f32(a, a, WV_FP_RZ, 0), 0x3f800002u);
  EQ32(wv_fp_mul_f32(a, a, WV_FP_RM, 0), 0x3f800002u);
  EQ32(wv_fp_mul_f32(a, a, WV_FP_RP, 0), 0x3f800003u);
  /* 1/3 = 1.0101...b × 2^-2: the dropped bits are 1010... (> half) → RN and RP round up. */
  const uint32_t three = 0x40400000u;
  EQ32(wv_fp_div_f32(0x3f800000u, three, WV_FP_RN, 0), 0x3eaaaaabu);
  EQ32(wv_fp_div_f32(0x3f800000u, three, WV_FP_RZ, 0), 0x3eaaaaaau);
  EQ32(wv_fp_div_f32(0x3f800000u, three, WV_FP_RM, 0), 0x3eaaaaaau);
  EQ32(wv_fp_div_f32(0x3f800000u, three, WV_FP_RP, 0), 0x3eaaaaabu);
  EQ32(wv_fp_div_f32(0xbf800000u, three, WV_FP_RM, 0), 0xbeaaaaabu);
  EQ32(wv_fp_div_f32(0xbf800000u, three, WV_FP_RP, 0), 0xbeaaaaaau);
  EQ32(wv_fp_rcp_f32(three, WV_FP_RN, 0), 0x3eaaaaabu);
  EQ32(wv_fp_rcp_f32(three, WV_FP_RZ, 0), 0x3eaaaaaau);
  /* 1/0 = +inf, 1/-0 = -inf, 0/0 = NaN (canonical). */
  EQ32(wv_fp_div_f32(0x3f800000u, 0x80000000u, WV_FP_RN, 0), 0xff800000u);
  EQ32(wv_fp_div_f32(0, 0, WV_FP_RZ, 0), WV_FP_F32_NAN);
  /* sqrt(2) = 1.41421356237...; the nearest float 0x3fb504f3 = 1.41421353816 lies below. */
  EQ32(wv_fp_sqrt_f32(0x40000000u, WV_FP_RN, 0), 0x3fb504f3u);
  EQ32(wv_fp_sqrt_f32(0x40000000u, WV_FP_RZ, 0), 0x3fb504f3u);
  EQ32(wv_fp_sqrt_f32(0x40000000u, WV_FP_RM, 0), 0x3fb504f3u);
  EQ32(wv_fp_sqrt_f32(0x40000000u, WV_FP_RP, 0), 0x3fb504f4u);
  EQ32(wv_fp_sqrt_f32(0x80000000u, WV_FP_RN, 0), 0x80000000u); /* sqrt(-0) = -0 */
  EQ32(wv_fp_sqrt_f32(0xbf800000u, WV_FP_RN, 0), WV_FP_F32_NAN);
  /* fma: 1 * 1 + 2^-24 is a tie (RN → 1), and (1+2^-23)^2 - (1+2^-22) = 2^-46 exactly. */
  EQ32(wv_fp_fma_f32(0x3f800000u, 0x3f800000u, 0x33800000u, WV_FP_RN, 0), 0x3f800000u);
  EQ32(wv_fp_fma_f32(0x3f800000u, 0x3f800000u, 0x33800000u, WV_FP_RP, 0), 0x3f800001u);
  EQ32(wv_fp_fma_f32(a, a, 0xbf800002u, WV_FP_RN, 0), 0x28800000u);
  /* f64: 1 + 2^-53 ties to 1; RP gives 1 + 2^-52. 1/3 in f64 rounds down (...5555). */
  EQ64(wv_fp_add_f64(0x3ff0000000000000ull, 0x3ca0000000000000ull, WV_FP_RN), 0x3ff0000000000000ull);
  EQ64(wv_fp_add_f64(0x3ff0000000000000ull, 0x3ca0000000000000ull, WV_FP_RP), 0x3ff0000000000001ull);
  EQ64(wv_fp_div_f64(db(1.0), db(3.0), WV_FP_RN), 0x3fd5555555555555ull);
  EQ64(wv_fp_div_f64(db(1.0), db(3.0), WV_FP_RP), 0x3fd5555555555556ull);
  EQ64(wv_fp_rcp_f64(db(3.0), WV_FP_RZ), 0x3fd5555555555555ull);
  EQ64(wv_fp_sqrt_f64(db(2.0), WV_FP_RN), 0x3ff6a09e667f3bcdull);
  EQ64(wv_fp_sqrt_f64(db(2.0), WV_FP_RM), 0x3ff6a09e667f3bccull); /* RN rounded up */
  EQ64(wv_fp_mul_f64(db(DBL_MAX), db(2.0), WV_FP_RZ), db(DBL_MAX));
  EQ64(wv_fp_fma_f64(db(2.0), db(3.0), db(1.0), WV_FP_RN), db(7.0));
}

/* Random sweep against the long-double oracle: sums/products of floats are exact in long double
 * (64-bit significand) when the exponents are close, so the oracle rounds the exact value. */
static void t_sweep_vs_oracle(void **st) {
  (void)st;
  for (int i = 0; i < 200000; i++) {
    uint32_t a = rf32(1, 254), b = rf32(1, 254);
    int ea = (int)((a >> 23) & 255), eb;
    eb = ea + (int)(rnd64() % 41) - 20;
    if (eb < 1) eb = 1;
    if (eb > 254) eb = 254;
    b = (b & 0x807fffffu) | ((uint32_t)eb << 23);
    wv_fp_rnd m = MODES[rnd64() & 3];
    long double x = wv_fp_f32(a), y = wv_fp_f32(b);
    long double s = x + y, p = x * y;
    if (fabsl(s) < 0x1p-126L || fabsl(s) >= 0x1p128L) continue; /* keep to normal results */
    uint32_t want = ld_round32(s, m), got = wv_fp_add_f32(a, b, m, 0);
    if (want != got) fail_msg("add %08x %08x mode %d: %08x want %08x", a, b, m, got, want);
    if (fabsl(p) >= 0x1p-126L && fabsl(p) < 0x1p128L) {
      want = ld_round32(p, m), got = wv_fp_mul_f32(a, b, m, 0);
      if (want != got) fail_msg("mul %08x %08x mode %d: %08x want %08x", a, b, m, got, want);
    }
  }
}

static void t_subnormal_ftz(void **st) {
  (void)st;
  /* min subnormal + itself = 2^-148 (0x2); with .ftz the inputs are flushed: 0 + 0 = +0. */
  EQ32(wv_fp_add_f32(1, 1, WV_FP_RN, 0), 2);
  EQ32(wv_fp_add_f32(1, 1, WV_FP_RN, WV_FP_FTZ), 0);
  /* 2^-126 * 0.5 = 2^-127 is an exact subnormal; .ftz flushes it, keeping the sign. */
  EQ32(wv_fp_mul_f32(0x00800000u, 0x3f000000u, WV_FP_RN, 0), 0x00400000u);
  EQ32(wv_fp_mul_f32(0x00800000u, 0x3f000000u, WV_FP_RN, WV_FP_FTZ), 0);
  EQ32(wv_fp_mul_f32(0x80800000u, 0x3f000000u, WV_FP_RN, WV_FP_FTZ), 0x80000000u);
  /* An input subnormal flushes: 2^-127 + 2^-126 → 2^-126 under .ftz, 1.5*2^-126 without. */
  EQ32(wv_fp_add_f32(0x00400000u, 0x00800000u, WV_FP_RN, 0), 0x00c00000u);
  EQ32(wv_fp_add_f32(0x00400000u, 0x00800000u, WV_FP_RN, WV_FP_FTZ), 0x00800000u);
  /* (2^-126 + 2^-149) * 0.5 = 2^-127 + 2^-150: a tie in the subnormal grid → RN even, RP up. */
  EQ32(wv_fp_mul_f32(0x00800001u, 0x3f000000u, WV_FP_RN, 0), 0x00400000u);
  EQ32(wv_fp_mul_f32(0x00800001u, 0x3f000000u, WV_FP_RP, 0), 0x00400001u);
  EQ32(wv_fp_mul_f32(0x00800001u, 0x3f000000u, WV_FP_RZ, 0), 0x00400000u);
  /* Tininess (H200): (1-2^-24) * 2^-126 is exactly representable with an unbounded exponent and
   * below 2^-126, so .ftz flushes it, although gradual underflow rounds it (a tie) up to the
   * normal 2^-126. Same for the quotient and for fma. */
  EQ32(wv_fp_mul_f32(0x3f7fffffu, 0x00800000u, WV_FP_RN, 0), 0x00800000u);
  EQ32(wv_fp_mul_f32(0x3f7fffffu, 0x00800000u, WV_FP_RN, WV_FP_FTZ), 0);
  EQ32(wv_fp_mul_f32(0x3f7fffffu, 0x80800000u, WV_FP_RN, WV_FP_FTZ), 0x80000000u);
  EQ32(wv_fp_div_f32(0x3f7fffffu, 0x7e800000u, WV_FP_RN, WV_FP_FTZ), 0);
  EQ32(wv_fp_fma_f32(0x00800000u, 0x3f7fffffu, 0, WV_FP_RN, WV_FP_FTZ), 0);
  /* ...but a product that rounds to 2^-126 from a value needing > 24 bits is not tiny:
   * (1-2^-24)(1+2^-23) = 1 + 2^-24 - 2^-47 → rounds to 1 (RN) → 2^-126 stays. */
  EQ32(wv_fp_mul_f32(0x3f7fffffu, 0x00800001u, WV_FP_RN, WV_FP_FTZ), 0x00800000u);
  /* .ftz with directed rounding: the tiny product is still flushed to a signed zero. */
  EQ32(wv_fp_mul_f32(0x00800000u, 0x3f000000u, WV_FP_RP, WV_FP_FTZ), 0);
  /* f64 keeps subnormals (no .ftz in PTX). */
  EQ64(wv_fp_mul_f64(0x0010000000000000ull, db(0.5), WV_FP_RN), 0x0008000000000000ull);
}

static void t_sat(void **st) {
  (void)st;
  EQ32(wv_fp_add_f32(fb(0.5f), fb(0.75f), WV_FP_RN, WV_FP_SAT), 0x3f800000u);
  EQ32(wv_fp_add_f32(fb(-0.5f), fb(0.25f), WV_FP_RN, WV_FP_SAT), 0);
  EQ32(wv_fp_add_f32(fb(0.25f), fb(0.25f), WV_FP_RN, WV_FP_SAT), fb(0.5f));
  /* NaN results become +0 (§9.7.3.3), -0 too (H200: add.sat(-0,-0) = +0). */
  EQ32(wv_fp_add_f32(0x7f800000u, 0xff800000u, WV_FP_RN, WV_FP_SAT), 0);
  EQ32(wv_fp_add_f32(0x80000000u, 0x80000000u, WV_FP_RN, WV_FP_SAT), 0);
  EQ32(wv_fp_mul_f32(fb(3.0f), fb(2.0f), WV_FP_RZ, WV_FP_SAT), 0x3f800000u);
  EQ32(wv_fp_fma_f32(fb(0.5f), fb(0.5f), fb(0.5f), WV_FP_RN, WV_FP_SAT), fb(0.75f));
  EQ32(wv_fp_add_f32(0x7fc00000u, 0, WV_FP_RN, WV_FP_SAT | WV_FP_FTZ), 0);
}

static void t_nan(void **st) {
  (void)st;
  /* f32: every NaN result is 0x7fffffff whatever went in (CUDA guide; H200). */
  EQ32(wv_fp_add_f32(0x7fc12345u, fb(1.0f), WV_FP_RN, 0), 0x7fffffffu);
  EQ32(wv_fp_add_f32(0xffc00001u, fb(1.0f), WV_FP_RZ, 0), 0x7fffffffu);
  EQ32(wv_fp_mul_f32(0x7f800001u, 0, WV_FP_RN, 0), 0x7fffffffu); /* signalling NaN */
  EQ32(wv_fp_sub_f32(0x7f800000u, 0x7f800000u, WV_FP_RN, 0), 0x7fffffffu);
  EQ32(wv_fp_mul_f32(0, 0xff800000u, WV_FP_RP, 0), 0x7fffffffu);
  EQ32(wv_fp_fma_f32(0, 0x7f800000u, fb(1.0f), WV_FP_RN, 0), 0x7fffffffu);
  EQ32(wv_fp_sqrt_f32(0xffc00000u, WV_FP_RN, 0), 0x7fffffffu);
  /* f64 (H200): invalid operations give 0xfff8000000000000; a NaN operand comes back quieted
   * with sign and payload. With two NaN operands, nvcc-compiled code on the H200 returns a's for
   * add/sub/mul/div/min/max and a, then c, then b for fma (tests/kernels fp64.binary golden). */
  const uint64_t qa = 0x7ff8000000000000ull, qb = 0xfff8000000000000ull;
  const uint64_t sn = 0x7ff0000000000001ull, inf = 0x7ff0000000000000ull;
  EQ64(wv_fp_add_f64(inf, inf | 1ull << 63, WV_FP_RN), 0xfff8000000000000ull);
  EQ64(wv_fp_mul_f64(0, inf, WV_FP_RZ), 0xfff8000000000000ull);
  EQ64(wv_fp_div_f64(0, 0, WV_FP_RN), 0xfff8000000000000ull);
  EQ64(wv_fp_sqrt_f64(db(-1.0), WV_FP_RN), 0xfff8000000000000ull);
  EQ64(wv_fp_add_f64(sn, db(1.0), WV_FP_RN), 0x7ff8000000000001ull);
  EQ64(wv_fp_add_f64(qa, qb, WV_FP_RN), qa);
  EQ64(wv_fp_add_f64(qb, 0x7fffffffffffffffull, WV_FP_RN), qb);
  EQ64(wv_fp_add_f64(sn, qa, WV_FP_RP), 0x7ff8000000000001ull);
  EQ64(wv_fp_sub_f64(qb, qa, WV_FP_RN), qb);
  EQ64(wv_fp_mul_f64(qa, qb, WV_FP_RN), qa);
  EQ64(wv_fp_div_f64(qa, qb, WV_FP_RN), qa);
  EQ64(wv_fp_div_f64(qa, qb, WV_FP_RZ), qa);
  EQ64(wv_fp_fma_f64(0, 0x7ff4000000000000ull, sn, WV_FP_RN), 0x7ff8000000000001ull); /* c before b */
  EQ64(wv_fp_fma_f64(qa, db(1.0), 0x7fffffffffffffffull, WV_FP_RN), qa);             /* a first */
  EQ64(wv_fp_fma_f64(qa, db(1.0), db(1.0), WV_FP_RN), qa);
  EQ64(wv_fp_rcp_f64(sn, WV_FP_RN), 0x7ff8000000000001ull);
}

static void t_restores_mode(void **st) {
  (void)st;
  assert_int_equal(fegetround(), FE_TONEAREST);
  (void)wv_fp_add_f32(fb(1.0f), fb(1e-9f), WV_FP_RP, 0);
  (void)wv_fp_div_f64(db(1.0), db(3.0), WV_FP_RM);
  (void)wv_fp_cvt(5, WV_FP_F32, WV_FP_S64, WV_FP_RZ, 0);
  assert_int_equal(fegetround(), FE_TONEAREST);
  /* A caller that left another mode gets it back too. */
  fesetround(FE_UPWARD);
  EQ32(wv_fp_add_f32(0x3f800000u, 0x33800000u, WV_FP_RZ, 0), 0x3f800000u);
  assert_int_equal(fegetround(), FE_UPWARD);
  fesetround(FE_TONEAREST);
}

/* ---- min/max/abs/neg/copysign/testp/compare ----------------------------------------------- */

static void t_minmax(void **st) {
  (void)st;
  const uint32_t one = 0x3f800000u, two = 0x40000000u, qn = 0x7fc00000u;
  EQ32(wv_fp_min_f32(qn, one, 0), one); /* NaN-ignoring (§9.7.3.11) */
  EQ32(wv_fp_max_f32(one, qn, 0), one);
  EQ32(wv_fp_min_f32(qn, 0xffc12345u, 0), WV_FP_F32_NAN);
  EQ32(wv_fp_min_f32(0x80000000u, 0, 0), 0x80000000u); /* -0 < +0 */
  EQ32(wv_fp_min_f32(0, 0x80000000u, 0), 0x80000000u);
  EQ32(wv_fp_max_f32(0x80000000u, 0, 0), 0);
  EQ32(wv_fp_min_f32(one, 0xff800000u, 0), 0xff800000u);
  EQ32(wv_fp_min_f32(qn, one, WV_FP_NANPROP), WV_FP_F32_NAN);
  EQ32(wv_fp_max_f32(one, two, WV_FP_NANPROP), two);
  /* .ftz: the subnormals flush to ±0 first; max(+0, -0) = +0. */
  EQ32(wv_fp_min_f32(1, 0x80000001u, WV_FP_FTZ), 0x80000000u);
  EQ32(wv_fp_max_f32(1, 0x80000001u, WV_FP_FTZ), 0);
  EQ32(wv_fp_min_f32(1, 0x80000001u, 0), 0x80000001u);
  /* .xorsign.abs: magnitude min/max, sign = xor of the input signs. */
  EQ32(wv_fp_min_f32(fb(-2.0f), fb(3.0f), WV_FP_ABS | WV_FP_XORSIGN), fb(-2.0f));
  EQ32(wv_fp_max_f32(fb(-2.0f), fb(-3.0f), WV_FP_ABS | WV_FP_XORSIGN), fb(3.0f));
  EQ32(wv_fp_max_f32(fb(-2.0f), qn, WV_FP_ABS | WV_FP_XORSIGN), fb(-2.0f));
  /* f64: both NaN → a's NaN, quieted (nvcc-compiled code on the H200). */
  EQ64(wv_fp_min_f64(0x7ff8000000000000ull, db(1.0)), db(1.0));
  EQ64(wv_fp_max_f64(0x8000000000000000ull, 0), 0);
  EQ64(wv_fp_min_f64(0x8000000000000000ull, 0), 0x8000000000000000ull);
  EQ64(wv_fp_min_f64(0x7ff4000000000000ull, 0x7ff8000000000000ull), 0x7ffc000000000000ull);
  EQ64(wv_fp_max_f64(0xfff8000000000000ull, 0x7ff8000000000000ull), 0xfff8000000000000ull);
}

static void t_abs_neg_copysign(void **st) {
  (void)st;
  EQ32(wv_fp_neg_f32(0, 0), 0x80000000u);
  EQ32(wv_fp_neg_f32(0x80000000u, 0), 0);
  EQ32(wv_fp_abs_f32(0x80000000u, 0), 0);
  EQ32(wv_fp_neg_f32(1, 0), 0x80000001u); /* subnormal kept without .ftz */
  EQ32(wv_fp_neg_f32(1, WV_FP_FTZ), 0x80000000u);
  EQ32(wv_fp_abs_f32(0x80000001u, WV_FP_FTZ), 0);
  EQ32(wv_fp_neg_f32(0xff800000u, 0), 0x7f800000u);
  /* NaN (H200: ptxas emits FADD/DADD): f32 → canonical; f64 → quieted, sign unchanged. */
  EQ32(wv_fp_neg_f32(0x7fc00000u, 0), 0x7fffffffu);
  EQ32(wv_fp_abs_f32(0xff800001u, 0), 0x7fffffffu);
  EQ64(wv_fp_neg_f64(0x7ff8000000000000ull), 0x7ff8000000000000ull);
  EQ64(wv_fp_abs_f64(0xfff0000000000001ull), 0xfff8000000000001ull);
  EQ64(wv_fp_neg_f64(db(1.0)), db(-1.0));
  EQ64(wv_fp_abs_f64(db(-0.0)), 0);
  /* copysign.f32 d, a, b: b's magnitude with a's sign (§9.7.3.2). */
  EQ32(wv_fp_copysign_f32(fb(-1.0f), fb(2.0f)), fb(-2.0f));
  EQ32(wv_fp_copysign_f32(fb(1.0f), 0xffc00001u), 0x7fc00001u);
  EQ64(wv_fp_copysign_f64(db(-0.0), db(3.0)), db(-3.0));
}

static void t_testp(void **st) {
  (void)st;
  const uint32_t v[] = {0, 0x80000000u, 1, 0x807fffffu, 0x00800000u, 0x3f800000u, 0x7f7fffffu,
                        0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u};
  /* columns: finite infinite number notanumber normal subnormal; ±0 count as normal (§9.7.3.1) */
  const int want[][6] = {{1, 0, 1, 0, 1, 0}, {1, 0, 1, 0, 1, 0}, {1, 0, 1, 0, 0, 1},
                         {1, 0, 1, 0, 0, 1}, {1, 0, 1, 0, 1, 0}, {1, 0, 1, 0, 1, 0},
                         {1, 0, 1, 0, 1, 0}, {0, 1, 1, 0, 0, 0}, {0, 1, 1, 0, 0, 0},
                         {0, 0, 0, 1, 0, 0}, {0, 0, 0, 1, 0, 0}};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    for (int op = 0; op < 6; op++) {
      assert_int_equal(wv_fp_testp_f32(v[i], (wv_fp_testp)op), want[i][op]);
      uint64_t d = wv_fp_cvt_f64_f32(v[i], 0); /* the same classes in f64 except subnormals */
      if (i != 2 && i != 3) assert_int_equal(wv_fp_testp_f64(d, (wv_fp_testp)op), want[i][op]);
    }
  }
  assert_true(wv_fp_testp_f64(1, WV_FP_TEST_SUBNORMAL));
  assert_false(wv_fp_testp_f64(1, WV_FP_TEST_NORMAL));
}

static void t_compare(void **st) {
  (void)st;
  const float n = NAN, one = 1.0f, two = 2.0f;
  /* ordered: false whenever a NaN is involved — ne included */
  for (int op = WV_FP_EQ; op <= WV_FP_GE; op++) {
    assert_false(wv_fp_cmp_f32(n, one, (wv_fp_cmpop)op));
    assert_false(wv_fp_cmp_f32(one, n, (wv_fp_cmpop)op));
    assert_false(wv_fp_cmp_f64(NAN, NAN, (wv_fp_cmpop)op));
  }
  /* unordered: true whenever a NaN is involved */
  for (int op = WV_FP_EQU; op <= WV_FP_GEU; op++) {
    assert_true(wv_fp_cmp_f32(n, one, (wv_fp_cmpop)op));
    assert_true(wv_fp_cmp_f64(1.0, NAN, (wv_fp_cmpop)op));
  }
  assert_true(wv_fp_cmp_f32(one, two, WV_FP_LT));
  assert_true(wv_fp_cmp_f32(one, two, WV_FP_NE));
  assert_true(wv_fp_cmp_f32(one, two, WV_FP_LTU));
  assert_false(wv_fp_cmp_f32(one, two, WV_FP_GEU));
  assert_true(wv_fp_cmp_f32(two, two, WV_FP_LE));
  assert_true(wv_fp_cmp_f32(-0.0f, 0.0f, WV_FP_EQ)); /* -0 == +0 */
  assert_false(wv_fp_cmp_f32(-0.0f, 0.0f, WV_FP_LT));
  assert_true(wv_fp_cmp_f32(one, two, WV_FP_NUM));
  assert_false(wv_fp_cmp_f32(n, two, WV_FP_NUM));
  assert_true(wv_fp_cmp_f32(n, two, WV_FP_NAN));
  assert_false(wv_fp_cmp_f64(1.0, 2.0, WV_FP_NAN));
  assert_true(wv_fp_cmp_f64(-INFINITY, -DBL_MAX, WV_FP_LT));
  /* .ftz compare: the caller flushes first; a subnormal then equals zero. */
  assert_true(wv_fp_cmp_f32(wv_fp_f32(wv_fp_flush32(1)), 0.0f, WV_FP_EQ));
}

/* ---- cvt ------------------------------------------------------------------------------------ */

static void t_cvt_int_to_float(void **st) {
  (void)st;
  /* 2^24+1 is a tie between 2^24 (even) and 2^24+2. */
  const uint64_t v1 = (1u << 24) + 1;
  EQ32(wv_fp_cvt(v1, WV_FP_F32, WV_FP_S64, WV_FP_RN, 0), 0x4b800000u);
  EQ32(wv_fp_cvt(v1, WV_FP_F32, WV_FP_S64, WV_FP_RZ, 0), 0x4b800000u);
  EQ32(wv_fp_cvt(v1, WV_FP_F32, WV_FP_S64, WV_FP_RM, 0), 0x4b800000u);
  EQ32(wv_fp_cvt(v1, WV_FP_F32, WV_FP_S64, WV_FP_RP, 0), 0x4b800001u);
  EQ32(wv_fp_cvt_f32_s64(-(int64_t)v1, WV_FP_RM), 0xcb800001u);
  EQ32(wv_fp_cvt_f32_s64(-(int64_t)v1, WV_FP_RP), 0xcb800000u);
  /* 2^24+3: tie between 2^24+2 (odd mantissa) and 2^24+4 (even) → RN up. */
  EQ32(wv_fp_cvt_f32_s64((1 << 24) + 3, WV_FP_RN), 0x4b800002u);
  EQ32(wv_fp_cvt_f32_s64((1 << 24) + 3, WV_FP_RZ), 0x4b800001u);
  /* INT64_MAX = 2^63-1: RN/RP give 2^63, RZ/RM the float below it. */
  EQ32(wv_fp_cvt_f32_s64(INT64_MAX, WV_FP_RN), 0x5f000000u);
  EQ32(wv_fp_cvt_f32_s64(INT64_MAX, WV_FP_RZ), 0x5effffffu);
  EQ32(wv_fp_cvt_f32_s64(INT64_MAX, WV_FP_RM), 0x5effffffu);
  EQ32(wv_fp_cvt_f32_s64(INT64_MAX, WV_FP_RP), 0x5f000000u);
  EQ32(wv_fp_cvt_f32_s64(INT64_MIN, WV_FP_RZ), 0xdf000000u); /* exact */
  EQ32(wv_fp_cvt_f32_u64(UINT64_MAX, WV_FP_RN), 0x5f800000u);
  EQ32(wv_fp_cvt_f32_u64(UINT64_MAX, WV_FP_RZ), 0x5f7fffffu);
  EQ64(wv_fp_cvt_f64_s64((1ll << 53) + 1, WV_FP_RN), 0x4340000000000000ull);
  EQ64(wv_fp_cvt_f64_s64((1ll << 53) + 1, WV_FP_RP), 0x4340000000000001ull);
  EQ64(wv_fp_cvt_f64_u64(UINT64_MAX, WV_FP_RZ), 0x43efffffffffffffull);
  EQ32(wv_fp_cvt(0, WV_FP_F32, WV_FP_S32, WV_FP_RM, 0), 0); /* integer 0 → +0, even in RM */
  /* sources narrower than 64 bits: only the source width is read (0xff as s8 is -1) */
  EQ32(wv_fp_cvt(0x12345678ffull, WV_FP_F32, WV_FP_S8, WV_FP_RN, 0), 0xbf800000u);
  EQ32(wv_fp_cvt(0xffffull, WV_FP_F32, WV_FP_U16, WV_FP_RN, 0), fb(65535.0f));
  /* to f16: 65520 ties to 65536 which overflows; RZ stays at 65504 = 0x7bff. */
  EQ32(wv_fp_cvt(65520, WV_FP_F16, WV_FP_S32, WV_FP_RN, 0), 0x7c00u);
  EQ32(wv_fp_cvt(65520, WV_FP_F16, WV_FP_S32, WV_FP_RZ, 0), 0x7bffu);
  /* Random sweep vs the host's conversion under fesetround (an independent implementation). */
  static const int fm[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  for (int i = 0; i < 100000; i++) {
    int m = (int)(rnd64() & 3);
    int64_t v = (int64_t)rnd64() >> (rnd64() % 64);
    uint64_t u = rnd64() >> (rnd64() % 64);
    /* zero is checked above: clang's u64→double sequence gives -0 for 0 under FE_DOWNWARD */
    if (v == 0 || u == 0) continue;
    fesetround(fm[m]);
    volatile int64_t vv = v;
    volatile uint64_t vu = u;
    volatile float f1 = (float)vv, f2 = (float)vu;
    volatile double d1 = (double)vv, d2 = (double)vu;
    fesetround(FE_TONEAREST);
    EQ32(wv_fp_cvt_f32_s64(v, MODES[m]), fb(f1));
    EQ32(wv_fp_cvt_f32_u64(u, MODES[m]), fb(f2));
    EQ64(wv_fp_cvt_f64_s64(v, MODES[m]), db(d1));
    EQ64(wv_fp_cvt_f64_u64(u, MODES[m]), db(d2));
  }
}

static void t_cvt_float_to_int(void **st) {
  (void)st;
  /* Float→int clamps (PTX §9.7.9.21; CUDA guide "clamp to the end of the supported range"). */
  EQ32(wv_fp_cvt_s32_f32(fb(3e9f), WV_FP_RZ, 0), INT32_MAX);
  EQ32(wv_fp_cvt_s32_f32(fb(-3e9f), WV_FP_RZ, 0), (uint32_t)INT32_MIN);
  EQ32(wv_fp_cvt_s32_f32(0x7f800000u, WV_FP_RN, 0), INT32_MAX);
  EQ32(wv_fp_cvt_s32_f32(0xff800000u, WV_FP_RN, 0), (uint32_t)INT32_MIN);
  EQ32(wv_fp_cvt_s32_f32(0x4effffffu, WV_FP_RZ, 0), 2147483520); /* largest float < 2^31 */
  EQ32(wv_fp_cvt_s32_f32(0x4f000000u, WV_FP_RZ, 0), INT32_MAX);  /* 2^31 */
  EQ32(wv_fp_cvt_s32_f32(0xcf000000u, WV_FP_RZ, 0), (uint32_t)INT32_MIN);
  EQ32(wv_fp_cvt_u32_f32(fb(-1.0f), WV_FP_RZ, 0), 0);
  EQ32(wv_fp_cvt_u32_f32(fb(-0.5f), WV_FP_RM, 0), 0); /* rounds to -1, clamps to 0 */
  EQ32(wv_fp_cvt_u32_f32(fb(5e9f), WV_FP_RN, 0), UINT32_MAX);
  /* NaN (H200): 0 through the 32-bit path, the sign-bit pattern from f64 or into 64 bits. */
  EQ32(wv_fp_cvt_s32_f32(0x7fc00000u, WV_FP_RN, 0), 0);
  EQ32(wv_fp_cvt_u32_f32(0xffffffffu, WV_FP_RZ, 0), 0);
  EQ64(wv_fp_cvt(0x7fc00000u, WV_FP_S64, WV_FP_F32, WV_FP_RN, 0), 0x8000000000000000ull);
  EQ64(wv_fp_cvt(0x7fc00000u, WV_FP_U64, WV_FP_F32, WV_FP_RZ, 0), 0x8000000000000000ull);
  EQ64(wv_fp_cvt_s64_f64(0x7ff8000000000000ull, WV_FP_RZ), INT64_MIN);
  EQ64(wv_fp_cvt(0x7ff8000000000000ull, WV_FP_S32, WV_FP_F64, WV_FP_RN, 0), 0xffffffff80000000ull);
  EQ64(wv_fp_cvt(0x7ff8000000000000ull, WV_FP_U8, WV_FP_F64, WV_FP_RN, 0), 0x80u);
  EQ64(wv_fp_cvt(0x7ff8000000000000ull, WV_FP_S8, WV_FP_F64, WV_FP_RN, 0), 0xffffffffffffff80ull);
  EQ64(wv_fp_cvt(0x7e00u, WV_FP_S16, WV_FP_F16, WV_FP_RZ, 0), 0);
  EQ64(wv_fp_cvt(0x7e00u, WV_FP_S64, WV_FP_F16, WV_FP_RZ, 0), 0x8000000000000000ull);
  /* integer rounding modes: ties to even for .rni */
  const float v[] = {2.5f, 3.5f, -2.5f, -0.5f, 0.5f, 1.49999994f, -1.5f};
  const int32_t rni[] = {2, 4, -2, 0, 0, 1, -2}, rzi[] = {2, 3, -2, 0, 0, 1, -1},
                rmi[] = {2, 3, -3, -1, 0, 1, -2}, rpi[] = {3, 4, -2, 0, 1, 2, -1};
  for (int i = 0; i < 7; i++) {
    assert_int_equal(wv_fp_cvt_s32_f32(fb(v[i]), WV_FP_RN, 0), rni[i]);
    assert_int_equal(wv_fp_cvt_s32_f32(fb(v[i]), WV_FP_RZ, 0), rzi[i]);
    assert_int_equal(wv_fp_cvt_s32_f32(fb(v[i]), WV_FP_RM, 0), rmi[i]);
    assert_int_equal(wv_fp_cvt_s32_f32(fb(v[i]), WV_FP_RP, 0), rpi[i]);
  }
  /* .ftz: a negative subnormal is -0 first, so .rmi gives 0 rather than -1. */
  EQ32(wv_fp_cvt_s32_f32(0x80000001u, WV_FP_RM, 0), 0xffffffffu);
  EQ32(wv_fp_cvt_s32_f32(0x80000001u, WV_FP_RM, WV_FP_FTZ), 0);
  EQ32(wv_fp_cvt_u32_f32(0x00000001u, WV_FP_RP, 0), 1);
  EQ32(wv_fp_cvt_u32_f32(0x00000001u, WV_FP_RP, WV_FP_FTZ), 0);
  /* 64-bit boundaries from f64 */
  EQ64(wv_fp_cvt_s64_f64(0x43e0000000000000ull, WV_FP_RZ), INT64_MAX);  /* 2^63 */
  EQ64(wv_fp_cvt_s64_f64(0x43dfffffffffffffull, WV_FP_RZ), 0x7ffffffffffffc00ull);
  EQ64(wv_fp_cvt_s64_f64(0xc3e0000000000000ull, WV_FP_RZ), INT64_MIN);
  EQ64(wv_fp_cvt_u64_f64(0x43f0000000000000ull, WV_FP_RZ), UINT64_MAX); /* 2^64 */
  EQ64(wv_fp_cvt_u64_f64(0x43efffffffffffffull, WV_FP_RN), 0xfffffffffffff800ull);
  EQ64(wv_fp_cvt_s64_f64(db(-0.5), WV_FP_RN), 0);
  EQ64(wv_fp_cvt_s64_f64(db(-0.5), WV_FP_RM), (uint64_t)-1);
  /* narrow destinations clamp, and come back sign-extended */
  EQ64(wv_fp_cvt(fb(300.0f), WV_FP_S8, WV_FP_F32, WV_FP_RZ, 0), 127);
  EQ64(wv_fp_cvt(fb(-300.0f), WV_FP_S8, WV_FP_F32, WV_FP_RZ, 0), 0xffffffffffffff80ull);
  EQ64(wv_fp_cvt(fb(300.0f), WV_FP_U8, WV_FP_F32, WV_FP_RZ, 0), 255);
  EQ64(wv_fp_cvt(fb(-7.0f), WV_FP_S16, WV_FP_F32, WV_FP_RZ, 0), 0xfffffffffffffff9ull);
}

static void t_cvt_int_to_int(void **st) {
  (void)st;
  EQ64(wv_fp_cvt(0x17f, WV_FP_S8, WV_FP_S32, WV_FP_RN, 0), 0x7f); /* chop */
  EQ64(wv_fp_cvt(0x180, WV_FP_S8, WV_FP_S32, WV_FP_RN, 0), 0xffffffffffffff80ull);
  EQ64(wv_fp_cvt(0x180, WV_FP_U8, WV_FP_S32, WV_FP_RN, 0), 0x80);
  EQ64(wv_fp_cvt(300, WV_FP_S8, WV_FP_S32, WV_FP_RN, WV_FP_SAT), 127);
  EQ64(wv_fp_cvt((uint32_t)-300, WV_FP_S8, WV_FP_S32, WV_FP_RN, WV_FP_SAT), 0xffffffffffffff80ull);
  EQ64(wv_fp_cvt((uint32_t)-300, WV_FP_U8, WV_FP_S32, WV_FP_RN, WV_FP_SAT), 0);
  EQ64(wv_fp_cvt(0xff, WV_FP_U32, WV_FP_S8, WV_FP_RN, 0), 0xffffffffull); /* sext, u32 result */
  EQ64(wv_fp_cvt(0xff, WV_FP_U32, WV_FP_U8, WV_FP_RN, 0), 0xff);                  /* zext */
  EQ64(wv_fp_cvt(0xff, WV_FP_U32, WV_FP_S8, WV_FP_RN, WV_FP_SAT), 0);
  EQ64(wv_fp_cvt(0x80000000u, WV_FP_S32, WV_FP_U32, WV_FP_RN, WV_FP_SAT), INT32_MAX);
  EQ64(wv_fp_cvt(0x80000000u, WV_FP_S32, WV_FP_U32, WV_FP_RN, 0), 0xffffffff80000000ull);
  EQ64(wv_fp_cvt((uint64_t)-5, WV_FP_U64, WV_FP_S64, WV_FP_RN, WV_FP_SAT), 0);
  EQ64(wv_fp_cvt(UINT64_MAX, WV_FP_S64, WV_FP_U64, WV_FP_RN, WV_FP_SAT), INT64_MAX);
  EQ64(wv_fp_cvt(UINT64_MAX, WV_FP_S16, WV_FP_U64, WV_FP_RN, WV_FP_SAT), 32767);
  EQ64(wv_fp_cvt(0x123456789ull, WV_FP_U32, WV_FP_U64, WV_FP_RN, 0), 0x23456789ull);
  EQ64(wv_fp_cvt(0x123456789ull, WV_FP_U32, WV_FP_S64, WV_FP_RN, WV_FP_SAT), UINT32_MAX);
  EQ64(wv_fp_cvt(0x8000, WV_FP_S64, WV_FP_S16, WV_FP_RN, 0), 0xffffffffffff8000ull);
}

static void t_cvt_float_float(void **st) {
  (void)st;
  /* f64 → f32: 1 + 2^-24 is a tie (RN → 1.0); one more bit breaks it. */
  const uint64_t t = 0x3ff0000010000000ull;
  EQ32(wv_fp_cvt_f32_f64(t, WV_FP_RN, 0), 0x3f800000u);
  EQ32(wv_fp_cvt_f32_f64(t, WV_FP_RZ, 0), 0x3f800000u);
  EQ32(wv_fp_cvt_f32_f64(t, WV_FP_RP, 0), 0x3f800001u);
  EQ32(wv_fp_cvt_f32_f64(t + 1, WV_FP_RN, 0), 0x3f800001u);
  EQ32(wv_fp_cvt_f32_f64(t | 1ull << 63, WV_FP_RM, 0), 0xbf800001u);
  EQ32(wv_fp_cvt_f32_f64(db(DBL_MAX), WV_FP_RN, 0), 0x7f800000u);
  EQ32(wv_fp_cvt_f32_f64(db(DBL_MAX), WV_FP_RZ, 0), 0x7f7fffffu);
  EQ32(wv_fp_cvt_f32_f64(db(-DBL_MAX), WV_FP_RM, 0), 0xff800000u);
  EQ32(wv_fp_cvt_f32_f64(db(-DBL_MAX), WV_FP_RP, 0), 0xff7fffffu);
  /* 2^-150 is half the smallest subnormal: RN ties to +0, RP gives 2^-149. */
  EQ32(wv_fp_cvt_f32_f64(0x3690000000000000ull, WV_FP_RN, 0), 0);
  EQ32(wv_fp_cvt_f32_f64(0x3690000000000000ull, WV_FP_RP, 0), 1);
  EQ32(wv_fp_cvt_f32_f64(0x3698000000000000ull, WV_FP_RN, 0), 1); /* 1.5 * 2^-150 */
  EQ32(wv_fp_cvt_f32_f64(0x37d0000000000000ull, WV_FP_RN, 0), 0x00080000u); /* 2^-130 */
  EQ32(wv_fp_cvt_f32_f64(0x37d0000000000000ull, WV_FP_RN, WV_FP_FTZ), 0);
  EQ32(wv_fp_cvt_f32_f64(db(2.0), WV_FP_RN, WV_FP_SAT), 0x3f800000u);
  /* NaN (H200): f64 → f32 keeps sign and top payload bits, sets the quiet bit. */
  EQ32(wv_fp_cvt_f32_f64(0x7ff4000000000000ull, WV_FP_RN, 0), 0x7fe00000u);
  EQ32(wv_fp_cvt_f32_f64(0xfff8000000000000ull, WV_FP_RZ, 0), 0xffc00000u);
  EQ32(wv_fp_cvt_f32_f64(0x7ff0000100000000ull, WV_FP_RN, 0), 0x7fc00008u);
  EQ32(wv_fp_cvt_f32_f64(0x7ff8000000000000ull, WV_FP_RN, WV_FP_SAT), 0);
  /* f32 → f64 exact; NaN widened and quieted; with .ftz NaN is canonicalised first (H200). */
  EQ64(wv_fp_cvt_f64_f32(1, 0), 0x36a0000000000000ull); /* 2^-149 */
  EQ64(wv_fp_cvt_f64_f32(1, WV_FP_FTZ), 0);
  EQ64(wv_fp_cvt_f64_f32(0x80000001u, WV_FP_FTZ), 0x8000000000000000ull);
  EQ64(wv_fp_cvt_f64_f32(0x7f800001u, 0), 0x7ff8000020000000ull);
  EQ64(wv_fp_cvt_f64_f32(0xffc00000u, 0), 0xfff8000000000000ull);
  EQ64(wv_fp_cvt_f64_f32(0xffc00000u, WV_FP_FTZ), 0x7fffffffe0000000ull);
  EQ64(wv_fp_cvt_f64_f32(fb(-3.0f), WV_FP_SAT), 0);
  /* Random sweep: f64 → f32 in every mode against the host's cast under fesetround. */
  static const int fm[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  for (int i = 0; i < 200000; i++) {
    int m = (int)(rnd64() & 3);
    uint64_t b = rnd64();
    if (i & 1) b = (b & 0x800fffffffffffffull) | ((uint64_t)(860 + rnd64() % 300) << 52);
    if (wv_fp_isnan64(b)) continue;
    fesetround(fm[m]);
    volatile double d = wv_fp_f64(b);
    volatile float f = (float)d;
    fesetround(FE_TONEAREST);
    EQ32(wv_fp_cvt_f32_f64(b, MODES[m], 0), fb(f));
  }
}

static void t_cvt_rint(void **st) {
  (void)st;
  EQ32(wv_fp_rint_f32(fb(2.5f), WV_FP_RN, 0), fb(2.0f));
  EQ32(wv_fp_rint_f32(fb(3.5f), WV_FP_RN, 0), fb(4.0f));
  EQ32(wv_fp_rint_f32(fb(-0.5f), WV_FP_RN, 0), 0x80000000u); /* IEEE: the zero keeps the sign */
  EQ32(wv_fp_rint_f32(fb(-0.5f), WV_FP_RM, 0), fb(-1.0f));
  EQ32(wv_fp_rint_f32(fb(-0.5f), WV_FP_RP, 0), 0x80000000u);
  EQ32(wv_fp_rint_f32(fb(-1.5f), WV_FP_RZ, 0), fb(-1.0f));
  EQ32(wv_fp_rint_f32(fb(0.3f), WV_FP_RP, 0), fb(1.0f));
  EQ32(wv_fp_rint_f32(fb(1e30f), WV_FP_RN, 0), fb(1e30f));
  EQ32(wv_fp_rint_f32(1, WV_FP_RP, 0), fb(1.0f));
  EQ32(wv_fp_rint_f32(1, WV_FP_RP, WV_FP_FTZ), 0);
  EQ32(wv_fp_rint_f32(0x7fc12345u, WV_FP_RN, 0), WV_FP_F32_NAN);
  EQ64(wv_fp_rint_f64(db(2.5), WV_FP_RN), db(2.0));
  EQ64(wv_fp_rint_f64(db(-2.5), WV_FP_RM), db(-3.0));
  EQ64(wv_fp_rint_f64(0x4330000000000001ull, WV_FP_RN), 0x4330000000000001ull); /* 2^52+1 */
  EQ64(wv_fp_rint_f64(0x7ff0000000000001ull, WV_FP_RN), 0x7ff8000000000001ull);
  /* Sweep vs the C library's nearbyint/trunc/floor/ceil. */
  for (int i = 0; i < 100000; i++) {
    uint32_t a = rf32(100, 160);
    float f = wv_fp_f32(a);
    EQ32(wv_fp_rint_f32(a, WV_FP_RN, 0), fb(nearbyintf(f)));
    EQ32(wv_fp_rint_f32(a, WV_FP_RZ, 0), fb(truncf(f)));
    EQ32(wv_fp_rint_f32(a, WV_FP_RM, 0), fb(floorf(f)));
    EQ32(wv_fp_rint_f32(a, WV_FP_RP, 0), fb(ceilf(f)));
  }
}

/* Half precision: the expected value of a half is computed from its fields with ldexp. */
static double half_value(uint32_t h) {
  int s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
  return s ? -v : v;
}

static void t_cvt_half(void **st) {
  (void)st;
  EQ32(wv_fp_cvt_f16_f32(fb(65504.0f), WV_FP_RN, 0), 0x7bffu);
  EQ32(wv_fp_cvt_f16_f32(0x477ff000u, WV_FP_RN, 0), 0x7c00u); /* 65520 ties up → inf */
  EQ32(wv_fp_cvt_f16_f32(0x477ff000u, WV_FP_RZ, 0), 0x7bffu);
  EQ32(wv_fp_cvt_f16_f32(0x477fefffu, WV_FP_RN, 0), 0x7bffu);
  EQ32(wv_fp_cvt_f16_f32(0xc77ff000u, WV_FP_RP, 0), 0xfbffu);
  EQ32(wv_fp_cvt_f16_f32(0xc77ff000u, WV_FP_RM, 0), 0xfc00u);
  EQ32(wv_fp_cvt_f16_f32(0x3f801000u, WV_FP_RN, 0), 0x3c00u); /* 1 + 2^-11: tie → 1.0 */
  EQ32(wv_fp_cvt_f16_f32(0x3f801000u, WV_FP_RP, 0), 0x3c01u);
  EQ32(wv_fp_cvt_f16_f32(0x3f803000u, WV_FP_RN, 0), 0x3c02u); /* 1 + 3*2^-11: tie → even */
  EQ32(wv_fp_cvt_f16_f32(0x33800000u, WV_FP_RN, 0), 0x0001u); /* 2^-24, smallest subnormal */
  EQ32(wv_fp_cvt_f16_f32(0x33000000u, WV_FP_RN, 0), 0x0000u); /* 2^-25: tie → 0 */
  EQ32(wv_fp_cvt_f16_f32(0x33000000u, WV_FP_RP, 0), 0x0001u);
  EQ32(wv_fp_cvt_f16_f32(0x33000001u, WV_FP_RN, 0), 0x0001u);
  EQ32(wv_fp_cvt_f16_f32(0xb3000001u, WV_FP_RZ, 0), 0x8000u);
  EQ32(wv_fp_cvt_f16_f32(0x7fc12345u, WV_FP_RN, 0), 0x7fffu); /* H200: canonical half NaN */
  EQ32(wv_fp_cvt_f16_f32(0xff800000u, WV_FP_RN, 0), 0xfc00u);
  EQ32(wv_fp_cvt(fb(-1.0f), WV_FP_F16, WV_FP_F32, WV_FP_RN, WV_FP_RELU), 0);
  EQ32(wv_fp_cvt(0x7fc00000u, WV_FP_F16, WV_FP_F32, WV_FP_RN, WV_FP_RELU), 0x7fffu);
  EQ32(wv_fp_cvt(fb(1e6f), WV_FP_F16, WV_FP_F32, WV_FP_RN, WV_FP_SATFINITE), 0x7bffu);
  EQ32(wv_fp_cvt(0xff800000u, WV_FP_F16, WV_FP_F32, WV_FP_RN, WV_FP_SATFINITE), 0xfbffu);
  EQ32(wv_fp_cvt(fb(2.0f), WV_FP_F16, WV_FP_F32, WV_FP_RN, WV_FP_SAT), 0x3c00u);
  EQ32(wv_fp_cvt(1, WV_FP_F16, WV_FP_F32, WV_FP_RN, WV_FP_FTZ), 0); /* f32 subnormal input */
  /* f64 → f16: NaN narrowed IEEE-style (H200). */
  EQ32(wv_fp_cvt(0x7ff4000000000000ull, WV_FP_F16, WV_FP_F64, WV_FP_RN, 0), 0x7f00u);
  EQ32(wv_fp_cvt(0xfff8000000000000ull, WV_FP_F16, WV_FP_F64, WV_FP_RN, 0), 0xfe00u);
  EQ32(wv_fp_cvt(db(1.0 + ldexp(1, -11)), WV_FP_F16, WV_FP_F64, WV_FP_RP, 0), 0x3c01u);
  /* Every half widens exactly (f32 and f64); NaNs become the canonical f32 NaN (H200). */
  for (uint32_t h = 0; h < 65536; h++) {
    uint32_t f = wv_fp_cvt_f32_f16(h, 0);
    uint64_t d = wv_fp_cvt(h, WV_FP_F64, WV_FP_F16, WV_FP_RN, 0);
    if ((h & 0x7c00) == 0x7c00) {
      if (h & 0x3ff) {
        EQ32(f, WV_FP_F32_NAN);
        assert_true(wv_fp_isnan64(d));
      } else {
        EQ32(f, (h & 0x8000) ? 0xff800000u : 0x7f800000u);
      }
      continue;
    }
    EQ32(f, fb((float)half_value(h)));
    EQ64(d, db(half_value(h)));
    EQ32(wv_fp_cvt_f16_f32(f, WV_FP_RN, 0), h); /* and back, exactly */
  }
  /* f32 → f16 sweep: the result must be the correctly rounded neighbour in each mode. */
  for (int i = 0; i < 200000; i++) {
    uint32_t a = rf32(90, 145);
    wv_fp_rnd m = MODES[rnd64() & 3];
    uint32_t h = wv_fp_cvt_f16_f32(a, m, 0);
    double x = wv_fp_f32(a), v = half_value(h);
    if ((h & 0x7c00) == 0x7c00 || fabs(x) > 65504.0) continue; /* overflow checked above */
    uint32_t up = (h & 0x8000) ? h - 1 : h + 1, dn = (h & 0x8000) ? h + 1 : h - 1;
    if ((h & 0x7fff) == 0) up = (h & 0x8000) ? 0x0001 : 0x0001, dn = 0x8001;
    double vup = half_value(up), vdn = (h & 0x7fff) ? half_value(dn) : -half_value(1);
    /* v must be a neighbour of x: vdn < x < vup unless exact */
    if (v == x) continue;
    assert_true((v < x && x < vup) || (vdn < x && x < v));
    if (m == WV_FP_RZ) assert_true(fabs(v) < fabs(x));
    if (m == WV_FP_RM) assert_true(v < x);
    if (m == WV_FP_RP) assert_true(v > x);
    if (m == WV_FP_RN) {
      double other = v < x ? vup : vdn;
      assert_true(fabs(v - x) < fabs(other - x) ||
                  (fabs(v - x) == fabs(other - x) && (h & 1) == 0));
    }
  }
}

static void t_cvt_bf16_tf32(void **st) {
  (void)st;
  EQ32(wv_fp_cvt_bf16_f32(0x3f808000u, WV_FP_RN, 0), 0x3f80u); /* tie → even */
  EQ32(wv_fp_cvt_bf16_f32(0x3f818000u, WV_FP_RN, 0), 0x3f82u); /* tie → even (up) */
  EQ32(wv_fp_cvt_bf16_f32(0x3f808001u, WV_FP_RN, 0), 0x3f81u);
  EQ32(wv_fp_cvt_bf16_f32(0x3f80ffffu, WV_FP_RZ, 0), 0x3f80u);
  EQ32(wv_fp_cvt_bf16_f32(0xbf808001u, WV_FP_RM, 0), 0xbf81u);
  EQ32(wv_fp_cvt_bf16_f32(0x7f7fffffu, WV_FP_RN, 0), 0x7f80u); /* rounds up to inf */
  EQ32(wv_fp_cvt_bf16_f32(0x7f7fffffu, WV_FP_RZ, 0), 0x7f7fu);
  EQ32(wv_fp_cvt_bf16_f32(0xffc00001u, WV_FP_RN, 0), 0x7fffu); /* H200: canonical */
  EQ32(wv_fp_cvt_bf16_f32(1, WV_FP_RN, 0), 0);
  EQ32(wv_fp_cvt_bf16_f32(1, WV_FP_RP, 0), 1);
  /* bf16 → f32 is a 16-bit shift, NaNs included (H200). */
  for (uint32_t h = 0; h < 65536; h += 7) EQ32(wv_fp_cvt_f32_bf16(h, 0), h << 16);
  EQ32(wv_fp_cvt_f32_bf16(0x7f81u, 0), 0x7f810000u);
  /* tf32: 10 mantissa bits in an f32 pattern. 1 + 2^-11 is a tie: .rna away, .rn to even. */
  EQ32(wv_fp_cvt(0x3f801000u, WV_FP_TF32, WV_FP_F32, WV_FP_RNA, 0), 0x3f802000u);
  EQ32(wv_fp_cvt(0x3f801000u, WV_FP_TF32, WV_FP_F32, WV_FP_RN, 0), 0x3f800000u);
  EQ32(wv_fp_cvt(0x3f803000u, WV_FP_TF32, WV_FP_F32, WV_FP_RN, 0), 0x3f804000u);
  EQ32(wv_fp_cvt(0x3f801fffu, WV_FP_TF32, WV_FP_F32, WV_FP_RZ, 0), 0x3f800000u);
  EQ32(wv_fp_cvt(0x7f7ff000u, WV_FP_TF32, WV_FP_F32, WV_FP_RNA, 0), 0x7f800000u);
  /* NaN (H200): .rna masks the low 13 bits (even turning a NaN into inf), .rn gives 0x7fffe000. */
  EQ32(wv_fp_cvt(0x7fc12345u, WV_FP_TF32, WV_FP_F32, WV_FP_RNA, 0), 0x7fc12000u);
  EQ32(wv_fp_cvt(0xff800001u, WV_FP_TF32, WV_FP_F32, WV_FP_RNA, 0), 0xff800000u);
  EQ32(wv_fp_cvt(0xffc00000u, WV_FP_TF32, WV_FP_F32, WV_FP_RN, 0), 0x7fffe000u);
}

/* ---- half precision (issue 13): values worked out by hand from the PTX ISA's definitions ---- */
#define HA(op, bf, a, b, c, f) wv_fp_half_arith(WV_FP__##op, bf, a, b, c, f)
static void t_half_arith(void **state) {
  (void)state;
  EQ32(HA(ADD, 0, 0x3c00, 0x1000, 0, 0), 0x3c00u); /* 1 + 2^-11: tie → even 1.0 */
  EQ32(HA(ADD, 0, 0x3c01, 0x1000, 0, 0), 0x3c02u); /* 1 + 2^-10 + 2^-11: tie → even */
  EQ32(HA(SUB, 0, 0x3c00, 0x3c00, 0, 0), 0x0000u); /* x - x = +0 */
  EQ32(HA(ADD, 0, 0x8000, 0x8000, 0, 0), 0x8000u); /* -0 + -0 = -0 */
  EQ32(HA(MUL, 0, 0x7bff, 0x4000, 0, 0), 0x7c00u); /* 65504 * 2 → inf */
  EQ32(HA(MUL, 0, 0x0001, 0x3800, 0, 0), 0x0000u); /* 2^-25: tie → 0 */
  EQ32(HA(MUL, 0, 0x0003, 0x3800, 0, 0), 0x0002u); /* 1.5 * 2^-24: tie → even 2^-23 */
  EQ32(HA(ADD, 0, 0x7c00, 0xfc00, 0, 0), 0x7fffu); /* inf - inf: canonical NaN */
  EQ32(HA(ADD, 0, 0xfe12, 0x3c00, 0, 0), 0x7fffu); /* NaN payloads are not kept */
  /* fma rounds once: (1 + 2^-10)^2 - 2^-11 = 1 + 1.5 ulp + 2^-20, just above the tie → 1 + 2 ulp */
  EQ32(HA(FMA, 0, 0x3c01, 0x3c01, 0x9000, 0), 0x3c02u);
  /* (1 + 2^-10)(1 - 2^-11) + 0 = 1 + 2^-11 - 2^-21: just below the tie → 1 */
  EQ32(HA(FMA, 0, 0x3c01, 0x3bff, 0x0000, 0), 0x3c00u);
  EQ32(HA(FMA, 0, 0x3c00, 0x3c00, 0x3c00, 0), 0x4000u);
  EQ32(HA(FMA, 0, 0x3c00, 0xbc00, 0x3c00, 0), 0x0000u); /* exact cancellation: +0 */
  /* .ftz: subnormal inputs and tiny results flush; tininess with an unbounded exponent, as on f32 */
  EQ32(HA(ADD, 0, 0x0001, 0x0000, 0, WV_FP_FTZ), 0x0000u);
  EQ32(HA(ADD, 0, 0x83ff, 0x8000, 0, WV_FP_FTZ), 0x8000u);
  EQ32(HA(MUL, 0, 0x3bff, 0x0400, 0, 0), 0x0400u);         /* 2^-14 - 2^-25: subnormal tie → even 2^-14 */
  EQ32(HA(MUL, 0, 0x3bff, 0x0400, 0, WV_FP_FTZ), 0x0000u); /* ... but tiny before denormalising */
  EQ32(HA(MUL, 0, 0x3c00, 0x0400, 0, WV_FP_FTZ), 0x0400u);
  /* .sat and .relu */
  EQ32(HA(ADD, 0, 0x3c00, 0x3c00, 0, WV_FP_SAT), 0x3c00u);
  EQ32(HA(ADD, 0, 0xbc00, 0x0000, 0, WV_FP_SAT), 0x0000u);
  EQ32(HA(ADD, 0, 0x7e00, 0x0000, 0, WV_FP_SAT), 0x0000u);
  EQ32(HA(FMA, 0, 0xbc00, 0x3c00, 0x0000, WV_FP_RELU), 0x0000u);
  EQ32(HA(FMA, 0, 0x7e00, 0x3c00, 0x0000, WV_FP_RELU), 0x7fffu);
  EQ32(HA(FMA, 1, 0xbf80, 0x3f80, 0x3f00, WV_FP_RELU), 0x0000u); /* -1 + 0.5 */
  /* bf16: 8-bit significands, f32's exponent range */
  EQ32(HA(ADD, 1, 0x3f80, 0x3b80, 0, 0), 0x3f80u); /* 1 + 2^-8: tie → even */
  EQ32(HA(ADD, 1, 0x3f81, 0x3b80, 0, 0), 0x3f82u);
  EQ32(HA(MUL, 1, 0x7f7f, 0x4000, 0, 0), 0x7f80u);
  EQ32(HA(MUL, 1, 0x0001, 0x3f00, 0, 0), 0x0000u); /* 2^-134: tie → 0 */
  EQ32(HA(MUL, 1, 0x7f80, 0x0000, 0, 0), 0x7fffu); /* inf * 0 */
  EQ32(HA(FMA, 1, 0x3f80, 0x3f80, 0x0001, 0), 0x3f80u); /* 1 + 2^-133: far below the ulp */
  EQ32(HA(FMA, 1, 0x3f80, 0x3b80, 0x3f80, 0), 0x3f80u); /* 1 + 2^-8 tie → even */
  EQ32(HA(FMA, 1, 0x3f81, 0x3b80, 0x3f80, 0), 0x3f81u); /* 1 + 2^-8 + 2^-15 > tie → up */
}

/* The f16 operations against the host's own half rounding (an independent implementation), where the
 * compiler has _Float16 (gcc 12 on x86-64): add/mul exact in double, fma exact in __float128. */
static void t_half_vs_host(void **state) {
  (void)state;
#if defined(__FLT16_MAX__) && defined(__SIZEOF_FLOAT128__) && defined(__GNUC__) && !defined(__clang__)
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 200000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint16_t h[3] = {(uint16_t)x, (uint16_t)(x >> 16), (uint16_t)(x >> 32)};
    if (i < 4096) h[0] = (uint16_t)(h[0] & 0x83ff), h[1] = (uint16_t)((h[1] & 0x87ff) | 0x3000); /* near-ties, subnormals */
    _Float16 v[3];
    memcpy(v, h, sizeof v);
    int nan = 0;
    for (int k = 0; k < 3; k++) nan |= v[k] != v[k];
    if (nan) continue;
    _Float16 r[3] = {(_Float16)((double)v[0] + (double)v[1]), (_Float16)((double)v[0] * (double)v[1]),
                     (_Float16)((__float128)v[0] * (__float128)v[1] + (__float128)v[2])};
    uint16_t rb[3];
    memcpy(rb, r, sizeof rb);
    int op[3] = {WV_FP__ADD, WV_FP__MUL, WV_FP__FMA};
    for (int k = 0; k < 3; k++) {
      uint32_t got = wv_fp_half_arith(op[k], 0, h[0], h[1], h[2], 0), want = rb[k];
      if ((want & 0x7fffu) > 0x7c00u) want = 0x7fffu;
      if (got != want) fail_msg("op %d of %04x %04x %04x: got %04x want %04x", k, h[0], h[1], h[2], got, want);
    }
  }
#else
  skip();
#endif
}

static void t_half_minmax_cmp_cvt(void **state) {
  (void)state;
  EQ32(wv_fp_half_minmax(0x8000, 0x0000, 0, 0, 0), 0x8000u); /* -0 < +0 */
  EQ32(wv_fp_half_minmax(0x8000, 0x0000, 0, 0, 1), 0x0000u);
  EQ32(wv_fp_half_minmax(0x7e00, 0x3c00, 0, 0, 0), 0x3c00u); /* NaN ignored */
  EQ32(wv_fp_half_minmax(0x7e00, 0xfe00, 0, 0, 0), 0x7fffu);
  EQ32(wv_fp_half_minmax(0x7e00, 0x3c00, 0, WV_FP_NANPROP, 1), 0x7fffu);
  EQ32(wv_fp_half_minmax(0xc000, 0x4200, 0, WV_FP_ABS | WV_FP_XORSIGN, 0), 0xc000u); /* min(|-2|,|3|) = 2, sign - */
  EQ32(wv_fp_half_minmax(0x0001, 0x8002, 0, WV_FP_FTZ, 1), 0x0000u);
  EQ32(wv_fp_half_minmax(0xff80, 0x3f80, 1, 0, 0), 0xff80u); /* bf16 -inf */
  EQ32(wv_fp_half_sign(0x3c00, 0, 0, 0), 0xbc00u);
  EQ32(wv_fp_half_sign(0x8001, 0, WV_FP_FTZ, 1), 0x0000u);
  EQ32(wv_fp_half_sign(0x8001, 1, 0, 1), 0x0001u);
  assert_true(wv_fp_half_cmp(0x3c00, 0x4000, 0, 0, WV_FP_LT));
  assert_false(wv_fp_half_cmp(0x7e00, 0x4000, 0, 0, WV_FP_LT));
  assert_true(wv_fp_half_cmp(0x7e00, 0x4000, 0, 0, WV_FP_LTU));
  assert_true(wv_fp_half_cmp(0x0001, 0x8000, 0, 1, WV_FP_EQ)); /* .ftz: both zeros */
  assert_false(wv_fp_half_cmp(0x0001, 0x8000, 0, 0, WV_FP_EQ));
  assert_true(wv_fp_half_cmp(0x3f80, 0x3f81, 1, 0, WV_FP_LT));
  /* cvt.rn.f16x2.f32 d, a, b: a in the upper half */
  EQ32(wv_fp_cvt_half2_f32(fb(1.0f), fb(2.0f), 0, 0), 0x3c004000u);
  EQ32(wv_fp_cvt_half2_f32(fb(-1.0f), 0x477ff000u, 0, WV_FP_RELU), 0x00007c00u); /* 65520 → inf */
  EQ32(wv_fp_cvt_half2_f32(0x7fc00000u, 0x477ff000u, 0, WV_FP_SATFINITE), 0x7fff7bffu);
  EQ32(wv_fp_cvt_half2_f32(fb(1.0f), 0x3f808000u, 1, 0), 0x3f803f80u); /* bf16: 1 + 2^-8 tie → even */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_add_modes),        cmocka_unit_test(t_mul_div_sqrt_modes),
      cmocka_unit_test(t_sweep_vs_oracle),  cmocka_unit_test(t_subnormal_ftz),
      cmocka_unit_test(t_sat),              cmocka_unit_test(t_nan),
      cmocka_unit_test(t_restores_mode),    cmocka_unit_test(t_minmax),
      cmocka_unit_test(t_abs_neg_copysign), cmocka_unit_test(t_testp),
      cmocka_unit_test(t_compare),          cmocka_unit_test(t_cvt_int_to_float),
      cmocka_unit_test(t_cvt_float_to_int), cmocka_unit_test(t_cvt_int_to_int),
      cmocka_unit_test(t_cvt_float_float),  cmocka_unit_test(t_cvt_rint),
      cmocka_unit_test(t_cvt_half),         cmocka_unit_test(t_cvt_bf16_tf32),
      cmocka_unit_test(t_half_arith),       cmocka_unit_test(t_half_vs_host),
      cmocka_unit_test(t_half_minmax_cmp_cvt),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
