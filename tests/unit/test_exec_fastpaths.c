/*
 * test_exec_fastpaths.c — the handlers the decoder specialises to the host's own arithmetic (h_cvt.c,
 * h_float.c: integer↔float conversions, rounding to integral, f32↔f64, round-to-nearest f32/f64
 * arithmetic with and without .ftz) give, lane by lane, exactly what fpmath's rounding engine gives
 * for the same instruction (wv_fp_cvt, wv_fp__arith_f32/_f64: the exact slow paths, checked against
 * H200 recordings by test_fpmath.c and the corpus). The inputs are the edge cases of each conversion
 * (ties, the ends of every integer range, NaN payloads, subnormals, the .ftz boundary 2^-126) and
 * random bit patterns, so a host conversion that rounds, clamps or handles a NaN differently shows up.
 * Also mad.lo / mad.wide, specialised away from the carry-chain handler, against C.
 */
#include <math.h>

#include "exec/fpmath.h"
#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NCASES 1000

/* Operands: fixed edge values first, then random bit patterns of every magnitude. */
static const uint64_t EDGE_INT[] = {
    0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000u, 0xffffffffu, 0x1000001,
    0x1000003, 0xffffff, 0x20000000000001ull, 0x20000000000003ull, 0x1fffffffffffffull, 0x7fffffffffffffffull,
    0x8000000000000000ull, 0xffffffffffffffffull, 0x8000008000000000ull, 0x8000008000000001ull,
    0xffffff7fffffffffull, 0xffffff8000000000ull, 0x8000000000000400ull, 0x8000000000000401ull,
    0xfffffffffffffc00ull, 0xfffffffffffffbffull, 0xfffffffffffffffeull, (uint64_t)-16777217, (uint64_t)-5,
    0xffffffff80000000ull, 0x00000000ffffff80ull, 0x00000000ffffff7full};
static const uint64_t EDGE_F32[] = {
    0, 0x80000000u, 1, 0x80000001u, 0x007fffffu, 0x807fffffu, 0x00800000u, 0x80800000u, 0x3f000000u, 0xbf000000u,
    0x3fc00000u, 0xbfc00000u, 0x40200000u, 0xc0200000u, 0xbe99999au, 0x3f800000u, 0x4f000000u, 0xcf000000u,
    0x4effffffu, 0xceffffffu, 0x4f800000u, 0x4f7fffffu, 0x5f000000u, 0xdf000000u, 0x5f800000u, 0x5effffffu,
    0xdeffffffu, 0x4b000001u, 0x4b7fffffu, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
    0xffc00000u, 0x7f800001u, 0xff800123u, 0x7fffffffu, 0x7fa00000u, 0x3f7fffffu, 0xbf7fffffu, 0x3f800001u};
static const uint64_t EDGE_F64[] = {
    0, 0x8000000000000000ull, 1, 0x800fffffffffffffull, 0x0010000000000000ull, 0x3fe0000000000000ull,
    0xbfe0000000000000ull, 0x3ff8000000000000ull, 0xc004000000000000ull, 0xbfd3333333333333ull,
    0x41dfffffffc00000ull, 0xc1e0000000000000ull, 0xc1e0000000200000ull, 0x41e0000000000000ull,
    0x41efffffffe00000ull, 0x41f0000000000000ull, 0x43dfffffffffffffull, 0xc3e0000000000000ull,
    0x43e0000000000000ull, 0x43efffffffffffffull, 0x43f0000000000000ull, 0x4330000000000001ull,
    0x7fefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
    0xfff8000000000123ull, 0x7ff0000000000001ull, 0x7ff4000000000000ull, 0x47efffffe0000000ull,
    0x47efffffefffffffull, 0x47effffff0000000ull, 0x380fffffefffffffull, 0x380ffffff0000000ull,
    0x36a0000000000000ull, 0x3690000000000001ull, 0x3810000000000000ull, 0x37f0000000000001ull};

/* A random value whose significant bits end at a random position (small integers and floats of every
 * exponent both turn up). */
static uint64_t rand_bits(uint64_t *s) {
  uint64_t r = wvt_rand(s);
  return r >> (wvt_rand(s) % 64);
}
static uint64_t rand_float(uint64_t *s, int f64) {
  uint64_t r = wvt_rand(s);
  if (!f64) return r >> 32;
  return r;
}

static size_t operands(uint64_t *out, int kind, uint64_t seed) { /* kind: 0 int, 1 f32, 2 f64 */
  const uint64_t *e = kind == 0 ? EDGE_INT : kind == 1 ? EDGE_F32 : EDGE_F64;
  size_t ne = kind == 0 ? N(EDGE_INT) : kind == 1 ? N(EDGE_F32) : N(EDGE_F64), n = 0;
  for (size_t i = 0; i < ne; i++) out[n++] = e[i];
  if (kind == 0)
    for (size_t i = 0; i < ne; i++) out[n++] = (uint64_t)0 - e[i];
  uint64_t s = seed;
  while (n < NCASES) out[n++] = kind == 0 ? rand_bits(&s) : rand_float(&s, kind == 2);
  return n;
}

/* ---- cvt ---------------------------------------------------------------------------------------- */

typedef struct ty {
  const char *name;
  wv_fp_type fp;
  int bits, is_float;
} ty;
static const ty TYPES[] = {{"u8", WV_FP_U8, 8, 0},     {"u16", WV_FP_U16, 16, 0}, {"u32", WV_FP_U32, 32, 0},
                           {"u64", WV_FP_U64, 64, 0},  {"s8", WV_FP_S8, 8, 0},    {"s16", WV_FP_S16, 16, 0},
                           {"s32", WV_FP_S32, 32, 0},  {"s64", WV_FP_S64, 64, 0}, {"f32", WV_FP_F32, 32, 1},
                           {"f64", WV_FP_F64, 64, 1}};

/* the harness register of a type as source or destination, and the result kind stored */
static const char *src_reg(const ty *t) {
  if (t->is_float) return t->bits == 32 ? "%fa" : "%ga";
  return t->bits <= 16 ? "%ha" : t->bits == 32 ? "%a" : "%A";
}
static const char *dst_reg(const ty *t, char *res) {
  if (t->is_float) return *res = t->bits == 32 ? 'f' : 'g', t->bits == 32 ? "%fd" : "%gd";
  *res = t->bits <= 16 ? 'h' : t->bits == 32 ? 'd' : 'D';
  return t->bits <= 16 ? "%hd" : t->bits == 32 ? "%d" : "%D";
}

/* cvt{.rnd}{.ftz}{.sat}.dst.src over the operands, against wv_fp_cvt. */
static void check_cvt(wv_vm *vm, const char *rnd, wv_fp_rnd r, unsigned flags, const ty *d, const ty *s) {
  static uint64_t ops[NCASES];
  static wvt_case cs[NCASES];
  size_t n = operands(ops, s->is_float ? (s->bits == 32 ? 1 : 2) : 0, 0x9e3779b97f4a7c15ull ^ (uint64_t)d->fp << 8 ^ s->fp);
  char res, snip[96];
  const char *dr = dst_reg(d, &res);
  uint64_t keep = res == 'h' ? 0xffff : res == 'd' || res == 'f' ? 0xffffffffu : ~(uint64_t)0;
  for (size_t i = 0; i < n; i++) {
    uint64_t a = s->bits == 64 ? ops[i] : ops[i] & ((1ull << s->bits) - 1);
    if (s->bits == 8) a &= 0xff; /* the harness loads 16 bits; cvt reads the low 8 */
    cs[i] = (wvt_case){a, 0, 0, wv_fp_cvt(a, d->fp, s->fp, r, flags) & keep};
  }
  snprintf(snip, sizeof snip, "cvt%s%s%s.%s.%s %s, %s;", rnd, flags & WV_FP_FTZ ? ".ftz" : "",
           flags & WV_FP_SAT ? ".sat" : "", d->name, s->name, dr, src_reg(s));
  wvt_check_ops(vm, snip, res, cs, n);
}

static void test_cvt_int_int(void **state) {
  for (int d = 0; d < 8; d++)
    for (int s = 0; s < 8; s++) check_cvt(*state, "", WV_FP_RN, 0, &TYPES[d], &TYPES[s]);
}

static void test_cvt_int_float(void **state) {
  static const char *const rn[] = {".rn", ".rz", ".rm", ".rp"};
  for (int d = 8; d < 10; d++)
    for (int s = 0; s < 8; s++)
      for (int m = 0; m < 4; m++) {
        check_cvt(*state, rn[m], (wv_fp_rnd)m, 0, &TYPES[d], &TYPES[s]);
        if (d == 8 && m == 0) check_cvt(*state, rn[m], WV_FP_RN, WV_FP_FTZ, &TYPES[d], &TYPES[s]);
      }
}

static void test_cvt_float_int(void **state) {
  static const char *const ri[] = {".rni", ".rzi", ".rmi", ".rpi"};
  for (int s = 8; s < 10; s++)
    for (int d = 0; d < 8; d++)
      for (int m = 0; m < 4; m++) {
        check_cvt(*state, ri[m], (wv_fp_rnd)m, 0, &TYPES[d], &TYPES[s]);
        if (s == 8) check_cvt(*state, ri[m], (wv_fp_rnd)m, WV_FP_FTZ, &TYPES[d], &TYPES[s]);
      }
}

static void test_cvt_float_float(void **state) {
  static const char *const ri[] = {".rni", ".rzi", ".rmi", ".rpi"};
  const ty *f32 = &TYPES[8], *f64 = &TYPES[9];
  for (unsigned fl = 0; fl < 4; fl++) { /* .ftz, .sat */
    unsigned flags = (fl & 1 ? WV_FP_FTZ : 0) | (fl & 2 ? WV_FP_SAT : 0);
    check_cvt(*state, "", WV_FP_RN, flags, f32, f32);
    check_cvt(*state, "", WV_FP_RN, flags, f64, f32);
    check_cvt(*state, ".rn", WV_FP_RN, flags, f32, f64);
    for (int m = 0; m < 4; m++) {
      check_cvt(*state, ri[m], (wv_fp_rnd)m, flags | WV_FP_INTRND, f32, f32);
      if (!(flags & WV_FP_FTZ)) check_cvt(*state, ri[m], (wv_fp_rnd)m, flags | WV_FP_INTRND, f64, f64);
    }
  }
}

/* ---- round-to-nearest arithmetic ------------------------------------------------------------- */

/* f32 operands that put sums, products and quotients on both sides of 2^-126 (the .ftz boundary),
 * then random ones */
static void f32_triples(uint64_t (*t)[3], size_t n, uint64_t seed) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    uint32_t v[3];
    for (int k = 0; k < 3; k++) {
      uint64_t r = wvt_rand(&s);
      int e;
      switch (i % 4) {
      case 0: e = (int)(r % 7) - 66; break;           /* around 2^-63: products near 2^-126 */
      case 1: e = (int)(r % 5) - 128; break;          /* near and below the smallest normal */
      case 2: e = (int)(r % 60) - 30; break;
      default: e = (int)(r % 256) - 127; break;
      }
      uint32_t biased = e < -126 ? 0 : (uint32_t)(e + 127);
      v[k] = (uint32_t)(r >> 63) << 31 | biased << 23 | ((uint32_t)(r >> 20) & 0x7fffffu);
      if (i % 16 == 15) v[k] = (uint32_t)(r >> 32); /* NaN and inf patterns too */
    }
    if (i % 4 == 0 && i % 8 == 4) v[1] = v[1] ^ 0x80000000u;
    for (int k = 0; k < 3; k++) t[i][k] = v[k];
  }
  /* exact boundary cases: 2^-126 itself, and products rounding up to it */
  static const uint32_t fix[][3] = {{0x00800000u, 0x3f800000u, 0}, {0x3f7fffffu, 0x00800000u, 0},
                                    {0x3f800001u, 0x007fffffu, 0}, {0x1f800000u, 0x1f800000u, 0x80000000u},
                                    {0x1f7fffffu, 0x1f800001u, 0}, {0x00800000u, 0x80000001u, 0}};
  for (size_t i = 0; i < N(fix) && i < n; i++)
    for (int k = 0; k < 3; k++) t[i][k] = fix[i][k];
}

static void check_f32(wv_vm *vm, const char *snip, int op, unsigned flags) {
  static uint64_t t[NCASES][3];
  static wvt_case cs[NCASES];
  f32_triples(t, NCASES, 0x1234567ull + (uint64_t)op);
  for (size_t i = 0; i < NCASES; i++)
    cs[i] = (wvt_case){t[i][0], t[i][1], t[i][2],
                       wv_fp__arith_f32(op, (uint32_t)t[i][0], (uint32_t)t[i][1], (uint32_t)t[i][2], WV_FP_RN, flags)};
  wvt_check_ops(vm, snip, 'f', cs, NCASES);
}

static void test_f32_rn(void **state) {
  check_f32(*state, "add.rn.f32 %fd, %fa, %fb;", WV_FP__ADD, 0);
  check_f32(*state, "sub.f32 %fd, %fa, %fb;", WV_FP__SUB, 0);
  check_f32(*state, "mul.rn.f32 %fd, %fa, %fb;", WV_FP__MUL, 0);
  check_f32(*state, "div.rn.f32 %fd, %fa, %fb;", WV_FP__DIV, 0);
  check_f32(*state, "fma.rn.f32 %fd, %fa, %fb, %fc;", WV_FP__FMA, 0);
  check_f32(*state, "sqrt.rn.f32 %fd, %fa;", WV_FP__SQRT, 0);
  check_f32(*state, "rcp.rn.f32 %fd, %fa;", WV_FP__RCP, 0);
  check_f32(*state, "add.rn.ftz.f32 %fd, %fa, %fb;", WV_FP__ADD, WV_FP_FTZ);
  check_f32(*state, "sub.ftz.f32 %fd, %fa, %fb;", WV_FP__SUB, WV_FP_FTZ);
  check_f32(*state, "mul.rn.ftz.f32 %fd, %fa, %fb;", WV_FP__MUL, WV_FP_FTZ);
  check_f32(*state, "div.rn.ftz.f32 %fd, %fa, %fb;", WV_FP__DIV, WV_FP_FTZ);
  check_f32(*state, "fma.rn.ftz.f32 %fd, %fa, %fb, %fc;", WV_FP__FMA, WV_FP_FTZ);
}

static void check_f64(wv_vm *vm, const char *snip, int op) {
  static uint64_t ops[3][NCASES];
  static wvt_case cs[NCASES];
  for (int k = 0; k < 3; k++) operands(ops[k], 2, 77 + (uint64_t)k * 1000 + (uint64_t)op);
  for (size_t i = 0; i < NCASES; i++)
    cs[i] = (wvt_case){ops[0][i], ops[1][i], ops[2][i], wv_fp__arith_f64(op, ops[0][i], ops[1][i], ops[2][i], WV_FP_RN)};
  wvt_check_ops(vm, snip, 'g', cs, NCASES);
}

static void test_f64_rn(void **state) {
  check_f64(*state, "add.rn.f64 %gd, %ga, %gb;", WV_FP__ADD);
  check_f64(*state, "sub.f64 %gd, %ga, %gb;", WV_FP__SUB);
  check_f64(*state, "mul.rn.f64 %gd, %ga, %gb;", WV_FP__MUL);
  check_f64(*state, "div.rn.f64 %gd, %ga, %gb;", WV_FP__DIV);
  check_f64(*state, "fma.rn.f64 %gd, %ga, %gb, %gc;", WV_FP__FMA);
  check_f64(*state, "sqrt.rn.f64 %gd, %ga;", WV_FP__SQRT);
  check_f64(*state, "rcp.rn.f64 %gd, %ga;", WV_FP__RCP);
}

/* ---- integer mad ------------------------------------------------------------------------------- */

static uint64_t m_madlo_s32(uint64_t a, uint64_t b, uint64_t c) { return (uint32_t)((uint32_t)a * (uint32_t)b + (uint32_t)c); }
static uint64_t m_madlo_64(uint64_t a, uint64_t b, uint64_t c) { return a * b + c; }
static uint64_t m_madwide_s32(uint64_t a, uint64_t b, uint64_t c) { return (uint64_t)((int64_t)(int32_t)a * (int32_t)b) + c; }
static uint64_t m_madwide_u32(uint64_t a, uint64_t b, uint64_t c) { return (uint64_t)(uint32_t)a * (uint32_t)b + c; }

static void test_mad(void **state) {
  static uint64_t t[NCASES][3], ops[3][NCASES];
  for (int k = 0; k < 3; k++) operands(ops[k], 0, 5 + (uint64_t)k);
  for (size_t i = 0; i < NCASES; i++)
    for (int k = 0; k < 3; k++) t[i][k] = ops[k][(i * (k + 1) * 7) % NCASES];
  wvt_check_fn(*state, "mad.lo.s32 %d, %a, %b, %c;", 'd', t, NCASES, m_madlo_s32);
  wvt_check_fn(*state, "mad.lo.u32 %d, %a, %b, %c;", 'd', t, NCASES, m_madlo_s32);
  wvt_check_fn(*state, "mad.lo.s64 %D, %A, %B, %C;", 'D', t, NCASES, m_madlo_64);
  wvt_check_fn(*state, "mad.lo.u64 %D, %A, %B, %C;", 'D', t, NCASES, m_madlo_64);
  wvt_check_fn(*state, "mad.wide.s32 %D, %a, %b, %C;", 'D', t, NCASES, m_madwide_s32);
  wvt_check_fn(*state, "mad.wide.u32 %D, %a, %b, %C;", 'D', t, NCASES, m_madwide_u32);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cvt_int_int, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_cvt_int_float, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_cvt_float_int, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_cvt_float_float, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_f32_rn, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_f64_rn, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_mad, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
