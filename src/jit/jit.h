/*
 * jit.h — warpvm's second engine: straight-line PTX (and forward branches inside it) compiled through LLVM
 * into warp-wide vector code (README "Engines"). The scheduler (src/exec/sched.c) runs a function's compiled
 * regions through exec/jit_hook.h; everything else (control flow, divergence, barriers, collectives, faults)
 * stays with it.
 *
 *   select.c  which instructions compile (each recognised by the interpreter handler the decoder gave it,
 *             so compiled and interpreted semantics are one) and the regions they form; a shfl.sync with
 *             operands known when compiling is the one collective that compiles (a permutation)
 *   emit.c    a region as LLVM IR: registers as <32 x i64> SSA values, guards and branch paths as lane masks
 *   emit_mem.c  its memory accesses, checked warp-wide by exec's own check (wv_warp_region_at) before any
 *             effect (emit_int.h: what the two share)
 *   jit.c     LLVM's ORC LLJIT for the host CPU: one LLVM module per PTX function, compiled at its first
 *             launch, freed with its PTX module
 */
#ifndef WV_JIT_H
#define WV_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "exec/exec.h"
#include "exec/jit_hook.h"

/* ---- what compiles (select.c) ---- */
typedef enum wv_jk {
  WV_JK_NONE = 0,
  WV_JK_IBIN,    /* add sub mul.lo min max and or xor shl shr on bits/sgn (jop.op: the opcode) */
  WV_JK_IUN,     /* not neg */
  WV_JK_MADLO,   /* mad.lo */
  WV_JK_MULWIDE, /* mul.wide: bits/sgn of the sources */
  WV_JK_MADWIDE, /* mad.wide.{u,s}32 */
  WV_JK_MOV,     /* mov (bits: the width kept, 64 = all) and cvt between 32 and 64 bits (sgn: sign-extend) */
  WV_JK_CVTI,    /* cvt between integers: bits/sgn the source's, flt/neg the destination's width and sign */
  WV_JK_I2F,     /* cvt.rn.f32/.f64 of an integer (bits/sgn), flt the float's width */
  WV_JK_SETP,    /* setp on an integer (bits/sgn) or float (flt: 32 or 64) type, jop.cmp */
  WV_JK_SELP,
  WV_JK_FBIN,    /* add sub mul div .rn .f32 without .sat (jop.ftz: .ftz, not for div) */
  WV_JK_FFMA,    /* fma.rn.f32 (mad.rn), with contract.c's negations (jop.neg: 1 product, 2 addend); jop.ftz */
  WV_JK_DBIN,    /* add sub mul div .rn .f64 (a NaN result: fpmath.h's payload rule) */
  WV_JK_DFMA,    /* fma.rn.f64 (mad.rn), with contract.c's negations (jop.neg as FFMA) */
  WV_JK_FUN,     /* neg abs of .f32 (without .ftz) or .f64 (jop.flt: 32, 64) */
  WV_JK_FRS,     /* rcp sqrt .rn of .f32 without .ftz or .f64 (jop.op; jop.flt: 32, 64) */
  WV_JK_CVTA,
  WV_JK_LD,      /* ld/st of one element (bits, sgn) or a vector of vec (2, 4) of them: d[0 .. vec - 1] */
  WV_JK_ST,
  WV_JK_SHFL,    /* shfl.sync of a converged full warp whose b, c and membermask are known (wv_jit_static) */
  WV_JK_ATOM,    /* atom/red.shared.add.{u32,s32}: h_atom's lane loop (bits 32, sgn) */
  WV_JK_BITS,    /* popc clz brev bfind (jop.op) on bits 32 or 64, sgn; neg: bfind's .shiftamt */
  WV_JK_PRED,    /* and or xor not mov (jop.op) on predicates: d[0], a, b are predicate indices */
  WV_JK_PACK,    /* mov d, {a, b, c, e}: vec elements of bits each, a's the lowest */
  WV_JK_UNPACK,  /* mov {d[0] .. d[vec - 1]}, a: element i is a's bits [bits * i, bits * (i + 1)) */
} wv_jk;

typedef struct wv_jop {
  uint8_t kind;   /* wv_jk */
  uint16_t op;    /* wv_opcode */
  uint8_t bits;   /* integer width */
  uint8_t sgn;
  uint8_t flt;    /* float width of a setp, 0: integer */
  uint8_t cmp;    /* WV_CMP_* */
  uint8_t neg;
  uint8_t vec;    /* ld/st, pack/unpack: elements (1, 2, 4) */
  uint8_t ftz;    /* f32 add sub mul fma setp: .ftz (subnormal inputs and results flushed, fpmath.h) */
} wv_jop;

/* Whether an instruction of kind o writes register d[0] (a store reads it; setp and predicate logic write
 * predicates). */
static inline int wv_jop_dreg(const wv_jop *o) {
  return o->kind != WV_JK_ST && o->kind != WV_JK_SETP && o->kind != WV_JK_PRED;
}
/* The register slots in, which compiles as o, writes (d[0], a vector load's or an unpack's d[0 .. vec - 1];
 * WV_NOSLOT where none): their count, at most 4. */
static inline unsigned wv_jop_dregs(const wv_insn *in, const wv_jop *o, uint32_t d[4]) {
  if (!wv_jop_dreg(o)) return 0;
  unsigned n = (o->kind == WV_JK_LD || o->kind == WV_JK_UNPACK) && o->vec > 1 ? o->vec : 1;
  for (unsigned i = 0; i < n; i++) d[i] = in->d[i];
  return n;
}
/* Whether in (which compiles as a kind that writes registers, wv_jop_dreg) writes slot. (A vector mov's d[1 ..] are
 * an unpack's destinations; a pack's are WV_NOSLOT.) */
static inline int wv_jit_writes(const wv_insn *in, uint32_t slot) {
  unsigned n = (in->op == WV_OP_LD || in->op == WV_OP_MOV) && in->vec > 1 && in->vec <= 4 ? in->vec : 1;
  for (unsigned i = 0; slot != WV_NOSLOT && i < n; i++)
    if (in->d[i] == slot) return 1;
  return 0;
}
/* How the JIT runs instruction in, 0 if it leaves it to the interpreter. */
int wv_jit_select(const wv_insn *in, wv_jop *o);
/* The value slot holds before code[k] when it is known when compiling: an immediate, or one written by an
 * unguarded mov of an immediate among code[0 .. k-1] and not written since. 1 when known (*v). */
int wv_jit_static(const wv_insn *code, uint32_t k, uint32_t slot, const uint64_t *consts, uint32_t nconsts, uint64_t *v);
/* A shfl.sync at code[k] that compiles in a run starting at code[0]: b, c and membermask known there (b and c
 * in *b, *c), the membermask the whole warp. */
int wv_jit_shfl_ok(const wv_insn *code, uint32_t k, const uint64_t *consts, uint32_t nconsts, uint32_t *b, uint32_t *c);
/* A .shared access whose check is inline (emit_mem.c set_bad): 32-bit addresses, an offset within 2^30 of 0. */
int wv_jit_shared_inline(const wv_insn *in);
/* Whether a selected load or store (o: wv_jit_select's) may stand on a branch's path that a region holds: one
 * element, no guard, .global or .shared (checked at the entry where it can be, else by itself there). */
int wv_jit_path_access(const wv_insn *in, const wv_jop *o);
/* A forward branch a region holds (jit_hook.h): `@p bra T` at pc, whose two paths — the lanes that do not take it
 * from pc + 1, those that do from T, each perhaps through one unconditional forward `bra` — hold only
 * instructions that compile and touch no other lane and no memory but loads and stores of wv_jit_path_access
 * (checked at the region's entry, emit_mem.c wv_em_checked_early, or by themselves before any store of the
 * paths), and meet at its reconvergence point `join`; the paths
 * together are the instructions between. Path p (0: not taken, 1: taken) is the ranges [lo[p][i], hi[p][i]) in
 * order, n[p] instructions with its `bra`. */
typedef struct wv_jbranch {
  uint32_t join;
  uint32_t lo[2][2], hi[2][2], n[2];
} wv_jbranch;
#define WV_JIT_BRANCH_MAX 64 /* instructions between a branch and its join */
/* Whether the instruction at pc of f is such a branch in a region starting at `start` (*b: its paths). wreg: per
 * instruction of f 1 where it writes registers (wv_jit_writes: which), to tell the accesses checked at the entry; NULL:
 * any unguarded .shared access with an inline check is taken as one (the region's maker asked). */
int wv_jit_branch(const wv_func *f, uint32_t start, uint32_t pc, const uint8_t *wreg, wv_jbranch *b);

/* Whether the instruction at pc of f is a guard a region starting at `start` goes on through where no lane takes it:
 * `@p bra T` to an unguarded ret or exit (`if (i >= n) return;`), not a branch it holds (wv_jit_branch). A region
 * goes through one guard at most, and the next region starts after it (where the guard splits a warp, the lanes
 * that go on start there). */
int wv_jit_guard(const wv_func *f, uint32_t start, uint32_t pc);

/* Regions of f: len[pc] (the length of the region starting at pc, 0: none), each a run of at least min
 * instructions that compile, inside one basic block but for the forward branches above it holds (wv_jit_branch:
 * none of their places reached by another branch). Returns their number. */
uint32_t wv_jit_regions(const wv_func *f, uint32_t min, uint16_t *len);

/* Registers live before each instruction of f (live.c): (ncode + 1) bitsets of *words 64-bit words each, bit r
 * of set pc set when register slot r may be read on some path from pc before being overwritten, or by another lane
 * (a collective's source); the last set (pc = ncode) holds only those. NULL when out of memory. */
uint64_t *wv_jit_live(const wv_func *f, uint32_t *words);

/* ---- the engine (jit.c) ---- */
typedef struct wv_jit wv_jit;         /* one per vm: the LLJIT and the host's target machine */
typedef struct wv_jit_mod wv_jit_mod; /* one per PTX module: its functions' code */
typedef struct wv_jit_stats {
  double seconds;
  uint64_t functions, regions, insns;
  uint64_t cached; /* functions whose code came from the disk cache */
} wv_jit_stats;

int wv_jit_available(void); /* 0: built without LLVM, or its library does not load (wv_llvm_load) */
/* Opens libLLVM where warpvm is built not to link it (llvm_load.c: WV_LLVM_LAZY), once: 0 when its functions are
 * there (or it is linked), else -1 and why in err (or built without LLVM). */
int wv_llvm_load(char *err, size_t errlen);
/* cache_dir: where compiled objects are kept (cache.c), NULL: nowhere; threads: how many compile a function's
 * regions at once (1 .. WV_JIT_MAX_THREADS). */
#define WV_JIT_MAX_THREADS 8
wv_jit *wv_jit_new(const char *cache_dir, unsigned threads, char *err, size_t errlen);
void wv_jit_free(wv_jit *j);
wv_jit_mod *wv_jit_mod_new(wv_jit *j, const wv_irmod *m);
void wv_jit_mod_free(wv_jit *j, wv_jit_mod *jm);
/* Compile function fi of the module if it is not yet (counting in st); 0, or -1 with the reason in err. */
int wv_jit_compile(wv_jit *j, wv_jit_mod *jm, uint32_t fi, wv_jit_stats *st, char *err, size_t errlen);
int wv_jit_compiled(const wv_jit_mod *jm, uint32_t fi);
/* What compiling function fi would take, in seconds on one thread (an estimate): 0 where there is nothing to compile
 * or its code is made (linked for another module, or in the disk cache). */
double wv_jit_cost(wv_jit *j, const wv_jit_mod *jm, uint32_t fi);
/* Per function index: its code (NULL: none), for sched.h's wv_launch_desc.jit. */
const wv_jit_code *const *wv_jit_table(const wv_jit_mod *jm);

/* ---- what compiled code calls (jit_rt.c) ---- */
/* exec's warp-wide memory check (wv_warp_region_at) for the active lanes' lowest and highest address and the
 * OR of all; 1 when the access may go ahead: lane l's bytes at out[0] + addr[l] + l * out[1]. A global
 * access's allocation is kept in x->gwin[site % WV_GWINS], where compiled code of that site looks first. */
int wv_jit_mem(wv_exec *x, int space, uint64_t lo, uint64_t hi, uint64_t bits, uint32_t bytes, int store,
               uint64_t *out, uint32_t site);
/* A scatter of up to 16 elements of `bytes` each, lane by lane in order (of two to one address the higher lane's
 * stays): element l of vals to ptrs[l] where bit l of mask is set. Compiled code calls it where the target has no
 * scatter instruction (AVX2), where LLVM would make each lane a branch of its own. */
void wv_jit_scatter(void *const *ptrs, const void *vals, uint32_t mask, uint32_t bytes);

#endif
