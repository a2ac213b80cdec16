/*
 * emit.c — one region as an LLVM function `i32 region(ptr x, i32 mask)` (exec/jit_hook.h). Each PTX
 * register is its 32 lanes as one <32 x i64> SSA value, loaded from the register file at its first use (an
 * immediate is a constant, folded in) and stored back, whole, before each memory instruction's check and at
 * the exit; a predicate is its i32 lane mask. Every instruction runs on its active lanes (mask & its guard, as
 * sched.c's group_loop computes them): the new value of a destination is select(active, result, old). A memory
 * instruction first passes exec's warp-wide check (jit_rt.c wv_jit_mem, or the same test for .shared inline)
 * and, when it fails or no lane is active, the function returns its index before any effect of it: the
 * interpreter runs it. The arithmetic is
 * that of the handler select.c recognised (h_int.c, h_setp.c, h_float.c, h_mov.c, h_cvt.c, h_mem.c),
 * in the same widths; f32 NaN results are the canonical NaN. A forward branch the region holds (select.c
 * wv_jit_branch) runs both its paths, each instruction for the lanes on its path (emit_branch).
 */
#ifdef WV_HAVE_LLVM
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "exec/handlers.h"
#include "jit/emit.h"

const char wv_jit_emit_build[] = __DATE__ " " __TIME__;

typedef struct rval {
  uint32_t slot;
  LLVMValueRef v;   /* the 32 lanes as stored, <32 x i64> */
  LLVMValueRef v32; /* their low 32 bits, <32 x i32>, where known without narrowing v (regn) */
  int dirty;
} rval;

#define NCOUNTERS 8 /* COUNTERS: the memory counters (counter()), then collectives and atomics */
#define C_COLL 6
#define C_ATOM 7
typedef struct em {
  LLVMContextRef c;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMValueRef fn, x, mask;
  LLVMValueRef bank[3], preds_p, out; /* the banks' and predicates' base pointers; wv_jit_mem's out[2] */
  LLVMTypeRef i1, i8, i16, i32, i64, f32, f64, ptr, v64, vptr, vi1;
  rval *regs;
  uint32_t nregs, capregs;
  LLVMValueRef *pv;  /* predicate values, NULL: not loaded */
  uint8_t *pdirty;
  uint32_t npreds;
  LLVMValueRef lane, lane32;  /* <0..31> as i64, i32 */
  LLVMValueRef shared, shared_size, async_pending; /* the CTA's, loaded at the entry */
  uint32_t counts[NCOUNTERS]; /* per COUNTERS: added so far, stored at the exit and at a bail-out */
  uint32_t pc;        /* the region's first instruction */
  const uint64_t *live; /* wv_jit_live's table (words per instruction), NULL: every register is live */
  const uint64_t *consts; /* the function's immediates (the constant bank's lanes all hold them): folded in */
  uint32_t nconsts;
  uint32_t words;
  const uint8_t *early; /* per instruction of the region: a .shared access or shfl checked at the entry (checked_early) */
  const wv_insn *code;  /* the region's instructions */
  const wv_func *f;
  int guarded;          /* the instruction being emitted has a guard, or is on one path of a branch (pmask) */
  LLVMValueRef pmask;   /* the lanes on the path being emitted: mask but on a branch's path */
  uint32_t bpc;         /* on a path: the branch's pc */
  const uint32_t *other; /* on a path: the registers the other path writes (nother) */
  uint32_t nother;
} em;

static const size_t COUNTERS[NCOUNTERS] = {offsetof(wv_exec, n_gld), offsetof(wv_exec, n_gst), offsetof(wv_exec, n_lld),
                                           offsetof(wv_exec, n_lst), offsetof(wv_exec, n_sld), offsetof(wv_exec, n_sst),
                                           offsetof(wv_exec, n_coll), offsetof(wv_exec, n_atom)};

static LLVMValueRef cint(LLVMTypeRef t, uint64_t v) { return LLVMConstInt(t, v, 0); }
static LLVMTypeRef vec(LLVMTypeRef t) { return LLVMVectorType(t, WV_WARP); }
static LLVMValueRef splat(em *e, LLVMTypeRef t, uint64_t v) {
  (void)e;
  LLVMValueRef el[WV_WARP];
  for (int i = 0; i < WV_WARP; i++) el[i] = cint(t, v);
  return LLVMConstVector(el, WV_WARP);
}
/* A scalar repeated in the 32 lanes. */
static LLVMValueRef broadcast(em *e, LLVMValueRef s) {
  LLVMTypeRef vt = vec(LLVMTypeOf(s));
  LLVMValueRef v = LLVMBuildInsertElement(e->b, LLVMGetUndef(vt), s, cint(e->i32, 0), "");
  return LLVMBuildShuffleVector(e->b, v, LLVMGetUndef(vt), LLVMConstNull(vec(e->i32)), "");
}
static LLVMTypeRef ity(em *e, unsigned bits) {
  return bits == 8 ? e->i8 : bits == 16 ? e->i16 : bits == 32 ? e->i32 : e->i64;
}
static LLVMValueRef field(em *e, size_t off) { /* x + off */
  LLVMValueRef idx = cint(e->i64, off);
  return LLVMBuildGEP2(e->b, e->i8, e->x, &idx, 1, "");
}

/* x->FIELD += v (an i32 or i64 counter of wv_exec) */
static void add_field(em *e, size_t off, LLVMTypeRef t, LLVMValueRef v) {
  LLVMValueRef p = field(e, off);
  LLVMBuildStore(e->b, LLVMBuildAdd(e->b, LLVMBuildLoad2(e->b, t, p, ""), v, ""), p);
}

/* ---- intrinsics ---- */
static LLVMValueRef intrinsic(em *e, const char *name, LLVMTypeRef *tys, size_t nty, LLVMValueRef *args, unsigned nargs) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(e->mod, id, tys, nty);
  LLVMTypeRef ft = LLVMIntrinsicGetType(e->c, id, tys, nty);
  return LLVMBuildCall2(e->b, ft, f, args, nargs, "");
}

/* A variable of type t in the function's frame (made in the entry block, as LLVM's passes want them). */
static LLVMValueRef entry_alloca(em *e, LLVMTypeRef t) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(e->c);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(e->fn);
  LLVMValueRef first = LLVMGetFirstInstruction(entry);
  if (first) LLVMPositionBuilderBefore(b, first);
  else LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef v = LLVMBuildAlloca(b, t, "");
  LLVMSetAlignment(v, 64); /* (vectors are stored whole) */
  LLVMDisposeBuilder(b);
  return v;
}

/* ---- registers and predicates ---- */
static rval *find(em *e, uint32_t slot) {
  for (uint32_t i = 0; i < e->nregs; i++)
    if (e->regs[i].slot == slot) return &e->regs[i];
  return NULL;
}
/* A register's entry (regs has room for every slot a region names: 4 per instruction, wv_jit_emit_region). */
static rval *add(em *e, uint32_t slot) {
  rval *r = &e->regs[e->nregs++];
  *r = (rval){.slot = slot};
  return r;
}
static LLVMValueRef reg(em *e, uint32_t slot) {
  rval *r = find(e, slot);
  if (r) return r->v;
  if (WV_SLOT_BANK(slot) == WV_SLOT_CONST && WV_SLOT_INDEX(slot) < e->nconsts) /* an immediate: a constant */
    return (add(e, slot)->v = splat(e, e->i64, e->consts[WV_SLOT_INDEX(slot)]));
  LLVMValueRef idx = cint(e->i64, (uint64_t)WV_SLOT_INDEX(slot) * WV_WARP);
  LLVMValueRef p = LLVMBuildGEP2(e->b, e->i64, e->bank[WV_SLOT_BANK(slot)], &idx, 1, "");
  LLVMValueRef v = LLVMBuildLoad2(e->b, e->v64, p, "");
  LLVMSetAlignment(v, 8);
  add(e, slot)->v = v;
  return v;
}
/* A register's lanes at a width (the low bits): at 32 bits those kept when it was written, else v narrowed (kept). */
static LLVMValueRef regn(em *e, uint32_t slot, unsigned bits) {
  LLVMValueRef v = reg(e, slot);
  if (bits != 32) return bits == 64 ? v : LLVMBuildTrunc(e->b, v, vec(ity(e, bits)), "");
  rval *r = find(e, slot);
  if (!r->v32) r->v32 = LLVMBuildTrunc(e->b, v, vec(e->i32), "");
  return r->v32;
}
/* A register's low 32 bits as f32 lanes. */
static LLVMValueRef as_f32(em *e, uint32_t slot) { return LLVMBuildBitCast(e->b, regn(e, slot, 32), vec(e->f32), ""); }
/* d's lanes m (<32 x i1>) become v. Only the group's lanes (the region's mask) are ever stored (flush), so
 * an instruction without a guard, whose m is that mask, takes v whole, and its old value need not be loaded. */
static void setreg(em *e, uint32_t slot, LLVMValueRef m, LLVMValueRef v) {
  if (slot == WV_NOSLOT) return;
  LLVMValueRef n32 = NULL, op; /* v as a result of 32 bits extended: those bits (regn) */
  if ((LLVMIsAZExtInst(v) || LLVMIsASExtInst(v)) && LLVMTypeOf(op = LLVMGetOperand(v, 0)) == vec(e->i32)) n32 = op;
  rval *r = find(e, slot);
  if (e->guarded) { /* select where the low bits are what is read next: a merge of 32-bit lanes, not of 64 */
    reg(e, slot);
    LLVMValueRef old32 = n32 ? regn(e, slot, 32) : NULL;
    r = find(e, slot);
    r->v = LLVMBuildSelect(e->b, m, v, r->v, "");
    r->v32 = n32 ? LLVMBuildSelect(e->b, m, n32, old32, "") : NULL;
  } else {
    if (!r) r = add(e, slot);
    r->v = v;
    r->v32 = n32;
  }
  r->dirty = 1;
}
static LLVMValueRef pred(em *e, uint32_t i) {
  if (!e->pv[i]) {
    LLVMValueRef idx = cint(e->i64, i);
    LLVMValueRef p = LLVMBuildGEP2(e->b, e->i32, e->preds_p, &idx, 1, "");
    e->pv[i] = LLVMBuildLoad2(e->b, e->i32, p, "");
  }
  return e->pv[i];
}
static void setpred(em *e, uint32_t i, LLVMValueRef m32, LLVMValueRef t) { /* P = (P & ~m) | (t & m) */
  LLVMValueRef old = pred(e, i);
  LLVMValueRef keep = LLVMBuildAnd(e->b, old, LLVMBuildNot(e->b, m32, ""), "");
  e->pv[i] = LLVMBuildOr(e->b, keep, LLVMBuildAnd(e->b, t, m32, ""), "");
  e->pdirty[i] = 1;
}
/* Whether register slot s is live before instruction pc (live.c; unknown: live). */
static int live_at(const em *e, uint32_t pc, uint32_t s) {
  uint32_t r = WV_SLOT_INDEX(s);
  return !e->live || WV_SLOT_BANK(s) != WV_SLOT_REG || (e->live[(size_t)pc * e->words + r / 64] >> (r % 64) & 1);
}

/* Register entry i back to its bank: all 32 lanes, or (masked) the group's. */
static void store_reg(em *e, uint32_t i, int masked) {
  LLVMValueRef idx = cint(e->i64, (uint64_t)WV_SLOT_INDEX(e->regs[i].slot) * WV_WARP);
  LLVMValueRef p = LLVMBuildGEP2(e->b, e->i64, e->bank[WV_SLOT_BANK(e->regs[i].slot)], &idx, 1, "");
  if (!masked) {
    LLVMSetAlignment(LLVMBuildStore(e->b, e->regs[i].v, p), 8);
    return;
  }
  LLVMTypeRef tv[] = {e->v64, e->ptr};
  intrinsic(e, "llvm.masked.store", tv, 2, (LLVMValueRef[]){e->regs[i].v, p, cint(e->i32, 8), LLVMBuildBitCast(e->b, e->mask, e->vi1, "")}, 4);
}

/* Store every changed register that is live at instruction `at` (the one the interpreter runs next) and every
 * changed predicate back, and add the memory counters (at the exit and before a bail-out). A dead register's
 * value is dropped: no path from `at` reads it before writing it (live.c), so it stays dead to the region's
 * end unless written again, which makes it changed again. */
static void flush(em *e, uint32_t at) {
  for (int c = 0; c < NCOUNTERS; c++) {
    if (!e->counts[c]) continue;
    LLVMValueRef cp = field(e, COUNTERS[c]);
    LLVMBuildStore(e->b, LLVMBuildAdd(e->b, LLVMBuildLoad2(e->b, e->i64, cp, ""), cint(e->i64, e->counts[c]), ""), cp);
    e->counts[c] = 0;
  }
  /* the group's lanes: others hold what other paths left; a plain store where the group is the whole warp */
  uint32_t *st = malloc((e->nregs + 1) * sizeof *st), nst = 0;
  for (uint32_t i = 0; i < e->nregs; i++) {
    if (!e->regs[i].dirty) continue;
    uint32_t s = e->regs[i].slot;
    e->regs[i].dirty = 0;
    if (!live_at(e, at, s)) continue;
    if (st) st[nst++] = i;
    else store_reg(e, i, 1); /* (out of memory: each masked) */
  }
  if (nst) {
    LLVMBasicBlockRef whole = LLVMAppendBasicBlockInContext(e->c, e->fn, "whole"), part = LLVMAppendBasicBlockInContext(e->c, e->fn, "part");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->fn, "stored");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, e->mask, cint(e->i32, 0xffffffffu), ""), whole, part);
    for (int w = 0; w < 2; w++) {
      LLVMPositionBuilderAtEnd(e->b, w ? part : whole);
      for (uint32_t j = 0; j < nst; j++) store_reg(e, st[j], w);
      LLVMBuildBr(e->b, done);
    }
    LLVMPositionBuilderAtEnd(e->b, done);
  }
  free(st);
  for (uint32_t i = 0; i < e->npreds; i++) {
    if (!e->pdirty[i]) continue;
    LLVMValueRef idx = cint(e->i64, i);
    LLVMBuildStore(e->b, e->pv[i], LLVMBuildGEP2(e->b, e->i32, e->preds_p, &idx, 1, ""));
    e->pdirty[i] = 0;
  }
}
/* if (cond) return k, with the state as it was before instruction k: what changed is stored first, on the way
 * (so no value has to live on for a bail-out, and each is stored once), and the bail-out only returns. */
static void bail_if(em *e, LLVMValueRef cond, uint32_t k) {
  flush(e, e->pc + k);
  LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(e->c, e->fn, "bail");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(e->c, e->fn, "go");
  LLVMBuildCondBr(e->b, cond, out, go);
  LLVMPositionBuilderAtEnd(e->b, out);
  LLVMBuildRet(e->b, cint(e->i32, k));
  LLVMPositionBuilderAtEnd(e->b, go);
}

/* ---- value helpers: a register's lanes at a width, and back to the 64-bit storage form ---- */
static LLVMValueRef narrow(em *e, LLVMValueRef v, unsigned bits) {
  return bits == 64 ? v : LLVMBuildTrunc(e->b, v, vec(ity(e, bits)), "");
}
static LLVMValueRef widen(em *e, LLVMValueRef v, unsigned bits, int sgn) {
  if (bits == 64) return v;
  return sgn ? LLVMBuildSExt(e->b, v, e->v64, "") : LLVMBuildZExt(e->b, v, e->v64, "");
}

/* An f32 result as the handlers store it: NaN → the canonical 0x7fffffff, zero-extended. */
static LLVMValueRef from_f32(em *e, LLVMValueRef f) {
  LLVMValueRef bits = LLVMBuildBitCast(e->b, f, vec(e->i32), "");
  LLVMValueRef nan = LLVMBuildFCmp(e->b, LLVMRealUNO, f, f, "");
  bits = LLVMBuildSelect(e->b, nan, splat(e, e->i32, 0x7fffffffu), bits, "");
  return LLVMBuildZExt(e->b, bits, e->v64, "");
}

/* ---- instructions ---- */
static LLVMValueRef ibin(em *e, const wv_insn *in, const wv_jop *o) {
  unsigned w = o->bits;
  LLVMTypeRef vt = vec(ity(e, w));
  LLVMValueRef a = regn(e, in->a, w), b = regn(e, in->b, w), r;
  switch (o->op) {
  case WV_OP_ADD: r = LLVMBuildAdd(e->b, a, b, ""); break;
  case WV_OP_SUB: r = LLVMBuildSub(e->b, a, b, ""); break;
  case WV_OP_MUL: r = LLVMBuildMul(e->b, a, b, ""); break;
  case WV_OP_AND: r = LLVMBuildAnd(e->b, a, b, ""); break;
  case WV_OP_OR: r = LLVMBuildOr(e->b, a, b, ""); break;
  case WV_OP_XOR: r = LLVMBuildXor(e->b, a, b, ""); break;
  case WV_OP_MIN: case WV_OP_MAX: {
    LLVMIntPredicate p = o->op == WV_OP_MIN ? (o->sgn ? LLVMIntSLT : LLVMIntULT) : (o->sgn ? LLVMIntSGT : LLVMIntUGT);
    r = LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, p, a, b, ""), a, b, "");
    break;
  }
  default: { /* shl/shr: the amount is b's low 32 bits, unsigned; past the width 0 (shr.s: the sign fill) */
    LLVMValueRef sh = regn(e, in->b, 32);
    LLVMValueRef big = LLVMBuildICmp(e->b, LLVMIntUGE, sh, splat(e, e->i32, w), "");
    if (o->op == WV_OP_SHR && o->sgn) {
      LLVMValueRef amt = LLVMBuildSelect(e->b, big, splat(e, e->i32, w - 1), sh, "");
      amt = w == 64 ? LLVMBuildZExt(e->b, amt, vt, "") : w < 32 ? LLVMBuildTrunc(e->b, amt, vt, "") : amt;
      r = LLVMBuildAShr(e->b, a, amt, "");
    } else {
      LLVMValueRef amt = LLVMBuildSelect(e->b, big, splat(e, e->i32, 0), sh, "");
      amt = w == 64 ? LLVMBuildZExt(e->b, amt, vt, "") : w < 32 ? LLVMBuildTrunc(e->b, amt, vt, "") : amt;
      r = o->op == WV_OP_SHL ? LLVMBuildShl(e->b, a, amt, "") : LLVMBuildLShr(e->b, a, amt, "");
      r = LLVMBuildSelect(e->b, big, LLVMConstNull(vt), r, "");
    }
  }
  }
  return widen(e, r, w, o->sgn);
}

static LLVMValueRef setp_cmp(em *e, const wv_insn *in, const wv_jop *o) {
  if (o->flt) {
    static const LLVMRealPredicate FP[] = {
        [WV_CMP_EQ] = LLVMRealOEQ,  [WV_CMP_NE] = LLVMRealONE,  [WV_CMP_LT] = LLVMRealOLT,  [WV_CMP_LE] = LLVMRealOLE,
        [WV_CMP_GT] = LLVMRealOGT,  [WV_CMP_GE] = LLVMRealOGE,  [WV_CMP_EQU] = LLVMRealUEQ, [WV_CMP_NEU] = LLVMRealUNE,
        [WV_CMP_LTU] = LLVMRealULT, [WV_CMP_LEU] = LLVMRealULE, [WV_CMP_GTU] = LLVMRealUGT, [WV_CMP_GEU] = LLVMRealUGE,
        [WV_CMP_NUM] = LLVMRealORD, [WV_CMP_NAN] = LLVMRealUNO};
    LLVMValueRef a, b;
    if (o->flt == 32) a = as_f32(e, in->a), b = as_f32(e, in->b);
    else a = LLVMBuildBitCast(e->b, reg(e, in->a), vec(e->f64), ""), b = LLVMBuildBitCast(e->b, reg(e, in->b), vec(e->f64), "");
    return LLVMBuildFCmp(e->b, FP[o->cmp], a, b, "");
  }
  static const LLVMIntPredicate S[] = {[WV_CMP_EQ] = LLVMIntEQ, [WV_CMP_NE] = LLVMIntNE, [WV_CMP_LT] = LLVMIntSLT,
                                       [WV_CMP_LE] = LLVMIntSLE, [WV_CMP_GT] = LLVMIntSGT, [WV_CMP_GE] = LLVMIntSGE};
  static const LLVMIntPredicate U[] = {[WV_CMP_EQ] = LLVMIntEQ,  [WV_CMP_NE] = LLVMIntNE,  [WV_CMP_LT] = LLVMIntULT,
                                       [WV_CMP_LE] = LLVMIntULE, [WV_CMP_GT] = LLVMIntUGT, [WV_CMP_GE] = LLVMIntUGE,
                                       [WV_CMP_LO] = LLVMIntULT, [WV_CMP_LS] = LLVMIntULE, [WV_CMP_HI] = LLVMIntUGT,
                                       [WV_CMP_HS] = LLVMIntUGE};
  LLVMValueRef a = regn(e, in->a, o->bits), b = regn(e, in->b, o->bits);
  return LLVMBuildICmp(e->b, o->sgn ? S[o->cmp] : U[o->cmp], a, b, "");
}

/* setp's .BOOL c (handlers.h wv_setp_bool). */
static LLVMValueRef setp_bool(em *e, const wv_insn *in, LLVMValueRef v, LLVMValueRef c) {
  if (!in->boolop) return v;
  return in->boolop == WV_BOOL_AND ? LLVMBuildAnd(e->b, v, c, "") : in->boolop == WV_BOOL_OR ? LLVMBuildOr(e->b, v, c, "")
                                                                                              : LLVMBuildXor(e->b, v, c, "");
}

static void emit_setp(em *e, const wv_insn *in, const wv_jop *o, LLVMValueRef m32) {
  LLVMValueRef r = LLVMBuildBitCast(e->b, setp_cmp(e, in, o), e->i32, "");
  r = LLVMBuildAnd(e->b, r, m32, "");
  LLVMValueRef u = LLVMBuildNot(e->b, r, ""), c = NULL;
  if (in->boolop) {
    c = pred(e, in->c);
    if (in->neg_c) c = LLVMBuildNot(e->b, c, "");
  }
  LLVMValueRef t = setp_bool(e, in, r, c);
  u = setp_bool(e, in, u, c);
  if (in->d[0] != WV_NOSLOT) setpred(e, in->d[0], m32, t);
  if (in->pd >= 0) setpred(e, (uint32_t)in->pd, m32, u);
}

/* Which of COUNTERS an access counts in (the interpreter's wv_mem_counter), -1 none. */
static int counter(int space, int st) {
  size_t off = wv_mem_counter(space, st);
  for (int c = 0; c < C_COLL; c++)
    if (COUNTERS[c] == off) return c;
  return -1;
}

/* The active lanes' lowest and highest value of base and the OR of all, reduced at 32 bits where w32 (GVN shares
 * them between the accesses through one register). */
static void reduce_addrs(em *e, LLVMValueRef a, LLVMValueRef mv, int w32, LLVMValueRef *lo, LLVMValueRef *hi,
                         LLVMValueRef *bits) {
  LLVMTypeRef t = w32 ? e->i32 : e->i64, rt[1] = {vec(t)};
  if (w32) a = narrow(e, a, 32);
  LLVMValueRef l = LLVMBuildSelect(e->b, mv, a, splat(e, t, ~0ull), "");
  LLVMValueRef h = LLVMBuildSelect(e->b, mv, a, LLVMConstNull(vec(t)), "");
  *lo = intrinsic(e, "llvm.vector.reduce.umin", rt, 1, &l, 1);
  *hi = intrinsic(e, "llvm.vector.reduce.umax", rt, 1, &h, 1);
  *bits = intrinsic(e, "llvm.vector.reduce.or", rt, 1, &h, 1);
  if (w32) {
    *lo = LLVMBuildZExt(e->b, *lo, e->i64, "");
    *hi = LLVMBuildZExt(e->b, *hi, e->i64, "");
    *bits = LLVMBuildZExt(e->b, *bits, e->i64, "");
  }
}

/* A .shared access: wv_warp_region_at's test for the space (host = the CTA's shared bytes, abase 0, no stride),
 * from the base register's extremes r_lo, r_hi and OR r_or: every lane's r + off lies in [r_lo + off, r_hi + off]
 * when that does not pass 2^32, and is aligned when r_or | off is. Only where this proves the exact test true
 * does the access go ahead (a load not at all while a cp.async of the CTA is pending); else the interpreter
 * runs it. */
static LLVMValueRef shared_bad(em *e, LLVMValueRef r_lo, LLVMValueRef r_hi, LLVMValueRef r_or, uint64_t off,
                               unsigned bytes, int st) {
  LLVMValueRef lo = LLVMBuildAdd(e->b, r_lo, cint(e->i64, off), ""), hi = LLVMBuildAdd(e->b, r_hi, cint(e->i64, off), "");
  LLVMValueRef bad = LLVMBuildICmp(e->b, LLVMIntNE, LLVMBuildAnd(e->b, LLVMBuildOr(e->b, r_or, cint(e->i64, off), ""),
                                                                cint(e->i64, bytes - 1), ""), cint(e->i64, 0), "");
  bad = LLVMBuildOr(e->b, bad, LLVMBuildICmp(e->b, LLVMIntUGT, hi, cint(e->i64, 0xffffffffu), ""), "");
  bad = LLVMBuildOr(e->b, bad, LLVMBuildICmp(e->b, LLVMIntULT, lo, cint(e->i64, WV_SHARED_BASE), ""), "");
  bad = LLVMBuildOr(e->b, bad, LLVMBuildICmp(e->b, LLVMIntUGT, LLVMBuildAdd(e->b, hi, cint(e->i64, bytes), ""),
                                             e->shared_size, ""), "");
  if (!st) bad = LLVMBuildOr(e->b, bad, LLVMBuildICmp(e->b, LLVMIntNE, e->async_pending, cint(e->i32, 0), ""), "");
  return bad;
}

/* Lanes lo .. lo + n - 1 of v. */
static LLVMValueRef lanes(em *e, LLVMValueRef v, unsigned lo, unsigned n) {
  LLVMValueRef idx[WV_WARP];
  for (unsigned i = 0; i < n; i++) idx[i] = cint(e->i32, lo + i);
  return LLVMBuildShuffleVector(e->b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(idx, n), "");
}
/* Whether the active lanes (m) of v hold one value, and (*lo) that value. */
static LLVMValueRef same(em *e, LLVMValueRef v, LLVMValueRef m, LLVMValueRef *lo) {
  LLVMTypeRef vt = LLVMTypeOf(v);
  unsigned n = LLVMGetVectorSize(vt);
  LLVMTypeRef it = LLVMIntTypeInContext(e->c, n);
  /* the first active lane's value (any lane's without one: then the test holds and nothing is accessed) ... */
  LLVMValueRef mi = LLVMBuildBitCast(e->b, m, it, ""), args[] = {mi, LLVMConstInt(e->i1, 0, 0)};
  LLVMValueRef first = LLVMBuildAnd(e->b, intrinsic(e, "llvm.cttz", &it, 1, args, 2), LLVMConstInt(it, n - 1, 0), "");
  *lo = LLVMBuildExtractElement(e->b, v, first, "");
  /* ... equal in every active lane: one compare, no reduction */
  LLVMValueRef s = LLVMBuildInsertElement(e->b, LLVMGetUndef(vt), *lo, cint(e->i32, 0), "");
  s = LLVMBuildShuffleVector(e->b, s, LLVMGetUndef(vt), LLVMConstNull(LLVMVectorType(e->i32, n)), "");
  LLVMValueRef eq = LLVMBuildOr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, v, s, ""), LLVMBuildNot(e->b, m, ""), "");
  return LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildBitCast(e->b, eq, it, ""), LLVMConstAllOnes(it), "");
}

#define HALF (WV_WARP / 2)
/* The lanes' accesses at ptrs (for .shared, <32 x i32> offsets from host), a half-warp (16 lanes, a 512-bit
 * vector of 32-bit elements) at a time, lanes in order: where the half's active lanes' elements are consecutive (a row) one masked vector load or store; a load
 * where they all read one element (a broadcast), one load; else a gather or scatter (of two stores to one
 * address the higher lane's stays, as in the interpreter's lane loop). Masked-off lanes touch no memory. The
 * tests are on the address register itself (lane l's address is base[l] + off + l * stride, off and stride the
 * same for all lanes), so accesses through one register share them: a row when base[l] - (l % 16) * size is the
 * same for the half's active lanes and stride is 0, its first element at that + off; a broadcast when base[l]
 * is. */
static void access(em *e, const wv_insn *in, const wv_jop *o, LLVMValueRef mv, LLVMValueRef ptrs, LLVMValueRef base,
                   LLVMValueRef stride, LLVMValueRef host, uint64_t off) {
  int st = o->kind == WV_JK_ST, w32 = LLVMGetElementType(LLVMTypeOf(base)) == e->i32;
  unsigned bytes = o->bits / 8;
  LLVMTypeRef el = ity(e, o->bits), et = LLVMVectorType(el, HALF), bt = w32 ? e->i32 : e->i64, hvp = LLVMVectorType(e->ptr, HALF);
  LLVMValueRef sv = st ? regn(e, in->d[0], o->bits) : NULL; /* (loaded before the branches) */
  LLVMValueRef step[HALF];
  for (unsigned l = 0; l < HALF; l++) step[l] = cint(bt, (uint64_t)l * bytes);
  LLVMValueRef steps = LLVMConstVector(step, HALF), bytes32 = cint(e->i32, bytes), part[2];
  LLVMValueRef unit = stride ? LLVMBuildICmp(e->b, LLVMIntEQ, stride, cint(e->i64, 0), "") : NULL;
  for (unsigned h = 0; h < 2; h++) {
    LLVMValueRef bh = lanes(e, base, h * HALF, HALF), mh = lanes(e, mv, h * HALF, HALF), ph = lanes(e, ptrs, h * HALF, HALF);
    LLVMValueRef svh = st ? lanes(e, sv, h * HALF, HALF) : NULL, dlo, blo;
    LLVMValueRef row = same(e, LLVMBuildSub(e->b, bh, steps, ""), mh, &dlo);
    LLVMValueRef one = st ? NULL : same(e, bh, mh, &blo);
    if (unit) {
      row = LLVMBuildAnd(e->b, row, unit, "");
      if (one) one = LLVMBuildAnd(e->b, one, unit, "");
    }
    /* (32 bits: base[l] is below 2^31, so base[l] - (l % 16) * size is exact as a signed number, negative where
     * the row starts below the half's first lane's place) */
    LLVMValueRef first = LLVMBuildAdd(e->b, w32 ? LLVMBuildSExt(e->b, dlo, e->i64, "") : dlo, cint(e->i64, off), "");
    LLVMValueRef p0 = LLVMBuildGEP2(e->b, e->i8, host, &first, 1, ""); /* the half's first lane's element of the row */
    LLVMBasicBlockRef bv = LLVMAppendBasicBlockInContext(e->c, e->fn, "row"), bg = LLVMAppendBasicBlockInContext(e->c, e->fn, "lanes");
    LLVMBasicBlockRef bb = st ? NULL : LLVMAppendBasicBlockInContext(e->c, e->fn, "one"), bt2 = st ? NULL : LLVMAppendBasicBlockInContext(e->c, e->fn, "other");
    LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(e->c, e->fn, "done");
    LLVMBuildCondBr(e->b, row, bv, st ? bg : bt2);
    if (!st) {
      LLVMPositionBuilderAtEnd(e->b, bt2);
      LLVMBuildCondBr(e->b, one, bb, bg);
    }
    LLVMValueRef vv = NULL, vg = NULL, vb = NULL;
    LLVMTypeRef tv[] = {et, e->ptr}, tg[] = {et, hvp};
    LLVMPositionBuilderAtEnd(e->b, bv);
    if (st) intrinsic(e, "llvm.masked.store", tv, 2, (LLVMValueRef[]){svh, p0, bytes32, mh}, 4);
    else vv = intrinsic(e, "llvm.masked.load", tv, 2, (LLVMValueRef[]){p0, bytes32, mh, LLVMConstNull(et)}, 4);
    LLVMBuildBr(e->b, bj);
    if (!st) { /* one element for all: lanes that are not active take it too, and select() drops it */
      LLVMPositionBuilderAtEnd(e->b, bb);
      LLVMValueRef at = LLVMBuildAdd(e->b, w32 ? LLVMBuildZExt(e->b, blo, e->i64, "") : blo, cint(e->i64, off), "");
      LLVMValueRef x = LLVMBuildLoad2(e->b, el, LLVMBuildGEP2(e->b, e->i8, host, &at, 1, ""), "");
      LLVMSetAlignment(x, bytes);
      vb = broadcast(e, x);
      vb = lanes(e, vb, 0, HALF);
      LLVMBuildBr(e->b, bj);
    }
    LLVMPositionBuilderAtEnd(e->b, bg);
    if (LLVMGetElementType(LLVMTypeOf(ptrs)) == e->i32) /* .shared: offsets from host, in the gather's block so that
                                                        * it is one with a base and 32-bit indices */
      ph = LLVMBuildGEP2(e->b, e->i8, host, &ph, 1, "");
    if (st) intrinsic(e, "llvm.masked.scatter", tg, 2, (LLVMValueRef[]){svh, ph, bytes32, mh}, 4);
    else vg = intrinsic(e, "llvm.masked.gather", tg, 2, (LLVMValueRef[]){ph, bytes32, mh, LLVMConstNull(et)}, 4);
    LLVMBuildBr(e->b, bj);
    LLVMPositionBuilderAtEnd(e->b, bj);
    if (st) continue;
    part[h] = LLVMBuildPhi(e->b, et, "");
    LLVMValueRef inv[] = {vv, vb, vg};
    LLVMBasicBlockRef inb[] = {bv, bb, bg};
    LLVMAddIncoming(part[h], inv, inb, 3);
  }
  if (st) return;
  LLVMValueRef idx[WV_WARP];
  for (unsigned i = 0; i < WV_WARP; i++) idx[i] = cint(e->i32, i);
  LLVMValueRef v = LLVMBuildShuffleVector(e->b, part[0], part[1], LLVMConstVector(idx, WV_WARP), "");
  if (in->d[0] != WV_NOSLOT) setreg(e, in->d[0], mv, widen(e, v, o->bits, o->sgn));
}

/* The check of an access that is not .shared-inline: where the space may be global (64-bit addresses), the
 * allocation the site found last (wv_exec.gwin) when it holds every active lane's element, is aligned and
 * nothing was freed since; else exec's warp-wide check through wv_jit_mem (which keeps what it finds there).
 * ok (i32, 0: the interpreter runs it), and lane l's bytes at *hb + addr[l] + l * *stride. */
static void mem_check(em *e, const wv_insn *in, int st, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef bits, unsigned bytes,
                      uint32_t site, LLVMValueRef *ok, LLVMValueRef *hb, LLVMValueRef *stride) {
  LLVMValueRef hit = NULL, gdelta = NULL;
  LLVMBasicBlockRef bhit = NULL, bcall = NULL, bj = NULL;
  if ((in->space == WV_SPACE_GLOBAL || in->space == WV_SPACE_GENERIC) && !(in->addrf & WV_AF_WRAP32)) {
    LLVMValueRef gw = field(e, offsetof(wv_exec, gwin) + (site % WV_GWINS) * sizeof(wv_gwin)), w[4];
    for (int i = 0; i < 4; i++) {
      LLVMValueRef idx = cint(e->i64, (uint64_t)i);
      w[i] = LLVMBuildLoad2(e->b, e->i64, LLVMBuildGEP2(e->b, e->i64, gw, &idx, 1, ""), "");
    }
    LLVMValueRef frees = LLVMBuildLoad2(e->b, e->i64, LLVMBuildLoad2(e->b, e->ptr, field(e, offsetof(wv_exec, heap_frees)), ""), "");
    hit = LLVMBuildICmp(e->b, LLVMIntUGE, lo, w[0], "");
    hit = LLVMBuildAnd(e->b, hit, LLVMBuildICmp(e->b, LLVMIntULT, hi, w[1], ""), "");
    hit = LLVMBuildAnd(e->b, hit, LLVMBuildICmp(e->b, LLVMIntUGE, LLVMBuildSub(e->b, w[1], hi, ""), cint(e->i64, bytes), ""), "");
    hit = LLVMBuildAnd(e->b, hit, LLVMBuildICmp(e->b, LLVMIntEQ, w[3], frees, ""), "");
    hit = LLVMBuildAnd(e->b, hit, LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, bits, cint(e->i64, bytes - 1), ""),
                                                cint(e->i64, 0), ""), "");
    gdelta = w[2];
    bhit = LLVMGetInsertBlock(e->b);
    bcall = LLVMAppendBasicBlockInContext(e->c, e->fn, "check");
    bj = LLVMAppendBasicBlockInContext(e->c, e->fn, "checked");
    LLVMBuildCondBr(e->b, hit, bj, bcall);
    LLVMPositionBuilderAtEnd(e->b, bcall);
  }
  LLVMTypeRef pt[] = {e->ptr, e->i32, e->i64, e->i64, e->i64, e->i32, e->i32, e->ptr, e->i32};
  LLVMTypeRef ft = LLVMFunctionType(e->i32, pt, 9, 0);
  LLVMValueRef fp = LLVMGetNamedFunction(e->mod, "wv_jit_mem"); /* jit.c defines the symbol's address */
  if (!fp) fp = LLVMAddFunction(e->mod, "wv_jit_mem", ft);
  LLVMValueRef args[] = {e->x, cint(e->i32, in->space), lo, hi, bits, cint(e->i32, bytes), cint(e->i32, (uint64_t)st), e->out,
                         cint(e->i32, site)};
  LLVMValueRef one = cint(e->i64, 1);
  *ok = LLVMBuildCall2(e->b, ft, fp, args, 9, "");
  *hb = LLVMBuildLoad2(e->b, e->i64, e->out, "");
  *stride = LLVMBuildLoad2(e->b, e->i64, LLVMBuildGEP2(e->b, e->i64, e->out, &one, 1, ""), "");
  if (!bj) return;
  LLVMBuildBr(e->b, bj);
  LLVMPositionBuilderAtEnd(e->b, bj);
  LLVMValueRef v[3][2] = {{cint(e->i32, 1), *ok}, {gdelta, *hb}, {cint(e->i64, 0), *stride}};
  LLVMBasicBlockRef from[2] = {bhit, bcall};
  LLVMTypeRef ty[3] = {e->i32, e->i64, e->i64};
  LLVMValueRef *res[3] = {ok, hb, stride};
  for (int i = 0; i < 3; i++) {
    *res[i] = LLVMBuildPhi(e->b, ty[i], "");
    LLVMAddIncoming(*res[i], v[i], from, 2);
  }
}


/* The .shared accesses of the region checked at its entry, at once, instead of each before itself: those with
 * no guard (their active lanes are all of the region's) through an address register no earlier instruction of
 * the region writes — so the entry sees the addresses they will use; and unguarded shuffles (the region's
 * lanes must be the whole warp). When any would fail, the region does
 * nothing and returns 0 (the interpreter runs it, with the exact check at each access); else they need no
 * check of their own, and the values in flight between them need not be stored for a bail-out. */
static void checked_early(em *e, const wv_insn *code, uint32_t len, uint8_t *early) {
  LLVMValueRef bad = LLVMBuildICmp(e->b, LLVMIntEQ, e->mask, cint(e->i32, 0), ""), mv = LLVMBuildBitCast(e->b, e->mask, e->vi1, "");
  int any = 0;
  uint32_t *written = malloc((len + 1) * sizeof *written); /* per instruction: the register it writes */
  if (!written) return; /* (out of memory: each access checks itself) */
  for (uint32_t k = 0; k < len; k++) {
    const wv_insn *in = &code[k];
    wv_jop o;
    early[k] = 0;
    int sel = wv_jit_select(in, &o);
    written[k] = sel && wv_jop_dreg(&o) ? in->d[0] : WV_NOSLOT;
    if (!sel || in->guard >= 0) continue;
    if (o.kind == WV_JK_SHFL) { /* a converged warp: the whole warp */
      bad = LLVMBuildOr(e->b, bad, LLVMBuildICmp(e->b, LLVMIntNE, e->mask, cint(e->i32, 0xffffffffu), ""), "");
      early[k] = 1;
      any = 1;
      continue;
    }
    if ((o.kind != WV_JK_LD && o.kind != WV_JK_ST && o.kind != WV_JK_ATOM) || !wv_jit_shared_inline(in)) continue;
    int earlier = 0;
    for (uint32_t i = 0; i < k && in->a != WV_NOSLOT; i++) earlier |= written[i] == in->a;
    if (earlier) continue;
    LLVMValueRef base = in->a != WV_NOSLOT ? reg(e, in->a) : LLVMConstNull(e->v64), lo, hi, bits;
    reduce_addrs(e, base, mv, 1, &lo, &hi, &bits);
    bad = LLVMBuildOr(e->b, bad, shared_bad(e, lo, hi, bits, (uint64_t)in->imm, o.bits / 8, o.kind == WV_JK_ST), "");
    early[k] = 1;
    any = 1;
  }
  free(written);
  if (any) bail_if(e, bad, 0);
}

/* atom.shared.add of 32-bit words at offsets off (from the CTA's shared bytes) as h_atom's lane loop: the active
 * lanes one after another in lane order, each reading its word, adding its b and keeping the old value (a lane
 * sees the sums of the lanes before it on one word). */
static void emit_atom(em *e, const wv_insn *in, const wv_jop *o, LLVMValueRef m32, LLVMValueRef mv, LLVMValueRef off) {
  LLVMTypeRef at = LLVMArrayType(e->i32, WV_WARP), vt = vec(e->i32);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->b), body = LLVMAppendBasicBlockInContext(e->c, e->fn, "atom");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->fn, "atomed");
  LLVMValueRef offs = entry_alloca(e, at), bs = entry_alloca(e, at), olds = entry_alloca(e, at);
  LLVMBuildStore(e->b, off, offs);
  LLVMBuildStore(e->b, regn(e, in->b, 32), bs);
  LLVMBuildStore(e->b, LLVMConstNull(vt), olds);
  LLVMBuildBr(e->b, body); /* (some lane is active: emit_mem or the entry bailed out where none is) */
  LLVMPositionBuilderAtEnd(e->b, body);
  LLVMValueRef m = LLVMBuildPhi(e->b, e->i32, ""), args[] = {m, LLVMConstInt(e->i1, 1, 0)};
  LLVMValueRef l = LLVMBuildZExt(e->b, intrinsic(e, "llvm.cttz", &e->i32, 1, args, 2), e->i64, "");
  LLVMValueRef at_l[] = {cint(e->i64, 0), l};
  LLVMValueRef o32 = LLVMBuildLoad2(e->b, e->i32, LLVMBuildGEP2(e->b, at, offs, at_l, 2, ""), "");
  LLVMValueRef b32 = LLVMBuildLoad2(e->b, e->i32, LLVMBuildGEP2(e->b, at, bs, at_l, 2, ""), "");
  LLVMValueRef o64 = LLVMBuildZExt(e->b, o32, e->i64, "");
  LLVMValueRef p = LLVMBuildGEP2(e->b, e->i8, e->shared, &o64, 1, "");
  LLVMValueRef old = LLVMBuildLoad2(e->b, e->i32, p, "");
  LLVMSetAlignment(old, 4);
  LLVMSetAlignment(LLVMBuildStore(e->b, LLVMBuildAdd(e->b, old, b32, ""), p), 4);
  LLVMBuildStore(e->b, old, LLVMBuildGEP2(e->b, at, olds, at_l, 2, ""));
  LLVMValueRef rest = LLVMBuildAnd(e->b, m, LLVMBuildSub(e->b, m, cint(e->i32, 1), ""), "");
  LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, rest, cint(e->i32, 0), ""), done, body);
  LLVMValueRef mi[] = {m32, rest};
  LLVMBasicBlockRef mb[] = {pre, body};
  LLVMAddIncoming(m, mi, mb, 2);
  LLVMPositionBuilderAtEnd(e->b, done);
  e->counts[C_ATOM]++;
  if (in->d[0] != WV_NOSLOT) setreg(e, in->d[0], mv, widen(e, LLVMBuildLoad2(e->b, vt, olds, ""), 32, o->sgn));
}

static void emit_mem(em *e, const wv_insn *in, const wv_jop *o, LLVMValueRef m32, LLVMValueRef mv, uint32_t k) {
  int st = o->kind == WV_JK_ST, atom = o->kind == WV_JK_ATOM;
  unsigned bytes = o->bits / 8;
  LLVMValueRef none = LLVMBuildICmp(e->b, LLVMIntEQ, m32, cint(e->i32, 0), "");
  /* the lanes' addresses as warp_addrs (h_mem.c) computes them: ((base & bmask) + off) & wmask */
  uint64_t bmask = (in->addrf & WV_AF_ADDR32) ? 0xffffffffu : ~0ull, wmask = (in->addrf & WV_AF_WRAP32) ? 0xffffffffu : ~0ull;
  LLVMValueRef base = in->a != WV_NOSLOT ? reg(e, in->a) : LLVMConstNull(e->v64);
  base = LLVMBuildAnd(e->b, base, splat(e, e->i64, bmask), "");
  LLVMValueRef a = LLVMBuildAnd(e->b, LLVMBuildAdd(e->b, base, splat(e, e->i64, (uint64_t)in->imm), ""), splat(e, e->i64, wmask), "");
  LLVMValueRef lo, hi, bits, ptrs, off32;
  LLVMValueRef rbase, rstride = NULL, rhost;
  if (wv_jit_shared_inline(in)) {
    if (!e->early[k]) { /* (else checked at the entry) */
      reduce_addrs(e, base, mv, 1, &lo, &hi, &bits);
      bail_if(e, LLVMBuildOr(e->b, none, shared_bad(e, lo, hi, bits, (uint64_t)in->imm, bytes, st), ""), k);
    }
    off32 = narrow(e, a, 32); /* = base + off: the test proved that nothing wraps */
    if (atom) { /* (checked as a load: no cp.async of the CTA pending, which h_atom does not ask) */
      emit_atom(e, in, o, m32, mv, off32);
      return;
    }
    ptrs = off32; /* offsets below 2^31 from the CTA's shared bytes (access makes the pointers) */
    rbase = narrow(e, base, 32);
    rhost = e->shared;
  } else {
    bail_if(e, none, k);
    reduce_addrs(e, a, mv, wmask == 0xffffffffu, &lo, &hi, &bits);
    uint32_t site = e->pc + k;
    LLVMValueRef ok, hb, stride;
    mem_check(e, in, st, lo, hi, bits, bytes, site, &ok, &hb, &stride);
    bail_if(e, LLVMBuildICmp(e->b, LLVMIntEQ, ok, cint(e->i32, 0), ""), k);
    LLVMValueRef addr = LLVMBuildAdd(e->b, LLVMBuildAdd(e->b, broadcast(e, hb), a, ""),
                                     LLVMBuildMul(e->b, broadcast(e, stride), e->lane, ""), "");
    ptrs = LLVMBuildIntToPtr(e->b, addr, e->vptr, "");
    /* a row of base + off + hb: modulo 2^64 unless the space's addresses wrap at 32 bits (then no row test) */
    rbase = wmask == ~0ull ? base : a;
    rstride = stride;
    rhost = LLVMBuildIntToPtr(e->b, hb, e->ptr, "");
    if (wmask != ~0ull) { /* the row test on the addresses themselves */
      rbase = a;
      rhost = LLVMBuildGEP2(e->b, e->i8, rhost, (LLVMValueRef[]){cint(e->i64, (uint64_t)-in->imm)}, 1, "");
    }
  }
  int co = counter(in->space, st);
  if (co >= 0 && e->pmask != e->mask) /* on a branch's path: counted where a lane takes it */
    add_field(e, COUNTERS[co], e->i64, LLVMBuildZExt(e->b, LLVMBuildICmp(e->b, LLVMIntNE, e->pmask, cint(e->i32, 0), ""), e->i64, ""));
  else if (co >= 0)
    e->counts[co]++;
  access(e, in, o, mv, ptrs, rbase, rstride, rhost, (uint64_t)in->imm);
}

/* shfl.sync as h_warp.c's fast path runs it for a converged group that is the whole warp (a region's other
 * groups, or a guard that leaves a lane out, stop before it: the interpreter runs it), b, c and membermask
 * known (select.c): a permutation of the lanes' low 32 bits, known when compiling, and a predicate constant. */
static void emit_shfl(em *e, const wv_insn *in, uint32_t k, LLVMValueRef m32) {
  uint32_t b, c;
  if (!wv_jit_shfl_ok(e->code, k, e->consts, e->nconsts, &b, &c)) { /* (select.c makes none of these) */
    bail_if(e, LLVMConstInt(e->i1, 1, 0), k);
    return;
  }
  if (!e->early[k]) bail_if(e, LLVMBuildICmp(e->b, LLVMIntNE, m32, cint(e->i32, 0xffffffffu), ""), k);
  LLVMValueRef idx[WV_WARP];
  uint32_t pd = 0;
  for (int l = 0; l < WV_WARP; l++) {
    int p;
    idx[l] = cint(e->i32, (uint64_t)wv_shfl_src(in->mode, l, b, c, &p));
    pd |= (uint32_t)p << l;
  }
  LLVMValueRef a = regn(e, in->a, 32);
  LLVMValueRef d = LLVMBuildShuffleVector(e->b, a, LLVMGetUndef(LLVMTypeOf(a)), LLVMConstVector(idx, WV_WARP), "");
  setreg(e, in->d[0], LLVMBuildBitCast(e->b, m32, e->vi1, ""), widen(e, d, 32, 0));
  if (in->pd >= 0) setpred(e, (uint32_t)in->pd, m32, cint(e->i32, pd));
  e->counts[C_COLL]++;
}

static LLVMValueRef emit_cvta(em *e, const wv_insn *in) { /* h_mem.c h_cvta */
  uint64_t win = in->space == WV_SPACE_SHARED || in->space == WV_SPACE_CLUSTER ? WV_SHARED_WINDOW
               : in->space == WV_SPACE_LOCAL                                  ? WV_LOCAL_WINDOW
               : in->space == WV_SPACE_KPARAM                                 ? WV_PARAM_WINDOW
                                                                              : 0;
  int to = in->mode, nar = wv_type_size((wv_type)in->type) == 4;
  LLVMValueRef a = reg(e, in->a);
  if (nar || (win && !to)) a = widen(e, narrow(e, a, 32), 32, 0);
  LLVMValueRef v = to ? LLVMBuildSub(e->b, a, splat(e, e->i64, win), "") : LLVMBuildAdd(e->b, a, splat(e, e->i64, win), "");
  return nar ? widen(e, narrow(e, v, 32), 32, 0) : v;
}

/* popc clz brev bfind as h_int.c's handlers: a u32 count (brev: the value reversed in its width). */
static LLVMValueRef emit_bits(em *e, const wv_insn *in, const wv_jop *o) {
  unsigned w = o->bits;
  LLVMTypeRef t = vec(ity(e, w));
  LLVMValueRef a = regn(e, in->a, w), no = LLVMConstInt(e->i1, 0, 0), r;
  switch (o->op) {
  case WV_OP_POPC: r = intrinsic(e, "llvm.ctpop", &t, 1, &a, 1); break;
  case WV_OP_CLZ: r = intrinsic(e, "llvm.ctlz", &t, 1, (LLVMValueRef[]){a, no}, 2); break; /* (of 0: w) */
  case WV_OP_BREV: return widen(e, intrinsic(e, "llvm.bitreverse", &t, 1, &a, 1), w, 0);
  default: { /* bfind: the highest bit set (.s: that differs from the sign), 0xffffffff if none; .shiftamt: w-1 - it */
    if (o->sgn) a = LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntSLT, a, LLVMConstNull(t), ""), LLVMBuildNot(e->b, a, ""), a, "");
    LLVMValueRef z = intrinsic(e, "llvm.ctlz", &t, 1, (LLVMValueRef[]){a, no}, 2);
    r = o->neg ? z : LLVMBuildSub(e->b, splat(e, ity(e, w), w - 1), z, "");
    r = LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, a, LLVMConstNull(t), ""), splat(e, ity(e, w), 0xffffffffu), r, "");
  }
  }
  return widen(e, narrow(e, widen(e, r, w, 0), 32), 32, 0);
}

/* and/or/xor/not/mov of predicates (h_int.c h_pand ..., h_mov.c h_movp: mov of an immediate 0 or 1). */
static void emit_pred(em *e, const wv_insn *in, const wv_jop *o, LLVMValueRef m32) {
  LLVMValueRef v;
  if (o->op == WV_OP_MOV) v = in->a == WV_NOSLOT ? cint(e->i32, in->imm ? 0xffffffffu : 0) : pred(e, in->a);
  else if (o->op == WV_OP_NOT) v = LLVMBuildNot(e->b, pred(e, in->a), "");
  else {
    LLVMValueRef a = pred(e, in->a), b = pred(e, in->b);
    v = o->op == WV_OP_AND ? LLVMBuildAnd(e->b, a, b, "") : o->op == WV_OP_OR ? LLVMBuildOr(e->b, a, b, "") : LLVMBuildXor(e->b, a, b, "");
  }
  setpred(e, in->d[0], m32, v);
}

static void emit_insn(em *e, const wv_insn *in, const wv_jop *o, uint32_t k);

/* A forward branch the region holds at k (select.c wv_jit_branch), as the interpreter runs it: the lanes that do
 * not take it run their path, then those that do theirs, and all meet at the join (k's return: the join's index
 * in the region). Both paths run whole, each instruction for its path's lanes (none: nothing changes; the paths
 * touch no memory, and no lane another's register). What the interpreter would have counted differently goes
 * to the group loop (jit_hook.h): a path no lane takes ran no instructions, a path some lanes take ran its
 * instructions for those only, and where both have lanes the group split and met again. Where the group
 * already waits at the join for lanes elsewhere (x->jit_stop), the interpreter runs the branch. */
static uint32_t emit_branch(em *e, const wv_insn *in, uint32_t k) {
  wv_jbranch br;
  int bad = !wv_jit_branch(e->f, e->pc, e->pc + k, NULL, &br); /* (select.c makes none of these) */
  for (int i = 0; i < 2 && !bad; i++) /* (nor paths with an access that checks itself: it could stop there) */
    for (int r = 0; r < 2; r++)
      for (uint32_t pc = br.lo[i][r]; pc < br.hi[i][r]; pc++) {
        wv_jop o;
        bad |= wv_jit_select(&e->f->code[pc], &o) && (o.kind == WV_JK_LD || o.kind == WV_JK_ST) && !e->early[pc - e->pc];
      }
  if (bad) {
    bail_if(e, LLVMConstInt(e->i1, 1, 0), k);
    return k + 1;
  }
  LLVMValueRef p = pred(e, (uint32_t)in->guard), zero = cint(e->i32, 0);
  if (in->guard_neg) p = LLVMBuildNot(e->b, p, "");
  LLVMValueRef lanes[2] = {LLVMBuildAnd(e->b, e->mask, LLVMBuildNot(e->b, p, ""), ""), LLVMBuildAnd(e->b, e->mask, p, "")};
  LLVMValueRef none[2], pop[2];
  for (int i = 0; i < 2; i++) {
    none[i] = LLVMBuildICmp(e->b, LLVMIntEQ, lanes[i], zero, "");
    pop[i] = LLVMBuildZExt(e->b, intrinsic(e, "llvm.ctpop", &e->i32, 1, &lanes[i], 1), e->i64, "");
  }
  LLVMValueRef split = LLVMBuildNot(e->b, LLVMBuildOr(e->b, none[0], none[1], ""), "");
  /* the interpreter's: the group waits at the join already, or it splits while other groups of the warp could
   * run between its halves or see where it stands in the warp's list (the merged group is a new one, last) */
  LLVMValueRef stop = LLVMBuildLoad2(e->b, e->i32, field(e, offsetof(wv_exec, jit_stop)), "");
  LLVMValueRef alone = LLVMBuildLoad2(e->b, e->i32, field(e, offsetof(wv_exec, jit_alone)), "");
  bail_if(e, LLVMBuildOr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, stop, cint(e->i32, br.join), ""),
                         LLVMBuildAnd(e->b, split, LLVMBuildICmp(e->b, LLVMIntEQ, alone, zero, ""), ""), ""), k);
  LLVMValueRef skipped = LLVMBuildAdd(e->b, LLVMBuildSelect(e->b, none[0], cint(e->i32, br.n[0]), zero, ""),
                                      LLVMBuildSelect(e->b, none[1], cint(e->i32, br.n[1]), zero, ""), "");
  LLVMValueRef tless = LLVMBuildAdd(e->b, LLVMBuildMul(e->b, pop[1], cint(e->i64, br.n[0]), ""),
                                    LLVMBuildMul(e->b, pop[0], cint(e->i64, br.n[1]), ""), ""); /* (a split's) */
  add_field(e, offsetof(wv_exec, jit_skipped), e->i32, skipped);
  add_field(e, offsetof(wv_exec, jit_split), e->i32, LLVMBuildZExt(e->b, split, e->i32, ""));
  add_field(e, offsetof(wv_exec, jit_tless), e->i64, LLVMBuildSelect(e->b, split, tless, cint(e->i64, 0), ""));
  e->bpc = e->pc + k;
  uint32_t writes[2][WV_JIT_BRANCH_MAX], nw[2] = {0, 0}; /* the registers each path writes */
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < 2; r++)
      for (uint32_t pc = br.lo[i][r]; pc < br.hi[i][r]; pc++) {
        wv_jop o;
        if (wv_jit_select(&e->f->code[pc], &o) && wv_jop_dreg(&o) && e->f->code[pc].d[0] != WV_NOSLOT)
          writes[i][nw[i]++] = e->f->code[pc].d[0];
      }
  for (int i = 0; i < 2; i++) {
    e->other = writes[1 - i];
    e->nother = nw[1 - i];
    e->pmask = lanes[i];
    for (int r = 0; r < 2; r++)
      for (uint32_t pc = br.lo[i][r]; pc < br.hi[i][r]; pc++) {
        wv_jop o;
        if (wv_jit_select(&e->f->code[pc], &o)) emit_insn(e, &e->f->code[pc], &o, pc - e->pc); /* (else its bra) */
      }
  }
  e->pmask = e->mask;
  e->nother = 0;
  return br.join - e->pc;
}

static void emit_insn(em *e, const wv_insn *in, const wv_jop *o, uint32_t k) {
  LLVMValueRef m32 = e->pmask;
  /* on a branch's path, the other lanes keep their value of the destination only where some may read it: not
   * where it is not live at the branch (each of them writes it before reading it, and no lane reads another's)
   * and the other path does not write it (its lanes' values stay) */
  int keep = e->pmask != e->mask;
  if (keep && in->d[0] != WV_NOSLOT && !live_at(e, e->bpc, in->d[0])) {
    keep = 0;
    for (uint32_t i = 0; i < e->nother; i++) keep |= e->other[i] == in->d[0];
  }
  e->guarded = in->guard >= 0 || keep;
  if (in->guard >= 0) {
    LLVMValueRef p = pred(e, (uint32_t)in->guard);
    m32 = LLVMBuildAnd(e->b, m32, in->guard_neg ? LLVMBuildNot(e->b, p, "") : p, "");
  }
  LLVMValueRef mv = LLVMBuildBitCast(e->b, m32, e->vi1, "");
  LLVMValueRef r = NULL;
  switch (o->kind) {
  case WV_JK_IBIN: r = ibin(e, in, o); break;
  case WV_JK_IUN: {
    LLVMValueRef a = regn(e, in->a, o->bits);
    r = widen(e, o->op == WV_OP_NOT ? LLVMBuildNot(e->b, a, "") : LLVMBuildNeg(e->b, a, ""), o->bits, o->sgn);
    break;
  }
  case WV_JK_MADLO: {
    LLVMValueRef a = regn(e, in->a, o->bits), b = regn(e, in->b, o->bits), c = regn(e, in->c, o->bits);
    r = widen(e, LLVMBuildAdd(e->b, LLVMBuildMul(e->b, a, b, ""), c, ""), o->bits, o->sgn);
    break;
  }
  case WV_JK_MULWIDE: { /* the product at twice the width, stored extended by the source's signedness */
    unsigned w2 = o->bits * 2;
    LLVMTypeRef t2 = vec(ity(e, w2));
    LLVMValueRef a = regn(e, in->a, o->bits), b = regn(e, in->b, o->bits);
    a = o->sgn ? LLVMBuildSExt(e->b, a, t2, "") : LLVMBuildZExt(e->b, a, t2, "");
    b = o->sgn ? LLVMBuildSExt(e->b, b, t2, "") : LLVMBuildZExt(e->b, b, t2, "");
    r = widen(e, LLVMBuildMul(e->b, a, b, ""), w2, o->sgn);
    break;
  }
  case WV_JK_MADWIDE: {
    LLVMValueRef a = widen(e, regn(e, in->a, 32), 32, o->sgn), b = widen(e, regn(e, in->b, 32), 32, o->sgn);
    r = LLVMBuildAdd(e->b, LLVMBuildMul(e->b, a, b, ""), reg(e, in->c), "");
    break;
  }
  case WV_JK_MOV: r = widen(e, regn(e, in->a, o->bits), o->bits, o->sgn); break;
  case WV_JK_CVTI: /* (DT)(ST)a, stored extended by DT's sign */
    r = widen(e, narrow(e, widen(e, regn(e, in->a, o->bits), o->bits, o->sgn), o->flt), o->flt, o->neg);
    break;
  case WV_JK_I2F: { /* the host's conversion, rounded to nearest */
    LLVMValueRef a = regn(e, in->a, o->bits);
    LLVMTypeRef ft = vec(o->flt == 32 ? e->f32 : e->f64);
    LLVMValueRef f = o->sgn ? LLVMBuildSIToFP(e->b, a, ft, "") : LLVMBuildUIToFP(e->b, a, ft, "");
    r = o->flt == 32 ? widen(e, LLVMBuildBitCast(e->b, f, vec(e->i32), ""), 32, 0) : LLVMBuildBitCast(e->b, f, e->v64, "");
    break;
  }
  case WV_JK_SETP: emit_setp(e, in, o, m32); return;
  case WV_JK_SELP: {
    LLVMValueRef c = pred(e, in->c);
    if (in->neg_c) c = LLVMBuildNot(e->b, c, "");
    r = LLVMBuildSelect(e->b, LLVMBuildBitCast(e->b, c, e->vi1, ""), reg(e, in->a), reg(e, in->b), "");
    break;
  }
  case WV_JK_FBIN: {
    LLVMValueRef a = as_f32(e, in->a), b = as_f32(e, in->b);
    r = from_f32(e, o->op == WV_OP_ADD ? LLVMBuildFAdd(e->b, a, b, "") : o->op == WV_OP_SUB ? LLVMBuildFSub(e->b, a, b, "")
                                                                                           : LLVMBuildFMul(e->b, a, b, ""));
    break;
  }
  case WV_JK_FFMA: {
    LLVMValueRef a = regn(e, in->a, 32), c = regn(e, in->c, 32);
    if (o->neg & 1) a = LLVMBuildXor(e->b, a, splat(e, e->i32, 0x80000000u), "");
    if (o->neg & 2) c = LLVMBuildXor(e->b, c, splat(e, e->i32, 0x80000000u), "");
    LLVMTypeRef ft = vec(e->f32);
    LLVMValueRef args[] = {LLVMBuildBitCast(e->b, a, ft, ""), as_f32(e, in->b), LLVMBuildBitCast(e->b, c, ft, "")};
    r = from_f32(e, intrinsic(e, "llvm.fma", &ft, 1, args, 3));
    break;
  }
  case WV_JK_CVTA: r = emit_cvta(e, in); break;
  case WV_JK_LD: case WV_JK_ST: case WV_JK_ATOM: emit_mem(e, in, o, m32, mv, k); return;
  case WV_JK_SHFL: emit_shfl(e, in, k, m32); return;
  case WV_JK_BITS: r = emit_bits(e, in, o); break;
  case WV_JK_PRED: emit_pred(e, in, o, m32); return;
  default: return;
  }
  setreg(e, in->d[0], mv, r);
}

/* (emit.h) */
LLVMValueRef wv_jit_emit_region(LLVMContextRef c, LLVMModuleRef mod, const char *name, const wv_func *f, uint32_t pc,
                                uint32_t len, const uint64_t *live, uint32_t words) {
  em e = {.c = c, .mod = mod, .pc = pc, .live = live, .words = words, .consts = f->consts, .nconsts = f->nconsts};
  e.i1 = LLVMInt1TypeInContext(c);
  e.i8 = LLVMInt8TypeInContext(c);
  e.i16 = LLVMInt16TypeInContext(c);
  e.i32 = LLVMInt32TypeInContext(c);
  e.i64 = LLVMInt64TypeInContext(c);
  e.f32 = LLVMFloatTypeInContext(c);
  e.f64 = LLVMDoubleTypeInContext(c);
  e.ptr = LLVMPointerTypeInContext(c, 0);
  e.v64 = vec(e.i64);
  e.vptr = vec(e.ptr);
  e.vi1 = vec(e.i1);
  e.npreds = f->npreds + 1;
  e.pv = calloc(e.npreds, sizeof *e.pv);
  e.pdirty = calloc(e.npreds, 1);
  e.capregs = 4 * len + 4; /* (a, b, c and d[0] of each instruction at most) */
  e.regs = malloc(e.capregs * sizeof *e.regs);
  uint8_t *early = calloc(len, 1);
  if (!e.pv || !e.pdirty || !e.regs || !early) {
    free(e.pv);
    free(e.pdirty);
    free(e.regs);
    free(early);
    return NULL;
  }
  LLVMTypeRef params[] = {e.ptr, e.i32};
  e.fn = LLVMAddFunction(mod, name, LLVMFunctionType(e.i32, params, 2, 0));
  e.x = LLVMGetParam(e.fn, 0);
  e.mask = LLVMGetParam(e.fn, 1);

  e.b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(e.b, LLVMAppendBasicBlockInContext(c, e.fn, "entry"));
  for (int k = 0; k < 3; k++)
    e.bank[k] = LLVMBuildLoad2(e.b, e.ptr, field(&e, offsetof(wv_exec, bank) + (size_t)k * sizeof(void *)), "");
  e.preds_p = LLVMBuildLoad2(e.b, e.ptr, field(&e, offsetof(wv_exec, preds)), "");
  e.out = entry_alloca(&e, LLVMArrayType(e.i64, 2));
  { /* the running CTA's shared memory: nothing in a region changes where it is, its size or pending cp.asyncs */
    LLVMValueRef cta = LLVMBuildLoad2(e.b, e.ptr, field(&e, offsetof(wv_exec, cta)), "");
    LLVMValueRef i0 = cint(e.i64, offsetof(wv_cta, shared)), i1 = cint(e.i64, offsetof(wv_cta, shared_size));
    LLVMValueRef i2 = cint(e.i64, offsetof(wv_cta, async_pending));
    e.shared = LLVMBuildLoad2(e.b, e.ptr, LLVMBuildGEP2(e.b, e.i8, cta, &i0, 1, ""), "");
    e.shared_size = LLVMBuildZExt(e.b, LLVMBuildLoad2(e.b, e.i32, LLVMBuildGEP2(e.b, e.i8, cta, &i1, 1, ""), ""), e.i64, "");
    e.async_pending = LLVMBuildLoad2(e.b, e.i32, LLVMBuildGEP2(e.b, e.i8, cta, &i2, 1, ""), "");
  }
  LLVMValueRef lanes[WV_WARP];
  for (int l = 0; l < WV_WARP; l++) lanes[l] = cint(e.i64, (uint64_t)l);
  e.lane = LLVMConstVector(lanes, WV_WARP);
  for (int l = 0; l < WV_WARP; l++) lanes[l] = cint(e.i32, (uint64_t)l);
  e.lane32 = LLVMConstVector(lanes, WV_WARP);
  e.early = early;
  e.code = &f->code[pc];
  checked_early(&e, &f->code[pc], len, early);
  e.f = f;
  e.pmask = e.mask;
  for (uint32_t k = 0; k < len;) {
    wv_jop o;
    if (f->code[pc + k].ctl == WV_CTL_BRA) { /* (select.c: a branch it holds) */
      k = emit_branch(&e, &f->code[pc + k], k);
      continue;
    }
    if (!wv_jit_select(&f->code[pc + k], &o)) break; /* (regions hold only these) */
    emit_insn(&e, &f->code[pc + k], &o, k);
    k++;
  }
  flush(&e, pc + len);
  LLVMBuildRet(e.b, cint(e.i32, len));
  LLVMDisposeBuilder(e.b);
  free(e.regs);
  free(early);
  free(e.pv);
  free(e.pdirty);
  return e.fn;
}
#endif
