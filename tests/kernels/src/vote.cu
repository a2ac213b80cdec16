// vote.cu — warp vote, match and reduce in converged code, in divergent branches (lane & 1, lane < 13,
// nested lane % 3) and in a partial last warp (run with blocks of 40 and 50 threads).
// Every thread owns 32 result slots: out[threadIdx.x * 32 + slot]; a slot a thread never reaches keeps
// 0xcccccccc. The member mask of each collective is the warp's real population at that point (computed,
// or taken from __activemask() inside branches), as the CUDA rules require.
//   0 __activemask at entry      1 ballot(x&1)             2 all(x&7 != 0)        3 any((x&31) == 0)
//   4 uni(lane<64)               5 uni(x&1)                6 match_any(x&3)       7 match_all(x&3) mask
//   8 its pred                   9 match_all(blockIdx+5)   10 its pred            11 match_any(64-bit)
//   12 match_all(64-bit) mask   13 its pred
//   14..19 __reduce_add/min/max(signed)/and/or/xor over the warp (sm_80+; 0xfeedface below sm_80)
//   then in `if (lane & 1)` (odd) and its else (even; same slots, different threads):
//   20 activemask  21 ballot(am, x&2 | even: x&8)  22 all(am, x&4 | x&16)  23 any(am, (x&15)==0 | (x&7)==0)
//   24 match_any(am, lane>>2 | lane>>3)  25 __reduce_add(am, lane | lane*3)
//   26 __reduce_min(am, (int)x | (int)~x)  (25, 26: sm_80+)
//   in `if (lane < 13)`: 27 activemask  28 ballot(am, x&4); then nested `if (lane % 3 == 0)` and its else:
//   29 activemask  30 ballot(am2, x&1 | x&2)  31 match_any(am2, x&1 | x&2);  lanes >= 13 (the else of
//   lane < 13): 31 activemask.
#include "wv_compat.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define WV_HAVE_REDUX 1
#else
#define WV_HAVE_REDUX 0
#endif

static __device__ __forceinline__ unsigned warp_population() {
  unsigned first = threadIdx.x & ~31u;
  unsigned n = blockDim.x - first;
  return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}

extern "C" __global__ void vote_divergent(const unsigned *in, unsigned *out) {
  unsigned lane = threadIdx.x & 31;
  unsigned x = in[threadIdx.x];
  unsigned *o = out + threadIdx.x * 32;
  for (int k = 0; k < 32; k++) o[k] = 0xccccccccu;
  unsigned wm = warp_population();
  int p;

  o[0] = __activemask();
  o[1] = __ballot_sync(wm, x & 1);
  o[2] = __all_sync(wm, (x & 7) != 0);
  o[3] = __any_sync(wm, (x & 31) == 0);
  o[4] = __uni_sync(wm, lane < 64);
  o[5] = __uni_sync(wm, x & 1);
  o[6] = __match_any_sync(wm, x & 3);
  o[7] = __match_all_sync(wm, x & 3, &p);
  o[8] = p;
  o[9] = __match_all_sync(wm, blockIdx.x + 5, &p);
  o[10] = p;
  unsigned long long X = ((unsigned long long)(x & 1) << 40) | (lane & 1);
  o[11] = __match_any_sync(wm, X);
  o[12] = __match_all_sync(wm, X | 0xff00000000000000ull, &p);
  o[13] = p;
#if WV_HAVE_REDUX
  o[14] = __reduce_add_sync(wm, x);
  o[15] = __reduce_min_sync(wm, x);
  o[16] = (unsigned)__reduce_max_sync(wm, (int)x);
  o[17] = __reduce_and_sync(wm, x | 0x0f0f0f0fu);
  o[18] = __reduce_or_sync(wm, x & 0x0f0f0f0fu);
  o[19] = __reduce_xor_sync(wm, x);
#else
  for (int k = 14; k < 20; k++) o[k] = 0xfeedfaceu;
#endif

  // The two sides of each branch do different work and carry distinct marker comments at both ends, so
  // no compiler can hoist or sink the collectives out of the divergent region (clang merges identical
  // then/else bodies otherwise).
  if (lane & 1) {
    asm volatile("// vote_divergent: odd lanes begin");
    unsigned am = __activemask();
    o[20] = am;
    o[21] = __ballot_sync(am, x & 2);
    o[22] = __all_sync(am, x & 4);
    o[23] = __any_sync(am, (x & 15) == 0);
    o[24] = __match_any_sync(am, lane >> 2);
#if WV_HAVE_REDUX
    o[25] = __reduce_add_sync(am, lane);
    o[26] = (unsigned)__reduce_min_sync(am, (int)x);
#endif
    asm volatile("// vote_divergent: odd lanes end");
  } else {
    asm volatile("// vote_divergent: even lanes begin");
    unsigned am = __activemask();
    o[20] = am;
    o[21] = __ballot_sync(am, x & 8);
    o[22] = __all_sync(am, x & 16);
    o[23] = __any_sync(am, (x & 7) == 0);
    o[24] = __match_any_sync(am, lane >> 3);
#if WV_HAVE_REDUX
    o[25] = __reduce_add_sync(am, lane * 3);
    o[26] = (unsigned)__reduce_min_sync(am, (int)~x);
#endif
    asm volatile("// vote_divergent: even lanes end");
  }

  if (lane < 13) {
    asm volatile("// vote_divergent: lane < 13 begin");
    unsigned am = __activemask();
    o[27] = am;
    o[28] = __ballot_sync(am, x & 4);
    if (lane % 3 == 0) {
      asm volatile("// vote_divergent: lane % 3 == 0 begin");
      unsigned am2 = __activemask();
      o[29] = am2;
      o[30] = __ballot_sync(am2, x & 1);
      o[31] = __match_any_sync(am2, x & 1);
      asm volatile("// vote_divergent: lane % 3 == 0 end");
    } else {
      asm volatile("// vote_divergent: lane % 3 != 0 begin");
      unsigned am2 = __activemask();
      o[29] = am2;
      o[30] = __ballot_sync(am2, x & 2);
      o[31] = __match_any_sync(am2, x & 2);
      asm volatile("// vote_divergent: lane % 3 != 0 end");
    }
    asm volatile("// vote_divergent: lane < 13 end");
  } else {
    asm volatile("// vote_divergent: lane >= 13 begin");
    o[31] = __activemask();
    asm volatile("// vote_divergent: lane >= 13 end");
  }
}
