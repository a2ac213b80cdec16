/*
 * symtab.c — the decoder's scoped name map: open addressing on pointer keys, with an undo log
 * so closing a `{ }` scope restores what its declarations shadowed.
 */
#include "ir/symtab.h"

#include <stdlib.h>
#include <string.h>

#define TOMB ((const void *)1)

void wv_symtab_init(wv_symtab *t) { memset(t, 0, sizeof *t); }

void wv_symtab_fini(wv_symtab *t) {
  free(t->keys);
  free(t->vals);
  free(t->undo);
  free(t->marks);
  memset(t, 0, sizeof *t);
}

static size_t hash(const void *k) {
  uint64_t x = (uint64_t)(uintptr_t)k;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return (size_t)x;
}

static size_t slot(const wv_symtab *t, const void *k) {
  size_t i = hash(k) & (t->cap - 1);
  while (t->keys[i] && t->keys[i] != k) i = (i + 1) & (t->cap - 1);
  return i;
}

int wv_symtab_get(const wv_symtab *t, const void *key, int64_t *val) {
  if (!t->cap) return 0;
  size_t i = slot(t, key);
  if (!t->keys[i]) return 0;
  *val = t->vals[i];
  return 1;
}

static int grow(wv_symtab *t) {
  size_t nc = t->cap ? t->cap * 2 : 64;
  const void **nk = calloc(nc, sizeof *nk);
  int64_t *nv = calloc(nc, sizeof *nv);
  if (!nk || !nv) { free(nk); free(nv); return -1; }
  wv_symtab old = *t;
  t->keys = nk;
  t->vals = nv;
  t->cap = nc;
  for (size_t i = 0; i < old.cap; i++)
    if (old.keys[i]) {
      size_t j = slot(t, old.keys[i]);
      t->keys[j] = old.keys[i];
      t->vals[j] = old.vals[i];
    }
  free(old.keys);
  free(old.vals);
  return 0;
}

int wv_symtab_put(wv_symtab *t, const void *key, int64_t val) {
  if ((t->n + 1) * 2 > t->cap && grow(t)) return -1;
  size_t i = slot(t, key);
  if (t->nmarks) { /* remember what to restore when the scope closes */
    if (t->nundo == t->capundo) {
      size_t nc = t->capundo ? t->capundo * 2 : 64;
      void *nu = realloc(t->undo, nc * sizeof *t->undo);
      if (!nu) return -1;
      t->undo = nu;
      t->capundo = nc;
    }
    t->undo[t->nundo].key = key;
    t->undo[t->nundo].had = t->keys[i] != NULL;
    t->undo[t->nundo].old = t->keys[i] ? t->vals[i] : 0;
    t->nundo++;
  }
  if (!t->keys[i]) t->n++;
  t->keys[i] = key;
  t->vals[i] = val;
  return 0;
}

int wv_symtab_open(wv_symtab *t) {
  if (t->nmarks == t->capmarks) {
    size_t nc = t->capmarks ? t->capmarks * 2 : 16;
    void *nm = realloc(t->marks, nc * sizeof *t->marks);
    if (!nm) return -1;
    t->marks = nm;
    t->capmarks = nc;
  }
  t->marks[t->nmarks++] = t->nundo;
  return 0;
}

/* Deleting from open addressing: rebuild the probe chain after the removed key. */
static void erase(wv_symtab *t, const void *key) {
  size_t i = slot(t, key);
  if (!t->keys[i]) return;
  t->keys[i] = NULL;
  t->n--;
  for (size_t j = (i + 1) & (t->cap - 1); t->keys[j]; j = (j + 1) & (t->cap - 1)) {
    const void *k = t->keys[j];
    int64_t v = t->vals[j];
    t->keys[j] = NULL;
    size_t s = slot(t, k);
    t->keys[s] = k;
    t->vals[s] = v;
  }
}

void wv_symtab_close(wv_symtab *t) {
  if (!t->nmarks) return;
  size_t to = t->marks[--t->nmarks];
  while (t->nundo > to) {
    t->nundo--;
    if (t->undo[t->nundo].had) {
      size_t i = slot(t, t->undo[t->nundo].key);
      t->vals[i] = t->undo[t->nundo].old;
    } else {
      erase(t, t->undo[t->nundo].key);
    }
  }
}
