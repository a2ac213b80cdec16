/*
 * wvcu_alloc.h — an entry of the process's one allocation table, which the driver (libcuda.so.1) keeps and
 * warpvm's runtime uses through wvcu.h: what the program allocated through either API.
 */
#ifndef WV_CUDADRV_WVCU_ALLOC_H
#define WV_CUDADRV_WVCU_ALLOC_H

#include <stddef.h>
#include <stdint.h>

typedef struct wvcu_alloc {
  uintptr_t base;
  size_t size;
  int type;       /* 1 host (pinned or registered), 2 device, 4 managed (CU_MEMTYPE_*) */
  int owned;      /* host memory warpvm allocated (pinned/managed), freed with the entry */
  int registered; /* host memory the program registered (cuMemHostRegister, cudaHostRegister) */
  void *pool;     /* the memory pool of a stream-ordered allocation (the driver's cu_pool) */
  void *galloc;   /* a graph allocation (the driver's cu_galloc), whose memory its graph keeps */
} wvcu_alloc;

#endif
