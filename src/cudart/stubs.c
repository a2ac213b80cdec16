/*
 * stubs.c — every libcudart entry point warpvm does not implement: it returns
 * cudaErrorNotSupported (also as the thread's last error) and says so once per name on stderr,
 * so a program never dies of a missing symbol. The list is generated at configure time from
 * entry_points.txt minus what the .c files here export (see cudart_stubs.cmake).
 */
#include <stdio.h>

#include "cudart/cudart.h"

static cudaError_t unsupported(const char *name) {
  cudart *r = wv_cr();
  if (wv_cr_first_time(r, name))
    fprintf(stderr, "warpvm: %s is not supported by warpvm's CUDA runtime (returns cudaErrorNotSupported)\n", name);
  return wv_cr_ret(cudaErrorNotSupported);
}

#define WV_STUB(name) \
  WV_EXPORT cudaError_t name(void) { return unsupported(#name); }
#include "cudart_stubs.inc"
