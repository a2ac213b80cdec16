/*
 * cdp.h — dynamic parallelism (CUDA's device runtime, CDP2): the state a vm keeps for it (launch slots
 * and their parameter buffers, the pending-launch count, the host runtime's hooks), the state of the
 * grid that is running (the launches its threads made, its threads' last errors, its streams and
 * events), and running a grid's launches once it has finished (cdp.c). rt/devrt.c is the PTX side:
 * the builtins nvcc's code calls, which read their arguments and call these functions.
 *
 * The schedule (one a GPU may take; README "Dynamic parallelism"): a grid's launches wait until every
 * CTA of the grid has finished. Then they run one after another, depth first: the non-tail launches
 * (the block's NULL stream, named streams, cudaStreamFireAndForget) in launch order — the launching
 * CTA's index first, then the order of the calls in that CTA — then the launches into
 * cudaStreamTailLaunch in launch order, each with everything it launches before the next starts. A
 * host launch returns when all of that has run. The pending launches are one stack owned by the vm, so
 * a long chain of tail launches runs in a loop, not a recursion.
 */
#ifndef WV_CDP_H
#define WV_CDP_H

#include <pthread.h>
#include <stdatomic.h>

#include "exec/exec.h"
#include "warpvm.h"

#define WV_CDP_PENDING_DEFAULT 2048u /* cudaLimitDevRuntimePendingLaunchCount's default */
#define WV_CDP_MAX_DEPTH 4096u       /* nesting levels: the host's grid is the first. CDP2 has no 24-level limit:
                                      * an H200 ran 40 (tests/programs/cdp_limits.cu); this bounds the host's work */
#define WV_CDP_MAX_SLOTS 65536u      /* launch slots whose parameter buffers the vm keeps at most */
#define WV_CDP_TAIL 3u               /* cudaStreamTailLaunch */
#define WV_CDP_FIRE_AND_FORGET 4u    /* cudaStreamFireAndForget */

/* cudaError_t values the device runtime returns (the host runtime's numbers). */
enum {
  WV_CUDA_SUCCESS = 0,
  WV_CUDA_INVALID_VALUE = 1,
  WV_CUDA_MEMORY_ALLOCATION = 2,
  WV_CUDA_INVALID_CONFIGURATION = 9,
  WV_CUDA_LAUNCH_MAX_DEPTH = 65,
  WV_CUDA_LAUNCH_PENDING_COUNT = 69,
  WV_CUDA_INVALID_DEVICE_FUNCTION = 98,
  WV_CUDA_INVALID_DEVICE = 101,
  WV_CUDA_INVALID_RESOURCE_HANDLE = 400,
  WV_CUDA_NOT_SUPPORTED = 801,
};

/* A launch slot (cudaGetParameterBuffer): its parameter buffer is slot i of the vm's buffers. */
typedef struct wv_cdp_slot {
  uint32_t fn;                /* the kernel (V2), UINT32_MAX until cudaLaunchDevice says (V1) */
  uint32_t grid[3], block[3], shared;
  uint8_t state;              /* SLOT_TAKEN, SLOT_LAUNCHED (cdp.c) */
} wv_cdp_slot;

/* A launch a grid made, pending until it starts: a kernel, or (a copy kernel on the GPU) a device-side
 * cudaMemcpyAsync / cudaMemsetAsync. */
enum { WV_CDP_KERNEL = 0, WV_CDP_COPY, WV_CDP_SET };
typedef struct wv_cdp_rec {
  uint64_t cta, seq;          /* its place: the launching CTA, then the calls' order */
  uint8_t kind;               /* WV_CDP_* */
  uint64_t dst, src, bytes;   /* a copy (src: the source) or a set (src: the byte value) */
  struct wv_module *mod;
  uint32_t fn, grid[3], block[3], shared;
  uint32_t depth;             /* its nesting depth: the launching grid's + 1, the same for a tail launch */
  int tail;                   /* into cudaStreamTailLaunch */
  uint8_t *params;            /* a copy of the parameter buffer at the launch */
  uint32_t nparams;
} wv_cdp_rec;

/* The device runtime's state of the running grid (launch.c makes it for a kernel that reaches a
 * device-runtime builtin). Workers running its CTAs meet in `lock`. */
typedef struct wv_cdp_grid {
  struct wv_module *mod;
  uint32_t depth;             /* 0: launched by the host */
  pthread_mutex_t lock;       /* recs and errs */
  wv_cdp_rec *recs;
  uint32_t nrecs, caprecs;
  uint64_t *err_key;          /* the threads whose last error is set: an open-addressing table */
  int32_t *err_val;
  uint32_t nerr, caperr;
  _Atomic uint32_t taken;     /* launch slots handed out */
  _Atomic uint64_t seq;       /* launch calls, in the order they ran */
  _Atomic uint64_t handles;   /* streams and events made */
  struct wv_cdp_grid *outer;  /* the grid running before it (none: NULL) */
} wv_cdp_grid;

/* A vm's device runtime. */
typedef struct wv_devrt {
  wv_cdp_grid *cur;           /* the running grid, if it uses the device runtime */
  wv_cdp_rec *stack;          /* launches not started: the next on top */
  uint32_t nstack, capstack;
  double deadline;            /* the watchdog of the running host launch and the grids it leads to (0: none) */
  uint64_t insns0;            /* the vm's warp instructions when it started (--max-steps counts them all) */
  _Atomic uint64_t pending;   /* launches made and not started */
  uint64_t limit;             /* cudaLimitDevRuntimePendingLaunchCount */
  uint64_t arena;             /* device address of the parameter buffers: nslots of slot_size bytes */
  uint8_t *arena_host;
  uint32_t nslots, slot_size;
  wv_cdp_slot *slots;
  wv_devrt_hooks hooks;
  uint64_t texts;             /* device copies of the error names and strings (hooks.error_text), 0 if none */
  uint32_t *text_off;         /* per code below WV_CDP_CODES: its name's and string's offsets in texts (cdp.c) */
} wv_devrt;
#define WV_CDP_CODES 1000u    /* error codes whose texts the device runtime keeps (cudaErrorUnknown is 999) */

struct wv_vm;
struct wv_module;

void wv_devrt_init(wv_devrt *d);
void wv_devrt_fini(wv_devrt *d);

/* launch.c: before a grid of nesting depth `depth` that reaches the device runtime runs (0, or -1 out of
 * memory) and after it: its launches join the pending stack, to run before those already there. */
int wv_cdp_begin(struct wv_vm *vm, struct wv_module *mod, uint32_t depth, wv_cdp_grid *g);
void wv_cdp_end(struct wv_vm *vm, wv_cdp_grid *g);
/* launch.c, at the end of a host launch whose grid ended with st: run the pending launches (the schedule
 * above) while st is WV_OK, drop the rest; the first failure. */
wv_status wv_cdp_run_pending(struct wv_vm *vm, wv_status st);

/* devrt.c: the device runtime's operations for one lane of the running grid g. Each returns a
 * cudaError_t; a fault (the lane's memory) is x's fault, returned as -1. */
/* cudaGetParameterBuffer(V2): a slot's buffer address in *buf (0 on failure). fn = UINT32_MAX: V1 (the
 * kernel comes with the launch), `size` bytes wanted. */
int wv_cdp_take_slot(wv_exec *x, wv_cdp_grid *g, uint64_t func, const uint32_t grid[3], const uint32_t block[3],
                     uint32_t shared, uint64_t size, uint64_t *buf);
/* cudaLaunchDevice(V2): launch the slot at buf into stream; V1 passes the kernel and its configuration. */
int wv_cdp_launch(wv_exec *x, wv_cdp_grid *g, int lane, uint64_t buf, uint64_t stream, int v1, uint64_t func,
                  const uint32_t grid[3], const uint32_t block[3], uint32_t shared);
/* cudaMemcpyAsync (kind WV_CDP_COPY) / cudaMemsetAsync (WV_CDP_SET, src the value) into stream. */
int wv_cdp_copy(wv_exec *x, wv_cdp_grid *g, int kind, uint64_t dst, uint64_t src, uint64_t bytes, uint64_t stream);
/* cudaGetErrorName (name) / cudaGetErrorString: the device address of the text, 0 without texts. */
uint64_t wv_cdp_error_text(struct wv_vm *vm, int code, int name);
/* The lane's last error: read (and cleared), or set. */
int wv_cdp_last_error(wv_exec *x, wv_cdp_grid *g, int lane, int clear);
void wv_cdp_set_error(wv_exec *x, wv_cdp_grid *g, int lane, int err);
/* A new stream or event handle of the grid. */
uint64_t wv_cdp_handle(wv_cdp_grid *g);

#endif
