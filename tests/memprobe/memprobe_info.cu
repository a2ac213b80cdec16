// memprobe_info.cu — GPU-only facts that decide warpvm's model of shared and local memory (recorded by
// run_on_gpu.sh, not replayed: it reads special registers warpvm does not implement). One "name: value"
// line each: where the user's shared memory starts in the CTA's shared window (sm_80+ reserve 1 KiB for
// the system), what the window holds in all, where the generic windows lie, how much local memory a
// thread has (cudaLimitStackSize), and what the device and the kernel say about shared memory.
#include <cstdio>

typedef unsigned long long u64;

__global__ void k_info(u64 *out) {
  __shared__ unsigned s[256];
  extern __shared__ unsigned d[];
  volatile unsigned l[16];
  s[threadIdx.x] = threadIdx.x;
  d[threadIdx.x] = threadIdx.x;
  l[threadIdx.x & 15] = 1;
  unsigned v[5];
  asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(v[0]));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(v[1]));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(v[2]));
  asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(v[3]));
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(v[4]));
  u64 g0, l0;
  asm volatile("cvta.shared.u64 %0, %1;" : "=l"(g0) : "l"(0ull));
  asm volatile("cvta.local.u64 %0, %1;" : "=l"(l0) : "l"(0ull));
  if (threadIdx.x == 0) {
    for (int i = 0; i < 5; i++) out[i] = v[i];
    out[5] = __cvta_generic_to_shared(s);
    out[6] = __cvta_generic_to_shared(d);
    out[7] = (u64)(void *)s;
    out[8] = g0;
    out[9] = l0;
    out[10] = __cvta_generic_to_local((const void *)l);
    out[11] = (u64)(const void *)l;
  }
}

int main() {
  u64 *d, h[12] = {0};
  cudaMalloc(&d, sizeof h);
  k_info<<<1, 32, 100>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("kernel: %s\n", cudaGetErrorName(e));
  const char *names[] = {"%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
                         "%total_smem_size (1024 static + 100 dynamic)", "%dynamic_smem_size",
                         "shared address of a static __shared__ array", "shared address of the dynamic shared array",
                         "generic address of the static array", "cvta.shared.u64 of 0 (the shared window)",
                         "cvta.local.u64 of 0 (the local window)", "local address of a local array",
                         "generic address of the local array"};
  for (int i = 0; i < 12; i++) printf("%s: 0x%llx\n", names[i], h[i]);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("device: %s, compute capability %d.%d\n", p.name, p.major, p.minor);
  printf("sharedMemPerBlock: %zu\nsharedMemPerBlockOptin: %zu\nreservedSharedMemPerBlock: %zu\n"
         "sharedMemPerMultiprocessor: %zu\n",
         p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock, p.sharedMemPerMultiprocessor);
  size_t stack = 0;
  cudaDeviceGetLimit(&stack, cudaLimitStackSize);
  printf("cudaLimitStackSize: %zu\n", stack);
  cudaFuncAttributes a;
  cudaFuncGetAttributes(&a, k_info);
  printf("k_info: sharedSizeBytes %zu, localSizeBytes %zu\n", a.sharedSizeBytes, a.localSizeBytes);
  int gran = 0;
  cudaDeviceGetAttribute(&gran, cudaDevAttrReservedSharedMemoryPerBlock, 0);
  printf("cudaDevAttrReservedSharedMemoryPerBlock: %d\n", gran);
  return 0;
}
