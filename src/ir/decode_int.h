/*
 * decode_int.h — the decoder's private state, shared by decode.c (module, functions, operands)
 * and decode_ops.c (one decoding function per instruction family of ops.def).
 */
#ifndef WV_DECODE_INT_H
#define WV_DECODE_INT_H

#include <stdarg.h>

#include "exec/handlers.h"
#include "ir/ir.h"
#include "ir/symtab.h"
#include "ptx/ast.h"
#include "rt/vm_internal.h"

/* What a name in a function means. */
enum { K_REG = 1, K_PRED, K_LOCALVAR, K_FPARAM, K_KPARAM, K_GVAR, K_FUNC, K_RANGE_REG, K_RANGE_PRED };

typedef struct wv_decl {
  uint8_t kind;
  wv_type type;
  uint32_t base;   /* slot / predicate index / module var or function index */
  uint32_t range;  /* range declarations: count */
  uint64_t off;    /* local/param offset */
  uint32_t size;
  uint32_t align;  /* a call site's .param variable: its alignment, */
  uint8_t is_array;/* and whether it is an array (what an indirect call's prototype is checked against) */
} wv_decl;

/* Parsed modifiers of one instruction. */
typedef struct wv_mods {
  wv_type t[4];
  int nt;
  int rnd, ftz, sat, vec;
  int space;               /* WV_SPACE_*, -1 if none given */
  const char *w[24];       /* every other word, in order */
  int nw;
  uint32_t used;           /* words consumed by the family decoder */
} wv_mods;

/* A visible (or weak) module-scope definition, shared by all the units of a linked module: the
 * winner when several units define the name (a strong definition beats weak ones). */
typedef struct wv_linksym {
  uint32_t unit;           /* the defining unit */
  uint8_t kind;            /* K_GVAR or K_FUNC */
  uint8_t weak;            /* every definition of the name in `unit` is .weak (or .common) */
  const void *item;        /* the definition: a ptx_var (K_GVAR) or ptx_func (K_FUNC) of `unit` */
  ptx_loc loc;
  int64_t val;             /* (kind << 32) | module index once placed, -1 before */
} wv_linksym;

typedef struct wv_dec {
  const ptx_module *ast;   /* the unit being decoded (its file name, its arena's names) */
  const ptx_module *const *units;
  uint32_t nunits, unit;
  int linking;             /* several units: an unresolved .extern is an "undefined reference" */
  wv_vm *vm;
  wv_irmod *mod;
  char *err;
  size_t errlen;
  int failed;
  wv_symtab *unitsyms;     /* per unit: name → (kind << 32) | index — its own definitions and,
                              once linked, its .extern references (keys are the unit's own names) */
  wv_symtab *modsyms;      /* the current unit's table */
  struct ptx_arena *linknames; /* one copy of every visible name: the keys of `global` */
  wv_symtab global;        /* visible name (interned in linknames) → index into link */
  wv_linksym *link;
  uint32_t nlink, caplink;
  uint32_t *varidx, *funcidx; /* per unit's module variable / function (from varbase / funcbase):
                                 its module index, WV_DEC_NONE if it is not its own (an .extern,
                                 or a weak definition another unit's replaces) */
  uint32_t *varbase, *funcbase;
  wv_symtab fnshared;      /* function-scope .shared declaration (ptx_func.shared) → module var index */
  struct ptx_arena *store; /* the statements of the body being decoded (reset after each) */
  uint32_t nshared_seen;   /* .shared declarations of the body met so far */
  /* the function being decoded */
  wv_func *fn;
  const ptx_func *pf;
  wv_symtab names;         /* name → index into decls */
  wv_decl *decls;
  uint32_t ndecls, capdecls;
  wv_insn *code;
  uint32_t ncode, capcode;
  uint64_t *consts;
  uint32_t nconsts, capconsts;
  wv_symtab labels;        /* label name → (block depth << 32) | insn index, scoped by { } blocks as the PTX ISA
                              scopes labels (inline asm repeats its `LAB_WAIT:` in a block of its own) */
  uint32_t depth;          /* { } blocks open in the body */
  uint32_t fixbase[64];    /* per open block: the first branch fixup made inside it (the parser nests at most 64) */
  wv_symtab protos;        /* .callprototype / .calltargets label → its ptx_proto */
  struct { uint32_t insn; const char *label; ptx_loc loc; } *fix;
  uint32_t nfix, capfix;
  uint32_t cc_slot;        /* WV_NOSLOT until a carry instruction needs it */
  int in_insn, unsup;       /* decoding an instruction; it was unsupported */
  uint32_t *du, ndu, capdu; /* the value registers each instruction reads and writes (contract.c) */
  uint32_t *dus, capdus;    /* instruction → its first entry in du */
  wv_decl scratch;         /* what wv_dlookup returns for range and module names */
} wv_dec;

#define WV_DEC_NONE 0xffffffffu

int wv_dgrow(void **p, uint32_t *cap, uint32_t need, size_t el);
/* A special register (%tid.x, %clock, ...): a warp special slot, a constant, or read when the instruction
 * runs (WV_DYN_*: only mov reads those). */
enum { WV_SREG_SLOT = 0, WV_SREG_CONST, WV_SREG_DYN };
typedef struct wv_sreg {
  uint8_t kind;
  uint32_t v; /* WV_SP_*, the value, or WV_DYN_* */
} wv_sreg;
int wv_dsreg(const char *name, wv_sreg *out); /* 0, or -1 when name is no special register */
int wv_derr(wv_dec *d, ptx_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* operands (decode.c) */
uint32_t wv_dsrc(wv_dec *d, const ptx_operand *o, wv_type t);  /* value slot, WV_NOSLOT on error */
uint32_t wv_ddst(wv_dec *d, const ptx_operand *o);             /* register slot */
int32_t wv_dpred(wv_dec *d, const ptx_operand *o, uint8_t *neg); /* predicate index, -1 on error */
uint32_t wv_dconst(wv_dec *d, uint64_t v);
int wv_daddr(wv_dec *d, const ptx_operand *o, wv_insn *in);     /* fills a/imm/space/addrf */
const wv_decl *wv_dlookup(wv_dec *d, const char *name);
uint32_t wv_dcc(wv_dec *d);                                     /* the carry-flag slot */
int wv_dec_matrix(wv_dec *d, const ptx_insn *pi, wv_insn *in); /* mma wmma ldmatrix stmatrix movmatrix (decode_mma.c) */
void wv_dlog(wv_dec *d, uint32_t entry);                        /* register | WV_DU_DEF, or WV_DU_CC */

/* the static .shared layout of every kernel (shared.c), once every function has its index */
int wv_dshared_layout(wv_dec *d);

/* families (decode_ops.c) */
int wv_decode_insn(wv_dec *d, const ptx_insn *pi, wv_insn *in);
int wv_mods_take(wv_mods *m, const char *w);

#endif
