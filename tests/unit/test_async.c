/*
 * test_async.c — cp.async delivery and mbarrier phases through the C API: what a GPU run cannot
 * show deterministically (when copies land, reads before the wait, deadlocks), checked against the
 * PTX ISA semantics (§9.7.9.25 cp.async, §9.7.13.15 mbarrier).
 */
#include "wv_test.h"

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

/* Each thread copies 4 bytes of g into shared memory and stores what it then reads:
 * out[t] = s[t] before any wait, out[64+t] = s[t] after cp.async.wait_all. */
static const char EARLY[] = HDR
    ".visible .entry early(.param .u64 g, .param .u64 o)\n{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    ".shared .align 16 .b8 s[256];\n"
    "ld.param.u64 %rd1, [g]; ld.param.u64 %rd2, [o];\n"
    "mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2;\n"
    "mov.u32 %r3, s; add.u32 %r4, %r3, %r2;\n"
    "cvt.u64.u32 %rd3, %r2; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
    "cp.async.ca.shared.global [%r4], [%rd4], 4;\n"
    "cp.async.commit_group;\n"
    "ld.shared.u32 %r5, [%r4];\n"
    "st.global.u32 [%rd5], %r5;\n"
    "cp.async.wait_all;\n"
    "ld.shared.u32 %r6, [%r4];\n"
    "st.global.u32 [%rd5+256], %r6;\n"
    "ret;\n}\n";

static void run_early(const char *mode, uint32_t *out, wv_stats *st) {
  wv_config cfg = {.async_delivery = mode};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  const wv_kernel *k = wvt_kernel(vm, EARLY, "early");
  uint32_t g[64];
  for (int i = 0; i < 64; i++) g[i] = 1000u + (uint32_t)i;
  memset(out, 0, 128 * 4);
  wvt_buf b[2] = {{g, sizeof g}, {out, 128 * 4}};
  wvt_run_ok(vm, k, 1, 64, 2, b);
  wv_get_stats(vm, st);
  wv_destroy(vm);
}

static void test_delivery_modes(void **state) {
  (void)state;
  uint32_t out[128];
  wv_stats st;
  /* at-wait: a read before the wait sees the old contents (zero) and is counted */
  run_early(NULL, out, &st);
  for (int t = 0; t < 64; t++) {
    assert_int_equal(out[t], 0);
    assert_int_equal(out[64 + t], 1000 + t);
  }
  assert_int_equal(st.async_copies, 64);
  assert_int_equal(st.async_early_reads, 64);
  /* eager: the data is there at once */
  run_early("eager", out, &st);
  for (int t = 0; t < 64; t++) assert_int_equal(out[t], 1000 + t);
  assert_int_equal(st.async_early_reads, 0);
  /* random: after the wait it is always there */
  for (unsigned seed = 1; seed < 6; seed++) {
    char mode[32];
    snprintf(mode, sizeof mode, "random:%u", seed);
    run_early(mode, out, &st);
    for (int t = 0; t < 64; t++) assert_int_equal(out[64 + t], 1000 + t);
  }
  /* a bad mode is refused */
  wv_config bad = {.async_delivery = "sometimes"};
  assert_null(wv_create(&bad));
}

/* Reads beside copies in flight: each thread copies 4 bytes of g into the first half of s, then reads its word of
 * the second half (no copy writes there) and its own word of the first (in flight): out[t] = s[256 + 4t] (the
 * value it stored there), out[64 + t] = s[4t] before the wait (0), out[128 + t] = after it. The JIT compiles the
 * reads and the stores after the cp.async as one region, which may run only where no copy in flight writes what
 * it reads: here it must leave them to the interpreter, which counts the 64 early reads. */
static const char BESIDE[] = HDR
    ".visible .entry beside(.param .u64 g, .param .u64 o)\n{\n"
    ".reg .b32 %r<12>; .reg .b64 %rd<8>;\n"
    ".shared .align 16 .b8 s[512];\n"
    "ld.param.u64 %rd1, [g]; ld.param.u64 %rd2, [o];\n"
    "mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2;\n"
    "mov.u32 %r3, s; add.u32 %r4, %r3, %r2; add.u32 %r7, %r1, 7;\n"
    "st.shared.u32 [%r4+256], %r7;\n"
    "cvt.u64.u32 %rd3, %r2; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
    "cp.async.ca.shared.global [%r4], [%rd4], 4;\n"
    "cp.async.commit_group;\n"
    "ld.shared.u32 %r5, [%r4+256];\n"
    "ld.shared.u32 %r6, [%r4];\n"
    "st.global.u32 [%rd5], %r5;\n"
    "st.global.u32 [%rd5+256], %r6;\n"
    "cp.async.wait_all;\n"
    "ld.shared.u32 %r8, [%r4];\n"
    "st.global.u32 [%rd5+512], %r8;\n"
    "ret;\n}\n";

static void test_reads_beside_copies_in_flight(void **state) {
  (void)state;
  for (int jit = 0; jit <= wv_has_jit(); jit++) {
    wv_config cfg = {.engine = jit ? "jit" : "interp"};
    wv_vm *vm = wv_create(&cfg);
    assert_non_null(vm);
    const wv_kernel *k = wvt_kernel(vm, BESIDE, "beside");
    uint32_t g[64], out[192] = {0};
    for (int i = 0; i < 64; i++) g[i] = 1000u + (uint32_t)i;
    wvt_buf b[2] = {{g, sizeof g}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, 64, 2, b);
    wv_stats st;
    wv_get_stats(vm, &st);
    for (int t = 0; t < 64; t++) {
      assert_int_equal(out[t], 7 + t);
      assert_int_equal(out[64 + t], 0);
      assert_int_equal(out[128 + t], 1000 + t);
    }
    assert_int_equal(st.async_early_reads, 64);
    assert_int_equal(st.shared_loads, 2 * 3); /* (per warp instruction) */
    wv_destroy(vm);
  }
}

/* Two groups; wait_group 1 guarantees only the older one. Zero fill: src-size 4 of 16 bytes.
 * out[0..3] = s after wait_group 1 (group A: 16 bytes, 4 of them from g, rest zero)
 * out[4]    = s[16] after wait_group 1 (group B: still in flight under at-wait)
 * out[5]    = s[16] after wait_group 0 */
static const char GROUPS[] = HDR
    ".visible .entry groups(.param .u64 g, .param .u64 o)\n{\n"
    ".reg .b32 %r<12>; .reg .b64 %rd<8>;\n"
    ".shared .align 16 .b8 s[64];\n"
    "ld.param.u64 %rd1, [g]; ld.param.u64 %rd2, [o];\n"
    "mov.u32 %r1, s;\n"
    "cp.async.ca.shared.global [%r1], [%rd1], 16, 4;\n"
    "cp.async.commit_group;\n"
    "cp.async.ca.shared.global [%r1+16], [%rd1+16], 4;\n"
    "cp.async.commit_group;\n"
    "cp.async.wait_group 1;\n"
    "ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r1];\n"
    "ld.shared.u32 %r6, [%r1+16];\n"
    "cp.async.wait_group 0;\n"
    "ld.shared.u32 %r7, [%r1+16];\n"
    "st.global.v4.u32 [%rd2], {%r2, %r3, %r4, %r5};\n"
    "st.global.u32 [%rd2+16], %r6;\n"
    "st.global.u32 [%rd2+20], %r7;\n"
    "ret;\n}\n";

static void test_groups_and_zero_fill(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, GROUPS, "groups");
  uint32_t g[8] = {11, 12, 13, 14, 15, 16, 17, 18}, out[6];
  memset(out, 0xff, sizeof out);
  wvt_buf b[2] = {{g, sizeof g}, {out, sizeof out}};
  wvt_run_ok(vm, k, 1, 1, 2, b);
  assert_int_equal(out[0], 11); /* the 4 source bytes ... */
  assert_int_equal(out[1], 0);  /* ... and 12 bytes of zero fill */
  assert_int_equal(out[2], 0);
  assert_int_equal(out[3], 0);
  assert_int_equal(out[4], 0);  /* group B not waited for yet: shared memory still holds 0 */
  assert_int_equal(out[5], 15);
}

/* Two groups of whole-warp copies (each warp's lanes issue theirs together): wait_group 1 lands only the older.
 * Each of 64 threads copies g[t] to s[t] (group A) and g[64 + t] to s[64 + t] (group B): out[t] = s[t] after
 * wait_group 1, out[64 + t] = s[64 + t] then (B in flight under at-wait: 0, an early read), out[128 + t] after
 * wait_group 0. */
static const char WGROUPS[] = HDR
    ".visible .entry wgroups(.param .u64 g, .param .u64 o)\n{\n"
    ".reg .b32 %r<12>; .reg .b64 %rd<8>;\n"
    ".shared .align 16 .b8 s[512];\n"
    "ld.param.u64 %rd1, [g]; ld.param.u64 %rd2, [o];\n"
    "mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2;\n"
    "mov.u32 %r3, s; add.u32 %r4, %r3, %r2;\n"
    "cvt.u64.u32 %rd3, %r2; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
    "cp.async.ca.shared.global [%r4], [%rd4], 4;\n"
    "cp.async.commit_group;\n"
    "cp.async.ca.shared.global [%r4+256], [%rd4+256], 4;\n"
    "cp.async.commit_group;\n"
    "cp.async.wait_group 1;\n"
    "ld.shared.u32 %r5, [%r4];\n"
    "ld.shared.u32 %r6, [%r4+256];\n"
    "cp.async.wait_group 0;\n"
    "ld.shared.u32 %r7, [%r4+256];\n"
    "st.global.u32 [%rd5], %r5;\n"
    "st.global.u32 [%rd5+256], %r6;\n"
    "st.global.u32 [%rd5+512], %r7;\n"
    "ret;\n}\n";

/* A vm of the interpreter (jit 0) or the JIT engine, delivering cp.async as mode says (NULL: at the wait). */
static wv_vm *vm_for(int jit, const char *mode) {
  wv_config cfg = {.engine = jit ? "jit" : "interp", .async_delivery = mode};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  return vm;
}

static void test_wait_group_of_warps(void **state) {
  (void)state;
  for (int jit = 0; jit <= wv_has_jit(); jit++) {
    wv_vm *vm = vm_for(jit, NULL);
    const wv_kernel *k = wvt_kernel(vm, WGROUPS, "wgroups");
    uint32_t g[128], out[192];
    for (int i = 0; i < 128; i++) g[i] = 5000u + (uint32_t)i;
    memset(out, 0xff, sizeof out);
    wvt_buf b[2] = {{g, sizeof g}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, 64, 2, b);
    wv_stats st;
    wv_get_stats(vm, &st);
    for (int t = 0; t < 64; t++) {
      assert_int_equal(out[t], 5000 + t);
      assert_int_equal(out[64 + t], 0);
      assert_int_equal(out[128 + t], 5064 + t);
    }
    assert_int_equal(st.async_copies, 128);
    assert_int_equal(st.async_early_reads, 64);
    wv_destroy(vm);
  }
}

/* Copies of 16 bytes whose lanes are rows with holes (async.c lands a row's runs of lanes with one memcpy each):
 * thread t fills s[t] and r[t] (uint4) with a marker, then where t % 7 != 3 and t != 32 (lane 0 of warp 1) copies
 * g[t] to s[t], and where t % 5 != 1 g[t ^ 1] to r[t] (not a row), waits, and writes s[t] to out[t] and r[t] to
 * out[64 + t]. A lane that copies nothing keeps its marker. */
static const char HOLES[] = HDR
    ".visible .entry holes(.param .u64 g, .param .u64 o)\n{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<12>; .reg .pred %p<4>;\n"
    ".shared .align 16 .b8 s[1024];\n"
    ".shared .align 16 .b8 r[1024];\n"
    "ld.param.u64 %rd1, [g]; ld.param.u64 %rd2, [o];\n"
    "mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 4;\n"
    "mov.u32 %r3, s; add.u32 %r4, %r3, %r2; mov.u32 %r5, r; add.u32 %r6, %r5, %r2;\n"
    "mov.u32 %r7, 0xdeadbeef;\n"
    "st.shared.v4.u32 [%r4], {%r7, %r7, %r7, %r7}; st.shared.v4.u32 [%r6], {%r7, %r7, %r7, %r7};\n"
    "bar.sync 0;\n"
    "mul.wide.u32 %rd3, %r1, 16; add.s64 %rd4, %rd1, %rd3;\n"
    "xor.b32 %r8, %r1, 1; mul.wide.u32 %rd5, %r8, 16; add.s64 %rd6, %rd1, %rd5;\n"
    "rem.u32 %r9, %r1, 7; setp.ne.u32 %p1, %r9, 3; setp.ne.u32 %p2, %r1, 32; and.pred %p1, %p1, %p2;\n"
    "rem.u32 %r10, %r1, 5; setp.ne.u32 %p3, %r10, 1;\n"
    "@%p1 cp.async.cg.shared.global [%r4], [%rd4], 16;\n"
    "@%p3 cp.async.cg.shared.global [%r6], [%rd6], 16;\n"
    "cp.async.wait_all;\n"
    "ld.shared.v4.u32 {%r11, %r12, %r13, %r14}, [%r4];\n"
    "add.s64 %rd7, %rd2, %rd3; st.global.v4.u32 [%rd7], {%r11, %r12, %r13, %r14};\n"
    "ld.shared.v4.u32 {%r11, %r12, %r13, %r14}, [%r6];\n"
    "st.global.v4.u32 [%rd7+1024], {%r11, %r12, %r13, %r14};\n"
    "ret;\n}\n";

static void test_rows_with_holes(void **state) {
  (void)state;
  static const char *const modes[] = {"at-wait", "eager", "random:7"};
  for (int jit = 0; jit <= wv_has_jit(); jit++)
    for (int md = 0; md < 3; md++) {
      wv_vm *vm = vm_for(jit, modes[md]);
      const wv_kernel *k = wvt_kernel(vm, HOLES, "holes");
      uint32_t g[256], out[512];
      for (int i = 0; i < 256; i++) g[i] = 0x1000u + (uint32_t)i;
      memset(out, 0, sizeof out);
      wvt_buf b[2] = {{g, sizeof g}, {out, sizeof out}};
      wvt_run_ok(vm, k, 1, 64, 2, b);
      for (int t = 0; t < 64; t++)
        for (int w = 0; w < 4; w++) {
          int s_copied = t % 7 != 3 && t != 32, r_copied = t % 5 != 1;
          assert_int_equal(out[t * 4 + w], s_copied ? g[t * 4 + w] : 0xdeadbeefu);
          assert_int_equal(out[256 + t * 4 + w], r_copied ? g[(t ^ 1) * 4 + w] : 0xdeadbeefu);
        }
      wv_destroy(vm);
    }
}

/* A thread that never waits: each of 32 threads issues 20,000 copies of 4 bytes into its word s[t], copy i from
 * g[i % 64 * 32 + t] (in the order issued, so the last one's value stays), commits once and waits at the end:
 * out[t] = g[(20000 - 1) % 64 * 32 + t]. A GPU runs it; warpvm keeps at most 1024 operations a lane and 4096
 * batches a warp queued (async.c LANE_QUEUE_MAX), landing the oldest early past that, instead of 56 MB of
 * queue. */
static const char FLOOD[] = HDR
    ".visible .entry flood(.param .u64 g, .param .u64 o)\n{\n"
    ".reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
    ".shared .align 16 .b8 s[128];\n"
    "ld.param.u64 %rd1, [g]; ld.param.u64 %rd2, [o];\n"
    "mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2;\n"
    "mov.u32 %r3, s; add.u32 %r4, %r3, %r2;\n"
    "mov.u32 %r5, 0;\n"
    "LOOP:\n"
    "and.b32 %r6, %r5, 63; shl.b32 %r7, %r6, 5; add.u32 %r7, %r7, %r1; mul.wide.u32 %rd3, %r7, 4; add.s64 %rd4, %rd1, %rd3;\n"
    "cp.async.ca.shared.global [%r4], [%rd4], 4;\n"
    "add.u32 %r5, %r5, 1; setp.lt.u32 %p1, %r5, 20000;\n"
    "@%p1 bra LOOP;\n"
    "cp.async.wait_all;\n"
    "ld.shared.u32 %r8, [%r4];\n"
    "cvt.u64.u32 %rd5, %r2; add.s64 %rd6, %rd2, %rd5;\n"
    "st.global.u32 [%rd6], %r8;\n"
    "ret;\n}\n";

static void test_copies_never_waited_for(void **state) {
  (void)state;
  for (int jit = 0; jit <= wv_has_jit(); jit++) {
    wv_config cfg = {.engine = jit ? "jit" : "interp"};
    wv_vm *vm = wv_create(&cfg);
    assert_non_null(vm);
    const wv_kernel *k = wvt_kernel(vm, FLOOD, "flood");
    uint32_t g[64 * 32], out[32] = {0};
    for (int i = 0; i < 64 * 32; i++) g[i] = 0x10000u + (uint32_t)i;
    wvt_buf b[2] = {{g, sizeof g}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, 32, 2, b);
    for (int t = 0; t < 32; t++) assert_int_equal(out[t], g[(20000 - 1) % 64 * 32 + t]);
    wv_stats st;
    wv_get_stats(vm, &st);
    assert_int_equal(st.async_copies, 20000 * 32);
    wv_destroy(vm);
  }
}

/* cp.async with a src-size of 0 reads nothing (PTX ISA "cp.async": the src-size bytes are copied, the
 * rest of cp-size is zero-filled), so its source may be any address, even 0: CUB and CUTLASS predicate
 * their tile loads this way. Each lane copies 16 bytes with src-size lane % 5 * 4 (0, 4, ..., 16);
 * lanes whose src-size is 0 pass a null source. out[4t .. 4t+3] = the lane's 16 shared bytes after the wait. */
static const char ZFILL[] = HDR
    ".visible .entry zfill(.param .u64 g, .param .u64 o)\n{\n"
    ".reg .b32 %r<12>; .reg .b64 %rd<12>; .reg .pred %p<2>;\n"
    ".shared .align 16 .b8 s[512];\n"
    "ld.param.u64 %rd1, [g]; ld.param.u64 %rd2, [o];\n"
    "mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 4;\n"
    "mov.u32 %r3, s; add.u32 %r4, %r3, %r2;\n"
    "st.shared.v4.u32 [%r4], {%r1, %r1, %r1, %r1};\n"   /* stale bytes the zero fill must replace */
    "rem.u32 %r5, %r1, 5; shl.b32 %r6, %r5, 2;\n"        /* src-size */
    "cvt.u64.u32 %rd3, %r2; add.s64 %rd4, %rd1, %rd3;\n"
    "setp.eq.u32 %p1, %r6, 0;\n"
    "selp.b64 %rd5, 0, %rd4, %p1;\n"                      /* no source at all when nothing is read */
    "cp.async.cg.shared.global [%r4], [%rd5], 16, %r6;\n"
    "cp.async.wait_all;\n"
    "ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [%r4];\n"
    "add.s64 %rd6, %rd2, %rd3;\n"
    "st.global.v4.u32 [%rd6], {%r7, %r8, %r9, %r10};\n"
    "ret;\n}\n";

static void test_zero_fill_reads_nothing(void **state) {
  (void)state;
  for (int memcheck = 0; memcheck < 2; memcheck++) {
    wv_config cfg = {.checks = memcheck ? WV_CHECK_MEMCHECK : 0};
    wv_vm *vm = wv_create(&cfg);
    assert_non_null(vm);
    const wv_kernel *k = wvt_kernel(vm, ZFILL, "zfill");
    uint32_t g[128], out[128];
    for (int i = 0; i < 128; i++) g[i] = 0x1000u + (uint32_t)i;
    wvt_buf b[2] = {{g, sizeof g}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, 32, 2, b);
    for (uint32_t t = 0; t < 32; t++)
      for (uint32_t w = 0; w < 4; w++) assert_int_equal(out[4 * t + w], w < t % 5 ? g[4 * t + w] : 0);
    wv_stats st;
    wv_get_stats(vm, &st);
    assert_int_equal(st.invalid_reads, 0);
    wv_destroy(vm);
  }
}

/* A copy whose source is gone when it is delivered (a 2 MiB device-malloc buffer, on pages of its own,
 * freed between the cp.async and the wait) faults; the report names the cp.async's line and thread,
 * not the wait's. */
static const char LATEFAULT[] = HDR
    ".extern .func (.param .b64 r) malloc(.param .b64 n);\n"
    ".extern .func free(.param .b64 p);\n"
    ".visible .entry late()\n{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    ".shared .align 16 .b8 s[64];\n"
    "{ .param .b64 n; st.param.b64 [n], 2097152; .param .b64 r; call.uni (r), malloc, (n); ld.param.b64 %rd1, [r]; }\n"
    "mov.u32 %r1, s;\n"
    "cp.async.ca.shared.global [%r1], [%rd1], 4; // COPY\n"
    "{ .param .b64 p; st.param.b64 [p], %rd1; call.uni free, (p); }\n"
    "cp.async.wait_all; // WAIT\n"
    "ret;\n}\n";

static void test_late_fault_names_the_copy(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, LATEFAULT, "late");
  wv_status st = wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, NULL);
  wvt_assert_status(vm, st, WV_ERR_FAULT);
  char want[64];
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(LATEFAULT, "COPY"));
  wvt_assert_contains(wv_last_error(vm), want);
  wvt_assert_contains(wv_last_error(vm), "thread (0,0,0)");
}

/* mbarrier with an expected count of 2: phases, parity waits, the state's pending count, which is
 * the count before that arrival (an H200: tests/kernels/golden/async.mbar_basic.*).
 * out[0] = pending count in the first arrive's state (2), out[1] = test_wait.parity 0 after it (0),
 * out[2] = the second's (1), out[3] = test_wait with the first state (1: phase done),
 * out[4] = test_wait.parity 0 (1), out[5] = test_wait.parity 1 (0: phase 1 runs). */
static const char MBAR[] = HDR
    ".visible .entry phases(.param .u64 o)\n{\n"
    ".reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<8>;\n"
    ".shared .align 8 .b64 mb;\n"
    "ld.param.u64 %rd1, [o];\n"
    "mov.u32 %r1, mb;\n"
    "mbarrier.init.shared.b64 [%r1], 2;\n"
    "mbarrier.arrive.shared.b64 %rd2, [%r1];\n"
    "mbarrier.pending_count.b64 %r2, %rd2;\n"
    "mbarrier.test_wait.parity.shared.b64 %p1, [%r1], 0;\n"
    "selp.u32 %r3, 1, 0, %p1;\n"
    "mbarrier.arrive.shared.b64 %rd3, [%r1];\n"
    "mbarrier.pending_count.b64 %r4, %rd3;\n"
    "mbarrier.test_wait.shared.b64 %p2, [%r1], %rd2;\n"
    "selp.u32 %r5, 1, 0, %p2;\n"
    "mbarrier.test_wait.parity.shared.b64 %p3, [%r1], 0;\n"
    "selp.u32 %r6, 1, 0, %p3;\n"
    "mbarrier.test_wait.parity.shared.b64 %p4, [%r1], 1;\n"
    "selp.u32 %r7, 1, 0, %p4;\n"
    "st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};\n"
    "st.global.v2.u32 [%rd1+16], {%r6, %r7};\n"
    "ret;\n}\n";

static void test_mbarrier_phases(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, MBAR, "phases");
  uint32_t out[6];
  memset(out, 0xff, sizeof out);
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 1, 1, b);
  uint32_t want[6] = {2, 0, 1, 1, 1, 0};
  for (int i = 0; i < 6; i++) assert_int_equal(out[i], want[i]);
}

/* Thread 0 waits (try_wait) for a phase that needs 2 arrivals; only one thread ever arrives. */
static const char STUCK[] = HDR
    ".visible .entry stuck(.param .u64 o)\n{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<4>;\n"
    ".shared .align 8 .b64 mb;\n"
    "mov.u32 %r1, mb;\n"
    "mbarrier.init.shared.b64 [%r1], 2;\n"
    "mbarrier.arrive.shared.b64 %rd1, [%r1];\n"
    "WAIT:\n"
    "mbarrier.try_wait.shared.b64 %p1, [%r1], %rd1; // HERE\n"
    "@!%p1 bra WAIT;\n"
    "ret;\n}\n";

static void test_try_wait_deadlock(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, STUCK, "stuck");
  uint32_t out[1];
  wvt_buf b[1] = {{out, sizeof out}};
  wv_status st = wvt_run(vm, k, 1, 1, 1, b);
  assert_int_equal(st, WV_ERR_DEADLOCK);
  wvt_assert_contains(wv_last_error(vm), "mbarrier");
  char want[32];
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(STUCK, "HERE"));
  wvt_assert_contains(wv_last_error(vm), want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_delivery_modes),
    cmocka_unit_test_setup_teardown(test_groups_and_zero_fill, wvt_setup, wvt_teardown),
    cmocka_unit_test(test_zero_fill_reads_nothing),
    cmocka_unit_test(test_wait_group_of_warps),
    cmocka_unit_test(test_rows_with_holes),
    cmocka_unit_test(test_copies_never_waited_for),
    cmocka_unit_test(test_reads_beside_copies_in_flight),
    cmocka_unit_test_setup_teardown(test_late_fault_names_the_copy, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_mbarrier_phases, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_try_wait_deadlock, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
