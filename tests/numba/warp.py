"""Warp-level primitives: shuffles (cuda.shfl_sync, shfl_up_sync, shfl_down_sync, shfl_xor_sync) in a
warp reduction, an inclusive scan and a butterfly exchange; votes (ballot_sync, all_sync, any_sync)
on full and partial masks, with divergent lanes; syncwarp, activemask, lanemask_lt, popc, ffs."""
import numpy as np
from numba import cuda, int32, uint32

FULL = 0xFFFFFFFF


@cuda.jit
def warp_sum(a, out):
    i = cuda.grid(1)
    v = a[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL, v, off)
        off //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


@cuda.jit
def warp_scan(a, out):
    i = cuda.grid(1)
    v = a[i]
    lane = cuda.laneid
    off = 1
    while off < 32:
        n = cuda.shfl_up_sync(FULL, v, off)
        if lane >= off:
            v += n
        off *= 2
    out[i] = v


@cuda.jit
def butterfly(a, out):
    i = cuda.grid(1)
    v = a[i]
    out[i, 0] = cuda.shfl_xor_sync(FULL, v, 1)
    out[i, 1] = cuda.shfl_xor_sync(FULL, v, 16)
    out[i, 2] = cuda.shfl_sync(FULL, v, 7)               # broadcast lane 7
    out[i, 3] = cuda.shfl_sync(FULL, v, (cuda.laneid * 5) % 32)


@cuda.jit
def votes(a, out):
    i = cuda.grid(1)
    v = a[i]
    out[i, 0] = cuda.ballot_sync(FULL, v > 50)
    out[i, 1] = cuda.all_sync(FULL, v >= 0)
    out[i, 2] = cuda.any_sync(FULL, v == 77)
    out[i, 3] = cuda.popc(cuda.ballot_sync(FULL, v % 3 == 0))
    out[i, 4] = cuda.ffs(cuda.ballot_sync(FULL, v % 7 == 6))


@cuda.jit
def divergent(a, out):
    i = cuda.grid(1)
    lane = cuda.laneid
    v = a[i]
    if lane % 2 == 0:                                    # even lanes only
        out[i, 0] = cuda.activemask()
        out[i, 1] = cuda.ballot_sync(uint32(0x55555555), v > 40)
        w = cuda.shfl_sync(uint32(0x55555555), v, lane ^ 2)
    else:
        out[i, 0] = cuda.activemask()
        out[i, 1] = cuda.popc(cuda.ballot_sync(uint32(0xAAAAAAAA), v < 60))
        w = int32(cuda.lanemask_lt() & 0xFFFF)
    out[i, 2] = w
    cuda.syncwarp()
    out[i, 3] = cuda.shfl_sync(FULL, w, 31 - lane)


def main():
    a = ((np.arange(256, dtype=np.int32) * 37) % 101) - 20
    s = np.zeros(8, dtype=np.int32)
    warp_sum[2, 128](a, s)
    print("warp_sum", s.tolist())

    sc = np.zeros(256, dtype=np.int32)
    warp_scan[2, 128](a, sc)
    print("warp_scan", sc[:8].tolist(), sc[28:36].tolist(), sc[-1])

    b = np.zeros((64, 4), dtype=np.int32)
    butterfly[1, 64](a[:64].copy(), b)
    print("butterfly", b[:4].tolist(), b[33].tolist())

    va = (np.arange(64, dtype=np.int32) * 29) % 100
    vo = np.zeros((64, 5), dtype=np.uint32)
    votes[1, 64](va, vo)
    print("votes", vo[0].tolist(), vo[32].tolist(), vo[63].tolist())

    d = np.zeros((64, 4), dtype=np.int64)
    divergent[1, 64](va, d)
    print("divergent", d[0].tolist(), d[1].tolist(), d[30].tolist(), d[63].tolist())


if __name__ == "__main__":
    main()
