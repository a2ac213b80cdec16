// cccl.cu — Thrust and CUB algorithms over float and double with arithmetic functors (contraction
// corpus). Only the device code matters: `nvcc -ptx` instantiates the kernels these host functions use.
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/iterator/transform_iterator.h>

struct saxpy { float a; __host__ __device__ float operator()(float x, float y) const { return a * x + y; } };
struct square { __host__ __device__ double operator()(double x) const { return x * x; } };
struct poly3 { __host__ __device__ float operator()(float x) const { return ((0.5f * x + 1.5f) * x - 2.f) * x + 0.25f; } };
struct dist2 {
  __host__ __device__ float operator()(const thrust::tuple<float, float> &t) const {
    float dx = thrust::get<0>(t) - 1.f, dy = thrust::get<1>(t) + 2.f;
    return dx * dx + dy * dy;
  }
};
struct lerp_scan {  // a linear recurrence y = a*y + x as an associative pair operator
  __host__ __device__ float2 operator()(float2 l, float2 r) const { return make_float2(l.x * r.x, r.x * l.y + r.y); }
};
struct pi_term { __host__ __device__ double operator()(int k) const { double x = (k + 0.5) / 1e6; return 4.0 / (1.0 + x * x); } };

void thrust_algorithms(thrust::device_vector<float> &x, thrust::device_vector<float> &y, thrust::device_vector<double> &d,
                       thrust::device_vector<float2> &p) {
  thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy{2.5f});
  double n2 = thrust::transform_reduce(d.begin(), d.end(), square(), 0.0, thrust::plus<double>());
  float dot = thrust::inner_product(x.begin(), x.end(), y.begin(), 0.f);
  thrust::transform(x.begin(), x.end(), y.begin(), poly3());
  thrust::inclusive_scan(x.begin(), x.end(), y.begin());
  thrust::exclusive_scan(d.begin(), d.end(), d.begin(), 1.0, thrust::multiplies<double>());
  auto z = thrust::make_zip_iterator(thrust::make_tuple(x.begin(), y.begin()));
  float s2 = thrust::transform_reduce(z, z + x.size(), dist2(), 0.f, thrust::plus<float>());
  thrust::inclusive_scan(p.begin(), p.end(), p.begin(), lerp_scan());
  double pi = thrust::transform_reduce(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(1000000), pi_term(), 0.0,
                                       thrust::plus<double>());
  (void)n2; (void)dot; (void)s2; (void)pi;
}

struct fmaop { __host__ __device__ double operator()(double a, double b) const { return a * 0.5 + b * 0.25; } };

void cub_algorithms(float *x, float *y, double *d, double *dout, int n, void *tmp, size_t bytes) {
  cub::DeviceReduce::Sum(tmp, bytes, x, y, n);
  cub::DeviceReduce::Reduce(tmp, bytes, d, dout, n, fmaop(), 0.0);
  cub::DeviceScan::InclusiveSum(tmp, bytes, d, dout, n);
  cub::DeviceScan::ExclusiveScan(tmp, bytes, x, y, saxpy{0.9f}, 0.f, n);
  auto sq = thrust::make_transform_iterator(d, square());
  cub::DeviceReduce::Sum(tmp, bytes, sq, dout, n);
}

// block-level CUB in a kernel of our own: a normalised histogram of squared values
extern "C" __global__ void cub_block(float *out, const float *in, int n) {
  typedef cub::BlockReduce<float, 128> BR;
  typedef cub::BlockScan<float, 128> BS;
  __shared__ union { typename BR::TempStorage r; typename BS::TempStorage s; } tmp;
  int i = blockIdx.x * 128 + threadIdx.x;
  float v = i < n ? in[i] : 0.f, e = v * v - 0.5f * v;
  float tot = BR(tmp.r).Sum(e);
  __syncthreads();
  float pre;
  BS(tmp.s).InclusiveSum(e * 2.f + 1.f, pre);
  if (i < n) out[i] = pre * 0.25f + tot * 0.125f;
}
