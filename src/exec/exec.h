/*
 * exec.h — the executor's state and the contract between the scheduler (sched.c) and the
 * instruction handlers (h_*.c): frames, warps, lane groups, CTAs, the per-launch context, the
 * lane-loop macros and address translation.
 *
 * Registers are structure-of-arrays: a slot is 32 consecutive uint64_t, one per lane, so a
 * full-mask handler is one tight loop. Lanes of a warp that have diverged form groups
 * (disjoint masks, each with its own pc); groups that split at a branch wait for each other at
 * a convergence barrier placed at the branch's immediate post-dominator, as Volta's BSSY/BSYNC do.
 */
#ifndef WV_EXEC_H
#define WV_EXEC_H

#include <stdint.h>
#include <string.h>

#include "exec/mem.h"
#include "ir/ir.h"

#define WV_WARP 32
#define WV_MAX_BARRIERS 16 /* named CTA barriers 0..15 */
#define WV_CLUSTER_BARRIER WV_MAX_BARRIERS /* a group waiting in barrier.cluster.wait (cluster.c) has this bar_id */
#define WV_MAX_CLUSTER 16u /* CTAs of a cluster: 8 portable, 16 with cudaFuncAttributeNonPortableClusterSizeAllowed */
#define WV_GPU_SMS 16u    /* the modelled GPU's SMs: %nsmid, and what it keeps resident (launch.c) */

/* ---- lane loops ---- */
#define WV_FOR_LANES(m, l, ...)                                                          \
  do {                                                                                   \
    uint32_t m_ = (m);                                                                   \
    if (m_ == 0xffffffffu) {                                                             \
      for (int l = 0; l < WV_WARP; l++) { __VA_ARGS__; }                                 \
    } else {                                                                             \
      for (; m_; m_ &= m_ - 1) { int l = __builtin_ctz(m_); __VA_ARGS__; }               \
    }                                                                                    \
  } while (0)

/* ---- frames: one activation of a function for the lanes of one or more groups ---- */
typedef struct wv_frame {
  struct wv_frame *parent;
  const wv_func *fn;
  const uint64_t *consts;   /* fn's constants, 32 lanes each (the launch makes them once per function) */
  uint32_t ret_pc;          /* pc in the parent to continue at */
  const wv_insn *call;      /* the parent's call instruction (return value mapping) */
  uint32_t refs;            /* groups using this frame */
  uint32_t local_base;      /* local-space address of this activation's depot (mem.h: stacks grow down) */
  uint64_t *regs;           /* fn->nregs * 32 */
  uint32_t *preds;          /* fn->npreds masks */
  uint8_t *params;          /* fn->param_size * 32, lane-major */
  const struct wv_jit_code *jc; /* fn's compiled regions in this launch (jit_hook.h), NULL: none */
  struct wv_frame *next_free;
} wv_frame;

/* A convergence barrier: the lanes that split at one branch meet again at rpc. */
typedef struct wv_cbar {
  uint32_t rpc;             /* instruction index or WV_RPC_EXIT */
  wv_frame *frame;          /* activation it belongs to */
  uint32_t members;         /* lanes expected */
  uint32_t arrived;         /* lanes waiting at rpc */
  uint64_t stamp;           /* warp instructions executed when the last lane arrived */
  uint32_t refs;
  struct wv_cbar *parent;
  struct wv_cbar *next_free;
} wv_cbar;

typedef enum wv_gstate {
  WV_G_RUN = 0,   /* runnable */
  WV_G_CBAR,      /* waiting at its convergence barrier */
  WV_G_BAR,       /* waiting at a CTA barrier */
  WV_G_COLL,      /* waiting for the other members of a warp collective */
  WV_G_MBAR,      /* waiting in mbarrier.try_wait for a phase to complete */
} wv_gstate;

typedef struct wv_group {
  uint32_t mask;
  uint32_t pc;
  uint8_t state;
  uint8_t bar_id;           /* WV_G_BAR: which barrier */
  wv_frame *frame;
  wv_cbar *cbar;            /* innermost convergence barrier, NULL if none */
  uint64_t seq;             /* creation order: the newest runnable group runs first */
} wv_group;

typedef struct wv_warp {
  uint32_t id;              /* warp index in the CTA */
  uint32_t exists;          /* lanes that are threads of the block (partial last warp) */
  uint32_t exited;          /* lanes that have exited */
  uint32_t ngroups;
  int done;                 /* (what each turn reads first, with the first groups: on one cache line) */
  wv_group groups[2 * WV_WARP]; /* ≤ 32 live (disjoint masks) plus dropped slots awaiting compaction */
  uint64_t *specials;       /* WV_SP_COUNT * 32 */
  uint8_t *local;           /* per-lane local memory: lane l's local addresses [WV_GPU_LOCAL_TOP - local_cap,
                               WV_GPU_LOCAL_TOP) at local + l * local_cap (wv_local_at) */
  uint32_t local_cap;
  uint32_t local_low;       /* the lowest local address a frame has held (the same for all lanes of a chain) */
  struct wv_aqs *aq;        /* per-lane queues of cp.async operations not yet delivered (async.c) */
  struct wv_abq *abq;       /* cp.async copies of several lanes issued together, not yet delivered (async.c) */
  uint32_t cl_arrived;      /* barrier.cluster: lanes that arrived and have not waited yet (cluster.c) */
  uint32_t cl_parity;       /* ... and the parity of the cluster barrier's phase each arrived in */
  uint32_t mm_sync[WV_WARP];/* weak memory model: bar.warp.sync count of each lane (memmodel.c) */
  struct {                  /* resident CTAs: the loop it may be polling in (sched.c, polling) */
    const struct wv_insn *at; /* the back edge */
    uint64_t stores, sig;   /* stores of the launch and what the loop's loads read, at its last trip */
    uint32_t trips;         /* trips in a row that changed nothing */
  } poll;
} wv_warp;

/* Host address of lane's byte at local address a (WV_GPU_LOCAL_TOP - local_cap <= a < WV_GPU_LOCAL_TOP). */
static inline uint8_t *wv_local_at(const wv_warp *w, int lane, uint64_t a) {
  return w->local + (size_t)lane * w->local_cap + (size_t)(a - (WV_GPU_LOCAL_TOP - (uint64_t)w->local_cap));
}

typedef struct wv_ctabar {
  uint32_t arrived;         /* threads arrived */
  uint32_t expected;        /* 0 = all non-exited threads of the CTA */
  uint32_t red_popc;        /* bar.red accumulators */
  uint32_t red_and, red_or;
  int red_any;              /* a bar.red arrived */
} wv_ctabar;

struct wv_cta;
/* A thread-block cluster (cluster.c): CTAs resident together on one host thread, each reaching the others'
 * shared memory (.shared::cluster), and the cluster barrier. Without clusters every CTA is a cluster of one
 * (wv_cta.own). */
typedef struct wv_cluster {
  uint32_t n;               /* CTAs: %cluster_nctarank */
  uint32_t dim[3];          /* %cluster_nctaid */
  struct wv_cta *ctas[WV_MAX_CLUSTER]; /* by rank */
  uint32_t arrived;         /* barrier.cluster: threads arrived in the current phase */
  uint32_t phase;           /* phases completed */
  uint32_t async_pending;   /* undelivered asynchronous operations its threads issued (async.c) */
} wv_cluster;

typedef struct wv_cta {
  uint32_t ctaid[3];
  uint32_t nthreads, nwarps;
  uint32_t live_threads;    /* not exited */
  wv_warp *warps;
  uint8_t *shared;
  uint32_t shared_size;
  wv_ctabar bars[WV_MAX_BARRIERS + 1]; /* the named barriers and the cluster barrier */
  uint32_t bars_waiting;    /* bit id: barrier id has threads arrived (bars[id].arrived != 0) */
  uint32_t async_pending;   /* cp.async operations issued and not yet delivered */
  uint32_t async_batched;   /* ... of them in its warps' batches (async.c wv_abatch), which aidx does not count */
  struct wv_aidx *aidx;     /* the shared bytes undelivered copies will write (async.c), NULL before a cp.async */
  uint64_t linear;          /* x + y*gx + z*gx*gy */
  uint64_t clk_bias;        /* warp instructions of other CTAs while this one was resident (cooperative) */
  uint64_t clk_out;         /* launch's warp instructions when its last turn ended */
  uint32_t mm_bars;         /* weak memory model: CTA barriers completed (memmodel.c) */
  wv_cluster *cl;           /* its cluster (&own when it is a cluster of one), set by wv_cta_start */
  uint32_t rank;            /* %cluster_ctarank */
  int stuck;                /* its last turn found nothing to run (cluster.c: a cluster deadlocks when all are) */
  wv_cluster own;
} wv_cta;

/* One device fault, reported as one message. */
typedef struct wv_fault {
  wv_status status;
  char what[256];           /* "out-of-bounds global load of 4 bytes (...)" */
  uint64_t addr;
  int has_addr;
  int lane;
  /* where, when not the running group's instruction: an asynchronous copy that failed when it was
   * delivered is reported at its cp.async (async.c) */
  const struct wv_warp *at_warp;
  const wv_func *at_fn;
  uint32_t at_pc;
} wv_fault;

struct wv_vm;

/* A global allocation (or a module's bank of constants) that compiled code found through wv_warp_region_at (jit_rt.c), kept per access site
 * (its pc % WV_GWINS): device addresses [lo, end) are at host address + delta while the heap has freed nothing
 * since (frees == *wv_exec.heap_frees). lo == end: none. Two sites a multiple of WV_GWINS apart share one, and
 * where they access two allocations each finds the other's there (srad's coefficient kernel at 16: a call of the
 * check every other warp); at 64 only sites 64 instructions apart do. */
typedef struct wv_gwin {
  uint64_t lo, end, delta, frees;
  uint64_t last; /* lane 0's address at the site's last compiled run, where it prefetches (emit_mem.c wv_em_prefetch_next) */
} wv_gwin;
#define WV_GWINS 64

/* The per-launch execution context handed to handlers. */
typedef struct wv_exec {
  uint64_t *bank[3];        /* slot banks: frame regs, function constants, warp specials */
  uint32_t *preds;          /* current frame's predicates */
  wv_frame *frame;
  const wv_func *fn;
  const wv_func *kfn;       /* the kernel */
  wv_warp *warp;
  wv_cta *cta;
  struct wv_vm *vm;
  const uint8_t *kparams;   /* kernel parameter buffer (ld.param) */
  uint8_t *kparams_mem;     /* the parameters as generic addresses see them (cvta.param): a copy in memory that
                               generic stores change and ld.param does not see, as on an H100 */
  uint32_t kparam_size;
  uint32_t block[3], grid[3];
  uint32_t dyn_shared;
  uint32_t cur_mask;        /* the running group's lanes (activemask) */
  int async_mode;           /* WV_ASYNC_* */
  struct wv_memmodel *mm;   /* pending global stores (weak memory model), NULL when sequentially consistent */
  uint32_t rng;             /* random delivery */
  uint32_t cur_pc;
  struct wv_ctaout *out;    /* a grid run: what the running CTA prints, put out in grid order (workers.c) */
  wv_fault fault;
  uint8_t scratch_small[64];/* the bytes of an over-read (mem.c), or scratch when larger */
  uint8_t *scratch;
  uint64_t scratch_cap;
  /* counters local to the launch, folded into the vm's stats at the end */
  uint64_t n_gld, n_gst, n_sld, n_sst, n_lld, n_lst, n_atom, n_coll, n_coll_undef;
  uint64_t n_async, n_async_early;
  const uint64_t *heap_frees; /* the vm heap's count of frees (wv_gwin) */
  /* compiled code and the group loop (jit_hook.h): the running group's reconvergence point, and what a region's
   * forward branches did that the loop accounts as the interpreter would */
  uint32_t jit_stop;
  uint32_t jit_alone;       /* 1: the running group holds all the warp's live lanes (no other group is anywhere) */
  uint32_t jit_skipped;     /* instructions of the region's count on paths no lane took */
  uint32_t jit_split;       /* branches whose lanes parted (and met again at their join) */
  uint64_t jit_tless;       /* thread instructions of its count that lanes on the other path did not run */
  uint32_t jit_room;        /* instructions the time slice has left when the region starts (0: no looping) */
  uint32_t jit_extra;       /* instructions it ran beyond its count: whole turns of a loop it is the body of */
  wv_gwin gwin[WV_GWINS];
} wv_exec;

#define WV_R(x, s) ((x)->bank[WV_SLOT_BANK(s)] + (size_t)WV_SLOT_INDEX(s) * WV_WARP)

/* ---- memory (mem.c) ---- */
/* How an access uses memory (wv_mem_xlate). */
enum {
  WV_MEM_LOAD = 0,       /* a load: outside the program's memory but where the GPU maps memory it reads
                            what the GPU would (an invalid read, counted; a fault under memcheck) */
  WV_MEM_STORE = 1,      /* a store or read-modify-write: inside the program's memory or a fault */
  WV_MEM_LOAD_QUIET = 2, /* a load already checked (and counted) as WV_MEM_LOAD: cp.async delivery */
  WV_MEM_PROBE = 3,      /* the vm's own look (printf's argument buffer): the program's memory or NULL, no fault */
};
/* Translate one lane's access to a host pointer, checking bounds and alignment; on failure
 * records the fault in x and returns NULL. `align` is the required alignment in bytes. An over-read
 * returns a scratch buffer valid until the next translation. */
uint8_t *wv_mem_xlate(wv_exec *x, int space, uint64_t addr, uint32_t size, uint32_t align,
                      int lane, int access);
/* Resolve a generic address to its space and space address. */
int wv_mem_classify(uint64_t generic, uint64_t *space_addr);
/* Read a NUL-terminated string from a generic address (printf %s); returns length or -1. */
int wv_mem_read_cstr(wv_exec *x, uint64_t generic, int lane, char *buf, size_t cap);

int wv_fault_set(wv_exec *x, wv_status st, int lane, int has_addr, uint64_t addr, const char *fmt,
                 ...) __attribute__((format(printf, 6, 7)));
/* sched.c: "in kernel 'K', block (x,y,z), thread (x,y,z), PTX line L of FILE (CUDA source line S)" for
 * lane of warp w at instruction pc of fn (the reports of faults and diagnostics). */
void wv_exec_where(const wv_exec *x, const wv_warp *w, int lane, const wv_func *fn, uint32_t pc, char *buf, size_t cap);



/* ---- asynchronous copies and mbarriers (async.c) ---- */
enum { WV_ASYNC_AT_WAIT = 0, WV_ASYNC_EAGER, WV_ASYNC_RANDOM };
/* wv_config.schedule: CTAs one after another; resident CTAs in turns, round robin; in random turns of random length. */
enum { WV_SCHED_SERIAL = 0, WV_SCHED_INTERLEAVE, WV_SCHED_RANDOM };
/* mbarrier.test_wait / try_wait for lanes m: 1 if every lane's phase is complete, 0 if not, -1 fault.
 * Delivers the copies whose completion the wait observes first. Writes the predicate. */
int wv_mbar_wait(wv_exec *x, const wv_insn *in, uint32_t m);
/* A shared-memory load: counts it if it reads bytes an undelivered cp.async will write. */
void wv_async_check_read(wv_exec *x, uint64_t shared_off, uint32_t size);
/* May an undelivered cp.async of the CTA write a byte of shared memory [lo, hi)? 0 only when none does. */
int wv_async_pending_in(const wv_exec *x, uint64_t lo, uint64_t hi);
void wv_async_cta_free(wv_cta *cta);
/* Lanes m of w exit: their bulk copies to global memory complete now; 1 on a fault. */
int wv_async_lanes_exit(wv_exec *x, wv_warp *w, uint32_t m);
void wv_async_warp_reset(wv_warp *w);
void wv_async_warp_free(wv_warp *w);

/* ---- clusters and distributed shared memory (cluster.c) ----
 * A .shared::cluster address: below WV_GPU_SHARED_WINDOW the running CTA's own shared address, else
 * (rank + 1) << 24 | the offset in the shared memory of the cluster's CTA of that rank (mapa's result). */
#define WV_CLUSTER_ADDR(rank, off) ((((uint64_t)(rank) + 1) & 0xffu) << 24 | ((off) & 0xffffffu))
/* The CTA and its shared offset that .shared::cluster address sa names; NULL (the fault recorded, naming
 * addr) when it names a rank outside the cluster. */
struct wv_cta *wv_cluster_cta(wv_exec *x, uint64_t sa, uint64_t addr, int lane, uint64_t *off);

/* ---- the weak memory model (memmodel.c) ---- */
struct wv_memmodel *wv_mm_new(uint32_t seed);
void wv_mm_free(struct wv_memmodel *mm);
int wv_mm_store(wv_exec *x, int lane, uint64_t addr, const void *data, uint32_t size);
void wv_mm_commit_own(wv_exec *x, int lane, int all, uint64_t addr, uint32_t size);
void wv_mm_commit_cta(wv_exec *x);
void wv_mm_before_load(wv_exec *x, int lane, uint64_t addr, uint32_t size);
void wv_mm_warp_sync(wv_exec *x, uint32_t lanes);
void wv_mm_tick(wv_exec *x);
void wv_mm_commit_all(wv_exec *x);
int wv_h_fence(wv_exec *x, const wv_insn *in, uint32_t m);

/* ---- what a kernel prints (workers.c) ----
 * Device printf records, an assert's message and diagnostics. In a grid run (x->out) they go out as if
 * the CTAs had run one after another in grid order; otherwise straight to the vm. */
void wv_out_printf(wv_exec *x, const char *text, size_t n);
void wv_out_stderr(wv_exec *x, const char *text, size_t n);
/* Counts one diagnostic of kind (rt/vm_internal.h wv_diag_add) and returns the buffer (WV_DIAG_TEXT
 * bytes) for its record, or NULL when it will not be kept. */
char *wv_out_diag(wv_exec *x, int kind);

/* ---- builtins (rt/builtins.c) ---- */
int wv_builtin_call(wv_exec *x, const wv_insn *call, uint32_t mask);

#endif
