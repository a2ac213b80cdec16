/*
 * workers.c — a normal launch's CTAs on several threads, and what they print.
 *
 * A launch with clusters of several CTAs is claimed cluster by cluster: a worker starts all CTAs of the cluster
 * and gives them turns to the end (cluster.c); everything below that says CTA then means cluster.
 *
 * The vm keeps a pool of helper threads (started by its first launch that can use them, ended with the
 * vm; with the default thread count a launch wakes them only once it has run WAKE_AFTER). A launch's CTAs are claimed in grid order from one counter; each worker (the calling thread and
 * the helpers) runs the CTA it claimed to its end in its own executor and buffers (sched.h), then
 * claims the next. The CTAs of a normal launch cannot wait for each other (a GPU does not promise that
 * they run at the same time), so any order of running them is one a GPU could take, and a race-free
 * program gives the same results with any number of workers.
 *
 * What the CTAs print comes out as if one thread had run them one after another in grid order:
 *   - the lowest CTA not finished (the head) writes its printf records straight through to the vm's
 *     sink; any other CTA holds its records until every CTA before it has finished, and the worker
 *     that finishes the head puts them out, in grid order;
 *   - diagnostics are counted and kept per CTA and added to the vm's in the same order, so the records
 *     kept are the first ones in grid order;
 *   - a fault ends its CTA; no CTA after it is claimed, the ones after it that are running are
 *     abandoned and the ones before it finish (one of them may fault too): the report is the lowest
 *     faulting CTA's, and nothing a CTA after it printed comes out.
 * The watchdog counts every worker's instructions (published in batches, sched.c). Statistics are
 * summed over the workers (after a fault they include the abandoned CTAs' work). With one worker this
 * is the plain serial run.
 */
#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "exec/sched.h"
#include "rt/vm_internal.h"

#define NONE UINT64_MAX
#define HOLD_MAX ((size_t)64 << 20) /* output bytes CTAs after the head may hold before they wait for it */
#define RING_MAX ((uint64_t)1 << 20) /* finished CTAs after the head before claims wait for it */
/* With the default thread count (one per core) the caller runs a launch alone for this long before it wakes
 * the helpers: waking a thread costs a few microseconds to tens of them, more than a short launch of a few
 * small CTAs takes. A count the user set (wv_config.threads) is used from the launch's start. */
#define WAKE_AFTER 100e-6

/* ---------------- the vm's helper threads ---------------- */

typedef struct helper {
  struct wv_pool *p;
  uint32_t index;             /* worker index: helpers are 1.. (the caller is 0) */
  pthread_t thread;
} helper;

struct wv_pool {
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  helper *helpers;            /* room for cap, n started */
  uint32_t cap, n;
  pid_t pid;                  /* the process that started them (a fork's child has none of them) */
  uint64_t job;               /* jobs given out */
  uint32_t want, busy;        /* helpers the current job asked for; those still in it */
  void (*fn)(void *, uint32_t);
  void *arg;
  int quit;
};

static void *helper_main(void *arg) {
  helper *h = arg;
  struct wv_pool *p = h->p;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->quit && p->job == seen) pthread_cond_wait(&p->go, &p->lock);
    if (p->quit) break;
    seen = p->job;
    if (h->index > p->want) continue;
    void (*fn)(void *, uint32_t) = p->fn;
    void *fa = p->arg;
    pthread_mutex_unlock(&p->lock);
    fn(fa, h->index);
    pthread_mutex_lock(&p->lock);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

void wv_pool_free(struct wv_pool *p) {
  if (!p) return;
  if (p->pid == getpid()) {
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
    for (uint32_t i = 0; i < p->n; i++) pthread_join(p->helpers[i].thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
  }
  free(p->helpers);
  free(p);
}

/* The vm's pool with at least `need` helpers started if it can (fewer if threads cannot be made). */
static struct wv_pool *pool_get(wv_vm *vm, uint32_t need) {
  struct wv_pool *p = vm->pool;
  if (p && p->pid != getpid()) { /* a forked child: its parent's threads are not here */
    free(p->helpers);
    free(p);
    p = vm->pool = NULL;
  }
  if (!p) {
    if (!(p = calloc(1, sizeof *p)) || !(p->helpers = calloc(vm->nthreads, sizeof *p->helpers))) {
      free(p);
      return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    p->cap = vm->nthreads;
    p->pid = getpid();
    vm->pool = p;
  }
  if (need > p->cap) need = p->cap;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the program's signals go to its own threads */
  pthread_mutex_lock(&p->lock);
  while (p->n < need) {
    helper *h = &p->helpers[p->n];
    h->p = p;
    h->index = p->n + 1;
    if (pthread_create(&h->thread, NULL, helper_main, h)) break;
    p->n++;
  }
  pthread_mutex_unlock(&p->lock);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return p;
}

/* Start fn(arg, i) on helpers 1..want (those the pool has): how many started. */
static uint32_t pool_start(wv_vm *vm, uint32_t want, void (*fn)(void *, uint32_t), void *arg) {
  struct wv_pool *p = want ? pool_get(vm, want) : NULL;
  uint32_t n = p ? (p->n < want ? p->n : want) : 0;
  if (n) {
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->arg = arg;
    p->want = p->busy = n;
    p->job++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
  }
  return n;
}

/* Wait until the helpers have finished the job. */
static void pool_wait(wv_vm *vm) {
  struct wv_pool *p = vm->pool;
  pthread_mutex_lock(&p->lock);
  while (p->busy) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

/* ---------------- what a CTA prints ---------------- */

enum { OUT_PRINTF = 0, OUT_STDERR = 1 };
#define REC_HEAD 5 /* a held record: its kind, its length (4 bytes), its text */

typedef struct grid grid;

struct wv_ctaout {
  grid *g;
  uint64_t cta;
  char *buf;                  /* held records */
  size_t len, cap;
  uint64_t dcount[WV_DIAG_KINDS];               /* diagnostics of each kind */
  char (*dkept)[WV_DIAG_KEEP][WV_DIAG_TEXT];    /* the first WV_DIAG_KEEP's records (made at the first) */
};

/* A finished CTA after the head: its output, NULL if it had none. */
typedef struct slot {
  int done;
  struct wv_ctaout *o;
} slot;

/* Each counter the workers write has a cache line of its own: `stop`, read at every warp's turn, is written
 * once at most. */
struct grid {
  const wv_launch_desc *L;
  uint32_t workers;
  uint32_t helpers;           /* helpers started (by the caller, once the launch has run WAKE_AFTER) */
  double t0;
  uint64_t nunits;            /* what workers claim: the CTAs, or for clusters of several CTAs the clusters */
  alignas(64) _Atomic uint64_t stop; /* the lowest CTA that failed; NONE */
  alignas(64) _Atomic uint64_t next; /* the next CTA to claim */
  alignas(64) _Atomic uint64_t head; /* the lowest CTA not finished: its output goes straight out */
  alignas(64) _Atomic uint64_t insns;/* warp instructions the workers have published (the watchdog) */
  alignas(64) _Atomic size_t held;   /* output bytes CTAs after the head hold */
  alignas(64) pthread_mutex_t lock; /* the ring, the report, putting output out */
  pthread_cond_t moved;       /* the head moved or a CTA failed */
  slot *ring;                 /* finished CTAs after the head: CTA c at ring[c % rcap] */
  uint64_t rcap;
  wv_status st;               /* the report of CTA stop's fault */
  char msg[2048];
};

static void sink(wv_vm *vm, int kind, const char *text, size_t n) {
  if (kind == OUT_STDERR) fwrite(text, 1, n, stderr);
  else if (vm->cfg.printf_out) vm->cfg.printf_out(vm->cfg.printf_user, text, n);
  else fwrite(text, 1, n, stdout);
}

/* Put out the records o holds (its CTA's turn has come). */
static void put_records(grid *g, struct wv_ctaout *o) {
  for (size_t at = 0; at < o->len;) {
    uint32_t n;
    memcpy(&n, o->buf + at + 1, 4);
    sink(g->L->vm, o->buf[at], o->buf + at + REC_HEAD, n);
    at += REC_HEAD + n;
  }
  atomic_fetch_sub_explicit(&g->held, o->len, memory_order_relaxed);
  o->len = 0;
}

/* Put out all of o: records and diagnostics (under g->lock). */
static void put_out(grid *g, struct wv_ctaout *o) {
  wv_vm *vm = g->L->vm;
  put_records(g, o);
  for (int k = 0; k < WV_DIAG_KINDS; k++) {
    uint64_t n = o->dcount[k], i = 0;
    for (; i < n && i < WV_DIAG_KEEP; i++) { /* the vm keeps them while it has fewer than WV_DIAG_KEEP */
      char *rec = wv_diag_add(vm, (wv_diag_kind)k);
      if (rec && o->dkept) memcpy(rec, o->dkept[k][i], WV_DIAG_TEXT);
    }
    wv_diag_count_more(vm, (wv_diag_kind)k, n - i);
    o->dcount[k] = 0;
  }
}

static void out_clear(grid *g, struct wv_ctaout *o) {
  atomic_fetch_sub_explicit(&g->held, o->len, memory_order_relaxed);
  o->len = 0;
  memset(o->dcount, 0, sizeof o->dcount);
}

/* Whether o's CTA is the head, and not after one that failed: when the failed CTA finishes as the head, the head
 * moves past it (finish), but a CTA after it that is still running is abandoned, not the head — its records must
 * not go straight out. (finish stores stop before it releases head: the acquire sees it.) */
static int is_head(const struct wv_ctaout *o) {
  return atomic_load_explicit(&o->g->head, memory_order_acquire) == o->cta && atomic_load(&o->g->stop) >= o->cta;
}

/* A CTA after the head that holds too much waits until it is the head (or abandoned: 0). */
static int wait_turn(struct wv_ctaout *o) {
  grid *g = o->g;
  pthread_mutex_lock(&g->lock);
  while (!is_head(o) && atomic_load(&g->stop) >= o->cta) pthread_cond_wait(&g->moved, &g->lock);
  pthread_mutex_unlock(&g->lock);
  return is_head(o);
}

static void out_record(wv_exec *x, int kind, const char *text, size_t n) {
  struct wv_ctaout *o = x->out;
  if (!o) {
    sink(x->vm, kind, text, n);
    return;
  }
  int head = is_head(o);
  if (!head && atomic_load_explicit(&o->g->held, memory_order_relaxed) > HOLD_MAX) {
    if (!wait_turn(o)) return; /* abandoned: nothing of it comes out */
    head = 1;
  }
  if (head) { /* once the head, a CTA stays the head until it finishes: nobody else puts anything out */
    put_records(o->g, o);
    sink(x->vm, kind, text, n);
    return;
  }
  if (n > UINT32_MAX - REC_HEAD) n = UINT32_MAX - REC_HEAD;
  if (o->cap - o->len < REC_HEAD + n) {
    size_t nc = o->cap ? o->cap : 4096;
    while (nc - o->len < REC_HEAD + n) nc *= 2;
    char *nb = realloc(o->buf, nc);
    if (!nb) return; /* out of memory: the record is lost, like a full printf FIFO's */
    o->buf = nb;
    o->cap = nc;
  }
  uint32_t n32 = (uint32_t)n;
  o->buf[o->len] = (char)kind;
  memcpy(o->buf + o->len + 1, &n32, 4);
  memcpy(o->buf + o->len + REC_HEAD, text, n);
  o->len += REC_HEAD + n;
  atomic_fetch_add_explicit(&o->g->held, REC_HEAD + n, memory_order_relaxed);
}

void wv_out_printf(wv_exec *x, const char *text, size_t n) { out_record(x, OUT_PRINTF, text, n); }
void wv_out_stderr(wv_exec *x, const char *text, size_t n) { out_record(x, OUT_STDERR, text, n); }

char *wv_out_diag(wv_exec *x, int kind) {
  struct wv_ctaout *o = x->out;
  if (!o) return wv_diag_add(x->vm, (wv_diag_kind)kind);
  uint64_t n = o->dcount[kind]++;
  if (n >= WV_DIAG_KEEP || (!o->dkept && !(o->dkept = calloc(WV_DIAG_KINDS, sizeof *o->dkept)))) return NULL;
  o->dkept[kind][n][0] = 0;
  return o->dkept[kind][n];
}

/* ---------------- the CTAs of a launch in grid order ---------------- */

static int has_output(const struct wv_ctaout *o) {
  if (o->len) return 1;
  for (int k = 0; k < WV_DIAG_KINDS; k++)
    if (o->dcount[k]) return 1;
  return 0;
}

/* The finished output of a CTA that must wait for the head: moved out of the worker's buffers. */
static struct wv_ctaout *out_take(struct wv_ctaout *o) {
  struct wv_ctaout *t = malloc(sizeof *t);
  if (!t) return NULL;
  *t = *o;
  o->buf = NULL;
  o->len = o->cap = 0;
  o->dkept = NULL;
  memset(o->dcount, 0, sizeof o->dcount);
  return t;
}

static void out_free(struct wv_ctaout *o) {
  if (!o) return;
  free(o->buf);
  free(o->dkept);
  free(o);
}

/* Room in the ring for CTA c (under g->lock). */
static int ring_fit(grid *g, uint64_t c) {
  uint64_t head = atomic_load_explicit(&g->head, memory_order_relaxed);
  if (c - head < g->rcap) return 0;
  uint64_t nc = g->rcap ? g->rcap : 64;
  while (nc <= c - head) nc *= 2;
  slot *n = calloc(nc, sizeof *n);
  if (!n) return -1;
  for (uint64_t k = head; g->rcap && k < head + g->rcap; k++) n[k % nc] = g->ring[k % g->rcap];
  free(g->ring);
  g->ring = n;
  g->rcap = nc;
  return 0;
}

/* CTA o->cta has finished (failed: with the report in msg). */
static void finish(grid *g, struct wv_ctaout *o, int failed, wv_status st, const char *msg) {
  uint64_t c = o->cta;
  pthread_mutex_lock(&g->lock);
  if (failed && c < atomic_load(&g->stop)) {
    atomic_store(&g->stop, c);
    g->st = st;
    snprintf(g->msg, sizeof g->msg, "%s", msg);
    pthread_cond_broadcast(&g->moved);
  }
  uint64_t stop = atomic_load(&g->stop);
  if (c > stop) {
    out_clear(g, o); /* abandoned, or after the failed CTA: as if it never ran */
  } else if (c == atomic_load_explicit(&g->head, memory_order_relaxed)) {
    put_out(g, o);
    uint64_t h = c + 1;
    for (; h <= stop && g->rcap && g->ring[h % g->rcap].done; h++) { /* the CTAs that waited for it */
      slot *sl = &g->ring[h % g->rcap];
      if (sl->o) put_out(g, sl->o);
      out_free(sl->o);
      *sl = (slot){0};
    }
    atomic_store_explicit(&g->head, h, memory_order_release);
    pthread_cond_broadcast(&g->moved);
  } else {
    struct wv_ctaout *t = NULL;
    if (ring_fit(g, c) || (has_output(o) && !(t = out_take(o)))) { /* out of memory: fail the launch here */
      out_clear(g, o);
      atomic_store(&g->stop, c);
      g->st = WV_ERR_NOMEM;
      snprintf(g->msg, sizeof g->msg, "out of host memory");
      pthread_cond_broadcast(&g->moved);
    } else {
      g->ring[c % g->rcap] = (slot){1, t};
    }
  }
  pthread_mutex_unlock(&g->lock);
}

/* The next CTA for a worker, or NONE: the grid is done, or a CTA before it failed. */
static uint64_t claim(grid *g) {
  uint64_t c = atomic_fetch_add(&g->next, 1);
  if (c >= g->nunits || c > atomic_load(&g->stop)) return NONE;
  if (c - atomic_load(&g->head) >= RING_MAX) { /* far ahead of the head: let it catch up */
    pthread_mutex_lock(&g->lock);
    while (c - atomic_load(&g->head) >= RING_MAX && c <= atomic_load(&g->stop)) pthread_cond_wait(&g->moved, &g->lock);
    pthread_mutex_unlock(&g->lock);
    if (c > atomic_load(&g->stop)) return NONE;
  }
  return c;
}

static void worker(void *arg, uint32_t index);

/* The caller (worker 0), between turns: a launch that has run WAKE_AFTER with CTAs left gets its helpers. */
static void wake(grid *g) {
  if (g->helpers || g->workers < 2 || atomic_load_explicit(&g->next, memory_order_relaxed) >= g->nunits) return;
  if (!g->L->vm->cfg.threads && wv_now() - g->t0 < WAKE_AFTER) return;
  g->helpers = pool_start(g->L->vm, g->workers - 1, worker, g);
  if (!g->helpers) g->workers = 1; /* no threads: the caller alone */
}

/* Start unit c of the launch in the worker's CTAs: CTA c, or the CTAs of cluster c (formed into cl), rank order. */
static int start_unit(sched *s, wv_cta *ctas, wv_cluster *cl, uint64_t c, int reused) {
  const wv_launch_desc *L = s->L;
  if (L->csize <= 1) return wv_cta_start(s, &ctas[0], c, reused);
  wv_cta *members[WV_MAX_CLUSTER];
  for (uint32_t r = 0; r < L->csize; r++) members[r] = &ctas[r];
  wv_cluster_form(cl, members, L->cluster);
  for (uint32_t r = 0; r < L->csize; r++)
    if (wv_cta_start(s, &ctas[r], wv_cluster_seq_ci(L->grid, L->cluster, c * L->csize + r), reused)) return -1;
  s->ci = c; /* (an earlier unit's failure abandons this one: wv_cta_turn compares units) */
  return 0;
}

static void worker(void *arg, uint32_t index) {
  grid *g = arg;
  wv_vm *vm = g->L->vm;
  (void)index;
  sched *s = wv_sched_new(g->L);
  uint32_t n = g->L->csize > 1 ? g->L->csize : 1; /* a unit's CTAs: one, or a cluster's (cluster.c) */
  wv_cta ctas[WV_MAX_CLUSTER];
  wv_cluster cl;
  memset(ctas, 0, sizeof ctas);
  struct wv_ctaout out = {.g = g};
  int ok = s != NULL;
  for (uint32_t r = 0; ok && r < n; r++) ok = !wv_cta_alloc(s, &ctas[r]);
  if (!ok) goto done; /* the other workers run the CTAs; if none can, wv_run_grid says so */
  if (g->workers > 1) {
    s->insns_all = &g->insns;
    s->stop = &g->stop;
  }
  if (n > 1) s->poll_yield = 1; /* a cluster's CTAs take turns: one polling another's memory lets it run */
  for (int reused = 0;; reused = 1) {
    uint64_t c = claim(g);
    if (c == NONE) break;
    out.cta = c;
    s->x.out = &out;
    int failed = 0;
    if (start_unit(s, ctas, &cl, c, reused)) {
      failed = 1;
      wv_fault_set(&s->x, WV_ERR_NOMEM, -1, 0, 0, "out of host memory");
      snprintf(s->msg, sizeof s->msg, "out of host memory");
    } else if (n > 1) {
      failed = wv_cluster_run(s, ctas, n) < 0;
    } else {
      int r;
      while ((r = wv_cta_turn(s)) > 0)
        if (!index) wake(g);
      failed = r < 0;
    }
    for (uint32_t r = 0; r < n; r++) wv_cta_drop(s, &ctas[r]);
    s->ctas += n;
    finish(g, &out, failed, s->x.fault.status, s->msg);
    if (!index) wake(g);
  }
  wv_mm_commit_all(&s->x); /* the end of the launch makes every store visible (one worker under the weak model) */
done:
  pthread_mutex_lock(&g->lock);
  if (s) wv_sched_fold_stats(s, vm);
  pthread_mutex_unlock(&g->lock);
  free(out.buf);
  free(out.dkept);
  for (uint32_t r = 0; r < n; r++) wv_cta_free(&ctas[r]);
  wv_sched_free(s);
}

wv_status wv_run_grid(const wv_launch_desc *L, uint32_t workers) {
  wv_vm *vm = L->vm;
  grid g = {.L = L, .workers = workers ? workers : 1, .nunits = L->csize > 1 ? L->nctas / L->csize : L->nctas};
  atomic_init(&g.next, 0);
  atomic_init(&g.stop, NONE);
  atomic_init(&g.head, 0);
  atomic_init(&g.insns, 0);
  atomic_init(&g.held, 0);
  pthread_mutex_init(&g.lock, NULL);
  pthread_cond_init(&g.moved, NULL);
  g.t0 = wv_now();
  wake(&g);
  worker(&g, 0); /* the caller is worker 0, and wakes the helpers if the launch lasts (wake) */
  if (g.helpers) pool_wait(vm);
  for (uint64_t i = 0; i < g.rcap; i++) out_free(g.ring[i].o); /* CTAs after a failed one */
  free(g.ring);
  pthread_mutex_destroy(&g.lock);
  pthread_cond_destroy(&g.moved);
  if (atomic_load(&g.stop) != NONE) return wv_seterr(vm, g.st, "%s", g.msg);
  if (atomic_load(&g.head) < g.nunits) return wv_seterr(vm, WV_ERR_NOMEM, "out of host memory");
  return WV_OK;
}
