/*
 * test_jit_diff.c — the JIT engine against the interpreter (README "Engines"): random PTX of the instructions
 * the JIT compiles (integer arithmetic of every width, shifts past the width, mul.wide and mad, bit counts, setp
 * with every comparison and .and/.or/.xor, predicate logic, selp, cvt, f32 add/sub/mul/fma on NaNs, infinities,
 * subnormals and signed zeros, shuffles, shared-memory atomics), mixed with instructions it leaves to the
 * interpreter (div, .ftz, .sat) and guarded by predicates that differ between lanes, on partial warps, with
 * shared and global loads and stores between them, forward branches whose sides the lanes take differently and
 * loops whose turns differ between lanes. Every register ends in memory; the two engines must leave the same
 * bytes and count the same --stats counters. Without LLVM the JIT is unavailable and the test checks that
 * wv_create refuses it. CTest runs it twice: for this host's CPU, and for one without AVX-512 (WARPVM_JIT_CPU).
 */
#include <stdio.h>
#include <stdlib.h>

#include "wv_test.h"

#define NIN 24   /* u32 inputs per thread */
#define NOUT 40  /* u64 outputs per thread */
#define THREADS 96

typedef struct gen {
  uint32_t s;
  char *p, *end;
  unsigned labels; /* branches made so far (their labels' names) */
} gen;

static uint32_t rnd(gen *g) {
  g->s ^= g->s << 13;
  g->s ^= g->s >> 17;
  g->s ^= g->s << 5;
  return g->s;
}
static uint32_t pick(gen *g, uint32_t n) { return rnd(g) % n; }

static void emit(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(gen *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(g->p, (size_t)(g->end - g->p), fmt, ap);
  va_end(ap);
  if (k > 0 && k < g->end - g->p) g->p += k;
}

static const char *guard(gen *g, char *buf) {
  uint32_t k = pick(g, 6);
  if (k >= 3) return "";
  snprintf(buf, 16, "@%s%%p%u ", k == 0 ? "!" : "", pick(g, 4));
  return buf;
}

/* One random instruction of kind k (below). */
static void insn_k(gen *g, uint32_t k) {
  static const char *const IB[] = {"add", "sub", "mul.lo", "min", "max"};
  static const char *const LB[] = {"and", "or", "xor"};
  static const char *const ICMP[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  static const char *const UCMP[] = {"lo", "ls", "hi", "hs"};
  static const char *const FCMP[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  static const char *const FB[] = {"add", "sub", "mul", "add.rn", "sub.rn", "mul.rn", "add.ftz", "mul.sat", "sub.rz",
                                   "mul.ftz", "sub.rn.ftz", "mul.rn.ftz"};
  /* f32 operands at the edge of .ftz: 2^-126, 1 - 2^-24, 1 + 2^-23, a subnormal, 2^-24, 2^126 (a product of two of
   * them is 2^-126 or just below it, where flushing depends on the rounding: fpmath.c tiny_unbounded) */
  static const char *const EDGE[] = {"0f00800000", "0f3F7FFFFF", "0f3F800001", "0f007FFFFF", "0f33800000", "0f7E800000",
                                     "0fBF7FFFFF", "0f80800000"};
  static const char *const BOOL[] = {"and", "or", "xor"};
  char gb[16];
  const char *G = guard(g, gb);
  uint32_t d = pick(g, 8), a = pick(g, 8), b = pick(g, 8), c = pick(g, 8);
  const char *s32 = pick(g, 2) ? "s" : "u";
  switch (k) {
  case 0: emit(g, "%s%s.%s32 %%r%u, %%r%u, %%r%u;\n", G, IB[pick(g, 5)], s32, d, a, b); break;
  case 1: emit(g, "%s%s.%s64 %%rd%u, %%rd%u, %%rd%u;\n", G, IB[pick(g, 5)], s32, d, a, b); break;
  case 2: emit(g, "%s%s.%s16 %%h%u, %%h%u, %%h%u;\n", G, IB[pick(g, 5)], s32, d % 4, a % 4, b % 4); break;
  case 3: emit(g, "%s%s.b32 %%r%u, %%r%u, %%r%u;\n%s%s.b16 %%h%u, %%h%u, %%h%u;\n", G, LB[pick(g, 3)], d, a, b, G,
               LB[pick(g, 3)], d % 4, a % 4, b % 4);
    break;
  case 4: emit(g, "%s%s.b64 %%rd%u, %%rd%u, %%rd%u;\n", G, LB[pick(g, 3)], d, a, b); break;
  case 5: { /* shifts: the amount from a register, often past the width */
    static const char *const T[] = {"b32", "u32", "s32"};
    static const char *const T64[] = {"b64", "u64", "s64"};
    const char *op = pick(g, 2) ? "shl" : "shr";
    if (pick(g, 2)) emit(g, "%s%s.%s %%r%u, %%r%u, %%r%u;\n", G, op, T[pick(g, 3)], d, a, b);
    else emit(g, "%s%s.%s %%rd%u, %%rd%u, %%r%u;\n", G, op, T64[pick(g, 3)], d, a, b);
    break;
  }
  case 6: emit(g, "%sshr.s16 %%h%u, %%h%u, %%r%u;\n", G, d % 4, a % 4, b); break;
  case 7: emit(g, "%s%s %%r%u, %%r%u;\n%s%s %%rd%u, %%rd%u;\n", G, pick(g, 2) ? "not.b32" : "neg.s32", d, a, G,
               pick(g, 2) ? "not.b64" : "neg.s64", b, c);
    break;
  case 8: emit(g, "%smad.lo.%s32 %%r%u, %%r%u, %%r%u, %%r%u;\n%smad.lo.%s64 %%rd%u, %%rd%u, %%rd%u, %%rd%u;\n", G, s32, d,
               a, b, c, G, s32, c, b, a, d);
    break;
  case 9: emit(g, "%smul.wide.%s32 %%rd%u, %%r%u, %%r%u;\n%smad.wide.%s32 %%rd%u, %%r%u, %%r%u, %%rd%u;\n", G, s32, d, a,
               b, G, s32, a, b, c, d);
    break;
  case 10: emit(g, "%smul.wide.%s16 %%r%u, %%h%u, %%h%u;\n", G, s32, d, a % 4, b % 4); break;
  case 11: {
    int u = pick(g, 3) == 0;
    const char *cmp = u ? UCMP[pick(g, 4)] : ICMP[pick(g, 6)];
    const char *t = u ? (pick(g, 2) ? "u32" : "u64") : (pick(g, 2) ? (pick(g, 2) ? "s32" : "u32") : (pick(g, 2) ? "s64" : "b64"));
    const char *r = t[1] == '6' ? "rd" : "r";
    if (pick(g, 2)) emit(g, "%ssetp.%s.%s %%p%u, %%%s%u, %%%s%u;\n", G, cmp, t, d % 4, r, a, r, b);
    else emit(g, "%ssetp.%s.%s.%s %%p%u|%%p%u, %%%s%u, %%%s%u, %s%%p%u;\n", G, cmp, BOOL[pick(g, 3)], t, d % 4, a % 4, r, a, r, b,
              pick(g, 2) ? "!" : "", c % 4);
    break;
  }
  case 12: {
    const char *cmp = FCMP[pick(g, 14)];
    if (pick(g, 2)) emit(g, "%ssetp.%s%s.f32 %%p%u, %%f%u, %%f%u;\n", G, cmp, pick(g, 3) ? "" : ".ftz", d % 4, a, b);
    else emit(g, "%ssetp.%s.%s.f32 %%p%u|%%p%u, %%f%u, %%f%u, %%p%u;\n", G, cmp, BOOL[pick(g, 3)], d % 4, a % 4, a, b, c % 4);
    break;
  }
  case 13: emit(g, "%ssetp.%s.f64 %%p%u, %%fd%u, %%fd%u;\n", G, FCMP[pick(g, 14)], d % 4, a % 4, b % 4); break;
  case 14: emit(g, "%sselp.b32 %%r%u, %%r%u, %%r%u, %%p%u;\n%sselp.b64 %%rd%u, %%rd%u, %%rd%u, %%p%u;\n", G, d, a, b, c % 4, G,
                a, b, d, c % 4);
    break;
  case 15: emit(g, "%scvt.u64.u32 %%rd%u, %%r%u;\n%scvt.s64.s32 %%rd%u, %%r%u;\n%scvt.u32.u64 %%r%u, %%rd%u;\n", G, d, a, G, a,
                b, G, c, d);
    emit(g, "%scvt.%s16.%s32 %%h%u, %%r%u;\n%scvt.%s32.%s16 %%r%u, %%h%u;\n%scvt.%s8.%s64 %%r%u, %%rd%u;\n", G, s32,
         pick(g, 2) ? "s" : "u", a % 4, b, G, pick(g, 2) ? "s" : "u", s32, c, d % 4, G, s32, pick(g, 2) ? "s" : "u", a, b);
    emit(g, "%scvt.rn.f32.%s32 %%f%u, %%r%u;\n%scvt.rn.f64.%s64 %%fd%u, %%rd%u;\n%scvt.rn.f32.%s64 %%f%u, %%rd%u;\n", G,
         s32, d, a, G, pick(g, 2) ? "s" : "u", b % 4, c, G, pick(g, 2) ? "s" : "u", a, d);
    break;
  case 16:
    if (pick(g, 3)) emit(g, "%s%s.f32 %%f%u, %%f%u, %%f%u;\n", G, FB[pick(g, 12)], d, a, b);
    else if (pick(g, 2)) emit(g, "%s%s.f32 %%f%u, %%f%u, %s;\n", G, FB[pick(g, 12)], d, a, EDGE[pick(g, 8)]);
    else emit(g, "%sfma.rn.ftz.f32 %%f%u, %%f%u, %s, %s;\n", G, d, a, EDGE[pick(g, 8)], pick(g, 2) ? "0f00000000" : EDGE[pick(g, 8)]);
    break;
  case 17: { /* f64 arithmetic (NaN payloads: the first NaN operand's), f32 division, neg/abs of both, rcp and sqrt */
    static const char *const DB[] = {"add.f64", "sub.rn.f64", "mul.f64", "div.rn.f64", "add.rz.f64", "div.rn.f32"};
    static const char *const RS[] = {"rcp.rn", "sqrt.rn", "rcp.rn.ftz", "sqrt.rn.ftz", "rcp.rz", "sqrt.rm"};
    unsigned k = pick(g, 10);
    if (k < 5) emit(g, "%s%s %%fd%u, %%fd%u, %%fd%u;\n", G, DB[k], d % 4, a % 4, b % 4);
    else if (k == 5) emit(g, "%s%s %%f%u, %%f%u, %%f%u;\n", G, DB[k], d, a, b);
    else if (k == 8) emit(g, "%s%s.f32 %%f%u, %%f%u;\n", G, RS[pick(g, 6)], d, a);
    else if (k == 9) emit(g, "%s%s.f64 %%fd%u, %%fd%u;\n", G, RS[(unsigned[]){0, 1, 4, 5}[pick(g, 4)]], d % 4, a % 4);
    else emit(g, "%s%s.%s %%%s%u, %%%s%u;\n", G, pick(g, 2) ? "neg" : "abs", k == 6 ? "f64" : pick(g, 4) ? "f32" : "ftz.f32",
              k == 6 ? "fd" : "f", k == 6 ? d % 4 : d, k == 6 ? "fd" : "f", k == 6 ? a % 4 : a);
    break;
  }
  case 18:
    if (pick(g, 2)) emit(g, "%sfma.rn%s.f32 %%f%u, %%f%u, %%f%u, %%f%u;\n", G, pick(g, 3) ? "" : ".ftz", d, a, b, c);
    else if (pick(g, 2)) emit(g, "%sfma.rn.f64 %%fd%u, %%fd%u, %%fd%u, %%fd%u;\n", G, d % 4, a % 4, b % 4, c % 4);
    else /* an f64 product and sum that FMA contraction fuses (with negations) */
      emit(g, "mul.f64 %%fd%u, %%fd%u, %%fd%u;\n%s%s.f64 %%fd%u, %%fd%u, %%fd%u;\n", d % 4, a % 4, b % 4, G,
           pick(g, 2) ? "add" : "sub", c % 4, pick(g, 2) ? d % 4 : c % 4, pick(g, 2) ? c % 4 : d % 4);
    break;
  case 19: { /* a product and a sum that FMA contraction fuses (with negations; both .ftz or neither) */
    const char *z = pick(g, 3) ? "" : ".ftz";
    emit(g, "mul%s.f32 %%f%u, %%f%u, %%f%u;\n%s%s%s.f32 %%f%u, %%f%u, %%f%u;\n", z, d, a, b, G, pick(g, 2) ? "add" : "sub", z, c,
         pick(g, 2) ? d : c, pick(g, 2) ? c : d);
    break;
  }
  case 20:
    if (pick(g, 2)) { /* packs and unpacks (a destination may be the source; `_` drops a part) */
      switch (pick(g, 5)) {
      case 0: emit(g, "%smov.b64 %%rd%u, {%%r%u, %%r%u};\n", G, d, a, b); break;
      case 1: emit(g, "%smov.b64 {%%r%u, %%r%u}, %%rd%u;\n", G, d, pick(g, 4) ? a : d, b); break;
      case 2: emit(g, "%smov.b32 %%r%u, {%%h%u, %%h%u};\n", G, d, a % 4, b % 4); break;
      case 3: emit(g, "%smov.b32 {%%h%u, %s}, %%r%u;\n", G, d % 4, pick(g, 2) ? "_" : "%h3", a); break;
      default: emit(g, "%smov.b64 {%%h%u, %%h%u, %%h%u, %%h%u}, %%rd%u;\n%smov.b64 %%rd%u, {%%h%u, %%h%u, %%h%u, %%h%u};\n", G,
                    a % 4, b % 4, c % 4, d % 4, a, G, b, d % 4, c % 4, b % 4, a % 4);
      }
      break;
    }
    emit(g, "%smov.b32 %%r%u, %%r%u;\n%smov.u64 %%rd%u, %d;\n%smov.f32 %%f%u, 0f%08X;\n", G, d, a, G, b,
         (int)pick(g, 100) - 50, G, c, rnd(g));
    break;
  case 21: /* what the interpreter runs: ends a region */
    emit(g, "%s%s %%r%u, %%r%u, %%r%u;\n", G, pick(g, 2) ? "div.u32" : "rem.s32", d, a, b);
    break;
  case 22: { /* bit counts of 32 and 64 bits: popc clz bfind write a u32, brev its width */
    static const char *const OP[] = {"popc", "clz", "brev", "bfind", "bfind.shiftamt"};
    unsigned k = pick(g, 5), w64 = pick(g, 2);
    const char *t = k < 3 ? (w64 ? "b64" : "b32") : w64 ? (pick(g, 2) ? "s64" : "u64") : (pick(g, 2) ? "s32" : "u32");
    if (k == 2 && w64) emit(g, "%sbrev.b64 %%rd%u, %%rd%u;\n", G, d, a);
    else emit(g, "%s%s.%s %%r%u, %%%s%u;\n", G, OP[k], t, d, w64 ? "rd" : "r", a);
    emit(g, "%sadd.s32 %%r%u, %%r%u, %d;\n", G, b, c, (int)pick(g, 9) - 4);
    break;
  }
  case 25: case 26: { /* predicate logic */
    static const char *const OP[] = {"and", "or", "xor"};
    switch (pick(g, 4)) {
    case 0: emit(g, "%s%s.pred %%p%u, %%p%u, %%p%u;\n", G, OP[pick(g, 3)], d % 4, a % 4, b % 4); break;
    case 1: emit(g, "%snot.pred %%p%u, %%p%u;\n", G, d % 4, a % 4); break;
    case 2: emit(g, "%smov.pred %%p%u, %%p%u;\n", G, d % 4, a % 4); break;
    default: emit(g, "%smov.pred %%p%u, %u;\n", G, d % 4, pick(g, 2)); break;
    }
    break;
  }
  case 23: case 24: { /* shfl.sync: b and c immediates, or movs of them (compiled for a full warp), or b from a
                       * register (interpreted); now and then a membermask of half the warp (the general path) */
    static const char *const MODE[] = {"up", "down", "bfly", "idx"};
    static const unsigned C[] = {0x1f, 0, 0x1f, 0x181f, 0x1c1f, 0x0f, 0x1003, 0x1fff};
    unsigned m = pick(g, 4), bv = pick(g, 40), cv = pick(g, 3) ? C[pick(g, 8)] : pick(g, 0x2000);
    const char *mm = pick(g, 8) ? "-1" : "0xffff";
    switch (pick(g, 3)) {
    case 0: emit(g, "%sshfl.sync.%s.b32 %%r%u|%%p%u, %%r%u, %u, %u, %s;\n", G, MODE[m], d, c % 4, a, bv, cv, mm); break;
    case 1: emit(g, "mov.u32 %%t2, %u;\nmov.b32 %%t3, %u;\n%sshfl.sync.%s.b32 %%r%u, %%r%u, %%t2, %%t3, %s;\n", bv, cv, G,
                 MODE[m], d, a, mm);
      break;
    default: emit(g, "and.b32 %%t2, %%r%u, 31;\n%sshfl.sync.%s.b32 %%r%u, %%r%u, %%t2, %u, %s;\n", b, G, MODE[m], d, a, cv, mm);
    }
    break;
  }
  default: { /* memory: a shared word of another lane, a global word; or vectors */
    if (!pick(g, 3)) { /* a vector in shared memory (lanes in a row, at random, or all at the same bytes) and in global */
      static const char *const VT[] = {"v2.u32", "v4.u32", "v2.s32", "v4.b32", "v2.u64", "v4.u16", "v2.b16"};
      unsigned t = pick(g, 7), n = VT[t][1] - '0', bits = VT[t][4] == '6' ? 64 : VT[t][5] == '6' ? 16 : 32;
      unsigned vb = n * bits / 8, sh = vb == 16 ? 4 : vb == 8 ? 3 : 2, how = pick(g, 3);
      const char *rk = bits == 64 ? "rd" : bits == 16 ? "h" : "r";
      unsigned nr = bits == 16 ? 4 : 8;
      char regs[64];
      int len = snprintf(regs, sizeof regs, "{");
      for (unsigned i = 0; i < n; i++) len += snprintf(regs + len, sizeof regs - (size_t)len, "%s%%%s%u", i ? ", " : "", rk, pick(g, nr));
      snprintf(regs + len, sizeof regs - (size_t)len, "}");
      if (how == 2) emit(g, "mov.u32 %%r%u, %u;\n", c, (unsigned)pick(g, 512 / vb) * vb);
      else if (how) emit(g, "and.b32 %%r%u, %%t0, %u;\nshl.b32 %%r%u, %%r%u, %u;\n", c, 512 / vb - 1, c, c, sh);
      else emit(g, "and.b32 %%r%u, %%r%u, %u;\nshl.b32 %%r%u, %%r%u, %u;\n", c, a, 512 / vb - 1, c, c, sh);
      emit(g, "add.u32 %%r%u, %%r%u, %%s0;\n", c, c);
      if (pick(g, 2)) emit(g, "%sld.shared.%s %s, [%%r%u];\n", G, VT[t], regs, c);
      else emit(g, "%sst.shared.%s [%%r%u], %s;\n", G, VT[t], c, regs);
      if (pick(g, 2)) emit(g, "%sld.global.%s %s, [%%rd20+%u];\n", G, VT[t], regs, (unsigned)pick(g, 256 / vb) * vb);
      else emit(g, "%sst.global.%s [%%rd20+%u], %s;\n", G, VT[t], (unsigned)pick(g, 256 / vb) * vb, regs);
      break;
    }
    emit(g, "and.b32 %%r%u, %%r%u, 63;\nshl.b32 %%r%u, %%r%u, 2;\nadd.u32 %%r%u, %%r%u, %%s0;\n", c, a, c, c, c, c);
    switch (pick(g, 4)) { /* (atomics: lanes of a warp meet on words, in lane order) */
    case 0: emit(g, "%sst.shared.u32 [%%r%u], %%r%u;\n", G, c, b); break;
    case 1: emit(g, "%sld.shared.%s32 %%r%u, [%%r%u];\n", G, s32, d, c); break;
    case 2: emit(g, "%satom.shared.add.%s32 %%r%u, [%%r%u+%u], %%r%u;\n", G, s32, d, c, (unsigned)pick(g, 2) * 4, b); break;
    default: emit(g, "%sred.shared.add.u32 [%%r%u], %u;\n", G, c, (unsigned)pick(g, 5)); break;
    }
    if (pick(g, 2)) emit(g, "%sld.global.u32 %%r%u, [%%rd20+%u];\n", G, b, (unsigned)pick(g, 64) * 4);
    else emit(g, "%sst.global.u32 [%%rd20+%u], %%r%u;\n", G, (unsigned)pick(g, 64) * 4, b);
    break;
  }
  }
}

/* A forward branch whose paths hold a few instructions that touch no memory but shared words through an address
 * register the random part never writes (what the JIT compiles inside a region, each path for its lanes, where
 * it can: lanes of one path read what the other's wrote, in the interpreter's order): `@p bra J` over one path,
 * an if/else with the fall-through side first, or nvcc's form with both sides through a bra; now and then a div
 * (the interpreter's: the region ends there). */
static void alu(gen *g, uint32_t n) {
  static const uint32_t K[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 25, 26};
  for (uint32_t i = 0; i < n; i++) {
    uint32_t k = pick(g, 16);
    if (k == 0) insn_k(g, 21);
    else if (k == 1) emit(g, "ld.shared.u32 %%r%u, [%%t1+%u];\n", pick(g, 8), 4 * pick(g, 9));
    else if (k == 2) emit(g, "st.shared.u32 [%%t1+%u], %%r%u;\n", 4 * pick(g, 9), pick(g, 8));
    else insn_k(g, K[pick(g, sizeof K / sizeof *K)]);
  }
}
static void branch(gen *g) {
  unsigned id = g->labels++, na = 1 + pick(g, 4), nb = 1 + pick(g, 4);
  char p[8];
  snprintf(p, sizeof p, "%s%%p%u", pick(g, 2) ? "!" : "", pick(g, 4));
  if (!pick(g, 4)) { /* a loop whose turns differ between lanes (1 to 8), its body one region */
    emit(g, "and.b32 %%t3, %%r%u, 7;\nadd.u32 %%t3, %%t3, 1;\n$B%u_top:\n", pick(g, 8), id);
    alu(g, na);
    emit(g, "sub.u32 %%t3, %%t3, 1;\nsetp.ne.u32 %%q0, %%t3, 0;\n@%%q0 bra $B%u_top;\n", id);
    return;
  }
  switch (pick(g, 3)) {
  case 0:
    emit(g, "@%s bra $B%u_j;\n", p, id);
    alu(g, na);
    break;
  case 1:
    emit(g, "@%s bra $B%u_e;\n", p, id);
    alu(g, na);
    emit(g, "bra.uni $B%u_j;\n$B%u_e:\n", id, id);
    alu(g, nb);
    break;
  default:
    emit(g, "@%s bra $B%u_t;\nbra.uni $B%u_f;\n$B%u_t:\n", p, id, id, id);
    alu(g, na);
    emit(g, "bra.uni $B%u_j;\n$B%u_f:\n", id, id);
    alu(g, nb);
  }
  emit(g, "$B%u_j:\n", id);
}

/* One random instruction, or a branch over a few. */
static void insn(gen *g) {
  uint32_t k = pick(g, 30);
  if (k >= 28) branch(g);
  else insn_k(g, k);
}

/* A kernel: inputs per thread from `in`, n random instructions, every register to `out`. */
static void kernel_text(gen *g, int n) {
  emit(g, WVT_HDR ".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u64 pscr)\n{\n"
          ".shared .align 16 .b8 sm[512];\n"
          ".reg .b32 %%r<8>; .reg .b64 %%rd<24>; .reg .b16 %%h<4>; .reg .f32 %%f<8>; .reg .f64 %%fd<4>; .reg .pred %%p<4>;\n"
          ".reg .b32 %%t<4>; .reg .b32 %%s0; .reg .pred %%q0;\n"
          "ld.param.u64 %%rd16, [pin];\nld.param.u64 %%rd17, [pout];\nld.param.u64 %%rd20, [pscr];\n"
          "mov.u32 %%t0, %%tid.x;\nmul.wide.u32 %%rd18, %%t0, %u;\nadd.s64 %%rd16, %%rd16, %%rd18;\n"
          "mul.wide.u32 %%rd18, %%t0, %u;\nadd.s64 %%rd17, %%rd17, %%rd18;\n"
          "mov.u32 %%s0, sm;\nshl.b32 %%t1, %%t0, 2;\nadd.u32 %%t1, %%t1, %%s0;\nst.shared.u32 [%%t1], %%t0;\nbar.sync 0;\n",
       NIN * 4, NOUT * 8);
  for (int i = 0; i < 8; i++) emit(g, "ld.global.u32 %%r%d, [%%rd16+%d];\n", i, 4 * i);
  for (int i = 0; i < 8; i++) emit(g, "ld.global.u64 %%rd%d, [%%rd16+%d];\n", i, 32 + 8 * (i / 2));
  for (int i = 0; i < 8; i++) emit(g, "ld.global.f32 %%f%d, [%%rd16+%d];\n", i, 64 + 4 * i);
  for (int i = 0; i < 4; i++) emit(g, "ld.global.u16 %%h%d, [%%rd16+%d];\n", i, 2 * i);
  for (int i = 0; i < 4; i++) emit(g, "ld.global.f64 %%fd%d, [%%rd16+%d];\n", i, 32 + 8 * i);
  for (int i = 0; i < 4; i++) emit(g, "and.b32 %%t2, %%r%d, %d;\nsetp.ne.u32 %%p%d, %%t2, 0;\n", i, 1 << i, i);
  for (int i = 0; i < n; i++) insn(g);
  for (int i = 0; i < 8; i++) emit(g, "cvt.u64.u32 %%rd19, %%r%d;\nst.global.u64 [%%rd17+%d], %%rd19;\n", i, 8 * i);
  for (int i = 0; i < 8; i++) emit(g, "st.global.u64 [%%rd17+%d], %%rd%d;\n", 64 + 8 * i, i);
  for (int i = 0; i < 8; i++) emit(g, "st.global.f32 [%%rd17+%d], %%f%d;\n", 128 + 4 * i, i);
  for (int i = 0; i < 4; i++) emit(g, "st.global.u16 [%%rd17+%d], %%h%d;\n", 160 + 2 * i, i);
  for (int i = 0; i < 4; i++) emit(g, "selp.u32 %%t3, 1, 0, %%p%d;\nst.global.u32 [%%rd17+%d], %%t3;\n", i, 168 + 4 * i);
  for (int i = 0; i < 4; i++) emit(g, "st.global.f64 [%%rd17+%d], %%fd%d;\n", 184 + 8 * i, i);
  emit(g, "ret;\n}\n");
}

static uint32_t input_word(gen *g) {
  static const uint32_t SPECIAL[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 31, 32, 33, 63, 64, 65, 16,
                                     0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffc12345u, 0x00000001u,
                                     0x807fffffu, 0x00800000u, 0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0x33800000u,
                                     0x7ff00000u, 0xfff40000u, 0x7ff80000u, 0xfff00000u}; /* (f64 high words) */
  return pick(g, 3) ? rnd(g) : SPECIAL[pick(g, sizeof SPECIAL / sizeof *SPECIAL)];
}

static void run_engine(const char *engine, const char *ptx, const uint32_t *in, uint64_t *out, uint32_t *scr,
                       uint32_t block, wv_stats *st) {
  wv_config cfg = {0};
  cfg.engine = engine;
  cfg.threads = 1; /* the CTAs race on the scratch words: one host thread, one order */
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  const wv_kernel *k = wvt_kernel(vm, ptx, "k");
  memset(out, 0, NOUT * 8 * THREADS);
  wvt_buf bufs[3] = {{(void *)in, NIN * 4 * THREADS}, {out, NOUT * 8 * THREADS}, {scr, 256}};
  wvt_run_ok(vm, k, 2, block, 3, bufs);
  wv_get_stats(vm, st);
  wv_destroy(vm);
}

/* The counters --stats shows, as the interpreter counts them (instructions, branches, barriers, memory), which the
 * JIT must reproduce. */
#define NCOUNTS 17
static void counts_of(const wv_stats *s, uint64_t c[NCOUNTS]) {
  const uint64_t v[NCOUNTS] = {s->warp_instructions, s->thread_instructions, s->divergent_branches, s->reconvergences,
                               s->forced_yields, s->barriers, s->collectives, s->collective_undefined, s->global_loads,
                               s->global_stores, s->shared_loads, s->shared_stores, s->local_loads, s->local_stores,
                               s->atomics, s->async_copies, s->ctas};
  memcpy(c, v, sizeof v);
}

static void test_random_straight_line(void **state) {
  (void)state;
  if (!wv_has_jit()) {
    wv_config cfg = {0};
    cfg.engine = "jit";
    assert_null(wv_create(&cfg)); /* built without LLVM: no JIT to compare */
    return;
  }
  static char ptx[1 << 17];
  static uint32_t in[NIN * THREADS], scr_a[64], scr_b[64];
  static uint64_t out_a[NOUT * THREADS], out_b[NOUT * THREADS];
#ifdef __SANITIZE_ADDRESS__
  uint32_t seeds = 15; /* (the sanitizer build, which CI keeps to 30 minutes with the normal one: 40 there) */
#else
  uint32_t seeds = 40;
#endif
  const char *ns = getenv("WV_JIT_DIFF_SEEDS"); /* (fewer: CMakeLists.txt's run for another CPU) */
  if (ns && atoi(ns) > 0) seeds = (uint32_t)atoi(ns);
  const char *only = getenv("WV_JIT_DIFF_PTX"); /* (SEED:FILE: that seed's inputs with FILE's kernel, to reduce one) */
  for (uint32_t seed = only ? (uint32_t)atoi(only) : 1; seed <= (only ? (uint32_t)atoi(only) : seeds); seed++) {
    gen g = {.s = seed * 2654435761u, .p = ptx, .end = ptx + sizeof ptx};
    kernel_text(&g, 40 + (int)pick(&g, 60));
    if (only && strchr(only, ':')) {
      FILE *f = fopen(strchr(only, ':') + 1, "r");
      size_t n = f ? fread(ptx, 1, sizeof ptx - 1, f) : 0;
      ptx[n] = 0;
      if (f) fclose(f);
    }
    for (int i = 0; i < NIN * THREADS; i++) in[i] = input_word(&g);
    for (int i = 0; i < 64; i++) scr_a[i] = scr_b[i] = rnd(&g);
    uint32_t block = seed % 3 ? THREADS : 80; /* 80: a partial warp */
    wv_stats sa, sb;
    run_engine("interp", ptx, in, out_a, scr_a, block, &sa);
    run_engine("jit", ptx, in, out_b, scr_b, block, &sb);
    uint64_t ca[NCOUNTS], cb[NCOUNTS];
    counts_of(&sa, ca);
    counts_of(&sb, cb);
    for (size_t i = 0; i < NCOUNTS; i++)
      if (ca[i] != cb[i]) fail_msg("seed %u: counter %zu: interp %llu jit %llu\n%s", seed, i, (unsigned long long)ca[i],
                                   (unsigned long long)cb[i], ptx);
    if (memcmp(out_a, out_b, sizeof out_a) || memcmp(scr_a, scr_b, sizeof scr_a)) {
      for (int i = 0; i < NOUT * THREADS; i++)
        if (out_a[i] != out_b[i]) {
          fprintf(stderr, "seed %u: thread %d word %d: interp %016llx jit %016llx\n%s", seed, i / NOUT, i % NOUT,
                  (unsigned long long)out_a[i], (unsigned long long)out_b[i], ptx);
          break;
        }
      fail_msg("seed %u: the JIT and the interpreter differ", seed);
    }
  }
}

/* What one engine made of a launch: status, message, invalid reads, and the counters --stats prints. */
typedef struct outcome {
  wv_status st;
  char msg[512];
  uint64_t inval;
  uint64_t counts[NCOUNTS];
} outcome;

/* Kernel k of ptx launched on one block of `block` threads under each engine (0: interp, 1: jit): its parameters
 * nbuf buffers (engine e's in bufs[e], copied in, and back out where the launch succeeds), then u32 where given
 * (a .u32); r[e]: what each made of it. Returns whether they agree: status, message, invalid reads, counters and
 * buffers. */
static int both_engines(const char *ptx, uint32_t block, size_t nbuf, wvt_buf bufs[2][3], const uint32_t *u32,
                        outcome r[2]) {
  for (int e = 0; e < 2; e++) {
    wv_config cfg = {0};
    cfg.engine = e ? "jit" : "interp";
    wv_vm *vm = wv_create(&cfg);
    assert_non_null(vm);
    const wv_kernel *k = wvt_kernel(vm, ptx, "k");
    wv_devptr p[3];
    void *args[4];
    uint32_t v = u32 ? *u32 : 0;
    for (size_t b = 0; b < nbuf; b++) {
      assert_int_equal(wv_malloc(vm, bufs[e][b].bytes, &p[b]), WV_OK);
      assert_int_equal(wv_memcpy_htod(vm, p[b], bufs[e][b].host, bufs[e][b].bytes), WV_OK);
      args[b] = &p[b];
    }
    args[nbuf] = &v;
    r[e].st = wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(block, 1, 1), 0, args);
    snprintf(r[e].msg, sizeof r[e].msg, "%s", r[e].st == WV_OK ? "" : wv_last_error(vm));
    for (size_t b = 0; b < nbuf && r[e].st == WV_OK; b++)
      assert_int_equal(wv_memcpy_dtoh(vm, bufs[e][b].host, p[b], bufs[e][b].bytes), WV_OK);
    wv_stats s;
    wv_get_stats(vm, &s);
    r[e].inval = s.invalid_reads;
    counts_of(&s, r[e].counts);
    wv_destroy(vm);
  }
  int same = r[0].st == r[1].st && !strcmp(r[0].msg, r[1].msg) && r[0].inval == r[1].inval;
  for (int i = 0; i < NCOUNTS; i++)
    if (r[0].counts[i] != r[1].counts[i]) {
      fprintf(stderr, "counter %d: interp %llu, jit %llu\n", i, (unsigned long long)r[0].counts[i], (unsigned long long)r[1].counts[i]);
      same = 0;
    }
  for (size_t b = 0; b < nbuf; b++) same &= !memcmp(bufs[0][b].host, bufs[1][b].host, bufs[0][b].bytes);
  return same;
}

/* Shared loads through one register at several offsets (one below 0), checked at the region's entry together (emit_mem.c
 * wv_em_checked_early: one test per register and size from the least and greatest offset): where any of them would
 * leave the CTA's shared bytes or be misaligned, the region must leave them all to the interpreter, which stops at
 * the first bad one with its fault (the region starts after the bar.sync: its loads' register is an input). Each
 * engine's status, message and output for bases that put none, the last, the middle or all of the loads outside (one
 * starting right at the end), or misalign them; then loads at 0 and +64 only, inside, aligned or not (bases
 * 1000 + b: base b with that kernel); then the first kernel's loads under a guard, each checked at its place
 * instead (emit_mem.c wv_em_mem: bases 2000 + b). */
static void test_shared_bounds_at_entry(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  /* the loads at 0, LO and HI from the register, each after GUARD; the first kernel's at -64 and +128, the second's
   * at +64 twice (its bases inside, aligned or not), the third's as the first's under a guard that holds (%p1: the
   * base is never 12345) */
  static const char fmt[] = WVT_HDR
      ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
      ".shared .align 16 .b8 sm[256];\n.reg .b32 %%r<8>; .reg .b64 %%rd<4>; .reg .pred %%p<2>;\n"
      "ld.param.u64 %%rd0, [pin];\nld.param.u64 %%rd1, [pout];\nld.global.u32 %%r0, [%%rd0];\nsetp.ne.u32 %%p1, %%r0, 12345;\n"
      "mov.u32 %%r1, %%tid.x;\nshl.b32 %%r1, %%r1, 2;\nadd.u32 %%r1, %%r1, %%r0;\nmov.u32 %%r2, sm;\nadd.u32 %%r1, %%r1, %%r2;\nbar.sync 0;\n"
      "%sld.shared.u32 %%r3, [%%r1];\n%sld.shared.u32 %%r4, [%%r1+%d];\n%sld.shared.u32 %%r5, [%%r1+%d];\n"
      "add.u32 %%r6, %%r3, %%r4;\nadd.u32 %%r6, %%r6, %%r5;\n"
      "mul.wide.u32 %%rd2, %%r1, 4;\nadd.s64 %%rd3, %%rd1, %%rd2;\nst.global.u32 [%%rd3], %%r6;\nret;\n}\n";
  char ptx[3][1024];
  snprintf(ptx[0], sizeof ptx[0], fmt, "", "", -64, "", 128);
  snprintf(ptx[1], sizeof ptx[1], fmt, "", "", 64, "", 64);
  snprintf(ptx[2], sizeof ptx[2], fmt, "@%p1 ", "@%p1 ", -64, "@%p1 ", 128);
  static const uint32_t base[] = {64,   0,    4,    60,   92,   128,  156,  160,  192,  2,    1u << 20, 0u - 1024,
                                  68,   1002, 1001, 1000, 2064, 2092, 2068, 2002, 2000, 2060};
  for (size_t i = 0; i < sizeof base / sizeof *base; i++) {
    int kernel = base[i] >= 1000 && base[i] < 3000 ? (int)(base[i] / 1000) : 0;
    uint32_t in[2] = {base[i] - 1000u * (uint32_t)kernel, base[i] - 1000u * (uint32_t)kernel};
    static uint32_t out[2][4096];
    memset(out, 0, sizeof out);
    wvt_buf bufs[2][3] = {{{&in[0], 4}, {out[0], sizeof out[0]}}, {{&in[1], 4}, {out[1], sizeof out[1]}}};
    outcome r[2];
    if (!both_engines(ptx[kernel], 16, 2, bufs, NULL, r))
      fail_msg("base %u: interp %s \"%s\", jit %s \"%s\"", base[i], wv_status_name(r[0].st), r[0].msg,
               wv_status_name(r[1].st), r[1].msg);
    if (i == 0) assert_int_equal(r[0].st, WV_OK); /* (all inside: the compiled path ran) */
    if (i == 11) assert_int_not_equal(r[0].st, WV_OK); /* (sm - 1024 - 64 wraps below 0: the second load faults) */
    if (i == 7) assert_int_not_equal(r[0].st, WV_OK); /* (160 + 15 * 4 + 128 + 4: the last load is outside) */
    if (i == 12) assert_int_not_equal(r[0].st, WV_OK); /* (68 + 15 * 4 + 128: the last load starts at the end) */
    if (i == 13 || i == 14) assert_int_not_equal(r[0].st, WV_OK); /* (the second kernel at 2, 1: misaligned) */
    if (i == 15 || i == 16) assert_int_equal(r[0].st, WV_OK);
    if (i >= 17 && i <= 19) assert_int_not_equal(r[0].st, WV_OK); /* (guarded: the last outside, at the end, misaligned) */
  }
}

/* A global load that runs many times (a loop's body) finds its allocation first through exec's check, then tests its
 * lanes against that window in the compiled code itself (emit_mem.c mem_check): an address beyond either end of
 * the allocation, one misaligned, or one in another place must not pass that test, so that the interpreter's exact
 * path decides (a fault, or a read outside every allocation, counted). Each turn reads in[t + offs[turn] / 4]:
 * the first turns inside, then one of the cases; each engine's status, message, invalid reads and output. */
static void test_global_window(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  static const char ptx[] = WVT_HDR
      ".visible .entry k(.param .u64 pin, .param .u64 poffs, .param .u64 pout, .param .u32 n)\n{\n"
      ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
      "ld.param.u64 %rd0, [pin];\nld.param.u64 %rd1, [poffs];\nld.param.u64 %rd2, [pout];\nld.param.u32 %r7, [n];\n"
      "mov.u32 %r1, %tid.x;\nshl.b32 %r1, %r1, 2;\ncvt.u64.u32 %rd3, %r1;\nadd.s64 %rd3, %rd0, %rd3;\n"
      "mov.u32 %r2, 0;\nmov.u32 %r3, 0;\n"
      "L:\nmul.wide.u32 %rd4, %r2, 8;\nadd.s64 %rd4, %rd1, %rd4;\nld.global.u64 %rd5, [%rd4];\n"
      "add.s64 %rd6, %rd3, %rd5;\nld.global.u32 %r4, [%rd6];\nadd.u32 %r3, %r3, %r4;\n"
      "add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, %r7;\n@%p1 bra L;\n"
      "cvt.u64.u32 %rd7, %r1;\nadd.s64 %rd7, %rd2, %rd7;\nst.global.u32 [%rd7], %r3;\nret;\n}\n";
  /* the last turn's offset in bytes; in is 256 bytes, 32 threads read 4 bytes each from in + 4t + offset */
  static const int64_t last[] = {0, 128, 132, 2, -4, 1 << 20, 4096, -128, 126};
  for (size_t i = 0; i < sizeof last / sizeof *last; i++) {
    uint32_t in[2][64], out[2][32] = {{0}}, n = 8;
    int64_t offs[2][8] = {{0, 0, 0, 0, 0, 0, 0, last[i]}, {0, 0, 0, 0, 0, 0, 0, last[i]}};
    for (int j = 0; j < 64; j++) in[0][j] = in[1][j] = 1000u + (uint32_t)j;
    wvt_buf bufs[2][3];
    for (int e = 0; e < 2; e++)
      bufs[e][0] = (wvt_buf){in[e], sizeof in[e]}, bufs[e][1] = (wvt_buf){offs[e], sizeof offs[e]}, bufs[e][2] = (wvt_buf){out[e], sizeof out[e]};
    outcome r[2];
    if (!both_engines(ptx, 32, 3, bufs, &n, r))
      fail_msg("offset %lld: interp %s \"%s\" (%llu invalid reads), jit %s \"%s\" (%llu)", (long long)last[i],
               wv_status_name(r[0].st), r[0].msg, (unsigned long long)r[0].inval, wv_status_name(r[1].st), r[1].msg,
               (unsigned long long)r[1].inval);
    if (i <= 1) assert_int_equal(r[0].st, WV_OK); /* (inside: the compiled test passed every turn) */
    if (i == 3) assert_int_not_equal(r[0].st, WV_OK); /* (misaligned) */
  }
}

/* The same for a module's bank of constants (ld.const through a register: the bank is an allocation of the heap, so
 * the site keeps it as its window too, jit_rt.c): each turn reads cs[t + offs[turn] / 4] of a 256-byte .const
 * array, the first turns inside, then beyond either end, misaligned, or far away; each engine's status, message,
 * invalid reads and output. */
static void test_const_window(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  char ptx[4096];
  int at = snprintf(ptx, sizeof ptx, "%s.const .align 4 .u32 cs[64] = {", WVT_HDR);
  for (int j = 0; j < 64; j++) at += snprintf(ptx + at, sizeof ptx - (size_t)at, "%s%d", j ? ", " : "", 5000 + 3 * j);
  snprintf(ptx + at, sizeof ptx - (size_t)at, "%s",
           "};\n.visible .entry k(.param .u64 poffs, .param .u64 pout, .param .u32 n)\n{\n"
           ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
           "ld.param.u64 %rd1, [poffs];\nld.param.u64 %rd2, [pout];\nld.param.u32 %r7, [n];\n"
           "mov.u32 %r1, %tid.x;\nshl.b32 %r1, %r1, 2;\ncvt.u64.u32 %rd3, %r1;\nmov.u64 %rd0, cs;\nadd.s64 %rd3, %rd0, %rd3;\n"
           "mov.u32 %r2, 0;\nmov.u32 %r3, 0;\n"
           "L:\nmul.wide.u32 %rd4, %r2, 8;\nadd.s64 %rd4, %rd1, %rd4;\nld.global.u64 %rd5, [%rd4];\n"
           "add.s64 %rd6, %rd3, %rd5;\nld.const.u32 %r4, [%rd6];\nadd.u32 %r3, %r3, %r4;\n"
           "add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, %r7;\n@%p1 bra L;\n"
           "cvt.u64.u32 %rd7, %r1;\nadd.s64 %rd7, %rd2, %rd7;\nst.global.u32 [%rd7], %r3;\nret;\n}\n");
  static const int64_t last[] = {0, 128, 132, 2, -4, 1 << 20, 4096, -128, 126};
  for (size_t i = 0; i < sizeof last / sizeof *last; i++) {
    uint32_t out[2][32] = {{0}}, n = 8;
    int64_t offs[2][8] = {{0, 0, 0, 0, 0, 0, 0, last[i]}, {0, 0, 0, 0, 0, 0, 0, last[i]}};
    wvt_buf bufs[2][3];
    for (int e = 0; e < 2; e++) bufs[e][0] = (wvt_buf){offs[e], sizeof offs[e]}, bufs[e][1] = (wvt_buf){out[e], sizeof out[e]};
    outcome r[2];
    if (!both_engines(ptx, 32, 2, bufs, &n, r))
      fail_msg("offset %lld: interp %s \"%s\" (%llu invalid reads), jit %s \"%s\" (%llu)", (long long)last[i],
               wv_status_name(r[0].st), r[0].msg, (unsigned long long)r[0].inval, wv_status_name(r[1].st), r[1].msg,
               (unsigned long long)r[1].inval);
    if (i <= 1) { /* (inside: the compiled test passed every turn; lane 1 read cs[1] seven times, then cs[33]) */
      assert_int_equal(r[0].st, WV_OK);
      assert_int_equal(out[0][1], 7u * 5003u + (i ? 5099u : 5003u));
    }
    if (i == 3) assert_int_not_equal(r[0].st, WV_OK); /* (misaligned) */
  }
}

/* ld.param at a fixed offset (emit_mem.c: one load for the warp from the parameter buffer, widened as its type
 * says; tested at the region's entry with the region's other ld.params, wv_em_checked_early): a .u32 parameter's
 * bytes read as TYPE at +OFF, the last ones past the buffer's 12 bytes (a fault); each engine's status, message
 * and output. */
static void test_param_bounds(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  static const char fmt[] = WVT_HDR
      ".visible .entry k(.param .u64 pout, .param .u32 a)\n{\n.reg .b16 %%h<2>; .reg .b32 %%r<8>; .reg .b64 %%rd<4>;\n"
      "ld.param.u64 %%rd1, [pout];\nld.param.%s %%%s1, [a+%d];\n%s"
      "mov.u32 %%r5, %%tid.x;\nmul.wide.u32 %%rd2, %%r5, 4;\nadd.s64 %%rd3, %%rd1, %%rd2;\nst.global.u32 [%%rd3], %%r1;\nret;\n}\n";
  static const struct { const char *type; int off; int ok; } c[] = {
      {"u32", 0, 1}, {"s8", 3, 1}, {"u16", 2, 1}, {"s16", 2, 1}, {"u32", 4, 0}, {"u8", 4, 0}, {"u16", 3, 0}};
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    char ptx[1024];
    int h = c[i].type[1] != '3'; /* (8 and 16 bits: a .b16 register, widened) */
    snprintf(ptx, sizeof ptx, fmt, c[i].type, h ? "h" : "r", c[i].off, h ? (c[i].type[0] == 's' ? "cvt.s32.s16 %r1, %h1;\n" : "cvt.u32.u16 %r1, %h1;\n") : "");
    uint32_t out[2][32] = {{0}}, a = 0x80f0c0d7u;
    wvt_buf bufs[2][3] = {{{out[0], sizeof out[0]}}, {{out[1], sizeof out[1]}}};
    outcome r[2];
    if (!both_engines(ptx, 32, 1, bufs, &a, r))
      fail_msg("%s at +%d: interp %s \"%s\" %#x, jit %s \"%s\" %#x", c[i].type, c[i].off, wv_status_name(r[0].st), r[0].msg,
               out[0][31], wv_status_name(r[1].st), r[1].msg, out[1][31]);
    assert_int_equal(r[0].st == WV_OK, c[i].ok);
  }
}

/* `if (tid >= n) return;` and a second guard after it (select.c wv_jit_guard): a region goes on through a guard
 * where no lane of the warp takes it, stops before it where one does (the lanes that go on start the next region,
 * which goes on through the second guard), and the interpreter runs the warps that all return. Three warps
 * against thresholds that make each warp go on whole, return whole or split, with thread 37 (the second guard) in
 * the middle warp; the guard as `@p` and as `@!p`. Each engine's output and counters. */
static void test_guard(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  static const char fmt[] = WVT_HDR
      ".visible .entry k(.param .u64 pout, .param .u32 n)\n{\n.reg .b32 %%r<8>; .reg .b64 %%rd<4>; .reg .pred %%p<3>;\n"
      "ld.param.u64 %%rd1, [pout];\nld.param.u32 %%r7, [n];\nmov.u32 %%r5, %%tid.x;\nmul.lo.u32 %%r3, %%r5, 3;\n"
      "setp.%s.u32 %%p1, %%r5, %%r7;\n@%s%%p1 bra X;\nadd.u32 %%r3, %%r3, %%r7;\nmul.wide.u32 %%rd2, %%r5, 4;\n"
      "add.s64 %%rd3, %%rd1, %%rd2;\nsetp.eq.u32 %%p2, %%r5, 37;\n@%%p2 bra X;\nxor.b32 %%r3, %%r3, 1;\n"
      "st.global.u32 [%%rd3], %%r3;\nX:\nret;\n}\n";
  char ptx[2][1024];
  snprintf(ptx[0], sizeof ptx[0], fmt, "ge", "");
  snprintf(ptx[1], sizeof ptx[1], fmt, "lt", "!");
  static const uint32_t n[] = {0, 20, 32, 37, 38, 64, 90, 96, 200};
  for (int kernel = 0; kernel < 2; kernel++)
    for (size_t i = 0; i < sizeof n / sizeof *n; i++) {
      uint32_t out[2][96] = {{0}}, v = n[i];
      wvt_buf bufs[2][3] = {{{out[0], sizeof out[0]}}, {{out[1], sizeof out[1]}}};
      outcome r[2];
      if (!both_engines(ptx[kernel], 96, 1, bufs, &v, r))
        fail_msg("kernel %d, n %u: interp %s \"%s\", jit %s \"%s\"", kernel, n[i], wv_status_name(r[0].st), r[0].msg,
                 wv_status_name(r[1].st), r[1].msg);
      assert_int_equal(r[0].st, WV_OK);
      for (uint32_t t = 0; t < 96; t++)
        assert_int_equal(out[0][t], t < n[i] && t != 37 ? (3 * t + n[i]) ^ 1 : 0);
    }
}

/* A .shared load on one path of a branch a region holds, through the region's address register (emit_mem.c
 * wv_em_checked_early): lanes that do not take the path may hold addresses outside the variables (a scan's lane 0
 * skips its read of [r - 4]), so the entry tests it only for the host's bytes and the branch tests the lanes that
 * take it. Lanes below the input's threshold skip the read of sm[tid - 16]: from 16 on every reader is inside; below
 * it, a reader's address is before sm, which the interpreter counts as an invalid read (reads 0). Each engine's
 * status, message, invalid reads and output. */
static void test_shared_on_path(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  static const char ptx[] = WVT_HDR
      ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
      ".shared .align 16 .b8 sm[256];\n.reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
      "ld.param.u64 %rd0, [pin];\nld.param.u64 %rd1, [pout];\nld.global.u32 %r0, [%rd0];\n"
      "mov.u32 %r5, %tid.x;\nshl.b32 %r1, %r5, 2;\nmov.u32 %r2, sm;\nadd.u32 %r1, %r1, %r2;\n"
      "st.shared.u32 [%r1], %r5;\nbar.sync 0;\n"
      "ld.shared.u32 %r3, [%r1];\nsetp.lt.u32 %p1, %r5, %r0;\n@%p1 bra J;\n"
      "ld.shared.u32 %r4, [%r1+-64];\nadd.u32 %r3, %r3, %r4;\nmul.lo.u32 %r3, %r3, 3;\n"
      "J:\nmul.wide.u32 %rd2, %r5, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r3;\nret;\n}\n";
  static const uint32_t from[] = {16, 32, 20, 15, 1, 0};
  for (size_t i = 0; i < sizeof from / sizeof *from; i++) {
    uint32_t in[2] = {from[i], from[i]}, out[2][32] = {{0}};
    wvt_buf bufs[2][3] = {{{&in[0], 4}, {out[0], sizeof out[0]}}, {{&in[1], 4}, {out[1], sizeof out[1]}}};
    outcome r[2];
    if (!both_engines(ptx, 32, 2, bufs, NULL, r))
      fail_msg("from %u: interp %s \"%s\" (%llu invalid reads), jit %s \"%s\" (%llu)", from[i], wv_status_name(r[0].st),
               r[0].msg, (unsigned long long)r[0].inval, wv_status_name(r[1].st), r[1].msg, (unsigned long long)r[1].inval);
    assert_int_equal(r[0].inval, from[i] >= 16 ? 0 : 16 - from[i]);
    assert_int_equal(out[0][20], from[i] > 20 ? 20 : 3 * (20 + 4));
  }
}

/* Global and .shared accesses on a branch's path whose addresses the path computes (select.c on_path 2): each
 * checks itself there, for the lanes that take the path, and where it would fail the region returns to the branch
 * with the state it had there (emit.c path_bail), so the interpreter runs the branch and reports what it finds.
 * Lanes at or above the threshold in[0] read sm[0] (0: counted before the next fails), then in[tid + in[1] / 4],
 * and store to sm[tid]: in the first kernel on the
 * path that falls through; in the second (an if/else) on the path taken, after the lanes below the threshold have
 * added 100 on the other (the fall-through runs first): a region that kept that on its way back would add it twice.
 * A path no lane takes checks nothing (its lanes' addresses are any). Each engine's status, message, invalid reads
 * and output. */
static void test_global_on_path(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  static const char fmt[] = WVT_HDR
      ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
      ".shared .align 4 .b8 sm[128];\n.reg .b32 %%r<10>; .reg .b64 %%rd<4>; .reg .pred %%p<2>;\n"
      "ld.param.u64 %%rd0, [pin];\nld.param.u64 %%rd1, [pout];\nld.global.u32 %%r0, [%%rd0];\nld.global.u32 %%r9, [%%rd0+4];\n"
      "mov.u32 %%r5, %%tid.x;\nmul.lo.u32 %%r3, %%r5, 3;\nmov.u32 %%r2, sm;\nsetp.%s.u32 %%p1, %%r5, %%r0;\n@%%p1 bra %s;\n%s"
      "ld.shared.u32 %%r8, [%%r2];\nadd.u32 %%r3, %%r3, %%r8;\nshl.b32 %%r1, %%r5, 2;\nadd.u32 %%r1, %%r1, %%r9;\ncvt.u64.u32 %%rd2, %%r1;\nadd.s64 %%rd2, %%rd0, %%rd2;\n"
      "ld.global.u32 %%r4, [%%rd2];\nadd.u32 %%r3, %%r3, %%r4;\nmov.u32 %%r6, sm;\nshl.b32 %%r7, %%r5, 2;\n"
      "add.u32 %%r6, %%r6, %%r7;\nst.shared.u32 [%%r6], %%r3;\n"
      "J:\nmul.wide.u32 %%rd3, %%r5, 4;\nadd.s64 %%rd3, %%rd1, %%rd3;\nst.global.u32 [%%rd3], %%r3;\nret;\n}\n";
  char ptx[2][2048];
  snprintf(ptx[0], sizeof ptx[0], fmt, "lt", "J", "");
  snprintf(ptx[1], sizeof ptx[1], fmt, "ge", "E", "add.u32 %r3, %r3, 100;\nbra.uni J;\nE:\n");
  /* the threshold and the path's byte offset: inside; half the warp inside; half the warp past the end; no lane
   * on the path (far outside); one lane far outside; misaligned; before the allocation */
  static const int32_t c[][2] = {{0, 8}, {16, 128}, {16, 160}, {32, 1 << 20}, {31, 1 << 20}, {0, 2}, {0, -4}};
  for (int kernel = 0; kernel < 2; kernel++)
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
      uint32_t in[2][64], out[2][32] = {{0}};
      for (int j = 0; j < 64; j++) in[0][j] = in[1][j] = 1000u + (uint32_t)j;
      in[0][0] = in[1][0] = (uint32_t)c[i][0];
      in[0][1] = in[1][1] = (uint32_t)c[i][1];
      wvt_buf bufs[2][3] = {{{in[0], sizeof in[0]}, {out[0], sizeof out[0]}}, {{in[1], sizeof in[1]}, {out[1], sizeof out[1]}}};
      outcome r[2];
      if (!both_engines(ptx[kernel], 32, 2, bufs, NULL, r))
        fail_msg("kernel %d, case %zu: interp %s \"%s\" (%llu invalid reads, lane 0 %u), jit %s \"%s\" (%llu, lane 0 %u)",
                 kernel, i, wv_status_name(r[0].st), r[0].msg, (unsigned long long)r[0].inval, out[0][0],
                 wv_status_name(r[1].st), r[1].msg, (unsigned long long)r[1].inval, out[1][0]);
      if (i <= 1 || i == 3) { /* (inside, or no lane on the path) */
        assert_int_equal(r[0].st, WV_OK);
        assert_int_equal(r[0].inval, 0);
        assert_int_equal(out[0][20], 60 + (i == 3 ? 100u * (uint32_t)kernel : 1000u + 20 + (uint32_t)c[i][1] / 4));
      } else {
        assert_true(r[0].st != WV_OK || r[0].inval > 0);
      }
      if (i == 2) assert_int_equal(out[0][0], 100u * (uint32_t)kernel); /* (past the end: the launch goes on) */
    }
}

/* A site's window is the allocation it found last only while nothing was freed: a warp reads a row of an
 * allocation device malloc made (lane 0's, every lane's address from it), frees it, and reads the same row again
 * at the same instruction. The second read must go as the interpreter's does (no allocation there now), not
 * through the window of the first. */
static void test_freed_window(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  static const char ptx[] = WVT_HDR
      ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n"
      ".extern .func free(.param .b64 free_param_0);\n"
      ".visible .entry k(.param .u64 pout)\n{\n"
      ".reg .b32 %r<12>; .reg .b64 %rd<12>; .reg .pred %p<4>;\n"
      "ld.param.u64 %rd9, [pout];\nmov.u32 %r1, %laneid;\nshl.b32 %r2, %r1, 2;\ncvt.u64.u32 %rd2, %r2;\n"
      "{ .param .b64 param0; st.param.b64 [param0+0], 128; .param .b64 retval0;\n"
      "call.uni (retval0), malloc, (param0);\nld.param.b64 %rd1, [retval0+0]; }\n"
      "mov.b64 {%r3, %r4}, %rd1;\nshfl.sync.idx.b32 %r3, %r3, 0, 31, -1;\nshfl.sync.idx.b32 %r4, %r4, 0, 31, -1;\n"
      "mov.b64 %rd3, {%r3, %r4};\nadd.s64 %rd4, %rd3, %rd2;\nmul.lo.u32 %r5, %r1, 7;\nst.global.u32 [%rd4], %r5;\n"
      "mov.u32 %r6, 0;\nmov.u32 %r7, 0;\n"
      "L:\nld.global.u32 %r8, [%rd4];\nadd.u32 %r7, %r7, %r8;\nadd.u32 %r6, %r6, 1;\n"
      "setp.ne.u32 %p1, %r6, 1;\n@%p1 bra NOFREE;\n"
      "{ .param .b64 param0; st.param.b64 [param0+0], %rd1;\ncall.uni free, (param0); }\n"
      "NOFREE:\nsetp.lt.u32 %p2, %r6, 2;\n@%p2 bra L;\n"
      "add.s64 %rd5, %rd9, %rd2;\nst.global.u32 [%rd5], %r7;\nret;\n}\n";
  uint32_t out[2][32] = {{0}};
  wvt_buf bufs[2][3] = {{{out[0], sizeof out[0]}}, {{out[1], sizeof out[1]}}};
  outcome r[2];
  if (!both_engines(ptx, 32, 1, bufs, NULL, r))
    fail_msg("interp %s \"%s\" (%llu invalid reads, lane 1 %u), jit %s \"%s\" (%llu, lane 1 %u)", wv_status_name(r[0].st),
             r[0].msg, (unsigned long long)r[0].inval, out[0][1], wv_status_name(r[1].st), r[1].msg,
             (unsigned long long)r[1].inval, out[1][1]);
  assert_true(r[0].st != WV_OK || r[0].inval > 0); /* (the interpreter sees the read after the free) */
}

/* f32 add, sub, mul and fma read a register one of them wrote as it was made, its NaN not yet the canonical one
 * (emit.c f32_in), which only they and setp may see: a chain through fma's negated operands (sub of a product,
 * contracted as ptxas does), a .ftz product (flushed: a subnormal is 0 to what reads it, .ftz or not), a guarded
 * write (the lanes it skips keep the old value) and bit readers of chain values (mov.b32, neg, abs: the canonical
 * NaN's bits). Each lane's four inputs are edge values (NaNs of other payloads and sign, infinities, subnormals,
 * 2^-126, signed zeros); each engine's output. */
static void test_f32_chains(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  static const char ptx[] = WVT_HDR
      ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
      ".reg .f32 %f<20>; .reg .b32 %r<4>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
      "ld.param.u64 %rd0, [pin];\nld.param.u64 %rd1, [pout];\nmov.u32 %r0, %tid.x;\n"
      "mul.wide.u32 %rd2, %r0, 16;\nadd.s64 %rd3, %rd0, %rd2;\n"
      "ld.global.f32 %f1, [%rd3];\nld.global.f32 %f2, [%rd3+4];\nld.global.f32 %f3, [%rd3+8];\nld.global.f32 %f4, [%rd3+12];\n"
      "add.f32 %f5, %f1, %f2;\nmul.f32 %f6, %f5, %f3;\nsub.f32 %f7, %f4, %f6;\n"   /* fma(-f5, f3, f4) */
      "mul.f32 %f8, %f5, %f4;\nsub.f32 %f9, %f8, %f7;\n"                            /* fma(f5, f4, -f7) */
      "mul.ftz.f32 %f10, %f1, %f3;\nadd.f32 %f11, %f10, %f2;\n"
      "mov.f32 %f12, %f3;\nsetp.gtu.f32 %p1, %f9, %f11;\n@%p1 add.f32 %f12, %f9, %f1;\nmul.rn.f32 %f13, %f12, %f2;\n"
      "mov.b32 %r1, %f5;\nneg.f32 %f14, %f7;\nabs.f32 %f15, %f9;\nselp.u32 %r2, 1, 0, %p1;\n"
      "mul.wide.u32 %rd4, %r0, 40;\nadd.s64 %rd5, %rd1, %rd4;\n"
      "st.global.f32 [%rd5], %f5;\nst.global.f32 [%rd5+4], %f7;\nst.global.f32 [%rd5+8], %f9;\nst.global.f32 [%rd5+12], %f10;\n"
      "st.global.f32 [%rd5+16], %f11;\nst.global.f32 [%rd5+20], %f12;\nst.global.f32 [%rd5+24], %f13;\nst.global.u32 [%rd5+28], %r1;\n"
      "st.global.f32 [%rd5+32], %f14;\nst.global.u32 [%rd5+36], %r2;\nret;\n}\n";
  static const uint32_t edge[] = {0x7fc12345u, 0xffc00001u, 0x7f800001u, 0xff8abcdeu, 0x7f800000u, 0xff800000u,
                                  0x00000001u, 0x807fffffu, 0x00800000u, 0x80000000u, 0x00000000u, 0x3fc00000u,
                                  0xbf800000u, 0x40490fdbu, 0x1f800000u, 0x7f7fffffu};
  uint32_t in[2][128], out[2][320] = {{0}};
  for (int i = 0; i < 128; i++) in[0][i] = in[1][i] = edge[(i * 7 + i / 16) % 16]; /* (every pair meets) */
  wvt_buf bufs[2][3] = {{{in[0], sizeof in[0]}, {out[0], sizeof out[0]}}, {{in[1], sizeof in[1]}, {out[1], sizeof out[1]}}};
  outcome r[2];
  int same = both_engines(ptx, 32, 2, bufs, NULL, r);
  for (int i = 0; !same && i < 320; i++)
    if (out[0][i] != out[1][i]) fail_msg("thread %d word %d: interp %08x jit %08x", i / 10, i % 10, out[0][i], out[1][i]);
  assert_true(same);
  assert_int_equal(r[0].st, WV_OK);
  assert_int_equal(out[0][7], 0x7fffffffu); /* (lane 0: NaN + ..., moved as bits: the canonical NaN) */
}

/* Warps of a CTA take turns between barriers in one order under both engines (sched.c: warp by warp, the last to
 * arrive at a barrier going on past it at once; under the JIT a converged warp's turn of compiled regions up to a
 * bar.sync or bar.red is quick_turn's): 8 warps update one shared word without atomics (v = 7v + warp + 1, a race
 * whose outcome is that order) and record what each saw, through a loop whose back edge and a branch all lanes take
 * join regions, a forward branch whose lanes part in one warp every other turn, a bar.red.popc and a bar.sync; then
 * each engine's records, the word and the barrier's counts. */
static void test_barrier_order(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  static const char ptx[] = WVT_HDR
      ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
      ".shared .align 4 .b32 sm[1];\n.reg .b32 %r<16>; .reg .b64 %rd<6>; .reg .pred %p<4>;\n"
      "ld.param.u64 %rd0, [pin];\nld.param.u64 %rd1, [pout];\nld.global.u32 %r9, [%rd0];\n"
      "mov.u32 %r1, %tid.x;\nshr.u32 %r2, %r1, 5;\nmov.u32 %r3, sm;\nmov.u32 %r8, 0;\nmov.u32 %r11, 0;\n"
      "L:\n"
      "ld.shared.u32 %r4, [%r3];\nmad.lo.u32 %r5, %r4, 7, %r2;\nadd.u32 %r5, %r5, 1;\nst.shared.u32 [%r3], %r5;\n"
      "mad.lo.u32 %r6, %r8, 16, %r2;\nmul.wide.u32 %rd2, %r6, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r4;\n"
      "and.b32 %r7, %r8, 1;\nsetp.eq.u32 %p1, %r7, 0;\n@%p1 bra EVEN;\n"
      "setp.lt.u32 %p3, %r1, 40;\n@%p3 bra EVEN;\nadd.u32 %r11, %r11, %r2;\n"
      "EVEN:\n"
      "bar.red.popc.u32 %r10, 0, %p1;\n"
      "ld.shared.u32 %r4, [%r3];\nmad.lo.u32 %r5, %r4, 5, %r2;\nadd.u32 %r5, %r5, %r10;\nst.shared.u32 [%r3], %r5;\n"
      "st.global.u32 [%rd3+32], %r4;\n"
      "bar.sync 0;\n"
      "add.u32 %r8, %r8, 1;\nsetp.lt.u32 %p2, %r8, %r9;\n@%p2 bra L;\n"
      "ld.shared.u32 %r4, [%r3];\nst.global.u32 [%rd1+1024], %r4;\n"
      "mul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd5, %rd1, %rd4;\nst.global.u32 [%rd5+1028], %r11;\nret;\n}\n";
  uint32_t in[2] = {12, 12}, out[2][1024] = {{0}};
  wvt_buf bufs[2][3] = {{{&in[0], 4}, {out[0], sizeof out[0]}}, {{&in[1], 4}, {out[1], sizeof out[1]}}};
  outcome r[2];
  int same = both_engines(ptx, 256, 2, bufs, NULL, r);
  for (int i = 0; !same && i < 1024; i++)
    if (out[0][i] != out[1][i]) fail_msg("word %d: interp %u jit %u", i, out[0][i], out[1][i]);
  assert_true(same);
  assert_int_equal(r[0].st, WV_OK);
  for (uint32_t w = 1; w < 8; w++) /* (the first phase: warp by warp in order, each seeing the one before's value) */
    assert_int_equal(out[0][w], 7 * out[0][w - 1] + w);
  assert_int_equal(out[0][8 + 7], 7 * out[0][7] + 7 + 1); /* (warp 7, last at the bar.red, goes on at once: it sees its own value) */
}

/* Shared loads through one register at eight offsets, two such groups with their loads interleaved (emit_mem.c
 * wv_em_hoist_loads: each group made in chunks at its first load, its choice of row, one element or gather for each
 * half-warp made once at the entry; where a branch of the region comes before a chunk's last load, that chunk is
 * made at the entry), each value folded into an order-sensitive sum at once. The first register's lanes make a row
 * (tid * 4), one element per half-warp ((tid / 16) * 64), a gather (tid * 12) or rows apart ((tid / 16) * 64 + tid
 * * 4) as mode says; the second's a row that both halves read. On full and partial warps, two warps, with the
 * branch (bit 16 of mode) and without: each engine's status, counters and output. */
static void test_shared_load_chunks(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  char ptx[4096];
  int n = snprintf(ptx, sizeof ptx, "%s",
      WVT_HDR ".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 mode)\n{\n"
      ".shared .align 16 .b8 sm[2048];\n.reg .b32 %r<64>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
      "ld.param.u64 %rd0, [pin];\nld.param.u64 %rd1, [pout];\nld.param.u32 %r0, [mode];\n"
      "mov.u32 %r1, %tid.x;\nmov.u32 %r2, sm;\nmul.wide.u32 %rd2, %r1, 32;\nadd.s64 %rd3, %rd0, %rd2;\n"
      "shl.b32 %r3, %r1, 2;\nadd.u32 %r3, %r3, %r2;\n");
  for (int j = 0; j < 8; j++) /* sm word tid + 64 j = in[8 tid + j] */
    n += snprintf(ptx + n, sizeof ptx - (size_t)n, "ld.global.u32 %%r%d, [%%rd3+%d];\nst.shared.u32 [%%r3+%d], %%r%d;\n",
                  40 + j, 4 * j, 256 * j, 40 + j);
  n += snprintf(ptx + n, sizeof ptx - (size_t)n, "%s",
      "and.b32 %r4, %r0, 255;\nshr.u32 %r5, %r0, 8;\nand.b32 %r5, %r5, 255;\nshr.u32 %r6, %r1, 4;\n"
      "mul.lo.u32 %r7, %r1, %r4;\nmad.lo.u32 %r7, %r6, %r5, %r7;\nadd.u32 %r7, %r7, %r2;\n" /* first register */
      "and.b32 %r8, %r1, 15;\nshl.b32 %r8, %r8, 2;\nadd.u32 %r8, %r8, %r2;\nadd.u32 %r8, %r8, 1024;\n" /* second */
      "and.b32 %r9, %r0, 65536;\nsetp.ne.u32 %p1, %r9, 0;\nmov.u32 %r10, 1;\nmov.u32 %r11, 2;\n"
      "bar.sync 0;\n");
  for (int j = 0; j < 8; j++) {
    if (j == 3) /* a branch the region holds, before the later chunks' last loads */
      n += snprintf(ptx + n, sizeof ptx - (size_t)n, "@%%p1 bra J;\nadd.u32 %%r10, %%r10, 5;\nJ:\n");
    n += snprintf(ptx + n, sizeof ptx - (size_t)n,
                  "ld.shared.u32 %%r%d, [%%r7+%d];\nmad.lo.u32 %%r10, %%r10, 3, %%r%d;\n"
                  "ld.shared.u32 %%r%d, [%%r8+%d];\nmad.lo.u32 %%r11, %%r11, 5, %%r%d;\n",
                  20 + j, 4 * j, 20 + j, 30 + j, 64 * j, 30 + j);
  }
  n += snprintf(ptx + n, sizeof ptx - (size_t)n, "%s",
      "mul.lo.u32 %r12, %r11, 7;\nxor.b32 %r12, %r12, %r10;\nmul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd5, %rd1, %rd4;\n"
      "st.global.u32 [%rd5], %r12;\nret;\n}\n");
  assert_true(n > 0 && (size_t)n < sizeof ptx);
  static const uint32_t modes[] = {4, 64 << 8, 12, 4 | 64 << 8}, blocks[] = {32, 27, 64, 50};
  for (int br = 0; br < 2; br++)
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
      for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        static uint32_t in[2][512], out[2][64];
        for (uint32_t i = 0; i < 512; i++) in[0][i] = in[1][i] = i * 2654435761u ^ (uint32_t)m;
        memset(out, 0, sizeof out);
        uint32_t mode = modes[m] | (uint32_t)br << 16;
        wvt_buf bufs[2][3] = {{{in[0], sizeof in[0]}, {out[0], sizeof out[0]}}, {{in[1], sizeof in[1]}, {out[1], sizeof out[1]}}};
        outcome r[2];
        int same = both_engines(ptx, blocks[b], 2, bufs, &mode, r);
        for (int i = 0; !same && i < 64; i++)
          if (out[0][i] != out[1][i]) fail_msg("mode %#x block %u word %d: interp %u jit %u", mode, blocks[b], i, out[0][i], out[1][i]);
        assert_true(same);
        assert_int_equal(r[0].st, WV_OK);
        assert_int_not_equal(out[0][0], 0);
      }
}

/* Shared and global loads and stores whose lanes' addresses descend (emit_mem.c access(): a reversed row, one
 * masked access and a shuffle per half-warp): u32, v2 and v4 loads with the whole warp reversed (address R - tid *
 * bytes), with each half reversed on its own (mode 1: (15 - tid % 16) * bytes + tid / 16 * 16 * bytes), guarded
 * loads (holes in the row), v2 stores reversed then read back in order, and a global v4 load and v2 store
 * reversed; on full and partial warps, two warps: each engine's status, counters and output. */
static void test_reversed_rows(void **state) {
  (void)state;
  if (!wv_has_jit()) return;
  static const char ptx[] = WVT_HDR
      ".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 mode)\n{\n"
      ".shared .align 16 .b8 sm[4096];\n.shared .align 16 .b8 sr[1024];\n"
      ".reg .b32 %r<64>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
      "ld.param.u64 %rd0, [pin];\nld.param.u64 %rd1, [pout];\nld.param.u32 %r0, [mode];\n"
      "mov.u32 %r1, %tid.x;\nmov.u32 %r2, sm;\nmul.wide.u32 %rd2, %r1, 64;\nadd.s64 %rd3, %rd0, %rd2;\n"
      "shl.b32 %r3, %r1, 6;\nadd.u32 %r3, %r3, %r2;\n"
      "ld.global.v4.u32 {%r40, %r41, %r42, %r43}, [%rd3];\nst.shared.v4.u32 [%r3], {%r40, %r41, %r42, %r43};\n"
      "ld.global.v4.u32 {%r40, %r41, %r42, %r43}, [%rd3+16];\nst.shared.v4.u32 [%r3+16], {%r40, %r41, %r42, %r43};\n"
      "ld.global.v4.u32 {%r40, %r41, %r42, %r43}, [%rd3+32];\nst.shared.v4.u32 [%r3+32], {%r40, %r41, %r42, %r43};\n"
      "ld.global.v4.u32 {%r40, %r41, %r42, %r43}, [%rd3+48];\nst.shared.v4.u32 [%r3+48], {%r40, %r41, %r42, %r43};\n"
      "bar.sync 0;\n"
      /* the lane's place p: 63 - tid (the warp reversed), or mode 1: (15 - tid % 16) + tid / 16 * 16 */
      "and.b32 %r4, %r1, 15;\nsub.u32 %r5, %r1, %r4;\nsub.u32 %r6, 15, %r4;\nadd.u32 %r6, %r6, %r5;\n"
      "sub.u32 %r7, 63, %r1;\nsetp.ne.u32 %p1, %r0, 0;\nselp.u32 %r8, %r6, %r7, %p1;\n"
      "rem.u32 %r9, %r1, 7;\nsetp.ne.u32 %p2, %r9, 4;\n"
      "shl.b32 %r10, %r8, 2;\nadd.u32 %r10, %r10, %r2;\n"
      "shl.b32 %r11, %r8, 3;\nadd.u32 %r11, %r11, %r2;\n"
      "shl.b32 %r12, %r8, 4;\nadd.u32 %r12, %r12, %r2;\n"
      "mov.u32 %r30, 1;\nmov.u32 %r31, 2;\nmov.u32 %r32, 3;\n"
      "ld.shared.u32 %r20, [%r10];\nmad.lo.u32 %r30, %r30, 3, %r20;\n"
      "ld.shared.u32 %r20, [%r10+256];\nmad.lo.u32 %r30, %r30, 3, %r20;\n"
      "ld.shared.v2.u32 {%r20, %r21}, [%r11+512];\nmad.lo.u32 %r31, %r31, 5, %r20;\nmad.lo.u32 %r31, %r31, 5, %r21;\n"
      "ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r12+1024];\nmad.lo.u32 %r32, %r32, 7, %r20;\n"
      "mad.lo.u32 %r32, %r32, 7, %r21;\nmad.lo.u32 %r32, %r32, 7, %r22;\nmad.lo.u32 %r32, %r32, 7, %r23;\n"
      "mov.u32 %r24, 9;\n@%p2 ld.shared.u32 %r24, [%r10+128];\nmad.lo.u32 %r30, %r30, 3, %r24;\n"
      "mov.u32 %r25, 9;\nmov.u32 %r26, 8;\n@%p2 ld.shared.v2.u32 {%r25, %r26}, [%r11+8];\n"
      "mad.lo.u32 %r31, %r31, 5, %r25;\nmad.lo.u32 %r31, %r31, 5, %r26;\n"
      /* reversed v2 stores into sr, then each lane reads its own place's neighbour in order */
      "mov.u32 %r13, sr;\nshl.b32 %r14, %r8, 3;\nadd.u32 %r14, %r14, %r13;\n"
      "st.shared.v2.u32 [%r14], {%r30, %r31};\n@%p2 st.shared.u32 [%r14+512], %r32;\n"
      "bar.sync 0;\n"
      "xor.b32 %r15, %r1, 1;\nshl.b32 %r15, %r15, 3;\nadd.u32 %r15, %r15, %r13;\n"
      "ld.shared.v2.u32 {%r33, %r34}, [%r15];\nld.shared.u32 %r35, [%r15+512];\n"
      "mul.wide.u32 %rd4, %r1, 16;\nadd.s64 %rd5, %rd1, %rd4;\n"
      "mul.wide.u32 %rd6, %r8, 16;\nadd.s64 %rd7, %rd0, %rd6;\nld.global.v4.u32 {%r20, %r21, %r22, %r23}, [%rd7];\n"
      "xor.b32 %r35, %r35, %r20;\nadd.u32 %r33, %r33, %r21;\nxor.b32 %r34, %r34, %r22;\nadd.u32 %r32, %r32, %r23;\n"
      "mul.wide.u32 %rd6, %r8, 8;\nadd.s64 %rd7, %rd1, %rd6;\n@%p2 st.global.v2.u32 [%rd7+1024], {%r33, %r1};\n"
      "st.global.v4.u32 [%rd5], {%r33, %r34, %r35, %r32};\nret;\n}\n";
  static const uint32_t blocks[] = {32, 27, 64, 50};
  for (uint32_t mode = 0; mode < 2; mode++)
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
      static uint32_t in[2][1024], out[2][512];
      for (uint32_t i = 0; i < 1024; i++) in[0][i] = in[1][i] = i * 2654435761u ^ mode;
      memset(out, 0, sizeof out);
      wvt_buf bufs[2][3] = {{{in[0], sizeof in[0]}, {out[0], sizeof out[0]}}, {{in[1], sizeof in[1]}, {out[1], sizeof out[1]}}};
      outcome r[2];
      int same = both_engines(ptx, blocks[b], 2, bufs, &mode, r);
      for (int i = 0; !same && i < 512; i++)
        if (out[0][i] != out[1][i]) fail_msg("mode %u block %u word %d: interp %u jit %u", mode, blocks[b], i, out[0][i], out[1][i]);
      assert_true(same);
      assert_int_equal(r[0].st, WV_OK);
      assert_int_not_equal(out[0][3], 0);
    }
}

int main(void) {
#if defined(__x86_64__)
  if (getenv("WARPVM_JIT_CPU") && !__builtin_cpu_supports("avx2")) return 77; /* (the AVX2 run: this CPU has none) */
#endif
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_straight_line),
      cmocka_unit_test(test_shared_bounds_at_entry),
      cmocka_unit_test(test_global_window),
      cmocka_unit_test(test_freed_window),
      cmocka_unit_test(test_const_window),
      cmocka_unit_test(test_shared_on_path),
      cmocka_unit_test(test_global_on_path),
      cmocka_unit_test(test_param_bounds),
      cmocka_unit_test(test_guard),
      cmocka_unit_test(test_f32_chains),
      cmocka_unit_test(test_barrier_order),
      cmocka_unit_test(test_shared_load_chunks),
      cmocka_unit_test(test_reversed_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
