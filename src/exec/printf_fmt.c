/*
 * printf_fmt.c — device printf formatting (see printf_fmt.h for the contract and the measured
 * CUDA behaviour). Parses the device format string defensively, pulls each argument out of the
 * nvcc argument buffer by its promoted size and alignment, and formats one conversion at a time
 * with the host snprintf, so the text matches what CUDA's host side prints with glibc.
 */
#include "exec/printf_fmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output sink ---------------------------------------------------------------------------- */

typedef struct sink {
  char *buf;
  size_t cap; /* bytes available in buf, NUL included */
  size_t len; /* length of the complete output so far */
  int grow;   /* buf is ours and may be realloc'd */
  int nomem;
} sink;

static void put(sink *s, const char *p, size_t n) {
  if (n == 0) return;
  if (s->grow && !s->nomem && s->len + n + 1 > s->cap) {
    size_t ncap = s->cap ? s->cap : 64;
    while (ncap < s->len + n + 1) ncap *= 2;
    char *nb = realloc(s->buf, ncap);
    if (!nb) s->nomem = 1;
    else s->buf = nb, s->cap = ncap;
  }
  if (s->cap > 0 && s->len < s->cap - 1) {
    size_t room = s->cap - 1 - s->len;
    memcpy(s->buf + s->len, p, n < room ? n : room);
  }
  s->len += n;
}

/* ---- argument buffer ------------------------------------------------------------------------ */

typedef struct argrd {
  const uint8_t *p;
  size_t len, off;
  unsigned st;
} argrd;

/* The next argument of `size` bytes (4 or 8), aligned to its size; bytes past the end read 0. */
static uint64_t take(argrd *a, size_t size) {
  a->off = (a->off + size - 1) & ~(size - 1);
  uint64_t v = 0;
  for (size_t i = 0; i < size; i++) {
    uint64_t byte = 0;
    if (a->p && a->off + i >= a->off && a->off + i < a->len) byte = a->p[a->off + i];
    else a->st |= WV_PRINTF_ST_ARGS_SHORT;
    v |= byte << (8 * i); /* the device is little-endian */
  }
  a->off += size;
  return v;
}
static int take_int(argrd *a) {
  uint32_t u = (uint32_t)take(a, 4);
  int32_t v;
  memcpy(&v, &u, 4);
  return v;
}

/* ---- one conversion through snprintf -------------------------------------------------------- */

/* snprintf with a spec built at run time. GCC/Clang cannot check a non-literal format; the spec
 * is assembled below from a closed set of characters matching the argument's type. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
#define EMIT(S, SPEC, VAL)                                                                       \
  do {                                                                                           \
    char tmp_[512];                                                                              \
    int n_ = snprintf(tmp_, sizeof tmp_, SPEC, VAL);                                             \
    if (n_ < 0) break;                                                                           \
    if ((size_t)n_ < sizeof tmp_) {                                                              \
      put(S, tmp_, (size_t)n_);                                                                  \
    } else {                                                                                     \
      char *big_ = malloc((size_t)n_ + 1);                                                       \
      if (!big_) { (S)->nomem = 1; break; }                                                      \
      snprintf(big_, (size_t)n_ + 1, SPEC, VAL);                                                 \
      put(S, big_, (size_t)n_);                                                                  \
      free(big_);                                                                                \
    }                                                                                            \
  } while (0)

static void emit_ll(sink *s, const char *spec, long long v) { EMIT(s, spec, v); }
static void emit_ull(sink *s, const char *spec, unsigned long long v) { EMIT(s, spec, v); }
static void emit_i(sink *s, const char *spec, int v) { EMIT(s, spec, v); }
static void emit_u(sink *s, const char *spec, unsigned v) { EMIT(s, spec, v); }
static void emit_d(sink *s, const char *spec, double v) { EMIT(s, spec, v); }
static void emit_s(sink *s, const char *spec, const char *v) { EMIT(s, spec, v); }
static void emit_p(sink *s, const char *spec, void *v) { EMIT(s, spec, v); }
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* Reads the device string for %s into a malloc'd buffer: at most `limit` bytes. NULL when the
 * address cannot be read (or no memory: *nomem set). */
static char *read_device_str(wv_printf_read_str_fn rd, void *user, uint64_t addr, size_t limit,
                             int *nomem) {
  if (!rd) return NULL;
  size_t cap = 256;
  for (;;) {
    size_t want = limit + 1 < cap ? limit + 1 : cap;
    char *b = malloc(want);
    if (!b) {
      *nomem = 1;
      return NULL;
    }
    b[0] = 0;
    int n = rd(user, addr, b, want);
    if (n < 0) {
      free(b);
      return NULL;
    }
    b[want - 1] = 0;
    /* Done if the string ended inside the buffer or we already have all we may print. */
    if ((size_t)n < want - 1 || want == limit + 1) return b;
    free(b);
    cap *= 2;
  }
}

/* ---- the formatter -------------------------------------------------------------------------- */

static int is_flag(char c) { return c == '-' || c == '+' || c == ' ' || c == '#' || c == '0'; }

/* Parses a decimal field, clamped to WV_PRINTF_MAX_FIELD. */
static int parse_num(const char *f, size_t n, size_t *i, unsigned *st) {
  long v = 0;
  while (*i < n && f[*i] >= '0' && f[*i] <= '9') {
    v = v * 10 + (f[*i] - '0');
    if (v > WV_PRINTF_MAX_FIELD) {
      v = WV_PRINTF_MAX_FIELD;
      *st |= WV_PRINTF_ST_CLAMPED;
    }
    (*i)++;
  }
  return (int)v;
}

static void format_all(sink *s, const char *fmt, size_t fmt_len, const uint8_t *args,
                       size_t args_len, wv_printf_read_str_fn rd, void *user, unsigned *stp) {
  size_t n = 0;
  while (n < fmt_len && fmt[n]) n++; /* the format ends at its NUL */
  argrd a = {args, args_len, 0, 0};
  unsigned st = 0;
  size_t i = 0;
  while (i < n) {
    if (fmt[i] != '%') {
      size_t j = i;
      while (j < n && fmt[j] != '%') j++;
      put(s, fmt + i, j - i);
      i = j;
      continue;
    }
    size_t start = i++;
    /* flags (each kept once, in a fixed order) */
    int fl_minus = 0, fl_plus = 0, fl_space = 0, fl_hash = 0, fl_zero = 0;
    while (i < n && is_flag(fmt[i])) {
      switch (fmt[i]) {
      case '-': fl_minus = 1; break;
      case '+': fl_plus = 1; break;
      case ' ': fl_space = 1; break;
      case '#': fl_hash = 1; break;
      default: fl_zero = 1; break;
      }
      i++;
    }
    int width = -1, width_star = 0, prec = -1, prec_star = 0;
    if (i < n && fmt[i] == '*') width_star = 1, i++;
    else if (i < n && fmt[i] >= '0' && fmt[i] <= '9') width = parse_num(fmt, n, &i, &st);
    if (i < n && fmt[i] == '.') {
      i++;
      if (i < n && fmt[i] == '*') prec_star = 1, i++;
      else prec = parse_num(fmt, n, &i, &st); /* "." alone means 0 */
    }
    /* length modifier */
    int len_long = 0, len_h = 0; /* len_h: 1 = h, 2 = hh */
    int len_L = 0;
    if (i < n) {
      char c = fmt[i];
      if (c == 'h') {
        len_h = 1, i++;
        if (i < n && fmt[i] == 'h') len_h = 2, i++;
      } else if (c == 'l') {
        len_long = 1, i++;
        if (i < n && fmt[i] == 'l') i++;
      } else if (c == 'z' || c == 'j' || c == 't' || c == 'q') {
        len_long = 1, i++;
      } else if (c == 'L') {
        len_L = 1, i++;
      }
    }
    if (i >= n) { /* the format ended inside the conversion: print it as it is */
      put(s, fmt + start, n - start);
      st |= WV_PRINTF_ST_BAD_FORMAT;
      break;
    }
    char conv = fmt[i++];
    int kind; /* 0 int, 1 unsigned, 2 char, 3 string, 4 pointer, 5 double, 6 %, 7 n */
    switch (conv) {
    case 'd': case 'i': kind = 0; break;
    case 'u': case 'o': case 'x': case 'X': kind = 1; break;
    case 'c': kind = 2; break;
    case 's': kind = 3; break;
    case 'p': kind = 4; break;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': kind = 5; break;
    case '%': kind = 6; break;
    case 'n': kind = 7; break;
    default: kind = -1; break;
    }
    if (kind < 0) { /* unknown conversion: literal, no argument consumed */
      put(s, fmt + start, i - start);
      st |= WV_PRINTF_ST_BAD_FORMAT;
      continue;
    }
    if (!args && !(kind == 6 && i - start == 2)) {
      /* No argument buffer (printf with a format only): CUDA prints every conversion but a
       * plain "%%" as written ("%5%" stays "%5%"); one that needs an argument faults on the
       * device, which we report as a short argument buffer. */
      put(s, fmt + start, i - start);
      if (kind != 6) st |= WV_PRINTF_ST_ARGS_SHORT;
      continue;
    }
    if (kind == 6) { /* glibc prints a lone '%' whatever the flags/width */
      put(s, "%", 1);
      continue;
    }
    if (width_star) {
      int w = take_int(&a);
      if (w < 0) {
        fl_minus = 1;
        w = w == -2147483647 - 1 ? 2147483647 : -w;
      }
      width = w;
      if (width > WV_PRINTF_MAX_FIELD) width = WV_PRINTF_MAX_FIELD, st |= WV_PRINTF_ST_CLAMPED;
    }
    if (prec_star) {
      int p = take_int(&a);
      prec = p < 0 ? -1 : p;
      if (prec > WV_PRINTF_MAX_FIELD) prec = WV_PRINTF_MAX_FIELD, st |= WV_PRINTF_ST_CLAMPED;
    }
    if (len_L && (kind == 0 || kind == 1)) len_long = 1; /* %Ld = %lld */

    /* rebuild the spec: % flags width .prec length conv */
    char spec[64];
    size_t k = 0;
    spec[k++] = '%';
    if (fl_minus) spec[k++] = '-';
    if (fl_plus) spec[k++] = '+';
    if (fl_space) spec[k++] = ' ';
    if (fl_hash) spec[k++] = '#';
    if (fl_zero) spec[k++] = '0';
    if (width >= 0) k += (size_t)snprintf(spec + k, sizeof spec - k, "%d", width);
    if (prec >= 0) k += (size_t)snprintf(spec + k, sizeof spec - k, ".%d", prec);
    if (kind == 0 || kind == 1) {
      if (len_long) spec[k++] = 'l', spec[k++] = 'l';
      else if (len_h == 1) spec[k++] = 'h';
      else if (len_h == 2) spec[k++] = 'h', spec[k++] = 'h';
    }
    spec[k++] = conv;
    spec[k] = 0;

    /* CUDA 13's device printf prints 108 for %hhd and %hhu whatever the argument (an H200 with
     * driver 580.159, three different values: tests/kernels printf.formats*), while %hhi
     * truncates to a char as C does (test_printf.c). The GPU is the judge. */
    int hh_quirk = len_h == 2 && (conv == 'd' || conv == 'u');
    switch (kind) {
    case 0:
      if (hh_quirk) {
        (void)take_int(&a);
        emit_i(s, spec, 108);
      } else if (len_long) {
        uint64_t u = take(&a, 8);
        long long v;
        memcpy(&v, &u, 8);
        emit_ll(s, spec, v);
      } else {
        emit_i(s, spec, take_int(&a));
      }
      break;
    case 1:
      if (hh_quirk) (void)take(&a, 4), emit_u(s, spec, 108);
      else if (len_long) emit_ull(s, spec, (unsigned long long)take(&a, 8));
      else emit_u(s, spec, (unsigned)take(&a, 4));
      break;
    case 2: emit_i(s, spec, take_int(&a)); break;
    case 4: emit_p(s, spec, (void *)(uintptr_t)take(&a, 8)); break;
    case 5: {
      uint64_t u = take(&a, 8);
      double v;
      memcpy(&v, &u, 8);
      emit_d(s, spec, v);
      break;
    }
    case 7:
      (void)take(&a, 8); /* %n: never written through */
      st |= WV_PRINTF_ST_IGNORED_N;
      break;
    default: { /* 3: %s */
      uint64_t addr = take(&a, 8);
      if (addr == 0) { /* glibc: "(null)", or nothing when the precision cannot hold it */
        emit_s(s, spec, (prec >= 0 && prec < 6) ? "" : "(null)");
        break;
      }
      size_t limit = prec >= 0 && (size_t)prec < WV_PRINTF_MAX_STR ? (size_t)prec
                                                                    : WV_PRINTF_MAX_STR;
      char *str = read_device_str(rd, user, addr, limit, &s->nomem);
      if (!str) {
        if (!s->nomem) st |= WV_PRINTF_ST_BAD_STRING;
        emit_s(s, spec, WV_PRINTF_BAD_STR);
      } else {
        emit_s(s, spec, str);
        free(str);
      }
      break;
    }
    }
  }
  if (stp) *stp |= st | a.st;
}

size_t wv_printf_format(const char *fmt, size_t fmt_len, const uint8_t *args, size_t args_len,
                        wv_printf_read_str_fn read_str, void *user, char *out, size_t outcap,
                        unsigned *status) {
  sink s = {out, out ? outcap : 0, 0, 0, 0};
  unsigned st = 0;
  if (fmt) format_all(&s, fmt, fmt_len, args, args_len, read_str, user, &st);
  if (s.cap > 0) s.buf[s.len < s.cap - 1 ? s.len : s.cap - 1] = 0;
  if (s.len + 1 > s.cap) st |= WV_PRINTF_ST_TRUNCATED;
  if (s.nomem) st |= WV_PRINTF_ST_NOMEM;
  if (status) *status |= st;
  return s.len;
}

char *wv_printf_format_alloc(const char *fmt, size_t fmt_len, const uint8_t *args,
                             size_t args_len, wv_printf_read_str_fn read_str, void *user,
                             size_t *len, unsigned *status) {
  sink s = {malloc(64), 64, 0, 1, 0};
  if (!s.buf) return NULL;
  unsigned st = 0;
  if (fmt) format_all(&s, fmt, fmt_len, args, args_len, read_str, user, &st);
  if (s.nomem) {
    free(s.buf);
    if (status) *status |= st | WV_PRINTF_ST_NOMEM;
    return NULL;
  }
  s.buf[s.len] = 0;
  if (len) *len = s.len;
  if (status) *status |= st;
  return s.buf;
}
