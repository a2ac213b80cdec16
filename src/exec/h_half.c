/*
 * h_half.c — handlers of the half-precision instructions on .f16 .bf16 .f16x2 .bf16x2 (PTX ISA
 * "Half Precision Floating-Point Instructions"): add sub mul fma (.rn, .ftz, .sat, .relu), neg abs,
 * min max (.NaN, .xorsign.abs), setp (the x2 forms write p from the low halves and q from the high
 * halves), set (1.0 or all ones per half), and cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32. One lane's half is one call into
 * fpmath.h; an x2 form applies it to both halves. in->imm holds the fpmath flags (WV_FP_*).
 */
#include "exec/fpmath.h"
#include "exec/handlers.h"

static inline int is_bf(int t) { return t == WV_T_BF16 || t == WV_T_BF16X2; }
static inline int is_x2(int t) { return t == WV_T_F16X2 || t == WV_T_BF16X2; }

static uint32_t half_op(int op, int bf, uint32_t a, uint32_t b, uint32_t c, unsigned f) {
  switch (op) {
  case WV_OP_ADD: return wv_fp_half_arith(WV_FP__ADD, bf, a, b, 0, f);
  case WV_OP_SUB: return wv_fp_half_arith(WV_FP__SUB, bf, a, b, 0, f);
  case WV_OP_MUL: return wv_fp_half_arith(WV_FP__MUL, bf, a, b, 0, f);
  case WV_OP_FMA: case WV_OP_MAD:
    /* .oob (sm_90): a tensor load's out-of-bounds fill 0x7ff7 (sign ignored) as a or b makes the result +0,
     * whatever c is; as c it is an ordinary NaN (measured on an H200: tests/kernels halfoob.*) */
    if ((f & WV_FP_OOB) && (((a & 0x7fff) == 0x7ff7) || ((b & 0x7fff) == 0x7ff7))) return 0;
    return wv_fp_half_arith(WV_FP__FMA, bf, a, b, c, f & ~(unsigned)WV_FP_OOB);
  case WV_OP_MIN: return wv_fp_half_minmax(a, b, bf, f, 0);
  case WV_OP_MAX: return wv_fp_half_minmax(a, b, bf, f, 1);
  case WV_OP_NEG: return wv_fp_half_sign(a, bf, f, 0);
  default: return wv_fp_half_sign(a, bf, f, 1); /* ABS */
  }
}

static int h_half(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  int nsrc = in->op == WV_OP_NEG || in->op == WV_OP_ABS ? 1 : in->op == WV_OP_FMA || in->op == WV_OP_MAD ? 3 : 2;
  const uint64_t *A = WV_R(x, in->a), *B = nsrc > 1 ? WV_R(x, in->b) : A, *C = nsrc > 2 ? WV_R(x, in->c) : A;
  int bf = is_bf(in->type), op = in->op;
  unsigned f = (unsigned)in->imm;
  if (is_x2(in->type))
    WV_FOR_LANES(m, l, {
      uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l];
      uint32_t lo = half_op(op, bf, a, b, c, f), hi = half_op(op, bf, a >> 16, b >> 16, c >> 16, f);
      D[l] = hi << 16 | lo;
    });
  else
    WV_FOR_LANES(m, l, { D[l] = half_op(op, bf, (uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l], f); });
  return 0;
}

/* setp.CMP{.BOOL}{.ftz}.{f16,bf16}{x2}: t = a CMP b per half; p = BOOL(t, c) (x2: of the low halves),
 * q = BOOL(!t, c) for a scalar, BOOL(t of the high halves, c) for a pair. */
static int h_half_setp(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  int bf = is_bf(in->type), x2 = is_x2(in->type);
  wv_fp_cmpop op = (wv_fp_cmpop)(in->cmp >= WV_CMP_EQU ? in->cmp - (WV_CMP_EQU - WV_FP_EQU) : in->cmp);
  uint32_t t = 0, u = 0;
  WV_FOR_LANES(m, l, {
    t |= (uint32_t)wv_fp_half_cmp((uint32_t)A[l], (uint32_t)B[l], bf, in->ftz, op) << l;
    if (x2) u |= (uint32_t)wv_fp_half_cmp((uint32_t)A[l] >> 16, (uint32_t)B[l] >> 16, bf, in->ftz, op) << l;
  });
  return wv_setp_write(x, in, m, t, x2 ? u : ~t);
}

/* What set.CMP.dtype writes for true in one half (or the whole of a scalar dtype): 1.0 as .f16 or .bf16, all
 * ones for the integer types, 1.0f for .f32 (PTX ISA "Half Precision Comparison Instructions: set"). */
static uint32_t set_true(int dtype, int x2) {
  switch (dtype) {
  case WV_T_F16: case WV_T_F16X2: return 0x3c00;
  case WV_T_BF16: case WV_T_BF16X2: return 0x3f80;
  case WV_T_F32: return 0x3f800000u;
  default: return x2 || wv_type_size((wv_type)dtype) == 2 ? 0xffffu : 0xffffffffu;
  }
}

/* set.CMP{.BOOL}{.ftz}.dtype.{f16,bf16}{x2} d, a, b{, {!}c}: per half, BOOL(a CMP b, c); the x2 forms
 * write each half of d from the same halves of a and b. */
static int h_half_set(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  uint64_t *D = WV_R(x, in->d[0]);
  int bf = is_bf(in->type), x2 = is_x2(in->type);
  wv_fp_cmpop op = (wv_fp_cmpop)(in->cmp >= WV_CMP_EQU ? in->cmp - (WV_CMP_EQU - WV_FP_EQU) : in->cmp);
  uint32_t t = 0, u = 0, one = set_true(in->type2, x2);
  WV_FOR_LANES(m, l, {
    t |= (uint32_t)wv_fp_half_cmp((uint32_t)A[l], (uint32_t)B[l], bf, in->ftz, op) << l;
    if (x2) u |= (uint32_t)wv_fp_half_cmp((uint32_t)A[l] >> 16, (uint32_t)B[l] >> 16, bf, in->ftz, op) << l;
  });
  t = wv_setp_bool(x, in, t);
  u = wv_setp_bool(x, in, u);
  WV_FOR_LANES(m, l, { D[l] = (t >> l & 1 ? one : 0) | (x2 && (u >> l & 1) ? one << 16 : 0); });
  return 0;
}

/* cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a to the high half, b to the low. */
static int h_half_pack(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  int bf = is_bf(in->type);
  unsigned f = (unsigned)in->imm;
  WV_FOR_LANES(m, l, { D[l] = wv_fp_cvt_half2_f32((uint32_t)A[l], (uint32_t)B[l], bf, f); });
  return 0;
}

wv_handler wv_h_half(int op) {
  switch (op) {
  case WV_OP_ADD: case WV_OP_SUB: case WV_OP_MUL: case WV_OP_FMA: case WV_OP_MAD:
  case WV_OP_MIN: case WV_OP_MAX: case WV_OP_NEG: case WV_OP_ABS:
    return h_half;
  case WV_OP_SETP: return h_half_setp;
  case WV_OP_SET: return h_half_set;
  case WV_OP_CVT: return h_half_pack;
  default: return NULL;
  }
}
