/*
 * h_mov.c — data movement that touches no memory: mov between registers/immediates/specials,
 * predicate moves, vector pack/unpack (mov.b64 d, {a,b} and back), the dynamic special
 * registers (%clock, %clock_hi, %clock64, %globaltimer, %globaltimer_lo/_hi), the frame's local-depot address, and nop.
 */
#include <time.h>

#include "exec/handlers.h"

static int h_mov(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  if (m == 0xffffffffu) memcpy(D, A, WV_WARP * sizeof *D);
  else WV_FOR_LANES(m, l, { D[l] = A[l]; });
  return 0;
}

/* Narrowing moves keep only the destination width (mov.b32 of a 64-bit source never happens
 * in valid PTX, but cvt-like truncation through mov.b16 does). */
static int h_mov32(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  WV_FOR_LANES(m, l, { D[l] = (uint32_t)A[l]; });
  return 0;
}
static int h_mov16(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  WV_FOR_LANES(m, l, { D[l] = (uint16_t)A[l]; });
  return 0;
}

/* mov.pred d, a (a predicate) — or an immediate: in->a = WV_NOSLOT and imm holds 0/1. */
static int h_movp(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint32_t *P = x->preds;
  uint32_t v = in->a == WV_NOSLOT ? (in->imm ? ~0u : 0u) : P[in->a];
  P[in->d[0]] = (P[in->d[0]] & ~m) | (v & m);
  return 0;
}

/* Pack: d = {a, b, ...} with element width in->imm bytes (lowest element first). */
static int h_pack(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *E[4] = {WV_R(x, in->a), WV_R(x, in->b), in->c != WV_NOSLOT ? WV_R(x, in->c) : NULL,
                          in->e != WV_NOSLOT ? WV_R(x, in->e) : NULL};
  unsigned bits = (unsigned)in->imm * 8, n = in->vec;
  uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
  WV_FOR_LANES(m, l, {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (E[i][l] & mask) << (bits * i);
    D[l] = v;
  });
  return 0;
}

/* Unpack: {d0, d1, ...} = a, element width in->imm bytes; a `_` destination is WV_NOSLOT. */
static int h_unpack(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = WV_R(x, in->a);
  unsigned bits = (unsigned)in->imm * 8;
  uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
  uint64_t tmp[WV_WARP];
  memcpy(tmp, A, sizeof tmp); /* a destination may alias the source */
  for (unsigned i = 0; i < in->vec; i++) {
    if (in->d[i] == WV_NOSLOT) continue;
    uint64_t *D = WV_R(x, in->d[i]);
    WV_FOR_LANES(m, l, { D[l] = (tmp[l] >> (bits * i)) & mask; });
  }
  return 0;
}

/* A predicate from/to an integer: used by the decoder for `selp`-free moves of preds. */
static int h_pred_from_reg(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = WV_R(x, in->a);
  uint32_t v = 0;
  WV_FOR_LANES(m, l, { if (A[l] & 1) v |= 1u << l; });
  x->preds[in->d[0]] = (x->preds[in->d[0]] & ~m) | v;
  return 0;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static int h_clock(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  uint64_t v = now_ns();
  if (in->mode == WV_DYN_CLOCK || in->mode == WV_DYN_GLOBALTIMER_LO) v = (uint32_t)v; /* the low 32 bits */
  else if (in->mode == WV_DYN_CLOCK_HI || in->mode == WV_DYN_GLOBALTIMER_HI) v >>= 32;
  WV_FOR_LANES(m, l, { D[l] = v; });
  return 0;
}

/* mov d, __local_depotN (+off): the local-space address of this activation's depot. */
int wv_h_local_addr(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  uint64_t v = x->frame->local_base + (uint64_t)in->imm;
  WV_FOR_LANES(m, l, { D[l] = v; });
  return 0;
}

int wv_h_nop(wv_exec *x, const wv_insn *in, uint32_t m) {
  (void)x; (void)in; (void)m;
  return 0;
}

wv_handler wv_h_mov(int kind, wv_type t) {
  switch (kind) {
  case WV_MOV_REG:
    return wv_type_size(t) == 2 ? h_mov16 : wv_type_size(t) == 4 ? h_mov32 : h_mov;
  case WV_MOV_PRED: return h_movp;
  case WV_MOV_PACK: return h_pack;
  case WV_MOV_UNPACK: return h_unpack;
  case WV_MOV_PRED_FROM_REG: return h_pred_from_reg;
  default: return NULL;
  }
}

wv_handler wv_h_special(int which) {
  (void)which;
  return h_clock;
}
