/*
 * lower.c — the lowering generator of lower.h: the AMD machine table and, per PTX cross-lane
 * instruction, GCN/CDNA/RDNA machine code in LLVM AMDGPU assembly syntax that reproduces the native
 * semantics of src/exec/h_warp.c (the PTX ISA's shfl.sync pseudocode, vote/match/redux/elect).
 *
 * Machine facts (checked against public material where the search corpus had it):
 *   - gfx90a, CDNA2 (MI200): wave64; 64 KiB LDS per CU in 32 dword-wide banks (the reference text
 *     shfl-lowering-to-ds-permute.zh.md: 32 banks × 512 entries × 4 bytes; ROCm's "MI-series: 32 banks").
 *   - gfx1100, RDNA3 (Navi 31): wave32 native, wave64 as two wave32 passes; LDS is 128 KiB per WGP
 *     (two CUs), one workgroup allocates at most 64 KiB; 64 banks per WGP (128 KiB = 64 × 512 × 4 B).
 *     ds_bpermute_b32 picks lane (addr / 4) % 32 "regardless of wave size" (RDNA3 ISA §16.15), so in
 *     wave64 a permute never leaves its 32-lane half — harmless here because a warp lives in one half.
 *   - Spellings: GFX9 has the carry-less v_add_u32 / v_sub_u32; GFX10+ spells them v_add_nc_u32 /
 *     v_sub_nc_u32. Wave32 names the 32-bit halves (vcc_lo, exec_lo) and uses the *_b32 SALU forms.
 *     The code avoids mnemonics GFX11 renamed (s_andn2 → s_and_not1, v_ffbl → v_ctz_i32_b32).
 *   - Encodings: constants sit in src0 (VOP2 takes a literal only there; GFX9's VOP3 takes no literal)
 *     and each VOP3 reads at most one SGPR (GFX9's constant-bus limit).
 *
 * Registers: v1..v4 inputs, v10 / vcc outputs, v5 lane in the wave, v6 lane in the warp, v7 the
 * warp's base lane (0 or 32), v8..v9 and v11..v16 temporaries, s20..s29 scalar temporaries.
 */
#include "amd/lower.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/warp.h"
#include "ir/ir.h"

static const wv_amd_machine MACHINES[] = {
    {"gfx90a", "gfx90a", "CDNA2", 64, 0, 65536, 32,
     "AMD CDNA2 gfx90a (MI200): wave64, 64 KiB LDS per CU, 32 banks; cross-lane: ds_permute_b32/ds_bpermute_b32 "
     "over all 64 lanes, ds_swizzle_b32, DPP (quad_perm, row_shl/shr/ror, wave_shl/shr/rol/ror, row_mirror, "
     "row_bcast:15/31), v_readlane/v_writelane/v_readfirstlane"},
    {"gfx1100", "gfx1100", "RDNA3", 32, 1, 65536, 64,
     "AMD RDNA3 gfx1100 (RX 7900): wave32, 64 KiB LDS per workgroup (128 KiB per WGP, 64 banks); cross-lane: "
     "ds_permute_b32/ds_bpermute_b32 over 32 lanes, ds_swizzle_b32, DPP16 (quad_perm, row_shl/shr/ror, "
     "row_mirror, row_half_mirror, row_share, row_xmask), DPP8, v_permlane16_b32/v_permlanex16_b32, "
     "v_readlane/v_writelane/v_readfirstlane"},
    {"gfx1100w64", "gfx1100", "RDNA3", 64, 1, 65536, 64,
     "AMD RDNA3 gfx1100 in wave64 mode: two wave32 halves; 64 KiB LDS per workgroup (128 KiB per WGP, 64 banks); "
     "cross-lane: ds_permute_b32/ds_bpermute_b32 confined to each 32-lane half, ds_swizzle_b32, DPP16, DPP8, "
     "v_permlane16_b32/v_permlanex16_b32 (within a half), v_readlane/v_writelane/v_readfirstlane"},
};

const wv_amd_machine *wv_amd_machine_at(unsigned i) {
  return i < sizeof MACHINES / sizeof MACHINES[0] ? &MACHINES[i] : NULL;
}

const wv_amd_machine *wv_amd_machine_find(const char *name) {
  if (!name) return NULL;
  for (unsigned i = 0; i < sizeof MACHINES / sizeof MACHINES[0]; i++)
    if (!strcmp(MACHINES[i].name, name)) return &MACHINES[i];
  return NULL;
}

/* ---- text ---------------------------------------------------------------------------------------- */

typedef struct text {
  char *buf;
  size_t len, cap;
  int oom;
} text;

static void put(text *t, const char *s, size_t n) {
  if (t->oom) return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < t->len + n + 1) cap *= 2;
    char *b = realloc(t->buf, cap);
    if (!b) { t->oom = 1; return; }
    t->buf = b;
    t->cap = cap;
  }
  memcpy(t->buf + t->len, s, n);
  t->len += n;
  t->buf[t->len] = 0;
}

/* One line: the instruction (printf format), padded, then "; comment" if comment is not NULL. */
static void ins(text *t, const char *comment, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ins(text *t, const char *comment, const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof line) { t->oom = 1; return; }
  if (comment) {
    while (n < 40) line[n++] = ' ';
    line[n] = 0;
    put(t, line, (size_t)n);
    put(t, "; ", 2);
    put(t, comment, strlen(comment));
  } else {
    put(t, line, (size_t)n);
  }
  put(t, "\n", 1);
}

/* ---- machine spellings ------------------------------------------------------------------------- */

typedef struct spell {
  const wv_amd_machine *m;
  int w64;
  const char *add, *sub;   /* carry-less VALU add / subtract */
  const char *vcc, *exec;  /* the lane-mask registers as VOPC / SALU operands */
  const char *b;           /* lane-mask SALU width suffix: "b64" or "b32" */
  const char *sa, *sb;     /* two scalar lane-mask temporaries: s[20:21], s[22:23] or s20, s22 */
} spell;

static spell spelling(const wv_amd_machine *m) {
  spell s = {.m = m, .w64 = m->wave == 64};
  s.add = m->rdna ? "v_add_nc_u32" : "v_add_u32";
  s.sub = m->rdna ? "v_sub_nc_u32" : "v_sub_u32";
  s.vcc = s.w64 ? "vcc" : "vcc_lo";
  s.exec = s.w64 ? "exec" : "exec_lo";
  s.b = s.w64 ? "b64" : "b32";
  s.sa = s.w64 ? "s[20:21]" : "s20";
  s.sb = s.w64 ? "s[22:23]" : "s22";
  return s;
}

/* v5 = lane in the wave, v6 = lane in the warp, v7 = the warp's base lane (0 or 32). */
static void lane_ids(text *t, const spell *s) {
  ins(t, "v5 = my lane in the wave (all lanes below me)", "v_mbcnt_lo_u32_b32 v5, -1, 0");
  if (s->w64) ins(t, "  + the lanes below me in the upper half", "v_mbcnt_hi_u32_b32 v5, -1, v5");
  ins(t, "v6 = my lane in the warp", "v_and_b32 v6, 31, v5");
  ins(t, "v7 = the warp's base lane in the wave", "%s v7, v5, v6", s->sub);
}

/* ---- the instructions -------------------------------------------------------------------------- */

static void lower_shfl(text *t, const spell *s, int mode) {
  static const char *const names[] = {"idx", "up", "down", "bfly"};
  ins(t, NULL, "; shfl.sync.%s: d = a from lane j(b, c) of the warp, p = j in range (PTX ISA pseudocode)", names[mode]);
  lane_ids(t, s);
  ins(t, "bval = b[4:0]", "v_and_b32 v8, 31, v2");
  ins(t, "cval = c[4:0], the clamp", "v_and_b32 v9, 31, v3");
  ins(t, "seg = c[12:8], the segment mask", "v_bfe_u32 v11, v3, 8, 5");
  ins(t, "minLane = lane & seg", "v_and_b32 v12, v6, v11");
  ins(t, "~seg", "v_not_b32 v13, v11");
  ins(t, "cval & ~seg", "v_and_b32 v14, v9, v13");
  ins(t, "maxLane = minLane | (cval & ~seg)", "v_or_b32 v14, v12, v14");
  switch (mode) {
  case WV_SHFL_UP:
    ins(t, "j = lane - bval (may be negative)", "%s v15, v6, v8", s->sub);
    ins(t, "pval = j >= maxLane, signed", "v_cmp_ge_i32 %s, v15, v14", s->vcc);
    break;
  case WV_SHFL_DOWN:
    ins(t, "j = lane + bval", "%s v15, v6, v8", s->add);
    ins(t, "pval = j <= maxLane", "v_cmp_le_i32 %s, v15, v14", s->vcc);
    break;
  case WV_SHFL_BFLY:
    ins(t, "j = lane ^ bval", "v_xor_b32 v15, v6, v8");
    ins(t, "pval = j <= maxLane", "v_cmp_le_u32 %s, v15, v14", s->vcc);
    break;
  default:
    ins(t, "bval & ~seg", "v_and_b32 v15, v8, v13");
    ins(t, "j = minLane | (bval & ~seg)", "v_or_b32 v15, v12, v15");
    ins(t, "pval = j <= maxLane", "v_cmp_le_u32 %s, v15, v14", s->vcc);
    break;
  }
  ins(t, "j = pval ? j : lane", "v_cndmask_b32 v15, v6, v15, %s", s->vcc);
  ins(t, "the source lane in the wave", "%s v16, v7, v15", s->add);
  ins(t, "its byte address", "v_lshlrev_b32 v16, 2, v16");
  ins(t, "d = a of lane j (0 if j is not taking part)", "ds_bpermute_b32 v10, v16, v1");
  ins(t, "vcc = pval", "s_waitcnt lgkmcnt(0)");
}

/* vD = this lane's warp's 32 bits of the lane mask lo:hi (wave64: chosen by the warp's base in v7;
 * needs sa = lanes of an upper-half warp). vT is a temporary. */
static void warp_bits(text *t, const spell *s, const char *what, int vd, int vt, const char *lo, const char *hi) {
  char c[96];
  if (!s->w64) {
    snprintf(c, sizeof c, "%s as warp lane bits", what);
    ins(t, c, "v_mov_b32 v%d, %s", vd, lo);
    return;
  }
  ins(t, NULL, "v_mov_b32 v%d, %s", vd, lo);
  ins(t, NULL, "v_mov_b32 v%d, %s", vt, hi);
  snprintf(c, sizeof c, "%s as warp lane bits (half by base)", what);
  ins(t, c, "v_cndmask_b32 v%d, v%d, v%d, %s", vd, vd, vt, s->sa);
}

static void lower_vote(text *t, const spell *s, int mode) {
  static const char *const names[] = {"all", "any", "uni", "ballot"};
  ins(t, NULL, "; vote.sync.%s over the participating lanes (exec)", names[mode]);
  lane_ids(t, s);
  ins(t, "the ballot: lanes whose predicate is true", "v_cmp_ne_u32 %s, 0, v4", s->vcc);
  if (s->w64) ins(t, "lanes of a warp in the upper half", "v_cmp_ne_u32 %s, 0, v7", s->sa);
  warp_bits(t, s, "v11 = the ballot", 11, 12, "vcc_lo", "vcc_hi");
  warp_bits(t, s, "v12 = the participating lanes", 12, 13, "exec_lo", "exec_hi");
  switch (mode) {
  case WV_VOTE_ALL: ins(t, "p = every participating lane votes true", "v_cmp_eq_u32 %s, v11, v12", s->vcc); break;
  case WV_VOTE_ANY: ins(t, "p = some lane votes true", "v_cmp_ne_u32 %s, 0, v11", s->vcc); break;
  case WV_VOTE_UNI:
    ins(t, "all true ...", "v_cmp_eq_u32 %s, v11, v12", s->sb);
    ins(t, "... or all false", "v_cmp_eq_u32 %s, 0, v11", s->vcc);
    ins(t, "p = uniform", "s_or_%s %s, %s, %s", s->b, s->vcc, s->vcc, s->sb);
    break;
  default: ins(t, "d = the ballot", "v_mov_b32 v10, v11"); break;
  }
}

/* activemask.b32: on a wave the lanes executing together are exactly exec. */
static void lower_activemask(text *t, const spell *s) {
  ins(t, NULL, "; activemask.b32: the lanes executing together are the wave's exec mask");
  lane_ids(t, s);
  if (s->w64) ins(t, "lanes of a warp in the upper half", "v_cmp_ne_u32 %s, 0, v7", s->sa);
  warp_bits(t, s, "d = exec", 10, 11, "exec_lo", "exec_hi");
}

static void lower_match(text *t, const spell *s, int mode, int w64val, const char *prefix) {
  ins(t, NULL, "; match.%s.sync.%s: lanes holding my value (v1%s)", mode == WV_MATCH_ANY ? "any" : "all",
      w64val ? "b64" : "b32", w64val ? " low word, v2 high word" : "");
  lane_ids(t, s);
  if (mode == WV_MATCH_ANY) {
    ins(t, "the participating lanes, restored at the end", "s_mov_%s %s, %s", s->b, s->sa, s->exec);
    ins(t, NULL, "%smatch_loop:", prefix);
    ins(t, "the first remaining lane's value", "v_readfirstlane_b32 s24, v1");
    ins(t, "the remaining lanes holding it", "v_cmp_eq_u32 %s, s24, v1", s->vcc);
    if (w64val) {
      ins(t, "its high word", "v_readfirstlane_b32 s25, v2");
      ins(t, NULL, "v_cmp_eq_u32 %s, s25, v2", s->sb);
      ins(t, "both words equal", "s_and_%s %s, %s, %s", s->b, s->vcc, s->vcc, s->sb);
    }
    if (s->w64) ins(t, "the set as warp lane bits (one warp: one half is 0)", "s_or_b32 s26, vcc_lo, vcc_hi");
    ins(t, "the remaining lanes", "s_mov_%s %s, %s", s->b, s->w64 ? "s[28:29]" : "s28", s->exec);
    ins(t, "only the set", "s_mov_%s %s, %s", s->b, s->exec, s->vcc);
    ins(t, "d = the set, on its lanes", "v_mov_b32 v10, %s", s->w64 ? "s26" : "vcc_lo");
    ins(t, "the remaining lanes minus the set", "s_xor_%s %s, %s, %s", s->b, s->exec, s->w64 ? "s[28:29]" : "s28", s->vcc);
    ins(t, NULL, "s_cbranch_execnz %smatch_loop", prefix);
    ins(t, "exec as it was", "s_mov_%s %s, %s", s->b, s->exec, s->sa);
  } else {
    ins(t, "the first participating lane's value", "v_readfirstlane_b32 s24, v1");
    ins(t, "the lanes holding it", "v_cmp_eq_u32 %s, s24, v1", s->vcc);
    if (w64val) {
      ins(t, "its high word", "v_readfirstlane_b32 s25, v2");
      ins(t, NULL, "v_cmp_eq_u32 %s, s25, v2", s->sb);
      ins(t, "both words equal", "s_and_%s %s, %s, %s", s->b, s->vcc, s->vcc, s->sb);
    }
    if (s->w64) ins(t, "the membermask as warp lane bits", "s_or_b32 s26, exec_lo, exec_hi");
    else ins(t, "the membermask", "s_mov_b32 s26, exec_lo");
    ins(t, "lanes that differ; SCC = some lane differs", "s_xor_%s %s, %s, %s", s->b, s->sb, s->vcc, s->exec);
    ins(t, "p = all equal, on every participating lane", "s_cselect_%s %s, 0, %s", s->b, s->vcc, s->exec);
    ins(t, "d = the membermask if all equal, else 0", "s_cselect_b32 s26, 0, s26");
    ins(t, NULL, "v_mov_b32 v10, s26");
  }
}

static void lower_redux(text *t, const spell *s, int mode, int sgn) {
  static const char *const names[] = {"add", "min", "max", "and", "or", "xor"};
  const char *op, *ident;
  switch (mode) {
  case WV_REDUX_ADD: op = s->add; ident = "0"; break;
  case WV_REDUX_MIN: op = sgn ? "v_min_i32" : "v_min_u32"; ident = sgn ? "0x7fffffff" : "-1"; break;
  case WV_REDUX_MAX: op = sgn ? "v_max_i32" : "v_max_u32"; ident = sgn ? "0x80000000" : "0"; break;
  case WV_REDUX_AND: op = "v_and_b32"; ident = "-1"; break;
  case WV_REDUX_OR: op = "v_or_b32"; ident = "0"; break;
  default: op = "v_xor_b32"; ident = "0"; break;
  }
  ins(t, NULL, "; redux.sync.%s.%s: a butterfly of ds_bpermute_b32 over the warp's 32 lanes", names[mode],
      mode <= WV_REDUX_MAX ? (sgn ? "s32" : "u32") : "b32");
  lane_ids(t, s);
  ins(t, "the participating lanes, restored at the end", "s_mov_%s %s, %s", s->b, s->sa, s->exec);
  ins(t, "the participating lanes' values", "v_mov_b32 v11, v1");
  ins(t, "the other lanes ...", "s_not_%s %s, %s", s->b, s->exec, s->sa);
  ins(t, "... hold the identity", "v_mov_b32 v11, %s", ident);
  ins(t, "every lane takes part in the butterfly", "s_mov_%s %s, -1", s->b, s->exec);
  ins(t, "every lane's id (v5 holds it only where exec was set)", "v_mbcnt_lo_u32_b32 v12, -1, 0");
  if (s->w64) ins(t, NULL, "v_mbcnt_hi_u32_b32 v12, -1, v12");
  ins(t, "my byte address", "v_lshlrev_b32 v12, 2, v12");
  for (unsigned k = 1; k < 32; k *= 2) {
    char c[64];
    snprintf(c, sizeof c, "lane ^ %u (stays inside the warp)", k);
    ins(t, c, "v_xor_b32 v13, %u, v12", 4 * k);
    ins(t, NULL, "ds_bpermute_b32 v14, v13, v11");
    ins(t, NULL, "s_waitcnt lgkmcnt(0)");
    ins(t, NULL, "%s v11, v14, v11", op);
  }
  ins(t, "exec as it was", "s_mov_%s %s, %s", s->b, s->exec, s->sa);
  ins(t, "d = the reduction", "v_mov_b32 v10, v11");
}

static void lower_elect(text *t, const spell *s) {
  ins(t, NULL, "; elect.sync: the leader is the lowest participating lane");
  lane_ids(t, s);
  ins(t, "participating lanes below me", "v_mbcnt_lo_u32_b32 v11, exec_lo, 0");
  if (s->w64) ins(t, NULL, "v_mbcnt_hi_u32_b32 v11, exec_hi, v11");
  ins(t, "p = none below me: the leader", "v_cmp_eq_u32 %s, 0, v11", s->vcc);
  ins(t, "the leader's lane in the warp", "v_readfirstlane_b32 s20, v6");
  ins(t, "d = the leader's lane", "v_mov_b32 v10, s20");
}

/* ---- entry --------------------------------------------------------------------------------------- */

static int valid_prefix(const char *p) {
  if (!*p) return 1;
  if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || *p == '.')) return 0;
  size_t n = 0;
  for (; *p; p++, n++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.'))
      return 0;
  return n <= 64;
}

#define FAIL(...) do { if (err && errlen) snprintf(err, errlen, __VA_ARGS__); free(t.buf); return NULL; } while (0)

char *wv_amd_lower(const wv_amd_machine *m, int op, int mode, int type, const char *label_prefix,
                   char *err, size_t errlen) {
  text t = {0};
  if (err && errlen) err[0] = 0;
  if (!m || (m->wave != 64 && m->wave != 32)) FAIL("no AMD machine (or an unsupported wave size)");
  const char *prefix = label_prefix ? label_prefix : "";
  if (!valid_prefix(prefix)) FAIL("bad label prefix '%.64s' (letters, digits, '_', '.', at most 64)", prefix);
  spell s = spelling(m);
  switch (op) {
  case WV_OP_SHFL:
    if (mode < 0 || mode > 3) FAIL("shfl: unknown mode %d", mode);
    lower_shfl(&t, &s, mode);
    break;
  case WV_OP_VOTE:
    if (mode < WV_VOTE_ALL || mode > WV_VOTE_BALLOT) FAIL("vote: unknown mode %d", mode);
    lower_vote(&t, &s, mode);
    break;
  case WV_OP_MATCH:
    if (mode != WV_MATCH_ANY && mode != WV_MATCH_ALL) FAIL("match: unknown mode %d", mode);
    if (type != WV_T_B32 && type != WV_T_B64) FAIL("match: type must be .b32 or .b64");
    lower_match(&t, &s, mode, type == WV_T_B64, prefix);
    break;
  case WV_OP_REDUX:
    if (mode < WV_REDUX_ADD || mode > WV_REDUX_XOR) FAIL("redux: unknown operation %d", mode);
    if (mode <= WV_REDUX_MAX ? (type != WV_T_U32 && type != WV_T_S32)
                             : (type != WV_T_B32 && type != WV_T_U32 && type != WV_T_S32))
      FAIL("redux: type must be .u32/.s32 for add/min/max and .b32 for and/or/xor");
    lower_redux(&t, &s, mode, type == WV_T_S32);
    break;
  case WV_OP_ELECT: lower_elect(&t, &s); break;
  case WV_OP_ACTIVEMASK: lower_activemask(&t, &s); break;
  case WV_OP_BAR:
    if (mode != WV_BAR_WARPSYNC) FAIL("bar: only bar.warp.sync is a warp-level instruction to lower");
    ins(&t, NULL, "; bar.warp.sync: the lanes of a wave execute in lockstep, so there is nothing to wait for");
    ins(&t, "bar.warp.sync", "s_nop 0");
    break;
  default: FAIL("opcode %d is not a cross-lane instruction warpvm lowers", op);
  }
  if (t.oom) FAIL("out of memory");
  return t.buf;
}
