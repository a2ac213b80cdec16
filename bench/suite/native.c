/*
 * native.c — the benchmark's kernels as a C programmer writes them for one core: the same algorithm
 * as bench/kernels/NAME.cu, with plain loops over blocks and threads where the GPU has them (each
 * phase between two barriers is a loop over the block's threads). Built with -O2 -march=native
 * (bench/CMakeLists.txt), single-threaded. These are the reference outputs: warpvm and PoCL must
 * produce the same bits. Parameters arrive in the kernel's order (bs_val), the launch shape in the case.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "suite.h"

/* Tiled product with 16x16 tiles; acc = fma(a, b, acc) with k in order, as ptxas contracts it. */
void bs_native_matmul(const bs_val *a, const bs_case *c) {
  const float *A = a[0].p, *B = a[1].p;
  float *C = a[2].p;
  int n = (int)a[3].u;
  (void)c;
  enum { T = 16 };
  float As[T][T], Bs[T][T], acc[T][T];
  for (int by = 0; by < n / T; by++)
    for (int bx = 0; bx < n / T; bx++) {
      memset(acc, 0, sizeof acc);
      for (int t = 0; t < n; t += T) {
        for (int ty = 0; ty < T; ty++)
          for (int tx = 0; tx < T; tx++) {
            As[ty][tx] = A[(by * T + ty) * n + t + tx];
            Bs[ty][tx] = B[(t + ty) * n + bx * T + tx];
          }
        for (int ty = 0; ty < T; ty++)
          for (int tx = 0; tx < T; tx++)
            for (int k = 0; k < T; k++) acc[ty][tx] = fmaf(As[ty][k], Bs[k][tx], acc[ty][tx]);
      }
      for (int ty = 0; ty < T; ty++)
        for (int tx = 0; tx < T; tx++) C[(by * T + ty) * n + bx * T + tx] = acc[ty][tx];
    }
}

/* Grid-stride partial sums per thread, then the block's sum (u32 sums do not depend on the order). */
void bs_native_reduce(const bs_val *a, const bs_case *c) {
  const uint32_t *in = a[0].p;
  uint32_t *out = a[1].p, n = a[2].u;
  const uint32_t grid = c->grid[0], block = c->block[0], stride = grid * block;
  for (uint32_t b = 0; b < grid; b++) {
    uint32_t block_sum = 0;
    for (uint32_t t = 0; t < block; t++) {
      uint32_t sum = 0;
      for (uint32_t i = b * block + t; i < n; i += stride) sum += in[i];
      block_sum += sum;
    }
    out[b] = block_sum;
  }
}

/* Hillis-Steele inclusive scan of each 256-element block, double-buffered, one pass per step. */
void bs_native_scan(const bs_val *a, const bs_case *c) {
  const uint32_t *in = a[0].p;
  uint32_t *out = a[1].p, nblocks = c->grid[0];
  enum { B = 256 };
  uint32_t buf[2][B];
  for (uint32_t b = 0; b < nblocks; b++) {
    int cur = 0;
    memcpy(buf[0], in + (size_t)b * B, sizeof buf[0]);
    for (uint32_t o = 1; o < B; o <<= 1) {
      for (uint32_t t = 0; t < B; t++) buf[1 - cur][t] = buf[cur][t] + (t >= o ? buf[cur][t - o] : 0);
      cur = 1 - cur;
    }
    memcpy(out + (size_t)b * B, buf[cur], sizeof buf[cur]);
  }
}

/* 256 bins per block over its threads' grid-stride elements, then added to the global bins. */
void bs_native_histogram(const bs_val *a, const bs_case *c) {
  const uint32_t *in = a[0].p;
  uint32_t *bins = a[1].p, n = a[2].u;
  const uint32_t grid = c->grid[0], block = c->block[0], stride = grid * block;
  uint32_t h[256];
  for (uint32_t b = 0; b < grid; b++) {
    memset(h, 0, sizeof h);
    for (uint32_t t = 0; t < block; t++)
      for (uint32_t i = b * block + t; i < n; i += stride) {
        uint32_t v = in[i];
        h[v & 255]++, h[(v >> 8) & 255]++, h[(v >> 16) & 255]++, h[v >> 24]++;
      }
    for (uint32_t k = 0; k < 256; k++) bins[k] += h[k];
  }
}

/* 32x32 tiles through a padded tile buffer. */
void bs_native_transpose(const bs_val *a, const bs_case *c) {
  const uint32_t *in = a[0].p;
  uint32_t *out = a[1].p;
  uint32_t n = a[2].u;
  (void)c;
  enum { T = 32 };
  uint32_t tile[T][T + 1];
  for (uint32_t by = 0; by < n / T; by++)
    for (uint32_t bx = 0; bx < n / T; bx++) {
      for (uint32_t y = 0; y < T; y++)
        for (uint32_t x = 0; x < T; x++) tile[y][x] = in[(by * T + y) * n + bx * T + x];
      for (uint32_t y = 0; y < T; y++)
        for (uint32_t x = 0; x < T; x++) out[(bx * T + y) * n + by * T + x] = tile[x][y];
    }
}

/* Collatz steps of first + i, the odd side halving at once as the kernel does. */
void bs_native_collatz(const bs_val *a, const bs_case *c) {
  uint32_t *steps = a[0].p, first = a[1].u, n = c->grid[0] * c->block[0];
  for (uint32_t i = 0; i < n; i++) {
    uint32_t x = first + i, s = 0;
    while (x != 1) {
      if (x & 1) {
        x = 3 * x + 1;
        uint32_t z = (uint32_t)__builtin_ctz(x);
        x >>= z;
        s += 1 + z;
      } else {
        x >>= 1;
        s++;
      }
    }
    steps[i] = s;
  }
}

/* Each warp's butterfly all-reduce of sum and max, lane by lane, over the grid-stride loop. */
void bs_native_warp_reduce(const bs_val *a, const bs_case *c) {
  const uint32_t *in = a[0].p;
  uint32_t *out = a[1].p, n = a[2].u;
  const uint32_t threads = c->grid[0] * c->block[0];
  uint32_t s[32], m[32], ns[32], nm[32];
  for (uint32_t w = 0; w < threads; w += 32) {
    uint32_t acc[32] = {0};
    for (uint32_t i = w; i < n; i += threads) {
      memcpy(s, in + i, sizeof s);
      memcpy(m, in + i, sizeof m);
      for (uint32_t o = 16; o > 0; o >>= 1) {
        for (uint32_t l = 0; l < 32; l++) {
          ns[l] = s[l] + s[l ^ o];
          nm[l] = m[l] > m[l ^ o] ? m[l] : m[l ^ o];
        }
        memcpy(s, ns, sizeof s);
        memcpy(m, nm, sizeof m);
      }
      for (uint32_t l = 0; l < 32; l++) acc[l] += s[l] ^ m[l];
    }
    memcpy(out + w, acc, sizeof acc);
  }
}

/* Tile by tile through a buffer (a synchronous copy: C has nothing to overlap it with). */
void bs_native_async_copy(const bs_val *a, const bs_case *c) {
  const uint32_t *in = a[0].p;
  uint32_t *out = a[1].p, tiles = a[2].u, nblocks = c->grid[0];
  enum { T = 1024 };
  uint32_t buf[T];
  for (uint32_t b = 0; b < nblocks; b++)
    for (uint32_t k = 0; k < tiles; k++) {
      size_t base = ((size_t)b * tiles + k) * T;
      memcpy(buf, in + base, sizeof buf);
      for (uint32_t e = 0; e < T; e++) out[base + e] = buf[T - 1 - e] + k;
    }
}
