/*
 * elf.h — a small, defensive reader of 64-bit little-endian ELF files (executables and shared
 * objects), enough for the CLI to tell how a CUDA application was linked: the dynamic section's
 * DT_NEEDED / DT_RPATH / DT_RUNPATH strings, sections by name (".nv_fatbin"), and whether a
 * symbol is defined in .symtab / .dynsym. The file is mapped read-only; every offset, size, index
 * and string is checked against the mapping, so a damaged file gives a message or "not found".
 */
#ifndef WV_ELF_H
#define WV_ELF_H

#include <stddef.h>
#include <stdint.h>

typedef struct wv_elf {
  const uint8_t *data; /* the whole file */
  size_t size;
  void *map;           /* the mapping to undo (NULL when opened from memory) */
  size_t map_len;
  uint16_t type;       /* ET_EXEC 2, ET_DYN 3, ... */
  uint16_t machine;    /* EM_X86_64 62, EM_AARCH64 183, ... */
  uint64_t shoff;      /* section header table (0 shnum when absent or out of bounds) */
  uint32_t shnum;
  uint16_t shentsize;
  uint32_t shstrndx;
} wv_elf;

/* Dynamic tags understood by wv_elf_dynamic_strings. */
#define WV_ELF_DT_NEEDED 1
#define WV_ELF_DT_RPATH 15
#define WV_ELF_DT_RUNPATH 29

/* Maps `path` read-only. Returns 0, or -1 with a one-line message ("PATH: not a 64-bit
 * little-endian ELF file"). */
int wv_elf_open(const char *path, wv_elf *out, char *err, size_t errlen);
/* The same over bytes in memory (kept by the caller until wv_elf_close). */
int wv_elf_open_mem(const void *data, size_t size, wv_elf *out, char *err, size_t errlen);
void wv_elf_close(wv_elf *e);

/* The bytes of the first section called `name`; NULL if absent, NOBITS or out of bounds. */
const uint8_t *wv_elf_section(const wv_elf *e, const char *name, size_t *size);

/* The strings of every dynamic entry with `tag` (WV_ELF_DT_NEEDED, ...), in order: up to cap of them
 * go to out[] (pointers into the file, NUL-terminated); returns how many there are. */
uint32_t wv_elf_dynamic_strings(const wv_elf *e, int64_t tag, const char **out, uint32_t cap);

/* Is a DT_NEEDED entry equal to `name`, or starting with it when name ends in '*'? */
int wv_elf_needs(const wv_elf *e, const char *name);

typedef enum wv_elf_sym_state {
  WV_ELF_SYM_ABSENT = 0,    /* in neither .symtab nor .dynsym */
  WV_ELF_SYM_UNDEFINED = 1, /* referenced only (st_shndx == SHN_UNDEF) */
  WV_ELF_SYM_DEFINED = 2,   /* defined in this file, any binding */
} wv_elf_sym_state;

/* Looks `name` up in .symtab and .dynsym (a trailing '*' matches a prefix); DEFINED wins. */
wv_elf_sym_state wv_elf_symbol(const wv_elf *e, const char *name);

typedef enum wv_elf_cudart {
  WV_ELF_NO_CUDA = 0,       /* no device code, no CUDA runtime */
  WV_ELF_CUDART_SHARED = 1, /* DT_NEEDED libcudart.so.*: warpvm's libcudart.so can stand in */
  WV_ELF_CUDART_STATIC = 2, /* device code or __cudaRegisterFatBinary here, libcudart not needed */
  WV_ELF_CUDART_PROVIDER = 3, /* exports __cudaRegisterFatBinary: a CUDA runtime (NVIDIA's or ours) */
} wv_elf_cudart;

/* How the file uses the CUDA runtime; `why` (optional) gets the evidence in a few words. */
wv_elf_cudart wv_elf_cudart_linkage(const wv_elf *e, char *why, size_t cap);

#endif
