/*
 * hostreg.c — host memory the program registers (cuMemHostRegister, and warpvm's runtime's cudaHostRegister,
 * which calls it): the vm maps it at its own address, so kernels dereference the program's pages directly.
 * Before it does, the range must be mapped and writable in this process (read from /proc/self/maps, without
 * touching the pages): an unmapped, partly unmapped or read-only range is CUDA_ERROR_INVALID_VALUE, as an H100
 * answers. Before every launch the registered ranges are checked again; one the program has unmapped or made
 * read-only since is dropped from the vm (said once), so a kernel touching it gets a clean device fault
 * instead of crashing the process. Unregistered memory is never touched again. READ_ONLY and IOMEMORY
 * registrations are CUDA_ERROR_NOT_SUPPORTED (the device reports HOST_REGISTER_READ_ONLY_SUPPORTED = 0: the vm
 * cannot map memory read-only). Messages name the call the program made and its error as that API does.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cudadrv/cuapi.h"

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

/* The error as the caller's API names it. */
static const char *err_name(CUresult e) {
  const char *s = cu_caller() ? cu_rt_error_name(e) : NULL;
  if (!s && cuGetErrorName(e, &s)) s = "an error";
  return s;
}

CU_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned flags) {
  cu_driver *d = cu_lock();
  const char *api = cu_caller() ? cu_caller() : "cuMemHostRegister";
  if (!p || !n || (flags & ~(unsigned)(REG_PORTABLE | REG_MAPPED | REG_IOMEMORY | REG_READONLY)))
    return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (flags & (REG_IOMEMORY | REG_READONLY)) {
    char key[96];
    snprintf(key, sizeof key, "%s flags", api);
    if (cu_first_time(d, key))
      fprintf(stderr, "warpvm: %s: read-only and I/O memory registrations are not supported (the vm maps host "
                      "memory read-write): %s\n", api, err_name(CUDA_ERROR_NOT_SUPPORTED));
    return cu_ret(CUDA_ERROR_NOT_SUPPORTED);
  }
  if (cu_alloc_find(d, (uintptr_t)p)) return cu_ret(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  maps m = {0};
  const char *why = problem(&m, maps_read(&m) == 0, p, n);
  free(m.v);
  if (why) {
    char key[96];
    snprintf(key, sizeof key, "host register %p", p);
    if (cu_first_time(d, key))
      fprintf(stderr, "warpvm: %s(%p, %zu): %s: %s\n", api, p, n, why, err_name(CUDA_ERROR_INVALID_VALUE));
    return cu_ret(CUDA_ERROR_INVALID_VALUE);
  }
  if (wv_map_host(d->vm, p, n) != WV_OK) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (cu_alloc_add(d, (uintptr_t)p, n, CU_MEMTYPE_HOST, 0, 1)) {
    wv_unmap_host(d->vm, p);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  d->nregistered++;
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuMemHostRegister(void *p, size_t n, unsigned flags) { return cuMemHostRegister_v2(p, n, flags); }

CU_EXPORT CUresult cuMemHostUnregister(void *p) {
  cu_driver *d = cu_lock();
  cu_alloc *a = cu_alloc_find(d, (uintptr_t)p);
  if (!a || a->base != (uintptr_t)p || !a->registered) return cu_ret(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  cu_alloc_remove(d, a);
  return cu_ret(CUDA_SUCCESS);
}

/* Before a launch: drop registrations whose memory the program has unmapped or protected since. */
void cu_hostreg_recheck(cu_driver *d) {
  if (!d->nregistered) return;
  maps m = {0};
  int have = maps_read(&m) == 0;
  for (uint32_t i = 0; i < d->nallocs;) {
    cu_alloc *a = &d->allocs[i];
    const char *why = a->registered ? problem(&m, have, (void *)a->base, a->size) : NULL;
    if (!why) {
      i++;
      continue;
    }
    fprintf(stderr, "warpvm: memory registered with %s at %p (%zu bytes) is no longer usable (%s): "
                    "warpvm dropped it, a kernel touching it faults\n",
            cu_caller() ? "cudaHostRegister" : "cuMemHostRegister", (void *)a->base, a->size, why);
    cu_alloc_remove(d, a);
  }
  free(m.v);
}
CU_EXPORT void wvcu_hostreg_recheck(void) {
  cu_hostreg_recheck(cu_lock());
  cu_ret(CUDA_SUCCESS);
}
