/*
 * cudart.h — the insides of warpvm's CUDA runtime (libcudart.so.12/.13): the one process-wide
 * runtime object, registered fatbins/kernels/variables, streams, events, graphs and the work
 * items ("ops") they carry, and the helpers every API file uses.
 *
 * A CUDA runtime is process-global by definition (nvcc's static constructors register into it
 * before main), so this library has exactly one mutable global: the runtime object in state.c,
 * reached through wv_cr(). It owns one wv_vm, which owns all device state. Every exported
 * function takes the runtime's (recursive) lock for its whole body.
 */
#ifndef WV_CUDART_H
#define WV_CUDART_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "cudart/abi.h"
#include "cudart/abi_graph.h"
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

/* One unit of stream work, and the work of a graph node (graph.h). */
typedef enum {
  OP_KERNEL, OP_MEMCPY, OP_MEMCPY3D, OP_MEMSET, OP_HOST, OP_EVENT_RECORD, OP_EVENT_WAIT, /* stream work */
  OP_EMPTY, OP_GRAPH, OP_MEM_ALLOC, OP_MEM_FREE, OP_COND                                 /* graph nodes only */
} cr_op_kind;
typedef struct cr_graph cr_graph;   /* graph.h */
typedef struct cr_galloc cr_galloc; /* graph.h: an allocation a graph's alloc node owns */
typedef struct cr_cond cr_cond;     /* graph.h: a conditional handle */
typedef struct cr_pool cr_pool;     /* mempool.c */
typedef struct cr_op {
  cr_op_kind kind;
  union {
    struct { cr_func *f; dim3 grid, block; uint32_t shared; int coop; uint8_t *blob; void **args; uint32_t nargs; } k;
    struct { void *dst; const void *src; size_t n; int kind; } cp;
    struct cudaMemcpy3DParms cp3;   /* linear memory only */
    struct { void *dst; size_t pitch; unsigned value, esize; size_t width, height; } set; /* width in elements */
    struct { cudaHostFn_t fn; void *user; } host;
    struct { cudaEvent_t ev; } ev;  /* the handle: looked up when the op runs */
    struct { cr_graph *g; } child;  /* the embedded graph, owned by the node */
    struct { cr_galloc *a; } alloc;
    struct { void *dptr; } free;
    struct { cr_cond *c; int type; unsigned size; cr_graph **body; cudaGraph_t *hbody; } cond; /* bodies: owned */
  } u;
} cr_op;

/* The objects behind the handles the program holds (handles.c maps one to the other). */
typedef enum { WV_H_STREAM = 1, WV_H_EVENT, WV_H_GRAPH, WV_H_EXEC, WV_H_NODE, WV_H_POOL } cr_hkind;
typedef struct cr_slot { void *obj; uint32_t gen; cr_hkind kind; } cr_slot;
typedef struct cr_stream cr_stream;
struct cr_stream {
  unsigned flags;
  int prio;
  void *self;               /* its handle */
  cr_graph *capture;        /* the capture it records into (began or joined), NULL when none */
  cudaGraphNode_t *deps;    /* while capturing: the nodes its next work depends on */
  cudaGraphEdgeData *dep_edges; /* ... their edge data (all default), for cudaStreamGetCaptureInfo */
  uint32_t ndeps, capdeps;
  unsigned char attrs[16][64];  /* cudaStreamSetAttribute's values by cudaStreamAttrID (1 .. 15), zero until set */
};
typedef struct cr_event {
  unsigned flags;
  int recorded;
  struct timespec t;
  void *cap_graph;          /* recorded while capturing: the capture graph's handle, else NULL */
  cudaGraphNode_t *deps;    /* ... and the recording stream's dependencies then (a stream waiting on it joins) */
  uint32_t ndeps;
} cr_event;

/* An allocation the program made through the runtime (device, pinned host or managed). */
typedef struct cr_alloc {
  uintptr_t base;
  size_t size;
  int type;                 /* enum cudaMemoryType */
  int owned;                /* host memory the runtime allocated (pinned/managed), freed with it */
  cr_pool *pool;            /* a stream-ordered allocation: its memory pool */
  cr_galloc *galloc;        /* a graph allocation: the alloc node's memory, which the graph keeps */
} cr_alloc;

typedef struct cudart {
  pthread_mutex_t lock;
  wv_vm *vm;
  int unloading;             /* the program is exiting: calls return cudaErrorCudartUnloading */
  int fatbins_live;
  cudaError_t sticky;        /* a kernel fault: every later device call returns it */
  cudaError_t pending;       /* fault of the last launch, made sticky at the next synchronising call */
  cr_fatbin *fatbins;
  cr_func **funcs; uint32_t nfuncs, capfuncs;
  cr_var *vars; uint32_t nvars, capvars;
  cr_alloc *allocs; uint32_t nallocs, capallocs;  /* sorted by base */
  uint32_t nregistered;       /* of them, ranges the program registered (cudaHostRegister) */
  size_t dev_live;            /* bytes of device memory allocated */
  wv_prop_all prop;
  size_t heap_limit;          /* cudaLimitMallocHeapSize */
  size_t stack_limit;                /* cudaLimitStackSize (0: the default, 1024) */
  unsigned device_flags;
  int verbose;
  cr_slot *slots; uint32_t nslots, capslots;  /* handles.c */
  uint32_t *free_slots, nfree;
  cr_pool *pool_default, *pool_current; /* mempool.c: the device's default and current memory pool */
  cr_galloc *gallocs;         /* graph.c: every graph allocation, a list */
} cudart;

/* state.c */
cudart *wv_cr(void);                      /* the runtime, locked; NULL never */
void wv_cr_unlock(void);
cudaError_t wv_cr_ret(cudaError_t e);     /* record e as the thread's last error, unlock, return it */
cudaError_t wv_cr_device_check(cudart *r);/* cudaSuccess, or the sticky/unloading error */
void wv_cr_sync_point(cudart *r);         /* flush device printf; a pending fault becomes sticky */
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
WV_EXPORT const char *cudaGetErrorName(cudaError_t e);
WV_EXPORT const char *cudaGetErrorString(cudaError_t e);

/* handles.c: handle <-> object. wv_cr_handle_obj is NULL for anything but a live handle of `kind`. */
void *wv_cr_handle_new(cudart *r, cr_hkind kind, void *obj);   /* NULL: out of memory */
void *wv_cr_handle_obj(const cudart *r, cr_hkind kind, const void *h);
void wv_cr_handle_drop(cudart *r, const void *h);
void *wv_cr_handle_next(const cudart *r, cr_hkind kind, uint32_t *i, void **h); /* iterate from *i = 0 */
/* Say (once per api) that h is not a live handle of kind; returns e. */
cudaError_t wv_cr_bad_handle(cudart *r, const char *api, cr_hkind kind, const void *h, cudaError_t e);

/* register.c */
cr_func *wv_cr_func_find(cudart *r, const void *host_fn); /* NULL if unknown */
cr_var *wv_cr_var_find(cudart *r, const void *host_var);
cudaError_t wv_cr_var_addr(cudart *r, cr_var *v, wv_devptr *addr, size_t *size);
cudaError_t wv_cr_func_kernel(cudart *r, cr_func *f);     /* bind f->k or say why not */

/* memory.c */
cudaError_t wv_cr_copy(cudart *r, void *dst, const void *src, size_t n, int kind);
cudaError_t wv_cr_set(cudart *r, void *dst, int value, size_t n);
cudaError_t wv_cr_copy3d(cudart *r, const struct cudaMemcpy3DParms *p); /* linear memory: rows of rows */
cudaError_t wv_cr_set2d(cudart *r, void *dst, size_t pitch, unsigned value, unsigned esize, size_t width,
                        size_t height);   /* elements of 1, 2 or 4 bytes */
cudaError_t wv_cr_symbol_addr(cudart *r, const void *sym, size_t off, size_t n, void **out, size_t *size);
cudaError_t wv_cr_device_alloc(cudart *r, void **p, size_t n); /* cudaMalloc's: n == 0 gives NULL */

void wv_cr_reset_memory(cudart *r);        /* cudaDeviceReset: free every allocation */
cr_alloc *wv_cr_alloc_find(cudart *r, const void *p); /* the allocation containing p */
int wv_cr_alloc_add(cudart *r, uintptr_t base, size_t size, int type, int owned); /* 0, or -1: no memory */
void wv_cr_alloc_release(cudart *r, cr_alloc *a); /* its memory (or the vm's mapping of it) */
void wv_cr_alloc_remove(cudart *r, cr_alloc *a);  /* its table entry */

/* mempool.c: stream-ordered allocation outside captures. pool NULL: the device's current pool. */
cudaError_t wv_cr_pool_alloc(cudart *r, cr_pool *pool, size_t n, void **p);
void wv_cr_pool_freed(cudart *r, cr_pool *pool, size_t n); /* an allocation of the pool was freed */
void wv_cr_pools_sync(cudart *r);          /* a synchronisation: pools above their threshold release memory */
void wv_cr_pools_reset(cudart *r);         /* cudaDeviceReset (after every allocation was freed) */

/* hostreg.c: before a launch, drop registered host ranges the program unmapped or protected since. */
void wv_cr_hostreg_recheck(cudart *r);

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

/* stream.c. The legacy and per-thread default streams (0, 1, 2) are *out = NULL; any other handle
 * must be a live stream, else cudaErrorInvalidResourceHandle (said once per api). */
#define WV_LEGACY_STREAM(s) ((uintptr_t)(s) <= 2)
cudaError_t wv_cr_stream_get(cudart *r, cudaStream_t h, const char *api, cr_stream **out);
cudaError_t wv_cr_submit(cudart *r, cr_stream *s, const cr_op *op); /* run op now, or capture it */
cudaError_t wv_cr_run_op(cudart *r, const cr_op *op); /* stream work (not the graph-only kinds) */
cudaError_t wv_cr_event_get(cudart *r, cudaEvent_t h, const char *api, cr_event **out);
void wv_cr_streams_reset(cudart *r);       /* cudaDeviceReset: destroy every stream and event */

/* capture.c: stream capture. s captures (s->capture) in all of these. */
cudaError_t wv_cr_capture_op(cudart *r, cr_stream *s, const cr_op *op); /* a node (own copy), after s's deps */
cudaError_t wv_cr_capture_record(cudart *r, cr_stream *s, cr_event *e); /* e remembers s's dependencies */
cudaError_t wv_cr_capture_wait(cudart *r, cr_stream *s, cr_event *e);   /* s depends on them too */
cudaError_t wv_cr_capture_alloc(cudart *r, cr_stream *s, size_t n, void **p); /* cudaMallocAsync: alloc node */
cudaError_t wv_cr_capture_free(cudart *r, cr_stream *s, void *p);             /* cudaFreeAsync: free node */
void wv_cr_capture_leave(cudart *r, cr_stream *s);  /* a destroyed stream leaves (or ends) its capture */

/* graph.c */
void wv_cr_galloc_dead(cudart *r, cr_galloc *a);    /* a graph allocation was freed (its lifetime ended) */
void wv_cr_graphs_reset(cudart *r);        /* cudaDeviceReset: destroy every graph and executable graph */

#endif
