/*
 * decode_ops.c — one decoding function per instruction family named in ops.def: reads the
 * modifiers and operands of a PTX instruction, checks them, fills the wv_insn and picks the
 * handler specialised for its type and modifiers. Anything not understood is an error naming
 * the instruction and its line ("unsupported instruction 'x.y.z'"), never a silent guess.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/fpmath.h"
#include "exec/warp.h"
#include "ir/decode_int.h"

typedef int (*family_fn)(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m);

static const char *fullname(const ptx_insn *pi, char *buf, size_t n) {
  size_t k = (size_t)snprintf(buf, n, "%s", pi->opcode);
  for (uint32_t i = 0; i < pi->nmods && k < n; i++) k += (size_t)snprintf(buf + k, n - k, ".%s", pi->mods[i]);
  return buf;
}

static int unsupported(wv_dec *d, const ptx_insn *pi) {
  char b[160];
  return wv_derr(d, pi->loc, "unsupported instruction '%s'", fullname(pi, b, sizeof b));
}

static int nops(wv_dec *d, const ptx_insn *pi, uint32_t lo, uint32_t hi) {
  if (pi->nops >= lo && pi->nops <= hi) return 0;
  char b[160];
  if (lo == hi) return wv_derr(d, pi->loc, "'%s' takes %u operands, found %u", fullname(pi, b, sizeof b), lo, pi->nops);
  return wv_derr(d, pi->loc, "'%s' takes %u to %u operands, found %u", fullname(pi, b, sizeof b), lo, hi, pi->nops);
}

int wv_mods_take(wv_mods *m, const char *w) {
  for (int i = 0; i < m->nw; i++)
    if (!(m->used >> i & 1) && !strcmp(m->w[i], w)) {
      m->used |= 1u << i;
      return 1;
    }
  return 0;
}

/* Take the first unused word that is one of `list` (NULL-terminated); returns its index or -1. */
static int take_one(wv_mods *m, const char *const *list) {
  for (int i = 0; i < m->nw; i++) {
    if (m->used >> i & 1) continue;
    for (int k = 0; list[k]; k++)
      if (!strcmp(m->w[i], list[k])) {
        m->used |= 1u << i;
        return k;
      }
  }
  return -1;
}

/* Words that only tune caching, ordering or scope: accepted, no effect under sequential memory. */
static void take_hints(wv_mods *m) {
  static const char *const hints[] = {"volatile", "relaxed", "acquire", "release", "acq_rel", "sc", "weak", "mmio",
                                      "cta", "gpu", "sys", "cluster", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc",
                                      "aligned", "L2::cache_hint", NULL};
  for (int i = 0; i < m->nw; i++) {
    if (m->used >> i & 1) continue;
    if (!strncmp(m->w[i], "L1::", 4) || !strncmp(m->w[i], "L2::", 4)) { m->used |= 1u << i; continue; }
    for (int k = 0; hints[k]; k++)
      if (!strcmp(m->w[i], hints[k])) m->used |= 1u << i;
  }
}

static int need_type(wv_dec *d, const ptx_insn *pi, const wv_mods *m, int n) {
  if (m->nt == n) return 0;
  char b[160];
  return wv_derr(d, pi->loc, "'%s' needs %d type modifier%s", fullname(pi, b, sizeof b), n, n > 1 ? "s" : "");
}

/* The second destination of `d|p` (setp, shfl, match, elect), unless it is `_`. */
static int pair_pred(wv_dec *d, const ptx_operand *o, wv_insn *in) {
  if (!o->pair || !strcmp(o->pair, "_")) return 0;
  ptx_operand q = {.kind = PTX_OPND_REG, .loc = o->loc, .name = o->pair};
  in->pd = wv_dpred(d, &q, NULL);
  return in->pd < 0 ? -1 : 0;
}

/* A register operand must be as wide as the instruction needs (ptxas: "Arguments mismatch"). */
static int check_size(wv_dec *d, const ptx_insn *pi, const ptx_operand *o, unsigned size) {
  if (o->kind != PTX_OPND_REG && o->kind != PTX_OPND_SYM) return 0;
  const wv_decl *dl = wv_dlookup(d, o->name);
  if (!dl || dl->kind != K_REG || wv_type_size(dl->type) == size) return 0;
  char b[160];
  return wv_derr(d, o->loc, "operand '%s' is a %u-bit register but '%s' needs %u bits", o->name,
                 wv_type_size(dl->type) * 8, fullname(pi, b, sizeof b), size * 8);
}

static int no_handler(wv_dec *d, const ptx_insn *pi, wv_insn *in) {
  return in->fn ? 0 : unsupported(d, pi);
}

/* ---------------- arithmetic ---------------- */

static int is_half(wv_type t) { return t == WV_T_F16 || t == WV_T_BF16 || t == WV_T_F16X2 || t == WV_T_BF16X2; }

/* The half-precision forms (PTX ISA "Half Precision Floating-Point Instructions"): .rn is the only
 * rounding; .ftz and .sat on .f16/.f16x2 only (add sub mul fma); .relu on fma; .NaN and .xorsign.abs
 * on min/max; .ftz on neg/abs/min/max .f16. The fpmath flags go to in->imm (h_half.c). */
static int half_arith(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m, wv_type t) {
  int bf = t == WV_T_BF16 || t == WV_T_BF16X2, op = in->op;
  int arith = op == WV_OP_ADD || op == WV_OP_SUB || op == WV_OP_MUL || op == WV_OP_FMA || op == WV_OP_MAD;
  unsigned f = 0;
  if (m->rnd && m->rnd != WV_RND_RN) return unsupported(d, pi);
  if (!arith && m->rnd) return unsupported(d, pi);
  if ((op == WV_OP_FMA || op == WV_OP_MAD) && m->rnd != WV_RND_RN) return unsupported(d, pi);
  if (m->ftz) {
    if (bf) return unsupported(d, pi);
    f |= WV_FP_FTZ;
  }
  if (m->sat) {
    if (bf || !arith) return unsupported(d, pi);
    f |= WV_FP_SAT;
  }
  if (op == WV_OP_FMA && wv_mods_take(m, "oob")) { /* fma.rn.oob{.relu}.type: no .ftz, no .sat */
    if (f) return unsupported(d, pi);
    f |= WV_FP_OOB;
  }
  if (op == WV_OP_FMA && wv_mods_take(m, "relu")) {
    if (f & WV_FP_SAT) return unsupported(d, pi);
    f |= WV_FP_RELU;
  }
  if (op == WV_OP_MIN || op == WV_OP_MAX) {
    if (wv_mods_take(m, "NaN")) f |= WV_FP_NANPROP;
    if (wv_mods_take(m, "xorsign")) {
      if (!wv_mods_take(m, "abs")) return unsupported(d, pi);
      f |= WV_FP_XORSIGN | WV_FP_ABS;
    }
  }
  in->imm = (int64_t)f;
  in->fn = wv_h_half(op);
  return no_handler(d, pi, in);
}

/* add/sub/fma{.rnd}{.sat}.f32.{f16,bf16} (mixed precision, sm_100+): valid PTX, not run yet. */
static int mixed_float(const wv_mods *m) { return m->nt == 2 && wv_type_is_float(m->t[0]) && wv_type_is_float(m->t[1]); }

static int dec_arith(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  if (mixed_float(m)) return unsupported(d, pi);
  if (need_type(d, pi, m, 1) || nops(d, pi, 3, 3)) return -1;
  wv_type t = m->t[0];
  in->type = (uint8_t)t;
  if (t == WV_T_PRED) {
    if (in->op != WV_OP_AND && in->op != WV_OP_OR && in->op != WV_OP_XOR) return unsupported(d, pi);
    int32_t p = wv_dpred(d, &pi->ops[0], NULL), a = wv_dpred(d, &pi->ops[1], NULL), b = wv_dpred(d, &pi->ops[2], NULL);
    if (p < 0 || a < 0 || b < 0) return -1;
    in->d[0] = (uint32_t)p; in->a = (uint32_t)a; in->b = (uint32_t)b;
    in->fn = wv_h_int(in->op, 0, t);
    return no_handler(d, pi, in);
  }
  wv_type bt = t;
  int shift = in->op == WV_OP_SHL || in->op == WV_OP_SHR;
  if (shift) bt = WV_T_U32;
  unsigned sz = wv_type_size(t);
  int wide = in->op == WV_OP_MUL && !wv_type_is_float(t) && pi->nmods && !strcmp(pi->mods[0], "wide");
  if (check_size(d, pi, &pi->ops[0], wide ? 2 * sz : sz) || check_size(d, pi, &pi->ops[1], sz) ||
      check_size(d, pi, &pi->ops[2], shift ? 4 : sz))
    return -1;
  in->d[0] = wv_ddst(d, &pi->ops[0]);
  in->a = wv_dsrc(d, &pi->ops[1], t);
  in->b = wv_dsrc(d, &pi->ops[2], bt);
  if (d->failed) return -1;
  if (is_half(t) && (in->op == WV_OP_ADD || in->op == WV_OP_SUB || in->op == WV_OP_MUL || in->op == WV_OP_MIN ||
                     in->op == WV_OP_MAX))
    return half_arith(d, pi, in, m, t);
  if (wv_type_is_float(t)) {
    if (t != WV_T_F32 && t != WV_T_F64) return unsupported(d, pi);
    in->rnd = (uint8_t)m->rnd;
    in->ftz = (uint8_t)m->ftz;
    in->sat = (uint8_t)m->sat;
    if (wv_mods_take(m, "approx")) in->mode |= WV_FM_APPROX;
    if (wv_mods_take(m, "full")) in->mode |= WV_FM_FULL;
    if (wv_mods_take(m, "NaN")) in->mode |= WV_FM_NAN;
    /* ptxas drops `mul.f32 x, 1.0` (no explicit rounding): on an H200 a NaN x comes out unchanged
     * instead of the canonical NaN (tests/kernels fp32.unary, k = 21). Do the same. */
    if (in->op == WV_OP_MUL && t == WV_T_F32 && !m->rnd && !m->ftz && !m->sat) {
      for (int k = 1; k <= 2; k++) {
        const ptx_operand *o = &pi->ops[k];
        if ((o->kind == PTX_OPND_F32 && o->ival == 0x3f800000u) || (o->kind == PTX_OPND_F64 && o->ival == 0x3ff0000000000000ull)) {
          in->a = k == 1 ? in->b : in->a;
          in->fn = wv_h_mov(WV_MOV_REG, t);
          return 0;
        }
      }
    }
    in->fn = wv_h_float(in->op, t, in);
    return no_handler(d, pi, in);
  }
  int variant = 0;
  if (wv_mods_take(m, "hi")) variant = WV_V_HI;
  else if (wv_mods_take(m, "wide")) variant = WV_V_WIDE;
  else if (wv_mods_take(m, "lo")) variant = WV_V_LO;
  if (in->op == WV_OP_MUL24) in->mode = variant == WV_V_HI ? 4 : 0;
  if (wv_mods_take(m, "cc")) {
    variant = WV_V_CC;
    in->mode = 1;
  }
  if (in->op == WV_OP_ADDC || in->op == WV_OP_SUBC || variant == WV_V_CC) in->e = wv_dcc(d);
  if (m->sat) variant = WV_V_SAT;
  if (m->rnd || m->ftz) {
    char b[160];
    return wv_derr(d, pi->loc, "rounding and .ftz modifiers are not allowed on integer '%s'", fullname(pi, b, sizeof b));
  }
  if ((in->op == WV_OP_MUL) && !variant) return wv_derr(d, pi->loc, "integer mul needs .lo, .hi or .wide");
  in->fn = wv_h_int(in->op, variant, t);
  return no_handler(d, pi, in);
}

static int dec_arith3(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  if (mixed_float(m)) return unsupported(d, pi);
  if (need_type(d, pi, m, 1) || nops(d, pi, 4, 4)) return -1;
  wv_type t = m->t[0];
  in->type = (uint8_t)t;
  int wide = wv_mods_take(m, "wide");
  unsigned sz = wv_type_size(t);
  if (check_size(d, pi, &pi->ops[0], wide ? 2 * sz : sz) || check_size(d, pi, &pi->ops[1], sz) ||
      check_size(d, pi, &pi->ops[2], sz) || check_size(d, pi, &pi->ops[3], wide ? 2 * sz : sz))
    return -1;
  wv_type ct = t;
  if (wide) ct = wv_type_size(t) == 2 ? (wv_type_is_signed(t) ? WV_T_S32 : WV_T_U32) : (wv_type_is_signed(t) ? WV_T_S64 : WV_T_U64);
  in->d[0] = wv_ddst(d, &pi->ops[0]);
  in->a = wv_dsrc(d, &pi->ops[1], t);
  in->b = wv_dsrc(d, &pi->ops[2], t);
  in->c = wv_dsrc(d, &pi->ops[3], ct);
  if (d->failed) return -1;
  if (is_half(t) && in->op == WV_OP_FMA && !wide) return half_arith(d, pi, in, m, t);
  if (wv_type_is_float(t)) {
    if (t != WV_T_F32 && t != WV_T_F64) return unsupported(d, pi);
    if ((in->op != WV_OP_FMA && in->op != WV_OP_MAD) || wide) return unsupported(d, pi);
    in->rnd = (uint8_t)m->rnd;
    in->ftz = (uint8_t)m->ftz;
    in->sat = (uint8_t)m->sat;
    in->fn = wv_h_float(WV_OP_FMA, t, in);
    return no_handler(d, pi, in);
  }
  if (in->op == WV_OP_FMA) return unsupported(d, pi);
  if (in->op == WV_OP_SAD) { in->fn = wv_h_int(WV_OP_SAD, 0, t); return no_handler(d, pi, in); }
  int hi = wv_mods_take(m, "hi"), lo = wv_mods_take(m, "lo");
  if (in->op == WV_OP_MAD24) {
    in->mode = hi ? 4 : 0;
    if (m->sat) return unsupported(d, pi);
    in->fn = wv_h_int(WV_OP_MAD24, 0, t);
    return no_handler(d, pi, in);
  }
  if (!hi && !lo && !wide) return wv_derr(d, pi->loc, "integer mad needs .lo, .hi or .wide");
  if (m->sat) return unsupported(d, pi);
  in->mode = (uint8_t)((hi ? 4 : 0) | (wide ? 8 : 0));
  if (wv_mods_take(m, "cc")) in->mode |= 1;
  if (in->op == WV_OP_MADC) in->mode |= 2;
  if (in->mode & 3) in->e = wv_dcc(d);
  in->fn = wv_h_int(in->op, wide ? WV_V_WIDE : (in->mode & 3) ? WV_V_CC : hi ? WV_V_HI : WV_V_LO, t);
  return no_handler(d, pi, in);
}

static int dec_unary(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  if (need_type(d, pi, m, 1) || nops(d, pi, 2, 2)) return -1;
  wv_type t = m->t[0];
  in->type = (uint8_t)t;
  if (t == WV_T_PRED) {
    if (in->op != WV_OP_NOT) return unsupported(d, pi);
    int32_t p = wv_dpred(d, &pi->ops[0], NULL), a = wv_dpred(d, &pi->ops[1], NULL);
    if (p < 0 || a < 0) return -1;
    in->d[0] = (uint32_t)p;
    in->a = (uint32_t)a;
    in->fn = wv_h_int(WV_OP_NOT, 0, t);
    return no_handler(d, pi, in);
  }
  int counts = in->op == WV_OP_POPC || in->op == WV_OP_CLZ || in->op == WV_OP_BFIND; /* d is .u32 */
  if (check_size(d, pi, &pi->ops[0], counts ? 4 : wv_type_size(t)) || check_size(d, pi, &pi->ops[1], wv_type_size(t)))
    return -1;
  in->d[0] = wv_ddst(d, &pi->ops[0]);
  in->a = wv_dsrc(d, &pi->ops[1], t);
  if (d->failed) return -1;
  if (is_half(t) && (in->op == WV_OP_ABS || in->op == WV_OP_NEG)) return half_arith(d, pi, in, m, t);
  if (wv_type_is_float(t)) {
    if (in->op != WV_OP_ABS && in->op != WV_OP_NEG) return unsupported(d, pi);
    in->ftz = (uint8_t)m->ftz;
    in->fn = wv_h_float(in->op, t, in);
    return no_handler(d, pi, in);
  }
  if (in->op == WV_OP_BFIND && wv_mods_take(m, "shiftamt")) in->mode = 1;
  in->fn = wv_h_int(in->op, 0, t);
  return no_handler(d, pi, in);
}

static int dec_fpunary(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  if (need_type(d, pi, m, 1) || nops(d, pi, 2, 2)) return -1;
  wv_type t = m->t[0];
  in->type = (uint8_t)t;
  in->rnd = (uint8_t)m->rnd;
  in->ftz = (uint8_t)m->ftz;
  if (wv_mods_take(m, "approx")) in->mode |= WV_FM_APPROX;
  if (in->op == WV_OP_TESTP) {
    static const char *const tests[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal", NULL};
    int k = take_one(m, tests);
    if (k < 0) return unsupported(d, pi);
    in->mode = (uint8_t)k;
    int32_t p = wv_dpred(d, &pi->ops[0], NULL);
    if (p < 0) return -1;
    in->d[0] = (uint32_t)p;
  } else {
    in->d[0] = wv_ddst(d, &pi->ops[0]);
    /* rcp/sqrt/div need a rounding mode or .approx in PTX; sin/cos/lg2/ex2/tanh/rsqrt are .approx */
    int sfu = in->op != WV_OP_RCP && in->op != WV_OP_SQRT;
    if (sfu && !(in->mode & WV_FM_APPROX)) return unsupported(d, pi);
    if (!sfu && !(in->mode & WV_FM_APPROX) && !m->rnd) return wv_derr(d, pi->loc, "%s needs a rounding modifier or .approx", pi->opcode);
  }
  in->a = wv_dsrc(d, &pi->ops[1], t);
  if (d->failed) return -1;
  in->fn = wv_h_float(in->op, t, in);
  return no_handler(d, pi, in);
}

static int dec_bits(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  wv_type t = m->nt ? m->t[0] : WV_T_B32;
  in->type = (uint8_t)t;
  if (in->op == WV_OP_LOP3 && pi->nops == 6) return unsupported(d, pi); /* lop3.BoolOp d|p, a, b, c, immLut, q */
  uint32_t n = in->op == WV_OP_BFI || in->op == WV_OP_LOP3 ? 5 : in->op == WV_OP_BMSK || in->op == WV_OP_SZEXT ? 3 : 4;
  if (nops(d, pi, n, n)) return -1;
  switch (in->op) {
  case WV_OP_BMSK:
  case WV_OP_SZEXT: /* {bmsk,szext}.{clamp,wrap}.type d, a, b */
    if (m->nt != 1) return need_type(d, pi, m, 1);
    if (wv_mods_take(m, "clamp")) in->mode = 1;
    else if (!wv_mods_take(m, "wrap")) return unsupported(d, pi);
    if (check_size(d, pi, &pi->ops[0], 4) || check_size(d, pi, &pi->ops[1], 4) || check_size(d, pi, &pi->ops[2], 4)) return -1;
    in->d[0] = wv_ddst(d, &pi->ops[0]);
    in->a = wv_dsrc(d, &pi->ops[1], t);
    in->b = wv_dsrc(d, &pi->ops[2], WV_T_U32);
    if (d->failed) return -1;
    in->fn = wv_h_bits(in->op, t, in);
    return no_handler(d, pi, in);
  case WV_OP_PRMT: {
    static const char *const modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16", NULL};
    int k = take_one(m, modes);
    in->mode = (uint8_t)(k + 1);
    break;
  }
  case WV_OP_SHF:
    if (wv_mods_take(m, "l")) in->mode |= 1;
    else if (!wv_mods_take(m, "r")) return unsupported(d, pi);
    if (wv_mods_take(m, "clamp")) in->mode |= 2;
    else if (!wv_mods_take(m, "wrap")) return unsupported(d, pi);
    break;
  case WV_OP_VABSDIFF4:
    if (m->nt != 3) return need_type(d, pi, m, 3);
    if (wv_mods_take(m, "add")) in->mode |= 4;
    in->sat = (uint8_t)m->sat;
    in->mode |= (uint8_t)((m->t[1] == WV_T_S32 ? 1 : 0) | (m->t[2] == WV_T_S32 ? 2 : 0) | (m->t[0] == WV_T_S32 ? 8 : 0));
    for (int i = 0; i < 3; i++)
      if (m->t[i] != WV_T_U32 && m->t[i] != WV_T_S32) return unsupported(d, pi);
    break;
  case WV_OP_DP4A:
  case WV_OP_DP2A:
    if (m->nt != 2) return need_type(d, pi, m, 2);
    if (in->op == WV_OP_DP2A) {
      if (wv_mods_take(m, "hi")) in->mode |= 4;
      else if (!wv_mods_take(m, "lo")) return unsupported(d, pi);
    }
    in->mode |= (uint8_t)((m->t[0] == WV_T_S32 ? 1 : 0) | (m->t[1] == WV_T_S32 ? 2 : 0));
    break;
  default:
    if (m->nt != 1) return need_type(d, pi, m, 1);
    break;
  }
  in->d[0] = wv_ddst(d, &pi->ops[0]);
  in->a = wv_dsrc(d, &pi->ops[1], t);
  in->b = wv_dsrc(d, &pi->ops[2], in->op == WV_OP_BFI ? t : in->op == WV_OP_BFE ? WV_T_U32 : t);
  if (in->op == WV_OP_LOP3) {
    if (pi->ops[4].kind != PTX_OPND_INT) return wv_derr(d, pi->ops[4].loc, "lop3 needs an immediate lookup table");
    in->c = wv_dsrc(d, &pi->ops[3], t);
    in->imm = (int64_t)(pi->ops[4].ival & 0xff);
  } else {
    in->c = wv_dsrc(d, &pi->ops[3], WV_T_U32);
    if (in->op == WV_OP_BFI) in->e = wv_dsrc(d, &pi->ops[4], WV_T_U32);
  }
  if (d->failed) return -1;
  in->fn = wv_h_bits(in->op, t, in);
  return no_handler(d, pi, in);
}

/* ---------------- moves and conversions ---------------- */

static int dec_mov(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  if (need_type(d, pi, m, 1) || nops(d, pi, 2, 2)) return -1;
  wv_type t = m->t[0];
  in->type = (uint8_t)t;
  const ptx_operand *dst = &pi->ops[0], *src = &pi->ops[1];
  if (t == WV_T_PRED) {
    int32_t p = wv_dpred(d, dst, NULL);
    if (p < 0) return -1;
    in->d[0] = (uint32_t)p;
    if (src->kind == PTX_OPND_INT) { in->a = WV_NOSLOT; in->imm = src->ival != 0; }
    else if (src->kind == PTX_OPND_REG && !strcmp(src->name, "%is_explicit_cluster")) { /* a warp special (cluster.c) */
      in->a = WV_SLOT(WV_SLOT_SPECIAL, WV_SP_IS_EXPLICIT_CLUSTER);
      d->mod->sp_read |= 1ull << WV_SP_IS_EXPLICIT_CLUSTER;
      in->fn = wv_h_mov(WV_MOV_PRED_FROM_REG, t);
      return 0;
    }
    else { int32_t a = wv_dpred(d, src, NULL); if (a < 0) return -1; in->a = (uint32_t)a; }
    in->fn = wv_h_mov(WV_MOV_PRED, t);
    return 0;
  }
  if (src->kind == PTX_OPND_VEC) { /* pack */
    if (src->nelems < 2 || src->nelems > 4 || wv_type_size(t) % src->nelems) return unsupported(d, pi);
    unsigned es = wv_type_size(t) / src->nelems;
    wv_type et = es == 1 ? WV_T_B8 : es == 2 ? WV_T_B16 : es == 4 ? WV_T_B32 : WV_T_B64;
    in->d[0] = wv_ddst(d, dst);
    uint32_t *s[4] = {&in->a, &in->b, &in->c, &in->e};
    for (uint32_t i = 0; i < src->nelems; i++) *s[i] = wv_dsrc(d, &src->elems[i], et);
    in->vec = (uint8_t)src->nelems;
    in->imm = es;
    in->fn = wv_h_mov(WV_MOV_PACK, t);
    return d->failed ? -1 : 0;
  }
  if (dst->kind == PTX_OPND_VEC) { /* unpack */
    if (dst->nelems < 2 || dst->nelems > 4 || wv_type_size(t) % dst->nelems) return unsupported(d, pi);
    for (uint32_t i = 0; i < dst->nelems; i++)
      in->d[i] = dst->elems[i].kind == PTX_OPND_SINK ? WV_NOSLOT : wv_ddst(d, &dst->elems[i]);
    in->a = wv_dsrc(d, src, t);
    in->vec = (uint8_t)dst->nelems;
    in->imm = wv_type_size(t) / dst->nelems;
    in->fn = wv_h_mov(WV_MOV_UNPACK, t);
    return d->failed ? -1 : 0;
  }
  in->d[0] = wv_ddst(d, dst);
  if (d->failed) return -1;
  if (src->kind == PTX_OPND_REG || src->kind == PTX_OPND_SYM) {
    wv_sreg sr;
    int special = !wv_dsreg(src->name, &sr);
    if (special && sr.kind == WV_SREG_DYN) { /* %clock and the like: read when it runs */
      in->mode = (uint8_t)sr.v;
      in->fn = wv_h_special(in->mode);
      return 0;
    }
    const wv_decl *dl = special ? NULL : wv_dlookup(d, src->name);
    if (dl && dl->kind == K_LOCALVAR) { /* mov %SPL, __local_depot0 */
      in->imm = (int64_t)dl->off;
      in->fn = wv_h_local_addr;
      return 0;
    }
    if (dl && dl->kind == K_KPARAM) { /* mov %rd, kparam: its address in the .param space (PTX ISA 5.1.6.1) */
      in->a = wv_dconst(d, dl->off);
      in->fn = wv_h_mov(WV_MOV_REG, t);
      return d->failed ? -1 : 0;
    }
    if (dl && dl->kind == K_FPARAM)
      return wv_derr(d, src->loc, "taking the address of parameter '%s' is not supported", src->name);
  }
  in->a = wv_dsrc(d, src, t);
  if (d->failed) return -1;
  in->fn = wv_h_mov(WV_MOV_REG, t);
  return 0;
}

static const char *const rnd_names[] = {"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", NULL};

/* fp8 pairs: cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b and cvt.rn.f16x2.{e4m3x2,e5m2x2} d, a */
static int dec_cvt_fp8(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  static const char *const f8[] = {"e4m3x2", "e5m2x2", NULL};
  int k = take_one(m, f8);
  if (k < 0 || m->rnd != WV_RND_RN) return unsupported(d, pi);
  in->mode = (uint8_t)k; /* 1 = e5m2 */
  if (m->nt == 1 && m->t[0] == WV_T_F32) { /* to fp8 */
    if (!wv_mods_take(m, "satfinite")) return unsupported(d, pi);
    if (wv_mods_take(m, "relu")) in->mode |= 2;
    if (nops(d, pi, 3, 3)) return -1;
    in->d[0] = wv_ddst(d, &pi->ops[0]);
    in->a = wv_dsrc(d, &pi->ops[1], WV_T_F32);
    in->b = wv_dsrc(d, &pi->ops[2], WV_T_F32);
    in->fn = wv_h_fp8(0);
  } else if (m->nt == 1 && m->t[0] == WV_T_F16X2) { /* from fp8 */
    if (nops(d, pi, 2, 2)) return -1;
    in->d[0] = wv_ddst(d, &pi->ops[0]);
    in->a = wv_dsrc(d, &pi->ops[1], WV_T_B16);
    in->fn = wv_h_fp8(1);
  } else {
    return unsupported(d, pi);
  }
  return d->failed ? -1 : 0;
}

static int dec_cvt(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  for (int i = 0; i < m->nw; i++)
    if (!strcmp(m->w[i], "e4m3x2") || !strcmp(m->w[i], "e5m2x2")) return dec_cvt_fp8(d, pi, in, m);
  if (m->nt != 2 && m->nw) return unsupported(d, pi); /* other packed formats: e2m1x2, ue8m0x2, ... */
  if (pi->nops == 3 && m->nt == 2 && (m->t[0] == WV_T_F16X2 || m->t[0] == WV_T_BF16X2) && m->t[1] == WV_T_F32) {
    /* cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: d = {half(a) high, half(b) low} */
    if (m->rnd != WV_RND_RN || m->ftz || m->sat) return unsupported(d, pi);
    unsigned f = 0;
    if (wv_mods_take(m, "relu")) f |= WV_FP_RELU;
    if (wv_mods_take(m, "satfinite")) f |= WV_FP_SATFINITE;
    if (check_size(d, pi, &pi->ops[0], 4) || check_size(d, pi, &pi->ops[1], 4) || check_size(d, pi, &pi->ops[2], 4)) return -1;
    in->type = (uint8_t)m->t[0];
    in->type2 = (uint8_t)WV_T_F32;
    in->d[0] = wv_ddst(d, &pi->ops[0]);
    in->a = wv_dsrc(d, &pi->ops[1], WV_T_F32);
    in->b = wv_dsrc(d, &pi->ops[2], WV_T_F32);
    if (d->failed) return -1;
    in->imm = (int64_t)f;
    in->fn = wv_h_half(WV_OP_CVT);
    return no_handler(d, pi, in);
  }
  if (pi->nops == 3) return unsupported(d, pi); /* the other two-source packs */
  if (need_type(d, pi, m, 2) || nops(d, pi, 2, 2)) return -1;
  in->type = (uint8_t)m->t[0];
  in->type2 = (uint8_t)m->t[1];
  in->rnd = (uint8_t)m->rnd;
  in->ftz = (uint8_t)m->ftz;
  in->sat = (uint8_t)m->sat;
  in->d[0] = wv_ddst(d, &pi->ops[0]);
  in->a = wv_dsrc(d, &pi->ops[1], m->t[1]);
  if (d->failed) return -1;
  in->fn = wv_h_cvt(m->t[0], m->t[1], in);
  return no_handler(d, pi, in);
}

static int dec_cvta(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  int isp = in->op == WV_OP_ISSPACEP; /* isspacep.space p, a: no type, a is a 64-bit address */
  if ((isp ? (m->nt != 0 ? need_type(d, pi, m, 0) : 0) : need_type(d, pi, m, 1)) || nops(d, pi, 2, 2)) return -1;
  if (m->space < 0) return unsupported(d, pi);
  /* cvta.param / .param::entry and isspacep.param: the kernel's parameters (PTX ISA "cvta": the
   * generic address of a kernel parameter, as a __grid_constant__ parameter's address is taken) */
  in->space = (uint8_t)(m->space == WV_SPACE_FPARAM ? WV_SPACE_KPARAM : m->space);
  in->type = (uint8_t)(isp ? WV_T_U64 : m->t[0]);
  if (in->op == WV_OP_ISSPACEP) {
    int32_t p = wv_dpred(d, &pi->ops[0], NULL);
    if (p < 0) return -1;
    in->d[0] = (uint32_t)p;
  } else {
    in->mode = (uint8_t)wv_mods_take(m, "to");
    in->d[0] = wv_ddst(d, &pi->ops[0]);
  }
  const ptx_operand *src = &pi->ops[1];
  if (src->kind == PTX_OPND_SYM || (src->kind == PTX_OPND_REG && !wv_dlookup(d, src->name))) {
    const wv_decl *dl = wv_dlookup(d, src->name);
    if (dl && dl->kind == K_LOCALVAR) return wv_derr(d, src->loc, "cvta of a .local variable name is not supported");
  }
  in->a = wv_dsrc(d, src, (wv_type)in->type);
  if (d->failed) return -1;
  in->fn = wv_h_mem(in->op, in);
  return no_handler(d, pi, in);
}

/* ---------------- comparisons ---------------- */

static const char *const cmp_names[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                                        "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan", NULL};

static int dec_setp(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  int set = in->op == WV_OP_SET;
  if (need_type(d, pi, m, set ? 2 : 1)) return -1;
  wv_type t = m->t[set ? 1 : 0];
  in->type = (uint8_t)t;
  if (set) in->type2 = (uint8_t)m->t[0];
  int k = take_one(m, cmp_names);
  if (k < 0) return wv_derr(d, pi->loc, "%s needs a comparison operator", pi->opcode);
  in->cmp = (uint8_t)k;
  if (!wv_type_is_float(t) && k >= WV_CMP_EQU) return unsupported(d, pi);
  if (wv_type_is_float(t) && k >= WV_CMP_LO && k <= WV_CMP_HS) return unsupported(d, pi);
  int half = is_half(t);
  if (!half && t != WV_T_F32 && t != WV_T_F64 && (wv_type_is_float(t) || wv_type_size(t) < 2)) return unsupported(d, pi);
  if (set) { /* dtype: .u32 .s32 .f32, and .u16 .s16 .f16 .bf16 .f16x2 .bf16x2 with half sources (PTX ISA "set") */
    wv_type dt = (wv_type)in->type2;
    int x2 = t == WV_T_F16X2 || t == WV_T_BF16X2;
    int ok = dt == WV_T_U32 || dt == WV_T_S32 || (!half && dt == WV_T_F32);
    if (x2) ok = ok || dt == (t == WV_T_F16X2 ? WV_T_F16X2 : WV_T_BF16X2);
    else ok = ok || dt == WV_T_F16 || dt == WV_T_BF16 || (half && (dt == WV_T_U16 || dt == WV_T_S16));
    if (!ok) return unsupported(d, pi);
  }
  if (half && m->ftz && (t == WV_T_BF16 || t == WV_T_BF16X2)) return unsupported(d, pi);
  static const char *const bools[] = {"and", "or", "xor", NULL};
  int b = take_one(m, bools);
  in->boolop = (uint8_t)(b + 1);
  in->ftz = (uint8_t)m->ftz;
  if (nops(d, pi, b >= 0 ? 4 : 3, b >= 0 ? 4 : 3)) return -1;
  if (check_size(d, pi, &pi->ops[1], wv_type_size(t)) || check_size(d, pi, &pi->ops[2], wv_type_size(t))) return -1;
  if (set) {
    in->d[0] = wv_ddst(d, &pi->ops[0]);
  } else if (pi->ops[0].kind == PTX_OPND_SINK) { /* _|q */
    in->d[0] = WV_NOSLOT;
    if (pair_pred(d, &pi->ops[0], in)) return -1;
  } else {
    int32_t p = wv_dpred(d, &pi->ops[0], NULL);
    if (p < 0) return -1;
    in->d[0] = (uint32_t)p;
    if (pair_pred(d, &pi->ops[0], in)) return -1;
  }
  in->a = wv_dsrc(d, &pi->ops[1], t);
  in->b = wv_dsrc(d, &pi->ops[2], t);
  if (b >= 0) {
    int32_t c = wv_dpred(d, &pi->ops[3], &in->neg_c);
    if (c < 0) return -1;
    in->c = (uint32_t)c;
  }
  if (d->failed) return -1;
  in->fn = half ? wv_h_half(set ? WV_OP_SET : WV_OP_SETP) : wv_h_setp(in->op, t, in);
  return no_handler(d, pi, in);
}

static int dec_selp(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  int slct = in->op == WV_OP_SLCT;
  if (need_type(d, pi, m, slct ? 2 : 1) || nops(d, pi, 4, 4)) return -1;
  wv_type t = m->t[0];
  in->type = (uint8_t)t;
  in->ftz = (uint8_t)m->ftz;
  in->d[0] = wv_ddst(d, &pi->ops[0]);
  in->a = wv_dsrc(d, &pi->ops[1], t);
  in->b = wv_dsrc(d, &pi->ops[2], t);
  if (slct) {
    in->type2 = (uint8_t)m->t[1];
    if (m->t[1] != WV_T_S32 && m->t[1] != WV_T_F32) return unsupported(d, pi);
    in->c = wv_dsrc(d, &pi->ops[3], m->t[1]);
  } else {
    int32_t c = wv_dpred(d, &pi->ops[3], &in->neg_c);
    if (c < 0) return -1;
    in->c = (uint32_t)c;
  }
  if (d->failed) return -1;
  in->fn = wv_h_setp(in->op, t, in);
  return no_handler(d, pi, in);
}

/* ---------------- memory ---------------- */

static int has_mod(const ptx_insn *pi, const char *a, const char *b) {
  for (uint32_t i = 0; i < pi->nmods; i++)
    if (!strcmp(pi->mods[i], a) || (b && !strcmp(pi->mods[i], b))) return 1;
  return 0;
}


static int mem_common(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  take_hints(m);
  if (need_type(d, pi, m, 1)) return -1;
  wv_type t = m->t[0];
  int x2_ok = in->op == WV_OP_ATOM || in->op == WV_OP_RED; /* atom.add.noftz.f16x2 */
  if (t == WV_T_PRED || t == WV_T_B128 || ((t == WV_T_F16X2 || t == WV_T_BF16X2) && !x2_ok)) return unsupported(d, pi);
  in->type = (uint8_t)t;
  in->vec = (uint8_t)(m->vec ? m->vec : 1);
  if (in->vec > 4) return unsupported(d, pi);
  in->space = (uint8_t)(m->space < 0 ? WV_SPACE_GENERIC : m->space);
  return 0;
}

static int vec_regs(wv_dec *d, const ptx_operand *o, wv_insn *in, int is_dst) {
  if (in->vec == 1) {
    if (o->kind == PTX_OPND_VEC) return wv_derr(d, o->loc, "vector operand needs a .v2/.v4 instruction");
    in->d[0] = is_dst ? wv_ddst(d, o) : wv_dsrc(d, o, (wv_type)in->type);
    return d->failed ? -1 : 0;
  }
  if (o->kind != PTX_OPND_VEC || o->nelems != in->vec) return wv_derr(d, o->loc, "expected a vector of %u registers", in->vec);
  for (uint32_t i = 0; i < o->nelems; i++) {
    if (o->elems[i].kind == PTX_OPND_SINK && is_dst) { in->d[i] = WV_NOSLOT; continue; }
    in->d[i] = is_dst ? wv_ddst(d, &o->elems[i]) : wv_dsrc(d, &o->elems[i], (wv_type)in->type);
  }
  return d->failed ? -1 : 0;
}

static int dec_ld(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  if (mem_common(d, pi, in, m) || nops(d, pi, 2, 3)) return -1;
  if (wv_daddr(d, &pi->ops[1], in) || vec_regs(d, &pi->ops[0], in, 1)) return -1;
  if (pi->nops == 3) return unsupported(d, pi); /* cache-policy operand */
  in->fn = wv_h_mem(WV_OP_LD, in);
  return 0;
}

static int addr_into(wv_dec *d, const ptx_operand *o, wv_insn *in, int space, uint32_t *slot, int64_t *imm, uint8_t *flags);

/* st.async{.weak}.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.type [a], b, [mbar] and
 * red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.op.type [a], b, [mbar] (sm_90): a store
 * or reduction into a cluster CTA's shared memory that completes the bytes on that CTA's mbarrier (exec/async.c). */
static int dec_async_store(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m, int red) {
  wv_mods_take(m, "async");
  wv_mods_take(m, "weak");
  take_hints(m);
  if (!wv_mods_take(m, "mbarrier::complete_tx::bytes") || need_type(d, pi, m, 1)) return need_type(d, pi, m, 1) ? -1 : unsupported(d, pi);
  if (m->space != WV_SPACE_CLUSTER && m->space != -1) return unsupported(d, pi);
  in->type = (uint8_t)m->t[0];
  in->vec = (uint8_t)(m->vec ? m->vec : 1);
  unsigned size = wv_type_size(m->t[0]);
  if ((size != 4 && size != 8) || in->vec > 4 || (in->vec == 4 && size != 4) || (red && in->vec != 1)) return unsupported(d, pi);
  if (red) {
    static const char *const ops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor", NULL};
    int k = take_one(m, ops);
    if (k < 0) return unsupported(d, pi);
    in->sat = (uint8_t)(k + 1);
  }
  if (nops(d, pi, 3, 3)) return -1;
  in->space = WV_SPACE_CLUSTER;
  int64_t bimm;
  if (addr_into(d, &pi->ops[2], in, WV_SPACE_CLUSTER, &in->e, &bimm, &in->uni)) return -1;
  in->target = (uint32_t)bimm;
  if (wv_daddr(d, &pi->ops[0], in) || vec_regs(d, &pi->ops[1], in, 0)) return -1;
  in->mode = WV_CP_ST_ASYNC;
  in->fn = wv_h_async(0);
  return 0;
}

static int dec_st(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  if (has_mod(pi, "async", NULL)) return dec_async_store(d, pi, in, m, 0);
  in->uni = (uint8_t)has_mod(pi, "release", NULL); /* ordering for the weak memory model */
  if (mem_common(d, pi, in, m) || nops(d, pi, 2, 2)) return -1;
  if (wv_daddr(d, &pi->ops[0], in) || vec_regs(d, &pi->ops[1], in, 0)) return -1;
  if (in->space == WV_SPACE_KPARAM || in->space == WV_SPACE_CONST) return wv_derr(d, pi->loc, "store to a read-only state space");
  in->fn = wv_h_mem(WV_OP_ST, in);
  return 0;
}

static int dec_atom(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  if (has_mod(pi, "async", NULL)) return in->op == WV_OP_RED ? dec_async_store(d, pi, in, m, 1) : unsupported(d, pi);
  static const char *const ops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas", NULL};
  int k = take_one(m, ops);
  if (k < 0) return unsupported(d, pi);
  in->mode = (uint8_t)k;
  in->uni = (uint8_t)(has_mod(pi, "release", "acq_rel") || has_mod(pi, "sc", NULL));
  int noftz = wv_mods_take(m, "noftz");
  if (mem_common(d, pi, in, m)) return -1;
  wv_type t = (wv_type)in->type;
  if (in->space != WV_SPACE_GLOBAL && in->space != WV_SPACE_SHARED && in->space != WV_SPACE_GENERIC &&
      in->space != WV_SPACE_CLUSTER)
    return unsupported(d, pi);
  /* add on .f16 .bf16 .f16x2 .bf16x2 needs .noftz (PTX ISA "atom": rounded to nearest, subnormals kept) */
  if (is_half(t) && (k != 0 || !noftz)) return wv_derr(d, pi->loc, "%s on a half type is %s.add.noftz", pi->opcode, pi->opcode);
  if (noftz && !is_half(t)) return wv_derr(d, pi->loc, ".noftz is for add on .f16, .bf16, .f16x2, .bf16x2");
  if ((wv_type_size(t) < 4 && !(wv_type_size(t) == 2 && k == 9) && !is_half(t)) || ((t == WV_T_F32 || t == WV_T_F64) && k != 0))
    return unsupported(d, pi);
  /* .v2/.v4 (sm_90): an add on each element of a global vector of f32 or halves, each element its own
   * atomic; the sources' slots are b, c, e and target (see atom_src in h_mem.c) */
  if (in->vec != 1 && (k != 0 || in->space != WV_SPACE_GLOBAL || !(t == WV_T_F32 || is_half(t))))
    return unsupported(d, pi);
  int red = in->op == WV_OP_RED, cas = k == 9;
  uint32_t n = (red ? 2 : 3) + (cas ? 1 : 0);
  if (nops(d, pi, n, n)) return -1;
  uint32_t i = 0;
  if (!red && vec_regs(d, &pi->ops[i++], in, 1)) return -1;
  if (wv_daddr(d, &pi->ops[i++], in)) return -1;
  if (in->vec != 1) {
    const ptx_operand *o = &pi->ops[i++];
    if (o->kind != PTX_OPND_VEC || o->nelems != in->vec) return wv_derr(d, o->loc, "expected a vector of %u registers", in->vec);
    uint32_t *src[4] = {&in->b, &in->c, &in->e, &in->target};
    for (uint32_t j = 0; j < in->vec; j++) *src[j] = wv_dsrc(d, &o->elems[j], t);
    if (red) for (uint32_t j = 0; j < 4; j++) in->d[j] = WV_NOSLOT;
  } else {
    if (red) in->d[0] = WV_NOSLOT;
    in->b = wv_dsrc(d, &pi->ops[i++], t);
  }
  if (cas) in->c = wv_dsrc(d, &pi->ops[i++], t);
  if (d->failed) return -1;
  in->fn = wv_h_mem(WV_OP_ATOM, in);
  return 0;
}

static int dec_nop(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  (void)d;
  (void)pi;
  take_hints(m);
  m->used = ~0u; /* fence.proxy.async, membar.gl, nanosleep.u32, prefetch.global.L2 ...: no effect */
  /* membar/fence order memory: under the weak model they make the thread's stores visible */
  in->fn = (in->op == WV_OP_MEMBAR || in->op == WV_OP_FENCE) ? wv_h_fence : wv_h_nop;
  return 0;
}

/* griddepcontrol.{wait,launch_dependents}; setmaxnreg.{inc,dec}.sync.aligned.u32 N; pmevent{.mask} N:
 * valid PTX with nothing to do here. griddepcontrol.wait waits for the grids this one depends on, and
 * launches run one after another to completion; launch_dependents only lets a dependent grid start
 * early. setmaxnreg and pmevent tune or observe hardware warpvm does not model. */
static int dec_hint(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  static const char *const gdc[] = {"wait", "launch_dependents", NULL}, *const reg[] = {"inc", "dec", NULL};
  in->fn = wv_h_nop;
  switch (in->op) {
  case WV_OP_GRIDDEPCONTROL:
    if (take_one(m, gdc) < 0 || m->nt || pi->nmods != 1)
      return wv_derr(d, pi->loc, "griddepcontrol takes exactly one of .wait, .launch_dependents");
    return nops(d, pi, 0, 0);
  case WV_OP_SETMAXNREG:
    if (take_one(m, reg) < 0 || !wv_mods_take(m, "sync") || !wv_mods_take(m, "aligned") || m->nt != 1 || m->t[0] != WV_T_U32)
      return wv_derr(d, pi->loc, "setmaxnreg is setmaxnreg.{inc,dec}.sync.aligned.u32");
    if (nops(d, pi, 1, 1)) return -1;
    if (pi->ops[0].kind != PTX_OPND_INT || pi->ops[0].ival < 24 || pi->ops[0].ival > 256 || pi->ops[0].ival % 8)
      return wv_derr(d, pi->ops[0].loc, "setmaxnreg needs an immediate register count, a multiple of 8 in 24..256");
    in->fn = wv_h_cluster(2); /* the threads' convergence is checked (exec/cluster.c) */
    return 0;
  default: /* pmevent a; pmevent.mask a */
    wv_mods_take(m, "mask");
    if (nops(d, pi, 1, 1)) return -1;
    if (pi->ops[0].kind != PTX_OPND_INT) return wv_derr(d, pi->ops[0].loc, "pmevent needs an immediate");
    return 0;
  }
}

/* mapa{.shared::cluster}.{u32,u64} d, a, b; getctarank{.shared::cluster}.{u32,u64} d, a (PTX ISA: the
 * generic forms without a space; exec/cluster.c). */
static int dec_mapa(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  int rank = in->op == WV_OP_GETCTARANK;
  if (need_type(d, pi, m, 1) || nops(d, pi, rank ? 2 : 3, rank ? 2 : 3)) return -1;
  if (m->t[0] != WV_T_U32 && m->t[0] != WV_T_U64) return unsupported(d, pi);
  if (m->space >= 0 && m->space != WV_SPACE_CLUSTER) return unsupported(d, pi);
  in->space = (uint8_t)(m->space < 0 ? WV_SPACE_GENERIC : WV_SPACE_CLUSTER);
  in->type = (uint8_t)m->t[0];
  in->d[0] = wv_ddst(d, &pi->ops[0]);
  in->a = wv_dsrc(d, &pi->ops[1], m->t[0]);
  if (!rank) in->b = wv_dsrc(d, &pi->ops[2], WV_T_U32);
  if (d->failed) return -1;
  in->fn = wv_h_cluster(rank);
  return 0;
}

/* tensormap.replace.tile.FIELD{.global,.shared::cta}.b1024.{b32,b64} [map], {ord,} new_val;
 * tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [dst], [src], 128
 * (sm_90a; exec/bulk.c). in->mode: the field (WV_TMF_*), in->target: ord, in->b: the new value. */
static int copy_spaces(const ptx_insn *pi, int *dst, int *src);

static int dec_tensormap(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  static const char *const fields[] = {"global_address", "rank", "box_dim", "global_dim", "global_stride",
                                       "element_stride", "elemtype", "interleave_layout", "swizzle_mode",
                                       "swizzle_atomicity", "fill_mode", NULL};
  in->fn = wv_h_tensormap();
  take_hints(m);
  wv_mods_take(m, "sync");
  if (wv_mods_take(m, "cp_fenceproxy")) {
    int dsp, ssp;
    if (!wv_mods_take(m, "tensormap::generic") || copy_spaces(pi, &dsp, &ssp) != 2 || dsp != WV_SPACE_GLOBAL ||
        ssp != WV_SPACE_SHARED || nops(d, pi, 3, 3))
      return d->failed ? -1 : unsupported(d, pi);
    if (pi->ops[2].kind != PTX_OPND_INT || pi->ops[2].ival != 128)
      return wv_derr(d, pi->ops[2].loc, "tensormap.cp_fenceproxy copies 128 bytes");
    if (addr_into(d, &pi->ops[1], in, WV_SPACE_SHARED, &in->b, &in->imm2, &in->type2)) return -1;
    in->mode = WV_TMF_COPY;
    in->space = WV_SPACE_GLOBAL;
    return wv_daddr(d, &pi->ops[0], in);
  }
  if (!wv_mods_take(m, "replace") || !wv_mods_take(m, "tile") || !wv_mods_take(m, "b1024")) return unsupported(d, pi);
  int f = take_one(m, fields);
  if (f < 0 || m->nt != 1 || (m->t[0] != WV_T_B32 && m->t[0] != WV_T_B64)) return unsupported(d, pi);
  int ord = f >= WV_TMF_BOX_DIM && f <= WV_TMF_ELEMENT_STRIDE;
  if (nops(d, pi, ord ? 3 : 2, ord ? 3 : 2)) return -1;
  if (ord) {
    if (pi->ops[1].kind != PTX_OPND_INT || pi->ops[1].ival > 4) return wv_derr(d, pi->ops[1].loc, "tensormap.replace needs an immediate ordinal 0..4");
    in->target = (uint32_t)pi->ops[1].ival;
  }
  in->mode = (uint8_t)f;
  in->type = (uint8_t)m->t[0];
  in->space = (uint8_t)(m->space < 0 ? WV_SPACE_GENERIC : m->space);
  if (wv_daddr(d, &pi->ops[0], in)) return -1;
  in->b = wv_dsrc(d, &pi->ops[ord ? 2 : 1], m->t[0]);
  return d->failed ? -1 : 0;
}

/* ---------------- asynchronous copies and mbarriers ---------------- */

/* An address operand decoded into slot/offset/flags of its own (in->space on entry: its state space). */
static int addr_into(wv_dec *d, const ptx_operand *o, wv_insn *in, int space, uint32_t *slot, int64_t *imm, uint8_t *flags) {
  wv_insn t = *in;
  t.space = (uint8_t)space;
  t.addrf = 0;
  t.a = WV_NOSLOT;
  ptx_operand base = *o;
  base.elems = NULL;
  base.nelems = 0;
  if (wv_daddr(d, &base, &t)) return -1;
  *slot = t.a;
  *imm = t.imm + (t.space == WV_SPACE_KPARAM ? (int64_t)WV_PARAM_WINDOW : 0); /* [param, {..}]: its generic address */
  *flags = t.addrf & (uint8_t)~(t.space == WV_SPACE_KPARAM ? WV_AF_WRAP32 : 0);
  return 0;
}

/* [tensorMap, {c0, ...}]: the map's generic address into b/imm2/type2, the coordinates into d[0..3], c. */
static int tensor_operand(wv_dec *d, const ptx_operand *o, wv_insn *in, unsigned dims) {
  const ptx_operand *v = o->nelems == 1 && o->elems[0].kind == PTX_OPND_VEC ? o->elems : NULL;
  if (o->kind != PTX_OPND_ADDR || !v || v->nelems != dims)
    return wv_derr(d, o->loc, "expected [tensorMap, {%u coordinates}]", dims);
  if (addr_into(d, o, in, WV_SPACE_GENERIC, &in->b, &in->imm2, &in->type2)) return -1;
  uint32_t *slots[5] = {&in->d[0], &in->d[1], &in->d[2], &in->d[3], &in->c};
  for (unsigned i = 0; i < dims; i++) *slots[i] = wv_dsrc(d, &v->elems[i], WV_T_S32);
  in->vec = (uint8_t)dims;
  return d->failed ? -1 : 0;
}

/* The state spaces of a copy in the order written: the destination's, then the source's. */
static int copy_spaces(const ptx_insn *pi, int *dst, int *src) {
  int n = 0, sp[2] = {-1, -1};
  for (uint32_t i = 0; i < pi->nmods && n < 2; i++) {
    const char *w = pi->mods[i];
    int s = !strcmp(w, "global") ? WV_SPACE_GLOBAL : !strcmp(w, "shared::cluster") ? WV_SPACE_CLUSTER
            : (!strcmp(w, "shared::cta") || !strcmp(w, "shared")) ? WV_SPACE_SHARED : -1;
    if (s >= 0) sp[n++] = s;
  }
  *dst = sp[0], *src = sp[1];
  return n;
}

/* The sm_90 bulk copies (PTX ISA "cp.async.bulk", "cp.reduce.async.bulk", "cp.async.bulk.tensor",
 * "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch{.tensor}", commit_group/wait_group; exec/async.c,
 * exec/bulk.c). Tile mode only (.im2col: the launch is refused). */
static int dec_bulk(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m, int reduce) {
  static const char *const redops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor", NULL};
  static const char *const dimw[] = {"1d", "2d", "3d", "4d", "5d", NULL};
  in->fn = wv_h_async(0);
  take_hints(m); /* .L2::cache_hint and the like */
  wv_mods_take(m, "noftz");
  if (!reduce && wv_mods_take(m, "commit_group")) {
    in->mode = WV_CP_BULK_COMMIT;
    return nops(d, pi, 0, 0);
  }
  if (!reduce && wv_mods_take(m, "wait_group")) {
    wv_mods_take(m, "read");
    if (nops(d, pi, 1, 1)) return -1;
    if (pi->ops[0].kind != PTX_OPND_INT) return wv_derr(d, pi->ops[0].loc, "cp.async.bulk.wait_group needs an immediate");
    in->mode = WV_CP_BULK_WAIT;
    in->imm = (int64_t)pi->ops[0].ival;
    return 0;
  }
  int tensor = wv_mods_take(m, "tensor"), dims = tensor ? take_one(m, dimw) + 1 : 0;
  if (tensor && dims <= 0) return unsupported(d, pi);
  if (tensor && wv_mods_take(m, "im2col")) return unsupported(d, pi);
  if (tensor) wv_mods_take(m, "tile");
  if (!reduce && wv_mods_take(m, "prefetch")) { /* into L2: no effect (the operands are still checked) */
    wv_mods_take(m, "L2");
    in->fn = wv_h_nop;
    return tensor ? (nops(d, pi, 1, 2) ? -1 : 0) : nops(d, pi, 2, 3);
  }
  int op = reduce ? take_one(m, redops) + 1 : 0;
  if (reduce && op <= 0) return unsupported(d, pi);
  in->sat = (uint8_t)op;
  if (reduce && !tensor) {
    if (m->nt != 1) return need_type(d, pi, m, 1);
    in->type = (uint8_t)m->t[0];
  } else if (m->nt) {
    return unsupported(d, pi);
  }
  int dsp, ssp;
  if (copy_spaces(pi, &dsp, &ssp) != 2) return unsupported(d, pi);
  int mcast = wv_mods_take(m, "multicast::cluster");
  if (dsp == WV_SPACE_CLUSTER) { /* into shared memory, completing on an mbarrier */
    if (!wv_mods_take(m, "mbarrier::complete_tx::bytes")) return unsupported(d, pi);
    if (ssp != WV_SPACE_GLOBAL && (ssp != WV_SPACE_SHARED || tensor || mcast)) return unsupported(d, pi);
    if (reduce && (tensor || ssp != WV_SPACE_SHARED)) return unsupported(d, pi); /* (only shared::cta → ::cluster) */
    in->boolop = (uint8_t)((mcast ? WV_BK_MCAST : 0) | (ssp == WV_SPACE_SHARED ? WV_BK_SRC_SHARED : 0));
    int hint = has_mod(pi, "L2::cache_hint", NULL);
    uint32_t need = (tensor ? 3u : 4u) + (mcast ? 1u : 0u) + (hint ? 1u : 0u);
    if (nops(d, pi, need, need)) return -1;
    uint32_t k = 1;
    if (tensor) {
      if (tensor_operand(d, &pi->ops[k++], in, (unsigned)dims)) return -1;
    } else {
      if (addr_into(d, &pi->ops[k++], in, ssp, &in->b, &in->imm2, &in->type2)) return -1;
      in->c = wv_dsrc(d, &pi->ops[k++], WV_T_U32);
    }
    int64_t bimm;
    if (addr_into(d, &pi->ops[k++], in, WV_SPACE_CLUSTER, &in->e, &bimm, &in->uni)) return -1;
    in->target = (uint32_t)bimm; /* the mbarrier: slot e, offset target (a shared address: < 2^32), flags uni */
    in->rpc = mcast ? wv_dsrc(d, &pi->ops[k++], WV_T_U16) : WV_NOSLOT;
    in->mode = tensor ? WV_CP_TENSOR_LOAD : WV_CP_BULK;
    in->space = WV_SPACE_CLUSTER;
    if (wv_daddr(d, &pi->ops[0], in)) return -1;
    return d->failed ? -1 : 0;
  }
  /* into global memory: a bulk async-group */
  if (dsp != WV_SPACE_GLOBAL || ssp != WV_SPACE_SHARED || mcast || !wv_mods_take(m, "bulk_group")) return unsupported(d, pi);
  if (has_mod(pi, "cp_mask", NULL)) return unsupported(d, pi);
  int hint = has_mod(pi, "L2::cache_hint", NULL);
  if (tensor) {
    if (nops(d, pi, 2u + (hint ? 1u : 0u), 2u + (hint ? 1u : 0u)) || tensor_operand(d, &pi->ops[0], in, (unsigned)dims)) return -1;
    in->mode = WV_CP_TENSOR_STORE;
    in->space = WV_SPACE_SHARED;
    return wv_daddr(d, &pi->ops[1], in);
  }
  if (nops(d, pi, 3u + (hint ? 1u : 0u), 3u + (hint ? 1u : 0u))) return -1;
  if (addr_into(d, &pi->ops[1], in, WV_SPACE_SHARED, &in->b, &in->imm2, &in->type2)) return -1;
  in->c = wv_dsrc(d, &pi->ops[2], WV_T_U32);
  in->mode = WV_CP_BULK_STORE;
  in->space = WV_SPACE_GLOBAL;
  if (wv_daddr(d, &pi->ops[0], in)) return -1;
  return d->failed ? -1 : 0;
}

/* cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size}{, cache-policy};
 * cp.async.commit_group; cp.async.wait_group N; cp.async.wait_all;
 * cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [mbar]   (PTX ISA §9.7.9.25); the bulk forms (dec_bulk) */
static int dec_cp(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  int reduce = wv_mods_take(m, "reduce");
  if (!wv_mods_take(m, "async")) return unsupported(d, pi);
  if (wv_mods_take(m, "bulk")) return dec_bulk(d, pi, in, m, reduce);
  if (reduce) return unsupported(d, pi);
  int cg = wv_mods_take(m, "cg"), ca = !cg && wv_mods_take(m, "ca"); /* before take_hints eats them */
  take_hints(m);
  in->fn = wv_h_async(0);
  if (wv_mods_take(m, "commit_group")) {
    in->mode = WV_CP_COMMIT;
    return nops(d, pi, 0, 0);
  }
  if (wv_mods_take(m, "wait_all")) {
    in->mode = WV_CP_WAIT_ALL;
    return nops(d, pi, 0, 0);
  }
  if (wv_mods_take(m, "wait_group")) {
    if (nops(d, pi, 1, 1)) return -1;
    if (pi->ops[0].kind != PTX_OPND_INT) return wv_derr(d, pi->ops[0].loc, "cp.async.wait_group needs an immediate");
    in->mode = WV_CP_WAIT_GROUP;
    in->imm = (int64_t)pi->ops[0].ival;
    return 0;
  }
  if (wv_mods_take(m, "mbarrier")) {
    if (!wv_mods_take(m, "arrive") || nops(d, pi, 1, 1)) return unsupported(d, pi);
    if (wv_mods_take(m, "noinc")) in->boolop |= WV_MBF_NOINC;
    if (m->nt && m->t[0] != WV_T_B64) return unsupported(d, pi);
    in->mode = WV_CP_MBAR_ARRIVE;
    in->space = (uint8_t)(m->space < 0 ? WV_SPACE_GENERIC : m->space);
    return wv_daddr(d, &pi->ops[0], in);
  }
  if (!cg && !ca) return unsupported(d, pi);
  if (!has_mod(pi, "shared", "shared::cta") || !has_mod(pi, "global", NULL)) return unsupported(d, pi);
  if (nops(d, pi, 3, 5) || pi->ops[2].kind != PTX_OPND_INT) return unsupported(d, pi);
  uint64_t size = pi->ops[2].ival;
  if (size != 4 && size != 8 && size != 16) return wv_derr(d, pi->ops[2].loc, "cp.async copies 4, 8 or 16 bytes");
  if (cg && size != 16) return wv_derr(d, pi->ops[2].loc, "cp.async.cg copies 16 bytes");
  in->mode = WV_CP_COPY;
  in->target = (uint32_t)size;
  wv_insn src = *in;
  src.space = WV_SPACE_GLOBAL;
  src.addrf = 0;
  if (wv_daddr(d, &pi->ops[1], &src)) return -1;
  in->b = src.a;
  in->imm2 = src.imm;
  in->type2 = src.addrf;
  in->space = WV_SPACE_SHARED;
  if (wv_daddr(d, &pi->ops[0], in)) return -1;
  if (pi->nops >= 4 && pi->ops[3].kind != PTX_OPND_REG && pi->ops[3].kind != PTX_OPND_INT && pi->ops[3].kind != PTX_OPND_SYM)
    return unsupported(d, pi);
  /* the 4th operand is src-size unless it is the cache policy of .L2::cache_hint (a 64-bit register) */
  if (pi->nops >= 4 && !(pi->nops == 4 && has_mod(pi, "L2::cache_hint", NULL))) in->c = wv_dsrc(d, &pi->ops[3], WV_T_U32);
  return d->failed ? -1 : 0;
}

/* mbarrier.* on a 64-bit object in shared memory (PTX ISA §9.7.13.15). */
static int dec_mbarrier(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  static const char *const ops[] = {"init", "inval", "arrive", "arrive_drop", "expect_tx", "complete_tx",
                                    "test_wait", "try_wait", "pending_count", NULL};
  /* `arrive.expect_tx`: the op is the first word */
  int k = -1;
  if (pi->nmods) for (int i = 0; ops[i]; i++) if (!strcmp(pi->mods[0], ops[i])) k = i;
  if (k < 0 || !wv_mods_take(m, ops[k])) return unsupported(d, pi);
  if ((k == WV_MB_ARRIVE || k == WV_MB_ARRIVE_DROP) && wv_mods_take(m, "expect_tx")) in->boolop |= WV_MBF_EXPECT_TX;
  if ((k == WV_MB_ARRIVE || k == WV_MB_ARRIVE_DROP) && wv_mods_take(m, "noComplete")) in->boolop |= WV_MBF_NOCOMPLETE;
  if ((k == WV_MB_TEST_WAIT || k == WV_MB_TRY_WAIT) && wv_mods_take(m, "parity")) in->boolop |= WV_MBF_PARITY;
  take_hints(m);
  if (m->nt != 1 || m->t[0] != WV_T_B64) return need_type(d, pi, m, 1) ? -1 : unsupported(d, pi);
  in->mode = (uint8_t)k;
  in->space = (uint8_t)(m->space < 0 ? WV_SPACE_GENERIC : m->space); /* .shared::cluster: a remote CTA's too */
  in->fn = wv_h_async(1);
  uint32_t i = 0;
  switch (k) {
  case WV_MB_INIT: case WV_MB_EXPECT_TX: case WV_MB_COMPLETE_TX:
    if (nops(d, pi, 2, 2) || wv_daddr(d, &pi->ops[0], in)) return -1;
    in->b = wv_dsrc(d, &pi->ops[1], WV_T_U32);
    break;
  case WV_MB_INVAL:
    if (nops(d, pi, 1, 1) || wv_daddr(d, &pi->ops[0], in)) return -1;
    break;
  case WV_MB_ARRIVE: case WV_MB_ARRIVE_DROP:
    if (nops(d, pi, 1, 3)) return -1;
    if (pi->ops[0].kind != PTX_OPND_ADDR) { /* state (or _) first */
      in->d[0] = pi->ops[0].kind == PTX_OPND_SINK ? WV_NOSLOT : wv_ddst(d, &pi->ops[0]);
      i = 1;
    }
    if (i >= pi->nops || wv_daddr(d, &pi->ops[i], in)) return i >= pi->nops ? wv_derr(d, pi->loc, "mbarrier.arrive needs an address") : -1;
    in->b = i + 1 < pi->nops ? wv_dsrc(d, &pi->ops[i + 1], WV_T_U32) : wv_dconst(d, (in->boolop & WV_MBF_EXPECT_TX) ? 0 : 1);
    break;
  case WV_MB_TEST_WAIT: case WV_MB_TRY_WAIT: {
    if (nops(d, pi, 3, 4)) return -1;
    int32_t p = wv_dpred(d, &pi->ops[0], NULL);
    if (p < 0 || wv_daddr(d, &pi->ops[1], in)) return -1;
    in->d[0] = (uint32_t)p;
    in->b = wv_dsrc(d, &pi->ops[2], (in->boolop & WV_MBF_PARITY) ? WV_T_U32 : WV_T_B64);
    in->ctl = WV_CTL_MBARWAIT;
    break;
  }
  default: /* pending_count.b64 count, state */
    if (nops(d, pi, 2, 2)) return -1;
    in->d[0] = wv_ddst(d, &pi->ops[0]);
    in->a = wv_dsrc(d, &pi->ops[1], WV_T_B64);
    break;
  }
  return d->failed ? -1 : 0;
}

/* ---------------- control ---------------- */

static int dec_bra(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  in->uni = (uint8_t)wv_mods_take(m, "uni");
  if (nops(d, pi, 1, 1)) return -1;
  if (pi->ops[0].kind != PTX_OPND_SYM) return wv_derr(d, pi->ops[0].loc, "bra needs a label (indirect branches are not supported)");
  in->ctl = WV_CTL_BRA;
  return 0;
}

/* Where a call's argument and result .param variables are in the caller's frame (wv_callinfo). */
static int call_params(wv_dec *d, const ptx_insn *pi, wv_callinfo *ci, const ptx_operand *rets, const ptx_operand *args) {
  ci->nargs = args ? args->nelems : 0;
  ci->nrets = rets ? rets->nelems : 0;
  ci->arg_off = calloc(ci->nargs + 1, sizeof *ci->arg_off);
  ci->arg_size = calloc(ci->nargs + 1, sizeof *ci->arg_size);
  ci->ret_off = calloc(ci->nrets + 1, sizeof *ci->ret_off);
  ci->ret_size = calloc(ci->nrets + 1, sizeof *ci->ret_size);
  if (!ci->arg_off || !ci->arg_size || !ci->ret_off || !ci->ret_size) return wv_derr(d, pi->loc, "out of memory");
  for (int pass = 0; pass < 2; pass++) {
    const ptx_operand *list = pass ? args : rets;
    for (uint32_t k = 0; list && k < list->nelems; k++) {
      const ptx_operand *o = &list->elems[k];
      const wv_decl *p = (o->kind == PTX_OPND_SYM || o->kind == PTX_OPND_REG) ? wv_dlookup(d, o->name) : NULL;
      if (!p || p->kind != K_FPARAM)
        return wv_derr(d, o->loc, "call %s must be .param variables", pass ? "arguments" : "results");
      (pass ? ci->arg_off : ci->ret_off)[k] = (uint32_t)p->off;
      (pass ? ci->arg_size : ci->ret_size)[k] = p->size;
    }
  }
  return 0;
}

/* An indirect call's results or arguments against its prototype's (PTX ISA "call": the operands are
 * type-checked against the prototype; as ptxas 13.0: the same number, and each of the same size, shape —
 * scalar or array — and alignment). */
static int check_proto_list(wv_dec *d, const ptx_insn *pi, const ptx_operand *list, const ptx_var *formal,
                            uint32_t nformal, const ptx_proto *pr, const char *what) {
  uint32_t n = list ? list->nelems : 0;
  if (n != nformal)
    return wv_derr(d, pi->loc, "the call has %u %s%s but its prototype '%s' has %u", n, what, n == 1 ? "" : "s", pr->name,
                   nformal);
  for (uint32_t k = 0; k < n; k++) {
    const wv_decl *p = wv_dlookup(d, list->elems[k].name); /* a .param variable: call_params checked */
    const ptx_var *v = &formal[k];
    wv_type t = wv_type_parse(v->type);
    uint32_t es = wv_type_size(t) * (v->vec ? v->vec : 1);
    uint64_t size = (uint64_t)es * v->nelems;
    uint32_t align = v->align ? v->align : es;
    if (t == WV_T_NONE || size != p->size || align != p->align || !v->is_array != !p->is_array)
      return wv_derr(d, list->elems[k].loc,
                     "%s %u of the call ('%s': %u bytes, aligned to %u%s) does not match prototype '%s' (%llu bytes, "
                     "aligned to %u%s)", what, k + 1, list->elems[k].name, p->size, p->align, p->is_array ? ", an array" : "",
                     pr->name, (unsigned long long)size, align, v->is_array ? ", an array" : "");
  }
  return 0;
}

/* The functions a call table holds (a .global/.const array initialised with function names). */
static int table_targets(wv_dec *d, const ptx_operand *o, const wv_gvar *g, wv_callinfo *ci) {
  const uint8_t *host = g->space != WV_SPACE_SHARED ? wv_heap_lookup(&d->vm->heap, g->addr, g->size) : NULL;
  ci->targets = calloc(g->size / 8 + 1, sizeof *ci->targets);
  if (!ci->targets) return wv_derr(d, o->loc, "out of memory");
  for (uint64_t i = 0; host && i + 8 <= g->size; i += 8) {
    uint64_t v;
    memcpy(&v, host + i, 8);
    if ((v & WV_FUNC_ADDR_MASK) == WV_FUNC_ADDR_TAG) ci->targets[ci->ntargets++] = (uint32_t)v;
  }
  if (!ci->ntargets) return wv_derr(d, o->loc, "call table '%s' holds no function addresses", o->name);
  return 0;
}

/* call (rets), fptr, (args), flist-or-fproto: the third operand names a .callprototype, a .calltargets
 * list or a call table (PTX ISA "call"). The call reconverges right after itself (lanes whose callees
 * differ run them one at a time: sched.c). */
static int dec_call_indirect(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_callinfo *ci, const ptx_operand *fptr,
                             const ptx_operand *rets, const ptx_operand *args, const ptx_operand *fl) {
  if (!fl || (fl->kind != PTX_OPND_SYM && fl->kind != PTX_OPND_REG))
    return wv_derr(d, fl ? fl->loc : pi->loc, "an indirect call needs a prototype, a .calltargets list or a call table "
                                               "after its arguments");
  ci->indirect = 1;
  in->a = wv_dsrc(d, fptr, WV_T_B64);
  in->rpc = d->ncode + 1;
  if (d->failed) return -1;
  int64_t pv;
  if (wv_symtab_get(&d->protos, fl->name, &pv)) {
    const ptx_proto *pr = (const ptx_proto *)(intptr_t)pv;
    if (!pr->is_targets)
      return check_proto_list(d, pi, rets, pr->rets, pr->nrets, pr, "result") ||
             check_proto_list(d, pi, args, pr->params, pr->nparams, pr, "argument");
    ci->targets = calloc(pr->ntargets + 1, sizeof *ci->targets);
    if (!ci->targets) return wv_derr(d, fl->loc, "out of memory");
    for (uint32_t k = 0; k < pr->ntargets; k++) {
      const wv_decl *t = wv_dlookup(d, pr->targets[k]);
      if (!t || t->kind != K_FUNC) return wv_derr(d, fl->loc, "'%s' in '.calltargets' %s is not a function", pr->targets[k], pr->name);
      ci->targets[ci->ntargets++] = t->base;
    }
    return 0;
  }
  const wv_decl *dl = wv_dlookup(d, fl->name);
  if (dl && dl->kind == K_GVAR) return table_targets(d, fl, &d->mod->vars[dl->base], ci);
  return wv_derr(d, fl->loc, "'%s' is not a .callprototype, a .calltargets list or a call table", fl->name);
}

static int dec_call(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  in->uni = (uint8_t)wv_mods_take(m, "uni");
  uint32_t i = 0;
  const ptx_operand *rets = NULL, *args = NULL, *fn, *fl = NULL;
  if (i < pi->nops && pi->ops[i].kind == PTX_OPND_LIST) rets = &pi->ops[i++];
  if (i >= pi->nops) return wv_derr(d, pi->loc, "call needs a function name");
  fn = &pi->ops[i++];
  if (i < pi->nops && pi->ops[i].kind == PTX_OPND_LIST) args = &pi->ops[i++];
  if (i < pi->nops) fl = &pi->ops[i++];
  if (i < pi->nops) return wv_derr(d, pi->ops[i].loc, "too many operands for call");
  if (fn->kind != PTX_OPND_SYM && fn->kind != PTX_OPND_REG)
    return wv_derr(d, fn->loc, "call needs a function name or a register holding a function's address");
  const wv_decl *dl = wv_dlookup(d, fn->name);
  wv_callinfo *ci = calloc(1, sizeof *ci);
  if (!ci) return wv_derr(d, pi->loc, "out of memory");
  in->aux = ci;
  in->ctl = WV_CTL_CALL;
  if (call_params(d, pi, ci, rets, args)) return -1;
  if (dl && dl->kind == K_REG) return dec_call_indirect(d, pi, in, ci, fn, rets, args, fl);
  if (!dl || dl->kind != K_FUNC)
    return wv_derr(d, fn->loc, "call to %s '%s'", dl ? "something that is not a function or a register:" : "undeclared function",
                   fn->name);
  if (fl) return wv_derr(d, fl->loc, "a direct call takes no prototype or call targets");
  const wv_func *callee = &d->mod->funcs[dl->base];
  if (!callee->defined && !callee->builtin)
    return wv_derr(d, fn->loc, "unsupported call to external function '%s' (warpvm provides vprintf, __assertfail, malloc, free, __nv_aligned_device_malloc and most of CUDA's device runtime)", fn->name);
  if (callee->is_entry) return wv_derr(d, fn->loc, "call to kernel '%s'", fn->name);
  in->target = dl->base;
  ci->builtin = callee->builtin;
  return 0;
}

static int dec_ret(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  wv_mods_take(m, "uni");
  if (nops(d, pi, 0, 0)) return -1;
  in->ctl = in->op == WV_OP_RET ? WV_CTL_RET : in->op == WV_OP_EXIT ? WV_CTL_EXIT : WV_CTL_TRAP;
  return 0;
}

static int dec_bar(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  wv_mods_take(m, "cta");
  wv_mods_take(m, "aligned");
  if (in->op == WV_OP_BARRIER && wv_mods_take(m, "cluster")) {
    /* barrier.cluster.arrive{.release,.relaxed}{.aligned} / .wait{.acquire}{.aligned}: the cluster barrier
     * (exec/cluster.c) */
    wv_mods_take(m, "release");
    wv_mods_take(m, "relaxed");
    wv_mods_take(m, "acquire");
    if (nops(d, pi, 0, 0)) return -1;
    in->ctl = WV_CTL_BAR;
    if (wv_mods_take(m, "arrive")) in->mode = WV_BAR_CLUSTER_ARRIVE;
    else if (wv_mods_take(m, "wait")) in->mode = WV_BAR_CLUSTER_WAIT;
    else return unsupported(d, pi);
    return 0;
  }
  if (wv_mods_take(m, "warp")) { /* bar.warp.sync membermask */
    if (!wv_mods_take(m, "sync") || nops(d, pi, 1, 1)) return unsupported(d, pi);
    in->ctl = WV_CTL_COLL;
    in->mode = WV_BAR_WARPSYNC;
    in->a = wv_dsrc(d, &pi->ops[0], WV_T_B32);
    in->fn = wv_h_coll(in);
    return d->failed ? -1 : 0;
  }
  in->ctl = WV_CTL_BAR;
  uint32_t first = 0;
  if (wv_mods_take(m, "sync")) in->mode = WV_BAR_SYNC;
  else if (wv_mods_take(m, "arrive")) in->mode = WV_BAR_ARRIVE;
  else if (wv_mods_take(m, "red")) {
    in->mode = WV_BAR_RED;
    static const char *const r[] = {"popc", "and", "or", NULL};
    int k = take_one(m, r);
    if (k < 0 || m->nt != 1) return unsupported(d, pi);
    in->boolop = (uint8_t)(k == 0 ? WV_BOOL_NONE : k == 1 ? WV_BOOL_AND : WV_BOOL_OR);
    in->type = (uint8_t)m->t[0];
    if (nops(d, pi, 3, 4)) return -1;
    if (k == 0) in->d[0] = wv_ddst(d, &pi->ops[0]);
    else { int32_t p = wv_dpred(d, &pi->ops[0], NULL); if (p < 0) return -1; in->d[0] = (uint32_t)p; }
    first = 1;
    int32_t c = wv_dpred(d, &pi->ops[pi->nops - 1], &in->neg_c);
    if (c < 0) return -1;
    in->c = (uint32_t)c;
  } else if (in->op == WV_OP_BAR && pi->nmods == 0) {
    in->mode = WV_BAR_SYNC; /* plain `bar 0` */
  } else {
    return unsupported(d, pi);
  }
  uint32_t nmax = first + 2 + (in->mode == WV_BAR_RED ? 1 : 0);
  if (in->mode != WV_BAR_RED && nops(d, pi, in->mode == WV_BAR_ARRIVE ? 2 : 1, nmax)) return -1;
  in->a = wv_dsrc(d, &pi->ops[first], WV_T_U32);
  uint32_t nvals = pi->nops - first - (in->mode == WV_BAR_RED ? 1 : 0);
  if (nvals >= 2) in->b = wv_dsrc(d, &pi->ops[first + 1], WV_T_U32);
  return d->failed ? -1 : 0;
}

/* ---------------- warp collectives ---------------- */

static int need_sync(wv_dec *d, const ptx_insn *pi, wv_mods *m) {
  if (wv_mods_take(m, "sync")) return 0;
  char b[160];
  return wv_derr(d, pi->loc, "'%s' without .sync is not supported on sm_70 and later", fullname(pi, b, sizeof b));
}

static int dec_shfl(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  static const char *const modes[] = {"idx", "up", "down", "bfly", NULL};
  if (need_sync(d, pi, m)) return -1;
  int k = take_one(m, modes);
  if (k < 0 || need_type(d, pi, m, 1) || wv_type_size(m->t[0]) != 4) return k < 0 ? unsupported(d, pi) : -1;
  if (nops(d, pi, 5, 5)) return -1;
  in->mode = (uint8_t)k; /* idx 0, up 1, down 2, bfly 3 */
  in->ctl = WV_CTL_COLL;
  in->type = (uint8_t)m->t[0];
  in->d[0] = pi->ops[0].kind == PTX_OPND_SINK ? WV_NOSLOT : wv_ddst(d, &pi->ops[0]);
  if (pair_pred(d, &pi->ops[0], in)) return -1;
  in->a = wv_dsrc(d, &pi->ops[1], WV_T_B32);
  in->b = wv_dsrc(d, &pi->ops[2], WV_T_B32);
  in->c = wv_dsrc(d, &pi->ops[3], WV_T_B32);
  in->e = wv_dsrc(d, &pi->ops[4], WV_T_B32);
  in->fn = wv_h_coll(in);
  return d->failed ? -1 : 0;
}

static int dec_vote(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  static const char *const modes[] = {"all", "any", "uni", "ballot", NULL};
  if (need_sync(d, pi, m)) return -1;
  int k = take_one(m, modes);
  if (k < 0 || need_type(d, pi, m, 1) || nops(d, pi, 3, 3)) return k < 0 ? unsupported(d, pi) : -1;
  in->mode = (uint8_t)k;
  in->ctl = WV_CTL_COLL;
  if (k == WV_VOTE_BALLOT) {
    if (m->t[0] != WV_T_B32) return unsupported(d, pi);
    in->d[0] = wv_ddst(d, &pi->ops[0]);
  } else {
    if (m->t[0] != WV_T_PRED) return unsupported(d, pi);
    int32_t p = wv_dpred(d, &pi->ops[0], NULL);
    if (p < 0) return -1;
    in->d[0] = (uint32_t)p;
  }
  int32_t a = wv_dpred(d, &pi->ops[1], &in->neg_b);
  if (a < 0) return -1;
  in->a = (uint32_t)a;
  in->b = wv_dsrc(d, &pi->ops[2], WV_T_B32);
  in->fn = wv_h_coll(in);
  return d->failed ? -1 : 0;
}

static int dec_activemask(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  if (need_type(d, pi, m, 1) || nops(d, pi, 1, 1)) return -1;
  in->d[0] = wv_ddst(d, &pi->ops[0]);
  in->fn = wv_h_activemask;
  return d->failed ? -1 : 0;
}

static int dec_match(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  static const char *const modes[] = {"any", "all", NULL};
  if (need_sync(d, pi, m)) return -1;
  int k = take_one(m, modes);
  if (k < 0 || need_type(d, pi, m, 1) || nops(d, pi, 3, 3)) return k < 0 ? unsupported(d, pi) : -1;
  if (m->t[0] != WV_T_B32 && m->t[0] != WV_T_B64) return unsupported(d, pi);
  in->mode = (uint8_t)k;
  in->type = (uint8_t)m->t[0];
  in->ctl = WV_CTL_COLL;
  in->d[0] = pi->ops[0].kind == PTX_OPND_SINK ? WV_NOSLOT : wv_ddst(d, &pi->ops[0]);
  if (pair_pred(d, &pi->ops[0], in)) return -1;
  in->a = wv_dsrc(d, &pi->ops[1], m->t[0]);
  in->b = wv_dsrc(d, &pi->ops[2], WV_T_B32);
  return d->failed ? -1 : 0;
}

static int dec_redux(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  static const char *const ops[] = {"add", "min", "max", "and", "or", "xor", NULL};
  if (need_sync(d, pi, m)) return -1;
  int k = take_one(m, ops);
  if (k < 0 || need_type(d, pi, m, 1) || nops(d, pi, 3, 3)) return k < 0 ? unsupported(d, pi) : -1;
  wv_type t = m->t[0];
  if (k <= WV_REDUX_MAX ? (t != WV_T_U32 && t != WV_T_S32) : t != WV_T_B32) return unsupported(d, pi);
  in->mode = (uint8_t)k;
  in->type = (uint8_t)t;
  in->ctl = WV_CTL_COLL;
  in->d[0] = wv_ddst(d, &pi->ops[0]);
  in->a = wv_dsrc(d, &pi->ops[1], t);
  in->b = wv_dsrc(d, &pi->ops[2], WV_T_B32);
  in->fn = wv_h_coll(in);
  return d->failed ? -1 : 0;
}

/* elect.sync d|p, membermask (sm_90): d = lane of the leader, p true on it. */
static int dec_elect(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  if (need_sync(d, pi, m) || nops(d, pi, 2, 2)) return -1;
  in->ctl = WV_CTL_COLL;
  in->d[0] = pi->ops[0].kind == PTX_OPND_SINK ? WV_NOSLOT : wv_ddst(d, &pi->ops[0]);
  if (pair_pred(d, &pi->ops[0], in)) return -1;
  in->b = wv_dsrc(d, &pi->ops[1], WV_T_B32);
  return d->failed ? -1 : 0;
}

/* ---------------- entry ---------------- */

/* mma, wmma, ldmatrix, stmatrix, movmatrix read their own modifiers (decode_mma.c) */
static int dec_matrix(wv_dec *d, const ptx_insn *pi, wv_insn *in, wv_mods *m) {
  (void)m;
  return wv_dec_matrix(d, pi, in);
}

static const family_fn families[WV_OP_COUNT] = {
#define OP(id, mnem, dec, cls, syn) [WV_OP_##id] = dec_##dec,
#include "ops.def"
#undef OP
};

static int space_of(const char *w) {
  if (!strcmp(w, "global")) return WV_SPACE_GLOBAL;
  if (!strcmp(w, "shared") || !strcmp(w, "shared::cta")) return WV_SPACE_SHARED;
  if (!strcmp(w, "shared::cluster")) return WV_SPACE_CLUSTER;
  if (!strcmp(w, "local")) return WV_SPACE_LOCAL;
  if (!strcmp(w, "const")) return WV_SPACE_CONST;
  if (!strcmp(w, "param")) return WV_SPACE_FPARAM; /* refined by the address operand */
  if (!strcmp(w, "param::entry")) return WV_SPACE_KPARAM;
  if (!strcmp(w, "param::func")) return WV_SPACE_FPARAM;
  return -1;
}

/* PTX ISA 9.0 mnemonics that ops.def does not implement (yet): valid PTX, so a kernel using one
 * is refused at launch; any other mnemonic is a load error. */
static const char *const known_unimplemented[] = {
  "tex", "tld4", "txq",
  "suld", "sust", "sured", "suq", "istypep", "multimem",
  "alloca", "stacksave", "stackrestore", "brx",
  "applypriority", "discard", "createpolicy", "clusterlaunchcontrol", "tcgen05", "vadd", "vsub", "vmad",
  "vmin", "vmax", "vshl", "vshr", "vset", "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
  "vadd4", "vsub4", "vavrg4", "vmin4", "vmax4", "vset4", "vabsdiff", "ldu", NULL};

/* PTX ISA modifiers that no family here consumes yet (valid PTX: the launch is refused). */
static int valid_modifier(const char *w) {
  static const char *const words[] = {
    "noftz", "relu", "satfinite", "xorsign", "abs", "oob", "async", "unified", "mmio", "expect_tx", "complete_tx",
    "arrive", "wait", "test_wait", "try_wait", "parity", "init", "inval", "pending_count", "bulk", "tensor",
    "multicast", "cluster", "proxy", "alias", "sem", "collector", "elect", "noComplete", "f16", "f16x2", "bf16", "bf16x2", "tf32",
    "e4m3x2", "e5m2x2", "e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2", "b128", "v8", "lo", "hi", "wide", "cc", "full",
    "approx", "shiftamt", "uni", "to", "sync", "aligned", "red", "popc", "any", "all", "ballot", "idx", "up", "down",
    "bfly", NULL};
  if (strstr(w, "::")) return 1; /* .shared::cluster, .L2::cache_hint, .level::eviction_priority ... */
  for (int k = 0; words[k]; k++)
    if (!strcmp(w, words[k])) return 1;
  return 0;
}

int wv_decode_insn(wv_dec *d, const ptx_insn *pi, wv_insn *in) {
  int op = -1;
  for (int i = 0; i < WV_OP_COUNT; i++)
    if (!strcmp(pi->opcode, wv_ops[i].mnemonic)) { op = i; break; }
  if (op < 0) {
    for (int k = 0; known_unimplemented[k]; k++)
      if (!strcmp(pi->opcode, known_unimplemented[k])) return unsupported(d, pi);
    return wv_derr(d, pi->loc, "unknown instruction '%s'", pi->opcode);
  }
  in->op = (uint16_t)op;
  if (families[op] == dec_matrix) return dec_matrix(d, pi, in, NULL) ? -1 : 0;
  wv_mods m;
  memset(&m, 0, sizeof m);
  m.space = -1;
  /* PTX types warpvm has no type for: the SIMD halves of add/sub/min/max (sm_90), the scalar 8/6/4-bit floats */
  static const char *const other_types[] = {"u16x2", "s16x2", "e4m3", "e5m2", "e2m1", "e2m3", "e3m2", "ue8m0", "s2f6x2", NULL};
  for (uint32_t i = 0; i < pi->nmods; i++)
    for (int k = 0; other_types[k]; k++)
      if (!strcmp(pi->mods[i], other_types[k])) return unsupported(d, pi);
  for (uint32_t i = 0; i < pi->nmods; i++) {
    const char *w = pi->mods[i];
    wv_type t = wv_type_parse(w);
    int sp, k;
    if (t != WV_T_NONE) {
      if (m.nt == 4) return unsupported(d, pi);
      m.t[m.nt++] = t;
    } else if (!strcmp(w, "ftz")) m.ftz = 1;
    else if (!strcmp(w, "sat")) m.sat = 1;
    else if (!strcmp(w, "v2")) m.vec = 2;
    else if (!strcmp(w, "v4")) m.vec = 4;
    else if (!strcmp(w, "v8")) m.vec = 8;
    else if ((sp = space_of(w)) >= 0 && op != WV_OP_BAR && op != WV_OP_BARRIER) m.space = sp;
    else {
      for (k = 1; rnd_names[k] && strcmp(w, rnd_names[k]); k++) {}
      if (rnd_names[k] && op != WV_OP_SETP && op != WV_OP_SET) { m.rnd = k; continue; }
      if (m.nw == 24) return unsupported(d, pi);
      m.w[m.nw++] = w;
    }
  }
  /* a generic .param access is decided by its address; keep the placeholder for the decoder */
  if (families[op](d, pi, in, &m)) return -1;
  if (in->op == WV_OP_BRA && !d->failed) {
    if (wv_dgrow((void **)&d->fix, &d->capfix, d->nfix + 1, sizeof *d->fix)) return wv_derr(d, pi->loc, "out of memory");
    d->fix[d->nfix].insn = d->ncode;
    d->fix[d->nfix].label = pi->ops[0].name;
    d->fix[d->nfix].loc = pi->ops[0].loc;
    d->nfix++;
  }
  for (int i = 0; i < m.nw; i++)
    if (!(m.used >> i & 1)) {
      char b[160];
      /* a PTX modifier warpvm does not implement refuses the launch; a word PTX does not have is an error */
      if (valid_modifier(m.w[i])) return wv_derr(d, pi->loc, "unsupported modifier '.%s' in '%s'", m.w[i], fullname(pi, b, sizeof b));
      return wv_derr(d, pi->loc, "unknown modifier '.%s' in '%s'", m.w[i], fullname(pi, b, sizeof b));
    }
  if (in->ctl == WV_CTL_NONE && !in->fn) return unsupported(d, pi);
  return 0;
}
