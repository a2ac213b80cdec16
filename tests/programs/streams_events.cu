// streams_events.cu — streams (blocking and non-blocking), independent work on four streams, ordering between
// streams with cudaStreamWaitEvent, the legacy default stream waiting for blocking streams, events (timing
// and not), host functions in stream order (cudaLaunchHostFunc and the older cudaStreamAddCallback), queries.
#include "check.h"

#include <vector>

// Takes a while on purpose: each value is the end of a short deterministic loop.
__global__ void slow_fill(int *p, int n, int seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = i + seed;
  for (int k = 0; k < 100; k++) v = v * 1664525u + 1013904223u;
  p[i] = (int)(v >> 8);
}

static int slow_value(int i, int seed) {
  unsigned v = i + seed;
  for (int k = 0; k < 100; k++) v = v * 1664525u + 1013904223u;
  return (int)(v >> 8);
}

__global__ void add_from(int *dst, const int *src, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i] + k;
}

struct HostWork {
  const int *data;  // pinned host memory the stream filled before the host function runs
  int n;
  long long sum;
  int calls;
  int *flag;  // pinned; the host function writes it, the next kernel on the stream reads it
};

static void CUDART_CB host_sum(void *arg) {
  HostWork *w = (HostWork *)arg;
  long long s = 0;
  for (int i = 0; i < w->n; i++) s += w->data[i];
  w->sum = s;
  w->calls++;
  *w->flag = 77;
}

static void CUDART_CB legacy_callback(cudaStream_t, cudaError_t status, void *arg) {
  *(int *)arg = status == cudaSuccess ? 1 : -1;
}

__global__ void read_flag(const int *flag, int *out) { *out = *flag + 1; }

int main() {
  begin();
  const int N = 2048, S = 4;
  int *pinned;
  if (!CK(cudaMallocHost(&pinned, S * N * sizeof(int)))) return finish("streams_events");

  // Four streams, each with its own slice: fill, copy back, all overlapping as the device likes.
  cudaStream_t st[S];
  int *dev;
  CK(cudaMalloc(&dev, S * N * sizeof(int)));
  for (int s = 0; s < S; s++) {  // even: blocking (synchronise with the legacy default stream), odd: non-blocking
    if (s % 2)
      CK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
    else
      CK(cudaStreamCreate(&st[s]));
  }
  unsigned flags = 99;
  CK(cudaStreamGetFlags(st[1], &flags));
  check(flags == cudaStreamNonBlocking, "cudaStreamGetFlags == cudaStreamNonBlocking");
  for (int s = 0; s < S; s++) {
    slow_fill<<<N / 256, 256, 0, st[s]>>>(dev + s * N, N, s * 1000);
    CK(cudaMemcpyAsync(pinned + s * N, dev + s * N, N * sizeof(int), cudaMemcpyDeviceToHost, st[s]));
  }
  for (int s = 0; s < S; s++) CK(cudaStreamSynchronize(st[s]));
  bool ok = true;
  for (int s = 0; s < S; s++)
    for (int i = 0; i < N; i++) ok &= pinned[s * N + i] == slow_value(i, s * 1000);
  check(ok, "four streams, each fill + copy back");
  for (int s = 0; s < S; s++) check_err(cudaStreamQuery(st[s]), cudaSuccess, "cudaStreamQuery after sync");

  // Stream 1 waits for an event recorded on stream 0 after a slow kernel.
  cudaEvent_t produced;
  CK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
  int *out;
  CK(cudaMalloc(&out, N * sizeof(int)));
  slow_fill<<<N / 256, 256, 0, st[0]>>>(dev, N, 5);
  CK(cudaEventRecord(produced, st[0]));
  CK(cudaStreamWaitEvent(st[1], produced, 0));
  add_from<<<N / 256, 256, 0, st[1]>>>(out, dev, N, 1);
  CK(cudaMemcpyAsync(pinned, out, N * sizeof(int), cudaMemcpyDeviceToHost, st[1]));
  CK(cudaStreamSynchronize(st[1]));
  check_all(pinned, N, [](size_t i) { return slow_value(i, 5) + 1; },
            "cudaStreamWaitEvent orders stream 1 after stream 0");

  // The legacy default stream waits for blocking streams (stream 2 is one).
  slow_fill<<<N / 256, 256, 0, st[2]>>>(dev, N, 9);
  add_from<<<N / 256, 256>>>(out, dev, N, 2);
  std::vector<int> h(N);
  CK(cudaMemcpy(h.data(), out, N * sizeof(int), cudaMemcpyDeviceToHost));
  check_all(h.data(), N, [](size_t i) { return slow_value(i, 9) + 2; }, "default stream after a blocking stream");

  // Timing events: only that the time is not negative.
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  check_err(cudaEventQuery(stop), cudaSuccess, "cudaEventQuery of an event never recorded");
  CK(cudaEventRecord(start, st[3]));
  slow_fill<<<N / 256, 256, 0, st[3]>>>(dev, N, 1);
  CK(cudaEventRecord(stop, st[3]));
  CK(cudaEventSynchronize(stop));
  check_err(cudaEventQuery(stop), cudaSuccess, "cudaEventQuery after cudaEventSynchronize");
  float ms = -1.0f;
  CK(cudaEventElapsedTime(&ms, start, stop));
  check(ms >= 0.0f, "elapsed >= 0");
  cudaError_t e = cudaEventElapsedTime(&ms, start, produced);
  printf("cudaEventElapsedTime with a cudaEventDisableTiming event: %s\n", cudaGetErrorName(e));
  check(e != cudaSuccess, "elapsed time needs timing events");
  cudaGetLastError();

  // A host function runs after the stream's earlier work and before its later work.
  int *flag;
  if (!CK(cudaMallocHost(&flag, 2 * sizeof(int)))) return finish("streams_events");
  flag[0] = flag[1] = 0;
  HostWork w = {pinned, N, 0, 0, flag};
  slow_fill<<<N / 256, 256, 0, st[2]>>>(dev, N, 3);
  CK(cudaMemcpyAsync(pinned, dev, N * sizeof(int), cudaMemcpyDeviceToHost, st[2]));
  CK(cudaLaunchHostFunc(st[2], host_sum, &w));
  read_flag<<<1, 1, 0, st[2]>>>(flag, flag + 1);
  int cb = 0;
  CK(cudaStreamAddCallback(st[2], legacy_callback, &cb, 0));
  CK(cudaStreamSynchronize(st[2]));
  long long want = 0;
  for (int i = 0; i < N; i++) want += slow_value(i, 3);
  check(w.calls == 1, "host function ran once");
  check(w.sum == want, "host function saw the copy before it");
  check(flag[1] == 78, "kernel after the host function saw its write");
  check(cb == 1, "cudaStreamAddCallback ran with cudaSuccess");

  CK(cudaEventDestroy(start));
  CK(cudaEventDestroy(stop));
  CK(cudaEventDestroy(produced));
  for (int s = 0; s < S; s++) CK(cudaStreamDestroy(st[s]));
  CK(cudaFree(dev));
  CK(cudaFree(out));
  CK(cudaFreeHost(pinned));
  CK(cudaFreeHost(flag));
  CK(cudaDeviceSynchronize());
  return finish("streams_events");
}
