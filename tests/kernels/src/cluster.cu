// cluster.cu — thread-block clusters (sm_90): cluster special registers, distributed shared memory,
// the cluster barrier and mbarriers of other CTAs of the cluster. Every kernel has its cluster shape
// compiled in (__cluster_dims__: .reqnctapercluster), so a plain cuLaunchKernel (ptxrun) launches clusters.
//   cluster_sregs_2x2(out): 16 words per block (thread 0): %cluster_ctarank, %cluster_nctarank,
//     %cluster_ctaid.{x,y,z}, %cluster_nctaid.{x,y,z}, %clusterid.{x,y,z}, %nclusterid.{x,y,z},
//     %is_explicit_cluster, cooperative groups' cluster.block_rank(). Grid (4,4), clusters of 2x2x1.
//   cluster_sregs_1x2x2(out): the same with clusters of 1x2x2, grid (2,2,4).
//   cluster_ring(out): clusters of 4 blocks of 128 threads; each block fills its shared array with
//     rank*1000 + i, cluster.sync(), then every thread reads element i of the next rank's array and of the
//     previous rank's (map_shared_rank), cluster.sync() again (no block exits while another reads it); out
//     gets 2 words per thread.
//   cluster_hist(in, out): the CUDA Programming Guide's distributed-shared-memory histogram: clusters of 4
//     blocks of 256 threads, 1024 bins split over the cluster's blocks (256 each), atomicAdd on the owning
//     block's shared bins, then each block adds its bins to the global histogram. in: n = 32768 random words.
//   cluster_split(out): barrier.cluster.arrive.relaxed / wait.acquire split around independent work, three
//     rounds of writing the own shared word and reading the next rank's after each wait; 4 words per thread.
//   cluster_mbar(out): rank 0 owns an mbarrier expecting 3 arrivals; ranks 1..3 each store 32 words into
//     rank 0's shared memory (st.shared::cluster) and arrive on its mbarrier with
//     mbarrier.arrive.release.cluster.shared::cluster; rank 0 waits on it and writes what it received.
//   cluster_dsmem_ptx(out): mapa.shared::cluster, ld/st/atom/red.shared::cluster, getctarank, the generic
//     forms (mapa.u64, cvta.shared::cluster, isspacep.shared::cluster) and fence.acq_rel.cluster; 8 words
//     per thread, clusters of 2.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

static __device__ unsigned sreg(int k) {
  unsigned v = 0;
  switch (k) {
  case 0: asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v)); break;
  case 1: asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v)); break;
  case 2: asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v)); break;
  case 3: asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v)); break;
  case 4: asm volatile("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(v)); break;
  case 5: asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(v)); break;
  case 6: asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(v)); break;
  case 7: asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(v)); break;
  case 8: asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v)); break;
  case 9: asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(v)); break;
  case 10: asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(v)); break;
  case 11: asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v)); break;
  case 12: asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(v)); break;
  case 13: asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(v)); break;
  default: asm volatile("{ .reg .pred q; mov.pred q, %%is_explicit_cluster; selp.u32 %0, 1, 0, q; }" : "=r"(v)); break;
  }
  return v;
}

static __device__ void sregs(unsigned *out) {
  if (threadIdx.x != 0) return;
  unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  for (int k = 0; k < 15; k++) out[b * 16 + k] = sreg(k);
  out[b * 16 + 15] = cg::this_cluster().block_rank();
}

extern "C" __global__ void __cluster_dims__(2, 2, 1) cluster_sregs_2x2(unsigned *out) { sregs(out); }
extern "C" __global__ void __cluster_dims__(1, 2, 2) cluster_sregs_1x2x2(unsigned *out) { sregs(out); }

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_ring(unsigned *out) {
  __shared__ unsigned a[128];
  cg::cluster_group cl = cg::this_cluster();
  unsigned r = cl.block_rank(), n = cl.num_blocks(), i = threadIdx.x;
  a[i] = r * 1000 + i;
  cl.sync();
  unsigned *next = cl.map_shared_rank(a, (r + 1) % n), *prev = cl.map_shared_rank(a, (r + n - 1) % n);
  unsigned t = blockIdx.x * blockDim.x + i;
  out[2 * t] = next[(i * 7) % 128];
  out[2 * t + 1] = prev[127 - i];
  cl.sync();
}

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_hist(const unsigned *in, unsigned *out) {
  extern __shared__ unsigned smem[];
  const int nbins = 1024, per = nbins / 4;
  cg::cluster_group cl = cg::this_cluster();
  for (int i = threadIdx.x; i < per; i += blockDim.x) smem[i] = 0;
  cl.sync();
  unsigned n = 32768, stride = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    unsigned bin = in[i] % nbins, rank = bin / per, off = bin % per;
    unsigned *dst = cl.map_shared_rank(smem, rank);
    atomicAdd(dst + off, 1u);
  }
  cl.sync();
  for (int i = threadIdx.x; i < per; i += blockDim.x) atomicAdd(&out[cl.block_rank() * per + i], smem[i]);
}

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_split(unsigned *out) {
  __shared__ unsigned w[64];
  cg::cluster_group cl = cg::this_cluster();
  unsigned r = cl.block_rank(), i = threadIdx.x, t = blockIdx.x * blockDim.x + i, acc = 0;
  w[i] = r * 100 + i;
  for (int round = 0; round < 3; round++) {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    for (int k = 0; k < 50; k++) acc = acc * 1664525u + 1013904223u + k; /* work between arrive and wait */
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned *nx = cl.map_shared_rank(w, (r + 1) % 4);
    out[4 * t + round] = nx[(i + round) % 64];
    cl.sync();
    w[i] += 7;
  }
  out[4 * t + 3] = acc;
  cl.sync();
}

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_mbar(unsigned *out) {
  __shared__ unsigned long long bar;
  __shared__ unsigned box[3 * 32];
  cg::cluster_group cl = cg::this_cluster();
  unsigned r = cl.block_rank(), i = threadIdx.x;
  unsigned bar_a = (unsigned)__cvta_generic_to_shared(&bar);
  if (r == 0 && i == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 3;" ::"r"(bar_a) : "memory");
  cl.sync();
  if (r != 0) {
    unsigned dst, rbar;
    unsigned box_a = (unsigned)__cvta_generic_to_shared(&box[(r - 1) * 32 + i]);
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(dst) : "r"(box_a));
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(dst), "r"(r * 1000 + i * i) : "memory");
    __syncwarp();
    if (i == 0) {
      asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(rbar) : "r"(bar_a));
      asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(rbar) : "memory");
    }
  } else {
    unsigned ok = 0;
    while (!ok)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                   : "=r"(ok) : "r"(bar_a) : "memory");
    for (int k = 0; k < 3; k++) out[k * 32 + i] = box[k * 32 + i];
  }
  cl.sync();
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_dsmem_ptx(unsigned *out) {
  __shared__ unsigned s[32];
  __shared__ unsigned cnt;
  unsigned i = threadIdx.x, t = blockIdx.x * blockDim.x + i, r, other, a, ra, v, old, rk, sp, ok;
  unsigned long long g, rg;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  s[i] = 50 * r + i;
  if (i == 0) cnt = 0;
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  other = r ^ 1;
  a = (unsigned)__cvta_generic_to_shared(&s[i]);
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(ra) : "r"(a), "r"(other));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(ra) : "memory");
  asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(rk) : "r"(ra));
  unsigned ca = (unsigned)__cvta_generic_to_shared(&cnt), rca;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rca) : "r"(ca), "r"(other));
  asm volatile("atom.shared::cluster.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(rca), "r"(i + 1) : "memory");
  asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(rca), "r"(1000u) : "memory");
  g = (unsigned long long)&s[(i + 5) % 32];
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(rg) : "l"(g), "r"(other));
  asm volatile("{ .reg .pred p; isspacep.shared::cluster p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(sp) : "l"(rg));
  asm volatile("{ .reg .pred p; isspacep.shared::cta p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "l"(g));
  unsigned gv = *(volatile unsigned *)rg;
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(ra), "r"(v + 7) : "memory");
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  out[8 * t + 0] = v;
  out[8 * t + 1] = rk;
  out[8 * t + 2] = old <= (31 * 32 / 2 + 32 * 1000) ? 1 : 0; /* some order of the other block's adds */
  out[8 * t + 3] = cnt;
  out[8 * t + 4] = sp;
  out[8 * t + 5] = ok;
  out[8 * t + 6] = gv;
  out[8 * t + 7] = s[i];
}
