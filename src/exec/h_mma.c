/*
 * h_mma.c — handlers of the warp-level matrix instructions (PTX ISA §9.7.14): mma.sync, wmma.load/.store/.mma,
 * ldmatrix, stmatrix, movmatrix. They are warp-wide (.sync.aligned): every live lane of the warp takes part,
 * and the handler sees all 32 lanes' registers at once — gather the matrices from the fragments, compute,
 * scatter. One fragment layout (wv_frag_pos) serves mma.sync and wmma; one arithmetic (mma_arith.c,
 * docs/TENSOR.md) serves mma.sync and wmma.mma.
 */
#include "exec/handlers.h"
#include "exec/mma.h"

/* elements of type t in one 32-bit register (f64: one per 64-bit register) */
static int per_reg(enum wv_mt t) {
  int b = wv_mma_bits(t);
  return b >= 32 ? 1 : 32 / b;
}

static void op_dims(enum wv_frag f, int m, int n, int k, int *rows, int *cols) {
  *rows = f == WV_FRAG_B ? k : m;
  *cols = f == WV_FRAG_A ? k : n;
}

int wv_frag_elems(enum wv_frag f, int m, int n, int k, enum wv_mt t) {
  (void)t;
  int r, c;
  op_dims(f, m, n, k, &r, &c);
  return r * c / 32;
}

/* Tiles of 8 rows (A, C) or 8 columns (B) × one register's elements of the 4 lanes of a quad: the PTX ISA's
 * mma fragments (groupID g = lane/4 picks the row of A and C, the column of B; q = lane%4 the elements).
 * A and C: tiles down a block of up to 16 rows first, then across, then the next block of 16 rows (A: row
 * g + 8·(r&1), col q·epr + j + 4·epr·(r>>1) in each block) — a wmma .m32n8k16 fragment is two m16 fragments
 * stacked; B: tiles down k first, then across. A wmma shape with m < n (.m8n32k16) is the transpose of the
 * n×m×k one: D^T = B^T·A^T, its A fragment that problem's B, its B that one's A, its C that one's C (what an
 * H200 holds: tests/kernels golden mma.wmma_m8n32k16_*, docs/TENSOR.md). No mma.sync shape has m > 16 or m < n. */
void wv_frag_pos(enum wv_frag f, int m, int n, int k, enum wv_mt t, int lane, int e, int *row, int *col) {
  if (m < n) {
    enum wv_frag ft = f == WV_FRAG_A ? WV_FRAG_B : f == WV_FRAG_B ? WV_FRAG_A : f;
    wv_frag_pos(ft, n, m, k, t, lane, e, col, row);
    return;
  }
  int g = lane >> 2, q = lane & 3, rows, cols;
  op_dims(f, m, n, k, &rows, &cols);
  e %= rows * cols / 32; /* wmma .f16 A/B fragments hold every element more than once */
  int epr = f == WV_FRAG_C ? 2 : per_reg(t), ti = e / epr, j = e % epr;
  if (f == WV_FRAG_B) {
    int kt = rows / (4 * epr);
    *row = ti % kt * 4 * epr + q * epr + j;
    *col = ti / kt * 8 + g;
  } else {
    int w = f == WV_FRAG_C ? 8 : 4 * epr, rt = (rows < 16 ? rows : 16) / 8, bt = rt * (cols / w);
    *row = ti / bt * 16 + ti % bt % rt * 8 + g;
    *col = ti % bt / rt * w + q * epr + j;
  }
}

/* ---- register fragments ---- */
uint64_t wv_frag_get(const wv_exec *x, const uint32_t *regs, enum wv_mt t, int lane, int e) {
  int epr = per_reg(t), b = wv_mma_bits(t);
  uint64_t v = WV_R(x, regs[e / epr])[lane];
  return b >= 32 ? (b == 64 ? v : (uint32_t)v) : (v >> (e % epr * b)) & ((1u << b) - 1);
}
void wv_frag_set(wv_exec *x, const uint32_t *regs, enum wv_mt t, int lane, int e, uint64_t val) {
  int epr = per_reg(t), b = wv_mma_bits(t);
  uint64_t *r = &WV_R(x, regs[e / epr])[lane];
  if (b >= 32) { *r = b == 64 ? val : (uint32_t)val; return; }
  int sh = e % epr * b;
  uint64_t mask = ((1ull << b) - 1) << sh;
  *r = ((uint32_t)*r & ~mask) | (val << sh & mask);
}

/* .aligned: the whole warp executes it together */
int wv_mma_whole_warp(wv_exec *x, const wv_insn *in, uint32_t m) {
  uint32_t live = x->warp->exists & ~x->warp->exited;
  if ((m & live) == live) return 0;
  wv_fault_set(x, WV_ERR_ILLEGAL_INSN, -1, 0, 0,
               "%s executed by lanes 0x%08x of a warp whose live lanes are 0x%08x (a .sync.aligned matrix "
               "instruction needs the whole warp, converged)", wv_ops[in->op].mnemonic, m, live);
  return 1;
}

/* ---- mma.sync, wmma.mma: D = A·B + C ---- */
#define MMA_MAX_A 4096 /* m16n8k256 .b1 */
#define MMA_MAX_B 2048
#define MMA_MAX_C 256

static int h_mma(wv_exec *x, const wv_insn *in, uint32_t m) {
  if (wv_mma_whole_warp(x, in, m)) return 1;
  const wv_mma_aux *q = in->aux;
  int M = q->m, N = q->n, K = q->k;
  uint64_t A[MMA_MAX_A], Bt[MMA_MAX_B], C[MMA_MAX_C];
  int ea = wv_frag_elems(WV_FRAG_A, M, N, K, q->ty.a), eb = wv_frag_elems(WV_FRAG_B, M, N, K, q->ty.b);
  int ec = wv_frag_elems(WV_FRAG_C, M, N, K, q->ty.c), r, c;
  for (int l = 0; l < WV_WARP; l++) {
    for (int e = 0; e < ea; e++) {
      wv_frag_pos(WV_FRAG_A, M, N, K, q->ty.a, l, e, &r, &c);
      A[r * K + c] = wv_frag_get(x, q->a, q->ty.a, l, e);
    }
    for (int e = 0; e < eb; e++) {
      wv_frag_pos(WV_FRAG_B, M, N, K, q->ty.b, l, e, &r, &c);
      Bt[c * K + r] = wv_frag_get(x, q->b, q->ty.b, l, e);
    }
    for (int e = 0; e < ec; e++) {
      wv_frag_pos(WV_FRAG_C, M, N, K, q->ty.c, l, e, &r, &c);
      C[r * N + c] = wv_frag_get(x, q->c, q->ty.c, l, e);
    }
  }
  uint64_t D[MMA_MAX_C];
  if (!q->kstep || q->kstep >= K) wv_mma_tile(&q->ty, M, N, K, A, Bt, C, D, q->flags);
  else { /* K in steps of kstep, each adding into the last one's result (mma.h: kstep) */
    uint64_t As[MMA_MAX_A], Bs[MMA_MAX_B], T[MMA_MAX_C];
    int ks = q->kstep;
    memcpy(T, C, sizeof(uint64_t) * (size_t)(M * N));
    for (int k0 = 0; k0 < K; k0 += ks) {
      for (r = 0; r < M; r++) memcpy(&As[r * ks], &A[r * K + k0], sizeof(uint64_t) * (size_t)ks);
      for (c = 0; c < N; c++) memcpy(&Bs[c * ks], &Bt[c * K + k0], sizeof(uint64_t) * (size_t)ks);
      wv_mma_tile(&q->ty, M, N, ks, As, Bs, T, D, q->flags);
      memcpy(T, D, sizeof(uint64_t) * (size_t)(M * N));
    }
  }
  int ed = q->nd * per_reg(q->ty.d);
  WV_FOR_LANES(m, l, {
    for (int e = 0; e < ed; e++) {
      wv_frag_pos(WV_FRAG_C, M, N, K, q->ty.d, l, e, &r, &c);
      wv_frag_set(x, q->d, q->ty.d, l, e, D[r * N + c]);
    }
  });
  return 0;
}

/* ---- memory: wmma.load/.store, ldmatrix, stmatrix ---- */
static int is_global(int space, uint64_t addr) {
  uint64_t sa;
  return space == WV_SPACE_GLOBAL || (space == WV_SPACE_GENERIC && wv_mem_classify(addr, &sa) == WV_SPACE_GLOBAL);
}
/* bytes [addr, addr+size) of lane l; sub-byte elements read their byte */
static int mem_read(wv_exec *x, int space, uint64_t addr, uint32_t size, int l, void *out) {
  if (x->mm && is_global(space, addr)) wv_mm_before_load(x, l, addr, size);
  const uint8_t *p = wv_mem_xlate(x, space, addr, size, size, l, WV_MEM_LOAD);
  if (!p) return 1;
  memcpy(out, p, size);
  return 0;
}
static int mem_write(wv_exec *x, int space, uint64_t addr, uint32_t size, int l, const void *v) {
  uint8_t *p = wv_mem_xlate(x, space, addr, size, size, l, WV_MEM_STORE);
  if (!p) return 1;
  if (x->mm && is_global(space, addr)) return wv_mm_store(x, l, addr, v, size) ? 1 : 0;
  memcpy(p, v, size);
  return 0;
}

/* the stats' count of one warp-wide access (as h_mem.c counts a ld/st): by the space of lane `l`'s address */
static void count(wv_exec *x, int space, uint64_t addr, int store) {
  uint64_t sa;
  if (space == WV_SPACE_GENERIC) space = wv_mem_classify(addr, &sa);
  if (space == WV_SPACE_SHARED) store ? x->n_sst++ : x->n_sld++;
  else if (space == WV_SPACE_LOCAL) store ? x->n_lst++ : x->n_lld++;
  else store ? x->n_gst++ : x->n_gld++;
}

/* wmma.load / wmma.store: element (row, col) of the operand at base + (row·stride + col) elements (.row) or
 * (col·stride + row) (.col); stride in elements, the matrix's width (.row) or height (.col) by default */
static int h_wmma_mem(wv_exec *x, const wv_insn *in, uint32_t m) {
  if (wv_mma_whole_warp(x, in, m)) return 1;
  const wv_mma_aux *q = in->aux;
  enum wv_mt t = q->ty.a;
  int rows, cols, bits = wv_mma_bits(t), store = q->kind == WV_MK_WMMA_STORE;
  op_dims((enum wv_frag)q->frag, q->m, q->n, q->k, &rows, &cols);
  const uint64_t *A = in->a != WV_NOSLOT ? WV_R(x, in->a) : NULL;
  const uint64_t *S = q->stride != WV_NOSLOT ? WV_R(x, q->stride) : NULL;
  int ne = q->nd * per_reg(t);
  count(x, in->space, wv_lane_addr(x, A, in->imm, in->addrf, __builtin_ctz(m)), store);
  WV_FOR_LANES(m, l, {
    uint64_t base = wv_lane_addr(x, A, in->imm, in->addrf, l);
    uint64_t ld = S ? (uint32_t)S[l] : (uint64_t)(q->col_major ? rows : cols);
    for (int e = 0; e < ne; e++) {
      int r, c;
      wv_frag_pos((enum wv_frag)q->frag, q->m, q->n, q->k, t, l, e, &r, &c);
      uint64_t idx = q->col_major ? (uint64_t)c * ld + r : (uint64_t)r * ld + c, bit = idx * bits, v = 0;
      uint64_t addr = base + bit / 8;
      uint32_t size = bits < 8 ? 1 : bits / 8;
      if (store) {
        v = wv_frag_get(x, q->d, t, l, e);
        if (mem_write(x, in->space, addr, size, l, &v)) return 1;
      } else {
        if (mem_read(x, in->space, addr, size, l, &v)) return 1;
        if (bits < 8) v = (v >> (bit % 8)) & ((1u << bits) - 1);
        wv_frag_set(x, q->d, t, l, e, v);
      }
    }
  });
  return 0;
}

/* ldmatrix / stmatrix .m8n8 .b16: matrix i (of .x1/.x2/.x4) has its 8 rows of 16 bytes at the addresses of
 * lanes 8i..8i+7; in register i, lane l holds row l/4, columns 2·(l%4) and +1 (.trans: the transpose). */
static int h_ldstmatrix(wv_exec *x, const wv_insn *in, uint32_t m) {
  if (wv_mma_whole_warp(x, in, m)) return 1;
  const wv_mma_aux *q = in->aux;
  const uint64_t *A = WV_R(x, in->a);
  uint16_t mat[4][8][8];
  int store = q->kind == WV_MK_STMATRIX;
  count(x, in->space, wv_lane_addr(x, A, in->imm, in->addrf, 0), store);
  if (store)
    for (int l = 0; l < WV_WARP; l++)
      for (int i = 0; i < q->nd; i++)
        for (int h = 0; h < 2; h++) {
          int r = l >> 2, c = 2 * (l & 3) + h;
          uint16_t v = (uint16_t)(WV_R(x, q->d[i])[l] >> 16 * h);
          if (q->trans) mat[i][c][r] = v;
          else mat[i][r][c] = v;
        }
  for (int i = 0; i < q->nd; i++)
    for (int r = 0; r < 8; r++) {
      int l = 8 * i + r;
      uint64_t addr = wv_lane_addr(x, A, in->imm, in->addrf, l);
      if (store ? mem_write(x, in->space, addr, 16, l, mat[i][r]) : mem_read(x, in->space, addr, 16, l, mat[i][r]))
        return 1;
    }
  if (!store)
    WV_FOR_LANES(m, l, {
      for (int i = 0; i < q->nd; i++) {
        int r = l >> 2, c = 2 * (l & 3);
        uint32_t lo = q->trans ? mat[i][c][r] : mat[i][r][c], hi = q->trans ? mat[i][c + 1][r] : mat[i][r][c + 1];
        WV_R(x, q->d[i])[l] = lo | hi << 16;
      }
    });
  return 0;
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a: the transpose of the 8×8 matrix the warp holds in a */
static int h_movmatrix(wv_exec *x, const wv_insn *in, uint32_t m) {
  if (wv_mma_whole_warp(x, in, m)) return 1;
  uint16_t mat[8][8];
  const uint64_t *a = WV_R(x, in->a);
  for (int l = 0; l < WV_WARP; l++)
    for (int h = 0; h < 2; h++) mat[l >> 2][2 * (l & 3) + h] = (uint16_t)(a[l] >> 16 * h);
  uint64_t *d = WV_R(x, in->d[0]);
  WV_FOR_LANES(m, l, {
    int r = l >> 2, c = 2 * (l & 3);
    d[l] = (uint32_t)mat[c][r] | (uint32_t)mat[c + 1][r] << 16;
  });
  return 0;
}

wv_handler wv_h_mma(int kind) {
  switch (kind) {
  case WV_MK_MMA: case WV_MK_WMMA_MMA: return h_mma;
  case WV_MK_WMMA_LOAD: case WV_MK_WMMA_STORE: return h_wmma_mem;
  case WV_MK_LDMATRIX: case WV_MK_STMATRIX: return h_ldstmatrix;
  case WV_MK_MOVMATRIX: return h_movmatrix;
  case WV_MK_WGMMA: case WV_MK_WGMMA_SYNC: return wv_h_wgmma(kind);
  default: return NULL;
  }
}
