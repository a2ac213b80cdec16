// scan — hand-written prefix sums, as before libraries: a work-efficient (Blelloch up-sweep/down-sweep)
// exclusive scan of 512-element tiles in shared memory, a warp-shuffle inclusive scan (Kogge-Stone with
// __shfl_up_sync) composed into a block scan, and the three-phase multi-block scan (scan tiles, scan the tile
// sums, add them back) over 100,000 ints and floats. Float sums keep a fixed tree order, so they are
// deterministic; the last one also compacts the positive values (stream compaction by the scanned flags).
#include "apps.h"

constexpr int N = 100000, TILE = 512, TPB = 256, TILES = (N + TILE - 1) / TILE;

// Exclusive scan of one tile of 512 by 256 threads (two elements each); the tile's total into sums.
template <class T> __global__ void blelloch(const T *in, T *out, T *sums, int n) {
  __shared__ T s[TILE];
  int t = threadIdx.x, base = blockIdx.x * TILE;
  s[2 * t] = base + 2 * t < n ? in[base + 2 * t] : T(0);
  s[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : T(0);
  int off = 1;
  for (int d = TILE / 2; d > 0; d >>= 1, off <<= 1) {
    __syncthreads();
    if (t < d) s[off * (2 * t + 2) - 1] += s[off * (2 * t + 1) - 1];
  }
  __syncthreads();
  if (t == 0) {
    if (sums) sums[blockIdx.x] = s[TILE - 1];
    s[TILE - 1] = T(0);
  }
  for (int d = 1; d < TILE; d <<= 1) {
    off >>= 1;
    __syncthreads();
    if (t < d) {
      int a = off * (2 * t + 1) - 1, b = off * (2 * t + 2) - 1;
      T x = s[a];
      s[a] = s[b];
      s[b] += x;
    }
  }
  __syncthreads();
  if (base + 2 * t < n) out[base + 2 * t] = s[2 * t];
  if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = s[2 * t + 1];
}

template <class T> __global__ void add_offsets(T *out, const T *offsets, int n) {
  int i = blockIdx.x * TILE + threadIdx.x;
  for (int k = 0; k < 2; k++, i += TPB)
    if (i < n) out[i] += offsets[blockIdx.x];
}

// Inclusive warp scan by shuffles, then a scan of the 8 warp totals by warp 0.
template <class T> __global__ void shfl_block_scan(const T *in, T *out, int n) {
  __shared__ T warp_tot[TPB / 32];
  int i = blockIdx.x * TPB + threadIdx.x, lane = threadIdx.x % 32, w = threadIdx.x / 32;
  T v = i < n ? in[i] : T(0);
  for (int o = 1; o < 32; o <<= 1) {
    T u = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += u;
  }
  if (lane == 31) warp_tot[w] = v;
  __syncthreads();
  if (w == 0) {
    T t = lane < TPB / 32 ? warp_tot[lane] : T(0);
    for (int o = 1; o < TPB / 32; o <<= 1) {
      T u = __shfl_up_sync(0xffffffffu, t, o);
      if (lane >= o) t += u;
    }
    if (lane < TPB / 32) warp_tot[lane] = t;
  }
  __syncthreads();
  if (w > 0) v += warp_tot[w - 1];
  if (i < n) out[i] = v;
}

__global__ void compact(const float *in, const int *pos, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0.0f) out[pos[i]] = in[i];
}

// Multi-block exclusive scan: tiles, then (recursively, here one level suffices) the tile sums.
template <class T> static std::vector<T> exclusive_scan(const T *d_in, T *d_out, int n) {
  T *sums, *sums_scanned;
  int tiles = (n + TILE - 1) / TILE;
  TRY(cudaMalloc(&sums, tiles * sizeof(T)));
  TRY(cudaMalloc(&sums_scanned, tiles * sizeof(T)));
  blelloch<T><<<tiles, TPB>>>(d_in, d_out, sums, n);
  blelloch<T><<<1, TPB>>>(sums, sums_scanned, (T *)nullptr, tiles);  // tiles <= 512
  add_offsets<T><<<tiles, TPB>>>(d_out, sums_scanned, n);
  LAUNCHED();
  TRY(cudaFree(sums));
  TRY(cudaFree(sums_scanned));
  return to_host(d_out, n);
}

int main() {
  begin();
  static_assert(TILES <= TILE, "one level of tile sums");
  Lcg rng(17);
  std::vector<int> xi(N);
  std::vector<float> xf(N);
  for (int i = 0; i < N; i++) {
    xi[i] = (int)(rng.u32() % 2001) - 1000;
    xf[i] = rng.sym();
  }
  int *di = to_device(xi), *dio;
  float *df = to_device(xf), *dfo;
  TRY(cudaMalloc(&dio, N * sizeof(int)));
  TRY(cudaMalloc(&dfo, N * sizeof(float)));

  std::vector<int> si = exclusive_scan(di, dio, N);
  std::vector<float> sf = exclusive_scan(df, dfo, N);
  report("exclusive scan, int", si);
  report("exclusive scan, float", sf);
  shfl_block_scan<float><<<(N + TPB - 1) / TPB, TPB>>>(df, dfo, N);
  LAUNCHED();
  report("inclusive block scans (shuffles), float", to_host(dfo, N));

  std::vector<int> flags(N);
  for (int i = 0; i < N; i++) flags[i] = xf[i] > 0.0f;
  int *dflags = to_device(flags), *dpos;
  TRY(cudaMalloc(&dpos, N * sizeof(int)));
  std::vector<int> pos = exclusive_scan(dflags, dpos, N);
  int kept = pos[N - 1] + flags[N - 1];
  float *dc;
  TRY(cudaMalloc(&dc, kept * sizeof(float)));
  compact<<<(N + TPB - 1) / TPB, TPB>>>(df, dpos, dc, N);
  LAUNCHED();
  std::vector<float> comp = to_host(dc, kept);
  printf("compaction kept %d of %d\n", kept, N);
  report("compacted", comp);

  std::vector<int> ri(N);
  std::vector<float> rc;
  long long acc = 0;
  for (int i = 0; i < N; i++) {
    ri[i] = (int)acc;
    acc += xi[i];
    if (xf[i] > 0.0f) rc.push_back(xf[i]);
  }
  check(ri == si, "int scan equals the host's");
  double worst = 0, accd = 0;
  for (int i = 0; i < N; i++) {
    worst = fmax(worst, fabs(sf[i] - accd));
    accd += xf[i];
  }
  check(worst < 0.01, "float scan within 0.01 of the exact sums");
  check(rc == comp, "compaction keeps the positive values in order");
  return finish("scan");
}
