// atomics.cu — atomic read-modify-write on global and shared memory. Every recorded result is independent
// of the order in which threads get to the memory word: sums and counts wrap the same way in any order,
// min/max/and/or/xor are commutative, atomicInc/atomicDec apply the same function from every thread (so the
// final value and the sum of the returned old values are fixed), CAS loops multiply by odd numbers
// (commutative mod 2^n), float/double sums add integers (or halves) small enough to stay exact.
//
// atomics_global(in, s32, s64, sf, d): grid G <= 8, any block size; in[] has one random word per thread.
//   s32: 32 u32 slots, s64: 16 u64 slots, both start from random words (--arg buf:..:rand32:SEED);
//   sf: 2 floats, d: 2 doubles, zero-filled.
// atomics_shared(in, out32, out64, outf): the same kinds of operation on shared memory; each block starts
//   from words of in[], and writes 24 u32, 8 u64 and 4 float words (slot 14 holds the exchange invariant,
//   slot 15 is written as 0). in[] needs max(40, threads) words.
typedef unsigned long long ull;

extern "C" __global__ void atomics_global(const unsigned *in, unsigned *s32, ull *s64, float *sf, double *d) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[g];
  ull X = ((ull)x << 32) | (x * 2654435761u);
  int *i32 = (int *)s32;
  long long *i64 = (long long *)s64;

  atomicAdd(&i32[0], (int)(x & 0xffff) - 0x8000);
  atomicAdd(&s32[1], x);
  atomicSub(&s32[2], x & 0xff);
  atomicMin(&i32[3], (int)x);
  atomicMax(&i32[4], (int)x);
  atomicMin(&s32[5], x);
  atomicMax(&s32[6], x);
  unsigned o7 = atomicInc(&s32[7], 100u);
  atomicAdd(&s32[8], o7);
  unsigned o9 = atomicDec(&s32[9], 1000u);
  atomicAdd(&s32[10], o9);
  atomicAnd(&s32[11], x | ~(1u << (g & 31)));
  atomicOr(&s32[12], 1u << (x & 31));
  atomicXor(&s32[13], x);
  // CAS loop: multiply by an odd number.
  unsigned old = s32[14], assumed;
  do {
    assumed = old;
    old = atomicCAS(&s32[14], assumed, assumed * (x | 1));
  } while (old != assumed);
  unsigned o15 = atomicAdd(&s32[15], 1u);
  atomicAdd(&s32[16], o15);
  atomicInc(&s32[17], 0xffffffffu);
  atomicDec(&s32[18], 0u);  // limit 0: every step gives 0 (old == 0 or old > 0)
  atomicAdd_system(&s32[19], x >> 16);
  atomicAdd_block(&s32[20 + (blockIdx.x & 7)], 3u);  // cta scope: one slot per block (G <= 8)
  atomicExch(&s32[28], 0x5a5a5a5au);                 // everyone writes the same value
  // 16-bit CAS loop: count threads into the low half of slot 29.
  unsigned short *h = (unsigned short *)&s32[29];
  unsigned short ho = *h, ha;
  do {
    ha = ho;
    ho = atomicCAS(h, ha, (unsigned short)(ha + 1));
  } while (ho != ha);
  atomicMax(&s32[30], x & 0xff);
  atomicMin(&i32[31], (int)(x | 0x80000000u) >> (x & 7));

  atomicAdd(&s64[0], X);
  atomicMin(&i64[1], (long long)X);
  atomicMax(&i64[2], (long long)X);
  atomicMin(&s64[3], X);
  atomicMax(&s64[4], X);
  atomicAnd(&s64[5], X | ~(1ull << (g & 63)));
  atomicOr(&s64[6], 1ull << (x & 63));
  atomicXor(&s64[7], X);
  ull old64 = s64[8], a64;
  do {
    a64 = old64;
    old64 = atomicCAS(&s64[8], a64, a64 * (X | 1));
  } while (old64 != a64);
  atomicExch(&s64[9], 0x0123456789abcdefull);
  atomicAdd(&s64[10], (ull)(int)x);  // sign-extended addends

  float fo = atomicAdd(&sf[0], 1.0f);      // returned olds are 0, 1, ..., N-1 in some order
  atomicAdd(&sf[1], fo);                   // their sum stays exact below 2^24
  atomicAdd(&d[0], (double)(x & 0xffff) * 0.5);
  atomicAdd(&d[1], -(double)(x >> 20));
}

extern "C" __global__ void atomics_shared(const unsigned *in, unsigned *out32, ull *out64, float *outf) {
  __shared__ unsigned s[24];
  __shared__ ull s64[8];
  __shared__ float sf[4];
  unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  unsigned x = in[g];
  ull X = ((ull)x << 32) | ~x;
  if (t == 0) {
    for (int k = 0; k < 24; k++) s[k] = in[k] ^ 0x9e3779b9u;
    for (int k = 0; k < 8; k++) s64[k] = ((ull)in[k + 24] << 32) | in[k + 32];
    for (int k = 0; k < 4; k++) sf[k] = 0.0f;
    s[16] = 0;
    s[17] = 0;
  }
  __syncthreads();
  int *i32 = (int *)s;
  atomicAdd(&s[0], x);
  atomicSub(&s[1], x >> 3);
  atomicMin(&i32[2], (int)x);
  atomicMax(&i32[3], (int)x);
  atomicMin(&s[4], x);
  atomicMax(&s[5], x);
  unsigned o = atomicInc(&s[6], 37u);
  atomicAdd(&s[7], o);
  o = atomicDec(&s[8], 37u);
  atomicAdd(&s[9], o);
  atomicAnd(&s[10], x | 0x00ff00ffu);
  atomicOr(&s[11], x & 0x01010101u);
  atomicXor(&s[12], x);
  unsigned old = s[13], as;
  do {
    as = old;
    old = atomicCAS(&s[13], as, as * (x | 1));
  } while (old != as);
  // Exchange: the final value plus the sum of all returned olds = initial + sum of all written values.
  unsigned e = atomicExch(&s[14], t + 1);
  atomicAdd(&s[15], e);
  unsigned c = atomicAdd_block(&s[16], 1u);
  atomicAdd(&s[17], c);
  atomicAdd(&s[18], 0xfffffff0u);
  float fo = atomicAdd(&sf[0], 1.0f);
  atomicAdd(&sf[1], fo);
  atomicAdd(&sf[2], (float)(x & 0xff) * 0.25f);
  atomicAdd(&sf[3], -(float)(x & 0x3f));
  atomicAdd(&s64[0], X);
  atomicMin((long long *)&s64[1], (long long)X);
  atomicMax((long long *)&s64[2], (long long)X);
  atomicMin(&s64[3], X);
  atomicMax(&s64[4], X);
  atomicOr(&s64[5], 1ull << (x & 63));
  atomicXor(&s64[6], X);
  ull old64 = s64[7], a64;
  do {
    a64 = old64;
    old64 = atomicCAS(&s64[7], a64, a64 * (X | 1));
  } while (old64 != a64);
  __syncthreads();
  if (t == 0) {
    s[14] += s[15];
    for (int k = 0; k < 24; k++) out32[blockIdx.x * 24 + k] = s[k];
    out32[blockIdx.x * 24 + 15] = 0;  // the sum of olds alone depends on the order
    for (int k = 0; k < 8; k++) out64[blockIdx.x * 8 + k] = s64[k];
    for (int k = 0; k < 4; k++) outf[blockIdx.x * 4 + k] = sf[k];
  }
}
