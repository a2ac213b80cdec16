/*
 * bulk.c — the copy engine of the bulk asynchronous copies (sm_90; PTX ISA "Data Movement and Conversion
 * Instructions: cp.async.bulk, cp.reduce.async.bulk, cp.async.bulk.tensor"): what a tensor copy (the Tensor
 * Memory Accelerator) reads and writes, given a tensor map (tensormap.h), and the element-wise reductions of
 * cp.reduce.async.bulk{.tensor}. When the bytes land is async.c's business: a load's box is gathered from
 * global memory into a staging buffer when the copy is issued and written into shared memory when async.c
 * delivers it; a store's box is read from shared memory at issue and scattered to global memory at delivery.
 *
 * Tile mode: the box's elements, dimension 0 innermost, are dense in shared memory (rows of count(0) elements,
 * count(i) = ceil(box[i] / elementStride[i])); element k along dimension i is coordinate c[i] + k * estr[i].
 * An element outside the tensor (a coordinate < 0 or >= its dim) reads as zero — or, for float types with
 * CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, as the canonical NaN — and is not written by a store.
 * The swizzle modes permute 16-byte chunks of the shared side (tensormap.h). Interleaved layouts (16B, 32B) are
 * read as if not interleaved, and im2col maps are refused at the copy (a fault naming it).
 */
#include "exec/fpmath.h"
#include "exec/handlers.h"
#include "exec/tensormap.h"

/* CUtensorMapDataType values that are floats (FLOAT16 6, FLOAT32 7, FLOAT64 8, BFLOAT16 9, FLOAT32_FTZ 10,
 * TFLOAT32 11, TFLOAT32_FTZ 12). */
static int is_float(unsigned dtype) { return dtype >= 6 && dtype <= 12; }

static void nan_fill(uint8_t *p, uint32_t esize) {
  static const uint64_t nan8 = 0x7fffffffffffffffull;
  static const uint32_t nan4 = 0x7fffffffu;
  static const uint16_t nan2 = 0x7fffu;
  memcpy(p, esize == 8 ? (const void *)&nan8 : esize == 4 ? (const void *)&nan4 : (const void *)&nan2, esize);
}

/* Every row of the box (a run of count(0) elements along dimension 0): calls fn for the run's in-bounds
 * elements [k0, k1) with the global address of element k0 and the box offset of the row. */
typedef int (*row_fn)(wv_exec *x, const wv_tmap *t, uint64_t ga, uint64_t boff, uint32_t k0, uint32_t k1, void *arg);

static int for_rows(wv_exec *x, const wv_tmap *t, const int32_t *c, row_fn fn, void *arg) {
  uint32_t n[5];
  for (int i = 0; i < 5; i++) n[i] = i < t->rank ? wv_tmap_count(t, i) : 1;
  uint64_t rowbytes = (uint64_t)n[0] * t->esize, row = 0;
  for (uint32_t k4 = 0; k4 < n[4]; k4++)
    for (uint32_t k3 = 0; k3 < n[3]; k3++)
      for (uint32_t k2 = 0; k2 < n[2]; k2++)
        for (uint32_t k1 = 0; k1 < n[1]; k1++, row++) {
          uint32_t k[5] = {0, k1, k2, k3, k4};
          uint64_t ga = t->addr;
          int in = 1;
          for (int i = 1; i < t->rank; i++) {
            int64_t ci = (int64_t)c[i] + (int64_t)k[i] * t->estr[i];
            if (ci < 0 || (uint64_t)ci >= t->dim[i]) in = 0;
            ga += (uint64_t)ci * t->stride[i];
          }
          /* the in-bounds part of the row along dimension 0: c0 + k * e0 in [0, dim0) */
          int64_t c0 = c[0], e0 = t->estr[0];
          int64_t lo = c0 >= 0 ? 0 : (-c0 + e0 - 1) / e0;
          int64_t hi = (int64_t)t->dim[0] - c0 <= 0 ? 0 : ((int64_t)t->dim[0] - c0 + e0 - 1) / e0;
          if (hi > n[0]) hi = n[0];
          if (!in || lo >= hi) lo = hi = 0;
          if (fn(x, t, ga + (uint64_t)(c0 + lo * e0) * t->esize, row * rowbytes, (uint32_t)lo, (uint32_t)hi, arg)) return 1;
        }
  return 0;
}

typedef struct { uint8_t *stage; int lane; uint32_t sbase; } io_arg;

/* The stage holds the box as shared memory will: byte b of the box lands at shared address sbase + b, and the
 * swizzle moves it; stage_at gives the stage byte for box offset off. */
static uint64_t stage_off(const wv_tmap *t, uint32_t sbase, uint64_t off) {
  return (uint64_t)wv_tmap_swizzle(t->swizzle, sbase + (uint32_t)off) - sbase;
}

static int gather_row(wv_exec *x, const wv_tmap *t, uint64_t ga, uint64_t boff, uint32_t k0, uint32_t k1, void *arg) {
  io_arg *a = arg;
  uint32_t n0 = wv_tmap_count(t, 0), es = t->esize;
  int nan = t->oob != 0 && is_float(t->dtype);
  for (uint32_t k = 0; k < n0; k++) {
    uint8_t *dst = a->stage + stage_off(t, a->sbase, boff + (uint64_t)k * es);
    if (k < k0 || k >= k1) { /* out of bounds */
      if (nan) nan_fill(dst, es);
      else memset(dst, 0, es);
      continue;
    }
    uint64_t g = ga + (uint64_t)(k - k0) * t->estr[0] * es;
    const uint8_t *p = wv_mem_xlate(x, WV_SPACE_GLOBAL, g, es, 1, a->lane, WV_MEM_LOAD);
    if (!p) return 1;
    memcpy(dst, p, es);
  }
  return 0;
}

/* What an H200 refuses with an illegal instruction (tests/programs tma_tile, tma_probe): a box whose innermost
 * coordinate is not a multiple of 16 bytes (loads and stores alike; -8 ints is fine, -1 is not), and a store at
 * a negative coordinate in any dimension (a load there reads the fill; a store past the far end is clipped). */
static int tma_refused(wv_exec *x, const wv_tmap *t, const int32_t *c, int store, int lane) {
  if ((int64_t)c[0] * t->esize % 16)
    return wv_fault_set(x, WV_ERR_ILLEGAL_INSN, lane, 0, 0,
                        "cp.async.bulk.tensor: innermost coordinate %d is not a multiple of 16 bytes", (int)c[0]);
  for (int i = 0; store && i < t->rank; i++)
    if (c[i] < 0)
      return wv_fault_set(x, WV_ERR_ILLEGAL_INSN, lane, 0, 0, "cp.async.bulk.tensor store at a negative coordinate (%d in dimension %d)",
                          (int)c[i], i);
  return 0;
}

int wv_tma_gather(wv_exec *x, const wv_tmap *t, const int32_t *c, uint32_t sbase, uint8_t *stage, int lane) {
  if (t->kind != 0) return wv_fault_set(x, WV_ERR_FAULT, lane, 0, 0, "cp.async.bulk.tensor in im2col mode is not modelled");
  if (tma_refused(x, t, c, 0, lane)) return 1;
  io_arg a = {stage, lane, sbase};
  return for_rows(x, t, c, gather_row, &a);
}

/* ---------------- reductions ---------------- */

/* One element of a reduction: *d = op(*d, s), type by PTX type (WV_T_*). The global side is updated by
 * compare-and-swap, so CTAs on other host threads may reduce into the same words. */
static uint64_t red_apply(int op, int type, uint64_t o, uint64_t s) {
  switch (type) {
  case WV_T_F32:
    if (op == WV_BR_ADD) return wv_fp_add_f32((uint32_t)o, (uint32_t)s, WV_FP_RN, 0);
    if (op == WV_BR_MIN) return wv_fp_min_f32((uint32_t)o, (uint32_t)s, 0);
    return wv_fp_max_f32((uint32_t)o, (uint32_t)s, 0);
  case WV_T_F64:
    if (op == WV_BR_ADD) return wv_fp_add_f64(o, s, WV_FP_RN);
    if (op == WV_BR_MIN) return wv_fp_min_f64(o, s);
    return wv_fp_max_f64(o, s);
  case WV_T_F16: case WV_T_BF16: {
    int bf = type == WV_T_BF16;
    if (op == WV_BR_ADD) return wv_fp_half_arith(WV_FP__ADD, bf, (uint32_t)o, (uint32_t)s, 0, 0);
    int lt = wv_fp_half_cmp((uint32_t)s, (uint32_t)o, bf, 0, WV_FP_LT);
    return (op == WV_BR_MIN) == lt ? s : o;
  }
  default: break;
  }
  int sgn = wv_type_is_signed((wv_type)type), w64 = wv_type_size((wv_type)type) == 8;
  int64_t so = w64 ? (int64_t)o : (int64_t)(int32_t)o, ss = w64 ? (int64_t)s : (int64_t)(int32_t)s;
  switch (op) {
  case WV_BR_ADD: return o + s;
  case WV_BR_MIN: return sgn ? (so < ss ? o : s) : (o < s ? o : s);
  case WV_BR_MAX: return sgn ? (so > ss ? o : s) : (o > s ? o : s);
  case WV_BR_INC: return o >= s ? 0 : o + 1;
  case WV_BR_DEC: return (o == 0 || o > s) ? s : o - 1;
  case WV_BR_AND: return o & s;
  case WV_BR_OR: return o | s;
  default: return o ^ s;
  }
}

void wv_bulk_reduce(uint8_t *dst, const uint8_t *src, uint64_t n, int op, int type) {
  uint32_t es = wv_type_size((wv_type)type);
  for (uint64_t i = 0; i + es <= n; i += es) {
    uint64_t s = 0;
    memcpy(&s, src + i, es);
    switch (es) {
    case 2: {
      uint16_t *q = (uint16_t *)(void *)(dst + i), o = __atomic_load_n(q, __ATOMIC_RELAXED), v;
      do v = (uint16_t)red_apply(op, type, o, s);
      while (!__atomic_compare_exchange_n(q, &o, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
      break;
    }
    case 4: {
      uint32_t *q = (uint32_t *)(void *)(dst + i), o = __atomic_load_n(q, __ATOMIC_RELAXED), v;
      do v = (uint32_t)red_apply(op, type, o, s);
      while (!__atomic_compare_exchange_n(q, &o, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
      break;
    }
    default: {
      uint64_t *q = (uint64_t *)(void *)(dst + i), o = __atomic_load_n(q, __ATOMIC_RELAXED), v;
      do v = red_apply(op, type, o, s);
      while (!__atomic_compare_exchange_n(q, &o, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
      break;
    }
    }
  }
}

/* The PTX type of a tensor map's elements, for a reduction. */
static int tmap_type(const wv_tmap *t) {
  static const uint8_t ty[13] = {WV_T_U8, WV_T_U16, WV_T_U32, WV_T_S32, WV_T_U64, WV_T_S64, WV_T_F16, WV_T_F32,
                                 WV_T_F64, WV_T_BF16, WV_T_F32, WV_T_F32, WV_T_F32};
  return t->dtype < 13 ? ty[t->dtype] : WV_T_U8;
}

typedef struct { const uint8_t *stage; int lane; uint32_t sbase; int op; } st_arg;

static int scatter_row(wv_exec *x, const wv_tmap *t, uint64_t ga, uint64_t boff, uint32_t k0, uint32_t k1, void *arg) {
  st_arg *a = arg;
  uint32_t es = t->esize;
  for (uint32_t k = k0; k < k1; k++) {
    uint64_t g = ga + (uint64_t)(k - k0) * t->estr[0] * es;
    uint8_t *p = wv_mem_xlate(x, WV_SPACE_GLOBAL, g, es, a->op ? es : 1, a->lane, WV_MEM_STORE);
    if (!p) return 1;
    const uint8_t *src = a->stage + stage_off(t, a->sbase, boff + (uint64_t)k * es);
    if (a->op) wv_bulk_reduce(p, src, es, a->op, tmap_type(t));
    else memcpy(p, src, es);
  }
  return 0;
}

int wv_tma_scatter(wv_exec *x, const wv_tmap *t, const int32_t *c, uint32_t sbase, const uint8_t *stage, int op,
                   int lane) {
  if (t->kind != 0) return wv_fault_set(x, WV_ERR_FAULT, lane, 0, 0, "cp.async.bulk.tensor in im2col mode is not modelled");
  if (tma_refused(x, t, c, 1, lane)) return 1;
  st_arg a = {stage, lane, sbase, op};
  return for_rows(x, t, c, scatter_row, &a);
}

/* ---------------- tensormap.replace, tensormap.cp_fenceproxy ---------------- */

/* tensormap.replace sets one field of a map in memory, in warpvm's encoding, with the values the PTX ISA gives
 * (as CUTLASS and Triton pass them): .rank is the rank - 1; .box_dim, .global_dim, .element_stride are the values
 * themselves, .global_stride ord i is dimension i + 1's stride in bytes; .elemtype, .interleave_layout,
 * .swizzle_mode and .fill_mode are the driver's enum values; .swizzle_atomicity (sm_100) changes nothing here.
 * Bytes no encoder wrote (Triton fills a map from zeros) start as an empty map. cp_fenceproxy copies the 128
 * bytes from shared to global memory (the fence has nothing to order here). */
static int h_tensormap(wv_exec *x, const wv_insn *in, uint32_t m) {
  const uint64_t *A = in->a != WV_NOSLOT ? WV_R(x, in->a) : NULL, *B = WV_R(x, in->b);
  WV_FOR_LANES(m, l, {
    uint64_t a = wv_lane_addr(x, A, in->imm, in->addrf, l);
    uint8_t *p = wv_mem_xlate(x, in->space, a, WV_TMAP_BYTES, in->mode == WV_TMF_COPY ? 16 : 128, l, WV_MEM_STORE);
    if (!p) return 1;
    if (in->mode == WV_TMF_COPY) {
      uint64_t s = wv_lane_addr(x, in->b != WV_NOSLOT ? WV_R(x, in->b) : NULL, in->imm2, in->type2, l);
      const uint8_t *src = wv_mem_xlate(x, WV_SPACE_SHARED, s, WV_TMAP_BYTES, 16, l, WV_MEM_LOAD);
      if (!src) return 1;
      memmove(p, src, WV_TMAP_BYTES);
      continue;
    }
    wv_tmap t;
    if (wv_tmap_unpack(p, &t)) wv_tmap_empty(&t);
    uint64_t v = in->type == WV_T_B32 ? (uint32_t)B[l] : B[l];
    uint32_t o = in->target;
    switch (in->mode) {
    case WV_TMF_GLOBAL_ADDRESS: t.addr = v; break;
    case WV_TMF_RANK: t.rank = (uint8_t)(v < 5 ? v + 1 : 5); break;
    case WV_TMF_BOX_DIM: t.box[o] = (uint32_t)(v ? (v > 256 ? 256 : v) : 1); break;
    case WV_TMF_GLOBAL_DIM: t.dim[o] = v ? v : 1; break;
    case WV_TMF_GLOBAL_STRIDE: if (o < 4) t.stride[o + 1] = v; break;
    case WV_TMF_ELEMENT_STRIDE: t.estr[o] = (uint32_t)(v ? (v > 8 ? 8 : v) : 1); break;
    case WV_TMF_ELEMTYPE: t.dtype = (uint8_t)v; break;
    case WV_TMF_INTERLEAVE: t.interleave = (uint8_t)v; break;
    case WV_TMF_SWIZZLE: t.swizzle = (uint8_t)v; break;
    case WV_TMF_FILL: t.oob = (uint8_t)v; break;
    default: break;
    }
    wv_tmap_pack(&t, p);
  });
  return 0;
}

wv_handler wv_h_tensormap(void) { return h_tensormap; }
