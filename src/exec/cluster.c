/*
 * cluster.c — thread-block clusters (sm_90, PTX ISA "Cluster of Cooperative Thread Arrays"): the cluster
 * special registers, distributed shared memory (.shared::cluster addresses, mapa, getctarank) and the
 * cluster barrier (barrier.cluster.arrive/wait). The CTAs of a cluster are resident together and take
 * turns on one host thread (launch.c, run_resident), so one CTA's threads may read, write and
 * atomically update another's shared memory and arrive on its mbarriers with plain host accesses.
 *
 * Addresses. A .shared::cluster address below WV_GPU_SHARED_WINDOW (16 MiB) is the running CTA's own
 * .shared address (the PTX ISA: a .shared::cta address is a valid .shared::cluster address of the
 * executing CTA); above it, bits 31:24 hold the target's rank + 1 and bits 23:0 the offset in its shared
 * memory (WV_CLUSTER_ADDR: what mapa returns). Generic addresses are the shared window plus that, so
 * cvta and isspacep need nothing more. This layout is warpvm's: a program that only uses mapa's result
 * (as CUDA's cluster.map_shared_rank does) cannot tell.
 *
 * The cluster barrier: every non-exited thread of the cluster arrives (barrier.cluster.arrive), and a
 * thread's wait (barrier.cluster.wait) returns once the phase it arrived in has completed. A wait without
 * an arrive before it arrives first. A launch without clusters has each CTA a cluster of one
 * (wv_cta.own), the same code.
 */
#include "exec/handlers.h"
#include "exec/sched.h"
#include "exec/warp.h"

wv_cta *wv_cluster_cta(wv_exec *x, uint64_t sa, uint64_t addr, int lane, uint64_t *off) {
  if (sa < WV_GPU_SHARED_WINDOW) {
    *off = sa;
    return x->cta;
  }
  const wv_cluster *cl = x->cta->cl;
  uint64_t rank = ((sa >> 24) & 0xff) - 1;
  if (sa >= ((uint64_t)1 << 32) || rank >= cl->n) {
    wv_fault_set(x, WV_ERR_FAULT, lane, 1, addr,
                 "shared::cluster access at an address naming block rank %lld of a cluster of %u blocks",
                 (long long)(sa >= ((uint64_t)1 << 32) ? -1 : (int64_t)rank), cl->n);
    return NULL;
  }
  *off = sa & 0xffffffu;
  return cl->ctas[rank];
}

/* The .shared::cluster address of a (a .shared::cta or ::cluster address) in the CTA of rank r. */
static uint64_t map_rank(uint64_t a, uint64_t r) { return WV_CLUSTER_ADDR(r, a & 0xffffffu); }

/* mapa{.shared::cluster}.{u32,u64} d, a, b: a's variable in the CTA of rank b (generic: in->space 0). */
static int h_mapa(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  int generic = in->space == WV_SPACE_GENERIC, narrow = wv_type_size((wv_type)in->type) == 4;
  WV_FOR_LANES(m, l, {
    uint64_t a = generic ? A[l] - WV_SHARED_WINDOW : (uint32_t)A[l];
    uint64_t v = map_rank(a, (uint32_t)B[l]) + (generic ? WV_SHARED_WINDOW : 0);
    D[l] = narrow ? (uint32_t)v : v;
  });
  return 0;
}

/* getctarank{.shared::cluster}.u32 d, a: the rank of the CTA whose shared memory a lies in. */
static int h_getctarank(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  int generic = in->space == WV_SPACE_GENERIC;
  WV_FOR_LANES(m, l, {
    uint64_t sa = generic ? A[l] - WV_SHARED_WINDOW : (uint32_t)A[l];
    D[l] = sa < WV_GPU_SHARED_WINDOW ? x->cta->rank : ((sa >> 24) & 0xff) - 1;
  });
  return 0;
}

/* setmaxnreg.{inc,dec}.sync.aligned.u32 N (sm_90a): registers are not modelled, so the count has no effect; what
 * the PTX ISA requires of the executing threads is checked — .sync.aligned: every thread of the warp executes it
 * together (the decoder checks N: 24..256, a multiple of 8). */
static int h_setmaxnreg(wv_exec *x, const wv_insn *in, uint32_t m) {
  (void)in;
  uint32_t live = x->warp->exists & ~x->warp->exited;
  if (m != live || x->cur_mask != live)
    return wv_fault_set(x, WV_ERR_FAULT, __builtin_ctz(m), 0, 0,
                        "setmaxnreg.sync.aligned executed by lanes 0x%08x of a warp whose live lanes are 0x%08x", m, live);
  return 0;
}

wv_handler wv_h_cluster(int which) { return which == 2 ? h_setmaxnreg : which ? h_getctarank : h_mapa; }

/* ---------------- the cluster's special registers ---------------- */

void wv_cluster_specials(const wv_cta *cta, const uint32_t grid[3], int explicit_cluster, uint64_t read) {
  const wv_cluster *cl = cta->cl;
  uint32_t v[WV_SP_IS_EXPLICIT_CLUSTER - WV_SP_CLUSTER_CTAID_X + 1];
  for (int k = 0; k < 3; k++) {
    v[WV_SP_CLUSTER_CTAID_X - WV_SP_CLUSTER_CTAID_X + k] = cta->ctaid[k] % cl->dim[k];
    v[WV_SP_CLUSTER_NCTAID_X - WV_SP_CLUSTER_CTAID_X + k] = cl->dim[k];
    v[WV_SP_CLUSTERID_X - WV_SP_CLUSTER_CTAID_X + k] = cta->ctaid[k] / cl->dim[k];
    v[WV_SP_NCLUSTERID_X - WV_SP_CLUSTER_CTAID_X + k] = grid[k] / cl->dim[k];
  }
  v[WV_SP_CLUSTER_CTARANK - WV_SP_CLUSTER_CTAID_X] = cta->rank;
  v[WV_SP_CLUSTER_NCTARANK - WV_SP_CLUSTER_CTAID_X] = cl->n;
  v[WV_SP_IS_EXPLICIT_CLUSTER - WV_SP_CLUSTER_CTAID_X] = explicit_cluster != 0;
  /* (each row holds one value in all lanes, zero at first: a row that has it already is left; a warp that held
   * another CTA of the launch rewrites only its rows that change, %clusterid where the cluster is one CTA. The
   * CTA's warps hold the same rows, all written for the CTA they held before or all zero: warp 0's tell which;
   * rows no instruction of the module reads (read, wv_irmod.sp_read) are not written) */
  uint32_t diff = 0;
  const uint64_t *sp0 = cta->nwarps ? cta->warps[0].specials : NULL;
  for (uint32_t k = 0; sp0 && k < sizeof v / sizeof *v; k++)
    if (((read >> (WV_SP_CLUSTER_CTAID_X + k)) & 1) && sp0[(WV_SP_CLUSTER_CTAID_X + k) * WV_WARP] != v[k]) diff |= 1u << k;
  for (uint32_t wi = 0; diff && wi < cta->nwarps; wi++) {
    uint64_t *sp = cta->warps[wi].specials;
    for (uint32_t d = diff; d; d &= d - 1) {
      uint32_t k = (uint32_t)__builtin_ctz(d);
      for (int l = 0; l < WV_WARP; l++) sp[(WV_SP_CLUSTER_CTAID_X + k) * WV_WARP + l] = v[k];
    }
  }
}

/* ---------------- the cluster barrier ---------------- */

static uint32_t cluster_live(const wv_cluster *cl) {
  uint32_t n = 0;
  for (uint32_t r = 0; r < cl->n; r++) n += cl->ctas[r]->live_threads;
  return n;
}

/* The lanes of w whose arrival (if any) was in the current, incomplete phase. */
static uint32_t this_phase(const wv_warp *w, const wv_cluster *cl) { return (cl->phase & 1) ? w->cl_parity : ~w->cl_parity; }

/* Release the waiting groups whose lanes' phase has completed. */
static void release_waiters(sched *s, wv_cluster *cl) {
  for (uint32_t r = 0; r < cl->n; r++) {
    wv_cta *cta = cl->ctas[r];
    for (uint32_t wi = 0; wi < cta->nwarps; wi++) {
      wv_warp *w = &cta->warps[wi];
      int any = 0;
      for (uint32_t i = 0; i < w->ngroups; i++) {
        wv_group *g = &w->groups[i];
        if (!g->mask || g->state != WV_G_BAR || g->bar_id != WV_CLUSTER_BARRIER) continue;
        uint32_t waiting = g->mask & w->cl_arrived & this_phase(w, cl);
        if (waiting) continue; /* (lanes of the current phase: not yet) */
        w->cl_arrived &= ~g->mask;
        g->state = WV_G_RUN;
        g->pc++;
        any = 1;
      }
      if (any) wv_sched_merge(s, w);
    }
  }
}

void wv_cluster_bar_check(sched *s, wv_cluster *cl) {
  if (!cl->arrived || cl->arrived < cluster_live(cl)) return;
  cl->arrived = 0;
  cl->phase++;
  s->barriers++;
  release_waiters(s, cl);
}

static void arrive(wv_warp *w, wv_cluster *cl, uint32_t m) {
  m &= ~w->cl_arrived;
  if (!m) return;
  w->cl_arrived |= m;
  w->cl_parity = (cl->phase & 1) ? w->cl_parity | m : w->cl_parity & ~m;
  cl->arrived += (uint32_t)__builtin_popcount(m);
}

int wv_cluster_bar(sched *s, wv_warp *w, wv_group *g, const wv_insn *in, uint32_t m) {
  wv_cluster *cl = s->x.cta->cl;
  arrive(w, cl, m);
  if (in->mode == WV_BAR_CLUSTER_ARRIVE) {
    g->pc++;
    wv_cluster_bar_check(s, cl);
    return 0;
  }
  g->state = WV_G_BAR;
  g->bar_id = WV_CLUSTER_BARRIER;
  wv_cluster_bar_check(s, cl);
  /* a wait whose phase completed earlier returns at once */
  if (g->state == WV_G_BAR && !(g->mask & w->cl_arrived & this_phase(w, cl))) {
    w->cl_arrived &= ~g->mask;
    g->state = WV_G_RUN;
    g->pc++;
    return 0;
  }
  return 1;
}

/* ---------------- forming clusters ---------------- */

void wv_cluster_form(wv_cluster *cl, wv_cta *const *ctas, const uint32_t dim[3]) {
  cl->n = dim[0] * dim[1] * dim[2];
  memcpy(cl->dim, dim, sizeof cl->dim);
  cl->arrived = cl->phase = cl->async_pending = 0;
  for (uint32_t r = 0; r < cl->n; r++) {
    cl->ctas[r] = ctas[r];
    ctas[r]->cl = cl;
    ctas[r]->rank = r;
  }
}

int wv_cluster_run(sched *s, wv_cta *ctas, uint32_t n) {
  int stuck_round = 0, live = (int)n;
  uint8_t done[WV_MAX_CLUSTER] = {0};
  while (live > 0) {
    s->strict = stuck_round; /* the last round moved nothing: a CTA with nothing to run is deadlocked */
    stuck_round = 1;
    for (uint32_t r = 0; r < n; r++) {
      if (done[r]) continue;
      wv_cta *cta = &ctas[r];
      s->x.cta = cta;
      cta->clk_bias += s->warp_insns - cta->clk_out; /* other CTAs' turns do not age its waits */
      int rc = wv_cta_turn(s);
      cta->clk_out = s->warp_insns;
      if (rc < 0) return -1;
      if (rc != 2) stuck_round = 0;
      if (rc == 0) done[r] = 1, live--;
    }
  }
  return 0;
}

uint64_t wv_cluster_seq_ci(const uint32_t grid[3], const uint32_t dim[3], uint64_t seq) {
  uint64_t csize = (uint64_t)dim[0] * dim[1] * dim[2], q = seq / csize, r = seq % csize;
  uint64_t ncx = grid[0] / dim[0], ncy = grid[1] / dim[1];
  uint64_t c[3] = {(q % ncx) * dim[0] + r % dim[0], ((q / ncx) % ncy) * dim[1] + (r / dim[0]) % dim[1],
                   (q / (ncx * ncy)) * dim[2] + r / ((uint64_t)dim[0] * dim[1])};
  return c[0] + c[1] * grid[0] + c[2] * (uint64_t)grid[0] * grid[1];
}
