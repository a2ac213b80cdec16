/*
 * fuzz_gcn.c — libFuzzer harness for the GCN assembler and its one-wave interpreter (src/amd/gcn.h).
 * An input is assembly text for a wave whose size comes from a hash of the text (64, 32 or the 8-lane
 * toy; RDNA halves on wave64 now and then), so the .s files of tests/gcn are seeds as they are. Text
 * that assembles runs on a wave whose VGPRs hold a pattern and prints what it wrote. Promises checked:
 * an error is one "fz.s:LINE:COL: error: ..." message, a run ends (WV_GCN_MAX_STEPS) with 0 or a
 * message; nothing crashes, hangs, leaks or trips ASan/UBSan.
 */
#include "fuzz.h"
#include "amd/gcn.h"

static FILE *devnull;
static wv_gcn_wave wave; /* 70 KB: not on the stack */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  devnull = fopen("/dev/null", "w");
  return 0;
}

static int located(const char *msg) {
  unsigned line, col;
  char word[8] = "";
  return !strncmp(msg, "fz.s:", 5) && sscanf(msg + 5, "%u:%u: %6s", &line, &col, word) == 3 && line >= 1 &&
         !strcmp(word, "error:");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!devnull) LLVMFuzzerInitialize(NULL, NULL);
  uint64_t h = wvf_hash(data, size);
  static const unsigned sizes[] = {64, 32, 8, 64};
  unsigned ws = sizes[wvf_bits(&h, 2)];
  int rdna = ws == 64 && wvf_bits(&h, 1);
  char err[512] = "";
  wv_gcn_program *p = wv_gcn_assemble((const char *)data, size, "fz.s", ws, err, sizeof err);
  if (!p) {
    WVF_CHECK(located(err), "assembly failed without a located message: %s", err);
    return 0;
  }
  WVF_CHECK(wv_gcn_program_size(p) <= WV_GCN_MAX_INSNS, "%zu instructions", wv_gcn_program_size(p));
  WVF_CHECK(wv_gcn_wave_init(&wave, ws, rdna) == 0, "wave of %u lanes refused", ws);
  for (unsigned r = 1; r < 8; r++)
    for (unsigned l = 0; l < ws; l++) wave.vgpr[r][l] = (uint32_t)(h * (r + 1) >> (l % 29)) ^ l * 4;
  err[0] = 0;
  if (wv_gcn_run(&wave, p, err, sizeof err)) WVF_CHECK(err[0], "run failed without a message");
  wv_gcn_print_written(&wave, devnull);
  wv_gcn_program_free(p);
  return 0;
}
