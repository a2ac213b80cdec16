/*
 * emit.h — emit.c's one entry: a region of a PTX function as an LLVM function (jit.h says what a region is).
 */
#ifndef WV_JIT_EMIT_H
#define WV_JIT_EMIT_H

#include <llvm-c/Core.h>

#include "jit/jit.h"

/* `int name(wv_exec *x, uint32_t mask)`: instructions pc .. pc + len - 1 of f (exec/jit_hook.h); live: f's
 * wv_jit_live table of `words` per instruction (NULL: store every changed register); target: WV_EMIT_* of the
 * target. NULL when out of host memory. */
enum {
  WV_EMIT_KMASK = 1,   /* AVX-512's mask registers for 32 lanes (AVX512BW: a lane mask is one register) */
  WV_EMIT_SCATTER = 2, /* a scatter instruction worth using (AVX-512 but AMD's: Zen 4's is microcoded, slower than
                        * a store per lane) */
};
LLVMValueRef wv_jit_emit_region(LLVMContextRef c, LLVMModuleRef mod, const char *name, const wv_func *f, uint32_t pc,
                                uint32_t len, const uint64_t *live, uint32_t words, int target);

#endif
