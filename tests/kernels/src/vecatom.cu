// vecatom.cu — an aligned vector load or store of 8 or 16 bytes is one access on the GPU: a CTA that reads a
// cell while another CTA writes it never sees half of one store. CUB's decoupled look-back depends on it (a
// tile's status and value go out in one st.relaxed.gpu.v2.u64 and later CTAs poll them with
// ld.relaxed.gpu.v2.u64), so DeviceRunLengthEncode, DeviceSelect and the scans give wrong answers on a
// simulator that copies a vector element by element while CTAs run on several host threads.
//
// vec_tearing(c16, c4x32, c2x32, vol, bad, iters): block 0's warp writes, for i = 1..iters, its lane's cells:
//   c16[lane]   {i, ~i}               st.relaxed.gpu.global.v2.u64
//   c4x32[lane] {i, i+1, i+2, i+3}    st.relaxed.gpu.global.v4.u32
//   c2x32[lane] {i, ~i}               st.relaxed.gpu.global.v2.u32
//   vol[lane]   {i, ~i}               st.volatile.global.v2.u64 (what older CUB used)
// Every other block's warp reads the same cells iters times and counts, per kind, the reads whose elements do
// not belong to one store, and the reads that saw an older store than the read before (per-location
// coherence). bad[block*8 + k] gets the sums over the warp: k = 0..3 torn, 4..7 backwards. All are 0 on the
// GPU whatever the timing; the cells end with iters. Run it with blocks 32 threads wide.
typedef unsigned long long ull;

static __device__ __forceinline__ void st_v2u64(ull *p, ull a, ull b) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}
static __device__ __forceinline__ void ld_v2u64(const ull *p, ull &a, ull &b) {
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}
static __device__ __forceinline__ void st_v4u32(unsigned *p, unsigned a, unsigned b, unsigned c, unsigned d) {
  asm volatile("st.relaxed.gpu.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(a), "r"(b), "r"(c), "r"(d)
               : "memory");
}
static __device__ __forceinline__ void ld_v4u32(const unsigned *p, unsigned &a, unsigned &b, unsigned &c,
                                                unsigned &d) {
  asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "l"(p)
               : "memory");
}
static __device__ __forceinline__ void st_v2u32(unsigned *p, unsigned a, unsigned b) {
  asm volatile("st.relaxed.gpu.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(a), "r"(b) : "memory");
}
static __device__ __forceinline__ void ld_v2u32(const unsigned *p, unsigned &a, unsigned &b) {
  asm volatile("ld.relaxed.gpu.global.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(p) : "memory");
}
static __device__ __forceinline__ void st_vol(ull *p, ull a, ull b) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}
static __device__ __forceinline__ void ld_vol(const ull *p, ull &a, ull &b) {
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

extern "C" __global__ void vec_tearing(ull *c16, unsigned *c4x32, unsigned *c2x32, ull *vol, unsigned *bad,
                                       int iters) {
  unsigned lane = threadIdx.x & 31;
  ull *p16 = c16 + 2 * lane, *pv = vol + 2 * lane;
  unsigned *p4 = c4x32 + 4 * lane, *p2 = c2x32 + 2 * lane;
  if (blockIdx.x == 0) {
    for (int i = 1; i <= iters; i++) {
      st_v2u64(p16, (ull)i, ~(ull)i);
      st_v4u32(p4, i, i + 1, i + 2, i + 3);
      st_v2u32(p2, i, ~(unsigned)i);
      st_vol(pv, (ull)i, ~(ull)i);
    }
    return;
  }
  unsigned torn[4] = {0, 0, 0, 0}, back[4] = {0, 0, 0, 0};
  ull last[4] = {0, 0, 0, 0};
  for (int i = 0; i < iters; i++) {
    ull a, b;
    unsigned w, x, y, z;
    ld_v2u64(p16, a, b);
    torn[0] += a != 0 && b != ~a;
    back[0] += a < last[0];
    last[0] = a;
    ld_v4u32(p4, w, x, y, z);
    torn[1] += w != 0 && (x != w + 1 || y != w + 2 || z != w + 3);
    back[1] += w < last[1];
    last[1] = w;
    ld_v2u32(p2, w, x);
    torn[2] += w != 0 && x != ~w;
    back[2] += w < last[2];
    last[2] = w;
    ld_vol(pv, a, b);
    torn[3] += a != 0 && b != ~a;
    back[3] += a < last[3];
    last[3] = a;
  }
  for (int k = 0; k < 4; k++) {
    atomicAdd(&bad[blockIdx.x * 8 + k], torn[k]);
    atomicAdd(&bad[blockIdx.x * 8 + 4 + k], back[k]);
  }
}
