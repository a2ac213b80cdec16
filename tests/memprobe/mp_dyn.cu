// mp_dyn.cu — memprobe's dynamic shared-memory kernel, alone in its module (see memprobe.cu).
__global__ void k_dyn(unsigned arg, unsigned *out) {
  extern __shared__ unsigned d[];
  for (int i = threadIdx.x; i < 25; i += blockDim.x) d[i] = 0xd0000000u | i;
  __syncthreads();
  unsigned base = (unsigned)__cvta_generic_to_shared(d), v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(base + arg) : "memory");
  out[0] = v;
}

void launch_dyn(unsigned arg, unsigned *out) { k_dyn<<<1, 32, 100>>>(arg, out); }
