// launch.cu — kernel launches: 1D/2D/3D grids and blocks, a grid wider than 65535 blocks, dynamic shared
// memory (alone and with static shared memory), cudaLaunchKernel with an explicit argument array on a stream,
// and cudaLaunchKernelEx. (Parameter layouts: kernel_params.cu.)
#include "check.h"

#include <vector>

__global__ void coords(int *out) {  // one int per thread: its block and thread coordinates, packed
  int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int id = block * blockDim.x * blockDim.y * blockDim.z + thread;
  out[id] = blockIdx.x << 24 | blockIdx.y << 20 | blockIdx.z << 16 | threadIdx.x << 8 | threadIdx.y << 4 | threadIdx.z;
}

static bool check_coords(dim3 g, dim3 b, const char *what) {
  int n = g.x * g.y * g.z * b.x * b.y * b.z;
  int *d;
  std::vector<int> h(n, -1);
  CK(cudaMalloc(&d, n * sizeof(int)));
  coords<<<g, b>>>(d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  int bad = 0, id = 0;
  for (unsigned bz = 0; bz < g.z; bz++)
    for (unsigned by = 0; by < g.y; by++)
      for (unsigned bx = 0; bx < g.x; bx++)
        for (unsigned tz = 0; tz < b.z; tz++)
          for (unsigned ty = 0; ty < b.y; ty++)
            for (unsigned tx = 0; tx < b.x; tx++)
              bad += h[id++] != (int)(bx << 24 | by << 20 | bz << 16 | tx << 8 | ty << 4 | tz);
  return check(bad == 0, "%s grid (%u,%u,%u) block (%u,%u,%u): %d threads", what, g.x, g.y, g.z, b.x, b.y, b.z, n);
}

__global__ void wide(unsigned char *hit) { hit[blockIdx.x] = 1 + (blockIdx.x & 1); }

// Reverses each block's slice through dynamic shared memory; `extra` ints of it are left unused.
__global__ void reverse_dyn(const int *in, int *out, int extra) {
  extern __shared__ int buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[extra + threadIdx.x] = in[i];
  __syncthreads();
  out[i] = buf[extra + blockDim.x - 1 - threadIdx.x];
}

// Static and dynamic shared memory together: dynamic starts after the static part.
__global__ void mixed_shared(int *out) {
  __shared__ int fixed[32];
  extern __shared__ int dyn[];
  fixed[threadIdx.x] = threadIdx.x;
  dyn[threadIdx.x] = 1000 + threadIdx.x;
  dyn[32 + threadIdx.x] = 2000 + threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = fixed[31 - threadIdx.x] + dyn[31 - threadIdx.x] + dyn[63 - threadIdx.x];
}

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  begin();
  check_coords(dim3(7), dim3(33), "1D");
  check_coords(dim3(5, 3), dim3(8, 4), "2D");
  check_coords(dim3(2, 3, 4), dim3(4, 2, 3), "3D");
  check_coords(dim3(1, 1, 2), dim3(1, 1, 64), "z-only");

  const int W = 65537;
  unsigned char *hit;
  std::vector<unsigned char> h(W);
  CK(cudaMalloc(&hit, W));
  CK(cudaMemset(hit, 0, W));
  wide<<<W, 1>>>(hit);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h.data(), hit, W, cudaMemcpyDeviceToHost));
  check_all(h.data(), W, [](size_t i) { return (unsigned char)(1 + (i & 1)); }, "grid of 65537 blocks");
  CK(cudaFree(hit));

  // Dynamic shared memory.
  const int N = 8 * 128;
  int *in, *out;
  std::vector<int> a(N), r(N);
  for (int i = 0; i < N; i++) a[i] = i * 3 + 1;
  CK(cudaMalloc(&in, N * sizeof(int)));
  CK(cudaMalloc(&out, N * sizeof(int)));
  CK(cudaMemcpy(in, a.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  reverse_dyn<<<8, 128, (128 + 1000) * sizeof(int)>>>(in, out, 1000);
  CK(cudaGetLastError());
  CK(cudaMemcpy(r.data(), out, N * sizeof(int), cudaMemcpyDeviceToHost));
  check_all(r.data(), N, [&](size_t i) { return a[i / 128 * 128 + 127 - i % 128]; }, "dynamic shared memory");
  mixed_shared<<<1, 32, 64 * sizeof(int)>>>(out);
  CK(cudaMemcpy(r.data(), out, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  check_all(r.data(), 32, [](size_t i) { return (int)(3 * (31 - i) + 3000); }, "static + dynamic shared memory");

  // cudaLaunchKernel with an argument array, on a stream.
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  CK(cudaMemset(out, 0, N * sizeof(int)));
  int extra = 5;
  void *args[] = {&in, &out, &extra};
  CK(cudaLaunchKernel((const void *)reverse_dyn, dim3(8), dim3(128), args, (128 + 5) * sizeof(int), st));
  CK(cudaMemcpyAsync(r.data(), out, N * sizeof(int), cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  check_all(r.data(), N, [&](size_t i) { return a[i / 128 * 128 + 127 - i % 128]; }, "cudaLaunchKernel on a stream");

  // cudaLaunchKernelEx (the C++ template over cudaLaunchKernelExC).
  const int M = 1000;
  float *x, *y;
  std::vector<float> hx(M), hy(M);
  for (int i = 0; i < M; i++) hx[i] = i * 0.5f, hy[i] = 1.0f;
  CK(cudaMalloc(&x, M * sizeof(float)));
  CK(cudaMalloc(&y, M * sizeof(float)));
  CK(cudaMemcpy(x, hx.data(), M * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(y, hy.data(), M * sizeof(float), cudaMemcpyHostToDevice));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((M + 255) / 256);
  cfg.blockDim = dim3(256);
  cfg.stream = st;
  CK(cudaLaunchKernelEx(&cfg, saxpy, M, 4.0f, (const float *)x, y));
  CK(cudaMemcpyAsync(hy.data(), y, M * sizeof(float), cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  check_all(hy.data(), M, [](size_t i) { return 2.0f * i + 1.0f; }, "cudaLaunchKernelEx saxpy");

  CK(cudaStreamDestroy(st));
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(x));
  CK(cudaFree(y));
  CK(cudaDeviceSynchronize());
  return finish("launch");
}
