/*
 * pocl.c — a benchmark case in OpenCL C under PoCL, the portable OpenCL implementation for CPUs:
 * build bench/kernels/NAME.cl once (PoCL compiles the work-group function at the first launch of a
 * shape, which the untimed warm-up run pays), upload the inputs, then each run is one
 * clEnqueueNDRangeKernel + clFinish. The thread count is PoCL's worker pool, fixed when the platform
 * starts: POCL_MAX_PTHREAD_COUNT (PoCL 3) and POCL_CPU_MAX_CU_COUNT (PoCL 4 and later), set here
 * before the first OpenCL call, so one process runs one thread count. Without OpenCL at build time
 * (WV_BENCH_OPENCL undefined) every call says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite.h"

#ifndef WV_BENCH_OPENCL

bs_ocl *bs_ocl_open(uint32_t threads, char *err, size_t errlen) {
  (void)threads;
  snprintf(err, errlen, "PoCL: wv_suite was built without OpenCL (run bench/setup.sh, then rebuild)");
  return NULL;
}
void bs_ocl_close(bs_ocl *o) { (void)o; }
const char *bs_ocl_device(const bs_ocl *o) { return (void)o, "none"; }
const char *bs_ocl_version(const bs_ocl *o) { return (void)o, "none"; }
int bs_ocl_prepare(bs_ocl *o, const bs_case *c, const char *dir, const bs_host *h, char *err, size_t errlen) {
  (void)o, (void)c, (void)dir, (void)h, (void)err, (void)errlen;
  return -1;
}
int bs_ocl_clear(bs_ocl *o, char *err, size_t errlen) { return (void)o, (void)err, (void)errlen, -1; }
int bs_ocl_run(bs_ocl *o, char *err, size_t errlen) { return (void)o, (void)err, (void)errlen, -1; }
int bs_ocl_read(bs_ocl *o, void **out, char *err, size_t errlen) {
  return (void)o, (void)out, (void)err, (void)errlen, -1;
}
void bs_ocl_release(bs_ocl *o) { (void)o; }

#else

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

struct bs_ocl {
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  char device[256], version[256];
  const bs_case *c;
  cl_program prog;
  cl_kernel k;
  cl_mem mem[BS_MAX_BUFS];
};

static int fail(const char *what, cl_int e, char *err, size_t errlen) {
  snprintf(err, errlen, "PoCL: %s failed (OpenCL error %d)", what, (int)e);
  return -1;
}

/* The first platform whose name says PoCL, and its CPU device. */
static cl_int find_pocl(bs_ocl *o) {
  cl_platform_id pf[16];
  cl_uint n = 0;
  cl_int e = clGetPlatformIDs(16, pf, &n);
  for (cl_uint i = 0; !e && i < n && i < 16; i++) {
    char name[256] = "";
    clGetPlatformInfo(pf[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!strstr(name, "Portable Computing Language") && !strstr(name, "PoCL")) continue;
    if (clGetDeviceIDs(pf[i], CL_DEVICE_TYPE_CPU, 1, &o->dev, NULL)) continue;
    clGetDeviceInfo(o->dev, CL_DEVICE_NAME, sizeof o->device, o->device, NULL);
    clGetPlatformInfo(pf[i], CL_PLATFORM_VERSION, sizeof o->version, o->version, NULL);
    return CL_SUCCESS;
  }
  return e ? e : CL_DEVICE_NOT_FOUND;
}

bs_ocl *bs_ocl_open(uint32_t threads, char *err, size_t errlen) {
  char n[16];
  snprintf(n, sizeof n, "%u", threads);
  setenv("POCL_MAX_PTHREAD_COUNT", n, 1);
  setenv("POCL_CPU_MAX_CU_COUNT", n, 1);
  bs_ocl *o = calloc(1, sizeof *o);
  cl_int e = o ? find_pocl(o) : CL_OUT_OF_HOST_MEMORY;
  if (!e) o->ctx = clCreateContext(NULL, 1, &o->dev, NULL, NULL, &e);
  if (!e) o->q = clCreateCommandQueue(o->ctx, o->dev, 0, &e);
  if (e) {
    fail("finding PoCL's CPU device (is pocl-opencl-icd installed? bench/setup.sh)", e, err, errlen);
    bs_ocl_close(o);
    return NULL;
  }
  return o;
}

void bs_ocl_close(bs_ocl *o) {
  if (!o) return;
  bs_ocl_release(o);
  if (o->q) clReleaseCommandQueue(o->q);
  if (o->ctx) clReleaseContext(o->ctx);
  free(o);
}

const char *bs_ocl_device(const bs_ocl *o) { return o->device; }
const char *bs_ocl_version(const bs_ocl *o) { return o->version; }

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *s = NULL;
  long n = f && !fseek(f, 0, SEEK_END) ? ftell(f) : -1;
  if (n >= 0 && !fseek(f, 0, SEEK_SET) && (s = malloc((size_t)n + 1)) && fread(s, 1, (size_t)n, f) == (size_t)n)
    s[n] = 0, *len = (size_t)n;
  else
    free(s), s = NULL;
  if (f) fclose(f);
  return s;
}

/* Builds NAME.cl; a build error comes back with PoCL's log. */
static int build(bs_ocl *o, const char *path, char *err, size_t errlen) {
  size_t len;
  char *src = read_file(path, &len);
  if (!src) return snprintf(err, errlen, "PoCL: cannot read %s", path), -1;
  cl_int e;
  o->prog = clCreateProgramWithSource(o->ctx, 1, (const char **)&src, &len, &e);
  free(src);
  if (e) return fail("clCreateProgramWithSource", e, err, errlen);
  if ((e = clBuildProgram(o->prog, 1, &o->dev, "-cl-std=CL1.2", NULL, NULL))) {
    char log[2048] = "";
    clGetProgramBuildInfo(o->prog, o->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    snprintf(err, errlen, "PoCL: %s does not build:\n%s", path, log);
    return -1;
  }
  o->k = clCreateKernel(o->prog, o->c->name, &e);
  return e ? fail("clCreateKernel", e, err, errlen) : 0;
}

int bs_ocl_prepare(bs_ocl *o, const bs_case *c, const char *dir, const bs_host *h, char *err, size_t errlen) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.cl", dir, c->name);
  o->c = c;
  if (build(o, path, err, errlen)) return -1;
  cl_int e = 0;
  for (uint32_t i = 0; i < c->nbufs && !e; i++)
    o->mem[i] = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, c->bufs[i].bytes, h->buf[i], &e);
  for (uint32_t i = 0; i < c->nargs && !e; i++)
    e = c->args[i].kind == 'b' ? clSetKernelArg(o->k, i, sizeof(cl_mem), &o->mem[c->args[i].v])
                               : clSetKernelArg(o->k, i, sizeof(cl_uint), &c->args[i].v);
  return e ? fail("buffers and arguments", e, err, errlen) : 0;
}

int bs_ocl_clear(bs_ocl *o, char *err, size_t errlen) {
  static const cl_uint zero = 0;
  cl_int e = 0;
  for (uint32_t i = 0; i < o->c->nbufs && !e; i++)
    if (o->c->bufs[i].fill == 'o')
      e = clEnqueueFillBuffer(o->q, o->mem[i], &zero, sizeof zero, 0, o->c->bufs[i].bytes, 0, NULL, NULL);
  if (!e) e = clFinish(o->q);
  return e ? fail("clEnqueueFillBuffer", e, err, errlen) : 0;
}

int bs_ocl_run(bs_ocl *o, char *err, size_t errlen) {
  const bs_case *c = o->c;
  size_t local[3], global[3];
  for (int d = 0; d < 3; d++) local[d] = c->block[d], global[d] = (size_t)c->grid[d] * c->block[d];
  cl_int e = clEnqueueNDRangeKernel(o->q, o->k, 3, NULL, global, local, 0, NULL, NULL);
  if (!e) e = clFinish(o->q);
  return e ? fail("clEnqueueNDRangeKernel", e, err, errlen) : 0;
}

int bs_ocl_read(bs_ocl *o, void **out, char *err, size_t errlen) {
  cl_int e = 0;
  for (uint32_t i = 0; i < o->c->nbufs && !e; i++)
    if (o->c->bufs[i].fill == 'o')
      e = clEnqueueReadBuffer(o->q, o->mem[i], CL_TRUE, 0, o->c->bufs[i].bytes, out[i], 0, NULL, NULL);
  return e ? fail("clEnqueueReadBuffer", e, err, errlen) : 0;
}

void bs_ocl_release(bs_ocl *o) {
  for (uint32_t i = 0; i < BS_MAX_BUFS; i++)
    if (o->mem[i]) clReleaseMemObject(o->mem[i]), o->mem[i] = NULL;
  if (o->k) clReleaseKernel(o->k), o->k = NULL;
  if (o->prog) clReleaseProgram(o->prog), o->prog = NULL;
}

#endif
