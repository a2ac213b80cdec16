// tmap.cu — a tensor map built on the device (sm_90a), as Triton builds them: 128 zero bytes in shared memory,
// every field set with tensormap.replace, copied to global memory with tensormap.cp_fenceproxy and made visible
// to the tensor copies with fence.proxy.tensormap::generic.acquire; then a 2-D tile load with it (and a store of
// the tile, changed, back through the same map). No host encoder is involved, so ptxrun can run it.
//   tmap_build(in, map, out, back): in is a 40 x 10 int tensor (rand32); the map's box is 16 x 4 at (8, 3) and
//   then at (32, 8) (partly outside: zeros); out gets both tiles (128 words); back is `in` after the store of the
//   first tile + 1.
#include <cstdint>

static __device__ unsigned saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

static __device__ void load(const void *map, int x, int y, int *s, unsigned long long *bar, unsigned parity) {
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(saddr(bar)) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(saddr(s)), "l"(map), "r"(x), "r"(y), "r"(saddr(bar)) : "memory");
  }
  unsigned ok = 0;
  while (!ok)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(saddr(bar)), "r"(parity) : "memory");
}

extern "C" __global__ void tmap_build(int *in, void *map, int *out, int *back) {
  __shared__ alignas(128) unsigned m[32];
  __shared__ alignas(128) int s[64];
  __shared__ unsigned long long bar;
  if (threadIdx.x < 32) m[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned a = saddr(m);
    asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(a), "l"(in) : "memory");
    asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 1;" ::"r"(a) : "memory");
    asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(a), "r"(16) : "memory");
    asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(a), "r"(4) : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(a), "r"(40) : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(a), "r"(10) : "memory");
    asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;" ::"r"(a), "l"(160ull) : "memory");
    asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(a), "r"(1) : "memory");
    asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(a), "r"(1) : "memory");
    asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 3;" ::"r"(a) : "memory");
    asm volatile("tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%0], 0;" ::"r"(a) : "memory");
    asm volatile("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 0;" ::"r"(a) : "memory");
    asm volatile("tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%0], 0;" ::"r"(a) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(saddr(&bar)) : "memory");
  }
  __syncwarp();
  if (threadIdx.x < 32)
    asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
                 ::"l"(map), "r"(saddr(m)) : "memory");
  __syncthreads();
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map) : "memory");
  load(map, 8, 3, s, &bar, 0);
  out[threadIdx.x] = s[threadIdx.x];
  __syncthreads();
  s[threadIdx.x] += 1;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                 ::"l"(map), "r"(8), "r"(3), "r"(saddr(s)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  __syncthreads();
  load(map, 32, 8, s, &bar, 1);
  out[64 + threadIdx.x] = s[threadIdx.x];
  for (int i = threadIdx.x; i < 400; i += blockDim.x) back[i] = in[i];
}
