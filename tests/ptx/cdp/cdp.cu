// cdp.cu — kernels for tests/unit/test_cdp.c (dynamic parallelism through the C API). cdp.ptx is
//   nvcc -rdc=true -arch=sm_90 -ptx cdp.cu -o cdp.ptx        (CUDA 13.0)
#include <cstdio>

// A tree sum: each grid halves its range until 32 values are left.
extern "C" __global__ void tree(const int *in, int n, unsigned long long *total, int *grids) {
  if (threadIdx.x == 0) atomicAdd(grids, 1);
  if (n <= 32) {
    if (threadIdx.x < n) atomicAdd(total, (unsigned long long)in[threadIdx.x]);
    return;
  }
  if (threadIdx.x == 0) {
    tree<<<1, 32>>>(in, n / 2, total, grids);
    tree<<<1, 32>>>(in + n / 2, n - n / 2, total, grids);
  }
}

// log[1 + atomicAdd(&log[0], 1)] = id: the order grids ran in.
extern "C" __global__ void note(int *log, int id, int kids) {
  log[1 + atomicAdd(&log[0], 1)] = id;
  for (int k = 1; k <= kids; k++) note<<<1, 1>>>(log, id * 10 + k, 0);
}

// Thread 0 of each block: a tail launch first, then two NULL-stream children (the second with one child).
extern "C" __global__ void order(int *log) {
  if (threadIdx.x != 0) return;
  int b = (blockIdx.x + 1) * 100;
  note<<<1, 1, 0, cudaStreamTailLaunch>>>(log, b + 9, 0);
  note<<<1, 1>>>(log, b + 1, 0);
  note<<<1, 1>>>(log, b + 2, 1);
}

extern "C" __global__ void write_one(int *out, int i, int v) { out[i] = v; }

// Every thread launches a child; odd ones fire-and-forget.
extern "C" __global__ void per_thread(int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  write_one<<<1, 1, 0, (i & 1) ? cudaStreamFireAndForget : 0>>>(out, i, 3 * i + 1);
}

extern "C" __global__ void hello(int id) { printf("grid %d thread %d\n", id, threadIdx.x); }

// Every block's thread 0 launches a printing grid of 2 threads.
extern "C" __global__ void say(void) {
  if (threadIdx.x == 0) hello<<<1, 2>>>((int)blockIdx.x);
}

extern "C" __global__ void nop(void) {}

// The device runtime's error state: out[] gets the codes.
extern "C" __global__ void errors(int *out) {
  out[0] = cudaGetLastError();
  nop<<<1, 2048>>>();
  out[1] = cudaPeekAtLastError();
  out[2] = cudaGetLastError();
  out[3] = cudaGetLastError();
  nop<<<dim3(1, 70000), 1>>>();
  out[4] = cudaGetLastError();
  int v = 0;
  out[5] = cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0);
  out[6] = v;
  out[7] = cudaGetLastError();
  int d = -1;
  out[8] = cudaGetDevice(&d);
  out[9] = d;
  cudaStream_t s;
  out[10] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  nop<<<1, 1, 0, s>>>();
  out[11] = cudaGetLastError();
  out[12] = cudaStreamDestroy(s);
  void *p = nullptr;
  out[13] = cudaMalloc(&p, 100);
  out[14] = p != nullptr;
  out[15] = cudaFree(p);
  out[16] = cudaMalloc(&p, (size_t)1 << 40);
  out[17] = cudaGetLastError();
}

// Nested launches until one fails: out[0] the deepest level, out[1] the error.
extern "C" __global__ void dive(int level, int *out) {
  atomicMax(&out[0], level);
  if (level >= 40) return;
  dive<<<1, 1>>>(level + 1, out);
  int e = cudaGetLastError();
  if (e) out[1] = e;
}

extern "C" __global__ void count(int *n) { atomicAdd(n, 1); }

// n tail launches; out[0] how many were launched, out[1] the first error.
extern "C" __global__ void tails(int n, int *out, int *ran) {
  for (int i = 0; i < n; i++) {
    count<<<1, 1, 0, cudaStreamTailLaunch>>>(ran);
    int e = cudaGetLastError();
    if (!e) out[0]++;
    else if (!out[1]) out[1] = e;
  }
}

extern "C" __global__ void bad_store(int *p) { p[0] = 1; }
extern "C" __global__ void faults(int *p) { bad_store<<<1, 1>>>(p); }

extern "C" __global__ void twice(const int *src, int *dst) { dst[threadIdx.x] = 2 * src[threadIdx.x]; }

// Device-side copies and sets, and a launch after them in the same stream; err[] gets the codes.
extern "C" __global__ void copies(const int *a, int *b, int *c, int *err) {
  err[0] = cudaMemcpyAsync(b, a, 64 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
  err[1] = cudaMemsetAsync(c, 1, 64 * sizeof(int), 0);
  twice<<<1, 64>>>(b, c + 64);
  err[2] = cudaMemcpyAsync(b, a, sizeof(int), cudaMemcpyHostToDevice, 0);
  int local = 0;
  err[3] = cudaMemsetAsync(&local, 0, sizeof local, 0);
  const char *s = cudaGetErrorName(cudaErrorInvalidValue);
  err[4] = s == nullptr ? -1 : s[0] == 'c' ? 1 : 0;
}
