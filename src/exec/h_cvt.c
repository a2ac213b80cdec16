/*
 * h_cvt.c — cvt between every integer and float type (PTX ISA §9.7.9.21). fpmath.c's wv_fp_cvt owns
 * the semantics (rounding, saturation, NaN and .ftz rules) and h_cvt hands it each lane. The decoder
 * picks a specialised handler where the host's own conversion gives the same bits: integer→integer,
 * integer→float that is exact or rounds to nearest, f32→f64, f64→f32 to nearest, rounding to an
 * integral value or to an integer (rni/rzi/rmi/rpi). A specialised handler gives any lane it cannot
 * decide (NaN, out of range) to wv_fp_cvt, so the two never disagree.
 * The host conversions round to nearest: fpmath.h's contract is that the thread runs in that mode.
 */
#include "exec/fpmath.h"
#include "exec/handlers.h"

static int fptype(wv_type t) {
  switch (t) {
  case WV_T_U8: return WV_FP_U8;
  case WV_T_U16: return WV_FP_U16;
  case WV_T_U32: return WV_FP_U32;
  case WV_T_U64: return WV_FP_U64;
  case WV_T_S8: return WV_FP_S8;
  case WV_T_S16: return WV_FP_S16;
  case WV_T_S32: return WV_FP_S32;
  case WV_T_S64: return WV_FP_S64;
  case WV_T_F16: return WV_FP_F16;
  case WV_T_BF16: return WV_FP_BF16;
  case WV_T_TF32: return WV_FP_TF32;
  case WV_T_F32: return WV_FP_F32;
  case WV_T_F64: return WV_FP_F64;
  default: return -1;
  }
}

/* The instruction's wv_fp_cvt arguments. */
typedef struct cvt_args {
  wv_fp_type dt, st;
  wv_fp_rnd r;
  unsigned f;
} cvt_args;

static cvt_args args_of(const wv_insn *in) {
  cvt_args c = {(wv_fp_type)fptype((wv_type)in->type), (wv_fp_type)fptype((wv_type)in->type2), WV_FP_RN,
                (in->ftz ? WV_FP_FTZ : 0) | (in->sat ? WV_FP_SAT : 0)};
  switch (in->rnd) {
  case WV_RND_RZ: c.r = WV_FP_RZ; break;
  case WV_RND_RM: c.r = WV_FP_RM; break;
  case WV_RND_RP: c.r = WV_FP_RP; break;
  case WV_RND_RNA: c.r = WV_FP_RNA; break;
  case WV_RND_RNI: c.f |= WV_FP_INTRND; break;
  case WV_RND_RZI: c.r = WV_FP_RZ; c.f |= WV_FP_INTRND; break;
  case WV_RND_RMI: c.r = WV_FP_RM; c.f |= WV_FP_INTRND; break;
  case WV_RND_RPI: c.r = WV_FP_RP; c.f |= WV_FP_INTRND; break;
  default: break;
  }
  /* integer rounding modes only mean "round to integral" for float→same-size float; for
   * float→int they are the conversion's rounding, which wv_fp_cvt takes as rnd. */
  if ((c.dt <= WV_FP_S64) && (c.f & WV_FP_INTRND)) c.f &= ~(unsigned)WV_FP_INTRND;
  return c;
}

static int h_cvt(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  cvt_args c = args_of(in);
  WV_FOR_LANES(m, l, { D[l] = wv_fp_cvt(A[l], c.dt, c.st, c.r, c.f); });
  return 0;
}

/* One lane a specialised handler leaves to wv_fp_cvt. */
static __attribute__((noinline)) uint64_t cvt_lane(const wv_insn *in, uint64_t a) {
  cvt_args c = args_of(in);
  return wv_fp_cvt(a, c.dt, c.st, c.r, c.f);
}

#define GEN_CVT(name, expr)                                                              \
  static int name(wv_exec *x, const wv_insn *in, uint32_t m) {                           \
    uint64_t *D = WV_R(x, in->d[0]);                                                     \
    const uint64_t *A = WV_R(x, in->a);                                                  \
    WV_FOR_LANES(m, l, { uint64_t a = A[l]; D[l] = (expr); });                           \
    return 0;                                                                            \
  }
/* An f32 source, flushed under .ftz. */
static inline float f32_in(int ftz, uint64_t a) { return wv_fp_f32(ftz ? wv_fp_flush32((uint32_t)a) : (uint32_t)a); }

/* A conversion the host decides where try(ftz, a, &v) returns 1 (with the result in v): try for every lane,
 * in one loop the compiler vectorises, then wv_fp_cvt for the lanes it leaves. r keeps the results until
 * then: d may be a. */
#define GEN_CVT2(name, try)                                                              \
  static int name(wv_exec *x, const wv_insn *in, uint32_t m) {                           \
    uint64_t *D = WV_R(x, in->d[0]), r[WV_WARP];                                         \
    const uint64_t *A = WV_R(x, in->a);                                                  \
    uint32_t bad[WV_WARP], slow = 0; /* a bit array vectorises, |= in the loop does not */ \
    const int ftz = in->ftz;                                                             \
    WV_FOR_LANES(m, l, { uint64_t v; bad[l] = (uint32_t)!try(ftz, A[l], &v) << l; r[l] = v; }); \
    WV_FOR_LANES(m, l, { slow |= bad[l]; });                                             \
    WV_FOR_LANES(slow, l, { r[l] = cvt_lane(in, A[l]); });                               \
    WV_FOR_LANES(m, l, { D[l] = r[l]; });                                                \
    return 0;                                                                            \
  }

/* The integer types in wv_fp_type order (u8 … s64): X(..., name, C type). */
#define ITYPES(X, ...)                                                                   \
  X(__VA_ARGS__, u8, uint8_t) X(__VA_ARGS__, u16, uint16_t) X(__VA_ARGS__, u32, uint32_t) \
  X(__VA_ARGS__, u64, uint64_t) X(__VA_ARGS__, s8, int8_t) X(__VA_ARGS__, s16, int16_t)  \
  X(__VA_ARGS__, s32, int32_t) X(__VA_ARGS__, s64, int64_t)
/* the same list again, for the inner loop of a nested expansion (a macro does not expand inside itself) */
#define ITYPES_IN(X, ...)                                                                \
  X(__VA_ARGS__, u8, uint8_t) X(__VA_ARGS__, u16, uint16_t) X(__VA_ARGS__, u32, uint32_t) \
  X(__VA_ARGS__, u64, uint64_t) X(__VA_ARGS__, s8, int8_t) X(__VA_ARGS__, s16, int16_t)  \
  X(__VA_ARGS__, s32, int32_t) X(__VA_ARGS__, s64, int64_t)

/* integer → integer without .sat: truncate to the source type, then extend (by the source's sign) or
 * chop to the destination, stored extended by the destination's sign — C's conversions exactly. */
#define GEN_I2I(DN, DT, SN, ST) GEN_CVT(h_cvt_##DN##_##SN, (uint64_t)(DT)(ST)a)
#define GEN_I2I_ROW(unused, DN, DT) ITYPES_IN(GEN_I2I, DN, DT)
ITYPES(GEN_I2I_ROW, 0)
#define I2I_ENTRY(DN, DT, SN, ST) h_cvt_##DN##_##SN,
#define I2I_ROW(unused, DN, DT) {ITYPES_IN(I2I_ENTRY, DN, DT)},
static const wv_handler I2I[8][8] = {ITYPES(I2I_ROW, 0)}; /* [destination][source] */

/* integer → f32/f64: the host conversion, in the round-to-nearest mode (host_cvt checks the
 * instruction rounds to nearest, or that the conversion is exact). .ftz never changes an integer. */
#define GEN_I2F(unused, SN, ST)                                                          \
  GEN_CVT(h_cvt_f32_##SN, wv_fp_b32((float)(ST)a))                                       \
  GEN_CVT(h_cvt_f64_##SN, wv_fp_b64((double)(ST)a))
ITYPES(GEN_I2F, 0)
#define I2F_ENTRY(D, SN, ST) h_cvt_##D##_##SN,
static const wv_handler I2F32[8] = {ITYPES(I2F_ENTRY, f32)};
static const wv_handler I2F64[8] = {ITYPES(I2F_ENTRY, f64)};

/* f32 → f64 ({.ftz}): exact; a NaN goes to wv_fp_cvt (its payload rule). */
static inline int try_f64_f32(int ftz, uint64_t a, uint64_t *v) {
  *v = wv_fp_b64((double)f32_in(ftz, a));
  return !wv_fp_isnan32((uint32_t)a);
}
GEN_CVT2(h_cvt_f64_f32, try_f64_f32)
/* cvt.rn.f32.f64: the host's rounding (subnormal results included); a NaN goes to wv_fp_cvt. */
static inline int try_f32_f64_rn(int ftz, uint64_t a, uint64_t *v) {
  (void)ftz;
  *v = wv_fp_b32((float)wv_fp_f64(a));
  return !wv_fp_isnan64(a);
}
GEN_CVT2(h_cvt_f32_f64_rn, try_f32_f64_rn)
/* cvt{.ftz}{.sat}.f32.f32 (no integer rounding): the value flushed and clamped as .ftz/.sat say; a NaN
 * is the canonical NaN, or +0 under .sat (wv_fp_sat32). */
static inline uint32_t same32(uint32_t a, int ftz, int sat) {
  uint32_t v = ftz ? wv_fp_flush32(a) : a;
  return sat ? wv_fp_sat32(v) : wv_fp_isnan32(v) ? WV_FP_F32_NAN : v;
}
GEN_CVT(h_cvt_f32_f32, same32((uint32_t)a, in->ftz, in->sat))

/* Rounding to an integral value (cvt.rXi.f32.f32 / .f64.f64) and to an integer (cvt.rXi.sNN/uNN.fNN):
 * the host's exact rint/trunc/floor/ceil; .ftz flushes an f32 source first. NaN, and an integer out of
 * the destination's range, go to wv_fp_cvt (its clamping and NaN rules). X(..., name, f32 and f64
 * rounding function). */
#define RMODES(X, ...)                                                                   \
  X(__VA_ARGS__, rni, rintf, rint) X(__VA_ARGS__, rzi, truncf, trunc)                    \
  X(__VA_ARGS__, rmi, floorf, floor) X(__VA_ARGS__, rpi, ceilf, ceil)
#define GEN_RINT(unused, R, F32FN, F64FN)                                                \
  static inline int try_##R##_f32(int ftz, uint64_t a, uint64_t *v) {                    \
    *v = wv_fp_b32(F32FN(f32_in(ftz, a)));                                               \
    return !wv_fp_isnan32((uint32_t)a);                                                  \
  }                                                                                      \
  static inline int try_##R##_f64(int ftz, uint64_t a, uint64_t *v) {                    \
    (void)ftz;                                                                           \
    *v = wv_fp_b64(F64FN(wv_fp_f64(a)));                                                 \
    return !wv_fp_isnan64(a);                                                            \
  }                                                                                      \
  GEN_CVT2(h_cvt_##R##_f32, try_##R##_f32)                                               \
  GEN_CVT2(h_cvt_##R##_f64, try_##R##_f64)
RMODES(GEN_RINT, 0)
/* to an integer of C type DT: the rounded value, when in [LO, HI), converts exactly (NaN is not) */
#define GEN_F2I(DN, DT, LO, HI, R, F32FN, F64FN)                                         \
  static inline int try_##DN##_f32_##R(int ftz, uint64_t a, uint64_t *v) {               \
    float t = F32FN(f32_in(ftz, a));                                                     \
    int ok = (t >= (float)(LO)) & (t < (float)(HI));                                     \
    *v = (uint64_t)(DT)(ok ? t : 0);                                                     \
    return ok;                                                                           \
  }                                                                                      \
  static inline int try_##DN##_f64_##R(int ftz, uint64_t a, uint64_t *v) {               \
    (void)ftz;                                                                           \
    double t = F64FN(wv_fp_f64(a));                                                      \
    int ok = (t >= (double)(LO)) & (t < (double)(HI));                                   \
    *v = (uint64_t)(DT)(ok ? t : 0);                                                     \
    return ok;                                                                           \
  }                                                                                      \
  GEN_CVT2(h_cvt_##DN##_f32_##R, try_##DN##_f32_##R)                                     \
  GEN_CVT2(h_cvt_##DN##_f64_##R, try_##DN##_f64_##R)
/* X(name, C type, lowest value, 2^bits or 2^(bits-1), ...) */
#define FIDESTS(X, ...)                                                                  \
  X(u32, uint32_t, 0, 0x1p32, __VA_ARGS__) X(s32, int32_t, -0x1p31, 0x1p31, __VA_ARGS__) \
  X(u64, uint64_t, 0, 0x1p64, __VA_ARGS__) X(s64, int64_t, -0x1p63, 0x1p63, __VA_ARGS__)
#define GEN_F2I_MODE(unused, R, F32FN, F64FN) FIDESTS(GEN_F2I, R, F32FN, F64FN)
RMODES(GEN_F2I_MODE, 0)
#define F2I_ENTRY(DN, DT, LO, HI, R) {h_cvt_##DN##_f32_##R, h_cvt_##DN##_f64_##R},
#define F2I_ROW(unused, R, F32FN, F64FN) {FIDESTS(F2I_ENTRY, R)},
/* [rounding rni/rzi/rmi/rpi][destination u32 s32 u64 s64][source f32 f64] */
static const wv_handler F2I[4][4][2] = {RMODES(F2I_ROW, 0)};
#define RINT_ENTRY(unused, R, F32FN, F64FN) {h_cvt_##R##_f32, h_cvt_##R##_f64},
static const wv_handler RINT[4][2] = {RMODES(RINT_ENTRY, 0)};

/* cvt.u64.u32 / cvt.s64.s32 / cvt.u32.u64: the address-arithmetic conversions. */
static int h_zext32(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  WV_FOR_LANES(m, l, { D[l] = (uint32_t)A[l]; });
  return 0;
}
static int h_sext32(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  WV_FOR_LANES(m, l, { D[l] = (uint64_t)(int64_t)(int32_t)A[l]; });
  return 0;
}

/* fp8 pairs: in->mode bit 0 = e5m2 (else e4m3), bit 1 = .relu */
static int h_to_fp8(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  unsigned f = (in->mode & 2) ? WV_FP_RELU : 0;
  WV_FOR_LANES(m, l, { D[l] = wv_fp_cvt_fp8x2_f32((uint32_t)A[l], (uint32_t)B[l], in->mode & 1, f); });
  return 0;
}
static int h_from_fp8(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  WV_FOR_LANES(m, l, { D[l] = wv_fp_cvt_f16x2_fp8x2((uint32_t)A[l] & 0xffff, in->mode & 1); });
  return 0;
}
wv_handler wv_h_fp8(int from_fp8) { return from_fp8 ? h_from_fp8 : h_to_fp8; }

/* The specialised handler for the conversion c, or NULL (then h_cvt). */
static wv_handler host_cvt(const cvt_args *c) {
  int dint = c->dt <= WV_FP_S64, sint = c->st <= WV_FP_S64, sbits = 8 << ((int)c->st & 3);
  int rmode = c->r == WV_FP_RN ? 0 : c->r == WV_FP_RZ ? 1 : c->r == WV_FP_RM ? 2 : c->r == WV_FP_RP ? 3 : -1;
  if (dint && sint) return c->f & WV_FP_SAT ? NULL : I2I[c->dt][c->st];
  if (sint) { /* → float: exact (≤ 16 bits to f32, ≤ 32 bits to f64), or rounded to nearest */
    if (c->f & WV_FP_SAT) return NULL;
    if (c->dt == WV_FP_F32 && (c->r == WV_FP_RN || sbits <= 16)) return I2F32[c->st];
    if (c->dt == WV_FP_F64 && (c->r == WV_FP_RN || sbits <= 32)) return I2F64[c->st];
    return NULL;
  }
  int sf = c->st == WV_FP_F32 ? 0 : c->st == WV_FP_F64 ? 1 : -1;
  if (sf < 0) return NULL;
  if (dint) { /* float → integer: the rounding mode is the conversion's; .sat changes nothing */
    int di = c->dt == WV_FP_U32 ? 0 : c->dt == WV_FP_S32 ? 1 : c->dt == WV_FP_U64 ? 2 : c->dt == WV_FP_S64 ? 3 : -1;
    return di < 0 || rmode < 0 ? NULL : F2I[rmode][di][sf];
  }
  if (c->dt == c->st && (c->f & WV_FP_INTRND)) return rmode < 0 || (c->f & WV_FP_SAT) ? NULL : RINT[rmode][sf];
  if (c->dt == WV_FP_F32 && c->st == WV_FP_F32) return h_cvt_f32_f32;
  if (c->dt == WV_FP_F64 && c->st == WV_FP_F32 && !(c->f & (WV_FP_SAT | WV_FP_INTRND))) return h_cvt_f64_f32;
  if (c->dt == WV_FP_F32 && c->st == WV_FP_F64 && c->r == WV_FP_RN && !c->f) return h_cvt_f32_f64_rn;
  return NULL;
}

wv_handler wv_h_cvt(wv_type dst, wv_type src, const wv_insn *in) {
  if (fptype(dst) < 0 || fptype(src) < 0) return NULL;
  if (!in->sat) {
    if ((dst == WV_T_U64 || dst == WV_T_S64) && src == WV_T_U32) return h_zext32;
    if ((dst == WV_T_U64 || dst == WV_T_S64) && src == WV_T_S32) return h_sext32;
    if (dst == WV_T_U32 && (src == WV_T_U64 || src == WV_T_S64)) return h_zext32;
  }
  cvt_args c = args_of(in);
  wv_handler h = host_cvt(&c);
  return h ? h : h_cvt;
}
