// tma_more.cu — more of the Tensor Memory Accelerator, in the inline PTX CUTLASS writes: a 3-D box with element
// strides, a tensor map kept in global memory (prefetch.tensormap), a 1-D box, a tensor reduction into global
// memory (cp.reduce.async.bulk.tensor .add and .max), and a load multicast to both blocks of a cluster. Tensor
// maps come from cuTensorMapEncodeTiled through cudaGetDriverEntryPoint. Every result is compared with what the
// host computes from the documented semantics, and a few values are printed.
#include "check.h"

#include <cuda.h>

#include <vector>

static __device__ unsigned saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

static __device__ void bar_init(unsigned long long *bar, unsigned bytes) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(saddr(bar)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(saddr(bar)), "r"(bytes) : "memory");
}

static __device__ void bar_wait(unsigned long long *bar) {
  unsigned ok = 0;
  while (!ok)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(saddr(bar)) : "memory");
}

// 3-D box of floats (box 8 x 4 x 2 with element strides 2, 1, 1: 4 x 4 x 2 elements) at (x, y, z).
__global__ void load3d(const __grid_constant__ CUtensorMap map, int x, int y, int z, float *out) {
  __shared__ alignas(128) float s[32];
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) {
    bar_init(&bar, sizeof s);
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                 ::"r"(saddr(s)), "l"(&map), "r"(x), "r"(y), "r"(z), "r"(saddr(&bar)) : "memory");
  }
  __syncthreads();
  bar_wait(&bar);
  out[threadIdx.x] = s[threadIdx.x];
}

// The map in global memory; a 1-D box of 64 ints at x.
__global__ void load1d(const CUtensorMap *map, int x, int *out) {
  __shared__ alignas(128) int s[64];
  __shared__ unsigned long long bar;
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
  if (threadIdx.x == 0) {
    bar_init(&bar, sizeof s);
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                 ::"r"(saddr(s)), "l"(map), "r"(x), "r"(saddr(&bar)) : "memory");
  }
  __syncthreads();
  bar_wait(&bar);
  out[threadIdx.x] = s[threadIdx.x];
}

// Every block adds its 16 x 8 tile (block b: value 100 * b + i) into the tensor at (x, y) and takes the max into a
// second tensor, with cp.reduce.async.bulk.tensor.
__global__ void reduce2d(const __grid_constant__ CUtensorMap add_map, const __grid_constant__ CUtensorMap max_map, int x,
                         int y) {
  __shared__ alignas(128) int s[8 * 16];
  for (int i = threadIdx.x; i < 128; i += blockDim.x) s[i] = 100 * blockIdx.x + i;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
                 ::"l"(&add_map), "r"(x), "r"(y), "r"(saddr(s)) : "memory");
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [%0, {%1, %2}], [%3];"
                 ::"l"(&max_map), "r"(x), "r"(y), "r"(saddr(s)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// Clusters of 2: rank 0 loads a 16 x 8 int tile at (x + 16 * cluster, y) once, multicast to both blocks.
__global__ void __cluster_dims__(2, 1, 1) mcast2d(const __grid_constant__ CUtensorMap map, int x, int y, int *out) {
  __shared__ alignas(128) int s[128];
  __shared__ unsigned long long bar;
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  if (threadIdx.x == 0) bar_init(&bar, sizeof s);
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (r == 0 && threadIdx.x == 0) {
    unsigned short mask = 3;
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3}], [%4], %5;"
                 ::"r"(saddr(s)), "l"(&map), "r"(x + 16 * (int)(blockIdx.x / 2)), "r"(y), "r"(saddr(&bar)), "h"(mask) : "memory");
  }
  bar_wait(&bar);
  for (int i = threadIdx.x; i < 128; i += blockDim.x) out[blockIdx.x * 128 + i] = s[i];
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static encode_fn encode;

static CUtensorMap make(CUtensorMapDataType t, unsigned rank, void *p, const cuuint64_t *dims, const cuuint64_t *strides,
                        const cuuint32_t *box, const cuuint32_t *estr) {
  CUtensorMap m;
  CUresult r = encode(&m, t, rank, p, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  check(r == CUDA_SUCCESS, "cuTensorMapEncodeTiled rank %u", rank);
  return m;
}

int main() {
  begin();
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", (void **)&encode, cudaEnableDefault, &q));
  if (!encode) return finish("tma_more");
  // 3-D: X = 40, Y = 12, Z = 5 floats, value x + 100 y + 10000 z
  const int X = 40, Y = 12, Z = 5;
  std::vector<float> h3(X * Y * Z);
  for (int z = 0; z < Z; z++)
    for (int y = 0; y < Y; y++)
      for (int x = 0; x < X; x++) h3[(z * Y + y) * X + x] = (float)(x + 100 * y + 10000 * z);
  float *d3, *dout;
  CK(cudaMalloc(&d3, h3.size() * sizeof(float)));
  CK(cudaMalloc(&dout, 64 * sizeof(float)));
  CK(cudaMemcpy(d3, h3.data(), h3.size() * sizeof(float), cudaMemcpyHostToDevice));
  cuuint64_t dims3[3] = {X, Y, Z}, str3[2] = {X * sizeof(float), X * Y * sizeof(float)};
  cuuint32_t box3[3] = {8, 4, 2}, es3[3] = {2, 1, 1};
  CUtensorMap m3 = make(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, d3, dims3, str3, box3, es3);
  struct { int x, y, z; } at3[] = {{3, 2, 1}, {36, 10, 4}, {-4, -1, -1}};
  for (auto &a : at3) {
    load3d<<<1, 32>>>(m3, a.x, a.y, a.z, dout);
    CK(cudaDeviceSynchronize());
    std::vector<float> got(32);
    CK(cudaMemcpy(got.data(), dout, 32 * sizeof(float), cudaMemcpyDeviceToHost));
    auto want = [&](size_t i) {
      int kx = (int)i % 4, ky = (int)(i / 4) % 4, kz = (int)i / 16;
      int x = a.x + 2 * kx, y = a.y + ky, z = a.z + kz;
      bool in = x >= 0 && x < X && y >= 0 && y < Y && z >= 0 && z < Z;
      return in ? h3[(z * Y + y) * X + x] : 0.0f;
    };
    check_all(got.data(), 32, want, "3-D box with element strides 2,1,1");
    printf("  at (%d,%d,%d): %g %g %g %g\n", a.x, a.y, a.z, got[0], got[1], got[5], got[31]);
  }
  // 1-D, the map in global memory
  int *d1, *d1out;
  std::vector<int> h1(1000);
  for (int i = 0; i < 1000; i++) h1[i] = 7 * i + 1;
  CK(cudaMalloc(&d1, 1000 * sizeof(int)));
  CK(cudaMalloc(&d1out, 64 * sizeof(int)));
  CK(cudaMemcpy(d1, h1.data(), 1000 * sizeof(int), cudaMemcpyHostToDevice));
  cuuint64_t dims1[1] = {1000};
  cuuint32_t box1[1] = {64}, es1[1] = {1};
  CUtensorMap m1 = make(CU_TENSOR_MAP_DATA_TYPE_INT32, 1, d1, dims1, nullptr, box1, es1);
  CUtensorMap *dm1;
  CK(cudaMalloc(&dm1, sizeof(CUtensorMap)));
  CK(cudaMemcpy(dm1, &m1, sizeof m1, cudaMemcpyHostToDevice));
  for (int x : {0, 500, 960}) {
    load1d<<<1, 64>>>(dm1, x, d1out);
    CK(cudaDeviceSynchronize());
    std::vector<int> got(64);
    CK(cudaMemcpy(got.data(), d1out, 64 * sizeof(int), cudaMemcpyDeviceToHost));
    check_all(got.data(), 64, [&](size_t i) { return x + (int)i < 1000 ? h1[x + i] : 0; }, "1-D box, map in global memory");
  }
  // reductions: 4 blocks add and max their tiles into a 40 x 20 int tensor at (12, 6), partly out of bounds at (32, 16)
  const int RX = 40, RY = 20;
  int *dadd, *dmax;
  std::vector<int> hadd(RX * RY, 5), hmax(RX * RY, 300);
  CK(cudaMalloc(&dadd, RX * RY * sizeof(int)));
  CK(cudaMalloc(&dmax, RX * RY * sizeof(int)));
  for (auto at : {std::pair<int, int>{12, 6}, {32, 16}}) {
    CK(cudaMemcpy(dadd, hadd.data(), RX * RY * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dmax, hmax.data(), RX * RY * sizeof(int), cudaMemcpyHostToDevice));
    cuuint64_t dims2[2] = {RX, RY}, str2[1] = {RX * sizeof(int)};
    cuuint32_t box2[2] = {16, 8}, es2[2] = {1, 1};
    CUtensorMap ma = make(CU_TENSOR_MAP_DATA_TYPE_INT32, 2, dadd, dims2, str2, box2, es2);
    CUtensorMap mm = make(CU_TENSOR_MAP_DATA_TYPE_INT32, 2, dmax, dims2, str2, box2, es2);
    reduce2d<<<4, 64>>>(ma, mm, at.first, at.second);
    CK(cudaDeviceSynchronize());
    std::vector<int> ga(RX * RY), gm(RX * RY);
    CK(cudaMemcpy(ga.data(), dadd, RX * RY * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gm.data(), dmax, RX * RY * sizeof(int), cudaMemcpyDeviceToHost));
    auto tile = [&](size_t i, int b) -> long {
      int x = (int)i % RX, y = (int)i / RX, kx = x - at.first, ky = y - at.second;
      return kx >= 0 && kx < 16 && ky >= 0 && ky < 8 ? 100 * b + ky * 16 + kx : -1;
    };
    check_all(ga.data(), ga.size(), [&](size_t i) { return tile(i, 0) < 0 ? 5 : (int)(5 + tile(i, 0) * 4 + 600); },
              "cp.reduce.async.bulk.tensor .add from 4 blocks");
    check_all(gm.data(), gm.size(), [&](size_t i) { return tile(i, 0) < 0 ? 300 : (int)(tile(i, 3) > 300 ? tile(i, 3) : 300); },
              "cp.reduce.async.bulk.tensor .max from 4 blocks");
    printf("  at (%d,%d): add %d %d, max %d %d\n", at.first, at.second, ga[at.second * RX + at.first], ga[RX * RY - 1],
           gm[at.second * RX + at.first], gm[RX * RY - 1]);
  }
  // multicast: a 64 x 8 int tensor, 2 clusters of 2 blocks
  int *dmc, *dmcout;
  std::vector<int> hmc(64 * 8);
  for (int i = 0; i < 64 * 8; i++) hmc[i] = i * 3;
  CK(cudaMalloc(&dmc, hmc.size() * sizeof(int)));
  CK(cudaMalloc(&dmcout, 4 * 128 * sizeof(int)));
  CK(cudaMemcpy(dmc, hmc.data(), hmc.size() * sizeof(int), cudaMemcpyHostToDevice));
  cuuint64_t dimsm[2] = {64, 8}, strm[1] = {64 * sizeof(int)};
  cuuint32_t boxm[2] = {16, 8}, esm[2] = {1, 1};
  CUtensorMap mmc = make(CU_TENSOR_MAP_DATA_TYPE_INT32, 2, dmc, dimsm, strm, boxm, esm);
  mcast2d<<<4, 64>>>(mmc, 8, 0, dmcout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<int> gmc(4 * 128);
  CK(cudaMemcpy(gmc.data(), dmcout, gmc.size() * sizeof(int), cudaMemcpyDeviceToHost));
  check_all(gmc.data(), gmc.size(), [&](size_t i) {
    int b = (int)i / 128, k = (int)i % 128, x = 8 + 16 * (b / 2) + k % 16, y = k / 16;
    return hmc[y * 64 + x];
  }, "multicast tile in both blocks of each cluster");
  CK(cudaFree(d3));
  CK(cudaFree(dout));
  CK(cudaFree(d1));
  CK(cudaFree(d1out));
  CK(cudaFree(dm1));
  CK(cudaFree(dadd));
  CK(cudaFree(dmax));
  CK(cudaFree(dmc));
  CK(cudaFree(dmcout));
  return finish("tma_more");
}
