/*
 * test_amd_lower.c — the lowering generator (src/amd/lower.h) and the gcn.c features it needs
 * (labels, branches, SALU/SCC, the new VALU ops, the runaway-loop cap).
 *
 * Every lowered snippet is assembled by src/amd/gcn.c and run on each machine of the table (wave64 with
 * the warp at base 0 and at base 32), and compared with C references written here from the PTX ISA
 * text, not from src/exec/h_warp.c:
 *   - shfl.sync: the pseudocode of PTX ISA §9.7.9.6 (also in shared/reference/
 *     shfl-lowering-to-ds-permute.zh.md §2): the exhaustive battery of 4 modes × 15 b × 20 c × 32 lanes,
 *     with full exec and with partial exec closed under the source lanes;
 *   - vote/match/redux/elect on random inputs and random participating masks.
 * Besides d and p, every run checks the register convention: exec comes back unchanged, v1..v4 are not
 * written, only v5..v31, s20..s39 and vcc are, and lanes outside exec keep v10.
 *
 * `test_amd_lower --print MACHINE` prints every snippet for MACHINE (the driver of
 * tests/gcn/llvm_mc_check.sh); test_llvm_mc runs that script for every machine when WV_SRC is set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "amd/gcn.h"
#include "amd/lower.h"
#include "exec/warp.h"
#include "ir/ir.h"

#define SENTINEL 0xdeadbeefu

/* ---- a deterministic generator (state passed explicitly: no global state) ------------------- */

static uint32_t rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 33);
}

/* ---- running a snippet ------------------------------------------------------------------------ */

typedef struct snippet {
  const wv_amd_machine *m;
  wv_gcn_program *prog;
} snippet;

static snippet build(const wv_amd_machine *m, int op, int mode, int type) {
  char err[512];
  char *text = wv_amd_lower(m, op, mode, type, "t_", err, sizeof err);
  if (!text) fail_msg("%s: lowering op %d mode %d type %d failed: %s", m->name, op, mode, type, err);
  wv_gcn_program *p = wv_gcn_assemble(text, strlen(text), "lowered.s", m->wave, err, sizeof err);
  if (!p) fail_msg("%s: the lowered text does not assemble: %s\n%s", m->name, err, text);
  free(text);
  return (snippet){m, p};
}

/* Inputs for the 32 lanes of the warp. */
typedef struct warp_in {
  uint32_t a[32], b[32], c[32], pin, hi[32];
} warp_in;

/* Results, as warp lanes. */
typedef struct warp_out {
  uint32_t d[32];
  uint32_t p;
} warp_out;

static void run(const snippet *sn, unsigned base, uint32_t lanes, const warp_in *in, warp_out *out, int op) {
  const wv_amd_machine *m = sn->m;
  wv_gcn_wave *w = malloc(sizeof *w);
  assert_non_null(w);
  assert_int_equal(wv_gcn_wave_init(w, m->wave, m->rdna), 0);
  /* garbage everywhere, so nothing depends on zeroed registers; lanes of the other half too */
  uint64_t seed = 0x1234u + base + lanes;
  for (unsigned v = 1; v < 40; v++)
    for (unsigned l = 0; l < WV_GCN_MAXLANES; l++) w->vgpr[v][l] = rnd(&seed);
  for (unsigned s = 0; s < WV_GCN_NSGPR; s++) w->sgpr[s] = rnd(&seed);
  w->vcc = (uint64_t)rnd(&seed) << 32 | rnd(&seed);
  for (unsigned l = 0; l < WV_GCN_MAXLANES; l++) w->vgpr[10][l] = SENTINEL;
  for (unsigned l = 0; l < 32; l++) {
    unsigned wl = base + l;
    w->vgpr[1][wl] = in->a[l];
    w->vgpr[2][wl] = op == WV_OP_MATCH ? in->hi[l] : in->b[l];
    w->vgpr[3][wl] = in->c[l];
    w->vgpr[4][wl] = in->pin >> l & 1;
  }
  uint32_t before[5][WV_GCN_MAXLANES];
  memcpy(before, w->vgpr, sizeof before);
  w->exec = (uint64_t)lanes << base;
  char err[256];
  if (wv_gcn_run(w, sn->prog, err, sizeof err)) fail_msg("%s: run failed: %s", m->name, err);
  /* the register convention */
  assert_int_equal(w->exec, (uint64_t)lanes << base);
  assert_memory_equal(before, w->vgpr, sizeof before); /* v0..v4 untouched */
  for (unsigned v = 0; v < WV_GCN_NVGPR; v++)
    if (w->vgpr_written[v / 64] >> (v % 64) & 1)
      if (v < 5 || v > 31) fail_msg("%s: the snippet wrote v%u", m->name, v);
  for (unsigned s = 0; s < WV_GCN_NSGPR; s++)
    if (w->sgpr_written[s / 64] >> (s % 64) & 1)
      if (s < 20 || s > 39) fail_msg("%s: the snippet wrote s%u", m->name, s);
  for (unsigned l = 0; l < m->wave; l++)
    if (!((uint64_t)lanes << base >> l & 1) && w->vgpr[10][l] != SENTINEL)
      fail_msg("%s: v10 of lane %u outside exec was written", m->name, l);
  for (unsigned l = 0; l < 32; l++) out->d[l] = w->vgpr[10][base + l];
  out->p = (uint32_t)(w->vcc >> base);
  if (op != WV_OP_BAR && op != WV_OP_REDUX) { /* the others leave vcc as lane bits of exec */
    uint64_t outside = w->vcc & ~((uint64_t)lanes << base) & wv_gcn_lane_mask(w);
    if (outside) fail_msg("%s: vcc has bits outside exec: 0x%llx", m->name, (unsigned long long)outside);
  }
  free(w);
}

/* The (machine, base) configurations: wave64 machines place the warp at 0 and at 32. */
typedef struct config {
  const wv_amd_machine *m;
  unsigned base;
} config;

static unsigned configs(config *out) {
  unsigned n = 0;
  for (unsigned i = 0; wv_amd_machine_at(i); i++) {
    const wv_amd_machine *m = wv_amd_machine_at(i);
    out[n++] = (config){m, 0};
    if (m->wave == 64) out[n++] = (config){m, 32};
  }
  return n;
}

/* ---- shfl: the PTX ISA pseudocode, written out again ------------------------------------------ */

/* Source lane of `lane`, and whether it is in range (PTX ISA, shfl.sync "Semantics"). */
static int ref_shfl(int mode, int lane, uint32_t b, uint32_t c, int *p) {
  int bval = (int)(b & 0x1f), cval = (int)(c & 0x1f), mask = (int)((c >> 8) & 0x1f);
  int max_lane = (lane & mask) | (cval & ~mask);
  int min_lane = lane & mask;
  int j;
  if (mode == WV_SHFL_UP) { j = lane - bval; *p = j >= max_lane; }
  else if (mode == WV_SHFL_DOWN) { j = lane + bval; *p = j <= max_lane; }
  else if (mode == WV_SHFL_BFLY) { j = lane ^ bval; *p = j <= max_lane; }
  else { j = min_lane | (bval & ~mask); *p = j <= max_lane; }
  return *p ? j : lane;
}

static const uint32_t B_SET[] = {0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 0xffffffffu};

/* 20 c values: clamp only, every width 32..1 in both the shfl.up form (32-w)<<8 and the others'
 * ((32-w)<<8)|0x1f, odd combinations, high bits set. */
static unsigned c_set(uint32_t *c) {
  unsigned n = 0;
  static const unsigned widths[] = {32, 16, 8, 4, 2, 1}; /* width 32: c = 0 and the clamp-only 0x1f */
  for (unsigned i = 0; i < 6; i++) {
    c[n++] = (32 - widths[i]) << 8;              /* shfl.up's form */
    c[n++] = ((32 - widths[i]) << 8) | 0x1f;     /* idx/down/bfly's form */
  }
  c[n++] = 0x0a;                                 /* odd clamp, no segments */
  c[n++] = (0x18 << 8) | 0x05;                   /* width 8 with a clamp inside the segment */
  c[n++] = (0x15 << 8) | 0x0e;                   /* a non-contiguous segment mask */
  c[n++] = (0x1f << 8) | 0x1f;                   /* every lane its own segment */
  c[n++] = 0xffffe01fu;                          /* bits above 12 and 5..7 set */
  c[n++] = 0xdead1f1fu;                          /* high bits with seg 0x1f */
  c[n++] = (0x10 << 8) | 0x13;                   /* seg 0x10: lanes split by bit 4 */
  c[n++] = 0x7fu | (0x3u << 8);                  /* clamp 0x1f read from 0x7f; seg 3 */
  return n;
}

/* The largest subset of m closed under the source lanes: every lane in it reads a lane in it. */
static uint32_t close_under_sources(uint32_t m, int mode, const uint32_t *b, const uint32_t *c) {
  for (;;) {
    uint32_t next = m;
    for (int l = 0; l < 32; l++) {
      int p;
      if ((m >> l & 1) && !(m >> ref_shfl(mode, l, b[l], c[l], &p) & 1)) next &= ~(1u << l);
    }
    if (next == m) return m;
    m = next;
  }
}

static void check_shfl(const snippet *sn, unsigned base, int mode, const warp_in *in, uint32_t lanes) {
  warp_out out;
  run(sn, base, lanes, in, &out, WV_OP_SHFL);
  uint32_t want_p = 0;
  for (int l = 0; l < 32; l++) {
    if (!(lanes >> l & 1)) continue;
    int p;
    int j = ref_shfl(mode, l, in->b[l], in->c[l], &p);
    if (p) want_p |= 1u << l;
    if (out.d[l] != in->a[j])
      fail_msg("%s base %u shfl mode %d lane %d b=0x%x c=0x%x exec=0x%08x: d=%u, want %u (lane %d)", sn->m->name, base,
               mode, l, in->b[l], in->c[l], lanes, out.d[l], in->a[j], j);
  }
  if ((out.p & lanes) != want_p || (out.p & ~lanes))
    fail_msg("%s base %u shfl mode %d b=0x%x c=0x%x exec=0x%08x: p=0x%08x, want 0x%08x", sn->m->name, base, mode,
             in->b[0], in->c[0], lanes, out.p, want_p);
}

static void test_shfl_battery(void **state) {
  (void)state;
  config cf[8];
  unsigned ncf = configs(cf);
  uint32_t cs[32];
  unsigned nc = c_set(cs);
  assert_int_equal(nc, 20);
  uint64_t seed = 42;
  unsigned runs = 0;
  for (unsigned k = 0; k < ncf; k++) {
    for (int mode = 0; mode < 4; mode++) {
      snippet sn = build(cf[k].m, WV_OP_SHFL, mode, WV_T_B32);
      warp_in in;
      memset(&in, 0, sizeof in);
      for (int l = 0; l < 32; l++) in.a[l] = 1000u + (unsigned)l;
      for (unsigned bi = 0; bi < sizeof B_SET / sizeof B_SET[0]; bi++) {
        for (unsigned ci = 0; ci < nc; ci++) {
          for (int l = 0; l < 32; l++) { in.b[l] = B_SET[bi]; in.c[l] = cs[ci]; }
          check_shfl(&sn, cf[k].base, mode, &in, 0xffffffffu);
          for (int r = 0; r < 2; r++) { /* partial exec, closed under the sources */
            uint32_t m = close_under_sources(rnd(&seed) | rnd(&seed), mode, in.b, in.c);
            if (m) check_shfl(&sn, cf[k].base, mode, &in, m);
          }
          runs += 3;
        }
      }
      wv_gcn_program_free(sn.prog);
    }
  }
  assert_true(runs >= 5 * 4 * 15 * 20);
}

/* Per-lane b and c (PTX allows them to differ between lanes), random values of a. */
static void test_shfl_per_lane(void **state) {
  (void)state;
  config cf[8];
  unsigned ncf = configs(cf);
  uint32_t cs[32];
  unsigned nc = c_set(cs);
  uint64_t seed = 7;
  for (unsigned k = 0; k < ncf; k++)
    for (int mode = 0; mode < 4; mode++) {
      snippet sn = build(cf[k].m, WV_OP_SHFL, mode, WV_T_B32);
      for (int r = 0; r < 200; r++) {
        warp_in in;
        memset(&in, 0, sizeof in);
        for (int l = 0; l < 32; l++) {
          in.a[l] = rnd(&seed);
          in.b[l] = rnd(&seed) % 3 ? rnd(&seed) % 40 : rnd(&seed);
          in.c[l] = rnd(&seed) % 2 ? cs[rnd(&seed) % nc] : rnd(&seed);
        }
        check_shfl(&sn, cf[k].base, mode, &in, 0xffffffffu);
        uint32_t m = close_under_sources(rnd(&seed), mode, in.b, in.c);
        if (m) check_shfl(&sn, cf[k].base, mode, &in, m);
      }
      wv_gcn_program_free(sn.prog);
    }
}

/* ---- vote / match / redux / elect ------------------------------------------------------------- */

/* Random participating masks: full, single lanes, and random ones. */
static uint32_t rnd_mask(uint64_t *seed, int r) {
  if (r == 0) return 0xffffffffu;
  if (r == 1) return 1u;
  if (r == 2) return 0x80000000u;
  if (r == 3) return 1u << (rnd(seed) % 32);
  uint32_t m = rnd(seed);
  if (r % 3 == 0) m &= rnd(seed); /* sparser */
  return m ? m : 0x10u;
}

static void test_vote(void **state) {
  (void)state;
  config cf[8];
  unsigned ncf = configs(cf);
  uint64_t seed = 99;
  for (unsigned k = 0; k < ncf; k++)
    for (int mode = WV_VOTE_ALL; mode <= WV_VOTE_BALLOT; mode++) {
      snippet sn = build(cf[k].m, WV_OP_VOTE, mode, WV_T_PRED);
      for (int r = 0; r < 300; r++) {
        warp_in in;
        memset(&in, 0, sizeof in);
        uint32_t lanes = rnd_mask(&seed, r);
        switch (r % 5) { /* predicates: all true / all false among members, random */
        case 0: in.pin = lanes | (rnd(&seed) & ~lanes); break;
        case 1: in.pin = rnd(&seed) & ~lanes; break;
        default: in.pin = rnd(&seed); break;
        }
        warp_out out;
        run(&sn, cf[k].base, lanes, &in, &out, WV_OP_VOTE);
        uint32_t on = in.pin & lanes;
        if (mode == WV_VOTE_BALLOT) {
          for (int l = 0; l < 32; l++)
            if (lanes >> l & 1) assert_int_equal(out.d[l], on);
        } else {
          int v = mode == WV_VOTE_ALL ? on == lanes : mode == WV_VOTE_ANY ? on != 0 : (on == lanes || on == 0);
          if (out.p != (v ? lanes : 0))
            fail_msg("%s base %u vote mode %d lanes 0x%08x pin 0x%08x: p 0x%08x", cf[k].m->name, cf[k].base, mode,
                     lanes, in.pin, out.p);
        }
      }
      wv_gcn_program_free(sn.prog);
    }
}

static void test_match(void **state) {
  (void)state;
  config cf[8];
  unsigned ncf = configs(cf);
  uint64_t seed = 5;
  for (unsigned k = 0; k < ncf; k++)
    for (int w64 = 0; w64 < 2; w64++)
      for (int mode = WV_MATCH_ANY; mode <= WV_MATCH_ALL; mode++) {
        snippet sn = build(cf[k].m, WV_OP_MATCH, mode, w64 ? WV_T_B64 : WV_T_B32);
        for (int r = 0; r < 300; r++) {
          warp_in in;
          memset(&in, 0, sizeof in);
          uint32_t lanes = rnd_mask(&seed, r);
          unsigned pool = 1 + rnd(&seed) % (r % 4 == 0 ? 1 : 6); /* few distinct values: many matches */
          for (int l = 0; l < 32; l++) {
            in.a[l] = 0x51ed0000u + rnd(&seed) % pool;
            in.hi[l] = 0x77u + rnd(&seed) % (r % 3 == 0 ? 1 : 2); /* .b64: equal low words, different high */
          }
          warp_out out;
          run(&sn, cf[k].base, lanes, &in, &out, WV_OP_MATCH);
#define EQ(x, y) (in.a[x] == in.a[y] && (!w64 || in.hi[x] == in.hi[y]))
          if (mode == WV_MATCH_ANY) {
            for (int l = 0; l < 32; l++) {
              if (!(lanes >> l & 1)) continue;
              uint32_t want = 0;
              for (int q = 0; q < 32; q++)
                if ((lanes >> q & 1) && EQ(l, q)) want |= 1u << q;
              if (out.d[l] != want)
                fail_msg("%s base %u match.any%s lane %d lanes 0x%08x: d 0x%08x want 0x%08x", cf[k].m->name,
                         cf[k].base, w64 ? ".b64" : "", l, lanes, out.d[l], want);
            }
          } else {
            int f = __builtin_ctz(lanes), same = 1;
            for (int l = 0; l < 32; l++)
              if ((lanes >> l & 1) && !EQ(l, f)) same = 0;
            for (int l = 0; l < 32; l++)
              if (lanes >> l & 1) assert_int_equal(out.d[l], same ? lanes : 0);
            if ((out.p & lanes) != (same ? lanes : 0) || (out.p & ~lanes))
              fail_msg("%s base %u match.all%s lanes 0x%08x: p 0x%08x same %d", cf[k].m->name, cf[k].base,
                       w64 ? ".b64" : "", lanes, out.p, same);
          }
#undef EQ
        }
        wv_gcn_program_free(sn.prog);
      }
}

static uint32_t ref_redux(int mode, int sgn, const uint32_t *a, uint32_t lanes) {
  uint32_t acc = 0;
  int first = 1;
  for (int l = 0; l < 32; l++) {
    if (!(lanes >> l & 1)) continue;
    uint32_t v = a[l];
    if (first) { acc = v; first = 0; continue; }
    switch (mode) {
    case WV_REDUX_ADD: acc += v; break;
    case WV_REDUX_MIN: if (sgn ? (int32_t)v < (int32_t)acc : v < acc) acc = v; break;
    case WV_REDUX_MAX: if (sgn ? (int32_t)v > (int32_t)acc : v > acc) acc = v; break;
    case WV_REDUX_AND: acc &= v; break;
    case WV_REDUX_OR: acc |= v; break;
    default: acc ^= v; break;
    }
  }
  return acc;
}

static void test_redux(void **state) {
  (void)state;
  config cf[8];
  unsigned ncf = configs(cf);
  uint64_t seed = 11;
  static const uint32_t extremes[] = {0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0x80000001u};
  for (unsigned k = 0; k < ncf; k++)
    for (int mode = WV_REDUX_ADD; mode <= WV_REDUX_XOR; mode++)
      for (int sgn = 0; sgn < 2; sgn++) {
        int type = mode <= WV_REDUX_MAX ? (sgn ? WV_T_S32 : WV_T_U32) : WV_T_B32;
        if (mode > WV_REDUX_MAX && sgn) continue;
        snippet sn = build(cf[k].m, WV_OP_REDUX, mode, type);
        for (int r = 0; r < 200; r++) {
          warp_in in;
          memset(&in, 0, sizeof in);
          uint32_t lanes = rnd_mask(&seed, r);
          for (int l = 0; l < 32; l++)
            in.a[l] = r % 2 ? extremes[rnd(&seed) % 6] : (r % 4 == 0 ? rnd(&seed) % 100 - 50 : rnd(&seed));
          warp_out out;
          run(&sn, cf[k].base, lanes, &in, &out, WV_OP_REDUX);
          uint32_t want = ref_redux(mode, sgn, in.a, lanes);
          for (int l = 0; l < 32; l++)
            if ((lanes >> l & 1) && out.d[l] != want)
              fail_msg("%s base %u redux mode %d sgn %d lanes 0x%08x lane %d: d 0x%08x want 0x%08x", cf[k].m->name,
                       cf[k].base, mode, sgn, lanes, l, out.d[l], want);
        }
        wv_gcn_program_free(sn.prog);
      }
}

static void test_elect_and_bar(void **state) {
  (void)state;
  config cf[8];
  unsigned ncf = configs(cf);
  uint64_t seed = 3;
  for (unsigned k = 0; k < ncf; k++) {
    snippet sn = build(cf[k].m, WV_OP_ELECT, 0, 0);
    for (int r = 0; r < 200; r++) {
      warp_in in;
      memset(&in, 0, sizeof in);
      uint32_t lanes = rnd_mask(&seed, r);
      warp_out out;
      run(&sn, cf[k].base, lanes, &in, &out, WV_OP_ELECT);
      uint32_t leader = (uint32_t)__builtin_ctz(lanes);
      for (int l = 0; l < 32; l++)
        if (lanes >> l & 1) assert_int_equal(out.d[l], leader);
      assert_int_equal(out.p, 1u << leader);
    }
    wv_gcn_program_free(sn.prog);
    /* bar.warp.sync: nothing observable changes (run() checks exec, v1..v4 and every written register) */
    snippet bar = build(cf[k].m, WV_OP_BAR, WV_BAR_WARPSYNC, 0);
    warp_in in;
    memset(&in, 0, sizeof in);
    warp_out out;
    run(&bar, cf[k].base, 0x0f0f0f0fu, &in, &out, WV_OP_BAR);
    for (int l = 0; l < 32; l++) assert_int_equal(out.d[l], SENTINEL);
    assert_int_equal(wv_gcn_program_size(bar.prog), 1);
    wv_gcn_program_free(bar.prog);
  }
}

/* ---- the API itself ------------------------------------------------------------------------------ */

static void test_machines(void **state) {
  (void)state;
  const wv_amd_machine *g = wv_amd_machine_find("gfx90a"), *r = wv_amd_machine_find("gfx1100"),
                       *r64 = wv_amd_machine_find("gfx1100w64");
  assert_non_null(g);
  assert_non_null(r);
  assert_non_null(r64);
  assert_null(wv_amd_machine_find("gfx900"));
  assert_null(wv_amd_machine_find(NULL));
  assert_ptr_equal(wv_amd_machine_at(0), g);
  assert_null(wv_amd_machine_at(3));
  assert_int_equal(g->wave, 64);
  assert_int_equal(g->rdna, 0);
  assert_string_equal(g->family, "CDNA2");
  assert_int_equal(r->wave, 32);
  assert_int_equal(r->rdna, 1);
  assert_string_equal(r->mcpu, "gfx1100");
  assert_int_equal(r64->wave, 64);
  assert_int_equal(r64->rdna, 1);
  assert_string_equal(r64->mcpu, "gfx1100");
  for (unsigned i = 0; wv_amd_machine_at(i); i++) {
    const wv_amd_machine *m = wv_amd_machine_at(i);
    assert_non_null(m->xlane);
    assert_null(strchr(m->xlane, '\n'));
    assert_non_null(strstr(m->xlane, "ds_bpermute_b32"));
    assert_int_equal(m->lds_bytes, 65536);
  }
}

static void test_lower_errors(void **state) {
  (void)state;
  const wv_amd_machine *g = wv_amd_machine_find("gfx90a");
  char err[256];
  assert_null(wv_amd_lower(NULL, WV_OP_SHFL, 0, WV_T_B32, NULL, err, sizeof err));
  assert_true(err[0]);
  assert_null(wv_amd_lower(g, WV_OP_ADD, 0, WV_T_U32, NULL, err, sizeof err));
  assert_non_null(strstr(err, "not a cross-lane instruction"));
  assert_null(wv_amd_lower(g, WV_OP_SHFL, 4, WV_T_B32, NULL, err, sizeof err));
  assert_null(wv_amd_lower(g, WV_OP_VOTE, 4, 0, NULL, err, sizeof err));
  assert_null(wv_amd_lower(g, WV_OP_MATCH, WV_MATCH_ANY, WV_T_U16, NULL, err, sizeof err));
  assert_null(wv_amd_lower(g, WV_OP_REDUX, WV_REDUX_MIN, WV_T_B32, NULL, err, sizeof err));
  assert_null(wv_amd_lower(g, WV_OP_REDUX, 6, WV_T_U32, NULL, err, sizeof err));
  assert_null(wv_amd_lower(g, WV_OP_BAR, WV_BAR_SYNC, 0, NULL, err, sizeof err));
  assert_null(wv_amd_lower(g, WV_OP_MATCH, WV_MATCH_ANY, WV_T_B32, "9x", err, sizeof err));
  assert_non_null(strstr(err, "label prefix"));
  assert_null(wv_amd_lower(g, WV_OP_MATCH, WV_MATCH_ANY, WV_T_B32, "a b", err, sizeof err));
  /* the prefix starts every label; two snippets with different prefixes assemble as one file */
  char *a = wv_amd_lower(g, WV_OP_MATCH, WV_MATCH_ANY, WV_T_B32, "k0_", err, sizeof err);
  char *b = wv_amd_lower(g, WV_OP_MATCH, WV_MATCH_ANY, WV_T_B64, "k1_", err, sizeof err);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(strstr(a, "\nk0_match_loop:"));
  size_t na = strlen(a), nb = strlen(b);
  char *both = malloc(na + nb + 1);
  assert_non_null(both);
  memcpy(both, a, na);
  memcpy(both + na, b, nb + 1);
  wv_gcn_program *p = wv_gcn_assemble(both, na + nb, "two.s", 64, err, sizeof err);
  assert_non_null(p);
  wv_gcn_program_free(p);
  /* the same prefix twice: a duplicate label */
  memcpy(both + na, a, na + 1);
  assert_null(wv_gcn_assemble(both, 2 * na, "two.s", 64, err, sizeof err));
  assert_non_null(strstr(err, "error: label 'k0_match_loop' already defined at line"));
  free(both);
  free(a);
  free(b);
  /* spellings: RDNA adds without carry as v_add_nc_u32, wave32 names vcc_lo / exec_lo */
  char *t = wv_amd_lower(wv_amd_machine_find("gfx1100"), WV_OP_REDUX, WV_REDUX_ADD, WV_T_U32, NULL, err, sizeof err);
  assert_non_null(t);
  assert_non_null(strstr(t, "v_add_nc_u32"));
  assert_non_null(strstr(t, "exec_lo"));
  assert_null(strstr(t, "v_mbcnt_hi"));
  assert_null(strstr(t, "s[")); /* no 64-bit SGPR pairs on wave32 */
  free(t);
  t = wv_amd_lower(g, WV_OP_REDUX, WV_REDUX_ADD, WV_T_U32, NULL, err, sizeof err);
  assert_non_null(strstr(t, "v_add_u32"));
  assert_non_null(strstr(t, "v_mbcnt_hi_u32_b32"));
  free(t);
}

/* ---- gcn.c additions ---------------------------------------------------------------------------- */

static wv_gcn_wave *run_text(const char *src, unsigned wave, char *err, size_t errlen, int *rc) {
  wv_gcn_program *p = wv_gcn_assemble(src, strlen(src), "t.s", wave, err, errlen);
  if (!p) return NULL;
  wv_gcn_wave *w = malloc(sizeof *w);
  assert_non_null(w);
  wv_gcn_wave_init(w, wave, 0);
  *rc = wv_gcn_run(w, p, err, errlen);
  wv_gcn_program_free(p);
  return w;
}

static void test_gcn_branches(void **state) {
  (void)state;
  char err[256];
  int rc;
  /* a counted loop: s20 counts down with s_cmp / s_cbranch_scc1; the label may share its line */
  wv_gcn_wave *w = run_text("s_mov_b32 s20, 5\n"
                            "v_mov_b32 v1, 0\n"
                            "loop: v_add_u32 v1, 3, v1\n"
                            "s_cmp_eq_u32 s20, 1\n"
                            "s_cbranch_scc1 done\n"
                            "v_mov_b32 v2, s20\n"
                            "v_add_u32 v3, -1, v2\n"
                            "v_readfirstlane_b32 s20, v3\n"
                            "s_branch loop\n"
                            "done:\n"
                            "s_endpgm\n"
                            "v_mov_b32 v1, 0\n",
                            64, err, sizeof err, &rc);
  assert_non_null(w);
  assert_int_equal(rc, 0);
  assert_int_equal(w->vgpr[1][17], 15);
  free(w);
  /* exec-driven waterfall: s_cbranch_execnz, s_andn2 / s_and_not1, s_and_saveexec, SCC */
  w = run_text("s_mov_b64 s[20:21], exec\n"
               "v_mov_b32 v2, 0\n"
               ".Lw:\n"
               "v_readfirstlane_b32 s22, v0\n"
               "v_cmp_eq_u32 vcc, s22, v0\n"
               "v_add_u32 v2, 1, v2\n"
               "s_andn2_b64 exec, exec, vcc\n"
               "s_cbranch_execnz .Lw\n"
               "s_mov_b64 exec, s[20:21]\n"
               "s_and_saveexec_b64 s[24:25], s[26:27]\n" /* s[26:27] = 0: exec 0, SCC 0 */
               "s_cbranch_execz .Lz\n"
               "v_mov_b32 v3, 7\n"
               ".Lz: s_mov_b64 exec, s[24:25]\n"
               "s_and_not1_b64 s[28:29], -1, exec\n"
               "s_cselect_b32 s30, 1, 2\n",
               64, err, sizeof err, &rc);
  assert_non_null(w);
  assert_int_equal(rc, 0);
  for (unsigned l = 0; l < 64; l++) assert_int_equal(w->vgpr[2][l], l + 1); /* lane l ran l+1 iterations */
  assert_false(w->vgpr_written[0] >> 3 & 1);
  assert_int_equal(w->exec, ~(uint64_t)0);
  assert_int_equal(w->sgpr[28], 0);
  assert_int_equal(w->sgpr[30], 2);
  assert_int_equal(w->scc, 0);
  free(w);
  /* wave32 SALU on exec_lo and vcc_lo */
  w = run_text("s_not_b32 exec_lo, 0xffff\n" "v_mov_b32 v1, 9\n" "s_or_b32 exec_lo, exec_lo, 1\n"
               "s_orn2_b32 s20, 0, -2\n",
               32, err, sizeof err, &rc);
  assert_non_null(w);
  assert_int_equal(rc, 0);
  assert_int_equal(w->exec, 0xffff0001u);
  assert_int_equal(w->vgpr[1][0], 0);
  assert_int_equal(w->vgpr[1][16], 9);
  assert_int_equal(w->sgpr[20], 1);
  assert_int_equal(w->scc, 1);
  free(w);
  /* a loop that never exits is an error, not a hang */
  w = run_text("v_mov_b32 v1, 0\nspin:\n  v_add_u32 v1, 1, v1\n  s_branch spin\n", 64, err, sizeof err, &rc);
  assert_non_null(w);
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err, "runaway program: more than 1000000 instructions executed (now at line"));
  free(w);
  /* label errors, with line:col */
  assert_null(wv_gcn_assemble("s_branch nowhere", 16, "t.s", 64, err, sizeof err));
  assert_string_equal(err, "t.s:1:10: error: undefined label 'nowhere'");
  assert_null(wv_gcn_assemble("a:\n  a: s_nop 0", 15, "t.s", 64, err, sizeof err));
  assert_string_equal(err, "t.s:2:3: error: label 'a' already defined at line 1");
  assert_null(wv_gcn_assemble("s_branch 12", 11, "t.s", 64, err, sizeof err));
  assert_string_equal(err, "t.s:1:10: error: expected a label, found '1'");
  assert_null(wv_gcn_assemble("s_cbranch_execnz", 16, "t.s", 64, err, sizeof err));
  assert_string_equal(err, "t.s:1:17: error: too few operands for 's_cbranch_execnz' (expects 1)");
  assert_null(wv_gcn_assemble("s_and_b64 s[0:1], s2, exec", 26, "t.s", 64, err, sizeof err));
  assert_string_equal(err, "t.s:1:19: error: operand 2 of 's_and_b64' must be a 64-bit SGPR pair (s[N:N+1], vcc, exec)");
  assert_null(wv_gcn_assemble("x: y: s_nop 0", 13, "t.s", 64, err, sizeof err));
  assert_string_equal(err, "t.s:1:4: error: unknown instruction 'y'");
}

static void test_gcn_new_valu(void **state) {
  (void)state;
  char err[256];
  int rc;
  wv_gcn_wave *w = run_text("v_mov_b32 v1, 0x80000010\n"
                            "v_not_b32 v2, v1\n"
                            "v_lshrrev_b32 v3, 4, v1\n"
                            "v_ashrrev_i32 v4, 4, v1\n"
                            "v_min_u32 v5, 7, v1\n"
                            "v_min_i32 v6, 7, v1\n"
                            "v_max_u32 v7, 7, v1\n"
                            "v_max_i32 v8, 7, v1\n"
                            "v_bfe_u32 v9, v1, 4, 3\n"
                            "v_bfe_u32 v11, v1, 28, 0\n"
                            "v_bcnt_u32_b32 v12, v1, 5\n"
                            "v_lshrrev_b32 v13, 36, v1\n", /* the shift takes 5 bits: 36 → 4 */
                            32, err, sizeof err, &rc);
  assert_non_null(w);
  assert_int_equal(rc, 0);
  assert_int_equal(w->vgpr[2][3], 0x7fffffefu);
  assert_int_equal(w->vgpr[3][3], 0x08000001u);
  assert_int_equal(w->vgpr[4][3], 0xf8000001u);
  assert_int_equal(w->vgpr[5][3], 7);
  assert_int_equal(w->vgpr[6][3], 0x80000010u);
  assert_int_equal(w->vgpr[7][3], 0x80000010u);
  assert_int_equal(w->vgpr[8][3], 7);
  assert_int_equal(w->vgpr[9][3], 1);
  assert_int_equal(w->vgpr[11][3], 0);
  assert_int_equal(w->vgpr[12][3], 7);
  assert_int_equal(w->vgpr[13][3], 0x08000001u);
  free(w);
}

/* ---- llvm-mc ------------------------------------------------------------------------------------- */

/* Every snippet the generator can produce, for `--print`. */
static int print_all(const char *name) {
  const wv_amd_machine *m = wv_amd_machine_find(name);
  if (!m) {
    fprintf(stderr, "unknown machine '%s'\n", name);
    return 2;
  }
  static const struct { int op, mode, type; } all[] = {
      {WV_OP_SHFL, WV_SHFL_IDX, WV_T_B32}, {WV_OP_SHFL, WV_SHFL_UP, WV_T_B32},
      {WV_OP_SHFL, WV_SHFL_DOWN, WV_T_B32}, {WV_OP_SHFL, WV_SHFL_BFLY, WV_T_B32},
      {WV_OP_VOTE, WV_VOTE_ALL, 0}, {WV_OP_VOTE, WV_VOTE_ANY, 0}, {WV_OP_VOTE, WV_VOTE_UNI, 0},
      {WV_OP_VOTE, WV_VOTE_BALLOT, 0},
      {WV_OP_MATCH, WV_MATCH_ANY, WV_T_B32}, {WV_OP_MATCH, WV_MATCH_ANY, WV_T_B64},
      {WV_OP_MATCH, WV_MATCH_ALL, WV_T_B32}, {WV_OP_MATCH, WV_MATCH_ALL, WV_T_B64},
      {WV_OP_REDUX, WV_REDUX_ADD, WV_T_U32}, {WV_OP_REDUX, WV_REDUX_ADD, WV_T_S32},
      {WV_OP_REDUX, WV_REDUX_MIN, WV_T_U32}, {WV_OP_REDUX, WV_REDUX_MIN, WV_T_S32},
      {WV_OP_REDUX, WV_REDUX_MAX, WV_T_U32}, {WV_OP_REDUX, WV_REDUX_MAX, WV_T_S32},
      {WV_OP_REDUX, WV_REDUX_AND, WV_T_B32}, {WV_OP_REDUX, WV_REDUX_OR, WV_T_B32},
      {WV_OP_REDUX, WV_REDUX_XOR, WV_T_B32},
      {WV_OP_ELECT, 0, 0},
      {WV_OP_BAR, WV_BAR_WARPSYNC, 0},
  };
  printf("; every lowered cross-lane snippet for %s (%s, wave%u), llvm-mc -arch=amdgcn -mcpu=%s\n", m->name, m->family,
         m->wave, m->mcpu);
  for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) {
    char err[256], prefix[32];
    snprintf(prefix, sizeof prefix, "s%u_", i);
    char *t = wv_amd_lower(m, all[i].op, all[i].mode, all[i].type, prefix, err, sizeof err);
    if (!t) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    printf("\n%s", t);
    free(t);
  }
  return 0;
}

/* tests/gcn/llvm_mc_check.sh for every machine (skipped without WV_SRC; the script itself skips
 * when llvm-mc is not installed). */
static void test_llvm_mc(void **state) {
  const char *self = *state, *src = getenv("WV_SRC");
  if (!src || !self) skip();
  for (unsigned i = 0; wv_amd_machine_at(i); i++) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "bash '%s/tests/gcn/llvm_mc_check.sh' %s '%s'", src, wv_amd_machine_at(i)->name, self);
    int rc = system(cmd);
    if (rc != 0) fail_msg("%s failed (%d)", cmd, rc);
  }
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--print")) return print_all(argv[2]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_machines),
      cmocka_unit_test(test_lower_errors),
      cmocka_unit_test(test_gcn_branches),
      cmocka_unit_test(test_gcn_new_valu),
      cmocka_unit_test(test_shfl_battery),
      cmocka_unit_test(test_shfl_per_lane),
      cmocka_unit_test(test_vote),
      cmocka_unit_test(test_match),
      cmocka_unit_test(test_redux),
      cmocka_unit_test(test_elect_and_bar),
      cmocka_unit_test_prestate(test_llvm_mc, argv[0]),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
