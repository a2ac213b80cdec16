/*
 * fuzz_elf.c — libFuzzer harness: an input is an ELF file (an nvcc-built program, a shared object, a
 * cubin). It goes through everything `warpvm ./app` asks of the ELF reader: sections by name, the
 * dynamic section's strings, DT_NEEDED matching, symbol lookups, the CUDA-runtime linkage verdict;
 * a .nv_fatbin section found is parsed as a fatbin. Promises checked: sections and strings lie inside
 * the file and strings end there; nothing crashes, hangs, leaks or trips ASan/UBSan.
 */
#include "fatbin_check.h"
#include "fatbin/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wv_elf e;
  char err[256] = "";
  if (wv_elf_open_mem(data, size, &e, err, sizeof err)) {
    WVF_CHECK(err[0], "open failed without a message");
    return 0;
  }
  wvf_span file = {data, size};
  static const char *const sections[] = {".nv_fatbin", "__nv_relfatbin", ".nvFatBinSegment", ".dynamic",
                                         ".dynstr", ".symtab", ".text", ".shstrtab", "", "nonexistent"};
  for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
    size_t n = 0;
    const uint8_t *s = wv_elf_section(&e, sections[i], &n);
    if (!s) continue;
    WVF_CHECK(wvf_inside(file, s, n), "section %s is outside the file", sections[i]);
    if (i <= 1) { /* the fatbin reader gets what the ELF reader found */
      wv_fatbin fb;
      if (!wv_fatbin_parse(s, n, &fb, err, sizeof err)) {
        wvf_check_fatbin(&fb, &(wvf_span){s, n}, 1);
        wv_fatbin_free(&fb);
      }
    }
  }
  static const int64_t tags[] = {WV_ELF_DT_NEEDED, WV_ELF_DT_RPATH, WV_ELF_DT_RUNPATH, 0, -1};
  for (size_t t = 0; t < sizeof tags / sizeof *tags; t++) {
    const char *out[8];
    uint32_t n = wv_elf_dynamic_strings(&e, tags[t], out, 8);
    for (uint32_t i = 0; i < n && i < 8; i++) {
      WVF_CHECK(wvf_inside(file, out[i], 1), "dynamic string %u of tag %lld is outside the file", i, (long long)tags[t]);
      WVF_CHECK(memchr(out[i], 0, (size_t)(data + size - (const uint8_t *)out[i])), "dynamic string %u unterminated", i);
    }
  }
  static const char *const libs[] = {"libcudart.so.13", "libcudart.so*", "libc.so.6", "*", ""};
  for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) (void)wv_elf_needs(&e, libs[i]);
  static const char *const syms[] = {"__cudaRegisterFatBinary", "libcudart_static_*", "main", "*", ""};
  for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
    wv_elf_sym_state st = wv_elf_symbol(&e, syms[i]);
    WVF_CHECK(st <= WV_ELF_SYM_DEFINED, "symbol state %d", (int)st);
  }
  char why[128];
  wv_elf_cudart l = wv_elf_cudart_linkage(&e, why, sizeof why);
  WVF_CHECK(l <= WV_ELF_CUDART_PROVIDER && memchr(why, 0, sizeof why), "linkage %d", (int)l);
  wv_elf_close(&e);
  return 0;
}
