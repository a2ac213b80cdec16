/*
 * jit.c — the JIT engine's use of LLVM (C API): one ORC LLJIT per vm for the host CPU (its name and features:
 * AVX2/AVX-512 vectors). A PTX function's regions are one LLVM module, optimised with the new pass manager
 * (JIT_PASSES, lighter than default<O2>) and compiled by the host's target machine into an object file in
 * memory, which the LLJIT links. The object is named by the hash of everything its code depends on (key_of): the
 * same function in another module (or another process, through cache.c's files) reuses it, and it stays linked
 * while a loaded module uses it. Built without LLVM, wv_jit_available() is 0 and nothing compiles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit.h"

#ifndef WV_HAVE_LLVM
int wv_jit_available(void) { return 0; }
wv_jit *wv_jit_new(const char *cache_dir, unsigned threads, char *err, size_t errlen) {
  (void)cache_dir, (void)threads;
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
double wv_jit_cost(wv_jit *j, const wv_jit_mod *jm, uint32_t fi) { (void)j, (void)jm, (void)fi; return 0; }
const wv_jit_code *const *wv_jit_table(const wv_jit_mod *jm) { (void)jm; return NULL; }
#else
#include <pthread.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Support.h>
#include <llvm-c/Analysis.h>
#include <stddef.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "exec/sched.h"
#include "jit/cache.h"
#include "jit/emit.h"
#include "jit/perfjit.h"
#include "jit_source.h" /* WV_JIT_SOURCE (generated: cmake/jit_source.cmake) */

#define MIN_REGION 2 /* instructions, but for a lone ld/st (select.c): compiled, one st.shared beats its handler
                      * (scan 44 -> 34 ms); a lone add does not pay for its compile time */
#define CODEGEN_LEVEL LLVMCodeGenLevelDefault
/* The optimisation of a region: what its straight-line vector code needs of default<O2> (which took 40% of a
 * compile): SROA for the allocas, CSE and GVN for the register and address values used again, instcombine and
 * simplifycfg, LICM for the loops a region's compiled branches make, DSE and ADCE for the stores and values a
 * later one overwrites. Measured on the benchmark's eight kernels (opt and llc on WARPVM_JIT_DUMP=ir0, cachegrind):
 * 6.0e9 instructions with default<O2>, 4.9e9 with this; their code as fast (wv_suite, three processes each). */
#define JIT_PASSES "function(sroa,early-cse<memssa>,instcombine,simplifycfg,loop-mssa(licm),gvn,dse,adce)"
/* this build's code generation: the hash of its sources (not the time of the build, so that builds of the same
 * sources share the cache: the normal and the sanitizer build's tests) and the LLVM it was built against */
#define JIT_FORMAT "warpvm-jit-2 " WV_JIT_SOURCE " LLVM " LLVM_VERSION_STRING

/* A compiled function's object, linked under its own resource tracker while some module uses it. */
typedef struct jobj {
  uint64_t key[2];
  LLVMOrcResourceTrackerRef rt;
  uint32_t refs;
} jobj;

struct wv_jit {
  LLVMOrcLLJITRef lljit;
  LLVMTargetRef target;
  LLVMTargetMachineRef tm[WV_JIT_MAX_THREADS]; /* the host's, one per compiling thread (made when first needed):
                                                * the optimiser's cost model, the data layout, the code */
  unsigned threads;        /* that compile a function's regions at once */
  char *triple, *cpu, *features;
  char *cache;             /* cache.c's folder, NULL: none */
  jobj *objs;
  uint32_t nobjs, capobjs;
  wv_perfjit perf;         /* WARPVM_JIT_PERFMAP=1: the jitdump (perfjit.c) */
};

typedef struct jfunc {
  wv_jit_code code;
  uint16_t *len;
  wv_jit_entry *entry;
  int32_t obj;              /* its jobj, -1: none */
} jfunc;

struct wv_jit_mod {
  const wv_irmod *m;
  uint32_t nfuncs;
  jfunc *f;                 /* per function */
  uint8_t *done;            /* per function: compiled (or found nothing to compile) */
  const wv_jit_code **table;/* per function: &f[i].code once it has regions */
};

int wv_jit_available(void) { return !wv_llvm_load(NULL, 0); } /* (wv_llvm_load: 0 too where LLVM is linked) */

/* LLVM for the process, once: the host's target, and options of its code generator (LLVM keeps them in globals; a
 * second setting of one is an error that exits). The scheduler's alias map of a basic block is cut down past 100
 * memory operations, not 1000: building it is quadratic in them, and a long region with many checks has thousands
 * (its stores before each bail-out). The corpus's tiles_partition took 17.7 s to compile on one thread, 7.2-9.7 s
 * with this (11.0 against 4.8 s on two); hotspot and the benchmark's kernels ran as fast either way. */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_ok;
static void init_llvm(void) {
  const char *args[] = {"warpvm", "-dag-maps-huge-region=100"};
  LLVMParseCommandLineOptions(2, args, NULL);
  init_ok = !LLVMInitializeNativeTarget() && !LLVMInitializeNativeAsmPrinter();
}

static void take_error(LLVMErrorRef e, char *err, size_t errlen) {
  char *m = LLVMGetErrorMessage(e);
  snprintf(err, errlen, "LLVM: %s", m);
  LLVMDisposeErrorMessage(m);
}

wv_jit *wv_jit_new(const char *cache_dir, unsigned threads, char *err, size_t errlen) {
  if (wv_llvm_load(err, errlen)) return NULL; /* (nothing of LLVM is called before) */
  pthread_once(&init_once, init_llvm);
  if (!init_ok) {
    snprintf(err, errlen, "LLVM has no target for this host");
    return NULL;
  }
  wv_jit *j = calloc(1, sizeof *j);
  if (!j) return NULL;
  j->triple = LLVMGetDefaultTargetTriple();
  /* WARPVM_JIT_CPU: code for that CPU (LLVM's name, e.g. haswell: AVX2 without AVX-512) instead of the host's, as
   * the tests run the code made for other machines on this one */
  const char *cpu = getenv("WARPVM_JIT_CPU");
  j->cpu = cpu && *cpu ? LLVMCreateMessage(cpu) : LLVMGetHostCPUName();
  j->features = cpu && *cpu ? LLVMCreateMessage("") : LLVMGetHostCPUFeatures();
  if (!strncmp(j->triple, "x86_64", 6)) {
    /* gathers as the CPU's own instruction where it has AVX2 but not AVX-512 (LLVM makes llvm.masked.gather a branch
     * and a load per lane there, where it does not tune for a fast gather: Haswell, Zen 1-3): 5-8 times the code to
     * select and allocate registers for (matmul's regions took 1.26 s instead of 0.29 s with llc -mcpu=haswell) */
    size_t n = strlen(j->features);
    char *f = malloc(n + 16);
    if (f) {
      snprintf(f, n + 16, "%s%s+fast-gather", j->features, n ? "," : "");
      LLVMDisposeMessage(j->features);
      j->features = LLVMCreateMessage(f);
      free(f);
    }
  }
  LLVMTargetRef t;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(j->triple, &t, &msg)) {
    snprintf(err, errlen, "LLVM: %s", msg ? msg : "no target");
    LLVMDisposeMessage(msg);
    wv_jit_free(j);
    return NULL;
  }
  j->target = t;
  j->threads = threads < 1 ? 1 : threads > WV_JIT_MAX_THREADS ? WV_JIT_MAX_THREADS : threads;
  if (!(j->tm[0] = LLVMCreateTargetMachine(t, j->triple, j->cpu, j->features, CODEGEN_LEVEL, LLVMRelocDefault,
                                           LLVMCodeModelJITDefault))) {
    snprintf(err, errlen, "LLVM: no target machine for %s", j->cpu);
    wv_jit_free(j);
    return NULL;
  }
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
  /* what compiled code calls, by name (an object file holds no address of this process): warpvm's helpers, and
   * the C library functions LLVM's code generator may call (stores of many zeros become memset; llvm.fma is a
   * call where the CPU has no FMA instruction) */
  const LLVMJITSymbolFlags fn = {LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable, 0};
  static const struct { const char *name; void (*addr)(void); } SYMS[] = {
      {"wv_jit_mem", (void (*)(void))wv_jit_mem}, {"wv_async_pending_in", (void (*)(void))wv_async_pending_in},
      {"wv_jit_scatter", (void (*)(void))wv_jit_scatter},
      {"memset", (void (*)(void))memset},        {"memcpy", (void (*)(void))memcpy},
      {"memmove", (void (*)(void))memmove},      {"fma", (void (*)(void))fma},
      {"fmaf", (void (*)(void))fmaf}};
  LLVMOrcCSymbolMapPair sym[sizeof SYMS / sizeof *SYMS];
  for (size_t i = 0; i < sizeof SYMS / sizeof *SYMS; i++)
    sym[i] = (LLVMOrcCSymbolMapPair){LLVMOrcLLJITMangleAndIntern(j->lljit, SYMS[i].name),
                                     {(LLVMOrcExecutorAddress)(uintptr_t)SYMS[i].addr, fn}};
  if ((e = LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(j->lljit),
                                 LLVMOrcAbsoluteSymbols(sym, sizeof SYMS / sizeof *SYMS)))) {
    take_error(e, err, errlen);
    wv_jit_free(j);
    return NULL;
  }
  if (cache_dir) j->cache = strdup(cache_dir);
  return j;
}

void wv_jit_free(wv_jit *j) {
  if (!j) return;
  wv_perfjit_close(&j->perf);
  if (j->lljit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(j->lljit);
    if (e) LLVMConsumeError(e);
  }
  for (unsigned i = 0; i < WV_JIT_MAX_THREADS; i++)
    if (j->tm[i]) LLVMDisposeTargetMachine(j->tm[i]);
  LLVMDisposeMessage(j->triple);
  LLVMDisposeMessage(j->cpu);
  LLVMDisposeMessage(j->features);
  free(j->cache);
  free(j->objs);
  free(j);
}

wv_jit_mod *wv_jit_mod_new(wv_jit *j, const wv_irmod *m) {
  wv_jit_mod *jm = calloc(1, sizeof *jm);
  if (!jm) return NULL;
  jm->m = m;
  jm->nfuncs = m->nfuncs;
  jm->f = calloc(m->nfuncs + 1, sizeof *jm->f);
  for (uint32_t i = 0; jm->f && i < m->nfuncs; i++) jm->f[i].obj = -1;
  jm->done = calloc(m->nfuncs + 1, 1);
  jm->table = calloc(m->nfuncs + 1, sizeof *jm->table);
  if (!jm->f || !jm->done || !jm->table) {
    wv_jit_mod_free(j, jm);
    return NULL;
  }
  return jm;
}

static void obj_release(wv_jit *j, int32_t o) {
  if (o < 0 || --j->objs[o].refs) return;
  LLVMErrorRef e = LLVMOrcResourceTrackerRemove(j->objs[o].rt);
  if (e) LLVMConsumeError(e);
  LLVMOrcReleaseResourceTracker(j->objs[o].rt);
  j->objs[o].rt = NULL;
  j->objs[o].key[0] = j->objs[o].key[1] = 0;
}

void wv_jit_mod_free(wv_jit *j, wv_jit_mod *jm) {
  if (!jm) return;
  for (uint32_t i = 0; jm->f && i < jm->nfuncs; i++) {
    obj_release(j, jm->f[i].obj);
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

/* ---- the key: what a function's code depends on ---- */
typedef struct hash { uint64_t h[2]; } hash;
static void feed(hash *k, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) {
    k->h[0] = (k->h[0] ^ b[i]) * 0x100000001b3ull;
    k->h[1] = (k->h[1] ^ b[i]) * 0x100000001b3ull + (k->h[1] >> 29);
  }
}
#define FEED(k, v) feed(k, &(v), sizeof(v))
static void feed_str(hash *k, const char *s) { feed(k, s, strlen(s) + 1); }

/* live: wv_jit_live's table, of which the code depends on the sets where a region may stop */
static void key_of(const wv_jit *j, const wv_func *f, const uint16_t *len, const uint64_t *live, uint32_t words,
                   uint64_t key[2]) {
  hash k = {{0xcbf29ce484222325ull, 0x84222325cbf29ce4ull}};
  feed_str(&k, JIT_FORMAT);
  feed_str(&k, j->triple);
  feed_str(&k, j->cpu);
  feed_str(&k, j->features);
  const size_t layout[] = {sizeof(wv_exec), offsetof(wv_exec, bank), offsetof(wv_exec, preds), offsetof(wv_exec, cta),
                           offsetof(wv_exec, n_gld), offsetof(wv_exec, n_gst), offsetof(wv_exec, n_sld), offsetof(wv_exec, n_sst),
                           offsetof(wv_exec, n_lld), offsetof(wv_exec, n_lst),
                           offsetof(wv_cta, shared), offsetof(wv_cta, shared_size), offsetof(wv_cta, async_pending),
                           offsetof(wv_exec, gwin), offsetof(wv_exec, heap_frees), sizeof(wv_gwin), WV_GWINS,
                           offsetof(wv_exec, n_atom), offsetof(wv_exec, n_coll), offsetof(wv_exec, jit_stop),
                           offsetof(wv_exec, jit_alone), offsetof(wv_exec, jit_skipped), offsetof(wv_exec, jit_split),
                           offsetof(wv_exec, jit_tless),
                           WV_SHARED_BASE, WV_WARP};
  feed(&k, layout, sizeof layout);
  FEED(&k, f->npreds);
  FEED(&k, f->nconsts); /* (emit.c folds the immediates in) */
  if (f->nconsts) feed(&k, f->consts, f->nconsts * sizeof *f->consts);
  for (uint32_t pc = 0; pc < f->ncode; pc++) {
    if (!len[pc]) continue;
    FEED(&k, pc);
    FEED(&k, len[pc]);
    for (uint32_t i = pc; i < pc + len[pc]; i++) {
      const wv_insn *in = &f->code[i];
      wv_jop o;
      wv_jit_select(in, &o);
      FEED(&k, o);
      const uint64_t v[] = {in->d[0], in->d[1], in->d[2], in->d[3], (uint64_t)(int64_t)in->pd, in->a, in->b, in->c, in->e,
                            (uint64_t)in->imm, (uint64_t)(int64_t)in->guard, in->guard_neg, in->neg_b, in->neg_c, in->boolop,
                            in->space, in->addrf, in->mode, in->rnd, in->type, in->type2, in->vec, in->nd, in->ftz, in->sat,
                            in->cmp, in->op};
      feed(&k, v, sizeof v);
    }
    for (uint32_t i = pc; live && i <= pc + len[pc]; i++) feed(&k, &live[(size_t)i * words], words * sizeof *live);
  }
  key[0] = k.h[0];
  key[1] = k.h[1];
}

static void sym_name(char *buf, size_t cap, const uint64_t key[2], uint32_t pc) {
  snprintf(buf, cap, "wv_%016llx%016llx_%u", (unsigned long long)key[0], (unsigned long long)key[1], pc);
}

/* One part of f's regions (owner[pc] == id) compiled on one thread: its own LLVM context and module, optimised
 * and made into machine code by its own target machine (LLVM's are not shared between threads). */
typedef struct part {
  LLVMTargetMachineRef tm;
  const char *triple;
  const wv_func *f;
  const uint16_t *len;
  const uint64_t *live, *key;
  uint32_t words;
  const uint8_t *owner;
  uint8_t id;
  int target; /* (emit.h WV_EMIT_*) */
  LLVMMemoryBufferRef obj; /* the result, NULL: err says why */
  char err[320];
} part;

/* What emit.c may use of the target (WV_EMIT_*): AVX-512BW's masks; its scatter but on AMD's cores (LLVM's
 * znver names; LLVM 15 calls a Zen 4 znver3 and gives it AVX-512 by its features). */
static int emit_target(const wv_jit *j) {
  int kmask = strstr(j->features, "+avx512bw") != NULL;
  return (kmask ? WV_EMIT_KMASK : 0) | (kmask && strncmp(j->cpu, "znver", 5) ? WV_EMIT_SCATTER : 0);
}

static void *compile_part(void *arg) {
  part *p = arg;
  const wv_func *f = p->f;
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("wv", c);
  LLVMSetTarget(mod, p->triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(p->tm);
  LLVMSetModuleDataLayout(mod, td);
  LLVMDisposeTargetData(td);
  char name[80];
  int oom = 0;
  for (uint32_t pc = 0; pc < f->ncode && !oom; pc++) {
    if (!p->len[pc] || p->owner[pc] != p->id) continue;
    sym_name(name, sizeof name, p->key, pc);
    oom = !wv_jit_emit_region(c, mod, name, f, pc, p->len[pc], p->live, p->words, p->target);
  }
  char *msg = NULL;
  p->obj = NULL;
  if (oom) {
    snprintf(p->err, sizeof p->err, "JIT: out of host memory compiling '%s'", f->name);
  } else if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
    snprintf(p->err, sizeof p->err, "JIT: invalid code for '%s': %.200s", f->name, msg ? msg : "");
  } else {
    /* a developer's look at every compiled function: "ir0" its IR as emitted, "ir" as optimised, "asm" */
    const char *dump = getenv("WARPVM_JIT_DUMP");
    if (dump && !strcmp(dump, "ir0")) LLVMDumpModule(mod);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, JIT_PASSES, p->tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
      take_error(e, p->err, sizeof p->err);
    } else {
      if (dump && !strcmp(dump, "ir")) LLVMDumpModule(mod);
      char *m2 = NULL;
      LLVMMemoryBufferRef mb;
      if (dump && !strcmp(dump, "asm") && !LLVMTargetMachineEmitToMemoryBuffer(p->tm, mod, LLVMAssemblyFile, &m2, &mb)) {
        fwrite(LLVMGetBufferStart(mb), 1, LLVMGetBufferSize(mb), stderr);
        LLVMDisposeMemoryBuffer(mb);
      }
      LLVMDisposeMessage(m2);
      m2 = NULL;
      if (LLVMTargetMachineEmitToMemoryBuffer(p->tm, mod, LLVMObjectFile, &m2, &p->obj)) {
        snprintf(p->err, sizeof p->err, "LLVM: %s", m2 ? m2 : "no object");
        p->obj = NULL;
      }
      LLVMDisposeMessage(m2);
    }
  }
  LLVMDisposeMessage(msg);
  LLVMDisposeModule(mod);
  LLVMContextDispose(c);
  return NULL;
}

/* What a region costs to compile, in quarter milliseconds of this machine's code generation (measured per region
 * on the benchmark's kernels): about 4 ms a region, 0.25 ms an instruction, 5.5 ms a memory access (its check and
 * its row, broadcast and gather paths; a vector's 10.5 ms, with its reversed row) but 1 ms a .shared load through a register
 * an earlier one of the region used (wv_em_hoist_loads makes them together). Compiling threads share regions by it. */
static uint32_t region_cost(const wv_func *f, uint32_t pc, uint32_t len) {
  uint32_t c = 16, base[8], nbase = 0;
  for (uint32_t i = pc; i < pc + len; i++) {
    const wv_insn *in = &f->code[i];
    wv_jop o;
    wv_jit_select(in, &o);
    c += 1;
    if (o.kind != WV_JK_LD && o.kind != WV_JK_ST && o.kind != WV_JK_ATOM) continue;
    uint32_t b = 0;
    while (b < nbase && base[b] != in->a) b++;
    if (o.kind == WV_JK_LD && o.vec <= 1 && in->space == WV_SPACE_SHARED && b < nbase) {
      c += 4;
      continue;
    }
    if (o.kind == WV_JK_LD && in->space == WV_SPACE_SHARED && b == nbase && nbase < 8) base[nbase++] = in->a;
    c += o.vec > 1 ? 42 : 22;
  }
  return c;
}

static int costlier(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* f's regions compiled into objs[0 .. *nobj - 1]: split into at most j->threads parts of about equal cost (the
 * costliest region first, to the part with the least so far), compiled at once on as many threads. 0, or -1
 * (err) with nothing in objs. */
static int compile_objects(wv_jit *j, const wv_func *f, const uint16_t *len, const uint64_t *live, uint32_t words,
                           const uint64_t key[2], LLVMMemoryBufferRef *objs, unsigned *nobj, char *err, size_t errlen) {
  uint8_t *owner = calloc(f->ncode + 1, 1);
  uint64_t *cost = calloc(f->ncode + 1, sizeof *cost); /* a region's cost << 32 | its pc */
  uint32_t m = 0; /* regions */
  for (uint32_t pc = 0; cost && pc < f->ncode; pc++)
    if (len[pc]) cost[m++] = (uint64_t)region_cost(f, pc, len[pc]) << 32 | pc;
  unsigned n = j->threads < m ? j->threads : m;
  if (getenv("WARPVM_JIT_DUMP") || !n) n = 1; /* (dumps one after the other) */
  part *p = calloc(n, sizeof *p);
  pthread_t th[WV_JIT_MAX_THREADS];
  int started[WV_JIT_MAX_THREADS] = {0}, bad = !owner || !cost || !p;
  for (unsigned i = 1; i < n && !bad; i++)
    if (!j->tm[i] && !(j->tm[i] = LLVMCreateTargetMachine(j->target, j->triple, j->cpu, j->features, CODEGEN_LEVEL,
                                                            LLVMRelocDefault, LLVMCodeModelJITDefault)))
      n = i;
  if (bad) {
    snprintf(err, errlen, "out of host memory");
    free(owner), free(cost), free(p);
    return -1;
  }
  uint64_t load[WV_JIT_MAX_THREADS] = {0};
  qsort(cost, m, sizeof *cost, costlier);
  for (uint32_t r = 0; r < m; r++) { /* the costliest region first, to the least loaded part */
    unsigned to = 0;
    for (unsigned i = 1; i < n; i++)
      if (load[i] < load[to]) to = i;
    owner[(uint32_t)cost[r]] = (uint8_t)to;
    load[to] += cost[r] >> 32;
  }
  for (unsigned i = 0; i < n; i++)
    p[i] = (part){.tm = j->tm[i], .triple = j->triple, .f = f, .len = len, .live = live, .key = key, .words = words,
                  .owner = owner, .id = (uint8_t)i, .target = emit_target(j)};
  for (unsigned i = 1; i < n; i++) started[i] = !pthread_create(&th[i], NULL, compile_part, &p[i]);
  for (unsigned i = 0; i < n; i++) /* (this thread: part 0, and any no thread could be started for) */
    if (!started[i]) compile_part(&p[i]);
  for (unsigned i = 1; i < n; i++)
    if (started[i]) pthread_join(th[i], NULL);
  int failed = -1;
  for (unsigned i = 0; i < n; i++)
    if (!p[i].obj && failed < 0) failed = (int)i;
  if (failed >= 0) {
    snprintf(err, errlen, "%s", p[failed].err);
    for (unsigned i = 0; i < n; i++)
      if (p[i].obj) LLVMDisposeMemoryBuffer(p[i].obj);
  } else {
    for (unsigned i = 0; i < n; i++) objs[i] = p[i].obj;
    *nobj = n;
  }
  free(owner), free(cost), free(p);
  return failed >= 0 ? -1 : 0;
}

/* The linked jobj of key, -1: none. */
static int32_t linked(const wv_jit *j, const uint64_t key[2]) {
  for (uint32_t i = 0; i < j->nobjs; i++)
    if (j->objs[i].rt && j->objs[i].key[0] == key[0] && j->objs[i].key[1] == key[1]) return (int32_t)i;
  return -1;
}

/* Where the JIT put symbol name (materialising it), 0: nowhere. */
static uint64_t address_of(void *arg, const char *name) {
  wv_jit *j = arg;
  LLVMOrcExecutorAddress a = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(j->lljit, &a, name);
  if (e) LLVMConsumeError(e);
  return e ? 0 : a;
}

/* The jobj of key: linked already, else from the disk cache, else compiled now (and kept on disk); -1 on a
 * failure (err). */
static int32_t object_for(wv_jit *j, const wv_func *f, const uint16_t *len, const uint64_t *live, uint32_t words,
                          const uint64_t key[2], wv_jit_stats *st, char *err, size_t errlen) {
  int32_t freeslot = linked(j, key);
  if (freeslot >= 0) {
    j->objs[freeslot].refs++;
    return freeslot;
  }
  for (uint32_t i = 0; i < j->nobjs && freeslot < 0; i++)
    if (!j->objs[i].rt) freeslot = (int32_t)i;
  LLVMMemoryBufferRef obj[WV_JIT_MAX_THREADS];
  unsigned nobj = 0;
  size_t size[WV_JIT_MAX_THREADS];
  void *data = j->cache ? wv_jit_cache_get(j->cache, key, size, &nobj, WV_JIT_MAX_THREADS) : NULL;
  if (data) {
    const char *at = data;
    for (unsigned i = 0; i < nobj; at += size[i++]) obj[i] = LLVMCreateMemoryBufferWithMemoryRangeCopy(at, size[i], "wv");
    free(data);
    st->cached++;
  } else {
    if (compile_objects(j, f, len, live, words, key, obj, &nobj, err, errlen)) return -1;
    const void *part[WV_JIT_MAX_THREADS];
    for (unsigned i = 0; i < nobj; i++) part[i] = LLVMGetBufferStart(obj[i]), size[i] = LLVMGetBufferSize(obj[i]);
    if (j->cache) wv_jit_cache_put(j->cache, key, part, size, nobj);
  }
  if (freeslot < 0) {
    if (j->nobjs == j->capobjs) {
      uint32_t cap = j->capobjs ? 2 * j->capobjs : 16;
      jobj *nv = realloc(j->objs, cap * sizeof *nv);
      if (!nv) {
        for (unsigned i = 0; i < nobj; i++) LLVMDisposeMemoryBuffer(obj[i]);
        snprintf(err, errlen, "out of host memory");
        return -1;
      }
      j->objs = nv;
      j->capobjs = cap;
    }
    freeslot = (int32_t)j->nobjs++;
  }
  wv_perfjit_sym *syms = NULL; /* (WARPVM_JIT_PERFMAP=1: the regions' names and sizes, for the jitdump) */
  uint32_t nsyms = 0;
  for (unsigned i = 0; i < nobj && wv_perfjit_on(); i++) wv_perfjit_symbols(obj[i], &syms, &nsyms);
  LLVMOrcResourceTrackerRef rt = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(j->lljit));
  LLVMErrorRef e = NULL;
  for (unsigned i = 0; i < nobj; i++) /* (each takes its buffer) */
    if (e) LLVMDisposeMemoryBuffer(obj[i]);
    else e = LLVMOrcLLJITAddObjectFileWithRT(j->lljit, rt, obj[i]);
  if (e) {
    wv_perfjit_free_syms(syms, nsyms);
    take_error(e, err, errlen);
    LLVMErrorRef e2 = LLVMOrcResourceTrackerRemove(rt);
    if (e2) LLVMConsumeError(e2);
    LLVMOrcReleaseResourceTracker(rt);
    return -1;
  }
  if (nsyms) wv_perfjit_load(&j->perf, f, syms, nsyms, address_of, j);
  wv_perfjit_free_syms(syms, nsyms);
  j->objs[freeslot] = (jobj){.key = {key[0], key[1]}, .rt = rt, .refs = 1};
  return freeslot;
}

double wv_jit_cost(wv_jit *j, const wv_jit_mod *jm, uint32_t fi) {
  const wv_func *f = &jm->m->funcs[fi];
  if (jm->done[fi] || !f->defined || !f->code) return 0;
  uint16_t *len = calloc(f->ncode + 1, sizeof *len);
  if (!len) return 0;
  uint64_t quarters = 0, key[2];
  if (wv_jit_regions(f, MIN_REGION, len)) {
    uint32_t words = 0;
    uint64_t *live = wv_jit_live(f, &words);
    key_of(j, f, len, live, words, key);
    free(live);
    int made = linked(j, key) >= 0 || (j->cache && wv_jit_cache_has(j->cache, key));
    for (uint32_t pc = 0; !made && pc < f->ncode; pc++)
      if (len[pc]) quarters += region_cost(f, pc, len[pc]);
  }
  free(len);
  return (double)quarters * 0.25e-3;
}

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
  st->functions++;
  if (!nreg) {
    st->seconds += wv_now() - t0;
    return 0;
  }
  uint64_t key[2], insns = 0;
  uint32_t words = 0;
  uint64_t *live = wv_jit_live(f, &words); /* (NULL: every register live) */
  key_of(j, f, jf->len, live, words, key);
  int32_t o = object_for(j, f, jf->len, live, words, key, st, err, errlen);
  free(live);
  LLVMErrorRef e = NULL;
  for (uint32_t pc = 0; o >= 0 && !e && pc < n; pc++) {
    if (!jf->len[pc]) continue;
    char name[80];
    LLVMOrcExecutorAddress a;
    sym_name(name, sizeof name, key, pc);
    if (!(e = LLVMOrcLLJITLookup(j->lljit, &a, name))) jf->entry[pc] = (wv_jit_entry)(uintptr_t)a;
    insns += jf->len[pc];
  }
  st->seconds += wv_now() - t0;
  if (o >= 0 && !e) wv_perfjit_map(f, jf->len, jf->entry);
  if (o < 0 || e) {
    if (e) take_error(e, err, errlen);
    obj_release(j, o);
    memset(jf->len, 0, n * sizeof *jf->len);
    return -1;
  }
  jf->obj = o;
  jf->code = (wv_jit_code){.ncode = n, .len = jf->len, .entry = jf->entry};
  __atomic_store_n(&jm->table[fi], &jf->code, __ATOMIC_RELEASE); /* (launches may be running: engine.c) */
  st->regions += nreg;
  st->insns += insns;
  return 0;
}
#endif
