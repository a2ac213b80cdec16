/*
 * test_sfu.c — unit tests of the special-function unit model (src/exec/sfu.h, sfu.c) and of the
 * .approx instructions through the executor.
 *
 * Where expected values come from: values measured on an NVIDIA H200 or H100 (sm_90, CUDA 13.0, the
 * PTX instruction run through inline asm), marked "H200"/"H100"; the special cases of the PTX ISA's
 * tables (§9.7.3.x). That the model gives the GPU's bits for every input is proven on the GPU by
 * tools/sfu/check.cu (docs/SFU.md); these tests guard the tables and the wiring without a GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/fpmath.h"
#include "exec/sfu.h"

static uint32_t fb(float f) { return wv_fp_b32(f); }
static uint64_t db(double d) { return wv_fp_b64(d); }

#define EQ32(got, want)                                                                         \
  do {                                                                                          \
    uint32_t g_ = (uint32_t)(got), w_ = (uint32_t)(want);                                       \
    if (g_ != w_) fail_msg("%s = 0x%08x, want 0x%08x (line %d)", #got, g_, w_, __LINE__);       \
  } while (0)
#define EQ64(got, want)                                                                         \
  do {                                                                                          \
    uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                                       \
    if (g_ != w_)                                                                               \
      fail_msg("%s = 0x%016llx, want 0x%016llx (line %d)", #got, (unsigned long long)g_,        \
               (unsigned long long)w_, __LINE__);                                               \
  } while (0)

/* Every table, loaded once from the image built into warpvm. */
static wv_sfu T;
static void *mem[WV_SFU_NTAB];
static int setup(void **st) {
  (void)st;
  size_t len;
  const void *img = wv_sfu_image(&len);
  return wv_sfu_load(&T, mem, img, len, (1u << WV_SFU_NTAB) - 1);
}
static int teardown(void **st) {
  (void)st;
  wv_sfu_unload(&T, mem);
  return 0;
}

/* The instructions, in the spelling of the tests below (flags: WV_FP_FTZ or 0). */
#define WV_FP_RCP64H_NAN 0x7fffffff00000000ull
#define wv_fp_rcp_approx_f32(a, f) wv_sfu_rcp_approx(&T, a, (f) & WV_FP_FTZ)
#define wv_fp_sqrt_approx_f32(a, f) wv_sfu_sqrt_approx(&T, a, (f) & WV_FP_FTZ)
#define wv_fp_rsqrt_approx_f32(a, f) wv_sfu_rsqrt_approx(&T, a, (f) & WV_FP_FTZ)
#define wv_fp_sin_approx_f32(a, f) ((void)(f), wv_sfu_sin_approx(&T, a))
#define wv_fp_cos_approx_f32(a, f) ((void)(f), wv_sfu_cos_approx(&T, a))
#define wv_fp_lg2_approx_f32(a, f) wv_sfu_lg2_approx(&T, a, (f) & WV_FP_FTZ)
#define wv_fp_ex2_approx_f32(a, f) wv_sfu_ex2_approx(&T, a, (f) & WV_FP_FTZ)
#define wv_fp_tanh_approx_f32(a) wv_sfu_tanh(&T, a)
#define wv_fp_div_approx_f32(a, b, f) wv_sfu_div_approx(&T, a, b, (f) & WV_FP_FTZ)
#define wv_fp_div_full_f32(a, b, f) wv_sfu_div_full(&T, a, b, (f) & WV_FP_FTZ)
#define wv_fp_rcp_approx_ftz_f64(a) wv_sfu_rcp_approx_f64(&T, a)
#define wv_fp_rsqrt_approx_ftz_f64(a) wv_sfu_rsqrt_approx_ftz_f64(&T, a)
#define wv_fp_rsqrt_approx_f64(a) wv_sfu_rsqrt_approx_f64(&T, a)

/* ---- approximate functions: special cases (ISA tables), structure, sweeps ------------------ */

static void t_approx_special(void **st) {
  (void)st;
  const uint32_t pz = 0, nz = 0x80000000u, pinf = 0x7f800000u, ninf = 0xff800000u,
                 qn = 0x7fc00000u, NN = WV_FP_F32_NAN;
  for (unsigned ftz = 0; ftz <= WV_FP_FTZ; ftz += WV_FP_FTZ) {
    /* rcp (§9.7.3.13) */
    EQ32(wv_fp_rcp_approx_f32(ninf, ftz), nz);
    EQ32(wv_fp_rcp_approx_f32(nz, ftz), ninf);
    EQ32(wv_fp_rcp_approx_f32(pz, ftz), pinf);
    EQ32(wv_fp_rcp_approx_f32(pinf, ftz), pz);
    EQ32(wv_fp_rcp_approx_f32(qn, ftz), NN);
    /* sqrt (§9.7.3.15) */
    EQ32(wv_fp_sqrt_approx_f32(ninf, ftz), NN);
    EQ32(wv_fp_sqrt_approx_f32(fb(-2.0f), ftz), NN);
    EQ32(wv_fp_sqrt_approx_f32(nz, ftz), nz);
    EQ32(wv_fp_sqrt_approx_f32(pz, ftz), pz);
    EQ32(wv_fp_sqrt_approx_f32(pinf, ftz), pinf);
    EQ32(wv_fp_sqrt_approx_f32(qn, ftz), NN);
    /* rsqrt (§9.7.3.16) */
    EQ32(wv_fp_rsqrt_approx_f32(ninf, ftz), NN);
    EQ32(wv_fp_rsqrt_approx_f32(fb(-2.0f), ftz), NN);
    EQ32(wv_fp_rsqrt_approx_f32(nz, ftz), ninf);
    EQ32(wv_fp_rsqrt_approx_f32(pz, ftz), pinf);
    EQ32(wv_fp_rsqrt_approx_f32(pinf, ftz), pz);
    EQ32(wv_fp_rsqrt_approx_f32(qn, ftz), NN);
    /* sin, cos (§9.7.3.18/19) */
    EQ32(wv_fp_sin_approx_f32(ninf, ftz), NN);
    EQ32(wv_fp_sin_approx_f32(nz, ftz), nz);
    EQ32(wv_fp_sin_approx_f32(pz, ftz), pz);
    EQ32(wv_fp_sin_approx_f32(pinf, ftz), NN);
    EQ32(wv_fp_sin_approx_f32(qn, ftz), NN);
    EQ32(wv_fp_cos_approx_f32(ninf, ftz), NN);
    EQ32(wv_fp_cos_approx_f32(nz, ftz), 0x3f800000u);
    EQ32(wv_fp_cos_approx_f32(pz, ftz), 0x3f800000u);
    EQ32(wv_fp_cos_approx_f32(pinf, ftz), NN);
    /* lg2 (§9.7.3.20) */
    EQ32(wv_fp_lg2_approx_f32(ninf, ftz), NN);
    EQ32(wv_fp_lg2_approx_f32(fb(-1.0f), ftz), NN);
    EQ32(wv_fp_lg2_approx_f32(nz, ftz), ninf);
    EQ32(wv_fp_lg2_approx_f32(pz, ftz), ninf);
    EQ32(wv_fp_lg2_approx_f32(pinf, ftz), pinf);
    EQ32(wv_fp_lg2_approx_f32(qn, ftz), NN);
    /* ex2 (§9.7.3.21) */
    EQ32(wv_fp_ex2_approx_f32(ninf, ftz), pz);
    EQ32(wv_fp_ex2_approx_f32(nz, ftz), 0x3f800000u);
    EQ32(wv_fp_ex2_approx_f32(pz, ftz), 0x3f800000u);
    EQ32(wv_fp_ex2_approx_f32(pinf, ftz), pinf);
    EQ32(wv_fp_ex2_approx_f32(qn, ftz), NN);
  }
  /* tanh (§9.7.3.22): subnormals pass through */
  EQ32(wv_fp_tanh_approx_f32(ninf), 0xbf800000u);
  EQ32(wv_fp_tanh_approx_f32(nz), nz);
  EQ32(wv_fp_tanh_approx_f32(pz), pz);
  EQ32(wv_fp_tanh_approx_f32(pinf), 0x3f800000u);
  EQ32(wv_fp_tanh_approx_f32(qn), NN);
  EQ32(wv_fp_tanh_approx_f32(0x80000005u), 0x80000005u);
  /* rcp/rsqrt.approx.ftz.f64 (§9.7.3.14/17): only the upper word counts; low word of d is 0. */
  const uint64_t H = WV_FP_RCP64H_NAN;
  EQ64(wv_fp_rcp_approx_ftz_f64(0xfff0000000000000ull), 0x8000000000000000ull);
  EQ64(wv_fp_rcp_approx_ftz_f64(0x800fffffffffffffull), 0xfff0000000000000ull); /* -subnormal */
  EQ64(wv_fp_rcp_approx_ftz_f64(0x8000000000000000ull), 0xfff0000000000000ull);
  EQ64(wv_fp_rcp_approx_ftz_f64(0), 0x7ff0000000000000ull);
  EQ64(wv_fp_rcp_approx_ftz_f64(1), 0x7ff0000000000000ull);
  EQ64(wv_fp_rcp_approx_ftz_f64(0x7ff0000000000000ull), 0);
  EQ64(wv_fp_rcp_approx_ftz_f64(0x7ff8000000000000ull), H);
  EQ64(wv_fp_rcp_approx_ftz_f64(0x7ff0000000000001ull), 0); /* upper word says +inf */
  EQ64(wv_fp_rcp_approx_ftz_f64(db(2.0)), db(0.5));
  EQ64(wv_fp_rcp_approx_ftz_f64(db(-4.0) | 0xffffffffull), db(-0.25));
  EQ64(wv_fp_rcp_approx_ftz_f64(0x7fe0000000000000ull), 0); /* 2^-1023 is subnormal: flushed */
  EQ64(wv_fp_rsqrt_approx_ftz_f64(0xfff0000000000000ull), H);
  EQ64(wv_fp_rsqrt_approx_ftz_f64(0x800fffffffffffffull), 0xfff0000000000000ull);
  EQ64(wv_fp_rsqrt_approx_ftz_f64(0x8000000000000000ull), 0xfff0000000000000ull);
  EQ64(wv_fp_rsqrt_approx_ftz_f64(0), 0x7ff0000000000000ull);
  EQ64(wv_fp_rsqrt_approx_ftz_f64(0x7ff0000000000000ull), 0);
  EQ64(wv_fp_rsqrt_approx_ftz_f64(0xfff8000000000000ull), H);
  EQ64(wv_fp_rsqrt_approx_ftz_f64(db(-4.0)), H);
  EQ64(wv_fp_rsqrt_approx_ftz_f64(db(4.0)), db(0.5));
  EQ64(wv_fp_rsqrt_approx_ftz_f64(db(0.25)), db(2.0));
  /* rsqrt.approx.f64 */
  EQ64(wv_fp_rsqrt_approx_f64(db(4.0)), db(0.5));
  EQ64(wv_fp_rsqrt_approx_f64(0x8000000000000000ull), 0xfff0000000000000ull);
  EQ64(wv_fp_rsqrt_approx_f64(0x7ff0000000000000ull), 0);
  EQ64(wv_fp_rsqrt_approx_f64(db(-1.0)), 0xfff8000000000000ull); /* H200 */
  /* Exact powers of two and identities the hardware also gives exactly (H200). */
  EQ32(wv_fp_rcp_approx_f32(fb(4.0f), 0), fb(0.25f));
  EQ32(wv_fp_sqrt_approx_f32(fb(16.0f), 0), fb(4.0f));
  EQ32(wv_fp_rsqrt_approx_f32(fb(0.25f), 0), fb(2.0f));
  EQ32(wv_fp_ex2_approx_f32(fb(3.0f), WV_FP_FTZ), fb(8.0f));
  EQ32(wv_fp_ex2_approx_f32(fb(-1.0f), 0), fb(0.5f));
  EQ32(wv_fp_ex2_approx_f32(0x42c80000u /* 100 */, 0), 0x71800000u);
  EQ32(wv_fp_lg2_approx_f32(fb(1.0f), 0), 0);
  EQ32(wv_fp_lg2_approx_f32(fb(2.0f), 0), fb(1.0f));
  /* The LG2 unit's one's-complement/truncation quirks (H200): lg2(0.5) = -(1-2^-23),
   * lg2(2^-126) = -126 + 2^-17, and the subnormal path lg2(2^-127) = -127 + 2^-17. */
  EQ32(wv_fp_lg2_approx_f32(fb(0.5f), 0), 0xbf7ffffeu);
  EQ32(wv_fp_lg2_approx_f32(0x00800000u, WV_FP_FTZ), 0xc2fbffffu);
  EQ32(wv_fp_lg2_approx_f32(0x00400000u, 0), 0xc2fdffffu);
  EQ32(wv_fp_lg2_approx_f32(0x00400000u, WV_FP_FTZ), 0xff800000u);
  EQ32(wv_fp_lg2_approx_f32(1, 0), 0xc3150000u); /* lg2(2^-149) = -149 exactly (H200) */
}

static void t_approx_structure(void **st) {
  (void)st;
  /* Subnormal inputs: .ftz flushes, the plain form rescales (sm_90 SASS). H200 values. */
  EQ32(wv_fp_rcp_approx_f32(0x807fffffu, 0), 0xfe800001u);
  EQ32(wv_fp_rcp_approx_f32(0x807fffffu, WV_FP_FTZ), 0xff800000u);
  EQ32(wv_fp_rcp_approx_f32(1, 0), 0x7f800000u); /* 2^149 overflows */
  EQ32(wv_fp_sqrt_approx_f32(0x00800000u, 0), 0x20000000u);
  EQ32(wv_fp_sqrt_approx_f32(1, WV_FP_FTZ), 0);
  EQ32(wv_fp_rsqrt_approx_f32(0x00800000u, 0), 0x5f000000u);
  /* rcp of huge values: the plain form scales by 1/4 and returns a subnormal, .ftz gives 0. */
  EQ32(wv_fp_rcp_approx_f32(0x7f000000u /* 2^127 */, 0), 0x00400000u); /* 2^-127 */
  EQ32(wv_fp_rcp_approx_f32(0x7f000000u, WV_FP_FTZ), 0);
  /* ex2 below -126: the plain form squares ex2(x/2), giving subnormals; .ftz flushes. */
  EQ32(wv_fp_ex2_approx_f32(fb(-140.0f), 0), 0x00000200u); /* 2^-140 */
  EQ32(wv_fp_ex2_approx_f32(fb(-140.0f), WV_FP_FTZ), 0);
  /* H100: ex2(-63.5) is 2^-63.5 minus an ulp (a negative fraction borrows a unit), so the square
   * is just below 2^-127 (tools/sfu/check.cu found the model equal to the GPU on every input). */
  EQ32(wv_fp_ex2_approx_f32(0xc2fe0000u /* -127 */, 0), 0x003fffffu);
  /* div.approx: for 2^126 < |b| the reciprocal flushes → ±0, or NaN when a = inf (§9.7.3.8). */
  EQ32(wv_fp_div_approx_f32(fb(1.0f), 0x7f000000u, 0), 0);
  EQ32(wv_fp_div_approx_f32(fb(-1.0f), 0x7f000000u, WV_FP_FTZ), 0x80000000u);
  EQ32(wv_fp_div_approx_f32(0x7f800000u, 0x7f000000u, 0), WV_FP_F32_NAN);
  /* ...and 0 / subnormal is 0 in the plain form (both scaled by 2^24; H200). */
  EQ32(wv_fp_div_approx_f32(0, 1, 0), 0);
  EQ32(wv_fp_div_approx_f32(0, 0x80000001u, 0), 0x80000000u);
  EQ32(wv_fp_div_approx_f32(fb(6.0f), fb(2.0f), 0), fb(3.0f));
  /* div.full handles big divisors by scaling both operands by 1/4. */
  EQ32(wv_fp_div_full_f32(0x7f000000u, 0x7f000000u, 0), fb(1.0f));
  EQ32(wv_fp_div_full_f32(0x7f800000u, 0x7f000000u, WV_FP_FTZ), 0x7f800000u);
  EQ32(wv_fp_div_full_f32(fb(1.0f), fb(4.0f), 0), fb(0.25f));
  /* H200: 0x007fffff / 0x3f7fffff gives 2^-126 through RCP(b)*a with gradual underflow. */
  EQ32(wv_fp_div_full_f32(0x007fffffu, 0x3f7fffffu, 0), 0x00800000u);
  /* sin/cos take x * 0.15915494f rounded toward zero first (sm_90 SASS): sin(pi) is not 0. */
  uint32_t s = wv_fp_sin_approx_f32(fb(3.14159274f), 0);
  assert_true(fabsf(wv_fp_f32(s)) < 1e-6f);
}

/* tests/unit/data/sfu_samples.txt: an H100's results for 256 inputs of every instruction form (every
 * sign and exponent, zeros, infinities, NaNs, subnormals), written by tools/sfu/check.cu --samples. */
static void t_gpu_samples(void **st) {
  (void)st;
  const char *src = getenv("WV_SRC");
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/unit/data/sfu_samples.txt", src ? src : ".");
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("cannot open %s (set WV_SRC to the source tree)", path);
  static const char *const names[WV_SFU_NI] = {
#define X(id, ptx) ptx,
      WV_SFU_INSTRUCTIONS(X)
#undef X
  };
  char line[256], name[64];
  unsigned long long x, want;
  unsigned y;
  int n = 0, bad = 0, seen[WV_SFU_NI] = {0};
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    if (sscanf(line, "%63s %llx %x %llx", name, &x, &y, &want) != 4) fail_msg("bad line: %s", line);
    int i = 0;
    while (i < WV_SFU_NI && strcmp(names[i], name)) i++;
    if (i == WV_SFU_NI) fail_msg("unknown instruction %s", name);
    uint64_t got = wv_sfu_eval(&T, i, x, y);
    if (got != want && bad++ < 10) print_error("%s %llx %x: gpu %llx, warpvm %llx\n", name, x, y, want, (unsigned long long)got);
    seen[i]++;
    n++;
  }
  fclose(f);
  for (int i = 0; i < WV_SFU_NI; i++)
    if (seen[i] < 256) fail_msg("%s: only %d samples", names[i], seen[i]);
  print_message("%d GPU samples of %d instruction forms, %d differ\n", n, WV_SFU_NI, bad);
  assert_int_equal(bad, 0);
}

/* The loader refuses damaged images without reading outside them. */
static void t_corrupt_images(void **st) {
  (void)st;
  size_t len;
  const unsigned char *img = wv_sfu_image(&len);
  unsigned char *copy = malloc(len);
  assert_non_null(copy);
  for (size_t cut = 0; cut < 4096 && cut < len; cut += 7) { /* truncated: header, directory, frame */
    wv_sfu t = {0};
    void *m[WV_SFU_NTAB] = {0};
    memcpy(copy, img, len);
    int r = wv_sfu_load(&t, m, copy, cut, 1u << WV_SFU_EX2_F16);
    assert_int_equal(r, -1);
    wv_sfu_unload(&t, m);
  }
  uint64_t s = 12345;
  for (int i = 0; i < 200; i++) { /* flipped bytes in the header, the directory or the small frames */
    wv_sfu t = {0};
    void *m[WV_SFU_NTAB] = {0};
    memcpy(copy, img, len);
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    copy[(s >> 33) % 300] ^= (unsigned char)(1 + (s >> 20) % 255);
    (void)wv_sfu_load(&t, m, copy, len, (1u << WV_SFU_EX2_F16) | (1u << WV_SFU_TANH_BF16));
    wv_sfu_unload(&t, m);
  }
  free(copy);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_approx_special),
      cmocka_unit_test(t_approx_structure),
      cmocka_unit_test(t_gpu_samples),
      cmocka_unit_test(t_corrupt_images),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
