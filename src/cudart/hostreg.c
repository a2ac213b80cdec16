/*
 * hostreg.c — host memory the program registers (cudaHostRegister): the vm maps it at its own
 * address, so kernels dereference the program's pages directly. Before it does, the range must be
 * mapped and writable in this process (read from /proc/self/maps, without touching the pages):
 * an unmapped, partly unmapped or read-only range is cudaErrorInvalidValue, as an H100 answers.
 * Before every launch the registered ranges are checked again; one the program has unmapped or
 * made read-only since is dropped from the vm (said once), so a kernel touching it gets a clean
 * device fault instead of crashing the process. Unregistered memory is never touched again.
 * cudaHostRegisterReadOnly and IoMemory are cudaErrorNotSupported (the device reports
 * cudaDevAttrHostRegisterReadOnlySupported = 0: the vm cannot map memory read-only).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cudart/cudart.h"

enum { REG_PORTABLE = 1, REG_MAPPED = 2, REG_IOMEMORY = 4, REG_READONLY = 8 };

/* The process's mappings, in address order (as /proc/self/maps lists them). */
typedef struct maps { struct { uintptr_t lo, hi; int rw; } *v; size_t n, cap; } maps;

static int maps_read(maps *m) {
  m->n = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  unsigned long lo, hi;
  char perms[8];
  while (fscanf(f, "%lx-%lx %7s%*[^\n]", &lo, &hi, perms) == 3) {
    if (m->n == m->cap) {
      size_t nc = m->cap ? 2 * m->cap : 256;
      void *nv = realloc(m->v, nc * sizeof *m->v);
      if (!nv) break;
      m->v = nv, m->cap = nc;
    }
    m->v[m->n].lo = lo, m->v[m->n].hi = hi;
    m->v[m->n++].rw = perms[0] == 'r' && perms[1] == 'w';
  }
  fclose(f);
  return m->n ? 0 : -1;
}

/* Why [p, p+n) cannot be registered, or NULL: it must be covered by readable and writable mappings. */
static const char *range_problem(const maps *m, uintptr_t p, size_t n) {
  if (n > UINTPTR_MAX - p) return "it runs past the end of the address space";
  uintptr_t cur = p, end = p + n;
  for (size_t i = 0; i < m->n && cur < end; i++) {
    if (m->v[i].hi <= cur) continue;
    if (m->v[i].lo > cur) return "part of it is not mapped";
    if (!m->v[i].rw) return "part of it is not writable";
    cur = m->v[i].hi;
  }
  return cur < end ? "part of it is not mapped" : NULL;
}

/* Without /proc: msync fails with ENOMEM on a range with unmapped pages (writability is not known). */
static const char *range_problem_msync(uintptr_t p, size_t n) {
  long pg = sysconf(_SC_PAGESIZE);
  uintptr_t lo = p & ~(uintptr_t)(pg - 1);
  if (n > UINTPTR_MAX - p) return "it runs past the end of the address space";
  return msync((void *)lo, p + n - lo, MS_ASYNC) && errno == ENOMEM ? "part of it is not mapped" : NULL;
}

static const char *problem(maps *m, int have, const void *p, size_t n) {
  return have ? range_problem(m, (uintptr_t)p, n) : range_problem_msync((uintptr_t)p, n);
}

WV_EXPORT cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags) {
  cudart *r = wv_cr();
  if (!p || !n || (flags & ~(unsigned)(REG_PORTABLE | REG_MAPPED | REG_IOMEMORY | REG_READONLY)))
    return wv_cr_ret(cudaErrorInvalidValue);
  if (flags & (REG_IOMEMORY | REG_READONLY)) {
    if (wv_cr_first_time(r, "cudaHostRegister flags"))
      fprintf(stderr, "warpvm: cudaHostRegister: cudaHostRegisterReadOnly and cudaHostRegisterIoMemory are not "
                      "supported (the vm maps host memory read-write): cudaErrorNotSupported\n");
    return wv_cr_ret(cudaErrorNotSupported);
  }
  if (wv_cr_alloc_find(r, p)) return wv_cr_ret(cudaErrorHostMemoryAlreadyRegistered);
  maps m = {0};
  const char *why = problem(&m, maps_read(&m) == 0, p, n);
  free(m.v);
  if (why) {
    char key[96];
    snprintf(key, sizeof key, "cudaHostRegister %p", p);
    if (wv_cr_first_time(r, key))
      fprintf(stderr, "warpvm: cudaHostRegister(%p, %zu): %s: cudaErrorInvalidValue\n", p, n, why);
    return wv_cr_ret(cudaErrorInvalidValue);
  }
  if (wv_map_host(r->vm, p, n) != WV_OK) return wv_cr_ret(cudaErrorInvalidValue);
  if (wv_cr_alloc_add(r, (uintptr_t)p, n, cudaMemoryTypeHost, 0)) {
    wv_unmap_host(r->vm, p);
    return wv_cr_ret(cudaErrorMemoryAllocation);
  }
  r->nregistered++;
  return wv_cr_ret(cudaSuccess);
}

static void unregister(cudart *r, cr_alloc *a) { wv_cr_alloc_free(r, a); }

WV_EXPORT cudaError_t cudaHostUnregister(void *p) {
  cudart *r = wv_cr();
  cr_alloc *a = wv_cr_alloc_find(r, p);
  if (!a || a->base != (uintptr_t)p || !a->registered)
    return wv_cr_ret(cudaErrorHostMemoryNotRegistered);
  unregister(r, a);
  return wv_cr_ret(cudaSuccess);
}

/* Before a launch: drop registrations whose memory the program has unmapped or protected since. */
void wv_cr_hostreg_recheck(cudart *r) {
  if (!r->nregistered) return;
  maps m = {0};
  int have = maps_read(&m) == 0;
  for (uint32_t i = 0; wvcu_alloc_at(i);) {
    cr_alloc *a = wvcu_alloc_at(i);
    const char *why = a->registered ? problem(&m, have, (void *)a->base, a->size) : NULL;
    if (!why) {
      i++;
      continue;
    }
    fprintf(stderr, "warpvm: memory registered with cudaHostRegister at %p (%zu bytes) is no longer usable (%s): "
                    "warpvm dropped it, a kernel touching it faults\n", (void *)a->base, a->size, why);
    unregister(r, a);
  }
  free(m.v);
}

WV_EXPORT cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned int flags) {
  (void)flags;
  cudart *r = wv_cr();
  cr_alloc *a = wv_cr_alloc_find(r, h);
  if (!d || !a || a->type == cudaMemoryTypeDevice) return wv_cr_ret(cudaErrorInvalidValue);
  *d = h; /* identity-mapped */
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaHostGetFlags(unsigned int *flags, void *h) {
  cudart *r = wv_cr();
  cr_alloc *a = wv_cr_alloc_find(r, h);
  if (!flags || !a || a->type != cudaMemoryTypeHost) return wv_cr_ret(cudaErrorInvalidValue);
  *flags = cudaHostAllocMapped;
  return wv_cr_ret(cudaSuccess);
}
