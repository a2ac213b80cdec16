// transpose.cu - the benchmark's matrix transpose (bench/suite/): out = in^T for an n x n matrix of u32,
// n a multiple of 32, blocks of 32x8 threads each moving a 32x32 tile through shared memory (padded
// to 33 columns), as in NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++".
// PTX: nvcc -arch=sm_80 -ptx -O3 transpose.cu -o transpose.ptx
#define TILE 32
#define ROWS 8
extern "C" __global__ void transpose(const unsigned *in, unsigned *out, int n) {
  __shared__ unsigned tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
