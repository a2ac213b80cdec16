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

// Shared-memory reads of each width, reps times per thread, consecutive or two elements apart. A block of 256
// threads loads 64 elements; every warp then reads them with rotating offsets.
#define SHARED_KERNEL(NAME, T, INDEX, ZERO)                                                                      \
  extern "C" __global__ void NAME(const T *in, T *out, int reps) {                                               \
    __shared__ T s[64];                                                                                          \
    if (threadIdx.x < 64) s[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];                                    \
    __syncthreads();                                                                                             \
    unsigned l = threadIdx.x % 32;                                                                               \
    T acc = ZERO;                                                                                                \
    for (int r = 0; r < reps; r++) acc = add(acc, s[INDEX]);                                                     \
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;                                                            \
  }
__device__ float add(float a, float b) { return a + b; }
__device__ double add(double a, double b) { return a + b; }
__device__ float4 add(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
// 32-bit: consecutive words (1 wavefront a request); words two apart (lanes l and l+16 share a bank: 2).
SHARED_KERNEL(shared32_seq, float, (l + r) % 32, 0.0f)
SHARED_KERNEL(shared32_stride2, float, (2 * l + 2 * r) % 64, 0.0f)
// 64-bit: consecutive doubles (2 wavefronts, one per half-warp); two apart (lanes l, l+8 of a half: 4).
SHARED_KERNEL(shared64_seq, double, (l + r) % 32, 0.0)
SHARED_KERNEL(shared64_stride2, double, (2 * l + 2 * r) % 64, 0.0)
// 128-bit: consecutive float4 (4 wavefronts, one per quarter-warp); two apart (lanes l, l+4 of a quarter: 8).
SHARED_KERNEL(shared128_seq, float4, (l + r) % 32, make_float4(0, 0, 0, 0))
SHARED_KERNEL(shared128_stride2, float4, (2 * l + 2 * r) % 64, make_float4(0, 0, 0, 0))

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
