/*
 * h_float.c — floating-point instruction handlers for .f32 and .f64: add sub mul fma/mad div
 * (IEEE with .rn/.rz/.rm/.rp), min/max (.NaN), abs neg copysign, rcp sqrt, testp (PTX ISA
 * §9.7.3). Each lane is one call into fpmath.h, which owns the bit-exact semantics (canonical NaN,
 * .ftz, .sat). The .approx instructions and div.full go to h_sfu.c. Also the forms FMA contraction
 * (src/ir/contract.c) makes: fma with negated product or addend, and a mul keeping copies of its sources.
 */
#include "exec/fpmath.h"
#include "exec/handlers.h"

static inline wv_fp_rnd rnd_of(const wv_insn *in) {
  switch (in->rnd) {
  case WV_RND_RZ: case WV_RND_RZI: return WV_FP_RZ;
  case WV_RND_RM: case WV_RND_RMI: return WV_FP_RM;
  case WV_RND_RP: case WV_RND_RPI: return WV_FP_RP;
  default: return WV_FP_RN;
  }
}
static inline unsigned flags_of(const wv_insn *in) {
  return (in->ftz ? WV_FP_FTZ : 0) | (in->sat ? WV_FP_SAT : 0) | ((in->mode & WV_FM_NAN) ? WV_FP_NANPROP : 0);
}

#define HEAD2                                                                            \
  uint64_t *D = WV_R(x, in->d[0]);                                                       \
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);                               \
  wv_fp_rnd r = rnd_of(in);                                                              \
  unsigned f = flags_of(in);                                                             \
  (void)r; (void)f

static int h_f32_bin(wv_exec *x, const wv_insn *in, uint32_t m) {
  HEAD2;
  switch (in->op) {
  case WV_OP_ADD: WV_FOR_LANES(m, l, { D[l] = wv_fp_add_f32((uint32_t)A[l], (uint32_t)B[l], r, f); }); break;
  case WV_OP_SUB: WV_FOR_LANES(m, l, { D[l] = wv_fp_sub_f32((uint32_t)A[l], (uint32_t)B[l], r, f); }); break;
  case WV_OP_MUL: WV_FOR_LANES(m, l, { D[l] = wv_fp_mul_f32((uint32_t)A[l], (uint32_t)B[l], r, f); }); break;
  case WV_OP_DIV: WV_FOR_LANES(m, l, { D[l] = wv_fp_div_f32((uint32_t)A[l], (uint32_t)B[l], r, f); }); break;
  case WV_OP_MIN: WV_FOR_LANES(m, l, { D[l] = wv_fp_min_f32((uint32_t)A[l], (uint32_t)B[l], f); }); break;
  case WV_OP_MAX: WV_FOR_LANES(m, l, { D[l] = wv_fp_max_f32((uint32_t)A[l], (uint32_t)B[l], f); }); break;
  case WV_OP_COPYSIGN: WV_FOR_LANES(m, l, { D[l] = wv_fp_copysign_f32((uint32_t)A[l], (uint32_t)B[l]); }); break;
  default: return 1;
  }
  return 0;
}

static int h_f64_bin(wv_exec *x, const wv_insn *in, uint32_t m) {
  HEAD2;
  switch (in->op) {
  case WV_OP_ADD: WV_FOR_LANES(m, l, { D[l] = wv_fp_add_f64(A[l], B[l], r); }); break;
  case WV_OP_SUB: WV_FOR_LANES(m, l, { D[l] = wv_fp_sub_f64(A[l], B[l], r); }); break;
  case WV_OP_MUL: WV_FOR_LANES(m, l, { D[l] = wv_fp_mul_f64(A[l], B[l], r); }); break;
  case WV_OP_DIV: WV_FOR_LANES(m, l, { D[l] = wv_fp_div_f64(A[l], B[l], r); }); break;
  case WV_OP_MIN: WV_FOR_LANES(m, l, { D[l] = wv_fp_min_f64(A[l], B[l]); }); break;
  case WV_OP_MAX: WV_FOR_LANES(m, l, { D[l] = wv_fp_max_f64(A[l], B[l]); }); break;
  case WV_OP_COPYSIGN: WV_FOR_LANES(m, l, { D[l] = wv_fp_copysign_f64(A[l], B[l]); }); break;
  default: return 1;
  }
  return 0;
}

static int h_f32_fma(wv_exec *x, const wv_insn *in, uint32_t m) {
  HEAD2;
  const uint64_t *C = WV_R(x, in->c);
  WV_FOR_LANES(m, l, { D[l] = wv_fp_fma_f32((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l], r, f); });
  return 0;
}
static int h_f64_fma(wv_exec *x, const wv_insn *in, uint32_t m) {
  HEAD2;
  const uint64_t *C = WV_R(x, in->c);
  WV_FOR_LANES(m, l, { D[l] = wv_fp_fma_f64(A[l], B[l], C[l], r); });
  return 0;
}

/* Round-to-nearest handlers, one per operation, type and .ftz, picked at decode time. Two passes over the
 * lanes: fpmath.h's host operation (wv_fp__rn_OP_*) for all of them, in one loop the compiler vectorises,
 * then the full fpmath.h function (the exact slow path) for the lanes it leaves. r keeps the results
 * until both passes are done: d may be a source. */
#define GEN_RN(name, T, nsrc, rn_try, full)                                              \
  static int h_##name(wv_exec *x, const wv_insn *in, uint32_t m) {                       \
    uint64_t *D = WV_R(x, in->d[0]), r[WV_WARP];                                         \
    const uint64_t *A = WV_R(x, in->a), *B = nsrc > 1 ? WV_R(x, in->b) : A, *C = nsrc > 2 ? WV_R(x, in->c) : A; \
    uint32_t bad[WV_WARP], slow = 0; /* a lane's bit when rn_try leaves it (a bit array vectorises, |= does not) */ \
    WV_FOR_LANES(m, l, {                                                                 \
      T a = (T)A[l], b = (T)B[l], c = (T)C[l], v;                                        \
      bad[l] = (uint32_t)!(rn_try) << l;                                                 \
      r[l] = v;                                                                          \
    });                                                                                  \
    WV_FOR_LANES(m, l, { slow |= bad[l]; });                                             \
    WV_FOR_LANES(slow, l, { T a = (T)A[l], b = (T)B[l], c = (T)C[l]; (void)b; (void)c; r[l] = (full); }); \
    WV_FOR_LANES(m, l, { D[l] = r[l]; });                                                \
    return 0;                                                                            \
  }
/* Without .ftz the host decides every f32 lane but sqrt's negative ones: one pass, straight into d. */
#define GEN_RN1P(name, nsrc, full)                                                       \
  static int h_##name(wv_exec *x, const wv_insn *in, uint32_t m) {                       \
    uint64_t *D = WV_R(x, in->d[0]);                                                     \
    const uint64_t *A = WV_R(x, in->a), *B = nsrc > 1 ? WV_R(x, in->b) : A, *C = nsrc > 2 ? WV_R(x, in->c) : A; \
    WV_FOR_LANES(m, l, { uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l]; (void)b; (void)c; D[l] = (full); }); \
    return 0;                                                                            \
  }
GEN_RN1P(f32_add_rn, 2, wv_fp_add_f32(a, b, WV_FP_RN, 0))
GEN_RN1P(f32_sub_rn, 2, wv_fp_sub_f32(a, b, WV_FP_RN, 0))
GEN_RN1P(f32_mul_rn, 2, wv_fp_mul_f32(a, b, WV_FP_RN, 0))
GEN_RN1P(f32_div_rn, 2, wv_fp_div_f32(a, b, WV_FP_RN, 0))
GEN_RN1P(f32_fma_rn, 3, wv_fp_fma_f32(a, b, c, WV_FP_RN, 0))
GEN_RN1P(f32_rcp_rn, 1, wv_fp_rcp_f32(a, WV_FP_RN, 0))
GEN_RN(f32_sqrt_rn, uint32_t, 1, wv_fp__rn_sqrt_f32(a, b, c, 0, &v), wv_fp_sqrt_f32(a, WV_FP_RN, 0))
#define FTZ WV_FP_FTZ
GEN_RN(f32_add_rn_ftz, uint32_t, 2, wv_fp__rn_add_f32(a, b, c, 1, &v), wv_fp_add_f32(a, b, WV_FP_RN, FTZ))
GEN_RN(f32_sub_rn_ftz, uint32_t, 2, wv_fp__rn_sub_f32(a, b, c, 1, &v), wv_fp_sub_f32(a, b, WV_FP_RN, FTZ))
GEN_RN(f32_mul_rn_ftz, uint32_t, 2, wv_fp__rn_mul_f32(a, b, c, 1, &v), wv_fp_mul_f32(a, b, WV_FP_RN, FTZ))
GEN_RN(f32_div_rn_ftz, uint32_t, 2, wv_fp__rn_div_f32(a, b, c, 1, &v), wv_fp_div_f32(a, b, WV_FP_RN, FTZ))
GEN_RN(f32_fma_rn_ftz, uint32_t, 3, wv_fp__rn_fma_f32(a, b, c, 1, &v), wv_fp_fma_f32(a, b, c, WV_FP_RN, FTZ))
GEN_RN(f32_sqrt_rn_ftz, uint32_t, 1, wv_fp__rn_sqrt_f32(a, b, c, 1, &v), wv_fp_sqrt_f32(a, WV_FP_RN, FTZ))
GEN_RN(f32_rcp_rn_ftz, uint32_t, 1, wv_fp__rn_rcp_f32(a, b, c, 1, &v), wv_fp_rcp_f32(a, WV_FP_RN, FTZ))
#undef FTZ
/* min/max without flags (the rounding mode does not matter to them) */
GEN_RN1P(f32_min, 2, wv_fp_min_f32(a, b, 0))
GEN_RN1P(f32_max, 2, wv_fp_max_f32(a, b, 0))
static int h_f64_min(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  WV_FOR_LANES(m, l, { D[l] = wv_fp_min_f64(A[l], B[l]); });
  return 0;
}
static int h_f64_max(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  WV_FOR_LANES(m, l, { D[l] = wv_fp_max_f64(A[l], B[l]); });
  return 0;
}
GEN_RN(f64_add_rn, uint64_t, 2, wv_fp__rn_add_f64(a, b, c, &v), wv_fp_add_f64(a, b, WV_FP_RN))
GEN_RN(f64_sub_rn, uint64_t, 2, wv_fp__rn_sub_f64(a, b, c, &v), wv_fp_sub_f64(a, b, WV_FP_RN))
GEN_RN(f64_mul_rn, uint64_t, 2, wv_fp__rn_mul_f64(a, b, c, &v), wv_fp_mul_f64(a, b, WV_FP_RN))
GEN_RN(f64_div_rn, uint64_t, 2, wv_fp__rn_div_f64(a, b, c, &v), wv_fp_div_f64(a, b, WV_FP_RN))
GEN_RN(f64_fma_rn, uint64_t, 3, wv_fp__rn_fma_f64(a, b, c, &v), wv_fp_fma_f64(a, b, c, WV_FP_RN))
GEN_RN(f64_sqrt_rn, uint64_t, 1, wv_fp__rn_sqrt_f64(a, b, c, &v), wv_fp_sqrt_f64(a, WV_FP_RN))
GEN_RN(f64_rcp_rn, uint64_t, 1, wv_fp__rn_rcp_f64(a, b, c, &v), wv_fp_rcp_f64(a, WV_FP_RN))

/* The handler of op specialised for round to nearest with no flag or .ftz alone (min/max: no flag), or NULL
 * where only the generic handlers do. */
static wv_handler rn_handler(int op, int f64, unsigned flags) {
  if (f64) flags = 0; /* PTX has no f64 flags */
  if (flags & ~(unsigned)WV_FP_FTZ) return NULL;
  int ftz = flags != 0;
  switch (op) {
  case WV_OP_ADD: return f64 ? h_f64_add_rn : ftz ? h_f32_add_rn_ftz : h_f32_add_rn;
  case WV_OP_SUB: return f64 ? h_f64_sub_rn : ftz ? h_f32_sub_rn_ftz : h_f32_sub_rn;
  case WV_OP_MUL: return f64 ? h_f64_mul_rn : ftz ? h_f32_mul_rn_ftz : h_f32_mul_rn;
  case WV_OP_DIV: return f64 ? h_f64_div_rn : ftz ? h_f32_div_rn_ftz : h_f32_div_rn;
  case WV_OP_FMA: case WV_OP_MAD: return f64 ? h_f64_fma_rn : ftz ? h_f32_fma_rn_ftz : h_f32_fma_rn;
  case WV_OP_SQRT: return f64 ? h_f64_sqrt_rn : ftz ? h_f32_sqrt_rn_ftz : h_f32_sqrt_rn;
  case WV_OP_RCP: return f64 ? h_f64_rcp_rn : ftz ? h_f32_rcp_rn_ftz : h_f32_rcp_rn;
  case WV_OP_MIN: return f64 ? h_f64_min : ftz ? NULL : h_f32_min;
  case WV_OP_MAX: return f64 ? h_f64_max : ftz ? NULL : h_f32_max;
  default: return NULL;
  }
}

/* An fma contracted from mul + add/sub (contract.c): -(a*b) and -c as FFMA/DFMA's operand negation gives
 * them. An f64 NaN keeps its sign, as neg and sub leave it (fpmath.h). */
static inline uint64_t neg64(uint64_t v, int on) {
  return on && !wv_fp_isnan64(v) ? v ^ 0x8000000000000000ull : v;
}
static int h_f32_fma_neg(wv_exec *x, const wv_insn *in, uint32_t m) {
  HEAD2;
  const uint64_t *C = WV_R(x, in->c);
  uint32_t sp = in->mode & WV_FM_NEGP ? 0x80000000u : 0, sc = in->mode & WV_FM_NEGC ? 0x80000000u : 0;
  WV_FOR_LANES(m, l, { D[l] = wv_fp_fma_f32((uint32_t)A[l] ^ sp, (uint32_t)B[l], (uint32_t)C[l] ^ sc, r, f); });
  return 0;
}
static int h_f64_fma_neg(wv_exec *x, const wv_insn *in, uint32_t m) {
  HEAD2;
  const uint64_t *C = WV_R(x, in->c);
  int np = (in->mode & WV_FM_NEGP) != 0, nc = (in->mode & WV_FM_NEGC) != 0;
  WV_FOR_LANES(m, l, { D[l] = wv_fp_fma_f64(neg64(A[l], np), B[l], neg64(C[l], nc), r); });
  return 0;
}

/* A product whose sources the PTX overwrites before the adds it was contracted into keeps copies
 * (WV_FM_SAVE): in fresh registers, so before the product itself is written. */
void wv_h_save_sources(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint32_t src[2] = {in->a, in->b};
  for (int k = 0; k < 2; k++) {
    if (in->d[1 + k] == WV_NOSLOT) continue;
    uint64_t *S = WV_R(x, in->d[1 + k]);
    const uint64_t *A = WV_R(x, src[k]);
    WV_FOR_LANES(m, l, { S[l] = A[l]; });
  }
}
static int h_mul_save(wv_exec *x, const wv_insn *in, uint32_t m) {
  wv_h_save_sources(x, in, m);
  return in->type == WV_T_F64 ? h_f64_bin(x, in, m) : h_f32_bin(x, in, m);
}

static int h_f32_un(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  wv_fp_rnd r = rnd_of(in);
  unsigned f = flags_of(in);
#define L1(expr) WV_FOR_LANES(m, l, { uint32_t a = (uint32_t)A[l]; D[l] = (expr); })
  switch (in->op) {
  case WV_OP_ABS: L1(wv_fp_abs_f32(a, f)); break;
  case WV_OP_NEG: L1(wv_fp_neg_f32(a, f)); break;
  case WV_OP_SQRT: L1(wv_fp_sqrt_f32(a, r, f)); break;
  case WV_OP_RCP: L1(wv_fp_rcp_f32(a, r, f)); break;
  default: return 1;
  }
#undef L1
  return 0;
}

static int h_f64_un(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  wv_fp_rnd r = rnd_of(in);
#define L1(expr) WV_FOR_LANES(m, l, { uint64_t a = A[l]; D[l] = (expr); })
  switch (in->op) {
  case WV_OP_ABS: L1(wv_fp_abs_f64(a)); break;
  case WV_OP_NEG: L1(wv_fp_neg_f64(a)); break;
  case WV_OP_SQRT: L1(wv_fp_sqrt_f64(a, r)); break;
  case WV_OP_RCP: L1(wv_fp_rcp_f64(a, r)); break;
  default: return 1;
  }
#undef L1
  return 0;
}

static int h_testp(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = WV_R(x, in->a);
  uint32_t v = 0;
  if (in->type == WV_T_F64) WV_FOR_LANES(m, l, { if (wv_fp_testp_f64(A[l], (wv_fp_testp)in->mode)) v |= 1u << l; });
  else WV_FOR_LANES(m, l, { if (wv_fp_testp_f32((uint32_t)A[l], (wv_fp_testp)in->mode)) v |= 1u << l; });
  x->preds[in->d[0]] = (x->preds[in->d[0]] & ~m) | v;
  return 0;
}

wv_handler wv_h_float(int op, wv_type t, const wv_insn *in) {
  int f64 = t == WV_T_F64;
  if (op == WV_OP_TESTP) return h_testp; /* its mode is the test, not .approx */
  if ((in->mode & WV_FM_APPROX) || (op == WV_OP_DIV && (in->mode & WV_FM_FULL))) return wv_h_sfu(op, t, in);
  if (t != WV_T_F32 && !f64) return NULL;
  if (op == WV_OP_MUL && (in->mode & WV_FM_SAVE)) return h_mul_save;
  if ((op == WV_OP_FMA || op == WV_OP_MAD) && (in->mode & (WV_FM_NEGP | WV_FM_NEGC))) return f64 ? h_f64_fma_neg : h_f32_fma_neg;
  wv_handler rn = rnd_of(in) == WV_FP_RN && !in->mode ? rn_handler(op, f64, flags_of(in)) : NULL;
  if (rn) return rn;
  switch (op) {
  case WV_OP_ADD: case WV_OP_SUB: case WV_OP_MUL: case WV_OP_DIV: case WV_OP_MIN: case WV_OP_MAX:
  case WV_OP_COPYSIGN:
    return f64 ? h_f64_bin : h_f32_bin;
  case WV_OP_FMA: case WV_OP_MAD: return f64 ? h_f64_fma : h_f32_fma;
  case WV_OP_ABS: case WV_OP_NEG: case WV_OP_SQRT: case WV_OP_RCP:
    return f64 ? h_f64_un : h_f32_un;
  default: return NULL;
  }
}
