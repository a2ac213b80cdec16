// control.cu — divergent control flow and reconvergence.
//   ctl_nested_loops(in, out): nested loops with data-dependent trip counts, continue, break and a goto out
//     of both loops; out[t * 4 + 0..3] = accumulator, outer iterations, inner iterations, exit reason.
//   ctl_while_masks(in, masks, ballots, iters): a while loop that lanes leave at different iterations;
//     at each iteration every lane still inside records __activemask() and __ballot_sync(__activemask(), bit)
//     at masks/ballots[t * 24 + it] (0xcccccccc where it never got to); iters[t] = its trip count.
//     A do-while with a data-dependent break follows, recording __activemask() per step at
//     masks2[t * 16 + step].
//   ctl_divergent_call(in, out): a __noinline__ function called from inside a divergent branch; it looks
//     at __activemask() and shuffles from the lowest active lane. out[t * 3 + 0..2].
//   ctl_recursion(out): factorial (u64) and fibonacci through __noinline__ recursive functions with a
//     lane-dependent argument; out[t * 3 + 0..2] = fact lo, fact hi, fib.
//   ctl_switch(in, out): a 9-way switch on data with fall-through; out[t].
#include "wv_compat.h"

extern "C" __global__ void ctl_nested_loops(const unsigned *in, unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t];
  unsigned n = x % 17, m = (x >> 8) % 13;
  unsigned acc = 0, outer = 0, inner = 0, why = 0;
  for (unsigned i = 0; i < n; i++) {
    outer++;
    if ((i ^ t) & 1) continue;
    for (unsigned j = 0; j < m; j++) {
      inner++;
      if (j * i > 40) break;
      if (((x >> j) & 3) == 3) continue;
      acc += i * j + t;
      if (acc > 3000) {
        why = 1;
        goto done;
      }
    }
    if (acc % 7 == 3) {
      why = 2;
      break;
    }
  }
done:
  out[t * 4 + 0] = acc;
  out[t * 4 + 1] = outer;
  out[t * 4 + 2] = inner;
  out[t * 4 + 3] = why;
}

extern "C" __global__ void ctl_while_masks(const unsigned *in, unsigned *masks, unsigned *ballots,
                                           unsigned *iters, unsigned *masks2) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t];
  for (int k = 0; k < 24; k++) masks[t * 24 + k] = ballots[t * 24 + k] = 0xccccccccu;
  for (int k = 0; k < 16; k++) masks2[t * 16 + k] = 0xccccccccu;
  unsigned n = x % 24, it = 0;
  while (it < n) {
    unsigned am = __activemask();
    unsigned b = __ballot_sync(__activemask(), (x >> it) & 1);
    masks[t * 24 + it] = am;
    ballots[t * 24 + it] = b;
    it++;
  }
  iters[t] = it;
  unsigned step = 0, y = x;
  do {
    masks2[t * 16 + step] = __activemask();
    step++;
    if ((y & 7) == 5) break;
    y = y * 1103515245u + 12345u;
  } while (step < 16);
}

static __device__ __noinline__ unsigned wv_divergent_fn(unsigned v) {
  unsigned am = __activemask();
  unsigned leader = __ffs(am) - 1;
  unsigned lv = __shfl_sync(am, v, leader);
  return (am ^ lv) + __popc(am) * 7;
}

extern "C" __global__ void ctl_divergent_call(const unsigned *in, unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x & 31;
  unsigned x = in[t];
  unsigned r0 = 0xccccccccu, r1 = 0xccccccccu, r2 = 0xccccccccu;
  if (lane % 3 != 0) {
    r0 = wv_divergent_fn(x);
    if (x & 1) r1 = wv_divergent_fn(x >> 1);
  } else {
    r2 = wv_divergent_fn(~x);
  }
  out[t * 3 + 0] = r0;
  out[t * 3 + 1] = r1;
  out[t * 3 + 2] = r2;
}

static __device__ __noinline__ unsigned long long wv_fact(unsigned n) {
  if (n <= 1) return 1;
  return n * wv_fact(n - 1);
}

static __device__ __noinline__ unsigned wv_fib(unsigned n) {
  if (n < 2) return n;
  return wv_fib(n - 1) + wv_fib(n - 2);
}

extern "C" __global__ void ctl_recursion(unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long f = wv_fact(t % 25);
  out[t * 3 + 0] = (unsigned)f;
  out[t * 3 + 1] = (unsigned)(f >> 32);
  out[t * 3 + 2] = wv_fib(t % 16);
}

extern "C" __global__ void ctl_switch(const unsigned *in, unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t], r = 0;
  switch (x % 9) {
    case 0: r = x >> 3; break;
    case 1: r = x * 3;  // fall through
    case 2: r += 17; break;
    case 3: r = ~x; break;
    case 4: r = x ^ 0xabcdef; break;
    case 5: r = x & 0xffff;  // fall through
    case 6: r |= 0x10000; break;
    case 7: r = x + t; break;
    default: r = 0xdead0000u | t; break;
  }
  out[t] = r;
}
