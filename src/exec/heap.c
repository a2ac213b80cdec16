/*
 * heap.c — device global memory of one vm (mem.h): the allocation table sorted by device address, and where
 * allocations go. cudaMalloc's (WV_ALLOC_DEVICE) are laid out as the GPU lays them out — chunks of small
 * ones (first fit, host memory the chunk owns, freed bytes kept until reused), large ones on pages, the home
 * region — and every range the GPU would map is a span, so that wv_heap_read_mapped can say what a read
 * outside every allocation returns. Module variables, device malloc and the vm's own allocations go to a
 * separate arena. Identity-mapped host memory is registered here too (wv_heap_map).
 */
#include "exec/mem.h"

#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); } /* a: a power of two */

/* The index of the last of n records (each `stride` bytes, sorted by a uint64_t `base` as their first member)
 * whose base is <= addr, or -1: the lookup of allocations, spans and chunks. */
static int last_le(const void *v, size_t stride, uint32_t n, uint64_t addr) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    uint64_t base;
    memcpy(&base, (const char *)v + (size_t)mid * stride, sizeof base);
    if (base <= addr) lo = mid + 1;
    else hi = mid;
  }
  return (int)lo - 1;
}
_Static_assert(offsetof(wv_alloc, base) == 0 && offsetof(wv_span, base) == 0 && offsetof(wv_chunk, base) == 0,
               "last_le reads base as the first member");

/* ---- the mapped ranges (mem.h: the GPU's memory map) ---- */

static int span_find(const wv_heap *h, uint64_t addr) { /* last span with base <= addr */
  return last_le(h->maps, sizeof *h->maps, h->nmaps, addr);
}

/* Maps [base, base+len) (the caller checked that it meets no other span). */
static int span_add(wv_heap *h, uint64_t base, uint64_t len) {
  if (h->nmaps == h->mapcap) {
    uint32_t nc = h->mapcap ? h->mapcap * 2 : 16;
    wv_span *nm = realloc(h->maps, (size_t)nc * sizeof *nm);
    if (!nm) return -1;
    h->maps = nm;
    h->mapcap = nc;
  }
  uint32_t at = (uint32_t)(span_find(h, base) + 1);
  memmove(&h->maps[at + 1], &h->maps[at], (size_t)(h->nmaps - at) * sizeof h->maps[0]);
  h->maps[at] = (wv_span){base, len};
  h->nmaps++;
  return 0;
}

static void span_remove(wv_heap *h, uint64_t base) {
  int i = span_find(h, base);
  if (i < 0 || h->maps[i].base != base) return;
  memmove(&h->maps[i], &h->maps[i + 1], (size_t)(h->nmaps - (uint32_t)i - 1) * sizeof h->maps[0]);
  h->nmaps--;
}

/* Host memory of device bytes, zeroed, aligned as the GPU's allocations are: a warp's 128 consecutive bytes
 * are whole cache lines of the host too. (glibc gives a block it maps for itself a page + 16 bytes, so every
 * such row would straddle two lines: the JIT's row loads ran at half speed in processes where the big buffers
 * were mapped, and at full speed where glibc's moving threshold put them in its heap.) A large block is a
 * mapping of its own, its pages zeroed by the kernel at first touch. */
#define HOST_MAPPED (64u << 10)
/* (mem.h) */
void *wv_zalloc_aligned(size_t n, size_t align) {
  n = (size_t)round_up(n ? n : 1, align);
  void *p = aligned_alloc(align, n);
  if (p) memset(p, 0, n);
  return p;
}

/* A block of HUGE_MIN bytes or more is placed on a 2 MiB boundary and asks for transparent huge pages (where the
 * system gives them on request, THP "madvise", as Debian's default): its first touch — a program's first copy to
 * the device — then takes one fault per 2 MiB instead of one per 4 KiB page. bench/omp's pathfinder (480 MB of
 * device memory) spent 40% of its time in the kernel's page faults and clearing. */
#define HUGE_MIN (8u << 20)
#define HUGE_PAGE ((size_t)2 << 20)
/* A mapped block has its pages made (zeroed, writable) when it is allocated, as a GPU's cudaMalloc commits its
 * memory: the program's first copy to the device then runs at memcpy's speed instead of taking the kernel's faults
 * and clearing (bench/omp's programs start their timers after cudaMalloc, before the first copy; nw's 16 MB score
 * matrix cost 17% of its samples there). Not a block larger than POPULATE_MAX, which a program may touch only in
 * part, nor one past a quarter of the host's memory in live allocations: those get their pages at first touch, so
 * that allocating more than the host holds, and using little of it, still works. (Advice only: a kernel before
 * Linux 5.14 ignores it.) */
#define POPULATE_MAX ((uint64_t)1 << 30)
static int populate_ok(const wv_heap *h, uint64_t size) {
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  return size <= POPULATE_MAX && pages > 0 && psz > 0 && h->bytes_live + size <= (uint64_t)pages * (uint64_t)psz / 4;
}
static uint8_t *host_zalloc(const wv_heap *h, uint64_t size) {
  if (size < HOST_MAPPED) return wv_zalloc_aligned((size_t)size, WV_GPU_ALLOC_GRAIN);
  size_t extra = size >= HUGE_MIN ? HUGE_PAGE : 0; /* (room to move the start to a 2 MiB boundary) */
  size_t n = (size_t)round_up(size, (uint64_t)sysconf(_SC_PAGESIZE)), span = n + extra;
  uint8_t *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  size_t head = extra ? (size_t)(-(uintptr_t)p & (HUGE_PAGE - 1)) : 0;
  if (head) munmap(p, head);
  if (span - head - n) munmap(p + head + n, span - head - n);
#ifdef MADV_HUGEPAGE
  if (extra) madvise(p + head, n, MADV_HUGEPAGE); /* (advice only: where it fails, the block is the same, in small pages) */
#endif
#ifdef MADV_POPULATE_WRITE
  if (populate_ok(h, n)) madvise(p + head, n, MADV_POPULATE_WRITE);
#else
  (void)h;
#endif
  return p + head;
}
static void host_free(uint8_t *p, uint64_t size) {
  if (p && size >= HOST_MAPPED) munmap(p, (size_t)size);
  else free(p);
}

void wv_heap_init(wv_heap *h) {
  memset(h, 0, sizeof *h);
  h->next = WV_VM_ARENA;
}

static int owned(const wv_alloc *a) {
  return a->kind != WV_ALLOC_HOSTMAP && a->kind != WV_ALLOC_FREED && !a->chunked;
}

void wv_heap_fini(wv_heap *h) {
  for (uint32_t i = 0; i < h->n; i++)
    if (owned(&h->v[i])) host_free(h->v[i].host, h->v[i].size);
  for (uint32_t i = 0; i < h->nchunks; i++) host_free(h->chunks[i].mem, WV_GPU_CHUNK);
  free(h->v);
  free(h->maps);
  free(h->chunks);
  memset(h, 0, sizeof *h);
}

static int find(const wv_heap *h, uint64_t addr) { /* last allocation with base <= addr */
  return last_le(h->v, sizeof *h->v, h->n, addr);
}

/* Insert a at its sorted position (the caller checked that it overlaps no live allocation). Freed entries
 * inside a's range go (cudaMalloc reuses addresses), so that no lookup finds one in front of a. */
static int insert(wv_heap *h, wv_alloc a) {
  uint32_t lo = (uint32_t)(find(h, a.base) + 1), hi = lo;
  while (lo > 0 && h->v[lo - 1].base == a.base && h->v[lo - 1].kind == WV_ALLOC_FREED) lo--;
  while (hi < h->n && h->v[hi].base < a.base + a.size && h->v[hi].kind == WV_ALLOC_FREED) hi++;
  if (hi > lo) {
    memmove(&h->v[lo], &h->v[hi], (size_t)(h->n - hi) * sizeof h->v[0]);
    h->n -= hi - lo;
    h->nfreed -= hi - lo;
  }
  if (h->n == h->cap) {
    uint32_t nc = h->cap ? h->cap * 2 : 64;
    if (nc < h->cap) return -1;
    wv_alloc *nv = realloc(h->v, (size_t)nc * sizeof *nv);
    if (!nv) return -1;
    h->v = nv;
    h->cap = nc;
  }
  uint32_t at = (uint32_t)(find(h, a.base) + 1);
  memmove(&h->v[at + 1], &h->v[at], (size_t)(h->n - at) * sizeof h->v[0]);
  h->v[at] = a;
  h->n++;
  h->bytes_live += a.size;
  return 0;
}

/* ---- cudaMalloc's layout: the home region, chunks, pages (mem.h) ---- */

#define GRAINS (WV_GPU_CHUNK / WV_GPU_ALLOC_GRAIN)

/* The home region is mapped from the vm's first cudaMalloc on. */
static int home_map(wv_heap *h) {
  int i = span_find(h, WV_GLOBAL_BASE);
  if (i >= 0 && h->maps[i].base == WV_GLOBAL_BASE) return 0;
  return span_add(h, WV_GLOBAL_BASE, WV_GPU_PAGES - WV_GLOBAL_BASE);
}

/* The first free len bytes (aligned to align, a multiple of WV_GPU_PAGE) of the pages after the home
 * region, or 0 when the range is used up. */
static uint64_t pages_fit(const wv_heap *h, uint64_t len, uint64_t align) {
  uint64_t at = round_up(WV_GPU_PAGES, align);
  for (uint32_t j = (uint32_t)(span_find(h, WV_GPU_PAGES - 1) + 1); j < h->nmaps && h->maps[j].base < WV_VM_ARENA; j++) {
    if (h->maps[j].base >= at + len) break;
    if (h->maps[j].base + h->maps[j].size > at) at = round_up(h->maps[j].base + h->maps[j].size, align);
  }
  return at + len <= WV_VM_ARENA ? at : 0;
}

static int chunk_find(const wv_heap *h, uint64_t addr) { /* last chunk with base <= addr */
  return last_le(h->chunks, sizeof *h->chunks, h->nchunks, addr);
}

static int bit(const wv_chunk *c, uint32_t g) { return (int)(c->used[g / 64] >> (g % 64) & 1); }

static void set_bits(wv_chunk *c, uint32_t g, uint32_t n, int on) {
  for (uint32_t k = g; k < g + n; k++) {
    if (on) c->used[k / 64] |= 1ull << (k % 64);
    else c->used[k / 64] &= ~(1ull << (k % 64));
  }
}

/* The first run of n free grains starting at a multiple of step, or -1. */
static int64_t chunk_fit(const wv_chunk *c, uint32_t n, uint32_t step) {
  if (c->nfree < n) return -1;
  for (uint32_t g = 0; g + n <= GRAINS;) {
    uint32_t k = 0;
    while (k < n && !bit(c, g + k)) k++;
    if (k == n) return g;
    g = (uint32_t)round_up(g + k + 1, step);
  }
  return -1;
}

/* A new chunk: the first one at the home region's start, others on free pages. NULL: out of memory or
 * address range. */
static wv_chunk *chunk_new(wv_heap *h) {
  uint64_t base = WV_GPU_HOME;
  int i = chunk_find(h, base);
  if (i >= 0 && h->chunks[i].base == base) {
    if (!(base = pages_fit(h, WV_GPU_CHUNK, WV_GPU_PAGE))) return NULL;
  }
  if (h->nchunks == h->chunkcap) {
    uint32_t nc = h->chunkcap ? h->chunkcap * 2 : 8;
    wv_chunk *n = realloc(h->chunks, (size_t)nc * sizeof *n);
    if (!n) return NULL;
    h->chunks = n;
    h->chunkcap = nc;
  }
  uint8_t *mem = host_zalloc(h, WV_GPU_CHUNK);
  if (!mem) return NULL;
  if (base != WV_GPU_HOME && span_add(h, base, WV_GPU_CHUNK)) {
    host_free(mem, WV_GPU_CHUNK);
    return NULL;
  }
  uint32_t at = (uint32_t)(chunk_find(h, base) + 1);
  memmove(&h->chunks[at + 1], &h->chunks[at], (size_t)(h->nchunks - at) * sizeof h->chunks[0]);
  h->nchunks++;
  wv_chunk *c = &h->chunks[at];
  memset(c, 0, sizeof *c);
  c->base = base;
  c->mem = mem;
  c->nfree = (uint32_t)GRAINS;
  return c;
}

/* A small cudaMalloc allocation: its address and host memory (zeroed), or 0. */
static uint64_t small_alloc(wv_heap *h, uint64_t size, uint64_t align, uint8_t **host) {
  uint64_t len = round_up(size, WV_GPU_ALLOC_GRAIN);
  uint32_t n = (uint32_t)(len / WV_GPU_ALLOC_GRAIN), step = align > WV_GPU_ALLOC_GRAIN ? (uint32_t)(align / WV_GPU_ALLOC_GRAIN) : 1;
  wv_chunk *c = NULL;
  int64_t g = -1;
  for (uint32_t i = 0; i < h->nchunks && g < 0; i++)
    if ((g = chunk_fit(&h->chunks[i], n, step)) >= 0) c = &h->chunks[i];
  if (!c) {
    if (step > GRAINS || !(c = chunk_new(h))) return 0;
    g = 0;
  }
  uint64_t off = (uint64_t)g * WV_GPU_ALLOC_GRAIN;
  set_bits(c, (uint32_t)g, n, 1);
  c->nfree -= n;
  c->live++;
  if (off < c->dirty) memset(c->mem + off, 0, (size_t)(c->dirty - off < len ? c->dirty - off : len));
  if (off + len > c->dirty) c->dirty = off + len;
  *host = c->mem + off;
  return c->base + off;
}

/* Gives a small allocation's grains back; a chunk that holds none any more goes (its pages unmapped). */
static void small_free(wv_heap *h, uint64_t base, uint64_t size) {
  int i = chunk_find(h, base);
  if (i < 0 || base - h->chunks[i].base >= WV_GPU_CHUNK) return;
  wv_chunk *c = &h->chunks[i];
  uint32_t n = (uint32_t)(round_up(size, WV_GPU_ALLOC_GRAIN) / WV_GPU_ALLOC_GRAIN);
  set_bits(c, (uint32_t)((base - c->base) / WV_GPU_ALLOC_GRAIN), n, 0);
  c->nfree += n;
  if (--c->live) return;
  if (c->base != WV_GPU_HOME) span_remove(h, c->base);
  host_free(c->mem, WV_GPU_CHUNK);
  memmove(&h->chunks[i], &h->chunks[i + 1], (size_t)(h->nchunks - (uint32_t)i - 1) * sizeof h->chunks[0]);
  h->nchunks--;
}

/* Where a cudaMalloc allocation goes (mem.h), with its host memory; 0 when memory or addresses are out. */
static uint64_t device_place(wv_heap *h, uint64_t size, uint64_t align, uint8_t **host, uint8_t *chunked) {
  if (home_map(h)) return 0;
  if (round_up(size, WV_GPU_ALLOC_GRAIN) < WV_GPU_CHUNK && align < WV_GPU_CHUNK) {
    *chunked = 1;
    return small_alloc(h, size, align, host);
  }
  uint64_t len = round_up(size, WV_GPU_PAGE), base = pages_fit(h, len, align > WV_GPU_PAGE ? align : WV_GPU_PAGE);
  if (!base || !(*host = host_zalloc(h, size))) return 0;
  if (span_add(h, base, len)) {
    host_free(*host, size);
    return 0;
  }
  return base;
}

/* ---- the vm arena: module variables, device malloc, the vm's own ---- */

#define VM_LARGE (1ull << 20) /* from this size on, an allocation of the vm arena gets pages of its own */
#define VM_GAP (2ull << 20)   /* unmapped bytes after each mapping of the vm arena */

/* Maps a fresh range of at least size bytes at a page boundary aligned to align, after everything mapped
 * so far; its base, or 0 when the vm's address range or host memory is used up. */
static uint64_t arena_span(wv_heap *h, uint64_t size, uint64_t align) {
  uint64_t base = round_up(h->next, align > WV_GPU_PAGE ? align : WV_GPU_PAGE), len = round_up(size, WV_GPU_PAGE);
  if (base + len + VM_GAP > WV_HEAP_END || span_add(h, base, len)) return 0;
  h->next = base + len + VM_GAP;
  return base;
}

/* Where an allocation of the vm arena goes: the current chunk if it fits there, else a new chunk; a large
 * one gets a mapping of its own. Addresses are never reused. 0 when the vm's range is used up. */
static uint64_t arena_place(wv_heap *h, uint64_t size, uint64_t align) {
  if (size >= VM_LARGE) return arena_span(h, size, align);
  uint64_t base = round_up(h->chunk_next, align);
  if (!h->chunk_end || base + size > h->chunk_end) {
    if (!(base = arena_span(h, WV_GPU_CHUNK, align))) return 0;
    h->chunk_end = base + WV_GPU_CHUNK;
  }
  h->chunk_next = base + round_up(size, WV_GPU_ALLOC_GRAIN);
  return base;
}

int wv_heap_alloc_kind(wv_heap *h, uint64_t size, uint32_t align, wv_alloc_kind kind, uint64_t *out) {
  if (size == 0) size = 1;
  if (size > ((uint64_t)1 << 40) || (align & (align - 1))) return -1;
  if (align < WV_GPU_ALLOC_GRAIN) align = WV_GPU_ALLOC_GRAIN;
  uint8_t *host = NULL, chunked = 0;
  uint64_t base;
  if (kind == WV_ALLOC_DEVICE) {
    base = device_place(h, size, align, &host, &chunked);
  } else {
    if (!(host = host_zalloc(h, size))) return -1;
    if (!(base = arena_place(h, size, align))) host_free(host, size);
  }
  if (!base) return -1;
  if (insert(h, (wv_alloc){base, size, host, (uint8_t)kind, chunked})) {
    if (chunked) small_free(h, base, size);
    else {
      if (kind == WV_ALLOC_DEVICE || size >= VM_LARGE) span_remove(h, base);
      host_free(host, size);
    }
    return -1;
  }
  *out = base;
  return 0;
}

int wv_heap_alloc(wv_heap *h, uint64_t size, uint32_t align, uint64_t *out) {
  return wv_heap_alloc_kind(h, size, align, WV_ALLOC_DEVICE, out);
}

/* Does [lo, hi) meet [a, a+n)? */
static int meets(uint64_t lo, uint64_t hi, uint64_t a, uint64_t n) { return lo < a + n && a < hi; }

int wv_heap_map(wv_heap *h, void *host, uint64_t size, wv_alloc_kind kind, const char **why) {
  uint64_t lo = (uint64_t)(uintptr_t)host, hi = lo + size;
  *why = NULL;
  if (!host || !size) *why = "an empty range";
  else if (hi < lo || hi > WV_FUNC_ADDR_TAG) *why = "a range past the end of the address space";
  else if (meets(lo, hi, WV_SHARED_WINDOW, WV_WINDOW_SIZE)) *why = "a range inside the generic shared window";
  else if (meets(lo, hi, WV_LOCAL_WINDOW, WV_WINDOW_SIZE)) *why = "a range inside the generic local window";
  else if (meets(lo, hi, WV_PARAM_WINDOW, WV_WINDOW_SIZE)) *why = "a range inside the generic parameter window";
  else if (meets(lo, hi, WV_GLOBAL_BASE, WV_HEAP_END - WV_GLOBAL_BASE)) *why = "a range inside warpvm's device heap";
  else {
    int i = find(h, hi - 1); /* the last live allocation starting below hi */
    while (i >= 0 && h->v[i].kind == WV_ALLOC_FREED) i--;
    if (i >= 0 && h->v[i].base + h->v[i].size > lo) *why = "a range that overlaps another allocation or mapping";
  }
  if (*why) return -1;
  if (insert(h, (wv_alloc){lo, size, (uint8_t *)host, (uint8_t)kind, 0})) {
    *why = "out of host memory";
    return -1;
  }
  return 0;
}

/* A live entry starting at base (a freed one with the same base may precede it). */
wv_alloc *wv_heap_find(wv_heap *h, uint64_t base) {
  int i = find(h, base);
  return i >= 0 && h->v[i].base == base && h->v[i].kind != WV_ALLOC_FREED ? &h->v[i] : NULL;
}

/* Freed entries keep their place (size 0: no lookup can hit them) until they are half the table,
 * so a kernel freeing many device-malloc allocations does not shift the table each time. A cudaMalloc
 * allocation's grains go back to its chunk (mem.h), a large one's pages go; in the vm arena a large
 * allocation's mapping goes with it, a chunk stays mapped. */
int wv_heap_free(wv_heap *h, uint64_t base) {
  wv_alloc *a = wv_heap_find(h, base);
  if (!a) return -1;
  h->bytes_live -= a->size;
  if (a->chunked) small_free(h, base, a->size);
  else if (a->kind == WV_ALLOC_DEVICE || (a->size >= VM_LARGE && a->base >= WV_GLOBAL_BASE && a->base < WV_HEAP_END))
    span_remove(h, base);
  if (owned(a)) host_free(a->host, a->size);
  *a = (wv_alloc){.base = base, .size = 0, .host = NULL, .kind = WV_ALLOC_FREED};
  h->frees++;
  if (++h->nfreed > 64 && h->nfreed * 2 > h->n) {
    uint32_t j = 0;
    for (uint32_t i = 0; i < h->n; i++)
      if (h->v[i].kind != WV_ALLOC_FREED) h->v[j++] = h->v[i];
    h->n = j;
    h->nfreed = 0;
  }
  return 0;
}

wv_alloc *wv_heap_containing(wv_heap *h, uint64_t addr) {
  int i = find(h, addr);
  return i >= 0 && addr - h->v[i].base < h->v[i].size ? &h->v[i] : NULL;
}

uint8_t *wv_heap_lookup(const wv_heap *h, uint64_t addr, uint64_t size) {
  int i = find(h, addr);
  if (i < 0) return NULL;
  const wv_alloc *a = &h->v[i];
  if (!a->host || addr - a->base > a->size || size > a->size - (addr - a->base)) return NULL; /* !host: freed */
  return a->host + (addr - a->base);
}

int wv_heap_read_mapped(wv_heap *h, uint64_t addr, uint64_t size, uint8_t *out) {
  uint64_t end = addr + size;
  if (end < addr) return -1;
  for (uint64_t p = addr; p < end;) { /* every byte in a mapping (mappings may touch) */
    int i = span_find(h, p);
    if (i < 0 || p - h->maps[i].base >= h->maps[i].size) return -1;
    p = h->maps[i].base + h->maps[i].size;
  }
  memset(out, 0, (size_t)size);
  int c = chunk_find(h, addr); /* a chunk's bytes: its allocations', and freed ones' it still keeps */
  for (uint32_t j = c < 0 ? 0 : (uint32_t)c; j < h->nchunks && h->chunks[j].base < end; j++) {
    const wv_chunk *k = &h->chunks[j];
    uint64_t lo = k->base > addr ? k->base : addr, hi = k->base + WV_GPU_CHUNK < end ? k->base + WV_GPU_CHUNK : end;
    if (lo < hi) memcpy(out + (lo - addr), k->mem + (lo - k->base), (size_t)(hi - lo));
  }
  int i = find(h, addr);
  for (uint32_t j = i < 0 ? 0 : (uint32_t)i; j < h->n && h->v[j].base < end; j++) {
    const wv_alloc *a = &h->v[j];
    uint64_t lo = a->base > addr ? a->base : addr, hi = a->base + a->size < end ? a->base + a->size : end;
    if (a->host && !a->chunked && lo < hi) memcpy(out + (lo - addr), a->host + (lo - a->base), (size_t)(hi - lo));
  }
  return 0;
}

const wv_alloc *wv_heap_nearest(wv_heap *h, uint64_t addr) {
  int i = find(h, addr), j = i + 1;
  while (i >= 0 && h->v[i].kind == WV_ALLOC_FREED) i--;
  while ((uint32_t)j < h->n && h->v[j].kind == WV_ALLOC_FREED) j++;
  const wv_alloc *before = i >= 0 ? &h->v[i] : NULL, *after = (uint32_t)j < h->n ? &h->v[j] : NULL;
  if (!before || !after) return before ? before : after;
  uint64_t end = before->base + before->size;
  return addr < end || addr - end <= after->base - addr ? before : after;
}

