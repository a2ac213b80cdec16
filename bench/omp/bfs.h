// bench/omp/bfs.h — what bfs.c (OpenMP) and bfs.cu (CUDA) share: the arguments, the host side of the search (the
// graph, fixed seed, and the search's start at node 0), a frontier node's expansion (called from bfs.c's loop and
// bfs.cu's kernel) and the checksum line. Each version keeps only how it runs the levels and their timing. Plain C,
// for gcc (C17) and nvcc (C++).
#pragma once
#include <stdbool.h>
#include <stdlib.h>

#include "common.h"

typedef struct {
  int n, degree;  // nodes, average out-degree
} bfs_params;

// Usage: bfs [N] [DEGREE] (default 3000000 6). Returns 0 after printing the usage where the arguments are bad.
static inline int bfs_parse(int argc, char **argv, bfs_params *p) {
  p->n = argc > 1 ? atoi(argv[1]) : 3000000;
  p->degree = argc > 2 ? atoi(argv[2]) : 6;
  if (p->n < 1 || p->degree < 1 || (double)p->n * (2 * p->degree - 1) > 2e9) {
    fprintf(stderr, "usage: %s [N] [DEGREE]\n", argv[0]);
    return 0;
  }
  return 1;
}

// The host side of a search, the same in both versions: the graph in CSR form (node v's out-edges go to
// col[row[v]] .. col[row[v+1]-1]) and the search's state, each node's masks and cost.
typedef struct {
  int n, m;                             // nodes, edges
  int *row, *col;                       // n + 1 and m ints
  bool *frontier, *updating, *visited;  // n each
  int *cost;                            // n: each node's level, -1 where unreached
} bfs_data;

// Allocates the host side and makes the inputs: the graph, each node with 1 .. 2*DEGREE-1 out-edges to random nodes,
// and the search's start at node 0 (the frontier and visited, with cost 0).
static inline bfs_data bfs_setup(const bfs_params *p) {
  bfs_data b;
  int n = b.n = p->n;
  b.row = (int *)malloc((size_t)(n + 1) * sizeof(int));
  bench_lcg g = {777};
  b.row[0] = 0;
  for (int v = 0; v < n; v++) b.row[v + 1] = b.row[v] + 1 + (int)(bench_u32(&g) % (uint32_t)(2 * p->degree - 1));
  int m = b.m = b.row[n];
  b.col = (int *)malloc((size_t)m * sizeof(int));
  for (int e = 0; e < m; e++) b.col[e] = (int)(bench_u32(&g) % (uint32_t)n);
  b.frontier = (bool *)malloc((size_t)n * sizeof(bool));
  b.updating = (bool *)malloc((size_t)n * sizeof(bool));
  b.visited = (bool *)malloc((size_t)n * sizeof(bool));
  b.cost = (int *)malloc((size_t)n * sizeof(int));
  for (int v = 0; v < n; v++) {
    b.frontier[v] = b.updating[v] = b.visited[v] = false;
    b.cost[v] = -1;
  }
  b.frontier[0] = b.visited[0] = true;
  b.cost[0] = 0;
  return b;
}

static inline void bfs_free(bfs_data *b) {
  free(b->row);
  free(b->col);
  free(b->frontier);
  free(b->updating);
  free(b->visited);
  free(b->cost);
}

// A level's expansion at frontier node v: takes v off the frontier and gives each of its neighbours not yet visited
// cost[v] + 1, marking it updating.
static inline BENCH_HD void bfs_expand_node(int v, const int *row, const int *col, bool *frontier, bool *updating,
                                            const bool *visited, int *cost) {
  frontier[v] = false;
  for (int e = row[v]; e < row[v + 1]; e++) {
    int u = col[e];
    if (!visited[u]) {
      cost[u] = cost[v] + 1;
      updating[u] = true;
    }
  }
}

// The result line; checksum: the sum of the costs as double, in index order.
static inline void bfs_report(double ms, const int *cost, int n) {
  bench_report("bfs", ms, bench_sum_ints(cost, (size_t)n));
}
