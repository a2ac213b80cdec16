// apps.h — what the application programs share: fixed-seed inputs, results printed bit for bit, error exits.
//
// An app prints what it computed so that a difference in the last bit of any result changes its output:
// report() prints an FNV-1a hash of the values' bit patterns and a few of them exactly (%a, or integers), and
// check() (from ../programs/check.h) says whether the result is close to a host computation, which only shows
// that the program works, not how the GPU rounds. Nothing printed depends on the hardware (no SM counts,
// pointers or timings). Inputs come from a 64-bit LCG and are exact binary fractions, so the host builds the
// same inputs whatever its compiler does with floating point.
#pragma once
#include "../programs/check.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

// TRY(call): a CUDA call that must succeed; otherwise print where and the error's name, and exit 1.
#define TRY(call) try_cuda((call), #call, __LINE__)
static inline void try_cuda(cudaError_t e, const char *what, int line) {
  if (e == cudaSuccess) return;
  printf("line %d: %s -> %s: FAIL\n", line, what, cudaGetErrorName(e));
  exit(1);
}
// LAUNCHED(): after a <<<>>> launch, the launch error if any.
#define LAUNCHED() TRY(cudaGetLastError())

// Knuth's MMIX LCG; u32() is the high half of the state.
struct Lcg {
  uint64_t s;
  explicit Lcg(uint64_t seed) : s(seed) {}
  uint32_t u32() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(s >> 32);
  }
  // Uniform in [0, 1): a multiple of 2^-24, exact in float and double.
  float unit() { return (float)(u32() >> 8) * 0x1p-24f; }
  // Uniform in [-1, 1): a multiple of 2^-23.
  float sym() { return 2.0f * unit() - 1.0f; }
};

// FNV-1a over the bytes of n values.
template <class T> static inline uint64_t fnv1a(const T *v, size_t n) {
  const unsigned char *p = (const unsigned char *)v;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n * sizeof(T); i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

static inline void print_value(float x) { printf(" %a", (double)x); }
static inline void print_value(double x) { printf(" %a", x); }
static inline void print_value(int x) { printf(" %d", x); }
static inline void print_value(unsigned x) { printf(" %u", x); }
static inline void print_value(long long x) { printf(" %lld", x); }
static inline void print_value(unsigned long long x) { printf(" %llu", x); }

// "WHAT: n=N hash=H v[0] v[n/4] v[n/2] v[3n/4] v[n-1]"; all n values when n <= 8.
template <class T> static inline void report(const char *what, const T *v, size_t n) {
  printf("%s: n=%zu hash=%016llx", what, n, (unsigned long long)fnv1a(v, n));
  if (n <= 8) {
    for (size_t i = 0; i < n; i++) print_value(v[i]);
  } else {
    const size_t at[5] = {0, n / 4, n / 2, 3 * n / 4, n - 1};
    for (size_t i : at) print_value(v[i]);
  }
  printf("\n");
}
template <class T> static inline void report(const char *what, const std::vector<T> &v) {
  report(what, v.data(), v.size());
}

// The largest |got - want| / max(|want|, floor) over n values.
template <class T, class U>
static inline double max_rel_err(const T *got, const U *want, size_t n, double floor = 1.0) {
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)got[i] - (double)want[i]) / fmax(fabs((double)want[i]), floor);
    if (d != d) return INFINITY;  // NaN
    worst = fmax(worst, d);
  }
  return worst;
}

// Device buffers of T, copied in and out whole.
// How far a GEMM's result d(i, j) is from the exact want = alpha * sum_k a(i, k) * b(k, j) + beta * c(i, j), computed
// in double: the largest |d - want| relative to the sum of the magnitudes that went into it (absolute for integers,
// or where that sum is 0). c_in_sum: D = A*B + C summed as c + a0*b0 + a1*b1 + ... (alpha = beta = 1), as the
// tensor-core apps print it; else the sum of products first, then alpha and beta (CUTLASS's epilogue).
template <class A, class B, class C, class D>
static inline double gemm_error(int M, int N, int K, A a, B b, C c, D d, bool c_in_sum, double alpha = 1,
                                double beta = 1, bool ints = false) {
  double err = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = c_in_sum ? (double)c(i, j) : 0, mag = fabs(s);
      for (int k = 0; k < K; k++) {
        double p = (double)a(i, k) * (double)b(k, j);
        s += p;
        mag += fabs(p);
      }
      double want = s;
      if (!c_in_sum) {
        double cij = c(i, j);
        want = alpha * s + beta * cij;
        mag = fabs(alpha) * mag + fabs(beta * cij);
      }
      double e = fabs((double)d(i, j) - want);
      err = fmax(err, ints || !mag ? e : e / mag);
    }
  return err;
}

template <class T> static inline T *to_device(const std::vector<T> &h) {
  T *d = nullptr;
  TRY(cudaMalloc(&d, h.size() * sizeof(T) + 1));
  TRY(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T> static inline std::vector<T> to_host(const T *d, size_t n) {
  std::vector<T> h(n);
  TRY(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

#ifdef THRUST_VERSION  // apps.h included after Thrust's headers: a device_vector's contents
template <class T> static inline std::vector<T> to_host(const thrust::device_vector<T> &d) {
  std::vector<T> h(d.size());
  thrust::copy(d.begin(), d.end(), h.begin());
  return h;
}
#endif
