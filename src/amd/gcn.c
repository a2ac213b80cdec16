/*
 * gcn.c — the single-wave AMD model of gcn.h: wave state, ds_permute_b32 / ds_bpermute_b32, a small
 * assembler for a subset of AMDGPU assembly (LLVM spelling: VALU/VOPC, SALU bitwise and compares,
 * labels and SOPP branches) and its interpreter (pc-driven, capped at WV_GCN_MAX_STEPS).
 *
 * Permute semantics follow the ISA pseudocode (AMD "Vega" / CDNA4 ISA "LDS instructions",
 * DS_PERMUTE_B32 opcode 62 and DS_BPERMUTE_B32 opcode 63; RDNA3 ISA §16.15 opcodes 178/179; RDNA4 ISA
 * §16.15) and shared/reference/shfl-lowering-to-ds-permute.zh.md §3:
 *   - both: tmp[] starts zero ("uninitialised entries read 0"); the lane index is
 *     (VGPR[ADDR] + OFFSET) / 4 modulo the lane count: "only bits [7:2] of the final address" on
 *     wave64, bits [6:2] on wave32 (RDNA pseudocode "/ 4 % 32"); OFFSET is the unsigned 16-bit
 *     immediate and is added before the lane bits are taken, so it can rotate.
 *   - ds_permute (forward): "If a source thread is disabled, it does not propagate data"; active lanes
 *     scatter in lane order, so "the highest-numbered source thread wins"; then active lanes copy tmp[i].
 *   - ds_bpermute (backward): "EXEC mask is applied to both VGPR read and write. If src_lane selects a
 *     disabled thread then zero is returned"; inactive destination lanes keep their value.
 *   - RDNA (GFX10..GFX11.5) wave64 runs as two wave32 passes and each permute stays inside its 32-lane
 *     half: the RDNA3 pseudocode says "destination lane is MOD 32 regardless of wave size", and Mesa's
 *     ACO (emit_bpermute, "GFX10-11.5 wave64 mode: emulate full-wave bpermute") builds a full-wave
 *     bpermute from a same-half ds_bpermute plus one on half-swapped data. GFX12 (RDNA4) takes
 *     "% num_lanes" again, i.e. behaves like the non-rdna wave64 model here.
 */
#include "amd/gcn.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- wave state -------------------------------------------------------------------------------- */

int wv_gcn_wave_init(wv_gcn_wave *w, unsigned size, int rdna) {
  if (!w || (size != 64 && size != 32 && size != 8)) return -1;
  memset(w, 0, sizeof *w);
  w->size = size;
  w->rdna = rdna ? 1 : 0;
  w->exec = wv_gcn_lane_mask(w);
  for (unsigned l = 0; l < size; l++) w->vgpr[0][l] = l; /* workitem id x, as a kernel's v0 */
  return 0;
}

uint64_t wv_gcn_lane_mask(const wv_gcn_wave *w) {
  return w->size >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << w->size) - 1);
}

unsigned wv_gcn_permute_lane(const wv_gcn_wave *w, unsigned lane, uint32_t addr, uint32_t offset) {
  uint32_t idx = (addr + offset) >> 2; /* byte address → dword; bits [1:0] never select anything */
  if (w->size == 64 && w->rdna) return (lane & 32u) | (idx & 31u); /* stays in lane's 32-lane half */
  return idx & (w->size - 1);                                       /* [7:2] / [6:2] / [4:2] */
}

static void mark_vgpr(wv_gcn_wave *w, unsigned v) { w->vgpr_written[v / 64] |= (uint64_t)1 << (v % 64); }
static void mark_sgpr(wv_gcn_wave *w, unsigned s) { w->sgpr_written[s / 64] |= (uint64_t)1 << (s % 64); }

void wv_gcn_ds_permute(wv_gcn_wave *w, unsigned vdst, unsigned vaddr, unsigned vdata, uint32_t offset) {
  uint32_t tmp[WV_GCN_MAXLANES] = {0};
  uint64_t active = w->exec & wv_gcn_lane_mask(w);
  if (vdst >= WV_GCN_NVGPR || vaddr >= WV_GCN_NVGPR || vdata >= WV_GCN_NVGPR) return;
  /* step 1: active lanes push, in ascending lane order, so the highest-numbered lane wins */
  for (unsigned i = 0; i < w->size; i++)
    if (active >> i & 1) tmp[wv_gcn_permute_lane(w, i, w->vgpr[vaddr][i], offset)] = w->vgpr[vdata][i];
  /* step 2: active lanes take their entry (0 when nobody wrote it) */
  for (unsigned i = 0; i < w->size; i++)
    if (active >> i & 1) w->vgpr[vdst][i] = tmp[i];
  mark_vgpr(w, vdst);
}

void wv_gcn_ds_bpermute(wv_gcn_wave *w, unsigned vdst, unsigned vaddr, unsigned vdata, uint32_t offset) {
  uint32_t tmp[WV_GCN_MAXLANES] = {0};
  uint64_t active = w->exec & wv_gcn_lane_mask(w);
  if (vdst >= WV_GCN_NVGPR || vaddr >= WV_GCN_NVGPR || vdata >= WV_GCN_NVGPR) return;
  for (unsigned i = 0; i < w->size; i++) {
    unsigned src = wv_gcn_permute_lane(w, i, w->vgpr[vaddr][i], offset);
    if (active >> src & 1) tmp[i] = w->vgpr[vdata][src]; /* a disabled source lane reads as 0 */
  }
  for (unsigned i = 0; i < w->size; i++)
    if (active >> i & 1) w->vgpr[vdst][i] = tmp[i];
  mark_vgpr(w, vdst);
}

/* ---- numbers ----------------------------------------------------------------------------------- */

/* Parses [-](0x hex | decimal) from p (at most end). *mag gets the magnitude; returns the byte count, or
 * 0 if malformed, -1 on overflow. */
static long parse_number(const char *p, const char *end, int *neg, uint64_t *mag) {
  const char *s = p;
  *neg = 0;
  *mag = 0;
  if (s < end && *s == '-') { *neg = 1; s++; }
  unsigned base = 10;
  if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s += 2; }
  const char *digits = s;
  int overflow = 0;
  for (; s < end; s++) {
    unsigned d;
    if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
    else if (base == 16 && *s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
    else if (base == 16 && *s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
    else break;
    if (*mag > (UINT64_MAX - d) / base) overflow = 1;
    else *mag = *mag * base + d;
  }
  if (s == digits) return 0;
  if (s < end && (isalnum((unsigned char)*s) || *s == '_')) return 0;
  if (overflow || (*neg && *mag > ((uint64_t)1 << 63))) return -1;
  return (long)(s - p);
}

int wv_gcn_set_vgpr(wv_gcn_wave *w, const char *spec, char *err, size_t errlen) {
  const char *p = spec;
  if (*p != 'v' || !isdigit((unsigned char)p[1])) goto bad;
  char *q;
  errno = 0;
  unsigned long reg = strtoul(p + 1, &q, 10);
  if (errno || *q != '=' || reg >= WV_GCN_NVGPR) goto bad;
  p = q + 1;
  uint32_t vals[WV_GCN_MAXLANES];
  unsigned n = 0;
  for (;;) {
    int neg;
    uint64_t mag;
    const char *e = p + strcspn(p, ",");
    long len = parse_number(p, e, &neg, &mag);
    if (len <= 0 || p + len != e) goto bad;
    if (neg ? mag > 0x80000000u : mag > 0xffffffffu) {
      snprintf(err, errlen, "--set %s: value out of 32-bit range", spec);
      return -1;
    }
    if (n == w->size) {
      snprintf(err, errlen, "--set %s: more values than the %u lanes of the wave", spec, w->size);
      return -1;
    }
    vals[n++] = neg ? (uint32_t)(0u - (uint32_t)mag) : (uint32_t)mag;
    if (!*e) break;
    p = e + 1;
  }
  for (unsigned l = 0; l < WV_GCN_MAXLANES; l++) w->vgpr[reg][l] = l < n ? vals[l] : 0;
  return 0;
bad:
  snprintf(err, errlen, "bad --set '%s': expected vN=VALUE[,VALUE]... (N < %d)", spec, WV_GCN_NVGPR);
  return -1;
}

/* ---- instructions ------------------------------------------------------------------------------ */

typedef enum {
  OP_MOV, OP_MBCNT_LO, OP_MBCNT_HI, OP_LSHLREV, OP_ADD, OP_SUB, OP_AND, OP_OR, OP_XOR, OP_CMP,
  OP_CNDMASK, OP_READLANE, OP_READFIRSTLANE, OP_SMOV32, OP_SMOV64, OP_PERMUTE, OP_BPERMUTE,
  OP_IGNORE, OP_ENDPGM,
  /* VALU additions for the cross-lane lowerings (src/amd/lower.c) */
  OP_NOT, OP_LSHRREV, OP_ASHRREV, OP_MIN, OP_MAX, OP_BFE, OP_BCNT,
  /* SALU bitwise on 32-bit registers / 64-bit pairs (SCC = result != 0), compare, saveexec */
  OP_SALU32, OP_SALU64, OP_SCMP, OP_SAVEEXEC32, OP_SAVEEXEC64, OP_CSELECT32, OP_CSELECT64,
  /* SOPP branches to a label */
  OP_BRANCH, OP_CBRANCH
} gcn_op;

/* OP_SALU32 / OP_SALU64 operations (gcn_opdef.cond) */
enum { SB_AND, SB_OR, SB_XOR, SB_ANDN2, SB_ORN2, SB_NOT };
/* OP_CBRANCH conditions (gcn_opdef.cond) */
enum { BR_EXECZ, BR_EXECNZ, BR_VCCZ, BR_VCCNZ, BR_SCC0, BR_SCC1 };

enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE };

/* Operand classes in a signature:
 *  V  VGPR destination            v  VGPR source
 *  a  32-bit source: VGPR, SGPR, vcc_lo/hi, exec_lo/hi, constant
 *  S  32-bit SGPR destination    s  32-bit SGPR or constant
 *  D  64-bit SGPR destination    d  64-bit SGPR or constant
 *  M  lane mask: vcc / s[N:N+1] on wave64; vcc_lo (or vcc) / sN on wave32 and wave8
 *  L  a label defined anywhere in the program (NAME: at the start of a line) */
typedef struct gcn_opdef {
  const char *name;
  uint8_t op, cond, is_signed;
  const char *sig;
} gcn_opdef;

static const gcn_opdef OPS[] = {
    {"v_mov_b32", OP_MOV, 0, 0, "Va"},
    {"v_mbcnt_lo_u32_b32", OP_MBCNT_LO, 0, 0, "Vaa"},
    {"v_mbcnt_hi_u32_b32", OP_MBCNT_HI, 0, 0, "Vaa"},
    {"v_lshlrev_b32", OP_LSHLREV, 0, 0, "Vaa"},
    {"v_add_u32", OP_ADD, 0, 0, "Vaa"},
    {"v_add_nc_u32", OP_ADD, 0, 0, "Vaa"},
    {"v_sub_u32", OP_SUB, 0, 0, "Vaa"},
    {"v_sub_nc_u32", OP_SUB, 0, 0, "Vaa"},
    {"v_and_b32", OP_AND, 0, 0, "Vaa"},
    {"v_or_b32", OP_OR, 0, 0, "Vaa"},
    {"v_xor_b32", OP_XOR, 0, 0, "Vaa"},
    {"v_cmp_eq_u32", OP_CMP, C_EQ, 0, "Maa"},
    {"v_cmp_ne_u32", OP_CMP, C_NE, 0, "Maa"},
    {"v_cmp_lt_u32", OP_CMP, C_LT, 0, "Maa"},
    {"v_cmp_le_u32", OP_CMP, C_LE, 0, "Maa"},
    {"v_cmp_gt_u32", OP_CMP, C_GT, 0, "Maa"},
    {"v_cmp_ge_u32", OP_CMP, C_GE, 0, "Maa"},
    {"v_cmp_eq_i32", OP_CMP, C_EQ, 1, "Maa"},
    {"v_cmp_ne_i32", OP_CMP, C_NE, 1, "Maa"},
    {"v_cmp_lt_i32", OP_CMP, C_LT, 1, "Maa"},
    {"v_cmp_le_i32", OP_CMP, C_LE, 1, "Maa"},
    {"v_cmp_gt_i32", OP_CMP, C_GT, 1, "Maa"},
    {"v_cmp_ge_i32", OP_CMP, C_GE, 1, "Maa"},
    {"v_cndmask_b32", OP_CNDMASK, 0, 0, "VaaM"},
    {"v_readlane_b32", OP_READLANE, 0, 0, "Svs"},
    {"v_readfirstlane_b32", OP_READFIRSTLANE, 0, 0, "Sv"},
    {"s_mov_b32", OP_SMOV32, 0, 0, "Ss"},
    {"s_mov_b64", OP_SMOV64, 0, 0, "Dd"},
    {"ds_permute_b32", OP_PERMUTE, 0, 0, "Vvv"},
    {"ds_bpermute_b32", OP_BPERMUTE, 0, 0, "Vvv"},
    {"s_waitcnt", OP_IGNORE, 0, 0, NULL}, /* any operand text: the model has no outstanding counters */
    {"s_nop", OP_IGNORE, 0, 0, NULL},
    {"s_endpgm", OP_ENDPGM, 0, 0, ""},
    {"v_not_b32", OP_NOT, 0, 0, "Va"},
    {"v_lshrrev_b32", OP_LSHRREV, 0, 0, "Vaa"},
    {"v_ashrrev_i32", OP_ASHRREV, 0, 0, "Vaa"},
    {"v_min_u32", OP_MIN, 0, 0, "Vaa"},
    {"v_min_i32", OP_MIN, 0, 1, "Vaa"},
    {"v_max_u32", OP_MAX, 0, 0, "Vaa"},
    {"v_max_i32", OP_MAX, 0, 1, "Vaa"},
    {"v_bfe_u32", OP_BFE, 0, 0, "Vaaa"},
    {"v_bcnt_u32_b32", OP_BCNT, 0, 0, "Vaa"},
    {"s_and_b32", OP_SALU32, SB_AND, 0, "Sss"},
    {"s_or_b32", OP_SALU32, SB_OR, 0, "Sss"},
    {"s_xor_b32", OP_SALU32, SB_XOR, 0, "Sss"},
    {"s_andn2_b32", OP_SALU32, SB_ANDN2, 0, "Sss"},
    {"s_and_not1_b32", OP_SALU32, SB_ANDN2, 0, "Sss"}, /* GFX11 spelling */
    {"s_orn2_b32", OP_SALU32, SB_ORN2, 0, "Sss"},
    {"s_or_not1_b32", OP_SALU32, SB_ORN2, 0, "Sss"},
    {"s_not_b32", OP_SALU32, SB_NOT, 0, "Ss"},
    {"s_and_b64", OP_SALU64, SB_AND, 0, "Ddd"},
    {"s_or_b64", OP_SALU64, SB_OR, 0, "Ddd"},
    {"s_xor_b64", OP_SALU64, SB_XOR, 0, "Ddd"},
    {"s_andn2_b64", OP_SALU64, SB_ANDN2, 0, "Ddd"},
    {"s_and_not1_b64", OP_SALU64, SB_ANDN2, 0, "Ddd"},
    {"s_orn2_b64", OP_SALU64, SB_ORN2, 0, "Ddd"},
    {"s_or_not1_b64", OP_SALU64, SB_ORN2, 0, "Ddd"},
    {"s_not_b64", OP_SALU64, SB_NOT, 0, "Dd"},
    {"s_and_saveexec_b32", OP_SAVEEXEC32, 0, 0, "Ss"},
    {"s_and_saveexec_b64", OP_SAVEEXEC64, 0, 0, "Dd"},
    {"s_cselect_b32", OP_CSELECT32, 0, 0, "Sss"},
    {"s_cselect_b64", OP_CSELECT64, 0, 0, "Ddd"},
    {"s_cmp_eq_u32", OP_SCMP, C_EQ, 0, "ss"},
    {"s_cmp_lg_u32", OP_SCMP, C_NE, 0, "ss"},
    {"s_cmp_lt_u32", OP_SCMP, C_LT, 0, "ss"},
    {"s_cmp_le_u32", OP_SCMP, C_LE, 0, "ss"},
    {"s_cmp_gt_u32", OP_SCMP, C_GT, 0, "ss"},
    {"s_cmp_ge_u32", OP_SCMP, C_GE, 0, "ss"},
    {"s_cmp_eq_i32", OP_SCMP, C_EQ, 1, "ss"},
    {"s_cmp_lg_i32", OP_SCMP, C_NE, 1, "ss"},
    {"s_cmp_lt_i32", OP_SCMP, C_LT, 1, "ss"},
    {"s_cmp_le_i32", OP_SCMP, C_LE, 1, "ss"},
    {"s_cmp_gt_i32", OP_SCMP, C_GT, 1, "ss"},
    {"s_cmp_ge_i32", OP_SCMP, C_GE, 1, "ss"},
    {"s_branch", OP_BRANCH, 0, 0, "L"},
    {"s_cbranch_execz", OP_CBRANCH, BR_EXECZ, 0, "L"},
    {"s_cbranch_execnz", OP_CBRANCH, BR_EXECNZ, 0, "L"},
    {"s_cbranch_vccz", OP_CBRANCH, BR_VCCZ, 0, "L"},
    {"s_cbranch_vccnz", OP_CBRANCH, BR_VCCNZ, 0, "L"},
    {"s_cbranch_scc0", OP_CBRANCH, BR_SCC0, 0, "L"},
    {"s_cbranch_scc1", OP_CBRANCH, BR_SCC1, 0, "L"},
};

typedef enum { K_V, K_S, K_S64, K_VCC, K_VCC_LO, K_VCC_HI, K_EXEC, K_EXEC_LO, K_EXEC_HI, K_CONST } gcn_kind;

typedef struct gcn_opnd {
  uint8_t kind;
  uint16_t reg;
  uint64_t imm; /* K_CONST: two's complement 64-bit value as written */
  int neg;
  uint64_t mag;
} gcn_opnd;

typedef struct gcn_insn {
  uint8_t op, cond, is_signed, nops;
  gcn_opnd o[4];
  uint32_t offset;
  uint32_t line;
  uint32_t target; /* OP_BRANCH / OP_CBRANCH: index of the instruction the label names */
} gcn_insn;

struct wv_gcn_program {
  gcn_insn *v;
  size_t n, cap;
  unsigned wave_size;
};

/* Labels, only while assembling: definitions (name → instruction index) and the references to them,
 * resolved once the whole text is read so branches may go forward. */
#define GCN_MAX_LABEL 128 /* longest label name, in bytes */
typedef struct gcn_label {
  char name[GCN_MAX_LABEL + 1];
  size_t at;           /* definition: instruction index; reference: the referring instruction */
  unsigned line, col;  /* where it was written, for messages */
} gcn_label;

typedef struct gcn_labels {
  gcn_label *v;
  size_t n, cap;
} gcn_labels;

/* ---- assembler --------------------------------------------------------------------------------- */

typedef struct asm_ctx {
  const char *file;
  unsigned wave;
  const char *line, *end; /* the current line, without its newline */
  unsigned lineno;
  char *err;
  size_t errlen;
  size_t ninsn;       /* instructions assembled so far: the index a label defined now names */
  gcn_labels defs;    /* labels defined */
  gcn_labels refs;    /* label operands, resolved at the end */
} asm_ctx;

static int asm_error(asm_ctx *c, const char *at, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (c->err && c->errlen)
    snprintf(c->err, c->errlen, "%s:%u:%u: error: %s", c->file, c->lineno, (unsigned)(at - c->line) + 1, msg);
  return -1;
}

static int is_ident0(char ch) { return isalpha((unsigned char)ch) || ch == '_'; }
static int is_ident(char ch) { return isalnum((unsigned char)ch) || ch == '_' || ch == '.'; }

/* Skips blanks; returns 1 at the end of the line or at a comment. */
static int at_eol(asm_ctx *c, const char **p) {
  while (*p < c->end && (**p == ' ' || **p == '\t' || **p == '\r' || **p == '\v' || **p == '\f')) (*p)++;
  if (*p == c->end || **p == ';') return 1;
  return c->end - *p >= 2 && (*p)[0] == '/' && (*p)[1] == '/';
}

static int word_is(const char *p, size_t n, const char *w) { return strlen(w) == n && !memcmp(p, w, n); }

/* A printable rendering of the token at p for messages. */
static int tok_len(asm_ctx *c, const char *p) {
  const char *q = p;
  while (q < c->end && q - p < 40 && !isspace((unsigned char)*q) && *q != ',' && *q != ';') q++;
  return q == p ? 1 : (int)(q - p);
}

static int bad_char(asm_ctx *c, const char *p, const char *what) {
  if (isprint((unsigned char)*p)) return asm_error(c, p, "%s, found '%c'", what, *p);
  return asm_error(c, p, "%s, found byte 0x%02x", what, (unsigned char)*p);
}

/* Register number after a one-letter prefix: "v12" → 12. 0 if the word is not letter+digits. */
static int reg_number(const char *p, size_t n, char letter, unsigned long *num) {
  if (n < 2 || p[0] != letter) return 0;
  *num = 0;
  for (size_t i = 1; i < n; i++) {
    if (!isdigit((unsigned char)p[i])) return 0;
    if (*num < 100000) *num = *num * 10 + (unsigned long)(p[i] - '0');
  }
  return 1;
}

static int parse_operand(asm_ctx *c, const char **pp, gcn_opnd *o) {
  const char *p = *pp, *start = p;
  memset(o, 0, sizeof *o);
  if (p < c->end && (isdigit((unsigned char)*p) || *p == '-')) {
    long n = parse_number(p, c->end, &o->neg, &o->mag);
    if (n == 0) return asm_error(c, start, "invalid constant '%.*s'", tok_len(c, start), start);
    if (n < 0) return asm_error(c, start, "constant '%.*s' does not fit in 64 bits", tok_len(c, start), start);
    o->kind = K_CONST;
    o->imm = o->neg ? (uint64_t)0 - o->mag : o->mag;
    *pp = p + n;
    return 0;
  }
  if (p == c->end || !is_ident0(*p)) return bad_char(c, p, "expected an operand");
  while (p < c->end && is_ident(*p)) p++;
  size_t n = (size_t)(p - start);
  unsigned long num;
  if (word_is(start, n, "s") && p < c->end && *p == '[') {
    /* s[N:M] */
    unsigned long lo, hi;
    const char *q = p + 1;
    int ok = 0;
    if (q < c->end && isdigit((unsigned char)*q)) {
      for (lo = 0; q < c->end && isdigit((unsigned char)*q); q++) if (lo < 100000) lo = lo * 10 + (unsigned long)(*q - '0');
      if (q < c->end && *q == ':' && q + 1 < c->end && isdigit((unsigned char)q[1])) {
        for (q++, hi = 0; q < c->end && isdigit((unsigned char)*q); q++) if (hi < 100000) hi = hi * 10 + (unsigned long)(*q - '0');
        if (q < c->end && *q == ']') { ok = 1; q++; }
      }
    }
    if (!ok) return asm_error(c, start, "malformed SGPR range: expected s[N:N+1]");
    if (hi != lo + 1) return asm_error(c, start, "only 64-bit SGPR pairs s[N:N+1] are supported");
    if (hi >= WV_GCN_NSGPR) return asm_error(c, start, "SGPR s%lu out of range (s0..s%d)", hi, WV_GCN_NSGPR - 1);
    if (lo % 2) return asm_error(c, start, "misaligned 64-bit SGPR pair: the first register must be even");
    o->kind = K_S64;
    o->reg = (uint16_t)lo;
    *pp = q;
    return 0;
  }
  if (reg_number(start, n, 'v', &num)) {
    if (num >= WV_GCN_NVGPR) return asm_error(c, start, "VGPR %.*s out of range (v0..v%d)", (int)n, start, WV_GCN_NVGPR - 1);
    o->kind = K_V;
    o->reg = (uint16_t)num;
  } else if (reg_number(start, n, 's', &num)) {
    if (num >= WV_GCN_NSGPR) return asm_error(c, start, "SGPR %.*s out of range (s0..s%d)", (int)n, start, WV_GCN_NSGPR - 1);
    o->kind = K_S;
    o->reg = (uint16_t)num;
  } else if (word_is(start, n, "vcc")) o->kind = K_VCC;
  else if (word_is(start, n, "vcc_lo")) o->kind = K_VCC_LO;
  else if (word_is(start, n, "vcc_hi")) o->kind = K_VCC_HI;
  else if (word_is(start, n, "exec")) o->kind = K_EXEC;
  else if (word_is(start, n, "exec_lo")) o->kind = K_EXEC_LO;
  else if (word_is(start, n, "exec_hi")) o->kind = K_EXEC_HI;
  else return asm_error(c, start, "unknown operand '%.*s'", n > 40 ? 40 : (int)n, start);
  *pp = p;
  return 0;
}

static int fits32(const gcn_opnd *o) { return o->neg ? o->mag <= 0x80000000u : o->mag <= 0xffffffffu; }

static int is_sreg32(const gcn_opnd *o) {
  return o->kind == K_S || o->kind == K_VCC_LO || o->kind == K_VCC_HI || o->kind == K_EXEC_LO || o->kind == K_EXEC_HI;
}

/* Does o fit class cl? Returns NULL or what the class wants. */
static const char *check_class(const asm_ctx *c, char cl, const gcn_opnd *o, int *range) {
  *range = 0;
  switch (cl) {
  case 'V':
  case 'v': return o->kind == K_V ? NULL : "a VGPR (vN)";
  case 'a':
    if (o->kind == K_CONST) { *range = !fits32(o); return NULL; }
    return o->kind == K_V || is_sreg32(o) ? NULL : "a VGPR, a 32-bit SGPR or a 32-bit constant";
  case 's':
    if (o->kind == K_CONST) { *range = !fits32(o); return NULL; }
    return is_sreg32(o) ? NULL : "a 32-bit SGPR or a 32-bit constant";
  case 'S': return is_sreg32(o) ? NULL : "a 32-bit SGPR (sN, vcc_lo, vcc_hi, exec_lo, exec_hi)";
  case 'd':
    if (o->kind == K_CONST) return NULL;
    /* fall through */
  case 'D': return o->kind == K_S64 || o->kind == K_VCC || o->kind == K_EXEC ? NULL
                                                                          : "a 64-bit SGPR pair (s[N:N+1], vcc, exec)";
  case 'M':
    if (c->wave == 64) return o->kind == K_VCC || o->kind == K_S64 ? NULL : "a 64-bit lane mask on wave64 (vcc or s[N:N+1])";
    return o->kind == K_VCC || o->kind == K_VCC_LO || o->kind == K_S ? NULL
                                                                       : "a 32-bit lane mask on this wave size (vcc_lo or sN)";
  }
  return "an operand";
}

static const gcn_opdef *lookup(const char *p, size_t n) {
  /* LLVM's encoding suffixes name the same operation */
  if (n > 4 && (!memcmp(p + n - 4, "_e32", 4) || !memcmp(p + n - 4, "_e64", 4)) && p[0] == 'v') n -= 4;
  for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
    if (word_is(p, n, OPS[i].name)) return &OPS[i];
  return NULL;
}

static int is_label0(char ch) { return is_ident0(ch) || ch == '.'; }

/* Appends a label (definition or reference) named [name, name+n) written at `at`. 0 or -1. */
static int label_add(asm_ctx *c, gcn_labels *t, const char *name, size_t n, const char *at, size_t idx) {
  if (n > GCN_MAX_LABEL) return asm_error(c, at, "label longer than %d bytes", GCN_MAX_LABEL);
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 16;
    gcn_label *v = realloc(t->v, cap * sizeof *v);
    if (!v) return asm_error(c, at, "out of memory");
    t->v = v;
    t->cap = cap;
  }
  gcn_label *l = &t->v[t->n++];
  memcpy(l->name, name, n);
  l->name[n] = 0;
  l->at = idx;
  l->line = c->lineno;
  l->col = (unsigned)(at - c->line) + 1;
  return 0;
}

static const gcn_label *label_find(const gcn_labels *t, const char *name) {
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->v[i].name, name)) return &t->v[i];
  return NULL;
}

/* A label operand: NAME, resolved later. */
static int parse_label_operand(asm_ctx *c, const char **pp) {
  const char *p = *pp, *start = p;
  if (p == c->end || !is_label0(*p)) return bad_char(c, p, "expected a label");
  while (p < c->end && is_ident(*p)) p++;
  if (label_add(c, &c->refs, start, (size_t)(p - start), start, c->ninsn)) return -1;
  *pp = p;
  return 0;
}

/* One line: [LABEL:] [instruction] [comment]. Returns 0 (with *have set when it held an instruction) or -1. */
static int assemble_line(asm_ctx *c, gcn_insn *in, int *have) {
  const char *p = c->line;
  *have = 0;
  if (at_eol(c, &p)) return 0;
  if (is_label0(*p)) { /* NAME: defines a label naming the next instruction */
    const char *q = p;
    while (q < c->end && is_ident(*q)) q++;
    if (q < c->end && *q == ':') {
      char name[GCN_MAX_LABEL + 1];
      size_t n = (size_t)(q - p);
      if (n > GCN_MAX_LABEL) return asm_error(c, p, "label longer than %d bytes", GCN_MAX_LABEL);
      memcpy(name, p, n);
      name[n] = 0;
      const gcn_label *old = label_find(&c->defs, name);
      if (old) return asm_error(c, p, "label '%s' already defined at line %u", name, old->line);
      if (label_add(c, &c->defs, p, n, p, c->ninsn)) return -1;
      p = q + 1;
      if (at_eol(c, &p)) return 0;
    }
  }
  if (!is_ident0(*p)) return bad_char(c, p, "expected an instruction");
  const char *mn = p;
  while (p < c->end && is_ident(*p)) p++;
  size_t mlen = (size_t)(p - mn);
  const gcn_opdef *d = lookup(mn, mlen);
  if (!d) return asm_error(c, mn, "unknown instruction '%.*s'", mlen > 64 ? 64 : (int)mlen, mn);
  memset(in, 0, sizeof *in);
  in->op = d->op;
  in->cond = d->cond;
  in->is_signed = d->is_signed;
  in->line = c->lineno;
  *have = 1;
  if (!d->sig) return 0; /* s_waitcnt / s_nop: operands are not modelled */
  if (p < c->end && !at_eol(c, &p) && p == mn + mlen) return bad_char(c, p, "expected a blank after the mnemonic");
  size_t nops = strlen(d->sig);
  for (size_t i = 0; i < nops; i++) {
    if (at_eol(c, &p)) return asm_error(c, p, "too few operands for '%s' (expects %zu)", d->name, nops);
    if (i > 0) {
      if (*p != ',') return bad_char(c, p, "expected ','");
      p++;
      if (at_eol(c, &p)) return asm_error(c, p, "too few operands for '%s' (expects %zu)", d->name, nops);
    }
    const char *at = p;
    if (d->sig[i] == 'L') {
      if (parse_label_operand(c, &p)) return -1;
      continue;
    }
    if (parse_operand(c, &p, &in->o[i])) return -1;
    int range;
    const char *want = check_class(c, d->sig[i], &in->o[i], &range);
    if (want) return asm_error(c, at, "operand %zu of '%s' must be %s", i + 1, d->name, want);
    if (range) return asm_error(c, at, "constant '%.*s' does not fit in 32 bits", tok_len(c, at), at);
  }
  in->nops = (uint8_t)nops;
  int is_ds = d->op == OP_PERMUTE || d->op == OP_BPERMUTE, seen_offset = 0;
  while (!at_eol(c, &p)) {
    if (*p == ',') return asm_error(c, p, "too many operands for '%s' (expects %zu)", d->name, nops);
    const char *w = p;
    while (p < c->end && is_ident(*p)) p++;
    if (is_ds && word_is(w, (size_t)(p - w), "offset") && p < c->end && *p == ':') {
      int neg;
      uint64_t mag;
      const char *num = ++p;
      long n = parse_number(num, c->end, &neg, &mag);
      if (n <= 0) return asm_error(c, num, "expected a number after 'offset:'");
      if (neg || mag > 0xffff) return asm_error(c, num, "offset must be in 0..65535 (a 16-bit unsigned immediate)");
      if (seen_offset) return asm_error(c, w, "duplicate 'offset:'");
      seen_offset = 1;
      in->offset = (uint32_t)mag;
      p = num + n;
      continue;
    }
    return asm_error(c, w, "unexpected '%.*s' after the operands of '%s'", tok_len(c, w), w, d->name);
  }
  return 0;
}

void wv_gcn_program_free(wv_gcn_program *p) {
  if (!p) return;
  free(p->v);
  free(p);
}

size_t wv_gcn_program_size(const wv_gcn_program *p) { return p ? p->n : 0; }

wv_gcn_program *wv_gcn_assemble(const char *text, size_t len, const char *file, unsigned wave_size,
                                char *err, size_t errlen) {
  if (err && errlen) err[0] = 0;
  asm_ctx c = {.file = file ? file : "<input>", .wave = wave_size, .err = err, .errlen = errlen};
  if (wave_size != 64 && wave_size != 32 && wave_size != 8) {
    if (err && errlen) snprintf(err, errlen, "%s: error: wave size must be 64, 32 or 8", c.file);
    return NULL;
  }
  wv_gcn_program *prog = calloc(1, sizeof *prog);
  if (!prog) goto nomem;
  prog->wave_size = wave_size;
  const char *p = text ? text : "", *end = p + (text ? len : 0);
  for (c.lineno = 1; p < end || c.lineno == 1; c.lineno++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    c.line = p;
    c.end = nl ? nl : end;
    if (c.end - c.line > WV_GCN_MAX_LINE) {
      asm_error(&c, c.line + WV_GCN_MAX_LINE, "line longer than %d bytes", WV_GCN_MAX_LINE);
      goto fail;
    }
    gcn_insn in;
    int have;
    if (assemble_line(&c, &in, &have)) goto fail;
    if (have) {
      if (prog->n == WV_GCN_MAX_INSNS) {
        asm_error(&c, c.line, "too many instructions (at most %d)", WV_GCN_MAX_INSNS);
        goto fail;
      }
      if (prog->n == prog->cap) {
        size_t cap = prog->cap ? prog->cap * 2 : 64;
        gcn_insn *v = realloc(prog->v, cap * sizeof *v);
        if (!v) goto nomem;
        prog->v = v;
        prog->cap = cap;
      }
      prog->v[prog->n++] = in;
      c.ninsn = prog->n;
    }
    if (!nl) break;
    p = nl + 1;
  }
  for (size_t i = 0; i < c.refs.n; i++) { /* every label operand names a defined label */
    const gcn_label *r = &c.refs.v[i], *d = label_find(&c.defs, r->name);
    if (!d) {
      if (err && errlen) snprintf(err, errlen, "%s:%u:%u: error: undefined label '%s'", c.file, r->line, r->col, r->name);
      goto fail;
    }
    prog->v[r->at].target = (uint32_t)d->at;
  }
  free(c.defs.v);
  free(c.refs.v);
  return prog;
nomem:
  if (err && errlen) snprintf(err, errlen, "%s: error: out of memory", c.file);
fail:
  free(c.defs.v);
  free(c.refs.v);
  wv_gcn_program_free(prog);
  return NULL;
}

/* ---- interpreter ------------------------------------------------------------------------------- */

static uint32_t rd32(const wv_gcn_wave *w, const gcn_opnd *o, unsigned lane) {
  switch (o->kind) {
  case K_V: return w->vgpr[o->reg][lane];
  case K_S: return w->sgpr[o->reg];
  case K_VCC:
  case K_VCC_LO: return (uint32_t)w->vcc;
  case K_VCC_HI: return (uint32_t)(w->vcc >> 32);
  case K_EXEC:
  case K_EXEC_LO: return (uint32_t)w->exec;
  case K_EXEC_HI: return (uint32_t)(w->exec >> 32);
  default: return (uint32_t)o->imm;
  }
}

static uint64_t rd64(const wv_gcn_wave *w, const gcn_opnd *o) {
  switch (o->kind) {
  case K_S64: return w->sgpr[o->reg] | (uint64_t)w->sgpr[o->reg + 1] << 32;
  case K_VCC: return w->vcc;
  case K_EXEC: return w->exec;
  case K_CONST: return o->imm;
  default: return rd32(w, o, 0);
  }
}

static void wr32(wv_gcn_wave *w, const gcn_opnd *o, uint32_t v) {
  switch (o->kind) {
  case K_S: w->sgpr[o->reg] = v; mark_sgpr(w, o->reg); break;
  case K_VCC:
  case K_VCC_LO: w->vcc = (w->vcc & ~(uint64_t)0xffffffffu) | v; w->special_written |= 1; break;
  case K_VCC_HI: w->vcc = (w->vcc & 0xffffffffu) | (uint64_t)v << 32; w->special_written |= 1; break;
  case K_EXEC_LO: w->exec = (w->exec & ~(uint64_t)0xffffffffu) | v; w->special_written |= 2; break;
  case K_EXEC_HI: w->exec = (w->exec & 0xffffffffu) | (uint64_t)v << 32; w->special_written |= 2; break;
  default: break;
  }
}

static void wr64(wv_gcn_wave *w, const gcn_opnd *o, uint64_t v) {
  switch (o->kind) {
  case K_S64:
    w->sgpr[o->reg] = (uint32_t)v;
    w->sgpr[o->reg + 1] = (uint32_t)(v >> 32);
    mark_sgpr(w, o->reg);
    mark_sgpr(w, o->reg + 1u);
    break;
  case K_VCC: w->vcc = v; w->special_written |= 1; break;
  case K_EXEC: w->exec = v; w->special_written |= 2; break;
  default: wr32(w, o, (uint32_t)v); break;
  }
}

static uint64_t rd_mask(const wv_gcn_wave *w, const gcn_opnd *o) { return w->size == 64 ? rd64(w, o) : rd32(w, o, 0); }

static void wr_mask(wv_gcn_wave *w, const gcn_opnd *o, uint64_t m) {
  if (w->size == 64) wr64(w, o, m);
  else wr32(w, o, (uint32_t)m);
}

static int compare(const gcn_insn *in, uint32_t a, uint32_t b) {
  int lt = in->is_signed ? (int32_t)a < (int32_t)b : a < b;
  switch (in->cond) {
  case C_EQ: return a == b;
  case C_NE: return a != b;
  case C_LT: return lt;
  case C_LE: return lt || a == b;
  case C_GT: return !lt && a != b;
  default: return !lt;
  }
}

/* One VALU lane: the 32-bit result of in on lane l. */
static uint32_t valu(const wv_gcn_wave *w, const gcn_insn *in, unsigned l, uint64_t mask) {
  uint32_t a = rd32(w, &in->o[1], l), b = in->nops > 2 ? rd32(w, &in->o[2], l) : 0;
  uint64_t below = l >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << l) - 1); /* ThreadMask: lanes under l */
  switch (in->op) {
  case OP_MOV: return a;
  case OP_MBCNT_LO: return (uint32_t)__builtin_popcount(a & (uint32_t)below) + b;
  case OP_MBCNT_HI: return (uint32_t)__builtin_popcount(a & (uint32_t)(below >> 32)) + b;
  case OP_LSHLREV: return b << (a & 31);
  case OP_ADD: return a + b;
  case OP_SUB: return a - b;
  case OP_AND: return a & b;
  case OP_OR: return a | b;
  case OP_XOR: return a ^ b;
  case OP_CNDMASK: return (mask >> l & 1) ? b : a;
  case OP_NOT: return ~a;
  case OP_LSHRREV: return b >> (a & 31);
  case OP_ASHRREV: return (uint32_t)((int32_t)b >> (a & 31)); /* arithmetic: gcc/clang shift in the sign */
  case OP_MIN: return (in->is_signed ? (int32_t)a < (int32_t)b : a < b) ? a : b;
  case OP_MAX: return (in->is_signed ? (int32_t)a > (int32_t)b : a > b) ? a : b;
  case OP_BFE: { /* D = (S0 >> S1[4:0]) & ((1 << S2[4:0]) - 1) */
    uint32_t width = rd32(w, &in->o[3], l) & 31;
    return (a >> (b & 31)) & (uint32_t)(((uint64_t)1 << width) - 1);
  }
  case OP_BCNT: return (uint32_t)__builtin_popcount(a) + b;
  default: return 0;
  }
}

static uint64_t sbit(int sub, uint64_t a, uint64_t b) {
  switch (sub) {
  case SB_AND: return a & b;
  case SB_OR: return a | b;
  case SB_XOR: return a ^ b;
  case SB_ANDN2: return a & ~b;
  case SB_ORN2: return a | ~b;
  default: return ~a;
  }
}

static void set_scc(wv_gcn_wave *w, int v) {
  w->scc = v ? 1 : 0;
  w->special_written |= 4;
}

/* Executes one instruction; returns 1 when it is a taken branch (to in->target). */
static int exec_insn(wv_gcn_wave *w, const gcn_insn *in) {
  uint64_t active = w->exec & wv_gcn_lane_mask(w);
  switch (in->op) {
  case OP_MOV: case OP_MBCNT_LO: case OP_MBCNT_HI: case OP_LSHLREV: case OP_ADD: case OP_SUB:
  case OP_AND: case OP_OR: case OP_XOR: case OP_CNDMASK: case OP_NOT: case OP_LSHRREV: case OP_ASHRREV:
  case OP_MIN: case OP_MAX: case OP_BFE: case OP_BCNT: {
    uint64_t mask = in->op == OP_CNDMASK ? rd_mask(w, &in->o[3]) : 0;
    unsigned d = in->o[0].reg;
    for (unsigned l = 0; l < w->size; l++)
      if (active >> l & 1) w->vgpr[d][l] = valu(w, in, l, mask);
    mark_vgpr(w, d);
    break;
  }
  case OP_CMP: {
    /* VOPC: one bit per lane; lanes disabled by EXEC get 0 */
    uint64_t m = 0;
    for (unsigned l = 0; l < w->size; l++)
      if ((active >> l & 1) && compare(in, rd32(w, &in->o[1], l), rd32(w, &in->o[2], l))) m |= (uint64_t)1 << l;
    wr_mask(w, &in->o[0], m);
    break;
  }
  case OP_READLANE: /* ignores EXEC; the lane select is taken modulo the wave size */
    wr32(w, &in->o[0], w->vgpr[in->o[1].reg][rd32(w, &in->o[2], 0) & (w->size - 1)]);
    break;
  case OP_READFIRSTLANE: { /* the lowest active lane; lane 0 when EXEC is zero */
    unsigned l = active ? (unsigned)__builtin_ctzll(active) : 0;
    wr32(w, &in->o[0], w->vgpr[in->o[1].reg][l]);
    break;
  }
  case OP_SMOV32: wr32(w, &in->o[0], rd32(w, &in->o[1], 0)); break;
  case OP_SMOV64: wr64(w, &in->o[0], rd64(w, &in->o[1])); break;
  case OP_PERMUTE: wv_gcn_ds_permute(w, in->o[0].reg, in->o[1].reg, in->o[2].reg, in->offset); break;
  case OP_BPERMUTE: wv_gcn_ds_bpermute(w, in->o[0].reg, in->o[1].reg, in->o[2].reg, in->offset); break;
  case OP_SALU32: {
    uint32_t r = (uint32_t)sbit(in->cond, rd32(w, &in->o[1], 0), in->nops > 2 ? rd32(w, &in->o[2], 0) : 0);
    wr32(w, &in->o[0], r);
    set_scc(w, r != 0);
    break;
  }
  case OP_SALU64: {
    uint64_t r = sbit(in->cond, rd64(w, &in->o[1]), in->nops > 2 ? rd64(w, &in->o[2]) : 0);
    wr64(w, &in->o[0], r);
    set_scc(w, r != 0);
    break;
  }
  case OP_SAVEEXEC32: { /* D = EXEC_LO; EXEC_LO = S0 & EXEC_LO; SCC = EXEC_LO != 0 (S0 read first) */
    uint32_t s0 = rd32(w, &in->o[1], 0), old = (uint32_t)w->exec;
    wr32(w, &in->o[0], old);
    w->exec = (w->exec & ~(uint64_t)0xffffffffu) | (s0 & old);
    w->special_written |= 2;
    set_scc(w, (s0 & old) != 0);
    break;
  }
  case OP_SAVEEXEC64: {
    uint64_t s0 = rd64(w, &in->o[1]), old = w->exec;
    wr64(w, &in->o[0], old);
    w->exec = s0 & old;
    w->special_written |= 2;
    set_scc(w, w->exec != 0);
    break;
  }
  case OP_CSELECT32: wr32(w, &in->o[0], w->scc ? rd32(w, &in->o[1], 0) : rd32(w, &in->o[2], 0)); break;
  case OP_CSELECT64: wr64(w, &in->o[0], w->scc ? rd64(w, &in->o[1]) : rd64(w, &in->o[2])); break;
  case OP_SCMP: set_scc(w, compare(in, rd32(w, &in->o[0], 0), rd32(w, &in->o[1], 0))); break;
  case OP_BRANCH: return 1;
  case OP_CBRANCH: {
    uint64_t lanes = wv_gcn_lane_mask(w);
    switch (in->cond) {
    case BR_EXECZ: return (w->exec & lanes) == 0;
    case BR_EXECNZ: return (w->exec & lanes) != 0;
    case BR_VCCZ: return (w->vcc & lanes) == 0;
    case BR_VCCNZ: return (w->vcc & lanes) != 0;
    case BR_SCC0: return !w->scc;
    default: return w->scc;
    }
  }
  default: break;
  }
  return 0;
}

int wv_gcn_run(wv_gcn_wave *w, const wv_gcn_program *p, char *err, size_t errlen) {
  if (!w || !p) {
    if (err && errlen) snprintf(err, errlen, "no wave or no program");
    return -1;
  }
  if (w->size != p->wave_size) {
    if (err && errlen) snprintf(err, errlen, "program assembled for wave%u, wave has %u lanes", p->wave_size, w->size);
    return -1;
  }
  uint64_t steps = 0;
  for (size_t pc = 0; pc < p->n && p->v[pc].op != OP_ENDPGM;) {
    if (++steps > WV_GCN_MAX_STEPS) {
      if (err && errlen)
        snprintf(err, errlen, "runaway program: more than %lu instructions executed (now at line %u; a loop that never exits?)",
                 (unsigned long)WV_GCN_MAX_STEPS, (unsigned)p->v[pc].line);
      return -1;
    }
    pc = exec_insn(w, &p->v[pc]) ? p->v[pc].target : pc + 1;
  }
  return 0;
}

void wv_gcn_print_written(const wv_gcn_wave *w, FILE *out) {
  for (unsigned v = 0; v < WV_GCN_NVGPR; v++) {
    if (!(w->vgpr_written[v / 64] >> (v % 64) & 1)) continue;
    fprintf(out, "v%u:", v);
    for (unsigned l = 0; l < w->size; l++) fprintf(out, " %u", (unsigned)w->vgpr[v][l]);
    fputc('\n', out);
  }
  for (unsigned s = 0; s < WV_GCN_NSGPR; s++)
    if (w->sgpr_written[s / 64] >> (s % 64) & 1) fprintf(out, "s%u: %u\n", s, (unsigned)w->sgpr[s]);
  int digits = (int)(w->size + 3) / 4;
  if (w->special_written & 1) fprintf(out, "vcc: 0x%0*llx\n", digits, (unsigned long long)(w->vcc & wv_gcn_lane_mask(w)));
  if (w->special_written & 2) fprintf(out, "exec: 0x%0*llx\n", digits, (unsigned long long)(w->exec & wv_gcn_lane_mask(w)));
  if (w->special_written & 4) fprintf(out, "scc: %d\n", w->scc);
}
