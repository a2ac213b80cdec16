// misuse_probe.cu — what CUDA does on API misuse and at the printf FIFO's limits, case by case (each case in
// a child process, so a crash shows as one). Not a test: run on a GPU by misuse_probe.sh, its output is
// misuse_h100.txt, the source of the codes test_cudart_safety.c expects where CUDA answers at all.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void k(int *p) { if (p) p[threadIdx.x] = 1; }
__global__ void kpf(int n) { for (int i = 0; i < n; i++) printf("line %04d\n", i); }
__global__ void kpf_threads(int n) { for (int i = 0; i < n; i++) printf("t%03d l%02d\n", threadIdx.x, i); }
__global__ void kwide(int w) { printf("%*d|\n", w, 5); }
__global__ void kbig(int w) { printf("[%2000000d]\n", w); }
__global__ void kshared() { extern __shared__ int s[]; s[threadIdx.x] = 1; }

#define E(call) do { cudaError_t e_ = (call); printf("  %-60s -> %s\n", #call, cudaGetErrorName(e_)); fflush(stdout); } while (0)
static void after() {
  E(cudaGetLastError());
  int *d = nullptr;
  E(cudaMalloc(&d, 64));
  E(cudaDeviceSynchronize());
}

static void c_stream() {
  cudaStream_t s; E(cudaStreamCreate(&s));
  E(cudaStreamDestroy(s));
  E(cudaStreamDestroy(s));
  after();
}
static void c_stream_launch() {
  cudaStream_t s; E(cudaStreamCreate(&s)); E(cudaStreamDestroy(s));
  k<<<1, 1, 0, s>>>(nullptr);
  after();
  E(cudaStreamSynchronize(s));
  E(cudaStreamQuery(s));
  int h = 0, *d; cudaMalloc(&d, 4);
  E(cudaMemcpyAsync(d, &h, 4, cudaMemcpyHostToDevice, s));
  after();
}
static void c_stream_bogus() {
  cudaStream_t s = (cudaStream_t)0x1234;
  E(cudaStreamSynchronize(s));
  E(cudaStreamQuery(s));
  k<<<1, 1, 0, s>>>(nullptr);
  after();
  E(cudaStreamDestroy(s));
  after();
  E(cudaStreamDestroy((cudaStream_t)0));
  E(cudaStreamDestroy(cudaStreamLegacy));
  E(cudaStreamDestroy(cudaStreamPerThread));
  after();
}
static void c_event() {
  cudaEvent_t a, b; E(cudaEventCreate(&a)); E(cudaEventCreate(&b));
  E(cudaEventRecord(a, 0)); E(cudaEventRecord(b, 0)); E(cudaEventSynchronize(b));
  E(cudaEventDestroy(a));
  E(cudaEventDestroy(a));
  after();
  E(cudaEventRecord(a, 0));
  E(cudaEventSynchronize(a));
  E(cudaEventQuery(a));
  float ms; E(cudaEventElapsedTime(&ms, a, b));
  E(cudaStreamWaitEvent(0, a, 0));
  after();
  cudaEvent_t z = (cudaEvent_t)0x1234;
  E(cudaEventRecord(z, 0)); E(cudaEventQuery(z)); E(cudaEventSynchronize(z)); E(cudaEventDestroy(z));
  E(cudaEventDestroy((cudaEvent_t)0));
  after();
}
static void c_graph() {
  cudaStream_t s; cudaStreamCreate(&s);
  int *d; cudaMalloc(&d, 128);
  cudaGraph_t g; cudaGraphExec_t x;
  E(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  k<<<1, 32, 0, s>>>(d);
  E(cudaStreamEndCapture(s, &g));
  E(cudaGraphInstantiate(&x, g, 0));
  E(cudaGraphLaunch(x, s));
  E(cudaStreamSynchronize(s));
  E(cudaGraphExecDestroy(x));
  E(cudaGraphLaunch(x, s));
  after();
  E(cudaGraphExecDestroy(x));
  after();
  E(cudaGraphDestroy(g));
  E(cudaGraphDestroy(g));
  after();
  cudaGraphExec_t x2; E(cudaGraphInstantiate(&x2, g, 0));
  E(cudaGraphLaunch((cudaGraphExec_t)0x1234, s));
  E(cudaGraphExecDestroy((cudaGraphExec_t)0x1234));
  E(cudaGraphDestroy((cudaGraph_t)0x1234));
  after();
}
static void c_capture_event() {
  cudaStream_t s, s2; cudaStreamCreate(&s); cudaStreamCreate(&s2);
  cudaEvent_t e; cudaEventCreate(&e);
  int *d; cudaMalloc(&d, 128);
  cudaGraph_t g;
  E(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  k<<<1, 32, 0, s>>>(d);
  E(cudaEventRecord(e, s));
  E(cudaStreamEndCapture(s, &g));
  E(cudaGraphDestroy(g));
  E(cudaStreamWaitEvent(s2, e, 0));
  k<<<1, 32, 0, s2>>>(d);
  after();
  cudaStreamCaptureStatus st; E(cudaStreamIsCapturing(s2, &st)); printf("  s2 capturing: %d\n", (int)st);
  E(cudaStreamSynchronize(s2));
  // fork/join: s2 joins, origin ends capture without s2 rejoining
  E(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  E(cudaEventRecord(e, s));
  E(cudaStreamWaitEvent(s2, e, 0));
  k<<<1, 32, 0, s2>>>(d);
  E(cudaStreamEndCapture(s, &g));
  E(cudaStreamIsCapturing(s2, &st)); printf("  s2 capturing: %d\n", (int)st);
  after();
}
static void c_pitch() {
  void *p = (void *)1; size_t pitch = 7;
  E(cudaMallocPitch(&p, &pitch, SIZE_MAX - 10, 1)); printf("  p null %d pitch %zu\n", p == nullptr, pitch);
  p = (void *)1, pitch = 7;
  E(cudaMallocPitch(&p, &pitch, (size_t)1 << 40, (size_t)1 << 40)); printf("  p null %d pitch %zu\n", p == nullptr, pitch);
  p = (void *)1, pitch = 7;
  E(cudaMallocPitch(&p, &pitch, 1 << 20, (size_t)1 << 62)); printf("  p null %d pitch %zu\n", p == nullptr, pitch);
  p = (void *)1, pitch = 7;
  E(cudaMallocPitch(&p, &pitch, (size_t)3 << 30, 1)); printf("  p null %d pitch %zu\n", p == nullptr, pitch);
  p = (void *)1, pitch = 7;
  E(cudaMallocPitch(&p, &pitch, 0, 5)); printf("  p null %d pitch %zu\n", p == nullptr, pitch);
  p = (void *)1, pitch = 7;
  E(cudaMallocPitch(&p, &pitch, 100, 0)); printf("  p null %d pitch %zu\n", p == nullptr, pitch);
  p = (void *)1, pitch = 7;
  E(cudaMallocPitch(&p, &pitch, 100, 3)); printf("  p null %d pitch %zu\n", p == nullptr, pitch);
  after();
  int *d; cudaMalloc(&d, 256); char h[256];
  E(cudaMemcpy(h, d, SIZE_MAX, cudaMemcpyDeviceToHost));
  E(cudaMemcpy(h, d, (size_t)1 << 40, cudaMemcpyDeviceToHost));
  E(cudaMemcpy(h, d, 512, cudaMemcpyDeviceToHost));
  E(cudaMemset(d, 0, SIZE_MAX));
  E(cudaMemset(d, 0, 512));
  E(cudaMemcpy2D(h, (size_t)1 << 40, d, (size_t)1 << 40, 4, (size_t)1 << 30, cudaMemcpyDeviceToHost));
  E(cudaMemcpy2D(h, SIZE_MAX, d, 16, 4, 3, cudaMemcpyDeviceToHost));
  E(cudaMemset2D(d, (size_t)1 << 62, 0, 4, 8));
  after();
  void *hp = (void *)1;
  E(cudaMallocHost(&hp, SIZE_MAX - 100)); printf("  p null %d\n", hp == nullptr);
  E(cudaMallocManaged(&hp, SIZE_MAX - 100)); printf("  p null %d\n", hp == nullptr);
  E(cudaMalloc(&hp, SIZE_MAX)); printf("  p null %d\n", hp == nullptr);
  after();
}
static void c_register() {
  long pg = sysconf(_SC_PAGESIZE);
  char *m = (char *)mmap(nullptr, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(m + pg, pg);  // hole at page 1
  E(cudaHostRegister(m + pg, pg, 0));
  E(cudaHostRegister(m, 3 * pg, 0));
  after();
  mprotect(m + 2 * pg, pg, PROT_READ);
  E(cudaHostRegister(m + 2 * pg, pg, 0));
  E(cudaHostRegister(m + 2 * pg, pg, cudaHostRegisterReadOnly));
  E(cudaHostUnregister(m + 2 * pg));
  E(cudaHostRegister(m + 2 * pg, pg, cudaHostRegisterMapped));
  after();
  E(cudaHostRegister(m + 3 * pg, pg, 0));
  E(cudaHostRegister(m + 3 * pg, pg, 0));
  E(cudaHostUnregister(m + 3 * pg));
  E(cudaHostUnregister(m + 3 * pg));
  E(cudaHostRegister(m, 0, 0));
  E(cudaHostRegister(nullptr, 64, 0));
  static const char ro[8192] = "read only";
  E(cudaHostRegister((void *)ro, 100, 0));
  E(cudaHostRegister((void *)"literal", 8, 0));
  after();
  char *h = (char *)malloc(1 << 20);
  E(cudaHostRegister(h + 5, 1000, 0));
  E(cudaHostUnregister(h + 5));
  after();
}
static void c_launch() {
  k<<<1, 2048>>>(nullptr);
  E(cudaPeekAtLastError());
  after();
  kshared<<<1, 32, 100 * 1024>>>();
  E(cudaPeekAtLastError());
  after();
  k<<<1, 1>>>(nullptr);
  E(cudaDeviceSynchronize());
  size_t v = 0;
  E(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize)); printf("  fifo %zu\n", v);
  E(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 0)); E(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize)); printf("  fifo %zu\n", v);
  E(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 100)); E(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize)); printf("  fifo %zu\n", v);
  E(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 5000)); E(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize)); printf("  fifo %zu\n", v);
  E(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, SIZE_MAX)); E(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize)); printf("  fifo %zu\n", v);
  E(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, (size_t)1 << 40)); E(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize)); printf("  fifo %zu\n", v);
  kpf<<<1, 1>>>(1);
  E(cudaDeviceSynchronize());
  E(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 8192)); E(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize)); printf("  fifo %zu\n", v);
  E(cudaDeviceSetLimit((cudaLimit)99, 5));
  E(cudaDeviceGetLimit(&v, (cudaLimit)99));
  after();
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "printf")) {  // printf FIFO: printf FIFO N [threads]
    size_t fifo = strtoull(argv[2], 0, 0);
    int n = atoi(argv[3]), threads = argc > 4 ? atoi(argv[4]) : 0;
    if (fifo) fprintf(stderr, "set %s\n", cudaGetErrorName(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, fifo)));
    size_t v; cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize); fprintf(stderr, "fifo %zu\n", v);
    if (threads) kpf_threads<<<1, threads>>>(n); else kpf<<<1, 1>>>(n);
    fprintf(stderr, "sync %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "wide")) {
    kwide<<<1, 1>>>(atoi(argv[2])); kbig<<<1, 1>>>(7);
    fprintf(stderr, "sync %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
  }
  struct { const char *name; void (*f)(); } cs[] = {
    {"stream", c_stream}, {"stream_launch", c_stream_launch}, {"stream_bogus", c_stream_bogus}, {"event", c_event},
    {"graph", c_graph}, {"capture_event", c_capture_event}, {"pitch", c_pitch}, {"register", c_register},
    {"launch", c_launch}};
  for (auto &c : cs) {
    printf("== %s\n", c.name); fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) { c.f(); fflush(stdout); _exit(0); }
    int st; waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) printf("  CRASHED: signal %d\n", WTERMSIG(st));
    else if (WEXITSTATUS(st)) printf("  exit %d\n", WEXITSTATUS(st));
  }
  return 0;
}
