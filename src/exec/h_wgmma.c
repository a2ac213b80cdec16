/*
 * h_wgmma.c — Hopper's warpgroup-level matrix multiply (PTX ISA §9.7.15, sm_90a): wgmma.mma_async and
 * wgmma.fence/.commit_group/.wait_group. Where a descriptor puts each element: wgmma_layout.c.
 *
 * A warpgroup is 4 consecutive warps; warp w (its id % 4) owns rows 16w..16w+15 of the 64-row A and D, so each
 * warp computes its own 16×N slice of D = A·B + C with no other warp: the handler is a warp collective like
 * mma.sync (.sync.aligned: the whole live warp), run at issue. That is legal because the program may not touch
 * D, nor the shared memory of A and B, until wgmma.wait_group says the operation is complete — so commit_group
 * and wait_group have nothing left to wait for, and fence nothing to order. Shared memory is read through the
 * checked memory path (wv_mem_xlate: faults reported as for ld.shared). The D fragment is, per warp, the mma.sync
 * m16n8 C fragment of each 8 columns in turn; an A fragment in registers is the m16n8kK A fragment; the
 * arithmetic is mma.sync's (mma_arith.c, docs/TENSOR.md) eight columns at a time, except fp8, which wgmma sums in
 * one step of its own (WV_MMA_WGMMA).
 */
#include "exec/handlers.h"
#include "exec/mma.h"
#include "exec/wgmma_layout.h"

#define WG_MAX_K 256 /* m64nNk256 .b1 */

static uint64_t elem_at(const uint8_t *p, int bits, int j) {
  if (bits == 1) return p[j >> 3] >> (j & 7) & 1;
  uint64_t v = 0;
  for (int b = 0; b < bits / 8; b++) v |= (uint64_t)p[j * bits / 8 + b] << 8 * b;
  return v;
}

static uint64_t negate(enum wv_mt t, uint64_t v, int neg) {
  return neg ? v ^ 1ull << (wv_mma_bits(t) - 1) : v; /* imm-scale -1 on a float operand: its sign flipped */
}

/* Rows mn = 8·blk .. 8·blk+7 of an operand (A: rows of A; B: columns of B) × its K elements, from the matrix the
 * descriptor describes, into out[8·K] (row i at out + i·K). 16 reads of 16 bytes, each one core-matrix row. */
static int read_block(wv_exec *x, int lane, uint64_t desc, enum wv_mt t, int K, int mn_major, int neg, int blk,
                      uint64_t *out) {
  uint32_t start = (uint32_t)(desc & 0x3fff) << 4, lbo = (uint32_t)(desc >> 16 & 0x3fff) << 4;
  uint32_t sbo = (uint32_t)(desc >> 32 & 0x3fff) << 4;
  int swz = (int)(desc >> 62), bits = wv_mma_bits(t), per = 128 / bits;
  for (int i = 0; i < 16; i++) { /* K-major: (row, 16 bytes of K); MN-major (16-bit, per = 8): row k of K */
    int mn = mn_major ? 8 * blk : 8 * blk + i / 2, k = mn_major ? i : i % 2 * per;
    uint32_t addr = wv_wgmma_swizzle(swz, start + wv_wgmma_chunk(mn_major, swz, lbo, sbo, bits, mn, k));
    const uint8_t *p = wv_mem_xlate(x, WV_SPACE_SHARED, addr, 16, 16, lane, WV_MEM_LOAD);
    if (!p) return 1;
    for (int j = 0; j < per; j++) {
      if (mn_major) out[j * K + k] = negate(t, elem_at(p, bits, j), neg);
      else out[(mn - 8 * blk) * K + k + j] = negate(t, elem_at(p, bits, j), neg);
    }
  }
  return 0;
}

/* this warp's 16 rows of A (16×K, row-major) from its registers or from A's descriptor */
static int gather_a(wv_exec *x, const wv_wgmma_aux *q, int lane, uint64_t *A) {
  int K = q->k, r, c;
  if (!q->a_regs) {
    uint64_t desc = WV_R(x, q->a[0])[lane];
    int blk = (int)(x->warp->id % 4) * 2;
    x->n_sld++;
    return read_block(x, lane, desc, q->ty.a, K, q->trans_a, q->neg_a, blk, A) ||
           read_block(x, lane, desc, q->ty.a, K, q->trans_a, q->neg_a, blk + 1, A + 8 * K);
  }
  int ea = wv_frag_elems(WV_FRAG_A, 16, 8, K, q->ty.a);
  for (int l = 0; l < WV_WARP; l++)
    for (int e = 0; e < ea; e++) {
      wv_frag_pos(WV_FRAG_A, 16, 8, K, q->ty.a, l, e, &r, &c);
      A[r * K + c] = negate(q->ty.a, wv_frag_get(x, q->a, q->ty.a, l, e), q->neg_a);
    }
  return 0;
}

/* wgmma.mma_async: this warp's D[16w.., 0..N) = A·B + C (scale-d true) or A·B, eight columns at a time: D's
 * elements 4j..4j+3 of each lane are the m16n8 C fragment of columns 8j..8j+7. */
static int h_wgmma(wv_exec *x, const wv_insn *in, uint32_t m) {
  if (wv_mma_whole_warp(x, in, m)) return 1;
  const wv_wgmma_aux *q = in->aux;
  int l0 = __builtin_ctz(m), K = q->k, r, c;
  uint64_t A[16 * WG_MAX_K], Bt[8 * WG_MAX_K], C[16 * 8], D[16 * 8];
  if (gather_a(x, q, l0, A)) return 1;
  uint64_t bdesc = WV_R(x, q->b)[l0];
  int scale_d = (q->scale_d < 0 ? 0 : (int)(x->preds[q->scale_d] >> l0 & 1)) ^ q->scale_neg;
  /* D = A·B: C is the sum's neutral element, a negative zero (an f32/f16 sum of +0 products stays +0) */
  uint64_t zero = q->ty.c == WV_MT_F32 ? 0x80000000u : q->ty.c == WV_MT_F16 ? 0x8000u : 0;
  x->n_sld++;
  for (int nb = 0; nb < q->n / 8; nb++) {
    if (read_block(x, l0, bdesc, q->ty.b, K, q->trans_b, q->neg_b, nb, Bt)) return 1;
    for (int l = 0; l < WV_WARP; l++)
      for (int j = 0; j < 4; j++) {
        wv_frag_pos(WV_FRAG_C, 16, 8, K, q->ty.c, l, j, &r, &c);
        C[r * 8 + c] = scale_d ? wv_frag_get(x, q->c, q->ty.c, l, 4 * nb + j) : zero;
      }
    wv_mma_tile(&q->ty, 16, 8, K, A, Bt, C, D, q->flags | WV_MMA_WGMMA); /* fp8: wgmma's own sum */
    WV_FOR_LANES(m, l, {
      for (int j = 0; j < 4; j++) {
        wv_frag_pos(WV_FRAG_C, 16, 8, K, q->ty.d, l, j, &r, &c);
        wv_frag_set(x, q->d, q->ty.d, l, 4 * nb + j, D[r * 8 + c]);
      }
    });
  }
  return 0;
}

/* wgmma.fence / .commit_group / .wait_group N: every wgmma.mma_async completed at issue (file comment); what is
 * left is the .sync.aligned rule. */
static int h_wgmma_sync(wv_exec *x, const wv_insn *in, uint32_t m) {
  return wv_mma_whole_warp(x, in, m);
}

wv_handler wv_h_wgmma(int kind) {
  return kind == WV_MK_WGMMA ? h_wgmma : kind == WV_MK_WGMMA_SYNC ? h_wgmma_sync : NULL;
}
