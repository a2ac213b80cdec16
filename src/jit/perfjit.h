/*
 * perfjit.h — Linux perf's view of the JIT's code under WARPVM_JIT_PERFMAP=1 (perfjit.c): the perf map and the
 * jitdump. Used by jit.c only.
 */
#ifndef WV_PERFJIT_H
#define WV_PERFJIT_H

#include <stdint.h>

#include "exec/jit_hook.h"
#include "ir/ir.h"

#if WV_HAVE_LLVM
#include <llvm-c/Core.h>

typedef struct wv_perfjit {
  int state;    /* the jitdump: 0 not opened yet, 1 open (fd), -1 failed */
  int fd;
  void *mark;   /* its first page mapped executable: perf's record of the mapping names the file */
  uint64_t index;
} wv_perfjit;

typedef struct wv_perfjit_sym {
  char *name;
  uint64_t size;
} wv_perfjit_sym;

int wv_perfjit_on(void); /* WARPVM_JIT_PERFMAP=1 */
/* The regions' symbols of an object file not linked yet (appended to *syms); -1: it does not parse. */
int wv_perfjit_symbols(LLVMMemoryBufferRef obj, wv_perfjit_sym **syms, uint32_t *nsyms);
/* Once linked: a jitdump record of each (address(arg, name): where the JIT put it, 0: nowhere), named
 * "FUNCTION:PTXLINE" from f. */
void wv_perfjit_load(wv_perfjit *p, const wv_func *f, const wv_perfjit_sym *syms, uint32_t nsyms,
                     uint64_t (*address)(void *, const char *), void *arg);
void wv_perfjit_free_syms(wv_perfjit_sym *syms, uint32_t nsyms);
void wv_perfjit_close(wv_perfjit *p);
/* The perf map's lines of f's regions (len, entry: jit_hook.h's). */
void wv_perfjit_map(const wv_func *f, const uint16_t *len, const wv_jit_entry *entry);
#endif

#endif
