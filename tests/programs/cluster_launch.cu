// cluster_launch.cu — thread-block clusters chosen at launch time, as Hopper code launches them: cudaLaunchKernelEx
// with cudaLaunchAttributeClusterDimension, a kernel compiled with __cluster_dims__ launched with <<<>>>, the
// cluster shape set with cudaFuncSetAttribute(cudaFuncAttributeRequiredClusterWidth...), the 16-block
// non-portable size, cudaOccupancyMaxActiveClusters, and the launches CUDA refuses. Each block records what
// cooperative_groups::this_cluster() says, and reads its neighbour's shared memory through map_shared_rank.
#include "check.h"

#include <cooperative_groups.h>

#include <vector>

namespace cg = cooperative_groups;

// Per block: cluster rank, cluster size, cluster index x/y, block index in the cluster x/y, and the sum of the
// next rank's shared array (its rank * 1000 + i for i < blockDim.x).
__device__ void record(unsigned *out) {
  __shared__ unsigned s[128];
  cg::cluster_group cl = cg::this_cluster();
  unsigned r = cl.block_rank(), n = cl.num_blocks();
  s[threadIdx.x] = r * 1000 + threadIdx.x;
  cl.sync();
  unsigned *nx = cl.map_shared_rank(s, (r + 1) % n);
  __shared__ unsigned sum;
  if (threadIdx.x == 0) sum = 0;
  __syncthreads();
  atomicAdd(&sum, nx[threadIdx.x]);
  cl.sync();
  if (threadIdx.x == 0) {
    unsigned b = blockIdx.x + gridDim.x * blockIdx.y, *o = out + 8 * b;
    dim3 ci = cl.block_index(), cd = cl.dim_blocks();
    o[0] = r, o[1] = n, o[2] = blockIdx.x / cd.x, o[3] = blockIdx.y / cd.y, o[4] = ci.x, o[5] = ci.y, o[6] = sum;
    o[7] = cd.x * 100 + cd.y;
  }
}

__global__ void any_cluster(unsigned *out) { record(out); }
__global__ void __cluster_dims__(2, 2, 1) fixed_cluster(unsigned *out) { record(out); }

// What a block of cluster shape (cx, cy) must have recorded.
static bool expected_ok(const std::vector<unsigned> &o, unsigned gx, unsigned gy, unsigned cx, unsigned cy, unsigned threads) {
  for (unsigned by = 0; by < gy; by++)
    for (unsigned bx = 0; bx < gx; bx++) {
      const unsigned *v = &o[8 * (bx + gx * by)];
      unsigned r = (bx % cx) + cx * (by % cy), n = cx * cy, nr = (r + 1) % n;
      unsigned sum = nr * 1000 * threads + threads * (threads - 1) / 2;
      if (v[0] != r || v[1] != n || v[2] != bx / cx || v[3] != by / cy || v[4] != bx % cx || v[5] != by % cy ||
          v[6] != sum || v[7] != cx * 100 + cy)
        return false;
    }
  return true;
}

static cudaError_t launch_ex(void (*k)(unsigned *), dim3 grid, unsigned threads, dim3 cluster, unsigned *out) {
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster.x;
  attr[0].val.clusterDim.y = cluster.y;
  attr[0].val.clusterDim.z = cluster.z;
  cfg.gridDim = grid;
  cfg.blockDim = dim3(threads);
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, out);
}

int main() {
  begin();
  unsigned *d;
  const unsigned maxb = 64;
  CK(cudaMalloc(&d, 8 * maxb * sizeof(unsigned)));
  std::vector<unsigned> h(8 * maxb);
  struct { unsigned gx, gy, cx, cy, threads; } cases[] = {{8, 1, 2, 1, 64}, {8, 2, 4, 2, 128}, {4, 4, 1, 4, 32}, {6, 3, 3, 1, 96}};
  for (auto &c : cases) {
    CK(cudaMemset(d, 0xff, 8 * maxb * sizeof(unsigned)));
    cudaError_t e = launch_ex(any_cluster, dim3(c.gx, c.gy), c.threads, dim3(c.cx, c.cy, 1), d);
    check_cuda(e, "cudaLaunchKernelEx with a cluster");
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    check(expected_ok(h, c.gx, c.gy, c.cx, c.cy, c.threads), "grid %ux%u, clusters %ux%u: ranks, indices, neighbour's shared memory",
          c.gx, c.gy, c.cx, c.cy);
  }
  // __cluster_dims__(2,2,1) with <<<>>>
  CK(cudaMemset(d, 0xff, 8 * maxb * sizeof(unsigned)));
  fixed_cluster<<<dim3(4, 4), 64>>>(d);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  check(expected_ok(h, 4, 4, 2, 2, 64), "__cluster_dims__(2,2,1) launched with <<<>>>");
  // a cudaLaunchKernelEx with a cluster shape captured into a graph: the kernel node keeps the shape
  {
    cudaStream_t st;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamCreate(&st));
    CK(cudaMemset(d, 0xff, 8 * maxb * sizeof(unsigned)));
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 2;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(4, 2);
    cfg.blockDim = dim3(64);
    cfg.stream = st;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, any_cluster, d));
    CK(cudaStreamEndCapture(st, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, st));
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    check(expected_ok(h, 4, 2, 2, 1, 64), "a cluster launch captured into a graph keeps its 2x1 clusters");
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(st));
  }
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, fixed_cluster));
  printf("fixed_cluster attributes: required %dx%dx%d, must be set %d\n", fa.requiredClusterWidth,
         fa.requiredClusterHeight, fa.requiredClusterDepth, fa.clusterDimMustBeSet);
  // a shape set with cudaFuncSetAttribute is used by <<<>>>
  CK(cudaFuncSetAttribute(any_cluster, cudaFuncAttributeRequiredClusterWidth, 4));
  CK(cudaFuncSetAttribute(any_cluster, cudaFuncAttributeRequiredClusterHeight, 1));
  CK(cudaFuncSetAttribute(any_cluster, cudaFuncAttributeRequiredClusterDepth, 1));
  CK(cudaMemset(d, 0xff, 8 * maxb * sizeof(unsigned)));
  any_cluster<<<dim3(8, 2), 32>>>(d);
  printf("<<<>>> after cudaFuncSetAttribute(RequiredClusterWidth 4): %s\n", cudaGetErrorName(cudaGetLastError()));
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  printf("  recorded as clusters of 4x1: %s\n", expected_ok(h, 8, 2, 4, 1, 32) ? "yes" : "no");
  CK(cudaFuncSetAttribute(any_cluster, cudaFuncAttributeRequiredClusterWidth, 0));
  CK(cudaFuncSetAttribute(any_cluster, cudaFuncAttributeRequiredClusterHeight, 0));
  CK(cudaFuncSetAttribute(any_cluster, cudaFuncAttributeRequiredClusterDepth, 0));
  // a compiled-in shape cannot be changed
  printf("cudaFuncSetAttribute(fixed_cluster, RequiredClusterWidth): %s\n",
         cudaGetErrorName(cudaFuncSetAttribute(fixed_cluster, cudaFuncAttributeRequiredClusterWidth, 4)));
  cudaGetLastError();
  // launches CUDA refuses, and what it says
  printf("grid 6 with clusters of 4: %s\n", cudaGetErrorName(launch_ex(any_cluster, dim3(6), 32, dim3(4, 1, 1), d)));
  cudaGetLastError();
  printf("clusters of 16 (portable limit 8): %s\n", cudaGetErrorName(launch_ex(any_cluster, dim3(16), 32, dim3(16, 1, 1), d)));
  cudaGetLastError();
  printf("cluster dimension 0: %s\n", cudaGetErrorName(launch_ex(any_cluster, dim3(16), 32, dim3(0, 1, 1), d)));
  cudaGetLastError();
  printf("fixed_cluster with another shape: %s\n", cudaGetErrorName(launch_ex(fixed_cluster, dim3(8, 8), 32, dim3(4, 1, 1), d)));
  cudaGetLastError();
  CK(cudaFuncSetAttribute(any_cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaMemset(d, 0xff, 8 * maxb * sizeof(unsigned)));
  cudaError_t e16 = launch_ex(any_cluster, dim3(16, 2), 64, dim3(16, 1, 1), d);
  printf("clusters of 16 with NonPortableClusterSizeAllowed: %s\n", cudaGetErrorName(e16));
  CK(cudaDeviceSynchronize());
  if (e16 == cudaSuccess) {
    CK(cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    check(expected_ok(h, 16, 2, 16, 1, 64), "clusters of 16: ranks, indices, neighbour's shared memory");
  }
  // occupancy: the count depends on the device; that there is one does not
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 4, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
  cfg.gridDim = dim3(8);
  cfg.blockDim = dim3(128);
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  int nclusters = 0;
  CK(cudaOccupancyMaxActiveClusters(&nclusters, any_cluster, &cfg));
  check(nclusters > 0, "cudaOccupancyMaxActiveClusters > 0");
  CK(cudaFree(d));
  return finish("cluster_launch");
}
