/*
 * graph_mem.c — the device's graph memory, as cuDeviceGetGraphMemAttribute reports it: bytes reserved for
 * graph allocations (every alloc node's memory, kept from the node's creation for its graph's life) and bytes
 * in use (the allocations live now: between an alloc node's run and their free), with high-water marks of both,
 * which cuDeviceSetGraphMemAttribute resets to the current values (only 0 may be written). cuDeviceGraphMemTrim
 * has nothing to give back: a graph's memory goes with the graph.
 */
#include <string.h>

#include "cudadrv/graph.h"

enum { USED_CURRENT = 0, USED_HIGH = 1, RESERVED_CURRENT = 2, RESERVED_HIGH = 3 }; /* CUgraphMem_attribute */

static void current(const cu_driver *d, uint64_t *used, uint64_t *reserved) {
  *used = *reserved = 0;
  for (const cu_galloc *a = d->gallocs; a; a = a->next) {
    *reserved += a->size;
    if (a->live) *used += a->size;
  }
}

void cu_graph_mem_note(cu_driver *d) {
  uint64_t used, reserved;
  current(d, &used, &reserved);
  if (used > d->graph_used_high) d->graph_used_high = used;
  if (reserved > d->graph_reserved_high) d->graph_reserved_high = reserved;
}

CU_EXPORT CUresult cuDeviceGetGraphMemAttribute(CUdevice dev, int attr, void *value) {
  cu_driver *d = cu_lock();
  if (dev != 0) return cu_ret(CUDA_ERROR_INVALID_DEVICE);
  if (!value) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  uint64_t used, reserved, v;
  current(d, &used, &reserved);
  switch (attr) {
  case USED_CURRENT: v = used; break;
  case USED_HIGH: v = d->graph_used_high; break;
  case RESERVED_CURRENT: v = reserved; break;
  case RESERVED_HIGH: v = d->graph_reserved_high; break;
  default: return cu_ret(CUDA_ERROR_INVALID_VALUE);
  }
  memcpy(value, &v, sizeof v);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuDeviceSetGraphMemAttribute(CUdevice dev, int attr, void *value) {
  cu_driver *d = cu_lock();
  if (dev != 0) return cu_ret(CUDA_ERROR_INVALID_DEVICE);
  uint64_t v = 1, used, reserved;
  if (value) memcpy(&v, value, sizeof v);
  if (v || (attr != USED_HIGH && attr != RESERVED_HIGH)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  current(d, &used, &reserved);
  if (attr == USED_HIGH) d->graph_used_high = used;
  else d->graph_reserved_high = reserved;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuDeviceGraphMemTrim(CUdevice dev) { return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }
