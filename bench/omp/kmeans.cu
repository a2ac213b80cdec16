// kmeans.cu — k-means clustering, CUDA version (its OpenMP twin is kmeans.c).
// N points of F float features, stored feature-major (feature f of point i at f*N + i, so that neighbouring
// threads read neighbouring words), K clusters, at most ITERS iterations (stop early when no point changes
// cluster). Each iteration: the kernel `assign` (one thread per point, blocks of 256 threads) gives each point
// the nearest centre by squared Euclidean distance, the centres sitting in constant memory; the memberships are
// copied back and the host recomputes the centres as the means of their points.
// Timed: from the first host-to-device copy to the end of the last iteration's host update (after the last
// device-to-host copy). Usage: ./kmeans [N] [F] [K] [ITERS]
// The limit on K*F, the arguments, the host arrays and the inputs, a point's nearest centre, the host update of
// the centres and the checksum are kmeans.h's (shared with kmeans.c).
#include <cstdlib>

#include "kmeans.h"

__constant__ float c_centres[MAX_CENTRE_FLOATS];  // centre c, feature f at c*F + f

// One thread per point: the index of the nearest centre (the first one on a tie).
__global__ void assign(const float *features, int n, int nf, int k, int *membership) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  membership[i] = kmeans_nearest(features, n, nf, k, c_centres, i);
}

int main(int argc, char **argv) {
  kmeans_params p;
  if (!kmeans_parse(argc, argv, &p)) return 1;
  kmeans_data data = kmeans_setup(&p);
  int n = p.n, nf = p.nf, k = p.k;

  CHECK(cudaFree(0));
  float *d_features;
  int *d_membership;
  CHECK(cudaMalloc(&d_features, (size_t)n * nf * sizeof(float)));
  CHECK(cudaMalloc(&d_membership, (size_t)n * sizeof(int)));
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;

  double t0 = bench_now_ms();
  CHECK(cudaMemcpy(d_features, data.features, (size_t)n * nf * sizeof(float), cudaMemcpyHostToDevice));
  for (int it = 0; it < p.iters; it++) {
    CHECK(cudaMemcpyToSymbol(c_centres, data.centres, (size_t)k * nf * sizeof(float)));
    assign<<<blocks, threads>>>(d_features, n, nf, k, d_membership);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(data.membership, d_membership, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
    if (kmeans_update_centres(&p, &data) == 0) break;
  }
  double t1 = bench_now_ms();

  kmeans_report(t1 - t0, &p, &data);

  CHECK(cudaFree(d_features));
  CHECK(cudaFree(d_membership));
  kmeans_free(&data);
  return 0;
}
