/*
 * sched.h — the scheduler's per-worker state (sched.c) and the CTA-level interface the launch code
 * uses (launch.c: checks, cooperative and resident runs; workers.c: a launch's CTAs in grid order on
 * worker threads). A `sched` is one worker's executor: its wv_exec, free lists of frames and
 * convergence barriers, the kernel's constant banks and counters. Nothing in it is shared: workers
 * meet only in what a launch shares (wv_launch_desc, read-only) and in workers.c's run state.
 */
#ifndef WV_SCHED_H
#define WV_SCHED_H

#include <stdatomic.h>

#include "exec/exec.h"
#include "exec/jit_hook.h"

#define WV_SCHED_SLICE 1024   /* warp instructions a group runs before others get a turn */

/* A launch as every worker sees it: fixed before the first CTA runs. */
typedef struct wv_launch_desc {
  struct wv_vm *vm;
  const wv_irmod *mod;
  const wv_func *kfn;
  uint32_t grid[3], block[3];
  uint32_t dyn_shared;
  uint32_t nthreads;          /* threads of a CTA */
  uint32_t shared_size;       /* its shared memory: the kernel's static and dynamic bytes */
  uint64_t nctas;
  const uint8_t *kparams;
  uint32_t kparam_size;
  uint64_t grid_ws;           /* cooperative launch: the grid workspace (%envreg1:%envreg2), else 0 */
  uint32_t cluster[3];        /* the cluster shape ({1,1,1}: none) */
  uint32_t csize;             /* CTAs of a cluster */
  int explicit_cluster;       /* launched with a cluster shape (%is_explicit_cluster) */
  double deadline;            /* wall-clock watchdog: CLOCK_MONOTONIC seconds, 0 = none */
  const wv_jit_code *const *jit; /* the JIT engine's code per function index (NULL entries: none), NULL: interpret */
  int jit_late;               /* its entries may appear while the launch runs (compiled in the background) */
} wv_launch_desc;

typedef struct sched {
  wv_exec x;
  const wv_launch_desc *L;
  const wv_irmod *mod;
  wv_frame **free_frames;     /* per function index */
  uint64_t **consts;          /* per function index: its constants for 32 lanes, made at its first frame */
  wv_cbar *free_cbars;
  uint64_t seq;
  uint64_t max_steps;
  double deadline;            /* wall-clock watchdog: CLOCK_MONOTONIC seconds, 0 = none */
  uint32_t timeout;           /* its length in seconds, for the report */
  uint32_t clock_turns;       /* warp turns: the watchdog reads the clock at every 64th */
  uint64_t warp_insns, thread_insns, divergent, reconv, barriers, yields, ctas;
  uint64_t grid_ws;           /* cooperative launch: the grid workspace (%envreg1:%envreg2), else 0 */
  int64_t slice;              /* warp instructions of a warp's turn (SLICE; random under WV_SCHED_RANDOM) */
  uint32_t rng;               /* WV_SCHED_RANDOM's choices */
  int poll_yield;             /* resident CTAs: a warp polling memory gives up its turn (sched.c, polling) */
  int strict;                 /* a CTA of a cluster with nothing to run is deadlocked (else wv_cta_turn says 2) */
  /* A launch run by several workers (workers.c): the warp instructions every worker has published
   * (the watchdog's count; a worker publishes its own in batches), how many of this worker's are in
   * it, the lowest CTA that failed (a worker gives up a CTA after it) and the running CTA's index. */
  _Atomic uint64_t *insns_all;
  uint64_t published;
  const _Atomic uint64_t *stop;
  uint64_t ci;
  char msg[2048];             /* the report of the fault that ended the last CTA (wv_cta_turn) */
  struct wv_prof *prof;       /* --profile: this worker's counts (profile.h), NULL when off */
  const wv_jit_code *const *jit; /* the launch's compiled regions (jit_hook.h), NULL: interpret only */
  int jit_late;               /* L->jit_late: a frame without code looks for it again at each turn of its warp */
} sched;

/* A worker's executor for the launch L (its own kernel-parameter copy, frames, counters); NULL if out
 * of memory. */
sched *wv_sched_new(const wv_launch_desc *L);
void wv_sched_free(sched *s);
/* Add the worker's counters to the vm's statistics. */
void wv_sched_fold_stats(const sched *s, struct wv_vm *vm);

/* Host memory of a CTA of the launch (warps, shared memory); -1 if out of memory. */
int wv_cta_alloc(sched *s, wv_cta *cta);
void wv_cta_free(wv_cta *cta);
/* Make cta the CTA of linear index ci, its threads at the kernel's first instruction (reused: its
 * shared memory held another CTA). -1: out of memory. */
int wv_cta_start(sched *s, wv_cta *cta, uint64_t ci, int reused);
/* Runnable groups of w at one place are one group again (after barrier releases). */
void wv_sched_merge(sched *s, wv_warp *w);

/* cluster.c: the clusters of a launch (exec.h's wv_cluster). */
void wv_cluster_form(wv_cluster *cl, wv_cta *const *ctas, const uint32_t dim[3]);
/* Run the n CTAs of one cluster (started, formed) in turns, round robin, until all have finished: 0, or -1 on a
 * fault (its report in s->msg, as wv_cta_turn gives it). */
int wv_cluster_run(sched *s, wv_cta *ctas, uint32_t n);
/* The linear index of the CTA that runs seq-th when clusters of shape dim run one after another, rank order. */
uint64_t wv_cluster_seq_ci(const uint32_t grid[3], const uint32_t dim[3], uint64_t seq);
/* The cluster's special registers (%cluster_ctaid, %clusterid, ...) of every warp of cta, computed once for them. */
void wv_cluster_specials(const wv_cta *cta, const uint32_t grid[3], int explicit_cluster, uint64_t read);
/* barrier.cluster.arrive/wait by lanes m of g: 0 when g goes on (pc advanced), 1 when it waits. */
int wv_cluster_bar(sched *s, wv_warp *w, struct wv_group *g, const wv_insn *in, uint32_t m);
/* Complete the cluster barrier's phase if every live thread of the cluster has arrived. */
void wv_cluster_bar_check(sched *s, wv_cluster *cl);

/* Drop what a finished or faulted CTA left. */
void wv_cta_drop(sched *s, wv_cta *cta);
/* One turn of the CTA s->x.cta: every live warp runs one time slice. 1: still alive, 0: all its
 * threads have exited, 2: a CTA of a cluster of several found nothing to run (unless s->strict: another CTA of
 * the cluster may release it; else the collective or deadlock path runs as for a lone CTA), -1: a fault (or the watchdog), its status in s->x.fault.status and its report
 * ("what ... in kernel 'K', block ..., thread ..., PTX line ...") in s->msg. */
int wv_cta_turn(sched *s);
/* Host bytes one resident CTA takes at its start, for the cooperative limit. */
uint64_t wv_cta_footprint(const wv_func *kfn, uint32_t nthreads, uint64_t shared_size);

/* CLOCK_MONOTONIC in seconds. */
double wv_now(void);

/* workers.c: run the launch's CTAs in grid order on `workers` threads (the caller and workers - 1 of
 * the vm's pool), each CTA to its end in its worker's reused buffers. Output, diagnostics and the
 * fault report come out as one thread running them in order would give them (see workers.c). */
wv_status wv_run_grid(const wv_launch_desc *L, uint32_t workers);

#endif
