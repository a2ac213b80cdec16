// cub_device — CUB's device-wide algorithms called directly, with the two-call temporary-storage idiom:
// DeviceReduce::Sum (int over many tiles; float over one tile, whose order does not depend on the SM count),
// Max, ArgMin; DeviceScan::InclusiveSum, ExclusiveSum (int), InclusiveScan with a max operator;
// DeviceRadixSort::SortPairs (32-bit keys), SortKeysDescending (float), SortPairs on a bit range;
// DeviceSegmentedReduce::Sum; DeviceHistogram::HistogramEven (float samples: the bin of each sample is an FMA
// of the GPU's); DeviceSelect::If; DeviceRunLengthEncode::Encode.
#include "apps.h"

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>

constexpr int N = 60000, SMALL = 3000, SEGS = 40;

// Calls a CUB device algorithm twice: once for the size of its temporary storage, once to run.
struct Temp {
  void *p = nullptr;
  size_t bytes = 0;
  template <class F> void run(const char *what, F f) {
    size_t need = 0;
    TRY(f(nullptr, need));
    if (need > bytes) {
      TRY(cudaFree(p));
      TRY(cudaMalloc(&p, need));
      bytes = need;
    }
    cudaError_t e = f(p, need);
    if (e != cudaSuccess) {
      printf("%s -> %s: FAIL\n", what, cudaGetErrorName(e));
      exit(1);
    }
  }
};

struct Max {
  __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};
struct Positive {
  __device__ bool operator()(float v) const { return v > 0.5f; }
};

template <class T> static T one(const T *d) {
  T v;
  TRY(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

int main() {
  begin();
  Lcg rng(6502);
  std::vector<int> hi(N), hoff(SEGS + 1);
  std::vector<float> hf(N);
  std::vector<unsigned> hk(N);
  for (int i = 0; i < N; i++) {
    hi[i] = (int)(rng.u32() % 100001) - 50000;
    hf[i] = 4.0f * rng.sym();
    hk[i] = rng.u32();
  }
  for (int s = 0; s <= SEGS; s++) hoff[s] = s == SEGS ? N : (int)((long long)N * s * s / (SEGS * SEGS));  // uneven
  int *di = to_device(hi), *dio, *dout, *doff = to_device(hoff);
  float *df = to_device(hf), *dfo, *dfout;
  unsigned *dk = to_device(hk), *dko;
  TRY(cudaMalloc(&dio, N * sizeof(int)));
  TRY(cudaMalloc(&dout, (N + 1) * sizeof(int)));
  TRY(cudaMalloc(&dfo, N * sizeof(float)));
  TRY(cudaMalloc(&dfout, SEGS * sizeof(float)));
  TRY(cudaMalloc(&dko, N * sizeof(unsigned)));
  Temp t;

  t.run("DeviceReduce::Sum int", [&](void *p, size_t &b) { return cub::DeviceReduce::Sum(p, b, di, dout, N); });
  printf("DeviceReduce::Sum int: %d\n", one(dout));
  t.run("DeviceReduce::Sum float", [&](void *p, size_t &b) { return cub::DeviceReduce::Sum(p, b, df, dfout, SMALL); });
  printf("DeviceReduce::Sum float (%d values): %a\n", SMALL, (double)one(dfout));
  t.run("DeviceReduce::Max float", [&](void *p, size_t &b) { return cub::DeviceReduce::Max(p, b, df, dfout, N); });
  printf("DeviceReduce::Max float: %a\n", (double)one(dfout));
  cub::KeyValuePair<int, int> *dkv;
  TRY(cudaMalloc(&dkv, sizeof *dkv));
  t.run("DeviceReduce::ArgMin int", [&](void *p, size_t &b) { return cub::DeviceReduce::ArgMin(p, b, di, dkv, N); });
  cub::KeyValuePair<int, int> kv = one(dkv);
  printf("DeviceReduce::ArgMin int: %d at %d\n", kv.value, kv.key);

  t.run("DeviceScan::InclusiveSum",
        [&](void *p, size_t &b) { return cub::DeviceScan::InclusiveSum(p, b, di, dio, N); });
  std::vector<int> incl = to_host(dio, N);
  report("DeviceScan::InclusiveSum int", incl);
  t.run("DeviceScan::ExclusiveSum",
        [&](void *p, size_t &b) { return cub::DeviceScan::ExclusiveSum(p, b, di, dio, N); });
  report("DeviceScan::ExclusiveSum int", to_host(dio, N));
  t.run("DeviceScan::InclusiveScan max",
        [&](void *p, size_t &b) { return cub::DeviceScan::InclusiveScan(p, b, di, dio, Max(), N); });
  report("DeviceScan::InclusiveScan max", to_host(dio, N));
  t.run("DeviceScan::InclusiveSum float",
        [&](void *p, size_t &b) { return cub::DeviceScan::InclusiveSum(p, b, df, dfo, SMALL); });
  report("DeviceScan::InclusiveSum float (one tile)", to_host(dfo, SMALL));

  std::vector<int> hv(N);
  for (int i = 0; i < N; i++) hv[i] = i;
  int *dv = to_device(hv);
  t.run("DeviceRadixSort::SortPairs",
        [&](void *p, size_t &b) { return cub::DeviceRadixSort::SortPairs(p, b, dk, dko, dv, dio, N); });
  std::vector<unsigned> sk = to_host(dko, N);
  report("DeviceRadixSort::SortPairs keys", sk);
  report("DeviceRadixSort::SortPairs values", to_host(dio, N));
  t.run("DeviceRadixSort::SortPairs bits 8..20",
        [&](void *p, size_t &b) { return cub::DeviceRadixSort::SortPairs(p, b, dk, dko, dv, dio, N, 8, 20); });
  report("DeviceRadixSort::SortPairs bits 8..20 values", to_host(dio, N));
  t.run("DeviceRadixSort::SortKeysDescending",
        [&](void *p, size_t &b) { return cub::DeviceRadixSort::SortKeysDescending(p, b, df, dfo, N); });
  report("DeviceRadixSort::SortKeysDescending float", to_host(dfo, N));

  t.run("DeviceSegmentedReduce::Sum", [&](void *p, size_t &b) {
    return cub::DeviceSegmentedReduce::Sum(p, b, df, dfout, SEGS, doff, doff + 1);
  });
  report("DeviceSegmentedReduce::Sum float", to_host(dfout, SEGS));

  int *dhist;
  TRY(cudaMalloc(&dhist, 30 * sizeof(int)));
  t.run("DeviceHistogram::HistogramEven", [&](void *p, size_t &b) {
    return cub::DeviceHistogram::HistogramEven(p, b, df, dhist, 31, -3.3f, 3.9f, N);
  });
  report("DeviceHistogram::HistogramEven (30 bins in [-3.3, 3.9))", to_host(dhist, 30));

  int *dnum;
  TRY(cudaMalloc(&dnum, sizeof(int)));
  t.run("DeviceSelect::If",
        [&](void *p, size_t &b) { return cub::DeviceSelect::If(p, b, df, dfo, dnum, N, Positive()); });
  int kept = one(dnum);
  printf("DeviceSelect::If kept %d\n", kept);
  report("DeviceSelect::If", to_host(dfo, kept));

  std::vector<int> runs(N);
  for (int i = 0; i < N; i++) runs[i] = hi[i] % 3 == 0 ? i / 7 : i / 5;  // runs of different lengths
  int *dr = to_device(runs), *dcounts;
  TRY(cudaMalloc(&dcounts, N * sizeof(int)));
  t.run("DeviceRunLengthEncode::Encode", [&](void *p, size_t &b) {
    return cub::DeviceRunLengthEncode::Encode(p, b, dr, dio, dcounts, dnum, N);
  });
  int nruns = one(dnum);
  printf("DeviceRunLengthEncode::Encode: %d runs\n", nruns);
  report("DeviceRunLengthEncode::Encode counts", to_host(dcounts, nruns));

  long long ref = 0;
  for (int i = 0; i < N; i++) ref += hi[i];
  check(incl[N - 1] == (int)ref, "inclusive sum ends with the total");
  bool sorted = true;
  for (int i = 1; i < N; i++) sorted = sorted && sk[i - 1] <= sk[i];
  check(sorted, "radix-sorted keys ascend");
  return finish("cub_device");
}
