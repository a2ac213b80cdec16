/*
 * h_warp.c — warp collectives: shfl.sync, vote.sync, match.sync, redux.sync, bar.warp.sync
 * (PTX ISA §9.7.9.6 shfl.sync, §9.7.13.x vote/match/redux, bar.warp.sync), plus activemask,
 * which is a plain instruction reading the running group's mask.
 *
 * Undefined-on-hardware cases get a deterministic answer and are counted in stats
 * (collective_undefined): a shuffle that reads a lane not taking part gets that lane's current
 * register value in the warp's register file (what a register-file read would return).
 */
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
 * value and a false predicate. */
static int shfl_src(int mode, int lane, uint32_t b, uint32_t c, int *pval) {
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
    switch (rep->mode) {
    case WV_VOTE_ALL: c->pd = on == lanes ? lanes : 0; break;
    case WV_VOTE_ANY: c->pd = on ? lanes : 0; break;
    case WV_VOTE_UNI: c->pd = (on == lanes || on == 0) ? lanes : 0; break;
    default: WV_FOR_LANES(lanes, l, { c->d[l] = on; }); break;
    }
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
    int sgn = rep->type == WV_T_S32;
    uint32_t acc = rep->mode == WV_REDUX_AND ? 0xffffffffu : 0;
    int first = 1;
    WV_FOR_LANES(lanes, l, {
      uint32_t v = (uint32_t)c->a[l];
      switch (rep->mode) {
      case WV_REDUX_ADD: acc += v; break;
      case WV_REDUX_AND: acc &= v; break;
      case WV_REDUX_OR: acc |= v; break;
      case WV_REDUX_XOR: acc ^= v; break;
      case WV_REDUX_MIN: if (first || (sgn ? (int32_t)v < (int32_t)acc : v < acc)) acc = v; break;
      default: if (first || (sgn ? (int32_t)v > (int32_t)acc : v > acc)) acc = v; break;
      }
      first = 0;
    });
    WV_FOR_LANES(lanes, l, { c->d[l] = sgn ? (uint64_t)(int64_t)(int32_t)acc : acc; });
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
