/*
 * mem.h — device global memory of one vm (heap.c): a table of allocations sorted by device address, laid out
 * the way a GPU lays out cudaMalloc's allocations (the model below), and the ranges the GPU would
 * map around them. Allocations the vm makes lie in a 64-bit address range from WV_GLOBAL_BASE;
 * identity-mapped host memory (wv_map_host, .managed variables) sits at its own host address, outside
 * that range and the generic windows, and nothing is mapped around it. The model's constants for shared
 * and local memory live here too (mem.c applies them).
 */
#ifndef WV_MEM_H
#define WV_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

/* What an allocation is: who made it, who may free it, whether the vm owns its host memory. */
typedef enum wv_alloc_kind {
  WV_ALLOC_DEVICE = 0, /* wv_malloc (cudaMalloc): laid out as the GPU lays out cudaMalloc's allocations */
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
  uint8_t chunked;     /* host points into a chunk's memory (wv_chunk), which the chunk owns */
} wv_alloc;

/*
 * The GPU's memory map as warpvm models it: an H100 with CUDA 13, measured by tests/memprobe (README.md
 * there says which probe decides which constant; golden/explore.out holds the extra measurements).
 * cudaMalloc (wv_malloc):
 *   - a size is rounded up to WV_GPU_ALLOC_GRAIN. An allocation whose rounded size is below WV_GPU_CHUNK
 *     is small: it goes first-fit into the chunks (WV_GPU_CHUNK bytes each, in address order), or at the
 *     start of a new chunk. Reading past its end reads the gap (0), then the next allocation's bytes.
 *   - the first chunk lies in the home region: the WV_GPU_HOME_BELOW bytes below it and WV_GPU_HOME_ABOVE
 *     bytes from it on are mapped for as long as the vm lives.
 *   - other chunks, and large allocations (their size rounded up to pages of WV_GPU_PAGE), go first-fit
 *     into pages from the home region's end on, mapped while they hold an allocation: a chunk until its
 *     last allocation is freed, a large allocation until it is freed.
 *   - a chunk keeps a freed allocation's bytes (a stale pointer reads them) until its space is allocated
 *     again; a new allocation reads zeros.
 * A read anywhere inside a mapped range succeeds (0 where no allocation's bytes are: an "invalid read" the
 * vm counts, a fault under --check memcheck); a read outside every mapped range faults. Writes must lie
 * inside an allocation. Module variables, device malloc and the vm's own allocations lie elsewhere (from
 * WV_VM_ARENA: small ones packed in chunks, large ones on pages of their own, never reused).
 * Shared memory (.shared addresses; ir.h's WV_SHARED_BASE: the CTA's variables begin after 1 KiB the GPU
 * reserves, whose first WV_RESERVED_SMEM_END bytes are the CTA's for system software, such as cooperative
 * groups' tiles of more than 32 threads: loads and stores there are the program's): other reads below
 * WV_SHARED_BASE and up to the CTA's shared memory rounded up to
 * WV_GPU_SHARED_GRAIN succeed; an address at or above WV_GPU_SHARED_WINDOW is one the GPU reports as an
 * illegal instruction (WV_ERR_ILLEGAL_INSN), any other outside the CTA's memory an illegal address.
 * Local memory (.local addresses): a thread's stack ends WV_GPU_LOCAL_RESERVED bytes below
 * WV_GPU_LOCAL_TOP and grows down from there, the kernel's frame first; reads from cudaLimitStackSize
 * bytes below the stack's top (or the deepest frame, if lower) up to WV_GPU_LOCAL_TOP succeed.
 */
#define WV_GPU_ALLOC_GRAIN 512ull
#define WV_GPU_CHUNK (2ull << 20)
#define WV_GPU_PAGE (2ull << 20)
#define WV_GPU_HOME_BELOW (384ull << 20)
#define WV_GPU_HOME_ABOVE (74ull << 20)
#define WV_GPU_SHARED_GRAIN 128u
#define WV_GPU_SHARED_WINDOW (16u << 20)
#define WV_GPU_LOCAL_TOP (16u << 20)
#define WV_GPU_LOCAL_RESERVED 0x240u

/* Where the model puts things in the vm's address range [WV_GLOBAL_BASE, WV_HEAP_END). */
#define WV_GPU_HOME (WV_GLOBAL_BASE + WV_GPU_HOME_BELOW)      /* the first chunk */
#define WV_GPU_PAGES (WV_GPU_HOME + WV_GPU_HOME_ABOVE)        /* the first page after the home region */
#define WV_VM_ARENA (WV_GLOBAL_BASE + (1ull << 42))           /* module variables, device malloc, the vm's own */

/* A range the GPU maps: the home region, a chunk or a large allocation's pages, a range of the vm arena. */
typedef struct wv_span {
  uint64_t base, size;
} wv_span;

/* A chunk of small cudaMalloc allocations: WV_GPU_CHUNK bytes of host memory the vm owns. */
typedef struct wv_chunk {
  uint64_t base;
  uint8_t *mem;
  uint64_t used[WV_GPU_CHUNK / WV_GPU_ALLOC_GRAIN / 64]; /* a bit per grain that an allocation holds */
  uint64_t dirty;      /* bytes from here on never held an allocation (still zero) */
  uint32_t live, nfree; /* allocations in it, free grains */
} wv_chunk;

typedef struct wv_heap {
  wv_alloc *v;         /* sorted by base, live entries disjoint */
  uint32_t n, cap;
  uint32_t nfreed;     /* WV_ALLOC_FREED entries in v: freeing is O(log n), compaction amortised */
  uint64_t bytes_live;
  wv_span *maps;       /* mapped ranges, sorted by base, disjoint (they may touch) */
  uint32_t nmaps, mapcap;
  wv_chunk *chunks;    /* cudaMalloc's chunks, sorted by base */
  uint32_t nchunks, chunkcap;
  uint64_t next;       /* the vm arena: next unused address (the start of the next mapping) */
  uint64_t chunk_next, chunk_end; /* the vm arena's chunk small allocations go into: [chunk_next, chunk_end) free */
  uint64_t frees;      /* allocations freed so far: what a lookup found stays valid while this stays (wv_gwin) */
} wv_heap;

/* The vm's own allocations lie in [WV_GLOBAL_BASE, WV_HEAP_END): 8 TiB between where Linux puts the
 * program's heap (0x55..) and its mmap area (0x7e../0x7f..), so host memory is almost never there and can
 * be identity-mapped. */
#define WV_HEAP_END (0x0000700000000000ull + (1ull << 43))

/* n bytes (at least 1) rounded up to align (a power of two), zeroed, at an address aligned to align; free()
 * frees them (heap.c). */
void *wv_zalloc_aligned(size_t n, size_t align);

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
/* Host pointer for [addr, addr+size) if it lies inside one allocation, else NULL. Reads the table only: any
 * number of threads may look up at once while none allocates or frees. */
uint8_t *wv_heap_lookup(const wv_heap *h, uint64_t addr, uint64_t size);
/* The bytes a GPU would read at [addr, addr+size): 0 and out filled (bytes of live allocations,
 * 0 elsewhere) when every byte lies in a mapping, else -1. Never touches memory outside the vm's
 * own allocations. */
int wv_heap_read_mapped(wv_heap *h, uint64_t addr, uint64_t size, uint8_t *out);
/* The live allocation nearest to addr (containing it, or the closest before or after), or NULL. */
const wv_alloc *wv_heap_nearest(wv_heap *h, uint64_t addr);

#endif
