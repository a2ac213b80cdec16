/*
 * emit_mem.c — a region's memory accesses (emit_int.h): each ld/st/atom checked warp-wide before any effect, as
 * exec's fast path checks it (jit_rt.c wv_jit_mem, or the .shared test inline), the unguarded .shared ones at
 * the region's entry at once (wv_em_checked_early); then made a half-warp at a time: a row as one masked vector
 * access, one element for all as one load, else a gather or scatter; shared-memory counters as h_atom's loop;
 * prefetches of later global accesses (wv_em_prefetch).
 */
#ifdef WV_HAVE_LLVM
#include <stdlib.h>

#include "jit/emit_int.h"

/* Which of wv_em_counters an access counts in (the interpreter's wv_mem_counter), -1 none. */
static int counter(int space, int st) {
  size_t off = wv_mem_counter(space, st);
  for (int c = 0; c < C_COLL; c++)
    if (wv_em_counters[c] == off) return c;
  return -1;
}

/* A call of warpvm's function `name` (of type ret(params)), declared in the module at its first call (jit.c defines
 * the symbol's address). */
static LLVMValueRef call_rt(em *e, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n, LLVMValueRef *args) {
  LLVMTypeRef ft = LLVMFunctionType(ret, params, n, 0);
  LLVMValueRef fp = LLVMGetNamedFunction(e->mod, name);
  if (!fp) fp = LLVMAddFunction(e->mod, name, ft);
  return LLVMBuildCall2(e->b, ft, fp, args, n, "");
}

/* The lanes' addresses of access `in` as warp_addrs (h_mem.c) computes them: ((base & bmask) + off) & wmask; *base:
 * its address register's lanes & bmask. */
static LLVMValueRef lane_addrs(em *e, const wv_insn *in, LLVMValueRef *base) {
  uint64_t bmask = (in->addrf & WV_AF_ADDR32) ? 0xffffffffu : ~0ull, wmask = (in->addrf & WV_AF_WRAP32) ? 0xffffffffu : ~0ull;
  *base = LLVMBuildAnd(e->b, in->a != WV_NOSLOT ? wv_em_reg(e, in->a) : LLVMConstNull(e->v64), splat(e, e->i64, bmask), "");
  return LLVMBuildAnd(e->b, LLVMBuildAdd(e->b, *base, splat(e, e->i64, (uint64_t)in->imm), ""), splat(e, e->i64, wmask), "");
}

/* The active lanes' lowest and highest value of base and the OR of all, reduced at 32 bits where w32 (GVN shares
 * them between the accesses through one register). */
static void reduce_addrs(em *e, LLVMValueRef a, LLVMValueRef mv, int w32, LLVMValueRef *lo, LLVMValueRef *hi,
                         LLVMValueRef *bits) {
  LLVMTypeRef t = w32 ? e->i32 : e->i64, rt[1] = {vec(t)};
  if (w32) a = narrow(e, a, 32);
  LLVMValueRef l = LLVMBuildSelect(e->b, mv, a, splat(e, t, ~0ull), "");
  LLVMValueRef h = LLVMBuildSelect(e->b, mv, a, LLVMConstNull(vec(t)), "");
  *lo = wv_em_intrinsic(e, "llvm.vector.reduce.umin", rt, 1, &l, 1);
  *hi = wv_em_intrinsic(e, "llvm.vector.reduce.umax", rt, 1, &h, 1);
  *bits = wv_em_intrinsic(e, "llvm.vector.reduce.or", rt, 1, &h, 1);
  if (w32) {
    *lo = LLVMBuildZExt(e->b, *lo, e->i64, "");
    *hi = LLVMBuildZExt(e->b, *hi, e->i64, "");
    *bits = LLVMBuildZExt(e->b, *bits, e->i64, "");
  }
}

typedef struct early_set { /* the early accesses through one register, of one size, loads or stores: one test */
  uint32_t slot;
  unsigned bytes;
  int st;
  int64_t off_lo, off_hi;
  uint64_t off_or;
  int64_t lower; /* the least base: the greatest of each access's floor - off (set_add) */
} early_set;

/* Adds access in (through its register, of its size and kind, at its offset) to the sets: a lane's address of it
 * must be at least floor (WV_SHARED_BASE, where the space's variables start; 0 where only the host's bytes must
 * be there, wv_em_checked_early). */
static void set_add(early_set *set, uint32_t *nset, const wv_insn *in, unsigned bytes, int st, int64_t floor) {
  int64_t off = in->imm; /* (within 2^30 of 0: wv_jit_shared_inline) */
  uint32_t i = 0;
  while (i < *nset && !(set[i].slot == in->a && set[i].bytes == bytes && set[i].st == st)) i++;
  if (i == *nset) set[(*nset)++] = (early_set){in->a, bytes, st, off, off, 0, floor - off};
  set[i].off_lo = off < set[i].off_lo ? off : set[i].off_lo;
  set[i].off_hi = off > set[i].off_hi ? off : set[i].off_hi;
  set[i].off_or |= (uint64_t)off;
  set[i].lower = floor - off > set[i].lower ? floor - off : set[i].lower;
}

/* Whether a cp.async of the CTA not yet delivered writes into the bytes the load sets among set[0 .. n - 1] span
 * together: exec's wv_async_pending_in, asked only while one is pending (e->async_pending, fixed while the region
 * runs: it issues and delivers none), the span made from the lanes' extremes only on that way (each set's register
 * was read before: set_bad). */
static LLVMValueRef pending_in(em *e, const early_set *set, uint32_t n, LLVMValueRef mv) {
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->b), ask = LLVMAppendBasicBlockInContext(e->c, e->fn, "pending");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->fn, "asked");
  LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, e->async_pending, cint(e->i32, 0), ""), ask, done);
  LLVMPositionBuilderAtEnd(e->b, ask);
  LLVMValueRef lo = NULL, end = NULL;
  for (uint32_t i = 0; i < n; i++) {
    const early_set *a = &set[i];
    if (a->st) continue;
    LLVMValueRef base = a->slot != WV_NOSLOT ? wv_em_reg(e, a->slot) : LLVMConstNull(e->v64), l, h, bits;
    reduce_addrs(e, base, mv, 1, &l, &h, &bits);
    l = LLVMBuildAdd(e->b, l, cint(e->i64, (uint64_t)a->off_lo), "");
    h = LLVMBuildAdd(e->b, h, cint(e->i64, (uint64_t)(a->off_hi + (int64_t)a->bytes)), "");
    lo = lo ? LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntULT, l, lo, ""), l, lo, "") : l;
    end = end ? LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntUGT, h, end, ""), h, end, "") : h;
  }
  LLVMTypeRef pt[] = {e->ptr, e->i64, e->i64};
  LLVMValueRef r = call_rt(e, "wv_async_pending_in", e->i32, pt, 3, (LLVMValueRef[]){e->x, lo, end});
  LLVMBasicBlockRef asked = LLVMGetInsertBlock(e->b);
  LLVMBuildBr(e->b, done);
  LLVMPositionBuilderAtEnd(e->b, done);
  LLVMValueRef v = LLVMBuildPhi(e->b, e->i32, ""), in[] = {cint(e->i32, 0), r};
  LLVMBasicBlockRef from[] = {pre, asked};
  LLVMAddIncoming(v, in, from, 2);
  return LLVMBuildICmp(e->b, LLVMIntNE, v, cint(e->i32, 0), "");
}

#define HALF (WV_WARP / 2)
#define EM_GROUP 32 /* loads through one register that access() makes together, at most */
/* The n-element vector whose element j is element idx[j] of a and b side by side (b NULL: a alone). */
static LLVMValueRef pick(em *e, LLVMValueRef a, LLVMValueRef b, const unsigned *idx, unsigned n) {
  LLVMValueRef iv[4 * WV_WARP];
  for (unsigned j = 0; j < n; j++) iv[j] = cint(e->i32, idx[j]);
  return LLVMBuildShuffleVector(e->b, a, b ? b : LLVMGetUndef(LLVMTypeOf(a)), LLVMConstVector(iv, n), "");
}
/* Lanes lo .. lo + n - 1 of v. */
static LLVMValueRef lanes(em *e, LLVMValueRef v, unsigned lo, unsigned n) {
  unsigned idx[WV_WARP];
  for (unsigned i = 0; i < n; i++) idx[i] = lo + i;
  return pick(e, v, NULL, idx, n);
}
/* Whether the active lanes (m) of v hold one value, and (*lo) that value: lane 0's, which they all hold where the
 * test passes (an inactive lane's register holds a value too; no lane active: the test passes and nothing is
 * accessed). Lane 0's, not the first active lane's: a lane picked by a variable index goes through memory. */
static LLVMValueRef same(em *e, LLVMValueRef v, LLVMValueRef m, LLVMValueRef *lo) {
  LLVMTypeRef vt = LLVMTypeOf(v);
  unsigned n = LLVMGetVectorSize(vt);
  LLVMTypeRef it = LLVMIntTypeInContext(e->c, n);
  *lo = LLVMBuildExtractElement(e->b, v, cint(e->i32, 0), "");
  LLVMValueRef s = LLVMBuildShuffleVector(e->b, v, LLVMGetUndef(vt), LLVMConstNull(LLVMVectorType(e->i32, n)), "");
  LLVMValueRef eq = LLVMBuildOr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, v, s, ""), LLVMBuildNot(e->b, m, ""), "");
  return LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildBitCast(e->b, eq, it, ""), LLVMConstAllOnes(it), "");
}

/* Elements v (<16 x iN>) of a half's lanes mh to pointers p: llvm.masked.scatter where the target has a scatter
 * worth using (e->scatter: AVX-512's but on AMD, emit.h); elsewhere a call of jit_rt.c wv_jit_scatter with the
 * pointers and elements in the frame: without AVX-512 LLVM makes the intrinsic a branch and a store per lane (a
 * tenth of scan's AVX2 code and more of its compile time); on a Zen 4 bench/omp's nw, whose tiles go out a column
 * at a time, took 26% fewer samples in perf with the call than with the instruction. */
static void scatter(em *e, LLVMValueRef v, LLVMValueRef p, LLVMValueRef mh, unsigned size) {
  if (e->scatter) {
    LLVMTypeRef tg[] = {LLVMTypeOf(v), LLVMTypeOf(p)};
    wv_em_intrinsic(e, "llvm.masked.scatter", tg, 2, (LLVMValueRef[]){v, p, cint(e->i32, size), mh}, 4);
    return;
  }
  LLVMValueRef pa = wv_em_entry_alloca(e, LLVMTypeOf(p)), va = wv_em_entry_alloca(e, LLVMTypeOf(v));
  LLVMBuildStore(e->b, p, pa);
  LLVMBuildStore(e->b, v, va);
  LLVMValueRef m = LLVMBuildZExt(e->b, LLVMBuildBitCast(e->b, mh, LLVMIntTypeInContext(e->c, HALF), ""), e->i32, "");
  LLVMTypeRef pt[] = {e->ptr, e->ptr, e->i32, e->i32};
  call_rt(e, "wv_jit_scatter", LLVMVoidTypeInContext(e->c), pt, 4, (LLVMValueRef[]){pa, va, m, cint(e->i32, size)});
}

/* access()'s choice for a half-warp, made once for loads made in parts (wv_em_hoist_loads): whether its lanes'
 * addresses are a row, a row in descending order (rev; NULL: not asked, the access is not a vector's), or one
 * element for all (one), and lane 0's place in the row (dlo, rlo) or its element (blo). */
typedef struct half_plan {
  LLVMValueRef row, rev, one, dlo, rlo, blo;
} half_plan;
typedef struct wv_em_plan {
  half_plan h[2];
} wv_em_plan;
/* <0, bytes, 2 * bytes, ...> of type t: lane l's place in a row of a half-warp's accesses of bytes each. */
static LLVMValueRef row_steps(LLVMTypeRef t, unsigned bytes) {
  LLVMValueRef step[HALF];
  for (unsigned l = 0; l < HALF; l++) step[l] = cint(t, (uint64_t)l * bytes);
  return LLVMConstVector(step, HALF);
}
/* The choice for a half-warp of base bh, lanes mh (access(): unit, where not NULL, that the stride is 0; bc, that a
 * broadcast is a path). */
static void plan_half(em *e, LLVMValueRef bh, LLVMValueRef mh, LLVMValueRef steps, LLVMValueRef unit, int bc, int rv,
                      half_plan *p) {
  p->row = same(e, LLVMBuildSub(e->b, bh, steps, ""), mh, &p->dlo);
  p->rev = rv ? same(e, LLVMBuildAdd(e->b, bh, steps, ""), mh, &p->rlo) : NULL;
  p->one = bc ? same(e, bh, mh, &p->blo) : NULL;
  if (unit) {
    p->row = LLVMBuildAnd(e->b, p->row, unit, "");
    if (p->rev) p->rev = LLVMBuildAnd(e->b, p->rev, unit, "");
    if (p->one) p->one = LLVMBuildAnd(e->b, p->one, unit, "");
  }
}

/* access()'s row path, in the current block: the n accesses of a half-warp (lanes mh; a store's values svh) as
 * masked loads or stores of its nr = 16 * nv elements from host + first + off[j], lane l's nv elements at place
 * l (rev: 15 - l, the lanes' addresses descending) of the row; a load's lane values to vv. */
static void row_path(em *e, const wv_jop *o, unsigned n, const uint64_t *off, LLVMValueRef first, LLVMValueRef host,
                     LLVMValueRef mh, const LLVMValueRef *svh, LLVMValueRef (*vv)[4], int rev) {
  unsigned size = o->bits / 8, nv = o->vec > 1 ? o->vec : 1, nr = HALF * nv;
  LLVMTypeRef rt = LLVMVectorType(ity(e, o->bits), nr);
  LLVMTypeRef tv[] = {rt, e->ptr};
  LLVMValueRef size32 = cint(e->i32, size);
  /* element j of the row is element j % nv of lane l (rep[j]; inter[j]: its place among the store's values) */
  unsigned rep[4 * HALF], inter[4 * HALF];
  for (unsigned j = 0; j < nr; j++) {
    unsigned l = rev ? HALF - 1 - j / nv : j / nv;
    rep[j] = l, inter[j] = (j % nv) * HALF + l;
  }
  LLVMValueRef mr = nv > 1 || rev ? pick(e, mh, NULL, rep, nr) : mh;
  for (unsigned j = 0; j < n; j++) {
    LLVMValueRef at = LLVMBuildAdd(e->b, first, cint(e->i64, off[j]), "");
    LLVMValueRef p0 = LLVMBuildGEP2(e->b, e->i8, host, &at, 1, ""); /* the row's first element */
    if (o->kind == WV_JK_ST) { /* the elements interleaved: lane 0's, lane 1's, ... (rev: lane 15's first) */
      LLVMValueRef all = svh[0];
      if (nv > 1) {
        unsigned cat[4 * HALF];
        for (unsigned q = 0; q < 4 * HALF; q++) cat[q] = q;
        all = pick(e, svh[0], svh[1], cat, 2 * HALF);
        if (nv == 4) all = pick(e, all, pick(e, svh[2], svh[3], cat, 2 * HALF), cat, 4 * HALF);
      }
      if (nv > 1 || rev) all = pick(e, all, NULL, inter, nr);
      wv_em_intrinsic(e, "llvm.masked.store", tv, 2, (LLVMValueRef[]){all, p0, size32, mr}, 4);
    } else {
      LLVMValueRef all = wv_em_intrinsic(e, "llvm.masked.load", tv, 2, (LLVMValueRef[]){p0, size32, mr, LLVMConstNull(rt)}, 4);
      for (unsigned i = 0; i < nv; i++) {
        unsigned idx[HALF];
        for (unsigned l = 0; l < HALF; l++) idx[l] = (rev ? HALF - 1 - l : l) * nv + i;
        vv[j][i] = nv > 1 || rev ? pick(e, all, NULL, idx, HALF) : all;
      }
    }
  }
}

/* The lanes' accesses at ptrs (for .shared, <32 x i32> offsets from host) of nv elements each (a vector ld/st:
 * element i at + i * size), a half-warp (16 lanes) at a time, lanes in order: where the half's active lanes'
 * accesses are consecutive (a row) one masked vector load or store of them all (a vector's elements interleaved),
 * and for a vector ld/st so where they are consecutive from the half's last lane down (a reversed row: a tile read
 * backwards, as bench/kernels/async_copy.cu does, whose 8 gathers per half took longer than the rest of its region;
 * a reversed row of single elements is one gather, and its path cost every access's compile more); a load
 * where they all read the same bytes (a broadcast), one load of each element; else a gather or scatter of
 * each element (of two stores to one address the higher lane's stays, as in the interpreter's lane loop: a
 * vector's accesses are aligned to its size, so two lanes' are the same bytes or apart). Masked-off lanes touch no
 * memory. The tests are on the address register itself (lane l's address is base[l] + off + l * stride, off and
 * stride the same for all lanes), so accesses through one register share them: a row when base[l] - (l % 16) *
 * bytes is the same for the half's active lanes and stride is 0, its first element at that + off (reversed: base[l]
 * + (l % 16) * bytes, its first element 15 * bytes below that + off); a broadcast
 * when base[l] is (same(): the row is tested first, and holds where no lane of the half is active). n accesses
 * through the one register at offsets off[j] (loads of one element each, or one access) take the same path, each
 * in it: a load's elements are val[j][i] (<32 x iN>). */
/* (pl: the choice made already, by plan() for the same base, lanes and kind of access; NULL: made here) */
static void access(em *e, const wv_jop *o, LLVMValueRef mv, unsigned n, const LLVMValueRef *ptrs, const uint64_t *off,
                   LLVMValueRef base, LLVMValueRef stride, LLVMValueRef host, const LLVMValueRef *sv,
                   LLVMValueRef (*val)[4], const wv_em_plan *pl) {
  int st = o->kind == WV_JK_ST, w32 = LLVMGetElementType(LLVMTypeOf(base)) == e->i32, g32 = LLVMGetElementType(LLVMTypeOf(ptrs[0])) == e->i32;
  unsigned size = o->bits / 8, nv = o->vec > 1 ? o->vec : 1, bytes = size * nv;
  LLVMTypeRef el = ity(e, o->bits), et = LLVMVectorType(el, HALF), bt = w32 ? e->i32 : e->i64;
  LLVMTypeRef hvp = LLVMVectorType(e->ptr, HALF);
  LLVMValueRef steps = row_steps(bt, bytes), size32 = cint(e->i32, size);
  LLVMValueRef part[EM_GROUP][2][4]; /* per access, half and element */
  int bc = !st && nv == 1; /* (a vector's broadcast takes the gather: a path fewer to compile) */
  int rv = nv > 1;         /* (so does a reversed row of single elements: see above) */
  LLVMValueRef unit = stride ? LLVMBuildICmp(e->b, LLVMIntEQ, stride, cint(e->i64, 0), "") : NULL;
  for (unsigned h = 0; h < 2; h++) {
    LLVMValueRef bh = lanes(e, base, h * HALF, HALF), mh = lanes(e, mv, h * HALF, HALF);
    LLVMValueRef svh[4] = {NULL};
    for (unsigned i = 0; st && i < nv; i++) svh[i] = lanes(e, sv[i], h * HALF, HALF);
    half_plan hp;
    if (pl) hp = pl->h[h];
    else plan_half(e, bh, mh, steps, unit, bc, rv, &hp);
    /* (32 bits: base[l] is below 2^31, so base[l] - (l % 16) * bytes, and a reversed row's start, are exact as
     * signed numbers, negative where the row starts below the half's first lane's place) */
    LLVMValueRef dfirst = w32 ? LLVMBuildSExt(e->b, hp.dlo, e->i64, "") : hp.dlo;
    LLVMValueRef rfirst = rv ? LLVMBuildSub(e->b, w32 ? LLVMBuildSExt(e->b, hp.rlo, e->i64, "") : hp.rlo,
                                            cint(e->i64, (uint64_t)(HALF - 1) * bytes), "") : NULL;
    LLVMBasicBlockRef bv = LLVMAppendBasicBlockInContext(e->c, e->fn, "row"), bg = LLVMAppendBasicBlockInContext(e->c, e->fn, "lanes");
    LLVMBasicBlockRef brt = rv ? LLVMAppendBasicBlockInContext(e->c, e->fn, "notrow") : NULL;
    LLVMBasicBlockRef br = rv ? LLVMAppendBasicBlockInContext(e->c, e->fn, "rev") : NULL;
    LLVMBasicBlockRef bb = bc ? LLVMAppendBasicBlockInContext(e->c, e->fn, "one") : NULL, bt2 = bc ? LLVMAppendBasicBlockInContext(e->c, e->fn, "other") : NULL;
    LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(e->c, e->fn, "done");
    LLVMBasicBlockRef not_row = bc ? bt2 : bg; /* (where a half that is no row, read forwards or backwards, goes) */
    LLVMBuildCondBr(e->b, hp.row, bv, rv ? brt : not_row);
    if (rv) {
      LLVMPositionBuilderAtEnd(e->b, brt);
      LLVMBuildCondBr(e->b, hp.rev, br, not_row);
    }
    if (bc) {
      LLVMPositionBuilderAtEnd(e->b, bt2);
      LLVMBuildCondBr(e->b, hp.one, bb, bg);
    }
    LLVMValueRef vv[EM_GROUP][4] = {{NULL}}, vr[EM_GROUP][4] = {{NULL}}, vg[EM_GROUP][4] = {{NULL}}, vb[EM_GROUP][4] = {{NULL}};
    LLVMTypeRef tg[] = {et, hvp};
    LLVMPositionBuilderAtEnd(e->b, bv);
    row_path(e, o, n, off, dfirst, host, mh, svh, vv, 0);
    LLVMBuildBr(e->b, bj);
    if (rv) {
      LLVMPositionBuilderAtEnd(e->b, br);
      row_path(e, o, n, off, rfirst, host, mh, svh, vr, 1);
      LLVMBuildBr(e->b, bj);
    }
    if (bc) { /* one element for all: lanes that are not active take it too, and select() drops it */
      LLVMPositionBuilderAtEnd(e->b, bb);
      for (unsigned j = 0; j < n; j++) {
        LLVMValueRef at = LLVMBuildAdd(e->b, w32 ? LLVMBuildZExt(e->b, hp.blo, e->i64, "") : hp.blo, cint(e->i64, off[j]), "");
        LLVMValueRef x = LLVMBuildLoad2(e->b, el, LLVMBuildGEP2(e->b, e->i8, host, &at, 1, ""), "");
        LLVMSetAlignment(x, size);
        vb[j][0] = lanes(e, broadcast(e, x), 0, HALF);
      }
      LLVMBuildBr(e->b, bj);
    }
    LLVMPositionBuilderAtEnd(e->b, bg);
    for (unsigned j = 0; j < n; j++) {
      LLVMValueRef ph = lanes(e, ptrs[j], h * HALF, HALF);
      for (unsigned i = 0; i < nv; i++) {
        LLVMValueRef pi = ph, di = cint(g32 ? e->i32 : e->i64, (uint64_t)i * size);
        if (g32) { /* .shared: offsets from host, in the gather's block so that it is one with a base and 32-bit indices */
          LLVMValueRef dv[HALF];
          for (unsigned l = 0; l < HALF; l++) dv[l] = di;
          if (i) pi = LLVMBuildAdd(e->b, pi, LLVMConstVector(dv, HALF), "");
          pi = LLVMBuildGEP2(e->b, e->i8, host, &pi, 1, "");
        } else if (i) {
          pi = LLVMBuildGEP2(e->b, e->i8, pi, &di, 1, "");
        }
        if (st) scatter(e, svh[i], pi, mh, size);
        else vg[j][i] = wv_em_intrinsic(e, "llvm.masked.gather", tg, 2, (LLVMValueRef[]){pi, size32, mh, LLVMConstNull(et)}, 4);
      }
    }
    LLVMBuildBr(e->b, bj);
    LLVMPositionBuilderAtEnd(e->b, bj);
    for (unsigned j = 0; !st && j < n; j++)
      for (unsigned i = 0; i < nv; i++) {
        part[j][h][i] = LLVMBuildPhi(e->b, et, "");
        LLVMValueRef inv[4] = {vv[j][i], vg[j][i]};
        LLVMBasicBlockRef inb[4] = {bv, bg};
        unsigned k = 2;
        if (rv) inv[k] = vr[j][i], inb[k++] = br;
        if (bc) inv[k] = vb[j][0], inb[k++] = bb;
        LLVMAddIncoming(part[j][h][i], inv, inb, k);
      }
  }
  unsigned idx[WV_WARP];
  for (unsigned i = 0; i < WV_WARP; i++) idx[i] = i;
  for (unsigned j = 0; !st && j < n; j++)
    for (unsigned i = 0; i < nv; i++) val[j][i] = pick(e, part[j][0][i], part[j][1][i], idx, WV_WARP);
}

/* access()'s choice for loads of kind o through base (<32 x i32>, .shared) for lanes mv. */
static void plan(em *e, const wv_jop *o, LLVMValueRef mv, LLVMValueRef base, wv_em_plan *pl) {
  LLVMValueRef steps = row_steps(e->i32, o->bits / 8);
  for (unsigned h = 0; h < 2; h++) plan_half(e, lanes(e, base, h * HALF, HALF), lanes(e, mv, h * HALF, HALF), steps, NULL, 1, o->vec > 1, &pl->h[h]);
}

/* Whether an access may go through its site's window (window()): one with 64-bit addresses that may be global
 * (a generic one may be; const too, where with_const: a module's bank of constants is an allocation of the heap,
 * as global memory is, which the loads of the bank but no prefetch go through). */
static int windowed(const wv_insn *in, int with_const) {
  return (in->space == WV_SPACE_GLOBAL || in->space == WV_SPACE_GENERIC || (with_const && in->space == WV_SPACE_CONST)) &&
         !(in->addrf & WV_AF_WRAP32);
}

/* The window of a global access's site (wv_exec.gwin: the allocation exec's check found there last) for an access
 * of span bytes at address a: *lo its start, *lim where a - *lo <= *lim (unsigned) exactly when the span lies in it,
 * *delta its host offset. Returns whether it may be used: it holds span bytes, and nothing was freed since it was
 * found. */
static LLVMValueRef window(em *e, uint32_t site, uint64_t span, LLVMValueRef *lo, LLVMValueRef *lim, LLVMValueRef *delta) {
  LLVMValueRef gw = field(e, offsetof(wv_exec, gwin) + (site % WV_GWINS) * sizeof(wv_gwin)), w[4];
  for (int i = 0; i < 4; i++) {
    LLVMValueRef idx = cint(e->i64, (uint64_t)i);
    w[i] = LLVMBuildLoad2(e->b, e->i64, LLVMBuildGEP2(e->b, e->i64, gw, &idx, 1, ""), "");
  }
  LLVMValueRef frees = LLVMBuildLoad2(e->b, e->i64, LLVMBuildLoad2(e->b, e->ptr, field(e, offsetof(wv_exec, heap_frees)), ""), "");
  /* w[0] <= a and a + span <= w[1], that is a - w[0] <= (w[1] - w[0]) - span where the window holds span bytes */
  LLVMValueRef size = LLVMBuildSub(e->b, w[1], w[0], "");
  *lo = w[0];
  *lim = LLVMBuildSub(e->b, size, cint(e->i64, span), "");
  *delta = w[2];
  return LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntUGE, size, cint(e->i64, span), ""),
                      LLVMBuildICmp(e->b, LLVMIntEQ, w[3], frees, ""), "");
}

/* The check of an access that is not .shared-inline, of the lanes' addresses a (<32 x i64>; w32: they wrap at 32
 * bits): where the space may be global (64-bit addresses), the allocation the site found last (wv_exec.gwin) when
 * it holds every active lane's element, aligned, and nothing was freed since, tested lane by lane in vectors; else
 * exec's warp-wide check through wv_jit_mem (which keeps what it finds there), from the lanes' lowest and highest
 * address and the OR of all, made only on that way. ok (i32, 0: the interpreter runs it), and lane l's bytes at
 * *hb + addr[l] + l * *stride. */
static void mem_check(em *e, const wv_insn *in, int st, LLVMValueRef a, LLVMValueRef mv, int w32, unsigned bytes,
                      uint32_t site, LLVMValueRef *ok, LLVMValueRef *hb, LLVMValueRef *stride) {
  LLVMValueRef hit = NULL, gdelta = NULL;
  LLVMBasicBlockRef bhit = NULL, bcall = NULL, bj = NULL;
  if (windowed(in, 1)) {
    LLVMValueRef w0, lim, usable = window(e, site, bytes, &w0, &lim, &gdelta);
    /* each active lane's element in the window, aligned to bytes */
    LLVMValueRef in_win = LLVMBuildICmp(e->b, LLVMIntULE, LLVMBuildSub(e->b, a, broadcast(e, w0), ""), broadcast(e, lim), "");
    LLVMValueRef aligned = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, a, splat(e, e->i64, bytes - 1), ""),
                                         LLVMConstNull(e->v64), "");
    LLVMValueRef good = LLVMBuildOr(e->b, LLVMBuildAnd(e->b, in_win, aligned, ""), LLVMBuildNot(e->b, mv, ""), "");
    hit = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildBitCast(e->b, good, e->i32, ""), cint(e->i32, 0xffffffffu), "");
    hit = LLVMBuildAnd(e->b, hit, usable, "");
    bhit = LLVMGetInsertBlock(e->b);
    bcall = LLVMAppendBasicBlockInContext(e->c, e->fn, "check");
    bj = LLVMAppendBasicBlockInContext(e->c, e->fn, "checked");
    LLVMBuildCondBr(e->b, hit, bj, bcall);
    LLVMPositionBuilderAtEnd(e->b, bcall);
  }
  LLVMValueRef lo, hi, bits;
  reduce_addrs(e, a, mv, w32, &lo, &hi, &bits);
  LLVMTypeRef pt[] = {e->ptr, e->i32, e->i64, e->i64, e->i64, e->i32, e->i32, e->ptr, e->i32};
  LLVMValueRef args[] = {e->x, cint(e->i32, in->space), lo, hi, bits, cint(e->i32, bytes), cint(e->i32, (uint64_t)st), e->out,
                         cint(e->i32, site)};
  LLVMValueRef one = cint(e->i64, 1);
  *ok = call_rt(e, "wv_jit_mem", e->i32, pt, 9, args);
  *hb = LLVMBuildLoad2(e->b, e->i64, e->out, "");
  *stride = LLVMBuildLoad2(e->b, e->i64, LLVMBuildGEP2(e->b, e->i64, e->out, &one, 1, ""), "");
  if (!bj) return;
  bcall = LLVMGetInsertBlock(e->b); /* (reduce_addrs made no blocks, but the phis name where the call is) */
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

/* Whether an active lane's .shared accesses of set a (through one base register at offsets off_lo .. off_hi, all
 * ORed in off_or) may fail wv_warp_region_at's test for the space (host = the CTA's shared bytes, abase 0, no
 * stride), tested lane by lane in vectors: each lane's base r (32 bits) must have r + off at or above its floor
 * for each off (r >= lower; signed: an offset below 0 must not wrap), r + off_hi + bytes at most the CTA's shared bytes
 * (which is below 2^32, so nothing passes 2^32 either), and r | off_or aligned to bytes (each off is aligned where
 * r | off_or is). Only where this proves the exact test true for each does an access go ahead; else the
 * interpreter runs it (and a load also asks pending_in). */
static LLVMValueRef set_bad(em *e, const early_set *a, LLVMValueRef mv) {
  int64_t lower = a->lower; /* r >= lower */
  if ((a->off_or & (a->bytes - 1)) || lower > (int64_t)0xffffffffu) return LLVMConstInt(e->i1, 1, 0);
  LLVMValueRef r = narrow(e, a->slot != WV_NOSLOT ? wv_em_reg(e, a->slot) : LLVMConstNull(e->v64), 32);
  LLVMValueRef upper = LLVMBuildSub(e->b, e->shared_size, cint(e->i64, (uint64_t)(a->off_hi + (int64_t)a->bytes)), ""); /* r <= upper */
  LLVMValueRef neg = LLVMBuildICmp(e->b, LLVMIntSLT, upper, cint(e->i64, 0), "");
  LLVMValueRef big = LLVMBuildICmp(e->b, LLVMIntUGT, upper, cint(e->i64, 0xffffffffu), "");
  LLVMValueRef up32 = LLVMBuildTrunc(e->b, LLVMBuildSelect(e->b, big, cint(e->i64, 0xffffffffu), upper, ""), e->i32, "");
  LLVMValueRef ok = LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntUGE, r, splat(e, e->i32, lower < 0 ? 0 : (uint64_t)lower), ""),
                                 LLVMBuildICmp(e->b, LLVMIntULE, r, broadcast(e, up32), ""), "");
  ok = LLVMBuildAnd(e->b, ok, LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, r, splat(e, e->i32, a->bytes - 1), ""),
                                            LLVMConstNull(vec(e->i32)), ""), "");
  ok = LLVMBuildOr(e->b, ok, LLVMBuildNot(e->b, mv, ""), "");
  LLVMValueRef all = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildBitCast(e->b, ok, e->i32, ""), cint(e->i32, 0xffffffffu), "");
  return LLVMBuildOr(e->b, LLVMBuildNot(e->b, all, ""), neg, "");
}

/* ld.param [p+imm] of one element (the same bytes of the parameter buffer for every lane), which wv_em_mem loads as
 * itself. */
static int param_load(const wv_insn *in, const wv_jop *o) {
  return in->space == WV_SPACE_KPARAM && o->kind == WV_JK_LD && in->a == WV_NOSLOT && o->vec <= 1 && in->imm >= 0 &&
         in->imm < (1 << 30) && !(in->imm % wv_em_bytes(o));
}

/* Whether the launch's parameter buffer ends before byte `end` (an ld.param up to there would fail
 * wv_warp_region_at's test, which exec's check makes). */
static LLVMValueRef params_short(em *e, uint64_t end) {
  LLVMValueRef size = LLVMBuildLoad2(e->b, e->i32, field(e, offsetof(wv_exec, kparam_size)), "");
  return LLVMBuildICmp(e->b, LLVMIntULT, LLVMBuildZExt(e->b, size, e->i64, ""), cint(e->i64, end), "");
}

/* The .shared accesses of the region checked at its entry, at once, instead of each before itself: those with
 * no guard (their active lanes are all of the region's) through an address register no earlier instruction of
 * the region writes — so the entry sees the addresses they will use; and unguarded shuffles (the region's
 * lanes must be the whole warp). The loads ask once whether an undelivered cp.async writes into the bytes they
 * span together (a load beside such a copy then goes to the interpreter too). When any would fail, the region
 * does nothing and returns 0 (the interpreter runs it, with the exact check at each access); else they need no
 * check of their own, and the values in flight between them need not be stored for a bail-out. A load on a path
 * of a branch the region holds (early 2) is tested here only for the host's bytes being there (its address at 0
 * or above, not WV_SHARED_BASE: the CTA's shared bytes start at address 0), as lanes that do not take the path may
 * hold any address (a scan's lane 0 skips its read of [r - 4]); its branch tests the lanes that take it
 * (wv_em_path_bad). Made at the entry with the others through its register, its value is used only there. */
void wv_em_checked_early(em *e, const wv_insn *code, uint32_t len, uint8_t *early) {
  LLVMValueRef bad = LLVMBuildICmp(e->b, LLVMIntEQ, e->mask, cint(e->i32, 0), ""), mv = wv_em_lanes(e, e->mask);
  int any = 0;
  uint64_t pend = 0; /* the end of the furthest parameter an EARLY_PARAM load reads */
  uint8_t *written = malloc(len + 1); /* per instruction: 1 where it writes registers (wv_jit_writes: which) */
  uint8_t *onpath = calloc(len + 1, 1); /* per instruction: on a path of a branch the region holds */
  early_set *set = calloc(len + 1, sizeof *set);
  uint32_t nset = 0;
  if (!written || !onpath || !set) { /* (out of memory: each access checks itself) */
    free(written);
    free(onpath);
    free(set);
    return;
  }
  for (uint32_t k = 0; k < len; k++) {
    const wv_insn *in = &code[k];
    wv_jop o;
    wv_jbranch br;
    early[k] = 0;
    if (in->ctl == WV_CTL_BRA && in->guard >= 0 && !onpath[k] && wv_jit_branch(e->f, e->pc, e->pc + k, NULL, &br))
      for (uint32_t i = k + 1; i + e->pc < br.join && i < len; i++) onpath[i] = 1;
    o = e->ops[k];
    int sel = o.kind != WV_JK_NONE;
    written[k] = sel && wv_jop_dreg(&o);
    if (!sel || in->guard >= 0) continue;
    if (param_load(in, &o)) { /* (EARLY_PARAM: inside the parameters, as any such load of the region) */
      uint64_t end = (uint64_t)in->imm + wv_em_bytes(&o);
      pend = end > pend ? end : pend;
      early[k] = EARLY_PARAM;
      any = 1;
      continue;
    }
    if (o.kind == WV_JK_SHFL) { /* a converged warp: the whole warp */
      bad = LLVMBuildOr(e->b, bad, LLVMBuildICmp(e->b, LLVMIntNE, e->mask, cint(e->i32, 0xffffffffu), ""), "");
      early[k] = 1;
      any = 1;
      continue;
    }
    if ((o.kind != WV_JK_LD && o.kind != WV_JK_ST && o.kind != WV_JK_ATOM) || !wv_jit_shared_inline(in)) continue;
    int earlier = 0;
    for (uint32_t i = 0; i < k && in->a != WV_NOSLOT; i++) earlier |= written[i] && wv_jit_writes(&code[i], in->a);
    if (earlier) continue;
    early[k] = onpath[k] && o.kind == WV_JK_LD ? 2 : 1;
    set_add(set, &nset, in, wv_em_bytes(&o), o.kind == WV_JK_ST, early[k] == 2 ? 0 : (int64_t)WV_SHARED_BASE);
    any = 1;
  }
  if (pend) bad = LLVMBuildOr(e->b, bad, params_short(e, pend), "");
  int loads = 0;
  for (uint32_t i = 0; i < nset; i++) { /* (matmul's 32 loads through two registers: two tests) */
    bad = LLVMBuildOr(e->b, bad, set_bad(e, &set[i], mv), "");
    loads |= !set[i].st;
  }
  if (loads) bad = LLVMBuildOr(e->b, bad, pending_in(e, set, nset, mv), "");
  free(written);
  free(onpath);
  free(set);
  if (any) wv_em_bail_if(e, bad, 0);
}

/* (emit_int.h) */
LLVMValueRef wv_em_path_bad(em *e, const uint32_t *pcs, uint32_t n, LLVMValueRef lanes) {
  early_set set[WV_JIT_BRANCH_MAX] = {{0}};
  uint32_t nset = 0;
  LLVMValueRef bad = LLVMConstInt(e->i1, 0, 0), mv = wv_em_lanes(e, lanes);
  for (uint32_t j = 0; j < n && j < WV_JIT_BRANCH_MAX; j++) {
    const wv_jop *o = &e->ops[pcs[j] - e->pc];
    if (e->early[pcs[j] - e->pc] == 2 && o->kind != WV_JK_NONE)
      set_add(set, &nset, &e->f->code[pcs[j]], wv_em_bytes(o), 0, (int64_t)WV_SHARED_BASE);
  }
  for (uint32_t i = 0; i < nset; i++) bad = LLVMBuildOr(e->b, bad, set_bad(e, &set[i], mv), "");
  return bad;
}

/* Whether a selected instruction is a store or atomic that may write shared memory (a global or local one cannot). */
static int shared_store(const wv_insn *in, const wv_jop *o) {
  return (o->kind == WV_JK_ST || o->kind == WV_JK_ATOM) && in->space != WV_SPACE_GLOBAL && in->space != WV_SPACE_LOCAL;
}

/* The region's loads that may be made at its entry: loads of one element checked there (no guard, the address
 * register an input of the region) after no store or atomic the region makes that may write shared memory (a
 * global or local one cannot), made after the entry's check: what such a load reads at its place is what it reads
 * at the entry, as one warp runs a region by itself and no cp.async lands during one. Those through one register,
 * of one size, are one group (access: each half-warp's row, one element or gather is chosen once for all of
 * them, at the entry, where it was chosen at each), for the region's lanes (whose addresses the entry checked),
 * each kept in hoist[k] for the instruction to take its lanes of (wv_em_mem), counted there. They are made in
 * chunks of EM_CHUNK or more at the first of them where no branch comes before the last, else all at the entry: made at
 * the entry, matmul's 32 tile loads kept 64 vectors, which LLVM spilled and loaded again (a store each, which the
 * core makes one a cycle). In a loop's body, at each turn's start. */
#define EM_CHUNK 4 /* loads a chunk holds, at least (but a group of fewer): at most 2 * EM_CHUNK - 1 */
typedef struct wv_em_chunk {
  uint32_t n, ks[2 * EM_CHUNK - 1];
  const wv_em_plan *pl;
} wv_em_chunk;
struct wv_em_hoisted {
  wv_em_plan *plans;           /* per group */
  wv_em_chunk *chunks;
  uint32_t nplans, nchunks;
  uint32_t *chunk_at;          /* per instruction: 1 + the chunk made at it, 0: none */
  uint8_t *member;             /* per instruction: a load of a group (wv_em_hoisted) */
};

/* (emit_int.h) */
int wv_em_hoisted(const em *e, uint32_t k) { return e->hl && e->hl->member[k]; }

void wv_em_hoist_free(em *e) {
  if (!e->hl) return;
  free(e->hl->plans);
  free(e->hl->chunks);
  free(e->hl->chunk_at);
  free(e->hl->member);
  free(e->hl);
  e->hl = NULL;
}

/* The loads of chunk c: their values to e->hoist. */
static void make_chunk(em *e, const wv_em_chunk *c) {
  const wv_insn *code = e->code;
  LLVMValueRef base, ptrs[2 * EM_CHUNK - 1], val[2 * EM_CHUNK - 1][4];
  uint64_t off[2 * EM_CHUNK - 1];
  for (uint32_t j = 0; j < c->n; j++) {
    off[j] = (uint64_t)code[c->ks[j]].imm;
    ptrs[j] = narrow(e, lane_addrs(e, &code[c->ks[j]], &base), 32); /* (wv_jit_shared_inline: 32-bit addresses) */
  }
  access(e, &e->ops[c->ks[0]], wv_em_lanes(e, e->mask), c->n, ptrs, off, narrow(e, base, 32), NULL, e->shared, NULL, val, c->pl);
  for (uint32_t j = 0; j < c->n; j++) e->hoist[c->ks[j]] = val[j][0];
}

void wv_em_hoist_loads(em *e, const wv_insn *code, uint32_t len) {
  uint8_t *ok = calloc(len + 1, 1); /* per instruction: 1 may be made at the entry, 2 in a group already */
  struct wv_em_hoisted *hl = calloc(1, sizeof *hl);
  const wv_jop *ops = e->ops;
  if (hl) /* (a group holds two loads or more, a chunk one or more of a group's: at most len / 2 of each) */
    hl->chunk_at = calloc(len + 1, sizeof *hl->chunk_at), hl->member = calloc(len + 1, 1),
    hl->plans = malloc((len / 2 + 1) * sizeof *hl->plans), hl->chunks = malloc((len / 2 + 1) * sizeof *hl->chunks);
  if (!ok || !hl || !hl->chunk_at || !hl->member || !hl->plans || !hl->chunks) { /* (out of memory: each load is made at its place) */
    free(ok);
    e->hl = hl;
    wv_em_hoist_free(e);
    return;
  }
  e->hl = hl;
  int stop = 0;
  uint32_t straight = len; /* the first branch of the region */
  for (uint32_t k = 0; k < len && !stop; k++) {
    const wv_jop *o = &ops[k];
    int sel = o->kind != WV_JK_NONE;
    if (sel && shared_store(&code[k], o)) break; /* (nothing after it) */
    ok[k] = sel && e->early[k] && e->early[k] != EARLY_PARAM && o->kind == WV_JK_LD && o->vec <= 1;
    if (code[k].ctl == WV_CTL_BRA && straight == len) straight = k;
    /* a branch the region holds runs its fall-through path first, which may come after the other in the code
     * (nvcc's if/else with both sides through a bra): a store on either path stops it all at the branch */
    if (code[k].ctl == WV_CTL_BRA && code[k].guard >= 0)
      for (uint32_t i = k + 1; i < len && e->pc + i < code[k].rpc && !stop; i++)
        stop = ops[i].kind != WV_JK_NONE && shared_store(&code[i], &ops[i]);
  }
  LLVMValueRef mv = wv_em_lanes(e, e->mask);
  for (uint32_t k = 0; k < len; k++) {
    if (ok[k] != 1) continue;
    uint32_t ks[EM_GROUP], n = 0;
    for (uint32_t i = k; i < len && n < EM_GROUP; i++)
      if (ok[i] == 1 && code[i].a == code[k].a && ops[i].bits == ops[k].bits) ks[n++] = i, ok[i] = 2;
    if (n < 2) continue; /* (one load alone: made at its place, where its value is not kept across the region) */
    wv_em_plan *pl = &hl->plans[hl->nplans++];
    LLVMValueRef base;
    lane_addrs(e, &code[k], &base); /* (the register's value: each chunk's loads use it again) */
    plan(e, &ops[k], mv, narrow(e, base, 32), pl);
    uint32_t nc = n / EM_CHUNK ? n / EM_CHUNK : 1; /* (n / nc loads each, the first n % nc one more) */
    for (uint32_t i = 0, j = 0; i < nc; i++) {
      wv_em_chunk *c = &hl->chunks[hl->nchunks++];
      c->pl = pl;
      c->n = n / nc + (i < n % nc);
      for (uint32_t q = 0; q < c->n; q++, j++) c->ks[q] = ks[j], hl->member[ks[j]] = 1;
      if (c->ks[c->n - 1] < straight) hl->chunk_at[c->ks[0]] = hl->nchunks; /* made at its first load */
      else make_chunk(e, c);
    }
  }
  free(ok);
}

/* (emit_int.h) */
void wv_em_hoisted_at(em *e, uint32_t k) {
  if (e->hl && e->hl->chunk_at[k]) make_chunk(e, &e->hl->chunks[e->hl->chunk_at[k] - 1]), e->hl->chunk_at[k] = 0;
}

/* atom.shared.add of 32-bit words at offsets off (from the CTA's shared bytes) as h_atom's lane loop: the active
 * lanes one after another in lane order, each reading its word, adding its b and keeping the old value (a lane
 * sees the sums of the lanes before it on one word). */
static void emit_atom(em *e, const wv_insn *in, const wv_jop *o, LLVMValueRef m32, LLVMValueRef mv, LLVMValueRef off) {
  LLVMTypeRef at = LLVMArrayType(e->i32, WV_WARP), vt = vec(e->i32);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->b), body = LLVMAppendBasicBlockInContext(e->c, e->fn, "atom");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->fn, "atomed");
  LLVMValueRef offs = wv_em_entry_alloca(e, at), bs = wv_em_entry_alloca(e, at), olds = wv_em_entry_alloca(e, at);
  LLVMBuildStore(e->b, off, offs);
  LLVMBuildStore(e->b, wv_em_regn(e, in->b, 32), bs);
  LLVMBuildStore(e->b, LLVMConstNull(vt), olds);
  LLVMBuildBr(e->b, body); /* (some lane is active: emit_mem or the entry bailed out where none is) */
  LLVMPositionBuilderAtEnd(e->b, body);
  LLVMValueRef m = LLVMBuildPhi(e->b, e->i32, ""), args[] = {m, LLVMConstInt(e->i1, 1, 0)};
  LLVMValueRef l = LLVMBuildZExt(e->b, wv_em_intrinsic(e, "llvm.cttz", &e->i32, 1, args, 2), e->i64, "");
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
  if (in->d[0] != WV_NOSLOT) wv_em_setreg(e, in->d[0], mv, widen(e, LLVMBuildLoad2(e->b, vt, olds, ""), 32, o->sgn));
}

/* Whether a global access of one element per lane is a row in each half-warp that the window of its site
 * (mem_check) holds: in each half with an active lane, lane l's address the half's first lane's + (l % 16) *
 * bytes for each active lane (the first's register holds a value where it is off too), that aligned, and the 16
 * lanes' elements from there inside the window while nothing was freed since (tests on two addresses, where
 * mem_check tests each lane's); p[h]: half h's first element in host memory. Then the access is a masked vector
 * load or store a half (a warp reading consecutive words, as most do, or two rows of a 16-wide tile), where
 * mem_check and access() would test each lane again. */
static LLVMValueRef half_rows(em *e, LLVMValueRef a, LLVMValueRef m32, LLVMValueRef mv, unsigned bytes, uint32_t site,
                              LLVMValueRef p[2]) {
  LLVMValueRef w0, lim, delta, usable = window(e, site, (uint64_t)HALF * bytes, &w0, &lim, &delta);
  LLVMValueRef firsts[WV_WARP], steps[WV_WARP];
  for (unsigned l = 0; l < WV_WARP; l++)
    firsts[l] = cint(e->i32, l & ~(HALF - 1u)), steps[l] = cint(e->i64, (uint64_t)(l % HALF) * bytes);
  LLVMValueRef first = LLVMBuildShuffleVector(e->b, a, LLVMGetUndef(e->v64), LLVMConstVector(firsts, WV_WARP), "");
  LLVMValueRef at = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildSub(e->b, a, first, ""), LLVMConstVector(steps, WV_WARP), "");
  LLVMValueRef good = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildBitCast(e->b, LLVMBuildOr(e->b, at, LLVMBuildNot(e->b, mv, ""), ""), e->i32, ""),
                                    cint(e->i32, 0xffffffffu), "");
  good = LLVMBuildAnd(e->b, good, usable, "");
  for (unsigned h = 0; h < 2; h++) { /* none active, or its first lane's 16 elements in the window, aligned */
    LLVMValueRef a0 = LLVMBuildExtractElement(e->b, a, cint(e->i32, h * HALF), "");
    LLVMValueRef mh = LLVMBuildAnd(e->b, m32, cint(e->i32, 0xffffu << (h * HALF)), "");
    LLVMValueRef ok = LLVMBuildICmp(e->b, LLVMIntULE, LLVMBuildSub(e->b, a0, w0, ""), lim, "");
    ok = LLVMBuildAnd(e->b, ok, LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, a0, cint(e->i64, bytes - 1), ""), cint(e->i64, 0), ""), "");
    good = LLVMBuildAnd(e->b, good, LLVMBuildOr(e->b, ok, LLVMBuildICmp(e->b, LLVMIntEQ, mh, cint(e->i32, 0), ""), ""), "");
    p[h] = LLVMBuildIntToPtr(e->b, LLVMBuildAdd(e->b, delta, a0, ""), e->ptr, "");
  }
  return good;
}

/* The access counted in the memory counter of its space, as the interpreter counts it. */
static void count_access(em *e, const wv_insn *in, int st) {
  int co = counter(in->space, st);
  if (co >= 0 && e->pmask != e->mask) { /* on a branch's path: counted where a lane takes it (emit_branch adds it) */
    LLVMValueRef one = LLVMBuildZExt(e->b, LLVMBuildICmp(e->b, LLVMIntNE, e->pmask, cint(e->i32, 0), ""), e->i64, "");
    e->pcount[co] = e->pcount[co] ? LLVMBuildAdd(e->b, e->pcount[co], one, "") : one;
  } else if (co >= 0)
    e->counts[co]++;
}

/* An access that is not .shared-inline, checked by mem_check (a bail-out at k where it fails) and made by access():
 * a load's elements in val[i]; sv: a store's (made before any branch). */
static void checked_access(em *e, const wv_insn *in, const wv_jop *o, LLVMValueRef a, LLVMValueRef base, LLVMValueRef mv,
                           uint32_t k, uint32_t site, const LLVMValueRef *sv, LLVMValueRef *val) {
  int st = o->kind == WV_JK_ST;
  uint64_t wmask = (in->addrf & WV_AF_WRAP32) ? 0xffffffffu : ~0ull, off = (uint64_t)in->imm;
  LLVMValueRef ok, hb, stride, v[1][4];
  mem_check(e, in, st, a, mv, wmask == 0xffffffffu, wv_em_bytes(o), site, &ok, &hb, &stride);
  wv_em_bail(e, LLVMBuildICmp(e->b, LLVMIntEQ, ok, cint(e->i32, 0), ""), k);
  LLVMValueRef addr = LLVMBuildAdd(e->b, LLVMBuildAdd(e->b, broadcast(e, hb), a, ""),
                                   LLVMBuildMul(e->b, broadcast(e, stride), e->lane, ""), "");
  LLVMValueRef ptrs = LLVMBuildIntToPtr(e->b, addr, e->vptr, "");
  /* a row of base + off + hb: modulo 2^64 unless the space's addresses wrap at 32 bits (then no row test) */
  LLVMValueRef rbase = base, rhost = LLVMBuildIntToPtr(e->b, hb, e->ptr, "");
  if (wmask != ~0ull) { /* the row test on the addresses themselves */
    rbase = a;
    rhost = LLVMBuildGEP2(e->b, e->i8, rhost, (LLVMValueRef[]){cint(e->i64, (uint64_t)-in->imm)}, 1, "");
  }
  access(e, o, mv, 1, &ptrs, &off, rbase, stride, rhost, sv, v, NULL);
  for (unsigned i = 0; !st && i < (o->vec > 1 ? o->vec : 1u); i++) val[i] = v[0][i];
}

/* (emit_int.h) */
int wv_em_prefetchable(const wv_insn *in, const wv_jop *o) {
  return (o->kind == WV_JK_LD || o->kind == WV_JK_ST) && windowed(in, 0);
}

/* A prefetch of the lines of span bytes from guest address `at`, where the window (w0, lim, delta, usable: window())
 * holds `at`; else of the exec state's first line, which is the host's own. A prefetch has no effect a program
 * sees and takes no fault. */
static void prefetch_span(em *e, LLVMValueRef at, LLVMValueRef w0, LLVMValueRef lim, LLVMValueRef delta, LLVMValueRef usable,
                          unsigned span, int st) {
  LLVMValueRef rw = cint(e->i32, (uint64_t)st), keep = cint(e->i32, 3), data = cint(e->i32, 1);
  LLVMValueRef ok = LLVMBuildAnd(e->b, usable, LLVMBuildICmp(e->b, LLVMIntULE, LLVMBuildSub(e->b, at, w0, ""), lim, ""), "");
  LLVMValueRef p = LLVMBuildSelect(e->b, ok, LLVMBuildIntToPtr(e->b, LLVMBuildAdd(e->b, delta, at, ""), e->ptr, ""), e->x, "");
  for (unsigned off = 0; off < span + 64; off += 64) { /* (the span's last byte: its line where it is not aligned) */
    LLVMValueRef o = cint(e->i64, off < span ? off : span - 1);
    wv_em_intrinsic(e, "llvm.prefetch", &e->ptr, 1, (LLVMValueRef[]){LLVMBuildGEP2(e->b, e->i8, p, &o, 1, ""), rw, keep, data}, 4);
    if (off >= span) break;
  }
}

/* (emit_int.h) From the window of the access's own site; it keeps lane 0's address (wv_gwin.last). */
void wv_em_prefetch(em *e, const wv_insn *in, const wv_jop *o, uint32_t k, int now) {
  uint32_t site = e->pc + k;
  unsigned span = HALF * wv_em_bytes(o);
  int st = o->kind == WV_JK_ST;
  LLVMValueRef base, a = lane_addrs(e, in, &base), w0, lim, delta, usable = window(e, site, 1, &w0, &lim, &delta);
  LLVMValueRef i4 = cint(e->i64, offsetof(wv_gwin, last) / sizeof(uint64_t));
  LLVMValueRef lastp = LLVMBuildGEP2(e->b, e->i64, field(e, offsetof(wv_exec, gwin) + site % WV_GWINS * sizeof(wv_gwin)), &i4, 1, "");
  LLVMValueRef a0 = LLVMBuildExtractElement(e->b, a, cint(e->i32, 0), "");
  LLVMValueRef stride = LLVMBuildSub(e->b, a0, LLVMBuildLoad2(e->b, e->i64, lastp, ""), "");
  LLVMBuildStore(e->b, a0, lastp);
  for (unsigned h = 0; h < 2; h++) {
    LLVMValueRef ah = LLVMBuildExtractElement(e->b, a, cint(e->i32, h * HALF), "");
    if (now) prefetch_span(e, ah, w0, lim, delta, usable, span, st);
    prefetch_span(e, LLVMBuildAdd(e->b, ah, stride, ""), w0, lim, delta, usable, span, st);
  }
}

void wv_em_mem(em *e, const wv_insn *in, const wv_jop *o, LLVMValueRef m32, LLVMValueRef mv, uint32_t k) {
  int st = o->kind == WV_JK_ST, atom = o->kind == WV_JK_ATOM;
  wv_em_hoisted_at(e, k);
  if (e->hoist && e->hoist[k]) { /* loaded at the entry or a load of its group before (wv_em_hoist_loads; checked at
                                  * the entry: no bail-out here) */
    count_access(e, in, st);
    wv_em_setreg(e, in->d[0], mv, widen(e, e->hoist[k], o->bits, o->sgn));
    return;
  }
  unsigned bytes = wv_em_bytes(o); /* (all of a vector's elements: checked as one access, as h_ld checks it) */
  LLVMValueRef none = LLVMBuildICmp(e->b, LLVMIntEQ, m32, cint(e->i32, 0), "");
  LLVMValueRef base, a = lane_addrs(e, in, &base);
  LLVMValueRef sv[4] = {NULL}, val[4] = {NULL}; /* (a store's elements, loaded before the branches) */
  unsigned nv = o->vec > 1 ? o->vec : 1;
  if (param_load(in, o)) { /* ld.param [p+imm]: checked as wv_warp_region_at checks it (inside kparam_size), where
                            * exec's check was a call; at the entry where it has no guard (EARLY_PARAM) */
    if (e->early[k] != EARLY_PARAM) wv_em_bail(e, LLVMBuildOr(e->b, none, params_short(e, (uint64_t)in->imm + bytes), ""), k);
    LLVMValueRef at = cint(e->i64, (uint64_t)in->imm), kp = LLVMBuildLoad2(e->b, e->ptr, field(e, offsetof(wv_exec, kparams)), "");
    LLVMValueRef v = LLVMBuildLoad2(e->b, ity(e, o->bits), LLVMBuildGEP2(e->b, e->i8, kp, &at, 1, ""), "");
    LLVMSetAlignment(v, 1);
    count_access(e, in, st);
    val[0] = broadcast(e, v);
  } else if (wv_jit_shared_inline(in)) {
    if (!e->early[k]) { /* (else checked at the entry; atom as a load: no cp.async of the CTA pending) */
      early_set one;
      uint32_t none_set = 0;
      set_add(&one, &none_set, in, bytes, st, (int64_t)WV_SHARED_BASE);
      LLVMValueRef bad = LLVMBuildOr(e->b, none, set_bad(e, &one, mv), "");
      if (!st) bad = LLVMBuildOr(e->b, bad, pending_in(e, &one, 1, mv), "");
      wv_em_bail(e, bad, k);
    }
    LLVMValueRef off32 = narrow(e, a, 32); /* = base + off: the test proved that nothing wraps */
    if (atom) { /* (checked as a load: no cp.async of the CTA pending, which h_atom does not ask) */
      emit_atom(e, in, o, m32, mv, off32);
      return;
    }
    count_access(e, in, st);
    for (unsigned i = 0; st && i < nv; i++) sv[i] = wv_em_regn(e, in->d[i], o->bits);
    uint64_t off = (uint64_t)in->imm;
    LLVMValueRef v[1][4];
    /* (off32: offsets below 2^31 from the CTA's shared bytes; access makes the pointers) */
    access(e, o, mv, 1, &off32, &off, narrow(e, base, 32), NULL, e->shared, sv, v, NULL);
    for (unsigned i = 0; !st && i < nv; i++) val[i] = v[0][i];
  } else {
    wv_em_bail(e, none, k);
    for (unsigned i = 0; st && i < nv; i++) sv[i] = wv_em_regn(e, in->d[i], o->bits);
    uint32_t site = e->pc + k;
    if (windowed(in, 0) && nv == 1) {
      /* rows the window holds: a vector access a half; else checked_access, whose bail-outs store nothing (none's did) */
      LLVMValueRef p[2], row = half_rows(e, a, m32, mv, bytes, site, p), size = cint(e->i32, bytes), v = NULL;
      LLVMTypeRef rt = vec(ity(e, o->bits)), ht = LLVMVectorType(ity(e, o->bits), HALF), tv[] = {ht, e->ptr};
      LLVMBasicBlockRef bf = LLVMAppendBasicBlockInContext(e->c, e->fn, "rows");
      LLVMBasicBlockRef bs = LLVMAppendBasicBlockInContext(e->c, e->fn, "not_rows");
      LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(e->c, e->fn, "accessed");
      LLVMBuildCondBr(e->b, row, bf, bs);
      LLVMPositionBuilderAtEnd(e->b, bf);
      LLVMValueRef hv[2];
      for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef mh = lanes(e, mv, h * HALF, HALF);
        if (st) wv_em_intrinsic(e, "llvm.masked.store", tv, 2, (LLVMValueRef[]){lanes(e, sv[0], h * HALF, HALF), p[h], size, mh}, 4);
        else hv[h] = wv_em_intrinsic(e, "llvm.masked.load", tv, 2, (LLVMValueRef[]){p[h], size, mh, LLVMConstNull(ht)}, 4);
      }
      if (!st) {
        unsigned idx[WV_WARP];
        for (unsigned l = 0; l < WV_WARP; l++) idx[l] = l;
        v = pick(e, hv[0], hv[1], idx, WV_WARP);
      }
      LLVMBuildBr(e->b, bj);
      LLVMPositionBuilderAtEnd(e->b, bs);
      checked_access(e, in, o, a, base, mv, k, site, sv, val);
      LLVMBasicBlockRef bs_end = LLVMGetInsertBlock(e->b);
      LLVMBuildBr(e->b, bj);
      LLVMPositionBuilderAtEnd(e->b, bj);
      if (!st) {
        LLVMValueRef phi = LLVMBuildPhi(e->b, rt, "");
        LLVMAddIncoming(phi, (LLVMValueRef[]){v, val[0]}, (LLVMBasicBlockRef[]){bf, bs_end}, 2);
        val[0] = phi;
      }
    } else {
      checked_access(e, in, o, a, base, mv, k, site, sv, val);
    }
    count_access(e, in, st);
  }
  for (unsigned i = 0; !st && i < nv; i++) /* (in order: of two equal destinations the later element stays, as h_ld) */
    if (in->d[i] != WV_NOSLOT) wv_em_setreg(e, in->d[i], mv, widen(e, val[i], o->bits, o->sgn));
}

#endif
