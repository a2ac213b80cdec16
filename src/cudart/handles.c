/*
 * handles.c — the runtime's handle table: what a cudaStream_t, cudaEvent_t, cudaGraph_t,
 * cudaGraphExec_t, cudaGraphNode_t or cudaMemPool_t the program holds stands for. A handle is never a
 * pointer to the object: it is a token (tag, kind, slot, generation) that is looked up here, so a destroyed, twice-destroyed,
 * never-created or wrong-kind handle ((cudaStream_t)0x1234, an event passed as a stream) is found
 * out without dereferencing anything, and a slot reused by a later object has a new generation, so
 * the stale handle stays invalid. Misuse is said once per API function on stderr.
 *
 *   token = 0xC7 << 56 | generation (28 bits) << 28 | slot (24 bits) << 4 | kind (4 bits)
 */
#include <stdio.h>
#include <stdlib.h>

#include "cudart/cudart.h"

#define TAG 0xC7u
#define MAX_SLOTS (1u << 24)
#define GEN_MASK ((1u << 28) - 1)

static const char *const KIND_NAME[] = {"",           "stream",     "event", "graph", "executable graph",
                                        "graph node", "memory pool"};

static uintptr_t token(uint32_t slot, uint32_t gen, cr_hkind kind) {
  return (uintptr_t)TAG << 56 | (uintptr_t)gen << 28 | (uintptr_t)slot << 4 | (uintptr_t)kind;
}

/* The slot a token names if it is a live handle of this kind, else -1. */
static int64_t slot_of(const cudart *r, cr_hkind kind, const void *h) {
  uintptr_t t = (uintptr_t)h;
  if (t >> 56 != TAG || (t & 15) != (uintptr_t)kind) return -1;
  uint32_t slot = (uint32_t)(t >> 4) & (MAX_SLOTS - 1), gen = (uint32_t)(t >> 28) & GEN_MASK;
  if (slot >= r->nslots) return -1;
  const cr_slot *s = &r->slots[slot];
  return s->obj && s->kind == kind && s->gen == gen ? (int64_t)slot : -1;
}

void *wv_cr_handle_new(cudart *r, cr_hkind kind, void *obj) {
  uint32_t slot;
  if (r->nfree) {
    slot = r->free_slots[--r->nfree];
  } else {
    if (r->nslots == MAX_SLOTS) return NULL;
    if (r->nslots == r->capslots) {
      uint32_t nc = r->capslots ? 2 * r->capslots : 64;
      cr_slot *n = realloc(r->slots, (size_t)nc * sizeof *n);
      uint32_t *f = n ? realloc(r->free_slots, (size_t)nc * sizeof *f) : NULL;
      if (n) r->slots = n;
      if (!f) return NULL;
      r->free_slots = f;
      r->capslots = nc;
    }
    slot = r->nslots++;
    r->slots[slot].gen = 0;
  }
  cr_slot *s = &r->slots[slot];
  s->obj = obj;
  s->kind = kind;
  s->gen = (s->gen + 1) & GEN_MASK;
  return (void *)token(slot, s->gen, kind);
}

void *wv_cr_handle_obj(const cudart *r, cr_hkind kind, const void *h) {
  int64_t slot = slot_of(r, kind, h);
  return slot < 0 ? NULL : r->slots[slot].obj;
}

void wv_cr_handle_drop(cudart *r, const void *h) {
  int64_t slot = slot_of(r, (cr_hkind)((uintptr_t)h & 15), h);
  if (slot < 0) return;
  r->slots[slot].obj = NULL;
  r->free_slots[r->nfree++] = (uint32_t)slot; /* at most nslots: a slot is freed once per use */
}

void *wv_cr_handle_next(const cudart *r, cr_hkind kind, uint32_t *i, void **h) {
  for (; *i < r->nslots; ++*i) {
    const cr_slot *s = &r->slots[*i];
    if (s->obj && s->kind == kind) {
      if (h) *h = (void *)token(*i, s->gen, kind);
      return r->slots[(*i)++].obj;
    }
  }
  return NULL;
}

cudaError_t wv_cr_bad_handle(cudart *r, const char *api, cr_hkind kind, const void *h, cudaError_t e) {
  if (wv_cr_first_time(r, api))
    fprintf(stderr,
            "warpvm: %s: %p is not a live %s (destroyed already, or never created): %s "
            "(not repeated for %s)\n",
            api, h, KIND_NAME[kind], cudaGetErrorName(e), api);
  return e;
}
