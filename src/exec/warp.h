/*
 * warp.h — warp collectives as the scheduler runs them: gather each participating group's
 * operands (groups may sit at different instructions or frames under independent thread
 * scheduling), compute over all participating lanes at once, scatter each group's results.
 */
#ifndef WV_WARP_H
#define WV_WARP_H

#include "exec/exec.h"

enum { WV_BAR_SYNC = 0, WV_BAR_ARRIVE, WV_BAR_RED, WV_BAR_WARPSYNC, WV_BAR_CLUSTER_WAIT, WV_BAR_CLUSTER_ARRIVE };
enum { WV_SHFL_UP = 1, WV_SHFL_DOWN = 2, WV_SHFL_BFLY = 3, WV_SHFL_IDX = 0 };
enum { WV_VOTE_ALL = 0, WV_VOTE_ANY, WV_VOTE_UNI, WV_VOTE_BALLOT };
enum { WV_MATCH_ANY = 0, WV_MATCH_ALL };
enum { WV_REDUX_ADD = 0, WV_REDUX_MIN, WV_REDUX_MAX, WV_REDUX_AND, WV_REDUX_OR, WV_REDUX_XOR };

typedef struct wv_coll {
  uint64_t a[WV_WARP];   /* value operand; all 32 lanes read from the register file */
  uint32_t b[WV_WARP];   /* shfl b */
  uint32_t c[WV_WARP];   /* shfl c */
  uint32_t pin;          /* vote predicate bits */
  uint64_t d[WV_WARP];   /* results */
  uint32_t pd;           /* predicate results */
  uint32_t exists;       /* lanes not exited */
} wv_coll;

/* Point the slot banks at a frame of warp w. */
static inline void wv_warp_bind(wv_exec *x, wv_warp *w, wv_frame *f) {
  x->warp = w;
  x->frame = f;
  x->fn = f->fn;
  x->bank[0] = f->regs;
  x->bank[1] = (uint64_t *)f->consts; /* read-only: handlers never write a constant slot */
  x->bank[2] = w->specials;
  x->preds = f->preds;
}

/* The membermask of the first lane of m, and the lanes of m that have that same membermask. */
uint32_t wv_coll_members(wv_exec *x, const wv_insn *in, uint32_t m);
uint32_t wv_coll_class(wv_exec *x, const wv_insn *in, uint32_t m);
void wv_coll_gather(wv_exec *x, const wv_insn *in, uint32_t gmask, wv_coll *c, int first);
void wv_coll_compute(wv_exec *x, const wv_insn *rep, uint32_t lanes, wv_coll *c);
void wv_coll_scatter(wv_exec *x, const wv_insn *in, uint32_t gmask, const wv_coll *c);
/* The same computation on the vm's AMD machine, through the instruction's lowered code (rt/amd.c). */
int wv_amd_collective(wv_exec *x, const wv_insn *rep, uint32_t lanes, wv_coll *c);

#endif
