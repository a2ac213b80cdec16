// warp_vote.cu — warp-level primitives in a whole program: __ballot_sync, __any_sync, __all_sync,
// collectives on each side of a divergent branch, __shfl_xor_sync butterfly all-reduce, __shfl_sync broadcast,
// __shfl_up_sync inclusive scan, __match_any_sync, __reduce_add_sync/__reduce_max_sync, and a partial last
// warp (blocks of 80 threads). Every result is stored per thread and checked against the host.
#include "check.h"

#include <vector>

constexpr int BLOCKS = 3, THREADS = 80, N = BLOCKS * THREADS, FIELDS = 10;

__global__ void votes(const int *in, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
  unsigned full = __activemask();  // the last warp of a block has 16 threads
  int v = in[t];
  unsigned *o = out + t * FIELDS;
  o[0] = __ballot_sync(full, v % 3 == 0);
  o[1] = __any_sync(full, v > 90);
  o[2] = __all_sync(full, v >= 0);
  unsigned odd = __ballot_sync(full, v % 2);
  if (v % 2)  // each side's collective names exactly the lanes that took that side
    o[3] = __reduce_add_sync(odd, (unsigned)v);
  else
    o[3] = __reduce_max_sync(full & ~odd, (unsigned)v) | 0x10000u;
  int s = v;
  for (int m = __popc(full) / 2; m > 0; m /= 2) s += __shfl_xor_sync(full, s, m);
  o[4] = s;
  o[5] = __shfl_sync(full, v, 3);  // lane 3's value
  int scan = v;
  for (int d = 1; d < 32; d *= 2) {
    int up = __shfl_up_sync(full, scan, d);
    if (lane >= d) scan += up;
  }
  o[6] = scan;
  o[7] = __match_any_sync(full, v % 4);
  o[8] = __reduce_add_sync(full, (unsigned)v);
  o[9] = __reduce_max_sync(full, (unsigned)v);
}

int main() {
  begin();
  std::vector<int> in(N);
  for (int i = 0; i < N; i++) in[i] = (i * 37 + 11) % 97;
  int *din;
  unsigned *dout;
  std::vector<unsigned> out(N * FIELDS);
  CK(cudaMalloc(&din, N * sizeof(int)));
  CK(cudaMalloc(&dout, N * FIELDS * sizeof(unsigned)));
  CK(cudaMemcpy(din, in.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  votes<<<BLOCKS, THREADS>>>(din, dout);
  CK(cudaGetLastError());
  CK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));

  // The host model: warps of 32 threads, the last one of each block 16 wide.
  std::vector<unsigned> want(N * FIELDS);
  for (int b = 0; b < BLOCKS; b++)
    for (int w0 = 0; w0 < THREADS; w0 += 32) {
      int width = THREADS - w0 < 32 ? THREADS - w0 : 32, base = b * THREADS + w0;
      unsigned ballot = 0, match_any = 0;
      bool any = false, all = true;
      unsigned sum = 0, mx = 0, odd_sum = 0, even_max = 0;
      for (int l = 0; l < width; l++) {
        int v = in[base + l];
        ballot |= (unsigned)(v % 3 == 0) << l;
        any |= v > 90;
        all &= v >= 0;
        sum += v;
        mx = v > (int)mx ? v : mx;
        if (v % 2)
          odd_sum += v;
        else
          even_max = v > (int)even_max ? v : even_max;
      }
      int scan = 0;
      for (int l = 0; l < width; l++) {
        int v = in[base + l];
        unsigned *o = &want[(base + l) * FIELDS];
        match_any = 0;
        for (int k = 0; k < width; k++) match_any |= (unsigned)(in[base + k] % 4 == v % 4) << k;
        scan += v;
        o[0] = ballot;
        o[1] = any;
        o[2] = all;
        o[3] = v % 2 ? odd_sum : even_max | 0x10000u;
        o[4] = sum;
        o[5] = in[base + 3];
        o[6] = scan;
        o[7] = match_any;
        o[8] = sum;
        o[9] = mx;
      }
    }
  const char *names[FIELDS] = {"__ballot_sync", "__any_sync", "__all_sync", "redux on both sides of a branch",
                               "__shfl_xor_sync all-reduce", "__shfl_sync broadcast", "__shfl_up_sync scan",
                               "__match_any_sync", "__reduce_add_sync", "__reduce_max_sync"};
  for (int f = 0; f < FIELDS; f++) {
    std::vector<unsigned> g(N), e(N);
    for (int t = 0; t < N; t++) g[t] = out[t * FIELDS + f], e[t] = want[t * FIELDS + f];
    check_all(g.data(), N, [&](size_t t) { return e[t]; }, names[f]);
  }
  CK(cudaFree(din));
  CK(cudaFree(dout));
  return finish("warp_vote");
}
