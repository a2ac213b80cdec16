/*
 * async.c — asynchronous copies and mbarriers (PTX ISA §9.7.9.25 cp.async, §9.7.13.15 mbarrier).
 *
 * cp.async: each lane keeps a FIFO of its copies not yet delivered, tagged with the cp.async-group
 * they belong to (commit_group closes a group), and of cp.async.mbarrier.arrive markers. A copy's
 * data lands in shared memory when the delivery mode says: `at-wait` (default) at the first point a
 * correct program may observe it — cp.async.wait_group/wait_all of the issuing thread, or an
 * mbarrier wait on a barrier its arrive-marker targets; `eager` at issue; `random` after a random
 * number of later cp.async operations of the same lane, and at the latest when waited for. A shared
 * load of bytes an undelivered copy will write is counted (async_early_reads): it sees the old data.
 * The CTA's index of those bytes (wv_aidx: a count of undelivered copies per 16-byte granule) lets a
 * load that meets none of them skip the exact scan of every lane's queue.
 *
 * mbarrier: the 64-bit object holds the pending arrival count (bits 19:0), the expected count
 * (39:20), the pending transaction count (60:40) and the phase parity (63). A phase completes when
 * both counts reach zero: the parity flips and the pending count is reloaded. The state arrive
 * returns is the phase parity (bit 63) and the pending count before the arrival (19:0), which is
 * what mbarrier.pending_count reads back on an H200 (tests/kernels async.mbar_basic).
 *
 * cp.async.bulk (sm_90): a copy of any size followed by a complete_tx of its bytes on an mbarrier,
 * delivered like the others (at-wait: when that mbarrier is waited on).
 */
#include <stdlib.h>

#include "exec/handlers.h"

typedef struct wv_aent {
  uint8_t marker;      /* 0: a copy; 1: cp.async.mbarrier.arrive; 2: complete_tx of `size` bytes (bulk) */
  const wv_func *fn;   /* the instruction that issued it, for a fault at delivery */
  uint32_t pc;
  uint32_t size, srcsize;
  uint32_t group;      /* the lane's open group when issued */
  uint64_t dst;        /* copy: shared offset; marker: the mbarrier's address */
  int space;           /* marker: address space of the mbarrier */
  uint64_t src;        /* copy: global address */
} wv_aent;

typedef struct wv_aq {
  wv_aent *v;
  uint32_t head, n, cap;
  uint32_t group;      /* id of the open (uncommitted) group */
} wv_aq;

#define MB_PENDING(w) ((uint32_t)((w) & 0xfffffu))
#define MB_EXPECTED(w) ((uint32_t)(((w) >> 20) & 0xfffffu))
#define MB_TX(w) ((uint32_t)(((w) >> 40) & 0x1fffffu))
#define MB_PHASE(w) ((uint32_t)((w) >> 63))
static uint64_t mb_make(uint32_t pending, uint32_t expected, uint32_t tx, uint32_t phase) {
  return (uint64_t)(pending & 0xfffffu) | (uint64_t)(expected & 0xfffffu) << 20 | (uint64_t)(tx & 0x1fffffu) << 40 |
         (uint64_t)(phase & 1) << 63;
}

/* ---------------- mbarrier objects ---------------- */

static uint8_t *mb_ptr(wv_exec *x, int space, uint64_t addr, int lane) {
  return wv_mem_xlate(x, space, addr, 8, 8, lane, WV_MEM_STORE);
}

/* Wake every group of the cluster waiting in try_wait (an arrival may come from another CTA of the cluster,
 * .shared::cluster): they test their phase again. */
static void mb_wake(wv_exec *x) {
  const wv_cluster *cl = x->cta->cl;
  for (uint32_t r = 0; r < cl->n; r++)
    for (uint32_t wi = 0; wi < cl->ctas[r]->nwarps; wi++) {
      wv_warp *w = &cl->ctas[r]->warps[wi];
      for (uint32_t i = 0; i < w->ngroups; i++)
        if (w->groups[i].mask && w->groups[i].state == WV_G_MBAR) w->groups[i].state = WV_G_RUN;
    }
}

/* Apply `count` arrivals and a transaction change to the object; completes the phase if due.
 * Returns the state (phase before, pending after). */
static uint64_t mb_update(wv_exec *x, uint8_t *p, uint32_t arrivals, int64_t tx_delta, int drop, int no_complete) {
  uint64_t w;
  memcpy(&w, p, 8);
  uint32_t pending = MB_PENDING(w), expected = MB_EXPECTED(w), phase = MB_PHASE(w);
  int64_t tx = (int64_t)MB_TX(w) + tx_delta;
  if (tx < 0) tx = 0;
  uint64_t state = (uint64_t)phase << 63 | pending;
  pending = arrivals > pending ? 0 : pending - arrivals;
  if (drop && expected) expected--;
  if (pending == 0 && tx == 0 && !no_complete) { /* the phase completes */
    phase ^= 1;
    pending = expected;
    mb_wake(x);
  }
  w = mb_make(pending, expected, (uint32_t)tx, phase);
  memcpy(p, &w, 8);
  return state;
}

/* ---------------- which shared bytes undelivered copies will write ---------------- */

#define GRAN_SHIFT 4 /* 16-byte granules: cp.async writes 4, 8 or 16 aligned bytes, cp.async.bulk multiples of 16 */

/* Per CTA: how many undelivered copies write into each granule of shared memory, and a bit per granule whose
 * count is not 0 (a range test reads 64 granules a word). Counts go up at enqueue, down at delivery; entries
 * dropped undelivered (a CTA restarted in reused buffers) leave counts behind, so when the CTA has nothing
 * pending its next copy clears the granules touched since the last clearing, [dlo, dhi). */
typedef struct wv_aidx {
  uint32_t ngran;
  uint32_t dlo, dhi;
  uint32_t *cnt;
  uint64_t *bits;
} wv_aidx;

static void aidx_count(wv_aidx *a, uint64_t dst, uint32_t size, int up) {
  uint32_t g0 = (uint32_t)(dst >> GRAN_SHIFT), g1 = (uint32_t)((dst + size - 1) >> GRAN_SHIFT);
  for (uint32_t g = g0; g <= g1; g++) {
    if (up) {
      if (a->cnt[g]++ == 0) a->bits[g / 64] |= 1ull << (g % 64);
    } else if (--a->cnt[g] == 0) {
      a->bits[g / 64] &= ~(1ull << (g % 64));
    }
  }
  if (up && g0 < a->dlo) a->dlo = g0;
  if (up && g1 + 1 > a->dhi) a->dhi = g1 + 1;
}

/* The CTA's index, clean when nothing is pending, covering its shared memory; NULL: out of host memory. */
static wv_aidx *aidx_get(wv_exec *x) {
  wv_cta *cta = x->cta;
  uint32_t ngran = (cta->shared_size >> GRAN_SHIFT) + 1;
  wv_aidx *a = cta->aidx;
  if (a && a->ngran < ngran) wv_async_cta_free(cta), a = NULL;
  if (!a) {
    if (!(a = calloc(1, sizeof *a))) return NULL;
    a->ngran = ngran;
    a->cnt = calloc(ngran, sizeof *a->cnt);
    a->bits = calloc((ngran + 63) / 64, sizeof *a->bits);
    a->dlo = ngran;
    cta->aidx = a;
    if (!a->cnt || !a->bits) { wv_async_cta_free(cta); return NULL; }
  }
  if (!cta->async_pending && a->dlo < a->dhi) { /* clean again: forget what dropped entries left */
    memset(a->cnt + a->dlo, 0, (size_t)(a->dhi - a->dlo) * sizeof *a->cnt);
    memset(a->bits + a->dlo / 64, 0, (size_t)((a->dhi + 63) / 64 - a->dlo / 64) * sizeof *a->bits);
    a->dlo = ngran;
    a->dhi = 0;
  }
  return a;
}

int wv_async_pending_in(const wv_exec *x, uint64_t lo, uint64_t hi) {
  const wv_aidx *a = x->cta->aidx;
  if (!a || !x->cta->async_pending || hi <= lo) return 0; /* (no index: the CTA never issued a copy) */
  uint64_t g0 = lo >> GRAN_SHIFT, g1 = (hi - 1) >> GRAN_SHIFT;
  if (g1 >= a->ngran) g1 = a->ngran - 1; /* (an over-read past the CTA's memory: no copy writes there) */
  if (g0 > g1) return 0;
  for (uint64_t w = g0 / 64; w <= g1 / 64; w++) {
    uint64_t bits = a->bits[w];
    if (w == g0 / 64) bits &= ~0ull << (g0 % 64);
    if (w == g1 / 64) bits &= ~0ull >> (63 - g1 % 64);
    if (bits) return 1;
  }
  return 0;
}

void wv_async_cta_free(wv_cta *cta) {
  if (!cta->aidx) return;
  free(cta->aidx->cnt);
  free(cta->aidx->bits);
  free(cta->aidx);
  cta->aidx = NULL;
}

/* ---------------- delivery ---------------- */

static wv_aq *lane_q(wv_exec *x, wv_warp *w, int lane) {
  if (!w->aq) {
    w->aq = calloc(WV_WARP, sizeof *w->aq);
    if (!w->aq) { wv_fault_set(x, WV_ERR_NOMEM, lane, 0, 0, "out of host memory for cp.async"); return NULL; }
  }
  return &w->aq[lane];
}

/* A fault while delivering e of warp w's lane: it is the issuing cp.async's, and is reported there. */
static int delivery_fault(wv_exec *x, wv_warp *w, const wv_aent *e, int first) {
  if (first) {
    x->fault.at_warp = w;
    x->fault.at_fn = e->fn;
    x->fault.at_pc = e->pc;
  }
  return 1;
}

/* Perform the oldest entry of a lane's queue. */
static int deliver_one(wv_exec *x, wv_warp *w, int lane, wv_aq *q) {
  wv_aent *e = &q->v[q->head];
  int first = x->fault.status == WV_OK;
  q->head++;
  x->cta->async_pending--;
  if (!e->marker) aidx_count(x->cta->aidx, e->dst, e->size, 0);
  if (e->marker) {
    wv_warp *saved = x->warp;
    x->warp = w;
    uint8_t *p = mb_ptr(x, e->space, e->dst, lane);
    x->warp = saved;
    if (!p) return delivery_fault(x, w, e, first);
    mb_update(x, p, e->marker == 2 ? 0 : 1, e->marker == 2 ? -(int64_t)e->size : 0, 0, 0);
    return 0;
  }
  /* checked (and an over-read counted) at issue; a src-size of 0 reads nothing (zero fill) */
  uint8_t *src = e->srcsize ? wv_mem_xlate(x, WV_SPACE_GLOBAL, e->src, e->srcsize, 1, lane, WV_MEM_LOAD_QUIET) : NULL;
  if (e->srcsize && !src) return delivery_fault(x, w, e, first);
  uint8_t *dst = x->cta->shared + e->dst;
  if (e->srcsize) memcpy(dst, src, e->srcsize);
  memset(dst + e->srcsize, 0, (size_t)(e->size - e->srcsize)); /* zero fill */
  return 0;
}

/* Deliver a lane's entries from the front while `keep` says so. */
static int deliver_while(wv_exec *x, wv_warp *w, int lane, int (*keep)(const wv_aent *e, const void *arg),
                         const void *arg) {
  if (!w->aq) return 0;
  wv_aq *q = &w->aq[lane];
  while (q->head < q->n && keep(&q->v[q->head], arg))
    if (deliver_one(x, w, lane, q)) return 1;
  if (q->head == q->n) q->head = q->n = 0;
  return 0;
}

static int keep_all(const wv_aent *e, const void *arg) { (void)e; (void)arg; return 1; }
static int keep_older(const wv_aent *e, const void *arg) { return e->marker || e->group < *(const uint32_t *)arg; }
static int keep_count(const wv_aent *e, const void *arg) {
  (void)e;
  uint32_t *n = (uint32_t *)(uintptr_t)arg;
  return (*n)-- > 0;
}

/* Deliver, in every lane of the CTA, everything up to the last arrive-marker for mbarrier `addr`. */
static int deliver_for_mbar(wv_exec *x, int space, uint64_t addr) {
  if (!x->cta->async_pending) return 0;
  for (uint32_t wi = 0; wi < x->cta->nwarps; wi++) {
    wv_warp *w = &x->cta->warps[wi];
    if (!w->aq) continue;
    for (int l = 0; l < WV_WARP; l++) {
      wv_aq *q = &w->aq[l];
      uint32_t last = q->head;
      int found = 0;
      for (uint32_t i = q->head; i < q->n; i++)
        if (q->v[i].marker && q->v[i].dst == addr && q->v[i].space == space) last = i + 1, found = 1;
      uint32_t n = last - q->head;
      if (found && deliver_while(x, w, l, keep_count, &n)) return 1;
    }
  }
  return 0;
}

static int enqueue(wv_exec *x, int lane, wv_aent e) {
  wv_aq *q = lane_q(x, x->warp, lane);
  if (!q) return 1;
  if (q->n == q->cap) {
    uint32_t nc = q->cap ? q->cap * 2 : 8;
    if (nc > (1u << 20)) return wv_fault_set(x, WV_ERR_FAULT, lane, 0, 0, "more than a million cp.async operations never waited for");
    wv_aent *nv = realloc(q->v, nc * sizeof *nv);
    if (!nv) return wv_fault_set(x, WV_ERR_NOMEM, lane, 0, 0, "out of host memory for cp.async");
    q->v = nv;
    q->cap = nc;
  }
  wv_aidx *a = e.marker ? NULL : aidx_get(x);
  if (!e.marker && !a) return wv_fault_set(x, WV_ERR_NOMEM, lane, 0, 0, "out of host memory for cp.async");
  e.group = q->group;
  e.fn = x->fn;
  e.pc = x->cur_pc;
  q->v[q->n++] = e;
  x->cta->async_pending++;
  if (a) aidx_count(a, e.dst, e.size, 1);
  if (x->async_mode == WV_ASYNC_EAGER) return deliver_while(x, x->warp, lane, keep_all, NULL);
  if (x->async_mode == WV_ASYNC_RANDOM) { /* a random prefix of the lane's queue lands now */
    x->rng ^= x->rng << 13;
    x->rng ^= x->rng >> 17;
    x->rng ^= x->rng << 5;
    uint32_t n = x->rng % (q->n - q->head + 1);
    return deliver_while(x, x->warp, lane, keep_count, &n);
  }
  return 0;
}

/* ---------------- handlers ---------------- */

static inline uint64_t addr_of(wv_exec *x, uint32_t slot, int64_t off, uint8_t flags, int l) {
  return wv_lane_addr(x, slot != WV_NOSLOT ? WV_R(x, slot) : NULL, off, flags, l);
}

static int h_cp(wv_exec *x, const wv_insn *in, uint32_t m) {
  switch (in->mode) {
  case WV_CP_COPY: {
    const uint64_t *S = in->c != WV_NOSLOT ? WV_R(x, in->c) : NULL;
    uint32_t size = in->target, whole = 1;
    if (S) WV_FOR_LANES(m, l, { whole &= S[l] >= size; });
    /* both ends checked for the whole warp at once; else lane by lane, where a bad copy is reported */
    uint64_t dsts[WV_WARP], srcs[WV_WARP];
    wv_region r;
    int checked = whole && wv_warp_region(x, WV_SPACE_SHARED, in->a, in->imm, in->addrf, m, size, 1, dsts, &r) &&
                  wv_warp_region(x, WV_SPACE_GLOBAL, in->b, in->imm2, in->type2, m, size, 0, srcs, &r);
    WV_FOR_LANES(m, l, {
      uint64_t dst = checked ? dsts[l] : addr_of(x, in->a, in->imm, in->addrf, l);
      uint64_t src = checked ? srcs[l] : addr_of(x, in->b, in->imm2, in->type2, l);
      uint32_t srcsize = S ? (uint32_t)S[l] : size;
      if (srcsize > size) srcsize = size;
      /* check both ends now, so a bad copy is reported at its own line */
      if (!checked && !wv_mem_xlate(x, WV_SPACE_SHARED, dst, size, size, l, WV_MEM_STORE)) return 1;
      if (!checked && srcsize && !wv_mem_xlate(x, WV_SPACE_GLOBAL, src, srcsize, size, l, WV_MEM_LOAD)) return 1;
      x->n_async++;
      if (enqueue(x, l, (wv_aent){.size = (uint8_t)size, .srcsize = (uint8_t)srcsize, .dst = dst, .src = src})) return 1;
    });
    return 0;
  }
  case WV_CP_BULK: {
    const uint64_t *S = WV_R(x, in->c);
    WV_FOR_LANES(m, l, {
      uint64_t dst = addr_of(x, in->a, in->imm, in->addrf, l), src = addr_of(x, in->b, in->imm2, in->type2, l);
      uint64_t bar = addr_of(x, in->e, (int64_t)in->target, in->uni, l);
      uint32_t size = (uint32_t)S[l];
      if (size % 16 || !size) return wv_fault_set(x, WV_ERR_FAULT, l, 0, 0, "cp.async.bulk size %u is not a positive multiple of 16", size);
      if (!wv_mem_xlate(x, WV_SPACE_SHARED, dst, size, 16, l, WV_MEM_STORE) ||
          !wv_mem_xlate(x, WV_SPACE_GLOBAL, src, size, 16, l, WV_MEM_LOAD) ||
          !mb_ptr(x, WV_SPACE_SHARED, bar, l))
        return 1;
      x->n_async++;
      if (enqueue(x, l, (wv_aent){.size = size, .srcsize = size, .dst = dst, .src = src})) return 1;
      if (enqueue(x, l, (wv_aent){.marker = 2, .size = size, .dst = bar, .space = WV_SPACE_SHARED})) return 1;
    });
    return 0;
  }
  case WV_CP_COMMIT:
    WV_FOR_LANES(m, l, { wv_aq *q = lane_q(x, x->warp, l); if (!q) return 1; q->group++; });
    return 0;
  case WV_CP_WAIT_GROUP:
  case WV_CP_WAIT_ALL:
    WV_FOR_LANES(m, l, {
      wv_aq *q = lane_q(x, x->warp, l);
      if (!q) return 1;
      if (in->mode == WV_CP_WAIT_ALL) q->group++; /* wait_all = commit_group + wait_group 0 */
      uint32_t n = (uint32_t)in->imm, limit = q->group > n ? q->group - n : 0;
      if (deliver_while(x, x->warp, l, keep_older, &limit)) return 1;
    });
    return 0;
  default: { /* cp.async.mbarrier.arrive: an arrival once the lane's prior copies are done */
    WV_FOR_LANES(m, l, {
      uint64_t a = addr_of(x, in->a, in->imm, in->addrf, l);
      uint8_t *p = mb_ptr(x, in->space, a, l);
      if (!p) return 1;
      if (!(in->boolop & WV_MBF_NOINC)) { /* the pending count goes up now, down at the arrival */
        uint64_t w;
        memcpy(&w, p, 8);
        w = mb_make(MB_PENDING(w) + 1, MB_EXPECTED(w), MB_TX(w), MB_PHASE(w));
        memcpy(p, &w, 8);
      }
      if (enqueue(x, l, (wv_aent){.marker = 1, .dst = a, .space = in->space})) return 1;
    });
    return 0;
  }
  }
}

static int h_mbarrier(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *B = in->b != WV_NOSLOT ? WV_R(x, in->b) : NULL;
  if (in->mode == WV_MB_PENDING_COUNT) {
    uint64_t *D = WV_R(x, in->d[0]);
    const uint64_t *A = WV_R(x, in->a);
    WV_FOR_LANES(m, l, { D[l] = MB_PENDING(A[l]); });
    return 0;
  }
  uint64_t *D = in->d[0] != WV_NOSLOT && (in->mode == WV_MB_ARRIVE || in->mode == WV_MB_ARRIVE_DROP) ? WV_R(x, in->d[0]) : NULL;
  WV_FOR_LANES(m, l, {
    uint64_t a = addr_of(x, in->a, in->imm, in->addrf, l);
    uint8_t *p = mb_ptr(x, in->space, a, l);
    if (!p) return 1;
    uint32_t v = B ? (uint32_t)B[l] : 0;
    uint64_t w;
    switch (in->mode) {
    case WV_MB_INIT:
      if (v == 0 || v > 0xfffffu) return wv_fault_set(x, WV_ERR_FAULT, l, 1, a, "mbarrier.init with count %u (1..2^20-1)", v);
      w = mb_make(v, v, 0, 0);
      memcpy(p, &w, 8);
      break;
    case WV_MB_INVAL:
      memset(p, 0, 8);
      break;
    case WV_MB_EXPECT_TX:
      mb_update(x, p, 0, (int64_t)v, 0, 0); /* (no arrival: cannot complete a phase with pending arrivals) */
      break;
    case WV_MB_COMPLETE_TX:
      mb_update(x, p, 0, -(int64_t)v, 0, 0);
      break;
    default: { /* arrive / arrive_drop (.expect_tx: v is the transaction count, one arrival) */
      int tx = (in->boolop & WV_MBF_EXPECT_TX) != 0;
      uint64_t st = mb_update(x, p, tx ? 1 : v, tx ? (int64_t)v : 0, in->mode == WV_MB_ARRIVE_DROP,
                              (in->boolop & WV_MBF_NOCOMPLETE) != 0);
      if (D) D[l] = st;
      break;
    }
    }
  });
  return 0;
}

int wv_mbar_wait(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *B = WV_R(x, in->b);
  uint32_t done = 0;
  for (int pass = 0; pass < 2; pass++) {
    done = 0;
    WV_FOR_LANES(m, l, {
      uint64_t a = addr_of(x, in->a, in->imm, in->addrf, l);
      if (pass == 0 && x->async_mode != WV_ASYNC_EAGER && deliver_for_mbar(x, in->space, a)) return -1;
      uint8_t *p = mb_ptr(x, in->space, a, l);
      if (!p) return -1;
      uint64_t w;
      memcpy(&w, p, 8);
      uint32_t waited = (in->boolop & WV_MBF_PARITY) ? (uint32_t)B[l] & 1 : (uint32_t)(B[l] >> 63);
      if (MB_PHASE(w) != waited) done |= 1u << l; /* the phase with that parity has completed */
    });
    if (done == m) break;
  }
  uint32_t *P = &x->preds[in->d[0]];
  *P = (*P & ~m) | done;
  return done == m;
}

void wv_async_check_read(wv_exec *x, uint64_t off, uint32_t size) {
  if (!wv_async_pending_in(x, off, off + size)) return; /* no undelivered copy writes there */
  for (uint32_t wi = 0; wi < x->cta->nwarps; wi++) {
    wv_warp *w = &x->cta->warps[wi];
    if (!w->aq) continue;
    for (int l = 0; l < WV_WARP; l++)
      for (uint32_t i = w->aq[l].head; i < w->aq[l].n; i++) {
        const wv_aent *e = &w->aq[l].v[i];
        if (!e->marker && off < e->dst + e->size && e->dst < off + size) {
          x->n_async_early++;
          return;
        }
      }
  }
}

void wv_async_warp_reset(wv_warp *w) {
  if (!w->aq) return;
  for (int l = 0; l < WV_WARP; l++) w->aq[l].head = w->aq[l].n = w->aq[l].group = 0;
}

void wv_async_warp_free(wv_warp *w) {
  if (!w->aq) return;
  for (int l = 0; l < WV_WARP; l++) free(w->aq[l].v);
  free(w->aq);
  w->aq = NULL;
}

wv_handler wv_h_async(int mbarrier) { return mbarrier ? h_mbarrier : h_cp; }
