/*
 * h_sfu.c — handlers of the `.approx` instructions and of div.approx/div.full: rcp sqrt rsqrt sin
 * cos lg2 ex2 tanh (.f32, and the f16/bf16/x2 forms of ex2 and tanh), rcp/rsqrt .f64 (PTX ISA
 * §9.7.3.x, §9.7.4.x). Each lane is one call into sfu.h, the bit-exact model of sm_90's MUFU unit and
 * of the code ptxas emits around it; the recorded tables it reads belong to the vm and are loaded
 * on first use (sfu.c). The last multiply of div.approx, div.full and rcp.approx is an FMUL that ptxas
 * contracts with a following add/sub like a mul.f32's (src/ir/contract.c): those fused forms are here too.
 */
#include "exec/fpmath.h"
#include "exec/handlers.h"
#include "exec/sfu.h"
#include "rt/vm_internal.h"

/* The vm's tables that `need` (1 << WV_SFU_*) names, loaded on first use; NULL after a fault. */
static const wv_sfu *tables(wv_exec *x, uint32_t need) {
  wv_vm *vm = x->vm;
  if ((atomic_load_explicit(&vm->sfu_loaded, memory_order_acquire) & need) == need) return &vm->sfu;
  size_t len;
  const void *img = wv_sfu_image(&len);
  pthread_mutex_lock(&vm->lock); /* another worker of the launch may be loading them */
  int bad = wv_sfu_load(&vm->sfu, vm->sfu_mem, img, len, need);
  if (!bad) atomic_fetch_or_explicit(&vm->sfu_loaded, need, memory_order_release);
  pthread_mutex_unlock(&vm->lock);
  if (bad) {
    wv_fault_set(x, WV_ERR_NOMEM, -1, 0, 0, "cannot load the special-function tables (out of host memory)");
    return NULL;
  }
  return &vm->sfu;
}

#define TAB(id) (1u << (id))

static uint32_t need_of(int op, wv_type t) {
  switch (op) {
  case WV_OP_RCP: case WV_OP_DIV: return TAB(WV_SFU_RCP);
  case WV_OP_SQRT: return TAB(WV_SFU_SQRT0) | TAB(WV_SFU_SQRT1);
  case WV_OP_RSQRT: return TAB(WV_SFU_RSQ0) | TAB(WV_SFU_RSQ1);
  case WV_OP_SIN: case WV_OP_COS: return TAB(WV_SFU_SIN);
  case WV_OP_LG2: return TAB(WV_SFU_LG2_0) | TAB(WV_SFU_LG2_M1);
  case WV_OP_EX2:
    return t == WV_T_F16 || t == WV_T_F16X2 ? TAB(WV_SFU_EX2_F16) : t == WV_T_BF16 || t == WV_T_BF16X2 ? TAB(WV_SFU_EX2_BF16) : TAB(WV_SFU_EX2);
  case WV_OP_TANH:
    return t == WV_T_F16 || t == WV_T_F16X2 ? TAB(WV_SFU_TANH_F16) : t == WV_T_BF16 || t == WV_T_BF16X2 ? TAB(WV_SFU_TANH_BF16) : TAB(WV_SFU_TANH);
  default: return 0;
  }
}

#define SFU_HEAD                                                         \
  const wv_sfu *T = tables(x, need_of(in->op, (wv_type)in->type));        \
  if (!T) return 1;                                                      \
  uint64_t *D = WV_R(x, in->d[0]);                                       \
  const uint64_t *A = WV_R(x, in->a)

static int h_sfu_f32(wv_exec *x, const wv_insn *in, uint32_t m) {
  if (in->mode & WV_FM_SAVE) wv_h_save_sources(x, in, m);
  SFU_HEAD;
  int ftz = in->ftz;
#define L1(expr) WV_FOR_LANES(m, l, { uint32_t a = (uint32_t)A[l]; D[l] = (expr); })
  switch (in->op) {
  case WV_OP_RCP: L1(wv_sfu_rcp_approx(T, a, ftz)); break;
  case WV_OP_SQRT: L1(wv_sfu_sqrt_approx(T, a, ftz)); break;
  case WV_OP_RSQRT: L1(wv_sfu_rsqrt_approx(T, a, ftz)); break;
  case WV_OP_SIN: L1(wv_sfu_sin_approx(T, a)); break;
  case WV_OP_COS: L1(wv_sfu_cos_approx(T, a)); break;
  case WV_OP_LG2: L1(wv_sfu_lg2_approx(T, a, ftz)); break;
  case WV_OP_EX2: L1(wv_sfu_ex2_approx(T, a, ftz)); break;
  default: L1(wv_sfu_tanh(T, a)); break;
  }
#undef L1
  return 0;
}

static int h_sfu_div(wv_exec *x, const wv_insn *in, uint32_t m) {
  if (in->mode & WV_FM_SAVE) wv_h_save_sources(x, in, m);
  SFU_HEAD;
  const uint64_t *B = WV_R(x, in->b);
  if (in->mode & WV_FM_APPROX) WV_FOR_LANES(m, l, { D[l] = wv_sfu_div_approx(T, (uint32_t)A[l], (uint32_t)B[l], in->ftz); });
  else WV_FOR_LANES(m, l, { D[l] = wv_sfu_div_full(T, (uint32_t)A[l], (uint32_t)B[l], in->ftz); });
  return 0;
}

/* ptxas's division and reciprocal sequences with their last FMUL x*y an FFMA x*y + c (WV_FM_ADDC),
 * -(x*y) and -c under WV_FM_NEGP / WV_FM_NEGC, .sat from the add. */
static uint32_t fma_tail(uint32_t x, uint32_t y, uint32_t c, const wv_insn *in) {
  unsigned fl = (in->ftz ? WV_FP_FTZ : 0) | (in->sat ? WV_FP_SAT : 0);
  return wv_fp_fma_f32(x ^ (in->mode & WV_FM_NEGP ? 0x80000000u : 0), y, c ^ (in->mode & WV_FM_NEGC ? 0x80000000u : 0),
                       WV_FP_RN, fl);
}
static uint32_t div_fma(const wv_sfu *T, uint32_t a, uint32_t b, uint32_t c, const wv_insn *in) {
  int ftz = in->ftz, big = wv_sfu_huge(b), small = !ftz && wv_sfu_tiny(b);
  if (in->mode & WV_FM_APPROX) {
    if (ftz) return fma_tail(a, wv_sfu_rcp(T, b), c, in);
    big = 0;
  }
  if (big) {
    b = ftz ? wv_sfu_fmul_ftz(b, 0x3e800000u) : wv_sfu_fmul(b, 0x3e800000u);
    a = ftz ? wv_sfu_fmul_ftz(a, 0x3e800000u) : wv_sfu_fmul(a, 0x3e800000u);
  }
  if (small) {
    b = wv_sfu_fmul(b, 0x4b800000u);
    a = wv_sfu_fmul(a, 0x4b800000u);
  }
  return fma_tail(wv_sfu_rcp(T, b), a, c, in);
}
static int h_sfu_div_fma(wv_exec *x, const wv_insn *in, uint32_t m) {
  SFU_HEAD;
  const uint64_t *B = WV_R(x, in->b), *C = WV_R(x, in->c);
  WV_FOR_LANES(m, l, { D[l] = div_fma(T, (uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l], in); });
  return 0;
}
static int h_sfu_rcp_fma(wv_exec *x, const wv_insn *in, uint32_t m) { /* rcp.approx.f32 (not .ftz) */
  SFU_HEAD;
  const uint64_t *C = WV_R(x, in->c);
  WV_FOR_LANES(m, l, {
    uint32_t a = (uint32_t)A[l], sc = wv_sfu_huge(a) ? 0x3e800000u : wv_sfu_tiny(a) ? 0x4b800000u : 0x3f800000u;
    D[l] = fma_tail(sc, wv_sfu_rcp(T, wv_sfu_fmul(a, sc)), (uint32_t)C[l], in);
  });
  return 0;
}

static int h_sfu_f64(wv_exec *x, const wv_insn *in, uint32_t m) {
  SFU_HEAD;
  if (in->op == WV_OP_RCP) WV_FOR_LANES(m, l, { D[l] = wv_sfu_rcp_approx_f64(T, A[l]); });
  else if (in->ftz) WV_FOR_LANES(m, l, { D[l] = wv_sfu_rsqrt_approx_ftz_f64(T, A[l]); });
  else WV_FOR_LANES(m, l, { D[l] = wv_sfu_rsqrt_approx_f64(T, A[l]); });
  return 0;
}

/* ex2/tanh .f16 .bf16 (one half in the low 16 bits) and .f16x2 .bf16x2 (both halves). */
static int h_sfu_h16(wv_exec *x, const wv_insn *in, uint32_t m) {
  SFU_HEAD;
  int tab = __builtin_ctz(need_of(in->op, (wv_type)in->type));
  if (in->type == WV_T_F16X2 || in->type == WV_T_BF16X2)
    WV_FOR_LANES(m, l, { D[l] = wv_sfu_h16(T, tab, (uint32_t)A[l]) | wv_sfu_h16(T, tab, (uint32_t)A[l] >> 16) << 16; });
  else WV_FOR_LANES(m, l, { D[l] = wv_sfu_h16(T, tab, (uint32_t)A[l]); });
  return 0;
}

/* The handler of an .approx/.full instruction, or NULL if it is not one warpvm runs. */
wv_handler wv_h_sfu(int op, wv_type t, const wv_insn *in) {
  int approx = in->mode & WV_FM_APPROX;
  if (op == WV_OP_DIV && (in->mode & WV_FM_ADDC)) return t == WV_T_F32 ? h_sfu_div_fma : NULL;
  if (op == WV_OP_DIV) return t == WV_T_F32 && (in->mode & (WV_FM_APPROX | WV_FM_FULL)) ? h_sfu_div : NULL;
  if (op == WV_OP_RCP && (in->mode & WV_FM_ADDC)) return t == WV_T_F32 && approx && !in->ftz ? h_sfu_rcp_fma : NULL;
  if (!approx || !need_of(op, t)) return NULL;
  if (t == WV_T_F32) return h_sfu_f32;
  if (t == WV_T_F64) return op == WV_OP_RCP || op == WV_OP_RSQRT ? h_sfu_f64 : NULL;
  if (op != WV_OP_EX2 && op != WV_OP_TANH) return NULL;
  /* PTX: ex2.approx.f16(x2) (no .ftz), ex2.approx.ftz.bf16(x2) (.ftz required), tanh.approx.{f16,bf16}(x2) */
  if (op == WV_OP_EX2 && in->ftz != (t == WV_T_BF16 || t == WV_T_BF16X2)) return NULL;
  return h_sfu_h16;
}
