/*
 * emit.c — one region as an LLVM function `i32 region(ptr x, i32 mask)` (exec/jit_hook.h). Each PTX
 * register is its 32 lanes as one <32 x i64> SSA value, loaded from the register file at its first use (an
 * immediate is a constant, folded in) and stored back, whole, before each memory instruction's check and at
 * the exit; a predicate is its i32 lane mask. Every instruction runs on its active lanes (mask & its guard, as
 * sched.c's group_loop computes them): the new value of a destination is select(active, result, old). A memory
 * instruction (emit_mem.c) first passes exec's warp-wide check and, when it fails or no lane is active, the
 * function returns its index before any effect of it: the interpreter runs it. The arithmetic is that of the
 * handler select.c recognised (h_int.c, h_setp.c, h_float.c, h_mov.c, h_cvt.c, h_mem.c), in the same widths;
 * f32 NaN results are the canonical NaN, f64 ones follow fpmath.h's payload rule. A forward branch the region holds (select.c wv_jit_branch) runs both
 * its paths, each instruction for the lanes on its path (emit_branch). A region followed by a branch back to its
 * start is a loop's body: it goes round again itself while all the lanes take that branch (emit_back), the
 * registers it names carried in phis (carry_in).
 */
#ifdef WV_HAVE_LLVM
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "exec/fpmath.h"
#include "jit/emit_int.h"

const size_t wv_em_counters[NCOUNTERS] = {offsetof(wv_exec, n_gld), offsetof(wv_exec, n_gst), offsetof(wv_exec, n_lld),
                                       offsetof(wv_exec, n_lst), offsetof(wv_exec, n_sld), offsetof(wv_exec, n_sst),
                                       offsetof(wv_exec, n_coll), offsetof(wv_exec, n_atom)};

/* x->FIELD += v (an i32 or i64 counter of wv_exec) */
void wv_em_add_field(em *e, size_t off, LLVMTypeRef t, LLVMValueRef v) {
  LLVMValueRef p = field(e, off);
  LLVMBuildStore(e->b, LLVMBuildAdd(e->b, LLVMBuildLoad2(e->b, t, p, ""), v, ""), p);
}

/* ---- intrinsics ---- */
LLVMValueRef wv_em_intrinsic(em *e, const char *name, LLVMTypeRef *tys, size_t nty, LLVMValueRef *args, unsigned nargs) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(e->mod, id, tys, nty);
  LLVMTypeRef ft = LLVMIntrinsicGetType(e->c, id, tys, nty);
  return LLVMBuildCall2(e->b, ft, f, args, nargs, "");
}

/* An i32 lane mask as <32 x i1>: a bitcast where the target has AVX-512's mask registers (one kmovd). Elsewhere LLVM
 * makes that bitcast a bit at a time (a shift, an and and an insert for each lane: a third of collatz's instructions
 * under AVX2), so there it is the mask in every lane, and-ed with the lane's bit, compared with 0. */
LLVMValueRef wv_em_lanes(em *e, LLVMValueRef m32) {
  if (e->kmask) return LLVMBuildBitCast(e->b, m32, e->vi1, "");
  LLVMValueRef bit[WV_WARP];
  for (int i = 0; i < WV_WARP; i++) bit[i] = cint(e->i32, 1u << i);
  LLVMValueRef bits = LLVMConstVector(bit, WV_WARP);
  return LLVMBuildICmp(e->b, LLVMIntNE, LLVMBuildAnd(e->b, broadcast(e, m32), bits, ""), LLVMConstNull(vec(e->i32)), "");
}

/* A variable of type t in the function's frame (made in the entry block, as LLVM's passes want them). */
LLVMValueRef wv_em_entry_alloca(em *e, LLVMTypeRef t) {
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
/* A special register whose row holds one value in all 32 lanes (sched.c warp_init, cluster.c wv_cluster_specials:
 * the launch's, the CTA's or the warp's, and the kernel's offsets of relocated .shared variables past WV_SP_COUNT);
 * %tid, %laneid and the lane masks differ between lanes. */
static int uniform_special(uint32_t slot) {
  uint32_t k = WV_SLOT_INDEX(slot);
  return WV_SLOT_BANK(slot) == WV_SLOT_SPECIAL && k > WV_SP_TID_Z && k != WV_SP_LANEID &&
         !(k >= WV_SP_LANEMASK_EQ && k <= WV_SP_LANEMASK_GE);
}
LLVMValueRef wv_em_reg(em *e, uint32_t slot) {
  rval *r = find(e, slot);
  if (r) return r->v ? r->v : (r->v = widen(e, r->v32, 32, r->ext == 2)); /* (made here: at the use) */
  if (WV_SLOT_BANK(slot) == WV_SLOT_CONST && WV_SLOT_INDEX(slot) < e->nconsts) /* an immediate: a constant */
    return (add(e, slot)->v = splat(e, e->i64, e->consts[WV_SLOT_INDEX(slot)]));
  LLVMValueRef idx = cint(e->i64, (uint64_t)WV_SLOT_INDEX(slot) * WV_WARP);
  LLVMValueRef p = LLVMBuildGEP2(e->b, e->i64, e->bank[WV_SLOT_BANK(slot)], &idx, 1, "");
  LLVMValueRef v;
  if (uniform_special(slot)) { /* lane 0's, in every lane: one load, not four lines */
    LLVMValueRef s = LLVMBuildLoad2(e->b, e->i64, p, "");
    LLVMSetAlignment(s, 8);
    v = broadcast(e, s);
  } else {
    v = LLVMBuildLoad2(e->b, e->v64, p, "");
    LLVMSetAlignment(v, 8);
  }
  add(e, slot)->v = v;
  return v;
}
/* A register's lanes at a width (the low bits): at 32 bits those kept when it was written, else v narrowed (kept). */
LLVMValueRef wv_em_regn(em *e, uint32_t slot, unsigned bits) {
  rval *r = find(e, slot);
  if (bits < 32 && r && r->v32) return LLVMBuildTrunc(e->b, r->v32, vec(ity(e, bits)), "");
  if (bits == 32 && r && r->v32) return r->v32;
  LLVMValueRef v = wv_em_reg(e, slot);
  if (bits != 32) return bits == 64 ? v : LLVMBuildTrunc(e->b, v, vec(ity(e, bits)), "");
  r = find(e, slot);
  return r->v32 = LLVMBuildTrunc(e->b, v, vec(e->i32), "");
}
/* f32 bits with subnormals flushed to a zero of their sign (fpmath.h wv_fp_flush32: .ftz). */
static LLVMValueRef flush32(em *e, LLVMValueRef bits) {
  LLVMValueRef sub = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, bits, splat(e, e->i32, 0x7f800000u), ""),
                                   LLVMConstNull(vec(e->i32)), "");
  return LLVMBuildSelect(e->b, sub, LLVMBuildAnd(e->b, bits, splat(e, e->i32, 0x80000000u), ""), bits, "");
}
/* f32 bits as f32 lanes, flushed where ftz. */
static LLVMValueRef bits_f32(em *e, LLVMValueRef bits, int ftz) {
  return LLVMBuildBitCast(e->b, ftz ? flush32(e, bits) : bits, vec(e->f32), "");
}
/* A register's low 32 bits as f32 lanes, their sign flipped where neg, then flushed where ftz, as an f32 add, sub,
 * mul, div, fma or setp reads them. Such a result is NaN where an operand is, whatever the NaN's bits, and is
 * canonicalised itself (from_f32z; setp only asks whether it is NaN): so a register one of them wrote is read as
 * it was made, its NaN not yet made canonical (vf), and a chain of them canonicalises only where something else
 * reads the bits (LLVM drops the selects nothing reads). */
static LLVMValueRef f32_in(em *e, uint32_t slot, int ftz, int neg) {
  rval *r = find(e, slot);
  if (r && r->vf) {
    LLVMValueRef f = neg ? LLVMBuildFNeg(e->b, r->vf, "") : r->vf; /* (fneg flips the sign bit, of a NaN too) */
    return ftz ? bits_f32(e, LLVMBuildBitCast(e->b, f, vec(e->i32), ""), 1) : f;
  }
  LLVMValueRef a = wv_em_regn(e, slot, 32);
  if (neg) a = LLVMBuildXor(e->b, a, splat(e, e->i32, 0x80000000u), "");
  return bits_f32(e, a, ftz);
}
/* d's lanes m (<32 x i1>) become v. Only the group's lanes (the region's mask) are ever stored (flush), so
 * an instruction without a guard, whose m is that mask, takes v whole, and its old value need not be loaded. */
void wv_em_setreg(em *e, uint32_t slot, LLVMValueRef m, LLVMValueRef v) {
  if (slot == WV_NOSLOT) return;
  LLVMValueRef n32 = NULL, op; /* v as a result of 32 bits extended: those bits (regn), and how (ext) */
  uint8_t ext = 0;
  if ((LLVMIsAZExtInst(v) || LLVMIsASExtInst(v)) && LLVMTypeOf(op = LLVMGetOperand(v, 0)) == vec(e->i32))
    n32 = op, ext = LLVMIsASExtInst(v) ? 2 : 1;
  rval *r = find(e, slot);
  if (!r && e->guarded) r = (wv_em_reg(e, slot), find(e, slot));
  if (r) r->vf = NULL; /* (emit_insn sets it after) */
  if (e->guarded && n32 && r->ext == ext) { /* both extended alike: a merge of 32-bit lanes, the rest made at use */
    r->v32 = LLVMBuildSelect(e->b, m, n32, r->v32, "");
    r->v = NULL;
  } else if (e->guarded) { /* select where the low bits are what is read next: a merge of 32-bit lanes too */
    LLVMValueRef old32 = n32 ? wv_em_regn(e, slot, 32) : NULL, old = wv_em_reg(e, slot);
    r = find(e, slot);
    r->v = LLVMBuildSelect(e->b, m, v, old, "");
    r->v32 = n32 ? LLVMBuildSelect(e->b, m, n32, old32, "") : NULL;
    r->ext = 0;
  } else {
    if (!r) r = add(e, slot);
    r->v = v;
    r->v32 = n32;
    r->ext = ext;
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
/* Lanes m32 (i32) where instruction in's guard holds (all of them where it has none). */
static LLVMValueRef guard_holds(em *e, const wv_insn *in, LLVMValueRef m32) {
  if (in->guard < 0) return m32;
  LLVMValueRef p = pred(e, (uint32_t)in->guard);
  return LLVMBuildAnd(e->b, m32, in->guard_neg ? LLVMBuildNot(e->b, p, "") : p, "");
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
  wv_em_intrinsic(e, "llvm.masked.store", tv, 2, (LLVMValueRef[]){e->regs[i].v, p, cint(e->i32, 8), wv_em_lanes(e, e->mask)}, 4);
}

/* Store every changed register that is live at instruction `at` (the one the interpreter runs next) and every
 * changed predicate back, and add the memory counters (at the exit and before a bail-out). A dead register's
 * value is dropped: no path from `at` reads it before writing it (live.c), so it stays dead to the region's
 * end unless written again, which makes it changed again. */
static void flush_to(em *e, uint32_t at, int regs) {
  for (int c = 0; c < NCOUNTERS; c++) {
    if (!e->counts[c]) continue;
    LLVMValueRef cp = field(e, wv_em_counters[c]);
    LLVMBuildStore(e->b, LLVMBuildAdd(e->b, LLVMBuildLoad2(e->b, e->i64, cp, ""), cint(e->i64, e->counts[c]), ""), cp);
    e->counts[c] = 0;
  }
  /* the group's lanes: others hold what other paths left; a plain store where the group is the whole warp */
  uint32_t *st = malloc((e->nregs + 1) * sizeof *st), nst = 0;
  for (uint32_t i = 0; i < e->nregs && regs; i++) {
    if (!e->regs[i].dirty) continue;
    uint32_t s = e->regs[i].slot;
    e->regs[i].dirty = 0;
    if (!live_at(e, at, s)) continue;
    wv_em_reg(e, s); /* (made before the stores' branch) */
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
static void flush(em *e, uint32_t at) { flush_to(e, at, 1); }
/* if (cond) return k, with the state as it was before instruction k: what changed is stored first, on the way
 * (so no value has to live on for a bail-out, and each is stored once), and the bail-out only returns. */
static void path_bail(em *e, LLVMValueRef cond);
void wv_em_bail_if(em *e, LLVMValueRef cond, uint32_t k) {
  if (e->snap) {
    path_bail(e, cond);
    return;
  }
  flush(e, e->pc + k);
  LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(e->c, e->fn, "bail");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(e->c, e->fn, "go");
  LLVMBuildCondBr(e->b, cond, out, go);
  LLVMPositionBuilderAtEnd(e->b, out);
  LLVMBuildRet(e->b, cint(e->i32, k));
  LLVMPositionBuilderAtEnd(e->b, go);
}

/* The emitter's state at a side exit (bail_cold, emit_back, path_bail), which the code after it does not see: the
 * counts and what is changed (a side exit's flush clears them), the registers' and predicates' values (made
 * there, they are not the way on's). */
typedef struct side {
  uint32_t counts[NCOUNTERS];
  rval *regs;
  uint8_t *pdirty;
  LLVMValueRef *pv;
  uint32_t nregs;
} side;
static void side_in(em *e, side *s) {
  memcpy(s->counts, e->counts, sizeof s->counts);
  s->nregs = e->nregs;
  s->regs = malloc((e->nregs + 1) * sizeof *s->regs);
  s->pdirty = malloc(e->npreds + 1);
  s->pv = malloc((e->npreds + 1) * sizeof *s->pv);
  if (s->regs) memcpy(s->regs, e->regs, e->nregs * sizeof *s->regs);
  if (s->pdirty) memcpy(s->pdirty, e->pdirty, e->npreds);
  if (s->pv) memcpy(s->pv, e->pv, e->npreds * sizeof *s->pv);
}
static int side_whole(const side *s) { return s->regs && s->pdirty && s->pv; } /* (else out of memory) */
static void side_free(side *s) {
  free(s->regs);
  free(s->pdirty);
  free(s->pv);
}
/* The emitter's state becomes s's again (s kept). */
static void side_load(em *e, const side *s) {
  memcpy(e->counts, s->counts, sizeof s->counts);
  if (s->regs) memcpy(e->regs, s->regs, s->nregs * sizeof *s->regs), e->nregs = s->nregs;
  else for (uint32_t i = 0; i < e->nregs; i++) e->regs[i].dirty = 1; /* (out of memory: store again) */
  if (s->pv) memcpy(e->pv, s->pv, e->npreds * sizeof *s->pv);
  for (uint32_t i = 0; i < e->npreds; i++) e->pdirty[i] = s->pdirty ? s->pdirty[i] : (e->pv[i] != NULL);
}
static void side_out(em *e, side *s) {
  side_load(e, s);
  side_free(s);
}

/* The same where the bail-out is rare and the way on hot (a loop's turns): what changed is stored only on the way
 * out, and stays changed on the way on. Only in a loop's body or a region with at most COLD_CHECKS accesses that
 * check themselves: each such way out repeats the stores, and many of them in a long region made LLVM take ten
 * times as long (tiles_partition of the corpus: 1.3 -> 13 s). Elsewhere the stores before each check were most of
 * a region's stores (transpose's second region: a 64-bit address and a value, 512 bytes, before each of its four
 * global stores, where the region stores nothing at its end), and they filled the core's store queue. */
#define COLD_CHECKS 8
static void bail_cold(em *e, LLVMValueRef cond, uint32_t k) {
  LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(e->c, e->fn, "bail");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(e->c, e->fn, "go");
  LLVMBuildCondBr(e->b, cond, out, go);
  LLVMPositionBuilderAtEnd(e->b, out);
  side s;
  side_in(e, &s);
  flush(e, e->pc + k);
  LLVMBuildRet(e->b, cint(e->i32, k));
  side_out(e, &s);
  LLVMPositionBuilderAtEnd(e->b, go);
}
void wv_em_bail(em *e, LLVMValueRef cond, uint32_t k) { (e->cold && !e->snap ? bail_cold : wv_em_bail_if)(e, cond, k); }

/* On a path of a branch whose paths hold accesses that check themselves (emit_branch; e->snap: the state at the
 * branch): if (cond), return the branch's index with the state as it was at the branch (what changed before it
 * stored, what the paths changed not; select.c let no access that checks itself follow a store of the paths, so
 * nothing in memory has changed either), and the interpreter runs the branch and its paths (and reports the fault
 * there). Such a path runs only where a lane takes it (skip_open). */
static void path_bail(em *e, LLVMValueRef cond) {
  side *sn = e->snap, cur;
  LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(e->c, e->fn, "path_bail");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(e->c, e->fn, "go");
  LLVMBuildCondBr(e->b, cond, out, go);
  LLVMPositionBuilderAtEnd(e->b, out);
  side_in(e, &cur);
  e->snap = NULL; /* (the branch's state: flushed as at any exit) */
  side_load(e, sn);
  flush(e, e->pc + e->snap_k);
  LLVMBuildRet(e->b, cint(e->i32, e->snap_k));
  e->snap = sn;
  side_out(e, &cur);
  LLVMPositionBuilderAtEnd(e->b, go);
}

static void snap_free(side *sn) {
  if (!sn) return;
  side_free(sn);
  free(sn);
}
/* The state at a branch for path_bail (NULL: out of memory). */
static side *snap_take(em *e) {
  side *sn = malloc(sizeof *sn);
  if (!sn) return NULL;
  side_in(e, sn);
  if (side_whole(sn)) return sn;
  snap_free(sn);
  return NULL;
}


/* An f32 result as the handlers store it: NaN → the canonical 0x7fffffff, zero-extended; with .ftz (ftz) a
 * subnormal result flushed, and one of magnitude 2^-126 too where it is tiny when rounded with an unbounded
 * exponent (tiny: fpmath.c's tiny_unbounded for those lanes, NULL: never, as for add and sub). */
static LLVMValueRef from_f32z(em *e, LLVMValueRef f, int ftz, LLVMValueRef tiny, LLVMValueRef *raw) {
  LLVMValueRef bits = LLVMBuildBitCast(e->b, f, vec(e->i32), "");
  if (ftz) bits = flush32(e, bits); /* (neither touches a NaN, so NaN last is the same) */
  if (ftz && tiny) {
    LLVMValueRef min = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, bits, splat(e, e->i32, 0x7fffffffu), ""),
                                     splat(e, e->i32, 0x00800000u), "");
    bits = LLVMBuildSelect(e->b, LLVMBuildAnd(e->b, min, tiny, ""), LLVMBuildAnd(e->b, bits, splat(e, e->i32, 0x80000000u), ""),
                           bits, "");
  }
  *raw = ftz ? LLVMBuildBitCast(e->b, bits, vec(e->f32), "") : f; /* (the result, but for a NaN's bits: f32_in) */
  LLVMValueRef nan = LLVMBuildFCmp(e->b, LLVMRealUNO, f, f, "");
  bits = LLVMBuildSelect(e->b, nan, splat(e, e->i32, WV_FP_F32_NAN), bits, "");
  return LLVMBuildZExt(e->b, bits, e->v64, "");
}
/* fpmath.c tiny_unbounded for a product a * b (+ c): the factor of smaller magnitude (a on a tie) and c scaled by
 * 2^64, rounded to nearest, below 2^-62 in magnitude. */
static LLVMValueRef tiny_f32(em *e, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
  LLVMTypeRef ft = vec(e->f32);
  LLVMValueRef two64 = LLVMConstBitCast(splat(e, e->i32, 0x5f800000u), ft), abs[2];
  for (int i = 0; i < 2; i++) abs[i] = wv_em_intrinsic(e, "llvm.fabs", &ft, 1, (LLVMValueRef[]){i ? b : a}, 1);
  LLVMValueRef sa = LLVMBuildFCmp(e->b, LLVMRealOLE, abs[0], abs[1], "");
  LLVMValueRef x = LLVMBuildSelect(e->b, sa, LLVMBuildFMul(e->b, a, two64, ""), a, "");
  LLVMValueRef y = LLVMBuildSelect(e->b, sa, b, LLVMBuildFMul(e->b, b, two64, ""), "");
  LLVMValueRef r = c ? wv_em_intrinsic(e, "llvm.fma", &ft, 1, (LLVMValueRef[]){x, y, LLVMBuildFMul(e->b, c, two64, "")}, 3)
                     : LLVMBuildFMul(e->b, x, y, "");
  r = wv_em_intrinsic(e, "llvm.fabs", &ft, 1, &r, 1);
  return LLVMBuildFCmp(e->b, LLVMRealOLT, r, LLVMConstBitCast(splat(e, e->i32, 0x20800000u), ft), ""); /* 2^-62 */
}

/* Lanes of v (<32 x i64>, f64 bits) that are NaN. */
static LLVMValueRef isnan64(em *e, LLVMValueRef v) {
  return LLVMBuildICmp(e->b, LLVMIntUGT, LLVMBuildAnd(e->b, v, splat(e, e->i64, 0x7fffffffffffffffull), ""),
                       splat(e, e->i64, 0x7ff0000000000000ull), "");
}
/* An f64 result as the handlers store it (fpmath.h wv_fp__f64_nan): a NaN is the first NaN operand in the
 * handler's order (src, their bits), quieted; one made from numbers the default NaN. */
static LLVMValueRef from_f64(em *e, LLVMValueRef f, const LLVMValueRef *src, unsigned n) {
  LLVMValueRef bits = LLVMBuildBitCast(e->b, f, e->v64, ""), nan = LLVMBuildFCmp(e->b, LLVMRealUNO, f, f, "");
  LLVMValueRef pick = splat(e, e->i64, WV_FP_F64_NAN);
  for (unsigned i = n; WV_FP_F64_NAN_PROPAGATE && i-- > 0;)
    pick = LLVMBuildSelect(e->b, isnan64(e, src[i]), LLVMBuildOr(e->b, src[i], splat(e, e->i64, 0x0008000000000000ull), ""),
                           pick, "");
  return LLVMBuildSelect(e->b, nan, pick, bits, "");
}
/* add sub mul div of floats, rounded to nearest (the host's mode). */
static LLVMValueRef fbin(em *e, int op, LLVMValueRef a, LLVMValueRef b) {
  switch (op) {
  case WV_OP_ADD: return LLVMBuildFAdd(e->b, a, b, "");
  case WV_OP_SUB: return LLVMBuildFSub(e->b, a, b, "");
  case WV_OP_DIV: return LLVMBuildFDiv(e->b, a, b, "");
  default: return LLVMBuildFMul(e->b, a, b, "");
  }
}
/* f64 bits as <32 x double>. */
static LLVMValueRef as_f64(em *e, LLVMValueRef v) { return LLVMBuildBitCast(e->b, v, vec(e->f64), ""); }
/* neg/abs of .f32 (as NaN: the canonical NaN) and .f64 (a NaN only quieted), fpmath.h wv_fp_neg_f32 ... */
static LLVMValueRef emit_fun(em *e, const wv_insn *in, const wv_jop *o) {
  int neg = o->op == WV_OP_NEG;
  if (o->flt == 32) {
    LLVMValueRef a = wv_em_regn(e, in->a, 32);
    LLVMValueRef nan = LLVMBuildICmp(e->b, LLVMIntUGT, LLVMBuildAnd(e->b, a, splat(e, e->i32, 0x7fffffffu), ""),
                                     splat(e, e->i32, 0x7f800000u), "");
    LLVMValueRef r = neg ? LLVMBuildXor(e->b, a, splat(e, e->i32, 0x80000000u), "") : LLVMBuildAnd(e->b, a, splat(e, e->i32, 0x7fffffffu), "");
    return widen(e, LLVMBuildSelect(e->b, nan, splat(e, e->i32, WV_FP_F32_NAN), r, ""), 32, 0);
  }
  LLVMValueRef a = wv_em_reg(e, in->a);
  LLVMValueRef r = neg ? LLVMBuildXor(e->b, a, splat(e, e->i64, 0x8000000000000000ull), "")
                       : LLVMBuildAnd(e->b, a, splat(e, e->i64, 0x7fffffffffffffffull), "");
  return LLVMBuildSelect(e->b, isnan64(e, a), LLVMBuildOr(e->b, a, splat(e, e->i64, 0x0008000000000000ull), ""), r, "");
}

/* rcp.rn and sqrt.rn of .f32 (no .ftz) and .f64 as fpmath.h's host paths make them: the host's correctly rounded
 * 1 / a and sqrt(a) (-0 for -0), an f32 NaN canonical; an f64 NaN a's, quieted, and the default NaN for the
 * square root of a negative number (wv_fp__arith_f64). */
static LLVMValueRef emit_frs(em *e, const wv_insn *in, const wv_jop *o, LLVMValueRef *raw) {
  int f32 = o->flt == 32;
  LLVMTypeRef ft = vec(f32 ? e->f32 : e->f64);
  LLVMValueRef s = f32 ? NULL : wv_em_reg(e, in->a), a = f32 ? f32_in(e, in->a, 0, 0) : as_f64(e, s), r;
  if (o->op == WV_OP_SQRT) r = wv_em_intrinsic(e, "llvm.sqrt", &ft, 1, &a, 1);
  else r = LLVMBuildFDiv(e->b, LLVMConstBitCast(f32 ? splat(e, e->i32, 0x3f800000u) : splat(e, e->i64, 0x3ff0000000000000ull), ft), a, "");
  return f32 ? from_f32z(e, r, 0, NULL, raw) : from_f64(e, r, &s, 1);
}

/* ---- instructions ---- */
static LLVMValueRef ibin(em *e, const wv_insn *in, const wv_jop *o) {
  unsigned w = o->bits;
  LLVMTypeRef vt = vec(ity(e, w));
  LLVMValueRef a = wv_em_regn(e, in->a, w), b = wv_em_regn(e, in->b, w), r;
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
    LLVMValueRef sh = wv_em_regn(e, in->b, 32);
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
    if (o->flt == 32) a = f32_in(e, in->a, o->ftz, 0), b = f32_in(e, in->b, o->ftz, 0);
    else a = LLVMBuildBitCast(e->b, wv_em_reg(e, in->a), vec(e->f64), ""), b = LLVMBuildBitCast(e->b, wv_em_reg(e, in->b), vec(e->f64), "");
    return LLVMBuildFCmp(e->b, FP[o->cmp], a, b, "");
  }
  static const LLVMIntPredicate S[] = {[WV_CMP_EQ] = LLVMIntEQ, [WV_CMP_NE] = LLVMIntNE, [WV_CMP_LT] = LLVMIntSLT,
                                       [WV_CMP_LE] = LLVMIntSLE, [WV_CMP_GT] = LLVMIntSGT, [WV_CMP_GE] = LLVMIntSGE};
  static const LLVMIntPredicate U[] = {[WV_CMP_EQ] = LLVMIntEQ,  [WV_CMP_NE] = LLVMIntNE,  [WV_CMP_LT] = LLVMIntULT,
                                       [WV_CMP_LE] = LLVMIntULE, [WV_CMP_GT] = LLVMIntUGT, [WV_CMP_GE] = LLVMIntUGE,
                                       [WV_CMP_LO] = LLVMIntULT, [WV_CMP_LS] = LLVMIntULE, [WV_CMP_HI] = LLVMIntUGT,
                                       [WV_CMP_HS] = LLVMIntUGE};
  LLVMValueRef a = wv_em_regn(e, in->a, o->bits), b = wv_em_regn(e, in->b, o->bits);
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

/* shfl.sync as h_warp.c's fast path runs it for a converged group that is the whole warp (a region's other
 * groups, or a guard that leaves a lane out, stop before it: the interpreter runs it), b, c and membermask
 * known (select.c): a permutation of the lanes' low 32 bits, known when compiling, and a predicate constant. */
static void emit_shfl(em *e, const wv_insn *in, uint32_t k, LLVMValueRef m32) {
  uint32_t b, c;
  if (!wv_jit_shfl_ok(e->code, k, e->consts, e->nconsts, &b, &c)) { /* (select.c makes none of these) */
    wv_em_bail_if(e, LLVMConstInt(e->i1, 1, 0), k);
    return;
  }
  if (!e->early[k]) wv_em_bail_if(e, LLVMBuildICmp(e->b, LLVMIntNE, m32, cint(e->i32, 0xffffffffu), ""), k);
  LLVMValueRef idx[WV_WARP];
  uint32_t pd = 0;
  for (int l = 0; l < WV_WARP; l++) {
    int p;
    idx[l] = cint(e->i32, (uint64_t)wv_shfl_src(in->mode, l, b, c, &p));
    pd |= (uint32_t)p << l;
  }
  LLVMValueRef a = wv_em_regn(e, in->a, 32);
  LLVMValueRef d = LLVMBuildShuffleVector(e->b, a, LLVMGetUndef(LLVMTypeOf(a)), LLVMConstVector(idx, WV_WARP), "");
  wv_em_setreg(e, in->d[0], wv_em_lanes(e, m32), widen(e, d, 32, 0));
  if (in->pd >= 0) setpred(e, (uint32_t)in->pd, m32, cint(e->i32, pd));
  e->counts[C_COLL]++;
}

static LLVMValueRef emit_cvta(em *e, const wv_insn *in) { /* h_mem.c h_cvta */
  uint64_t win = in->space == WV_SPACE_SHARED || in->space == WV_SPACE_CLUSTER ? WV_SHARED_WINDOW
               : in->space == WV_SPACE_LOCAL                                  ? WV_LOCAL_WINDOW
               : in->space == WV_SPACE_KPARAM                                 ? WV_PARAM_WINDOW
                                                                              : 0;
  int to = in->mode, nar = wv_type_size((wv_type)in->type) == 4;
  LLVMValueRef a = wv_em_reg(e, in->a);
  if (nar || (win && !to)) a = widen(e, narrow(e, a, 32), 32, 0);
  LLVMValueRef v = to ? LLVMBuildSub(e->b, a, splat(e, e->i64, win), "") : LLVMBuildAdd(e->b, a, splat(e, e->i64, win), "");
  return nar ? widen(e, narrow(e, v, 32), 32, 0) : v;
}

/* popc clz brev bfind as h_int.c's handlers: a u32 count (brev: the value reversed in its width). */
static LLVMValueRef emit_bits(em *e, const wv_insn *in, const wv_jop *o) {
  unsigned w = o->bits;
  LLVMTypeRef t = vec(ity(e, w));
  LLVMValueRef a = wv_em_regn(e, in->a, w), no = LLVMConstInt(e->i1, 0, 0), r;
  switch (o->op) {
  case WV_OP_POPC: r = wv_em_intrinsic(e, "llvm.ctpop", &t, 1, &a, 1); break;
  case WV_OP_CLZ: r = wv_em_intrinsic(e, "llvm.ctlz", &t, 1, (LLVMValueRef[]){a, no}, 2); break; /* (of 0: w) */
  case WV_OP_BREV: return widen(e, wv_em_intrinsic(e, "llvm.bitreverse", &t, 1, &a, 1), w, 0);
  default: { /* bfind: the highest bit set (.s: that differs from the sign), 0xffffffff if none; .shiftamt: w-1 - it */
    if (o->sgn) a = LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntSLT, a, LLVMConstNull(t), ""), LLVMBuildNot(e->b, a, ""), a, "");
    LLVMValueRef z = wv_em_intrinsic(e, "llvm.ctlz", &t, 1, (LLVMValueRef[]){a, no}, 2);
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

/* A path with accesses that check themselves runs only where a lane takes it (its checks and gathers cost even
 * with no lane; a boundary test's path is often taken by no lane of most warps): skip_open branches around it, and
 * skip_close merges the state the two ways leave in phis. So that every value the merge needs is made before the
 * branch, skip_open first loads what the path writes and every predicate, and makes each register's 64-bit value;
 * registers the path only reads are loaded in it and forgotten after it (clean, they are loaded again). */
typedef struct path_skip {
  LLVMBasicBlockRef from, join;
  side s; /* (its registers' and predicates' values before the path) */
  LLVMValueRef pcount[NCOUNTERS];
} path_skip;
static void skip_open(em *e, path_skip *k, const uint32_t *writes, uint32_t nw, LLVMValueRef none) {
  for (uint32_t j = 0; j < nw; j++) wv_em_reg(e, writes[j]);
  for (uint32_t p = 0; p < e->npreds; p++) pred(e, p);
  for (uint32_t r = 0; r < e->nregs; r++) wv_em_reg(e, e->regs[r].slot);
  side_in(e, &k->s);
  memcpy(k->pcount, e->pcount, sizeof k->pcount);
  k->from = LLVMGetInsertBlock(e->b);
  k->join = NULL;
  if (!side_whole(&k->s)) return; /* (out of memory: the path runs whatever its lanes; path_bail takes it back then) */
  LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->c, e->fn, "path");
  k->join = LLVMAppendBasicBlockInContext(e->c, e->fn, "path_end");
  LLVMBuildCondBr(e->b, none, k->join, run);
  LLVMPositionBuilderAtEnd(e->b, run);
}
static void skip_close(em *e, path_skip *k) {
  const side *b = &k->s;
  if (k->join) {
    int *chg = calloc(b->nregs + 1, sizeof *chg);
    for (uint32_t r = 0; r < b->nregs; r++) {
      const rval *x = &b->regs[r], *y = &e->regs[r];
      if (chg) chg[r] = x->v != y->v || x->v32 != y->v32 || x->vf != y->vf || x->ext != y->ext || x->dirty != y->dirty;
      if (!chg || chg[r]) wv_em_reg(e, y->slot); /* (its value at the path's end, made there) */
    }
    LLVMBasicBlockRef end = LLVMGetInsertBlock(e->b);
    LLVMBuildBr(e->b, k->join);
    LLVMPositionBuilderAtEnd(e->b, k->join);
    LLVMBasicBlockRef from[2] = {k->from, end};
    for (uint32_t r = 0; r < b->nregs; r++) {
      if (chg && !chg[r]) continue;
      LLVMValueRef phi = LLVMBuildPhi(e->b, e->v64, "");
      LLVMAddIncoming(phi, (LLVMValueRef[]){b->regs[r].v, e->regs[r].v}, from, 2);
      e->regs[r] = (rval){.slot = e->regs[r].slot, .v = phi, .dirty = b->regs[r].dirty | e->regs[r].dirty};
    }
    free(chg);
    e->nregs = b->nregs; /* (what the path loaded only to read) */
    for (uint32_t p = 0; p < e->npreds; p++) {
      if (e->pv[p] == b->pv[p]) continue;
      LLVMValueRef phi = LLVMBuildPhi(e->b, e->i32, "");
      LLVMAddIncoming(phi, (LLVMValueRef[]){b->pv[p], e->pv[p]}, from, 2);
      e->pv[p] = phi;
    }
    for (int c = 0; c < NCOUNTERS; c++) {
      if (e->pcount[c] == k->pcount[c]) continue;
      LLVMValueRef phi = LLVMBuildPhi(e->b, e->i64, "");
      LLVMAddIncoming(phi, (LLVMValueRef[]){k->pcount[c] ? k->pcount[c] : cint(e->i64, 0), e->pcount[c]}, from, 2);
      e->pcount[c] = phi;
    }
  }
  side_free(&k->s);
}

/* A forward branch the region holds at k (select.c wv_jit_branch), as the interpreter runs it: the lanes that do
 * not take it run their path, then those that do theirs, and all meet at the join (k's return: the join's index
 * in the region). Both paths run whole, each instruction for its path's lanes (none: nothing changes; no lane
 * reads another's register). What the interpreter would have counted differently goes to the group loop
 * (jit_hook.h), once both paths ran: a path no lane takes ran no instructions, a path some lanes take ran its
 * instructions for those only, and where both have lanes the group split and met again. Where the group already
 * waits at the join for lanes elsewhere (x->jit_stop), or a lane that takes a path would fail a load there that
 * the entry tested only for the host's bytes (wv_em_path_bad), the interpreter runs the branch; an access that
 * checks itself on a path (select.c on_path 2: before any store of the paths) returns to the branch where it
 * would fail (path_bail). */
static uint32_t emit_branch(em *e, const wv_insn *in, uint32_t k) {
  wv_jbranch br;
  int bad = !wv_jit_branch(e->f, e->pc, e->pc + k, NULL, &br); /* (select.c makes none of these) */
  /* each path's instructions in order, their kinds (NONE: its bra), and the registers it writes */
  uint32_t pcs[2][WV_JIT_BRANCH_MAX], npc[2] = {0, 0}, writes[2][WV_JIT_BRANCH_MAX], nw[2] = {0, 0};
  wv_jop ops[2][WV_JIT_BRANCH_MAX];
  int self = 0, stored = 0, pself[2] = {0, 0}; /* an access that checks itself (on path i); a store seen, in run order */
  for (int i = 0; i < 2 && !bad; i++)
    for (int r = 0; r < 2; r++)
      for (uint32_t pc = br.lo[i][r]; pc < br.hi[i][r]; pc++) {
        wv_jop *o = &ops[i][npc[i]];
        const wv_insn *pin = &e->f->code[pc];
        pcs[i][npc[i]++] = pc;
        *o = e->ops[pc - e->pc];
        if (o->kind == WV_JK_NONE) continue;
        if (wv_jop_dreg(o) && pin->d[0] != WV_NOSLOT) writes[i][nw[i]++] = pin->d[0];
        if (o->kind != WV_JK_LD && o->kind != WV_JK_ST) continue;
        if (!e->early[pc - e->pc]) { /* (select.c's rules, asked again: the bail-out to the branch depends on them) */
          bad |= stored || !wv_jit_path_access(pin, o);
          self = pself[i] = 1;
        }
        stored |= o->kind == WV_JK_ST;
      }
  if (bad) {
    wv_em_bail_if(e, LLVMConstInt(e->i1, 1, 0), k);
    return k + 1;
  }
  LLVMValueRef p = pred(e, (uint32_t)in->guard), zero = cint(e->i32, 0);
  if (in->guard_neg) p = LLVMBuildNot(e->b, p, "");
  LLVMValueRef lanes[2] = {LLVMBuildAnd(e->b, e->mask, LLVMBuildNot(e->b, p, ""), ""), LLVMBuildAnd(e->b, e->mask, p, "")};
  LLVMValueRef none[2], pop[2];
  for (int i = 0; i < 2; i++) {
    none[i] = LLVMBuildICmp(e->b, LLVMIntEQ, lanes[i], zero, "");
    pop[i] = LLVMBuildZExt(e->b, wv_em_intrinsic(e, "llvm.ctpop", &e->i32, 1, &lanes[i], 1), e->i64, "");
  }
  LLVMValueRef split = LLVMBuildNot(e->b, LLVMBuildOr(e->b, none[0], none[1], ""), "");
  /* the paths' loads the entry tested only for the host's bytes, for the lanes that take each (wv_em_checked_early) */
  LLVMValueRef pbad = LLVMBuildOr(e->b, wv_em_path_bad(e, pcs[0], npc[0], lanes[0]), wv_em_path_bad(e, pcs[1], npc[1], lanes[1]), "");
  /* the interpreter's: the group waits at the join already, or it splits while other groups of the warp could
   * run between its halves or see where it stands in the warp's list (the merged group is a new one, last) */
  LLVMValueRef stop = LLVMBuildLoad2(e->b, e->i32, field(e, offsetof(wv_exec, jit_stop)), "");
  LLVMValueRef alone = LLVMBuildLoad2(e->b, e->i32, field(e, offsetof(wv_exec, jit_alone)), "");
  wv_em_bail(e, LLVMBuildOr(e->b, LLVMBuildOr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, stop, cint(e->i32, br.join), ""),
                                          LLVMBuildAnd(e->b, split, LLVMBuildICmp(e->b, LLVMIntEQ, alone, zero, ""), ""), ""),
                         pbad, ""), k);
  LLVMValueRef skipped = LLVMBuildAdd(e->b, LLVMBuildSelect(e->b, none[0], cint(e->i32, br.n[0]), zero, ""),
                                      LLVMBuildSelect(e->b, none[1], cint(e->i32, br.n[1]), zero, ""), "");
  LLVMValueRef tless = LLVMBuildAdd(e->b, LLVMBuildMul(e->b, pop[1], cint(e->i64, br.n[0]), ""),
                                    LLVMBuildMul(e->b, pop[0], cint(e->i64, br.n[1]), ""), ""); /* (a split's) */
  if (self && !(e->snap = snap_take(e))) { /* (out of memory: the interpreter runs the branch) */
    wv_em_bail(e, LLVMConstInt(e->i1, 1, 0), k);
    return k + 1;
  }
  e->snap_k = k;
  e->bpc = e->pc + k;
  for (int i = 0; i < 2; i++) {
    e->other = writes[1 - i];
    e->nother = i ? nw[0] : 0; /* (emit_insn: the lanes of the path run second write what they keep of it) */
    e->pmask = lanes[i];
    path_skip skip = {0};
    if (pself[i]) skip_open(e, &skip, writes[i], nw[i], none[i]);
    for (uint32_t j = 0; j < npc[i]; j++)
      if (ops[i][j].kind != WV_JK_NONE) emit_insn(e, &e->f->code[pcs[i][j]], &ops[i][j], pcs[i][j] - e->pc); /* (else its bra) */
    if (pself[i]) skip_close(e, &skip);
  }
  e->pmask = e->mask;
  e->nother = 0;
  snap_free(e->snap);
  e->snap = NULL;
  /* what the interpreter counts differently, once both paths ran (a path's access that fails runs the branch again) */
  wv_em_add_field(e, offsetof(wv_exec, jit_skipped), e->i32, skipped);
  wv_em_add_field(e, offsetof(wv_exec, jit_split), e->i32, LLVMBuildZExt(e->b, split, e->i32, ""));
  wv_em_add_field(e, offsetof(wv_exec, jit_tless), e->i64, LLVMBuildSelect(e->b, split, tless, cint(e->i64, 0), ""));
  for (int c = 0; c < NCOUNTERS; c++) {
    if (e->pcount[c]) wv_em_add_field(e, wv_em_counters[c], e->i64, e->pcount[c]);
    e->pcount[c] = NULL;
  }
  return br.join - e->pc;
}

/* A guard at k (select.c wv_jit_guard): where a lane of the group takes it, the region stops before it and the
 * interpreter runs it (the lanes that go on start the next region); where none does, it is an instruction the
 * group went past, as the interpreter counts it. */
static uint32_t emit_guard(em *e, const wv_insn *in, uint32_t k) {
  LLVMValueRef taken = guard_holds(e, in, e->mask);
  bail_cold(e, LLVMBuildICmp(e->b, LLVMIntNE, taken, cint(e->i32, 0), ""), k); /* (the way on is the hot one) */
  return k + 1;
}

static void emit_insn(em *e, const wv_insn *in, const wv_jop *o, uint32_t k) {
  LLVMValueRef m32 = e->pmask;
  /* on a branch's path, the other lanes keep their value of the destination only where some may read it: not
   * where it is not live at the branch (each of them writes it before reading it, and no lane reads another's)
   * and the path that ran first does not write it (its lanes' values stay). On the path that runs first, the
   * lanes of the second write such a register before they read it, and the group's others are never stored: a
   * register both paths write (collatz's step count) is the second path's select of the first's, no old value. */
  int keep = e->pmask != e->mask;
  if (keep && in->d[0] != WV_NOSLOT && !live_at(e, e->bpc, in->d[0])) {
    keep = 0;
    for (uint32_t i = 0; i < e->nother; i++) keep |= e->other[i] == in->d[0];
  }
  e->guarded = in->guard >= 0 || keep;
  m32 = guard_holds(e, in, m32);
  LLVMValueRef mv = wv_em_lanes(e, m32);
  LLVMValueRef r = NULL, raw = NULL;
  switch (o->kind) {
  case WV_JK_IBIN: r = ibin(e, in, o); break;
  case WV_JK_IUN: {
    LLVMValueRef a = wv_em_regn(e, in->a, o->bits);
    r = widen(e, o->op == WV_OP_NOT ? LLVMBuildNot(e->b, a, "") : LLVMBuildNeg(e->b, a, ""), o->bits, o->sgn);
    break;
  }
  case WV_JK_MADLO: {
    LLVMValueRef a = wv_em_regn(e, in->a, o->bits), b = wv_em_regn(e, in->b, o->bits), c = wv_em_regn(e, in->c, o->bits);
    r = widen(e, LLVMBuildAdd(e->b, LLVMBuildMul(e->b, a, b, ""), c, ""), o->bits, o->sgn);
    break;
  }
  case WV_JK_MULWIDE: { /* the product at twice the width, stored extended by the source's signedness */
    unsigned w2 = o->bits * 2;
    LLVMTypeRef t2 = vec(ity(e, w2));
    LLVMValueRef a = wv_em_regn(e, in->a, o->bits), b = wv_em_regn(e, in->b, o->bits);
    a = o->sgn ? LLVMBuildSExt(e->b, a, t2, "") : LLVMBuildZExt(e->b, a, t2, "");
    b = o->sgn ? LLVMBuildSExt(e->b, b, t2, "") : LLVMBuildZExt(e->b, b, t2, "");
    r = widen(e, LLVMBuildMul(e->b, a, b, ""), w2, o->sgn);
    break;
  }
  case WV_JK_MADWIDE: {
    LLVMValueRef a = widen(e, wv_em_regn(e, in->a, 32), 32, o->sgn), b = widen(e, wv_em_regn(e, in->b, 32), 32, o->sgn);
    r = LLVMBuildAdd(e->b, LLVMBuildMul(e->b, a, b, ""), wv_em_reg(e, in->c), "");
    break;
  }
  case WV_JK_MOV: r = widen(e, wv_em_regn(e, in->a, o->bits), o->bits, o->sgn); break;
  case WV_JK_CVTI: /* (DT)(ST)a, stored extended by DT's sign */
    r = widen(e, narrow(e, widen(e, wv_em_regn(e, in->a, o->bits), o->bits, o->sgn), o->flt), o->flt, o->neg);
    break;
  case WV_JK_I2F: { /* the host's conversion, rounded to nearest */
    LLVMValueRef a = wv_em_regn(e, in->a, o->bits);
    LLVMTypeRef ft = vec(o->flt == 32 ? e->f32 : e->f64);
    LLVMValueRef f = o->sgn ? LLVMBuildSIToFP(e->b, a, ft, "") : LLVMBuildUIToFP(e->b, a, ft, "");
    r = o->flt == 32 ? widen(e, LLVMBuildBitCast(e->b, f, vec(e->i32), ""), 32, 0) : LLVMBuildBitCast(e->b, f, e->v64, "");
    break;
  }
  case WV_JK_SETP: emit_setp(e, in, o, m32); return;
  case WV_JK_SELP: {
    LLVMValueRef c = pred(e, in->c);
    if (in->neg_c) c = LLVMBuildNot(e->b, c, "");
    r = LLVMBuildSelect(e->b, wv_em_lanes(e, c), wv_em_reg(e, in->a), wv_em_reg(e, in->b), "");
    break;
  }
  case WV_JK_FBIN: {
    LLVMValueRef a = f32_in(e, in->a, o->ftz, 0), b = f32_in(e, in->b, o->ftz, 0);
    r = from_f32z(e, fbin(e, o->op, a, b), o->ftz, o->ftz && o->op == WV_OP_MUL ? tiny_f32(e, a, b, NULL) : NULL, &raw);
    break;
  }
  case WV_JK_DBIN: { /* (a NaN: a's, else b's) */
    LLVMValueRef s[2] = {wv_em_reg(e, in->a), wv_em_reg(e, in->b)}, a = as_f64(e, s[0]), b = as_f64(e, s[1]);
    r = from_f64(e, fbin(e, o->op, a, b), s, 2);
    break;
  }
  case WV_JK_DFMA: { /* contract.c's negations leave a NaN's sign (h_float.c neg64); a NaN: a's, c's, then b's */
    LLVMValueRef a = wv_em_reg(e, in->a), b = wv_em_reg(e, in->b), c = wv_em_reg(e, in->c);
    LLVMValueRef sign = splat(e, e->i64, 0x8000000000000000ull);
    if (o->neg & 1) a = LLVMBuildSelect(e->b, isnan64(e, a), a, LLVMBuildXor(e->b, a, sign, ""), "");
    if (o->neg & 2) c = LLVMBuildSelect(e->b, isnan64(e, c), c, LLVMBuildXor(e->b, c, sign, ""), "");
    LLVMTypeRef ft = vec(e->f64);
    LLVMValueRef args[] = {as_f64(e, a), as_f64(e, b), as_f64(e, c)}, s[3] = {a, c, b};
    r = from_f64(e, wv_em_intrinsic(e, "llvm.fma", &ft, 1, args, 3), s, 3);
    break;
  }
  case WV_JK_FUN: r = emit_fun(e, in, o); break;
  case WV_JK_FRS: r = emit_frs(e, in, o, &raw); break;
  case WV_JK_PACK: { /* h_pack: each source's low bits in their place */
    const uint32_t src[4] = {in->a, in->b, in->c, in->e};
    for (unsigned i = 0; i < o->vec; i++) {
      LLVMValueRef v = widen(e, wv_em_regn(e, src[i], o->bits), o->bits, 0);
      if (i) v = LLVMBuildShl(e->b, v, splat(e, e->i64, (uint64_t)o->bits * i), "");
      r = r ? LLVMBuildOr(e->b, r, v, "") : v;
    }
    break;
  }
  case WV_JK_UNPACK: { /* h_unpack: all parts of the source first (a destination may be it), then each in order */
    LLVMValueRef a = wv_em_reg(e, in->a), part[4];
    for (unsigned i = 0; i < o->vec; i++)
      part[i] = widen(e, narrow(e, i ? LLVMBuildLShr(e->b, a, splat(e, e->i64, (uint64_t)o->bits * i), "") : a, o->bits),
                      o->bits, 0);
    for (unsigned i = 0; i < o->vec; i++) wv_em_setreg(e, in->d[i], mv, part[i]);
    return;
  }
  case WV_JK_FFMA: {
    LLVMTypeRef ft = vec(e->f32);
    LLVMValueRef args[] = {f32_in(e, in->a, o->ftz, o->neg & 1), f32_in(e, in->b, o->ftz, 0), f32_in(e, in->c, o->ftz, o->neg & 2)};
    r = from_f32z(e, wv_em_intrinsic(e, "llvm.fma", &ft, 1, args, 3), o->ftz, o->ftz ? tiny_f32(e, args[0], args[1], args[2]) : NULL, &raw);
    break;
  }
  case WV_JK_CVTA: r = emit_cvta(e, in); break;
  case WV_JK_LD: case WV_JK_ST: case WV_JK_ATOM: wv_em_mem(e, in, o, m32, mv, k); return;
  case WV_JK_SHFL: emit_shfl(e, in, k, m32); return;
  case WV_JK_BITS: r = emit_bits(e, in, o); break;
  case WV_JK_PRED: emit_pred(e, in, o, m32); return;
  default: return;
  }
  wv_em_setreg(e, in->d[0], mv, r);
  rval *d = raw && !e->guarded && in->d[0] != WV_NOSLOT ? find(e, in->d[0]) : NULL; /* (every lane took r) */
  if (d) d->vf = raw;
}

/* The registers a loop's body (the region) names and that are live at its start, carried from one turn to the
 * next in SSA values (phis at its top, their first value loaded in the entry block; emit_back adds the others):
 * the cache starts with them, changed where the body writes them (so that a stop in a later turn stores what an
 * earlier one wrote). Their number. */
/* How instruction kind o's result is stored from its low 32 bits, as emit_insn and wv_em_mem widen it: 1 zero-,
 * 2 sign-extended; 0 another way (64 bits of its own, a select of whole registers). */
static uint8_t out_ext(const wv_jop *o) {
  switch (o->kind) {
  case WV_JK_IBIN: case WV_JK_IUN: case WV_JK_MADLO: case WV_JK_MOV: case WV_JK_LD: case WV_JK_ATOM:
    return o->bits <= 32 ? (o->sgn ? 2 : 1) : 0;
  case WV_JK_MULWIDE: return o->bits <= 16 ? (o->sgn ? 2 : 1) : 0;
  case WV_JK_CVTI: return o->flt <= 32 ? (o->neg ? 2 : 1) : 0;
  case WV_JK_I2F: return o->flt == 32 ? 1 : 0;
  case WV_JK_FBIN: case WV_JK_FFMA: case WV_JK_SHFL: return 1;
  case WV_JK_FUN: case WV_JK_FRS: return o->flt == 32 ? 1 : 0;
  case WV_JK_PACK: return o->bits * o->vec <= 32 ? 1 : 0;
  case WV_JK_UNPACK: return o->bits <= 32 ? 1 : 0;
  case WV_JK_BITS: return o->op != WV_OP_BREV || o->bits == 32 ? 1 : 0;
  default: return 0;
  }
}

static uint32_t carry_in(em *e, const wv_func *f, uint32_t pc, uint32_t len, LLVMBasicBlockRef top, LLVMValueRef *phi,
                         uint8_t *pext) {
  uint32_t n = 0, *slot = malloc((EM_SLOTS * (size_t)len + 1) * sizeof *slot);
  uint8_t *wr = calloc(EM_SLOTS * (size_t)len + 1, 1);
  if (!slot || !wr) { /* (out of memory: nothing carried, each turn loads what it reads) */
    free(slot);
    free(wr);
    return 0;
  }
  memset(pext, 0xff, EM_SLOTS * (size_t)len + 1); /* (0xff: not written yet) */
  for (uint32_t k = 0; k < len; k++) {
    const wv_insn *in = &f->code[pc + k];
    const wv_jop o = e->ops[k];
    if (o.kind == WV_JK_NONE) continue; /* (a branch the region holds) */
    unsigned nv = o.vec > 1 ? o.vec : 1; /* (a vector ld/st: d[0 .. vec - 1]) */
    const uint32_t s[EM_SLOTS] = {in->a, in->b, in->c, in->e, in->d[0], nv > 1 ? in->d[1] : WV_NOSLOT,
                                  nv > 2 ? in->d[2] : WV_NOSLOT, nv > 3 ? in->d[3] : WV_NOSLOT};
    for (int i = 0; i < EM_SLOTS; i++) {
      if (s[i] == WV_NOSLOT || WV_SLOT_BANK(s[i]) != WV_SLOT_REG || WV_SLOT_INDEX(s[i]) >= f->nregs) continue;
      if (!live_at(e, pc, s[i])) continue; /* (written before it is read in every turn: nothing to carry) */
      uint32_t j = 0;
      while (j < n && slot[j] != s[i]) j++;
      if (j == n) slot[n++] = s[i];
      if (i >= 4 && wv_jop_dreg(&o)) { /* (each write's way: one for all, or 0) */
        uint8_t x = out_ext(&o);
        pext[j] = wr[j] && pext[j] != x ? 0 : x;
        wr[j] = 1;
      }
    }
  }
  /* a register every write of the body extends from 32 bits alike goes round as those bits (an i32 phi), where
   * its value at the start is so too (else the region does nothing and the interpreter runs it) */
  LLVMValueRef *first = malloc((n + 1) * sizeof *first), bad = cint(e->i32, 0);
  for (uint32_t j = 0; first && j < n; j++) {
    if (!wr[j] || pext[j] == 0xff) pext[j] = 0;
    first[j] = wv_em_reg(e, slot[j]);
    if (!pext[j]) continue;
    LLVMValueRef lo = LLVMBuildTrunc(e->b, first[j], vec(e->i32), "");
    LLVMValueRef ne = LLVMBuildICmp(e->b, LLVMIntNE, widen(e, lo, 32, pext[j] == 2), first[j], "");
    bad = LLVMBuildOr(e->b, bad, LLVMBuildBitCast(e->b, ne, e->i32, ""), "");
    first[j] = lo;
  }
  e->nregs = 0; /* (the loads stay in the entry block: the cache holds the phis) */
  LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(e->c, e->fn, "unlike");
  LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, LLVMBuildAnd(e->b, bad, e->mask, ""), cint(e->i32, 0), ""), no, top);
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(e->b);
  LLVMPositionBuilderAtEnd(e->b, no);
  LLVMBuildRet(e->b, cint(e->i32, 0));
  LLVMPositionBuilderAtEnd(e->b, top);
  for (uint32_t j = 0; first && j < n; j++) {
    phi[j] = LLVMBuildPhi(e->b, pext[j] ? vec(e->i32) : e->v64, "");
    LLVMAddIncoming(phi[j], &first[j], &entry, 1);
    rval *r = &e->regs[e->nregs++];
    *r = pext[j] ? (rval){.slot = slot[j], .v32 = phi[j], .ext = pext[j], .dirty = wr[j]}
                 : (rval){.slot = slot[j], .v = phi[j], .dirty = wr[j]};
  }
  uint32_t carried = first ? n : 0;
  free(first);
  free(slot);
  free(wr);
  return carried;
}

/* The branch after a region back to its start (a loop the region is the body of), as the interpreter runs it where
 * all the group's lanes take it: once more, where the time slice has room for it and the region again
 * (x->jit_room) and the group need not stop at the start; the group loop counts the turns (x->jit_extra). Else
 * the region returns, and the interpreter runs the branch. The registers go round in phis (carry_in); the
 * predicates and counters are stored. */
static void emit_back(em *e, const wv_insn *in, LLVMBasicBlockRef top, uint32_t len, LLVMValueRef *phi, const uint8_t *pext,
                      uint32_t ncarry) {
  LLVMValueRef t = guard_holds(e, in, e->mask);
  LLVMValueRef room = LLVMBuildLoad2(e->b, e->i32, field(e, offsetof(wv_exec, jit_room)), "");
  LLVMValueRef xp = field(e, offsetof(wv_exec, jit_extra)), stop = LLVMBuildLoad2(e->b, e->i32, field(e, offsetof(wv_exec, jit_stop)), "");
  LLVMValueRef used = LLVMBuildAdd(e->b, LLVMBuildLoad2(e->b, e->i32, xp, ""), cint(e->i32, len + 1), ""); /* (with the branch) */
  LLVMValueRef fits = LLVMBuildICmp(e->b, LLVMIntULT, LLVMBuildAdd(e->b, used, cint(e->i32, len), ""), room, "");
  LLVMValueRef again = LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, t, e->mask, ""), fits, "");
  again = LLVMBuildAnd(e->b, again, LLVMBuildICmp(e->b, LLVMIntNE, stop, cint(e->i32, e->pc), ""), "");
  LLVMBasicBlockRef turn = LLVMAppendBasicBlockInContext(e->c, e->fn, "again"), out = LLVMAppendBasicBlockInContext(e->c, e->fn, "out");
  LLVMBuildCondBr(e->b, again, turn, out);
  LLVMPositionBuilderAtEnd(e->b, turn);
  side s;
  side_in(e, &s);
  flush_to(e, e->pc + len, 0);
  LLVMBuildStore(e->b, used, xp);
  for (uint32_t j = 0; j < ncarry; j++) { /* (the cache's first entries are the carried registers) */
    rval *r = &e->regs[j];
    LLVMValueRef v = !pext[j] ? wv_em_reg(e, r->slot) : r->ext == pext[j] && r->v32 ? r->v32 : wv_em_regn(e, r->slot, 32);
    LLVMBasicBlockRef end = LLVMGetInsertBlock(e->b);
    LLVMAddIncoming(phi[j], &v, &end, 1);
  }
  LLVMBuildBr(e->b, top);
  side_out(e, &s);
  LLVMPositionBuilderAtEnd(e->b, out);
}

/* ---- prefetching ---- */
#define PF_MAX 8 /* accesses prefetched ahead of one, at most */

/* Whether instruction kind o is integer arithmetic on registers that prefetch_ahead may make early (no effect
 * but its destination d[0], from a, b and c). */
static int pf_arith(const wv_jop *o) {
  switch (o->kind) {
  case WV_JK_IBIN: case WV_JK_IUN: case WV_JK_MADLO: case WV_JK_MULWIDE: case WV_JK_MADWIDE: case WV_JK_MOV:
  case WV_JK_CVTI: case WV_JK_CVTA:
    return 1;
  default:
    return 0;
  }
}

/* Sets of register slots (at most cap; order not kept): whether s is in one, s added (where absent and there is
 * room), s taken out (where present). */
static int pf_has(const uint32_t *set, uint32_t n, uint32_t s) {
  for (uint32_t i = 0; i < n; i++)
    if (set[i] == s) return 1;
  return 0;
}
static void pf_add(uint32_t *set, uint32_t *n, uint32_t cap, uint32_t s) {
  if (s != WV_NOSLOT && *n < cap && !pf_has(set, *n, s)) set[(*n)++] = s;
}
static void pf_drop(uint32_t *set, uint32_t *n, uint32_t s) {
  for (uint32_t i = 0; i < *n; i++)
    if (set[i] == s) {
      set[i] = set[--*n];
      return;
    }
}

/* Before the access at k, the first that may be global of a straight run (no branch from k to `end`): prefetches
 * for the later ones of the run whose addresses are known there (made by integer arithmetic from registers as they
 * are at k, the loads' values not), so that their cache misses overlap this one's (transpose's four rows of a
 * warp, each a miss, were taken one after another: the code between two is longer than the core's window). The
 * arithmetic is made again here, on the emitter's state of k, which is then as it was (LLVM merges the two). */
static void prefetch_ahead(em *e, uint32_t k, uint32_t end) {
  uint32_t unknown[EM_SLOTS * 64], nun = 0, want[EM_SLOTS * 64], nwant = 0, acc[PF_MAX], nacc = 0;
  uint32_t seen[PF_MAX + 1] = {e->code[k].a}, nseen = 1; /* accesses of the run through a register not written since */
  int64_t seen_at[PF_MAX + 1] = {e->code[k].imm};
  if (end - k > 64) end = k + 64;
  uint8_t need[64] = {0};
  for (uint32_t j = k + 1; j < end && nacc < PF_MAX; j++) { /* the accesses whose addresses are known at k */
    const wv_insn *in = &e->code[j];
    const wv_jop o = e->ops[j];
    if (o.kind == WV_JK_NONE) break;
    uint32_t d[4], nd = wv_jop_dregs(in, &o, d);
    if (wv_em_prefetchable(in, &o) && !wv_em_hoisted(e, j) && in->a != WV_NOSLOT && !pf_has(unknown, nun, in->a)) {
      int near = 0; /* (one through the same register within a line of it: its lines are fetched already) */
      for (uint32_t i = 0; i < nseen; i++) near |= seen[i] == in->a && seen_at[i] - in->imm < 64 && in->imm - seen_at[i] < 64;
      if (!near) acc[nacc++] = j, seen[nseen] = in->a, seen_at[nseen++] = in->imm;
    }
    for (uint32_t i = 0; i < nd; i++) /* (a register written: what was seen through it is another address now) */
      for (uint32_t u = 0; u < nseen; u++)
        if (seen[u] == d[i]) seen[u] = WV_NOSLOT;
    const uint32_t src[3] = {in->a, in->b, in->c};
    int known = pf_arith(&o) && in->guard < 0;
    for (int i = 0; i < 3 && known; i++) known = src[i] == WV_NOSLOT || !pf_has(unknown, nun, src[i]);
    for (uint32_t i = 0; i < nd; i++)
      if (known) pf_drop(unknown, &nun, d[i]); /* (known again) */
      else pf_add(unknown, &nun, sizeof unknown / sizeof *unknown, d[i]);
  }
  if (!nacc) return;
  /* the arithmetic the accesses' addresses come from, walking back */
  for (uint32_t j = acc[nacc - 1] + 1, n = nacc; j-- > k + 1;) {
    const wv_insn *in = &e->code[j];
    const wv_jop o = e->ops[j];
    if (n && acc[n - 1] == j) {
      need[j - k] = 2;
      n--;
      pf_add(want, &nwant, sizeof want / sizeof *want, in->a);
      continue;
    }
    if (!pf_arith(&o) || in->guard >= 0 || in->d[0] == WV_NOSLOT || !pf_has(want, nwant, in->d[0])) continue;
    need[j - k] = 1;
    pf_drop(want, &nwant, in->d[0]);
    const uint32_t src[3] = {in->a, in->b, in->c};
    for (int i = 0; i < 3; i++) pf_add(want, &nwant, sizeof want / sizeof *want, src[i]);
  }
  side s;
  side_in(e, &s);
  if (!side_whole(&s)) {
    side_free(&s);
    return;
  }
  for (uint32_t j = k + 1; j <= acc[nacc - 1]; j++) {
    const wv_jop *o = &e->ops[j];
    if (!need[j - k] || o->kind == WV_JK_NONE) continue;
    if (need[j - k] == 2) wv_em_prefetch(e, &e->code[j], o, j, 1);
    else emit_insn(e, &e->code[j], o, j);
  }
  side_out(e, &s);
}

/* (emit.h) */
LLVMValueRef wv_jit_emit_region(LLVMContextRef c, LLVMModuleRef mod, const char *name, const wv_func *f, uint32_t pc,
                                uint32_t len, const uint64_t *live, uint32_t words, int target) {
  em e = {.c = c, .mod = mod, .pc = pc, .live = live, .words = words, .consts = f->consts, .nconsts = f->nconsts,
         .kmask = (target & WV_EMIT_KMASK) != 0, .scatter = (target & WV_EMIT_SCATTER) != 0};
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
  e.capregs = EM_SLOTS * len + 4;
  e.regs = malloc(e.capregs * sizeof *e.regs);
  uint8_t *early = calloc(len, 1);
  wv_jop *ops = malloc(len * sizeof *ops);
  if (!e.pv || !e.pdirty || !e.regs || !early || !ops) {
    free(e.pv);
    free(e.pdirty);
    free(e.regs);
    free(early);
    free(ops);
    return NULL;
  }
  for (uint32_t k = 0; k < len; k++)
    if (!wv_jit_select(&f->code[pc + k], &ops[k])) ops[k].kind = WV_JK_NONE;
  e.ops = ops;
  LLVMTypeRef params[] = {e.ptr, e.i32};
  e.fn = LLVMAddFunction(mod, name, LLVMFunctionType(e.i32, params, 2, 0));
  /* a frame aligned to 64 bytes: LLVM then gives a spilled 512-bit vector an aligned slot, where one at any 16 bytes
   * straddles two cache lines, and a load of it soon after its store waits (matmul's shared-memory tiles, 32 kept
   * vectors) */
  const char align_kind[] = "alignstack";
  LLVMAddAttributeAtIndex(e.fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(c, LLVMGetEnumAttributeKindForName(align_kind, sizeof align_kind - 1), 64));
  e.x = LLVMGetParam(e.fn, 0);
  e.mask = LLVMGetParam(e.fn, 1);

  e.b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(e.b, LLVMAppendBasicBlockInContext(c, e.fn, "entry"));
  for (int k = 0; k < 3; k++)
    e.bank[k] = LLVMBuildLoad2(e.b, e.ptr, field(&e, offsetof(wv_exec, bank) + (size_t)k * sizeof(void *)), "");
  e.preds_p = LLVMBuildLoad2(e.b, e.ptr, field(&e, offsetof(wv_exec, preds)), "");
  e.out = wv_em_entry_alloca(&e, LLVMArrayType(e.i64, 2));
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
  e.f = f;
  LLVMBasicBlockRef top = LLVMAppendBasicBlockInContext(c, e.fn, "top"); /* (a loop's body starts again here) */
  int loops = pc + len < f->ncode && f->code[pc + len].ctl == WV_CTL_BRA && f->code[pc + len].target == pc;
  LLVMValueRef *phi = loops ? malloc((EM_SLOTS * (size_t)len + 1) * sizeof *phi) : NULL;
  uint8_t *pext = loops ? malloc(EM_SLOTS * (size_t)len + 1) : NULL;
  uint32_t ncarry = phi && pext ? carry_in(&e, f, pc, len, top, phi, pext) : 0;
  e.cold = loops;
  if (LLVMGetInsertBlock(e.b) != top) { /* (no loop, or out of memory there) */
    LLVMBuildBr(e.b, top);
    LLVMPositionBuilderAtEnd(e.b, top);
  }
  wv_em_checked_early(&e, &f->code[pc], len, early);
  LLVMValueRef *hoist = calloc(len + 1, sizeof *hoist);
  e.hoist = hoist;
  if (hoist) wv_em_hoist_loads(&e, &f->code[pc], len);
  if (!e.cold) { /* (few accesses that check themselves: each bail-out's stores of its own are few) */
    uint32_t checks = 0;
    for (uint32_t k = 0; k < len; k++) {
      uint8_t kd = e.ops[k].kind;
      checks += (kd == WV_JK_LD || kd == WV_JK_ST || kd == WV_JK_ATOM) && !early[k] && !wv_em_hoisted(&e, k);
    }
    e.cold = checks <= COLD_CHECKS;
  }
  e.pmask = e.mask;
  int fetched = 0; /* prefetch_ahead made the prefetches of the straight run since the last branch */
  for (uint32_t k = 0; k < len;) {
    const wv_jop *o = &e.ops[k];
    if (f->code[pc + k].ctl == WV_CTL_BRA) { /* (select.c: a branch it holds, or a guard) */
      k = wv_jit_guard(f, pc, pc + k) ? emit_guard(&e, &f->code[pc + k], k) : emit_branch(&e, &f->code[pc + k], k);
      fetched = 0;
      continue;
    }
    if (o->kind == WV_JK_NONE) break; /* (regions hold only these) */
    if (!fetched && hoist && !wv_em_hoisted(&e, k) && wv_em_prefetchable(&f->code[pc + k], o)) {
      uint32_t end = k + 1;
      while (end < len && f->code[pc + end].ctl != WV_CTL_BRA) end++;
      wv_em_prefetch(&e, &f->code[pc + k], o, k, 0);
      prefetch_ahead(&e, k, end);
      fetched = 1;
    }
    emit_insn(&e, &f->code[pc + k], o, k);
    k++;
  }
  if (loops) emit_back(&e, &f->code[pc + len], top, len, phi, pext, ncarry);
  flush(&e, pc + len);
  LLVMBuildRet(e.b, cint(e.i32, len));
  free(phi);
  free(pext);
  LLVMDisposeBuilder(e.b);
  free(e.regs);
  free(early);
  free(ops);
  wv_em_hoist_free(&e);
  free(hoist);
  free(e.pv);
  free(e.pdirty);
  return e.fn;
}
#endif
