// graphs.cu — CUDA graphs by stream capture: a memset, two copies and three kernels captured into a graph,
// instantiated once and launched several times (on two streams), results accumulating; inputs changed between
// launches are seen (the graph holds pointers, not values); capture status queries; destroy.
#include "check.h"

#include <vector>

__global__ void scale(int *p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= k;
}
__global__ void add(int *p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += k;
}
__global__ void accumulate(long long *acc, const int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += p[i];
}

int main() {
  begin();
  const int N = 1000, T = 256, B = (N + T - 1) / T;
  int *in, *tmp;
  long long *acc, *snap;  // snap: pinned, the graph's last node copies acc into it
  CK(cudaMalloc(&in, N * sizeof(int)));
  CK(cudaMalloc(&tmp, N * sizeof(int)));
  CK(cudaMalloc(&acc, N * sizeof(long long)));
  if (!CK(cudaMallocHost(&snap, N * sizeof(long long)))) return finish("graphs");
  std::vector<int> h(N);
  for (int i = 0; i < N; i++) h[i] = i - 300;
  CK(cudaMemcpy(in, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(acc, 0, N * sizeof(long long)));

  cudaStream_t s, s2;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaStreamCreate(&s2));
  cudaStreamCaptureStatus cs = cudaStreamCaptureStatusInvalidated;
  CK(cudaStreamIsCapturing(s, &cs));
  check(cs == cudaStreamCaptureStatusNone, "not capturing before cudaStreamBeginCapture");

  cudaGraph_t graph;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CK(cudaStreamIsCapturing(s, &cs));
  check(cs == cudaStreamCaptureStatusActive, "capturing after cudaStreamBeginCapture");
  cudaMemsetAsync(tmp, 0xFF, N * sizeof(int), s);
  cudaMemcpyAsync(tmp, in, N * sizeof(int), cudaMemcpyDeviceToDevice, s);
  scale<<<B, T, 0, s>>>(tmp, N, 3);
  add<<<B, T, 0, s>>>(tmp, N, 1);
  accumulate<<<B, T, 0, s>>>(acc, tmp, N);
  cudaMemcpyAsync(snap, acc, N * sizeof(long long), cudaMemcpyDeviceToHost, s);
  CK(cudaStreamEndCapture(s, &graph));
  CK(cudaStreamIsCapturing(s, &cs));
  check(cs == cudaStreamCaptureStatusNone, "not capturing after cudaStreamEndCapture");
  size_t nodes = 0;
  CK(cudaGraphGetNodes(graph, nullptr, &nodes));
  check(nodes == 6, "captured graph has 6 nodes");

  // Capturing enqueues nothing: acc is still zero.
  std::vector<long long> a(N);
  CK(cudaMemcpy(a.data(), acc, N * sizeof(long long), cudaMemcpyDeviceToHost));
  check_all(a.data(), N, [](size_t) { return 0LL; }, "capture ran nothing");

  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, graph, 0));
  for (int k = 1; k <= 3; k++) {
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    check_all(snap, N, [&](size_t i) { return (long long)k * (3 * ((long long)i - 300) + 1); }, "after graph launch");
  }
  // New input; the next launches read it.
  for (int i = 0; i < N; i++) h[i] = 2 * i;
  CK(cudaMemcpy(in, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaGraphLaunch(exec, s2));
  CK(cudaGraphLaunch(exec, s2));
  CK(cudaStreamSynchronize(s2));
  check_all(snap, N, [](size_t i) { return 3LL * (3 * ((long long)i - 300) + 1) + 2 * (6LL * (long long)i + 1); },
            "two more launches on another stream with new input");

  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(graph));
  CK(cudaStreamDestroy(s));
  CK(cudaStreamDestroy(s2));
  CK(cudaFree(in));
  CK(cudaFree(tmp));
  CK(cudaFree(acc));
  CK(cudaFreeHost(snap));
  return finish("graphs");
}
