/*
 * procs.c — libcuda.so.1's entry points as a whole: every symbol NVIDIA's driver exports
 * (procs.def, generated from the toolkit by gen_procs.py), and cuGetProcAddress, through which
 * NVIDIA's runtime (static or shared), Numba and cuda-python find them by name, CUDA version and
 * stream flavour (per-thread default stream or legacy).
 *
 * An entry point warpvm does not implement is a weak definition in stubs.c; the implementing
 * file's strong definition replaces it at link time, so the table below points at what runs.
 */
#include <string.h>

#define WV_CU_NO_PROTOTYPES
#include "cudadrv/cu.h"

#define EXPORT(sym) CUresult sym(void);
#define EXPORT_PT(sym, base) EXPORT(sym)
#define PROC(name, version, flavour, sym)
#include "cudadrv/procs.def"
#undef EXPORT
#undef EXPORT_PT
#undef PROC

typedef struct proc { const char *name; int version, flavour; void *fn; } proc;
static const proc PROCS[] = {
#define EXPORT(sym)
#define EXPORT_PT(sym, base)
#define PROC(name, version, flavour, sym) {#name, version, flavour, (void *)sym},
#include "cudadrv/procs.def"
#undef EXPORT
#undef EXPORT_PT
#undef PROC
};
#define NPROCS (sizeof PROCS / sizeof PROCS[0])


/* The first row of name (rows are sorted by name), or NPROCS. */
static size_t first_row(const char *name) {
  size_t lo = 0, hi = NPROCS;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (strcmp(PROCS[mid].name, name) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < NPROCS && !strcmp(PROCS[lo].name, name) ? lo : NPROCS;
}

/* The newest version of name not newer than `version`, in the flavour asked for (per-thread
 * default stream: the _ptds/_ptsz symbol where there is one, else the plain one). */
int cu_proc_lookup(const char *name, int version, unsigned long long flags, void **fn) {
  size_t i = first_row(name);
  if (i == NPROCS) return CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  int per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  const proc *best = NULL, *best_pt = NULL;
  for (; i < NPROCS && !strcmp(PROCS[i].name, name); i++) {
    if (PROCS[i].version > version) continue;
    if (PROCS[i].flavour == 0) {
      if (!best || PROCS[i].version >= best->version) best = &PROCS[i];
    } else if (!best_pt || PROCS[i].version >= best_pt->version) {
      best_pt = &PROCS[i];
    }
  }
  if (per_thread && best_pt && (!best || best_pt->version >= best->version)) best = best_pt;
  if (!best) return CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
  *fn = best->fn;
  return CU_GET_PROC_ADDRESS_SUCCESS;
}

