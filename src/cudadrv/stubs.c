/*
 * stubs.c — every libcuda.so.1 entry point (procs.def) as a weak definition that returns
 * CUDA_ERROR_NOT_SUPPORTED and says so once per name on stderr, so a program never dies of a
 * missing symbol. The files that implement an entry point define it strongly, which replaces
 * the stub at link time.
 */
#include <stdio.h>

#define WV_CU_NO_PROTOTYPES
#include "cudadrv/cu.h"

static CUresult unsupported(const char *name) {
  cu_driver *d = cu_lock();
  if (cu_first_time(d, name))
    fprintf(stderr, "warpvm: %s is not supported by warpvm's CUDA driver (returns CUDA_ERROR_NOT_SUPPORTED)\n", name);
  return cu_ret(CUDA_ERROR_NOT_SUPPORTED);
}

#define EXPORT(sym) \
  CU_EXPORT __attribute__((weak)) CUresult sym(void) { return unsupported(#sym); }
/* A per-thread-default-stream variant: every stream is synchronous here, so it is its base entry
 * point (the implemented one, or the base's stub), reached by a jump. */
#if defined(__x86_64__)
#define EXPORT_PT(sym, base) \
  __asm__(".globl " #sym "\n.weak " #sym "\n.type " #sym ",@function\n" #sym ":\n\tjmp " #base "@PLT\n");
#elif defined(__aarch64__)
#define EXPORT_PT(sym, base) \
  __asm__(".globl " #sym "\n.weak " #sym "\n.type " #sym ",@function\n" #sym ":\n\tb " #base "\n");
#else
#define EXPORT_PT(sym, base) EXPORT(sym)
#endif
#define PROC(name, version, flavour, sym)
#include "cudadrv/procs.def"
#undef EXPORT
#undef EXPORT_PT
#undef PROC
