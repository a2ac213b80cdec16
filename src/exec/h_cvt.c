/*
 * h_cvt.c — cvt between every integer and float type (PTX ISA §9.7.9.21): one handler that
 * hands each lane to wv_fp_cvt (fpmath.c owns rounding, saturation, NaN and .ftz rules), with
 * fast paths for the conversions nvcc emits in address arithmetic.
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

static int h_cvt(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  wv_fp_type dt = (wv_fp_type)fptype((wv_type)in->type), st = (wv_fp_type)fptype((wv_type)in->type2);
  wv_fp_rnd r = WV_FP_RN;
  unsigned f = (in->ftz ? WV_FP_FTZ : 0) | (in->sat ? WV_FP_SAT : 0);
  switch (in->rnd) {
  case WV_RND_RZ: r = WV_FP_RZ; break;
  case WV_RND_RM: r = WV_FP_RM; break;
  case WV_RND_RP: r = WV_FP_RP; break;
  case WV_RND_RNA: r = WV_FP_RNA; break;
  case WV_RND_RNI: f |= WV_FP_INTRND; break;
  case WV_RND_RZI: r = WV_FP_RZ; f |= WV_FP_INTRND; break;
  case WV_RND_RMI: r = WV_FP_RM; f |= WV_FP_INTRND; break;
  case WV_RND_RPI: r = WV_FP_RP; f |= WV_FP_INTRND; break;
  default: break;
  }
  /* integer rounding modes only mean "round to integral" for float→same-size float; for
   * float→int they are the conversion's rounding, which wv_fp_cvt takes as rnd. */
  if ((dt <= WV_FP_S64) && (f & WV_FP_INTRND)) f &= ~(unsigned)WV_FP_INTRND;
  WV_FOR_LANES(m, l, { D[l] = wv_fp_cvt(A[l], dt, st, r, f); });
  return 0;
}

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

wv_handler wv_h_cvt(wv_type dst, wv_type src, const wv_insn *in) {
  if (fptype(dst) < 0 || fptype(src) < 0) return NULL;
  if (!in->sat) {
    if ((dst == WV_T_U64 || dst == WV_T_S64) && src == WV_T_U32) return h_zext32;
    if ((dst == WV_T_U64 || dst == WV_T_S64) && src == WV_T_S32) return h_sext32;
    if (dst == WV_T_U32 && (src == WV_T_U64 || src == WV_T_S64)) return h_zext32;
  }
  return h_cvt;
}
