// reduce.cl - reduce.cu in OpenCL C 1.2 for PoCL (bench/suite/pocl.c). OpenCL 1.2 has no shuffles:
// the warp steps become a tree in local memory with a barrier per step (the way OpenCL 1.2 code does it).
kernel void reduce(global const uint *in, global uint *out, uint n) {
  local uint part[1024];
  uint t = get_local_id(0), sum = 0;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) sum += in[i];
  part[t] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) out[get_group_id(0)] = part[0];
}
