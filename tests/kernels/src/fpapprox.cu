// fpapprox.cu — sweeps of the approximate (SFU) instructions and of the math library's float functions,
// so the error against the exact value can be measured later. One op per run:
//   fpapprox(op, mode, lo, hi, base, step, in, out), N = grid * block threads (run with grid 16, block 256).
//   Input i: i < 40 takes SPECIAL[i]; otherwise mode 0 gives lo + (hi - lo) * (i / N) (linear),
//   mode 1 gives the bit pattern base + i * step (logarithmic over a range of one sign).
//   in[i] = the input bits, out[i] = the result bits.
// ops: 0 ex2.approx.f32 1 ex2.approx.ftz.f32 2 lg2.approx.f32 3 lg2.approx.ftz.f32 4 sin.approx.f32
//   5 cos.approx.f32 6 rsqrt.approx.f32 7 rsqrt.approx.ftz.f32 8 rcp.approx.f32 9 rcp.approx.ftz.f32
//   10 sqrt.approx.f32 11 tanh.approx.f32 12 __expf 13 __logf 14 __sinf 15 __cosf 16 __tanf
//   17 __fdividef(x, 3.7f) 18 __fdividef(7.5f, x) 19 __powf(x, 1.37f) 20 div.approx.f32 x, 3.0
//   21 div.full.f32 7.5, x 22 __exp10f 23 __log2f 24 __log10f 25 exp2f 26 expf 27 logf 28 sinf 29 tanhf
//   30 cosf 31 sqrtf 32 ex2.approx.f16 (low half of x's bits as the input half; result in the low half)
// Built plainly (ptx/fpapprox.sm_80.ptx) and with -use_fast_math (ptx/fpapprox_fast.sm_80.ptx), which
// turns the library calls of ops 25..31 into approximate instructions with flush to zero.
#include <cuda_fp16.h>

__constant__ unsigned SPECIAL[40] = {
    0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x3f800000u, 0xbf800000u,
    0x3f000000u, 0xbf000000u, 0x40000000u, 0xc0000000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
    0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0x7f800001u, 0x42fe0000u, 0x43000000u, 0xc2fc0000u, 0xc3150000u,
    0x40490fdbu, 0xc0490fdbu, 0x3fc90fdbu, 0x4b000000u, 0x5f000000u, 0x3eaaaaabu, 0x3f7fffffu, 0x3f800001u,
    0x41200000u, 0xc1200000u, 0x3a83126fu, 0x461c4000u, 0x2f800000u, 0x1f800000u, 0x00400000u, 0x3c00u};

extern "C" __global__ void fpapprox(unsigned op, unsigned mode, float lo, float hi, unsigned base, unsigned step,
                                    unsigned *in, unsigned *out) {
  unsigned n = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  float x;
  if (i < 40) x = __uint_as_float(SPECIAL[i]);
  else if (mode == 0) x = lo + (hi - lo) * ((float)i / (float)n);
  else x = __uint_as_float(base + i * step);
  float r = 0.0f;
  switch (op) {
    case 0: asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 1: asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 2: asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 3: asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 4: asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 5: asm("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 6: asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 7: asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 8: asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 9: asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 10: asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 11: asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 12: r = __expf(x); break;
    case 13: r = __logf(x); break;
    case 14: r = __sinf(x); break;
    case 15: r = __cosf(x); break;
    case 16: r = __tanf(x); break;
    case 17: r = __fdividef(x, 3.7f); break;
    case 18: r = __fdividef(7.5f, x); break;
    case 19: r = __powf(x, 1.37f); break;
    case 20: asm("div.approx.f32 %0, %1, 0f40400000;" : "=f"(r) : "f"(x)); break;
    case 21: asm("div.full.f32 %0, 0f40F00000, %1;" : "=f"(r) : "f"(x)); break;
    case 22: r = __exp10f(x); break;
    case 23: r = __log2f(x); break;
    case 24: r = __log10f(x); break;
    case 25: r = exp2f(x); break;
    case 26: r = expf(x); break;
    case 27: r = logf(x); break;
    case 28: r = sinf(x); break;
    case 29: r = tanhf(x); break;
    case 30: r = cosf(x); break;
    case 31: r = sqrtf(x); break;
    case 32: {
      unsigned short h = (unsigned short)__float_as_uint(x), hr;
      asm("ex2.approx.f16 %0, %1;" : "=h"(hr) : "h"(h));
      r = __uint_as_float(hr);
      break;
    }
    default: r = __uint_as_float(0xdeadbeefu); break;
  }
  in[i] = __float_as_uint(x);
  out[i] = __float_as_uint(r);
}
