// bfs.c — breadth-first search, level by level with boolean masks, OpenMP version (its CUDA twin is bfs.cu).
// A random directed graph in CSR form: N nodes, each with 1 .. 2*DEGREE-1 out-edges (DEGREE on average) to
// random nodes; the search starts at node 0 and finds each node's level (cost; -1 where unreached). Each level:
// a parallel for over the nodes takes each frontier node off the frontier and gives each of its neighbours not
// yet visited cost = cost[node] + 1 and marks it updating; a second parallel for moves the updating nodes to the
// frontier and visited sets and tells whether there is another level; repeated while there is.
// Timed: all the levels (the same part as the CUDA version's, input generation excluded).
// Usage: ./bfs [N] [DEGREE]
// The arguments, the host arrays (the graph and the search's start), a node's expansion and the checksum are
// bfs.h's (shared with bfs.cu).
#include <stdbool.h>
#include <stdlib.h>

#include "bfs.h"

int main(int argc, char **argv) {
  bfs_params p;
  if (!bfs_parse(argc, argv, &p)) return 1;
  bfs_data data = bfs_setup(&p);
  int n = data.n;
  int *row = data.row, *col = data.col, *cost = data.cost;
  bool *frontier = data.frontier, *updating = data.updating, *visited = data.visited;

  double t0 = bench_now_ms();
  int more;
  do {
    more = 0;
#pragma omp parallel for
    for (int v = 0; v < n; v++)
      if (frontier[v]) bfs_expand_node(v, row, col, frontier, updating, visited, cost);
#pragma omp parallel for reduction(| : more)
    for (int v = 0; v < n; v++) {
      if (!updating[v]) continue;
      frontier[v] = true;
      visited[v] = true;
      updating[v] = false;
      more = 1;
    }
  } while (more);
  double t1 = bench_now_ms();

  bfs_report(t1 - t0, cost, n);
  bfs_free(&data);
  return 0;
}
