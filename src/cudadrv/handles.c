/*
 * handles.c — the driver's token handles: what a CUstream, CUevent, CUgraph, CUgraphExec, CUgraphNode or CUmemoryPool the
 * program holds (through either API: warpvm's runtime hands the same handles out) stands for. A handle is
 * never a pointer to the object: it is a token (tag, kind, slot, generation) that is looked up here, so a
 * destroyed, twice-destroyed, never-created or wrong-kind handle ((CUstream)0x1234, an event passed as a
 * stream) is found out without dereferencing anything, and a slot reused by a later object has a new
 * generation, so the stale handle stays invalid. Misuse is said once per API function on stderr.
 *
 *   token = 0xC7 << 56 | generation (28 bits) << 28 | slot (24 bits) << 4 | kind (4 bits)
 */
#include <stdio.h>
#include <stdlib.h>

#include "cudadrv/handles.h"

#define TAG 0xC7u
#define MAX_SLOTS (1u << 24)
#define GEN_MASK ((1u << 28) - 1)

static const char *const KIND_NAME[] = {"", "stream", "event", "graph", "executable graph", "graph node", "memory pool"};

static uintptr_t token(uint32_t slot, uint32_t gen, cu_hkind kind) {
  return (uintptr_t)TAG << 56 | (uintptr_t)gen << 28 | (uintptr_t)slot << 4 | (uintptr_t)kind;
}

/* The slot a token names if it is a live handle of this kind, else -1. */
static int64_t slot_of(const cu_driver *d, cu_hkind kind, const void *h) {
  uintptr_t t = (uintptr_t)h;
  if (t >> 56 != TAG || (t & 15) != (uintptr_t)kind) return -1;
  uint32_t slot = (uint32_t)(t >> 4) & (MAX_SLOTS - 1), gen = (uint32_t)(t >> 28) & GEN_MASK;
  if (slot >= d->nslots) return -1;
  const cu_slot *s = &d->slots[slot];
  return s->obj && s->kind == kind && s->gen == gen ? (int64_t)slot : -1;
}

void *cu_handle_new(cu_driver *d, cu_hkind kind, void *obj) {
  uint32_t slot;
  if (d->nfree) {
    slot = d->free_slots[--d->nfree];
  } else {
    if (d->nslots == MAX_SLOTS) return NULL;
    if (d->nslots == d->capslots) {
      uint32_t nc = d->capslots ? 2 * d->capslots : 64;
      cu_slot *n = realloc(d->slots, (size_t)nc * sizeof *n);
      uint32_t *f = n ? realloc(d->free_slots, (size_t)nc * sizeof *f) : NULL;
      if (n) d->slots = n;
      if (!f) return NULL;
      d->free_slots = f;
      d->capslots = nc;
    }
    slot = d->nslots++;
    d->slots[slot].gen = 0;
  }
  cu_slot *s = &d->slots[slot];
  s->obj = obj;
  s->kind = kind;
  s->gen = (s->gen + 1) & GEN_MASK;
  return (void *)token(slot, s->gen, kind);
}

void *cu_handle_obj(const cu_driver *d, cu_hkind kind, const void *h) {
  int64_t slot = slot_of(d, kind, h);
  return slot < 0 ? NULL : d->slots[slot].obj;
}

void cu_handle_drop(cu_driver *d, const void *h) {
  int64_t slot = slot_of(d, (cu_hkind)((uintptr_t)h & 15), h);
  if (slot < 0) return;
  d->slots[slot].obj = NULL;
  d->free_slots[d->nfree++] = (uint32_t)slot; /* at most nslots: a slot is freed once per use */
}

void *cu_handle_next(const cu_driver *d, cu_hkind kind, uint32_t *i, void **h) {
  for (; *i < d->nslots; ++*i) {
    const cu_slot *s = &d->slots[*i];
    if (s->obj && s->kind == kind) {
      if (h) *h = (void *)token(*i, s->gen, kind);
      return d->slots[(*i)++].obj;
    }
  }
  return NULL;
}

/* Named as the program called it: the runtime's function and error name when warpvm's runtime is the caller. */
CUresult cu_bad_handle(cu_driver *d, const char *api, cu_hkind kind, const void *h, CUresult e) {
  const char *caller = cu_caller(), *name = caller ? cu_rt_error_name(e) : NULL;
  char key[160], code[32];
  if (caller) api = caller;
  snprintf(code, sizeof code, "CUresult %d", e);
  snprintf(key, sizeof key, "bad handle: %s", api);
  if (cu_first_time(d, key))
    fprintf(stderr, "warpvm: %s: %p is not a live %s (destroyed already, or never created): %s (not repeated for %s)\n",
            api, h, KIND_NAME[kind], name ? name : code, api);
  return e;
}
