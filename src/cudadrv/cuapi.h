/*
 * cuapi.h — prototypes of the driver entry points that warpvm's driver calls itself, and the enum
 * values it answers (numbers from CUDA 13.0's cuda.h). Not included by stubs.c / procs.c, which
 * declare every entry point without parameters.
 */
#ifndef WV_CUDADRV_CUAPI_H
#define WV_CUDADRV_CUAPI_H

#include "cudadrv/cu.h"

enum {
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50
};
enum { CU_LIMIT_STACK_SIZE = 0, CU_LIMIT_PRINTF_FIFO_SIZE = 1, CU_LIMIT_MALLOC_HEAP_SIZE = 2,
       CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4 };
CUresult cuCtxGetLimit(size_t *v, int limit);
CUresult cuCtxSetLimit(int limit, size_t v);

CUresult cuDeviceGetCount(int *count);
CUresult cuGetErrorName(CUresult e, const char **str);
CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev);
CUresult cuDevicePrimaryCtxRetain(void **pctx, CUdevice dev);

#endif
