/*
 * h_setp.c — comparisons and selects: setp (with the .and/.or/.xor combining predicate and the
 * optional complement destination p|q), set, selp, slct (PTX ISA §9.7.7). Integer comparisons
 * by signedness of the type (lo/ls/hi/hs unsigned); float comparisons ordered or unordered as
 * fpmath.h defines them; .ftz flushes f32 subnormal inputs.
 */
#include "exec/fpmath.h"
#include "exec/handlers.h"

static inline int icmp_s(int64_t a, int64_t b, int op) {
  switch (op) {
  case WV_CMP_EQ: return a == b;
  case WV_CMP_NE: return a != b;
  case WV_CMP_LT: return a < b;
  case WV_CMP_LE: return a <= b;
  case WV_CMP_GT: return a > b;
  default: return a >= b;
  }
}
static inline int icmp_u(uint64_t a, uint64_t b, int op) {
  switch (op) {
  case WV_CMP_EQ: return a == b;
  case WV_CMP_NE: return a != b;
  case WV_CMP_LT: case WV_CMP_LO: return a < b;
  case WV_CMP_LE: case WV_CMP_LS: return a <= b;
  case WV_CMP_GT: case WV_CMP_HI: return a > b;
  default: return a >= b;
  }
}
static const wv_fp_cmpop fop[] = {
  [WV_CMP_EQ] = WV_FP_EQ, [WV_CMP_NE] = WV_FP_NE, [WV_CMP_LT] = WV_FP_LT, [WV_CMP_LE] = WV_FP_LE,
  [WV_CMP_GT] = WV_FP_GT, [WV_CMP_GE] = WV_FP_GE, [WV_CMP_EQU] = WV_FP_EQU, [WV_CMP_NEU] = WV_FP_NEU,
  [WV_CMP_LTU] = WV_FP_LTU, [WV_CMP_LEU] = WV_FP_LEU, [WV_CMP_GTU] = WV_FP_GTU, [WV_CMP_GEU] = WV_FP_GEU,
  [WV_CMP_NUM] = WV_FP_NUM, [WV_CMP_NAN] = WV_FP_NAN,
};

/* Evaluate the comparison for lanes m into a bit mask. */
static uint32_t compare(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  uint32_t r = 0;
  int op = in->cmp;
  switch (in->type) {
  case WV_T_S16: WV_FOR_LANES(m, l, { if (icmp_s((int16_t)A[l], (int16_t)B[l], op)) r |= 1u << l; }); break;
  case WV_T_S32: WV_FOR_LANES(m, l, { if (icmp_s((int32_t)A[l], (int32_t)B[l], op)) r |= 1u << l; }); break;
  case WV_T_S64: WV_FOR_LANES(m, l, { if (icmp_s((int64_t)A[l], (int64_t)B[l], op)) r |= 1u << l; }); break;
  case WV_T_U16: case WV_T_B16: WV_FOR_LANES(m, l, { if (icmp_u((uint16_t)A[l], (uint16_t)B[l], op)) r |= 1u << l; }); break;
  case WV_T_U32: case WV_T_B32: WV_FOR_LANES(m, l, { if (icmp_u((uint32_t)A[l], (uint32_t)B[l], op)) r |= 1u << l; }); break;
  case WV_T_U64: case WV_T_B64: WV_FOR_LANES(m, l, { if (icmp_u(A[l], B[l], op)) r |= 1u << l; }); break;
  case WV_T_F32:
    WV_FOR_LANES(m, l, {
      uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
      if (in->ftz) { a = wv_fp_flush32(a); b = wv_fp_flush32(b); }
      if (wv_fp_cmp_f32(wv_fp_f32(a), wv_fp_f32(b), fop[op])) r |= 1u << l;
    });
    break;
  case WV_T_F64:
    WV_FOR_LANES(m, l, { if (wv_fp_cmp_f64(wv_fp_f64(A[l]), wv_fp_f64(B[l]), fop[op])) r |= 1u << l; });
    break;
  default: break;
  }
  return r;
}

/* Apply `.bool c`: returns t, and the complement result in *f. */
static uint32_t combine(wv_exec *x, const wv_insn *in, uint32_t t, uint32_t *f) {
  uint32_t nt = ~t;
  if (in->boolop) {
    uint32_t c = x->preds[in->c];
    if (in->neg_c) c = ~c;
    switch (in->boolop) {
    case WV_BOOL_AND: t &= c; nt &= c; break;
    case WV_BOOL_OR: t |= c; nt |= c; break;
    default: t ^= c; nt ^= c; break;
    }
  }
  *f = nt;
  return t;
}

static int h_setp(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint32_t f, t = combine(x, in, compare(x, in, m), &f);
  uint32_t *P = x->preds;
  if (in->d[0] != WV_NOSLOT) P[in->d[0]] = (P[in->d[0]] & ~m) | (t & m);
  if (in->pd >= 0) P[in->pd] = (P[in->pd] & ~m) | (f & m);
  return 0;
}

/* set.CMP.dtype.stype: all ones (integer) or 1.0f (f32) when true, else 0. */
static int h_set(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint32_t f, t = combine(x, in, compare(x, in, m), &f);
  uint64_t *D = WV_R(x, in->d[0]);
  uint64_t one = in->type2 == WV_T_F32 ? 0x3f800000u : 0xffffffffu; /* 1.0f, or all ones for .s32/.u32 */
  WV_FOR_LANES(m, l, { D[l] = (t >> l & 1) ? one : 0; });
  return 0;
}

/* selp.type d, a, b, c: d = c ? a : b */
static int h_selp(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  uint32_t c = x->preds[in->c];
  if (in->neg_c) c = ~c;
  WV_FOR_LANES(m, l, { D[l] = (c >> l & 1) ? A[l] : B[l]; });
  return 0;
}

/* slct.dtype.s32 d, a, b, c: d = c >= 0 ? a : b; slct.dtype.f32: c >= 0.0 (ftz flushes c). */
static int h_slct(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b), *C = WV_R(x, in->c);
  if (in->type2 == WV_T_F32)
    WV_FOR_LANES(m, l, {
      uint32_t c = (uint32_t)C[l];
      if (in->ftz) c = wv_fp_flush32(c);
      D[l] = wv_fp_f32(c) >= 0.0f ? A[l] : B[l];
    });
  else
    WV_FOR_LANES(m, l, { D[l] = (int32_t)C[l] >= 0 ? A[l] : B[l]; });
  return 0;
}

wv_handler wv_h_setp(int op, wv_type t) {
  (void)t;
  switch (op) {
  case WV_OP_SETP: return h_setp;
  case WV_OP_SET: return h_set;
  case WV_OP_SELP: return h_selp;
  case WV_OP_SLCT: return h_slct;
  default: return NULL;
  }
}
