// tiles.cu — sub-warp collectives: every .sync collective on tiles of 2, 4, 8, 16 and 32 lanes, where the
// lanes of one warp execute the same instruction with DIFFERENT membermasks (one per tile), so the GPU forms
// one collective per distinct membermask. Written the two ways real code writes it: cooperative_groups
// (tiled_partition<N>, reduce, inclusive/exclusive_scan, coalesced_threads, labeled/binary_partition,
// invoke_one) and raw intrinsics with explicit masks such as `0xffu << (lane & ~7)`.
//
// Every kernel takes (const unsigned *in, OUT *out): `in` holds two random words per thread (rand32:
// in[2t], in[2t+1]); thread t owns out[t * SLOTS + slot], pre-filled with 0xcccccccc (a slot a thread never
// reaches keeps it). For tile size N = 2, 4, 8, 16, 32 (w = 0..4) a kernel's per-tile slots are at
// w * PER + k. Collectives through cooperative_groups run only on tiles whose lanes all exist (`full`: a
// partial last warp, blocks of 40 or 50 threads, leaves the last tiles incomplete, where CG's masks would name
// missing lanes); the raw intrinsics use the tile mask trimmed to the warp's population, which is defined.
//
// Kernels (OPS = per-tile slots):
//   tiles_repro          block 32..64, out[t*4]: cg::reduce(tile16, lane+1, plus<int>) (GPU: 136 | 392),
//                        __reduce_add_sync(0xffu << (lane & ~7), lane+1), tile8.match_any(lane >> 1),
//                        tile4.match_any(0): the issue's cases with values one can check by hand.
//   tiles_shfl_T         T = int uint ll ull float double half bf16; 12 ops: tile.shfl(v, 0 | N-1 | data),
//                        shfl_up(1 | N/2), shfl_down(1 | N/2), shfl_xor(1 | N-1); raw, width 32 inside the
//                        tile: __shfl_sync(tm, v, rotate by one), __shfl_xor_sync(tm, v, data & (N-1));
//                        raw width N: __shfl_down_sync(tm, v, data % N, N). Complete blocks only.
//   tiles_vote           18 ops: tile.any, all, ballot, match_any (32 and 64 bit), match_all (32, 64 bit:
//                        mask and predicate), rank|meta_rank<<8|size<<16, __activemask; raw __ballot_sync,
//                        __any_sync, __all_sync, __match_any_sync, __match_all_sync (+pred), __activemask.
//   tiles_reduce_int/uint  12 ops: cg::reduce with plus less greater bit_and bit_or bit_xor (redux.sync for
//                        N >= 16, shuffles below), raw __reduce_{add,min,max,and,or,xor}_sync(tm) for all N.
//   tiles_reduce_ll/ull  6 ops: cg::reduce plus less greater bit_and bit_or bit_xor (shuffles).
//   tiles_reduce_float/double  3 ops: cg::reduce plus less greater (shuffles; plus in the tile's order).
//   tiles_scan_T         T = int uint ll float double; 6 ops: inclusive/exclusive_scan with plus, less,
//                        greater (exclusive: rank 0 gets T{}).
//   tiles_sync           per tile: shared-memory exchange across tile.sync() / __syncwarp(tm), converged and
//                        with odd and even tiles on different paths (bar.warp.sync with partial masks).
//   tiles_divergent      collectives on 16-lane tiles on both sides of `lane < 16`; tiles of 4, 8, 16 of
//                        which only odd ones are active; coalesced_threads(), labeled_partition and
//                        binary_partition inside the data-dependent branch `x & 1` and its else.
//   tiles_partition      converged: labeled_partition(warp tile, x % 5), binary_partition(warp tile, x & 8),
//                        labeled_partition(tile of 8, x & 3); then coalesced_threads() + labeled_partition.
//   tiles_elect          cg::invoke_one / invoke_one_broadcast on every tile size (elect.sync on sm_90),
//                        inline `elect.sync` with the tile mask (sm_90; 0xfeedface on sm_80), and
//                        invoke_one_broadcast on coalesced_threads() in a branch.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cg = cooperative_groups;

#define SENT 0xccccccccu

// ---------------------------------------------------------------- helpers
static __device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

// The lanes of this thread's warp that exist (a partial last warp has fewer than 32).
static __device__ __forceinline__ unsigned warp_pop() {
  unsigned n = blockDim.x - (threadIdx.x & ~31u);
  return n >= 32 ? 0xffffffffu : (1u << n) - 1u;
}

// The mask of this thread's N-lane tile, written as real code writes it: 0xffu << (lane & ~7) for N = 8.
template <int N> static __device__ __forceinline__ unsigned tile_mask() {
  return N == 32 ? 0xffffffffu : (0xffffffffu >> (32 - N)) << (lane_id() & ~(unsigned)(N - 1));
}
template <int N> static __device__ __forceinline__ bool tile_full() {
  return (tile_mask<N>() & warp_pop()) == tile_mask<N>();
}

template <typename O> static __device__ __forceinline__ O *slots(O *out, int n) {
  O *o = out + (size_t)threadIdx.x * n;
  for (int k = 0; k < n; k++) o[k] = (O)SENT;
  return o;
}

// Raw bits of each type, and a value of each type made from two random words.
template <typename T> struct B;
template <> struct B<int> {
  typedef unsigned U;
  static __device__ U get(int v) { return (unsigned)v; }
  static __device__ int mk(unsigned lo, unsigned) { return (int)lo; }
};
template <> struct B<unsigned> {
  typedef unsigned U;
  static __device__ U get(unsigned v) { return v; }
  static __device__ unsigned mk(unsigned lo, unsigned) { return lo; }
};
template <> struct B<long long> {
  typedef unsigned long long U;
  static __device__ U get(long long v) { return (U)v; }
  static __device__ long long mk(unsigned lo, unsigned hi) { return (long long)(((U)hi << 32) | lo); }
};
template <> struct B<unsigned long long> {
  typedef unsigned long long U;
  static __device__ U get(U v) { return v; }
  static __device__ U mk(unsigned lo, unsigned hi) { return ((U)hi << 32) | lo; }
};
template <> struct B<float> {
  typedef unsigned U;
  static __device__ U get(float v) { return __float_as_uint(v); }
  // finite values of moderate size, both signs, so sums and orders are meaningful
  static __device__ float mk(unsigned lo, unsigned) {
    return __uint_as_float((lo & 0x807fffffu) | ((112u + (lo >> 23) % 32u) << 23));
  }
};
template <> struct B<double> {
  typedef unsigned long long U;
  static __device__ U get(double v) { return (U)__double_as_longlong(v); }
  static __device__ double mk(unsigned lo, unsigned hi) {
    U b = (((U)hi << 32) | lo) & 0x800fffffffffffffull;
    return __longlong_as_double((long long)(b | ((U)(1000u + (hi >> 20) % 48u) << 52)));
  }
};
template <> struct B<__half> {
  typedef unsigned U;
  static __device__ U get(__half v) { return __half_as_ushort(v); }
  static __device__ __half mk(unsigned lo, unsigned) { return __ushort_as_half((unsigned short)lo); }
};
template <> struct B<__nv_bfloat16> {
  typedef unsigned U;
  static __device__ U get(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
  static __device__ __nv_bfloat16 mk(unsigned lo, unsigned) { return __ushort_as_bfloat16((unsigned short)lo); }
};

template <typename T> static __device__ __forceinline__ T value(const unsigned *in) {
  return B<T>::mk(in[2 * threadIdx.x], in[2 * threadIdx.x + 1]);
}

// Runs F<N>::run(slots of N, args...) for N = 2, 4, 8, 16, 32; the slots of tile size w are o + w * PER.
template <template <int> class F, int PER, typename O, typename... A>
static __device__ __forceinline__ void for_tiles(O *o, A... a) {
  F<2>::run(o + 0 * PER, a...);
  F<4>::run(o + 1 * PER, a...);
  F<8>::run(o + 2 * PER, a...);
  F<16>::run(o + 3 * PER, a...);
  F<32>::run(o + 4 * PER, a...);
}

// ---------------------------------------------------------------- the issue's cases, checkable by hand
extern "C" __global__ void tiles_repro(unsigned *out) {
  unsigned *o = slots(out, 4);
  unsigned lane = lane_id();
  cg::thread_block blk = cg::this_thread_block();
  auto t16 = cg::tiled_partition<16>(blk);
  auto t8 = cg::tiled_partition<8>(blk);
  auto t4 = cg::tiled_partition<4>(blk);
  o[0] = (unsigned)cg::reduce(t16, (int)lane + 1, cg::plus<int>());
  o[1] = __reduce_add_sync(0xffu << (lane & ~7u), lane + 1);
  o[2] = t8.match_any(lane >> 1);
  o[3] = t4.match_any(0u);
}

// ---------------------------------------------------------------- shuffles
#define SHFL_PER 12
template <typename T> struct Shfl {
  template <int N> struct At {
    static __device__ __forceinline__ void run(typename B<T>::U *o, T v, unsigned y) {
      auto tile = cg::tiled_partition<N>(cg::this_thread_block());
      unsigned lane = lane_id(), base = lane & ~(unsigned)(N - 1), tm = tile_mask<N>();
      o[0] = B<T>::get(tile.shfl(v, 0));
      o[1] = B<T>::get(tile.shfl(v, N - 1));
      o[2] = B<T>::get(tile.shfl(v, (int)((y >> 4) & 63u)));
      o[3] = B<T>::get(tile.shfl_up(v, 1));
      o[4] = B<T>::get(tile.shfl_up(v, N / 2));
      o[5] = B<T>::get(tile.shfl_down(v, 1));
      o[6] = B<T>::get(tile.shfl_down(v, N / 2));
      o[7] = B<T>::get(tile.shfl_xor(v, 1));
      o[8] = B<T>::get(tile.shfl_xor(v, N - 1));
      o[9] = B<T>::get(__shfl_sync(tm, v, (int)(base + ((lane + 1) & (N - 1)))));
      o[10] = B<T>::get(__shfl_xor_sync(tm, v, (int)((y >> 12) & (N - 1))));
      o[11] = B<T>::get(__shfl_down_sync(tm, v, (y >> 8) % N, N));
    }
  };
};

#define SHFL_KERNEL(NAME, T)                                                                   \
  extern "C" __global__ void tiles_shfl_##NAME(const unsigned *in, typename B<T>::U *out) {    \
    typename B<T>::U *o = slots(out, 5 * SHFL_PER);                                            \
    T v = value<T>(in);                                                                        \
    unsigned y = in[2 * threadIdx.x + 1] ^ (in[2 * threadIdx.x] >> 7);                         \
    for_tiles<Shfl<T>::template At, SHFL_PER>(o, v, y);                                        \
  }
SHFL_KERNEL(int, int)
SHFL_KERNEL(uint, unsigned)
SHFL_KERNEL(ll, long long)
SHFL_KERNEL(ull, unsigned long long)
SHFL_KERNEL(float, float)
SHFL_KERNEL(double, double)
SHFL_KERNEL(half, __half)
SHFL_KERNEL(bf16, __nv_bfloat16)

// ---------------------------------------------------------------- votes and match
#define VOTE_PER 18
template <int N> struct Vote {
  static __device__ __forceinline__ void run(unsigned *o, unsigned x) {
    auto tile = cg::tiled_partition<N>(cg::this_thread_block());
    unsigned tm = tile_mask<N>(), am = tm & warp_pop(), grp = threadIdx.x / N;
    bool p_any = (x & 0x3fu) == 0;                      // rare: any() is mostly false in small tiles
    bool p_all = (x & 0x30u) != 0 || grp % 3 == 0;      // common, and always true in every third tile
    if (tile_full<N>()) {
      asm volatile("// tiles_vote: complete tile");
      int p = 0;
      o[0] = tile.any(p_any);
      o[1] = tile.all(p_all);
      o[2] = tile.ballot(x & 1);
      o[3] = tile.match_any(x & 3);
      o[4] = tile.match_any(((unsigned long long)(x & 4) << 38) | ((x >> 1) & 1));
      o[5] = tile.match_all(grp % 3 == 1 ? 7u : (x >> 5) & 1, p);
      o[6] = (unsigned)p;
      o[7] = tile.match_all(grp % 3 == 2 ? 0x1234567800000000ull : (unsigned long long)((x >> 6) & 1) << 33, p);
      o[8] = (unsigned)p;
      o[9] = tile.thread_rank() | tile.meta_group_rank() << 8 | tile.num_threads() << 16;
      o[10] = __activemask();
    }
    int q = 0;
    o[11] = __ballot_sync(am, x & 2);
    o[12] = (unsigned)__any_sync(am, p_any);
    o[13] = (unsigned)__all_sync(am, p_all);
    o[14] = __match_any_sync(am, x & 1);
    o[15] = __match_all_sync(am, grp & 1 ? (x >> 7) & 1 : grp, &q);
    o[16] = (unsigned)q;
    o[17] = __activemask();
  }
};

extern "C" __global__ void tiles_vote(const unsigned *in, unsigned *out) {
  unsigned *o = slots(out, 5 * VOTE_PER);
  unsigned x = in[2 * threadIdx.x];
  for_tiles<Vote, VOTE_PER>(o, x);
}

// ---------------------------------------------------------------- reductions
#define RED32_PER 12
template <typename T> struct Red32 {
  template <int N> struct At {
    static __device__ __forceinline__ void run(unsigned *o, T v) {
      auto tile = cg::tiled_partition<N>(cg::this_thread_block());
      unsigned am = tile_mask<N>() & warp_pop();
      if (tile_full<N>()) {
        asm volatile("// tiles_reduce: complete tile");
        o[0] = (unsigned)cg::reduce(tile, v, cg::plus<T>());
        o[1] = (unsigned)cg::reduce(tile, v, cg::less<T>());
        o[2] = (unsigned)cg::reduce(tile, v, cg::greater<T>());
        o[3] = (unsigned)cg::reduce(tile, v, cg::bit_and<T>());
        o[4] = (unsigned)cg::reduce(tile, v, cg::bit_or<T>());
        o[5] = (unsigned)cg::reduce(tile, v, cg::bit_xor<T>());
      }
      o[6] = (unsigned)__reduce_add_sync(am, v);
      o[7] = (unsigned)__reduce_min_sync(am, v);
      o[8] = (unsigned)__reduce_max_sync(am, v);
      o[9] = __reduce_and_sync(am, (unsigned)v | 0x01010101u);
      o[10] = __reduce_or_sync(am, (unsigned)v & 0x10101010u);
      o[11] = __reduce_xor_sync(am, (unsigned)v);
    }
  };
};

// int: 25-bit signed values, so no sum of 32 overflows; unsigned: full 32-bit values (sums wrap).
extern "C" __global__ void tiles_reduce_int(const unsigned *in, unsigned *out) {
  unsigned *o = slots(out, 5 * RED32_PER);
  int v = (int)in[2 * threadIdx.x] >> 7;
  for_tiles<Red32<int>::At, RED32_PER>(o, v);
}
extern "C" __global__ void tiles_reduce_uint(const unsigned *in, unsigned *out) {
  unsigned *o = slots(out, 5 * RED32_PER);
  unsigned v = in[2 * threadIdx.x];
  for_tiles<Red32<unsigned>::At, RED32_PER>(o, v);
}

template <typename T, bool BITS> struct RedWide {
  template <int N> struct At {
    static __device__ __forceinline__ void run(typename B<T>::U *o, T v) {
      auto tile = cg::tiled_partition<N>(cg::this_thread_block());
      if (!tile_full<N>()) return;
      o[0] = B<T>::get(cg::reduce(tile, v, cg::plus<T>()));
      o[1] = B<T>::get(cg::reduce(tile, v, cg::less<T>()));
      o[2] = B<T>::get(cg::reduce(tile, v, cg::greater<T>()));
      if constexpr (BITS) {
        o[3] = B<T>::get(cg::reduce(tile, v, cg::bit_and<T>()));
        o[4] = B<T>::get(cg::reduce(tile, v, cg::bit_or<T>()));
        o[5] = B<T>::get(cg::reduce(tile, v, cg::bit_xor<T>()));
      }
    }
  };
};

#define RED_KERNEL(NAME, T, BITS, PER, MKV)                                                   \
  extern "C" __global__ void tiles_reduce_##NAME(const unsigned *in, typename B<T>::U *out) { \
    typename B<T>::U *o = slots(out, 5 * (PER));                                              \
    T v = MKV;                                                                                \
    for_tiles<RedWide<T, BITS>::template At, PER>(o, v);                                      \
  }
// long long: 57-bit signed values (no sum of 32 overflows)
RED_KERNEL(ll, long long, true, 6, value<long long>(in) >> 7)
RED_KERNEL(ull, unsigned long long, true, 6, value<unsigned long long>(in))
RED_KERNEL(float, float, false, 3, value<float>(in))
RED_KERNEL(double, double, false, 3, value<double>(in))

// ---------------------------------------------------------------- scans
#define SCAN_PER 6
template <typename T> struct Scan {
  template <int N> struct At {
    static __device__ __forceinline__ void run(typename B<T>::U *o, T v) {
      auto tile = cg::tiled_partition<N>(cg::this_thread_block());
      if (!tile_full<N>()) return;
      o[0] = B<T>::get(cg::inclusive_scan(tile, v));
      o[1] = B<T>::get(cg::exclusive_scan(tile, v));
      o[2] = B<T>::get(cg::inclusive_scan(tile, v, cg::less<T>()));
      o[3] = B<T>::get(cg::exclusive_scan(tile, v, cg::less<T>()));
      o[4] = B<T>::get(cg::inclusive_scan(tile, v, cg::greater<T>()));
      o[5] = B<T>::get(cg::exclusive_scan(tile, v, cg::greater<T>()));
    }
  };
};

#define SCAN_KERNEL(NAME, T, MKV)                                                           \
  extern "C" __global__ void tiles_scan_##NAME(const unsigned *in, typename B<T>::U *out) { \
    typename B<T>::U *o = slots(out, 5 * SCAN_PER);                                         \
    T v = MKV;                                                                              \
    for_tiles<Scan<T>::template At, SCAN_PER>(o, v);                                        \
  }
SCAN_KERNEL(int, int, (int)in[2 * threadIdx.x] >> 7)
SCAN_KERNEL(uint, unsigned, in[2 * threadIdx.x])
SCAN_KERNEL(ll, long long, value<long long>(in) >> 7)
SCAN_KERNEL(float, float, value<float>(in))
SCAN_KERNEL(double, double, value<double>(in))

// ---------------------------------------------------------------- tile.sync / __syncwarp(mask)
// Per tile size (4 slots): write s[t], tile.sync(), read the next rank's word; odd tiles then run a path with
// its own __syncwarp(tm) exchange while even tiles run another (different membermasks at different pcs).
#define SYNC_PER 4
template <int N> struct Sync {
  static __device__ __forceinline__ void run(unsigned *o, unsigned x, unsigned *s) {
    auto tile = cg::tiled_partition<N>(cg::this_thread_block());
    if (!tile_full<N>()) return;
    unsigned base = threadIdx.x & ~(unsigned)(N - 1), r = tile.thread_rank(), tm = tile_mask<N>();
    s[threadIdx.x] = x * N;
    tile.sync();
    o[0] = s[base + ((r + 1) & (N - 1))];
    tile.sync();
    if (tile.meta_group_rank() & 1) {
      asm volatile("// tiles_sync: odd tiles begin");
      s[threadIdx.x] = x ^ 0x5555u;
      __syncwarp(tm);
      o[1] = s[base + ((r + N - 1) & (N - 1))];
      __syncwarp(tm);
      s[threadIdx.x] = o[1] + r;
      __syncwarp(tm);
      o[2] = s[base + (r ^ (N - 1))];
      asm volatile("// tiles_sync: odd tiles end");
    } else {
      asm volatile("// tiles_sync: even tiles begin");
      s[threadIdx.x] = x + 77u;
      tile.sync();
      o[1] = s[base + (N - 1 - r)];
      asm volatile("// tiles_sync: even tiles end");
    }
    tile.sync();
    o[3] = s[base + ((r + 2) & (N - 1))];
    tile.sync();
  }
};

extern "C" __global__ void tiles_sync(const unsigned *in, unsigned *out) {
  __shared__ unsigned s[1024];
  unsigned *o = slots(out, 5 * SYNC_PER);
  unsigned x = in[2 * threadIdx.x];
  for_tiles<Sync, SYNC_PER>(o, x, s);
}

// ---------------------------------------------------------------- divergent code
// Slots:
//   0..5   complete 16-lane tiles: lanes < 16 reduce(plus int), reduce(plus float), ballot(x&1),
//          shfl(v, 5), inclusive_scan(v), match_any(x&3); lanes >= 16 reduce(greater int),
//          reduce(less float), any(x&3 == 0), shfl_down(v, 3), exclusive_scan(v), match_any(x&1)
//   6..20  only odd tiles of 4 (6..10), 8 (11..15), 16 (16..20): reduce(plus int), ballot(x&2),
//          match_any(x&1), shfl(v, 0), inclusive_scan(v)
//   21..39 `if (x & 1)`: g = coalesced_threads(): size, thread_rank, reduce(plus int) [redux],
//          reduce(plus float), shfl(v, 0), shfl(v, size-1), ballot(x&2), any(x&4), all(x&8 == 0),
//          inclusive_scan(v), exclusive_scan(v); lp = labeled_partition(g, (x>>1)&3): size,
//          thread_rank | meta_group_rank<<8 | meta_group_size<<16, reduce(plus int), reduce(less int),
//          shfl(v, 0); bp = binary_partition(g, x&4): size, rank|meta<<8|metasize<<16, reduce(plus int)
//   21..32 else: g = coalesced_threads(): size, thread_rank, reduce(greater int), reduce(plus float),
//          shfl(v, 1 % size), ballot(x&2), inclusive_scan(v); lp = labeled_partition(g, (x>>4)%3):
//          size, rank|meta<<8|metasize<<16, reduce(plus int), reduce(bit_xor unsigned), inclusive_scan(v)
//   40     __activemask() after the branches (converged again)
#define DIV_SLOTS 41
template <int N> static __device__ __forceinline__ void odd_tiles(unsigned *o, int v, unsigned x) {
  auto tile = cg::tiled_partition<N>(cg::this_thread_block());
  if (tile_full<N>() && (tile.meta_group_rank() & 1)) {
    asm volatile("// tiles_divergent: odd tile begin");
    o[0] = (unsigned)cg::reduce(tile, v, cg::plus<int>());
    o[1] = tile.ballot(x & 2);
    o[2] = tile.match_any(x & 1);
    o[3] = (unsigned)tile.shfl(v, 0);
    o[4] = (unsigned)cg::inclusive_scan(tile, v);
    asm volatile("// tiles_divergent: odd tile end");
  }
}

// The `x & 1` branch of tiles_divergent: coalesced_threads() and its partitions. BP adds slot 39,
// cg::reduce over binary_partition(g, x & 4), which only tiles_bp_reduce runs (known_differences.txt).
template <bool BP>
static __device__ __forceinline__ void odd_branch(unsigned *o, int v, float f, unsigned x) {
  asm volatile("// tiles_divergent: x & 1 begin");
  cg::coalesced_group g = cg::coalesced_threads();
  o[21] = g.size();
  o[22] = g.thread_rank();
  o[23] = (unsigned)cg::reduce(g, v, cg::plus<int>());
  o[24] = __float_as_uint(cg::reduce(g, f, cg::plus<float>()));
  o[25] = (unsigned)g.shfl(v, 0);
  o[26] = (unsigned)g.shfl(v, g.size() - 1);
  o[27] = g.ballot(x & 2);
  o[28] = (unsigned)g.any(x & 4);
  o[29] = (unsigned)g.all((x & 8) == 0);
  o[30] = (unsigned)cg::inclusive_scan(g, v);
  o[31] = (unsigned)cg::exclusive_scan(g, v);
  cg::coalesced_group lp = cg::labeled_partition(g, (int)((x >> 1) & 3));
  o[32] = lp.size();
  o[33] = lp.thread_rank() | lp.meta_group_rank() << 8 | lp.meta_group_size() << 16;
  o[34] = (unsigned)cg::reduce(lp, v, cg::plus<int>());
  o[35] = (unsigned)cg::reduce(lp, v, cg::less<int>());
  o[36] = (unsigned)lp.shfl(v, 0);
  cg::coalesced_group bp = cg::binary_partition(g, (x & 4) != 0);
  o[37] = bp.size();
  o[38] = bp.thread_rank() | bp.meta_group_rank() << 8 | bp.meta_group_size() << 16;
  if (BP) o[39] = (unsigned)cg::reduce(bp, v, cg::plus<int>());
  asm volatile("// tiles_divergent: x & 1 end");
}

extern "C" __global__ void tiles_divergent(const unsigned *in, unsigned *out) {
  unsigned *o = slots(out, DIV_SLOTS);
  unsigned x = in[2 * threadIdx.x];
  int v = (int)x >> 7;
  float f = value<float>(in);
  cg::thread_block blk = cg::this_thread_block();
  auto t16 = cg::tiled_partition<16>(blk);
  if (tile_full<16>()) {
    if (lane_id() < 16) {
      asm volatile("// tiles_divergent: low half begin");
      o[0] = (unsigned)cg::reduce(t16, v, cg::plus<int>());
      o[1] = __float_as_uint(cg::reduce(t16, f, cg::plus<float>()));
      o[2] = t16.ballot(x & 1);
      o[3] = (unsigned)t16.shfl(v, 5);
      o[4] = (unsigned)cg::inclusive_scan(t16, v);
      o[5] = t16.match_any(x & 3);
      asm volatile("// tiles_divergent: low half end");
    } else {
      asm volatile("// tiles_divergent: high half begin");
      o[0] = (unsigned)cg::reduce(t16, v, cg::greater<int>());
      o[1] = __float_as_uint(cg::reduce(t16, f, cg::less<float>()));
      o[2] = (unsigned)t16.any((x & 3) == 0);
      o[3] = (unsigned)t16.shfl_down(v, 3);
      o[4] = (unsigned)cg::exclusive_scan(t16, v);
      o[5] = t16.match_any(x & 1);
      asm volatile("// tiles_divergent: high half end");
    }
  }
  odd_tiles<4>(o + 6, v, x);
  odd_tiles<8>(o + 11, v, x);
  odd_tiles<16>(o + 16, v, x);

  if (x & 1) {
    odd_branch<false>(o, v, f, x);
  } else {
    asm volatile("// tiles_divergent: !(x & 1) begin");
    cg::coalesced_group g = cg::coalesced_threads();
    o[21] = g.size();
    o[22] = g.thread_rank();
    o[23] = (unsigned)cg::reduce(g, v, cg::greater<int>());
    o[24] = __float_as_uint(cg::reduce(g, f, cg::plus<float>()));
    o[25] = (unsigned)g.shfl(v, 1 % g.size());
    o[26] = g.ballot(x & 2);
    o[27] = (unsigned)cg::inclusive_scan(g, v);
    cg::coalesced_group lp = cg::labeled_partition(g, (int)((x >> 4) % 3));
    o[28] = lp.size();
    o[29] = lp.thread_rank() | lp.meta_group_rank() << 8 | lp.meta_group_size() << 16;
    o[30] = (unsigned)cg::reduce(lp, v, cg::plus<int>());
    o[31] = cg::reduce(lp, x, cg::bit_xor<unsigned>());
    o[32] = (unsigned)cg::inclusive_scan(lp, v);
    asm volatile("// tiles_divergent: !(x & 1) end");
  }
  o[40] = __activemask();
}

// ---------------------------------------------------------------- binary_partition reduce after a branch
// tiles_divergent's `x & 1` branch plus slot 39: cg::reduce over binary_partition(coalesced_threads(), x & 4).
// Each lane's redux.sync carries its own partition's mask and the PTX ISA defines one sum per mask; after
// this branch's collectives ptxas (sm_90) drops the WARPSYNC.EXCLUSIVE before REDUX (it proves each
// partition mask a subset of the group mask it has just synchronised) and the H100 returns the whole
// group's sum to every lane. A smaller kernel with only the partition keeps per-mask sums on the GPU.
// Slots as tiles_divergent's (DIV_SLOTS, 21..39 written).
extern "C" __global__ void tiles_bp_reduce(const unsigned *in, unsigned *out) {
  unsigned *o = slots(out, DIV_SLOTS);
  unsigned x = in[2 * threadIdx.x];
  int v = (int)x >> 7;
  float f = value<float>(in);
  if (x & 1) odd_branch<true>(o, v, f, x);
}

// ---------------------------------------------------------------- partitions in converged code
// Slots: 0..6 lp = labeled_partition(warp tile, x % 5), 7..13 bp = binary_partition(warp tile, x & 8),
// 14..20 labeled_partition(tile of 8, x & 3), each: size, rank|meta<<8|metasize<<16, reduce(plus int)
// [redux], reduce(plus float), shfl(v, size-1), inclusive_scan(v), ballot(x&1) (complete warps / tiles only);
// 21..27 the same on labeled_partition(coalesced_threads(), x % 3) (any warp, partial ones too).
#define PART_SLOTS 28
static __device__ __forceinline__ void part_ops(unsigned *o, const cg::coalesced_group &g, int v, float f,
                                                unsigned x) {
  o[0] = g.size();
  o[1] = g.thread_rank() | g.meta_group_rank() << 8 | g.meta_group_size() << 16;
  o[2] = (unsigned)cg::reduce(g, v, cg::plus<int>());
  o[3] = __float_as_uint(cg::reduce(g, f, cg::plus<float>()));
  o[4] = (unsigned)g.shfl(v, g.size() - 1);
  o[5] = (unsigned)cg::inclusive_scan(g, v);
  o[6] = g.ballot(x & 1);
}

extern "C" __global__ void tiles_partition(const unsigned *in, unsigned *out) {
  unsigned *o = slots(out, PART_SLOTS);
  unsigned x = in[2 * threadIdx.x];
  int v = (int)x >> 7;
  float f = value<float>(in);
  cg::thread_block blk = cg::this_thread_block();
  if (tile_full<32>()) {
    auto w = cg::tiled_partition<32>(blk);
    part_ops(o + 0, cg::labeled_partition(w, (int)(x % 5)), v, f, x);
    part_ops(o + 7, cg::binary_partition(w, (x & 8) != 0), v, f, x);
  }
  auto t8 = cg::tiled_partition<8>(blk);
  if (tile_full<8>()) part_ops(o + 14, cg::labeled_partition(t8, (int)(x & 3)), v, f, x);
  part_ops(o + 21, cg::labeled_partition(cg::coalesced_threads(), (int)(x % 3)), v, f, x);
}

// ---------------------------------------------------------------- elect / invoke_one
// Per tile size (4 slots): 0 the lane invoke_one ran on (only that lane writes: others keep SENT),
// 1 invoke_one_broadcast returning the elected lane's x, 2 inline elect.sync(tm): elected lane,
// 3 its predicate (sm_90; 0xfeedface on sm_80). Slots 20, 21: in `if (x & 1)`, invoke_one_broadcast on
// coalesced_threads() of x and of the lane; 22: __activemask() there.
#define ELECT_PER 4
template <int N> struct Elect {
  static __device__ __forceinline__ void run(unsigned *o, unsigned x) {
    auto tile = cg::tiled_partition<N>(cg::this_thread_block());
    if (!tile_full<N>()) return;
    unsigned lane = lane_id(), tm = tile_mask<N>();
    cg::invoke_one(tile, [&] { o[0] = lane; });
    o[1] = cg::invoke_one_broadcast(tile, [&] { return x; });
#if __CUDA_ARCH__ >= 900
    unsigned l, p;
    asm volatile("{ .reg .pred q; elect.sync %0|q, %2; selp.u32 %1, 1, 0, q; }" : "=r"(l), "=r"(p) : "r"(tm));
    o[2] = l;
    o[3] = p;
#else
    (void)tm;
    o[2] = o[3] = 0xfeedfaceu;
#endif
  }
};

extern "C" __global__ void tiles_elect(const unsigned *in, unsigned *out) {
  unsigned *o = slots(out, 5 * ELECT_PER + 3);
  unsigned x = in[2 * threadIdx.x];
  for_tiles<Elect, ELECT_PER>(o, x);
  if (x & 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    o[20] = cg::invoke_one_broadcast(g, [&] { return x; });
    o[21] = cg::invoke_one_broadcast(g, [&] { return lane_id(); });
    o[22] = __activemask();
  }
}
