/*
 * profile.h — what `--profile` counts while a launch runs (profile.c) and the interface to the
 * per-launch records and reports (rt/profile_report.c). Counting is exact: every warp instruction
 * of a profiled launch goes through wv_prof_insn, which adds to its PTX instruction's counters
 * (issued warp instructions, active and predicated-on threads, divergent branches, memory requests
 * with their shared-memory wavefronts or 32-byte sectors). Nothing here changes a result: the hooks
 * read registers before the handler runs and write only the profile.
 *
 * A `wv_prof` is one worker's counts for one launch (no locks while counting); the workers' counts
 * are merged into the launch's when they fold their statistics, under the launch's lock.
 */
#ifndef WV_PROFILE_H
#define WV_PROFILE_H

#include "exec/exec.h"

/* Instruction classes of the profile (derived from ops.def's cost class and the instruction's type). */
enum { WV_PC_ALU = 0, WV_PC_FMA, WV_PC_FP64, WV_PC_SFU, WV_PC_MEM, WV_PC_CTRL, WV_PC_SYNC, WV_PC_COLL, WV_PC_COUNT };
/* Memory spaces and access kinds of the memory counters. */
enum { WV_PS_GLOBAL = 0, WV_PS_SHARED, WV_PS_LOCAL, WV_PS_OTHER, WV_PS_COUNT };
enum { WV_PK_LD = 0, WV_PK_ST, WV_PK_ATOM, WV_PK_COUNT };

/* One PTX instruction's counters. */
typedef struct wv_pcprof {
  uint64_t warp;       /* warp instructions issued (smsp__inst_executed) */
  uint64_t thread;     /* active threads summed (smsp__thread_inst_executed) */
  uint64_t pred_on;    /* threads whose guard predicate was true (smsp__thread_inst_executed_pred_on) */
  uint64_t divergent;  /* bra: executions whose active threads went both ways */
  uint64_t req;        /* memory: warp-level requests (at least one thread accessing) */
  uint64_t wavefronts; /* shared: wavefronts (bank-conflict replays included) */
  uint64_t ideal;      /* shared: the wavefronts without conflicts (one per 32/16/8-thread phase in use) */
  uint64_t sectors;    /* global/local: distinct 32-byte sectors per request, summed */
  uint64_t bytes;      /* memory: bytes the threads asked for */
  uint64_t stall;      /* bar: warp-instruction slots of its CTA the warps waited here */
  uint64_t undef;      /* collectives run with undefined inputs (collective_undefined) */
  uint8_t space;       /* memory: the space its accesses went to last (WV_PS_*), +1; 0 none */
} wv_pcprof;

/* A timeline event for --trace (rt/profile_report.c writes them). */
enum { WV_EV_CTA = 0, WV_EV_BAR, WV_EV_ASYNC };
typedef struct wv_prof_ev {
  uint8_t kind;
  uint32_t warp, line, worker; /* worker: which worker thread ran it (the order their counts were merged) */
  uint64_t cta;
  double t0, t1;       /* CLOCK_MONOTONIC seconds */
} wv_prof_ev;

#define WV_PROF_MAX_EVENTS 200000u

typedef struct wv_prof {
  const wv_irmod *mod;
  wv_pcprof **pc;      /* per function index: ncode counters, made when the function first runs */
  const wv_func *last_fn;
  wv_pcprof *last_pc;
  wv_pcprof *sink;     /* where counts go when a function's counters could not be made (out of memory) */
  int lost;            /* ... which happened */
  /* totals by space and kind: requests, sectors, wavefronts, ideal wavefronts, bytes */
  uint64_t mem_req[WV_PS_COUNT][WV_PK_COUNT], mem_sec[WV_PS_COUNT][WV_PK_COUNT];
  uint64_t mem_wave[WV_PS_COUNT][WV_PK_COUNT], mem_ideal[WV_PS_COUNT][WV_PK_COUNT];
  uint64_t mem_bytes[WV_PS_COUNT][WV_PK_COUNT];
  uint64_t async_bytes, async_waits, mbar_waits, bar_waits;
  wv_prof_ev *ev;      /* timeline */
  uint32_t nev, capev;
  uint64_t ev_dropped;
  uint64_t cur_cta;
  double cta_t0;
  double bar_t0[32];   /* per warp of the running CTA: when its first group arrived at a barrier (0: none) */
  double async_t0[32]; /* per warp: when its oldest cp.async group not yet waited for was committed */
  int tracing;
  uint32_t merged;     /* the launch's: workers merged so far */
} wv_prof;

wv_prof *wv_prof_new(const wv_irmod *mod, int tracing);
void wv_prof_free(wv_prof *p);
/* Adds from's counts to into (the launch's; the caller holds the launch's lock). */
int wv_prof_merge(wv_prof *into, const wv_prof *from);
/* The profile class of an instruction. */
int wv_prof_class(const wv_insn *in);

/* Hooks (sched.c): an instruction about to run for the group's active lanes `mask`, guard-true `m`. The
 * counts every instruction has are inline; branches and memory accesses go on in wv_prof_more. */
wv_pcprof *wv_prof_fn(wv_prof *p, const wv_func *fn);
void wv_prof_more(wv_prof *p, wv_pcprof *c, wv_exec *x, const wv_insn *in, uint32_t mask, uint32_t m);
static inline void wv_prof_insn(wv_prof *p, wv_exec *x, const wv_insn *in, uint32_t pc, uint32_t mask, uint32_t m) {
  wv_pcprof *c = (x->fn == p->last_fn ? p->last_pc : wv_prof_fn(p, x->fn)) + pc;
  c->warp++;
  c->thread += (uint32_t)__builtin_popcount(mask);
  c->pred_on += (uint32_t)__builtin_popcount(m);
  if (wv_ops[in->op].cls == WV_C_MEM || in->op == WV_OP_BRA || in->ctl == WV_CTL_MBARWAIT)
    wv_prof_more(p, c, x, in, mask, m);
}
/* A group of warp w waits at a CTA barrier (fn, pc) from CTA clock `clock`; and is released at `clock`. */
void wv_prof_bar(wv_prof *p, const wv_func *fn, uint32_t pc, uint32_t warp, uint64_t clock, int release);
/* A collective at (fn, pc) ran with undefined inputs. */
void wv_prof_undef(wv_prof *p, const wv_func *fn, uint32_t pc);
/* CTA ci starts (begin) or ends on this worker. */
void wv_prof_cta(wv_prof *p, uint64_t ci, int begin);

/* rt/profile_report.c: the launch's record. begin makes the launch-wide accumulator (vm->prof_acc) when
 * the vm profiles; end turns it into the launch's record (per PTX line, totals, the cost model). */
struct wv_vm;
struct wv_launch_desc;
void wv_prof_launch_begin(struct wv_vm *vm, const struct wv_launch_desc *L);
void wv_prof_launch_end(struct wv_vm *vm, const struct wv_launch_desc *L, double seconds, int status);

#endif
