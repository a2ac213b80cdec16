// matmul.cu - n x n fp32 matmul for bench/mem/callgrind.sh: the 16 x 16 shared-memory tiled kernel (mm_tiled, the
// issue-11 benchmark's algorithm) and a naive one reading A and B from global memory (mm_naive).
// Launch with 16 x 16 threads per block and an n/16 x n/16 grid (n a multiple of 16).
// PTX: nvcc -arch=sm_80 -ptx -O3 matmul.cu -o matmul.ptx
#define T 16
extern "C" __global__ void mm_tiled(const float *a, const float *b, float *c, int n) {
  __shared__ float as[T][T], bs[T][T];
  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < n; k0 += T) {
    as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; k++) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

extern "C" __global__ void mm_naive(const float *a, const float *b, float *c, int n) {
  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}
