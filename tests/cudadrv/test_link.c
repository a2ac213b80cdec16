/*
 * test_link.c — warpvm's libcuda.so.1 driven the way numba-cuda and cuda-python drive it: JIT linking of
 * PTX units (cuLinkCreate/AddData/AddFile/Complete/Destroy, the image loaded with cuModuleLoadData and
 * cuLibraryLoadData), the log buffers, inputs that are refused (a cubin, LTO-IR), PTX inside a fatbin and
 * a static library, NVIDIA's libcudadevrt.a replaced by warpvm's grid barrier (a cooperative launch of
 * several blocks that exchange values across cudaCGSynchronize), memory pools, error names, the profiler
 * range, and the nvJitLink stand-in that declines. Expected values are CUDA's documented behaviour.
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

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(void **, int);
CUresult cuCtxSetCurrent(void *);
CUresult cuCtxSynchronize(void);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuLinkCreate_v2(unsigned, int *, void **, void **);
CUresult cuLinkAddData_v2(void *, int, void *, size_t, const char *, unsigned, int *, void **);
CUresult cuLinkAddFile_v2(void *, int, const char *, unsigned, int *, void **);
CUresult cuLinkComplete(void *, void **, size_t *);
CUresult cuLinkDestroy(void *);
CUresult cuModuleLoadData(void **, const void *);
CUresult cuModuleUnload(void *);
CUresult cuModuleGetFunction(void **, void *, const char *);
CUresult cuLibraryLoadData(void **, const void *, void *, void *, unsigned, void *, void *, unsigned);
CUresult cuLibraryGetKernel(void **, void *, const char *);
CUresult cuLibraryUnload(void *);
CUresult cuLaunchKernel(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **,
                        void **);
CUresult cuLaunchCooperativeKernel(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                                   void **);
CUresult cuGetErrorName(CUresult, const char **);
CUresult cuGetErrorString(CUresult, const char **);
CUresult cuDeviceGetMemPool(void **, int);
CUresult cuDeviceGetDefaultMemPool(void **, int);
CUresult cuDeviceSetMemPool(int, void *);
CUresult cuMemPoolCreate(void **, const void *);
CUresult cuMemPoolDestroy(void *);
CUresult cuMemPoolSetAttribute(void *, int, void *);
CUresult cuMemPoolGetAttribute(void *, int, void *);
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *, size_t, void *, void *);
CUresult cuMemFreeAsync(CUdeviceptr, void *);
CUresult cuProfilerStart(void);
CUresult cuProfilerStop(void);

enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1, CUDA_ERROR_INVALID_IMAGE = 200, CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
       CUDA_ERROR_INVALID_PTX = 218, CUDA_ERROR_FILE_NOT_FOUND = 301, CUDA_ERROR_INVALID_HANDLE = 400,
       CUDA_ERROR_NOT_SUPPORTED = 801 };
enum { CU_JIT_INFO_LOG_BUFFER = 3, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4, CU_JIT_ERROR_LOG_BUFFER = 5,
       CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };
enum { CU_JIT_INPUT_CUBIN = 0, CU_JIT_INPUT_PTX = 1, CU_JIT_INPUT_FATBINARY = 2, CU_JIT_INPUT_LIBRARY = 4,
       CU_JIT_INPUT_NVVM = 5 };

/* Unit A: a kernel calling a function of unit B (as Numba's kernels call their device functions). */
static const char PTX_A[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".extern .func (.param .b32 r) triple(.param .b32 x);\n"
  ".visible .entry k(.param .u64 out)\n{\n"
  ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
  "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n"
  "mov.u32 %r1, %tid.x;\n"
  "{\n.param .b32 p;\nst.param.b32 [p], %r1;\n.param .b32 r;\ncall.uni (r), triple, (p);\nld.param.b32 %r2, [r];\n}\n"
  "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r2;\nret;\n}\n";
static const char PTX_B[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .func (.param .b32 r) triple(.param .b32 x)\n{\n.reg .b32 %r<3>;\n"
  "ld.param.b32 %r1, [x];\nmul.lo.s32 %r2, %r1, 3;\nadd.s32 %r2, %r2, 1;\nst.param.b32 [r], %r2;\nret;\n}\n";

/* A grid barrier as numba-cuda emits it: every block writes its slot, syncs the grid, then reads the
 * slot of the block after it; the return value of the barrier is stored too. */
static const char PTX_GRID[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".extern .func (.param .b64 h) cudaCGGetIntrinsicHandle(.param .b32 scope);\n"
  ".extern .func (.param .b32 r) cudaCGSynchronize(.param .b64 h, .param .b32 flags);\n"
  ".visible .entry g(.param .u64 slots, .param .u64 out, .param .u64 rc)\n{\n"
  ".reg .pred %p<2>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<12>;\n"
  "ld.param.u64 %rd1, [slots];\nld.param.u64 %rd2, [out];\nld.param.u64 %rd3, [rc];\n"
  "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %nctaid.x;\nmov.u32 %r3, %tid.x;\n"
  "setp.ne.u32 %p1, %r3, 0;\n"
  "mul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd5, %rd1, %rd4;\n"
  "mad.lo.u32 %r4, %r1, 10, 7;\n@!%p1 st.global.u32 [%rd5], %r4;\n"
  "{\n.param .b32 s;\nst.param.b32 [s], 1;\n.param .b64 h;\ncall.uni (h), cudaCGGetIntrinsicHandle, (s);\n"
  "ld.param.b64 %rd6, [h];\n}\n"
  "{\n.param .b64 h;\nst.param.b64 [h], %rd6;\n.param .b32 f;\nst.param.b32 [f], 0;\n.param .b32 r;\n"
  "call.uni (r), cudaCGSynchronize, (h, f);\nld.param.b32 %r5, [r];\n}\n"
  "add.u32 %r6, %r1, 1;\nrem.u32 %r6, %r6, %r2;\nmul.wide.u32 %rd7, %r6, 4;\nadd.s64 %rd8, %rd1, %rd7;\n"
  "ld.global.u32 %r7, [%rd8];\n"
  "add.s64 %rd9, %rd2, %rd4;\nadd.s64 %rd10, %rd3, %rd4;\n"
  "@!%p1 st.global.u32 [%rd9], %r7;\n@!%p1 st.global.u32 [%rd10], %r5;\nret;\n}\n";

static void *ctx;

static int setup(void **state) {
  (void)state;
  if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx)) return -1;
  return 0;
}

/* Link the PTX texts (NULL-terminated), with log buffers; returns the completion's result. */
static CUresult link_ptx(const char *const *ptx, void **image, size_t *size, void **linker, char *info, char *err) {
  int opts[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                 CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  static void *vals[4];
  vals[0] = info, vals[1] = (void *)(uintptr_t)1024, vals[2] = err, vals[3] = (void *)(uintptr_t)1024;
  assert_int_equal(cuLinkCreate_v2(4, opts, vals, linker), CUDA_SUCCESS);
  for (int i = 0; ptx[i]; i++) {
    char name[32];
    snprintf(name, sizeof name, "unit%d.ptx", i);
    CUresult e = cuLinkAddData_v2(*linker, CU_JIT_INPUT_PTX, (void *)ptx[i], strlen(ptx[i]) + 1, name, 0, NULL, NULL);
    if (e) return e;
  }
  return cuLinkComplete(*linker, image, size);
}

static void run_triple(void *fn) {
  CUdeviceptr d;
  assert_int_equal(cuMemAlloc_v2(&d, 32 * 4), CUDA_SUCCESS);
  void *args[] = {&d};
  assert_int_equal(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
  unsigned h[32];
  assert_int_equal(cuMemcpyDtoH_v2(h, d, sizeof h), CUDA_SUCCESS);
  for (unsigned i = 0; i < 32; i++) assert_int_equal(h[i], 3 * i + 1);
  cuMemFree_v2(d);
}

static void test_link_two_units(void **state) {
  (void)state;
  const char *units[] = {PTX_A, PTX_B, NULL};
  char info[1024], err[1024];
  void *linker, *image, *mod, *fn, *lib, *kern;
  size_t size;
  assert_int_equal(link_ptx(units, &image, &size, &linker, info, err), CUDA_SUCCESS);
  assert_non_null(image);
  assert_int_equal(strlen(image) + 1, size); /* text with its NUL */
  assert_string_equal(err, "");
  /* The image loads as a module and as a library, from a copy (cuda.core copies it). */
  char *copy = malloc(size);
  memcpy(copy, image, size);
  assert_int_equal(cuLinkDestroy(linker), CUDA_SUCCESS);
  assert_int_equal(cuLinkDestroy(linker), CUDA_ERROR_INVALID_HANDLE);
  assert_int_equal(cuModuleLoadData(&mod, copy), CUDA_SUCCESS);
  assert_int_equal(cuModuleGetFunction(&fn, mod, "k"), CUDA_SUCCESS);
  run_triple(fn);
  assert_int_equal(cuLibraryLoadData(&lib, copy, NULL, NULL, 0, NULL, NULL, 0), CUDA_SUCCESS);
  assert_int_equal(cuLibraryGetKernel(&kern, lib, "k"), CUDA_SUCCESS);
  run_triple(kern);
  cuLibraryUnload(lib);
  cuModuleUnload(mod);
  free(copy);
}

static void test_link_errors(void **state) {
  (void)state;
  char info[1024], err[1024];
  void *linker, *image;
  size_t size;
  /* Unit A alone: triple is undefined. */
  const char *alone[] = {PTX_A, NULL};
  assert_int_equal(link_ptx(alone, &image, &size, &linker, info, err), CUDA_ERROR_INVALID_PTX);
  assert_non_null(strstr(err, "undefined reference to 'triple'"));
  cuLinkDestroy(linker);
  /* Nothing added. */
  const char *none[] = {NULL};
  assert_int_equal(link_ptx(none, &image, &size, &linker, info, err), CUDA_ERROR_INVALID_VALUE);
  /* Machine code and LTO-IR are refused, saying why. */
  static const unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  assert_int_equal(cuLinkAddData_v2(linker, CU_JIT_INPUT_CUBIN, (void *)elf, sizeof elf, "k.cubin", 0, NULL, NULL),
                   CUDA_ERROR_NO_BINARY_FOR_GPU);
  assert_non_null(strstr(err, "k.cubin is a cubin"));
  assert_int_equal(cuLinkAddData_v2(linker, CU_JIT_INPUT_NVVM, (void *)elf, sizeof elf, "k.ltoir", 0, NULL, NULL),
                   CUDA_ERROR_NOT_SUPPORTED);
  assert_int_equal(cuLinkAddFile_v2(linker, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, NULL, NULL),
                   CUDA_ERROR_FILE_NOT_FOUND);
  assert_int_equal(cuLinkAddData_v2(linker, CU_JIT_INPUT_LIBRARY, (void *)elf, sizeof elf, "x.a", 0, NULL, NULL),
                   CUDA_ERROR_INVALID_IMAGE);
  cuLinkDestroy(linker);
  assert_int_equal(cuLinkAddData_v2(NULL, CU_JIT_INPUT_PTX, (void *)PTX_A, 0, "x", 0, NULL, NULL),
                   CUDA_ERROR_INVALID_HANDLE);
}

/* A fatbin as nvcc lays it out: one container, one uncompressed PTX entry for sm_90 (src/fatbin/fatbin.h). */
static uint8_t *make_fatbin(const char *ptx, size_t *total) {
  size_t len = strlen(ptx), payload = (len + 1 + 7) & ~(size_t)7;
  *total = 16 + 64 + payload;
  uint8_t *b = calloc(1, *total);
  uint32_t magic = 0xBA55ED50u, hsize = 64, arch = 90;
  uint16_t v1 = 1, h16 = 16, kind = 1, ver = 0x0101, minor = 0, major = 8;
  uint64_t rest = 64 + payload, stored = payload, flags = 0x11;
  memcpy(b, &magic, 4), memcpy(b + 4, &v1, 2), memcpy(b + 6, &h16, 2), memcpy(b + 8, &rest, 8);
  uint8_t *e = b + 16;
  memcpy(e, &kind, 2), memcpy(e + 2, &ver, 2), memcpy(e + 4, &hsize, 4), memcpy(e + 8, &stored, 8);
  memcpy(e + 24, &minor, 2), memcpy(e + 26, &major, 2), memcpy(e + 28, &arch, 4), memcpy(e + 40, &flags, 8);
  memcpy(e + 64, ptx, len);
  return b;
}

/* An ar archive of (name, bytes) members, GNU long names in "//". */
static uint8_t *make_ar(const char *const *names, const uint8_t *const *data, const size_t *lens, int n, size_t *total) {
  uint8_t *a = calloc(1, 65536);
  size_t at = 0;
  memcpy(a, "!<arch>\n", 8), at = 8;
  char longnames[512] = "";
  for (int i = 0; i < n; i++) strcat(longnames, names[i]), strcat(longnames, "/\n");
  size_t nl = strlen(longnames);
  at += (size_t)sprintf((char *)a + at, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", "//", "", "", "", "", nl);
  memcpy(a + at, longnames, nl), at += nl + (nl & 1);
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    char ref[17];
    snprintf(ref, sizeof ref, "/%zu", off);
    off += strlen(names[i]) + 2;
    at += (size_t)sprintf((char *)a + at, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", ref, "0", "0", "0", "644", lens[i]);
    memcpy(a + at, data[i], lens[i]), at += lens[i] + (lens[i] & 1);
  }
  *total = at;
  return a;
}

static void test_link_fatbin_and_library(void **state) {
  (void)state;
  char info[1024], err[1024];
  int opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[2] = {err, (void *)(uintptr_t)sizeof err};
  void *linker, *image, *mod, *fn;
  size_t size, fsize, asize;
  (void)info;
  uint8_t *fat = make_fatbin(PTX_B, &fsize);
  assert_int_equal(cuLinkCreate_v2(2, opts, vals, &linker), CUDA_SUCCESS);
  assert_int_equal(cuLinkAddData_v2(linker, CU_JIT_INPUT_PTX, (void *)PTX_A, 0, "a.ptx", 0, NULL, NULL), CUDA_SUCCESS);
  assert_int_equal(cuLinkAddData_v2(linker, CU_JIT_INPUT_FATBINARY, fat, fsize, "b.fatbin", 0, NULL, NULL), CUDA_SUCCESS);
  assert_int_equal(cuLinkComplete(linker, &image, &size), CUDA_SUCCESS);
  assert_int_equal(cuModuleLoadData(&mod, image), CUDA_SUCCESS);
  assert_int_equal(cuModuleGetFunction(&fn, mod, "k"), CUDA_SUCCESS);
  run_triple(fn);
  cuModuleUnload(mod);
  cuLinkDestroy(linker);
  /* A library whose member is not an object: refused, naming the member. */
  vals[1] = (void *)(uintptr_t)sizeof err; /* the size option is in and out: it holds the bytes written now */
  const char *names[] = {"helpers_with_a_long_name.o"};
  const uint8_t *data[] = {fat};
  uint8_t *ar = make_ar(names, data, &fsize, 1, &asize);
  assert_int_equal(cuLinkCreate_v2(2, opts, vals, &linker), CUDA_SUCCESS);
  assert_int_equal(cuLinkAddData_v2(linker, CU_JIT_INPUT_LIBRARY, ar, asize, "libh.a", 0, NULL, NULL),
                   CUDA_ERROR_INVALID_IMAGE);
  assert_non_null(strstr(err, "libh.a(helpers_with_a_long_name.o)"));
  assert_int_equal((uintptr_t)vals[1], strlen(err)); /* the bytes written come back in the size option */
  cuLinkDestroy(linker);
  free(ar);
  free(fat);
}

/* NVIDIA's libcudadevrt.a (an archive with cuda_device_runtime.o) brings warpvm's grid barrier. */
static void test_grid_sync_through_devrt(void **state) {
  (void)state;
  static const uint8_t junk[8] = "junk";
  const char *names[] = {"cuda_device_runtime.o"};
  const uint8_t *data[] = {junk};
  size_t lens[] = {sizeof junk}, asize, size;
  uint8_t *ar = make_ar(names, data, lens, 1, &asize);
  void *linker, *image, *mod, *fn;
  assert_int_equal(cuLinkCreate_v2(0, NULL, NULL, &linker), CUDA_SUCCESS);
  assert_int_equal(cuLinkAddData_v2(linker, CU_JIT_INPUT_PTX, (void *)PTX_GRID, 0, "g.ptx", 0, NULL, NULL), CUDA_SUCCESS);
  assert_int_equal(cuLinkAddData_v2(linker, CU_JIT_INPUT_LIBRARY, ar, asize, "libcudadevrt.a", 0, NULL, NULL),
                   CUDA_SUCCESS);
  assert_int_equal(cuLinkComplete(linker, &image, &size), CUDA_SUCCESS);
  assert_int_equal(cuModuleLoadData(&mod, image), CUDA_SUCCESS);
  cuLinkDestroy(linker);
  free(ar);
  assert_int_equal(cuModuleGetFunction(&fn, mod, "g"), CUDA_SUCCESS);
  enum { B = 24 };
  CUdeviceptr slots, out, rc;
  assert_int_equal(cuMemAlloc_v2(&slots, B * 4) | cuMemAlloc_v2(&out, B * 4) | cuMemAlloc_v2(&rc, B * 4), CUDA_SUCCESS);
  void *args[] = {&slots, &out, &rc};
  unsigned h_out[B], h_rc[B];
  for (int round = 0; round < 2; round++) {
    assert_int_equal(cuLaunchCooperativeKernel(fn, B, 1, 1, 64, 1, 1, 0, NULL, args), CUDA_SUCCESS);
    assert_int_equal(cuCtxSynchronize(), CUDA_SUCCESS);
    assert_int_equal(cuMemcpyDtoH_v2(h_out, out, sizeof h_out) | cuMemcpyDtoH_v2(h_rc, rc, sizeof h_rc), CUDA_SUCCESS);
    for (unsigned b = 0; b < B; b++) {
      assert_int_equal(h_out[b], ((b + 1) % B) * 10 + 7); /* the next block's slot, written before the barrier */
      assert_int_equal(h_rc[b], 0);
    }
  }
  /* Not cooperative: no grid, the barrier returns 999 (cudaErrorUnknown) at once. */
  assert_int_equal(cuLaunchKernel(fn, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
  assert_int_equal(cuMemcpyDtoH_v2(h_rc, rc, sizeof h_rc), CUDA_SUCCESS);
  assert_int_equal(h_rc[0], 999);
  assert_int_equal(h_rc[1], 999);
  cuMemFree_v2(slots), cuMemFree_v2(out), cuMemFree_v2(rc);
  cuModuleUnload(mod);
}

static void test_error_names(void **state) {
  (void)state;
  const char *s = (const char *)1;
  assert_int_equal(cuGetErrorName(801, &s), CUDA_SUCCESS);
  assert_string_equal(s, "CUDA_ERROR_NOT_SUPPORTED");
  assert_int_equal(cuGetErrorString(1, &s), CUDA_SUCCESS);
  assert_string_equal(s, "invalid argument");
  assert_int_equal(cuGetErrorName(0, &s), CUDA_SUCCESS);
  assert_string_equal(s, "CUDA_SUCCESS");
  assert_int_equal(cuGetErrorName(12345, &s), CUDA_ERROR_INVALID_VALUE);
  assert_null(s);
  assert_int_equal(cuGetErrorString(0, NULL), CUDA_ERROR_INVALID_VALUE);
}

static void test_mempools(void **state) {
  (void)state;
  void *def, *cur, *mine;
  assert_int_equal(cuDeviceGetDefaultMemPool(&def, 0), CUDA_SUCCESS);
  assert_int_equal(cuDeviceGetMemPool(&cur, 0), CUDA_SUCCESS);
  assert_ptr_equal(def, cur);
  assert_int_equal(cuDeviceGetMemPool(&cur, 1), 101); /* CUDA_ERROR_INVALID_DEVICE */
  struct { int allocType, handleTypes, locType, locId; void *w; size_t max; unsigned short usage; char r[54]; } props = {
    .allocType = 1, .locType = 1, .locId = 0};
  assert_int_equal(cuMemPoolCreate(&mine, &props), CUDA_SUCCESS);
  assert_int_equal(cuDeviceSetMemPool(0, mine), CUDA_SUCCESS);
  assert_int_equal(cuDeviceGetMemPool(&cur, 0), CUDA_SUCCESS);
  assert_ptr_equal(cur, mine);
  uint64_t thr = 1 << 20, got = 0;
  assert_int_equal(cuMemPoolSetAttribute(mine, 4, &thr), CUDA_SUCCESS); /* RELEASE_THRESHOLD */
  assert_int_equal(cuMemPoolGetAttribute(mine, 4, &got), CUDA_SUCCESS);
  assert_int_equal(got, 1 << 20);
  CUdeviceptr p;
  assert_int_equal(cuMemAllocFromPoolAsync(&p, 4096, mine, NULL), CUDA_SUCCESS);
  assert_int_equal(cuMemPoolGetAttribute(mine, 7, &got), CUDA_SUCCESS); /* USED_MEM_CURRENT */
  assert_true(got >= 4096);
  assert_int_equal(cuMemFreeAsync(p, NULL), CUDA_SUCCESS);
  assert_int_equal(cuMemPoolDestroy(def), CUDA_ERROR_INVALID_VALUE); /* the default pool stays */
  assert_int_equal(cuMemPoolDestroy(mine), CUDA_SUCCESS);
  assert_int_equal(cuDeviceGetMemPool(&cur, 0), CUDA_SUCCESS);
  assert_ptr_equal(cur, def); /* destroying the current pool makes the default current again */
  props.locType = 2;          /* a pool on the host: not supported */
  assert_int_equal(cuMemPoolCreate(&mine, &props), CUDA_ERROR_NOT_SUPPORTED);
}

/* No profiler is attached: starting and stopping its range succeed (numba's cuda.profile_start()). */
static void test_profiler_range(void **state) {
  (void)state;
  assert_int_equal(cuProfilerStart(), CUDA_SUCCESS);
  assert_int_equal(cuProfilerStop(), CUDA_SUCCESS);
}

/* lib/libnvJitLink.so.13 declines: no nvJitLinkVersion (so cuda-python and Numba use the driver's
 * linker), and nvJitLinkCreate fails with NVJITLINK_ERROR_INTERNAL. */
static void test_nvjitlink_standin(void **state) {
  (void)state;
  const char *dir = getenv("WV_LIBDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/libnvJitLink.so.13", dir ? dir : "lib");
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(h);
  assert_null(dlsym(h, "nvJitLinkVersion"));
  int (*create)(void **, unsigned, const char **) = (int (*)(void **, unsigned, const char **))dlsym(h, "__nvJitLinkCreate_13_0");
  assert_non_null(create);
  void *handle = (void *)1;
  assert_int_equal(create(&handle, 0, NULL), 6);
  assert_null(handle);
  dlclose(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_link_two_units),      cmocka_unit_test(test_link_errors),
    cmocka_unit_test(test_link_fatbin_and_library), cmocka_unit_test(test_grid_sync_through_devrt),
    cmocka_unit_test(test_error_names),         cmocka_unit_test(test_mempools),
    cmocka_unit_test(test_profiler_range),      cmocka_unit_test(test_nvjitlink_standin),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
