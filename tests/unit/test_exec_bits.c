/*
 * test_exec_bits.c — bit-field and byte instructions through the C API (PTX ISA §9.7.1/§9.7.8):
 * lop3, bfe.u32/.s32, bfi.b32/.b64, prmt (generic form incl. the sign-replicate selector bit 3,
 * and the f4e/b4e/rc8/ecl/ecr/rc16 modes), shf.l/.r with .clamp/.wrap, bmsk and szext (.clamp/.wrap), fns,
 * dp4a, dp2a, sad.
 *
 * Each C model below transcribes the ISA pseudocode (bit loops, byte tables written in the ISA's
 * own "d.b3 d.b2 d.b1 d.b0" order); expected values never come from warpvm.
 */
#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t bit(uint64_t v, unsigned i) { return (v >> i) & 1; }

/* ---- lop3 ------------------------------------------------------------------------------------- */

static unsigned g_lut;
static uint64_t m_lop3(uint64_t a, uint64_t b, uint64_t c) {
  uint32_t d = 0;
  for (unsigned i = 0; i < 32; i++) {
    unsigned idx = (unsigned)(bit(a, i) << 2 | bit(b, i) << 1 | bit(c, i));
    d |= (uint32_t)((g_lut >> idx) & 1) << i;
  }
  return d;
}

static void random_triples(uint64_t (*t)[3], size_t n, uint64_t seed) {
  static const uint64_t edge[] = {0, 0xffffffffu, 0xaaaaaaaau, 0x55555555u, 0xf0f0f0f0u, 0x0ff00ff0u, 0x80000001u};
  for (size_t i = 0; i < n; i++) {
    if (i < 7 * 7) {
      t[i][0] = edge[i % 7];
      t[i][1] = edge[(i / 7) % 7];
      t[i][2] = edge[(i * 3 + 1) % 7];
    } else {
      t[i][0] = wvt_rand(&seed);
      t[i][1] = wvt_rand(&seed);
      t[i][2] = wvt_rand(&seed);
    }
  }
}

static void test_lop3(void **state) {
  wv_vm *vm = *state;
  static uint64_t t[200][3];
  random_triples(t, N(t), 1);
  static const unsigned luts[] = {0x00, 0xff, 0x80, 0xfe, 0x96, 0xe8, 0xca, 0xf0, 0xcc, 0xaa, 0x1e, 0x6a, 0x01, 0x7f, 0x3c, 0xb4};
  for (size_t i = 0; i < N(luts); i++) {
    char snip[96];
    snprintf(snip, sizeof snip, "lop3.b32 %%d, %%a, %%b, %%c, 0x%x;", luts[i]);
    g_lut = luts[i];
    wvt_check_fn(vm, snip, 'd', (const uint64_t(*)[3])t, N(t), m_lop3);
  }
  /* spelled out: 0xF0 & 0xCC | 0xAA (the ISA's own example of building an immLut) = 0xEA */
  wvt_case cs[] = {{0xf0f0f0f0u, 0xccccccccu, 0xaaaaaaaau, (0xf0f0f0f0u & 0xccccccccu) | 0xaaaaaaaau}};
  wvt_check_ops(vm, "lop3.b32 %d, %a, %b, %c, 0xea;", 'd', cs, 1);
}

/* ---- bfe / bfi -------------------------------------------------------------------------------- */

/* PTX ISA "bfe" pseudocode, 32-bit types */
static uint64_t bfe32(uint64_t A, uint64_t B, uint64_t C, int sgn) {
  uint32_t a = (uint32_t)A, msb = 31, pos = (uint32_t)B & 0xff, len = (uint32_t)C & 0xff;
  uint32_t sbit;
  if (!sgn || len == 0) sbit = 0;
  else sbit = (uint32_t)bit(a, pos + len - 1 < msb ? pos + len - 1 : msb);
  uint32_t d = 0;
  for (uint32_t i = 0; i <= msb; i++) {
    uint32_t v = (i < len && pos + i <= msb) ? (uint32_t)bit(a, pos + i) : sbit;
    d |= v << i;
  }
  return d;
}
static uint64_t m_bfe_u32(uint64_t a, uint64_t b, uint64_t c) { return bfe32(a, b, c, 0); }
static uint64_t m_bfe_s32(uint64_t a, uint64_t b, uint64_t c) { return bfe32(a, b, c, 1); }

static void test_bfe(void **state) {
  wv_vm *vm = *state;
  static const uint64_t as[] = {0, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0xdeadbeefu, 0x12345678u, 0xa5a5a5a5u, 1};
  static const uint64_t pos[] = {0, 1, 4, 8, 15, 16, 24, 28, 30, 31, 32, 33, 40, 200, 255, 0x104 /* pos 4 */, 0xffffff00u /* 0 */};
  static const uint64_t lens[] = {0, 1, 2, 4, 7, 8, 16, 24, 31, 32, 33, 64, 255, 0x108 /* len 8 */, 0x100 /* len 0 */};
  for (size_t i = 0; i < N(lens); i++) {
    wvt_check_cross(vm, "bfe.u32 %d, %a, %b, %c;", 'd', as, N(as), pos, N(pos), lens[i], m_bfe_u32);
    wvt_check_cross(vm, "bfe.s32 %d, %a, %b, %c;", 'd', as, N(as), pos, N(pos), lens[i], m_bfe_s32);
  }
  /* spelled out */
  wvt_case cs[] = {
      {0xdeadbeefu, 8, 8, 0xffffffbeu},  /* field 0xbe, sign bit 1 */
      {0xdeadbeefu, 28, 8, 0xfffffffdu}, /* field 0xd, past msb: sign = a[31] = 1 */
      {0x0000f000u, 12, 4, 0xffffffffu}, /* field 0xf signed = -1 */
      {0x0000f000u, 12, 5, 0x0000000fu}, /* field 0x0f, sign bit (bit 16) 0 */
      {0x80000000u, 40, 4, 0xffffffffu}, /* pos past msb: all bits are a[31] */
      {0x80000000u, 40, 0, 0},           /* len 0: zero */
  };
  wvt_check_ops(vm, "bfe.s32 %d, %a, %b, %c;", 'd', cs, N(cs));
  wvt_case cu[] = {{0xdeadbeefu, 8, 8, 0xbe}, {0xdeadbeefu, 28, 8, 0xd}, {0xffffffffu, 40, 8, 0}};
  wvt_check_ops(vm, "bfe.u32 %d, %a, %b, %c;", 'd', cu, N(cu));
  /* immediate pos/len */
  wvt_case ci[] = {{0x12345678u, 0, 0, 0x45}};
  wvt_check_ops(vm, "bfe.u32 %d, %a, 12, 8;", 'd', ci, 1);
}

/* PTX ISA "bfi" pseudocode: f = b with a's low bits inserted at [pos, pos+len) */
static uint64_t bfi_n(uint64_t a, uint64_t b, uint32_t c, uint32_t e, unsigned msb) {
  uint32_t pos = c & 0xff, len = e & 0xff;
  uint64_t f = msb == 31 ? (b & 0xffffffffu) : b;
  for (uint32_t i = 0; i < len && pos + i <= msb; i++) f = (f & ~(1ull << (pos + i))) | (bit(a, i) << (pos + i));
  return f;
}
static uint32_t g_len;
static uint64_t m_bfi32(uint64_t a, uint64_t b, uint64_t c) { return bfi_n(a, b, (uint32_t)c, g_len, 31); }
static uint64_t m_bfi64(uint64_t a, uint64_t b, uint64_t c) { return bfi_n(a, b, (uint32_t)c, g_len, 63); }

static void test_bfi(void **state) {
  wv_vm *vm = *state;
  static const uint64_t as[] = {0, 0xffffffffu, 0x12345678u, 0xabcdu, 0xffffffffffffffffull, 0x8000000000000001ull};
  static const uint64_t bs[] = {0, 0xffffffffu, 0xdeadbeefu, 0xf0f0f0f0f0f0f0f0ull};
  static const uint32_t lens[] = {0, 1, 4, 8, 16, 31, 32, 33, 63, 64, 200, 0x104};
  static const uint32_t poss[] = {0, 1, 3, 8, 16, 28, 31, 32, 40, 63, 64, 255, 0x103};
  char snip[96];
  for (size_t i = 0; i < N(lens); i++)
    for (size_t j = 0; j < N(poss); j++) {
      g_len = lens[i];
      /* the length in a register: an immediate must be 0..255 (ptxas), a register may hold more */
      snprintf(snip, sizeof snip, "mov.u32 %%t0, %u;\n bfi.b32 %%d, %%a, %%b, %%c, %%t0;", lens[i]);
      wvt_check_cross(vm, snip, 'd', as, N(as), bs, N(bs), poss[j], m_bfi32);
      snprintf(snip, sizeof snip, "mov.u32 %%t0, %u;\n bfi.b64 %%D, %%A, %%B, %%c, %%t0;", lens[i]);
      wvt_check_cross(vm, snip, 'D', as, N(as), bs, N(bs), poss[j], m_bfi64);
    }
  /* spelled out, with an immediate length */
  wvt_case cs[] = {{0xab, 0x11111111u, 8, 0x1111ab11u}, {0xff, 0, 28, 0xf0000000u}, {0xff, 0x12345678u, 32, 0x12345678u}};
  wvt_check_ops(vm, "bfi.b32 %d, %a, %b, %c, 8;", 'd', cs, N(cs));
}

/* ---- prmt ------------------------------------------------------------------------------------- */

static uint32_t byte_of(uint64_t v, unsigned i) { return (uint32_t)(v >> (8 * i)) & 0xff; }

/* generic form: four selectors c[3:0], c[7:4], c[11:8], c[15:12]; bit 3 replicates the sign */
static uint64_t m_prmt(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t tmp = (b & 0xffffffffu) << 32 | (a & 0xffffffffu);
  uint32_t d = 0;
  for (unsigned i = 0; i < 4; i++) {
    uint32_t sel = (uint32_t)(c >> (4 * i)) & 0xf;
    uint32_t v = byte_of(tmp, sel & 7);
    if (sel & 8) v = (v & 0x80) ? 0xff : 0x00;
    d |= v << (8 * i);
  }
  return d;
}

/* The ISA's mode table, rows written as "d.b3 d.b2 d.b1 d.b0" for c[1:0] = 0..3. */
static const uint8_t MODE_TAB[6][4][4] = {
    /* f4e  */ {{3, 2, 1, 0}, {4, 3, 2, 1}, {5, 4, 3, 2}, {6, 5, 4, 3}},
    /* b4e  */ {{5, 6, 7, 0}, {6, 7, 0, 1}, {7, 0, 1, 2}, {0, 1, 2, 3}},
    /* rc8  */ {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
    /* ecl  */ {{3, 2, 1, 0}, {3, 2, 1, 1}, {3, 2, 2, 2}, {3, 3, 3, 3}},
    /* ecr  */ {{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 2, 1, 0}, {3, 2, 1, 0}},
    /* rc16 */ {{1, 0, 1, 0}, {3, 2, 3, 2}, {1, 0, 1, 0}, {3, 2, 3, 2}},
};
static unsigned g_mode;
static uint64_t m_prmt_mode(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t tmp = (b & 0xffffffffu) << 32 | (a & 0xffffffffu);
  const uint8_t *row = MODE_TAB[g_mode][c & 3];
  return (uint32_t)(byte_of(tmp, row[0]) << 24 | byte_of(tmp, row[1]) << 16 | byte_of(tmp, row[2]) << 8 | byte_of(tmp, row[3]));
}

static void test_prmt_generic(void **state) {
  wv_vm *vm = *state;
  static const uint64_t as[] = {0x03020100u, 0x83828180u, 0x7f80ff01u, 0xdeadbeefu};
  static const uint64_t bs[] = {0x07060504u, 0x87868584u, 0x00ff807fu};
  static const uint64_t sels[] = {0x3210, 0x7654, 0x0123, 0x7531, 0x4444, 0xba98, 0xfedc, 0x8888, 0xcdef, 0x9b1f,
                                  0xffff3210 /* upper half ignored */, 0x0000};
  for (size_t i = 0; i < N(sels); i++)
    wvt_check_cross(vm, "prmt.b32 %d, %a, %b, %c;", 'd', as, N(as), bs, N(bs), sels[i], m_prmt);
  /* spelled out: the CUB example, and sign replication */
  wvt_case cs[] = {
      {0x03020100u, 0x07060504u, 0x7531, 0x07050301u},
      {0x00800000u, 0, 0x000a, 0x000000ffu},           /* selector 0xa: sign of byte 2 (0x80) -> 0xff */
      {0x007f0000u, 0, 0x000a, 0x00000000u},           /* sign of 0x7f -> 0x00 */
      {0x00000080u, 0x80000000u, 0x8f08, 0xffff80ffu}, /* sign(b0), b0, sign(b7), sign(b0) */
  };
  wvt_check_ops(vm, "prmt.b32 %d, %a, %b, %c;", 'd', cs, N(cs));
  /* immediate selector */
  static const uint64_t zero[] = {0};
  wvt_check_cross(vm, "prmt.b32 %d, %a, %b, 0x5140;", 'd', as, N(as), zero, 1, 0x5140, m_prmt);
}

static void test_prmt_modes(void **state) {
  wv_vm *vm = *state;
  static const char *const modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  static const uint64_t as[] = {0x03020100u, 0xdeadbeefu, 0x80ff7f01u};
  static const uint64_t bs[] = {0x07060504u, 0x01234567u};
  static const uint64_t cs[] = {0, 1, 2, 3, 0xfffffffcu /* c[1:0] = 0 */, 0x7, 0x12345679u /* 1 */};
  for (unsigned m = 0; m < 6; m++)
    for (size_t k = 0; k < N(cs); k++) {
      char snip[64];
      snprintf(snip, sizeof snip, "prmt.b32.%s %%d, %%a, %%b, %%c;", modes[m]);
      g_mode = m;
      wvt_check_cross(vm, snip, 'd', as, N(as), bs, N(bs), cs[k], m_prmt_mode);
    }
  /* spelled out with a = bytes 3..0, b = bytes 7..4 */
  wvt_case f4e[] = {{0x03020100u, 0x07060504u, 1, 0x04030201u}};
  wvt_check_ops(vm, "prmt.b32.f4e %d, %a, %b, %c;", 'd', f4e, 1);
  wvt_case b4e[] = {{0x03020100u, 0x07060504u, 0, 0x05060700u}};
  wvt_check_ops(vm, "prmt.b32.b4e %d, %a, %b, %c;", 'd', b4e, 1);
  wvt_case ecr[] = {{0x03020100u, 0x07060504u, 2, 0x02020100u}};
  wvt_check_ops(vm, "prmt.b32.ecr %d, %a, %b, %c;", 'd', ecr, 1);
}

/* ---- shf -------------------------------------------------------------------------------------- */

/* funnel shift of the 64-bit {b:a}, in 64-bit arithmetic so that n = 0 and n = 32 are defined */
static uint64_t shf(uint64_t a, uint64_t b, uint64_t c, int left, int clamp) {
  uint32_t n = clamp ? ((uint32_t)c > 32 ? 32 : (uint32_t)c) : ((uint32_t)c & 0x1f);
  uint64_t v = (b & 0xffffffffu) << 32 | (a & 0xffffffffu);
  return left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
}
static uint64_t m_shf_l_clamp(uint64_t a, uint64_t b, uint64_t c) { return shf(a, b, c, 1, 1); }
static uint64_t m_shf_l_wrap(uint64_t a, uint64_t b, uint64_t c) { return shf(a, b, c, 1, 0); }
static uint64_t m_shf_r_clamp(uint64_t a, uint64_t b, uint64_t c) { return shf(a, b, c, 0, 1); }
static uint64_t m_shf_r_wrap(uint64_t a, uint64_t b, uint64_t c) { return shf(a, b, c, 0, 0); }

static void test_shf(void **state) {
  wv_vm *vm = *state;
  static const uint64_t as[] = {0x89abcdefu, 0xffffffffu, 0x00000001u, 0x80000000u};
  static const uint64_t bs[] = {0x01234567u, 0x80000000u, 0};
  static const uint32_t ns[] = {0, 1, 4, 8, 16, 31, 32, 33, 36, 63, 64, 100, 0x80000004u, 0xffffffffu};
  for (size_t i = 0; i < N(ns); i++) {
    wvt_check_cross(vm, "shf.l.clamp.b32 %d, %a, %b, %c;", 'd', as, N(as), bs, N(bs), ns[i], m_shf_l_clamp);
    wvt_check_cross(vm, "shf.l.wrap.b32 %d, %a, %b, %c;", 'd', as, N(as), bs, N(bs), ns[i], m_shf_l_wrap);
    wvt_check_cross(vm, "shf.r.clamp.b32 %d, %a, %b, %c;", 'd', as, N(as), bs, N(bs), ns[i], m_shf_r_clamp);
    wvt_check_cross(vm, "shf.r.wrap.b32 %d, %a, %b, %c;", 'd', as, N(as), bs, N(bs), ns[i], m_shf_r_wrap);
  }
  /* spelled out: {b:a} = 0x01234567_89abcdef */
  wvt_case cs[] = {{0x89abcdefu, 0x01234567u, 8, 0x23456789u},   /* .l by 8: high word */
                   {0x89abcdefu, 0x01234567u, 40, 0x89abcdefu},  /* .clamp: 40 -> 32, gives a */
                   {0x89abcdefu, 0x01234567u, 32, 0x89abcdefu}};
  wvt_check_ops(vm, "shf.l.clamp.b32 %d, %a, %b, %c;", 'd', cs, N(cs));
  wvt_case cw[] = {{0x89abcdefu, 0x01234567u, 40, 0x23456789u}}; /* .wrap: 40 & 31 = 8 */
  wvt_check_ops(vm, "shf.l.wrap.b32 %d, %a, %b, %c;", 'd', cw, N(cw));
  wvt_case cr[] = {{0x89abcdefu, 0x01234567u, 8, 0x6789abcdu}, {0x89abcdefu, 0x01234567u, 33, 0x01234567u}};
  wvt_check_ops(vm, "shf.r.clamp.b32 %d, %a, %b, %c;", 'd', cr, N(cr));
}

/* ---- bmsk / szext (PTX ISA 7.6, sm_70) -------------------------------------------------------------
 * Modelled as what the ISA text says they are, bit by bit, not by transcribing the pseudocode: bmsk sets
 * bits [start, start + width) that lie below 32, with start = a and width = b saturated at 32 (.clamp) or
 * taken mod 32 (.wrap); szext keeps the low N bits of a (N = b saturated at 32, or mod 32) and fills the
 * rest with 0 (.u32) or with bit N-1 (.s32); N = 0 gives 0. */

static uint64_t bmsk_model(uint64_t a, uint64_t b, int clamp) {
  uint32_t start = clamp ? (a > 32 ? 32 : (uint32_t)a) : (uint32_t)a % 32, width = clamp ? (b > 32 ? 32 : (uint32_t)b) : (uint32_t)b % 32;
  uint32_t d = 0;
  for (uint32_t i = start; i < 32 && i < start + width; i++) d |= 1u << i;
  return d;
}
static uint64_t m_bmsk_clamp(uint64_t a, uint64_t b, uint64_t c) { (void)c; return bmsk_model((uint32_t)a, (uint32_t)b, 1); }
static uint64_t m_bmsk_wrap(uint64_t a, uint64_t b, uint64_t c) { (void)c; return bmsk_model((uint32_t)a, (uint32_t)b, 0); }

static uint64_t szext_model(uint64_t a, uint64_t b, int clamp, int sgn) {
  uint32_t n = clamp ? ((uint32_t)b > 32 ? 32 : (uint32_t)b) : (uint32_t)b % 32, d = 0;
  for (uint32_t i = 0; i < 32; i++) d |= (uint32_t)(i < n ? bit(a, i) : (sgn && n ? bit(a, n - 1) : 0)) << i;
  return d;
}
static uint64_t m_szext_cu(uint64_t a, uint64_t b, uint64_t c) { (void)c; return szext_model(a, b, 1, 0); }
static uint64_t m_szext_cs(uint64_t a, uint64_t b, uint64_t c) { (void)c; return szext_model(a, b, 1, 1); }
static uint64_t m_szext_wu(uint64_t a, uint64_t b, uint64_t c) { (void)c; return szext_model(a, b, 0, 0); }
static uint64_t m_szext_ws(uint64_t a, uint64_t b, uint64_t c) { (void)c; return szext_model(a, b, 0, 1); }

static void test_bmsk_szext(void **state) {
  wv_vm *vm = *state;
  static const uint64_t pos[] = {0, 1, 4, 15, 16, 31, 32, 33, 36, 63, 64, 100, 0x80000001u, 0xffffffffu};
  wvt_check_cross(vm, "bmsk.clamp.b32 %d, %a, %b;", 'd', pos, N(pos), pos, N(pos), 0, m_bmsk_clamp);
  wvt_check_cross(vm, "bmsk.wrap.b32 %d, %a, %b;", 'd', pos, N(pos), pos, N(pos), 0, m_bmsk_wrap);
  /* spelled out: the ISA's example and the edges */
  wvt_case cw[] = {{1, 2, 0, 0x00000006u},   /* "bmsk.wrap.b32 rd, 1, 2; // Creates a bitmask of 0x00000006" */
                   {33, 2, 0, 0x00000006u},  /* a mod 32 */
                   {4, 32, 0, 0},            /* width 32 mod 32 = 0 */
                   {28, 8, 0, 0xf0000000u},  /* bits past 31 dropped */
                   {0, 31, 0, 0x7fffffffu}};
  wvt_check_ops(vm, "bmsk.wrap.b32 %d, %a, %b;", 'd', cw, N(cw));
  wvt_case cc[] = {{1, 2, 0, 0x00000006u}, {32, 5, 0, 0}, {33, 2, 0, 0}, {4, 32, 0, 0xfffffff0u}, {4, 100, 0, 0xfffffff0u},
                   {0, 0, 0, 0}, {31, 1, 0, 0x80000000u}};
  wvt_check_ops(vm, "bmsk.clamp.b32 %d, %a, %b;", 'd', cc, N(cc));
  wvt_check_ops(vm, "bmsk.clamp.b32 %d, 1, 2;", 'd', (wvt_case[]){{0, 0, 0, 6}}, 1); /* immediates */

  static const uint64_t vals[] = {0, 1, 0x7fu, 0x80u, 0x8000u, 0x12345678u, 0x87654321u, 0xffffffffu, 0x80000000u};
  wvt_check_cross(vm, "szext.clamp.u32 %d, %a, %b;", 'd', vals, N(vals), pos, N(pos), 0, m_szext_cu);
  wvt_check_cross(vm, "szext.clamp.s32 %d, %a, %b;", 'd', vals, N(vals), pos, N(pos), 0, m_szext_cs);
  wvt_check_cross(vm, "szext.wrap.u32 %d, %a, %b;", 'd', vals, N(vals), pos, N(pos), 0, m_szext_wu);
  wvt_check_cross(vm, "szext.wrap.s32 %d, %a, %b;", 'd', vals, N(vals), pos, N(pos), 0, m_szext_ws);
  wvt_case sz[] = {{0xffffffffu, 0, 0, 0},            /* "szext.wrap.u32 rd, 0xffffffff, 0; // Result is 0." */
                   {0x80u, 8, 0, 0xffffff80u},        /* 8-bit -128 */
                   {0x7fu, 8, 0, 0x7fu},
                   {0x12345678u, 32, 0, 0}};           /* .wrap: 32 mod 32 = 0 bits */
  wvt_check_ops(vm, "szext.wrap.s32 %d, %a, %b;", 'd', sz, N(sz));
  wvt_case szc[] = {{0x87654321u, 32, 0, 0x87654321u}, {0x87654321u, 99, 0, 0x87654321u}, {0x87654321u, 16, 0, 0x00004321u},
                    {0x0000c321u, 16, 0, 0xffffc321u}};
  wvt_check_ops(vm, "szext.clamp.s32 %d, %a, %b;", 'd', szc, N(szc));
  /* the 64-bit register image of .s32 is sign-extended, as every .s32 result */
  wvt_check_ops(vm, "szext.clamp.s32 %d, %a, %b; cvt.s64.s32 %D, %d;", 'D', (wvt_case[]){{0x80u, 8, 0, ~(uint64_t)0x7f}}, 1);
}

/* ---- fns -------------------------------------------------------------------------------------- */

static uint64_t m_fns(uint64_t mask, uint64_t base, uint64_t off) {
  int32_t offset = (int32_t)(uint32_t)off; /* two-complement values used here are all small */
  uint32_t d = 0xffffffffu;
  if (offset == 0) {
    if (bit(mask, (unsigned)base)) d = (uint32_t)base;
  } else {
    int pos = (int)base, inc = offset > 0 ? 1 : -1;
    int count = (offset > 0 ? offset : -offset) - 1;
    while (pos >= 0 && pos < 32) {
      if (bit(mask, (unsigned)pos)) {
        if (count == 0) { d = (uint32_t)pos; break; }
        count--;
      }
      pos += inc;
    }
  }
  return d;
}

static void test_fns(void **state) {
  wv_vm *vm = *state;
  /* the ISA's examples */
  wvt_case ex[] = {{0xaaaaaaaau, 3, 1, 3}, {0xaaaaaaaau, 3, 0xffffffffu, 3}, {0xaaaaaaaau, 2, 1, 3},
                   {0xaaaaaaaau, 2, 0xffffffffu, 1}};
  wvt_check_ops(vm, "fns.b32 %d, %a, %b, %c;", 'd', ex, N(ex));
  static const uint64_t masks[] = {0, 0xffffffffu, 0xaaaaaaaau, 0x80000001u, 0x00010000u, 0xdeadbeefu, 1, 0x80000000u};
  static const uint64_t bases[] = {0, 1, 2, 3, 15, 16, 17, 30, 31};
  static const int32_t offs[] = {0, 1, 2, 3, 5, 17, 31, 32, 33, -1, -2, -3, -17, -32, -33};
  for (size_t i = 0; i < N(offs); i++)
    wvt_check_cross(vm, "fns.b32 %d, %a, %b, %c;", 'd', masks, N(masks), bases, N(bases), (uint32_t)offs[i], m_fns);
}

/* ---- dp4a / dp2a / sad ------------------------------------------------------------------------ */

static int32_t sx8(uint32_t v) { v &= 0xff; return (v & 0x80) ? (int32_t)v - 256 : (int32_t)v; }
static int32_t sx16(uint32_t v) { v &= 0xffff; return (v & 0x8000) ? (int32_t)v - 65536 : (int32_t)v; }
static unsigned g_sa, g_sb, g_hi;
static uint64_t m_dp4a(uint64_t a, uint64_t b, uint64_t c) {
  uint32_t acc = (uint32_t)c;
  for (unsigned i = 0; i < 4; i++) {
    int64_t x = g_sa ? sx8((uint32_t)(a >> (8 * i))) : (int64_t)((a >> (8 * i)) & 0xff);
    int64_t y = g_sb ? sx8((uint32_t)(b >> (8 * i))) : (int64_t)((b >> (8 * i)) & 0xff);
    acc += (uint32_t)(uint64_t)(x * y);
  }
  return acc;
}
static uint64_t m_dp2a(uint64_t a, uint64_t b, uint64_t c) {
  uint32_t acc = (uint32_t)c;
  unsigned k = g_hi ? 2 : 0;
  for (unsigned i = 0; i < 2; i++) {
    int64_t x = g_sa ? sx16((uint32_t)(a >> (16 * i))) : (int64_t)((a >> (16 * i)) & 0xffff);
    int64_t y = g_sb ? sx8((uint32_t)(b >> (8 * (k + i)))) : (int64_t)((b >> (8 * (k + i))) & 0xff);
    acc += (uint32_t)(uint64_t)(x * y);
  }
  return acc;
}

static void test_dp4a_dp2a(void **state) {
  wv_vm *vm = *state;
  static const uint64_t vs[] = {0, 0x01020304u, 0xffffffffu, 0x80808080u, 0x7f7f7f7fu, 0x7f80ff01u, 0xdeadbeefu, 0x00ff00ffu};
  static const uint64_t accs[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu};
  static const char *const ty[] = {"u32", "s32"};
  char snip[96];
  for (unsigned sa = 0; sa < 2; sa++)
    for (unsigned sb = 0; sb < 2; sb++)
      for (size_t k = 0; k < N(accs); k++) {
        g_sa = sa;
        g_sb = sb;
        snprintf(snip, sizeof snip, "dp4a.%s.%s %%d, %%a, %%b, %%c;", ty[sa], ty[sb]);
        wvt_check_cross(vm, snip, 'd', vs, N(vs), vs, N(vs), accs[k], m_dp4a);
        for (g_hi = 0; g_hi < 2; g_hi++) {
          snprintf(snip, sizeof snip, "dp2a.%s.%s.%s %%d, %%a, %%b, %%c;", g_hi ? "hi" : "lo", ty[sa], ty[sb]);
          wvt_check_cross(vm, snip, 'd', vs, N(vs), vs, N(vs), accs[k], m_dp2a);
        }
      }
  /* spelled out: signed bytes (-1)*(-1)*4 + 10; unsigned 255*255*4 + 0 */
  wvt_case s[] = {{0xffffffffu, 0xffffffffu, 10, 14}};
  wvt_check_ops(vm, "dp4a.s32.s32 %d, %a, %b, %c;", 'd', s, 1);
  wvt_case u[] = {{0xffffffffu, 0xffffffffu, 0, 4u * 255 * 255}};
  wvt_check_ops(vm, "dp4a.u32.u32 %d, %a, %b, %c;", 'd', u, 1);
  /* dp2a.hi.s32.u32: a halves (-1, 2) with b bytes 2,3 (3, 4): -3 + 8 = 5 */
  wvt_case h[] = {{0x0002ffffu, 0x04030201u, 0, 5}};
  wvt_check_ops(vm, "dp2a.hi.s32.u32 %d, %a, %b, %c;", 'd', h, 1);
}

static uint64_t m_sad_u32(uint64_t a, uint64_t b, uint64_t c) {
  uint32_t x = (uint32_t)a, y = (uint32_t)b;
  return (uint32_t)((uint32_t)c + (x < y ? y - x : x - y));
}
static uint64_t m_sad_s32(uint64_t a, uint64_t b, uint64_t c) {
  int64_t x = (int32_t)(uint32_t)a, y = (int32_t)(uint32_t)b;
  return (uint32_t)((uint32_t)c + (uint32_t)(uint64_t)(x < y ? y - x : x - y));
}
static uint64_t m_sad_u64(uint64_t a, uint64_t b, uint64_t c) { return c + (a < b ? b - a : a - b); }
static uint64_t m_sad_s16(uint64_t a, uint64_t b, uint64_t c) {
  int32_t x = sx16((uint32_t)a), y = sx16((uint32_t)b);
  return (uint16_t)((uint32_t)c + (uint32_t)(x < y ? y - x : x - y));
}

static void test_sad(void **state) {
  wv_vm *vm = *state;
  static const uint64_t v32[] = {0, 1, 5, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0xfffffffbu, 0x12345678u};
  static const uint64_t v64[] = {0, 1, 0xffffffffffffffffull, 0x8000000000000000ull, 0x123456789ull};
  static const uint64_t v16[] = {0, 1, 0x7fff, 0x8000, 0xffff, 0xfffb, 0x1234};
  wvt_check_cross(vm, "sad.u32 %d, %a, %b, %c;", 'd', v32, N(v32), v32, N(v32), 7, m_sad_u32);
  wvt_check_cross(vm, "sad.s32 %d, %a, %b, %c;", 'd', v32, N(v32), v32, N(v32), 0xfffffff0u, m_sad_s32);
  wvt_check_cross(vm, "sad.u64 %D, %A, %B, %C;", 'D', v64, N(v64), v64, N(v64), 3, m_sad_u64);
  wvt_check_cross(vm, "sad.s16 %hd, %ha, %hb, %hc;", 'h', v16, N(v16), v16, N(v16), 2, m_sad_s16);
  /* spelled out: |-5 - 5| + 1 = 11 signed, |0xfffffffb - 5| + 1 unsigned */
  wvt_case s[] = {{0xfffffffbu, 5, 1, 11}};
  wvt_check_ops(vm, "sad.s32 %d, %a, %b, %c;", 'd', s, 1);
  wvt_case u[] = {{0xfffffffbu, 5, 1, 0xfffffff7u}};
  wvt_check_ops(vm, "sad.u32 %d, %a, %b, %c;", 'd', u, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_lop3, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_bfe, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_bfi, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_prmt_generic, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_prmt_modes, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_shf, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_bmsk_szext, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_fns, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_dp4a_dp2a, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_sad, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
