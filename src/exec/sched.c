/*
 * sched.c — the SIMT scheduler of one CTA (launch.c and workers.c decide which CTAs run when, and on
 * which thread): interleaves the warps of a CTA, and inside a warp runs lane groups (threads at one pc)
 * with Volta-style independent thread scheduling:
 *   - a branch that splits a group places a convergence barrier at its immediate
 *     post-dominator (cfg.c); the halves run one after the other and merge when every
 *     non-exited member has arrived (as BSSY/BSYNC do), so __activemask() matches hardware;
 *   - a group that blocks (CTA barrier, a .sync collective waiting for lanes on another path,
 *     a convergence barrier) lets the warp's other groups run, so ITS-correct code never
 *     deadlocks here; a time slice keeps spin-waits across warps and groups live;
 *   - if nothing can run, a collective whose members never arrive runs with the lanes present
 *     (counted as undefined behaviour), and otherwise the launch fails with a deadlock report.
 * Plain instructions go straight to their handler; control, barriers and collectives come here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "exec/handlers.h"
#include "exec/profile.h"
#include "exec/sched.h"
#include "exec/warp.h"
#include "rt/vm_internal.h"

/* Forward progress under ITS: lanes waiting at a reconvergence point while the rest of their warp
 * runs this many instructions without arriving go on alone (a spin lock inside one warp). */
#define YIELD_AFTER (1u << 18)
#define MAX_LOCAL_PER_THREAD (512u * 1024u)
/* A worker of a multi-threaded launch adds its warp instructions to the launch's count (the
 * watchdog's) when it has this many unpublished, and at the end of each CTA. */
#define PUBLISH_EVERY (1u << 16)

enum { R_BLOCKED = 1, R_SLICE, R_FAULT, R_DONE };

/* Warp instructions the running CTA has executed (its own clock: in a cooperative launch the other
 * CTAs' turns do not count), for the ITS forward-progress rule. */
static inline uint64_t cta_clock(const sched *s) { return s->warp_insns - s->x.cta->clk_bias; }

double wv_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---------------- frames ---------------- */

/* n bytes, zeroed, on a cache line of their own: a register's 32 lanes (256 bytes) are four whole lines, and a
 * warp's row of shared or local memory does not straddle one more than it must. (malloc's 16-byte alignment
 * put them anywhere in a line, differently in each process: the same launch ran up to twice as long.) */
static void *zalloc64(size_t n) { return wv_zalloc_aligned(n, 64); }

static uint32_t fn_index(const sched *s, const wv_func *fn) { return (uint32_t)(fn - s->mod->funcs); }

/* A function's constant bank: each immediate repeated for the 32 lanes, so handlers read it like a register. */
static const uint64_t *const_bank(sched *s, const wv_func *fn, uint32_t fi) {
  if (!s->consts[fi]) {
    uint64_t *b = zalloc64(((size_t)fn->nconsts + 1) * WV_WARP * sizeof *b);
    if (!b) return NULL;
    for (uint32_t i = 0; i < fn->nconsts; i++)
      for (int l = 0; l < WV_WARP; l++) b[(size_t)i * WV_WARP + l] = fn->consts[i];
    s->consts[fi] = b;
  }
  return s->consts[fi];
}

/* Function fi's compiled code in this launch, NULL: none (yet: engine auto publishes it from its compiling thread,
 * engine.c, after everything it points to). */
static const wv_jit_code *code_of(const sched *s, uint32_t fi) {
  return s->jit ? __atomic_load_n(&s->jit[fi], __ATOMIC_ACQUIRE) : NULL;
}

static wv_frame *frame_new(sched *s, const wv_func *fn) {
  uint32_t fi = fn_index(s, fn);
  const uint64_t *consts = const_bank(s, fn, fi);
  if (!consts) return NULL;
  wv_frame *f = s->free_frames[fi];
  if (f) {
    s->free_frames[fi] = f->next_free;
    /* A frame another thread used keeps its registers (the program writes each before it reads it), but CC.CF
     * starts at 0 as in a new frame: addc after an add.cc some lanes skip reads it, and which CTA's warp left a
     * frame to which depends on the worker threads (engines.diff: the two engines' runs differed in one lane). */
    if (fn->cc_reg) memset(f->regs + (size_t)(fn->cc_reg - 1) * WV_WARP, 0, WV_WARP * sizeof *f->regs);
  } else {
    size_t regs = (size_t)fn->nregs * WV_WARP * 8, preds = (size_t)(fn->npreds + 1) * 4;
    size_t params = (size_t)fn->param_size * WV_WARP;
    size_t head = (sizeof *f + 63) & ~(size_t)63;
    f = zalloc64(head + regs + preds + params + 16);
    if (!f) return NULL;
    uint8_t *p = (uint8_t *)f + head;
    f->regs = (uint64_t *)(void *)p;
    f->preds = (uint32_t *)(void *)(p + regs);
    f->params = p + regs + preds;
  }
  f->fn = fn;
  f->consts = consts;
  f->jc = code_of(s, fi); /* (group_loop's profiled copy reads none) */
  f->parent = NULL;
  f->refs = 1;
  f->call = NULL;
  f->next_free = NULL;
  return f;
}

static void frame_release(sched *s, wv_frame *f) {
  while (f && --f->refs == 0) {
    wv_frame *p = f->parent;
    uint32_t fi = fn_index(s, f->fn);
    f->next_free = s->free_frames[fi];
    s->free_frames[fi] = f;
    f = p;
  }
}

/* ---------------- convergence barriers ---------------- */

static wv_cbar *cbar_new(sched *s, uint32_t rpc, wv_frame *fr, uint32_t members, wv_cbar *parent) {
  wv_cbar *c = s->free_cbars;
  if (c) s->free_cbars = c->next_free;
  else if (!(c = malloc(sizeof *c))) return NULL;
  *c = (wv_cbar){.rpc = rpc, .frame = fr, .members = members, .refs = 1, .parent = parent};
  if (parent) parent->refs++;
  return c;
}

static void cbar_release(sched *s, wv_cbar *c) {
  while (c && --c->refs == 0) {
    wv_cbar *p = c->parent;
    c->next_free = s->free_cbars;
    s->free_cbars = c;
    c = p;
  }
}

/* ---------------- groups ---------------- */

static wv_group *group_add(sched *s, wv_warp *w, uint32_t mask, uint32_t pc, wv_frame *fr, wv_cbar *cb) {
  wv_group *g = NULL;
  for (uint32_t i = 0; i < w->ngroups && !g; i++) /* reuse a dropped slot */
    if (!w->groups[i].mask && !w->groups[i].frame) g = &w->groups[i];
  if (!g) g = &w->groups[w->ngroups++]; /* live groups have disjoint masks: at most 32 */
  *g = (wv_group){.mask = mask, .pc = pc, .state = WV_G_RUN, .frame = fr, .cbar = cb, .seq = ++s->seq};
  if (fr) fr->refs++;
  if (cb) cb->refs++;
  return g;
}

static void group_drop(sched *s, wv_group *g) {
  frame_release(s, g->frame);
  cbar_release(s, g->cbar);
  g->frame = NULL;
  g->cbar = NULL;
  g->mask = 0;
}

static void warp_compact(wv_warp *w) {
  if (w->ngroups == 1 && w->groups[0].mask) { /* a converged warp: nothing moves (the common case) */
    w->done = 0;
    return;
  }
  uint32_t j = 0;
  for (uint32_t i = 0; i < w->ngroups; i++)
    if (w->groups[i].mask) {
      if (i != j) w->groups[j] = w->groups[i]; /* (a warp of one group: nothing moves) */
      j++;
    }
  w->ngroups = j;
  w->done = j == 0;
}

/* Runnable groups at the same place with the same barriers are one group again. Merged groups
 * leave holes (mask 0) that only run_warp compacts, so a caller's group pointer stays valid. */
static void warp_merge(sched *s, wv_warp *w) {
  if (w->ngroups < 2) return; /* (a barrier's release in a converged CTA: nothing to merge) */
  for (uint32_t i = 0; i < w->ngroups; i++) {
    wv_group *a = &w->groups[i];
    if (!a->mask || a->state != WV_G_RUN) continue;
    for (uint32_t j = i + 1; j < w->ngroups; j++) {
      wv_group *b = &w->groups[j];
      if (b->mask && b->state == WV_G_RUN && b->pc == a->pc && b->frame == a->frame && b->cbar == a->cbar) {
        a->mask |= b->mask;
        if (b->seq > a->seq) a->seq = b->seq;
        group_drop(s, b);
      }
    }
  }
}

void wv_sched_merge(sched *s, wv_warp *w) { warp_merge(s, w); }

/* ---------------- exits and barrier completion ---------------- */

static void check_cbars(sched *s, wv_warp *w);
static inline void check_ctabar(sched *s, wv_cta *cta, uint32_t id);

static void threads_exit(sched *s, wv_warp *w, wv_group *g, uint32_t m) {
  if (w->aq) wv_async_lanes_exit(&s->x, w, m); /* (a fault is the running group's: run_warp sees it) */
  w->exited |= m;
  g->mask &= ~m;
  s->x.cta->live_threads -= (uint32_t)__builtin_popcount(m);
  if (!g->mask) group_drop(s, g);
  check_cbars(s, w);
  for (uint32_t ids = s->x.cta->bars_waiting; ids; ids &= ids - 1) check_ctabar(s, s->x.cta, (uint32_t)__builtin_ctz(ids));
  wv_cluster_bar_check(s, s->x.cta->cl); /* the cluster barrier waits for live threads only */
}

static void do_return(sched *s, wv_warp *w, wv_group *g);

/* Release a convergence barrier whose live members have all arrived (or, forced, the ones that have). */
static void cbar_release_arrived(sched *s, wv_warp *w, wv_cbar *cb, int force) {
  uint32_t live = cb->members & ~w->exited;
  if ((live & ~cb->arrived) && !force) return;
  uint32_t mask = 0, pc = 0;
  for (uint32_t i = 0; i < w->ngroups; i++) {
    wv_group *g = &w->groups[i];
    if (g->mask && g->state == WV_G_CBAR && g->cbar == cb) {
      mask |= g->mask;
      pc = g->pc;
    }
  }
  if (!mask) return;
  cb->refs++; /* keep it alive while the waiting groups go */
  /* the merged group takes its references before the waiting groups drop theirs */
  wv_group *m = group_add(s, w, mask, cb->rpc == WV_RPC_EXIT ? pc : cb->rpc, cb->frame, cb->parent);
  cb->members &= ~mask; /* after a forced yield the others still meet here */
  for (uint32_t i = 0; i < w->ngroups; i++) {
    wv_group *g = &w->groups[i];
    if (g->mask && g->state == WV_G_CBAR && g->cbar == cb) group_drop(s, g);
  }
  cb->arrived = 0;
  cbar_release(s, cb);
  s->reconv++;
  if (cb->rpc == WV_RPC_EXIT) do_return(s, w, m);
}

static void check_cbars(sched *s, wv_warp *w) {
  for (int again = 1; again;) {
    again = 0;
    for (uint32_t i = 0; i < w->ngroups; i++) {
      wv_group *g = &w->groups[i];
      if (g->mask && g->state == WV_G_CBAR) {
        uint32_t before = w->ngroups;
        wv_cbar *cb = g->cbar;
        cbar_release_arrived(s, w, cb, 0);
        if (w->ngroups != before || !g->mask) { again = 1; break; }
      }
    }
  }
}

/* g arrives at its convergence barrier. While others are still to come, the lanes waiting at one reconvergence
 * point are one group, at the lowest place of those that arrived (the place by which check_cbars, yield_stale and
 * the deadlock report meet the barrier, and the lanes that cbar_release_arrived merges, are those of separate
 * groups): a loop whose lanes leave it one turn after another (a divergent while) would otherwise add a group at
 * each exit, which every pick, compaction and release then walks. Not for a function's end (WV_RPC_EXIT), where
 * the returning groups' places differ. */
static void arrive_cbar(sched *s, wv_warp *w, wv_group *g) {
  wv_cbar *cb = g->cbar;
  g->state = WV_G_CBAR;
  cb->arrived |= g->mask;
  cb->stamp = cta_clock(s);
  if (cb->rpc != WV_RPC_EXIT && (cb->members & ~w->exited & ~cb->arrived)) {
    for (uint32_t i = 0; i < w->ngroups; i++) {
      wv_group *o = &w->groups[i];
      if (o != g && o->mask && o->state == WV_G_CBAR && o->cbar == cb) {
        wv_group *keep = o < g ? o : g, *gone = o < g ? g : o;
        keep->mask |= gone->mask;
        group_drop(s, gone); /* (a hole the caller's return compacts) */
        return;
      }
    }
    return;
  }
  cbar_release_arrived(s, w, cb, 0);
}

/* ---------------- CTA barriers ---------------- */

/* Barrier id's waiting threads go on (they have all arrived). */
static void release_ctabar(sched *s, wv_cta *cta, uint32_t id) {
  wv_ctabar *b = &cta->bars[id];
  wv_ctabar done = *b;
  memset(b, 0, sizeof *b);
  cta->bars_waiting &= ~(1u << id);
  s->barriers++;
  wv_mm_commit_cta(&s->x); /* a CTA barrier orders the block's memory accesses */
  for (uint32_t wi = 0, nw = cta->nwarps; wi < nw; wi++) {
    wv_warp *w = &cta->warps[wi];
    uint32_t ng = w->ngroups;
    for (uint32_t i = 0; i < ng; i++) {
      wv_group *g = &w->groups[i];
      if (g->state != WV_G_BAR || g->bar_id != id || !g->mask) continue;
      const wv_insn *in = done.red_any ? &g->frame->fn->code[g->pc] : NULL;
      if (in && in->mode == WV_BAR_RED) { /* bar.red: every waiting thread gets the result */
        uint64_t v = in->boolop == WV_BOOL_AND ? (done.red_and ? 1 : 0)
                     : in->boolop == WV_BOOL_OR  ? (done.red_or ? 1 : 0) : done.red_popc;
        if (in->boolop == WV_BOOL_NONE) {
          uint64_t *D = g->frame->regs + (size_t)WV_SLOT_INDEX(in->d[0]) * WV_WARP;
          WV_FOR_LANES(g->mask, l, { D[l] = v; });
        } else {
          uint32_t *P = &g->frame->preds[in->d[0]];
          *P = v ? (*P | g->mask) : (*P & ~g->mask);
        }
      }
      if (s->prof) wv_prof_bar(s->prof, g->frame->fn, g->pc, w->id, cta_clock(s), 1);
      g->state = WV_G_RUN;
      g->pc++;
    }
    if (ng > 1) warp_merge(s, w);
  }
}

/* Whether every thread barrier id waits for has arrived: then they go on. (Inline: most arrivals are not the last.) */
static inline void check_ctabar(sched *s, wv_cta *cta, uint32_t id) {
  const wv_ctabar *b = &cta->bars[id];
  if (b->arrived >= (b->expected ? b->expected : cta->live_threads)) release_ctabar(s, cta, id);
}

/* ---------------- control instructions ---------------- */

static uint32_t read_u32(sched *s, uint32_t slot, uint32_t m) {
  const uint64_t *v = WV_R(&s->x, slot);
  return (uint32_t)v[m ? __builtin_ctz(m) : 0];
}

/* Split lanes `m` of g off into a new group at pc `pc`; g keeps the rest. */
static wv_group *split(sched *s, wv_warp *w, wv_group *g, uint32_t m, uint32_t pc) {
  g->mask &= ~m;
  return group_add(s, w, m, pc, g->frame, g->cbar);
}

/* Reuse the innermost barrier if it already waits at rpc in this frame, else open one. */
static int diverge_cbar(sched *s, wv_group *g, uint32_t rpc) {
  if (rpc == WV_RPC_NONE) return 0;
  if (g->cbar && g->cbar->rpc == rpc && g->cbar->frame == g->frame) return 0;
  wv_cbar *c = cbar_new(s, rpc, g->frame, g->mask, g->cbar);
  if (!c) return -1;
  cbar_release(s, g->cbar); /* the group's reference moves to the child, which holds its parent */
  g->cbar = c;
  return 0;
}

/* Makes each lane's local buffer hold the local addresses [low, WV_GPU_LOCAL_TOP) (mem.h: stacks grow down
 * from near the top of the local window; a buffer holds the top of it). A warp whose frames have no local
 * memory has no buffer (what lies above the stack reads as 0: mem.c): most kernels, and a cooperative
 * launch keeps every warp of the grid. */
static int ensure_local(sched *s, wv_warp *w, uint32_t low) {
  uint32_t need = WV_GPU_LOCAL_TOP - low;
  if (need <= w->local_cap || low >= WV_GPU_LOCAL_TOP - WV_GPU_LOCAL_RESERVED) return 0;
  if (need - WV_GPU_LOCAL_RESERVED > MAX_LOCAL_PER_THREAD)
    return wv_fault_set(&s->x, WV_ERR_FAULT, -1, 0, 0, "stack overflow: %u bytes of local memory per thread",
                        need - WV_GPU_LOCAL_RESERVED);
  uint32_t cap = w->local_cap ? w->local_cap : 64; /* small at first: a cooperative launch has many warps resident */
  while (cap < need) cap *= 2;
  uint8_t *nl = zalloc64((size_t)WV_WARP * cap);
  if (!nl) return wv_fault_set(&s->x, WV_ERR_NOMEM, -1, 0, 0, "out of host memory for local memory");
  for (int l = 0; l < WV_WARP && w->local; l++) /* the old buffer is the new one's top */
    memcpy(nl + (size_t)l * cap + (cap - w->local_cap), w->local + (size_t)l * w->local_cap, w->local_cap);
  free(w->local);
  w->local = nl;
  w->local_cap = cap;
  return 0;
}

/* The local address of a frame of fn right below local address top (mem.h: stacks grow down): aligned to 16
 * bytes, or fn's depot alignment if more. A stack that would reach below 0 gets 0 (ensure_local refuses it). */
static uint32_t frame_base(uint32_t top, const wv_func *fn) {
  uint32_t align = fn->local_align > 16 ? fn->local_align : 16;
  return top > fn->local_size ? (top - fn->local_size) & ~(align - 1) : 0;
}

/* A call that recurses (the callee is already on the chain) must fit its thread's stack in the
 * stack limit (cudaLimitStackSize), counting each activation's .local frame and 16 bytes (what ptxas
 * gives a small recursive function: tests/cli/kernels.ptx's `depth` ran 60 calls deep on an H100
 * with the default 1 KiB and faulted at 80, tests/cli/recursion_h100.txt). It bounds the host memory
 * a recursion takes too. */
#define CALL_STACK_BYTES 16u
static int stack_check(sched *s, const wv_frame *cf, const wv_func *callee, uint32_t low) {
  int recursive = 0;
  uint32_t depth = 1, kernel_low = 0;
  for (const wv_frame *f = cf; f; f = f->parent) {
    recursive |= f->fn == callee;
    if (f->parent) depth++;
    else kernel_low = f->local_base;
  }
  uint64_t need = (uint64_t)kernel_low - low + (uint64_t)depth * CALL_STACK_BYTES;
  if (!recursive || need <= s->x.vm->stack_limit) return 0;
  return wv_fault_set(&s->x, WV_ERR_FAULT, -1, 0, 0,
                      "stack overflow: recursion %u calls deep needs %llu bytes of stack per thread, more than the "
                      "%u-byte limit (cudaLimitStackSize; warpvm --stack BYTES)",
                      depth, (unsigned long long)need, s->x.vm->stack_limit);
}

static int do_call(sched *s, wv_warp *w, wv_group *g, const wv_insn *in, uint32_t fi) {
  const wv_func *callee = &s->mod->funcs[fi];
  const wv_callinfo *ci = in->aux;
  wv_frame *cf = g->frame;
  uint32_t base = frame_base(cf->local_base, callee);
  if (stack_check(s, cf, callee, base)) return -1;
  if (ensure_local(s, w, base)) return -1;
  if (base < w->local_low) w->local_low = base;
  wv_frame *nf = frame_new(s, callee);
  if (!nf) return wv_fault_set(&s->x, WV_ERR_NOMEM, -1, 0, 0, "out of host memory for a call frame");
  nf->parent = cf; /* g's reference to cf becomes nf's */
  nf->ret_pc = g->pc + 1;
  nf->call = in;
  nf->local_base = base;
  uint32_t cps = cf->fn->param_size, ps = callee->param_size;
  for (uint32_t i = 0; i < ci->nargs && i < callee->nparams; i++) {
    uint32_t n = ci->arg_size[i] < callee->params[i].size ? ci->arg_size[i] : callee->params[i].size;
    WV_FOR_LANES(g->mask, l, {
      memcpy(nf->params + (size_t)l * ps + callee->params[i].offset, cf->params + (size_t)l * cps + ci->arg_off[i], n);
    });
  }
  g->frame = nf;
  g->pc = 0;
  return 0;
}

/* The function an indirect call enters at function address v, in *fi; else the fault (lane's). */
static int indirect_callee(sched *s, const wv_callinfo *ci, uint64_t v, int lane, uint32_t *fi) {
  const wv_irmod *m = s->mod;
  const wv_func *f = (v & WV_FUNC_ADDR_MASK) == WV_FUNC_ADDR_TAG && (uint32_t)v < m->nfuncs ? &m->funcs[(uint32_t)v] : NULL;
  if (!f) return wv_fault_set(&s->x, WV_ERR_FAULT, lane, 1, v, "indirect call to an address that is not a device function");
  const char *why = f->is_entry ? "a kernel (kernels are launched, not called)"
                    : f->builtin ? "warpvm's builtin, which only direct calls reach"
                    : !f->defined ? "a function the module declares but does not define" : NULL;
  for (uint32_t k = 0; !why && k < ci->ntargets && ci->targets[k] != (uint32_t)v; k++)
    if (k + 1 == ci->ntargets) why = "not one of the call's targets";
  if (why) return wv_fault_set(&s->x, WV_ERR_FAULT, lane, 1, v, "indirect call to '%s', %s", f->name, why);
  *fi = (uint32_t)v;
  return 0;
}

/* call through a register (PTX ISA "call": fptr holds each thread's function address). Lanes with different
 * callees run them one callee at a time — the lowest lane's first; the others wait at the call and take
 * theirs once it returns — and all meet again after the call (its rpc), as the halves of a branch do. */
static int call_indirect(sched *s, wv_warp *w, wv_group *g, const wv_insn *in) {
  const wv_callinfo *ci = in->aux;
  const uint64_t *A = WV_R(&s->x, in->a);
  uint32_t fi, same = 0;
  WV_FOR_LANES(g->mask, l, {
    if (indirect_callee(s, ci, A[l], l, &fi)) return -1;
  });
  uint64_t v = A[__builtin_ctz(g->mask)];
  WV_FOR_LANES(g->mask, l, { if (A[l] == v) same |= 1u << l; });
  if (same != g->mask) {
    s->divergent++;
    if (diverge_cbar(s, g, in->rpc)) return -1;
    split(s, w, g, g->mask & ~same, g->pc);
  }
  return do_call(s, w, g, in, (uint32_t)v);
}

static void do_return(sched *s, wv_warp *w, wv_group *g) {
  wv_frame *f = g->frame;
  if (!f->parent) { /* returning from the kernel: the threads exit */
    threads_exit(s, w, g, g->mask);
    return;
  }
  wv_frame *pf = f->parent;
  const wv_callinfo *ci = f->call->aux;
  uint32_t cps = pf->fn->param_size, ps = f->fn->param_size;
  for (uint32_t i = 0; i < ci->nrets && i < f->fn->nrets; i++) {
    uint32_t n = ci->ret_size[i] < f->fn->rets[i].size ? ci->ret_size[i] : f->fn->rets[i].size;
    WV_FOR_LANES(g->mask, l, {
      memcpy(pf->params + (size_t)l * cps + ci->ret_off[i], f->params + (size_t)l * ps + f->fn->rets[i].offset, n);
    });
  }
  pf->refs++;
  g->frame = pf;
  g->pc = f->ret_pc;
  frame_release(s, f);
}

/* ---------------- collectives ----------------
 *
 * PTX ISA (shfl.sync, vote.sync, match.sync, redux.sync, bar.warp.sync, elect.sync): a thread waits
 * until every non-exited thread of ITS membermask has executed the instruction with the same
 * qualifiers and the same membermask value. So the lanes arriving at a collective form one
 * collective per distinct membermask: the two 16-lane tiles of `tiled_partition<16>` executing one
 * `redux.sync` with masks 0xffff and 0xffff0000 are two reductions. A group waiting at a collective
 * (WV_G_COLL) therefore always has one membermask (control() splits a group by mask on arrival), and
 * only groups with the same mask value meet. Masks that overlap inconsistently (a lane that runs with
 * a mask not naming it, or a class running while another waiting class expects some of its lanes)
 * are undefined on hardware: here they resolve deterministically and are counted. */

/* The membermask of a waiting group (uniform over its lanes). */
static uint32_t coll_mask(sched *s, wv_warp *w, wv_group *g) {
  wv_warp_bind(&s->x, w, g->frame);
  return wv_coll_members(&s->x, &g->frame->fn->code[g->pc], g->mask);
}

/* Does another waiting class (a different membermask) expect some of `lanes`? */
static int coll_overlap(sched *s, wv_warp *w, uint32_t lanes, uint32_t mask) {
  for (uint32_t i = 0; i < w->ngroups; i++) {
    wv_group *h = &w->groups[i];
    if (!h->mask || h->state != WV_G_COLL || (h->mask & lanes)) continue;
    uint32_t hm = coll_mask(s, w, h);
    if (hm != mask && (hm & lanes)) return 1;
  }
  return 0;
}

/* An undefined use of a collective by the waiting groups inside `lanes`: a diagnostic (kind
 * WV_DIAG_UNDEF_COLLECTIVE, naming the first group's instruction), and under synccheck the fault.
 * Returns 1 when it is a fault. */
static int coll_undefined(sched *s, wv_warp *w, uint32_t lanes, uint32_t mask, const char *why) {
  wv_group *g = NULL;
  for (uint32_t i = 0; i < w->ngroups && !g; i++)
    if (w->groups[i].mask & lanes && w->groups[i].state == WV_G_COLL) g = &w->groups[i];
  if (!g) return 0;
  const wv_insn *in = &g->frame->fn->code[g->pc];
  const char *name = in->op == WV_OP_BAR ? "bar.warp" : wv_ops[in->op].mnemonic;
  int lane = __builtin_ctz(g->mask);
  if (s->prof) wv_prof_undef(s->prof, g->frame->fn, g->pc);
  if (s->x.vm->cfg.checks & WV_CHECK_SYNCCHECK)
    return wv_fault_set(&s->x, WV_ERR_FAULT, lane, 0, 0,
                        "undefined warp collective: %s.sync with membermask 0x%08x run by lanes 0x%08x: %s", name, mask,
                        lanes, why);
  char *rec = wv_out_diag(&s->x, WV_DIAG_UNDEF_COLLECTIVE);
  if (rec) {
    int k = snprintf(rec, WV_DIAG_TEXT, "%s.sync with membermask 0x%08x run by lanes 0x%08x: %s, ", name, mask, lanes, why);
    if (k > 0 && k < WV_DIAG_TEXT) wv_exec_where(&s->x, w, lane, g->frame->fn, g->pc, rec + k, WV_DIAG_TEXT - (size_t)k);
  }
  return 0;
}

/* Run the collective of the waiting groups inside `lanes` (one membermask `mask`); forced: some
 * members never arrived. */
static int run_collective(sched *s, wv_warp *w, uint32_t lanes, uint32_t mask, int forced) {
  wv_coll c;
  memset(&c, 0, sizeof c);
  const wv_insn *rep = NULL;
  const char *why = forced ? "some lanes of its membermask never arrive"
                    : (lanes & ~mask) ? "lanes execute it with a membermask that does not name them"
                    : coll_overlap(s, w, lanes, mask) ? "another group of lanes waits with an overlapping membermask"
                    : NULL;
  if (why && coll_undefined(s, w, lanes, mask, why)) return 0;
  uint64_t undef_before = s->x.n_coll_undef;
  /* gather from each group's own frame and instruction */
  for (uint32_t i = 0; i < w->ngroups; i++) {
    wv_group *g = &w->groups[i];
    if (!g->mask || g->state != WV_G_COLL || !(g->mask & lanes)) continue;
    const wv_insn *in = &g->frame->fn->code[g->pc];
    if (!rep) rep = in;
    wv_warp_bind(&s->x, w, g->frame);
    wv_coll_gather(&s->x, in, g->mask, &c, rep == in);
  }
  if (!rep) return 0;
  c.exists = w->exists & ~w->exited;
  if (s->x.mm && rep->op == WV_OP_BAR) wv_mm_warp_sync(&s->x, lanes); /* bar.warp.sync orders memory */
  if (s->x.vm->amd) {
    if (wv_amd_collective(&s->x, rep, lanes, &c)) return 0; /* the fault is in x */
  } else {
    wv_coll_compute(&s->x, rep, lanes, &c);
  }
  if (s->x.n_coll_undef != undef_before && coll_undefined(s, w, lanes, mask, "a lane reads a lane that does not take part"))
    return 0;
  for (uint32_t i = 0; i < w->ngroups; i++) {
    wv_group *g = &w->groups[i];
    if (!g->mask || g->state != WV_G_COLL || !(g->mask & lanes)) continue;
    const wv_insn *in = &g->frame->fn->code[g->pc];
    wv_warp_bind(&s->x, w, g->frame);
    wv_coll_scatter(&s->x, in, g->mask, &c);
    g->state = WV_G_RUN;
    g->pc++;
  }
  s->x.n_coll++;
  warp_merge(s, w);
  return 1;
}

/* Run every collective whose members are all waiting at a matching instruction with its mask. */
static int try_collectives(sched *s, wv_warp *w) {
  int ran = 0;
  for (uint32_t i = 0; i < w->ngroups; i++) {
    wv_group *g = &w->groups[i];
    if (!g->mask || g->state != WV_G_COLL) continue;
    uint32_t mask = coll_mask(s, w, g), need = (mask & w->exists & ~w->exited) | g->mask, have = 0;
    const wv_insn *gi = &g->frame->fn->code[g->pc];
    for (uint32_t j = 0; j < w->ngroups; j++) {
      wv_group *h = &w->groups[j];
      if (!h->mask || h->state != WV_G_COLL || !(h->mask & need)) continue;
      const wv_insn *hi = &h->frame->fn->code[h->pc];
      if (hi->op == gi->op && hi->mode == gi->mode && (h == g || coll_mask(s, w, h) == mask)) have |= h->mask;
    }
    if ((need & ~have) == 0) {
      ran |= run_collective(s, w, have, mask, 0);
      if (s->x.fault.status) return ran; /* synccheck's fault: the groups still wait, do not retry them */
      i = (uint32_t)-1; /* groups changed: rescan */
    }
  }
  return ran;
}

/* A group arriving at a collective: one waiting group per distinct membermask among its lanes. */
static void coll_arrive(sched *s, wv_warp *w, wv_group *g, const wv_insn *in) {
  g->state = WV_G_COLL;
  for (uint32_t rest = g->mask & ~wv_coll_class(&s->x, in, g->mask); rest;) {
    uint32_t cls = wv_coll_class(&s->x, in, rest);
    split(s, w, g, cls, g->pc)->state = WV_G_COLL;
    rest &= ~cls;
  }
}

/* ---------------- the group loop ---------------- */

#define POLL_BODY 32  /* the longest loop body the polling check reads */
#define POLL_TRIPS 2  /* trips in a row that change nothing before a polling warp gives up its turn */

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

/* Resident CTAs take turns: a CTA waiting for another (in grid.sync, or on a flag) would spin out its whole
 * time slice every turn. g takes back edge `in` of a loop of loads: is it polling? Nothing was stored since
 * it last took this edge, and every load of the loop read the same addresses and the same values. After
 * POLL_TRIPS such trips the warp gives up its turn (its next one comes after the other CTAs'). A loop that
 * computes, or loads new data, is not polling. */
static int polling(sched *s, wv_warp *w, wv_group *g, const wv_insn *in) {
  wv_exec *x = &s->x;
  const wv_insn *code = g->frame->fn->code;
  uint32_t from = in->target, to = g->pc;
  if (to - from > POLL_BODY) return 0;
  uint64_t sig = 0, stores = x->n_gst + x->n_sst + x->n_lst + x->n_atom + x->n_async;
  int loads = 0;
  for (uint32_t i = from; i < to; i++) {
    const wv_insn *l = &code[i];
    if (l->op != WV_OP_LD && l->op != WV_OP_LDU) continue;
    loads = 1;
    const uint64_t *A = l->a != WV_NOSLOT ? WV_R(x, l->a) : NULL;
    for (unsigned v = 0; v < l->vec && v < 4; v++) {
      const uint64_t *D = l->d[v] != WV_NOSLOT ? WV_R(x, l->d[v]) : NULL;
      WV_FOR_LANES(g->mask, ln, { sig = mix(sig, (A ? A[ln] : 0) ^ (D ? D[ln] : 0) << 1); });
    }
  }
  if (!loads) return 0;
  int same = w->poll.at == in && w->poll.stores == stores && w->poll.sig == sig;
  w->poll.at = in;
  w->poll.stores = stores;
  w->poll.sig = sig;
  w->poll.trips = same ? w->poll.trips + 1 : 0;
  if (w->poll.trips < POLL_TRIPS) return 0;
  w->poll.trips = 0;
  return 1;
}

/* bar.sync, bar.red or bar.arrive of CTA barrier in->a by lanes m, all of group g: their arrival, and whether
 * they wait (R_BLOCKED; the last to arrive releases them all, check_ctabar). */
static inline __attribute__((always_inline)) int bar_arrive(sched *s, wv_warp *w, wv_group *g, const wv_insn *in, uint32_t m) {
  wv_exec *x = &s->x;
  uint32_t id = read_u32(s, in->a, m) & 15u;
  uint32_t cnt = in->b != WV_NOSLOT ? read_u32(s, in->b, m) : 0;
  wv_ctabar *b = &x->cta->bars[id];
  if (cnt) b->expected = cnt;
  b->arrived += (uint32_t)__builtin_popcount(m);
  x->cta->bars_waiting |= 1u << id;
  if (in->mode == WV_BAR_RED) {
    uint32_t p = x->preds[in->c];
    if (in->neg_c) p = ~p;
    p &= m;
    if (!b->red_any) { b->red_and = 1; b->red_or = 0; }
    b->red_any = 1;
    b->red_popc += (uint32_t)__builtin_popcount(p);
    if (p != m) b->red_and = 0;
    if (p) b->red_or = 1;
  }
  if (in->mode == WV_BAR_ARRIVE) {
    g->pc++;
    check_ctabar(s, x->cta, id);
    return 0;
  }
  g->state = WV_G_BAR;
  g->bar_id = (uint8_t)id;
  if (s->prof) wv_prof_bar(s->prof, g->frame->fn, g->pc, w->id, cta_clock(s), 0);
  check_ctabar(s, x->cta, id);
  return R_BLOCKED;
}

static int control(sched *s, wv_warp *w, wv_group *g, const wv_insn *in, uint32_t m) {
  wv_exec *x = &s->x;
  switch (in->ctl) {
  case WV_CTL_BRA: {
    uint32_t nt = g->mask & ~m;
    if (!m) { g->pc++; return 0; }
    if (!nt) {
      int poll = s->poll_yield && in->target <= g->pc && polling(s, w, g, in);
      g->pc = in->target;
      return poll ? R_SLICE : 0; /* a polling warp gives the other CTAs its turn */
    }
    s->divergent++;
    if (diverge_cbar(s, g, in->rpc)) return R_FAULT;
    split(s, w, g, m, in->target);
    g->pc++;
    g->seq = ++s->seq; /* the fall-through path runs first */
    return 0;
  }
  case WV_CTL_CALL:
    if (m != g->mask) { /* a predicated call: the other lanes skip it */
      if (!m) { g->pc++; return 0; }
      split(s, w, g, g->mask & ~m, g->pc + 1);
    }
    if (in->aux && ((const wv_callinfo *)in->aux)->builtin) {
      if (wv_builtin_call(x, in, m)) return R_FAULT;
      g->pc++;
      return 0;
    }
    if (((const wv_callinfo *)in->aux)->indirect) return call_indirect(s, w, g, in) ? R_FAULT : 0;
    return do_call(s, w, g, in, in->target) ? R_FAULT : 0;
  case WV_CTL_EXIT:
    if (!m) { g->pc++; return 0; }
    threads_exit(s, w, g, m);
    if (!g->mask) return R_DONE;
    g->pc++;
    return 0;
  case WV_CTL_RET: {
    if (!m) { g->pc++; return 0; }
    if (!g->frame->parent) { /* kernel return = exit */
      threads_exit(s, w, g, m);
      if (!g->mask) return R_DONE;
      g->pc++;
      return 0;
    }
    if (m != g->mask) { /* some lanes return: they wait for the others at the function's end */
      if (diverge_cbar(s, g, WV_RPC_EXIT)) return R_FAULT;
      wv_group *r = split(s, w, g, g->mask & ~m, g->pc + 1);
      r->seq = ++s->seq;
    }
    if (g->cbar && g->cbar->rpc == WV_RPC_EXIT && g->cbar->frame == g->frame) {
      arrive_cbar(s, w, g);
      return R_BLOCKED;
    }
    do_return(s, w, g);
    return 0;
  }
  case WV_CTL_TRAP:
    if (!m) { g->pc++; return 0; }
    wv_fault_set(x, WV_ERR_TRAP, __builtin_ctz(m), 0, 0, "%s executed", in->op == WV_OP_BRKPT ? "brkpt" : "trap");
    return R_FAULT;
  case WV_CTL_BAR: {
    if (m != g->mask) {
      if (!m) { g->pc++; return 0; }
      split(s, w, g, g->mask & ~m, g->pc + 1);
    }
    if (in->mode == WV_BAR_CLUSTER_WAIT || in->mode == WV_BAR_CLUSTER_ARRIVE) /* barrier.cluster (cluster.c) */
      return wv_cluster_bar(s, w, g, in, m) ? R_BLOCKED : 0;
    return bar_arrive(s, w, g, in, m);
  }
  case WV_CTL_MBARWAIT: {
    if (!m) { g->pc++; return 0; }
    int r = wv_mbar_wait(x, in, m);
    if (r < 0) return R_FAULT;
    if (r == 1 || in->mode == WV_MB_TEST_WAIT) { g->pc++; return 0; }
    /* try_wait on a phase still in progress: wait for it (the hardware's time limit may say
     * false instead; code loops either way). Lanes whose guard is off go on. */
    if (m != g->mask) split(s, w, g, g->mask & ~m, g->pc + 1);
    g->state = WV_G_MBAR;
    return R_BLOCKED;
  }
  case WV_CTL_COLL: {
    if (m != g->mask) {
      if (!m) { g->pc++; return 0; }
      split(s, w, g, g->mask & ~m, g->pc + 1);
    }
    uint32_t mask = wv_coll_members(x, in, m);
    uint32_t need = mask & w->exists & ~w->exited;
    if ((need & ~m) == 0 && wv_coll_class(x, in, m) == m) { /* the common case: every member is here */
      g->state = WV_G_COLL;
      run_collective(s, w, m, mask, 0);
      return x->fault.status ? R_FAULT : R_BLOCKED; /* groups may have merged: reload */
    }
    coll_arrive(s, w, g, in);
    try_collectives(s, w);
    return x->fault.status ? R_FAULT : R_BLOCKED;
  }
  default:
    return 0;
  }
}

/* n instructions of a group of popc lanes counted. Two 8-byte updates on purpose (COUNTER_APART): gcc made the pair
 * one 16-byte read-modify-write, and jit_branches's thread_insns and divergent another at 8 bytes past it; a read of
 * 16 bytes that a store of other bytes or size wrote last waits for it to reach the cache (no store forwarding): 18%
 * of wv_cta_turn's perf samples in bench/omp's gaussian sat on that one instruction. */
#define COUNTER_APART() __asm__ volatile("" ::: "memory")
static inline void count(sched *s, int64_t n, uint32_t popc) {
  s->warp_insns += (uint64_t)n;
  COUNTER_APART();
  s->thread_insns += (uint64_t)n * popc;
}

/* What compiled branches did (jit_hook.h), counted as the interpreter counts it: the turns of a loop a region is the
 * body of ran its instructions and the branch back each time, for all the group's lanes; a path no lane took ran
 * no instructions; where the lanes parted, each path ran for its lanes, the not-taken first while the others
 * waited at the join, where they met again as a new group (control, diverge_cbar, split, cbar_release_arrived:
 * three new sequence numbers, the last the merged group's, which as the warp's only group comes last in its
 * list, as this one is). */
static void jit_branches(sched *s, wv_group *g, int64_t *n) {
  wv_exec *x = &s->x;
  *n += (int64_t)x->jit_extra - x->jit_skipped;
  s->thread_insns -= x->jit_tless;
  COUNTER_APART();
  s->divergent += x->jit_split;
  COUNTER_APART(); /* (control() counts each alone) */
  s->reconv += x->jit_split;
  if (x->jit_split) g->seq = s->seq += 3ull * x->jit_split;
  x->jit_skipped = x->jit_split = x->jit_extra = 0;
  x->jit_tless = 0;
}

/* The lanes of `mask` that run instruction in: those its guard predicate (if any) holds for. */
static inline uint32_t guarded(const wv_exec *x, const wv_insn *in, uint32_t mask) {
  if (in->guard < 0) return mask;
  uint32_t p = x->preds[in->guard];
  return mask & (in->guard_neg ? ~p : p);
}

static wv_group *pick(wv_warp *w) {
  if (w->ngroups == 1) return w->groups[0].mask && w->groups[0].state == WV_G_RUN ? &w->groups[0] : NULL;
  wv_group *best = NULL;
  for (uint32_t i = 0; i < w->ngroups; i++) {
    wv_group *g = &w->groups[i];
    if (g->mask && g->state == WV_G_RUN && (!best || g->seq > best->seq)) best = g;
  }
  return best;
}

/* A loop's exit where the group's other lanes go round again: branch `in`, taken by lanes m of g, falls through to
 * g's reconvergence point (its stop, the branch's own). What control() does with it, and then the group loop (the
 * lanes that leave arrive at the stop: R_BLOCKED) and run_warp_from (compact, pick the next group), without leaving
 * the loop: returns the group run_warp_from would run next, or NULL where it would end the turn or find none.
 * A divergent while (collatz) leaves its loop this way once for each lane, or each set of lanes, that finishes. */
static wv_group *exit_loop(sched *s, wv_warp *w, wv_group *g, const wv_insn *in, uint32_t m) {
  s->divergent++; /* (diverge_cbar: g's barrier is the branch's) */
  split(s, w, g, m, in->target);
  g->pc++;
  g->seq = ++s->seq; /* the fall-through path runs first: it is at its stop */
  arrive_cbar(s, w, g);
  warp_compact(w);
  if (w->ngroups == 1 && w->groups[0].state != WV_G_RUN) return NULL;
  return pick(w);
}

/* The group loop; `prof` is a constant of each of its two copies (run_group), so the run without --profile
 * carries no test for it. */
static inline __attribute__((always_inline)) int group_loop(sched *s, wv_warp *w, wv_group **gp, int64_t *budget,
                                                            const int prof) {
  wv_exec *x = &s->x;
  wv_group *g = *gp;
  for (;;) {
    wv_warp_bind(x, w, g->frame);
    const wv_insn *code = g->frame->fn->code;
    const wv_jit_code *jc = prof ? NULL : g->frame->jc;
    uint32_t pc = g->pc, mask = g->mask;
    uint32_t stop = (g->cbar && g->cbar->frame == g->frame && g->cbar->rpc != WV_RPC_EXIT) ? g->cbar->rpc : WV_RPC_NONE;
    x->cur_mask = mask;
    if (jc) { /* for compiled code (jit_hook.h): fixed while the group runs, as mask and stop are */
      x->jit_stop = stop;
      x->jit_alone = !(w->exists & ~w->exited & ~mask);
    }
    uint32_t popc = (uint32_t)__builtin_popcount(mask);
    int64_t n = 0;
    const wv_insn *in;
    for (;;) {
      if (pc == stop) {
        count(s, n, popc);
        *budget -= n;
        g->pc = pc;
        arrive_cbar(s, w, g);
        return R_BLOCKED;
      }
      if (n >= *budget) {
        count(s, n, popc);
        *budget = 0;
        g->pc = pc;
        return R_SLICE;
      }
      /* compiled code (jit_hook.h), with budget left after it (as when the two sides of a branch it holds run
       * one after the other and meet again) */
      if (!prof && jc && jc->len[pc] && n + jc->len[pc] < *budget) {
        uint32_t len = jc->len[pc];
        /* (a polling warp's backward branches go through control()) */
        x->jit_room = s->poll_yield ? 0 : *budget - n > UINT32_MAX ? UINT32_MAX : (uint32_t)(*budget - n);
        uint32_t k = (uint32_t)jc->entry[pc](x, mask);
        n += k;
        pc += k;
        if (x->jit_skipped | x->jit_split | x->jit_extra) jit_branches(s, g, &n);
        if (k == len) continue;
        /* it stopped before instruction pc, which runs below (not the group's stop: a region holds none, and ends
         * before a branch whose join is one; and budget is left) */
      }
      in = &code[pc];
      n++;
      uint32_t m = guarded(x, in, mask);
#ifdef WV_TRACE /* cmake -DCMAKE_C_FLAGS=-DWV_TRACE: one line per warp instruction on stderr */
      fprintf(stderr, "cta %u warp %u pc %4u line %5u %-10s active %08x exec %08x  %s\n", x->cta->ctaid[0], w->id, pc,
              in->line, wv_ops[in->op].mnemonic, mask, m, wv_ops[in->op].synopsis);
#endif
      if (prof) wv_prof_insn(s->prof, x, in, pc, mask, m);
      if (in->ctl == WV_CTL_NONE) {
        x->cur_pc = pc;
        if (m && in->fn(x, in, m)) {
          count(s, n, popc);
          g->pc = pc;
          return R_FAULT;
        }
        pc++;
        continue;
      }
      if (in->ctl == WV_CTL_COLL && in->fn && !in->fn(x, in, m)) { /* a converged collective (h_warp.c) */
        pc++;
        continue;
      }
      /* a branch the whole group takes or none of it does: control()'s own cases, without leaving the loop
       * (a backward one taken goes there when polling warps may give up their turn) */
      if (in->ctl == WV_CTL_BRA && (m == mask || !m) && !(m && s->poll_yield && in->target <= pc)) {
        pc = m ? in->target : pc + 1;
        continue;
      }
      /* control: leave the fast loop */
      count(s, n, popc);
      *budget -= n;
      g->pc = pc;
      x->cur_pc = pc;
      /* (m != mask: a polling warp's backward branch that all its lanes take comes here too) */
      if (in->ctl == WV_CTL_BRA && pc + 1 == stop && in->rpc == stop && m && m != mask && *budget > 0) {
        if (!(g = *gp = exit_loop(s, w, g, in, m))) return R_BLOCKED;
        break;
      }
      int r = control(s, w, g, in, m);
      if (r) return r;
      if (!g->mask || g->state != WV_G_RUN) return R_BLOCKED; /* merged into another group */
      break; /* reload the group's state */
    }
    if (*budget <= 0) return R_SLICE;
  }
}

static int run_group(sched *s, wv_warp *w, wv_group **g, int64_t *budget) {
  return s->prof ? group_loop(s, w, g, budget, 1) : group_loop(s, w, g, budget, 0);
}

/* Lanes that have waited at a reconvergence point for YIELD_AFTER instructions of their warp go on. */
static void yield_stale(sched *s, wv_warp *w) {
  for (uint32_t i = 0; i < w->ngroups; i++) {
    wv_group *g = &w->groups[i];
    if (g->mask && g->state == WV_G_CBAR && cta_clock(s) - g->cbar->stamp > YIELD_AFTER) {
      s->yields++;
      cbar_release_arrived(s, w, g->cbar, 1);
      i = (uint32_t)-1; /* groups changed */
    }
  }
}

/* The end of a warp's turn: pending stores become visible at random (the weak memory model); returns r. */
static inline int turn_end(sched *s, int r) {
  if (s->x.mm) wv_mm_tick(&s->x);
  return r;
}

/* The rest of a warp's turn, budget instructions of it left (progressed: it has made progress; compacted: its
 * groups have no holes): returns 1 if it made progress, -1 on a fault. */
static int run_warp_from(sched *s, wv_warp *w, int64_t budget, int progressed, int compacted) {
  while (budget > 0) {
    wv_group *g = pick(w);
    if (!g) break;
    int64_t before = budget;
    int r = run_group(s, w, &g, &budget); /* (g: the group it ran last) */
    if (budget != before) progressed = 1;
    if (r == R_FAULT || s->x.fault.status) return -1;
    if (r == R_BLOCKED || r == R_DONE) progressed = 1;
    if (r == R_SLICE) {
      g->seq = 0; /* let the warp's other paths have a turn */
      yield_stale(s, w);
    }
    warp_compact(w);
    compacted = 1;
    if (r == R_SLICE || (w->ngroups == 1 && w->groups[0].state != WV_G_RUN)) break; /* (its one group waits) */
  }
  if (!compacted) warp_compact(w); /* (holes a barrier's release left: warp_merge) */
  return turn_end(s, progressed);
}

/* The most common turn of a barrier-phased kernel under the JIT: a converged warp outside any divergence runs
 * compiled regions, joined by branches all its lanes take the same way and by instructions no region holds (their
 * handlers: a cp.async, a lone setp), up to a bar.sync (or bar.red) of all its lanes, or the kernel's end. It
 * takes the steps run_warp_from, group_loop and control() take (the same counts, budget and state) without their
 * other cases: from the first instruction it does not take on (with budget left), the turn is theirs again.
 * Returns what run_warp returns (-1: a fault, the warp stopped at it), or NOT_QUICK: the turn does not start with
 * a region, nothing done. */
#define NOT_QUICK (-2)
static int quick_turn(sched *s, wv_warp *w) {
#ifdef WV_TRACE
  if (w) return NOT_QUICK; /* (every instruction the interpreter runs is traced) */
#endif
  if (w->ngroups != 1 || s->prof || s->poll_yield) return NOT_QUICK;
  wv_group *g = &w->groups[0];
  const wv_jit_code *jc = g->frame->jc;
  if (!jc || g->state != WV_G_RUN || g->cbar || !jc->len[g->pc]) return NOT_QUICK;
  wv_exec *x = &s->x;
  const wv_insn *code = g->frame->fn->code;
  uint32_t pc = g->pc, mask = g->mask, popc = (uint32_t)__builtin_popcount(mask); /* (fixed for the turn) */
  int64_t budget = s->slice, n = 0; /* (n < budget at each step's start) */
  x->warp = w;
  wv_warp_bind(x, w, g->frame);
  x->cur_mask = mask;
  x->jit_stop = WV_RPC_NONE;
  x->jit_alone = !(w->exists & ~w->exited & ~mask);
  for (;;) {
    uint32_t len = jc->len[pc];
    if (len) { /* a region, with room after it; not a loop's body (which may run again: jit_extra) */
      const wv_insn *after = &code[pc + len]; /* (a region ends before an instruction of its function) */
      if (n + len >= budget || (after->ctl == WV_CTL_BRA && after->target == pc)) break;
      x->jit_room = (uint32_t)(budget - n);
      uint32_t k = (uint32_t)jc->entry[pc](x, mask);
      n += k;
      pc += k;
      if (x->jit_skipped | x->jit_split | x->jit_extra) jit_branches(s, g, &n);
      if (k != len) break; /* it stopped before instruction pc, which the interpreter runs */
      if (jc->len[pc]) continue;
    }
    const wv_insn *in = &code[pc];
    if (in->ctl == WV_CTL_BAR && in->guard < 0 && (in->mode == WV_BAR_SYNC || in->mode == WV_BAR_RED)) {
      n++;
      count(s, n, popc);
      g->pc = x->cur_pc = pc;
      bar_arrive(s, w, g, in, mask); /* (R_BLOCKED; one group, its lanes the same: nothing to compact) */
      if (g->state != WV_G_RUN) return turn_end(s, 1);
      /* the last to arrive goes on (run_warp_from: with budget left, group_loop again, its counts from 0) */
      budget -= n;
      n = 0;
      pc = g->pc;
      if (budget <= 0) break;
      x->cur_mask = mask;
      continue;
    }
    if ((in->ctl == WV_CTL_EXIT || (in->ctl == WV_CTL_RET && !g->frame->parent)) && in->guard < 0) {
      n++; /* the group's threads exit (control) */
      count(s, n, popc);
      g->pc = x->cur_pc = pc;
      threads_exit(s, w, g, mask);
      if (s->x.fault.status) return -1;
      warp_compact(w);
      return turn_end(s, 1);
    }
    if (n + 1 >= budget) break;
    if (in->ctl == WV_CTL_NONE) { /* an instruction no region holds: its handler, as group_loop runs it */
      n++;
      uint32_t m = guarded(x, in, mask);
      x->cur_pc = pc;
      if (m && in->fn(x, in, m)) {
        count(s, n, popc);
        g->pc = pc;
        return -1;
      }
      pc++;
      continue;
    }
    if (in->ctl != WV_CTL_BRA) break;
    uint32_t m = guarded(x, in, mask); /* a branch the whole group takes or none of it does (group_loop) */
    if (m != mask && m) break;
    n++;
    pc = m ? in->target : pc + 1;
  }
  /* the rest of the turn: as group_loop would go on at pc */
  count(s, n, popc);
  g->pc = pc;
  return run_warp_from(s, w, budget - n, n != 0 || budget < s->slice, budget < s->slice);
}

/* The code compiled in the background while the launch runs (s->jit_late): a frame of w's groups without code takes
 * its function's once there is some. Its regions start where the interpreter may stand, as after any region, so
 * the lanes compute the same either way. */
static void take_code(sched *s, wv_warp *w) {
  for (uint32_t i = 0; i < w->ngroups; i++) {
    wv_frame *f = w->groups[i].mask ? w->groups[i].frame : NULL;
    if (f && !f->jc) f->jc = code_of(s, fn_index(s, f->fn));
  }
}

/* Run a warp for up to s->slice instructions; returns 1 if it made progress, -1 on a fault. */
static int run_warp(sched *s, wv_warp *w) {
  if (s->jit_late) take_code(s, w);
  int r = quick_turn(s, w);
  if (r != NOT_QUICK) return r; /* (a fault too: -1, the warp stopped at it) */
  s->x.warp = w;
  return run_warp_from(s, w, s->slice, 0, 0);
}

/* ---------------- CTAs ---------------- */

/* reused: the warp held another CTA of this launch, whose specials differ from this one's only in %ctaid and the
 * cluster's (the launch's shape, the warp's place and the lanes' are the same): only those are written. */
static int warp_init(sched *s, wv_cta *cta, wv_warp *w, uint32_t wi, const wv_func *kfn, int reused) {
  wv_exec *x = &s->x;
  w->id = wi;
  uint32_t first = wi * WV_WARP, n = cta->nthreads - first;
  w->exists = n >= WV_WARP ? 0xffffffffu : ((1u << n) - 1);
  w->exited = 0;
  w->ngroups = 0;
  w->done = 0;
  w->local_low = frame_base(WV_GPU_LOCAL_TOP - WV_GPU_LOCAL_RESERVED, kfn);
  w->cl_arrived = w->cl_parity = 0;
  wv_async_warp_reset(w);
  uint64_t *sp = w->specials;
  uint32_t bx = x->block[0], by = x->block[1];
  for (int k = 0; k < 3; k++) /* (a row holds one value in all lanes, zero at first: one that has it already is left;
                                 * one no instruction reads is not written) */
    if (((s->mod->sp_read >> (WV_SP_CTAID_X + k)) & 1) && sp[(WV_SP_CTAID_X + k) * 32] != cta->ctaid[k])
      for (int l = 0; l < WV_WARP; l++) sp[(WV_SP_CTAID_X + k) * 32 + l] = cta->ctaid[k];
  for (int l = 0; !reused && l < WV_WARP; l++) { /* the rest, the same for every CTA of the launch */
    uint32_t t = first + (uint32_t)l;
    sp[WV_SP_TID_X * 32 + l] = t % bx;
    sp[WV_SP_TID_Y * 32 + l] = (t / bx) % by;
    sp[WV_SP_TID_Z * 32 + l] = t / (bx * by);
    sp[WV_SP_NTID_X * 32 + l] = x->block[0];
    sp[WV_SP_NTID_Y * 32 + l] = x->block[1];
    sp[WV_SP_NTID_Z * 32 + l] = x->block[2];
    sp[WV_SP_NCTAID_X * 32 + l] = x->grid[0];
    sp[WV_SP_NCTAID_Y * 32 + l] = x->grid[1];
    sp[WV_SP_NCTAID_Z * 32 + l] = x->grid[2];
    sp[WV_SP_LANEID * 32 + l] = (uint32_t)l;
    sp[WV_SP_WARPID * 32 + l] = wi;
    sp[WV_SP_NWARPID * 32 + l] = 64;
    sp[WV_SP_SMID * 32 + l] = 0;
    sp[WV_SP_NSMID * 32 + l] = WV_GPU_SMS; /* every CTA runs on SM 0 */
    sp[WV_SP_GRIDID * 32 + l] = 1;
    sp[WV_SP_LANEMASK_EQ * 32 + l] = 1u << l;
    sp[WV_SP_LANEMASK_LT * 32 + l] = (1u << l) - 1;
    sp[WV_SP_LANEMASK_LE * 32 + l] = (uint32_t)(((uint64_t)2 << l) - 1);
    sp[WV_SP_LANEMASK_GT * 32 + l] = ~(uint32_t)(((uint64_t)2 << l) - 1);
    sp[WV_SP_LANEMASK_GE * 32 + l] = ~((1u << l) - 1);
    sp[WV_SP_DYN_SMEM * 32 + l] = x->dyn_shared;
    sp[WV_SP_TOTAL_SMEM * 32 + l] = /* the CTA's shared memory as the GPU allocates it (memprobe_info.out) */
        (cta->shared_size - WV_SHARED_BASE + WV_GPU_SHARED_GRAIN - 1) / WV_GPU_SHARED_GRAIN * WV_GPU_SHARED_GRAIN;
    sp[WV_SP_AGGR_SMEM * 32 + l] = cta->shared_size; /* the reserved 1 KiB, static and dynamic bytes, unrounded (an H200) */
    sp[WV_SP_ENVREG1 * 32 + l] = (uint32_t)(s->grid_ws >> 32);
    sp[WV_SP_ENVREG2 * 32 + l] = (uint32_t)s->grid_ws;
  }
  for (uint32_t r = 0; !reused && r < s->mod->nreloc; r++) /* this kernel's offsets of relocated .shared variables */
    for (int l = 0; l < WV_WARP; l++) sp[(WV_SP_COUNT + r) * 32 + l] = kfn->shared_reloc[r];
  wv_frame *f = frame_new(s, kfn);
  if (!f) return -1;
  f->local_base = w->local_low;
  group_add(s, w, w->exists, 0, f, NULL);
  f->refs--; /* group_add took the reference */
  return 0;
}

void wv_exec_where(const wv_exec *x, const wv_warp *w, int lane, const wv_func *fn, uint32_t pc, char *buf, size_t cap) {
  uint32_t lin = (w ? w->id : 0) * WV_WARP + (uint32_t)(lane < 0 ? 0 : lane), t[3];
  t[0] = lin % x->block[0];
  t[1] = (lin / x->block[0]) % x->block[1];
  t[2] = lin / (x->block[0] * x->block[1]);
  int k = snprintf(buf, cap, "in kernel '%s', block (%u,%u,%u), thread (%u,%u,%u)", x->kfn->name, x->cta->ctaid[0],
                   x->cta->ctaid[1], x->cta->ctaid[2], t[0], t[1], t[2]);
  const wv_insn *in = fn && pc < fn->ncode ? &fn->code[pc] : NULL;
  if (in && k > 0 && (size_t)k < cap)
    k += snprintf(buf + k, cap - (size_t)k, ", PTX line %u of %s", in->line, fn->file ? fn->file : "?");
  if (in && in->src_line && k > 0 && (size_t)k < cap) snprintf(buf + k, cap - (size_t)k, " (CUDA source line %u)", in->src_line);
}

/* Format the fault as one report naming kernel, block, thread, PTX line and address (into s->msg). */
static void report(sched *s, wv_warp *w, const wv_func *fn, uint32_t pc) {
  wv_exec *x = &s->x;
  int lane = x->fault.lane;
  if (lane < 0 && w && w->ngroups) lane = __builtin_ctz(w->groups[0].mask ? w->groups[0].mask : 1);
  char addr[48] = "", where[320];
  if (x->fault.has_addr) snprintf(addr, sizeof addr, " at address 0x%llx", (unsigned long long)x->fault.addr);
  if (x->fault.at_fn) { /* an asynchronous operation's own instruction (async.c) */
    w = (wv_warp *)x->fault.at_warp;
    fn = x->fault.at_fn;
    pc = x->fault.at_pc;
  }
  wv_exec_where(x, w, lane, fn, pc, where, sizeof where);
  snprintf(s->msg, sizeof s->msg, "%s%s %s", x->fault.what, addr, where);
}

/* Warp instructions the launch has run, as far as this worker knows: all of them when it is the only
 * one, else what the workers have published plus its own unpublished ones (publishing them in batches). */
static uint64_t launch_insns(sched *s) {
  if (!s->insns_all) return s->warp_insns;
  uint64_t mine = s->warp_insns - s->published;
  if (mine >= PUBLISH_EVERY) {
    atomic_fetch_add_explicit(s->insns_all, mine, memory_order_relaxed);
    s->published = s->warp_insns;
    mine = 0;
  }
  return atomic_load_explicit(s->insns_all, memory_order_relaxed) + mine;
}

/* The fault's place when a warp stopped: its running group, else its first one. */
static void fault_place(wv_warp *w, const wv_func *kfn, const wv_func **ffn, uint32_t *fpc, int running) {
  wv_group *g = running ? pick(w) : NULL;
  for (uint32_t i = 0; !g && i < w->ngroups; i++) g = &w->groups[i];
  *ffn = g && g->frame ? g->frame->fn : kfn;
  *fpc = g ? g->pc : 0;
}

/* One turn of the running CTA (sched.h). When no warp can move, a collective whose members never arrive
 * runs with the lanes present; if nothing can, the CTA is deadlocked: only its own threads can release
 * its barriers, collectives and mbarriers, so this holds in a cooperative launch too. */
static int cta_pass(sched *s, wv_warp **fw, const wv_func **ffn, uint32_t *fpc) {
  wv_cta *cta = s->x.cta;
  const wv_func *kfn = s->L->kfn;
  int progress = 0, alive = 0;
  for (uint32_t wi = 0; wi < cta->nwarps; wi++) {
    wv_warp *w = &cta->warps[wi];
    if (w->done) continue;
    int r = run_warp(s, w);
    alive |= !w->done; /* a CTA whose threads all exited in this turn is finished now */
    if (r < 0) {
      *fw = w;
      fault_place(w, kfn, ffn, fpc, 1);
      return -1;
    }
    if (r > 0) progress = 1;
    int steps = s->max_steps && launch_insns(s) > s->max_steps;
    /* (the clock every 64 turns: a short turn costs less than reading it) */
    if (steps || (s->deadline && !(++s->clock_turns & 63) && wv_now() > s->deadline)) {
      *fw = w;
      fault_place(w, kfn, ffn, fpc, 0);
      wv_group *g = w->ngroups ? &w->groups[0] : NULL;
      if (steps)
        wv_fault_set(&s->x, WV_ERR_WATCHDOG, g ? __builtin_ctz(g->mask) : 0, 0, 0,
                     "watchdog: more than %llu warp instructions (--max-steps)", (unsigned long long)s->max_steps);
      else
        wv_fault_set(&s->x, WV_ERR_WATCHDOG, g ? __builtin_ctz(g->mask) : 0, 0, 0,
                     "watchdog: the launch ran for more than %u s (--timeout; --max-steps 0 disables the watchdog)", s->timeout);
      return -1;
    }
    if (s->stop && atomic_load_explicit(s->stop, memory_order_relaxed) < s->ci) { /* an earlier CTA failed */
      *fw = w;
      fault_place(w, kfn, ffn, fpc, 0);
      wv_fault_set(&s->x, WV_ERR_LAUNCH, -1, 0, 0, "abandoned: an earlier block failed");
      return -1;
    }
  }
  if (!alive) return 0;
  cta->stuck = !progress;
  if (progress) return 1;
  if (cta->cl->n > 1 && !s->strict) return 2; /* another CTA of the cluster may release it */
  /* Nothing can run. A collective whose members are elsewhere runs with the lanes present. */
  for (uint32_t wi = 0; wi < cta->nwarps; wi++) {
    wv_warp *w = &cta->warps[wi];
    for (uint32_t i = 0; i < w->ngroups; i++)
      if (w->groups[i].mask && w->groups[i].state == WV_G_COLL) {
        s->x.warp = w;
        run_collective(s, w, w->groups[i].mask, coll_mask(s, w, &w->groups[i]), 1);
        if (s->x.fault.status) {
          *fw = w;
          *ffn = w->groups[i].frame ? w->groups[i].frame->fn : kfn;
          *fpc = w->groups[i].pc;
          return -1;
        }
        return 1;
      }
  }
  /* Deadlock: report the first blocked thread. */
  for (uint32_t wi = 0; wi < cta->nwarps; wi++) {
    wv_warp *w = &cta->warps[wi];
    for (uint32_t i = 0; i < w->ngroups; i++) {
      wv_group *g = &w->groups[i];
      if (!g->mask) continue;
      *fw = w;
      *ffn = g->frame->fn;
      *fpc = g->pc;
      s->x.warp = w;
      uint32_t cl_live = 0;
      for (uint32_t r = 0; r < cta->cl->n; r++) cl_live += cta->cl->ctas[r]->live_threads;
      if (g->state == WV_G_BAR && g->bar_id == WV_CLUSTER_BARRIER)
        wv_fault_set(&s->x, WV_ERR_DEADLOCK, __builtin_ctz(g->mask), 0, 0,
                     "barrier deadlock: %u of the cluster's %u live threads arrived at the cluster barrier",
                     cta->cl->arrived, cl_live);
      else if (g->state == WV_G_BAR)
        wv_fault_set(&s->x, WV_ERR_DEADLOCK, __builtin_ctz(g->mask), 0, 0,
                     "barrier deadlock: %u of %u threads arrived at barrier %u", cta->bars[g->bar_id].arrived,
                     cta->bars[g->bar_id].expected ? cta->bars[g->bar_id].expected : cta->live_threads, g->bar_id);
      else if (g->state == WV_G_MBAR)
        wv_fault_set(&s->x, WV_ERR_DEADLOCK, __builtin_ctz(g->mask), 0, 0,
                     "deadlock: mbarrier.try_wait for a phase that no thread can complete");
      else
        wv_fault_set(&s->x, WV_ERR_DEADLOCK, __builtin_ctz(g->mask), 0, 0,
                     "deadlock: threads wait for each other (%s)",
                     g->state == WV_G_CBAR ? "at a reconvergence point" : "at a warp collective");
      return -1;
    }
  }
  return 0;
}

int wv_cta_turn(sched *s) {
  wv_warp *fw = NULL;
  const wv_func *ffn = s->L->kfn;
  uint32_t fpc = 0;
  int r = cta_pass(s, &fw, &ffn, &fpc);
  if (r < 0) report(s, fw, ffn, fpc);
  if (r <= 0 && s->insns_all) { /* the CTA is over: publish its instructions */
    atomic_fetch_add_explicit(s->insns_all, s->warp_insns - s->published, memory_order_relaxed);
    s->published = s->warp_insns;
  }
  return r;
}

/* Host memory of one resident CTA: warps (specials, local memory) and shared memory (the shared addresses
 * [0, WV_SHARED_BASE + shared_size): what the GPU reserves, then the CTA's variables). */
int wv_cta_alloc(sched *s, wv_cta *cta) {
  const wv_func *kfn = s->L->kfn;
  cta->nthreads = s->L->nthreads;
  cta->nwarps = (cta->nthreads + WV_WARP - 1) / WV_WARP;
  cta->shared_size = WV_SHARED_BASE + s->L->shared_size;
  cta->shared = zalloc64((size_t)cta->shared_size + 16);
  cta->warps = calloc(cta->nwarps, sizeof *cta->warps);
  if (!cta->shared || !cta->warps) return -1;
  for (uint32_t wi = 0; wi < cta->nwarps; wi++) {
    cta->warps[wi].specials = zalloc64((WV_SP_COUNT + (size_t)s->mod->nreloc) * WV_WARP * sizeof(uint64_t)); /* warp_init fills it */
    if (!cta->warps[wi].specials ||
        ensure_local(s, &cta->warps[wi], frame_base(WV_GPU_LOCAL_TOP - WV_GPU_LOCAL_RESERVED, kfn))) return -1;
  }
  return 0;
}

void wv_cta_free(wv_cta *cta) {
  for (uint32_t wi = 0; cta->warps && wi < cta->nwarps; wi++) {
    free(cta->warps[wi].specials);
    free(cta->warps[wi].local);
    wv_async_warp_free(&cta->warps[wi]);
  }
  wv_async_cta_free(cta);
  free(cta->warps);
  free(cta->shared);
  cta->warps = NULL;
  cta->shared = NULL;
}

int wv_cta_start(sched *s, wv_cta *cta, uint64_t ci, int reused) {
  const uint32_t *grid = s->x.grid;
  cta->ctaid[0] = (uint32_t)(ci % grid[0]);
  cta->ctaid[1] = (uint32_t)((ci / grid[0]) % grid[1]);
  cta->ctaid[2] = (uint32_t)(ci / ((uint64_t)grid[0] * grid[1]));
  cta->linear = ci;
  cta->live_threads = cta->nthreads;
  cta->async_pending = cta->async_batched = 0;
  cta->clk_bias = cta->clk_out = 0;
  memset(cta->bars, 0, sizeof cta->bars);
  cta->bars_waiting = 0;
  cta->stuck = 0;
  if (s->L->csize <= 1) { /* a cluster of one; a cluster launch's runner formed the clusters (launch.c) */
    static const uint32_t one[3] = {1, 1, 1};
    wv_cluster_form(&cta->own, &cta, one);
  }
  if (reused) memset(cta->shared, 0, cta->shared_size);
  s->x.cta = cta;
  s->ci = ci;
  if (s->prof) wv_prof_cta(s->prof, ci, 1);
  for (uint32_t wi = 0; wi < cta->nwarps; wi++)
    if (warp_init(s, cta, &cta->warps[wi], wi, s->L->kfn, reused)) return -1;
  wv_cluster_specials(cta, s->x.grid, s->L->explicit_cluster, s->mod->sp_read);
  return 0;
}

void wv_cta_drop(sched *s, wv_cta *cta) {
  if (s->prof) wv_prof_cta(s->prof, cta->linear, 0);
  for (uint32_t wi = 0; cta->warps && wi < cta->nwarps; wi++) {
    wv_warp *w = &cta->warps[wi];
    for (uint32_t i = 0; i < w->ngroups; i++) if (w->groups[i].mask) group_drop(s, &w->groups[i]);
    w->ngroups = 0;
  }
}

uint64_t wv_cta_footprint(const wv_func *kfn, uint32_t nthreads, uint64_t shared_size) {
  uint64_t nwarps = (nthreads + WV_WARP - 1) / WV_WARP, local = 0;
  while (kfn->local_size && local < (uint64_t)kfn->local_size + WV_GPU_LOCAL_RESERVED + 16) local = local ? 2 * local : 64;
  uint64_t frame = (uint64_t)kfn->nregs * WV_WARP * 8 + (uint64_t)(kfn->npreds + 1) * 4 + (uint64_t)kfn->param_size * WV_WARP;
  uint64_t warp = sizeof(wv_warp) + (uint64_t)WV_SP_COUNT * WV_WARP * 8 + local * WV_WARP + sizeof(wv_frame) + frame;
  return sizeof(wv_cta) + WV_SHARED_BASE + shared_size + 16 + nwarps * warp;
}

/* ---------------- a worker's executor ---------------- */

sched *wv_sched_new(const wv_launch_desc *L) {
  wv_vm *vm = L->vm;
  sched *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->L = L;
  s->mod = L->mod;
  s->max_steps = vm->cfg.max_steps;
  s->timeout = vm->cfg.timeout_seconds;
  s->deadline = L->deadline;
  s->grid_ws = L->grid_ws;
  s->slice = WV_SCHED_SLICE;
  s->rng = vm->sched_seed ? vm->sched_seed : 1;
  s->free_frames = calloc(L->mod->nfuncs + 1, sizeof *s->free_frames);
  s->consts = calloc(L->mod->nfuncs + 1, sizeof *s->consts);
  wv_exec *x = &s->x;
  x->vm = vm;
  x->heap_frees = &vm->heap.frees;
  x->kfn = L->kfn;
  x->kparams = L->kparams;
  x->kparams_mem = malloc((size_t)L->kparam_size + 1);
  if (x->kparams_mem && L->kparam_size) memcpy(x->kparams_mem, L->kparams, L->kparam_size);
  x->kparam_size = L->kparam_size;
  memcpy(x->block, L->block, sizeof x->block);
  memcpy(x->grid, L->grid, sizeof x->grid);
  x->dyn_shared = L->dyn_shared;
  x->async_mode = vm->async_mode;
  x->mm = vm->weak ? wv_mm_new(vm->mm_seed) : NULL;
  x->rng = vm->async_seed ? vm->async_seed : 1;
  if (vm->cfg.profile) s->prof = wv_prof_new(L->mod, (vm->cfg.profile & WV_PROFILE_TRACE) != 0);
  s->jit = L->jit;
  s->jit_late = L->jit_late;
  if (!s->free_frames || !s->consts || !x->kparams_mem || (vm->weak && !x->mm) || (vm->cfg.profile && !s->prof)) {
    wv_sched_free(s);
    return NULL;
  }
  return s;
}

void wv_sched_free(sched *s) {
  if (!s) return;
  for (uint32_t i = 0; s->free_frames && i < s->mod->nfuncs; i++)
    for (wv_frame *f = s->free_frames[i], *n; f; f = n) { n = f->next_free; free(f); }
  free(s->free_frames);
  for (uint32_t i = 0; s->consts && i < s->mod->nfuncs; i++) free(s->consts[i]);
  free(s->consts);
  for (wv_cbar *c = s->free_cbars, *n; c; c = n) { n = c->next_free; free(c); }
  wv_mm_free(s->x.mm);
  wv_prof_free(s->prof);
  free(s->x.kparams_mem);
  free(s->x.scratch);
  free(s);
}

void wv_sched_fold_stats(const sched *s, wv_vm *vm) {
  const wv_exec *x = &s->x;
  wv_stats *st = &vm->stats;
  st->ctas += s->ctas;
  st->warp_instructions += s->warp_insns;
  st->thread_instructions += s->thread_insns;
  st->divergent_branches += s->divergent;
  st->reconvergences += s->reconv;
  st->forced_yields += s->yields;
  st->barriers += s->barriers;
  st->collectives += x->n_coll;
  st->global_loads += x->n_gld;
  st->global_stores += x->n_gst;
  st->shared_loads += x->n_sld;
  st->shared_stores += x->n_sst;
  st->local_loads += x->n_lld;
  st->local_stores += x->n_lst;
  st->atomics += x->n_atom;
  st->async_copies += x->n_async;
  st->async_early_reads += x->n_async_early;
  if (s->prof && vm->prof_acc) wv_prof_merge(vm->prof_acc, s->prof);
}
