/*
 * arena.c — the bump allocator and string interning table behind `struct ptx_arena` (arena.h).
 *
 * Memory comes in chunks that grow geometrically; large requests get a chunk of their own.
 * Chunks are calloc'ed and never reused, so every allocation is zeroed. The intern table is an
 * open-addressing hash set (FNV-1a) of pointers into the arena, kept in plain heap memory.
 */
#include "ptx/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN alignof(max_align_t)
#define ARENA_MIN_CHUNK ((size_t)64 * 1024)
#define ARENA_MAX_CHUNK ((size_t)4 * 1024 * 1024)

typedef struct arena_chunk {
  struct arena_chunk *next;
  size_t cap, used;
  alignas(max_align_t) unsigned char data[];
} arena_chunk;

typedef struct intern_slot {
  const char *s; /* NULL = empty */
  size_t len;
  uint32_t hash;
} intern_slot;

struct ptx_arena {
  arena_chunk *head;   /* current chunk (allocation happens here) */
  arena_chunk *big;    /* dedicated chunks for large requests */
  size_t next_chunk;   /* size of the next regular chunk */
  size_t total;        /* bytes obtained from the system */
  intern_slot *slots;  /* intern table, capacity a power of two */
  size_t nslots, nused;
};

ptx_arena *ptx_arena_new(void) {
  ptx_arena *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->next_chunk = ARENA_MIN_CHUNK;
  a->total = sizeof *a;
  return a;
}

static void free_chunks(arena_chunk *c) {
  while (c) {
    arena_chunk *n = c->next;
    free(c);
    c = n;
  }
}

void ptx_arena_free(ptx_arena *a) {
  if (!a) return;
  free_chunks(a->head);
  free_chunks(a->big);
  free(a->slots);
  free(a);
}

void ptx_arena_reset(ptx_arena *a) {
  if (!a) return;
  free_chunks(a->head);
  free_chunks(a->big);
  free(a->slots);
  a->head = a->big = NULL;
  a->slots = NULL;
  a->nslots = a->nused = 0;
  a->next_chunk = ARENA_MIN_CHUNK;
  a->total = sizeof *a;
}

static arena_chunk *new_chunk(ptx_arena *a, size_t cap) {
  if (cap > SIZE_MAX - sizeof(arena_chunk)) return NULL;
  arena_chunk *c = calloc(1, sizeof(arena_chunk) + cap);
  if (!c) return NULL;
  c->cap = cap;
  a->total += sizeof(arena_chunk) + cap;
  return c;
}

void *ptx_arena_alloc(ptx_arena *a, size_t size) {
  if (!a) return NULL;
  if (size > SIZE_MAX - ARENA_ALIGN) return NULL;
  size_t need = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
  if (need == 0) need = ARENA_ALIGN;
  arena_chunk *c = a->head;
  if (c && c->cap - c->used >= need) {
    void *p = c->data + c->used;
    c->used += need;
    return p;
  }
  if (need > a->next_chunk / 4) {
    /* Large: its own chunk, so the current chunk keeps its free space. */
    arena_chunk *b = new_chunk(a, need);
    if (!b) return NULL;
    b->used = need;
    b->next = a->big;
    a->big = b;
    return b->data;
  }
  arena_chunk *n = new_chunk(a, a->next_chunk);
  if (!n) return NULL;
  if (a->next_chunk < ARENA_MAX_CHUNK) a->next_chunk *= 2;
  n->next = a->head;
  a->head = n;
  n->used = need;
  return n->data;
}

void *ptx_arena_array(ptx_arena *a, size_t n, size_t elsize) {
  if (elsize && n > SIZE_MAX / elsize) return NULL;
  return ptx_arena_alloc(a, n * elsize);
}

void *ptx_arena_dup(ptx_arena *a, const void *src, size_t size) {
  void *p = ptx_arena_alloc(a, size);
  if (p && size) memcpy(p, src, size);
  return p;
}

static uint32_t hash_bytes(const char *s, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++) {
    h ^= (unsigned char)s[i];
    h *= 16777619u;
  }
  return h;
}

static int grow_table(ptx_arena *a) {
  size_t n = a->nslots ? a->nslots * 2 : 1024;
  intern_slot *t = calloc(n, sizeof *t);
  if (!t) return -1;
  for (size_t i = 0; i < a->nslots; i++) {
    intern_slot *o = &a->slots[i];
    if (!o->s) continue;
    size_t j = o->hash & (n - 1);
    while (t[j].s) j = (j + 1) & (n - 1);
    t[j] = *o;
  }
  free(a->slots);
  a->total += n * sizeof *t;
  a->slots = t;
  a->nslots = n;
  return 0;
}

const char *ptx_arena_intern(ptx_arena *a, const char *s, size_t len) {
  if (!a || (!s && len)) return NULL;
  if (len == SIZE_MAX) return NULL;
  if ((a->nused + 1) * 2 > a->nslots && grow_table(a) != 0) return NULL;
  uint32_t h = hash_bytes(s, len);
  size_t mask = a->nslots - 1, j = h & mask;
  while (a->slots[j].s) {
    intern_slot *e = &a->slots[j];
    if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0) return e->s;
    j = (j + 1) & mask;
  }
  char *copy = ptx_arena_alloc(a, len + 1);
  if (!copy) return NULL;
  if (len) memcpy(copy, s, len);
  copy[len] = '\0';
  a->slots[j].s = copy;
  a->slots[j].len = len;
  a->slots[j].hash = h;
  a->nused++;
  return copy;
}

const char *ptx_arena_intern_cstr(ptx_arena *a, const char *s) {
  return s ? ptx_arena_intern(a, s, strlen(s)) : NULL;
}

size_t ptx_arena_bytes(const ptx_arena *a) { return a ? a->total : 0; }
