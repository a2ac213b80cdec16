/*
 * cu.h — the insides of warpvm's CUDA driver (libcuda.so.1): the driver API's types as NVIDIA's
 * cuda.h defines them (only what is implemented; numbers from CUDA 13.0's cuda.h), the one
 * process-wide driver object and the helpers every API file uses.
 *
 * A CUDA driver is process-global by definition, so this library has exactly one mutable global:
 * the driver object in state.c, reached through cu_lock(). It owns the process's one wv_vm, which
 * warpvm's CUDA runtime (libcudart.so) shares: the runtime asks for it with wvcu_shared_vm(). One
 * device (ordinal 0) with one primary context; contexts created with cuCtxCreate are further
 * handles on the same device state. Work runs when it is enqueued (the vm is synchronous), so
 * streams and events only order what already happened; device printf is flushed at CUDA's flush
 * points, and a kernel fault is sticky as on a GPU.
 */
#ifndef WV_CUDADRV_CU_H
#define WV_CUDADRV_CU_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cudadrv/cuapi_graph.h"
#include "cudadrv/devprops.h"
#include "cudadrv/wvcu_alloc.h"
#include "warpvm.h"

#define CU_EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct { char bytes[16]; } CUuuid;

enum {
  CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1, CUDA_ERROR_OUT_OF_MEMORY = 2, CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4, CUDA_ERROR_PROFILER_DISABLED = 5, CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101, CUDA_ERROR_INVALID_IMAGE = 200, CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209, CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 225, CUDA_ERROR_UNSUPPORTED_LIMIT = 215, CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_INVALID_SOURCE = 300, CUDA_ERROR_FILE_NOT_FOUND = 301, CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500, CUDA_ERROR_NOT_READY = 600, CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701, CUDA_ERROR_LAUNCH_TIMEOUT = 702, CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
  CUDA_ERROR_ASSERT = 710, CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712, CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715, CUDA_ERROR_MISALIGNED_ADDRESS = 716, CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720, CUDA_ERROR_NOT_PERMITTED = 800, CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900, CUDA_ERROR_UNKNOWN = 999,
  CUDA_ERROR_OPERATING_SYSTEM = 304, CUDA_ERROR_ILLEGAL_STATE = 401, CUDA_ERROR_LOSSY_QUERY = 402,
  CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903, CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
  CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
  CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE = 910,
  CUDA_ERROR_INVALID_CLUSTER_SIZE = 912
};

/* The CUDA version this driver reports (cuDriverGetVersion) and was generated from (procs.def). */
#define CU_DRIVER_VERSION 13000


/* ---- driver objects. A context, module, function or link handle is a pointer the driver made, checked
 * against a set of live ones (cu_obj_check). A stream, event, graph, node, executable graph or memory pool
 * or memory pool handle is a token looked up in the handle table (handles.c), as warpvm's runtime, which uses the same
 * objects (a cudaStream_t is a CUstream), needs: a destroyed one stays invalid after its slot is reused. ---- */
typedef enum { CU_K_CTX = 1, CU_K_MODULE, CU_K_FUNC, CU_K_LINK } cu_kind;
typedef enum { CU_H_STREAM = 1, CU_H_EVENT, CU_H_GRAPH, CU_H_EXEC, CU_H_NODE, CU_H_POOL } cu_hkind;
typedef struct cu_slot { void *obj; uint32_t gen; cu_hkind kind; } cu_slot;
typedef struct cu_pool cu_pool;   /* mempool.c */
typedef struct cu_graph cu_graph; /* graph.h */
typedef struct cu_galloc cu_galloc;

typedef struct cu_ctx { unsigned flags; int primary; int destroyed; } cu_ctx;

/* A module: cuModuleLoad*, cuLibraryLoad* (a library is a module; its kernels are its functions). */
typedef struct cu_func cu_func;
typedef struct cu_module {
  struct cu_module *next;  /* the driver's list of loaded modules */
  wv_module *m;
  uint32_t arch;
  int library;             /* cuLibraryLoadData: survives a context reset, reloaded from image */
  const void *image;
  cu_func **funcs; uint32_t nfuncs;   /* made on demand, one per kernel name */
} cu_module;

struct cu_func {
  cu_module *mod;
  const wv_kernel *k;
  const char *name;        /* k's name (the module's, valid while it is loaded) */
  int max_dyn_shared;      /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
  int carveout;
  int cache_config;
  uint32_t cluster[3];     /* CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH (0: not set) */
  int nonportable_cluster; /* CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED */
  int cluster_policy;      /* CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE */
};


typedef struct cu_stream {
  unsigned flags;
  int prio;
  cu_ctx *ctx;
  void *self;                  /* its handle */
  unsigned char attrs[16][64]; /* cuStreamSetAttribute's values by CUstreamAttrID (1 .. 15), zero until set */
  cu_graph *capture;           /* the capture it records into (began or joined), NULL when none */
  void **deps;                 /* while capturing: the nodes (handles) its next work depends on */
  cu_edge *dep_edges;          /* ... their edge data (all default) */
  uint32_t ndeps, capdeps;
} cu_stream;
typedef struct cu_event {
  unsigned flags;
  int recorded;
  struct timespec t;
  void *cap_graph;             /* recorded while capturing: the capture graph's handle, else NULL */
  void **deps;                 /* ... and the recording stream's dependencies then (a stream waiting on it joins) */
  uint32_t ndeps;
} cu_event;

/* An allocation (the process's one table, shared with warpvm's runtime: wvcu.h): device (wv_malloc), pinned host
 * or managed (identity-mapped). */
enum { CU_MEMTYPE_HOST = 1, CU_MEMTYPE_DEVICE = 2, CU_MEMTYPE_UNIFIED = 4 };
typedef wvcu_alloc cu_alloc;

/* printf.c: device printf records waiting for a flush point, oldest first; at most `limit` bytes. */
typedef struct cu_fifo {
  char *buf; size_t head, len, cap;            /* the records' text is buf[head, head + len) */
  uint32_t *rec; uint32_t rhead, nrec, rcap;   /* their lengths, a ring from rhead */
  size_t limit;                                /* CU_LIMIT_PRINTF_FIFO_SIZE */
  uint64_t dropped;                            /* records lost since the last flush */
  int used;                                    /* a kernel printed: the limit is fixed from now on */
} cu_fifo;

typedef struct cu_driver {
  pthread_mutex_t lock;
  wv_vm *vm;
  int initialized;          /* cuInit was called */
  int unloading;
  CUresult sticky;          /* a kernel fault: every later call on the context returns it */
  CUresult pending;         /* fault of the last launch, made sticky at the next synchronising call */
  cu_ctx primary;
  int primary_refs;
  wv_prop_all prop;
  cu_alloc *allocs; uint32_t nallocs, capallocs;  /* sorted by base */
  size_t dev_live;           /* bytes of device memory allocated */
  uint32_t nregistered;      /* hostreg.c: of the allocations, host ranges the program registered */
  cu_module *modules;
  cu_pool *pool_default, *pool_current;  /* mempool.c: made on first use */
  cu_fifo fifo;
  size_t heap_limit, stack_limit, pending_launches, persisting_l2;
  int runtime_version;      /* the runtime's CUDA version, for device code (0: the driver's) */
  int verbose, stats, profile; /* WARPVM_VERBOSE, WARPVM_STATS, WARPVM_PROFILE */
  void *warned;              /* what was already said on stderr */
  struct { void **p; cu_kind *k; uint32_t cap, n; } objs; /* live pointer handles (open addressing) */
  cu_slot *slots; uint32_t nslots, capslots; /* handles.c: token handles */
  uint32_t *free_slots, nfree;
  cu_galloc *gallocs;        /* graph.c: every graph allocation, a list */
  uint64_t graph_used_high, graph_reserved_high; /* graph_mem.c: their high-water marks */
  void *cls;                 /* dark.c: context-local storage entries */
  uint32_t hooks_buf1[1024], hooks_buf2[14]; /* dark.c: the tools runtime hooks' buffers */
} cu_driver;

/* state.c */
cu_driver *cu_lock(void);               /* the driver, locked (created on first use) */
CUresult cu_ret(CUresult e);            /* unlock, return e */
CUresult cu_check(cu_driver *d);        /* CUDA_SUCCESS, or why no call may run: not initialised, sticky fault */
void cu_sync_point(cu_driver *d);       /* flush device printf; a pending fault becomes sticky */
CUresult cu_synchronize(cu_driver *d);  /* a synchronisation: a sync point, pools trimmed, stdout flushed; cu_check */
CUresult cu_from_status(wv_status st);
int cu_first_time(cu_driver *d, const char *what);
const char *cu_caller(void);            /* the runtime function calling the driver on this thread (wvcu_caller), or NULL */
const char *cu_rt_error_name(int e);    /* device.c: the runtime's name of an error (cudaErrorInvalidValue, ...) */
int cu_obj_add(cu_driver *d, void *p, cu_kind k);     /* 0, or -1: no memory */
int cu_obj_check(const cu_driver *d, const void *p, cu_kind k);  /* 1 if p is a live handle of kind k */
void cu_obj_del(cu_driver *d, const void *p);
cu_ctx *cu_current(void);               /* the calling thread's current context (NULL: none) */
void cu_set_current(cu_ctx *c);

/* printf.c */
void cu_printf_record(void *user, const char *text, size_t n);  /* the vm's printf sink (user: the driver) */
void cu_flush_printf(cu_driver *d);
void cu_printf_reset(cu_driver *d);
int cu_printf_limit(cu_driver *d, size_t *get, size_t set);     /* 0, or -1: refused */

/* memory.c */
void cu_reset_memory(cu_driver *d);     /* free every allocation (primary context reset) */
cu_alloc *cu_alloc_find(cu_driver *d, uintptr_t p);   /* the allocation containing p, or NULL */
int cu_alloc_add(cu_driver *d, uintptr_t base, size_t size, int type, int owned, int registered); /* -1: no memory */
void cu_alloc_remove(cu_driver *d, cu_alloc *a);      /* its memory (a graph's stays with the graph) and entry */
CUresult cu_copy(cu_driver *d, uintptr_t dst, uintptr_t src, size_t n);   /* any direction, unified addressing */
CUresult cu_set(cu_driver *d, uintptr_t dst, const void *pattern, unsigned elem, size_t count);
void cu_hostreg_recheck(cu_driver *d);  /* hostreg.c: before a launch, drop registered ranges no longer mapped */

/* mempool.c: stream-ordered allocation from a pool (NULL: the current one), the pool's accounting when one of
 * its allocations is freed, a synchronisation (pools above their threshold release memory), a reset. */
CUresult cu_pool_alloc(cu_driver *d, void *pool, size_t n, CUdeviceptr *dptr);
void cu_pool_freed(cu_driver *d, cu_pool *p, size_t n);
void cu_pools_sync(cu_driver *d);
void cu_pools_reset(cu_driver *d);

/* module.c */
void cu_reset_modules(cu_driver *d);    /* unload every module (primary context reset) */
CUresult cu_launch(cu_driver *d, cu_func *f, wv_dim3 grid, wv_dim3 block, unsigned shared, void **params,
                   void **extra, int coop);

/* device.c: the device runtime's hooks into the vm (attributes, limits, error texts). */
void cu_devrt_init(cu_driver *d);

/* procs.c: the entry point serving (name, CUDA version, flags) — a CU_GET_PROC_ADDRESS_* result. */
enum { CU_GET_PROC_ADDRESS_DEFAULT = 0, CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2 };
enum { CU_GET_PROC_ADDRESS_SUCCESS = 0, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2 };
int cu_proc_lookup(const char *name, int version, unsigned long long flags, void **fn);

/* dark.c */
void cu_cls_destroy(cu_driver *d, void *ctx);   /* run the context-local storage destructors of ctx */

/* module.c: a module from a fatbin wrapper (the runtime's export-table path). */
CUresult cu_module_from_fatbin(const void *wrapper, void **module);

/* link.c: the image cuLinkComplete returns (linked PTX units, see link.c): whether image is one, and
 * loading it as one module (why: the reason it failed). devrt.c: warpvm's cooperative-groups part of
 * the device runtime, the PTX unit a link takes in place of libcudadevrt.a. */
int cu_linked_image(const void *image);
wv_status cu_link_load(wv_vm *vm, const void *image, wv_module **out, char *why, size_t cap);
const char *cu_devrt_ptx(size_t *len);

/* The API's error for a bad argument, said once per (api, problem) with WARPVM_VERBOSE=1. */
CUresult cu_bad(cu_driver *d, const char *api, const char *what, CUresult e);

#endif
