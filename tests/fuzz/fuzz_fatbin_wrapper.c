/*
 * fuzz_fatbin_wrapper.c — libFuzzer harness for what nvcc hands to __cudaRegisterFatBinary. An input
 * is an 8-byte header, then containers: byte 0 of the header picks the wrapper's version (bit 0:
 * version 2, the -rdc=true link; bit 1: no prelinked array; bits 2..7 fuzz the magic now and then),
 * and the rest is cut before every 8-byte-aligned container magic into units — unit 0 is the wrapper's
 * data, the others (version 2) its NULL-terminated prelinked array. A seed is therefore 8 bytes and
 * nvcc's .nv_fatbin (and __nv_relfatbin) bytes.
 *
 * A wrapper carries no sizes: the runtime must trust each container header's size, so the harness
 * puts every unit in a buffer of exactly its size and clamps a header that claims more than that
 * (the memory nvcc's program has). Within that, fatbin_check.h's promises hold; nothing may crash,
 * hang, leak or trip ASan/UBSan.
 */
#include "fatbin_check.h"

#define MAX_UNITS 64

static uint64_t rd(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}
static void wr(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A unit's own buffer: at least a container header, and a header claiming no more than the buffer. */
static uint8_t *unit_copy(const uint8_t *p, size_t n, size_t *cap) {
  size_t c = n < 16 ? 16 : n;
  uint8_t *b = calloc(1, c);
  if (!b) return NULL;
  memcpy(b, p, n);
  if (rd(b, 4) == WV_FATBIN_MAGIC) {
    if (rd(b + 6, 2) > c) wr(b + 6, 16, 2);
    uint64_t h = rd(b + 6, 2);
    if (rd(b + 8, 8) > c - h) wr(b + 8, c - h, 8);
  }
  *cap = c;
  return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 8) return 0;
  uint8_t mode = data[0];
  const uint8_t *body = data + 8;
  size_t n = size - 8;
  /* unit boundaries: offset 0 and every later 8-aligned container magic */
  size_t start[MAX_UNITS + 1];
  uint32_t nu = 0;
  start[nu++] = 0;
  for (size_t o = 8; o + 4 <= n && nu < MAX_UNITS; o += 8)
    if (rd(body + o, 4) == WV_FATBIN_MAGIC) start[nu++] = o;
  start[nu] = n;
  uint8_t *buf[MAX_UNITS];
  const void *extra[MAX_UNITS + 1];
  wvf_span spans[MAX_UNITS];
  for (uint32_t u = 0; u < nu; u++) {
    size_t cap;
    buf[u] = unit_copy(body + start[u], start[u + 1] - start[u], &cap);
    if (!buf[u]) { nu = u; break; }
    spans[u] = (wvf_span){buf[u], cap};
    if (u) extra[u - 1] = buf[u];
  }
  extra[nu ? nu - 1 : 0] = NULL;
  uint32_t ver = (mode & 1) ? 2 : 1;
  struct { uint32_t magic, version; const void *data; const void *extra; } w = {
      (mode >> 2) == 0x3f ? WV_FATBIN_WRAPPER_MAGIC ^ mode : WV_FATBIN_WRAPPER_MAGIC, ver, nu ? buf[0] : NULL,
      ver == 2 && !(mode & 2) ? (const void *)extra : ver == 1 && (mode & 2) ? "fz.cu" : NULL};
  wv_fatbin fb;
  char err[512] = "";
  if (wv_fatbin_parse_wrapper(&w, &fb, err, sizeof err) == 0) {
    uint32_t expect = ver == 2 && !(mode & 2) ? nu : 1;
    WVF_CHECK(fb.units == expect, "%u units read, %u given", fb.units, expect);
    WVF_CHECK(fb.wrapper_version == ver, "wrapper version %u, %u given", fb.wrapper_version, ver);
    wvf_check_fatbin(&fb, spans, fb.units);
    wv_fatbin_free(&fb);
  } else {
    WVF_CHECK(err[0] && fb.n == 0, "parse failed with %u entries and message '%s'", fb.n, err);
  }
  for (uint32_t u = 0; u < nu; u++) free(buf[u]);
  return 0;
}
