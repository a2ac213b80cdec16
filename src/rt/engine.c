/*
 * engine.c — which engine runs a launch's plain instructions (wv_config.engine, README "Engines"): the
 * interpreter, or compiled code from the JIT (src/jit) for the kernel and every function it calls, compiled
 * at the first launch that runs them and kept with their module. auto compiles a kernel once a launch of it
 * has at least AUTO_THREADS threads (a small launch is over before its compilation would be); profiling and
 * the AMD machines always interpret. Compiled functions are kept on disk (src/jit/cache.c) unless
 * wv_config.no_jit_cache or WARPVM_JIT_CACHE=0 says not to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cache.h"
#include "jit/jit.h"
#include "rt/vm_internal.h"

#define AUTO_THREADS 65536u

int wv_engine_parse(const char *name) {
  if (!name || !*name || !strcmp(name, "auto")) return WV_ENGINE_AUTO;
  if (!strcmp(name, "interp")) return WV_ENGINE_INTERP;
  if (!strcmp(name, "jit")) return WV_ENGINE_JIT;
  return -1;
}

/* Compile f and every function its calls may enter (depth first, each once). */
static int compile_reach(wv_vm *vm, wv_jit_mod *jm, const wv_irmod *m, uint32_t fi, uint8_t *seen) {
  if (seen[fi]) return 0;
  seen[fi] = 1;
  wv_jit_stats st = {0};
  char err[512];
  if (wv_jit_compile(vm->jit, jm, fi, &st, err, sizeof err) && vm->engine == WV_ENGINE_JIT)
    fprintf(stderr, "warpvm: %s (the interpreter runs it)\n", err); /* a bug of the JIT: never a wrong result */
  vm->stats.jit_seconds += st.seconds;
  vm->stats.jit_functions += st.functions;
  vm->stats.jit_regions += st.regions;
  vm->stats.jit_instructions += st.insns;
  vm->stats.jit_cached += st.cached;
  const wv_func *f = &m->funcs[fi];
  for (uint32_t pc = 0; f->code && pc < f->ncode; pc++) {
    if (f->code[pc].ctl != WV_CTL_CALL) continue;
    uint32_t c;
    for (uint32_t k = 0; wv_call_target(m, &f->code[pc], k, &c); k++)
      if (compile_reach(vm, jm, m, c, seen)) return -1;
  }
  return 0;
}

const struct wv_jit_code *const *wv_engine_prepare(wv_vm *vm, struct wv_module *mod, const wv_func *kfn, uint64_t threads) {
  if (vm->engine == WV_ENGINE_INTERP || vm->cfg.profile || vm->amd) return NULL;
  uint32_t fi = (uint32_t)(kfn - mod->ir.funcs);
  int known = mod->jit && wv_jit_compiled(mod->jit, fi);
  if (vm->engine == WV_ENGINE_AUTO && !known && threads < AUTO_THREADS) return NULL;
  if (!wv_jit_available()) return NULL; /* (asked only here: it opens LLVM) */
  if (!vm->jit) {
    char err[512], dir[4096];
    const char *env = getenv("WARPVM_JIT_CACHE");
    int cache = !vm->cfg.no_jit_cache && !(env && !strcmp(env, "0")) && !wv_jit_cache_dir(dir, sizeof dir);
    if (!(vm->jit = wv_jit_new(cache ? dir : NULL, vm->nthreads, err, sizeof err))) return NULL; /* the interpreter runs it */
  }
  if (!mod->jit && !(mod->jit = wv_jit_mod_new(vm->jit, &mod->ir))) return NULL;
  if (!known) {
    uint8_t *seen = calloc(mod->ir.nfuncs + 1, 1);
    if (!seen) return NULL;
    int bad = compile_reach(vm, mod->jit, &mod->ir, fi, seen);
    free(seen);
    if (bad) return NULL;
  }
  return wv_jit_table(mod->jit);
}

void wv_engine_forget(wv_vm *vm, struct wv_module *mod) {
  if (mod->jit) wv_jit_mod_free(vm->jit, mod->jit);
  mod->jit = NULL;
}

void wv_engine_fini(wv_vm *vm) {
  wv_jit_free(vm->jit);
  vm->jit = NULL;
}

int wv_has_jit(void) { return wv_jit_available(); }

const char *wv_jit_unavailable(char *buf, size_t cap) { return wv_llvm_load(buf, cap) ? buf : NULL; }
