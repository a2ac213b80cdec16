// mempool.cu — stream-ordered allocation and memory pools: the default pool (current until changed, its
// attributes' defaults), cudaMallocAsync/cudaFreeAsync accounted in it (used and reserved memory, high-water
// marks and their reset, the release threshold, cudaMemPoolTrimTo), a created pool (cudaMallocFromPoolAsync,
// made the device's current pool, access), and cudaMallocAsync/cudaFreeAsync captured into a graph as alloc
// and free nodes, launched three times. Only what holds on any GPU is printed: the bytes a pool reserves
// depend on the GPU's granularity, so they are compared, never printed.
#include "check.h"

#include <cstdint>
#include <vector>

const int T = 256;

__global__ void k_fill(int *p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * k;
}
__global__ void k_acc(long long *acc, const int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += p[i];
}

static uint64_t attr(cudaMemPool_t p, cudaMemPoolAttr a) {
  uint64_t v = 0;
  cudaMemPoolGetAttribute(p, a, &v);
  return v;
}

static int reuse(cudaMemPool_t p, cudaMemPoolAttr a) {
  int v = -1;
  cudaMemPoolGetAttribute(p, a, &v);
  return v;
}

// Allocate n ints from the pool (or the current one), fill them with i * k by a kernel, read them back.
static bool use(cudaStream_t s, cudaMemPool_t pool, int n, int k, int **out) {
  int *p = nullptr;
  cudaError_t e = pool ? cudaMallocFromPoolAsync((void **)&p, n * sizeof(int), pool, s)
                       : cudaMallocAsync((void **)&p, n * sizeof(int), s);
  if (!check_cuda(e, pool ? "cudaMallocFromPoolAsync" : "cudaMallocAsync")) return false;
  k_fill<<<(n + T - 1) / T, T, 0, s>>>(p, n, k);
  std::vector<int> h(n);
  CK(cudaMemcpyAsync(h.data(), p, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  check_all(h.data(), n, [&](size_t i) { return (int)i * k; }, "a kernel filled the pool's memory");
  *out = p;
  return true;
}

static void default_pool(cudaStream_t s) {
  cudaMemPool_t def = nullptr, cur = nullptr;
  CK(cudaDeviceGetDefaultMemPool(&def, 0));
  CK(cudaDeviceGetMemPool(&cur, 0));
  check(def != nullptr && cur == def, "the current pool is the default pool");
  check(attr(def, cudaMemPoolAttrReleaseThreshold) == 0, "default release threshold: 0");
  check(reuse(def, cudaMemPoolReuseFollowEventDependencies) == 1 && reuse(def, cudaMemPoolReuseAllowOpportunistic) == 1 &&
            reuse(def, cudaMemPoolReuseAllowInternalDependencies) == 1,
        "the three reuse policies are on by default");

  // Keep freed memory reserved (a threshold no pool reaches), so what happens is the program's to see.
  uint64_t keep = UINT64_MAX;
  CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep));
  check(attr(def, cudaMemPoolAttrReleaseThreshold) == UINT64_MAX, "release threshold set to UINT64_MAX");
  const int n = 1 << 18;  // 1 MiB of ints
  const uint64_t bytes = n * sizeof(int);
  int *p;
  if (!use(s, nullptr, n, 3, &p)) return;
  uint64_t used = attr(def, cudaMemPoolAttrUsedMemCurrent), reserved = attr(def, cudaMemPoolAttrReservedMemCurrent);
  check(used >= bytes, "used memory covers the allocation");
  check(reserved >= used, "reserved memory covers the used memory");
  check(attr(def, cudaMemPoolAttrUsedMemHigh) >= used && attr(def, cudaMemPoolAttrReservedMemHigh) >= reserved,
        "high-water marks at least the current values");
  int *q;
  if (!use(s, nullptr, n, 5, &q)) return;
  check(attr(def, cudaMemPoolAttrUsedMemCurrent) >= 2 * bytes, "a second allocation adds to the used memory");
  uint64_t high = attr(def, cudaMemPoolAttrUsedMemHigh);
  CK(cudaFreeAsync(p, s));
  CK(cudaFreeAsync(q, s));
  CK(cudaStreamSynchronize(s));
  check(attr(def, cudaMemPoolAttrUsedMemCurrent) == 0, "nothing used after both were freed");
  check(attr(def, cudaMemPoolAttrUsedMemHigh) == high, "the used high-water mark stays");
  check(attr(def, cudaMemPoolAttrReservedMemCurrent) >= 2 * bytes, "the freed memory stays reserved (threshold)");
  uint64_t zero = 0;
  CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &zero));
  check(attr(def, cudaMemPoolAttrUsedMemHigh) == 0, "resetting the used high-water mark: the current value, 0");
  uint64_t cur_reserved = attr(def, cudaMemPoolAttrReservedMemCurrent);
  CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemHigh, &zero));
  check(attr(def, cudaMemPoolAttrReservedMemHigh) <= cur_reserved, "resetting the reserved high-water mark");
  CK(cudaMemPoolTrimTo(def, 0));
  check(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0, "cudaMemPoolTrimTo(0) with nothing allocated: 0 reserved");
  // With a live allocation, trimming keeps what it needs.
  if (!use(s, nullptr, n, 7, &p)) return;
  CK(cudaMemPoolTrimTo(def, 0));
  check(attr(def, cudaMemPoolAttrReservedMemCurrent) >= bytes, "trimming keeps the memory of a live allocation");
  CK(cudaFreeAsync(p, s));
  CK(cudaStreamSynchronize(s));
  check_err(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &zero), cudaErrorInvalidValue,
            "cudaMemPoolSetAttribute(UsedMemCurrent)");
  (void)cudaGetLastError();

  int off = 0;
  CK(cudaMemPoolSetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &off));
  check(reuse(def, cudaMemPoolReuseAllowOpportunistic) == 0, "a reuse policy turned off");
  int on = 1;
  CK(cudaMemPoolSetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &on));
  CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &zero));
  CK(cudaMemPoolTrimTo(def, 0));
}

static void created_pool(cudaStream_t s) {
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool, def, cur;
  CK(cudaMemPoolCreate(&pool, &props));
  CK(cudaDeviceGetDefaultMemPool(&def, 0));
  check(pool != def, "a created pool is not the default pool");
  const int n = 1 << 20;  // 4 MiB
  int *p;
  if (!use(s, pool, n, 9, &p)) return;
  check(attr(pool, cudaMemPoolAttrUsedMemCurrent) >= n * sizeof(int), "cudaMallocFromPoolAsync draws from the pool");
  check(attr(def, cudaMemPoolAttrUsedMemCurrent) == 0, "... and not from the default pool");
  CK(cudaFreeAsync(p, s));
  CK(cudaStreamSynchronize(s));
  check(attr(pool, cudaMemPoolAttrUsedMemCurrent) == 0, "freed back to the pool");

  CK(cudaDeviceSetMemPool(0, pool));
  CK(cudaDeviceGetMemPool(&cur, 0));
  check(cur == pool, "cudaDeviceSetMemPool: the created pool is current");
  if (!use(s, nullptr, n, 11, &p)) return;
  check(attr(pool, cudaMemPoolAttrUsedMemCurrent) >= n * sizeof(int), "cudaMallocAsync draws from the current pool");
  CK(cudaFreeAsync(p, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaDeviceSetMemPool(0, def));

  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = 0;
  cudaMemAccessFlags fl = cudaMemAccessFlagsProtNone;
  CK(cudaMemPoolGetAccess(&fl, pool, &loc));
  check(fl == cudaMemAccessFlagsProtReadWrite, "the pool's device reads and writes it");
  cudaMemAccessDesc desc = {};
  desc.location = loc;
  desc.flags = cudaMemAccessFlagsProtReadWrite;
  printf("cudaMemPoolSetAccess(own device, read-write) -> %s\n", cudaGetErrorName(cudaMemPoolSetAccess(pool, &desc, 1)));
  (void)cudaGetLastError();
  CK(cudaMemPoolDestroy(pool));
}

// cudaMallocAsync and cudaFreeAsync captured: alloc and free nodes; the memory exists while the graph runs.
static void captured(cudaStream_t s) {
  const int n = 1000;
  long long *acc;
  CK(cudaMalloc(&acc, n * sizeof(long long)));
  CK(cudaMemset(acc, 0, n * sizeof(long long)));
  cudaGraph_t g;
  int *t = nullptr;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CK(cudaMallocAsync((void **)&t, n * sizeof(int), s));
  k_fill<<<(n + T - 1) / T, T, 0, s>>>(t, n, 2);
  k_acc<<<(n + T - 1) / T, T, 0, s>>>(acc, t, n);
  CK(cudaFreeAsync(t, s));
  CK(cudaStreamEndCapture(s, &g));
  check(t != nullptr, "cudaMallocAsync in a capture gives an address");
  size_t nodes = 0;
  CK(cudaGraphGetNodes(g, nullptr, &nodes));
  check(nodes == 4, "the captured graph: alloc, two kernels, free");
  size_t nr = 1;
  cudaGraphNode_t root;
  CK(cudaGraphGetRootNodes(g, &root, &nr));
  cudaGraphNodeType ty;
  CK(cudaGraphNodeGetType(root, &ty));
  check(nr == 1 && ty == cudaGraphNodeTypeMemAlloc, "its root is a MemAlloc node");
  cudaMemAllocNodeParams ap = {};
  CK(cudaGraphMemAllocNodeGetParams(root, &ap));
  check(ap.dptr == t && ap.bytesize == n * sizeof(int), "the alloc node holds the address and size");
  cudaGraphExec_t x;
  CK(cudaGraphInstantiate(&x, g, 0));
  for (int k = 0; k < 3; k++) CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  std::vector<long long> h(n);
  CK(cudaMemcpy(h.data(), acc, n * sizeof(long long), cudaMemcpyDeviceToHost));
  check_all(h.data(), n, [](size_t i) { return 6LL * (long long)i; }, "three launches accumulated 3 * 2i");
  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(g));

  // An allocation the graph does not free outlives its launch: the program uses and frees it.
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CK(cudaMallocAsync((void **)&t, n * sizeof(int), s));
  k_fill<<<(n + T - 1) / T, T, 0, s>>>(t, n, 4);
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&x, g, 0));
  CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  std::vector<int> hv(n);
  CK(cudaMemcpy(hv.data(), t, n * sizeof(int), cudaMemcpyDeviceToHost));
  check_all(hv.data(), n, [](size_t i) { return 4 * (int)i; }, "the graph's allocation read after the launch");
  check_err(cudaGraphLaunch(x, s), cudaErrorInvalidValue, "relaunch while the allocation is still live");
  (void)cudaGetLastError();
  CK(cudaFreeAsync(t, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaFree(t));
  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(g));
  CK(cudaFree(acc));
}

int main() {
  begin();
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  default_pool(s);
  created_pool(s);
  captured(s);
  CK(cudaStreamDestroy(s));
  return finish("mempool");
}
