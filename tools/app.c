/*
 * app.c — `warpvm [options] ./app [args...]`: run an unmodified nvcc-built program with warpvm as
 * its GPU. A program built with nvcc's default static runtime talks to the driver, libcuda.so.1:
 * warpvm's (lib/libcuda.so.1) is preloaded, so the runtime's dlopen of that SONAME finds it. A
 * program using the shared runtime (nvcc -cudart shared) gets warpvm's libcudart.so.13 and .12
 * preloaded too (a DT_NEEDED libcudart.so.N is satisfied by the already-loaded library of that
 * SONAME, whatever the program's RPATH says). lib/libnvJitLink.so.13, a JIT linker that declines
 * (src/nvjitlink), is preloaded too, so that numba-cuda and cuda-python hand the driver PTX rather
 * than a cubin. The options go through WARPVM_* environment
 * variables that the driver reads, and the program is exec'd.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "fatbin/elf.h"

static int is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int wv_cli_find_program(const char *prog, char *out, size_t cap) {
  if (strchr(prog, '/')) {
    if ((size_t)snprintf(out, cap, "%s", prog) >= cap) return -1;
    return is_file(out) ? 0 : -1;
  }
  const char *path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  while (*path) {
    size_t n = strcspn(path, ":");
    int len = n ? snprintf(out, cap, "%.*s/%s", (int)n, path, prog) : snprintf(out, cap, "./%s", prog);
    if (len > 0 && (size_t)len < cap && is_file(out) && access(out, X_OK) == 0) return 0;
    path += n + (path[n] == ':');
  }
  return -1;
}

/* The folder holding warpvm's libcudart.so.*: WARPVM_LIBDIR, else next to the executable
 * (build tree: build/warpvm + build/lib/), else ../lib/warpvm (installed). */
static int libdir(char *out, size_t cap) {
  const char *env = getenv("WARPVM_LIBDIR");
  char probe[PATH_MAX + 32];
  if (env && *env) return (size_t)snprintf(out, cap, "%s", env) < cap ? 0 : -1;
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return -1;
  self[n] = 0;
  char *slash = strrchr(self, '/');
  if (!slash) return -1;
  *slash = 0;
  const char *cands[] = {"lib", "../lib/warpvm"};
  for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
    snprintf(probe, sizeof probe, "%s/%s/libcudart.so.13", self, cands[i]);
    if (is_file(probe)) {
      size_t n = strlen(probe) - strlen("/libcudart.so.13");
      if (n >= cap) return -1;
      memcpy(out, probe, n);
      out[n] = 0;
      return 0;
    }
  }
  return -1;
}

/* Refuse programs whose CUDA runtime warpvm cannot serve, with the fix. 0: go ahead; *is_static: the
 * program carries NVIDIA's runtime itself. */
static int check_program(const char *shown, const char *path, int verbose, int *is_static) {
  wv_elf e;
  char err[256], why[256] = "";
  if (wv_elf_open(path, &e, err, sizeof err)) {
    if (verbose) fprintf(stderr, "warpvm: %s is not an ELF program (%s); running it with warpvm's runtime preloaded\n", shown, err);
    return 0;
  }
  int rc = 0;
  switch (wv_elf_cudart_linkage(&e, why, sizeof why)) {
  case WV_ELF_CUDART_STATIC:
    if (verbose) fprintf(stderr, "warpvm: %s links NVIDIA's CUDA runtime statically (%s): it runs on warpvm's driver\n", shown, why);
    *is_static = 1;
    break;
  case WV_ELF_CUDART_SHARED:
    if (!wv_elf_needs(&e, "libcudart.so.12") && !wv_elf_needs(&e, "libcudart.so.13")) {
      fprintf(stderr, "warpvm: %s needs a CUDA runtime warpvm does not provide (%s); warpvm provides "
                      "libcudart.so.12 and libcudart.so.13 (CUDA 12 and 13): rebuild with one of them\n", shown, why);
      rc = 1;
    }
    break;
  case WV_ELF_NO_CUDA:
    if (verbose) fprintf(stderr, "warpvm: %s does not use the CUDA runtime (%s); running it anyway\n", shown, why);
    break;
  case WV_ELF_CUDART_PROVIDER: break;
  }
  wv_elf_close(&e);
  return rc;
}

static int prepend_env(const char *name, const char *first, char sep) {
  const char *old = getenv(name);
  size_t n = strlen(first) + (old ? strlen(old) + 2 : 1);
  char *v = malloc(n);
  if (!v) return -1;
  if (old && *old) snprintf(v, n, "%s%c%s", first, sep, old);
  else snprintf(v, n, "%s", first);
  int rc = setenv(name, v, 1);
  free(v);
  return rc;
}

int wv_cli_run_app(const wv_vm_opts *o, int argc, char **argv) {
  char path[PATH_MAX], dir[PATH_MAX];
  if (argc < 1) return 1;
  if (wv_cli_find_program(argv[0], path, sizeof path)) {
    fprintf(stderr, "warpvm: %s: no such program\n", argv[0]);
    return 127;
  }
  int is_static = 0;
  if (check_program(argv[0], path, o->verbose, &is_static)) return 1;
  if (libdir(dir, sizeof dir)) {
    fprintf(stderr, "warpvm: cannot find warpvm's libcudart.so.13 (looked next to the warpvm executable, in lib/ "
                    "and ../lib/warpvm/); set WARPVM_LIBDIR to the folder that holds it\n");
    return 1;
  }
  char pre[3 * PATH_MAX + 512];
  int bad = (size_t)snprintf(pre, sizeof pre,
                             is_static ? "%s%s%s/libcuda.so.1 %s/libnvJitLink.so.13"
                                       : "%s%s%s/libcuda.so.1 %s/libnvJitLink.so.13 %s/libcudart.so.13 %s/libcudart.so.12",
                             o->preload_first ? o->preload_first : "", o->preload_first ? " " : "", dir, dir, dir, dir) >= sizeof pre;
  bad = bad || prepend_env("LD_PRELOAD", pre, ' ') || prepend_env("LD_LIBRARY_PATH", dir, ':');
  /* cuda.core warns that the stand-in nvJitLink is "too old" as it turns to the driver's linker,
   * which is what warpvm wants: that one warning is silenced (the program's own filters come after). */
  bad = bad || prepend_env("PYTHONWARNINGS", "ignore:libnvJitLink.so* is too old:RuntimeWarning", ',');
  /* CuPy compiles its kernels with NVRTC into cubins unless told to keep PTX (a value set by the user stays). */
  bad = bad || setenv("CUPY_COMPILE_WITH_PTX", "1", 0);
  char num[32];
  if (o->machine) bad |= setenv("WARPVM_MACHINE", o->machine, 1);
  if (o->wpw) { snprintf(num, sizeof num, "%llu", (unsigned long long)o->wpw); bad |= setenv("WARPVM_WARPS_PER_WAVE", num, 1); }
  if (o->has_max_steps) { snprintf(num, sizeof num, "%llu", (unsigned long long)o->max_steps); bad |= setenv("WARPVM_MAX_STEPS", num, 1); }
  if (o->stack) { snprintf(num, sizeof num, "%llu", (unsigned long long)o->stack); bad |= setenv("WARPVM_STACK", num, 1); }
  if (o->threads) { snprintf(num, sizeof num, "%llu", (unsigned long long)o->threads); bad |= setenv("WARPVM_THREADS", num, 1); }
  snprintf(num, sizeof num, "%u", wv_cli_timeout(o));
  bad |= setenv("WARPVM_TIMEOUT", num, 1);
  if (o->async_delivery) bad |= setenv("WARPVM_ASYNC_DELIVERY", o->async_delivery, 1);
  if (o->memory_model) bad |= setenv("WARPVM_MEMORY_MODEL", o->memory_model, 1);
  if (o->engine) bad |= setenv("WARPVM_ENGINE", o->engine, 1);
  if (o->no_jit_cache) bad |= setenv("WARPVM_JIT_CACHE", "0", 1);
  if (o->schedule) bad |= setenv("WARPVM_SCHEDULE", o->schedule, 1);
  if (o->has_seed) { snprintf(num, sizeof num, "%llu", (unsigned long long)o->seed); bad |= setenv("WARPVM_SEED", num, 1); }
  if (o->checks) bad |= setenv("WARPVM_CHECK", o->checks, 1);
  if (o->no_contract) bad |= setenv("WARPVM_NO_CONTRACT", "1", 1);
  if (o->stats) bad |= setenv("WARPVM_STATS", "1", 1);
  if (o->profile) bad |= setenv("WARPVM_PROFILE", "1", 1);
  if (o->profile_json) bad |= setenv("WARPVM_PROFILE_JSON", o->profile_json, 1);
  if (o->trace) bad |= setenv("WARPVM_TRACE", o->trace, 1);
  if (o->verbose) bad |= setenv("WARPVM_VERBOSE", "1", 1);
  if (bad) {
    fprintf(stderr, "warpvm: cannot set up the environment\n");
    return 1;
  }
  execv(path, argv);
  fprintf(stderr, "warpvm: cannot run %s: %s\n", argv[0], strerror(errno));
  return 126;
}
