/*
 * llvm_api.S — the entries of LLVM's C API functions that warpvm calls (llvm_api.def), as warpvm's own symbols:
 * each jumps through the pointer llvm_load.c sets when it opens libLLVM (wv_llvm_load), so that no warpvm
 * process links the library. Hidden: a library that holds warpvm (libcudart.so) does not export them. Used only
 * after wv_llvm_load succeeded (jit.c calls nothing of LLVM before it).
 */
#if defined(__x86_64__)
#define X(f) X_(f)
#define X_(f) .globl f; .hidden f; .type f, @function; .p2align 4; f: jmp *wv_llvm_p_##f(%rip); .size f, .-f
#elif defined(__aarch64__)
#define X(f) X_(f)
#define X_(f) .globl f; .hidden f; .type f, %function; .p2align 2; f: adrp x16, wv_llvm_p_##f; \
  ldr x16, [x16, :lo12:wv_llvm_p_##f]; br x16; .size f, .-f
#else
#error "llvm_api.S: no entries for this architecture (CMakeLists.txt links libLLVM itself there)"
#endif
        .text
#include "llvm_api.def"
#if defined(__x86_64__)
        .section .note.GNU-stack,"",@progbits
#else
        .section .note.GNU-stack,"",%progbits
#endif
