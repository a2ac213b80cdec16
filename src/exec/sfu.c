/*
 * sfu.c — loading the SFU tables recorded on the GPU (data/sfu/sm90.sfu, built into warpvm by
 * sfu_data.S) into the random-access form sfu.h reads.
 *
 * A table is stored (tools/sfu/pack.py) as the first differences of its n outputs, byte planes
 * first-to-last, in one Zstandard frame. Loading decompresses it and makes, in one allocation,
 * an anchor every 32 entries, a 4-bit residual per entry against the line between anchors, and the
 * entries whose residual does not fit as (index, value) pairs — about 0.63 bytes per entry.
 */
#include "exec/sfu.h"

#include <stdlib.h>
#include <string.h>
#ifndef WV_SFU_ZSTD_DECLARED /* tools/sfu/check.cu declares the three calls where zstd.h is missing */
#include <zstd.h>
#endif

#ifndef WV_SFU_NO_IMAGE
extern const unsigned char wv_sfu_blob[], wv_sfu_blob_end[];

const void *wv_sfu_image(size_t *len) {
  *len = (size_t)(wv_sfu_blob_end - wv_sfu_blob);
  return wv_sfu_blob;
}
#endif

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Value i of the decompressed planes (first differences), summed into *acc. */
static uint32_t next(const unsigned char *pl, uint32_t n, uint32_t i, uint32_t *acc) {
  *acc += (uint32_t)pl[i] | (uint32_t)pl[n + i] << 8 | (uint32_t)pl[2 * (size_t)n + i] << 16 |
          (uint32_t)pl[3 * (size_t)n + i] << 24;
  return *acc;
}

/* Build table t from its planes: anchors in a first pass, residuals and exceptions in a second. */
static void *build(wv_sfu_tab *t, const unsigned char *pl, uint32_t n) {
  uint32_t nb = n / 32, acc = 0, nexc = 0, cap = 0;
  uint32_t *exc = NULL;
  size_t head = (size_t)(nb + 2) * 4 + (n + 1) / 2;
  unsigned char *mem = (unsigned char *)malloc(head);
  if (!mem) return NULL;
  uint32_t *base = (uint32_t *)(void *)mem;
  uint8_t *res = mem + (size_t)(nb + 2) * 4;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = next(pl, n, i, &acc);
    if (!(i & 31)) base[i >> 5] = v;
  }
  int64_t ext = 2 * (int64_t)base[nb - 1] - base[nb - 2]; /* the last block's right anchor */
  base[nb] = base[nb + 1] = (uint32_t)(ext < 0 ? 0 : ext > 0xffffffffll ? 0xffffffffll : ext);
  memset(res, 0, (n + 1) / 2);
  acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    int64_t lo = base[i >> 5], hi = base[(i >> 5) + 1];
    int64_t r = (int64_t)next(pl, n, i, &acc) - (lo + (hi - lo) * (int64_t)(i & 31) / 32);
    uint32_t code = 8;
    if (r >= -7 && r <= 7) code = (uint32_t)r & 15u;
    else {
      if (nexc == cap) {
        uint32_t *ne = (uint32_t *)realloc(exc, (size_t)(cap = cap ? cap * 2 : 1024) * 8);
        if (!ne) { free(exc); free(mem); return NULL; }
        exc = ne;
      }
      exc[2 * nexc] = i;
      exc[2 * nexc++ + 1] = acc;
    }
    res[i >> 1] |= (uint8_t)(code << ((i & 1) * 4));
  }
  unsigned char *all = (unsigned char *)realloc(mem, head + (size_t)nexc * 8);
  if (!all) { free(exc); free(mem); return NULL; }
  if (nexc) memcpy(all + head, exc, (size_t)nexc * 8);
  free(exc);
  *t = (wv_sfu_tab){.base = (const uint32_t *)(void *)all, .res = all + (size_t)(nb + 2) * 4,
                    .exc = (const uint32_t *)(void *)(all + head), .n = n, .nexc = nexc};
  return all;
}

static int load_one(wv_sfu *T, void **mem, const unsigned char *img, size_t len, uint32_t id) {
  uint32_t nt = rd32(img + 8);
  for (uint32_t k = 0; k < nt; k++) {
    const unsigned char *d = img + 16 + 16 * (size_t)k;
    if ((size_t)(d - img) + 16 > len) return -1;
    uint32_t tid = rd32(d), n = rd32(d + 4), off = rd32(d + 8), zlen = rd32(d + 12);
    if (tid != id) continue;
    if (n < 64 || n % 32 || off > len || zlen > len - off) return -1;
    size_t raw = (size_t)n * 4;
    unsigned long long cs = ZSTD_getFrameContentSize(img + off, zlen);
    if (cs != ZSTD_CONTENTSIZE_UNKNOWN && cs != raw) return -1;
    unsigned char *pl = (unsigned char *)malloc(raw);
    if (!pl) return -1;
    size_t got = ZSTD_decompress(pl, raw, img + off, zlen);
    void *m = !ZSTD_isError(got) && got == raw ? build(&T->t[id], pl, n) : NULL;
    free(pl);
    if (!m) return -1;
    mem[id] = m;
    return 0;
  }
  return -1;
}

int wv_sfu_load(wv_sfu *T, void **mem, const void *image, size_t len, uint32_t need) {
  const unsigned char *img = (const unsigned char *)image;
  if (len < 16 || memcmp(img, "WVSFU\x02\0\0", 8)) return -1;
  for (uint32_t id = 0; id < WV_SFU_NTAB; id++)
    if ((need >> id & 1) && !mem[id] && load_one(T, mem, img, len, id)) return -1;
  return 0;
}

void wv_sfu_unload(wv_sfu *T, void **mem) {
  for (uint32_t id = 0; id < WV_SFU_NTAB; id++) {
    free(mem[id]);
    mem[id] = NULL;
    memset(&T->t[id], 0, sizeof T->t[id]);
  }
}
