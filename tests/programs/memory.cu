// memory.cu — cudaMalloc/cudaFree, cudaMemcpy in every direction (also cudaMemcpyDefault), cudaMemcpyAsync,
// cudaMemset(Async), pinned host memory (cudaMallocHost, cudaHostAlloc) used by kernels directly (zero copy),
// managed memory, cudaMallocPitch/cudaMemcpy2D, cudaPointerGetAttributes and cudaMemGetInfo.
#include "check.h"

#include <cstdlib>
#include <vector>

__global__ void twice_plus(const int *in, int *out, int n, int k) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2 * in[i] + k;
}

__global__ void bump(int *p, int n) {  // on any memory the device can reach
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] += i;
}

__global__ void rows(float *base, size_t pitch, int w, int h) {  // element (x, y) += 100 * y
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) ((float *)((char *)base + y * pitch))[x] += 100.0f * y;
}

static const int N = 4096;

static void copies() {
  std::vector<int> a(N), b(N, -1), c(N, -1);
  for (int i = 0; i < N; i++) a[i] = i * 7 - 3;
  int *d1, *d2;
  CK(cudaMalloc(&d1, N * sizeof(int)));
  CK(cudaMalloc(&d2, N * sizeof(int)));
  CK(cudaMemcpy(d1, a.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d2, d1, N * sizeof(int), cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(b.data(), d2, N * sizeof(int), cudaMemcpyDeviceToHost));
  check(b == a, "HtoD, DtoD, DtoH round trip");
  CK(cudaMemcpy(c.data(), b.data(), N * sizeof(int), cudaMemcpyHostToHost));
  check(c == a, "HostToHost");

  // cudaMemcpyDefault infers the direction from the pointers (unified addressing).
  std::vector<int> e(N, 0);
  twice_plus<<<8, 128>>>(d1, d2, N, 5);
  CK(cudaMemcpy(e.data(), d2, N * sizeof(int), cudaMemcpyDefault));
  check_all(e.data(), N, [&](size_t i) { return 2 * a[i] + 5; }, "Default DtoH after a kernel");
  for (int i = 0; i < N; i++) e[i] = -i;
  CK(cudaMemcpy(d1, e.data(), N * sizeof(int), cudaMemcpyDefault));
  CK(cudaMemcpy(d2 + 100, d1 + 10, 50 * sizeof(int), cudaMemcpyDefault));
  CK(cudaMemcpy(c.data(), d2, N * sizeof(int), cudaMemcpyDefault));
  check_all(c.data() + 100, 50, [](size_t i) { return -(int)(i + 10); }, "Default HtoD then DtoD at offsets");
  check(c[99] == 2 * a[99] + 5 && c[150] == 2 * a[150] + 5, "bytes around the DtoD copy untouched");
  CK(cudaMemcpy(b.data(), e.data(), N * sizeof(int), cudaMemcpyDefault));
  check(b == e, "Default HtoH");

  // Memset: bytes, a sub-range, and the async form.
  CK(cudaMemset(d1, 0xAB, N * sizeof(int)));
  CK(cudaMemset(d1 + 10, 0, 20 * sizeof(int)));
  CK(cudaMemset((char *)d1 + 3, 0x11, 1));
  CK(cudaMemcpy(c.data(), d1, N * sizeof(int), cudaMemcpyDeviceToHost));
  check(c[1] == (int)0xABABABAB && c[9] == (int)0xABABABAB && c[30] == (int)0xABABABAB &&
            c[N - 1] == (int)0xABABABAB,
        "cudaMemset 0xAB");
  check_all(c.data() + 10, 20, [](size_t) { return 0; }, "cudaMemset of a sub-range");
  check((unsigned)c[0] == 0x11ABABABu, "one-byte cudaMemset at byte offset 3");
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  CK(cudaMemsetAsync(d2, 0x7F, N * sizeof(int), s));
  CK(cudaMemcpyAsync(c.data(), d2, N * sizeof(int), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  check_all(c.data(), N, [](size_t) { return 0x7F7F7F7F; }, "cudaMemsetAsync + cudaMemcpyAsync");
  CK(cudaStreamDestroy(s));
  CK(cudaFree(d1));
  CK(cudaFree(d2));
}

static void pinned() {
  // cudaMallocHost memory is mapped: with unified addressing a kernel uses the host pointer itself.
  int *h = nullptr;
  if (!CK(cudaMallocHost(&h, N * sizeof(int)))) return;
  for (int i = 0; i < N; i++) h[i] = 3 * i;
  bump<<<4, 256>>>(h, N);
  CK(cudaDeviceSynchronize());
  check_all(h, N, [](size_t i) { return (int)(4 * i); }, "kernel on cudaMallocHost memory (zero copy)");

  // cudaHostAlloc(Mapped) and the device's name for it.
  int *m = nullptr, *md = nullptr;
  if (!CK(cudaHostAlloc(&m, N * sizeof(int), cudaHostAllocMapped))) return;
  CK(cudaHostGetDevicePointer(&md, m, 0));
  for (int i = 0; i < N; i++) m[i] = 1000;
  bump<<<4, 256>>>(md, N);
  CK(cudaDeviceSynchronize());
  check_all(m, N, [](size_t i) { return (int)(1000 + i); }, "kernel on cudaHostAlloc(Mapped) memory");

  // Async copies between pinned host memory and the device.
  int *d;
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&d, N * sizeof(int)));
  CK(cudaMemcpyAsync(d, h, N * sizeof(int), cudaMemcpyHostToDevice, s));
  twice_plus<<<4, 256, 0, s>>>(d, d, N, 1);
  CK(cudaMemcpyAsync(m, d, N * sizeof(int), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  check_all(m, N, [](size_t i) { return (int)(8 * i + 1); }, "pinned HtoD, kernel, DtoH on one stream");

  cudaPointerAttributes pa = {};
  CK(cudaPointerGetAttributes(&pa, d));
  check(pa.type == cudaMemoryTypeDevice && pa.device == 0, "attributes of cudaMalloc memory: device");
  CK(cudaPointerGetAttributes(&pa, h));
  check(pa.type == cudaMemoryTypeHost && pa.hostPointer == h, "attributes of cudaMallocHost memory: host");
  int local = 0;
  CK(cudaPointerGetAttributes(&pa, &local));
  check(pa.type == cudaMemoryTypeUnregistered, "attributes of a stack variable: unregistered");

  CK(cudaStreamDestroy(s));
  CK(cudaFree(d));
  CK(cudaFreeHost(h));
  CK(cudaFreeHost(m));
}

static void managed() {
  int *u = nullptr;
  if (!CK(cudaMallocManaged(&u, N * sizeof(int)))) return;
  for (int i = 0; i < N; i++) u[i] = i % 100;
  bump<<<16, 64>>>(u, N);
  CK(cudaDeviceSynchronize());
  check_all(u, N, [](size_t i) { return (int)(i % 100 + i); }, "managed: host writes, kernel updates, host reads");
  u[5] = -5;  // the host writes again; the next kernel sees it
  bump<<<16, 64>>>(u, N);
  CK(cudaDeviceSynchronize());
  check(u[5] == 0 && u[6] == 6 + 6 + 6, "managed: second kernel sees the host's write");
  cudaPointerAttributes pa = {};
  CK(cudaPointerGetAttributes(&pa, u));
  check(pa.type == cudaMemoryTypeManaged, "attributes of cudaMallocManaged memory: managed");
  CK(cudaFree(u));
}

static void pitched() {
  const int W = 100, H = 6;
  float host[H][W], back[H][W] = {};
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) host[y][x] = x + 0.5f;
  float *d;
  size_t pitch = 0;
  CK(cudaMallocPitch(&d, &pitch, W * sizeof(float), H));
  check(pitch >= W * sizeof(float), "pitch >= row bytes");
  CK(cudaMemcpy2D(d, pitch, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  rows<<<dim3(1, H), 128>>>(d, pitch, W, H);
  CK(cudaMemcpy2D(back, W * sizeof(float), d, pitch, W * sizeof(float), H, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) ok &= back[y][x] == x + 0.5f + 100.0f * y;
  check(ok, "cudaMallocPitch + cudaMemcpy2D both ways");
  CK(cudaFree(d));
}

static void info() {
  size_t free0 = 0, total = 0, free1 = 0, free2 = 0;
  CK(cudaMemGetInfo(&free0, &total));
  check(total > 0 && free0 <= total, "cudaMemGetInfo: 0 < free <= total");
  const size_t big = (size_t)64 << 20;
  void *p;
  CK(cudaMalloc(&p, big));
  CK(cudaMemGetInfo(&free1, &total));
  check(free1 + big <= free0, "free memory drops by at least 64 MiB after cudaMalloc(64 MiB)");
  CK(cudaFree(p));
  CK(cudaMemGetInfo(&free2, &total));
  check(free2 > free1, "free memory grows again after cudaFree");
}

int main() {
  begin();
  copies();
  pinned();
  managed();
  pitched();
  info();
  CK(cudaGetLastError());
  return finish("memory");
}
