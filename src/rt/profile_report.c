/*
 * profile_report.c — the reporting half of `--profile`: a record per profiled launch (made from the
 * workers' merged counts, exec/profile.h), the cost model that turns counts into estimated cycles, the
 * limiting factor and hints, and the three outputs — the readable report, JSON keyed by Nsight Compute's
 * metric names where warpvm's count has the same definition, and a Chrome/Perfetto trace.
 *
 * The cost model (README "Profiling") is an H100 SXM (sm_90): 132 SMs at 1.755 GHz; per SM and clock
 * (CUDA C++ Programming Guide, "Arithmetic Instructions", compute capability 9.0) 128 FP32 operations,
 * 64 FP64, 64 integer, 16 special-function (the reference text's GM204 had 32), 32 shuffles; 4 warp
 * schedulers (4 warp instructions issued a clock); one shared-memory wavefront (128 bytes) a clock; global
 * traffic at one 32-byte sector a clock (an L2-bandwidth figure: no cache is modelled). Latencies: a
 * dependent instruction 4 cycles, shared memory 30 (LDS; the reference texts' ~5 is an older pipeline's
 * register-to-register figure), global memory 500; a warp has 4 memory requests in flight (MLP) and every
 * other instruction waits for the one before (2 cycles an instruction on average); a bank conflict's replays
 * add a cycle each to the warp's wait. Estimated cycles = the busiest pipe's work per SM + the latency a warp
 * accumulates times the warps an SM runs over the warps it holds at once (occupancy, the rule of
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor: threads, blocks, shared memory per SM): the two add, so
 * every extra wavefront, sector, divergent path or barrier wait makes the estimate larger.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "amd/lower.h"
#include "ptx/ast.h"
#include "exec/profile.h"
#include "exec/sched.h"
#include "rt/vm_internal.h"

/* ---- the machine of the cost model ---- */
#define M_SMS 132.0
#define M_CLOCK_GHZ 1.755
#define M_WARPS_PER_SM 64u
#define M_BLOCKS_PER_SM 32u
#define M_SHARED_PER_SM (228u * 1024u)
#define M_SHARED_RESERVED 1024u
#define LAT_DEP 2.0   /* a warp's instruction after another: half of them depend on the one before (4 cycles) */
#define MLP 4.0       /* a warp's memory requests in flight at once (loops unrolled by 4) */
#define LAT_SHARED 30.0
#define LAT_GLOBAL 500.0

/* Cycles of an SM's pipe one warp instruction of a class takes (32 / operations per SM per clock). */
static const double pipe_cost[WV_PC_COUNT] = {
    [WV_PC_ALU] = 0.5, [WV_PC_FMA] = 0.25, [WV_PC_FP64] = 0.5, [WV_PC_SFU] = 2.0,
    [WV_PC_MEM] = 1.0, [WV_PC_CTRL] = 0.5, [WV_PC_SYNC] = 0.5, [WV_PC_COLL] = 1.0};
static const char *const class_name[WV_PC_COUNT] = {"ALU", "FMA", "FP64", "SFU", "memory", "control", "sync", "collective"};
enum { LIM_ISSUE = 0, LIM_ALU, LIM_FMA, LIM_FP64, LIM_SFU, LIM_SHARED, LIM_GLOBAL, LIM_LATENCY, LIM_DIVERGENCE, LIM_COUNT };
static const char *const lim_name[LIM_COUNT] = {"instruction issue", "integer/ALU throughput", "FP32 throughput",
                                                "FP64 throughput", "SFU throughput", "shared-memory bandwidth",
                                                "global-memory bandwidth",
                                                "latency (dependent instructions and memory, not hidden by other warps)",
                                                "divergence (the paths of a warp run one after the other)"};

/* ---- metrics: warpvm's name, Nsight Compute's where the definition is the same ---- */
#define METRICS(M)                                                                                              \
  M(INST, "inst_executed", "smsp__inst_executed.sum")                                                          \
  M(THREAD_INST, "thread_inst_executed", "smsp__thread_inst_executed.sum")                                     \
  M(THREAD_PRED, "thread_inst_executed_pred_on", "smsp__thread_inst_executed_pred_on.sum")                     \
  M(THREADS_PER_INST, "threads_per_inst", "smsp__thread_inst_executed_per_inst_executed.ratio")                \
  M(SIMT_EFF, "simt_efficiency", "")                                                                           \
  M(I_ALU, "inst_alu", "") M(I_FMA, "inst_fma", "") M(I_FP64, "inst_fp64", "") M(I_SFU, "inst_sfu", "")        \
  M(I_MEM, "inst_memory", "") M(I_CTRL, "inst_control", "") M(I_SYNC, "inst_sync", "")                        \
  M(I_COLL, "inst_collective", "")                                                                             \
  M(T_ALU, "thread_inst_alu", "") M(T_FMA, "thread_inst_fma", "") M(T_FP64, "thread_inst_fp64", "")            \
  M(T_SFU, "thread_inst_sfu", "") M(T_MEM, "thread_inst_memory", "") M(T_CTRL, "thread_inst_control", "")      \
  M(T_SYNC, "thread_inst_sync", "") M(T_COLL, "thread_inst_collective", "")                                    \
  M(BRANCHES, "branches", "smsp__sass_inst_executed_op_branch.sum")                                           \
  M(DIVERGENT, "divergent_branches", "smsp__sass_branch_targets_threads_divergent.sum")                        \
  M(SH_LD_REQ, "shared_ld_requests", "smsp__sass_inst_executed_op_shared_ld.sum")                              \
  M(SH_ST_REQ, "shared_st_requests", "smsp__sass_inst_executed_op_shared_st.sum")                              \
  M(SH_LD_WAVE, "shared_ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")                \
  M(SH_ST_WAVE, "shared_st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")                \
  M(SH_LD_CONF, "shared_ld_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")        \
  M(SH_ST_CONF, "shared_st_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")        \
  M(SH_ATOM_REQ, "shared_atom_requests", "smsp__sass_inst_executed_op_shared_atom.sum")                        \
  M(G_LD_REQ, "global_ld_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")                         \
  M(G_LD_SEC, "global_ld_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")                           \
  M(G_ST_REQ, "global_st_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")                         \
  M(G_ST_SEC, "global_st_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")                           \
  M(G_ATOM_REQ, "global_atom_requests", "")                                                                    \
  M(G_ATOM_SEC, "global_atom_sectors", "")                                                                     \
  M(L_LD_REQ, "local_ld_requests", "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum")                           \
  M(L_LD_SEC, "local_ld_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum")                             \
  M(L_ST_REQ, "local_st_requests", "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum")                           \
  M(L_ST_SEC, "local_st_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum")                             \
  M(BARRIERS, "barrier_insts", "")                                                                             \
  M(BAR_WAIT, "barrier_wait_slots", "")                                                                        \
  M(COLL, "collectives", "") M(COLL_UNDEF, "collectives_undefined", "")                                        \
  M(ASYNC_BYTES, "cp_async_bytes", "") M(ASYNC_WAITS, "cp_async_waits", "")                                    \
  M(MBAR_WAITS, "mbarrier_waits", "")                                                                          \
  M(SHUFFLES, "shuffles", "") M(AMD_BPERMUTE, "ds_bpermute", "") M(AMD_WAVES, "waves", "")                     \
  M(AMD_OCC, "occupancy_waves_per_cu", "")                                                                     \
  M(OCC_WARPS, "occupancy_warps_per_sm", "") M(EST_CYCLES, "est_cycles", "")                                   \
  M(EST_SECONDS, "est_seconds", "") M(RUN_SECONDS, "warpvm_seconds", "")

enum {
#define M(id, w, n) PM_##id,
  METRICS(M)
#undef M
  PM_COUNT
};
static const struct { const char *name, *ncu; } metric[PM_COUNT] = {
#define M(id, w, n) {w, n},
    METRICS(M)
#undef M
};

/* One PTX line of a launch. */
typedef struct pline {
  char *fn;            /* the function */
  char *src_file;      /* the CUDA source file of .loc (its base name), NULL if none */
  const char *mnem;    /* its (first) instruction */
  uint32_t line, src_line;
  uint8_t cls, space;
  wv_pcprof c;
  double cycles, lat;
  uint32_t nptx;       /* the report's groups: PTX lines in it; their global/local requests, sectors, bytes
                          (c.req, c.wavefronts, c.ideal: shared memory's) */
  uint64_t greq, gsec, gbytes;
} pline;

typedef struct prec {
  char *kernel, *file;
  uint32_t grid[3], block[3], dyn_shared;
  int status;
  double v[PM_COUNT];
  int limiter, lost;
  uint64_t launches;   /* launches added up in this record (1, or more past WV_PROF_KEEP) */
  pline *lines;
  uint32_t nlines;
  wv_prof_ev *ev;
  uint32_t nev;
  uint64_t ev_dropped;
} prec;

/* Launch records kept one by one; past that, a launch of a kernel already recorded is added to its latest
 * record (launches > 1), and one of a new kernel past WV_PROF_MAX_RECORDS is only counted (dropped). */
#define WV_PROF_KEEP 256u
#define WV_PROF_MAX_RECORDS 4096u

typedef struct wv_prof_log {
  prec *r;
  size_t n, cap;
  uint64_t dropped;
  double t_origin;     /* the trace's time 0: the first profiled launch */
} wv_prof_log;

/* ---- launch records ---- */

void wv_prof_launch_begin(wv_vm *vm, const wv_launch_desc *L) {
  wv_prof_free(vm->prof_acc);
  vm->prof_acc = wv_prof_new(L->mod, (vm->cfg.profile & WV_PROFILE_TRACE) != 0);
}

/* Blocks of the launch's shape one SM holds (cudaOccupancyMaxActiveBlocksPerMultiprocessor's rule, as
 * cudadrv/devprops.c wvcu_occupancy: threads, blocks and shared memory per SM; registers are ptxas's
 * choice, which PTX does not tell). */
static uint32_t occupancy_blocks(const wv_launch_desc *L) {
  uint32_t warps = (L->nthreads + 31) / 32, n = M_WARPS_PER_SM / (warps ? warps : 1);
  if (n > M_BLOCKS_PER_SM) n = M_BLOCKS_PER_SM;
  uint32_t smem = L->kfn->shared_static + L->dyn_shared;
  if (smem) {
    uint32_t by = M_SHARED_PER_SM / (smem + M_SHARED_RESERVED);
    if (by < n) n = by;
  }
  return n ? n : 1;
}

static int is_shfl(const pline *l) { return !strcmp(l->mnem, "shfl"); }

/* The cost model (the file's comment): per line, cycles an SM spends on it; for the launch, the bound. */
static void estimate(prec *r, const wv_launch_desc *L, const wv_vm *vm) {
  double pipe[LIM_COUNT] = {0}, lat = 0;
  for (uint32_t i = 0; i < r->nlines; i++) {
    pline *l = &r->lines[i];
    double issue = (double)l->c.warp * pipe_cost[l->cls], l_lat = (double)l->c.warp * LAT_DEP;
    pipe[LIM_ISSUE] += (double)l->c.warp * 0.25;
    if (l->cls == WV_PC_ALU || l->cls == WV_PC_CTRL || l->cls == WV_PC_SYNC) pipe[LIM_ALU] += issue;
    if (l->cls == WV_PC_FMA) pipe[LIM_FMA] += issue;
    if (l->cls == WV_PC_FP64) pipe[LIM_FP64] += issue;
    if (l->cls == WV_PC_SFU) pipe[LIM_SFU] += issue;
    if (l->cls == WV_PC_COLL) pipe[LIM_SHARED] += issue; /* shuffles use the shared-memory crossbar */
    if (l->space == WV_PS_SHARED + 1) {
      pipe[LIM_SHARED] += (double)l->c.wavefronts;
      issue += (double)l->c.wavefronts;
      l_lat += (double)l->c.req * LAT_SHARED / MLP + (double)(l->c.wavefronts - l->c.ideal);
    } else if (l->space == WV_PS_GLOBAL + 1 || l->space == WV_PS_LOCAL + 1) {
      pipe[LIM_GLOBAL] += (double)l->c.sectors;
      issue += (double)l->c.sectors;
      l_lat += (double)l->c.req * LAT_GLOBAL / MLP;
    }
    l_lat += (double)l->c.stall; /* warp-instruction slots spent at a barrier */
    l->cycles = issue;           /* the latency share is added below, once occupancy is known */
    l->lat = l_lat;
    lat += l_lat;
  }
  uint64_t nwarps = L->nctas * ((L->nthreads + 31) / 32);
  uint32_t per_sm = occupancy_blocks(L);
  double sms = (double)L->nctas < M_SMS ? (double)L->nctas : M_SMS;
  double resident = (double)per_sm * ((L->nthreads + 31) / 32); /* warps an SM holds */
  double warps_per_sm = (double)nwarps / sms;
  if (resident > warps_per_sm) resident = warps_per_sm;
  if (resident < 1) resident = 1;
  double lat_bound = lat / sms / resident; /* a warp's latency, hidden by the other resident warps */
  int best = 0;
  for (int k = 1; k < LIM_LATENCY; k++)
    if (pipe[k] > pipe[best]) best = k;
  double thr = pipe[best] / sms;
  for (uint32_t i = 0; i < r->nlines; i++) /* per SM: its work and its share of the exposed latency */
    r->lines[i].cycles = (r->lines[i].cycles + r->lines[i].lat / resident) / sms;
  r->limiter = lat_bound > thr ? LIM_LATENCY : best;
  if (r->v[PM_DIVERGENT] && r->v[PM_SIMT_EFF] < 0.6) r->limiter = LIM_DIVERGENCE; /* half the lanes idle, or more */
  /* the busiest pipe and the latency the warps cannot hide add: simple, and every extra wavefront, sector,
   * divergent path or barrier wait makes the estimate larger */
  r->v[PM_EST_CYCLES] = lat_bound + thr;
  r->v[PM_EST_SECONDS] = r->v[PM_EST_CYCLES] / (M_CLOCK_GHZ * 1e9) + 2e-6; /* + a launch's fixed ~2 us */
  r->v[PM_OCC_WARPS] = (double)per_sm * ((L->nthreads + 31) / 32);
  if (r->v[PM_OCC_WARPS] > M_WARPS_PER_SM) r->v[PM_OCC_WARPS] = M_WARPS_PER_SM;
  if (vm->amd) { /* the AMD model: waves, and a ds_bpermute_b32 per shuffle (rt/amd.c's lowering) */
    uint32_t wave = vm->amd->wave, wpw = vm->cfg.warps_per_wave == 2 ? 2 : 1;
    r->v[PM_AMD_WAVES] = wave == 64 ? (double)((nwarps + wpw - 1) / wpw) : (double)nwarps;
    /* waves a compute unit holds: 32 (4 SIMDs x 8 on CDNA2; 2 x 16 on RDNA3), blocks bounded by its LDS */
    uint32_t wpb = (L->nthreads + (wave == 64 ? 32 * wpw : 32) - 1) / (wave == 64 ? 32 * wpw : 32);
    uint32_t blocks = 32 / (wpb ? wpb : 1), smem = L->kfn->shared_static + L->dyn_shared;
    if (smem && vm->amd->lds_bytes / smem < blocks) blocks = vm->amd->lds_bytes / smem;
    r->v[PM_AMD_OCC] = (double)(blocks * wpb > 32 ? 32 : blocks * wpb);
    r->v[PM_AMD_BPERMUTE] = r->v[PM_SHUFFLES];
  }
}

static int line_cmp(const void *a, const void *b) {
  const pline *x = a, *y = b;
  return x->cycles < y->cycles ? 1 : x->cycles > y->cycles ? -1 : (x->line > y->line) - (x->line < y->line);
}

static void fill_totals(prec *r, const wv_prof *p) {
  double *v = r->v;
  for (uint32_t i = 0; i < r->nlines; i++) {
    const pline *l = &r->lines[i];
    v[PM_INST] += (double)l->c.warp;
    v[PM_THREAD_INST] += (double)l->c.thread;
    v[PM_THREAD_PRED] += (double)l->c.pred_on;
    v[PM_I_ALU + l->cls] += (double)l->c.warp;
    v[PM_T_ALU + l->cls] += (double)l->c.thread;
    if (!strcmp(l->mnem, "bra")) v[PM_BRANCHES] += (double)l->c.warp;
    v[PM_DIVERGENT] += (double)l->c.divergent;
    if (!strcmp(l->mnem, "bar") || !strcmp(l->mnem, "barrier")) v[PM_BARRIERS] += (double)l->c.warp;
    v[PM_BAR_WAIT] += (double)l->c.stall;
    if (l->cls == WV_PC_COLL) v[PM_COLL] += (double)l->c.warp;
    if (is_shfl(l)) v[PM_SHUFFLES] += (double)l->c.warp;
    v[PM_COLL_UNDEF] += (double)l->c.undef;
  }
  v[PM_THREADS_PER_INST] = v[PM_INST] ? v[PM_THREAD_INST] / v[PM_INST] : 0;
  v[PM_SIMT_EFF] = v[PM_THREADS_PER_INST] / 32.0;
  v[PM_SH_LD_REQ] = (double)p->mem_req[WV_PS_SHARED][WV_PK_LD];
  v[PM_SH_ST_REQ] = (double)p->mem_req[WV_PS_SHARED][WV_PK_ST];
  v[PM_SH_LD_WAVE] = (double)p->mem_wave[WV_PS_SHARED][WV_PK_LD];
  v[PM_SH_ST_WAVE] = (double)p->mem_wave[WV_PS_SHARED][WV_PK_ST];
  v[PM_SH_LD_CONF] = (double)(p->mem_wave[WV_PS_SHARED][WV_PK_LD] - p->mem_ideal[WV_PS_SHARED][WV_PK_LD]);
  v[PM_SH_ST_CONF] = (double)(p->mem_wave[WV_PS_SHARED][WV_PK_ST] - p->mem_ideal[WV_PS_SHARED][WV_PK_ST]);
  v[PM_SH_ATOM_REQ] = (double)p->mem_req[WV_PS_SHARED][WV_PK_ATOM];
  v[PM_G_LD_REQ] = (double)p->mem_req[WV_PS_GLOBAL][WV_PK_LD];
  v[PM_G_LD_SEC] = (double)p->mem_sec[WV_PS_GLOBAL][WV_PK_LD];
  v[PM_G_ST_REQ] = (double)p->mem_req[WV_PS_GLOBAL][WV_PK_ST];
  v[PM_G_ST_SEC] = (double)p->mem_sec[WV_PS_GLOBAL][WV_PK_ST];
  v[PM_G_ATOM_REQ] = (double)p->mem_req[WV_PS_GLOBAL][WV_PK_ATOM];
  v[PM_G_ATOM_SEC] = (double)p->mem_sec[WV_PS_GLOBAL][WV_PK_ATOM];
  v[PM_L_LD_REQ] = (double)p->mem_req[WV_PS_LOCAL][WV_PK_LD];
  v[PM_L_LD_SEC] = (double)p->mem_sec[WV_PS_LOCAL][WV_PK_LD];
  v[PM_L_ST_REQ] = (double)p->mem_req[WV_PS_LOCAL][WV_PK_ST];
  v[PM_L_ST_SEC] = (double)p->mem_sec[WV_PS_LOCAL][WV_PK_ST];
  v[PM_ASYNC_BYTES] = (double)p->async_bytes;
  v[PM_ASYNC_WAITS] = (double)p->async_waits;
  v[PM_MBAR_WAITS] = (double)p->mbar_waits;
}

/* The launch's lines: every executed instruction, merged per (function, PTX line). */
static int make_lines(prec *r, const wv_prof *p) {
  uint32_t n = 0;
  for (uint32_t fi = 0; fi < p->mod->nfuncs; fi++)
    for (uint32_t i = 0; p->pc[fi] && i < p->mod->funcs[fi].ncode; i++) n += p->pc[fi][i].warp != 0;
  if (!(r->lines = calloc(n + 1, sizeof *r->lines))) return -1;
  for (uint32_t fi = 0; fi < p->mod->nfuncs; fi++) {
    const wv_func *fn = &p->mod->funcs[fi];
    pline *cur = NULL;
    for (uint32_t i = 0; p->pc[fi] && i < fn->ncode; i++) {
      const wv_pcprof *c = &p->pc[fi][i];
      if (!c->warp) continue;
      const wv_insn *in = &fn->code[i];
      if (!cur || cur->line != in->line) {
        cur = &r->lines[r->nlines++];
        cur->fn = strdup(fn->name);
        cur->mnem = wv_ops[in->op].mnemonic;
        cur->line = in->line;
        cur->src_line = in->src_line;
        cur->cls = (uint8_t)wv_prof_class(in);
        for (uint32_t k = 0; in->src_line && k < fn->nsrc_files; k++)
          if (fn->src_files[k].index == in->src_file && fn->src_files[k].name) {
            const char *b = strrchr(fn->src_files[k].name, '/');
            cur->src_file = strdup(b ? b + 1 : fn->src_files[k].name);
          }
      }
      wv_pcprof *d = &cur->c;
      d->warp += c->warp, d->thread += c->thread, d->pred_on += c->pred_on, d->divergent += c->divergent;
      d->req += c->req, d->wavefronts += c->wavefronts, d->ideal += c->ideal, d->sectors += c->sectors;
      d->bytes += c->bytes, d->stall += c->stall, d->undef += c->undef;
      if (c->space) cur->space = c->space;
      if (c->space && (in->op != WV_OP_LD || !cur->space)) cur->mnem = wv_ops[in->op].mnemonic;
    }
  }
  return 0;
}

static void rec_free(prec *r);

/* Adds record r (a later launch of the same kernel) to d. */
static int rec_add(prec *d, prec *r) {
  for (int k = 0; k < PM_COUNT; k++)
    if (k != PM_THREADS_PER_INST && k != PM_SIMT_EFF && k != PM_OCC_WARPS) d->v[k] += r->v[k];
  d->v[PM_THREADS_PER_INST] = d->v[PM_INST] ? d->v[PM_THREAD_INST] / d->v[PM_INST] : 0;
  d->v[PM_SIMT_EFF] = d->v[PM_THREADS_PER_INST] / 32.0;
  d->status |= r->status;
  d->lost |= r->lost;
  d->launches += r->launches;
  for (uint32_t i = 0; i < r->nlines; i++) {
    pline *l = &r->lines[i], *t = NULL;
    for (uint32_t j = 0; j < d->nlines && !t; j++)
      if (d->lines[j].line == l->line && !strcmp(d->lines[j].fn, l->fn)) t = &d->lines[j];
    if (!t) { /* a line this launch ran and the earlier ones did not: move it over */
      pline *nl = realloc(d->lines, (d->nlines + 1) * sizeof *nl);
      if (!nl) return -1;
      d->lines = nl;
      d->lines[d->nlines++] = *l;
      l->fn = l->src_file = NULL;
      continue;
    }
    wv_pcprof *a = &t->c;
    const wv_pcprof *b = &l->c;
    a->warp += b->warp, a->thread += b->thread, a->pred_on += b->pred_on, a->divergent += b->divergent;
    a->req += b->req, a->wavefronts += b->wavefronts, a->ideal += b->ideal, a->sectors += b->sectors;
    a->bytes += b->bytes, a->stall += b->stall, a->undef += b->undef;
    t->cycles += l->cycles;
  }
  qsort(d->lines, d->nlines, sizeof *d->lines, line_cmp);
  return 0;
}

void wv_prof_launch_end(wv_vm *vm, const wv_launch_desc *L, double seconds, int status) {
  wv_prof *p = vm->prof_acc;
  vm->prof_acc = NULL;
  if (!p) return;
  if (!vm->prof_log && !(vm->prof_log = calloc(1, sizeof *vm->prof_log))) goto out;
  wv_prof_log *g = vm->prof_log;
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 8;
    prec *nr = realloc(g->r, cap * sizeof *nr);
    if (!nr) goto out;
    g->r = nr, g->cap = cap;
  }
  prec *r = &g->r[g->n];
  memset(r, 0, sizeof *r);
  r->kernel = strdup(L->kfn->name);
  r->file = strdup(L->kfn->file ? L->kfn->file : "?");
  memcpy(r->grid, L->grid, sizeof r->grid);
  memcpy(r->block, L->block, sizeof r->block);
  r->dyn_shared = L->dyn_shared;
  r->status = status;
  r->lost = p->lost;
  r->launches = 1;
  if (!r->kernel || !r->file || make_lines(r, p)) {
    rec_free(r);
    goto out;
  }
  fill_totals(r, p);
  r->v[PM_RUN_SECONDS] = seconds;
  estimate(r, L, vm);
  qsort(r->lines, r->nlines, sizeof *r->lines, line_cmp);
  if (!g->n) g->t_origin = p->nev ? p->ev[0].t0 : wv_now() - seconds;
  for (uint32_t i = 0; i < p->nev; i++)
    if (p->ev[i].t0 < g->t_origin) g->t_origin = p->ev[i].t0;
  r->ev = p->ev, r->nev = p->nev, r->ev_dropped = p->ev_dropped;
  p->ev = NULL;
  if (g->n >= WV_PROF_KEEP) { /* many launches: add it to its kernel's latest record */
    for (size_t j = g->n; j-- > 0;)
      if (!strcmp(g->r[j].kernel, r->kernel) && !strcmp(g->r[j].file, r->file)) {
        if (!rec_add(&g->r[j], r)) {
          rec_free(r);
          goto out;
        }
        break;
      }
    if (g->n >= WV_PROF_MAX_RECORDS) {
      g->dropped++;
      rec_free(r);
      goto out;
    }
  }
  g->n++;
out:
  wv_prof_free(p);
}

static void rec_free(prec *r) {
  for (uint32_t i = 0; i < r->nlines; i++) free(r->lines[i].fn), free(r->lines[i].src_file);
  free(r->lines);
  free(r->kernel);
  free(r->file);
  free(r->ev);
}

void wv_profile_reset(wv_vm *vm) {
  if (!vm) return;
  wv_prof_free(vm->prof_acc);
  vm->prof_acc = NULL;
  if (!vm->prof_log) return;
  for (size_t i = 0; i < vm->prof_log->n; i++) rec_free(&vm->prof_log->r[i]);
  free(vm->prof_log->r);
  free(vm->prof_log);
  vm->prof_log = NULL;
}

/* ---- the C API ---- */

size_t wv_profile_count(const wv_vm *vm) { return vm && vm->prof_log ? vm->prof_log->n : 0; }

const char *wv_profile_kernel(const wv_vm *vm, size_t i) {
  return i < wv_profile_count(vm) ? vm->prof_log->r[i].kernel : NULL;
}

int wv_profile_value(const wv_vm *vm, size_t i, const char *name, double *out) {
  if (i >= wv_profile_count(vm) || !name) return -1;
  for (int k = 0; k < PM_COUNT; k++)
    if (!strcmp(name, metric[k].name) || (metric[k].ncu[0] && !strcmp(name, metric[k].ncu))) {
      *out = vm->prof_log->r[i].v[k];
      return 0;
    }
  return -1;
}

/* ---- the readable report ---- */

static const char *space_name(uint8_t sp) {
  static const char *const n[] = {"", "global", "shared", "local", "param"};
  return sp < 5 ? n[sp] : "";
}

/* "file:line" of a line: the CUDA source line when the PTX has .loc, else the PTX line. */
static void where(const pline *l, char *buf, size_t cap) {
  char more[24] = "";
  if (l->nptx > 1) snprintf(more, sizeof more, " +%u", l->nptx - 1);
  if (l->src_line)
    snprintf(buf, cap, "%s:%u (PTX %u%s)", l->src_file ? l->src_file : "line", l->src_line, l->line, more);
  else snprintf(buf, cap, "PTX line %u%s", l->line, more);
}

/* The report's rows: the lines of one CUDA source line (.loc) together, else each PTX line; by cycles. */
static pline *group_lines(const prec *r, uint32_t *n) {
  pline *g = calloc(r->nlines + 1, sizeof *g);
  *n = 0;
  if (!g) return NULL;
  for (uint32_t i = 0; i < r->nlines; i++) {
    const pline *l = &r->lines[i];
    pline *d = NULL;
    for (uint32_t k = 0; l->src_line && k < *n && !d; k++)
      if (g[k].src_line == l->src_line && !strcmp(g[k].fn, l->fn) &&
          (g[k].src_file == l->src_file || (g[k].src_file && l->src_file && !strcmp(g[k].src_file, l->src_file))))
        d = &g[k];
    if (!d) {
      d = &g[(*n)++];
      *d = *l;
      memset(&d->c, 0, sizeof d->c);
      d->cycles = 0;
      d->lat = -1;
    }
    d->nptx++;
    if (l->line < d->line) d->line = l->line;
    if (l->cycles > d->lat) d->lat = l->cycles, d->mnem = l->mnem, d->cls = l->cls; /* named by its costliest line */
    d->cycles += l->cycles;
    d->c.warp += l->c.warp, d->c.thread += l->c.thread, d->c.pred_on += l->c.pred_on, d->c.divergent += l->c.divergent;
    d->c.stall += l->c.stall, d->c.undef += l->c.undef;
    if (l->space == WV_PS_SHARED + 1) d->c.req += l->c.req, d->c.wavefronts += l->c.wavefronts, d->c.ideal += l->c.ideal;
    if (l->space == WV_PS_GLOBAL + 1 || l->space == WV_PS_LOCAL + 1) d->greq += l->c.req, d->gsec += l->c.sectors, d->gbytes += l->c.bytes;
  }
  qsort(g, *n, sizeof *g, line_cmp);
  return g;
}

/* One hint for a line that costs, or nothing. */
static int hint(const pline *l, char *buf, size_t cap) {
  char at[320];
  where(l, at, sizeof at);
  if (l->c.wavefronts > l->c.ideal && l->c.ideal) {
    double way = (double)l->c.wavefronts / (double)l->c.ideal;
    snprintf(buf, cap, "%s: %.0f-way shared-memory bank conflict (%" PRIu64 " wavefronts for %" PRIu64
             " requests): threads of a warp hit different words of one bank; pad the row (e.g. [32][33]) or change the stride",
             at, way, l->c.wavefronts, l->c.req);
    return 1;
  }
  if (l->greq && l->gbytes) {
    double per = (double)l->gsec / (double)l->greq, ideal = (double)l->gbytes / (double)l->greq / 32.0;
    if (ideal < 1) ideal = 1;
    if (per > 2 * ideal) {
      snprintf(buf, cap, "%s: uncoalesced global access: %.1f sectors per request where %.1f would do; make consecutive "
               "threads access consecutive addresses", at, per, ideal);
      return 1;
    }
  }
  if (l->c.divergent) {
    snprintf(buf, cap, "%s: divergent branch (%" PRIu64 " times a warp split): its paths run one after the other; make "
             "the condition uniform per warp (e.g. threadIdx.x / warpSize < N instead of threadIdx.x < N)", at, l->c.divergent);
    return 1;
  }
  if (l->cls == WV_PC_SFU && l->c.warp) {
    snprintf(buf, cap, "%s: %s runs on the SFU, 8x slower per warp than an FMA", at, l->mnem);
    return 1;
  }
  return 0;
}

static void report_one(const wv_vm *vm, const prec *r, FILE *o) {
  const double *v = r->v;
  fprintf(o, "== warpvm profile: kernel %s, grid (%u,%u,%u), block (%u,%u,%u)%s ==\n", r->kernel, r->grid[0], r->grid[1],
          r->grid[2], r->block[0], r->block[1], r->block[2], r->status ? " (failed)" : "");
  if (r->launches > 1)
    fprintf(o, "  (%" PRIu64 " launches of it added up here: warpvm keeps %u launches one by one)\n", r->launches, WV_PROF_KEEP);
  if (r->lost) fprintf(o, "  (out of host memory while counting: some counts are missing)\n");
  fprintf(o, "  instructions  %.0f warp (smsp__inst_executed.sum), %.0f thread (smsp__thread_inst_executed.sum), "
             "%.0f predicated on\n", v[PM_INST], v[PM_THREAD_INST], v[PM_THREAD_PRED]);
  fprintf(o, "  SIMT efficiency %.1f%% (%.1f threads per instruction: smsp__thread_inst_executed_per_inst_executed.ratio)\n",
          100 * v[PM_SIMT_EFF], v[PM_THREADS_PER_INST]);
  fprintf(o, "  by class      ");
  for (int k = 0; k < WV_PC_COUNT; k++)
    if (v[PM_I_ALU + k]) fprintf(o, " %s %.0f", class_name[k], v[PM_I_ALU + k]);
  fprintf(o, " (warp instructions)\n");
  fprintf(o, "  branches      %.0f, %.0f divergent (smsp__sass_branch_targets_threads_divergent.sum)\n", v[PM_BRANCHES],
          v[PM_DIVERGENT]);
  if (v[PM_SH_LD_REQ] || v[PM_SH_ST_REQ])
    fprintf(o, "  shared        loads %.0f requests, %.0f wavefronts, %.0f bank conflicts; stores %.0f requests, %.0f "
               "wavefronts, %.0f bank conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/_st.sum)\n",
            v[PM_SH_LD_REQ], v[PM_SH_LD_WAVE], v[PM_SH_LD_CONF], v[PM_SH_ST_REQ], v[PM_SH_ST_WAVE], v[PM_SH_ST_CONF]);
  if (v[PM_G_LD_REQ] || v[PM_G_ST_REQ])
    fprintf(o, "  global        loads %.0f requests, %.0f sectors (%.2f per request); stores %.0f requests, %.0f sectors "
               "(%.2f per request) (l1tex__t_requests/_sectors_pipe_lsu_mem_global_op_ld/_st.sum)\n",
            v[PM_G_LD_REQ], v[PM_G_LD_SEC], v[PM_G_LD_REQ] ? v[PM_G_LD_SEC] / v[PM_G_LD_REQ] : 0, v[PM_G_ST_REQ],
            v[PM_G_ST_SEC], v[PM_G_ST_REQ] ? v[PM_G_ST_SEC] / v[PM_G_ST_REQ] : 0);
  if (v[PM_L_LD_REQ] || v[PM_L_ST_REQ])
    fprintf(o, "  local         loads %.0f requests, %.0f sectors; stores %.0f requests, %.0f sectors\n", v[PM_L_LD_REQ],
            v[PM_L_LD_SEC], v[PM_L_ST_REQ], v[PM_L_ST_SEC]);
  if (v[PM_G_ATOM_REQ] || v[PM_SH_ATOM_REQ])
    fprintf(o, "  atomics       global %.0f requests (%.0f sectors), shared %.0f\n", v[PM_G_ATOM_REQ], v[PM_G_ATOM_SEC],
            v[PM_SH_ATOM_REQ]);
  if (v[PM_BARRIERS])
    fprintf(o, "  barriers      %.0f warp executions, warps waited %.0f warp-instruction slots\n", v[PM_BARRIERS], v[PM_BAR_WAIT]);
  if (v[PM_COLL])
    fprintf(o, "  collectives   %.0f (%.0f shuffles), %.0f undefined\n", v[PM_COLL], v[PM_SHUFFLES], v[PM_COLL_UNDEF]);
  if (v[PM_ASYNC_BYTES] || v[PM_ASYNC_WAITS] || v[PM_MBAR_WAITS])
    fprintf(o, "  cp.async      %.0f bytes, %.0f wait_group/wait_all, %.0f mbarrier waits (test_wait/try_wait)\n",
            v[PM_ASYNC_BYTES], v[PM_ASYNC_WAITS], v[PM_MBAR_WAITS]);
  if (vm->amd)
    fprintf(o, "  AMD model     %.0f waves of %u lanes, occupancy %.0f of 32 waves per CU, %.0f ds_bpermute_b32 (one per "
               "shuffle: an LDS-hardware instruction)\n", v[PM_AMD_WAVES], vm->amd->wave, v[PM_AMD_OCC], v[PM_AMD_BPERMUTE]);
  fprintf(o, "  estimate      %.0f cycles, %.2f us on an H100 (132 SMs, 1.755 GHz, + 2 us launch); occupancy %.0f warps/SM; "
             "limited by %s\n", v[PM_EST_CYCLES], v[PM_EST_SECONDS] * 1e6, v[PM_OCC_WARPS], lim_name[r->limiter]);
  uint32_t ng;
  pline *g = group_lines(r, &ng);
  double total = 0;
  for (uint32_t i = 0; i < ng; i++) total += g[i].cycles;
  fprintf(o, "  top lines by estimated cycles (PTX %s):\n    %6s  %-30s %-6s %10s  %s\n", r->file, "share", "where", "what",
          "warp insts", "detail");
  for (uint32_t i = 0; i < ng && i < 8; i++) {
    const pline *l = &g[i];
    char at[320], det[160] = "";
    where(l, at, sizeof at);
    int k = 0;
    if (l->c.req)
      k += snprintf(det, sizeof det, "shared %.2f wavefronts/request ", (double)l->c.wavefronts / (double)l->c.req);
    if (l->greq)
      snprintf(det + k, sizeof det - (size_t)k, "global %.2f sectors/request", (double)l->gsec / (double)l->greq);
    if (l->c.req || l->greq) {
    } else if (l->c.divergent)
      snprintf(det, sizeof det, "%" PRIu64 " divergent branches", l->c.divergent);
    else if (l->c.stall)
      snprintf(det, sizeof det, "barrier: waited %" PRIu64 " slots", l->c.stall);
    fprintf(o, "    %5.1f%%  %-30s %-6s %10" PRIu64 "  %s\n", total ? 100 * l->cycles / total : 0, at, l->mnem, l->c.warp, det);
  }
  int nh = 0;
  for (uint32_t i = 0; i < ng && nh < 5; i++) {
    char h[640];
    if (!hint(&g[i], h, sizeof h)) continue;
    if (!nh++) fprintf(o, "  hints:\n");
    fprintf(o, "    %s\n", h);
  }
  free(g);
}

void wv_profile_report(const wv_vm *vm, FILE *o) {
  for (size_t i = 0; i < wv_profile_count(vm); i++) report_one(vm, &vm->prof_log->r[i], o);
  if (vm && vm->prof_log && vm->prof_log->dropped)
    fprintf(o, "== warpvm profile: %" PRIu64 " more launches not kept (at most %u records) ==\n", vm->prof_log->dropped,
            WV_PROF_MAX_RECORDS);
}

/* ---- JSON ---- */

static void json_str(FILE *o, const char *s) {
  fputc('"', o);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(o, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(o, "\\u%04x", *s);
    else fputc(*s, o);
  }
  fputc('"', o);
}

void wv_profile_write_json(const wv_vm *vm, FILE *o) {
  fprintf(o, "{\"tool\": \"warpvm\", \"model\": \"H100 SXM (sm_90), 132 SMs, 1.755 GHz\", \"launches\": [");
  for (size_t i = 0; i < wv_profile_count(vm); i++) {
    const prec *r = &vm->prof_log->r[i];
    fprintf(o, "%s\n {\"kernel\": ", i ? "," : "");
    json_str(o, r->kernel);
    fprintf(o, ", \"ptx\": ");
    json_str(o, r->file);
    fprintf(o, ", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"dynamic_shared\": %u, \"status\": %d, \"launches\": %" PRIu64
               ",\n  \"ncu\": {",
            r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2], r->dyn_shared, r->status, r->launches);
    int first = 1;
    for (int k = 0; k < PM_COUNT; k++)
      if (metric[k].ncu[0]) {
        fprintf(o, "%s\"%s\": %.17g", first ? "" : ", ", metric[k].ncu, r->v[k]);
        first = 0;
      }
    fprintf(o, "},\n  \"warpvm\": {");
    for (int k = 0; k < PM_COUNT; k++) fprintf(o, "%s\"%s\": %.17g", k ? ", " : "", metric[k].name, r->v[k]);
    fprintf(o, ", \"limiter\": \"%s\"},\n  \"lines\": [", lim_name[r->limiter]);
    for (uint32_t j = 0; j < r->nlines; j++) {
      const pline *l = &r->lines[j];
      fprintf(o, "%s\n   {\"function\": ", j ? "," : "");
      json_str(o, l->fn);
      fprintf(o, ", \"src_file\": ");
      json_str(o, l->src_file ? l->src_file : "");
      fprintf(o, ", \"ptx_line\": %u, \"src_line\": %u, \"op\": \"%s\", \"class\": \"%s\", \"space\": \"%s\", "
                 "\"inst\": %" PRIu64 ", \"thread_inst\": %" PRIu64 ", \"pred_on\": %" PRIu64 ", \"divergent\": %" PRIu64
                 ", \"requests\": %" PRIu64 ", \"wavefronts\": %" PRIu64 ", \"bank_conflicts\": %" PRIu64 ", \"sectors\": %" PRIu64
                 ", \"bytes\": %" PRIu64 ", \"barrier_wait\": %" PRIu64 ", \"undefined\": %" PRIu64 ", \"est_cycles\": %.17g}",
              l->line, l->src_line, l->mnem, class_name[l->cls], space_name(l->space), l->c.warp, l->c.thread, l->c.pred_on,
              l->c.divergent, l->c.req, l->c.wavefronts, l->c.wavefronts - l->c.ideal, l->c.sectors, l->c.bytes, l->c.stall,
              l->c.undef, l->cycles);
    }
    fprintf(o, "]}");
  }
  fprintf(o, "\n]}\n");
}

/* ---- the trace (Chrome trace-event JSON, which Perfetto opens) ---- */

void wv_profile_write_trace(const wv_vm *vm, FILE *o) {
  fprintf(o, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
  fprintf(o, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"warpvm\"}},\n");
  fprintf(o, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"launches\"}}");
  double t0 = vm->prof_log ? vm->prof_log->t_origin : 0;
  uint8_t named[64][33] = {{0}}; /* tracks named so far: per worker, its CTAs (32) and each warp's */
  for (size_t i = 0; i < wv_profile_count(vm); i++) {
    const prec *r = &vm->prof_log->r[i];
    double lo = 0, hi = 0;
    for (uint32_t k = 0; k < r->nev; k++) {
      if (!k || r->ev[k].t0 < lo) lo = r->ev[k].t0;
      if (!k || r->ev[k].t1 > hi) hi = r->ev[k].t1;
    }
    if (!r->nev) continue;
    fprintf(o, ",\n{\"name\": ");
    json_str(o, r->kernel);
    fprintf(o, ", \"cat\": \"launch\", \"ph\": \"X\", \"pid\": 1, \"tid\": 0, \"ts\": %.3f, \"dur\": %.3f, \"args\": "
               "{\"grid\": \"%u,%u,%u\", \"block\": \"%u,%u,%u\", \"est_cycles\": %.0f}}",
            (lo - t0) * 1e6, (hi - lo) * 1e6, r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2],
            r->v[PM_EST_CYCLES]);
    for (uint32_t k = 0; k < r->nev; k++) {
      const wv_prof_ev *e = &r->ev[k];
      uint32_t wk = e->worker < 64 ? e->worker : 63, slot = e->kind == WV_EV_CTA ? 32 : e->warp % 32;
      if (!named[wk][slot]) {
        named[wk][slot] = 1;
        if (slot == 32)
          fprintf(o, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, \"args\": {\"name\": \"worker %u: blocks\"}}",
                  1 + e->worker, e->worker);
        else
          fprintf(o, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, \"args\": {\"name\": \"worker %u: warp %u\"}}",
                  1000 + e->worker * 64 + e->warp, e->worker, e->warp);
      }
      static const char *const kind[] = {"cta", "barrier wait", "cp.async group"};
      /* a track per worker thread for its CTAs, one per worker and warp for barrier waits and cp.async groups */
      fprintf(o, ",\n{\"name\": \"%s %" PRIu64 "%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, \"ts\": %.3f, "
                 "\"dur\": %.3f, \"args\": {\"cta\": %" PRIu64 ", \"warp\": %u, \"ptx_line\": %u}}",
              e->kind == WV_EV_CTA ? "block" : kind[e->kind], e->cta, e->kind == WV_EV_CTA ? "" : "", kind[e->kind],
              e->kind == WV_EV_CTA ? 1 + e->worker : 1000 + e->worker * 64 + e->warp,
              (e->t0 - t0) * 1e6, (e->t1 - e->t0) * 1e6, e->cta, e->warp, e->line);
    }
  }
  fprintf(o, "\n]}\n");
}

wv_status wv_profile_write(const wv_vm *vm, FILE *report, const char *json_path, const char *trace_path) {
  wv_status st = WV_OK;
  const char *path[2] = {json_path, trace_path}; /* the files first: a closed stderr does not lose them */
  for (int k = 0; k < 2; k++) {
    if (!path[k]) continue;
    FILE *f = fopen(path[k], "w");
    if (!f) { fprintf(stderr, "warpvm: cannot write %s\n", path[k]); st = WV_ERR_IO; continue; }
    if (k) wv_profile_write_trace(vm, f);
    else wv_profile_write_json(vm, f);
    if (fclose(f)) { fprintf(stderr, "warpvm: cannot write %s\n", path[k]); st = WV_ERR_IO; }
  }
  if (report) wv_profile_report(vm, report);
  return st;
}
