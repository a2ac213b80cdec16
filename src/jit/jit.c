/*
 * jit.c — the JIT engine's use of LLVM (C API): one ORC LLJIT per vm for the host CPU (its name and features:
 * AVX2/AVX-512 vectors), one LLVM module per PTX function holding its regions, optimised with the new pass
 * manager ("default<O2>") and added under the PTX module's resource tracker, so unloading the module frees
 * its code. Built without LLVM, wv_jit_available() is 0 and nothing compiles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit.h"

#ifndef WV_HAVE_LLVM
int wv_jit_available(void) { return 0; }
wv_jit *wv_jit_new(char *err, size_t errlen) {
  snprintf(err, errlen, "warpvm was built without LLVM; the JIT is unavailable");
  return NULL;
}
void wv_jit_free(wv_jit *j) { (void)j; }
wv_jit_mod *wv_jit_mod_new(wv_jit *j, const wv_irmod *m) { (void)j, (void)m; return NULL; }
void wv_jit_mod_free(wv_jit *j, wv_jit_mod *jm) { (void)j, (void)jm; }
int wv_jit_compile(wv_jit *j, wv_jit_mod *jm, uint32_t fi, wv_jit_stats *st, char *err, size_t errlen) {
  (void)j, (void)jm, (void)fi, (void)st;
  snprintf(err, errlen, "warpvm was built without LLVM; the JIT is unavailable");
  return -1;
}
int wv_jit_compiled(const wv_jit_mod *jm, uint32_t fi) { (void)jm, (void)fi; return 0; }
const wv_jit_code *const *wv_jit_table(const wv_jit_mod *jm) { (void)jm; return NULL; }
#else
#include <pthread.h>

#include <llvm-c/Core.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "exec/sched.h"
#include "jit/emit.h"

#define MIN_REGION 2 /* instructions: a shorter run is not worth a call */

struct wv_jit {
  LLVMOrcLLJITRef lljit;
  LLVMTargetMachineRef tm; /* the host's, for the optimiser's cost model and the data layout */
  char *triple, *cpu, *features;
  uint64_t serial;         /* unique symbol names */
};

typedef struct jfunc {
  wv_jit_code code;
  uint16_t *len;
  wv_jit_entry *entry;
} jfunc;

struct wv_jit_mod {
  const wv_irmod *m;
  LLVMOrcResourceTrackerRef rt;
  jfunc *f;                 /* per function */
  uint8_t *done;            /* per function: compiled (or found nothing to compile) */
  const wv_jit_code **table;/* per function: &f[i].code once it has regions */
};

int wv_jit_available(void) { return 1; }

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_ok;
static void init_llvm(void) {
  init_ok = !LLVMInitializeNativeTarget() && !LLVMInitializeNativeAsmPrinter();
}

static void take_error(LLVMErrorRef e, char *err, size_t errlen) {
  char *m = LLVMGetErrorMessage(e);
  snprintf(err, errlen, "LLVM: %s", m);
  LLVMDisposeErrorMessage(m);
}

wv_jit *wv_jit_new(char *err, size_t errlen) {
  pthread_once(&init_once, init_llvm);
  if (!init_ok) {
    snprintf(err, errlen, "LLVM has no target for this host");
    return NULL;
  }
  wv_jit *j = calloc(1, sizeof *j);
  if (!j) return NULL;
  j->triple = LLVMGetDefaultTargetTriple();
  j->cpu = LLVMGetHostCPUName();
  j->features = LLVMGetHostCPUFeatures();
  LLVMTargetRef t;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(j->triple, &t, &msg)) {
    snprintf(err, errlen, "LLVM: %s", msg ? msg : "no target");
    LLVMDisposeMessage(msg);
    wv_jit_free(j);
    return NULL;
  }
  j->tm = LLVMCreateTargetMachine(t, j->triple, j->cpu, j->features, LLVMCodeGenLevelDefault, LLVMRelocDefault,
                                  LLVMCodeModelJITDefault);
  LLVMOrcJITTargetMachineBuilderRef jtmb;
  LLVMErrorRef e = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
  if (e) {
    take_error(e, err, errlen);
    wv_jit_free(j);
    return NULL;
  }
  LLVMOrcLLJITBuilderRef b = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(b, jtmb);
  if ((e = LLVMOrcCreateLLJIT(&j->lljit, b))) {
    take_error(e, err, errlen);
    j->lljit = NULL;
    wv_jit_free(j);
    return NULL;
  }
  return j;
}

void wv_jit_free(wv_jit *j) {
  if (!j) return;
  if (j->lljit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(j->lljit);
    if (e) LLVMConsumeError(e);
  }
  if (j->tm) LLVMDisposeTargetMachine(j->tm);
  LLVMDisposeMessage(j->triple);
  LLVMDisposeMessage(j->cpu);
  LLVMDisposeMessage(j->features);
  free(j);
}

wv_jit_mod *wv_jit_mod_new(wv_jit *j, const wv_irmod *m) {
  wv_jit_mod *jm = calloc(1, sizeof *jm);
  if (!jm) return NULL;
  jm->m = m;
  jm->f = calloc(m->nfuncs + 1, sizeof *jm->f);
  jm->done = calloc(m->nfuncs + 1, 1);
  jm->table = calloc(m->nfuncs + 1, sizeof *jm->table);
  jm->rt = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(j->lljit));
  if (!jm->f || !jm->done || !jm->table) {
    wv_jit_mod_free(j, jm);
    return NULL;
  }
  return jm;
}

void wv_jit_mod_free(wv_jit *j, wv_jit_mod *jm) {
  (void)j;
  if (!jm) return;
  if (jm->rt) {
    LLVMErrorRef e = LLVMOrcResourceTrackerRemove(jm->rt);
    if (e) LLVMConsumeError(e);
    LLVMOrcReleaseResourceTracker(jm->rt);
  }
  for (uint32_t i = 0; jm->f && i < jm->m->nfuncs; i++) {
    free(jm->f[i].len);
    free(jm->f[i].entry);
  }
  free(jm->f);
  free(jm->done);
  free(jm->table);
  free(jm);
}

int wv_jit_compiled(const wv_jit_mod *jm, uint32_t fi) { return jm->done[fi]; }
const wv_jit_code *const *wv_jit_table(const wv_jit_mod *jm) { return jm->table; }

int wv_jit_compile(wv_jit *j, wv_jit_mod *jm, uint32_t fi, wv_jit_stats *st, char *err, size_t errlen) {
  if (jm->done[fi]) return 0;
  const wv_func *f = &jm->m->funcs[fi];
  double t0 = wv_now();
  jfunc *jf = &jm->f[fi];
  uint32_t n = f->ncode;
  jf->len = calloc(n + 1, sizeof *jf->len);
  jf->entry = calloc(n + 1, sizeof *jf->entry);
  if (!jf->len || !jf->entry) {
    snprintf(err, errlen, "out of host memory");
    return -1;
  }
  jm->done[fi] = 1;
  uint32_t nreg = f->defined && f->code ? wv_jit_regions(f, MIN_REGION, jf->len) : 0;
  if (!nreg) {
    st->functions++;
    st->seconds += wv_now() - t0;
    return 0;
  }
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef c = LLVMOrcThreadSafeContextGetContext(tsc);
  uint64_t id = j->serial++;
  char name[64];
  snprintf(name, sizeof name, "wv_f%llu", (unsigned long long)id);
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext(name, c);
  LLVMSetTarget(mod, j->triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(j->tm);
  LLVMSetModuleDataLayout(mod, td);
  LLVMDisposeTargetData(td);
  uint64_t insns = 0;
  for (uint32_t pc = 0; pc < n; pc++) {
    if (!jf->len[pc]) continue;
    snprintf(name, sizeof name, "wv_f%llu_%u", (unsigned long long)id, pc);
    LLVMValueRef fn = wv_jit_emit_region(c, mod, name, f, pc, jf->len[pc]);
    (void)fn;
    insns += jf->len[pc];
  }
  char *msg = NULL;
  if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
    snprintf(err, errlen, "JIT: invalid code for '%s': %.300s", f->name, msg ? msg : "");
    LLVMDisposeMessage(msg);
    LLVMDisposeModule(mod);
    LLVMOrcDisposeThreadSafeContext(tsc);
    memset(jf->len, 0, n * sizeof *jf->len);
    return -1;
  }
  LLVMDisposeMessage(msg);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(mod, "default<O2>", j->tm, po);
  LLVMDisposePassBuilderOptions(po);
  const char *dump = getenv("WARPVM_JIT_DUMP"); /* a developer's look: "ir" or "asm" of every compiled function */
  if (!e && dump && !strcmp(dump, "ir")) LLVMDumpModule(mod);
  if (!e && dump && !strcmp(dump, "asm")) {
    LLVMMemoryBufferRef mb;
    char *m2 = NULL;
    if (!LLVMTargetMachineEmitToMemoryBuffer(j->tm, mod, LLVMAssemblyFile, &m2, &mb)) {
      fwrite(LLVMGetBufferStart(mb), 1, LLVMGetBufferSize(mb), stderr);
      LLVMDisposeMemoryBuffer(mb);
    }
    LLVMDisposeMessage(m2);
  }
  if (!e) {
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc);
    e = LLVMOrcLLJITAddLLVMIRModuleWithRT(j->lljit, jm->rt, tsm);
    if (e) LLVMOrcDisposeThreadSafeModule(tsm);
  } else {
    LLVMDisposeModule(mod);
  }
  LLVMOrcDisposeThreadSafeContext(tsc);
  for (uint32_t pc = 0; !e && pc < n; pc++) {
    if (!jf->len[pc]) continue;
    LLVMOrcExecutorAddress a;
    snprintf(name, sizeof name, "wv_f%llu_%u", (unsigned long long)id, pc);
    e = LLVMOrcLLJITLookup(j->lljit, &a, name);
    if (!e) jf->entry[pc] = (wv_jit_entry)(uintptr_t)a;
  }
  if (e) {
    take_error(e, err, errlen);
    memset(jf->len, 0, n * sizeof *jf->len);
    return -1;
  }
  jf->code = (wv_jit_code){.ncode = n, .len = jf->len, .entry = jf->entry};
  jm->table[fi] = &jf->code;
  st->functions++;
  st->regions += nreg;
  st->insns += insns;
  st->seconds += wv_now() - t0;
  return 0;
}
#endif
