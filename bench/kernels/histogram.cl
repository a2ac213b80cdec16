// histogram.cl - histogram.cu in OpenCL C 1.2 for PoCL (bench/suite/pocl.c), line for line (atomic_inc
// on local memory, atomic_add on the global bins).
kernel void histogram(global const uint *in, global uint *bins, uint n) {
  local uint h[256];
  for (uint b = get_local_id(0); b < 256; b += get_local_size(0)) h[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    uint v = in[i];
    atomic_inc(&h[v & 255]);
    atomic_inc(&h[(v >> 8) & 255]);
    atomic_inc(&h[(v >> 16) & 255]);
    atomic_inc(&h[v >> 24]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = get_local_id(0); b < 256; b += get_local_size(0)) atomic_add(&bins[b], h[b]);
}
