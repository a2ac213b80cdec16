// cub_warp — CUB's warp-level collectives with logical warps narrower than 32 lanes, several per hardware warp:
// WarpReduce<int, 16>::Sum and Reduce(max), WarpReduce<float, 16>::Sum (the shuffle tree fixes the float
// order), WarpReduce<int, 8>::HeadSegmentedSum, WarpReduce<int, 4>::Sum over a partial tile (valid_items),
// WarpScan<int, 8>::InclusiveSum / ExclusiveSum / InclusiveScan(max) with the warp aggregate, WarpScan<float,
// 16>::InclusiveSum, WarpScan<int, 32> as the baseline; blocks of 128 threads, so 8 logical warps of 16, 16
// of 8, 32 of 4. Every result goes to a buffer slot per thread (or per logical warp).
#include "apps.h"

#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

constexpr int TPB = 128, BLOCKS = 4, N = TPB * BLOCKS;

struct Max {
  __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

__global__ void warp_reduce(const int *in, const float *fin, int *out, float *fout) {
  using R16 = cub::WarpReduce<int, 16>;
  using R16f = cub::WarpReduce<float, 16>;
  using R8 = cub::WarpReduce<int, 8>;
  using R4 = cub::WarpReduce<int, 4>;
  __shared__ typename R16::TempStorage t16[TPB / 16];
  __shared__ typename R16f::TempStorage t16f[TPB / 16];
  __shared__ typename R8::TempStorage t8[TPB / 8];
  __shared__ typename R4::TempStorage t4[TPB / 4];
  int g = blockIdx.x * TPB + threadIdx.x, t = threadIdx.x;
  int v = in[g];
  int sum16 = R16(t16[t / 16]).Sum(v);
  int max16 = R16(t16[t / 16]).Reduce(v, Max());
  float fsum16 = R16f(t16f[t / 16]).Sum(fin[g]);
  int head = (v & 3) == 0 || t % 8 == 0;  // a segment starts where v is a multiple of 4
  int seg8 = R8(t8[t / 8]).HeadSegmentedSum(v, head);
  int part4 = R4(t4[t / 4]).Sum(v, 3);  // only the first 3 lanes of each logical warp of 4
  if (t % 16 == 0) {
    out[4 * (g / 16)] = sum16;
    out[4 * (g / 16) + 1] = max16;
    fout[g / 16] = fsum16;
  }
  if (t % 8 == 0) out[4 * (N / 16) + g / 8] = seg8;
  if (t % 4 == 0) out[4 * (N / 16) + N / 8 + g / 4] = part4;
  // HeadSegmentedSum: every segment's head lane holds its sum.
  if (head) out[4 * (N / 16) + N / 8 + N / 4 + g] = seg8;
}

__global__ void warp_scan(const int *in, const float *fin, int *out, float *fout) {
  using S8 = cub::WarpScan<int, 8>;
  using S16f = cub::WarpScan<float, 16>;
  using S32 = cub::WarpScan<int>;
  __shared__ typename S8::TempStorage t8[TPB / 8];
  __shared__ typename S16f::TempStorage t16f[TPB / 16];
  __shared__ typename S32::TempStorage t32[TPB / 32];
  int g = blockIdx.x * TPB + threadIdx.x, t = threadIdx.x;
  int v = in[g], incl, excl, mx, agg;
  S8(t8[t / 8]).InclusiveSum(v, incl, agg);
  out[6 * g] = incl;
  out[6 * g + 1] = agg;
  S8(t8[t / 8]).ExclusiveSum(v, excl);
  out[6 * g + 2] = excl;
  S8(t8[t / 8]).InclusiveScan(v, mx, Max());
  out[6 * g + 3] = mx;
  S8(t8[t / 8]).ExclusiveScan(v, excl, -1000000, Max());
  out[6 * g + 4] = excl;
  S32(t32[t / 32]).InclusiveSum(v, incl);
  out[6 * g + 5] = incl;
  float f;
  S16f(t16f[t / 16]).InclusiveSum(fin[g], f);
  fout[g] = f;
}

int main() {
  begin();
  Lcg rng(1616);
  std::vector<int> in(N);
  std::vector<float> fin(N);
  for (int i = 0; i < N; i++) {
    in[i] = (int)(rng.u32() % 2001) - 1000;
    fin[i] = rng.sym() * (float)(1 << (i % 7));  // magnitudes that make the float order matter
  }
  int *di = to_device(in), *dout;
  float *df = to_device(fin), *dfout;
  const int nred = 4 * (N / 16) + N / 8 + N / 4 + N;
  TRY(cudaMalloc(&dout, 6 * N * sizeof(int)));
  TRY(cudaMalloc(&dfout, N * sizeof(float)));
  TRY(cudaMemset(dout, 0, 6 * N * sizeof(int)));
  warp_reduce<<<BLOCKS, TPB>>>(di, df, dout, dfout);
  LAUNCHED();
  std::vector<int> red = to_host(dout, nred);
  std::vector<float> fred = to_host(dfout, N / 16);
  std::vector<int> sum16, max16, seg8(red.begin() + 4 * (N / 16), red.begin() + 4 * (N / 16) + N / 8),
      part4(red.begin() + 4 * (N / 16) + N / 8, red.begin() + 4 * (N / 16) + N / 8 + N / 4);
  for (int w = 0; w < N / 16; w++) {
    sum16.push_back(red[4 * w]);
    max16.push_back(red[4 * w + 1]);
  }
  report("WarpReduce<int,16>::Sum", sum16);
  report("WarpReduce<int,16>::Reduce(max)", max16);
  report("WarpReduce<float,16>::Sum", fred);
  report("WarpReduce<int,4>::Sum(valid 3)", part4);
  std::vector<int> heads(red.begin() + 4 * (N / 16) + N / 8 + N / 4, red.end());
  report("WarpReduce<int,8>::HeadSegmentedSum at heads", heads);

  warp_scan<<<BLOCKS, TPB>>>(di, df, dout, dfout);
  LAUNCHED();
  std::vector<int> sc = to_host(dout, 6 * N);
  std::vector<float> fsc = to_host(dfout, N);
  const char *names[6] = {"WarpScan<int,8>::InclusiveSum", "WarpScan<int,8> aggregate", "WarpScan<int,8>::ExclusiveSum",
                          "WarpScan<int,8>::InclusiveScan(max)", "WarpScan<int,8>::ExclusiveScan(max)",
                          "WarpScan<int>::InclusiveSum"};
  for (int k = 0; k < 6; k++) {
    std::vector<int> col;
    for (int i = 0; i < N; i++) col.push_back(sc[6 * i + k]);
    report(names[k], col);
  }
  report("WarpScan<float,16>::InclusiveSum", fsc);

  // Host checks of the integer results (exact).
  bool ok16 = true, ok8 = true, ok4 = true;
  for (int w = 0; w < N / 16; w++) {
    int s = 0, m = -1000000;
    for (int l = 0; l < 16; l++) s += in[16 * w + l], m = std::max(m, in[16 * w + l]);
    ok16 = ok16 && s == sum16[w] && m == max16[w];
  }
  for (int i = 0; i < N; i++) {
    int s = 0;
    for (int l = i / 8 * 8; l <= i; l++) s += in[l];
    ok8 = ok8 && sc[6 * i] == s;
  }
  for (int w = 0; w < N / 4; w++) ok4 = ok4 && part4[w] == in[4 * w] + in[4 * w + 1] + in[4 * w + 2];
  check(ok16, "WarpReduce<int,16> sums and maxima equal the host's");
  check(ok8, "WarpScan<int,8> inclusive sums equal the host's");
  check(ok4, "WarpReduce<int,4> partial sums equal the host's");
  return finish("cub_warp");
}
