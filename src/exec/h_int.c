/*
 * h_int.c — integer and predicate-logic instruction handlers (PTX ISA §9.7.1 integer arithmetic,
 * §9.7.2 extended-precision arithmetic, §9.7.8 logic and shift), and the table the decoder uses to
 * pick one by opcode, variant and type.
 *
 * Arithmetic is done in unsigned types (wrap-around, no C undefined behaviour) and results are
 * stored sign- or zero-extended to 64 bits according to the instruction type. The carry flag
 * CC.CF of add.cc/addc/sub.cc/subc/mad.cc/madc lives in a hidden per-lane register slot (in->e).
 */
#include "exec/handlers.h"

/* The handlers below are generated for signed and unsigned types from one expression, so
 * sign tests such as `a < 0` are constant for the unsigned instances by design. */
#pragma GCC diagnostic ignored "-Wtype-limits"
#ifdef __clang__
#pragma clang diagnostic ignored "-Wtautological-unsigned-zero-compare"
#pragma clang diagnostic ignored "-Wtautological-constant-out-of-range-compare"
#endif

/* 16-bit operands promote to int in C; do their arithmetic in uint32_t to avoid overflow UB. */
#define GEN_BIN1(op, sfx, T, UT, expr)                                                   \
  static int h_##op##_##sfx(wv_exec *x, const wv_insn *in, uint32_t m) {                 \
    uint64_t *D = WV_R(x, in->d[0]);                                                     \
    const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);                             \
    typedef T T_t; (void)sizeof(T_t);                                                    \
    typedef UT UT_t; (void)sizeof(UT_t);                                                 \
    WV_FOR_LANES(m, l, {                                                                 \
      T a = (T)A[l], b = (T)B[l];                                                        \
      uint32_t sh = (uint32_t)B[l]; /* shift amounts are .u32 whatever the type */       \
      (void)a; (void)b; (void)sh;                                                        \
      D[l] = (uint64_t)(T)(expr);                                                        \
    });                                                                                  \
    return 0;                                                                            \
  }
#define GEN_BIN(op, expr)                                                                \
  GEN_BIN1(op, u16, uint16_t, uint32_t, expr)                                            \
  GEN_BIN1(op, s16, int16_t, uint32_t, expr)                                             \
  GEN_BIN1(op, u32, uint32_t, uint32_t, expr)                                            \
  GEN_BIN1(op, s32, int32_t, uint32_t, expr)                                             \
  GEN_BIN1(op, u64, uint64_t, uint64_t, expr)                                            \
  GEN_BIN1(op, s64, int64_t, uint64_t, expr)                                             \
  static const wv_handler T_##op[6] = {h_##op##_u16, h_##op##_s16, h_##op##_u32,         \
                                       h_##op##_s32, h_##op##_u64, h_##op##_s64};

#define BITS(T) ((int)(sizeof(T) * 8))
#define MIN_(a, b) ((a) < (b) ? (a) : (b))

GEN_BIN(add, (UT_t)a + (UT_t)b)
GEN_BIN(sub, (UT_t)a - (UT_t)b)
GEN_BIN(mullo, (UT_t)a * (UT_t)b)
GEN_BIN(min, a < b ? a : b)
GEN_BIN(max, a > b ? a : b)
GEN_BIN(and, a & b)
GEN_BIN(or, a | b)
GEN_BIN(xor, a ^ b)
/* shl/shr: the shift amount is an unsigned 32-bit value; amounts past the width give 0 (or the
 * sign fill for shr.s) — PTX ISA "shl", "shr". */
GEN_BIN(shl, sh >= (uint32_t)BITS(T_t) ? 0 : (UT_t)a << sh)
GEN_BIN(shr, (T_t)((T_t)-1 < 0 ? (T_t)((int64_t)a >> MIN_(sh, (uint32_t)BITS(T_t) - 1))
                               : (T_t)(sh >= (uint32_t)BITS(T_t) ? 0 : (uint64_t)a >> sh)))
/* Division by zero gives all ones for quotient and remainder, signed or not (measured on an
 * H200: tests/kernels int.arith32/int.arith64); MIN / -1 wraps to MIN with remainder 0. */
static inline uint64_t udiv_(uint64_t a, uint64_t b, uint64_t ones) { return b ? a / b : ones; }
static inline uint64_t urem_(uint64_t a, uint64_t b) { return b ? a % b : ~(uint64_t)0; }
#define SDIV(T, UT, a, b)                                                                \
  ((T)(((a) < 0) != ((b) < 0)                                                            \
           ? (UT)0 - (UT)udiv_((UT)((a) < 0 ? (UT)0 - (UT)(a) : (UT)(a)),                \
                               (UT)((b) < 0 ? (UT)0 - (UT)(b) : (UT)(b)), (UT)~(UT)0)    \
           : (UT)udiv_((UT)((a) < 0 ? (UT)0 - (UT)(a) : (UT)(a)),                        \
                       (UT)((b) < 0 ? (UT)0 - (UT)(b) : (UT)(b)), (UT)~(UT)0)))
#define SREM(T, UT, a, b)                                                                \
  ((T)((a) < 0 ? (UT)0 - (UT)urem_((UT)0 - (UT)(a), (UT)((b) < 0 ? (UT)0 - (UT)(b) : (UT)(b))) \
               : (UT)urem_((UT)(a), (UT)((b) < 0 ? (UT)0 - (UT)(b) : (UT)(b)))))
#define NARROW_MASK(T) ((BITS(T) == 64) ? ~(uint64_t)0 : (((uint64_t)1 << BITS(T)) - 1))
GEN_BIN(div, b == 0 ? (T_t)~(UT_t)0 : (T_t)-1 < 0 ? SDIV(T_t, UT_t, a, b) : (T_t)udiv_((uint64_t)a, (uint64_t)b, NARROW_MASK(T_t)))
GEN_BIN(rem, b == 0 ? (T_t)~(UT_t)0 : (T_t)-1 < 0 ? SREM(T_t, UT_t, a, b) : (T_t)urem_((uint64_t)a, (uint64_t)b))

/* mul.hi: the upper half of the double-width product. */
static inline uint64_t mulhi_u64(uint64_t a, uint64_t b) { return (uint64_t)(((unsigned __int128)a * b) >> 64); }
static inline uint64_t mulhi_s64(int64_t a, int64_t b) { return (uint64_t)(((__int128)a * b) >> 64); }
GEN_BIN(mulhi, BITS(T_t) == 64 ? ((T_t)-1 < 0 ? (T_t)mulhi_s64((int64_t)a, (int64_t)b) : (T_t)mulhi_u64((uint64_t)a, (uint64_t)b))
              : (T_t)-1 < 0 ? (T_t)(((int64_t)a * (int64_t)b) >> BITS(T_t)) : (T_t)(((uint64_t)a * (uint64_t)b) >> BITS(T_t)))
/* mul.wide: 16→32 and 32→64; the result is stored at the doubled width. */
#define GEN_WIDE(sfx, T, W)                                                              \
  static int h_mulwide_##sfx(wv_exec *x, const wv_insn *in, uint32_t m) {                \
    uint64_t *D = WV_R(x, in->d[0]);                                                     \
    const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);                             \
    WV_FOR_LANES(m, l, { D[l] = (uint64_t)(W)((W)(T)A[l] * (W)(T)B[l]); });              \
    return 0;                                                                            \
  }
GEN_WIDE(u16, uint16_t, uint32_t)
GEN_WIDE(s16, int16_t, int32_t)
GEN_WIDE(u32, uint32_t, uint64_t)
static int h_mulwide_s32(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  WV_FOR_LANES(m, l, { D[l] = (uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]); });
  return 0;
}
static const wv_handler T_mulwide[6] = {h_mulwide_u16, h_mulwide_s16, h_mulwide_u32, h_mulwide_s32, NULL, NULL};

/* add.sat.s32 / sub.sat.s32: clamp to [INT_MIN, INT_MAX]. */
static int32_t sat32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v; }
static int h_addsat_s32(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  WV_FOR_LANES(m, l, { D[l] = (uint64_t)(int64_t)sat32((int64_t)(int32_t)A[l] + (int32_t)B[l]); });
  return 0;
}
static int h_subsat_s32(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  WV_FOR_LANES(m, l, { D[l] = (uint64_t)(int64_t)sat32((int64_t)(int32_t)A[l] - (int32_t)B[l]); });
  return 0;
}

/* ---- extended precision: CC.CF in slot in->e ---- */
#define GEN_CARRY(name, W, UT, expr_d, expr_cf, usecf)                                   \
  static int h_##name##_##W(wv_exec *x, const wv_insn *in, uint32_t m) {                 \
    uint64_t *D = WV_R(x, in->d[0]), *CF = WV_R(x, in->e);                               \
    const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);                             \
    int setcf = in->mode;                                                                \
    WV_FOR_LANES(m, l, {                                                                 \
      UT a = (UT)A[l], b = (UT)B[l], cf = (usecf) ? (UT)(CF[l] & 1) : 0;                 \
      UT d = (UT)(expr_d);                                                               \
      if (setcf) CF[l] = (expr_cf);                                                      \
      D[l] = d;                                                                          \
    });                                                                                  \
    return 0;                                                                            \
  }
GEN_CARRY(addcc, 32, uint32_t, a + b + cf, (uint64_t)a + b + cf > 0xffffffffull, 0)
GEN_CARRY(addc, 32, uint32_t, a + b + cf, (uint64_t)a + b + cf > 0xffffffffull, 1)
GEN_CARRY(subcc, 32, uint32_t, a - b - cf, (uint64_t)b + cf > a, 0)
GEN_CARRY(subc, 32, uint32_t, a - b - cf, (uint64_t)b + cf > a, 1)
GEN_CARRY(addcc, 64, uint64_t, a + b + cf, (unsigned __int128)a + b + cf > UINT64_MAX, 0)
GEN_CARRY(addc, 64, uint64_t, a + b + cf, (unsigned __int128)a + b + cf > UINT64_MAX, 1)
GEN_CARRY(subcc, 64, uint64_t, a - b - cf, (unsigned __int128)b + cf > a, 0)
GEN_CARRY(subc, 64, uint64_t, a - b - cf, (unsigned __int128)b + cf > a, 1)

/* mad.{lo,hi}[.cc] / madc.{lo,hi}[.cc] on 32 and 64 bits; in->mode bit0 = set CF, bit1 = use CF,
 * bit2 = hi half; in->type decides signedness of the product. */
static inline uint64_t prod_part(uint64_t a, uint64_t b, int w64, int sgn, int hi) {
  if (w64) {
    if (!hi) return a * b;
    return sgn ? mulhi_s64((int64_t)a, (int64_t)b) : mulhi_u64(a, b);
  }
  uint64_t p = sgn ? (uint64_t)((int64_t)(int32_t)a * (int64_t)(int32_t)b) : (uint64_t)(uint32_t)a * (uint32_t)b;
  return hi ? (uint32_t)(p >> 32) : (uint32_t)p;
}
/* The common forms without carry: mad.lo on 32/64 bits and mad.wide.{s,u}32, one expression each;
 * h_madx below does every form (hi, cc, madc, 16-bit wide). */
#define GEN_MADLO1(sfx, T, UT)                                                           \
  static int h_madlo_##sfx(wv_exec *x, const wv_insn *in, uint32_t m) {                  \
    uint64_t *D = WV_R(x, in->d[0]);                                                     \
    const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b), *C = WV_R(x, in->c);        \
    WV_FOR_LANES(m, l, { D[l] = (uint64_t)(T)((UT)(T)A[l] * (UT)(T)B[l] + (UT)(T)C[l]); }); \
    return 0;                                                                            \
  }
GEN_MADLO1(u32, uint32_t, uint32_t)
GEN_MADLO1(s32, int32_t, uint32_t)
GEN_MADLO1(u64, uint64_t, uint64_t)
GEN_MADLO1(s64, int64_t, uint64_t)
static const wv_handler T_madlo[6] = {NULL, NULL, h_madlo_u32, h_madlo_s32, h_madlo_u64, h_madlo_s64};
static int h_madwide_u32(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b), *C = WV_R(x, in->c);
  WV_FOR_LANES(m, l, { D[l] = (uint64_t)(uint32_t)A[l] * (uint32_t)B[l] + C[l]; });
  return 0;
}
static int h_madwide_s32(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b), *C = WV_R(x, in->c);
  WV_FOR_LANES(m, l, { D[l] = (uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l]) + C[l]; });
  return 0;
}

static int h_madx(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b), *C = WV_R(x, in->c);
  uint64_t *CF = in->e != WV_NOSLOT ? WV_R(x, in->e) : NULL;
  int w64 = wv_type_size(in->type) == 8, sgn = wv_type_is_signed(in->type);
  int setcf = in->mode & 1, usecf = in->mode & 2, hi = in->mode & 4;
  int wide = in->mode & 8;
  WV_FOR_LANES(m, l, {
    if (wide) { /* mad.wide: 32x32→64 (+64-bit c) or 16x16→32 */
      int w16 = wv_type_size(in->type) == 2;
      uint64_t p = w16 ? (uint64_t)(sgn ? (uint32_t)((int32_t)(int16_t)A[l] * (int32_t)(int16_t)B[l])
                                        : (uint32_t)((uint32_t)(uint16_t)A[l] * (uint16_t)B[l]))
                       : sgn ? (uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l])
                             : (uint64_t)(uint32_t)A[l] * (uint32_t)B[l];
      uint64_t r = p + C[l];
      D[l] = w16 ? (uint64_t)(sgn ? (int64_t)(int32_t)r : (int64_t)(uint32_t)r) : r;
      continue;
    }
    uint64_t p = prod_part(A[l], B[l], w64, sgn, hi);
    uint64_t cf = usecf && CF ? (CF[l] & 1) : 0;
    if (w64) {
      unsigned __int128 s = (unsigned __int128)p + C[l] + cf;
      if (setcf && CF) CF[l] = (uint64_t)(s >> 64) & 1;
      D[l] = (uint64_t)s;
    } else {
      uint64_t s = (uint64_t)(uint32_t)p + (uint32_t)C[l] + cf;
      if (setcf && CF) CF[l] = (s >> 32) & 1;
      D[l] = sgn ? (uint64_t)(int64_t)(int32_t)s : (uint32_t)s;
    }
  });
  return 0;
}

/* mul24/mad24: 24-bit operands (sign-extended for .s32), .lo or .hi of the 48-bit product. */
static int h_mul24(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  const uint64_t *C = in->c != WV_NOSLOT ? WV_R(x, in->c) : NULL;
  int sgn = wv_type_is_signed(in->type), hi = in->mode & 4;
  WV_FOR_LANES(m, l, {
    int64_t a = sgn ? ((int64_t)((uint64_t)A[l] << 40) >> 40) : (int64_t)(A[l] & 0xffffff);
    int64_t b = sgn ? ((int64_t)((uint64_t)B[l] << 40) >> 40) : (int64_t)(B[l] & 0xffffff);
    uint64_t p = (uint64_t)(a * b);
    uint32_t r = hi ? (uint32_t)(p >> 16) : (uint32_t)p;
    if (C) r += (uint32_t)C[l];
    D[l] = sgn ? (uint64_t)(int64_t)(int32_t)r : r;
  });
  return 0;
}

/* sad: d = c + |a - b| */
static int h_sad(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b), *C = WV_R(x, in->c);
  int sgn = wv_type_is_signed(in->type);
  unsigned bits = wv_type_size(in->type) * 8;
  WV_FOR_LANES(m, l, {
    uint64_t r;
    if (bits == 64) {
      r = sgn ? ((int64_t)A[l] > (int64_t)B[l] ? A[l] - B[l] : B[l] - A[l])
              : (A[l] > B[l] ? A[l] - B[l] : B[l] - A[l]);
      D[l] = r + C[l];
    } else {
      int64_t a = sgn ? (bits == 16 ? (int16_t)A[l] : (int32_t)A[l]) : (int64_t)(bits == 16 ? (uint16_t)A[l] : (uint32_t)A[l]);
      int64_t b = sgn ? (bits == 16 ? (int16_t)B[l] : (int32_t)B[l]) : (int64_t)(bits == 16 ? (uint16_t)B[l] : (uint32_t)B[l]);
      uint32_t s = (uint32_t)(a > b ? a - b : b - a) + (uint32_t)C[l];
      D[l] = bits == 16 ? (uint16_t)s : s;
    }
  });
  return 0;
}

/* ---- unary ---- */
#define GEN_UN1(op, sfx, T, UT, expr)                                                    \
  static int h_##op##_##sfx(wv_exec *x, const wv_insn *in, uint32_t m) {                 \
    uint64_t *D = WV_R(x, in->d[0]);                                                     \
    const uint64_t *A = WV_R(x, in->a);                                                  \
    typedef T T_t; (void)sizeof(T_t);                                                    \
    typedef UT UT_t; (void)sizeof(UT_t);                                                 \
    WV_FOR_LANES(m, l, { T a = (T)A[l]; D[l] = (uint64_t)(T)(expr); });                  \
    return 0;                                                                            \
  }
#define GEN_UN(op, expr)                                                                 \
  GEN_UN1(op, u16, uint16_t, uint32_t, expr)                                             \
  GEN_UN1(op, s16, int16_t, uint32_t, expr)                                              \
  GEN_UN1(op, u32, uint32_t, uint32_t, expr)                                             \
  GEN_UN1(op, s32, int32_t, uint32_t, expr)                                              \
  GEN_UN1(op, u64, uint64_t, uint64_t, expr)                                             \
  GEN_UN1(op, s64, int64_t, uint64_t, expr)                                              \
  static const wv_handler T_##op[6] = {h_##op##_u16, h_##op##_s16, h_##op##_u32,         \
                                       h_##op##_s32, h_##op##_u64, h_##op##_s64};
GEN_UN(abs, a < 0 ? (UT_t)0 - (UT_t)a : (UT_t)a)
GEN_UN(neg, (UT_t)0 - (UT_t)a)
GEN_UN(not, ~(UT_t)a)
GEN_UN(cnot, a == 0)

/* popc/clz/brev/bfind write a u32 count (brev keeps the width). */
static int h_popc(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  if (wv_type_size(in->type) == 8) WV_FOR_LANES(m, l, { D[l] = (uint32_t)__builtin_popcountll(A[l]); });
  else WV_FOR_LANES(m, l, { D[l] = (uint32_t)__builtin_popcount((uint32_t)A[l]); });
  return 0;
}
static int h_clz(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  if (wv_type_size(in->type) == 8) WV_FOR_LANES(m, l, { D[l] = A[l] ? (uint32_t)__builtin_clzll(A[l]) : 64; });
  else WV_FOR_LANES(m, l, { uint32_t a = (uint32_t)A[l]; D[l] = a ? (uint32_t)__builtin_clz(a) : 32; });
  return 0;
}
static uint64_t brev64(uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
  return __builtin_bswap64(v);
}
static int h_brev(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  if (wv_type_size(in->type) == 8) WV_FOR_LANES(m, l, { D[l] = brev64(A[l]); });
  else WV_FOR_LANES(m, l, { D[l] = (uint32_t)(brev64((uint32_t)A[l]) >> 32); });
  return 0;
}
/* bfind: position of the most significant bit that differs from the sign (for .s) or is set
 * (for .u); 0xffffffff if none. .shiftamt returns (width-1 - pos). */
static int h_bfind(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  int w = (int)wv_type_size(in->type) * 8, sgn = wv_type_is_signed(in->type);
  WV_FOR_LANES(m, l, {
    uint64_t a = w == 64 ? A[l] : (uint32_t)A[l];
    if (sgn && (w == 64 ? (int64_t)a < 0 : (int32_t)a < 0)) a = w == 64 ? ~a : (uint32_t)~a;
    uint32_t r = a ? (uint32_t)(63 - __builtin_clzll(a)) : 0xffffffffu;
    if (in->mode && r != 0xffffffffu) r = (uint32_t)(w - 1) - r;
    D[l] = r;
  });
  return 0;
}

/* ---- predicates: and/or/xor/not/mov on .pred ---- */
static int h_pand(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint32_t *P = x->preds, v = P[in->a] & P[in->b];
  P[in->d[0]] = (P[in->d[0]] & ~m) | (v & m);
  return 0;
}
static int h_por(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint32_t *P = x->preds, v = P[in->a] | P[in->b];
  P[in->d[0]] = (P[in->d[0]] & ~m) | (v & m);
  return 0;
}
static int h_pxor(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint32_t *P = x->preds, v = P[in->a] ^ P[in->b];
  P[in->d[0]] = (P[in->d[0]] & ~m) | (v & m);
  return 0;
}
static int h_pnot(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint32_t *P = x->preds, v = ~P[in->a];
  P[in->d[0]] = (P[in->d[0]] & ~m) | (v & m);
  return 0;
}

static int tix(wv_type t) {
  switch (t) {
  case WV_T_U16: case WV_T_B16: return 0;
  case WV_T_S16: return 1;
  case WV_T_U32: case WV_T_B32: return 2;
  case WV_T_S32: return 3;
  case WV_T_U64: case WV_T_B64: return 4;
  case WV_T_S64: return 5;
  default: return -1;
  }
}

wv_handler wv_h_int(int op, int variant, wv_type t) {
  if (t == WV_T_PRED) {
    switch (op) {
    case WV_OP_AND: return h_pand;
    case WV_OP_OR: return h_por;
    case WV_OP_XOR: return h_pxor;
    case WV_OP_NOT: return h_pnot;
    default: return NULL;
    }
  }
  int i = tix(t);
  int w32 = t == WV_T_U32 || t == WV_T_S32 || t == WV_T_B32;
  int w64 = t == WV_T_U64 || t == WV_T_S64 || t == WV_T_B64;
  if (i < 0) return NULL;
  switch (op) {
  case WV_OP_ADD:
    if (variant == WV_V_SAT) return t == WV_T_S32 ? h_addsat_s32 : NULL;
    if (variant == WV_V_CC) return w32 ? h_addcc_32 : w64 ? h_addcc_64 : NULL;
    return T_add[i];
  case WV_OP_SUB:
    if (variant == WV_V_SAT) return t == WV_T_S32 ? h_subsat_s32 : NULL;
    if (variant == WV_V_CC) return w32 ? h_subcc_32 : w64 ? h_subcc_64 : NULL;
    return T_sub[i];
  case WV_OP_ADDC: return w32 ? h_addc_32 : w64 ? h_addc_64 : NULL;
  case WV_OP_SUBC: return w32 ? h_subc_32 : w64 ? h_subc_64 : NULL;
  case WV_OP_MUL:
    return variant == WV_V_HI ? T_mulhi[i] : variant == WV_V_WIDE ? T_mulwide[i] : T_mullo[i];
  case WV_OP_MUL24: case WV_OP_MAD24: return (t == WV_T_U32 || t == WV_T_S32) ? h_mul24 : NULL;
  case WV_OP_MAD: case WV_OP_MADC: /* variant: WV_V_LO, WV_V_WIDE, or WV_V_HI / WV_V_CC (carry in or out) */
    if (!(w32 || w64 || variant == WV_V_WIDE)) return NULL;
    if (variant == WV_V_LO) return T_madlo[i];
    if (variant == WV_V_WIDE && w32) return t == WV_T_S32 ? h_madwide_s32 : h_madwide_u32;
    return h_madx;
  case WV_OP_SAD: return h_sad;
  case WV_OP_MIN: return T_min[i];
  case WV_OP_MAX: return T_max[i];
  case WV_OP_AND: return T_and[i];
  case WV_OP_OR: return T_or[i];
  case WV_OP_XOR: return T_xor[i];
  case WV_OP_SHL: return T_shl[i];
  case WV_OP_SHR: return T_shr[i];
  case WV_OP_DIV: return T_div[i];
  case WV_OP_REM: return T_rem[i];
  case WV_OP_ABS: return T_abs[i];
  case WV_OP_NEG: return T_neg[i];
  case WV_OP_NOT: return T_not[i];
  case WV_OP_CNOT: return T_cnot[i];
  case WV_OP_POPC: return (w32 || w64) ? h_popc : NULL;
  case WV_OP_CLZ: return (w32 || w64) ? h_clz : NULL;
  case WV_OP_BREV: return (w32 || w64) ? h_brev : NULL;
  case WV_OP_BFIND: return (w32 || w64) ? h_bfind : NULL;
  default: return NULL;
  }
}
