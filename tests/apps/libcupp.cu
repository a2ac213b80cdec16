// libcupp — libcu++ (CCCL's standard library for device code) as application code uses it:
// cuda::std::complex<float> in a Mandelbrot escape-time loop (iteration counts sit on the FMA's rounding near
// the set's edge) and complex<double> in a direct DFT with cuda::std::polar; cuda::atomic_ref on plain ints
// and unsigned long long in global memory (fetch_add, fetch_max, fetch_min, compare_exchange_strong loops:
// order-independent results); cuda::std::span and cuda::std::array passed into device functions,
// cuda::std::fmin/fmax, cuda::std::bit_cast and cuda::std::numeric_limits.
#include "apps.h"

#include <cuda/atomic>
#include <cuda/std/array>
#include <cuda/std/bit>
#include <cuda/std/cmath>
#include <cuda/std/complex>
#include <cuda/std/limits>
#include <cuda/std/span>

using cfloat = cuda::std::complex<float>;
using cdouble = cuda::std::complex<double>;
constexpr int W = 96, H = 64, MAXIT = 256, NDFT = 128;

__global__ void mandelbrot(int *iters, float *last) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  cfloat c(-0.75f + ((float)x - W / 2) * (1.0f / 40.0f), ((float)y - H / 2) * (1.0f / 40.0f));
  cfloat z(0.0f, 0.0f);
  int it = 0;
  while (it < MAXIT && cuda::std::norm(z) <= 4.0f) {
    z = z * z + c;
    it++;
  }
  iters[y * W + x] = it;
  last[y * W + x] = cuda::std::abs(z);
}

__global__ void dft(const cdouble *in, cdouble *out) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= NDFT) return;
  cdouble s(0.0, 0.0);
  for (int n = 0; n < NDFT; n++) s += in[n] * cuda::std::polar(1.0, -2.0 * 3.141592653589793 * k * n / NDFT);
  out[k] = s;
}

// Sum of a span, scaled by an array of weights that cycles.
__device__ float weighted(cuda::std::span<const float> v, const cuda::std::array<float, 4> &w) {
  float s = 0.0f;
  for (size_t i = 0; i < v.size(); i++) s += v[i] * w[i % w.size()];
  return s;
}

struct Stats {
  int count, max, min;
  unsigned long long sum, bits_or;
};

__global__ void atomics(const float *x, int n, Stats *st, float *wsum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int q = (int)cuda::std::fmin(cuda::std::fmax(x[i] * 1000.0f, -900.0f), 900.0f);
    cuda::atomic_ref<int, cuda::thread_scope_device> count(st->count), mx(st->max), mn(st->min);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> sum(st->sum), bits(st->bits_or);
    count.fetch_add(1, cuda::std::memory_order_relaxed);
    mx.fetch_max(q);
    mn.fetch_min(q);
    sum.fetch_add((unsigned long long)(q + 1000));
    unsigned long long want = bits.load(), got;
    do {  // or in the float's bits by compare-exchange, the long way
      got = want | cuda::std::bit_cast<unsigned>(x[i]);
    } while (!bits.compare_exchange_strong(want, got));
  }
  if (i < n / 16) {
    const cuda::std::array<float, 4> w = {1.0f, -0.5f, 0.25f, cuda::std::numeric_limits<float>::epsilon()};
    wsum[i] = weighted(cuda::std::span<const float>(x + 16 * i, 16), w);
  }
}

int main() {
  begin();
  int *dit;
  float *dlast;
  TRY(cudaMalloc(&dit, W * H * sizeof(int)));
  TRY(cudaMalloc(&dlast, W * H * sizeof(float)));
  mandelbrot<<<dim3(W / 32, H), 32>>>(dit, dlast);
  LAUNCHED();
  std::vector<int> its = to_host(dit, W * H);
  report("mandelbrot iterations", its);
  report("mandelbrot |z|", to_host(dlast, W * H));

  Lcg rng(1729);
  std::vector<cdouble> sig(NDFT);
  for (auto &e : sig) e = cdouble(rng.sym(), rng.sym());
  cdouble *din = to_device(sig), *dout;
  TRY(cudaMalloc(&dout, NDFT * sizeof(cdouble)));
  dft<<<NDFT / 64, 64>>>(din, dout);
  LAUNCHED();
  std::vector<cdouble> spec = to_host(dout, NDFT);
  report("dft (re, im)", (const double *)spec.data(), 2 * NDFT);

  const int n = 5000;
  std::vector<float> x(n);
  for (float &e : x) e = rng.sym();
  float *dx = to_device(x), *dw;
  Stats init = {0, -1000000, 1000000, 0, 0};
  Stats *dst = to_device(std::vector<Stats>{init});
  TRY(cudaMalloc(&dw, n / 16 * sizeof(float)));
  atomics<<<(n + 127) / 128, 128>>>(dx, n, dst, dw);
  LAUNCHED();
  Stats st = to_host(dst, 1)[0];
  printf("atomic_ref: count %d max %d min %d sum %llu or %llx\n", st.count, st.max, st.min, st.sum, st.bits_or);
  report("span * array weighted sums", to_host(dw, n / 16));

  // Host checks: Parseval for the DFT; the atomics' results.
  double e_t = 0, e_f = 0;
  for (int i = 0; i < NDFT; i++) {
    e_t += cuda::std::norm(sig[i]);
    e_f += cuda::std::norm(spec[i]);
  }
  check(fabs(e_f / NDFT - e_t) < 1e-9 * e_t, "DFT satisfies Parseval's identity");
  int mx = -1000000, mn = 1000000;
  unsigned long long sum = 0;
  for (float e : x) {
    int q = (int)std::min(std::max(e * 1000.0f, -900.0f), 900.0f);
    mx = std::max(mx, q);
    mn = std::min(mn, q);
    sum += q + 1000;
  }
  check(st.count == n && st.max == mx && st.min == mn && st.sum == sum, "atomic_ref results equal the host's");
  check(its[H / 2 * W + W / 2] == MAXIT, "the centre of the view is in the Mandelbrot set");
  return finish("libcupp");
}
