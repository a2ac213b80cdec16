/*
 * profiler.c — cuProfilerStart / cuProfilerStop: they mark the range a profiler records. warpvm has
 * no profiler to tell (its counters are `--stats`), so both succeed and do nothing, as NVIDIA's do
 * when no profiler is attached.
 */
#include "cudadrv/cu.h"

CU_EXPORT CUresult cuProfilerStart(void) {
  cu_driver *d = cu_lock();
  return cu_ret(cu_check(d));
}

CU_EXPORT CUresult cuProfilerStop(void) {
  cu_driver *d = cu_lock();
  return cu_ret(cu_check(d));
}
