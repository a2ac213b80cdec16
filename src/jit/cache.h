/*
 * cache.h — cache.c's files on disk: the object files of a compiled function, by a 128-bit key.
 */
#ifndef WV_JIT_CACHE_H
#define WV_JIT_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The folder: $XDG_CACHE_HOME/warpvm/jit or ~/.cache/warpvm/jit; -1 when neither is set. */
int wv_jit_cache_dir(char *buf, size_t cap);
/* The objects kept for key, or NULL: one malloc'd block holding *n (at most max) objects one after the other,
 * object i size[i] bytes. */
void *wv_jit_cache_get(const char *dir, const uint64_t key[2], size_t *size, unsigned *n, unsigned max);
/* Whether a file of key is there (engine auto's estimate of a compilation: wv_jit_cost). */
int wv_jit_cache_has(const char *dir, const uint64_t key[2]);
/* Keep n objects for key (nothing happens on a failure). */
void wv_jit_cache_put(const char *dir, const uint64_t key[2], const void *const *obj, const size_t *size, unsigned n);

#endif
