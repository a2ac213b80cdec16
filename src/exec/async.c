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
 * A warp's checked copies of one cp.async in the default mode are one batch (wv_abatch), not an entry per lane:
 * a wait_group of lanes with nothing else queued delivers from the batches at once, and anything else that looks
 * at a lane's queue first turns the warp's batches into entries of its lanes (abq_spill). A lane's batches are
 * younger than its own entries (an entry appended to a lane spills first), so each lane's order is kept. A batch
 * is not in the index below (counting each lane's granule up and down cost more than the copy): a load asks
 * the CTA's batches themselves, the range of each first.
 *
 * mbarrier: the 64-bit object holds the pending arrival count (bits 19:0), the expected count
 * (39:20), the pending transaction count (60:40) and the phase parity (63). A phase completes when
 * both counts reach zero: the parity flips and the pending count is reloaded. The state arrive
 * returns is the phase parity (bit 63) and the pending count before the arrival (19:0), which is
 * what mbarrier.pending_count reads back on an H200 (tests/kernels async.mbar_basic).
 *
 * The bulk copies (sm_90, bulk.c has the copy engine): cp.async.bulk / .tensor into shared memory are a copy
 * (or, for a tensor box or a multicast, a staged copy: the bytes read from global memory at issue, landing at
 * delivery) followed by a complete_tx of its bytes on an mbarrier, delivered like the others (at-wait: when
 * that mbarrier is waited on) — in the destination CTA, which may be another CTA of the cluster
 * (.shared::cluster; .multicast::cluster: each CTA of the mask). Copies to global memory (bulk_group: a plain
 * copy, a reduction, a tensor box) read shared memory at issue and write global memory at delivery: at the
 * lane's cp.async.bulk.wait_group (.read too), or when the thread exits. They count in the lane's bulk
 * async-groups (cp.async.bulk.commit_group), which are separate from cp.async's groups.
 */
#include <stdlib.h>

#include "exec/handlers.h"
#include "exec/tensormap.h"

enum {
  A_COPY = 0,   /* global → shared (dcta) at delivery */
  A_ARRIVE,     /* cp.async.mbarrier.arrive */
  A_TX,         /* complete_tx of `size` bytes */
  A_STORE,      /* staged bytes → global (bulk_group), reduced by `op` of PTX type `rtype` */
  A_STAGED,     /* staged bytes → shared (dcta) */
  A_TSTORE,     /* a staged tensor box → global through its map (tstore) */
};

/* A tensor store's box and map. */
typedef struct tstore {
  wv_tmap t;
  int32_t c[5];
  uint32_t sbase;
  uint8_t box[];
} tstore;

typedef struct wv_aent {
  uint8_t marker;      /* A_* */
  uint8_t bulk;        /* counted in the lane's bulk async-groups */
  uint8_t op, rtype;   /* A_STORE / A_TSTORE: WV_BR_* reduction and the PTX type */
  const wv_func *fn;   /* the instruction that issued it, for a fault at delivery */
  uint32_t pc;
  uint32_t size, srcsize;
  uint32_t group;      /* the lane's open group (bulk: bulk async-group) when issued */
  uint64_t dst;        /* copy: shared offset; marker: the mbarrier's shared offset (address if dcta is NULL); store: global */
  int space;           /* marker without dcta: address space of the mbarrier */
  uint64_t src;        /* copy: global address */
  wv_cta *dcta;        /* the CTA whose shared memory it writes (copies, markers); NULL: a marker's generic address */
  void *data;          /* A_STORE, A_STAGED: the bytes; A_TSTORE: a tstore (freed at delivery) */
  const uint8_t *hsrc; /* copy: src in host memory, found at issue; valid while the heap's count of frees is hfrees */
  uint64_t hfrees;
} wv_aent;

typedef struct wv_aq {
  wv_aent *v;
  uint32_t head, n, cap;
  uint32_t bgroup;     /* id of the open bulk async-group */
} wv_aq;

/* A warp's lane queues (wv_warp.aq), with each lane's open group apart from its queue so that a commit or a wait
 * of the whole warp tests and counts 32 of them as one vector, and the count of entries in all its lanes' queues
 * (0: a wait of the warp's batches alone needs no look at the lanes). */
typedef struct wv_aqs {
  uint32_t group[WV_WARP]; /* id of each lane's open (uncommitted) group */
  uint32_t queued;
  wv_aq lane[WV_WARP];
} wv_aqs;

/* One cp.async of lanes `mask` (still to land), checked at issue: lane l copies size bytes from hsrc[l] (global
 * address src[l], valid while the heap's count of frees is hfrees) to the shared offset dst[l] of dcta (none
 * zero-filled: a copy with a smaller src-size goes to its lane's queue); group is the lanes' open group (the same for all). Its bytes are not in dcta's index
 * (wv_aidx): wv_async_pending_in looks at the batches themselves (dcta->async_batched counts their lanes).
 * A row (the usual tile load: lane l's both ends size * l past a start, nothing zero-filled) keeps the starts
 * alone, and lands a run of lanes with one memcpy; the ab_* functions give a lane's values either way. */
typedef struct wv_abatch {
  uint32_t mask, group, size, pc;
  uint32_t lo, hi;  /* the shared bytes its lanes write lie in [lo, hi) */
  uint32_t row;     /* a row: lane l's dst is rdst + l * size, src rsrc + l * size, hsrc rhsrc + (l - first) * size */
  uint32_t rdst, first;
  uint64_t rsrc;
  const uint8_t *rhsrc;
  const wv_func *fn;
  wv_cta *dcta;
  uint64_t hfrees;
  uint32_t dst[WV_WARP];
  uint64_t src[WV_WARP];
  const uint8_t *hsrc[WV_WARP];
} wv_abatch;

/* A batch's lane l: its shared offset, global address and host address. (A row's rdst and rsrc are
 * lane 0's place, which unsigned arithmetic keeps exact where lane 0 is not in the batch; rhsrc is lane first's.) */
static inline uint32_t ab_dst(const wv_abatch *a, int l) { return a->row ? a->rdst + (uint32_t)l * a->size : a->dst[l]; }
static inline uint64_t ab_src(const wv_abatch *a, int l) { return a->row ? a->rsrc + (uint64_t)l * a->size : a->src[l]; }
static inline const uint8_t *ab_hsrc(const wv_abatch *a, int l) {
  return a->row ? a->rhsrc + ((ptrdiff_t)l - (ptrdiff_t)a->first) * a->size : a->hsrc[l];
}

typedef struct wv_abq {
  wv_abatch *v;
  uint32_t head, n, cap;
} wv_abq;

#define MB_PENDING(w) ((uint32_t)((w) & 0xfffffu))
#define MB_EXPECTED(w) ((uint32_t)(((w) >> 20) & 0xfffffu))
#define MB_TX(w) ((uint32_t)(((w) >> 40) & 0x1fffffu))
/* the transaction count is signed (PTX ISA: -(2^20-1) .. 2^20-1): a complete_tx may come before its expect_tx */
#define MB_TX_SIGNED(w) ((int32_t)(MB_TX(w) << 11) >> 11)
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
  int64_t tx = (int64_t)MB_TX_SIGNED(w) + tx_delta;
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
static wv_aidx *aidx_get(wv_cta *cta) {
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

/* Whether a lane of a batch of c's warps still to land writes into [lo, hi). */
static int batched_in(const wv_cta *c, uint64_t lo, uint64_t hi) {
  for (uint32_t wi = 0; wi < c->nwarps; wi++) {
    const wv_abq *b = c->warps[wi].abq;
    for (uint32_t i = b ? b->head : 0; b && i < b->n; i++) {
      const wv_abatch *a = &b->v[i];
      if (!a->mask || hi <= a->lo || a->hi <= lo) continue;
      WV_FOR_LANES(a->mask, l, {
        if (lo < (uint64_t)ab_dst(a, l) + a->size && ab_dst(a, l) < hi) return 1;
      });
    }
  }
  return 0;
}

int wv_async_pending_in(const wv_exec *x, uint64_t lo, uint64_t hi) {
  if (x->cta->async_batched && hi > lo && batched_in(x->cta, lo, hi)) return 1;
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

/* Warp w's lane queues, made at its first cp.async; NULL after a fault. */
static wv_aqs *lane_qs(wv_exec *x, wv_warp *w, int lane) {
  if (!w->aq && !(w->aq = calloc(1, sizeof *w->aq))) wv_fault_set(x, WV_ERR_NOMEM, lane, 0, 0, "out of host memory for cp.async");
  return w->aq;
}

static wv_aq *lane_q(wv_exec *x, wv_warp *w, int lane) {
  wv_aqs *s = lane_qs(x, w, lane);
  return s ? &s->lane[lane] : NULL;
}

static int deliver_one(wv_exec *x, wv_warp *w, int lane, wv_aq *q);

/* Warp w's lane queue with room for one more entry; NULL after a fault. A lane holds at most LANE_QUEUE_MAX
 * (1024 entries, 88 KiB) and a warp 4096 batches (2.9 MB): past that the lane's older half lands at once. */
#define LANE_QUEUE_MAX 1024
static wv_aq *grow(wv_exec *x, wv_warp *w, int lane) {
  wv_aq *q = lane_q(x, w, lane);
  if (!q || q->n < q->cap) return q;
  if (!q->head && q->cap >= LANE_QUEUE_MAX) /* full: the older half lands now (early is always allowed) */
    while (q->head < q->cap / 2)
      if (deliver_one(x, w, lane, q)) return NULL;
  if (q->head) { /* delivered entries make room: a pipeline that always waits for all but the newest groups never
                  * empties its queue, which would otherwise grow with every copy */
    memmove(q->v, q->v + q->head, (size_t)(q->n - q->head) * sizeof *q->v);
    q->n -= q->head;
    q->head = 0;
    return q;
  }
  uint32_t nc = q->cap ? q->cap * 2 : 8;
  wv_aent *nv = realloc(q->v, nc * sizeof *nv);
  if (!nv) { wv_fault_set(x, WV_ERR_NOMEM, lane, 0, 0, "out of host memory for cp.async"); return NULL; }
  q->v = nv;
  q->cap = nc;
  return q;
}

static int abq_pending(const wv_warp *w) { return w->abq && w->abq->head < w->abq->n; }

/* Warp w's batches become entries of their lanes (in the order issued: after each lane's own entries). */
static int abq_spill(wv_exec *x, wv_warp *w) {
  if (!abq_pending(w)) return 0;
  wv_abq *b = w->abq;
  for (; b->head < b->n; b->head++) {
    wv_abatch *a = &b->v[b->head];
    WV_FOR_LANES(a->mask, l, {
      wv_aq *q = grow(x, w, l);
      if (!q) return 1;
      q->v[q->n++] = (wv_aent){.size = a->size, .srcsize = a->size, .group = a->group, .fn = a->fn, .pc = a->pc,
                               .dst = ab_dst(a, l), .src = ab_src(a, l), .dcta = a->dcta, .hsrc = ab_hsrc(a, l), .hfrees = a->hfrees};
      w->aq->queued++;
      aidx_count(a->dcta->aidx, ab_dst(a, l), a->size, 1); /* (made when the batch was) */
      a->dcta->async_batched--;
      a->mask &= ~(1u << l);
    });
  }
  b->head = b->n = 0;
  return 0;
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

static int writes_shared(const wv_aent *e) { return e->marker == A_COPY || e->marker == A_STAGED; }

static void entry_free(wv_aent *e) {
  free(e->data);
  e->data = NULL;
}

/* Perform the oldest entry of a lane's queue. */
static int deliver_one(wv_exec *x, wv_warp *w, int lane, wv_aq *q) {
  wv_aent *e = &q->v[q->head];
  int first = x->fault.status == WV_OK, rc = 0;
  q->head++;
  w->aq->queued--;
  wv_cta *t = e->dcta ? e->dcta : x->cta;
  if (e->dcta) t->async_pending--;
  x->cta->cl->async_pending--;
  if (writes_shared(e)) aidx_count(t->aidx, e->dst, e->size, 0);
  switch (e->marker) {
  case A_ARRIVE:
  case A_TX: {
    uint8_t *p;
    if (e->dcta) {
      p = e->dcta->shared + e->dst;
    } else {
      wv_warp *saved = x->warp;
      x->warp = w;
      p = mb_ptr(x, e->space, e->dst, lane);
      x->warp = saved;
      if (!p) return delivery_fault(x, w, e, first);
    }
    wv_cta *saved = x->cta;
    x->cta = t; /* (its cluster's waiters wake) */
    mb_update(x, p, e->marker == A_TX ? 0 : 1, e->marker == A_TX ? -(int64_t)e->size : 0, 0, 0);
    x->cta = saved;
    return 0;
  }
  case A_STAGED: /* (st.async / red.async: op, rtype) */
    if (e->op) wv_bulk_reduce(t->shared + e->dst, e->data, e->size, e->op, e->rtype);
    else memcpy(t->shared + e->dst, e->data, e->size);
    entry_free(e);
    return 0;
  case A_STORE: {
    uint8_t *dst = wv_mem_xlate(x, WV_SPACE_GLOBAL, e->dst, e->size, 1, lane, WV_MEM_STORE);
    if (!dst) rc = delivery_fault(x, w, e, first);
    else if (e->op) wv_bulk_reduce(dst, e->data, e->size, e->op, e->rtype);
    else memcpy(dst, e->data, e->size);
    entry_free(e);
    return rc;
  }
  case A_TSTORE: {
    const tstore *ts = e->data;
    if (wv_tma_scatter(x, &ts->t, ts->c, ts->sbase, ts->box, e->op, lane)) rc = delivery_fault(x, w, e, first);
    entry_free(e);
    return rc;
  }
  default:
    break;
  }
  /* checked (and an over-read counted) at issue; a src-size of 0 reads nothing (zero fill). Its host address
   * from then holds while no allocation has been freed since. */
  const uint8_t *src = e->hsrc && e->hfrees == *x->heap_frees ? e->hsrc : NULL;
  if (e->srcsize && !src) src = wv_mem_xlate(x, WV_SPACE_GLOBAL, e->src, e->srcsize, 1, lane, WV_MEM_LOAD_QUIET);
  if (e->srcsize && !src) return delivery_fault(x, w, e, first);
  uint8_t *dst = t->shared + e->dst;
  if (e->srcsize == 16) memcpy(dst, src, 16);
  else if (e->srcsize) memcpy(dst, src, e->srcsize);
  if (e->size > e->srcsize) memset(dst + e->srcsize, 0, (size_t)(e->size - e->srcsize)); /* zero fill */
  return 0;
}

/* Deliver a lane's first n entries. */
static int deliver_n(wv_exec *x, wv_warp *w, int lane, uint32_t n) {
  if (abq_spill(x, w)) return 1;
  if (!w->aq) return 0;
  wv_aq *q = &w->aq->lane[lane];
  while (n-- && q->head < q->n)
    if (deliver_one(x, w, lane, q)) return 1;
  if (q->head == q->n) q->head = q->n = 0;
  return 0;
}

/* Deliver a lane's entries up to the last one `need` says must be done (earlier ones with it: delivering
 * early is always allowed). */
static int deliver_through(wv_exec *x, wv_warp *w, int lane, int (*need)(const wv_aent *e, const void *arg),
                           const void *arg) {
  if (abq_spill(x, w)) return 1;
  if (!w->aq) return 0;
  wv_aq *q = &w->aq->lane[lane];
  uint32_t last = q->head;
  for (uint32_t i = q->head; i < q->n; i++)
    if (need(&q->v[i], arg)) last = i + 1;
  return deliver_n(x, w, lane, last - q->head);
}

static int need_older(const wv_aent *e, const void *arg) { return !e->bulk && e->group < *(const uint32_t *)arg; }
static int need_older_bulk(const wv_aent *e, const void *arg) { return e->bulk && e->group < *(const uint32_t *)arg; }
static int need_bulk(const wv_aent *e, const void *arg) { (void)arg; return e->bulk; }

/* Where an mbarrier is: the CTA and shared offset of (space, addr) when it lies in shared memory (*cta NULL
 * otherwise, the address kept as it is); 1 on a fault (a .shared::cluster rank outside the cluster). */
static int mb_where(wv_exec *x, int space, uint64_t addr, int lane, wv_cta **cta, uint64_t *off) {
  uint64_t sa = addr;
  int sp = space == WV_SPACE_GENERIC ? wv_mem_classify(addr, &sa) : space;
  *cta = NULL;
  *off = addr;
  if (sp == WV_SPACE_SHARED && sa < WV_GPU_SHARED_WINDOW) *cta = x->cta, *off = sa;
  else if (sp == WV_SPACE_CLUSTER || sp == WV_SPACE_SHARED) return !(*cta = wv_cluster_cta(x, sa, addr, lane, off));
  return 0;
}

typedef struct { wv_cta *cta; uint64_t off; int space; } mb_key;
static int need_marker(const wv_aent *e, const void *arg) {
  const mb_key *k = arg;
  if (e->marker != A_ARRIVE && e->marker != A_TX) return 0;
  return k->cta ? e->dcta == k->cta && e->dst == k->off : !e->dcta && e->dst == k->off && e->space == k->space;
}

/* Deliver, in every lane of the cluster, everything up to the last arrive or complete_tx for mbarrier `addr`. */
static int deliver_for_mbar(wv_exec *x, int space, uint64_t addr, int lane) {
  wv_cluster *cl = x->cta->cl;
  if (!cl->async_pending) return 0;
  mb_key k = {.space = space};
  if (mb_where(x, space, addr, lane, &k.cta, &k.off)) return 1;
  for (uint32_t r = 0; r < cl->n; r++) {
    wv_cta *c = cl->ctas[r];
    for (uint32_t wi = 0; wi < c->nwarps; wi++) {
      wv_warp *w = &c->warps[wi];
      if (!w->aq) continue;
      for (int l = 0; l < WV_WARP; l++)
        if (deliver_through(x, w, l, need_marker, &k)) return 1;
    }
  }
  return 0;
}

/* A queued entry's counts: the CTA's and its cluster's pending operations, and a copy's shared bytes in the
 * index a (NULL: it writes none). */
static void count_queued(wv_exec *x, wv_cta *dcta, wv_aidx *a, uint64_t dst, uint32_t size) {
  if (dcta) dcta->async_pending++;
  x->cta->cl->async_pending++;
  if (a) aidx_count(a, dst, size, 1);
}

/* The lane's queue with room for one more entry, after the warp's batches became entries (abq_spill); NULL after
 * a fault. */
static wv_aq *room(wv_exec *x, int lane) {
  if (abq_spill(x, x->warp)) return NULL;
  return grow(x, x->warp, lane);
}

static int enqueue(wv_exec *x, int lane, wv_aent e) {
  wv_aq *q = room(x, lane);
  if (!q) { free(e.data); return 1; }
  if (!e.dcta && (e.marker == A_COPY || e.marker == A_STAGED || e.marker == A_STORE || e.marker == A_TSTORE)) e.dcta = x->cta;
  wv_cta *t = e.dcta ? e.dcta : x->cta;
  wv_aidx *a = writes_shared(&e) ? aidx_get(t) : NULL;
  if (writes_shared(&e) && !a) { free(e.data); return wv_fault_set(x, WV_ERR_NOMEM, lane, 0, 0, "out of host memory for cp.async"); }
  e.group = e.bulk ? q->bgroup : x->warp->aq->group[lane];
  e.fn = x->fn;
  e.pc = x->cur_pc;
  q->v[q->n++] = e;
  x->warp->aq->queued++;
  count_queued(x, e.dcta, a, e.dst, e.size);
  /* a thread already waiting on the mbarrier (try_wait blocks) tests again, and so has it delivered */
  if (e.marker == A_TX || e.marker == A_ARRIVE) mb_wake(x);
  if (x->async_mode == WV_ASYNC_EAGER) return deliver_n(x, x->warp, lane, UINT32_MAX);
  if (x->async_mode == WV_ASYNC_RANDOM) { /* a random prefix of the lane's queue lands now */
    x->rng ^= x->rng << 13;
    x->rng ^= x->rng >> 17;
    x->rng ^= x->rng << 5;
    uint32_t n = x->rng % (q->n - q->head + 1);
    return deliver_n(x, x->warp, lane, n);
  }
  return 0;
}

/* ---------------- handlers ---------------- */

static inline uint64_t addr_of(wv_exec *x, uint32_t slot, int64_t off, uint8_t flags, int l) {
  return wv_lane_addr(x, slot != WV_NOSLOT ? WV_R(x, slot) : NULL, off, flags, l);
}

/* The CTAs a bulk copy into shared memory lands in: the one its .shared::cluster address names, or with
 * .multicast::cluster each CTA of the mask (a 16-bit mask of ranks), at the same offset; their count, 0 on a
 * fault. */
static uint32_t bulk_targets(wv_exec *x, const wv_insn *in, uint64_t dst, int lane, wv_cta **to, uint64_t *off) {
  if (!(in->boolop & WV_BK_MCAST)) {
    to[0] = wv_cluster_cta(x, dst, dst, lane, off);
    return to[0] ? 1 : 0;
  }
  uint32_t mask = (uint32_t)WV_R(x, in->rpc)[lane] & 0xffffu, n = 0;
  const wv_cluster *cl = x->cta->cl;
  if (mask >> cl->n) {
    wv_fault_set(x, WV_ERR_FAULT, lane, 0, 0, "cp.async.bulk .multicast::cluster mask 0x%x names ranks outside a cluster of %u blocks",
                 mask, cl->n);
    return 0;
  }
  *off = dst & 0xffffffu;
  for (uint32_t r = 0; r < cl->n; r++)
    if (mask >> r & 1) to[n++] = cl->ctas[r];
  return n;
}

/* Enqueue a bulk copy of `size` staged bytes (or, stage NULL, a copy from global src) into each target's shared
 * memory at off, each followed by complete_tx of size on the target's mbarrier at the same offset as bar's. */
static int bulk_land(wv_exec *x, int lane, wv_cta **to, uint32_t nto, int mcast, uint64_t off, uint64_t bar,
                     const uint8_t *stage, uint64_t src, uint32_t size, const wv_insn *in) {
  uint64_t baroff;
  wv_cta *bcta;
  if (mb_where(x, WV_SPACE_CLUSTER, bar, lane, &bcta, &baroff)) return 1;
  for (uint32_t k = 0; k < nto; k++) {
    /* the destination's bytes and its mbarrier: checked now, so a bad copy is reported at its line */
    wv_cta *own = x->cta;
    x->cta = to[k];
    int bad = !wv_mem_xlate(x, WV_SPACE_SHARED, off, size, 16, lane, WV_MEM_STORE) ||
              !wv_mem_xlate(x, WV_SPACE_SHARED, baroff, 8, 8, lane, WV_MEM_STORE);
    x->cta = own;
    if (bad) return 1;
    /* (a multicast's complete_tx goes to each destination's mbarrier at the offset of the one named) */
    wv_cta *mb = mcast ? to[k] : bcta;
    wv_aent c = {.marker = stage ? A_STAGED : A_COPY, .size = size, .srcsize = size, .dst = off, .src = src, .dcta = to[k],
                 .op = in->sat, .rtype = in->type}; /* (cp.reduce.async.bulk.shared::cluster: a reduction) */
    if (stage && !(c.data = malloc(size ? size : 1))) return wv_fault_set(x, WV_ERR_NOMEM, lane, 0, 0, "out of host memory");
    if (stage) memcpy(c.data, stage, size);
    x->n_async++;
    if (enqueue(x, lane, c)) return 1;
    if (enqueue(x, lane, (wv_aent){.marker = A_TX, .size = size, .dst = baroff, .dcta = mb})) return 1;
  }
  return 0;
}

/* The tensor map at generic or global address a (a __grid_constant__ parameter's generic address, or global
 * memory), decoded. */
static int read_tmap(wv_exec *x, uint64_t a, int lane, wv_tmap *t) {
  const uint8_t *raw = wv_mem_xlate(x, WV_SPACE_GENERIC, a, WV_TMAP_BYTES, 64, lane, WV_MEM_LOAD);
  if (!raw) return 1;
  if (wv_tmap_unpack(raw, t))
    return wv_fault_set(x, WV_ERR_FAULT, lane, 1, a, "cp.async.bulk.tensor with a tensor map that cuTensorMapEncode* did not make");
  if (!t->esize) return wv_fault_set(x, WV_ERR_FAULT, lane, 1, a, "cp.async.bulk.tensor of a packed sub-byte data type is not modelled");
  return 0;
}

static void tensor_coords(wv_exec *x, const wv_insn *in, int lane, int32_t c[5]) {
  const uint32_t slots[5] = {in->d[0], in->d[1], in->d[2], in->d[3], in->c};
  for (int i = 0; i < 5; i++) c[i] = slots[i] != WV_NOSLOT && i < in->vec ? (int32_t)WV_R(x, slots[i])[lane] : 0;
}

/* A new batch at the end of warp w's; NULL when out of host memory or when the warp has 4096. */
static wv_abatch *abq_add(wv_warp *w) {
  wv_abq *b = w->abq;
  if (!b && !(b = w->abq = calloc(1, sizeof *b))) return NULL;
  if (b->head == b->n) b->head = b->n = 0;
  if (b->n == b->cap && b->head) { /* (delivered batches at the front make room) */
    memmove(b->v, b->v + b->head, (size_t)(b->n - b->head) * sizeof *b->v);
    b->n -= b->head;
    b->head = 0;
  }
  if (b->n == b->cap) {
    uint32_t nc = b->cap ? 2 * b->cap : 4;
    /* (past 4096 batches, 2.9 MB, a warp's copies go to its lanes' queues, which have their own limit) */
    wv_abatch *nv = nc <= 4096 ? realloc(b->v, nc * sizeof *nv) : NULL;
    if (!nv) return NULL;
    b->v = nv;
    b->cap = nc;
  }
  return &b->v[b->n++];
}

/* Whether lanes m's open groups are all g (for the whole warp, a loop the compiler makes vector code). */
static int groups_are(const wv_aqs *s, uint32_t m, uint32_t g) {
  uint32_t bad = 0;
  WV_FOR_LANES(m, l, { bad |= s->group[l] ^ g; });
  return !bad;
}

/* Whether lanes m's addresses v are a row of size-byte steps: lane l's is *base + l * size (*base: lane 0's
 * place, modulo 2^64 where lane 0 is not in m). (For the whole warp, a loop whose step is added, not multiplied:
 * -march=native makes either vector code, but a portable build's multiply per lane cost h_cp 5% more instructions,
 * callgrind.) */
static int is_row(const uint64_t *v, uint32_t m, uint32_t size, uint64_t *base) {
  uint32_t f = (uint32_t)__builtin_ctz(m);
  uint64_t b = v[f] - (uint64_t)f * size, bad = 0, at = b;
  if (m == UINT32_MAX)
    for (int l = 0; l < WV_WARP; l++, at += size) bad |= v[l] ^ at;
  else
    WV_FOR_LANES(m, l, { bad |= v[l] ^ (b + (uint64_t)l * size); });
  *base = b;
  return !bad;
}

/* cp.async of lanes m whose ends the warp-wide check passed, each reading all size bytes (S NULL or each S[l] at
 * least size; r: the source's global region), delivered at the wait: one batch when the lanes' open groups are the same (else an entry each, as enqueue makes), its lanes'
 * sources found in host memory now. */
static int copy_checked(wv_exec *x, uint32_t m, const uint64_t *S, uint32_t size, const uint64_t *dsts,
                        const uint64_t *srcs, const wv_region *r) {
  wv_cta *c = x->cta;
  wv_warp *w = x->warp;
  wv_aidx *a = m ? aidx_get(c) : NULL;
  if (m && (!a || !lane_q(x, w, __builtin_ctz(m)))) return wv_fault_set(x, WV_ERR_NOMEM, __builtin_ctz(m), 0, 0, "out of host memory for cp.async");
  uint64_t frees = *x->heap_frees;
  uint32_t g = m ? w->aq->group[__builtin_ctz(m)] : 0, n = (uint32_t)__builtin_popcount(m);
  uint64_t rd, rs;
  wv_abatch *b = m && groups_are(w->aq, m, g) ? abq_add(w) : NULL;
  if (b) {
    /* (the header only: a batch's lane arrays are read for the lanes of its mask, which it writes below; zeroing
     * the ~700-byte batch with a compound literal was 4% of async_copy's h_cp in perf) */
    b->mask = m, b->group = g, b->size = size, b->pc = x->cur_pc, b->fn = x->fn, b->dcta = c, b->hfrees = frees;
    b->row = is_row(dsts, m, size, &rd) && is_row(srcs, m, size, &rs);
    if (b->row) {
      uint32_t f = (uint32_t)__builtin_ctz(m);
      b->rdst = (uint32_t)rd, b->rsrc = rs, b->first = f, b->rhsrc = r->host + (srcs[f] - r->abase);
      b->lo = (uint32_t)dsts[f];
      b->hi = (uint32_t)dsts[31 - __builtin_clz(m)] + size;
    } else {
      uint32_t lo = UINT32_MAX, hi = 0;
      WV_FOR_LANES(m, l, {
        uint32_t d = (uint32_t)dsts[l];
        b->dst[l] = d;
        b->src[l] = srcs[l];
        b->hsrc[l] = r->host + (srcs[l] - r->abase);
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
      });
      b->lo = lo;
      b->hi = hi + size;
    }
    c->async_batched += n;
    c->async_pending += n;
    c->cl->async_pending += n;
    x->n_async += n;
    return 0;
  }
  WV_FOR_LANES(m, l, {
    wv_aq *q = room(x, l);
    if (!q) return 1;
    uint32_t srcsize = S && S[l] < size ? (uint32_t)S[l] : size;
    q->v[q->n++] = (wv_aent){.size = size, .srcsize = srcsize, .group = w->aq->group[l], .fn = x->fn, .pc = x->cur_pc,
                             .dst = dsts[l], .src = srcs[l], .dcta = c, .hsrc = r->host + (srcs[l] - r->abase), .hfrees = frees};
    w->aq->queued++;
    x->n_async++;
    count_queued(x, c, a, dsts[l], size);
  });
  return 0;
}

/* The source bytes of batch a's lanes d, asked into the cache: a wait that lands one group prefetches the next
 * one, which a pipeline waits for next (async_copy, which waits for tile k while tile k + 1 is in flight, ran in
 * 11.7-12.1 ms against 15.3-15.9 ms, four alternating runs each: the tile's lines come from memory). */
static void prefetch_batch(const wv_abatch *a, uint32_t d) {
  if (a->row) {
    uint32_t f = (uint32_t)__builtin_ctz(d), n = 32 - (uint32_t)__builtin_clz(d) - f;
    const uint8_t *h = ab_hsrc(a, (int)f);
    for (uint32_t o = 0; o < n * a->size; o += 64) __builtin_prefetch(h + o, 0, 3);
    __builtin_prefetch(h + n * a->size - 1, 0, 3);
  } else {
    WV_FOR_LANES(d, l, { __builtin_prefetch(a->hsrc[l], 0, 3); });
  }
}

/* cp.async.wait_group / wait_all of lanes m from the warp's batches, when no lane of the warp has anything else
 * queued and lanes m have one open group (after wait_all's commit): each lane's copies of the groups but the newest N land, as
 * deliver_through(need_older) would land them (a lane's groups only grow in the order it issues). 1: the lanes
 * do not qualify (or a copy's source may have moved: an allocation was freed), nothing done. */
static int wait_batches(wv_exec *x, const wv_insn *in, uint32_t m) {
  wv_warp *w = x->warp;
  if (!m || !abq_pending(w) || !w->aq || w->aq->queued) return 1;
  uint32_t g = w->aq->group[__builtin_ctz(m)];
  if (!groups_are(w->aq, m, g)) return 1;
  wv_abq *b = w->abq;
  for (uint32_t i = b->head; i < b->n; i++)
    if ((b->v[i].mask & m) && b->v[i].hfrees != *x->heap_frees) return 1;
  if (in->mode == WV_CP_WAIT_ALL) { /* wait_all = commit_group + wait_group 0 */
    g++;
    WV_FOR_LANES(m, l, { w->aq->group[l] = g; });
  }
  uint32_t keep = (uint32_t)in->imm, limit = g > keep ? g - keep : 0;
  wv_cluster *cl = x->cta->cl;
  for (uint32_t i = b->head; i < b->n; i++) {
    wv_abatch *a = &b->v[i];
    uint32_t d = a->mask & m;
    if (d && a->group == limit) prefetch_batch(a, d); /* (the group the next wait lands) */
    if (!d || a->group >= limit) continue;
    wv_cta *t = a->dcta;
    if (a->row) { /* each run of lanes at once */
      for (uint32_t rest = d; rest;) {
        uint32_t l = (uint32_t)__builtin_ctz(rest), from = rest >> l, k = ~from ? (uint32_t)__builtin_ctz(~from) : 32 - l;
        memcpy(t->shared + ab_dst(a, (int)l), ab_hsrc(a, (int)l), (size_t)k * a->size);
        rest &= k == 32 ? 0 : ~(((1u << k) - 1) << l);
      }
    } else if (a->size == 16) {
      WV_FOR_LANES(d, l, { memcpy(t->shared + a->dst[l], a->hsrc[l], 16); });
    } else {
      WV_FOR_LANES(d, l, { memcpy(t->shared + a->dst[l], a->hsrc[l], a->size); });
    }
    uint32_t n = (uint32_t)__builtin_popcount(d);
    t->async_batched -= n;
    t->async_pending -= n;
    cl->async_pending -= n;
    a->mask &= ~d;
  }
  while (b->head < b->n && !b->v[b->head].mask) b->head++;
  return 0;
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
    if (checked && x->async_mode == WV_ASYNC_AT_WAIT) return copy_checked(x, m, S, size, dsts, srcs, &r);
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
  case WV_CP_BULK: { /* cp.async.bulk.shared::cluster.{global,shared::cta}.mbarrier::complete_tx::bytes */
    const uint64_t *S = WV_R(x, in->c);
    WV_FOR_LANES(m, l, {
      uint64_t dst = addr_of(x, in->a, in->imm, in->addrf, l), src = addr_of(x, in->b, in->imm2, in->type2, l);
      uint64_t bar = addr_of(x, in->e, (int64_t)in->target, in->uni, l), off;
      uint32_t size = (uint32_t)S[l];
      if (size % 16 || !size) return wv_fault_set(x, WV_ERR_FAULT, l, 0, 0, "cp.async.bulk size %u is not a positive multiple of 16", size);
      wv_cta *to[WV_MAX_CLUSTER];
      uint32_t nto = bulk_targets(x, in, dst, l, to, &off);
      if (!nto) return 1;
      const uint8_t *stage = NULL;
      if (in->boolop & WV_BK_SRC_SHARED) { /* from the CTA's own shared memory: read now */
        if (!(stage = wv_mem_xlate(x, WV_SPACE_SHARED, src, size, 16, l, WV_MEM_LOAD))) return 1;
      } else {
        const uint8_t *g = wv_mem_xlate(x, WV_SPACE_GLOBAL, src, size, 16, l, WV_MEM_LOAD);
        if (!g) return 1;
        if (nto > 1) stage = g; /* a multicast reads the source once */
      }
      if (bulk_land(x, l, to, nto, (in->boolop & WV_BK_MCAST) != 0, off, bar, stage, src, size, in)) return 1;
    });
    return 0;
  }
  case WV_CP_BULK_STORE: { /* cp{.reduce}.async.bulk.global.shared::cta.bulk_group [dst], [src], size */
    const uint64_t *S = WV_R(x, in->c);
    WV_FOR_LANES(m, l, {
      uint64_t dst = addr_of(x, in->a, in->imm, in->addrf, l), src = addr_of(x, in->b, in->imm2, in->type2, l);
      uint32_t size = (uint32_t)S[l];
      if (size % 16 || !size) return wv_fault_set(x, WV_ERR_FAULT, l, 0, 0, "cp.async.bulk size %u is not a positive multiple of 16", size);
      const uint8_t *s = wv_mem_xlate(x, WV_SPACE_SHARED, src, size, 16, l, WV_MEM_LOAD);
      if (!s || !wv_mem_xlate(x, WV_SPACE_GLOBAL, dst, size, 16, l, WV_MEM_STORE)) return 1;
      wv_aent e = {.marker = A_STORE, .bulk = 1, .op = in->sat, .rtype = in->type, .size = size, .dst = dst};
      if (!(e.data = malloc(size))) return wv_fault_set(x, WV_ERR_NOMEM, l, 0, 0, "out of host memory");
      memcpy(e.data, s, size);
      x->n_async++;
      if (enqueue(x, l, e)) return 1;
    });
    return 0;
  }
  case WV_CP_TENSOR_LOAD: { /* cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes */
    WV_FOR_LANES(m, l, {
      uint64_t dst = addr_of(x, in->a, in->imm, in->addrf, l), ma = addr_of(x, in->b, in->imm2, in->type2, l);
      uint64_t bar = addr_of(x, in->e, (int64_t)in->target, in->uni, l), off;
      wv_tmap t;
      int32_t c[5];
      if (read_tmap(x, ma, l, &t)) return 1;
      if (t.rank != in->vec)
        return wv_fault_set(x, WV_ERR_FAULT, l, 1, ma, "cp.async.bulk.tensor.%ud with a tensor map of rank %u", in->vec, t.rank);
      tensor_coords(x, in, l, c);
      wv_cta *to[WV_MAX_CLUSTER];
      uint32_t nto = bulk_targets(x, in, dst, l, to, &off);
      if (!nto) return 1;
      if (off % 128) return wv_fault_set(x, WV_ERR_MISALIGNED, l, 1, dst, "cp.async.bulk.tensor to shared memory not aligned to 128 bytes");
      uint64_t bytes = wv_tmap_box_bytes(&t);
      uint8_t *stage = malloc(bytes ? bytes : 1);
      if (!stage) return wv_fault_set(x, WV_ERR_NOMEM, l, 0, 0, "out of host memory");
      int bad = wv_tma_gather(x, &t, c, (uint32_t)off, stage, l);
      if (!bad) bad = bulk_land(x, l, to, nto, (in->boolop & WV_BK_MCAST) != 0, off, bar, stage, 0, (uint32_t)bytes, in);
      free(stage);
      if (bad) return 1;
    });
    return 0;
  }
  case WV_CP_TENSOR_STORE: { /* cp{.reduce}.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group [map, {c}], [src] */
    WV_FOR_LANES(m, l, {
      uint64_t src = addr_of(x, in->a, in->imm, in->addrf, l), ma = addr_of(x, in->b, in->imm2, in->type2, l);
      wv_tmap t;
      if (read_tmap(x, ma, l, &t)) return 1;
      if (t.rank != in->vec)
        return wv_fault_set(x, WV_ERR_FAULT, l, 1, ma, "cp.async.bulk.tensor.%ud with a tensor map of rank %u", in->vec, t.rank);
      if (src % 128) return wv_fault_set(x, WV_ERR_MISALIGNED, l, 1, src, "cp.async.bulk.tensor from shared memory not aligned to 128 bytes");
      uint64_t bytes = wv_tmap_box_bytes(&t);
      const uint8_t *s = wv_mem_xlate(x, WV_SPACE_SHARED, src, (uint32_t)bytes, 16, l, WV_MEM_LOAD);
      if (!s) return 1;
      tstore *ts = malloc(sizeof *ts + bytes);
      if (!ts) return wv_fault_set(x, WV_ERR_NOMEM, l, 0, 0, "out of host memory");
      ts->t = t;
      tensor_coords(x, in, l, ts->c);
      ts->sbase = (uint32_t)src;
      memcpy(ts->box, s, bytes);
      x->n_async++;
      if (enqueue(x, l, (wv_aent){.marker = A_TSTORE, .bulk = 1, .op = in->sat, .size = (uint32_t)bytes, .data = ts})) return 1;
    });
    return 0;
  }
  case WV_CP_ST_ASYNC: { /* st.async / red.async into a cluster CTA's shared memory, complete_tx on its mbarrier */
    unsigned es = wv_type_size((wv_type)in->type), n = es * in->vec;
    WV_FOR_LANES(m, l, {
      uint64_t a = addr_of(x, in->a, in->imm, in->addrf, l), bar = addr_of(x, in->e, (int64_t)in->target, in->uni, l), off, boff;
      wv_cta *t = wv_cluster_cta(x, a, a, l, &off), *bt;
      if (!t || mb_where(x, WV_SPACE_CLUSTER, bar, l, &bt, &boff)) return 1;
      wv_cta *own = x->cta;
      x->cta = t;
      int bad = !wv_mem_xlate(x, WV_SPACE_SHARED, off, n, n, l, WV_MEM_STORE);
      x->cta = bt;
      bad = bad || !wv_mem_xlate(x, WV_SPACE_SHARED, boff, 8, 8, l, WV_MEM_STORE);
      x->cta = own;
      if (bad) return 1;
      wv_aent e = {.marker = A_STAGED, .op = in->sat, .rtype = in->type, .size = n, .dst = off, .dcta = t};
      if (!(e.data = malloc(n))) return wv_fault_set(x, WV_ERR_NOMEM, l, 0, 0, "out of host memory");
      for (unsigned i = 0; i < in->vec; i++) memcpy((uint8_t *)e.data + i * es, &WV_R(x, in->d[i])[l], es);
      if (enqueue(x, l, e)) return 1;
      if (enqueue(x, l, (wv_aent){.marker = A_TX, .size = n, .dst = boff, .dcta = bt})) return 1;
    });
    return 0;
  }
  case WV_CP_BULK_COMMIT:
    WV_FOR_LANES(m, l, { wv_aq *q = lane_q(x, x->warp, l); if (!q) return 1; q->bgroup++; });
    return 0;
  case WV_CP_BULK_WAIT: /* the lane's bulk async-groups but the newest N complete (.read: their reads; here both) */
    WV_FOR_LANES(m, l, {
      wv_aq *q = lane_q(x, x->warp, l);
      if (!q) return 1;
      uint32_t n = (uint32_t)in->imm, limit = q->bgroup > n ? q->bgroup - n : 0;
      if (deliver_through(x, x->warp, l, need_older_bulk, &limit)) return 1;
    });
    return 0;
  case WV_CP_COMMIT:
    if (!m || !lane_qs(x, x->warp, __builtin_ctz(m))) return m ? 1 : 0;
    WV_FOR_LANES(m, l, { x->warp->aq->group[l]++; });
    return 0;
  case WV_CP_WAIT_GROUP:
  case WV_CP_WAIT_ALL:
    if (!wait_batches(x, in, m)) return 0;
    WV_FOR_LANES(m, l, {
      wv_aq *q = lane_q(x, x->warp, l);
      if (!q) return 1;
      uint32_t *g = &x->warp->aq->group[l];
      if (in->mode == WV_CP_WAIT_ALL) ++*g; /* wait_all = commit_group + wait_group 0 */
      uint32_t n = (uint32_t)in->imm, limit = *g > n ? *g - n : 0;
      if (deliver_through(x, x->warp, l, need_older, &limit)) return 1;
    });
    return 0;
  default: { /* cp.async.mbarrier.arrive: an arrival once the lane's prior copies are done */
    WV_FOR_LANES(m, l, {
      uint64_t a = addr_of(x, in->a, in->imm, in->addrf, l), off;
      uint8_t *p = mb_ptr(x, in->space, a, l);
      wv_cta *c;
      if (!p || mb_where(x, in->space, a, l, &c, &off)) return 1;
      if (!(in->boolop & WV_MBF_NOINC)) { /* the pending count goes up now, down at the arrival */
        uint64_t w;
        memcpy(&w, p, 8);
        w = mb_make(MB_PENDING(w) + 1, MB_EXPECTED(w), MB_TX(w), MB_PHASE(w));
        memcpy(p, &w, 8);
      }
      if (enqueue(x, l, (wv_aent){.marker = A_ARRIVE, .dst = off, .space = in->space, .dcta = c})) return 1;
    });
    return 0;
  }
  }
}

/* A thread that exits with bulk copies to global memory in flight: they complete (the GPU finishes them). Those are
 * entries of the lanes' queues, never batches: a warp with no entry queued has none (each lane's scan, and the
 * spill of its batches before it, took 3,900 instructions a warp in async_copy, callgrind). */
int wv_async_lanes_exit(wv_exec *x, wv_warp *w, uint32_t m) {
  if (!w->aq || !w->aq->queued) return 0;
  WV_FOR_LANES(m, l, {
    if (deliver_through(x, w, l, need_bulk, NULL)) return 1;
  });
  return 0;
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
      if (pass == 0 && x->async_mode != WV_ASYNC_EAGER && deliver_for_mbar(x, in->space, a, l)) return -1;
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
  const wv_cluster *cl = x->cta->cl; /* (a copy into this CTA may come from any CTA of the cluster) */
  for (uint32_t r = 0; r < cl->n; r++)
    for (uint32_t wi = 0; wi < cl->ctas[r]->nwarps; wi++) {
      wv_warp *w = &cl->ctas[r]->warps[wi];
      for (uint32_t i = w->abq ? w->abq->head : 0; w->abq && i < w->abq->n; i++) {
        const wv_abatch *a = &w->abq->v[i];
        WV_FOR_LANES(a->dcta == x->cta ? a->mask : 0, l, {
          if (off < (uint64_t)ab_dst(a, l) + a->size && ab_dst(a, l) < off + size) {
            x->n_async_early++;
            return;
          }
        });
      }
      if (!w->aq) continue;
      for (int l = 0; l < WV_WARP; l++)
        for (uint32_t i = w->aq->lane[l].head; i < w->aq->lane[l].n; i++) {
          const wv_aent *e = &w->aq->lane[l].v[i];
          if (writes_shared(e) && e->dcta == x->cta && off < e->dst + e->size && e->dst < off + size) {
            x->n_async_early++;
            return;
          }
        }
    }
}

void wv_async_warp_reset(wv_warp *w) {
  if (w->abq) w->abq->head = w->abq->n = 0;
  if (!w->aq) return;
  for (int l = 0; l < WV_WARP; l++) {
    wv_aq *q = &w->aq->lane[l];
    for (uint32_t i = q->head; w->aq->queued && i < q->n; i++) entry_free(&q->v[i]); /* (none queued: none to free) */
    q->head = q->n = q->bgroup = w->aq->group[l] = 0;
  }
  w->aq->queued = 0;
}

void wv_async_warp_free(wv_warp *w) {
  if (w->abq) free(w->abq->v);
  free(w->abq);
  w->abq = NULL;
  if (!w->aq) return;
  wv_async_warp_reset(w);
  for (int l = 0; l < WV_WARP; l++) free(w->aq->lane[l].v);
  free(w->aq);
  w->aq = NULL;
}

wv_handler wv_h_async(int mbarrier) { return mbarrier ? h_mbarrier : h_cp; }
