// scan.cl - scan.cu in OpenCL C 1.2 for PoCL (bench/suite/pocl.c), line for line.
#define BLOCK 256
kernel void scan(global const uint *in, global uint *out) {
  local uint buf[2][BLOCK];
  uint t = get_local_id(0), i = get_group_id(0) * BLOCK + t;
  int cur = 0;
  buf[0][t] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint o = 1; o < BLOCK; o <<= 1) {
    uint v = buf[cur][t];
    if (t >= o) v += buf[cur][t - o];
    buf[1 - cur][t] = v;
    cur = 1 - cur;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[i] = buf[cur][t];
}
