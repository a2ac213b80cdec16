/*
 * fatbin_check.h — the promises both fatbin harnesses check on a parsed fatbin: every entry lies
 * inside the bytes of its unit, every payload extracts to the size it claims (with a NUL after it)
 * or fails with a message, and the PTX choice names a PTX entry.
 */
#ifndef WV_FUZZ_FATBIN_CHECK_H
#define WV_FUZZ_FATBIN_CHECK_H

#include "fatbin/fatbin.h"
#include "fuzz.h"

typedef struct wvf_span {
  const uint8_t *p;
  size_t n;
} wvf_span;

static inline int wvf_inside(wvf_span s, const void *p, uint64_t n) {
  const uint8_t *b = p;
  return b >= s.p && b <= s.p + s.n && n <= (uint64_t)(s.p + s.n - b);
}

/* units[u]: the bytes unit u was parsed from. */
static inline void wvf_check_fatbin(const wv_fatbin *fb, const wvf_span *units, uint32_t nunits) {
  char err[512];
  for (uint32_t i = 0; i < fb->n; i++) {
    const wv_fatbin_entry *e = &fb->v[i];
    WVF_CHECK(e->unit < nunits, "entry %u is of unit %u, %u units", i, e->unit, nunits);
    wvf_span u = units[e->unit];
    WVF_CHECK(wvf_inside(u, e->payload, e->stored_size), "entry %u's payload is outside its unit", i);
    WVF_CHECK(!e->name || wvf_inside(u, e->name, e->name_len), "entry %u's name is outside its unit", i);
    WVF_CHECK(!e->options || wvf_inside(u, e->options, e->options_len), "entry %u's options are outside", i);
    size_t len = 0;
    err[0] = 0;
    char *p = wv_fatbin_extract(fb, i, &len, err, sizeof err);
    if (!p) {
      WVF_CHECK(err[0], "extracting entry %u failed without a message", i);
      continue;
    }
    WVF_CHECK(p[len] == 0, "entry %u extracted without its NUL", i);
    if (e->kind == WV_FATBIN_PTX)
      WVF_CHECK(len <= e->plain_size, "PTX entry %u: %zu bytes of text, %llu plain", i, len,
                (unsigned long long)e->plain_size);
    else
      WVF_CHECK(len == e->plain_size, "entry %u: %zu bytes, %llu claimed", i, len, (unsigned long long)e->plain_size);
    free(p);
  }
  static const uint32_t archs[] = {0, 52, 80, 90, 100, 120, 0xffffffffu};
  for (size_t a = 0; a < sizeof archs / sizeof *archs; a++) {
    for (uint32_t u = 0; u <= nunits; u++) {
      int best = u == nunits ? wv_fatbin_best_ptx(fb, archs[a]) : wv_fatbin_best_ptx_unit(fb, u, archs[a]);
      WVF_CHECK(best >= -1 && best < (int)fb->n, "best PTX %d of %u entries", best, fb->n);
      WVF_CHECK(best < 0 || fb->v[best].kind == WV_FATBIN_PTX, "best PTX %d is not PTX", best);
      WVF_CHECK(best < 0 || u == nunits || fb->v[best].unit == u, "best PTX of unit %u is of unit %u", u,
                fb->v[best].unit);
    }
  }
  char desc[64];
  wv_fatbin_describe(fb, desc, sizeof desc);
  WVF_CHECK(memchr(desc, 0, sizeof desc) != NULL, "describe overran");
}

#endif
