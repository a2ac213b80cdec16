// async_prim.cu — the pipeline primitives of cuda-pipeline-async-copy.zh.md §4 (<cuda_pipeline.h>).
//   prim_sizes(in, out), block 64: the shared destinations are first filled with 0xdeadbeef, then each
//     thread t issues __pipeline_memcpy_async of 4, 8 and 16 bytes, and of 4, 8, 16 bytes with zero fill
//     zfill = t % 5, t % 9, t % 17 (src_size = size - zfill: the rest of the destination becomes 0), one
//     __pipeline_commit, __pipeline_wait_prior(0), __syncthreads; then thread t writes the 14 words that
//     thread (t + 1) % 64 copied: out[t*14 + 0..13] = s4 (1), s8 (2), s16 (4), z4 (1), z8 (2), z16 (4).
//     in: 896 words (64 + 128 + 256 + 64 + 128 + 256).
//   prim_wait_prior(in, out), block 128: five commit groups G0..G4 of 4-byte copies, tile g = in[g*128 + t]
//     into s[g][t]; G0..G3 issued first, then wait_prior(3) (only G0 is guaranteed: read s[0][t]),
//     wait_prior(2) (read s[1][t]), then G4 is issued while G2, G3 may be in flight, wait_prior(2) (G2),
//     wait_prior(1) (G3), wait_prior(0) (G4). Each thread reads only its own copies (the guarantee is per
//     thread). out[t*5 + g] = s[g][t] ^ (g * 0x9e3779b9).
//   prim_arrive_on(in, out, rounds), block 128: an __mbarrier_t (count 128); each round every thread copies
//     16 bytes, __pipeline_arrive_on(&bar), __mbarrier_arrive, spins on __mbarrier_test_wait with its token,
//     then reads thread (t + 1) % 128's 16 bytes: out[(r*128 + t)*4 + j] = s[((t+1)%128)*4 + j] + r.
//     in: rounds * 512 words.
//   prim_deep_pipeline(in, out, tiles), block 64: a double-buffered pipeline of `tiles` tiles of 256 words, 16
//     bytes a thread: tile k + 1's copy is issued before wait_prior(1) waits for tile k's, so a thread always has
//     a copy in flight until the last tile (warpvm's queue of a lane's copies drops the delivered ones as it goes).
//     out[k*256 + 4*t + j] = word 4*(63 - t) + (3 - j) of tile k, + k.
#include <cuda_awbarrier_primitives.h>
#include <cuda_pipeline.h>

extern "C" __global__ void prim_sizes(const unsigned *in, unsigned *out) {
  __shared__ __align__(16) unsigned s4[64], s8[128], s16[256], z4[64], z8[128], z16[256];
  unsigned t = threadIdx.x;
  for (unsigned i = t; i < 256; i += 64) {
    if (i < 64) s4[i] = z4[i] = 0xdeadbeefu;
    if (i < 128) s8[i] = z8[i] = 0xdeadbeefu;
    s16[i] = z16[i] = 0xdeadbeefu;
  }
  __syncthreads();
  __pipeline_memcpy_async(&s4[t], &in[t], 4);
  __pipeline_memcpy_async(&s8[2 * t], &in[64 + 2 * t], 8);
  __pipeline_memcpy_async(&s16[4 * t], &in[192 + 4 * t], 16);
  __pipeline_memcpy_async(&z4[t], &in[448 + t], 4, t % 5);
  __pipeline_memcpy_async(&z8[2 * t], &in[512 + 2 * t], 8, t % 9);
  __pipeline_memcpy_async(&z16[4 * t], &in[640 + 4 * t], 16, t % 17);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  unsigned u = (t + 1) % 64, *o = out + t * 14;
  o[0] = s4[u];
  o[1] = s8[2 * u];
  o[2] = s8[2 * u + 1];
  for (int j = 0; j < 4; j++) o[3 + j] = s16[4 * u + j];
  o[7] = z4[u];
  o[8] = z8[2 * u];
  o[9] = z8[2 * u + 1];
  for (int j = 0; j < 4; j++) o[10 + j] = z16[4 * u + j];
}

extern "C" __global__ void prim_wait_prior(const unsigned *in, unsigned *out) {
  __shared__ unsigned s[5][128];
  unsigned t = threadIdx.x, r[5];
  for (int g = 0; g < 4; g++) {
    __pipeline_memcpy_async(&s[g][t], &in[g * 128 + t], 4);
    __pipeline_commit();
  }
  __pipeline_wait_prior(3);
  r[0] = s[0][t];
  __pipeline_wait_prior(2);
  r[1] = s[1][t];
  __pipeline_memcpy_async(&s[4][t], &in[4 * 128 + t], 4);
  __pipeline_commit();
  __pipeline_wait_prior(2);
  r[2] = s[2][t];
  __pipeline_wait_prior(1);
  r[3] = s[3][t];
  __pipeline_wait_prior(0);
  r[4] = s[4][t];
  for (int g = 0; g < 5; g++) out[t * 5 + g] = r[g] ^ (g * 0x9e3779b9u);
}

extern "C" __global__ void prim_arrive_on(const unsigned *in, unsigned *out, unsigned rounds) {
  __shared__ __mbarrier_t bar;
  __shared__ __align__(16) unsigned s[512];
  unsigned t = threadIdx.x;
  if (t == 0) __mbarrier_init(&bar, 128);
  __syncthreads();
  for (unsigned r = 0; r < rounds; r++) {
    __pipeline_memcpy_async(&s[4 * t], &in[r * 512 + 4 * t], 16);
    __pipeline_arrive_on(&bar);
    __mbarrier_token_t tok = __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok)) {
    }
    unsigned u = (t + 1) % 128;
    for (int j = 0; j < 4; j++) out[(r * 128 + t) * 4 + j] = s[4 * u + j] + r;
    __syncthreads();  // everyone has read s before the next round's copies overwrite it
  }
  if (t == 0) __mbarrier_inval(&bar);
}

extern "C" __global__ void prim_deep_pipeline(const uint4 *in, uint4 *out, unsigned tiles) {
  __shared__ uint4 buf[2][64];
  unsigned t = threadIdx.x;
  __pipeline_memcpy_async(&buf[0][t], &in[t], 16);
  __pipeline_commit();
  for (unsigned k = 0; k < tiles; k++) {
    if (k + 1 < tiles) __pipeline_memcpy_async(&buf[(k + 1) & 1][t], &in[(k + 1) * 64 + t], 16);
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    uint4 v = buf[k & 1][63 - t];
    out[k * 64 + t] = make_uint4(v.w + k, v.z + k, v.y + k, v.x + k);
    __syncthreads();  // tile k's buffer is read before tile k + 2's copy overwrites it
  }
}
