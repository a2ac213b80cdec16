/*
 * test_printf.c — unit tests of src/exec/printf_fmt (device printf formatting).
 *
 * Expected strings come from two independent sources: the output of the same printf calls made
 * by a CUDA kernel on an NVIDIA H200 (CUDA 13.0; lines marked "H200"), and, where CUDA itself
 * prints garbage (hh with unsigned conversions, '.*'), the host's own printf called with real
 * C arguments. Argument buffers are laid out as nvcc lays them out (checked in its PTX): each
 * argument after the default promotions, aligned to its own size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/printf_fmt.h"

/* ---- an nvcc-style argument buffer -------------------------------------------------------- */

typedef struct abuf {
  uint8_t b[512];
  size_t n;
} abuf;

static void put_le(abuf *a, uint64_t v, size_t size) {
  a->n = (a->n + size - 1) & ~(size - 1);
  for (size_t i = 0; i < size; i++) a->b[a->n + i] = (uint8_t)(v >> (8 * i));
  a->n += size;
}
static void A_i(abuf *a, int32_t v) { put_le(a, (uint32_t)v, 4); }
static void A_l(abuf *a, int64_t v) { put_le(a, (uint64_t)v, 8); }
static void A_d(abuf *a, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  put_le(a, u, 8);
}
static void A_p(abuf *a, uint64_t addr) { put_le(a, addr, 8); }

/* ---- a fake device memory for %s ------------------------------------------------------------ */

static const char LONG_STR[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopq"
    "rstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQR"
    "STUVWXYZ0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghij"
    "klmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-end";
static const struct {
  uint64_t addr;
  const char *s;
} MEM[] = {{0x1000, "hello"}, {0x2000, "hi"},     {0x3000, ""},       {0x4000, "abc"},
           {0x5000, "str"},   {0x6000, LONG_STR}, {0x7000, "abcdef"}, {0x8000, "xyz"},
           {0x9000, "s1"},    {0x9100, "s3"},     {0x9200, "ab"},     {0x9300, "wide"}};
static int calls;

static int rd(void *user, uint64_t addr, char *buf, size_t cap) {
  (void)user;
  calls++;
  for (size_t i = 0; i < sizeof MEM / sizeof MEM[0]; i++) {
    if (MEM[i].addr == addr) {
      size_t n = strlen(MEM[i].s);
      if (n > cap - 1) n = cap - 1;
      memcpy(buf, MEM[i].s, n);
      buf[n] = 0;
      return (int)n;
    }
  }
  return -1;
}

/* Formats and compares the whole output (length included). */
static void check(const char *fmt, const abuf *a, const char *want, size_t want_len,
                  unsigned want_status, int line) {
  char out[4096];
  unsigned st = 0;
  size_t n = wv_printf_format(fmt, strlen(fmt) + 1, a ? a->b : NULL, a ? a->n : 0, rd, NULL, out,
                              sizeof out, &st);
  if (n != want_len || memcmp(out, want, want_len) != 0)
    fail_msg("line %d: format \"%s\" gave [%.*s] (%zu), want [%.*s] (%zu)", line, fmt, (int)n,
             out, n, (int)want_len, want, want_len);
  if (st != want_status) fail_msg("line %d: status 0x%x, want 0x%x", line, st, want_status);
  /* the growing variant gives the same bytes */
  size_t n2 = 0;
  unsigned st2 = 0;
  char *o2 = wv_printf_format_alloc(fmt, strlen(fmt) + 1, a ? a->b : NULL, a ? a->n : 0, rd,
                                    NULL, &n2, &st2);
  assert_non_null(o2);
  assert_int_equal(n2, n);
  assert_memory_equal(o2, want, want_len);
  assert_int_equal(o2[n2], 0);
  free(o2);
}
#define CHECK(fmt, a, want) check(fmt, a, want, strlen(want), 0, __LINE__)
#define CHECK_ST(fmt, a, want, st) check(fmt, a, want, strlen(want), st, __LINE__)

/* ---- H200 golden lines ---------------------------------------------------------------------- */

static void t_integers(void **st) {
  (void)st;
  abuf a = {0};
  A_i(&a, -42), A_i(&a, 42), A_i(&a, (int32_t)3000000000u), A_i(&a, 0xbeef), A_i(&a, 0xbeef),
      A_i(&a, 8), A_i(&a, 'z');
  CHECK("A|%d|%i|%u|%x|%X|%o|%c|\n", &a, "A|-42|42|3000000000|beef|BEEF|10|z|\n"); /* H200 */
  abuf b = {0};
  for (int i = 0; i < 5; i++) A_i(&b, 42);
  for (int i = 0; i < 3; i++) A_i(&b, 7);
  CHECK("B|%5d|%-5d|%05d|%+d|% d|%.3d|%5.3d|%-+5d|\n", &b,
        "B|   42|42   |00042|+42| 42|007|  007|+7   |\n"); /* H200 */
  abuf j = {0};
  A_i(&j, 255), A_i(&j, 8), A_i(&j, 255), A_d(&j, 1.0), A_d(&j, 3.0), A_i(&j, 0);
  CHECK("J|%#x|%#o|%#X|%#g|%#.0f|%#x|\n", &j, "J|0xff|010|0XFF|1.00000|3.|0|\n"); /* H200 */
  abuf v = {0};
  A_i(&v, 0), A_i(&v, 0), A_i(&v, 0);
  CHECK("V|%.0d|%.0x|%#.0o|\n", &v, "V|||0|\n"); /* H200 */
  abuf h = {0};
  A_i(&h, 255), A_i(&h, 255), A_i(&h, 5);
  CHECK("h|%-#10x|%+x|% u|\n", &h, "h|0xff      |ff|5|\n"); /* H200 */
  abuf jl = {0};
  A_l(&jl, -1), A_l(&jl, INT64_MIN);
  CHECK("j|%lu|%ld|\n", &jl, "j|18446744073709551615|-9223372036854775808|\n"); /* H200 */
  abuf k = {0};
  A_i(&k, -129), A_i(&k, -32769);
  CHECK("k|%hhi|%hi|\n", &k, "k|127|32767|\n"); /* H200 (signed h/hh) */
  abuf m = {0};
  A_d(&m, 3.5), A_i(&m, 5), A_i(&m, 5);
  CHECK("m|%08.3e|%-+8d|%+-8d|\n", &m, "m|3.500e+00|+5      |+5      |\n"); /* H200 */
  abuf p = {0};
  A_i(&p, 1), A_i(&p, 2), A_i(&p, 3), A_i(&p, 4);
  CHECK("P13|%u|%u|%hu|%u|\n", &p, "P13|1|2|3|4|\n"); /* H200 */
  CHECK("P15|%hx|%hx|%hx|%hx|\n", &p, "P15|1|2|3|4|\n");  /* H200 */
  abuf p3 = {0};
  A_i(&p3, 70000), A_i(&p3, 7);
  CHECK("P5|%hu|%d|\n", &p3, "P5|4464|7|\n"); /* H200 */
  abuf p21 = {0};
  A_i(&p21, 8), A_i(&p21, 255), A_i(&p21, 7);
  CHECK("P21|%ho|%hX|%d|\n", &p21, "P21|10|FF|7|\n"); /* H200 */
  abuf q2 = {0};
  A_i(&q2, 5);
  CHECK("Q2|%d|100%%|\n", &q2, "Q2|5|100%|\n"); /* H200 */
  abuf q7 = {0};
  A_i(&q7, -1), A_i(&q7, -1), A_i(&q7, 3054);
  CHECK("Q7|%x|%o|%X|\n", &q7, "Q7|ffffffff|37777777777|BEE|\n"); /* H200 */
  abuf l = {0};
  A_i(&l, 0x141);
  CHECK("l|%c|\n", &l, "l|A|\n"); /* H200: %c prints (unsigned char) */
  /* 64-bit arguments are 8-aligned after a 4-byte one (nvcc layout). */
  abuf z = {0};
  A_i(&z, 7), A_l(&z, -8), A_i(&z, 9), A_p(&z, 0x10);
  CHECK("Z|%d|%lld|%d|%p|\n", &z, "Z|7|-8|9|0x10|\n"); /* H200 */
  abuf p20 = {0};
  A_l(&p20, 1), A_i(&p20, 2), A_l(&p20, 3);
  CHECK("P20|%lu|%hu|%lu|\n", &p20, "P20|1|2|3|\n"); /* H200 */
}

static void t_floats(void **st) {
  (void)st;
  abuf d = {0};
  A_d(&d, 3.14159f), A_d(&d, 2.71828), A_d(&d, 12345.678), A_d(&d, 1e-10), A_d(&d, 1e20),
      A_d(&d, 1e-5), A_d(&d, 1.0), A_d(&d, -0.5);
  CHECK("D|%f|%.2f|%10.3e|%E|%g|%G|%a|%A|\n", &d,
        "D|3.141590|2.72| 1.235e+04|1.000000E-10|1e+20|1E-05|0x1p+0|-0X1P-1|\n"); /* H200 */
  abuf i = {0};
  const double inf = 1.0 / 0.0;
  A_d(&i, inf), A_d(&i, -inf), A_l(&i, (int64_t)0xfff8000000000000ull), A_d(&i, -0.0),
      A_d(&i, -0.0);
  /* H200 printed "-nan" for 0.0/0 (the GPU's default f64 NaN 0xfff8... has the sign set). */
  CHECK("I|%f|%f|%f|%e|%g|\n", &i, "I|inf|-inf|-nan|-0.000000e+00|-0|\n");
  abuf r = {0};
  A_d(&r, -3.14159), A_d(&r, 12345.0), A_d(&r, 2.5);
  CHECK("R|%-08.3f|%+.0e|% 08.2f|\n", &r, "R|-3.142  |+1e+04| 0002.50|\n"); /* H200 */
  abuf x = {0};
  A_i(&x, 1), A_i(&x, 2), A_d(&x, 3.0), A_i(&x, 4);
  CHECK("X|%d|%d|%f|%d|\n", &x, "X|1|2|3.000000|4|\n"); /* H200 */
  abuf dd = {0};
  A_d(&dd, 0.1);
  CHECK("d|%.60f|\n", &dd, "d|0.100000000000000005551115123125782702118158340454101562500000|\n");
  abuf e = {0};
  A_d(&e, 123456.0), A_d(&e, -1e-300), A_d(&e, -1.5);
  CHECK("e|%+5.1g|%-12.4e|%012.3f|\n", &e, "e|+1e+05|-1.0000e-300|-0000001.500|\n"); /* H200 */
  abuf n = {0};
  A_d(&n, 1.5), A_d(&n, 2.5);
  CHECK("N|%lf|%hf|\n", &n, "N|1.500000|2.500000|\n"); /* H200: l and h ignored on f */
  abuf p = {0};
  A_d(&p, 1.0), A_i(&p, 2), A_d(&p, 3.0);
  CHECK("P24|%f|%hu|%f|\n", &p, "P24|1.000000|2|3.000000|\n"); /* H200 */
  abuf q5 = {0};
  A_d(&q5, 0.0), A_d(&q5, 1e-300), A_d(&q5, 123456789.0), A_d(&q5, 0.0001);
  CHECK("Q5|%+.3e|%G|%g|%g|\n", &q5, "Q5|+0.000e+00|1E-300|1.23457e+08|0.0001|\n"); /* H200 */
  abuf q6 = {0};
  A_d(&q6, 1.0), A_d(&q6, 1.0), A_d(&q6, 2.5), A_d(&q6, 2.5), A_d(&q6, 3.5);
  CHECK("Q6|%#.3g|%#a|%.0e|%.0f|%.0f|\n", &q6, "Q6|1.00|0x1.p+0|2e+00|2|4|\n"); /* H200 */
  abuf q8 = {0};
  A_d(&q8, -0.05), A_d(&q8, 123.0), A_d(&q8, 1.0 / 3.0);
  CHECK("Q8|%5.1f|%-10.2e|%+g|\n", &q8, "Q8| -0.1|1.23e+02  |+0.333333|\n"); /* H200 */
  abuf p12 = {0};
  A_d(&p12, 3.14159), A_i(&p12, 9);
  CHECK("P12|%.3f|%d|\n", &p12, "P12|3.142|9|\n"); /* H200 */
  /* %Lf: device long double is double */
  abuf lf = {0};
  A_d(&lf, 1.25), A_d(&lf, 0.0);
  CHECK("%Lf %LG", &lf, "1.250000 0");
}

static void t_strings_pointers(void **st) {
  (void)st;
  abuf e = {0};
  A_p(&e, 0x1000), A_p(&e, 0x1000), A_p(&e, 0x2000), A_p(&e, 0x2000);
  CHECK("E|%s|%.3s|%10s|%-10s|\n", &e, "E|hello|hel|        hi|hi        |\n"); /* H200 */
  abuf e2 = {0};
  A_p(&e2, 0);
  CHECK("E2|%s|\n", &e2, "E2|(null)|\n"); /* H200 */
  abuf e3 = {0};
  A_p(&e3, 0), A_p(&e3, 0);
  CHECK("E3|%.3s|%10s|\n", &e3, "E3||    (null)|\n"); /* H200 */
  abuf f = {0};
  A_p(&f, 0x1234), A_p(&f, 0), A_p(&f, 0xab);
  CHECK("F|%p|%p|%10p|\n", &f, "F|0x1234|(nil)|      0xab|\n"); /* H200 */
  abuf s = {0};
  A_p(&s, 0x3000), A_p(&s, 0x4000), A_p(&s, 0x4000);
  CHECK("S|%s|%.0s|%.10s|\n", &s, "S|||abc|\n"); /* H200 */
  abuf y = {0};
  A_i(&y, 1), A_d(&y, 2.0), A_l(&y, 3), A_i(&y, 'q'), A_p(&y, 0x5000), A_i(&y, 5);
  CHECK("Y|%d|%f|%ld|%c|%s|%d|\n", &y, "Y|1|2.000000|3|q|str|5|\n"); /* H200 */
  abuf q = {0};
  A_i(&q, -1), A_p(&q, 0x9200), A_i(&q, 'c');
  CHECK("a|%i %%%% %5s|%-3c|\n", &q, "a|-1 %%    ab|c  |\n"); /* H200 */
  abuf p25 = {0};
  A_p(&p25, 0x9000), A_i(&p25, 2), A_p(&p25, 0x9100);
  CHECK("P25|%s|%hu|%s|\n", &p25, "P25|s1|2|s3|\n"); /* H200 */
  abuf u = {0};
  A_i(&u, 'x'), A_i(&u, 'y');
  CHECK("U|%5c|%-5c|\n", &u, "U|    x|y    |\n"); /* H200 */
  /* %c of 0 writes a NUL byte into the output (H200: "Q3|a\0b|"). */
  abuf c0 = {0};
  A_i(&c0, 0);
  check("Q3|a%cb|\n", &c0, "Q3|a\0b|\n", 8, 0, __LINE__);
  abuf q4 = {0};
  A_p(&q4, 0x7000), A_p(&q4, 0x8000);
  CHECK("Q4|%.3s|%-6.2s|\n", &q4, "Q4|abc|xy    |\n"); /* H200 */
  /* Long strings come through the callback in growing reads; precision limits the read. */
  abuf lg = {0};
  A_p(&lg, 0x6000);
  CHECK("%s", &lg, LONG_STR);
  calls = 0;
  CHECK("[%.5s]", &lg, "[01234]");
  assert_int_equal(calls, 2); /* once for check(), once for the alloc variant */
  abuf pr = {0};
  A_p(&pr, 0x7000), A_p(&pr, 0x8000);
  CHECK("%.3s|%-6.2s|", &pr, "abc|xy    |");
  /* An unreadable pointer prints the marker and is reported. */
  abuf bad = {0};
  A_p(&bad, 0xdead0000), A_i(&bad, 3);
  CHECK_ST("<%s>%d", &bad, "<" WV_PRINTF_BAD_STR ">3", WV_PRINTF_ST_BAD_STRING);
  CHECK_ST("<%8.3s>", &bad, "<     (ba>", WV_PRINTF_ST_BAD_STRING);
  /* %lc / %ls print as %c / %s */
  abuf w = {0};
  A_p(&w, 0x9300), A_i(&w, 'w');
  CHECK("f|%ls|%lc|", &w, "f|wide|w|");
}

static void t_malformed(void **st) {
  (void)st;
  abuf l = {0};
  A_i(&l, 1), A_i(&l, 2);
  /* unknown conversions print literally and take no argument (H200) */
  CHECK_ST("L|%d %y %d|\n", &l, "L|1 %y 2|\n", WV_PRINTF_ST_BAD_FORMAT);
  abuf g = {0};
  A_i(&g, 11);
  CHECK_ST("g|%k%d|\n", &g, "g|%k11|\n", WV_PRINTF_ST_BAD_FORMAT);
  abuf c = {0};
  A_i(&c, 5);
  CHECK_ST("\nc|%1$d|\n", &c, "\nc|%1$d|\n", WV_PRINTF_ST_BAD_FORMAT); /* H200 */
  abuf b = {0};
  A_i(&b, 3);
  CHECK_ST("b|%d %5", &b, "b|3 %5", WV_PRINTF_ST_BAD_FORMAT); /* H200: cut-off spec */
  CHECK_ST("trailing %", &b, "trailing %", WV_PRINTF_ST_BAD_FORMAT);
  CHECK_ST("%-#", &b, "%-#", WV_PRINTF_ST_BAD_FORMAT);
  CHECK_ST("%.", &b, "%.", WV_PRINTF_ST_BAD_FORMAT);
  CHECK_ST("%ll", &b, "%ll", WV_PRINTF_ST_BAD_FORMAT);
  /* "%5%" with arguments: glibc prints one '%' (H200: "P17|%|7|") */
  abuf p17 = {0};
  A_i(&p17, 7);
  CHECK("P17|%5%|%d|\n", &p17, "P17|%|7|\n");
  /* %n consumes its pointer and writes nothing */
  abuf n = {0};
  A_i(&n, 1), A_p(&n, 0x1000), A_i(&n, 2);
  CHECK_ST("%d%n|%d", &n, "1|2", WV_PRINTF_ST_IGNORED_N);
  /* the format stops at a NUL inside fmt_len */
  char out[32];
  size_t len = wv_printf_format("ab\0cd", 5, (const uint8_t *)"", 0, rd, NULL, out, sizeof out,
                                NULL);
  assert_int_equal(len, 2);
  assert_string_equal(out, "ab");
  /* ...and needs no NUL at all within fmt_len */
  len = wv_printf_format("xyz%", 3, (const uint8_t *)"", 0, rd, NULL, out, sizeof out, NULL);
  assert_int_equal(len, 3);
  assert_string_equal(out, "xyz");
}

static void t_no_args(void **st) {
  (void)st;
  /* printf with only a format passes a null argbuf (nvcc: st.param.b64 [param1], 0). H200:
   * "%%" still prints '%', any other conversion comes out as written. */
  CHECK("M|%5%|%-5%|\n", NULL, "M|%5%|%-5%|\n");
  CHECK_ST("P|trailing %", NULL, "P|trailing %", WV_PRINTF_ST_BAD_FORMAT);
  CHECK("Q1|100%% done|\n", NULL, "Q1|100% done|\n");
  /* a conversion needing an argument faults on the device: reported, printed as written */
  CHECK_ST("x=%d %s", NULL, "x=%d %s", WV_PRINTF_ST_ARGS_SHORT);
  /* a non-null but empty buffer is an ordinary format whose arguments are missing */
  abuf e = {0};
  CHECK("100%% done", &e, "100% done");
}

static void t_args_short(void **st) {
  (void)st;
  abuf a = {0};
  A_i(&a, 5);
  CHECK_ST("%d %d %s %f", &a, "5 0 (null) 0.000000", WV_PRINTF_ST_ARGS_SHORT);
  /* half of an 8-byte argument present: the missing bytes read as 0 */
  abuf h = {0};
  A_i(&h, 0x12345678);
  CHECK_ST("%llx", &h, "12345678", WV_PRINTF_ST_ARGS_SHORT);
}

static void t_star_and_host_oracle(void **st) {
  (void)st;
  /* '*' width/precision take int arguments (CUDA prints garbage for '.*': we follow C). */
  abuf h = {0};
  A_i(&h, 6), A_i(&h, 42), A_i(&h, 6), A_i(&h, 42), A_i(&h, 2), A_d(&h, 3.14159), A_i(&h, 8),
      A_i(&h, 3), A_d(&h, 2.5), A_i(&h, -6), A_i(&h, 42);
  char want[1024];
  snprintf(want, sizeof want, "H|%*d|%-*d|%.*f|%*.*f|%*d|\n", 6, 42, 6, 42, 2, 3.14159, 8, 3,
           2.5, -6, 42);
  CHECK("H|%*d|%-*d|%.*f|%*.*f|%*d|\n", &h, want);
  abuf np = {0};
  A_i(&np, -3), A_d(&np, 1.0 / 3.0);
  snprintf(want, sizeof want, "%.*f", -3, 1.0 / 3.0); /* negative precision: as if omitted */
  CHECK("%.*f", &np, want);
  /* h narrows as C does; %hhd and %hhu print 108 whatever the value on an H200 (CUDA 13, driver
   * 580.159: tests/kernels/golden/printf.formats*.out, three different arguments). */
  abuf c = {0};
  A_l(&c, -1), A_l(&c, 1ll << 40), A_l(&c, -1), A_l(&c, 0xdeadbeefcafell), A_i(&c, 70000),
      A_i(&c, 300), A_i(&c, 70000), A_i(&c, 300);
  snprintf(want, sizeof want, "C|%ld|%lld|%lu|%llx|%hd|%hhd|%hu|%hhu|\n", -1L, 1LL << 40,
           (unsigned long)-1, 0xdeadbeefcafeULL, (short)4464, (signed char)108,
           (unsigned short)4464, (unsigned char)108); /* 70000 and 300 narrowed; hh: 108 */
  CHECK("C|%ld|%lld|%lu|%llx|%hd|%hhd|%hu|%hhu|\n", &c, want);
  abuf w = {0};
  A_i(&w, 0x1ff), A_i(&w, 0x1ffff), A_l(&w, 0x1ffffffffll);
  CHECK("W|%hhx|%hx|%lx|\n", &w, "W|ff|ffff|1ffffffff|\n");
  /* z j t q read 8 bytes, like l */
  abuf k = {0};
  A_l(&k, 123), A_l(&k, -5), A_l(&k, -7), A_l(&k, 9), A_l(&k, 10);
  CHECK("K|%zu|%zd|%jd|%td|%qd|\n", &k, "K|123|-5|-7|9|10|\n");
  /* A sweep of flag/width/precision combinations against the host printf. */
  const char *convs = "diuxXoeEfFgGaAc";
  const char *flags[] = {"", "-", "+", " ", "#", "0", "-+", "+0", "# ", "-#0"};
  const char *widths[] = {"", "1", "7", "12"};
  const char *precs[] = {"", ".", ".0", ".3", ".11"};
  const int ivals[] = {0, 1, -1, 42, -2147483647 - 1, 2147483647, 255};
  const double dvals[] = {0.0, -0.0, 1.5, -2.25, 1e-7, 123456789.125, 1e300};
  for (const char *cv = convs; *cv; cv++) {
    for (size_t fi = 0; fi < sizeof flags / sizeof flags[0]; fi++) {
      for (size_t wi = 0; wi < 4; wi++) {
        for (size_t pi = 0; pi < 5; pi++) {
          for (int vi = 0; vi < 7; vi++) {
            char spec[32];
            snprintf(spec, sizeof spec, "[%%%s%s%s%c]", flags[fi], widths[wi], precs[pi], *cv);
            abuf a = {0};
            int isf = strchr("eEfFgGaA", *cv) != NULL;
            if (isf) A_d(&a, dvals[vi]);
            else A_i(&a, ivals[vi]);
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
            int wn = isf ? snprintf(want, sizeof want, spec, dvals[vi])
                         : snprintf(want, sizeof want, spec, ivals[vi]);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
            check(spec, &a, want, (size_t)wn, 0, __LINE__);
          }
        }
      }
    }
  }
}

static void t_output_limits(void **st) {
  (void)st;
  abuf a = {0};
  A_i(&a, 123456);
  char out[5];
  unsigned s = 0;
  size_t n = wv_printf_format("v=%d!", 6, a.b, a.n, rd, NULL, out, sizeof out, &s);
  assert_int_equal(n, 9); /* like snprintf: the full length */
  assert_string_equal(out, "v=12");
  assert_int_equal(s, WV_PRINTF_ST_TRUNCATED);
  n = wv_printf_format("v=%d!", 6, a.b, a.n, rd, NULL, NULL, 0, NULL);
  assert_int_equal(n, 9);
  /* a device format asking for a gigantic field is clamped */
  s = 0;
  char *o = wv_printf_format_alloc("%999999999d|%.888888888f", 25, a.b, a.n, rd, NULL, &n, &s);
  assert_non_null(o);
  assert_int_equal(s, WV_PRINTF_ST_CLAMPED | WV_PRINTF_ST_ARGS_SHORT);
  assert_int_equal(n, WV_PRINTF_MAX_FIELD + 1 + 2 + WV_PRINTF_MAX_FIELD);
  assert_memory_equal(o + WV_PRINTF_MAX_FIELD - 6, "123456|0.", 9);
  free(o);
}

/* Random formats and argument bytes: must never crash (run under ASan/UBSan), always terminate
 * the output and agree between the two entry points. */
static void t_fuzz(void **st) {
  (void)st;
  uint64_t r = 0x853c49e6748fea9bull;
  const char alphabet[] = "%%%%dsiuxXocpnfgeaAlhzjtqL*.0123456789-+ #$|yk\\";
  for (int it = 0; it < 20000; it++) {
    char fmt[40];
    size_t fl = 0;
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    size_t len = (size_t)(r >> 59) + 1;
    for (size_t i = 0; i < len; i++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      fmt[fl++] = alphabet[(r >> 33) % (sizeof alphabet - 1)];
    }
    uint8_t args[64];
    size_t an = (size_t)((r >> 20) % 65);
    for (size_t i = 0; i < sizeof args; i++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      /* small values keep %s pointers inside the fake memory's address range now and then */
      args[i] = (uint8_t)((r >> 40) % 3 == 0 ? 0 : (r >> 48));
    }
    char out[256];
    unsigned s1 = 0, s2 = 0;
    size_t n1 = wv_printf_format(fmt, fl, args, an, rd, NULL, out, sizeof out, &s1);
    size_t n2 = 0;
    char *o2 = wv_printf_format_alloc(fmt, fl, args, an, rd, NULL, &n2, &s2);
    assert_non_null(o2);
    assert_int_equal(n1, n2);
    size_t k = n1 < sizeof out - 1 ? n1 : sizeof out - 1;
    assert_int_equal(out[k], 0);
    assert_memory_equal(out, o2, k);
    assert_int_equal(s1 & ~(unsigned)WV_PRINTF_ST_TRUNCATED, s2);
    free(o2);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_integers),        cmocka_unit_test(t_floats),
      cmocka_unit_test(t_strings_pointers), cmocka_unit_test(t_malformed),
      cmocka_unit_test(t_no_args),     cmocka_unit_test(t_args_short),
      cmocka_unit_test(t_star_and_host_oracle), cmocka_unit_test(t_output_limits),
      cmocka_unit_test(t_fuzz),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
