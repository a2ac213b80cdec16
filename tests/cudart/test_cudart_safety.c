/*
 * test_cudart_safety.c — warpvm's libcudart under misuse and at its limits, driven like nvcc's host code
 * (safety_kernels.ptx registered as a fatbin): destroyed, twice-destroyed and made-up stream, event and
 * graph handles; capture rules; sizes that overflow; cudaHostRegister of memory that is not mapped or not
 * writable, or stops being so; launch refusals that must not poison the process; the printf FIFO; graphs
 * built wrongly (nodes of another graph, cycles, destroyed nodes, a WHILE loop nothing can end).
 * Expected codes are what an H100 with CUDA 13 answered where it answered (tests/cudart/misuse_h100.txt);
 * where it crashed (streams and events) the choice, cudaErrorInvalidResourceHandle. Cases that
 * check stderr or stdout run as a child process of their own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "cudart/abi.h"
#include "cudart/abi_graph.h"
#include "fixture.h"

void **__cudaRegisterFatBinary(void *);
void __cudaRegisterFatBinaryEnd(void **);
void __cudaRegisterFunction(void **, const char *, char *, const char *, int, void *, void *, void *, void *, int *);
cudaError_t cudaMalloc(void **, size_t);
cudaError_t cudaMallocPitch(void **, size_t *, size_t, size_t);
cudaError_t cudaMallocHost(void **, size_t);
cudaError_t cudaFree(void *);
cudaError_t cudaMemcpy(void *, const void *, size_t, int);
cudaError_t cudaMemcpyAsync(void *, const void *, size_t, int, cudaStream_t);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaMemcpy2D(void *, size_t, const void *, size_t, size_t, size_t, int);
cudaError_t cudaMemset2D(void *, size_t, int, size_t, size_t);
cudaError_t cudaHostRegister(void *, size_t, unsigned);
cudaError_t cudaHostUnregister(void *);
cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaDeviceSetLimit(int, size_t);
cudaError_t cudaDeviceGetLimit(size_t *, int);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
cudaError_t cudaStreamCreate(cudaStream_t *);
cudaError_t cudaStreamDestroy(cudaStream_t);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaStreamQuery(cudaStream_t);
cudaError_t cudaStreamIsCapturing(cudaStream_t, int *);
cudaError_t cudaStreamBeginCapture(cudaStream_t, int);
cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t *);
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *, cudaGraph_t, unsigned long long);
cudaError_t cudaGraphLaunch(cudaGraphExec_t, cudaStream_t);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t);
cudaError_t cudaGraphDestroy(cudaGraph_t);
cudaError_t cudaGraphGetNodes(cudaGraph_t, cudaGraphNode_t *, size_t *);
cudaError_t cudaGraphCreate(cudaGraph_t *, unsigned);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t,
                                   const struct cudaKernelNodeParams *);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t,
                                   const struct cudaMemsetParams *);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t, void *);
cudaError_t cudaGraphAddNode_v2(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, const cudaGraphEdgeData *,
                                size_t, struct cudaGraphNodeParams *);
cudaError_t cudaGraphAddDependencies_v2(cudaGraph_t, const cudaGraphNode_t *, const cudaGraphNode_t *,
                                        const cudaGraphEdgeData *, size_t);
cudaError_t cudaGraphRemoveDependencies_v2(cudaGraph_t, const cudaGraphNode_t *, const cudaGraphNode_t *,
                                           const cudaGraphEdgeData *, size_t);
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t, int *);
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t, struct cudaKernelNodeParams *);
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *, cudaGraph_t, unsigned, unsigned);
cudaError_t cudaEventCreate(cudaEvent_t *);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventQuery(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
cudaError_t cudaEventDestroy(cudaEvent_t);
const char *cudaGetErrorName(cudaError_t);

enum { HOST_REGISTER_READ_ONLY = 8 };

static char h_unsupported, h_lines, h_wide, h_store; /* host stand-ins for the kernels */

static int setup(void **state) {
  (void)state;
  size_t len;
  char *ptx = wv_test_read_text("tests/cudart/safety_kernels.ptx", &len);
  if (!ptx) return -1;
  static wv_fatbin_wrapper w;
  w = (wv_fatbin_wrapper){0x466243b1, 1, (const unsigned long long *)wv_test_make_fatbin(ptx, len), NULL};
  free(ptx);
  void **handle = __cudaRegisterFatBinary(&w);
  struct { const char *host, *name; } k[] = {
      {&h_unsupported, "unsupported"}, {&h_lines, "lines"}, {&h_wide, "wide"}, {&h_store, "store"}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    __cudaRegisterFunction(handle, k[i].host, (char *)k[i].name, k[i].name, -1, NULL, NULL, NULL, NULL, NULL);
  __cudaRegisterFatBinaryEnd(handle);
  return 0;
}

static dim3 d3(unsigned x) { return (dim3){x, 1, 1}; }

/* The device still works: an allocation, a copy, a kernel, a synchronisation. */
static void device_works(void) {
  int *d, v = 0;
  assert_int_equal(cudaMalloc((void **)&d, 4), cudaSuccess);
  unsigned seven = 7;
  void *args[] = {&d, &seven};
  assert_int_equal(cudaLaunchKernel(&h_store, d3(1), d3(1), args, 0, NULL), cudaSuccess);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  assert_int_equal(cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  assert_int_equal(v, 7);
  assert_int_equal(cudaFree(d), cudaSuccess);
}

static void stream_handles(void **state) {
  (void)state;
  cudaStream_t s, s2, bogus = (cudaStream_t)(uintptr_t)0x1234;
  unsigned zero = 0;
  int *d = NULL;
  void *args[] = {&d, &zero};
  assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
  assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
  assert_int_equal(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle); /* a double destroy */
  assert_int_equal(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaLaunchKernel(&h_store, d3(1), d3(1), args, 0, s), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaMemcpyAsync(&zero, &zero, 4, cudaMemcpyHostToHost, s), cudaErrorInvalidResourceHandle);
  /* A new stream may take the destroyed one's place: the old handle stays dead. */
  assert_int_equal(cudaStreamCreate(&s2), cudaSuccess);
  assert_true(s2 != s);
  assert_int_equal(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaStreamSynchronize(s2), cudaSuccess);
  /* Never created, or a handle of another kind. */
  assert_int_equal(cudaStreamSynchronize(bogus), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaLaunchKernel(&h_store, d3(1), d3(1), args, 0, bogus), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaStreamDestroy(bogus), cudaErrorInvalidResourceHandle);
  cudaEvent_t e;
  assert_int_equal(cudaEventCreate(&e), cudaSuccess);
  assert_int_equal(cudaStreamSynchronize((cudaStream_t)(void *)e), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaEventDestroy(e), cudaSuccess);
  assert_int_equal(cudaStreamDestroy(NULL), cudaErrorInvalidResourceHandle); /* the legacy stream */
  assert_int_equal(cudaStreamDestroy(s2), cudaSuccess);
  (void)cudaGetLastError();
  device_works(); /* none of it is sticky */
}

static void event_handles(void **state) {
  (void)state;
  cudaEvent_t a, b, bogus = (cudaEvent_t)(uintptr_t)0x1234;
  float ms;
  assert_int_equal(cudaEventCreate(&a), cudaSuccess);
  assert_int_equal(cudaEventCreate(&b), cudaSuccess);
  assert_int_equal(cudaEventRecord(a, NULL), cudaSuccess);
  assert_int_equal(cudaEventRecord(b, NULL), cudaSuccess);
  assert_int_equal(cudaEventDestroy(a), cudaSuccess);
  assert_int_equal(cudaEventDestroy(a), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaEventRecord(a, NULL), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaEventSynchronize(a), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaEventQuery(a), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaStreamWaitEvent(NULL, a, 0), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaEventQuery(bogus), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaEventDestroy(bogus), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaEventDestroy(NULL), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaEventSynchronize(b), cudaSuccess);
  assert_int_equal(cudaEventDestroy(b), cudaSuccess);
  (void)cudaGetLastError();
  device_works();
}

/* A graph that stores 5 to *d. */
static cudaGraph_t store_graph(cudaStream_t s, int **d) {
  static unsigned five = 5;
  void *args[] = {d, &five};
  cudaGraph_t g;
  assert_int_equal(cudaStreamBeginCapture(s, 0), cudaSuccess);
  assert_int_equal(cudaLaunchKernel(&h_store, d3(1), d3(1), args, 0, s), cudaSuccess);
  assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
  return g;
}

static void graph_handles(void **state) {
  (void)state;
  cudaStream_t s;
  int *d;
  cudaGraphExec_t x, x2;
  assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d, 4), cudaSuccess);
  cudaGraph_t g = store_graph(s, &d);
  assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
  assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
  /* An H100 with CUDA 13 answers cudaErrorInvalidValue for destroyed graphs and executable graphs. */
  assert_int_equal(cudaGraphLaunch(x, s), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphExecDestroy(x), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
  assert_int_equal(cudaGraphDestroy(g), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphInstantiate(&x2, g, 0), cudaErrorInvalidValue);
  size_t n = 0;
  assert_int_equal(cudaGraphGetNodes(g, NULL, &n), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphLaunch((cudaGraphExec_t)(uintptr_t)0x1234, s), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphDestroy((cudaGraph_t)(uintptr_t)0x1234), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphLaunch((cudaGraphExec_t)(void *)s, s), cudaErrorInvalidValue); /* a stream */
  /* A launch into a destroyed stream. */
  g = store_graph(s, &d);
  assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
  assert_int_equal(cudaGraphLaunch(x, s), cudaErrorInvalidResourceHandle);
  assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
  assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
  assert_int_equal(cudaFree(d), cudaSuccess);
  (void)cudaGetLastError();
  device_works();
}

/* Capture: streams leave a capture when it ends, and only a capture that is still open can be joined. */
static void capture_rules(void **state) {
  (void)state;
  cudaStream_t s, s2;
  cudaEvent_t e, back;
  cudaGraph_t g;
  int *d, st, v = 0;
  unsigned one = 1, two = 2;
  assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
  assert_int_equal(cudaStreamCreate(&s2), cudaSuccess);
  assert_int_equal(cudaEventCreate(&e), cudaSuccess);
  assert_int_equal(cudaEventCreate(&back), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d, 4), cudaSuccess);
  void *a1[] = {&d, &one}, *a2[] = {&d, &two};
  /* An event recorded in a capture that has ended (and whose graph is gone): as on an H100. */
  assert_int_equal(cudaStreamBeginCapture(s, 0), cudaSuccess);
  assert_int_equal(cudaEventRecord(e, s), cudaSuccess);
  assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
  assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
  assert_int_equal(cudaStreamWaitEvent(s2, e, 0), cudaErrorInvalidValue);
  assert_int_equal(cudaStreamIsCapturing(s2, &st), cudaSuccess);
  assert_int_equal(st, 0);
  assert_int_equal(cudaLaunchKernel(&h_store, d3(1), d3(1), a1, 0, s2), cudaSuccess); /* runs now */
  assert_int_equal(cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  assert_int_equal(v, 1);
  /* A fork that is not joined back: cudaErrorStreamCaptureUnjoined, and neither stream captures after. */
  assert_int_equal(cudaStreamBeginCapture(s, 0), cudaSuccess);
  assert_int_equal(cudaEventRecord(e, s), cudaSuccess);
  assert_int_equal(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
  assert_int_equal(cudaLaunchKernel(&h_store, d3(1), d3(1), a2, 0, s2), cudaSuccess);
  assert_int_equal(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureUnjoined);
  assert_null(g);
  assert_int_equal(cudaStreamIsCapturing(s, &st), cudaSuccess);
  assert_int_equal(st, 0);
  assert_int_equal(cudaStreamIsCapturing(s2, &st), cudaSuccess);
  assert_int_equal(st, 0);
  assert_int_equal(cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  assert_int_equal(v, 1); /* nothing captured ran */
  /* Fork and join: one graph with both streams' work; after it ends s2 runs its work at once again. */
  assert_int_equal(cudaStreamBeginCapture(s, 0), cudaSuccess);
  assert_int_equal(cudaEventRecord(e, s), cudaSuccess);
  assert_int_equal(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
  assert_int_equal(cudaLaunchKernel(&h_store, d3(1), d3(1), a2, 0, s2), cudaSuccess);
  assert_int_equal(cudaEventRecord(back, s2), cudaSuccess);
  assert_int_equal(cudaStreamWaitEvent(s, back, 0), cudaSuccess);
  assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
  size_t n = 0;
  assert_int_equal(cudaGraphGetNodes(g, NULL, &n), cudaSuccess);
  assert_int_equal(n, 1); /* the kernel: records that fork and join make no nodes (cudaEventRecordExternal would) */
  assert_int_equal(cudaStreamIsCapturing(s2, &st), cudaSuccess);
  assert_int_equal(st, 0);
  assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
  assert_int_equal(cudaStreamWaitEvent(s2, back, 0), cudaErrorInvalidValue); /* recorded in that capture */
  assert_int_equal(cudaEventRecord(back, s2), cudaSuccess);
  assert_int_equal(cudaStreamWaitEvent(s, back, 0), cudaSuccess); /* recorded outside a capture */
  assert_int_equal(cudaGraphDestroy(g), cudaErrorInvalidValue);
  /* A stream destroyed while it captures takes its capture with it. */
  assert_int_equal(cudaStreamBeginCapture(s2, 0), cudaSuccess);
  assert_int_equal(cudaEventRecord(e, s2), cudaSuccess);
  assert_int_equal(cudaStreamDestroy(s2), cudaSuccess);
  assert_int_equal(cudaStreamWaitEvent(s, e, 0), cudaErrorInvalidValue);
  assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
  assert_int_equal(cudaEventDestroy(e), cudaSuccess);
  assert_int_equal(cudaEventDestroy(back), cudaSuccess);
  assert_int_equal(cudaFree(d), cudaSuccess);
  (void)cudaGetLastError();
  device_works();
}

/* Graphs built wrongly are refused with an error; nothing crashes or hangs. */
static void graph_misuse(void **state) {
  (void)state;
  cudaGraph_t g, g2;
  cudaGraphNode_t a, b, c, two[2];
  cudaGraphExec_t x;
  cudaStream_t s;
  int t;
  assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
  assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
  assert_int_equal(cudaGraphCreate(&g2, 0), cudaSuccess);
  assert_int_equal(cudaGraphAddEmptyNode(&a, g, NULL, 0), cudaSuccess);
  assert_int_equal(cudaGraphAddEmptyNode(&b, g, &a, 1), cudaSuccess);
  assert_int_equal(cudaGraphAddEmptyNode(&c, g2, &a, 1), cudaErrorInvalidValue); /* a node of another graph */
  two[0] = two[1] = a;
  assert_int_equal(cudaGraphAddEmptyNode(&c, g, two, 2), cudaErrorInvalidValue); /* the same node twice */
  assert_int_equal(cudaGraphAddEmptyNode(&c, g, NULL, 1), cudaErrorInvalidValue);
  /* A cycle: instantiating refuses it; undone, the graph runs. */
  assert_int_equal(cudaGraphAddDependencies_v2(g, &b, &a, NULL, 1), cudaSuccess);
  assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphAddDependencies_v2(g, &b, &a, NULL, 1), cudaErrorInvalidValue); /* already there */
  assert_int_equal(cudaGraphRemoveDependencies_v2(g, &b, &a, NULL, 1), cudaSuccess);
  assert_int_equal(cudaGraphRemoveDependencies_v2(g, &b, &a, NULL, 1), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
  assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
  /* Destroyed, made-up and wrong-kind node handles. */
  assert_int_equal(cudaGraphDestroyNode(b), cudaSuccess);
  assert_int_equal(cudaGraphNodeGetType(b, &t), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphDestroyNode(b), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphNodeGetType((cudaGraphNode_t)(uintptr_t)0x1234, &t), cudaErrorInvalidValue);
  assert_int_equal(cudaGraphNodeGetType((cudaGraphNode_t)(void *)g, &t), cudaErrorInvalidValue); /* a graph */
  struct cudaKernelNodeParams kp;
  assert_int_equal(cudaGraphKernelNodeGetParams(a, &kp), cudaErrorInvalidValue); /* an empty node */
  /* Parameters out of range. */
  int *d;
  assert_int_equal(cudaMalloc((void **)&d, 64), cudaSuccess);
  struct cudaMemsetParams ms = {d, 0, 1, 3, 4, 1};
  assert_int_equal(cudaGraphAddMemsetNode(&c, g, NULL, 0, &ms), cudaErrorInvalidValue); /* 3-byte elements */
  assert_int_equal(cudaGraphAddMemFreeNode(&c, g, NULL, 0, d), cudaErrorInvalidValue);  /* not a graph's memory */
  kp = (struct cudaKernelNodeParams){&h_store, d3(1), d3(1), 0, NULL, NULL};
  assert_int_equal(cudaGraphAddKernelNode(&c, g, NULL, 0, &kp), cudaErrorInvalidValue); /* no arguments */
  /* A conditional node needs a handle of its graph; a WHILE loop whose body can never end it fails at
   * launch instead of hanging. */
  cudaGraphConditionalHandle h;
  assert_int_equal(cudaGraphConditionalHandleCreate(&h, g2, 1, cudaGraphCondAssignDefault), cudaSuccess);
  struct cudaGraphNodeParams p = {.type = cudaGraphNodeTypeConditional};
  p.u.conditional = (struct cudaConditionalNodeParams){h, cudaGraphCondTypeWhile, 1, NULL};
  assert_int_equal(cudaGraphAddNode_v2(&c, g, NULL, NULL, 0, &p), cudaErrorInvalidValue);
  p.u.conditional.size = 2;
  assert_int_equal(cudaGraphAddNode_v2(&c, g2, NULL, NULL, 0, &p), cudaErrorInvalidValue); /* WHILE has one body */
  p.u.conditional.size = 1;
  assert_int_equal(cudaGraphAddNode_v2(&c, g2, NULL, NULL, 0, &p), cudaSuccess);
  assert_non_null(p.u.conditional.phGraph_out);
  assert_int_equal(cudaGraphInstantiate(&x, g2, 0), cudaSuccess);
  assert_int_equal(cudaGraphLaunch(x, s), cudaErrorLaunchTimeout);
  assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
  assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
  assert_int_equal(cudaGraphDestroy(g2), cudaSuccess);
  assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
  assert_int_equal(cudaFree(d), cudaSuccess);
  (void)cudaGetLastError();
  device_works();
}

static void sizes_that_overflow(void **state) {
  (void)state;
  void *p = (void *)1;
  size_t pitch = 7;
  /* cudaMallocPitch: as an H100 answers (tests/cudart/misuse_h100.txt). */
  assert_int_equal(cudaMallocPitch(&p, &pitch, SIZE_MAX - 10, 1), cudaErrorInvalidValue);
  assert_null(p);
  assert_int_equal(cudaMallocPitch(&p, &pitch, (size_t)1 << 40, (size_t)1 << 40), cudaErrorInvalidValue);
  assert_null(p);
  assert_int_equal(cudaMallocPitch(&p, &pitch, 1 << 20, (size_t)1 << 62), cudaErrorInvalidValue);
  assert_null(p);
  assert_int_equal(cudaMallocPitch(&p, &pitch, 0, 5), cudaSuccess);
  assert_null(p);
  assert_int_equal(pitch, 0);
  assert_int_equal(cudaMallocPitch(&p, &pitch, 100, 3), cudaSuccess);
  assert_non_null(p);
  assert_int_equal(pitch, 512);
  assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
  /* Copies and sets whose end is past the allocation or the address space. */
  char h[1024];
  assert_int_equal(cudaMemcpy(h, p, SIZE_MAX, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  assert_int_equal(cudaMemcpy(h, (char *)p + 1000, SIZE_MAX - 500, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  assert_int_equal(cudaMemcpy(h, p, 1537, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  assert_int_equal(cudaMemcpy(h, p, 1024, cudaMemcpyDeviceToHost), cudaSuccess);
  assert_int_equal(cudaMemset(p, 0, SIZE_MAX), cudaErrorInvalidValue);
  assert_int_equal(cudaMemcpy2D(h, (size_t)1 << 40, p, (size_t)1 << 40, 4, (size_t)1 << 30, cudaMemcpyDeviceToHost),
                   cudaErrorInvalidValue);
  assert_int_equal(cudaMemcpy2D(h, SIZE_MAX, p, 16, 4, 3, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  assert_int_equal(cudaMemset2D(p, (size_t)1 << 62, 0, 4, 8), cudaErrorInvalidValue);
  assert_int_equal(cudaMemcpy2D(h, 8, p, 512, 8, 3, cudaMemcpyDeviceToHost), cudaSuccess);
  void *hp = (void *)1;
  assert_int_equal(cudaMallocHost(&hp, SIZE_MAX - 100), cudaErrorMemoryAllocation);
  assert_null(hp);
  assert_int_equal(cudaFree(p), cudaSuccess);
  (void)cudaGetLastError();
  device_works();
}

static void host_register_checks(void **state) {
  (void)state;
  long pg = sysconf(_SC_PAGESIZE);
  char *m = mmap(NULL, 4 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(m != MAP_FAILED);
  munmap(m + pg, (size_t)pg);                 /* page 1: a hole */
  mprotect(m + 2 * pg, (size_t)pg, PROT_READ); /* page 2: read-only */
  /* As an H100 answers: not mapped, partly not mapped, not writable: cudaErrorInvalidValue. */
  assert_int_equal(cudaHostRegister(m + pg, (size_t)pg, 0), cudaErrorInvalidValue);
  assert_int_equal(cudaHostRegister(m, 3 * (size_t)pg, 0), cudaErrorInvalidValue);
  assert_int_equal(cudaHostRegister(m + 2 * pg, (size_t)pg, 0), cudaErrorInvalidValue);
  static const char ro[64] = "read-only data";
  assert_int_equal(cudaHostRegister((void *)ro, sizeof ro, 0), cudaErrorInvalidValue);
  assert_int_equal(cudaHostRegister(m + 3 * pg, SIZE_MAX, 0), cudaErrorInvalidValue);
  /* The device cannot map read-only (cudaDevAttrHostRegisterReadOnlySupported is 0). */
  assert_int_equal(cudaHostRegister(m + 2 * pg, (size_t)pg, HOST_REGISTER_READ_ONLY), cudaErrorNotSupported);
  /* Mapped and writable: a kernel stores through the host pointer. */
  int *w = (int *)(m + 3 * pg);
  assert_int_equal(cudaHostRegister(w, (size_t)pg, 0), cudaSuccess);
  assert_int_equal(cudaHostRegister(w, (size_t)pg, 0), cudaErrorHostMemoryAlreadyRegistered);
  unsigned nine = 9;
  void *args[] = {&w, &nine};
  assert_int_equal(cudaLaunchKernel(&h_store, d3(1), d3(1), args, 0, NULL), cudaSuccess);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  assert_int_equal(*w, 9);
  assert_int_equal(cudaHostUnregister(w), cudaSuccess);
  assert_int_equal(cudaHostUnregister(w), cudaErrorHostMemoryNotRegistered);
  munmap(m, (size_t)pg);
  munmap(m + 2 * pg, 2 * (size_t)pg);
  (void)cudaGetLastError();
  device_works();
}

static void launch_refusals_are_not_sticky(void **state) {
  (void)state;
  int *d;
  assert_int_equal(cudaMalloc((void **)&d, 4), cudaSuccess);
  void *args[] = {&d};
  /* Valid PTX warpvm does not run: the launch says so and nothing else is affected. */
  assert_int_equal(cudaLaunchKernel(&h_unsupported, d3(1), d3(1), args, 0, NULL), cudaErrorNotSupported);
  assert_int_equal(cudaPeekAtLastError(), cudaErrorNotSupported);
  assert_int_equal(cudaGetLastError(), cudaErrorNotSupported);
  assert_int_equal(cudaGetLastError(), cudaSuccess);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  assert_int_equal(cudaFree(d), cudaSuccess);
  device_works();
  /* Too much dynamic shared memory, too many threads: refused at the launch only. */
  unsigned one = 1;
  void *sargs[] = {&d, &one};
  assert_int_equal(cudaLaunchKernel(&h_store, d3(1), d3(1), sargs, 100 * 1024, NULL), cudaErrorInvalidValue);
  assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
  cudaError_t bad = WV_CUDART_MAJOR >= 13 ? cudaErrorInvalidValue : cudaErrorInvalidConfiguration;
  assert_int_equal(cudaLaunchKernel(&h_store, d3(1), d3(2048), sargs, 0, NULL), bad);
  assert_int_equal(cudaGetLastError(), bad);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  device_works();
}

static void limits(void **state) {
  (void)state;
  size_t v = 0;
  assert_int_equal(cudaDeviceGetLimit(&v, 1), cudaSuccess); /* cudaLimitPrintfFifoSize */
  assert_int_equal(v, (size_t)1 << 20);
  assert_int_equal(cudaDeviceSetLimit(1, 4096), cudaSuccess); /* clamped up, as an H100 does */
  assert_int_equal(cudaDeviceGetLimit(&v, 1), cudaSuccess);
  assert_int_equal(v, (size_t)512 << 10);
  assert_int_equal(cudaDeviceSetLimit(1, (size_t)1 << 40), cudaSuccess); /* clamped down */
  assert_int_equal(cudaDeviceGetLimit(&v, 1), cudaSuccess);
  assert_int_equal(v, (size_t)2 << 30);
  assert_int_equal(cudaDeviceSetLimit(1, (size_t)1 << 20), cudaSuccess);
  assert_int_equal(cudaDeviceSetLimit(99, 5), cudaErrorInvalidValue);
  assert_int_equal(cudaDeviceGetLimit(&v, 99), cudaErrorInvalidValue);
  (void)cudaGetLastError();
}

/* ---- children: what the runtime says on stderr, and device printf on stdout ---- */

/* Misuse is said once per API function, naming it and the handle. */
static int child_misuse(void) {
  cudaStream_t s;
  cudaEvent_t e;
  cudaStreamCreate(&s);
  cudaStreamDestroy(s);
  for (int i = 0; i < 3; i++) cudaStreamDestroy(s);
  cudaStreamSynchronize((cudaStream_t)(uintptr_t)0x1234);
  cudaEventCreate(&e);
  cudaEventDestroy(e);
  cudaEventDestroy(e);
  cudaGraphExecDestroy((cudaGraphExec_t)(uintptr_t)0x1234);
  return 0;
}

/* A launch refusal says why, once per reason; the program goes on. */
static int child_refusals(void) {
  if (setup(NULL)) return 3;
  int *d;
  unsigned one = 1;
  cudaMalloc((void **)&d, 4);
  void *args[] = {&d, &one};
  for (int i = 0; i < 3; i++) {
    cudaLaunchKernel(&h_unsupported, d3(1), d3(1), args, 0, NULL);
    cudaLaunchKernel(&h_store, d3(1), d3(1), args, 100 * 1024, NULL);
  }
  printf("malloc after: %s\n", cudaGetErrorName(cudaMalloc((void **)&d, 4)));
  return 0;
}

/* 60000 printf records of 12 bytes into the smallest FIFO (512 KiB): the newest 43690 are kept. */
static int child_printf(void) {
  if (setup(NULL)) return 3;
  unsigned n = 60000, three = 3;
  void *args[] = {&n}, *args3[] = {&three};
  printf("set: %s\n", cudaGetErrorName(cudaDeviceSetLimit(1, 4096)));
  fflush(stdout);
  cudaLaunchKernel(&h_lines, d3(1), d3(1), args, 0, NULL);
  cudaDeviceSynchronize();
  cudaLaunchKernel(&h_lines, d3(1), d3(1), args3, 0, NULL); /* flushed at its own launch: fits */
  cudaDeviceSynchronize();
  fflush(stdout);
  printf("set after printf: %s\n", cudaGetErrorName(cudaDeviceSetLimit(1, 1 << 20)));
  cudaLaunchKernel(&h_wide, d3(1), d3(1), NULL, 0, NULL); /* one huge-width record */
  cudaDeviceSynchronize();
  return 0;
}

/* Registered memory the program unmaps: dropped before the next launch, which faults cleanly. */
static int child_unmapped(void) {
  if (setup(NULL)) return 3;
  long pg = sysconf(_SC_PAGESIZE);
  int *w = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned one = 1;
  void *args[] = {&w, &one};
  printf("register: %s\n", cudaGetErrorName(cudaHostRegister(w, (size_t)pg, 0)));
  munmap(w, (size_t)pg);
  printf("launch: %s\n", cudaGetErrorName(cudaLaunchKernel(&h_store, d3(1), d3(1), args, 0, NULL)));
  printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  printf("reset: %s\n", cudaGetErrorName(cudaDeviceReset()));
  return 0;
}

static char out[1 << 20], err[1 << 16];

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
  return n;
}

static void misuse_is_said_once(void **state) {
  (void)state;
  assert_int_equal(wv_test_run_child("--misuse", NULL, NULL, out, sizeof out, err, sizeof err), 0);
  assert_int_equal(count(err, "warpvm: cudaStreamDestroy: "), 1);
  assert_int_equal(count(err, "is not a live stream (destroyed already, or never created): "
                              "cudaErrorInvalidResourceHandle"), 2);
  assert_int_equal(count(err, "warpvm: cudaStreamSynchronize: 0x1234 is not a live stream"), 1);
  assert_int_equal(count(err, "warpvm: cudaEventDestroy: "), 1);
  assert_int_equal(count(err, "warpvm: cudaGraphExecDestroy: 0x1234 is not a live executable graph"), 1);
}

static void refusals_say_why_once(void **state) {
  (void)state;
  assert_int_equal(wv_test_run_child("--refusals", NULL, NULL, out, sizeof out, err, sizeof err), 0);
  assert_non_null(strstr(out, "malloc after: cudaSuccess"));
  if (count(err, "launch of kernel 'unsupported' refused (cudaErrorNotSupported): ") != 1 ||
      count(err, "unsupported instruction 'mad24.lo.sat.s32'") != 1)
    fail_msg("stderr: %s", err);
  if (count(err, "launch of kernel 'store' refused (cudaErrorInvalidValue): 102400 bytes of dynamic shared memory") != 1)
    fail_msg("stderr: %s", err);
}

static void printf_fifo_keeps_the_newest(void **state) {
  (void)state;
  assert_int_equal(wv_test_run_child("--printf", NULL, NULL, out, sizeof out, err, sizeof err), 0);
  assert_non_null(strstr(out, "set: cudaSuccess\nline 016310\n"));
  assert_int_equal(count(out, "line "), 43690 + 3);
  assert_non_null(strstr(out, "line 059999\nline 000000\nline 000001\nline 000002\nset after printf: "
                              "cudaErrorInvalidValue\n"));
  assert_int_equal(count(err, "device printf records were lost"), 1);
  assert_non_null(strstr(err, "16310 device printf records were lost: the printf FIFO holds 524288 bytes"));
  /* The huge width is clamped (src/exec/printf_fmt.h): one bounded record. */
  const char *w = strstr(out, "cudaErrorInvalidValue\n") + strlen("cudaErrorInvalidValue\n");
  assert_int_equal(strlen(w), 65536 + 2);
  assert_string_equal(w + 65536 - 1, "5|\n");
}

static void unmapped_registered_memory_faults(void **state) {
  (void)state;
  assert_int_equal(wv_test_run_child("--unmapped", NULL, NULL, out, sizeof out, err, sizeof err), 0);
  assert_non_null(strstr(out, "register: cudaSuccess\nlaunch: cudaSuccess\nsync: cudaErrorIllegalAddress\n"
                              "reset: cudaSuccess\n"));
  if (!strstr(err, "is no longer usable (part of it is not mapped): warpvm dropped it, a kernel touching it faults"))
    fail_msg("stderr: %s", err);
}

/* A WARPVM_* number the launcher would never set stops the program at start-up, naming it. */
static void bad_environment_stops_the_program(void **state) {
  (void)state;
  assert_int_equal(wv_test_run_child("--misuse", "WARPVM_STACK", "big", out, sizeof out, err, sizeof err), 1);
  if (!strstr(err, "warpvm: bad WARPVM_STACK=big (a number from 0 to 4294967295)")) fail_msg("stderr: %s", err);
  assert_int_equal(wv_test_run_child("--misuse", "WARPVM_TIMEOUT", "4294967296", out, sizeof out, err, sizeof err), 1);
  if (!strstr(err, "warpvm: bad WARPVM_TIMEOUT=4294967296")) fail_msg("stderr: %s", err);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--misuse")) return child_misuse();
  if (argc > 1 && !strcmp(argv[1], "--refusals")) return child_refusals();
  if (argc > 1 && !strcmp(argv[1], "--printf")) return child_printf();
  if (argc > 1 && !strcmp(argv[1], "--unmapped")) return child_unmapped();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stream_handles),          cmocka_unit_test(event_handles),
      cmocka_unit_test(graph_handles),           cmocka_unit_test(capture_rules),
      cmocka_unit_test(graph_misuse),
      cmocka_unit_test(sizes_that_overflow),     cmocka_unit_test(host_register_checks),
      cmocka_unit_test(launch_refusals_are_not_sticky), cmocka_unit_test(limits),
      cmocka_unit_test(misuse_is_said_once),     cmocka_unit_test(refusals_say_why_once),
      cmocka_unit_test(printf_fifo_keeps_the_newest), cmocka_unit_test(unmapped_registered_memory_faults),
      cmocka_unit_test(bad_environment_stops_the_program),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
