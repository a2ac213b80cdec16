// shfl_typed.cu — __shfl_sync / _up / _down / _xor on int, unsigned, long long, unsigned long long, float and
// double at every width 1, 2, 4, 8, 16, 32, with the immediate operands the CUDA headers produce.
// Lane values come from the random input words (64-bit types take two words, so both halves differ).
// Layout (block 32, grid 1): out[(w * 19 + op) * 32 + lane], w = 0..5 for widths 1..32 and op =
//   0..5  __shfl_sync      srcLane 0, 3, 5, 17, 33, -1
//   6..9  __shfl_up_sync   delta 0, 1, 3, 16
//   10..13 __shfl_down_sync delta 0, 1, 3, 16
//   14..18 __shfl_xor_sync laneMask 1, 3, 8, 16, 31
template <typename T> struct Mk;
template <> struct Mk<int> { static __device__ int f(unsigned lo, unsigned) { return (int)lo; } };
template <> struct Mk<unsigned> { static __device__ unsigned f(unsigned lo, unsigned) { return lo; } };
template <> struct Mk<long long> {
  static __device__ long long f(unsigned lo, unsigned hi) { return (long long)(((unsigned long long)hi << 32) | lo); }
};
template <> struct Mk<unsigned long long> {
  static __device__ unsigned long long f(unsigned lo, unsigned hi) { return ((unsigned long long)hi << 32) | lo; }
};
template <> struct Mk<float> { static __device__ float f(unsigned lo, unsigned) { return __uint_as_float(lo); } };
template <> struct Mk<double> {
  static __device__ double f(unsigned lo, unsigned hi) {
    return __longlong_as_double((long long)(((unsigned long long)hi << 32) | lo));
  }
};

template <typename T, int W>
__device__ __forceinline__ void shfl_width(T v, T *out, unsigned lane) {
  const int idx[6] = {0, 3, 5, 17, 33, -1};
  const unsigned d[4] = {0, 1, 3, 16};
  const int x[5] = {1, 3, 8, 16, 31};
#pragma unroll
  for (int k = 0; k < 6; k++) out[k * 32 + lane] = __shfl_sync(0xffffffff, v, idx[k], W);
#pragma unroll
  for (int k = 0; k < 4; k++) out[(6 + k) * 32 + lane] = __shfl_up_sync(0xffffffff, v, d[k], W);
#pragma unroll
  for (int k = 0; k < 4; k++) out[(10 + k) * 32 + lane] = __shfl_down_sync(0xffffffff, v, d[k], W);
#pragma unroll
  for (int k = 0; k < 5; k++) out[(14 + k) * 32 + lane] = __shfl_xor_sync(0xffffffff, v, x[k], W);
}

template <typename T>
__device__ __forceinline__ void shfl_all_widths(const unsigned *in, T *out) {
  unsigned lane = threadIdx.x & 31;
  T v = Mk<T>::f(in[2 * lane], in[2 * lane + 1]);
  shfl_width<T, 1>(v, out + 0 * 19 * 32, lane);
  shfl_width<T, 2>(v, out + 1 * 19 * 32, lane);
  shfl_width<T, 4>(v, out + 2 * 19 * 32, lane);
  shfl_width<T, 8>(v, out + 3 * 19 * 32, lane);
  shfl_width<T, 16>(v, out + 4 * 19 * 32, lane);
  shfl_width<T, 32>(v, out + 5 * 19 * 32, lane);
}

extern "C" __global__ void shfl_typed_int(const unsigned *in, int *out) { shfl_all_widths<int>(in, out); }
extern "C" __global__ void shfl_typed_uint(const unsigned *in, unsigned *out) { shfl_all_widths<unsigned>(in, out); }
extern "C" __global__ void shfl_typed_ll(const unsigned *in, long long *out) { shfl_all_widths<long long>(in, out); }
extern "C" __global__ void shfl_typed_ull(const unsigned *in, unsigned long long *out) {
  shfl_all_widths<unsigned long long>(in, out);
}
extern "C" __global__ void shfl_typed_float(const unsigned *in, float *out) { shfl_all_widths<float>(in, out); }
extern "C" __global__ void shfl_typed_double(const unsigned *in, double *out) { shfl_all_widths<double>(in, out); }
