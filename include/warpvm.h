/*
 * warpvm.h — the public C API of warpvm, a SIMT virtual GPU that runs PTX on the CPU with
 * NVIDIA's warp semantics.
 *
 * Everything hangs off a `wv_vm` handle: modules, device memory, statistics and the last error
 * message. There is no global state, so any number of vms may live in one process (one thread
 * per vm at a time; a vm runs a launch on worker threads of its own, wv_config.threads). Every call that can fail returns a wv_status; wv_last_error() then says why
 * in one line (for PTX errors "FILE:LINE:COL: error: ...", for device faults a report naming
 * kernel, block, thread, PTX line and address).
 */
#ifndef WARPVM_H
#define WARPVM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WARPVM_VERSION "0.1.0"

typedef struct wv_vm wv_vm;
typedef struct wv_module wv_module;
typedef struct wv_kernel wv_kernel;
typedef uint64_t wv_devptr; /* a device (global) address */

typedef enum wv_status {
  WV_OK = 0,
  WV_ERR_INVALID = 1,     /* bad argument to an API call */
  WV_ERR_PARSE = 2,       /* malformed PTX */
  WV_ERR_UNSUPPORTED = 3, /* valid PTX that warpvm does not run (message names instruction and line) */
  WV_ERR_NOT_FOUND = 4,   /* no such kernel / symbol */
  WV_ERR_NOMEM = 5,       /* host or device memory exhausted */
  WV_ERR_IO = 6,          /* file could not be read */
  WV_ERR_FAULT = 7,       /* device fault: out of bounds, misaligned, illegal address */
  WV_ERR_TRAP = 8,        /* trap / brkpt executed */
  WV_ERR_DEADLOCK = 9,    /* barrier or collective that can never complete */
  WV_ERR_WATCHDOG = 10,   /* max_steps exceeded */
  WV_ERR_LAUNCH = 11,     /* bad launch configuration (block too big, too much shared memory) */
  WV_ERR_ASSERT = 12,     /* device-side assert() failed (CUDA's line is printed on stderr) */
  WV_ERR_MISALIGNED = 13, /* device fault: misaligned address (WV_ERR_FAULT: any other bad access) */
  WV_ERR_ILLEGAL_INSN = 14, /* device fault a GPU reports as an illegal instruction (a .shared address past its window) */
  WV_ERR_CLUSTER = 15,    /* a launch's cluster shape is invalid (cudaErrorInvalidClusterSize) */
} wv_status;

typedef struct wv_dim3 {
  uint32_t x, y, z;
} wv_dim3;

/* Where device printf output goes: called once per printf with the formatted text. */
typedef void (*wv_output_fn)(void *user, const char *text, size_t len);

typedef struct wv_config {
  uint64_t max_steps;        /* watchdog: warp instructions per launch, 0 = unlimited */
  uint32_t timeout_seconds;  /* wall-clock watchdog per launch, 0 = none (the CLI's default: 60) */
  wv_output_fn printf_out;   /* NULL = write to stdout */
  void *printf_user;
  /* The machine that runs the kernels: NULL or "sm_90" = NVIDIA's native warp semantics;
   * "gfx90a" (CDNA2, wave64), "gfx1100" (RDNA3, wave32), "gfx1100w64" (RDNA3, wave64): every
   * cross-lane instruction is lowered to that machine's code (ds_bpermute_b32 ...) and run on it. */
  const char *machine;
  uint32_t warps_per_wave;   /* wave64 machines: 1 (upper half idle, default) or 2 (a warp per half) */
  /* When cp.async data lands in shared memory: NULL or "at-wait" (at the matching wait_group /
   * wait_all / mbarrier wait: the latest a correct program allows), "eager" (at issue), or
   * "random:SEED" (a random point in between). A program whose output depends on it has a race. */
  const char *async_delivery;
  /* NULL or "sc": every store is visible to every thread at once. "weak": a global store may become
   * visible to other threads later, and two stores of one thread in either order, unless a fence,
   * release/acquire, an atomic or a CTA barrier orders them as the PTX memory model says. */
  const char *memory_model;
  uint32_t seed;             /* the weak model's choices (0 = 1); one seed, one outcome */
  /* How the CTAs of a launch run: NULL or "serial" (one after another, in grid order, each to its
   * end: a legal schedule of any correct program), "interleave" (as many CTAs resident as the
   * modelled GPU holds, taking turns round robin, a time slice of every warp each), or "random:SEED"
   * (resident CTAs in a random order with random slice lengths, reproducibly for a seed). A program
   * whose output changes with the schedule depends on CTAs running at the same time. Cooperative
   * launches always keep every CTA resident (in random order under "random:SEED"). */
  const char *schedule;
  /* Bytes kernels may hold through device malloc/new at once (CUDA's cudaLimitMallocHeapSize);
   * 0 = 8 MiB, CUDA's default. */
  size_t device_heap_bytes;
  /* Stack bytes per thread for recursive calls (CUDA's cudaLimitStackSize); 0 = 1024, CUDA's default.
   * As on the GPU, only a kernel whose calls recurse is bounded by it (ptxas sizes any other call
   * chain's stack itself): a call that would need more faults with "stack overflow". */
  uint32_t stack_bytes;
  /* Checks that stop a program at a bug a GPU lets pass (WV_CHECK_*; 0 = run it as the GPU does and
   * only count what was seen, see wv_diag_count). wv_checks_parse reads "memcheck,synccheck". */
  uint32_t checks;
  /* 0 (default): fuse a mul.f32/.f64 and an add/sub without rounding modifiers into one fma, rounded once,
   * wherever ptxas does (docs/CONTRACTION.md), as the GPU runs them; nonzero: run every PTX instruction
   * as written, each rounded (ptxas --fmad=false). */
  int no_contract;
  /* Threads that run a launch's CTAs: 0 = one per online core (the others join a launch once it has run
   * 100 microseconds: a short launch is not worth waking them), N = N from the launch's start, 1 = the
   * calling thread alone; at most 1024. The CTAs of a normal launch under the serial schedule run on that many threads, the results
   * of a race-free program being the same as on one (printf output, diagnostics and the fault
   * reported come out as one thread running the CTAs in grid order gives them); cooperative launches,
   * the interleave and random schedules, the weak memory model, random cp.async delivery and kernels
   * that call device malloc/free run on the calling thread. The printf callback may be called from any
   * of the threads, never from two at once. */
  uint32_t threads;
  /* WV_PROFILE_* bits (0: off, nothing counted): per launch and per PTX line, the counters of
   * `warpvm --profile` (README "Profiling"), read back with wv_profile_*. */
  uint32_t profile;
  /* How plain instructions run (README "Engines"): NULL or "auto" (compiled where warpvm has LLVM and the
   * launch is large enough, else interpreted), "interp" (the interpreter alone), "jit" (straight-line
   * code compiled through LLVM; wv_create fails without LLVM). Profiling always interprets. */
  const char *engine;
  /* nonzero: the JIT keeps no compiled code on disk ($XDG_CACHE_HOME/warpvm/jit or ~/.cache/warpvm/jit, at most
   * 256 MiB, the least recently used going first); WARPVM_JIT_CACHE=0 says the same. */
  int no_jit_cache;
} wv_config;

#define WV_PROFILE_ON 1u    /* count every launch: instructions per class, divergence, memory requests, */
                            /* shared-memory wavefronts and bank conflicts, global sectors, barrier waits */
#define WV_PROFILE_TRACE 2u /* also keep a timeline (CTAs, barrier waits, cp.async groups) for wv_profile_write_trace */

#define WV_CHECK_MEMCHECK 1u  /* the first invalid read (wv_diag_kind WV_DIAG_INVALID_READ) is a device fault */
#define WV_CHECK_SYNCCHECK 2u /* undefined use of a warp collective is a device fault */

/* Counters of the last launches since wv_stats_reset (or creation). */
typedef struct wv_stats {
  uint64_t launches;
  uint64_t warp_instructions;   /* instructions issued, counted once per warp (or warp fragment) */
  uint64_t thread_instructions; /* sum over issued instructions of the active lanes */
  uint64_t divergent_branches;  /* branches whose active lanes went both ways */
  uint64_t reconvergences;      /* convergence points where split paths merged again */
  uint64_t forced_yields;       /* lanes that left a reconvergence point without the others (ITS
                                   forward progress: their warp ran 2^18 instructions meanwhile) */
  uint64_t barriers;            /* CTA barrier completions */
  uint64_t collectives;         /* shfl/vote/match/redux/bar.warp.sync executions */
  uint64_t collective_undefined;/* collectives with undefined-on-hardware inputs (see docs) */
  uint64_t global_loads, global_stores, shared_loads, shared_stores, local_loads, local_stores;
  uint64_t atomics;
  uint64_t async_copies;        /* cp.async operations issued */
  uint64_t async_early_reads;   /* shared loads of bytes a cp.async had not delivered yet (a bug) */
  uint64_t invalid_reads;       /* loads outside every allocation that a GPU lets pass (WV_DIAG_INVALID_READ) */
  uint64_t ctas;                /* CTAs run */
  double kernel_seconds;        /* wall time inside launches */
  double jit_seconds;           /* the JIT engine: time spent compiling */
  uint64_t jit_functions;       /* ... functions compiled, */
  uint64_t jit_regions;         /* ... regions of straight-line code given compiled code, */
  uint64_t jit_instructions;    /* ... and the PTX instructions in them */
  uint64_t jit_cached;          /* ... functions whose compiled code came from the disk cache (no compiling) */
} wv_stats;

/* Profiles of the launches since wv_profile_reset (wv_config.profile; README "Profiling"). */
size_t wv_profile_count(const wv_vm *vm);
/* Kernel name of profiled launch i (NULL if none). */
const char *wv_profile_kernel(const wv_vm *vm, size_t i);
/* Metric `name` of profiled launch i, by warpvm's name or by Nsight Compute's where the definition
 * matches ("smsp__thread_inst_executed.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
 * ...): 0 and *out, or -1 for an unknown name or launch. */
int wv_profile_value(const wv_vm *vm, size_t i, const char *name, double *out);
/* The readable report of every profiled launch (totals with ncu's names, top lines, hints). */
void wv_profile_report(const wv_vm *vm, FILE *out);
/* The same as JSON: a list of launches, each with its metrics keyed by ncu's names where they match. */
void wv_profile_write_json(const wv_vm *vm, FILE *out);
/* The timeline (WV_PROFILE_TRACE) as Chrome/Perfetto trace-event JSON. */
void wv_profile_write_trace(const wv_vm *vm, FILE *out);
void wv_profile_reset(wv_vm *vm);
/* What `--profile`, `--profile-json FILE` and `--trace FILE` write: the report to `report` (NULL: none),
 * the JSON and the trace to their files (NULL: none). WV_ERR_IO if a file cannot be written. */
wv_status wv_profile_write(const wv_vm *vm, FILE *report, const char *json_path, const char *trace_path);

/* A kernel parameter as the PTX declares it. */
typedef struct wv_param_info {
  const char *name;
  const char *type;  /* "u64", "b32", "b8" (for byte arrays), ... */
  uint32_t size;     /* bytes */
  uint32_t align;    /* bytes */
  uint32_t offset;   /* byte offset in the packed parameter buffer */
} wv_param_info;

/* vm */
/* cfg may be NULL. Returns NULL if out of memory or if cfg names an unknown machine or mapping. */
wv_vm *wv_create(const wv_config *cfg);
/* 1 when this warpvm was built with LLVM and its library loads (README "Engines": opened at the first call, not
 * at start), so that wv_config.engine "jit" can compile. */
int wv_has_jit(void);
/* Why the JIT cannot compile here, written into buf (built without LLVM, or its library did not load); NULL when
 * it can. */
const char *wv_jit_unavailable(char *buf, size_t cap);
void wv_destroy(wv_vm *vm);
const char *wv_last_error(const wv_vm *vm);
const char *wv_status_name(wv_status s);

/* modules (owned by the vm; freed with it or by wv_module_unload) */
wv_status wv_module_load_file(wv_vm *vm, const char *path, wv_module **out);
wv_status wv_module_load_string(wv_vm *vm, const char *ptx, size_t len, const char *name,
                                wv_module **out);
/*
 * Loads n PTX texts (texts[i] of lens[i] bytes, e.g. the translation units of `nvcc -rdc=true`)
 * as ONE module, linking them as nvlink does: a unit's `.extern` functions and variables are the
 * `.visible` (or `.weak`) definitions of another unit, a strong definition replacing weak ones;
 * names that are not visible (`$str`, static functions and variables) stay their unit's own, so
 * several units may use one. Messages name unit i "NAME(uniti)" (0-based), for parse errors too;
 * link errors are "NAME(unit1):LINE:COL: error: undefined reference to 'x'" (at the .extern) and
 * "... error: duplicate definition of 'x' (first defined at NAME(unit0):LINE:COL)" (WV_ERR_PARSE).
 * Functions of CUDA's device runtime (cuda..., __cudaCDP...) may stay undefined: only kernels
 * that call one are refused, at launch. wv_kernel_get and wv_module_symbol find a unit's own names
 * too (the first unit's, for a name several units have). n == 1 is wv_module_load_string.
 */
wv_status wv_module_load_units(wv_vm *vm, const char *const *texts, const size_t *lens, uint32_t n,
                               const char *name, wv_module **out);
void wv_module_unload(wv_module *m);
uint32_t wv_module_kernel_count(const wv_module *m);
const wv_kernel *wv_module_kernel_at(const wv_module *m, uint32_t i);

/* kernels */
wv_status wv_kernel_get(const wv_module *m, const char *name, const wv_kernel **out);
const char *wv_kernel_name(const wv_kernel *k);
uint32_t wv_kernel_param_count(const wv_kernel *k);
wv_param_info wv_kernel_param(const wv_kernel *k, uint32_t i);
uint32_t wv_kernel_static_shared(const wv_kernel *k); /* bytes of static .shared it uses */
/* The most threads a block of k may have: .maxntid / .reqntid (CUDA's __launch_bounds__), else 1024. */
uint32_t wv_kernel_max_threads(const wv_kernel *k);
/* The cluster shape compiled into k (.reqnctapercluster: nvcc's __cluster_dims__) in dims, 1 if it has one (else
 * dims are 0); *must_set (if not NULL): the kernel is an explicit-cluster kernel, with or without a compiled-in shape
 * (cudaFuncAttributeClusterDimMustBeSet, 1 for __cluster_dims__ kernels on an H200). */
int wv_kernel_cluster(const wv_kernel *k, uint32_t dims[3], int *must_set);

/* device memory. wv_free frees what wv_malloc returned (0 is a no-op); WV_ERR_INVALID for any other
 * address, module variables, device-malloc'd memory and wv_map_host mappings included. */
wv_status wv_malloc(wv_vm *vm, size_t bytes, wv_devptr *out);
wv_status wv_free(wv_vm *vm, wv_devptr p);
wv_status wv_memset(wv_vm *vm, wv_devptr dst, int value, size_t bytes);
wv_status wv_memcpy_htod(wv_vm *vm, wv_devptr dst, const void *src, size_t bytes);
wv_status wv_memcpy_dtoh(wv_vm *vm, void *dst, wv_devptr src, size_t bytes);
wv_status wv_memcpy_dtod(wv_vm *vm, wv_devptr dst, wv_devptr src, size_t bytes);
/* Address of a module-scope .global/.const variable, and its size. Variables declared
 * `.attribute(.managed)` (CUDA's __managed__) live in host memory the vm owns at an identical
 * device address, so the host may also dereference (void *)(uintptr_t)*addr directly. */
wv_status wv_module_symbol(const wv_module *m, const char *name, wv_devptr *addr, size_t *bytes);

/*
 * Identity-mapped memory (cudaMallocManaged, cudaMallocHost / cudaHostAlloc, zero-copy): registers
 * `bytes` of existing host memory at `host` as a device allocation whose device address is `host`
 * itself, so kernels and the host dereference the same pointer. Accesses are bounds-checked like
 * any allocation; the vm never frees this memory. Refused (WV_ERR_INVALID) when the range is empty,
 * overlaps another allocation or mapping, or hits an address range warpvm reserves (its device
 * heap [0x7000_0000_0000, 0x7800_0000_0000), the generic shared/local windows).
 */
wv_status wv_map_host(wv_vm *vm, void *host, size_t bytes);
/* Removes a mapping made by wv_map_host (host is the address it was given); the memory stays the
 * caller's. WV_ERR_INVALID if host is not the start of such a mapping. */
wv_status wv_unmap_host(wv_vm *vm, void *host);

/* The live allocation containing address p — wv_malloc'd, a module variable, device malloc'd,
 * identity-mapped (wv_map_host, managed variables) — as its start and size: WV_OK, or
 * WV_ERR_NOT_FOUND (the last error is left as it was: a host pointer is an ordinary answer). */
wv_status wv_pointer_query(wv_vm *vm, wv_devptr p, wv_devptr *base, size_t *size);

/* The device malloc heap's limit (cudaDeviceSetLimit(cudaLimitMallocHeapSize)): bytes that live
 * device malloc/new allocations may hold together, 0 = 8 MiB. Allocations already made stay. */
wv_status wv_set_device_heap(wv_vm *vm, size_t bytes);
/* The per-thread stack limit of recursive calls (cudaDeviceSetLimit(cudaLimitStackSize)); 0 = 1024. */
wv_status wv_set_stack_limit(wv_vm *vm, size_t bytes);

/*
 * Dynamic parallelism (CUDA's device runtime: kernels launching kernels, device-side streams, events,
 * cudaGetLastError, cudaMalloc). A launch runs to completion with every grid its threads launch
 * (README, "Dynamic parallelism"). The device runtime asks the host runtime what only it knows:
 * attribute(user, attr, dev, &value) answers device-side cudaDeviceGetAttribute and limit(user, limit,
 * &value) cudaDeviceGetLimit, each returning a cudaError_t; error_text(user, code, name) is
 * cudaGetErrorName (name 1) or cudaGetErrorString's text, NULL for an unknown code; runtime_version is
 * cudaRuntimeGetVersion's answer. Without hooks those calls return cudaErrorNotSupported (801), and
 * cudaGetErrorName/String "unrecognized error code".
 */
typedef struct wv_devrt_hooks {
  int (*attribute)(void *user, int attr, int dev, int *value);
  int (*limit)(void *user, int limit, size_t *value);
  const char *(*error_text)(void *user, int code, int name);
  int runtime_version;
  void *user;
} wv_devrt_hooks;
wv_status wv_set_devrt_hooks(wv_vm *vm, const wv_devrt_hooks *hooks);
/* Launches made in device code and not started yet, at most (cudaLimitDevRuntimePendingLaunchCount);
 * 0 = 2048, CUDA's default. A launch beyond it fails with cudaErrorLaunchPendingCountExceeded. */
wv_status wv_set_pending_launch_limit(wv_vm *vm, size_t count);

/*
 * Launch and run to completion. args[i] points at the value of parameter i (as cuLaunchKernel).
 * shared_bytes is the dynamic shared memory size.
 */
wv_status wv_launch(wv_vm *vm, const wv_kernel *k, wv_dim3 grid, wv_dim3 block,
                    uint32_t shared_bytes, void **args);

/* wv_launch_ex flags. */
#define WV_LAUNCH_COOPERATIVE 1u /* cudaLaunchCooperativeKernel: every CTA resident at once */
#define WV_LAUNCH_NONPORTABLE_CLUSTER 2u /* clusters of up to 16 CTAs (else 8) */
/* Thread-block clusters of x*y*z CTAs (each 1..16; all 0, the default: the kernel's .reqnctapercluster, else
 * none). The grid must be a multiple of the cluster; a cluster's CTAs are resident together, share their
 * shared memory (.shared::cluster) and the cluster barrier. */
#define WV_LAUNCH_CLUSTER(x, y, z) (((uint32_t)(x) & 0xffu) << 8 | ((uint32_t)(y) & 0xffu) << 16 | ((uint32_t)(z) & 0xffu) << 24)

/*
 * wv_launch with flags (wv_launch is flags 0). WV_LAUNCH_COOPERATIVE makes every CTA of the grid
 * resident at once, the scheduler interleaving them in bounded time slices, so a CTA may wait for
 * another (cooperative_groups::this_grid().sync(), a flag in global memory); %envreg1:%envreg2
 * hold the grid workspace's address, as CUDA's driver sets them (grid.is_valid() is true). A grid
 * of more CTAs than wv_max_coop_blocks allows is refused with WV_ERR_LAUNCH. Without the flag CTAs
 * run one after another and %envreg1/%envreg2 read 0 (grid.sync() traps). Unknown flags:
 * WV_ERR_INVALID.
 */
wv_status wv_launch_ex(wv_vm *vm, const wv_kernel *k, wv_dim3 grid, wv_dim3 block,
                       uint32_t shared_bytes, void **args, uint32_t flags);
/* The most CTAs a cooperative launch of k with this block shape and dynamic shared memory may
 * have (all of them are resident in host memory at once); 0 if the shape itself is invalid. */
uint32_t wv_max_coop_blocks(const wv_kernel *k, wv_dim3 block, uint32_t shared_bytes);

/* Machines (wv_config.machine): i-th name and a one-line description; NULL past the end. */
const char *wv_machine_name(uint32_t i);
const char *wv_machine_describe(uint32_t i);
/* For every cross-lane instruction of the module: the PTX line, then the code it becomes on the vm's
 * machine (AMD GCN assembly that llvm-mc assembles; PTX lines are `;` comments). */
wv_status wv_module_print_lowering(wv_vm *vm, const wv_module *m, FILE *out);
/* The FMA contraction decisions (docs/CONTRACTION.md), one line per contractible product and add/sub:
 * "FILE:LINE: mul|div|rcp fused|kept|partly|dead[: why]" (div: div.approx/.full, rcp: rcp.approx), "FILE:LINE: add|sub fma MULLINE" (fused with the mul at
 * MULLINE) or "FILE:LINE: add|sub separate[ (mul MULLINE: why)]". The decisions are made whether or not
 * wv_config.no_contract applies them. */
wv_status wv_module_print_contractions(wv_vm *vm, const wv_module *m, FILE *out);

/*
 * Diagnostics: things a GPU lets pass but that are bugs, by kind. The vm counts every occurrence
 * and keeps the first WV_DIAG_KEEP of each kind as one-line records ("global load of 4 bytes at
 * address 0x..., 4 bytes after the end of the 400-byte allocation at 0x..., in kernel 'k', block
 * (0,0,0), thread (100,0,0), PTX line 20 of k.ptx"). They last until wv_diag_reset or wv_destroy
 * (wv_stats_reset leaves them); the matching wv_stats counters are reset with the stats.
 */
typedef enum wv_diag_kind {
  WV_DIAG_INVALID_READ = 0, /* a load outside every allocation but inside memory the GPU maps around
                               one (it reads 0 unless another allocation is there); a fault under
                               WV_CHECK_MEMCHECK */
  WV_DIAG_UNDEF_COLLECTIVE, /* a .sync collective used in a way the PTX ISA leaves undefined (a lane
                               running it with a membermask that does not name it, membermasks that
                               overlap inconsistently, members that never arrive, a shfl.sync reading a
                               lane that does not take part); a fault under WV_CHECK_SYNCCHECK */
  WV_DIAG_KINDS
} wv_diag_kind;
#define WV_DIAG_KEEP 5

uint64_t wv_diag_count(const wv_vm *vm, wv_diag_kind kind);
/* The i-th kept record of a kind (i < WV_DIAG_KEEP), or NULL. */
const char *wv_diag_record(const wv_vm *vm, wv_diag_kind kind, uint32_t i);
/* For every kind seen: a line with its count and what it means, then its kept records, each line
 * starting with "warpvm: ". Prints nothing when nothing was recorded. */
void wv_diag_print(const wv_vm *vm, FILE *out);
void wv_diag_reset(wv_vm *vm);

/* "memcheck", "synccheck", "memcheck,synccheck" (any order, "" = none) -> WV_CHECK_* bits: WV_OK, or
 * WV_ERR_INVALID for an unknown or empty name (*checks is then 0). */
wv_status wv_checks_parse(const char *list, uint32_t *checks);

void wv_get_stats(const wv_vm *vm, wv_stats *out);
void wv_stats_reset(wv_vm *vm);

#ifdef __cplusplus
}
#endif
#endif
