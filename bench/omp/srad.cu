// srad.cu — speckle-reducing anisotropic diffusion (the CUDA version of srad.c).
//
// A ROWS x COLS image (float, values in [1, 2)) diffused ITERS times. Each iteration:
//   1. the mean and variance of the region of interest (here the whole image) give the speckle scale
//      q0sqr = variance / mean^2: kernel srad_sums, 1-D blocks of 256 threads, each block sums 512 pixels and
//      their squares with a tree reduction in shared memory; the host copies the per-block partials back and
//      adds them in double;
//   2. kernel srad_coeffs, 2-D blocks of 16x16 threads, one per pixel: the differences to its north, south,
//      west and east neighbours dN, dS, dW, dE (a missing neighbour at the border is the pixel itself) and
//      the diffusion coefficient c from the normalised gradient and Laplacian against q0sqr, clamped to [0, 1];
//   3. kernel srad_update, same shape: the divergence D = c*dN + c(south)*dS + c*dW + c(east)*dE and
//      J += lambda/4 * D.
//
// Timed: from the first host-to-device copy (the image) to the end of the copy of the final image back,
// the per-iteration copies of the partial sums included (the context is created and the buffers allocated
// before). Checksum: the sum of the final image as double, in index order.
//
// Usage: srad [ROWS [COLS [ITERS]]]   (default 1024 1024 40)
// The arguments, the image, q0sqr from the sums, the per-pixel arithmetic of steps 2 and 3 and the checksum are
// srad.h's (shared with srad.c).
#include <stdlib.h>

#include "srad.h"

#define RBLOCK 256  // threads of a reduction block; each block sums 2 * RBLOCK pixels
#define TILE 16

// Per-block sums of J and J^2 over pixels [blockIdx.x * 2 * RBLOCK, (blockIdx.x + 1) * 2 * RBLOCK).
__global__ void srad_sums(const float *J, int n, float *psum, float *psum2) {
  __shared__ float s[RBLOCK];
  __shared__ float s2[RBLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * (2 * RBLOCK) + tid;

  float v = 0.0f, v2 = 0.0f;
  if (i < n) {
    v = J[i];
    v2 = J[i] * J[i];
  }
  if (i + RBLOCK < n) {
    float u = J[i + RBLOCK];
    v += u;
    v2 += u * u;
  }
  s[tid] = v;
  s2[tid] = v2;
  __syncthreads();

  for (int stride = RBLOCK / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      s[tid] += s[tid + stride];
      s2[tid] += s2[tid + stride];
    }
    __syncthreads();
  }
  if (tid == 0) {
    psum[blockIdx.x] = s[0];
    psum2[blockIdx.x] = s2[0];
  }
}

__global__ void srad_coeffs(const float *J, float *dN, float *dS, float *dW, float *dE, float *c, int rows,
                            int cols, float q0sqr) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols) return;
  srad_coeffs_at(J, dN, dS, dW, dE, c, rows, cols, i, j, q0sqr);
}

__global__ void srad_update(float *J, const float *dN, const float *dS, const float *dW, const float *dE,
                            const float *c, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols) return;
  srad_update_at(J, dN, dS, dW, dE, c, rows, cols, i, j);
}

int main(int argc, char **argv) {
  srad_params p;
  if (!srad_parse(argc, argv, &p)) return 1;
  int rows = p.rows, cols = p.cols, iters = p.iters, n = p.n;
  int rblocks = (n + 2 * RBLOCK - 1) / (2 * RBLOCK);

  float *J = (float *)malloc((size_t)n * sizeof(float));
  float *psum = (float *)malloc((size_t)rblocks * sizeof(float));
  float *psum2 = (float *)malloc((size_t)rblocks * sizeof(float));
  if (!J || !psum || !psum2) {
    fprintf(stderr, "srad: out of memory\n");
    return 1;
  }
  srad_inputs(J, n);

  CHECK(cudaFree(0));
  float *d_J, *d_dN, *d_dS, *d_dW, *d_dE, *d_c, *d_psum, *d_psum2;
  CHECK(cudaMalloc(&d_J, (size_t)n * sizeof(float)));
  CHECK(cudaMalloc(&d_dN, (size_t)n * sizeof(float)));
  CHECK(cudaMalloc(&d_dS, (size_t)n * sizeof(float)));
  CHECK(cudaMalloc(&d_dW, (size_t)n * sizeof(float)));
  CHECK(cudaMalloc(&d_dE, (size_t)n * sizeof(float)));
  CHECK(cudaMalloc(&d_c, (size_t)n * sizeof(float)));
  CHECK(cudaMalloc(&d_psum, (size_t)rblocks * sizeof(float)));
  CHECK(cudaMalloc(&d_psum2, (size_t)rblocks * sizeof(float)));

  dim3 block(TILE, TILE);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);

  double t0 = bench_now_ms();
  CHECK(cudaMemcpy(d_J, J, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
  for (int it = 0; it < iters; it++) {
    // Statistics of the region of interest.
    srad_sums<<<rblocks, RBLOCK>>>(d_J, n, d_psum, d_psum2);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(psum, d_psum, (size_t)rblocks * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(psum2, d_psum2, (size_t)rblocks * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0.0, sum2 = 0.0;
    for (int b = 0; b < rblocks; b++) {
      sum += psum[b];
      sum2 += psum2[b];
    }
    float q0sqr = srad_q0sqr(sum, sum2, n);

    srad_coeffs<<<grid, block>>>(d_J, d_dN, d_dS, d_dW, d_dE, d_c, rows, cols, q0sqr);
    CHECK(cudaGetLastError());
    srad_update<<<grid, block>>>(d_J, d_dN, d_dS, d_dW, d_dE, d_c, rows, cols);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaMemcpy(J, d_J, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
  double ms = bench_now_ms() - t0;

  srad_report(ms, J, n);
  CHECK(cudaFree(d_J));
  CHECK(cudaFree(d_dN));
  CHECK(cudaFree(d_dS));
  CHECK(cudaFree(d_dW));
  CHECK(cudaFree(d_dE));
  CHECK(cudaFree(d_c));
  CHECK(cudaFree(d_psum));
  CHECK(cudaFree(d_psum2));
  free(J);
  free(psum);
  free(psum2);
  return 0;
}
