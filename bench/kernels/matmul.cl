// matmul.cl - matmul.cu in OpenCL C 1.2 for PoCL (bench/suite/pocl.c). fma() is written out: CUDA's
// `acc += a * b` is contracted by nvcc, and OpenCL leaves contraction to the implementation.
#define TILE 16
kernel void matmul(global const float *A, global const float *B, global float *C, uint n) {
  local float As[TILE][TILE], Bs[TILE][TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int row = get_group_id(1) * TILE + ty, col = get_group_id(0) * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < (int)n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; k++) acc = fma(As[ty][k], Bs[k][tx], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * n + col] = acc;
}
