/*
 * test_fatbin.c — the fatbin parser and the ELF reader (src/fatbin) on real nvcc 13.0 output
 * committed under tests/unit/data/fatbin (made by its make.sh; nvcc is not needed here):
 *
 *  - every -Xfatbin -compress-mode (none, speed = LZ4, balance and size = Zstandard) decodes to
 *    the PTX `nvcc -ptx` printed, after the minification fatbinary applies (norm_ptx below);
 *  - -G entries carry a file name and options; LTO-IR (-dlto) entries are recognised, not extracted;
 *  - multi-arch fatbins pick the right PTX (highest <= the limit, else the lowest above), SASS-only
 *    ones report no PTX and name their archs, sm_90a / sm_100f are told apart;
 *  - the __cudaRegisterFatBinary wrapper, version 1 (one container) and version 2 (-rdc: linked
 *    SASS plus one prelinked container per translation unit);
 *  - damaged images (every truncation, bit flips, oversized size claims) are rejected with a
 *    one-line message, never a crash or a hang (this file also runs under ASan+UBSan);
 *  - the ELF reader: DT_NEEDED libcudart.so.13 and DT_RUNPATH of a -cudart shared build, no
 *    libcudart, DT_RPATH and a defined __cudaRegisterFatBinary in a static-cudart build.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fatbin/elf.h"
#include "fatbin/fatbin.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ---------------------------------------------------------------------------------- */

typedef struct blob {
  uint8_t *p;
  size_t n;
} blob;

static char *data_path(const char *name) {
  const char *src = getenv("WV_SRC");
  if (!src) fail_msg("WV_SRC is not set (the repository root; ctest sets it)");
  size_t len = strlen(src) + strlen(name) + 32;
  char *path = malloc(len);
  assert_non_null(path);
  snprintf(path, len, "%s/tests/unit/data/fatbin/%s", src, name);
  return path;
}

/* The whole data file `name` (NUL-terminated for text). */
static blob load(const char *name) {
  char *path = data_path(name);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s (regenerate with tests/unit/data/fatbin/make.sh)", path);
  blob b = {NULL, 0};
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long len = ftell(f);
  assert_true(len >= 0);
  rewind(f);
  b.n = (size_t)len;
  b.p = malloc(b.n + 1);
  assert_non_null(b.p);
  assert_int_equal(fread(b.p, 1, b.n, f), b.n);
  b.p[b.n] = 0;
  fclose(f);
  free(path);
  return b;
}

/* fatbinary stores PTX minified, keeping line numbers: everything from "//" to the end of a line
 * goes, leading blanks go, and a run of blanks (space, tab) shrinks to its first character.
 * Verified on nvcc 13.0 for plain, -lineinfo, -G and -rdc PTX. */
static char *norm_ptx(const char *s) {
  char *out = malloc(strlen(s) + 1), *o = out;
  assert_non_null(out);
  int line_start = 1;
  while (*s) {
    if (s[0] == '/' && s[1] == '/') {
      while (*s && *s != '\n') s++;
      continue;
    }
    if (*s == ' ' || *s == '\t') {
      if (!line_start) *o++ = *s;
      while (*s == ' ' || *s == '\t') s++;
      continue;
    }
    line_start = *s == '\n';
    *o++ = *s++;
  }
  *o = 0;
  return out;
}

static void parse_ok(const blob *b, wv_fatbin *fb) {
  char err[256];
  if (wv_fatbin_parse(b->p, b->n, fb, err, sizeof err)) fail_msg("parse failed: %s", err);
}

/* Entry i's payload; fails the test on error. */
static char *extract_ok(const wv_fatbin *fb, int i, size_t *len) {
  char err[256];
  assert_true(i >= 0);
  char *x = wv_fatbin_extract(fb, (uint32_t)i, len, err, sizeof err);
  if (!x) fail_msg("extract %d failed: %s", i, err);
  return x;
}

/* Entry i must be PTX whose text equals the minified form of data file `ptx_file`. */
static void expect_ptx(const wv_fatbin *fb, int i, const char *ptx_file) {
  assert_true(i >= 0);
  assert_int_equal(fb->v[i].kind, WV_FATBIN_PTX);
  size_t len;
  char *got = extract_ok(fb, i, &len);
  blob want_raw = load(ptx_file);
  char *want = norm_ptx((const char *)want_raw.p);
  assert_int_equal(len, strlen(got));
  if (strcmp(got, want)) fail_msg("entry %d differs from the minified %s (%zu vs %zu bytes)", i, ptx_file, len, strlen(want));
  assert_int_not_equal(strcmp((const char *)want_raw.p, want), 0); /* the rule did change something */
  free(want);
  free(want_raw.p);
  free(got);
}

static void assert_one_line(const char *msg) {
  assert_true(msg[0] != 0);
  if (strchr(msg, '\n')) fail_msg("message is not one line: %s", msg);
}

static void assert_contains(const char *hay, const char *needle) {
  if (!strstr(hay, needle)) fail_msg("'%s' does not contain '%s'", hay, needle);
}

static uint64_t get64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* Offset of the second container of an image (the first one's header + size). */
static size_t second_container(const blob *b) {
  uint64_t fat;
  memcpy(&fat, b->p + 8, 8);
  assert_true(16 + fat < b->n);
  return 16 + (size_t)fat;
}

/* ---- compression modes ------------------------------------------------------------------------ */

static void test_compression_modes_decode_to_nvcc_ptx(void **state) {
  (void)state;
  static const struct {
    const char *file;
    uint32_t ptx_comp, elf_comp;
  } modes[] = {
      {"k_none.fatbin", WV_FATBIN_NONE, WV_FATBIN_NONE},
      {"k_speed.fatbin", WV_FATBIN_LZ4, WV_FATBIN_NONE},
      {"k_balance.fatbin", WV_FATBIN_ZSTD, WV_FATBIN_NONE},
      {"k_size.fatbin", WV_FATBIN_ZSTD, WV_FATBIN_ZSTD},
  };
  blob ref_elf = {NULL, 0};
  for (size_t m = 0; m < N(modes); m++) {
    blob b = load(modes[m].file);
    wv_fatbin fb;
    parse_ok(&b, &fb);
    assert_int_equal(fb.size, b.n);
    assert_int_equal(fb.units, 1);
    /* device-link container (SASS), then k.cu's: SASS, PTX */
    assert_int_equal(fb.n, 3);
    assert_int_equal(fb.v[0].kind, WV_FATBIN_ELF);
    assert_int_equal(fb.v[1].kind, WV_FATBIN_ELF);
    assert_int_equal(fb.v[2].kind, WV_FATBIN_PTX);
    for (int i = 0; i < 3; i++) {
      assert_int_equal(fb.v[i].arch, 80);
      assert_true(fb.v[i].flags & WV_FATBIN_F_64BIT);
      assert_true(fb.v[i].flags & WV_FATBIN_F_LINUX);
    }
    assert_int_equal(fb.v[2].major, 9);
    assert_int_equal(fb.v[2].compression, modes[m].ptx_comp);
    assert_int_equal(fb.v[1].compression, modes[m].elf_comp);
    assert_int_equal(wv_fatbin_best_ptx(&fb, 90), 2);
    expect_ptx(&fb, 2, "k_sm80.ptx");
    /* PTX is NUL-terminated: compressed, the plain size counts the NUL; stored plain, the
     * payload is padded with zeros to a multiple of 8 */
    size_t len;
    char *ptx = extract_ok(&fb, 2, &len);
    if (modes[m].ptx_comp == WV_FATBIN_NONE) {
      assert_int_equal(fb.v[2].stored_size % 8, 0);
      assert_true(fb.v[2].stored_size >= len + 1);
      assert_int_equal(fb.v[2].payload[len], 0);
    } else {
      assert_int_equal(fb.v[2].plain_size, len + 1);
    }
    free(ptx);
    /* the SASS is the same ELF whatever the mode */
    char *elf = extract_ok(&fb, 1, &len);
    assert_memory_equal(elf, "\177ELF", 4);
    assert_int_equal(len, fb.v[1].plain_size);
    if (!ref_elf.p) ref_elf = (blob){(uint8_t *)elf, len};
    else {
      assert_int_equal(len, ref_elf.n);
      assert_memory_equal(elf, ref_elf.p, len);
      free(elf);
    }
    char d[64];
    wv_fatbin_describe(&fb, d, sizeof d);
    assert_string_equal(d, "sm_80");
    wv_fatbin_free(&fb);
    assert_null(fb.v);
    free(b.p);
  }
  free(ref_elf.p);
}

/* -G: the file name and ptxas options live in the entry header. */
static void test_debug_entry_fields(void **state) {
  (void)state;
  blob b = load("k_debug.fatbin");
  wv_fatbin fb;
  parse_ok(&b, &fb);
  int p = wv_fatbin_best_ptx(&fb, 90);
  assert_true(p >= 0);
  const wv_fatbin_entry *e = &fb.v[p];
  assert_true(e->flags & WV_FATBIN_F_DEBUG);
  assert_non_null(e->name);
  assert_int_equal(e->name_len, 4);
  assert_memory_equal(e->name, "k.cu", 4);
  assert_non_null(e->options);
  char opts[128];
  snprintf(opts, sizeof opts, "%.*s", (int)e->options_len, (const char *)e->options);
  assert_contains(opts, "-g");
  size_t len;
  char *ptx = extract_ok(&fb, p, &len);
  assert_contains(ptx, ".target sm_80");
  assert_contains(ptx, ".debug_info");
  free(ptx);
  for (uint32_t i = 0; i < fb.n; i++) free(extract_ok(&fb, (int)i, &len));
  wv_fatbin_free(&fb);
  free(b.p);
}

/* -dlto: LTO-IR entries (kind 8) are recognised, are not PTX, and refuse extraction by name. */
static void test_lto_ir_is_not_extracted(void **state) {
  (void)state;
  blob b = load("a_lto.fatbin");
  wv_fatbin fb;
  parse_ok(&b, &fb);
  assert_int_equal(fb.n, 1);
  assert_int_equal(fb.v[0].kind, WV_FATBIN_LTOIR);
  assert_int_equal(fb.v[0].arch, 80);
  assert_true(fb.v[0].flags & WV_FATBIN_F_ENCRYPTED);
  assert_int_equal(wv_fatbin_best_ptx(&fb, 90), -1);
  char d[16], err[256];
  wv_fatbin_describe(&fb, d, sizeof d);
  assert_string_equal(d, "");
  size_t len;
  assert_null(wv_fatbin_extract(&fb, 0, &len, err, sizeof err));
  assert_contains(err, "encrypted LTO-IR");
  wv_fatbin_free(&fb);
  free(b.p);
}

/* ---- choosing the PTX ------------------------------------------------------------------------- */

static void test_multi_arch_picks_ptx(void **state) {
  (void)state;
  blob b = load("k_multi.fatbin");
  wv_fatbin fb;
  parse_ok(&b, &fb);
  char d[64];
  wv_fatbin_describe(&fb, d, sizeof d);
  assert_string_equal(d, "sm_80 sm_90");
  static const struct {
    uint32_t max, want;
    const char *ptx;
  } cases[] = {
      {90, 90, "k_sm90.ptx"}, {89, 80, "k_sm80.ptx"},   {80, 80, "k_sm80.ptx"},
      {75, 80, "k_sm80.ptx"}, /* nothing fits: the lowest above */
      {100, 100, "k_sm100.ptx"}, {1000, 100, "k_sm100.ptx"},
  };
  for (size_t c = 0; c < N(cases); c++) {
    int i = wv_fatbin_best_ptx(&fb, cases[c].max);
    assert_true(i >= 0);
    if (fb.v[i].arch != cases[c].want) fail_msg("max %u: picked compute_%u, want %u", cases[c].max, fb.v[i].arch, cases[c].want);
    assert_int_equal(wv_fatbin_best_ptx_unit(&fb, 0, cases[c].max), i);
    expect_ptx(&fb, i, cases[c].ptx);
  }
  assert_int_equal(wv_fatbin_best_ptx_unit(&fb, 1, 90), -1);
  wv_fatbin_free(&fb);
  free(b.p);
}

static void test_sass_only_has_no_ptx(void **state) {
  (void)state;
  blob b = load("k_sass.fatbin");
  wv_fatbin fb;
  parse_ok(&b, &fb);
  assert_int_equal(fb.n, 4);
  for (uint32_t i = 0; i < fb.n; i++) assert_int_equal(fb.v[i].kind, WV_FATBIN_ELF);
  assert_int_equal(wv_fatbin_best_ptx(&fb, 90), -1);
  assert_int_equal(wv_fatbin_best_ptx(&fb, 0), -1);
  assert_int_equal(wv_fatbin_best_ptx(&fb, UINT32_MAX), -1);
  char d[64];
  wv_fatbin_describe(&fb, d, sizeof d);
  assert_string_equal(d, "sm_80 sm_90");
  char tiny[8]; /* a short buffer truncates between names, always terminated */
  wv_fatbin_describe(&fb, tiny, sizeof tiny);
  assert_string_equal(tiny, "sm_80");
  wv_fatbin_describe(&fb, tiny, 1);
  assert_string_equal(tiny, "");
  wv_fatbin_free(&fb);
  free(b.p);
}

static void test_arch_specific_and_family_targets(void **state) {
  (void)state;
  blob b = load("k_arch.fatbin");
  wv_fatbin fb;
  parse_ok(&b, &fb);
  char d[64];
  wv_fatbin_describe(&fb, d, sizeof d);
  assert_string_equal(d, "sm_90a sm_100f sm_120");
  size_t len;
  int i = wv_fatbin_best_ptx(&fb, 90);
  assert_true(fb.v[i].arch == 90 && (fb.v[i].flags & WV_FATBIN_F_ARCH_SPECIFIC));
  char *ptx = extract_ok(&fb, i, &len);
  assert_contains(ptx, ".target sm_90a\n");
  free(ptx);
  i = wv_fatbin_best_ptx(&fb, 100);
  assert_true(fb.v[i].arch == 100 && (fb.v[i].flags & WV_FATBIN_F_FAMILY));
  ptx = extract_ok(&fb, i, &len);
  assert_contains(ptx, ".target sm_100f\n");
  free(ptx);
  wv_fatbin_free(&fb);
  free(b.p);

  /* same number: at the device's own (max_arch) the arch-specific target wins over the generic one, whatever
   * the order (an H100 runs nvcc -arch=sm_90a's sm_90a code); below it the generic one */
  wv_fatbin_entry v[3] = {
      {.kind = WV_FATBIN_PTX, .arch = 90, .flags = WV_FATBIN_F_ARCH_SPECIFIC},
      {.kind = WV_FATBIN_PTX, .arch = 90},
      {.kind = WV_FATBIN_PTX, .arch = 86},
  };
  wv_fatbin hand = {.v = v, .n = 3, .units = 1};
  assert_int_equal(wv_fatbin_best_ptx(&hand, 90), 0);
  assert_int_equal(wv_fatbin_best_ptx(&hand, 89), 2);
  v[1].flags = WV_FATBIN_F_ARCH_SPECIFIC;
  v[0].flags = 0;
  assert_int_equal(wv_fatbin_best_ptx(&hand, 90), 1);
  v[2].arch = 90; /* below max_arch: the generic one */
  v[0].arch = v[1].arch = 80;
  assert_int_equal(wv_fatbin_best_ptx(&hand, 90), 2);
  assert_int_equal(wv_fatbin_best_ptx(&hand, 85), 0);
}

/* ---- the __cudaRegisterFatBinary wrapper ------------------------------------------------------- */

typedef struct wrapper {
  int32_t magic, version;
  const void *data;
  const void *fatbins;
} wrapper;

static void test_wrapper_version1_reads_one_container(void **state) {
  (void)state;
  blob b = load("k_balance.fatbin");
  size_t second = second_container(&b);
  char err[256];
  wv_fatbin fb;
  /* k.cu's own container, as its __sti____cudaRegisterAll registers it */
  wrapper w = {WV_FATBIN_WRAPPER_MAGIC, 1, b.p + second, NULL};
  assert_int_equal(wv_fatbin_parse_wrapper(&w, &fb, err, sizeof err), 0);
  assert_int_equal(fb.wrapper_version, 1);
  assert_int_equal(fb.units, 1);
  assert_int_equal(fb.n, 2);
  assert_int_equal(fb.size, b.n - second);
  expect_ptx(&fb, wv_fatbin_best_ptx_unit(&fb, 0, 90), "k_sm80.ptx");
  wv_fatbin_free(&fb);
  /* the device-link container in front of it: only that one is read */
  w.data = b.p;
  assert_int_equal(wv_fatbin_parse_wrapper(&w, &fb, err, sizeof err), 0);
  assert_int_equal(fb.n, 1);
  assert_int_equal(fb.size, second);
  assert_int_equal(wv_fatbin_best_ptx(&fb, 90), -1);
  wv_fatbin_free(&fb);
  free(b.p);
}

static void test_wrapper_version2_rdc(void **state) {
  (void)state;
  blob linked = load("ab_linked.fatbin"), pre = load("ab_prelinked.fatbin");
  const void *prelinked[3] = {pre.p, pre.p + second_container(&pre), NULL};
  wrapper w = {WV_FATBIN_WRAPPER_MAGIC, 2, linked.p, prelinked};
  char err[256];
  wv_fatbin fb;
  assert_int_equal(wv_fatbin_parse_wrapper(&w, &fb, err, sizeof err), 0);
  assert_int_equal(fb.wrapper_version, 2);
  assert_int_equal(fb.units, 3);
  assert_int_equal(fb.size, linked.n);
  /* unit 0: nvlink's SASS only; units 1, 2: one translation unit each, relocatable ELF + PTX */
  assert_int_equal(wv_fatbin_best_ptx_unit(&fb, 0, 90), -1);
  int a = wv_fatbin_best_ptx_unit(&fb, 1, 90), bb = wv_fatbin_best_ptx_unit(&fb, 2, 90);
  expect_ptx(&fb, a, "a.ptx");
  expect_ptx(&fb, bb, "b.ptx");
  assert_int_equal(fb.v[a].unit, 1);
  assert_non_null(fb.v[a].options); /* "--compile-only" */
  char d[64];
  wv_fatbin_describe(&fb, d, sizeof d);
  assert_string_equal(d, "sm_80");
  size_t len;
  for (uint32_t i = 0; i < fb.n; i++) free(extract_ok(&fb, (int)i, &len));
  wv_fatbin_free(&fb);
  /* version 2 without prelinked fatbins */
  w.fatbins = NULL;
  assert_int_equal(wv_fatbin_parse_wrapper(&w, &fb, err, sizeof err), 0);
  assert_int_equal(fb.units, 1);
  wv_fatbin_free(&fb);
  /* the prelinked section as one image: two containers back to back */
  parse_ok(&pre, &fb);
  assert_int_equal(fb.n, 4);
  assert_int_equal(fb.size, pre.n);
  wv_fatbin_free(&fb);
  free(linked.p);
  free(pre.p);
}

static void test_wrapper_rejects(void **state) {
  (void)state;
  blob b = load("k_none.fatbin");
  char err[256];
  wv_fatbin fb;
  uint8_t junk[32] = {1, 2, 3};
  const void *bad_unit[2] = {junk, NULL};
  const struct {
    wrapper w;
    const char *needle;
  } cases[] = {
      {{0x12345678, 1, b.p, NULL}, "not a fatbin wrapper"},
      {{WV_FATBIN_WRAPPER_MAGIC, 3, b.p, NULL}, "version 3"},
      {{WV_FATBIN_WRAPPER_MAGIC, 1, NULL, NULL}, "not a fatbin wrapper"},
      {{WV_FATBIN_WRAPPER_MAGIC, 1, junk, NULL}, "not a fatbin"},
      {{WV_FATBIN_WRAPPER_MAGIC, 2, b.p, bad_unit}, "prelinked fatbin 0"},
  };
  for (size_t c = 0; c < N(cases); c++) {
    assert_int_equal(wv_fatbin_parse_wrapper(&cases[c].w, &fb, err, sizeof err), -1);
    assert_one_line(err);
    assert_contains(err, cases[c].needle);
    assert_null(fb.v);
    assert_int_equal(fb.n, 0);
  }
  assert_int_equal(wv_fatbin_parse_wrapper(NULL, &fb, err, sizeof err), -1);
  assert_int_equal(wv_fatbin_parse(NULL, 0, &fb, err, sizeof err), -1);
  free(b.p);
}

/* ---- damaged images --------------------------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Offset of the header of entry i of image p (which must parse). */
static size_t entry_at(const uint8_t *p, size_t n, uint32_t i) {
  wv_fatbin fb;
  char err[256];
  if (wv_fatbin_parse(p, n, &fb, err, sizeof err)) fail_msg("%s", err);
  assert_true(i < fb.n);
  size_t off = (size_t)fb.v[i].offset;
  wv_fatbin_free(&fb);
  return off;
}

typedef void edit_fn(uint8_t *p, size_t n);

/* Parses a copy of data file `file` changed by `edit`; expects the parse (at_extract == 0) or the
 * extraction of some entry (at_extract == 1) to fail with a one-line message containing needle. */
static void expect_corrupt(const char *file, edit_fn *edit, int at_extract, const char *needle) {
  blob b = load(file);
  edit(b.p, b.n);
  char err[256] = "";
  wv_fatbin fb;
  int rc = wv_fatbin_parse(b.p, b.n, &fb, err, sizeof err);
  if (at_extract) {
    if (rc) fail_msg("%s: parse failed, extraction should: %s", needle, err);
    int failed = 0;
    for (uint32_t i = 0; i < fb.n && !failed; i++) {
      size_t len;
      char *x = wv_fatbin_extract(&fb, i, &len, err, sizeof err);
      failed = x == NULL;
      free(x);
    }
    if (!failed) fail_msg("%s: every entry extracted", needle);
    wv_fatbin_free(&fb);
  } else {
    if (!rc) fail_msg("%s: the damaged image parsed", needle);
    assert_null(fb.v);
  }
  assert_one_line(err);
  assert_contains(err, needle);
  free(b.p);
}

/* k_*.fatbin: container 0 at 0 with one SASS entry at 0x10; container 1 after it (SASS, PTX). */
enum { E0 = 0x10 };
static void huge_payload(uint8_t *p, size_t n) { (void)n, put64(p + E0 + 8, 9999999); }
static void huge_container(uint8_t *p, size_t n) { (void)n, put64(p + 8, UINT64_MAX - 4); }
static void tiny_entry_hdr(uint8_t *p, size_t n) { (void)n, put32(p + E0 + 4, 8); }
static void huge_entry_hdr(uint8_t *p, size_t n) { (void)n, put32(p + E0 + 4, UINT32_MAX); }
static void bad_magic(uint8_t *p, size_t n) { (void)n, p[0] ^= 1; }
static void container_v2(uint8_t *p, size_t n) { (void)n, p[4] = 2; }
static void both_codecs(uint8_t *p, size_t n) { p[entry_at(p, n, 2) + 41] |= 0xa0; }
static void name_outside(uint8_t *p, size_t n) { (void)n, put32(p + E0 + 32, 0x40), put32(p + E0 + 36, 0x1000); }
static void short_container(uint8_t *p, size_t n) { (void)n, put64(p + 8, get64(p + 8) - 0x20); }
static void plain_size_huge(uint8_t *p, size_t n) { put64(p + entry_at(p, n, 2) + 56, 1ull << 40); }
static void plain_size_plus1(uint8_t *p, size_t n) { put64(p + entry_at(p, n, 2) + 56, get64(p + entry_at(p, n, 2) + 56) + 1); }
static void plain_size_minus1(uint8_t *p, size_t n) { put64(p + entry_at(p, n, 2) + 56, get64(p + entry_at(p, n, 2) + 56) - 1); }
static void compressed_past(uint8_t *p, size_t n) { put32(p + entry_at(p, n, 2) + 16, 0x100000); }
static void zstd_body(uint8_t *p, size_t n) { memset(p + entry_at(p, n, 2) + 0x50 + 6, 0xff, 40); }

static void test_corrupt_images_are_rejected(void **state) {
  (void)state;
  expect_corrupt("k_balance.fatbin", huge_payload, 0, "entry 0 at offset 0x10 claims 9999999 payload bytes");
  expect_corrupt("k_balance.fatbin", huge_container, 0, "container 0 at offset 0x0 claims");
  expect_corrupt("k_balance.fatbin", tiny_entry_hdr, 0, "header size of 8");
  expect_corrupt("k_balance.fatbin", huge_entry_hdr, 0, "header size of 4294967295");
  expect_corrupt("k_balance.fatbin", bad_magic, 0, "not a fatbin: magic 0xba55ed51");
  expect_corrupt("k_balance.fatbin", container_v2, 0, "has version 2");
  expect_corrupt("k_balance.fatbin", both_codecs, 0, "both LZ4 and Zstandard");
  expect_corrupt("k_balance.fatbin", name_outside, 0, "name or options outside");
  expect_corrupt("k_balance.fatbin", short_container, 0, "entry 0 at offset 0x10 claims");
  expect_corrupt("k_balance.fatbin", plain_size_huge, 0, "decompressed size");
  expect_corrupt("k_balance.fatbin", compressed_past, 0, "compressed size");
  expect_corrupt("k_balance.fatbin", plain_size_plus1, 1, "Zstandard frame size disagrees");
  expect_corrupt("k_balance.fatbin", zstd_body, 1, "Zstandard");
  expect_corrupt("k_speed.fatbin", plain_size_plus1, 1, "LZ4 payload");
  expect_corrupt("k_speed.fatbin", plain_size_minus1, 1, "LZ4 payload");
  expect_corrupt("k_speed.fatbin", plain_size_huge, 0, "decompressed size");
  char err[256];
  wv_fatbin fb;
  blob b = load("k_none.fatbin");
  assert_int_equal(wv_fatbin_parse(b.p, 10, &fb, err, sizeof err), -1);
  assert_contains(err, "corrupt fatbin: truncated header: 10 bytes");
  assert_int_equal(wv_fatbin_parse(b.p, 0, &fb, err, sizeof err), -1);
  assert_string_equal(err, "not a fatbin: only 0 bytes");
  parse_ok(&b, &fb);
  size_t len = 1;
  assert_null(wv_fatbin_extract(&fb, fb.n, &len, err, sizeof err));
  assert_int_equal(len, 0);
  assert_contains(err, "does not exist");
  wv_fatbin_free(&fb);
  /* trailing bytes that are not a container end the image; zero padding to 8 is skipped */
  uint8_t *p = calloc(1, b.n + 24);
  assert_non_null(p);
  memcpy(p, b.p, b.n);
  memcpy(p + b.n + 8, "garbage!", 8);
  parse_ok(&(blob){p, b.n + 24}, &fb);
  assert_int_equal(fb.size, b.n);
  wv_fatbin_free(&fb);
  free(p);
  free(b.p);
}

/* Parses (and on success extracts, ranks, describes) image p; a failure must carry a message. */
static void poke(const uint8_t *p, size_t n) {
  char err[256] = "";
  wv_fatbin fb;
  if (wv_fatbin_parse(p, n, &fb, err, sizeof err)) {
    assert_one_line(err);
    assert_null(fb.v);
    return;
  }
  assert_true(fb.size <= n);
  for (uint32_t i = 0; i < fb.n; i++) {
    size_t len;
    char *x = wv_fatbin_extract(&fb, i, &len, err, sizeof err);
    if (x) assert_true(len <= fb.v[i].plain_size);
    else assert_one_line(err);
    free(x);
  }
  char d[256];
  wv_fatbin_describe(&fb, d, sizeof d);
  (void)wv_fatbin_best_ptx(&fb, 90);
  wv_fatbin_free(&fb);
}

static const char *const images[] = {
    "k_none.fatbin", "k_speed.fatbin", "k_balance.fatbin", "k_size.fatbin", "k_multi.fatbin",
    "k_sass.fatbin", "k_arch.fatbin",  "k_debug.fatbin",   "ab_linked.fatbin", "ab_prelinked.fatbin",
    "a_lto.fatbin",
};

/* Every prefix of every image. The copy is exactly as long as the prefix, so ASan sees overreads. */
static void test_fuzz_truncations(void **state) {
  (void)state;
  for (size_t f = 0; f < N(images); f++) {
    blob b = load(images[f]);
    for (size_t len = 0; len < b.n; len++) {
      uint8_t *p = malloc(len ? len : 1);
      assert_non_null(p);
      memcpy(p, b.p, len);
      poke(p, len);
      free(p);
    }
    free(b.p);
  }
}

static uint64_t rng(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

/* Bit flips: every bit of every container and entry header (and the bytes after each header),
 * plus random flips, byte stores and 32/64-bit field stores anywhere in the image. */
static void test_fuzz_mutations(void **state) {
  (void)state;
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (size_t f = 0; f < N(images); f++) {
    blob b = load(images[f]);
    uint8_t *p = malloc(b.n);
    assert_non_null(p);
    wv_fatbin fb;
    parse_ok(&b, &fb);
    size_t hot[64], nhot = 0; /* container and entry headers */
    for (size_t c = 0; c + 16 <= b.n && nhot < N(hot); c += 16 + (size_t)get64(b.p + c + 8)) hot[nhot++] = c;
    for (uint32_t i = 0; i < fb.n && nhot < N(hot); i++) hot[nhot++] = (size_t)fb.v[i].offset;
    wv_fatbin_free(&fb);
    for (size_t h = 0; h < nhot; h++)
      for (size_t byte = hot[h]; byte < hot[h] + 0x70 && byte < b.n; byte++)
        for (int bit = 0; bit < 8; bit++) {
          memcpy(p, b.p, b.n);
          p[byte] ^= (uint8_t)(1u << bit);
          poke(p, b.n);
        }
    static const uint64_t values[] = {0, 1, 7, 8, 0x40, 0x7f, 0xff, 0xffff, 0x7fffffff, 0xffffffff,
                                      0x100000000ull, UINT64_MAX, UINT64_MAX - 15};
    for (int k = 0; k < 3000; k++) {
      memcpy(p, b.p, b.n);
      size_t at = (size_t)(rng(&seed) % b.n);
      uint64_t r = rng(&seed);
      uint64_t v = values[r % N(values)];
      switch ((r >> 8) % 4) {
      case 0: p[at] ^= (uint8_t)(1u << (r >> 16) % 8); break;
      case 1: p[at] = (uint8_t)(r >> 24); break;
      case 2:
        if (at + 4 <= b.n) memcpy(p + at, &v, 4);
        break;
      default:
        if (at + 8 <= b.n) memcpy(p + at, &v, 8);
      }
      poke(p, b.n);
    }
    free(p);
    free(b.p);
  }
}

/* A version-2 wrapper whose prelinked containers are damaged inside (their 16-byte headers are
 * what a wrapper is trusted for: nvcc passes no length). */
static void test_fuzz_wrapper_v2(void **state) {
  (void)state;
  blob linked = load("ab_linked.fatbin"), pre = load("ab_prelinked.fatbin");
  size_t second = second_container(&pre);
  uint8_t *p = malloc(pre.n);
  assert_non_null(p);
  const void *prelinked[3] = {p, p + second, NULL};
  wrapper w = {WV_FATBIN_WRAPPER_MAGIC, 2, linked.p, prelinked};
  for (size_t byte = 0; byte < pre.n; byte++) {
    if (byte < 16 || (byte >= second && byte < second + 16)) continue;
    for (int bit = 0; bit < 8; bit += 3) {
      memcpy(p, pre.p, pre.n);
      p[byte] ^= (uint8_t)(1u << bit);
      char err[256];
      wv_fatbin fb;
      if (wv_fatbin_parse_wrapper(&w, &fb, err, sizeof err)) {
        assert_one_line(err);
        continue;
      }
      for (uint32_t i = 0; i < fb.n; i++) {
        size_t len;
        free(wv_fatbin_extract(&fb, i, &len, err, sizeof err));
      }
      for (uint32_t u = 0; u < fb.units; u++) (void)wv_fatbin_best_ptx_unit(&fb, u, 90);
      wv_fatbin_free(&fb);
    }
  }
  free(p);
  free(linked.p);
  free(pre.p);
}

/* ---- the ELF reader --------------------------------------------------------------------------- */

static void open_data_elf(const char *name, wv_elf *e) {
  char *path = data_path(name);
  char err[512];
  if (wv_elf_open(path, e, err, sizeof err)) fail_msg("%s", err);
  free(path);
}

static void test_elf_shared_cudart(void **state) {
  (void)state;
  wv_elf e;
  open_data_elf("k_shared.elf", &e);
  const char *v[16];
  uint32_t n = wv_elf_dynamic_strings(&e, WV_ELF_DT_NEEDED, v, N(v));
  assert_true(n >= 2 && n <= N(v));
  assert_string_equal(v[0], "libcudart.so.13");
  assert_true(wv_elf_needs(&e, "libcudart.so.13"));
  assert_true(wv_elf_needs(&e, "libcudart.so*"));
  assert_false(wv_elf_needs(&e, "libcudart.so"));
  assert_int_equal(wv_elf_dynamic_strings(&e, WV_ELF_DT_RUNPATH, v, N(v)), 1);
  assert_string_equal(v[0], "/opt/warpvm/lib");
  assert_int_equal(wv_elf_dynamic_strings(&e, WV_ELF_DT_RPATH, v, N(v)), 0);
  assert_int_equal(wv_elf_symbol(&e, "__cudaRegisterFatBinary"), WV_ELF_SYM_UNDEFINED);
  assert_int_equal(wv_elf_symbol(&e, "cudaMalloc"), WV_ELF_SYM_UNDEFINED);
  assert_int_equal(wv_elf_symbol(&e, "no_such_symbol"), WV_ELF_SYM_ABSENT);
  char why[128];
  assert_int_equal(wv_elf_cudart_linkage(&e, why, sizeof why), WV_ELF_CUDART_SHARED);
  assert_contains(why, "libcudart.so.13");
  size_t size;
  const uint8_t *sec = wv_elf_section(&e, ".nv_fatbin", &size);
  assert_non_null(sec);
  wv_fatbin fb;
  parse_ok(&(blob){(uint8_t *)sec, size}, &fb);
  expect_ptx(&fb, wv_fatbin_best_ptx(&fb, 90), "k_sm80.ptx");
  wv_fatbin_free(&fb);
  assert_non_null(wv_elf_section(&e, ".nvFatBinSegment", &size));
  assert_int_equal(size, 2 * 24); /* the device-link wrapper (version 2) and k.cu's (version 1) */
  assert_null(wv_elf_section(&e, ".no_such_section", &size));
  assert_int_equal(size, 0);
  assert_null(wv_elf_section(&e, ".bss", &size)); /* NOBITS */
  wv_elf_close(&e);
  assert_null(e.data);
}

static void test_elf_static_cudart(void **state) {
  (void)state;
  wv_elf e;
  open_data_elf("k_static.elf", &e);
  assert_false(wv_elf_needs(&e, "libcudart.so*"));
  assert_true(wv_elf_needs(&e, "libc.so.6"));
  const char *v[4];
  assert_int_equal(wv_elf_dynamic_strings(&e, WV_ELF_DT_RPATH, v, N(v)), 1);
  assert_string_equal(v[0], "/opt/legacy/lib");
  assert_int_equal(wv_elf_dynamic_strings(&e, WV_ELF_DT_RUNPATH, v, N(v)), 0);
  assert_int_equal(wv_elf_symbol(&e, "__cudaRegisterFatBinary"), WV_ELF_SYM_DEFINED);
  assert_int_equal(wv_elf_symbol(&e, "libcudart_static_*"), WV_ELF_SYM_DEFINED);
  char why[256];
  assert_int_equal(wv_elf_cudart_linkage(&e, why, sizeof why), WV_ELF_CUDART_STATIC);
  assert_contains(why, "__cudaRegisterFatBinary");
  size_t size;
  const uint8_t *sec = wv_elf_section(&e, ".nv_fatbin", &size);
  assert_non_null(sec);
  wv_fatbin fb;
  parse_ok(&(blob){(uint8_t *)sec, size}, &fb);
  assert_int_equal(fb.n, 3);
  wv_fatbin_free(&fb);
  assert_null(wv_elf_section(&e, ".text", &size)); /* dropped by shrink_elf.py: NOBITS */
  wv_elf_close(&e);
}

/* A library that exports __cudaRegisterFatBinary is a CUDA runtime, not an application: k_shared.elf
 * with its libcudart.so.13 renamed and the symbol turned into a definition. */
static void test_elf_runtime_library(void **state) {
  (void)state;
  blob b = load("k_shared.elf");
  wv_elf e;
  char err[256];
  assert_int_equal(wv_elf_open_mem(b.p, b.n, &e, err, sizeof err), 0);
  size_t nsyms, nstrs;
  uint8_t *syms = (uint8_t *)wv_elf_section(&e, ".dynsym", &nsyms);
  const uint8_t *strs = wv_elf_section(&e, ".dynstr", &nstrs);
  assert_true(syms && strs);
  uint8_t *lib = memmem(b.p, b.n, "libcudart.so.13", 16);
  assert_non_null(lib);
  memcpy(lib, "libcudaXX", 9);
  int patched = 0;
  for (size_t o = 0; o + 24 <= nsyms; o += 24) {
    uint32_t name;
    memcpy(&name, syms + o, 4);
    if (name < nstrs && !strcmp((const char *)strs + name, "__cudaRegisterFatBinary")) {
      syms[o + 6] = 14, patched = 1; /* st_shndx: defined in some section */
    }
  }
  assert_true(patched);
  assert_int_equal(wv_elf_symbol(&e, "__cudaRegisterFatBinary"), WV_ELF_SYM_DEFINED);
  char why[128];
  assert_int_equal(wv_elf_cudart_linkage(&e, why, sizeof why), WV_ELF_CUDART_PROVIDER);
  assert_contains(why, "exports __cudaRegisterFatBinary");
  wv_elf_close(&e);
  free(b.p);
}

/* The dynamic strings through the program headers when a file has no section headers. */
static void test_elf_without_section_headers(void **state) {
  (void)state;
  blob b = load("k_shared.elf");
  memset(b.p + 0x28, 0, 8);  /* e_shoff */
  memset(b.p + 0x3c, 0, 4);  /* e_shnum, e_shstrndx */
  wv_elf e;
  char err[256];
  assert_int_equal(wv_elf_open_mem(b.p, b.n, &e, err, sizeof err), 0);
  assert_true(wv_elf_needs(&e, "libcudart.so.13"));
  const char *v[2];
  assert_int_equal(wv_elf_dynamic_strings(&e, WV_ELF_DT_RUNPATH, v, N(v)), 1);
  assert_string_equal(v[0], "/opt/warpvm/lib");
  assert_null(wv_elf_section(&e, ".nv_fatbin", NULL));
  assert_int_equal(wv_elf_cudart_linkage(&e, NULL, 0), WV_ELF_CUDART_SHARED);
  wv_elf_close(&e);
  free(b.p);
}

static void test_elf_errors(void **state) {
  (void)state;
  wv_elf e;
  char err[512];
  assert_int_equal(wv_elf_open("/nonexistent/app", &e, err, sizeof err), -1);
  assert_string_equal(err, "/nonexistent/app: No such file or directory");
  char *dir = data_path("");
  assert_int_equal(wv_elf_open(dir, &e, err, sizeof err), -1);
  assert_contains(err, "is a directory");
  free(dir);
  char *fat = data_path("k_none.fatbin");
  assert_int_equal(wv_elf_open(fat, &e, err, sizeof err), -1);
  assert_contains(err, "k_none.fatbin: not a 64-bit little-endian ELF file");
  assert_one_line(err);
  assert_null(e.data);
  free(fat);
  blob b = load("k_shared.elf");
  b.p[4] = 1; /* ELFCLASS32 */
  assert_int_equal(wv_elf_open_mem(b.p, b.n, &e, err, sizeof err), -1);
  assert_string_equal(err, "not a 64-bit little-endian ELF file");
  free(b.p);
}

/* Runs every query on an ELF image; nothing may crash. */
static void poke_elf(const uint8_t *p, size_t n) {
  wv_elf e;
  char err[256];
  if (wv_elf_open_mem(p, n, &e, err, sizeof err)) {
    assert_one_line(err);
    return;
  }
  const char *v[8];
  uint32_t k = wv_elf_dynamic_strings(&e, WV_ELF_DT_NEEDED, v, N(v));
  for (uint32_t i = 0; i < k && i < N(v); i++) assert_true(v[i] >= (const char *)p && v[i] + strlen(v[i]) < (const char *)p + n);
  (void)wv_elf_dynamic_strings(&e, WV_ELF_DT_RPATH, NULL, 0);
  (void)wv_elf_symbol(&e, "__cudaRegisterFatBinary");
  char why[256];
  (void)wv_elf_cudart_linkage(&e, why, sizeof why);
  size_t size;
  const uint8_t *s = wv_elf_section(&e, ".nv_fatbin", &size);
  if (s) assert_true(s >= p && size <= n && (size_t)(s - p) <= n - size);
  wv_elf_close(&e);
}

static void test_fuzz_elf(void **state) {
  (void)state;
  static const char *const files[] = {"k_shared.elf", "k_static.elf"};
  uint64_t seed = 12345;
  for (size_t f = 0; f < N(files); f++) {
    blob b = load(files[f]);
    for (size_t len = 0; len < b.n; len += len < 128 ? 1 : 61) { /* truncations */
      uint8_t *p = malloc(len ? len : 1);
      assert_non_null(p);
      memcpy(p, b.p, len);
      poke_elf(p, len);
      free(p);
    }
    uint8_t *p = malloc(b.n);
    assert_non_null(p);
    uint64_t shoff = get64(b.p + 0x28);
    for (size_t byte = 0; byte < b.n; byte++) { /* every bit of the ELF and section headers */
      if (byte >= 64 && byte < shoff) continue;
      for (int bit = 0; bit < 8; bit++) {
        memcpy(p, b.p, b.n);
        p[byte] ^= (uint8_t)(1u << bit);
        poke_elf(p, b.n);
      }
    }
    for (int k = 0; k < 4000; k++) { /* random 64-bit stores anywhere */
      memcpy(p, b.p, b.n);
      size_t at = (size_t)(rng(&seed) % (b.n - 8));
      uint64_t v = rng(&seed) >> (rng(&seed) % 64);
      memcpy(p + at, &v, 8);
      poke_elf(p, b.n);
    }
    free(p);
    free(b.p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compression_modes_decode_to_nvcc_ptx),
      cmocka_unit_test(test_debug_entry_fields),
      cmocka_unit_test(test_lto_ir_is_not_extracted),
      cmocka_unit_test(test_multi_arch_picks_ptx),
      cmocka_unit_test(test_sass_only_has_no_ptx),
      cmocka_unit_test(test_arch_specific_and_family_targets),
      cmocka_unit_test(test_wrapper_version1_reads_one_container),
      cmocka_unit_test(test_wrapper_version2_rdc),
      cmocka_unit_test(test_wrapper_rejects),
      cmocka_unit_test(test_corrupt_images_are_rejected),
      cmocka_unit_test(test_fuzz_truncations),
      cmocka_unit_test(test_fuzz_mutations),
      cmocka_unit_test(test_fuzz_wrapper_v2),
      cmocka_unit_test(test_elf_shared_cudart),
      cmocka_unit_test(test_elf_static_cudart),
      cmocka_unit_test(test_elf_runtime_library),
      cmocka_unit_test(test_elf_without_section_headers),
      cmocka_unit_test(test_elf_errors),
      cmocka_unit_test(test_fuzz_elf),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
