/* mma_check.c — checks warpvm's tensor-core arithmetic (src/exec/mma_arith.c) against a GPU recording of
 * mma_probe.cu: regenerates every test's inputs (mma_gen.h), computes each D element with wv_mma_elem and
 * compares the bits with what the GPU returned. Prints mismatches per case and operand class.
 *
 *   mma_check GOLDEN_DIR [-v N] [--known CASE]...
 *
 * Exit 0 when every case matches bit for bit except those named with --known (a documented gap, reported
 * but not failing); 1 on a mismatch, 2 on a missing or malformed recording. */
#include "exec/mma_arith.h"
#include "mma_gen.h"

#include <stdio.h>
#include <stdlib.h>

static enum wv_mt mt_of(enum mg_fmt f) {
  switch (f) {
  case MG_FMT_F16: return WV_MT_F16;
  case MG_FMT_BF16: return WV_MT_BF16;
  case MG_FMT_TF32: return WV_MT_TF32;
  case MG_FMT_E4M3: return WV_MT_E4M3;
  case MG_FMT_E5M2: return WV_MT_E5M2;
  case MG_FMT_F64: return WV_MT_F64;
  case MG_FMT_S8: return WV_MT_S8;
  case MG_FMT_S32: return WV_MT_S32;
  default: return WV_MT_F32;
  }
}

static uint32_t *read_rec(const char *dir, enum mg_case cs, uint32_t *ntests) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.bin", dir, mg_cases[cs].name);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char h[64];
  uint32_t *p = NULL;
  if (fread(h, 1, 64, f) == 64 && !memcmp(h, "WVMMA1", 6)) {
    uint32_t v[4];
    memcpy(v, h + 8, 16); /* version, case, ntests, d_words */
    size_t n = (size_t)v[2] * 32 * v[3];
    p = v[1] == (uint32_t)cs && v[3] == (uint32_t)mg_cases[cs].d_words ? malloc(n * 4) : NULL;
    if (p && fread(p, 4, n, f) != n) { free(p); p = NULL; }
    *ntests = v[2];
  }
  fclose(f);
  return p;
}

/* mismatches of case cs; prints the first `verbose` of them */
static long check_case(enum mg_case cs, const uint32_t *pl, uint32_t ntests, long cnt[][2], int verbose) {
  const struct mg_case_info *ci = &mg_cases[cs];
  wv_mma_types ty = {mt_of(ci->ab), mt_of(ci->ab), mt_of(ci->cd), mt_of(ci->cd)};
  unsigned flags = cs == MG_S32_S8_SAT ? WV_MMA_SATFINITE : 0;
  int halves = ci->cd == MG_FMT_F16 ? 2 : 1, step = ci->cd == MG_FMT_F64 ? 2 : 1;
  long bad = 0;
  static struct mg_test in;
  for (uint32_t t = 0; t < ntests; t++) {
    mg_gen_test(cs, t, &in);
    for (int l = 0; l < 32; l++)
      for (int w = 0; w < ci->d_words; w += step)
        for (int h = 0; h < halves; h++) {
          int row, col;
          mg_d_pos(cs, l, w, h, &row, &col);
          const uint32_t *dl = pl + ((size_t)t * 32 + l) * ci->d_words;
          uint64_t got = halves == 2 ? (dl[w] >> 16 * h) & 0xffff : step == 2 ? dl[w] | (uint64_t)dl[w + 1] << 32 : dl[w];
          uint64_t a[MG_MAXK], b[MG_MAXK];
          for (int k = 0; k < ci->k; k++) a[k] = in.a[row][k], b[k] = in.b[k][col];
          uint64_t want = wv_mma_elem(&ty, ci->k, a, b, in.c[row][col], flags);
          cnt[in.cls][0]++;
          if (want == got) continue;
          cnt[in.cls][1]++;
          if (bad++ < verbose)
            printf("  test %u class %d D[%d][%d]: gpu %llx model %llx\n", t, in.cls, row, col,
                   (unsigned long long)got, (unsigned long long)want);
        }
  }
  return bad;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: mma_check GOLDEN_DIR [-v N] [--known CASE]...\n");
    return 2;
  }
  int verbose = 0, rc = 0;
  const char *known[16];
  int nknown = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-v") && i + 1 < argc) verbose = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--known") && i + 1 < argc && nknown < 16) known[nknown++] = argv[++i];
    else { fprintf(stderr, "mma_check: unknown argument '%s'\n", argv[i]); return 2; }
  }
  for (int cs = 0; cs < MG_NCASES; cs++) {
    uint32_t nt = 0;
    uint32_t *pl = read_rec(argv[1], (enum mg_case)cs, &nt);
    if (!pl && mg_is_x((enum mg_case)cs)) { printf("%-34s not recorded yet\n", mg_cases[cs].name); continue; }
    if (!pl) { fprintf(stderr, "mma_check: no valid recording of %s in %s\n", mg_cases[cs].name, argv[1]); return 2; }
    long cnt[MG_NFCLASS][2] = {{0}};
    long bad = check_case((enum mg_case)cs, pl, nt, cnt, verbose);
    long tot = 0;
    for (int c = 0; c < mg_nclass((enum mg_case)cs); c++) tot += cnt[c][0];
    int is_known = 0;
    for (int i = 0; i < nknown; i++) is_known |= !strcmp(known[i], mg_cases[cs].name);
    printf("%-34s %8ld/%ld elements match%s\n", mg_cases[cs].name, tot - bad, tot,
           bad ? is_known ? "  (known gap)" : "  MISMATCH" : "");
    for (int c = 0; bad && c < mg_nclass((enum mg_case)cs); c++)
      printf("    class %2d: %6ld/%ld\n", c, cnt[c][0] - cnt[c][1], cnt[c][0]);
    if (bad && !is_known) rc = 1;
    free(pl);
  }
  return rc;
}
