// warp_reduce.cl - warp_reduce.cu in OpenCL C 1.2 for PoCL (bench/suite/pocl.c). OpenCL 1.2 has no
// shuffles: each butterfly step exchanges through local memory between two barriers, partner t ^ o
// inside the same group of 32 work-items.
kernel void warp_reduce(global const uint *in, global uint *out, uint n) {
  local uint xs[256], xm[256];
  uint t = get_local_id(0), acc = 0;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    uint s = in[i], m = s;
    for (uint o = 16; o > 0; o >>= 1) {
      xs[t] = s, xm[t] = m;
      barrier(CLK_LOCAL_MEM_FENCE);
      s += xs[t ^ o];
      m = max(m, xm[t ^ o]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc += s ^ m;
  }
  out[get_global_id(0)] = acc;
}
