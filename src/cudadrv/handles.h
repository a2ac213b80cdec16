/*
 * handles.h — the driver's token handles (handles.c) for streams, events, graphs, executable graphs and
 * graph nodes and memory pools: handle <-> object. cu_handle_obj is NULL for anything but a live handle of `kind`.
 */
#ifndef WV_CUDADRV_HANDLES_H
#define WV_CUDADRV_HANDLES_H

#include "cudadrv/cu.h"

void *cu_handle_new(cu_driver *d, cu_hkind kind, void *obj); /* NULL: out of memory */
void *cu_handle_obj(const cu_driver *d, cu_hkind kind, const void *h);
void cu_handle_drop(cu_driver *d, const void *h);
void *cu_handle_next(const cu_driver *d, cu_hkind kind, uint32_t *i, void **h); /* iterate from *i = 0 */
/* Say (once per api) that h is not a live handle of kind; returns e. */
CUresult cu_bad_handle(cu_driver *d, const char *api, cu_hkind kind, const void *h, CUresult e);

#endif
