// cdp_limits.cu — the device runtime's limits (CDP2, -rdc=true -lcudadevrt): how deep launches nest (the
// programming guide says 24 levels), how long a chain of tail launches may be, and what a launch beyond
// cudaLimitDevRuntimePendingLaunchCount (set to 64 before the first launch) gets. What the documentation leaves open is printed as observed (the
// GPU's answer, recorded in the golden, is the contract); what it states is checked.
#include "check.h"

// Each level launches the next into its NULL stream until a launch fails (or level 40).
__global__ void dive(int level, int *deepest, int *fail_level, int *fail_err) {
  atomicMax(deepest, level);
  if (level >= 40) return;
  dive<<<1, 1>>>(level + 1, deepest, fail_level, fail_err);
  int e = cudaGetLastError();
  if (e != cudaSuccess) {
    *fail_level = level;
    *fail_err = e;
  }
}

// Each grid tail-launches the next, 60 in all unless a launch fails.
__global__ void tail_dive(int left, int *ran, int *fail_left, int *fail_err) {
  atomicAdd(ran, 1);
  if (left <= 1) return;
  tail_dive<<<1, 1, 0, cudaStreamTailLaunch>>>(left - 1, ran, fail_left, fail_err);
  int e = cudaGetLastError();
  if (e != cudaSuccess) {
    *fail_left = left;
    *fail_err = e;
  }
}

// n tail launches from one thread: none can start before this grid ends, so all are pending at once.
__global__ void count_one(int *ran) { atomicAdd(ran, 1); }

__global__ void many_tails(int n, int *out, int *ran) {
  int ok = 0, first_fail = -1, first_err = 0;
  for (int i = 0; i < n; i++) {
    count_one<<<1, 1, 0, cudaStreamTailLaunch>>>(ran);
    int e = cudaGetLastError();
    if (e == cudaSuccess) ok++;
    else if (first_fail < 0) first_fail = i, first_err = e;
  }
  out[0] = ok;
  out[1] = first_fail;
  out[2] = first_err;
}

static const char *name(int e) { return cudaGetErrorName((cudaError_t)e); }

static void run_many(int n, int *out, int *ran, int h[4]) {
  CK(cudaMemset(ran, 0, sizeof(int)));
  many_tails<<<1, 1>>>(n, out, ran);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, out, 3 * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h + 3, ran, sizeof(int), cudaMemcpyDeviceToHost));
}

int main() {
  begin();
  size_t v = 0;
  CK(cudaDeviceGetLimit(&v, cudaLimitDevRuntimePendingLaunchCount));
  check(v == 2048, "cudaLimitDevRuntimePendingLaunchCount is 2048 by default (%zu)", v);
  // set before the first launch, as the programming guide asks of the device runtime's limits
  CK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 64));
  CK(cudaDeviceGetLimit(&v, cudaLimitDevRuntimePendingLaunchCount));
  check(v == 64, "cudaLimitDevRuntimePendingLaunchCount set to 64 (%zu)", v);
  v = 12345;
  cudaError_t e = cudaDeviceGetLimit(&v, cudaLimitDevRuntimeSyncDepth);
  printf("cudaDeviceGetLimit(cudaLimitDevRuntimeSyncDepth): %s, %zu\n", cudaGetErrorName(e), e ? (size_t)0 : v);
  cudaGetLastError();

  int *buf;
  CK(cudaMalloc(&buf, 16 * sizeof(int)));
  int *deepest = buf, *fail_level = buf + 1, *fail_err = buf + 2, *ran = buf + 3, *out = buf + 4;

  // nesting depth
  CK(cudaMemset(buf, 0, 16 * sizeof(int)));
  dive<<<1, 1>>>(1, deepest, fail_level, fail_err);
  CK(cudaDeviceSynchronize());
  int h[4];
  CK(cudaMemcpy(h, buf, 3 * sizeof(int), cudaMemcpyDeviceToHost));
  printf("nested launches: the deepest level that ran is %d; the launch from level %d got %s\n", h[0], h[1],
         name(h[2]));
  check(h[0] >= 2 && h[0] <= 40, "nested launches ran and stopped");

  // a chain of tail launches
  CK(cudaMemset(buf, 0, 16 * sizeof(int)));
  tail_dive<<<1, 1>>>(60, ran, fail_level, fail_err);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, buf, 4 * sizeof(int), cudaMemcpyDeviceToHost));
  printf("a chain of 60 tail launches: %d grids ran; %s\n", h[3], h[1] ? name(h[2]) : "no launch failed");
  check(h[3] >= 2, "tail launches ran");

  // pending launches: tail launches from one thread, within the limit of 64 and beyond it
  run_many(60, out, ran, h);
  check(h[0] == 60 && h[1] == -1 && h[3] == 60, "60 pending tail launches with the limit at 64: all ran");
  run_many(100, out, ran, h);
  printf("100 tail launches with the limit at 64: %d launched, the first failure at launch %d (%s), %d ran\n", h[0],
         h[1], h[1] < 0 ? "none" : name(h[2]), h[3]);
  check(h[3] == h[0], "every launch that succeeded ran");

  cudaFree(buf);
  CK(cudaDeviceSynchronize());
  return finish("cdp_limits");
}
