/*
 * test_cluster.c — thread-block clusters through the C API (exec/cluster.c), what the PTX ISA and the CUDA
 * Programming Guide define: the cluster special registers of every CTA, a ring exchange through distributed
 * shared memory under every schedule and thread count, the launch rules (a shape that does not divide the
 * grid, more than 8 CTAs without the non-portable flag, a kernel's .reqnctapercluster), the fault report of a
 * .shared::cluster address naming a rank outside the cluster; and the tensor maps' definitions (exec/tensormap.h):
 * the swizzle modes' byte permutation from its documented formula, and the encoding's round trip.
 */
#include "wv_test.h"

#include "exec/tensormap.h"

#define HDR ".version 8.0\n.target sm_90\n.address_size 64\n"

/* out[b*8 ..]: %cluster_ctarank, %cluster_nctarank, %cluster_ctaid.x/.y, %clusterid.x/.y, %nclusterid.x, and
 * the next rank's s[tid] (each CTA stores 100 * rank + tid), read with mapa + ld.shared::cluster after a
 * cluster barrier (arrive/wait split). */
static const char RING[] = HDR
    ".visible .entry ring(.param .u64 o)\n{\n"
    ".reg .b32 %r<20>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
    ".shared .align 4 .b32 s[64];\n"
    "ld.param.u64 %rd1, [o];\n"
    "mov.u32 %r1, %cluster_ctarank; mov.u32 %r2, %cluster_nctarank; mov.u32 %r3, %tid.x;\n"
    "mul.lo.u32 %r4, %r1, 100; add.u32 %r4, %r4, %r3;\n"
    "mov.u32 %r5, s; shl.b32 %r6, %r3, 2; add.u32 %r7, %r5, %r6; st.shared.u32 [%r7], %r4;\n"
    "barrier.cluster.arrive.release; barrier.cluster.wait.acquire;\n"
    "add.u32 %r8, %r1, 1; rem.u32 %r8, %r8, %r2;\n"
    "mapa.shared::cluster.u32 %r9, %r7, %r8; ld.shared::cluster.u32 %r10, [%r9];\n"
    "barrier.cluster.arrive; barrier.cluster.wait;\n"
    "setp.ne.u32 %p1, %r3, 0; @%p1 bra DONE;\n"
    "mov.u32 %r11, %ctaid.x; mov.u32 %r12, %ctaid.y; mov.u32 %r13, %nctaid.x; mad.lo.u32 %r11, %r12, %r13, %r11;\n"
    "mul.wide.u32 %rd2, %r11, 32; add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r1; st.global.u32 [%rd3+4], %r2;\n"
    "mov.u32 %r14, %cluster_ctaid.x; st.global.u32 [%rd3+8], %r14; mov.u32 %r14, %cluster_ctaid.y; st.global.u32 [%rd3+12], %r14;\n"
    "mov.u32 %r14, %clusterid.x; st.global.u32 [%rd3+16], %r14; mov.u32 %r14, %clusterid.y; st.global.u32 [%rd3+20], %r14;\n"
    "mov.u32 %r14, %nclusterid.x; st.global.u32 [%rd3+24], %r14; st.global.u32 [%rd3+28], %r10;\n"
    "DONE: ret;\n}\n"
    /* a rank outside the cluster */
    ".visible .entry bad_rank(.param .u64 o)\n{\n"
    ".reg .b32 %r<8>; .shared .align 4 .b32 s[4];\n"
    "mov.u32 %r1, s; mov.u32 %r2, %cluster_nctarank;\n"
    "mapa.shared::cluster.u32 %r3, %r1, %r2; ld.shared::cluster.u32 %r4, [%r3];\n"
    "ret;\n}\n"
    /* a compiled-in shape */
    ".visible .entry fixed(.param .u64 o)\n.reqnctapercluster 2, 1, 1\n{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [o]; mov.u32 %r1, %ctaid.x; mov.u32 %r2, %cluster_nctarank;\n"
    "mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r2;\n"
    "ret;\n}\n";

/* Each CTA's thread 0 prints its block and rank; block `bad` then reads rank 7 of its cluster of 2 (a fault). */
static const char PRINTS[] = HDR
    ".extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);\n"
    ".global .align 1 .b8 fmt[18] = {98,108,111,99,107,32,37,117,32,114,97,110,107,32,37,117,10,0};\n"
    ".visible .entry k(.param .u32 bad)\n{\n"
    ".reg .b32 %r<10>; .reg .b64 %rd<6>; .reg .pred %p<3>; .local .align 8 .b8 buf[8]; .shared .align 4 .b32 s[4];\n"
    "mov.u32 %r1, %tid.x; setp.ne.u32 %p1, %r1, 0; @%p1 bra SKIP;\n"
    "mov.u32 %r2, %ctaid.x; mov.u32 %r3, %cluster_ctarank;\n"
    "mov.u64 %rd1, buf; cvta.local.u64 %rd2, %rd1; st.local.u32 [%rd1], %r2; st.local.u32 [%rd1+4], %r3;\n"
    "mov.u64 %rd3, fmt; cvta.global.u64 %rd4, %rd3;\n"
    "{ .param .b64 p0; st.param.b64 [p0], %rd4; .param .b64 p1; st.param.b64 [p1], %rd2; .param .b32 rv;\n"
    "  call (rv), vprintf, (p0, p1); }\n"
    "ld.param.u32 %r4, [bad]; setp.ne.u32 %p2, %r2, %r4; @%p2 bra SKIP;\n"
    "mov.u32 %r5, s; mapa.shared::cluster.u32 %r6, %r5, 7; ld.shared::cluster.u32 %r7, [%r6];\n"
    "SKIP: barrier.cluster.arrive; barrier.cluster.wait;\n"
    "ret;\n}\n";

typedef struct { char buf[8192]; size_t n; } sink;
static void collect(void *user, const char *text, size_t len) {
  sink *s = user;
  if (s->n + len < sizeof s->buf) memcpy(s->buf + s->n, text, len), s->n += len;
}

/* Clusters claimed by several workers print and fail as one thread running them in order does. */
static void test_threads_same_output(void **state) {
  (void)state;
  char out[2][8192], err[2][1024];
  for (int t = 0; t < 2; t++) {
    sink s = {.n = 0};
    wv_config cfg = {.threads = t ? 4 : 1, .printf_out = collect, .printf_user = &s};
    wv_vm *vm = wv_create(&cfg);
    assert_non_null(vm);
    const wv_kernel *k = wvt_kernel(vm, PRINTS, "k");
    uint32_t bad = 45;
    void *args[] = {&bad};
    assert_int_equal(wv_launch_ex(vm, k, wvt_dim(64, 1, 1), wvt_dim(64, 1, 1), 0, args, WV_LAUNCH_CLUSTER(2, 1, 1)), WV_ERR_FAULT);
    snprintf(err[t], sizeof err[t], "%s", wv_last_error(vm));
    s.buf[s.n] = 0;
    memcpy(out[t], s.buf, s.n + 1);
    wv_destroy(vm);
  }
  assert_string_equal(out[0], out[1]);
  assert_string_equal(err[0], err[1]);
  wvt_assert_contains(err[0], "block (45,0,0)");
  wvt_assert_contains(out[0], "block 44 rank 0\nblock 45 rank 1\n");
  assert_null(strstr(out[0], "block 46 "));
}

static wv_status launch(wv_vm *vm, const wv_kernel *k, wv_dim3 grid, uint32_t flags, uint32_t *out, size_t bytes) {
  wv_devptr d;
  assert_int_equal(wv_malloc(vm, bytes, &d), WV_OK);
  assert_int_equal(wv_memset(vm, d, 0, bytes), WV_OK);
  void *args[] = {&d};
  wv_status st = wv_launch_ex(vm, k, grid, wvt_dim(64, 1, 1), 0, args, flags);
  assert_int_equal(wv_memcpy_dtoh(vm, out, d, bytes), WV_OK);
  wv_free(vm, d);
  return st;
}

static void check_ring(const uint32_t *o, uint32_t gx, uint32_t gy, uint32_t cx, uint32_t cy) {
  for (uint32_t by = 0; by < gy; by++)
    for (uint32_t bx = 0; bx < gx; bx++) {
      const uint32_t *v = o + 8 * (bx + gx * by);
      uint32_t rank = bx % cx + cx * (by % cy), n = cx * cy;
      assert_int_equal(v[0], rank);
      assert_int_equal(v[1], n);
      assert_int_equal(v[2], bx % cx);
      assert_int_equal(v[3], by % cy);
      assert_int_equal(v[4], bx / cx);
      assert_int_equal(v[5], by / cy);
      assert_int_equal(v[6], gx / cx);
      assert_int_equal(v[7], 100 * ((rank + 1) % n)); /* thread 0's neighbour word */
    }
}

static void test_ring_every_schedule(void **state) {
  (void)state;
  const char *schedules[] = {NULL, "interleave", "random:7"};
  for (int si = 0; si < 3; si++)
    for (uint32_t threads = 1; threads <= 4; threads += 3) {
      wv_config cfg = {.schedule = schedules[si], .threads = threads};
      wv_vm *vm = wv_create(&cfg);
      assert_non_null(vm);
      const wv_kernel *k = wvt_kernel(vm, RING, "ring");
      uint32_t out[8 * 32];
      wvt_expect_ok(vm, launch(vm, k, wvt_dim(8, 4, 1), WV_LAUNCH_CLUSTER(4, 2, 1), out, sizeof out));
      check_ring(out, 8, 4, 4, 2);
      wvt_expect_ok(vm, launch(vm, k, wvt_dim(8, 4, 1), WV_LAUNCH_CLUSTER(1, 4, 1), out, sizeof out));
      check_ring(out, 8, 4, 1, 4);
      /* no cluster: every CTA is a cluster of one (the ring reads its own word) */
      wvt_expect_ok(vm, launch(vm, k, wvt_dim(8, 4, 1), 0, out, sizeof out));
      check_ring(out, 8, 4, 1, 1);
      wv_destroy(vm);
    }
}

static void test_launch_rules(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load(vm, RING);
  const wv_kernel *k = wvt_get(m, vm, "ring"), *fixed = wvt_get(m, vm, "fixed");
  uint32_t out[8 * 32];
  wv_status st = launch(vm, k, wvt_dim(6, 1, 1), WV_LAUNCH_CLUSTER(4, 1, 1), out, sizeof out);
  assert_int_equal(st, WV_ERR_CLUSTER);
  wvt_assert_contains(wv_last_error(vm), "not a multiple");
  assert_int_equal(launch(vm, k, wvt_dim(16, 1, 1), WV_LAUNCH_CLUSTER(16, 1, 1), out, sizeof out), WV_ERR_CLUSTER);
  wvt_expect_ok(vm, launch(vm, k, wvt_dim(16, 2, 1), WV_LAUNCH_CLUSTER(16, 1, 1) | WV_LAUNCH_NONPORTABLE_CLUSTER, out, sizeof out));
  check_ring(out, 16, 2, 16, 1);
  assert_int_equal(launch(vm, k, wvt_dim(16, 1, 1), WV_LAUNCH_CLUSTER(0, 1, 1), out, sizeof out), WV_ERR_CLUSTER);
  /* .reqnctapercluster 2,1,1: used when the launch gives none, and no other shape */
  wvt_expect_ok(vm, launch(vm, fixed, wvt_dim(4, 1, 1), 0, out, 16));
  for (int i = 0; i < 4; i++) assert_int_equal(out[i], 2);
  assert_int_equal(launch(vm, fixed, wvt_dim(4, 1, 1), WV_LAUNCH_CLUSTER(4, 1, 1), out, 16), WV_ERR_CLUSTER);
  assert_int_equal(launch(vm, fixed, wvt_dim(3, 1, 1), 0, out, 16), WV_ERR_CLUSTER);
  uint32_t dims[3];
  int must;
  assert_int_equal(wv_kernel_cluster(fixed, dims, &must), 1);
  assert_int_equal(dims[0], 2);
  assert_int_equal(must, 1); /* a compiled-in shape counts as set: an H200 (tests/programs cluster_launch) says 1 */
  assert_int_equal(wv_kernel_cluster(k, dims, NULL), 0);
}

static void test_bad_rank_fault(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, RING, "bad_rank");
  uint32_t out[8];
  wv_status st = launch(vm, k, wvt_dim(2, 1, 1), WV_LAUNCH_CLUSTER(2, 1, 1), out, sizeof out);
  assert_int_equal(st, WV_ERR_FAULT);
  const char *e = wv_last_error(vm);
  wvt_assert_contains(e, "rank 2 of a cluster of 2 blocks");
  wvt_assert_contains(e, "kernel 'bad_rank', block (0,0,0), thread (0,0,0)");
  wvt_assert_contains(e, "PTX line");
}

/* The 128B swizzle as the CUDA Programming Guide draws it: in each 1024-byte span, 16-byte chunk c of 128-byte
 * row r lands at chunk c ^ (r % 8); 64B: chunk c (of 4) of 64-byte row r at c ^ ((r / 2) % 4); 32B: chunk c
 * (of 2) of 32-byte row r at c ^ ((r / 4) % 2) — the three are Swizzle<B,4,3> on the shared address. */
static void test_swizzle_formula(void **state) {
  (void)state;
  for (uint32_t a = 0; a < 4096; a++) assert_int_equal(wv_tmap_swizzle(0, a), a);
  for (uint32_t r = 0; r < 32; r++)
    for (uint32_t c = 0; c < 8; c++)
      for (uint32_t b = 0; b < 16; b++) {
        uint32_t a128 = r * 128 + c * 16 + b;
        assert_int_equal(wv_tmap_swizzle(3, a128), r * 128 + (c ^ (r % 8)) * 16 + b);
        if (c < 4) {
          uint32_t a64 = r * 64 + c * 16 + b;
          assert_int_equal(wv_tmap_swizzle(2, a64), r * 64 + (c ^ ((r / 2) % 4)) * 16 + b);
        }
        if (c < 2) {
          uint32_t a32 = r * 32 + c * 16 + b;
          assert_int_equal(wv_tmap_swizzle(1, a32), r * 32 + (c ^ ((r / 4) % 2)) * 16 + b);
        }
      }
}

static void test_tmap_roundtrip(void **state) {
  (void)state;
  wv_tmap t = {.kind = 0, .dtype = 7, .rank = 3, .addr = 0x700000001000ull, .dim = {100, 70, 1u << 20},
               .stride = {4, 400, 28000}, .box = {32, 16, 256}, .estr = {1, 2, 8}, .swizzle = 3, .oob = 1};
  t.esize = wv_tmap_esize(t.dtype);
  uint8_t raw[WV_TMAP_BYTES];
  wv_tmap_pack(&t, raw);
  wv_tmap u = {0};
  assert_int_equal(wv_tmap_unpack(raw, &u), 0);
  assert_int_equal(u.rank, 3);
  assert_int_equal(u.addr, t.addr);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(u.dim[i], t.dim[i]);
    assert_int_equal(u.box[i], t.box[i]);
    assert_int_equal(u.estr[i], t.estr[i]);
    assert_int_equal(u.stride[i], t.stride[i]);
  }
  assert_int_equal(u.swizzle, 3);
  assert_int_equal(u.oob, 1);
  /* box bytes: ceil(box / elementStride) elements per dimension */
  assert_int_equal(wv_tmap_box_bytes(&u), 4 * 32 * 8 * 32);
  raw[0] ^= 1;
  assert_int_equal(wv_tmap_unpack(raw, &u), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ring_every_schedule),
      cmocka_unit_test(test_threads_same_output),
      cmocka_unit_test_setup_teardown(test_launch_rules, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_bad_rank_fault, wvt_setup, wvt_teardown),
      cmocka_unit_test(test_swizzle_formula),
      cmocka_unit_test(test_tmap_roundtrip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
