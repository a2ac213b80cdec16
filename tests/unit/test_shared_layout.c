/*
 * test_shared_layout.c — static .shared memory is laid out per kernel, as ptxas lays it out (issue 10):
 *  - each kernel's static size (what cudaFuncGetAttributes reports as sharedSizeBytes) is what
 *    `ptxas -arch=sm_90 -v` (CUDA 13.0) printed as "N bytes smem" for the same PTX: the kernel's own
 *    variables, the module group, other functions' variables, extern rounding, and every address-taken
 *    function's variables in a kernel that uses function pointers;
 *  - five kernels of 48 KB each load and run (they did not fit one 227 KB area); 0xc001 bytes in one
 *    kernel is ptxas's error;
 *  - a device function reached from kernels that place its variable at different offsets, and the
 *    dynamic area after different static sizes, address the right bytes in each kernel.
 */
#include "wv_test.h"

#define HDR ".version 8.0\n.target sm_90\n.address_size 64\n"
/* an instruction that names shared variable V (so the kernel or function reaches it) */
#define USE(V) "mov.u64 %rd1, " V "; st.shared.u8 [%rd1], 1; "
#define FN(NAME, BODY) ".func " NAME "() { .reg .b64 %rd<2>; " BODY "ret; }\n"
#define KN(NAME, BODY) ".visible .entry " NAME "() { .reg .b64 %rd<2>; " BODY "ret; }\n"

typedef struct size_case {
  const char *ptx;
  const char *kernel[5];
  uint32_t bytes[5]; /* ptxas -v, "bytes smem" (none printed: 0) */
} size_case;

static const size_case cases[] = {
  /* a device function's variable after each kernel's own array; a kernel of small variables in
   * declaration order with their alignments */
  {HDR ".shared .align 4 .b8 a[40000];\n.shared .align 4 .b8 b[40000];\n.shared .align 1 .b8 c1[1];\n"
       ".shared .align 8 .b8 c8[8];\n.shared .align 1 .b8 d1[1];\n.shared .align 16 .b8 d16[16];\n"
       FN("f", USE("c1")) KN("k1", USE("a") "call f, (); ") KN("k2", USE("b") "call f, (); ")
       KN("k3", USE("c1") USE("c8") USE("d1") USE("d16")),
   {"k1", "k2", "k3"}, {40001, 40001, 48}},
  /* the kernel's own variables first, then module variables in declaration order */
  {HDR ".shared .align 8 .b8 m8[8];\n"
       ".visible .entry k1() { .shared .align 1 .b8 s1[1]; .reg .b64 %rd<2>; " USE("s1") USE("m8") "ret; }\n"
       ".shared .align 8 .b8 n8[8];\n"
       ".visible .entry k2() { .shared .align 1 .b8 s2[1]; .reg .b64 %rd<2>; " USE("n8") USE("s2") "ret; }\n"
       ".shared .align 4 .b8 p4[4];\n.shared .align 1 .b8 p1[1];\n"
       KN("k3", USE("p4") USE("p1")) KN("k4", USE("p1") USE("p4")) KN("k5", USE("p1") USE("n8")),
   {"k1", "k2", "k3", "k4", "k5"}, {16, 16, 5, 5, 9}},
  /* other functions' variables in the order the functions were first declared (h's prototype first) */
  {HDR ".shared .align 8 .b8 m8[8];\n.func h();\n"
       ".func f() { .shared .align 2 .b8 g2[2]; .reg .b64 %rd<2>; " USE("g2") "ret; }\n"
       ".visible .entry k1() { .shared .align 1 .b8 s1[1]; .reg .b64 %rd<2>; " USE("s1") USE("m8") "call f, (); ret; }\n"
       ".visible .entry k2() { .shared .align 1 .b8 s2[1]; .reg .b64 %rd<2>; " USE("s2") "call f, (); call h, (); ret; }\n"
       ".func h() { .shared .align 4 .b8 h4[4]; .reg .b64 %rd<2>; " USE("h4") "ret; }\n"
       KN("k3", "call h, (); call f, (); "),
   {"k1", "k2", "k3"}, {18, 10, 6}},
  /* the module group comes where the first function naming a module variable is met */
  {HDR ".func f() { .shared .align 1 .b8 g1[1]; .reg .b64 %rd<2>; " USE("g1") "ret; }\n"
       ".shared .align 8 .b8 m8[8];\n"
       ".func h() { .shared .align 2 .b8 h2[2]; .reg .b64 %rd<2>; " USE("h2") "call f, (); ret; }\n"
       KN("k1", USE("m8") "call f, (); ") KN("k2", "call h, (); ") KN("k3", "call h, (); " USE("m8")),
   {"k1", "k2", "k3"}, {9, 4, 12}},
  {HDR ".shared .align 1 .b8 mA[1];\n.shared .align 8 .b8 mB[8];\n"
       ".func f() { .shared .align 4 .b8 g4[4]; .reg .b64 %rd<2>; " USE("g4") USE("mA") "ret; }\n"
       FN("h", USE("mB")) KN("k1", "call f, (); call h, (); ")
       ".visible .entry k2() { .shared .align 2 .b8 s2[2]; .reg .b64 %rd<2>; " USE("s2") "call h, (); call f, (); ret; }\n",
   {"k1", "k2"}, {20, 20}},
  {HDR ".func f() { .shared .align 1 .b8 g1[1]; .reg .b64 %rd<2>; " USE("g1") "ret; }\n"
       ".shared .align 8 .b8 m8[8];\n" FN("h", USE("m8")) KN("k1", "call f, (); call h, (); "),
   {"k1"}, {16}},
  /* an extern .shared array in the module rounds every non-empty static size up to max(16, its alignment) */
  {HDR ".extern .shared .align 256 .b8 dyn[];\n"
       ".visible .entry k2() { .shared .align 1 .b8 s1[1]; .reg .b64 %rd<2>; " USE("s1") USE("dyn") "ret; }\n"
       ".visible .entry k3() { .shared .align 1 .b8 s1[1]; .reg .b64 %rd<2>; " USE("s1") "ret; }\n"
       KN("k4", USE("dyn")),
   {"k2", "k3", "k4"}, {256, 256, 0}},
  {HDR ".extern .shared .align 4 .b8 d[];\n.extern .shared .align 32 .b8 e[];\n"
       ".visible .entry k() { .shared .align 1 .b8 s1[33]; .reg .b64 %rd<2>; " USE("s1") "ret; }\n",
   {"k"}, {64}},
  {HDR ".extern .shared .align 4 .b8 d[];\n"
       ".visible .entry k() { .shared .align 1 .b8 s1[17]; .reg .b64 %rd<2>; " USE("s1") "ret; }\n",
   {"k"}, {32}},
  /* function pointers: a kernel that calls through a register, names a function as a value or names a
   * table of function addresses reaches every function whose address is taken (g by kB's mov, h by tab) */
  {HDR FN("g", ".shared .align 4 .b8 g4[1000]; " USE("g4")) FN("h", ".shared .align 4 .b8 h4[24]; " USE("h4"))
       FN("f", ".shared .align 4 .b8 f4[8]; " USE("f4")) ".global .align 8 .u64 tab[1] = {h};\n"
       ".visible .entry kA(.param .u64 p) { .reg .b64 %rd<3>; ld.param.u64 %rd2, [p]; { pr: .callprototype _ ; "
       "call %rd2, pr; } ret; }\n"
       ".visible .entry kB(.param .u64 p) { .reg .b64 %rd<3>; ld.param.u64 %rd2, [p]; mov.u64 %rd1, g; "
       "st.global.u64 [%rd2], %rd1; ret; }\n"
       KN("kC", "call h, (); ") KN("kD", "call f, (); "),
   {"kA", "kB", "kC", "kD"}, {1024, 1024, 24, 8}},
  {HDR FN("g", ".shared .align 4 .b8 g4[1000]; " USE("g4")) FN("h", ".shared .align 4 .b8 h4[24]; " USE("h4"))
       FN("e", "") FN("f", ".shared .align 4 .b8 f4[8]; " USE("f4")) ".global .align 8 .u64 tab[1] = {h};\n"
       ".visible .entry kE(.param .u64 p) { .reg .b64 %rd<3>; ld.param.u64 %rd2, [p]; mov.u64 %rd1, e; "
       "st.global.u64 [%rd2], %rd1; ret; }\n"
       ".visible .entry kF(.param .u64 p) { .reg .b64 %rd<3>; ld.param.u64 %rd2, [p]; ld.global.u64 %rd1, [tab]; "
       "st.global.u64 [%rd2], %rd1; ret; }\n"
       ".visible .entry kG(.param .u64 p) { .reg .b64 %rd<3>; ld.param.u64 %rd2, [p]; { pr: .callprototype _ ; "
       "call %rd2, pr; } ret; }\n"
       KN("kD", "call f, (); "),
   {"kE", "kF", "kG", "kD"}, {24, 24, 24, 8}},
};

static void test_sizes_as_ptxas(void **state) {
  wv_vm *vm = *state;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    wv_module *m = wvt_load(vm, cases[c].ptx);
    for (int i = 0; i < 5 && cases[c].kernel[i]; i++) {
      uint32_t got = wv_kernel_static_shared(wvt_get(m, vm, cases[c].kernel[i]));
      if (got != cases[c].bytes[i])
        fail_msg("case %zu kernel %s: %u static shared bytes, ptxas says %u", c, cases[c].kernel[i], got, cases[c].bytes[i]);
    }
    wv_module_unload(m);
  }
}

/* Kernel K_i owns 48 KB, writes its index into the last byte and copies it out. */
#define BIG(I)                                                                                          \
  ".visible .entry big" #I "(.param .u64 out) { .shared .align 4 .b8 s[49152]; .reg .b64 %rd<3>; "    \
  ".reg .b16 %h; ld.param.u64 %rd1, [out]; mov.u64 %rd2, s; st.shared.u8 [%rd2+49151], " #I "; "       \
  "ld.shared.u8 %h, [s+49151]; st.global.u8 [%rd1], %h; ret; }\n"

static void test_five_kernels_of_48k(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load(vm, HDR BIG(1) BIG(2) BIG(3) BIG(4) BIG(5));
  for (int i = 1; i <= 5; i++) {
    char name[8];
    snprintf(name, sizeof name, "big%d", i);
    const wv_kernel *k = wvt_get(m, vm, name);
    assert_int_equal(wv_kernel_static_shared(k), 49152);
    uint8_t out = 0;
    wvt_buf b = {&out, 1};
    wvt_run_ok(vm, k, 1, 32, 1, &b);
    assert_int_equal(out, i);
  }
}

static void test_too_much_is_ptxas_error(void **state) {
  wv_vm *vm = *state;
  const char *ptx = HDR ".visible .entry k() { .shared .align 1 .b8 s1[49153]; .reg .b64 %rd<2>; " USE("s1") "ret; }\n";
  wv_module *m = NULL;
  assert_int_equal(wv_module_load_string(vm, ptx, strlen(ptx), "big.ptx", &m), WV_ERR_PARSE);
  assert_non_null(strstr(wv_last_error(vm), "big.ptx:4:"));
  assert_non_null(strstr(wv_last_error(vm), "entry function 'k' uses too much shared data (0xc001 bytes, 0xc000 max)"));
}

/*
 * put(v) stores v at shared variable g and at the dynamic area's first word; k1 has 40000 bytes of its
 * own before g, k2 none, so g and the dynamic area are at different offsets in the two kernels (and
 * g is at 0 in k2, where k1's array would be). Each kernel fills its own array, calls put, and
 * reports its array's first and last words (untouched), g and the dynamic word, read through the
 * kernel's own names and through generic addresses.
 */
static const char *reloc_ptx =
    HDR
    ".shared .align 4 .u32 g;\n"
    ".extern .shared .align 16 .b8 dyn[];\n"
    ".func put(.param .u32 v) { .reg .b32 %r<2>; .reg .b64 %rd<3>; ld.param.u32 %r1, [v];\n"
    "  st.shared.u32 [g], %r1; mov.u64 %rd1, dyn; cvta.shared.u64 %rd2, %rd1; st.u32 [%rd2], %r1; ret; }\n"
    ".visible .entry k1(.param .u64 out) { .shared .align 4 .b8 own[40000]; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out]; st.shared.u32 [own], 11; st.shared.u32 [own+39996], 12;\n"
    "  { .param .u32 a; st.param.u32 [a], 77; call put, (a); }\n"
    "  ld.shared.u32 %r1, [own]; st.global.u32 [%rd1], %r1; ld.shared.u32 %r1, [own+39996]; st.global.u32 [%rd1+4], %r1;\n"
    "  ld.shared.u32 %r1, [g]; st.global.u32 [%rd1+8], %r1; ld.shared.u32 %r1, [dyn]; st.global.u32 [%rd1+12], %r1;\n"
    "  cvta.shared.u64 %rd2, g; ld.u32 %r1, [%rd2]; st.global.u32 [%rd1+16], %r1; ret; }\n"
    ".visible .entry k2(.param .u64 out) { .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out]; { .param .u32 a; st.param.u32 [a], 88; call put, (a); }\n"
    "  mov.u32 %r1, 0; st.global.u32 [%rd1], %r1; st.global.u32 [%rd1+4], %r1;\n"
    "  ld.shared.u32 %r1, [g]; st.global.u32 [%rd1+8], %r1; ld.shared.u32 %r1, [dyn]; st.global.u32 [%rd1+12], %r1;\n"
    "  mov.u64 %rd2, g; cvta.shared.u64 %rd2, %rd2; ld.u32 %r1, [%rd2]; st.global.u32 [%rd1+16], %r1; ret; }\n";

static void test_function_shared_by_kernels(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load(vm, reloc_ptx);
  const wv_kernel *k1 = wvt_get(m, vm, "k1"), *k2 = wvt_get(m, vm, "k2");
  assert_int_equal(wv_kernel_static_shared(k1), 40016); /* own, g; rounded up to 16 for dyn */
  assert_int_equal(wv_kernel_static_shared(k2), 16);
  uint32_t out[5] = {0};
  wvt_buf b = {out, sizeof out};
  wvt_expect_ok(vm, wvt_launch_bufs(vm, k1, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 16, 1, &b));
  uint32_t want1[5] = {11, 12, 77, 77, 77};
  assert_memory_equal(out, want1, sizeof out);
  wvt_expect_ok(vm, wvt_launch_bufs(vm, k2, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 16, 1, &b));
  uint32_t want2[5] = {0, 0, 88, 88, 88};
  assert_memory_equal(out, want2, sizeof out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_sizes_as_ptxas, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_five_kernels_of_48k, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_too_much_is_ptxas_error, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_function_shared_by_kernels, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
