// kmeans.c — k-means clustering, OpenMP version (its CUDA twin is kmeans.cu).
// N points of F float features, stored feature-major (feature f of point i at f*N + i), K clusters, at most
// ITERS iterations (stop early when no point changes cluster). Each iteration: a parallel for over the points
// gives each point the nearest centre by squared Euclidean distance; then the host code recomputes the centres
// as the means of their points.
// Timed: all the iterations (the same part as the CUDA version's, input generation excluded).
// Usage: ./kmeans [N] [F] [K] [ITERS]
// The limit on K*F, the arguments, the host arrays and the inputs, a point's nearest centre, the host update of
// the centres and the checksum are kmeans.h's (shared with kmeans.cu).
#include <stdlib.h>

#include "kmeans.h"

// The index of the nearest centre of each point (the first one on a tie).
static void assign(const float *features, int n, int nf, int k, const float *centres, int *membership) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) membership[i] = kmeans_nearest(features, n, nf, k, centres, i);
}

int main(int argc, char **argv) {
  kmeans_params p;
  if (!kmeans_parse(argc, argv, &p)) return 1;
  kmeans_data data = kmeans_setup(&p);

  double t0 = bench_now_ms();
  for (int it = 0; it < p.iters; it++) {
    assign(data.features, p.n, p.nf, p.k, data.centres, data.membership);
    if (kmeans_update_centres(&p, &data) == 0) break;
  }
  double t1 = bench_now_ms();

  kmeans_report(t1 - t0, &p, &data);
  kmeans_free(&data);
  return 0;
}
