/*
 * fuzz_cudart.c — libFuzzer harness for warpvm's CUDA runtime (src/cudart, linked in statically): an
 * input is a program of runtime calls, one opcode byte each followed by its operand bytes. Streams,
 * events, graphs (made by stream capture or cudaGraphCreate) and executable graphs live in small
 * slot tables; a handle operand names a live slot, one destroyed earlier in the input, a never-used
 * slot (NULL), cudaStreamLegacy / cudaStreamPerThread, or a made-up handle pointing at bytes of the
 * input. Memory operands are device, pitched, pinned and managed allocations (live or freed), the
 * harness's own host buffer (parts of it registered with cudaHostRegister) or NULL, with fuzzed
 * offsets and sizes, huge ones included. Kernels of tests/cudart/rt_kernels.ptx are launched with
 * fuzzed shapes, arguments and streams; the watchdog (WARPVM_MAX_STEPS) bounds each launch.
 *
 * What the harness keeps legal, because no runtime could check it: a host pointer is never used past
 * the end of the host memory it names, cudaHostRegister names memory that exists, a host function
 * calls no CUDA API. Everything else is the runtime's to refuse with an error. At the end of an input
 * every live handle and allocation is released and cudaDeviceReset runs, so inputs do not leak into
 * each other. Nothing may crash, hang, leak or trip ASan/UBSan.
 */
#include "fuzz.h"
#include "cudart/abi.h"

void **__cudaRegisterFatBinary(void *);
void __cudaRegisterFatBinaryEnd(void **);
void __cudaRegisterFunction(void **, const char *, char *, const char *, int, void *, void *, void *, void *, int *);
void __cudaRegisterVar(void **, char *, char *, const char *, int, size_t, int, int);
void __cudaRegisterManagedVar(void **, void **, char *, const char *, int, size_t, int, int);
cudaError_t cudaMalloc(void **, size_t);
cudaError_t cudaMallocPitch(void **, size_t *, size_t, size_t);
cudaError_t cudaFree(void *);
cudaError_t cudaMallocManaged(void **, size_t, unsigned);
cudaError_t cudaMallocHost(void **, size_t);
cudaError_t cudaFreeHost(void *);
cudaError_t cudaHostRegister(void *, size_t, unsigned);
cudaError_t cudaHostUnregister(void *);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *, const void *);
cudaError_t cudaMemcpy(void *, const void *, size_t, int);
cudaError_t cudaMemcpyAsync(void *, const void *, size_t, int, cudaStream_t);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaMemsetAsync(void *, int, size_t, cudaStream_t);
cudaError_t cudaMemcpy2D(void *, size_t, const void *, size_t, size_t, size_t, int);
cudaError_t cudaMemset2D(void *, size_t, int, size_t, size_t);
cudaError_t cudaMemcpyToSymbol(const void *, const void *, size_t, size_t, int);
cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t cudaLaunchCooperativeKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *, int);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *, unsigned);
cudaError_t cudaStreamDestroy(cudaStream_t);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaStreamQuery(cudaStream_t);
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned);
cudaError_t cudaStreamBeginCapture(cudaStream_t, int);
cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t *);
cudaError_t cudaStreamIsCapturing(cudaStream_t, int *);
cudaError_t cudaGraphCreate(cudaGraph_t *, unsigned);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *, cudaGraph_t, unsigned long long);
cudaError_t cudaGraphLaunch(cudaGraphExec_t, cudaStream_t);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t);
cudaError_t cudaGraphDestroy(cudaGraph_t);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *, unsigned);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventQuery(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
cudaError_t cudaEventDestroy(cudaEvent_t);
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t, void *);

#define NSLOT 4
#define NBUF 6
#define HOST_BYTES 65536

/* A handle slot: h is what the runtime returned; live until the input destroys it. */
typedef struct slot {
  void *h;
  int live;
} slot;

/* An allocation the input made; freed ones keep their (stale) pointer. */
enum { B_NONE, B_DEVICE, B_PITCH, B_PINNED, B_MANAGED };
typedef struct buf {
  uint8_t *p;
  size_t n;
  int kind, live;
} buf;

typedef struct state {
  wvf_reader in;
  slot streams[NSLOT], events[NSLOT], graphs[NSLOT], execs[NSLOT];
  buf bufs[NBUF];
  struct { size_t off, n; int live; } reg[2]; /* cudaHostRegister'ed parts of host[] */
  _Alignas(16) uint8_t forged[64];           /* a made-up handle points here */
} state;

static _Alignas(4096) uint8_t host[HOST_BYTES];
static size_t total_mem;
static unsigned host_calls;

/* Host stand-ins for the kernels and variables nvcc would register (distinct addresses). */
static char h_add, h_sym, h_bump, h_wild, h_hello, h_assert, h_spin, h_overread, h_unknown;
static int g_dev_shadow[8], g_const_shadow[4];
static int *g_man_ptr;

static char *read_ptx(size_t *len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/cudart/rt_kernels.ptx", WVF_SRC_DIR);
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "fuzz_cudart: cannot read %s\n", path); abort(); }
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = calloc(1, *len + 1);
  if (!b || fread(b, 1, *len, f) != *len) abort();
  fclose(f);
  return b;
}

/* rt_kernels.ptx in a fatbin wrapper, registered as nvcc's constructors register a program's. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  static int done;
  if (done++) return 0;
  setenv("WARPVM_MAX_STEPS", "20000", 0);
  size_t len;
  char *ptx = read_ptx(&len);
  size_t payload = (len + 1 + 7) & ~(size_t)7, total = 16 + 64 + payload;
  uint8_t *b = calloc(1, total); /* never freed: the registration keeps pointing at it */
  uint32_t magic = 0xBA55ED50u, hdr = 64, arch = 80;
  uint16_t v1 = 1, h16 = 16, kind = 1, x0101 = 0x0101, major = 8;
  uint64_t body = 64 + payload, stored = payload, flags = 0x11;
  memcpy(b, &magic, 4), memcpy(b + 4, &v1, 2), memcpy(b + 6, &h16, 2), memcpy(b + 8, &body, 8);
  uint8_t *e = b + 16;
  memcpy(e, &kind, 2), memcpy(e + 2, &x0101, 2), memcpy(e + 4, &hdr, 4), memcpy(e + 8, &stored, 8);
  memcpy(e + 26, &major, 2), memcpy(e + 28, &arch, 4), memcpy(e + 40, &flags, 8), memcpy(e + 64, ptx, len);
  free(ptx);
  static wv_fatbin_wrapper w;
  w = (wv_fatbin_wrapper){0x466243b1, 1, (const unsigned long long *)b, NULL};
  void **handle = __cudaRegisterFatBinary(&w);
  struct { const char *host; const char *name; } k[] = {{&h_add, "add"}, {&h_sym, "sym"}, {&h_bump, "bump_managed"},
    {&h_wild, "wild"}, {&h_hello, "hello"}, {&h_assert, "fail_assert"}, {&h_spin, "spin"}, {&h_overread, "overread"}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    __cudaRegisterFunction(handle, k[i].host, (char *)k[i].name, k[i].name, -1, NULL, NULL, NULL, NULL, NULL);
  __cudaRegisterVar(handle, (char *)g_dev_shadow, "g_dev", "g_dev", 0, sizeof g_dev_shadow, 0, 0);
  __cudaRegisterVar(handle, (char *)g_const_shadow, "g_const", "g_const", 0, sizeof g_const_shadow, 1, 0);
  __cudaRegisterManagedVar(handle, (void **)&g_man_ptr, "g_man", "g_man", 0, sizeof(int), 0, 0);
  __cudaRegisterFatBinaryEnd(handle);
  cudaDeviceProp p;
  total_mem = cudaGetDeviceProperties(&p, 0) == cudaSuccess ? p.totalGlobalMem : (size_t)80 << 30;
  return 0;
}

/* ---- operands ---- */

/* A size: small, a multiple of 64, up to 1 MiB, or one of the sizes that overflow or exceed the device.
 * For an allocation, a huge size the host could still satisfy (the device's whole memory, 4 GiB) becomes
 * one no machine has: the harness is not here to exhaust the host. */
static size_t size_op(state *s, int alloc) {
  uint8_t b = wvf_u8(&s->in);
  switch (b >> 6) {
  case 0: return (size_t)(b & 63) * 4;
  case 1: return (size_t)(b & 63) * 64 + (b & 1);
  case 2: return wvf_u32(&s->in) & 0xfffff;
  default: {
    const size_t big[] = {0, SIZE_MAX, SIZE_MAX - 4095, SIZE_MAX / 2 + 1, total_mem + 1, (size_t)1 << 62,
                          ((size_t)1 << 32) + 4, total_mem};
    size_t n = big[b & 7];
    return alloc && n >= ((size_t)1 << 31) && n < ((size_t)1 << 48) ? (size_t)1 << 48 : n;
  }
  }
}

/* A handle from a slot table: live, destroyed, never set (NULL), legacy/per-thread, or made up. */
static void *handle_op(state *s, slot *t) {
  uint8_t b = wvf_u8(&s->in);
  switch (b & 7) {
  case 4: return NULL;
  case 5: memcpy(s->forged, s->in.p + (s->in.at < s->in.n ? s->in.at : 0),
                 s->in.n - s->in.at < sizeof s->forged ? s->in.n - s->in.at : sizeof s->forged);
          return s->forged;
  case 6: return (void *)(uintptr_t)1; /* cudaStreamLegacy */
  case 7: return (void *)(uintptr_t)2; /* cudaStreamPerThread */
  default: return t[b & 3].h;
  }
}

/* The slot a create call stores its handle in (the callers leave a live one alone). */
static slot *free_slot(state *s, slot *t) {
  return &t[wvf_u8(&s->in) % NSLOT];
}

/* A memory operand: an allocation of the input (live or freed) at an offset near its start or its end,
 * the harness's host buffer at an offset, or NULL. For memory in host RAM, room is how many bytes
 * follow the pointer there (SIZE_MAX for device addresses and NULL), and plain says the runtime does
 * not know the memory (the harness's buffer outside what it registered is ordinary host memory). Pinned
 * and managed pointers stay inside their allocation. */
typedef struct mem {
  uint8_t *p;
  size_t room;
  int plain;
} mem;

static mem mem_op(state *s) {
  uint8_t b = wvf_u8(&s->in), o = wvf_u8(&s->in);
  mem m = {NULL, SIZE_MAX, 0};
  if ((b & 7) < NBUF) {
    buf *x = &s->bufs[b & 7];
    if (!x->p) return m;
    size_t k = (o & 0x80) ? (o & 0x7f) : (size_t)o * 4, off = (o & 0x80) ? (k < x->n ? x->n - k : 0) : k;
    if (x->kind == B_PINNED || x->kind == B_MANAGED) {
      off = x->n ? off % x->n : 0;
      m.room = x->n - off;
    } else if (off > x->n) {
      off = x->n;
    }
    m.p = (uint8_t *)((uintptr_t)x->p + off);
  } else if ((b & 7) == 6) {
    size_t off = (size_t)o * 256 + (b >> 3);
    if (off > HOST_BYTES) off = HOST_BYTES;
    m = (mem){host + off, HOST_BYTES - off, 1};
  }
  return m;
}

/* Do h rows of w bytes, pitch apart, fit in room? */
static int rows_fit(size_t room, size_t pitch, size_t w, size_t h) {
  if (room == SIZE_MAX || h == 0) return 1;
  return w <= room && (h - 1 == 0 || (pitch && h - 1 <= (room - w) / pitch));
}

static cudaStream_t stream_op(state *s) { return handle_op(s, s->streams); }
static cudaEvent_t event_op(state *s) { return handle_op(s, s->events); }

static dim3 dim_op(state *s) {
  static const unsigned v[] = {1, 1, 2, 32, 33, 64, 256, 1024, 1025, 0, 65536, 2147483647u, 3, 128, 4, 7};
  uint8_t b = wvf_u8(&s->in);
  dim3 d = {v[b & 15], 1, 1};
  if (b & 0x10) d.y = v[(b >> 5) & 7];
  if (b & 0x80) d.z = 2;
  return d;
}

static void host_fn(void *user) { ++*(unsigned *)user; }

/* ---- the calls ---- */

static void op_malloc(state *s, int kind) {
  buf *x = &s->bufs[wvf_u8(&s->in) % NBUF];
  if (x->live) return;
  size_t n = size_op(s, 1), pitch = 0, rows;
  void *p = NULL;
  cudaError_t e;
  switch (kind) {
  case B_DEVICE: e = cudaMalloc(&p, n); break;
  case B_PITCH:
    rows = wvf_u8(&s->in) & 15;
    e = cudaMallocPitch(&p, &pitch, n, rows);
    n = pitch * rows;
    break;
  case B_PINNED: e = cudaMallocHost(&p, n); break;
  default: e = cudaMallocManaged(&p, n, 1); break;
  }
  if (e == cudaSuccess && p) *x = (buf){p, n, kind, 1};
}

/* cudaFree / cudaFreeHost of an allocation (now and then the wrong one of the two), live or freed. */
static void op_free(state *s) {
  uint8_t b = wvf_u8(&s->in);
  buf *x = &s->bufs[b % NBUF];
  if (!x->p) return;
  int host_mem = x->kind == B_PINNED || x->kind == B_MANAGED;
  cudaError_t e = ((x->kind == B_PINNED) ^ (b >> 7)) ? cudaFreeHost(x->p) : cudaFree(x->p);
  if (e == cudaSuccess && x->live) {
    x->live = 0;
    if (host_mem) x->p = NULL; /* freed host memory: not even a stale pointer to pass */
  }
}

static void op_register(state *s) {
  int i = wvf_u8(&s->in) & 1;
  if (s->reg[i].live) {
    cudaHostUnregister(host + s->reg[i].off);
    s->reg[i].live = 0;
    return;
  }
  size_t off = (size_t)(wvf_u8(&s->in) & 15) * 4096, n = (size_t)wvf_u8(&s->in) * 64 + 1;
  if (n > HOST_BYTES - off) n = HOST_BYTES - off;
  if (cudaHostRegister(host + off, n, wvf_u8(&s->in) & 3) == cudaSuccess) {
    s->reg[i].off = off, s->reg[i].n = n, s->reg[i].live = 1;
  }
}

static void op_copy(state *s, int async) {
  mem dst = mem_op(s), src = mem_op(s);
  size_t n = size_op(s, 0);
  int kind = wvf_u8(&s->in) % 6; /* 5: an invalid direction */
  if (dst.plain && n > dst.room) n = dst.room;
  if (src.plain && n > src.room) n = src.room;
  if (async) cudaMemcpyAsync(dst.p, src.p, n, kind, stream_op(s));
  else cudaMemcpy(dst.p, src.p, n, kind);
}

static void op_set(state *s, int async) {
  mem dst = mem_op(s);
  size_t n = size_op(s, 0);
  int v = wvf_u8(&s->in);
  if (dst.plain) dst.p = NULL; /* ordinary host memory is not the runtime's to set */
  if (async) cudaMemsetAsync(dst.p, v, n, stream_op(s));
  else cudaMemset(dst.p, v, n);
}

/* 2-D copies and sets: every row is its own copy, so rows past a pinned or managed allocation would be
 * ordinary host memory — the harness keeps host rows inside the memory they start in. */
static void op_2d(state *s) {
  mem dst = mem_op(s), src = mem_op(s);
  size_t dp = size_op(s, 0), sp = size_op(s, 0), w = size_op(s, 0), h = wvf_u8(&s->in) & 31;
  int kind = wvf_u8(&s->in) % 5;
  if (wvf_u8(&s->in) & 1) {
    if (rows_fit(dst.room, dp, w, h) && rows_fit(src.room, sp, w, h)) cudaMemcpy2D(dst.p, dp, src.p, sp, w, h, kind);
  } else if (!dst.plain) {
    cudaMemset2D(dst.p, dp, kind, w, h);
  }
}

static void op_launch(state *s) {
  static char *const kernels[] = {&h_add, &h_sym, &h_bump, &h_wild, &h_hello, &h_assert, &h_spin, &h_overread,
                                  &h_unknown, &h_add};
  uint8_t k = wvf_u8(&s->in) % 10;
  dim3 grid = dim_op(s), block = dim_op(s);
  static const size_t shareds[] = {0, 0, 64, 48 * 1024, 48 * 1024 + 1, 227 * 1024, SIZE_MAX, 4096};
  size_t shared = shareds[wvf_u8(&s->in) & 7];
  void *p0 = mem_op(s).p, *p1 = mem_op(s).p;
  uint32_t v = wvf_u32(&s->in), n = wvf_u8(&s->in);
  void *args[3];
  /* each kernel's parameters: add(ptr, u32, u32), overread(ptr, ptr, u32), hello/fail_assert(u32), else (ptr) */
  if (k == 0 || k == 9) args[0] = &p0, args[1] = &v, args[2] = &n;
  else if (k == 7) args[0] = &p0, args[1] = &p1, args[2] = &n;
  else if (k == 4 || k == 5) args[0] = &n;
  else args[0] = &p0;
  cudaStream_t st = stream_op(s);
  if (k == 9) cudaLaunchCooperativeKernel(kernels[k], grid, block, args, shared, st);
  else cudaLaunchKernel(kernels[k], grid, block, args, shared, st);
}

static void op_capture_end(state *s) {
  slot *g = free_slot(s, s->graphs);
  cudaStream_t st = stream_op(s);
  cudaGraph_t out = NULL;
  cudaError_t e = cudaStreamEndCapture(st, g->live ? NULL : &out);
  if (e == cudaSuccess && out && !g->live) *g = (slot){out, 1};
}

static void op_destroy(state *s, slot *t, cudaError_t (*destroy)(void *)) {
  uint8_t b = wvf_u8(&s->in);
  slot *x = &t[b % NSLOT];
  if (b & 0x80) { destroy(handle_op(s, t)); return; } /* any handle, made-up ones included */
  if (x->h && destroy(x->h) == cudaSuccess) x->live = 0; /* a refused destroy leaves it for the cleanup */
}

static cudaError_t d_stream(void *h) { return cudaStreamDestroy(h); }
static cudaError_t d_event(void *h) { return cudaEventDestroy(h); }
static cudaError_t d_graph(void *h) { return cudaGraphDestroy(h); }
static cudaError_t d_exec(void *h) { return cudaGraphExecDestroy(h); }

static void step(state *s) {
  uint8_t op = wvf_u8(&s->in);
  switch (op % 34) {
  case 0: { slot *x = free_slot(s, s->streams); if (!x->live) { cudaStream_t h = NULL;
      if (!cudaStreamCreateWithFlags(&h, wvf_u8(&s->in) & 1)) *x = (slot){h, 1}; } break; }
  case 1: op_destroy(s, s->streams, d_stream); break;
  case 2: cudaStreamSynchronize(stream_op(s)); break;
  case 3: cudaStreamQuery(stream_op(s)); break;
  case 4: { slot *x = free_slot(s, s->events); if (!x->live) { cudaEvent_t h = NULL;
      if (!cudaEventCreateWithFlags(&h, wvf_u8(&s->in) & 3)) *x = (slot){h, 1}; } break; }
  case 5: op_destroy(s, s->events, d_event); break;
  case 6: { cudaEvent_t e = event_op(s); cudaEventRecord(e, stream_op(s)); break; }
  case 7: cudaEventSynchronize(event_op(s)); break;
  case 8: cudaEventQuery(event_op(s)); break;
  case 9: { float ms; cudaEvent_t a = event_op(s); cudaEventElapsedTime(&ms, a, event_op(s)); break; }
  case 10: { cudaStream_t st = stream_op(s); cudaStreamWaitEvent(st, event_op(s), 0); break; }
  case 11: { cudaStream_t st = stream_op(s); cudaStreamBeginCapture(st, wvf_u8(&s->in) % 4); break; }
  case 12: op_capture_end(s); break;
  case 13: { int st; cudaStreamIsCapturing(stream_op(s), &st); break; }
  case 14: { slot *g = free_slot(s, s->graphs); if (!g->live) { cudaGraph_t h = NULL;
      if (!cudaGraphCreate(&h, 0)) *g = (slot){h, 1}; } break; }
  case 15: { slot *x = free_slot(s, s->execs); cudaGraph_t g = handle_op(s, s->graphs);
      if (!x->live) { cudaGraphExec_t h = NULL; if (!cudaGraphInstantiate(&h, g, 0)) *x = (slot){h, 1}; } break; }
  case 16: { cudaGraphExec_t x = handle_op(s, s->execs); cudaGraphLaunch(x, stream_op(s)); break; }
  case 17: op_destroy(s, s->graphs, d_graph); break;
  case 18: op_destroy(s, s->execs, d_exec); break;
  case 19: op_malloc(s, B_DEVICE); break;
  case 20: op_malloc(s, B_PITCH); break;
  case 21: op_malloc(s, B_PINNED); break;
  case 22: op_malloc(s, B_MANAGED); break;
  case 23: op_free(s); break;
  case 24: op_register(s); break;
  case 25: op_copy(s, 0); break;
  case 26: op_copy(s, 1); break;
  case 27: op_set(s, wvf_u8(&s->in) & 1); break;
  case 28: op_2d(s); break;
  case 29: op_launch(s); break;
  case 30: cudaLaunchHostFunc(stream_op(s), host_fn, &host_calls); break;
  case 31: cudaDeviceSynchronize(); break;
  case 32: { struct cudaPointerAttributes a; cudaPointerGetAttributes(&a, mem_op(s).p); break; }
  default: {
    int c[4] = {1, 2, 3, 4};
    size_t n = size_op(s, 0), off = size_op(s, 0);
    cudaMemcpyToSymbol(wvf_u8(&s->in) & 1 ? (void *)g_const_shadow : (void *)g_dev_shadow, c, n > 16 ? 16 : n, off, 1);
    break;
  }
  }
  cudaGetLastError();
}

/* Everything the input left: capture ended, handles destroyed, memory freed, the device reset. */
static void cleanup(state *s) {
  for (int i = 0; i < NSLOT; i++) {
    int cap = 0;
    if (s->streams[i].live && cudaStreamIsCapturing(s->streams[i].h, &cap) == cudaSuccess && cap) {
      cudaGraph_t g = NULL;
      if (cudaStreamEndCapture(s->streams[i].h, &g) == cudaSuccess && g) cudaGraphDestroy(g);
    }
  }
  for (int i = 0; i < NSLOT; i++) {
    if (s->execs[i].live) cudaGraphExecDestroy(s->execs[i].h);
    if (s->graphs[i].live) cudaGraphDestroy(s->graphs[i].h);
    if (s->events[i].live) cudaEventDestroy(s->events[i].h);
    if (s->streams[i].live) cudaStreamDestroy(s->streams[i].h);
  }
  for (int i = 0; i < NBUF; i++)
    if (s->bufs[i].live) (void)(s->bufs[i].kind == B_PINNED ? cudaFreeHost(s->bufs[i].p) : cudaFree(s->bufs[i].p));
  for (int i = 0; i < 2; i++)
    if (s->reg[i].live) cudaHostUnregister(host + s->reg[i].off);
  cudaDeviceReset();
  cudaGetLastError();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  LLVMFuzzerInitialize(NULL, NULL);
  static state s; /* the forged-handle bytes must outlive nothing: one input at a time */
  memset(&s, 0, sizeof s);
  s.in = (wvf_reader){data, size, 0, 0};
  for (int steps = 0; !s.in.end && s.in.at < size && steps < 256; steps++) step(&s);
  cleanup(&s);
  return 0;
}
