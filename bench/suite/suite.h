/*
 * suite.h — what the parts of wv_suite (bench/suite/) share: the description of a benchmark case
 * (its buffers, parameters and launch shape, and its native C version), the clocks, and the three
 * ways a case runs: on warpvm (vm.c, the public API of include/warpvm.h), in C (cases.c, native.c)
 * and in OpenCL C under PoCL (pocl.c). main.c times them; bench/report.py turns the numbers into
 * docs/bench.md, docs/bench.png and the README's table.
 */
#ifndef BS_SUITE_H
#define BS_SUITE_H

#include <stddef.h>
#include <stdint.h>

#define BS_MAX_BUFS 4
#define BS_MAX_ARGS 6

/* One kernel parameter: a buffer (index into the case's buffers) or a 32-bit value. */
typedef struct bs_arg {
  char kind; /* 'b' buffer, 'u' u32 value */
  uint32_t v;
} bs_arg;

/* A kernel parameter as the native C version receives it. */
typedef union bs_val {
  void *p;
  uint32_t u;
} bs_val;

/* A buffer: its size and how it is filled. */
typedef struct bs_buf {
  size_t bytes;
  char fill; /* 'u' random u32 (input), 'f' random floats in [-1, 1) (input), 'o' output (zeroed
                before every run) */
} bs_buf;

typedef struct bs_case bs_case;
struct bs_case {
  const char *name; /* kernel name; bench/kernels/NAME.ptx and NAME.cl */
  const char *what; /* one line for the report */
  uint32_t grid[3], block[3];
  bs_buf bufs[BS_MAX_BUFS];
  uint32_t nbufs;
  bs_arg args[BS_MAX_ARGS];
  uint32_t nargs;
  /* The same algorithm in C, single-threaded (native.c): reads the inputs, writes the outputs. */
  void (*native)(const bs_val *args, const bs_case *c);
};

/* The native versions (native.c). */
void bs_native_matmul(const bs_val *a, const bs_case *c);
void bs_native_reduce(const bs_val *a, const bs_case *c);
void bs_native_scan(const bs_val *a, const bs_case *c);
void bs_native_histogram(const bs_val *a, const bs_case *c);
void bs_native_transpose(const bs_val *a, const bs_case *c);
void bs_native_collatz(const bs_val *a, const bs_case *c);
void bs_native_warp_reduce(const bs_val *a, const bs_case *c);
void bs_native_async_copy(const bs_val *a, const bs_case *c);

/* The cases, in report order (cases.c). */
extern const bs_case BS_CASES[];
extern const uint32_t BS_NCASES;

/* Host copies of a case's buffers, inputs filled (cases.c). */
typedef struct bs_host {
  void *buf[BS_MAX_BUFS];
} bs_host;
int bs_host_make(const bs_case *c, bs_host *h);
void bs_host_free(const bs_case *c, bs_host *h);
void bs_host_clear_outputs(const bs_case *c, bs_host *h);
/* The case's parameters over the host buffers, for its native version. */
void bs_host_args(const bs_case *c, const bs_host *h, bs_val *args);
/* 0 if every output buffer of `got` equals `want` bit for bit; else -1, with the first difference
 * in msg. */
int bs_compare(const bs_case *c, void *const *want, void *const *got, char *msg, size_t msglen);

/* Time of one run: wall clock and the CPU time of the whole process (all its threads). */
typedef struct bs_time {
  double wall, cpu;
} bs_time;
void bs_clock(bs_time *t);
bs_time bs_since(const bs_time *start);

/* warpvm (vm.c). */
typedef struct bs_vm bs_vm;
/* engine: wv_config.engine ("interp" or "jit"). */
bs_vm *bs_vm_open(uint32_t threads, const char *engine, char *err, size_t errlen);
int bs_vm_has_jit(void); /* warpvm was built with LLVM: the JIT engine runs too */
void bs_vm_close(bs_vm *v);
/* Loads bench/kernels/NAME.ptx from dir and uploads the inputs. 0 or -1 with err. */
int bs_vm_prepare(bs_vm *v, const bs_case *c, const char *dir, const bs_host *h, char *err, size_t errlen);
int bs_vm_clear(bs_vm *v, char *err, size_t errlen);
/* One launch; *thread_instructions from wv_stats. */
int bs_vm_run(bs_vm *v, uint64_t *thread_instructions, char *err, size_t errlen);
int bs_vm_read(bs_vm *v, void **out, char *err, size_t errlen);
void bs_vm_release(bs_vm *v);
/* Whether this build of warpvm spreads a launch over several threads (see vm.c). */
int bs_vm_threads_supported(void);
/* The vm itself, for the microbenchmark. */
struct wv_vm *bs_vm_handle(bs_vm *v);

/* PoCL (pocl.c); everything returns -1 with err when OpenCL is missing or fails. */
typedef struct bs_ocl bs_ocl;
bs_ocl *bs_ocl_open(uint32_t threads, char *err, size_t errlen);
void bs_ocl_close(bs_ocl *o);
const char *bs_ocl_device(const bs_ocl *o);
const char *bs_ocl_version(const bs_ocl *o); /* the platform's CL_PLATFORM_VERSION */
int bs_ocl_prepare(bs_ocl *o, const bs_case *c, const char *dir, const bs_host *h, char *err, size_t errlen);
int bs_ocl_clear(bs_ocl *o, char *err, size_t errlen);
int bs_ocl_run(bs_ocl *o, char *err, size_t errlen);
int bs_ocl_read(bs_ocl *o, void **out, char *err, size_t errlen);
void bs_ocl_release(bs_ocl *o);

/* The per-instruction-class microbenchmark (micro.c): writes its rows to `out`. */
struct bs_report;
int bs_micro(bs_vm *v, uint32_t reps, const char *filter, struct bs_report *out);
/* Prints the PTX of one class (as the report names it); -1 if there is none. */
int bs_micro_print(const char *name);

/* The raw results file (main.c): one CSV row per timed run. */
typedef struct bs_report bs_report;
void bs_report_row(bs_report *r, const char *section, const char *kernel, const char *impl, uint32_t threads,
                   uint32_t rep, const bs_time *t, uint64_t thread_instructions);

#endif
