/*
 * mem.h — device global memory of one vm: a table of allocations sorted by device address.
 * Allocations the vm makes lie in a 64-bit address space from WV_GLOBAL_BASE that never reuses an
 * address, so a stale pointer faults; identity-mapped host memory (wv_map_host, .managed
 * variables) sits at its own host address, outside that range and the generic windows.
 */
#ifndef WV_MEM_H
#define WV_MEM_H

#include <stddef.h>
#include <stdint.h>

/* What an allocation is: who made it, who may free it, whether the vm owns its host memory. */
typedef enum wv_alloc_kind {
  WV_ALLOC_DEVICE = 0, /* wv_malloc */
  WV_ALLOC_MODULE,     /* a module's .global/.const variable (freed with the module) */
  WV_ALLOC_INTERNAL,   /* the vm's own (a cooperative launch's grid workspace) */
  WV_ALLOC_DMALLOC,    /* device malloc/new in a kernel: freed by device free/delete */
  WV_ALLOC_MANAGED,    /* a module's .managed variable: identity-mapped host memory the vm owns */
  WV_ALLOC_HOSTMAP,    /* wv_map_host: identity-mapped host memory the caller owns */
  WV_ALLOC_FREED,      /* a freed entry (size 0, no host memory) until the table is compacted */
} wv_alloc_kind;

typedef struct wv_alloc {
  uint64_t base, size;
  uint8_t *host;
  uint8_t kind;        /* wv_alloc_kind */
} wv_alloc;

typedef struct wv_heap {
  wv_alloc *v;         /* sorted by base, live entries disjoint */
  uint32_t n, cap;
  uint32_t nfreed;     /* WV_ALLOC_FREED entries in v: freeing is O(log n), compaction amortised */
  uint64_t next;       /* next free device address */
  uint32_t last;       /* index of the last allocation hit (lookup cache) */
  uint64_t bytes_live;
} wv_heap;

/* The vm's own allocations lie in [WV_GLOBAL_BASE, WV_HEAP_END): 8 TiB of never-reused addresses
 * between where Linux puts the program's heap (0x55..) and its mmap area (0x7e../0x7f..), so host
 * memory is almost never there and can be identity-mapped. */
#define WV_HEAP_END (0x0000700000000000ull + (1ull << 43))

void wv_heap_init(wv_heap *h);
void wv_heap_fini(wv_heap *h);
/* Returns 0 and the device address, or -1 if out of memory. */
int wv_heap_alloc(wv_heap *h, uint64_t size, uint32_t align, uint64_t *out);
int wv_heap_alloc_kind(wv_heap *h, uint64_t size, uint32_t align, wv_alloc_kind kind, uint64_t *out);
/* Registers [host, host+size) at device address host (kind MANAGED or HOSTMAP). Returns 0, or -1
 * with a reason in why when the range is empty, overlaps an allocation or a reserved range. */
int wv_heap_map(wv_heap *h, void *host, uint64_t size, wv_alloc_kind kind, const char **why);
/* The allocation that starts exactly at base, or NULL. */
wv_alloc *wv_heap_find(wv_heap *h, uint64_t base);
/* The allocation with base <= addr < base + size, or NULL. */
wv_alloc *wv_heap_containing(wv_heap *h, uint64_t addr);
/* Removes the allocation starting at base (freeing its host memory if the vm owns it). */
int wv_heap_free(wv_heap *h, uint64_t base);
/* Host pointer for [addr, addr+size) if it lies inside one allocation, else NULL. */
uint8_t *wv_heap_lookup(wv_heap *h, uint64_t addr, uint64_t size);

#endif
