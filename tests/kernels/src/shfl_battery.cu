// shfl_battery.cu — exhaustive shfl.sync test: every mode x 15 values of b x 20 values of c x 32 lanes.
// b and c are read from __constant__ tables indexed by blockIdx, so every (b, c) pair really reaches the
// instruction as a register value. Lane L supplies the value 1000 + L.
//   grid 300 (block index = bi * 20 + ci), block 32.
//   val[(bi * 20 + ci) * 32 + lane]  = the shuffled value
//   pred[(bi * 20 + ci) * 32 + lane] = the predicate output (1 when the source lane was in range)
// shfl_battery_partial: lanes 0..15 only, membermask 0x0000ffff, c values whose segment mask has bit 4 set,
//   so every source lane lies in the lower half and the result is defined. grid 120 = 15 b x 8 c, block 32;
//   out[((mode * 120) + block) * 32 + lane] with mode 0 idx, 1 up, 2 down, 3 bfly; lanes 16..31 write
//   0xeeeeeeee.
#include "wv_compat.h"

__constant__ unsigned shfl_b[15] = {0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 0xffffffffu};
__constant__ unsigned shfl_c[20] = {
    0x00000000u, 0x0000001fu, 0x0000000fu,               // clamp only: 0, 31, 15
    0x00001000u, 0x0000101fu, 0x00001800u, 0x0000181fu,  // width 16 and 8: up form, others' form
    0x00001c00u, 0x00001c1fu, 0x00001e00u, 0x00001e1fu,  // width 4 and 2
    0x00001f00u, 0x00001f1fu,                            // width 1
    0x00001005u, 0x0000180au,                            // clamp below the segment end; clamp bits inside the mask
    0x00000a1fu, 0x00001503u,                            // segment mask bits not contiguous
    0x000000ffu,                                         // bits 5..7 set
    0xffffe00fu, 0x80001c1fu};                           // bits above 12 set
__constant__ unsigned shfl_cp[8] = {0x1000u, 0x101fu, 0x1800u, 0x181fu, 0x1c1fu, 0x1f1fu, 0x1005u, 0x1503u};

#define SHFL_ASM(MODE, r, p, a, b, c, m)                                                             \
  asm volatile("{ .reg .pred q; shfl.sync." MODE ".b32 %0|q, %2, %3, %4, %5; selp.u32 %1, 1, 0, q; }" \
               : "=r"(r), "=r"(p)                                                                   \
               : "r"(a), "r"(b), "r"(c), "r"(m))

#define BATTERY(NAME, MODE)                                                   \
  extern "C" __global__ void NAME(unsigned *val, unsigned *pred) {            \
    unsigned lane = threadIdx.x & 31;                                         \
    unsigned b = shfl_b[blockIdx.x / 20], c = shfl_c[blockIdx.x % 20];        \
    unsigned a = 1000 + lane, r, p;                                           \
    SHFL_ASM(MODE, r, p, a, b, c, 0xffffffffu);                               \
    val[blockIdx.x * 32 + lane] = r;                                          \
    pred[blockIdx.x * 32 + lane] = p;                                         \
  }

BATTERY(shfl_battery_idx, "idx")
BATTERY(shfl_battery_up, "up")
BATTERY(shfl_battery_down, "down")
BATTERY(shfl_battery_bfly, "bfly")

extern "C" __global__ void shfl_battery_partial(unsigned *val, unsigned *pred) {
  unsigned lane = threadIdx.x & 31;
  unsigned b = shfl_b[blockIdx.x / 8], c = shfl_cp[blockIdx.x % 8];
  unsigned a = 1000 + lane, r[4], p[4];
  if (lane < 16) {
    SHFL_ASM("idx", r[0], p[0], a, b, c, 0x0000ffffu);
    SHFL_ASM("up", r[1], p[1], a, b, c, 0x0000ffffu);
    SHFL_ASM("down", r[2], p[2], a, b, c, 0x0000ffffu);
    SHFL_ASM("bfly", r[3], p[3], a, b, c, 0x0000ffffu);
  } else {
    for (int m = 0; m < 4; m++) r[m] = p[m] = 0xeeeeeeeeu;
  }
  for (int m = 0; m < 4; m++) {
    val[(m * gridDim.x + blockIdx.x) * 32 + lane] = r[m];
    pred[(m * gridDim.x + blockIdx.x) * 32 + lane] = p[m];
  }
}
