// device_malloc.cu — the device heap: per-thread malloc/free, allocations that outlive their kernel (a pointer
// stored to global memory, read and freed by a second kernel), new/delete and new[]/delete[] of a struct with
// a constructor and destructor, a request larger than the heap returning NULL, and cudaDeviceSet/GetLimit of
// the heap size.
#include "check.h"

__device__ int live_objects;  // constructors add one, destructors take one away

struct Node {
  int value;
  double weight;
  __device__ Node() : value(7), weight(0.5) { atomicAdd(&live_objects, 1); }
  __device__ ~Node() { atomicSub(&live_objects, 1); }
};

// Each thread: malloc n ints, fill them, sum them, free them.
__global__ void scratch(int *sums, int *nulls) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, n = 8 + t % 24;
  int *p = (int *)malloc(n * sizeof(int));
  if (!p) {
    atomicAdd(nulls, 1);
    return;
  }
  for (int k = 0; k < n; k++) p[k] = t * k;
  int s = 0;
  for (int k = 0; k < n; k++) s += p[k];
  sums[t] = s;
  free(p);
}

// Allocations that outlive the kernel: thread t keeps a buffer of t+1 ints.
__global__ void make(int **table) {
  int t = threadIdx.x;
  int *p = (int *)malloc((t + 1) * sizeof(int));
  if (p)
    for (int k = 0; k <= t; k++) p[k] = 100 * t + k;
  table[t] = p;
}
__global__ void consume(int **table, int *out) {
  int t = threadIdx.x, s = -1;
  if (int *p = table[t]) {
    s = 0;
    for (int k = 0; k <= t; k++) s += p[k];
    free(p);
  }
  out[t] = s;
}

__global__ void objects(int *out) {
  int t = threadIdx.x;
  Node *one = new Node;
  Node *many = new Node[t + 2];
  int s = one->value;
  double w = one->weight;
  for (int k = 0; k < t + 2; k++) {
    many[k].value += k;
    s += many[k].value;
    w += many[k].weight;
  }
  out[t] = s + (int)(w * 2.0);
  __syncthreads();
  if (t == 0) out[64] = live_objects;  // after everyone's new, before anyone's delete
  __syncthreads();
  delete one;
  delete[] many;
}

__global__ void too_big(unsigned long long *result) {
  void *p = malloc((size_t)1 << 34);  // 16 GiB: more than any heap we set
  *result = p == nullptr;
  free(p);
}

int main() {
  begin();
  const size_t heap = (size_t)32 << 20;
  CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap));
  size_t got = 0;
  CK(cudaDeviceGetLimit(&got, cudaLimitMallocHeapSize));
  check(got >= heap, "heap limit >= 32 MiB after cudaDeviceSetLimit");

  int *sums, *nulls, h[256] = {}, hn = -1;
  CK(cudaMalloc(&sums, sizeof h));
  CK(cudaMalloc(&nulls, sizeof(int)));
  CK(cudaMemset(nulls, 0, sizeof(int)));
  scratch<<<4, 64>>>(sums, nulls);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&hn, nulls, sizeof hn, cudaMemcpyDeviceToHost));
  check(hn == 0, "no per-thread malloc returned NULL");
  check_all(h, 256, [](size_t t) { int n = 8 + t % 24; return (int)(t * (n - 1) * n / 2); }, "per-thread malloc/free");

  int **table, out[65] = {};
  CK(cudaMalloc(&table, 64 * sizeof(int *)));
  make<<<1, 64>>>(table);
  CK(cudaDeviceSynchronize());
  consume<<<1, 64>>>(table, sums);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(out, sums, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  check_all(out, 64, [](size_t t) { return (int)(100 * t * (t + 1) + t * (t + 1) / 2); },
            "pointers from malloc in one kernel, read and freed in another");

  int *dout;
  CK(cudaMalloc(&dout, sizeof out));
  objects<<<1, 64>>>(dout);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
  check_all(out, 64, [](size_t t) {
      int n = t + 2;
      return (int)(7 + 7 * n + n * (n - 1) / 2 + (0.5 + 0.5 * n) * 2.0);
    }, "new Node and new Node[t + 2]: constructors ran");
  check(out[64] == 64 + 64 * 65 / 2 + 64, "live objects after new: 64 + sum(t + 2)");
  int live = -1;
  CK(cudaMemcpyFromSymbol(&live, live_objects, sizeof live));
  check(live == 0, "every destructor ran after delete and delete[]");

  unsigned long long *r, hr = 0;
  CK(cudaMalloc(&r, sizeof hr));
  too_big<<<1, 1>>>(r);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(&hr, r, sizeof hr, cudaMemcpyDeviceToHost));
  check(hr == 1, "malloc(16 GiB) in a kernel returns NULL");

  CK(cudaFree(sums));
  CK(cudaFree(nulls));
  CK(cudaFree(table));
  CK(cudaFree(dout));
  CK(cudaFree(r));
  return finish("device_malloc");
}
