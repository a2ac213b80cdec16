// b.cu — second translation unit of the -rdc=true test data.
__device__ int twice(int x) { return 2 * x; }
__global__ void kB(int *a) { a[threadIdx.x] += twice(1); }
void runB(int *d) { kB<<<1, 16>>>(d); }
