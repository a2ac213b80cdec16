// thrust_algos — Thrust's algorithms on device_vectors as application code calls them: transform (SAXPY with a
// functor, a lambda-free unary op), reduce (int; float over one tile, so the sum's order does not depend on
// the GPU's SM count), transform_reduce (sum of squares in double), inclusive_scan and exclusive_scan (int over
// many tiles; float over one tile: a float scan over several tiles may combine tile prefixes in either order
// on a GPU), minmax_element (with repeated extremes: the first minimum and the first maximum, as Thrust
// documents), count_if, inner_product, sequence and fill.
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include "apps.h"  // after Thrust: to_host(device_vector)

constexpr int N = 50000, SMALL = 1500;  // SMALL: within one tile of CUB's reduce (2048 doubles) and scan

struct saxpy {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};
struct square {
  __host__ __device__ double operator()(float x) const { return (double)x * x; }
};
struct is_small {
  __host__ __device__ bool operator()(int v) const { return v > -100 && v < 100; }
};

int main() {
  begin();
  Lcg rng(4242);
  std::vector<float> hx(N), hy(N);
  std::vector<int> hi(N);
  for (int i = 0; i < N; i++) {
    hx[i] = rng.sym();
    hy[i] = 8.0f * rng.sym();
    hi[i] = (int)(rng.u32() % 20001) - 10000;
  }
  hi[123] = hi[40000] = -20000;  // the minimum twice
  hi[7] = hi[49999] = 30000;     // the maximum twice
  thrust::device_vector<float> x(hx.begin(), hx.end()), y(hy.begin(), hy.end()), z(N);
  thrust::device_vector<int> v(hi.begin(), hi.end()), w(N);

  thrust::transform(x.begin(), x.end(), y.begin(), z.begin(), saxpy{1.7f});
  report("saxpy", to_host(z));
  thrust::transform(z.begin(), z.end(), z.begin(), thrust::negate<float>());

  int isum = thrust::reduce(v.begin(), v.end());
  float fsum = thrust::reduce(z.begin(), z.begin() + SMALL, 0.0f);
  float fmax_ = thrust::reduce(z.begin(), z.end(), -1e30f, thrust::maximum<float>());
  double sq = thrust::transform_reduce(x.begin(), x.begin() + SMALL, square(), 0.0, thrust::plus<double>());
  float dot = thrust::inner_product(x.begin(), x.begin() + SMALL, y.begin(), 0.0f);
  printf("reduce int: %d\n", isum);
  printf("reduce float (%d values): %a\n", SMALL, (double)fsum);
  printf("reduce max float: %a\n", (double)fmax_);
  printf("transform_reduce sum of squares (double): %a\n", sq);
  printf("inner_product (%d values): %a\n", SMALL, (double)dot);

  thrust::inclusive_scan(v.begin(), v.end(), w.begin());
  report("inclusive_scan int", to_host(w));
  thrust::exclusive_scan(v.begin(), v.end(), w.begin(), 7);
  report("exclusive_scan int (init 7)", to_host(w));
  thrust::device_vector<float> fs(SMALL);
  thrust::inclusive_scan(y.begin(), y.begin() + SMALL, fs.begin());
  report("inclusive_scan float", to_host(fs));
  thrust::inclusive_scan(v.begin(), v.end(), w.begin(), thrust::maximum<int>());
  report("inclusive_scan max", to_host(w));

  auto mm = thrust::minmax_element(v.begin(), v.end());
  printf("minmax_element: min %d at %d, max %d at %d\n", (int)*mm.first, (int)(mm.first - v.begin()),
         (int)*mm.second, (int)(mm.second - v.begin()));
  auto mf = thrust::minmax_element(x.begin(), x.end());
  printf("minmax_element float: min %a at %d, max %a at %d\n", (double)(float)*mf.first, (int)(mf.first - x.begin()),
         (double)(float)*mf.second, (int)(mf.second - x.begin()));
  printf("count_if |v| < 100: %d\n", (int)thrust::count_if(v.begin(), v.end(), is_small()));

  thrust::sequence(w.begin(), w.end(), -5, 3);
  thrust::fill(w.begin() + 10, w.begin() + 20, 99);
  report("sequence + fill", to_host(w));

  long long ref = 0;
  for (int e : hi) ref += e;
  check(isum == (int)ref, "int reduce equals the host's");
  check(mm.first - v.begin() == 123 && mm.second - v.begin() == 7,
        "minmax_element: the first minimum and the first maximum (as min_element, max_element)");
  return finish("thrust_algos");
}
