/*
 * arena.h — the PTX module's memory: a bump allocator that frees everything at once, plus string
 * interning (equal strings interned in one arena share one pointer, so names compare with ==).
 *
 * Owns `struct ptx_arena`. The parser puts the whole ptx_module in one arena; later stages may
 * allocate from it too (ptx_module.arena) so their data lives exactly as long as the module.
 */
#ifndef WV_PTX_ARENA_H
#define WV_PTX_ARENA_H

#include <stddef.h>

typedef struct ptx_arena ptx_arena;

/* A new, empty arena; NULL when out of memory. */
ptx_arena *ptx_arena_new(void);
/* Frees the arena and everything allocated from it (NULL is a no-op). */
void ptx_arena_free(ptx_arena *a);
/* Frees everything allocated from the arena and empties its intern table; the arena stays usable. */
void ptx_arena_reset(ptx_arena *a);

/* `size` zeroed bytes aligned for any type; NULL when out of memory. size 0 returns a valid
 * non-NULL pointer. Never returns memory shared with another allocation. */
void *ptx_arena_alloc(ptx_arena *a, size_t size);
/* `n` elements of `elsize` bytes, zeroed; NULL on overflow or out of memory. */
void *ptx_arena_array(ptx_arena *a, size_t n, size_t elsize);
/* A copy of `size` bytes of `src` (NULL on out of memory; a valid pointer when size is 0). */
void *ptx_arena_dup(ptx_arena *a, const void *src, size_t size);

/* The interned, NUL-terminated copy of s[0..len): the same pointer for the same bytes within one
 * arena. `s` need not be NUL-terminated. NULL when out of memory. */
const char *ptx_arena_intern(ptx_arena *a, const char *s, size_t len);
/* Like ptx_arena_intern on a NUL-terminated string. */
const char *ptx_arena_intern_cstr(ptx_arena *a, const char *s);

/* Bytes requested from the system so far (for statistics and tests). */
size_t ptx_arena_bytes(const ptx_arena *a);

#endif
