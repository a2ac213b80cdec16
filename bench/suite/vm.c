/*
 * vm.c — a benchmark case on warpvm, through the public C API (include/warpvm.h): load the case's
 * PTX, upload its inputs, launch it, read its outputs. One vm per process, with the thread count the
 * run asks for.
 */
#include <stdio.h>
#include <stdlib.h>

#include "suite.h"
#include "warpvm.h"

/* The one place that asks warpvm for worker threads (issue 11, "All cores"). bench/CMakeLists.txt
 * defines WV_BENCH_THREADS_FIELD when wv_config has the field it names (adjust the name there). */
#ifdef WV_BENCH_THREADS_FIELD
#define BS_SET_THREADS(cfg, n) ((cfg).WV_BENCH_THREADS_FIELD = (n))
int bs_vm_threads_supported(void) { return 1; }
#else
#define BS_SET_THREADS(cfg, n) ((void)(cfg), (void)(n))
int bs_vm_threads_supported(void) { return 0; }
#endif

struct bs_vm {
  wv_vm *vm;
  const bs_case *c;
  wv_module *m;
  const wv_kernel *k;
  wv_devptr dev[BS_MAX_BUFS];
};

static int fail(const bs_vm *v, const char *what, wv_status st, char *err, size_t errlen) {
  snprintf(err, errlen, "warpvm: %s: %s: %s", what, wv_status_name(st), wv_last_error(v->vm));
  return -1;
}

int bs_vm_has_jit(void) { return wv_has_jit(); }

bs_vm *bs_vm_open(uint32_t threads, const char *engine, char *err, size_t errlen) {
  bs_vm *v = calloc(1, sizeof *v);
  wv_config cfg = {0};
  BS_SET_THREADS(cfg, threads);
  cfg.engine = engine;
  if (!v || !(v->vm = wv_create(&cfg))) {
    snprintf(err, errlen, "warpvm: cannot create a vm");
    free(v);
    return NULL;
  }
  return v;
}

void bs_vm_close(bs_vm *v) {
  if (!v) return;
  bs_vm_release(v);
  wv_destroy(v->vm);
  free(v);
}

struct wv_vm *bs_vm_handle(bs_vm *v) { return v->vm; }

int bs_vm_prepare(bs_vm *v, const bs_case *c, const char *dir, const bs_host *h, char *err, size_t errlen) {
  char path[4096];
  wv_status st;
  snprintf(path, sizeof path, "%s/%s.ptx", dir, c->name);
  v->c = c;
  if ((st = wv_module_load_file(v->vm, path, &v->m))) return fail(v, path, st, err, errlen);
  if ((st = wv_kernel_get(v->m, c->name, &v->k))) return fail(v, path, st, err, errlen);
  for (uint32_t i = 0; i < c->nbufs; i++) {
    if ((st = wv_malloc(v->vm, c->bufs[i].bytes, &v->dev[i]))) return fail(v, "wv_malloc", st, err, errlen);
    if ((st = wv_memcpy_htod(v->vm, v->dev[i], h->buf[i], c->bufs[i].bytes)))
      return fail(v, "upload", st, err, errlen);
  }
  return 0;
}

int bs_vm_clear(bs_vm *v, char *err, size_t errlen) {
  for (uint32_t i = 0; i < v->c->nbufs; i++) {
    wv_status st = v->c->bufs[i].fill == 'o' ? wv_memset(v->vm, v->dev[i], 0, v->c->bufs[i].bytes) : WV_OK;
    if (st) return fail(v, "wv_memset", st, err, errlen);
  }
  return 0;
}

int bs_vm_run(bs_vm *v, uint64_t *thread_instructions, char *err, size_t errlen) {
  const bs_case *c = v->c;
  void *args[BS_MAX_ARGS];
  for (uint32_t i = 0; i < c->nargs; i++)
    args[i] = c->args[i].kind == 'b' ? (void *)&v->dev[c->args[i].v] : (void *)&c->args[i].v;
  wv_dim3 g = {c->grid[0], c->grid[1], c->grid[2]}, b = {c->block[0], c->block[1], c->block[2]};
  wv_stats_reset(v->vm);
  wv_status st = wv_launch(v->vm, v->k, g, b, 0, args);
  if (st) return fail(v, c->name, st, err, errlen);
  wv_stats s;
  wv_get_stats(v->vm, &s);
  *thread_instructions = s.thread_instructions;
  return 0;
}

int bs_vm_read(bs_vm *v, void **out, char *err, size_t errlen) {
  for (uint32_t i = 0; i < v->c->nbufs; i++) {
    wv_status st = v->c->bufs[i].fill == 'o' ? wv_memcpy_dtoh(v->vm, out[i], v->dev[i], v->c->bufs[i].bytes) : WV_OK;
    if (st) return fail(v, "download", st, err, errlen);
  }
  return 0;
}

void bs_vm_release(bs_vm *v) {
  for (uint32_t i = 0; i < BS_MAX_BUFS; i++)
    if (v->dev[i]) wv_free(v->vm, v->dev[i]), v->dev[i] = 0;
  if (v->m) wv_module_unload(v->m), v->m = NULL;
  v->k = NULL;
}
