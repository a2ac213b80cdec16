// bench/omp/common.h — what all the programs of the OpenMP comparison share (bench/omp/README.md): the fixed-seed
// random numbers, the host timer, the checksum sums and the one line of results that bench/omp/run.sh reads, the
// BENCH_HD marker of the functions both versions call per element, and for the CUDA versions the error check CHECK.
// What only the two versions of one program share (their arguments, inputs, constants, per-element arithmetic and
// checksum) is in that program's NAME.h.
//
// Included by NAME.cu (nvcc, C++) and by NAME.c (gcc -fopenmp, C17), so it is plain C.
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

// Knuth's MMIX LCG; bench_u32 is the high half of the state. The same seed gives both versions the same inputs.
typedef struct {
  uint64_t s;
} bench_lcg;
static inline uint32_t bench_u32(bench_lcg *g) {
  g->s = g->s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(g->s >> 32);
}
// Uniform in [0, 1): a multiple of 2^-24, exact in float and double.
static inline float bench_unit(bench_lcg *g) { return (float)(bench_u32(g) >> 8) * (1.0f / 16777216.0f); }

// A random diagonally dominant N x N float matrix (row-major): off-diagonal entries in [-0.5, 0.5), diagonal
// N + [0, 1), so that elimination without pivoting is stable (gaussian, lud).
static inline void bench_diag_dominant(float *a, int n, bench_lcg *g) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) a[(size_t)i * n + j] = bench_unit(g) - 0.5f;
  for (int i = 0; i < n; i++) a[(size_t)i * n + i] = (float)n + bench_unit(g);
}

// Wall-clock milliseconds (CLOCK_MONOTONIC), for the timed part of a program.
static inline double bench_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

// The line run.sh reads: the timed part's milliseconds and a checksum of the results (a double sum over them in
// index order, computed on the host by the same code in both versions), which must agree between the two
// versions to the tolerance bench/omp/programs.txt gives.
static inline void bench_report(const char *name, double ms, double checksum) {
  printf("%s time_ms=%.3f checksum=%.17g\n", name, ms, checksum);
}

// The checksums' sums: the values as double, added in index order.
static inline double bench_sum_floats(const float *v, size_t n) {
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) sum += v[i];
  return sum;
}
static inline double bench_sum_ints(const int *v, size_t n) {
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) sum += v[i];
  return sum;
}

// BENCH_HD marks a function of a NAME.h that both versions call per element, the OpenMP version from its loops and
// the CUDA version from its kernels (__host__ __device__ under nvcc).
#ifdef __CUDACC__
#include <cuda_runtime.h>

#define BENCH_HD __host__ __device__

// CHECK(call): a CUDA runtime call that must succeed; if it returns an error, prints "FILE:LINE: call: error
// string" to stderr and exits with status 1.
#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t err_ = (call);                                                                 \
    if (err_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)
#else
#define BENCH_HD
#endif
