// its.cu — independent thread scheduling (Volta and later): code whose lanes of one warp must make
// progress separately. Every output is deterministic, so the GPU's is the golden.
//   its_spinlock(out): all 64 threads (two warps) take one global lock in turn and add their thread
//     index and 1 to a total under it: out[0] = 64 (count), out[1] = 0 + 1 + ... + 63 = 2016.
//   its_split_shfl(out): lanes 0-15 and 16-31 take different paths; each path calls __shfl_sync with
//     the FULL mask, reading lane (31 - lane): the two halves exchange values across the paths.
//   its_flag(out): lane 0 spins on a flag that lane 31 sets after some work on another path.
__device__ int its_lock = 0;

extern "C" __global__ void its_spinlock(volatile int *out) {
  // The naive form: the loser lanes spin while the winner sits past the loop.
  while (atomicCAS(&its_lock, 0, 1) != 0) {}
  __threadfence();
  out[0] = out[0] + 1;
  out[1] = out[1] + (int)threadIdx.x;
  __threadfence();
  atomicExch(&its_lock, 0);
}

extern "C" __global__ void its_split_shfl(int *out) {
  int lane = threadIdx.x & 31;
  int v = 100 + lane, r;
  if (lane < 16) {
    r = __shfl_sync(0xffffffff, v * 2, 31 - lane);
    out[threadIdx.x] = r;
  } else {
    r = __shfl_sync(0xffffffff, v * 3, 31 - lane);
    out[threadIdx.x] = -r;
  }
}

extern "C" __global__ void its_flag(volatile int *out) {
  int lane = threadIdx.x & 31;
  if (lane == 0) {
    while (out[1] == 0) {}
    out[0] = out[1] + 1;
  } else if (lane == 31) {
    int s = 0;
    for (int i = 0; i < 1000; i++) s += i ^ (int)threadIdx.x;
    out[2] = s;
    __threadfence();
    out[1] = 7;
  }
}
