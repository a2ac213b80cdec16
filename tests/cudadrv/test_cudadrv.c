/*
 * test_cudadrv.c — warpvm's libcuda.so.1 driven through the CUDA driver API as a program (or
 * NVIDIA's runtime, or Numba) drives it: cuGetProcAddress's versioned lookup, the export tables,
 * initialisation, the device, contexts, memory, modules from PTX text, launches with parameter
 * pointers and packed buffers, streams and events, graphs (built node by node, captured from streams,
 * with graph memory; instantiated, updated and launched), misuse (stale and made-up handles, bad
 * arguments, capture misuse: errors, never a crash) and a kernel fault's sticky error. Expected values are CUDA's
 * documented behaviour and the entry-point names of CUDA 13's cuda.h.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct { char bytes[16]; } CUuuid;
enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3, INVALID_DEVICE = 101, INVALID_PTX = 218,
       INVALID_HANDLE = 400, NOT_FOUND = 500, ILLEGAL_ADDRESS = 700, NOT_SUPPORTED = 801,
       CAPTURE_UNSUPPORTED = 900, CAPTURE_UNJOINED = 904, CAPTURE_IMPLICIT = 906 };

CUresult cuInit(unsigned);
CUresult cuDriverGetVersion(int *);
CUresult cuGetProcAddress_v2(const char *, void **, int, unsigned long long, int *);
CUresult cuGetExportTable(const void **, const CUuuid *);
CUresult cuDeviceGetCount(int *);
CUresult cuDeviceGet(int *, int);
CUresult cuDeviceGetName(char *, int, int);
CUresult cuDeviceGetAttribute(int *, int, int);
CUresult cuDeviceTotalMem_v2(size_t *, int);
CUresult cuDevicePrimaryCtxRetain(void **, int);
CUresult cuCtxSetCurrent(void *);
CUresult cuCtxGetDevice(int *);
CUresult cuCtxSynchronize(void);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemsetD32_v2(CUdeviceptr, unsigned, size_t);
CUresult cuMemHostAlloc(void **, size_t, unsigned);
CUresult cuMemFreeHost(void *);
CUresult cuPointerGetAttribute(void *, int, CUdeviceptr);
CUresult cuModuleLoadData(void **, const void *);
CUresult cuModuleUnload(void *);
CUresult cuModuleGetFunction(void **, void *, const char *);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *, size_t *, void *, const char *);
CUresult cuLaunchKernel(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **,
                        void **);
CUresult cuStreamCreate(void **, unsigned);
CUresult cuStreamDestroy_v2(void *);
CUresult cuStreamSynchronize(void *);
CUresult cuEventCreate(void **, unsigned);
CUresult cuEventRecord(void *, void *);
CUresult cuEventSynchronize(void *);
CUresult cuEventElapsedTime_v2(float *, void *, void *);
CUresult cuEventDestroy_v2(void *);
CUresult cuFuncGetAttribute(int *, int, void *);
CUresult cuArray3DCreate_v2(void **, const void *);
/* Graphs (cuda.h's layouts). */
typedef struct {
  void *func;
  unsigned gx, gy, gz, bx, by, bz, shared;
  void **params, **extra;
  void *kern, *ctx;
} KernelParams; /* CUDA_KERNEL_NODE_PARAMS_v2 */
typedef struct { CUdeviceptr dst; size_t pitch; unsigned value, esize; size_t width, height; } MemsetParams;
CUresult cuGraphCreate(void **, unsigned);
CUresult cuGraphDestroy(void *);
CUresult cuGraphAddKernelNode_v2(void **, void *, void *const *, size_t, const KernelParams *);
CUresult cuGraphAddMemsetNode(void **, void *, void *const *, size_t, const MemsetParams *, void *);
CUresult cuGraphAddEmptyNode(void **, void *, void *const *, size_t);
CUresult cuGraphAddDependencies(void *, void *const *, void *const *, size_t);
CUresult cuGraphGetNodes(void *, void **, size_t *);
CUresult cuGraphGetRootNodes(void *, void **, size_t *);
CUresult cuGraphInstantiateWithFlags(void **, void *, unsigned long long);
CUresult cuGraphLaunch(void *, void *);
CUresult cuGraphExecKernelNodeSetParams_v2(void *, void *, const KernelParams *);
CUresult cuGraphExecDestroy(void *);
CUresult cuStreamBeginCapture_v2(void *, int);
CUresult cuStreamEndCapture(void *, void **);
CUresult cuStreamIsCapturing(void *, int *);
CUresult cuStreamWaitEvent(void *, void *, unsigned);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr, const void *, size_t, void *);
CUresult cuMemcpyDtoHAsync_v2(void *, CUdeviceptr, size_t, void *);
CUresult cuMemsetD32Async(CUdeviceptr, unsigned, size_t, void *);
CUresult cuMemAllocAsync(CUdeviceptr *, size_t, void *);
CUresult cuMemFreeAsync(CUdeviceptr, void *);
CUresult cuDeviceGetGraphMemAttribute(int, int, void *);
CUresult cuMemHostRegister_v2(void *, size_t, unsigned);
CUresult cuMemHostUnregister(void *);

static const char *PTX =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".global .align 4 .u32 counter = 7;\n"
    ".visible .entry add(.param .u64 p, .param .u32 v)\n{\n"
    "  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [v];\n"
    "  mov.u32 %r2, %tid.x; mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2;\n"
    "  ld.global.u32 %r3, [%rd3]; add.s32 %r3, %r3, %r1; st.global.u32 [%rd3], %r3;\n"
    "  ret;\n}\n"
    ".visible .entry wild(.param .u64 p)\n{\n"
    "  .reg .b64 %rd<2>; .reg .b32 %r<2>;\n"
    "  mov.u64 %rd1, 16; mov.u32 %r1, 1; st.global.u32 [%rd1], %r1; ret;\n}\n";

static void *g_ctx, *g_mod, *g_add;

static int setup(void **state) {
  (void)state;
  int n;
  if (cuDeviceGetCount(&n) != NOT_INITIALIZED) return -1; /* nothing works before cuInit */
  if (cuInit(0) || cuDevicePrimaryCtxRetain(&g_ctx, 0) || cuCtxSetCurrent(g_ctx)) return -1;
  if (cuModuleLoadData(&g_mod, PTX) || cuModuleGetFunction(&g_add, g_mod, "add")) return -1;
  return 0;
}

static void test_proc_address(void **state) {
  (void)state;
  void *fn, *self = dlopen(NULL, RTLD_NOW);
  int st = -1;
  /* The newest version not newer than the one asked for. */
  assert_int_equal(cuGetProcAddress_v2("cuMemAlloc", &fn, 13000, 0, &st), OK);
  assert_int_equal(st, 0);
  assert_ptr_equal(fn, dlsym(self, "cuMemAlloc_v2"));
  assert_int_equal(cuGetProcAddress_v2("cuStreamGetCaptureInfo", &fn, 12030, 0, &st), OK);
  assert_ptr_equal(fn, dlsym(self, "cuStreamGetCaptureInfo_v3"));
  assert_int_equal(cuGetProcAddress_v2("cuStreamGetCaptureInfo", &fn, 11030, 0, &st), OK);
  assert_ptr_equal(fn, dlsym(self, "cuStreamGetCaptureInfo_v2"));
  /* The per-thread default stream flavour. */
  assert_int_equal(cuGetProcAddress_v2("cuMemcpyHtoD", &fn, 13000, 2, &st), OK);
  assert_ptr_equal(fn, dlsym(self, "cuMemcpyHtoD_v2_ptds"));
  /* Unknown names and versions older than the entry point. */
  assert_int_equal(cuGetProcAddress_v2("cuNoSuchThing", &fn, 13000, 0, &st), NOT_FOUND);
  assert_int_equal(st, 1);
  assert_null(fn);
  assert_int_equal(cuGetProcAddress_v2("cuLibraryLoadData", &fn, 11000, 0, &st), NOT_FOUND);
  assert_int_equal(st, 2);
  dlclose(self);
}

static void test_export_tables(void **state) {
  (void)state;
  static const unsigned char ids[][16] = {
    {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9},
    {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66},
    {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}};
  const size_t slots[] = {10, 7, 3};
  for (int i = 0; i < 3; i++) {
    CUuuid id;
    const void *t = NULL;
    memcpy(id.bytes, ids[i], 16);
    assert_int_equal(cuGetExportTable(&t, &id), OK);
    assert_non_null(t);
    assert_int_equal(((const size_t *)t)[0], slots[i] * sizeof(void *)); /* slot 0: the table's size */
  }
  CUuuid bad = {{0}};
  const void *t = (void *)1;
  assert_int_equal(cuGetExportTable(&t, &bad), INVALID_VALUE);
  assert_null(t);
  /* The integrity check's first two answers are fixed. */
  memcpy(bad.bytes, ids[2], 16);
  assert_int_equal(cuGetExportTable(&t, &bad), OK);
  CUresult (*check)(unsigned, unsigned long long, unsigned long long *) = ((void *const *)t)[1];
  unsigned long long h[2];
  assert_int_equal(check(13000, 0, h), OK);
  assert_true(h[0] == 0x3341181C03CB675Cull && h[1] == 0x8ED383AA1F4CD1E8ull);
}

static void test_device(void **state) {
  (void)state;
  int n, dev, v;
  char name[128];
  size_t mem;
  assert_int_equal(cuDriverGetVersion(&v), OK);
  assert_true(v >= 13000);
  assert_int_equal(cuDeviceGetCount(&n), OK);
  assert_int_equal(n, 1);
  assert_int_equal(cuDeviceGet(&dev, 0), OK);
  assert_int_equal(cuDeviceGet(&dev, 1), INVALID_DEVICE);
  assert_int_equal(cuDeviceGetName(name, sizeof name, 0), OK);
  assert_true(strlen(name) > 0);
  assert_int_equal(cuDeviceTotalMem_v2(&mem, 0), OK);
  assert_true(mem > 0);
  assert_int_equal(cuDeviceGetAttribute(&v, 10, 0), OK); /* CU_DEVICE_ATTRIBUTE_WARP_SIZE */
  assert_int_equal(v, 32);
  assert_int_equal(cuDeviceGetAttribute(&v, 75, 0), OK); /* COMPUTE_CAPABILITY_MAJOR */
  assert_int_equal(v, 9);
  assert_int_equal(cuDeviceGetAttribute(&v, 100000, 0), INVALID_VALUE);
  assert_int_equal(cuDeviceGetAttribute(&v, 10, 3), INVALID_DEVICE);
  assert_int_equal(cuCtxGetDevice(&dev), OK);
  assert_int_equal(dev, 0);
}

static void test_memory(void **state) {
  (void)state;
  CUdeviceptr d;
  unsigned in[64], out[64];
  for (int i = 0; i < 64; i++) in[i] = (unsigned)i * 3u;
  assert_int_equal(cuMemAlloc_v2(&d, sizeof in), OK);
  assert_int_equal(cuMemcpyHtoD_v2(d, in, sizeof in), OK);
  assert_int_equal(cuMemcpyDtoH_v2(out, d, sizeof out), OK);
  assert_memory_equal(in, out, sizeof in);
  assert_int_equal(cuMemsetD32_v2(d + 8, 0xdeadbeef, 4), OK);
  assert_int_equal(cuMemcpyDtoH_v2(out, d, sizeof out), OK);
  assert_int_equal(out[1], 3u);
  assert_int_equal(out[2], 0xdeadbeefu);
  assert_int_equal(out[5], 0xdeadbeefu);
  assert_int_equal(out[6], 18u);
  unsigned type = 0;
  assert_int_equal(cuPointerGetAttribute(&type, 2, d + 4), OK); /* MEMORY_TYPE */
  assert_int_equal(type, 2);                                     /* CU_MEMORYTYPE_DEVICE */
  assert_int_equal(cuMemcpyHtoD_v2(d + 200, in, 100), INVALID_VALUE); /* past the allocation */
  assert_int_equal(cuMemFree_v2(d), OK);
  assert_int_equal(cuMemFree_v2(d), INVALID_VALUE); /* twice */
  assert_int_equal(cuMemAlloc_v2(&d, 0), INVALID_VALUE);
  assert_int_equal(cuMemAlloc_v2(&d, (size_t)1 << 60), OUT_OF_MEMORY);
  void *h;
  assert_int_equal(cuMemHostAlloc(&h, 256, 2), OK); /* mapped: kernels use the same pointer */
  assert_int_equal(cuPointerGetAttribute(&type, 2, (CUdeviceptr)(uintptr_t)h), OK);
  assert_int_equal(type, 1); /* CU_MEMORYTYPE_HOST */
  assert_int_equal(cuMemFreeHost(h), OK);
}

static void test_module_and_launch(void **state) {
  (void)state;
  CUdeviceptr d, g;
  size_t gsize;
  unsigned buf[32] = {0}, v = 5;
  assert_int_equal(cuMemAlloc_v2(&d, sizeof buf), OK);
  assert_int_equal(cuMemcpyHtoD_v2(d, buf, sizeof buf), OK);
  void *params[] = {&d, &v};
  assert_int_equal(cuLaunchKernel(g_add, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL), OK);
  /* The same arguments as one packed buffer (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE / _END). */
  struct { CUdeviceptr p; unsigned v; } packed = {d, 2};
  size_t psize = sizeof packed;
  void *extra[] = {(void *)1, &packed, (void *)2, &psize, (void *)0};
  assert_int_equal(cuLaunchKernel(g_add, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, extra), OK);
  assert_int_equal(cuCtxSynchronize(), OK);
  assert_int_equal(cuMemcpyDtoH_v2(buf, d, sizeof buf), OK);
  for (int i = 0; i < 32; i++) assert_int_equal(buf[i], 7u);
  /* Launch configurations out of range are refused, not run. */
  assert_int_equal(cuLaunchKernel(g_add, 1, 1, 1, 2048, 1, 1, 0, NULL, params, NULL), INVALID_VALUE);
  assert_int_equal(cuLaunchKernel(g_add, 0, 1, 1, 32, 1, 1, 0, NULL, params, NULL), INVALID_VALUE);
  int a;
  assert_int_equal(cuFuncGetAttribute(&a, 0, g_add), OK); /* MAX_THREADS_PER_BLOCK */
  assert_int_equal(a, 1024);
  assert_int_equal(cuModuleGetGlobal_v2(&g, &gsize, g_mod, "counter"), OK);
  assert_int_equal(gsize, 4);
  assert_int_equal(cuMemcpyDtoH_v2(&v, g, 4), OK);
  assert_int_equal(v, 7u);
  void *f;
  assert_int_equal(cuModuleGetFunction(&f, g_mod, "nope"), NOT_FOUND);
  cuMemFree_v2(d);
}

static void test_bad_input(void **state) {
  (void)state;
  void *m, *f;
  /* Malformed PTX: an error, and nothing loaded. */
  assert_int_equal(cuModuleLoadData(&m, ".version 8.0\n.target sm_90\n.visible .entry k( {\n"), INVALID_PTX);
  /* Stale and made-up handles. */
  void *m2;
  assert_int_equal(cuModuleLoadData(&m2, PTX), OK);
  assert_int_equal(cuModuleUnload(m2), OK);
  assert_int_equal(cuModuleGetFunction(&f, m2, "add"), INVALID_HANDLE);
  assert_int_equal(cuModuleUnload(m2), INVALID_HANDLE);
  int junk[16] = {0};
  assert_int_equal(cuModuleGetFunction(&f, junk, "add"), INVALID_HANDLE);
  assert_int_equal(cuLaunchKernel(junk, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), INVALID_HANDLE);
  assert_int_equal(cuStreamSynchronize(junk), INVALID_HANDLE);
  assert_int_equal(cuEventRecord(junk, NULL), INVALID_HANDLE);
  /* An entry point warpvm does not implement says so. */
  void *arr;
  assert_int_equal(cuArray3DCreate_v2(&arr, NULL), NOT_SUPPORTED);
}

static void test_streams_events(void **state) {
  (void)state;
  void *s, *a, *b;
  float ms = -1;
  assert_int_equal(cuStreamCreate(&s, 0), OK);
  assert_int_equal(cuEventCreate(&a, 0), OK);
  assert_int_equal(cuEventCreate(&b, 0), OK);
  assert_int_equal(cuEventRecord(a, s), OK);
  assert_int_equal(cuEventRecord(b, s), OK);
  assert_int_equal(cuEventSynchronize(b), OK);
  assert_int_equal(cuEventElapsedTime_v2(&ms, a, b), OK);
  assert_true(ms >= 0);
  assert_int_equal(cuStreamSynchronize(s), OK);
  assert_int_equal(cuStreamDestroy_v2(s), OK);
  assert_int_equal(cuStreamDestroy_v2(s), INVALID_HANDLE);
  cuEventDestroy_v2(a);
  cuEventDestroy_v2(b);
}

/* Nodes added out of order, then ordered by an edge: the launch honours the edge (set, then add), every time;
 * an executable graph's kernel node takes new parameters; a destroyed graph is an error, never a crash. */
static void test_graph_built(void **state) {
  (void)state;
  void *g, *set, *add, *empty, *x, *nodes[4];
  CUdeviceptr d;
  unsigned buf[32], v = 10;
  size_t n = 4;
  assert_int_equal(cuMemAlloc_v2(&d, sizeof buf), OK);
  assert_int_equal(cuGraphCreate(&g, 0), OK);
  void *params[] = {&d, &v};
  KernelParams kp = {g_add, 1, 1, 1, 32, 1, 1, 0, params, NULL, NULL, NULL};
  assert_int_equal(cuGraphAddKernelNode_v2(&add, g, NULL, 0, &kp), OK);
  v = 99; /* the node keeps its own copy of the argument values */
  MemsetParams mp = {d, sizeof buf, 1, 4, 32, 1};
  assert_int_equal(cuGraphAddMemsetNode(&set, g, NULL, 0, &mp, NULL), OK);
  assert_int_equal(cuGraphAddEmptyNode(&empty, g, &add, 1), OK);
  assert_int_equal(cuGraphAddDependencies(g, &set, &add, 1), OK);
  assert_int_equal(cuGraphAddDependencies(g, &set, &add, 1), INVALID_VALUE); /* an edge added twice */
  assert_int_equal(cuGraphGetNodes(g, nodes, &n), OK);
  assert_int_equal(n, 3);
  n = 4;
  assert_int_equal(cuGraphGetRootNodes(g, nodes, &n), OK);
  assert_int_equal(n, 1);
  assert_ptr_equal(nodes[0], set);
  assert_int_equal(cuGraphInstantiateWithFlags(&x, g, 0), OK);
  for (int k = 0; k < 2; k++) {
    memset(buf, 0, sizeof buf);
    assert_int_equal(cuGraphLaunch(x, NULL), OK);
    assert_int_equal(cuMemcpyDtoH_v2(buf, d, sizeof buf), OK);
    for (int i = 0; i < 32; i++) assert_int_equal(buf[i], 11u);
  }
  v = 20;
  assert_int_equal(cuGraphExecKernelNodeSetParams_v2(x, add, &kp), OK);
  assert_int_equal(cuGraphLaunch(x, NULL), OK);
  assert_int_equal(cuMemcpyDtoH_v2(buf, d, sizeof buf), OK);
  assert_int_equal(buf[31], 21u);
  assert_int_equal(cuGraphExecDestroy(x), OK);
  assert_int_equal(cuGraphDestroy(g), OK);
  assert_int_equal(cuGraphDestroy(g), INVALID_VALUE);
  assert_int_equal(cuGraphLaunch(x, NULL), INVALID_VALUE);
  cuMemFree_v2(d);
}

/* Work issued on a capturing stream runs only when the graph is launched, in stream order; a graph allocation
 * made and freed in the capture is memory while the launch runs. */
static void test_graph_captured(void **state) {
  (void)state;
  void *s, *g, *x, *nodes[8];
  CUdeviceptr d, tmp;
  unsigned in[32], out[32] = {0}, v = 3;
  int status = -1;
  size_t n = 8;
  for (int i = 0; i < 32; i++) in[i] = (unsigned)i;
  assert_int_equal(cuMemAlloc_v2(&d, sizeof in), OK);
  assert_int_equal(cuMemsetD32_v2(d, 0, 32), OK);
  assert_int_equal(cuStreamCreate(&s, 0), OK);
  assert_int_equal(cuStreamBeginCapture_v2(s, 0), OK);
  assert_int_equal(cuStreamIsCapturing(s, &status), OK);
  assert_int_equal(status, 1); /* CU_STREAM_CAPTURE_STATUS_ACTIVE */
  assert_int_equal(cuStreamSynchronize(s), CAPTURE_UNSUPPORTED);
  assert_int_equal(cuMemAllocAsync(&tmp, sizeof in, s), OK);
  assert_int_equal(cuMemcpyHtoDAsync_v2(tmp, in, sizeof in, s), OK);
  void *params[] = {&tmp, &v};
  assert_int_equal(cuLaunchKernel(g_add, 1, 1, 1, 32, 1, 1, 0, s, params, NULL), OK);
  assert_int_equal(cuMemcpyDtoHAsync_v2(out, tmp, sizeof out, s), OK);
  assert_int_equal(cuMemFreeAsync(tmp, s), OK);
  assert_int_equal(cuStreamEndCapture(s, &g), OK);
  assert_int_equal(cuStreamIsCapturing(s, &status), OK);
  assert_int_equal(status, 0);
  assert_int_equal(cuGraphGetNodes(g, nodes, &n), OK);
  assert_int_equal(n, 5);
  for (int i = 0; i < 32; i++) assert_int_equal(out[i], 0u); /* capturing ran nothing */
  assert_int_equal(cuGraphInstantiateWithFlags(&x, g, 0), OK);
  for (int k = 0; k < 2; k++) {
    in[0] = 100u * (unsigned)k; /* the graph copies from the program's memory when it runs */
    assert_int_equal(cuGraphLaunch(x, s), OK);
    assert_int_equal(cuStreamSynchronize(s), OK);
    assert_int_equal(out[0], 100u * (unsigned)k + 3u);
    for (int i = 1; i < 32; i++) assert_int_equal(out[i], (unsigned)i + 3u);
  }
  unsigned long long used = 1, reserved = 0, high = 0;
  assert_int_equal(cuDeviceGetGraphMemAttribute(0, 0, &used), OK);     /* USED_MEM_CURRENT: freed by the graph */
  assert_int_equal(cuDeviceGetGraphMemAttribute(0, 1, &high), OK);     /* USED_MEM_HIGH: it was in use */
  assert_int_equal(cuDeviceGetGraphMemAttribute(0, 2, &reserved), OK); /* RESERVED_MEM_CURRENT: the graph keeps it */
  assert_true(used == 0 && high >= sizeof in && reserved >= sizeof in);
  assert_int_equal(cuGraphExecDestroy(x), OK);
  assert_int_equal(cuGraphDestroy(g), OK);
  /* The legacy stream cannot capture. */
  assert_int_equal(cuStreamBeginCapture_v2(NULL, 0), CAPTURE_UNSUPPORTED);
  cuStreamDestroy_v2(s);
  cuMemFree_v2(d);
}

/* A stream forked into a capture (it waits on an event recorded there) must be joined back before the capture
 * ends, else the capture fails and makes no graph; the legacy stream cannot join one. */
static void test_capture_fork_join(void **state) {
  (void)state;
  void *s1, *s2, *e1, *e2, *g = (void *)1;
  CUdeviceptr d;
  unsigned v = 1;
  void *params[] = {&d, &v};
  assert_int_equal(cuMemAlloc_v2(&d, 128), OK);
  assert_int_equal(cuStreamCreate(&s1, 0), OK);
  assert_int_equal(cuStreamCreate(&s2, 0), OK);
  assert_int_equal(cuEventCreate(&e1, 0), OK);
  assert_int_equal(cuEventCreate(&e2, 0), OK);
  for (int join = 0; join < 2; join++) {
    assert_int_equal(cuStreamBeginCapture_v2(s1, 0), OK);
    assert_int_equal(cuEventRecord(e1, s1), OK);
    assert_int_equal(cuStreamWaitEvent(NULL, e1, 0), CAPTURE_IMPLICIT);
    assert_int_equal(cuStreamWaitEvent(s2, e1, 0), OK); /* s2 joins the capture */
    assert_int_equal(cuLaunchKernel(g_add, 1, 1, 1, 32, 1, 1, 0, s2, params, NULL), OK);
    if (join) {
      assert_int_equal(cuEventRecord(e2, s2), OK);
      assert_int_equal(cuStreamWaitEvent(s1, e2, 0), OK);
    }
    assert_int_equal(cuStreamEndCapture(s1, &g), join ? OK : CAPTURE_UNJOINED);
    if (join) assert_non_null(g);
    else assert_null(g);
  }
  int status = -1;
  assert_int_equal(cuStreamIsCapturing(s2, &status), OK); /* the capture's end took s2 out of it */
  assert_int_equal(status, 0);
  assert_int_equal(cuGraphDestroy(g), OK);
  cuEventDestroy_v2(e1);
  cuEventDestroy_v2(e2);
  cuStreamDestroy_v2(s1);
  cuStreamDestroy_v2(s2);
  cuMemFree_v2(d);
}

/* Registered host memory: kernels use the program's own pages; a range that is not mapped is refused before the
 * vm maps it, and one unmapped after registering is dropped before the next launch (a fault, not a crash). */
static void test_host_register(void **state) {
  (void)state;
  long pg = sysconf(_SC_PAGESIZE);
  unsigned *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(m != MAP_FAILED);
  assert_int_equal(munmap((char *)m + pg, (size_t)pg), 0);
  assert_int_equal(cuMemHostRegister_v2((char *)m + pg, (size_t)pg, 0), INVALID_VALUE);
  assert_int_equal(cuMemHostRegister_v2(m, 2 * (size_t)pg, 0), INVALID_VALUE); /* partly unmapped */
  assert_int_equal(cuMemHostRegister_v2(m, (size_t)pg, 0), OK);
  assert_int_equal(cuMemHostRegister_v2(m, (size_t)pg, 0), 712); /* HOST_MEMORY_ALREADY_REGISTERED */
  m[0] = 40;
  CUdeviceptr p = (CUdeviceptr)(uintptr_t)m;
  unsigned v = 2;
  void *params[] = {&p, &v};
  assert_int_equal(cuLaunchKernel(g_add, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL), OK);
  assert_int_equal(cuCtxSynchronize(), OK);
  assert_int_equal(m[0], 42u);
  assert_int_equal(cuMemHostUnregister(m), OK);
  assert_int_equal(cuMemHostUnregister(m), 713); /* HOST_MEMORY_NOT_REGISTERED */
  munmap(m, (size_t)pg);
}

/* Last: a fault is sticky for the rest of the context's life. */
static void test_fault_is_sticky(void **state) {
  (void)state;
  void *wild;
  CUdeviceptr p = 0, d;
  void *params[] = {&p};
  assert_int_equal(cuModuleGetFunction(&wild, g_mod, "wild"), OK);
  assert_int_equal(cuLaunchKernel(wild, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL), OK);
  assert_int_equal(cuCtxSynchronize(), ILLEGAL_ADDRESS);
  assert_int_equal(cuMemAlloc_v2(&d, 16), ILLEGAL_ADDRESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_proc_address),   cmocka_unit_test(test_export_tables), cmocka_unit_test(test_device),
    cmocka_unit_test(test_memory),         cmocka_unit_test(test_module_and_launch),
    cmocka_unit_test(test_bad_input),      cmocka_unit_test(test_streams_events),
    cmocka_unit_test(test_graph_built),    cmocka_unit_test(test_graph_captured),
    cmocka_unit_test(test_capture_fork_join), cmocka_unit_test(test_host_register),
    cmocka_unit_test(test_fault_is_sticky),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
