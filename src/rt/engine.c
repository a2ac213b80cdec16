/*
 * engine.c — which engine runs a launch's plain instructions (wv_config.engine, README "Engines"): the
 * interpreter, or compiled code from the JIT (src/jit) for the kernel and every function it calls, kept with
 * their module. jit compiles them before the first launch that runs them. auto compiles a kernel at a launch of
 * AUTO_THREADS threads or more, or once its launches have run as long in the interpreter as compiling it would take
 * (struct wv_auto: a small program is over before its compilation would be; one of many short launches is not),
 * on a thread of its own while that launch goes on in the interpreter: the launch's warps take a function's code at their
 * next turn once it is there (sched.c), which changes nothing they compute (the engines are exact). Profiling and
 * the AMD machines always interpret. Compiled functions are kept on disk (src/jit/cache.c)
 * unless wv_config.no_jit_cache or WARPVM_JIT_CACHE=0 says not to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cache.h"
#include "jit/jit.h"
#include "rt/vm_internal.h"

#define AUTO_THREADS 65536u /* a launch this large starts a compilation */
#define AUTO_LOOK 0.02       /* a kernel's launches that have run this long in the interpreter: what would compiling it
                              * cost? (asked no sooner: it loads LLVM) */

/* A function's launches under engine auto: how long they ran in the interpreter, and the estimate of its compilation
 * (wv_jit_cost; < 0: not made yet). Once the first is as large as the second, the kernel is compiled: a program
 * that keeps launching it spends at most twice what it would with the right choice made at once. */
struct wv_auto {
  double seconds, cost;
};

int wv_engine_parse(const char *name) {
  if (!name || !*name || !strcmp(name, "auto")) return WV_ENGINE_AUTO;
  if (!strcmp(name, "interp")) return WV_ENGINE_INTERP;
  if (!strcmp(name, "jit")) return WV_ENGINE_JIT;
  return -1;
}

/* Compile f and every function its calls may enter (depth first, each once), adding to st; loud: say where the
 * JIT failed (the interpreter runs what it did not compile). */
static int compile_reach(wv_jit *j, wv_jit_mod *jm, const wv_irmod *m, uint32_t fi, uint8_t *seen, wv_jit_stats *st,
                         int loud) {
  if (seen[fi]) return 0;
  seen[fi] = 1;
  char err[512];
  if (wv_jit_compile(j, jm, fi, st, err, sizeof err) && loud)
    fprintf(stderr, "warpvm: %s (the interpreter runs it)\n", err); /* a bug of the JIT: never a wrong result */
  const wv_func *f = &m->funcs[fi];
  for (uint32_t pc = 0; f->code && pc < f->ncode; pc++) {
    if (f->code[pc].ctl != WV_CTL_CALL) continue;
    uint32_t c;
    for (uint32_t k = 0; wv_call_target(m, &f->code[pc], k, &c); k++)
      if (compile_reach(j, jm, m, c, seen, st, loud)) return -1;
  }
  return 0;
}

static int compile_all(wv_jit *j, struct wv_module *mod, uint32_t fi, wv_jit_stats *st, int loud) {
  uint8_t *seen = calloc(mod->ir.nfuncs + 1, 1);
  if (!seen) return -1;
  int bad = compile_reach(j, mod->jit, &mod->ir, fi, seen, st, loud);
  free(seen);
  return bad;
}

static void add_stats(wv_stats *s, const wv_jit_stats *st) {
  s->jit_seconds += st->seconds;
  s->jit_functions += st->functions;
  s->jit_regions += st->regions;
  s->jit_instructions += st->insns;
  s->jit_cached += st->cached;
}

/* ---- engine auto's compiling thread ----
 * A launch that makes a kernel qualify runs in the interpreter while a thread compiles the kernel; the launch's warps
 * take the code as it appears (sched.c), and the launch waits for the thread at its end (wv_engine_end). So no
 * compilation outlives its launch: a program's next launch finds the code made, and none is left compiling when
 * the program exits (LLVM's static objects go away then). */
struct wv_engine_bg {
  pthread_t th;
  wv_jit *jit;
  struct wv_module *mod;
  uint32_t fi;
  wv_jit_stats st;
};

static void *bg_main(void *arg) {
  struct wv_engine_bg *b = arg;
  compile_all(b->jit, b->mod, b->fi, &b->st, 0);
  return NULL;
}

static void settle(wv_vm *vm) {
  struct wv_engine_bg *b = vm->bg;
  if (!b) return;
  pthread_join(b->th, NULL);
  add_stats(&vm->stats, &b->st);
  free(b);
  vm->bg = NULL;
}

void wv_engine_end(wv_vm *vm, struct wv_module *mod, const wv_func *kfn, double interpreted) {
  settle(vm);
  if (mod->autos) mod->autos[kfn - mod->ir.funcs].seconds += interpreted;
}

/* A thread compiling kernel fi of mod (vm->bg); -1: none could be started. */
static int bg_start(wv_vm *vm, struct wv_module *mod, uint32_t fi) {
  struct wv_engine_bg *b = calloc(1, sizeof *b);
  if (!b) return -1;
  *b = (struct wv_engine_bg){.jit = vm->jit, .mod = mod, .fi = fi};
  if (pthread_create(&b->th, NULL, bg_main, b)) {
    free(b);
    return -1;
  }
  vm->bg = b;
  return 0;
}

const struct wv_jit_code *const *wv_engine_prepare(wv_vm *vm, struct wv_module *mod, const wv_func *kfn,
                                                   uint64_t threads, int *late) {
  *late = 0;
  settle(vm); /* (a grid of a grid: its parent's launch has ended) */
  if (vm->engine == WV_ENGINE_INTERP || vm->cfg.profile || vm->amd) return NULL;
  uint32_t fi = (uint32_t)(kfn - mod->ir.funcs);
  int auto_ = vm->engine == WV_ENGINE_AUTO, known = mod->jit && wv_jit_compiled(mod->jit, fi);
  struct wv_auto *a = NULL;
  if (auto_ && !known) { /* (a small program is over before a compilation would be) */
    if (!mod->autos) {
      if (!(mod->autos = calloc(mod->ir.nfuncs + 1, sizeof *mod->autos))) return NULL;
      for (uint32_t i = 0; i <= mod->ir.nfuncs; i++) mod->autos[i].cost = -1;
    }
    a = &mod->autos[fi];
    if (threads < AUTO_THREADS && (a->seconds < AUTO_LOOK || (a->cost >= 0 && a->seconds < a->cost))) return NULL;
  }
  if (!wv_jit_available()) return NULL; /* (asked only here: it opens LLVM) */
  if (!vm->jit) {
    char err[512], dir[4096];
    const char *env = getenv("WARPVM_JIT_CACHE");
    int cache = !vm->cfg.no_jit_cache && !(env && !strcmp(env, "0")) && !wv_jit_cache_dir(dir, sizeof dir);
    if (!(vm->jit = wv_jit_new(cache ? dir : NULL, vm->nthreads, err, sizeof err))) return NULL; /* the interpreter runs it */
  }
  if (!mod->jit && !(mod->jit = wv_jit_mod_new(vm->jit, &mod->ir))) return NULL;
  if (a && threads < AUTO_THREADS && a->cost < 0 && a->seconds < (a->cost = wv_jit_cost(vm->jit, mod->jit, fi)))
    return NULL; /* (compiled once the launches have run as long as that) */
  if (!known) {
    if (auto_ && !bg_start(vm, mod, fi)) {
      *late = 1;
      return wv_jit_table(mod->jit);
    }
    wv_jit_stats st = {0};
    int bad = compile_all(vm->jit, mod, fi, &st, vm->engine == WV_ENGINE_JIT);
    add_stats(&vm->stats, &st);
    if (bad) return NULL;
  }
  return wv_jit_table(mod->jit);
}

void wv_engine_forget(wv_vm *vm, struct wv_module *mod) {
  settle(vm);
  if (mod->jit) wv_jit_mod_free(vm->jit, mod->jit);
  mod->jit = NULL;
  free(mod->autos);
  mod->autos = NULL;
}

void wv_engine_fini(wv_vm *vm) {
  settle(vm);
  wv_jit_free(vm->jit);
  vm->jit = NULL;
}

int wv_has_jit(void) { return wv_jit_available(); }

const char *wv_jit_unavailable(char *buf, size_t cap) { return wv_llvm_load(buf, cap) ? buf : NULL; }
