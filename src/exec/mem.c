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

void wv_heap_fini(wv_heap *h) {
  for (uint32_t i = 0; i < h->n; i++) free(h->v[i].host);
  free(h->v);
  memset(h, 0, sizeof *h);
}

int wv_heap_alloc(wv_heap *h, uint64_t size, uint32_t align, uint64_t *out) {
  if (size == 0) size = 1;
  if (size > ((uint64_t)1 << 40)) return -1;
  if (align < 256) align = 256;
  if (h->n == h->cap) {
    uint32_t nc = h->cap ? h->cap * 2 : 64;
    wv_alloc *nv = realloc(h->v, nc * sizeof *nv);
    if (!nv) return -1;
    h->v = nv;
    h->cap = nc;
  }
  uint8_t *host = calloc(1, (size_t)size);
  if (!host) return -1;
  uint64_t base = (h->next + align - 1) & ~(uint64_t)(align - 1);
  h->v[h->n++] = (wv_alloc){base, size, host};
  h->next = base + size + 256; /* a gap: running off the end never lands in a neighbour */
  h->bytes_live += size;
  *out = base;
  return 0;
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

int wv_heap_free(wv_heap *h, uint64_t base) {
  int i = find(h, base);
  if (i < 0 || h->v[i].base != base) return -1;
  h->bytes_live -= h->v[i].size;
  free(h->v[i].host);
  memmove(&h->v[i], &h->v[i + 1], (h->n - (uint32_t)i - 1) * sizeof h->v[0]);
  h->n--;
  h->last = 0;
  return 0;
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
  if (addr - a->base > a->size || size > a->size - (addr - a->base)) return NULL;
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
    wv_fault_set(x, WV_ERR_FAULT, lane, 1, addr, "misaligned %s %s of %u bytes", space_name(sp), rw, size);
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
