/*
 * mem.h — device global memory of one vm: a table of allocations sorted by device address, laid out
 * the way a GPU lays out cudaMalloc's allocations (the model below), and the ranges the GPU would
 * map around them. Allocations the vm makes lie in a 64-bit address space from WV_GLOBAL_BASE that
 * never reuses an address; identity-mapped host memory (wv_map_host, .managed variables) sits at its
 * own host address, outside that range and the generic windows, and nothing is mapped around it.
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

/*
 * The GPU's memory map as warpvm models it — a table to adjust to what tests/memprobe measures on a
 * GPU (tests/memprobe/README.md):
 *   - an allocation's size is rounded up to WV_GPU_ALLOC_GRAIN; allocations smaller than
 *     WV_GPU_LARGE are packed one after another into chunks of WV_GPU_CHUNK bytes, so reading past
 *     the end of one reads the next one's bytes, as on the GPU;
 *   - an allocation of WV_GPU_LARGE bytes or more gets pages of its own (WV_GPU_PAGE each);
 *   - every chunk and large allocation is a mapping, followed by WV_GPU_MAP_GAP bytes that nothing
 *     maps: a read anywhere inside a mapping succeeds (bytes of no live allocation read 0, an
 *     "invalid read" the vm counts), a read outside every mapping faults. Writes must lie inside an
 *     allocation. Chunks stay mapped; a large allocation's mapping goes with it.
 *   - a CTA's shared memory is its size rounded up to WV_GPU_SHARED_GRAIN; a thread's local memory
 *     reaches WV_GPU_LOCAL_SLACK bytes past its deepest frame (reads there are invalid reads too).
 */
#define WV_GPU_ALLOC_GRAIN 512ull
#define WV_GPU_CHUNK (2ull << 20)
#define WV_GPU_LARGE (1ull << 20)
#define WV_GPU_PAGE (2ull << 20)
#define WV_GPU_MAP_GAP (2ull << 20)
#define WV_GPU_SHARED_GRAIN 128u
#define WV_GPU_LOCAL_SLACK 1024u

/* A range the GPU maps: a chunk of small allocations, or a large allocation's pages. */
typedef struct wv_span {
  uint64_t base, size;
} wv_span;

typedef struct wv_heap {
  wv_alloc *v;         /* sorted by base, live entries disjoint */
  uint32_t n, cap;
  uint32_t nfreed;     /* WV_ALLOC_FREED entries in v: freeing is O(log n), compaction amortised */
  uint64_t next;       /* next unused device address (the start of the next mapping) */
  uint64_t chunk_next, chunk_end; /* the chunk small allocations go into: [chunk_next, chunk_end) is free */
  uint32_t last;       /* index of the last allocation hit (lookup cache) */
  uint64_t bytes_live;
  wv_span *maps;       /* mapped ranges, sorted by base, disjoint */
  uint32_t nmaps, mapcap;
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
/* The bytes a GPU would read at [addr, addr+size): 0 and out filled (bytes of live allocations,
 * 0 elsewhere) when every byte lies in a mapping, else -1. Never touches memory outside the vm's
 * own allocations. */
int wv_heap_read_mapped(wv_heap *h, uint64_t addr, uint64_t size, uint8_t *out);
/* The live allocation nearest to addr (containing it, or the closest before or after), or NULL. */
const wv_alloc *wv_heap_nearest(wv_heap *h, uint64_t addr);

#endif
