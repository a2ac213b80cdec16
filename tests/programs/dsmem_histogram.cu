// dsmem_histogram.cu — the CUDA Programming Guide's distributed shared memory histogram: the bins are split
// over the blocks of a cluster, each block adds every element it reads to the owning block's shared bins
// (cluster.map_shared_rank + atomicAdd), and each block adds its part to the global histogram. Launched with
// cudaLaunchKernelEx and a cluster attribute chosen at run time, for several cluster sizes; compared with the
// histogram the host computes.
#include "check.h"

#include <cooperative_groups.h>

#include <vector>

namespace cg = cooperative_groups;

__global__ void clusterHist_kernel(int *bins, const int nbins, const int bins_per_block, const int *__restrict__ input,
                                   size_t array_size) {
  extern __shared__ int smem[];
  namespace cg = cooperative_groups;
  int tid = cg::this_grid().thread_rank();
  cg::cluster_group cluster = cg::this_cluster();
  unsigned int clusterBlockRank = cluster.block_rank();
  int cluster_size = cluster.dim_blocks().x;
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) smem[i] = 0;
  cluster.sync();
  for (int i = tid; i < array_size; i += blockDim.x * gridDim.x) {
    int ldata = input[i];
    int binid = ldata;
    if (ldata < 0) binid = 0;
    else if (ldata >= nbins) binid = nbins - 1;
    int dst_block_rank = (int)(binid / bins_per_block);
    int dst_offset = binid % bins_per_block;
    int *dst_smem = cluster.map_shared_rank(smem, dst_block_rank);
    atomicAdd(dst_smem + dst_offset, 1);
  }
  cluster.sync();
  int *lbins = bins + cluster.block_rank() * bins_per_block;
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) atomicAdd(&lbins[i], smem[i]);
  (void)cluster_size, (void)clusterBlockRank;
}

int main() {
  begin();
  const int n = 1 << 16, nbins = 2048, threads = 256;
  std::vector<int> in(n), want(nbins, 0), got(nbins);
  unsigned x = 12345;
  for (int i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    in[i] = (int)(x >> 16) % (nbins + 64) - 32; /* some below 0 and past the last bin */
    int b = in[i] < 0 ? 0 : in[i] >= nbins ? nbins - 1 : in[i];
    want[b]++;
  }
  int *din, *dbins;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMalloc(&dbins, nbins * sizeof(int)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  for (int cluster_size : {2, 4, 8}) {
    CK(cudaMemset(dbins, 0, nbins * sizeof(int)));
    int bins_per_block = nbins / cluster_size;
    cudaLaunchConfig_t config = {0};
    config.gridDim = 16;
    config.blockDim = threads;
    config.dynamicSmemBytes = bins_per_block * sizeof(int);
    CK(cudaFuncSetAttribute((void *)clusterHist_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)config.dynamicSmemBytes));
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = cluster_size;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.numAttrs = 1;
    config.attrs = attribute;
    CK(cudaLaunchKernelEx(&config, clusterHist_kernel, dbins, nbins, bins_per_block, (const int *)din, (size_t)n));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), dbins, nbins * sizeof(int), cudaMemcpyDeviceToHost));
    check_all(got.data(), (size_t)nbins, [&](size_t i) { return want[i]; }, "histogram with clusters of the launch");
    long long total = 0;
    for (int v : got) total += v;
    printf("clusters of %d: %lld elements counted, bin 0 %d, bin 1000 %d, last bin %d\n", cluster_size, total, got[0],
           got[1000], got[nbins - 1]);
  }
  CK(cudaFree(din));
  CK(cudaFree(dbins));
  return finish("dsmem_histogram");
}
