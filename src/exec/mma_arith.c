/*
 * mma_arith.c — one element of a tensor-core product as the H100 computes it (docs/TENSOR.md).
 *
 * Floating point (f16, bf16, tf32 inputs): the k products are exact; they and C are added in ONE fused step
 * on a fixed-point grid: E is the largest "nominal" exponent among the nonzero addends (a product's is
 * ea + eb, the sum of its factors' exponent fields, a subnormal counting as the format's minimum exponent, so
 * a product whose significand reaches [2,4) has its leading bit at E + 1; C's is the exponent of its leading
 * bit), every addend is truncated toward zero to a multiple of 2^(E-25), the truncated values are summed
 * exactly, and the sum is rounded once: toward zero to f32, to nearest-even to f16. Subnormal inputs and
 * results are kept. NaN inputs, Inf·0 and Inf − Inf give the canonical NaN; a zero sum of nonzero addends is
 * +0. These are one HMMA instruction. Other forms follow the instructions ptxas makes of them on sm_90: fp8
 * (e4m3/e5m2) is unpacked to f16, run as two HMMA steps and C added by FADD/HADD2 (fp8_elem); the K of
 * wmma.mma .tf32 goes in steps of 4 (h_mma.c, mma.h kstep). f64 is a chain of IEEE fmas over k in order (a NaN
 * result carries b's NaN, else the running sum's, else a's, quieted; a NaN made from numbers is
 * 0xfff8000000000000); integers are exact (wrapping, or clamped with .satfinite).
 */
#include "exec/mma_arith.h"

#include "exec/fpmath.h"

#include <math.h>
#include <string.h>

typedef struct { int sign, special; uint64_t m; int e, nom; } term; /* (-1)^sign m 2^e; special 1 Inf 2 NaN */

struct fmt { int ebits, mbits, bias, fp8nan; };
static struct fmt fmt_of(enum wv_mt t) {
  switch (t) {
  case WV_MT_F16: return (struct fmt){5, 10, 15, 0};
  case WV_MT_BF16: return (struct fmt){8, 7, 127, 0};
  case WV_MT_TF32: return (struct fmt){8, 10, 127, 0};
  case WV_MT_E4M3: return (struct fmt){4, 3, 7, 1};
  case WV_MT_E5M2: return (struct fmt){5, 2, 15, 0};
  case WV_MT_F64: return (struct fmt){11, 52, 1023, 0};
  default: return (struct fmt){8, 23, 127, 0};
  }
}

int wv_mma_bits(enum wv_mt t) {
  static const int b[WV_MT_COUNT] = {16, 16, 32, 8, 8, 32, 64, 8, 8, 4, 4, 1, 32};
  return (unsigned)t < WV_MT_COUNT ? b[t] : 0;
}

static int bitlen(uint64_t m) { return m ? 64 - __builtin_clzll(m) : 0; }

static term decode(enum wv_mt t, uint64_t b);
/* an e4m3/e5m2 byte as the f16 bits F2FP.F16.E4M3/E5M2.UNPACK_B makes of it (exact; e4m3's NaN: an f16 NaN) */
static uint64_t fp8_to_f16(enum wv_mt t, uint64_t b) {
  if (t == WV_MT_E5M2) return (b & 0xff) << 8; /* e5m2 is the top byte of an f16 */
  uint64_t sign = (b >> 7 & 1) << 15, ef = b >> 3 & 15, m = b & 7;
  if (ef == 15 && m == 7) return sign | 0x7fff;
  if (!ef && !m) return sign;
  if (!ef) { /* subnormal m * 2^-9: an f16 normal */
    int sh = 0;
    while (!(m & 8)) m <<= 1, sh++;
    return sign | (uint64_t)(15 - 6 - sh) << 10 | (m & 7) << 7;
  }
  return sign | (ef - 7 + 15) << 10 | m << 7;
}

static term decode(enum wv_mt t, uint64_t b) {
  if (t == WV_MT_E4M3 || t == WV_MT_E5M2) return decode(WV_MT_F16, fp8_to_f16(t, b));
  struct fmt f = fmt_of(t);
  term r = {0};
  if (t == WV_MT_TF32) b >>= 13;
  r.sign = (int)(b >> (f.ebits + f.mbits)) & 1;
  int ef = (int)(b >> f.mbits) & ((1 << f.ebits) - 1);
  uint64_t mant = b & ((1ull << f.mbits) - 1);
  if (f.fp8nan) {
    if (ef == 15 && mant == 7) r.special = 2;
  } else if (ef == (1 << f.ebits) - 1)
    r.special = mant ? 2 : 1;
  if (r.special) return r;
  r.m = ef ? mant | 1ull << f.mbits : mant;
  r.e = (ef ? ef : 1) - f.bias - f.mbits;
  r.nom = (ef ? ef : 1) - f.bias;
  return r;
}

/* round (-1)^sign mag 2^e to a binary format of precision p (f32: 24, f16: 11); nearest-even or toward 0 */
static uint64_t round_to(int sign, uint64_t mag, int e, enum wv_mt t, int nearest) {
  struct fmt f = fmt_of(t);
  int p = f.mbits + 1, emin = 1 - f.bias;
  if (!mag) return 0;
  int q = e + bitlen(mag) - p; /* exponent of one unit in the last place */
  if (q < emin - f.mbits) q = emin - f.mbits;
  uint64_t r;
  int sh = q - e;
  if (sh <= 0) r = mag << -sh;
  else {
    r = sh >= 64 ? 0 : mag >> sh;
    uint64_t rem = sh >= 64 ? mag : mag - (r << sh);
    if (nearest && sh <= 64) {
      uint64_t half = 1ull << (sh - 1);
      if (rem > half || (rem == half && (r & 1))) r++;
    }
  }
  if (r >> p) { r >>= 1; q++; }
  if (!r) return 0; /* an underflow to zero is +0 */
  uint64_t sb = (uint64_t)sign << (f.ebits + f.mbits);
  if (r < 1ull << f.mbits) return sb | r; /* subnormal */
  int ef = q + f.mbits + f.bias;
  uint64_t expall = (1ull << f.ebits) - 1;
  if (ef >= (int)expall) /* overflow: Inf, also when the sum is truncated toward zero (not IEEE RZ's largest */
    return sb | expall << f.mbits; /* finite: an H200's m16n8k8 bf16 and m16n8k4 tf32, tests/kernels mma.*) */
  return sb | (uint64_t)ef << f.mbits | (r & ((1ull << f.mbits) - 1));
}

/* exact sum of t[0..n) truncated toward zero to multiples of 2^(E-F), E the largest nominal exponent;
 * returns the sum as (sign, mag, exponent) */
static int fused(const term *t, int n, int F, int *sign, uint64_t *mag, int *e) {
  int E = INT32_MIN;
  for (int i = 0; i < n; i++)
    if (t[i].m && t[i].nom > E) E = t[i].nom;
  if (E == INT32_MIN) return 0;
  int base = E - F;
  int64_t s = 0;
  for (int i = 0; i < n; i++) {
    if (!t[i].m) continue;
    int sh = base - t[i].e;
    int64_t v = sh <= 0 ? (int64_t)(t[i].m << -sh) : sh >= 64 ? 0 : (int64_t)(t[i].m >> sh);
    s += t[i].sign ? -v : v;
  }
  *sign = s < 0;
  *mag = (uint64_t)(s < 0 ? -s : s);
  *e = base;
  return 1;
}

static uint64_t float_elem(const wv_mma_types *ty, int k, const term *xa, const term *xb, uint64_t c, unsigned flags);

/* fp8 as sm_90's SASS computes it: the bytes unpacked to f16 (decode), then HMMA.16816 steps of the f16 rule —
 * the products of k = 0,1 (mod 4) onto +0, then those of k = 2,3 (mod 4) onto that result (each register's
 * low and high halves; HMMA.16816 for k = 32, HMMA.1688 for k = 16) — and C added last by FADD (f32) or HADD2
 * (f16), to nearest. */
static uint64_t fp8_elem(const wv_mma_types *ty, int k, const term *xa, const term *xb, uint64_t c) {
  enum wv_mt acc = ty->d == WV_MT_F16 ? WV_MT_F16 : WV_MT_F32;
  wv_mma_types h = {WV_MT_F16, WV_MT_F16, acc, acc};
  term a[2][32] = {{{0}}}, b[2][32] = {{{0}}};
  int n[2] = {0, 0};
  for (int i = 0; i < k && i < 32; i++) {
    int g = (i & 3) >= 2; /* the high half of each register's unpacked bytes */
    a[g][n[g]] = xa[i], b[g][n[g]++] = xb[i];
  }
  uint64_t s = float_elem(&h, n[0], a[0], b[0], 0, 0);
  if (n[1]) s = float_elem(&h, n[1], a[1], b[1], s, 0);
  if (acc == WV_MT_F16) return wv_fp_half_arith(WV_FP__ADD, 0, (uint32_t)c, (uint32_t)s, 0, 0);
  float x, y;
  uint32_t cb = (uint32_t)c, sb = (uint32_t)s, r;
  memcpy(&x, &cb, 4);
  memcpy(&y, &sb, 4);
  x = x + y;
  memcpy(&r, &x, 4);
  return x != x ? 0x7fffffffu : r;
}

static uint64_t nan_of(enum wv_mt cd) { return cd == WV_MT_F16 ? 0x7fff : 0x7fffffff; }
static uint64_t inf_of(enum wv_mt cd, int s) {
  return cd == WV_MT_F16 ? (s ? 0xfc00 : 0x7c00) : (s ? 0xff800000u : 0x7f800000u);
}

/* one element from the decoded row of A (xa) and column of B (xb) */
static uint64_t float_elem(const wv_mma_types *ty, int k, const term *xa, const term *xb, uint64_t c, unsigned flags) {
  enum wv_mt cd = ty->d;
  int fp8 = ty->a == WV_MT_E4M3 || ty->a == WV_MT_E5M2;
  if (fp8 && !(flags & WV_MMA_WGMMA)) return fp8_elem(ty, k, xa, xb, c);
  term t[65];
  int nan = 0, inf = 0, infsign = 0, allneg = 1, any = 0;
  for (int i = 0; i < k; i++) {
    term x = xa[i], y = xb[i];
    term p = {x.sign ^ y.sign, 0, x.m * y.m, x.e + y.e, x.nom + y.nom};
    if (x.special == 2 || y.special == 2) nan = 1;
    else if (x.special || y.special) {
      if ((!x.special && !x.m) || (!y.special && !y.m)) nan = 1;
      else if (inf && infsign != p.sign) nan = 1;
      else inf = 1, infsign = p.sign;
    }
    allneg &= p.sign;
    any |= p.m != 0;
    t[i] = p;
  }
  term cc = decode(ty->c, c);
  if (cc.special == 2) nan = 1;
  else if (cc.special == 1) {
    if (inf && infsign != cc.sign) nan = 1;
    else inf = 1, infsign = cc.sign;
  }
  if (nan) return nan_of(cd);
  if (inf) return inf_of(cd, infsign);
  cc.nom = cc.m ? cc.e + bitlen(cc.m) - 1 : 0;
  allneg &= cc.sign;
  any |= cc.m != 0;
  if (!any) return allneg ? (cd == WV_MT_F16 ? 0x8000 : 0x80000000u) : 0;
  int s = 0, e = 0;
  uint64_t mag = 0;
  t[k] = cc;
  if (fp8) { /* wgmma's fp8 (docs/TENSOR.md): addends 13 bits below the largest, the sum kept to 13 fraction bits */
    fused(t, k + 1, 13, &s, &mag, &e);
    if (cd == WV_MT_F16) return round_to(s, mag, e, cd, 1);
    int over = bitlen(mag) - 14;
    if (over > 0) mag >>= over, e += over;
    return round_to(s, mag, e, cd, 0);
  }
  fused(t, k + 1, 25, &s, &mag, &e);
  return round_to(s, mag, e, cd, cd == WV_MT_F16);
}

static int64_t int_of(enum wv_mt t, uint64_t v) {
  switch (t) {
  case WV_MT_S8: return (int8_t)v;
  case WV_MT_U8: return (uint8_t)v;
  case WV_MT_S4: return ((int64_t)(v & 15) ^ 8) - 8;
  case WV_MT_U4: return v & 15;
  default: return v & 1;
  }
}

uint64_t wv_mma_elem(const wv_mma_types *ty, int k, const uint64_t *a, const uint64_t *b, uint64_t c,
                     unsigned flags) {
  enum wv_mt ab = ty->a;
  if (ab == WV_MT_F64) {
    double d, x, y;
    memcpy(&d, &c, 8);
    for (int i = 0; i < k; i++) { /* d = fma(a_k, b_k, d), k = 0, 1, ...; a NaN: b's, else d's, else a's */
      memcpy(&x, &a[i], 8);
      memcpy(&y, &b[i], 8);
      uint64_t db, pick[3] = {b[i], 0, a[i]}, r = 0xfff8000000000000ull;
      memcpy(&db, &d, 8);
      pick[1] = db;
      double f = fma(x, y, d);
      if (f == f) { d = f; continue; }
      for (int j = 0; j < 3; j++)
        if ((pick[j] & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) { r = pick[j] | 0x0008000000000000ull; break; }
      memcpy(&d, &r, 8);
    }
    uint64_t r;
    memcpy(&r, &d, 8);
    return r;
  }
  if (ab >= WV_MT_S8 && ab <= WV_MT_B1) {
    int64_t s = (int32_t)c;
    for (int i = 0; i < k; i++) {
      if (ab == WV_MT_B1) s += flags & WV_MMA_B1_AND ? (a[i] & b[i] & 1) : ((a[i] ^ b[i]) & 1);
      else s += int_of(ab, a[i]) * int_of(ty->b, b[i]);
    }
    if (flags & WV_MMA_SATFINITE) s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
    return (uint32_t)s;
  }
  term xa[64], xb[64];
  for (int i = 0; i < k && i < 64; i++) xa[i] = decode(ty->a, a[i]), xb[i] = decode(ty->b, b[i]);
  return float_elem(ty, k, xa, xb, c, flags);
}

static int is_float(enum wv_mt t) { return t <= WV_MT_F32; }

void wv_mma_tile(const wv_mma_types *ty, int m, int n, int k, const uint64_t *a, const uint64_t *bt, const uint64_t *c,
                 uint64_t *d, unsigned flags) {
  if (!is_float(ty->a) || k > 64 || m * k > 1024 || n * k > 1024) {
    for (int r = 0; r < m; r++)
      for (int j = 0; j < n; j++) d[r * n + j] = wv_mma_elem(ty, k, &a[r * k], &bt[j * k], c[r * n + j], flags);
    return;
  }
  term xa[1024], xb[1024]; /* every element decoded once */
  for (int i = 0; i < m * k; i++) xa[i] = decode(ty->a, a[i]);
  for (int i = 0; i < n * k; i++) xb[i] = decode(ty->b, bt[i]);
  for (int r = 0; r < m; r++)
    for (int j = 0; j < n; j++) d[r * n + j] = float_elem(ty, k, &xa[r * k], &xb[j * k], c[r * n + j], flags);
}
