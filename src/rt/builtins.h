/*
 * builtins.h — what the builtins share (builtins.c): a call's arguments and result in the calling
 * frame's .param area, and the device runtime's builtins (devrt.c).
 */
#ifndef WV_BUILTINS_H
#define WV_BUILTINS_H

#include "exec/exec.h"

/* Argument i of the call for lane (0 past the arguments passed); its first n bytes (zero-filled). */
uint64_t wv_barg_u64(wv_exec *x, const wv_callinfo *ci, uint32_t i, int lane);
void wv_barg_bytes(wv_exec *x, const wv_callinfo *ci, uint32_t i, int lane, void *out, uint32_t n);
/* The call's result for lane (nothing if the caller takes none). */
void wv_bret_u64(wv_exec *x, const wv_callinfo *ci, int lane, uint64_t v);

/* The device heap (malloc/free): an allocation (0: none), freeing one (a fault for anything else). */
uint64_t wv_dheap_malloc(struct wv_vm *vm, uint64_t size, uint64_t align);
int wv_dheap_free(wv_exec *x, int lane, uint64_t p);

/* devrt.c: a builtin of CUDA's device runtime (WV_BF_DEVRT) for the lanes in mask. */
int wv_devrt_call(wv_exec *x, const wv_callinfo *ci, uint32_t mask);

#endif
