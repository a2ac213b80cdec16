/*
 * select.c — which instructions the JIT compiles, and the regions they form. An instruction is recognised
 * by its handler: the decoder gave it exactly one of the interpreter's specialised handlers (exec/handlers.h),
 * and the JIT compiles only those whose meaning it reproduces bit for bit, asking the same lookup functions the
 * decoder asks. Anything else — another rounding mode, .ftz/.sat, .approx, carries, vectors, a space it
 * does not check — ends a region and runs in the interpreter. A region is a run of these inside a basic block,
 * and goes on through a forward branch whose paths hold only arithmetic and one-element accesses and meet again
 * (wv_jit_branch).
 */
#include <stdlib.h>
#include <string.h>

#include "exec/handlers.h"
#include "jit/jit.h"

static const wv_type ITYPES[6] = {WV_T_U16, WV_T_S16, WV_T_U32, WV_T_S32, WV_T_U64, WV_T_S64};

static int set(wv_jop *o, wv_jk k, int op, wv_type t) {
  memset(o, 0, sizeof *o);
  o->kind = (uint8_t)k;
  o->op = (uint16_t)op;
  if (t != WV_T_NONE) {
    o->bits = (uint8_t)(wv_type_size(t) * 8);
    o->sgn = (uint8_t)wv_type_is_signed(t);
  }
  return 1;
}

static int select_int(const wv_insn *in, wv_jop *o) {
  static const int BIN[] = {WV_OP_ADD, WV_OP_SUB, WV_OP_MUL, WV_OP_MIN, WV_OP_MAX, WV_OP_AND,
                            WV_OP_OR,  WV_OP_XOR, WV_OP_SHL, WV_OP_SHR};
  for (int i = 0; i < 6; i++) {
    wv_type t = ITYPES[i];
    for (size_t k = 0; k < sizeof BIN / sizeof *BIN; k++)
      if (in->fn == wv_h_int(BIN[k], BIN[k] == WV_OP_MUL ? WV_V_LO : WV_V_NONE, t)) return set(o, WV_JK_IBIN, BIN[k], t);
    if (in->fn == wv_h_int(WV_OP_NOT, WV_V_NONE, t)) return set(o, WV_JK_IUN, WV_OP_NOT, t);
    if (in->fn == wv_h_int(WV_OP_NEG, WV_V_NONE, t)) return set(o, WV_JK_IUN, WV_OP_NEG, t);
    if (t != WV_T_U16 && t != WV_T_S16 && in->fn == wv_h_int(WV_OP_MAD, WV_V_LO, t)) return set(o, WV_JK_MADLO, WV_OP_MAD, t);
    if (t != WV_T_U64 && t != WV_T_S64 && in->fn == wv_h_int(WV_OP_MUL, WV_V_WIDE, t))
      return set(o, WV_JK_MULWIDE, WV_OP_MUL, t);
  }
  if (in->fn == wv_h_int(WV_OP_MAD, WV_V_WIDE, WV_T_U32)) return set(o, WV_JK_MADWIDE, WV_OP_MAD, WV_T_U32);
  if (in->fn == wv_h_int(WV_OP_MAD, WV_V_WIDE, WV_T_S32)) return set(o, WV_JK_MADWIDE, WV_OP_MAD, WV_T_S32);
  return 0;
}

static int select_move(const wv_insn *in, wv_jop *o) {
  if (in->fn == wv_h_mov(WV_MOV_REG, WV_T_B64)) return set(o, WV_JK_MOV, WV_OP_MOV, WV_T_U64);
  if (in->fn == wv_h_mov(WV_MOV_REG, WV_T_B32)) return set(o, WV_JK_MOV, WV_OP_MOV, WV_T_U32);
  if (in->fn == wv_h_mov(WV_MOV_REG, WV_T_B16)) return set(o, WV_JK_MOV, WV_OP_MOV, WV_T_U16);
  int pack = in->fn == wv_h_mov(WV_MOV_PACK, WV_T_B64), unpack = in->fn == wv_h_mov(WV_MOV_UNPACK, WV_T_B64);
  if ((pack || unpack) && in->vec >= 2 && in->vec <= 4 && (in->imm == 1 || in->imm == 2 || in->imm == 4 || in->imm == 8) &&
      in->imm * in->vec <= 8) { /* (h_pack, h_unpack: element width in->imm bytes) */
    set(o, pack ? WV_JK_PACK : WV_JK_UNPACK, WV_OP_MOV, WV_T_NONE);
    o->bits = (uint8_t)(in->imm * 8);
    o->vec = in->vec;
    return 1;
  }
  wv_insn k = {0};
  if (in->fn == wv_h_cvt(WV_T_U64, WV_T_U32, &k)) return set(o, WV_JK_MOV, WV_OP_CVT, WV_T_U32);
  if (in->fn == wv_h_cvt(WV_T_U64, WV_T_S32, &k)) return set(o, WV_JK_MOV, WV_OP_CVT, WV_T_S32);
  if (in->op != WV_OP_CVT) return 0;
  static const wv_type INTS[8] = {WV_T_U8, WV_T_U16, WV_T_U32, WV_T_U64, WV_T_S8, WV_T_S16, WV_T_S32, WV_T_S64};
  for (int si = 0; si < 8; si++) {
    k.type2 = (uint8_t)INTS[si];
    k.rnd = WV_RND_NONE;
    for (int di = 0; di < 8; di++) { /* integer to integer: C's conversion (h_cvt.c GEN_I2I) */
      k.type = (uint8_t)INTS[di];
      if (in->fn != wv_h_cvt(INTS[di], INTS[si], &k)) continue;
      set(o, WV_JK_CVTI, WV_OP_CVT, INTS[si]);
      o->flt = (uint8_t)(wv_type_size(INTS[di]) * 8);
      o->neg = (uint8_t)wv_type_is_signed(INTS[di]);
      return 1;
    }
    k.rnd = WV_RND_RN;
    for (int f = 0; f < 2; f++) { /* integer to float, rounded to nearest (GEN_I2F) */
      wv_type ft = f ? WV_T_F64 : WV_T_F32;
      k.type = (uint8_t)ft;
      if (in->fn != wv_h_cvt(ft, INTS[si], &k)) continue;
      set(o, WV_JK_I2F, WV_OP_CVT, INTS[si]);
      o->flt = f ? 64 : 32;
      return 1;
    }
  }
  return 0;
}

/* setp: the handler of each (type, comparison); f32 reads .ftz itself (jop.ftz). */
static int select_setp(const wv_insn *in, wv_jop *o) {
  static const wv_type T[] = {WV_T_S16, WV_T_S32, WV_T_S64, WV_T_U16, WV_T_U32, WV_T_U64, WV_T_F32, WV_T_F64};
  wv_insn k = {0};
  if (in->fn == wv_h_setp(WV_OP_SELP, WV_T_NONE, &k)) return set(o, WV_JK_SELP, WV_OP_SELP, WV_T_NONE);
  for (size_t i = 0; i < sizeof T / sizeof *T; i++)
    for (int c = 0; c <= WV_CMP_NAN; c++) {
      k.type = (uint8_t)T[i];
      k.cmp = (uint8_t)c;
      if (in->fn != wv_h_setp(WV_OP_SETP, T[i], &k)) continue;
      int flt = T[i] == WV_T_F32 ? 32 : T[i] == WV_T_F64 ? 64 : 0;
      set(o, WV_JK_SETP, WV_OP_SETP, flt ? WV_T_NONE : T[i]);
      o->ftz = (uint8_t)(flt == 32 && in->ftz);
      o->flt = (uint8_t)flt;
      o->cmp = (uint8_t)c;
      return 1;
    }
  return 0;
}

/* f32 and f64 add/sub/mul/div/fma rounded to nearest without flags: the handlers that do exactly that whatever the
 * insn says; contract.c's fma with negations and neg/abs read the rounding and flags from the insn, so those must
 * be plain. */
static int select_float(const wv_insn *in, wv_jop *o) {
  static const int OPS[] = {WV_OP_ADD, WV_OP_SUB, WV_OP_MUL, WV_OP_DIV, WV_OP_FMA};
  for (int d = 0; d < 2; d++) {
    wv_type t = d ? WV_T_F64 : WV_T_F32;
    wv_insn k = {0};
    k.rnd = WV_RND_RN;
    for (int ftz = 0; ftz <= !d; ftz++) { /* (f32: the .ftz handlers too, but division's) */
      k.ftz = (uint8_t)ftz;
      for (size_t i = 0; i < sizeof OPS / sizeof *OPS; i++)
        if (in->fn == wv_h_float(OPS[i], t, &k) && !(ftz && OPS[i] == WV_OP_DIV)) {
          set(o, OPS[i] == WV_OP_FMA ? (d ? WV_JK_DFMA : WV_JK_FFMA) : d ? WV_JK_DBIN : WV_JK_FBIN, OPS[i], WV_T_NONE);
          o->ftz = (uint8_t)ftz;
          return 1;
        }
    }
    k.ftz = 0;
    for (int r = 0; r < 2; r++) /* rcp.rn and sqrt.rn, IEEE-rounded (h_float.c; .ftz has fpmath.c's tiny rule) */
      if (in->fn == wv_h_float(r ? WV_OP_SQRT : WV_OP_RCP, t, &k)) {
        set(o, WV_JK_FRS, r ? WV_OP_SQRT : WV_OP_RCP, WV_T_NONE);
        o->flt = d ? 64 : 32;
        return 1;
      }
    k.mode = WV_FM_NEGP;
    if (in->fn == wv_h_float(WV_OP_FMA, t, &k)) {
      if ((in->rnd != WV_RND_NONE && in->rnd != WV_RND_RN) || (d && in->ftz) || in->sat || (in->mode & ~(WV_FM_NEGP | WV_FM_NEGC)))
        return 0;
      set(o, d ? WV_JK_DFMA : WV_JK_FFMA, WV_OP_FMA, WV_T_NONE);
      o->neg = (uint8_t)(((in->mode & WV_FM_NEGP) ? 1 : 0) | ((in->mode & WV_FM_NEGC) ? 2 : 0));
      o->ftz = in->ftz;
      return 1;
    }
    k.mode = 0;
    if (in->fn == wv_h_float(WV_OP_NEG, t, &k) && (in->op == WV_OP_NEG || in->op == WV_OP_ABS) && !in->ftz && !in->sat) {
      set(o, WV_JK_FUN, in->op, WV_T_NONE);
      o->flt = d ? 64 : 32;
      return 1;
    }
  }
  return 0;
}

/* ld/st of one element of 1 to 8 bytes, in a space exec's warp-wide check knows (not .shared::cluster, not an
 * address relative to the frame's local depot); cvta; a shared-memory counter: atom/red.shared.add of a u32 or
 * s32 (h_atom's lane loop for it). */
static int select_mem(const wv_insn *in, wv_jop *o) {
  wv_insn k = {0};
  k.vec = 1;
  if (in->fn == wv_h_mem(WV_OP_CVTA, &k)) return set(o, WV_JK_CVTA, WV_OP_CVTA, WV_T_NONE);
  if (in->fn == wv_h_mem(WV_OP_ATOM, &k))
    return in->vec == 1 && in->mode == WV_ATOM_ADD && (in->type == WV_T_U32 || in->type == WV_T_S32) &&
           in->space == WV_SPACE_SHARED && !(in->addrf & WV_AF_LOCALBASE) && set(o, WV_JK_ATOM, in->op, (wv_type)in->type);
  int ld = in->fn == wv_h_mem(WV_OP_LD, &k), st = in->fn == wv_h_mem(WV_OP_ST, &k);
  if (!ld && !st) return 0;
  unsigned size = wv_type_size((wv_type)in->type);
  if ((in->vec != 1 && in->vec != 2 && in->vec != 4) || !size || size > 8 || size * in->vec > 16 ||
      (in->addrf & WV_AF_LOCALBASE) || in->space == WV_SPACE_CLUSTER)
    return 0;
  switch (in->space) {
  case WV_SPACE_GENERIC: case WV_SPACE_GLOBAL: case WV_SPACE_SHARED: case WV_SPACE_CONST: case WV_SPACE_KPARAM:
    break;
  default:
    return 0;
  }
  set(o, ld ? WV_JK_LD : WV_JK_ST, ld ? WV_OP_LD : WV_OP_ST, WV_T_NONE);
  o->bits = (uint8_t)(size * 8);
  o->sgn = (uint8_t)wv_type_is_signed((wv_type)in->type);
  o->vec = in->vec;
  return 1;
}

/* popc clz brev bfind of 32 or 64 bits (their handlers read the width, signedness and .shiftamt from the insn);
 * and/or/xor/not/mov of predicates. */
static int select_bits(const wv_insn *in, wv_jop *o) {
  static const int OPS[] = {WV_OP_POPC, WV_OP_CLZ, WV_OP_BREV, WV_OP_BFIND}, POPS[] = {WV_OP_AND, WV_OP_OR, WV_OP_XOR, WV_OP_NOT};
  for (size_t i = 0; i < sizeof OPS / sizeof *OPS; i++) {
    if (in->fn != wv_h_int(OPS[i], WV_V_NONE, WV_T_U32)) continue;
    unsigned size = wv_type_size((wv_type)in->type);
    if (size != 4 && size != 8) return 0;
    set(o, WV_JK_BITS, OPS[i], (wv_type)in->type);
    o->neg = (uint8_t)(OPS[i] == WV_OP_BFIND && in->mode);
    return 1;
  }
  for (size_t i = 0; i < sizeof POPS / sizeof *POPS; i++)
    if (in->fn == wv_h_int(POPS[i], WV_V_NONE, WV_T_PRED)) return set(o, WV_JK_PRED, POPS[i], WV_T_NONE);
  if (in->fn == wv_h_mov(WV_MOV_PRED, WV_T_PRED)) return set(o, WV_JK_PRED, WV_OP_MOV, WV_T_NONE);
  return 0;
}

int wv_jit_select(const wv_insn *in, wv_jop *o) {
  memset(o, 0, sizeof *o);
  /* shfl.sync: h_warp.c's fast path, which takes a converged group that is the whole warp (the code checks the
   * rest: wv_jit_shfl_ok, emit.c) */
  if (in->ctl == WV_CTL_COLL && in->op == WV_OP_SHFL && in->fn && in->fn == wv_h_coll(in) && in->nd <= 1 &&
      (in->d[0] == WV_NOSLOT || WV_SLOT_BANK(in->d[0]) == WV_SLOT_REG))
    return set(o, WV_JK_SHFL, WV_OP_SHFL, WV_T_NONE);
  if (in->ctl != WV_CTL_NONE || !in->fn) return 0;
  for (int i = 0; i < (int)in->nd && i < 4; i++) /* destinations are frame registers (or predicates) */
    if (in->d[i] != WV_NOSLOT && in->op != WV_OP_SETP && in->op != WV_OP_ST && WV_SLOT_BANK(in->d[i]) != WV_SLOT_REG)
      return 0;
  return select_int(in, o) || select_move(in, o) || select_setp(in, o) || select_float(in, o) || select_mem(in, o) ||
         select_bits(in, o);
}

/* (jit.h) */
int wv_jit_static(const wv_insn *code, uint32_t k, uint32_t slot, const uint64_t *consts, uint32_t nconsts, uint64_t *v) {
  if (slot == WV_NOSLOT) return 0;
  if (WV_SLOT_BANK(slot) == WV_SLOT_CONST) {
    if (WV_SLOT_INDEX(slot) >= nconsts) return 0;
    *v = consts[WV_SLOT_INDEX(slot)];
    return 1;
  }
  if (WV_SLOT_BANK(slot) != WV_SLOT_REG) return 0;
  for (uint32_t i = k; i-- > 0;) { /* the last write before k */
    const wv_insn *in = &code[i];
    wv_jop o;
    if (!wv_jit_select(in, &o)) return 0; /* (not in the run) */
    if (!wv_jop_dreg(&o) || !wv_jit_writes(in, slot)) continue;
    if (o.kind != WV_JK_MOV || in->guard >= 0 || in->a == WV_NOSLOT || WV_SLOT_BANK(in->a) != WV_SLOT_CONST ||
        WV_SLOT_INDEX(in->a) >= nconsts)
      return 0;
    uint64_t x = consts[WV_SLOT_INDEX(in->a)]; /* as emit.c's MOV: narrowed to bits, extended by sgn */
    if (o.bits < 64) {
      x &= (1ull << o.bits) - 1;
      if (o.sgn && (x >> (o.bits - 1) & 1)) x |= ~0ull << o.bits;
    }
    *v = x;
    return 1;
  }
  return 0;
}

int wv_jit_shfl_ok(const wv_insn *code, uint32_t k, const uint64_t *consts, uint32_t nconsts, uint32_t *b, uint32_t *c) {
  uint64_t vb, vc, mb;
  int ok = wv_jit_static(code, k, code[k].b, consts, nconsts, &vb) && wv_jit_static(code, k, code[k].c, consts, nconsts, &vc) &&
           wv_jit_static(code, k, code[k].e, consts, nconsts, &mb) && (uint32_t)mb == 0xffffffffu;
  if (ok) *b = (uint32_t)vb, *c = (uint32_t)vc;
  return ok;
}

/* Whether instruction e compiles in a run of f starting at pc (ok: wv_jit_select's answer): a shfl.sync only
 * where its operands are known there. */
static int in_run(const wv_func *f, const uint8_t *ok, uint32_t pc, uint32_t e) {
  uint32_t b, c;
  return ok[e] && (f->code[e].ctl != WV_CTL_COLL || wv_jit_shfl_ok(&f->code[pc], e - pc, f->consts, f->nconsts, &b, &c));
}

/* (jit.h) */
int wv_jit_shared_inline(const wv_insn *in) {
  return in->space == WV_SPACE_SHARED && (in->addrf & WV_AF_ADDR32) && (in->addrf & WV_AF_WRAP32) && in->imm > -(1 << 30) &&
         in->imm < (1 << 30);
}

/* (jit.h) */
int wv_jit_path_access(const wv_insn *in, const wv_jop *o) {
  return (o->kind == WV_JK_LD || o->kind == WV_JK_ST) && o->vec <= 1 && in->guard < 0 &&
         (in->space == WV_SPACE_GLOBAL || in->space == WV_SPACE_SHARED);
}

/* Whether instruction pc may stand on a branch's path in a region starting at start (wv_jit_branch): 0 no; 1
 * arithmetic, or a .shared load or store of one element checked at the entry (no guard, its address register
 * written by no instruction before it in the region); 2 a .global or .shared load or store of one element, no
 * guard, that checks itself there (wv_jit_branch: before any store of the paths). */
static int on_path(const wv_func *f, uint32_t start, uint32_t pc, const uint8_t *wreg) {
  const wv_insn *in = &f->code[pc];
  wv_jop o;
  if (!wv_jit_select(in, &o) || o.kind == WV_JK_ATOM || o.kind == WV_JK_SHFL || o.vec > 1) return 0;
  if (o.kind != WV_JK_LD && o.kind != WV_JK_ST) return 1;
  if (!wv_jit_path_access(in, &o)) return 0;
  if (!wv_jit_shared_inline(in)) return 2;
  for (uint32_t i = start; wreg && i < pc && in->a != WV_NOSLOT; i++)
    if (wreg[i] && wv_jit_writes(&f->code[i], in->a)) return 2;
  return 1;
}

/* One path of a branch (wv_jit_branch) from `from` to join: *r ranges, *n instructions. */
static int path(const wv_func *f, uint32_t start, const uint8_t *wreg, uint32_t from, uint32_t join, uint32_t lo[2],
                uint32_t hi[2], uint32_t *n) {
  uint32_t r = 0, pc = from;
  *n = 0;
  lo[0] = from;
  lo[1] = hi[1] = join;
  while (pc != join) {
    if (pc > join || ++*n > WV_JIT_BRANCH_MAX) return 0;
    const wv_insn *in = &f->code[pc];
    if (in->ctl == WV_CTL_BRA && in->guard < 0) { /* on to its target */
      hi[r++] = pc + 1;
      if (r == 2 || in->target <= pc || in->target > join) return 0;
      pc = lo[1] = in->target;
      continue;
    }
    if (!on_path(f, start, pc, wreg)) return 0;
    pc++;
  }
  hi[r] = join;
  return 1;
}

/* (jit.h) */
int wv_jit_branch(const wv_func *f, uint32_t start, uint32_t pc, const uint8_t *wreg, wv_jbranch *b) {
  const wv_insn *in = &f->code[pc];
  uint32_t j = in->rpc;
  if (in->ctl != WV_CTL_BRA || in->guard < 0 || j >= f->ncode || j <= pc || j - pc - 1 > WV_JIT_BRANCH_MAX ||
      in->target <= pc || in->target > j)
    return 0;
  b->join = j;
  if (!path(f, start, wreg, pc + 1, j, b->lo[0], b->hi[0], &b->n[0]) ||
      !path(f, start, wreg, in->target, j, b->lo[1], b->hi[1], &b->n[1]))
    return 0;
  uint8_t seen[WV_JIT_BRANCH_MAX] = {0}; /* the paths are the instructions between, each once */
  int stored = 0; /* in the order they run (the fall-through path first): an access that checks itself comes before
                   * any store, so that where its check fails nothing has changed and the branch can run again in
                   * the interpreter (emit.c emit_branch) */
  for (int p = 0; p < 2; p++)
    for (int r = 0; r < 2; r++)
      for (uint32_t i = b->lo[p][r]; i < b->hi[p][r]; i++) {
        if (seen[i - pc - 1]++) return 0;
        const wv_insn *ii = &f->code[i];
        if (ii->ctl == WV_CTL_BRA) continue;
        if (stored && on_path(f, start, i, wreg) == 2) return 0;
        wv_jop o;
        stored |= wv_jit_select(ii, &o) && o.kind == WV_JK_ST;
      }
  return b->n[0] + b->n[1] == j - pc - 1;
}

/* (jit.h) */
int wv_jit_guard(const wv_func *f, uint32_t start, uint32_t pc) {
  const wv_insn *in = &f->code[pc];
  wv_jbranch b;
  if (in->ctl != WV_CTL_BRA || in->guard < 0 || in->target >= f->ncode || pc + 1 >= f->ncode) return 0;
  const wv_insn *t = &f->code[in->target];
  return (t->ctl == WV_CTL_RET || t->ctl == WV_CTL_EXIT) && t->guard < 0 && !wv_jit_branch(f, start, pc, NULL, &b);
}

/* Whether the branch at e holds in a region (wv_jit_branch): no other branch reaches a place between it and its
 * join, and none meets there (ntgt: the branches that reach each place, nrpc: the branches that meet there).
 * *through: whether the region may go on at the join too (only the branch's own paths reach it, and only it
 * meets there). */
static int holds(const wv_func *f, const uint8_t *ntgt, const uint8_t *nrpc, const uint8_t *wreg, uint32_t start, uint32_t e,
                 wv_jbranch *b, int *through) {
  if (!wv_jit_branch(f, start, e, wreg, b)) return 0;
  uint8_t own[WV_JIT_BRANCH_MAX + 1] = {0}; /* the branch's and its paths' bras reaching each place */
  for (uint32_t i = e; i < b->join; i++)
    if (f->code[i].ctl == WV_CTL_BRA) own[f->code[i].target - e - 1]++;
  for (uint32_t i = e + 1; i < b->join; i++)
    if (ntgt[i] != own[i - e - 1] || nrpc[i]) return 0;
  *through = ntgt[b->join] == own[b->join - e - 1] && nrpc[b->join] == 1;
  return 1;
}

/* (jit.h) Leaders: the first instruction, branch targets, reconvergence points, every instruction after a
 * control instruction (but a collective: it goes on to the next). A run that meets a branch it can hold
 * (holds) takes in its paths and ends at its join, or goes on there where only they reach it. */
uint32_t wv_jit_regions(const wv_func *f, uint32_t min, uint16_t *len) {
  uint32_t n = f->ncode, count = 0;
  uint8_t *lead = calloc(n + 1, 1), *ok = calloc(n + 1, 1), *ntgt = calloc(n + 1, 1), *nrpc = calloc(n + 1, 1);
  uint8_t *wreg = malloc(n + 1);
  if (!lead || !ok || !ntgt || !nrpc || !wreg) {
    free(lead);
    free(ok);
    free(ntgt);
    free(nrpc);
    free(wreg);
    return 0;
  }
  memset(len, 0, n * sizeof *len);
  if (n) lead[0] = 1;
  for (uint32_t pc = 0; pc < n; pc++) {
    const wv_insn *in = &f->code[pc];
    wv_jop o;
    ok[pc] = (uint8_t)wv_jit_select(in, &o);
    wreg[pc] = ok[pc] && wv_jop_dreg(&o);
    if (in->ctl != WV_CTL_NONE && in->ctl != WV_CTL_COLL) {
      lead[pc + 1] = 1;
      if (in->ctl == WV_CTL_BRA && in->target < n) lead[in->target] = 1, ntgt[in->target] += ntgt[in->target] < 255;
    }
    if (in->rpc < n) lead[in->rpc] = 1, nrpc[in->rpc] += nrpc[in->rpc] < 255;
  }
  for (uint32_t pc = 0; pc < n;) {
    if (!in_run(f, ok, pc, pc)) { pc++; continue; }
    uint32_t e = pc + 1, through = n, again = 0; /* again: past a guard, where the next region starts */
    for (;;) {
      while (e < n && (!lead[e] || e == through) && e - pc < 512 && in_run(f, ok, pc, e)) e++;
      wv_jbranch b;
      int on;
      if (e >= n || (lead[e] && e != through)) break;
      if (!again && !nrpc[e + 1] && e + 1 - pc < 512 && wv_jit_guard(f, pc, e) && in_run(f, ok, pc, e + 1)) {
        again = through = ++e; /* (the way on only: where a lane takes it, the region stops before it) */
        continue;
      }
      if (!holds(f, ntgt, nrpc, wreg, pc, e, &b, &on) || b.join - pc >= 512) break;
      e = b.join;
      if (!on) break;
      through = e;
    }
    wv_jop o;
    int mem = wv_jit_select(&f->code[pc], &o) && (o.kind == WV_JK_LD || o.kind == WV_JK_ST || o.kind == WV_JK_ATOM);
    if (e - pc >= min || mem) { /* (a lone load or store too: compiled, it beats its handler) */
      len[pc] = (uint16_t)(e - pc);
      count++;
    }
    pc = again ? again : e; /* (the lanes that go on where the guard split a warp start there) */
  }
  free(lead);
  free(ok);
  free(ntgt);
  free(nrpc);
  free(wreg);
  return count;
}
