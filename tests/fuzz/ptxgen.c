/*
 * ptxgen.c — random loop-free PTX kernels for differential testing of warpvm's engines (ptxgen.h).
 *
 * An instruction is a template from the table below; its operands are drawn as the template says:
 *   %R %D %F %G %P   a b32, b64, f32, f64 or predicate value register (the first one written is the
 *                    destination), %I a small integer, %S a shift count (0..70), %O a 4-byte-aligned offset in
 *                    the thread's 32-byte shared slot, %Q an 8-byte-aligned one, %W and %V the same in its
 *                    global scratch words (offset 224 of its output),
 *   %C %E            an integer / floating-point comparison, %M a rounding mode, %Z optional .ftz,
 *   %T optional .sat, %N optional .NaN, %X a special f32 immediate.
 * Templates marked converged run only where no forward branch is open (warp-wide shuffles, votes, barriers);
 * guards (@%p / @!%p) and forward branches over a few instructions make lanes diverge.
 */
#include "ptxgen.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct gen {
  const uint8_t *p;
  size_t n, at;
  char *buf;
  size_t cap, len;
  int overflow;
} gen;

static unsigned take(gen *g, unsigned n) { /* a choice in [0, n): one input byte (two for large n) */
  unsigned v = g->at < g->n ? g->p[g->at++] : 0;
  if (n > 256) v = v << 8 | (g->at < g->n ? g->p[g->at++] : 0);
  return v % n;
}

static void out(gen *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(g->buf + g->len, g->len < g->cap ? g->cap - g->len : 0, fmt, ap);
  va_end(ap);
  if (k < 0 || g->len + (size_t)k >= g->cap) g->overflow = 1;
  else g->len += (size_t)k;
}

enum { CONV = 1 }; /* converged only */
typedef struct tmpl {
  const char *t;
  int flags;
} tmpl;

static const tmpl T[] = {
  /* b32 integer */
  {"add.s32 %R, %R, %R", 0}, {"sub.s32 %R, %R, %R", 0}, {"add.s32 %R, %R, %I", 0}, {"mul.lo.s32 %R, %R, %R", 0},
  {"mul.lo.u32 %R, %R, %I", 0}, {"mul.hi.s32 %R, %R, %R", 0}, {"mul.hi.u32 %R, %R, %R", 0},
  {"mad.lo.s32 %R, %R, %R, %R", 0}, {"mad.hi.u32 %R, %R, %R, %R", 0}, {"min.s32 %R, %R, %R", 0},
  {"max.s32 %R, %R, %R", 0}, {"min.u32 %R, %R, %R", 0}, {"max.u32 %R, %R, %R", 0}, {"and.b32 %R, %R, %R", 0},
  {"or.b32 %R, %R, %R", 0}, {"xor.b32 %R, %R, %R", 0}, {"not.b32 %R, %R", 0}, {"neg.s32 %R, %R", 0},
  {"abs.s32 %R, %R", 0}, {"shl.b32 %R, %R, %R", 0}, {"shr.u32 %R, %R, %R", 0}, {"shr.s32 %R, %R, %R", 0},
  {"shl.b32 %R, %R, %S", 0}, {"shr.s32 %R, %R, %S", 0}, {"popc.b32 %R, %R", 0}, {"clz.b32 %R, %R", 0},
  {"brev.b32 %R, %R", 0}, {"bfe.u32 %R, %R, %R, %R", 0}, {"bfe.s32 %R, %R, %R, %R", 0},
  {"bfi.b32 %R, %R, %R, %R, %R", 0}, {"prmt.b32 %R, %R, %R, %R", 0}, {"div.s32 %R, %R, %R", 0},
  {"div.u32 %R, %R, %R", 0}, {"rem.s32 %R, %R, %R", 0}, {"rem.u32 %R, %R, %R", 0}, {"mov.b32 %R, %R", 0},
  {"selp.b32 %R, %R, %R, %P", 0}, {"add.cc.u32 %R, %R, %R;\n\taddc.u32 %R, %R, %R", 0},
  /* b64 integer */
  {"mul.wide.s32 %D, %R, %R", 0}, {"mul.wide.u32 %D, %R, %R", 0}, {"mad.wide.u32 %D, %R, %R, %D", 0},
  {"add.s64 %D, %D, %D", 0}, {"sub.s64 %D, %D, %D", 0}, {"mul.lo.s64 %D, %D, %D", 0}, {"shl.b64 %D, %D, %R", 0},
  {"shr.u64 %D, %D, %R", 0}, {"shr.s64 %D, %D, %S", 0}, {"xor.b64 %D, %D, %D", 0}, {"and.b64 %D, %D, %D", 0},
  {"or.b64 %D, %D, %D", 0}, {"cvt.u64.u32 %D, %R", 0}, {"cvt.s64.s32 %D, %R", 0}, {"cvt.u32.u64 %R, %D", 0},
  {"selp.b64 %D, %D, %D, %P", 0}, {"min.s64 %D, %D, %D", 0}, {"max.u64 %D, %D, %D", 0},
  /* comparisons and predicates */
  {"setp.%C.s32 %P, %R, %R", 0}, {"setp.%C.u32 %P, %R, %R", 0}, {"setp.%C.s64 %P, %D, %D", 0},
  {"setp.%C.u32 %P, %R, %I", 0}, {"setp.%E%Z.f32 %P, %F, %F", 0}, {"setp.%E.and%Z.f32 %P, %F, %F, %P", 0},
  {"setp.%E.or.f32 %P, %F, %F, !%P", 0}, {"setp.%E.f64 %P, %G, %G", 0}, {"and.pred %P, %P, %P", 0},
  {"or.pred %P, %P, %P", 0}, {"xor.pred %P, %P, %P", 0}, {"not.pred %P, %P", 0},
  {"testp.finite.f32 %P, %F", 0}, {"testp.notanumber.f32 %P, %F", 0}, {"testp.subnormal.f32 %P, %F", 0},
  /* f32 */
  {"add%M%Z%T.f32 %F, %F, %F", 0}, {"sub%M%Z%T.f32 %F, %F, %F", 0}, {"mul%M%Z%T.f32 %F, %F, %F", 0},
  {"add.rn.f32 %F, %F, %F", 0}, {"mul.rn.f32 %F, %F, %F", 0}, {"fma.rn.f32 %F, %F, %F, %F", 0},
  {"fma%M%Z%T.f32 %F, %F, %F, %F", 0}, {"min%Z%N.f32 %F, %F, %F", 0}, {"max%Z%N.f32 %F, %F, %F", 0},
  {"neg%Z.f32 %F, %F", 0}, {"abs%Z.f32 %F, %F", 0}, {"mov.f32 %F, %X", 0}, {"selp.f32 %F, %F, %F, %P", 0},
  {"copysign.f32 %F, %F, %F", 0}, {"div.rn%Z.f32 %F, %F, %F", 0}, {"sqrt.rn%Z.f32 %F, %F", 0},
  {"rcp.rn%Z.f32 %F, %F", 0}, {"ex2.approx%Z.f32 %F, %F", 0}, {"lg2.approx%Z.f32 %F, %F", 0},
  {"sin.approx%Z.f32 %F, %F", 0}, {"div.full%Z.f32 %F, %F, %F", 0},
  /* f64 */
  {"add.rn.f64 %G, %G, %G", 0}, {"sub.rz.f64 %G, %G, %G", 0}, {"mul.rn.f64 %G, %G, %G", 0},
  {"fma.rn.f64 %G, %G, %G, %G", 0}, {"min.f64 %G, %G, %G", 0}, {"neg.f64 %G, %G", 0},
  /* conversions and bit casts */
  {"cvt.rn.f32.s32 %F, %R", 0}, {"cvt.rn.f32.u32 %F, %R", 0}, {"cvt%M.f32.s32 %F, %R", 0},
  {"cvt.rzi%Z.s32.f32 %R, %F", 0}, {"cvt.rni%Z.s32.f32 %R, %F", 0}, {"cvt.rmi.u32.f32 %R, %F", 0},
  {"cvt.rpi.sat.s32.f32 %R, %F", 0}, {"cvt%Z.f64.f32 %G, %F", 0}, {"cvt.rn%Z.f32.f64 %F, %G", 0},
  {"cvt.rn.f64.s64 %G, %D", 0}, {"cvt.rzi.s64.f64 %D, %G", 0}, {"cvt.rni.f32.f32 %F, %F", 0},
  {"mov.b32 %F, %R", 0}, {"mov.b32 %R, %F", 0}, {"mov.b64 %G, %D", 0}, {"mov.b64 %D, %G", 0},
  /* memory: the thread's own shared slot and global scratch */
  {"st.shared.u32 [%t2+%O], %R", 0}, {"ld.shared.u32 %R, [%t2+%O]", 0}, {"st.shared.f32 [%t2+%O], %F", 0},
  {"ld.shared.f32 %F, [%t2+%O]", 0}, {"ld.shared.v2.u32 {%R, %R}, [%t2+%Q]", 0}, {"st.shared.u64 [%t2+%Q], %D", 0},
  {"ld.shared.u64 %D, [%t2+%Q]", 0}, {"ld.shared.s8 %R, [%t2+%O]", 0}, {"st.shared.u16 [%t2+%O], %R", 0},
  {"st.global.u32 [%a3+%W], %R", 0}, {"ld.global.u32 %R, [%a3+%W]", 0},
  {"ld.global.u64 %D, [%a2+%Q]", 0}, {"ld.global.f32 %F, [%a2+%Q]", 0}, {"atom.shared.add.u32 %R, [%t2+%O], %R", 0},
  {"atom.global.max.s32 %R, [%a3+%W], %R", 0}, {"st.global.v2.f32 [%a3+%V], {%F, %F}", 0},
  /* warp-wide */
  {"shfl.sync.bfly.b32 %R, %R, %I, 31, 0xffffffff", CONV}, {"shfl.sync.idx.b32 %R, %R, %R, 31, 0xffffffff", CONV},
  {"shfl.sync.down.b32 %R|%P, %R, %I, 31, 0xffffffff", CONV}, {"vote.sync.ballot.b32 %R, %P, 0xffffffff", CONV},
  {"vote.sync.any.pred %P, %P, 0xffffffff", CONV}, {"bar.sync 0", CONV}, {"activemask.b32 %R", 0},
};
#define NT (sizeof T / sizeof T[0])

static const char *const ICMP[] = {"eq", "ne", "lt", "le", "gt", "ge"};
static const char *const FCMP[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
static const char *const RND[] = {".rn", ".rz", ".rm", ".rp"};
static const char *const FIMM[] = {"0f00000000", "0f80000000", "0f3F800000", "0fBF800000", "0f7F800000", "0fFF800000",
                                   "0f7FC00000", "0f7F800001", "0f00000001", "0f807FFFFF", "0f7F7FFFFF", "0f4B000001",
                                   "0f3EFFFFFF", "0fCF000000", "0f4F800000", "0f33800000"};
static const unsigned NREG[128] = {['R'] = 8, ['D'] = 4, ['F'] = 6, ['G'] = 2, ['P'] = 4};
static const char *const RNAME[128] = {['R'] = "%r", ['D'] = "%rd", ['F'] = "%f", ['G'] = "%fd", ['P'] = "%p"};

/* One instruction from template t. */
static void emit(gen *g, const char *t) {
  out(g, "\t");
  for (const char *c = t; *c; c++) {
    if (*c != '%' || !c[1] || c[1] == 't' || c[1] == 'a') { out(g, "%c", *c); continue; }
    char k = *++c;
    switch (k) {
    case 'R': case 'D': case 'F': case 'G': case 'P': out(g, "%s%u", RNAME[(int)k], take(g, NREG[(int)k])); break;
    case 'I': out(g, "%u", take(g, 41)); break;
    case 'S': out(g, "%u", take(g, 71)); break;
    case 'O': out(g, "%u", 4 * take(g, 8)); break;
    case 'Q': out(g, "%u", 8 * take(g, 4)); break;
    case 'W': out(g, "%u", 224 + 4 * take(g, 8)); break;
    case 'V': out(g, "%u", 224 + 8 * take(g, 4)); break;
    case 'C': out(g, "%s", ICMP[take(g, 6)]); break;
    case 'E': out(g, "%s", FCMP[take(g, 14)]); break;
    case 'M': out(g, "%s", RND[take(g, 4)]); break;
    case 'Z': out(g, "%s", take(g, 3) ? "" : ".ftz"); break;
    case 'T': out(g, "%s", take(g, 4) ? "" : ".sat"); break;
    case 'N': out(g, "%s", take(g, 3) ? "" : ".NaN"); break;
    case 'X': out(g, "%s", FIMM[take(g, 16)]); break;
    default: out(g, "%%%c", k); break;
    }
  }
  out(g, ";\n");
}

size_t wvg_kernel(const uint8_t *data, size_t n, char *buf, size_t cap) {
  gen g = {.p = data, .n = n, .buf = buf, .cap = cap};
  out(&g, ".version 8.0\n.target sm_80\n.address_size 64\n\n"
          ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
          "\t.reg .b32 %%r<8>;\n\t.reg .b64 %%rd<4>;\n\t.reg .f32 %%f<6>;\n\t.reg .f64 %%fd<2>;\n\t.reg .pred %%p<4>;\n"
          "\t.reg .b32 %%t<4>;\n\t.reg .b32 %%u<4>;\n\t.reg .b64 %%a<4>;\n"
          "\t.shared .align 16 .b8 sm[%u];\n", WVG_BLOCK * 32u);
  out(&g, "\tld.param.u64 %%a0, [in];\n\tld.param.u64 %%a1, [out];\n\tcvta.to.global.u64 %%a0, %%a0;\n"
          "\tcvta.to.global.u64 %%a1, %%a1;\n\tmov.u32 %%t0, %%tid.x;\n\tmov.u32 %%t3, %%ctaid.x;\n"
          "\tmov.u32 %%t1, %%ntid.x;\n\tmad.lo.u32 %%t1, %%t3, %%t1, %%t0;\n\tmul.wide.u32 %%a2, %%t1, %u;\n"
          "\tadd.s64 %%a2, %%a0, %%a2;\n\tmul.wide.u32 %%a3, %%t1, %u;\n\tadd.s64 %%a3, %%a1, %%a3;\n"
          "\tmov.u32 %%t2, sm;\n\tmad.lo.u32 %%t2, %%t0, 32, %%t2;\n", WVG_IN_STRIDE, WVG_OUT_STRIDE);
  for (unsigned i = 0; i < 8; i++) out(&g, "\tld.global.u32 %%r%u, [%%a2+%u];\n", i, 8 * i);
  for (unsigned i = 0; i < 4; i++) out(&g, "\tld.global.u64 %%rd%u, [%%a2+%u];\n", i, 8 * (8 + i));
  for (unsigned i = 0; i < 6; i++) out(&g, "\tld.global.f32 %%f%u, [%%a2+%u];\n", i, 8 * (12 + i));
  for (unsigned i = 0; i < 2; i++) out(&g, "\tld.global.f64 %%fd%u, [%%a2+%u];\n", i, 8 * (18 + i));
  for (unsigned i = 0; i < 4; i++)
    out(&g, "\tld.global.u32 %%t3, [%%a2+%u];\n\tand.b32 %%t3, %%t3, 1;\n\tsetp.ne.u32 %%p%u, %%t3, 0;\n", 8 * (20 + i), i);
  for (unsigned i = 0; i < 8; i++) out(&g, "\tst.shared.u32 [%%t2+%u], %%r%u;\n\tst.global.u32 [%%a3+%u], %%r%u;\n",
                                       4 * i, (i + 3) % 8, 224 + 4 * i, (i + 5) % 8);
  /* the body: until the input runs out (at most 160 instructions) */
  unsigned open[8], nopen = 0, label = 0, left[8];
  for (unsigned k = 0; k < 160 && g.at < g.n; k++) {
    for (unsigned j = 0; j < nopen;) { /* close branches whose distance has run out */
      if (left[j]-- == 0) {
        out(&g, "$L%u:\n", open[j]);
        open[j] = open[--nopen];
        left[j] = left[nopen];
      } else {
        j++;
      }
    }
    unsigned what = take(&g, 16);
    if (what == 0 && nopen < 8) { /* a forward branch over the next 1..8 instructions */
      open[nopen] = label++;
      left[nopen] = 1 + take(&g, 8);
      out(&g, "\t@%s%%p%u bra $L%u;\n", take(&g, 2) ? "" : "!", take(&g, 4), open[nopen]);
      nopen++;
      continue;
    }
    const tmpl *t = &T[take(&g, NT)];
    if ((t->flags & CONV) && nopen) continue;
    if (!(t->flags & CONV) && what >= 12) out(&g, "\t@%s%%p%u", take(&g, 2) ? "" : "!", take(&g, 4));
    emit(&g, t->t);
  }
  while (nopen) out(&g, "$L%u:\n", open[--nopen]);
  /* every register, predicate, the shared slot and the scratch words to the output */
  for (unsigned i = 0; i < 8; i++) out(&g, "\tst.global.u32 [%%a3+%u], %%r%u;\n", 8 * i, i);
  for (unsigned i = 0; i < 4; i++) out(&g, "\tst.global.u64 [%%a3+%u], %%rd%u;\n", 8 * (8 + i), i);
  for (unsigned i = 0; i < 6; i++) out(&g, "\tst.global.f32 [%%a3+%u], %%f%u;\n", 8 * (12 + i), i);
  for (unsigned i = 0; i < 2; i++) out(&g, "\tst.global.f64 [%%a3+%u], %%fd%u;\n", 8 * (18 + i), i);
  for (unsigned i = 0; i < 4; i++) out(&g, "\tselp.u32 %%t3, 1, 0, %%p%u;\n\tst.global.u32 [%%a3+%u], %%t3;\n", i, 8 * (20 + i));
  for (unsigned h = 0; h < 2; h++)
    out(&g, "\tld.shared.v4.u32 {%%u0, %%u1, %%u2, %%u3}, [%%t2+%u];\n\tst.global.v4.u32 [%%a3+%u], {%%u0, %%u1, %%u2, %%u3};\n",
        16 * h, 192 + 16 * h);
  out(&g, "\tret;\n}\n");
  return g.overflow ? 0 : g.len;
}

void wvg_inputs(uint64_t seed, uint8_t *in) {
  static const uint32_t f32s[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
                                  0x7f800001, 0xffc00123, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0x4b000001,
                                  0x3effffff, 0xcf000000, 0x4f800000, 0x33800000, 0x3f000001, 0x5f000000};
  static const uint32_t ints[] = {0, 1, 2, 3, 31, 32, 33, 63, 64, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0x10000, 0xff};
  static const uint64_t f64s[] = {0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0x7ff0000000000000ull,
                                  0x7ff8000000000000ull, 0x7ff0000000000001ull, 1, 0x000fffffffffffffull,
                                  0x41e0000000000000ull, 0xc3e0000000000000ull, 0x3ff0000000000001ull, 0x47efffffe0000000ull};
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
  for (size_t w = 0; w < (size_t)WVG_THREADS * (WVG_NVALS + WVG_NPREDS); w++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    uint64_t v = s, r = s >> 59;
    unsigned slot = (unsigned)(w % (WVG_NVALS + WVG_NPREDS));
    if (r < 10) { /* an edge value of the slot's kind */
      if (slot >= 12 && slot < 18) v = f32s[(s >> 20) % (sizeof f32s / 4)];
      else if (slot >= 18 && slot < 20) v = f64s[(s >> 20) % (sizeof f64s / 8)];
      else v = ints[(s >> 20) % (sizeof ints / 4)] | (slot >= 8 && slot < 12 && (s & 1) ? 0xffffffff00000000ull : 0);
    } else if (r < 16 && slot >= 12 && slot < 18) { /* a float of moderate exponent: sums and products stay exact-ish */
      v = (v & 0x807fffffu) | (uint64_t)(112 + ((s >> 30) % 32)) << 23;
    }
    memcpy(in + 8 * w, &v, 8);
  }
}
