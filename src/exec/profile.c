/*
 * profile.c — the counting half of `--profile` (profile.h): per PTX instruction, the warp and thread
 * instructions a launch executed, divergent branches, and for every memory access the hardware's unit
 * of work, computed from the lanes' addresses before the instruction runs:
 *   - shared memory: 32 banks of 4-byte words. A request is served in phases — the whole warp for
 *     accesses of up to 4 bytes, each half-warp for 8 bytes, each quarter-warp for 16 bytes (every
 *     phase moves at most 128 bytes) — and a phase takes as many wavefronts as the most distinct
 *     words any one bank must deliver (threads reading the same word share it: a broadcast). The
 *     conflict-free count is one wavefront per phase in use; the excess is the bank conflicts.
 *   - global (and constant) memory: the distinct 32-byte sectors the active threads touch.
 *   - local memory: the same, with the GPU's interleaving (a thread's 4-byte word i lies next to the
 *     other threads' word i), so a warp reading one local variable touches 4 sectors.
 * The hooks only read the registers and the warp's state; they never change what runs.
 */
#include <stdlib.h>

#include "exec/handlers.h"
#include "exec/profile.h"
#include "exec/sched.h"

wv_prof *wv_prof_new(const wv_irmod *mod, int tracing) {
  wv_prof *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->mod = mod;
  p->tracing = tracing;
  uint32_t most = 0;
  for (uint32_t i = 0; i < mod->nfuncs; i++) most = mod->funcs[i].ncode > most ? mod->funcs[i].ncode : most;
  p->pc = calloc(mod->nfuncs + 1, sizeof *p->pc);
  p->sink = calloc(most + 1, sizeof *p->sink);
  if (!p->pc || !p->sink) { free(p->pc); free(p->sink); free(p); return NULL; }
  return p;
}

void wv_prof_free(wv_prof *p) {
  if (!p) return;
  for (uint32_t i = 0; i < p->mod->nfuncs; i++) free(p->pc[i]);
  free(p->pc);
  free(p->sink);
  free(p->ev);
  free(p);
}

static wv_pcprof *fn_counters(wv_prof *p, const wv_func *fn) {
  if (fn == p->last_fn) return p->last_pc;
  uint32_t fi = (uint32_t)(fn - p->mod->funcs);
  if (!p->pc[fi]) p->pc[fi] = calloc(fn->ncode + 1, sizeof(wv_pcprof));
  p->last_fn = fn;
  return p->last_pc = p->pc[fi];
}

int wv_prof_merge(wv_prof *into, const wv_prof *from) {
  for (uint32_t fi = 0; fi < from->mod->nfuncs; fi++) {
    const wv_pcprof *s = from->pc[fi];
    if (!s) continue;
    const wv_func *fn = &from->mod->funcs[fi];
    if (!into->pc[fi] && !(into->pc[fi] = calloc(fn->ncode + 1, sizeof(wv_pcprof)))) return -1;
    wv_pcprof *d = into->pc[fi];
    for (uint32_t i = 0; i < fn->ncode; i++) {
      d[i].warp += s[i].warp, d[i].thread += s[i].thread, d[i].pred_on += s[i].pred_on;
      d[i].divergent += s[i].divergent, d[i].req += s[i].req, d[i].wavefronts += s[i].wavefronts;
      d[i].ideal += s[i].ideal, d[i].sectors += s[i].sectors, d[i].bytes += s[i].bytes;
      d[i].stall += s[i].stall, d[i].undef += s[i].undef;
      if (s[i].space) d[i].space = s[i].space;
    }
  }
  for (int sp = 0; sp < WV_PS_COUNT; sp++)
    for (int k = 0; k < WV_PK_COUNT; k++) {
      into->mem_req[sp][k] += from->mem_req[sp][k];
      into->mem_sec[sp][k] += from->mem_sec[sp][k];
      into->mem_wave[sp][k] += from->mem_wave[sp][k];
      into->mem_ideal[sp][k] += from->mem_ideal[sp][k];
      into->mem_bytes[sp][k] += from->mem_bytes[sp][k];
    }
  into->lost |= from->lost;
  into->async_bytes += from->async_bytes;
  into->async_waits += from->async_waits;
  into->mbar_waits += from->mbar_waits;
  into->bar_waits += from->bar_waits;
  into->ev_dropped += from->ev_dropped;
  uint32_t room = WV_PROF_MAX_EVENTS - into->nev, n = from->nev < room ? from->nev : room;
  into->ev_dropped += from->nev - n;
  if (n && into->nev + n > into->capev) {
    uint32_t cap = into->nev + n;
    wv_prof_ev *e = realloc(into->ev, cap * sizeof *e);
    if (!e) return -1;
    into->ev = e, into->capev = cap;
  }
  for (uint32_t i = 0; i < n; i++) {
    into->ev[into->nev + i] = from->ev[i];
    into->ev[into->nev + i].worker = into->merged;
  }
  into->nev += n;
  into->merged++;
  return 0;
}

int wv_prof_class(const wv_insn *in) {
  switch (wv_ops[in->op].cls) {
  case WV_C_SFU: return WV_PC_SFU;
  case WV_C_MEM: return WV_PC_MEM;
  case WV_C_CTRL: return WV_PC_CTRL;
  case WV_C_SYNC: return WV_PC_SYNC;
  case WV_C_WARP: return WV_PC_COLL;
  case WV_C_FPU:
  case WV_C_ALU:
    if (in->op == WV_OP_MOV || in->op == WV_OP_CVT || in->op == WV_OP_SETP || in->op == WV_OP_SET ||
        in->op == WV_OP_SELP || in->op == WV_OP_SLCT || !wv_type_is_float((wv_type)in->type))
      return WV_PC_ALU;
    if (in->op == WV_OP_DIV && in->type != WV_T_F64) return WV_PC_SFU; /* rcp on the SFU, then FFMAs */
    return in->type == WV_T_F64 ? WV_PC_FP64 : WV_PC_FMA;
  default: return WV_PC_ALU;
  }
}

/* ---- timeline ---- */

static void event(wv_prof *p, int kind, uint32_t warp, uint32_t line, double t0, double t1) {
  if (!p->tracing) return;
  if (p->nev >= WV_PROF_MAX_EVENTS) { p->ev_dropped++; return; }
  if (p->nev == p->capev) {
    uint32_t cap = p->capev ? 2 * p->capev : 256;
    wv_prof_ev *e = realloc(p->ev, cap * sizeof *e);
    if (!e) { p->ev_dropped++; return; }
    p->ev = e, p->capev = cap;
  }
  p->ev[p->nev++] = (wv_prof_ev){.kind = (uint8_t)kind, .warp = warp, .line = line, .cta = p->cur_cta, .t0 = t0, .t1 = t1};
}

void wv_prof_cta(wv_prof *p, uint64_t ci, int begin) {
  if (!p->tracing) return;
  if (begin) {
    p->cur_cta = ci;
    p->cta_t0 = wv_now();
    memset(p->bar_t0, 0, sizeof p->bar_t0);
    memset(p->async_t0, 0, sizeof p->async_t0);
  } else {
    p->cur_cta = ci;
    event(p, WV_EV_CTA, 0, 0, p->cta_t0, wv_now());
  }
}

/* ---- barriers and collectives ---- */

void wv_prof_bar(wv_prof *p, const wv_func *fn, uint32_t pc, uint32_t warp, uint64_t clock, int release) {
  wv_pcprof *cs = fn_counters(p, fn);
  if (!cs) return;
  wv_pcprof *c = &cs[pc];
  if (!release) {
    c->stall -= clock; /* waits sum release - arrival, in the CTA's warp instructions (unsigned wrap cancels) */
    p->bar_waits++;
    if (p->tracing && warp < 32 && !p->bar_t0[warp]) p->bar_t0[warp] = wv_now();
    return;
  }
  c->stall += clock;
  if (p->tracing && warp < 32 && p->bar_t0[warp]) {
    event(p, WV_EV_BAR, warp, fn->code[pc].line, p->bar_t0[warp], wv_now());
    p->bar_t0[warp] = 0;
  }
}

void wv_prof_undef(wv_prof *p, const wv_func *fn, uint32_t pc) {
  wv_pcprof *c = fn_counters(p, fn);
  if (c) c[pc].undef++;
}

/* ---- memory ---- */

/* Distinct values among v[0..n) (n <= 64), v sorted in place. */
static uint32_t distinct(uint64_t *v, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) { /* insertion sort: the values of a warp are mostly in order already */
    uint64_t t = v[i];
    uint32_t j = i;
    while (j && v[j - 1] > t) { v[j] = v[j - 1]; j--; }
    v[j] = t;
  }
  uint32_t d = n ? 1 : 0;
  for (uint32_t i = 1; i < n; i++) d += v[i] != v[i - 1];
  return d;
}

/* Wavefronts of one phase: the largest number of distinct words any bank holds. words[0..n) */
static uint32_t phase_wavefronts(uint64_t *words, uint32_t n) {
  /* each bank's distinct words on a list (a few each, as a rule) */
  uint8_t head[32], next[64], per_bank[32] = {0};
  uint32_t most = 0, i;
  memset(head, 0xff, sizeof head);
  for (i = 0; i < n; i++) {
    uint32_t b = (uint32_t)(words[i] & 31), k = head[b];
    while (k != 0xff && words[k] != words[i]) k = next[k];
    if (k != 0xff) continue; /* the same word: a broadcast */
    next[i] = head[b];
    head[b] = (uint8_t)i;
    if (++per_bank[b] > most) most = per_bank[b];
  }
  return most;
}

/* Shared-memory wavefronts of a request: lanes m at addr[] (shared-space offsets), `size` bytes each. */
static void shared_wavefronts(const uint64_t *addr, uint32_t m, uint32_t size, uint64_t *wave, uint64_t *ideal) {
  uint32_t lanes = size <= 4 ? 32 : size == 8 ? 16 : 8; /* threads per phase: 128 bytes at most */
  for (uint32_t ph = 0; ph < 32; ph += lanes) {
    uint32_t pm = (uint32_t)(((uint64_t)m >> ph) & ((lanes == 32) ? 0xffffffffu : ((1u << lanes) - 1)));
    if (!pm) continue;
    uint64_t lo = ~0ull, hi = 0; /* the common case first: a phase whose words span fewer than 32 has each */
    WV_FOR_LANES(pm, q, {        /* bank give at most one word (consecutive words, a broadcast, a mix) */
      uint64_t a = addr[ph + (uint32_t)q];
      lo = a < lo ? a : lo;
      hi = a > hi ? a : hi;
    });
    if (((hi + (size ? size : 1) - 1) >> 2) - (lo >> 2) < 32) {
      *wave += 1;
      *ideal += 1;
      continue;
    }
    uint64_t words[64];
    uint32_t n = 0;
    for (uint32_t q = pm; q; q &= q - 1) {
      int l = (int)ph + __builtin_ctz(q);
      uint64_t first = addr[l] >> 2, last = (addr[l] + (size ? size : 1) - 1) >> 2;
      for (uint64_t w = first; w <= last && n < 64; w++) words[n++] = w;
    }
    *wave += phase_wavefronts(words, n);
    *ideal += 1;
  }
}

/* Distinct 32-byte sectors of a request. */
static uint32_t sectors(const uint64_t *addr, uint32_t m, uint32_t size) {
  uint64_t lo = ~0ull, hi = 0;
  WV_FOR_LANES(m, l, {
    lo = addr[l] < lo ? addr[l] : lo;
    hi = addr[l] > hi ? addr[l] : hi;
  });
  lo >>= 5;
  if (((hi + (size ? size : 1) - 1) >> 5) - lo < 64) { /* within 64 sectors: a bit each */
    uint64_t bits = 0;
    WV_FOR_LANES(m, l, {
      bits |= 1ull << ((addr[l] >> 5) - lo);
      bits |= 1ull << (((addr[l] + (size ? size : 1) - 1) >> 5) - lo);
    });
    return (uint32_t)__builtin_popcountll(bits);
  }
  uint64_t s[64];
  uint32_t n = 0;
  WV_FOR_LANES(m, l, {
    uint64_t a = addr[l] >> 5, b = (addr[l] + (size ? size : 1) - 1) >> 5;
    s[n++] = a;
    if (b != a) s[n++] = b;
  });
  return distinct(s, n);
}

static int prof_space(int sp) {
  switch (sp) {
  case WV_SPACE_GLOBAL: case WV_SPACE_CONST: return WV_PS_GLOBAL;
  case WV_SPACE_SHARED: return WV_PS_SHARED;
  case WV_SPACE_LOCAL: return WV_PS_LOCAL;
  default: return WV_PS_OTHER;
  }
}

/* One request of `size` bytes per lane at slot + off (flags) in `space`, of kind k. */
static void mem_request(wv_prof *p, wv_pcprof *c, wv_exec *x, int space, uint32_t slot, int64_t off, uint8_t flags,
                        uint32_t m, uint32_t size, int k) {
  uint64_t addr[WV_WARP] = {0};
  const uint64_t *A = slot != WV_NOSLOT ? WV_R(x, slot) : NULL;
  uint64_t o = (uint64_t)off + ((flags & WV_AF_LOCALBASE) ? x->frame->local_base : 0); /* wv_lane_addr, hoisted */
  uint64_t bmask = (flags & WV_AF_ADDR32) ? 0xffffffffu : ~0ull, wmask = (flags & WV_AF_WRAP32) ? 0xffffffffu : ~0ull;
  if (A) WV_FOR_LANES(m, l, { addr[l] = ((A[l] & bmask) + o) & wmask; });
  else WV_FOR_LANES(m, l, { addr[l] = o & wmask; });
  int sp = space;
  if (sp == WV_SPACE_GENERIC) { /* the first lane's window decides (a warp mixing spaces is rare) */
    uint64_t sa;
    sp = wv_mem_classify(addr[__builtin_ctz(m)], &sa);
    uint64_t delta = addr[__builtin_ctz(m)] - sa;
    WV_FOR_LANES(m, l, { addr[l] -= delta; });
  }
  int ps = prof_space(sp);
  uint64_t bytes = (uint64_t)size * (uint32_t)__builtin_popcount(m);
  c->req++;
  c->bytes += bytes;
  c->space = (uint8_t)(ps + 1);
  p->mem_req[ps][k]++;
  p->mem_bytes[ps][k] += bytes;
  if (ps == WV_PS_SHARED) {
    uint64_t w = 1, i = 1; /* atomics: requests only (ncu's wavefront and conflict metrics are loads' and stores') */
    if (k != WV_PK_ATOM) w = i = 0, shared_wavefronts(addr, m, size, &w, &i);
    c->wavefronts += w, c->ideal += i;
    p->mem_wave[ps][k] += w, p->mem_ideal[ps][k] += i;
  } else if (ps == WV_PS_GLOBAL || ps == WV_PS_LOCAL) {
    if (ps == WV_PS_LOCAL) /* interleaved: word i of thread t at (i * 32 + t) * 4 */
      WV_FOR_LANES(m, l, { addr[l] = ((addr[l] >> 2) * 32 + (uint64_t)l) * 4 + (addr[l] & 3); });
    uint32_t s = sectors(addr, m, ps == WV_PS_LOCAL && size > 4 ? 4 : size);
    if (ps == WV_PS_LOCAL && size > 4) s *= size / 4;
    c->sectors += s;
    p->mem_sec[ps][k] += s;
  }
}

wv_pcprof *wv_prof_fn(wv_prof *p, const wv_func *fn) {
  wv_pcprof *c = fn_counters(p, fn);
  if (c) return c;
  p->lost = 1; /* out of host memory: this function's counts go to the sink (the report says they are lost) */
  p->last_fn = NULL;
  return p->sink;
}

void wv_prof_more(wv_prof *p, wv_pcprof *c, wv_exec *x, const wv_insn *in, uint32_t mask, uint32_t m) {
  switch (in->op) {
  case WV_OP_BRA:
    if (m && (mask & ~m)) c->divergent++;
    return;
  case WV_OP_MBARRIER: /* test_wait / try_wait: a thread waits for a phase (cp.async and bulk copies complete there) */
    if (m) p->mbar_waits++;
    return;
  case WV_OP_LD: case WV_OP_LDU:
    if (m) mem_request(p, c, x, in->space, in->a, in->imm, in->addrf, m, wv_type_size((wv_type)in->type) * in->vec, WV_PK_LD);
    return;
  case WV_OP_ST:
    if (m) mem_request(p, c, x, in->space, in->a, in->imm, in->addrf, m, wv_type_size((wv_type)in->type) * in->vec, WV_PK_ST);
    return;
  case WV_OP_ATOM: case WV_OP_RED:
    if (m) mem_request(p, c, x, in->space, in->a, in->imm, in->addrf, m, wv_type_size((wv_type)in->type), WV_PK_ATOM);
    return;
  case WV_OP_CP:
    if (in->mode == WV_CP_COPY && m) {
      mem_request(p, c, x, WV_SPACE_GLOBAL, in->b, in->imm2, in->type2, m, in->target, WV_PK_LD);
      p->async_bytes += (uint64_t)in->target * (uint32_t)__builtin_popcount(m);
    } else if (in->mode == WV_CP_COMMIT && p->tracing) {
      uint32_t w = x->warp->id;
      if (w < 32 && !p->async_t0[w]) p->async_t0[w] = wv_now();
    } else if (in->mode == WV_CP_WAIT_GROUP || in->mode == WV_CP_WAIT_ALL) {
      p->async_waits++;
      uint32_t w = x->warp->id;
      if (p->tracing && w < 32 && p->async_t0[w]) {
        event(p, WV_EV_ASYNC, w, in->line, p->async_t0[w], wv_now());
        p->async_t0[w] = 0;
      }
    }
    return;
  default:
    return;
  }
}
