/*
 * test_exec_float.c — floating point through the C API (PTX ISA §9.7.3 "Floating-Point
 * Instructions", §9.7.7 comparisons, §9.7.9.21 cvt):
 *   add/sub/mul in .rn/.rz/.rm/.rp against a software rounding model (an exact double result
 *   rounded to f32 by integer arithmetic on the scaled significand, gradual underflow and overflow
 *   included); fma/div cases whose correctly rounded results were derived by hand or with exact
 *   rational arithmetic; .ftz on subnormal inputs and results; .sat; the canonical f32 NaN
 *   0x7fffffff; min/max with NaN and signed zeros; setp with every comparison (ordered,
 *   unordered, num, nan) incl. the p|q form and .and/.or/.xor; selp; testp; cvt int<->float with
 *   rounding modes and saturation; cvt.rni/rzi/rmi/rpi on .5 ties.
 */
#include <math.h>

#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define F32_NAN 0x7fffffffu /* the canonical NaN every f32 arithmetic NaN must be */

static uint64_t fb(float f) { return wvt_f2u(f); }
static uint64_t db(double d) { return wvt_d2u(d); }

/* ---- software rounding model ------------------------------------------------------------------ */

enum { RN, RZ, RM, RP };
static const char *const RNAME[] = {"rn", "rz", "rm", "rp"};

/* Rounds x, which must be exactly the mathematical result (representable in a double), to f32 in
 * mode m. All double operations below are exact: ldexp by powers of two, floor, and the
 * difference of a number and its integer part. */
static uint32_t round_f32(double x, int m) {
  if (x == 0) return signbit(x) ? 0x80000000u : 0;
  int neg = x < 0;
  double a = neg ? -x : x;
  int e;
  (void)frexp(a, &e); /* a in [2^(e-1), 2^e) */
  int qe = e - 24;      /* quantum of a 24-bit significand */
  if (qe < -149) qe = -149; /* subnormal grid */
  double s = ldexp(a, -qe), fl = floor(s), fr = s - fl;
  int inc = 0;
  switch (m) {
  case RN: inc = fr > 0.5 || (fr == 0.5 && fmod(fl, 2.0) == 1.0); break;
  case RZ: inc = 0; break;
  case RM: inc = fr > 0 && neg; break;
  case RP: inc = fr > 0 && !neg; break;
  }
  double r = ldexp(fl + inc, qe);
  uint32_t bits;
  if (r >= 0x1p128) {
    int to_inf = m == RN || (m == RP && !neg) || (m == RM && neg);
    bits = to_inf ? 0x7f800000u : 0x7f7fffffu;
  } else {
    bits = wvt_f2u((float)r); /* exact: r is an f32 value */
  }
  return bits | (neg ? 0x80000000u : 0);
}

/* a random f32 with exponent in [elo, ehi] (unbiased; -127 means the subnormal range) */
static uint32_t rand_f32(uint64_t *s, int elo, int ehi) {
  uint64_t r = wvt_rand(s);
  int e = elo + (int)(r % (uint64_t)(ehi - elo + 1));
  uint32_t mant = (uint32_t)(r >> 20) & 0x7fffffu, sign = (uint32_t)(r >> 63) << 31;
  uint32_t biased = e <= -127 ? 0 : (uint32_t)(e + 127);
  if (biased == 0 && mant == 0) mant = 1;
  return sign | biased << 23 | mant;
}

static int g_op, g_mode; /* 0 add, 1 sub, 2 mul */
static uint64_t m_arith(uint64_t a, uint64_t b, uint64_t c) {
  (void)c;
  double x = wvt_u2f((uint32_t)a), y = wvt_u2f((uint32_t)b);
  double exact = g_op == 0 ? x + y : g_op == 1 ? x - y : x * y; /* exact in double for our operands */
  return round_f32(exact, g_mode);
}

static void sweep_cases(uint64_t (*t)[3], size_t n, int op, uint64_t seed) {
  for (size_t i = 0; i < n; i++) {
    uint32_t a, b;
    int cls = (int)(i % 4);
    for (;;) {
      if (op == 2) { /* mul: normal, overflowing, underflowing and subnormal-input products */
        if (cls == 0) a = rand_f32(&seed, -20, 20), b = rand_f32(&seed, -20, 20);
        else if (cls == 1) a = rand_f32(&seed, 60, 127), b = rand_f32(&seed, 40, 127);
        else if (cls == 2) a = rand_f32(&seed, -126, -80), b = rand_f32(&seed, -60, 0);
        else a = rand_f32(&seed, -127, -127), b = rand_f32(&seed, -5, 30);
      } else { /* add/sub: exponents at most 26 apart, so that the exact sum fits a double */
        int ea = cls == 1 ? 100 : cls == 2 ? -120 : 0, span = cls == 1 ? 27 : cls == 2 ? 6 : 20;
        a = rand_f32(&seed, ea - span, ea + span < 127 ? ea + span : 127);
        int eb = (int)((a >> 23) & 0xff) - 127;
        if (cls == 3) a = rand_f32(&seed, -127, -127), eb = -127;
        int lo = eb - 26 < -127 ? -127 : eb - 26, hi = eb + 26 > 127 ? 127 : eb + 26;
        if (eb <= -127) lo = -127, hi = -100;
        b = rand_f32(&seed, lo, hi);
      }
      double x = wvt_u2f(a), y = wvt_u2f(b);
      double ex = op == 0 ? x + y : op == 1 ? x - y : x * y;
      if (ex != 0) break; /* exact zeros (sign rules) are tested by hand */
    }
    t[i][0] = a;
    t[i][1] = b;
    t[i][2] = 0;
  }
}

static void test_add_sub_mul_rounding(void **state) {
  wv_vm *vm = *state;
  static const char *const ops[] = {"add", "sub", "mul"};
  static uint64_t t[512][3];
  char snip[64];
  for (int op = 0; op < 3; op++) {
    sweep_cases(t, N(t), op, 0x1234567ull + (uint64_t)op);
    for (int m = 0; m < 4; m++) {
      g_op = op;
      g_mode = m;
      snprintf(snip, sizeof snip, "%s.%s.f32 %%fd, %%fa, %%fb;", ops[op], RNAME[m]);
      wvt_check_fn(vm, snip, 'f', (const uint64_t(*)[3])t, N(t), m_arith);
    }
    /* no rounding modifier means .rn */
    g_op = op;
    g_mode = RN;
    snprintf(snip, sizeof snip, "%s.f32 %%fd, %%fa, %%fb;", ops[op]);
    wvt_check_fn(vm, snip, 'f', (const uint64_t(*)[3])t, N(t), m_arith);
  }
}

/* Cases derived by hand: 1 + 2^-24 is a tie, 1 + 3*2^-25 is above it. */
static void test_rounding_by_hand(void **state) {
  wv_vm *vm = *state;
  uint64_t one = fb(1.0f), h = fb(0x1p-24f), h3 = fb(0x1.8p-24f), one1 = fb(1.0f + 0x1p-23f);
  uint64_t up = 0x3f800001u, down = 0x3f800000u;
  wvt_case rn[] = {{one, h, 0, down}, {one, h3, 0, up}, {one1, h, 0, 0x3f800002u}, {fb(-1.0f), fb(-0x1p-24f), 0, 0xbf800000u}};
  wvt_check_ops(vm, "add.rn.f32 %fd, %fa, %fb;", 'f', rn, N(rn));
  wvt_case rz[] = {{one, h, 0, down}, {one, h3, 0, down}, {one1, h, 0, up}, {fb(-1.0f), fb(-0x1p-24f), 0, 0xbf800000u}};
  wvt_check_ops(vm, "add.rz.f32 %fd, %fa, %fb;", 'f', rz, N(rz));
  wvt_case rm[] = {{one, h, 0, down}, {one, h3, 0, down}, {fb(-1.0f), fb(-0x1p-24f), 0, 0xbf800001u}};
  wvt_check_ops(vm, "add.rm.f32 %fd, %fa, %fb;", 'f', rm, N(rm));
  wvt_case rp[] = {{one, h, 0, up}, {one, h3, 0, up}, {fb(-1.0f), fb(-0x1p-24f), 0, 0xbf800000u}};
  wvt_check_ops(vm, "add.rp.f32 %fd, %fa, %fb;", 'f', rp, N(rp));
  /* exact zero: x + (-x) is +0 except in .rm, where it is -0 (IEEE 754 §6.3) */
  wvt_case z[] = {{one, fb(-1.0f), 0, 0}, {fb(-0.0f), fb(-0.0f), 0, 0x80000000u}, {fb(0.0f), fb(-0.0f), 0, 0}};
  wvt_check_ops(vm, "add.rn.f32 %fd, %fa, %fb;", 'f', z, N(z));
  wvt_check_ops(vm, "add.rz.f32 %fd, %fa, %fb;", 'f', z, N(z));
  wvt_check_ops(vm, "add.rp.f32 %fd, %fa, %fb;", 'f', z, N(z));
  wvt_case zm[] = {{one, fb(-1.0f), 0, 0x80000000u}, {fb(-0.0f), fb(-0.0f), 0, 0x80000000u}, {fb(0.0f), fb(-0.0f), 0, 0x80000000u}};
  wvt_check_ops(vm, "add.rm.f32 %fd, %fa, %fb;", 'f', zm, N(zm));
  wvt_case sm[] = {{one, one, 0, 0x80000000u}};
  wvt_check_ops(vm, "sub.rm.f32 %fd, %fa, %fb;", 'f', sm, 1);
  /* overflow: max * 2 -> inf (rn, rp), max finite (rz, rm) */
  wvt_case ov_rn[] = {{0x7f7fffffu, fb(2.0f), 0, 0x7f800000u}, {0xff7fffffu, fb(2.0f), 0, 0xff800000u}};
  wvt_check_ops(vm, "mul.rn.f32 %fd, %fa, %fb;", 'f', ov_rn, N(ov_rn));
  wvt_case ov_rz[] = {{0x7f7fffffu, fb(2.0f), 0, 0x7f7fffffu}, {0xff7fffffu, fb(2.0f), 0, 0xff7fffffu}};
  wvt_check_ops(vm, "mul.rz.f32 %fd, %fa, %fb;", 'f', ov_rz, N(ov_rz));
  wvt_case ov_rm[] = {{0x7f7fffffu, fb(2.0f), 0, 0x7f7fffffu}, {0xff7fffffu, fb(2.0f), 0, 0xff800000u}};
  wvt_check_ops(vm, "mul.rm.f32 %fd, %fa, %fb;", 'f', ov_rm, N(ov_rm));
  /* f64: 1 + 2^-53 is a tie; (1+2^-52)^2 = 1 + 2^-51 + 2^-104 */
  uint64_t d1 = db(1.0), dh = db(0x1p-53), d52 = db(1.0 + 0x1p-52);
  wvt_case a64rn[] = {{d1, dh, 0, d1}};
  wvt_check_ops(vm, "add.rn.f64 %gd, %ga, %gb;", 'g', a64rn, 1);
  wvt_case a64rp[] = {{d1, dh, 0, db(1.0 + 0x1p-52)}};
  wvt_check_ops(vm, "add.rp.f64 %gd, %ga, %gb;", 'g', a64rp, 1);
  wvt_case a64rm[] = {{db(-1.0), db(-0x1p-53), 0, db(-1.0 - 0x1p-52)}};
  wvt_check_ops(vm, "add.rm.f64 %gd, %ga, %gb;", 'g', a64rm, 1);
  wvt_case m64[] = {{d52, d52, 0, 0x3ff0000000000002ull}};
  wvt_check_ops(vm, "mul.rn.f64 %gd, %ga, %gb;", 'g', m64, 1);
  wvt_check_ops(vm, "mul.rz.f64 %gd, %ga, %gb;", 'g', m64, 1);
  wvt_case m64p[] = {{d52, d52, 0, 0x3ff0000000000003ull}};
  wvt_check_ops(vm, "mul.rp.f64 %gd, %ga, %gb;", 'g', m64p, 1);
}

/* Quotients rounded with exact rational arithmetic when the test was written (e.g. 1/3 =
 * 0.0101...b: the bits after the 24th are 1010..., above half an ulp, so .rn rounds up). */
static void test_div_rounding(void **state) {
  wv_vm *vm = *state;
  static const struct {
    int n, d;
    uint32_t r[4]; /* rn rz rm rp */
  } q32[] = {
      {1, 3, {0x3eaaaaabu, 0x3eaaaaaau, 0x3eaaaaaau, 0x3eaaaaabu}},
      {-1, 3, {0xbeaaaaabu, 0xbeaaaaaau, 0xbeaaaaabu, 0xbeaaaaaau}},
      {2, 3, {0x3f2aaaabu, 0x3f2aaaaau, 0x3f2aaaaau, 0x3f2aaaabu}},
      {1, 10, {0x3dcccccdu, 0x3dccccccu, 0x3dccccccu, 0x3dcccccdu}},
      {10, 3, {0x40555555u, 0x40555555u, 0x40555555u, 0x40555556u}},
      {1, 7, {0x3e124925u, 0x3e124924u, 0x3e124924u, 0x3e124925u}},
      {-2, 3, {0xbf2aaaabu, 0xbf2aaaaau, 0xbf2aaaabu, 0xbf2aaaaau}},
      {6, 3, {0x40000000u, 0x40000000u, 0x40000000u, 0x40000000u}},
  };
  char snip[64];
  for (int m = 0; m < 4; m++) {
    wvt_case cs[N(q32) + 4];
    for (size_t i = 0; i < N(q32); i++) {
      cs[i].a = fb((float)q32[i].n);
      cs[i].b = fb((float)q32[i].d);
      cs[i].c = 0;
      cs[i].want = q32[i].r[m];
    }
    /* subnormal quotients: 2^-149 / 2 and 3*2^-149 / 2 are ties on the subnormal grid */
    static const uint32_t tie1[4] = {0, 0, 0, 1}, tie3[4] = {2, 1, 1, 2};
    cs[N(q32)] = (wvt_case){1, fb(2.0f), 0, tie1[m]};
    cs[N(q32) + 1] = (wvt_case){3, fb(2.0f), 0, tie3[m]};
    cs[N(q32) + 2] = (wvt_case){fb(1.0f), fb(0.0f), 0, 0x7f800000u};  /* 1/0 = inf */
    cs[N(q32) + 3] = (wvt_case){fb(-1.0f), fb(0.0f), 0, 0xff800000u}; /* -1/0 = -inf */
    snprintf(snip, sizeof snip, "div.%s.f32 %%fd, %%fa, %%fb;", RNAME[m]);
    wvt_check_ops(vm, snip, 'f', cs, N(cs));
  }
  static const struct {
    double n, d;
    uint64_t r[4];
  } q64[] = {
      {1, 3, {0x3fd5555555555555ull, 0x3fd5555555555555ull, 0x3fd5555555555555ull, 0x3fd5555555555556ull}},
      {-1, 3, {0xbfd5555555555555ull, 0xbfd5555555555555ull, 0xbfd5555555555556ull, 0xbfd5555555555555ull}},
      {2, 3, {0x3fe5555555555555ull, 0x3fe5555555555555ull, 0x3fe5555555555555ull, 0x3fe5555555555556ull}},
      {1, 10, {0x3fb999999999999aull, 0x3fb9999999999999ull, 0x3fb9999999999999ull, 0x3fb999999999999aull}},
  };
  for (int m = 0; m < 4; m++) {
    wvt_case cs[N(q64)];
    for (size_t i = 0; i < N(q64); i++) cs[i] = (wvt_case){db(q64[i].n), db(q64[i].d), 0, q64[i].r[m]};
    snprintf(snip, sizeof snip, "div.%s.f64 %%gd, %%ga, %%gb;", RNAME[m]);
    wvt_check_ops(vm, snip, 'g', cs, N(cs));
  }
}

/* fma rounds once: (1+2^-12)^2 - 1 = 2^-11 + 2^-24 exactly (mul then add would lose 2^-24). */
static void test_fma(void **state) {
  wv_vm *vm = *state;
  uint64_t x = fb(1.0f + 0x1p-12f), m1 = fb(-1.0f), one = fb(1.0f);
  for (int m = 0; m < 4; m++) {
    char snip[64];
    snprintf(snip, sizeof snip, "fma.%s.f32 %%fd, %%fa, %%fb, %%fc;", RNAME[m]);
    static const uint32_t tie_up[4] = {0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800001u};
    static const uint32_t ntie[4] = {0xbf800000u, 0xbf800000u, 0xbf800001u, 0xbf800000u};
    static const uint32_t zero[4] = {0, 0, 0x80000000u, 0}; /* exact cancellation */
    wvt_case cs[] = {
        {x, x, m1, 0x3a000400u},
        {one, one, fb(0x1p-24f), tie_up[m]},
        {m1, one, fb(-0x1p-24f), ntie[m]},
        {fb(2.0f), fb(3.0f), fb(-6.0f), zero[m]},
    };
    wvt_check_ops(vm, snip, 'f', cs, N(cs));
  }
  /* mad.rn.f32 is fma too */
  wvt_case cs[] = {{x, x, m1, 0x3a000400u}};
  wvt_check_ops(vm, "mad.rn.f32 %fd, %fa, %fb, %fc;", 'f', cs, 1);
  /* the unfused sequence gives 2^-11: a check that the harness can tell them apart */
  wvt_case un[] = {{x, x, m1, 0x3a000000u}};
  wvt_check_ops(vm, "mul.rn.f32 %f0, %fa, %fb;\n add.rn.f32 %fd, %f0, %fc;", 'f', un, 1);
  /* f64: (1+2^-30)^2 - 1 = 2^-29 + 2^-60 */
  uint64_t y = db(1.0 + 0x1p-30);
  wvt_case c64[] = {{y, y, db(-1.0), db(0x1p-29 + 0x1p-60)}, {db(2.0), db(3.0), db(-6.0), 0}};
  wvt_check_ops(vm, "fma.rn.f64 %gd, %ga, %gb, %gc;", 'g', c64, N(c64));
  wvt_case c64m[] = {{db(2.0), db(3.0), db(-6.0), 0x8000000000000000ull}};
  wvt_check_ops(vm, "fma.rm.f64 %gd, %ga, %gb, %gc;", 'g', c64m, 1);
}

/* .ftz: subnormal inputs and results become zero of the same sign. */
static void test_ftz(void **state) {
  wv_vm *vm = *state;
  uint64_t s140 = fb(0x1p-140f), s127 = 0x00400000u /* 2^-127 */;
  wvt_case add[] = {{s140, 0, 0, 0}, {s140 | 0x80000000u, 0x80000000u, 0, 0x80000000u}, {s140 | 0x80000000u, 0, 0, 0}, {1, 1, 0, 0}, {fb(1.0f), s140, 0, fb(1.0f)}};
  /* (-2^-140 flushes to -0, and -0 + +0 is +0 in .rn) */
  wvt_check_ops(vm, "add.rn.ftz.f32 %fd, %fa, %fb;", 'f', add, N(add));
  wvt_case addn[] = {{s140, 0, 0, s140}, {1, 1, 0, 2}};
  wvt_check_ops(vm, "add.rn.f32 %fd, %fa, %fb;", 'f', addn, N(addn));
  /* 2^-100 * 2^-30 = 2^-130, a subnormal result */
  wvt_case mul[] = {{fb(0x1p-100f), fb(0x1p-30f), 0, 0}, {fb(-0x1p-100f), fb(0x1p-30f), 0, 0x80000000u},
                    {s127, fb(0x1p100f), 0, 0}};
  wvt_check_ops(vm, "mul.rn.ftz.f32 %fd, %fa, %fb;", 'f', mul, N(mul));
  wvt_case muln[] = {{fb(0x1p-100f), fb(0x1p-30f), 0, 0x00080000u}, {s127, fb(0x1p100f), 0, fb(0x1p-27f)}};
  wvt_check_ops(vm, "mul.rn.f32 %fd, %fa, %fb;", 'f', muln, N(muln));
  wvt_case fma[] = {{s127, fb(0x1p100f), fb(1.0f), fb(1.0f)}, {fb(0x1p-100f), fb(0x1p-30f), 0, 0}};
  wvt_check_ops(vm, "fma.rn.ftz.f32 %fd, %fa, %fb, %fc;", 'f', fma, N(fma));
  wvt_case mn[] = {{s140, fb(1.0f), 0, 0}, {s140 | 0x80000000u, 0, 0, 0x80000000u}};
  wvt_check_ops(vm, "min.ftz.f32 %fd, %fa, %fb;", 'f', mn, N(mn));
  /* setp.ftz: a subnormal equals zero */
  wvt_case eq[] = {{s140, 0, 0, 1}, {1, 0x80000000u, 0, 1}};
  wvt_check_ops(vm, "setp.eq.ftz.f32 %p, %fa, %fb;", 'p', eq, N(eq));
  wvt_case eqn[] = {{s140, 0, 0, 0}, {1, 0x80000000u, 0, 0}};
  wvt_check_ops(vm, "setp.eq.f32 %p, %fa, %fb;", 'p', eqn, N(eqn));
  /* cvt.ftz.f32.f32 flushes; cvt.f64.f32 without .ftz keeps the subnormal exactly */
  wvt_case cv[] = {{s140, 0, 0, 0}};
  wvt_check_ops(vm, "cvt.ftz.f32.f32 %fd, %fa;", 'f', cv, 1);
  wvt_case cw[] = {{s140, 0, 0, db(0x1p-140)}};
  wvt_check_ops(vm, "cvt.f64.f32 %gd, %fa;", 'g', cw, 1);
}

/* .sat clamps to [0.0, 1.0] and turns NaN into +0.0. */
static void test_sat(void **state) {
  wv_vm *vm = *state;
  wvt_case add[] = {
      {fb(0.5f), fb(0.75f), 0, fb(1.0f)},  {fb(-0.5f), fb(0.25f), 0, 0},       {fb(0.25f), fb(0.25f), 0, fb(0.5f)},
      {0x7f800000u, 0, 0, fb(1.0f)},       {0xff800000u, 0, 0, 0},             {0x7f800000u, 0xff800000u, 0, 0},
      {0x7fc00000u, fb(0.5f), 0, 0},       {fb(1.0f), 0, 0, fb(1.0f)},
  };
  wvt_check_ops(vm, "add.rn.sat.f32 %fd, %fa, %fb;", 'f', add, N(add));
  wvt_case mul[] = {{fb(3.0f), fb(0.25f), 0, fb(0.75f)}, {fb(3.0f), fb(0.5f), 0, fb(1.0f)}, {fb(-3.0f), fb(0.5f), 0, 0}};
  wvt_check_ops(vm, "mul.rn.sat.f32 %fd, %fa, %fb;", 'f', mul, N(mul));
  wvt_case fma[] = {{fb(2.0f), fb(2.0f), fb(-3.5f), fb(0.5f)}, {fb(2.0f), fb(2.0f), fb(-5.0f), 0}};
  wvt_check_ops(vm, "fma.rn.sat.f32 %fd, %fa, %fb, %fc;", 'f', fma, N(fma));
  wvt_case cv[] = {{fb(1.5f), 0, 0, fb(1.0f)}, {fb(-2.0f), 0, 0, 0}, {fb(0.125f), 0, 0, fb(0.125f)}, {0x7fc00000u, 0, 0, 0}};
  wvt_check_ops(vm, "cvt.sat.f32.f32 %fd, %fa;", 'f', cv, N(cv));
}

/* Every NaN made by f32 arithmetic is 0x7fffffff, whatever the inputs' payloads and signs. */
static void test_canonical_nan(void **state) {
  wv_vm *vm = *state;
  wvt_case add[] = {
      {0x7f800000u, 0xff800000u, 0, F32_NAN}, /* inf + -inf */
      {0x7fc00001u, fb(1.0f), 0, F32_NAN},    /* quiet NaN with payload */
      {0x7f800001u, fb(1.0f), 0, F32_NAN},    /* signalling NaN */
      {0xffc00000u, fb(1.0f), 0, F32_NAN},    /* negative NaN */
      {fb(1.0f), 0xff812345u, 0, F32_NAN},
  };
  wvt_check_ops(vm, "add.rn.f32 %fd, %fa, %fb;", 'f', add, N(add));
  wvt_check_ops(vm, "add.rz.f32 %fd, %fa, %fb;", 'f', add, N(add));
  wvt_case sub[] = {{0x7f800000u, 0x7f800000u, 0, F32_NAN}, {0xffc00000u, 0, 0, F32_NAN}};
  wvt_check_ops(vm, "sub.rn.f32 %fd, %fa, %fb;", 'f', sub, N(sub));
  wvt_case mul[] = {{0, 0x7f800000u, 0, F32_NAN}, {0x80000000u, 0xff800000u, 0, F32_NAN}, {0xff800001u, fb(2.0f), 0, F32_NAN}};
  wvt_check_ops(vm, "mul.rn.f32 %fd, %fa, %fb;", 'f', mul, N(mul));
  wvt_case div[] = {{0, 0, 0, F32_NAN}, {0x7f800000u, 0xff800000u, 0, F32_NAN}, {0xffc00000u, fb(1.0f), 0, F32_NAN}};
  wvt_check_ops(vm, "div.rn.f32 %fd, %fa, %fb;", 'f', div, N(div));
  wvt_case fma[] = {{0x7f800000u, 0, fb(1.0f), F32_NAN}, {fb(1.0f), fb(1.0f), 0xffc00001u, F32_NAN},
                    {0x7f800000u, fb(1.0f), 0xff800000u, F32_NAN}};
  wvt_check_ops(vm, "fma.rn.f32 %fd, %fa, %fb, %fc;", 'f', fma, N(fma));
  wvt_case sq[] = {{fb(-1.0f), 0, 0, F32_NAN}, {0xff800000u, 0, 0, F32_NAN}, {0xffc00000u, 0, 0, F32_NAN}};
  wvt_check_ops(vm, "sqrt.rn.f32 %fd, %fa;", 'f', sq, N(sq));
  /* f64 arithmetic NaNs are NaNs (the exact f64 payload rule is not asserted here) */
  wvt_case d[] = {{0x7ff0000000000000ull, 0xfff0000000000000ull, 0, 0}};
  uint64_t got[1];
  wvt_ops(vm, "add.rn.f64 %gd, %ga, %gb;", 'g', d, 1, got);
  assert_true(isnan(wvt_u2d(got[0])));
}

/* min/max: a NaN operand is ignored; two NaNs give the canonical NaN; -0 orders below +0;
 * .NaN propagates a NaN as the canonical NaN. */
static void test_min_max(void **state) {
  wv_vm *vm = *state;
  uint64_t nan = 0x7fc00000u, nanp = 0xffc12345u, one = fb(1.0f), m2 = fb(-2.0f), pz = 0, nz = 0x80000000u;
  wvt_case mn[] = {
      {nan, one, 0, one}, {one, nan, 0, one}, {nanp, m2, 0, m2}, {nan, nanp, 0, F32_NAN}, {one, m2, 0, m2},
      {m2, one, 0, m2},   {nz, pz, 0, nz},    {pz, nz, 0, nz},   {0xff800000u, nan, 0, 0xff800000u},
      {0x7f800000u, one, 0, one},
  };
  wvt_check_ops(vm, "min.f32 %fd, %fa, %fb;", 'f', mn, N(mn));
  wvt_case mx[] = {
      {nan, one, 0, one}, {one, nan, 0, one}, {nanp, m2, 0, m2}, {nan, nanp, 0, F32_NAN}, {one, m2, 0, one},
      {m2, one, 0, one},  {nz, pz, 0, pz},    {pz, nz, 0, pz},   {0xff800000u, one, 0, one},
  };
  wvt_check_ops(vm, "max.f32 %fd, %fa, %fb;", 'f', mx, N(mx));
  wvt_case mnn[] = {{nan, one, 0, F32_NAN}, {one, nanp, 0, F32_NAN}, {one, m2, 0, m2}};
  wvt_check_ops(vm, "min.NaN.f32 %fd, %fa, %fb;", 'f', mnn, N(mnn));
  wvt_case mxn[] = {{nan, one, 0, F32_NAN}, {one, nanp, 0, F32_NAN}, {one, m2, 0, one}};
  wvt_check_ops(vm, "max.NaN.f32 %fd, %fa, %fb;", 'f', mxn, N(mxn));
  uint64_t dn = 0x7ff8000000000000ull, d1 = db(1.0), dm = db(-3.0);
  wvt_case mn64[] = {{dn, d1, 0, d1}, {d1, dn, 0, d1}, {d1, dm, 0, dm}, {0x8000000000000000ull, 0, 0, 0x8000000000000000ull}};
  wvt_check_ops(vm, "min.f64 %gd, %ga, %gb;", 'g', mn64, N(mn64));
  wvt_case mx64[] = {{dn, d1, 0, d1}, {d1, dn, 0, d1}, {d1, dm, 0, d1}, {0x8000000000000000ull, 0, 0, 0}};
  wvt_check_ops(vm, "max.f64 %gd, %ga, %gb;", 'g', mx64, N(mx64));
}

/* ---- comparisons ------------------------------------------------------------------------------ */

static const char *const CMPS[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
static int g_cmp;
static int fcmp(double a, double b, int k) {
  int un = isnan(a) || isnan(b);
  switch (k) {
  case 0: return !un && a == b;
  case 1: return !un && a != b;
  case 2: return !un && a < b;
  case 3: return !un && a <= b;
  case 4: return !un && a > b;
  case 5: return !un && a >= b;
  case 6: return un || a == b;
  case 7: return un || a != b;
  case 8: return un || a < b;
  case 9: return un || a <= b;
  case 10: return un || a > b;
  case 11: return un || a >= b;
  case 12: return !un;
  default: return un;
  }
}
static uint64_t m_setp32(uint64_t a, uint64_t b, uint64_t c) {
  (void)c;
  return (uint64_t)fcmp(wvt_u2f((uint32_t)a), wvt_u2f((uint32_t)b), g_cmp);
}
static uint64_t m_setp64(uint64_t a, uint64_t b, uint64_t c) {
  (void)c;
  return (uint64_t)fcmp(wvt_u2d(a), wvt_u2d(b), g_cmp);
}
/* p|q with .and/.or/.xor and c (nonzero = true), negated when g_negc: result (p ? 1 : 0) | (q ? 2 : 0) */
static int g_bool, g_negc;
static uint64_t m_setp_pq(uint64_t a, uint64_t b, uint64_t c) {
  int t = fcmp(wvt_u2f((uint32_t)a), wvt_u2f((uint32_t)b), g_cmp), cc = (c != 0) ^ g_negc;
  int p, q;
  switch (g_bool) {
  case 0: p = t && cc; q = !t && cc; break;
  case 1: p = t || cc; q = !t || cc; break;
  default: p = t ^ cc; q = !t ^ cc; break;
  }
  return (uint64_t)(p | q << 1);
}

static void test_setp_float(void **state) {
  wv_vm *vm = *state;
  static const uint64_t v32[] = {0xff800000u, 0xbfc00000u /* -1.5 */, 0xbf800000u, 0x80000000u, 0, 1 /* 2^-149 */,
                                 0x3f800000u, 0x3fc00000u, 0x7f800000u, 0x7fc00000u, 0xffc00001u};
  static const uint64_t v64[] = {0xfff0000000000000ull, 0xbff8000000000000ull, 0x8000000000000000ull, 0, 1,
                                 0x3ff0000000000000ull, 0x3ff8000000000000ull, 0x7ff0000000000000ull,
                                 0x7ff8000000000000ull, 0xfff0000000000001ull};
  char snip[64];
  for (int k = 0; k < 14; k++) {
    g_cmp = k;
    snprintf(snip, sizeof snip, "setp.%s.f32 %%p, %%fa, %%fb;", CMPS[k]);
    wvt_check_cross(vm, snip, 'p', v32, N(v32), v32, N(v32), 0, m_setp32);
    snprintf(snip, sizeof snip, "setp.%s.f64 %%p, %%ga, %%gb;", CMPS[k]);
    wvt_check_cross(vm, snip, 'p', v64, N(v64), v64, N(v64), 0, m_setp64);
  }
  /* p|q and the boolean combinations, with c plain and negated */
  static const char *const bools[] = {"and", "or", "xor"};
  static const uint64_t small[] = {0xbf800000u, 0, 0x3f800000u, 0x7fc00000u};
  for (int k = 0; k < 14; k += 3)
    for (int b = 0; b < 3; b++)
      for (int neg = 0; neg < 2; neg++)
        for (uint64_t c = 0; c < 2; c++) {
          g_cmp = k, g_bool = b, g_negc = neg;
          snprintf(snip, sizeof snip, "setp.%s.%s.f32 %%p|%%P0, %%fa, %%fb, %s%%pc;", CMPS[k], bools[b], neg ? "!" : "");
          char full[160];
          snprintf(full, sizeof full, "%s\n selp.u32 %%t0, 1, 0, %%p;\n selp.u32 %%t1, 2, 0, %%P0;\n or.b32 %%d, %%t0, %%t1;", snip);
          wvt_check_cross(vm, full, 'd', small, N(small), small, N(small), c, m_setp_pq);
        }
  /* set: 1.0f / all ones / 0 */
  wvt_case s[] = {{fb(1.0f), fb(2.0f), 0, fb(1.0f)}, {fb(2.0f), fb(1.0f), 0, 0}, {0x7fc00000u, fb(1.0f), 0, 0}};
  wvt_check_ops(vm, "set.lt.f32.f32 %fd, %fa, %fb;", 'f', s, N(s));
  wvt_case su[] = {{fb(1.0f), fb(2.0f), 0, 0xffffffffu}, {0x7fc00000u, fb(1.0f), 0, 0}};
  wvt_check_ops(vm, "set.lt.u32.f32 %d, %fa, %fb;", 'd', su, N(su));
  wvt_case sn[] = {{0x7fc00000u, fb(1.0f), 0, 0xffffffffu}};
  wvt_check_ops(vm, "set.ltu.u32.f32 %d, %fa, %fb;", 'd', sn, N(sn));
}

static const char *const ICMPS[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
static int g_w, g_sgn;
static uint64_t m_icmp(uint64_t a, uint64_t b, uint64_t c) {
  (void)c;
  uint64_t mask = g_w == 64 ? ~0ull : (1ull << g_w) - 1, sb = 1ull << (g_w - 1);
  a &= mask, b &= mask;
  /* signed order = unsigned order of the values with the sign bit flipped */
  uint64_t ka = g_sgn ? a ^ sb : a, kb = g_sgn ? b ^ sb : b;
  switch (g_cmp) {
  case 0: return a == b;
  case 1: return a != b;
  case 2: case 6: return ka < kb;
  case 3: case 7: return ka <= kb;
  case 4: case 8: return ka > kb;
  default: return ka >= kb;
  }
}

static void test_setp_int(void **state) {
  wv_vm *vm = *state;
  static const uint64_t v[] = {0, 1, 0x7f, 0x8000, 0xffff, 0x7fffffff, 0x80000000u, 0xffffffffu, 0x100000000ull,
                               0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull};
  static const struct {
    const char *ty, *ra, *rb;
    int w, sgn, unsigned_ops;
  } tys[] = {
      {"s32", "%a", "%b", 32, 1, 0}, {"u32", "%a", "%b", 32, 0, 1}, {"b32", "%a", "%b", 32, 0, 1},
      {"s16", "%ha", "%hb", 16, 1, 0}, {"u16", "%ha", "%hb", 16, 0, 1}, {"s64", "%A", "%B", 64, 1, 0},
      {"u64", "%A", "%B", 64, 0, 1},
  };
  char snip[64];
  for (size_t t = 0; t < N(tys); t++)
    for (int k = 0; k < (tys[t].unsigned_ops ? 10 : 6); k++) {
      if (!strcmp(tys[t].ty, "b32") && k >= 2) continue; /* .b types: eq and ne only (ptxas) */
      g_cmp = k, g_w = tys[t].w, g_sgn = tys[t].sgn;
      snprintf(snip, sizeof snip, "setp.%s.%s %%p, %s, %s;", ICMPS[k], tys[t].ty, tys[t].ra, tys[t].rb);
      wvt_check_cross(vm, snip, 'p', v, N(v), v, N(v), 0, m_icmp);
    }
}

static uint64_t m_selp(uint64_t a, uint64_t b, uint64_t c) { return c ? a : b; }
static uint64_t m_selp32(uint64_t a, uint64_t b, uint64_t c) { return (uint32_t)(c ? a : b); }

static void test_selp(void **state) {
  wv_vm *vm = *state;
  static const uint64_t v[] = {0, 0x123456789abcdef0ull, 0x7fc00000u, 0xffffffffffffffffull};
  for (uint64_t c = 0; c < 3; c++) {
    wvt_check_cross(vm, "selp.b64 %D, %A, %B, %pc;", 'D', v, N(v), v, N(v), c, m_selp);
    wvt_check_cross(vm, "selp.b32 %d, %a, %b, %pc;", 'd', v, N(v), v, N(v), c, m_selp32);
    wvt_check_cross(vm, "selp.f32 %fd, %fa, %fb, %pc;", 'f', v, N(v), v, N(v), c, m_selp32);
    wvt_check_cross(vm, "selp.f64 %gd, %ga, %gb, %pc;", 'g', v, N(v), v, N(v), c, m_selp);
  }
  /* immediates */
  wvt_case cs[] = {{0, 0, 1, 7}, {0, 0, 0, 9}};
  wvt_check_ops(vm, "selp.s32 %d, 7, 9, %pc;", 'd', cs, N(cs));
}

static int g_test;
static int classify(uint64_t bits, int f64, int k) {
  double v = f64 ? wvt_u2d(bits) : (double)wvt_u2f((uint32_t)bits);
  int sub = f64 ? (((bits >> 52) & 0x7ff) == 0 && (bits << 12) != 0)
                : (((bits >> 23) & 0xff) == 0 && (bits & 0x7fffff) != 0);
  switch (k) {
  case 0: return isfinite(v) != 0;
  case 1: return isinf(v) != 0;
  case 2: return isnan(v) == 0;
  case 3: return isnan(v) != 0;
  case 4: return isfinite(v) != 0 && !sub; /* the ISA: ±0 count as normal */
  default: return sub;
  }
}
static uint64_t m_testp32(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return (uint64_t)classify(a & 0xffffffffu, 0, g_test); }
static uint64_t m_testp64(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return (uint64_t)classify(a, 1, g_test); }

static void test_testp(void **state) {
  wv_vm *vm = *state;
  static const char *const ops[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  static const uint64_t v32[] = {0, 0x80000000u, 1, 0x807fffffu, 0x00800000u, 0x3f800000u, 0xff7fffffu, 0x7f800000u,
                                 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffffffffu};
  static const uint64_t v64[] = {0, 0x8000000000000000ull, 1, 0x800fffffffffffffull, 0x0010000000000000ull,
                                 0x3ff0000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                 0x7ff8000000000000ull, 0x7ff0000000000001ull, 0x0000000000800000ull /* f32 pattern */};
  static const uint64_t zero[] = {0};
  char snip[64];
  for (int k = 0; k < 6; k++) {
    g_test = k;
    snprintf(snip, sizeof snip, "testp.%s.f32 %%p, %%fa;", ops[k]);
    wvt_check_cross(vm, snip, 'p', v32, N(v32), zero, 1, 0, m_testp32);
    snprintf(snip, sizeof snip, "testp.%s.f64 %%p, %%ga;", ops[k]);
    wvt_check_cross(vm, snip, 'p', v64, N(v64), zero, 1, 0, m_testp64);
  }
  /* spelled out: zero is normal, 2^-149 is subnormal, NaN is not a number */
  wvt_case z[] = {{0, 0, 0, 1}, {1, 0, 0, 0}, {0x7fc00000u, 0, 0, 0}};
  wvt_check_ops(vm, "testp.normal.f32 %p, %fa;", 'p', z, N(z));
}

/* ---- cvt -------------------------------------------------------------------------------------- */

static void test_cvt_int_to_float(void **state) {
  wv_vm *vm = *state;
  /* 2^24 + 1 lies halfway between 2^24 and 2^24 + 2; 2^24 + 3 halfway between +2 and +4 */
  static const uint32_t want_p1[4] = {16777216, 16777216, 16777216, 16777218};
  static const uint32_t want_p3[4] = {16777220, 16777218, 16777218, 16777220};
  static const uint32_t want_n1[4] = {16777216, 16777216, 16777218, 16777216}; /* magnitudes of -(2^24+1) */
  char snip[64];
  for (int m = 0; m < 4; m++) {
    wvt_case cs[] = {
        {16777217, 0, 0, fb((float)want_p1[m])},
        {16777219, 0, 0, fb((float)want_p3[m])},
        {(uint32_t)-16777217, 0, 0, fb(-(float)want_n1[m])},
        {0x7fffffff, 0, 0, fb(2147483648.0f) - (m == RZ || m == RM ? 1 : 0)}, /* 2^31 - 1 */
        {0, 0, 0, 0},
        {(uint32_t)-5, 0, 0, fb(-5.0f)},
    };
    snprintf(snip, sizeof snip, "cvt.%s.f32.s32 %%fd, %%a;", RNAME[m]);
    wvt_check_ops(vm, snip, 'f', cs, N(cs));
    /* unsigned: 0xffffffff = 2^32 - 1 */
    wvt_case cu[] = {{0xffffffffu, 0, 0, (m == RN || m == RP) ? fb(4294967296.0f) : 0x4f7fffffu}, {0x80000000u, 0, 0, fb(2147483648.0f)}};
    snprintf(snip, sizeof snip, "cvt.%s.f32.u32 %%fd, %%a;", RNAME[m]);
    wvt_check_ops(vm, snip, 'f', cu, N(cu));
    /* s64 -> f64: 2^53 + 1 is a tie */
    static const uint64_t w53[4] = {0x4340000000000000ull, 0x4340000000000000ull, 0x4340000000000000ull, 0x4340000000000001ull};
    wvt_case c64[] = {{(1ull << 53) + 1, 0, 0, w53[m]}, {(uint64_t)-5, 0, 0, db(-5.0)}};
    snprintf(snip, sizeof snip, "cvt.%s.f64.s64 %%gd, %%A;", RNAME[m]);
    wvt_check_ops(vm, snip, 'g', c64, N(c64));
    /* u64 -> f32: 2^64 - 1 */
    wvt_case c6432[] = {{~0ull, 0, 0, (m == RN || m == RP) ? 0x5f800000u : 0x5f7fffffu}};
    snprintf(snip, sizeof snip, "cvt.%s.f32.u64 %%fd, %%A;", RNAME[m]);
    wvt_check_ops(vm, snip, 'f', c6432, 1);
  }
  /* s32 -> f64 is exact */
  wvt_case e[] = {{0x80000000u, 0, 0, db(-2147483648.0)}, {0x7fffffff, 0, 0, db(2147483647.0)}};
  wvt_check_ops(vm, "cvt.rn.f64.s32 %gd, %a;", 'g', e, N(e));
  wvt_case u16[] = {{0xffff, 0, 0, fb(65535.0f)}, {0x8000, 0, 0, fb(32768.0f)}};
  wvt_check_ops(vm, "cvt.rn.f32.u16 %fd, %ha;", 'f', u16, N(u16));
  wvt_case s16[] = {{0xffff, 0, 0, fb(-1.0f)}, {0x8000, 0, 0, fb(-32768.0f)}};
  wvt_check_ops(vm, "cvt.rn.f32.s16 %fd, %ha;", 'f', s16, N(s16));
}

static void test_cvt_float_to_int(void **state) {
  wv_vm *vm = *state;
  /* .5 ties and truncation, per rounding mode (rni nearest even, rzi toward 0, rmi down, rpi up) */
  static const float xs[] = {2.5f, 3.5f, -2.5f, -3.5f, 0.5f, -0.5f, 2.75f, -2.75f, 1.0f, 0.0f};
  static const int32_t want[4][10] = {
      /* rni */ {2, 4, -2, -4, 0, 0, 3, -3, 1, 0},
      /* rzi */ {2, 3, -2, -3, 0, 0, 2, -2, 1, 0},
      /* rmi */ {2, 3, -3, -4, 0, -1, 2, -3, 1, 0},
      /* rpi */ {3, 4, -2, -3, 1, 0, 3, -2, 1, 0},
  };
  static const char *const irnd[] = {"rni", "rzi", "rmi", "rpi"};
  char snip[64];
  for (int m = 0; m < 4; m++) {
    wvt_case cs[N(xs)];
    wvt_case cd[N(xs)];
    for (size_t i = 0; i < N(xs); i++) {
      cs[i] = (wvt_case){fb(xs[i]), 0, 0, (uint32_t)want[m][i]};
      cd[i] = (wvt_case){db((double)xs[i]), 0, 0, (uint64_t)(int64_t)want[m][i]};
    }
    snprintf(snip, sizeof snip, "cvt.%s.s32.f32 %%d, %%fa;", irnd[m]);
    wvt_check_ops(vm, snip, 'd', cs, N(cs));
    snprintf(snip, sizeof snip, "cvt.%s.s64.f64 %%D, %%ga;", irnd[m]);
    wvt_check_ops(vm, snip, 'D', cd, N(cd));
  }
  /* saturation: NaN -> 0, out of range -> the nearest end (f32 -> s32 / u32) */
  wvt_case sat[] = {
      {0x7fc00000u, 0, 0, 0},           {0xffc00000u, 0, 0, 0},
      {fb(3e9f), 0, 0, 0x7fffffffu},    {fb(-3e9f), 0, 0, 0x80000000u},
      {0x7f800000u, 0, 0, 0x7fffffffu}, {0xff800000u, 0, 0, 0x80000000u},
      {fb(2147483648.0f), 0, 0, 0x7fffffffu}, {fb(-2147483648.0f), 0, 0, 0x80000000u},
  };
  for (int m = 0; m < 4; m++) {
    snprintf(snip, sizeof snip, "cvt.%s.s32.f32 %%d, %%fa;", irnd[m]);
    wvt_check_ops(vm, snip, 'd', sat, N(sat));
  }
  wvt_case usat[] = {{0x7fc00000u, 0, 0, 0}, {fb(-1.5f), 0, 0, 0}, {fb(5e9f), 0, 0, 0xffffffffu}, {fb(-0.5f), 0, 0, 0},
                     {fb(4294967040.0f), 0, 0, 4294967040u}};
  wvt_check_ops(vm, "cvt.rzi.u32.f32 %d, %fa;", 'd', usat, N(usat));
  wvt_case s64[] = {{fb(1e19f), 0, 0, 0x7fffffffffffffffull}, {fb(-1e19f), 0, 0, 0x8000000000000000ull}, {fb(-7.9f), 0, 0, (uint64_t)-7}};
  wvt_check_ops(vm, "cvt.rzi.s64.f32 %D, %fa;", 'D', s64, N(s64));
  wvt_case d32[] = {{db(3e10), 0, 0, 0x7fffffffu}, {db(-3e10), 0, 0, 0x80000000u}, {db(-2147483648.9), 0, 0, 0x80000000u}};
  wvt_check_ops(vm, "cvt.rzi.s32.f64 %d, %ga;", 'd', d32, N(d32));
}

static void test_cvt_round_to_integral(void **state) {
  wv_vm *vm = *state;
  static const float xs[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.25f, -2.75f, 0x1p22f + 0.5f, 1e30f, 0x1p-140f};
  static const float want[4][11] = {
      /* rni */ {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f, 2.0f, -3.0f, 0x1p22f, 1e30f, 0.0f},
      /* rzi */ {0.0f, 1.0f, 2.0f, -0.0f, -1.0f, -2.0f, 2.0f, -2.0f, 0x1p22f, 1e30f, 0.0f},
      /* rmi */ {0.0f, 1.0f, 2.0f, -1.0f, -2.0f, -3.0f, 2.0f, -3.0f, 0x1p22f, 1e30f, 0.0f},
      /* rpi */ {1.0f, 2.0f, 3.0f, -0.0f, -1.0f, -2.0f, 3.0f, -2.0f, 0x1p22f + 1.0f, 1e30f, 1.0f},
  };
  static const char *const irnd[] = {"rni", "rzi", "rmi", "rpi"};
  char snip[64];
  for (int m = 0; m < 4; m++) {
    wvt_case cs[N(xs)], cd[N(xs)];
    for (size_t i = 0; i < N(xs); i++) {
      cs[i] = (wvt_case){fb(xs[i]), 0, 0, fb(want[m][i])};
      cd[i] = (wvt_case){db((double)xs[i]), 0, 0, db((double)want[m][i])};
    }
    snprintf(snip, sizeof snip, "cvt.%s.f32.f32 %%fd, %%fa;", irnd[m]);
    wvt_check_ops(vm, snip, 'f', cs, N(cs));
    snprintf(snip, sizeof snip, "cvt.%s.f64.f64 %%gd, %%ga;", irnd[m]);
    wvt_check_ops(vm, snip, 'g', cd, N(cd));
  }
  /* f64 -> f32 narrowing with rounding: 1 + 2^-24 + 2^-30 is above the tie */
  uint64_t x = db(1.0 + 0x1p-24 + 0x1p-30), t = db(1.0 + 0x1p-24);
  wvt_case rn[] = {{x, 0, 0, 0x3f800001u}, {t, 0, 0, 0x3f800000u}, {db(1e300), 0, 0, 0x7f800000u}};
  wvt_check_ops(vm, "cvt.rn.f32.f64 %fd, %ga;", 'f', rn, N(rn));
  wvt_case rz[] = {{x, 0, 0, 0x3f800000u}, {t, 0, 0, 0x3f800000u}, {db(1e300), 0, 0, 0x7f7fffffu}};
  wvt_check_ops(vm, "cvt.rz.f32.f64 %fd, %ga;", 'f', rz, N(rz));
  wvt_case rp[] = {{t, 0, 0, 0x3f800001u}, {db(-1e300), 0, 0, 0xff7fffffu}};
  wvt_check_ops(vm, "cvt.rp.f32.f64 %fd, %ga;", 'f', rp, N(rp));
}

/* integer <-> integer cvt: truncation / sign extension, and .sat clamping */
static void test_cvt_int_int(void **state) {
  wv_vm *vm = *state;
  wvt_case u8[] = {{300, 0, 0, 44}, {0xffffffffu, 0, 0, 0xff}, {5, 0, 0, 5}};
  wvt_check_ops(vm, "cvt.u8.u32 %hd, %a;", 'h', u8, N(u8));
  wvt_case s8[] = {{200, 0, 0, 0xffc8}, {0x7f, 0, 0, 0x7f}};
  wvt_check_ops(vm, "cvt.s8.s32 %hd, %a;", 'h', s8, N(s8));
  wvt_case u8s[] = {{300, 0, 0, 255}, {(uint32_t)-5, 0, 0, 0}, {100, 0, 0, 100}};
  wvt_check_ops(vm, "cvt.sat.u8.s32 %hd, %a;", 'h', u8s, N(u8s));
  wvt_case s8s[] = {{300, 0, 0, 127}, {(uint32_t)-300, 0, 0, 0xff80}, {(uint32_t)-5, 0, 0, 0xfffb}};
  wvt_check_ops(vm, "cvt.sat.s8.s32 %hd, %a;", 'h', s8s, N(s8s));
  wvt_case s32s[] = {{0x100000000ull, 0, 0, 0x7fffffffu}, {0xffffffff00000000ull, 0, 0, 0x80000000u}, {(uint64_t)-7, 0, 0, (uint32_t)-7}};
  wvt_check_ops(vm, "cvt.sat.s32.s64 %d, %A;", 'd', s32s, N(s32s));
  wvt_case u32s[] = {{(uint64_t)-7, 0, 0, 0}, {0x100000000ull, 0, 0, 0xffffffffu}};
  wvt_check_ops(vm, "cvt.sat.u32.s64 %d, %A;", 'd', u32s, N(u32s));
  wvt_case ext[] = {{0x8000, 0, 0, 0xffffffffffff8000ull}, {0x7fff, 0, 0, 0x7fff}};
  wvt_check_ops(vm, "cvt.s64.s16 %D, %ha;", 'D', ext, N(ext));
  wvt_case zx[] = {{0x80000000u, 0, 0, 0x80000000u}};
  wvt_check_ops(vm, "cvt.u64.u32 %D, %a;", 'D', zx, 1);
  wvt_case sx[] = {{0x80000000u, 0, 0, 0xffffffff80000000ull}};
  wvt_check_ops(vm, "cvt.s64.s32 %D, %a;", 'D', sx, 1);
}

/* sqrt and rcp are correctly rounded in every mode (values from exact integer square roots and
 * rational arithmetic when the test was written; sqrt(2) = 0x3fb504f3 is the familiar one). */
static void test_sqrt_rcp_rounding(void **state) {
  wv_vm *vm = *state;
  static const struct {
    float x;
    uint32_t r[4];
  } sq[] = {
      {2.0f, {0x3fb504f3u, 0x3fb504f3u, 0x3fb504f3u, 0x3fb504f4u}},
      {3.0f, {0x3fddb3d7u, 0x3fddb3d7u, 0x3fddb3d7u, 0x3fddb3d8u}},
      {0.5f, {0x3f3504f3u, 0x3f3504f3u, 0x3f3504f3u, 0x3f3504f4u}},
      {5.0f, {0x400f1bbdu, 0x400f1bbcu, 0x400f1bbcu, 0x400f1bbdu}},
      {10.0f, {0x404a62c2u, 0x404a62c1u, 0x404a62c1u, 0x404a62c2u}},
      {4.0f, {0x40000000u, 0x40000000u, 0x40000000u, 0x40000000u}},
  };
  static const struct {
    float x;
    uint32_t r[4];
  } rc[] = {
      {3.0f, {0x3eaaaaabu, 0x3eaaaaaau, 0x3eaaaaaau, 0x3eaaaaabu}},
      {7.0f, {0x3e124925u, 0x3e124924u, 0x3e124924u, 0x3e124925u}},
      {10.0f, {0x3dcccccdu, 0x3dccccccu, 0x3dccccccu, 0x3dcccccdu}},
      {-4.0f, {0xbe800000u, 0xbe800000u, 0xbe800000u, 0xbe800000u}},
  };
  char snip[64];
  for (int m = 0; m < 4; m++) {
    wvt_case cs[N(sq) + 2];
    for (size_t i = 0; i < N(sq); i++) cs[i] = (wvt_case){fb(sq[i].x), 0, 0, sq[i].r[m]};
    cs[N(sq)] = (wvt_case){0x80000000u, 0, 0, 0x80000000u}; /* sqrt(-0) = -0 */
    cs[N(sq) + 1] = (wvt_case){0x7f800000u, 0, 0, 0x7f800000u};
    snprintf(snip, sizeof snip, "sqrt.%s.f32 %%fd, %%fa;", RNAME[m]);
    wvt_check_ops(vm, snip, 'f', cs, N(cs));
    wvt_case cr[N(rc) + 2];
    for (size_t i = 0; i < N(rc); i++) cr[i] = (wvt_case){fb(rc[i].x), 0, 0, rc[i].r[m]};
    cr[N(rc)] = (wvt_case){0x80000000u, 0, 0, 0xff800000u}; /* 1/-0 = -inf */
    cr[N(rc) + 1] = (wvt_case){0x7f800000u, 0, 0, 0};      /* 1/inf = +0 */
    snprintf(snip, sizeof snip, "rcp.%s.f32 %%fd, %%fa;", RNAME[m]);
    wvt_check_ops(vm, snip, 'f', cr, N(cr));
  }
  static const uint64_t s2[4] = {0x3ff6a09e667f3bcdull, 0x3ff6a09e667f3bccull, 0x3ff6a09e667f3bccull, 0x3ff6a09e667f3bcdull};
  static const uint64_t s3[4] = {0x3ffbb67ae8584caaull, 0x3ffbb67ae8584caaull, 0x3ffbb67ae8584caaull, 0x3ffbb67ae8584cabull};
  static const uint64_t r3[4] = {0x3fd5555555555555ull, 0x3fd5555555555555ull, 0x3fd5555555555555ull, 0x3fd5555555555556ull};
  for (int m = 0; m < 4; m++) {
    wvt_case cs[] = {{db(2.0), 0, 0, s2[m]}, {db(3.0), 0, 0, s3[m]}};
    snprintf(snip, sizeof snip, "sqrt.%s.f64 %%gd, %%ga;", RNAME[m]);
    wvt_check_ops(vm, snip, 'g', cs, N(cs));
    wvt_case cr[] = {{db(3.0), 0, 0, r3[m]}};
    snprintf(snip, sizeof snip, "rcp.%s.f64 %%gd, %%ga;", RNAME[m]);
    wvt_check_ops(vm, snip, 'g', cr, N(cr));
  }
}

/* copysign.f32 d, a, b: |b| with the sign of a (PTX ISA "copysign": note the operand order). */
static void test_copysign(void **state) {
  wv_vm *vm = *state;
  wvt_case cs[] = {{fb(-1.0f), fb(2.5f), 0, fb(-2.5f)}, {fb(1.0f), fb(-2.5f), 0, fb(2.5f)}, {0x80000000u, 0x7f800000u, 0, 0xff800000u},
                   {0, fb(-0.0f), 0, 0}};
  wvt_check_ops(vm, "copysign.f32 %fd, %fa, %fb;", 'f', cs, N(cs));
  wvt_case cd[] = {{db(-1.0), db(3.0), 0, db(-3.0)}, {db(2.0), db(-0.0), 0, 0}};
  wvt_check_ops(vm, "copysign.f64 %gd, %ga, %gb;", 'g', cd, N(cd));
}

/* slct.dtype.s32 d, a, b, c: c >= 0 ? a : b; slct.dtype.f32: c >= 0.0, so -0.0 selects a and a
 * NaN c (unordered) selects b (PTX ISA "slct"). */
static void test_slct(void **state) {
  wv_vm *vm = *state;
  wvt_case si[] = {{11, 22, 0, 11}, {11, 22, 5, 11}, {11, 22, 0xffffffffu, 22}, {11, 22, 0x80000000u, 22}, {11, 22, 0x7fffffffu, 11}};
  wvt_check_ops(vm, "slct.u32.s32 %d, %a, %b, %c;", 'd', si, N(si));
  wvt_case sf[] = {{11, 22, fb(1.0f), 11}, {11, 22, fb(-1.0f), 22}, {11, 22, 0, 11}, {11, 22, 0x80000000u, 11},
                   {11, 22, 0x7fc00000u, 22}, {11, 22, 0xffc00000u, 22}, {11, 22, 0xff800000u, 22}};
  wvt_check_ops(vm, "slct.b32.f32 %d, %a, %b, %fc;", 'd', sf, N(sf));
}

/* set with a boolean combination. */
static void test_set_bool(void **state) {
  wv_vm *vm = *state;
  /* d = (a < b) AND c ? all ones : 0 */
  wvt_case s[] = {{fb(1.0f), fb(2.0f), 1, 0xffffffffu}, {fb(1.0f), fb(2.0f), 0, 0}, {fb(3.0f), fb(2.0f), 1, 0}};
  wvt_check_ops(vm, "set.lt.and.u32.f32 %d, %fa, %fb, %pc;", 'd', s, N(s));
  wvt_case so[] = {{fb(3.0f), fb(2.0f), 1, 0xffffffffu}, {fb(3.0f), fb(2.0f), 0, 0}};
  wvt_check_ops(vm, "set.lt.or.s32.f32 %d, %fa, %fb, %pc;", 'd', so, N(so));
}

/* setp with the sink symbol for p: _|q writes only the complement (valid PTX: ptxas accepts the
 * sink in either position of the pair). */
static void test_setp_sink_destination(void **state) {
  wv_vm *vm = *state;
  wvt_case p1[] = {{1, 2, 0, 1}, {2, 1, 0, 0}};
  wvt_check_ops(vm, "setp.lt.u32 %p|_, %a, %b;", 'p', p1, N(p1));
  /* _|q: only the complement is written (ptxas accepts the sink in either place) */
  wvt_case q[] = {{1, 2, 0, 0}, {2, 1, 0, 1}, {2, 2, 0, 1}};
  wvt_check_ops(vm, "setp.lt.u32 _|%p, %a, %b;", 'p', q, N(q));
}

/* Half precision through the decoder (issue 13): the scalar forms on .b16 registers, the x2 forms per half,
 * setp.f16x2 p|q (p from the low halves, q from the high), cvt.rn.f16x2.f32 (a to the high half). Values by
 * hand from the PTX ISA's definitions; fpmath's own tests cover the rounding. */
static void test_half_forms(void **state) {
  wv_vm *vm = *state;
  wvt_case add[] = {{0x3c00, 0x1000, 0, 0x3c00}, {0x3c01, 0x1000, 0, 0x3c02}, {0x7c00, 0xfc00, 0, 0x7fff}};
  wvt_check_ops(vm, "add.rn.f16 %hd, %ha, %hb;", 'h', add, N(add));
  wvt_check_ops(vm, "add.f16 %hd, %ha, %hb;", 'h', add, N(add));
  wvt_case sat[] = {{0x3c00, 0x3c00, 0, 0x3c00}, {0xbc00, 0x0000, 0, 0x0000}};
  wvt_check_ops(vm, "add.rn.sat.f16 %hd, %ha, %hb;", 'h', sat, N(sat));
  wvt_case fma[] = {{0x3c00, 0x4000, 0x3c00, 0x4200}, {0xbf80, 0x3f80, 0x3f00, 0x0000}};
  wvt_check_ops(vm, "fma.rn.f16 %hd, %ha, %hb, %hc;", 'h', fma, 1);
  wvt_check_ops(vm, "fma.rn.relu.bf16 %hd, %ha, %hb, %hc;", 'h', fma + 1, 1);
  wvt_case x2[] = {{0x3c004000, 0x40003c00, 0x3c003c00, 0x42004200}}; /* (1*2+1, 2*1+1) */
  wvt_check_ops(vm, "fma.rn.f16x2 %d, %a, %b, %c;", 'd', x2, N(x2));
  wvt_case bx2[] = {{0x3f804000, 0x3f803f80, 0, 0x40004040}}; /* (1+1, 2+1) */
  wvt_check_ops(vm, "add.rn.bf16x2 %d, %a, %b;", 'd', bx2, N(bx2));
  wvt_case mn[] = {{0x8000, 0x0000, 0, 0x8000}, {0x7e00, 0x3c00, 0, 0x3c00}};
  wvt_check_ops(vm, "min.f16 %hd, %ha, %hb;", 'h', mn, N(mn));
  wvt_case mnn[] = {{0x7fc0, 0x3f80, 0, 0x7fff}}; /* bf16 NaN */
  wvt_check_ops(vm, "max.NaN.bf16 %hd, %ha, %hb;", 'h', mnn, N(mnn));
  wvt_case xs[] = {{0xc000, 0x4200, 0, 0xc000}};
  wvt_check_ops(vm, "min.xorsign.abs.f16 %hd, %ha, %hb;", 'h', xs, N(xs));
  wvt_case ng[] = {{0x3c00, 0, 0, 0xbc00}, {0x8001, 0, 0, 0x0000}};
  wvt_check_ops(vm, "neg.ftz.f16 %hd, %ha;", 'h', ng, 1);
  wvt_check_ops(vm, "abs.ftz.f16 %hd, %ha;", 'h', ng + 1, 1);
  wvt_case lt[] = {{0x3c00, 0x4000, 0, 1}, {0x7e00, 0x4000, 0, 0}};
  wvt_check_ops(vm, "setp.lt.f16 %p, %ha, %hb;", 'p', lt, N(lt));
  wvt_case ltx2[] = {{0x40003c00, 0x3c004000, 0, 1}, {0x3c004000, 0x40003c00, 0, 2}, {0x3c003c00, 0x40004000, 0, 3}};
  wvt_check_ops(vm, "setp.lt.f16x2 %pa|%pb, %a, %b;\n selp.u32 %t0, 1, 0, %pa;\n selp.u32 %t1, 2, 0, %pb;\n"
                    " or.b32 %d, %t0, %t1;", 'd', ltx2, N(ltx2));
  wvt_case cv[] = {{0x3f800000, 0x40000000, 0, 0x3c004000}};
  wvt_check_ops(vm, "cvt.rn.f16x2.f32 %d, %fa, %fb;", 'd', cv, N(cv));
  wvt_case cvb[] = {{0xbf800000, 0x3f808000, 0, 0x00003f80}};
  wvt_check_ops(vm, "cvt.rn.relu.bf16x2.f32 %d, %fa, %fb;", 'd', cvb, N(cvb));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_add_sub_mul_rounding, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_rounding_by_hand, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_div_rounding, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_fma, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_sqrt_rcp_rounding, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_copysign, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_ftz, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_sat, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_canonical_nan, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_min_max, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_setp_float, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_setp_int, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_selp, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_slct, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_set_bool, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_setp_sink_destination, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_testp, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_cvt_int_to_float, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_cvt_float_to_int, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_cvt_round_to_integral, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_cvt_int_int, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_half_forms, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
