/*
 * sfu.h — the special-function unit (MUFU) of sm_90, bit for bit, and the instruction sequences
 * ptxas wraps around it for every `.approx` PTX instruction.
 *
 * Owned here: the model of MUFU.RCP, RSQ, SQRT, EX2, LG2, SIN, COS, TANH, RCP64H, RSQ64H and the
 * f16/bf16 EX2/TANH forms, and the SASS sequences of rcp/sqrt/rsqrt/ex2/lg2/sin/cos/tanh/div
 * .approx/.full (read off `ptxas -arch=sm_90` + nvdisasm, docs/SFU.md). Each MUFU function reduces
 * its argument exactly as the hardware does (found on an H100 over all 2^32 inputs) and reads the
 * result of the reduced argument from a table recorded on the GPU (data/sfu/sm90.sfu, sfu.c).
 *
 * The same code runs on the GPU: tools/sfu/check.cu compiles this header with nvcc and compares it
 * with the hardware instruction over every input (docs/SFU.md has the counts). So this header is
 * plain C that is also valid CUDA C++: no libm, no library calls, values as bit patterns.
 */
#ifndef WV_EXEC_SFU_H
#define WV_EXEC_SFU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define WV_SFU_FN static __host__ __device__ __forceinline__
#else
#define WV_SFU_FN static inline
#endif
#ifdef __CUDA_ARCH__
#define WV_SFU_CLZ64(x) __clzll((long long)(x))
#define WV_SFU_DFMA(a, b, c) __fma_rn(a, b, c)
#define WV_SFU_DMUL(a, b) __dmul_rn(a, b)
#else
#define WV_SFU_CLZ64(x) __builtin_clzll(x)
#define WV_SFU_DFMA(a, b, c) __builtin_fma(a, b, c)
#define WV_SFU_DMUL(a, b) ((a) * (b))
#endif

/* One recorded table of n 32-bit outputs in random-access form (built by sfu.c at load time): an
 * anchor every 32 entries, linear interpolation between anchors (on the bit patterns), a 4-bit
 * signed residual per entry, and the entries whose residual does not fit (code -8) as (index,
 * value) pairs sorted by index. */
typedef struct wv_sfu_tab {
  const uint32_t *base; /* n/32 + 2 anchors */
  const uint8_t *res;   /* n residuals, two per byte, low nibble first */
  const uint32_t *exc;  /* nexc (index, value) pairs */
  uint32_t n, nexc;
} wv_sfu_tab;

enum {
  WV_SFU_RCP,      /* MUFU.RCP of x in [1,2): 2^23 outputs */
  WV_SFU_RSQ0,     /* MUFU.RSQ of x in [1,2) */
  WV_SFU_RSQ1,     /* MUFU.RSQ of x in [2,4) */
  WV_SFU_SQRT0,    /* MUFU.SQRT of x in [1,2) */
  WV_SFU_SQRT1,    /* MUFU.SQRT of x in [2,4) */
  WV_SFU_EX2,      /* MUFU.EX2 of 1 + f/2^23: 2 * 2^(f/2^23) */
  WV_SFU_LG2_0,    /* MUFU.LG2 of x in [1,2) */
  WV_SFU_LG2_M1,   /* MUFU.LG2 of x in [0.5,1) */
  WV_SFU_SIN,      /* MUFU.SIN of the first quarter turn: k/2^25 turns, k < 2^23 */
  WV_SFU_TANH,     /* MUFU.TANH of 2^-8 <= x < 8, exponent by exponent (wv_sfu_tanh_parts) */
  WV_SFU_EX2_F16,  /* MUFU.EX2.F16 of every half */
  WV_SFU_TANH_F16, /* MUFU.TANH.F16 */
  WV_SFU_EX2_BF16, /* MUFU.EX2.BF16 */
  WV_SFU_TANH_BF16,/* MUFU.TANH.BF16 */
  WV_SFU_NTAB
};

typedef struct wv_sfu {
  wv_sfu_tab t[WV_SFU_NTAB];
} wv_sfu;

/* MUFU.TANH's table: for |x| in [2^(e-127), 2^(e-126)), e = 119..129, the unit reads only the top
 * 23 - shift mantissa bits. */
#define WV_SFU_TANH_E0 119
#define WV_SFU_TANH_NE 11
WV_SFU_FN uint32_t wv_sfu_tanh_shift(uint32_t e) {
  /* e:          119 120 121 122 123 124 125 126 127 128 129 */
  const uint32_t sh = 6u | 6u << 4 | 6u << 8 | 5u << 12 | 5u << 16 | 4u << 20 | 4u << 24 | 4u << 28;
  const uint32_t sh2 = 3u | 2u << 4 | 3u << 8;
  uint32_t i = e - WV_SFU_TANH_E0;
  return i < 8 ? (sh >> (4 * i)) & 15u : (sh2 >> (4 * (i - 8))) & 15u;
}

/* ---- reading a table ------------------------------------------------------------------------ */

WV_SFU_FN uint32_t wv_sfu_exc(const wv_sfu_tab *t, uint32_t i) {
  uint32_t lo = 0, hi = t->nexc;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (t->exc[2 * mid] < i) lo = mid + 1;
    else hi = mid;
  }
  return lo < t->nexc ? t->exc[2 * lo + 1] : 0;
}

WV_SFU_FN uint32_t wv_sfu_get(const wv_sfu_tab *t, uint32_t i) {
  uint32_t code = (t->res[i >> 1] >> ((i & 1) * 4)) & 15u;
  if (code == 8) return wv_sfu_exc(t, i);
  int64_t lo = t->base[i >> 5], hi = t->base[(i >> 5) + 1];
  return (uint32_t)(lo + (hi - lo) * (int64_t)(i & 31) / 32 + (int32_t)code - (code > 8 ? 16 : 0));
}

/* ---- f32 helpers: bit patterns, IEEE operations as the SASS uses them ----------------------- */

#define WV_SFU_NAN 0x7fffffffu
WV_SFU_FN float wv_sfu_f(uint32_t u) { union { uint32_t u; float f; } v; v.u = u; return v.f; }
WV_SFU_FN uint32_t wv_sfu_u(float f) { union { uint32_t u; float f; } v; v.f = f; return v.u; }
WV_SFU_FN int wv_sfu_isnan(uint32_t a) { return (a & 0x7fffffffu) > 0x7f800000u; }
WV_SFU_FN uint32_t wv_sfu_flush(uint32_t a) { return (a & 0x7f800000u) ? a : a & 0x80000000u; }
WV_SFU_FN uint32_t wv_sfu_canon(uint32_t a) { return wv_sfu_isnan(a) ? WV_SFU_NAN : a; }

/* FMUL / FADD (round to nearest, subnormals kept); FMUL.FTZ. */
WV_SFU_FN uint32_t wv_sfu_fmul(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
  return wv_sfu_canon(wv_sfu_u(__fmul_rn(wv_sfu_f(a), wv_sfu_f(b))));
#else
  return wv_sfu_canon(wv_sfu_u(wv_sfu_f(a) * wv_sfu_f(b)));
#endif
}
WV_SFU_FN uint32_t wv_sfu_fadd(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
  return wv_sfu_canon(wv_sfu_u(__fadd_rn(wv_sfu_f(a), wv_sfu_f(b))));
#else
  return wv_sfu_canon(wv_sfu_u(wv_sfu_f(a) + wv_sfu_f(b)));
#endif
}
/* FMUL.FTZ flushes a result whose exact value is below 2^-126 in magnitude, even one that rounds
 * up to 2^-126 (tininess before rounding; measured on the H100). The product of two floats is
 * exact in a double, so one rounding to float follows. */
WV_SFU_FN uint32_t wv_sfu_fmul_ftz(uint32_t a, uint32_t b) {
  double p = WV_SFU_DMUL((double)wv_sfu_f(wv_sfu_flush(a)), (double)wv_sfu_f(wv_sfu_flush(b)));
  if (p != p) return WV_SFU_NAN;
  if (p < 1.1754943508222875e-38 && p > -1.1754943508222875e-38) return (wv_sfu_u((float)p) & 0x80000000u);
  return wv_sfu_u((float)p);
}

/* FMUL.RZ a, 1/(2pi): the product of two floats is exact in a double; truncate it to a float. */
WV_SFU_FN uint32_t wv_sfu_fmul_rz_inv2pi(uint32_t a) {
  if (wv_sfu_isnan(a)) return WV_SFU_NAN;
  uint32_t s = a & 0x80000000u, ea = (a >> 23) & 255u, ma = a & 0x7fffffu;
  if (ea == 255) return s | 0x7f800000u; /* inf * c = inf */
  if (ea == 0 && ma == 0) return s;
  /* a = A * 2^(ea-150) with A an integer, c = C * 2^-26 (0x3e22f983: 0.15915494 = 0xa2f983 * 2^-26) */
  uint64_t A = ea ? (ma | 0x800000u) : ma, P = A * 0xa2f983u;
  int e = (ea ? (int)ea : 1) - 150 - 26; /* value = P * 2^e */
  int top = 63 - WV_SFU_CLZ64(P);     /* P < 2^48 */
  int ex = top + e;                      /* unbiased exponent of the product */
  if (ex >= -126) {                      /* normal: keep 24 bits */
    uint64_t m = P >> (top - 23);
    return s | (uint32_t)(ex + 127) << 23 | ((uint32_t)m & 0x7fffffu);
  }
  int sh = -149 - e; /* subnormal: units of 2^-149 */
  return s | (uint32_t)(sh >= 64 ? 0 : P >> sh);
}

/* ---- the MUFU functions ---------------------------------------------------------------------- */

/* y (the table's output, a normal float) times 2^k, flushed to zero below 2^-126. */
WV_SFU_FN uint32_t wv_sfu_scale(uint32_t y, int k) {
  int e = (int)((y >> 23) & 255u) + k;
  if (e <= 0) return y & 0x80000000u;
  if (e >= 255) return (y & 0x80000000u) | 0x7f800000u;
  return (y & 0x807fffffu) | (uint32_t)e << 23;
}

WV_SFU_FN uint32_t wv_sfu_rcp(const wv_sfu *T, uint32_t x) {
  uint32_t s = x & 0x80000000u, e = (x >> 23) & 255u;
  if (wv_sfu_isnan(x)) return WV_SFU_NAN;
  if (e == 0) return s | 0x7f800000u; /* ±0 and subnormals (flushed) → ±inf */
  if (e == 255) return s;             /* ±inf → ±0 */
  return s | wv_sfu_scale(wv_sfu_get(&T->t[WV_SFU_RCP], x & 0x7fffffu), 127 - (int)e);
}

WV_SFU_FN uint32_t wv_sfu_rsq(const wv_sfu *T, uint32_t x) {
  uint32_t s = x & 0x80000000u, e = (x >> 23) & 255u;
  if (wv_sfu_isnan(x)) return WV_SFU_NAN;
  if (e == 0) return s | 0x7f800000u;
  if (s) return WV_SFU_NAN;
  if (e == 255) return 0;
  int k = (int)e - 127, odd = k & 1;
  return wv_sfu_scale(wv_sfu_get(&T->t[odd ? WV_SFU_RSQ1 : WV_SFU_RSQ0], x & 0x7fffffu), -(k - odd) / 2);
}

WV_SFU_FN uint32_t wv_sfu_sqrt(const wv_sfu *T, uint32_t x) {
  uint32_t s = x & 0x80000000u, e = (x >> 23) & 255u;
  if (wv_sfu_isnan(x)) return WV_SFU_NAN;
  if (e == 0) return s;
  if (s) return WV_SFU_NAN;
  if (e == 255) return x;
  int k = (int)e - 127, odd = k & 1;
  return wv_sfu_scale(wv_sfu_get(&T->t[odd ? WV_SFU_SQRT1 : WV_SFU_SQRT0], x & 0x7fffffu), (k - odd) / 2);
}

/* EX2: |x| truncated to 23 fraction bits; a negative value with a nonzero fraction borrows one
 * more unit (the unit negates in one's complement): 2^x = 2^i * 2^(f/2^23). */
WV_SFU_FN uint32_t wv_sfu_ex2(const wv_sfu *T, uint32_t x) {
  uint32_t s = x & 0x80000000u, e = (x >> 23) & 255u;
  if (wv_sfu_isnan(x)) return WV_SFU_NAN;
  if (e >= 134) return s ? 0 : 0x7f800000u; /* |x| >= 128, ±inf */
  if (e < 104) return 0x3f800000u;           /* |x| < 2^-23 (and subnormals): 1 */
  uint64_t m = (x & 0x7fffffu) | 0x800000u;  /* |x| = m * 2^(e-150) */
  int64_t tr = (int64_t)(e >= 127 ? m << (e - 127) : m >> (127 - e)); /* trunc(|x| * 2^23) */
  if (s) tr = (tr & 0x7fffff) ? -tr - 1 : -tr;
  int64_t i = tr >= 0 ? tr >> 23 : -((-tr + 0x7fffff) >> 23); /* floor(tr / 2^23) */
  uint32_t f = (uint32_t)(tr - i * 0x800000);
  return wv_sfu_scale(wv_sfu_get(&T->t[WV_SFU_EX2], f), (int)i - 1);
}

/* Truncate a positive value v * 2^-sh (v < 2^40) to a float. */
WV_SFU_FN uint32_t wv_sfu_trunc_fix(uint64_t v, int sh) {
  if (!v) return 0;
  int top = 63 - WV_SFU_CLZ64(v);
  uint64_t m = top > 23 ? v >> (top - 23) : v << (23 - top);
  return (uint32_t)(top - sh + 127) << 23 | ((uint32_t)m & 0x7fffffu);
}

/* LG2: k + lg2(1.m) summed in fixed point. k = 0 and k = -1 are the recorded tables; for k >= 1 the
 * sum has 23 fraction bits and converts toward zero; for k <= -2 the magnitude |k| - lg2(1.m),
 * negated in one's complement, has the 2^-24 grid the k = -1 table shows. */
WV_SFU_FN uint32_t wv_sfu_lg2(const wv_sfu *T, uint32_t x) {
  uint32_t s = x & 0x80000000u, e = (x >> 23) & 255u, m = x & 0x7fffffu;
  if (wv_sfu_isnan(x)) return WV_SFU_NAN;
  if (e == 0) return 0xff800000u;
  if (s) return WV_SFU_NAN;
  if (e == 255) return x;
  int k = (int)e - 127;
  if (k == 0) return wv_sfu_get(&T->t[WV_SFU_LG2_0], m);
  if (k == -1) return wv_sfu_get(&T->t[WV_SFU_LG2_M1], m);
  if (k > 0) {
    uint32_t l = wv_sfu_get(&T->t[WV_SFU_LG2_0], m); /* a float in [0,1) */
    uint32_t le = (l >> 23) & 255u;
    uint64_t v = le > 103 ? ((l & 0x7fffffu) | 0x800000u) >> (127 - le) : 0; /* floor(l * 2^23) */
    return wv_sfu_trunc_fix(((uint64_t)k << 23) + v, 23);
  }
  uint32_t n = wv_sfu_get(&T->t[WV_SFU_LG2_M1], m) & 0x7fffffffu; /* magnitude in (0, 1], on a 2^-24 grid */
  uint32_t ne = n >> 23;
  uint64_t K = ne >= 126 ? (uint64_t)((n & 0x7fffffu) | 0x800000u) << (ne - 126)
                         : ne > 102 ? ((n & 0x7fffffu) | 0x800000u) >> (126 - ne) : 0; /* n * 2^24 */
  return 0x80000000u | wv_sfu_trunc_fix(((uint64_t)(-k - 1) << 24) + K, 24);
}

/* SIN/COS of t turns: |t| in fixed point with 25 fraction bits (truncated, sign-magnitude); the
 * quarter-turn table, read backwards (one's complement index) in odd quadrants. */
WV_SFU_FN uint32_t wv_sfu_sincos(const wv_sfu *T, uint32_t t, int cos) {
  uint32_t s = t & 0x80000000u, e = (t >> 23) & 255u;
  if (wv_sfu_isnan(t) || e == 255) return WV_SFU_NAN;
  uint32_t k = 0;
  if (e >= 102 && e < 150) { /* 2^-25 <= |t| < 2^23: some fraction bits */
    uint64_t m = (t & 0x7fffffu) | 0x800000u; /* |t| = m * 2^(e-150) */
    k = (uint32_t)((e >= 125 ? m << (e - 125) : m >> (125 - e)) & 0x1ffffffu);
  }
  if (cos) k = (k + 0x800000u) & 0x1ffffffu, s = 0;
  uint32_t q = k >> 23, r = k & 0x7fffffu;
  uint32_t v = wv_sfu_get(&T->t[WV_SFU_SIN], (q & 1) ? ~r & 0x7fffffu : r);
  return v ^ (q >= 2 ? 0x80000000u : 0) ^ s;
}

WV_SFU_FN uint32_t wv_sfu_tanh(const wv_sfu *T, uint32_t x) {
  uint32_t s = x & 0x80000000u, e = (x >> 23) & 255u;
  if (wv_sfu_isnan(x)) return WV_SFU_NAN;
  if (e < WV_SFU_TANH_E0) return x;                     /* |x| < 2^-8: x, subnormals too */
  if (e >= WV_SFU_TANH_E0 + WV_SFU_TANH_NE) return s | 0x3f800000u; /* |x| >= 8, inf: ±1 */
  uint32_t off = 0;
  for (uint32_t i = WV_SFU_TANH_E0; i < e; i++) off += 1u << (23 - wv_sfu_tanh_shift(i));
  return s | wv_sfu_get(&T->t[WV_SFU_TANH], off + ((x & 0x7fffffu) >> wv_sfu_tanh_shift(e)));
}

/* RCP64H / RSQ64H read the upper word of a double: the f32 unit's result for the same 20-bit
 * mantissa, truncated to 20 bits, with the double's exponent range. */
WV_SFU_FN uint32_t wv_sfu_64h(const wv_sfu *T, uint32_t hi, int rsq) {
  uint32_t s = hi & 0x80000000u, ex = (hi >> 20) & 0x7ffu;
  if (ex == 0x7ff) {
    if (hi & 0xfffffu) return WV_SFU_NAN;
    return rsq ? (s ? WV_SFU_NAN : 0) : s;
  }
  if (ex == 0) return s | 0x7ff00000u;
  if (rsq && s) return WV_SFU_NAN;
  int k = (int)ex - 1023, odd = rsq ? k & 1 : 0;
  uint32_t y = wv_sfu_get(&T->t[rsq ? (odd ? WV_SFU_RSQ1 : WV_SFU_RSQ0) : WV_SFU_RCP], (hi & 0xfffffu) << 3);
  int er = (int)((y >> 23) & 255u) - 127 - (rsq ? (k - odd) / 2 : k);
  if (er < -1022) return s;
  return s | (uint32_t)(er + 1023) << 20 | (y & 0x7fffffu) >> 3;
}

/* ---- the PTX instructions: ptxas's sm_90 sequences around the unit --------------------------- */

#define WV_SFU_MINNORM 0x00800000u /* 2^-126 */
#define WV_SFU_2P126 0x7e800000u
WV_SFU_FN int wv_sfu_tiny(uint32_t a) { return (a & 0x7fffffffu) < WV_SFU_MINNORM; } /* !FSETP.GEU |a|, 2^-126 */
WV_SFU_FN int wv_sfu_huge(uint32_t a) { /* FSETP.GT |a|, 2^126 (false for NaN) */
  uint32_t m = a & 0x7fffffffu;
  return m > WV_SFU_2P126 && m <= 0x7f800000u;
}

/* rcp.approx(.ftz).f32 */
WV_SFU_FN uint32_t wv_sfu_rcp_approx(const wv_sfu *T, uint32_t a, int ftz) {
  if (ftz) return wv_sfu_rcp(T, a);
  uint32_t sc = wv_sfu_huge(a) ? 0x3e800000u : wv_sfu_tiny(a) ? 0x4b800000u : 0x3f800000u;
  return wv_sfu_fmul(sc, wv_sfu_rcp(T, wv_sfu_fmul(a, sc)));
}
/* sqrt.approx(.ftz).f32, rsqrt.approx(.ftz).f32 */
WV_SFU_FN uint32_t wv_sfu_sqrt_approx(const wv_sfu *T, uint32_t a, int ftz) {
  if (ftz || !wv_sfu_tiny(a)) return wv_sfu_sqrt(T, a);
  return wv_sfu_fmul(wv_sfu_sqrt(T, wv_sfu_fmul(a, 0x4b800000u)), 0x39800000u);
}
WV_SFU_FN uint32_t wv_sfu_rsqrt_approx(const wv_sfu *T, uint32_t a, int ftz) {
  if (ftz || !wv_sfu_tiny(a)) return wv_sfu_rsq(T, a);
  return wv_sfu_fmul(wv_sfu_rsq(T, wv_sfu_fmul(a, 0x4b800000u)), 0x45800000u);
}
/* ex2.approx(.ftz).f32: below -126 the unit gets a/2 and the result is squared. */
WV_SFU_FN uint32_t wv_sfu_ex2_approx(const wv_sfu *T, uint32_t a, int ftz) {
  int small = !wv_sfu_isnan(a) && (a & 0x80000000u) && (a & 0x7fffffffu) > 0x42fc0000u; /* a < -126 */
  if (ftz || !small) return wv_sfu_ex2(T, a);
  uint32_t r = wv_sfu_ex2(T, wv_sfu_fmul(a, 0x3f000000u));
  return wv_sfu_fmul(r, r);
}
/* lg2.approx(.ftz).f32 */
WV_SFU_FN uint32_t wv_sfu_lg2_approx(const wv_sfu *T, uint32_t a, int ftz) {
  if (ftz || !wv_sfu_tiny(a)) return wv_sfu_lg2(T, a);
  return wv_sfu_fadd(wv_sfu_lg2(T, wv_sfu_fmul(a, 0x4b800000u)), 0xc1c00000u);
}
/* sin/cos.approx(.ftz).f32: t = FMUL.RZ(a, 1/2pi), then the unit (same code with or without .ftz). */
WV_SFU_FN uint32_t wv_sfu_sin_approx(const wv_sfu *T, uint32_t a) { return wv_sfu_sincos(T, wv_sfu_fmul_rz_inv2pi(a), 0); }
WV_SFU_FN uint32_t wv_sfu_cos_approx(const wv_sfu *T, uint32_t a) { return wv_sfu_sincos(T, wv_sfu_fmul_rz_inv2pi(a), 1); }
/* div.approx(.ftz).f32 */
WV_SFU_FN uint32_t wv_sfu_div_approx(const wv_sfu *T, uint32_t a, uint32_t b, int ftz) {
  if (ftz) return wv_sfu_fmul_ftz(a, wv_sfu_rcp(T, b));
  if (wv_sfu_tiny(b)) {
    b = wv_sfu_fmul(b, 0x4b800000u);
    a = wv_sfu_fmul(a, 0x4b800000u);
  }
  return wv_sfu_fmul(wv_sfu_rcp(T, b), a);
}
/* div.full(.ftz).f32: both tests on the original b. */
WV_SFU_FN uint32_t wv_sfu_div_full(const wv_sfu *T, uint32_t a, uint32_t b, int ftz) {
  int big = wv_sfu_huge(b), small = !ftz && wv_sfu_tiny(b);
  if (ftz) {
    if (big) {
      b = wv_sfu_fmul_ftz(b, 0x3e800000u);
      a = wv_sfu_fmul_ftz(a, 0x3e800000u);
    }
    return wv_sfu_fmul_ftz(wv_sfu_rcp(T, b), a);
  }
  if (big) {
    b = wv_sfu_fmul(b, 0x3e800000u);
    a = wv_sfu_fmul(a, 0x3e800000u);
  }
  if (small) {
    b = wv_sfu_fmul(b, 0x4b800000u);
    a = wv_sfu_fmul(a, 0x4b800000u);
  }
  return wv_sfu_fmul(wv_sfu_rcp(T, b), a);
}
/* rcp.approx.ftz.f64, rsqrt.approx.ftz.f64: the 64H unit on the upper word, lower word 0. */
WV_SFU_FN uint64_t wv_sfu_rcp_approx_f64(const wv_sfu *T, uint64_t a) { return (uint64_t)wv_sfu_64h(T, (uint32_t)(a >> 32), 0) << 32; }
WV_SFU_FN uint64_t wv_sfu_rsqrt_approx_ftz_f64(const wv_sfu *T, uint64_t a) { return (uint64_t)wv_sfu_64h(T, (uint32_t)(a >> 32), 1) << 32; }
/* rsqrt.approx.f64: RSQ64H, then one Newton step in double (sm_90 SASS); zero, subnormal,
 * negative, inf and NaN inputs take ptxas's slow path (subnormals scaled by 2^54, result by 2^27). */
WV_SFU_FN double wv_sfu_d(uint64_t u) { union { uint64_t u; double d; } v; v.u = u; return v.d; }
WV_SFU_FN uint64_t wv_sfu_du(double d) { union { uint64_t u; double d; } v; v.d = d; return v.u; }
WV_SFU_FN uint64_t wv_sfu_rsqrt_approx_f64(const wv_sfu *T, uint64_t a) {
  uint32_t hi = (uint32_t)(a >> 32);
  double x = wv_sfu_d(a), post = 1.0;
  if (hi - 0x00100000u >= 0x7fe00000u) {
    uint64_t m = a & 0x7fffffffffffffffull;
    if (m == 0) return (a & 0x8000000000000000ull) | 0x7ff0000000000000ull;
    if (m > 0x7ff0000000000000ull) return wv_sfu_du(x + x);
    if (a >> 63) return 0xfff8000000000000ull;
    if (m == 0x7ff0000000000000ull) return 0;
    x = WV_SFU_DMUL(x, 18014398509481984.0); /* 2^54 */
    post = 134217728.0;                      /* 2^27 */
  }
  double y0 = wv_sfu_d((uint64_t)wv_sfu_64h(T, (uint32_t)(wv_sfu_du(x) >> 32), 1) << 32);
  double e = WV_SFU_DFMA(x, -WV_SFU_DMUL(y0, y0), 1.0);
  double y = WV_SFU_DFMA(WV_SFU_DFMA(e, 0.375, 0.5), WV_SFU_DMUL(y0, e), y0);
  return wv_sfu_du(post == 1.0 ? y : WV_SFU_DMUL(y, post));
}
/* f16/bf16 ex2 and tanh: the unit's table over every 16-bit input. */
WV_SFU_FN uint32_t wv_sfu_h16(const wv_sfu *T, int tab, uint32_t h) { return wv_sfu_get(&T->t[tab], h & 0xffffu) & 0xffffu; }

/* ---- every instruction by number (tools/sfu/check.cu, tests/unit/test_sfu.c) ----------------- */

/* X(ID, PTX): the instruction forms the model covers. wv_sfu_eval(T, WV_SFU_I_ID, x, y) is the
 * result for operand x (for .f64 the whole double, for x2 forms both halves, for div the divisor)
 * and y (the dividend of div). */
#define WV_SFU_INSTRUCTIONS(X)                                                                  \
  X(RCP_FTZ, "rcp.approx.ftz.f32") X(RCP, "rcp.approx.f32") X(SQRT_FTZ, "sqrt.approx.ftz.f32")    \
  X(SQRT, "sqrt.approx.f32") X(RSQRT_FTZ, "rsqrt.approx.ftz.f32") X(RSQRT, "rsqrt.approx.f32")     \
  X(EX2_FTZ, "ex2.approx.ftz.f32") X(EX2, "ex2.approx.f32") X(LG2_FTZ, "lg2.approx.ftz.f32")       \
  X(LG2, "lg2.approx.f32") X(SIN_FTZ, "sin.approx.ftz.f32") X(SIN, "sin.approx.f32")              \
  X(COS_FTZ, "cos.approx.ftz.f32") X(COS, "cos.approx.f32") X(TANH, "tanh.approx.f32")            \
  X(RCP64_FTZ, "rcp.approx.ftz.f64") X(RSQRT64_FTZ, "rsqrt.approx.ftz.f64")                      \
  X(RSQRT64, "rsqrt.approx.f64") X(EX2_F16X2, "ex2.approx.f16x2") X(TANH_F16X2, "tanh.approx.f16x2") \
  X(EX2_BF16X2, "ex2.approx.ftz.bf16x2") X(TANH_BF16X2, "tanh.approx.bf16x2")                     \
  X(DIV_APPROX, "div.approx.f32") X(DIV_APPROX_FTZ, "div.approx.ftz.f32") X(DIV_FULL, "div.full.f32") \
  X(DIV_FULL_FTZ, "div.full.ftz.f32")
enum {
#define WV_SFU_X(id, ptx) WV_SFU_I_##id,
  WV_SFU_INSTRUCTIONS(WV_SFU_X)
#undef WV_SFU_X
  WV_SFU_NI
};

WV_SFU_FN uint64_t wv_sfu_eval(const wv_sfu *T, int i, uint64_t x, uint32_t y) {
  uint32_t a = (uint32_t)x, hi = (uint32_t)(x >> 16);
  switch (i) {
  case WV_SFU_I_RCP_FTZ: return wv_sfu_rcp_approx(T, a, 1);
  case WV_SFU_I_RCP: return wv_sfu_rcp_approx(T, a, 0);
  case WV_SFU_I_SQRT_FTZ: return wv_sfu_sqrt_approx(T, a, 1);
  case WV_SFU_I_SQRT: return wv_sfu_sqrt_approx(T, a, 0);
  case WV_SFU_I_RSQRT_FTZ: return wv_sfu_rsqrt_approx(T, a, 1);
  case WV_SFU_I_RSQRT: return wv_sfu_rsqrt_approx(T, a, 0);
  case WV_SFU_I_EX2_FTZ: return wv_sfu_ex2_approx(T, a, 1);
  case WV_SFU_I_EX2: return wv_sfu_ex2_approx(T, a, 0);
  case WV_SFU_I_LG2_FTZ: return wv_sfu_lg2_approx(T, a, 1);
  case WV_SFU_I_LG2: return wv_sfu_lg2_approx(T, a, 0);
  case WV_SFU_I_SIN_FTZ: case WV_SFU_I_SIN: return wv_sfu_sin_approx(T, a);
  case WV_SFU_I_COS_FTZ: case WV_SFU_I_COS: return wv_sfu_cos_approx(T, a);
  case WV_SFU_I_TANH: return wv_sfu_tanh(T, a);
  case WV_SFU_I_RCP64_FTZ: return wv_sfu_rcp_approx_f64(T, x);
  case WV_SFU_I_RSQRT64_FTZ: return wv_sfu_rsqrt_approx_ftz_f64(T, x);
  case WV_SFU_I_RSQRT64: return wv_sfu_rsqrt_approx_f64(T, x);
  case WV_SFU_I_EX2_F16X2: return wv_sfu_h16(T, WV_SFU_EX2_F16, a) | wv_sfu_h16(T, WV_SFU_EX2_F16, hi) << 16;
  case WV_SFU_I_TANH_F16X2: return wv_sfu_h16(T, WV_SFU_TANH_F16, a) | wv_sfu_h16(T, WV_SFU_TANH_F16, hi) << 16;
  case WV_SFU_I_EX2_BF16X2: return wv_sfu_h16(T, WV_SFU_EX2_BF16, a) | wv_sfu_h16(T, WV_SFU_EX2_BF16, hi) << 16;
  case WV_SFU_I_TANH_BF16X2: return wv_sfu_h16(T, WV_SFU_TANH_BF16, a) | wv_sfu_h16(T, WV_SFU_TANH_BF16, hi) << 16;
  case WV_SFU_I_DIV_APPROX: return wv_sfu_div_approx(T, y, a, 0);
  case WV_SFU_I_DIV_APPROX_FTZ: return wv_sfu_div_approx(T, y, a, 1);
  case WV_SFU_I_DIV_FULL: return wv_sfu_div_full(T, y, a, 0);
  default: return wv_sfu_div_full(T, y, a, 1);
  }
}

/* ---- loading (sfu.c, host only) ------------------------------------------------------------- */

#ifdef __cplusplus
extern "C" {
#endif
/* The tables in WV_SFU_* order that `need` (a mask of 1 << id) names, from a .sfu file image
 * (tools/sfu/pack.py), into T; mem[id] keeps each table's memory. Tables already loaded stay.
 * 0 on success, -1 if the image is corrupt or memory runs out. */
int wv_sfu_load(wv_sfu *T, void **mem, const void *image, size_t len, uint32_t need);
void wv_sfu_unload(wv_sfu *T, void **mem);
/* The image built into warpvm (data/sfu/sm90.sfu). */
const void *wv_sfu_image(size_t *len);
#ifdef __cplusplus
}
#endif

#endif
