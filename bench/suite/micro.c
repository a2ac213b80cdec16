/*
 * micro.c — the per-instruction-class microbenchmark: nanoseconds per thread-instruction of one class
 * of PTX instruction on warpvm (one thread). Each class is a small kernel, written out below from one
 * template: a counted loop whose body is 32 copies of the instruction, run by 64 blocks of 256 threads.
 * The "empty" kernel is the same loop with no body; bench/report.py subtracts its time and its
 * thread-instructions (both from the same repetition) from each class's, so what remains is the cost
 * of the 32 copies alone. `wv_suite --print-micro CLASS` prints a kernel's PTX.
 */
#include <stdio.h>
#include <string.h>

#include "suite.h"
#include "warpvm.h"

#define MICRO_BLOCKS 64
#define MICRO_THREADS 256
#define MICRO_COPIES 32
#define MICRO_ITERS 40 /* 64 * 256 * 32 * 40: 2.1e7 thread-instructions of the class */

typedef struct micro_class {
  const char *name;  /* as the report shows it */
  const char *body;  /* the instruction, repeated MICRO_COPIES times */
} micro_class;

/* Registers the body may use (set up before the loop, all live at the end):
 *   %r9 = global thread id, %r10 = 3, %r12 loaded value, %rd4 = &buf[thread] (global),
 *   %r8 = &sbuf[tid] (shared), %f1 = thread id as float, %f2 = 0.5, %f3 = 1.0, %rd5 a 64-bit result,
 *   %p2 a predicate. */
static const micro_class CLASSES[] = {
    {"empty", ""},
    {"add.s32", "add.s32 %r9, %r9, %r10;"},
    {"mul.wide.u32", "mul.wide.u32 %rd5, %r9, %r10;"},
    {"setp.lt.s32", "setp.lt.s32 %p2, %r9, %r10;"},
    {"fma.rn.f32", "fma.rn.f32 %f1, %f1, %f2, %f3;"},
    {"cvt.rn.f32.s32", "cvt.rn.f32.s32 %f1, %r9;"},
    {"ld.shared.u32", "ld.shared.u32 %r12, [%r8];"},
    {"st.shared.u32", "st.shared.u32 [%r8], %r9;"},
    {"ld.global.u32", "ld.global.u32 %r12, [%rd4];"},
    {"st.global.u32", "st.global.u32 [%rd4], %r9;"},
    {"shfl.sync.bfly", "shfl.sync.bfly.b32 %r9, %r9, 1, 31, -1;"},
    {"bar.sync", "bar.sync 0;"},
};

static const char HEAD[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry micro(.param .u64 p_buf, .param .u32 p_iters)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n  .reg .f32 %f<8>;\n"
    "  .shared .align 4 .b32 sbuf[256];\n"
    "  ld.param.u64 %rd1, [p_buf];\n  ld.param.u32 %r1, [p_iters];\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n"
    "  mad.lo.s32 %r9, %r3, %r4, %r2;\n  cvta.to.global.u64 %rd2, %rd1;\n  mul.wide.u32 %rd3, %r9, 4;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n  mov.u32 %r6, sbuf;\n  shl.b32 %r7, %r2, 2;\n  add.s32 %r8, %r6, %r7;\n"
    "  st.shared.u32 [%r8], %r9;\n  mov.u32 %r10, 3;\n  mov.u32 %r12, 0;\n  mov.u32 %r11, 0;\n"
    "  cvt.rn.f32.u32 %f1, %r9;\n  mov.f32 %f2, 0f3F000000;\n  mov.f32 %f3, 0f3F800000;\n"
    "  mov.u64 %rd5, 0;\n  setp.eq.u32 %p2, %r9, 0;\n"
    "$LOOP:\n";
static const char TAIL[] =
    "  add.s32 %r11, %r11, 1;\n  setp.lt.u32 %p1, %r11, %r1;\n  @%p1 bra $LOOP;\n"
    "  cvt.rzi.s32.f32 %r13, %f1;\n  cvt.u32.u64 %r14, %rd5;\n  selp.u32 %r15, 1, 0, %p2;\n"
    "  xor.b32 %r13, %r13, %r14;\n  xor.b32 %r13, %r13, %r15;\n  xor.b32 %r13, %r13, %r12;\n"
    "  xor.b32 %r13, %r13, %r9;\n  st.global.u32 [%rd4], %r13;\n  ret;\n}\n";

static size_t micro_ptx(const micro_class *m, char *out, size_t cap) {
  size_t n = (size_t)snprintf(out, cap, "%s", HEAD);
  for (int i = 0; i < MICRO_COPIES && *m->body && n < cap; i++) n += (size_t)snprintf(out + n, cap - n, "  %s\n", m->body);
  if (n < cap) n += (size_t)snprintf(out + n, cap - n, "%s", TAIL);
  return n;
}

int bs_micro_print(const char *name) {
  char ptx[8192];
  for (size_t i = 0; i < sizeof CLASSES / sizeof CLASSES[0]; i++)
    if (!strcmp(CLASSES[i].name, name)) return micro_ptx(&CLASSES[i], ptx, sizeof ptx), fputs(ptx, stdout), 0;
  return -1;
}

/* One timed launch of class m, its thread-instructions from wv_stats. */
static int micro_run(wv_vm *vm, const micro_class *m, wv_devptr buf, bs_time *t, uint64_t *ti) {
  char ptx[8192];
  size_t len = micro_ptx(m, ptx, sizeof ptx);
  wv_module *mod;
  const wv_kernel *k;
  wv_status st = wv_module_load_string(vm, ptx, len, m->name, &mod);
  if (!st) st = wv_kernel_get(mod, "micro", &k);
  if (st) return fprintf(stderr, "wv_suite: micro %s: %s\n", m->name, wv_last_error(vm)), -1;
  uint32_t iters = MICRO_ITERS;
  void *args[] = {&buf, &iters};
  wv_dim3 g = {MICRO_BLOCKS, 1, 1}, b = {MICRO_THREADS, 1, 1};
  bs_time t0;
  wv_stats_reset(vm);
  bs_clock(&t0);
  st = wv_launch(vm, k, g, b, 0, args);
  *t = bs_since(&t0);
  wv_stats s;
  wv_get_stats(vm, &s);
  *ti = s.thread_instructions;
  wv_module_unload(mod);
  if (st) return fprintf(stderr, "wv_suite: micro %s: %s\n", m->name, wv_last_error(vm)), -1;
  return 0;
}

int bs_micro(bs_vm *v, uint32_t reps, const char *filter, bs_report *out) {
  wv_vm *vm = bs_vm_handle(v);
  wv_devptr buf;
  if (wv_malloc(vm, MICRO_BLOCKS * MICRO_THREADS * 4, &buf) || wv_memset(vm, buf, 0, MICRO_BLOCKS * MICRO_THREADS * 4))
    return fprintf(stderr, "wv_suite: micro: %s\n", wv_last_error(vm)), -1;
  int rc = 0;
  for (uint32_t rep = 0; rep <= reps && !rc; rep++) /* repetition 0 warms up and is not written */
    for (size_t i = 0; i < sizeof CLASSES / sizeof CLASSES[0] && !rc; i++) {
      const micro_class *m = &CLASSES[i];
      if (filter && i && !strstr(m->name, filter)) continue;
      bs_time t;
      uint64_t ti;
      if (!(rc = micro_run(vm, m, buf, &t, &ti)) && rep) bs_report_row(out, "micro", m->name, "warpvm", 1, rep, &t, ti);
    }
  wv_free(vm, buf);
  return rc;
}
