/*
 * wvcu.h — what warpvm's CUDA driver (libcuda.so.1) offers warpvm's CUDA runtime (libcudart.so)
 * beyond NVIDIA's driver API, so that the two share one vm per process: the vm itself, device
 * printf (the driver's FIFO, flushed at CUDA's flush points) and the device's properties
 * (devprops.h). Exported with these names only; a program never calls them.
 */
#ifndef WV_CUDADRV_WVCU_H
#define WV_CUDADRV_WVCU_H

#include <stddef.h>
#include <stdint.h>

#include "cudadrv/devprops.h"
#include "cudadrv/wvcu_alloc.h"
#include "warpvm.h"

/* The process's vm, created from the environment (WARPVM_MACHINE, WARPVM_MAX_STEPS, ...) on first
 * use; a bad setting stops the program with a message. Never NULL. */
wv_vm *wvcu_shared_vm(void);
/* Write the device printf records waiting in the FIFO to stdout. */
void wvcu_flush_printf(void);
/* The printf FIFO's size (cudaLimitPrintfFifoSize): *get receives it; set != 0 asks for a new one
 * (clamped as an H100 does), refused (-1) once a kernel has printed. */
int wvcu_printf_limit(size_t *get, size_t set);
/* A new context (cudaDeviceReset, cuDevicePrimaryCtxReset): printf limits back to their defaults. */
void wvcu_printf_reset(void);
/* Driver entry points the runtime calls (cudaLimitDevRuntimePendingLaunchCount is the driver's). */
int cuCtxGetLimit(size_t *v, int limit);
int cuCtxSetLimit(int limit, size_t v);
/* 1 the first time `what` is asked about in the process (for messages said once), else 0. */
int wvcu_first_time(const char *what);
/* The CUDA version of warpvm's runtime in use (12080, 13000): what device-side cudaRuntimeGetVersion answers. */
void wvcu_set_runtime_version(int v);
/* The one fault state (CUDA's sticky error model) of the process: the sticky error (0: none); a kernel fault to
 * become sticky at the next synchronisation (the first one counts); a synchronisation point (device printf
 * flushed, a pending fault made sticky). cuDevicePrimaryCtxReset clears them. */
int wvcu_sticky(void);
void wvcu_pending(int e);
void wvcu_sync_point(void);
int wvcu_synchronize(void); /* a device synchronisation: a sync point, pools trimmed, stdout flushed; the sticky error */
/* A kernel of warpvm's runtime as a CUfunction (graph kernel nodes, captured launches): made in *slot on first
 * use, brought up to date (k, the dynamic shared memory limit) at every call. NULL: out of memory. */
void *wvcu_func(void **slot, const wv_kernel *k, int max_dyn_shared);
/* A launch of f on stream with WV_LAUNCH_* flags (cooperative, a cluster shape): cuLaunchKernel's path, so a
 * capturing stream records a kernel node that keeps the flags. A CUresult. */
int wvcu_launch_flags(void *f, wv_dim3 grid, wv_dim3 block, unsigned shared, void *stream, void **args, uint32_t flags);
/* Before a launch: drop registered host ranges the program unmapped or protected since (said once). */
void wvcu_hostreg_recheck(void);
/* The runtime function about to call the driver on this thread (NULL: none), so that what the driver says on
 * stderr names what the program called. */
void wvcu_caller(const char *api);
/* WARPVM_VERBOSE=1: explain refused calls on stderr. */
int wvcu_verbose(void);

/* The process's one allocation table, the driver's: what the program allocated through either API, sorted by
 * base. Every wvcu_alloc_* call takes the driver's lock; warpvm's runtime holds it for a whole call
 * (wvcu_lock), so an entry it found stays valid until it returns. */
void wvcu_lock(void);
void wvcu_unlock(void);
wvcu_alloc *wvcu_alloc_find(uintptr_t p);       /* the entry containing p, or NULL */
wvcu_alloc *wvcu_alloc_at(uint32_t i);          /* the i-th entry, NULL past the end */
/* 0, or -1: no memory. A device entry counts in wvcu_dev_live until it is removed. */
int wvcu_alloc_add(uintptr_t base, size_t size, int type, int owned, int registered);
void wvcu_alloc_remove(wvcu_alloc *a);          /* its memory (unless a graph keeps it) and its entry */
size_t wvcu_dev_live(void);                     /* bytes of device memory in the table */
void wvcu_reset_memory(void);                   /* remove every entry */

#endif
