// kernel_params.cu — the argument layout of kernel launches: parameters of every size and alignment (char,
// short, bool, long long, float, double, structs with padding, a 16-byte-aligned struct, CUDA vector types), a
// 1 KiB struct by value indexed at run time, and the same launches through <<<>>> and cudaLaunchKernel with an
// array of argument pointers.
#include "check.h"

struct Small {
  char a;
  double b;
  int c[3];
};
struct __align__(16) Vec {
  float x, y, z, w;
};
struct Big {
  int v[256];
};
struct WithPointer {
  short tag;
  const int *data;
  double scale;
};

typedef unsigned long long u64;

// Every parameter is written back as 64-bit words, in order.
__global__ void mixed(char c, short s, int i, long long ll, float f, double d, Small sm, unsigned char uc, Vec v,
                      bool b, u64 *out, unsigned short us, float4 f4, char last) {
  u64 r[] = {(u64)c, (u64)s, (u64)i, (u64)ll, (u64)(f * 4.0f), (u64)(d * 8.0), (u64)sm.a, (u64)(sm.b * 2.0),
             (u64)(sm.c[0] + sm.c[1] * 10 + sm.c[2] * 100), uc, (u64)(v.x + v.y * 10 + v.z * 100 + v.w * 1000), b,
             us, (u64)(f4.x + f4.y * 10 + f4.z * 100 + f4.w * 1000), (u64)last};
  for (int k = 0; k < 15; k++) out[k] = r[k];
}

__global__ void vectors(char4 a, short2 b, double2 c, int3 d, longlong2 e, uchar3 f, float2 g, u64 *out) {
  u64 r[] = {(u64)(a.x + a.y * 10 + a.z * 100 + a.w * 1000), (u64)(b.x * 100000 + b.y),
             (u64)(long long)(c.x * 4 + c.y * 40), (u64)(d.x + d.y * 10 + d.z * 100), (u64)(e.x ^ e.y),
             (u64)(f.x + f.y * 256 + f.z * 65536), (u64)(g.x * 2 + g.y * 20)};
  for (int k = 0; k < 7; k++) out[k] = r[k];
}

// A 1 KiB parameter read with a run-time index (the kernel takes the parameter's address).
__global__ void big_struct(char pad, Big big, int scale, WithPointer wp, u64 *out) {
  int t = threadIdx.x;
  long long s = 0;
  for (int k = t; k < 256; k += blockDim.x) s += (long long)big.v[k] * (k + 1);
  out[t] = (u64)(s * scale) + pad;
  if (t == 0) out[blockDim.x] = (u64)(wp.tag + wp.data[3] * wp.scale);
}

int main() {
  begin();
  u64 *dw, w[64] = {};
  CK(cudaMalloc(&dw, sizeof w));

  Small sm = {'q', 2.25, {1, 2, 3}};
  Vec v = {1, 2, 3, 4};
  float4 f4 = make_float4(5, 6, 7, 8);
  const u64 want[15] = {(u64)-7LL, (u64)-1234LL, 123456789, 0x123456789abcdefull, 10, 20, 'q', 4, 321, 200, 4321, 1,
                        65535, 8765, 'z'};
  mixed<<<1, 1>>>((char)-7, (short)-1234, 123456789, 0x123456789abcdefLL, 2.5f, 2.5, sm, (unsigned char)200, v, true,
                  dw, (unsigned short)65535, f4, 'z');
  CK(cudaGetLastError());
  CK(cudaMemcpy(w, dw, sizeof w, cudaMemcpyDeviceToHost));
  check_all(w, 15, [&](size_t k) { return want[k]; }, "14 mixed parameters through <<<>>>");

  char c = -7, last = 'z';
  short s = -1234;
  int i = 123456789;
  long long ll = 0x123456789abcdefLL;
  float f = 2.5f;
  double d = 2.5;
  unsigned char uc = 200;
  bool b = true;
  unsigned short us = 65535;
  void *margs[] = {&c, &s, &i, &ll, &f, &d, &sm, &uc, &v, &b, &dw, &us, &f4, &last};
  CK(cudaMemset(dw, 0, sizeof w));
  CK(cudaLaunchKernel((const void *)mixed, dim3(1), dim3(1), margs, 0, nullptr));
  CK(cudaMemcpy(w, dw, sizeof w, cudaMemcpyDeviceToHost));
  check_all(w, 15, [&](size_t k) { return want[k]; }, "14 mixed parameters through cudaLaunchKernel");

  vectors<<<1, 1>>>(make_char4(1, 2, 3, -4), make_short2(-7, 30000), make_double2(0.25, -1.5), make_int3(7, 8, 9),
                    make_longlong2(0x1111222233334444LL, 0x0F0F0F0F0F0F0F0FLL), make_uchar3(1, 2, 255),
                    make_float2(1.5f, 2.5f), dw);
  CK(cudaGetLastError());
  CK(cudaMemcpy(w, dw, sizeof w, cudaMemcpyDeviceToHost));
  const u64 vwant[7] = {(u64)(1 + 20 + 300 - 4000), (u64)(-700000 + 30000), (u64)(1 - 60), 987,
                        0x1111222233334444ull ^ 0x0F0F0F0F0F0F0F0Full, 1 + 512 + 255 * 65536, 53};
  check_all(w, 7, [&](size_t k) { return vwant[k]; }, "vector-type parameters (char4 ... float2)");

  Big big;
  long long sum = 0;
  for (int k = 0; k < 256; k++) big.v[k] = k * 3 - 200, sum += (long long)(k * 3 - 200) * (k + 1);
  int host_data[4] = {0, 0, 0, 11}, *dd;
  CK(cudaMalloc(&dd, sizeof host_data));
  CK(cudaMemcpy(dd, host_data, sizeof host_data, cudaMemcpyHostToDevice));
  WithPointer wp = {-3, dd, 0.5};
  big_struct<<<1, 1>>>((char)5, big, 3, wp, dw);
  CK(cudaGetLastError());
  CK(cudaMemcpy(w, dw, 2 * sizeof(u64), cudaMemcpyDeviceToHost));
  check(w[0] == (u64)(sum * 3) + 5, "1 KiB struct by value through <<<>>>");
  check(w[1] == 2, "struct holding a pointer, after the 1 KiB one");
  char pad = 9;
  int scale = -2;
  void *bargs[] = {&pad, &big, &scale, &wp, &dw};
  CK(cudaLaunchKernel((const void *)big_struct, dim3(1), dim3(32), bargs, 0, nullptr));
  CK(cudaMemcpy(w, dw, 33 * sizeof(u64), cudaMemcpyDeviceToHost));
  long long total = 0;
  for (int t = 0; t < 32; t++) total += (long long)(w[t] - 9) / -2;
  check(total == sum, "1 KiB struct by value through cudaLaunchKernel, 32 threads");
  check(w[32] == 2, "struct holding a pointer through cudaLaunchKernel");

  CK(cudaFree(dw));
  CK(cudaFree(dd));
  return finish("kernel_params");
}
