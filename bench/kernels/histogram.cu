// histogram.cu - the benchmark's byte histogram (bench/suite/): 256 bins in shared memory, each thread
// takes the 4 bytes of each u32 of a grid-stride loop and counts them with shared atomicAdd, then each
// block adds its bins to the global bins with atomicAdd. `bins` must be zero before the launch.
// PTX: nvcc -arch=sm_80 -ptx -O3 histogram.cu -o histogram.ptx
extern "C" __global__ void histogram(const unsigned *in, unsigned *bins, unsigned n) {
  __shared__ unsigned h[256];
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) h[b] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned v = in[i];
    atomicAdd(&h[v & 255], 1u);
    atomicAdd(&h[(v >> 8) & 255], 1u);
    atomicAdd(&h[(v >> 16) & 255], 1u);
    atomicAdd(&h[v >> 24], 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], h[b]);
}
