// trap.cu — __trap() in one thread ends the launch with cudaErrorLaunchFailure, which is sticky. Only error
// names are printed; what later calls return is printed as observed.
#include "check.h"

__global__ void maybe_trap(int *out, int bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == bad) __trap();
  out[i] = i;
}

int main() {
  begin();
  int *d;
  CK(cudaMalloc(&d, 128 * sizeof(int)));
  maybe_trap<<<2, 64>>>(d, -1);  // nobody traps
  CK(cudaDeviceSynchronize());
  maybe_trap<<<2, 64>>>(d, 70);
  CK(cudaGetLastError());  // the launch itself is fine; the fault comes with the synchronisation
  check_err(cudaDeviceSynchronize(), cudaErrorLaunchFailure, "cudaDeviceSynchronize after __trap()");
  check_err(cudaDeviceSynchronize(), cudaErrorLaunchFailure, "cudaDeviceSynchronize again (sticky)");
  int h[4];
  printf("cudaMemcpy afterwards: %s\n", cudaGetErrorName(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)));
  cudaError_t e1 = cudaGetLastError(), e2 = cudaGetLastError();
  printf("cudaGetLastError: %s, then %s\n", cudaGetErrorName(e1), cudaGetErrorName(e2));
  return finish("trap");
}
