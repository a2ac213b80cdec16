// l2_persist.cu — what programs tuning the L2 cache ask of the device (CUDA programming guide, "L2 cache set-aside
// for persisting accesses"): the attributes, the persisting-L2 limit, an access policy window on a stream and the
// reset. Only relations are printed (the sizes are the hardware's).
#include "check.h"

__global__ void touch(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += i;
}

int main() {
  begin();
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int l2 = 0, maxp = 0, win = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxPersistingL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&win, cudaDevAttrMaxAccessPolicyWindowSize, 0));
  check(l2 > 0 && l2 == p.l2CacheSize, "cudaDevAttrL2CacheSize matches the properties");
  check(maxp > 0 && maxp < l2 && maxp == p.persistingL2CacheMaxSize, "persisting L2 is a part of the L2");
  check(win >= (1 << 20) && win == p.accessPolicyMaxWindowSize, "an access policy window may be 1 MiB or more");

  size_t v = 0, v0 = 0;
  CK(cudaDeviceGetLimit(&v0, cudaLimitPersistingL2CacheSize));
  check(v0 <= (size_t)maxp, "the persisting-L2 limit starts within the maximum");
  CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20));
  CK(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize));
  check(v >= (1u << 20) && v <= (size_t)maxp, "a limit of 1 MiB is kept, rounded up within the maximum");
  cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)maxp * 4);
  check(e == cudaErrorInvalidValue, "a limit past the maximum is refused (%s)", cudaGetErrorName(e));
  cudaGetLastError();
  size_t v2 = 0;
  CK(cudaDeviceGetLimit(&v2, cudaLimitPersistingL2CacheSize));
  check(v2 == v, "... and the limit stays as it was");

  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  int *d;
  const int n = 1 << 18;
  CK(cudaMalloc(&d, n * sizeof(int)));
  CK(cudaMemset(d, 0, n * sizeof(int)));
  cudaStreamAttrValue a = {}, b = {};
  a.accessPolicyWindow.base_ptr = d;
  a.accessPolicyWindow.num_bytes = n * sizeof(int);
  a.accessPolicyWindow.hitRatio = 0.5f;
  a.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  a.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  check_cuda(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &a), "cudaStreamSetAttribute(window)");
  check_cuda(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &b), "cudaStreamGetAttribute(window)");
  check(b.accessPolicyWindow.base_ptr == d && b.accessPolicyWindow.num_bytes == n * sizeof(int) &&
            b.accessPolicyWindow.hitRatio == 0.5f && b.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
            b.accessPolicyWindow.missProp == cudaAccessPropertyStreaming,
        "the window reads back as set");
  touch<<<n / 256, 256, 0, s>>>(d, n);
  CK(cudaStreamSynchronize(s));
  int h[4];
  CK(cudaMemcpy(h, d + n - 4, sizeof h, cudaMemcpyDeviceToHost));
  check(h[0] == n - 4 && h[3] == n - 1, "a kernel in the stream with a window runs");
  a.accessPolicyWindow.num_bytes = 0; // removes the window
  check_cuda(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &a), "a window of 0 bytes");
  check_cuda(cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
  CK(cudaStreamDestroy(s));
  CK(cudaFree(d));
  return finish("l2_persist");
}
