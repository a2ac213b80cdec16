/*
 * test_gcn.c — the AMD single-wave model (src/amd/gcn.h): ds_permute_b32 / ds_bpermute_b32 on crafted
 * address patterns for wave64, wave32, the 8-lane toy wave and RDNA wave64; the VALU/SALU subset; the
 * assembler's error messages (exact FILE:LINE:COL); and every example in tests/gcn/NAME.s, whose `; RUN:`
 * line gives the `warpvm gcn` options and whose `; EXPECT:` lines give the output.
 *
 * Expected values come from the ISA pseudocode and the reference text, never from the implementation:
 *   - shared/reference/shfl-lowering-to-ds-permute.zh.md §3 (lanes 0 and 1 with addresses 8 and 9 both
 *     read lane 2 = 33; two lanes pushing to index 2: the higher one wins, tmp[2] = 10; unwritten
 *     entries read 0; the offset is added first and can rotate; only address bits [7:2] count);
 *   - AMD RDNA3 ISA §16.15 DS_PERMUTE_B32 (178) / DS_BPERMUTE_B32 (179) and CDNA4 ISA §12.12 (opcodes
 *     62/63): "If a source thread is disabled, it does not propagate data"; "If src_lane selects a
 *     disabled thread then zero is returned"; EXEC applies to the write; lane = (addr + OFFSET) / 4 % 64
 *     (CDNA) or % 32 "regardless of wave size" (RDNA3), and their 4-thread examples;
 *   - Mesa ACO emit_bpermute: on GFX10-11.5 wave64 ds_bpermute_b32 does not cross 32-lane halves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>

#include "amd/gcn.h"

static wv_gcn_wave *mk(unsigned size, int rdna) {
  wv_gcn_wave *w = malloc(sizeof *w);
  assert_non_null(w);
  assert_int_equal(wv_gcn_wave_init(w, size, rdna), 0);
  return w;
}

static void fill(wv_gcn_wave *w, unsigned v, uint32_t value) {
  for (unsigned l = 0; l < WV_GCN_MAXLANES; l++) w->vgpr[v][l] = value;
}

enum { ADDR = 1, DATA = 2, DST = 3 };

/* data[l] = 1000 + l so every lane's value names its lane */
static void data_lanes(wv_gcn_wave *w) {
  for (unsigned l = 0; l < WV_GCN_MAXLANES; l++) w->vgpr[DATA][l] = 1000 + l;
}

/* ---- the reference text's examples ----------------------------------------------------------------- */

static void test_text_bpermute8(void **state) {
  (void)state;
  wv_gcn_wave *w = mk(8, 0);
  static const uint32_t addr[8] = {8, 9, 0, 12, 28, 20, 16, 4}, data[8] = {11, 22, 33, 44, 55, 66, 77, 88};
  for (unsigned l = 0; l < 8; l++) { w->vgpr[ADDR][l] = addr[l]; w->vgpr[DATA][l] = data[l]; }
  wv_gcn_ds_bpermute(w, DST, ADDR, DATA, 0);
  assert_int_equal(w->vgpr[DST][0], 33); /* address 8 = 0b1000: index 2 */
  assert_int_equal(w->vgpr[DST][1], 33); /* address 9 = 0b1001: bits [1:0] ignored, index 2 */
  assert_int_equal(w->vgpr[DST][2], 11); /* address 0: lane 0 */
  free(w);
}

static void test_text_permute8_conflict(void **state) {
  (void)state;
  wv_gcn_wave *w = mk(8, 0);
  static const uint32_t addr[8] = {8, 9, 0, 4, 12, 20, 24, 28}, data[8] = {7, 10, 15, 20, 25, 30, 35, 40};
  for (unsigned l = 0; l < 8; l++) { w->vgpr[ADDR][l] = addr[l]; w->vgpr[DATA][l] = data[l]; }
  wv_gcn_ds_permute(w, DST, ADDR, DATA, 0);
  static const uint32_t want[8] = {15, 20, 10, 25, 0, 30, 35, 40}; /* tmp[2] = 10: lane 1 beats lane 0 */
  for (unsigned l = 0; l < 8; l++) assert_int_equal(w->vgpr[DST][l], want[l]);
  free(w);
}

/* ---- the ISA documents' 4-thread examples (lanes 0..3 of any wave, the rest disabled) ---------------- */

static void isa_examples(unsigned size, int rdna) {
  enum { A = 0xa, B = 0xb, C = 0xc, D = 0xd, OLD = 0xdead };
  static const uint32_t src[4] = {A, B, C, D}, addr[4] = {0, 0, 12, 4};
  static const struct { int bwd; uint64_t exec; uint32_t want[4]; } cases[] = {
      {0, 0xf, {B, D, 0, C}}, {0, 0xa, {OLD, D, OLD, 0}}, /* DS_PERMUTE_B32 */
      {1, 0xf, {A, A, D, B}}, {1, 0xa, {OLD, 0, OLD, B}}, /* DS_BPERMUTE_B32 */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    wv_gcn_wave *w = mk(size, rdna);
    for (unsigned l = 0; l < 4; l++) { w->vgpr[DATA][l] = src[l]; w->vgpr[ADDR][l] = addr[l]; }
    fill(w, DST, OLD);
    w->exec = cases[k].exec;
    if (cases[k].bwd) wv_gcn_ds_bpermute(w, DST, ADDR, DATA, 0);
    else wv_gcn_ds_permute(w, DST, ADDR, DATA, 0);
    for (unsigned l = 0; l < 4; l++) assert_int_equal(w->vgpr[DST][l], cases[k].want[l]);
    for (unsigned l = 4; l < size; l++) assert_int_equal(w->vgpr[DST][l], OLD); /* disabled: untouched */
    free(w);
  }
}

static void test_isa_examples(void **state) {
  (void)state;
  isa_examples(64, 0);
  isa_examples(64, 1);
  isa_examples(32, 0);
  isa_examples(8, 0);
}

/* ---- address bits --------------------------------------------------------------------------------- */

/* bpermute with addr[l] = f(l) must give data[want(l)] on every lane */
static void check_bperm(wv_gcn_wave *w, const uint32_t *addr, uint32_t offset, const unsigned *want) {
  data_lanes(w);
  for (unsigned l = 0; l < w->size; l++) w->vgpr[ADDR][l] = addr[l];
  wv_gcn_ds_bpermute(w, DST, ADDR, DATA, offset);
  for (unsigned l = 0; l < w->size; l++) {
    if (w->vgpr[DST][l] != 1000 + want[l]) fail_msg("wave%u lane %u: got %u, want lane %u", w->size, l, w->vgpr[DST][l], want[l]);
  }
}

static void test_high_bits_ignored(void **state) {
  (void)state;
  static const uint32_t junk[] = {0x100, 0x200, 0xff00, 0x10000, 0x80000000u, 0xffffff00u};
  uint32_t addr[64];
  unsigned want[64];
  for (size_t j = 0; j < sizeof junk / sizeof junk[0]; j++) {
    /* wave64: bits above 7 ignored; lane l reads lane 63 - l */
    wv_gcn_wave *w = mk(64, 0);
    for (unsigned l = 0; l < 64; l++) { addr[l] = (63 - l) * 4 + junk[j]; want[l] = 63 - l; }
    check_bperm(w, addr, 0, want);
    free(w);
    /* wave32: bit 7 is ignored too ([6:2]) */
    w = mk(32, 0);
    for (unsigned l = 0; l < 32; l++) { addr[l] = (31 - l) * 4 + 0x80 + junk[j]; want[l] = 31 - l; }
    check_bperm(w, addr, 0, want);
    free(w);
    /* toy wave8: [4:2] */
    w = mk(8, 0);
    for (unsigned l = 0; l < 8; l++) { addr[l] = (7 - l) * 4 + 0x20 + 0x40 + junk[j]; want[l] = 7 - l; }
    check_bperm(w, addr, 0, want);
    free(w);
  }
  /* bit 7 selects the other half on wave64 (GCN), not on wave32 */
  wv_gcn_wave *w = mk(64, 0);
  for (unsigned l = 0; l < 64; l++) { addr[l] = 0x80 + 4 * l; want[l] = (l + 32) % 64; }
  check_bperm(w, addr, 0, want);
  free(w);
}

static void test_low_bits_ignored(void **state) {
  (void)state;
  static const unsigned sizes[] = {64, 32, 8};
  for (size_t s = 0; s < 3; s++) {
    for (uint32_t low = 0; low < 4; low++) {
      wv_gcn_wave *w = mk(sizes[s], 0);
      uint32_t addr[64];
      unsigned want[64];
      for (unsigned l = 0; l < w->size; l++) { addr[l] = ((l + 1) % w->size) * 4 + low; want[l] = (l + 1) % w->size; }
      check_bperm(w, addr, 0, want);
      free(w);
    }
  }
}

static void test_offset_added_first(void **state) {
  (void)state;
  uint32_t addr[64];
  unsigned want[64];
  /* 2 + offset 2 = 4: lane 1. Shifting each part first would give lane 0. */
  wv_gcn_wave *w = mk(64, 0);
  for (unsigned l = 0; l < 64; l++) { addr[l] = 2; want[l] = 1; }
  check_bperm(w, addr, 2, want);
  /* 252 (lane 63) + 4 = 256: bit 8 is dropped after the add, lane 0 */
  for (unsigned l = 0; l < 64; l++) { addr[l] = 252; want[l] = 0; }
  check_bperm(w, addr, 4, want);
  /* the 32-bit sum wraps: 0xfffffffc + 8 = 4: lane 1 */
  for (unsigned l = 0; l < 64; l++) { addr[l] = 0xfffffffcu; want[l] = 1; }
  check_bperm(w, addr, 8, want);
  /* rotation: lane*4 + 0xfffc (the largest offset, -4 mod 256) pulls lane - 1 */
  for (unsigned l = 0; l < 64; l++) { addr[l] = 4 * l; want[l] = (l + 63) % 64; }
  check_bperm(w, addr, 0xfffc, want);
  free(w);
  /* wave32: 124 (lane 31) + 4 = 128: bit 7 is not a lane bit, lane 0 */
  w = mk(32, 0);
  for (unsigned l = 0; l < 32; l++) { addr[l] = 124; want[l] = 0; }
  check_bperm(w, addr, 4, want);
  free(w);
  /* forward permute with offset: lane l pushes to l + 3 */
  w = mk(64, 0);
  data_lanes(w);
  for (unsigned l = 0; l < 64; l++) w->vgpr[ADDR][l] = 4 * l;
  wv_gcn_ds_permute(w, DST, ADDR, DATA, 12);
  for (unsigned l = 0; l < 64; l++) assert_int_equal(w->vgpr[DST][l], 1000 + (l + 61) % 64);
  free(w);
}

static void test_permute_conflicts(void **state) {
  (void)state;
  wv_gcn_wave *w = mk(64, 0);
  data_lanes(w);
  fill(w, ADDR, 5 * 4); /* everyone pushes to lane 5 */
  wv_gcn_ds_permute(w, DST, ADDR, DATA, 0);
  for (unsigned l = 0; l < 64; l++) assert_int_equal(w->vgpr[DST][l], l == 5 ? 1063 : 0);
  w->exec = ~((uint64_t)1 << 63); /* the highest *active* lane wins */
  fill(w, DST, 7);
  wv_gcn_ds_permute(w, DST, ADDR, DATA, 0);
  assert_int_equal(w->vgpr[DST][5], 1062);
  assert_int_equal(w->vgpr[DST][4], 0);
  assert_int_equal(w->vgpr[DST][63], 7);
  free(w);
  /* wave32: lanes 3, 17 and 30 push to lane 9 (addresses 36, 36 + 128, 37) */
  w = mk(32, 0);
  data_lanes(w);
  for (unsigned l = 0; l < 32; l++) w->vgpr[ADDR][l] = 4 * l;
  w->vgpr[ADDR][3] = 36;
  w->vgpr[ADDR][17] = 36 + 128;
  w->vgpr[ADDR][30] = 37;
  w->vgpr[ADDR][9] = 0; /* lane 9's own value goes to lane 0 */
  wv_gcn_ds_permute(w, DST, ADDR, DATA, 0);
  assert_int_equal(w->vgpr[DST][9], 1030);
  assert_int_equal(w->vgpr[DST][0], 1009);
  assert_int_equal(w->vgpr[DST][3], 0);
  assert_int_equal(w->vgpr[DST][17], 0);
  assert_int_equal(w->vgpr[DST][30], 0);
  assert_int_equal(w->vgpr[DST][31], 1031);
  free(w);
}

static void test_inactive_lanes(void **state) {
  (void)state;
  /* bpermute: even lanes active, each reads its odd neighbour (disabled) → 0; odd lanes untouched */
  wv_gcn_wave *w = mk(64, 0);
  data_lanes(w);
  for (unsigned l = 0; l < 64; l++) w->vgpr[ADDR][l] = 4 * (l ^ 1);
  fill(w, DST, 77);
  w->exec = 0x5555555555555555ull;
  wv_gcn_ds_bpermute(w, DST, ADDR, DATA, 0);
  for (unsigned l = 0; l < 64; l++) assert_int_equal(w->vgpr[DST][l], l % 2 ? 77 : 0);
  /* reading an active lane still works under a partial exec */
  for (unsigned l = 0; l < 64; l++) w->vgpr[ADDR][l] = 4 * ((l + 2) % 64);
  wv_gcn_ds_bpermute(w, DST, ADDR, DATA, 0);
  for (unsigned l = 0; l < 64; l += 2) assert_int_equal(w->vgpr[DST][l], 1000 + (l + 2) % 64);
  /* permute: disabled lanes do not push. Lanes 0..31 active push to 63-l (disabled, not written);
   * lanes 32..63 would push to 31..0 but are disabled, so active lanes read 0 */
  for (unsigned l = 0; l < 64; l++) w->vgpr[ADDR][l] = 4 * (63 - l);
  fill(w, DST, 77);
  w->exec = 0xffffffffull;
  wv_gcn_ds_permute(w, DST, ADDR, DATA, 0);
  for (unsigned l = 0; l < 64; l++) assert_int_equal(w->vgpr[DST][l], l < 32 ? 0 : 77);
  /* exec = 0: nothing changes */
  w->exec = 0;
  wv_gcn_ds_permute(w, DST, ADDR, DATA, 0);
  wv_gcn_ds_bpermute(w, DST, ADDR, DATA, 0);
  for (unsigned l = 0; l < 64; l++) assert_int_equal(w->vgpr[DST][l], l < 32 ? 0 : 77);
  free(w);
  /* wave8: exec bits above the wave are ignored */
  w = mk(8, 0);
  data_lanes(w);
  for (unsigned l = 0; l < 8; l++) w->vgpr[ADDR][l] = 4 * 7;
  w->exec = 0xff7f; /* lane 7 off; "lanes" 8..15 do not exist */
  wv_gcn_ds_bpermute(w, DST, ADDR, DATA, 0);
  for (unsigned l = 0; l < 7; l++) assert_int_equal(w->vgpr[DST][l], 0);
  free(w);
}

static void test_rdna_halves(void **state) {
  (void)state;
  uint32_t addr[64];
  unsigned want[64];
  wv_gcn_wave *w = mk(64, 1);
  /* the other half's address reaches the own half's lane of the same number mod 32 */
  for (unsigned l = 0; l < 64; l++) { addr[l] = 4 * (l ^ 32); want[l] = l; }
  check_bperm(w, addr, 0, want);
  /* address 0: lane 0 in the low half, lane 32 in the high half */
  for (unsigned l = 0; l < 64; l++) { addr[l] = 0; want[l] = l & 32; }
  check_bperm(w, addr, 0, want);
  /* offset rotation wraps inside each half */
  for (unsigned l = 0; l < 64; l++) { addr[l] = 4 * l; want[l] = (l & 32) | ((l + 1) & 31); }
  check_bperm(w, addr, 4, want);
  /* the same address pattern crosses halves on GCN wave64 */
  wv_gcn_wave *g = mk(64, 0);
  for (unsigned l = 0; l < 64; l++) { addr[l] = 4 * l; want[l] = (l + 1) % 64; }
  check_bperm(g, addr, 4, want);
  free(g);
  /* forward: all lanes push to address 0 → tmp[0] = lane 31, tmp[32] = lane 63 */
  data_lanes(w);
  fill(w, ADDR, 0);
  wv_gcn_ds_permute(w, DST, ADDR, DATA, 0);
  for (unsigned l = 0; l < 64; l++) assert_int_equal(w->vgpr[DST][l], l == 0 ? 1031 : l == 32 ? 1063 : 0);
  /* inactive-lane zero per half: lane 32 off, upper lanes read address 0 → lane 32 → 0 */
  fill(w, DST, 5);
  w->exec = ~((uint64_t)1 << 32);
  wv_gcn_ds_bpermute(w, DST, ADDR, DATA, 0);
  for (unsigned l = 0; l < 64; l++) assert_int_equal(w->vgpr[DST][l], l < 32 ? 1000 : l == 32 ? 5 : 0);
  free(w);
  /* the flag means nothing on wave32 */
  w = mk(32, 1);
  for (unsigned l = 0; l < 32; l++) { addr[l] = 4 * l + 0x80; want[l] = l; }
  check_bperm(w, addr, 0, want);
  free(w);
}

static void test_permute_lane_fn(void **state) {
  (void)state;
  wv_gcn_wave *w = mk(64, 0);
  assert_int_equal(wv_gcn_permute_lane(w, 0, 8, 0), 2);
  assert_int_equal(wv_gcn_permute_lane(w, 0, 9, 0), 2);
  assert_int_equal(wv_gcn_permute_lane(w, 0, 0xff, 0), 63);
  assert_int_equal(wv_gcn_permute_lane(w, 0, 0x100, 0), 0);
  w->rdna = 1;
  assert_int_equal(wv_gcn_permute_lane(w, 40, 0xff, 0), 63);
  assert_int_equal(wv_gcn_permute_lane(w, 3, 0xff, 0), 31);
  free(w);
  w = mk(32, 0);
  assert_int_equal(wv_gcn_permute_lane(w, 0, 0xff, 0), 31);
  free(w);
  w = mk(8, 0);
  assert_int_equal(wv_gcn_permute_lane(w, 0, 9, 0), 2);
  assert_int_equal(wv_gcn_permute_lane(w, 0, 0x1f, 0), 7);
  free(w);
  assert_int_equal(wv_gcn_wave_init(&(wv_gcn_wave){0}, 16, 0), -1);
}

/* ---- assembler + interpreter ------------------------------------------------------------------------ */

static wv_gcn_wave *run_src(const char *src, unsigned size, int rdna, uint64_t exec) {
  char err[512];
  wv_gcn_program *p = wv_gcn_assemble(src, strlen(src), "t.s", size, err, sizeof err);
  if (!p) fail_msg("%s", err);
  wv_gcn_wave *w = mk(size, rdna);
  w->exec = exec;
  assert_int_equal(wv_gcn_run(w, p, err, sizeof err), 0);
  wv_gcn_program_free(p);
  return w;
}

static void test_valu_subset(void **state) {
  (void)state;
  /* mbcnt with exec as the mask: the number of active lanes below each lane */
  wv_gcn_wave *w = run_src("s_mov_b64 s[2:3], exec\n"
                           "v_mbcnt_lo_u32_b32 v1, s2, 0\n"
                           "v_mbcnt_hi_u32_b32 v1, s3, v1\n"
                           "v_mbcnt_lo_u32_b32 v2, -1, 0\n"
                           "v_mbcnt_hi_u32_b32 v2, -1, v2\n",
                           64, 0, 0xf0f0f0f0f0f0f0f0ull);
  for (unsigned l = 0; l < 64; l++) {
    if (!((l / 4) % 2)) continue; /* inactive lanes keep v1 = v2 = 0 */
    unsigned below = 0;
    for (unsigned k = 0; k < l; k++) below += (unsigned)((0xf0f0f0f0f0f0f0f0ull >> k) & 1);
    assert_int_equal(w->vgpr[1][l], below);
    assert_int_equal(w->vgpr[2][l], l);
  }
  assert_int_equal(w->vgpr[1][0], 0);
  free(w);
  /* compares (signed vs unsigned), cndmask, readlane, readfirstlane, shifts, logic */
  w = run_src("v_mov_b32 v1, -1\n"
              "v_cmp_lt_i32 vcc, v1, v0            // -1 < lane: all lanes\n"
              "v_cmp_lt_u32 s[4:5], v1, v0         ; 0xffffffff < lane: none\n"
              "v_cmp_ge_u32 s[6:7], v0, 62\n"
              "v_cndmask_b32 v2, 5, 9, s[6:7]\n"
              "v_lshlrev_b32 v3, v0, 1\n"
              "v_xor_b32 v4, v0, 0x55\n"
              "v_and_b32 v5, v0, 3\n"
              "v_or_b32 v6, v0, 0x100\n"
              "v_sub_u32 v7, v0, 1\n"
              "s_mov_b32 s10, 45\n"
              "v_readlane_b32 s11, v3, s10\n"
              "v_readlane_b32 s12, v0, 70            ; lane select mod 64\n"
              "s_mov_b64 exec, 0x0000000800000000\n"
              "v_readfirstlane_b32 s13, v0\n"
              "s_mov_b64 exec, 0\n"
              "v_readfirstlane_b32 s14, v4\n"
              "v_mov_b32 v7, 1234                   // exec = 0: no lane written\n"
              "s_endpgm\n"
              "v_mov_b32 v8, 1\n",
              64, 0, ~(uint64_t)0);
  assert_true(w->vcc == ~(uint64_t)0);
  assert_int_equal(w->sgpr[4], 0);
  assert_int_equal(w->sgpr[5], 0);
  assert_int_equal(w->sgpr[6], 0);
  assert_int_equal(w->sgpr[7], 0xc0000000u);
  for (unsigned l = 0; l < 64; l++) {
    assert_int_equal(w->vgpr[2][l], l >= 62 ? 9 : 5);
    assert_int_equal(w->vgpr[3][l], 1u << (l & 31));
    assert_int_equal(w->vgpr[4][l], l ^ 0x55);
    assert_int_equal(w->vgpr[5][l], l & 3);
    assert_int_equal(w->vgpr[6][l], l | 0x100);
    assert_int_equal(w->vgpr[7][l], l - 1u);
  }
  assert_int_equal(w->sgpr[11], 1u << 13);
  assert_int_equal(w->sgpr[12], 6);
  assert_int_equal(w->sgpr[13], 35);
  assert_int_equal(w->sgpr[14], 0x55); /* exec = 0: lane 0 */
  assert_false(w->vgpr_written[0] >> 8 & 1); /* after s_endpgm */
  free(w);
  /* wave32 spelling: vcc_lo, sN masks, v_add_nc_u32; exec_lo; compare writes 0 for disabled lanes */
  w = run_src("s_mov_b32 exec_lo, 0xffff\n"
              "v_add_nc_u32 v1, v0, 100\n"
              "v_cmp_ne_u32 vcc_lo, v0, 3\n"
              "v_cmp_gt_i32 s3, 0, v0\n"
              "v_cndmask_b32 v2, 0, 1, vcc_lo\n",
              32, 0, ~(uint64_t)0);
  assert_true((uint32_t)w->vcc == 0xfff7u);
  assert_int_equal(w->sgpr[3], 0);
  for (unsigned l = 0; l < 32; l++) {
    assert_int_equal(w->vgpr[1][l], l < 16 ? l + 100 : 0);
    assert_int_equal(w->vgpr[2][l], l < 16 && l != 3 ? 1 : 0);
  }
  free(w);
}

/* ---- assembler errors ---------------------------------------------------------------------------- */

static void expect_error(const char *src, size_t len, unsigned wave, const char *want) {
  char err[512];
  wv_gcn_program *p = wv_gcn_assemble(src, len, "t.s", wave, err, sizeof err);
  if (p) { wv_gcn_program_free(p); fail_msg("'%s' assembled, expected %s", src, want); }
  if (strcmp(err, want)) fail_msg("got  '%s'\nwant '%s'", err, want);
}
#define EXPECT_ERR(src, wave, want) expect_error(src, sizeof(src) - 1, wave, want)

static void test_asm_errors(void **state) {
  (void)state;
  EXPECT_ERR("v_foo v1, v2", 64, "t.s:1:1: error: unknown instruction 'v_foo'");
  EXPECT_ERR("; header\n  v_mov_b32 v1 v2", 64, "t.s:2:16: error: expected ',', found 'v'");
  EXPECT_ERR("v_mov_b32 v256, v1", 64, "t.s:1:11: error: VGPR v256 out of range (v0..v255)");
  EXPECT_ERR("v_mov_b32 v1, s106", 64, "t.s:1:15: error: SGPR s106 out of range (s0..s105)");
  EXPECT_ERR("ds_bpermute_b32 v0, v1, v2 offset:65536", 64,
             "t.s:1:35: error: offset must be in 0..65535 (a 16-bit unsigned immediate)");
  EXPECT_ERR("ds_bpermute_b32 v0, v1, v2 offset:", 64, "t.s:1:35: error: expected a number after 'offset:'");
  EXPECT_ERR("ds_permute_b32 v0, v1, v2 offset:4 offset:8", 64, "t.s:1:36: error: duplicate 'offset:'");
  EXPECT_ERR("ds_permute_b32 v1, s0, v2", 64, "t.s:1:20: error: operand 2 of 'ds_permute_b32' must be a VGPR (vN)");
  EXPECT_ERR("v_cmp_eq_u32 s0, v1, v2", 64,
             "t.s:1:14: error: operand 1 of 'v_cmp_eq_u32' must be a 64-bit lane mask on wave64 (vcc or s[N:N+1])");
  EXPECT_ERR("v_cmp_eq_u32 s[0:1], v1, v2", 32,
             "t.s:1:14: error: operand 1 of 'v_cmp_eq_u32' must be a 32-bit lane mask on this wave size (vcc_lo or sN)");
  EXPECT_ERR("s_mov_b64 s[1:2], 0", 64, "t.s:1:11: error: misaligned 64-bit SGPR pair: the first register must be even");
  EXPECT_ERR("s_mov_b64 s[2:5], 0", 64, "t.s:1:11: error: only 64-bit SGPR pairs s[N:N+1] are supported");
  EXPECT_ERR("s_mov_b64 s[2:3, 0", 64, "t.s:1:11: error: malformed SGPR range: expected s[N:N+1]");
  EXPECT_ERR("s_mov_b64 s2, 0", 64, "t.s:1:11: error: operand 1 of 's_mov_b64' must be a 64-bit SGPR pair (s[N:N+1], vcc, exec)");
  EXPECT_ERR("v_add_u32 v1, v2, 0x100000000", 64, "t.s:1:19: error: constant '0x100000000' does not fit in 32 bits");
  EXPECT_ERR("v_add_u32 v1, v2, -2147483649", 64, "t.s:1:19: error: constant '-2147483649' does not fit in 32 bits");
  EXPECT_ERR("v_mov_b32 v1, 99999999999999999999999", 64,
             "t.s:1:15: error: constant '99999999999999999999999' does not fit in 64 bits");
  EXPECT_ERR("v_mov_b32 v1, -", 64, "t.s:1:15: error: invalid constant '-'");
  EXPECT_ERR("v_mov_b32 v1, 12ab", 64, "t.s:1:15: error: invalid constant '12ab'");
  EXPECT_ERR("v_mov_b32 v1", 64, "t.s:1:13: error: too few operands for 'v_mov_b32' (expects 2)");
  EXPECT_ERR("v_mov_b32 v1,   ; c", 64, "t.s:1:17: error: too few operands for 'v_mov_b32' (expects 2)");
  EXPECT_ERR("v_mov_b32 v1, v2, v3", 64, "t.s:1:17: error: too many operands for 'v_mov_b32' (expects 2)");
  EXPECT_ERR("v_mov_b32 v1, v2 offset:4", 64, "t.s:1:18: error: unexpected 'offset:4' after the operands of 'v_mov_b32'");
  EXPECT_ERR("v_mov_b32 v1, foo", 64, "t.s:1:15: error: unknown operand 'foo'");
  EXPECT_ERR("v_mov_b32 v1, vcc", 64,
             "t.s:1:15: error: operand 2 of 'v_mov_b32' must be a VGPR, a 32-bit SGPR or a 32-bit constant");
  EXPECT_ERR("v_readlane_b32 v1, v2, 0", 64,
             "t.s:1:16: error: operand 1 of 'v_readlane_b32' must be a 32-bit SGPR (sN, vcc_lo, vcc_hi, exec_lo, exec_hi)");
  EXPECT_ERR("v_mov_b32 v1,\0v2", 64, "t.s:1:14: error: expected an operand, found byte 0x00");
  EXPECT_ERR("\n\n\t123", 64, "t.s:3:2: error: expected an instruction, found '1'");
  EXPECT_ERR("v_mov_b32(v1, v2)", 64, "t.s:1:10: error: expected a blank after the mnemonic, found '('");
  EXPECT_ERR("s_endpgm 3", 64, "t.s:1:10: error: unexpected '3' after the operands of 's_endpgm'");
  /* bounded: an over-long line is refused at the first column past the limit */
  char *big = malloc(WV_GCN_MAX_LINE + 100);
  assert_non_null(big);
  memset(big, 'a', WV_GCN_MAX_LINE + 100);
  char want[128];
  snprintf(want, sizeof want, "t.s:1:%d: error: line longer than %d bytes", WV_GCN_MAX_LINE + 1, WV_GCN_MAX_LINE);
  expect_error(big, WV_GCN_MAX_LINE + 100, 64, want);
  free(big);
  /* a file name in the message; a bad wave size */
  char err[256];
  assert_null(wv_gcn_assemble("x", 1, "k.s", 16, err, sizeof err));
  assert_string_equal(err, "k.s: error: wave size must be 64, 32 or 8");
}

static void test_asm_accepts(void **state) {
  (void)state;
  static const char src[] = "// comment line\n"
                            "\n"
                            "s_waitcnt vmcnt(0) lgkmcnt(0)   ; any operands\n"
                            "s_nop 7\n"
                            "v_mov_b32_e32 v1, 0x7fffffff\n"
                            "V_MOV_B32 v1, v2\n"; /* mnemonics are lower case: this is an error */
  char err[256];
  wv_gcn_program *p = wv_gcn_assemble(src, sizeof src - 1 - 17, "t.s", 64, err, sizeof err);
  assert_non_null(p);
  assert_int_equal(wv_gcn_program_size(p), 3);
  /* the program knows its wave size */
  wv_gcn_wave *w = mk(32, 0);
  assert_int_equal(wv_gcn_run(w, p, err, sizeof err), -1);
  free(w);
  wv_gcn_program_free(p);
  assert_null(wv_gcn_assemble(src, sizeof src - 1, "t.s", 64, err, sizeof err));
  assert_string_equal(err, "t.s:6:1: error: unknown instruction 'V_MOV_B32'");
  /* empty input, CRLF line ends, no final newline */
  p = wv_gcn_assemble("", 0, "t.s", 8, err, sizeof err);
  assert_non_null(p);
  assert_int_equal(wv_gcn_program_size(p), 0);
  wv_gcn_program_free(p);
  p = wv_gcn_assemble("v_mov_b32 v1, 1\r\nv_mov_b32 v2, 2", 32, "t.s", 8, err, sizeof err);
  assert_non_null(p);
  assert_int_equal(wv_gcn_program_size(p), 2);
  wv_gcn_program_free(p);
}

/* Garbage in, a message or a program out: never a crash (run under ASan/UBSan). */
static void test_asm_fuzz(void **state) {
  (void)state;
  static const char *const pieces[] = {"v_mov_b32", "ds_bpermute_b32", "v_cmp_eq_u32", "s_mov_b64", " ", ",", "v1",
                                       "s[2:3]", "s[", "]", ":", "-", "0x", "99999999999999999999", "vcc", "exec",
                                       "offset:", "offset:4", "\n", ";", "//", "\0", "\xff", "v", "s", "v_cndmask_b32"};
  uint64_t x = 88172645463325252ull;
  char buf[256], err[512];
  for (int it = 0; it < 20000; it++) {
    size_t n = 0;
    while (n < sizeof buf - 32) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      if (x % 13 == 0) break;
      const char *pc = pieces[x % (sizeof pieces / sizeof pieces[0])];
      size_t k = *pc ? strlen(pc) : 1;
      memcpy(buf + n, pc, k);
      n += k;
    }
    wv_gcn_program *p = wv_gcn_assemble(buf, n, "f.s", (unsigned[]){64, 32, 8}[it % 3], err, sizeof err);
    if (p) {
      wv_gcn_wave *w = mk((unsigned[]){64, 32, 8}[it % 3], it % 2);
      assert_int_equal(wv_gcn_run(w, p, err, sizeof err), 0);
      free(w);
      wv_gcn_program_free(p);
    } else {
      assert_true(strncmp(err, "f.s:", 4) == 0 && strstr(err, ": error: "));
    }
  }
}

static void test_set_vgpr(void **state) {
  (void)state;
  wv_gcn_wave *w = mk(8, 0);
  char err[256];
  assert_int_equal(wv_gcn_set_vgpr(w, "v0=5,-1,0x10", err, sizeof err), 0);
  static const uint32_t want[8] = {5, 0xffffffffu, 16, 0, 0, 0, 0, 0};
  for (unsigned l = 0; l < 8; l++) assert_int_equal(w->vgpr[0][l], want[l]);
  assert_int_equal(wv_gcn_set_vgpr(w, "v1=1,2,3,4,5,6,7,8,9", err, sizeof err), -1);
  assert_int_equal(wv_gcn_set_vgpr(w, "v1=4294967296", err, sizeof err), -1);
  assert_int_equal(wv_gcn_set_vgpr(w, "v256=1", err, sizeof err), -1);
  assert_int_equal(wv_gcn_set_vgpr(w, "v1=1,,2", err, sizeof err), -1);
  assert_int_equal(wv_gcn_set_vgpr(w, "s1=1", err, sizeof err), -1);
  assert_int_equal(wv_gcn_set_vgpr(w, "v1", err, sizeof err), -1);
  free(w);
}

/* ---- tests/gcn/NAME.s: `; RUN:` options, `; EXPECT:` output ------------------------------------------- */

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = malloc(1 << 20);
  *len = b ? fread(b, 1, (1 << 20) - 1, f) : 0;
  fclose(f);
  if (b) b[*len] = 0;
  return b;
}

static void run_example(const char *path) {
  size_t len;
  char *text = slurp(path, &len), err[512];
  if (!text) fail_msg("cannot read %s", path);
  /* options */
  unsigned wave = 64;
  int rdna = 0, have_exec = 0;
  uint64_t exec = 0;
  char *sets[16];
  int nset = 0;
  char *run = strstr(text, "; RUN:");
  if (!run) fail_msg("%s: no '; RUN:' line", path);
  char *eol = strchr(run, '\n');
  char *opts = strndup(run + 6, eol ? (size_t)(eol - run - 6) : strlen(run + 6));
  for (char *save, *t = strtok_r(opts, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
    if (!strcmp(t, "--wave")) wave = (unsigned)atoi(strtok_r(NULL, " \t", &save));
    else if (!strcmp(t, "--rdna")) rdna = 1;
    else if (!strcmp(t, "--set") && nset < 16) sets[nset++] = strtok_r(NULL, " \t", &save);
    else if (!strcmp(t, "--exec")) { exec = strtoull(strtok_r(NULL, " \t", &save), NULL, 0); have_exec = 1; }
    else fail_msg("%s: unknown RUN option %s", path, t);
  }
  /* expected output */
  char *want = calloc(1, len + 1);
  size_t wn = 0;
  for (char *p = text; (p = strstr(p, "; EXPECT: ")); ) {
    p += 10;
    size_t k = strcspn(p, "\n");
    memcpy(want + wn, p, k);
    wn += k;
    want[wn++] = '\n';
    p += k;
  }
  wv_gcn_program *prog = wv_gcn_assemble(text, len, path, wave, err, sizeof err);
  if (!prog) fail_msg("%s", err);
  wv_gcn_wave *w = mk(wave, rdna);
  if (have_exec) w->exec = exec;
  for (int i = 0; i < nset; i++)
    if (wv_gcn_set_vgpr(w, sets[i], err, sizeof err)) fail_msg("%s: %s", path, err);
  assert_int_equal(wv_gcn_run(w, prog, err, sizeof err), 0);
  char *got = NULL;
  size_t gn = 0;
  FILE *mem = open_memstream(&got, &gn);
  assert_non_null(mem);
  wv_gcn_print_written(w, mem);
  fclose(mem);
  if (strcmp(got, want)) fail_msg("%s:\ngot:\n%swant:\n%s", path, got, want);
  free(got);
  free(w);
  wv_gcn_program_free(prog);
  free(want);
  free(opts);
  free(text);
}

static void test_examples(void **state) {
  (void)state;
  const char *src = getenv("WV_SRC");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/gcn", src ? src : ".");
  DIR *d = opendir(dir);
  if (!d) fail_msg("cannot open %s (set WV_SRC to the source tree)", dir);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t k = strlen(e->d_name);
    if (k < 3 || strcmp(e->d_name + k - 2, ".s")) continue;
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    run_example(path);
    n++;
  }
  closedir(d);
  assert_true(n >= 5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_text_bpermute8),
      cmocka_unit_test(test_text_permute8_conflict),
      cmocka_unit_test(test_isa_examples),
      cmocka_unit_test(test_high_bits_ignored),
      cmocka_unit_test(test_low_bits_ignored),
      cmocka_unit_test(test_offset_added_first),
      cmocka_unit_test(test_permute_conflicts),
      cmocka_unit_test(test_inactive_lanes),
      cmocka_unit_test(test_rdna_halves),
      cmocka_unit_test(test_permute_lane_fn),
      cmocka_unit_test(test_valu_subset),
      cmocka_unit_test(test_asm_errors),
      cmocka_unit_test(test_asm_accepts),
      cmocka_unit_test(test_asm_fuzz),
      cmocka_unit_test(test_set_vgpr),
      cmocka_unit_test(test_examples),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
