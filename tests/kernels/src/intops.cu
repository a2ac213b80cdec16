// intops.cu — integer edge cases, mostly through inline PTX so the instruction (not C's undefined
// behaviour) decides: division by zero, INT_MIN / -1, shifts >= the width, carries, byte permutes,
// funnel shifts, bit-field extract/insert, dot products, saturation.
// Inputs: thread t < 1024 takes a = S[t >> 5], b = S[t & 31] from a table of edge values (every pair),
// later threads take random a and b. c is always random (for the field/shift operands it is reduced to
// 0x1f1f on odd threads so in-range positions are covered too). Run with grid 5, block 256 and
// rnd = 4 * 1280 random words: a_r = rnd[t], b_r = rnd[1280 + t], c = rnd[2560 + t].
// Each kernel writes K words per thread: out[t * K + k]; the k list is above each kernel.
typedef unsigned long long ull;
typedef long long ll;

__constant__ unsigned S32[32] = {0u,          1u,          2u,          3u,          5u,          7u,
                                 0x1fu,       0x20u,       0x21u,       0x3fu,       0x40u,       0x7fu,
                                 0x80u,       0xffu,       0x100u,      0x7fffu,     0x8000u,     0xffffu,
                                 0x10000u,    0x12345678u, 0x7ffffffeu, 0x7fffffffu, 0x80000000u, 0x80000001u,
                                 0xfffffffeu, 0xffffffffu, 0xfffffff0u, 0xdeadbeefu, 0x55555555u, 0xaaaaaaaau,
                                 0x0f0f0f0fu, 0xcafebabeu};
__constant__ ull S64[32] = {0ull,
                            1ull,
                            2ull,
                            3ull,
                            31ull,
                            32ull,
                            33ull,
                            63ull,
                            64ull,
                            65ull,
                            0x7fffffffull,
                            0x80000000ull,
                            0xffffffffull,
                            0x100000000ull,
                            0x100000001ull,
                            0x123456789abcdef0ull,
                            0x7ffffffffffffffeull,
                            0x7fffffffffffffffull,
                            0x8000000000000000ull,
                            0x8000000000000001ull,
                            0xfffffffffffffffeull,
                            0xffffffffffffffffull,
                            0xffffffff00000000ull,
                            0xffffffff80000000ull,
                            0xfffffffffffffff0ull,
                            0xdeadbeefcafebabeull,
                            0x5555555555555555ull,
                            0xaaaaaaaaaaaaaaaaull,
                            0x00000000ffff0000ull,
                            0x0000000100000000ull - 3,
                            0xffffffffffff0000ull,
                            10000000000ull};

struct In {
  unsigned t, a, b, c, cf;
};
static __device__ __forceinline__ In load(const unsigned *rnd) {
  In v;
  unsigned n = gridDim.x * blockDim.x;
  v.t = blockIdx.x * blockDim.x + threadIdx.x;
  v.c = rnd[2 * n + v.t];
  if (v.t < 1024) {
    v.a = S32[v.t >> 5];
    v.b = S32[v.t & 31];
  } else {
    v.a = rnd[v.t];
    v.b = rnd[n + v.t];
  }
  v.cf = (v.t & 1) ? (v.c & 0x1f1fu) : v.c;
  return v;
}

#define ASM2(op, r, a, b) asm(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b))
#define ASM3(op, r, a, b, c) asm(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c))
#define ASM1(op, r, a) asm(op " %0, %1;" : "=r"(r) : "r"(a))

// K = 28: 0 __mulhi 1 __umulhi 2,3 mul.wide.s32 lo,hi 4,5 mul.wide.u32 lo,hi 6 div.s32 7 rem.s32 8 div.u32
// 9 rem.u32 10 shl.b32 a,b 11 shr.u32 a,b 12 shr.s32 a,b 13 mad.lo.s32 a,b,c 14 mad.hi.u32 15 mad.hi.s32
// 16 __mul24 17 __umul24 18 mul24.hi.s32 19 mad24.lo.u32 a,b,c 20,21,22 add.cc / addc.cc / addc (lo, hi, carry)
// 23,24,25 sub.cc / subc.cc / subc 26,27 mad.lo.cc.u32 a,b,c then madc.hi.u32 a,b,0
extern "C" __global__ void int_arith32(const unsigned *rnd, unsigned *out) {
  In v = load(rnd);
  unsigned a = v.a, b = v.b, c = v.c, r;
  unsigned *o = out + v.t * 28;
  o[0] = (unsigned)__mulhi((int)a, (int)b);
  o[1] = __umulhi(a, b);
  ll w = (ll)(int)a * (ll)(int)b;
  o[2] = (unsigned)w;
  o[3] = (unsigned)((ull)w >> 32);
  ull uw = (ull)a * b;
  o[4] = (unsigned)uw;
  o[5] = (unsigned)(uw >> 32);
  ASM2("div.s32", r, a, b); o[6] = r;
  ASM2("rem.s32", r, a, b); o[7] = r;
  ASM2("div.u32", r, a, b); o[8] = r;
  ASM2("rem.u32", r, a, b); o[9] = r;
  ASM2("shl.b32", r, a, b); o[10] = r;
  ASM2("shr.u32", r, a, b); o[11] = r;
  ASM2("shr.s32", r, a, b); o[12] = r;
  ASM3("mad.lo.s32", r, a, b, c); o[13] = r;
  ASM3("mad.hi.u32", r, a, b, c); o[14] = r;
  ASM3("mad.hi.s32", r, a, b, c); o[15] = r;
  o[16] = (unsigned)__mul24((int)a, (int)b);
  o[17] = __umul24(a, b);
  ASM2("mul24.hi.s32", r, a, b); o[18] = r;
  ASM3("mad24.lo.u32", r, a, b, c); o[19] = r;
  unsigned lo, hi, cy;
  asm("add.cc.u32 %0, %3, %4;\n\taddc.cc.u32 %1, %5, %4;\n\taddc.u32 %2, 0, 0;"
      : "=r"(lo), "=r"(hi), "=r"(cy) : "r"(a), "r"(b), "r"(c));
  o[20] = lo; o[21] = hi; o[22] = cy;
  asm("sub.cc.u32 %0, %3, %4;\n\tsubc.cc.u32 %1, %5, %3;\n\tsubc.u32 %2, 0, 0;"
      : "=r"(lo), "=r"(hi), "=r"(cy) : "r"(a), "r"(b), "r"(c));
  o[23] = lo; o[24] = hi; o[25] = cy;
  asm("mad.lo.cc.u32 %0, %2, %3, %4;\n\tmadc.hi.u32 %1, %2, %3, 0;" : "=r"(lo), "=r"(hi) : "r"(a), "r"(b), "r"(c));
  o[26] = lo; o[27] = hi;
}

#define ASM64(op, r, a, b) asm(op " %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b))
// K = 25 (64-bit results as lo, hi): 0,1 div.s64 2,3 rem.s64 4,5 div.u64 6,7 rem.u64 8,9 __mul64hi
// 10,11 __umul64hi 12,13 mul.lo.u64 14,15 shl.b64 A, (u32)B 16,17 shr.u64 18,19 shr.s64
// 20,21 add.cc.u64 A + B; 22,23 addc.cc.u64 C + B + carry; 24 addc.u32 0 + 0 + carry
// A = S64[t >> 5], B = S64[t & 31] for t < 1024, else random (hi, lo) pairs.
extern "C" __global__ void int_arith64(const unsigned *rnd, unsigned *out) {
  unsigned n = gridDim.x * blockDim.x;
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  ull A, B, C = ((ull)rnd[2 * n + t] << 32) | rnd[3 * n + t], r;
  if (t < 1024) {
    A = S64[t >> 5];
    B = S64[t & 31];
  } else {
    A = ((ull)rnd[t] << 32) | rnd[3 * n + t];
    B = ((ull)rnd[n + t] << 32) | rnd[2 * n + t];
  }
  unsigned *o = out + t * 25;
#define PUT64(k, x) (o[k] = (unsigned)(x), o[(k) + 1] = (unsigned)((x) >> 32))
  ASM64("div.s64", r, A, B); PUT64(0, r);
  ASM64("rem.s64", r, A, B); PUT64(2, r);
  ASM64("div.u64", r, A, B); PUT64(4, r);
  ASM64("rem.u64", r, A, B); PUT64(6, r);
  r = (ull)__mul64hi((ll)A, (ll)B); PUT64(8, r);
  r = __umul64hi(A, B); PUT64(10, r);
  r = A * B; PUT64(12, r);
  unsigned sh = (unsigned)B;
  asm("shl.b64 %0, %1, %2;" : "=l"(r) : "l"(A), "r"(sh)); PUT64(14, r);
  asm("shr.u64 %0, %1, %2;" : "=l"(r) : "l"(A), "r"(sh)); PUT64(16, r);
  asm("shr.s64 %0, %1, %2;" : "=l"(r) : "l"(A), "r"(sh)); PUT64(18, r);
  ull lo, hi;
  unsigned cy;
  asm("add.cc.u64 %0, %3, %4;\n\taddc.cc.u64 %1, %5, %4;\n\taddc.u32 %2, 0, 0;"
      : "=l"(lo), "=l"(hi), "=r"(cy) : "l"(A), "l"(B), "l"(C));
  PUT64(20, lo);
  PUT64(22, hi);
  o[24] = cy;
#undef PUT64
}

// K = 32: 0 __popc 1 __clz 2 __brev 3 __ffs 4 __popcll(A) 5 __clzll 6 __ffsll 7,8 __brevll (A = a:b)
// 9 __byte_perm(a,b,c) 10..15 prmt.b32.f4e/b4e/rc8/ecl/ecr/rc16 a,b,c 16 __funnelshift_l(a,b,cf)
// 17 __funnelshift_lc 18 __funnelshift_r 19 __funnelshift_rc 20 bfe.u32 a,cf,cf>>8 21 bfe.s32
// 22,23 bfe.u64 A,cf,cf>>8 24,25 bfe.s64 26 bfi.b32 a,b,cf,cf>>8 27 bfind.u32 a 28 bfind.s32 a
// 29 bfind.shiftamt.u32 a 30 __sad(a,b,c) 31 __usad(a,b,c)
extern "C" __global__ void int_bits(const unsigned *rnd, unsigned *out) {
  In v = load(rnd);
  unsigned a = v.a, b = v.b, c = v.c, cf = v.cf, r, cf8 = cf >> 8;
  ull A = ((ull)a << 32) | b, R;
  unsigned *o = out + v.t * 32;
  o[0] = __popc(a);
  o[1] = __clz((int)a);
  o[2] = __brev(a);
  o[3] = __ffs((int)a);
  o[4] = __popcll(A);
  o[5] = __clzll((ll)A);
  o[6] = __ffsll((ll)A);
  R = __brevll(A);
  o[7] = (unsigned)R;
  o[8] = (unsigned)(R >> 32);
  o[9] = __byte_perm(a, b, c);
  ASM3("prmt.b32.f4e", r, a, b, c); o[10] = r;
  ASM3("prmt.b32.b4e", r, a, b, c); o[11] = r;
  ASM3("prmt.b32.rc8", r, a, b, c); o[12] = r;
  ASM3("prmt.b32.ecl", r, a, b, c); o[13] = r;
  ASM3("prmt.b32.ecr", r, a, b, c); o[14] = r;
  ASM3("prmt.b32.rc16", r, a, b, c); o[15] = r;
  o[16] = __funnelshift_l(a, b, cf);
  o[17] = __funnelshift_lc(a, b, cf);
  o[18] = __funnelshift_r(a, b, cf);
  o[19] = __funnelshift_rc(a, b, cf);
  ASM3("bfe.u32", r, a, cf, cf8); o[20] = r;
  ASM3("bfe.s32", r, a, cf, cf8); o[21] = r;
  asm("bfe.u64 %0, %1, %2, %3;" : "=l"(R) : "l"(A), "r"(cf), "r"(cf8));
  o[22] = (unsigned)R; o[23] = (unsigned)(R >> 32);
  asm("bfe.s64 %0, %1, %2, %3;" : "=l"(R) : "l"(A), "r"(cf), "r"(cf8));
  o[24] = (unsigned)R; o[25] = (unsigned)(R >> 32);
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(cf), "r"(cf8)); o[26] = r;
  ASM1("bfind.u32", r, a); o[27] = r;
  ASM1("bfind.s32", r, a); o[28] = r;
  ASM1("bfind.shiftamt.u32", r, a); o[29] = r;
  o[30] = __sad((int)a, (int)b, c);
  o[31] = __usad(a, b, c);
}

// K = 31: 0 __dp4a(int) 1 __dp4a(unsigned) 2 dp4a.s32.u32 3 dp4a.u32.s32 4 __dp2a_lo(int) 5 __dp2a_hi(int)
// 6 __dp2a_lo(unsigned) 7 __dp2a_hi(unsigned) 8 __hadd 9 __rhadd 10 __uhadd 11 __urhadd 12 add.sat.s32
// 13 sub.sat.s32 14 min.s32 15 max.u32 16 abs.s32 17 neg.s32 18 cvt.sat.s8.s32 19 cvt.sat.u8.s32
// 20 cvt.sat.u16.s32 21 cvt.s32.s16 22 cvt.s32.s8 23 __vadd2 24 __vaddss4 25 __vsub4 26 __vabsdiffu4
// 27 __vmaxs2 28 __vcmpgtu4 29 __vsetgts2 30 __vavgu4
extern "C" __global__ void int_misc(const unsigned *rnd, unsigned *out) {
  In v = load(rnd);
  unsigned a = v.a, b = v.b, c = v.c, r;
  unsigned *o = out + v.t * 31;
  o[0] = (unsigned)__dp4a((int)a, (int)b, (int)c);
  o[1] = __dp4a(a, b, c);
  ASM3("dp4a.s32.u32", r, a, b, c); o[2] = r;
  ASM3("dp4a.u32.s32", r, a, b, c); o[3] = r;
  o[4] = (unsigned)__dp2a_lo((int)a, (int)b, (int)c);
  o[5] = (unsigned)__dp2a_hi((int)a, (int)b, (int)c);
  o[6] = __dp2a_lo(a, b, c);
  o[7] = __dp2a_hi(a, b, c);
  o[8] = (unsigned)__hadd((int)a, (int)b);
  o[9] = (unsigned)__rhadd((int)a, (int)b);
  o[10] = __uhadd(a, b);
  o[11] = __urhadd(a, b);
  ASM2("add.sat.s32", r, a, b); o[12] = r;
  ASM2("sub.sat.s32", r, a, b); o[13] = r;
  ASM2("min.s32", r, a, b); o[14] = r;
  ASM2("max.u32", r, a, b); o[15] = r;
  ASM1("abs.s32", r, a); o[16] = r;
  ASM1("neg.s32", r, a); o[17] = r;
  ASM1("cvt.sat.s8.s32", r, a); o[18] = r;
  ASM1("cvt.sat.u8.s32", r, a); o[19] = r;
  ASM1("cvt.sat.u16.s32", r, a); o[20] = r;
  ASM1("cvt.s32.s16", r, a); o[21] = r;
  ASM1("cvt.s32.s8", r, a); o[22] = r;
  o[23] = __vadd2(a, b);
  o[24] = __vaddss4(a, b);
  o[25] = __vsub4(a, b);
  o[26] = __vabsdiffu4(a, b);
  o[27] = __vmaxs2(a, b);
  o[28] = __vcmpgtu4(a, b);
  o[29] = __vsetgts2(a, b);
  o[30] = __vavgu4(a, b);
}
