/*
 * handlers.h — how the decoder picks a handler: one lookup function per instruction family
 * (h_int.c, h_float.c, h_cvt.c, h_mem.c, h_bits.c, h_warp.c), each mapping an opcode, a variant
 * and a type to a specialised handler, or NULL when that combination is unsupported.
 */
#ifndef WV_HANDLERS_H
#define WV_HANDLERS_H

#include "exec/exec.h"

/* Variants of an opcode that select a different handler. */
enum {
  WV_V_NONE = 0,
  WV_V_LO, WV_V_HI, WV_V_WIDE, /* mul/mad */
  WV_V_CC,                     /* add.cc/sub.cc */
  WV_V_SAT,                    /* add.sat/sub.sat .s32 */
};

wv_handler wv_h_int(int op, int variant, wv_type t);
wv_handler wv_h_float(int op, wv_type t, const wv_insn *in); /* reads rnd/ftz/sat/mode from in */
wv_handler wv_h_sfu(int op, wv_type t, const wv_insn *in);   /* .approx, div.full (h_sfu.c) */
wv_handler wv_h_cvt(wv_type dst, wv_type src, const wv_insn *in);
wv_handler wv_h_fp8(int from_fp8);
wv_handler wv_h_half(int op);                                /* .f16/.bf16/x2 arithmetic, setp, cvt pairs (h_half.c) */                            /* fp8 pair conversions */
wv_handler wv_h_setp(int op, wv_type t, const wv_insn *in);   /* SETP/SET (by in->type, in->cmp)/SELP/SLCT */
wv_handler wv_h_bits(int op, wv_type t, const wv_insn *in);   /* lop3 bfe bfi prmt shf fns dp4a dp2a */
wv_handler wv_h_mov(int kind, wv_type t);                     /* see WV_MOV_* */
wv_handler wv_h_mem(int op, const wv_insn *in);               /* ld/st/atom/red/cvta/isspacep */
wv_handler wv_h_special(int which);                           /* %clock etc. */
wv_handler wv_h_mma(int kind);                                /* matrix instructions by wv_mma_kind (h_mma.c) */
wv_handler wv_h_wgmma(int kind);                              /* WV_MK_WGMMA, WV_MK_WGMMA_SYNC (h_wgmma.c) */
wv_handler wv_h_cluster(int which);                           /* 0: mapa, 1: getctarank, 2: setmaxnreg (cluster.c) */
/* shfl/vote/redux/bar.warp.sync: the fast path of a converged group (h_warp.c), which the scheduler tries
 * first: 0 when it ran the instruction, 1 to leave it to the general collective path. NULL: none. */
wv_handler wv_h_coll(const wv_insn *in);
/* shfl.sync's source lane for `lane` (mode WV_SHFL_*, b and c the lane/offset and clamp/segment operands), and
 * in *pval its predicate (h_warp.c; the JIT permutes by it too). */
int wv_shfl_src(int mode, int lane, uint32_t b, uint32_t c, int *pval);

enum { WV_MOV_REG = 0, WV_MOV_PRED, WV_MOV_PACK, WV_MOV_UNPACK, WV_MOV_PRED_FROM_REG };
enum { WV_DYN_CLOCK = 0, WV_DYN_CLOCK_HI, WV_DYN_CLOCK64, WV_DYN_GLOBALTIMER, WV_DYN_GLOBALTIMER_LO,
       WV_DYN_GLOBALTIMER_HI };
/* float instruction modes (in->mode). NEGP/NEGC: an fma contracted from mul and add/sub (contract.c) takes
 * -(a*b) / -c; SAVE: a product (mul, div.approx/.full, rcp.approx) that also copies its sources a, b to d[1],
 * d[2] (unless WV_NOSLOT) for the adds it was contracted into, when the PTX overwrites them in between. */
enum { WV_FM_APPROX = 1, WV_FM_FULL = 2, WV_FM_NAN = 4, WV_FM_NEGP = 8, WV_FM_NEGC = 16, WV_FM_SAVE = 32,
       WV_FM_ADDC = 64 /* div.approx/div.full/rcp.approx whose last multiply takes + c: the fused add (h_sfu.c) */ };
/* WV_FM_SAVE: copy the lanes' sources a, b to d[1], d[2] (h_float.c). */
void wv_h_save_sources(wv_exec *x, const wv_insn *in, uint32_t m);
/* address flags (in->addrf): ADDR32 the base register is 32 bits wide (zero-extended); LOCALBASE add
 * the frame's local base; WRAP32 the state space's addresses are 32 bits wide (.shared, .local, .param),
 * so register + offset wraps modulo 2^32 as on the GPU (PTX ISA §6.4.1: addresses are zero-extended,
 * and truncated to the state space's address width) */
enum { WV_AF_ADDR32 = 1, WV_AF_LOCALBASE = 2, WV_AF_WRAP32 = 4 };

int wv_h_activemask(wv_exec *x, const wv_insn *in, uint32_t m);
int wv_h_local_addr(wv_exec *x, const wv_insn *in, uint32_t m);

int wv_h_nop(wv_exec *x, const wv_insn *in, uint32_t m);

/* A lane's address for a memory operand: base register A (NULL for none) + off, with the address
 * flags (WV_AF_*) of the operand. */
static inline uint64_t wv_lane_addr(const wv_exec *x, const uint64_t *A, int64_t off, uint8_t flags, int l) {
  uint64_t base = A ? A[l] : 0;
  if (flags & WV_AF_ADDR32) base = (uint32_t)base;
  uint64_t a = base + (uint64_t)off;
  if (flags & WV_AF_LOCALBASE) a += x->frame->local_base;
  if (flags & WV_AF_WRAP32) a = (uint32_t)a;
  return a;
}
/* A warp's access checked as a whole (h_mem.c): lane l's address at addr[l] (slot + off with flags, as
 * wv_lane_addr), and 1 when every active lane's access of `bytes` bytes, aligned to `bytes`, lies inside one
 * region the program owns (one allocation; the CTA's shared variables; each lane's frames; the parameters)
 * and nothing else concerns it (no weak memory model on global memory; for a load, no undelivered cp.async
 * on the shared bytes): lane l's bytes are then at host + l * stride + (addr[l] - abase), in space sp. 0 when
 * in any doubt: the exact per-lane path (wv_mem_xlate) decides, and reports. */
typedef struct wv_region {
  uint8_t *host;
  uint64_t abase;
  size_t stride; /* each lane's own local frames or .param area; 0 otherwise */
  int sp;        /* the state space (a generic address's, resolved) */
} wv_region;
int wv_warp_region(wv_exec *x, int space, uint32_t slot, int64_t off, uint8_t flags, uint32_t m, uint32_t bytes,
                   int store, uint64_t *addr, wv_region *r);
/* The wv_exec counter (its offset: n_gld, n_sst, ...) a load (st 0) or store of space counts in, (size_t)-1
 * for none: the interpreter's count and the JIT's (jit/emit.c) are this one table. */
size_t wv_mem_counter(int space, int st);
/* The same check from the active lanes' lowest and highest address and the OR of all of them (the JIT engine,
 * src/jit, computes those in its own code and asks this). */
int wv_warp_region_at(wv_exec *x, int space, uint64_t lo, uint64_t hi, uint64_t bits, uint32_t bytes, int store,
                      wv_region *r);
/* setp's `.BOOL c` (PTX ISA "setp"): v combined with predicate c (!c when negated); v unchanged without one. */
static inline uint32_t wv_setp_bool(const wv_exec *x, const wv_insn *in, uint32_t v) {
  if (!in->boolop) return v;
  uint32_t c = in->neg_c ? ~x->preds[in->c] : x->preds[in->c];
  return in->boolop == WV_BOOL_AND ? v & c : in->boolop == WV_BOOL_OR ? v | c : v ^ c;
}
/* setp's predicates for lanes m: p = BOOL(t, c), q = BOOL(u, c); u is ~t, except for the .f16x2/.bf16x2
 * forms, whose q compares the high halves (h_half.c). */
static inline int wv_setp_write(wv_exec *x, const wv_insn *in, uint32_t m, uint32_t t, uint32_t u) {
  uint32_t *P = x->preds;
  t = wv_setp_bool(x, in, t);
  u = wv_setp_bool(x, in, u);
  if (in->d[0] != WV_NOSLOT) P[in->d[0]] = (P[in->d[0]] & ~m) | (t & m);
  if (in->pd >= 0) P[in->pd] = (P[in->pd] & ~m) | (u & m);
  return 0;
}
wv_handler wv_h_async(int mode);                              /* cp.async and mbarrier (async.c) */

/* cp.async / mbarrier modes (in->mode) */
enum { WV_CP_COPY = 0, WV_CP_COMMIT, WV_CP_WAIT_GROUP, WV_CP_WAIT_ALL, WV_CP_MBAR_ARRIVE, WV_CP_BULK,
       WV_CP_BULK_STORE,   /* cp{.reduce}.async.bulk.global.shared::cta.bulk_group (bulk.c's reduction in in->sat) */
       WV_CP_BULK_COMMIT,  /* cp.async.bulk.commit_group */
       WV_CP_BULK_WAIT,    /* cp.async.bulk.wait_group{.read} N */
       WV_CP_TENSOR_LOAD,  /* cp.async.bulk.tensor.Nd.shared::cluster.global...mbarrier::complete_tx::bytes */
       WV_CP_TENSOR_STORE, /* cp{.reduce}.async.bulk.tensor.Nd.global.shared::cta...bulk_group */
       WV_CP_ST_ASYNC      /* st.async / red.async (in->sat: WV_BR_* op) .shared::cluster.mbarrier::complete_tx::bytes */ };
/* cp.async.bulk flags (in->boolop): .multicast::cluster (the CTA mask's slot in in->rpc); the source is the
 * CTA's shared memory (.shared::cluster.shared::cta) */
enum { WV_BK_MCAST = 1, WV_BK_SRC_SHARED = 2 };
/* cp.reduce.async.bulk's operations (in->sat; 0: a copy) */
enum { WV_BR_NONE = 0, WV_BR_ADD, WV_BR_MIN, WV_BR_MAX, WV_BR_INC, WV_BR_DEC, WV_BR_AND, WV_BR_OR, WV_BR_XOR };
/* bulk.c: the tensor copies' boxes (tensormap.h's wv_tmap), gathered from global memory into a stage laid out as
 * shared memory at sbase will hold it, and scattered back (op: a WV_BR_* reduction); 1 on a fault (recorded). */
struct wv_tmap;
int wv_tma_gather(wv_exec *x, const struct wv_tmap *t, const int32_t *c, uint32_t sbase, uint8_t *stage, int lane);
int wv_tma_scatter(wv_exec *x, const struct wv_tmap *t, const int32_t *c, uint32_t sbase, const uint8_t *stage, int op,
                   int lane);
/* tensormap.replace's fields (in->mode), and tensormap.cp_fenceproxy (bulk.c). */
enum { WV_TMF_GLOBAL_ADDRESS = 0, WV_TMF_RANK, WV_TMF_BOX_DIM, WV_TMF_GLOBAL_DIM, WV_TMF_GLOBAL_STRIDE,
       WV_TMF_ELEMENT_STRIDE, WV_TMF_ELEMTYPE, WV_TMF_INTERLEAVE, WV_TMF_SWIZZLE, WV_TMF_SWIZZLE_ATOMICITY,
       WV_TMF_FILL, WV_TMF_COPY };
wv_handler wv_h_tensormap(void);
/* n bytes of src reduced into dst element by element (PTX type), atomically per element. */
void wv_bulk_reduce(uint8_t *dst, const uint8_t *src, uint64_t n, int op, int type);
enum { WV_MB_INIT = 0, WV_MB_INVAL, WV_MB_ARRIVE, WV_MB_ARRIVE_DROP, WV_MB_EXPECT_TX, WV_MB_COMPLETE_TX,
       WV_MB_TEST_WAIT, WV_MB_TRY_WAIT, WV_MB_PENDING_COUNT };
/* flags in in->boolop for mbarrier: */
enum { WV_MBF_PARITY = 1, WV_MBF_EXPECT_TX = 2, WV_MBF_NOINC = 4, WV_MBF_NOCOMPLETE = 8 };

#endif
