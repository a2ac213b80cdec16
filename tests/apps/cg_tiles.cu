// cg_tiles — cooperative groups on tiles of 16, 8 and 4 lanes as kernels use them: cg::reduce with plus (int,
// float: the tile's shuffle tree fixes the order), greater and bit_xor, cg::inclusive_scan and exclusive_scan,
// tile.ballot, tile.match_any, tile.any/all, tile.shfl_down, meta_group_rank/size, a dynamic
// tiled_partition(block, 4), and a per-tile data-dependent loop (tiles leave it at different iterations
// while the rest of the warp keeps running collectives). Blocks of 96 threads: three warps.
#include "apps.h"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;
constexpr int TPB = 96, BLOCKS = 3, N = TPB * BLOCKS, SLOTS = 16;

template <class Tile> __device__ void tile_work(Tile t, int v, float f, int *o, float *fo) {
  o[0] = cg::reduce(t, v, cg::plus<int>());
  o[1] = cg::reduce(t, v, cg::greater<int>());
  o[2] = cg::reduce(t, v, cg::bit_xor<int>());
  o[3] = cg::inclusive_scan(t, v);
  o[4] = cg::exclusive_scan(t, v, cg::plus<int>());
  o[5] = (int)t.ballot(v & 1);
  o[6] = (int)t.match_any(v & 7);
  o[7] = t.any(v > 900) * 2 + t.all(v > -1000);
  o[8] = t.shfl_down(v, 1);
  o[9] = t.meta_group_rank() * 100 + t.meta_group_size();
  fo[0] = cg::reduce(t, f, cg::plus<float>());
  fo[1] = cg::inclusive_scan(t, f);
}

__global__ void tiles(const int *in, const float *fin, int *out, float *fout) {
  cg::thread_block block = cg::this_thread_block();
  int g = blockIdx.x * TPB + threadIdx.x, v = in[g];
  float f = fin[g];
  int *o = out + 3 * SLOTS * g;
  float *fo = fout + 6 * g;
  tile_work(cg::tiled_partition<16>(block), v, f, o, fo);
  tile_work(cg::tiled_partition<8>(block), v, f, o + SLOTS, fo + 2);
  tile_work(cg::tiled_partition<4>(block), v, f, o + 2 * SLOTS, fo + 4);

  // A dynamic partition of 4 (thread_group): its size, rank, sync and a shared-memory exchange.
  __shared__ int sh[TPB];
  cg::thread_group q = cg::tiled_partition(block, 4);
  sh[threadIdx.x] = v;
  q.sync();
  o[10] = sh[threadIdx.x ^ 3] * 10 + (int)q.size() + (int)q.thread_rank();

  // Each 8-lane tile loops until its running maximum passes a threshold; other tiles keep going.
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  int x = v + 1000, rounds = 0;  // 0 .. 2000
  while (rounds < 40 && cg::reduce(t8, x, cg::greater<int>()) < 7700) {
    x = (x * 5 + t8.shfl(x, (t8.thread_rank() + 1) % 8)) % 7919;
    rounds++;
  }
  o[11] = x;
  o[12] = rounds;
}

int main() {
  begin();
  Lcg rng(404);
  std::vector<int> in(N);
  std::vector<float> fin(N);
  for (int i = 0; i < N; i++) {
    in[i] = (int)(rng.u32() % 2001) - 1000;
    fin[i] = rng.sym() * (float)(1 << (i % 5));
  }
  int *di = to_device(in), *dout;
  float *df = to_device(fin), *dfout;
  TRY(cudaMalloc(&dout, 3 * SLOTS * N * sizeof(int)));
  TRY(cudaMalloc(&dfout, 6 * N * sizeof(float)));
  TRY(cudaMemset(dout, 0, 3 * SLOTS * N * sizeof(int)));
  tiles<<<BLOCKS, TPB>>>(di, df, dout, dfout);
  LAUNCHED();
  std::vector<int> out = to_host(dout, 3 * SLOTS * N);
  std::vector<float> fout = to_host(dfout, 6 * N);
  const char *names[13] = {"reduce plus", "reduce greater", "reduce bit_xor", "inclusive_scan", "exclusive_scan",
                           "ballot", "match_any", "any/all", "shfl_down", "meta_group rank/size",
                           "dynamic partition(4)", "data-dependent loop: value", "data-dependent loop: rounds"};
  const int sizes[3] = {16, 8, 4};
  for (int s = 0; s < 3; s++)
    for (int k = 0; k < (s == 0 ? 13 : 10); k++) {
      std::vector<int> col;
      for (int i = 0; i < N; i++) col.push_back(out[3 * SLOTS * i + s * SLOTS + k]);
      char what[80];
      if (k < 10)
        snprintf(what, sizeof what, "tile<%d> %s", sizes[s], names[k]);
      else
        snprintf(what, sizeof what, "%s", names[k]);
      report(what, col);
    }
  for (int s = 0; s < 3; s++) {
    std::vector<float> red, scan;
    for (int i = 0; i < N; i++) {
      red.push_back(fout[6 * i + 2 * s]);
      scan.push_back(fout[6 * i + 2 * s + 1]);
    }
    char what[80];
    snprintf(what, sizeof what, "tile<%d> reduce plus float", sizes[s]);
    report(what, red);
    snprintf(what, sizeof what, "tile<%d> inclusive_scan float", sizes[s]);
    report(what, scan);
  }
  bool ok = true;
  for (int s = 0; s < 3; s++)
    for (int i = 0; i < N; i++) {
      int base = i / sizes[s] * sizes[s], sum = 0, scan = 0, mx = -1000000;
      for (int l = base; l < base + sizes[s]; l++) {
        sum += in[l];
        mx = std::max(mx, in[l]);
        if (l <= i) scan += in[l];
      }
      const int *o = &out[3 * SLOTS * i + s * SLOTS];
      ok = ok && o[0] == sum && o[1] == mx && o[3] == scan && o[4] == scan - in[i];
    }
  check(ok, "integer tile reductions and scans equal the host's");
  return finish("cg_tiles");
}
