/*
 * lexer.c — the PTX tokenizer (see lexer.h for the token shapes) and the shared error formatting.
 *
 * Reads strictly within text[0..len): every look-ahead is bounds-checked, so input need not be
 * NUL-terminated and may hold NUL or any other byte. Malformed input yields one message, never
 * a crash; every loop consumes at least one byte, so it always terminates.
 */
#include "ptx/lexer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ptx_lexer_init(ptx_lexer *lx, const char *text, size_t len, const char *filename, char *err,
                    size_t errlen) {
  memset(lx, 0, sizeof *lx);
  lx->text = text ? text : "";
  lx->len = text ? len : 0;
  lx->line = 1;
  lx->filename = filename ? filename : "<ptx>";
  lx->err = err;
  lx->errlen = errlen;
  if (lx->len >= 3 && memcmp(lx->text, "\xEF\xBB\xBF", 3) == 0) /* UTF-8 byte order mark */
    lx->pos = lx->line_start = 3;
}

void ptx_format_error(char *buf, size_t buflen, const char *filename, ptx_loc loc, const char *fmt,
                      ...) {
  if (!buf || buflen == 0) return;
  int n = snprintf(buf, buflen, "%s:%u:%u: error: ", filename ? filename : "<ptx>",
                   (unsigned)loc.line, (unsigned)loc.col);
  if (n < 0) {
    buf[0] = '\0';
    return;
  }
  if ((size_t)n >= buflen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + n, buflen - (size_t)n, fmt, ap);
  va_end(ap);
}

/* Appends a printable rendering of s[0..len) (at most `max` source bytes) to buf. */
static void quote_text(char *buf, size_t buflen, size_t *o, const char *s, size_t len, size_t max) {
  size_t n = len < max ? len : max;
  for (size_t i = 0; i < n && *o + 5 < buflen; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      if (c == '\\') {
        buf[(*o)++] = '\\';
        buf[(*o)++] = '\\';
      } else {
        *o += (size_t)snprintf(buf + *o, buflen - *o, "\\x%02x", c);
      }
    } else {
      buf[(*o)++] = (char)c;
    }
  }
  if (len > max && *o + 4 < buflen) {
    memcpy(buf + *o, "...", 3);
    *o += 3;
  }
}

const char *ptx_token_describe(const ptx_token *t, char *buf, size_t buflen) {
  if (!buf || buflen < 16) return "";
  size_t o = 0;
  if (t->kind == PTX_TOK_END) {
    snprintf(buf, buflen, "end of file");
    return buf;
  }
  if (t->kind == PTX_TOK_STRING) {
    memcpy(buf, "string \"", 8);
    o = 8;
    quote_text(buf, buflen - 1, &o, t->p, t->len, 32);
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
  }
  buf[o++] = '\'';
  quote_text(buf, buflen - 1, &o, t->p, t->len, 40);
  buf[o++] = '\'';
  buf[o] = '\0';
  return buf;
}

static ptx_loc loc_at(const ptx_lexer *lx, size_t pos) {
  ptx_loc l;
  l.line = lx->line;
  size_t c = pos - lx->line_start + 1;
  l.col = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
  return l;
}

static int lex_fail(ptx_lexer *lx, size_t pos, const char *fmt, const char *arg) {
  char msg[256];
  snprintf(msg, sizeof msg, fmt, arg);
  ptx_format_error(lx->err, lx->errlen, lx->filename, loc_at(lx, pos), "%s", msg);
  return -1;
}

static void newline(ptx_lexer *lx, size_t pos_after) {
  if (lx->line < UINT32_MAX) lx->line++;
  lx->line_start = pos_after;
}

static int is_ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
static int is_ident_char(unsigned char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static int hex_val(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int peekc(const ptx_lexer *lx, size_t at) {
  return at < lx->len ? (unsigned char)lx->text[at] : -1;
}

/* Skips whitespace and comments. Returns 1 if anything was skipped, 0 if not, -1 on error. */
static int skip_space(ptx_lexer *lx) {
  int skipped = 0;
  while (lx->pos < lx->len) {
    unsigned char c = (unsigned char)lx->text[lx->pos];
    if (c == '\n') {
      lx->pos++;
      newline(lx, lx->pos);
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
      lx->pos++;
    } else if (c == '/' && peekc(lx, lx->pos + 1) == '/') {
      while (lx->pos < lx->len && lx->text[lx->pos] != '\n') lx->pos++;
    } else if (c == '@' && peekc(lx, lx->pos + 1) == '@') {
      /* @@DWARF debug lines of old PTX: skipped like a comment */
      while (lx->pos < lx->len && lx->text[lx->pos] != '\n') lx->pos++;
    } else if (c == '/' && peekc(lx, lx->pos + 1) == '*') {
      size_t start = lx->pos;
      ptx_loc sl = loc_at(lx, start);
      lx->pos += 2;
      for (;;) {
        if (lx->pos >= lx->len) {
          ptx_format_error(lx->err, lx->errlen, lx->filename, sl, "unterminated comment");
          return -1;
        }
        char d = lx->text[lx->pos];
        if (d == '*' && peekc(lx, lx->pos + 1) == '/') {
          lx->pos += 2;
          break;
        }
        lx->pos++;
        if (d == '\n') newline(lx, lx->pos);
      }
    } else {
      break;
    }
    skipped = 1;
  }
  return skipped;
}

/* Scans a name's follow characters from `pos`, joining `::` between name parts. */
static size_t scan_name(const ptx_lexer *lx, size_t pos) {
  for (;;) {
    while (pos < lx->len && is_ident_char((unsigned char)lx->text[pos])) pos++;
    if (peekc(lx, pos) == ':' && peekc(lx, pos + 1) == ':' && pos + 2 < lx->len &&
        is_ident_char((unsigned char)lx->text[pos + 2]))
      pos += 2;
    else
      return pos;
  }
}

/* Reports the malformed literal starting at `start`; `fmt` has one %s for its (quoted) text. */
static int bad_number(ptx_lexer *lx, size_t start, const char *fmt) {
  size_t e = start;
  while (e < lx->len && (is_ident_char((unsigned char)lx->text[e]) || lx->text[e] == '.')) e++;
  char shown[64];
  size_t o = 0;
  quote_text(shown, sizeof shown - 1, &o, lx->text + start, e - start, 40);
  shown[o] = '\0';
  return lex_fail(lx, start, fmt, shown);
}

static int lex_number(ptx_lexer *lx, ptx_token *t) {
  size_t start = lx->pos, p = start;
  const char *s = lx->text;
  int c1 = peekc(lx, p + 1);
  uint64_t v = 0;
  if (s[p] == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
    int ndig = (c1 == 'f' || c1 == 'F') ? 8 : 16;
    p += 2;
    for (int i = 0; i < ndig; i++, p++) {
      int h = p < lx->len ? hex_val((unsigned char)s[p]) : -1;
      if (h < 0) return bad_number(lx, start, "invalid float literal '%s'");
      v = (v << 4) | (uint64_t)h;
    }
    if (p < lx->len && is_ident_char((unsigned char)s[p]))
      return bad_number(lx, start, "invalid float literal '%s'");
    t->kind = ndig == 8 ? PTX_TOK_F32 : PTX_TOK_F64;
    t->ival = v;
    lx->pos = p;
    return 0;
  }
  int base = 10;
  if (s[p] == '0' && (c1 == 'x' || c1 == 'X')) {
    base = 16;
    p += 2;
  } else if (s[p] == '0' && (c1 == 'b' || c1 == 'B')) {
    base = 2;
    p += 2;
  } else if (s[p] == '0' && c1 >= '0' && c1 <= '9') {
    base = 8;
    p += 1;
  }
  size_t digits_start = p;
  int overflow = 0;
  int scan_base = base == 8 ? 10 : base; /* 8 and 9 are scanned, then reported as bad octal */
  for (; p < lx->len; p++) {
    int d = hex_val((unsigned char)s[p]);
    if (d < 0 || d >= scan_base) break;
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) overflow = 1;
    v = v * (uint64_t)base + (uint64_t)d;
  }
  if (p == digits_start) return bad_number(lx, start, "invalid number '%s'");
  if (base == 10 && p < lx->len && (s[p] == '.' || s[p] == 'e' || s[p] == 'E')) {
    /* decimal float: digits [. digits] [e [+-] digits] */
    if (s[p] == '.') {
      p++;
      while (p < lx->len && is_digit((unsigned char)s[p])) p++;
    }
    if (p < lx->len && (s[p] == 'e' || s[p] == 'E')) {
      p++;
      if (p < lx->len && (s[p] == '+' || s[p] == '-')) p++;
      size_t ed = p;
      while (p < lx->len && is_digit((unsigned char)s[p])) p++;
      if (p == ed) return bad_number(lx, start, "invalid float literal '%s'");
    }
    if (p < lx->len && (is_ident_char((unsigned char)s[p]) || s[p] == '.'))
      return bad_number(lx, start, "invalid float literal '%s'");
    char buf[128];
    if (p - start >= sizeof buf) return bad_number(lx, start, "float literal '%s' too long");
    memcpy(buf, s + start, p - start);
    buf[p - start] = '\0';
    char *endp = NULL;
    double d = strtod(buf, &endp);
    if (!endp || *endp != '\0') return bad_number(lx, start, "invalid float literal '%s'");
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    t->kind = PTX_TOK_F64;
    t->ival = bits;
    t->is_decimal_float = 1;
    lx->pos = p;
    return 0;
  }
  if (base == 8) {
    for (size_t i = digits_start; i < p; i++)
      if (s[i] > '7') return bad_number(lx, start, "invalid octal literal '%s'");
  }
  if (p < lx->len && (s[p] == 'U' || s[p] == 'u')) p++;
  if (p < lx->len && (is_ident_char((unsigned char)s[p]) || s[p] == '.'))
    return bad_number(lx, start, "invalid number '%s'");
  if (overflow) return bad_number(lx, start, "integer literal '%s' out of range");
  t->kind = PTX_TOK_INT;
  t->ival = v;
  lx->pos = p;
  return 0;
}

int ptx_lex_next(ptx_lexer *lx, ptx_token *t) {
  memset(t, 0, sizeof *t);
  int sk = skip_space(lx);
  if (sk < 0) return -1;
  t->spaced = (uint8_t)sk;
  size_t start = lx->pos;
  t->loc = loc_at(lx, start);
  t->p = lx->text + start;
  if (start >= lx->len) {
    t->kind = PTX_TOK_END;
    t->len = 0;
    t->end = start;
    return 0;
  }
  unsigned char c = (unsigned char)lx->text[start];
  if (is_ident_start(c)) {
    size_t e = scan_name(lx, start + 1);
    t->kind = PTX_TOK_IDENT;
    lx->pos = e;
  } else if (c == '%' || c == '.') {
    if (start + 1 >= lx->len || !is_ident_char((unsigned char)lx->text[start + 1])) {
      char ch[2] = {(char)c, 0};
      return lex_fail(lx, start, c == '%' ? "expected register name after '%s'"
                                          : "expected directive name after '%s'", ch);
    }
    size_t e = scan_name(lx, start + 1);
    if (c == '%') {
      /* %tid.x, %ntid.y: a single-letter component suffix belongs to the register */
      int s1 = peekc(lx, e + 1);
      if (peekc(lx, e) == '.' && (s1 == 'x' || s1 == 'y' || s1 == 'z' || s1 == 'w') &&
          (e + 2 >= lx->len || !is_ident_char((unsigned char)lx->text[e + 2])))
        e += 2;
      t->kind = PTX_TOK_REG;
    } else {
      t->kind = PTX_TOK_DIRECTIVE;
    }
    lx->pos = e;
  } else if (is_digit(c)) {
    if (lex_number(lx, t) < 0) return -1;
  } else if (c == '"') {
    size_t p = start + 1;
    for (;;) {
      if (p >= lx->len || lx->text[p] == '\n')
        return lex_fail(lx, start, "%s", "unterminated string");
      if (lx->text[p] == '"') break;
      if (lx->text[p] == '\\' && p + 1 < lx->len && lx->text[p + 1] != '\n') p++;
      p++;
    }
    if (p - (start + 1) > PTX_MAX_STRING) return lex_fail(lx, start, "%s", "string too long");
    t->kind = PTX_TOK_STRING;
    t->p = lx->text + start + 1;
    t->len = p - (start + 1);
    lx->pos = p + 1;
    t->end = lx->pos;
    return 0;
  } else if (strchr(";,:{}[]()<>+-!@|=", c) && c != '\0') {
    t->kind = PTX_TOK_PUNCT;
    t->punct = (char)c;
    lx->pos = start + 1;
  } else {
    char shown[16];
    if (c < 0x20 || c >= 0x7f)
      snprintf(shown, sizeof shown, "\\x%02x", c);
    else if (c == '\\')
      snprintf(shown, sizeof shown, "\\\\");
    else
      snprintf(shown, sizeof shown, "%c", c);
    return lex_fail(lx, start, "invalid character '%s'", shown);
  }
  t->len = lx->pos - start; /* names have no length limit (CUTLASS's mangled kernel names run to ~1,500 bytes) */
  t->end = lx->pos;
  return 0;
}
