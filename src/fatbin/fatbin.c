/*
 * fatbin.c — parses nvcc fatbinaries (containers, entries, the __cudaRegisterFatBinary wrapper of
 * versions 1 and 2), decompresses payloads (raw LZ4 blocks through liblz4, Zstandard frames through
 * libzstd), picks the PTX to run and names the SASS archs present. The layout is described in
 * fatbin.h. Every read is bounds-checked against the image; every loop advances by at least one
 * header; allocations are bounded by the compressed size (LZ4) or the frame's own content size
 * (Zstandard), so corrupt input yields a message, never a crash, a hang or a huge allocation.
 */
#include "fatbin/fatbin.h"
#include "fatbin/bytes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#define CONTAINER_HDR 16u
#define ENTRY_HDR 64u
#define MAX_PLAIN (1ull << 30)          /* largest payload we decompress (1 GiB) */
#define MAX_WRAPPED (1ull << 34)        /* largest container a wrapper may claim (16 GiB) */
#define MAX_PRELINKED 65536u            /* prelinked fatbins of one version-2 wrapper */
#define LZ4_MAX_RATIO 256u              /* one LZ4 input byte yields at most 255 output bytes */


/* A parse in progress: the entries so far and where errors go. */
typedef struct parse_ctx {
  wv_fatbin *fb;
  uint32_t cap;
  char *err;
  size_t errlen;
  char unit_name[48]; /* "" for unit 0, "prelinked fatbin 3: " otherwise */
} parse_ctx;

static int push_entry(parse_ctx *c, const wv_fatbin_entry *e) {
  wv_fatbin *fb = c->fb;
  if (fb->n == c->cap) {
    uint32_t ncap = c->cap ? c->cap * 2 : 8;
    wv_fatbin_entry *nv = realloc(fb->v, (size_t)ncap * sizeof *nv);
    if (!nv) {
      set_err(c->err, c->errlen, "out of memory reading a fatbin");
      return -1;
    }
    fb->v = nv;
    c->cap = ncap;
  }
  fb->v[fb->n++] = *e;
  return 0;
}

/* Locates the optional name and options of the entry whose header (hsz bytes) starts at h. */
static int entry_strings(parse_ctx *c, const uint8_t *h, uint32_t hsz, uint32_t idx, uint64_t off,
                         wv_fatbin_entry *e) {
  uint32_t noff = rd32(h + 32), nlen = rd32(h + 36), ooff = rd32(h + 20);
  if (noff) {
    if (noff < ENTRY_HDR || noff > hsz || nlen > hsz - noff) goto bad;
    e->name = (const char *)h + noff;
    e->name_len = nlen;
  }
  if (ooff) {
    if (ooff < ENTRY_HDR || ooff > hsz || hsz - ooff < 8) goto bad;
    uint32_t soff = rd32(h + ooff), slen = rd32(h + ooff + 4);
    if (soff && (soff < ENTRY_HDR || soff > hsz || slen > hsz - soff)) goto bad;
    if (soff && slen) {
      e->options = h + soff;
      e->options_len = slen;
    }
  }
  return 0;
bad:
  set_err(c->err, c->errlen, "corrupt fatbin: %sentry %u at offset 0x%llx: name or options outside its %u-byte header",
          c->unit_name, idx, (unsigned long long)off, hsz);
  return -1;
}

/* Decodes the sizes and compression of an entry whose header was bounds-checked. */
static int entry_payload(parse_ctx *c, const uint8_t *h, uint64_t stored, uint32_t idx, uint64_t off,
                         wv_fatbin_entry *e) {
  uint64_t flags = rd64(h + 40);
  uint32_t csize = rd32(h + 16);
  uint64_t dsize = rd64(h + 56);
  int lz4 = (flags & WV_FATBIN_F_LZ4) != 0, zstd = (flags & WV_FATBIN_F_ZSTD) != 0;
  const char *why = NULL;
  e->flags = flags;
  e->compression = lz4 ? WV_FATBIN_LZ4 : zstd ? WV_FATBIN_ZSTD : WV_FATBIN_NONE;
  e->stored_size = stored;
  e->plain_size = stored;
  if (lz4 && zstd) why = "is flagged both LZ4 and Zstandard";
  else if (lz4 || zstd) {
    if (csize == 0 || csize > stored) why = "has a compressed size of 0 or beyond its payload";
    else if (dsize == 0 || dsize > MAX_PLAIN) why = "has a decompressed size of 0 or over 1 GiB";
    else if (lz4 && dsize > (uint64_t)csize * LZ4_MAX_RATIO + 64) why = "claims more than LZ4 can expand to";
    e->stored_size = csize;
    e->plain_size = dsize;
  }
  if (why) {
    set_err(c->err, c->errlen, "corrupt fatbin: %sentry %u at offset 0x%llx %s (stored %llu, compressed %u, plain %llu)",
            c->unit_name, idx, (unsigned long long)off, why, (unsigned long long)stored, csize,
            (unsigned long long)dsize);
    return -1;
  }
  return 0;
}

/* Reads the entries of one container: bytes [off, end) of p. */
static int parse_entries(parse_ctx *c, const uint8_t *p, size_t off, size_t end) {
  uint32_t idx = 0;
  while (off < end) {
    size_t left = end - off;
    if (left < ENTRY_HDR) {
      for (size_t i = off; i < end; i++)
        if (p[i]) goto short_hdr;
      return 0; /* trailing zero padding */
    short_hdr:
      set_err(c->err, c->errlen, "corrupt fatbin: %sentry %u at offset 0x%zx: %zu bytes left in the container, a header needs %u",
              c->unit_name, idx, off, left, ENTRY_HDR);
      return -1;
    }
    const uint8_t *h = p + off;
    uint32_t hsz = rd32(h + 4);
    uint64_t stored = rd64(h + 8);
    if (hsz < ENTRY_HDR || hsz > left) {
      set_err(c->err, c->errlen, "corrupt fatbin: %sentry %u at offset 0x%zx has a header size of %u (%zu bytes left, at least %u needed)",
              c->unit_name, idx, off, hsz, left, ENTRY_HDR);
      return -1;
    }
    if (stored > left - hsz) {
      set_err(c->err, c->errlen, "corrupt fatbin: %sentry %u at offset 0x%zx claims %llu payload bytes, %zu left",
              c->unit_name, idx, off, (unsigned long long)stored, left - hsz);
      return -1;
    }
    wv_fatbin_entry e = {0};
    e.kind = rd16(h);
    e.minor = rd16(h + 24);
    e.major = rd16(h + 26);
    e.arch = rd32(h + 28);
    e.payload = h + hsz;
    e.unit = c->fb->units - 1;
    e.offset = off;
    if (entry_strings(c, h, hsz, idx, off, &e) || entry_payload(c, h, stored, idx, off, &e) || push_entry(c, &e))
      return -1;
    off += hsz + (size_t)stored;
    idx++;
  }
  return 0;
}

/* Parses the containers of one unit's image. single: read exactly one container. */
static int parse_unit(parse_ctx *c, const uint8_t *p, size_t max_len, int single, size_t *used) {
  size_t off = 0;
  int count = 0;
  for (;;) {
    size_t pad = off;
    while (pad < max_len && (pad & 7) && p[pad] == 0) pad++;
    if (count && (pad + CONTAINER_HDR > max_len || rd32(p + pad) != WV_FATBIN_MAGIC)) break;
    off = pad;
    size_t left = max_len - off;
    if (left < 4 || rd32(p + off) != WV_FATBIN_MAGIC || left < CONTAINER_HDR) {
      if (left < 4)
        set_err(c->err, c->errlen, "not a fatbin: %sonly %zu bytes", c->unit_name, left);
      else if (rd32(p + off) != WV_FATBIN_MAGIC)
        set_err(c->err, c->errlen, "not a fatbin: %smagic 0x%08x at offset 0x%zx, expected 0x%08x", c->unit_name,
                rd32(p + off), off, WV_FATBIN_MAGIC);
      else
        set_err(c->err, c->errlen, "corrupt fatbin: %struncated header: %zu bytes at offset 0x%zx, a container header needs %u",
                c->unit_name, left, off, CONTAINER_HDR);
      return -1;
    }
    uint16_t ver = rd16(p + off + 4), hsz = rd16(p + off + 6);
    uint64_t fat = rd64(p + off + 8);
    if (ver != 1) {
      set_err(c->err, c->errlen, "unsupported fatbin: %scontainer %d at offset 0x%zx has version %u (known: 1)",
              c->unit_name, count, off, ver);
      return -1;
    }
    if (hsz < CONTAINER_HDR || hsz > left || fat > left - hsz) {
      set_err(c->err, c->errlen, "corrupt fatbin: %scontainer %d at offset 0x%zx claims %u + %llu bytes, %zu left",
              c->unit_name, count, off, hsz, (unsigned long long)fat, left);
      return -1;
    }
    if (parse_entries(c, p, off + hsz, off + hsz + (size_t)fat)) return -1;
    off += hsz + (size_t)fat;
    count++;
    if (single || off >= max_len) break;
  }
  *used = off;
  return 0;
}

static void ctx_init(parse_ctx *c, wv_fatbin *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  memset(c, 0, sizeof *c);
  c->fb = out;
  c->err = err;
  c->errlen = errlen;
  out->units = 1;
  if (err && errlen) err[0] = 0;
}

int wv_fatbin_parse(const void *image, size_t max_len, wv_fatbin *out, char *err, size_t errlen) {
  parse_ctx c;
  ctx_init(&c, out, err, errlen);
  if (!image) {
    set_err(err, errlen, "not a fatbin: no image");
    return -1;
  }
  if (parse_unit(&c, image, max_len, 0, &out->size)) {
    wv_fatbin_free(out);
    return -1;
  }
  return 0;
}

/* Size of the container at p (header + entries), trusting only its own header; 0 if none. */
static size_t container_size(const uint8_t *p) {
  if (rd32(p) != WV_FATBIN_MAGIC) return 0;
  uint64_t sz = (uint64_t)rd16(p + 6) + rd64(p + 8);
  return sz > MAX_WRAPPED ? (size_t)MAX_WRAPPED : (size_t)sz;
}

int wv_fatbin_parse_wrapper(const void *wrapper, wv_fatbin *out, char *err, size_t errlen) {
  parse_ctx c;
  ctx_init(&c, out, err, errlen);
  if (!wrapper) {
    set_err(err, errlen, "not a fatbin wrapper: NULL");
    return -1;
  }
  const uint8_t *w = wrapper;
  uint32_t magic = rd32(w), ver = rd32(w + 4);
  const uint8_t *data;
  const void *const *extra;
  memcpy(&data, w + 8, sizeof data);
  memcpy(&extra, w + 16, sizeof extra);
  if (magic != WV_FATBIN_WRAPPER_MAGIC || (ver != 1 && ver != 2) || !data) {
    set_err(err, errlen, "not a fatbin wrapper: magic 0x%08x version %u data %p (expected 0x%08x, version 1 or 2)",
            magic, ver, (const void *)data, WV_FATBIN_WRAPPER_MAGIC);
    return -1;
  }
  out->wrapper_version = ver;
  if (parse_unit(&c, data, container_size(data) ? container_size(data) : CONTAINER_HDR, 1, &out->size)) goto fail;
  if (ver == 2 && extra) {
    for (uint32_t i = 0; extra[i]; i++) {
      if (i == MAX_PRELINKED) {
        set_err(err, errlen, "corrupt fatbin wrapper: more than %u prelinked fatbins", MAX_PRELINKED);
        goto fail;
      }
      const uint8_t *u = extra[i];
      size_t used;
      out->units++;
      snprintf(c.unit_name, sizeof c.unit_name, "prelinked fatbin %u: ", i);
      if (parse_unit(&c, u, container_size(u) ? container_size(u) : CONTAINER_HDR, 1, &used)) goto fail;
    }
  }
  return 0;
fail:
  wv_fatbin_free(out);
  return -1;
}

/* Checks what can be checked before allocating: sizes against the codec's limits and, for
 * Zstandard, the frame's own content size. */
static int precheck(const wv_fatbin_entry *e, uint32_t i, char *err, size_t errlen) {
  if (e->plain_size > MAX_PLAIN || e->stored_size > (uint64_t)INT32_MAX) {
    set_err(err, errlen, "fatbin entry %u is too large (%llu bytes stored, %llu plain)", i,
            (unsigned long long)e->stored_size, (unsigned long long)e->plain_size);
    return -1;
  }
  if (e->flags & WV_FATBIN_F_ENCRYPTED) {
    set_err(err, errlen, "fatbin entry %u (kind %u, arch %u) is encrypted%s: it cannot be extracted", i, e->kind,
            e->arch, e->kind == WV_FATBIN_LTOIR ? " LTO-IR" : "");
    return -1;
  }
  if (e->compression != WV_FATBIN_ZSTD) return 0;
  unsigned long long fcs = ZSTD_getFrameContentSize(e->payload, (size_t)e->stored_size);
  if (fcs == ZSTD_CONTENTSIZE_ERROR || (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != e->plain_size)) {
    set_err(err, errlen, "corrupt fatbin: entry %u: Zstandard frame %s (entry says %llu bytes)", i,
            fcs == ZSTD_CONTENTSIZE_ERROR ? "header is invalid" : "size disagrees with the entry",
            (unsigned long long)e->plain_size);
    return -1;
  }
  return 0;
}

static int decompress(const wv_fatbin_entry *e, char *buf, uint32_t i, char *err, size_t errlen) {
  size_t n = (size_t)e->plain_size;
  if (e->compression == WV_FATBIN_LZ4) {
    int got = LZ4_decompress_safe((const char *)e->payload, buf, (int)e->stored_size, (int)n);
    if (got >= 0 && (size_t)got == n) return 0;
    set_err(err, errlen, "corrupt fatbin: entry %u: LZ4 payload of %llu bytes %s (expected %zu bytes)", i,
            (unsigned long long)e->stored_size, got < 0 ? "does not decode" : "decodes to a different size", n);
    return -1;
  }
  size_t got = ZSTD_decompress(buf, n, e->payload, (size_t)e->stored_size);
  if (!ZSTD_isError(got) && got == n) return 0;
  set_err(err, errlen, "corrupt fatbin: entry %u: Zstandard payload %s%s (expected %zu bytes)", i,
          ZSTD_isError(got) ? "does not decode: " : "decodes to a different size",
          ZSTD_isError(got) ? ZSTD_getErrorName(got) : "", n);
  return -1;
}

char *wv_fatbin_extract(const wv_fatbin *fb, uint32_t i, size_t *len, char *err, size_t errlen) {
  if (len) *len = 0;
  if (!fb || i >= fb->n) {
    set_err(err, errlen, "fatbin entry %u does not exist (%u entries)", i, fb ? fb->n : 0);
    return NULL;
  }
  const wv_fatbin_entry *e = &fb->v[i];
  if (precheck(e, i, err, errlen)) return NULL;
  size_t n = (size_t)e->plain_size;
  char *buf = malloc(n + 1);
  if (!buf) {
    set_err(err, errlen, "out of memory extracting fatbin entry %u (%zu bytes)", i, n);
    return NULL;
  }
  if (e->compression == WV_FATBIN_NONE) memcpy(buf, e->payload, n);
  else if (decompress(e, buf, i, err, errlen)) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  if (e->kind == WV_FATBIN_PTX) n = strlen(buf);
  if (len) *len = n;
  return buf;
}

/* Is PTX entry a a better pick than b for max_arch? */
static int better_ptx(const wv_fatbin_entry *a, const wv_fatbin_entry *b, uint32_t max_arch) {
  int a_fits = a->arch <= max_arch, b_fits = b->arch <= max_arch;
  if (a_fits != b_fits) return a_fits;
  if (a->arch != b->arch) return a_fits ? a->arch > b->arch : a->arch < b->arch;
  /* the same number: the device's own sm_XXa/f PTX (what nvcc -arch=sm_90a also compiles to the SASS the GPU
   * runs, e.g. wgmma) before the generic one nvcc embeds beside it; for other numbers, the generic one */
  uint64_t special = WV_FATBIN_F_ARCH_SPECIFIC | WV_FATBIN_F_FAMILY;
  int a_sp = (a->flags & special) != 0, b_sp = (b->flags & special) != 0;
  return a_sp != b_sp && (a->arch == max_arch ? a_sp : b_sp);
}

static int best_ptx(const wv_fatbin *fb, int any_unit, uint32_t unit, uint32_t max_arch) {
  int best = -1;
  for (uint32_t i = 0; fb && i < fb->n; i++) {
    const wv_fatbin_entry *e = &fb->v[i];
    if (e->kind != WV_FATBIN_PTX || (!any_unit && e->unit != unit)) continue;
    if (best < 0 || better_ptx(e, &fb->v[best], max_arch)) best = (int)i;
  }
  return best;
}

int wv_fatbin_best_ptx(const wv_fatbin *fb, uint32_t max_arch) { return best_ptx(fb, 1, 0, max_arch); }

int wv_fatbin_best_ptx_unit(const wv_fatbin *fb, uint32_t unit, uint32_t max_arch) {
  return best_ptx(fb, 0, unit, max_arch);
}

/* Sort key of a SASS entry: arch, then plain < a < f. */
static uint64_t sass_key(const wv_fatbin_entry *e) {
  unsigned suffix = (e->flags & WV_FATBIN_F_ARCH_SPECIFIC) ? 1 : (e->flags & WV_FATBIN_F_FAMILY) ? 2 : 0;
  return (uint64_t)e->arch << 2 | suffix;
}

void wv_fatbin_describe(const wv_fatbin *fb, char *buf, size_t cap) {
  if (!buf || !cap) return;
  buf[0] = 0;
  size_t len = 0;
  uint64_t last = 0;
  int first = 1;
  for (;;) { /* selection by increasing key: fatbins hold a handful of entries */
    uint64_t next = UINT64_MAX;
    for (uint32_t i = 0; fb && i < fb->n; i++) {
      uint64_t k = sass_key(&fb->v[i]);
      if (fb->v[i].kind == WV_FATBIN_ELF && (first || k > last) && k < next) next = k;
    }
    if (next == UINT64_MAX) return;
    const char *suffix[] = {"", "a", "f", ""};
    int w = snprintf(buf + len, cap - len, "%ssm_%llu%s", first ? "" : " ", (unsigned long long)(next >> 2),
                     suffix[next & 3]);
    if (w < 0 || (size_t)w >= cap - len) { /* does not fit: end after the previous name */
      buf[len] = 0;
      return;
    }
    len += (size_t)w;
    last = next;
    first = 0;
  }
}

void wv_fatbin_free(wv_fatbin *fb) {
  if (!fb) return;
  free(fb->v);
  memset(fb, 0, sizeof *fb);
}
