// graph_explicit.cu — CUDA graphs built node by node: a DAG with branches and joins holding every kind of
// node (memset, 1D/3D/symbol copies, kernels, host, child graph, empty, event record and wait, one kernel node
// added through cudaGraphAddNode), run twice; node queries (nodes, roots, edges, dependencies, types,
// parameters); dependencies added and removed; cudaGraphClone + cudaGraphNodeFindInClone; parameters changed
// in the executable graph (kernel, memset, host) and by cudaGraphExecUpdate (and an update refused for a
// changed topology); enable/disable; instantiate flags; a DOT file; memory alloc/free nodes; conditional
// IF/ELSE, WHILE and SWITCH nodes whose condition a kernel sets with cudaGraphSetConditional; a fork/join
// capture as a graph (cudaStreamGetCaptureInfo's dependencies); a conditional node inserted into a capture
// and its body captured with cudaStreamBeginCaptureToGraph, as NVIDIA's samples do.
#include "check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#if CUDART_VERSION >= 13000
#define ADD_DEPS(g, f, t, n) cudaGraphAddDependencies(g, f, t, nullptr, n)
#define REMOVE_DEPS(g, f, t, n) cudaGraphRemoveDependencies(g, f, t, nullptr, n)
#define GET_EDGES(g, f, t, n) cudaGraphGetEdges(g, f, t, nullptr, n)
#define GET_DEPS(nd, d, n) cudaGraphNodeGetDependencies(nd, d, nullptr, n)
#define GET_DEPENDENTS(nd, d, n) cudaGraphNodeGetDependentNodes(nd, d, nullptr, n)
#define ADD_NODE(out, g, d, n, p) cudaGraphAddNode(out, g, d, nullptr, n, p)
#define CAPTURE_INFO(s, st, g, d, n) cudaStreamGetCaptureInfo(s, st, nullptr, g, d, nullptr, n)
#define SET_CAPTURE_DEPS(s, d, n) cudaStreamUpdateCaptureDependencies(s, d, nullptr, n, cudaStreamSetCaptureDependencies)
#else
#define ADD_DEPS(g, f, t, n) cudaGraphAddDependencies(g, f, t, n)
#define REMOVE_DEPS(g, f, t, n) cudaGraphRemoveDependencies(g, f, t, n)
#define GET_EDGES(g, f, t, n) cudaGraphGetEdges(g, f, t, n)
#define GET_DEPS(nd, d, n) cudaGraphNodeGetDependencies(nd, d, n)
#define GET_DEPENDENTS(nd, d, n) cudaGraphNodeGetDependentNodes(nd, d, n)
#define ADD_NODE(out, g, d, n, p) cudaGraphAddNode(out, g, d, n, p)
#define CAPTURE_INFO(s, st, g, d, n) cudaStreamGetCaptureInfo(s, st, nullptr, g, d, n)
#define SET_CAPTURE_DEPS(s, d, n) cudaStreamUpdateCaptureDependencies(s, d, n, cudaStreamSetCaptureDependencies)
#endif

const int N = 1000, T = 256, B = (N + T - 1) / T;

static char g_what[200];  // a check's description, formatted
#define WHAT(...) (snprintf(g_what, sizeof g_what, __VA_ARGS__), g_what)

__device__ int sym[16];

__global__ void k_add(int *a, const int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += b[i];
}
__global__ void k_mul(int *d, const int *a, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = a[i] * m;
}
__global__ void k_inc(int *e, const int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) e[i] = a[i] + 1;
}
__global__ void k_sum(int *f, const int *d, const int *e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f[i] = d[i] + e[i];
}
__global__ void k_child(int *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] += 100;
}
__global__ void k_sym() {
  if (threadIdx.x < 16) sym[threadIdx.x] *= 3;
}
__global__ void k_fill(int *p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * k;
}
__global__ void k_set_cond(cudaGraphConditionalHandle h, const int *v) {
  if (threadIdx.x == 0) cudaGraphSetConditional(h, *v);
}
__global__ void k_bump(int *cnt, int which, int by) {
  if (threadIdx.x == 0) cnt[which] += by;
}
// One WHILE iteration: count, and end the loop at every tenth.
__global__ void k_loop(cudaGraphConditionalHandle h, int *cnt) {
  if (threadIdx.x == 0 && ++cnt[0] % 10 == 0) cudaGraphSetConditional(h, 0);
}

static void CUDART_CB host_count(void *p) { ++*(int *)p; }

// Everything the DAG touches.
struct bufs {
  int *a, *b, *d, *e, *f, *g;  // device
  int *hb, *hout, *hsym, *hsymout;  // pinned host
  int count, count2;
  cudaEvent_t ev, ev0;
};

struct dag {
  cudaGraph_t g;
  cudaGraphNode_t wait, memset, c1, k1, k2, k3, k4, copy3d, host, child, tosym, ksym, fromsym, empty, rec;
};

static cudaKernelNodeParams kparams(void *func, void **args) {
  cudaKernelNodeParams p = {};
  p.func = func;
  p.gridDim = dim3(B);
  p.blockDim = dim3(T);
  p.kernelParams = args;
  return p;
}

// The 15-node DAG; every call builds the same topology in the same order (cudaGraphExecUpdate pairs them).
static bool build(dag &d, bufs &m, int mult) {
  bool ok = true;
  ok &= cudaGraphCreate(&d.g, 0) == cudaSuccess;
  ok &= cudaGraphAddEventWaitNode(&d.wait, d.g, nullptr, 0, m.ev0) == cudaSuccess;
  cudaMemsetParams ms = {};
  ms.dst = m.a, ms.value = 5, ms.elementSize = 4, ms.width = N, ms.height = 1;
  ok &= cudaGraphAddMemsetNode(&d.memset, d.g, &d.wait, 1, &ms) == cudaSuccess;
  ok &= cudaGraphAddMemcpyNode1D(&d.c1, d.g, nullptr, 0, m.b, m.hb, N * sizeof(int), cudaMemcpyHostToDevice) ==
        cudaSuccess;
  int n = N;
  void *a1[] = {&m.a, &m.b, &n};
  cudaKernelNodeParams p1 = kparams((void *)k_add, a1);
  cudaGraphNode_t j1[] = {d.memset, d.c1};
  ok &= cudaGraphAddKernelNode(&d.k1, d.g, j1, 2, &p1) == cudaSuccess;
  void *a2[] = {&m.d, &m.a, &n, &mult};
  cudaKernelNodeParams p2 = kparams((void *)k_mul, a2);
  ok &= cudaGraphAddKernelNode(&d.k2, d.g, &d.k1, 1, &p2) == cudaSuccess;
  void *a3[] = {&m.e, &m.a, &n};
  cudaGraphNodeParams gp = {};
  gp.type = cudaGraphNodeTypeKernel;
  gp.kernel.func = (void *)k_inc, gp.kernel.gridDim = dim3(B), gp.kernel.blockDim = dim3(T);
  gp.kernel.kernelParams = a3;
  ok &= ADD_NODE(&d.k3, d.g, &d.k1, 1, &gp) == cudaSuccess;
  void *a4[] = {&m.f, &m.d, &m.e, &n};
  cudaKernelNodeParams p4 = kparams((void *)k_sum, a4);
  cudaGraphNode_t j4[] = {d.k2, d.k3};
  ok &= cudaGraphAddKernelNode(&d.k4, d.g, j4, 2, &p4) == cudaSuccess;
  // F as 10 rows of 100 ints, copied row by row into the same layout on the host.
  cudaMemcpy3DParms cp = {};
  cp.srcPtr = make_cudaPitchedPtr(m.f, 100 * sizeof(int), 100, 10);
  cp.dstPtr = make_cudaPitchedPtr(m.hout, 100 * sizeof(int), 100, 10);
  cp.extent = make_cudaExtent(100 * sizeof(int), 10, 1);
  cp.kind = cudaMemcpyDeviceToHost;
  ok &= cudaGraphAddMemcpyNode(&d.copy3d, d.g, &d.k4, 1, &cp) == cudaSuccess;
  cudaHostNodeParams hp = {host_count, &m.count};
  ok &= cudaGraphAddHostNode(&d.host, d.g, &d.k4, 1, &hp) == cudaSuccess;
  cudaGraph_t child;
  cudaGraphNode_t ck;
  void *ac[] = {&m.g, &n};
  cudaKernelNodeParams pc = kparams((void *)k_child, ac);
  ok &= cudaGraphCreate(&child, 0) == cudaSuccess;
  ok &= cudaGraphAddKernelNode(&ck, child, nullptr, 0, &pc) == cudaSuccess;
  ok &= cudaGraphAddChildGraphNode(&d.child, d.g, nullptr, 0, child) == cudaSuccess;
  ok &= cudaGraphDestroy(child) == cudaSuccess;  // the node holds its own copy
  ok &= cudaGraphAddMemcpyNodeToSymbol(&d.tosym, d.g, nullptr, 0, sym, m.hsym, sizeof sym, 0,
                                       cudaMemcpyHostToDevice) == cudaSuccess;
  cudaKernelNodeParams ps = kparams((void *)k_sym, nullptr);
  ps.gridDim = dim3(1), ps.blockDim = dim3(32);
  ok &= cudaGraphAddKernelNode(&d.ksym, d.g, &d.tosym, 1, &ps) == cudaSuccess;
  ok &= cudaGraphAddMemcpyNodeFromSymbol(&d.fromsym, d.g, &d.ksym, 1, m.hsymout, sym, sizeof sym, 0,
                                         cudaMemcpyDeviceToHost) == cudaSuccess;
  cudaGraphNode_t je[] = {d.copy3d, d.host, d.child, d.fromsym};
  ok &= cudaGraphAddEmptyNode(&d.empty, d.g, je, 4) == cudaSuccess;
  ok &= cudaGraphAddEventRecordNode(&d.rec, d.g, &d.empty, 1, m.ev) == cudaSuccess;
  return ok;
}

static bool has(const std::vector<cudaGraphNode_t> &v, cudaGraphNode_t n) {
  return std::find(v.begin(), v.end(), n) != v.end();
}

static std::vector<cudaGraphNode_t> deps_of(cudaGraphNode_t n, bool in) {
  size_t k = 0;
  if (in) GET_DEPS(n, nullptr, &k);
  else GET_DEPENDENTS(n, nullptr, &k);
  std::vector<cudaGraphNode_t> v(k);
  if (in) GET_DEPS(n, v.data(), &k);
  else GET_DEPENDENTS(n, v.data(), &k);
  return v;
}

static size_t count_nodes(cudaGraph_t g) {
  size_t n = 0;
  cudaGraphGetNodes(g, nullptr, &n);
  return n;
}

static size_t count_edges(cudaGraph_t g) {
  size_t n = 0;
  GET_EDGES(g, nullptr, nullptr, &n);
  return n;
}

// Launch, wait, and compare the DAG's outputs with F = (mult + 1) * A + 1 where A = fill + B.
static void run_and_check(cudaGraphExec_t x, cudaStream_t s, bufs &m, int mult, int fill, int launch,
                          const char *what) {
  CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  check_all(m.hout, N, [&](size_t i) { return (mult + 1) * (fill + (int)i - 300) + 1; }, WHAT("%s: F", what));
  check_all(m.hsymout, 16, [](size_t i) { return 3 * ((int)i + 1); }, WHAT("%s: symbol", what));
  std::vector<int> g(N);
  CK(cudaMemcpy(g.data(), m.g, N * sizeof(int), cudaMemcpyDeviceToHost));
  check_all(g.data(), N, [&](size_t) { return 100 * launch; }, WHAT("%s: child graph ran %d times", what, launch));
}

static void explicit_dag(cudaStream_t s) {
  bufs m = {};
  CK(cudaMalloc(&m.a, N * sizeof(int)));
  CK(cudaMalloc(&m.b, N * sizeof(int)));
  CK(cudaMalloc(&m.d, N * sizeof(int)));
  CK(cudaMalloc(&m.e, N * sizeof(int)));
  CK(cudaMalloc(&m.f, N * sizeof(int)));
  CK(cudaMalloc(&m.g, N * sizeof(int)));
  CK(cudaMemset(m.g, 0, N * sizeof(int)));
  CK(cudaMallocHost(&m.hb, N * sizeof(int)));
  CK(cudaMallocHost(&m.hout, N * sizeof(int)));
  CK(cudaMallocHost(&m.hsym, 16 * sizeof(int)));
  CK(cudaMallocHost(&m.hsymout, 16 * sizeof(int)));
  for (int i = 0; i < N; i++) m.hb[i] = i - 300;
  for (int i = 0; i < 16; i++) m.hsym[i] = i + 1;
  CK(cudaEventCreate(&m.ev));
  CK(cudaEventCreate(&m.ev0));
  CK(cudaEventRecord(m.ev0, s));

  dag d;
  check(build(d, m, 2), "a DAG of 15 nodes built node by node");
  check(count_nodes(d.g) == 15, "cudaGraphGetNodes: 15 nodes");
  size_t nr = 0;
  CK(cudaGraphGetRootNodes(d.g, nullptr, &nr));
  std::vector<cudaGraphNode_t> roots(nr);
  CK(cudaGraphGetRootNodes(d.g, roots.data(), &nr));
  check(nr == 4 && has(roots, d.wait) && has(roots, d.c1) && has(roots, d.child) && has(roots, d.tosym),
        "cudaGraphGetRootNodes: the 4 nodes without dependencies");
  size_t ne = count_edges(d.g);
  std::vector<cudaGraphNode_t> from(ne), to(ne);
  GET_EDGES(d.g, from.data(), to.data(), &ne);
  bool k1k2 = false, k3k4 = false, k4k1 = false;
  for (size_t i = 0; i < ne; i++) {
    k1k2 |= from[i] == d.k1 && to[i] == d.k2;
    k3k4 |= from[i] == d.k3 && to[i] == d.k4;
    k4k1 |= from[i] == d.k4 && to[i] == d.k1;
  }
  check(ne == 16 && k1k2 && k3k4 && !k4k1, "cudaGraphGetEdges: 16 edges, k1->k2 and k3->k4 among them");
  std::vector<cudaGraphNode_t> v = deps_of(d.k4, true);
  check(v.size() == 2 && has(v, d.k2) && has(v, d.k3), "cudaGraphNodeGetDependencies(k4): k2 and k3 (a join)");
  v = deps_of(d.k1, false);
  check(v.size() == 2 && has(v, d.k2) && has(v, d.k3), "cudaGraphNodeGetDependentNodes(k1): k2 and k3 (a fork)");
  v = deps_of(d.empty, true);
  check(v.size() == 4, "the empty node joins 4 branches");
  v = deps_of(d.rec, false);
  check(v.empty(), "the event record node is a leaf");

  struct { cudaGraphNode_t n; cudaGraphNodeType t; const char *what; } types[] = {
      {d.wait, cudaGraphNodeTypeWaitEvent, "event wait"}, {d.memset, cudaGraphNodeTypeMemset, "memset"},
      {d.c1, cudaGraphNodeTypeMemcpy, "memcpy 1D"},       {d.k3, cudaGraphNodeTypeKernel, "kernel (cudaGraphAddNode)"},
      {d.copy3d, cudaGraphNodeTypeMemcpy, "memcpy 3D"},   {d.host, cudaGraphNodeTypeHost, "host"},
      {d.child, cudaGraphNodeTypeGraph, "child graph"},   {d.tosym, cudaGraphNodeTypeMemcpy, "memcpy to symbol"},
      {d.empty, cudaGraphNodeTypeEmpty, "empty"},         {d.rec, cudaGraphNodeTypeEventRecord, "event record"}};
  for (auto &t : types) {
    cudaGraphNodeType got = cudaGraphNodeTypeCount;
    CK(cudaGraphNodeGetType(t.n, &got));
    check(got == t.t, "cudaGraphNodeGetType: %s", t.what);
  }
  cudaKernelNodeParams kp = {};
  CK(cudaGraphKernelNodeGetParams(d.k2, &kp));
  check(kp.func == (void *)k_mul && kp.gridDim.x == B && kp.blockDim.x == T && kp.sharedMemBytes == 0 &&
            *(int *)kp.kernelParams[3] == 2,
        "cudaGraphKernelNodeGetParams: function, grid, block, arguments");
  cudaMemcpy3DParms cp = {};
  CK(cudaGraphMemcpyNodeGetParams(d.copy3d, &cp));
  check(cp.extent.width == 400 && cp.extent.height == 10 && cp.extent.depth == 1 && cp.kind == cudaMemcpyDeviceToHost &&
            cp.srcPtr.ptr == m.f && cp.dstPtr.pitch == 400,
        "cudaGraphMemcpyNodeGetParams: the 3D copy");
  CK(cudaGraphMemcpyNodeGetParams(d.c1, &cp));
  check(cp.extent.width * cp.extent.height * cp.extent.depth == N * sizeof(int) && cp.kind == cudaMemcpyHostToDevice,
        "cudaGraphMemcpyNodeGetParams: the 1D copy");
  cudaMemsetParams ms = {};
  CK(cudaGraphMemsetNodeGetParams(d.memset, &ms));
  check(ms.dst == m.a && ms.value == 5 && ms.elementSize == 4 && ms.width == N && ms.height == 1,
        "cudaGraphMemsetNodeGetParams");
  cudaHostNodeParams hp = {};
  CK(cudaGraphHostNodeGetParams(d.host, &hp));
  check(hp.fn == host_count && hp.userData == &m.count, "cudaGraphHostNodeGetParams");
  cudaGraph_t child;
  CK(cudaGraphChildGraphNodeGetGraph(d.child, &child));
  check(count_nodes(child) == 1, "cudaGraphChildGraphNodeGetGraph: the child's one kernel");
  cudaEvent_t e = nullptr;
  CK(cudaGraphEventRecordNodeGetEvent(d.rec, &e));
  check(e == m.ev, "cudaGraphEventRecordNodeGetEvent");
  CK(cudaGraphEventWaitNodeGetEvent(d.wait, &e));
  check(e == m.ev0, "cudaGraphEventWaitNodeGetEvent");

  // Dependencies added and removed.
  CK(ADD_DEPS(d.g, &d.c1, &d.k2, 1));
  check(count_edges(d.g) == 17 && deps_of(d.k2, true).size() == 2, "cudaGraphAddDependencies: c1 -> k2");
  CK(REMOVE_DEPS(d.g, &d.c1, &d.k2, 1));
  check(count_edges(d.g) == 16 && deps_of(d.k2, true).size() == 1, "cudaGraphRemoveDependencies: c1 -> k2 again");

  // Run it twice.
  cudaGraphExec_t x;
  CK(cudaGraphInstantiate(&x, d.g, 0));
  unsigned long long flags = 99;
  CK(cudaGraphExecGetFlags(x, &flags));
  check(flags == 0, "cudaGraphExecGetFlags: 0");
  CK(cudaGraphUpload(x, s));
  run_and_check(x, s, m, 2, 5, 1, "first launch");
  run_and_check(x, s, m, 2, 5, 2, "second launch");
  check(m.count == 2, "the host node ran once per launch");
  CK(cudaEventQuery(m.ev));

  // A clone, changed, leaves the original alone.
  cudaGraph_t g2;
  cudaGraphNode_t c2;
  CK(cudaGraphClone(&g2, d.g));
  check(count_nodes(g2) == 15 && count_edges(g2) == 16, "cudaGraphClone: 15 nodes, 16 edges");
  CK(cudaGraphNodeFindInClone(&c2, d.k2, g2));
  check(c2 != d.k2, "cudaGraphNodeFindInClone: the clone's own node");
  int n = N, four = 4;
  void *a2[] = {&m.d, &m.a, &n, &four};
  cudaKernelNodeParams p2 = kparams((void *)k_mul, a2);
  CK(cudaGraphKernelNodeSetParams(c2, &p2));
  CK(cudaGraphKernelNodeGetParams(d.k2, &kp));
  check(*(int *)kp.kernelParams[3] == 2, "the original's kernel node keeps its arguments");
  cudaGraphExec_t x2;
  CK(cudaGraphInstantiate(&x2, g2, 0));
  run_and_check(x2, s, m, 4, 5, 3, "the clone with multiplier 4");
  CK(cudaGraphExecDestroy(x2));
  CK(cudaGraphDestroy(g2));

  // Parameters changed in the executable graph only.
  int three = 3;
  void *a3[] = {&m.d, &m.a, &n, &three};
  cudaKernelNodeParams p3 = kparams((void *)k_mul, a3);
  CK(cudaGraphExecKernelNodeSetParams(x, d.k2, &p3));
  ms.value = 7;
  CK(cudaGraphExecMemsetNodeSetParams(x, d.memset, &ms));
  hp.userData = &m.count2;
  CK(cudaGraphExecHostNodeSetParams(x, d.host, &hp));
  run_and_check(x, s, m, 3, 7, 4, "after cudaGraphExec*SetParams");
  check(m.count == 3 && m.count2 == 1, "the host node calls its new argument (the clone's called the old one)");
  CK(cudaGraphKernelNodeGetParams(d.k2, &kp));
  check(*(int *)kp.kernelParams[3] == 2, "the graph's own kernel node is unchanged");

  // Disabled nodes do nothing.
  unsigned on = 9;
  CK(cudaGraphNodeGetEnabled(x, d.ksym, &on));
  check(on == 1, "cudaGraphNodeGetEnabled: enabled");
  CK(cudaGraphNodeSetEnabled(x, d.ksym, 0));
  CK(cudaGraphNodeGetEnabled(x, d.ksym, &on));
  check(on == 0, "cudaGraphNodeSetEnabled(0)");
  CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  check_all(m.hsymout, 16, [](size_t i) { return (int)i + 1; }, "the disabled kernel left the symbol alone");
  CK(cudaGraphNodeSetEnabled(x, d.ksym, 1));

  // cudaGraphExecUpdate from a graph of the same shape, and one of another shape.
  dag d3;
  check(build(d3, m, 6), "a second DAG of the same shape");
  cudaGraphExecUpdateResultInfo info = {};
  CK(cudaGraphExecUpdate(x, d3.g, &info));
  check(info.result == cudaGraphExecUpdateSuccess, "cudaGraphExecUpdate: cudaGraphExecUpdateSuccess");
  run_and_check(x, s, m, 6, 5, 6, "after cudaGraphExecUpdate");
  check(m.count == 4, "the update restored the host node's argument");
  CK(cudaGraphDestroyNode(d3.rec));
  check(count_nodes(d3.g) == 14, "cudaGraphDestroyNode: 14 nodes left");
  check(count_edges(d3.g) == 15, "... and its edge went with it");
  check_err(cudaGraphExecUpdate(x, d3.g, &info), cudaErrorGraphExecUpdateFailure,
            "cudaGraphExecUpdate with a node fewer");
  check(info.result == cudaGraphExecUpdateErrorTopologyChanged, "result: cudaGraphExecUpdateErrorTopologyChanged");
  (void)cudaGetLastError();

  // Instantiate with parameters; a DOT file.
  cudaGraphInstantiateParams ip = {};
  ip.flags = cudaGraphInstantiateFlagUseNodePriority;
  CK(cudaGraphInstantiateWithParams(&x2, d.g, &ip));
  check(ip.result_out == cudaGraphInstantiateSuccess, "cudaGraphInstantiateWithParams: cudaGraphInstantiateSuccess");
  CK(cudaGraphExecGetFlags(x2, &flags));
  // What an H200 answers is printed, not judged (it is not the flags given).
  printf("cudaGraphExecGetFlags after cudaGraphInstantiateWithParams(UseNodePriority): %llu\n", flags);
  CK(cudaGraphExecDestroy(x2));
  char path[] = "/tmp/graph_explicit_XXXXXX";
  int fd = mkstemp(path);
  check(fd >= 0, "a temporary file for the DOT output");
  if (fd >= 0) {
    close(fd);
    CK(cudaGraphDebugDotPrint(d.g, path, cudaGraphDebugDotFlagsVerbose));
    struct stat st = {};
    check(stat(path, &st) == 0 && st.st_size > 0, "cudaGraphDebugDotPrint wrote a DOT file");
    unlink(path);
  }

  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(d.g));
  CK(cudaGraphDestroy(d3.g));
  CK(cudaEventDestroy(m.ev));
  CK(cudaEventDestroy(m.ev0));
  for (int *p : {m.a, m.b, m.d, m.e, m.f, m.g}) CK(cudaFree(p));
  for (int *p : {m.hb, m.hout, m.hsym, m.hsymout}) CK(cudaFreeHost(p));
}

// Alloc -> kernel -> copy out -> free, launched twice.
static void memory_nodes(cudaStream_t s) {
  cudaGraph_t g;
  cudaGraphNode_t al, fill, cp, fr;
  int *out;
  CK(cudaMallocHost(&out, N * sizeof(int)));
  CK(cudaGraphCreate(&g, 0));
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = N * sizeof(int);
  CK(cudaGraphAddMemAllocNode(&al, g, nullptr, 0, &ap));
  int *p = (int *)ap.dptr;
  check(p != nullptr, "cudaGraphAddMemAllocNode returns the allocation's address");
  int n = N, seven = 7;
  void *args[] = {&p, &n, &seven};
  cudaKernelNodeParams kp = kparams((void *)k_fill, args);
  CK(cudaGraphAddKernelNode(&fill, g, &al, 1, &kp));
  CK(cudaGraphAddMemcpyNode1D(&cp, g, &fill, 1, out, p, N * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaGraphAddMemFreeNode(&fr, g, &cp, 1, p));
  cudaMemAllocNodeParams got = {};
  CK(cudaGraphMemAllocNodeGetParams(al, &got));
  check(got.bytesize == N * sizeof(int) && got.dptr == p, "cudaGraphMemAllocNodeGetParams: size and address");
  void *freed = nullptr;
  CK(cudaGraphMemFreeNodeGetParams(fr, &freed));
  check(freed == p, "cudaGraphMemFreeNodeGetParams: the address");
  cudaGraphNodeType t1, t2;
  CK(cudaGraphNodeGetType(al, &t1));
  CK(cudaGraphNodeGetType(fr, &t2));
  check(t1 == cudaGraphNodeTypeMemAlloc && t2 == cudaGraphNodeTypeMemFree, "types MemAlloc and MemFree");
  cudaGraphExec_t x;
  CK(cudaGraphInstantiate(&x, g, 0));
  for (int k = 1; k <= 2; k++) {
    memset(out, 0, N * sizeof(int));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    check_all(out, N, [](size_t i) { return 7 * (int)i; }, WHAT("launch %d: the kernel filled the graph's allocation", k));
  }
  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(g));
  CK(cudaFreeHost(out));
}

// A conditional node of `type` with `size` bodies, after `dep` (or a root); returns its bodies.
static cudaGraph_t *add_cond(cudaGraph_t g, cudaGraphNode_t *out, cudaGraphNode_t *dep,
                             cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type, unsigned size) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = type;
  p.conditional.size = size;
  if (!CK(ADD_NODE(out, g, dep, dep ? 1 : 0, &p))) return nullptr;
  return p.conditional.phGraph_out;
}

static void add_bump(cudaGraph_t body, int *cnt, int which, int by) {
  cudaGraphNode_t k;
  void *args[] = {&cnt, &which, &by};
  cudaKernelNodeParams kp = kparams((void *)k_bump, args);
  kp.gridDim = dim3(1), kp.blockDim = dim3(32);
  CK(cudaGraphAddKernelNode(&k, body, nullptr, 0, &kp));
}

static void add_setter(cudaGraph_t g, cudaGraphNode_t *out, cudaGraphConditionalHandle h, int *v) {
  void *args[] = {&h, &v};
  cudaKernelNodeParams kp = kparams((void *)k_set_cond, args);
  kp.gridDim = dim3(1), kp.blockDim = dim3(32);
  CK(cudaGraphAddKernelNode(out, g, nullptr, 0, &kp));
}

static void read_counts(const int *dev, int *host, int n) {
  CK(cudaMemcpy(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost));
}

static void conditionals(cudaStream_t s) {
  int *cnt, *val, h[3];
  CK(cudaMalloc(&cnt, 3 * sizeof(int)));
  CK(cudaMalloc(&val, sizeof(int)));

  // IF with an ELSE body.
  cudaGraph_t g;
  cudaGraphNode_t set, cond;
  cudaGraphConditionalHandle hc;
  CK(cudaGraphCreate(&g, 0));
  CK(cudaGraphConditionalHandleCreate(&hc, g, 0, 0));
  add_setter(g, &set, hc, val);
  cudaGraph_t *body = add_cond(g, &cond, &set, hc, cudaGraphCondTypeIf, 2);
  check(body != nullptr, "an IF node with two bodies");
  if (body) {
    add_bump(body[0], cnt, 0, 1);
    add_bump(body[1], cnt, 1, 1);
    check(count_nodes(body[0]) == 1 && count_nodes(body[1]) == 1, "bodies filled through phGraph_out");
  }
  cudaGraphNodeType t;
  CK(cudaGraphNodeGetType(cond, &t));
  check(t == cudaGraphNodeTypeConditional, "cudaGraphNodeGetType: conditional");
  cudaGraphExec_t x;
  CK(cudaMemset(cnt, 0, 3 * sizeof(int)));
  CK(cudaGraphInstantiate(&x, g, 0));
  for (int v : {1, 0, 1, 1, 0}) { // s does not wait for the legacy stream's copy: synchronise every launch
    CK(cudaMemcpy(val, &v, sizeof v, cudaMemcpyHostToDevice));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
  }
  CK(cudaStreamSynchronize(s));
  read_counts(cnt, h, 2);
  check(h[0] == 3 && h[1] == 2, "IF ran its body 3 times and ELSE 2 times (%d, %d)", h[0], h[1]);
  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(g));

  // WHILE, its handle reset to 1 at every launch; the body ends the loop at every tenth iteration.
  CK(cudaGraphCreate(&g, 0));
  CK(cudaGraphConditionalHandleCreate(&hc, g, 1, cudaGraphCondAssignDefault));
  body = add_cond(g, &cond, nullptr, hc, cudaGraphCondTypeWhile, 1);
  check(body != nullptr, "a WHILE node");
  if (body) {
    cudaGraphNode_t k;
    void *args[] = {&hc, &cnt};
    cudaKernelNodeParams kp = kparams((void *)k_loop, args);
    kp.gridDim = dim3(1), kp.blockDim = dim3(32);
    CK(cudaGraphAddKernelNode(&k, body[0], nullptr, 0, &kp));
  }
  CK(cudaMemset(cnt, 0, 3 * sizeof(int)));
  CK(cudaGraphInstantiate(&x, g, 0));
  CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  read_counts(cnt, h, 1);
  check(h[0] == 10, "WHILE: 10 iterations (%d)", h[0]);
  CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  read_counts(cnt, h, 1);
  check(h[0] == 20, "WHILE again: 10 more (%d)", h[0]);
  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(g));

  // SWITCH over three bodies; a value past them runs none.
  CK(cudaGraphCreate(&g, 0));
  CK(cudaGraphConditionalHandleCreate(&hc, g, 0, 0));
  add_setter(g, &set, hc, val);
  body = add_cond(g, &cond, &set, hc, cudaGraphCondTypeSwitch, 3);
  check(body != nullptr, "a SWITCH node with three bodies");
  for (int b = 0; body && b < 3; b++) add_bump(body[b], cnt, b, 10 * (b + 1));
  CK(cudaMemset(cnt, 0, 3 * sizeof(int)));
  CK(cudaGraphInstantiate(&x, g, 0));
  for (int v : {2, 0, 7, 2, 1}) {
    CK(cudaMemcpy(val, &v, sizeof v, cudaMemcpyHostToDevice));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
  }
  CK(cudaStreamSynchronize(s));
  read_counts(cnt, h, 3);
  check(h[0] == 10 && h[1] == 20 && h[2] == 60, "SWITCH ran bodies 0, 1, 2 once, once, twice (%d, %d, %d)", h[0], h[1],
        h[2]);
  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(g));
  CK(cudaFree(cnt));
  CK(cudaFree(val));
}

// Captured work is a graph like any other: a fork and a join through events give a diamond.
static void captured_diamond(cudaStream_t s) {
  cudaStream_t s2;
  cudaEvent_t fork, join;
  int *cnt, h[3];
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  CK(cudaMalloc(&cnt, 3 * sizeof(int)));
  CK(cudaMemset(cnt, 0, 3 * sizeof(int)));
  cudaGraph_t g;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  k_bump<<<1, 32, 0, s>>>(cnt, 0, 1);
  cudaStreamCaptureStatus st;
  cudaGraph_t cg = nullptr;
  const cudaGraphNode_t *deps = nullptr;
  size_t nd = 0;
  CK(CAPTURE_INFO(s, &st, &cg, &deps, &nd));
  check(st == cudaStreamCaptureStatusActive && cg != nullptr && nd == 1, "cudaStreamGetCaptureInfo: one dependency");
  cudaGraphNodeType t = cudaGraphNodeTypeCount;
  if (nd == 1) CK(cudaGraphNodeGetType(deps[0], &t));
  check(t == cudaGraphNodeTypeKernel, "... the kernel just captured");
  CK(cudaEventRecord(fork, s));
  CK(cudaStreamWaitEvent(s2, fork, 0));
  k_bump<<<1, 32, 0, s2>>>(cnt, 1, 1);
  CK(cudaEventRecord(join, s2));
  k_bump<<<1, 32, 0, s>>>(cnt, 2, 10);  // the two branches touch different counters: they may run at once
  CK(cudaStreamWaitEvent(s, join, 0));
  k_bump<<<1, 32, 0, s>>>(cnt, 0, 100);
  CK(cudaStreamEndCapture(s, &g));
  check(count_nodes(g) == 4 && count_edges(g) == 4, "a captured diamond: 4 kernel nodes, 4 edges (events make none)");
  size_t nr = 0;
  CK(cudaGraphGetRootNodes(g, nullptr, &nr));
  check(nr == 1, "one root");
  cudaGraphExec_t x;
  CK(cudaGraphInstantiate(&x, g, 0));
  CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  read_counts(cnt, h, 3);
  check(h[0] == 101 && h[1] == 1 && h[2] == 10, "every node ran once");
  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(g));
  CK(cudaEventDestroy(fork));
  CK(cudaEventDestroy(join));
  CK(cudaStreamDestroy(s2));
  CK(cudaFree(cnt));
}

// The way NVIDIA's conditional-node samples build graphs: a handle on the capture graph, a conditional node
// added after the capture's dependencies, its body captured by another stream (cudaStreamBeginCaptureToGraph).
static void captured_conditional(cudaStream_t s) {
  cudaStream_t sb;
  int *cnt, *val, h[1];
  CK(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));
  CK(cudaMalloc(&cnt, sizeof(int)));
  CK(cudaMalloc(&val, sizeof(int)));
  CK(cudaMemset(cnt, 0, sizeof(int)));
  cudaGraph_t g, cg;
  cudaStreamCaptureStatus st;
  const cudaGraphNode_t *deps;
  size_t nd;
  cudaGraphConditionalHandle hc;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CK(CAPTURE_INFO(s, &st, &cg, &deps, &nd));
  CK(cudaGraphConditionalHandleCreate(&hc, cg, 0, 0));
  k_set_cond<<<1, 32, 0, s>>>(hc, val);
  CK(CAPTURE_INFO(s, &st, &cg, &deps, &nd));
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = hc;
  p.conditional.type = cudaGraphCondTypeIf;
  p.conditional.size = 1;
  cudaGraphNode_t cond;
  CK(ADD_NODE(&cond, cg, deps, nd, &p));
  CK(SET_CAPTURE_DEPS(s, &cond, 1));
  CK(cudaStreamBeginCaptureToGraph(sb, p.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                   cudaStreamCaptureModeRelaxed));
  k_bump<<<1, 32, 0, sb>>>(cnt, 0, 1);
  CK(cudaStreamEndCapture(sb, nullptr));
  k_bump<<<1, 32, 0, s>>>(cnt, 0, 100);
  CK(cudaStreamEndCapture(s, &g));
  check(count_nodes(g) == 3 && count_edges(g) == 2, "captured: setter -> IF -> kernel");
  cudaGraphExec_t x;
  CK(cudaGraphInstantiate(&x, g, 0));
  for (int v : {1, 0, 1}) {
    CK(cudaMemcpy(val, &v, sizeof v, cudaMemcpyHostToDevice));
    CK(cudaGraphLaunch(x, s));
  }
  CK(cudaStreamSynchronize(s));
  read_counts(cnt, h, 1);
  check(h[0] == 302, "the captured IF body ran twice in three launches (%d)", h[0]);
  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(g));
  CK(cudaStreamDestroy(sb));
  CK(cudaFree(cnt));
  CK(cudaFree(val));
}

int main() {
  begin();
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  explicit_dag(s);
  memory_nodes(s);
  conditionals(s);
  captured_diamond(s);
  captured_conditional(s);
  CK(cudaStreamDestroy(s));
  return finish("graph_explicit");
}
