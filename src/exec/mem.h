/*
 * mem.h — device global memory of one vm: a sorted table of allocations in a 64-bit address
 * space that starts at WV_GLOBAL_BASE and never reuses an address, so a stale pointer faults.
 */
#ifndef WV_MEM_H
#define WV_MEM_H

#include <stddef.h>
#include <stdint.h>

typedef struct wv_alloc {
  uint64_t base, size;
  uint8_t *host;
} wv_alloc;

typedef struct wv_heap {
  wv_alloc *v;
  uint32_t n, cap;
  uint64_t next;       /* next free device address */
  uint32_t last;       /* index of the last allocation hit (lookup cache) */
  uint64_t bytes_live;
} wv_heap;

void wv_heap_init(wv_heap *h);
void wv_heap_fini(wv_heap *h);
/* Returns 0 and the device address, or -1 if out of memory. */
int wv_heap_alloc(wv_heap *h, uint64_t size, uint32_t align, uint64_t *out);
int wv_heap_free(wv_heap *h, uint64_t base);
/* Host pointer for [addr, addr+size) if it lies inside one allocation, else NULL. */
uint8_t *wv_heap_lookup(wv_heap *h, uint64_t addr, uint64_t size);

#endif
