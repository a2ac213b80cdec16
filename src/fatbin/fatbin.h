/*
 * fatbin.h — nvcc's fatbinary format, read-only: the containers nvcc embeds in `.nv_fatbin` /
 * `__nv_relfatbin` and hands to __cudaRegisterFatBinary, their entries (PTX, SASS ELF), and the
 * LZ4 / Zstandard payload decompression. Every size field is checked against the image it lies
 * in, and a corrupt image is an error with a one-line message.
 *
 * Layout, as nvcc 13.0 writes it (all little-endian; verified on real builds, see
 * tests/unit/data/fatbin/README.md):
 *
 *   wrapper  (__fatBinC_Wrapper_t, 24 bytes, in .nvFatBinSegment)
 *     0 u32 magic 0x466243b1   4 u32 version (1, or 2 = linked)   8 ptr data (a container)
 *    16 ptr version 1: offline file name or NULL; version 2: NULL-terminated array of pointers to
 *       the prelinked (per translation unit, -rdc) containers, in __nv_relfatbin
 *   container header (16 bytes)
 *     0 u32 magic 0xBA55ED50   4 u16 version 1   6 u16 header size 16   8 u64 bytes after the header
 *   entry header (header size >= 64, a multiple of 8), then the payload
 *     0 u16 kind (1 PTX, 2 ELF, 8 LTO-IR)   2 u16 0x0101   4 u32 header size
 *     8 u64 payload bytes stored (a compressed payload padded with zeros to a multiple of 8)
 *    16 u32 compressed bytes (0 = not compressed)       20 u32 options descriptor offset (0 = none)
 *    24 u16 minor   26 u16 major (PTX ISA 9.0; ELF: cubin ABI 1.8)   28 u32 arch (80, 90, 100)
 *    32 u32 name offset   36 u32 name length (the source file, with -G)   40 u64 flags
 *    48 u64 zero (not for LTO-IR)   56 u64 decompressed bytes (0 = not compressed)
 *    64 ...  name; options descriptor {u32 offset, u32 length} (offsets from the entry start);
 *            the ptxas options ("--compile-only  ") — for sm_100+ ELF a binary attribute blob
 *   PTX payloads are NUL-terminated (the decompressed size counts the NUL; an uncompressed payload
 *   is padded with zeros to a multiple of 8) and minified by fatbinary: comments and leading
 *   blanks removed, runs of blanks cut to their first character, line numbers kept. Entries and
 *   containers follow each other directly (all sizes are multiples of 8).
 */
#ifndef WV_FATBIN_H
#define WV_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#include "warpvm.h"

#define WV_FATBIN_WRAPPER_MAGIC 0x466243b1u
#define WV_FATBIN_MAGIC 0xBA55ED50u

/* Entry kinds. */
enum { WV_FATBIN_PTX = 1, WV_FATBIN_ELF = 2, WV_FATBIN_LTOIR = 8 /* -gencode code=lto_XX (-dlto) */ };

/* Payload compression (from the flags). */
enum { WV_FATBIN_NONE = 0, WV_FATBIN_LZ4 = 1, WV_FATBIN_ZSTD = 2 };

/* Entry flags seen in nvcc 13.0 output. */
#define WV_FATBIN_F_64BIT 0x1ull          /* compiled for a 64-bit host */
#define WV_FATBIN_F_DEBUG 0x2ull          /* -G */
#define WV_FATBIN_F_LINUX 0x10ull         /* host is Linux */
#define WV_FATBIN_F_LZ4 0x2000ull         /* payload is one raw LZ4 block (-compress-mode=speed) */
#define WV_FATBIN_F_ZSTD 0x8000ull        /* payload is a Zstandard frame (default, balance, size) */
#define WV_FATBIN_F_ENCRYPTED 0x10000ull  /* LTO-IR: the stored payload is scrambled (u64 at 48 != 0) */
#define WV_FATBIN_F_ARCH_SPECIFIC 0x100000ull /* sm_90a / compute_90a */
#define WV_FATBIN_F_FAMILY 0x200000ull    /* sm_100f / compute_100f */

typedef struct wv_fatbin_entry {
  uint16_t kind;          /* WV_FATBIN_PTX, WV_FATBIN_ELF, or another value nvcc may add */
  uint16_t major, minor;  /* PTX ISA version (9.0) for PTX, cubin ABI version (1.8) for ELF */
  uint32_t arch;          /* 80, 90, 100, ... (with WV_FATBIN_F_ARCH_SPECIFIC: 90 means sm_90a) */
  uint64_t flags;
  uint32_t compression;   /* WV_FATBIN_NONE / LZ4 / ZSTD */
  uint64_t stored_size;   /* payload bytes as stored (compressed: exact, without the padding) */
  uint64_t plain_size;    /* bytes after decompression (PTX: counting its NUL); = stored_size if none */
  const uint8_t *payload; /* into the parsed image */
  const uint8_t *options; /* ptxas options (text) or an attribute blob; NULL if none */
  uint32_t options_len;
  const char *name;       /* source file name (not NUL-terminated); NULL if none */
  uint32_t name_len;
  uint32_t unit;          /* 0: the image / the wrapper's data; u >= 1: prelinked fatbin u-1 */
  uint64_t offset;        /* of the entry header within its unit's image */
} wv_fatbin_entry;

typedef struct wv_fatbin {
  wv_fatbin_entry *v;
  uint32_t n;
  uint32_t units;          /* 1 + the number of prelinked fatbins of a version-2 wrapper */
  uint32_t wrapper_version; /* 0 when parsed from a plain image */
  size_t size;             /* bytes of unit 0 taken by its containers */
} wv_fatbin;

/* Parses a fatbin image of at most max_len bytes: containers back to back (zero padding to the
 * next 8-byte boundary allowed), stopping at the first bytes that are not a container or at
 * max_len. The entries point into `image`, which must outlive *out. Returns 0, or -1 with a
 * one-line message in err (e.g. "corrupt fatbin: entry 2 at offset 0x1a0 claims 9999 payload
 * bytes, 48 left"); *out is then empty. */
int wv_fatbin_parse(const void *image, size_t max_len, wv_fatbin *out, char *err, size_t errlen);

/* Parses what nvcc passes to __cudaRegisterFatBinary: the wrapper's magic and version are
 * checked, and exactly one container is read at `data` (its 16-byte header gives the size, the one
 * thing trusted since the wrapper carries none; what follows it in memory belongs to other objects).
 *  - Version 1: one translation unit's container (SASS and/or PTX), registered by that unit's own
 *    constructor. This is every non -rdc build (nvcc 13 always runs a device link, but its stub
 *    registers nothing when there are no relocatable units).
 *  - Version 2: an -rdc=true link. The device-link stub (crt/link.stub) waits until the
 *    constructors of all N relocatable units ran, then registers once: data is nvlink's linked
 *    container (unit 0, SASS only) and the NULL-terminated array holds each unit's container from
 *    __nv_relfatbin (units 1..N: relocatable SASS, PTX with .extern references across units); then
 *    every unit's callback registers its kernels on that one handle. All units' PTX must be loaded
 *    (and linked) together. */
int wv_fatbin_parse_wrapper(const void *wrapper, wv_fatbin *out, char *err, size_t errlen);

/* The payload of entry i, decompressed into a malloc'd buffer that is always NUL-terminated; *len
 * is the text length for PTX (up to the first NUL) and the plain size for other kinds. NULL with
 * a message on corrupt data, a size mismatch, or an encrypted (LTO-IR) payload. */
char *wv_fatbin_extract(const wv_fatbin *fb, uint32_t i, size_t *len, char *err, size_t errlen);

/* Index of the PTX entry to run from all units: the highest arch <= max_arch (at max_arch itself an
 * sm_XXa/f target before the generic one, below it the generic one first), else the lowest arch above
 * max_arch; -1 if there is no PTX. Use wv_fatbin_best_ptx_unit per unit when units > 1 (every unit must be loaded). */
int wv_fatbin_best_ptx(const wv_fatbin *fb, uint32_t max_arch);
int wv_fatbin_best_ptx_unit(const wv_fatbin *fb, uint32_t unit, uint32_t max_arch);

/* "sm_80 sm_90a": the distinct SASS archs present, ascending ("" if none). */
void wv_fatbin_describe(const wv_fatbin *fb, char *buf, size_t cap);

void wv_fatbin_free(wv_fatbin *fb);

/* The newest PTX target warpvm runs. */
#define WV_FATBIN_MAX_PTX_ARCH 90

/*
 * Loads the GPU code of a fatbin into vm as one module, as a CUDA driver does (load.c): the best
 * PTX of every unit (one unit for a plain fatbin, one per translation unit for -rdc, linked
 * together). `wrapper` is a __fatBinC_Wrapper_t (is_wrapper) or a fatbin image of at most max_len
 * bytes. Returns the module, or NULL with why (a one-line reason, or the advice to rebuild with PTX
 * when there is only machine code); *arch receives the PTX target loaded.
 */
wv_module *wv_fatbin_load(wv_vm *vm, const void *image, int is_wrapper, size_t max_len, uint32_t *arch, char *why,
                          size_t whylen);
/* Whether a load failed because the PTX calls cudaDeviceSynchronize in device code (CDP1, removed for sm_90:
 * src/ir/builtins.def), which CUDA reports as cudaErrorUnsupportedDevSideSync / CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC. */
int wv_fatbin_why_devside_sync(const char *why);

#endif
