/*
 * cudart.h — the insides of warpvm's CUDA runtime (libcudart.so.12/.13): the one process-wide
 * runtime object, registered fatbins/kernels/variables, and the helpers every API file uses. Streams,
 * events, graphs, stream capture, memory pools, the allocation table and the fault state are the
 * driver's (libcuda.so.1, cudadrv/cuapi_graph.h and wvcu.h): the runtime is a layer over them.
 *
 * A CUDA runtime is process-global by definition (nvcc's static constructors register into it before
 * main), so this library has exactly one mutable global: the runtime object in state.c, reached through
 * wv_cr(). It uses the driver's wv_vm, which owns all device state. Every exported function takes the
 * runtime's (recursive) lock, then the driver's, for its whole body.
 */
#ifndef WV_CUDART_H
#define WV_CUDART_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "cudart/abi.h"
#include "cudart/abi_graph.h"
#include "cudadrv/cuapi_graph.h"
#include "cudadrv/wvcu.h"
#include "warpvm.h"

#define WV_EXPORT __attribute__((visibility("default")))

/* One fatbinary that a translation unit (or a device link) registered. */
typedef struct cr_fatbin {
  const void *wrapper;
  wv_module *mods[64];     /* the linked module of all its units (nmods 0 or 1); none: why says why */
  uint32_t nmods;
  uint32_t arch;           /* the PTX entries' target, e.g. 90 */
  char why[512];
  struct cr_fatbin *next;
} cr_fatbin;

/* A kernel: what __cudaRegisterFunction named, bound to its PTX entry. Also the cudaKernel_t. */
struct wv_cr_func {
  const void *host_fn;
  char *name;
  cr_fatbin *fb;
  wv_module *mod;          /* the module that defines it */
  const wv_kernel *k;      /* NULL if the module lacks it */
  int max_dyn_shared;      /* cudaFuncAttributeMaxDynamicSharedMemorySize */
  int carveout;
  void *cuf;               /* the driver's CUfunction for it (wvcu_func), made when a graph or capture needs it */
  uint32_t cluster[3];     /* cudaFuncAttributeRequiredClusterWidth/Height/Depth (0: not set) */
  int nonportable_cluster; /* cudaFuncAttributeNonPortableClusterSizeAllowed */
  int cluster_policy;      /* cudaFuncAttributeClusterSchedulingPolicyPreference */
};
typedef struct wv_cr_func cr_func;

/* A __device__ / __constant__ / __managed__ variable's host shadow, bound to its PTX symbol. */
typedef struct cr_var {
  const void *host_var;
  char *name;
  cr_fatbin *fb;
  size_t size;
  int constant, managed;
  void **managed_slot;     /* managed: nvcc's host pointer to fill with the shared address */
} cr_var;

/* An allocation the program made (device, pinned host or managed): an entry of the process's one allocation
 * table, the driver's (cudadrv/wvcu.h; type is CU_MEMTYPE_*: 1 host, 2 device, 4 managed). */
typedef wvcu_alloc cr_alloc;

typedef struct cudart {
  pthread_mutex_t lock;
  wv_vm *vm;
  int unloading;             /* the program is exiting: calls return cudaErrorCudartUnloading */
  int fatbins_live;
  cr_fatbin *fatbins;
  cr_func **funcs; uint32_t nfuncs, capfuncs;
  cr_var *vars; uint32_t nvars, capvars;
  wv_prop_all prop;
  size_t heap_limit;          /* cudaLimitMallocHeapSize */
  size_t stack_limit;                /* cudaLimitStackSize (0: the default, 1024) */
  unsigned device_flags;
  int verbose;
} cudart;

/* state.c */
/* The runtime, locked; NULL never. api: the runtime function the program called (the outermost one on the
 * thread), which what the driver says on stderr names until the runtime unlocks. */
cudart *wv_cr_enter(const char *api);
#define wv_cr() wv_cr_enter(__func__)
void wv_cr_unlock(void);
cudaError_t wv_cr_ret(cudaError_t e);     /* record e as the thread's last error, unlock, return it */
cudaError_t wv_cr_device_check(cudart *r);/* cudaSuccess, or the sticky (the driver's) or unloading error */
void wv_cr_sync_point(cudart *r);         /* flush device printf; a pending fault becomes sticky (the driver's) */
cudaError_t wv_cr_synchronize(cudart *r); /* cuda*Synchronize: a sync point, stdout flushed, the device's state */

/* printf.c */
void wv_cr_printf_init(cudart *r);
void wv_cr_flush_printf(cudart *r);        /* write the driver's FIFO's records to stdout */
cudaError_t wv_cr_printf_set_limit(cudart *r, size_t bytes);
size_t wv_cr_printf_limit(const cudart *r);
cudaError_t wv_cr_from_status(wv_status st);
void wv_cr_fill_props(cudart *r);
cudaError_t *wv_cr_last_error(void);      /* the calling thread's */
int wv_cr_first_time(cudart *r, const char *what); /* 1 the first time `what` is asked about */
cudaError_t wv_cr_unsupported(cudart *r, const char *what); /* graph_nodes.c: say once; cudaErrorNotSupported */
/* A driver call's result as the runtime's error (CUDA numbers the errors the two share alike). */
static inline cudaError_t wv_cr_from_cu(int e) { return (cudaError_t)e; }
/* The body of a runtime function that is the driver's: the call made under the runtime's lock, its error the
 * runtime's (and the thread's last error). */
#define WV_CR_CU(call)                     \
  do {                                     \
    wv_cr();                               \
    return wv_cr_ret(wv_cr_from_cu(call)); \
  } while (0)
WV_EXPORT const char *cudaGetErrorName(cudaError_t e);
WV_EXPORT const char *cudaGetErrorString(cudaError_t e);

/* register.c */
cr_func *wv_cr_func_find(cudart *r, const void *host_fn); /* NULL if unknown */
cr_var *wv_cr_var_find(cudart *r, const void *host_var);
cudaError_t wv_cr_var_addr(cudart *r, cr_var *v, wv_devptr *addr, size_t *size);
cudaError_t wv_cr_func_kernel(cudart *r, cr_func *f);     /* bind f->k or say why not */
void *wv_cr_func_cu(cr_func *f);                          /* its CUfunction (f bound); NULL: no memory */
cr_func *wv_cr_func_of_cu(cudart *r, const void *cuf);    /* the kernel whose CUfunction cuf is, or NULL */

/* memory.c */
cudaError_t wv_cr_copy(cudart *r, void *dst, const void *src, size_t n, int kind);
cudaError_t wv_cr_set(cudart *r, void *dst, int value, size_t n);
cudaError_t wv_cr_symbol_addr(cudart *r, const void *sym, size_t off, size_t n, void **out, size_t *size);
cudaError_t wv_cr_device_alloc(cudart *r, void **p, size_t n); /* cudaMalloc's: n == 0 gives NULL */

cr_alloc *wv_cr_alloc_find(cudart *r, const void *p); /* the allocation containing p */
void wv_cr_alloc_free(cudart *r, cr_alloc *a);    /* its memory (or the vm's mapping of it) and its entry */

/* register.c (reset) */
void wv_cr_reload_modules(cudart *r);

/* cudaRuntimeGetVersion's answer. */
#define WV_CUDART_VERSION (WV_CUDART_MAJOR >= 13 ? 13000 : 12080)

/* A launch configuration out of the device's limits: CUDA 13 on an H200 answers cudaErrorInvalidValue
 * (tests/programs/errors.cu); CUDA 12 documents cudaErrorInvalidConfiguration. */
#if WV_CUDART_MAJOR >= 13
#define WV_BAD_CONFIG cudaErrorInvalidValue
#else
#define WV_BAD_CONFIG cudaErrorInvalidConfiguration
#endif

/* launch.c */
cudaError_t wv_cr_launch_check(cudart *r, cr_func *f, dim3 grid, dim3 block, size_t shared, int coop);
cudaError_t wv_cr_launch_now(cudart *r, cr_func *f, dim3 grid, dim3 block, uint32_t shared, void **args, int coop);
int wv_cr_occupancy(cudart *r, cr_func *f, int block, size_t dyn_shared);

/* stream.c. Streams and events are the driver's. Whether h (the legacy and per-thread default streams: 0, 1, 2,
 * or a live stream) is capturing: its work then goes to the driver, which makes it graph nodes. */
cudaError_t wv_cr_stream_capturing(cudart *r, cudaStream_t h, int *capturing);
/* cudaMemcpyKind -> the driver's memory types of a copy's source and destination (CU_MEMTYPE_*). */
void wv_cr_kind_types(int kind, int *src, int *dst);

#endif
