// symbols.cu — module-scope device variables: __device__ and __constant__ scalars, arrays and structs with
// initialisers, one in a namespace; cudaMemcpyToSymbol/FromSymbol (with offsets, and the async forms),
// cudaGetSymbolAddress/Size; and a __managed__ variable the host reads and writes directly.
#include "check.h"

struct Params {
  int scale;
  float bias;
  short pad[3];
  double weight;
};

__device__ int dev_scalar = 42;
__device__ float dev_table[8] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f};
__device__ int dev_zero[64];  // zero-initialised
__constant__ int c_coef[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
__constant__ Params c_params = {3, 0.25f, {1, 2, 3}, -2.0};
__managed__ int m_counter = 5;
__managed__ int m_hist[4];
namespace lib {
__device__ unsigned long long tag = 0x1122334455667788ull;
}

__global__ void use_all(int *out) {
  int t = threadIdx.x;  // 16 threads
  out[t] = c_coef[t] * c_params.scale + dev_scalar;
  out[16 + t] = (int)(dev_table[t % 8] * 4.0f + c_params.bias * 4.0f) + (int)c_params.weight;
  out[32 + t] = dev_zero[t * 4];
  __syncthreads();  // every thread has read before anyone writes
  if (t == 0) {
    dev_scalar += 1;
    lib::tag ^= 0xFFull;
  }
  dev_zero[t] = t * t;
  atomicAdd(&m_counter, 1);
  atomicAdd(&m_hist[t % 4], t);
}

int main() {
  begin();
  int h = 0;
  CK(cudaMemcpyFromSymbol(&h, dev_scalar, sizeof h));
  check(h == 42, "__device__ int initialiser read back == 42");
  float tab[8] = {};
  CK(cudaMemcpyFromSymbol(tab, dev_table, sizeof tab));
  check(tab[0] == 0.5f && tab[7] == 7.5f, "__device__ float[8] initialiser read back");
  float two[2] = {};
  CK(cudaMemcpyFromSymbol(two, dev_table, sizeof two, 5 * sizeof(float)));
  check(two[0] == 5.5f && two[1] == 6.5f, "cudaMemcpyFromSymbol with offset 5 floats");
  Params p;
  CK(cudaMemcpyFromSymbol(&p, c_params, sizeof p));
  check(p.scale == 3 && p.bias == 0.25f && p.pad[2] == 3 && p.weight == -2.0, "__constant__ struct initialiser");
  unsigned long long tag = 0;
  CK(cudaMemcpyFromSymbol(&tag, lib::tag, sizeof tag));
  check(tag == 0x1122334455667788ull, "namespace-scope __device__ variable");

  // Overwrite four coefficients in the middle: c_coef[8..11] = 100..103.
  int mid[4] = {100, 101, 102, 103};
  CK(cudaMemcpyToSymbol(c_coef, mid, sizeof mid, 8 * sizeof(int)));
  size_t size = 0;
  CK(cudaGetSymbolSize(&size, c_coef));
  check(size == 16 * sizeof(int), "cudaGetSymbolSize(c_coef) == 64");
  CK(cudaGetSymbolSize(&size, c_params));
  check(size == sizeof(Params), "cudaGetSymbolSize(c_params) == sizeof(Params)");

  int *out;
  CK(cudaMalloc(&out, 48 * sizeof(int)));
  use_all<<<1, 16>>>(out);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int r[48] = {};
  CK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
  check_all(r, 16, [](size_t i) { return (int)((i >= 8 && i < 12 ? 92 + i : i + 1) * 3 + 42); },
            "kernel reads __constant__ (with the patched middle) and __device__");
  check_all(r + 16, 16, [](size_t i) { return (int)((i % 8 + 0.5f) * 4.0f + 1.0f) - 2; }, "kernel reads float table");
  check_all(r + 32, 16, [](size_t) { return 0; }, "__device__ array without initialiser is zero");

  CK(cudaMemcpyFromSymbol(&h, dev_scalar, sizeof h));
  check(h == 43, "kernel's write to __device__ int visible (43)");
  CK(cudaMemcpyFromSymbol(&tag, lib::tag, sizeof tag));
  check(tag == 0x1122334455667777ull, "kernel's write to the namespace variable visible");

  // The symbol's address works like any device pointer.
  int *zero = nullptr;
  CK(cudaGetSymbolAddress((void **)&zero, dev_zero));
  int z[64] = {};
  CK(cudaMemcpy(z, zero, sizeof z, cudaMemcpyDeviceToHost));
  check_all(z, 64, [](size_t i) { return (int)(i < 16 ? i * i : 0); }, "cudaGetSymbolAddress + cudaMemcpy");
  CK(cudaMemset(zero, 0, 64 * sizeof(int)));
  CK(cudaMemcpyFromSymbol(z, dev_zero, sizeof z));
  check_all(z, 64, [](size_t) { return 0; }, "cudaMemset through the symbol address");

  // Async symbol copies on a stream.
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  int newcoef[16];
  for (int i = 0; i < 16; i++) newcoef[i] = -i;
  CK(cudaMemcpyToSymbolAsync(c_coef, newcoef, sizeof newcoef, 0, cudaMemcpyHostToDevice, s));
  use_all<<<1, 16, 0, s>>>(out);
  int back[2] = {0, 0};
  CK(cudaMemcpyFromSymbolAsync(back, dev_scalar, sizeof back[0], 0, cudaMemcpyDeviceToHost, s));
  CK(cudaMemcpyAsync(r, out, 16 * sizeof(int), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  check(back[0] == 44, "cudaMemcpyFromSymbolAsync after the second kernel (44)");
  check_all(r, 16, [](size_t i) { return (int)(-3 * (int)i + 43); }, "kernel sees cudaMemcpyToSymbolAsync");
  CK(cudaStreamDestroy(s));

  // __managed__: the host reads and writes it directly once the device is idle.
  check(m_counter == 5 + 32, "__managed__ int after two kernels of 16 threads (37)");
  check(m_hist[0] == 2 * (0 + 4 + 8 + 12) && m_hist[3] == 2 * (3 + 7 + 11 + 15), "__managed__ int[4] histogram");
  m_counter = 1000;
  use_all<<<1, 16>>>(out);
  CK(cudaDeviceSynchronize());
  check(m_counter == 1016, "kernel sees the host's write to the __managed__ int (1016)");
  CK(cudaFree(out));
  return finish("symbols");
}
