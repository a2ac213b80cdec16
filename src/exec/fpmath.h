/*
 * fpmath.h — warpvm's scalar numeric semantics: every PTX floating-point instruction and every
 * cvt the executor needs, one lane at a time, bit-exact with NVIDIA hardware where the hardware
 * is exactly specified (IEEE-rounded ops, conversions, comparisons, min/max, testp). The .approx
 * ("SFU") functions are sfu.h's.
 *
 * Owned here: src/exec/fpmath.h, src/exec/fpmath.c (built with -frounding-math).
 * References are to the PTX ISA 9.x: §9.7.3 floating-point instructions, §9.7.4 set/setp
 * comparison operators, §9.7.9.21 cvt, §6.5 type conversion, and the CUDA C Programming Guide
 * "Floating-Point Standard" appendix (NaN encoding, float→int clamping).
 *
 * ---------------------------------------------------------------------------------------------
 * Conventions
 *  - Values travel as raw bit patterns: uint32_t for .f32, uint64_t for .f64, the low 16 bits of
 *    a uint32_t for .f16/.bf16. NaN payloads therefore survive the call boundary untouched.
 *    Comparisons alone take float/double (payloads cannot change a predicate).
 *  - Every function is pure and thread-safe. Operations with a directed rounding mode
 *    (.rz/.rm/.rp) switch the calling thread's rounding mode with fesetround() around the one
 *    IEEE operation and restore it before returning; the rounding mode is per-thread state, so
 *    lanes on other threads are not affected. IEEE exception *flags* (inexact, invalid, ...) may be
 *    raised as a side effect; warpvm never reads them.
 *  - The caller's thread must run in the default FP environment: round-to-nearest, and on x86
 *    MXCSR FTZ/DAZ off. The round-to-nearest fast paths in this header rely on it. .ftz is
 *    implemented in software through the WV_FP_FTZ flag: the caller never sets FTZ itself.
 *  - errno is never touched (domain/range cases are handled before libm is called).
 *
 * NaN policy (PTX §9.7.3 intro; CUDA Programming Guide, Floating-Point Standard; every rule below
 * was also measured on an H200, sm_90, CUDA 13.0, with the PTX run through inline asm):
 *  - Every .f32 result that is NaN is the canonical NaN WV_FP_F32_NAN (0x7fffffff), whatever the
 *    inputs' payloads: arithmetic, min/max, approx functions, and also neg/abs (ptxas emits
 *    FADD for them), cvt to f32 from f16/f32, rounding to integral.
 *  - .f64: "NaN payloads are supported for double-precision instructions". A NaN operand comes
 *    back with its quiet bit set, sign and payload kept. With several NaN operands the hardware
 *    picks by the order of the SASS operands, which ptxas chooses: hand-written inline-asm
 *    PTX measured b-first for add/sub/mul/min/max, while nvcc-compiled code (the corpus,
 *    tests/kernels fp64.binary: 25 cases each) gives a-first for add/sub/mul/div/min/max and
 *    a, then c, then b for fma. We follow nvcc-compiled code.
 *    A NaN made from numbers (inf-inf, 0*inf, 0/0, sqrt(-x), rsqrt(-x)) is WV_FP_F64_NAN,
 *    0xfff8000000000000 on the H200. neg/abs of an f64 NaN only quiet it (no sign change).
 *    Switches: WV_FP_F64_NAN (the default NaN) and WV_FP_F64_NAN_PROPAGATE (0: every f64 NaN
 *    result is WV_FP_F64_NAN), both overridable with -D; the rule lives in wv_fp__f64_nan().
 *  - cvt has its own NaN rules (see wv_fp_cvt below).
 * ---------------------------------------------------------------------------------------------
 */
#ifndef WV_EXEC_FPMATH_H
#define WV_EXEC_FPMATH_H

#if defined(__FAST_MATH__)
#error "fpmath.h needs IEEE semantics (NaN tests, exact rounding): do not build with -ffast-math"
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configuration ------------------------------------------------------------------------- */

#define WV_FP_F32_NAN 0x7fffffffu /* NVIDIA's canonical single-precision NaN */
#ifndef WV_FP_F64_NAN
#define WV_FP_F64_NAN 0xfff8000000000000ull /* default double NaN (the switch for the lead) */
#endif
#ifndef WV_FP_F64_NAN_PROPAGATE
#define WV_FP_F64_NAN_PROPAGATE 1 /* 1: f64 ops pass an input NaN's payload through (quieted) */
#endif
#define WV_FP_F16_NAN 0x7fffu  /* canonical half NaN produced by cvt to .f16 */
#define WV_FP_BF16_NAN 0x7fffu /* canonical bfloat16 NaN produced by cvt to .bf16 */

/* ---- modes and flags ----------------------------------------------------------------------- */

/* IEEE rounding modifiers .rn .rz .rm .rp, plus .rna (nearest, ties away; cvt to tf32 only).
 * For cvt the integer-rounding forms .rni/.rzi/.rmi/.rpi are the same four modes with
 * WV_FP_INTRND set in the flags (needed only for float→same-float rounding to an integral). */
typedef enum wv_fp_rnd {
  WV_FP_RN = 0,
  WV_FP_RZ = 1,
  WV_FP_RM = 2,
  WV_FP_RP = 3,
  WV_FP_RNA = 4,
} wv_fp_rnd;

enum {
  WV_FP_FTZ = 1u << 0,       /* .ftz: flush f32 subnormal inputs and results to signed zero */
  WV_FP_SAT = 1u << 1,       /* .sat: float result clamped to [0,1], NaN→+0; integer cvt clamps */
  WV_FP_NANPROP = 1u << 2,   /* min/max .NaN: any NaN input gives the canonical NaN */
  WV_FP_ABS = 1u << 3,       /* min/max .abs */
  WV_FP_XORSIGN = 1u << 4,   /* min/max .xorsign (with .abs) */
  WV_FP_RELU = 1u << 5,      /* cvt .relu (f16/bf16/tf32 destinations): negative → +0 */
  WV_FP_SATFINITE = 1u << 6, /* cvt .satfinite: ±inf/overflow → ±MAX finite, NaN stays NaN */
  WV_FP_INTRND = 1u << 7,    /* cvt .rni/.rzi/.rmi/.rpi on float→float: round to integral */
  WV_FP_OOB = 1u << 8,       /* fma .oob on halves: an OOB-NaN (0x7ff7, either sign) in a or b gives +0 */
};

/* ---- bit helpers --------------------------------------------------------------------------- */

static inline float wv_fp_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline double wv_fp_f64(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static inline uint32_t wv_fp_b32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline uint64_t wv_fp_b64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

static inline int wv_fp_isnan32(uint32_t a) { return (a & 0x7fffffffu) > 0x7f800000u; }
static inline int wv_fp_isnan64(uint64_t a) {
  return (a & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
static inline int wv_fp_issub32(uint32_t a) {
  return (a & 0x7f800000u) == 0 && (a & 0x007fffffu) != 0;
}
/* .ftz on one f32 value: a subnormal becomes a zero of the same sign. */
static inline uint32_t wv_fp_flush32(uint32_t a) {
  return wv_fp_issub32(a) ? (a & 0x80000000u) : a;
}

/* .sat (§9.7.3.3) on an f32 result: clamp to [0.0, 1.0], NaN → +0.0. -0.0 becomes +0.0 as well. */
static inline uint32_t wv_fp_sat32(uint32_t r) {
  if (wv_fp_isnan32(r) || (r & 0x80000000u)) return 0;
  if (r > 0x3f800000u) return 0x3f800000u;
  return r;
}

/* ---- slow paths (fpmath.c) ----------------------------------------------------------------- */

uint32_t wv_fp__arith_f32(int op, uint32_t a, uint32_t b, uint32_t c, wv_fp_rnd rnd, unsigned flags);
uint64_t wv_fp__arith_f64(int op, uint64_t a, uint64_t b, uint64_t c, wv_fp_rnd rnd);
uint64_t wv_fp__f64_nan(uint64_t a, uint64_t b, uint64_t c, int nargs);
enum { WV_FP__ADD, WV_FP__SUB, WV_FP__MUL, WV_FP__FMA, WV_FP__DIV, WV_FP__SQRT, WV_FP__RCP };

/* ---- IEEE-rounded arithmetic: add sub mul fma(=mad) div sqrt rcp (§9.7.3.3–9.7.3.15) ------- */
/* f32: flags WV_FP_FTZ, WV_FP_SAT (sat on add/sub/mul/fma only in PTX, accepted on all).
 * .ftz flushes subnormal inputs, and a result that is tiny when rounded with an unbounded
 * exponent (H200: mul.rn.ftz(1-2^-24, 2^-126) = +0 although gradual underflow rounds it up to
 * 2^-126). .sat clamps to [0,1] after that, NaN and -0 becoming +0.
 * f64: no flags (PTX has none). RN (f32: with no flag or .ftz alone) is inline; the rest goes to fpmath.c. */

static inline uint32_t wv_fp__canon32(float r) {
  return r != r ? WV_FP_F32_NAN : wv_fp_b32(r);
}

/* The host's round-to-nearest (the thread's mode: see Conventions). wv_fp__rn_OP_f32(a, b, c, ftz, &r) and
 * wv_fp__rn_OP_f64(a, b, c, &r) do OP on the host and return 1 with the result in *r, or 0 where only
 * fpmath.c's slow path decides (*r is then meaningless): an f32 .ftz result of ±2^-126, which may be tiny
 * before rounding (wv_fp__arith_f32); an f64 NaN (its payload rule); sqrt of a negative (no libm call,
 * errno). Unused operands are ignored. The functions below try them first; a handler may also run them
 * over all lanes in one loop the compiler vectorises, and the full function for the lanes they leave. */
static inline float wv_fp__in32(uint32_t a, int ftz) { return wv_fp_f32(ftz ? wv_fp_flush32(a) : a); }
static inline int wv_fp__rn32(float h, int ftz, uint32_t *r) {
  uint32_t u = wv_fp__canon32(h), mag = u & 0x7fffffffu;
  *r = ftz && mag < 0x00800000u ? u & 0x80000000u : u; /* .ftz: a subnormal result becomes a signed zero */
  return !ftz || mag != 0x00800000u;
}
#define WV_FP__RN_F32(op, expr)                                                          \
  static inline int wv_fp__rn_##op##_f32(uint32_t a_, uint32_t b_, uint32_t c_, int ftz, uint32_t *r) { \
    float a = wv_fp__in32(a_, ftz), b = wv_fp__in32(b_, ftz), c = wv_fp__in32(c_, ftz);  \
    (void)b; (void)c;                                                                    \
    return wv_fp__rn32(expr, ftz, r);                                                    \
  }
WV_FP__RN_F32(add, a + b)
WV_FP__RN_F32(sub, a - b)
WV_FP__RN_F32(mul, a * b)
WV_FP__RN_F32(div, a / b)
WV_FP__RN_F32(fma, fmaf(a, b, c)) /* the FMA instruction where the target has one (WV_NATIVE), else libm's */
WV_FP__RN_F32(rcp, 1.0f / a)
static inline int wv_fp__rn_sqrt_f32(uint32_t a, uint32_t b, uint32_t c, int ftz, uint32_t *r) {
  (void)b, (void)c;
  if (ftz) a = wv_fp_flush32(a);
  *r = 0;
  if (a >> 31) return 0; /* -0 too: the slow path keeps its sign */
  return wv_fp__rn32(sqrtf(wv_fp_f32(a)), ftz, r);
}
#define WV_FP__RN_F64(op, expr)                                                          \
  static inline int wv_fp__rn_##op##_f64(uint64_t a_, uint64_t b_, uint64_t c_, uint64_t *r) { \
    double a = wv_fp_f64(a_), b = wv_fp_f64(b_), c = wv_fp_f64(c_), h;                   \
    (void)b; (void)c;                                                                    \
    h = (expr);                                                                          \
    *r = wv_fp_b64(h);                                                                   \
    return h == h;                                                                       \
  }
WV_FP__RN_F64(add, a + b)
WV_FP__RN_F64(sub, a - b)
WV_FP__RN_F64(mul, a * b)
WV_FP__RN_F64(div, a / b)
WV_FP__RN_F64(fma, fma(a, b, c))
WV_FP__RN_F64(rcp, 1.0 / a)
static inline int wv_fp__rn_sqrt_f64(uint64_t a, uint64_t b, uint64_t c, uint64_t *r) {
  (void)b, (void)c;
  *r = 0;
  if (a >> 63) return 0;
  double h = sqrt(wv_fp_f64(a));
  *r = wv_fp_b64(h);
  return h == h;
}

/* The f32 operations: round-to-nearest with no flag or .ftz alone on the host, the rest in fpmath.c. */
#define WV_FP__OP_F32(op, OP)                                                            \
  static inline uint32_t wv_fp_##op##_f32(uint32_t a, uint32_t b, wv_fp_rnd rnd, unsigned flags) { \
    uint32_t r;                                                                          \
    if (rnd == WV_FP_RN && !(flags & ~(unsigned)WV_FP_FTZ) && wv_fp__rn_##op##_f32(a, b, 0, flags != 0, &r)) \
      return r;                                                                          \
    return wv_fp__arith_f32(OP, a, b, 0, rnd, flags);                                    \
  }
WV_FP__OP_F32(add, WV_FP__ADD)
WV_FP__OP_F32(sub, WV_FP__SUB)
WV_FP__OP_F32(mul, WV_FP__MUL)
WV_FP__OP_F32(div, WV_FP__DIV)
/* fma.f32 and mad.rnd.f32 (sm_20+ they are the same instruction). */
static inline uint32_t wv_fp_fma_f32(uint32_t a, uint32_t b, uint32_t c, wv_fp_rnd rnd,
                                     unsigned flags) {
  uint32_t r;
  if (rnd == WV_FP_RN && !(flags & ~(unsigned)WV_FP_FTZ) && wv_fp__rn_fma_f32(a, b, c, flags != 0, &r)) return r;
  return wv_fp__arith_f32(WV_FP__FMA, a, b, c, rnd, flags);
}
static inline uint32_t wv_fp_sqrt_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags) {
  uint32_t r;
  if (rnd == WV_FP_RN && !(flags & ~(unsigned)WV_FP_FTZ) && wv_fp__rn_sqrt_f32(a, 0, 0, flags != 0, &r)) return r;
  return wv_fp__arith_f32(WV_FP__SQRT, a, 0, 0, rnd, flags);
}
/* rcp.rnd.f32: correctly rounded 1/a. */
static inline uint32_t wv_fp_rcp_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags) {
  uint32_t r;
  if (rnd == WV_FP_RN && !(flags & ~(unsigned)WV_FP_FTZ) && wv_fp__rn_rcp_f32(a, 0, 0, flags != 0, &r)) return r;
  return wv_fp__arith_f32(WV_FP__RCP, a, 0, 0, rnd, flags);
}

/* The f64 operations: round-to-nearest on the host unless the result is NaN, the rest in fpmath.c. */
#define WV_FP__OP_F64(op, OP)                                                            \
  static inline uint64_t wv_fp_##op##_f64(uint64_t a, uint64_t b, wv_fp_rnd rnd) {       \
    uint64_t r;                                                                          \
    if (rnd == WV_FP_RN && wv_fp__rn_##op##_f64(a, b, 0, &r)) return r;                  \
    return wv_fp__arith_f64(OP, a, b, 0, rnd);                                           \
  }
WV_FP__OP_F64(add, WV_FP__ADD)
WV_FP__OP_F64(sub, WV_FP__SUB)
WV_FP__OP_F64(mul, WV_FP__MUL)
WV_FP__OP_F64(div, WV_FP__DIV)
/* fma.f64 == mad.f64 (§9.7.3.7). */
static inline uint64_t wv_fp_fma_f64(uint64_t a, uint64_t b, uint64_t c, wv_fp_rnd rnd) {
  uint64_t r;
  if (rnd == WV_FP_RN && wv_fp__rn_fma_f64(a, b, c, &r)) return r;
  return wv_fp__arith_f64(WV_FP__FMA, a, b, c, rnd);
}
static inline uint64_t wv_fp_sqrt_f64(uint64_t a, wv_fp_rnd rnd) {
  uint64_t r;
  if (rnd == WV_FP_RN && wv_fp__rn_sqrt_f64(a, 0, 0, &r)) return r;
  return wv_fp__arith_f64(WV_FP__SQRT, a, 0, 0, rnd);
}
static inline uint64_t wv_fp_rcp_f64(uint64_t a, wv_fp_rnd rnd) {
  uint64_t r;
  if (rnd == WV_FP_RN && wv_fp__rn_rcp_f64(a, 0, 0, &r)) return r;
  return wv_fp__arith_f64(WV_FP__RCP, a, 0, 0, rnd);
}

/* ---- sign operations, min/max, testp (§9.7.3.1, .2, .9–.12) ------------------------------- */

/* abs/neg. ptxas emits them as FADD |a|,-0 / -a,-0 and DADD -0,-a, so (measured on sm_90):
 * numbers get the sign bit cleared/flipped (±0 included, subnormals kept unless .ftz);
 * an f32 NaN becomes the canonical NaN; an f64 NaN is only quieted (sign and payload kept —
 * the CUDA guide's "passed through unchanged"). flags: WV_FP_FTZ (f32 only). */
static inline uint32_t wv_fp_abs_f32(uint32_t a, unsigned flags) {
  if (wv_fp_isnan32(a)) return WV_FP_F32_NAN;
  if (flags & WV_FP_FTZ) a = wv_fp_flush32(a);
  return a & 0x7fffffffu;
}
static inline uint32_t wv_fp_neg_f32(uint32_t a, unsigned flags) {
  if (wv_fp_isnan32(a)) return WV_FP_F32_NAN;
  if (flags & WV_FP_FTZ) a = wv_fp_flush32(a);
  return a ^ 0x80000000u;
}
static inline uint64_t wv_fp_abs_f64(uint64_t a) {
  return wv_fp_isnan64(a) ? a | 0x0008000000000000ull : a & 0x7fffffffffffffffull;
}
static inline uint64_t wv_fp_neg_f64(uint64_t a) {
  return wv_fp_isnan64(a) ? a | 0x0008000000000000ull : a ^ 0x8000000000000000ull;
}
/* copysign.type d, a, b: d = b with the sign bit of a (note the operand order, §9.7.3.2). */
static inline uint32_t wv_fp_copysign_f32(uint32_t a, uint32_t b) {
  return (b & 0x7fffffffu) | (a & 0x80000000u);
}
static inline uint64_t wv_fp_copysign_f64(uint64_t a, uint64_t b) {
  return (b & 0x7fffffffffffffffull) | (a & 0x8000000000000000ull);
}

/* min/max (§9.7.3.11/12): NaN-ignoring unless WV_FP_NANPROP; both NaN → canonical NaN;
 * -0 < +0. f32 flags: WV_FP_FTZ, WV_FP_NANPROP, WV_FP_ABS, WV_FP_XORSIGN (needs ABS). */
/* Monotone key over non-NaN patterns: -inf < ... < -0 < +0 < ... < +inf (§9.7.3.11 note). */
static inline uint32_t wv_fp__key32(uint32_t x) { return (x & 0x80000000u) ? ~x : (x | 0x80000000u); }
static inline uint64_t wv_fp__key64(uint64_t x) { return (x >> 63) ? ~x : (x | 0x8000000000000000ull); }
static inline uint32_t wv_fp__minmax32(uint32_t a, uint32_t b, unsigned flags, int is_max) {
  if (flags & WV_FP_FTZ) {
    a = wv_fp_flush32(a);
    b = wv_fp_flush32(b);
  }
  uint32_t xs = (a ^ b) & 0x80000000u;
  if (flags & WV_FP_ABS) {
    a &= 0x7fffffffu;
    b &= 0x7fffffffu;
  }
  int an = wv_fp_isnan32(a), bn = wv_fp_isnan32(b);
  uint32_t r;
  if (an || bn) {
    if ((an && bn) || (flags & WV_FP_NANPROP)) return WV_FP_F32_NAN; /* .xorsign ignored on NaN */
    r = an ? b : a;
  } else {
    int a_less = wv_fp__key32(a) < wv_fp__key32(b);
    r = (a_less != is_max) ? a : b;
  }
  if ((flags & WV_FP_XORSIGN) && (flags & WV_FP_ABS)) r = (r & 0x7fffffffu) | xs;
  return r;
}
static inline uint32_t wv_fp_min_f32(uint32_t a, uint32_t b, unsigned flags) { return wv_fp__minmax32(a, b, flags, 0); }
static inline uint32_t wv_fp_max_f32(uint32_t a, uint32_t b, unsigned flags) { return wv_fp__minmax32(a, b, flags, 1); }
static inline uint64_t wv_fp__minmax64(uint64_t a, uint64_t b, int is_max) {
  int an = wv_fp_isnan64(a), bn = wv_fp_isnan64(b);
  if (an && bn) return wv_fp__f64_nan(a, b, 0, 2); /* measured: a's NaN, quieted (see the NaN-order note) */
  if (an) return b;
  if (bn) return a;
  int a_less = wv_fp__key64(a) < wv_fp__key64(b);
  return (a_less != is_max) ? a : b;
}
static inline uint64_t wv_fp_min_f64(uint64_t a, uint64_t b) { return wv_fp__minmax64(a, b, 0); }
static inline uint64_t wv_fp_max_f64(uint64_t a, uint64_t b) { return wv_fp__minmax64(a, b, 1); }

typedef enum wv_fp_testp {
  WV_FP_TEST_FINITE,     /* not inf, not NaN */
  WV_FP_TEST_INFINITE,   /* ±inf */
  WV_FP_TEST_NUMBER,     /* not NaN */
  WV_FP_TEST_NOTANUMBER, /* NaN */
  WV_FP_TEST_NORMAL,     /* normal number; ±0 count as normal (ISA §9.7.3.1 "special case") */
  WV_FP_TEST_SUBNORMAL,  /* subnormal (zero excluded) */
} wv_fp_testp;
int wv_fp_testp_f32(uint32_t a, wv_fp_testp op);
int wv_fp_testp_f64(uint64_t a, wv_fp_testp op);

/* ---- comparisons for set/setp/selp-style predicates (§9.7.4, "Floating Point Comparison") ---- */
/* Ordered ops (eq ne lt le gt ge) are false if either input is NaN — ne included. Unordered ops
 * (equ neu ltu leu gtu geu) are true if either is NaN. num: both not NaN; nan: either NaN.
 * .ftz on setp: flush the f32 inputs with wv_fp_flush32 before calling. */
typedef enum wv_fp_cmpop {
  WV_FP_EQ, WV_FP_NE, WV_FP_LT, WV_FP_LE, WV_FP_GT, WV_FP_GE,
  WV_FP_EQU, WV_FP_NEU, WV_FP_LTU, WV_FP_LEU, WV_FP_GTU, WV_FP_GEU,
  WV_FP_NUM, WV_FP_NAN,
} wv_fp_cmpop;

static inline int wv_fp_cmp_f64(double a, double b, wv_fp_cmpop op) {
  int un = (a != a) | (b != b); /* bitwise, no branches: a loop of comparisons vectorises */
  switch (op) {
  case WV_FP_EQ: return !un & (a == b);
  case WV_FP_NE: return !un & (a != b);
  case WV_FP_LT: return !un & (a < b);
  case WV_FP_LE: return !un & (a <= b);
  case WV_FP_GT: return !un & (a > b);
  case WV_FP_GE: return !un & (a >= b);
  case WV_FP_EQU: return un | (a == b);
  case WV_FP_NEU: return un | (a != b);
  case WV_FP_LTU: return un | (a < b);
  case WV_FP_LEU: return un | (a <= b);
  case WV_FP_GTU: return un | (a > b);
  case WV_FP_GEU: return un | (a >= b);
  case WV_FP_NUM: return !un;
  case WV_FP_NAN: return un;
  }
  return 0;
}
/* Every float is exactly a double, so the f32 compare is the f64 compare of the widened values. */
static inline int wv_fp_cmp_f32(float a, float b, wv_fp_cmpop op) {
  return wv_fp_cmp_f64((double)a, (double)b, op);
}


/* ---- half precision: .f16 and .bf16 (PTX ISA "Half Precision Floating-Point Instructions") ---- */
/* One half in the low 16 bits (the x2 forms call these per half). add sub mul fma, always .rn (the only
 * mode PTX defines): op WV_FP__ADD/SUB/MUL/FMA, c used by fma only; bf: 1 for .bf16. flags: WV_FP_FTZ
 * (subnormal inputs and tiny results to signed zero, tininess as for f32), WV_FP_SAT ([0,1], NaN → +0),
 * WV_FP_RELU (fma: negative → +0, NaN stays the canonical NaN). Every NaN result is the canonical
 * 0x7fff (WV_FP_F16_NAN / WV_FP_BF16_NAN). Exact: rounded once (fpmath.c says how). */
uint32_t wv_fp_half_arith(int op, int bf, uint32_t a, uint32_t b, uint32_t c, unsigned flags);
/* setp/set on halves (ftz: flush subnormal inputs first). */
int wv_fp_half_cmp(uint32_t a, uint32_t b, int bf, int ftz, wv_fp_cmpop op);
/* neg/abs: the sign bit (.ftz flushes a subnormal first); a NaN becomes the canonical NaN, as for f32. */
static inline uint32_t wv_fp_half_sign(uint32_t a, int bf, unsigned flags, int is_abs) {
  a &= 0xffffu;
  uint32_t mag = a & 0x7fffu, inf = bf ? 0x7f80u : 0x7c00u;
  if (mag > inf) return 0x7fffu;
  if ((flags & WV_FP_FTZ) && (a & inf) == 0) a &= 0x8000u;
  return is_abs ? a & 0x7fffu : a ^ 0x8000u;
}
/* min/max on halves: as wv_fp__minmax32 (NaN-ignoring unless WV_FP_NANPROP; two NaNs → canonical NaN;
 * -0 < +0; WV_FP_ABS, WV_FP_XORSIGN; WV_FP_FTZ on .f16). */
static inline uint32_t wv_fp_half_minmax(uint32_t a, uint32_t b, int bf, unsigned flags, int is_max) {
  uint32_t inf = bf ? 0x7f80u : 0x7c00u;
  a &= 0xffffu, b &= 0xffffu;
  if (flags & WV_FP_FTZ) {
    if ((a & inf) == 0) a &= 0x8000u;
    if ((b & inf) == 0) b &= 0x8000u;
  }
  uint32_t xs = (a ^ b) & 0x8000u;
  if (flags & WV_FP_ABS) a &= 0x7fffu, b &= 0x7fffu;
  int an = (a & 0x7fffu) > inf, bn = (b & 0x7fffu) > inf;
  uint32_t r;
  if (an || bn) {
    if ((an && bn) || (flags & WV_FP_NANPROP)) return 0x7fffu;
    r = an ? b : a;
  } else {
    uint32_t ka = (a & 0x8000u) ? (~a & 0xffffu) : (a | 0x8000u), kb = (b & 0x8000u) ? (~b & 0xffffu) : (b | 0x8000u);
    r = ((ka < kb) != is_max) ? a : b;
  }
  if ((flags & WV_FP_XORSIGN) && (flags & WV_FP_ABS)) r = (r & 0x7fffu) | xs;
  return r;
}

/* ---- cvt (§9.7.9.21, §6.5) ----------------------------------------------------------------- */

typedef enum wv_fp_type {
  WV_FP_U8, WV_FP_U16, WV_FP_U32, WV_FP_U64,
  WV_FP_S8, WV_FP_S16, WV_FP_S32, WV_FP_S64,
  WV_FP_F16, WV_FP_BF16, WV_FP_TF32, WV_FP_F32, WV_FP_F64,
} wv_fp_type;

/*
 * uint64_t wv_fp_cvt(bits, dst, src, rnd, flags)
 *
 * `bits` holds the source in its low bits (only the source width is read: an .s8 source is the
 * low 8 bits, sign-extended here). The result comes back in the low bits: integers sign-extended
 * (signed dst) or zero-extended (unsigned dst) to 64 bits, so the caller can truncate to any
 * register width; f16/bf16 as 16 bits; f32/tf32 as 32 bits; f64 as 64.
 *
 * rnd: the rounding modifier. For float→int it is the integer rounding (.rni=RN, .rzi=RZ,
 * .rmi=RM, .rpi=RP). For int→float and narrowing float→float it is .rn/.rz/.rm/.rp (.rna for
 * tf32). For float→same-float add WV_FP_INTRND to round to an integral value (cvt.rni.f32.f32);
 * without it a same-type cvt only applies .ftz/.sat. Ignored where the conversion is exact.
 *
 * Semantics:
 *  - int→int: truncation ("chop"), sign or zero extension by the source type; WV_FP_SAT clamps
 *    to the destination range instead.
 *  - int→float: exactly rounded in every mode, 64-bit sources included.
 *  - float→int: rounded per rnd, then clamped to [MIN, MAX] of the destination (PTX float→int
 *    always saturates; .sat is redundant); ±inf → MIN/MAX. NaN (H200): 0 from f16/bf16/f32 into
 *    ≤32-bit integers; otherwise (f64 source, or 64-bit destination) the destination's sign-bit
 *    pattern: 0x80 / 0x8000 / 0x80000000 / 0x8000000000000000, sign-extended when signed.
 *    .ftz flushes an f32 subnormal source first (so cvt.rmi.ftz.s32.f32(-tiny) = 0, not -1).
 *  - float→float: exactly rounded; .ftz flushes an f32 source and an f32 result; .sat clamps a
 *    float result to [0,1] with NaN→+0 and -0→+0; .relu maps negative results (and -0) to +0;
 *    .satfinite clamps ±inf to ±MAX (f16/bf16/tf32); tf32 results are f32 patterns with the
 *    low 13 mantissa bits zero. NaN (H200): f64→f32/f16/bf16 narrows IEEE-style (sign and top
 *    payload bits kept, quiet bit set); f16/f32→f16/f32/bf16 give the canonical 0x7fff /
 *    0x7fffffff; bf16→f32 is a plain shift; f16/bf16/f32→f64 widen IEEE-style (quiet, payload
 *    kept), except cvt.ftz.f64.f32 which canonicalises first (→ 0x7fffffffe0000000);
 *    f32→tf32 .rna just clears the low 13 bits (a NaN may become inf!), .rn/.rz give 0x7fffe000.
 */
uint64_t wv_fp_cvt(uint64_t bits, wv_fp_type dst, wv_fp_type src, wv_fp_rnd rnd, unsigned flags);

/* Typed fast paths (same semantics as wv_fp_cvt). */
uint32_t wv_fp_cvt_f32_f64(uint64_t a, wv_fp_rnd rnd, unsigned flags); /* cvt.rnd{.ftz}{.sat}.f32.f64 */
uint64_t wv_fp_cvt_f64_f32(uint32_t a, unsigned flags);                /* cvt{.ftz}{.sat}.f64.f32 */
uint32_t wv_fp_cvt_f16_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags); /* low 16 bits */
uint32_t wv_fp_cvt_f32_f16(uint32_t h, unsigned flags);
uint32_t wv_fp_cvt_bf16_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags);
uint32_t wv_fp_cvt_f32_bf16(uint32_t h, unsigned flags);
int32_t wv_fp_cvt_s32_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags);
uint32_t wv_fp_cvt_u32_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags);
int64_t wv_fp_cvt_s64_f64(uint64_t a, wv_fp_rnd rnd);
uint64_t wv_fp_cvt_u64_f64(uint64_t a, wv_fp_rnd rnd);
uint32_t wv_fp_cvt_f32_s64(int64_t v, wv_fp_rnd rnd);
uint32_t wv_fp_cvt_f32_u64(uint64_t v, wv_fp_rnd rnd);
uint64_t wv_fp_cvt_f64_s64(int64_t v, wv_fp_rnd rnd);
uint64_t wv_fp_cvt_f64_u64(uint64_t v, wv_fp_rnd rnd);
/* fp8 pairs (sm_89+): cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b → (fp8(a) << 8) | fp8(b);
 * cvt.rn.f16x2.{e4m3x2,e5m2x2} d, a → the two bytes of a as halves (upper byte → upper half).
 * flags: WV_FP_RELU. */
uint32_t wv_fp_cvt_fp8x2_f32(uint32_t a, uint32_t b, int e5m2, unsigned flags);
uint32_t wv_fp_cvt_f16x2_fp8x2(uint32_t v, int e5m2);
/* cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b → (half(a) << 16) | half(b). flags: WV_FP_RELU,
 * WV_FP_SATFINITE. */
uint32_t wv_fp_cvt_half2_f32(uint32_t a, uint32_t b, int bf, unsigned flags);
/* Round to an integral value in the same format: cvt.rni/rzi/rmi/rpi.f32.f32 and .f64.f64. */
uint32_t wv_fp_rint_f32(uint32_t a, wv_fp_rnd rnd, unsigned flags);
uint64_t wv_fp_rint_f64(uint64_t a, wv_fp_rnd rnd);

#ifdef __cplusplus
}
#endif

#endif
