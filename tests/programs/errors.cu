// errors.cu — the runtime's error state: a bad launch is reported by cudaPeekAtLastError (which keeps it) and
// cudaGetLastError (which clears it) and does not reach cudaDeviceSynchronize; a failed cudaMalloc; error names
// and strings; and the context staying usable after these non-sticky errors.
#include "check.h"

__global__ void add_one(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

static void show(cudaError_t e) {  // the runtime's text for a code; it must be NVIDIA's text exactly
  printf("%d %s \"%s\"\n", (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
}

int main() {
  begin();
  check_err(cudaGetLastError(), cudaSuccess, "cudaGetLastError at start");

  int *d = nullptr;
  CK(cudaMalloc(&d, 256 * sizeof(int)));
  CK(cudaMemset(d, 0, 256 * sizeof(int)));

  // 2048 threads per block is more than any device allows. Which code the launch gets is printed as observed
  // (CUDA 13.0 on an H200 says cudaErrorInvalidValue); what is checked is how the error state behaves.
  add_one<<<1, 2048>>>(d, 256);
  cudaError_t bad = cudaPeekAtLastError();
  printf("<<<1, 2048>>>: %s\n", cudaGetErrorName(bad));
  check(bad != cudaSuccess, "cudaPeekAtLastError after <<<1, 2048>>> reports an error");
  check_err(cudaPeekAtLastError(), bad, "cudaPeekAtLastError again (not cleared)");
  check_err(cudaGetLastError(), bad, "cudaGetLastError after <<<1, 2048>>>");
  check_err(cudaGetLastError(), cudaSuccess, "cudaGetLastError again (cleared)");
  check_err(cudaDeviceSynchronize(), cudaSuccess, "cudaDeviceSynchronize after the bad launch");

  // A grid with a zero dimension, a block whose z is too large, a grid whose y is too large.
  add_one<<<0, 32>>>(d, 256);
  bad = cudaGetLastError();
  printf("<<<0, 32>>>: %s\n", cudaGetErrorName(bad));
  check(bad != cudaSuccess, "<<<0, 32>>> fails");
  add_one<<<1, dim3(1, 1, 128)>>>(d, 256);
  bad = cudaGetLastError();
  printf("block (1,1,128): %s\n", cudaGetErrorName(bad));
  check(bad != cudaSuccess, "block (1,1,128) fails");
  add_one<<<dim3(1, 65536), 32>>>(d, 256);
  bad = cudaGetLastError();
  printf("grid (1,65536,1): %s\n", cudaGetErrorName(bad));
  check(bad != cudaSuccess, "grid (1,65536,1) fails");
  int n = 256;
  void *args[] = {&d, &n};
  bad = cudaLaunchKernel((const void *)add_one, dim3(1), dim3(2048), args, 0, nullptr);
  printf("cudaLaunchKernel with 2048 threads: %s\n", cudaGetErrorName(bad));
  check(bad != cudaSuccess, "cudaLaunchKernel with 2048 threads fails");
  check_err(cudaGetLastError(), bad, "cudaGetLastError after it: the same code");
  check_err(cudaGetLastError(), cudaSuccess, "cudaGetLastError after reading each launch error");

  // An impossible allocation fails, leaves the pointer alone... and is also the last error, once.
  int *huge = (int *)0x1;
  check_err(cudaMalloc(&huge, (size_t)1 << 60), cudaErrorMemoryAllocation, "cudaMalloc(2^60 bytes)");
  check(huge == nullptr || huge == (int *)0x1, "failed cudaMalloc leaves no usable pointer");
  check_err(cudaGetLastError(), cudaErrorMemoryAllocation, "cudaGetLastError after the failed cudaMalloc");
  check_err(cudaGetLastError(), cudaSuccess, "cudaGetLastError again (cleared)");

  // Other argument errors.
  check_err(cudaMemcpy(d, d, 16, (cudaMemcpyKind)99), cudaErrorInvalidMemcpyDirection, "cudaMemcpy with kind 99");
  check_err(cudaSetDevice(-1), cudaErrorInvalidDevice, "cudaSetDevice(-1)");
  check_err(cudaFree(nullptr), cudaSuccess, "cudaFree(nullptr)");
  cudaGetLastError();

  // The context still works.
  add_one<<<2, 128>>>(d, 256);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int h[256] = {};
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  check_all(h, 256, [](size_t) { return 1; }, "kernel after the errors");
  CK(cudaFree(d));

  const cudaError_t codes[] = {cudaSuccess,
                               cudaErrorInvalidValue,
                               cudaErrorMemoryAllocation,
                               cudaErrorInitializationError,
                               cudaErrorInvalidConfiguration,
                               cudaErrorInvalidDevicePointer,
                               cudaErrorInvalidMemcpyDirection,
                               cudaErrorInvalidDevice,
                               cudaErrorInvalidResourceHandle,
                               cudaErrorNotReady,
                               cudaErrorIllegalAddress,
                               cudaErrorLaunchOutOfResources,
                               cudaErrorLaunchFailure,
                               cudaErrorAssert,
                               cudaErrorCooperativeLaunchTooLarge,
                               cudaErrorNoKernelImageForDevice,
                               cudaErrorInvalidDeviceFunction,
                               cudaErrorStreamCaptureUnsupported,
                               cudaErrorUnknown};
  for (cudaError_t c : codes) show(c);
  printf("code 99999 name: %s\n", cudaGetErrorName((cudaError_t)99999));
  printf("code 99999 string: %s\n", cudaGetErrorString((cudaError_t)99999));
  check(strcmp(cudaGetErrorName(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation") == 0,
        "cudaGetErrorName(cudaErrorMemoryAllocation)");
  check(strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0, "cudaGetErrorString(cudaSuccess) == \"no error\"");
  return finish("errors");
}
