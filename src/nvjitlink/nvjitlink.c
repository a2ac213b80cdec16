/*
 * nvjitlink.c — lib/libnvJitLink.so.13, a stand-in for NVIDIA's JIT linker that declines. nvJitLink
 * links PTX and LTO-IR into a cubin, machine code that warpvm cannot run; with this library loaded
 * in its place, the programs that can do without it hand the driver PTX instead:
 *
 *  - It has no nvJitLinkVersion. cuda-python (cuda.bindings / cuda.core) and numba-cuda take an
 *    nvJitLink without it for one too old to use, and link through the driver's cuLinkCreate /
 *    cuLinkAddData / cuLinkComplete with PTX, which warpvm's driver runs (src/cudadrv/link.c).
 *  - `warpvm ./app` preloads it, so a lookup by soname (cuda.pathfinder first asks whether
 *    libnvJitLink.so.13 is already loaded) finds it before a wheel's or the toolkit's copy.
 *  - A C program that calls it gets NVJITLINK_ERROR_INTERNAL from nvJitLinkCreate, and a line on
 *    stderr saying why, rather than a cubin the driver would refuse later.
 *
 * Every entry point exists under both of NVIDIA's names (nvJitLinkX and __nvJitLinkX_13_0, which
 * nvJitLink.h's macros call). No state: nothing is ever created.
 */
#include <stddef.h>
#include <stdio.h>

#define NV_EXPORT __attribute__((visibility("default")))
enum { NVJITLINK_ERROR_INTERNAL = 6 };
typedef int nvJitLinkResult;
typedef struct nvJitLink *nvJitLinkHandle;

static nvJitLinkResult create(nvJitLinkHandle *handle) {
  if (handle) *handle = NULL;
  fprintf(stderr, "warpvm: nvJitLink is not available under warpvm: it makes machine code (a cubin), which warpvm "
                  "cannot run; link PTX with the driver instead (cuLinkCreate/cuLinkAddData/cuLinkComplete, "
                  "cuModuleLoadData)\n");
  return NVJITLINK_ERROR_INTERNAL;
}

/* Each entry point under its two names; all but create decline silently (no handle exists), so
 * they ignore their arguments and are defined without them, as src/cudadrv/stubs.c does. */
#define DECLINE(name) \
  NV_EXPORT nvJitLinkResult name(void) { return NVJITLINK_ERROR_INTERNAL; } \
  NV_EXPORT nvJitLinkResult __##name##_13_0(void) { return NVJITLINK_ERROR_INTERNAL; }

NV_EXPORT nvJitLinkResult nvJitLinkCreate(nvJitLinkHandle *h, unsigned n, const char **opts) {
  (void)n, (void)opts;
  return create(h);
}
NV_EXPORT nvJitLinkResult __nvJitLinkCreate_13_0(nvJitLinkHandle *h, unsigned n, const char **opts) {
  (void)n, (void)opts;
  return create(h);
}
DECLINE(nvJitLinkDestroy)
DECLINE(nvJitLinkAddData)
DECLINE(nvJitLinkAddFile)
DECLINE(nvJitLinkComplete)
DECLINE(nvJitLinkGetLinkedCubinSize)
DECLINE(nvJitLinkGetLinkedCubin)
DECLINE(nvJitLinkGetLinkedPtxSize)
DECLINE(nvJitLinkGetLinkedPtx)
DECLINE(nvJitLinkGetLinkedLTOIRSize)
DECLINE(nvJitLinkGetLinkedLTOIR)
DECLINE(nvJitLinkGetErrorLogSize)
DECLINE(nvJitLinkGetErrorLog)
DECLINE(nvJitLinkGetInfoLogSize)
DECLINE(nvJitLinkGetInfoLog)
