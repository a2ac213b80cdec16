// mp_generic.cu — memprobe's generic-addressing kernel, alone in its module (see memprobe.cu).
typedef unsigned long long u64;

// Generic loads through cvta.shared.u64 of a shared address computed in 32 bits (0) or 64 bits (1);
// isspacep.shared of the 64-bit one (2); the generic distance between the two (3).
__global__ void k_generic(int form, unsigned arg, unsigned *out) {
  __shared__ unsigned s[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) s[i] = 0x5a000000u | i;
  __syncthreads();
  unsigned base = (unsigned)__cvta_generic_to_shared(s);
  u64 s32 = (unsigned)(base + arg + 8), s64 = (u64)base + arg + 8, g32, g64;
  asm volatile("cvta.shared.u64 %0, %1;" : "=l"(g32) : "l"(s32));
  asm volatile("cvta.shared.u64 %0, %1;" : "=l"(g64) : "l"(s64));
  unsigned v = 0xeeeeeeeeu, p = 0;
  switch (form) {
  case 0: v = *(volatile unsigned *)g32; break;
  case 1: v = *(volatile unsigned *)g64; break;
  case 2: asm volatile("{ .reg .pred q; isspacep.shared q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(p) : "l"(g64)); v = p; break;
  case 3: out[1] = (unsigned)((g64 - g32) >> 32); v = (unsigned)(g64 - g32); break;
  }
  out[0] = v;
}

void launch_generic(int form, unsigned arg, unsigned *out) { k_generic<<<1, 32>>>(form, arg, out); }
