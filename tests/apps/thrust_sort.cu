// thrust_sort — Thrust's sorts: sort of ints and of floats (negative numbers, -0.0 and +0.0, infinities; radix
// sort underneath), sort with greater<float> (descending), sort_by_key (stable: equal keys keep their values'
// order), stable_sort of structs with a comparator (merge sort underneath), unique and reduce_by_key on the
// sorted keys, and a sort of 64-bit keys.
#include <algorithm>

#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include "apps.h"  // after Thrust: to_host(device_vector)

constexpr int N = 20000;

struct Particle {
  int cell;
  float energy;
};
struct by_cell_then_energy {
  __host__ __device__ bool operator()(const Particle &a, const Particle &b) const {
    return a.cell < b.cell || (a.cell == b.cell && a.energy > b.energy);
  }
};

int main() {
  begin();
  Lcg rng(8080);
  std::vector<int> hk(N), hv(N);
  std::vector<float> hf(N);
  std::vector<unsigned long long> h64(N);
  std::vector<Particle> hp(N);
  for (int i = 0; i < N; i++) {
    hk[i] = (int)(rng.u32() % 500) - 250;  // many equal keys
    hv[i] = i;
    hf[i] = 100.0f * rng.sym();
    h64[i] = (unsigned long long)rng.u32() << 32 | rng.u32();
    hp[i] = {(int)(rng.u32() % 64), (float)(rng.u32() % 32)};  // equal (cell, energy) pairs too
  }
  hf[5] = -0.0f;
  hf[6] = 0.0f;
  hf[7] = INFINITY;
  hf[8] = -INFINITY;

  thrust::device_vector<int> k(hk.begin(), hk.end());
  thrust::sort(k.begin(), k.end());
  std::vector<int> sk = to_host(k);
  report("sort int", sk);

  thrust::device_vector<float> f(hf.begin(), hf.end());
  thrust::sort(f.begin(), f.end());
  std::vector<float> sf = to_host(f);
  report("sort float", sf);
  thrust::sort(f.begin(), f.end(), thrust::greater<float>());
  report("sort float descending", to_host(f));

  thrust::device_vector<int> keys(hk.begin(), hk.end()), vals(hv.begin(), hv.end());
  thrust::sort_by_key(keys.begin(), keys.end(), vals.begin());
  std::vector<int> sv = to_host(vals);
  report("sort_by_key values", sv);

  thrust::device_vector<Particle> p(hp.begin(), hp.end());
  thrust::stable_sort(p.begin(), p.end(), by_cell_then_energy());
  std::vector<Particle> sp = to_host(p);
  std::vector<int> order(N);
  for (int i = 0; i < N; i++) order[i] = sp[i].cell * 1000 + (int)sp[i].energy;
  report("stable_sort structs (cell, energy)", order);

  thrust::device_vector<int> ones(N, 1), uk(N), counts(N);
  auto ends = thrust::reduce_by_key(keys.begin(), keys.end(), ones.begin(), uk.begin(), counts.begin());
  int groups = (int)(ends.first - uk.begin());
  printf("reduce_by_key: %d distinct keys\n", groups);
  report("reduce_by_key counts", to_host(counts).data(), groups);
  int uniq = (int)(thrust::unique(k.begin(), k.end()) - k.begin());
  printf("unique: %d\n", uniq);

  thrust::device_vector<unsigned long long> d64(h64.begin(), h64.end());
  thrust::sort(d64.begin(), d64.end());
  report("sort u64", to_host(d64));

  std::vector<int> rk = hk;
  std::sort(rk.begin(), rk.end());
  check(rk == sk, "int sort equals the host's");
  bool stable = true;
  for (int i = 1; i < N; i++) {
    int a = sv[i - 1], b = sv[i];
    stable = stable && (hk[a] < hk[b] || (hk[a] == hk[b] && a < b));
  }
  check(stable, "sort_by_key is stable");
  bool sorted = true;
  for (int i = 1; i < N; i++) sorted = sorted && !(sf[i] < sf[i - 1]);
  check(sorted && sf[0] == -INFINITY && sf[N - 1] == INFINITY, "float sort ascending, infinities at the ends");
  check(uniq == groups, "unique and reduce_by_key agree");
  return finish("thrust_sort");
}
