/*
 * elf.c — the defensive ELF64 (little-endian) reader of elf.h: a read-only mapping, section lookup
 * by name, the dynamic section's strings (through the section headers, or the program headers
 * when a file has none), symbol lookup in .symtab/.dynsym, and the CUDA-runtime linkage verdict
 * the CLI prints. Fields are read byte by byte, never through casts of the mapping; every offset,
 * count and string is checked against the file before use.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC, mmap */
#endif
#include "fatbin/elf.h"
#include "fatbin/bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { EHDR = 64, SHDR = 64, PHDR = 56, SYM = 24, DYN = 16 };
enum { SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_DYNAMIC = 6, SHT_NOBITS = 8, SHT_DYNSYM = 11 };
enum { PT_LOAD = 1, PT_DYNAMIC = 2, DT_NULL = 0, DT_STRTAB = 5, DT_STRSZ = 10 };


/* Does [off, off + len) lie inside the file? */
static int in_file(const wv_elf *e, uint64_t off, uint64_t len) { return off <= e->size && len <= e->size - off; }

/* A byte range of the file; data NULL when there is none. */
typedef struct span {
  const uint8_t *data;
  size_t size;
} span;

static span file_span(const wv_elf *e, uint64_t off, uint64_t len) {
  span s = {NULL, 0};
  if (in_file(e, off, len)) s = (span){e->data + off, (size_t)len};
  return s;
}

/* The NUL-terminated string at off in table t, or NULL. */
static const char *str_at(span t, uint64_t off) {
  if (!t.data || off >= t.size || !memchr(t.data + off, 0, t.size - (size_t)off)) return NULL;
  return (const char *)t.data + off;
}

static const uint8_t *shdr(const wv_elf *e, uint32_t i) {
  return i < e->shnum ? e->data + e->shoff + (uint64_t)i * e->shentsize : NULL;
}

static span section_span(const wv_elf *e, uint32_t i) {
  const uint8_t *h = shdr(e, i);
  if (!h || rd32(h + 4) == SHT_NOBITS) return (span){NULL, 0};
  return file_span(e, rd64(h + 24), rd64(h + 32));
}

/* Validates the section header table (extended numbering included); no sections if it is bad. */
static void read_sections(wv_elf *e) {
  const uint8_t *h = e->data;
  uint64_t shoff = rd64(h + 0x28);
  uint32_t shnum = rd16(h + 0x3c), shstrndx = rd16(h + 0x3e);
  uint16_t shentsize = rd16(h + 0x3a);
  if (!shoff || shentsize < SHDR || !in_file(e, shoff, SHDR)) return;
  if (shnum == 0) { /* extended numbering: the count is in section 0 */
    uint64_t big = rd64(h + shoff + 32);
    shnum = big <= UINT32_MAX ? (uint32_t)big : 0;
  }
  if (shstrndx == 0xffff) shstrndx = rd32(h + shoff + 40);
  if (!in_file(e, shoff, (uint64_t)shnum * shentsize)) return;
  e->shoff = shoff;
  e->shnum = shnum;
  e->shentsize = shentsize;
  e->shstrndx = shstrndx;
}

int wv_elf_open_mem(const void *data, size_t size, wv_elf *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  const uint8_t *p = data;
  if (!p || size < EHDR || memcmp(p, "\177ELF", 4) || p[4] != 2 || p[5] != 1) {
    set_err(err, errlen, "not a 64-bit little-endian ELF file%s", p && size >= 6 && !memcmp(p, "\177ELF", 4) ? "" : " (no ELF header)");
    return -1;
  }
  out->data = p;
  out->size = size;
  out->type = rd16(p + 0x10);
  out->machine = rd16(p + 0x12);
  read_sections(out);
  return 0;
}

int wv_elf_open(const char *path, wv_elf *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    set_err(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  const char *why = NULL;
  if (fstat(fd, &st)) why = strerror(errno);
  else if (S_ISDIR(st.st_mode)) why = "is a directory";
  else if (!S_ISREG(st.st_mode) || st.st_size < EHDR) why = "not a 64-bit little-endian ELF file";
  if (why) {
    set_err(err, errlen, "%s: %s", path, why);
    close(fd);
    return -1;
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int saved = errno;
  close(fd);
  if (map == MAP_FAILED) {
    set_err(err, errlen, "%s: cannot map: %s", path, strerror(saved));
    return -1;
  }
  char msg[160];
  if (wv_elf_open_mem(map, (size_t)st.st_size, out, msg, sizeof msg)) {
    munmap(map, (size_t)st.st_size);
    set_err(err, errlen, "%s: %s", path, msg);
    return -1;
  }
  out->map = map;
  out->map_len = (size_t)st.st_size;
  return 0;
}

void wv_elf_close(wv_elf *e) {
  if (!e) return;
  if (e->map) munmap(e->map, e->map_len);
  memset(e, 0, sizeof *e);
}

/* Index of the first section called name, or -1. */
static int64_t find_section(const wv_elf *e, const char *name) {
  span names = section_span(e, e->shstrndx);
  for (uint32_t i = 0; i < e->shnum; i++) {
    const char *n = str_at(names, rd32(shdr(e, i)));
    if (n && !strcmp(n, name)) return i;
  }
  return -1;
}

const uint8_t *wv_elf_section(const wv_elf *e, const char *name, size_t *size) {
  if (size) *size = 0;
  int64_t i = e && name ? find_section(e, name) : -1;
  span s = i >= 0 ? section_span(e, (uint32_t)i) : (span){NULL, 0};
  if (size) *size = s.size;
  return s.data;
}

/* File offset of virtual address v through the PT_LOAD segments, or UINT64_MAX. */
static uint64_t vaddr_to_off(const wv_elf *e, uint64_t v, uint64_t len) {
  uint64_t phoff = rd64(e->data + 0x20);
  uint16_t phentsize = rd16(e->data + 0x36), phnum = rd16(e->data + 0x38);
  if (phentsize < PHDR || !in_file(e, phoff, (uint64_t)phnum * phentsize)) return UINT64_MAX;
  for (uint16_t i = 0; i < phnum; i++) {
    const uint8_t *ph = e->data + phoff + (uint64_t)i * phentsize;
    uint64_t off = rd64(ph + 8), va = rd64(ph + 16), filesz = rd64(ph + 32);
    if (rd32(ph) == PT_LOAD && v >= va && v - va <= filesz && len <= filesz - (v - va)) return off + (v - va);
  }
  return UINT64_MAX;
}

/* The dynamic section and its string table: by section headers, else by program headers. */
static void dynamic_tables(const wv_elf *e, span *dyn, span *strs) {
  *dyn = *strs = (span){NULL, 0};
  for (uint32_t i = 0; i < e->shnum; i++) {
    if (rd32(shdr(e, i) + 4) != SHT_DYNAMIC) continue;
    *dyn = section_span(e, i);
    *strs = section_span(e, rd32(shdr(e, i) + 40));
    return;
  }
  uint64_t phoff = rd64(e->data + 0x20);
  uint16_t phentsize = rd16(e->data + 0x36), phnum = rd16(e->data + 0x38);
  if (phentsize < PHDR || !in_file(e, phoff, (uint64_t)phnum * phentsize)) return;
  for (uint16_t i = 0; i < phnum && !dyn->data; i++) {
    const uint8_t *ph = e->data + phoff + (uint64_t)i * phentsize;
    if (rd32(ph) == PT_DYNAMIC) *dyn = file_span(e, rd64(ph + 8), rd64(ph + 32));
  }
  uint64_t strtab = UINT64_MAX, strsz = 0;
  for (size_t o = 0; dyn->data && o + DYN <= dyn->size && rd64(dyn->data + o) != DT_NULL; o += DYN) {
    if (rd64(dyn->data + o) == DT_STRTAB) strtab = rd64(dyn->data + o + 8);
    if (rd64(dyn->data + o) == DT_STRSZ) strsz = rd64(dyn->data + o + 8);
  }
  if (strtab != UINT64_MAX) *strs = file_span(e, vaddr_to_off(e, strtab, strsz), strsz);
}

/* name equal to pattern, or starting with it when the pattern ends in '*'. */
static int name_matches(const char *name, const char *pattern) {
  size_t len = strlen(pattern);
  if (len && pattern[len - 1] == '*') return !strncmp(name, pattern, len - 1);
  return !strcmp(name, pattern);
}

/* Walks the dynamic entries with `tag`: stores up to cap of their strings in out[], counts them all,
 * and stops at the first one matching `pattern` (when not NULL), returning it in *match. */
static uint32_t dyn_walk(const wv_elf *e, int64_t tag, const char **out, uint32_t cap, const char *pattern,
                         const char **match) {
  if (match) *match = NULL;
  if (!e || !e->data) return 0;
  span dyn, strs;
  dynamic_tables(e, &dyn, &strs);
  uint32_t n = 0;
  for (size_t o = 0; dyn.data && o + DYN <= dyn.size; o += DYN) {
    int64_t t = (int64_t)rd64(dyn.data + o);
    if (t == DT_NULL) break;
    const char *s = t == tag ? str_at(strs, rd64(dyn.data + o + 8)) : NULL;
    if (!s) continue;
    if (out && n < cap) out[n] = s;
    n++;
    if (pattern && name_matches(s, pattern)) {
      *match = s;
      break;
    }
  }
  return n;
}

uint32_t wv_elf_dynamic_strings(const wv_elf *e, int64_t tag, const char **out, uint32_t cap) {
  return dyn_walk(e, tag, out, cap, NULL, NULL);
}

int wv_elf_needs(const wv_elf *e, const char *name) {
  const char *m;
  dyn_walk(e, WV_ELF_DT_NEEDED, NULL, 0, name, &m);
  return m != NULL;
}

/* wv_elf_symbol over the symbol tables of section type `only` (0: .symtab and .dynsym). */
static wv_elf_sym_state lookup(const wv_elf *e, const char *name, uint32_t only) {
  wv_elf_sym_state best = WV_ELF_SYM_ABSENT;
  for (uint32_t i = 0; e && name && i < e->shnum && best != WV_ELF_SYM_DEFINED; i++) {
    const uint8_t *h = shdr(e, i);
    uint32_t type = rd32(h + 4);
    if ((type != SHT_SYMTAB && type != SHT_DYNSYM) || (only && type != only)) continue;
    uint64_t entsize = rd64(h + 56) >= SYM ? rd64(h + 56) : SYM;
    span syms = section_span(e, i), strs = section_span(e, rd32(h + 40));
    for (uint64_t o = 0; syms.data && o + SYM <= syms.size; o += entsize) {
      const char *s = str_at(strs, rd32(syms.data + o));
      if (s && name_matches(s, name)) {
        wv_elf_sym_state st = rd16(syms.data + o + 6) ? WV_ELF_SYM_DEFINED : WV_ELF_SYM_UNDEFINED;
        if (st > best) best = st;
        if (best == WV_ELF_SYM_DEFINED) break;
      }
      if (entsize > syms.size - o) break;
    }
  }
  return best;
}

wv_elf_sym_state wv_elf_symbol(const wv_elf *e, const char *name) { return lookup(e, name, 0); }

wv_elf_cudart wv_elf_cudart_linkage(const wv_elf *e, char *why, size_t cap) {
  set_err(why, cap, "no device code and no CUDA runtime");
  if (!e || !e->data) return WV_ELF_NO_CUDA;
  const char *lib;
  dyn_walk(e, WV_ELF_DT_NEEDED, NULL, 0, "libcudart.so*", &lib);
  if (lib) {
    set_err(why, cap, "needs %s", lib);
    return WV_ELF_CUDART_SHARED;
  }
  if (lookup(e, "__cudaRegisterFatBinary", SHT_DYNSYM) == WV_ELF_SYM_DEFINED) {
    set_err(why, cap, "exports __cudaRegisterFatBinary: a CUDA runtime library itself");
    return WV_ELF_CUDART_PROVIDER;
  }
  size_t sz;
  int fatbin = wv_elf_section(e, ".nv_fatbin", &sz) || wv_elf_section(e, ".nvFatBinSegment", &sz);
  int reg = wv_elf_symbol(e, "__cudaRegisterFatBinary") == WV_ELF_SYM_DEFINED;
  int marker = wv_elf_symbol(e, "libcudart_static_*") == WV_ELF_SYM_DEFINED;
  if (!fatbin && !reg && !marker) return WV_ELF_NO_CUDA;
  set_err(why, cap, "%s%s%s, and libcudart.so is not needed", fatbin ? "has device code (.nv_fatbin)" : "",
          reg ? (fatbin ? "; defines __cudaRegisterFatBinary" : "defines __cudaRegisterFatBinary") : "",
          marker ? (fatbin || reg ? "; has libcudart_static symbols" : "has libcudart_static symbols") : "");
  return WV_ELF_CUDART_STATIC;
}
