// bfs.cu — breadth-first search, level by level with boolean masks, CUDA version (its OpenMP twin is bfs.c).
// A random directed graph in CSR form: N nodes, each with 1 .. 2*DEGREE-1 out-edges (DEGREE on average) to
// random nodes; the search starts at node 0 and finds each node's level (cost; -1 where unreached). Each level:
// the kernel `expand` (one thread per node, blocks of 256 threads) takes each frontier node off the frontier and
// gives each of its neighbours not yet visited cost = cost[node] + 1 and marks it updating; the kernel `advance`
// moves the updating nodes to the frontier and visited sets and raises a device flag; the host repeats the two
// while the flag comes back raised.
// Timed: from the first host-to-device copy to the copy of the costs back. Usage: ./bfs [N] [DEGREE]
// The arguments, the host arrays (the graph and the search's start), a node's expansion and the checksum are
// bfs.h's (shared with bfs.c).
#include <cstdlib>

#include "bfs.h"

__global__ void expand(const int *row, const int *col, int n, bool *frontier, bool *updating, const bool *visited,
                       int *cost) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && frontier[v]) bfs_expand_node(v, row, col, frontier, updating, visited, cost);
}

__global__ void advance(int n, bool *frontier, bool *updating, bool *visited, int *more) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !updating[v]) return;
  frontier[v] = true;
  visited[v] = true;
  updating[v] = false;
  *more = 1;
}

int main(int argc, char **argv) {
  bfs_params p;
  if (!bfs_parse(argc, argv, &p)) return 1;
  bfs_data data = bfs_setup(&p);
  int n = data.n, m = data.m;

  CHECK(cudaFree(0));
  int *d_row, *d_col, *d_cost, *d_more;
  bool *d_frontier, *d_updating, *d_visited;
  CHECK(cudaMalloc(&d_row, (size_t)(n + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_col, (size_t)m * sizeof(int)));
  CHECK(cudaMalloc(&d_frontier, (size_t)n * sizeof(bool)));
  CHECK(cudaMalloc(&d_updating, (size_t)n * sizeof(bool)));
  CHECK(cudaMalloc(&d_visited, (size_t)n * sizeof(bool)));
  CHECK(cudaMalloc(&d_cost, (size_t)n * sizeof(int)));
  CHECK(cudaMalloc(&d_more, sizeof(int)));
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;

  double t0 = bench_now_ms();
  CHECK(cudaMemcpy(d_row, data.row, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_col, data.col, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_frontier, data.frontier, (size_t)n * sizeof(bool), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_updating, data.updating, (size_t)n * sizeof(bool), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_visited, data.visited, (size_t)n * sizeof(bool), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_cost, data.cost, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
  int more;
  do {
    more = 0;
    CHECK(cudaMemcpy(d_more, &more, sizeof(int), cudaMemcpyHostToDevice));
    expand<<<blocks, threads>>>(d_row, d_col, n, d_frontier, d_updating, d_visited, d_cost);
    CHECK(cudaGetLastError());
    advance<<<blocks, threads>>>(n, d_frontier, d_updating, d_visited, d_more);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&more, d_more, sizeof(int), cudaMemcpyDeviceToHost));
  } while (more);
  CHECK(cudaMemcpy(data.cost, d_cost, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
  double t1 = bench_now_ms();

  bfs_report(t1 - t0, data.cost, n);

  CHECK(cudaFree(d_row));
  CHECK(cudaFree(d_col));
  CHECK(cudaFree(d_frontier));
  CHECK(cudaFree(d_updating));
  CHECK(cudaFree(d_visited));
  CHECK(cudaFree(d_cost));
  CHECK(cudaFree(d_more));
  bfs_free(&data);
  return 0;
}
