/*
 * cache.h — cache.c's object files on disk, by a 128-bit key.
 */
#ifndef WV_JIT_CACHE_H
#define WV_JIT_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The folder: $XDG_CACHE_HOME/warpvm/jit or ~/.cache/warpvm/jit; -1 when neither is set. */
int wv_jit_cache_dir(char *buf, size_t cap);
/* The object of key (malloc'd, *size bytes), or NULL. */
void *wv_jit_cache_get(const char *dir, const uint64_t key[2], size_t *size);
/* Keep it (nothing happens on a failure). */
void wv_jit_cache_put(const char *dir, const uint64_t key[2], const void *data, size_t size);

#endif
