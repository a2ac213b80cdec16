// per_thread_stream.cu — built with --default-stream per-thread: every host thread's default stream is its own
// (the runtime's *_ptds / *_ptsz entry points). Four host threads each run kernels and copies on their default
// stream and on cudaStreamPerThread; the main thread checks everything after joining them.
#include "check.h"

#include <thread>
#include <vector>

__global__ void series(int *p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * 3 + k;
}

constexpr int T = 4, N = 5000;

static void worker(int id, std::vector<int> *result, cudaError_t *status) {
  std::vector<int> h(N);
  for (int i = 0; i < N; i++) h[i] = i + id;
  int *d = nullptr;
  cudaError_t e = cudaMalloc(&d, N * sizeof(int));
  if (e == cudaSuccess) e = cudaMemcpy(d, h.data(), N * sizeof(int), cudaMemcpyHostToDevice);
  for (int r = 0; r < 5 && e == cudaSuccess; r++) {
    series<<<(N + 127) / 128, 128>>>(d, N, id * 10 + r);  // the thread's default stream
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(h.data(), d, N * sizeof(int), cudaMemcpyDeviceToHost, cudaStreamPerThread);
  if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamPerThread);
  if (e == cudaSuccess) e = cudaMemsetAsync(d, 0, sizeof(int), 0);  // stream 0: per-thread here too
  int first = -1;
  if (e == cudaSuccess) e = cudaMemcpy(&first, d, sizeof(int), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess && first != 0) e = cudaErrorUnknown;
  cudaFree(d);
  *result = h;
  *status = e;
}

int main() {
  begin();
  std::vector<int> results[T];
  cudaError_t status[T];
  std::vector<std::thread> threads;
  CK(cudaFree(nullptr));  // create the context before the threads start
  for (int id = 0; id < T; id++) threads.emplace_back(worker, id, &results[id], &status[id]);
  for (auto &t : threads) t.join();
  for (int id = 0; id < T; id++) {
    check_err(status[id], cudaSuccess, "host thread's CUDA calls");
    check_all(results[id].data(), N, [&](size_t i) {
        int v = i + id;
        for (int r = 0; r < 5; r++) v = v * 3 + id * 10 + r;
        return v;
      }, "five kernels on the thread's default stream");
  }
  CK(cudaDeviceSynchronize());
  return finish("per_thread_stream");
}
