/*
 * engine_diff.c — the CTest driver of fuzz_engines.c (CTest `engines.diff`): COUNT random inputs (default 400; CTest runs 150, 40 in the sanitizer build;
 * from SEED, default 1) of 64 to 1024 pseudo-random bytes each, every one a random kernel run under the
 * interpreter and the JIT and compared (a difference aborts with the kernel and where it differs). Exit 77
 * (skipped) when warpvm has no JIT.   Usage: engine_diff [COUNT [SEED]]
 */
#include "fuzz.h"
#include "warpvm.h"

int main(int argc, char **argv) {
  unsigned count = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 400;
  uint64_t s = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  if (!wv_has_jit()) {
    printf("engine_diff: warpvm was built without LLVM: no JIT to compare (skipped)\n");
    return 77;
  }
  static uint8_t buf[1024];
  s = s * 0x9e3779b97f4a7c15ull | 1;
  for (unsigned i = 0; i < count; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    size_t n = 64 + (size_t)(s % 961);
    for (size_t j = 0; j < n; j++) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      buf[j] = (uint8_t)(s >> 24);
    }
    LLVMFuzzerTestOneInput(buf, n);
  }
  printf("engine_diff: %u random kernels, the engines agree on every register and memory byte\n", count);
  return 0;
}
