// explore.cu — measurements beyond memprobe's that decide warpvm's model of cudaMalloc's layout and of the
// mapped range (src/exec/mem.h), run by explore.sh on a GPU (its output: golden/explore.out). One probe per
// process (a fault kills the CUDA context); each prints one line, or a few:
//   thr X            a = 16 B, b = X B, c = 16 B, d = X B: b - a, b's alignment, c - a, d - b
//                    (from which size an allocation leaves the chunk, and where the next chunk goes)
//   seq S1 S2 ...    consecutive cudaMallocs (a negative -K frees the K-th): each one's offset from the first
//   reuse S          S bytes, memset 0xc3, freed, allocated again: the same address? its first u32
//   chunkrel         the only allocation of a second chunk, freed: is the chunk still mapped?
//   map L OFF        a = 16 B (the first chunk), then L bytes (if L): the u32 at a + OFF, or the error
//   frames           the local addresses of a kernel's 1024-byte array and of a callee's 64-byte one
#include <cstdio>
#include <cstdlib>
#include <cstring>
typedef unsigned long long u64;
typedef long long i64;

__global__ void k_read32(u64 a, unsigned *out) { out[0] = *(const volatile unsigned *)a; }

__device__ __noinline__ unsigned callee(unsigned *out, int n) {
  volatile unsigned l[16];
  for (int i = 0; i < 16; i++) l[i] = i + n;
  out[2] = (unsigned)__cvta_generic_to_local((const void *)l);
  return l[n & 15];
}
__global__ void k_frames(unsigned *out, int n) {
  volatile unsigned l[256];
  for (int i = 0; i < 256; i++) l[i] = i;
  out[0] = (unsigned)__cvta_generic_to_local((const void *)l);
  out[1] = callee(out, n) + l[n & 255];
}
static void *dalloc(size_t n) {
  void *p = nullptr;
  cudaError_t e = cudaMalloc(&p, n);
  if (e != cudaSuccess) { printf("error %s in cudaMalloc(%zu)\n", cudaGetErrorName(e), n); exit(0); }
  return p;
}
static int align_bits(u64 a) { int n = 0; while (n < 21 && !(a >> n & 1)) n++; return n; }
static void fin(const char *pre, unsigned *dout) {
  cudaError_t e = cudaDeviceSynchronize();
  unsigned v[4] = {0, 0, 0, 0};
  if (e == cudaSuccess) e = cudaMemcpy(v, dout, sizeof v, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) printf("%s: error %s\n", pre, cudaGetErrorName(e));
  else printf("%s: 0x%08x 0x%08x 0x%08x\n", pre, v[0], v[1], v[2]);
}

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc < 2) return 2;
  const char *p = argv[1];
  if (!strcmp(p, "thr")) { // thr X
    u64 x = strtoull(argv[2], 0, 0);
    u64 a = (u64)dalloc(16), b = (u64)dalloc(x), c = (u64)dalloc(16), d = (u64)dalloc(x);
    printf("thr %llu: b-a %lld align %d c-a %lld d-b %lld\n", x, (i64)(b - a), align_bits(b), (i64)(c - a), (i64)(d - b));
  } else if (!strcmp(p, "seq")) { // seq S1 S2 ... : sizes (negative: free the k-th earlier allocation, 1-based)
    u64 first = 0, addr[256];
    int n = 0;
    for (int i = 2; i < argc; i++) {
      i64 s = strtoll(argv[i], 0, 0);
      if (s < 0) { cudaFree((void *)addr[-s - 1]); printf("seq free %lld\n", -s); addr[n++] = 0; continue; }
      u64 a = (u64)dalloc((size_t)s);
      if (!first) first = a;
      addr[n++] = a;
      printf("seq %d size %lld off %lld align %d\n", n, s, (i64)(a - first), align_bits(a));
    }
  } else if (!strcmp(p, "map")) { // map LARGE OFF: reads the u32 at the first allocation + OFF
    u64 large = strtoull(argv[2], 0, 0);
    i64 off = strtoll(argv[3], 0, 0);
    unsigned *out = (unsigned *)dalloc(16);
    cudaMemset(out, 0, 16);
    if (large) { void *q = dalloc(large); cudaMemset(q, 0xc3, large); }
    k_read32<<<1, 1>>>((u64)out + off, out);
    char pre[64];
    snprintf(pre, sizeof pre, "map %llu %+lld", large, off);
    fin(pre, out);
  } else if (!strcmp(p, "reuse")) { // reuse SIZE: alloc, memset 0xc3, free, alloc again: same address? first u32?
    u64 n = strtoull(argv[2], 0, 0);
    void *a = dalloc(n);
    cudaMemset(a, 0xc3, n);
    cudaFree(a);
    void *b = dalloc(n);
    unsigned v = 0;
    cudaError_t e = cudaMemcpy(&v, b, 4, cudaMemcpyDeviceToHost);
    printf("reuse %llu: same %d value 0x%08x %s\n", n, a == b, v, cudaGetErrorName(e));
  } else if (!strcmp(p, "chunkrel")) { // a chunk in the L heap emptied: still mapped?
    unsigned *out = (unsigned *)dalloc(16);
    cudaMemset(out, 0, 16);
    dalloc(2096640);
    void *y = dalloc(100);
    cudaMemset(y, 0xc3, 100);
    cudaFree(y);
    k_read32<<<1, 1>>>((u64)y, out);
    fin("chunkrel (read the freed only allocation of a second chunk)", out);
  } else if (!strcmp(p, "frames")) {
    unsigned *out = (unsigned *)dalloc(16);
    k_frames<<<1, 1>>>(out, 3);
    fin("frames (kernel 1024 B, callee 64 B)", out);
    size_t st = 0;
    cudaDeviceGetLimit(&st, cudaLimitStackSize);
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, k_frames);
    printf("frames: stack %zu localSizeBytes %zu\n", st, fa.localSizeBytes);
  }
  return 0;
}
