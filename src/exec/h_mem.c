/*
 * h_mem.c — memory instructions: ld/ldu/st (every state space, .v2/.v4), atom/red (global and
 * shared; add inc dec min max and or xor exch cas on 32/64-bit ints, add on f32/f64), cvta and
 * isspacep (PTX ISA §9.7.9); atom.add.noftz on .f16/.bf16/.f16x2/.bf16x2 and the sm_90 vector atom.global.add
 * .v2/.v4. A warp's ld/st/atom is checked once (wv_warp_region: every active lane inside
 * one region the program owns, aligned, nothing else to watch) and then copied in one loop per element
 * size; any doubt sends it to the exact path, where every lane's access goes through wv_mem_xlate,
 * which checks bounds and alignment and records a fault naming the address (or, for a load the GPU
 * lets pass, an invalid read). Atomics on global memory are atomic across host threads.
 */
#include "exec/fpmath.h"
#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#endif
#include "exec/handlers.h"
#include "exec/warp.h"
#include "rt/vm_internal.h"

static inline uint64_t lane_addr(wv_exec *x, const wv_insn *in, const uint64_t *A, int l) {
  return wv_lane_addr(x, A, in->imm, in->addrf, l);
}

static inline uint64_t load_elem(const uint8_t *p, unsigned size, int sgn) {
  switch (size) {
  case 1: return sgn ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
  case 2: { uint16_t v; memcpy(&v, p, 2); return sgn ? (uint64_t)(int64_t)(int16_t)v : v; }
  case 4: { uint32_t v; memcpy(&v, p, 4); return sgn ? (uint64_t)(int64_t)(int32_t)v : v; }
  default: { uint64_t v; memcpy(&v, p, 8); return v; }
  }
}

/* (handlers.h) */
size_t wv_mem_counter(int space, int st) {
  switch (space) {
  case WV_SPACE_SHARED: case WV_SPACE_CLUSTER: return st ? offsetof(wv_exec, n_sst) : offsetof(wv_exec, n_sld);
  case WV_SPACE_LOCAL: return st ? offsetof(wv_exec, n_lst) : offsetof(wv_exec, n_lld);
  case WV_SPACE_GLOBAL: case WV_SPACE_GENERIC: case WV_SPACE_CONST: return st ? offsetof(wv_exec, n_gst) : offsetof(wv_exec, n_gld);
  default: return (size_t)-1;
  }
}

static inline void count(wv_exec *x, int space, int st) {
  size_t off = wv_mem_counter(space, st);
  if (off != (size_t)-1) ++*(uint64_t *)(void *)((char *)x + off);
}

/* Is this access to global memory (and so subject to the weak memory model)? */
static int is_global(int space, uint64_t addr) {
  uint64_t sa;
  return space == WV_SPACE_GLOBAL || (space == WV_SPACE_GENERIC && wv_mem_classify(addr, &sa) == WV_SPACE_GLOBAL);
}

/* ---- the warp-wide check ---- */

/* Lane l's host pointer: hb is host - abase as an integer (no pointer leaves its object). */
#define LANE_P(hb, stride, addr, l) ((uint8_t *)(uintptr_t)((hb) + (addr)[l] + (size_t)(l) * (stride)))

/* Every active lane's address (wv_lane_addr of slot + off with flags), their lowest and highest, and the OR of
 * all (alignment). */
static void warp_addrs(wv_exec *x, uint32_t slot, int64_t off_, uint8_t flags, uint32_t m, uint64_t *addr,
                       uint64_t *lo, uint64_t *hi, uint64_t *bits) {
  const uint64_t *A = slot != WV_NOSLOT ? WV_R(x, slot) : NULL;
  uint64_t off = (uint64_t)off_ + ((flags & WV_AF_LOCALBASE) ? x->frame->local_base : 0);
  uint64_t bmask = (flags & WV_AF_ADDR32) ? 0xffffffffu : ~0ull;
  uint64_t wmask = (flags & WV_AF_WRAP32) ? 0xffffffffu : ~0ull;
  uint64_t l_ = ~0ull, h_ = 0, o_ = 0;
  if (A) {
    WV_FOR_LANES(m, l, {
      uint64_t a = ((A[l] & bmask) + off) & wmask;
      addr[l] = a;
      l_ = a < l_ ? a : l_;
      h_ = a > h_ ? a : h_;
      o_ |= a;
    });
  } else {
    uint64_t a = off & wmask;
    WV_FOR_LANES(m, l, { addr[l] = a; });
    l_ = h_ = o_ = a;
  }
  *lo = l_, *hi = h_, *bits = o_;
}

/* (handlers.h) */
int wv_warp_region(wv_exec *x, int space, uint32_t slot, int64_t off, uint8_t flags, uint32_t m, uint32_t bytes,
                   int store, uint64_t *addr, wv_region *r) {
  uint64_t lo, hi, bits;
  warp_addrs(x, slot, off, flags, m, addr, &lo, &hi, &bits);
  return wv_warp_region_at(x, space, lo, hi, bits, bytes, store, r);
}

/* (handlers.h) */
int wv_warp_region_at(wv_exec *x, int space, uint64_t lo, uint64_t hi, uint64_t bits, uint32_t bytes, int store,
                      wv_region *r) {
  uint64_t delta = 0;
  if (bits & (bytes - 1)) return 0; /* a window's base is aligned: a space address has the same low bits */
  int sp = space;
  if (sp == WV_SPACE_GENERIC) { /* one space for all lanes: both ends in one window, or in one allocation */
    uint64_t s;
    sp = wv_mem_classify(lo, &s);
    delta = lo - s; /* the window's base (0 for global) */
    if (wv_mem_classify(hi, &s) != sp) return 0;
  }
  uint64_t slo = lo - delta, shi = hi - delta;
  r->stride = 0;
  r->abase = delta;
  r->sp = sp;
  switch (sp) {
  case WV_SPACE_GLOBAL:
  case WV_SPACE_CONST:
    if (x->mm && sp == WV_SPACE_GLOBAL) return 0; /* the weak model sees every global access */
    if (store && sp == WV_SPACE_CONST) return 0;
    if (hi - lo > ((uint64_t)1 << 40)) return 0; /* (no allocation is larger) */
    r->abase = lo;
    return (r->host = wv_heap_lookup(&x->vm->heap, lo, hi - lo + bytes)) != NULL;
  case WV_SPACE_SHARED: {
    uint32_t have = x->cta->shared_size;
    if (slo < WV_SHARED_BASE || shi > have || bytes > have - shi) return 0;
    if (!store && x->cta->async_pending && wv_async_pending_in(x, slo, shi + bytes)) return 0;
    r->host = x->cta->shared;
    return 1;
  }
  case WV_SPACE_LOCAL: { /* the frames in use, [local_low, the stack's top), each lane's own */
    const wv_warp *w = x->warp;
    uint64_t top = WV_GPU_LOCAL_TOP - WV_GPU_LOCAL_RESERVED;
    if (slo < w->local_low || shi > top || bytes > top - shi) return 0;
    r->host = w->local;
    r->stride = w->local_cap;
    r->abase = delta + (WV_GPU_LOCAL_TOP - (uint64_t)w->local_cap);
    return 1;
  }
  case WV_SPACE_KPARAM: /* ld.param reads the parameter buffer; a generic access their copy in memory */
    if (shi > x->kparam_size || bytes > x->kparam_size - shi) return 0;
    if (space == WV_SPACE_GENERIC) r->host = x->kparams_mem;
    else if (store) return 0;
    else r->host = (uint8_t *)x->kparams;
    return 1;
  case WV_SPACE_FPARAM: {
    uint32_t ps = x->fn->param_size;
    if (shi > ps || bytes > ps - shi) return 0;
    r->host = x->frame->params;
    r->stride = ps;
    return 1;
  }
  default:
    return 0;
  }
}

/* A vector access is one memory access of its whole width, as on the GPU: an aligned ld/st .v2.u64 or .v4.u32
 * is single-copy atomic there, and CUB's decoupled look-back depends on it (a tile's status and value written
 * by one st.relaxed.gpu.v2.u64, polled by later CTAs with ld.relaxed.gpu.v2.u64). Copied element by element,
 * a CTA running on another host thread can read the new status with the old value. 8 bytes are one 64-bit
 * move; 16 bytes one aligned SSE move on x86-64 (atomic on every processor with AVX: Intel SDM vol. 3A
 * §9.1.1, AMD APM vol. 2 §7.3.2); elsewhere a 16-byte memcpy, which is not guaranteed to be one access. */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE void vec_copy(void *d, const void *s, unsigned bytes) { /* the warpvm side 16-byte aligned too */
  switch (bytes) {
  case 2: memcpy(d, s, 2); break;
  case 4: memcpy(d, s, 4); break;
  case 8: { uint64_t v; memcpy(&v, s, 8); memcpy(d, &v, 8); break; }
  case 16:
#if defined(__x86_64__) || defined(_M_X64)
    if (!(((uintptr_t)d | (uintptr_t)s) & 15)) { _mm_store_si128((__m128i *)d, _mm_load_si128((const __m128i *)s)); break; }
#endif
    memcpy(d, s, 16);
    break;
  default: memcpy(d, s, bytes); break;
  }
}

/* All 32 lanes' addresses consecutive elements of `size` bytes (a warp reading a row). */
ALWAYS_INLINE int row(const uint64_t *addr, unsigned size) {
  uint64_t bad = 0;
  for (int l = 0; l < WV_WARP; l++) bad |= addr[l] ^ (addr[0] + (uint64_t)l * size);
  return !bad;
}

/* The copies, one loop per element type (T: its width and signedness; sign- or zero-extended to 64 bits), the
 * lane stride a constant where it is 0 (always inlined into the callers below). */
#define LD_LOOP(T)                                                                                     \
  do {                                                                                                 \
    if (n == 1 && !stride && m == 0xffffffffu && row(addr, sizeof(T))) { /* a warp's row: vector loads */ \
      const uint8_t *p_ = (const uint8_t *)(uintptr_t)(hb + addr[0]);                                  \
      for (int l = 0; l < WV_WARP; l++) { T v_; memcpy(&v_, p_ + (size_t)l * sizeof(T), sizeof v_); D[0][l] = (uint64_t)v_; } \
    } else if (n == 1) {                                                                               \
      uint64_t *D0 = D[0];                                                                             \
      WV_FOR_LANES(m, l, { T v_; memcpy(&v_, LANE_P(hb, stride, addr, l), sizeof v_); D0[l] = (uint64_t)v_; }); \
    } else {                                                                                           \
      WV_FOR_LANES(m, l, {                                                                             \
        union { T e[4]; uint64_t w[4]; } __attribute__((aligned(16))) u_;                            \
        vec_copy(&u_, LANE_P(hb, stride, addr, l), n * (unsigned)sizeof(T));                           \
        for (unsigned i = 0; i < n; i++) D[i][l] = (uint64_t)u_.e[i];                                  \
      });                                                                                              \
    }                                                                                                  \
  } while (0)

ALWAYS_INLINE void ld_loops(uintptr_t hb, size_t stride, const uint64_t *addr, uint32_t m, unsigned size, int sgn,
                           unsigned n, uint64_t *const *D) {
  switch (size * 2 + (sgn != 0)) {
  case 2: LD_LOOP(uint8_t); break;
  case 3: LD_LOOP(int8_t); break;
  case 4: LD_LOOP(uint16_t); break;
  case 5: LD_LOOP(int16_t); break;
  case 8: LD_LOOP(uint32_t); break;
  case 9: LD_LOOP(int32_t); break;
  default: LD_LOOP(uint64_t); break;
  }
}

static void ld_copy(const wv_region *r, const uint64_t *addr, uint32_t m, unsigned size, int sgn, unsigned n,
                    uint64_t *const *D) {
  uintptr_t hb = (uintptr_t)r->host - (uintptr_t)r->abase;
  if (r->stride) ld_loops(hb, r->stride, addr, m, size, sgn, n, D);
  else ld_loops(hb, 0, addr, m, size, sgn, n, D);
}

#define ST_LOOP(T)                                                                                      \
  do {                                                                                                  \
    if (n == 1 && !stride && m == 0xffffffffu && row(addr, sizeof(T))) { /* a row: no two lanes meet */  \
      uint8_t *p_ = (uint8_t *)(uintptr_t)(hb + addr[0]);                                               \
      for (int l = 0; l < WV_WARP; l++) { T v_ = (T)S[0][l]; memcpy(p_ + (size_t)l * sizeof(T), &v_, sizeof v_); } \
    } else if (n == 1) {                                                                                \
      const uint64_t *S0 = S[0];                                                                        \
      WV_FOR_LANES(m, l, { T v_ = (T)S0[l]; memcpy(LANE_P(hb, stride, addr, l), &v_, sizeof v_); });    \
    } else {                                                                                            \
      WV_FOR_LANES(m, l, {                                                                              \
        union { T e[4]; uint64_t w[4]; } __attribute__((aligned(16))) u_;                             \
        for (unsigned i = 0; i < n; i++) u_.e[i] = (T)S[i][l];                                          \
        vec_copy(LANE_P(hb, stride, addr, l), &u_, n * (unsigned)sizeof(T));                           \
      });                                                                                               \
    }                                                                                                   \
  } while (0)

ALWAYS_INLINE void st_loops(uintptr_t hb, size_t stride, const uint64_t *addr, uint32_t m, unsigned size, unsigned n,
                           const uint64_t *const *S) {
  switch (size) {
  case 1: ST_LOOP(uint8_t); break;
  case 2: ST_LOOP(uint16_t); break;
  case 4: ST_LOOP(uint32_t); break;
  default: ST_LOOP(uint64_t); break;
  }
}

static void st_copy(const wv_region *r, const uint64_t *addr, uint32_t m, unsigned size, unsigned n,
                    const uint64_t *const *S) {
  uintptr_t hb = (uintptr_t)r->host - (uintptr_t)r->abase;
  if (r->stride) st_loops(hb, r->stride, addr, m, size, n, S);
  else st_loops(hb, 0, addr, m, size, n, S);
}

/* ---- ld / st ---- */

static int h_ld(wv_exec *x, const wv_insn *in, uint32_t m) {
  unsigned size = wv_type_size((wv_type)in->type), n = in->vec;
  int sgn = wv_type_is_signed((wv_type)in->type);
  count(x, in->space, 0);
  uint64_t addr[WV_WARP], sink[WV_WARP];
  wv_region r;
  if (wv_warp_region(x, in->space, in->a, in->imm, in->addrf, m, size * n, 0, addr, &r)) {
    uint64_t *D[4];
    for (unsigned i = 0; i < n; i++) D[i] = in->d[i] != WV_NOSLOT ? WV_R(x, in->d[i]) : sink;
    ld_copy(&r, addr, m, size, sgn, n, D);
    return 0;
  }
  const uint64_t *A = in->a != WV_NOSLOT ? WV_R(x, in->a) : NULL;
  uint64_t *D[4];
  for (unsigned i = 0; i < n; i++) D[i] = in->d[i] != WV_NOSLOT ? WV_R(x, in->d[i]) : NULL;
  WV_FOR_LANES(m, l, {
    uint64_t addr = lane_addr(x, in, A, l);
    if (x->mm && is_global(in->space, addr)) wv_mm_before_load(x, l, addr, size * n); /* my own, my CTA's ordered */
    const uint8_t *p = wv_mem_xlate(x, in->space, addr, size * n, size * n, l, WV_MEM_LOAD);
    if (!p) return 1;
    if (x->cta->async_pending && (in->space == WV_SPACE_SHARED || in->space == WV_SPACE_GENERIC)) {
      uint64_t sa = addr;
      if (in->space == WV_SPACE_SHARED || wv_mem_classify(addr, &sa) == WV_SPACE_SHARED)
        wv_async_check_read(x, sa, size * n); /* reads what a pending cp.async will overwrite */
    }
    uint8_t buf[32] __attribute__((aligned(16)));
    vec_copy(buf, p, size * n);
    for (unsigned i = 0; i < n; i++)
      if (D[i]) D[i][l] = load_elem(buf + i * size, size, sgn);
  });
  return 0;
}

static int h_st(wv_exec *x, const wv_insn *in, uint32_t m) {
  unsigned size = wv_type_size((wv_type)in->type), n = in->vec;
  const uint64_t *S[4];
  for (unsigned i = 0; i < n; i++) S[i] = WV_R(x, in->d[i]);
  count(x, in->space, 1);
  uint64_t addr[WV_WARP];
  wv_region r;
  if (wv_warp_region(x, in->space, in->a, in->imm, in->addrf, m, size * n, 1, addr, &r)) {
    st_copy(&r, addr, m, size, n, S);
    return 0;
  }
  const uint64_t *A = in->a != WV_NOSLOT ? WV_R(x, in->a) : NULL;
  WV_FOR_LANES(m, l, {
    uint64_t addr = lane_addr(x, in, A, l);
    uint8_t *p = wv_mem_xlate(x, in->space, addr, size * n, size * n, l, WV_MEM_STORE);
    if (!p) return 1;
    if (x->mm && is_global(in->space, addr)) { /* weak: the store becomes visible later */
      uint8_t buf[32];
      for (unsigned i = 0; i < n; i++) memcpy(buf + i * size, &S[i][l], size);
      if (in->uni) { /* st.release: everything before it first, then it, at once */
        wv_mm_commit_own(x, l, 1, 0, 0);
        memcpy(p, buf, size * n);
      } else if (wv_mm_store(x, l, addr, buf, size * n)) {
        return 1;
      }
      continue;
    }
    uint8_t buf[32] __attribute__((aligned(16)));
    for (unsigned i = 0; i < n; i++) memcpy(buf + i * size, &S[i][l], size); /* little-endian host */
    vec_copy(p, buf, size * n);
  });
  return 0;
}

/* Atomics: lanes apply one after another in lane order (a legal serialisation). */
static inline __attribute__((always_inline)) uint64_t atom_apply_k(int mode, wv_type t, uint64_t old, uint64_t b,
                                                                   uint64_t c, int global) {
  int w64 = wv_type_size(t) == 8, sgn = wv_type_is_signed(t);
  uint64_t mask = w64 ? ~0ull : wv_type_size(t) == 2 ? 0xffffull : 0xffffffffull;
  old &= mask; b &= mask; c &= mask;
  switch (mode) {
  case WV_ATOM_ADD:
    /* atom.add.f32 rounds to nearest even; on global memory it flushes subnormal inputs and results
     * (PTX ISA "atom"; CUDA Programming Guide, atomicAdd), on shared memory it does not */
    if (t == WV_T_F32) return wv_fp_add_f32((uint32_t)old, (uint32_t)b, WV_FP_RN, global ? WV_FP_FTZ : 0);
    if (t == WV_T_F64) return wv_fp_add_f64(old, b, WV_FP_RN);
    /* atom.add.noftz on halves: rounded to nearest even, subnormals kept; x2: each half on its own */
    if (t == WV_T_F16 || t == WV_T_BF16) return wv_fp_half_arith(WV_FP__ADD, t == WV_T_BF16, (uint32_t)old, (uint32_t)b, 0, 0);
    if (t == WV_T_F16X2 || t == WV_T_BF16X2) {
      int bf = t == WV_T_BF16X2;
      uint32_t lo = wv_fp_half_arith(WV_FP__ADD, bf, (uint32_t)old & 0xffff, (uint32_t)b & 0xffff, 0, 0);
      uint32_t hi = wv_fp_half_arith(WV_FP__ADD, bf, (uint32_t)(old >> 16), (uint32_t)(b >> 16), 0, 0);
      return (uint64_t)(hi << 16 | lo);
    }
    return (old + b) & mask;
  case WV_ATOM_MIN:
    if (sgn) return w64 ? ((int64_t)old < (int64_t)b ? old : b) : ((int32_t)old < (int32_t)b ? old : b);
    return old < b ? old : b;
  case WV_ATOM_MAX:
    if (sgn) return w64 ? ((int64_t)old > (int64_t)b ? old : b) : ((int32_t)old > (int32_t)b ? old : b);
    return old > b ? old : b;
  case WV_ATOM_INC: return old >= b ? 0 : old + 1;
  case WV_ATOM_DEC: return (old == 0 || old > b) ? b : old - 1;
  case WV_ATOM_AND: return old & b;
  case WV_ATOM_OR: return old | b;
  case WV_ATOM_XOR: return old ^ b;
  case WV_ATOM_EXCH: return b;
  default: return old == b ? c : old; /* cas */
  }
}
static uint64_t atom_apply(const wv_insn *in, uint64_t old, uint64_t b, uint64_t c, int global) {
  return atom_apply_k(in->mode, (wv_type)in->type, old, b, c, global);
}

/* A global atomic: atomic against other host threads running CTAs of the launch. The new value is atom_apply's,
 * stored by compare-and-swap, retried while another thread changed the word in between; returns the old value.
 * (Alignment was checked: device and host addresses of an allocation agree modulo 16.) */
#define ATOM_CAS(T)                                                                                      \
  do {                                                                                                   \
    T *q_ = (T *)(void *)p, o_ = __atomic_load_n(q_, __ATOMIC_RELAXED), n_;                            \
    do n_ = (T)atom_apply(in, o_, b, c, 1);                                                              \
    while (!__atomic_compare_exchange_n(q_, &o_, n_, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));            \
    return o_;                                                                                           \
  } while (0)

static uint64_t atom_global(const wv_insn *in, uint8_t *p, unsigned size, uint64_t b, uint64_t c) {
  switch (size) {
  case 2: ATOM_CAS(uint16_t);
  case 4: ATOM_CAS(uint32_t);
  default: ATOM_CAS(uint64_t);
  }
}

/* One lane's atomic at host pointer p: its old value. */
static uint64_t atom_one(const wv_insn *in, uint8_t *p, unsigned size, int global, uint64_t b, uint64_t c) {
  if (global) return atom_global(in, p, size, b, c);
  uint64_t old = load_elem(p, size, 0), nv = atom_apply(in, old, b, c, 0); /* shared memory (or a generic */
  memcpy(p, &nv, size); /* address of local memory or the parameters): only this CTA's threads, on this host thread */
  return old;
}

/* The source slot of element i of a vector atom (dec_atom: b, c, e, then target). */
static uint32_t atom_src(const wv_insn *in, unsigned i) {
  return i == 0 ? in->b : i == 1 ? in->c : i == 2 ? in->e : in->target;
}

/* atom/red.global.add.v2/.v4 (sm_90): the vector aligned to its whole size, each element its own atomic. */
static int h_atom_vec(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = in->a != WV_NOSLOT ? WV_R(x, in->a) : NULL;
  unsigned size = wv_type_size((wv_type)in->type), n = in->vec;
  x->n_atom++;
  WV_FOR_LANES(m, l, {
    uint64_t addr = lane_addr(x, in, A, l);
    uint8_t *p = wv_mem_xlate(x, in->space, addr, size * n, size * n, l, WV_MEM_STORE);
    if (!p) return 1;
    if (x->mm) {
      wv_mm_before_load(x, l, addr, size * n);
      if (in->uni) wv_mm_commit_own(x, l, 1, 0, 0);
    }
    for (unsigned i = 0; i < n; i++) {
      uint64_t old = atom_global(in, p + i * size, size, WV_R(x, atom_src(in, i))[l], 0);
      if (in->d[i] != WV_NOSLOT) WV_R(x, in->d[i])[l] = old;
    }
  });
  return 0;
}

static int h_atom(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = in->a != WV_NOSLOT ? WV_R(x, in->a) : NULL;
  const uint64_t *B = WV_R(x, in->b), *C = in->c != WV_NOSLOT ? WV_R(x, in->c) : NULL;
  uint64_t *D = in->d[0] != WV_NOSLOT ? WV_R(x, in->d[0]) : NULL;
  unsigned size = wv_type_size((wv_type)in->type);
  int sgn = wv_type_is_signed((wv_type)in->type);
  x->n_atom++;
  uint64_t addr[WV_WARP];
  wv_region r;
  if (wv_warp_region(x, in->space, in->a, in->imm, in->addrf, m, size, 1, addr, &r)) { /* lane after lane, in order */
    uintptr_t hb = (uintptr_t)r.host - (uintptr_t)r.abase;
    if (r.sp != WV_SPACE_GLOBAL && in->mode == WV_ATOM_ADD && (in->type == WV_T_U32 || in->type == WV_T_S32)) {
      /* the common shared-memory counter (histograms): atom_apply's add modulo 2^32, inlined (one CTA, one host
       * thread; the JIT compiles the same loop, emit.c emit_atom) */
      WV_FOR_LANES(m, l, {
        uint8_t *p = LANE_P(hb, r.stride, addr, l);
        uint32_t old, nv;
        memcpy(&old, p, 4);
        nv = old + (uint32_t)B[l];
        memcpy(p, &nv, 4);
        if (D) D[l] = sgn ? (uint64_t)(int64_t)(int32_t)old : old;
      });
      return 0;
    }
    WV_FOR_LANES(m, l, {
      uint64_t old = atom_one(in, LANE_P(hb, r.stride, addr, l), size, r.sp == WV_SPACE_GLOBAL, B[l], C ? C[l] : 0);
      if (D) D[l] = sgn && size == 4 ? (uint64_t)(int64_t)(int32_t)old : old;
    });
    return 0;
  }
  WV_FOR_LANES(m, l, {
    uint64_t addr = lane_addr(x, in, A, l), sa;
    uint8_t *p = wv_mem_xlate(x, in->space, addr, size, size, l, WV_MEM_STORE);
    if (!p) return 1;
    if (x->mm && is_global(in->space, addr)) { /* an atomic reads too; .release also publishes all before it */
      wv_mm_before_load(x, l, addr, size);
      if (in->uni) wv_mm_commit_own(x, l, 1, 0, 0);
    }
    int sp = in->space == WV_SPACE_GENERIC ? wv_mem_classify(addr, &sa) : in->space;
    uint64_t old = atom_one(in, p, size, sp == WV_SPACE_GLOBAL, B[l], C ? C[l] : 0);
    if (D) D[l] = sgn && size == 4 ? (uint64_t)(int64_t)(int32_t)old : old;
  });
  return 0;
}

/* cvta.space d, a: generic address of a space address; cvta.to.space: the reverse. */
static int h_cvta(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  uint64_t win = in->space == WV_SPACE_SHARED || in->space == WV_SPACE_CLUSTER ? WV_SHARED_WINDOW : in->space == WV_SPACE_LOCAL ? WV_LOCAL_WINDOW
               : in->space == WV_SPACE_KPARAM ? WV_PARAM_WINDOW : 0;
  int to = in->mode, narrow = wv_type_size((wv_type)in->type) == 4;
  WV_FOR_LANES(m, l, {
    uint64_t a = narrow || (win && !to) ? (uint32_t)A[l] : A[l]; /* a .shared/.local address is 32 bits wide: a */
    uint64_t v = to ? a - win : a + win;                          /* GPU's cvta.shared.u64 ignores the high half */
    D[l] = narrow ? (uint32_t)v : v;
  });
  return 0;
}

static int h_isspacep(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = WV_R(x, in->a);
  uint32_t v = 0;
  WV_FOR_LANES(m, l, {
    uint64_t sa;
    int sp = wv_mem_classify(A[l], &sa);
    int want = in->space == WV_SPACE_CONST ? WV_SPACE_GLOBAL : in->space;
    /* the kernel's parameters lie in global memory on a GPU: an H100 says both .param and .global for
     * their generic address (tests/kernels isa10.gridconst) */
    if (sp == WV_SPACE_KPARAM && want == WV_SPACE_GLOBAL) sp = WV_SPACE_GLOBAL;
    /* .shared::cta: the CTA's own window; .shared::cluster: any CTA of the cluster (cluster.c) */
    if (sp == WV_SPACE_SHARED && sa >= WV_GPU_SHARED_WINDOW)
      sp = sa < ((uint64_t)1 << 32) && ((sa >> 24) & 0xff) - 1 < x->cta->cl->n ? WV_SPACE_CLUSTER : -1;
    if (sp == WV_SPACE_SHARED && want == WV_SPACE_CLUSTER) sp = WV_SPACE_CLUSTER;
    if (sp == want && (in->space != WV_SPACE_CONST || wv_heap_lookup(&x->vm->heap, sa, 1))) v |= 1u << l;
  });
  x->preds[in->d[0]] = (x->preds[in->d[0]] & ~m) | v;
  return 0;
}

wv_handler wv_h_mem(int op, const wv_insn *in) {
  switch (op) {
  case WV_OP_LD: case WV_OP_LDU: return h_ld;
  case WV_OP_ST: return h_st;
  case WV_OP_ATOM: case WV_OP_RED: return in && in->vec > 1 ? h_atom_vec : h_atom;
  case WV_OP_CVTA: return h_cvta;
  case WV_OP_ISSPACEP: return h_isspacep;
  default: return NULL;
  }
}
