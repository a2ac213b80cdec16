/*
 * test_link.c — PTX linking (wv_module_load_units): several units loaded as one module, as
 * `nvcc -rdc=true` programs need.
 *  - tests/ptx/link/link_a.ptx + link_b.ptx (nvcc 13, -rdc=true): a kernel of one unit calls the
 *    other's __device__ function and reads the __device__ variable the other's kernel wrote; each
 *    unit's printf strings ($str, $str$1), static variable `which` and static kernel `tag` stay its
 *    own, and wv_kernel_get / wv_module_symbol find them by their (unit-local) names;
 *  - weak definitions (a strong one wins, else the first), a unit-local function shadowing a
 *    visible one of the same name, .extern resolved to a definition in a later or earlier unit
 *    (also in an initializer);
 *  - link errors: undefined references (variables and functions), duplicate definitions, a name
 *    declared as a variable and defined as a function; parse and decode errors name the unit;
 *  - CUDA device-runtime functions warpvm provides run; the others are left undefined: only a kernel that
 *    calls one is refused;
 *  - n == 1 is wv_module_load_string (same names, same messages); bad arguments; mutated units
 *    (linkage rewritten, lines cut) never crash.
 */
#include "wv_test.h"

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

/* ---- fixture: a vm whose device printf output is captured ------------------------------------- */

typedef struct lt_state {
  wv_vm *vm;
  char out[4096];
  size_t nout;
} lt_state;

static void capture(void *user, const char *text, size_t len) {
  lt_state *s = user;
  size_t room = sizeof s->out - 1 - s->nout;
  if (len > room) len = room;
  memcpy(s->out + s->nout, text, len);
  s->nout += len;
  s->out[s->nout] = 0;
}

static int lt_setup(void **state) {
  lt_state *s = calloc(1, sizeof *s);
  if (!s) return -1;
  wv_config cfg = {.printf_out = capture, .printf_user = s};
  s->vm = wv_create(&cfg);
  *state = s;
  return s->vm ? 0 : -1;
}

static int lt_teardown(void **state) {
  lt_state *s = *state;
  wv_destroy(s->vm);
  free(s);
  *state = NULL;
  return 0;
}

/* ---- helpers ----------------------------------------------------------------------------------- */

/* tests/ptx/link/NAME into buf (NUL-terminated); returns its length. */
static size_t read_ptx(const char *name, char *buf, size_t cap) {
  const char *src = getenv("WV_SRC");
  assert_non_null(src);
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/ptx/link/%s", src, name);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  size_t n = fread(buf, 1, cap - 1, f);
  fclose(f);
  assert_true(n > 0 && n < cap - 1);
  buf[n] = 0;
  return n;
}

static char ptx_a[32768], ptx_b[32768];

static void read_ab(void) {
  read_ptx("link_a.ptx", ptx_a, sizeof ptx_a);
  read_ptx("link_b.ptx", ptx_b, sizeof ptx_b);
}

/* Loads n NUL-terminated texts as one module named "link.ptx". */
static wv_status load_units(wv_vm *vm, const char *const *texts, uint32_t n, wv_module **m) {
  size_t lens[8];
  assert_true(n <= 8);
  for (uint32_t i = 0; i < n; i++) lens[i] = strlen(texts[i]);
  *m = NULL;
  return wv_module_load_units(vm, texts, lens, n, "link.ptx", m);
}

static wv_module *load_ok(wv_vm *vm, const char *const *texts, uint32_t n) {
  wv_module *m;
  wv_status st = load_units(vm, texts, n, &m);
  if (st != WV_OK) fail_msg("units do not link (%s): %s", wv_status_name(st), wv_last_error(vm));
  assert_non_null(m);
  return m;
}

/* Loading must fail with status `want` and exactly the message `msg`. */
static void load_fails(wv_vm *vm, const char *const *texts, uint32_t n, wv_status want, const char *msg) {
  wv_module *m;
  wvt_assert_status(vm, load_units(vm, texts, n, &m), want);
  assert_null(m);
  assert_string_equal(wv_last_error(vm), msg);
}

/* The identifier in text that starts with prefix and ends with suffix (a mangled static name). */
static void find_name(const char *text, const char *prefix, const char *suffix, char *out, size_t cap) {
  for (const char *p = strstr(text, prefix); p; p = strstr(p + 1, prefix)) {
    size_t n = strcspn(p, " \t\n;,()[]=");
    size_t k = strlen(suffix);
    if (n >= k && n < cap && !memcmp(p + n - k, suffix, k)) {
      memcpy(out, p, n);
      out[n] = 0;
      return;
    }
  }
  fail_msg("no name %s...%s", prefix, suffix);
}

static uint32_t dev_u32(wv_vm *vm, wv_devptr p) {
  uint32_t v = 0;
  assert_int_equal(wv_memcpy_dtoh(vm, &v, p, 4), WV_OK);
  return v;
}

/* ---- nvcc's units -------------------------------------------------------------------------------- */

/* a_write (link_a) stores a_var; b_read (link_b) reads it and calls a_func, both defined in link_a. */
static void test_cross_unit_call_and_variable(void **state) {
  lt_state *s = *state;
  read_ab();
  const char *units[] = {ptx_a, ptx_b};
  wv_module *m = load_ok(s->vm, units, 2);
  assert_non_null(strstr(ptx_b, ".extern .func  (.param .b32 func_retval0) _Z6a_funcii"));
  assert_non_null(strstr(ptx_b, ".extern .global .align 4 .u32 a_var;"));
  unsigned v = 4242;
  void *wargs[] = {&v};
  wvt_expect_ok(s->vm, wv_launch(s->vm, wvt_get(m, s->vm, "_Z7a_writej"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, wargs));
  wv_devptr var;
  size_t bytes;
  assert_int_equal(wv_module_symbol(m, "a_var", &var, &bytes), WV_OK);
  assert_int_equal(bytes, 4);
  assert_int_equal(dev_u32(s->vm, var), 4242);

  wv_devptr out;
  assert_int_equal(wv_malloc(s->vm, 8, &out), WV_OK);
  int x = 3;
  void *rargs[] = {&out, &x};
  wvt_expect_ok(s->vm, wv_launch(s->vm, wvt_get(m, s->vm, "_Z6b_readPji"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, rargs));
  assert_int_equal(dev_u32(s->vm, out), 4242);   /* a_var, written by link_a's kernel */
  assert_int_equal(dev_u32(s->vm, out + 4), 37); /* a_func(3, 7) = 3 * 10 + 7 */
  assert_string_equal(s->out, "a: wrote 4242\nb: read 4242\n"); /* each unit's own $str */

  /* the host's view of a_var is the same variable */
  unsigned nv = 7;
  assert_int_equal(wv_memcpy_htod(s->vm, var, &nv, 4), WV_OK);
  wvt_expect_ok(s->vm, wv_launch(s->vm, wvt_get(m, s->vm, "_Z6b_readPji"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, rargs));
  assert_int_equal(dev_u32(s->vm, out), 7);
  assert_int_equal(wv_free(s->vm, out), WV_OK);
  assert_int_equal(wv_module_kernel_count(m), 4); /* a_write, a's tag, b_read, b's tag */
}

/* Both units have `$str` and `$str$1`, a static `which` and a static kernel `tag`: each keeps its own. */
static void test_unit_local_names(void **state) {
  lt_state *s = *state;
  read_ab();
  for (int u = 0; u < 2; u++) {
    const char *t = u ? ptx_b : ptx_a;
    assert_non_null(strstr(t, ".global .align 1 .b8 $str["));
    assert_non_null(strstr(t, ".global .align 1 .b8 $str$1["));
  }
  const char *units[] = {ptx_a, ptx_b};
  wv_module *m = load_ok(s->vm, units, 2);
  wv_devptr out;
  assert_int_equal(wv_malloc(s->vm, 8, &out), WV_OK);
  void *args[] = {&out};
  for (int u = 0; u < 2; u++) {
    const char *t = u ? ptx_b : ptx_a;
    char kname[256], vname[256];
    find_name(t, "__nv_static_", "__Z3tagPi", kname, sizeof kname);
    find_name(t, "__nv_static_", "_which", vname, sizeof vname);
    const wv_kernel *k = wvt_get(m, s->vm, kname);
    assert_string_equal(wv_kernel_name(k), kname);
    wv_devptr which;
    size_t bytes;
    assert_int_equal(wv_module_symbol(m, vname, &which, &bytes), WV_OK);
    assert_int_equal(dev_u32(s->vm, which), u + 1);
    wvt_expect_ok(s->vm, wv_launch(s->vm, k, wvt_dim(1, 1, 1), wvt_dim(2, 1, 1), 0, args));
    assert_int_equal(dev_u32(s->vm, out), (u + 1) * 100);
    assert_int_equal(dev_u32(s->vm, out + 4), (u + 1) * 100 + 1);
  }
  assert_string_equal(s->out, "a: tag 0 of 1\na: tag 1 of 1\nb: tag 0 of 2\nb: tag 1 of 2\n");
  /* a name several units have: the first unit's */
  wv_devptr str;
  size_t bytes;
  assert_int_equal(wv_module_symbol(m, "$str", &str, &bytes), WV_OK);
  assert_int_equal(bytes, 13); /* "a: wrote %u\n" */
  assert_int_equal(wv_free(s->vm, out), WV_OK);
}

/* The definitions may come after the unit that refers to them. */
static void test_extern_in_earlier_unit(void **state) {
  lt_state *s = *state;
  read_ab();
  const char *units[] = {ptx_b, ptx_a};
  wv_module *m = load_ok(s->vm, units, 2);
  wv_devptr out, var;
  assert_int_equal(wv_malloc(s->vm, 8, &out), WV_OK);
  assert_int_equal(wv_module_symbol(m, "a_var", &var, NULL), WV_OK);
  unsigned v = 99;
  assert_int_equal(wv_memcpy_htod(s->vm, var, &v, 4), WV_OK);
  int x = -2;
  void *args[] = {&out, &x};
  wvt_expect_ok(s->vm, wv_launch(s->vm, wvt_get(m, s->vm, "_Z6b_readPji"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args));
  assert_int_equal(dev_u32(s->vm, out), 99);
  assert_int_equal(dev_u32(s->vm, out + 4), (uint32_t)-13);
  assert_int_equal(wv_free(s->vm, out), WV_OK);
}

/* ---- hand-written units ------------------------------------------------------------------------- */

/* A kernel `NAME(.param .u64 out)` storing the u32 that `call` leaves in %r1. */
#define STORE_KERNEL(name, body)                                                                                   \
  ".visible .entry " name "(.param .u64 out)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n" body                      \
  "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\nst.global.u32 [%rd1], %r1;\nret;\n}\n"
#define CALL_INTO_R1(fn)                                                                                           \
  "{\n.param .b32 rv;\ncall.uni (rv), " fn ";\nld.param.b32 %r1, [rv];\n}\n"
#define FUNC_RETURNING(linkage, name, value)                                                                       \
  linkage " .func (.param .b32 rv) " name "()\n{\nst.param.b32 [rv], " value ";\nret;\n}\n"

static uint32_t run_store(wv_vm *vm, wv_module *m, const char *kernel) {
  wv_devptr out;
  assert_int_equal(wv_malloc(vm, 4, &out), WV_OK);
  void *args[] = {&out};
  wvt_expect_ok(vm, wv_launch(vm, wvt_get(m, vm, kernel), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args));
  uint32_t v = dev_u32(vm, out);
  assert_int_equal(wv_free(vm, out), WV_OK);
  return v;
}

/* A strong definition replaces weak ones in any unit; of weak ones only, the first unit's wins. */
static void test_weak_definitions(void **state) {
  lt_state *s = *state;
  const char *u0 = HDR FUNC_RETURNING(".weak", "pick", "1") FUNC_RETURNING(".weak", "first", "10")
      ".weak .global .align 4 .u32 wv = 5;\n"
      STORE_KERNEL("k0", CALL_INTO_R1("pick"))
      STORE_KERNEL("k0b", CALL_INTO_R1("first"))
      STORE_KERNEL("k0v", "ld.global.u32 %r1, [wv];\n");
  const char *u1 = HDR FUNC_RETURNING(".visible", "pick", "2") FUNC_RETURNING(".weak", "first", "20")
      ".visible .global .align 4 .u32 wv = 6;\n"
      STORE_KERNEL("k1", CALL_INTO_R1("pick"))
      STORE_KERNEL("k1b", CALL_INTO_R1("first"));
  const char *u2 = HDR ".extern .func (.param .b32 rv) pick();\n.extern .global .align 4 .u32 wv;\n"
      ".global .align 8 .u64 pwv = generic(wv);\n"
      STORE_KERNEL("k2", CALL_INTO_R1("pick"))
      STORE_KERNEL("k2v", "ld.global.u32 %r1, [wv];\n");
  const char *units[] = {u0, u1, u2};
  wv_module *m = load_ok(s->vm, units, 3);
  assert_int_equal(run_store(s->vm, m, "k0"), 2);
  assert_int_equal(run_store(s->vm, m, "k1"), 2);
  assert_int_equal(run_store(s->vm, m, "k2"), 2);
  assert_int_equal(run_store(s->vm, m, "k0b"), 10);
  assert_int_equal(run_store(s->vm, m, "k1b"), 10);
  assert_int_equal(run_store(s->vm, m, "k0v"), 6);
  assert_int_equal(run_store(s->vm, m, "k2v"), 6);
  wv_devptr a;
  size_t bytes;
  assert_int_equal(wv_module_symbol(m, "wv", &a, &bytes), WV_OK);
  assert_int_equal(dev_u32(s->vm, a), 6);
  /* an initializer naming another unit's variable */
  wv_devptr p, pv = 0;
  assert_int_equal(wv_module_symbol(m, "pwv", &p, &bytes), WV_OK);
  assert_int_equal(wv_memcpy_dtoh(s->vm, &pv, p, 8), WV_OK);
  assert_int_equal(pv, a);
}

/* A unit's own (non-visible) function shadows a visible one of the same name in another unit. */
static void test_local_shadows_visible(void **state) {
  lt_state *s = *state;
  const char *u0 = HDR FUNC_RETURNING("", "helper", "5") STORE_KERNEL("k0", CALL_INTO_R1("helper"));
  const char *u1 = HDR FUNC_RETURNING(".visible", "helper", "6") STORE_KERNEL("k1", CALL_INTO_R1("helper"));
  const char *u2 = HDR ".extern .func (.param .b32 rv) helper();\n" STORE_KERNEL("k2", CALL_INTO_R1("helper"));
  const char *units[] = {u0, u1, u2};
  wv_module *m = load_ok(s->vm, units, 3);
  assert_int_equal(run_store(s->vm, m, "k0"), 5);
  assert_int_equal(run_store(s->vm, m, "k1"), 6);
  assert_int_equal(run_store(s->vm, m, "k2"), 6);
}

static void test_undefined_reference(void **state) {
  lt_state *s = *state;
  read_ab();
  const char *empty = HDR;
  /* link_b without link_a: a_var is the first unresolved .extern */
  const char *units[] = {empty, ptx_b};
  char want[256];
  const char *decl = ".extern .global .align 4 .u32 a_var;";
  snprintf(want, sizeof want, "link.ptx(unit1):%u:%u: error: undefined reference to 'a_var'", wvt_line_of(ptx_b, decl),
           wvt_col_of(ptx_b, decl) + (unsigned)strlen(".extern .global .align 4 .u32 "));
  load_fails(s->vm, units, 2, WV_ERR_PARSE, want);

  /* a function */
  const char *u0 = HDR ".extern .func (.param .b32 rv) missing();\n" STORE_KERNEL("k", CALL_INTO_R1("missing"));
  const char *two[] = {u0, empty};
  snprintf(want, sizeof want, "link.ptx(unit0):%u:%u: error: undefined reference to 'missing'",
           wvt_line_of(u0, ".extern .func"), wvt_col_of(u0, ".func"));
  load_fails(s->vm, two, 2, WV_ERR_PARSE, want);

  /* a non-visible definition in another unit does not count */
  const char *hidden = HDR FUNC_RETURNING("", "missing", "1");
  const char *three[] = {u0, hidden};
  load_fails(s->vm, three, 2, WV_ERR_PARSE, want);

  /* a variable declared in one unit, a function of that name in another */
  const char *uv = HDR ".extern .global .align 4 .u32 thing;\n";
  const char *uf = HDR FUNC_RETURNING(".visible", "thing", "1");
  const char *mix[] = {uv, uf};
  snprintf(want, sizeof want,
           "link.ptx(unit0):%u:%u: error: 'thing' is declared as a variable but defined as a function at "
           "link.ptx(unit1):%u:%u",
           wvt_line_of(uv, "thing"), wvt_col_of(uv, "thing"), wvt_line_of(uf, ".func"), wvt_col_of(uf, ".func"));
  load_fails(s->vm, mix, 2, WV_ERR_PARSE, want);

  /* the vm is intact after failed links */
  const char *good[] = {ptx_a, ptx_b};
  load_ok(s->vm, good, 2);
}

static void test_duplicate_definition(void **state) {
  lt_state *s = *state;
  read_ab();
  const char *units[] = {ptx_a, ptx_b, ptx_a};
  char want[512];
  const char *decl = ".visible .global .align 4 .u32 a_var;";
  unsigned line = wvt_line_of(ptx_a, decl), col = wvt_col_of(ptx_a, decl) + (unsigned)strlen(".visible .global .align 4 .u32 ");
  snprintf(want, sizeof want,
           "link.ptx(unit2):%u:%u: error: duplicate definition of 'a_var' (first defined at link.ptx(unit0):%u:%u)", line,
           col, line, col);
  load_fails(s->vm, units, 3, WV_ERR_PARSE, want);

  /* functions; a weak and a strong definition are fine, two strong ones are not */
  const char *f0 = HDR "\n" FUNC_RETURNING(".visible", "f", "1");
  const char *f1 = HDR FUNC_RETURNING(".weak", "f", "2");
  const char *f2 = HDR FUNC_RETURNING(".visible", "f", "3");
  const char *fs[] = {f0, f1, f2};
  snprintf(want, sizeof want, "link.ptx(unit2):%u:%u: error: duplicate definition of 'f' (first defined at link.ptx(unit0):%u:%u)",
           wvt_line_of(f2, ".func"), wvt_col_of(f2, ".func"), wvt_line_of(f0, ".func"), wvt_col_of(f0, ".func"));
  load_fails(s->vm, fs, 3, WV_ERR_PARSE, want);
  /* a visible kernel is global too */
  const char *k0 = HDR STORE_KERNEL("k", "mov.u32 %r1, 1;\n");
  const char *ks[] = {k0, k0};
  snprintf(want, sizeof want, "link.ptx(unit1):%u:%u: error: duplicate definition of 'k' (first defined at link.ptx(unit0):%u:%u)",
           wvt_line_of(k0, ".entry"), wvt_col_of(k0, ".entry"), wvt_line_of(k0, ".entry"), wvt_col_of(k0, ".entry"));
  load_fails(s->vm, ks, 2, WV_ERR_PARSE, want);
  /* within one unit the message is the one wv_module_load_string gives */
  const char *twice = HDR FUNC_RETURNING(".visible", "g", "1") FUNC_RETURNING(".visible", "g", "2");
  const char *one[] = {HDR, twice};
  snprintf(want, sizeof want, "link.ptx(unit1):%u:%u: error: redefinition of function 'g'", wvt_line_of(twice, ".func") + 5,
           wvt_col_of(twice, ".func")); /* the second of two 5-line functions */
  load_fails(s->vm, one, 2, WV_ERR_PARSE, want);
}

/* Parse and decode errors name the unit. */
static void test_errors_name_the_unit(void **state) {
  lt_state *s = *state;
  read_ab();
  const char *bad = HDR "\n.visible .entry k()\n{\n  frobnicate.u32 %r1;\n}\n";
  const char *units[] = {ptx_a, ptx_b, bad};
  wv_module *m;
  wv_status st = load_units(s->vm, units, 3, &m);
  assert_true(st == WV_ERR_PARSE);
  char want[64];
  snprintf(want, sizeof want, "link.ptx(unit2):%u:", wvt_line_of(bad, "frobnicate"));
  assert_true(!strncmp(wv_last_error(s->vm), want, strlen(want)));

  const char *garbage = "this is not PTX";
  const char *g[] = {ptx_a, garbage};
  st = load_units(s->vm, g, 2, &m);
  assert_true(st == WV_ERR_PARSE);
  assert_true(!strncmp(wv_last_error(s->vm), "link.ptx(unit1):1:1: error: ", 28));

  /* a fault report names the unit of the faulting instruction */
  const char *fault = HDR "\n.visible .entry boom()\n{\n.reg .b32 %r1;\nld.global.u32 %r1, [0];\nret;\n}\n";
  const char *f[] = {ptx_a, fault};
  m = load_ok(s->vm, f, 2);
  st = wv_launch(s->vm, wvt_get(m, s->vm, "boom"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, NULL);
  assert_int_equal(st, WV_ERR_FAULT);
  snprintf(want, sizeof want, "PTX line %u of link.ptx(unit1)", wvt_line_of(fault, "ld.global"));
  wvt_assert_contains(wv_last_error(s->vm), want);
}

/* CUDA's device runtime is not in any unit: warpvm provides most of it (cudaGetLastError returns the
 * thread's last error, cudaSuccess here); a kernel calling one of the rest (cudaCGGetIntrinsicHandle) is
 * refused at launch, the others run. */
static void test_device_runtime_left_undefined(void **state) {
  lt_state *s = *state;
  const char *u0 = HDR ".extern .func (.param .b32 rv) __cudaCDP2GetLastError();\n"
      ".extern .func (.param .b32 rv) cudaCGGetIntrinsicHandle();\n"
      STORE_KERNEL("cdp", CALL_INTO_R1("__cudaCDP2GetLastError")) STORE_KERNEL("cg", CALL_INTO_R1("cudaCGGetIntrinsicHandle"))
      STORE_KERNEL("plain", "mov.u32 %r1, 8;\n");
  const char *units[] = {u0, HDR};
  wv_module *m = load_ok(s->vm, units, 2);
  assert_int_equal(run_store(s->vm, m, "plain"), 8);
  assert_int_equal(run_store(s->vm, m, "cdp"), 0);
  wv_devptr out;
  assert_int_equal(wv_malloc(s->vm, 4, &out), WV_OK);
  void *args[] = {&out};
  wvt_assert_status(s->vm, wv_launch(s->vm, wvt_get(m, s->vm, "cg"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args),
                    WV_ERR_UNSUPPORTED);
  wvt_assert_contains(wv_last_error(s->vm), "unsupported call to external function 'cudaCGGetIntrinsicHandle'");
  wvt_assert_contains(wv_last_error(s->vm), "link.ptx(unit0):");
  assert_int_equal(wv_free(s->vm, out), WV_OK);
}

/* One unit is wv_module_load_string: the module's name, its messages, an .extern left unresolved. */
static void test_single_unit(void **state) {
  lt_state *s = *state;
  const char *u0 = HDR ".extern .func (.param .b32 rv) missing();\n" STORE_KERNEL("k", CALL_INTO_R1("missing"))
      STORE_KERNEL("plain", "mov.u32 %r1, 8;\n");
  const char *units[] = {u0};
  wv_module *m = load_ok(s->vm, units, 1);
  assert_int_equal(run_store(s->vm, m, "plain"), 8);
  const wv_kernel *k = NULL;
  assert_int_equal(wv_kernel_get(m, "nope", &k), WV_ERR_NOT_FOUND);
  assert_string_equal(wv_last_error(s->vm), "no kernel named 'nope' in link.ptx");
  const char *ev = HDR ".extern .global .align 4 .u32 x;\n";
  const char *one[] = {ev};
  char want[128];
  snprintf(want, sizeof want, "link.ptx:%u:%u: error: external variable 'x' is not defined in this module",
           wvt_line_of(ev, " x;"), wvt_col_of(ev, " x;") + 1);
  load_fails(s->vm, one, 1, WV_ERR_PARSE, want);
  wv_module *m2 = NULL;
  assert_int_equal(wv_module_load_string(s->vm, ev, strlen(ev), "link.ptx", &m2), WV_ERR_PARSE);
  assert_string_equal(wv_last_error(s->vm), want);
  /* several units: the module's name has no unit */
  const char *two[] = {HDR, HDR};
  m = load_ok(s->vm, two, 2);
  assert_int_equal(wv_kernel_get(m, "nope", &k), WV_ERR_NOT_FOUND);
  assert_string_equal(wv_last_error(s->vm), "no kernel named 'nope' in link.ptx");
}

static void test_bad_arguments(void **state) {
  lt_state *s = *state;
  const char *texts[] = {HDR, NULL};
  size_t lens[] = {strlen(HDR), 0};
  wv_module *m = (wv_module *)1;
  assert_int_equal(wv_module_load_units(s->vm, texts, lens, 0, "x", &m), WV_ERR_INVALID);
  assert_null(m);
  assert_int_equal(wv_module_load_units(s->vm, texts, lens, 2, "x", &m), WV_ERR_INVALID);
  assert_int_equal(wv_module_load_units(s->vm, NULL, lens, 1, "x", &m), WV_ERR_INVALID);
  assert_int_equal(wv_module_load_units(s->vm, texts, NULL, 1, "x", &m), WV_ERR_INVALID);
  assert_int_equal(wv_module_load_units(NULL, texts, lens, 1, "x", &m), WV_ERR_INVALID);
  assert_int_equal(wv_module_load_units(s->vm, texts, lens, 1, "x", NULL), WV_ERR_INVALID);
  /* a NULL name and lengths that stop inside the text */
  const char *cut[] = {HDR "garbage", HDR "more garbage"};
  size_t cutlens[] = {strlen(HDR), strlen(HDR)};
  assert_int_equal(wv_module_load_units(s->vm, cut, cutlens, 2, NULL, &m), WV_OK);
  assert_non_null(m);
  wv_module_unload(m);
}

/* ---- bad input ------------------------------------------------------------------------------------ */

static unsigned next_rand(unsigned *s) { /* xorshift32 */
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* Rewrites one linkage directive in place (same length), cuts a line or flips bytes. */
static void mutate(char *b, size_t *n, unsigned *s) {
  static const char *const nine[] = {".visible ", ".weak    ", ".extern  ", "         ", ".common  "};
  size_t at = next_rand(s) % *n;
  switch (next_rand(s) % 4) {
  case 0:
  case 1: {
    const char *p = strstr(b + at, ".visible ");
    const char *q = strstr(b + at, ".extern ");
    char *w = (char *)(p && (!q || p < q) ? p : q);
    if (!w) w = strstr(b, ".visible ");
    if (w) memcpy(w, nine[next_rand(s) % 5], w[1] == 'v' ? 9 : 8);
    break;
  }
  case 2: {
    char *e = strchr(b + at, '\n');
    char *l = b + at;
    while (l > b && l[-1] != '\n') l--;
    if (e) {
      memmove(l, e + 1, (size_t)(b + *n - (e + 1)) + 1);
      *n -= (size_t)(e + 1 - l);
    }
    break;
  }
  default:
    for (int k = 0; k < 3; k++) b[next_rand(s) % *n] = "%;,[]{}.$_"[next_rand(s) % 10];
    break;
  }
}

static void quiet(void *u, const char *t, size_t n) { (void)u, (void)t, (void)n; }

/* Units with linkage rewritten and lines cut never crash: a load fails with one well-formed message
 * naming a unit, or every kernel of the module launches to some status. */
static void test_mutated_units(void **state) {
  (void)state;
  read_ab();
  static char buf[3][32768];
  unsigned seed = 88172645u;
  int loaded = 0, failed = 0;
  for (int it = 0; it < 400; it++) {
    uint32_t n = 2 + next_rand(&seed) % 2, flip = next_rand(&seed) % 2;
    const char *texts[3];
    size_t lens[3];
    for (uint32_t u = 0; u < n; u++) {
      const char *src = (u == 2 ? next_rand(&seed) : u ^ flip) % 2 ? ptx_b : ptx_a; /* a and b, in either order */
      lens[u] = strlen(src);
      memcpy(buf[u], src, lens[u] + 1);
      for (unsigned k = next_rand(&seed) % 3; k > 0; k--) mutate(buf[u], &lens[u], &seed);
      texts[u] = buf[u];
    }
    wv_config cfg = {.max_steps = 20000, .printf_out = quiet};
    wv_vm *vm = wv_create(&cfg);
    assert_non_null(vm);
    wv_module *m;
    wv_status st = wv_module_load_units(vm, texts, lens, n, "link.ptx", &m);
    if (st != WV_OK) {
      unsigned unit, line, col;
      char word[8];
      failed++;
      if (sscanf(wv_last_error(vm), "link.ptx(unit%u):%u:%u: %6s", &unit, &line, &col, word) != 4 || unit >= n ||
          strcmp(word, "error:"))
        fail_msg("iteration %d: malformed message: %s", it, wv_last_error(vm));
    } else {
      loaded++;
      for (uint32_t i = 0; i < wv_module_kernel_count(m); i++) {
        const wv_kernel *k = wv_module_kernel_at(m, i);
        uint32_t np = wv_kernel_param_count(k);
        wv_devptr d[4];
        void *args[4];
        if (np > 4) continue;
        for (uint32_t p = 0; p < np; p++) {
          assert_int_equal(wv_malloc(vm, 64, &d[p]), WV_OK);
          args[p] = &d[p];
        }
        st = wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(2, 1, 1), 0, args);
        if (st != WV_OK) assert_true(wv_last_error(vm)[0] != 0);
      }
    }
    wv_destroy(vm);
  }
  assert_true(loaded > 0 && failed > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_cross_unit_call_and_variable, lt_setup, lt_teardown),
    cmocka_unit_test_setup_teardown(test_unit_local_names, lt_setup, lt_teardown),
    cmocka_unit_test_setup_teardown(test_extern_in_earlier_unit, lt_setup, lt_teardown),
    cmocka_unit_test_setup_teardown(test_weak_definitions, lt_setup, lt_teardown),
    cmocka_unit_test_setup_teardown(test_local_shadows_visible, lt_setup, lt_teardown),
    cmocka_unit_test_setup_teardown(test_undefined_reference, lt_setup, lt_teardown),
    cmocka_unit_test_setup_teardown(test_duplicate_definition, lt_setup, lt_teardown),
    cmocka_unit_test_setup_teardown(test_errors_name_the_unit, lt_setup, lt_teardown),
    cmocka_unit_test_setup_teardown(test_device_runtime_left_undefined, lt_setup, lt_teardown),
    cmocka_unit_test_setup_teardown(test_single_unit, lt_setup, lt_teardown),
    cmocka_unit_test_setup_teardown(test_bad_arguments, lt_setup, lt_teardown),
    cmocka_unit_test(test_mutated_units),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
