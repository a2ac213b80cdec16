// main.cu — a program of three translation units compiled separately and linked: kernels and __constant__
// variables of the same name in two units stay apart (each unit is its own module), a kernel defined in one
// unit is launched from another, and with -rdc=true (__CUDACC_RDC__) a kernel in one unit calls a __device__
// function and updates a __device__ variable defined in another, joined by the device linker.
#include "../check.h"
#include "parts.h"

int main() {
  begin();
#ifdef __CUDACC_RDC__
  printf("separate compilation (-rdc=true)\n");
#else
  printf("whole-program compilation\n");
#endif
  const int N = 100;
  int h[N], *d;
  for (int i = 0; i < N; i++) h[i] = i;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  a_kernel<<<2, 64>>>(d, N);  // defined in kernels_a.cu
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  check_all(h, N, [](size_t i) { return mix(i) + (int)(i % 4) + 1; }, "a_kernel with a's coef");
  b_run(d, N);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  check_all(h, N, [](size_t i) { return mix(mix(i) + (int)(i % 4) + 1) - 100 * (int)(i % 4 + 1); },
            "b_kernel with b's coef");

  const int c[4] = {-1, -1, -1, -1};
  a_set_coef(c);
  for (int i = 0; i < N; i++) h[i] = 0;
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  a_kernel<<<2, 64>>>(d, N);
  b_run(d, N);
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  check_all(h, N, [](size_t i) { return mix(mix(0) - 1) - 100 * (int)(i % 4 + 1); },
            "new coef in a only; b's coef unchanged");
  check(a_launch_count() == 2, "a's private launch counter == 2");
  check(b_launch_count() == 2, "b's private launch counter == 2");

#ifdef __CUDACC_RDC__
  for (int i = 0; i < N; i++) h[i] = i - 50;
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  int total = b_calls_into_a(d, N), want = 0;
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  check_all(h, N, [](size_t i) { return a_helper_host((int)i - 50); }, "b's kernel calls a's __device__ function");
  for (int i = 0; i < N; i++) want += a_helper_host(i - 50);
  check(total == want, "b's kernel adds into a's __device__ variable");
#endif
  CK(cudaFree(d));
  return finish("multi_tu");
}
