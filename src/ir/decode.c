/*
 * decode.c — AST → IR, module and function level: links the units of a module (.extern names of
 * one unit resolved to another's .visible/.weak definitions, other names kept per unit), places
 * module .global/.const variables in device memory with their initializers, lays out .shared,
 * builds each function's parameter layout, register slots (scoped), constants, labels and code
 * (instruction families are in decode_ops.c), then computes reconvergence points (cfg.c).
 * Operand resolution lives here. Every error is "FILE:LINE:COL: error: ..." and stops the load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/decode_int.h"
#include "ptx/arena.h"

int wv_derr(wv_dec *d, ptx_loc loc, const char *fmt, ...) {
  if (d->failed) return -1;
  char msg[1024];
  int n = snprintf(msg, sizeof msg, "%s:%u:%u: error: ", d->ast->filename ? d->ast->filename : "<ptx>", loc.line, loc.col);
  if (n < 0 || (size_t)n >= sizeof msg) n = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
  va_end(ap);
  /* Valid PTX that warpvm cannot run makes only the kernels that reach it unlaunchable: the
   * function keeps the message and the instruction becomes a placeholder (see emit). */
  if (d->in_insn && !strncmp(fmt, "unsupported", 11)) {
    d->unsup = 1;
    if (!d->fn->unsupported) d->fn->unsupported = ptx_arena_intern_cstr(d->ast->arena, msg);
    return -1;
  }
  d->failed = 1;
  snprintf(d->err, d->errlen, "%s", msg);
  return -1;
}

int wv_dgrow(void **p, uint32_t *cap, uint32_t need, size_t el) {
  if (need <= *cap) return 0;
  uint32_t nc = *cap ? *cap : 16;
  while (nc < need) nc *= 2;
  void *np = realloc(*p, (size_t)nc * el);
  if (!np) return -1;
  *p = np;
  *cap = nc;
  return 0;
}

static uint32_t elem_size(const ptx_var *v) {
  wv_type t = wv_type_parse(v->type);
  uint32_t s = wv_type_size(t);
  return t == WV_T_PRED ? 1 : s;
}

/* A call instruction's argument map (decode_ops.c allocates it). */
static void free_callinfo(wv_insn *in) {
  if (in->op == WV_OP_MMA || in->op == WV_OP_WMMA || in->op == WV_OP_LDMATRIX || in->op == WV_OP_STMATRIX ||
      in->op == WV_OP_WGMMA) {
    free(in->aux); /* a matrix instruction's wv_mma_aux or wv_wgmma_aux (decode_mma.c) */
    in->aux = NULL;
    return;
  }
  wv_callinfo *ci = in->op == WV_OP_CALL ? in->aux : NULL;
  if (!ci) return;
  free(ci->arg_off);
  free(ci->arg_size);
  free(ci->ret_off);
  free(ci->ret_size);
  free(ci->targets);
  free(ci);
  in->aux = NULL;
}

/* ---------------- names ---------------- */

static int declare(wv_dec *d, const char *name, wv_decl dl) {
  if (wv_dgrow((void **)&d->decls, &d->capdecls, d->ndecls + 1, sizeof *d->decls)) return -1;
  d->decls[d->ndecls] = dl;
  return wv_symtab_put(&d->names, name, d->ndecls++);
}

const wv_decl *wv_dlookup(wv_dec *d, const char *name) {
  int64_t v;
  if (wv_symtab_get(&d->names, name, &v)) return &d->decls[v];
  /* %r12 under a range declaration %r<N> */
  size_t n = strlen(name), k = n;
  while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9') k--;
  if (k == n || k == 0 || n - k > 9) goto module;
  {
    const char *prefix = ptx_arena_intern(d->ast->arena, name, k);
    if (prefix && wv_symtab_get(&d->names, prefix, &v)) {
      const wv_decl *dl = &d->decls[v];
      unsigned long idx = strtoul(name + k, NULL, 10);
      if ((dl->kind == K_RANGE_REG || dl->kind == K_RANGE_PRED) && idx < dl->range && !(name[k] == '0' && n - k > 1)) {
        d->scratch = *dl;
        d->scratch.kind = dl->kind == K_RANGE_REG ? K_REG : K_PRED;
        d->scratch.base = dl->base + (uint32_t)idx;
        return &d->scratch;
      }
    }
  }
module:
  if (wv_symtab_get(d->modsyms, name, &v)) {
    d->scratch = (wv_decl){.kind = (uint8_t)(v >> 32), .base = (uint32_t)v};
    return &d->scratch;
  }
  return NULL;
}

/* ---------------- constants and operands ---------------- */

uint32_t wv_dconst(wv_dec *d, uint64_t v) {
  for (uint32_t i = d->nconsts; i-- > 0 && i + 64 >= d->nconsts;) /* recent ones: cheap dedupe */
    if (d->consts[i] == v) return WV_SLOT(WV_SLOT_CONST, i);
  if (wv_dgrow((void **)&d->consts, &d->capconsts, d->nconsts + 1, sizeof *d->consts)) return WV_NOSLOT;
  d->consts[d->nconsts] = v;
  return WV_SLOT(WV_SLOT_CONST, d->nconsts++);
}

/* Logs a register the instruction being decoded reads or writes (for contract.c); out of memory fails
 * the module. */
void wv_dlog(wv_dec *d, uint32_t entry) {
  if (!d->in_insn) return;
  if (wv_dgrow((void **)&d->du, &d->capdu, d->ndu + 1, sizeof *d->du)) { d->failed = 1; return; }
  d->du[d->ndu++] = entry;
}

uint32_t wv_dcc(wv_dec *d) {
  if (d->cc_slot == WV_NOSLOT) d->cc_slot = WV_SLOT(WV_SLOT_REG, d->fn->nregs++);
  wv_dlog(d, WV_DU_CC);
  return d->cc_slot;
}

/* Every special register of the PTX ISA (chapter 10, up to sm_90's) as an H100 gives it for a launch
 * without clusters. Most are warp specials the launch fills (sched.c warp_init); the ones an H100 gives the
 * same value in every launch are constants (what ptxas makes of them for sm_90: immediates, or words of the
 * driver's constant bank that an H100 filled so, tests/memprobe/golden/memprobe_info.out); the clocks are
 * read when the instruction runs (h_mov.c). */
static const struct { const char *name; uint8_t kind; uint32_t v; } specials[] = {
  {"%tid.x", WV_SREG_SLOT, WV_SP_TID_X}, {"%tid.y", WV_SREG_SLOT, WV_SP_TID_Y}, {"%tid.z", WV_SREG_SLOT, WV_SP_TID_Z},
  {"%ntid.x", WV_SREG_SLOT, WV_SP_NTID_X}, {"%ntid.y", WV_SREG_SLOT, WV_SP_NTID_Y}, {"%ntid.z", WV_SREG_SLOT, WV_SP_NTID_Z},
  {"%ctaid.x", WV_SREG_SLOT, WV_SP_CTAID_X}, {"%ctaid.y", WV_SREG_SLOT, WV_SP_CTAID_Y}, {"%ctaid.z", WV_SREG_SLOT, WV_SP_CTAID_Z},
  {"%nctaid.x", WV_SREG_SLOT, WV_SP_NCTAID_X}, {"%nctaid.y", WV_SREG_SLOT, WV_SP_NCTAID_Y},
  {"%nctaid.z", WV_SREG_SLOT, WV_SP_NCTAID_Z},
  {"%laneid", WV_SREG_SLOT, WV_SP_LANEID}, {"%warpid", WV_SREG_SLOT, WV_SP_WARPID}, {"%nwarpid", WV_SREG_SLOT, WV_SP_NWARPID},
  {"%smid", WV_SREG_SLOT, WV_SP_SMID}, {"%nsmid", WV_SREG_SLOT, WV_SP_NSMID}, {"%gridid", WV_SREG_SLOT, WV_SP_GRIDID},
  {"%lanemask_eq", WV_SREG_SLOT, WV_SP_LANEMASK_EQ}, {"%lanemask_lt", WV_SREG_SLOT, WV_SP_LANEMASK_LT},
  {"%lanemask_le", WV_SREG_SLOT, WV_SP_LANEMASK_LE}, {"%lanemask_gt", WV_SREG_SLOT, WV_SP_LANEMASK_GT},
  {"%lanemask_ge", WV_SREG_SLOT, WV_SP_LANEMASK_GE},
  {"%dynamic_smem_size", WV_SREG_SLOT, WV_SP_DYN_SMEM}, {"%total_smem_size", WV_SREG_SLOT, WV_SP_TOTAL_SMEM},
  {"%aggr_smem_size", WV_SREG_SLOT, WV_SP_AGGR_SMEM}, /* the CTA's and the reserved 1 KiB */
  /* the region the GPU reserves below a CTA's shared variables (sm_90: from 0; ptxas makes begin, cap and
   * offset_0 immediates, end and offset_1 the driver's words, which are %envreg10 and %envreg11) */
  {"%reserved_smem_offset_begin", WV_SREG_CONST, 0}, {"%reserved_smem_offset_end", WV_SREG_CONST, WV_RESERVED_SMEM_END},
  {"%reserved_smem_offset_cap", WV_SREG_CONST, WV_SHARED_BASE}, {"%reserved_smem_offset_0", WV_SREG_CONST, 0},
  {"%reserved_smem_offset_1", WV_SREG_CONST, 0},
  /* the CTA's cluster (exec/cluster.c; a launch without clusters: every CTA a cluster of one) */
  {"%cluster_ctarank", WV_SREG_SLOT, WV_SP_CLUSTER_CTARANK}, {"%cluster_nctarank", WV_SREG_SLOT, WV_SP_CLUSTER_NCTARANK},
  {"%cluster_ctaid.x", WV_SREG_SLOT, WV_SP_CLUSTER_CTAID_X}, {"%cluster_ctaid.y", WV_SREG_SLOT, WV_SP_CLUSTER_CTAID_Y},
  {"%cluster_ctaid.z", WV_SREG_SLOT, WV_SP_CLUSTER_CTAID_Z},
  {"%cluster_nctaid.x", WV_SREG_SLOT, WV_SP_CLUSTER_NCTAID_X}, {"%cluster_nctaid.y", WV_SREG_SLOT, WV_SP_CLUSTER_NCTAID_Y},
  {"%cluster_nctaid.z", WV_SREG_SLOT, WV_SP_CLUSTER_NCTAID_Z},
  {"%clusterid.x", WV_SREG_SLOT, WV_SP_CLUSTERID_X}, {"%clusterid.y", WV_SREG_SLOT, WV_SP_CLUSTERID_Y},
  {"%clusterid.z", WV_SREG_SLOT, WV_SP_CLUSTERID_Z},
  {"%nclusterid.x", WV_SREG_SLOT, WV_SP_NCLUSTERID_X}, {"%nclusterid.y", WV_SREG_SLOT, WV_SP_NCLUSTERID_Y},
  {"%nclusterid.z", WV_SREG_SLOT, WV_SP_NCLUSTERID_Z},
  {"%current_graph_exec", WV_SREG_CONST, 0}, /* 0: not a device graph's kernel */
  {"%clock", WV_SREG_DYN, WV_DYN_CLOCK}, {"%clock_hi", WV_SREG_DYN, WV_DYN_CLOCK_HI},
  {"%clock64", WV_SREG_DYN, WV_DYN_CLOCK64}, {"%globaltimer", WV_SREG_DYN, WV_DYN_GLOBALTIMER},
  {"%globaltimer_lo", WV_SREG_DYN, WV_DYN_GLOBALTIMER_LO}, {"%globaltimer_hi", WV_SREG_DYN, WV_DYN_GLOBALTIMER_HI},
};

/* "%NAMEk" or "%NAMEk_64" for k in 0..n-1, no leading zeros: k, else -1. */
static int numbered(const char *name, const char *stem, int n, const char *tail) {
  size_t ls = strlen(stem);
  if (strncmp(name, stem, ls) || name[ls] < '0' || name[ls] > '9') return -1;
  const char *p = name + ls;
  int k = *p++ - '0';
  if (k && *p >= '0' && *p <= '9') k = k * 10 + (*p++ - '0');
  return k < n && !strcmp(p, tail) ? k : -1;
}

int wv_dsreg(const char *name, wv_sreg *out) {
  for (size_t i = 0; i < sizeof specials / sizeof *specials; i++)
    if (!strcmp(name, specials[i].name)) {
      *out = (wv_sreg){specials[i].kind, specials[i].v};
      return 0;
    }
  /* %envreg0..31: driver-defined (read-only .b32). On sm_90 they are the driver's constant-bank words
   * 0x40 + 4k: CUDA's driver puts the cooperative grid workspace's address in envreg1 (high) : envreg2
   * (low) (cooperative_groups' driver_abi.h), which a cooperative launch sets (sched.c) and every other
   * reads as 0; envreg10 and envreg11 are the words ptxas reads %reserved_smem_offset_end and _1 from. */
  int k = numbered(name, "%envreg", 32, "");
  if (k >= 0) {
    *out = k == 1 ? (wv_sreg){WV_SREG_SLOT, WV_SP_ENVREG1} : k == 2 ? (wv_sreg){WV_SREG_SLOT, WV_SP_ENVREG2}
           : (wv_sreg){WV_SREG_CONST, k == 10 ? WV_RESERVED_SMEM_END : 0};
    return 0;
  }
  /* %pm0..7, %pm0_64..%pm7_64: performance monitor counters, "behavior currently undefined": 0 */
  if (numbered(name, "%pm", 8, "") >= 0 || numbered(name, "%pm", 8, "_64") >= 0) {
    *out = (wv_sreg){WV_SREG_CONST, 0};
    return 0;
  }
  return -1;
}

/* Immediate bits as an operand of type t (a decimal/double literal used as .f32 is narrowed). */
static uint64_t imm_bits(const ptx_operand *o, wv_type t) {
  if (o->kind == PTX_OPND_F64 && t == WV_T_F32) {
    double v;
    memcpy(&v, &o->ival, 8);
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
  }
  if (o->kind == PTX_OPND_F32 && t == WV_T_F64) {
    float f;
    uint32_t u = (uint32_t)o->ival;
    memcpy(&f, &u, 4);
    double v = f;
    uint64_t r;
    memcpy(&r, &v, 8);
    return r;
  }
  return o->ival;
}

/* Address of a module variable or function as a value. */
static int sym_value(wv_dec *d, const wv_decl *dl, uint64_t *v) {
  if (dl->kind == K_FUNC) {
    d->mod->funcs[dl->base].addr_taken = 1;
    *v = WV_FUNC_ADDR_TAG | dl->base;
    return 0;
  }
  if (dl->kind != K_GVAR) return -1;
  const wv_gvar *g = &d->mod->vars[dl->base];
  *v = g->addr;
  return 0;
}

/* A .shared variable whose offset differs between kernels: the special slot with the running kernel's. */
static uint32_t shared_slot(wv_dec *d, const wv_decl *dl) {
  return dl->kind == K_GVAR && d->mod->vars[dl->base].space == WV_SPACE_SHARED ? d->mod->vars[dl->base].slot : WV_NOSLOT;
}

uint32_t wv_dsrc(wv_dec *d, const ptx_operand *o, wv_type t) {
  switch (o->kind) {
  case PTX_OPND_INT:
  case PTX_OPND_F32:
  case PTX_OPND_F64:
    return wv_dconst(d, imm_bits(o, t));
  case PTX_OPND_REG:
  case PTX_OPND_SYM: {
    wv_sreg sr;
    if (!wv_dsreg(o->name, &sr)) {
      if (sr.kind == WV_SREG_SLOT) {
        d->mod->sp_read |= 1ull << sr.v;
        return WV_SLOT(WV_SLOT_SPECIAL, sr.v);
      }
      if (sr.kind == WV_SREG_CONST) return wv_dconst(d, sr.v);
      wv_derr(d, o->loc, "special register '%s' can only be read with mov", o->name);
      return WV_NOSLOT;
    }
    if (!strcmp(o->name, "WARP_SZ")) return wv_dconst(d, 32); /* PTX's predefined warp-size constant */
    const wv_decl *dl = wv_dlookup(d, o->name);
    if (!dl) {
      wv_derr(d, o->loc, "use of undeclared %s '%s'", o->kind == PTX_OPND_REG ? "register" : "identifier", o->name);
      return WV_NOSLOT;
    }
    if (dl->kind == K_REG) {
      wv_dlog(d, dl->base);
      return WV_SLOT(WV_SLOT_REG, dl->base);
    }
    if (dl->kind == K_PRED) { wv_derr(d, o->loc, "predicate '%s' used where a value is expected", o->name); return WV_NOSLOT; }
    uint64_t v;
    if (shared_slot(d, dl) != WV_NOSLOT) return shared_slot(d, dl);
    if (!sym_value(d, dl, &v)) return wv_dconst(d, v);
    wv_derr(d, o->loc, "'%s' cannot be used as a value here", o->name);
    return WV_NOSLOT;
  }
  default:
    wv_derr(d, o->loc, "expected a register or immediate operand");
    return WV_NOSLOT;
  }
}

uint32_t wv_ddst(wv_dec *d, const ptx_operand *o) {
  if (o->kind != PTX_OPND_REG && o->kind != PTX_OPND_SYM) {
    wv_derr(d, o->loc, "expected a destination register");
    return WV_NOSLOT;
  }
  const wv_decl *dl = wv_dlookup(d, o->name);
  if (!dl) { wv_derr(d, o->loc, "use of undeclared register '%s'", o->name); return WV_NOSLOT; }
  if (dl->kind != K_REG) { wv_derr(d, o->loc, "'%s' is not a writable value register", o->name); return WV_NOSLOT; }
  wv_dlog(d, dl->base | WV_DU_DEF);
  return WV_SLOT(WV_SLOT_REG, dl->base);
}

int32_t wv_dpred(wv_dec *d, const ptx_operand *o, uint8_t *neg) {
  if (neg) *neg = o->neg;
  if (o->kind != PTX_OPND_REG && o->kind != PTX_OPND_SYM) { wv_derr(d, o->loc, "expected a predicate register"); return -1; }
  const wv_decl *dl = wv_dlookup(d, o->name);
  if (!dl) { wv_derr(d, o->loc, "use of undeclared predicate '%s'", o->name); return -1; }
  if (dl->kind != K_PRED) { wv_derr(d, o->loc, "'%s' is not a predicate", o->name); return -1; }
  return (int32_t)dl->base;
}

/* [base+off]: fills in->a (base slot or WV_NOSLOT), in->imm, and may refine in->space. */
static int daddr(wv_dec *d, const ptx_operand *o, wv_insn *in) {
  if (o->kind != PTX_OPND_ADDR) return wv_derr(d, o->loc, "expected an address operand [..]");
  in->imm = o->offset;
  in->a = WV_NOSLOT;
  if (!o->name) return 0; /* [imm] */
  const wv_decl *dl = wv_dlookup(d, o->name);
  if (!dl) return wv_derr(d, o->loc, "use of undeclared identifier '%s' in address", o->name);
  switch (dl->kind) {
  case K_REG: {
    in->a = WV_SLOT(WV_SLOT_REG, dl->base);
    wv_dlog(d, dl->base);
    if (wv_type_size(dl->type) == 4) in->addrf |= WV_AF_ADDR32;
    /* ld.param [%rd] in a kernel: %rd holds a kernel parameter's address (mov %rd, param). */
    if (in->space == WV_SPACE_FPARAM && d->fn->is_entry) in->space = WV_SPACE_KPARAM;
    return 0;
  }
  case K_LOCALVAR:
    if (in->space != WV_SPACE_LOCAL && in->space != WV_SPACE_GENERIC)
      return wv_derr(d, o->loc, "'%s' is a .local variable", o->name);
    in->space = WV_SPACE_LOCAL;
    in->imm += (int64_t)dl->off;
    in->addrf |= WV_AF_LOCALBASE;
    return 0;
  case K_FPARAM:
    in->space = WV_SPACE_FPARAM;
    in->imm += (int64_t)dl->off;
    return 0;
  case K_KPARAM:
    in->space = WV_SPACE_KPARAM;
    in->imm += (int64_t)dl->off;
    return 0;
  case K_GVAR: {
    const wv_gvar *g = &d->mod->vars[dl->base];
    if (g->space == WV_SPACE_SHARED) {
      if (in->space != WV_SPACE_GENERIC && in->space != WV_SPACE_SHARED && in->space != WV_SPACE_CLUSTER) return wv_derr(d, o->loc, "'%s' is a .shared variable", o->name);
      if (in->space == WV_SPACE_GENERIC) in->imm += (int64_t)WV_SHARED_WINDOW;
      /* (a .shared address is 32 bits: so is its base, none or the kernel's offset; the JIT's inline check asks) */
      if (in->space == WV_SPACE_SHARED) in->addrf |= WV_AF_ADDR32;
      if (g->slot != WV_NOSLOT) { in->a = g->slot; return 0; } /* [var+off]: the running kernel's offset */
    }
    in->imm += (int64_t)g->addr;
    return 0;
  }
  default:
    return wv_derr(d, o->loc, "'%s' cannot be used as an address", o->name);
  }
}

/* An address operand; in a state space whose addresses are 32 bits wide the sum wraps (WV_AF_WRAP32). */
int wv_daddr(wv_dec *d, const ptx_operand *o, wv_insn *in) {
  int rc = daddr(d, o, in);
  if (!rc && (in->space == WV_SPACE_SHARED || in->space == WV_SPACE_LOCAL || in->space == WV_SPACE_KPARAM ||
              in->space == WV_SPACE_FPARAM || in->space == WV_SPACE_CLUSTER))
    in->addrf |= WV_AF_WRAP32;
  return rc;
}

/* Extern functions warpvm implements (builtins.def). */
static int builtin_of(const char *name) { return wv_builtin_lookup(name); }

/* ---------------- linking ----------------
 * A module is one or more units (one per translation unit of `nvcc -rdc=true`). Each unit has its
 * own name table (unitsyms), so names that are not visible stay the unit's own (`$str` in every
 * unit). Visible and weak definitions are also entered in one global table first (collect_unit),
 * a strong definition replacing weak ones; a unit whose weak definition lost keeps no copy of it,
 * and link_unit binds its references, and every unit's .extern declarations, to the winner. */

static void set_unit(wv_dec *d, uint32_t u) {
  d->unit = u;
  d->ast = d->units[u];
  d->modsyms = &d->unitsyms[u];
}

/* The link table entry of a name, or NULL (d->failed when out of memory). */
static wv_linksym *link_get(wv_dec *d, const char *name, const char **key) {
  const char *k = ptx_arena_intern_cstr(d->linknames, name);
  if (key) *key = k;
  if (!k) {
    wv_derr(d, (ptx_loc){1, 1}, "out of memory");
    return NULL;
  }
  int64_t i;
  return wv_symtab_get(&d->global, k, &i) ? &d->link[i] : NULL;
}

/* Enters a visible or weak definition of the current unit in the link table. */
static int link_define(wv_dec *d, const char *name, uint8_t kind, const void *item, ptx_loc loc, uint8_t weak) {
  const char *key;
  wv_linksym *s = link_get(d, name, &key);
  if (!key) return -1;
  if (!s) {
    if (wv_dgrow((void **)&d->link, &d->caplink, d->nlink + 1, sizeof *d->link) ||
        wv_symtab_put(&d->global, key, d->nlink))
      return wv_derr(d, loc, "out of memory");
    d->link[d->nlink++] = (wv_linksym){.unit = d->unit, .kind = kind, .weak = weak, .item = item, .loc = loc, .val = -1};
    return 0;
  }
  if (s->unit == d->unit) { /* two in one unit: decoding the unit says which is a redefinition */
    s->weak &= weak;
    return 0;
  }
  if (s->kind != kind || (!weak && !s->weak))
    return wv_derr(d, loc, "duplicate definition of '%s' (first defined at %s:%u:%u)", name,
                   d->units[s->unit]->filename, s->loc.line, s->loc.col);
  if (!weak) *s = (wv_linksym){.unit = d->unit, .kind = kind, .weak = 0, .item = item, .loc = loc, .val = -1};
  return 0;
}

/* Pass 1: the current unit's visible and weak definitions (.shared variables stay the unit's). */
static int collect_unit(wv_dec *d) {
  const ptx_module *a = d->ast;
  for (uint32_t i = 0; i < a->nvars; i++) {
    const ptx_var *v = &a->vars[i];
    if ((v->is_visible || v->is_weak) && !v->is_extern && v->space != PTX_SPACE_SHARED &&
        link_define(d, v->name, K_GVAR, v, v->loc, v->is_weak))
      return -1;
  }
  for (uint32_t i = 0; i < a->nfuncs; i++) {
    const ptx_func *f = &a->funcs[i];
    if ((f->is_visible || f->is_weak) && f->has_body && link_define(d, f->name, K_FUNC, f, f->loc, f->is_weak)) return -1;
  }
  return 0;
}

/* Whether a visible or weak definition of the current unit lost to another unit's. */
static int lost(wv_dec *d, const char *name, int linked) {
  if (!linked) return 0;
  const wv_linksym *s = link_get(d, name, NULL);
  return s && s->unit != d->unit;
}

/* A definition of the current unit was placed as `val`: if it is the one the link chose, every
 * unit's references to the name mean it. */
static int link_chose(wv_dec *d, const char *name, const void *item, int64_t val) {
  wv_linksym *s = link_get(d, name, NULL);
  if (d->failed) return -1;
  if (s && s->item == item) s->val = val;
  return 0;
}

/* Functions of CUDA's device runtime (libcudadevrt: dynamic parallelism, device-side cudaMalloc ...),
 * which nvlink takes from that library (the runtime leaves its PTX unit out): most are builtins
 * (builtins.def); the others are left undefined, so only the kernels that call one are refused (at
 * launch, "unsupported call to external function"). */
static int devrt_function(const char *name) {
  return !strncmp(name, "__cudaCDP", 9) || (!strncmp(name, "cuda", 4) && name[4] >= 'A' && name[4] <= 'Z');
}

/* Binds `name` in the current unit to the link table's definition; 0 if there is none (or it is
 * the unit's own), -1 on error. */
static int bind_extern(wv_dec *d, const char *name, uint8_t kind, ptx_loc loc, int *bound) {
  *bound = 0;
  const wv_linksym *s = link_get(d, name, NULL);
  if (d->failed) return -1;
  if (!s || s->unit == d->unit || s->val < 0) return 0;
  if (s->kind != kind)
    return wv_derr(d, loc, "'%s' is declared as a %s but defined as a %s at %s:%u:%u", name,
                   kind == K_GVAR ? "variable" : "function", kind == K_GVAR ? "function" : "variable",
                   d->units[s->unit]->filename, s->loc.line, s->loc.col);
  *bound = 1;
  return wv_symtab_put(d->modsyms, name, s->val) ? wv_derr(d, loc, "out of memory") : 0;
}

/* Pass 3, once every unit's definitions are placed: the current unit's .extern variables and
 * functions (and the names of its weak definitions that lost) mean other units' definitions. */
static int link_unit(wv_dec *d) {
  const ptx_module *a = d->ast;
  for (uint32_t i = 0; i < a->nvars; i++) {
    const ptx_var *v = &a->vars[i];
    int64_t own;
    int bound;
    if (d->varidx[d->varbase[d->unit] + i] != WV_DEC_NONE || v->space == PTX_SPACE_SHARED) continue;
    if (wv_symtab_get(d->modsyms, v->name, &own)) continue; /* defined in this unit */
    if (bind_extern(d, v->name, K_GVAR, v->loc, &bound)) return -1;
    if (bound) continue;
    if (d->linking) return wv_derr(d, v->loc, "undefined reference to '%s'", v->name);
    return wv_derr(d, v->loc, "external variable '%s' is not defined in this module", v->name);
  }
  for (uint32_t i = 0; i < a->nfuncs; i++) {
    const ptx_func *pf = &a->funcs[i];
    int64_t own;
    int bound;
    if (pf->has_body && d->funcidx[d->funcbase[d->unit] + i] != WV_DEC_NONE) continue;
    if (!pf->is_extern && !pf->is_visible && !pf->is_weak) continue; /* a unit's own prototype */
    if (wv_symtab_get(d->modsyms, pf->name, &own) && (own >> 32) == K_FUNC && d->mod->funcs[(uint32_t)own].defined)
      continue;
    if (bind_extern(d, pf->name, K_FUNC, pf->loc, &bound)) return -1;
    if (bound || !d->linking || builtin_of(pf->name) || devrt_function(pf->name)) continue;
    return wv_derr(d, pf->loc, "undefined reference to '%s'", pf->name);
  }
  return 0;
}

/* ---------------- module variables ---------------- */

static int var_space(ptx_space s) {
  switch (s) {
  case PTX_SPACE_GLOBAL: return WV_SPACE_GLOBAL;
  case PTX_SPACE_CONST: return WV_SPACE_CONST;
  case PTX_SPACE_SHARED: return WV_SPACE_SHARED;
  case PTX_SPACE_LOCAL: return WV_SPACE_LOCAL;
  default: return -1;
  }
}

/* Append variable v to an area of *used bytes (aligned, at most `limit`); returns its offset and size. */
static int place(wv_dec *d, const ptx_var *v, wv_type t, uint32_t *used, uint32_t *max_align, uint32_t limit,
                 uint64_t *off, uint64_t *size) {
  uint32_t es = wv_type_size(t) * (v->vec ? v->vec : 1);
  uint32_t al = v->align ? v->align : es ? es : 1;
  if (al & (al - 1)) return wv_derr(d, v->loc, "bad alignment %u for '%s'", al, v->name);
  *size = (uint64_t)es * v->nelems;
  *off = ((uint64_t)*used + al - 1) & ~(uint64_t)(al - 1);
  if (*off + *size > limit) return wv_derr(d, v->loc, "'%s' does not fit in its state space (%u bytes)", v->name, limit);
  *used = (uint32_t)(*off + *size);
  if (al > *max_align) *max_align = al;
  return 0;
}

/* A .shared variable's size and alignment; its offsets are chosen per kernel once every function is
 * known (shared.c). An unsized one (`extern .shared`) is the dynamic area. */
static int place_shared(wv_dec *d, const ptx_var *v, wv_gvar *g) {
  wv_type t = wv_type_parse(v->type);
  uint32_t es = wv_type_size(t) * (v->vec ? v->vec : 1), al = v->align ? v->align : es ? es : 1;
  if (al & (al - 1)) return wv_derr(d, v->loc, "bad alignment %u for '%s'", al, v->name);
  g->align = al;
  g->addr = 0;
  g->slot = WV_NOSLOT;
  g->is_extern_shared = v->unsized;
  g->size = v->unsized ? 0 : (uint64_t)es * v->nelems;
  if (g->size > ((uint64_t)1 << 32)) return wv_derr(d, v->loc, "'%s' does not fit in shared memory", v->name);
  return 0;
}

/* A .managed variable (__managed__) lives in host memory the vm owns, mapped at its own address,
 * so the host can dereference the address wv_module_symbol gives. */
static int place_managed(wv_dec *d, const ptx_var *v, wv_gvar *g) {
  uint64_t al = g->align > 16 ? g->align : 16, size = g->size ? g->size : 1;
  if (al & (al - 1)) return wv_derr(d, v->loc, "bad alignment %u for '%s'", g->align, v->name);
  if (size > ((uint64_t)1 << 40)) return wv_derr(d, v->loc, "out of device memory for '%s'", v->name);
  uint64_t cap = (size + al - 1) & ~(al - 1);
  void *host = aligned_alloc((size_t)al, (size_t)cap);
  if (!host) return wv_derr(d, v->loc, "out of host memory for managed variable '%s'", v->name);
  memset(host, 0, (size_t)cap);
  const char *why;
  if (wv_heap_map(&d->vm->heap, host, size, WV_ALLOC_MANAGED, &why)) {
    free(host);
    return wv_derr(d, v->loc, "cannot map managed variable '%s': %s", v->name, why);
  }
  g->addr = (uint64_t)(uintptr_t)host;
  return 0;
}

static int init_var(wv_dec *d, const ptx_var *v, const wv_gvar *g) {
  if (!v->ninit) return 0;
  uint32_t es = elem_size(v);
  wv_type t = wv_type_parse(v->type);
  uint8_t *host = wv_heap_lookup(&d->vm->heap, g->addr, g->size);
  if (!host) return wv_derr(d, v->loc, "internal: variable '%s' not placed", v->name);
  uint64_t n = g->size / (es ? es : 1);
  if (v->ninit > n) return wv_derr(d, v->loc, "too many initializers for '%s'", v->name);
  for (uint32_t i = 0; i < v->ninit; i++) {
    const ptx_init *it = &v->init[i];
    uint64_t bits = it->bits;
    if (it->kind == PTX_INIT_SYM || it->kind == PTX_INIT_GENERIC) {
      const wv_decl *dl = wv_dlookup(d, it->sym);
      if (dl && dl->kind == K_FUNC) { /* a function-pointer table (vtables): its address as data */
        sym_value(d, dl, &bits);
        memcpy(host + (uint64_t)i * es, &bits, es);
        continue;
      }
      if (!dl || dl->kind != K_GVAR) return wv_derr(d, v->loc, "initializer of '%s' names '%s', which is not a variable", v->name, it->sym);
      const wv_gvar *s = &d->mod->vars[dl->base];
      uint64_t a = (s->space == WV_SPACE_SHARED && it->kind == PTX_INIT_GENERIC ? s->addr + WV_SHARED_WINDOW : s->addr) +
                   (uint64_t)it->off;
      /* a byte mask (`0xFF00(generic(gv)+4)`, nvcc's packed structs): that byte of the address */
      bits = it->bits ? (a & it->bits) >> __builtin_ctzll(it->bits) : a;
    } else if (it->kind == PTX_INIT_F64 && t == WV_T_F32) {
      ptx_operand o = {.kind = PTX_OPND_F64, .ival = bits};
      bits = imm_bits(&o, t);
    } else if (it->kind == PTX_INIT_F32 && t == WV_T_F64) {
      ptx_operand o = {.kind = PTX_OPND_F32, .ival = bits};
      bits = imm_bits(&o, t);
    }
    memcpy(host + (uint64_t)i * es, &bits, es);
  }
  return 0;
}

/* Initializers run once every variable and function has its address (they may name any). */
static int init_vars(wv_dec *d) {
  for (uint32_t u = 0; u < d->nunits; u++) {
    set_unit(d, u);
    for (uint32_t i = 0; i < d->ast->nvars; i++) {
      const ptx_var *v = &d->ast->vars[i];
      uint32_t idx = d->varidx[d->varbase[u] + i];
      if (v->ninit && idx != WV_DEC_NONE && init_var(d, v, &d->mod->vars[idx])) return -1;
    }
  }
  return 0;
}

/* The current unit's module-scope variables: checks every declaration, places every definition (a
 * .extern, or a weak definition another unit's replaces, is left to link_unit). */
static int decode_vars(wv_dec *d) {
  const ptx_module *a = d->ast;
  wv_irmod *m = d->mod;
  for (uint32_t i = 0; i < a->nvars; i++) {
    const ptx_var *v = &a->vars[i];
    int sp = var_space(v->space);
    if (sp < 0 || sp == WV_SPACE_LOCAL) return wv_derr(d, v->loc, "unsupported module-scope variable space for '%s'", v->name);
    if (wv_type_parse(v->type) == WV_T_NONE) return wv_derr(d, v->loc, "unknown type '.%s'", v->type);
    if (sp != WV_SPACE_SHARED && (v->is_extern || lost(d, v->name, v->is_visible | v->is_weak))) continue;
    int64_t prev;
    if (wv_symtab_get(d->modsyms, v->name, &prev)) {
      if (v->is_extern) continue; /* a declaration of something defined here */
      return wv_derr(d, v->loc, "redefinition of '%s'", v->name);
    }
    wv_gvar *g = &m->vars[m->nvars];
    g->name = v->name;
    g->space = sp;
    g->slot = WV_NOSLOT;
    if (sp == WV_SPACE_SHARED) {
      if (place_shared(d, v, g)) return -1;
    } else {
      uint32_t es = elem_size(v) * (v->vec ? v->vec : 1);
      uint64_t size = (uint64_t)es * v->nelems;
      if (v->unsized && !v->ninit) return wv_derr(d, v->loc, "variable '%s' has no size", v->name);
      g->align = v->align ? v->align : es;
      g->size = size;
      if (v->is_managed) {
        if (sp != WV_SPACE_GLOBAL) return wv_derr(d, v->loc, "'.attribute(.managed)' on '%s', which is not .global", v->name);
        if (place_managed(d, v, g)) return -1;
      } else if (wv_heap_alloc_kind(&d->vm->heap, size ? size : 1, g->align, WV_ALLOC_MODULE, &g->addr)) {
        return wv_derr(d, v->loc, "out of device memory for '%s'", v->name);
      }
    }
    int64_t val = ((int64_t)K_GVAR << 32) | m->nvars;
    if (wv_symtab_put(d->modsyms, v->name, val)) return -1;
    if (sp != WV_SPACE_SHARED && (v->is_visible || v->is_weak) && link_chose(d, v->name, v, val)) return -1;
    d->varidx[d->varbase[d->unit] + i] = m->nvars++;
  }
  /* function-scope .shared variables: entered now, laid out with the module's per kernel (shared.c) */
  for (uint32_t f = 0; f < a->nfuncs; f++) {
    const ptx_func *pf = &a->funcs[f];
    if (pf->has_body && lost(d, pf->name, pf->is_visible | pf->is_weak)) continue; /* never decoded */
    for (uint32_t i = 0; i < pf->nshared; i++) {
      const ptx_var *v = &pf->shared[i];
      if (wv_type_parse(v->type) == WV_T_NONE) return wv_derr(d, v->loc, "unknown type '.%s'", v->type);
      wv_gvar *g = &m->vars[m->nvars];
      g->name = v->name;
      g->space = WV_SPACE_SHARED;
      if (place_shared(d, v, g)) return -1;
      if (wv_symtab_put(&d->fnshared, v, m->nvars)) return -1;
      m->nvars++;
    }
  }
  return d->failed ? -1 : 0;
}

/* ---------------- functions ---------------- */

static int layout_params(wv_dec *d, const ptx_var *vs, uint32_t n, wv_param **out, uint32_t *off) {
  *out = calloc(n + 1, sizeof **out);
  if (!*out) return wv_derr(d, (ptx_loc){1, 1}, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    const ptx_var *v = &vs[i];
    wv_type t = wv_type_parse(v->type);
    if (t == WV_T_NONE || t == WV_T_PRED) return wv_derr(d, v->loc, "unsupported parameter type '.%s'", v->type);
    uint32_t es = wv_type_size(t) * (v->vec ? v->vec : 1);
    uint32_t al = v->align ? v->align : es;
    if (al == 0 || (al & (al - 1))) return wv_derr(d, v->loc, "bad alignment %u for parameter '%s'", al, v->name);
    uint64_t size = (uint64_t)es * v->nelems;
    if (size > 65536) return wv_derr(d, v->loc, "parameter '%s' is too large", v->name);
    *off = (*off + al - 1) & ~(al - 1);
    (*out)[i] = (wv_param){v->name, t, (uint32_t)size, al, *off};
    *off += (uint32_t)size;
  }
  return 0;
}

static int declare_params(wv_dec *d, const wv_param *ps, uint32_t n, uint8_t kind) {
  for (uint32_t i = 0; i < n; i++)
    if (declare(d, ps[i].name, (wv_decl){.kind = kind, .type = ps[i].type, .off = ps[i].offset, .size = ps[i].size})) return -1;
  return 0;
}

static int body_var(wv_dec *d, const ptx_stmt *st) {
  const ptx_var *v = &st->var;
  wv_type t = wv_type_parse(v->type);
  if (t == WV_T_NONE) return wv_derr(d, v->loc, "unknown type '.%s'", v->type);
  wv_func *f = d->fn;
  switch (v->space) {
  case PTX_SPACE_REG: {
    if (v->vec > 1 || v->is_array) return wv_derr(d, v->loc, "vector or array registers are not supported ('%s')", v->name);
    uint32_t n = v->range ? v->range : 1;
    if (n > (1u << 20)) return wv_derr(d, v->loc, "register range '%s<%u>' is too large", v->name, v->range);
    wv_decl dl = {.type = t, .range = v->range};
    if (t == WV_T_PRED) {
      if (f->npreds + n > (1u << 20)) return wv_derr(d, v->loc, "too many predicate registers");
      dl.kind = v->range ? K_RANGE_PRED : K_PRED;
      dl.base = f->npreds;
      f->npreds += n;
    } else {
      if (f->nregs + n > (1u << 22)) return wv_derr(d, v->loc, "too many registers");
      dl.kind = v->range ? K_RANGE_REG : K_REG;
      dl.base = f->nregs;
      f->nregs += n;
    }
    return declare(d, v->name, dl);
  }
  case PTX_SPACE_LOCAL: {
    uint64_t off, size;
    if (place(d, v, t, &f->local_size, &f->local_align, 256u << 10, &off, &size)) return -1;
    return declare(d, v->name, (wv_decl){.kind = K_LOCALVAR, .type = t, .off = off, .size = (uint32_t)size});
  }
  case PTX_SPACE_PARAM: { /* a call site's argument or return variable, in the frame's param area */
    uint64_t off, size;
    uint32_t al = 0;
    if (place(d, v, t, &f->param_size, &al, 64u << 10, &off, &size)) return -1;
    return declare(d, v->name, (wv_decl){.kind = K_FPARAM, .type = t, .off = off, .size = (uint32_t)size, .align = al,
                                         .is_array = v->is_array});
  }
  case PTX_SPACE_SHARED: { /* function-scope .shared: placed with the module's (decode_vars), the k-th of the body's summary */
    int64_t gi;
    const ptx_var *sv = d->nshared_seen < d->pf->nshared ? &d->pf->shared[d->nshared_seen++] : NULL;
    if (!sv || !wv_symtab_get(&d->fnshared, sv, &gi)) return wv_derr(d, v->loc, "internal: shared variable '%s' not placed", v->name);
    return declare(d, v->name, (wv_decl){.kind = K_GVAR, .type = t, .base = (uint32_t)gi});
  }
  default:
    return wv_derr(d, v->loc, "unsupported declaration of '%s' in a function body", v->name);
  }
}

static int emit(wv_dec *d, const ptx_insn *pi) {
  if (wv_dgrow((void **)&d->code, &d->capcode, d->ncode + 1, sizeof *d->code)) return wv_derr(d, pi->loc, "out of memory");
  wv_insn *in = &d->code[d->ncode];
  memset(in, 0, sizeof *in);
  in->guard = -1;
  in->pd = -1;
  in->a = in->b = in->c = in->e = WV_NOSLOT;
  for (int i = 0; i < 4; i++) in->d[i] = WV_NOSLOT;
  in->rpc = WV_RPC_NONE;
  in->line = pi->loc.line;
  in->src_line = pi->src_line;
  in->src_file = (uint16_t)pi->src_file;
  in->vec = 1;
  if (pi->guard) {
    ptx_operand g = {.kind = PTX_OPND_REG, .loc = pi->loc, .name = pi->guard};
    in->guard = wv_dpred(d, &g, NULL);
    if (in->guard < 0) return -1;
    in->guard_neg = pi->guard_neg;
  }
  uint32_t du0 = d->ndu;
  if (wv_dgrow((void **)&d->dus, &d->capdus, d->ncode + 2, sizeof *d->dus)) return wv_derr(d, pi->loc, "out of memory");
  d->in_insn = 1;
  d->unsup = 0;
  int rc = wv_decode_insn(d, pi, in);
  d->in_insn = 0;
  if (rc) d->ndu = du0; /* a placeholder reads and writes nothing */
  d->dus[d->ncode] = du0;
  d->dus[d->ncode + 1] = d->ndu;
  if (rc) free_callinfo(in); /* a failed instruction keeps nothing */
  if (rc && d->unsup && !d->failed) { /* placeholder: never executed, the launch is refused */
    memset(in, 0, sizeof *in);
    in->op = WV_OP_TRAP;
    in->ctl = WV_CTL_TRAP;
    in->guard = -1;
    in->pd = -1;
    in->line = pi->loc.line;
    in->rpc = WV_RPC_NONE;
    rc = 0;
  }
  if (rc) return -1;
  d->ncode++;
  return 0;
}

/* Branches made since fixup `from` to a label of the innermost open block (depth d->depth) get its instruction;
 * the others wait for an enclosing block (a label is visible in its block and the blocks inside it). */
static void resolve_labels(wv_dec *d, uint32_t from) {
  for (uint32_t i = from; i < d->nfix; i++) {
    int64_t at;
    if (d->fix[i].label && wv_symtab_get(&d->labels, d->fix[i].label, &at) && (uint64_t)at >> 32 == d->depth) {
      d->code[d->fix[i].insn].target = (uint32_t)at;
      d->fix[i].label = NULL;
    }
  }
}

static int decode_body(wv_dec *d) {
  const ptx_func *pf = d->pf;
  ptx_stmt *body;
  uint32_t nbody;
  d->nshared_seen = 0;
  if (ptx_parse_body(d->ast, pf, d->store, &body, &nbody, d->err, d->errlen)) { /* a skimmed body: parse it again */
    d->failed = 1;
    return -1;
  }
  for (uint32_t i = 0; i < nbody; i++) /* prototypes first: a call may name one declared after it */
    if (body[i].kind == PTX_STMT_PROTO) {
      int64_t prev;
      if (wv_symtab_get(&d->protos, body[i].proto->name, &prev))
        return wv_derr(d, body[i].loc, "duplicate label '%s'", body[i].proto->name);
      if (wv_symtab_put(&d->protos, body[i].proto->name, (int64_t)(intptr_t)body[i].proto)) return -1;
    }
  for (uint32_t i = 0; i < nbody; i++) {
    const ptx_stmt *s = &body[i];
    switch (s->kind) {
    case PTX_STMT_INSN:
      if (emit(d, &s->insn)) return -1;
      break;
    case PTX_STMT_LABEL: {
      int64_t prev;
      if (wv_symtab_get(&d->labels, s->label, &prev) && (uint64_t)prev >> 32 == d->depth)
        return wv_derr(d, s->loc, "duplicate label '%s'", s->label);
      if (wv_symtab_put(&d->labels, s->label, (int64_t)((uint64_t)d->depth << 32 | d->ncode))) return -1;
      break;
    }
    case PTX_STMT_VAR:
      if (body_var(d, s)) return -1;
      break;
    case PTX_STMT_SCOPE_OPEN:
      if (wv_symtab_open(&d->names) || wv_symtab_open(&d->labels)) return -1;
      if (d->depth + 1 >= sizeof d->fixbase / sizeof d->fixbase[0]) return wv_derr(d, s->loc, "blocks nested too deeply");
      d->fixbase[++d->depth] = d->nfix;
      break;
    case PTX_STMT_SCOPE_CLOSE:
      resolve_labels(d, d->fixbase[d->depth]); /* the branches to this block's labels, before they go */
      wv_symtab_close(&d->names);
      wv_symtab_close(&d->labels);
      d->depth--;
      break;
    default:
      break;
    }
  }
  /* the last instruction must not fall off the end: an implicit ret, as ptxas assumes */
  ptx_insn ret = {.loc = {pf->loc.line, pf->loc.col}, .opcode = "ret"};
  if (!d->ncode || (d->code[d->ncode - 1].ctl != WV_CTL_RET && d->code[d->ncode - 1].ctl != WV_CTL_EXIT) ||
      d->code[d->ncode - 1].guard >= 0) {
    if (emit(d, &ret)) return -1;
  }
  resolve_labels(d, 0);
  for (uint32_t i = 0; i < d->nfix; i++)
    if (d->fix[i].label) return wv_derr(d, d->fix[i].loc, "branch to unknown label '%s'", d->fix[i].label);
  return 0;
}

static int decode_func(wv_dec *d, const ptx_func *pf, wv_func *f) {
  d->fn = f;
  d->pf = pf;
  d->ndecls = 0;
  d->ncode = d->nconsts = d->nfix = d->ndu = d->depth = 0;
  d->code = NULL;
  d->capcode = 0;
  d->consts = NULL;
  d->capconsts = 0;
  d->cc_slot = WV_NOSLOT;
  wv_symtab_fini(&d->names);
  wv_symtab_fini(&d->labels);
  wv_symtab_fini(&d->protos);
  wv_symtab_init(&d->names);
  wv_symtab_init(&d->labels);
  wv_symtab_init(&d->protos);
  uint32_t off = 0;
  if (f->is_entry) {
    if (layout_params(d, pf->params, pf->nparams, &f->params, &off)) return -1;
    f->nparams = pf->nparams;
    if (declare_params(d, f->params, f->nparams, K_KPARAM)) return -1;
  } else {
    if (layout_params(d, pf->rets, pf->nrets, &f->rets, &off)) return -1;
    f->nrets = pf->nrets;
    if (layout_params(d, pf->params, pf->nparams, &f->params, &off)) return -1;
    f->nparams = pf->nparams;
    f->param_size = off;
    if (declare_params(d, f->rets, f->nrets, K_FPARAM) || declare_params(d, f->params, f->nparams, K_FPARAM)) return -1;
  }
  int rc = decode_body(d);
  ptx_arena_reset(d->store); /* the body's statements */
  if (rc) return -1;
  wv_insn *fit = realloc(d->code, (size_t)d->ncode * sizeof *d->code);
  f->code = fit ? fit : d->code;
  f->ncode = d->ncode;
  d->code = NULL;
  f->nconsts = d->nconsts;
  uint64_t *fitc = realloc(d->consts, ((size_t)d->nconsts + 1) * sizeof *d->consts);
  f->consts = fitc ? fitc : d->consts;
  if (!f->consts) return wv_derr(d, pf->loc, "out of memory");
  d->consts = NULL;
  if (f->nregs == 0) f->nregs = 1;
  f->cc_reg = d->cc_slot == WV_NOSLOT ? 0 : WV_SLOT_INDEX(d->cc_slot) + 1;
  if (d->ncode && wv_contract(f, d->dus, d->du, !(d->vm && d->vm->cfg.no_contract)))
    return wv_derr(d, pf->loc, "out of memory");
  char cerr[512];
  if (wv_cfg_reconvergence(f, cerr, sizeof cerr)) return wv_derr(d, pf->loc, "%s", cerr);
  return 0;
}

/* The decoder's own state (a failed function's partial code and constants included). */
static void dec_fini(wv_dec *d) {
  for (uint32_t i = 0; d->code && i < d->ncode; i++) free_callinfo(&d->code[i]);
  for (uint32_t u = 0; d->unitsyms && u < d->nunits; u++) wv_symtab_fini(&d->unitsyms[u]);
  free(d->unitsyms);
  wv_symtab_fini(&d->global);
  ptx_arena_free(d->linknames);
  ptx_arena_free(d->store);
  free(d->link);
  free(d->varidx);
  free(d->funcidx);
  free(d->varbase);
  free(d->funcbase);
  wv_symtab_fini(&d->fnshared);
  wv_symtab_fini(&d->names);
  wv_symtab_fini(&d->labels);
  wv_symtab_fini(&d->protos);
  free(d->decls);
  free(d->fix);
  free(d->du);
  free(d->dus);
  free(d->code);
  free(d->consts);
  memset(d, 0, sizeof *d);
}

/* The current unit's functions: one table entry per name, a definition replacing a prototype (a
 * weak definition another unit's replaces gets none). */
static int declare_funcs(wv_dec *d) {
  const ptx_module *a = d->ast;
  wv_irmod *out = d->mod;
  for (uint32_t i = 0; i < a->nfuncs; i++) {
    const ptx_func *pf = &a->funcs[i];
    int64_t v;
    uint32_t idx;
    if (pf->has_body && lost(d, pf->name, pf->is_visible | pf->is_weak)) continue;
    if (wv_symtab_get(d->modsyms, pf->name, &v)) {
      if ((v >> 32) != K_FUNC) return wv_derr(d, pf->loc, "'%s' is already declared as a variable", pf->name);
      idx = (uint32_t)v;
      if (pf->has_body && out->funcs[idx].defined) return wv_derr(d, pf->loc, "redefinition of function '%s'", pf->name);
    } else {
      idx = out->nfuncs++;
      if (wv_symtab_put(d->modsyms, pf->name, ((int64_t)K_FUNC << 32) | idx)) return wv_derr(d, pf->loc, "out of memory");
    }
    wv_func *f = &out->funcs[idx];
    f->name = pf->name;
    f->file = a->filename;
    f->src_files = a->files;
    f->nsrc_files = a->nfiles;
    f->is_entry |= pf->is_entry;
    if (pf->has_body) {
      f->defined = 1;
      d->funcidx[d->funcbase[d->unit] + i] = idx;
      if ((pf->is_visible || pf->is_weak) && link_chose(d, pf->name, pf, ((int64_t)K_FUNC << 32) | idx)) return -1;
    } else {
      f->builtin = builtin_of(pf->name);
      if (wv_builtin_flags(f->builtin) & WV_BF_GONE) /* what the GPU's JIT says of CDP1's device-side sync */
        return wv_derr(d, pf->loc, "unsupported function '%s' on sm_90 and later (CUDA dynamic parallelism 2 has no "
                                   "device-side %s; launch the work that follows into cudaStreamTailLaunch)",
                       pf->name, pf->name);
    }
  }
  return d->failed ? -1 : 0;
}

/* The decoder's tables over all units: per-unit name tables, the link table, item → index maps. */
static int dec_init(wv_dec *d, uint64_t *nvars, uint64_t *nfuncs, uint64_t *nshared) {
  uint32_t n = d->nunits;
  d->unitsyms = calloc(n, sizeof *d->unitsyms);
  d->varbase = calloc(n + 1, sizeof *d->varbase);
  d->funcbase = calloc(n + 1, sizeof *d->funcbase);
  d->linknames = ptx_arena_new();
  d->store = ptx_arena_new();
  if (!d->unitsyms || !d->varbase || !d->funcbase || !d->linknames || !d->store) return -1;
  *nvars = *nfuncs = *nshared = 0;
  for (uint32_t u = 0; u < n; u++) {
    const ptx_module *a = d->units[u];
    wv_symtab_init(&d->unitsyms[u]);
    d->varbase[u] = (uint32_t)*nvars;
    d->funcbase[u] = (uint32_t)*nfuncs;
    *nvars += a->nvars;
    *nfuncs += a->nfuncs;
    for (uint32_t f = 0; f < a->nfuncs; f++)
      *nshared += a->funcs[f].nshared;
    if (*nvars + *nshared >= WV_DEC_NONE || *nfuncs >= WV_DEC_NONE) return -1;
  }
  d->varidx = malloc((*nvars + 1) * sizeof *d->varidx);
  d->funcidx = malloc((*nfuncs + 1) * sizeof *d->funcidx);
  if (!d->varidx || !d->funcidx) return -1;
  memset(d->varidx, 0xff, (*nvars + 1) * sizeof *d->varidx); /* WV_DEC_NONE */
  memset(d->funcidx, 0xff, (*nfuncs + 1) * sizeof *d->funcidx);
  return 0;
}

int wv_decode_module(const ptx_module *const *units, uint32_t nunits, const char *name, wv_vm *vm, wv_irmod *out,
                     char *err, size_t errlen) {
  wv_dec dd, *d = &dd;
  memset(d, 0, sizeof *d);
  memset(out, 0, sizeof *out);
  if (!units || !nunits) {
    snprintf(err, errlen, "%s: error: no PTX to load", name ? name : "<ptx>");
    return -1;
  }
  d->units = units;
  d->nunits = nunits;
  d->linking = nunits > 1;
  d->ast = units[0];
  d->vm = vm;
  d->mod = out;
  d->err = err;
  d->errlen = errlen;
  out->filename = ptx_arena_intern_cstr(units[0]->arena, name ? name : units[0]->filename);
  out->version_major = units[0]->version_major;
  out->version_minor = units[0]->version_minor;
  snprintf(out->target, sizeof out->target, "%s", units[0]->target ? units[0]->target : "");
  uint64_t nvars, nfuncs, nshared;
  if (!out->filename || dec_init(d, &nvars, &nfuncs, &nshared)) goto fail;
  for (uint32_t u = 0; u < nunits; u++) {
    set_unit(d, u);
    if (units[u]->address_size == 32) { wv_derr(d, (ptx_loc){1, 1}, ".address_size 32 is not supported"); goto fail; }
    if (collect_unit(d)) goto fail;
  }
  out->vars = calloc(nvars + nshared + 1, sizeof *out->vars);
  out->funcs = calloc(nfuncs + 1, sizeof *out->funcs);
  if (!out->vars || !out->funcs) goto fail;
  for (uint32_t u = 0; u < nunits; u++) {
    set_unit(d, u);
    if (decode_vars(d) || declare_funcs(d)) goto fail;
  }
  for (uint32_t u = 0; u < nunits; u++) {
    set_unit(d, u);
    if (link_unit(d)) goto fail;
  }
  if (wv_dshared_layout(d)) goto fail;
  if (init_vars(d)) goto fail;
  for (uint32_t u = 0; u < nunits; u++) {
    set_unit(d, u);
    for (uint32_t i = 0; i < units[u]->nfuncs; i++) {
      const ptx_func *pf = &units[u]->funcs[i];
      uint32_t idx = d->funcidx[d->funcbase[u] + i];
      if (!pf->has_body || idx == WV_DEC_NONE) continue;
      wv_func *f = &out->funcs[idx];
      for (int k = 0; k < 3; k++) {
        f->reqntid[k] = pf->reqntid[0] ? (pf->reqntid[k] ? pf->reqntid[k] : 1) : 0;
        f->maxntid[k] = pf->maxntid[0] ? (pf->maxntid[k] ? pf->maxntid[k] : 1) : 0;
        f->reqcluster[k] = pf->reqcluster[0] ? (pf->reqcluster[k] ? pf->reqcluster[k] : 1) : 0;
      }
      f->maxclusterrank = pf->maxclusterrank;
      f->explicit_cluster = pf->explicitcluster || pf->reqcluster[0];
      if (decode_func(d, pf, f)) goto fail;
    }
  }
  out->taken = calloc(out->nfuncs + 1, sizeof *out->taken);
  if (!out->taken) goto fail;
  for (uint32_t i = 0; i < out->nfuncs; i++)
    if (out->funcs[i].addr_taken) out->taken[out->ntaken++] = i;
  out->arena = units[0]->arena;
  dec_fini(d);
  return 0;
fail:
  if (!d->failed) wv_derr(d, (ptx_loc){1, 1}, "out of memory");
  dec_fini(d);
  out->arena = NULL;
  wv_irmod_free(vm, out);
  return -1;
}

void wv_irmod_free(wv_vm *vm, wv_irmod *m) {
  for (uint32_t i = 0; i < m->nfuncs; i++) {
    wv_func *f = &m->funcs[i];
    for (uint32_t k = 0; k < f->ncode; k++) free_callinfo(&f->code[k]);
    free(f->code);
    free(f->consts);
    free(f->params);
    free(f->rets);
    free(f->shared_reloc);
    free(f->fusions);
  }
  for (uint32_t i = 0; vm && i < m->nvars; i++)
    if (m->vars[i].space != WV_SPACE_SHARED) wv_heap_free(&vm->heap, m->vars[i].addr);
  free(m->funcs);
  free(m->vars);
  free(m->taken);
  memset(m, 0, sizeof *m);
}

int wv_call_target(const wv_irmod *m, const wv_insn *in, uint32_t k, uint32_t *fi) {
  const wv_callinfo *ci = in->aux;
  if (!ci || ci->builtin) return 0;
  if (!ci->indirect) *fi = in->target;
  else if (ci->ntargets) *fi = k < ci->ntargets ? ci->targets[k] : 0;
  else *fi = k < m->ntaken ? m->taken[k] : 0;
  return ci->indirect ? k < (ci->ntargets ? ci->ntargets : m->ntaken) : k == 0;
}
