// templates.cu — C++ kernels: one template instantiated for int, float, double and a struct; a functor and an
// extended __device__ lambda passed by value; a non-type template parameter sizing shared memory; a kernel in
// a namespace; and overloaded kernels. Every instantiation is its own mangled kernel name the runtime must find.
#include "check.h"

#include <vector>

struct Complex {
  float re, im;
  __host__ __device__ Complex operator*(const Complex &o) const {
    return {re * o.re - im * o.im, re * o.im + im * o.re};
  }
  __host__ __device__ Complex operator+(const Complex &o) const { return {re + o.re, im + o.im}; }
  __host__ __device__ bool operator==(const Complex &o) const { return re == o.re && im == o.im; }
};

// y[i] = a * x[i] + y[i] for any type with * and +.
template <typename T>
__global__ void axpy(int n, T a, const T *x, T *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T>
static bool run_axpy(const char *type, T a, T (*gen)(int)) {
  const int n = 300;
  std::vector<T> x(n), y(n), r(n);
  for (int i = 0; i < n; i++) x[i] = gen(i), y[i] = gen(n - i);
  T *dx, *dy;
  cudaMalloc(&dx, n * sizeof(T));
  cudaMalloc(&dy, n * sizeof(T));
  cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  axpy<T><<<(n + 127) / 128, 128>>>(n, a, dx, dy);
  cudaError_t e = cudaMemcpy(r.data(), dy, n * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  char what[64];
  snprintf(what, sizeof what, "axpy<%s>", type);  // the values are exact: no rounding, fused or not
  if (e != cudaSuccess) return check_cuda(e, what);
  return check_all(r.data(), n, [&](size_t i) { return a * x[i] + y[i]; }, what);
}

// A functor and a generic map kernel.
struct Affine {
  int mul, add;
  __device__ int operator()(int v) const { return v * mul + add; }
};
template <typename F>
__global__ void map(int *p, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = f(p[i]);
}

// Non-type parameter: the block size, which sizes the shared array and unrolls the tree.
template <int BLOCK>
__global__ void block_sum(const int *in, int *out) {
  __shared__ int s[BLOCK];
  s[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
#pragma unroll
  for (int w = BLOCK / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

template <int BLOCK>
static bool run_block_sum() {
  const int blocks = 5, n = blocks * BLOCK;
  std::vector<int> in(n), out(blocks);
  for (int i = 0; i < n; i++) in[i] = (i * 37) % 101 - 50;
  int *din, *dout;
  cudaMalloc(&din, n * sizeof(int));
  cudaMalloc(&dout, blocks * sizeof(int));
  cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  block_sum<BLOCK><<<blocks, BLOCK>>>(din, dout);
  cudaMemcpy(out.data(), dout, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(din);
  cudaFree(dout);
  return check_all(out.data(), blocks, [&](size_t b) {
      int s = 0;
      for (int k = 0; k < BLOCK; k++) s += in[b * BLOCK + k];
      return s;
    }, BLOCK == 64 ? "block_sum<64>" : BLOCK == 256 ? "block_sum<256>" : "block_sum<1024>");
}

namespace kernels {
namespace detail {
__global__ void negate(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = -p[i];
}
}  // namespace detail
}  // namespace kernels

// Two kernels with one name, told apart by their parameter types.
__global__ void over(int *p) { p[threadIdx.x] += 1; }
__global__ void over(float *p) { p[threadIdx.x] *= 2.0f; }

static int gen_int(int i) { return i * 3 - 100; }
static float gen_float(int i) { return i * 0.25f - 10.0f; }
static double gen_double(int i) { return i * 0.125 + 1e10; }
static Complex gen_complex(int i) { return {i * 0.5f, 1.0f - i * 0.25f}; }

int main() {
  begin();
  run_axpy<int>("int", 7, gen_int);
  run_axpy<float>("float", 1.5f, gen_float);
  run_axpy<double>("double", -0.5, gen_double);
  run_axpy<Complex>("Complex", Complex{0.5f, -2.0f}, gen_complex);

  const int n = 200;
  std::vector<int> h(n);
  for (int i = 0; i < n; i++) h[i] = i;
  int *d;
  CK(cudaMalloc(&d, n * sizeof(int)));
  CK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  map<<<2, 128>>>(d, n, Affine{3, -4});
  int base = 1000;
  map<<<2, 128>>>(d, n, [=] __device__(int v) { return v + base; });  // captures base by value
  kernels::detail::negate<<<1, 256>>>(d, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  check_all(h.data(), n, [](size_t i) { return -((int)i * 3 - 4 + 1000); }, "functor, lambda, namespaced kernel");

  run_block_sum<64>();
  run_block_sum<256>();
  run_block_sum<1024>();

  float *f;
  float hf[32];
  CK(cudaMalloc(&f, sizeof hf));
  for (int i = 0; i < 32; i++) hf[i] = i;
  CK(cudaMemcpy(f, hf, sizeof hf, cudaMemcpyHostToDevice));
  over<<<1, 32>>>(d);
  over<<<1, 32>>>(f);
  CK(cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h.data(), d, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  check_all(hf, 32, [](size_t i) { return 2.0f * i; }, "over(float *)");
  check_all(h.data(), 32, [](size_t i) { return -((int)i * 3 - 4 + 1000) + 1; }, "over(int *)");
  CK(cudaFree(d));
  CK(cudaFree(f));
  return finish("templates");
}
