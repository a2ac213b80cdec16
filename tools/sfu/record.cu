// record.cu — records the H100/H200 special-function unit's outputs over each function's reduced
// domain (docs/SFU.md), the raw material of data/sfu/sm90.sfu.
//
//   nvcc -O3 -arch=sm_90 tools/sfu/record.cu -o record && ./record OUTDIR
//
// Writes OUTDIR/NAME.u32 (little-endian uint32 outputs, the table wv_sfu_get must return) for
//   rcp rsq0 rsq1 sqrt0 sqrt1 ex2 lg2_0 lg2_m1 sin tanh ex2_f16 tanh_f16 ex2_bf16 tanh_bf16
// and checks on the way the structure sfu.h relies on (exits 1 with a message if the GPU disagrees):
// the sine's quarter-turn symmetries and 25-bit fixed point, and which mantissa bits TANH reads.
// Every table is read through the PTX instruction whose SASS is the bare MUFU operation
// (rcp.approx.ftz.f32 is MUFU.RCP, ...); sin/cos go through FMUL.RZ by 1/2pi first, so their table
// is assembled from x in [1,8) by the fixed-point index each t = RZ(x/2pi) has.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "record: %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

enum { RCP, RSQ, SQRT, EX2, LG2, SIN, COS, TANH };

__device__ uint32_t mufu(int f, uint32_t xb) {
  float x = __uint_as_float(xb), y = 0.f;
  switch (f) {
  case RCP: asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
  case RSQ: asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
  case SQRT: asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
  case EX2: asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
  case LG2: asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
  case SIN: asm("sin.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
  case COS: asm("cos.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
  case TANH: asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
  }
  return __float_as_uint(y);
}

// out[i] = f(first + i) for i < n
__global__ void k_range(int f, uint32_t first, uint32_t n, uint32_t *out) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = mufu(f, first + i);
}

__global__ void k_h16(int which, uint32_t *out) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 65536) return;
  unsigned short h = (unsigned short)i, r = 0;
  switch (which) {
  case 0: asm("ex2.approx.f16 %0, %1;" : "=h"(r) : "h"(h)); break;
  case 1: asm("tanh.approx.f16 %0, %1;" : "=h"(r) : "h"(h)); break;
  case 2: asm("ex2.approx.ftz.bf16 %0, %1;" : "=h"(r) : "h"(h)); break;
  case 3: asm("tanh.approx.bf16 %0, %1;" : "=h"(r) : "h"(h)); break;
  }
  out[i] = r;
}

static uint32_t *dbuf;
static std::vector<uint32_t> range(int f, uint32_t first, uint32_t n) {
  k_range<<<1024, 256>>>(f, first, n, dbuf);
  CK(cudaDeviceSynchronize());
  std::vector<uint32_t> v(n);
  CK(cudaMemcpy(v.data(), dbuf, (size_t)n * 4, cudaMemcpyDeviceToHost));
  return v;
}
static uint32_t bits(int sign, int e, uint32_t m) { return (uint32_t)sign << 31 | (uint32_t)e << 23 | m; }

static std::string dir;
static void save(const char *name, const std::vector<uint32_t> &v) {
  std::string p = dir + "/" + name + ".u32";
  FILE *f = fopen(p.c_str(), "wb");
  if (!f || fwrite(v.data(), 4, v.size(), f) != v.size()) { perror(p.c_str()); exit(1); }
  fclose(f);
  printf("%-10s %9zu entries\n", name, v.size());
}
static void fail(const char *msg) { fprintf(stderr, "record: the GPU does not match the model: %s\n", msg); exit(1); }

// t = FMUL.RZ(x, 0.15915494f), exactly (the product of two floats is exact in a double).
static double rz_t(uint32_t xb) {
  float x;
  memcpy(&x, &xb, 4);
  double p = (double)x * (double)0.15915493667125701904f;
  float r = (float)p;
  if (fabs((double)r) > fabs(p)) r = nextafterf(r, 0.0f);
  return (double)r;
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: record OUTDIR\n"); return 2; }
  dir = argv[1];
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int drv = 0;
  cudaDriverGetVersion(&drv);
  printf("gpu: %s (sm_%d%d), driver API %d\n", p.name, p.major, p.minor, drv);
  CK(cudaMalloc(&dbuf, 4u << 23));
  const uint32_t N = 1u << 23;
  save("rcp", range(RCP, bits(0, 127, 0), N));
  save("rsq0", range(RSQ, bits(0, 127, 0), N));
  save("rsq1", range(RSQ, bits(0, 128, 0), N));
  save("sqrt0", range(SQRT, bits(0, 127, 0), N));
  save("sqrt1", range(SQRT, bits(0, 128, 0), N));
  save("ex2", range(EX2, bits(0, 127, 0), N));
  save("lg2_0", range(LG2, bits(0, 127, 0), N));
  save("lg2_m1", range(LG2, bits(0, 126, 0), N));

  // SIN/COS: t = RZ(x/2pi) for x in [1,8) covers the whole turn; k = floor(t * 2^25) mod 2^25. The
  // unit is sin(k) = Q[k mod 2^23] in quadrant 0, Q[~k] in quadrant 1, -Q[...] in quadrants 2, 3,
  // and cos(k) = sin(k + 2^23): every observation is folded into Q, and must agree.
  std::vector<uint32_t> Q(N, 0);
  std::vector<uint8_t> seen(N, 0);
  for (int f = SIN; f <= COS; f++)
    for (int e = 127; e <= 129; e++) {
      std::vector<uint32_t> y = range(f, bits(0, e, 0), N);
      for (uint32_t m = 0; m < N; m++) {
        double t = rz_t(bits(0, e, m));
        uint32_t k = (uint32_t)((uint64_t)(t * 33554432.0) & 0x1ffffff);
        if (f == COS) k = (k + N) & 0x1ffffff;
        uint32_t q = k >> 23, r = k & (N - 1), idx = (q & 1) ? ~r & (N - 1) : r;
        uint32_t v = y[m] ^ (q >= 2 ? 0x80000000u : 0);
        if (seen[idx] && Q[idx] != v) fail("sin/cos: two inputs with one fixed-point index differ");
        Q[idx] = v;
        seen[idx] = 1;
      }
    }
  for (uint32_t i = 0; i < N; i++)
    if (!seen[i]) fail("sin/cos: a quarter-turn index was never seen");
  save("sin", Q);

  // TANH: for exponents 119..129 the unit reads only the top 23 - shift mantissa bits: find the
  // largest shift with one output per group of 2^shift inputs (sfu.h has the table of shifts).
  static const int expect[11] = {6, 6, 6, 5, 5, 4, 4, 4, 3, 2, 3};
  std::vector<uint32_t> th;
  for (int e = 119; e <= 129; e++) {
    std::vector<uint32_t> y = range(TANH, bits(0, e, 0), N);
    int s = 12;
    for (uint32_t m = 0; m < N; m++)
      while (s > 0 && y[m] != y[m & ~((1u << s) - 1)]) s--;
    printf("tanh exponent %d: shift %d%s\n", e, s, s == expect[e - 119] ? "" : "  (sfu.h expects another shift)");
    for (uint32_t m = 0; m < N; m += 1u << s) th.push_back(y[m]);
    std::vector<uint32_t> yn = range(TANH, bits(1, e, 0), N);
    for (uint32_t m = 0; m < N; m++)
      if (yn[m] != (y[m] ^ 0x80000000u)) fail("tanh: not odd");
  }
  save("tanh", th);

  const char *hn[4] = {"ex2_f16", "tanh_f16", "ex2_bf16", "tanh_bf16"};
  for (int w = 0; w < 4; w++) {
    k_h16<<<256, 256>>>(w, dbuf);
    CK(cudaDeviceSynchronize());
    std::vector<uint32_t> t(65536);
    CK(cudaMemcpy(t.data(), dbuf, 65536 * 4, cudaMemcpyDeviceToHost));
    save(hn[w], t);
  }
  return 0;
}
