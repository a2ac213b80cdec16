/*
 * ir.h — the decoded kernel IR: what the decoder (decode.c) produces from the PTX AST and the
 * executor runs. Decoding happens once per module: every register is a resolved slot, every
 * immediate a constant slot, every branch an instruction index with its reconvergence point
 * (cfg.c), every instruction a handler specialised by opcode and type. Handlers never see text.
 */
#ifndef WV_IR_H
#define WV_IR_H

#include <stddef.h>
#include <stdint.h>

#include "warpvm.h"

/* ---- opcodes: one row per PTX mnemonic, from ops.def ---- */
typedef enum wv_opcode {
#define OP(id, mnem, dec, cls, syn) WV_OP_##id,
#include "ops.def"
#undef OP
  WV_OP_COUNT
} wv_opcode;

/* Cost/scheduling classes of an opcode (ops.def's fourth column). */
typedef enum wv_class {
  WV_C_ALU,   /* integer/logic: full rate */
  WV_C_FPU,   /* float arithmetic */
  WV_C_SFU,   /* transcendental approximations */
  WV_C_MEM,   /* memory access */
  WV_C_CTRL,  /* control flow, handled by the scheduler */
  WV_C_SYNC,  /* barriers and fences */
  WV_C_WARP,  /* warp collectives */
} wv_class;

typedef struct wv_opinfo {
  const char *mnemonic;
  wv_class cls;
  const char *synopsis;
} wv_opinfo;
extern const wv_opinfo wv_ops[WV_OP_COUNT];

/* ---- types ---- */
typedef enum wv_type {
  WV_T_NONE = 0,
  WV_T_B8, WV_T_B16, WV_T_B32, WV_T_B64, WV_T_B128,
  WV_T_U8, WV_T_U16, WV_T_U32, WV_T_U64,
  WV_T_S8, WV_T_S16, WV_T_S32, WV_T_S64,
  WV_T_F16, WV_T_F16X2, WV_T_BF16, WV_T_BF16X2, WV_T_TF32, WV_T_F32, WV_T_F64,
  WV_T_PRED,
  WV_T_COUNT
} wv_type;

wv_type wv_type_parse(const char *s);
const char *wv_type_name(wv_type t);
unsigned wv_type_size(wv_type t); /* bytes; pred → 0 */
int wv_type_is_float(wv_type t);
int wv_type_is_signed(wv_type t);

/* ---- operand slots ----
 * A slot names 32 lanes of 64-bit storage. Bits [31:30] select the bank: frame registers,
 * function constants (immediates), or warp specials (%tid.x ...). Predicates live in a separate
 * per-frame bank of 32-bit masks, indexed directly. */
#define WV_SLOT_REG 0u
#define WV_SLOT_CONST 1u
#define WV_SLOT_SPECIAL 2u
#define WV_SLOT(bank, idx) (((uint32_t)(bank) << 30) | (uint32_t)(idx))
#define WV_SLOT_BANK(s) ((s) >> 30)
#define WV_SLOT_INDEX(s) ((s) & 0x3fffffffu)
#define WV_NOSLOT 0xffffffffu

/* Warp special registers (per-lane constants filled when a warp is created). */
typedef enum wv_special {
  WV_SP_TID_X, WV_SP_TID_Y, WV_SP_TID_Z,
  WV_SP_NTID_X, WV_SP_NTID_Y, WV_SP_NTID_Z,
  WV_SP_CTAID_X, WV_SP_CTAID_Y, WV_SP_CTAID_Z,
  WV_SP_NCTAID_X, WV_SP_NCTAID_Y, WV_SP_NCTAID_Z,
  WV_SP_LANEID, WV_SP_WARPID, WV_SP_NWARPID, WV_SP_SMID, WV_SP_NSMID, WV_SP_GRIDID,
  WV_SP_LANEMASK_EQ, WV_SP_LANEMASK_LT, WV_SP_LANEMASK_LE, WV_SP_LANEMASK_GT, WV_SP_LANEMASK_GE,
  WV_SP_DYN_SMEM, WV_SP_TOTAL_SMEM, WV_SP_AGGR_SMEM,
  WV_SP_ENVREG1, WV_SP_ENVREG2, /* the grid workspace's address, high:low (cooperative launches) */
  /* the CTA's cluster (exec/cluster.c): its place in the cluster, the cluster's shape and place in the grid */
  WV_SP_CLUSTER_CTAID_X, WV_SP_CLUSTER_CTAID_Y, WV_SP_CLUSTER_CTAID_Z,
  WV_SP_CLUSTER_NCTAID_X, WV_SP_CLUSTER_NCTAID_Y, WV_SP_CLUSTER_NCTAID_Z,
  WV_SP_CLUSTER_CTARANK, WV_SP_CLUSTER_NCTARANK,
  WV_SP_CLUSTERID_X, WV_SP_CLUSTERID_Y, WV_SP_CLUSTERID_Z,
  WV_SP_NCLUSTERID_X, WV_SP_NCLUSTERID_Y, WV_SP_NCLUSTERID_Z,
  WV_SP_IS_EXPLICIT_CLUSTER,
  WV_SP_COUNT
} wv_special;

/* Memory spaces as the executor sees them. */
typedef enum wv_space {
  WV_SPACE_GENERIC = 0,
  WV_SPACE_GLOBAL,
  WV_SPACE_SHARED,
  WV_SPACE_LOCAL,
  WV_SPACE_CONST,
  WV_SPACE_KPARAM, /* the kernel's parameter buffer (ld.param on an entry's params) */
  WV_SPACE_FPARAM, /* the frame's per-lane .param area (call arguments, return values) */
  WV_SPACE_CLUSTER,/* .shared::cluster: the shared memory of every CTA of the cluster (exec/cluster.c) */
} wv_space;

/* Generic address windows (cvta). Global addresses are used as they are. */
#define WV_SHARED_WINDOW 0x0000010000000000ull
#define WV_LOCAL_WINDOW 0x0000020000000000ull
#define WV_PARAM_WINDOW 0x0000030000000000ull /* the kernel's parameters (cvta.param: __grid_constant__) */
#define WV_WINDOW_SIZE 0x0000000100000000ull
/* The first .shared address a CTA's variables get: below it, 1 KiB the GPU reserves for itself (sm_80
 * and later; tests/memprobe/golden/memprobe_info.out). */
#define WV_SHARED_BASE 0x400u
/* %reserved_smem_offset_end on an H100: the end of the part of that 1 KiB that system software (cooperative
 * groups' tiles of more than 32 threads) may use, from %reserved_smem_offset_1 = 0 (memprobe_info.out). */
#define WV_RESERVED_SMEM_END 0x120u
#define WV_GLOBAL_BASE 0x0000700000000000ull
/* A function's address as data (mov.u64 %rd, f; a table initialised with function names): the tag | its index
 * in the module. An indirect call accepts exactly these (sched.c); nothing maps memory there. */
#define WV_FUNC_ADDR_TAG 0x00f0000000000000ull
#define WV_FUNC_ADDR_MASK 0xffffffff00000000ull

/* Rounding modes and comparison operators carried in wv_insn. */
enum { WV_RND_NONE = 0, WV_RND_RN, WV_RND_RZ, WV_RND_RM, WV_RND_RP,
       WV_RND_RNI, WV_RND_RZI, WV_RND_RMI, WV_RND_RPI, WV_RND_RNA };
enum { WV_CMP_EQ = 0, WV_CMP_NE, WV_CMP_LT, WV_CMP_LE, WV_CMP_GT, WV_CMP_GE,
       WV_CMP_LO, WV_CMP_LS, WV_CMP_HI, WV_CMP_HS,
       WV_CMP_EQU, WV_CMP_NEU, WV_CMP_LTU, WV_CMP_LEU, WV_CMP_GTU, WV_CMP_GEU,
       WV_CMP_NUM, WV_CMP_NAN };
enum { WV_BOOL_NONE = 0, WV_BOOL_AND, WV_BOOL_OR, WV_BOOL_XOR };

/* Control kinds: what the scheduler must do after (or instead of) the handler. */
typedef enum wv_ctl {
  WV_CTL_NONE = 0, /* plain: run the handler, go to pc+1 */
  WV_CTL_BRA,
  WV_CTL_CALL,
  WV_CTL_RET,
  WV_CTL_EXIT,
  WV_CTL_TRAP,
  WV_CTL_BAR,      /* CTA barrier: bar.sync / bar.arrive / bar.red */
  WV_CTL_COLL,     /* warp collective: shfl/vote/match/redux/bar.warp.sync */
  WV_CTL_MBARWAIT, /* mbarrier.test_wait / try_wait: may deliver async copies, try_wait may block */
} wv_ctl;

struct wv_exec;
struct wv_insn;
/* A handler runs one instruction for the lanes in `mask`; nonzero return = fault (details in x). */
typedef int (*wv_handler)(struct wv_exec *x, const struct wv_insn *in, uint32_t mask);

/* atom/red's operation (wv_insn.mode), in the order decode_ops.c's dec_atom lists them */
enum { WV_ATOM_ADD = 0, WV_ATOM_MIN, WV_ATOM_MAX, WV_ATOM_INC, WV_ATOM_DEC, WV_ATOM_AND, WV_ATOM_OR, WV_ATOM_XOR,
       WV_ATOM_EXCH, WV_ATOM_CAS };

#define WV_RPC_NONE 0xffffffffu /* no reconvergence point (paths never meet) */
#define WV_RPC_EXIT 0xfffffffeu /* paths meet only at the function's return */

typedef struct wv_insn {
  wv_handler fn;
  uint16_t op;        /* wv_opcode */
  uint8_t ctl;        /* wv_ctl */
  uint8_t type, type2;/* primary type; second type (cvt source, etc.) */
  uint8_t rnd, cmp, boolop;
  uint8_t ftz, sat, space, vec;
  uint8_t mode;       /* per-family sub-operation (shfl mode, vote mode, atom op, ...) */
  uint8_t neg_b, neg_c; /* negated predicate sources (setp ... !%p) */
  uint8_t uni;        /* .uni on bra/call */
  uint8_t addrf;      /* address flags (WV_AF_*) for memory instructions */
  uint8_t nd;         /* number of destination slots used in d[] */
  uint16_t src_file;  /* CUDA source file index from .loc (wv_func.src_files), 0 if none */
  int32_t guard;      /* predicate index, -1 = none */
  uint8_t guard_neg;
  uint32_t d[4];      /* destination slots (pred dests are predicate indices) */
  int32_t pd;         /* second destination predicate (setp p|q, shfl d|p), -1 none */
  uint32_t a, b, c, e;/* source slots (or predicate indices for pred sources) */
  int64_t imm;        /* address offset / small constant */
  int64_t imm2;       /* second address offset (cp.async's source) */
  uint32_t target;    /* branch target / callee index */
  uint32_t rpc;       /* reconvergence point of a branch (cfg.c) */
  uint32_t line;      /* PTX line */
  uint32_t src_line;  /* CUDA source line from .loc, 0 if none */
  void *aux;          /* family data (call argument map, ...) owned by the module */
} wv_insn;

/* Parameter / argument mapping of a call site. */
typedef struct wv_callinfo {
  uint32_t nargs, nrets;
  uint32_t *arg_off;  /* caller frame param-area offsets of the argument variables */
  uint32_t *arg_size;
  uint32_t *ret_off;  /* caller frame param-area offsets of the return variables */
  uint32_t *ret_size;
  int builtin;        /* WV_BUILTIN_* for extern functions warpvm provides */
  int indirect;       /* a call through a register (wv_insn.a: each lane's function address) */
  uint32_t *targets;  /* indirect, with a call table or .calltargets: the functions it may enter */
  uint32_t ntargets;  /* (0: a prototype, any function) */
} wv_callinfo;

/* Extern functions warpvm provides (builtins.def; builtin_names.c). */
enum {
  WV_BUILTIN_NONE = 0,
#define B(id, fl, syn) WV_BUILTIN_##id,
#define N(id, nm)
#include "ir/builtins.def"
#undef B
#undef N
  WV_BUILTIN_COUNT
};
enum { WV_BF_HEAP = 1, WV_BF_DEVRT = 2, WV_BF_GONE = 4 }; /* builtins.def's flags */
int wv_builtin_lookup(const char *name);  /* WV_BUILTIN_NONE if warpvm provides no function of that name */
uint32_t wv_builtin_flags(int id);

typedef struct wv_param {
  const char *name;
  wv_type type;
  uint32_t size, align, offset;
} wv_param;

/* FMA contraction (contract.c, docs/CONTRACTION.md): what became of a contractible mul, and of an add or
 * sub that could take a product, as ptxas decides it. One record per such instruction, in code order. */
enum { WV_FU_MUL = 1, WV_FU_ADD };
enum { WV_FU_KEPT = 1, WV_FU_FUSED, WV_FU_PARTLY, WV_FU_DEAD, /* muls */
       WV_FU_FMA, WV_FU_SEPARATE };                         /* adds */
enum { WV_WHY_NONE = 0, WV_WHY_USE,  /* the product has a use that is not a contractible add */
       WV_WHY_BLOCK,                 /* ... or a use in another block */
       WV_WHY_LOST,                  /* an add took the other operand's product */
       WV_WHY_FTZ,                   /* the add's .ftz differs from the mul's */
       WV_WHY_TWICE };               /* the add reads the product twice */
typedef struct wv_fusion {
  uint32_t line;     /* PTX line of the mul or add/sub */
  uint32_t mul_line; /* add: the mul whose product it reads (0: none); fused: the one it took */
  uint16_t op;       /* its opcode as written: mul (div, rcp: their last multiply), add, sub */
  uint8_t kind, status, why;
} wv_fusion;

typedef struct wv_func {
  const char *name;
  int is_entry;
  int builtin;            /* extern function warpvm implements (vprintf, __assertfail, malloc, free) */
  int defined;
  wv_insn *code;
  uint32_t ncode;
  uint32_t nregs;         /* register slots */
  uint32_t cc_reg;        /* 1 + the register slot of CC.CF (add.cc, addc, ...: decode.c wv_dcc), 0: none */
  uint32_t npreds;        /* predicate registers */
  uint64_t *consts;       /* nconsts immediates (a launch repeats them for 32 lanes: wv_frame.consts) */
  uint32_t nconsts;
  uint32_t local_size;    /* bytes of .local per thread for one activation */
  uint32_t local_align;
  uint32_t param_size;    /* bytes of per-lane .param area (own params, retvals, callsite vars) */
  wv_param *params;       /* entry: kernel params (offsets in the kernel param buffer); func: in param area */
  uint32_t nparams;
  wv_param *rets;
  uint32_t nrets;
  uint32_t shared_static; /* entry: bytes of static .shared its call graph reaches, laid out as ptxas does (shared.c) */
  uint32_t shared_dyn;    /* entry: offset of the dynamic (extern .shared) area */
  uint32_t *shared_reloc; /* entry: this kernel's offset of each relocated .shared variable (wv_irmod.nreloc) */
  uint32_t reqntid[3], maxntid[3];
  uint32_t reqcluster[3]; /* entry: .reqnctapercluster (nvcc's __cluster_dims__), 0 = not given */
  uint32_t maxclusterrank;/* entry: .maxclusterrank, 0 = not given */
  int explicit_cluster;   /* entry: .explicitcluster (launches must give a cluster shape) */
  const char *file;       /* PTX file name for messages */
  const char *unsupported;/* first "unsupported ..." message of this function, or NULL */
  wv_fusion *fusions;     /* contract.c's decisions (also when contraction is off) */
  uint32_t nfusions;
  int addr_taken;         /* its address is a value somewhere (mov, an initializer): indirect calls may enter it */
  const struct ptx_file_entry *src_files; /* its unit's .file table (ast.h), for wv_insn.src_file */
  uint32_t nsrc_files;
} wv_func;

/* A module-scope variable placed in device memory (.global/.const) or the shared layout. */
typedef struct wv_gvar {
  const char *name;
  int space;              /* WV_SPACE_GLOBAL / CONST / SHARED */
  uint64_t addr;          /* global/const: device address; shared: its offset in every kernel reaching it */
  uint64_t size;
  uint32_t align;
  int is_extern_shared;   /* `extern .shared` (dynamic) */
  uint32_t slot;          /* shared at different offsets in different kernels: the special slot holding
                             the running kernel's offset (shared.c); WV_NOSLOT otherwise */
} wv_gvar;

typedef struct wv_irmod {
  const char *filename;
  wv_func *funcs;
  uint32_t nfuncs;
  wv_gvar *vars;
  uint32_t nvars;
  uint32_t nreloc;         /* .shared variables whose offset differs between kernels: warp specials
                              WV_SP_COUNT.. hold the running kernel's offsets (wv_func.shared_reloc) */
  uint64_t sp_read;        /* bit k: some instruction reads warp special k (< WV_SP_COUNT; the decoder's slots) */
  uint32_t *taken;         /* the functions whose address the module takes (wv_func.addr_taken), in index order */
  uint32_t ntaken;
  char target[16];
  uint32_t version_major, version_minor;
  struct ptx_arena *arena; /* the first unit's arena (every unit's AST owns its names and lives with the module) */
} wv_irmod;

/* The k-th function (k from 0) that call instruction `in` may enter, in *fi: its callee; for an indirect call
 * each function of its target list, or, with only a prototype, each function whose address the module takes.
 * 0 when there is no k-th. (Builtins are never entered: wv_callinfo.builtin.) */
int wv_call_target(const wv_irmod *m, const wv_insn *in, uint32_t k, uint32_t *fi);

/* cfg.c: fill every conditional branch's rpc with its immediate post-dominator. */
int wv_cfg_reconvergence(wv_func *f, char *err, size_t errlen);

/* contract.c: ptxas's FMA contraction of f. du_start[i] .. du_start[i+1] index du, the value registers
 * instruction i reads (register index) and writes (| WV_DU_DEF); WV_DU_CC marks one that uses the carry
 * flag. Records every decision in f->fusions; with apply, rewrites the fused adds into fma and lets a mul
 * keep copies of sources overwritten before its adds (new registers). -1 only when out of memory. */
#define WV_DU_DEF 0x80000000u
#define WV_DU_CC 0x7fffffffu
int wv_contract(wv_func *f, const uint32_t *du_start, const uint32_t *du, int apply);

#endif
