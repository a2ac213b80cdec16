/*
 * mma.h — the decoded form of the warp-level matrix instructions (PTX ISA §9.7.14 "Warp Level Matrix Multiply-
 * Accumulate Instructions"): mma.sync, wmma.load/.store/.mma, ldmatrix, stmatrix, movmatrix. decode_mma.c fills
 * a wv_mma_aux (wv_insn.aux); h_mma.c runs it; wv_frag_pos is the one fragment layout both use. Hopper's
 * warpgroup-level wgmma (§9.7.15) is a wv_wgmma_aux, run by h_wgmma.c with the same layout and arithmetic.
 */
#ifndef WV_EXEC_MMA_H
#define WV_EXEC_MMA_H

#include <stdint.h>

#include "exec/mma_arith.h"
#include "exec/wgmma_layout.h"

enum wv_mma_kind { WV_MK_MMA, WV_MK_WMMA_LOAD, WV_MK_WMMA_STORE, WV_MK_WMMA_MMA, WV_MK_LDMATRIX, WV_MK_STMATRIX,
                   WV_MK_MOVMATRIX, WV_MK_WGMMA, WV_MK_WGMMA_SYNC };
enum wv_frag { WV_FRAG_A, WV_FRAG_B, WV_FRAG_C }; /* C also names D */

typedef struct wv_mma_aux {
  uint8_t kind;         /* wv_mma_kind */
  uint8_t m, n;
  uint16_t k;
  wv_mma_types ty;      /* element types of A, B, C, D (wmma.load/store: the operand's type in ty.a) */
  uint8_t frag;         /* wmma.load/store: which operand (wv_frag) */
  uint8_t col_major;    /* wmma.load/store: .col; wmma.mma: bit 0 A is .col, bit 1 B is .col */
  uint8_t trans;        /* ldmatrix/stmatrix/movmatrix .trans */
  uint8_t flags;        /* WV_MMA_SATFINITE, WV_MMA_B1_AND */
  uint8_t kstep;        /* mma/wmma.mma: K is computed in steps of kstep products, each rounded before the next
                           adds into it (0: one step). wmma.mma .m16n16k8 .tf32 is two steps of 4 on the GPU: its
                           SASS is m16n8k4 tensor operations (measured: tests/apps wmma_gemm, H200) */
  uint8_t na, nb, nc, nd; /* registers of each operand (ldmatrix/stmatrix: the fragment in d/nd) */
  uint32_t a[8], b[8], c[8], d[8];
  uint32_t stride;      /* wmma.load/store: the stride operand's slot, WV_NOSLOT for the dense default */
} wv_mma_aux;

/* wgmma.mma_async.sync.aligned.m64nNkK: the warpgroup's D (64×N) = A (64×K)·B (K×N) + C, A from registers or a
 * shared-memory matrix descriptor, B from a descriptor. Warp w % 4 of the warpgroup owns rows 16w..16w+15. */
typedef struct wv_wgmma_aux {
  uint16_t n, k;
  wv_mma_types ty;      /* A, B, C, D (C = D) */
  uint8_t flags;        /* WV_MMA_SATFINITE, WV_MMA_B1_AND */
  uint8_t a_regs;       /* A from registers a[0..3]; else a[0] is A's descriptor */
  uint8_t trans_a, trans_b; /* imm-trans: the operand is MN-major in shared memory (else K-major) */
  uint8_t neg_a, neg_b; /* imm-scale -1: the operand's elements negated */
  uint8_t scale_neg;    /* the scale-d predicate is negated (!p) */
  int32_t scale_d;      /* predicate index: D = A·B + C when true, D = A·B when false; -1: an immediate (false,
                           so scale_neg gives its value) */
  uint8_t nd;           /* registers of D (and of C: the same registers) */
  uint32_t a[4], b;     /* source slots */
  uint32_t c[128], d[128];
} wv_wgmma_aux;

/* Elements of operand f that one lane holds in a fragment of an m×n×k product of element type t. */
int wv_frag_elems(enum wv_frag f, int m, int n, int k, enum wv_mt t);

/* Where element e of lane l's fragment of operand f lies in its matrix (A: m×k, B: k×n, C/D: m×n):
 * the PTX ISA's mma.sync fragments ("Matrix Fragments for mma.m16n8k*"), which the wmma shapes extend
 * tile by tile as the GPU does (m8n32k16: the transpose of m32n8k16; recorded on an H200, docs/TENSOR.md).
 * Element e of a fragment is register e / per_reg, part e % per_reg. */
void wv_frag_pos(enum wv_frag f, int m, int n, int k, enum wv_mt t, int lane, int e, int *row, int *col);

/* The handlers' shared pieces (h_mma.c): element e of lane's fragment in registers regs; the .aligned check (a
 * device fault unless every live lane of the warp is in m). */
struct wv_exec;
struct wv_insn;
uint64_t wv_frag_get(const struct wv_exec *x, const uint32_t *regs, enum wv_mt t, int lane, int e);
void wv_frag_set(struct wv_exec *x, const uint32_t *regs, enum wv_mt t, int lane, int e, uint64_t val);
int wv_mma_whole_warp(struct wv_exec *x, const struct wv_insn *in, uint32_t m);

#endif
