// bench/omp/kmeans.h — what kmeans.c (OpenMP) and kmeans.cu (CUDA) share: the limit on K * F, the arguments, the
// host side of a clustering and its inputs (fixed seed: the points and the starting centres), a point's nearest
// centre (called from kmeans.c's loop and kmeans.cu's kernel), the host part of an iteration (the new centres) and
// the checksum line. Each version keeps only how it runs the assignment over the points (and where its centres
// live) and its timing. Plain C, for gcc (C17) and nvcc (C++).
#pragma once
#include <float.h>
#include <stdlib.h>

#include "common.h"

#define MAX_CENTRE_FLOATS 4096  // K * F at most: the CUDA version's centres fill 16 KiB of constant memory at most

typedef struct {
  int n, nf, k, iters;  // points, features, clusters, most iterations
} kmeans_params;

// Usage: kmeans [N] [F] [K] [ITERS] (default 500000 16 8 10). Returns 0 after printing the usage where the
// arguments are bad.
static inline int kmeans_parse(int argc, char **argv, kmeans_params *p) {
  p->n = argc > 1 ? atoi(argv[1]) : 500000;
  p->nf = argc > 2 ? atoi(argv[2]) : 16;
  p->k = argc > 3 ? atoi(argv[3]) : 8;
  p->iters = argc > 4 ? atoi(argv[4]) : 10;
  if (p->n < p->k || p->nf < 1 || p->k < 1 || p->k * p->nf > MAX_CENTRE_FLOATS || p->iters < 1) {
    fprintf(stderr, "usage: %s [N] [F] [K] [ITERS] (N >= K, K*F <= %d)\n", argv[0], MAX_CENTRE_FLOATS);
    return 0;
  }
  return 1;
}

// The host side of a clustering, the same in both versions.
typedef struct {
  float *features;                   // N * F: point i, feature f at f*N + i
  float *centres;                    // K * F: centre c, feature f at c*F + f
  int *membership, *old_membership;  // N each: each point's cluster, now and at the last update (-1: none yet)
  int *count;                        // K: each cluster's number of points
  double *sums;                      // K * F: the update's scratch
} kmeans_data;

// Allocates the host side and makes the inputs: K blobs around random centres, each point a random blob's centre
// plus a spread-out offset; the first K points start as the centres; no point has a cluster yet.
static inline kmeans_data kmeans_setup(const kmeans_params *p) {
  int n = p->n, nf = p->nf, k = p->k;
  kmeans_data d;
  d.features = (float *)malloc((size_t)n * nf * sizeof(float));
  d.centres = (float *)malloc((size_t)k * nf * sizeof(float));
  d.membership = (int *)malloc((size_t)n * sizeof(int));
  d.old_membership = (int *)malloc((size_t)n * sizeof(int));
  d.count = (int *)malloc((size_t)k * sizeof(int));
  d.sums = (double *)malloc((size_t)k * nf * sizeof(double));

  float blobs[MAX_CENTRE_FLOATS];
  bench_lcg g = {12345};
  for (int j = 0; j < k * nf; j++) blobs[j] = bench_unit(&g);
  for (int i = 0; i < n; i++) {
    int b = (int)(bench_u32(&g) % (uint32_t)k);
    for (int f = 0; f < nf; f++)
      d.features[f * n + i] = blobs[b * nf + f] + 0.5f * (bench_unit(&g) + bench_unit(&g) - 1.0f);
  }
  for (int c = 0; c < k; c++)
    for (int f = 0; f < nf; f++) d.centres[c * nf + f] = d.features[f * n + c];
  for (int i = 0; i < n; i++) d.old_membership[i] = -1;
  return d;
}

static inline void kmeans_free(kmeans_data *d) {
  free(d->features);
  free(d->centres);
  free(d->membership);
  free(d->old_membership);
  free(d->count);
  free(d->sums);
}

// The index of the centre nearest to point i by squared Euclidean distance (the first one on a tie); centres holds
// centre c, feature f at c*F + f.
static inline BENCH_HD int kmeans_nearest(const float *features, int n, int nf, int k, const float *centres, int i) {
  float best = FLT_MAX;
  int best_c = 0;
  for (int c = 0; c < k; c++) {
    float dist = 0.0f;
    for (int f = 0; f < nf; f++) {
      float d = features[f * n + i] - centres[c * nf + f];
      dist += d * d;
    }
    if (dist < best) {
      best = dist;
      best_c = c;
    }
  }
  return best_c;
}

// The host part of an iteration, from the memberships: the new centres are the means of their points (a centre
// with no point stays where it is) and count the clusters' sizes; returns how many points changed cluster since the
// last call.
static inline int kmeans_update_centres(const kmeans_params *p, kmeans_data *d) {
  int n = p->n, nf = p->nf, k = p->k;
  const float *features = d->features;
  const int *membership = d->membership;
  int *old_membership = d->old_membership, *count = d->count;
  float *centres = d->centres;
  double *sums = d->sums;
  int changed = 0;
  for (int c = 0; c < k; c++) count[c] = 0;
  for (int j = 0; j < k * nf; j++) sums[j] = 0.0;
  for (int i = 0; i < n; i++) {
    if (membership[i] != old_membership[i]) {
      changed++;
      old_membership[i] = membership[i];
    }
    count[membership[i]]++;
  }
  for (int f = 0; f < nf; f++)
    for (int i = 0; i < n; i++) sums[membership[i] * nf + f] += features[f * n + i];
  for (int c = 0; c < k; c++)
    if (count[c] > 0)
      for (int f = 0; f < nf; f++) centres[c * nf + f] = (float)(sums[c * nf + f] / count[c]);
  return changed;
}

// The result line; checksum: the sum of the final centres as double, in index order, plus each cluster's number
// of points times (its index + 1).
static inline void kmeans_report(double ms, const kmeans_params *p, const kmeans_data *d) {
  double checksum = bench_sum_floats(d->centres, (size_t)p->k * p->nf);
  for (int c = 0; c < p->k; c++) checksum += (double)d->count[c] * (c + 1);
  bench_report("kmeans", ms, checksum);
}
