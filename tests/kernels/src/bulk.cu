// bulk.cu — the sm_90 bulk asynchronous copies, written as inline PTX (what CUTLASS and libcu++ emit):
//   bulk_g2s(in, out): each block copies 1024 bytes of `in` (at block * 1024) into shared memory with
//     cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes (plus cp.async.bulk.prefetch.L2 of the
//     next block's part), waits on the mbarrier (arrive.expect_tx by thread 0, arrive by the others), and
//     writes word i + 1 * 3 of it to out. 256 words per block.
//   bulk_s2g(out): each block fills 512 bytes of shared memory, fence.proxy.async, thread 0 copies them to out
//     with cp.async.bulk.global.shared::cta.bulk_group, commit_group, wait_group.read 0 and wait_group 0; then a
//     second copy of the first 256 bytes over the next part, so the order of two bulk groups shows.
//   bulk_reduce(out32, outf, out64): every block reduces its shared array into the same global words with
//     cp.reduce.async.bulk.global.shared::cta.bulk_group .add.u32, .min.s32, .max.u32, .and.b32, .or.b32,
//     .xor.b32, and from block 0 only .inc.u32, .dec.u32 (out32: 8 arrays of 64 words, initially 0, 1, 2, ...),
//     .add.f32 with exactly representable sums
//     (outf: 64 words), .add.u64 (out64: 32 words).
//   bulk_mcast(in, out): clusters of 4; rank 0 issues one cp.async.bulk ... .multicast::cluster with mask 0xb
//     (ranks 0, 1, 3) of 256 bytes; ranks 0, 1 and 3 wait on their own mbarrier, rank 2 gets nothing (keeps
//     its own fill); each block writes its 64 shared words to out.
//   bulk_remote(out): clusters of 2; each block copies its shared array into the other block's with
//     cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes, completing on the other block's
//     mbarrier; each block writes what it received.
#include <cstdint>

static __device__ unsigned saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

static __device__ void mbar_init(unsigned long long *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(saddr(bar)), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

static __device__ void mbar_wait(unsigned long long *bar, unsigned parity) {
  unsigned ok = 0;
  while (!ok)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(saddr(bar)), "r"(parity) : "memory");
}

extern "C" __global__ void bulk_g2s(const unsigned *in, unsigned *out) {
  __shared__ alignas(128) unsigned s[256];
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) mbar_init(&bar, blockDim.x);
  __syncthreads();
  const unsigned *src = in + blockIdx.x * 256;
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], 1024;" ::"l"(src + 256 * ((blockIdx.x + 1) % gridDim.x)) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(saddr(&bar)) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];"
                 ::"r"(saddr(s)), "l"(src), "r"(saddr(&bar)) : "memory");
  } else {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(saddr(&bar)) : "memory");
  }
  mbar_wait(&bar, 0);
  for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) out[blockIdx.x * 256 + i] = s[(i * 3 + 1) % 256];
}

extern "C" __global__ void bulk_s2g(unsigned *out) {
  __shared__ alignas(128) unsigned s[128];
  for (unsigned i = threadIdx.x; i < 128; i += blockDim.x) s[i] = blockIdx.x * 1000 + i * i;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned *dst = out + blockIdx.x * 256;
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 512;" ::"l"(dst), "r"(saddr(s)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" ::"l"(dst + 128), "r"(saddr(s + 64)) : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" ::"l"(dst + 192), "r"(saddr(s)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

extern "C" __global__ void bulk_reduce(unsigned *out32, float *outf, unsigned long long *out64) {
  __shared__ alignas(128) unsigned s[64];
  __shared__ alignas(128) float f[64];
  __shared__ alignas(128) unsigned long long q[32];
  unsigned b = blockIdx.x, i = threadIdx.x;
  if (i < 64) {
    s[i] = (b * 7 + i * 13) % 50 + (i & 1 ? 0x80000000u : 0);
    f[i] = (float)((b + 1) * (i + 1)) * 0.25f;
  }
  if (i < 32) q[i] = ((unsigned long long)(b + 1) << 33) + i;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (i == 0) {
    unsigned ss = saddr(s);
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 256;" ::"l"(out32 + 0), "r"(ss) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [%0], [%1], 256;" ::"l"(out32 + 64), "r"(ss) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u32 [%0], [%1], 256;" ::"l"(out32 + 128), "r"(ss) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.and.b32 [%0], [%1], 256;" ::"l"(out32 + 192), "r"(ss) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.or.b32 [%0], [%1], 256;" ::"l"(out32 + 256), "r"(ss) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b32 [%0], [%1], 256;" ::"l"(out32 + 320), "r"(ss) : "memory");
    if (b == 0) { /* inc and dec depend on the order of the blocks' reductions: one block only */
      asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32 [%0], [%1], 256;" ::"l"(out32 + 384), "r"(ss) : "memory");
      asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.dec.u32 [%0], [%1], 256;" ::"l"(out32 + 448), "r"(ss) : "memory");
    }
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], 256;" ::"l"(outf), "r"(saddr(f)) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u64 [%0], [%1], 256;" ::"l"(out64), "r"(saddr(q)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

extern "C" __global__ void __cluster_dims__(4, 1, 1) bulk_mcast(const unsigned *in, unsigned *out) {
  __shared__ alignas(128) unsigned s[64];
  __shared__ unsigned long long bar;
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  for (unsigned i = threadIdx.x; i < 64; i += blockDim.x) s[i] = 0xdead0000u + r * 256 + i;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    if (r != 2) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(saddr(&bar)) : "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (r == 0 && threadIdx.x == 0) {
    unsigned short mask = 0xb;
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], 256, [%2], %3;"
                 ::"r"(saddr(s)), "l"(in + 64 * (blockIdx.x / 4)), "r"(saddr(&bar)), "h"(mask) : "memory");
  }
  if (r != 2) mbar_wait(&bar, 0);
  for (unsigned i = threadIdx.x; i < 64; i += blockDim.x) out[blockIdx.x * 64 + i] = s[i];
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) bulk_remote(unsigned *out) {
  __shared__ alignas(128) unsigned mine[64], got[64];
  __shared__ unsigned long long bar;
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  for (unsigned i = threadIdx.x; i < 64; i += blockDim.x) mine[i] = blockIdx.x * 100 + i, got[i] = 0;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(saddr(&bar)) : "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    unsigned dst, rbar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(saddr(got)), "r"(r ^ 1));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(saddr(&bar)), "r"(r ^ 1));
    asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], 256, [%2];"
                 ::"r"(dst), "r"(saddr(mine)), "r"(rbar) : "memory");
  }
  mbar_wait(&bar, 0);
  for (unsigned i = threadIdx.x; i < 64; i += blockDim.x) out[blockIdx.x * 64 + i] = got[i];
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// st_async(out): clusters of 2 blocks of 64 threads; thread i stores 1000 * rank + i into the other block's
// got[i] with st.async (and a .v2.u32 pair into pair[i]) and adds i + 1 to its counter with red.async.add.u32,
// all completing on the other block's mbarrier (which expects 64 * (4 + 8 + 4) bytes); out: got, pair, counter.
extern "C" __global__ void __cluster_dims__(2, 1, 1) st_async(unsigned *out) {
  __shared__ alignas(16) unsigned got[64], pair[128];
  __shared__ unsigned counter;
  __shared__ unsigned long long bar;
  unsigned r, i = threadIdx.x;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  if (i == 0) {
    counter = 0;
    mbar_init(&bar, 1);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(saddr(&bar)), "r"(64u * 16u) : "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  unsigned dst, dpair, dcnt, rbar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(saddr(&got[i])), "r"(r ^ 1));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dpair) : "r"(saddr(&pair[2 * i])), "r"(r ^ 1));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dcnt) : "r"(saddr(&counter)), "r"(r ^ 1));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(saddr(&bar)), "r"(r ^ 1));
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(dst), "r"(1000 * r + i), "r"(rbar) : "memory");
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%0], {%1, %2}, [%3];"
               ::"r"(dpair), "r"(i), "r"(r), "r"(rbar) : "memory");
  asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];"
               ::"r"(dcnt), "r"(i + 1), "r"(rbar) : "memory");
  mbar_wait(&bar, 0);
  out[blockIdx.x * 193 + i] = got[i];
  out[blockIdx.x * 193 + 64 + 2 * i] = pair[2 * i];
  out[blockIdx.x * 193 + 65 + 2 * i] = pair[2 * i + 1];
  if (i == 0) out[blockIdx.x * 193 + 192] = counter;
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// reduce_dsmem(out): clusters of 2 blocks of 64 threads; each block adds its 64 words (1000 * rank + i) into the
// other block's acc (initially 7 * i) with cp.reduce.async.bulk.shared::cluster.shared::cta...add.u32, and takes
// the max of them into its mx (initially 1500) with .max.u32, completing on the other block's mbarrier; out: acc, mx.
extern "C" __global__ void __cluster_dims__(2, 1, 1) reduce_dsmem(unsigned *out) {
  __shared__ alignas(128) unsigned mine[64], acc[64], mx[64];
  __shared__ unsigned long long bar;
  unsigned r, i = threadIdx.x;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  mine[i] = 1000 * r + i, acc[i] = 7 * i, mx[i] = 1500;
  if (i == 0) {
    mbar_init(&bar, 1);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;" ::"r"(saddr(&bar)) : "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (i == 0) {
    unsigned dacc, dmx, rbar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dacc) : "r"(saddr(acc)), "r"(r ^ 1));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dmx) : "r"(saddr(mx)), "r"(r ^ 1));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(saddr(&bar)), "r"(r ^ 1));
    asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%0], [%1], 256, [%2];"
                 ::"r"(dacc), "r"(saddr(mine)), "r"(rbar) : "memory");
    asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.max.u32 [%0], [%1], 256, [%2];"
                 ::"r"(dmx), "r"(saddr(mine)), "r"(rbar) : "memory");
  }
  mbar_wait(&bar, 0);
  out[blockIdx.x * 128 + i] = acc[i];
  out[blockIdx.x * 128 + 64 + i] = mx[i];
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
