/*
 * h_bits.c — bit-field and byte instructions: lop3, bfe, bfi, bmsk, szext, prmt (all modes), shf, fns,
 * dp4a, dp2a (PTX ISA §9.7.1.x integer, §9.7.8.x logic). Semantics follow the ISA pseudocode.
 */
#include "exec/handlers.h"

#define H(name) static int name(wv_exec *x, const wv_insn *in, uint32_t m)
#define SRC3                                                                             \
  uint64_t *D = WV_R(x, in->d[0]);                                                       \
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b), *C = WV_R(x, in->c)

/* lop3.b32 d, a, b, c, immLut: bit i of d = immLut[{a_i, b_i, c_i}] with a as the msb. */
H(h_lop3) {
  SRC3;
  uint32_t lut = (uint32_t)in->imm;
  WV_FOR_LANES(m, l, {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l], r = 0;
    if (lut & 0x01) r |= ~a & ~b & ~c;
    if (lut & 0x02) r |= ~a & ~b & c;
    if (lut & 0x04) r |= ~a & b & ~c;
    if (lut & 0x08) r |= ~a & b & c;
    if (lut & 0x10) r |= a & ~b & ~c;
    if (lut & 0x20) r |= a & ~b & c;
    if (lut & 0x40) r |= a & b & ~c;
    if (lut & 0x80) r |= a & b & c;
    D[l] = r;
  });
  return 0;
}

/* bfe: pos = b[7:0], len = c[7:0]; bits past msb read the sign bit (for .s) or 0 (PTX ISA "bfe").
 * The 64-bit forms do not follow the ISA pseudocode on hardware: an H200 returns 0 for bfe.u64 and
 * the sign of a replicated for bfe.s64 (0 when len is 0), whatever pos — as if pos were >= 64
 * (tests/kernels int.bits, 1280 cases). We do what the hardware does. */
H(h_bfe) {
  SRC3;
  int w = (int)wv_type_size(in->type) * 8, sgn = wv_type_is_signed(in->type);
  if (w == 64) {
    WV_FOR_LANES(m, l, { D[l] = (sgn && ((uint32_t)C[l] & 0xff) && (int64_t)A[l] < 0) ? ~(uint64_t)0 : 0; });
    return 0;
  }
  WV_FOR_LANES(m, l, {
    uint64_t a = w == 64 ? A[l] : (uint32_t)A[l];
    uint32_t pos = (uint32_t)B[l] & 0xff, len = (uint32_t)C[l] & 0xff;
    uint64_t sbit = 0;
    if (sgn && len) {
      uint32_t top = pos + len - 1 > (uint32_t)w - 1 ? (uint32_t)w - 1 : pos + len - 1;
      sbit = (a >> top) & 1;
    }
    uint64_t r = 0;
    for (int i = 0; i < w; i++) {
      uint64_t bit = ((uint32_t)i < len && pos + (uint32_t)i <= (uint32_t)w - 1) ? (a >> (pos + (uint32_t)i)) & 1 : sbit;
      r |= bit << i;
    }
    D[l] = w == 64 ? r : (sgn ? (uint64_t)(int64_t)(int32_t)(uint32_t)r : (uint32_t)r);
  });
  return 0;
}

/* bfi d, a, b, c, e: d = b with the low len bits of a inserted at pos (pos = c[7:0], len = e[7:0]). */
H(h_bfi) {
  SRC3;
  const uint64_t *E = WV_R(x, in->e);
  int w = (int)wv_type_size(in->type) * 8;
  WV_FOR_LANES(m, l, {
    uint64_t a = A[l], d = w == 64 ? B[l] : (uint32_t)B[l];
    uint32_t pos = (uint32_t)C[l] & 0xff, len = (uint32_t)E[l] & 0xff;
    for (uint32_t i = 0; i < len && pos + i <= (uint32_t)w - 1; i++)
      d = (d & ~((uint64_t)1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
    D[l] = d;
  });
  return 0;
}

/* bmsk.{clamp,wrap}.b32 d, a, b: a mask of b bits starting at bit a (PTX ISA 7.6, sm_70, "bmsk", the
 * pseudocode line by line): a1 = a & 31, b1 = b & 31; mask0 = ~0 << a1; mask1 = ~0 << (a1 + b1), or 0
 * when a1 + b1 >= 32 or (.clamp) a >= 32 (then mask0 = 0 too) or b >= 32, or ~0 when b1 == 0;
 * d = mask0 & ~mask1. So .clamp saturates a position or width of 32 and more, .wrap takes them mod 32. */
H(h_bmsk) {
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  uint64_t *D = WV_R(x, in->d[0]);
  int clamp = in->mode;
  WV_FOR_LANES(m, l, {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], a1 = a & 31, b1 = b & 31, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
    int overflow = sum >= 32;
    if (clamp && a >= 32) mask0 = 0, overflow = 1;
    if (clamp && b >= 32) overflow = 1;
    if (overflow) mask1 = 0;
    else if (b1 == 0) mask1 = ~0u;
    D[l] = mask0 & ~mask1;
  });
  return 0;
}

/* szext.{clamp,wrap}.{u32,s32} d, a, b: the low N = b bits of a, zero- or sign-extended (PTX ISA 7.6,
 * sm_70, "szext", its pseudocode): b1 = b & 31; .clamp with b >= 32 keeps a whole; N = 0 gives 0. */
H(h_szext) {
  const uint64_t *A = WV_R(x, in->a), *B = WV_R(x, in->b);
  uint64_t *D = WV_R(x, in->d[0]);
  int clamp = in->mode, sgn = in->type == WV_T_S32;
  WV_FOR_LANES(m, l, {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], b1 = b & 31;
    int too_large = clamp && b >= 32;
    uint32_t mask = too_large ? 0 : ~0u << b1;
    int sign = !(b1 == 0 || too_large || !sgn) && ((a >> ((b1 - 1) & 31)) & 1);
    uint32_t r = (a & ~mask) | (sign ? mask : 0);
    D[l] = sgn ? (uint64_t)(int64_t)(int32_t)r : r;
  });
  return 0;
}

/* prmt: bytes {b,a} = {b7..b4, b3..b0}; generic form uses four 4-bit selectors (bit 3 =
 * replicate the byte's sign), the modes use c[1:0] and a fixed table (PTX ISA "prmt"). */
static const uint8_t prmt_tab[6][4][4] = {
  /* f4e  */ {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
  /* b4e  */ {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
  /* rc8  */ {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
  /* ecl  */ {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
  /* ecr  */ {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
  /* rc16 */ {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
}; /* [mode][c&3][byte of d, 0 = lowest] */
H(h_prmt) {
  SRC3;
  int mode = in->mode; /* 0 = generic, 1.. = f4e b4e rc8 ecl ecr rc16 */
  WV_FOR_LANES(m, l, {
    uint64_t src = ((uint64_t)(uint32_t)B[l] << 32) | (uint32_t)A[l];
    uint32_t c = (uint32_t)C[l], r = 0;
    for (int i = 0; i < 4; i++) {
      uint32_t byte;
      if (!mode) {
        uint32_t sel = (c >> (4 * i)) & 0xf;
        byte = (uint32_t)(src >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
      } else {
        byte = (uint32_t)(src >> (8 * prmt_tab[mode - 1][c & 3][i])) & 0xff;
      }
      r |= byte << (8 * i);
    }
    D[l] = r;
  });
  return 0;
}

/* shf.{l,r}.{clamp,wrap}.b32 d, a, b, c: funnel shift of the 64-bit {b:a}. */
H(h_shf) {
  SRC3;
  int left = in->mode & 1, clamp = in->mode & 2;
  WV_FOR_LANES(m, l, {
    uint64_t v = ((uint64_t)(uint32_t)B[l] << 32) | (uint32_t)A[l];
    uint32_t n = (uint32_t)C[l];
    n = clamp ? (n > 32 ? 32 : n) : (n & 31);
    D[l] = left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
  });
  return 0;
}

/* fns.b32 d, mask, base, offset: the |offset|-th set bit from base, going up for offset > 0
 * and down for offset < 0; offset 0 tests the base bit itself; 0xffffffff if none. */
H(h_fns) {
  SRC3;
  WV_FOR_LANES(m, l, {
    uint32_t mask = (uint32_t)A[l], base = (uint32_t)B[l];
    int32_t off = (int32_t)C[l];
    uint32_t d = 0xffffffffu;
    if (off == 0) {
      if (base < 32 && (mask >> base & 1)) d = base;
    } else {
      int64_t pos = base, inc = off > 0 ? 1 : -1;
      int64_t count = (off > 0 ? (int64_t)off : -(int64_t)off) - 1;
      while (pos >= 0 && pos < 32) {
        if (mask >> pos & 1) {
          if (count == 0) { d = (uint32_t)pos; break; }
          count--;
        }
        pos += inc;
      }
    }
    D[l] = d;
  });
  return 0;
}

/* dp4a.atype.btype d, a, b, c: c + sum of the four byte products (signedness per operand). */
H(h_dp4a) {
  SRC3;
  int sa = in->mode & 1, sb = in->mode & 2;
  WV_FOR_LANES(m, l, {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], acc = (uint32_t)C[l];
    for (int i = 0; i < 4; i++) {
      int32_t x8 = sa ? (int8_t)(a >> (8 * i)) : (int32_t)((a >> (8 * i)) & 0xff);
      int32_t y8 = sb ? (int8_t)(b >> (8 * i)) : (int32_t)((b >> (8 * i)) & 0xff);
      acc += (uint32_t)(x8 * y8);
    }
    D[l] = (sa || sb) ? (uint64_t)(int64_t)(int32_t)acc : acc;
  });
  return 0;
}

/* dp2a.{lo,hi}.atype.btype d, a, b, c: c + a.h0*b.byte[k] + a.h1*b.byte[k+1], k = 0 (lo) or 2 (hi). */
H(h_dp2a) {
  SRC3;
  int sa = in->mode & 1, sb = in->mode & 2, k = (in->mode & 4) ? 2 : 0;
  WV_FOR_LANES(m, l, {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], acc = (uint32_t)C[l];
    for (int i = 0; i < 2; i++) {
      int32_t h = sa ? (int16_t)(a >> (16 * i)) : (int32_t)((a >> (16 * i)) & 0xffff);
      int32_t y8 = sb ? (int8_t)(b >> (8 * (k + i))) : (int32_t)((b >> (8 * (k + i))) & 0xff);
      acc += (uint32_t)(h * y8);
    }
    D[l] = (sa || sb) ? (uint64_t)(int64_t)(int32_t)acc : acc;
  });
  return 0;
}

/* vabsdiff4.dtype.atype.btype{.sat}{.add} d, a, b, c (PTX ISA "vop4", whole-register form):
 * per byte |a.b[i] - b.b[i]| with each operand's signedness; .add gives c + the four
 * differences, otherwise the bytes of d are the (saturated with .sat) differences. */
H(h_vabsdiff4) {
  SRC3;
  int sa = in->mode & 1, sb = in->mode & 2, add = in->mode & 4, sat = in->sat, sd = in->mode & 8;
  WV_FOR_LANES(m, l, {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], r = 0, sum = (uint32_t)C[l];
    for (int i = 0; i < 4; i++) {
      int32_t x8 = sa ? (int8_t)(a >> (8 * i)) : (int32_t)((a >> (8 * i)) & 0xff);
      int32_t y8 = sb ? (int8_t)(b >> (8 * i)) : (int32_t)((b >> (8 * i)) & 0xff);
      int32_t v = x8 > y8 ? x8 - y8 : y8 - x8;
      sum += (uint32_t)v;
      if (sat) v = sd ? (v > 127 ? 127 : v) : (v > 255 ? 255 : v);
      r |= ((uint32_t)v & 0xff) << (8 * i);
    }
    D[l] = add ? sum : r;
  });
  return 0;
}

wv_handler wv_h_bits(int op, wv_type t, const wv_insn *in) {
  unsigned sz = wv_type_size(t);
  (void)in;
  switch (op) {
  case WV_OP_LOP3: return sz == 4 ? h_lop3 : NULL;
  case WV_OP_BFE: return (sz == 4 || sz == 8) && t != WV_T_B32 && t != WV_T_B64 ? h_bfe : NULL;
  case WV_OP_BFI: return (sz == 4 || sz == 8) ? h_bfi : NULL;
  case WV_OP_PRMT: return sz == 4 ? h_prmt : NULL;
  case WV_OP_SHF: return sz == 4 ? h_shf : NULL;
  case WV_OP_FNS: return sz == 4 ? h_fns : NULL;
  case WV_OP_BMSK: return t == WV_T_B32 ? h_bmsk : NULL;
  case WV_OP_SZEXT: return t == WV_T_U32 || t == WV_T_S32 ? h_szext : NULL;
  case WV_OP_DP4A: return h_dp4a;
  case WV_OP_DP2A: return h_dp2a;
  case WV_OP_VABSDIFF4: return h_vabsdiff4;
  default: return NULL;
  }
}
