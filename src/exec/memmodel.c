/*
 * memmodel.c — `--memory-model=weak`: global stores become visible to other threads late and out of
 * order, deterministically for a seed, within what the PTX memory model allows (PTX ISA §8).
 *
 * A store to global memory by thread T goes into one launch-wide set of pending stores instead of
 * memory. Pending stores commit (are written to memory, becoming visible to every other thread) at
 * random points: after every warp's turn each pending store commits with probability 1/8, except
 * that a thread's stores to overlapping bytes commit in program order (coherence). So two stores of
 * one thread with nothing between them may become visible in either order, and a store may stay
 * invisible after its CTA has finished. What restores order:
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
 *
 * Cost: each operation looks only at the pending stores it concerns. A pending store is on two
 * lists, in store order: its 32-byte granule's (every access is naturally aligned and at most 32
 * bytes, so a store lies in one granule) and its CTA's; and in a dense array that the per-turn draw
 * walks. A thread's store to exactly the bytes of its newest pending store in that granule (with the
 * same ordering) replaces that store's data — one of the orders the model allows, the older value
 * never having been seen — so repeated stores to one address keep one pending store. Barriers touch
 * no store: a CTA barrier bumps the CTA's count (wv_cta.mm_bars), bar.warp.sync its lanes' counts
 * (wv_warp.mm_sync), and a store is ordered before the CTA's or the lane's later accesses once the
 * count has moved past the one it was made under.
 */
#include <stdlib.h>

#include "exec/handlers.h"
#include "rt/vm_internal.h"

#define NIL 0xffffffffu
#define GRANULE(a) ((a) >> 5) /* 32 bytes */

typedef struct wv_pstore {
  uint64_t thread;   /* cta linear index << 16 | thread index in the CTA */
  uint64_t addr;
  uint32_t size;
  uint32_t bars;     /* its CTA's barrier count when it was made */
  uint32_t wsync;    /* its lane's bar.warp.sync count when it was made */
  uint32_t gprev, gnext, gb; /* its granule's list, and that list's bucket in mm->gran */
  uint32_t cprev, cnext, cb; /* its CTA's list, and that list's bucket in mm->cta */
  uint32_t live;     /* its index in mm->live; NIL when the entry is free (then gnext links the free list) */
  uint8_t behind;    /* an older store of its thread to its bytes was pending when it was made */
  uint8_t data[32];
} wv_pstore;

/* The head and tail of one key's list (a granule's, a CTA's). */
typedef struct bucket {
  uint64_t key1;     /* key + 1; 0: never used */
  uint32_t head, tail;
} bucket;

/* Open addressing; a key whose list has emptied keeps its bucket until the table is rebuilt. */
typedef struct table {
  bucket *b;
  uint32_t cap, used;
} table;

struct wv_memmodel {
  wv_pstore *v;      /* entries */
  uint32_t n, cap, free;
  uint32_t *live, nlive;
  table gran, cta;
  uint32_t rng;
  uint32_t draws, ndraws; /* unused 3-bit draws of the last random word (low first) */
};

/* ---------------- tables ---------------- */

static uint32_t hash64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return (uint32_t)k;
}

static bucket *tab_find(const table *t, uint64_t key) {
  for (uint32_t i = t->cap ? hash64(key) & (t->cap - 1) : 0; t->cap && t->b[i].key1; i = (i + 1) & (t->cap - 1))
    if (t->b[i].key1 == key + 1) return &t->b[i];
  return NULL;
}

/* Rebuilds t with room for its non-empty lists and more. -1 when out of memory. */
static int tab_grow(table *t) {
  uint32_t keep = 0, nc = 64;
  for (uint32_t i = 0; i < t->cap; i++) keep += t->b[i].key1 && t->b[i].head != NIL;
  while ((keep + 1) * 4 > nc) nc *= 2;
  bucket *nb = calloc(nc, sizeof *nb);
  if (!nb) return -1;
  uint32_t used = 0;
  for (uint32_t i = 0; i < t->cap; i++) {
    const bucket *o = &t->b[i];
    if (!o->key1 || o->head == NIL) continue;
    uint32_t j = hash64(o->key1 - 1) & (nc - 1);
    while (nb[j].key1) j = (j + 1) & (nc - 1);
    nb[j] = *o;
    used++;
  }
  free(t->b);
  t->b = nb;
  t->cap = nc;
  t->used = used;
  return 0;
}

/* The bucket of key, made (with an empty list) if missing; NULL when out of memory. *grown says the
 * table was rebuilt (so the pending stores' bucket numbers must be found again). */
static bucket *tab_get(table *t, uint64_t key, int *grown) {
  bucket *b = tab_find(t, key);
  if (b) return b;
  if ((t->used + 1) * 2 > t->cap && (*grown = 1, tab_grow(t))) return NULL;
  uint32_t i = hash64(key) & (t->cap - 1);
  while (t->b[i].key1) i = (i + 1) & (t->cap - 1);
  t->b[i] = (bucket){key + 1, NIL, NIL};
  t->used++;
  return &t->b[i];
}

/* ---------------- pending stores ---------------- */

static uint64_t thread_key(const wv_exec *x, int lane) {
  return (uint64_t)x->cta->linear << 16 | (x->warp->id * WV_WARP + (uint32_t)lane);
}

/* Is store p ordered before the accesses of thread t, a thread of the running CTA and warp (its own
 * store, or one a CTA barrier or a bar.warp.sync of its lane has ordered since)? */
static int ordered_before(const wv_exec *x, const wv_pstore *p, uint64_t t) {
  if (p->thread == t) return 1;
  if (p->thread >> 16 != t >> 16) return 0; /* another CTA */
  if (x->cta->mm_bars != p->bars) return 1; /* bar.sync since */
  return ((p->thread & 0xffff) >> 5) == ((t & 0xffff) >> 5) && x->warp->mm_sync[p->thread & 31] != p->wsync;
}

static int overlaps(const wv_pstore *p, uint64_t addr, uint32_t size) {
  return addr < p->addr + p->size && p->addr < addr + size;
}

/* After a table was rebuilt: every pending store's bucket numbers, found again. */
static void renumber(struct wv_memmodel *mm) {
  for (uint32_t k = 0; k < mm->nlive; k++) {
    wv_pstore *p = &mm->v[mm->live[k]];
    p->gb = (uint32_t)(tab_find(&mm->gran, GRANULE(p->addr)) - mm->gran.b);
    p->cb = (uint32_t)(tab_find(&mm->cta, p->thread >> 16) - mm->cta.b);
  }
}

/* Removes entry i from its lists and the live array and frees it. */
static void drop(struct wv_memmodel *mm, uint32_t i) {
  wv_pstore *p = &mm->v[i];
  bucket *g = &mm->gran.b[p->gb], *c = &mm->cta.b[p->cb];
  if (p->gprev != NIL) mm->v[p->gprev].gnext = p->gnext; else g->head = p->gnext;
  if (p->gnext != NIL) mm->v[p->gnext].gprev = p->gprev; else g->tail = p->gprev;
  if (p->cprev != NIL) mm->v[p->cprev].cnext = p->cnext; else c->head = p->cnext;
  if (p->cnext != NIL) mm->v[p->cnext].cprev = p->cprev; else c->tail = p->cprev;
  uint32_t last = mm->live[--mm->nlive];
  mm->live[p->live] = last;
  mm->v[last].live = p->live;
  p->live = NIL;
  p->gnext = mm->free;
  mm->free = i;
}

/* Writes pending store i to memory (it was checked when it was made) and drops it. */
static void commit_one(wv_exec *x, uint32_t i) {
  wv_pstore *p = &x->mm->v[i];
  uint8_t *h = wv_heap_lookup(&x->vm->heap, p->addr, p->size);
  if (h) memcpy(h, p->data, p->size);
  drop(x->mm, i);
}

/* An entry from the free list or the end of the pool; NIL when out of memory. */
static uint32_t alloc_entry(struct wv_memmodel *mm) {
  if (mm->free != NIL) {
    uint32_t i = mm->free;
    mm->free = mm->v[i].gnext;
    return i;
  }
  if (mm->n == mm->cap) {
    uint32_t nc = mm->cap ? mm->cap * 2 : 256;
    wv_pstore *nv = realloc(mm->v, (size_t)nc * sizeof *nv);
    uint32_t *nl = realloc(mm->live, (size_t)nc * sizeof *nl);
    if (nv) mm->v = nv;
    if (nl) mm->live = nl;
    if (!nv || !nl) return NIL;
    mm->cap = nc;
  }
  return mm->n++;
}

int wv_mm_store(wv_exec *x, int lane, uint64_t addr, const void *data, uint32_t size) {
  struct wv_memmodel *mm = x->mm;
  uint64_t t = thread_key(x, lane);
  uint32_t bars = x->cta->mm_bars, wsync = x->warp->mm_sync[lane];
  int grown = 0;
  bucket *g = tab_get(&mm->gran, GRANULE(addr), &grown);
  bucket *c = g ? tab_get(&mm->cta, x->cta->linear, &grown) : NULL;
  if (!g || !c) return wv_fault_set(x, WV_ERR_NOMEM, lane, 0, 0, "out of host memory for pending stores");
  if (grown) renumber(mm);
  uint8_t behind = 0;
  for (uint32_t i = g->tail; i != NIL; i = mm->v[i].gprev) { /* my newest pending store to these bytes */
    wv_pstore *p = &mm->v[i];
    if (p->thread != t || !overlaps(p, addr, size)) continue;
    if (p->addr == addr && p->size == size && p->bars == bars && p->wsync == wsync) {
      memcpy(p->data, data, size); /* the same store again: it replaces the pending one */
      return 0;
    }
    behind = 1;
    break;
  }
  uint32_t i = alloc_entry(mm);
  if (i == NIL) return wv_fault_set(x, WV_ERR_NOMEM, lane, 0, 0, "out of host memory for pending stores");
  wv_pstore *p = &mm->v[i];
  *p = (wv_pstore){.thread = t, .addr = addr, .size = size, .bars = bars, .wsync = wsync, .gprev = g->tail,
                   .gnext = NIL, .gb = (uint32_t)(g - mm->gran.b), .cprev = c->tail, .cnext = NIL,
                   .cb = (uint32_t)(c - mm->cta.b), .live = mm->nlive, .behind = behind};
  memcpy(p->data, data, size);
  if (g->tail != NIL) mm->v[g->tail].gnext = i; else g->head = i;
  g->tail = i;
  if (c->tail != NIL) mm->v[c->tail].cnext = i; else c->head = i;
  c->tail = i;
  mm->live[mm->nlive++] = i;
  return 0;
}

/* A fence or release by lane: commit, in store order, the pending stores ordered before it — all of
 * them (they are all its CTA's), or those touching [addr, addr+size). */
void wv_mm_commit_own(wv_exec *x, int lane, int all, uint64_t addr, uint32_t size) {
  struct wv_memmodel *mm = x->mm;
  if (!mm || !mm->nlive) return;
  if (!all) {
    wv_mm_before_load(x, lane, addr, size);
    return;
  }
  uint64_t t = thread_key(x, lane);
  bucket *c = tab_find(&mm->cta, x->cta->linear);
  for (uint32_t i = c ? c->head : NIL, next; i != NIL; i = next) {
    next = mm->v[i].cnext;
    if (ordered_before(x, &mm->v[i], t)) commit_one(x, i);
  }
}

/* bar.warp.sync by `lanes` of the current warp: their pending stores are ordered before their later accesses. */
void wv_mm_warp_sync(wv_exec *x, uint32_t lanes) {
  if (!x->mm) return;
  WV_FOR_LANES(lanes, l, { x->warp->mm_sync[l]++; });
}

/* A CTA barrier completed: the CTA's pending stores are ordered before every later access of its
 * threads (but not of other CTAs'). */
void wv_mm_commit_cta(wv_exec *x) {
  if (x->mm) x->cta->mm_bars++;
}

/* Before lane reads [addr, addr+size): its own stores there, and its CTA's stores ordered before a
 * barrier, must be visible to it. Committing them is the simplest way (to everyone: a little
 * stronger than needed, never weaker). The bytes may span two granules when the load is misaligned
 * (it faults right after). */
void wv_mm_before_load(wv_exec *x, int lane, uint64_t addr, uint32_t size) {
  struct wv_memmodel *mm = x->mm;
  if (!mm || !mm->nlive || !size) return;
  uint64_t t = thread_key(x, lane);
  for (uint64_t gr = GRANULE(addr); gr <= GRANULE(addr + size - 1); gr++) {
    bucket *g = tab_find(&mm->gran, gr);
    for (uint32_t i = g ? g->head : NIL, next; i != NIL; i = next) {
      next = mm->v[i].gnext;
      if (overlaps(&mm->v[i], addr, size) && ordered_before(x, &mm->v[i], t)) commit_one(x, i);
    }
  }
}

/* Whether an older store of p's thread to p's bytes is still pending (it must commit first). Only a
 * store made behind one can be (later stores are younger); once it is not, it never is again. */
static int blocked(const struct wv_memmodel *mm, wv_pstore *p) {
  if (!p->behind) return 0;
  for (uint32_t k = p->gprev; k != NIL; k = mm->v[k].gprev)
    if (mm->v[k].thread == p->thread && overlaps(&mm->v[k], p->addr, p->size)) return 1;
  p->behind = 0;
  return 0;
}

/* How many pending stores the draw passes over before the next one it picks: one 3-bit draw per store
 * (picked when it is 0, probability 1/8), ten to a random word, the zero draws found with bit tricks. */
static uint32_t next_gap(struct wv_memmodel *mm) {
  uint32_t gap = 0;
  for (;;) {
    if (!mm->ndraws) {
      mm->rng ^= mm->rng << 13;
      mm->rng ^= mm->rng >> 17;
      mm->rng ^= mm->rng << 5;
      mm->draws = mm->rng & 0x3fffffffu;
      mm->ndraws = 10;
    }
    uint32_t v = mm->draws, zero = ~(v | v >> 1 | v >> 2) & 0x09249249u & ((1u << (3 * mm->ndraws)) - 1);
    if (!zero) {
      gap += mm->ndraws;
      mm->ndraws = 0;
      continue;
    }
    uint32_t j = (uint32_t)__builtin_ctz(zero) / 3; /* draws before the zero one */
    mm->draws = j + 1 < 10 ? v >> (3 * (j + 1)) : 0;
    mm->ndraws -= j + 1;
    return gap + j;
  }
}

/* A warp's turn ended: each pending store commits with probability 1/8, keeping each thread's
 * stores to the same bytes in order. The walk goes down the live array, from one picked store to the
 * next (a commit moves the last entry, already passed, into the hole), so a turn costs the number of
 * picks, not of pending stores. */
void wv_mm_tick(wv_exec *x) {
  struct wv_memmodel *mm = x->mm;
  if (!mm) return;
  for (uint32_t k = mm->nlive;;) {
    uint32_t gap = next_gap(mm);
    if (gap >= k) break;
    k -= gap + 1;
    uint32_t i = mm->live[k];
    if (!blocked(mm, &mm->v[i])) commit_one(x, i);
  }
}

/* The end of the launch: everything, each granule's stores in store order. */
void wv_mm_commit_all(wv_exec *x) {
  struct wv_memmodel *mm = x->mm;
  if (!mm) return;
  for (uint32_t b = 0; b < mm->gran.cap; b++)
    while (mm->gran.b[b].key1 && mm->gran.b[b].head != NIL) commit_one(x, mm->gran.b[b].head);
}

struct wv_memmodel *wv_mm_new(uint32_t seed) {
  struct wv_memmodel *mm = calloc(1, sizeof *mm);
  if (!mm) return NULL;
  mm->rng = seed ? seed : 1;
  mm->free = NIL;
  return mm;
}

void wv_mm_free(struct wv_memmodel *mm) {
  if (!mm) return;
  free(mm->v);
  free(mm->live);
  free(mm->gran.b);
  free(mm->cta.b);
  free(mm);
}

/* membar / fence: the executing threads' pending stores become visible now. */
int wv_h_fence(wv_exec *x, const wv_insn *in, uint32_t m) {
  (void)in;
  if (x->mm) WV_FOR_LANES(m, l, { wv_mm_commit_own(x, l, 1, 0, 0); });
  return 0;
}
