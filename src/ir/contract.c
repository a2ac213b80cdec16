/*
 * contract.c — FMA contraction as ptxas does it. The PTX ISA lets the code generator fuse a mul.f32/.f64
 * and an add/sub that have no rounding modifier, and ptxas does: such a pair runs as one FFMA/DFMA, rounded
 * once. This pass finds the pairs ptxas fuses in a decoded function, records every decision (`warpvm
 * contractions`), and when asked rewrites each fused add/sub into an fma that reads the mul's sources.
 *
 * The rule (measured with ptxas 13.0 at sm_80 and sm_90; experiments and corpus in docs/CONTRACTION.md):
 *  - a product is an unpredicated mul.f32/.f64 without rounding modifier or .sat, not by ±1.0 and not of two
 *    immediates, or the FMUL that ends ptxas's code for div.approx/div.full.f32 and rcp.approx.f32 (not
 *    .ftz); mov and neg (with the product's .ftz) pass it on unchanged or negated;
 *  - an add/sub of the same type without rounding modifier and with the mul's .ftz can take it (.sat and a
 *    guard are allowed: FFMA.SAT, @P FFMA);
 *  - only within a block (unless the product has a constant operand: an immediate, a kernel parameter, a
 *    .const variable), where blocks joined by an edge that is the only way out of one and into the other
 *    count as one; a conditional branch, a call, membar and fence end a block, and so do the instructions
 *    ptxas expands into routines of their own (IEEE div/rcp/sqrt, integer div/rem but .u32, ...);
 *  - a product can be fused only if every use that is not dead code is such an add/sub in its block
 *    reading it once; otherwise the mul stays and no add takes it;
 *  - products used once are fused first, then the adds in order take an eligible product (one none of
 *    whose adds took another product): of two, the one with fewer uses, then the first operand.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/handlers.h"
#include "ir/ir.h"

#define NONE UINT32_MAX

typedef struct ctr_use { uint32_t add; uint8_t opnd, neg; } ctr_use; /* opnd 0: the add's a, 1: its b */

typedef struct ctr_mul {
  uint32_t insn, pos;
  uint32_t first, nuses; /* its contractible uses: uses[first .. first + nuses) */
  uint8_t ok, why;
  uint32_t save[2];      /* copies of sources a, b the PTX overwrites before an add (WV_NOSLOT: none) */
} ctr_mul;

typedef struct ctr_track { uint32_t slot, defpos; uint8_t neg; } ctr_track;

typedef struct ctr {
  wv_func *f;
  const uint32_t *dus, *du;
  uint32_t n, nb, nregs, words, nseq;
  uint32_t *bfirst, *succ, *npred, *next, *blk;
  uint8_t *reach, *hard, *dead;
  uint64_t *livein, *liveout;
  uint32_t *seq, *pos, *regend; /* region order (nseq reachable instructions); insn → position (NONE:
                                    unreachable); position → end of its region */
  uint32_t *mulof;               /* insn → index into muls, NONE */
  uint32_t *lastread, *lastdef;  /* per register, in the region being walked (positions) */
  ctr_mul *muls;
  uint32_t nmuls, capmuls;
  ctr_use *uses;
  uint32_t nuses, capuses;
  uint32_t *cand;                /* per insn, 2 operands: index into muls of the product it reads, NONE */
  uint8_t *candneg;
  uint32_t *state;               /* per add: the mul it took, NONE */
  uint32_t *ndefs, *defof;       /* per register: live instructions writing it, the last of them */
  uint32_t *rstart, *readers;    /* per register: the live instructions reading it */
  uint32_t *seen, stamp;
} ctr;

static int grow(void **p, uint32_t *cap, uint32_t need, size_t el) {
  if (need <= *cap) return 0;
  uint32_t nc = *cap ? *cap * 2 : 64;
  while (nc < need) nc *= 2;
  void *q = realloc(*p, (size_t)nc * el);
  if (!q) return -1;
  *p = q;
  *cap = nc;
  return 0;
}

/* ---- what an instruction is ---- */

static int is_float(const wv_insn *in) { return in->type == WV_T_F32 || in->type == WV_T_F64; }

static int const_is(const wv_func *f, uint32_t s, wv_type t, int want_one) {
  if (WV_SLOT_BANK(s) != WV_SLOT_CONST) return 0;
  if (!want_one) return 1;
  uint64_t v = f->consts[WV_SLOT_INDEX(s)]; /* one value per constant (the launch repeats it for 32 lanes) */
  return t == WV_T_F32 ? ((uint32_t)v & 0x7fffffffu) == 0x3f800000u : (v & ~(1ull << 63)) == 0x3ff0000000000000ull;
}

/* A product ptxas may contract: mul.f32/.f64, and the instructions whose code ends in an FMUL (div.approx,
 * div.full, and rcp.approx without .ftz, which scales its result). */
static int is_product(const wv_func *f, const wv_insn *in) {
  if (!is_float(in) || in->rnd || in->sat || in->guard >= 0) return 0;
  wv_type t = (wv_type)in->type;
  if (in->op == WV_OP_DIV) return t == WV_T_F32 && (in->mode == WV_FM_APPROX || in->mode == WV_FM_FULL);
  if (in->op == WV_OP_RCP) return t == WV_T_F32 && in->mode == WV_FM_APPROX && !in->ftz;
  if (in->op != WV_OP_MUL || in->mode) return 0;
  if (in->fn != wv_h_float(WV_OP_MUL, t, in)) return 0;                /* mul by 1.0, decoded as a mov */
  if (const_is(f, in->a, t, 1) || const_is(f, in->b, t, 1)) return 0;   /* ptxas makes ±x of it */
  return !(const_is(f, in->a, t, 0) && const_is(f, in->b, t, 0));
}

static int is_add(const wv_insn *in) {
  return (in->op == WV_OP_ADD || in->op == WV_OP_SUB) && is_float(in) && !in->rnd && !in->mode &&
         in->fn == wv_h_float(in->op, (wv_type)in->type, in);
}

/* mov/neg passing a product on: 1 as is, 2 negated, 0 neither. */
static int passes(const wv_insn *in, const wv_insn *mul) {
  if (in->guard >= 0 || in->a == WV_NOSLOT) return 0;
  if (in->op == WV_OP_MOV && in->type != WV_T_PRED && wv_type_size((wv_type)in->type) == wv_type_size((wv_type)mul->type) &&
      in->fn == wv_h_mov(WV_MOV_REG, (wv_type)in->type))
    return 1;
  if (in->op == WV_OP_NEG && in->type == mul->type && in->ftz == mul->ftz) return 2;
  return 0;
}

/* No side effect and every result a value register: ptxas deletes it when nothing reads them. */
static int pure(const ctr *c, uint32_t i) {
  const wv_insn *in = &c->f->code[i];
  if (in->ctl != WV_CTL_NONE || in->pd >= 0 || in->type == WV_T_PRED) return 0;
  int defs = 0;
  for (uint32_t k = c->dus[i]; k < c->dus[i + 1]; k++) {
    if (c->du[k] == WV_DU_CC) return 0;
    defs += (c->du[k] & WV_DU_DEF) != 0;
  }
  if (!defs) return 0;
  switch (in->op) {
  case WV_OP_ADD: case WV_OP_SUB: case WV_OP_MUL: case WV_OP_MUL24: case WV_OP_MAD: case WV_OP_MAD24: case WV_OP_SAD:
  case WV_OP_DIV: case WV_OP_REM: case WV_OP_MIN: case WV_OP_MAX: case WV_OP_ABS: case WV_OP_NEG: case WV_OP_NOT:
  case WV_OP_CNOT: case WV_OP_POPC: case WV_OP_CLZ: case WV_OP_BREV: case WV_OP_BFIND: case WV_OP_AND: case WV_OP_OR:
  case WV_OP_XOR: case WV_OP_SHL: case WV_OP_SHR: case WV_OP_LOP3: case WV_OP_BFE: case WV_OP_BFI: case WV_OP_PRMT:
  case WV_OP_SHF: case WV_OP_FNS: case WV_OP_DP4A: case WV_OP_DP2A: case WV_OP_VABSDIFF4: case WV_OP_FMA:
  case WV_OP_COPYSIGN: case WV_OP_RCP: case WV_OP_SQRT: case WV_OP_RSQRT: case WV_OP_SIN: case WV_OP_COS:
  case WV_OP_LG2: case WV_OP_EX2: case WV_OP_TANH: case WV_OP_CVT: case WV_OP_CVTA: case WV_OP_SET: case WV_OP_SELP:
  case WV_OP_SLCT:
    return 1;
  case WV_OP_MOV:
    return in->fn != wv_h_special(in->mode); /* not %clock and the like */
  default:
    return 0;
  }
}

/* ---- blocks ---- */

/* Instructions that end a block for contraction although nothing branches: calls, fences, and those
 * ptxas expands into code of their own (its division and square-root routines and slow paths). */
static int splits(const wv_insn *in) {
  wv_type t = (wv_type)in->type;
  switch (in->op) {
  case WV_OP_MEMBAR: case WV_OP_FENCE: return 1;
  case WV_OP_DIV: case WV_OP_REM: /* integer: every type but .u32; float: the IEEE-rounded ones */
    return is_float(in) ? in->rnd != 0 : t != WV_T_U32;
  case WV_OP_RCP: case WV_OP_SQRT: /* of an immediate: folded */
    return !(in->mode & WV_FM_APPROX) && WV_SLOT_BANK(in->a) != WV_SLOT_CONST;
  case WV_OP_RSQRT: return t == WV_T_F64 && !in->ftz;
  case WV_OP_BFIND: return wv_type_size(t) == 8;
  default: return in->ctl == WV_CTL_CALL;
  }
}

static int ends_block(const wv_insn *in) {
  return in->ctl == WV_CTL_BRA || in->ctl == WV_CTL_RET || in->ctl == WV_CTL_EXIT || in->ctl == WV_CTL_TRAP || splits(in);
}

static int build_blocks(ctr *c) {
  const wv_func *f = c->f;
  uint32_t n = c->n;
  uint8_t *lead = calloc(n + 1, 1);
  if (!lead) return -1;
  lead[0] = 1;
  for (uint32_t i = 0; i < n; i++) {
    const wv_insn *in = &f->code[i];
    if (in->ctl == WV_CTL_BRA && in->target < n) lead[in->target] = 1;
    if (ends_block(in)) lead[i + 1] = 1;
  }
  for (uint32_t i = 0; i < n; i++) c->nb += lead[i];
  c->bfirst = malloc((c->nb + 1) * sizeof *c->bfirst);
  c->succ = malloc((size_t)c->nb * 2 * sizeof *c->succ);
  c->npred = calloc(c->nb, sizeof *c->npred);
  c->next = malloc(c->nb * sizeof *c->next);
  c->reach = calloc(c->nb, 1);
  c->hard = calloc(c->nb, 1);
  if (!c->bfirst || !c->succ || !c->npred || !c->next || !c->reach || !c->hard) { free(lead); return -1; }
  for (uint32_t i = 0, b = 0; i < n; i++) {
    if (lead[i]) c->bfirst[b++] = i;
    c->blk[i] = b - 1;
  }
  c->bfirst[c->nb] = n;
  free(lead);
  for (uint32_t b = 0; b < c->nb; b++) {
    uint32_t last = c->bfirst[b + 1] - 1, *s = &c->succ[2 * b];
    const wv_insn *in = &f->code[last];
    uint32_t fall = last + 1 < n ? c->blk[last + 1] : NONE;
    s[0] = s[1] = NONE;
    c->next[b] = NONE;
    if (in->ctl == WV_CTL_BRA) {
      s[0] = in->target < n ? c->blk[in->target] : NONE;
      if (in->guard >= 0 && fall != s[0]) s[1] = fall;
    } else if (in->ctl == WV_CTL_RET || in->ctl == WV_CTL_EXIT || in->ctl == WV_CTL_TRAP) {
      if (in->guard >= 0) s[0] = fall;
    } else {
      s[0] = fall;
      c->hard[b] = splits(in);
    }
  }
  /* reachable blocks, their predecessors, and the chains that count as one block */
  uint32_t *stack = malloc((c->nb + 1) * sizeof *stack), sp = 0;
  if (!stack) return -1;
  if (c->nb) { stack[sp++] = 0; c->reach[0] = 1; }
  while (sp) {
    uint32_t b = stack[--sp];
    for (int k = 0; k < 2; k++) {
      uint32_t s = c->succ[2 * b + k];
      if (s == NONE) continue;
      c->npred[s]++;
      if (!c->reach[s]) { c->reach[s] = 1; stack[sp++] = s; }
    }
  }
  free(stack);
  for (uint32_t b = 0; b < c->nb; b++) {
    uint32_t s = c->succ[2 * b];
    if (c->reach[b] && s != NONE && s != 0 && s != b && c->succ[2 * b + 1] == NONE && c->npred[s] == 1 && !c->hard[b])
      c->next[b] = s;
  }
  return 0;
}

/* Region order: every chain from its head, blocks in code order of the heads. */
static int build_regions(ctr *c) {
  uint8_t *inner = calloc(c->nb + 1, 1);
  c->seq = malloc((c->n + 1) * sizeof *c->seq);
  c->regend = malloc((c->n + 1) * sizeof *c->regend);
  if (!inner || !c->seq || !c->regend) { free(inner); return -1; }
  for (uint32_t b = 0; b < c->nb; b++)
    if (c->next[b] != NONE) inner[c->next[b]] = 1;
  uint32_t np = 0;
  for (uint32_t h = 0; h < c->nb; h++) {
    if (!c->reach[h] || inner[h]) continue;
    uint32_t start = np;
    for (uint32_t b = h, hops = 0; b != NONE && hops <= c->nb; b = c->next[b], hops++)
      for (uint32_t i = c->bfirst[b]; i < c->bfirst[b + 1]; i++) c->pos[i] = np, c->seq[np++] = i;
    for (uint32_t p = start; p < np; p++) c->regend[p] = np;
  }
  c->nseq = np;
  free(inner);
  return 0;
}

/* ---- liveness of value registers, with dead code left out (ptxas deletes it first) ---- */

#define BIT(v, r) ((v)[(r) >> 6] >> ((r) & 63) & 1)
#define SET(v, r) ((v)[(r) >> 6] |= 1ull << ((r) & 63))
#define CLR(v, r) ((v)[(r) >> 6] &= ~(1ull << ((r) & 63)))

static uint32_t reg_of(uint32_t e) { return e & ~WV_DU_DEF; }

/* Backward over instruction i: a write kills (unless guarded), a read gens. */
static void transfer(const ctr *c, uint32_t i, uint64_t *live) {
  int guarded = c->f->code[i].guard >= 0;
  for (uint32_t k = c->dus[i]; k < c->dus[i + 1]; k++)
    if ((c->du[k] & WV_DU_DEF) && c->du[k] != WV_DU_CC && !guarded) CLR(live, reg_of(c->du[k]));
  for (uint32_t k = c->dus[i]; k < c->dus[i + 1]; k++)
    if (!(c->du[k] & WV_DU_DEF) && c->du[k] != WV_DU_CC) SET(live, c->du[k]);
}

static void liveness(ctr *c, uint64_t *tmp) {
  uint32_t w = c->words;
  memset(c->livein, 0, (size_t)c->nb * w * 8);
  for (int changed = 1; changed;) {
    changed = 0;
    for (uint32_t b = c->nb; b-- > 0;) {
      uint64_t *out = &c->liveout[(size_t)b * w];
      memset(out, 0, (size_t)w * 8);
      for (int k = 0; k < 2; k++) {
        uint32_t s = c->succ[2 * b + k];
        if (s == NONE) continue;
        for (uint32_t x = 0; x < w; x++) out[x] |= c->livein[(size_t)s * w + x];
      }
      memcpy(tmp, out, (size_t)w * 8);
      for (uint32_t i = c->bfirst[b + 1]; i-- > c->bfirst[b];)
        if (!c->dead[i]) transfer(c, i, tmp);
      if (memcmp(tmp, &c->livein[(size_t)b * w], (size_t)w * 8)) {
        memcpy(&c->livein[(size_t)b * w], tmp, (size_t)w * 8);
        changed = 1;
      }
    }
  }
}

/* Marks pure instructions none of whose results is read; returns how many it found. */
static uint32_t sweep(ctr *c, uint64_t *tmp) {
  uint32_t found = 0;
  for (uint32_t b = 0; b < c->nb; b++) {
    memcpy(tmp, &c->liveout[(size_t)b * c->words], (size_t)c->words * 8);
    for (uint32_t i = c->bfirst[b + 1]; i-- > c->bfirst[b];) {
      if (c->dead[i]) continue;
      if (pure(c, i)) {
        int used = 0;
        for (uint32_t k = c->dus[i]; k < c->dus[i + 1]; k++)
          if ((c->du[k] & WV_DU_DEF) && BIT(tmp, reg_of(c->du[k]))) used = 1;
        if (!used) { c->dead[i] = 1; found++; continue; }
      }
      transfer(c, i, tmp);
    }
  }
  return found;
}

/* Liveness costs a bit per register per block: past 4 Mi words (a huge generated function) it is skipped,
 * and then no code counts as dead and every product that leaves its block counts as used there. */
#define LIVE_BUDGET (1u << 22)

static int live_and_dead(ctr *c) {
  c->words = (c->nregs + 63) / 64;
  if ((uint64_t)c->nb * c->words > LIVE_BUDGET) return 0;
  c->livein = calloc((size_t)c->nb * c->words + 1, 8);
  c->liveout = calloc((size_t)c->nb * c->words + 1, 8);
  uint64_t *tmp = calloc(c->words + 1, 8);
  if (!c->livein || !c->liveout || !tmp) { free(tmp); return -1; }
  for (int round = 0; round < 16; round++) {
    liveness(c, tmp);
    if (!sweep(c, tmp)) break;
  }
  free(tmp);
  return 0;
}

/* ---- the products and the adds that read them ---- */

static ctr_track *find(ctr_track *t, uint32_t nt, uint32_t slot) {
  for (uint32_t k = 0; k < nt; k++)
    if (t[k].slot == slot) return &t[k];
  return NULL;
}

static void reject(ctr_mul *m, uint8_t why) {
  if (m->ok) m->why = why;
  m->ok = 0;
}

/* What instruction j does with product mi when it reads the tracked values ra (as its a) / rb (as its b):
 * passes it on (the caller tracks its result), takes it as an add/sub, or is another use. */
static int use(ctr *c, uint32_t mi, uint32_t j, const ctr_track *ra, const ctr_track *rb) {
  ctr_mul *m = &c->muls[mi];
  const wv_insn *in = &c->f->code[j], *mul = &c->f->code[m->insn];
  if (ra && !rb && passes(in, mul)) return 0;
  if (!is_add(in) || in->type != mul->type || (!ra && !rb)) {
    reject(m, WV_WHY_USE);
    return 0;
  }
  if (ra && rb) reject(m, WV_WHY_TWICE);
  else if (in->ftz != mul->ftz) reject(m, WV_WHY_FTZ);
  if (grow((void **)&c->uses, &c->capuses, c->nuses + 1, sizeof *c->uses)) return -1;
  c->uses[c->nuses++] = (ctr_use){j, ra ? 0 : 1, ra ? ra->neg : rb->neg};
  c->cand[2 * j + (ra ? 0 : 1)] = mi;
  return 0;
}

/* The tracked values instruction in reads as its a and its b. */
static void operands(const wv_insn *in, ctr_track *tr, uint32_t nt, ctr_track **ra, ctr_track **rb) {
  *ra = WV_SLOT_BANK(in->a) == WV_SLOT_REG ? find(tr, nt, WV_SLOT_INDEX(in->a)) : NULL;
  *rb = WV_SLOT_BANK(in->b) == WV_SLOT_REG ? find(tr, nt, WV_SLOT_INDEX(in->b)) : NULL;
}

/* Follows product mi through its region: its uses, and whether it leaves the region. */
static int walk(ctr *c, uint32_t mi) {
  ctr_mul *m = &c->muls[mi];
  const wv_insn *mul = &c->f->code[m->insn];
  ctr_track tr[16];
  uint32_t nt = 1, end = c->regend[m->pos];
  tr[0] = (ctr_track){WV_SLOT_INDEX(mul->d[0]), m->pos, 0};
  uint32_t last = c->lastread[tr[0].slot] == NONE ? 0 : c->lastread[tr[0].slot];
  m->first = c->nuses;
  for (uint32_t q = m->pos + 1; q < end && q <= last && nt; q++) {
    uint32_t j = c->seq[q];
    if (c->dead[j]) continue;
    const wv_insn *in = &c->f->code[j];
    ctr_track *ra = NULL, *rb = NULL;
    int reads = 0;
    for (uint32_t k = c->dus[j]; k < c->dus[j + 1]; k++)
      if (!(c->du[k] & WV_DU_DEF) && find(tr, nt, c->du[k])) reads = 1;
    if (reads) {
      operands(in, tr, nt, &ra, &rb);
      if (use(c, mi, j, ra, rb)) return -1;
    }
    int pass = reads && ra && !rb ? passes(in, mul) : 0;
    uint8_t pneg = ra ? ra->neg : 0;
    for (uint32_t k = c->dus[j]; k < c->dus[j + 1]; k++) {
      ctr_track *t;
      if (!(c->du[k] & WV_DU_DEF) || c->du[k] == WV_DU_CC || !(t = find(tr, nt, reg_of(c->du[k])))) continue;
      if (in->guard >= 0) reject(m, WV_WHY_USE); /* the old value may live on */
      *t = tr[--nt];
    }
    if (pass && WV_SLOT_BANK(in->d[0]) == WV_SLOT_REG) {
      if (nt == sizeof tr / sizeof *tr) { reject(m, WV_WHY_USE); continue; }
      tr[nt++] = (ctr_track){WV_SLOT_INDEX(in->d[0]), q, (uint8_t)(pneg ^ (pass == 2))};
      uint32_t lr = c->lastread[tr[nt - 1].slot];
      if (lr != NONE && lr > last) last = lr;
    }
  }
  /* still holding the product where the region ends, and read after it: a use in another block (the
   * adds there that read the register are noted for the report only) */
  uint32_t lastb = c->blk[c->seq[end - 1]];
  for (uint32_t k = 0; k < nt; k++) {
    if (c->lastdef[tr[k].slot] != tr[k].defpos || (c->liveout && !BIT(&c->liveout[(size_t)lastb * c->words], tr[k].slot)))
      continue;
    reject(m, WV_WHY_BLOCK);
    for (uint32_t r = c->rstart[tr[k].slot]; r < c->rstart[tr[k].slot + 1]; r++) {
      uint32_t j = c->readers[r];
      const wv_insn *in = &c->f->code[j];
      if (c->regend[c->pos[j]] == end || !is_add(in) || in->type != mul->type) continue;
      for (int o = 0; o < 2; o++) {
        uint32_t s = o ? in->b : in->a;
        if (WV_SLOT_BANK(s) == WV_SLOT_REG && WV_SLOT_INDEX(s) == tr[k].slot && c->cand[2 * j + o] == NONE) c->cand[2 * j + o] = mi;
      }
    }
  }
  m->nuses = c->nuses - m->first;
  return 0;
}

/* A product by a constant (an immediate, a kernel parameter, a .const variable) is free of the block
 * rule: ptxas fuses it wherever its value goes. Its register and those of its copies are written only
 * by it, so every read anywhere is a use. */
static int walk_free(ctr *c, uint32_t mi) {
  ctr_mul *m = &c->muls[mi];
  const wv_insn *mul = &c->f->code[m->insn];
  ctr_track tr[16];
  uint32_t nt = 1;
  tr[0] = (ctr_track){WV_SLOT_INDEX(mul->d[0]), m->pos, 0};
  m->first = c->nuses;
  for (uint32_t k = 0; k < nt; k++) /* the copies */
    for (uint32_t r = c->rstart[tr[k].slot]; r < c->rstart[tr[k].slot + 1]; r++) {
      const wv_insn *in = &c->f->code[c->readers[r]];
      int pass = passes(in, mul);
      if (!pass || WV_SLOT_BANK(in->a) != WV_SLOT_REG || WV_SLOT_INDEX(in->a) != tr[k].slot) continue;
      if (WV_SLOT_BANK(in->d[0]) != WV_SLOT_REG || c->ndefs[WV_SLOT_INDEX(in->d[0])] != 1 || nt == sizeof tr / sizeof *tr) {
        reject(m, WV_WHY_USE);
        continue;
      }
      if (!find(tr, nt, WV_SLOT_INDEX(in->d[0])))
        tr[nt++] = (ctr_track){WV_SLOT_INDEX(in->d[0]), 0, (uint8_t)(tr[k].neg ^ (pass == 2))};
    }
  c->stamp++;
  for (uint32_t k = 0; k < nt; k++) /* the uses */
    for (uint32_t r = c->rstart[tr[k].slot]; r < c->rstart[tr[k].slot + 1]; r++) {
      uint32_t j = c->readers[r];
      if (c->seen[j] == c->stamp) continue;
      c->seen[j] = c->stamp;
      ctr_track *ra, *rb;
      operands(&c->f->code[j], tr, nt, &ra, &rb);
      if (use(c, mi, j, ra, rb)) return -1;
    }
  m->nuses = c->nuses - m->first;
  return 0;
}

/* The value of register slot s is a constant for ptxas: an immediate, or a register written once by a
 * mov of one, by ld.param of a kernel parameter or by ld.const of a fixed address (depth: how far the
 * address may be computed from constants by mov, add, sub). */
static int constant(const ctr *c, uint32_t s, int depth) {
  if (WV_SLOT_BANK(s) == WV_SLOT_CONST) return 1;
  if (WV_SLOT_BANK(s) != WV_SLOT_REG || c->ndefs[WV_SLOT_INDEX(s)] != 1 || depth > 4) return 0;
  const wv_insn *d = &c->f->code[c->defof[WV_SLOT_INDEX(s)]];
  if (d->guard >= 0) return 0;
  switch (d->op) {
  case WV_OP_MOV: return d->fn == wv_h_mov(WV_MOV_REG, (wv_type)d->type) && constant(c, d->a, depth + 1);
  case WV_OP_ADD: case WV_OP_SUB: /* address arithmetic */
    return !wv_type_is_float((wv_type)d->type) && !d->mode && constant(c, d->a, depth + 1) && constant(c, d->b, depth + 1);
  case WV_OP_LD:
    if (d->space == WV_SPACE_KPARAM) return d->a == WV_NOSLOT;
    return d->space == WV_SPACE_CONST && (d->a == WV_NOSLOT || constant(c, d->a, depth + 1));
  default: return 0;
  }
}

static int is_free(const ctr *c, const wv_insn *in) {
  if (c->ndefs[WV_SLOT_INDEX(in->d[0])] != 1) return 0;
  if (in->op == WV_OP_MUL) return constant(c, in->a, 0) || constant(c, in->b, 0);
  return in->op == WV_OP_DIV && (constant(c, in->a, 0) || constant(c, in->b, 0)); /* a * rcp(b): rcp of a constant is one */
}

/* Every register's writers and readers among the live reachable instructions. */
static int index_registers(ctr *c) {
  uint32_t nr = c->nregs, total = 0;
  c->ndefs = calloc(nr + 1, sizeof *c->ndefs);
  c->defof = malloc((nr + 1) * sizeof *c->defof);
  c->rstart = calloc(nr + 2, sizeof *c->rstart);
  c->seen = calloc(c->n + 1, sizeof *c->seen);
  if (!c->ndefs || !c->defof || !c->rstart || !c->seen) return -1;
  for (uint32_t p = 0; p < c->nseq; p++) {
    uint32_t i = c->seq[p];
    if (c->dead[i]) continue;
    for (uint32_t k = c->dus[i]; k < c->dus[i + 1]; k++) {
      uint32_t e = c->du[k];
      if (e == WV_DU_CC) continue;
      if (e & WV_DU_DEF) { c->ndefs[reg_of(e)]++; c->defof[reg_of(e)] = i; }
      else if (k == c->dus[i] || c->du[k - 1] != e) { c->rstart[e + 1]++; total++; }
    }
  }
  for (uint32_t r = 0; r < nr; r++) c->rstart[r + 1] += c->rstart[r];
  c->readers = malloc((total + 1) * sizeof *c->readers);
  uint32_t *fill = malloc((nr + 1) * sizeof *fill);
  if (!c->readers || !fill) { free(fill); return -1; }
  memcpy(fill, c->rstart, nr * sizeof *fill);
  for (uint32_t p = 0; p < c->nseq; p++) {
    uint32_t i = c->seq[p];
    if (c->dead[i]) continue;
    for (uint32_t k = c->dus[i]; k < c->dus[i + 1]; k++) {
      uint32_t e = c->du[k];
      if (e != WV_DU_CC && !(e & WV_DU_DEF) && (k == c->dus[i] || c->du[k - 1] != e)) c->readers[fill[e]++] = i;
    }
  }
  free(fill);
  return 0;
}

/* For every region: the last read and the last unguarded write of each register (positions). */
static int find_products(ctr *c) {
  for (uint32_t p = 0; p < c->nseq; p = c->regend[p]) {
    uint32_t end = c->regend[p];
    for (uint32_t q = p; q < end; q++) {
      uint32_t i = c->seq[q];
      if (c->dead[i]) continue;
      for (uint32_t k = c->dus[i]; k < c->dus[i + 1]; k++) {
        uint32_t e = c->du[k];
        if (e == WV_DU_CC) continue;
        if (e & WV_DU_DEF) { if (c->f->code[i].guard < 0) c->lastdef[reg_of(e)] = q; }
        else c->lastread[e] = q;
      }
    }
    for (uint32_t q = p; q < end; q++) {
      uint32_t i = c->seq[q];
      if (c->dead[i] || !is_product(c->f, &c->f->code[i])) continue;
      if (grow((void **)&c->muls, &c->capmuls, c->nmuls + 1, sizeof *c->muls)) return -1;
      c->mulof[i] = c->nmuls;
      c->muls[c->nmuls] = (ctr_mul){.insn = i, .pos = q, .ok = 1, .save = {WV_NOSLOT, WV_NOSLOT}};
      if ((is_free(c, &c->f->code[i]) ? walk_free : walk)(c, c->nmuls++)) return -1;
    }
    for (uint32_t q = p; q < end; q++) /* reset for the next region */
      for (uint32_t k = c->dus[c->seq[q]]; k < c->dus[c->seq[q] + 1]; k++)
        if (c->du[k] != WV_DU_CC) c->lastread[reg_of(c->du[k])] = c->lastdef[reg_of(c->du[k])] = NONE;
  }
  return 0;
}

/* ---- the decisions ---- */

static int eligible(const ctr *c, uint32_t mi) {
  const ctr_mul *m = &c->muls[mi];
  if (!m->ok) return 0;
  for (uint32_t k = 0; k < m->nuses; k++) {
    uint32_t s = c->state[c->uses[m->first + k].add];
    if (s != NONE && s != mi) return 0;
  }
  return 1;
}

static void decide(ctr *c) {
  for (uint32_t p = 0; p < c->nseq; p++) { /* products used once */
    uint32_t j = c->seq[p];
    for (int k = 0; k < 2; k++) {
      uint32_t mi = c->cand[2 * j + k];
      if (mi != NONE && c->muls[mi].ok && c->muls[mi].nuses == 1) { c->state[j] = mi; break; }
    }
  }
  for (uint32_t p = 0; p < c->nseq; p++) { /* then in order */
    uint32_t j = c->seq[p], m0 = c->cand[2 * j], m1 = c->cand[2 * j + 1];
    if (c->state[j] != NONE || (m0 == NONE && m1 == NONE)) continue;
    int e0 = m0 != NONE && eligible(c, m0), e1 = m1 != NONE && eligible(c, m1);
    if (e0 && e1) c->state[j] = c->muls[m1].nuses < c->muls[m0].nuses ? m1 : m0;
    else if (e0 || e1) c->state[j] = e0 ? m0 : m1;
  }
}

/* ---- the report and the rewrite ---- */

static int record(ctr *c) {
  wv_func *f = c->f;
  uint32_t cap = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    const wv_insn *in = &f->code[i];
    wv_fusion r = {.line = in->line, .op = in->op};
    if (is_product(f, in) && c->pos[i] != NONE && c->dead[i]) {
      r.kind = WV_FU_MUL;
      r.status = WV_FU_DEAD;
    } else if (is_product(f, in) && c->pos[i] != NONE) {
      r.kind = WV_FU_MUL;
      uint32_t mi = c->mulof[i];
      const ctr_mul *m = &c->muls[mi];
      uint32_t took = 0;
      for (uint32_t k = 0; k < m->nuses; k++) took += c->state[c->uses[m->first + k].add] == mi;
      r.status = !took ? WV_FU_KEPT : took == m->nuses ? WV_FU_FUSED : WV_FU_PARTLY;
      r.why = m->ok ? (took < m->nuses ? WV_WHY_LOST : 0) : m->why;
    } else if (is_add(in)) {
      r.kind = WV_FU_ADD;
      uint32_t s = c->pos[i] != NONE ? c->state[i] : NONE, m0 = c->pos[i] != NONE ? c->cand[2 * i] : NONE;
      uint32_t m1 = c->pos[i] != NONE ? c->cand[2 * i + 1] : NONE, mi = s != NONE ? s : m0 != NONE ? m0 : m1;
      r.status = s != NONE ? WV_FU_FMA : WV_FU_SEPARATE;
      if (mi != NONE) {
        r.mul_line = f->code[c->muls[mi].insn].line;
        if (s == NONE) r.why = c->muls[mi].ok ? WV_WHY_LOST : c->muls[mi].why;
      }
    } else {
      continue;
    }
    if (grow((void **)&f->fusions, &cap, f->nfusions + 1, sizeof *f->fusions)) return -1;
    f->fusions[f->nfusions++] = r;
  }
  return 0;
}

/* Is register slot s written at region positions [from, to)? */
static int clobbered(const ctr *c, uint32_t s, uint32_t from, uint32_t to) {
  if (WV_SLOT_BANK(s) != WV_SLOT_REG) return 0;
  for (uint32_t q = from; q < to; q++) {
    uint32_t i = c->seq[q];
    for (uint32_t k = c->dus[i]; k < c->dus[i + 1]; k++)
      if ((c->du[k] & WV_DU_DEF) && c->du[k] != WV_DU_CC && reg_of(c->du[k]) == WV_SLOT_INDEX(s)) return 1;
  }
  return 0;
}

static void rewrite(ctr *c) {
  wv_func *f = c->f;
  for (uint32_t p = 0; p < c->nseq; p++) {
    uint32_t j = c->seq[p], mi = c->state[j];
    if (mi == NONE) continue;
    ctr_mul *m = &c->muls[mi];
    wv_insn *mul = &f->code[m->insn], *in = &f->code[j];
    uint32_t src[2] = {mul->a, mul->b};
    int apart = p < m->pos || c->regend[p] != c->regend[m->pos]; /* a free product's add elsewhere */
    for (int k = 0; k < 2; k++) {
      if (WV_SLOT_BANK(src[k]) != WV_SLOT_REG || (!apart && !clobbered(c, src[k], m->pos, p))) continue;
      if (m->save[k] == WV_NOSLOT) m->save[k] = WV_SLOT(WV_SLOT_REG, f->nregs++);
      src[k] = m->save[k];
    }
    int opnd = c->cand[2 * j] == mi ? 0 : 1, sub = in->op == WV_OP_SUB;
    int negp = c->candneg[2 * j + opnd] ^ (sub && opnd == 1), negc = sub && opnd == 0;
    uint32_t other = opnd == 0 ? in->b : in->a;
    in->a = src[0];
    in->b = src[1];
    in->c = other;
    in->mode = (uint8_t)((negp ? WV_FM_NEGP : 0) | (negc ? WV_FM_NEGC : 0));
    if (mul->op == WV_OP_MUL) {
      in->op = WV_OP_FMA;
      in->fn = wv_h_float(WV_OP_FMA, (wv_type)in->type, in);
    } else { /* the last FMUL of div.approx/.full or rcp.approx takes the add */
      in->op = mul->op;
      in->mode |= (uint8_t)(WV_FM_ADDC | (mul->mode & (WV_FM_APPROX | WV_FM_FULL)));
      in->fn = wv_h_sfu(mul->op, (wv_type)in->type, in);
    }
  }
  for (uint32_t k = 0; k < c->nmuls; k++) {
    ctr_mul *m = &c->muls[k];
    if (m->save[0] == WV_NOSLOT && m->save[1] == WV_NOSLOT) continue;
    wv_insn *mul = &f->code[m->insn];
    mul->d[1] = m->save[0];
    mul->d[2] = m->save[1];
    mul->mode |= WV_FM_SAVE;
    mul->fn = mul->op == WV_OP_MUL ? wv_h_float(WV_OP_MUL, (wv_type)mul->type, mul) : wv_h_sfu(mul->op, (wv_type)mul->type, mul);
  }
}

static void fini(ctr *c) {
  free(c->bfirst); free(c->succ); free(c->npred); free(c->next); free(c->blk); free(c->reach); free(c->hard);
  free(c->dead); free(c->livein); free(c->liveout); free(c->seq); free(c->pos); free(c->regend);
  free(c->ndefs); free(c->defof); free(c->rstart); free(c->readers); free(c->seen);
  free(c->lastread); free(c->lastdef); free(c->mulof); free(c->muls); free(c->uses); free(c->cand); free(c->candneg); free(c->state);
}

int wv_contract(wv_func *f, const uint32_t *du_start, const uint32_t *du, int apply) {
  ctr c = {.f = f, .dus = du_start, .du = du, .n = f->ncode, .nregs = f->nregs};
  f->fusions = NULL;
  f->nfusions = 0;
  if (!c.n) return 0;
  size_t n = c.n + 1;
  c.blk = malloc(n * sizeof *c.blk);
  c.dead = calloc(n, 1);
  c.pos = malloc(n * sizeof *c.pos);
  c.mulof = malloc(n * sizeof *c.mulof);
  c.cand = malloc(2 * n * sizeof *c.cand);
  c.candneg = calloc(2 * n, 1);
  c.state = malloc(n * sizeof *c.state);
  c.lastread = malloc(((size_t)c.nregs + 1) * sizeof *c.lastread);
  c.lastdef = malloc(((size_t)c.nregs + 1) * sizeof *c.lastdef);
  int rc = -1;
  if (c.blk && c.dead && c.pos && c.mulof && c.cand && c.candneg && c.state && c.lastread && c.lastdef) {
    memset(c.pos, 0xff, n * sizeof *c.pos);
    memset(c.mulof, 0xff, n * sizeof *c.mulof);
    memset(c.cand, 0xff, 2 * n * sizeof *c.cand);
    memset(c.state, 0xff, n * sizeof *c.state);
    memset(c.lastread, 0xff, ((size_t)c.nregs + 1) * sizeof *c.lastread);
    memset(c.lastdef, 0xff, ((size_t)c.nregs + 1) * sizeof *c.lastdef);
    if (!build_blocks(&c) && !build_regions(&c) && !live_and_dead(&c) && !index_registers(&c) && !find_products(&c)) {
      for (uint32_t k = 0; k < c.nuses; k++) c.candneg[2 * c.uses[k].add + c.uses[k].opnd] = c.uses[k].neg;
      decide(&c);
      rc = record(&c);
      if (!rc && apply) rewrite(&c);
    }
  }
  fini(&c);
  return rc;
}
