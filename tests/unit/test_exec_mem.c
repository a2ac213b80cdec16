/*
 * test_exec_mem.c — memory instructions and device faults through the C API (PTX ISA §9.7.9
 * "Data Movement and Conversion Instructions", §9.7.13 atom/red, §5 state spaces):
 *   ld/st in global, shared (static and dynamic), local, const and param space, .v2/.v4 vectors,
 *   sign/zero extension of narrow loads; generic addressing through cvta/isspacep; module .global
 *   and .const variables with initializers (also read and written through wv_module_symbol);
 *   atomics (add/min/max/inc/dec/cas/exch/and/or/xor, 32/64-bit, f32/f64 add, red) on global,
 *   shared and generic addresses from many threads, checked with order-independent properties;
 *   faults: out-of-bounds store, misaligned load, trap, watchdog, barrier deadlock — status and
 *   the one-line report (kernel, block, thread, PTX line, address).
 */
#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* ---- ld/st, vectors, widths ------------------------------------------------------------------- */

static const char LDST_PTX[] = WVT_HDR
    ".visible .entry ldst(.param .u64 pin, .param .u64 pout, .param .u64 pext)\n"
    "{\n"
    ".reg .b32 %r<24>; .reg .b64 %rd<24>; .reg .f32 %f<4>; .reg .b16 %rs<4>;\n"
    "ld.param.u64 %rd1, [pin];\n"
    "ld.param.u64 %rd2, [pout];\n"
    "ld.param.u64 %rd3, [pext];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd4, %r1, 16;\n"
    "add.s64 %rd5, %rd1, %rd4;\n"
    "add.s64 %rd6, %rd2, %rd4;\n"
    /* a v4 of u32, stored reversed */
    "ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];\n"
    "st.global.v4.u32 [%rd6], {%r5, %r4, %r3, %r2};\n"
    /* a v2 of u64 at byte 16*64 of the buffers, swapped */
    "ld.global.v2.u64 {%rd7, %rd8}, [%rd5+1024];\n"
    "st.global.v2.u64 [%rd6+1024], {%rd8, %rd7};\n"
    /* a v2 of f32, added */
    "ld.global.v2.f32 {%f1, %f2}, [%rd5+2048];\n"
    "add.rn.f32 %f3, %f1, %f2;\n"
    "st.global.f32 [%rd6+2048], %f3;\n"
    /* narrow loads into 32-bit registers: s8/s16 sign-extend, u8/u16 zero-extend */
    "cvt.u64.u32 %rd9, %r1;\n"
    "add.s64 %rd10, %rd1, %rd9;\n"
    "ld.global.s8 %r6, [%rd10+3072];\n"
    "ld.global.u8 %r7, [%rd10+3072];\n"
    "mul.wide.u32 %rd11, %r1, 2;\n"
    "add.s64 %rd12, %rd1, %rd11;\n"
    "ld.global.s16 %r8, [%rd12+3200];\n"
    "ld.global.u16 %r9, [%rd12+3200];\n"
    "mul.wide.u32 %rd13, %r1, 16;\n"
    "add.s64 %rd14, %rd3, %rd13;\n"
    "st.global.v4.u32 [%rd14], {%r6, %r7, %r8, %r9};\n"
    "ret;\n"
    "}\n";

static void test_ld_st_global(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, LDST_PTX, "ldst");
  enum { T = 64 };
  static uint8_t in[4096], out[4096], ext[4096];
  uint64_t seed = 42;
  for (size_t i = 0; i < sizeof in; i++) in[i] = (uint8_t)wvt_rand(&seed);
  float fl[2 * T]; /* pairs at a 16-byte stride from byte 2048 */
  for (int t = 0; t < T; t++) {
    fl[2 * t] = (float)t * 0.5f;
    fl[2 * t + 1] = 1000.0f + (float)t;
    memcpy(in + 2048 + 16 * t, fl + 2 * t, 8);
  }
  memset(out, 0, sizeof out);
  memset(ext, 0, sizeof ext);
  wvt_buf b[3] = {{in, sizeof in}, {out, sizeof out}, {ext, sizeof ext}};
  wvt_run_ok(vm, k, 1, T, 3, b);
  for (int t = 0; t < T; t++) {
    uint32_t v[4], o[4];
    memcpy(v, in + 16 * t, 16);
    memcpy(o, out + 16 * t, 16);
    for (int i = 0; i < 4; i++) assert_int_equal(o[i], v[3 - i]);
    uint64_t w[2], q[2];
    memcpy(w, in + 1024 + 16 * t, 16);
    memcpy(q, out + 1024 + 16 * t, 16);
    assert_int_equal(q[0], w[1]);
    assert_int_equal(q[1], w[0]);
    float s;
    memcpy(&s, out + 2048 + 16 * t, 4);
    assert_true(s == fl[2 * t] + fl[2 * t + 1]);
    uint32_t e[4];
    memcpy(e, ext + 16 * t, 16);
    uint8_t byte = in[3072 + t];
    uint16_t half;
    memcpy(&half, in + 3200 + 2 * t, 2);
    assert_int_equal(e[0], (byte & 0x80) ? (0xffffff00u | byte) : byte);
    assert_int_equal(e[1], byte);
    assert_int_equal(e[2], (half & 0x8000) ? (0xffff0000u | half) : half);
    assert_int_equal(e[3], half);
  }
}

/* Narrow stores truncate; a .b16 register goes through ld/st.b16 unchanged. */
static const char NARROW_PTX[] = WVT_HDR
    ".visible .entry narrow(.param .u64 pbuf)\n"
    "{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .b16 %rs<4>;\n"
    "ld.param.u64 %rd1, [pbuf];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd2, %r1, 2;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "mad.lo.u32 %r2, %r1, 16843009, 128;\n" /* tid * 0x01010101 + 0x80 */
    "st.global.u16 [%rd3], %r2;\n"          /* low 16 bits */
    "cvt.u64.u32 %rd4, %r1;\n"
    "add.s64 %rd5, %rd1, %rd4;\n"
    "st.global.u8 [%rd5+256], %r2;\n"       /* low 8 bits */
    "ld.global.b16 %rs1, [%rd3];\n"
    "st.global.b16 [%rd3+512], %rs1;\n"
    "ret;\n"
    "}\n";

static void test_narrow_stores(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, NARROW_PTX, "narrow");
  static uint8_t buf[1024];
  memset(buf, 0xee, sizeof buf);
  wvt_buf b[1] = {{buf, sizeof buf}};
  wvt_run_ok(vm, k, 1, 100, 1, b);
  for (uint32_t t = 0; t < 100; t++) {
    uint32_t v = t * 0x01010101u + 0x80u;
    uint16_t h, h2;
    memcpy(&h, buf + 2 * t, 2);
    memcpy(&h2, buf + 512 + 2 * t, 2);
    assert_int_equal(h, (uint16_t)v);
    assert_int_equal(h2, (uint16_t)v);
    assert_int_equal(buf[256 + t], (uint8_t)v);
  }
  /* bytes no thread wrote are untouched */
  assert_int_equal(buf[200], 0xee);
  assert_int_equal(buf[256 + 100], 0xee);
  assert_int_equal(buf[1000], 0xee);
}

/* ---- shared (static + dynamic) and local ------------------------------------------------------ */

static const char SHARED_PTX[] = WVT_HDR
    ".extern .shared .align 16 .b8 dyn[];\n"
    ".visible .entry shm(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<24>; .reg .b64 %rd<12>;\n"
    ".shared .align 4 .b8 sbuf[512];\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, sbuf;\n"
    "shl.b32 %r3, %r1, 2;\n"
    "add.s32 %r4, %r2, %r3;\n"
    "mul.lo.u32 %r5, %r1, 3;\n"
    "st.shared.u32 [%r4], %r5;\n"           /* sbuf[t] = 3t */
    "mov.u64 %rd2, dyn;\n"
    "mul.wide.u32 %rd3, %r1, 8;\n"
    "add.s64 %rd4, %rd2, %rd3;\n"
    "not.b32 %r6, %r1;\n"
    "st.shared.v2.u32 [%rd4], {%r1, %r6};\n" /* dyn[t] = {t, ~t} */
    "bar.sync 0;\n"
    "add.s32 %r7, %r1, 1;\n"
    "and.b32 %r7, %r7, 127;\n"
    "shl.b32 %r8, %r7, 2;\n"
    "add.s32 %r9, %r2, %r8;\n"
    "ld.shared.u32 %r10, [%r9];\n"          /* sbuf[(t+1)%128] */
    "mov.u32 %r11, 127;\n"
    "sub.s32 %r12, %r11, %r1;\n"
    "mul.wide.u32 %rd5, %r12, 8;\n"
    "add.s64 %rd6, %rd2, %rd5;\n"
    "ld.shared.v2.u32 {%r13, %r14}, [%rd6];\n" /* dyn[127-t] */
    "ld.shared.u32 %r15, [sbuf+8];\n"         /* sbuf[2] by name */
    "mul.wide.u32 %rd7, %r1, 16;\n"
    "add.s64 %rd8, %rd1, %rd7;\n"
    "st.global.v4.u32 [%rd8], {%r10, %r13, %r14, %r15};\n"
    "ret;\n"
    "}\n";

static void test_shared(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load(vm, SHARED_PTX);
  const wv_kernel *k = wvt_get(m, vm, "shm");
  assert_int_equal(wv_kernel_static_shared(k), 512);
  static uint32_t out[128 * 4];
  memset(out, 0, sizeof out);
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_expect_ok(vm, wvt_launch_bufs(vm, k, wvt_dim(1, 1, 1), wvt_dim(128, 1, 1), 1024, 1, b));
  for (uint32_t t = 0; t < 128; t++) {
    assert_int_equal(out[4 * t], ((t + 1) % 128) * 3);
    assert_int_equal(out[4 * t + 1], 127 - t);
    assert_int_equal(out[4 * t + 2], ~(127 - t));
    assert_int_equal(out[4 * t + 3], 6);
  }
}

static const char LOCAL_PTX[] = WVT_HDR
    ".visible .entry loc(.param .u64 pout)\n"
    "{\n"
    ".local .align 8 .b8 arr[64];\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .pred %p<2>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u64 %rd2, arr;\n"
    "cvta.local.u64 %rd3, %rd2;\n"          /* generic address of arr */
    "mov.u32 %r2, 0;\n"
    "FILL:\n"
    "add.s32 %r3, %r1, %r2;\n"
    "mul.wide.u32 %rd4, %r2, 4;\n"
    "add.s64 %rd5, %rd2, %rd4;\n"
    "st.local.u32 [%rd5], %r3;\n"           /* arr[i] = t + i */
    "add.s32 %r2, %r2, 1;\n"
    "setp.lt.u32 %p1, %r2, 16;\n"
    "@%p1 bra FILL;\n"
    "mov.u32 %r4, 0;\n"
    "mov.u32 %r2, 16;\n"
    "SUM:\n"
    "sub.s32 %r2, %r2, 1;\n"
    "mul.wide.u32 %rd6, %r2, 4;\n"
    "add.s64 %rd7, %rd3, %rd6;\n"
    "ld.u32 %r5, [%rd7];\n"                 /* generic load of arr[i] */
    "add.s32 %r6, %r2, 1;\n"
    "mad.lo.u32 %r4, %r5, %r6, %r4;\n"      /* sum += arr[i] * (i+1) */
    "setp.ne.u32 %p1, %r2, 0;\n"
    "@%p1 bra SUM;\n"
    "ld.local.u32 %r7, [arr+60];\n"         /* arr[15] by name */
    "mov.u32 %r8, %ctaid.x;\n mov.u32 %r9, %ntid.x;\n mad.lo.u32 %r10, %r8, %r9, %r1;\n"
    "mul.wide.u32 %rd8, %r10, 8;\n"
    "add.s64 %rd9, %rd1, %rd8;\n"
    "st.global.v2.u32 [%rd9], {%r4, %r7};\n"
    "ret;\n"
    "}\n";

static void test_local(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, LOCAL_PTX, "loc");
  static uint32_t out[2 * 200];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 2, 100, 1, b); /* 2 blocks: local memory is per thread */
  for (uint32_t g = 0; g < 200; g++) {
    uint32_t t = g % 100, want = 0;
    for (uint32_t i = 0; i < 16; i++) want += (t + i) * (i + 1);
    assert_int_equal(out[2 * g], want);
    assert_int_equal(out[2 * g + 1], t + 15);
  }
}

/* ---- module variables: .global with initializers, .const table --------------------------------- */

static const char VARS_PTX[] = WVT_HDR
    ".global .align 4 .u32 gtab[4] = {10, 20, 30, 40};\n"
    ".const .align 4 .u32 ctab[5] = {1, 2, 3};\n"
    ".global .align 8 .u64 gaddr = gtab;\n"
    ".global .align 4 .f32 gf = 0f3FC00000;\n"
    ".global .align 1 .b8 gbytes[3] = {1, 2, 255};\n"
    ".visible .entry vars(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .f32 %f<2>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "and.b32 %r2, %r1, 3;\n"
    "mov.u64 %rd2, gtab;\n"
    "mul.wide.u32 %rd3, %r2, 4;\n"
    "add.s64 %rd4, %rd2, %rd3;\n"
    "ld.global.u32 %r3, [%rd4];\n"           /* gtab[t & 3] */
    "rem.u32 %r4, %r1, 5;\n"
    "mov.u64 %rd5, ctab;\n"
    "mul.wide.u32 %rd6, %r4, 4;\n"
    "add.s64 %rd7, %rd5, %rd6;\n"
    "ld.const.u32 %r5, [%rd7];\n"            /* ctab[t % 5] */
    "mad.lo.u32 %r6, %r5, 100, %r3;\n"
    "ld.const.u32 %r7, [ctab+8];\n"          /* ctab[2] by name */
    "ld.global.f32 %f1, [gf];\n"
    "cvt.rzi.u32.f32 %r8, %f1;\n"            /* 1 */
    "ld.global.u8 %r9, [gbytes+2];\n"         /* 255 */
    "ld.global.u64 %rd8, [gaddr];\n"
    "ld.global.u32 %r10, [%rd8+12];\n"       /* through the stored address: gtab[3] */
    "mul.wide.u32 %rd9, %r1, 32;\n"
    "add.s64 %rd10, %rd1, %rd9;\n"
    "st.global.v4.u32 [%rd10], {%r6, %r7, %r8, %r9};\n"
    "st.global.u32 [%rd10+16], %r10;\n"
    "st.global.u64 [%rd10+24], %rd8;\n"
    "ret;\n"
    "}\n";

static void test_module_variables(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load(vm, VARS_PTX);
  const wv_kernel *k = wvt_get(m, vm, "vars");
  wv_devptr gtab = 0, ctab = 0, gaddr = 0;
  size_t sz = 0;
  assert_int_equal(wv_module_symbol(m, "gtab", &gtab, &sz), WV_OK);
  assert_int_equal(sz, 16);
  assert_int_equal(wv_module_symbol(m, "ctab", &ctab, &sz), WV_OK);
  assert_int_equal(sz, 20);
  assert_int_equal(wv_module_symbol(m, "gaddr", &gaddr, &sz), WV_OK);
  assert_int_equal(sz, 8);
  assert_int_equal(wv_module_symbol(m, "nosuch", &gaddr, &sz), WV_ERR_NOT_FOUND);
  assert_int_equal(wv_module_symbol(m, "gaddr", &gaddr, &sz), WV_OK);
  uint32_t g[4], c[5];
  uint64_t ga;
  assert_int_equal(wv_memcpy_dtoh(vm, g, gtab, 16), WV_OK);
  assert_int_equal(wv_memcpy_dtoh(vm, c, ctab, 20), WV_OK);
  assert_int_equal(wv_memcpy_dtoh(vm, &ga, gaddr, 8), WV_OK);
  assert_int_equal(g[0], 10);
  assert_int_equal(g[3], 40);
  assert_int_equal(c[0], 1);
  assert_int_equal(c[2], 3);
  assert_int_equal(c[3], 0); /* the rest of a partly initialised array is zero */
  assert_int_equal(c[4], 0);
  assert_int_equal(ga, gtab); /* a variable name in an initializer is its address */

  enum { T = 40 };
  static uint32_t out[T * 8];
  wvt_buf b[1] = {{out, sizeof out}};
  for (int pass = 0; pass < 2; pass++) {
    memset(out, 0, sizeof out);
    wvt_run_ok(vm, k, 1, T, 1, b);
    for (uint32_t t = 0; t < T; t++) {
      uint32_t *o = out + 8 * t;
      uint32_t gt = pass ? 1000 + (t & 3) : 10 * ((t & 3) + 1);
      uint32_t ct = (t % 5) < 3 ? (t % 5) + 1 : 0;
      assert_int_equal(o[0], gt + 100 * ct);
      assert_int_equal(o[1], 3);
      assert_int_equal(o[2], 1);
      assert_int_equal(o[3], 255);
      assert_int_equal(o[4], pass ? 1003 : 40);
      uint64_t a;
      memcpy(&a, o + 6, 8);
      assert_int_equal(a, gtab);
    }
    /* the host writes the .global table; the next launch sees the new values */
    uint32_t nv[4] = {1000, 1001, 1002, 1003};
    assert_int_equal(wv_memcpy_htod(vm, gtab, nv, 16), WV_OK);
  }
}

/* A kernel's store into a .const variable through its generic address, as a .global address, or an atomic
 * on it, goes through as on an H100 (driver 580.159.04, recorded by hand with ptxrun and a driver-API
 * program): no fault, also under compute-sanitizer's memcheck, and the constant changes — the host,
 * generic loads and, in a later launch, ld.const all see the new value. */
static const char CSTORE_PTX[] = WVT_HDR
    ".const .align 4 .u32 cv[4] = {7, 8, 9, 10};\n"
    ".visible .entry cst(.param .u32 how, .param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u32 %r1, [how];\n"
    "ld.param.u64 %rd5, [pout];\n"
    "mov.u64 %rd1, cv;\n"
    "cvta.const.u64 %rd2, %rd1;\n"
    "setp.eq.u32 %p1, %r1, 1;\n"
    "@%p1 st.u32 [%rd2+4], 99;\n"
    "setp.eq.u32 %p2, %r1, 2;\n"
    "@%p2 st.global.u32 [%rd2+8], 98;\n"
    "setp.eq.u32 %p3, %r1, 3;\n"
    "@%p3 atom.global.add.u32 %r2, [%rd2], 1;\n"
    "ld.const.u32 %r3, [cv+4];\n"
    "ld.u32 %r4, [%rd2+8];\n"
    "st.global.v2.u32 [%rd5], {%r3, %r4};\n"
    "ret;\n"
    "}\n";

static void test_const_store_goes_through(void **state) {
  (void)state;
  for (int memcheck = 0; memcheck < 2; memcheck++) {
    wv_config cfg = {.checks = memcheck ? WV_CHECK_MEMCHECK : 0};
    wv_vm *vm = wv_create(&cfg);
    assert_non_null(vm);
    wv_module *m = wvt_load(vm, CSTORE_PTX);
    const wv_kernel *k = wvt_get(m, vm, "cst");
    wv_devptr out, cv;
    size_t sz;
    assert_int_equal(wv_malloc(vm, 8, &out), WV_OK);
    assert_int_equal(wv_module_symbol(m, "cv", &cv, &sz), WV_OK);
    static const uint32_t after[4][4] = {{7, 8, 9, 10}, {7, 99, 9, 10}, {7, 99, 98, 10}, {8, 99, 98, 10}};
    for (uint32_t how = 1; how <= 3; how++) {
      void *args[2] = {&how, &out};
      wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args));
      uint32_t c[4], o[2];
      assert_int_equal(wv_memcpy_dtoh(vm, c, cv, 16), WV_OK);
      assert_memory_equal(c, after[how], sizeof c);
      assert_int_equal(wv_memcpy_dtoh(vm, o, out, 8), WV_OK);
      assert_int_equal(o[0], 99);             /* ld.const after the generic store */
      assert_int_equal(o[1], after[how][2]);  /* a generic load */
    }
    wv_destroy(vm);
  }
}

/* ---- kernel parameters ------------------------------------------------------------------------ */

static const char PARAM_PTX[] = WVT_HDR
    ".visible .entry params(.param .u64 pout, .param .u8 pb, .param .u16 ph, .param .f32 pf, .param .f64 pd,\n"
    "    .param .align 8 .b8 ps[24], .param .s32 pi)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .b16 %rs<4>; .reg .f32 %f<4>; .reg .f64 %fd<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "ld.param.u8 %r1, [pb];\n"
    "ld.param.u16 %rs1, [ph];\n"
    "cvt.u32.u16 %r2, %rs1;\n"
    "ld.param.f32 %f1, [pf];\n"
    "mov.b32 %r3, %f1;\n"
    "ld.param.f64 %fd1, [pd];\n"
    "mov.b64 %rd2, %fd1;\n"
    "ld.param.v2.u32 {%r4, %r5}, [ps];\n"
    "ld.param.u64 %rd3, [ps+8];\n"
    "ld.param.s8 %r6, [ps+16];\n"
    "ld.param.s32 %r7, [pi];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n"
    "st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r7};\n"
    "st.global.v2.u64 [%rd1+32], {%rd2, %rd3};\n"
    "ret;\n"
    "}\n";

static void test_params(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, PARAM_PTX, "params");
  assert_int_equal(wv_kernel_param_count(k), 7);
  /* layout: each parameter at the next multiple of its alignment */
  static const uint32_t off[7] = {0, 8, 10, 12, 16, 24, 48}, size[7] = {8, 1, 2, 4, 8, 24, 4};
  for (uint32_t i = 0; i < 7; i++) {
    wv_param_info pi = wv_kernel_param(k, i);
    assert_int_equal(pi.offset, off[i]);
    assert_int_equal(pi.size, size[i]);
  }
  assert_int_equal(wv_kernel_param(k, 5).align, 8);
  assert_string_equal(wv_kernel_param(k, 1).name, "pb");

  wv_devptr out;
  assert_int_equal(wv_malloc(vm, 48, &out), WV_OK);
  uint8_t pb = 0xc8;
  uint16_t ph = 0xbeef;
  float pf = -2.5f;
  double pd = 1e300;
  uint8_t ps[24];
  for (int i = 0; i < 24; i++) ps[i] = (uint8_t)(0x11 * (i + 1));
  ps[16] = 0x90; /* negative as .s8 */
  int32_t piv = -123456;
  void *args[7] = {&out, &pb, &ph, &pf, &pd, ps, &piv};
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(3, 1, 1), 0, args));
  uint32_t o[12];
  assert_int_equal(wv_memcpy_dtoh(vm, o, out, 48), WV_OK);
  assert_int_equal(o[0], 0xc8);
  assert_int_equal(o[1], 0xbeef);
  assert_int_equal(o[2], wvt_f2u(-2.5f));
  uint32_t s0, s1;
  memcpy(&s0, ps, 4);
  memcpy(&s1, ps + 4, 4);
  assert_int_equal(o[3], s0);
  assert_int_equal(o[4], s1);
  assert_int_equal(o[5], 0xffffff90u); /* ld.param.s8 sign-extends */
  assert_int_equal(o[6], (uint32_t)piv);
  uint64_t d, q;
  memcpy(&d, o + 8, 8);
  memcpy(&q, o + 10, 8);
  assert_int_equal(d, wvt_d2u(1e300));
  uint64_t want_q;
  memcpy(&want_q, ps + 8, 8);
  assert_int_equal(q, want_q);
  /* a missing argument is refused */
  void *missing[7] = {&out, &pb, &ph, &pf, &pd, NULL, &piv};
  assert_int_equal(wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, missing), WV_ERR_INVALID);
  assert_int_equal(wv_free(vm, out), WV_OK);
}

/* The generic address of a kernel parameter (cvta.param: nvcc's code for a __grid_constant__ parameter
 * whose address is taken, passed to a function that reads it through a generic pointer). The read gives
 * the parameter; isspacep.param says so, and .global too, as on an H100 (tests/kernels isa10.gridconst);
 * cvta.to.param gives the param-space address back. A generic store into a parameter goes through, as on an
 * H100: generic loads see it, ld.param does not (it reads the parameter bank). */
static const char GRIDCONST_PTX[] = WVT_HDR
    ".func (.param .b32 r) get(.param .b64 p, .param .b32 i)\n"
    "{ .reg .b32 %r<3>; .reg .b64 %rd<4>; ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [i];\n"
    "  mul.wide.s32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; ld.u32 %r2, [%rd3]; st.param.b32 [r], %r2; ret; }\n"
    ".visible .entry gc(.param .align 4 .b8 gp[12], .param .u64 pout, .param .u32 bad)\n"
    "{\n"
    ".reg .b32 %r<12>; .reg .b64 %rd<12>; .reg .pred %p<4>;\n"
    "mov.b64 %rd1, gp;\n"
    "ld.param.u64 %rd2, [pout];\n"
    "cvta.to.global.u64 %rd2, %rd2;\n"
    "mov.u32 %r1, %tid.x;\n"
    "rem.u32 %r2, %r1, 3;\n"
    "cvta.param.u64 %rd3, %rd1;\n"
    "{ .param .b64 a0; st.param.b64 [a0], %rd3; .param .b32 a1; st.param.b32 [a1], %r2; .param .b32 rv;\n"
    "  call.uni (rv), get, (a0, a1); ld.param.b32 %r3, [rv]; }\n"
    "isspacep.param %p1, %rd3;\n"
    "isspacep.global %p2, %rd3;\n"
    "selp.u32 %r4, 1, 0, %p1;\n"
    "selp.u32 %r5, 1, 0, %p2;\n"
    "cvta.to.param.u64 %rd4, %rd3;\n"
    "sub.s64 %rd5, %rd4, %rd1;\n"
    "cvt.u32.u64 %r6, %rd5;\n"
    "ld.u32 %r7, [%rd3+4];\n"
    "mul.wide.u32 %rd6, %r1, 20;\n"
    "add.s64 %rd7, %rd2, %rd6;\n"
    "st.global.u32 [%rd7], %r3;\n"
    "st.global.u32 [%rd7+4], %r4;\n"
    "st.global.u32 [%rd7+8], %r5;\n"
    "st.global.u32 [%rd7+12], %r6;\n"
    "st.global.u32 [%rd7+16], %r7;\n"
    "ld.param.u32 %r8, [bad];\n"
    "setp.eq.u32 %p3, %r8, 0;\n"
    "@%p3 ret;\n"
    "bar.sync 0;\n"
    "st.u32 [%rd3+8], %r1;\n"                 /* a generic store into gp[2] */
    "bar.sync 0;\n"
    "ld.u32 %r9, [%rd3+8];\n"
    "ld.param.u32 %r10, [gp+8];\n"
    "st.global.u32 [%rd7], %r9;\n"
    "st.global.u32 [%rd7+4], %r10;\n"
    "ret;\n"
    "}\n";

static void test_param_generic_address(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, GRIDCONST_PTX, "gc");
  wv_devptr out;
  assert_int_equal(wv_malloc(vm, 32 * 20, &out), WV_OK);
  uint32_t gp[3] = {0x11111111u, 0x22222222u, 0x33333333u}, bad = 0;
  void *args[3] = {gp, &out, &bad};
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args));
  uint32_t o[32 * 5];
  assert_int_equal(wv_memcpy_dtoh(vm, o, out, sizeof o), WV_OK);
  for (uint32_t t = 0; t < 32; t++) {
    assert_int_equal(o[5 * t], gp[t % 3]);   /* read through the generic pointer in a callee */
    assert_int_equal(o[5 * t + 1], 1);       /* isspacep.param */
    assert_int_equal(o[5 * t + 2], 1);       /* isspacep.global too: parameters lie in global memory (an H100) */
    assert_int_equal(o[5 * t + 3], 0);       /* cvta.to.param undoes cvta.param */
    assert_int_equal(o[5 * t + 4], gp[1]);   /* ld [generic+4] */
  }
  bad = 1; /* a generic store into a parameter (an H100 lets it pass: ld.param keeps the value passed) */
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args));
  assert_int_equal(wv_memcpy_dtoh(vm, o, out, sizeof o), WV_OK);
  for (uint32_t t = 0; t < 32; t++) {
    assert_true(o[5 * t] < 32);             /* a generic load: some thread's store */
    assert_int_equal(o[5 * t + 1], gp[2]);  /* ld.param: the parameter bank, unchanged */
  }
  assert_int_equal(wv_free(vm, out), WV_OK);
}

/* ---- generic addressing ----------------------------------------------------------------------- */

static const char GENERIC_PTX[] = WVT_HDR
    ".visible .entry gen(.param .u64 pout)\n"
    "{\n"
    ".shared .align 8 .b8 sm[256];\n"
    ".local .align 8 .b8 lm[16];\n"
    ".reg .b32 %r<24>; .reg .b64 %rd<24>; .reg .pred %p<12>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "cvta.to.global.u64 %rd2, %rd1;\n"
    "cvta.global.u64 %rd3, %rd2;\n"           /* generic again */
    "mov.u32 %r1, %tid.x;\n"
    "mov.u64 %rd4, sm;\n"
    "cvta.shared.u64 %rd5, %rd4;\n"
    "mul.wide.u32 %rd6, %r1, 4;\n"
    "add.s64 %rd7, %rd5, %rd6;\n"
    "add.s32 %r2, %r1, 500;\n"
    "st.u32 [%rd7], %r2;\n"                   /* generic store into shared */
    "bar.sync 0;\n"
    "add.s64 %rd8, %rd4, %rd6;\n"
    "ld.shared.u32 %r3, [%rd8];\n"            /* read back through .shared */
    "cvta.to.shared.u64 %rd9, %rd7;\n"        /* generic -> shared offset */
    "sub.s64 %rd10, %rd9, %rd8;\n"            /* must be 0 */
    "cvt.u32.u64 %r4, %rd10;\n"
    "mov.u64 %rd11, lm;\n"
    "cvta.local.u64 %rd12, %rd11;\n"
    "st.u32 [%rd12+4], %r1;\n"                /* generic store into local */
    "ld.local.u32 %r5, [lm+4];\n"
    "ld.u32 %r6, [%rd7];\n"                   /* generic load from shared */
    "mul.wide.u32 %rd13, %r1, 16;\n"
    "add.s64 %rd14, %rd3, %rd13;\n"
    "st.v4.u32 [%rd14], {%r3, %r4, %r5, %r6};\n" /* generic store into global */
    "ret;\n"
    "}\n";

static void test_generic_addressing(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, GENERIC_PTX, "gen");
  static uint32_t out[64 * 4];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 64, 1, b);
  for (uint32_t t = 0; t < 64; t++) {
    assert_int_equal(out[4 * t], t + 500);
    assert_int_equal(out[4 * t + 1], 0);
    assert_int_equal(out[4 * t + 2], t);
    assert_int_equal(out[4 * t + 3], t + 500);
  }
}

/* isspacep.space p, a (PTX ISA "isspacep": no type modifier; a is a generic address). */
static const char ISSPACEP_PTX[] = WVT_HDR
    ".visible .entry isp(.param .u64 pout)\n"
    "{\n"
    ".shared .align 8 .b8 sm[256];\n"
    ".local .align 8 .b8 lm[16];\n"
    ".reg .b32 %r<24>; .reg .b64 %rd<24>; .reg .pred %p<12>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "cvta.to.global.u64 %rd2, %rd1;\n"
    "cvta.global.u64 %rd3, %rd2;\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u64 %rd4, sm;\n"
    "cvta.shared.u64 %rd7, %rd4;\n"
    "mov.u64 %rd11, lm;\n"
    "cvta.local.u64 %rd12, %rd11;\n"
    "isspacep.shared %p1, %rd7;\n"
    "isspacep.global %p2, %rd7;\n"
    "isspacep.local %p3, %rd7;\n"
    "isspacep.global %p4, %rd3;\n"
    "isspacep.shared %p5, %rd3;\n"
    "isspacep.local %p6, %rd12;\n"
    "isspacep.shared %p7, %rd12;\n"
    "selp.u32 %r6, 1, 0, %p1;\n"
    "selp.u32 %r7, 2, 0, %p2;\n"
    "selp.u32 %r8, 4, 0, %p3;\n"
    "selp.u32 %r9, 8, 0, %p4;\n"
    "selp.u32 %r10, 16, 0, %p5;\n"
    "selp.u32 %r11, 32, 0, %p6;\n"
    "selp.u32 %r12, 64, 0, %p7;\n"
    "or.b32 %r13, %r6, %r7;\n or.b32 %r13, %r13, %r8;\n or.b32 %r13, %r13, %r9;\n"
    "or.b32 %r13, %r13, %r10;\n or.b32 %r13, %r13, %r11;\n or.b32 %r13, %r13, %r12;\n"
    "mul.wide.u32 %rd13, %r1, 4;\n"
    "add.s64 %rd14, %rd2, %rd13;\n"
    "st.global.u32 [%rd14], %r13;\n"
    "ret;\n"
    "}\n";

static void test_isspacep(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, ISSPACEP_PTX, "isp");
  static uint32_t out[32];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 32, 1, b);
  for (uint32_t t = 0; t < 32; t++) assert_int_equal(out[t], 1 | 8 | 32); /* shared; global; local */
}

/* ---- atomics ---------------------------------------------------------------------------------- */

/* One text for global and shared memory: @SP@ is the state space. Slots of the 128-byte area:
 *   0 add.u32 1 (olds kept)   4 add.u32 gtid        8 min.s32 gtid-100   12 max.s32 gtid-100
 *  16 min.u32 gtid+5         20 max.u32 gtid       24 inc.u32 9 (olds)  28 dec.u32 9 (olds)
 *  32 cas.b32 0->gtid+1 (olds) 36 exch.b32 gtid+1 (olds) 40 and ~(1<<gtid%32) 44 or 1<<(gtid%29)
 *  48 xor gtid*0x9e3779b1    52 add.f32 0.5       64 add.u64 (gtid<<33)+1  72 min.s64 (gtid-100)<<40
 *  80 max.u64 gtid*0x100000001  88 cas.b64 (olds)  96 exch.b64 (olds)  104 add.f64 0.25
 * 112 red.add.u32 3           116 red.max.s32 gtid-100
 * Each thread keeps its olds in 8 u64 slots of its row. */
static const char ATOM_BODY[] =
    "atom.@SP@.add.u32 %r5, [%rd1], 1;\n st.global.u32 [%rd2], %r5;\n"
    "atom.@SP@.add.u32 %r5, [%rd1+4], %r4;\n"
    "sub.s32 %r6, %r4, 100;\n"
    "atom.@SP@.min.s32 %r5, [%rd1+8], %r6;\n"
    "atom.@SP@.max.s32 %r5, [%rd1+12], %r6;\n"
    "add.u32 %r7, %r4, 5;\n"
    "atom.@SP@.min.u32 %r5, [%rd1+16], %r7;\n"
    "atom.@SP@.max.u32 %r5, [%rd1+20], %r4;\n"
    "atom.@SP@.inc.u32 %r5, [%rd1+24], 9;\n st.global.u32 [%rd2+8], %r5;\n"
    "atom.@SP@.dec.u32 %r5, [%rd1+28], 9;\n st.global.u32 [%rd2+16], %r5;\n"
    "add.u32 %r8, %r4, 1;\n"
    "atom.@SP@.cas.b32 %r5, [%rd1+32], 0, %r8;\n st.global.u32 [%rd2+24], %r5;\n"
    "atom.@SP@.exch.b32 %r5, [%rd1+36], %r8;\n st.global.u32 [%rd2+32], %r5;\n"
    "and.b32 %r9, %r4, 31;\n shl.b32 %r10, 1, %r9;\n not.b32 %r11, %r10;\n"
    "atom.@SP@.and.b32 %r5, [%rd1+40], %r11;\n"
    "rem.u32 %r12, %r4, 29;\n shl.b32 %r13, 1, %r12;\n"
    "atom.@SP@.or.b32 %r5, [%rd1+44], %r13;\n"
    "mul.lo.u32 %r14, %r4, 0x9e3779b1;\n"
    "atom.@SP@.xor.b32 %r5, [%rd1+48], %r14;\n"
    "atom.@SP@.add.f32 %f1, [%rd1+52], 0f3F000000;\n"
    "cvt.u64.u32 %rd4, %r4;\n"
    "shl.b64 %rd5, %rd4, 33;\n add.s64 %rd5, %rd5, 1;\n"
    "atom.@SP@.add.u64 %rd6, [%rd1+64], %rd5;\n"
    "cvt.s64.s32 %rd7, %r6;\n shl.b64 %rd7, %rd7, 40;\n"
    "atom.@SP@.min.s64 %rd6, [%rd1+72], %rd7;\n"
    "mul.lo.u64 %rd8, %rd4, 4294967297;\n"
    "atom.@SP@.max.u64 %rd6, [%rd1+80], %rd8;\n"
    "add.s64 %rd9, %rd4, 1;\n or.b64 %rd9, %rd9, 1099511627776;\n"
    "atom.@SP@.cas.b64 %rd6, [%rd1+88], 0, %rd9;\n st.global.u64 [%rd2+40], %rd6;\n"
    "atom.@SP@.exch.b64 %rd6, [%rd1+96], %rd9;\n st.global.u64 [%rd2+48], %rd6;\n"
    "atom.@SP@.add.f64 %fd1, [%rd1+104], 0d3FD0000000000000;\n"
    "red.@SP@.add.u32 [%rd1+112], 3;\n"
    "red.@SP@.max.s32 [%rd1+116], %r6;\n";

static const char ATOM_HEAD[] = WVT_HDR
    ".visible .entry atoms(.param .u64 pg, .param .u64 po)\n"
    "{\n"
    ".reg .b32 %r<40>; .reg .b64 %rd<40>; .reg .f32 %f<4>; .reg .f64 %fd<4>; .reg .pred %p<4>;\n"
    ".shared .align 8 .b8 sm[128];\n"
    "ld.param.u64 %rd30, [pg];\n"
    "ld.param.u64 %rd2, [po];\n"
    "mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n mov.u32 %r3, %tid.x;\n"
    "mad.lo.u32 %r4, %r1, %r2, %r3;\n"
    "mul.wide.u32 %rd3, %r4, 64;\n add.s64 %rd2, %rd2, %rd3;\n";

/* global: %rd1 = the buffer */
static const char ATOM_GLOBAL_PRE[] = "mov.u64 %rd1, %rd30;\n";
/* shared: thread 0 copies the initial values in; everybody works on sm; thread 0 copies back */
static const char ATOM_SHARED_PRE[] =
    "mov.u64 %rd1, sm;\n"
    "setp.ne.u32 %p1, %r3, 0;\n"
    "@%p1 bra SKIPIN;\n"
    "mov.u32 %r20, 0;\n"
    "CPIN:\n"
    "mul.wide.u32 %rd31, %r20, 8;\n add.s64 %rd32, %rd30, %rd31;\n add.s64 %rd33, %rd1, %rd31;\n"
    "ld.global.u64 %rd34, [%rd32];\n st.shared.u64 [%rd33], %rd34;\n"
    "add.u32 %r20, %r20, 1;\n setp.lt.u32 %p2, %r20, 16;\n @%p2 bra CPIN;\n"
    "SKIPIN:\n"
    "bar.sync 0;\n";
static const char ATOM_SHARED_POST[] =
    "bar.sync 0;\n"
    "@%p1 bra DONE;\n"
    "mov.u32 %r20, 0;\n"
    "CPOUT:\n"
    "mul.wide.u32 %rd31, %r20, 8;\n add.s64 %rd32, %rd30, %rd31;\n add.s64 %rd33, %rd1, %rd31;\n"
    "ld.shared.u64 %rd34, [%rd33];\n st.global.u64 [%rd32], %rd34;\n"
    "add.u32 %r20, %r20, 1;\n setp.lt.u32 %p2, %r20, 16;\n @%p2 bra CPOUT;\n"
    "DONE:\n";

static char *atom_ptx(const char *space) {
  static char buf[16384];
  size_t n = 0;
  n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", ATOM_HEAD, strcmp(space, "global") ? ATOM_SHARED_PRE : ATOM_GLOBAL_PRE);
  for (const char *p = ATOM_BODY; *p;) {
    if (!strncmp(p, "@SP@", 4)) {
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", space);
      p += 4;
    } else {
      buf[n++] = *p++;
    }
  }
  buf[n] = 0;
  n += (size_t)snprintf(buf + n, sizeof buf - n, "%sret;\n}\n", strcmp(space, "global") ? ATOM_SHARED_POST : "");
  assert_true(n < sizeof buf - 1);
  return buf;
}

static void init_atom_area(uint8_t *g) {
  memset(g, 0, 128);
  uint32_t v;
  v = 0x7fffffffu; memcpy(g + 8, &v, 4);
  v = 0x80000000u; memcpy(g + 12, &v, 4);
  v = 0xffffffffu; memcpy(g + 16, &v, 4);
  v = 0xffffffffu; memcpy(g + 40, &v, 4);
  v = 0x80000000u; memcpy(g + 116, &v, 4);
  uint64_t w = 0x7fffffffffffffffull;
  memcpy(g + 72, &w, 8);
}

static void check_atom_results(const uint8_t *g, const uint64_t *olds, uint32_t n) {
  uint32_t u[30];
  memcpy(u, g, 120);
#define U(off) u[(off) / 4]
  assert_int_equal(U(0), n);
  assert_int_equal(U(4), (uint32_t)((uint64_t)n * (n - 1) / 2));
  assert_int_equal(U(8), (uint32_t)-100);
  assert_int_equal(U(12), (uint32_t)(n - 1 - 100));
  assert_int_equal(U(16), 5);
  assert_int_equal(U(20), n - 1);
  assert_int_equal(U(24), n % 10);
  assert_int_equal(U(28), (10 - n % 10) % 10);
  assert_int_equal(U(40), 0);
  assert_int_equal(U(44), (1u << 29) - 1);
  uint32_t x = 0;
  for (uint32_t i = 0; i < n; i++) x ^= i * 0x9e3779b1u;
  assert_int_equal(U(48), x);
  float f;
  memcpy(&f, g + 52, 4);
  assert_true(f == (float)n * 0.5f);
  assert_int_equal(U(112), 3 * n);
  assert_int_equal(U(116), (uint32_t)(n - 1 - 100));
  uint64_t w[16];
  memcpy(w, g, 128);
  uint64_t sum = 0;
  for (uint64_t i = 0; i < n; i++) sum += (i << 33) + 1;
  assert_int_equal(w[8], sum);
  assert_int_equal(w[9], (uint64_t)((int64_t)-100 * ((int64_t)1 << 40)));
  assert_int_equal(w[10], (uint64_t)(n - 1) * 0x100000001ull);
  double d;
  memcpy(&d, g + 104, 8);
  assert_true(d == (double)n * 0.25);

  /* order-independent checks of the values the atomics returned */
  uint64_t *col = calloc(n + 1, sizeof *col);
  assert_non_null(col);
  /* add 1: a permutation of 0..n-1 */
  for (uint32_t t = 0; t < n; t++) col[t] = olds[8 * t] & 0xffffffffu;
  qsort(col, n, sizeof *col, cmp_u64);
  for (uint32_t t = 0; t < n; t++)
    if (col[t] != t) { free(col); fail_msg("atom.add olds are not a permutation of 0..%u", n - 1); }
  /* inc with bound 9: the olds are the sequence i mod 10 in some order */
  for (uint32_t t = 0; t < n; t++) col[t] = olds[8 * t + 1] & 0xffffffffu;
  qsort(col, n, sizeof *col, cmp_u64);
  uint64_t want[1024];
  for (uint32_t i = 0; i < n; i++) want[i] = i % 10;
  qsort(want, n, sizeof *want, cmp_u64);
  for (uint32_t t = 0; t < n; t++)
    if (col[t] != want[t]) { free(col); fail_msg("atom.inc olds are wrong"); }
  /* dec from 0 with bound 9: 0, 9, 8, ..., 1, 0, 9, ... */
  for (uint32_t t = 0; t < n; t++) col[t] = olds[8 * t + 2] & 0xffffffffu;
  qsort(col, n, sizeof *col, cmp_u64);
  for (uint32_t i = 0; i < n; i++) want[i] = (10 - i % 10) % 10;
  qsort(want, n, sizeof *want, cmp_u64);
  for (uint32_t t = 0; t < n; t++)
    if (col[t] != want[t]) { free(col); fail_msg("atom.dec olds are wrong"); }
  /* cas 0 -> t+1: exactly one winner; everybody else saw the winner's value */
  for (int wide = 0; wide < 2; wide++) {
    uint64_t fin = wide ? w[11] : U(32), tag = wide ? 1ull << 40 : 0;
    uint32_t winners = 0;
    for (uint32_t t = 0; t < n; t++) {
      uint64_t o = wide ? olds[8 * t + 5] : (olds[8 * t + 3] & 0xffffffffu);
      if (o == 0) {
        winners++;
        if (fin != ((t + 1) | tag)) { free(col); fail_msg("cas winner %u did not store its value", t); }
      } else if (o != fin) {
        free(col);
        fail_msg("cas loser %u saw 0x%llx, not the final 0x%llx", t, (unsigned long long)o, (unsigned long long)fin);
      }
    }
    if (winners != 1) { free(col); fail_msg("%u cas winners", winners); }
  }
  /* exch: the olds and the final value are {0} and every thread's value */
  for (int wide = 0; wide < 2; wide++) {
    uint64_t tag = wide ? 1ull << 40 : 0;
    for (uint32_t t = 0; t < n; t++) col[t] = wide ? olds[8 * t + 6] : (olds[8 * t + 4] & 0xffffffffu);
    col[n] = wide ? w[12] : U(36);
    qsort(col, n + 1, sizeof *col, cmp_u64);
    if (col[0] != 0) { free(col); fail_msg("exch lost the initial 0"); }
    for (uint32_t t = 0; t < n; t++)
      if (col[t + 1] != ((t + 1) | tag)) { free(col); fail_msg("exch lost value %u", t + 1); }
  }
  free(col);
#undef U
}

static void test_atomics_global(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, atom_ptx("global"), "atoms");
  enum { BLK = 96, GRID = 3, NT = BLK * GRID };
  static uint8_t g[128];
  static uint64_t olds[NT * 8];
  init_atom_area(g);
  memset(olds, 0xff, sizeof olds);
  wvt_buf b[2] = {{g, 128}, {olds, sizeof olds}};
  wvt_run_ok(vm, k, GRID, BLK, 2, b);
  /* stored as u32 into u64 slots: clear the untouched upper halves of the 32-bit olds */
  for (uint32_t t = 0; t < NT; t++)
    for (int s = 0; s < 5; s++) olds[8 * t + s] &= 0xffffffffu;
  check_atom_results(g, olds, NT);
}

static void test_atomics_shared(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, atom_ptx("shared"), "atoms");
  enum { BLK = 160 };
  static uint8_t g[128];
  static uint64_t olds[BLK * 8];
  init_atom_area(g);
  memset(olds, 0, sizeof olds);
  wvt_buf b[2] = {{g, 128}, {olds, sizeof olds}};
  wvt_run_ok(vm, k, 1, BLK, 2, b);
  check_atom_results(g, olds, BLK);
}

/* Generic addresses of shared and global words, atomics through them, and atom.add.f32 */
static const char ATOM_GENERIC_PTX[] = WVT_HDR
    ".visible .entry agen(.param .u64 pg)\n"
    "{\n"
    ".shared .align 4 .u32 cnt;\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
    "ld.param.u64 %rd1, [pg];\n"
    "mov.u32 %r1, %tid.x;\n"
    "setp.ne.u32 %p1, %r1, 0;\n"
    "@!%p1 st.shared.u32 [cnt], 7;\n"
    "bar.sync 0;\n"
    "mov.u64 %rd2, cnt;\n"
    "cvta.shared.u64 %rd3, %rd2;\n"
    "atom.add.u32 %r2, [%rd3], %r1;\n"        /* generic -> shared */
    "atom.add.u32 %r3, [%rd1], 2;\n"          /* generic -> global */
    "atom.global.max.u32 %r4, [%rd1+4], %r1;\n"
    "bar.sync 0;\n"
    "@%p1 bra END;\n"
    "ld.shared.u32 %r5, [cnt];\n"
    "st.global.u32 [%rd1+8], %r5;\n"
    "END:\n"
    "ret;\n"
    "}\n";

static void test_atomics_generic(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, ATOM_GENERIC_PTX, "agen");
  uint32_t g[4] = {100, 0, 0, 0};
  wvt_buf b[1] = {{g, sizeof g}};
  wvt_run_ok(vm, k, 1, 200, 1, b);
  assert_int_equal(g[0], 100 + 2 * 200);
  assert_int_equal(g[1], 199);
  assert_int_equal(g[2], 7 + 199 * 200 / 2);
}

/* ---- faults ----------------------------------------------------------------------------------- */

static const char OOB_PTX[] = WVT_HDR
    ".visible .entry oob(.param .u64 pbuf)\n"
    "{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pbuf];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, %ctaid.x;\n"
    "mul.wide.u32 %rd2, %r1, 4;\n"
    "setp.eq.u32 %p1, %r1, 5;\n"
    "setp.eq.u32 %p2, %r2, 1;\n"
    "and.pred %p3, %p1, %p2;\n"
    "@%p3 add.s64 %rd2, %rd2, 4000;\n"        /* block 1, thread 5 goes far past the end */
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r1; // OOB_STORE\n"
    "ret;\n"
    "}\n";

static void test_fault_out_of_bounds(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, OOB_PTX, "oob");
  wv_devptr buf, other;
  assert_int_equal(wv_malloc(vm, 64 * 4, &buf), WV_OK);
  assert_int_equal(wv_malloc(vm, 64 * 4, &other), WV_OK);
  void *args[1] = {&buf};
  wv_status st = wv_launch(vm, k, wvt_dim(3, 1, 1), wvt_dim(64, 1, 1), 0, args);
  wvt_assert_status(vm, st, WV_ERR_FAULT);
  const char *e = wv_last_error(vm);
  char want[128];
  wvt_assert_contains(e, "oob");
  wvt_assert_contains(e, "block (1,0,0)");
  wvt_assert_contains(e, "thread (5,0,0)");
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(OOB_PTX, "OOB_STORE"));
  wvt_assert_contains(e, want);
  snprintf(want, sizeof want, "0x%llx", (unsigned long long)(buf + 5 * 4 + 4000));
  wvt_assert_contains(e, want);
  wvt_assert_contains(e, "store");
  assert_null(strstr(e, "misaligned"));

  /* One word past the end (inside the gap before the next allocation): the GPU maps memory there, so
   * the load reads 0 and is counted as an invalid read (test_exec_memcheck.c); the store faults. */
  static const char EDGE_PTX[] = WVT_HDR
      ".visible .entry edge(.param .u64 pbuf)\n"
      "{\n"
      ".reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
      "ld.param.u64 %rd1, [pbuf];\n"
      "mov.u32 %r1, %tid.x;\n"
      "mul.wide.u32 %rd2, %r1, 4;\n"
      "add.s64 %rd3, %rd1, %rd2;\n"
      "ld.global.u32 %r2, [%rd3]; // EDGE_LOAD\n"
      "st.global.u32 [%rd3], %r2; // EDGE_STORE\n"
      "ret;\n"
      "}\n";
  const wv_kernel *k2 = wvt_kernel(vm, EDGE_PTX, "edge");
  st = wv_launch(vm, k2, wvt_dim(1, 1, 1), wvt_dim(65, 1, 1), 0, args); /* 65 threads, 64 words */
  wvt_assert_status(vm, st, WV_ERR_FAULT);
  e = wv_last_error(vm);
  wvt_assert_contains(e, "thread (64,0,0)");
  wvt_assert_contains(e, "store");
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(EDGE_PTX, "EDGE_STORE"));
  wvt_assert_contains(e, want);
  snprintf(want, sizeof want, "0x%llx", (unsigned long long)(buf + 256));
  wvt_assert_contains(e, want);
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 1);
  snprintf(want, sizeof want, "thread (64,0,0), PTX line %u ", wvt_line_of(EDGE_PTX, "EDGE_LOAD"));
  wvt_assert_contains(wv_diag_record(vm, WV_DIAG_INVALID_READ, 0), want);
  /* 64 threads are fine, and the vm keeps working after a fault */
  wvt_expect_ok(vm, wv_launch(vm, k2, wvt_dim(1, 1, 1), wvt_dim(64, 1, 1), 0, args));
  assert_int_equal(wv_free(vm, buf), WV_OK);
  assert_int_equal(wv_free(vm, other), WV_OK);
}

static const char MISALIGNED_PTX[] = WVT_HDR
    ".visible .entry mis(.param .u64 pbuf, .param .u32 off)\n"
    "{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [pbuf];\n"
    "ld.param.u32 %r1, [off];\n"
    "cvt.u64.u32 %rd2, %r1;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "ld.global.u32 %r2, [%rd3]; // MIS_LOAD\n"
    "ld.global.v2.u32 {%r3, %r4}, [%rd1+8];\n"
    "add.s64 %rd4, %rd1, 4;\n"
    "ld.global.v2.u32 {%r3, %r4}, [%rd4]; // MIS_VEC\n"
    "ret;\n"
    "}\n";

static void test_fault_misaligned(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, MISALIGNED_PTX, "mis");
  wv_devptr buf;
  assert_int_equal(wv_malloc(vm, 64, &buf), WV_OK);
  uint32_t off = 2;
  void *args[2] = {&buf, &off};
  wv_status st = wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args);
  wvt_assert_status(vm, st, WV_ERR_MISALIGNED);
  const char *e = wv_last_error(vm);
  char want[128];
  wvt_assert_contains(e, "misaligned");
  wvt_assert_contains(e, "'mis'");
  wvt_assert_contains(e, "block (0,0,0)");
  wvt_assert_contains(e, "thread (0,0,0)");
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(MISALIGNED_PTX, "MIS_LOAD"));
  wvt_assert_contains(e, want);
  snprintf(want, sizeof want, "0x%llx", (unsigned long long)(buf + 2));
  wvt_assert_contains(e, want);
  /* aligned scalar, then a v2.u32 (8-byte access) at a 4-byte boundary */
  off = 4;
  st = wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args);
  wvt_assert_status(vm, st, WV_ERR_MISALIGNED);
  e = wv_last_error(vm);
  wvt_assert_contains(e, "misaligned");
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(MISALIGNED_PTX, "MIS_VEC"));
  wvt_assert_contains(e, want);
  snprintf(want, sizeof want, "0x%llx", (unsigned long long)(buf + 4));
  wvt_assert_contains(e, want);
  assert_int_equal(wv_free(vm, buf), WV_OK);
}

static const char TRAP_PTX[] = WVT_HDR
    ".visible .entry trapper(.param .u64 pbuf)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
    "ld.param.u64 %rd1, [pbuf];\n"
    "mov.u32 %r1, %tid.x;\n"
    "setp.eq.u32 %p1, %r1, 33;\n"
    "@%p1 trap; // THE_TRAP\n"
    "st.global.u32 [%rd1], %r1;\n"
    "ret;\n"
    "}\n";

static void test_fault_trap(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, TRAP_PTX, "trapper");
  uint32_t word = 0;
  wvt_buf b[1] = {{&word, 4}};
  wv_status st = wvt_run(vm, k, 1, 64, 1, b);
  wvt_assert_status(vm, st, WV_ERR_TRAP);
  const char *e = wv_last_error(vm);
  char want[64];
  wvt_assert_contains(e, "trap");
  wvt_assert_contains(e, "trapper");
  wvt_assert_contains(e, "thread (33,0,0)");
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(TRAP_PTX, "THE_TRAP"));
  wvt_assert_contains(e, want);
}

static const char LOOP_PTX[] = WVT_HDR
    ".visible .entry spin(.param .u64 pbuf)\n"
    "{\n"
    ".reg .b32 %r<4>;\n"
    "mov.u32 %r1, 0;\n"
    "AGAIN:\n"
    "add.u32 %r1, %r1, 1;\n"
    "bra AGAIN;\n"
    "}\n";

static void test_fault_watchdog(void **state) {
  (void)state;
  wv_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_steps = 100000;
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  const wv_kernel *k = wvt_kernel(vm, LOOP_PTX, "spin");
  wv_devptr buf;
  assert_int_equal(wv_malloc(vm, 4, &buf), WV_OK);
  void *args[1] = {&buf};
  wv_status st = wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args);
  if (st != WV_ERR_WATCHDOG) {
    char msg[1100];
    snprintf(msg, sizeof msg, "%s", wv_last_error(vm));
    wv_destroy(vm);
    fail_msg("status %d (%s), want watchdog: %s", (int)st, wv_status_name(st), msg);
  }
  int has = strstr(wv_last_error(vm), "spin") != NULL;
  wv_stats s;
  wv_get_stats(vm, &s);
  wv_destroy(vm);
  assert_true(has);
  /* a little past the limit, not far past it */
  assert_true(s.warp_instructions >= 100000 && s.warp_instructions < 200000);
}

/* Half the block waits at barrier 1 for the whole block, the other half at barrier 2: neither can
 * complete. */
static const char DEADLOCK_PTX[] = WVT_HDR
    ".visible .entry dead(.param .u64 pbuf)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .pred %p<2>;\n"
    "mov.u32 %r1, %tid.x;\n"
    "setp.lt.u32 %p1, %r1, 32;\n"
    "@%p1 bra LOW;\n"
    "bar.sync 2; // BAR_TWO\n"
    "ret;\n"
    "LOW:\n"
    "bar.sync 1; // BAR_ONE\n"
    "ret;\n"
    "}\n";

/* Half the block exits; the other half's bar.sync counts only threads that have not exited. */
static const char EXITED_PTX[] = WVT_HDR
    ".visible .entry halfexit(.param .u64 pbuf)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
    "ld.param.u64 %rd1, [pbuf];\n"
    "mov.u32 %r1, %tid.x;\n"
    "setp.ge.u32 %p1, %r1, 32;\n"
    "@%p1 exit;\n"
    "bar.sync 1;\n"
    "atom.global.add.u32 %r2, [%rd1], 1;\n"
    "ret;\n"
    "}\n";

static void test_fault_deadlock(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, DEADLOCK_PTX, "dead");
  uint32_t word = 0;
  wvt_buf b[1] = {{&word, 4}};
  wv_status st = wvt_run(vm, k, 1, 64, 1, b);
  wvt_assert_status(vm, st, WV_ERR_DEADLOCK);
  const char *e = wv_last_error(vm);
  wvt_assert_contains(e, "dead");
  wvt_assert_contains(e, "barrier");
  char l1[64], l2[64];
  snprintf(l1, sizeof l1, "PTX line %u", wvt_line_of(DEADLOCK_PTX, "BAR_ONE"));
  snprintf(l2, sizeof l2, "PTX line %u", wvt_line_of(DEADLOCK_PTX, "BAR_TWO"));
  int one = strstr(e, "barrier 1") && strstr(e, l1), two = strstr(e, "barrier 2") && strstr(e, l2);
  if (!one && !two) fail_msg("the report names neither barrier with its line: %s", e);

  /* the exited half does not count: that launch completes */
  const wv_kernel *k2 = wvt_kernel(vm, EXITED_PTX, "halfexit");
  word = 0;
  wvt_run_ok(vm, k2, 1, 64, 1, b);
  assert_int_equal(word, 32);
}

/* An out-of-bounds shared access: static shared is 64 bytes. */
static const char SHARED_OOB_PTX[] = WVT_HDR
    ".visible .entry soob(.param .u64 pbuf)\n"
    "{\n"
    ".shared .align 4 .b8 s[64];\n"
    ".reg .b32 %r<4>;\n"
    "mov.u32 %r1, %tid.x;\n"
    "shl.b32 %r2, %r1, 2;\n"
    "mov.u32 %r3, s;\n"
    "add.s32 %r3, %r3, %r2;\n"
    "st.shared.u32 [%r3], %r1; // SOOB\n"
    "ret;\n"
    "}\n";

static void test_fault_shared_oob(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, SHARED_OOB_PTX, "soob");
  uint32_t word = 0;
  wvt_buf b[1] = {{&word, 4}};
  wvt_run_ok(vm, k, 1, 16, 1, b);
  wv_status st = wvt_run(vm, k, 1, 17, 1, b);
  wvt_assert_status(vm, st, WV_ERR_FAULT);
  const char *e = wv_last_error(vm);
  char want[64];
  wvt_assert_contains(e, "shared");
  wvt_assert_contains(e, "thread (16,0,0)");
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(SHARED_OOB_PTX, "SOOB"));
  wvt_assert_contains(e, want);
}

/* A fault inside a called function, in a 3-D launch: the report names the kernel, the 3-D block
 * and thread, the PTX line inside the function, the address, and the CUDA line from .loc. */
static const char FUNC_FAULT_PTX[] = WVT_HDR
    ".file 1 \"kern.cu\"\n"
    ".visible .func store_at(.param .b64 addr, .param .b32 v)\n"
    "{\n"
    ".reg .b64 %rd<2>; .reg .b32 %r<2>;\n"
    "ld.param.b64 %rd1, [addr];\n"
    "ld.param.b32 %r1, [v];\n"
    ".loc 1 42 7\n"
    "st.global.u32 [%rd1], %r1; // FUNC_STORE\n"
    "ret;\n"
    "}\n"
    ".visible .entry ffault(.param .u64 pbuf)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<8>;\n"
    "ld.param.u64 %rd1, [pbuf];\n"
    "mov.u32 %r1, %tid.x;\n mov.u32 %r2, %tid.y;\n mov.u32 %r3, %tid.z;\n"
    "mov.u32 %r4, %ctaid.x;\n mov.u32 %r5, %ctaid.y;\n mov.u32 %r6, %ctaid.z;\n"
    "setp.eq.u32 %p1, %r1, 1;\n setp.eq.u32 %p2, %r2, 2;\n setp.eq.u32 %p3, %r3, 1;\n"
    "setp.eq.u32 %p4, %r4, 0;\n setp.eq.u32 %p5, %r5, 1;\n setp.eq.u32 %p6, %r6, 1;\n"
    "and.pred %p1, %p1, %p2;\n and.pred %p1, %p1, %p3;\n and.pred %p1, %p1, %p4;\n"
    "and.pred %p1, %p1, %p5;\n and.pred %p1, %p1, %p6;\n"
    "mov.u64 %rd2, %rd1;\n"
    "@%p1 add.s64 %rd2, %rd1, 1048576;\n"  /* only block (0,1,1) thread (1,2,1) goes astray */
    "{\n"
    ".param .b64 a0;\n"
    "st.param.b64 [a0], %rd2;\n"
    ".param .b32 a1;\n"
    "st.param.b32 [a1], %r1;\n"
    "call store_at, (a0, a1);\n"
    "}\n"
    "ret;\n"
    "}\n";

static void test_fault_in_function_3d(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, FUNC_FAULT_PTX, "ffault");
  wv_devptr buf;
  assert_int_equal(wv_malloc(vm, 64, &buf), WV_OK);
  void *args[1] = {&buf};
  wv_status st = wv_launch(vm, k, wvt_dim(2, 2, 2), wvt_dim(4, 4, 2), 0, args);
  wvt_assert_status(vm, st, WV_ERR_FAULT);
  const char *e = wv_last_error(vm);
  char want[64];
  wvt_assert_contains(e, "'ffault'");
  wvt_assert_contains(e, "block (0,1,1)");
  wvt_assert_contains(e, "thread (1,2,1)");
  snprintf(want, sizeof want, "PTX line %u", wvt_line_of(FUNC_FAULT_PTX, "FUNC_STORE"));
  wvt_assert_contains(e, want);
  snprintf(want, sizeof want, "0x%llx", (unsigned long long)(buf + 1048576));
  wvt_assert_contains(e, want);
  wvt_assert_contains(e, "42");
  assert_int_equal(wv_free(vm, buf), WV_OK);
}

/* Launch configuration limits (PTX ISA / CUDA: at most 1024 threads per block, z <= 64). */
static void test_bad_launch_configuration(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, EXITED_PTX, "halfexit");
  wv_devptr buf;
  assert_int_equal(wv_malloc(vm, 64, &buf), WV_OK);
  void *args[1] = {&buf};
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1025, 1, 1), 0, args), WV_ERR_LAUNCH);
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 32, 2), 0, args), WV_ERR_LAUNCH);
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 65), 0, args), WV_ERR_LAUNCH);
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(0, 1, 1), wvt_dim(32, 1, 1), 0, args), WV_ERR_LAUNCH);
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(0, 1, 1), 0, args), WV_ERR_LAUNCH);
  wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 1u << 30, args), WV_ERR_LAUNCH);
  /* the limits themselves are fine */
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1024, 1, 1), 0, args));
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 16, 64), 0, args));
  assert_int_equal(wv_free(vm, buf), WV_OK);
}

/* Cache and ordering variants load, store and run like the plain forms: ld.global.nc, ldu,
 * .v2.f64, fences, prefetch, atom with .relaxed.gpu / red with .release.sys. */
static const char VARIANTS_PTX[] = WVT_HDR
    ".visible .entry variants(.param .u64 pin, .param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f64 %fd<4>;\n"
    "ld.param.u64 %rd1, [pin];\n"
    "ld.param.u64 %rd2, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd3, %r1, 16;\n"
    "add.s64 %rd4, %rd1, %rd3;\n"
    "add.s64 %rd5, %rd2, %rd3;\n"
    "prefetch.global.L2 [%rd4];\n"
    "ld.global.nc.v2.f64 {%fd1, %fd2}, [%rd4];\n"
    "ldu.global.u32 %r2, [%rd1];\n"
    "ld.global.ca.u32 %r3, [%rd4+8];\n"
    "ld.volatile.global.u32 %r4, [%rd4+12];\n"
    "membar.gl;\n"
    "fence.sc.cta;\n"
    "fence.acq_rel.gpu;\n"
    "add.rn.f64 %fd3, %fd1, %fd2;\n"
    "st.global.cs.v2.f64 [%rd5], {%fd3, %fd1};\n"
    "atom.relaxed.gpu.global.add.u32 %r5, [%rd2+1024], %r2;\n"
    "red.release.sys.global.add.u32 [%rd2+1028], 1;\n"
    "ret;\n"
    "}\n";

static void test_variants(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, VARIANTS_PTX, "variants");
  enum { T = 64 };
  static double in[2 * T], out[2 * T + 64];
  for (int t = 0; t < T; t++) {
    in[2 * t] = 1.5 * t;
    in[2 * t + 1] = 0.25 + t;
  }
  memset(out, 0, sizeof out);
  uint32_t first;
  memcpy(&first, in, 4);
  wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
  wvt_run_ok(vm, k, 1, T, 2, b);
  for (int t = 0; t < T; t++) {
    double want = 1.5 * t + (0.25 + t);
    assert_true(out[2 * t] == want);
    assert_true(out[2 * t + 1] == 1.5 * t);
  }
  uint32_t c[2];
  memcpy(c, (uint8_t *)out + 1024, 8); /* after the 2*T doubles */
  assert_int_equal(c[0], first * T);
  assert_int_equal(c[1], T);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_ld_st_global, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_narrow_stores, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_variants, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_shared, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_local, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_module_variables, wvt_setup, wvt_teardown),
      cmocka_unit_test(test_const_store_goes_through),
      cmocka_unit_test_setup_teardown(test_params, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_param_generic_address, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_generic_addressing, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_isspacep, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_atomics_global, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_atomics_shared, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_atomics_generic, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_fault_out_of_bounds, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_fault_misaligned, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_fault_trap, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_fault_watchdog, NULL, NULL),
      cmocka_unit_test_setup_teardown(test_fault_deadlock, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_fault_shared_oob, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_fault_in_function_3d, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_bad_launch_configuration, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
