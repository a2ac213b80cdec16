/*
 * h_setp.c — comparisons and selects: setp (with the .and/.or/.xor combining predicate and the
 * optional complement destination p|q), set, selp, slct (PTX ISA §9.7.7). Integer comparisons
 * by signedness of the type (lo/ls/hi/hs unsigned); float comparisons ordered or unordered as
 * fpmath.h defines them; .ftz flushes f32 subnormal inputs.
 */
#include "exec/fpmath.h"
#include "exec/handlers.h"

/* The comparisons, each defined once: integer ones by their C operator on the type (unsigned types
 * compare unsigned; lo/ls/hi/hs are lt/le/gt/ge of unsigned types), float ones by fpmath.h's
 * wv_fp_cmp_f64 (ordered and unordered forms, num, nan). X(name, WV_CMP_ value, operator or wv_fp_cmpop). */
#define ICMPS(X, ...)                                                                    \
  X(__VA_ARGS__, eq, WV_CMP_EQ, ==) X(__VA_ARGS__, ne, WV_CMP_NE, !=)                    \
  X(__VA_ARGS__, lt, WV_CMP_LT, <) X(__VA_ARGS__, le, WV_CMP_LE, <=)                     \
  X(__VA_ARGS__, gt, WV_CMP_GT, >) X(__VA_ARGS__, ge, WV_CMP_GE, >=)
#define FCMPS(X, ...)                                                                    \
  X(__VA_ARGS__, eq, WV_CMP_EQ, WV_FP_EQ) X(__VA_ARGS__, ne, WV_CMP_NE, WV_FP_NE)        \
  X(__VA_ARGS__, lt, WV_CMP_LT, WV_FP_LT) X(__VA_ARGS__, le, WV_CMP_LE, WV_FP_LE)        \
  X(__VA_ARGS__, gt, WV_CMP_GT, WV_FP_GT) X(__VA_ARGS__, ge, WV_CMP_GE, WV_FP_GE)        \
  X(__VA_ARGS__, equ, WV_CMP_EQU, WV_FP_EQU) X(__VA_ARGS__, neu, WV_CMP_NEU, WV_FP_NEU)  \
  X(__VA_ARGS__, ltu, WV_CMP_LTU, WV_FP_LTU) X(__VA_ARGS__, leu, WV_CMP_LEU, WV_FP_LEU)  \
  X(__VA_ARGS__, gtu, WV_CMP_GTU, WV_FP_GTU) X(__VA_ARGS__, geu, WV_CMP_GEU, WV_FP_GEU)  \
  X(__VA_ARGS__, num, WV_CMP_NUM, WV_FP_NUM) X(__VA_ARGS__, nan, WV_CMP_NAN, WV_FP_NAN)
/* The integer types setp compares (.b16/.b32/.b64 as the unsigned ones), and the float types. */
#define ITYPES(X) X(s16, int16_t) X(s32, int32_t) X(s64, int64_t) X(u16, uint16_t) X(u32, uint32_t) X(u64, uint64_t)
#define FTYPES(X) X(f32, float, uint32_t, wv_fp_f32) X(f64, double, uint64_t, wv_fp_f64)

/* cmp_TYPE_NAME(x, in, m): the comparison for lanes m as a bit mask (f32 .ftz flushes subnormal inputs). */
#define GEN_ICMP(T, CT, name, id, OP)                                                    \
  static uint32_t cmp_##T##_##name(wv_exec *x, const wv_insn *in, uint32_t m) {          \
    const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);                             \
    uint32_t r = 0;                                                                      \
    WV_FOR_LANES(m, l, { r |= (uint32_t)((CT)A[l] OP (CT)B[l]) << l; });                 \
    return r;                                                                            \
  }
#define GEN_ITYPE(T, CT) ICMPS(GEN_ICMP, T, CT)
ITYPES(GEN_ITYPE)
#define GEN_FCMP(T, CT, UT, conv, name, id, FOP)                                         \
  static uint32_t cmp_##T##_##name(wv_exec *x, const wv_insn *in, uint32_t m) {          \
    const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);                             \
    uint32_t r = 0;                                                                      \
    if (sizeof(UT) == 4 && in->ftz)                                                      \
      WV_FOR_LANES(m, l, { r |= (uint32_t)wv_fp_cmp_f64(wv_fp_f32(wv_fp_flush32((uint32_t)A[l])),       \
                                                        wv_fp_f32(wv_fp_flush32((uint32_t)B[l])), FOP) << l; }); \
    else                                                                                 \
      WV_FOR_LANES(m, l, { r |= (uint32_t)wv_fp_cmp_f64(conv((UT)A[l]), conv((UT)B[l]), FOP) << l; }); \
    return r;                                                                            \
  }
#define GEN_FTYPE(T, CT, UT, conv) FCMPS(GEN_FCMP, T, CT, UT, conv)
FTYPES(GEN_FTYPE)

typedef uint32_t (*cmp_fn)(wv_exec *x, const wv_insn *in, uint32_t m);
enum { TC_S16, TC_S32, TC_S64, TC_U16, TC_U32, TC_U64, TC_F32, TC_F64, TC_N };
/* A table by type class and comparison of the functions PREFIX##TYPE##_##NAME (cmp_ and h_setp_); lo/ls/hi/hs
 * are lt/le/gt/ge of the unsigned types. */
#define BY_TYPE_AND_CMP(P)                                                                                 \
  {                                                                                                        \
    [TC_S16] = {ICMPS(P##ENTRY, s16, int16_t)}, [TC_S32] = {ICMPS(P##ENTRY, s32, int32_t)},                \
    [TC_S64] = {ICMPS(P##ENTRY, s64, int64_t)},                                                            \
    [TC_U16] = {ICMPS(P##ENTRY, u16, uint16_t) UNSIGNED_ALIASES(P, u16)},                                  \
    [TC_U32] = {ICMPS(P##ENTRY, u32, uint32_t) UNSIGNED_ALIASES(P, u32)},                                  \
    [TC_U64] = {ICMPS(P##ENTRY, u64, uint64_t) UNSIGNED_ALIASES(P, u64)},                                  \
    [TC_F32] = {FCMPS(P##FENTRY, f32, float, uint32_t, wv_fp_f32)},                                        \
    [TC_F64] = {FCMPS(P##FENTRY, f64, double, uint64_t, wv_fp_f64)},                                       \
  }
#define UNSIGNED_ALIASES(P, T) [WV_CMP_LO] = P##T##_lt, [WV_CMP_LS] = P##T##_le, [WV_CMP_HI] = P##T##_gt, [WV_CMP_HS] = P##T##_ge,
#define cmp_ENTRY(T, CT, name, id, OP) [id] = cmp_##T##_##name,
#define cmp_FENTRY(T, CT, UT, conv, name, id, FOP) [id] = cmp_##T##_##name,
static const cmp_fn CMP[TC_N][WV_CMP_NAN + 1] = BY_TYPE_AND_CMP(cmp_);

static int type_class(int t) {
  switch (t) {
  case WV_T_S16: return TC_S16;
  case WV_T_S32: return TC_S32;
  case WV_T_S64: return TC_S64;
  case WV_T_U16: case WV_T_B16: return TC_U16;
  case WV_T_U32: case WV_T_B32: return TC_U32;
  case WV_T_U64: case WV_T_B64: return TC_U64;
  case WV_T_F32: return TC_F32;
  case WV_T_F64: return TC_F64;
  default: return -1;
  }
}
/* The comparison of in (its type and operator), or NULL where PTX has none (lo/ls/hi/hs of a signed type,
 * ptxas: "Mismatch between instruction type and comparison qualifier"). */
static cmp_fn cmp_of(const wv_insn *in) {
  int tc = type_class(in->type);
  return tc < 0 || in->cmp > WV_CMP_NAN ? NULL : CMP[tc][in->cmp];
}

/* setp: one handler per type and comparison (h_setp_TYPE_NAME), chosen at decode time. */
#define GEN_SETP(T, CT, name, id, OP)                                                    \
  static int h_setp_##T##_##name(wv_exec *x, const wv_insn *in, uint32_t m) {            \
    uint32_t r_ = cmp_##T##_##name(x, in, m);                                            \
    return wv_setp_write(x, in, m, r_, ~r_);                                             \
  }
#define GEN_FSETP(T, CT, UT, conv, name, id, FOP) GEN_SETP(T, CT, name, id, FOP)
#define GEN_ISETPS(T, CT) ICMPS(GEN_SETP, T, CT)
#define GEN_FSETPS(T, CT, UT, conv) FCMPS(GEN_FSETP, T, CT, UT, conv)
ITYPES(GEN_ISETPS)
FTYPES(GEN_FSETPS)
#define h_setp_ENTRY(T, CT, name, id, OP) [id] = h_setp_##T##_##name,
#define h_setp_FENTRY(T, CT, UT, conv, name, id, FOP) [id] = h_setp_##T##_##name,
static const wv_handler SETP[TC_N][WV_CMP_NAN + 1] = BY_TYPE_AND_CMP(h_setp_);

/* set.CMP.dtype.stype: all ones (integer) or 1.0 (f32, f16, bf16) when true, else 0. */
static int h_set(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint32_t t = wv_setp_bool(x, in, cmp_of(in)(x, in, m));
  uint64_t *D = WV_R(x, in->d[0]);
  uint64_t one = in->type2 == WV_T_F32 ? 0x3f800000u : in->type2 == WV_T_F16 ? 0x3c00u : in->type2 == WV_T_BF16 ? 0x3f80u
               : wv_type_size((wv_type)in->type2) == 2 ? 0xffffu : 0xffffffffu;
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

wv_handler wv_h_setp(int op, wv_type t, const wv_insn *in) {
  (void)t;
  switch (op) {
  case WV_OP_SETP: {
    int tc = type_class(in->type);
    return tc < 0 || in->cmp > WV_CMP_NAN ? NULL : SETP[tc][in->cmp];
  }
  case WV_OP_SET: return cmp_of(in) ? h_set : NULL;
  case WV_OP_SELP: return h_selp;
  case WV_OP_SLCT: return h_slct;
  default: return NULL;
  }
}
