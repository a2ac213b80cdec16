/*
 * emit_int.h — what the two halves of the region compiler share (emit.c: registers, predicates, arithmetic,
 * branches and the region; emit_mem.c: memory accesses and their checks): the emitter's state for one region
 * and the helpers both use. Internal to src/jit.
 */
#ifndef WV_EMIT_INT_H
#define WV_EMIT_INT_H
#ifdef WV_HAVE_LLVM
#include <stddef.h>

#include <llvm-c/Core.h>

#include "exec/handlers.h"
#include "jit/emit.h"

typedef struct rval {
  uint32_t slot;
  LLVMValueRef v;   /* the 32 lanes as stored, <32 x i64>; NULL: not made yet, ext says how (wv_em_reg) */
  LLVMValueRef v32; /* their low 32 bits, <32 x i32>, where known without narrowing v (regn) */
  uint8_t ext;      /* 1, 2: the lanes are v32 zero-, sign-extended (so v may be NULL); 0: v is the value */
  LLVMValueRef vf;  /* NULL, or <32 x float>: v32's lanes but for a NaN's bits, an f32 add, sub, mul, div or fma's
                     * result before its NaN is made the canonical one (emit.c f32_in) */
  int dirty;
} rval;

#define EARLY_PARAM 3 /* em.early: an ld.param [p+imm] that is inside the parameters (tested once at the entry) */
#define EM_SLOTS 8 /* register fields an instruction names at most: a, b, c, e and a vector's d[0 .. 3] */
#define NCOUNTERS 8 /* wv_em_counters: the memory counters (counter()), then collectives and atomics */
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
  uint32_t nregs, capregs; /* (capregs: EM_SLOTS per instruction) */
  LLVMValueRef *pv;  /* predicate values, NULL: not loaded */
  uint8_t *pdirty;
  uint32_t npreds;
  LLVMValueRef lane, lane32;  /* <0..31> as i64, i32 */
  LLVMValueRef shared, shared_size, async_pending; /* the CTA's, loaded at the entry */
  uint32_t counts[NCOUNTERS]; /* per wv_em_counters: added so far, stored at the exit and at a bail-out */
  uint32_t pc;        /* the region's first instruction */
  const uint64_t *live; /* wv_jit_live's table (words per instruction), NULL: every register is live */
  const uint64_t *consts; /* the function's immediates (the constant bank's lanes all hold them): folded in */
  uint32_t nconsts;
  uint32_t words;
  const uint8_t *early; /* per instruction of the region: an access or shfl checked at the entry (1, 2: and at its
                         * branch, EARLY_PARAM: an ld.param; wv_em_checked_early) */
  LLVMValueRef *hoist;  /* per instruction of the region: its load's value, made at the entry or with others of its
                         * group (wv_em_hoist_loads), or NULL */
  struct wv_em_hoisted *hl; /* the groups of those loads (emit_mem.c) */
  const wv_insn *code;  /* the region's instructions */
  const wv_jop *ops;    /* ... as wv_jit_select makes them (kind WV_JK_NONE: not selected, as a branch) */
  const wv_func *f;
  int guarded;          /* the instruction being emitted has a guard, or is on one path of a branch (pmask) */
  int cold;             /* a loop's body, or few checks: a bail-out stores on its way out only (emit.c bail_cold) */
  LLVMValueRef pmask;   /* the lanes on the path being emitted: mask but on a branch's path */
  uint32_t bpc;         /* on a path: the branch's pc */
  const uint32_t *other; /* on a path: the registers the other path writes (nother) */
  uint32_t nother;
  struct side *snap;    /* on a path with accesses that check themselves: the state at its branch (emit.c path_bail) */
  uint32_t snap_k;      /* ... and the branch's index in the region */
  LLVMValueRef pcount[NCOUNTERS]; /* on a path: its accesses' counts so far, added once both paths ran (i64, NULL: 0) */
  int kmask;            /* wv_jit_emit_region's WV_EMIT_KMASK: wv_em_lanes makes a bitcast */
  int scatter;          /* ... WV_EMIT_SCATTER: llvm.masked.scatter (emit_mem.c scatter) */
} em;


/* The wv_exec counters a region adds to: the memory counters (emit_mem.c counter()), collectives, atomics. */
extern const size_t wv_em_counters[NCOUNTERS];

static inline LLVMValueRef cint(LLVMTypeRef t, uint64_t v) { return LLVMConstInt(t, v, 0); }

static inline LLVMTypeRef vec(LLVMTypeRef t) { return LLVMVectorType(t, WV_WARP); }

static inline LLVMValueRef splat(em *e, LLVMTypeRef t, uint64_t v) {
  (void)e;
  LLVMValueRef el[WV_WARP];
  for (int i = 0; i < WV_WARP; i++) el[i] = cint(t, v);
  return LLVMConstVector(el, WV_WARP);
}

/* A scalar repeated in the 32 lanes. */
static inline LLVMValueRef broadcast(em *e, LLVMValueRef s) {
  LLVMTypeRef vt = vec(LLVMTypeOf(s));
  LLVMValueRef v = LLVMBuildInsertElement(e->b, LLVMGetUndef(vt), s, cint(e->i32, 0), "");
  return LLVMBuildShuffleVector(e->b, v, LLVMGetUndef(vt), LLVMConstNull(vec(e->i32)), "");
}

static inline LLVMTypeRef ity(em *e, unsigned bits) {
  return bits == 8 ? e->i8 : bits == 16 ? e->i16 : bits == 32 ? e->i32 : e->i64;
}

static inline LLVMValueRef field(em *e, size_t off) { /* x + off */
  LLVMValueRef idx = cint(e->i64, off);
  return LLVMBuildGEP2(e->b, e->i8, e->x, &idx, 1, "");
}

/* ---- value helpers: a register's lanes at a width, and back to the 64-bit storage form ---- */
static inline LLVMValueRef narrow(em *e, LLVMValueRef v, unsigned bits) {
  return bits == 64 ? v : LLVMBuildTrunc(e->b, v, vec(ity(e, bits)), "");
}

/* The bytes an ld/st accesses in each lane (all its elements), to which it is aligned. */
static inline unsigned wv_em_bytes(const wv_jop *o) { return o->bits / 8 * (o->vec > 1 ? o->vec : 1); }
static inline LLVMValueRef widen(em *e, LLVMValueRef v, unsigned bits, int sgn) {
  if (bits == 64) return v;
  return sgn ? LLVMBuildSExt(e->b, v, e->v64, "") : LLVMBuildZExt(e->b, v, e->v64, "");
}

/* emit.c */
LLVMValueRef wv_em_intrinsic(em *e, const char *name, LLVMTypeRef *tys, size_t nty, LLVMValueRef *args, unsigned nargs);
LLVMValueRef wv_em_lanes(em *e, LLVMValueRef m32);
void wv_em_add_field(em *e, size_t off, LLVMTypeRef t, LLVMValueRef v);  /* x->FIELD += v */
LLVMValueRef wv_em_entry_alloca(em *e, LLVMTypeRef t);                   /* a variable in the function's frame */
LLVMValueRef wv_em_reg(em *e, uint32_t slot);                            /* a register's 32 lanes, <32 x i64> */
LLVMValueRef wv_em_regn(em *e, uint32_t slot, unsigned bits);            /* ... their low bits */
void wv_em_setreg(em *e, uint32_t slot, LLVMValueRef m, LLVMValueRef v); /* lanes m of a register become v */
void wv_em_bail_if(em *e, LLVMValueRef cond, uint32_t k);                /* if (cond) return k, state as before k */
/* The same, but in a loop's body what changed is stored only on the way out (the way on is the hot one: a check
 * that passes stores nothing each turn). */
void wv_em_bail(em *e, LLVMValueRef cond, uint32_t k);
/* emit_mem.c */
void wv_em_checked_early(em *e, const wv_insn *code, uint32_t len, uint8_t *early);
/* Whether a lane of `lanes` (i32) that takes the path pcs[0 .. n - 1] would fail a load there left to its branch (early 2). */
LLVMValueRef wv_em_path_bad(em *e, const uint32_t *pcs, uint32_t n, LLVMValueRef lanes);
void wv_em_hoist_loads(em *e, const wv_insn *code, uint32_t len); /* (into e->hoist) */
/* Whether the region's instruction k is a load wv_em_hoist_loads makes (at the entry or with others of its group);
 * those of a group made at k, made there (wv_em_mem); the groups freed. */
int wv_em_hoisted(const em *e, uint32_t k);
void wv_em_hoisted_at(em *e, uint32_t k);
void wv_em_hoist_free(em *e);
void wv_em_mem(em *e, const wv_insn *in, const wv_jop *o, LLVMValueRef m32, LLVMValueRef mv, uint32_t k);
/* Whether an access is one wv_em_prefetch can prefetch: a load or store that may be global (64-bit addresses). */
int wv_em_prefetchable(const wv_insn *in, const wv_jop *o);
/* Prefetches (for writing, a store's) the lines access k of the region (`in`) would touch in its next run, guessed
 * from how far its address moved since the last (a stride: the next warp's rows, the next CTA's tile), and where
 * `now` those it touches in this run, from its registers as they are. */
void wv_em_prefetch(em *e, const wv_insn *in, const wv_jop *o, uint32_t k, int now);


#endif
#endif
