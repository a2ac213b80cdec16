/*
 * h_warp.c — warp collectives: shfl.sync, vote.sync, match.sync, redux.sync, bar.warp.sync
 * (PTX ISA §9.7.9.6 shfl.sync, §9.7.13.x vote/match/redux, bar.warp.sync), plus activemask,
 * which is a plain instruction reading the running group's mask.
 *
 * Undefined-on-hardware cases get a deterministic answer and are counted in stats
 * (collective_undefined): a shuffle that reads a lane not taking part gets that lane's current
 * register value in the warp's register file (what a register-file read would return).
 */
#include "exec/handlers.h"
#include "exec/warp.h"
#include "rt/vm_internal.h"

static uint32_t mask_slot(const wv_insn *in) {
  return in->op == WV_OP_SHFL ? in->e : in->op == WV_OP_BAR || in->op == WV_OP_BARRIER ? in->a : in->b;
}

uint32_t wv_coll_members(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *v = WV_R(x, mask_slot(in));
  return (uint32_t)v[m ? __builtin_ctz(m) : 0];
}

uint32_t wv_coll_class(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *v = WV_R(x, mask_slot(in));
  uint32_t mv = (uint32_t)v[m ? __builtin_ctz(m) : 0], cls = 0;
  WV_FOR_LANES(m, l, { if ((uint32_t)v[l] == mv) cls |= 1u << l; });
  return cls;
}

void wv_coll_gather(wv_exec *x, const wv_insn *in, uint32_t gmask, wv_coll *c, int first) {
  switch (in->op) {
  case WV_OP_SHFL: {
    const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b), *C = WV_R(x, in->c);
    if (first) for (int l = 0; l < WV_WARP; l++) c->a[l] = (uint32_t)A[l];
    WV_FOR_LANES(gmask, l, { c->a[l] = (uint32_t)A[l]; c->b[l] = (uint32_t)B[l]; c->c[l] = (uint32_t)C[l]; });
    break;
  }
  case WV_OP_VOTE: {
    uint32_t p = x->preds[in->a];
    if (in->neg_b) p = ~p;
    c->pin = (c->pin & ~gmask) | (p & gmask);
    break;
  }
  case WV_OP_MATCH:
  case WV_OP_REDUX: {
    const uint64_t *A = WV_R(x, in->a);
    WV_FOR_LANES(gmask, l, { c->a[l] = A[l]; });
    break;
  }
  default: break;
  }
}

/* shfl.sync source lane, exactly as the PTX ISA pseudocode: c[4:0] is the clamp, c[12:8] the
 * segment mask, b[4:0] the lane or offset; an out-of-segment source gives the caller's own
 * value and a false predicate. (Inline: the fast path's loops vectorise with it.) */
static inline int shfl_src(int mode, int lane, uint32_t b, uint32_t c, int *pval) {
  int bval = (int)(b & 31), cval = (int)(c & 31), seg = (int)((c >> 8) & 31);
  int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg, j;
  switch (mode) {
  case WV_SHFL_UP: j = lane - bval; *pval = j >= maxl; break;
  case WV_SHFL_DOWN: j = lane + bval; *pval = j <= maxl; break;
  case WV_SHFL_BFLY: j = lane ^ bval; *pval = j <= maxl; break;
  default: j = minl | (bval & ~seg); *pval = j <= maxl; break;
  }
  return *pval ? j : lane;
}

/* (handlers.h) */
int wv_shfl_src(int mode, int lane, uint32_t b, uint32_t c, int *pval) { return shfl_src(mode, lane, b, c, pval); }

/* vote.all/any/uni: the predicate result of lanes whose inputs are `on` (ballot is `on` itself). */
static inline uint32_t vote_pd(int mode, uint32_t on, uint32_t lanes) {
  switch (mode) {
  case WV_VOTE_ALL: return on == lanes ? lanes : 0;
  case WV_VOTE_ANY: return on ? lanes : 0;
  default: return (on == lanes || on == 0) ? lanes : 0; /* uni */
  }
}

/* redux.sync over the values a[l] of lanes, as stored in d (s32 sign-extended). */
static inline uint64_t redux_fold(int mode, int sgn, const uint64_t *a, uint32_t lanes) {
  uint32_t acc = mode == WV_REDUX_AND ? 0xffffffffu : 0;
  int first = 1;
  WV_FOR_LANES(lanes, l, {
    uint32_t v = (uint32_t)a[l];
    switch (mode) {
    case WV_REDUX_ADD: acc += v; break;
    case WV_REDUX_AND: acc &= v; break;
    case WV_REDUX_OR: acc |= v; break;
    case WV_REDUX_XOR: acc ^= v; break;
    case WV_REDUX_MIN: if (first || (sgn ? (int32_t)v < (int32_t)acc : v < acc)) acc = v; break;
    default: if (first || (sgn ? (int32_t)v > (int32_t)acc : v > acc)) acc = v; break;
    }
    first = 0;
  });
  return sgn ? (uint64_t)(int64_t)(int32_t)acc : acc;
}

void wv_coll_compute(wv_exec *x, const wv_insn *rep, uint32_t lanes, wv_coll *c) {
  switch (rep->op) {
  case WV_OP_SHFL:
    c->pd = 0;
    WV_FOR_LANES(lanes, l, {
      int p;
      int j = shfl_src(rep->mode, l, c->b[l], c->c[l], &p);
      if (!(lanes >> j & 1)) x->n_coll_undef++;
      c->d[l] = c->a[j];
      if (p) c->pd |= 1u << l;
    });
    break;
  case WV_OP_VOTE: {
    uint32_t on = c->pin & lanes;
    if (rep->mode == WV_VOTE_BALLOT) WV_FOR_LANES(lanes, l, { c->d[l] = on; });
    else c->pd = vote_pd(rep->mode, on, lanes);
    break;
  }
  case WV_OP_MATCH: {
    int w64 = rep->type == WV_T_B64;
    if (rep->mode == WV_MATCH_ANY) {
      WV_FOR_LANES(lanes, l, {
        uint32_t r = 0;
        WV_FOR_LANES(lanes, k, { if (w64 ? c->a[k] == c->a[l] : (uint32_t)c->a[k] == (uint32_t)c->a[l]) r |= 1u << k; });
        c->d[l] = r;
      });
    } else {
      int same = 1;
      int f = __builtin_ctz(lanes ? lanes : 1);
      WV_FOR_LANES(lanes, l, { if (w64 ? c->a[l] != c->a[f] : (uint32_t)c->a[l] != (uint32_t)c->a[f]) same = 0; });
      WV_FOR_LANES(lanes, l, { c->d[l] = same ? lanes : 0; });
      c->pd = same ? lanes : 0;
    }
    break;
  }
  case WV_OP_ELECT: {
    uint32_t leader = (uint32_t)__builtin_ctz(lanes ? lanes : 1);
    WV_FOR_LANES(lanes, l, { c->d[l] = leader; });
    c->pd = lanes ? 1u << leader : 0;
    break;
  }
  case WV_OP_REDUX: {
    uint64_t r = redux_fold(rep->mode, rep->type == WV_T_S32, c->a, lanes);
    WV_FOR_LANES(lanes, l, { c->d[l] = r; });
    break;
  }
  default: break;
  }
}

void wv_coll_scatter(wv_exec *x, const wv_insn *in, uint32_t gmask, const wv_coll *c) {
  switch (in->op) {
  case WV_OP_SHFL:
  case WV_OP_MATCH:
  case WV_OP_ELECT:
  case WV_OP_REDUX: {
    if (in->d[0] != WV_NOSLOT) {
      uint64_t *D = WV_R(x, in->d[0]);
      WV_FOR_LANES(gmask, l, { D[l] = c->d[l]; });
    }
    if (in->pd >= 0) x->preds[in->pd] = (x->preds[in->pd] & ~gmask) | (c->pd & gmask);
    break;
  }
  case WV_OP_VOTE:
    if (in->mode == WV_VOTE_BALLOT) {
      uint64_t *D = WV_R(x, in->d[0]);
      WV_FOR_LANES(gmask, l, { D[l] = (uint32_t)c->d[l]; });
    } else {
      x->preds[in->d[0]] = (x->preds[in->d[0]] & ~gmask) | (c->pd & gmask);
    }
    break;
  default: break;
  }
}

/* ---- the fast path: a converged group alone at a collective ----
 * The decoder installs these as the instruction's fn; the scheduler's fast loop calls it for a collective
 * and, when it returns 1, runs the collective through the general path above (gather, compute, scatter,
 * with every undefined case and diagnostic) instead. They take an instruction only when the result is
 * the general path's for certain: the NVIDIA machine (an AMD model runs its lowered code), the running
 * group holds every live lane of the warp and is the whole guard mask, the membermask is one value that
 * names all of them, and (shfl) b and c are the same in every lane and every source lane takes part. */

/* The lanes' value of slot s when it is the same in all of m (constants always are), in *v; 0 if not.
 * All 64 bits are compared: a register holding one 32-bit value with different upper bits in some lane
 * (never written so by PTX code) only means the general path runs it. */
static inline int uniform(wv_exec *x, uint32_t s, uint32_t m, uint32_t *v) {
  const uint64_t *V = WV_R(x, s);
  uint64_t v0 = V[__builtin_ctz(m)], diff = 0;
  if (WV_SLOT_BANK(s) != 1) WV_FOR_LANES(m, l, { diff |= V[l] ^ v0; });
  *v = (uint32_t)v0;
  return diff == 0;
}
static inline int converged(wv_exec *x, const wv_insn *in, uint32_t m) {
  const wv_warp *w = x->warp;
  uint32_t mv;
  return !x->vm->amd && m == x->cur_mask && m == (w->exists & ~w->exited) && uniform(x, mask_slot(in), m, &mv) &&
         !(m & ~mv);
}

static inline __attribute__((always_inline)) int shfl_fast(wv_exec *x, const wv_insn *in, uint32_t m, int mode) {
  uint32_t b, c, a[WV_WARP], pd = 0;
  if (!converged(x, in, m) || !uniform(x, in->b, m, &b) || !uniform(x, in->c, m, &c)) return 1;
  const uint64_t *A = WV_R(x, in->a);
  uint64_t sink[WV_WARP], *D = in->d[0] != WV_NOSLOT ? WV_R(x, in->d[0]) : sink;
  if (m == 0xffffffffu) { /* a full warp: every source lane takes part; each loop vectorises */
    int32_t src[WV_WARP];
    uint32_t pbit[WV_WARP]; /* a bit array: pd |= in the first loop would not vectorise */
    for (int l = 0; l < WV_WARP; l++) {
      int p;
      src[l] = shfl_src(mode, l, b, c, &p);
      pbit[l] = (uint32_t)p << l;
    }
    for (int l = 0; l < WV_WARP; l++) pd |= pbit[l];
    for (int l = 0; l < WV_WARP; l++) a[l] = (uint32_t)A[l]; /* d may be a */
    for (int l = 0; l < WV_WARP; l++) D[l] = a[src[l]];
  } else {
    uint8_t src[WV_WARP];
    uint32_t outside = 0;
    WV_FOR_LANES(m, l, {
      int p, j = shfl_src(mode, l, b, c, &p);
      src[l] = (uint8_t)j;
      outside |= ~m >> j & 1;
      pd |= (uint32_t)p << l;
    });
    if (outside) return 1; /* reads a lane that does not take part: the general path counts it */
    WV_FOR_LANES(m, l, { a[l] = (uint32_t)A[l]; });
    WV_FOR_LANES(m, l, { D[l] = a[src[l]]; });
  }
  if (in->pd >= 0) x->preds[in->pd] = (x->preds[in->pd] & ~m) | (pd & m);
  x->n_coll++;
  return 0;
}
static int h_shfl_idx(wv_exec *x, const wv_insn *in, uint32_t m) { return shfl_fast(x, in, m, WV_SHFL_IDX); }
static int h_shfl_up(wv_exec *x, const wv_insn *in, uint32_t m) { return shfl_fast(x, in, m, WV_SHFL_UP); }
static int h_shfl_down(wv_exec *x, const wv_insn *in, uint32_t m) { return shfl_fast(x, in, m, WV_SHFL_DOWN); }
static int h_shfl_bfly(wv_exec *x, const wv_insn *in, uint32_t m) { return shfl_fast(x, in, m, WV_SHFL_BFLY); }

static int h_vote_fast(wv_exec *x, const wv_insn *in, uint32_t m) {
  if (!converged(x, in, m)) return 1;
  uint32_t on = (in->neg_b ? ~x->preds[in->a] : x->preds[in->a]) & m;
  if (in->mode == WV_VOTE_BALLOT) {
    uint64_t *D = WV_R(x, in->d[0]);
    WV_FOR_LANES(m, l, { D[l] = on; });
  } else {
    x->preds[in->d[0]] = (x->preds[in->d[0]] & ~m) | (vote_pd(in->mode, on, m) & m);
  }
  x->n_coll++;
  return 0;
}

static int h_redux_fast(wv_exec *x, const wv_insn *in, uint32_t m) {
  if (!converged(x, in, m)) return 1;
  uint64_t r = redux_fold(in->mode, in->type == WV_T_S32, WV_R(x, in->a), m), *D = WV_R(x, in->d[0]);
  WV_FOR_LANES(m, l, { D[l] = r; });
  x->n_coll++;
  return 0;
}

/* bar.warp.sync: nothing to compute; it orders memory under the weak model. */
static int h_warpsync_fast(wv_exec *x, const wv_insn *in, uint32_t m) {
  if (!converged(x, in, m)) return 1;
  if (x->mm) wv_mm_warp_sync(x, m);
  x->n_coll++;
  return 0;
}

wv_handler wv_h_coll(const wv_insn *in) {
  switch (in->op) {
  case WV_OP_SHFL:
    switch (in->mode) {
    case WV_SHFL_UP: return h_shfl_up;
    case WV_SHFL_DOWN: return h_shfl_down;
    case WV_SHFL_BFLY: return h_shfl_bfly;
    default: return h_shfl_idx;
    }
  case WV_OP_VOTE: return h_vote_fast;
  case WV_OP_REDUX: return h_redux_fast;
  case WV_OP_BAR: return in->mode == WV_BAR_WARPSYNC ? h_warpsync_fast : NULL;
  default: return NULL;
  }
}

/* activemask.b32 d: the lanes executing this instruction together (on an AMD machine: its lowered
 * code reads exec). */
int wv_h_activemask(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  if (x->vm->amd) {
    wv_coll c;
    memset(&c, 0, sizeof c);
    if (wv_amd_collective(x, in, x->cur_mask, &c)) return 1;
    WV_FOR_LANES(m, l, { D[l] = (uint32_t)c.d[l]; });
    return 0;
  }
  WV_FOR_LANES(m, l, { D[l] = x->cur_mask; });
  return 0;
}
