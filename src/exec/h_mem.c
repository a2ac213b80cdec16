/*
 * h_mem.c — memory instructions: ld/ldu/st (every state space, .v2/.v4), atom/red (global and
 * shared; add inc dec min max and or xor exch cas on 32/64-bit ints, add on f32/f64), cvta and
 * isspacep (PTX ISA §9.7.9). Every lane's access goes through wv_mem_xlate, which checks
 * bounds and alignment and records a fault naming the address (or, for a load the GPU lets pass,
 * an invalid read).
 */
#include "exec/fpmath.h"
#include "exec/handlers.h"
#include "exec/warp.h"
#include "rt/vm_internal.h"

enum { A_ADD = 0, A_MIN, A_MAX, A_INC, A_DEC, A_AND, A_OR, A_XOR, A_EXCH, A_CAS };

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

static void count(wv_exec *x, int space, int st) {
  switch (space) {
  case WV_SPACE_SHARED: if (st) x->n_sst++; else x->n_sld++; break;
  case WV_SPACE_LOCAL: if (st) x->n_lst++; else x->n_lld++; break;
  case WV_SPACE_GLOBAL: case WV_SPACE_GENERIC: case WV_SPACE_CONST: if (st) x->n_gst++; else x->n_gld++; break;
  default: break;
  }
}

/* Is this access to global memory (and so subject to the weak memory model)? */
static int is_global(int space, uint64_t addr) {
  uint64_t sa;
  return space == WV_SPACE_GLOBAL || (space == WV_SPACE_GENERIC && wv_mem_classify(addr, &sa) == WV_SPACE_GLOBAL);
}

static int h_ld(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = in->a != WV_NOSLOT ? WV_R(x, in->a) : NULL;
  unsigned size = wv_type_size((wv_type)in->type), n = in->vec;
  int sgn = wv_type_is_signed((wv_type)in->type);
  uint64_t *D[4];
  for (unsigned i = 0; i < n; i++) D[i] = in->d[i] != WV_NOSLOT ? WV_R(x, in->d[i]) : NULL;
  count(x, in->space, 0);
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
    for (unsigned i = 0; i < n; i++)
      if (D[i]) D[i][l] = load_elem(p + i * size, size, sgn);
  });
  return 0;
}

static int h_st(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = in->a != WV_NOSLOT ? WV_R(x, in->a) : NULL;
  unsigned size = wv_type_size((wv_type)in->type), n = in->vec;
  const uint64_t *S[4];
  for (unsigned i = 0; i < n; i++) S[i] = WV_R(x, in->d[i]);
  count(x, in->space, 1);
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
    for (unsigned i = 0; i < n; i++) memcpy(p + i * size, &S[i][l], size); /* little-endian host */
  });
  return 0;
}

/* Atomics: lanes apply one after another in lane order (a legal serialisation). */
static uint64_t atom_apply(const wv_insn *in, uint64_t old, uint64_t b, uint64_t c, int global) {
  wv_type t = (wv_type)in->type;
  int w64 = wv_type_size(t) == 8, sgn = wv_type_is_signed(t);
  uint64_t mask = w64 ? ~0ull : wv_type_size(t) == 2 ? 0xffffull : 0xffffffffull;
  old &= mask; b &= mask; c &= mask;
  switch (in->mode) {
  case A_ADD:
    /* atom.add.f32 rounds to nearest even; on global memory it flushes subnormal inputs and results
     * (PTX ISA "atom"; CUDA Programming Guide, atomicAdd), on shared memory it does not */
    if (t == WV_T_F32) return wv_fp_add_f32((uint32_t)old, (uint32_t)b, WV_FP_RN, global ? WV_FP_FTZ : 0);
    if (t == WV_T_F64) return wv_fp_add_f64(old, b, WV_FP_RN);
    return (old + b) & mask;
  case A_MIN:
    if (sgn) return w64 ? ((int64_t)old < (int64_t)b ? old : b) : ((int32_t)old < (int32_t)b ? old : b);
    return old < b ? old : b;
  case A_MAX:
    if (sgn) return w64 ? ((int64_t)old > (int64_t)b ? old : b) : ((int32_t)old > (int32_t)b ? old : b);
    return old > b ? old : b;
  case A_INC: return old >= b ? 0 : old + 1;
  case A_DEC: return (old == 0 || old > b) ? b : old - 1;
  case A_AND: return old & b;
  case A_OR: return old | b;
  case A_XOR: return old ^ b;
  case A_EXCH: return b;
  default: return old == b ? c : old; /* cas */
  }
}

static int h_atom(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = in->a != WV_NOSLOT ? WV_R(x, in->a) : NULL;
  const uint64_t *B = WV_R(x, in->b), *C = in->c != WV_NOSLOT ? WV_R(x, in->c) : NULL;
  uint64_t *D = in->d[0] != WV_NOSLOT ? WV_R(x, in->d[0]) : NULL;
  unsigned size = wv_type_size((wv_type)in->type);
  int sgn = wv_type_is_signed((wv_type)in->type);
  x->n_atom++;
  WV_FOR_LANES(m, l, {
    uint64_t addr = lane_addr(x, in, A, l), sa;
    uint8_t *p = wv_mem_xlate(x, in->space, addr, size, size, l, WV_MEM_STORE);
    if (!p) return 1;
    if (x->mm && is_global(in->space, addr)) { /* an atomic reads too; .release also publishes all before it */
      wv_mm_before_load(x, l, addr, size);
      if (in->uni) wv_mm_commit_own(x, l, 1, 0, 0);
    }
    int sp = in->space == WV_SPACE_GENERIC ? wv_mem_classify(addr, &sa) : in->space;
    uint64_t old = load_elem(p, size, 0);
    uint64_t nv = atom_apply(in, old, B[l], C ? C[l] : 0, sp == WV_SPACE_GLOBAL);
    memcpy(p, &nv, size);
    if (D) D[l] = sgn && size == 4 ? (uint64_t)(int64_t)(int32_t)old : old;
  });
  return 0;
}

/* cvta.space d, a: generic address of a space address; cvta.to.space: the reverse. */
static int h_cvta(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint64_t *D = WV_R(x, in->d[0]);
  const uint64_t *A = WV_R(x, in->a);
  uint64_t win = in->space == WV_SPACE_SHARED ? WV_SHARED_WINDOW : in->space == WV_SPACE_LOCAL ? WV_LOCAL_WINDOW
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
    if (sp == want && (in->space != WV_SPACE_CONST || wv_heap_lookup(&x->vm->heap, sa, 1))) v |= 1u << l;
  });
  x->preds[in->d[0]] = (x->preds[in->d[0]] & ~m) | v;
  return 0;
}

wv_handler wv_h_mem(int op, const wv_insn *in) {
  (void)in;
  switch (op) {
  case WV_OP_LD: case WV_OP_LDU: return h_ld;
  case WV_OP_ST: return h_st;
  case WV_OP_ATOM: case WV_OP_RED: return h_atom;
  case WV_OP_CVTA: return h_cvta;
  case WV_OP_ISSPACEP: return h_isspacep;
  default: return NULL;
  }
}
