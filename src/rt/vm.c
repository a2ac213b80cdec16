/*
 * vm.c — the public C API (include/warpvm.h): vm lifetime, error messages, module loading
 * (parse → decode), kernel and parameter lookup, device memory, launch and statistics.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptx/ast.h"
#include "rt/vm_internal.h"

#define MAX_PTX_FILE (512u << 20)

typedef struct wv_module_priv {
  struct wv_module pub;
  ptx_module **units; /* the parsed units: they own the names the IR points to */
  uint32_t nunits;
} wv_module_priv;

wv_status wv_seterr(wv_vm *vm, wv_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(vm->err, sizeof vm->err, fmt, ap);
  va_end(ap);
  return st;
}

const char *wv_status_name(wv_status s) {
  static const char *const names[] = {"ok", "invalid argument", "parse error", "unsupported", "not found",
                                      "out of memory", "I/O error", "device fault", "trap", "deadlock",
                                      "watchdog", "bad launch configuration", "device-side assert triggered",
                                      "misaligned address", "illegal instruction", "invalid cluster"};
  return (unsigned)s < sizeof names / sizeof *names ? names[s] : "unknown status";
}

/* One of names[] (NULL: the first), or "random:SEED" when the last name is "random": its index
 * and *seed (0 becomes 1); -1 if s is none of them. */
static int parse_mode(const char *s, const char *const *names, uint32_t *seed) {
  int i = 0;
  if (!s) return 0;
  for (; names[i]; i++) {
    if (!strcmp(s, names[i]) && strcmp(names[i], "random")) return i;
    if (!strcmp(names[i], "random") && !strncmp(s, "random:", 7) && s[7]) {
      char *end;
      unsigned long v = strtoul(s + 7, &end, 0);
      if (*end) return -1;
      *seed = (uint32_t)v ? (uint32_t)v : 1;
      return i;
    }
  }
  return -1;
}

wv_vm *wv_create(const wv_config *cfg) {
  wv_vm *vm = calloc(1, sizeof *vm);
  if (!vm) return NULL;
  if (cfg) vm->cfg = *cfg;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  vm->nthreads = vm->cfg.threads ? vm->cfg.threads : cores > 0 ? (uint32_t)(cores < WV_MAX_THREADS ? cores : WV_MAX_THREADS) : 1;
  if (vm->nthreads > WV_MAX_THREADS) vm->nthreads = WV_MAX_THREADS;
  wv_heap_init(&vm->heap);
  const char *mm = vm->cfg.memory_model;
  int bad_mm = mm && strcmp(mm, "sc") && strcmp(mm, "weak");
  vm->weak = mm && !strcmp(mm, "weak");
  vm->mm_seed = vm->cfg.seed ? vm->cfg.seed : 1;
  vm->dheap_limit = vm->cfg.device_heap_bytes ? vm->cfg.device_heap_bytes : WV_DEVICE_HEAP_DEFAULT;
  vm->stack_limit = vm->cfg.stack_bytes ? vm->cfg.stack_bytes : WV_STACK_DEFAULT;
  static const char *const deliveries[] = {"at-wait", "eager", "random", NULL}; /* WV_ASYNC_* */
  static const char *const schedules[] = {"serial", "interleave", "random", NULL}; /* WV_SCHED_* */
  vm->async_mode = parse_mode(vm->cfg.async_delivery, deliveries, &vm->async_seed);
  vm->sched_mode = parse_mode(vm->cfg.schedule, schedules, &vm->sched_seed);
  vm->engine = wv_engine_parse(vm->cfg.engine);
  if (vm->engine == WV_ENGINE_JIT && !wv_has_jit()) vm->engine = -1; /* built without LLVM */
  if (bad_mm || vm->async_mode < 0 || vm->sched_mode < 0 || vm->engine < 0 ||
      wv_amd_select(vm, vm->cfg.machine, vm->cfg.warps_per_wave)) {
    free(vm);
    return NULL;
  }
  pthread_mutex_init(&vm->lock, NULL);
  wv_devrt_init(&vm->devrt);
  return vm;
}

static void free_units(wv_module_priv *mp) {
  for (uint32_t u = 0; mp->units && u < mp->nunits; u++) ptx_module_free(mp->units[u]);
  free(mp->units);
}

void wv_module_unload(wv_module *m) {
  if (!m) return;
  wv_vm *vm = m->vm;
  for (wv_module **p = &vm->modules; *p; p = &(*p)->next)
    if (*p == m) { *p = m->next; break; }
  wv_engine_forget(vm, m); /* (it reads the functions) */
  wv_irmod_free(vm, &m->ir);
  free(m->kernels);
  free(m->reach);
  free(m->text);
  free_units((wv_module_priv *)m);
  free(m);
}

void wv_destroy(wv_vm *vm) {
  if (!vm) return;
  while (vm->modules) wv_module_unload(vm->modules);
  wv_engine_fini(vm);
  wv_amd_fini(vm);
  wv_devrt_fini(&vm->devrt);
  wv_heap_fini(&vm->heap);
  wv_sfu_unload(&vm->sfu, vm->sfu_mem);
  wv_pool_free(vm->pool);
  wv_profile_reset(vm);
  pthread_mutex_destroy(&vm->lock);
  free(vm);
}

const char *wv_last_error(const wv_vm *vm) { return vm ? vm->err : "no vm"; }

/* Parses unit u as "NAME" (a single unit) or "NAME(unitU)". */
static int parse_unit(const char *text, size_t len, const char *name, uint32_t u, uint32_t n, ptx_module **out,
                      char *err, size_t errlen) {
  if (n == 1) return ptx_parse_ex(text, len, name, PTX_PARSE_SKIM, out, err, errlen);
  size_t cap = strlen(name) + 24;
  char *uname = malloc(cap);
  if (!uname) {
    snprintf(err, errlen, "%s(unit%u):1:1: error: out of memory", name, u);
    return -1;
  }
  snprintf(uname, cap, "%s(unit%u)", name, u);
  int rc = ptx_parse_ex(text, len, uname, PTX_PARSE_SKIM, out, err, errlen);
  free(uname);
  return rc;
}

wv_status wv_module_load_units(wv_vm *vm, const char *const *texts, const size_t *lens, uint32_t n, const char *name,
                               wv_module **out) {
  if (!vm || !texts || !lens || !out) return WV_ERR_INVALID;
  *out = NULL;
  if (!n) return wv_seterr(vm, WV_ERR_INVALID, "wv_module_load_units: no PTX units");
  for (uint32_t u = 0; u < n; u++)
    if (!texts[u]) return wv_seterr(vm, WV_ERR_INVALID, "wv_module_load_units: PTX unit %u is NULL", u);
  if (!name) name = "<string>";
  wv_module_priv *mp = calloc(1, sizeof *mp);
  if (!mp || !(mp->units = calloc(n, sizeof *mp->units))) {
    free(mp);
    return wv_seterr(vm, WV_ERR_NOMEM, "out of memory");
  }
  mp->nunits = n;
  wv_module *m = &mp->pub;
  m->vm = vm;
  char err[sizeof vm->err];
  wv_status st = WV_OK;
  for (uint32_t u = 0; u < n && st == WV_OK; u++)
    if (parse_unit(texts[u], lens[u], name, u, n, &mp->units[u], err, sizeof err)) st = WV_ERR_PARSE;
  if (st == WV_OK && wv_decode_module((const ptx_module *const *)mp->units, n, name, vm, &m->ir, err, sizeof err)) {
    const char *what = strstr(err, ": error: "); /* the message, past the unit's name */
    st = what && !strncmp(what + 9, "unsupported", 11) ? WV_ERR_UNSUPPORTED : WV_ERR_PARSE;
  }
  for (uint32_t u = 0; u < n && mp->units[u]; u++) mp->units[u]->text = NULL; /* the caller's, gone after this */
  if (st == WV_OK && !(m->kernels = calloc(m->ir.nfuncs + 1, sizeof *m->kernels))) {
    wv_irmod_free(vm, &m->ir);
    st = WV_ERR_NOMEM;
    snprintf(err, sizeof err, "out of memory");
  }
  if (st != WV_OK) {
    free_units(mp);
    free(mp);
    return wv_seterr(vm, st, "%s", err);
  }
  for (uint32_t i = 0; i < m->ir.nfuncs; i++)
    if (m->ir.funcs[i].is_entry && m->ir.funcs[i].defined) m->kernels[m->nkernels++] = (struct wv_kernel){m, &m->ir.funcs[i]};
  if (n == 1 && vm->amd && (m->text = malloc(lens[0] + 1))) { /* source lines for `warpvm lower` */
    memcpy(m->text, texts[0], lens[0]);
    m->text[lens[0]] = 0;
    m->text_len = lens[0];
  }
  m->next = vm->modules;
  vm->modules = m;
  *out = m;
  return WV_OK;
}

wv_status wv_module_load_string(wv_vm *vm, const char *ptx, size_t len, const char *name, wv_module **out) {
  if (!vm || !ptx || !out) return WV_ERR_INVALID;
  return wv_module_load_units(vm, &ptx, &len, 1, name, out);
}

wv_status wv_module_load_file(wv_vm *vm, const char *path, wv_module **out) {
  if (!vm || !path || !out) return WV_ERR_INVALID;
  FILE *f = fopen(path, "rb");
  if (!f) return wv_seterr(vm, WV_ERR_IO, "%s: cannot open file", path);
  char *buf = NULL;
  size_t n = 0, cap = 0;
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1; /* a regular file: read it into a buffer of its size */
  if (size >= 0 && (unsigned long)size < MAX_PTX_FILE && fseek(f, 0, SEEK_SET) == 0) cap = (size_t)size + 1;
  else rewind(f);
  if (cap && !(buf = malloc(cap))) { fclose(f); return wv_seterr(vm, WV_ERR_NOMEM, "out of memory"); }
  for (;;) {
    if (n == cap) {
      if (cap >= MAX_PTX_FILE) { fclose(f); free(buf); return wv_seterr(vm, WV_ERR_IO, "%s: file is too large", path); }
      cap = cap ? cap * 2 : 65536;
      char *nb = realloc(buf, cap);
      if (!nb) { fclose(f); free(buf); return wv_seterr(vm, WV_ERR_NOMEM, "out of memory"); }
      buf = nb;
    }
    size_t r = fread(buf + n, 1, cap - n, f);
    n += r;
    if (r == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) { free(buf); return wv_seterr(vm, WV_ERR_IO, "%s: read error", path); }
  wv_status st = wv_module_load_string(vm, buf, n, path, out);
  free(buf);
  return st;
}

uint32_t wv_module_kernel_count(const wv_module *m) { return m ? m->nkernels : 0; }
const wv_kernel *wv_module_kernel_at(const wv_module *m, uint32_t i) {
  return m && i < m->nkernels ? &m->kernels[i] : NULL;
}

wv_status wv_kernel_get(const wv_module *m, const char *name, const wv_kernel **out) {
  if (!m || !name || !out) return WV_ERR_INVALID;
  for (uint32_t i = 0; i < m->nkernels; i++)
    if (!strcmp(m->kernels[i].fn->name, name)) { *out = &m->kernels[i]; return WV_OK; }
  return wv_seterr(m->vm, WV_ERR_NOT_FOUND, "no kernel named '%s' in %s", name, m->ir.filename ? m->ir.filename : "module");
}

const char *wv_kernel_name(const wv_kernel *k) { return k->fn->name; }
uint32_t wv_kernel_param_count(const wv_kernel *k) { return k->fn->nparams; }
uint32_t wv_kernel_static_shared(const wv_kernel *k) { return k->fn->shared_static; }

int wv_kernel_cluster(const wv_kernel *k, uint32_t dims[3], int *must_set) {
  for (int i = 0; i < 3; i++) dims[i] = k ? k->fn->reqcluster[i] : 0;
  if (must_set) *must_set = k && k->fn->explicit_cluster; /* also with a compiled-in shape: an H200 says 1 */
  return dims[0] != 0;
}

uint32_t wv_kernel_max_threads(const wv_kernel *k) {
  const uint32_t *t = k->fn->reqntid[0] ? k->fn->reqntid : k->fn->maxntid;
  uint64_t n = t[0] ? (uint64_t)t[0] * t[1] * t[2] : 1024;
  return n < 1024 ? (uint32_t)n : 1024;
}

wv_param_info wv_kernel_param(const wv_kernel *k, uint32_t i) {
  wv_param_info pi = {0};
  if (i >= k->fn->nparams) return pi;
  const wv_param *p = &k->fn->params[i];
  pi.name = p->name;
  pi.type = wv_type_name(p->type);
  pi.size = p->size;
  pi.align = p->align;
  pi.offset = p->offset;
  return pi;
}

wv_status wv_module_symbol(const wv_module *m, const char *name, wv_devptr *addr, size_t *bytes) {
  if (!m || !name) return WV_ERR_INVALID;
  for (uint32_t i = 0; i < m->ir.nvars; i++) {
    const wv_gvar *g = &m->ir.vars[i];
    if (g->space != WV_SPACE_SHARED && !strcmp(g->name, name)) {
      if (addr) *addr = g->addr;
      if (bytes) *bytes = (size_t)g->size;
      return WV_OK;
    }
  }
  return wv_seterr(m->vm, WV_ERR_NOT_FOUND, "no device variable named '%s'", name);
}

/* ---- device memory ---- */

wv_status wv_malloc(wv_vm *vm, size_t bytes, wv_devptr *out) {
  if (!vm || !out) return WV_ERR_INVALID;
  if (wv_heap_alloc(&vm->heap, bytes, 256, out)) return wv_seterr(vm, WV_ERR_NOMEM, "out of device memory (%zu bytes)", bytes);
  return WV_OK;
}

wv_status wv_free(wv_vm *vm, wv_devptr p) {
  if (!vm) return WV_ERR_INVALID;
  if (p == 0) return WV_OK;
  const wv_alloc *a = wv_heap_find(&vm->heap, p);
  if (!a) return wv_seterr(vm, WV_ERR_INVALID, "wv_free: 0x%llx is not an allocation", (unsigned long long)p);
  static const char *const whose[] = {
      [WV_ALLOC_MODULE] = "a module's variable (freed with its module)",
      [WV_ALLOC_INTERNAL] = "warpvm's own",
      [WV_ALLOC_DMALLOC] = "made by device malloc (a kernel frees it with free)",
      [WV_ALLOC_MANAGED] = "a module's managed variable (freed with its module)",
      [WV_ALLOC_HOSTMAP] = "host memory mapped with wv_map_host (wv_unmap_host removes it)",
  };
  if (a->kind != WV_ALLOC_DEVICE)
    return wv_seterr(vm, WV_ERR_INVALID, "wv_free: 0x%llx is %s, not an allocation of wv_malloc", (unsigned long long)p,
                     whose[a->kind]);
  wv_heap_free(&vm->heap, p);
  return WV_OK;
}

wv_status wv_map_host(wv_vm *vm, void *host, size_t bytes) {
  if (!vm) return WV_ERR_INVALID;
  const char *why;
  if (wv_heap_map(&vm->heap, host, bytes, WV_ALLOC_HOSTMAP, &why))
    return wv_seterr(vm, strcmp(why, "out of host memory") ? WV_ERR_INVALID : WV_ERR_NOMEM,
                     "wv_map_host: [%p, +%zu) cannot be mapped: %s", host, bytes, why);
  return WV_OK;
}

wv_status wv_unmap_host(wv_vm *vm, void *host) {
  if (!vm) return WV_ERR_INVALID;
  const wv_alloc *a = wv_heap_find(&vm->heap, (uint64_t)(uintptr_t)host);
  if (!host || !a || a->kind != WV_ALLOC_HOSTMAP)
    return wv_seterr(vm, WV_ERR_INVALID, "wv_unmap_host: %p is not the start of a mapping made by wv_map_host", host);
  wv_heap_free(&vm->heap, (uint64_t)(uintptr_t)host); /* the memory stays the caller's */
  return WV_OK;
}

wv_status wv_pointer_query(wv_vm *vm, wv_devptr p, wv_devptr *base, size_t *size) {
  if (!vm) return WV_ERR_INVALID;
  const wv_alloc *a = wv_heap_containing(&vm->heap, p);
  if (!a) return WV_ERR_NOT_FOUND;
  if (base) *base = a->base;
  if (size) *size = (size_t)a->size;
  return WV_OK;
}

wv_status wv_set_device_heap(wv_vm *vm, size_t bytes) {
  if (!vm) return WV_ERR_INVALID;
  vm->dheap_limit = bytes ? bytes : WV_DEVICE_HEAP_DEFAULT;
  return WV_OK;
}

wv_status wv_set_stack_limit(wv_vm *vm, size_t bytes) {
  if (!vm || bytes > 0xffffffffu) return WV_ERR_INVALID;
  vm->stack_limit = bytes ? (uint32_t)bytes : WV_STACK_DEFAULT;
  return WV_OK;
}

static uint8_t *range(wv_vm *vm, wv_devptr p, size_t n, const char *what) {
  uint8_t *h = wv_heap_lookup(&vm->heap, p, n);
  if (!h) wv_seterr(vm, WV_ERR_INVALID, "%s: [0x%llx, +%zu) is not inside one allocation", what, (unsigned long long)p, n);
  return h;
}

wv_status wv_memset(wv_vm *vm, wv_devptr dst, int value, size_t bytes) {
  if (!vm) return WV_ERR_INVALID;
  uint8_t *h = range(vm, dst, bytes, "wv_memset");
  if (!h) return WV_ERR_INVALID;
  memset(h, value, bytes);
  return WV_OK;
}

wv_status wv_memcpy_htod(wv_vm *vm, wv_devptr dst, const void *src, size_t bytes) {
  if (!vm || (!src && bytes)) return WV_ERR_INVALID;
  uint8_t *h = range(vm, dst, bytes, "wv_memcpy_htod");
  if (!h) return WV_ERR_INVALID;
  if (bytes) memcpy(h, src, bytes);
  return WV_OK;
}

wv_status wv_memcpy_dtoh(wv_vm *vm, void *dst, wv_devptr src, size_t bytes) {
  if (!vm || (!dst && bytes)) return WV_ERR_INVALID;
  uint8_t *h = range(vm, src, bytes, "wv_memcpy_dtoh");
  if (!h) return WV_ERR_INVALID;
  if (bytes) memcpy(dst, h, bytes);
  return WV_OK;
}

wv_status wv_memcpy_dtod(wv_vm *vm, wv_devptr dst, wv_devptr src, size_t bytes) {
  if (!vm) return WV_ERR_INVALID;
  uint8_t *d = range(vm, dst, bytes, "wv_memcpy_dtod"), *s = d ? range(vm, src, bytes, "wv_memcpy_dtod") : NULL;
  if (!d || !s) return WV_ERR_INVALID;
  if (bytes) memmove(d, s, bytes);
  return WV_OK;
}

/* ---- launch ---- */

wv_status wv_launch(wv_vm *vm, const wv_kernel *k, wv_dim3 grid, wv_dim3 block, uint32_t shared_bytes, void **args) {
  return wv_launch_ex(vm, k, grid, block, shared_bytes, args, 0);
}

uint32_t wv_max_coop_blocks(const wv_kernel *k, wv_dim3 block, uint32_t shared_bytes) {
  if (!k) return 0;
  uint32_t b[3] = {block.x, block.y, block.z};
  return wv_exec_coop_limit(k->fn, b, shared_bytes);
}

wv_status wv_launch_ex(wv_vm *vm, const wv_kernel *k, wv_dim3 grid, wv_dim3 block, uint32_t shared_bytes, void **args,
                       uint32_t flags) {
  if (!vm || !k) return WV_ERR_INVALID;
  if (flags & ~(WV_LAUNCH_COOPERATIVE | WV_LAUNCH_NONPORTABLE_CLUSTER | WV_LAUNCH_CLUSTER(0xff, 0xff, 0xff))) return wv_seterr(vm, WV_ERR_INVALID, "wv_launch_ex: unknown flags 0x%x", flags);
  if (k->mod->vm != vm) return wv_seterr(vm, WV_ERR_INVALID, "kernel '%s' belongs to another vm", k->fn->name);
  const wv_func *fn = k->fn;
  const char *unsup = wv_exec_unsupported(&k->mod->ir, fn);
  if (unsup) return wv_seterr(vm, WV_ERR_UNSUPPORTED, "%s (kernel '%s' cannot run)", unsup, fn->name);
  uint32_t size = 0;
  for (uint32_t i = 0; i < fn->nparams; i++) {
    uint32_t end = fn->params[i].offset + fn->params[i].size;
    if (end > size) size = end;
    if (!args || !args[i]) return wv_seterr(vm, WV_ERR_INVALID, "argument %u of kernel '%s' is missing", i, fn->name);
  }
  uint8_t *buf = calloc(1, size + 8);
  if (!buf) return wv_seterr(vm, WV_ERR_NOMEM, "out of memory");
  for (uint32_t i = 0; i < fn->nparams; i++) memcpy(buf + fn->params[i].offset, args[i], fn->params[i].size);
  uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  vm->err[0] = 0;
  wv_status st = wv_exec_launch(vm, k->mod, fn, g, b, shared_bytes, buf, size, flags);
  free(buf);
  return st;
}

void wv_get_stats(const wv_vm *vm, wv_stats *out) {
  if (vm && out) *out = vm->stats;
}

void wv_stats_reset(wv_vm *vm) {
  if (vm) memset(&vm->stats, 0, sizeof vm->stats);
}
