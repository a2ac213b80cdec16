// shuffle.cu — the warp-shuffle examples of the reference texts, for the README demo.
// Regenerate the PTX: nvcc -arch=sm_80 -ptx -O3 shuffle.cu -o shuffle.ptx
#include <cstdio>

// Lane i holds i*11 (lane 3 holds 33); broadcast lane 3 of each 16-lane segment.
extern "C" __global__ void bcast_width16(int *out) {
  int value = threadIdx.x * 11;
  out[threadIdx.x] = __shfl_sync(0xffffffff, value, 3, 16);
}

// Read from lane x+3 within each 16-lane segment; the top 3 lanes keep their own value.
extern "C" __global__ void down3_width16(int *out) {
  int value = threadIdx.x * 11;
  out[threadIdx.x] = __shfl_down_sync(0xffffffff, value, 3, 16);
}

// The experiment from warp-shuffle-experiments: 2 blocks of 8 threads, mask 0xff, width 8.
extern "C" __global__ void scan4() {
  int laneId = threadIdx.x & 0x1f;
  int val = 8 - laneId;
  for (int offset = 8 >> 1; offset > 0; offset >>= 1) {
    int n = __shfl_down_sync(0xff, val, offset, 8);
    printf("Block id: %d Thread id :%d n value = %d\n", blockIdx.x, threadIdx.x, n);
  }
}

// Tree reduction: lane 0 ends with the sum of the warp.
extern "C" __global__ void tree_reduce(unsigned *data) {
  unsigned v = data[threadIdx.x];
  for (int delta = 16; delta > 0; delta /= 2) v += __shfl_down_sync(0xffffffff, v, delta);
  data[threadIdx.x] = v;
}
