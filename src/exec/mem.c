/*
 * mem.c — memory of a running kernel: the global heap (allocation table), and translation of
 * every lane's access in any state space (global, const, shared, local, param, generic) to a
 * host pointer after bounds and alignment checks. A failed check becomes one device-fault
 * report in the launch context, except a load the GPU would let pass (mem.h, the GPU's memory map):
 * it reads the bytes the GPU would read, produced in a scratch buffer, and is counted as an invalid
 * read (a fault under --check memcheck). Guest code never touches host memory outside the vm's own
 * buffers.
 */
#include "exec/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec.h"
#include "rt/vm_internal.h"

void wv_heap_init(wv_heap *h) {
  memset(h, 0, sizeof *h);
  h->next = WV_GLOBAL_BASE;
}

static int owned(const wv_alloc *a) { return a->kind != WV_ALLOC_HOSTMAP && a->kind != WV_ALLOC_FREED; }

void wv_heap_fini(wv_heap *h) {
  for (uint32_t i = 0; i < h->n; i++)
    if (owned(&h->v[i])) free(h->v[i].host);
  free(h->v);
  free(h->maps);
  memset(h, 0, sizeof *h);
}

static int find(const wv_heap *h, uint64_t addr) {
  uint32_t lo = 0, hi = h->n;
  while (lo < hi) { /* last allocation with base <= addr */
    uint32_t mid = (lo + hi) / 2;
    if (h->v[mid].base <= addr) lo = mid + 1;
    else hi = mid;
  }
  return (int)lo - 1;
}

/* Insert a at its sorted position (the caller checked that it overlaps nothing). */
static int insert(wv_heap *h, wv_alloc a) {
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
  h->last = at;
  h->bytes_live += a.size;
  return 0;
}

/* ---- the mapped ranges (mem.h: the GPU's memory map) ---- */

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); } /* a: a power of two */

static int span_find(const wv_heap *h, uint64_t addr) { /* last span with base <= addr */
  uint32_t lo = 0, hi = h->nmaps;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (h->maps[mid].base <= addr) lo = mid + 1;
    else hi = mid;
  }
  return (int)lo - 1;
}

/* Maps a fresh range of at least size bytes at a page boundary aligned to align, after everything mapped
 * so far (so the list stays sorted): its base, or 0 when the vm's address range or host memory is used up. */
static uint64_t span_new(wv_heap *h, uint64_t size, uint64_t align) {
  uint64_t base = round_up(h->next, align > WV_GPU_PAGE ? align : WV_GPU_PAGE), len = round_up(size, WV_GPU_PAGE);
  if (base + len + WV_GPU_MAP_GAP > WV_HEAP_END) return 0;
  if (h->nmaps == h->mapcap) {
    uint32_t nc = h->mapcap ? h->mapcap * 2 : 16;
    wv_span *nm = realloc(h->maps, (size_t)nc * sizeof *nm);
    if (!nm) return 0;
    h->maps = nm;
    h->mapcap = nc;
  }
  h->maps[h->nmaps++] = (wv_span){base, len};
  h->next = base + len + WV_GPU_MAP_GAP;
  return base;
}

static void span_remove(wv_heap *h, uint64_t base) {
  int i = span_find(h, base);
  if (i < 0 || h->maps[i].base != base) return;
  memmove(&h->maps[i], &h->maps[i + 1], (size_t)(h->nmaps - (uint32_t)i - 1) * sizeof h->maps[0]);
  h->nmaps--;
}

/* Where an allocation of size bytes goes: the current chunk if it fits there, else a new chunk; a large
 * one gets a mapping of its own. 0 when the vm's range is used up. */
static uint64_t place(wv_heap *h, uint64_t size, uint64_t align) {
  if (size >= WV_GPU_LARGE) return span_new(h, size, align);
  uint64_t base = round_up(h->chunk_next, align);
  if (!h->chunk_end || base + size > h->chunk_end) {
    if (!(base = span_new(h, WV_GPU_CHUNK, align))) return 0;
    h->chunk_end = base + WV_GPU_CHUNK;
  }
  h->chunk_next = base + round_up(size, WV_GPU_ALLOC_GRAIN);
  return base;
}

int wv_heap_alloc_kind(wv_heap *h, uint64_t size, uint32_t align, wv_alloc_kind kind, uint64_t *out) {
  if (size == 0) size = 1;
  if (size > ((uint64_t)1 << 40) || (align & (align - 1))) return -1;
  if (align < WV_GPU_ALLOC_GRAIN) align = WV_GPU_ALLOC_GRAIN;
  uint8_t *host = calloc(1, (size_t)size);
  if (!host) return -1;
  uint64_t base = place(h, size, align);
  if (!base || insert(h, (wv_alloc){base, size, host, (uint8_t)kind})) {
    if (base && size >= WV_GPU_LARGE) span_remove(h, base);
    free(host);
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
  if (insert(h, (wv_alloc){lo, size, (uint8_t *)host, (uint8_t)kind})) {
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
 * so a kernel freeing many device-malloc allocations does not shift the table each time. A large
 * allocation's mapping goes with it; a chunk stays mapped. */
int wv_heap_free(wv_heap *h, uint64_t base) {
  wv_alloc *a = wv_heap_find(h, base);
  if (!a) return -1;
  h->bytes_live -= a->size;
  if (a->size >= WV_GPU_LARGE && a->base >= WV_GLOBAL_BASE && a->base < WV_HEAP_END) span_remove(h, base);
  if (owned(a)) free(a->host);
  *a = (wv_alloc){.base = base, .size = 0, .host = NULL, .kind = WV_ALLOC_FREED};
  if (h->last < h->n && &h->v[h->last] == a) h->last = UINT32_MAX; /* the lookup cache never holds a freed entry */
  if (++h->nfreed > 64 && h->nfreed * 2 > h->n) {
    uint32_t j = 0;
    for (uint32_t i = 0; i < h->n; i++)
      if (h->v[i].kind != WV_ALLOC_FREED) h->v[j++] = h->v[i];
    h->n = j;
    h->nfreed = 0;
    h->last = 0;
  }
  return 0;
}

wv_alloc *wv_heap_containing(wv_heap *h, uint64_t addr) {
  int i = find(h, addr);
  return i >= 0 && addr - h->v[i].base < h->v[i].size ? &h->v[i] : NULL;
}

uint8_t *wv_heap_lookup(wv_heap *h, uint64_t addr, uint64_t size) {
  if (h->last < h->n) {
    wv_alloc *a = &h->v[h->last];
    if (addr >= a->base && addr - a->base <= a->size && size <= a->size - (addr - a->base))
      return a->host + (addr - a->base);
  }
  int i = find(h, addr);
  if (i < 0) return NULL;
  wv_alloc *a = &h->v[i];
  if (!a->host || addr - a->base > a->size || size > a->size - (addr - a->base)) return NULL; /* !host: freed */
  h->last = (uint32_t)i;
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
  int i = find(h, addr);
  for (uint32_t j = i < 0 ? 0 : (uint32_t)i; j < h->n && h->v[j].base < end; j++) {
    const wv_alloc *a = &h->v[j];
    uint64_t lo = a->base > addr ? a->base : addr, hi = a->base + a->size < end ? a->base + a->size : end;
    if (a->host && lo < hi) memcpy(out + (lo - addr), a->host + (lo - a->base), (size_t)(hi - lo));
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

int wv_mem_classify(uint64_t g, uint64_t *sa) {
  if (g >= WV_SHARED_WINDOW && g - WV_SHARED_WINDOW < WV_WINDOW_SIZE) {
    *sa = g - WV_SHARED_WINDOW;
    return WV_SPACE_SHARED;
  }
  if (g >= WV_PARAM_WINDOW && g - WV_PARAM_WINDOW < WV_WINDOW_SIZE) { /* the kernel's parameters */
    *sa = g - WV_PARAM_WINDOW;
    return WV_SPACE_KPARAM;
  }
  if (g >= WV_LOCAL_WINDOW && g - WV_LOCAL_WINDOW < WV_WINDOW_SIZE) {
    *sa = g - WV_LOCAL_WINDOW;
    return WV_SPACE_LOCAL;
  }
  *sa = g;
  return WV_SPACE_GLOBAL;
}

int wv_fault_set(wv_exec *x, wv_status st, int lane, int has_addr, uint64_t addr, const char *fmt, ...) {
  if (x->fault.status != WV_OK) return 1; /* keep the first */
  x->fault.status = st;
  x->fault.lane = lane;
  x->fault.has_addr = has_addr;
  x->fault.addr = addr;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(x->fault.what, sizeof x->fault.what, fmt, ap);
  va_end(ap);
  return 1;
}

static const char *space_name(int s) {
  switch (s) {
  case WV_SPACE_GLOBAL: return "global";
  case WV_SPACE_SHARED: return "shared";
  case WV_SPACE_LOCAL: return "local";
  case WV_SPACE_CONST: return "const";
  case WV_SPACE_KPARAM: case WV_SPACE_FPARAM: return "param";
  default: return "generic";
  }
}

/* A buffer for the bytes of one over-read (valid until the next translation). */
static uint8_t *scratch(wv_exec *x, uint64_t size) {
  if (size <= sizeof x->scratch_small) return x->scratch_small;
  if (size > x->scratch_cap) {
    uint8_t *n = realloc(x->scratch, (size_t)size);
    if (!n) return NULL;
    x->scratch = n;
    x->scratch_cap = size;
  }
  return x->scratch;
}

/* The bytes a GPU reads at [sa, sa+size) of space sp outside what the program owns but inside what the
 * GPU maps (mem.h: the GPU's memory map), in a scratch buffer; NULL if it would fault there. */
static uint8_t *overread(wv_exec *x, int sp, uint64_t sa, uint32_t size, int lane) {
  uint8_t *buf = NULL;
  switch (sp) {
  case WV_SPACE_GLOBAL:
  case WV_SPACE_CONST:
    if ((buf = scratch(x, size)) && wv_heap_read_mapped(&x->vm->heap, sa, size, buf)) buf = NULL;
    break;
  case WV_SPACE_SHARED: { /* the CTA's shared memory, rounded up to the allocation grain */
    uint64_t have = x->cta->shared_size, lim = (have + WV_GPU_SHARED_GRAIN - 1) / WV_GPU_SHARED_GRAIN * WV_GPU_SHARED_GRAIN;
    if (sa >= lim || size > lim - sa || !(buf = scratch(x, size))) break;
    uint64_t n = sa < have ? (have - sa < size ? have - sa : size) : 0;
    memcpy(buf, x->cta->shared + sa, (size_t)n);
    memset(buf + n, 0, (size_t)(size - n));
    break;
  }
  case WV_SPACE_LOCAL: { /* past the deepest frame: what earlier calls left in the thread's stack, else 0 */
    const wv_warp *w = x->warp;
    uint64_t lim = (uint64_t)w->local_top + WV_GPU_LOCAL_SLACK;
    if (sa >= lim || size > lim - sa || !(buf = scratch(x, size))) break;
    uint64_t n = sa < w->local_cap ? (w->local_cap - sa < size ? w->local_cap - sa : size) : 0;
    memcpy(buf, w->local + (size_t)lane * w->local_cap + sa, (size_t)n);
    memset(buf + n, 0, (size_t)(size - n));
    break;
  }
  default: break;
  }
  return buf;
}

/* " (4 bytes after the nearest allocation at 0x... of size 400 bytes)": where a bad access of space sp lies. */
static void describe(wv_exec *x, int sp, uint64_t sa, uint32_t size, char *buf, size_t cap) {
  buf[0] = 0;
  if (sp == WV_SPACE_GLOBAL || sp == WV_SPACE_CONST) { /* in compute-sanitizer's words */
    const wv_alloc *a = wv_heap_nearest(&x->vm->heap, sa);
    if (!a) return;
    uint64_t end = a->base + a->size;
    if (sa >= a->base && sa < end)
      snprintf(buf, cap, " (%llu of them after the nearest allocation at 0x%llx of size %llu bytes)",
               (unsigned long long)(sa + size - end), (unsigned long long)a->base, (unsigned long long)a->size);
    else
      snprintf(buf, cap, " (%llu bytes %s the nearest allocation at 0x%llx of size %llu bytes)",
               (unsigned long long)(sa >= end ? sa - end : a->base - sa), sa >= end ? "after" : "before",
               (unsigned long long)a->base, (unsigned long long)a->size);
  } else if (sp == WV_SPACE_SHARED && sa < ((uint64_t)1 << 32)) {
    uint32_t have = x->cta->shared_size;
    if (sa >= have) snprintf(buf, cap, " (%llu bytes after the block's %u bytes of shared memory)", (unsigned long long)(sa - have), have);
  } else if (sp == WV_SPACE_LOCAL && sa < ((uint64_t)1 << 32)) {
    uint32_t have = x->warp->local_top;
    if (sa >= have) snprintf(buf, cap, " (%llu bytes after the thread's %u bytes of local memory)", (unsigned long long)(sa - have), have);
  }
}

/* Count an invalid read and, for the first few, keep its record. */
static void note_invalid_read(wv_exec *x, int sp, uint64_t addr, uint64_t sa, uint32_t size, int lane) {
  char *rec = wv_diag_add(x->vm, WV_DIAG_INVALID_READ);
  if (!rec) return;
  size_t k = (size_t)snprintf(rec, WV_DIAG_TEXT, "%s load of %u bytes at address 0x%llx", space_name(sp), size,
                              (unsigned long long)addr);
  if (k < WV_DIAG_TEXT) describe(x, sp, sa, size, rec + k, WV_DIAG_TEXT - k);
  k = strlen(rec);
  if (k + 1 < WV_DIAG_TEXT) {
    rec[k++] = ' ';
    wv_exec_where(x, x->warp, lane, x->fn, x->cur_pc, rec + k, WV_DIAG_TEXT - k);
  }
}

uint8_t *wv_mem_xlate(wv_exec *x, int space, uint64_t addr, uint32_t size, uint32_t align, int lane, int access) {
  uint64_t sa = addr;
  int sp = space, write = access == WV_MEM_STORE, generic = space == WV_SPACE_GENERIC;
  if (generic) sp = wv_mem_classify(addr, &sa);
  const char *rw = write ? "store" : "load";
  if (align > 1 && (sa & (align - 1))) {
    wv_fault_set(x, WV_ERR_MISALIGNED, lane, 1, addr, "misaligned %s %s of %u bytes", space_name(sp), rw, size);
    return NULL;
  }
  uint8_t *p = NULL;
  switch (sp) {
  case WV_SPACE_GLOBAL:
  case WV_SPACE_CONST:
    /* A kernel's store into a .const variable through its generic or global address goes through, as on
     * an H100 (the constant changes: later ld.const, other loads and the host see it; compute-sanitizer
     * reports nothing). Only st.const itself is refused, when decoding. */
    p = wv_heap_lookup(&x->vm->heap, sa, size);
    if (p && write && sp == WV_SPACE_CONST) p = NULL;
    break;
  case WV_SPACE_SHARED:
    if (sa <= x->cta->shared_size && size <= x->cta->shared_size - sa) p = x->cta->shared + sa;
    break;
  case WV_SPACE_LOCAL:
    if (sa <= x->warp->local_top && size <= x->warp->local_top - sa)
      p = x->warp->local + (size_t)lane * x->warp->local_cap + sa;
    break;
  case WV_SPACE_KPARAM:
    if (sa <= x->kparam_size && size <= x->kparam_size - sa) /* a generic access: the parameters' copy in memory */
      p = generic ? x->kparams_mem + sa : write ? NULL : (uint8_t *)x->kparams + sa;
    break;
  case WV_SPACE_FPARAM: {
    uint32_t ps = x->fn->param_size;
    if (sa <= ps && size <= ps - sa) p = x->frame->params + (size_t)lane * ps + sa;
    break;
  }
  default: break;
  }
  if (p || access == WV_MEM_PROBE) return p;
  /* Not the program's memory. A load the GPU lets pass reads what it would read there, and counts as an
   * invalid read — unless memcheck makes it the fault it is under compute-sanitizer. */
  if (!write && (p = overread(x, sp, sa, size, lane)) != NULL) {
    if (access == WV_MEM_LOAD_QUIET) return p;
    if (!(x->vm->cfg.checks & WV_CHECK_MEMCHECK)) {
      note_invalid_read(x, sp, addr, sa, size, lane);
      return p;
    }
    p = NULL;
  }
  char near[192];
  describe(x, sp, sa, size, near, sizeof near);
  wv_fault_set(x, WV_ERR_FAULT, lane, 1, addr, "out-of-bounds %s %s of %u bytes%s", space_name(sp), rw, size, near);
  return NULL;
}

int wv_mem_read_cstr(wv_exec *x, uint64_t g, int lane, char *buf, size_t cap) {
  size_t n = 0;
  wv_fault saved = x->fault;
  while (n + 1 < cap) {
    uint8_t *p = wv_mem_xlate(x, WV_SPACE_GENERIC, g + n, 1, 1, lane, WV_MEM_LOAD);
    if (!p) { x->fault = saved; buf[n] = 0; return -1; }
    if (!*p) break;
    buf[n++] = (char)*p;
  }
  buf[n] = 0;
  return (int)n;
}
