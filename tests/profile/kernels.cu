// kernels.cu — the --profile validation suite (tests/profile/README.md): pairs of kernels that differ in one
// property the profiler measures (divergence, shared-memory bank conflicts, coalescing, access width, shuffles),
// built to kernels.ptx with `nvcc -arch=sm_90 -lineinfo -ptx` (build_ptx.sh) and run by ptxrun / warpvm run with
// the launches of cases.txt. Every kernel writes its result so that nothing is optimised away.

// The reference text's divergence example: lanes 0..9 take one path, 10..31 the other (every warp splits).
extern "C" __global__ void div_lt10(float *out, int iters) {
  float v = threadIdx.x;
  if (threadIdx.x % 32 < 10) {
    for (int i = 0; i < iters; i++) v = v * 1.0001f + 0.5f;
  } else {
    for (int i = 0; i < iters; i++) v = v * 0.9999f - 0.25f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// The same work where the condition is uniform per warp: threadIdx.x / warpSize < N never splits a warp.
extern "C" __global__ void div_warp(float *out, int iters) {
  float v = threadIdx.x;
  if (threadIdx.x / warpSize < 2) {
    for (int i = 0; i < iters; i++) v = v * 1.0001f + 0.5f;
  } else {
    for (int i = 0; i < iters; i++) v = v * 0.9999f - 0.25f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Data-dependent divergence: each lane loops as often as its input says.
extern "C" __global__ void div_data(const unsigned *in, float *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, n = in[i] % 64;
  float v = 0;
  for (unsigned k = 0; k < n; k++) v += __sinf((float)k);
  out[i] = v;
}

#define TILE 32
// Matrix transpose through shared memory, a 32x32 tile per block of 32x8 threads. The tile is read down a
// column: with rows of 32 words every read of a warp falls in one bank (32-way conflict).
extern "C" __global__ void transpose_strided(const float *in, float *out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// The fix: one word of padding per row puts a column's words in 32 different banks.
extern "C" __global__ void transpose_padded(const float *in, float *out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Coalesced: consecutive threads read consecutive words (4 sectors per warp request).
extern "C" __global__ void load_coalesced(const float *in, float *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * 2.0f;
}

// Strided: consecutive threads read words 32 apart (32 sectors per warp request).
extern "C" __global__ void load_strided(const float *in, float *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[(i * 32) % (gridDim.x * blockDim.x)] * 2.0f;
}

// 64-bit shared accesses: consecutive doubles (2 wavefronts, one per half-warp, no conflict) ...
extern "C" __global__ void shared64_seq(const double *in, double *out) {
  __shared__ double s[64];
  s[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
  __syncwarp();
  out[blockIdx.x * 32 + threadIdx.x] = s[31 - threadIdx.x];
}

// ... and doubles two apart: each half-warp's 16 lanes cover 32 words in banks 0..31 twice: 2-way conflict.
extern "C" __global__ void shared64_stride2(const double *in, double *out) {
  __shared__ double s[64];
  s[2 * threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
  __syncwarp();
  out[blockIdx.x * 32 + threadIdx.x] = s[2 * threadIdx.x];
}

// 128-bit shared accesses: consecutive float4 (4 wavefronts, one per quarter-warp).
extern "C" __global__ void shared128_seq(const float4 *in, float4 *out) {
  __shared__ float4 s[32];
  s[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
  __syncwarp();
  out[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x ^ 1];
}

// 32-bit shared accesses with stride 2 words: lanes l and l+16 share a bank: 2 wavefronts a request.
extern "C" __global__ void shared32_stride2(const float *in, float *out) {
  __shared__ float s[64];
  s[2 * threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
  __syncwarp();
  out[blockIdx.x * 32 + threadIdx.x] = s[2 * threadIdx.x] + 1.0f;
}

// Tiled matrix multiply, 16x16 tiles.
#define T 16
extern "C" __global__ void matmul_tiled(const float *a, const float *b, float *c, int n) {
  __shared__ float as[T][T], bs[T][T];
  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < n; t += T) {
    as[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < T; k++) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// Sum of a block's 256 values: a tree in shared memory, a barrier per level ...
extern "C" __global__ void reduce_shared(const unsigned *in, unsigned *out) {
  __shared__ unsigned s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// ... and with warp shuffles: registers exchanged without a shared-memory round trip.
extern "C" __global__ void reduce_shfl(const unsigned *in, unsigned *out) {
  __shared__ unsigned w[8];
  unsigned t = threadIdx.x, v = in[blockIdx.x * 256 + t];
  for (int k = 16; k > 0; k >>= 1) v += __shfl_down_sync(0xffffffffu, v, k);
  if (t % 32 == 0) w[t / 32] = v;
  __syncthreads();
  if (t < 32) {
    v = t < 8 ? w[t] : 0;
    for (int k = 4; k > 0; k >>= 1) v += __shfl_down_sync(0xffffffffu, v, k);
    if (t == 0) out[blockIdx.x] = v;
  }
}
