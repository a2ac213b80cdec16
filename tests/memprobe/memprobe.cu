// memprobe.cu — what a GPU does with addresses a program does not own, measured one probe per
// process (a fault kills the CUDA context). Run with no arguments it runs every probe as a child
// process of its own (fork + exec of itself; MEMPROBE_JOBS at a time) and prints one line per probe,
// in a fixed order;
// `memprobe PROBE ARGS...` runs one. The same binary runs on a GPU (run_on_gpu.sh records its
// output) and under warpvm (check.sh compares): lines starting with "info " are recorded but not
// compared (absolute addresses, values of memory nobody wrote in shared/local space, writes, which
// warpvm deliberately refuses). Nothing else printed depends on where the driver put things.
//
// Probes (README.md says what each one decides in warpvm's model, src/exec/mem.h):
//   layout A|B      the addresses of consecutive cudaMalloc allocations: size, distance from the
//                   previous one, alignment (the trailing zero bits of the address, at most 21)
//   read S W D      allocations out (16 B), A (4096 B, bytes 0xa1), P (S B, 0xc3), B (4096 B, 0xb2), in
//                   that order; a kernel reads the byte at P + S - 1 + D (W = end) or P - D (W = start)
//   page K D        P of 100 bytes; a kernel reads the u32 at (P rounded down to 2^K) + D
//   stale S         P of S bytes, freed; a kernel reads the u32 at P
//   write S D       info: a kernel writes the byte at P + S - 1 + D, then reads it back
//   shared F A      ld/st.shared address forms (k_shared in mp_shared.cu: F) with a 32-bit argument A
//   dyn 0 A         100 bytes of dynamic shared memory: the u32 at its start + A (mp_dyn.cu)
//   local F A       ld.local address forms (k_local: F) with argument A
//   generic F A     a generic load through cvta.shared of a shared address (mp_generic.cu)
//   X-unwritten     as X, for reads of memory nobody wrote: "ok" or the error, the value as info
// The shared and generic kernels sit in translation units of their own so that each module holds only
// its kernel's shared memory (warpvm lays out a module's shared variables together).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

typedef unsigned long long u64;

// ---- kernels ----------------------------------------------------------------------------------

__global__ void k_read8(const unsigned char *p, long long off, unsigned *out) {
  out[0] = ((const volatile unsigned char *)p)[off];
}

__global__ void k_read_aligned(const char *p, int log2, long long delta, unsigned *out) {
  u64 a = (((u64)p >> log2) << log2) + (u64)delta;
  out[0] = *(const volatile unsigned *)a;
}

__global__ void k_read32(const unsigned *p, unsigned *out) { out[0] = *(const volatile unsigned *)p; }

__global__ void k_write8(unsigned char *p, long long off, unsigned *out) {
  ((volatile unsigned char *)p)[off] = 0x77;
  out[0] = ((volatile unsigned char *)p)[off];
}

// l[i] = 0x6b000000 | i in local memory (its address escapes, so it lives there).
__global__ void k_local(int form, unsigned arg, unsigned *out) {
  volatile unsigned l[16];
  for (int i = 0; i < 16; i++) l[i] = 0x6b000000u | i;
  unsigned base = (unsigned)__cvta_generic_to_local((const void *)l), v = 0xeeeeeeeeu;
  unsigned r = base + arg;
  u64 rd = (u64)base + arg;
  switch (form) {
  case 0: asm volatile("ld.local.u32 %0, [%1+8];" : "=r"(v) : "r"(r) : "memory"); break;
  case 1: asm volatile("ld.local.u32 %0, [%1+8];" : "=r"(v) : "l"(rd) : "memory"); break;
  case 2: asm volatile("ld.local.u32 %0, [%1];" : "=r"(v) : "r"(r) : "memory"); break;
  case 3: asm volatile("ld.local.u32 %0, [%1+-8];" : "=r"(v) : "r"(r) : "memory"); break;
  }
  out[0] = v;
}

// In translation units of their own, so that each kernel's module holds only its own shared memory.
void launch_shared(int form, unsigned arg, unsigned *out);  // mp_shared.cu
void launch_dyn(unsigned arg, unsigned *out);                // mp_dyn.cu
void launch_generic(int form, unsigned arg, unsigned *out);  // mp_generic.cu

// ---- probes -------------------------------------------------------------------------------------

static void *dalloc(size_t n, int byte) {
  void *p = nullptr;
  cudaError_t e = cudaMalloc(&p, n);
  if (e != cudaSuccess) {
    printf("error %s in cudaMalloc(%zu)\n", cudaGetErrorName(e), n);
    exit(0);
  }
  if (byte >= 0) cudaMemset(p, byte, n);
  return p;
}

// Waits for the kernel and prints "0x%02x"/"0x%08x" of out[0], or the error.
static void finish(const char *prefix, const unsigned *dout, int width) {
  cudaError_t e = cudaDeviceSynchronize();
  unsigned v[2] = {0, 0};
  if (e == cudaSuccess) e = cudaMemcpy(v, dout, sizeof v, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) printf("%s: error %s\n", prefix, cudaGetErrorName(e));
  else if (width == 2) printf("%s: 0x%02x\n", prefix, v[0]);
  else if (width == 16) printf("%s: 0x%08x%08x\n", prefix, v[1], v[0]);
  else if (width == 0) printf("%s: ok\n", prefix);
  else printf("%s: 0x%08x\n", prefix, v[0]);
}

static int align_bits(u64 a) {
  int n = 0;
  while (n < 21 && !(a >> n & 1)) n++;
  return n;
}

static void probe_layout(const char *which) {
  static const size_t A[] = {1, 100, 256, 4096, 65536, 1u << 20, 3u << 20, 1, 1, 100, 2u << 20, 1};
  static const size_t B[] = {3u << 20, 1u << 20, 100, 100, (2u << 20) - 1, (2u << 20) + 1, 100, 511, 513, 100};
  const size_t *sz = which[0] == 'A' ? A : B;
  size_t n = which[0] == 'A' ? sizeof A / sizeof *A : sizeof B / sizeof *B;
  u64 prev = 0;
  for (size_t i = 0; i < n; i++) {
    u64 p = (u64)dalloc(sz[i], -1);
    printf("layout %s %zu: size %zu delta %lld align %d\n", which, i, sz[i], i ? (long long)(p - prev) : 0LL, align_bits(p));
    printf("info layout %s %zu: address 0x%llx\n", which, i, p);
    prev = p;
  }
}

static void probe_read(size_t size, const char *where, long long d) {
  unsigned *out = (unsigned *)dalloc(16, 0);
  dalloc(4096, 0xa1);
  unsigned char *p = (unsigned char *)dalloc(size, 0xc3);
  dalloc(4096, 0xb2);
  long long off = where[0] == 'e' ? (long long)size - 1 + d : -d;
  k_read8<<<1, 1>>>(p, off, out);
  char prefix[96];
  snprintf(prefix, sizeof prefix, "read %zu %s%c%lld", size, where, where[0] == 'e' ? '+' : '-', d);
  finish(prefix, out, 2);
}

static void probe_page(int log2, long long delta) {
  unsigned *out = (unsigned *)dalloc(16, 0);
  char *p = (char *)dalloc(100, 0xc3);
  k_read_aligned<<<1, 1>>>(p, log2, delta, out);
  char prefix[96];
  snprintf(prefix, sizeof prefix, "page %d %+lld", log2, delta);
  finish(prefix, out, 8);
}

static void probe_stale(size_t size) {
  unsigned *out = (unsigned *)dalloc(16, 0);
  unsigned *p = (unsigned *)dalloc(size, 0xc3);
  cudaFree(p);
  k_read32<<<1, 1>>>(p, out);
  char prefix[96];
  snprintf(prefix, sizeof prefix, "stale %zu", size);
  finish(prefix, out, 8);
}

static void probe_write(size_t size, long long d) {
  unsigned *out = (unsigned *)dalloc(16, 0);
  dalloc(4096, 0xa1);
  unsigned char *p = (unsigned char *)dalloc(size, 0xc3);
  dalloc(4096, 0xb2);
  k_write8<<<1, 1>>>(p, (long long)size - 1 + d, out);
  char prefix[96];
  snprintf(prefix, sizeof prefix, "info write %zu end+%lld", size, d);
  finish(prefix, out, 2);
}

static void probe_kernel(const char *kind, int form, unsigned arg) {
  unsigned *out = (unsigned *)dalloc(16, 0);
  char prefix[96];
  snprintf(prefix, sizeof prefix, "%s %d 0x%08x", kind, form, arg);
  int width = 8;
  if (!strcmp(kind, "shared")) launch_shared(form, arg, out);
  else if (!strcmp(kind, "dyn")) launch_dyn(arg, out);
  else if (!strcmp(kind, "local")) k_local<<<1, 1>>>(form, arg, out);
  else {
    launch_generic(form, arg, out);
    if (form == 3) width = 16;
  }
  finish(prefix, out, width);
}

// Shared and local reads of memory nobody wrote: whether they fault is compared, the value is info.
static void probe_kernel_unwritten(const char *kind, int form, unsigned arg) {
  unsigned *out = (unsigned *)dalloc(16, 0);
  if (!strcmp(kind, "shared")) launch_shared(form, arg, out);
  else if (!strcmp(kind, "dyn")) launch_dyn(arg, out);
  else k_local<<<1, 1>>>(form, arg, out);
  cudaError_t e = cudaDeviceSynchronize();
  unsigned v = 0;
  if (e == cudaSuccess) e = cudaMemcpy(&v, out, 4, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) printf("%s %d 0x%08x: error %s\n", kind, form, arg, cudaGetErrorName(e));
  else printf("%s %d 0x%08x: ok\ninfo %s %d 0x%08x: 0x%08x\n", kind, form, arg, kind, form, arg, v);
}

static int run_probe(int argc, char **argv) {
  std::string p = argv[1];
  if (p == "layout" && argc == 3) probe_layout(argv[2]);
  else if (p == "read" && argc == 5) probe_read(strtoull(argv[2], 0, 0), argv[3], strtoll(argv[4], 0, 0));
  else if (p == "page" && argc == 4) probe_page(atoi(argv[2]), strtoll(argv[3], 0, 0));
  else if (p == "stale" && argc == 3) probe_stale(strtoull(argv[2], 0, 0));
  else if (p == "write" && argc == 4) probe_write(strtoull(argv[2], 0, 0), strtoll(argv[3], 0, 0));
  else if ((p == "shared" || p == "dyn" || p == "local" || p == "generic") && argc == 4)
    probe_kernel(p.c_str(), atoi(argv[2]), (unsigned)strtoul(argv[3], 0, 0));
  else if ((p == "shared-unwritten" || p == "dyn-unwritten" || p == "local-unwritten") && argc == 4)
    probe_kernel_unwritten(p.substr(0, p.find('-')).c_str(), atoi(argv[2]), (unsigned)strtoul(argv[3], 0, 0));
  else {
    fprintf(stderr, "memprobe: unknown probe\n");
    return 2;
  }
  return 0;
}

// ---- the list of probes ---------------------------------------------------------------------------

static std::vector<std::vector<std::string>> probes() {
  std::vector<std::vector<std::string>> v;
  auto add = [&](std::vector<std::string> a) { v.push_back(a); };
  add({"layout", "A"});
  add({"layout", "B"});
  const char *sizes[] = {"4", "100", "512", "4096", "65540", "1048576", "3145728"};
  const char *after[] = {"1", "2", "4", "16", "64", "256", "412", "508", "509", "512", "1024", "4096", "65536",
                         "1048576", "2097152", "4194304", "16777216", "268435456"};
  const char *before[] = {"1", "4", "64", "512", "4096", "65536", "1048576", "2097152", "4194304"};
  for (const char *s : sizes) {
    for (const char *d : after) add({"read", s, "end", d});
    for (const char *d : before) add({"read", s, "start", d});
  }
  const char *pages[][2] = {{"21", "2097148"}, {"21", "2097152"}, {"21", "4194300"}, {"21", "4194304"}, {"21", "-4"},
                            {"21", "-2097152"}, {"16", "65532"}, {"16", "65536"}};
  for (auto &pg : pages) add({"page", pg[0], pg[1]});
  add({"stale", "100"});
  add({"stale", "3145728"});
  const char *writes[] = {"1", "412", "413", "4096", "1048576", "4194304"};
  for (const char *d : writes) add({"write", "100", d});
  // shared: forms 0-3, 5, 6 reach s[] through wrapping sums; 1 with 4: 4 bytes below s; 4: past the end
  add({"shared", "0", "0"});
  add({"shared", "0", "0xfffffffc"});
  add({"shared", "0", "0xfffffff8"});
  add({"shared", "1", "12"});
  add({"shared", "1", "8"});
  add({"shared", "2", "0xfffffffc"});
  add({"shared", "3", "4"});
  add({"shared", "5", "0xfffffffc"});
  add({"shared", "6", "0xfffffc04"});
  add({"shared-unwritten", "1", "4"});
  add({"shared-unwritten", "4", "0xfffffffc"});
  const char *beyond[] = {"1024", "1028", "1148", "1152", "2048", "4096", "16384", "65536", "262144", "1048576",
                          "16777216", "0x7ffffff0"};
  for (const char *b : beyond) add({"shared-unwritten", "4", b});
  add({"shared", "7", "1024"});
  add({"shared", "7", "65536"});
  const char *dyn[] = {"100", "124", "128", "1024", "65536"};
  for (const char *b : dyn) add({"dyn-unwritten", "0", b});
  add({"local", "0", "0xfffffffc"});
  add({"local", "1", "0xfffffffc"});
  add({"local", "3", "12"});
  add({"local-unwritten", "3", "4"});
  const char *lbeyond[] = {"64", "128", "512", "1024", "2048", "4096", "16384", "65536", "1048576", "16777216"};
  for (const char *b : lbeyond) add({"local-unwritten", "2", b});
  add({"generic", "0", "0xfffffffc"});
  add({"generic", "1", "0xfffffffc"});
  add({"generic", "2", "0xfffffffc"});
  add({"generic", "3", "0xfffffffc"});
  return v;
}

// Runs every probe in a child process of its own (this program again), MEMPROBE_JOBS (default 1) at a
// time, and prints their output in the list's order.
static int run_all(void) {
  std::vector<std::vector<std::string>> list = probes();
  const char *j = getenv("MEMPROBE_JOBS");
  size_t jobs = j && atoi(j) > 0 ? (size_t)atoi(j) : 1, next = 0, done = 0;
  std::vector<pid_t> pid(list.size(), 0);
  std::vector<FILE *> out(list.size(), nullptr);
  int bad = 0;
  fflush(stdout);
  while (done < list.size()) {
    while (next < list.size() && next < done + jobs) { // start the next child, its stdout a temporary file
      std::vector<char *> argv;
      argv.push_back((char *)"memprobe");
      for (auto &s : list[next]) argv.push_back((char *)s.c_str());
      argv.push_back(nullptr);
      out[next] = tmpfile();
      pid[next] = fork();
      if (pid[next] == 0) {
        dup2(fileno(out[next]), 1);
        execv("/proc/self/exe", argv.data());
        _exit(127);
      }
      next++;
    }
    int st = 0;
    waitpid(pid[done], &st, 0);
    rewind(out[done]);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, out[done])) > 0) fwrite(buf, 1, n, stdout);
    fclose(out[done]);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
      std::string line;
      for (auto &s : list[done]) line += (line.empty() ? "" : " ") + s;
      printf("%s: child %s %d\n", line.c_str(), WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
      bad = 1;
    }
    fflush(stdout);
    done++;
  }
  return bad;
}

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc > 1) return run_probe(argc, argv);
  return run_all();
}
