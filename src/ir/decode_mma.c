/*
 * decode_mma.c — decodes the warp-level matrix instructions (PTX ISA §9.7.14 "Warp Level Matrix Multiply-Accumulate
 * Instructions": "Matrix multiply-accumulate operation using wmma instructions" and "using mma instruction",
 * "Warp-level matrix load instruction: ldmatrix", "... store instruction: stmatrix", "... transpose instruction:
 * movmatrix"). Every form of the PTX ISA parses; the shapes and types sm_80/sm_90 run are decoded into a wv_mma_aux
 * (exec/mma.h), the others (sm_70's quad-pair m8n8k4 .f16, sparse mma.sp, sm_100's .kind:: and block
 * scaling, the .b8 ldmatrix/stmatrix shapes) become placeholders that refuse the launch naming the instruction.
 * Operand counts and register widths are checked here: a wrong one is a load error with its line.
 * Hopper's warpgroup-level wgmma (§9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate") decodes
 * here too (dec_wgmma: every dense form of sm_90a; the sparse .sp forms become placeholders).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/mma.h"
#include "ir/decode_int.h"

typedef struct {
  int m, n, k;           /* shape, 0 if none */
  int t[4], nt;          /* element types in order (wv_mt) */
  int row, col;          /* .row / .col words, in order: layout[0..nlayout) (0 row, 1 col) */
  int layout[2], nlayout;
  int satfinite, xor_, and_, popc, trans, x, rnd, space, other;
  const char *first;     /* wmma: load / store / mma; the operand letter after it */
  char which;
} mma_words;

static int mt_of(const char *w) {
  static const char *const names[WV_MT_COUNT] = {"f16", "bf16", "tf32", "e4m3", "e5m2", "f32", "f64",
                                                 "s8", "u8", "s4", "u4", "b1", "s32"};
  for (int i = 0; i < WV_MT_COUNT; i++)
    if (!strcmp(w, names[i])) return i;
  return -1;
}

static int unsup(wv_dec *d, const ptx_insn *pi, const char *why) {
  char b[200];
  size_t n = (size_t)snprintf(b, sizeof b, "%s", pi->opcode);
  for (uint32_t i = 0; i < pi->nmods && n < sizeof b; i++) n += (size_t)snprintf(b + n, sizeof b - n, ".%s", pi->mods[i]);
  return wv_derr(d, pi->loc, "unsupported instruction '%s' (%s)", b, why);
}

static void words(const ptx_insn *pi, mma_words *w) {
  memset(w, 0, sizeof *w);
  w->space = WV_SPACE_GENERIC;
  for (uint32_t i = 0; i < pi->nmods; i++) {
    const char *s = pi->mods[i];
    int t = mt_of(s), a, b, c;
    char tail;
    if (t >= 0 && w->nt < 4) w->t[w->nt++] = t;
    else if (sscanf(s, "m%dn%dk%d%c", &a, &b, &c, &tail) == 3) w->m = a, w->n = b, w->k = c;
    else if (sscanf(s, "m%dn%d%c", &a, &b, &tail) == 2) w->m = a, w->n = b;
    else if (!strcmp(s, "row") || !strcmp(s, "col")) { if (w->nlayout < 2) w->layout[w->nlayout++] = s[0] == 'c'; }
    else if (!strcmp(s, "satfinite")) w->satfinite = 1;
    else if (!strcmp(s, "xor")) w->xor_ = 1;
    else if (!strcmp(s, "and")) w->and_ = 1;
    else if (!strcmp(s, "popc")) w->popc = 1;
    else if (!strcmp(s, "trans")) w->trans = 1;
    else if (!strcmp(s, "x1") || !strcmp(s, "x2") || !strcmp(s, "x4")) w->x = s[1] - '0';
    else if (!strcmp(s, "rn")) w->rnd = 1;
    else if (!strcmp(s, "rz") || !strcmp(s, "rm") || !strcmp(s, "rp")) w->rnd = 2;
    else if (!strcmp(s, "global")) w->space = WV_SPACE_GLOBAL;
    else if (!strcmp(s, "shared") || !strcmp(s, "shared::cta")) w->space = WV_SPACE_SHARED;
    else if (!strcmp(s, "load") || !strcmp(s, "store") || !strcmp(s, "mma")) w->first = s;
    else if (w->first && !w->which && strlen(s) == 1 && strchr("abcd", s[0])) w->which = s[0];
    else if (strcmp(s, "sync") && strcmp(s, "aligned") && strcmp(s, "b16")) w->other = 1;
  }
}

/* registers of a vector operand: count, width (bytes) of each, slots */
static int vec(wv_dec *d, const ptx_insn *pi, const ptx_operand *o, const char *what, int want, int bytes,
               int is_dst, uint32_t *slots) {
  int n = o->kind == PTX_OPND_VEC ? (int)o->nelems : 1;
  if (n != want)
    return wv_derr(d, o->loc, "'%s': %s needs %d register%s, found %d", pi->opcode, what, want, want > 1 ? "s" : "", n);
  for (int i = 0; i < n; i++) {
    const ptx_operand *e = o->kind == PTX_OPND_VEC ? &o->elems[i] : o;
    if (e->kind != PTX_OPND_REG) return wv_derr(d, e->loc, "'%s': %s must be registers", pi->opcode, what);
    const wv_decl *dl = wv_dlookup(d, e->name);
    if (dl && dl->kind == K_REG && (int)wv_type_size(dl->type) != bytes)
      return wv_derr(d, e->loc, "'%s': %s register '%s' is .%s, needs a %d-bit register", pi->opcode, what, e->name,
                     wv_type_name(dl->type), bytes * 8);
    slots[i] = is_dst ? wv_ddst(d, e) : wv_dsrc(d, e, bytes == 8 ? WV_T_B64 : WV_T_B32);
  }
  return d->failed ? -1 : 0;
}

static int regs_of(enum wv_frag f, int m, int n, int k, int t, int wmma) {
  int e = wv_frag_elems(f, m, n, k, (enum wv_mt)t), b = wv_mma_bits((enum wv_mt)t);
  if (wmma && f != WV_FRAG_C && t == WV_MT_F16) return 8; /* the PTX ISA's .f16 a/b fragments: 8 .f16x2 */
  return b == 64 ? e : e * b / 32;
}

static wv_mma_aux *new_aux(wv_dec *d, const ptx_insn *pi, wv_insn *in, int kind) {
  wv_mma_aux *q = calloc(1, sizeof *q);
  if (!q) { wv_derr(d, pi->loc, "out of memory"); return NULL; }
  q->kind = (uint8_t)kind;
  q->stride = WV_NOSLOT;
  in->aux = q;
  return q;
}

static int is_int8(int t) { return t == WV_MT_S8 || t == WV_MT_U8; }
static int is_int4(int t) { return t == WV_MT_S4 || t == WV_MT_U4; }
static int is_fp8(int t) { return t == WV_MT_E4M3 || t == WV_MT_E5M2; }
static int shape(const mma_words *w, int m, int n, int k) { return w->m == m && w->n == n && w->k == k; }

/* mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype{.xor.popc|.and.popc} d, a, b, c */
static int mma_form(const mma_words *w, const char **why) {
  int td = w->t[0], ta = w->t[1], tb = w->t[2], tc = w->t[3], m16 = w->m == 16 && w->n == 8;
  *why = NULL;
  if (w->nt != 4) return -1;
  if (ta == WV_MT_F16 && tb == ta && shape(w, 8, 8, 4)) { *why = "sm_70's quad-pair m8n8k4 .f16"; return 1; }
  if ((ta == WV_MT_F16 || ta == WV_MT_BF16) && tb == ta && m16 && (w->k == 8 || w->k == 16))
    return ta == WV_MT_F16 ? ((td == WV_MT_F16 || td == WV_MT_F32) && tc == td ? 0 : -1)
                           : (td == WV_MT_F32 && tc == WV_MT_F32 ? 0 : -1);
  if (ta == WV_MT_TF32 && tb == ta && m16 && (w->k == 4 || w->k == 8)) return td == WV_MT_F32 && tc == td ? 0 : -1;
  if (ta == WV_MT_F64 && tb == ta && (shape(w, 8, 8, 4) || (m16 && (w->k == 4 || w->k == 8 || w->k == 16))))
    return td == WV_MT_F64 && tc == td ? 0 : -1;
  if (is_int8(ta) && is_int8(tb) && (shape(w, 8, 8, 16) || (m16 && (w->k == 16 || w->k == 32))))
    return td == WV_MT_S32 && tc == td ? 0 : -1;
  if (is_int4(ta) && is_int4(tb) && (shape(w, 8, 8, 32) || (m16 && (w->k == 32 || w->k == 64))))
    return td == WV_MT_S32 && tc == td ? 0 : -1;
  if (ta == WV_MT_B1 && tb == ta && (shape(w, 8, 8, 128) || (m16 && (w->k == 128 || w->k == 256))))
    return td == WV_MT_S32 && tc == td ? 0 : -1;
  if (is_fp8(ta) && is_fp8(tb) && m16 && (w->k == 16 || w->k == 32))
    return (td == WV_MT_F16 || td == WV_MT_F32) && tc == td ? 0 : -1;
  return -1;
}

static int dec_mma_sync(wv_dec *d, const ptx_insn *pi, wv_insn *in, const mma_words *w) {
  for (uint32_t i = 0; i < pi->nmods; i++)
    if (!strncmp(pi->mods[i], "kind::", 6) || !strncmp(pi->mods[i], "block_scale", 11) || !strncmp(pi->mods[i], "sp", 2))
      return unsup(d, pi, "sm_100 .kind/.block_scale or sparse forms");
  if (pi->nops != 4) return wv_derr(d, pi->loc, "'mma' takes 4 operands {d}, {a}, {b}, {c}, found %u", pi->nops);
  const char *why;
  int f = mma_form(w, &why);
  if (f < 0 || !w->m) return wv_derr(d, pi->loc, "'mma': no .m%dn%dk%d form with these types", w->m, w->n, w->k);
  if (f > 0) return unsup(d, pi, why);
  if (w->nlayout != 2 || w->layout[0] != 0 || w->layout[1] != 1) return wv_derr(d, pi->loc, "'mma' of this shape needs .row.col");
  int ta = w->t[1];
  if (w->satfinite && !is_int8(ta) && !is_int4(ta)) return wv_derr(d, pi->loc, "'mma': .satfinite needs integer A/B");
  if (ta == WV_MT_B1 && !((w->xor_ || w->and_) && w->popc))
    return wv_derr(d, pi->loc, "'mma' on .b1 needs .xor.popc or .and.popc");
  if (w->other) return unsup(d, pi, "modifier not run by warpvm");
  wv_mma_aux *q = new_aux(d, pi, in, WV_MK_MMA);
  if (!q) return -1;
  q->m = (uint8_t)w->m, q->n = (uint8_t)w->n, q->k = (uint16_t)w->k;
  q->ty = (wv_mma_types){(enum wv_mt)w->t[1], (enum wv_mt)w->t[2], (enum wv_mt)w->t[3], (enum wv_mt)w->t[0]};
  q->flags = (uint8_t)((w->satfinite ? WV_MMA_SATFINITE : 0) | (w->and_ ? WV_MMA_B1_AND : 0));
  q->na = (uint8_t)regs_of(WV_FRAG_A, w->m, w->n, w->k, q->ty.a, 0);
  q->nb = (uint8_t)regs_of(WV_FRAG_B, w->m, w->n, w->k, q->ty.b, 0);
  q->nc = (uint8_t)regs_of(WV_FRAG_C, w->m, w->n, w->k, q->ty.c, 0);
  q->nd = (uint8_t)regs_of(WV_FRAG_C, w->m, w->n, w->k, q->ty.d, 0);
  int wa = q->ty.a == WV_MT_F64 ? 8 : 4, wc = q->ty.c == WV_MT_F64 ? 8 : 4;
  if (vec(d, pi, &pi->ops[1], "A", q->na, wa, 0, q->a) || vec(d, pi, &pi->ops[2], "B", q->nb, wa, 0, q->b) ||
      vec(d, pi, &pi->ops[3], "C", q->nc, wc, 0, q->c) || vec(d, pi, &pi->ops[0], "D", q->nd, wc, 1, q->d))
    return -1;
  in->fn = wv_h_mma(WV_MK_MMA);
  return 0;
}

/* wmma shapes and the A/B types each allows */
static int wmma_ab_ok(const mma_words *w, int t) {
  if (shape(w, 16, 16, 16) || shape(w, 32, 8, 16) || shape(w, 8, 32, 16))
    return t == WV_MT_F16 || t == WV_MT_BF16 || is_int8(t);
  if (shape(w, 16, 16, 8)) return t == WV_MT_TF32;
  if (shape(w, 8, 8, 4)) return t == WV_MT_F64;
  if (shape(w, 8, 8, 32)) return is_int4(t);
  if (shape(w, 8, 8, 128)) return t == WV_MT_B1;
  return 0;
}
static int wmma_c_ok(const mma_words *w, int t) {
  if (shape(w, 8, 8, 4)) return t == WV_MT_F64;
  if (shape(w, 8, 8, 32) || shape(w, 8, 8, 128)) return t == WV_MT_S32;
  if (shape(w, 16, 16, 8)) return t == WV_MT_F32;
  return (shape(w, 16, 16, 16) || shape(w, 32, 8, 16) || shape(w, 8, 32, 16)) &&
         (t == WV_MT_F16 || t == WV_MT_F32 || t == WV_MT_S32);
}

/* wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}; wmma.store.d...type [p], r{, stride} */
static int dec_wmma_mem(wv_dec *d, const ptx_insn *pi, wv_insn *in, const mma_words *w) {
  int store = w->first[0] == 's';
  char fr = w->which;
  if (!fr || (store ? fr != 'd' : fr == 'd')) return wv_derr(d, pi->loc, "'wmma.%s' needs .%s", w->first, store ? "d" : "a, .b or .c");
  if (w->nt != 1 || w->nlayout != 1) return wv_derr(d, pi->loc, "'wmma.%s' needs one layout (.row/.col) and one type", w->first);
  int t = w->t[0], f = fr == 'a' ? WV_FRAG_A : fr == 'b' ? WV_FRAG_B : WV_FRAG_C;
  if (!(f == WV_FRAG_C ? wmma_c_ok(w, t) : wmma_ab_ok(w, t)))
    return wv_derr(d, pi->loc, "'wmma.%s': no .m%dn%dk%d form for .%s", w->first, w->m, w->n, w->k, pi->mods[pi->nmods - 1]);
  if ((is_int4(t) || t == WV_MT_B1) && f != WV_FRAG_C && w->layout[0] != (f == WV_FRAG_B))
    return wv_derr(d, pi->loc, "'wmma.load' of .%s needs .row for A and .col for B", t == WV_MT_B1 ? "b1" : "s4/.u4");
  if (pi->nops != 2 && pi->nops != 3) return wv_derr(d, pi->loc, "'wmma.%s' takes 2 or 3 operands, found %u", w->first, pi->nops);
  if (w->other) return unsup(d, pi, "modifier not run by warpvm");
  wv_mma_aux *q = new_aux(d, pi, in, store ? WV_MK_WMMA_STORE : WV_MK_WMMA_LOAD);
  if (!q) return -1;
  q->m = (uint8_t)w->m, q->n = (uint8_t)w->n, q->k = (uint16_t)w->k, q->frag = (uint8_t)f;
  q->ty.a = (enum wv_mt)t;
  q->col_major = (uint8_t)w->layout[0];
  q->nd = (uint8_t)regs_of((enum wv_frag)f, w->m, w->n, w->k, t, 1);
  in->space = (uint8_t)w->space;
  if (wv_daddr(d, &pi->ops[store ? 0 : 1], in)) return -1;
  if (vec(d, pi, &pi->ops[store ? 1 : 0], "the fragment", q->nd, t == WV_MT_F64 ? 8 : 4, !store, q->d)) return -1;
  if (pi->nops == 3 && (q->stride = wv_dsrc(d, &pi->ops[2], WV_T_U32)) == WV_NOSLOT) return -1;
  in->fn = wv_h_mma(q->kind);
  return 0;
}

/* wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype (f16) or .dtype.atype.btype.ctype {.satfinite, .rnd} */
static int dec_wmma_mma(wv_dec *d, const ptx_insn *pi, wv_insn *in, const mma_words *w) {
  int td, ta, tb, tc;
  if (w->nt == 2) td = w->t[0], tc = w->t[1], ta = tb = WV_MT_F16;
  else if (w->nt == 4) td = w->t[0], ta = w->t[1], tb = w->t[2], tc = w->t[3];
  else return wv_derr(d, pi->loc, "'wmma.mma' needs .dtype.ctype (f16) or .dtype.atype.btype.ctype");
  if (w->nlayout != 2) return wv_derr(d, pi->loc, "'wmma.mma' needs .alayout.blayout");
  int intab = is_int8(ta) || is_int4(ta) || ta == WV_MT_B1;
  if (!wmma_ab_ok(w, ta) || !wmma_ab_ok(w, tb) || !wmma_c_ok(w, tc) || !wmma_c_ok(w, td) ||
      (ta != tb && !(is_int8(ta) && is_int8(tb))) || intab != (tc == WV_MT_S32) || intab != (td == WV_MT_S32) ||
      (ta == WV_MT_BF16 && (td != WV_MT_F32 || tc != WV_MT_F32)))
    return wv_derr(d, pi->loc, "'wmma.mma': no .m%dn%dk%d form with these types", w->m, w->n, w->k);
  if ((is_int4(ta) || ta == WV_MT_B1) && (w->layout[0] != 0 || w->layout[1] != 1))
    return wv_derr(d, pi->loc, "'wmma.mma' on .s4/.u4/.b1 needs .row.col");
  if (ta == WV_MT_B1 && !((w->xor_ || w->and_) && w->popc)) return wv_derr(d, pi->loc, "'wmma.mma' on .b1 needs .xor.popc or .and.popc");
  if (pi->nops != 4) return wv_derr(d, pi->loc, "'wmma.mma' takes 4 operands d, a, b, c, found %u", pi->nops);
  if (w->other || w->rnd == 2 || (w->satfinite && !is_int8(ta) && !is_int4(ta)))
    return unsup(d, pi, "rounding mode or .satfinite on floats not run by warpvm");
  wv_mma_aux *q = new_aux(d, pi, in, WV_MK_WMMA_MMA);
  if (!q) return -1;
  q->m = (uint8_t)w->m, q->n = (uint8_t)w->n, q->k = (uint16_t)w->k;
  q->ty = (wv_mma_types){(enum wv_mt)ta, (enum wv_mt)tb, (enum wv_mt)tc, (enum wv_mt)td};
  q->col_major = (uint8_t)(w->layout[0] | w->layout[1] << 1);
  q->kstep = ta == WV_MT_TF32 ? 4 : 0; /* wmma.mma .tf32 runs as k = 4 steps (exec/mma.h) */
  q->flags = (uint8_t)((w->satfinite ? WV_MMA_SATFINITE : 0) | (w->and_ ? WV_MMA_B1_AND : 0));
  q->na = (uint8_t)regs_of(WV_FRAG_A, w->m, w->n, w->k, ta, 1);
  q->nb = (uint8_t)regs_of(WV_FRAG_B, w->m, w->n, w->k, tb, 1);
  q->nc = (uint8_t)regs_of(WV_FRAG_C, w->m, w->n, w->k, tc, 1);
  q->nd = (uint8_t)regs_of(WV_FRAG_C, w->m, w->n, w->k, td, 1);
  int wa = ta == WV_MT_F64 ? 8 : 4, wc = tc == WV_MT_F64 ? 8 : 4;
  if (vec(d, pi, &pi->ops[1], "A", q->na, wa, 0, q->a) || vec(d, pi, &pi->ops[2], "B", q->nb, wa, 0, q->b) ||
      vec(d, pi, &pi->ops[3], "C", q->nc, wc, 0, q->c) || vec(d, pi, &pi->ops[0], "D", q->nd, wc, 1, q->d))
    return -1;
  in->fn = wv_h_mma(WV_MK_WMMA_MMA);
  return 0;
}

/* ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}{.ss}.b16 d, [p]; stmatrix ... [p], r; movmatrix.m8n8.trans.b16 d, a */
static int dec_matrix(wv_dec *d, const ptx_insn *pi, wv_insn *in, const mma_words *w) {
  int op = in->op;
  int b16 = 0;
  for (uint32_t i = 0; i < pi->nmods; i++) b16 |= !strcmp(pi->mods[i], "b16");
  if (!(w->m == 8 && w->n == 8 && !w->k) || !b16) {
    for (uint32_t i = 0; i < pi->nmods; i++)
      if (!strncmp(pi->mods[i], "b8", 2) || !strncmp(pi->mods[i], "b4", 2) || !strncmp(pi->mods[i], "b6", 2))
        return unsup(d, pi, "the sm_100 .b8 shapes");
    return wv_derr(d, pi->loc, "'%s' needs .m8n8 and .b16", pi->opcode);
  }
  if (w->other || w->nt) return wv_derr(d, pi->loc, "'%s': unexpected modifier", pi->opcode);
  if (pi->nops != 2) return wv_derr(d, pi->loc, "'%s' takes 2 operands, found %u", pi->opcode, pi->nops);
  if (op == WV_OP_MOVMATRIX) {
    if (!w->trans) return wv_derr(d, pi->loc, "'movmatrix' needs .trans");
    uint32_t dd, aa;
    if (vec(d, pi, &pi->ops[0], "d", 1, 4, 1, &dd) || vec(d, pi, &pi->ops[1], "a", 1, 4, 0, &aa)) return -1;
    in->d[0] = dd, in->a = aa, in->nd = 1;
    in->fn = wv_h_mma(WV_MK_MOVMATRIX);
    return 0;
  }
  if (!w->x) return wv_derr(d, pi->loc, "'%s' needs .x1, .x2 or .x4", pi->opcode);
  int store = op == WV_OP_STMATRIX;
  wv_mma_aux *q = new_aux(d, pi, in, store ? WV_MK_STMATRIX : WV_MK_LDMATRIX);
  if (!q) return -1;
  q->trans = (uint8_t)w->trans;
  q->nd = (uint8_t)w->x;
  in->space = (uint8_t)(w->space == WV_SPACE_GLOBAL ? WV_SPACE_GENERIC : w->space);
  if (w->space == WV_SPACE_GLOBAL) return wv_derr(d, pi->loc, "'%s' reads shared memory (.shared or generic)", pi->opcode);
  if (wv_daddr(d, &pi->ops[store ? 0 : 1], in)) return -1;
  if (in->a == WV_NOSLOT) in->a = wv_dconst(d, 0);
  if (vec(d, pi, &pi->ops[store ? 1 : 0], "the fragment", w->x, 4, !store, q->d)) return -1;
  in->fn = wv_h_mma(q->kind);
  return 0;
}

/* ---- wgmma (PTX ISA §9.7.15) ---- */

/* K of m64nNkK by A's type; N: 8..256 step 8 for floats, 8, 16, 24, 32, 48 .. 256 step 16 for integers and .b1 */
static int wgmma_k(int t) {
  return t == WV_MT_F16 || t == WV_MT_BF16 ? 16 : t == WV_MT_TF32 ? 8 : is_fp8(t) || is_int8(t) ? 32 : t == WV_MT_B1 ? 256 : 0;
}
static int wgmma_n_ok(int n, int intab) {
  if (n < 8 || n > 256 || n % 8) return 0;
  return !intab || n <= 32 || n % 16 == 0;
}
/* dtype.atype.btype: f16 ← f16 or f32; bf16, tf32 → f32; fp8 (mixed) → f16 or f32; s8/u8 (mixed), b1 → s32 */
static int wgmma_types_ok(int td, int ta, int tb) {
  if (ta == WV_MT_F16) return tb == ta && (td == WV_MT_F16 || td == WV_MT_F32);
  if (ta == WV_MT_BF16 || ta == WV_MT_TF32) return tb == ta && td == WV_MT_F32;
  if (is_fp8(ta)) return is_fp8(tb) && (td == WV_MT_F16 || td == WV_MT_F32);
  if (is_int8(ta)) return is_int8(tb) && td == WV_MT_S32;
  return ta == WV_MT_B1 && tb == ta && td == WV_MT_S32;
}

/* an immediate operand among `a` and `b` (imm-scale: 1/-1, imm-trans: 0/1) */
static int wgmma_imm(wv_dec *d, const ptx_operand *o, const char *what, int a, int b, int *v) {
  if (o->kind != PTX_OPND_INT || ((int64_t)o->ival != a && (int64_t)o->ival != b))
    return wv_derr(d, o->loc, "'wgmma.mma_async': %s must be the immediate %d or %d", what, a, b);
  *v = (int64_t)o->ival == b;
  return 0;
}

/* wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype{.and.popc} d, a-desc|{a}, b-desc, scale-d
 *   {, imm-scale-a, imm-scale-b {, imm-trans-a (a-desc only), imm-trans-b}} — the trailing immediates: floats
 *   only, the transposes f16/bf16 only. */
static int dec_wgmma_mma(wv_dec *d, const ptx_insn *pi, wv_insn *in, const mma_words *w) {
  for (uint32_t i = 0; i < pi->nmods; i++)
    if (!strcmp(pi->mods[i], "sp")) return unsup(d, pi, "sparse wgmma.mma_async.sp");
  if (w->nt != 3) return wv_derr(d, pi->loc, "'wgmma.mma_async' needs .dtype.atype.btype");
  int td = w->t[0], ta = w->t[1], tb = w->t[2], K = wgmma_k(ta), intab = is_int8(ta) || ta == WV_MT_B1;
  if (!wgmma_types_ok(td, ta, tb) || w->m != 64 || w->k != K || !wgmma_n_ok(w->n, intab))
    return wv_derr(d, pi->loc, "'wgmma.mma_async': no .m%dn%dk%d form with these types", w->m, w->n, w->k);
  if (w->satfinite && !is_int8(ta)) return wv_derr(d, pi->loc, "'wgmma.mma_async': .satfinite needs .s8/.u8 A and B");
  if (is_int8(ta) && ta != tb && d->ast->version_major * 10 + d->ast->version_minor < 84) /* ptxas: the same */
    return wv_derr(d, pi->loc, "'wgmma.mma_async' with mixed integer types needs PTX ISA .version 8.4 or later");
  if ((ta == WV_MT_B1) != (w->and_ && w->popc) || w->xor_)
    return wv_derr(d, pi->loc, "'wgmma.mma_async': .b1 needs .and.popc (and only .b1 takes it)");
  for (uint32_t i = 1; i < pi->nmods; i++) {
    const char *s = pi->mods[i];
    int a, b, c;
    char tail;
    if (mt_of(s) < 0 && sscanf(s, "m%dn%dk%d%c", &a, &b, &c, &tail) != 3 && strcmp(s, "sync") && strcmp(s, "aligned") &&
        strcmp(s, "satfinite") && strcmp(s, "and") && strcmp(s, "popc") && strcmp(s, "xor"))
      return wv_derr(d, pi->loc, "'wgmma.mma_async': unexpected modifier '.%s'", s);
  }
  int a_regs = pi->nops > 1 && pi->ops[1].kind == PTX_OPND_VEC, f16ab = ta == WV_MT_F16 || ta == WV_MT_BF16;
  int want = intab ? 4 : !f16ab ? 6 : a_regs ? 7 : 8;
  if ((int)pi->nops != want)
    return wv_derr(d, pi->loc, "'wgmma.mma_async' of this form takes %d operands (d, %s, b-desc, scale-d%s), found %u", want,
                   a_regs ? "{a}" : "a-desc", intab ? "" : !f16ab ? ", imm-scale-a, imm-scale-b"
                   : a_regs ? ", imm-scale-a, imm-scale-b, imm-trans-b" : ", imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b",
                   pi->nops);
  wv_wgmma_aux *q = calloc(1, sizeof *q);
  if (!q) return wv_derr(d, pi->loc, "out of memory");
  in->aux = q;
  q->n = (uint16_t)w->n, q->k = (uint16_t)K;
  q->ty = (wv_mma_types){(enum wv_mt)ta, (enum wv_mt)tb, (enum wv_mt)td, (enum wv_mt)td};
  q->flags = (uint8_t)((w->satfinite ? WV_MMA_SATFINITE : 0) | (ta == WV_MT_B1 ? WV_MMA_B1_AND : 0));
  q->a_regs = (uint8_t)a_regs;
  q->nd = (uint8_t)(td == WV_MT_F16 ? w->n / 4 : w->n / 2);
  int v = 0;
  if (!intab) {
    if (wgmma_imm(d, &pi->ops[4], "imm-scale-a", 1, -1, &v)) return -1;
    q->neg_a = (uint8_t)v;
    if (wgmma_imm(d, &pi->ops[5], "imm-scale-b", 1, -1, &v)) return -1;
    q->neg_b = (uint8_t)v;
  }
  if (f16ab && !a_regs) {
    if (wgmma_imm(d, &pi->ops[6], "imm-trans-a", 0, 1, &v)) return -1;
    q->trans_a = (uint8_t)v;
  }
  if (f16ab) {
    if (wgmma_imm(d, &pi->ops[want - 1], "imm-trans-b", 0, 1, &v)) return -1;
    q->trans_b = (uint8_t)v;
  }
  if (pi->ops[3].kind == PTX_OPND_INT) { /* an immediate scale-d, as ptxas accepts: 0 or 1 */
    if ((uint64_t)pi->ops[3].ival > 1) return wv_derr(d, pi->ops[3].loc, "'wgmma.mma_async': scale-d must be a predicate, 0 or 1");
    q->scale_d = -1, q->scale_neg = (uint8_t)(pi->ops[3].ival != 0); /* -1: the constant false, negated if 1 */
  } else if ((q->scale_d = wv_dpred(d, &pi->ops[3], &q->scale_neg)) < 0)
    return -1;
  if (a_regs ? vec(d, pi, &pi->ops[1], "A", 4, 4, 0, q->a) : (q->a[0] = wv_dsrc(d, &pi->ops[1], WV_T_B64)) == WV_NOSLOT)
    return -1;
  if ((q->b = wv_dsrc(d, &pi->ops[2], WV_T_B64)) == WV_NOSLOT) return -1;
  if (vec(d, pi, &pi->ops[0], "D", q->nd, 4, 0, q->c) || vec(d, pi, &pi->ops[0], "D", q->nd, 4, 1, q->d)) return -1;
  in->fn = wv_h_mma(WV_MK_WGMMA);
  return 0;
}

/* wgmma.fence.sync.aligned; wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned N;
 * wgmma.mma_async... — sm_90a only (PTX ISA 8.0). */
static int dec_wgmma(wv_dec *d, const ptx_insn *pi, wv_insn *in, const mma_words *w) {
  const char *tg = d->ast->target ? d->ast->target : "";
  if (strcmp(tg, "sm_90a") && strcmp(tg, "compute_90a"))
    return wv_derr(d, pi->loc, "'wgmma' needs .target sm_90a (this module's target is '%s')", tg);
  const char *op = pi->nmods ? pi->mods[0] : "";
  int sync = 0, aligned = 0;
  for (uint32_t i = 1; i < pi->nmods; i++) sync |= !strcmp(pi->mods[i], "sync"), aligned |= !strcmp(pi->mods[i], "aligned");
  if (!sync || !aligned) return wv_derr(d, pi->loc, "'wgmma.%s' needs .sync.aligned", op);
  if (!strcmp(op, "mma_async")) return dec_wgmma_mma(d, pi, in, w);
  int wait = !strcmp(op, "wait_group");
  if (!wait && strcmp(op, "fence") && strcmp(op, "commit_group"))
    return wv_derr(d, pi->loc, "'wgmma' is wgmma.{fence,commit_group,wait_group,mma_async}");
  if (pi->nmods != 3) return wv_derr(d, pi->loc, "'wgmma.%s': unexpected modifier", op);
  if (pi->nops != (uint32_t)wait) return wv_derr(d, pi->loc, "'wgmma.%s' takes %d operand%s, found %u", op, wait, wait ? "" : "s", pi->nops);
  if (wait && (pi->ops[0].kind != PTX_OPND_INT || (int64_t)pi->ops[0].ival < 0))
    return wv_derr(d, pi->ops[0].loc, "'wgmma.wait_group' needs an immediate count N >= 0");
  in->fn = wv_h_mma(WV_MK_WGMMA_SYNC);
  return 0;
}

int wv_dec_matrix(wv_dec *d, const ptx_insn *pi, wv_insn *in) {
  mma_words w;
  words(pi, &w);
  switch (in->op) {
  case WV_OP_MMA: return dec_mma_sync(d, pi, in, &w);
  case WV_OP_WGMMA: return dec_wgmma(d, pi, in, &w);
  case WV_OP_WMMA:
    if (!w.first) return wv_derr(d, pi->loc, "'wmma' needs .load, .store or .mma");
    if (w.first[0] == 'm') return dec_wmma_mma(d, pi, in, &w);
    return dec_wmma_mem(d, pi, in, &w);
  default: return dec_matrix(d, pi, in, &w);
  }
}
