/*
 * llvm_load.c — opens libLLVM the first time the JIT needs it (wv_llvm_load) and finds each function of
 * llvm_api.def, for the entries of llvm_api.S. warpvm starts without it: linked, the library cost every
 * process about 17 ms of page faults at start (its relocations), the JIT used or not.
 */
#ifdef WV_LLVM_LAZY
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "jit/jit.h"

#define X(f) X_(f)
#define X_(f) __attribute__((visibility("hidden"))) void *wv_llvm_p_##f;
#include "jit/llvm_api.def"
#undef X_

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[512]; /* empty: loaded */

/* The library built against, or $WARPVM_LLVM (README "Engines"): another build of the same LLVM release. */
static void load(void) {
  const char *so = getenv("WARPVM_LLVM");
  if (!so || !*so) so = WV_LLVM_SO;
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(why, sizeof why, "cannot load LLVM (%s): %s", so, e ? e : "unknown error");
    return;
  }
#define X_(f)                                                                                                   \
  if (!(wv_llvm_p_##f = dlsym(h, #f))) {                                                                        \
    snprintf(why, sizeof why, "cannot load LLVM: %s has no %s", so, #f);                                        \
    return;                                                                                                     \
  }
#include "jit/llvm_api.def"
#undef X_
}

int wv_llvm_load(char *err, size_t errlen) {
  pthread_once(&once, load);
  if (!why[0]) return 0;
  if (err && errlen) snprintf(err, errlen, "%s", why);
  return -1;
}
#else
#include <stdio.h>

#include "jit/jit.h"

int wv_llvm_load(char *err, size_t errlen) { /* (linked, or not there at all) */
#ifdef WV_HAVE_LLVM
  (void)err, (void)errlen;
  return 0;
#else
  if (err && errlen) snprintf(err, errlen, "warpvm was built without LLVM");
  return -1;
#endif
}
#endif
