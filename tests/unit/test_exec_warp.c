/*
 * test_exec_warp.c — warp-level semantics through the C API (PTX ISA §9.7.9.6 shfl.sync,
 * §9.7.13 vote.sync / match.sync / redux.sync / activemask, §9.7.13.4 bar/barrier):
 *   shfl.sync idx/up/down/bfly with register b and c operands against the ISA pseudocode
 *   (value and predicate); vote.sync all/any/uni/ballot (also with a negated predicate and on
 *   two divergent groups with their own member masks); match.any/all on b32 and b64;
 *   redux.sync (signed and unsigned min/max differ); activemask in divergent code and after
 *   reconvergence; a loop that lanes leave at different iterations; independent thread
 *   scheduling: full-mask shfl.sync from two divergent paths exchanging values, a CTA barrier
 *   reached by the two halves of a warp on different paths, a partial last warp, spin-waits
 *   between warps and between the paths of one warp.
 *
 * Every test runs under a watchdog (wv_config.max_steps), so a scheduler hang is a failure,
 * not a hung test binary.
 */
#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int warp_setup(void **state) {
  wv_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_steps = 20000000;
  wv_vm *vm = wv_create(&cfg);
  *state = vm;
  return vm ? 0 : -1;
}

/* ---- shfl.sync -------------------------------------------------------------------------------- */

/* PTX ISA "shfl.sync" pseudocode, all 32 lanes active: returns d, sets *p. */
static uint32_t shfl_model(int mode, const uint32_t *a, int lane, uint32_t b, uint32_t c, int *p) {
  int bval = (int)(b & 31), cval = (int)(c & 31), seg = (int)((c >> 8) & 31);
  int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg, j, pval;
  switch (mode) {
  case 0: j = minl | (bval & ~seg); pval = j <= maxl; break; /* idx */
  case 1: j = lane - bval; pval = j >= maxl; break;          /* up */
  case 2: j = lane + bval; pval = j <= maxl; break;          /* down */
  default: j = lane ^ bval; pval = j <= maxl; break;         /* bfly */
  }
  if (!pval) j = lane;
  *p = pval;
  return a[j];
}

static const char SHFL_PTX[] = WVT_HDR
    ".visible .entry shfl(.param .u64 pin, .param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<24>; .reg .b64 %rd<8>; .reg .pred %p<8>;\n"
    "ld.param.u64 %rd1, [pin];\n"
    "ld.param.u64 %rd2, [pout];\n"
    "mov.u32 %r20, %tid.x;\n"
    "mul.wide.u32 %rd3, %r20, 16;\n"
    "add.s64 %rd4, %rd1, %rd3;\n"
    "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4];\n" /* a, b, c */
    "shfl.sync.idx.b32 %r5|%p1, %r1, %r2, %r3, -1;\n"
    "shfl.sync.up.b32 %r6|%p2, %r1, %r2, %r3, -1;\n"
    "shfl.sync.down.b32 %r7|%p3, %r1, %r2, %r3, -1;\n"
    "shfl.sync.bfly.b32 %r8|%p4, %r1, %r2, %r3, -1;\n"
    "selp.u32 %r9, 1, 0, %p1;\n"
    "selp.u32 %r10, 1, 0, %p2;\n"
    "selp.u32 %r11, 1, 0, %p3;\n"
    "selp.u32 %r12, 1, 0, %p4;\n"
    "mul.wide.u32 %rd5, %r20, 32;\n"
    "add.s64 %rd6, %rd2, %rd5;\n"
    "st.global.v4.u32 [%rd6], {%r5, %r9, %r6, %r10};\n"
    "st.global.v4.u32 [%rd6+16], {%r7, %r11, %r8, %r12};\n"
    "ret;\n"
    "}\n";

static void test_shfl_modes(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, SHFL_PTX, "shfl");
  enum { T = 64 };
  static uint32_t in[T * 4], out[T * 8];
  /* c values: the clamp in c[4:0] and the segment mask in c[12:8], as CUDA's width-w forms build
   * them ((32-w) << 8 | 31 for idx/down/bfly, (32-w) << 8 for up), plus odd ones */
  static const uint32_t cs[] = {0x1f, 0, 0x181f, 0x1800, 0x1c1f, 0x1c00, 0x101f, 0x1000, 0x1f1f, 0x0f, 0x0810, 0xffffe01f};
  uint64_t seed = 7;
  for (int round = 0; round < 40; round++) {
    for (int t = 0; t < T; t++) {
      in[4 * t] = (uint32_t)wvt_rand(&seed);
      uint32_t r = (uint32_t)wvt_rand(&seed);
      if (round < (int)N(cs)) {
        in[4 * t + 1] = round % 4 == 0 ? (uint32_t)(round % 32) : r % 40; /* uniform or per-lane b */
        in[4 * t + 2] = cs[round];
      } else {
        in[4 * t + 1] = r; /* only b[4:0] counts */
        in[4 * t + 2] = (uint32_t)wvt_rand(&seed) & (round % 2 ? 0x1f1fu : 0xffffffffu);
      }
    }
    memset(out, 0xee, sizeof out);
    wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, T, 2, b);
    for (int t = 0; t < T; t++) {
      int w = t / 32, lane = t % 32;
      uint32_t a[32];
      for (int l = 0; l < 32; l++) a[l] = in[4 * (32 * w + l)];
      for (int mode = 0; mode < 4; mode++) {
        int p;
        uint32_t d = shfl_model(mode, a, lane, in[4 * t + 1], in[4 * t + 2], &p);
        /* output order: idx, up, down, bfly */
        uint32_t gd = out[8 * t + 2 * mode], gp = out[8 * t + 2 * mode + 1];
        if (gd != d || gp != (uint32_t)p)
          fail_msg("round %d thread %d mode %d (b=0x%x c=0x%x): got d=0x%x p=%u, want d=0x%x p=%d", round, t, mode,
                   in[4 * t + 1], in[4 * t + 2], gd, gp, d, p);
      }
    }
  }
}

/* Immediate b/c operands and the forms nvcc emits for a warp reduction. */
static const char SHFL_IMM_PTX[] = WVT_HDR
    ".visible .entry shimm(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<4>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %laneid;\n"
    "mov.u32 %r2, %r1;\n"
    "shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1;\n add.s32 %r2, %r2, %r3;\n"
    "shfl.sync.bfly.b32 %r3, %r2, 8, 31, -1;\n add.s32 %r2, %r2, %r3;\n"
    "shfl.sync.bfly.b32 %r3, %r2, 4, 31, -1;\n add.s32 %r2, %r2, %r3;\n"
    "shfl.sync.bfly.b32 %r3, %r2, 2, 31, -1;\n add.s32 %r2, %r2, %r3;\n"
    "shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;\n add.s32 %r2, %r2, %r3;\n" /* sum of lanes = 496 */
    "shfl.sync.up.b32 %r4|%p1, %r1, 3, 0, -1;\n"                             /* lane-3, p = lane >= 3 */
    "shfl.sync.down.b32 %r5|%p2, %r1, 5, 0x81f, -1;\n"                       /* segment mask 8 */
    "shfl.sync.idx.b32 %r6, %r1, 7, 0x181f, -1;\n"                           /* width 8: lane & ~7 | 7 */
    "selp.u32 %r7, 1, 0, %p1;\n"
    "selp.u32 %r8, 1, 0, %p2;\n"
    "mul.wide.u32 %rd2, %r1, 32;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.v4.u32 [%rd3], {%r2, %r4, %r7, %r5};\n"
    "st.global.v2.u32 [%rd3+16], {%r8, %r6};\n"
    "ret;\n"
    "}\n";

static void test_shfl_immediates(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, SHFL_IMM_PTX, "shimm");
  static uint32_t out[32 * 8];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 32, 1, b);
  uint32_t lanes[32];
  for (int l = 0; l < 32; l++) lanes[l] = (uint32_t)l;
  for (int l = 0; l < 32; l++) {
    uint32_t *o = out + 8 * l;
    int p;
    assert_int_equal(o[0], 496);
    assert_int_equal(o[1], shfl_model(1, lanes, l, 3, 0, &p));
    assert_int_equal(o[1], l >= 3 ? (uint32_t)l - 3 : (uint32_t)l);
    assert_int_equal(o[2], l >= 3);
    assert_int_equal(o[3], shfl_model(2, lanes, l, 5, 0x81f, &p));
    assert_int_equal(o[4], (uint32_t)p);
    assert_int_equal(o[5], (uint32_t)((l & ~7) | 7));
  }
}

/* ---- vote.sync -------------------------------------------------------------------------------- */

static const char VOTE_PTX[] = WVT_HDR
    ".visible .entry vote(.param .u64 pin, .param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<24>; .reg .b64 %rd<8>; .reg .pred %p<12>;\n"
    "ld.param.u64 %rd1, [pin];\n"
    "ld.param.u64 %rd2, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd3, %r1, 4;\n"
    "add.s64 %rd4, %rd1, %rd3;\n"
    "ld.global.u32 %r2, [%rd4];\n"
    "setp.ne.u32 %p1, %r2, 0;\n"
    "vote.sync.all.pred %p2, %p1, -1;\n"
    "vote.sync.any.pred %p3, %p1, -1;\n"
    "vote.sync.uni.pred %p4, %p1, -1;\n"
    "vote.sync.ballot.b32 %r3, %p1, -1;\n"
    "vote.sync.ballot.b32 %r4, !%p1, -1;\n"
    "vote.sync.all.pred %p5, !%p1, -1;\n"
    "selp.u32 %r5, 1, 0, %p2;\n"
    "selp.u32 %r6, 1, 0, %p3;\n"
    "selp.u32 %r7, 1, 0, %p4;\n"
    "selp.u32 %r8, 1, 0, %p5;\n"
    /* two divergent groups, each voting over its own member mask */
    "mov.u32 %r9, %laneid;\n"
    "setp.lt.u32 %p6, %r9, 20;\n"
    "@%p6 bra LOW;\n"
    "vote.sync.ballot.b32 %r10, %p1, 0xfff00000;\n"
    "vote.sync.any.pred %p7, %p1, 0xfff00000;\n"
    "bra.uni JOIN;\n"
    "LOW:\n"
    "vote.sync.ballot.b32 %r10, %p1, 0x000fffff;\n"
    "vote.sync.any.pred %p7, %p1, 0x000fffff;\n"
    "JOIN:\n"
    "selp.u32 %r11, 1, 0, %p7;\n"
    "mul.wide.u32 %rd5, %r1, 32;\n"
    "add.s64 %rd6, %rd2, %rd5;\n"
    "st.global.v4.u32 [%rd6], {%r5, %r6, %r7, %r3};\n"
    "st.global.v4.u32 [%rd6+16], {%r4, %r8, %r10, %r11};\n"
    "ret;\n"
    "}\n";

static void test_vote(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, VOTE_PTX, "vote");
  static const uint32_t patterns[] = {0, 0xffffffffu, 1, 0x80000000u, 0xaaaaaaaau, 0x000fffffu, 0xfff00000u,
                                      0x00080000u, 0x7fffffffu, 0x12345678u};
  static uint32_t in[64], out[64 * 8];
  for (size_t pi = 0; pi < N(patterns); pi++) {
    uint32_t pat[2] = {patterns[pi], ~patterns[(pi + 3) % N(patterns)]}; /* warp 0, warp 1 */
    for (int t = 0; t < 64; t++) in[t] = (pat[t / 32] >> (t % 32)) & 1 ? (uint32_t)t + 1 : 0;
    wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, 64, 2, b);
    for (int t = 0; t < 64; t++) {
      uint32_t m = pat[t / 32], lane = (uint32_t)t % 32, *o = out + 8 * t;
      uint32_t grp = lane < 20 ? 0x000fffffu : 0xfff00000u;
      uint32_t want[8] = {m == 0xffffffffu, m != 0, m == 0 || m == 0xffffffffu, m, ~m, m == 0, m & grp, (m & grp) != 0};
      for (int i = 0; i < 8; i++)
        if (o[i] != want[i]) fail_msg("pattern 0x%08x thread %d output %d: got 0x%x, want 0x%x", m, t, i, o[i], want[i]);
    }
  }
}

/* ---- match.sync ------------------------------------------------------------------------------- */

static const char MATCH_PTX[] = WVT_HDR
    ".visible .entry match(.param .u64 pin, .param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<12>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pin];\n"
    "ld.param.u64 %rd2, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd3, %r1, 8;\n"
    "add.s64 %rd4, %rd1, %rd3;\n"
    "ld.global.u64 %rd5, [%rd4];\n"
    "cvt.u32.u64 %r2, %rd5;\n"
    "match.any.sync.b32 %r3, %r2, -1;\n"
    "match.all.sync.b32 %r4|%p1, %r2, -1;\n"
    "match.any.sync.b64 %r5, %rd5, -1;\n"
    "match.all.sync.b64 %r6|%p2, %rd5, -1;\n"
    "selp.u32 %r7, 1, 0, %p1;\n"
    "selp.u32 %r8, 1, 0, %p2;\n"
    "mul.wide.u32 %rd6, %r1, 32;\n"
    "add.s64 %rd7, %rd2, %rd6;\n"
    "st.global.v4.u32 [%rd7], {%r3, %r4, %r7, %r5};\n"
    "st.global.v2.u32 [%rd7+16], {%r6, %r8};\n"
    "ret;\n"
    "}\n";

static void test_match(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, MATCH_PTX, "match");
  static uint64_t in[32];
  static uint32_t out[32 * 8];
  for (int pat = 0; pat < 5; pat++) {
    for (int l = 0; l < 32; l++) {
      switch (pat) {
      case 0: in[l] = (uint64_t)(l % 3); break;                              /* three classes */
      case 1: in[l] = 0x1234567800000005ull; break;                          /* all equal */
      case 2: in[l] = ((uint64_t)(l % 2) << 32) | 9; break;                  /* equal low halves only */
      case 3: in[l] = (uint64_t)l; break;                                    /* all different */
      default: in[l] = l == 17 ? 1 : 0; break;                               /* one odd lane */
      }
    }
    wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, 32, 2, b);
    for (int l = 0; l < 32; l++) {
      uint32_t any32 = 0, any64 = 0;
      int all32 = 1, all64 = 1;
      for (int j = 0; j < 32; j++) {
        if ((uint32_t)in[j] == (uint32_t)in[l]) any32 |= 1u << j;
        if (in[j] == in[l]) any64 |= 1u << j;
        if ((uint32_t)in[j] != (uint32_t)in[0]) all32 = 0;
        if (in[j] != in[0]) all64 = 0;
      }
      uint32_t *o = out + 8 * l;
      uint32_t want[6] = {any32, all32 ? 0xffffffffu : 0, (uint32_t)all32, any64, all64 ? 0xffffffffu : 0, (uint32_t)all64};
      for (int i = 0; i < 6; i++)
        if (o[i] != want[i]) fail_msg("pattern %d lane %d output %d: got 0x%x, want 0x%x", pat, l, i, o[i], want[i]);
    }
  }
}

/* ---- redux.sync ------------------------------------------------------------------------------- */

static const char REDUX_PTX[] = WVT_HDR
    ".visible .entry redux(.param .u64 pin, .param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<24>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pin];\n"
    "ld.param.u64 %rd2, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd3, %r1, 4;\n"
    "add.s64 %rd4, %rd1, %rd3;\n"
    "ld.global.u32 %r2, [%rd4];\n"
    "redux.sync.add.u32 %r3, %r2, -1;\n"
    "redux.sync.add.s32 %r4, %r2, -1;\n"
    "redux.sync.min.u32 %r5, %r2, -1;\n"
    "redux.sync.min.s32 %r6, %r2, -1;\n"
    "redux.sync.max.u32 %r7, %r2, -1;\n"
    "redux.sync.max.s32 %r8, %r2, -1;\n"
    "redux.sync.and.b32 %r9, %r2, -1;\n"
    "redux.sync.or.b32 %r10, %r2, -1;\n"
    "redux.sync.xor.b32 %r11, %r2, -1;\n"
    /* lanes 0..9 alone, in divergent code, with their own member mask */
    "mov.u32 %r12, 0;\n"
    "mov.u32 %r13, %laneid;\n"
    "setp.ge.u32 %p1, %r13, 10;\n"
    "@%p1 bra SKIP;\n"
    "redux.sync.max.s32 %r12, %r2, 0x3ff;\n"
    "SKIP:\n"
    "mul.wide.u32 %rd5, %r1, 48;\n"
    "add.s64 %rd6, %rd2, %rd5;\n"
    "st.global.v4.u32 [%rd6], {%r3, %r4, %r5, %r6};\n"
    "st.global.v4.u32 [%rd6+16], {%r7, %r8, %r9, %r10};\n"
    "st.global.v2.u32 [%rd6+32], {%r11, %r12};\n"
    "ret;\n"
    "}\n";

static int32_t s32v(uint32_t x) { return (x & 0x80000000u) ? (int32_t)(x - 0x80000000u) - 0x7fffffff - 1 : (int32_t)x; }

static void test_redux(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, REDUX_PTX, "redux");
  static uint32_t in[64], out[64 * 12];
  uint64_t seed = 99;
  for (int round = 0; round < 6; round++) {
    for (int t = 0; t < 64; t++) {
      uint32_t r = (uint32_t)wvt_rand(&seed);
      in[t] = round == 0 ? (uint32_t)t * 0x11111111u : round == 1 ? (uint32_t)(t - 20) : round == 2 ? 0xffffffffu - (uint32_t)t
                                                                                                    : r;
    }
    wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, 64, 2, b);
    for (int w = 0; w < 2; w++) {
      const uint32_t *v = in + 32 * w;
      uint32_t add = 0, mnu = 0xffffffffu, mxu = 0, an = 0xffffffffu, o = 0, x = 0;
      int32_t mns = INT32_MAX, mxs = INT32_MIN, mx10 = INT32_MIN;
      for (int l = 0; l < 32; l++) {
        add += v[l];
        if (v[l] < mnu) mnu = v[l];
        if (v[l] > mxu) mxu = v[l];
        if (s32v(v[l]) < mns) mns = s32v(v[l]);
        if (s32v(v[l]) > mxs) mxs = s32v(v[l]);
        if (l < 10 && s32v(v[l]) > mx10) mx10 = s32v(v[l]);
        an &= v[l], o |= v[l], x ^= v[l];
      }
      for (int l = 0; l < 32; l++) {
        const uint32_t *g = out + 12 * (32 * w + l);
        uint32_t want[10] = {add, add, mnu, (uint32_t)mns, mxu, (uint32_t)mxs, an, o, x, l < 10 ? (uint32_t)mx10 : 0};
        for (int i = 0; i < 10; i++)
          if (g[i] != want[i]) fail_msg("round %d warp %d lane %d output %d: got 0x%x, want 0x%x", round, w, l, i, g[i], want[i]);
      }
    }
  }
}

/* ---- activemask, divergence and reconvergence ------------------------------------------------- */

static const char ACTIVE_PTX[] = WVT_HDR
    ".visible .entry active(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, %laneid;\n"
    "mul.wide.u32 %rd2, %r1, 16;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "activemask.b32 %r3;\n"                 /* before: full */
    "mov.u32 %r4, 0;\n"
    "mov.u32 %r6, 0;\n"
    "setp.ge.u32 %p1, %r2, 10;\n"
    "@%p1 bra ELSE;\n"
    "activemask.b32 %r4;\n"                 /* then-branch: lanes 0..9 */
    "and.b32 %r7, %r2, 1;\n"
    "setp.eq.u32 %p2, %r7, 0;\n"
    "@%p2 bra EVEN;\n"
    "activemask.b32 %r6;\n"                 /* nested: odd lanes of 0..9 */
    "EVEN:\n"
    "bra.uni JOIN;\n"
    "ELSE:\n"
    "activemask.b32 %r4;\n"                 /* else-branch: lanes 10..31 */
    "JOIN:\n"
    "activemask.b32 %r5;\n"                 /* after the if: full again */
    "st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};\n"
    "ret;\n"
    "}\n";

static void test_activemask_reconvergence(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, ACTIVE_PTX, "active");
  static uint32_t out[64 * 4];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 64, 1, b);
  for (uint32_t t = 0; t < 64; t++) {
    uint32_t lane = t % 32, *o = out + 4 * t;
    assert_int_equal(o[0], 0xffffffffu);
    assert_int_equal(o[1], lane < 10 ? 0x3ffu : ~0x3ffu);
    assert_int_equal(o[2], 0xffffffffu);
    assert_int_equal(o[3], lane < 10 && (lane & 1) ? 0x2aau : 0);
  }
  /* a partial warp: 40 threads, warp 1 has lanes 0..7 */
  static uint32_t out2[40 * 4];
  wvt_buf b2[1] = {{out2, sizeof out2}};
  wvt_run_ok(vm, k, 1, 40, 1, b2);
  for (uint32_t t = 32; t < 40; t++) {
    uint32_t lane = t % 32, *o = out2 + 4 * t;
    assert_int_equal(o[0], 0xffu);
    assert_int_equal(o[1], 0xffu); /* all 8 lanes are < 10 */
    assert_int_equal(o[2], 0xffu);
    assert_int_equal(o[3], lane & 1 ? 0xaau : 0);
  }
}

/* Lane l runs (l % 5) + 1 + (l / 16) iterations and records activemask at each. */
static const char LOOP_PTX[] = WVT_HDR
    ".visible .entry loop(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %laneid;\n"
    "rem.u32 %r2, %r1, 5;\n"
    "shr.u32 %r3, %r1, 4;\n"
    "add.s32 %r2, %r2, %r3;\n"
    "add.s32 %r2, %r2, 1;\n"                /* trip count 1..6 */
    "mov.u32 %r4, 0;\n"
    "mul.wide.u32 %rd2, %r1, 32;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "LOOP:\n"
    "activemask.b32 %r5;\n"
    "mul.wide.u32 %rd4, %r4, 4;\n"
    "add.s64 %rd5, %rd3, %rd4;\n"
    "st.global.u32 [%rd5], %r5;\n"
    "add.s32 %r4, %r4, 1;\n"
    "setp.lt.u32 %p1, %r4, %r2;\n"
    "@%p1 bra LOOP;\n"
    "activemask.b32 %r6;\n"
    "st.global.u32 [%rd3+28], %r6;\n"       /* after the loop */
    "ret;\n"
    "}\n";

static void test_loop_exit_activemask(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, LOOP_PTX, "loop");
  static uint32_t out[32 * 8];
  memset(out, 0xee, sizeof out);
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 32, 1, b);
  uint32_t trips[32];
  for (uint32_t l = 0; l < 32; l++) trips[l] = l % 5 + l / 16 + 1;
  for (uint32_t l = 0; l < 32; l++) {
    for (uint32_t i = 0; i < 7; i++) {
      uint32_t want = 0;
      for (uint32_t j = 0; j < 32; j++)
        if (trips[j] > i) want |= 1u << j;
      uint32_t got = out[8 * l + i];
      if (i < trips[l]) {
        if (got != want) fail_msg("lane %u iteration %u: activemask 0x%08x, want 0x%08x", l, i, got, want);
      } else if (got != 0xeeeeeeeeu) {
        fail_msg("lane %u wrote iteration %u it never ran", l, i);
      }
    }
    assert_int_equal(out[8 * l + 7], 0xffffffffu);
  }
}

/* ---- independent thread scheduling ------------------------------------------------------------ */

/* Lanes 0-15 and 16-31 take different paths; each path runs its own shfl.sync.idx with the full
 * member mask, reading a lane of the other path. */
static const char ITS_SHFL_PTX[] = WVT_HDR
    ".visible .entry itsshfl(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %laneid;\n"
    "setp.lt.u32 %p1, %r1, 16;\n"
    "@%p1 bra LOW;\n"
    "mad.lo.u32 %r2, %r1, 100, 1;\n"        /* high path sends 100*lane + 1 */
    "sub.s32 %r3, %r1, 16;\n"               /* reads lane - 16 */
    "shfl.sync.idx.b32 %r4, %r2, %r3, 31, -1;\n"
    "add.s32 %r5, %r4, 5000;\n"
    "bra.uni JOIN;\n"
    "LOW:\n"
    "mad.lo.u32 %r2, %r1, 100, 2;\n"        /* low path sends 100*lane + 2 */
    "add.s32 %r3, %r1, 16;\n"               /* reads lane + 16 */
    "shfl.sync.idx.b32 %r4, %r2, %r3, 31, -1;\n"
    "add.s32 %r5, %r4, 7000;\n"
    "JOIN:\n"
    "mul.wide.u32 %rd2, %r1, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r5;\n"
    "ret;\n"
    "}\n";

static void test_its_shfl_across_paths(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, ITS_SHFL_PTX, "itsshfl");
  static uint32_t out[32];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 32, 1, b);
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t want = l < 16 ? 100 * (l + 16) + 1 + 7000 : 100 * (l - 16) + 2 + 5000;
    assert_int_equal(out[l], want);
  }
  wv_stats s;
  wv_get_stats(vm, &s);
  assert_int_equal(s.collective_undefined, 0);
}

/* A CTA barrier reached by the two halves of every warp on different paths. Each thread writes its
 * shared word before the barrier (on its path) and reads another warp's word after it. */
static const char ITS_BAR_FMT[] = WVT_HDR
    ".visible .entry itsbar(.param .u64 pout)\n"
    "{\n"
    ".shared .align 4 .u32 s[64];\n"
    ".reg .b32 %%r<16>; .reg .b64 %%rd<8>; .reg .pred %%p<4>;\n"
    "ld.param.u64 %%rd1, [pout];\n"
    "mov.u32 %%r1, %%tid.x;\n"
    "mov.u32 %%r2, %%laneid;\n"
    "mov.u32 %%r3, s;\n"
    "shl.b32 %%r4, %%r1, 2;\n"
    "add.s32 %%r5, %%r3, %%r4;\n"
    "setp.lt.u32 %%p1, %%r2, 16;\n"
    "@%%p1 bra LOW;\n"
    "add.s32 %%r6, %%r1, 1000;\n"
    "st.shared.u32 [%%r5], %%r6;\n"
    "%s 0;\n"
    "mov.u32 %%r7, 1;\n"
    "bra.uni JOIN;\n"
    "LOW:\n"
    "add.s32 %%r6, %%r1, 2000;\n"
    "st.shared.u32 [%%r5], %%r6;\n"
    "%s 0;\n"
    "mov.u32 %%r7, 2;\n"
    "JOIN:\n"
    "add.s32 %%r8, %%r1, 33;\n"
    "and.b32 %%r8, %%r8, 63;\n"
    "shl.b32 %%r9, %%r8, 2;\n"
    "add.s32 %%r10, %%r3, %%r9;\n"
    "ld.shared.u32 %%r11, [%%r10];\n"
    "mul.wide.u32 %%rd2, %%r1, 8;\n"
    "add.s64 %%rd3, %%rd1, %%rd2;\n"
    "st.global.v2.u32 [%%rd3], {%%r11, %%r7};\n"
    "ret;\n"
    "}\n";

static void run_its_bar(wv_vm *vm, const char *bar) {
  char ptx[4096];
  snprintf(ptx, sizeof ptx, ITS_BAR_FMT, bar, bar);
  const wv_kernel *k = wvt_kernel(vm, ptx, "itsbar");
  static uint32_t out[64 * 2];
  memset(out, 0, sizeof out);
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 64, 1, b);
  for (uint32_t t = 0; t < 64; t++) {
    uint32_t o = (t + 33) % 64;
    uint32_t want = o % 32 < 16 ? o + 2000 : o + 1000;
    if (out[2 * t] != want) fail_msg("%s: thread %u read 0x%x, want 0x%x", bar, t, out[2 * t], want);
    assert_int_equal(out[2 * t + 1], t % 32 < 16 ? 2 : 1);
  }
}

static void test_its_barrier_divergent_halves(void **state) {
  wv_vm *vm = *state;
  run_its_bar(vm, "barrier.sync"); /* the non-.aligned barrier: divergent arrival is allowed */
  run_its_bar(vm, "bar.sync");
}

/* Partial last warp: 40 threads; vote over __activemask(). */
static const char PARTIAL_PTX[] = WVT_HDR
    ".visible .entry partial(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, %laneid;\n"
    "and.b32 %r3, %r2, 1;\n"
    "setp.eq.u32 %p1, %r3, 1;\n"
    "activemask.b32 %r4;\n"
    "vote.sync.ballot.b32 %r5, %p1, %r4;\n"
    "vote.sync.all.pred %p2, %p1, %r4;\n"
    "setp.lt.u32 %p3, %r2, 40;\n"
    "vote.sync.all.pred %p3, %p3, %r4;\n"
    "selp.u32 %r6, 1, 0, %p2;\n"
    "selp.u32 %r7, 1, 0, %p3;\n"
    "redux.sync.add.u32 %r8, %r1, %r4;\n"
    "mul.wide.u32 %rd2, %r1, 32;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r7};\n"
    "st.global.u32 [%rd3+16], %r8;\n"
    "ret;\n"
    "}\n";

static void test_partial_warp(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, PARTIAL_PTX, "partial");
  static uint32_t out[40 * 8];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 40, 1, b);
  for (uint32_t t = 0; t < 40; t++) {
    const uint32_t *o = out + 8 * t;
    int w1 = t >= 32;
    assert_int_equal(o[0], w1 ? 0xffu : 0xffffffffu);
    assert_int_equal(o[1], w1 ? 0xaau : 0xaaaaaaaau);
    assert_int_equal(o[2], 0);
    assert_int_equal(o[3], 1);
    assert_int_equal(o[4], w1 ? (32 + 39) * 8 / 2 : 31 * 32 / 2);
  }
}

/* Warp 1 spins on a shared flag that warp 0 sets after a delay loop. */
static const char SPIN_WARPS_PTX[] = WVT_HDR
    ".visible .entry spinw(.param .u64 pout)\n"
    "{\n"
    ".shared .align 4 .u32 flag;\n"
    ".shared .align 4 .u32 data;\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "setp.ne.u32 %p1, %r1, 0;\n"
    "@%p1 bra NOTZERO;\n"
    "st.volatile.shared.u32 [flag], 0;\n"
    "NOTZERO:\n"
    "bar.sync 0;\n"
    "setp.ge.u32 %p1, %r1, 32;\n"
    "@%p1 bra WAITER;\n"
    /* warp 0: a delay loop, then lane 0 publishes */
    "mov.u32 %r2, 0;\n"
    "DELAY:\n"
    "add.s32 %r2, %r2, 1;\n"
    "setp.lt.u32 %p2, %r2, 3000;\n"
    "@%p2 bra DELAY;\n"
    "setp.ne.u32 %p3, %r1, 0;\n"
    "@%p3 bra DONE;\n"
    "st.volatile.shared.u32 [data], 42;\n"
    "membar.cta;\n"
    "st.volatile.shared.u32 [flag], 1;\n"
    "bra.uni DONE;\n"
    "WAITER:\n"
    "ld.volatile.shared.u32 %r3, [flag];\n"
    "setp.eq.u32 %p2, %r3, 0;\n"
    "@%p2 bra WAITER;\n"
    "ld.volatile.shared.u32 %r4, [data];\n"
    "mul.wide.u32 %rd2, %r1, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r4;\n"
    "DONE:\n"
    "ret;\n"
    "}\n";

static void test_spin_wait_between_warps(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, SPIN_WARPS_PTX, "spinw");
  static uint32_t out[64];
  memset(out, 0, sizeof out);
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 64, 1, b);
  for (int t = 32; t < 64; t++) assert_int_equal(out[t], 42);
  for (int t = 0; t < 32; t++) assert_int_equal(out[t], 0);
}

/* Inside one warp: lanes 0-15 spin on a flag that lane 16 sets after a delay (Volta+ guarantees
 * forward progress for the diverged paths of a warp). */
static const char SPIN_LANES_PTX[] = WVT_HDR
    ".visible .entry spinl(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %laneid;\n"
    "setp.lt.u32 %p1, %r1, 16;\n"
    "@%p1 bra WAIT;\n"
    "mov.u32 %r2, 0;\n"
    "DELAY:\n"
    "add.s32 %r2, %r2, 1;\n"
    "setp.lt.u32 %p2, %r2, 2000;\n"
    "@%p2 bra DELAY;\n"
    "setp.ne.u32 %p3, %r1, 16;\n"
    "@%p3 bra DONE;\n"
    "st.volatile.global.u32 [%rd1+4], 77;\n"
    "st.volatile.global.u32 [%rd1], 1;\n"
    "bra.uni DONE;\n"
    "WAIT:\n"
    "ld.volatile.global.u32 %r3, [%rd1];\n"
    "setp.eq.u32 %p2, %r3, 0;\n"
    "@%p2 bra WAIT;\n"
    "ld.volatile.global.u32 %r4, [%rd1+4];\n"
    "mul.wide.u32 %rd2, %r1, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3+8], %r4;\n"
    "DONE:\n"
    "ret;\n"
    "}\n";

static void test_spin_wait_within_warp(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, SPIN_LANES_PTX, "spinl");
  static uint32_t buf[2 + 32];
  memset(buf, 0, sizeof buf);
  wvt_buf b[1] = {{buf, sizeof buf}};
  wvt_run_ok(vm, k, 1, 32, 1, b);
  assert_int_equal(buf[0], 1);
  for (int l = 0; l < 16; l++) assert_int_equal(buf[2 + l], 77);
  for (int l = 16; l < 32; l++) assert_int_equal(buf[2 + l], 0);
}

/* bar.warp.sync with the full mask, executed by two divergent paths: each lane stores before it
 * and reads a lane of the other path after it (PTX ISA "bar.warp.sync": memory ordering among
 * the participating threads). */
static const char WARPSYNC_PTX[] = WVT_HDR
    ".visible .entry wsync(.param .u64 pbuf)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pbuf];\n"
    "mov.u32 %r1, %laneid;\n"
    "mul.wide.u32 %rd2, %r1, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "add.s32 %r3, %r1, 16;\n"
    "and.b32 %r3, %r3, 31;\n"
    "mul.wide.u32 %rd4, %r3, 4;\n"
    "add.s64 %rd5, %rd1, %rd4;\n"
    "setp.lt.u32 %p1, %r1, 16;\n"
    "@%p1 bra A;\n"
    "mad.lo.u32 %r2, %r1, 3, 1;\n"
    "st.volatile.global.u32 [%rd3], %r2;\n"
    "bar.warp.sync -1;\n"
    "ld.volatile.global.u32 %r4, [%rd5];\n"
    "bra.uni J;\n"
    "A:\n"
    "mad.lo.u32 %r2, %r1, 3, 2;\n"
    "st.volatile.global.u32 [%rd3], %r2;\n"
    "bar.warp.sync -1;\n"
    "ld.volatile.global.u32 %r4, [%rd5];\n"
    "J:\n"
    "st.global.u32 [%rd3+128], %r4;\n"
    "ret;\n"
    "}\n";

static void test_bar_warp_sync(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, WARPSYNC_PTX, "wsync");
  static uint32_t buf[64];
  memset(buf, 0, sizeof buf);
  wvt_buf b[1] = {{buf, sizeof buf}};
  wvt_run_ok(vm, k, 1, 32, 1, b);
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t o = (l + 16) % 32;
    assert_int_equal(buf[l], 3 * l + (l < 16 ? 2 : 1));
    assert_int_equal(buf[32 + l], 3 * o + (o < 16 ? 2 : 1));
  }
}

/* Named barriers with a thread count, bar.arrive and bar.sync: warp 0 produces, warp 1 consumes,
 * through two barriers ("full" = 1, "empty" = 2), four rounds (PTX ISA "bar": b is the number of
 * threads, arrive does not wait). */
static const char PRODCONS_PTX[] = WVT_HDR
    ".visible .entry prodcons(.param .u64 pout)\n"
    "{\n"
    ".shared .align 4 .u32 box[32];\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, %laneid;\n"
    "mov.u32 %r3, box;\n"
    "shl.b32 %r4, %r2, 2;\n"
    "add.s32 %r5, %r3, %r4;\n"
    "mov.u32 %r6, 0;\n"
    "setp.ge.u32 %p1, %r1, 32;\n"
    "@%p1 bra CONSUMER;\n"
    "PROD:\n"
    "bar.sync 2, 64;\n"                    /* wait until the box is empty */
    "mad.lo.u32 %r7, %r6, 10, %r2;\n"
    "st.shared.u32 [%r5], %r7;\n"
    "bar.arrive 1, 64;\n"                  /* the box is full */
    "add.u32 %r6, %r6, 1;\n"
    "setp.lt.u32 %p2, %r6, 4;\n"
    "@%p2 bra PROD;\n"
    "bra.uni END;\n"
    "CONSUMER:\n"
    "bar.arrive 2, 64;\n"                  /* the box is empty */
    "bar.sync 1, 64;\n"                    /* wait until it is full */
    "ld.shared.u32 %r8, [%r5];\n"
    "mad.lo.u32 %r9, %r6, 32, %r2;\n"
    "mul.wide.u32 %rd2, %r9, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r8;\n"
    "add.u32 %r6, %r6, 1;\n"
    "setp.lt.u32 %p2, %r6, 4;\n"
    "@%p2 bra CONSUMER;\n"
    "END:\n"
    "ret;\n"
    "}\n";

static void test_named_barriers_producer_consumer(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, PRODCONS_PTX, "prodcons");
  static uint32_t out[4 * 32];
  memset(out, 0xee, sizeof out);
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 64, 1, b);
  for (uint32_t i = 0; i < 4; i++)
    for (uint32_t l = 0; l < 32; l++)
      if (out[32 * i + l] != i * 10 + l) fail_msg("round %u lane %u read %u, want %u", i, l, out[32 * i + l], i * 10 + l);
}

/* bar.red.popc / .and / .or over the whole CTA (PTX ISA "bar.red"). */
static const char BARRED_PTX[] = WVT_HDR
    ".visible .entry barred(.param .u64 pout, .param .u32 mod)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<6>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "ld.param.u32 %r9, [mod];\n"
    "mov.u32 %r1, %tid.x;\n"
    "rem.u32 %r2, %r1, %r9;\n"
    "setp.eq.u32 %p1, %r2, 0;\n"
    "bar.red.popc.u32 %r3, 0, %p1;\n"
    "bar.red.and.pred %p2, 1, %p1;\n"
    "bar.red.or.pred %p3, 2, %p1;\n"
    "bar.red.popc.u32 %r4, 3, !%p1;\n"
    "selp.u32 %r5, 1, 0, %p2;\n"
    "selp.u32 %r6, 1, 0, %p3;\n"
    "mul.wide.u32 %rd2, %r1, 16;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.v4.u32 [%rd3], {%r3, %r5, %r6, %r4};\n"
    "ret;\n"
    "}\n";

static void test_bar_red(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, BARRED_PTX, "barred");
  enum { T = 96 };
  static const uint32_t mods[] = {1, 3, 97};
  for (size_t i = 0; i < N(mods); i++) {
    static uint32_t out[T * 4];
    wv_devptr d;
    assert_int_equal(wv_malloc(vm, sizeof out, &d), WV_OK);
    uint32_t mod = mods[i];
    void *args[2] = {&d, &mod};
    wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(T, 1, 1), 0, args));
    assert_int_equal(wv_memcpy_dtoh(vm, out, d, sizeof out), WV_OK);
    assert_int_equal(wv_free(vm, d), WV_OK);
    uint32_t cnt = 0;
    for (uint32_t t = 0; t < T; t++) cnt += t % mod == 0;
    for (uint32_t t = 0; t < T; t++) {
      const uint32_t *o = out + 4 * t;
      assert_int_equal(o[0], cnt);
      assert_int_equal(o[1], cnt == T);
      assert_int_equal(o[2], cnt > 0);
      assert_int_equal(o[3], T - cnt);
    }
  }
}

/* A full-mask shfl.sync after some lanes exited: the ISA waits only for non-exited lanes. The
 * live lanes read each other. */
static const char SHFL_EXIT_PTX[] = WVT_HDR
    ".visible .entry shflexit(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %laneid;\n"
    "setp.ge.u32 %p1, %r1, 20;\n"
    "@%p1 exit;\n"
    "mul.lo.u32 %r2, %r1, 3;\n"
    "add.s32 %r3, %r1, 1;\n"
    "rem.u32 %r3, %r3, 20;\n"              /* read the next live lane */
    "shfl.sync.idx.b32 %r4, %r2, %r3, 31, -1;\n"
    "mul.wide.u32 %rd2, %r1, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r4;\n"
    "ret;\n"
    "}\n";

static void test_shfl_after_exit(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, SHFL_EXIT_PTX, "shflexit");
  static uint32_t out[32];
  memset(out, 0xee, sizeof out);
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 32, 1, b);
  for (uint32_t l = 0; l < 20; l++) assert_int_equal(out[l], 3 * ((l + 1) % 20));
  for (uint32_t l = 20; l < 32; l++) assert_int_equal(out[l], 0xeeeeeeeeu);
}

/* Divergence statistics: one branch that splits a warp and merges again. */
static void test_divergence_stats(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, ACTIVE_PTX, "active");
  static uint32_t out[32 * 4];
  wvt_buf b[1] = {{out, sizeof out}};
  wv_stats_reset(vm);
  wvt_run_ok(vm, k, 1, 32, 1, b);
  wv_stats s;
  wv_get_stats(vm, &s);
  assert_int_equal(s.launches, 1);
  assert_int_equal(s.ctas, 1);
  /* the lane < 10 branch splits the warp, and the odd/even branch splits lanes 0..9 */
  assert_int_equal(s.divergent_branches, 2);
  assert_true(s.reconvergences >= 2);
  assert_true(s.thread_instructions > s.warp_instructions);
}

/* A divergent while loop whose lanes leave one turn after another (lane l runs l + 1 turns): the lanes still in it
 * run together (activemask at each lane's last turn: lanes l..31), each exit but the last lane's splits the warp
 * (31 divergent branches: the loop's back edge), and all meet once after it. The exits after the first find the
 * others waiting at the join (sched.c exit_loop); 32 of them in one warp, with time slices of 1024 instructions. */
static const char LEAVE_PTX[] = WVT_HDR
    ".visible .entry leave(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %laneid;\n"
    "mov.u32 %r2, 0;\n"
    "LOOP:\n"
    "activemask.b32 %r3;\n"
    "add.u32 %r2, %r2, 1;\n"
    "setp.le.u32 %p1, %r2, %r1;\n"
    "@%p1 bra LOOP;\n"
    "mov.u32 %r4, %ctaid.x;\n"
    "mad.lo.u32 %r5, %r4, 32, %r1;\n"
    "mul.wide.u32 %rd2, %r5, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r3;\n"
    "ret;\n"
    "}\n";

static void test_loop_exits(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, LEAVE_PTX, "leave");
  static uint32_t out[32 * 4];
  wvt_buf b[1] = {{out, sizeof out}};
  wv_stats_reset(vm);
  wvt_run_ok(vm, k, 4, 32, 1, b); /* (four CTAs: each warp's exits from the start) */
  for (uint32_t t = 0; t < 32 * 4; t++) assert_int_equal(out[t], 0xffffffffu << (t % 32));
  wv_stats s;
  wv_get_stats(vm, &s);
  assert_int_equal(s.divergent_branches, 4 * 31);
  assert_int_equal(s.reconvergences, 4);
}

/* elect.sync d|p, membermask (sm_90): the leader is the lowest member; p is true on it alone. */
static const char ELECT_PTX[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry elect(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<4>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r1, %laneid;\n"
    "elect.sync %r2|%p1, -1;\n"
    "selp.u32 %r3, 1, 0, %p1;\n"
    "setp.lt.u32 %p2, %r1, 20;\n"
    "@%p2 bra LOW;\n"
    "elect.sync %r4|%p3, 0xfff00000;\n"
    "bra.uni J;\n"
    "LOW:\n"
    "elect.sync %r4|%p3, 0x000fffff;\n"
    "J:\n"
    "selp.u32 %r5, 1, 0, %p3;\n"
    "mul.wide.u32 %rd2, %r1, 16;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "st.global.v4.u32 [%rd3], {%r2, %r3, %r4, %r5};\n"
    "ret;\n"
    "}\n";

static void test_elect(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, ELECT_PTX, "elect");
  static uint32_t out[32 * 4];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 32, 1, b);
  for (uint32_t l = 0; l < 32; l++) {
    const uint32_t *o = out + 4 * l;
    uint32_t leader = l < 20 ? 0 : 20;
    assert_int_equal(o[0], 0);
    assert_int_equal(o[1], l == 0);
    assert_int_equal(o[2], leader);
    assert_int_equal(o[3], l == leader);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_shfl_modes, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_shfl_immediates, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_vote, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_match, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_redux, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_elect, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_activemask_reconvergence, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_loop_exit_activemask, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_its_shfl_across_paths, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_its_barrier_divergent_halves, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_partial_warp, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_spin_wait_between_warps, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_spin_wait_within_warp, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_bar_warp_sync, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_named_barriers_producer_consumer, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_bar_red, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_shfl_after_exit, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_divergence_stats, warp_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_loop_exits, warp_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
