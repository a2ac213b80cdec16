/*
 * test_exec_int.c — integer arithmetic through the C API (PTX ISA §9.7.1 "Integer Arithmetic
 * Instructions", §9.7.2 "Extended-Precision Integer Arithmetic"): add/sub(.sat), mul.lo/hi/wide,
 * mad.lo/hi/wide, add.cc/addc/sub.cc/subc/mad.cc/madc chains, div/rem (incl. INT_MIN / -1 and
 * division by zero, which an H200 answers with all ones for quotient and remainder), min/max,
 * abs/neg/not/cnot, shl/shr with amounts >= width, popc/clz/brev/bfind(.shiftamt), 16- and 64-bit
 * forms, mul24/mad24.
 *
 * Every expected value comes from a C model below written from the ISA text with well-defined
 * unsigned arithmetic (64x64 products by 32-bit limbs, bit counts by loops), never from warpvm.
 */
#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- operand sets ---------------------------------------------------------------------------- */

static const uint64_t V32[] = {0,          1,          2,          3,          7,          0x7f,
                               0x80,       0xff,       0x7fff,     0x8000,     0xffff,     0x10000,
                               0x12345678, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff,
                               0xdeadbeef, 100,        0xfffffff9 /* -7 */};
/* 32-bit values with junk in the upper half: 32-bit instructions must ignore it */
static const uint64_t V32J[] = {0xabcdef0100000005ull, 0xffffffff00000003ull, 0x00000001fffffff9ull,
                                0x8000000080000000ull, 0x123456787fffffffull};
static const uint64_t V64[] = {0,
                               1,
                               2,
                               3,
                               7,
                               0x7fffffff,
                               0x80000000,
                               0xffffffff,
                               0x100000000ull,
                               0x7fffffffffffffffull,
                               0x8000000000000000ull,
                               0x8000000000000001ull,
                               0xfffffffffffffffeull,
                               0xffffffffffffffffull,
                               0x123456789abcdef0ull,
                               0xfedcba9876543210ull,
                               0xfffffffffffffff9ull /* -7 */};
static const uint64_t V16[] = {0, 1, 2, 3, 7, 0x7f, 0x80, 0xff, 0x100, 0x1234, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff,
                               0xfff9 /* -7 */, 0xabcd0005 /* junk above 16 bits */};
static const uint64_t SHIFTS[] = {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 0x10001, 0x80000000,
                                  0xffffffff};

/* ---- helpers for the C models ----------------------------------------------------------------- */

static int64_t s64(uint64_t x) {
  return x < 0x8000000000000000ull ? (int64_t)x : (int64_t)(x - 0x8000000000000000ull) - INT64_MAX - 1;
}
static int32_t s32(uint32_t x) { return (int32_t)s64((uint64_t)x - ((x & 0x80000000u) ? 0x100000000ull : 0)); }
static int32_t s16(uint16_t x) { return (x & 0x8000u) ? (int32_t)x - 0x10000 : (int32_t)x; }
static uint64_t sext32(uint32_t x) { return (x & 0x80000000u) ? (x | 0xffffffff00000000ull) : x; }

/* 64x64 -> 128 by 32-bit limbs */
static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
  uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  *lo = (mid << 32) | (p00 & 0xffffffffu);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
static uint64_t mulhi_u64(uint64_t a, uint64_t b) {
  uint64_t hi, lo;
  mul128(a, b, &hi, &lo);
  return hi;
}
/* signed high half: unsigned high half minus the two-complement corrections */
static uint64_t mulhi_s64(uint64_t a, uint64_t b) {
  uint64_t h = mulhi_u64(a, b);
  if (a >> 63) h -= b;
  if (b >> 63) h -= a;
  return h;
}

#define M(name, expr)                                                                                \
  static uint64_t name(uint64_t A, uint64_t B, uint64_t C) {                                         \
    uint32_t a = (uint32_t)A, b = (uint32_t)B, c = (uint32_t)C;                                      \
    uint16_t ha = (uint16_t)A, hb = (uint16_t)B;                                                     \
    (void)a; (void)b; (void)c; (void)ha; (void)hb; (void)A; (void)B; (void)C;                        \
    return (expr);                                                                                   \
  }

/* add / sub */
M(m_add32, (uint32_t)(a + b))
M(m_sub32, (uint32_t)(a - b))
M(m_add16, (uint16_t)(uint32_t)(ha + hb))
M(m_sub16, (uint16_t)((uint32_t)ha - hb))
M(m_add64, A + B)
M(m_sub64, A - B)
static uint64_t sat32(int64_t v) { return (uint32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v); }
M(m_addsat, sat32((int64_t)s32(a) + s32(b)))
M(m_subsat, sat32((int64_t)s32(a) - s32(b)))
/* mul */
M(m_mullo32, (uint32_t)(a * b))
M(m_mulhi_u32, (uint32_t)(((uint64_t)a * b) >> 32))
M(m_mulhi_s32, (uint32_t)((uint64_t)((int64_t)s32(a) * s32(b)) >> 32))
M(m_mulwide_u32, (uint64_t)a * b)
M(m_mulwide_s32, (uint64_t)((int64_t)s32(a) * s32(b)))
M(m_mullo16, (uint16_t)((uint32_t)ha * hb))
M(m_mulhi_u16, (uint16_t)(((uint32_t)ha * hb) >> 16))
M(m_mulhi_s16, (uint16_t)((uint32_t)(s16(ha) * s16(hb)) >> 16))
M(m_mulwide_u16, (uint32_t)ha * hb)
M(m_mulwide_s16, (uint32_t)(s16(ha) * s16(hb)))
M(m_mullo64, A * B)
M(m_mulhi_u64, mulhi_u64(A, B))
M(m_mulhi_s64, mulhi_s64(A, B))
/* mad */
M(m_madlo32, (uint32_t)(a * b + c))
M(m_madhi_u32, (uint32_t)((((uint64_t)a * b) >> 32) + c))
M(m_madhi_s32, (uint32_t)(((uint64_t)((int64_t)s32(a) * s32(b)) >> 32) + c))
M(m_madwide_u32, (uint64_t)a * b + C)
M(m_madwide_s32, (uint64_t)((int64_t)s32(a) * s32(b)) + C)
M(m_madwide_s16, (uint32_t)((uint32_t)(s16(ha) * s16(hb)) + c))
M(m_madlo64, A * B + C)
M(m_madhi_u64, mulhi_u64(A, B) + C)
M(m_madhi_s64, mulhi_s64(A, B) + C)
/* div / rem: b == 0 gives all ones for both (H200 measurement), MIN / -1 = MIN rem 0 */
M(m_div_u32, b ? a / b : 0xffffffffu)
M(m_rem_u32, b ? a % b : 0xffffffffu)
M(m_div_s32, !b ? 0xffffffffu : (a == 0x80000000u && b == 0xffffffffu) ? 0x80000000u : (uint32_t)(s32(a) / s32(b)))
M(m_rem_s32, !b ? 0xffffffffu : (a == 0x80000000u && b == 0xffffffffu) ? 0u : (uint32_t)(s32(a) % s32(b)))
M(m_div_u64, B ? A / B : ~0ull)
M(m_rem_u64, B ? A % B : ~0ull)
M(m_div_s64, !B ? ~0ull : (A == 0x8000000000000000ull && B == ~0ull) ? A : (uint64_t)(s64(A) / s64(B)))
M(m_rem_s64, !B ? ~0ull : (A == 0x8000000000000000ull && B == ~0ull) ? 0 : (uint64_t)(s64(A) % s64(B)))
M(m_div_u16, hb ? (uint16_t)(ha / hb) : 0xffffu)
M(m_rem_u16, hb ? (uint16_t)(ha % hb) : 0xffffu)
M(m_div_s16, !hb ? 0xffffu : (uint16_t)(uint32_t)(s16(ha) / s16(hb)))
M(m_rem_s16, !hb ? 0xffffu : (uint16_t)(uint32_t)(s16(ha) % s16(hb)))
/* min / max */
M(m_min_u32, a < b ? a : b)
M(m_max_u32, a > b ? a : b)
M(m_min_s32, s32(a) < s32(b) ? a : b)
M(m_max_s32, s32(a) > s32(b) ? a : b)
M(m_min_u64, A < B ? A : B)
M(m_max_s64, s64(A) > s64(B) ? A : B)
M(m_min_s64, s64(A) < s64(B) ? A : B)
M(m_min_s16, s16(ha) < s16(hb) ? ha : hb)
M(m_max_u16, ha > hb ? ha : hb)
/* unary */
M(m_abs_s32, (a & 0x80000000u) ? (uint32_t)(0u - a) : a)
M(m_neg_s32, (uint32_t)(0u - a))
M(m_abs_s64, (A >> 63) ? 0 - A : A)
M(m_neg_s64, 0 - A)
M(m_abs_s16, (ha & 0x8000u) ? (uint16_t)(0x10000u - ha) : ha)
M(m_neg_s16, (uint16_t)(0x10000u - ha))
M(m_not32, (uint32_t)~a)
M(m_not64, ~A)
M(m_cnot32, a == 0)
M(m_cnot16, ha == 0)
M(m_and32, a & b)
M(m_or32, a | b)
M(m_xor32, a ^ b)
M(m_and64, A & B)
M(m_or64, A | B)
M(m_xor64, A ^ B)
M(m_xor16, (uint16_t)(ha ^ hb))
M(m_dec32, (uint32_t)(a - 1))
M(m_zero, 0)
M(m_sign32, (a >> 31) ? 0xffffffffu : 0)
M(m_neg_s32_sext, sext32((uint32_t)(0u - a)))
M(m_neg_s32_twice, ((uint64_t)(uint32_t)(0u - a) << 32) | (uint32_t)(0u - a))
/* shifts: the amount is a full .u32 for every type; amounts >= width give 0 / the sign fill */
M(m_shl32, b >= 32 ? 0 : (uint32_t)(a << b))
M(m_shr_u32, b >= 32 ? 0 : a >> b)
M(m_shr_s32, b >= 32 ? ((a >> 31) ? 0xffffffffu : 0) : (uint32_t)((a >> b) | ((a >> 31) && b ? ~(0xffffffffu >> b) : 0)))
M(m_shl64, b >= 64 ? 0 : A << b)
M(m_shr_u64, b >= 64 ? 0 : A >> b)
M(m_shr_s64, b >= 64 ? ((A >> 63) ? ~0ull : 0) : (A >> b) | ((A >> 63) && b ? ~(~0ull >> b) : 0))
M(m_shl16, b >= 16 ? 0 : (uint16_t)((uint32_t)ha << b))
M(m_shr_u16, b >= 16 ? 0 : (uint16_t)(ha >> b))
M(m_shr_s16, b >= 16 ? ((ha >> 15) ? 0xffffu : 0) : (uint16_t)((ha >> b) | ((ha >> 15) && b ? (0xffffu << (16 - b)) : 0)))
/* mul24 / mad24 */
static int64_t s24(uint32_t x) { x &= 0xffffff; return (x & 0x800000u) ? (int64_t)x - 0x1000000 : (int64_t)x; }
M(m_mul24lo_u32, (uint32_t)((uint64_t)(a & 0xffffff) * (b & 0xffffff)))
M(m_mul24hi_u32, (uint32_t)(((uint64_t)(a & 0xffffff) * (b & 0xffffff)) >> 16))
M(m_mul24lo_s32, (uint32_t)(uint64_t)(s24(a) * s24(b)))
M(m_mul24hi_s32, (uint32_t)((uint64_t)(s24(a) * s24(b)) >> 16))
M(m_mad24lo_u32, (uint32_t)((uint32_t)((uint64_t)(a & 0xffffff) * (b & 0xffffff)) + c))
M(m_mad24hi_s32, (uint32_t)((uint32_t)((uint64_t)(s24(a) * s24(b)) >> 16) + c))

/* bit counts by loops */
static uint64_t popc_n(uint64_t v, int w) {
  uint64_t n = 0;
  for (int i = 0; i < w; i++) n += (v >> i) & 1;
  return n;
}
static uint64_t clz_n(uint64_t v, int w) {
  uint64_t n = 0;
  for (int i = w - 1; i >= 0 && !((v >> i) & 1); i--) n++;
  return n;
}
static uint64_t brev_n(uint64_t v, int w) {
  uint64_t r = 0;
  for (int i = 0; i < w; i++)
    if ((v >> i) & 1) r |= 1ull << (w - 1 - i);
  return r;
}
/* PTX ISA "bfind" pseudocode */
static uint64_t bfind_n(uint64_t a, int w, int sgn, int shiftamt) {
  int msb = w - 1;
  if (w == 32) a &= 0xffffffffu;
  if (sgn && ((a >> msb) & 1)) a = ~a & (w == 32 ? 0xffffffffull : ~0ull);
  uint32_t d = 0xffffffffu;
  for (int i = msb; i >= 0; i--)
    if ((a >> i) & 1) { d = (uint32_t)i; break; }
  if (shiftamt && d != 0xffffffffu) d = (uint32_t)msb - d;
  return d;
}
M(m_popc32, popc_n(a, 32))
M(m_popc64, popc_n(A, 64))
M(m_clz32, clz_n(a, 32))
M(m_clz64, clz_n(A, 64))
M(m_brev32, brev_n(a, 32))
M(m_brev64, brev_n(A, 64))
M(m_bfind_u32, bfind_n(A, 32, 0, 0))
M(m_bfind_s32, bfind_n(A, 32, 1, 0))
M(m_bfind_u64, bfind_n(A, 64, 0, 0))
M(m_bfind_s64, bfind_n(A, 64, 1, 0))
M(m_bfind_sa_u32, bfind_n(A, 32, 0, 1))
M(m_bfind_sa_s32, bfind_n(A, 32, 1, 1))
M(m_bfind_sa_u64, bfind_n(A, 64, 0, 1))
M(m_bfind_sa_s64, bfind_n(A, 64, 1, 1))

/* carry chains */
M(m_sum64, A + B)
M(m_carry64, (A + B < A) ? 1 : 0)
M(m_diff64, A - B)
M(m_borrow64, A < B ? 0xffffffffu : 0)
static uint64_t carry128_hi(uint64_t A, uint64_t B, uint64_t C) { return C + C + (A + B < A ? 1 : 0); }
static uint64_t borrow128_hi(uint64_t A, uint64_t B, uint64_t C) { return C - C - (A < B ? 1 : 0); }
/* (a32 * b32 + C64) mod 2^64, and its carry out of 64 bits */
M(m_mad_chain, (uint64_t)a * b + C)
M(m_mad_chain_carry, ((uint64_t)a * b + C < C) ? 1 : 0)
/* 128-bit: hi(A*B) + C + carry(lo(A*B) + C) */
static uint64_t m_mad128_hi(uint64_t A, uint64_t B, uint64_t C) {
  uint64_t hi, lo;
  mul128(A, B, &hi, &lo);
  return hi + C + (lo + C < lo ? 1 : 0);
}
static uint64_t m_mad128_lo(uint64_t A, uint64_t B, uint64_t C) { return A * B + C; }

#define CROSS(snip, res, as, bs, c, f) wvt_check_cross(vm, snip, res, as, N(as), bs, N(bs), c, f)

/* ---- tests ------------------------------------------------------------------------------------ */

static void test_add_sub(void **state) {
  wv_vm *vm = *state;
  CROSS("add.u32 %d, %a, %b;", 'd', V32, V32, 0, m_add32);
  CROSS("add.s32 %d, %a, %b;", 'd', V32J, V32, 0, m_add32);
  CROSS("sub.u32 %d, %a, %b;", 'd', V32, V32, 0, m_sub32);
  CROSS("sub.s32 %d, %a, %b;", 'd', V32, V32J, 0, m_sub32);
  CROSS("add.u16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_add16);
  CROSS("sub.s16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_sub16);
  CROSS("add.s64 %D, %A, %B;", 'D', V64, V64, 0, m_add64);
  CROSS("sub.u64 %D, %A, %B;", 'D', V64, V64, 0, m_sub64);
  CROSS("add.sat.s32 %d, %a, %b;", 'd', V32, V32, 0, m_addsat);
  CROSS("sub.sat.s32 %d, %a, %b;", 'd', V32, V32, 0, m_subsat);
  /* immediate operands */
  static const uint64_t zero[] = {0};
  CROSS("add.u32 %d, %a, -1;", 'd', V32, zero, 0, m_dec32);
  CROSS("sub.u32 %d, %a, 1;", 'd', V32J, zero, 0, m_dec32);
}

static void test_mul(void **state) {
  wv_vm *vm = *state;
  CROSS("mul.lo.u32 %d, %a, %b;", 'd', V32, V32, 0, m_mullo32);
  CROSS("mul.lo.s32 %d, %a, %b;", 'd', V32J, V32, 0, m_mullo32);
  CROSS("mul.hi.u32 %d, %a, %b;", 'd', V32, V32, 0, m_mulhi_u32);
  CROSS("mul.hi.s32 %d, %a, %b;", 'd', V32, V32, 0, m_mulhi_s32);
  CROSS("mul.wide.u32 %D, %a, %b;", 'D', V32, V32, 0, m_mulwide_u32);
  CROSS("mul.wide.s32 %D, %a, %b;", 'D', V32, V32J, 0, m_mulwide_s32);
  CROSS("mul.lo.u16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_mullo16);
  CROSS("mul.hi.u16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_mulhi_u16);
  CROSS("mul.hi.s16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_mulhi_s16);
  CROSS("mul.wide.u16 %d, %ha, %hb;", 'd', V16, V16, 0, m_mulwide_u16);
  CROSS("mul.wide.s16 %d, %ha, %hb;", 'd', V16, V16, 0, m_mulwide_s16);
  CROSS("mul.lo.u64 %D, %A, %B;", 'D', V64, V64, 0, m_mullo64);
  CROSS("mul.hi.u64 %D, %A, %B;", 'D', V64, V64, 0, m_mulhi_u64);
  CROSS("mul.hi.s64 %D, %A, %B;", 'D', V64, V64, 0, m_mulhi_s64);
}

static void test_mad(void **state) {
  wv_vm *vm = *state;
  CROSS("mad.lo.u32 %d, %a, %b, %c;", 'd', V32, V32, 0x80000001u, m_madlo32);
  CROSS("mad.lo.s32 %d, %a, %b, %c;", 'd', V32, V32, 0xfffffff0u, m_madlo32);
  CROSS("mad.hi.u32 %d, %a, %b, %c;", 'd', V32, V32, 0xffffffffu, m_madhi_u32);
  CROSS("mad.hi.s32 %d, %a, %b, %c;", 'd', V32, V32, 5, m_madhi_s32);
  CROSS("mad.wide.u32 %D, %a, %b, %C;", 'D', V32, V32, 0xfffffffffffffff0ull, m_madwide_u32);
  CROSS("mad.wide.s32 %D, %a, %b, %C;", 'D', V32, V32, 0x8000000000000000ull, m_madwide_s32);
  CROSS("mad.wide.s16 %d, %ha, %hb, %c;", 'd', V16, V16, 0x7fffffffu, m_madwide_s16);
  CROSS("mad.lo.s64 %D, %A, %B, %C;", 'D', V64, V64, 0x0123456789abcdefull, m_madlo64);
  CROSS("mad.hi.u64 %D, %A, %B, %C;", 'D', V64, V64, 0xffffffffffffffffull, m_madhi_u64);
  CROSS("mad.hi.s64 %D, %A, %B, %C;", 'D', V64, V64, 3, m_madhi_s64);
}

/* 64-bit add and subtract out of 32-bit limbs (add.cc/addc.cc/addc, sub.cc/subc.cc/subc), the
 * carry / borrow out read with addc/subc of zeros. */
static void test_carry_chains_32(void **state) {
  wv_vm *vm = *state;
  static const char add_sum[] = "mov.b64 {%t0, %t1}, %A;\n mov.b64 {%t2, %t3}, %B;\n"
                                "add.cc.u32 %t4, %t0, %t2;\n addc.cc.u32 %t5, %t1, %t3;\n"
                                "mov.b64 %D, {%t4, %t5};";
  static const char add_carry[] = "mov.b64 {%t0, %t1}, %A;\n mov.b64 {%t2, %t3}, %B;\n"
                                  "add.cc.u32 %t4, %t0, %t2;\n addc.cc.u32 %t5, %t1, %t3;\n"
                                  "addc.u32 %d, 0, 0;";
  static const char sub_diff[] = "mov.b64 {%t0, %t1}, %A;\n mov.b64 {%t2, %t3}, %B;\n"
                                 "sub.cc.u32 %t4, %t0, %t2;\n subc.cc.u32 %t5, %t1, %t3;\n"
                                 "mov.b64 %D, {%t4, %t5};";
  static const char sub_borrow[] = "mov.b64 {%t0, %t1}, %A;\n mov.b64 {%t2, %t3}, %B;\n"
                                   "sub.cc.u32 %t4, %t0, %t2;\n subc.cc.u32 %t5, %t1, %t3;\n"
                                   "subc.u32 %d, 0, 0;";
  CROSS(add_sum, 'D', V64, V64, 0, m_sum64);
  CROSS(add_carry, 'd', V64, V64, 0, m_carry64);
  CROSS(sub_diff, 'D', V64, V64, 0, m_diff64);
  CROSS(sub_borrow, 'd', V64, V64, 0, m_borrow64);
  /* (a*b + C) as 64 bits from mad.lo.cc + madc.hi, and its carry out from madc.hi.cc + addc */
  static const char mad_chain[] = "mov.b64 {%t0, %t1}, %C;\n mad.lo.cc.u32 %t2, %a, %b, %t0;\n"
                                  "madc.hi.u32 %t3, %a, %b, %t1;\n mov.b64 %D, {%t2, %t3};";
  static const char mad_carry[] = "mov.b64 {%t0, %t1}, %C;\n mad.lo.cc.u32 %t2, %a, %b, %t0;\n"
                                  "madc.hi.cc.u32 %t3, %a, %b, %t1;\n addc.u32 %d, 0, 0;";
  uint64_t cs[] = {0, 1, 0xffffffffull, 0xffffffff00000000ull, 0xffffffffffffffffull, 0x8000000080000000ull};
  for (size_t i = 0; i < N(cs); i++) {
    CROSS(mad_chain, 'D', V32, V32, cs[i], m_mad_chain);
    CROSS(mad_carry, 'd', V32, V32, cs[i], m_mad_chain_carry);
  }
}

static void test_carry_chains_64(void **state) {
  wv_vm *vm = *state;
  /* 128-bit (C:A) + (C:B) and (C:A) - (C:B): only the high limbs are stored */
  CROSS("add.cc.u64 %T0, %A, %B;\n addc.u64 %D, %C, %C;", 'D', V64, V64, 0x4000000000000001ull, carry128_hi);
  CROSS("add.cc.s64 %T0, %A, %B;\n addc.s64 %D, %C, %C;", 'D', V64, V64, 0xffffffffffffffffull, carry128_hi);
  CROSS("sub.cc.u64 %T0, %A, %B;\n subc.u64 %D, %C, %C;", 'D', V64, V64, 77, borrow128_hi);
  /* 128-bit A*B + (C:C): low limb by mad.lo.cc.u64, high by madc.hi.u64 */
  CROSS("mad.lo.cc.u64 %D, %A, %B, %C;\n madc.hi.u64 %T1, %A, %B, %C;", 'D', V64, V64, 0xfffffffffffffff0ull, m_mad128_lo);
  CROSS("mad.lo.cc.u64 %T0, %A, %B, %C;\n madc.hi.u64 %D, %A, %B, %C;", 'D', V64, V64, 0xfffffffffffffff0ull, m_mad128_hi);
  CROSS("mad.lo.cc.u64 %T0, %A, %B, %C;\n madc.hi.u64 %D, %A, %B, %C;", 'D', V64, V64, 1, m_mad128_hi);
}

/* The carry flag lives until the next .cc instruction: plain arithmetic in between leaves it. */
static void test_carry_survives_plain_ops(void **state) {
  wv_vm *vm = *state;
  static const char snip[] = "mov.b64 {%t0, %t1}, %A;\n mov.b64 {%t2, %t3}, %B;\n"
                             "add.cc.u32 %t4, %t0, %t2;\n"
                             "add.u32 %t6, %t0, %t0;\n mul.lo.u32 %t7, %t6, %t6;\n sub.u32 %t6, %t7, 1;\n"
                             "addc.cc.u32 %t5, %t1, %t3;\n mov.b64 %D, {%t4, %t5};";
  CROSS(snip, 'D', V64, V64, 0, m_sum64);
  /* a predicated-off .cc instruction does not touch the flag */
  static const char pred[] = "mov.b64 {%t0, %t1}, %A;\n mov.b64 {%t2, %t3}, %B;\n"
                             "add.cc.u32 %t4, %t0, %t2;\n setp.ne.u32 %P0, %i, %i;\n"
                             "@%P0 add.cc.u32 %t7, 0xffffffff, 0xffffffff;\n"
                             "@%P0 sub.cc.u32 %t7, 0, 1;\n"
                             "addc.cc.u32 %t5, %t1, %t3;\n mov.b64 %D, {%t4, %t5};";
  CROSS(pred, 'D', V64, V64, 0, m_sum64);
}

/* A thread's carry flag starts at 0 (what a new thread's register holds), whatever the thread that ran before on
 * its worker left there: CTAs of odd index end with CF = 1 (0xffffffff + 1), those of even index skip their add.cc,
 * so their addc reads the flag it started with. A launch's warps take the frames of earlier CTAs' (sched.c
 * frame_new), so on one worker thread every even CTA but the first came after an odd one, and on two which did
 * depended on the threads' timing (engines.diff saw the engines differ in one lane). */
static void test_carry_starts_clear(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR
      ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<6>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
      "ld.param.u64 %rd0, [out];\nmov.u32 %r0, %ctaid.x;\nand.b32 %r1, %r0, 1;\nsetp.ne.u32 %p1, %r1, 0;\n"
      "addc.u32 %r2, 0, 0;\n" /* (the flag as the thread starts: read before any .cc instruction too) */
      "@%p1 add.cc.u32 %r3, 0xffffffff, 1;\naddc.u32 %r4, 0, 0;\nshl.b32 %r4, %r4, 1;\nor.b32 %r4, %r4, %r2;\n"
      "mov.u32 %r5, %tid.x;\nmad.lo.u32 %r5, %r0, 64, %r5;\nmul.wide.u32 %rd1, %r5, 4;\nadd.s64 %rd2, %rd0, %rd1;\n"
      "st.global.u32 [%rd2], %r4;\nret;\n}\n";
  for (unsigned threads = 1; threads <= 2; threads++)
    for (int e = 0; e < (wv_has_jit() ? 2 : 1); e++) {
      wv_config cfg = {0};
      cfg.threads = threads;
      cfg.engine = e ? "jit" : "interp";
      wv_vm *vm = wv_create(&cfg);
      assert_non_null(vm);
      const wv_kernel *k = wvt_kernel(vm, ptx, "k");
      static uint32_t out[64 * 64];
      memset(out, 0xff, sizeof out);
      wvt_buf b[] = {{out, sizeof out}};
      wvt_run_ok(vm, k, 64, 64, 1, b);
      for (uint32_t i = 0; i < 64 * 64; i++) /* odd CTAs: the carry out (bit 1); every thread: 0 at its start */
        if (out[i] != ((i / 64) & 1 ? 2u : 0u))
          fail_msg("%u threads, engine %s: thread %u of CTA %u: %u", threads, cfg.engine, i % 64, i / 64, out[i]);
      wv_destroy(vm);
    }
}

static void test_div_rem_32(void **state) {
  wv_vm *vm = *state;
  CROSS("div.u32 %d, %a, %b;", 'd', V32, V32, 0, m_div_u32);
  CROSS("rem.u32 %d, %a, %b;", 'd', V32, V32, 0, m_rem_u32);
  CROSS("div.s32 %d, %a, %b;", 'd', V32, V32, 0, m_div_s32);
  CROSS("rem.s32 %d, %a, %b;", 'd', V32, V32, 0, m_rem_s32);
  CROSS("div.s32 %d, %a, %b;", 'd', V32J, V32J, 0, m_div_s32);
  /* the named corner cases, spelled out */
  wvt_case cs[] = {
      {0x80000000u, 0xffffffffu, 0, 0x80000000u}, /* INT_MIN / -1 = INT_MIN */
      {7, 0, 0, 0xffffffffu},                     /* x / 0 = all ones */
      {0xfffffff9u, 0, 0, 0xffffffffu},           /* -7 / 0 */
      {0, 0, 0, 0xffffffffu},                     /* 0 / 0 */
      {0xfffffff9u, 2, 0, 0xfffffffdu},           /* -7 / 2 = -3 (truncation) */
      {7, 0xfffffffeu, 0, 0xfffffffdu},           /* 7 / -2 = -3 */
  };
  wvt_check_ops(vm, "div.s32 %d, %a, %b;", 'd', cs, N(cs));
  wvt_case rs[] = {
      {0x80000000u, 0xffffffffu, 0, 0},           /* INT_MIN % -1 = 0 */
      {7, 0, 0, 0xffffffffu},                     /* x % 0 = all ones */
      {0xfffffff9u, 0, 0, 0xffffffffu},
      {0xfffffff9u, 2, 0, 0xffffffffu},           /* -7 % 2 = -1 (sign of the dividend) */
      {7, 0xfffffffeu, 0, 1},                     /* 7 % -2 = 1 */
  };
  wvt_check_ops(vm, "rem.s32 %d, %a, %b;", 'd', rs, N(rs));
  wvt_case us[] = {{5, 0, 0, 0xffffffffu}, {0xffffffffu, 0, 0, 0xffffffffu}};
  wvt_check_ops(vm, "div.u32 %d, %a, %b;", 'd', us, N(us));
  wvt_check_ops(vm, "rem.u32 %d, %a, %b;", 'd', us, N(us));
}

static void test_div_rem_64(void **state) {
  wv_vm *vm = *state;
  CROSS("div.u64 %D, %A, %B;", 'D', V64, V64, 0, m_div_u64);
  CROSS("rem.u64 %D, %A, %B;", 'D', V64, V64, 0, m_rem_u64);
  CROSS("div.s64 %D, %A, %B;", 'D', V64, V64, 0, m_div_s64);
  CROSS("rem.s64 %D, %A, %B;", 'D', V64, V64, 0, m_rem_s64);
  wvt_case cs[] = {
      {0x8000000000000000ull, ~0ull, 0, 0x8000000000000000ull},
      {12345, 0, 0, ~0ull},
      {0xfffffffffffffff9ull, 0, 0, ~0ull},
  };
  wvt_check_ops(vm, "div.s64 %D, %A, %B;", 'D', cs, N(cs));
  wvt_case rs[] = {
      {0x8000000000000000ull, ~0ull, 0, 0},
      {12345, 0, 0, ~0ull},
      {0xfffffffffffffff9ull, 0, 0, ~0ull},
  };
  wvt_check_ops(vm, "rem.s64 %D, %A, %B;", 'D', rs, N(rs));
}

static void test_div_rem_16(void **state) {
  wv_vm *vm = *state;
  CROSS("div.u16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_div_u16);
  CROSS("rem.u16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_rem_u16);
  CROSS("div.s16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_div_s16);
  CROSS("rem.s16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_rem_s16);
  /* -32768 / -1 wraps to -32768, remainder 0 (the model: 32768 truncated to 16 bits) */
  wvt_case cs[] = {{0x8000, 0xffff, 0, 0x8000}, {3, 0, 0, 0xffff}};
  wvt_check_ops(vm, "div.s16 %hd, %ha, %hb;", 'h', cs, N(cs));
  wvt_case rs[] = {{0x8000, 0xffff, 0, 0}, {3, 0, 0, 0xffff}};
  wvt_check_ops(vm, "rem.s16 %hd, %ha, %hb;", 'h', rs, N(rs));
}

static void test_min_max(void **state) {
  wv_vm *vm = *state;
  CROSS("min.u32 %d, %a, %b;", 'd', V32, V32, 0, m_min_u32);
  CROSS("max.u32 %d, %a, %b;", 'd', V32, V32, 0, m_max_u32);
  CROSS("min.s32 %d, %a, %b;", 'd', V32, V32, 0, m_min_s32);
  CROSS("max.s32 %d, %a, %b;", 'd', V32, V32J, 0, m_max_s32);
  CROSS("min.u64 %D, %A, %B;", 'D', V64, V64, 0, m_min_u64);
  CROSS("min.s64 %D, %A, %B;", 'D', V64, V64, 0, m_min_s64);
  CROSS("max.s64 %D, %A, %B;", 'D', V64, V64, 0, m_max_s64);
  CROSS("min.s16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_min_s16);
  CROSS("max.u16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_max_u16);
}

static void test_abs_neg_not(void **state) {
  wv_vm *vm = *state;
  static const uint64_t zero[] = {0};
  CROSS("abs.s32 %d, %a;", 'd', V32, zero, 0, m_abs_s32);
  CROSS("neg.s32 %d, %a;", 'd', V32J, zero, 0, m_neg_s32);
  CROSS("abs.s64 %D, %A;", 'D', V64, zero, 0, m_abs_s64);
  CROSS("neg.s64 %D, %A;", 'D', V64, zero, 0, m_neg_s64);
  CROSS("abs.s16 %hd, %ha;", 'h', V16, zero, 0, m_abs_s16);
  CROSS("neg.s16 %hd, %ha;", 'h', V16, zero, 0, m_neg_s16);
  CROSS("not.b32 %d, %a;", 'd', V32, zero, 0, m_not32);
  CROSS("not.b64 %D, %A;", 'D', V64, zero, 0, m_not64);
  CROSS("cnot.b32 %d, %a;", 'd', V32J, zero, 0, m_cnot32);
  CROSS("cnot.b16 %hd, %ha;", 'h', V16, zero, 0, m_cnot16);
  /* INT_MIN stays INT_MIN under abs and neg */
  wvt_case cs[] = {{0x80000000u, 0, 0, 0x80000000u}};
  wvt_check_ops(vm, "abs.s32 %d, %a;", 'd', cs, 1);
  wvt_check_ops(vm, "neg.s32 %d, %a;", 'd', cs, 1);
}

static void test_logic(void **state) {
  wv_vm *vm = *state;
  CROSS("and.b32 %d, %a, %b;", 'd', V32, V32J, 0, m_and32);
  CROSS("or.b32 %d, %a, %b;", 'd', V32, V32, 0, m_or32);
  CROSS("xor.b32 %d, %a, %b;", 'd', V32J, V32, 0, m_xor32);
  CROSS("and.b64 %D, %A, %B;", 'D', V64, V64, 0, m_and64);
  CROSS("or.b64 %D, %A, %B;", 'D', V64, V64, 0, m_or64);
  CROSS("xor.b64 %D, %A, %B;", 'D', V64, V64, 0, m_xor64);
  CROSS("xor.b16 %hd, %ha, %hb;", 'h', V16, V16, 0, m_xor16);
}

static void test_shifts(void **state) {
  wv_vm *vm = *state;
  CROSS("shl.b32 %d, %a, %b;", 'd', V32, SHIFTS, 0, m_shl32);
  CROSS("shr.u32 %d, %a, %b;", 'd', V32, SHIFTS, 0, m_shr_u32);
  CROSS("shr.s32 %d, %a, %b;", 'd', V32, SHIFTS, 0, m_shr_s32);
  CROSS("shr.b32 %d, %a, %b;", 'd', V32J, SHIFTS, 0, m_shr_u32);
  CROSS("shl.b64 %D, %A, %b;", 'D', V64, SHIFTS, 0, m_shl64);
  CROSS("shr.u64 %D, %A, %b;", 'D', V64, SHIFTS, 0, m_shr_u64);
  CROSS("shr.s64 %D, %A, %b;", 'D', V64, SHIFTS, 0, m_shr_s64);
  /* immediate amounts past the width */
  static const uint64_t zero[] = {0};
  CROSS("shl.b32 %d, %a, 40;", 'd', V32, zero, 0, m_zero);
  CROSS("shr.u32 %d, %a, 32;", 'd', V32, zero, 0, m_zero);
  CROSS("shr.s32 %d, %a, 1000;", 'd', V32, zero, 0, m_sign32);
  CROSS("shl.b64 %D, %A, 64;", 'D', V64, zero, 0, m_zero);
}

/* 16-bit shifts: the shift amount operand is .u32 for every type (PTX ISA "shl", "shr": "b is
 * always a .u32"), so an amount of 0x10001 is past the width and gives 0 / the sign fill. */
static void test_shifts_16(void **state) {
  wv_vm *vm = *state;
  CROSS("shl.b16 %hd, %ha, %b;", 'h', V16, SHIFTS, 0, m_shl16);
  CROSS("shr.u16 %hd, %ha, %b;", 'h', V16, SHIFTS, 0, m_shr_u16);
  CROSS("shr.s16 %hd, %ha, %b;", 'h', V16, SHIFTS, 0, m_shr_s16);
}

static void test_popc_clz_brev(void **state) {
  wv_vm *vm = *state;
  static const uint64_t zero[] = {0};
  CROSS("popc.b32 %d, %a;", 'd', V32J, zero, 0, m_popc32);
  CROSS("popc.b32 %d, %a;", 'd', V32, zero, 0, m_popc32);
  CROSS("popc.b64 %d, %A;", 'd', V64, zero, 0, m_popc64);
  CROSS("clz.b32 %d, %a;", 'd', V32, zero, 0, m_clz32);
  CROSS("clz.b32 %d, %a;", 'd', V32J, zero, 0, m_clz32);
  CROSS("clz.b64 %d, %A;", 'd', V64, zero, 0, m_clz64);
  CROSS("brev.b32 %d, %a;", 'd', V32, zero, 0, m_brev32);
  CROSS("brev.b64 %D, %A;", 'D', V64, zero, 0, m_brev64);
  /* random operands */
  uint64_t seed = 0x9e3779b97f4a7c15ull, rnd[200];
  for (size_t i = 0; i < N(rnd); i++) rnd[i] = wvt_rand(&seed) >> (i % 64);
  CROSS("popc.b64 %d, %A;", 'd', rnd, zero, 0, m_popc64);
  CROSS("clz.b64 %d, %A;", 'd', rnd, zero, 0, m_clz64);
  CROSS("brev.b64 %D, %A;", 'D', rnd, zero, 0, m_brev64);
  CROSS("brev.b32 %d, %a;", 'd', rnd, zero, 0, m_brev32);
}

static void test_bfind(void **state) {
  wv_vm *vm = *state;
  static const uint64_t zero[] = {0};
  CROSS("bfind.u32 %d, %a;", 'd', V32, zero, 0, m_bfind_u32);
  CROSS("bfind.s32 %d, %a;", 'd', V32, zero, 0, m_bfind_s32);
  CROSS("bfind.u64 %d, %A;", 'd', V64, zero, 0, m_bfind_u64);
  CROSS("bfind.s64 %d, %A;", 'd', V64, zero, 0, m_bfind_s64);
  CROSS("bfind.shiftamt.u32 %d, %a;", 'd', V32, zero, 0, m_bfind_sa_u32);
  CROSS("bfind.shiftamt.s32 %d, %a;", 'd', V32J, zero, 0, m_bfind_sa_s32);
  CROSS("bfind.shiftamt.u64 %d, %A;", 'd', V64, zero, 0, m_bfind_sa_u64);
  CROSS("bfind.shiftamt.s64 %d, %A;", 'd', V64, zero, 0, m_bfind_sa_s64);
  /* spelled out: no non-sign bit gives 0xffffffff, also with .shiftamt */
  wvt_case cs[] = {{0, 0, 0, 0xffffffffu}, {0xffffffffu, 0, 0, 0xffffffffu}, {1, 0, 0, 0}, {0x40000000u, 0, 0, 30},
                   {0xbfffffffu, 0, 0, 30}};
  wvt_check_ops(vm, "bfind.s32 %d, %a;", 'd', cs, N(cs));
  wvt_case sa[] = {{0, 0, 0, 0xffffffffu}, {1, 0, 0, 31}, {0x80000000u, 0, 0, 0}};
  wvt_check_ops(vm, "bfind.shiftamt.u32 %d, %a;", 'd', sa, N(sa));
}

static void test_mul24_mad24(void **state) {
  wv_vm *vm = *state;
  static const uint64_t v24[] = {0, 1, 2, 0x7fffff, 0x800000, 0xffffff, 0x1000000, 0xff800001, 0x123456, 0xfffffffe,
                                 0xabcdef, 0x5a5a5a5a};
  CROSS("mul24.lo.u32 %d, %a, %b;", 'd', v24, v24, 0, m_mul24lo_u32);
  CROSS("mul24.hi.u32 %d, %a, %b;", 'd', v24, v24, 0, m_mul24hi_u32);
  CROSS("mul24.lo.s32 %d, %a, %b;", 'd', v24, v24, 0, m_mul24lo_s32);
  CROSS("mul24.hi.s32 %d, %a, %b;", 'd', v24, v24, 0, m_mul24hi_s32);
  CROSS("mad24.lo.u32 %d, %a, %b, %c;", 'd', v24, v24, 0xfffffff0u, m_mad24lo_u32);
  CROSS("mad24.hi.s32 %d, %a, %b, %c;", 'd', v24, v24, 0x10u, m_mad24hi_s32);
  /* spelled out: 0xffffff * 0xffffff = 0xfffffe000001 */
  wvt_case cs[] = {{0xffffff, 0xffffff, 0, 0xfffffe00u}};
  wvt_check_ops(vm, "mul24.hi.u32 %d, %a, %b;", 'd', cs, 1);
  wvt_case cl[] = {{0xffffff, 0xffffff, 0, 0xfe000001u}};
  wvt_check_ops(vm, "mul24.lo.u32 %d, %a, %b;", 'd', cl, 1);
}

/* Results written by 32-bit signed instructions and read back as 64 bits through cvt follow the
 * instruction type; storing the upper half of a sign-extended result must not leak. */
static void test_width_reuse(void **state) {
  wv_vm *vm = *state;
  static const uint64_t zero[] = {0};
  static const uint64_t neg[] = {0xfffffff9u, 0x80000000u, 5};
  CROSS("neg.s32 %d, %a;\n cvt.u64.u32 %D, %d;", 'D', neg, zero, 0, m_neg_s32);
  CROSS("sub.s32 %d, 0, %a;\n cvt.s64.s32 %D, %d;", 'D', neg, zero, 0, m_neg_s32_sext);
  CROSS("mul.lo.s32 %d, %a, -1;\n mov.b64 %D, {%d, %d};", 'D', neg, zero, 0, m_neg_s32_twice);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_add_sub, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_mul, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_mad, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_carry_chains_32, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_carry_chains_64, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_carry_survives_plain_ops, wvt_setup, wvt_teardown),
      cmocka_unit_test(test_carry_starts_clear),
      cmocka_unit_test_setup_teardown(test_div_rem_32, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_div_rem_64, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_div_rem_16, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_min_max, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_abs_neg_not, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_logic, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_shifts, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_shifts_16, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_popc_clz_brev, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_bfind, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_mul24_mad24, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_width_reuse, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
