// async_mbarrier.cu — mbarrier through inline PTX. Every recorded predicate is read at a point where the
// phase it asks about is either certainly complete or certainly incomplete (after __syncthreads), and
// pending counts only from arrivals serialised by __syncthreads: nothing depends on timing.
//   mbar_basic(out), block 64, 16 words per thread (sm_80 and sm_90):
//     [0] bits of 4 phases of barrier A (count 64): for phase p, bit 3p = test_wait(A, state of my arrive),
//         3p+1 = test_wait.parity(A, p & 1), 3p+2 = test_wait.parity(A, (p + 1) & 1), read after all arrived;
//     [1] test_wait(A, the state of my phase-0 arrive) after 4 phases (a stale state)
//     [2] barrier B (count 65): test_wait with my state after all 64 arrived (incomplete), [3] the same after
//         thread 0 arrived once more (complete), [4] thread 0's pending_count of that last arrive's state
//     [5] barrier C (count 64): warp 1 arrive_drop, warp 0 arrive; test_wait after (1 = complete);
//     [6] phase 1 of C with only warp 0 arriving: test_wait.parity(C, 1) read by everyone after warp 0 arrived
//     [7] barrier D (count 8): threads 0, 8, 16, ..., 56 arrive one at a time (in that order): pending_count
//         of the state each gets (else 0xcccccccc), [8] test_wait(D, that state) right after its arrive,
//         [9] test_wait(D, that state) after all 8 arrived
//     [10] barrier E (count 3): thread 0 arrive.noComplete with count 2, pending_count of its state;
//         [11] test_wait.parity(E, 0) after that; [12] thread 1 arrives: test_wait.parity(E, 0) after
//     [13] test_wait.parity(A, 0), [14] test_wait.parity(A, 1) at the end (A did 4 phases); [15] = 0x600d
//   mbar_tx(out), block 32 (sm_90 only), words per thread 0 only except the last part:
//     expect_tx / complete_tx on F (count 1): [0] test_wait.parity(F,0) after expect_tx 16 + arrive (tx
//     pending), [1] after complete_tx 8, [2] after complete_tx 8 more, [3] after arrive.expect_tx 32 (phase
//     1, count 1 -> arrival done, tx 32 pending) test_wait.parity(F,1), [4] try_wait.parity(F,1) after
//     complete_tx 32, [5] try_wait(F, state of that arrive), [6] arrive with count 2 on G (count 2):
//     test_wait.parity(G,0), [7] pending_count of that state;
//     then cp.async.bulk of 512 bytes (the buffer `in`) into shared memory completing tx on H: thread 0
//     arrive.expect_tx 512 (H count 32, the others plain arrive), all spin try_wait.parity(H, 0);
//     out[8 + l*4 + j] = s[((l + 1) % 32)*4 + j].
//   mbar_pc(in, out, rounds), block 64: warp 0 produces, warp 1 consumes, through full[2] / empty[2]
//     mbarriers (count 32 each), waiting with try_wait.parity on sm_90 and test_wait.parity loops on sm_80
//     over rounds/2 phases of each barrier: out[r*32 + l] = buf[r%2][(l+1)%32] ^ r.
#include <stdint.h>

__device__ __forceinline__ unsigned sa(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mb_init(uint64_t *b, unsigned n) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(sa(b)), "r"(n) : "memory");
}
__device__ __forceinline__ uint64_t mb_arrive(uint64_t *b) {
  uint64_t s;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(s) : "r"(sa(b)) : "memory");
  return s;
}
__device__ __forceinline__ uint64_t mb_arrive_drop(uint64_t *b) {
  uint64_t s;
  asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(s) : "r"(sa(b)) : "memory");
  return s;
}
__device__ __forceinline__ uint64_t mb_arrive_nc(uint64_t *b, unsigned c) {
  uint64_t s;
  asm volatile("mbarrier.arrive.noComplete.shared.b64 %0, [%1], %2;" : "=l"(s) : "r"(sa(b)), "r"(c) : "memory");
  return s;
}
__device__ __forceinline__ unsigned mb_test(uint64_t *b, uint64_t s) {
  unsigned r;
  asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(sa(b)), "l"(s) : "memory");
  return r;
}
__device__ __forceinline__ unsigned mb_test_par(uint64_t *b, unsigned par) {
  unsigned r;
  asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(sa(b)), "r"(par) : "memory");
  return r;
}
__device__ __forceinline__ unsigned mb_pending(uint64_t s) {
  unsigned r;
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(r) : "l"(s));
  return r;
}
__device__ __forceinline__ void mb_inval(uint64_t *b) {
  asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(sa(b)) : "memory");
}
#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned mb_try_par(uint64_t *b, unsigned par) {
  unsigned r;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(sa(b)), "r"(par) : "memory");
  return r;
}
__device__ __forceinline__ unsigned mb_try(uint64_t *b, uint64_t s) {
  unsigned r;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(sa(b)), "l"(s) : "memory");
  return r;
}
#endif

extern "C" __global__ void mbar_basic(unsigned *out) {
  __shared__ uint64_t A, B, C, D, E;
  unsigned t = threadIdx.x, w[16];
  for (int k = 0; k < 16; k++) w[k] = 0xccccccccu;
  if (t == 0) {
    mb_init(&A, 64);
    mb_init(&B, 65);
    mb_init(&C, 64);
    mb_init(&D, 8);
    mb_init(&E, 3);
  }
  __syncthreads();
  // A: 4 phases
  unsigned bits = 0;
  uint64_t s0 = 0;
  for (unsigned p = 0; p < 4; p++) {
    uint64_t s = mb_arrive(&A);
    if (p == 0) s0 = s;
    __syncthreads();
    bits |= mb_test(&A, s) << (3 * p);
    bits |= mb_test_par(&A, p & 1) << (3 * p + 1);
    bits |= mb_test_par(&A, (p + 1) & 1) << (3 * p + 2);
    __syncthreads();
  }
  w[0] = bits;
  w[1] = mb_test(&A, s0);
  // B: count 65, one arrival short
  uint64_t sb = mb_arrive(&B);
  __syncthreads();
  w[2] = mb_test(&B, sb);
  __syncthreads();
  if (t == 0) w[4] = mb_pending(mb_arrive(&B));
  __syncthreads();
  w[3] = mb_test(&B, sb);
  // C: arrive_drop by warp 1
  uint64_t sc = t >= 32 ? mb_arrive_drop(&C) : mb_arrive(&C);
  __syncthreads();
  w[5] = mb_test(&C, sc);
  __syncthreads();
  if (t < 32) mb_arrive(&C);
  __syncthreads();
  w[6] = mb_test_par(&C, 1);
  // D: serialised arrivals
  for (unsigned i = 0; i < 8; i++) {
    if (t == i * 8) {
      uint64_t s = mb_arrive(&D);
      w[7] = mb_pending(s);
      w[8] = mb_test(&D, s);
      sc = s;
    }
    __syncthreads();
  }
  if (t % 8 == 0) w[9] = mb_test(&D, sc);
  // E: noComplete with a count
  if (t == 0) w[10] = mb_pending(mb_arrive_nc(&E, 2));
  __syncthreads();
  w[11] = mb_test_par(&E, 0);
  __syncthreads();
  if (t == 1) mb_arrive(&E);
  __syncthreads();
  w[12] = mb_test_par(&E, 0);
  w[13] = mb_test_par(&A, 0);
  w[14] = mb_test_par(&A, 1);
  w[15] = 0x600d;
  __syncthreads();
  if (t == 0) {
    mb_inval(&A);
    mb_inval(&B);
    mb_inval(&C);
    mb_inval(&D);
    mb_inval(&E);
  }
  for (int k = 0; k < 16; k++) out[t * 16 + k] = w[k];
}

#if __CUDA_ARCH__ >= 900
extern "C" __global__ void mbar_tx(const unsigned *in, unsigned *out) {
  __shared__ uint64_t F, G, H;
  __shared__ __align__(128) unsigned s[128];
  unsigned t = threadIdx.x;
  if (t == 0) {
    mb_init(&F, 1);
    mb_init(&G, 2);
    mb_init(&H, 32);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t == 0) {
    unsigned w[8];
    asm volatile("mbarrier.expect_tx.shared.b64 [%0], 16;" ::"r"(sa(&F)) : "memory");
    mb_arrive(&F);
    w[0] = mb_test_par(&F, 0);
    asm volatile("mbarrier.complete_tx.shared.b64 [%0], 8;" ::"r"(sa(&F)) : "memory");
    w[1] = mb_test_par(&F, 0);
    asm volatile("mbarrier.complete_tx.shared.b64 [%0], 8;" ::"r"(sa(&F)) : "memory");
    w[2] = mb_test_par(&F, 0);
    uint64_t st;
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 %0, [%1], 32;" : "=l"(st) : "r"(sa(&F)) : "memory");
    w[3] = mb_test_par(&F, 1);
    asm volatile("mbarrier.complete_tx.shared.b64 [%0], 32;" ::"r"(sa(&F)) : "memory");
    w[4] = mb_try_par(&F, 1);
    w[5] = mb_try(&F, st);
    uint64_t sg;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1], 2;" : "=l"(sg) : "r"(sa(&G)) : "memory");
    w[6] = mb_test_par(&G, 0);
    w[7] = mb_pending(sg);
    for (int k = 0; k < 8; k++) out[k] = w[k];
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], 512;" ::"r"(sa(&H)) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];"
                 ::"r"(sa(s)), "l"(in), "r"(sa(&H)) : "memory");
  } else {
    mb_arrive(&H);
  }
  while (!mb_try_par(&H, 0)) {
  }
  for (int j = 0; j < 4; j++) out[8 + t * 4 + j] = s[((t + 1) % 32) * 4 + j];
}
#endif

extern "C" __global__ void mbar_pc(const unsigned *in, unsigned *out, unsigned rounds) {
  __shared__ uint64_t full[2], empty[2];
  __shared__ unsigned buf[2][32];
  unsigned t = threadIdx.x, l = t % 32;
  if (t == 0) {
    mb_init(&full[0], 32);
    mb_init(&full[1], 32);
    mb_init(&empty[0], 32);
    mb_init(&empty[1], 32);
  }
  __syncthreads();
  for (unsigned r = 0; r < rounds; r++) {
    unsigned b = r % 2;
    if (t < 32) {
      if (r >= 2) {
        unsigned par = (r / 2 - 1) & 1;
#if __CUDA_ARCH__ >= 900
        while (!mb_try_par(&empty[b], par)) {
        }
#else
        while (!mb_test_par(&empty[b], par)) {
        }
#endif
      }
      buf[b][l] = in[r * 32 + l] * 9u + r;
      mb_arrive(&full[b]);
    } else if (t < 64) {
      unsigned par = (r / 2) & 1;
#if __CUDA_ARCH__ >= 900
      while (!mb_try_par(&full[b], par)) {
      }
#else
      while (!mb_test_par(&full[b], par)) {
      }
#endif
      out[r * 32 + l] = buf[b][(l + 1) % 32] ^ r;
      mb_arrive(&empty[b]);
    }
  }
}
