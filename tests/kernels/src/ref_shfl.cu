// ref_shfl.cu — the examples of the reference texts in /work/shared/reference/, made runnable.
//   shfl-lowering-to-ds-permute.zh.md: broadcast from lane 3 (width 16), up/down by 3 (width 16),
//     xor with laneMask 3 (width 16 and 32), tree reduction with __shfl_down_sync (delta 4..1).
//   warp-shuffle-experiments.zh.md: WarpReduceSum, warpAllReduceSum (xor), warp_prefix_sum (shfl_up),
//     the scan4 experiments (printf), including the mask 0xff / width 8 variants.
//   simt-divergence-and-thread-communication.md: bcast (lane 0 broadcasts arg, prints on failure) and
//     the last-block reduction (__threadfence + atomicInc).
// Built with nvcc (sm_80, sm_90) and with clang-14 for sm_70 (wv_compat.h stands in for the CUDA headers).
#include "wv_compat.h"

#define LANE (threadIdx.x & 31)
#define WARP (threadIdx.x >> 5)

// Lane i of warp w holds i*11 + 1000*w, so lane 3 of warp 0 holds 33 as in the text.
static __device__ __forceinline__ int ref_value() { return (int)(LANE * 11 + WARP * 1000); }

extern "C" __global__ void ref_shfl_bcast_w16(int *out) {
  int value = ref_value();
  value = __shfl_sync(0xffffffff, value, 3, 16);
  out[threadIdx.x] = value;
}

extern "C" __global__ void ref_shfl_up3_w16(int *out) {
  int value = ref_value();
  int n = __shfl_up_sync(0xffffffff, value, 3, 16);
  out[threadIdx.x] = n;
}

extern "C" __global__ void ref_shfl_down3_w16(int *out) {
  int value = ref_value();
  int n = __shfl_down_sync(0xffffffff, value, 3, 16);
  out[threadIdx.x] = n;
}

extern "C" __global__ void ref_shfl_xor3_w16(int *out) {
  int value = ref_value();
  int n = __shfl_xor_sync(0xffffffff, value, 3, 16);
  out[threadIdx.x] = n;
}

extern "C" __global__ void ref_shfl_xor3_w32(int *out) {
  int value = ref_value();
  int n = __shfl_xor_sync(0xffffffff, value, 3);
  out[threadIdx.x] = n;
}

// The text's xor claim: with width < 32 a group may read the previous group but reading a later one returns
// its own value. laneMask 16 with width 16 and 8 (and 24 with width 8) probe exactly that.
extern "C" __global__ void ref_shfl_xor_cross(int *out) {
  int value = ref_value();
  unsigned n = blockDim.x;
  out[0 * n + threadIdx.x] = __shfl_xor_sync(0xffffffff, value, 16, 16);
  out[1 * n + threadIdx.x] = __shfl_xor_sync(0xffffffff, value, 8, 8);
  out[2 * n + threadIdx.x] = __shfl_xor_sync(0xffffffff, value, 24, 8);
  out[3 * n + threadIdx.x] = __shfl_xor_sync(0xffffffff, value, 12, 8);
}

// Tree reduction from the text: after the loop lane 0 of each group of 8 holds the sum of its 8 lanes.
extern "C" __global__ void ref_tree_reduce(const unsigned *in, unsigned *out) {
  unsigned var = in[threadIdx.x] & 0xffff;
  for (int delta = 4; delta > 0; delta /= 2)
    var += __shfl_down_sync(0xffffffff, var, delta);
  out[threadIdx.x] = var;
}

template <typename T>
__inline__ __device__ T WarpReduceSum(T val) {
#pragma unroll
  for (int offset = (warpSize >> 1); offset > 0; offset >>= 1) {
    val += __shfl_down_sync(0xffffffff, val, offset, warpSize);
  }
  return val;
}

extern "C" __global__ void ref_warp_reduce_sum_int(const int *in, int *out) {
  out[threadIdx.x] = WarpReduceSum<int>(in[threadIdx.x] >> 8);
}

extern "C" __global__ void ref_warp_reduce_sum_float(const unsigned *in, float *out) {
  // Inputs in [-1024, 1024) with 4 fraction bits, built from the random words.
  float v = (float)((int)(in[threadIdx.x] & 0x7fff) - 0x4000) * 0.0625f;
  out[threadIdx.x] = WarpReduceSum<float>(v);
}

// The text uses the pre-CUDA-9 __shfl_xor(val, mask); this is the _sync form over the full warp.
__inline__ __device__ int warpAllReduceSum(int val) {
  for (int mask = warpSize / 2; mask > 0; mask /= 2)
    val += __shfl_xor_sync(0xffffffff, val, mask);
  return val;
}

extern "C" __global__ void ref_warp_allreduce_xor(const int *in, int *out) {
  out[threadIdx.x] = warpAllReduceSum(in[threadIdx.x] >> 4);
}

__device__ void warp_prefix_sum(int val, int &prefix_sum) {
  int lane_id = threadIdx.x % warpSize;
  int lane_val = val;

  for (int i = 1; i < warpSize; i *= 2) {
    int neighbor_val = __shfl_up_sync(0xffffffff, lane_val, i);
    if (lane_id >= i) {
      lane_val += neighbor_val;
    }
  }

  if (lane_id == warpSize - 1) {
    prefix_sum = lane_val;
  }
}

// out[tid] = the warp total on lane 31, -1 elsewhere (prefix_sum is only written by the last lane).
extern "C" __global__ void ref_warp_prefix_sum(const int *in, int *out) {
  int prefix = -1;
  warp_prefix_sum(in[threadIdx.x] & 0xfff, prefix);
  out[threadIdx.x] = prefix;
}

// The same loop, recording every lane's inclusive prefix.
extern "C" __global__ void ref_warp_scan_up(const int *in, int *out) {
  int lane_id = threadIdx.x % warpSize;
  int lane_val = in[threadIdx.x] & 0xfff;
  for (int i = 1; i < warpSize; i *= 2) {
    int neighbor_val = __shfl_up_sync(0xffffffff, lane_val, i);
    if (lane_id >= i) lane_val += neighbor_val;
  }
  out[threadIdx.x] = lane_val;
}

// warp-shuffle-experiments: first scan4 (shfl_down, mask 0xff, width 8), run as <<<2, 8>>>.
extern "C" __global__ void ref_scan4_down_ff_w8() {
  int laneId = threadIdx.x & 0x1f;
  int val = 8 - laneId;

  for (int offset = 8 >> 1; offset > 0; offset >>= 1) {
    int n = __shfl_down_sync(0xff, val, offset, 8);
    printf("Block id: %d Thread id :%d n value = %d\n", blockIdx.x, threadIdx.x, n);
  }
}

// Experiment 1: width-8 inclusive scan over a full warp, run as <<<1, 32>>>.
extern "C" __global__ void ref_scan4_up_w8() {
  int laneId = threadIdx.x & 0x1f;
  // Seed sample starting value (inverse of lane ID)
  int value = 31 - laneId;
  for (int i = 1; i <= 4; i *= 2) {
    int n = __shfl_up_sync(0xffffffff, value, i, 8);
    if ((laneId & 7) >= i)
      value += n;
  }
  printf("Thread %d final value = %d\n", threadIdx.x, value);
}

// Experiment 2 (mask 0xff, width 8), with the if ...
extern "C" __global__ void ref_scan4_up_ff_if() {
  int laneId = threadIdx.x & 0x1f;
  int val = 8 - laneId;
  for (int i = 1; i <= 8 / 2; i++) {
    int n = __shfl_up_sync(0xff, val, i, 8);
    if (laneId >= i) {
      val += n;
      printf("Thread id :%d n value = %d\n val value: %d\n", threadIdx.x, n, val);
    }
  }
}

// ... and without it (the text's "remove the if" variant).
extern "C" __global__ void ref_scan4_up_ff_noif() {
  int laneId = threadIdx.x & 0x1f;
  int val = 8 - laneId;
  for (int i = 1; i <= 8 / 2; i++) {
    int n = __shfl_up_sync(0xff, val, i, 8);
    val += n;
    printf("Thread id :%d n value = %d\n val value: %d\n", threadIdx.x, n, val);
  }
}

// simt-divergence text, Code 2 (with __shfl_sync for the removed __shfl): prints only on failure.
extern "C" __global__ void ref_bcast(int arg) {
  int laneId = threadIdx.x & 0x1f;
  int value;
  if (laneId == 0)  // Note unused variable for
    value = arg;    // all threads except lane 0
  value = __shfl_sync(0xffffffff, value, 0);  // Get "value" from lane 0
  if (value != arg)
    printf("Thread %d failed.\n", threadIdx.x);
}

// The same broadcast, writing what every thread received.
extern "C" __global__ void ref_bcast_buf(int arg, int *out) {
  int laneId = threadIdx.x & 0x1f;
  int value = laneId == 0 ? arg : -1;
  value = __shfl_sync(0xffffffff, value, 0);
  out[threadIdx.x] = value;
}

// simt-divergence text, Code 1: last-block reduction. blockDim.x must be 256.
// Inputs: n words; word i becomes (w & 0xffff) / 64.0f. result[] has gridDim.x floats: partial sums of
// blocks 1..g-1 stay, result[0] ends as the total. Every sum has a fixed order, so the output is deterministic.
__device__ unsigned int count = 0;
__shared__ bool isLastBlockDone;

static __device__ float calculatePartialSum(const unsigned *array, unsigned n) {
  __shared__ float part[256];
  float s = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += (float)(array[i] & 0xffff) * (1.0f / 64.0f);
  part[threadIdx.x] = s;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  return part[0];
}

static __device__ float calculateTotalSum(volatile float *result) {
  float t = 0.0f;
  for (unsigned i = 0; i < gridDim.x; i++) t += result[i];
  return t;
}

extern "C" __global__ void ref_lastblock_sum(const unsigned *array, unsigned n, volatile float *result) {
  // Each block sums a subset of the input array.
  float partialSum = calculatePartialSum(array, n);
  if (threadIdx.x == 0) {
    // Thread 0 of each block stores the partial sum to global memory.
    result[blockIdx.x] = partialSum;
    // Thread 0 makes sure that the incrementation of the "count" variable is only performed after
    // the partial sum has been written to global memory.
    __threadfence();
    // Thread 0 signals that it is done.
    unsigned int value = atomicInc(&count, gridDim.x);
    // Thread 0 determines if its block is the last block to be done.
    isLastBlockDone = (value == (gridDim.x - 1));
  }
  // Synchronize to make sure that each thread reads the correct value of isLastBlockDone.
  __syncthreads();
  if (isLastBlockDone) {
    // The last block sums the partial sums stored in result[0 .. gridDim.x-1]
    float totalSum = calculateTotalSum(result);
    if (threadIdx.x == 0) {
      // Thread 0 of last block stores the total sum to global memory and resets the count
      // variable, so that the next kernel call works properly.
      result[0] = totalSum;
      count = 0;
    }
  }
}
