// fpconv.cu — conversions with every rounding mode, on inputs that sit on the edges: ties (0.5, 1.5, 2.5),
// the limits of int/uint/long long/unsigned long long, NaN, infinities, half and bfloat16 rounding
// boundaries and subnormals. Run each kernel with grid 4, block 256 (N = 1024 threads); thread t < 64
// (32 for fpconv_int) takes a table value, later threads random ones (odd: raw bits; even: reshaped to a
// magnitude near the integer limits or near 1). Results are bit patterns, out[t * K + k]; 64-bit results
// take two words, low then high; half and bfloat16 results are in the low 16 bits.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
typedef unsigned long long ull;

__constant__ unsigned CV32[64] = {
    0x00000000u, 0x80000000u, 0x3f000000u, 0xbf000000u, 0x3fc00000u, 0xbfc00000u, 0x40200000u, 0xc0200000u,
    0x3effffffu, 0x3f000001u, 0x3f800000u, 0xbf800000u, 0x40600000u, 0xc0600000u, 0x4affffffu, 0x4b000000u,
    0x4b800001u, 0x4effffffu, 0x4f000000u, 0xcf000000u, 0xcf000001u, 0x4f7fffffu, 0x4f800000u, 0x5f000000u,
    0x5effffffu, 0xdf000000u, 0xdf000001u, 0x5f800000u, 0x5f7fffffu, 0x7149f2cau, 0xf149f2cau, 0x7f800000u,
    0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fc00001u, 0x00000001u, 0x80000001u, 0x477fe000u,
    0x477fefffu, 0x477ff000u, 0x47800000u, 0x38800000u, 0x387fc000u, 0x33800000u, 0x33000000u, 0x33000001u,
    0x33c00000u, 0x3f801000u, 0x3f803000u, 0x3f808000u, 0x3f818000u, 0x3f808001u, 0x7f7f8000u, 0x7f7fffffu,
    0xff7fffffu, 0x3eaaaaabu, 0x40490fdbu, 0x42f6e979u, 0xc2f6e979u, 0x00800000u, 0x0f800000u, 0xc7800000u};

__constant__ unsigned I32S[32] = {0u,          1u,          2u,          3u,          0xffffffffu, 0x80000000u,
                                  0x7fffffffu, 0x00ffffffu, 0x01000000u, 0x01000001u, 0x01000002u, 0x01000003u,
                                  0x02000005u, 0x7fffffc0u, 0x7fffffbfu, 0x7fffff80u, 0xffffff01u, 0xff000001u,
                                  0x80000001u, 0xfeffffffu, 0x00000800u, 0x00000801u, 0x0000ffe0u, 0x0000fff0u,
                                  0x00010000u, 0x12345678u, 0xdeadbeefu, 0x0000fff8u, 0x00001001u, 0x00100001u,
                                  0xfffff801u, 0x80000080u};
__constant__ ull I64S[32] = {0ull,
                             1ull,
                             0xffffffffffffffffull,
                             0x8000000000000000ull,
                             0x7fffffffffffffffull,
                             0x0000000001000001ull,
                             0x0020000000000001ull,
                             0x0020000000000003ull,
                             0x001fffffffffffffull,
                             0x7ffffe8000000000ull,
                             0x7fffff8000000000ull,
                             0x7ffffffffffffc00ull,
                             0x7ffffffffffffbffull,
                             0xfffffffffffff800ull,
                             0xfffffe8000000000ull,
                             0x8000000000000001ull,
                             0x8000008000000000ull,
                             0x8000000000000400ull,
                             0x0000000080000000ull,
                             0x00000000ffffffffull,
                             0x0000000100000000ull,
                             0x123456789abcdef0ull,
                             0xdeadbeefcafebabeull,
                             0x0040000000000005ull,
                             0x0000010000000001ull,
                             0xffffffff00000000ull,
                             0x0000000000000800ull,
                             0x0000000000000801ull,
                             0x00000000ffffff80ull,
                             0x00000000ffffff7full,
                             0xfff0000000000001ull,
                             0x4000000000000001ull};

__constant__ ull CV64[32] = {
    0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x3ff8000000000000ull, 0xbff8000000000000ull,
    0x4004000000000000ull, 0x41dfffffffe00000ull, 0x41dfffffffc00000ull, 0x41e0000000000000ull,
    0xc1e0000000000000ull, 0xc1e0000000200000ull, 0xc1e0000000100000ull, 0x41efffffffe00000ull,
    0x41f0000000000000ull, 0x43e0000000000000ull, 0x43dfffffffffffffull, 0xc3e0000000000000ull,
    0x43f0000000000000ull, 0x43efffffffffffffull, 0x47efffffe0000000ull, 0x47efffffefffffffull,
    0x47effffff0000000ull, 0x36a0000000000000ull, 0x36a0000000000001ull, 0x3690000000000000ull,
    0x36b8000000000000ull, 0x3810000000000000ull, 0x380fffffffffffffull, 0x3ff0000010000000ull,
    0x3ff0000010000001ull, 0x3ff0000030000000ull, 0x40f0000000000000ull, 0x40effe0000000000ull};
__constant__ ull D64S[16] = {0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull,
                             0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                             0xfff8000000000000ull, 0x7ff8000000000001ull, 0x7ff0000000000001ull,
                             0x7fefffffffffffffull, 0xffefffffffffffffull, 0x3ff0000000000000ull,
                             0x3fd5555555555555ull, 0x400921fb54442d18ull, 0xc00921fb54442d18ull,
                             0x000fffffffffffffull};

#define B(x) __float_as_uint(x)
#define PUT64(k, x) (o[k] = (unsigned)(ull)(x), o[(k) + 1] = (unsigned)((ull)(x) >> 32))
#define H(x) ((unsigned)__half_as_ushort(x))
#define BF(x) ((unsigned)__bfloat16_as_ushort(x))

// K = 37: 0..3 __float2int_rn/rz/rd/ru 4..7 __float2uint_* 8..15 __float2ll_* 16..23 __float2ull_*
// 24..27 __float2half_rn/rz/rd/ru 28 __half2float(low 16 bits of x) 29 __half2float(high 16 bits)
// 30..33 __float2bfloat16_rn/rz/rd/ru 34 __bfloat162float(low 16 bits) 35 (int)x 36 cvt.rna.tf32.f32
extern "C" __global__ void fpconv_f32(const unsigned *rnd, unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = rnd[t];
  unsigned bits = t < 64 ? CV32[t] : (t & 1) ? r : (r & 0x807fffffu) | ((126u + (r >> 23) % 66u) << 23);
  float x = __uint_as_float(bits);
  unsigned *o = out + t * 37;
  o[0] = (unsigned)__float2int_rn(x);
  o[1] = (unsigned)__float2int_rz(x);
  o[2] = (unsigned)__float2int_rd(x);
  o[3] = (unsigned)__float2int_ru(x);
  o[4] = __float2uint_rn(x);
  o[5] = __float2uint_rz(x);
  o[6] = __float2uint_rd(x);
  o[7] = __float2uint_ru(x);
  PUT64(8, __float2ll_rn(x));
  PUT64(10, __float2ll_rz(x));
  PUT64(12, __float2ll_rd(x));
  PUT64(14, __float2ll_ru(x));
  PUT64(16, __float2ull_rn(x));
  PUT64(18, __float2ull_rz(x));
  PUT64(20, __float2ull_rd(x));
  PUT64(22, __float2ull_ru(x));
  o[24] = H(__float2half_rn(x));
  o[25] = H(__float2half_rz(x));
  o[26] = H(__float2half_rd(x));
  o[27] = H(__float2half_ru(x));
  o[28] = B(__half2float(__ushort_as_half((unsigned short)bits)));
  o[29] = B(__half2float(__ushort_as_half((unsigned short)(bits >> 16))));
  o[30] = BF(__float2bfloat16_rn(x));
  o[31] = BF(__float2bfloat16_rz(x));
  o[32] = BF(__float2bfloat16_rd(x));
  o[33] = BF(__float2bfloat16_ru(x));
  o[34] = B(__bfloat162float(__ushort_as_bfloat16((unsigned short)bits)));
  o[35] = (unsigned)(int)x;
  unsigned tf;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(tf) : "f"(x));
  o[36] = tf;
}

// K = 39: I = 32-bit input, L = 64-bit input. 0..3 __int2float_rn/rz/rd/ru(I) 4..7 __uint2float_*(I)
// 8..11 __ll2float_*(L) 12..15 __ull2float_*(L) 16..23 __ll2double_*(L) 24..31 __ull2double_*(L)
// 32,33 __int2double_rn(I) 34..37 __int2half_rn/rz/rd/ru(I) 38 __ll2half_rn(L)
extern "C" __global__ void fpconv_int(const unsigned *rnd, unsigned *out) {
  unsigned n = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned I;
  ull L;
  if (t < 32) {
    I = I32S[t];
    L = I64S[t];
  } else {
    unsigned r0 = rnd[t], r1 = rnd[n + t], r2 = rnd[2 * n + t];
    I = (t & 1) ? r0 : (int)r0 >> (r2 & 31);
    L = (((ull)r1 << 32) | r0);
    if (!(t & 1)) L = (ull)((long long)L >> (r2 & 63));
  }
  unsigned *o = out + t * 39;
  o[0] = B(__int2float_rn((int)I));
  o[1] = B(__int2float_rz((int)I));
  o[2] = B(__int2float_rd((int)I));
  o[3] = B(__int2float_ru((int)I));
  o[4] = B(__uint2float_rn(I));
  o[5] = B(__uint2float_rz(I));
  o[6] = B(__uint2float_rd(I));
  o[7] = B(__uint2float_ru(I));
  o[8] = B(__ll2float_rn((long long)L));
  o[9] = B(__ll2float_rz((long long)L));
  o[10] = B(__ll2float_rd((long long)L));
  o[11] = B(__ll2float_ru((long long)L));
  o[12] = B(__ull2float_rn(L));
  o[13] = B(__ull2float_rz(L));
  o[14] = B(__ull2float_rd(L));
  o[15] = B(__ull2float_ru(L));
  PUT64(16, __double_as_longlong(__ll2double_rn((long long)L)));
  PUT64(18, __double_as_longlong(__ll2double_rz((long long)L)));
  PUT64(20, __double_as_longlong(__ll2double_rd((long long)L)));
  PUT64(22, __double_as_longlong(__ll2double_ru((long long)L)));
  PUT64(24, __double_as_longlong(__ull2double_rn(L)));
  PUT64(26, __double_as_longlong(__ull2double_rz(L)));
  PUT64(28, __double_as_longlong(__ull2double_rd(L)));
  PUT64(30, __double_as_longlong(__ull2double_ru(L)));
  PUT64(32, __double_as_longlong(__int2double_rn((int)I)));
  o[34] = H(__int2half_rn((int)I));
  o[35] = H(__int2half_rz((int)I));
  o[36] = H(__int2half_rd((int)I));
  o[37] = H(__int2half_ru((int)I));
  o[38] = H(__ll2half_rn((long long)L));
}

// K = 30: D = double input (t < 32: CV64, 32 <= t < 48: D64S, then random: odd raw, even with exponent
// near the integer limits or near 1). 0..3 __double2float_rn/rz/rd/ru 4..7 __double2int_* 8..11
// __double2uint_* 12..19 __double2ll_* 20..27 __double2ull_* 28 __double2half 29 __double2bfloat16
extern "C" __global__ void fpconv_f64(const unsigned *rnd, unsigned *out) {
  unsigned n = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
  ull bits;
  if (t < 32) bits = CV64[t];
  else if (t < 48) bits = D64S[t - 32];
  else {
    bits = ((ull)rnd[t] << 32) | rnd[n + t];
    if (!(t & 1)) bits = (bits & 0x800fffffffffffffull) | ((ull)(1022 + (bits >> 52) % 70) << 52);
  }
  double d = __longlong_as_double((long long)bits);
  unsigned *o = out + t * 30;
  o[0] = B(__double2float_rn(d));
  o[1] = B(__double2float_rz(d));
  o[2] = B(__double2float_rd(d));
  o[3] = B(__double2float_ru(d));
  o[4] = (unsigned)__double2int_rn(d);
  o[5] = (unsigned)__double2int_rz(d);
  o[6] = (unsigned)__double2int_rd(d);
  o[7] = (unsigned)__double2int_ru(d);
  o[8] = __double2uint_rn(d);
  o[9] = __double2uint_rz(d);
  o[10] = __double2uint_rd(d);
  o[11] = __double2uint_ru(d);
  PUT64(12, __double2ll_rn(d));
  PUT64(14, __double2ll_rz(d));
  PUT64(16, __double2ll_rd(d));
  PUT64(18, __double2ll_ru(d));
  PUT64(20, __double2ull_rn(d));
  PUT64(22, __double2ull_rz(d));
  PUT64(24, __double2ull_rd(d));
  PUT64(26, __double2ull_ru(d));
  o[28] = H(__double2half(d));
  o[29] = BF(__double2bfloat16(d));
}
