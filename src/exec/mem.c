/*
 * mem.c — memory of a running kernel: translation of every lane's access in any state space (global,
 * const, shared, local, param, generic) to a host pointer after bounds and alignment checks. A failed
 * check becomes one device-fault report in the launch context, except a load the GPU would let pass
 * (mem.h, the GPU's memory map): it reads the bytes the GPU would read, produced in a scratch buffer,
 * and is counted as an invalid read (a fault under --check memcheck). Guest code never touches host
 * memory outside the vm's own buffers. The global heap (allocation table and layout) is heap.c's.
 */
#include "exec/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec.h"
#include "rt/vm_internal.h"

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
  case WV_SPACE_CLUSTER: return "shared::cluster";
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
  case WV_SPACE_LOCAL: { /* the thread's stack (mem.h): what earlier calls left there, else 0 */
    const wv_warp *w = x->warp;
    uint64_t top = WV_GPU_LOCAL_TOP - WV_GPU_LOCAL_RESERVED, used = top - w->local_low, lim = x->vm->stack_limit;
    if (lim < used) lim = used;
    uint64_t lo = lim < top ? top - lim : 0, have = WV_GPU_LOCAL_TOP - (uint64_t)w->local_cap; /* the buffer's first */
    if (sa < lo || sa >= WV_GPU_LOCAL_TOP || size > WV_GPU_LOCAL_TOP - sa || !(buf = scratch(x, size))) break;
    memset(buf, 0, (size_t)size);
    uint64_t from = sa > have ? sa : have;
    if (from < sa + size) memcpy(buf + (from - sa), wv_local_at(w, lane, from), (size_t)(sa + size - from));
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
    uint32_t end = x->cta->shared_size, have = end - WV_SHARED_BASE;
    if (sa >= end) snprintf(buf, cap, " (%llu bytes after the block's %u bytes of shared memory)", (unsigned long long)(sa - end), have);
    else if (sa < WV_SHARED_BASE)
      snprintf(buf, cap, " (%llu bytes before the block's %u bytes of shared memory)", (unsigned long long)(WV_SHARED_BASE - sa), have);
  } else if (sp == WV_SPACE_LOCAL && sa < ((uint64_t)1 << 32)) {
    uint32_t top = WV_GPU_LOCAL_TOP - WV_GPU_LOCAL_RESERVED, low = x->warp->local_low;
    if (sa >= top) snprintf(buf, cap, " (%llu bytes above the thread's stack, which ends at 0x%x)", (unsigned long long)(sa - top), top);
    else if (sa < low)
      snprintf(buf, cap, " (%llu bytes below the thread's %u bytes of local frames)", (unsigned long long)(low - sa), top - low);
  }
}

/* Count an invalid read and, for the first few, keep its record. */
static void note_invalid_read(wv_exec *x, int sp, uint64_t addr, uint64_t sa, uint32_t size, int lane) {
  char *rec = wv_out_diag(x, WV_DIAG_INVALID_READ);
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

/* A .shared::cluster access (a generic one into the shared window is one too): the shared memory of the
 * cluster's CTA that the address names (cluster.c), checked as that CTA's .shared access; a fault names addr. */
static uint8_t *cluster_xlate(wv_exec *x, uint64_t sa, uint64_t addr, uint32_t size, uint32_t align, int lane, int access) {
  uint64_t off;
  wv_cta *own = x->cta, *t = wv_cluster_cta(x, sa, addr, lane, &off);
  if (!t) return NULL;
  int had = x->fault.status != WV_OK;
  x->cta = t;
  uint8_t *p = wv_mem_xlate(x, WV_SPACE_SHARED, off, size, align, lane, access);
  x->cta = own;
  if (!p && !had && x->fault.status != WV_OK) x->fault.addr = addr;
  return p;
}

uint8_t *wv_mem_xlate(wv_exec *x, int space, uint64_t addr, uint32_t size, uint32_t align, int lane, int access) {
  uint64_t sa = addr;
  int sp = space, write = access == WV_MEM_STORE, generic = space == WV_SPACE_GENERIC;
  if (generic) sp = wv_mem_classify(addr, &sa);
  if (sp == WV_SPACE_CLUSTER || (generic && sp == WV_SPACE_SHARED && sa >= WV_GPU_SHARED_WINDOW))
    return cluster_xlate(x, sa, addr, size, align, lane, access);
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
  case WV_SPACE_SHARED: /* the CTA's variables, from WV_SHARED_BASE on; and the reserved region's part for system
                          software (%reserved_smem_offset_1 up to _end: cooperative groups' tiles of 64 threads and more) */
    if (sa >= WV_SHARED_BASE && sa <= x->cta->shared_size && size <= x->cta->shared_size - sa) p = x->cta->shared + sa;
    else if (sa < WV_RESERVED_SMEM_END && size <= WV_RESERVED_SMEM_END - sa) p = x->cta->shared + sa;
    break;
  case WV_SPACE_LOCAL: { /* the frames in use: [local_low, the stack's top) */
    uint64_t top = WV_GPU_LOCAL_TOP - WV_GPU_LOCAL_RESERVED;
    if (sa >= x->warp->local_low && sa <= top && size <= top - sa) p = wv_local_at(x->warp, lane, sa);
    break;
  }
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
  if (space == WV_SPACE_SHARED && sa >= WV_GPU_SHARED_WINDOW) { /* past the window: not even an address (mem.h) */
    wv_fault_set(x, WV_ERR_ILLEGAL_INSN, lane, 1, addr, "shared %s of %u bytes past the end of the shared window (0x%x)", rw, size,
                 WV_GPU_SHARED_WINDOW);
    return NULL;
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
