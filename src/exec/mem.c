/*
 * mem.c — memory of a running kernel: the global heap (allocation table), and translation of
 * every lane's access in any state space (global, const, shared, local, param, generic) to a
 * host pointer after bounds and alignment checks. A failed check becomes one device-fault
 * report in the launch context; guest code can never touch host memory outside its allocations.
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

int wv_heap_alloc_kind(wv_heap *h, uint64_t size, uint32_t align, wv_alloc_kind kind, uint64_t *out) {
  if (size == 0) size = 1;
  if (size > ((uint64_t)1 << 40)) return -1;
  if (align < 256) align = 256;
  uint64_t base = (h->next + align - 1) & ~(uint64_t)(align - 1);
  if (base + size + 256 > WV_HEAP_END) return -1; /* the vm's address range is used up */
  uint8_t *host = calloc(1, (size_t)size);
  if (!host) return -1;
  if (insert(h, (wv_alloc){base, size, host, (uint8_t)kind})) {
    free(host);
    return -1;
  }
  h->next = base + size + 256; /* a gap: running off the end never lands in a neighbour */
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
 * so a kernel freeing many device-malloc allocations does not shift the table each time. */
int wv_heap_free(wv_heap *h, uint64_t base) {
  wv_alloc *a = wv_heap_find(h, base);
  if (!a) return -1;
  h->bytes_live -= a->size;
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

int wv_mem_classify(uint64_t g, uint64_t *sa) {
  if (g >= WV_SHARED_WINDOW && g - WV_SHARED_WINDOW < WV_WINDOW_SIZE) {
    *sa = g - WV_SHARED_WINDOW;
    return WV_SPACE_SHARED;
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

uint8_t *wv_mem_xlate(wv_exec *x, int space, uint64_t addr, uint32_t size, uint32_t align, int lane,
                      int write) {
  uint64_t sa = addr;
  int sp = space;
  if (sp == WV_SPACE_GENERIC) sp = wv_mem_classify(addr, &sa);
  const char *rw = write ? "store" : "load";
  if (align > 1 && (sa & (align - 1))) {
    wv_fault_set(x, WV_ERR_MISALIGNED, lane, 1, addr, "misaligned %s %s of %u bytes", space_name(sp), rw, size);
    return NULL;
  }
  uint8_t *p = NULL;
  switch (sp) {
  case WV_SPACE_GLOBAL:
  case WV_SPACE_CONST:
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
    if (!write && sa <= x->kparam_size && size <= x->kparam_size - sa) p = (uint8_t *)x->kparams + sa;
    break;
  case WV_SPACE_FPARAM: {
    uint32_t ps = x->fn->param_size;
    if (sa <= ps && size <= ps - sa) p = x->frame->params + (size_t)lane * ps + sa;
    break;
  }
  default: break;
  }
  if (!p)
    wv_fault_set(x, WV_ERR_FAULT, lane, 1, addr, "out-of-bounds %s %s of %u bytes", space_name(sp), rw, size);
  return p;
}

int wv_mem_read_cstr(wv_exec *x, uint64_t g, int lane, char *buf, size_t cap) {
  size_t n = 0;
  wv_fault saved = x->fault;
  while (n + 1 < cap) {
    uint8_t *p = wv_mem_xlate(x, WV_SPACE_GENERIC, g + n, 1, 1, lane, 0);
    if (!p) { x->fault = saved; buf[n] = 0; return -1; }
    if (!*p) break;
    buf[n++] = (char)*p;
  }
  buf[n] = 0;
  return (int)n;
}
