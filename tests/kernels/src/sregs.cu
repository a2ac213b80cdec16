// sregs.cu — the special registers whose value a launch decides (PTX ISA chapter 10), as an H100 gives them
// to a launch without clusters.
//   sregs_block(out): 24 words per thread: %tid.x/y/z, %ntid.x/y/z, %ctaid.x/y/z, %nctaid.x/y/z,
//     %laneid, %lanemask_eq/lt/le/gt/ge, %cluster_ctarank, %cluster_nctarank, %is_explicit_cluster,
//     and 1/0 for 0 <= %smid < %nsmid, %warpid < %nwarpid, %nwarpid >= the CTA's warps.
//   sregs_cluster(out): 16 words per thread: %clusterid.x/y/z, %nclusterid.x/y/z, %cluster_ctaid.x/y/z,
//     %cluster_nctaid.x/y/z, %current_graph_exec (low and high words: 0 outside a device graph),
//     %envreg0 and %envreg3 (what the driver leaves there for a normal launch).
//   sregs_smem(out) (static __shared__ of 1000 bytes, launched with dynamic shared memory): 12 words for
//     thread 0 (the others write nothing): %dynamic_smem_size, %total_smem_size, %aggr_smem_size,
//     %reserved_smem_offset_begin/end/cap/0/1, %envreg10, %envreg11 (the driver's words ptxas reads
//     %reserved_smem_offset_end and _1 from on sm_90), the .shared address of the static array, and of
//     the dynamic one.
//   sregs_clocks(out): 4 words per thread, 1 when true: %clock64 does not go back between two reads,
//     %clock is its low word (to within the time between the reads), %globaltimer_hi is the high word of
//     %globaltimer (read around it), %clock_hi is %clock64's high word (read around it).
#include <cuda_runtime.h>

#define SREG(name, v) asm volatile("mov.u32 %0, %%" name ";" : "=r"(v))
#define SREG64(name, v) asm volatile("mov.u64 %0, %%" name ";" : "=l"(v))

extern "C" __global__ void sregs_block(unsigned *out) {
  unsigned t = ((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y * blockDim.z +
               (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  unsigned *o = out + 24 * t, v;
  SREG("tid.x", o[0]); SREG("tid.y", o[1]); SREG("tid.z", o[2]);
  SREG("ntid.x", o[3]); SREG("ntid.y", o[4]); SREG("ntid.z", o[5]);
  SREG("ctaid.x", o[6]); SREG("ctaid.y", o[7]); SREG("ctaid.z", o[8]);
  SREG("nctaid.x", o[9]); SREG("nctaid.y", o[10]); SREG("nctaid.z", o[11]);
  SREG("laneid", o[12]);
  SREG("lanemask_eq", o[13]); SREG("lanemask_lt", o[14]); SREG("lanemask_le", o[15]);
  SREG("lanemask_gt", o[16]); SREG("lanemask_ge", o[17]);
  SREG("cluster_ctarank", o[18]); SREG("cluster_nctarank", o[19]);
  asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(v));
  o[20] = v;
  unsigned smid, nsmid, warpid, nwarpid;
  SREG("smid", smid); SREG("nsmid", nsmid); SREG("warpid", warpid); SREG("nwarpid", nwarpid);
  unsigned warps = (blockDim.x * blockDim.y * blockDim.z + 31) / 32;
  o[21] = smid < nsmid;
  o[22] = warpid < nwarpid;
  o[23] = nwarpid >= warps;
}

extern "C" __global__ void sregs_cluster(unsigned *out) {
  unsigned t = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned *o = out + 16 * t;
  SREG("clusterid.x", o[0]); SREG("clusterid.y", o[1]); SREG("clusterid.z", o[2]);
  SREG("nclusterid.x", o[3]); SREG("nclusterid.y", o[4]); SREG("nclusterid.z", o[5]);
  SREG("cluster_ctaid.x", o[6]); SREG("cluster_ctaid.y", o[7]); SREG("cluster_ctaid.z", o[8]);
  SREG("cluster_nctaid.x", o[9]); SREG("cluster_nctaid.y", o[10]); SREG("cluster_nctaid.z", o[11]);
  unsigned long long g;
  SREG64("current_graph_exec", g);
  o[12] = (unsigned)g;
  o[13] = (unsigned)(g >> 32);
  SREG("envreg0", o[14]);
  SREG("envreg3", o[15]);
}

extern "C" __global__ void sregs_smem(unsigned *out) {
  __shared__ unsigned char s[1000];
  extern __shared__ unsigned char d[];
  s[threadIdx.x] = (unsigned char)threadIdx.x;
  d[threadIdx.x] = (unsigned char)threadIdx.x;
  __syncthreads();
  if (threadIdx.x != 0) return;
  SREG("dynamic_smem_size", out[0]); SREG("total_smem_size", out[1]); SREG("aggr_smem_size", out[2]);
  SREG("reserved_smem_offset_begin", out[3]); SREG("reserved_smem_offset_end", out[4]);
  SREG("reserved_smem_offset_cap", out[5]); SREG("reserved_smem_offset_0", out[6]);
  SREG("reserved_smem_offset_1", out[7]);
  SREG("envreg10", out[8]); SREG("envreg11", out[9]);
  out[10] = (unsigned)__cvta_generic_to_shared(s) + s[5] - 5;
  out[11] = (unsigned)__cvta_generic_to_shared(d) + d[7] - 7;
}

extern "C" __global__ void sregs_clocks(unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, *o = out + 4 * t;
  unsigned long long a, b, g0, g1, c0, c1;
  unsigned lo, ghi, chi;
  SREG64("clock64", a);
  SREG("clock", lo);
  SREG64("clock64", b);
  o[0] = b >= a;
  o[1] = lo - (unsigned)a <= (unsigned)(b - a);
  SREG64("globaltimer", g0);
  SREG("globaltimer_hi", ghi);
  SREG64("globaltimer", g1);
  o[2] = ghi >= (unsigned)(g0 >> 32) && ghi <= (unsigned)(g1 >> 32);
  SREG64("clock64", c0);
  SREG("clock_hi", chi);
  SREG64("clock64", c1);
  o[3] = chi >= (unsigned)(c0 >> 32) && chi <= (unsigned)(c1 >> 32);
}
