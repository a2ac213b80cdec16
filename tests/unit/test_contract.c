/*
 * test_contract.c — FMA contraction (src/ir/contract.c, docs/CONTRACTION.md):
 *   - which mul/add pairs warpvm fuses in tests/contract/cases.ptx (one rule per kernel) is exactly what
 *     ptxas 13.0 does with them at sm_80 and sm_90: tests/contract/cases.ptxas.txt records the FFMA/DFMA,
 *     FADD/DADD and FMUL/DMUL ptxas writes for each PTX line (tests/contract/check.sh --observe);
 *   - a fused pair computes fma, rounded once: against the host's fmaf/fma for every form (a*b+c, c+a*b,
 *     a*b-c, c-a*b, through neg and mov, f32 and f64), and against warpvm's own fma.rn with the same
 *     modifiers for .ftz and .sat; the pairs of div.approx/div.full/rcp.approx against their unit result;
 *   - a source the PTX overwrites between the mul and its add, in the block or in a loop, still gives the
 *     mul's value; wv_config.no_contract runs each instruction as written, rounded twice.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t fb(float f) { return wvt_f2u(f); }
static float fv(uint64_t u) { return wvt_u2f((uint32_t)u); }
static uint64_t canon(float r) { return r != r ? 0x7fffffffu : fb(r); }

/* ---- the decisions, against ptxas --------------------------------------------------------------- */

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
  if (b) b[n] = 0;
  fclose(f);
  return b;
}

#define MAXLINE 4096
typedef struct verdict { char kind[8], what[12]; } verdict; /* warpvm's word for each PTX line */

static void decisions_match_ptxas(void **state) {
  wv_vm *vm = *state;
  const char *src = getenv("WV_SRC");
  if (!src) skip();
  char ptx[1024], obs[1024];
  snprintf(ptx, sizeof ptx, "%s/tests/contract/cases.ptx", src);
  snprintf(obs, sizeof obs, "%s/tests/contract/cases.ptxas.txt", src);
  wv_module *m = NULL;
  if (wv_module_load_file(vm, ptx, &m) != WV_OK) fail_msg("%s", wv_last_error(vm));
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  assert_non_null(mem);
  assert_int_equal(wv_module_print_contractions(vm, m, mem), WV_OK);
  fclose(mem);
  static verdict wv[MAXLINE];
  memset(wv, 0, sizeof wv);
  for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
    unsigned line;
    char kind[8], what[12];
    const char *p = strstr(l, ".ptx:");
    if (p && sscanf(p + 5, "%u: %7s %11[a-z]", &line, kind, what) == 3 && line < MAXLINE) {
      memcpy(wv[line].kind, kind, sizeof kind);
      memcpy(wv[line].what, what, sizeof what);
    }
  }
  free(text);
  char *o = slurp(obs);
  assert_non_null(o);
  int adds = 0, fused = 0, muls = 0, bad = 0;
  for (char *l = strtok(o, "\n"); l; l = strtok(NULL, "\n")) {
    unsigned line, fma, add, mul;
    char arch[8], op[16];
    if (l[0] == '#' || sscanf(l, "%u %7s %u %u %u %15s", &line, arch, &fma, &add, &mul, op) != 6 || line >= MAXLINE) continue;
    const verdict *v = &wv[line];
    if ((!strncmp(op, "add", 3) || !strncmp(op, "sub", 3)) && !v->kind[0] && fma == 0) {
      continue; /* add.rn and the like: never contractible, and ptxas did not fuse it */
    } else if (!strncmp(op, "add", 3) || !strncmp(op, "sub", 3)) {
      adds++;
      int want_fma = fma > 0 && add == 0, want_add = add > 0 && fma == 0;
      fused += want_fma;
      if (!(want_fma && !strcmp(v->what, "fma")) && !(want_add && !strcmp(v->what, "separate"))) {
        print_error("  cases.ptx:%u (%s): ptxas wrote %u FFMA, %u FADD; warpvm says '%s %s'\n", line, arch, fma, add,
                    v->kind, v->what);
        bad++;
      }
    } else if (!strncmp(op, "mul", 3) && !strcmp(v->kind, "mul")) {
      muls++;
      int kept = !strcmp(v->what, "kept") || !strcmp(v->what, "partly");
      if (kept != (mul > 0)) {
        print_error("  cases.ptx:%u (%s): ptxas wrote %u FMUL; warpvm says 'mul %s'\n", line, arch, mul, v->what);
        bad++;
      }
    }
  }
  free(o);
  print_message("  %d adds/subs (%d fused) and %d muls compared with ptxas\n", adds, fused, muls);
  assert_true(adds >= 150 && fused >= 90 && muls >= 50); /* both architectures' lines */
  assert_int_equal(bad, 0);
}

/* ---- the values ----------------------------------------------------------------------------------- */

/* Random finite f32 (exponents -30..30) as 64-bit slots, with the host's reference r(a, b, c) as want. */
typedef float (*ref3)(float a, float b, float c);
static void check_f32(wv_vm *vm, const char *snippet, ref3 r) {
  static wvt_case cs[512];
  uint64_t s = 0x1234567;
  for (size_t i = 0; i < N(cs); i++) {
    float x[3];
    for (int k = 0; k < 3; k++) {
      uint64_t v = wvt_rand(&s);
      x[k] = ldexpf((float)(v >> 40) / 16777216.0f + 1.0f, (int)(v % 61) - 30) * ((v >> 20 & 1) ? -1.f : 1.f);
    }
    if (i < 4) { /* where one rounding and two differ: (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24, not 0 */
      x[0] = x[1] = 1.0f + 0x1p-12f;
      x[2] = -(1.0f + 0x1p-11f);
    }
    cs[i] = (wvt_case){fb(x[0]), fb(x[1]), fb(x[2]), canon(r(x[0], x[1], x[2]))};
  }
  wvt_check_ops(vm, snippet, 'f', cs, N(cs));
}
static float r_fma(float a, float b, float c) { return fmaf(a, b, c); }
static float r_fms(float a, float b, float c) { return fmaf(a, b, -c); }
static float r_nfma(float a, float b, float c) { return fmaf(-a, b, c); }
static float r_two(float a, float b, float c) { return (float)(a * b) + c; } /* (float)(a * b): rounded first */

static void fused_forms(void **state) {
  wv_vm *vm = *state;
  check_f32(vm, "mul.f32 %f0, %fa, %fb;\nadd.f32 %fd, %f0, %fc;", r_fma);
  check_f32(vm, "mul.f32 %f0, %fa, %fb;\nadd.f32 %fd, %fc, %f0;", r_fma);
  check_f32(vm, "mul.f32 %f0, %fa, %fb;\nsub.f32 %fd, %f0, %fc;", r_fms);
  check_f32(vm, "mul.f32 %f0, %fa, %fb;\nsub.f32 %fd, %fc, %f0;", r_nfma);
  check_f32(vm, "mul.f32 %f0, %fa, %fb;\nneg.f32 %f1, %f0;\nadd.f32 %fd, %f1, %fc;", r_nfma);
  check_f32(vm, "mul.f32 %f0, %fa, %fb;\nneg.f32 %f1, %f0;\nsub.f32 %fd, %fc, %f1;", r_fma);
  check_f32(vm, "mul.f32 %f0, %fa, %fb;\nmov.b32 %t0, %f0;\nmov.b32 %f1, %t0;\nadd.f32 %fd, %fc, %f1;", r_fma);
}

/* The two-add case above: (a*b + c) - (a*b - c), each fused: fmaf(a,b,c) - fmaf(a,b,-c), rounded. */
static float r_twoadds(float a, float b, float c) { return fmaf(a, b, c) - fmaf(a, b, -c); }
static void every_use_fused(void **state) {
  check_f32(*state, "mul.f32 %f0, %fa, %fb;\nadd.f32 %f1, %f0, %fc;\nsub.f32 %f2, %f0, %fc;\nsub.f32 %fd, %f1, %f2;", r_twoadds);
  /* the product also stored (a use that is no add): rounded twice, as ptxas leaves it */
  check_f32(*state, "mul.f32 %f0, %fa, %fb;\nadd.f32 %f1, %f0, %fc;\nmov.b32 %t0, %f0;\nxor.b32 %t0, %t0, %t0;\n"
                    "mov.b32 %f2, %t0;\nadd.f32 %fd, %f1, %f2;", r_two);
}

static void f64_forms(void **state) {
  wv_vm *vm = *state;
  static wvt_case cs[256];
  uint64_t s = 99;
  for (size_t k = 0; k < 2; k++) {
    for (size_t i = 0; i < N(cs); i++) {
      double x[3];
      for (int j = 0; j < 3; j++) {
        uint64_t v = wvt_rand(&s);
        x[j] = ldexp((double)(v >> 11) / 0x1p53 + 1.0, (int)(v % 41) - 20) * ((v & 1) ? -1 : 1);
      }
      if (i == 0) { x[0] = x[1] = 1.0 + 0x1p-27; x[2] = -(1.0 + 0x1p-26); }
      double want = k ? fma(-x[0], x[1], x[2]) : fma(x[0], x[1], x[2]);
      cs[i] = (wvt_case){wvt_d2u(x[0]), wvt_d2u(x[1]), wvt_d2u(x[2]), wvt_d2u(want)};
    }
    wvt_check_ops(vm, k ? "mul.f64 %g0, %ga, %gb;\nsub.f64 %gd, %gc, %g0;" : "mul.f64 %g0, %ga, %gb;\nadd.f64 %gd, %g0, %gc;",
                  'g', cs, N(cs));
  }
}

/* .ftz and .sat: the fused pair is bit for bit warpvm's fma.rn.ftz / fma.rn.sat (FFMA.FTZ, FFMA.SAT). */
static void same_as_fma(wv_vm *vm, const char *fused, const char *fma) {
  static wvt_case cs[512];
  static uint64_t want[512];
  uint64_t s = 7;
  for (size_t i = 0; i < N(cs); i++) {
    uint32_t x[3];
    for (int k = 0; k < 3; k++) {
      uint64_t v = wvt_rand(&s);
      /* exponents near the bottom of the range, subnormals, around 0 and 1 */
      int e = (int)(v % 12);
      x[k] = e < 4 ? (uint32_t)(v >> 41) : e < 8 ? (uint32_t)((v >> 9) & 0x807fffffu) | (uint32_t)(e - 3) << 23
                                                 : fb(ldexpf((float)(v >> 40) / 16777216.0f, -(e - 8)));
      if (v >> 63) x[k] |= 0x80000000u;
    }
    cs[i] = (wvt_case){x[0], x[1], x[2], 0};
  }
  wvt_ops(vm, fma, 'f', cs, N(cs), want);
  for (size_t i = 0; i < N(cs); i++) cs[i].want = want[i];
  wvt_check_ops(vm, fused, 'f', cs, N(cs));
}
static void ftz_and_sat(void **state) {
  wv_vm *vm = *state;
  same_as_fma(vm, "mul.ftz.f32 %f0, %fa, %fb;\nadd.ftz.f32 %fd, %f0, %fc;", "fma.rn.ftz.f32 %fd, %fa, %fb, %fc;");
  same_as_fma(vm, "mul.ftz.f32 %f0, %fa, %fb;\nsub.ftz.f32 %fd, %fc, %f0;",
              "neg.f32 %f1, %fa;\nfma.rn.ftz.f32 %fd, %f1, %fb, %fc;");
  same_as_fma(vm, "mul.f32 %f0, %fa, %fb;\nadd.sat.f32 %fd, %f0, %fc;", "fma.rn.sat.f32 %fd, %fa, %fb, %fc;");
  same_as_fma(vm, "mul.ftz.f32 %f0, %fa, %fb;\nsub.sat.ftz.f32 %fd, %f0, %fc;",
              "neg.f32 %f1, %fc;\nfma.rn.sat.ftz.f32 %fd, %fa, %fb, %f1;");
}

/* div.approx / div.full / rcp.approx: their last multiply takes the add — fma(a, rcp(b), c) with the
 * unit's rcp (warpvm's rcp.approx.ftz, the unit alone, is the GPU's: tests/unit/test_sfu.c). */
static void division_products(void **state) {
  wv_vm *vm = *state;
  static wvt_case cs[256];
  static uint64_t r[256];
  uint64_t s = 3;
  for (size_t i = 0; i < N(cs); i++) {
    uint64_t v = wvt_rand(&s);
    float a = ldexpf((float)(v >> 40) / 16777216.0f + 1.0f, (int)(v % 21) - 10);
    float b = ldexpf((float)((v >> 16) & 0xffffff) / 16777216.0f + 1.0f, (int)(v >> 8 & 15) - 7);
    cs[i] = (wvt_case){fb(a), fb(b), fb(-a * 0.3f), 0};
  }
  wvt_ops(vm, "rcp.approx.ftz.f32 %fd, %fb;", 'f', cs, N(cs), r); /* no scaling needed for these b */
  for (size_t i = 0; i < N(cs); i++) cs[i].want = canon(fmaf(fv(cs[i].a), fv(r[i]), fv(cs[i].c)));
  wvt_check_ops(vm, "div.approx.ftz.f32 %f0, %fa, %fb;\nadd.ftz.f32 %fd, %f0, %fc;", 'f', cs, N(cs));
  wvt_check_ops(vm, "div.approx.f32 %f0, %fa, %fb;\nadd.f32 %fd, %fc, %f0;", 'f', cs, N(cs));
  wvt_check_ops(vm, "div.full.f32 %f0, %fa, %fb;\nadd.f32 %fd, %f0, %fc;", 'f', cs, N(cs));
  for (size_t i = 0; i < N(cs); i++) cs[i].want = canon(fmaf(1.0f, fv(r[i]), fv(cs[i].c)));
  for (size_t i = 0; i < N(cs); i++) { cs[i].a = cs[i].b; }
  wvt_check_ops(vm, "rcp.approx.f32 %f0, %fa;\nadd.f32 %fd, %f0, %fc;", 'f', cs, N(cs));
}

/* The mul's source overwritten before its add: in the block, and by a loop around a constant product. */
static void overwritten_sources(void **state) {
  wv_vm *vm = *state;
  check_f32(vm, "mul.f32 %f0, %fa, %fb;\nmov.f32 %fa, %fc;\nadd.f32 %fd, %f0, %fc;", r_fma);
  check_f32(vm, "mul.f32 %fa, %fa, %fb;\nadd.f32 %fd, %fa, %fc;", r_fma); /* the mul overwrites its own source */
  /* t = a*3 before the loop; each turn s = t + s (fused: fma(a0, 3, s)), then a changes */
  static const char loop[] =
      "mov.f32 %f2, %fc;\nmov.u32 %t1, 0;\nmul.f32 %f0, %fa, 0f40400000;\n"
      "LL:\nadd.f32 %f2, %f0, %f2;\nadd.f32 %fa, %fa, %f2;\nadd.u32 %t1, %t1, 1;\nsetp.lt.u32 %P0, %t1, 5;\n@%P0 bra LL;\n"
      "mov.f32 %fd, %f2;";
  static wvt_case cs[64];
  uint64_t s = 5;
  for (size_t i = 0; i < N(cs); i++) {
    float a = (float)(wvt_rand(&s) >> 40) / 16777216.0f + 0.7f, c = (float)(wvt_rand(&s) >> 40) / 1048576.0f;
    float t = c;
    for (int k = 0; k < 5; k++) t = fmaf(a, 3.0f, t);
    cs[i] = (wvt_case){fb(a), 0, fb(c), fb(t)};
  }
  wvt_check_ops(vm, loop, 'f', cs, N(cs));
}

/* wv_config.no_contract: today's behaviour, every instruction rounded as written. */
static void no_contract(void **state) {
  (void)state;
  wv_config cfg = {.no_contract = 1};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  check_f32(vm, "mul.f32 %f0, %fa, %fb;\nadd.f32 %fd, %f0, %fc;", r_two);
  wv_destroy(vm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(decisions_match_ptxas, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(fused_forms, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(every_use_fused, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(f64_forms, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(ftz_and_sat, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(division_products, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(overwritten_sources, wvt_setup, wvt_teardown),
      cmocka_unit_test(no_contract),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
