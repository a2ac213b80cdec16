/*
 * test_exec_control.c — control flow and the execution context through the C API (PTX ISA
 * §9.7.12 "Control Flow Instructions", §7 "Abstracting the ABI", §10 "Special Registers"):
 *   call/ret with .param arguments and return values (scalar and aggregate), nvcc's callseq
 *   blocks; recursion (factorial through a .func calling itself, with its own .local storage per
 *   activation and different depths per lane); a call from divergent code (activemask inside
 *   the callee) and a callee that returns early on some lanes; early exit/ret of some lanes;
 *   3-D grid and block special registers (%tid %ntid %ctaid %nctaid %laneid %warpid
 *   %lanemask_*); two vms in one process, interleaved and on two host threads at once.
 */
#include <pthread.h>

#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int ctl_setup(void **state) {
  wv_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_steps = 20000000; /* a scheduler hang becomes a failure */
  wv_vm *vm = wv_create(&cfg);
  *state = vm;
  return vm ? 0 : -1;
}

/* ---- calls ------------------------------------------------------------------------------------ */

static const char CALL_PTX[] = WVT_HDR
    /* an aggregate return value: {quotient, pad, remainder} */
    ".visible .func (.param .align 8 .b8 rv[16]) divmod(.param .b32 a, .param .b32 b)\n"
    "{\n"
    ".reg .b32 %r<6>;\n"
    "ld.param.b32 %r1, [a];\n"
    "ld.param.b32 %r2, [b];\n"
    "div.u32 %r3, %r1, %r2;\n"
    "rem.u32 %r4, %r1, %r2;\n"
    "st.param.b32 [rv], %r3;\n"
    "st.param.b32 [rv+8], %r4;\n"
    "ret;\n"
    "}\n"
    /* recursion with .local storage per activation */
    ".visible .func (.param .b64 r) fact(.param .b32 n)\n"
    "{\n"
    ".local .align 8 .b8 depot[8];\n"
    ".reg .b32 %r<6>; .reg .b64 %rd<6>; .reg .pred %p<2>;\n"
    "ld.param.b32 %r1, [n];\n"
    "st.local.u32 [depot], %r1;\n"
    "setp.le.u32 %p1, %r1, 1;\n"
    "@%p1 bra BASE;\n"
    "sub.u32 %r2, %r1, 1;\n"
    "{\n"
    ".param .b32 a0;\n"
    "st.param.b32 [a0], %r2;\n"
    ".param .b64 rv0;\n"
    "call (rv0), fact, (a0);\n"
    "ld.param.b64 %rd1, [rv0];\n"
    "}\n"
    "ld.local.u32 %r3, [depot];\n"      /* still this activation's n */
    "cvt.u64.u32 %rd2, %r3;\n"
    "mul.lo.u64 %rd3, %rd1, %rd2;\n"
    "st.param.b64 [r], %rd3;\n"
    "ret;\n"
    "BASE:\n"
    "mov.u64 %rd4, 1;\n"
    "st.param.b64 [r], %rd4;\n"
    "ret;\n"
    "}\n"
    /* the active mask seen inside a callee, with an early return on some lanes */
    ".visible .func (.param .b32 r) who()\n"
    "{\n"
    ".reg .b32 %r<6>; .reg .pred %p<2>;\n"
    "mov.u32 %r2, %laneid;\n"
    "setp.lt.u32 %p1, %r2, 8;\n"
    "@%p1 bra EARLY;\n"
    "activemask.b32 %r1;\n"
    "st.param.b32 [r], %r1;\n"
    "ret;\n"
    "EARLY:\n"
    "activemask.b32 %r1;\n"
    "or.b32 %r3, %r1, 1;\n"             /* lanes < 8 mark bit 0 (an even lane, never active here) */
    "st.param.b32 [r], %r3;\n"
    "ret;\n"
    "}\n"
    ".visible .entry calls(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<24>; .reg .b64 %rd<12>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, %laneid;\n"
    "mad.lo.u32 %r3, %r1, 7, 3;\n"
    "{ // callseq 0\n"
    ".reg .b32 temp_param_reg;\n"
    ".param .b32 param0;\n"
    "st.param.b32 [param0+0], %r3;\n"
    ".param .b32 param1;\n"
    "st.param.b32 [param1+0], 5;\n"
    ".param .align 8 .b8 retval0[16];\n"
    "call.uni (retval0),\n"
    "divmod,\n"
    "(\n"
    "param0,\n"
    "param1\n"
    ");\n"
    "ld.param.b32 %r4, [retval0+0];\n"
    "ld.param.b32 %r5, [retval0+8];\n"
    "} // callseq 0\n"
    "rem.u32 %r6, %r1, 13;\n"
    "add.s32 %r6, %r6, 1;\n"            /* n = tid % 13 + 1: a different depth per lane */
    "{\n"
    ".param .b32 param0;\n"
    "st.param.b32 [param0], %r6;\n"
    ".param .b64 retval0;\n"
    "call (retval0), fact, (param0);\n"
    "ld.param.b64 %rd2, [retval0];\n"
    "}\n"
    "mov.u32 %r7, 0;\n"
    "and.b32 %r8, %r2, 1;\n"
    "setp.eq.u32 %p1, %r8, 0;\n"
    "@%p1 bra SKIP;\n"                   /* only odd lanes call who() */
    "{\n"
    ".param .b32 retval0;\n"
    "call (retval0), who, ();\n"
    "ld.param.b32 %r7, [retval0];\n"
    "}\n"
    "SKIP:\n"
    "activemask.b32 %r9;\n"
    "mul.wide.u32 %rd3, %r1, 32;\n"
    "add.s64 %rd4, %rd1, %rd3;\n"
    "st.global.v4.u32 [%rd4], {%r4, %r5, %r7, %r9};\n"
    "st.global.u64 [%rd4+16], %rd2;\n"
    "ret;\n"
    "}\n";

static void test_calls_and_recursion(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, CALL_PTX, "calls");
  enum { T = 96 };
  static uint32_t out[T * 8];
  memset(out, 0xee, sizeof out);
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, T, 1, b);
  for (uint32_t t = 0; t < T; t++) {
    const uint32_t *o = out + 8 * t;
    uint32_t x = t * 7 + 3, lane = t % 32;
    assert_int_equal(o[0], x / 5);
    assert_int_equal(o[1], x % 5);
    uint64_t f = 1;
    for (uint64_t i = 2; i <= t % 13 + 1; i++) f *= i;
    uint64_t got;
    memcpy(&got, o + 4, 8);
    if (got != f) fail_msg("thread %u: fact(%u) = %llu, want %llu", t, t % 13 + 1, (unsigned long long)got, (unsigned long long)f);
    uint32_t who = 0;
    if (lane & 1) {
      uint32_t inside = lane < 8 ? 0x000000aau : 0xaaaaaa00u; /* odd lanes, split by the callee's branch */
      who = lane < 8 ? inside | 1 : inside;
    }
    if (o[2] != who) fail_msg("thread %u: who() = 0x%08x, want 0x%08x", t, o[2], who);
    assert_int_equal(o[3], 0xffffffffu); /* reconverged after the call */
  }
}

/* ---- early exit / ret -------------------------------------------------------------------------- */

static const char EXIT_PTX[] = WVT_HDR
    ".visible .func (.param .b32 r) g(.param .b32 x)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .pred %p<2>;\n"
    "ld.param.b32 %r1, [x];\n"
    "and.b32 %r2, %r1, 1;\n"
    "setp.eq.u32 %p1, %r2, 0;\n"
    "@%p1 bra EVEN;\n"
    "mul.lo.u32 %r3, %r1, 10;\n"
    "st.param.b32 [r], %r3;\n"
    "ret;\n"
    "EVEN:\n"
    "add.u32 %r3, %r1, 1000;\n"
    "st.param.b32 [r], %r3;\n"
    "ret;\n"
    "}\n"
    ".visible .entry early(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "rem.u32 %r2, %r1, 3;\n"
    "setp.eq.u32 %p1, %r2, 0;\n"
    "@%p1 exit;\n"                       /* tid % 3 == 0 leaves */
    "rem.u32 %r3, %r1, 7;\n"
    "setp.eq.u32 %p2, %r3, 0;\n"
    "@%p2 ret;\n"                        /* so does tid % 7 == 0 (ret from the kernel) */
    "{\n"
    ".param .b32 a0;\n"
    "st.param.b32 [a0], %r1;\n"
    ".param .b32 rv;\n"
    "call (rv), g, (a0);\n"
    "ld.param.b32 %r4, [rv];\n"
    "}\n"
    "activemask.b32 %r5;\n"
    "setp.eq.u32 %p3, %r1, %r1;\n"
    "vote.sync.ballot.b32 %r6, %p3, %r5;\n"
    "bar.sync 0;\n"                       /* exited threads do not hold the barrier up */
    "mul.wide.u32 %rd2, %r1, 16;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r1};\n"
    "ret;\n"
    "}\n";

static void test_early_exit(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, EXIT_PTX, "early");
  enum { T = 64 };
  static uint32_t out[T * 4];
  memset(out, 0xee, sizeof out);
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, T, 1, b);
  uint32_t live[2] = {0, 0};
  for (uint32_t t = 0; t < T; t++)
    if (t % 3 && t % 7) live[t / 32] |= 1u << (t % 32);
  for (uint32_t t = 0; t < T; t++) {
    const uint32_t *o = out + 4 * t;
    if (!(t % 3 && t % 7)) {
      assert_int_equal(o[0], 0xeeeeeeeeu);
      assert_int_equal(o[3], 0xeeeeeeeeu);
      continue;
    }
    assert_int_equal(o[0], (t & 1) ? t * 10 : t + 1000);
    assert_int_equal(o[1], live[t / 32]);
    assert_int_equal(o[2], live[t / 32]);
    assert_int_equal(o[3], t);
  }
}

/* ---- special registers, 3-D ---------------------------------------------------------------------- */

static const char SREG_PTX[] = WVT_HDR
    ".visible .entry sregs(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<40>; .reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n mov.u32 %r2, %tid.y;\n mov.u32 %r3, %tid.z;\n"
    "mov.u32 %r4, %ntid.x;\n mov.u32 %r5, %ntid.y;\n mov.u32 %r6, %ntid.z;\n"
    "mov.u32 %r7, %ctaid.x;\n mov.u32 %r8, %ctaid.y;\n mov.u32 %r9, %ctaid.z;\n"
    "mov.u32 %r10, %nctaid.x;\n mov.u32 %r11, %nctaid.y;\n mov.u32 %r12, %nctaid.z;\n"
    "mov.u32 %r13, %laneid;\n mov.u32 %r14, %warpid;\n"
    "mov.u32 %r15, %lanemask_eq;\n mov.u32 %r16, %lanemask_lt;\n mov.u32 %r17, %lanemask_le;\n"
    "mov.u32 %r18, %lanemask_gt;\n mov.u32 %r19, %lanemask_ge;\n"
    /* global linear index: block linear * threads per block + thread linear */
    "mad.lo.u32 %r20, %r9, %r11, %r8;\n"
    "mad.lo.u32 %r20, %r20, %r10, %r7;\n"
    "mul.lo.u32 %r21, %r4, %r5;\n"
    "mul.lo.u32 %r21, %r21, %r6;\n"
    "mad.lo.u32 %r22, %r3, %r5, %r2;\n"
    "mad.lo.u32 %r22, %r22, %r4, %r1;\n"
    "mad.lo.u32 %r23, %r20, %r21, %r22;\n"
    "mul.wide.u32 %rd2, %r23, 80;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};\n"
    "st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};\n"
    "st.global.v4.u32 [%rd3+32], {%r9, %r10, %r11, %r12};\n"
    "st.global.v4.u32 [%rd3+48], {%r13, %r14, %r15, %r16};\n"
    "st.global.v4.u32 [%rd3+64], {%r17, %r18, %r19, %r22};\n"
    "ret;\n"
    "}\n";

static void test_special_registers_3d(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, SREG_PTX, "sregs");
  const uint32_t G[3] = {2, 3, 2}, B[3] = {8, 3, 3}; /* 72 threads per block: warps of 32, 32, 8 */
  const uint32_t tpb = B[0] * B[1] * B[2], nblk = G[0] * G[1] * G[2], total = tpb * nblk;
  static uint32_t out[12 * 72 * 20];
  memset(out, 0xee, sizeof out);
  wvt_buf b[1] = {{out, (size_t)total * 80}};
  wvt_expect_ok(vm, wvt_launch_bufs(vm, k, wvt_dim(G[0], G[1], G[2]), wvt_dim(B[0], B[1], B[2]), 0, 1, b));
  for (uint32_t cz = 0; cz < G[2]; cz++)
    for (uint32_t cy = 0; cy < G[1]; cy++)
      for (uint32_t cx = 0; cx < G[0]; cx++) {
        uint32_t warpid_of[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu};
        for (uint32_t tz = 0; tz < B[2]; tz++)
          for (uint32_t ty = 0; ty < B[1]; ty++)
            for (uint32_t tx = 0; tx < B[0]; tx++) {
              uint32_t blk = (cz * G[1] + cy) * G[0] + cx, lin = (tz * B[1] + ty) * B[0] + tx;
              const uint32_t *o = out + 20 * (blk * tpb + lin);
              uint32_t lane = lin % 32;
              uint32_t want[20] = {tx, ty, tz, B[0], B[1], B[2], cx, cy, cz, G[0], G[1], G[2], lane, o[13],
                                   1u << lane, (1u << lane) - 1, lane == 31 ? 0xffffffffu : (2u << lane) - 1,
                                   lane == 31 ? 0 : ~((2u << lane) - 1), ~((1u << lane) - 1), lin};
              for (int i = 0; i < 20; i++)
                if (o[i] != want[i])
                  fail_msg("block (%u,%u,%u) thread (%u,%u,%u) register %d: got 0x%x, want 0x%x", cx, cy, cz, tx, ty, tz, i,
                           o[i], want[i]);
              /* %warpid: one value per warp, distinct warps of a CTA differ */
              uint32_t w = lin / 32;
              if (warpid_of[w] == 0xffffffffu) warpid_of[w] = o[13];
              else assert_int_equal(o[13], warpid_of[w]);
            }
        assert_true(warpid_of[0] != warpid_of[1] && warpid_of[1] != warpid_of[2] && warpid_of[0] != warpid_of[2]);
      }
}

/* ---- two vms ----------------------------------------------------------------------------------- */

static char *vm_ptx(char *buf, size_t cap, uint32_t mul, uint32_t add) {
  snprintf(buf, cap,
           WVT_HDR
           ".global .align 4 .u32 tag = %u;\n"
           ".visible .entry work(.param .u64 pout)\n"
           "{\n"
           ".reg .b32 %%r<8>; .reg .b64 %%rd<4>;\n"
           "ld.param.u64 %%rd1, [pout];\n"
           "mov.u32 %%r1, %%ctaid.x;\n mov.u32 %%r2, %%ntid.x;\n mov.u32 %%r3, %%tid.x;\n"
           "mad.lo.u32 %%r4, %%r1, %%r2, %%r3;\n"
           "ld.global.u32 %%r6, [tag];\n"
           "mad.lo.u32 %%r5, %%r4, %u, %%r6;\n"
           "mul.wide.u32 %%rd2, %%r4, 4;\n"
           "add.s64 %%rd3, %%rd1, %%rd2;\n"
           "st.global.u32 [%%rd3], %%r5;\n"
           "ret;\n"
           "}\n"
           ".visible .entry bad(.param .u64 pout)\n"
           "{\n"
           ".reg .b64 %%rd<4>;\n"
           "ld.param.u64 %%rd1, [pout];\n"
           "st.global.u32 [%%rd1+1048576], 1;\n"
           "ret;\n"
           "}\n",
           add, mul);
  return buf;
}

typedef struct vm_job {
  uint32_t mul, add, iters;
  int failures;
  char first_failure[256];
} vm_job;

static void job_fail(vm_job *j, const char *what) {
  if (!j->failures++) snprintf(j->first_failure, sizeof j->first_failure, "%s", what);
}

/* One host thread driving its own vm: launches, checks, provokes a fault now and then. No cmocka
 * assertions here (they are not thread-safe); failures are counted. */
static void *vm_worker(void *arg) {
  vm_job *j = arg;
  wv_vm *vm = wv_create(NULL);
  if (!vm) { job_fail(j, "wv_create"); return NULL; }
  char ptx[2048];
  vm_ptx(ptx, sizeof ptx, j->mul, j->add);
  wv_module *m = NULL;
  const wv_kernel *k = NULL, *bad = NULL;
  if (wv_module_load_string(vm, ptx, strlen(ptx), "job.ptx", &m) != WV_OK || wv_kernel_get(m, "work", &k) != WV_OK ||
      wv_kernel_get(m, "bad", &bad) != WV_OK) {
    job_fail(j, wv_last_error(vm));
    wv_destroy(vm);
    return NULL;
  }
  enum { T = 256 };
  uint32_t host[T];
  wv_devptr d;
  if (wv_malloc(vm, sizeof host, &d) != WV_OK) job_fail(j, "wv_malloc");
  void *args[1] = {&d};
  for (uint32_t it = 0; it < j->iters && !j->failures; it++) {
    memset(host, 0, sizeof host);
    wv_memcpy_htod(vm, d, host, sizeof host);
    if (wv_launch(vm, k, wvt_dim(4, 1, 1), wvt_dim(64, 1, 1), 0, args) != WV_OK) { job_fail(j, wv_last_error(vm)); break; }
    wv_memcpy_dtoh(vm, host, d, sizeof host);
    for (uint32_t i = 0; i < T; i++)
      if (host[i] != i * j->mul + j->add) { job_fail(j, "wrong result"); break; }
    if (it % 5 == 4) {
      if (wv_launch(vm, bad, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args) != WV_ERR_FAULT) job_fail(j, "no fault");
      else if (!strstr(wv_last_error(vm), "'bad'")) job_fail(j, "fault report names another kernel");
    }
  }
  wv_destroy(vm);
  return NULL;
}

static void test_two_vms_interleaved(void **state) {
  (void)state;
  wv_vm *v1 = wv_create(NULL), *v2 = wv_create(NULL);
  assert_non_null(v1);
  assert_non_null(v2);
  char p1[2048], p2[2048];
  const wv_kernel *k1 = wvt_kernel(v1, vm_ptx(p1, sizeof p1, 3, 11), "work");
  wv_module *m2 = wvt_load(v2, vm_ptx(p2, sizeof p2, 5, 22));
  const wv_kernel *k2 = wvt_get(m2, v2, "work"), *bad2 = wvt_get(m2, v2, "bad");
  enum { T = 128 };
  wv_devptr d1, d2;
  assert_int_equal(wv_malloc(v1, T * 4, &d1), WV_OK);
  assert_int_equal(wv_malloc(v2, T * 4, &d2), WV_OK);
  uint32_t h1[T], h2[T];
  memset(h1, 0, sizeof h1);
  memset(h2, 0, sizeof h2);
  assert_int_equal(wv_memcpy_htod(v1, d1, h1, sizeof h1), WV_OK);
  assert_int_equal(wv_memcpy_htod(v2, d2, h2, sizeof h2), WV_OK);
  void *a1[1] = {&d1}, *a2[1] = {&d2};
  for (int round = 0; round < 3; round++) {
    wvt_expect_ok(v1, wv_launch(v1, k1, wvt_dim(2, 1, 1), wvt_dim(64, 1, 1), 0, a1));
    /* a fault in vm 2 does not disturb vm 1 */
    wvt_assert_status(v2, wv_launch(v2, bad2, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, a2), WV_ERR_FAULT);
    wvt_assert_contains(wv_last_error(v2), "'bad'");
    assert_null(strstr(wv_last_error(v1), "bad"));
    wvt_expect_ok(v2, wv_launch(v2, k2, wvt_dim(2, 1, 1), wvt_dim(64, 1, 1), 0, a2));
    assert_int_equal(wv_memcpy_dtoh(v1, h1, d1, sizeof h1), WV_OK);
    assert_int_equal(wv_memcpy_dtoh(v2, h2, d2, sizeof h2), WV_OK);
    for (uint32_t i = 0; i < T; i++) {
      assert_int_equal(h1[i], 3 * i + 11);
      assert_int_equal(h2[i], 5 * i + 22);
    }
  }
  wv_stats s1, s2;
  wv_get_stats(v1, &s1);
  wv_get_stats(v2, &s2);
  assert_int_equal(s1.launches, 3);
  assert_int_equal(s2.launches, 6);
  wv_destroy(v1);
  wv_destroy(v2);
}

static void test_two_vms_concurrent(void **state) {
  (void)state;
  vm_job jobs[2] = {{7, 1, 40, 0, ""}, {13, 1000, 40, 0, ""}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, vm_worker, &jobs[i]), 0);
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < 2; i++)
    if (jobs[i].failures) fail_msg("vm %d: %d failures, first: %s", i, jobs[i].failures, jobs[i].first_failure);
}

/* exit inside a called function ends those threads; the others return and go on. */
static const char EXIT_IN_FUNC_PTX[] = WVT_HDR
    ".visible .func (.param .b32 r) maybe_exit(.param .b32 x)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .pred %p<2>;\n"
    "ld.param.b32 %r1, [x];\n"
    "and.b32 %r2, %r1, 3;\n"
    "setp.eq.u32 %p1, %r2, 2;\n"
    "@%p1 exit;\n"                        /* lanes with lane % 4 == 2 end here */
    "add.u32 %r3, %r1, 500;\n"
    "st.param.b32 [r], %r3;\n"
    "ret;\n"
    "}\n"
    ".visible .entry exitfn(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "{\n"
    ".param .b32 a0;\n"
    "st.param.b32 [a0], %r1;\n"
    ".param .b32 rv;\n"
    "call (rv), maybe_exit, (a0);\n"
    "ld.param.b32 %r2, [rv];\n"
    "}\n"
    "activemask.b32 %r3;\n"
    "mul.wide.u32 %rd2, %r1, 8;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.v2.u32 [%rd3], {%r2, %r3};\n"
    "ret;\n"
    "}\n";

static void test_exit_inside_function(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, EXIT_IN_FUNC_PTX, "exitfn");
  static uint32_t out[64 * 2];
  memset(out, 0xee, sizeof out);
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 64, 1, b);
  for (uint32_t t = 0; t < 64; t++) {
    if (t % 4 == 2) {
      assert_int_equal(out[2 * t], 0xeeeeeeeeu);
      continue;
    }
    assert_int_equal(out[2 * t], t + 500);
    assert_int_equal(out[2 * t + 1], 0xbbbbbbbbu); /* every lane but lane % 4 == 2 */
  }
}

/* %dynamic_smem_size is the launch's dynamic shared memory size. */
static const char DSMEM_PTX[] = WVT_HDR
    ".visible .entry dsmem(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %dynamic_smem_size;\n"
    "st.global.u32 [%rd1], %r1;\n"
    "ret;\n"
    "}\n";

static void test_dynamic_smem_size(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, DSMEM_PTX, "dsmem");
  static const uint32_t sizes[] = {0, 4, 1000, 48 * 1024};
  for (size_t i = 0; i < N(sizes); i++) {
    uint32_t v = 0xeeeeeeeeu;
    wvt_buf b[1] = {{&v, 4}};
    wvt_expect_ok(vm, wvt_launch_bufs(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), sizes[i], 1, b));
    assert_int_equal(v, sizes[i]);
  }
}

/* nvcc -arch=sm_80 -ptx -O3 (CUDA 13.0) of:
 *   __device__ __noinline__ unsigned rec(unsigned n, unsigned depth) {
 *     unsigned arr[8];
 *     for (int i = 0; i < 8; i++) arr[i] = n * i + depth;
 *     if (n < 2) return arr[(n + depth) & 7];
 *     unsigned k = arr[(n + depth) & 7];
 *     return rec(n / 2, depth + 1) + (k & 0xff);
 *   }
 *
 *   extern "C" __global__ void cflow(const unsigned *in, unsigned *out) {
 *     unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
 *     unsigned x = in[t], steps = 0, acc = 0;
 *     while (x != 1) {
 *       if (steps > 200) break;
 *       if (x & 1) { x = 3 * x + 1; acc += x & 7; continue; }
 *       x >>= 1;
 *       for (unsigned j = 0; j < (x & 3); j++) { if (j == 2) break; acc ^= j * 5 + x; }
 *       steps++;
 *     }
 *     switch (acc % 4) {
 *     case 0: acc += 100; break;
 *     case 1: acc *= 3; break;
 *     case 2: acc -= 7; (fall through)
 *     default: acc ^= 0x55;
 *     }
 *     unsigned r = 0;
 *     if (t % 3 != 1) r = rec(in[t] & 1023, t & 3);
 *     unsigned sum = acc + r;
 *     for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
 *     out[4 * t] = acc;
 *     out[4 * t + 1] = steps;
 *     out[4 * t + 2] = r;
 *     out[4 * t + 3] = sum;
 *   }
 */
static const char CFLOW_PTX[] =
    ".version 9.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".func  (.param .b32 func_retval0) _Z3recjj(\n"
    "\t.param .b32 _Z3recjj_param_0,\n"
    "\t.param .b32 _Z3recjj_param_1\n"
    ")\n"
    "{\n"
    "\t.local .align 16 .b8 \t__local_depot0[32];\n"
    "\t.reg .b64 \t%SP;\n"
    "\t.reg .b64 \t%SPL;\n"
    "\t.reg .pred \t%p<2>;\n"
    "\t.reg .b32 \t%r<19>;\n"
    "\t.reg .b64 \t%rd<6>;\n"
    "\tmov.u64 \t%SPL, __local_depot0;\n"
    "\tld.param.u32 \t%r4, [_Z3recjj_param_0];\n"
    "\tld.param.u32 \t%r5, [_Z3recjj_param_1];\n"
    "\tadd.u64 \t%rd2, %SPL, 0;\n"
    "\tadd.s32 \t%r6, %r4, %r5;\n"
    "\tadd.s32 \t%r7, %r6, %r4;\n"
    "\tadd.s32 \t%r8, %r7, %r4;\n"
    "\tst.local.v4.u32 \t[%rd2], {%r5, %r6, %r7, %r8};\n"
    "\tadd.s32 \t%r9, %r8, %r4;\n"
    "\tadd.s32 \t%r10, %r9, %r4;\n"
    "\tadd.s32 \t%r11, %r10, %r4;\n"
    "\tadd.s32 \t%r12, %r11, %r4;\n"
    "\tst.local.v4.u32 \t[%rd2+16], {%r9, %r10, %r11, %r12};\n"
    "\tshl.b32 \t%r13, %r6, 2;\n"
    "\tcvt.u64.u32 \t%rd3, %r13;\n"
    "\tand.b64  \t%rd4, %rd3, 28;\n"
    "\tadd.s64 \t%rd5, %rd2, %rd4;\n"
    "\tld.local.u32 \t%r18, [%rd5];\n"
    "\tsetp.lt.u32 \t%p1, %r4, 2;\n"
    "\t@%p1 bra \t$L__BB0_2;\n"
    "\tshr.u32 \t%r14, %r4, 1;\n"
    "\tadd.s32 \t%r15, %r5, 1;\n"
    "\t{ // callseq 0, 0\n"
    "\t.reg .b32 temp_param_reg;\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 \t[param0+0], %r14;\n"
    "\t.param .b32 param1;\n"
    "\tst.param.b32 \t[param1+0], %r15;\n"
    "\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), \n"
    "\t_Z3recjj, \n"
    "\t(\n"
    "\tparam0, \n"
    "\tparam1\n"
    "\t);\n"
    "\tld.param.b32 \t%r16, [retval0+0];\n"
    "\t} // callseq 0\n"
    "\tand.b32  \t%r17, %r18, 255;\n"
    "\tadd.s32 \t%r18, %r16, %r17;\n"
    "$L__BB0_2:\n"
    "\tst.param.b32 \t[func_retval0+0], %r18;\n"
    "\tret;\n"
    "}\n"
    "\t// .globl\tcflow\n"
    ".visible .entry cflow(\n"
    "\t.param .u64 cflow_param_0,\n"
    "\t.param .u64 cflow_param_1\n"
    ")\n"
    "{\n"
    "\t.reg .pred \t%p<20>;\n"
    "\t.reg .b16 \t%rs<3>;\n"
    "\t.reg .b32 \t%r<74>;\n"
    "\t.reg .b64 \t%rd<11>;\n"
    "\tld.param.u64 \t%rd2, [cflow_param_0];\n"
    "\tld.param.u64 \t%rd1, [cflow_param_1];\n"
    "\tmov.u32 \t%r29, %ntid.x;\n"
    "\tmov.u32 \t%r30, %ctaid.x;\n"
    "\tmov.u32 \t%r31, %tid.x;\n"
    "\tmad.lo.s32 \t%r1, %r30, %r29, %r31;\n"
    "\tcvta.to.global.u64 \t%rd3, %rd2;\n"
    "\tmul.wide.u32 \t%rd4, %r1, 4;\n"
    "\tadd.s64 \t%rd5, %rd3, %rd4;\n"
    "\tld.global.u32 \t%r2, [%rd5];\n"
    "\tsetp.eq.s32 \t%p1, %r2, 1;\n"
    "\tmov.u32 \t%r64, 0;\n"
    "\tmov.u32 \t%r65, %r64;\n"
    "\t@%p1 bra \t$L__BB1_9;\n"
    "\tmov.u32 \t%r65, 0;\n"
    "\tmov.u32 \t%r63, %r2;\n"
    "\tmov.u32 \t%r64, %r65;\n"
    "$L__BB1_2:\n"
    "\tand.b32  \t%r34, %r63, 1;\n"
    "\tsetp.eq.b32 \t%p2, %r34, 1;\n"
    "\tmov.pred \t%p3, 0;\n"
    "\txor.pred  \t%p4, %p2, %p3;\n"
    "\tnot.pred \t%p5, %p4;\n"
    "\t@%p5 bra \t$L__BB1_4;\n"
    "\tbra.uni \t$L__BB1_3;\n"
    "$L__BB1_4:\n"
    "\tshr.u32 \t%r63, %r63, 1;\n"
    "\tand.b32  \t%r9, %r63, 3;\n"
    "\tsetp.eq.s32 \t%p6, %r9, 0;\n"
    "\t@%p6 bra \t$L__BB1_7;\n"
    "\tsetp.eq.s32 \t%p7, %r9, 1;\n"
    "\txor.b32  \t%r65, %r63, %r65;\n"
    "\t@%p7 bra \t$L__BB1_7;\n"
    "\tadd.s32 \t%r36, %r63, 5;\n"
    "\txor.b32  \t%r65, %r36, %r65;\n"
    "$L__BB1_7:\n"
    "\tadd.s32 \t%r64, %r64, 1;\n"
    "\tbra.uni \t$L__BB1_8;\n"
    "$L__BB1_3:\n"
    "\tmad.lo.s32 \t%r63, %r63, 3, 1;\n"
    "\tand.b32  \t%r35, %r63, 7;\n"
    "\tadd.s32 \t%r65, %r35, %r65;\n"
    "$L__BB1_8:\n"
    "\tsetp.lt.u32 \t%p8, %r64, 201;\n"
    "\tsetp.ne.s32 \t%p9, %r63, 1;\n"
    "\tand.pred  \t%p10, %p8, %p9;\n"
    "\t@%p10 bra \t$L__BB1_2;\n"
    "$L__BB1_9:\n"
    "\tcvt.u16.u32 \t%rs2, %r65;\n"
    "\tand.b16  \t%rs1, %rs2, 3;\n"
    "\tsetp.eq.s16 \t%p11, %rs1, 0;\n"
    "\t@%p11 bra \t$L__BB1_15;\n"
    "\tsetp.eq.s16 \t%p12, %rs1, 1;\n"
    "\t@%p12 bra \t$L__BB1_14;\n"
    "\tsetp.ne.s16 \t%p13, %rs1, 2;\n"
    "\t@%p13 bra \t$L__BB1_13;\n"
    "\tadd.s32 \t%r65, %r65, -7;\n"
    "$L__BB1_13:\n"
    "\txor.b32  \t%r72, %r65, 85;\n"
    "\tbra.uni \t$L__BB1_16;\n"
    "$L__BB1_15:\n"
    "\tadd.s32 \t%r72, %r65, 100;\n"
    "\tbra.uni \t$L__BB1_16;\n"
    "$L__BB1_14:\n"
    "\tmul.lo.s32 \t%r72, %r65, 3;\n"
    "$L__BB1_16:\n"
    "\tmul.wide.u32 \t%rd6, %r1, -1431655765;\n"
    "\tshr.u64 \t%rd7, %rd6, 33;\n"
    "\tcvt.u32.u64 \t%r38, %rd7;\n"
    "\tmul.lo.s32 \t%r39, %r38, 3;\n"
    "\tsub.s32 \t%r40, %r1, %r39;\n"
    "\tsetp.eq.s32 \t%p14, %r40, 1;\n"
    "\tmov.u32 \t%r73, 0;\n"
    "\t@%p14 bra \t$L__BB1_18;\n"
    "\tand.b32  \t%r41, %r2, 1023;\n"
    "\tand.b32  \t%r42, %r1, 3;\n"
    "\t{ // callseq 1, 0\n"
    "\t.reg .b32 temp_param_reg;\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 \t[param0+0], %r41;\n"
    "\t.param .b32 param1;\n"
    "\tst.param.b32 \t[param1+0], %r42;\n"
    "\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), \n"
    "\t_Z3recjj, \n"
    "\t(\n"
    "\tparam0, \n"
    "\tparam1\n"
    "\t);\n"
    "\tld.param.b32 \t%r73, [retval0+0];\n"
    "\t} // callseq 1\n"
    "$L__BB1_18:\n"
    "\tadd.s32 \t%r43, %r73, %r72;\n"
    "\tmov.u32 \t%r44, 31;\n"
    "\tmov.u32 \t%r45, 16;\n"
    "\tmov.u32 \t%r46, -1;\n"
    "\tshfl.sync.bfly.b32 \t%r47|%p15, %r43, %r45, %r44, %r46;\n"
    "\tadd.s32 \t%r48, %r47, %r43;\n"
    "\tmov.u32 \t%r49, 8;\n"
    "\tshfl.sync.bfly.b32 \t%r50|%p16, %r48, %r49, %r44, %r46;\n"
    "\tadd.s32 \t%r51, %r50, %r48;\n"
    "\tmov.u32 \t%r52, 4;\n"
    "\tshfl.sync.bfly.b32 \t%r53|%p17, %r51, %r52, %r44, %r46;\n"
    "\tadd.s32 \t%r54, %r53, %r51;\n"
    "\tmov.u32 \t%r55, 2;\n"
    "\tshfl.sync.bfly.b32 \t%r56|%p18, %r54, %r55, %r44, %r46;\n"
    "\tadd.s32 \t%r57, %r56, %r54;\n"
    "\tmov.u32 \t%r58, 1;\n"
    "\tshfl.sync.bfly.b32 \t%r59|%p19, %r57, %r58, %r44, %r46;\n"
    "\tadd.s32 \t%r60, %r59, %r57;\n"
    "\tshl.b32 \t%r61, %r1, 2;\n"
    "\tcvta.to.global.u64 \t%rd8, %rd1;\n"
    "\tmul.wide.u32 \t%rd9, %r61, 4;\n"
    "\tadd.s64 \t%rd10, %rd8, %rd9;\n"
    "\tst.global.u32 \t[%rd10], %r72;\n"
    "\tst.global.u32 \t[%rd10+4], %r64;\n"
    "\tst.global.u32 \t[%rd10+8], %r73;\n"
    "\tst.global.u32 \t[%rd10+12], %r60;\n"
    "\tret;\n"
    "}\n";

/* C model of the CUDA source above. */
static uint32_t rec_model(uint32_t n, uint32_t depth) {
  uint32_t arr[8];
  for (uint32_t i = 0; i < 8; i++) arr[i] = n * i + depth;
  if (n < 2) return arr[(n + depth) & 7];
  uint32_t k = arr[(n + depth) & 7];
  return rec_model(n / 2, depth + 1) + (k & 0xff);
}

static void cflow_model(uint32_t t, uint32_t in, uint32_t *acc_out, uint32_t *steps_out, uint32_t *r_out) {
  uint32_t x = in, steps = 0, acc = 0;
  while (x != 1) {
    if (steps > 200) break;
    if (x & 1) {
      x = 3 * x + 1;
      acc += x & 7;
      continue;
    }
    x >>= 1;
    for (uint32_t j = 0; j < (x & 3); j++) {
      if (j == 2) break;
      acc ^= j * 5 + x;
    }
    steps++;
  }
  switch (acc % 4) {
  case 0: acc += 100; break;
  case 1: acc *= 3; break;
  case 2: acc -= 7; /* fall through */
  default: acc ^= 0x55;
  }
  *acc_out = acc;
  *steps_out = steps;
  *r_out = t % 3 != 1 ? rec_model(in & 1023, t & 3) : 0;
}

/* nvcc output with loops (break / continue), a switch, a recursive __noinline__ function with a
 * local array on the stack (__local_depot, %SPL), called from divergent code, and a warp-wide
 * __shfl_xor_sync reduction afterwards. */
/* barrier.cluster.arrive / .wait (sm_90, CUTLASS's kernels): a launch is a cluster of one CTA, so every
 * thread's wait returns once every live thread of the CTA has arrived. Each thread writes its slot of
 * shared memory before arriving and reads its neighbour's after waiting; warps reach the barrier at
 * different times (a data-dependent delay loop). */
static const char CLUSTER_PTX[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry cl(.param .u64 po)\n{\n"
    ".shared .align 4 .b8 sm[1024];\n"
    ".reg .b32 %r<12>; .reg .b64 %rd<6>; .reg .pred %p<2>;\n"
    "ld.param.u64 %rd1, [po]; mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2; mov.u32 %r3, sm; add.u32 %r4, %r3, %r2;\n"
    "shr.u32 %r5, %r1, 5; mul.lo.u32 %r5, %r5, 50; mov.u32 %r6, 0;\n"
    "DELAY: setp.lt.u32 %p1, %r6, %r5; add.u32 %r6, %r6, 1; @%p1 bra DELAY;\n"
    "add.u32 %r7, %r1, 1000; st.shared.u32 [%r4], %r7;\n"
    "barrier.cluster.arrive.release.aligned;\n"
    "barrier.cluster.wait.acquire.aligned;\n"
    "add.u32 %r8, %r1, 1; rem.u32 %r8, %r8, 256; shl.b32 %r8, %r8, 2; add.u32 %r9, %r3, %r8; ld.shared.u32 %r10, [%r9];\n"
    "mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r10;\n"
    "ret;\n}\n";

static void test_cluster_barrier(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, CLUSTER_PTX, "cl");
  static uint32_t out[256];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 2, 256, 1, b);
  for (uint32_t t = 0; t < 256; t++) assert_int_equal(out[t], (t + 1) % 256 + 1000);
}

static void test_nvcc_control_flow(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, CFLOW_PTX, "cflow");
  enum { T = 128 };
  static uint32_t in[T], out[4 * T];
  static const uint32_t special[] = {1, 2, 3, 27, 97, 871, 6171, 77031, 1023, 1024};
  uint64_t seed = 2024;
  for (uint32_t t = 0; t < T; t++) in[t] = t < N(special) ? special[t] : 1 + (uint32_t)(wvt_rand(&seed) % 100000);
  wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
  wvt_run_ok(vm, k, 2, T / 2, 2, b);
  uint32_t acc[T], steps[T], r[T];
  for (uint32_t t = 0; t < T; t++) cflow_model(t, in[t], &acc[t], &steps[t], &r[t]);
  for (uint32_t t = 0; t < T; t++) {
    uint32_t sum = 0;
    for (uint32_t l = 0; l < 32; l++) sum += acc[t / 32 * 32 + l] + r[t / 32 * 32 + l];
    const uint32_t *o = out + 4 * t;
    if (o[0] != acc[t] || o[1] != steps[t] || o[2] != r[t] || o[3] != sum)
      fail_msg("thread %u (in %u): got acc %u steps %u rec %u sum %u, want %u %u %u %u", t, in[t], o[0], o[1], o[2], o[3],
               acc[t], steps[t], r[t], sum);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_calls_and_recursion, ctl_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_early_exit, ctl_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_exit_inside_function, ctl_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_special_registers_3d, ctl_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_dynamic_smem_size, ctl_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_nvcc_control_flow, ctl_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_cluster_barrier, ctl_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_two_vms_interleaved, NULL, NULL),
      cmocka_unit_test_setup_teardown(test_two_vms_concurrent, NULL, NULL),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
