// transpose.cl - transpose.cu in OpenCL C 1.2 for PoCL (bench/suite/pocl.c), line for line.
#define TILE 32
#define ROWS 8
kernel void transpose(global const uint *in, global uint *out, uint n) {
  local uint tile[TILE][TILE + 1];
  int lx = get_local_id(0), ly = get_local_id(1);
  int x = get_group_id(0) * TILE + lx, y = get_group_id(1) * TILE + ly;
  for (int j = 0; j < TILE; j += ROWS) tile[ly + j][lx] = in[(y + j) * n + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = get_group_id(1) * TILE + lx;
  y = get_group_id(0) * TILE + ly;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * n + x] = tile[lx][ly + j];
}
