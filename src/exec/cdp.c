/*
 * cdp.c — dynamic parallelism's model (cdp.h): launch slots and their parameter buffers, the launches a
 * grid makes, its threads' last errors, and running the launches once the grid has finished.
 *
 * Launch slots: cudaGetParameterBuffer takes one — a buffer of slot_size bytes in one device allocation
 * the vm keeps (WV_ALLOC_INTERNAL, made or enlarged between grids: while a grid runs, workers only
 * hand out its slots with an atomic counter) — and counts a pending launch. cudaLaunchDevice copies the
 * buffer into a record of the grid; the launch stays pending until its grid starts. A slot taken and
 * never launched is given back when its grid ends. A grid's launches cannot start before it ends, so it
 * takes at most `limit` slots, and the next grid reuses them.
 */
#include <stdlib.h>

#include "exec/cdp.h"
#include "exec/sched.h"
#include "rt/vm_internal.h"

enum { SLOT_FREE = 0, SLOT_TAKEN, SLOT_LAUNCHED };

void wv_devrt_init(wv_devrt *d) {
  memset(d, 0, sizeof *d);
  d->limit = WV_CDP_PENDING_DEFAULT;
}

void wv_devrt_fini(wv_devrt *d) {
  free(d->slots); /* the buffers and texts are heap allocations, freed with the heap */
  free(d->stack);
  free(d->text_off);
  d->slots = NULL;
  d->stack = NULL;
  d->text_off = NULL;
}

wv_status wv_set_devrt_hooks(wv_vm *vm, const wv_devrt_hooks *hooks) {
  if (!vm) return WV_ERR_INVALID;
  wv_devrt *d = &vm->devrt;
  if (hooks) d->hooks = *hooks;
  else memset(&d->hooks, 0, sizeof d->hooks);
  if (d->texts) wv_heap_free(&vm->heap, d->texts); /* made again from the new hooks */
  d->texts = 0;
  free(d->text_off);
  d->text_off = NULL;
  return WV_OK;
}

/* The error names and strings in device memory (cudaGetErrorName/String return their addresses), made the
 * first time a grid uses the device runtime: "unrecognized error code" at offset 0, then code c's name and
 * string at text_off[2c], text_off[2c + 1] (0: the hooks do not know c). */
static void make_texts(wv_vm *vm) {
  wv_devrt *d = &vm->devrt;
  static const char unknown[] = "unrecognized error code";
  if (d->text_off || !(d->text_off = calloc(2 * WV_CDP_CODES, sizeof *d->text_off))) return;
  uint64_t size = sizeof unknown;
  for (int pass = 0; pass < 2; pass++) {
    uint8_t *h = pass ? wv_heap_lookup(&vm->heap, d->texts, size) : NULL;
    uint64_t at = sizeof unknown;
    if (h) memcpy(h, unknown, sizeof unknown);
    for (uint32_t i = 0; i < 2 * WV_CDP_CODES; i++) {
      const char *t = d->hooks.error_text ? d->hooks.error_text(d->hooks.user, (int)(i / 2), !(i & 1)) : NULL;
      if (!t) continue; /* offset 0: unknown */
      size_t n = strlen(t) + 1;
      if (h) memcpy(h + at, t, n), d->text_off[i] = (uint32_t)at;
      at += n;
    }
    size = at;
    if (!pass && wv_heap_alloc_kind(&vm->heap, size, 16, WV_ALLOC_INTERNAL, &d->texts)) return;
  }
}

uint64_t wv_cdp_error_text(wv_vm *vm, int code, int name) {
  const wv_devrt *d = &vm->devrt;
  if (!d->texts) return 0;
  uint32_t i = 2 * (uint32_t)code + !name;
  return d->texts + (code >= 0 && (uint32_t)code < WV_CDP_CODES ? d->text_off[i] : 0);
}

wv_status wv_set_pending_launch_limit(wv_vm *vm, size_t count) {
  if (!vm) return WV_ERR_INVALID;
  vm->devrt.limit = count ? count : WV_CDP_PENDING_DEFAULT;
  return WV_OK;
}

/* The bytes of a kernel's parameters. */
static uint32_t kparam_bytes(const wv_func *k) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < k->nparams; i++)
    if (k->params[i].offset + k->params[i].size > n) n = k->params[i].offset + k->params[i].size;
  return n;
}

/* The parameter buffers the module's kernels need: slot_size is its largest kernel's parameters. */
static int ensure_arena(wv_vm *vm, const wv_irmod *m) {
  wv_devrt *d = &vm->devrt;
  uint32_t size = 16, n = d->limit < WV_CDP_MAX_SLOTS ? (uint32_t)d->limit : WV_CDP_MAX_SLOTS;
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].is_entry && kparam_bytes(&m->funcs[i]) > size) size = kparam_bytes(&m->funcs[i]);
  size = (size + 15) & ~15u;
  if (d->arena && d->nslots >= n && d->slot_size >= size) return 0;
  if (d->arena) wv_heap_free(&vm->heap, d->arena);
  d->arena = 0;
  d->nslots = 0;
  wv_cdp_slot *s = realloc(d->slots, (size_t)n * sizeof *s);
  if (!s) return -1;
  d->slots = s;
  memset(s, 0, (size_t)n * sizeof *s);
  if (wv_heap_alloc_kind(&vm->heap, (uint64_t)n * size, 16, WV_ALLOC_INTERNAL, &d->arena) ||
      !(d->arena_host = wv_heap_lookup(&vm->heap, d->arena, (uint64_t)n * size))) {
    if (d->arena) wv_heap_free(&vm->heap, d->arena);
    d->arena = 0;
    return -1;
  }
  d->nslots = n;
  d->slot_size = size;
  return 0;
}

int wv_cdp_begin(wv_vm *vm, struct wv_module *mod, uint32_t depth, wv_cdp_grid *g) {
  memset(g, 0, sizeof *g);
  if (ensure_arena(vm, &mod->ir)) return -1;
  make_texts(vm); /* without them (out of memory) cudaGetErrorName/String return NULL */
  g->mod = mod;
  g->depth = depth;
  pthread_mutex_init(&g->lock, NULL);
  atomic_init(&g->taken, 0);
  atomic_init(&g->seq, 0);
  atomic_init(&g->handles, 0);
  g->outer = vm->devrt.cur;
  vm->devrt.cur = g;
  return 0;
}

/* The order the launches run in: tail launches last, each kind in launch order (the launching CTA, then the
 * calls' order). */
static int rec_order(const void *a, const void *b) {
  const wv_cdp_rec *x = a, *y = b;
  if (x->tail != y->tail) return x->tail - y->tail;
  if (x->cta != y->cta) return x->cta < y->cta ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void wv_cdp_end(wv_vm *vm, wv_cdp_grid *g) {
  wv_devrt *d = &vm->devrt;
  d->cur = g->outer;
  uint32_t taken = atomic_load(&g->taken);
  if (taken > d->nslots) taken = d->nslots;
  uint64_t unlaunched = 0;
  for (uint32_t i = 0; i < taken; i++) {
    unlaunched += d->slots[i].state == SLOT_TAKEN;
    d->slots[i].state = SLOT_FREE;
  }
  atomic_fetch_sub(&d->pending, unlaunched);
  free(g->err_key);
  free(g->err_val);
  pthread_mutex_destroy(&g->lock);
  if (g->nrecs) qsort(g->recs, g->nrecs, sizeof *g->recs, rec_order);
  /* onto the stack in reverse, so that the first runs next; the stack has room (recs_grow) */
  for (uint32_t i = g->nrecs; i-- > 0;) d->stack[d->nstack++] = g->recs[i];
  free(g->recs);
}

/* A device-side cudaMemcpyAsync / cudaMemsetAsync, when its turn comes: memory outside the program's is a
 * fault, as the copy kernel's access would be. */
static wv_status run_copy(wv_vm *vm, const wv_cdp_rec *r) {
  uint8_t *dst = wv_heap_lookup(&vm->heap, r->dst, r->bytes);
  uint8_t *src = r->kind == WV_CDP_COPY ? wv_heap_lookup(&vm->heap, r->src, r->bytes) : NULL;
  const char *what = r->kind == WV_CDP_COPY ? "cudaMemcpyAsync" : "cudaMemsetAsync";
  if (!dst || (r->kind == WV_CDP_COPY && !src))
    return wv_seterr(vm, WV_ERR_FAULT, "%s in device code: [0x%llx, +%llu) is not inside one allocation", what,
                     (unsigned long long)(dst ? r->src : r->dst), (unsigned long long)r->bytes);
  if (src) memmove(dst, src, r->bytes);
  else memset(dst, (int)(uint8_t)r->src, r->bytes);
  vm->stats.launches++;
  return WV_OK;
}

/* The watchdog between grids: the host launch's time limit and instruction budget cover every grid it leads
 * to (each grid also checks them as it runs), so an endless chain of launches ends too. */
static wv_status watchdog(wv_vm *vm) {
  const wv_devrt *d = &vm->devrt;
  if (vm->cfg.max_steps && vm->stats.warp_instructions - d->insns0 > vm->cfg.max_steps)
    return wv_seterr(vm, WV_ERR_WATCHDOG, "watchdog: more than %llu warp instructions (--max-steps) in a launch and "
                     "the grids it launched", (unsigned long long)vm->cfg.max_steps);
  if (d->deadline && wv_now() > d->deadline)
    return wv_seterr(vm, WV_ERR_WATCHDOG, "watchdog: a launch and the grids it launched ran for more than %u s "
                     "(--timeout; --max-steps 0 disables the watchdog)", vm->cfg.timeout_seconds);
  return WV_OK;
}

wv_status wv_cdp_run_pending(wv_vm *vm, wv_status st) {
  wv_devrt *d = &vm->devrt;
  while (d->nstack) {
    wv_cdp_rec r = d->stack[--d->nstack];
    atomic_fetch_sub(&d->pending, 1); /* it starts (or never will) */
    if (st == WV_OK) st = watchdog(vm);
    if (st == WV_OK && r.kind != WV_CDP_KERNEL) {
      st = run_copy(vm, &r);
    } else if (st == WV_OK) {
      const wv_func *kfn = &r.mod->ir.funcs[r.fn];
      const char *u = wv_exec_unsupported(&r.mod->ir, kfn);
      st = u ? wv_seterr(vm, WV_ERR_UNSUPPORTED, "%s (kernel '%s', launched in device code, cannot run)", u, kfn->name)
             : wv_exec_grid(vm, r.mod, kfn, r.grid, r.block, r.shared, r.params, r.nparams, 0, r.depth);
    }
    free(r.params);
  }
  return st;
}

/* ---- what the builtins do (devrt.c) ---- */

static uint64_t thread_key(const wv_exec *x, int lane) {
  return x->cta->linear * x->cta->nthreads + (uint64_t)x->warp->id * WV_WARP + (uint64_t)lane;
}

/* The error table's entry for key (0 is kept for an empty entry: keys are stored + 1); under g->lock. */
static uint32_t err_find(const wv_cdp_grid *g, uint64_t key) {
  uint32_t i = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & (g->caperr - 1);
  while (g->err_key[i] && g->err_key[i] != key + 1) i = (i + 1) & (g->caperr - 1);
  return i;
}

static int err_grow(wv_cdp_grid *g) {
  uint32_t nc = g->caperr ? g->caperr * 2 : 64;
  wv_cdp_grid n = {.caperr = nc, .err_key = calloc(nc, sizeof(uint64_t)), .err_val = calloc(nc, sizeof(int32_t))};
  if (!n.err_key || !n.err_val) {
    free(n.err_key);
    free(n.err_val);
    return -1;
  }
  for (uint32_t i = 0; i < g->caperr; i++)
    if (g->err_key[i]) {
      uint32_t j = err_find(&n, g->err_key[i] - 1);
      n.err_key[j] = g->err_key[i];
      n.err_val[j] = g->err_val[i];
    }
  free(g->err_key);
  free(g->err_val);
  g->err_key = n.err_key;
  g->err_val = n.err_val;
  g->caperr = nc;
  return 0;
}

void wv_cdp_set_error(wv_exec *x, wv_cdp_grid *g, int lane, int err) {
  uint64_t key = thread_key(x, lane);
  pthread_mutex_lock(&g->lock);
  if (g->caperr && g->err_key[err_find(g, key)]) {
    g->err_val[err_find(g, key)] = err;
  } else if (err && (2 * (g->nerr + 1) <= g->caperr || !err_grow(g))) { /* out of memory: the error is lost */
    uint32_t i = err_find(g, key);
    g->err_key[i] = key + 1;
    g->err_val[i] = err;
    g->nerr++;
  }
  pthread_mutex_unlock(&g->lock);
}

int wv_cdp_last_error(wv_exec *x, wv_cdp_grid *g, int lane, int clear) {
  uint64_t key = thread_key(x, lane);
  int e = 0;
  pthread_mutex_lock(&g->lock);
  if (g->caperr) {
    uint32_t i = err_find(g, key);
    if (g->err_key[i]) {
      e = g->err_val[i];
      if (clear) g->err_val[i] = 0;
    }
  }
  pthread_mutex_unlock(&g->lock);
  return e;
}

uint64_t wv_cdp_handle(wv_cdp_grid *g) {
  /* distinct from 0 and the special streams 1..4; never dereferenced */
  return 0x10000u + 16u * atomic_fetch_add(&g->handles, 1);
}

/* A kernel of the module and a configuration it may launch with, or the error a launch gets. */
static int check_launch(const wv_irmod *m, uint64_t func, const uint32_t grid[3], const uint32_t block[3],
                        uint32_t shared, uint32_t *fn) {
  uint64_t i = func & 0xffffffffu;
  if ((func & ~(uint64_t)0xffffffffu) != WV_FUNC_ADDR_TAG || i >= m->nfuncs || !m->funcs[i].is_entry ||
      !m->funcs[i].defined)
    return WV_CUDA_INVALID_DEVICE_FUNCTION;
  const wv_func *k = &m->funcs[i];
  uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
  const uint32_t *b = k->reqntid[0] ? k->reqntid : k->maxntid;
  uint64_t bound = b[0] ? (uint64_t)b[0] * b[1] * b[2] : 1024;
  if (!threads || threads > 1024 || block[0] > 1024 || block[1] > 1024 || block[2] > 64 || threads > bound ||
      (k->reqntid[0] && (block[0] != k->reqntid[0] || block[1] != k->reqntid[1] || block[2] != k->reqntid[2])))
    return WV_CUDA_INVALID_CONFIGURATION;
  if (!grid[0] || !grid[1] || !grid[2] || grid[0] > 0x7fffffffu || grid[1] > 65535 || grid[2] > 65535)
    return WV_CUDA_INVALID_CONFIGURATION;
  if ((uint64_t)k->shared_dyn + shared > WV_MAX_SHARED) return WV_CUDA_INVALID_VALUE;
  *fn = (uint32_t)i;
  return WV_CUDA_SUCCESS;
}

int wv_cdp_take_slot(wv_exec *x, wv_cdp_grid *g, uint64_t func, const uint32_t grid[3], const uint32_t block[3],
                     uint32_t shared, uint64_t size, uint64_t *buf) {
  wv_devrt *d = &x->vm->devrt;
  uint32_t fn = UINT32_MAX;
  *buf = 0;
  if (grid) {
    int e = check_launch(&g->mod->ir, func, grid, block, shared, &fn);
    if (e) return e;
  } else if (size > d->slot_size) {
    return WV_CUDA_INVALID_VALUE;
  }
  if (atomic_fetch_add(&d->pending, 1) >= d->limit) {
    atomic_fetch_sub(&d->pending, 1);
    return WV_CUDA_LAUNCH_PENDING_COUNT;
  }
  uint32_t i = atomic_fetch_add(&g->taken, 1);
  if (i >= d->nslots) { /* only with a limit above WV_CDP_MAX_SLOTS */
    atomic_fetch_sub(&d->pending, 1);
    return WV_CUDA_LAUNCH_PENDING_COUNT;
  }
  wv_cdp_slot *s = &d->slots[i];
  s->fn = fn;
  if (grid) {
    memcpy(s->grid, grid, sizeof s->grid);
    memcpy(s->block, block, sizeof s->block);
    s->shared = shared;
  }
  memset(d->arena_host + (size_t)i * d->slot_size, 0, d->slot_size);
  s->state = SLOT_TAKEN;
  *buf = d->arena + (uint64_t)i * d->slot_size;
  return WV_CUDA_SUCCESS;
}

/* Room for one more record of the grid, and for all of them on the vm's stack (under g->lock). */
static int recs_grow(wv_devrt *d, wv_cdp_grid *g) {
  if (g->nrecs == g->caprecs) {
    uint32_t nc = g->caprecs ? 2 * g->caprecs : 16;
    wv_cdp_rec *n = realloc(g->recs, (size_t)nc * sizeof *n);
    if (!n) return -1;
    g->recs = n;
    g->caprecs = nc;
  }
  if (d->nstack + g->nrecs + 1 > d->capstack) {
    uint32_t nc = d->capstack ? 2 * d->capstack : 16;
    while (nc < d->nstack + g->nrecs + 1) nc *= 2;
    wv_cdp_rec *n = realloc(d->stack, (size_t)nc * sizeof *n);
    if (!n) return -1;
    d->stack = n;
    d->capstack = nc;
  }
  return 0;
}

/* Record r in the grid (its parameters are the record's from now on; freed on failure). */
static int add_rec(wv_devrt *d, wv_cdp_grid *g, wv_cdp_rec *r) {
  pthread_mutex_lock(&g->lock);
  int ok = !recs_grow(d, g);
  if (ok) g->recs[g->nrecs++] = *r;
  pthread_mutex_unlock(&g->lock);
  if (!ok) free(r->params);
  return ok ? 0 : -1;
}

int wv_cdp_launch(wv_exec *x, wv_cdp_grid *g, int lane, uint64_t buf, uint64_t stream, int v1, uint64_t func,
                  const uint32_t grid[3], const uint32_t block[3], uint32_t shared) {
  wv_devrt *d = &x->vm->devrt;
  uint32_t taken = atomic_load(&g->taken);
  if (taken > d->nslots) taken = d->nslots;
  uint64_t i = (buf - d->arena) / d->slot_size;
  if (buf < d->arena || (buf - d->arena) % d->slot_size || i >= taken || d->slots[i].state != SLOT_TAKEN)
    return WV_CUDA_INVALID_VALUE; /* not a buffer cudaGetParameterBuffer gave, or launched already */
  wv_cdp_slot *s = &d->slots[i];
  if (v1) {
    int e = check_launch(&g->mod->ir, func, grid, block, shared, &s->fn);
    if (e) return e;
    memcpy(s->grid, grid, sizeof s->grid);
    memcpy(s->block, block, sizeof s->block);
    s->shared = shared;
  }
  int tail = stream == WV_CDP_TAIL;
  uint32_t depth = tail ? g->depth : g->depth + 1; /* a tail launch takes its parent's place in its stream */
  if (depth + 1 > WV_CDP_MAX_DEPTH) return WV_CUDA_LAUNCH_MAX_DEPTH;
  const wv_func *k = &g->mod->ir.funcs[s->fn];
  wv_cdp_rec r = {.cta = x->cta->linear, .seq = atomic_fetch_add(&g->seq, 1), .mod = g->mod, .fn = s->fn,
                  .shared = s->shared, .depth = depth, .tail = tail, .nparams = kparam_bytes(k)};
  memcpy(r.grid, s->grid, sizeof r.grid);
  memcpy(r.block, s->block, sizeof r.block);
  wv_mm_commit_own(x, lane, 1, 0, 0); /* the parent's stores before the launch are the child's to see */
  if (!(r.params = malloc((size_t)r.nparams + 1))) return WV_CUDA_MEMORY_ALLOCATION;
  memcpy(r.params, d->arena_host + (size_t)i * d->slot_size, r.nparams);
  if (add_rec(d, g, &r)) return WV_CUDA_MEMORY_ALLOCATION;
  s->state = SLOT_LAUNCHED;
  return WV_CUDA_SUCCESS;
}

int wv_cdp_copy(wv_exec *x, wv_cdp_grid *g, int kind, uint64_t dst, uint64_t src, uint64_t bytes, uint64_t stream) {
  wv_devrt *d = &x->vm->devrt;
  int tail = stream == WV_CDP_TAIL;
  uint32_t depth = tail ? g->depth : g->depth + 1;
  if (depth + 1 > WV_CDP_MAX_DEPTH) return WV_CUDA_LAUNCH_MAX_DEPTH;
  if (atomic_fetch_add(&d->pending, 1) >= d->limit) {
    atomic_fetch_sub(&d->pending, 1);
    return WV_CUDA_LAUNCH_PENDING_COUNT;
  }
  wv_cdp_rec r = {.cta = x->cta->linear, .seq = atomic_fetch_add(&g->seq, 1), .kind = (uint8_t)kind, .dst = dst,
                  .src = src, .bytes = bytes, .mod = g->mod, .depth = depth, .tail = tail};
  if (add_rec(d, g, &r)) {
    atomic_fetch_sub(&d->pending, 1);
    return WV_CUDA_MEMORY_ALLOCATION;
  }
  return WV_CUDA_SUCCESS;
}
