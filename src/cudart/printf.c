/*
 * printf.c — device printf as the runtime sees it: the FIFO is the driver's (libcuda.so.1, shared with
 * any other runtime in the process, see cudadrv/printf.c); the runtime flushes it where CUDA does and
 * sets its size (cudaLimitPrintfFifoSize).
 */
#include "cudadrv/wvcu.h"
#include "cudart/cudart.h"

void wv_cr_flush_printf(cudart *r) {
  (void)r;
  wvcu_flush_printf();
}

void wv_cr_printf_init(cudart *r) {
  (void)r;
  wvcu_printf_reset();
}

cudaError_t wv_cr_printf_set_limit(cudart *r, size_t bytes) {
  (void)r;
  return wvcu_printf_limit(NULL, bytes ? bytes : 1) ? cudaErrorInvalidValue : cudaSuccess;
}

size_t wv_cr_printf_limit(const cudart *r) {
  (void)r;
  size_t v = 0;
  wvcu_printf_limit(&v, 0);
  return v;
}
