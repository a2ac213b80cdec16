/*
 * vm_internal.h — the vm handle's insides, shared by the runtime (vm.c), the executor's launch
 * entry (launch.c, workers.c) and memory (mem.c). Everything a vm owns hangs off struct wv_vm.
 */
#ifndef WV_VM_INTERNAL_H
#define WV_VM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "exec/cdp.h"
#include "exec/mem.h"
#include "exec/sfu.h"
#include "ir/ir.h"
#include "warpvm.h"

struct wv_kernel {
  struct wv_module *mod;
  const wv_func *fn;
};

struct wv_module {
  struct wv_vm *vm;
  wv_irmod ir;
  char *text;                /* the PTX source (for listings; NULL for a module of several units) */
  size_t text_len;
  struct wv_kernel *kernels;
  uint32_t nkernels;
  uint32_t *reach;           /* per function: the builtins' flags it reaches, | WV_REACH_KNOWN (launch.c) */
  struct wv_jit_mod *jit;    /* the JIT engine's code for its functions (engine.c), NULL: none yet */
  struct wv_auto *autos;     /* per function: engine auto's counts (engine.c), NULL: none yet */
  struct wv_module *next;
};

struct wv_amd_machine;
struct wv_gcn_program;

/* Lowered cross-lane programs of an AMD machine, one per (opcode, mode, type). */
typedef struct wv_amd_cache {
  uint16_t op;
  uint8_t mode, type;
  struct wv_gcn_program *prog;
} wv_amd_cache;

/* Diagnostics (diag.c): per kind, how many were seen and the first WV_DIAG_KEEP records. */
#define WV_DIAG_TEXT 400
typedef struct wv_diag_log {
  uint64_t count[WV_DIAG_KINDS];
  char kept[WV_DIAG_KINDS][WV_DIAG_KEEP][WV_DIAG_TEXT];
} wv_diag_log;

struct wv_pool;

struct wv_vm {
  wv_config cfg;
  uint32_t nthreads;                /* workers of a launch: wv_config.threads, or every core */
  struct wv_pool *pool;             /* their threads (exec/workers.c), started by the first launch that uses them */
  pthread_mutex_t lock;             /* what workers change in the vm: SFU tables and AMD programs made on first use */
  wv_diag_log diag;
  wv_heap heap;
  wv_stats stats;
  struct wv_module *modules;
  const struct wv_amd_machine *amd; /* NULL: NVIDIA native */
  int async_mode;                   /* WV_ASYNC_* (exec.h) */
  int weak;                         /* weak memory model */
  uint32_t mm_seed;
  uint32_t async_seed;
  int sched_mode;                   /* WV_SCHED_* (exec.h): how the CTAs of a launch take turns */
  uint32_t sched_seed;
  wv_amd_cache *amd_progs;
  uint32_t n_amd_progs;
  uint64_t dheap_limit;             /* device malloc: bytes live allocations may hold */
  uint64_t dheap_used;              /* device malloc: bytes held (sizes rounded up to 16) */
  uint32_t stack_limit;             /* per-thread stack of recursive calls (cudaLimitStackSize) */
  wv_sfu sfu;                       /* the SFU tables loaded so far (exec/sfu.h, h_sfu.c) */
  void *sfu_mem[WV_SFU_NTAB];
  _Atomic uint32_t sfu_loaded;      /* 1 << WV_SFU_* of the tables loaded (set under lock) */
  wv_devrt devrt;                   /* dynamic parallelism (exec/cdp.h) */
  struct wv_prof *prof_acc;         /* --profile: the running launch's counts (exec/profile.h) */
  struct wv_prof_log *prof_log;     /* --profile: the records of profiled launches (profile_report.c) */
  struct wv_jit *jit;               /* the JIT engine (src/jit), made by the first launch that compiles */
  struct wv_engine_bg *bg;          /* engine auto: the thread beside the running launch (engine.c), NULL: none */
  int engine;                       /* WV_ENGINE_* (engine.c) */
  char err[2048];
};

/* diag.c: counts one occurrence of kind (and its wv_stats counter); returns the buffer (WV_DIAG_TEXT
 * bytes) to write its record into while fewer than WV_DIAG_KEEP are kept, else NULL. */
char *wv_diag_add(struct wv_vm *vm, wv_diag_kind kind);
/* diag.c: counts n more occurrences of kind whose records are not kept. */
void wv_diag_count_more(struct wv_vm *vm, wv_diag_kind kind, uint64_t n);

#define WV_DEVICE_HEAP_DEFAULT (8u << 20) /* CUDA's default cudaLimitMallocHeapSize */
#define WV_STACK_DEFAULT 1024u            /* CUDA's default cudaLimitStackSize */

wv_status wv_seterr(wv_vm *vm, wv_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* launch.c: run one launch to completion, with the grids it launches (dynamic parallelism). flags:
 * WV_LAUNCH_* (warpvm.h). wv_exec_grid runs one grid of nesting depth `depth` (0: the host's) and leaves
 * the grids it launched pending (exec/cdp.h). */
wv_status wv_exec_launch(wv_vm *vm, struct wv_module *mod, const wv_func *kfn, const uint32_t grid[3],
                         const uint32_t block[3], uint32_t dyn_shared, const uint8_t *kparams,
                         uint32_t kparam_size, uint32_t flags);
wv_status wv_exec_grid(wv_vm *vm, struct wv_module *mod, const wv_func *kfn, const uint32_t grid[3],
                       const uint32_t block[3], uint32_t dyn_shared, const uint8_t *kparams, uint32_t kparam_size,
                       uint32_t flags, uint32_t depth);
/* launch.c: the first unsupported instruction kernel f reaches through calls (its message), or NULL. */
const char *wv_exec_unsupported(const wv_irmod *m, const wv_func *f);
/* workers.c: stop and free the vm's worker threads. */
void wv_pool_free(struct wv_pool *p);
#define WV_MAX_THREADS 1024u /* wv_config.threads at most */
/* launch.c: the most CTAs a cooperative launch may keep resident for this shape (0: invalid shape). */
uint32_t wv_exec_coop_limit(const wv_func *kfn, const uint32_t block[3], uint32_t dyn_shared);

/* decode.c: AST → IR. The units are linked into one module: a unit's .extern variables and
 * functions mean another unit's .visible/.weak definitions, other names stay the unit's own. `name`
 * (NULL: the first unit's file name) names the module in messages. Returns 0, or -1 with
 * "FILE:LINE:COL: error: ..." in err (FILE: the unit's name). The units must outlive *out. */
struct ptx_module;
int wv_decode_module(const struct ptx_module *const *units, uint32_t nunits, const char *name, wv_vm *vm,
                     wv_irmod *out, char *err, size_t errlen);
void wv_irmod_free(wv_vm *vm, wv_irmod *m);

#define WV_MAX_SHARED (227u * 1024u) /* per-block opt-in limit of sm_90 */

/* amd.c: machine selection and running a warp collective through its lowered AMD code. */
int wv_amd_select(wv_vm *vm, const char *machine, uint32_t warps_per_wave);
void wv_amd_fini(wv_vm *vm);

/* engine.c: which engine runs plain instructions (wv_config.engine). */
enum { WV_ENGINE_AUTO = 0, WV_ENGINE_INTERP, WV_ENGINE_JIT };
int wv_engine_parse(const char *name); /* -1: unknown */
/* The compiled code a launch of kfn with `threads` threads in all runs with (sched.h wv_launch_desc.jit), NULL:
 * interpret. Compiles kfn and the functions it calls at the first launch that uses them (engine jit), or has a
 * thread compile them while the launch runs (auto: *late = 1, the table's entries may appear meanwhile; the launch
 * ends with wv_engine_end). */
struct wv_jit_code;
const struct wv_jit_code *const *wv_engine_prepare(wv_vm *vm, struct wv_module *mod, const wv_func *kfn,
                                                   uint64_t threads, int *late);
/* The end of a launch of kfn that took `seconds` (interpreted: it ran without compiled code): stops the thread
 * wv_engine_prepare started beside it, or waits for its compilation. */
void wv_engine_end(wv_vm *vm, struct wv_module *mod, const wv_func *kfn, double seconds, int interpreted);
void wv_engine_forget(wv_vm *vm, struct wv_module *mod);
void wv_engine_fini(wv_vm *vm);

#endif
