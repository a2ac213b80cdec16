/*
 * engine.c — which engine runs a launch's plain instructions (wv_config.engine, README "Engines"): the
 * interpreter, or compiled code from the JIT (src/jit) for the kernel and every function it calls, kept with
 * their module. jit compiles them before the first launch that runs them. auto compiles a kernel once its launches
 * have run in the interpreter as long as compiling it would take (struct wv_auto: a small program is over before
 * its compilation would be; a program of many short launches of it is not), on a thread beside the launch that
 * gets there: the launch's warps take a function's code at their next turn once it is there (sched.c), which
 * changes nothing they compute (the engines are exact). Profiling and
 * the AMD machines always interpret. Compiled functions are kept on disk (src/jit/cache.c)
 * unless wv_config.no_jit_cache or WARPVM_JIT_CACHE=0 says not to.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/sched.h" /* wv_now */
#include "jit/cache.h"
#include "jit/jit.h"
#include "rt/vm_internal.h"

#define AUTO_THREADS 65536u /* a launch this large has a thread beside it from its first (below) */
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

/* f and every function its calls may enter (depth first, each once), each visited; a visit's -1 stops the walk. */
static int reach(const wv_irmod *m, uint32_t fi, uint8_t *seen, int (*visit)(void *, uint32_t), void *arg) {
  if (seen[fi]) return 0;
  seen[fi] = 1;
  if (visit(arg, fi)) return -1;
  const wv_func *f = &m->funcs[fi];
  for (uint32_t pc = 0; f->code && pc < f->ncode; pc++) {
    if (f->code[pc].ctl != WV_CTL_CALL) continue;
    uint32_t c;
    for (uint32_t k = 0; wv_call_target(m, &f->code[pc], k, &c); k++)
      if (reach(m, c, seen, visit, arg)) return -1;
  }
  return 0;
}

static int walk(struct wv_module *mod, uint32_t fi, int (*visit)(void *, uint32_t), void *arg) {
  uint8_t *seen = calloc(mod->ir.nfuncs + 1, 1);
  if (!seen) return -1;
  int bad = reach(&mod->ir, fi, seen, visit, arg);
  free(seen);
  return bad;
}

typedef struct compiling {
  wv_jit *j;
  struct wv_module *mod;
  wv_jit_stats *st;
  int loud; /* say where the JIT failed (the interpreter runs what it did not compile) */
  double cost;
} compiling;

static int compile_one(void *arg, uint32_t fi) {
  compiling *c = arg;
  char err[512];
  if (wv_jit_compile(c->j, c->mod->jit, fi, c->st, err, sizeof err) && c->loud)
    fprintf(stderr, "warpvm: %s (the interpreter runs it)\n", err); /* a bug of the JIT: never a wrong result */
  return 0;
}

/* Compile kernel fi and what it calls, adding to st. */
static int compile_all(wv_jit *j, struct wv_module *mod, uint32_t fi, wv_jit_stats *st, int loud) {
  compiling c = {.j = j, .mod = mod, .st = st, .loud = loud};
  return walk(mod, fi, compile_one, &c);
}

static int cost_one(void *arg, uint32_t fi) {
  compiling *c = arg;
  c->cost += wv_jit_cost(c->j, c->mod->jit, fi);
  return 0;
}

/* The estimate of compile_all's time (0: all of it linked or on disk); HUGE_VAL where it cannot be asked. */
static double cost_all(wv_jit *j, struct wv_module *mod, uint32_t fi) {
  compiling c = {.j = j, .mod = mod};
  return walk(mod, fi, cost_one, &c) ? HUGE_VAL : c.cost;
}

static void add_stats(wv_stats *s, const wv_jit_stats *st) {
  s->jit_seconds += st->seconds;
  s->jit_functions += st->functions;
  s->jit_regions += st->regions;
  s->jit_instructions += st->insns;
  s->jit_cached += st->cached;
}

/* The vm's JIT, made by the first launch that compiles (or by engine auto's thread, while no other uses it); NULL:
 * none (LLVM does not load, or out of memory). */
static wv_jit *jit_of(wv_vm *vm) {
  if (!vm->jit && wv_jit_available()) { /* (wv_jit_available opens LLVM) */
    char err[512], dir[4096];
    const char *env = getenv("WARPVM_JIT_CACHE");
    int cache = !vm->cfg.no_jit_cache && !(env && !strcmp(env, "0")) && !wv_jit_cache_dir(dir, sizeof dir);
    vm->jit = wv_jit_new(cache ? dir : NULL, vm->nthreads, err, sizeof err); /* (NULL: the interpreter runs it) */
  }
  return vm->jit;
}

/* ---- engine auto's thread ----
 * A launch of a kernel not compiled yet, of AUTO_THREADS threads or more or of a kernel whose launches have run
 * AUTO_LOOK in the interpreter (and, where the estimate is made, as long as it), starts in the interpreter with a
 * thread beside it. The thread waits until the
 * kernel's launches, this one included, have run AUTO_LOOK; then it opens LLVM and estimates the compilation
 * (struct wv_auto); once they have run that long too, it compiles the kernel and what it calls. The launch's warps
 * take the code as it appears (sched.c take_code). At its end the launch stops the thread where it has not begun to
 * compile, else waits for it (wv_engine_end): no compilation outlives its launch, so a program's next launch finds
 * the code made, and none is left compiling when the program exits (LLVM's static objects go away then; a version
 * whose thread went on across launches crashed programs that ended while it compiled). A launch over before its
 * kernel would pay for compiling it compiles nothing, and does not open LLVM. */
struct wv_engine_bg {
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  wv_vm *vm;
  struct wv_module *mod;
  uint32_t fi;
  double start, before; /* when the launch started; the kernel's launches' seconds in the interpreter before it */
  int ended;            /* the launch is over: give up unless compiling */
  int compiled;         /* it compiled (from then the launch did not run in the interpreter only) */
  wv_jit_stats st;
};

/* Until the kernel's launches, this one included, have run `seconds` in the interpreter; 1: the launch ended first. */
static int bg_until(struct wv_engine_bg *b, double seconds) {
  pthread_mutex_lock(&b->mu);
  for (double left; !b->ended && (left = b->start + seconds - b->before - wv_now()) > 0;) {
    struct timespec ts; /* (pthread_cond_timedwait's clock) */
    clock_gettime(CLOCK_REALTIME, &ts);
    double ns = (double)ts.tv_nsec + left * 1e9;
    ts.tv_sec += (time_t)(ns / 1e9);
    ts.tv_nsec = (long)fmod(ns, 1e9);
    pthread_cond_timedwait(&b->cv, &b->mu, &ts);
  }
  int ended = b->ended;
  pthread_mutex_unlock(&b->mu);
  return ended;
}

/* 1: the launch has ended; else from now it waits for the compilation (b->compiled). */
static int bg_begin(struct wv_engine_bg *b) {
  pthread_mutex_lock(&b->mu);
  int ended = b->ended;
  b->compiled = !ended;
  pthread_mutex_unlock(&b->mu);
  return ended;
}

static void *bg_main(void *arg) {
  struct wv_engine_bg *b = arg;
  struct wv_auto *a = &b->mod->autos[b->fi]; /* (the launch's thread reads it once this one has ended) */
  if (a->cost < 0) {
    if (bg_until(b, AUTO_LOOK)) return NULL;
    wv_jit *j = jit_of(b->vm);
    a->cost = j ? cost_all(j, b->mod, b->fi) : HUGE_VAL; /* (HUGE_VAL: never) */
  }
  if (a->cost == HUGE_VAL || bg_until(b, a->cost) || bg_begin(b)) return NULL;
  compile_all(b->vm->jit, b->mod, b->fi, &b->st, 0);
  return NULL;
}

/* The end of the launch of engine auto's thread: the thread stops, or finishes compiling. 1: there was one, and it
 * did not compile (the launch ran in the interpreter only). */
static int settle(wv_vm *vm) {
  struct wv_engine_bg *b = vm->bg;
  if (!b) return 0;
  pthread_mutex_lock(&b->mu);
  b->ended = 1;
  pthread_cond_signal(&b->cv);
  pthread_mutex_unlock(&b->mu);
  pthread_join(b->th, NULL);
  add_stats(&vm->stats, &b->st);
  int interpreted = !b->compiled;
  pthread_cond_destroy(&b->cv);
  pthread_mutex_destroy(&b->mu);
  free(b);
  vm->bg = NULL;
  return interpreted;
}

void wv_engine_end(wv_vm *vm, struct wv_module *mod, const wv_func *kfn, double seconds, int interpreted) {
  if (vm->bg) interpreted = settle(vm); /* (the thread was this launch's) */
  if (interpreted && mod->autos) mod->autos[kfn - mod->ir.funcs].seconds += seconds;
}

/* engine auto's thread for a launch of kernel fi of mod (vm->bg); -1: none could be started. */
static int bg_start(wv_vm *vm, struct wv_module *mod, uint32_t fi) {
  struct wv_engine_bg *b = calloc(1, sizeof *b);
  if (!b) return -1;
  *b = (struct wv_engine_bg){.vm = vm, .mod = mod, .fi = fi, .start = wv_now(), .before = mod->autos[fi].seconds};
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->cv, NULL);
  if (pthread_create(&b->th, NULL, bg_main, b)) {
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
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
  if (vm->engine == WV_ENGINE_AUTO && !(mod->jit && wv_jit_compiled(mod->jit, fi))) {
    if (!mod->autos) {
      if (!(mod->autos = calloc(mod->ir.nfuncs + 1, sizeof *mod->autos))) return NULL;
      for (uint32_t i = 0; i <= mod->ir.nfuncs; i++) mod->autos[i].cost = -1;
    }
    struct wv_auto *a = &mod->autos[fi];
    /* (the module's table without LLVM: wv_jit_mod_new needs none, and vm->jit may be made by the thread) */
    if (!mod->jit && !(mod->jit = wv_jit_mod_new(vm->jit, &mod->ir))) return NULL;
    /* LLVM open already (a kernel compiled before): the estimate is asked at the kernel's first launch, and code
     * that is linked or on disk (a program's second run) loads now, below, instead of after 20 ms interpreted */
    if (a->cost < 0 && vm->jit) a->cost = cost_all(vm->jit, mod, fi);
    if (a->cost != 0) {
      /* (a small launch has no thread while the estimate is known and not reached: a program of many launches
       * of a few microseconds would pay for a thread at each) */
      if (a->cost == HUGE_VAL ||
          (threads < AUTO_THREADS && (a->seconds < AUTO_LOOK || (a->cost >= 0 && a->seconds < a->cost))))
        return NULL;
      if (bg_start(vm, mod, fi)) return NULL;
      *late = 1;
      return wv_jit_table(mod->jit);
    }
  }
  if (!jit_of(vm)) return NULL;
  if (!mod->jit && !(mod->jit = wv_jit_mod_new(vm->jit, &mod->ir))) return NULL;
  if (!wv_jit_compiled(mod->jit, fi)) {
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
