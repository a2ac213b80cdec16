/*
 * test_decode_errors.c — malformed and unsupported PTX through wv_module_load_string: the status
 * (WV_ERR_PARSE or WV_ERR_UNSUPPORTED), no module, and a one-line message
 * "NAME:LINE:COL: error: ..." whose LINE is the line of the offending text (computed here from the
 * PTX by searching for a marker) and whose COL lies on that line. Also: valid PTX that warpvm
 * cannot run makes only the kernels that reach it unlaunchable — the module loads, its other
 * kernels run, and launching the bad one fails with WV_ERR_UNSUPPORTED naming the instruction and
 * its line.
 */
#include <ctype.h>

#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define KHEAD ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n"

/* Length of line `line` (1-based) of text. */
static unsigned line_len(const char *text, size_t len, unsigned line) {
  size_t i = 0;
  for (unsigned l = 1; l < line && i < len; i++)
    if (text[i] == '\n') l++;
  size_t s = i;
  while (i < len && text[i] != '\n') i++;
  return (unsigned)(i - s);
}

/* Loads text (len bytes) as NAME and checks the failure: status, no module, the message format,
 * the line, a column on that line, and that the message mentions `needle` (if not NULL). */
static void expect_load_error_n(const char *text, size_t len, unsigned line, const char *needle) {
  static const char *const name = "bad.ptx";
  wv_vm *vm = wv_create(NULL);
  assert_non_null(vm);
  wv_module *m = (wv_module *)(uintptr_t)1;
  wv_status st = wv_module_load_string(vm, text, len, name, &m);
  char e[1100];
  snprintf(e, sizeof e, "%s", wv_last_error(vm));
  wv_destroy(vm);
  if (st != WV_ERR_PARSE && st != WV_ERR_UNSUPPORTED)
    fail_msg("status %d (%s), want parse error or unsupported; message: %s", (int)st, wv_status_name(st), e);
  assert_null(m);
  /* NAME:LINE:COL: error: ... */
  char prefix[64];
  snprintf(prefix, sizeof prefix, "%s:%u:", name, line);
  if (strncmp(e, prefix, strlen(prefix))) fail_msg("message does not start with '%s': %s", prefix, e);
  const char *p = e + strlen(prefix);
  unsigned col = 0;
  if (!isdigit((unsigned char)*p)) fail_msg("no column in: %s", e);
  while (isdigit((unsigned char)*p)) col = col * 10 + (unsigned)(*p++ - '0');
  if (strncmp(p, ": error: ", 9)) fail_msg("no ': error: ' after the column in: %s", e);
  unsigned ll = line_len(text, len, line);
  if (col < 1 || col > ll + 1) fail_msg("column %u is not on line %u (length %u): %s", col, line, ll, e);
  assert_null(strchr(e, '\n'));
  if (needle && !strstr(e, needle)) fail_msg("message does not mention '%s': %s", needle, e);
}

static void expect_load_error(const char *text, const char *marker, const char *needle) {
  unsigned line = wvt_line_of(text, marker);
  assert_true(line > 0);
  expect_load_error_n(text, strlen(text), line, needle);
}

/* ---- tests ------------------------------------------------------------------------------------ */

static void test_undeclared_register(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR KHEAD "mov.u32 %r1, 1;\nadd.u32 %r1, %r9, 1; // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "%r9");
  static const char ptx2[] = WVT_HDR KHEAD "mov.u32 %q1, 1; // HERE\nret;\n}\n";
  expect_load_error(ptx2, "HERE", "%q1");
}

static void test_unknown_label(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR KHEAD "mov.u32 %r1, 1;\nbra NOWHERE; // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "NOWHERE");
  static const char ptx2[] = WVT_HDR KHEAD "setp.eq.u32 %p1, %r1, 0;\n@%p1 bra.uni MISSING_L; // HERE\nret;\n}\n";
  expect_load_error(ptx2, "HERE", "MISSING_L");
}

static void test_duplicate_label(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR KHEAD "L1:\nmov.u32 %r1, 1;\nL1: // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "L1");
}

static void test_unknown_opcode(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR KHEAD "mov.u32 %r1, 1;\nfrobnicate.u32 %r1, %r2; // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "frobnicate");
}

/* A word that is no PTX modifier at all. */
static void test_unknown_modifier(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR KHEAD "mov.u32 %r1, 1;\nadd.frob.u32 %r1, %r1, 1; // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "frob");
  static const char ptx2[] = WVT_HDR KHEAD "ld.global.zzz.u32 %r1, [%rd1]; // HERE\nret;\n}\n";
  expect_load_error(ptx2, "HERE", "zzz");
}

/* Modifiers that exist in PTX but not on this instruction (ptxas rejects both). */
static void test_misplaced_modifier(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR KHEAD "mov.u32 %r1, 1;\nadd.rn.u32 %r1, %r1, 1; // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "add");
  static const char ptx2[] = WVT_HDR KHEAD "mov.u32 %r1, 1;\nand.ftz.b32 %r1, %r1, 1; // HERE\nret;\n}\n";
  expect_load_error(ptx2, "HERE", "and");
}

static void test_wrong_operand_count(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR KHEAD "mov.u32 %r1, 1;\nadd.u32 %r1, %r2; // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "operand");
  static const char ptx2[] = WVT_HDR KHEAD "mov.u32 %r1, 1;\nmad.lo.u32 %r1, %r2, %r3; // HERE\nret;\n}\n";
  expect_load_error(ptx2, "HERE", "operand");
  static const char ptx3[] = WVT_HDR KHEAD "not.b32 %r1, %r2, %r3; // HERE\nret;\n}\n";
  expect_load_error(ptx3, "HERE", "operand");
}

static void test_predicate_as_value(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR KHEAD "setp.eq.u32 %p1, %r1, 0;\nadd.u32 %r1, %p1, 1; // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "%p1");
  /* and a value register where a predicate is required */
  static const char ptx2[] = WVT_HDR KHEAD "mov.u32 %r1, 0;\n@%r1 bra L; // HERE\nL:\nret;\n}\n";
  expect_load_error(ptx2, "HERE", "%r1");
}

/* A register narrower or wider than the instruction's type (ptxas: "Arguments mismatch"). */
static void test_operand_size_mismatch(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR KHEAD "mov.u32 %r1, 1;\nadd.u32 %r1, %rd1, %r2; // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "64-bit register");
  static const char ptx2[] = WVT_HDR KHEAD "setp.lt.u64 %p1, %r1, %rd1; // HERE\nret;\n}\n";
  expect_load_error(ptx2, "HERE", "32-bit register");
}

static void test_huge_register_range(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<100000000>; // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "range");
}

static void test_truncated_file(void **state) {
  (void)state;
  static const char full[] = WVT_HDR KHEAD "mov.u32 %r1, 1;\nadd.u32 %r1, %r1, 1;\nret;\n}\n";
  /* cut in the middle of the add instruction */
  const char *cut = strstr(full, "add.u32 %r1, %r1");
  size_t len = (size_t)(cut - full) + strlen("add.u32 %r1, %r1");
  expect_load_error_n(full, len, wvt_line_of(full, "add.u32"), NULL);
  /* cut inside the header of the kernel */
  const char *h = strstr(full, "(.param .u64");
  expect_load_error_n(full, (size_t)(h - full) + 4, wvt_line_of(full, ".visible"), NULL);
  /* cut before the closing brace */
  size_t nobrace = strlen(full) - 2; /* drop "}\n" */
  unsigned last = wvt_line_of(full, "ret;");
  wv_vm *vm = wv_create(NULL);
  wv_module *m = NULL;
  wv_status st = wv_module_load_string(vm, full, nobrace, "bad.ptx", &m);
  char e[1100];
  snprintf(e, sizeof e, "%s", wv_last_error(vm));
  wv_destroy(vm);
  if (st != WV_ERR_PARSE) fail_msg("no closing brace: status %d: %s", (int)st, e);
  /* the end of input is on the line after "ret;" (the text ends with a newline) */
  char p1[32], p2[32];
  snprintf(p1, sizeof p1, "bad.ptx:%u:", last);
  snprintf(p2, sizeof p2, "bad.ptx:%u:", last + 1);
  if (strncmp(e, p1, strlen(p1)) && strncmp(e, p2, strlen(p2))) fail_msg("unexpected location: %s", e);
}

static void test_binary_garbage(void **state) {
  (void)state;
  /* a valid header, then random bytes (no newlines, some NULs) on line 4 */
  static char text[512];
  size_t n = strlen(WVT_HDR);
  memcpy(text, WVT_HDR, n);
  uint64_t seed = 12345;
  for (int i = 0; i < 300; i++) {
    uint8_t c = (uint8_t)wvt_rand(&seed);
    if (c == '\n' || c == '\r') c = 0x80;
    text[n++] = (char)c;
  }
  expect_load_error_n(text, n, 4, NULL);
  /* garbage from the first byte */
  for (int round = 0; round < 20; round++) {
    size_t len = 1 + (size_t)(wvt_rand(&seed) % 200);
    for (size_t i = 0; i < len; i++) {
      uint8_t c = (uint8_t)wvt_rand(&seed);
      text[i] = (char)(c == '\n' || c == '\r' || c == '.' ? 0xfe : c);
    }
    text[0] = (char)0xff; /* never a valid start */
    expect_load_error_n(text, len, 1, NULL);
  }
}

static void test_mul_without_mode(void **state) {
  (void)state;
  static const char ptx[] = WVT_HDR KHEAD "mov.u32 %r1, 3;\nmul.u32 %r1, %r1, %r1; // HERE\nret;\n}\n";
  expect_load_error(ptx, "HERE", "mul");
  static const char ptx2[] = WVT_HDR KHEAD "mov.u32 %r1, 3;\nmad.s32 %r1, %r1, %r1, %r1; // HERE\nret;\n}\n";
  expect_load_error(ptx2, "HERE", "mad");
}

/* Valid PTX that warpvm does not run: the module loads; the clean kernel runs; a kernel that
 * reaches the instruction (directly, or through a call) is refused at launch, naming it. */
static const char MIXED_PTX[] = WVT_HDR
    ".visible .func helper(.param .u64 a)\n"
    "{\n"
    ".reg .b32 %r<4>;\n"
    ".reg .b64 %rd<4>;\n"
    ".shared .align 16 .b8 tile[256];\n"
    "mov.u32 %r1, tile;\n"
    "tcgen05.fence::before_thread_sync; // MBAR\n"
    "ret;\n"
    "}\n"
    ".visible .entry clean(.param .u64 p)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [p];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd2, %r1, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "add.u32 %r2, %r1, 40;\n"
    "st.global.u32 [%rd3], %r2;\n"
    "ret;\n"
    "}\n"
    ".visible .entry direct(.param .u64 p)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    ".shared .align 16 .b8 buf[64];\n"
    "ld.param.u64 %rd1, [p];\n"
    "mov.u32 %r1, buf;\n"
    "cp.async.bulk.tensor.1d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1}], [%r1]; // CPASYNC\n"
    "ret;\n"
    "}\n"
    ".visible .entry viacall(.param .u64 p)\n"
    "{\n"
    ".reg .b64 %rd<2>;\n"
    "ld.param.u64 %rd1, [p];\n"
    "{\n"
    ".param .b64 a0;\n"
    "st.param.b64 [a0], %rd1;\n"
    "call helper, (a0);\n"
    "}\n"
    "ret;\n"
    "}\n";

static void test_unsupported_instruction_is_deferred(void **state) {
  wv_vm *vm = *state;
  wv_module *m = NULL;
  wv_status st = wv_module_load_string(vm, MIXED_PTX, strlen(MIXED_PTX), "mixed.ptx", &m);
  if (st != WV_OK) fail_msg("the module does not load (%s): %s", wv_status_name(st), wv_last_error(vm));
  assert_int_equal(wv_module_kernel_count(m), 3);
  const wv_kernel *clean = wvt_get(m, vm, "clean"), *direct = wvt_get(m, vm, "direct"), *viacall = wvt_get(m, vm, "viacall");
  /* the clean kernel runs */
  static uint32_t out[64];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, clean, 1, 64, 1, b);
  for (uint32_t t = 0; t < 64; t++) assert_int_equal(out[t], t + 40);
  /* the others are refused, naming the instruction and its line */
  wv_devptr d;
  assert_int_equal(wv_malloc(vm, 64, &d), WV_OK);
  void *args[1] = {&d};
  st = wv_launch(vm, direct, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args);
  wvt_assert_status(vm, st, WV_ERR_UNSUPPORTED);
  char want[64];
  snprintf(want, sizeof want, "mixed.ptx:%u:", wvt_line_of(MIXED_PTX, "CPASYNC"));
  wvt_assert_contains(wv_last_error(vm), want);
  wvt_assert_contains(wv_last_error(vm), "cp.async");
  wvt_assert_contains(wv_last_error(vm), "direct");
  st = wv_launch(vm, viacall, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args);
  wvt_assert_status(vm, st, WV_ERR_UNSUPPORTED);
  snprintf(want, sizeof want, "mixed.ptx:%u:", wvt_line_of(MIXED_PTX, "MBAR"));
  wvt_assert_contains(wv_last_error(vm), want);
  wvt_assert_contains(wv_last_error(vm), "tcgen05");
  wvt_assert_contains(wv_last_error(vm), "viacall");
  /* and the clean kernel still runs afterwards */
  memset(out, 0, sizeof out);
  wvt_run_ok(vm, clean, 1, 64, 1, b);
  assert_int_equal(out[63], 103);
  assert_int_equal(wv_free(vm, d), WV_OK);
}

/* griddepcontrol (what CUB's merge sort runs first on sm_90), setmaxnreg and pmevent are valid PTX with
 * nothing to do here: a kernel using them loads and runs; malformed ones are load errors. */
static void test_hint_instructions(void **state) {
  wv_vm *vm = *state;
  static const char ptx[] = ".version 8.0\n.target sm_90a\n.address_size 64\n" KHEAD
                            "griddepcontrol.wait;\nld.param.u64 %rd1, [p];\nsetmaxnreg.inc.sync.aligned.u32 240;\n"
                            "pmevent 3;\npmevent.mask 0x11;\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 4;\n"
                            "add.s64 %rd1, %rd1, %rd2;\nadd.u32 %r1, %r1, 7;\nst.global.u32 [%rd1], %r1;\n"
                            "griddepcontrol.launch_dependents;\nret;\n}\n";
  const wv_kernel *k = wvt_kernel(vm, ptx, "k");
  static uint32_t out[32];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 32, 1, b);
  for (uint32_t t = 0; t < 32; t++) assert_int_equal(out[t], t + 7);
  static const char bad1[] = WVT_HDR KHEAD "griddepcontrol.sync; // HERE\nret;\n}\n";
  expect_load_error(bad1, "HERE", "griddepcontrol");
  static const char bad2[] = WVT_HDR KHEAD "setmaxnreg.dec.sync.aligned.u32 20; // HERE\nret;\n}\n";
  expect_load_error(bad2, "HERE", "setmaxnreg");
  static const char bad3[] = WVT_HDR KHEAD "griddepcontrol.wait %r1; // HERE\nret;\n}\n";
  expect_load_error(bad3, "HERE", "operand");
}

/* atom.add on a half type needs .noftz, and .noftz is for half types only (ptxas 13.0 rejects both). */
static void test_atom_noftz(void **state) {
  (void)state;
  static const char bad1[] = WVT_HDR KHEAD ".reg .b16 %h<3>;\nld.param.u64 %rd1, [p];\n"
                             "atom.global.add.f16 %h1, [%rd1], %h2; // HERE\nret;\n}\n";
  expect_load_error(bad1, "HERE", "noftz");
  static const char bad2[] = WVT_HDR KHEAD "ld.param.u64 %rd1, [p];\n"
                             "atom.global.add.noftz.f32 %r1, [%rd1], %r2; // HERE\nret;\n}\n";
  expect_load_error(bad2, "HERE", "noftz");
}

/* An indirect call that does not match its prototype (as ptxas 13.0 checks: count, size, shape, alignment) or
 * names no prototype, list or table is a load error at the call. */
static void test_indirect_call_errors(void **state) {
  (void)state;
  static const struct { const char *decls, *call, *needle; } c[] = {
    {".param .b32 a0; .param .b32 a1; pr: .callprototype _ (.param .b32 _);", "call %rd1, (a0, a1), pr;",
     "the call has 2 arguments but its prototype 'pr' has 1"},
    {".param .b32 a0; .param .b32 r0; pr: .callprototype _ (.param .b32 _);", "call (r0), %rd1, (a0), pr;",
     "the call has 1 result but its prototype 'pr' has 0"},
    {".param .b64 a0; pr: .callprototype _ (.param .b32 _);", "call %rd1, (a0), pr;",
     "argument 1 of the call ('a0': 8 bytes, aligned to 8) does not match prototype 'pr' (4 bytes, aligned to 4)"},
    {".param .align 4 .b8 a0[8]; pr: .callprototype _ (.param .align 8 .b8 _[8]);", "call %rd1, (a0), pr;",
     "aligned to 4, an array) does not match prototype 'pr' (8 bytes, aligned to 8, an array)"},
    {".param .align 8 .b8 a0[8]; pr: .callprototype _ (.param .b64 _);", "call %rd1, (a0), pr;",
     "does not match prototype 'pr' (8 bytes, aligned to 8)"},
    {".param .b32 r0; pr: .callprototype (.param .b64 _) _ ;", "call (r0), %rd1, pr;",
     "result 1 of the call ('r0': 4 bytes, aligned to 4) does not match prototype 'pr'"},
    {".param .b32 a0;", "call %rd1, (a0);", "an indirect call needs a prototype, a .calltargets list or a call table"},
    {".param .b32 a0;", "call %rd1, (a0), nosuch;", "'nosuch' is not a .callprototype, a .calltargets list or a call table"},
    {".param .b32 a0; pr: .callprototype _ (.param .b32 _);", "call f, (a0), pr;",
     "a direct call takes no prototype or call targets"},
    {".param .b32 a0; tg: .calltargets f, data;", "call %rd1, (a0), tg;", "'data' in '.calltargets' tg is not a function"},
    {".param .b32 a0;", "call %rd1, (a0), data;", "call table 'data' holds no function addresses"},
    {".param .b32 a0;", "call 4660, (a0);", "call needs a function name or a register holding a function's address"},
    {".param .b32 a0; pr: .callprototype _ (.param .b32 _);", "call %rd1, (a0), pr, pr;", "too many operands for call"},
  };
  for (size_t i = 0; i < N(c); i++) {
    char ptx[1024];
    snprintf(ptx, sizeof ptx,
             ".version 8.0\n.target sm_90\n.address_size 64\n.global .u64 data[2] = {1, 2};\n"
             ".func f(.param .b32 x) { ret; }\n.visible .entry k(.param .u64 p)\n{\n.reg .b64 %%rd<2>;\n"
             "ld.param.u64 %%rd1, [p];\n{\n%s\n%s // HERE\n}\nret;\n}\n", c[i].decls, c[i].call);
    expect_load_error(ptx, "HERE", c[i].needle);
  }
}

/* PTX for GPUs newer than sm_90 (CuPy ships compute_120 PTX, numba emits .version 9.x) runs when warpvm
 * implements every instruction it uses; a valid one it does not run (tcgen05) refuses the launch naming it
 * and its line, an unknown one is a load error. */
static void test_newer_targets(void **state) {
  wv_vm *vm = *state;
  static const char *const heads[] = {"9.0 sm_100",  "8.6 sm_100a", "8.8 sm_100f", "8.6 sm_101", "8.8 sm_103",
                                      "9.0 sm_110f", "8.7 sm_120",  "9.5 sm_120a", "8.8 sm_121", "9.5 sm_90a"};
  for (size_t i = 0; i < N(heads); i++) {
    char ptx[1024];
    snprintf(ptx, sizeof ptx, ".version %.3s\n.target %s\n.address_size 64\n%s"
             "ld.param.u64 %%rd1, [p];\nmov.u32 %%r1, %%tid.x;\nmul.wide.u32 %%rd2, %%r1, 4;\nadd.s64 %%rd1, %%rd1, %%rd2;\n"
             "add.u32 %%r1, %%r1, %u;\nst.global.u32 [%%rd1], %%r1;\nret;\n}\n", heads[i], heads[i] + 4, KHEAD, (unsigned)i);
    const wv_kernel *k = wvt_kernel(vm, ptx, "k");
    static uint32_t out[32];
    wvt_buf b[1] = {{out, sizeof out}};
    wvt_run_ok(vm, k, 1, 32, 1, b);
    for (uint32_t t = 0; t < 32; t++) assert_int_equal(out[t], t + i);
  }
  static const char tc[] = ".version 9.0\n.target sm_100a\n.address_size 64\n" KHEAD
                           "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32; // HERE\nret;\n}\n";
  wv_devptr dp;
  assert_int_equal(wv_malloc(vm, 64, &dp), WV_OK);
  void *args[1] = {&dp};
  wv_status st = wv_launch(vm, wvt_kernel(vm, tc, "k"), wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args);
  wvt_assert_status(vm, st, WV_ERR_UNSUPPORTED);
  char want[32];
  snprintf(want, sizeof want, "test.ptx:%u:", wvt_line_of(tc, "HERE"));
  wvt_assert_contains(wv_last_error(vm), want);
  wvt_assert_contains(wv_last_error(vm), "tcgen05");
  assert_int_equal(wv_free(vm, dp), WV_OK);
  static const char bad[] = ".version 9.5\n.target sm_120a\n.address_size 64\n" KHEAD "tcgen99.alloc [%r1]; // HERE\nret;\n}\n";
  expect_load_error(bad, "HERE", "unknown instruction 'tcgen99'");
}

/* Valid PTX that warpvm does not run yet makes only the kernels that use it unlaunchable; it is never a load
 * error (issue 10's sweep found these were): SIMD .u16x2 arithmetic, two-source cvt packs, lop3 with a predicate
 * result, mixed-precision add. (st.async and red.async run now: exec/async.c; fma .oob too: halfoob.*.) */
static void test_valid_forms_are_deferred(void **state) {
  wv_vm *vm = *state;
  static const char *const forms[] = {"add.u16x2 %r1, %r2, %r3;", "min.s16x2 %r1, %r2, %r3;",
                                      "cvt.rn.satfinite.e2m1x2.f32 %r1, %f1, %f2;", "add.rn.f32.f16 %f1, %r1, %f2;",
                                      "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x80, %p0;"};
  for (size_t i = 0; i < N(forms); i++) {
    char ptx[1024];
    snprintf(ptx, sizeof ptx, ".version 8.0\n.target sm_90\n.address_size 64\n%s.reg .f32 %%f<4>;\n%s // HERE\nret;\n}\n"
             ".visible .entry ok()\n{\nret;\n}\n", KHEAD, forms[i]);
    wv_module *m = NULL;
    wv_status st = wv_module_load_string(vm, ptx, strlen(ptx), "d.ptx", &m);
    if (st != WV_OK) fail_msg("'%s' does not load: %s", forms[i], wv_last_error(vm));
    wvt_expect_ok(vm, wv_launch(vm, wvt_get(m, vm, "ok"), wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, NULL));
    wv_devptr dp;
    assert_int_equal(wv_malloc(vm, 64, &dp), WV_OK);
    void *args[1] = {&dp};
    st = wv_launch(vm, wvt_get(m, vm, "k"), wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args);
    wvt_assert_status(vm, st, WV_ERR_UNSUPPORTED);
    char want[32];
    snprintf(want, sizeof want, "d.ptx:%u:", wvt_line_of(ptx, "HERE"));
    wvt_assert_contains(wv_last_error(vm), want);
    assert_int_equal(wv_free(vm, dp), WV_OK);
    wv_module_unload(m);
  }
}

/* Error state is per call: a good load after a bad one succeeds, and the kernel lookup of a
 * missing name says which. */
static void test_errors_do_not_stick(void **state) {
  wv_vm *vm = *state;
  static const char bad[] = WVT_HDR KHEAD "bra NOWHERE;\n}\n";
  wv_module *m = NULL;
  assert_int_equal(wv_module_load_string(vm, bad, strlen(bad), "bad.ptx", &m), WV_ERR_PARSE);
  static const char good[] = WVT_HDR KHEAD "ret;\n}\n";
  assert_int_equal(wv_module_load_string(vm, good, strlen(good), "good.ptx", &m), WV_OK);
  const wv_kernel *k = NULL;
  assert_int_equal(wv_kernel_get(m, "nosuch", &k), WV_ERR_NOT_FOUND);
  wvt_assert_contains(wv_last_error(vm), "nosuch");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_undeclared_register),
      cmocka_unit_test(test_unknown_label),
      cmocka_unit_test(test_duplicate_label),
      cmocka_unit_test(test_unknown_opcode),
      cmocka_unit_test(test_unknown_modifier),
      cmocka_unit_test(test_misplaced_modifier),
      cmocka_unit_test(test_wrong_operand_count),
      cmocka_unit_test(test_predicate_as_value),
      cmocka_unit_test(test_operand_size_mismatch),
      cmocka_unit_test(test_huge_register_range),
      cmocka_unit_test(test_truncated_file),
      cmocka_unit_test(test_binary_garbage),
      cmocka_unit_test(test_mul_without_mode),
      cmocka_unit_test_setup_teardown(test_unsupported_instruction_is_deferred, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_errors_do_not_stick, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_hint_instructions, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_newer_targets, wvt_setup, wvt_teardown),
      cmocka_unit_test(test_indirect_call_errors),
      cmocka_unit_test(test_atom_noftz),
      cmocka_unit_test_setup_teardown(test_valid_forms_are_deferred, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
