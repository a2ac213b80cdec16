/*
 * cases.c — the benchmark's cases: for each kernel of bench/kernels/ (NAME.cu, its PTX, and NAME.cl
 * for PoCL), the launch shape, buffers and parameters, and its native version (native.c). Also the
 * host side every runner shares: filling inputs (a fixed xorshift32 sequence per buffer, so every run
 * and every implementation sees the same data), comparing outputs bit for bit, and the clocks.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "suite.h"

#define MiB (1u << 20)

/* Sizes: each case runs 10^7..10^8 thread-instructions on warpvm, so that seven repetitions of all
 * of them, on warpvm (one thread and all), C and PoCL, take a few minutes on a 2-core machine. */
const bs_case BS_CASES[] = {
    {"matmul", "256x256 fp32 matrix product, 16x16 tiles in shared memory", {16, 16, 1}, {16, 16, 1},
     {{256 * 256 * 4, 'f'}, {256 * 256 * 4, 'f'}, {256 * 256 * 4, 'o'}}, 3,
     {{'b', 0}, {'b', 1}, {'b', 2}, {'u', 256}}, 4, bs_native_matmul},
    {"reduce", "sum of 4M u32: grid-stride loop, warp shuffles, shared memory", {256, 1, 1}, {256, 1, 1},
     {{4 * 4 * MiB, 'u'}, {256 * 4, 'o'}}, 2, {{'b', 0}, {'b', 1}, {'u', 4 * MiB}}, 3, bs_native_reduce},
    {"scan", "inclusive prefix sums of 256-element blocks (1M u32), Hillis-Steele in shared memory",
     {4096, 1, 1}, {256, 1, 1}, {{4 * MiB, 'u'}, {4 * MiB, 'o'}}, 2, {{'b', 0}, {'b', 1}}, 2,
     bs_native_scan},
    {"histogram", "256-bin histogram of 16 MB, shared-memory atomics", {64, 1, 1}, {256, 1, 1},
     {{16 * MiB, 'u'}, {256 * 4, 'o'}}, 2, {{'b', 0}, {'b', 1}, {'u', 4 * MiB}}, 3, bs_native_histogram},
    {"transpose", "2048x2048 u32 transpose, 32x32 tiles in shared memory", {64, 64, 1}, {32, 8, 1},
     {{16 * MiB, 'u'}, {16 * MiB, 'o'}}, 2, {{'b', 0}, {'b', 1}, {'u', 2048}}, 3, bs_native_transpose},
    {"collatz", "Collatz steps of 1..98304: divergent branches and loop exits", {384, 1, 1}, {256, 1, 1},
     {{384 * 256 * 4, 'o'}}, 1, {{'b', 0}, {'u', 1}}, 2, bs_native_collatz},
    {"warp_reduce", "2M u32, each warp all-reducing sum and max: 10 shuffles per element", {64, 1, 1},
     {256, 1, 1}, {{8 * MiB, 'u'}, {64 * 256 * 4, 'o'}}, 2, {{'b', 0}, {'b', 1}, {'u', 2 * MiB}}, 3,
     bs_native_warp_reduce},
    {"async_copy", "4M u32 through double-buffered shared memory with cp.async", {128, 1, 1}, {256, 1, 1},
     {{16 * MiB, 'u'}, {16 * MiB, 'o'}}, 2, {{'b', 0}, {'b', 1}, {'u', 32}}, 3, bs_native_async_copy},
};
const uint32_t BS_NCASES = sizeof BS_CASES / sizeof BS_CASES[0];

static void fill(void *buf, size_t bytes, char kind, uint32_t seed) {
  uint32_t *w = buf, x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < bytes / 4; i++) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    if (kind == 'f') {
      float f = (float)(x >> 8) * 0x1p-23f - 1.0f; /* exact: 24 bits */
      memcpy(&w[i], &f, 4);
    } else {
      w[i] = x;
    }
  }
}

int bs_host_make(const bs_case *c, bs_host *h) {
  memset(h, 0, sizeof *h);
  for (uint32_t i = 0; i < c->nbufs; i++) {
    if (!(h->buf[i] = calloc(1, c->bufs[i].bytes))) return -1;
    if (c->bufs[i].fill != 'o') fill(h->buf[i], c->bufs[i].bytes, c->bufs[i].fill, i + 1);
  }
  return 0;
}

void bs_host_free(const bs_case *c, bs_host *h) {
  for (uint32_t i = 0; i < c->nbufs; i++) free(h->buf[i]), h->buf[i] = NULL;
}

void bs_host_clear_outputs(const bs_case *c, bs_host *h) {
  for (uint32_t i = 0; i < c->nbufs; i++)
    if (c->bufs[i].fill == 'o') memset(h->buf[i], 0, c->bufs[i].bytes);
}

void bs_host_args(const bs_case *c, const bs_host *h, bs_val *args) {
  for (uint32_t i = 0; i < c->nargs; i++) {
    if (c->args[i].kind == 'b') args[i].p = h->buf[c->args[i].v];
    else args[i].u = c->args[i].v;
  }
}

int bs_compare(const bs_case *c, void *const *want, void *const *got, char *msg, size_t msglen) {
  for (uint32_t i = 0; i < c->nbufs; i++) {
    if (c->bufs[i].fill != 'o' || !memcmp(want[i], got[i], c->bufs[i].bytes)) continue;
    const uint32_t *w = want[i], *g = got[i];
    size_t k = 0;
    while (w[k] == g[k]) k++;
    snprintf(msg, msglen, "buffer %u, word %zu: 0x%08x, expected 0x%08x", i, k, g[k], w[k]);
    return -1;
  }
  return 0;
}

static double seconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void bs_clock(bs_time *t) {
  t->wall = seconds(CLOCK_MONOTONIC);
  t->cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
}

bs_time bs_since(const bs_time *start) {
  bs_time now;
  bs_clock(&now);
  return (bs_time){now.wall - start->wall, now.cpu - start->cpu};
}
