/*
 * test_indirect.c — calls through a register (PTX ISA "call": `call (ret), fptr, (args), fproto;` with a
 * .callprototype, a .calltargets list or a call table), as nvcc emits them for C function pointers and C++
 * virtual functions:
 *  - nvcc's PTX of tests/kernels/src/indirect.cu (sm_80 and sm_90) computes what the C source says: tables
 *    of function pointers indexed by data, callees chosen per lane (the lanes that call the same function
 *    run it together and meet again after the call), virtual functions on objects made with device new and
 *    deleted through a virtual destructor, recursion through a pointer;
 *  - a function address kept in device memory is called by a later launch;
 *  - a call through an address that is no callable device function (a number, a kernel, a function outside
 *    the call's .calltargets) is a fault report naming the address, the thread and the PTX line;
 *  - an unsupported instruction in an address-taken function refuses the launches that may call it.
 * (The bit-exact comparison with an H100 is the corpus's indirect.* runs.)
 */
#include <math.h>

#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void xorshift(uint32_t seed, uint32_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    v[i] = seed;
  }
}

static const char *const PTX_FILES[] = {"tests/kernels/ptx/indirect.sm_80.ptx", "tests/kernels/ptx/indirect.sm_90.ptx"};

/* ind_table: g_ops[v % 5](v, t) and c_ops[(v >> 8) % 5](v, 7). */
static int32_t op(unsigned k, int32_t a, int32_t b) {
  switch (k) {
  case 0: return (int32_t)((uint32_t)a + (uint32_t)b);
  case 1: return (int32_t)((uint32_t)a - (uint32_t)b);
  case 2: return (int32_t)((uint32_t)a * (uint32_t)b);
  case 3: return a ^ b;
  default: return a < b ? a : b;
  }
}

static void test_tables(void **state) {
  wv_vm *vm = *state;
  enum { T = 192 };
  static uint32_t in[T];
  static int32_t out[2 * T];
  xorshift(77, in, T);
  for (size_t f = 0; f < N(PTX_FILES); f++) {
    const wv_kernel *k = wvt_get(wvt_load_src(vm, PTX_FILES[f]), vm, "ind_table");
    wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
    wvt_run_ok(vm, k, 2, 96, 2, b);
    for (uint32_t t = 0; t < T; t++) {
      assert_int_equal(out[2 * t], op(in[t] % 5, (int32_t)in[t], (int32_t)t));
      assert_int_equal(out[2 * t + 1], op(4 - (in[t] >> 8) % 5, (int32_t)in[t], 7)); /* c_ops is g_ops reversed */
    }
  }
}

/* ind_lanes: lanes whose pick (bits 5:4) is the same call the same function together; a lane with
 * v & 7 == 0 skips the call; after the call the warp is whole again. */
static void test_divergent_callees(void **state) {
  wv_vm *vm = *state;
  enum { BLOCK = 80, T = 160 };
  static uint32_t in[T], out[4 * T];
  xorshift(1202, in, T);
  for (size_t f = 0; f < N(PTX_FILES); f++) {
    const wv_kernel *k = wvt_get(wvt_load_src(vm, PTX_FILES[f]), vm, "ind_lanes");
    wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
    wvt_run_ok(vm, k, T / BLOCK, BLOCK, 2, b);
    for (uint32_t t = 0; t < T; t++) {
      uint32_t w0 = t / BLOCK * BLOCK + t % BLOCK / 32 * 32, wn = w0 + 32 <= (t / BLOCK + 1) * BLOCK ? 32 : BLOCK % 32;
      uint32_t v = in[t], pick = v >> 4 & 3, mask = 0, sum = 0, ballot = 0, first = 32;
      for (uint32_t l = 0; l < wn; l++) {
        uint32_t u = in[w0 + l];
        if (!(u & 7) || (u >> 4 & 3) != pick) continue;
        mask |= 1u << l;
        sum += u;
        ballot |= (u & 1) << l;
        if (first == 32) first = l;
      }
      const uint32_t *o = out + 4 * t;
      assert_int_equal(o[1], wn == 32 ? 0xffffffffu : (1u << wn) - 1);
      if (!(v & 7)) {
        assert_int_equal(o[0], 0xdeadbeefu);
        assert_int_equal(o[2], 4);
        continue;
      }
      uint32_t want[4] = {mask, sum, ballot, (uint32_t)__builtin_popcount(mask) * 1000u + (v & 255u)};
      assert_int_equal(o[0], want[pick]);
      assert_int_equal(o[2], pick);
      assert_int_equal(o[3], in[w0 + first]);
    }
  }
}

/* ind_virtual: Square (s*s), Circle (pi*r*r; scale adds 1), Triangle (half Square's); the member pointer
 * reads the same area; each delete runs the class's destructors (Triangle's, then Square's). */
static void test_virtual_functions(void **state) {
  wv_vm *vm = *state;
  enum { T = 192 };
  static uint32_t in[T];
  static float out[4 * T];
  static int32_t dtors[4];
  xorshift(1203, in, T);
  for (size_t f = 0; f < N(PTX_FILES); f++) {
    memset(dtors, 0, sizeof dtors);
    const wv_kernel *k = wvt_get(wvt_load_src(vm, PTX_FILES[f]), vm, "ind_virtual");
    wvt_buf b[3] = {{in, sizeof in}, {out, sizeof out}, {dtors, sizeof dtors}};
    wvt_run_ok(vm, k, 2, 96, 3, b);
    int32_t count[3] = {0, 0, 0};
    for (uint32_t t = 0; t < T; t++) {
      float x = (float)(in[t] & 0xffff) / 256.0f, area;
      volatile float pr = 3.14159265f * x; /* one rounding per multiply, as written */
      unsigned kind = in[t] % 3;
      count[kind]++;
      area = kind == 0 ? x * x : kind == 1 ? pr * x : (x * x) * 0.5f;
      const float *o = out + 4 * t;
      assert_true(o[0] == area);
      assert_true(o[2] == area);
      assert_true(o[3] == (float)(kind + 1));
      if (kind == 1) /* area * 1.5 + 1: fused or not, by contraction */
        assert_true(o[1] == fmaf(area, 1.5f, 1.0f) || o[1] == area * 1.5f + 1.0f);
      else
        assert_true(o[1] == area * 1.5f);
    }
    assert_int_equal(dtors[0], T);
    assert_int_equal(dtors[1], count[0] + count[2]); /* ~Square: squares and triangles */
    assert_int_equal(dtors[2], count[1]);
    assert_int_equal(dtors[3], count[2]);
  }
}

static void test_recursion_through_pointer(void **state) {
  wv_vm *vm = *state;
  static uint32_t in[64];
  static int32_t out[64];
  xorshift(1204, in, 64);
  for (size_t f = 0; f < N(PTX_FILES); f++) {
    const wv_kernel *k = wvt_get(wvt_load_src(vm, PTX_FILES[f]), vm, "ind_recurse");
    wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, 64, 2, b);
    for (int t = 0; t < 64; t++) {
      int n = (int)(in[t] % 13), a = 0, c = 1;
      for (int i = 0; i < n; i++) {
        int s = a + c;
        a = c;
        c = s;
      }
      assert_int_equal(out[t], a);
    }
  }
}

/* Hand-written: `get` stores twice's or neg's address, `run` calls what p[t] holds (with a prototype), `viatab`
 * calls through a .calltargets list, `bytab` with a call table as the list. */
#define FNS                                                                                                         \
  ".func (.param .b32 r) twice(.param .b32 a) { .reg .b32 %x; ld.param.b32 %x, [a]; add.s32 %x, %x, %x; "          \
  "st.param.b32 [r], %x; ret; }\n"                                                                                \
  ".func (.param .b32 r) neg(.param .b32 a) { .reg .b32 %x; ld.param.b32 %x, [a]; neg.s32 %x, %x; "                \
  "st.param.b32 [r], %x; ret; }\n"                                                                                \
  ".func (.param .b32 r) three(.param .b32 a) { .reg .b32 %x; ld.param.b32 %x, [a]; mul.lo.s32 %x, %x, 3; "        \
  "st.param.b32 [r], %x; ret; }\n"                                                                                \
  ".global .align 8 .u64 tab[2] = {twice, neg};\n"
#define CALLK(NAME, DECL, FL)                                                                                        \
  ".visible .entry " NAME "(.param .u64 p, .param .u64 q)\n{\n.reg .b64 %rd<6>;\n.reg .b32 %r<4>;\n"              \
  "ld.param.u64 %rd1, [p];\nld.param.u64 %rd2, [q];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 8;\n"          \
  "add.s64 %rd3, %rd1, %rd3;\nld.global.u64 %rd4, [%rd3];\n{\n.param .b32 a0;\nst.param.b32 [a0], %r1;\n"          \
  ".param .b32 r0;\n" DECL "\ncall (r0), %rd4, (a0), " FL "; // CALL\nld.param.b32 %r2, [r0];\n}\n"             \
  "mul.wide.u32 %rd5, %r1, 4;\nadd.s64 %rd5, %rd2, %rd5;\nst.global.u32 [%rd5], %r2;\nret;\n}\n"
static const char FPTR_PTX[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n" FNS
    ".visible .entry get(.param .u64 p)\n{\n.reg .b64 %rd<5>;\n.reg .b32 %r<2>;\n.reg .pred %q;\n"
    "ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\nand.b32 %r1, %r1, 1;\nsetp.eq.u32 %q, %r1, 0;\n"
    "mov.u64 %rd2, twice;\nmov.u64 %rd3, neg;\nselp.b64 %rd2, %rd2, %rd3, %q;\nmov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd4, %r1, 8;\nadd.s64 %rd4, %rd1, %rd4;\nst.global.u64 [%rd4], %rd2;\nret;\n}\n"
    ".visible .entry addrs(.param .u64 p)\n{\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\nmov.u64 %rd0, run;\n"
    "st.global.u64 [%rd1], %rd0;\nmov.u64 %rd2, three;\nst.global.u64 [%rd1+8], %rd2;\nret;\n}\n"
    CALLK("run", "pr: .callprototype (.param .b32 _) _ (.param .b32 _);", "pr")
    CALLK("viatab", "tg: .calltargets twice, neg;", "tg")
    CALLK("bytab", "", "tab");

/* The kernel `name` calls what ptrs[t] holds for 64 threads: the status, results in res. */
static wv_status call_through(wv_vm *vm, wv_module *m, const char *name, const uint64_t *ptrs, int32_t *res) {
  wv_devptr p, q;
  assert_int_equal(wv_malloc(vm, 64 * 8, &p), WV_OK);
  assert_int_equal(wv_malloc(vm, 64 * 4, &q), WV_OK);
  assert_int_equal(wv_memcpy_htod(vm, p, ptrs, 64 * 8), WV_OK);
  void *args[2] = {&p, &q};
  wv_status st = wv_launch(vm, wvt_get(m, vm, name), wvt_dim(1, 1, 1), wvt_dim(64, 1, 1), 0, args);
  assert_int_equal(wv_memcpy_dtoh(vm, res, q, 64 * 4), WV_OK);
  wv_free(vm, p);
  wv_free(vm, q);
  return st;
}

static void test_pointer_kept_in_memory(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load(vm, FPTR_PTX);
  static uint64_t ptrs[64];
  static int32_t res[64];
  wvt_buf b[1] = {{ptrs, sizeof ptrs}};
  wvt_run_ok(vm, wvt_get(m, vm, "get"), 1, 64, 1, b); /* even threads: twice, odd: neg */
  assert_true(ptrs[0] != ptrs[1] && ptrs[0] == ptrs[2]);
  const char *kernels[] = {"run", "viatab", "bytab"};
  for (size_t i = 0; i < N(kernels); i++) {
    wvt_expect_ok(vm, call_through(vm, m, kernels[i], ptrs, res));
    for (int t = 0; t < 64; t++) assert_int_equal(res[t], t % 2 ? -t : 2 * t);
  }
  wv_module_unload(m);
}

/* The line of the first "// CALL" after kernel NAME's header in FPTR_PTX. */
static unsigned call_line(const char *kernel) {
  char head[64];
  snprintf(head, sizeof head, ".entry %s(", kernel);
  const char *k = strstr(FPTR_PTX, head), *c = k ? strstr(k, "// CALL") : NULL;
  assert_non_null(c);
  unsigned line = 1;
  for (const char *p = FPTR_PTX; p < c; p++) line += *p == '\n';
  return line;
}

/* A bad function address: the fault names it, the kernel, the first thread holding one and the call's line. */
static void expect_call_fault(wv_vm *vm, wv_module *m, const char *kernel, const uint64_t *ptrs, const char *what,
                              const char *thread) {
  static int32_t res[64];
  wv_status st = call_through(vm, m, kernel, ptrs, res);
  if (st != WV_ERR_FAULT) fail_msg("%s: status %s, want a fault: %s", kernel, wv_status_name(st), wv_last_error(vm));
  char where[96];
  snprintf(where, sizeof where, "in kernel '%s', block (0,0,0), %s, PTX line %u", kernel, thread, call_line(kernel));
  wvt_assert_contains(wv_last_error(vm), what);
  wvt_assert_contains(wv_last_error(vm), where);
}

static void test_bad_addresses_fault(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load(vm, FPTR_PTX);
  static uint64_t ptrs[64], addrs[2];
  wvt_buf b[1] = {{ptrs, sizeof ptrs}};
  wvt_run_ok(vm, wvt_get(m, vm, "get"), 1, 64, 1, b);
  uint64_t good = ptrs[0];
  ptrs[5] = 0x1234; /* a number */
  expect_call_fault(vm, m, "run", ptrs, "indirect call to an address that is not a device function at address 0x1234",
                    "thread (5,0,0)");
  ptrs[5] = 0; /* NULL */
  expect_call_fault(vm, m, "run", ptrs, "not a device function at address 0x0 ", "thread (5,0,0)");
  wvt_buf ab[1] = {{addrs, sizeof addrs}};
  wvt_run_ok(vm, wvt_get(m, vm, "addrs"), 1, 1, 1, ab);
  ptrs[5] = good;
  ptrs[9] = addrs[0]; /* a kernel's address */
  expect_call_fault(vm, m, "run", ptrs, "indirect call to 'run', a kernel", "thread (9,0,0)");
  ptrs[9] = addrs[1]; /* three: a function, but in neither the .calltargets list nor the table */
  expect_call_fault(vm, m, "viatab", ptrs, "indirect call to 'three', not one of the call's targets", "thread (9,0,0)");
  expect_call_fault(vm, m, "bytab", ptrs, "indirect call to 'three', not one of the call's targets", "thread (9,0,0)");
  static int32_t res[64];
  wvt_expect_ok(vm, call_through(vm, m, "run", ptrs, res)); /* with a prototype any function goes */
  assert_int_equal(res[9], 27);
  assert_int_equal(res[10], 20);
  wv_module_unload(m);
}

/* An unsupported instruction in a function whose address is taken: a kernel that may call it through a
 * pointer is refused before it runs, one without indirect calls runs. */
static void test_unsupported_reached_through_pointer(void **state) {
  wv_vm *vm = *state;
  static const char ptx[] =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".func odd() { .reg .b32 %r<4>; mad24.hi.sat.s32 %r1, %r2, %r3, %r1; ret; }\n" /* valid, not run here */
      ".global .align 8 .u64 tab[1] = {odd};\n"
      ".visible .entry caller(.param .u64 p) { .reg .b64 %rd<3>; ld.param.u64 %rd1, [p]; ld.global.u64 %rd2, [%rd1];\n"
      "{ pr: .callprototype _ ; call %rd2, pr; } ret; }\n"
      ".visible .entry plain(.param .u64 p) { .reg .b64 %rd<2>; ld.param.u64 %rd1, [p]; st.global.u64 [%rd1], %rd1; ret; }\n";
  wv_module *m = wvt_load(vm, ptx);
  wv_devptr p;
  assert_int_equal(wv_malloc(vm, 8, &p), WV_OK);
  void *args[1] = {&p};
  wvt_expect_ok(vm, wv_launch(vm, wvt_get(m, vm, "plain"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args));
  wv_status st = wv_launch(vm, wvt_get(m, vm, "caller"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args);
  wvt_assert_status(vm, st, WV_ERR_UNSUPPORTED);
  wvt_assert_contains(wv_last_error(vm), "mad24");
  wv_free(vm, p);
  wv_module_unload(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_tables, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_divergent_callees, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_virtual_functions, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_recursion_through_pointer, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_pointer_kept_in_memory, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_bad_addresses_fault, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_unsupported_reached_through_pointer, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
