/*
 * memmodel.c — `--memory-model=weak`: global stores become visible to other threads late and out of
 * order, deterministically for a seed, within what the PTX memory model allows (PTX ISA §8).
 *
 * A store to global memory by thread T goes into one launch-wide list of pending stores instead of
 * memory. Pending stores commit (are written to memory, becoming visible to every other thread) at
 * random points: after every warp's turn each pending store commits with probability 1/8, except
 * that a thread's stores to overlapping bytes commit in program order (coherence). So two stores of
 * one thread with nothing between them may become visible in either order, and a store may stay
 * invisible after its CTA has finished. (The probability is 1/8 per warp turn.) What restores order:
 *   - T's own loads and atomics first commit T's pending stores to the bytes they touch (a thread
 *     sees its own writes);
 *   - a CTA barrier (bar.sync) orders the pending stores of the CTA's threads before every later
 *     access of the CTA's threads, and bar.warp.sync those of its lanes before the lanes' later
 *     accesses (at that scope: other CTAs still may not see them);
 *   - a fence (membar / fence, any scope: __threadfence) by T commits T's pending stores and, since
 *     fences and releases are cumulative, the stores ordered before T by such a barrier;
 *   - a release store, or an atomic with .release / .acq_rel, does the same first and is itself
 *     visible at once (atomics are performed at memory);
 *   - the end of the launch commits everything.
 * Shared memory stays sequentially consistent. In `sc` mode (the default) nothing is buffered.
 */
#include <stdlib.h>

#include "exec/handlers.h"
#include "rt/vm_internal.h"

typedef struct wv_pstore {
  uint64_t thread;  /* cta linear index << 16 | thread index in the CTA */
  uint64_t addr;
  uint32_t size;
  uint8_t cta_visible;  /* ordered before a CTA barrier: its own CTA's threads must see it */
  uint8_t warp_visible; /* ordered before a bar.warp.sync: its warp's lanes must see it */
  uint8_t data[16];
} wv_pstore;

struct wv_memmodel {
  wv_pstore *v;
  uint32_t n, cap;
  uint32_t rng;
};

static uint64_t thread_key(const wv_exec *x, int lane) {
  return (uint64_t)x->cta->linear << 16 | (x->warp->id * WV_WARP + (uint32_t)lane);
}

/* Is store p ordered before the accesses of thread key t (its own, or through a barrier)? */
static int ordered_before(const wv_pstore *p, uint64_t t) {
  if (p->thread == t) return 1;
  if (p->thread >> 16 != t >> 16) return 0;                       /* another CTA */
  if (p->cta_visible) return 1;                                   /* bar.sync */
  return p->warp_visible && ((p->thread & 0xffff) >> 5) == ((t & 0xffff) >> 5); /* bar.warp.sync */
}

static int overlaps(const wv_pstore *p, uint64_t addr, uint32_t size) {
  return addr < p->addr + p->size && p->addr < addr + size;
}

/* Write pending store i to memory (it was checked when it was made). */
static void commit_one(wv_exec *x, uint32_t i) {
  wv_pstore *p = &x->mm->v[i];
  uint8_t *h = wv_heap_lookup(&x->vm->heap, p->addr, p->size);
  if (h) memcpy(h, p->data, p->size);
  p->size = 0; /* committed: removed at the next compaction */
}

static void compact(struct wv_memmodel *mm) {
  uint32_t j = 0;
  for (uint32_t i = 0; i < mm->n; i++)
    if (mm->v[i].size) mm->v[j++] = mm->v[i];
  mm->n = j;
}

int wv_mm_store(wv_exec *x, int lane, uint64_t addr, const void *data, uint32_t size) {
  struct wv_memmodel *mm = x->mm;
  if (mm->n == mm->cap) {
    uint32_t nc = mm->cap ? mm->cap * 2 : 256;
    wv_pstore *nv = realloc(mm->v, nc * sizeof *nv);
    if (!nv) return wv_fault_set(x, WV_ERR_NOMEM, lane, 0, 0, "out of host memory for pending stores");
    mm->v = nv;
    mm->cap = nc;
  }
  wv_pstore *p = &mm->v[mm->n++];
  p->thread = thread_key(x, lane);
  p->addr = addr;
  p->size = size;
  p->cta_visible = p->warp_visible = 0;
  memcpy(p->data, data, size);
  return 0;
}

/* A fence or release by lane: commit the pending stores ordered before it (all of them, or those
 * touching [addr, addr+size)), in program order. */
void wv_mm_commit_own(wv_exec *x, int lane, int all, uint64_t addr, uint32_t size) {
  struct wv_memmodel *mm = x->mm;
  if (!mm || !mm->n) return;
  uint64_t t = thread_key(x, lane);
  for (uint32_t i = 0; i < mm->n; i++)
    if (mm->v[i].size && ordered_before(&mm->v[i], t) && (all || overlaps(&mm->v[i], addr, size))) commit_one(x, i);
  compact(mm);
}

/* bar.warp.sync by `lanes` of the current warp: their pending stores are ordered before their later accesses. */
void wv_mm_warp_sync(wv_exec *x, uint32_t lanes) {
  struct wv_memmodel *mm = x->mm;
  if (!mm) return;
  uint64_t base = (uint64_t)x->cta->linear << 16 | x->warp->id * WV_WARP;
  for (uint32_t i = 0; i < mm->n; i++) {
    uint64_t lane = mm->v[i].thread - base;
    if (mm->v[i].size && mm->v[i].thread >= base && lane < WV_WARP && (lanes >> lane & 1)) mm->v[i].warp_visible = 1;
  }
}

/* A CTA barrier completed: the CTA's pending stores are ordered before every later access of its
 * threads (but not of other CTAs'). */
void wv_mm_commit_cta(wv_exec *x) {
  struct wv_memmodel *mm = x->mm;
  if (!mm) return;
  for (uint32_t i = 0; i < mm->n; i++)
    if (mm->v[i].size && mm->v[i].thread >> 16 == x->cta->linear) mm->v[i].cta_visible = 1;
}

/* Before lane reads [addr, addr+size): its own stores there, and its CTA's stores ordered before a
 * barrier, must be visible to it. Committing them is the simplest way (to everyone: a little
 * stronger than needed, never weaker). */
void wv_mm_before_load(wv_exec *x, int lane, uint64_t addr, uint32_t size) {
  struct wv_memmodel *mm = x->mm;
  if (!mm || !mm->n) return;
  uint64_t t = thread_key(x, lane);
  int any = 0;
  for (uint32_t i = 0; i < mm->n; i++) {
    wv_pstore *p = &mm->v[i];
    if (p->size && overlaps(p, addr, size) && ordered_before(p, t)) {
      commit_one(x, i);
      any = 1;
    }
  }
  if (any) compact(mm);
}

/* A warp's turn ended: each pending store commits with probability 1/8, keeping each thread's
 * stores to the same bytes in order. */
void wv_mm_tick(wv_exec *x) {
  struct wv_memmodel *mm = x->mm;
  if (!mm || !mm->n) return;
  for (uint32_t i = 0; i < mm->n; i++) {
    wv_pstore *p = &mm->v[i];
    if (!p->size) continue;
    mm->rng ^= mm->rng << 13;
    mm->rng ^= mm->rng >> 17;
    mm->rng ^= mm->rng << 5;
    if (mm->rng & 7) continue;
    int blocked = 0; /* an older store of this thread to these bytes is still pending */
    for (uint32_t k = 0; k < i && !blocked; k++)
      blocked = mm->v[k].size && mm->v[k].thread == p->thread && overlaps(&mm->v[k], p->addr, p->size);
    if (!blocked) commit_one(x, i);
  }
  compact(mm);
}

void wv_mm_commit_all(wv_exec *x) {
  struct wv_memmodel *mm = x->mm;
  if (!mm) return;
  for (uint32_t i = 0; i < mm->n; i++)
    if (mm->v[i].size) commit_one(x, i);
  mm->n = 0;
}

struct wv_memmodel *wv_mm_new(uint32_t seed) {
  struct wv_memmodel *mm = calloc(1, sizeof *mm);
  if (mm) mm->rng = seed ? seed : 1;
  return mm;
}

void wv_mm_free(struct wv_memmodel *mm) {
  if (!mm) return;
  free(mm->v);
  free(mm);
}

/* membar / fence: the executing threads' pending stores become visible now. */
int wv_h_fence(wv_exec *x, const wv_insn *in, uint32_t m) {
  (void)in;
  if (x->mm) WV_FOR_LANES(m, l, { wv_mm_commit_own(x, l, 1, 0, 0); });
  return 0;
}
