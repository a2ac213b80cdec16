// cub_block — CUB's block-level collectives in a 128-thread block, each thread holding 4 items loaded with
// BlockLoad (warp-transposed): BlockReduce<float> with each algorithm (RAKING, RAKING_COMMUTATIVE_ONLY,
// WARP_REDUCTIONS: three float summation orders), BlockReduce<int> over a partial tile, BlockScan<int> with each
// algorithm (RAKING, RAKING_MEMOIZE, WARP_SCANS) inclusive and exclusive with the block aggregate,
// BlockScan<float>::ExclusiveSum, BlockRadixSort<unsigned, 128, 4> of key-value pairs, BlockStore back.
#include "apps.h"

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

constexpr int TPB = 128, IPT = 4, TILE = TPB * IPT, BLOCKS = 6, N = TILE * BLOCKS;

template <cub::BlockReduceAlgorithm A> __device__ float block_sum(float (&v)[IPT]) {
  using R = cub::BlockReduce<float, TPB, A>;
  __shared__ typename R::TempStorage tmp;
  return R(tmp).Sum(v);
}

__global__ void reduce_kernel(const float *in, const int *iin, float *out, int *iout) {
  using Load = cub::BlockLoad<float, TPB, IPT, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  __shared__ typename Load::TempStorage lt;
  float v[IPT];
  Load(lt).Load(in + blockIdx.x * TILE, v);
  float a = block_sum<cub::BLOCK_REDUCE_RAKING>(v);
  float b = block_sum<cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>(v);
  float c = block_sum<cub::BLOCK_REDUCE_WARP_REDUCTIONS>(v);
  using RI = cub::BlockReduce<int, TPB>;
  __shared__ typename RI::TempStorage it;
  int valid = 17 + 21 * blockIdx.x;  // a partial tile: the first `valid` threads' values
  int partial = RI(it).Sum(iin[blockIdx.x * TPB + threadIdx.x], valid);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = a;
    out[3 * blockIdx.x + 1] = b;
    out[3 * blockIdx.x + 2] = c;
    iout[blockIdx.x] = partial;
  }
}

template <cub::BlockScanAlgorithm A> __device__ void scans(int (&v)[IPT], int *out, int *agg) {
  using S = cub::BlockScan<int, TPB, A>;
  __shared__ typename S::TempStorage tmp;
  int incl[IPT], excl[IPT], total;
  S(tmp).InclusiveSum(v, incl);
  __syncthreads();
  S(tmp).ExclusiveSum(v, excl, total);
  for (int i = 0; i < IPT; i++) {
    out[2 * (threadIdx.x * IPT + i)] = incl[i];
    out[2 * (threadIdx.x * IPT + i) + 1] = excl[i];
  }
  if (threadIdx.x == 0) *agg = total;
}

__global__ void scan_kernel(const int *in, const float *fin, int *out, int *agg, float *fout) {
  using Load = cub::BlockLoad<int, TPB, IPT, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  __shared__ typename Load::TempStorage lt;
  int v[IPT];
  Load(lt).Load(in + blockIdx.x * TILE, v);
  int *o = out + blockIdx.x * 3 * 2 * TILE;
  scans<cub::BLOCK_SCAN_RAKING>(v, o, agg + 3 * blockIdx.x);
  scans<cub::BLOCK_SCAN_RAKING_MEMOIZE>(v, o + 2 * TILE, agg + 3 * blockIdx.x + 1);
  scans<cub::BLOCK_SCAN_WARP_SCANS>(v, o + 4 * TILE, agg + 3 * blockIdx.x + 2);
  using SF = cub::BlockScan<float, TPB>;
  __shared__ typename SF::TempStorage ft;
  float f[IPT];
  for (int i = 0; i < IPT; i++) f[i] = fin[blockIdx.x * TILE + threadIdx.x * IPT + i];  // blocked
  SF(ft).ExclusiveSum(f, f);
  for (int i = 0; i < IPT; i++) fout[blockIdx.x * TILE + threadIdx.x * IPT + i] = f[i];
}

__global__ void sort_kernel(unsigned *keys, int *vals) {
  using Sort = cub::BlockRadixSort<unsigned, TPB, IPT, int>;
  using LoadK = cub::BlockLoad<unsigned, TPB, IPT, cub::BLOCK_LOAD_TRANSPOSE>;
  using LoadV = cub::BlockLoad<int, TPB, IPT, cub::BLOCK_LOAD_TRANSPOSE>;
  using StoreK = cub::BlockStore<unsigned, TPB, IPT, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using StoreV = cub::BlockStore<int, TPB, IPT, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union {
    typename Sort::TempStorage sort;
    typename LoadK::TempStorage lk;
    typename LoadV::TempStorage lv;
    typename StoreK::TempStorage sk;
    typename StoreV::TempStorage sv;
  } tmp;
  unsigned k[IPT];
  int v[IPT];
  unsigned *bk = keys + blockIdx.x * TILE;
  int *bv = vals + blockIdx.x * TILE;
  LoadK(tmp.lk).Load(bk, k);
  __syncthreads();
  LoadV(tmp.lv).Load(bv, v);
  __syncthreads();
  Sort(tmp.sort).Sort(k, v);
  __syncthreads();
  StoreK(tmp.sk).Store(bk, k);
  __syncthreads();
  StoreV(tmp.sv).Store(bv, v);
}

int main() {
  begin();
  Lcg rng(4096);
  std::vector<float> f(N);
  std::vector<int> iv(N);
  std::vector<unsigned> keys(N);
  for (int i = 0; i < N; i++) {
    f[i] = rng.sym() * (float)(1 << (i % 9));
    iv[i] = (int)(rng.u32() % 2001) - 1000;
    keys[i] = rng.u32() >> (i % 3 == 0 ? 20 : 0);  // some keys small: many equal high digits
  }
  float *df = to_device(f), *dfo;
  int *di = to_device(iv), *dio, *dagg;
  TRY(cudaMalloc(&dfo, N * sizeof(float)));
  TRY(cudaMalloc(&dio, 6 * N * sizeof(int)));
  TRY(cudaMalloc(&dagg, 3 * BLOCKS * sizeof(int)));

  reduce_kernel<<<BLOCKS, TPB>>>(df, di, dfo, dio);
  LAUNCHED();
  std::vector<float> sums = to_host(dfo, 3 * BLOCKS);
  std::vector<int> partial = to_host(dio, BLOCKS);
  for (int a = 0; a < 3; a++) {
    std::vector<float> col;
    for (int b = 0; b < BLOCKS; b++) col.push_back(sums[3 * b + a]);
    const char *name[3] = {"RAKING", "RAKING_COMMUTATIVE_ONLY", "WARP_REDUCTIONS"};
    char what[80];
    snprintf(what, sizeof what, "BlockReduce<float> %s", name[a]);
    report(what, col);
  }
  report("BlockReduce<int>::Sum(valid)", partial);

  scan_kernel<<<BLOCKS, TPB>>>(di, df, dio, dagg, dfo);
  LAUNCHED();
  std::vector<int> sc = to_host(dio, 6 * N), agg = to_host(dagg, 3 * BLOCKS);
  report("BlockScan<int> inclusive/exclusive, RAKING | RAKING_MEMOIZE | WARP_SCANS", sc);
  report("BlockScan<int> aggregates", agg);
  report("BlockScan<float>::ExclusiveSum", to_host(dfo, N));
  bool same = true;
  for (int b = 0; b < BLOCKS; b++)
    for (int e = 0; e < 2 * TILE; e++) {
      int *o = sc.data() + b * 6 * TILE;
      same = same && o[e] == o[2 * TILE + e] && o[e] == o[4 * TILE + e];
    }
  check(same, "the three BlockScan algorithms agree (integers)");
  bool ok = true;
  for (int b = 0; b < BLOCKS; b++) {
    int s = 0;
    for (int e = 0; e < TILE; e++) {
      s += iv[b * TILE + e];
      ok = ok && sc[b * 6 * TILE + 2 * e] == s;
    }
    int p = 0;
    for (int t = 0; t < 17 + 21 * b; t++) p += iv[b * TPB + t];
    ok = ok && partial[b] == p && agg[3 * b] == s;
  }
  check(ok, "inclusive sums, aggregates and partial reductions equal the host's");

  std::vector<int> idx(N);
  for (int i = 0; i < N; i++) idx[i] = i;
  unsigned *dk = to_device(keys);
  int *dv = to_device(idx);
  sort_kernel<<<BLOCKS, TPB>>>(dk, dv);
  LAUNCHED();
  std::vector<unsigned> sk = to_host(dk, N);
  std::vector<int> sv = to_host(dv, N);
  report("BlockRadixSort keys", sk);
  report("BlockRadixSort values", sv);
  bool sorted = true;
  for (int i = 0; i < N; i++) {
    sorted = sorted && keys[sv[i]] == sk[i];
    if (i % TILE) sorted = sorted && sk[i - 1] <= sk[i] && (sk[i - 1] < sk[i] || sv[i - 1] < sv[i]);
  }
  check(sorted, "BlockRadixSort: every tile sorted, stably, values with their keys");
  return finish("cub_block");
}
