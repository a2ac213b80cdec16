// cooperative.cu — cudaLaunchCooperativeKernel and cooperative_groups::this_grid().sync(): a three-point
// stencil iterated across block boundaries, then a two-level reduction, all in one launch with a grid-wide
// barrier between phases. The grid is as large as the device can keep resident, capped at 8 blocks; all the
// work is grid-stride, so nothing printed depends on the grid's size.
#include "check.h"

#include <cooperative_groups.h>

#include <vector>

namespace cg = cooperative_groups;

constexpr int N = 3000, STEPS = 6, THREADS = 128;

__global__ void stencil_and_sum(int *a, int *b, long long *partial, long long *total, int *flags) {
  cg::grid_group grid = cg::this_grid();
  const int tid = grid.thread_rank(), nthreads = grid.size();
  if (tid == 0) flags[0] = grid.is_valid() && grid.size() == (unsigned long long)gridDim.x * blockDim.x;
  for (int i = tid; i < N; i += nthreads) a[i] = (i * 7919) % 1000;
  grid.sync();
  for (int step = 0; step < STEPS; step++) {  // b = stencil(a); a = b — neighbours belong to other blocks
    for (int i = tid; i < N; i += nthreads) {
      int l = i > 0 ? a[i - 1] : 0, r = i < N - 1 ? a[i + 1] : 0;
      b[i] = (l + 2 * a[i] + r) % 1000003;
    }
    grid.sync();
    for (int i = tid; i < N; i += nthreads) a[i] = b[i];
    grid.sync();
  }
  __shared__ long long s[THREADS];  // per-block partial sums, then block 0 adds them
  long long mine = 0;
  for (int i = tid; i < N; i += nthreads) mine += (long long)a[i] * (i + 1);
  s[threadIdx.x] = mine;
  __syncthreads();
  for (int w = THREADS / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (tid == 0) {
    long long t = 0;
    for (int k = 0; k < (int)gridDim.x; k++) t += partial[k];
    *total = t;
  }
}

int main() {
  begin();
  int dev = 0, coop = 0, sms = 0, per_sm = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  check(coop == 1, "device supports cooperative launch");
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stencil_and_sum, THREADS, 0));
  check(per_sm >= 1, "at least one block per multiprocessor");
  int blocks = per_sm * sms < 8 ? per_sm * sms : 8;  // the same grid on every device that can hold 8 blocks

  int *a, *b, *flags;
  long long *partial, *total;
  CK(cudaMalloc(&a, N * sizeof(int)));
  CK(cudaMalloc(&b, N * sizeof(int)));
  CK(cudaMalloc(&flags, sizeof(int)));
  CK(cudaMalloc(&partial, 8 * sizeof(long long)));
  CK(cudaMalloc(&total, sizeof(long long)));
  void *args[] = {&a, &b, &partial, &total, &flags};
  CK(cudaLaunchCooperativeKernel((const void *)stencil_and_sum, dim3(blocks), dim3(THREADS), args, 0, nullptr));
  CK(cudaDeviceSynchronize());

  std::vector<int> x(N), y(N), got(N);
  for (int i = 0; i < N; i++) x[i] = (i * 7919) % 1000;
  for (int step = 0; step < STEPS; step++) {
    for (int i = 0; i < N; i++) y[i] = ((i > 0 ? x[i - 1] : 0) + 2 * x[i] + (i < N - 1 ? x[i + 1] : 0)) % 1000003;
    x = y;
  }
  long long want = 0;
  for (int i = 0; i < N; i++) want += (long long)x[i] * (i + 1);
  CK(cudaMemcpy(got.data(), a, N * sizeof(int), cudaMemcpyDeviceToHost));
  check_all(got.data(), N, [&](size_t i) { return x[i]; }, "6 stencil steps with grid.sync() between them");
  long long t = 0;
  int f = 0;
  CK(cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&f, flags, sizeof f, cudaMemcpyDeviceToHost));
  check(f == 1, "grid.is_valid() and grid.size() == gridDim.x * blockDim.x");
  printf("weighted sum = %lld\n", t);
  check(t == want, "grid-wide reduction");

  // A cooperative grid larger than the device can hold is refused.
  int too_many = per_sm * sms + 1;
  cudaError_t e =
      cudaLaunchCooperativeKernel((const void *)stencil_and_sum, dim3(too_many), dim3(THREADS), args, 0, nullptr);
  check_err(e, cudaErrorCooperativeLaunchTooLarge, "cooperative launch of one block more than fit");
  cudaGetLastError();
  CK(cudaDeviceSynchronize());

  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(flags));
  CK(cudaFree(partial));
  CK(cudaFree(total));
  return finish("cooperative");
}
