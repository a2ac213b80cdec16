// half2_filter — image filters on __half2 pixels (two channels per word), as image code written with
// cuda_fp16.h does it: a 3 x 3 sharpen with __hfma2 chains, a 5-tap separable Gaussian through shared memory
// with halo, a gamma-like curve with h2exp2/h2log2 and __hmul2_sat, a threshold with __hgt2/__hbgt2 and
// __hmax2/__hmin2, and a per-block luminance sum reduced in float. Every pixel is printed as its bits.
#include "apps.h"

#include <cuda_fp16.h>

constexpr int W = 96, H = 64, TW = 32, TH = 8, R = 2;

__global__ void sharpen(const __half2 *in, __half2 *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  const __half2 k_center = __float2half2_rn(5.0f), k_edge = __float2half2_rn(-1.0f);
  __half2 acc = __hmul2(k_center, in[y * W + x]);
  const int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
  for (int i = 0; i < 4; i++) {
    int xx = min(max(x + dx[i], 0), W - 1), yy = min(max(y + dy[i], 0), H - 1);
    acc = __hfma2(k_edge, in[yy * W + xx], acc);
  }
  out[y * W + x] = __hmin2(__hmax2(acc, __float2half2_rn(0.0f)), __float2half2_rn(1.0f));
}

// 5-tap Gaussian (1 4 6 4 1)/16, rows then columns, each pass through a shared tile with a halo of R.
template <bool ROWS> __global__ void gauss(const __half2 *in, __half2 *out) {
  __shared__ __half2 tile[TH + 2 * R][TW + 2 * R];
  int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
  for (int i = threadIdx.y * TW + threadIdx.x; i < (TH + 2 * R) * (TW + 2 * R); i += TW * TH) {
    int ty = i / (TW + 2 * R), tx = i % (TW + 2 * R);
    int xx = min(max(x0 + tx - R, 0), W - 1), yy = min(max(y0 + ty - R, 0), H - 1);
    tile[ty][tx] = in[yy * W + xx];
  }
  __syncthreads();
  const __half2 w[5] = {__float2half2_rn(0.0625f), __float2half2_rn(0.25f), __float2half2_rn(0.375f),
                        __float2half2_rn(0.25f), __float2half2_rn(0.0625f)};
  int tx = threadIdx.x + R, ty = threadIdx.y + R;
  __half2 acc = __float2half2_rn(0.0f);
  for (int i = -R; i <= R; i++) acc = __hfma2(w[i + R], ROWS ? tile[ty][tx + i] : tile[ty + i][tx], acc);
  out[(y0 + threadIdx.y) * W + x0 + threadIdx.x] = acc;
}

// out = clamp(2^(gamma * log2(x)) * gain) per channel; then a threshold mask and the block's luminance sum.
__global__ void tone(const __half2 *in, __half2 *out, unsigned *mask, float *lum) {
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 x = __hmax2(in[i], __float2half2_rn(0.0009765625f));
  __half2 g = h2exp2(__hmul2(__halves2half2(__float2half(0.45f), __float2half(0.8f)), h2log2(x)));
  __half2 y = __hmul2_sat(g, __float2half2_rn(1.25f));
  out[i] = y;
  __half2 hi = __hgt2(y, __float2half2_rn(0.5f));  // 1.0 or 0.0 per half
  unsigned both = __hbgt2(y, __float2half2_rn(0.25f)) ? 1u : 0u;
  mask[i] = (unsigned)__half_as_ushort(__low2half(hi)) | (unsigned)__half_as_ushort(__high2half(hi)) << 16 | both << 31;
  float2 f = __half22float2(y);
  part[threadIdx.x] = 0.7f * f.x + 0.3f * f.y;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) lum[blockIdx.x] = part[0];
}

static std::vector<unsigned> bits(const std::vector<__half2> &v) {
  std::vector<unsigned> r(v.size());
  memcpy(r.data(), v.data(), v.size() * 4);
  return r;
}

int main() {
  begin();
  Lcg rng(4242);
  std::vector<__half2> img(W * H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {  // ramps plus noise, two channels, exact binary fractions
      float a = (float)((3 * x + 5 * y) % 64) * 0x1p-6f + (float)(rng.u32() % 16) * 0x1p-10f;
      float b = (float)((x + y) % 128) * 0x1p-7f + (float)(rng.u32() % 8) * 0x1p-11f;
      img[y * W + x] = __floats2half2_rn(a, b);
    }
  __half2 *d_in = to_device(img), *d_a = to_device(img), *d_b = to_device(img);
  unsigned *d_mask = to_device(std::vector<unsigned>(W * H));
  float *d_lum = to_device(std::vector<float>(W * H / 256));
  sharpen<<<dim3(W / 32, H / 8), dim3(32, 8)>>>(d_in, d_a);
  LAUNCHED();
  std::vector<__half2> sharp = to_host(d_a, W * H);
  report("sharpen", bits(sharp));
  gauss<true><<<dim3(W / TW, H / TH), dim3(TW, TH)>>>(d_in, d_a);
  LAUNCHED();
  gauss<false><<<dim3(W / TW, H / TH), dim3(TW, TH)>>>(d_a, d_b);
  LAUNCHED();
  std::vector<__half2> blur = to_host(d_b, W * H);
  report("gaussian 5x5", bits(blur));
  tone<<<W * H / 256, 256>>>(d_b, d_a, d_mask, d_lum);
  LAUNCHED();
  std::vector<__half2> toned = to_host(d_a, W * H);
  std::vector<unsigned> mask = to_host(d_mask, W * H);
  std::vector<float> lum = to_host(d_lum, W * H / 256);
  report("tone curve", bits(toned));
  report("threshold mask", mask);
  report("block luminance", lum);
  // the blur of a constant-free image keeps its mean within the rounding of 10 half-precision FMAs
  double m0 = 0, m1 = 0;
  for (int i = 0; i < W * H; i++) {
    m0 += __low2float(img[i]) + __high2float(img[i]);
    m1 += __low2float(blur[i]) + __high2float(blur[i]);
  }
  check(fabs(m0 - m1) / fabs(m0) < 2e-3, "the Gaussian keeps the mean (%.6f vs %.6f)", m0 / (2 * W * H), m1 / (2 * W * H));
  size_t bad = 0;
  for (int i = 0; i < W * H; i++) {
    float lo = __low2float(toned[i]), hi = __high2float(toned[i]);
    bad += !(lo >= 0 && lo <= 1 && hi >= 0 && hi <= 1);
  }
  check(bad == 0, "the tone curve saturates into [0, 1] (%zu outside)", bad);
  TRY(cudaFree(d_in));
  TRY(cudaFree(d_a));
  TRY(cudaFree(d_b));
  TRY(cudaFree(d_mask));
  TRY(cudaFree(d_lum));
  return finish("half2_filter");
}
