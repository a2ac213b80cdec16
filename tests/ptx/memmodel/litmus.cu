// litmus.cu — the weakly-ordered memory model example of simt-divergence-and-thread-communication.md
// (CUDA Programming Guide B.5): X = 1, Y = 2; thread 0 of block 0 writes X = 10; Y = 20; thread 0 of
// block 1 reads B = Y; A = X. Under a weak model A = 1, B = 20 is allowed; a fence between the two
// writes forbids it. Also the last-block reduction with and without its __threadfence.
// PTX: nvcc -arch=sm_80 -ptx -O3 litmus.cu -o litmus.ptx
__device__ int X = 1, Y = 2;
__device__ unsigned int count = 0;

extern "C" __global__ void litmus(int *out, int fenced) {
  if (threadIdx.x) return;
  if (blockIdx.x == 0) {
    *(volatile int *)&X = 10;
    if (fenced) __threadfence();
    *(volatile int *)&Y = 20;
  } else {
    int b = *(volatile int *)&Y;
    int a = *(volatile int *)&X;
    out[0] = a;
    out[1] = b;
  }
}

// Each block sums 64 values into result[block]; the last block to finish adds the partial sums.
extern "C" __global__ void lastblock(const int *in, volatile int *result, int *total, int fenced) {
  __shared__ int part[64];
  __shared__ bool last;
  part[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < 64; i++) s += part[i];
    result[blockIdx.x] = s;
    if (fenced) __threadfence();
    unsigned v = atomicInc(&count, gridDim.x);
    last = (v == gridDim.x - 1);
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < (int)gridDim.x; i++) s += result[i];
    *total = s;
    count = 0;
  }
}
