// matmul.cu - the benchmark's tiled matrix product (bench/suite/): C = A * B for n x n fp32 matrices,
// n a multiple of 16, 16x16 blocks, each block staging 16x16 tiles of A and B in shared memory.
// nvcc contracts `acc += a * b` into fma.rn.f32 (k in order), which the C and OpenCL versions write out.
// PTX: nvcc -arch=sm_80 -ptx -O3 matmul.cu -o matmul.ptx
#define TILE 16
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}
