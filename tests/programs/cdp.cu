// cdp.cu — dynamic parallelism (CDP2, -rdc=true -lcudadevrt): kernels launching kernels, as the CUDA 12+
// programming guide defines it. A recursive tree sum (depth >= 3) and a quicksort whose partitions launch their
// halves into device-created streams; launches into the block's NULL stream running in order, with device printf
// from each child (one child at a time, so the order is the GPU's); tail launches running after the whole parent
// grid and its other work (a finishing kernel reading every block's partial sum, a tail-launch chain);
// cudaStreamFireAndForget; an event recorded on the device ordering two streams; cudaGetParameterBuffer +
// cudaLaunchDevice called directly; every thread of several blocks launching a child; device-side
// cudaGetLastError/PeekAtLastError, cudaGetDevice, cudaDeviceGetAttribute, cudaMalloc/cudaFree,
// cudaMemcpyAsync/cudaMemsetAsync (ordered with a launch in the same stream), cudaGetErrorName/String; launches
// with a bad configuration (the code each gets is printed as observed); a fault in a grandchild reaching the host.
#include "check.h"

__device__ int g_stamp;          // order stamps: atomicAdd(&g_stamp, 1)
__device__ int g_level_grids[8]; // tree sum: grids per level
__device__ int g_max_depth;      // quicksort: deepest level

// ---- a tree sum: each grid halves its range until 64 elements are left, which one block sums ----
__global__ void tree_sum(const int *in, int n, unsigned long long *total, int level) {
  if (threadIdx.x == 0) atomicAdd(&g_level_grids[level < 7 ? level : 7], 1);
  if (n <= 64) {
    if (threadIdx.x < n) atomicAdd(total, (unsigned long long)in[threadIdx.x]);
    return;
  }
  if (threadIdx.x == 0) {
    int half = n / 2;
    tree_sum<<<1, 64>>>(in, half, total, level + 1);
    tree_sum<<<1, 64>>>(in + half, n - half, total, level + 1);
  }
}

// ---- quicksort: one thread partitions, the halves go to two streams made on the device ----
__device__ void selection_sort(int *a, int lo, int hi) {
  for (int i = lo; i <= hi; i++) {
    int m = i;
    for (int j = i + 1; j <= hi; j++)
      if (a[j] < a[m]) m = j;
    int t = a[i];
    a[i] = a[m];
    a[m] = t;
  }
}

__global__ void quicksort(int *a, int lo, int hi, int depth) {
  atomicMax(&g_max_depth, depth);
  if (hi - lo < 16 || depth >= 12) {
    selection_sort(a, lo, hi);
    return;
  }
  int pivot = a[(lo + hi) / 2], i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) i++;
    while (a[j] > pivot) j--;
    if (i <= j) {
      int t = a[i];
      a[i++] = a[j];
      a[j--] = t;
    }
  }
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  if (lo < j) quicksort<<<1, 1, 0, s1>>>(a, lo, j, depth + 1);
  if (i < hi) quicksort<<<1, 1, 0, s2>>>(a, i, hi, depth + 1);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

// ---- printf order: the NULL stream of a block runs its grids one after another ----
__global__ void grandchild(int id) { printf("  grandchild of child %d\n", id); }

__global__ void child_print(int id) {
  printf(" child %d\n", id);
  if (id == 1) grandchild<<<1, 1>>>(id);
}

__global__ void tail_print() { printf(" tail launch\n"); }

__global__ void parent_print() {
  printf("parent\n");
  for (int i = 1; i <= 3; i++) child_print<<<1, 1>>>(i);
  tail_print<<<1, 1, 0, cudaStreamTailLaunch>>>();
}

// ---- tail launches: after the whole parent grid and everything else it launched ----
__global__ void stamp_kernel(int *slot, int *value, int v) {
  *slot = atomicAdd(&g_stamp, 1);
  *value = v;
}

__global__ void tail_check(int *out, const int *partial, int nblocks, const int *a_value, const int *f_value) {
  int sum = 0;
  for (int b = 0; b < nblocks; b++) sum += partial[b];
  out[0] = sum;
  out[1] = atomicAdd(&g_stamp, 1);
  out[2] = *a_value; // the NULL-stream child's result
  out[3] = *f_value; // the fire-and-forget child's result
}

// Every block writes its partial sum; block 0 launches a child (NULL stream), a fire-and-forget child and the
// tail launch, which must see all of them.
__global__ void tail_parent(int *partial, int *out, int *stamps, int *values) {
  __shared__ int s;
  if (threadIdx.x == 0) s = 0;
  __syncthreads();
  atomicAdd(&s, (int)(blockIdx.x * blockDim.x + threadIdx.x));
  __syncthreads();
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s;
    if (blockIdx.x == 0) {
      stamp_kernel<<<1, 1>>>(&stamps[0], &values[0], 11);
      stamp_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(&stamps[1], &values[1], 22);
      tail_check<<<1, 1, 0, cudaStreamTailLaunch>>>(out, partial, gridDim.x, &values[0], &values[1]);
    }
  }
}

// A chain of tail launches: each grid tail-launches the next.
__global__ void tail_chain(int *count, int left) {
  atomicAdd(count, 1);
  if (left > 1) tail_chain<<<1, 1, 0, cudaStreamTailLaunch>>>(count, left - 1);
}

// ---- fire-and-forget and every thread launching ----
__global__ void write_one(int *out, int i, int v) { out[i] = v; }

__global__ void launch_per_thread(int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  write_one<<<1, 1, 0, (i & 1) ? cudaStreamFireAndForget : 0>>>(out, i, 3 * i + 1);
}

// ---- an event recorded in one device stream, waited for in another ----
__global__ void produce(int *p) {
  if (threadIdx.x == 0) p[0] = 1234;
}
__global__ void consume(const int *p, int *q) { q[0] = p[0] + 1; }

__global__ void event_parent(int *p, int *q, int *errs) {
  cudaStream_t s1, s2;
  cudaEvent_t e;
  errs[0] = cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  errs[1] = cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  errs[2] = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  produce<<<1, 32, 0, s1>>>(p);
  errs[3] = cudaEventRecord(e, s1);
  errs[4] = cudaStreamWaitEvent(s2, e, 0);
  consume<<<1, 1, 0, s2>>>(p, q);
  errs[5] = cudaEventDestroy(e);
  errs[6] = cudaStreamDestroy(s1);
  errs[7] = cudaStreamDestroy(s2);
}

// ---- parent memory visibility, cudaGetParameterBuffer + cudaLaunchDevice ----
__global__ void read_back(const int *src, int *dst, int n) {
  int i = threadIdx.x;
  if (i < n) dst[i] = src[i] * 2;
}

__global__ void visibility_parent(int *src, int *dst, int n, int *err) {
  for (int i = 0; i < n; i++) src[i] = 100 + i; // written before the launch: the child sees them
  read_back<<<1, 64>>>(src, dst, n);
  struct Args {
    const int *src;
    int *dst;
    int n;
  };
  void *buf = cudaGetParameterBuffer(8, sizeof(Args));
  if (buf) {
    Args a = {src, dst + 64, n};
    memcpy(buf, &a, sizeof a);
    err[0] = cudaLaunchDevice((void *)read_back, buf, dim3(1), dim3(64), 0, 0);
  } else {
    err[0] = -1;
  }
}

// ---- the device runtime's other calls ----
__global__ void nop_kernel() {}

__global__ void runtime_calls(int *out) {
  out[0] = cudaGetLastError();
  int dev = -1, v = 0, w = 0;
  out[1] = cudaGetDevice(&dev);
  out[2] = dev;
  out[3] = cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0);
  out[4] = v;
  out[5] = cudaDeviceGetAttribute(&w, cudaDevAttrWarpSize, 0);
  out[6] = w;
  int *m = nullptr;
  out[7] = cudaMalloc((void **)&m, 64 * sizeof(int));
  if (m) {
    for (int i = 0; i < 64; i++) m[i] = i;
    int s = 0;
    for (int i = 0; i < 64; i++) s += m[i];
    out[8] = s;
  }
  out[9] = cudaFree(m);
  void *huge = nullptr;
  out[10] = cudaMalloc(&huge, (size_t)1 << 40); // far beyond the device heap
  out[11] = huge == nullptr;
  out[12] = cudaGetLastError(); // the failed cudaMalloc's
  out[13] = cudaGetLastError(); // cleared
  // bad launches: a block of 2048 threads, a zero grid; the error stays until read
  nop_kernel<<<1, 2048>>>();
  out[14] = cudaPeekAtLastError();
  out[15] = cudaPeekAtLastError();
  out[16] = cudaGetLastError();
  out[17] = cudaGetLastError();
  nop_kernel<<<0, 32>>>();
  out[18] = cudaGetLastError();
  nop_kernel<<<1, 32>>>();
  out[19] = cudaGetLastError(); // a good launch after them
  cudaStream_t s;
  out[20] = cudaStreamCreateWithFlags(&s, 0); // device streams must be non-blocking
  out[21] = cudaGetLastError();
  cudaEvent_t e;
  out[22] = cudaEventCreateWithFlags(&e, cudaEventDefault); // device events must not time
  out[23] = cudaGetLastError();
}

// ---- device-side cudaMemcpyAsync / cudaMemsetAsync, ordered with a launch in the same NULL stream ----
__global__ void copy_parent(const int *a, int *b, int *c, int *err) {
  err[0] = cudaMemcpyAsync(b, a, 64 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
  err[1] = cudaMemsetAsync(c, 1, 64 * sizeof(int), 0);
  read_back<<<1, 64>>>(b, c + 64, 64); // after the copy: the same stream
  err[2] = cudaMemcpyAsync(b, a, sizeof(int), cudaMemcpyHostToDevice, 0);
  err[3] = cudaGetLastError();
  err[4] = cudaMemcpyAsync(b, a, 0, cudaMemcpyDeviceToDevice, 0);
}

// ---- error names and strings in device code ----
__global__ void device_texts() {
  printf("device: %s: %s\n", cudaGetErrorName(cudaErrorInvalidValue), cudaGetErrorString(cudaErrorInvalidValue));
  printf("device: %s: %s\n", cudaGetErrorName(cudaErrorLaunchMaxDepthExceeded),
         cudaGetErrorString(cudaErrorLaunchMaxDepthExceeded));
  printf("device: %s: %s\n", cudaGetErrorName((cudaError_t)12345), cudaGetErrorString((cudaError_t)12345));
}

// ---- a fault in a grandchild ----
__global__ void bad_store(int *p) { p[0] = 1; }
__global__ void fault_child(int *p) { bad_store<<<1, 1>>>(p); }
__global__ void fault_parent(int *p) { fault_child<<<1, 1>>>(p); }

static const char *name(int e) { return cudaGetErrorName((cudaError_t)e); }

int main() {
  begin();

  // tree sum of 4096 values: 1, 2, 4, ... 64 grids on levels 0..6
  {
    const int n = 4096;
    int *h = new int[n];
    unsigned long long want = 0;
    for (int i = 0; i < n; i++) want += (unsigned long long)(h[i] = (i * 7919) % 1000);
    int *d;
    unsigned long long *total;
    CK(cudaMalloc(&d, n * sizeof(int)));
    CK(cudaMalloc(&total, sizeof *total));
    CK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(total, 0, sizeof *total));
    tree_sum<<<1, 64>>>(d, n, total, 0);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned long long got = 0;
    int levels[8];
    CK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
    CK(cudaMemcpyFromSymbol(levels, g_level_grids, sizeof levels));
    check(got == want, "tree sum of %d values = %llu (got %llu)", n, want, got);
    bool ok = true;
    for (int l = 0; l < 7; l++) ok &= levels[l] == 1 << l;
    check(ok && levels[7] == 0, "tree sum: 1, 2, 4, ..., 64 grids on levels 0..6 (%d %d %d %d %d %d %d)", levels[0],
          levels[1], levels[2], levels[3], levels[4], levels[5], levels[6]);
    cudaFree(d);
    cudaFree(total);
    delete[] h;
  }

  // quicksort of 3000 values with device-created streams
  {
    const int n = 3000;
    int *h = new int[n];
    unsigned s = 12345;
    for (int i = 0; i < n; i++) {
      s = s * 1103515245u + 12345u;
      h[i] = (int)((s >> 8) % 100000);
    }
    long long sum = 0;
    for (int i = 0; i < n; i++) sum += h[i];
    int *d;
    CK(cudaMalloc(&d, n * sizeof(int)));
    CK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
    quicksort<<<1, 1>>>(d, 0, n - 1, 0);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    bool sorted = true;
    long long sum2 = 0;
    for (int i = 0; i < n; i++) {
      sum2 += h[i];
      if (i && h[i - 1] > h[i]) sorted = false;
    }
    check(sorted && sum2 == sum, "quicksort of %d values: sorted, same sum", n);
    int depth = 0;
    CK(cudaMemcpyFromSymbol(&depth, g_max_depth, sizeof depth));
    check(depth >= 3, "quicksort recursed at least 3 levels deep");
    cudaFree(d);
    delete[] h;
  }

  // printf from a parent, its children in the NULL stream (one grandchild), then the tail launch
  parent_print<<<1, 1>>>();
  CK(cudaDeviceSynchronize());

  // tail launch after the parent grid (4 blocks), a NULL-stream child and a fire-and-forget child
  {
    int *partial, *out, *stamps, *values;
    CK(cudaMalloc(&partial, 4 * sizeof(int)));
    CK(cudaMalloc(&out, 4 * sizeof(int)));
    CK(cudaMalloc(&stamps, 2 * sizeof(int)));
    CK(cudaMalloc(&values, 2 * sizeof(int)));
    CK(cudaMemset(values, 0, 2 * sizeof(int)));
    int zero = 0;
    CK(cudaMemcpyToSymbol(g_stamp, &zero, sizeof zero));
    tail_parent<<<4, 64>>>(partial, out, stamps, values);
    CK(cudaDeviceSynchronize());
    int o[4], st[2];
    CK(cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(st, stamps, sizeof st, cudaMemcpyDeviceToHost));
    check(o[0] == 255 * 256 / 2, "tail launch sums every block's partial sum: %d", o[0]);
    check(o[1] == 2 && st[0] < 2 && st[1] < 2 && st[0] != st[1], "tail launch runs after both children");
    check(o[2] == 11 && o[3] == 22, "tail launch sees the NULL-stream and fire-and-forget children's writes");
    int *count;
    CK(cudaMalloc(&count, sizeof(int)));
    CK(cudaMemset(count, 0, sizeof(int)));
    tail_chain<<<1, 1>>>(count, 10);
    CK(cudaDeviceSynchronize());
    int c = 0;
    CK(cudaMemcpy(&c, count, sizeof c, cudaMemcpyDeviceToHost));
    check(c == 10, "a chain of 10 tail launches: %d ran", c);
    cudaFree(partial);
    cudaFree(out);
    cudaFree(stamps);
    cudaFree(values);
    cudaFree(count);
  }

  // every thread of 4 blocks of 64 launches a child, half of them fire-and-forget
  {
    const int n = 256;
    int *out;
    CK(cudaMalloc(&out, n * sizeof(int)));
    CK(cudaMemset(out, 0, n * sizeof(int)));
    launch_per_thread<<<4, 64>>>(out);
    CK(cudaDeviceSynchronize());
    int h[n];
    CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    check_all(h, n, [](size_t i) { return 3 * (int)i + 1; }, "256 children, one per thread");
    cudaFree(out);
  }

  // an event orders two device streams
  {
    int *p, *q, *errs;
    CK(cudaMalloc(&p, sizeof(int)));
    CK(cudaMalloc(&q, sizeof(int)));
    CK(cudaMalloc(&errs, 8 * sizeof(int)));
    event_parent<<<1, 1>>>(p, q, errs);
    CK(cudaDeviceSynchronize());
    int hq = 0, he[8];
    CK(cudaMemcpy(&hq, q, sizeof hq, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(he, errs, sizeof he, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < 8; i++) ok &= he[i] == cudaSuccess;
    check(ok, "device streams and events: every call returns cudaSuccess");
    check(hq == 1235, "the consumer in stream 2 waits for the producer in stream 1: %d", hq);
    cudaFree(p);
    cudaFree(q);
    cudaFree(errs);
  }

  // the parent's writes before a launch are visible to the child; cudaGetParameterBuffer + cudaLaunchDevice
  {
    int *src, *dst, *err;
    CK(cudaMalloc(&src, 64 * sizeof(int)));
    CK(cudaMalloc(&dst, 128 * sizeof(int)));
    CK(cudaMalloc(&err, sizeof(int)));
    visibility_parent<<<1, 1>>>(src, dst, 64, err);
    CK(cudaDeviceSynchronize());
    int h[128], e = -2;
    CK(cudaMemcpy(h, dst, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&e, err, sizeof e, cudaMemcpyDeviceToHost));
    check_all(h, 64, [](size_t i) { return 2 * (100 + (int)i); }, "a child sees what its parent wrote before the launch");
    check(e == cudaSuccess, "cudaGetParameterBuffer + cudaLaunchDevice: %s", e == -1 ? "no buffer" : name(e));
    check_all(h + 64, 64, [](size_t i) { return 2 * (100 + (int)i); }, "the child launched with cudaLaunchDevice");
    cudaFree(src);
    cudaFree(dst);
    cudaFree(err);
  }

  // the device runtime's other calls
  {
    int *out;
    CK(cudaMalloc(&out, 24 * sizeof(int)));
    CK(cudaMemset(out, 0xff, 24 * sizeof(int)));
    runtime_calls<<<1, 1>>>(out);
    CK(cudaDeviceSynchronize());
    int o[24], max_threads = 0;
    CK(cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost));
    CK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, 0));
    check(o[0] == cudaSuccess, "device cudaGetLastError at the start: %s", name(o[0]));
    check(o[1] == cudaSuccess && o[2] == 0, "device cudaGetDevice: %s, device %d", name(o[1]), o[2]);
    check(o[3] == cudaSuccess && o[4] == max_threads, "device cudaDeviceGetAttribute(MaxThreadsPerBlock) = the host's");
    check(o[5] == cudaSuccess && o[6] == 32, "device cudaDeviceGetAttribute(WarpSize) = 32");
    check(o[7] == cudaSuccess && o[8] == 64 * 63 / 2 && o[9] == cudaSuccess, "device cudaMalloc, use, cudaFree");
    printf("device cudaMalloc(2^40) returns %s\n", name(o[10]));
    check(o[11] == 1, "the failed device cudaMalloc leaves the pointer NULL");
    check_err((cudaError_t)o[12], cudaErrorMemoryAllocation, "device cudaGetLastError after it");
    check_err((cudaError_t)o[13], cudaSuccess, "device cudaGetLastError again (cleared)");
    printf("device <<<1, 2048>>>: %s\n", name(o[14]));
    check(o[14] != cudaSuccess, "a device launch of 2048 threads fails");
    check(o[15] == o[14] && o[16] == o[14], "device cudaPeekAtLastError keeps it, cudaGetLastError returns it");
    check_err((cudaError_t)o[17], cudaSuccess, "device cudaGetLastError after reading it");
    printf("device <<<0, 32>>>: %s\n", name(o[18]));
    check_err((cudaError_t)o[19], cudaSuccess, "device cudaGetLastError after a good launch");
    printf("device cudaStreamCreateWithFlags(flags 0): %s, then cudaGetLastError: %s\n", name(o[20]), name(o[21]));
    printf("device cudaEventCreateWithFlags(cudaEventDefault): %s, then cudaGetLastError: %s\n", name(o[22]),
           name(o[23]));
    cudaFree(out);
  }

  // device-side copies and sets
  {
    int *a, *b, *c, *err;
    CK(cudaMalloc(&a, 64 * sizeof(int)));
    CK(cudaMalloc(&b, 64 * sizeof(int)));
    CK(cudaMalloc(&c, 128 * sizeof(int)));
    CK(cudaMalloc(&err, 8 * sizeof(int)));
    int h[128];
    for (int i = 0; i < 64; i++) h[i] = 5 * i - 7;
    CK(cudaMemcpy(a, h, 64 * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(b, 0, 64 * sizeof(int)));
    CK(cudaMemset(c, 0, 128 * sizeof(int)));
    copy_parent<<<1, 1>>>(a, b, c, err);
    CK(cudaDeviceSynchronize());
    int e[8];
    CK(cudaMemcpy(e, err, 5 * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
    check(e[0] == cudaSuccess && e[1] == cudaSuccess, "device cudaMemcpyAsync, cudaMemsetAsync: %s, %s", name(e[0]),
          name(e[1]));
    { // what the device runtime's memset left, printed (an H200 does not leave 0x01010101 everywhere)
      int same = 0;
      for (int i = 0; i < 64; i++) same += h[i] == 0x01010101;
      printf("device cudaMemsetAsync(c, 1, 256 bytes): words 0, 1, 63 = %#x %#x %#x; %d of 64 are 0x01010101\n",
             (unsigned)h[0], (unsigned)h[1], (unsigned)h[63], same);
    }
    check_all(h + 64, 64, [](size_t i) { return 2 * (5 * (int)i - 7); }, "a launch after the device copy in its stream");
    printf("device cudaMemcpyAsync(cudaMemcpyHostToDevice) returns %s\n", name(e[2]));
    check_err((cudaError_t)e[3], cudaErrorInvalidMemcpyDirection, "device cudaGetLastError after it");
    check_err((cudaError_t)e[4], cudaSuccess, "device cudaMemcpyAsync of 0 bytes");
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(err);
  }

  device_texts<<<1, 1>>>();
  CK(cudaDeviceSynchronize());

  // a fault in a grandchild is the host's error, sticky
  fault_parent<<<1, 1>>>((int *)0x10);
  check_err(cudaGetLastError(), cudaSuccess, "launching the parent whose grandchild faults");
  cudaError_t fault = cudaDeviceSynchronize();
  printf("cudaDeviceSynchronize after the grandchild's fault: %s\n", cudaGetErrorName(fault));
  check(fault != cudaSuccess, "the grandchild's fault reaches the host");
  check_err(cudaDeviceSynchronize(), fault, "cudaDeviceSynchronize again (sticky)");
  return finish("cdp");
}
