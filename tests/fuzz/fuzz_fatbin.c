/*
 * fuzz_fatbin.c — libFuzzer harness: an input is a fatbin image (what nvcc puts in .nv_fatbin,
 * containers back to back). It is parsed, every payload extracted (LZ4 / Zstandard decompression
 * included), the PTX choice and SASS summary computed; fatbin_check.h says what is checked. Nothing
 * may crash, hang, leak or trip ASan/UBSan.
 */
#include "fatbin_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wv_fatbin fb;
  char err[512] = "";
  if (wv_fatbin_parse(data, size, &fb, err, sizeof err)) {
    WVF_CHECK(err[0] && fb.n == 0, "parse failed with %u entries and message '%s'", fb.n, err);
    return 0;
  }
  WVF_CHECK(fb.size <= size, "containers take %zu bytes of a %zu-byte image", fb.size, size);
  WVF_CHECK(fb.units == 1 && fb.wrapper_version == 0, "%u units, wrapper version %u", fb.units, fb.wrapper_version);
  wvf_check_fatbin(&fb, &(wvf_span){data, size}, 1);
  wv_fatbin_free(&fb);
  return 0;
}
