// mp_shared.cu — memprobe's static shared-memory kernel, alone in its module (see memprobe.cu).
typedef unsigned long long u64;

// s[i] = 0x5a000000 | i (1024 bytes of static shared memory); then one address form reads it.
__global__ void k_shared(int form, unsigned arg, unsigned *out) {
  __shared__ unsigned s[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) s[i] = 0x5a000000u | i;
  __syncthreads();
  unsigned base = (unsigned)__cvta_generic_to_shared(s), v = 0xeeeeeeeeu;
  unsigned r = base + arg;               // 32-bit: wraps in the register
  u64 rd = (u64)base + arg;              // 64-bit: does not
  switch (form) {
  case 0: asm volatile("ld.shared.u32 %0, [%1+8];" : "=r"(v) : "r"(r) : "memory"); break;
  case 1: asm volatile("ld.shared.u32 %0, [%1+-8];" : "=r"(v) : "r"(r) : "memory"); break;
  case 2: asm volatile("ld.shared.u32 %0, [%1+8];" : "=r"(v) : "l"(rd) : "memory"); break;
  case 3: asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "l"(rd + (1ull << 32)) : "memory"); break;
  case 4: asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(r) : "memory"); break;
  case 5: // a store through [%r+8], then the word it reached read by index
    asm volatile("st.shared.u32 [%0+8], %1;" ::"r"(r), "r"(0x12345678u) : "memory");
    v = (s[1] == 0x12345678u) + 2 * (s[2] == 0x12345678u) + 4 * (s[0] == 0x12345678u);
    break;
  case 6: asm volatile("ld.shared.u32 %0, [%1+1024];" : "=r"(v) : "r"(r) : "memory"); break;
  case 7: asm volatile("st.shared.u32 [%0], %1;" ::"r"(r), "r"(0x77u) : "memory"); v = 1; break;
  }
  out[0] = v;
}

void launch_shared(int form, unsigned arg, unsigned *out) { k_shared<<<1, 32>>>(form, arg, out); }
