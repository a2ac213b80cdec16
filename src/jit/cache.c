/*
 * cache.c — the JIT's object files on disk (README "Engines"): $XDG_CACHE_HOME/warpvm/jit, else
 * ~/.cache/warpvm/jit, one file per compiled function, named by the hash of everything its code depends on
 * (jit.c: the instructions of its regions, warpvm's build of the JIT, the CPU, LLVM). A file holds the
 * function's object files (one per thread that compiled a part of it): "wvjitobj", their number n (8 bytes,
 * in the host's byte order as every number here), n sizes (8 bytes each), then the objects. Files are written
 * under a temporary name and renamed, so concurrent processes never read half a file; past WV_JIT_CACHE_MAX bytes the
 * oldest files go. Any failure only means compiling again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/cache.h"

#define WV_JIT_CACHE_MAX (256ull << 20)

/* (cache.h) */
int wv_jit_cache_dir(char *buf, size_t cap) {
  const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  int n = x && *x ? snprintf(buf, cap, "%s/warpvm/jit", x) : h && *h ? snprintf(buf, cap, "%s/.cache/warpvm/jit", h) : -1;
  return n > 0 && (size_t)n < cap ? 0 : -1;
}

static int mkdirs(char *path) { /* mkdir -p */
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    int bad = mkdir(path, 0755) && errno != EEXIST;
    *p = '/';
    if (bad) return -1;
  }
  return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

static void file_of(const char *dir, const uint64_t key[2], char *buf, size_t cap) {
  snprintf(buf, cap, "%s/%016llx%016llx.jit", dir, (unsigned long long)key[0], (unsigned long long)key[1]);
}

#define MAGIC "wvjitobj"

int wv_jit_cache_has(const char *dir, const uint64_t key[2]) {
  char path[4200];
  file_of(dir, key, path, sizeof path);
  return !access(path, R_OK);
}

void *wv_jit_cache_get(const char *dir, const uint64_t key[2], size_t *size, unsigned *n, unsigned max) {
  char path[4200];
  file_of(dir, key, path, sizeof path);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  struct stat sb;
  uint8_t *buf = NULL;
  size_t len = 0;
  if (!fstat(fileno(f), &sb) && sb.st_size > 16 && sb.st_size < (1 << 30) && (buf = malloc(len = (size_t)sb.st_size)) &&
      fread(buf, 1, len, f) != len) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (!buf) return NULL;
  uint64_t cnt, total = 0;
  memcpy(&cnt, buf + 8, 8);
  int ok = !memcmp(buf, MAGIC, 8) && cnt >= 1 && cnt <= max && len >= 16 + 8 * cnt;
  for (unsigned i = 0; ok && i < cnt; i++) {
    uint64_t s;
    memcpy(&s, buf + 16 + 8 * i, 8);
    ok = s > 0 && s <= len;
    size[i] = (size_t)s;
    total += s;
  }
  if (!ok || total != len - 16 - 8 * cnt) { /* not one of ours (or cut short): compiled again */
    free(buf);
    return NULL;
  }
  *n = (unsigned)cnt;
  memmove(buf, buf + 16 + 8 * cnt, total);
  utimensat(AT_FDCWD, path, NULL, 0); /* recently used: the last to go */
  return buf;
}

/* When the folder holds more than the limit: remove the least recently used files until it holds at most 3/4. */
static void trim(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct ent { char name[64]; time_t t; off_t size; } *v = NULL;
  size_t n = 0, cap = 0;
  unsigned long long total = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    struct stat sb;
    char path[4200];
    if (strlen(de->d_name) != 36) continue; /* 32 hex digits and ".jit" */
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if (stat(path, &sb)) continue;
    if (n == cap) {
      struct ent *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
      if (!nv) break;
      v = nv;
    }
    memcpy(v[n].name, de->d_name, 37); /* (36 characters and the NUL: checked above) */
    v[n].t = sb.st_mtime;
    v[n].size = sb.st_size;
    total += (unsigned long long)sb.st_size;
    n++;
  }
  closedir(d);
  if (total <= WV_JIT_CACHE_MAX) n = 0; /* within the limit: nothing goes */
  while (total > WV_JIT_CACHE_MAX / 4 * 3 && n) {
    size_t o = 0;
    for (size_t i = 1; i < n; i++)
      if (v[i].t < v[o].t) o = i;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, v[o].name);
    unlink(path);
    total -= (unsigned long long)v[o].size;
    v[o] = v[--n];
  }
  free(v);
}

void wv_jit_cache_put(const char *dir, const uint64_t key[2], const void *const *obj, const size_t *size, unsigned n) {
  char path[4200], tmp[4300], d[4096];
  snprintf(d, sizeof d, "%s", dir);
  if (mkdirs(d)) return;
  file_of(dir, key, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) return;
  uint64_t cnt = n;
  int ok = fwrite(MAGIC, 1, 8, f) == 8 && fwrite(&cnt, 8, 1, f) == 1;
  for (unsigned i = 0; ok && i < n; i++) {
    uint64_t s = size[i];
    ok = fwrite(&s, 8, 1, f) == 1;
  }
  for (unsigned i = 0; ok && i < n; i++) ok = fwrite(obj[i], 1, size[i], f) == size[i];
  ok = !fclose(f) && ok;
  if (!ok || rename(tmp, path)) {
    unlink(tmp);
    return;
  }
  trim(dir);
}
