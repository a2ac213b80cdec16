/*
 * fpcmp.c — compares a warpvm output with a GPU golden output where some values come from
 * approximate (SFU) instructions, whose last bits the hardware does not document.
 *
 *   fpcmp GOLDEN ACTUAL [--ulp N] [--abs E] [--rel R] [--stride K --cols I,J,...] [--allow C] [--report]
 *
 * Lines must match exactly, except hex words in the --print formats x32 ("0x%08x", read as f32
 * bits) and x64 ("0x%016x", read as f64 bits). Such a value passes when both are NaN, or when it is
 * within N units in the last place, or within E absolutely, or within R relatively of the GPU's.
 * With --stride K --cols I,J only the values whose position (counted from each "arg N:" line) is
 * I or J modulo K get that tolerance; the others must still match exactly. --allow C tolerates C
 * values outside the bounds (each is still listed). --report prints the largest differences.
 * Exit 0 when every line passes, 1 otherwise (the first failures are listed), 2 on usage errors.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hex word: returns its width in bits (32 or 64) and value, or 0. */
static int hexword(const char *s, uint64_t *v) {
  size_t n = strlen(s);
  if ((n != 10 && n != 18) || s[0] != '0' || s[1] != 'x') return 0;
  char *end;
  unsigned long long x = strtoull(s + 2, &end, 16);
  if (*end) return 0;
  *v = x;
  return n == 10 ? 32 : 64;
}

static double value(uint64_t b, int bits) {
  if (bits == 32) {
    float f;
    uint32_t u = (uint32_t)b;
    memcpy(&f, &u, 4);
    return f;
  }
  double d;
  memcpy(&d, &b, 8);
  return d;
}

/* Distance in representable values of that width (monotone integer key). */
static uint64_t ulps(uint64_t a, uint64_t b, int bits) {
  uint64_t sign = bits == 32 ? 0x80000000ull : 0x8000000000000000ull;
  __int128 ka = (a & sign) ? -(__int128)(a & ~sign) : (__int128)a;
  __int128 kb = (b & sign) ? -(__int128)(b & ~sign) : (__int128)b;
  __int128 d = ka > kb ? ka - kb : kb - ka;
  return d > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)d;
}

static int getline_(FILE *f, char *buf, size_t n) {
  if (!fgets(buf, (int)n, f)) return 0;
  buf[strcspn(buf, "\n")] = 0;
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fpcmp GOLDEN ACTUAL [--ulp N] [--abs E] [--rel R] [--stride K --cols I,J] [--allow C] [--report]\n");
    return 2;
  }
  uint64_t max_ulp = 0;
  double max_abs = 0, max_rel = 0;
  long allow = 0, stride = 0;
  int report = 0;
  unsigned char cols[256] = {0};
  for (int i = 3; i < argc; i++) {
    if (!strcmp(argv[i], "--ulp") && i + 1 < argc) max_ulp = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--abs") && i + 1 < argc) max_abs = strtod(argv[++i], NULL);
    else if (!strcmp(argv[i], "--rel") && i + 1 < argc) max_rel = strtod(argv[++i], NULL);
    else if (!strcmp(argv[i], "--allow") && i + 1 < argc) allow = strtol(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--stride") && i + 1 < argc) stride = strtol(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--cols") && i + 1 < argc) {
      for (char *p = argv[++i], *e; *p; p = *e ? e + 1 : e) {
        long c = strtol(p, &e, 0);
        if (e == p || c < 0 || c > 255) { fprintf(stderr, "fpcmp: bad --cols\n"); return 2; }
        cols[c] = 1;
      }
    } else if (!strcmp(argv[i], "--report")) report = 1;
    else { fprintf(stderr, "fpcmp: unknown option %s\n", argv[i]); return 2; }
  }
  if (stride < 0 || stride > 256) { fprintf(stderr, "fpcmp: bad --stride\n"); return 2; }
  FILE *g = fopen(argv[1], "r"), *a = fopen(argv[2], "r");
  if (!g || !a) { fprintf(stderr, "fpcmp: cannot open inputs\n"); return 2; }
  char lg[256], la[256];
  long line = 0, bad = 0, inexact = 0, pos = 0;
  uint64_t worst_ulp = 0;
  double worst_abs = 0;
  for (;; pos++) {
    int hg = getline_(g, lg, sizeof lg), ha = getline_(a, la, sizeof la);
    line++;
    if (!hg && !ha) break;
    if (hg != ha) {
      printf("line %ld: %s\n", line, hg ? "warpvm output ends early" : "warpvm output is longer");
      bad++;
      break;
    }
    if (!strncmp(lg, "arg ", 4)) pos = -1; /* values are counted from each buffer's header */
    if (!strcmp(lg, la)) continue;
    uint64_t vg, va;
    int wg = hexword(lg, &vg), wa = hexword(la, &va), ok = 0;
    int tolerant = !stride || cols[pos % stride];
    if (wg && wg == wa && tolerant) {
      double fg = value(vg, wg), fa = value(va, wa), d = fabs(fg - fa);
      uint64_t u = ulps(vg, va, wg);
      if (isnan(fg) && isnan(fa)) ok = 1;
      else if (!isnan(fg) && !isnan(fa)) {
        ok = u <= max_ulp || d <= max_abs || d <= max_rel * fabs(fg);
        inexact++;
        if (u > worst_ulp) worst_ulp = u;
        if (d > worst_abs && !isinf(d)) worst_abs = d;
      }
    }
    if (!ok && bad++ < 10) printf("line %ld: GPU %s, warpvm %s%s\n", line, lg, la, tolerant ? "" : " (an exact column)");
  }
  if (report)
    printf("fpcmp: %ld values differ from the GPU; largest difference %llu ulp, %.3g absolute\n", inexact,
           (unsigned long long)worst_ulp, worst_abs);
  if (bad) printf("fpcmp: %ld values outside the bounds (%ld allowed)\n", bad, allow);
  return bad > allow ? 1 : 0;
}
