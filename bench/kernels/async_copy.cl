// async_copy.cl - async_copy.cu in OpenCL C 1.2 for PoCL (bench/suite/pocl.c): the same double buffer
// with async_work_group_copy and wait_group_events (OpenCL's asynchronous copy to local memory).
#define TILE 1024
kernel void async_copy(global const uint4 *in, global uint4 *out, uint tiles) {
  local uint4 buf[2][TILE / 4];
  uint t = get_local_id(0);
  size_t base = (size_t)get_group_id(0) * tiles * (TILE / 4);
  event_t ev[2];
  ev[0] = async_work_group_copy(buf[0], in + base, TILE / 4, 0);
  for (uint k = 0; k < tiles; k++) {
    if (k + 1 < tiles) ev[(k + 1) & 1] = async_work_group_copy(buf[(k + 1) & 1], in + base + (k + 1) * (TILE / 4), TILE / 4, 0);
    wait_group_events(1, &ev[k & 1]);
    uint4 v = buf[k & 1][TILE / 4 - 1 - t];
    out[base + k * (TILE / 4) + t] = (uint4)(v.w + k, v.z + k, v.y + k, v.x + k);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
