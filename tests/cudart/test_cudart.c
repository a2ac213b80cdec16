/*
 * test_cudart.c — warpvm's libcudart.so.13 driven the way nvcc's host code drives it, without
 * nvcc: a fatbin wrapper around rt_kernels.ptx is registered with __cudaRegisterFatBinary, its
 * kernels and variables with __cudaRegisterFunction/Var/ManagedVar, and the runtime API is then
 * called as a CUDA program would. Expected values are CUDA's documented behaviour.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

/* Built twice: against libcudart.so.13 and libcudart.so.12 (WV_CUDART_MAJOR set by CMake). */
#include "cudart/abi.h"

/* The runtime API as CUDA 13's headers declare it (the subset used here). */
void **__cudaRegisterFatBinary(void *);
void __cudaRegisterFatBinaryEnd(void **);
void __cudaRegisterFunction(void **, const char *, char *, const char *, int, void *, void *, void *, void *, int *);
void __cudaRegisterVar(void **, char *, char *, const char *, int, size_t, int, int);
void __cudaRegisterManagedVar(void **, void **, char *, const char *, int, size_t, int, int);
unsigned __cudaPushCallConfiguration(dim3, dim3, size_t, cudaStream_t);
cudaError_t __cudaPopCallConfiguration(dim3 *, dim3 *, size_t *, void *);
cudaError_t cudaMalloc(void **, size_t);
cudaError_t cudaFree(void *);
cudaError_t cudaMallocManaged(void **, size_t, unsigned);
cudaError_t cudaMallocHost(void **, size_t);
cudaError_t cudaFreeHost(void *);
cudaError_t cudaMemcpy(void *, const void *, size_t, int);
cudaError_t cudaMemcpyAsync(void *, const void *, size_t, int, cudaStream_t);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaMemsetAsync(void *, int, size_t, cudaStream_t);
cudaError_t cudaMemcpyToSymbol(const void *, const void *, size_t, size_t, int);
cudaError_t cudaMemcpyFromSymbol(void *, const void *, size_t, size_t, int);
cudaError_t cudaGetSymbolAddress(void **, const void *);
cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorName(cudaError_t);
const char *cudaGetErrorString(cudaError_t);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *, int);
cudaError_t cudaRuntimeGetVersion(int *);
cudaError_t cudaDeviceGetAttribute(int *, int, int);
cudaError_t cudaStreamCreate(cudaStream_t *);
cudaError_t cudaStreamDestroy(cudaStream_t);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaStreamBeginCapture(cudaStream_t, int);
cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t *);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *, cudaGraph_t, unsigned long long);
cudaError_t cudaGraphLaunch(cudaGraphExec_t, cudaStream_t);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t);
cudaError_t cudaGraphDestroy(cudaGraph_t);
cudaError_t cudaEventCreate(cudaEvent_t *);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
cudaError_t cudaEventDestroy(cudaEvent_t);
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t, void *);
cudaError_t cudaFuncSetAttribute(const void *, int, int);

/* Host-side stand-ins for what nvcc would name: any distinct addresses do. */
static char h_add, h_sym, h_bump, h_wild, h_hello, h_assert, h_spin, h_overread;
static int g_dev_shadow[8], g_const_shadow[4];
static int *g_man_ptr; /* nvcc reads managed variables through such a pointer */
static void **handle;

static int setup(void **state) {
  (void)state;
  size_t len;
  char *ptx = wv_test_read_text("tests/cudart/rt_kernels.ptx", &len);
  if (!ptx) return -1;
  static wv_fatbin_wrapper w;
  w = (wv_fatbin_wrapper){0x466243b1, 1, (const unsigned long long *)wv_test_make_fatbin(ptx, len), NULL};
  free(ptx);
  handle = __cudaRegisterFatBinary(&w);
  struct { const char *host; const char *name; } k[] = {{&h_add, "add"}, {&h_sym, "sym"}, {&h_bump, "bump_managed"},
    {&h_wild, "wild"}, {&h_hello, "hello"}, {&h_assert, "fail_assert"}, {&h_spin, "spin"},
    {&h_overread, "overread"}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    __cudaRegisterFunction(handle, k[i].host, (char *)k[i].name, k[i].name, -1, NULL, NULL, NULL, NULL, NULL);
  __cudaRegisterVar(handle, (char *)g_dev_shadow, "g_dev", "g_dev", 0, sizeof g_dev_shadow, 0, 0);
  __cudaRegisterVar(handle, (char *)g_const_shadow, "g_const", "g_const", 0, sizeof g_const_shadow, 1, 0);
  __cudaRegisterManagedVar(handle, (void **)&g_man_ptr, "g_man", "g_man", 0, sizeof(int), 0, 0);
  __cudaRegisterFatBinaryEnd(handle);
  return 0;
}

static dim3 d3(unsigned x) { return (dim3){x, 1, 1}; }

static void launch_and_copy(void **state) {
  (void)state;
  int *d, h[64];
  assert_int_equal(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
  assert_int_equal(cudaMemset(d, 0, sizeof h), cudaSuccess);
  int v = 100, n = 50;
  void *args[] = {&d, &v, &n};
  assert_int_equal(cudaLaunchKernel(&h_add, d3(2), d3(32), args, 0, NULL), cudaSuccess);
  assert_int_equal(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 64; i++) assert_int_equal(h[i], i < 50 ? 100 + i : 0);
  /* <<<>>> as nvcc compiles it: push the configuration, the stub pops it and launches. */
  assert_int_equal(__cudaPushCallConfiguration(d3(1), d3(64), 0, NULL), 0);
  dim3 g, b;
  size_t sh;
  cudaStream_t s;
  assert_int_equal(__cudaPopCallConfiguration(&g, &b, &sh, &s), cudaSuccess);
  n = 64;
  assert_int_equal(cudaLaunchKernel(&h_add, g, b, args, sh, s), cudaSuccess);
  int *d2;
  assert_int_equal(cudaMalloc((void **)&d2, sizeof h), cudaSuccess);
  assert_int_equal(cudaMemcpy(d2, d, sizeof h, cudaMemcpyDefault), cudaSuccess); /* device to device, inferred */
  memset(h, 0, sizeof h);
  assert_int_equal(cudaMemcpy(h, d2, sizeof h, cudaMemcpyDefault), cudaSuccess);
  assert_int_equal(h[0], 200);
  assert_int_equal(h[63], 100 + 63);
  /* A host pointer where the device side is named: invalid argument, and the last error says so. */
  assert_int_equal(cudaMemcpy(h, h + 32, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
  assert_int_equal(cudaGetLastError(), cudaSuccess);
  assert_int_equal(cudaFree(d), cudaSuccess);
  assert_int_equal(cudaFree(d2), cudaSuccess);
  assert_int_equal(cudaFree(d2), cudaErrorInvalidValue); /* double free */
  (void)cudaGetLastError();
}

static void symbols_and_managed(void **state) {
  (void)state;
  int c[4] = {1000, 2000, 3000, 4000}, *out, h[8];
  assert_non_null(g_man_ptr);
  assert_int_equal(*g_man_ptr, 7); /* the host reads the managed variable's initial value directly */
  *g_man_ptr = 9;
  assert_int_equal(cudaMemcpyToSymbol(g_const_shadow, c, sizeof c, 0, cudaMemcpyHostToDevice), cudaSuccess);
  int five = 50;
  assert_int_equal(cudaMemcpyToSymbol(g_dev_shadow, &five, 4, 4 * 4, cudaMemcpyHostToDevice), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&out, sizeof h), cudaSuccess);
  void *args[] = {&out};
  assert_int_equal(cudaLaunchKernel(&h_sym, d3(1), d3(8), args, 0, NULL), cudaSuccess);
  assert_int_equal(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  int dev[8] = {1, 2, 3, 4, 50, 6, 7, 8};
  for (int i = 0; i < 8; i++) assert_int_equal(h[i], dev[i] * 10 + c[i % 4] + 9);
  int back[2];
  assert_int_equal(cudaMemcpyFromSymbol(back, g_dev_shadow, sizeof back, 3 * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  assert_int_equal(back[0], 4);
  assert_int_equal(back[1], 50);
  assert_int_equal(cudaMemcpyToSymbol(g_dev_shadow, c, sizeof c, 20, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  void *addr;
  assert_int_equal(cudaGetSymbolAddress(&addr, g_dev_shadow), cudaSuccess);
  assert_int_equal(cudaMemcpy(back, addr, 4, cudaMemcpyDefault), cudaSuccess);
  assert_int_equal(back[0], 1);
  /* Managed and pinned memory: the kernel and the host use the same pointer. */
  int *m, *pinned;
  assert_int_equal(cudaMallocManaged((void **)&m, 4, 1), cudaSuccess);
  *m = 41;
  void *margs[] = {&m};
  assert_int_equal(cudaLaunchKernel(&h_bump, d3(1), d3(1), margs, 0, NULL), cudaSuccess);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  assert_int_equal(*m, 42);
  assert_int_equal(cudaMallocHost((void **)&pinned, 4), cudaSuccess);
  *pinned = 1;
  void *pargs[] = {&pinned};
  assert_int_equal(cudaLaunchKernel(&h_bump, d3(1), d3(32), pargs, 0, NULL), cudaSuccess);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  assert_int_equal(*pinned, 33);
  assert_int_equal(cudaFreeHost(pinned), cudaSuccess);
  assert_int_equal(cudaFree(m), cudaSuccess);
  assert_int_equal(cudaFree(out), cudaSuccess);
}

static void config_errors_are_not_sticky(void **state) {
  (void)state;
  int z = 0;
  void *args[] = {&z};
  /* CUDA 13 answers an impossible block with cudaErrorInvalidValue (an H200 does: tests/programs/errors.cu);
   * CUDA 12 documents cudaErrorInvalidConfiguration. */
  cudaError_t bad = WV_CUDART_MAJOR >= 13 ? cudaErrorInvalidValue : cudaErrorInvalidConfiguration;
  assert_int_equal(cudaLaunchKernel(&h_hello, d3(1), d3(2048), args, 0, NULL), bad);
  assert_int_equal(cudaPeekAtLastError(), bad);
  assert_int_equal(cudaGetLastError(), bad);
  assert_int_equal(cudaGetLastError(), cudaSuccess);
  assert_int_equal(cudaLaunchKernel(&h_hello, d3(1), d3(32), args, 64 * 1024, NULL), cudaErrorInvalidValue);
  assert_int_equal(cudaFuncSetAttribute(&h_hello, 8, 64 * 1024), cudaSuccess); /* opt in to 64 KB */
  assert_int_equal(cudaLaunchKernel(&h_hello, d3(1), d3(32), args, 64 * 1024, NULL), cudaSuccess);
  assert_int_equal(cudaLaunchKernel(&z, d3(1), d3(32), args, 0, NULL), cudaErrorInvalidDeviceFunction);
  (void)cudaGetLastError();
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
}

static void streams_graphs_events(void **state) {
  (void)state;
  cudaStream_t s;
  cudaEvent_t a, b;
  int *d, h[32];
  assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
  assert_int_equal(cudaEventCreate(&a), cudaSuccess);
  assert_int_equal(cudaEventCreate(&b), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
  assert_int_equal(cudaMemsetAsync(d, 0, sizeof h, s), cudaSuccess);
  int v = 1, n = 32;
  void *args[] = {&d, &v, &n};
  /* Capture: the work is recorded, not run; argument values are copied at capture time. */
  assert_int_equal(cudaStreamBeginCapture(s, 0), cudaSuccess);
  assert_int_equal(cudaLaunchKernel(&h_add, d3(1), d3(32), args, 0, s), cudaSuccess);
  v = 1000; /* must not affect the captured launch */
  assert_int_equal(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s), cudaSuccess);
  cudaGraph_t g;
  cudaGraphExec_t x;
  assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
  assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
  int zero[32] = {0};
  assert_int_equal(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  assert_memory_equal(h, zero, sizeof h); /* nothing ran during capture */
  assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  assert_int_equal(cudaGraphDestroy(g), cudaSuccess); /* the executable graph keeps its own copy */
  assert_int_equal(cudaEventRecord(a, s), cudaSuccess);
  for (int i = 0; i < 3; i++) assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
  assert_int_equal(cudaEventRecord(b, s), cudaSuccess);
  assert_int_equal(cudaEventSynchronize(b), cudaSuccess);
  for (int i = 0; i < 32; i++) assert_int_equal(h[i], 3 * (1 + i)); /* the graph's memcpy refreshed h */
  float ms = -1;
  assert_int_equal(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
  assert_true(ms >= 0);
  assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
  assert_int_equal(cudaEventDestroy(a), cudaSuccess);
  assert_int_equal(cudaEventDestroy(b), cudaSuccess);
  assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
  assert_int_equal(cudaFree(d), cudaSuccess);
}

static void device_properties(void **state) {
  (void)state;
  cudaDeviceProp p;
  int v;
  assert_int_equal(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  assert_int_equal(p.warpSize, 32);
  assert_non_null(strstr(p.name, "warpvm"));
  assert_int_equal(cudaDeviceGetAttribute(&v, 10, 0), cudaSuccess); /* cudaDevAttrWarpSize */
  assert_int_equal(v, p.warpSize);
  assert_int_equal(cudaDeviceGetAttribute(&v, 16, 0), cudaSuccess); /* MultiProcessorCount */
  assert_int_equal(v, p.multiProcessorCount);
  assert_int_equal(cudaDeviceGetAttribute(&v, 97, 0), cudaSuccess); /* MaxSharedMemoryPerBlockOptin */
  assert_int_equal((size_t)v, p.sharedMemPerBlockOptin);
  assert_int_equal(cudaDeviceGetAttribute(&v, 75, 0), cudaSuccess);
  assert_int_equal(v, p.major);
  assert_int_equal(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
  assert_int_equal(cudaRuntimeGetVersion(&v), cudaSuccess);
  assert_int_equal(v / 1000, WV_CUDART_MAJOR);
  (void)cudaGetLastError();
}

static void unsupported_entry_points(void **state) {
  (void)state;
  /* Any libcudart entry point exists; those warpvm lacks say cudaErrorNotSupported. */
  cudaError_t (*f)(void) = (cudaError_t(*)(void))dlsym(RTLD_DEFAULT, "cudaCreateTextureObject");
  assert_non_null(f);
  assert_int_equal(f(), cudaErrorNotSupported);
  assert_int_equal(cudaGetLastError(), cudaErrorNotSupported);
  assert_non_null(dlsym(RTLD_DEFAULT, "cudaMemcpy_ptds")); /* per-thread default stream aliases */
  assert_string_equal(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
  assert_string_equal(cudaGetErrorString(cudaErrorAssert), "device-side assert triggered");
  assert_string_equal(cudaGetErrorString((cudaError_t)12345), "unrecognized error code");
}

static void faults_are_sticky_until_reset(void **state) {
  (void)state;
  int *d;
  assert_int_equal(cudaMalloc((void **)&d, 64), cudaSuccess);
  void *args[] = {&d};
  /* As on a GPU: the launch succeeds, the next synchronising call reports the fault, and every
   * later device call keeps reporting it until cudaDeviceReset. */
  assert_int_equal(cudaLaunchKernel(&h_wild, d3(1), d3(1), args, 0, NULL), cudaSuccess);
  assert_int_equal(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  assert_int_equal(cudaMalloc((void **)&d, 64), cudaErrorIllegalAddress);
  assert_int_equal(cudaGetLastError(), cudaErrorIllegalAddress); /* once (as an H200 with CUDA 13) */
  assert_int_equal(cudaGetLastError(), cudaSuccess);
  assert_int_equal(cudaMemset(d, 0, 4), cudaErrorIllegalAddress); /* but device calls keep failing */
  assert_int_equal(cudaDeviceReset(), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d, 64), cudaSuccess);
  int one = 1;
  void *aargs[] = {&one};
  assert_int_equal(cudaLaunchKernel(&h_assert, d3(1), d3(4), aargs, 0, NULL), cudaSuccess);
  assert_int_equal(cudaDeviceSynchronize(), cudaErrorAssert);
  assert_int_equal(cudaDeviceReset(), cudaSuccess);
  /* After the reset the module is fresh: g_dev is back to its initializer. */
  int back;
  assert_int_equal(cudaMemcpyFromSymbol(&back, g_dev_shadow, 4, 4 * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  assert_int_equal(back, 5);
}

static void copy_first(void *p) { ((int *)p)[1] = ((int *)p)[0]; }

static void host_func_order(void **state) {
  (void)state;
  int *m;
  cudaStream_t s;
  assert_int_equal(cudaMallocManaged((void **)&m, 8, 1), cudaSuccess);
  m[0] = 0, m[1] = -1;
  assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
  int v = 5, n = 1;
  void *args[] = {&m, &v, &n};
  assert_int_equal(cudaLaunchKernel(&h_add, d3(1), d3(1), args, 0, s), cudaSuccess);
  /* A host function runs after the stream's earlier work: it sees the kernel's store. */
  assert_int_equal(cudaLaunchHostFunc(s, copy_first, m), cudaSuccess);
  assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
  assert_int_equal(m[1], 5);
  assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
  assert_int_equal(cudaFree(m), cudaSuccess);
}

/* The child of overreads_are_reported_at_exit: 32 threads read a 16-int buffer (the last 16 past its
 * end), as a process of its own so that the runtime reads WARPVM_CHECK when it starts. */
static int overread_child(void) {
  if (setup(NULL)) return 3;
  int *in, *out, h[16];
  for (int i = 0; i < 16; i++) h[i] = i + 1;
  if (cudaMalloc((void **)&in, sizeof h) || cudaMalloc((void **)&out, sizeof h)) return 3;
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  int n = 16;
  void *args[] = {&in, &out, &n};
  cudaLaunchKernel(&h_overread, d3(1), d3(32), args, 0, NULL);
  printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  memset(h, 0, sizeof h);
  cudaError_t e = cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  int ok = 1;
  for (int i = 0; i < 16; i++) ok &= h[i] == i + 1;
  printf("copy: %s%s\n", cudaGetErrorName(e), e == cudaSuccess && ok ? ", out[i] == in[i]" : "");
  return 0; /* the runtime prints its report at exit */
}

/* Runs this program's overread_child with WARPVM_CHECK=check (NULL: unset). */
static int run_child(const char *check, char *out, size_t outcap, char *err, size_t errcap) {
  int rc = wv_test_run_child("--overread-child", check ? "WARPVM_CHECK" : NULL, check, out, outcap, err, errcap);
  assert_true(rc >= 0);
  return rc;
}

/* A program that reads a little past an allocation runs as on the GPU and the runtime reports the
 * invalid reads at exit; with WARPVM_CHECK=memcheck the first is the usual sticky fault. */
static void overreads_are_reported_at_exit(void **state) {
  (void)state;
  static char out[4096], err[8192];
  assert_int_equal(run_child(NULL, out, sizeof out, err, sizeof err), 0);
  assert_non_null(strstr(out, "sync: cudaSuccess\ncopy: cudaSuccess, out[i] == in[i]\n"));
  if (!strstr(err, "warpvm: 16 invalid reads: loads outside every allocation")) fail_msg("stderr: %s", err);
  if (!strstr(err, "warpvm:   global load of 4 bytes at address 0x")) fail_msg("stderr: %s", err);
  if (!strstr(err, "(0 bytes after the nearest allocation at 0x")) fail_msg("stderr: %s", err);
  if (!strstr(err, "in kernel 'overread', block (0,0,0), thread (16,0,0), PTX line ")) fail_msg("stderr: %s", err);

  assert_int_equal(run_child("memcheck", out, sizeof out, err, sizeof err), 0);
  assert_non_null(strstr(out, "sync: cudaErrorIllegalAddress\ncopy: cudaErrorIllegalAddress\n"));
  if (!strstr(err, "out-of-bounds global load of 4 bytes (0 bytes after the nearest allocation at 0x")) fail_msg("stderr: %s", err);
  if (!strstr(err, "in kernel 'overread', block (0,0,0), thread (16,0,0)")) fail_msg("stderr: %s", err);
  assert_null(strstr(err, "invalid read"));

  assert_int_equal(run_child("memcheck,synccheck", out, sizeof out, err, sizeof err), 0);
  assert_non_null(strstr(out, "sync: cudaErrorIllegalAddress"));
  assert_int_equal(run_child("memchek", out, sizeof out, err, sizeof err), 1);
  if (!strstr(err, "bad WARPVM_CHECK=memchek")) fail_msg("stderr: %s", err);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--overread-child")) return overread_child();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(launch_and_copy),       cmocka_unit_test(symbols_and_managed),
      cmocka_unit_test(config_errors_are_not_sticky), cmocka_unit_test(streams_graphs_events),
      cmocka_unit_test(device_properties),     cmocka_unit_test(unsupported_entry_points),
      cmocka_unit_test(faults_are_sticky_until_reset), cmocka_unit_test(host_func_order),
      cmocka_unit_test(overreads_are_reported_at_exit),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
