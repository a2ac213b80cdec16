// histogram — histograms with atomics, as image and analytics code builds them: 256 bins of bytes with a
// privatised shared-memory histogram per block merged into global memory by atomicAdd; 100 bins of floats
// where the bin index is computed as (int)(x * scale + offset) (an FMA: values on a bin edge fall by the
// GPU's rounding); per-bin minimum and maximum by atomicMin/atomicMax on the float bits; a 2-D joint histogram.
#include "apps.h"

constexpr int N = 1 << 18, BINS = 100, TPB = 256, BLOCKS = 64;

__global__ void hist_bytes(const unsigned char *d, unsigned *h) {
  __shared__ unsigned s[256];
  s[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * TPB + threadIdx.x; i < N; i += BLOCKS * TPB) atomicAdd(&s[d[i]], 1u);
  __syncthreads();
  if (s[threadIdx.x]) atomicAdd(&h[threadIdx.x], s[threadIdx.x]);
}

// Positive floats order as their bits do, so atomicMin/atomicMax on the bits give the float min/max.
__global__ void hist_floats(const float *x, float scale, float offset, unsigned *h, unsigned *lo, unsigned *hi) {
  for (int i = blockIdx.x * TPB + threadIdx.x; i < N; i += BLOCKS * TPB) {
    float v = x[i];
    int b = (int)(v * scale + offset);
    b = min(max(b, 0), BINS - 1);
    atomicAdd(&h[b], 1u);
    atomicMin(&lo[b], __float_as_uint(v));
    atomicMax(&hi[b], __float_as_uint(v));
  }
}

__global__ void hist_joint(const float *x, const unsigned char *d, unsigned *h) {
  for (int i = blockIdx.x * TPB + threadIdx.x; i < N; i += BLOCKS * TPB) {
    int bx = __float2int_rz(x[i] * 0.16f), by = d[i] >> 4;  // x in [0, 100): 16 x 16 bins
    atomicAdd(&h[by * 16 + min(bx, 15)], 1u);
  }
}

int main() {
  begin();
  Lcg rng(31337);
  std::vector<unsigned char> bytes(N);
  std::vector<float> x(N);
  for (int i = 0; i < N; i++) {
    uint32_t r = rng.u32();
    bytes[i] = (unsigned char)((r >> 24) ^ (r >> 13 & 0x3f));  // not uniform
    // Values on a grid of 1/64 in [0, 100): many lie on or next to bin edges (width 0.97, from 3).
    x[i] = (float)(rng.u32() % 6400) * 0.015625f;
  }
  unsigned char *dd = to_device(bytes);
  float *dx = to_device(x);
  unsigned *h8 = to_device(std::vector<unsigned>(256, 0)), *hf = to_device(std::vector<unsigned>(BINS, 0));
  unsigned *lo = to_device(std::vector<unsigned>(BINS, 0x7f800000u)), *hi = to_device(std::vector<unsigned>(BINS, 0));
  unsigned *hj = to_device(std::vector<unsigned>(256, 0));
  const float width = 0.97f, scale = 1.0f / width, offset = -3.0f * scale;  // bins start at 3.0
  hist_bytes<<<BLOCKS, TPB>>>(dd, h8);
  hist_floats<<<BLOCKS, TPB>>>(dx, scale, offset, hf, lo, hi);
  hist_joint<<<BLOCKS, TPB>>>(dx, dd, hj);
  LAUNCHED();
  std::vector<unsigned> g8 = to_host(h8, 256), gf = to_host(hf, BINS), glo = to_host(lo, BINS),
                        ghi = to_host(hi, BINS), gj = to_host(hj, 256);
  report("byte histogram", g8);
  report("float histogram", gf);
  std::vector<float> flo(BINS), fhi(BINS);
  memcpy(flo.data(), glo.data(), BINS * 4);
  memcpy(fhi.data(), ghi.data(), BINS * 4);
  report("per-bin minimum", flo);
  report("per-bin maximum", fhi);
  report("joint histogram", gj);

  std::vector<unsigned> r8(256, 0);
  for (unsigned char b : bytes) r8[b]++;
  check(r8 == g8, "byte histogram equals the host's");
  unsigned total = 0;
  for (unsigned c : gf) total += c;
  check(total == N, "float histogram counts every value");
  size_t far = 0;  // values whose bin differs from the exact one by more than the edge can explain
  for (float v : x) {
    int b = std::min(std::max((int)floor((v - 3.0) / 0.97), 0), BINS - 1);
    bool in = (double)flo[b] <= v && v <= (double)fhi[b];
    bool next = (b > 0 && (double)flo[b - 1] <= v && v <= (double)fhi[b - 1]) ||
                (b + 1 < BINS && (double)flo[b + 1] <= v && v <= (double)fhi[b + 1]);
    far += !(in || next);
  }
  check(far == 0, "every float lies in its bin's [min, max] or a neighbour's");
  return finish("histogram");
}
