/*
 * fuzz.h — what the libFuzzer harnesses of tests/fuzz share: the entry points libFuzzer calls, an
 * input hash (a raw seed picks its configuration from its own bytes, so plain PTX or fatbin files
 * are valid inputs), a byte reader for inputs that are programs of calls, and the oracle that turns
 * a broken promise into a crash libFuzzer keeps (WVF_CHECK).
 */
#ifndef WV_FUZZ_H
#define WV_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* FNV-1a over the whole input. */
static inline uint64_t wvf_hash(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* n bits taken from the low end of *h. */
static inline uint32_t wvf_bits(uint64_t *h, unsigned n) {
  uint32_t v = (uint32_t)(*h & ((1ull << n) - 1));
  *h >>= n;
  return v;
}

/* Reads an input as a stream of bytes; past the end every read is 0 and `end` is set. */
typedef struct wvf_reader {
  const uint8_t *p;
  size_t n, at;
  int end;
} wvf_reader;

static inline uint8_t wvf_u8(wvf_reader *r) {
  if (r->at >= r->n) { r->end = 1; return 0; }
  return r->p[r->at++];
}
static inline uint32_t wvf_u32(wvf_reader *r) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)wvf_u8(r) << (8 * i);
  return v;
}
static inline uint64_t wvf_u64(wvf_reader *r) {
  uint64_t lo = wvf_u32(r);
  return lo | (uint64_t)wvf_u32(r) << 32;
}

/* A promise the code under test broke: print why and abort, so libFuzzer saves the input. */
#define WVF_CHECK(cond, ...)                                                   \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz check failed: %s (%s:%d): ", #cond, __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      abort();                                                                 \
    }                                                                          \
  } while (0)

#endif
