// check.cu — runs warpvm's SFU model (src/exec/sfu.h, the very code the interpreter runs) on the
// GPU beside the hardware instruction, over every input, and counts the inputs where they differ.
//
//   nvcc -O3 -arch=sm_90 -I src tools/sfu/check.cu -o sfu_check -lzstd && ./sfu_check data/sfu/sm90.sfu
//   ./sfu_check data/sfu/sm90.sfu --samples OUT.txt   instead writes the hardware's outputs for 256
//       inputs of each instruction (every exponent, specials, subnormals): tests/unit/data/sfu_samples.txt
//
// Unary f32 instructions: all 2^32 inputs. f16/bf16 x2 forms: all 2^32 pairs (and the scalar forms on
// every 16-bit input). f64 forms: all 2^32 upper words, with the lower word 0 and with a pseudo-random
// one. div: all 2^32 divisors against five dividends each. Prints one line per instruction (and up to
// 4 differing inputs); exits 0 only if every count is 0. docs/SFU.md records the output.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#if !__has_include(<zstd.h>)
#define WV_SFU_ZSTD_DECLARED
extern "C" {
size_t ZSTD_decompress(void *dst, size_t dstCapacity, const void *src, size_t compressedSize);
unsigned ZSTD_isError(size_t code);
unsigned long long ZSTD_getFrameContentSize(const void *src, size_t srcSize);
}
#define ZSTD_CONTENTSIZE_UNKNOWN (0ULL - 1)
#endif
#define WV_SFU_NO_IMAGE
#include "exec/sfu.h"
extern "C" {
#include "exec/sfu.c"
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "check: %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

static const char *names[WV_SFU_NI] = {
#define X(id, ptx) ptx,
    WV_SFU_INSTRUCTIONS(X)
#undef X
};

__host__ __device__ __forceinline__ uint32_t hash32(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

static __host__ __device__ bool is_div(int c) { return c >= WV_SFU_I_DIV_APPROX; }
static __host__ __device__ bool is_f64(int c) { return c >= WV_SFU_I_RCP64_FTZ && c <= WV_SFU_I_RSQRT64; }
static __host__ __device__ bool is_h16(int c) { return c >= WV_SFU_I_EX2_F16X2 && c <= WV_SFU_I_TANH_BF16X2; }
static __host__ __device__ int nvar(int c) { return is_div(c) ? 5 : is_f64(c) ? 2 : 1; }

// Variant k of input x: the operands (x for f32 and x2 forms; the double for f64; the divisor and
// dividend for div): dividends are a pseudo-random float, 1, a subnormal, a huge value and -3.5.
__host__ __device__ void operands(int c, uint32_t x, int k, uint64_t *a, uint32_t *y) {
  *a = x;
  *y = 0;
  if (is_f64(c)) *a = (uint64_t)x << 32 | (k ? hash32(x) : 0);
  if (is_div(c)) {
    const uint32_t fixed[4] = {0x3f800000u, 0x00012345u ^ (x & 0x80000000u), 0x7e912345u, 0xc0600000u};
    *y = k ? fixed[k - 1] : hash32(x);
  }
}

// The hardware's result: the PTX instruction itself, through inline asm.
__device__ uint64_t hardware(int c, uint64_t a, uint32_t y) {
  float f = __uint_as_float((uint32_t)a), r = 0.f, fy = __uint_as_float(y);
  double d = __longlong_as_double((long long)a), rd = 0;
  uint32_t u = (uint32_t)a, ru = 0;
  switch (c) {
#define U(ID, PTX) case WV_SFU_I_##ID: asm(PTX " %0, %1;" : "=f"(r) : "f"(f)); return __float_as_uint(r);
    U(RCP_FTZ, "rcp.approx.ftz.f32") U(RCP, "rcp.approx.f32") U(SQRT_FTZ, "sqrt.approx.ftz.f32")
    U(SQRT, "sqrt.approx.f32") U(RSQRT_FTZ, "rsqrt.approx.ftz.f32") U(RSQRT, "rsqrt.approx.f32")
    U(EX2_FTZ, "ex2.approx.ftz.f32") U(EX2, "ex2.approx.f32") U(LG2_FTZ, "lg2.approx.ftz.f32")
    U(LG2, "lg2.approx.f32") U(SIN_FTZ, "sin.approx.ftz.f32") U(SIN, "sin.approx.f32")
    U(COS_FTZ, "cos.approx.ftz.f32") U(COS, "cos.approx.f32") U(TANH, "tanh.approx.f32")
#undef U
#define D(ID, PTX) case WV_SFU_I_##ID: asm(PTX " %0, %1;" : "=d"(rd) : "d"(d)); return (uint64_t)__double_as_longlong(rd);
    D(RCP64_FTZ, "rcp.approx.ftz.f64") D(RSQRT64_FTZ, "rsqrt.approx.ftz.f64") D(RSQRT64, "rsqrt.approx.f64")
#undef D
#define H(ID, PTX) case WV_SFU_I_##ID: asm(PTX " %0, %1;" : "=r"(ru) : "r"(u)); return ru;
    H(EX2_F16X2, "ex2.approx.f16x2") H(TANH_F16X2, "tanh.approx.f16x2") H(EX2_BF16X2, "ex2.approx.ftz.bf16x2")
    H(TANH_BF16X2, "tanh.approx.bf16x2")
#undef H
#define V(ID, PTX) case WV_SFU_I_##ID: asm(PTX " %0, %1, %2;" : "=f"(r) : "f"(fy), "f"(f)); return __float_as_uint(r);
    V(DIV_APPROX, "div.approx.f32") V(DIV_APPROX_FTZ, "div.approx.ftz.f32") V(DIV_FULL, "div.full.f32")
    V(DIV_FULL_FTZ, "div.full.ftz.f32")
#undef V
  }
  return 0;
}

// The scalar .f16/.bf16 forms, which read the low half: compared on every 16-bit input.
__device__ uint32_t hardware_h16(int c, uint32_t x) {
  unsigned short h = (unsigned short)x, s = 0;
  switch (c) {
  case WV_SFU_I_EX2_F16X2: asm("ex2.approx.f16 %0, %1;" : "=h"(s) : "h"(h)); break;
  case WV_SFU_I_TANH_F16X2: asm("tanh.approx.f16 %0, %1;" : "=h"(s) : "h"(h)); break;
  case WV_SFU_I_EX2_BF16X2: asm("ex2.approx.ftz.bf16 %0, %1;" : "=h"(s) : "h"(h)); break;
  default: asm("tanh.approx.bf16 %0, %1;" : "=h"(s) : "h"(h)); break;
  }
  return s;
}

struct Result {
  unsigned long long count;
  unsigned int nex;
  uint32_t ex_x[4], ex_k[4];
  unsigned long long ex_hw[4], ex_md[4];
};

__global__ void k_check(wv_sfu T, int c, Result *res) {
  uint32_t local = 0;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (1ull << 32); i += (uint64_t)gridDim.x * blockDim.x) {
    for (int k = 0; k < nvar(c); k++) {
      uint64_t a;
      uint32_t y;
      operands(c, (uint32_t)i, k, &a, &y);
      uint64_t hw = hardware(c, a, y), md = wv_sfu_eval(&T, c, a, y);
      if (is_h16(c) && (i >> 16) == 0 && hardware_h16(c, (uint32_t)i) != (md & 0xffff)) hw ^= 1ull << 40;
      if (hw != md) {
        local++;
        unsigned int slot = atomicAdd(&res->nex, 1u);
        if (slot < 4) { res->ex_x[slot] = (uint32_t)i; res->ex_k[slot] = k; res->ex_hw[slot] = hw; res->ex_md[slot] = md; }
      }
    }
  }
  if (local) atomicAdd(&res->count, (unsigned long long)local);
}

// Sample input j of instruction c: every sign/exponent (every 8-bit top for f64), powers of two,
// zeros and infinities, random mantissas.
__host__ __device__ uint32_t sample_input(int c, uint32_t j) {
  uint32_t h = hash32(j * 2654435761u + (uint32_t)c);
  if (is_h16(c)) return (j * 256u + (h & 255u)) | (hash32(h) & 0xffff0000u);
  if (is_f64(c)) return j << 24 | (h & 0xffffffu);
  uint32_t cls = j * 2u + (h & 1u);
  return (j & 15u) == 15u ? cls << 23 : cls << 23 | (h & 0x7fffffu);
}

__global__ void k_samples(uint64_t *out) {
  int c = blockIdx.x;
  for (int k = 0; k < 2; k++) {
    uint64_t a;
    uint32_t y;
    operands(c, sample_input(c, threadIdx.x), k, &a, &y);
    out[((size_t)c * 256 + threadIdx.x) * 2 + k] = hardware(c, a, y);
  }
}

static void *to_dev(const void *p, size_t n) {
  void *d = nullptr;
  CK(cudaMalloc(&d, n ? n : 4));
  if (n) CK(cudaMemcpy(d, p, n, cudaMemcpyHostToDevice));
  return d;
}

static int write_samples(const char *path) {
  uint64_t *d;
  CK(cudaMalloc(&d, (size_t)WV_SFU_NI * 256 * 2 * 8));
  k_samples<<<WV_SFU_NI, 256>>>(d);
  CK(cudaDeviceSynchronize());
  std::vector<uint64_t> h((size_t)WV_SFU_NI * 256 * 2);
  CK(cudaMemcpy(h.data(), d, h.size() * 8, cudaMemcpyDeviceToHost));
  FILE *o = fopen(path, "w");
  if (!o) { perror(path); return 2; }
  fprintf(o, "# sfu_samples.txt — an sm_90 GPU's results (tools/sfu/check.cu --samples): PTX, operand x, y, result\n");
  for (int c = 0; c < WV_SFU_NI; c++)
    for (uint32_t j = 0; j < 256; j++)
      for (int k = 0; k < (nvar(c) > 1 ? 2 : 1); k++) {
        uint64_t a;
        uint32_t y;
        operands(c, sample_input(c, j), k, &a, &y);
        fprintf(o, "%s %llx %x %llx\n", names[c], (unsigned long long)a, y, (unsigned long long)h[((size_t)c * 256 + j) * 2 + k]);
      }
  fclose(o);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: sfu_check FILE.sfu [CHECK-NAME-SUBSTRING | --samples OUT.txt]\n"); return 2; }
  if (argc == 4 && !strcmp(argv[2], "--samples")) return write_samples(argv[3]);
  FILE *f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 2; }
  std::vector<unsigned char> img;
  unsigned char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) img.insert(img.end(), buf, buf + n);
  fclose(f);
  wv_sfu H, D;
  void *mem[WV_SFU_NTAB] = {0};
  memset(&H, 0, sizeof H);
  if (wv_sfu_load(&H, mem, img.data(), img.size(), (1u << WV_SFU_NTAB) - 1)) { fprintf(stderr, "check: cannot load %s\n", argv[1]); return 2; }
  D = H;
  for (int t = 0; t < WV_SFU_NTAB; t++) {
    const wv_sfu_tab &h = H.t[t];
    D.t[t].base = (const uint32_t *)to_dev(h.base, ((size_t)h.n / 32 + 2) * 4);
    D.t[t].res = (const uint8_t *)to_dev(h.res, ((size_t)h.n + 1) / 2);
    D.t[t].exc = (const uint32_t *)to_dev(h.exc, (size_t)h.nexc * 8);
  }
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int drv = 0;
  cudaDriverGetVersion(&drv);
  printf("gpu: %s (sm_%d%d), CUDA driver %d; tables: %s (%zu bytes)\n", p.name, p.major, p.minor, drv, argv[1], img.size());
  Result *dres;
  CK(cudaMalloc(&dres, sizeof(Result)));
  int bad = 0;
  for (int c = 0; c < WV_SFU_NI; c++) {
    if (argc > 2 && !strstr(names[c], argv[2])) continue;
    CK(cudaMemset(dres, 0, sizeof(Result)));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
    k_check<<<p.multiProcessorCount * 8, 256>>>(D, c, dres);
    cudaEventRecord(e1);
    CK(cudaDeviceSynchronize());
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    Result r;
    CK(cudaMemcpy(&r, dres, sizeof r, cudaMemcpyDeviceToHost));
    unsigned long long inputs = (1ull << 32) * (unsigned long long)nvar(c);
    printf("%-24s %12llu inputs %8llu differ  (%.2f s)%s\n", names[c], inputs, r.count, ms / 1000,
           is_h16(c) ? "  (and the scalar form on all 2^16)" : "");
    for (unsigned i = 0; i < r.nex && i < 4; i++)
      printf("    input %08x (variant %u): gpu %016llx  model %016llx\n", r.ex_x[i], r.ex_k[i], r.ex_hw[i], r.ex_md[i]);
    if (r.count) bad = 1;
    fflush(stdout);
  }
  printf(bad ? "RESULT: differences found\n" : "RESULT: the model gives the GPU's bits for every input\n");
  return bad;
}
