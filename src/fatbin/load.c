/*
 * load.c — a fatbin's GPU code as one warpvm module (wv_fatbin_load): what warpvm's runtime does for
 * __cudaRegisterFatBinary and its driver for cuModuleLoadData / cuLibraryLoadData. The best PTX
 * entry of each unit is extracted (decompressed) and all of them are loaded together, linked as
 * nvlink links -rdc units; a fatbin with machine code only gets advice on rebuilding with PTX.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin/fatbin.h"

static void no_ptx_message(const wv_fatbin *bin, char *why, size_t whylen) {
  char sass[128];
  wv_fatbin_describe(bin, sass, sizeof sass);
  const char *arch = strstr(sass, "sm_") ? strstr(sass, "sm_") : "sm_90";
  char one[16];
  snprintf(one, sizeof one, "%.*s", (int)strcspn(arch, " ,)a"), arch);
  snprintf(why, whylen,
           "this program's GPU code has no PTX, only machine code (%s), which warpvm cannot run.\n"
           "  Rebuild it so that nvcc embeds PTX: -arch=%s (or add -gencode arch=compute_%s,code=compute_%s).",
           sass[0] ? sass : "none", one, one + 3, one + 3);
}

/* libcudadevrt's own unit (an -rdc program linked with CUDA's device runtime): its PTX implements the
 * device runtime on the GPU's system calls; warpvm provides those functions itself (src/rt/devrt.c). */
static int device_runtime_unit(const char *ptx) { return strstr(ptx, "__cuda_syscall_cnpv2LaunchDeviceV2") != NULL; }

/* The decoder's message for a WV_BF_GONE builtin (src/ir/decode.c). */
int wv_fatbin_why_devside_sync(const char *why) { return strstr(why, "CUDA dynamic parallelism 2 has no") != NULL; }

wv_module *wv_fatbin_load(wv_vm *vm, const void *image, int is_wrapper, size_t max_len, uint32_t *arch, char *why,
                          size_t whylen) {
  char err[512];
  wv_fatbin bin;
  why[0] = 0;
  if (is_wrapper ? wv_fatbin_parse_wrapper(image, &bin, err, sizeof err)
                 : wv_fatbin_parse(image, max_len, &bin, err, sizeof err)) {
    snprintf(why, whylen, "%s", err);
    return NULL;
  }
  char **texts = calloc((size_t)bin.units + 1, sizeof *texts);
  size_t *lens = calloc((size_t)bin.units + 1, sizeof *lens);
  uint32_t n = 0, a = 0;
  int ok = texts && lens;
  if (!ok) snprintf(why, whylen, "out of memory");
  for (uint32_t u = 0; ok && u < bin.units; u++) {
    int best = wv_fatbin_best_ptx_unit(&bin, u, WV_FATBIN_MAX_PTX_ARCH);
    if (best < 0) continue;
    if (!(texts[n] = wv_fatbin_extract(&bin, (uint32_t)best, &lens[n], err, sizeof err))) {
      snprintf(why, whylen, "%s", err); /* without one unit the others would not link */
      ok = 0;
    } else if (device_runtime_unit(texts[n])) { /* left out: warpvm's own device runtime stands in */
      free(texts[n]);
      texts[n] = NULL;
    } else if (!n++) {
      a = bin.v[best].arch;
    }
  }
  wv_module *m = NULL;
  if (ok && n) {
    char name[32];
    snprintf(name, sizeof name, "compute_%u.ptx", a);
    if (wv_module_load_units(vm, (const char *const *)texts, lens, n, name, &m) != WV_OK) {
      snprintf(why, whylen, "%s", wv_last_error(vm));
      m = NULL;
    }
  }
  for (uint32_t i = 0; i < n; i++) free(texts[i]);
  free(texts);
  free(lens);
  if (!m && !why[0]) no_ptx_message(&bin, why, whylen);
  wv_fatbin_free(&bin);
  if (arch) *arch = a;
  return m;
}
