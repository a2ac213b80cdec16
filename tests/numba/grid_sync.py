"""Cooperative groups: cuda.cg.this_grid().sync() between phases of one kernel, which Numba launches
cooperatively (every block resident). Each phase reads what other blocks wrote in the phase before, so
a missing grid barrier shows up in the values."""
import numpy as np
from numba import cuda


@cuda.jit
def phases(a, b, steps):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = a.size
    for _ in range(steps):
        if i < n:
            b[i] = a[(i + 97) % n] + a[(n - 1 - i)] // 2    # values written by other blocks
        g.sync()
        if i < n:
            a[i] = b[i] % 1000003
        g.sync()


@cuda.jit
def grid_total(a, partial, total):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    if cuda.threadIdx.x == 0:
        s = 0
        base = cuda.blockIdx.x * cuda.blockDim.x
        for j in range(cuda.blockDim.x):
            s += a[base + j]
        partial[cuda.blockIdx.x] = s
    g.sync()
    if i == 0:
        t = 0
        for j in range(partial.size):
            t += partial[j]
        total[0] = t
    g.sync()
    a[i] = total[0] - a[i]                                 # every thread sees the grand total


def main():
    n = 16 * 128
    a = ((np.arange(n, dtype=np.int64) * 7919) % 10007).astype(np.int64)
    b = np.zeros_like(a)
    phases[16, 128](a, b, 5)
    print("phases", a[:5].tolist(), a[1000:1003].tolist(), a[-2:].tolist(), int(a.sum()))

    v = (np.arange(8 * 64, dtype=np.int64) * 31) % 257
    partial = np.zeros(8, dtype=np.int64)
    total = np.zeros(1, dtype=np.int64)
    grid_total[8, 64](v, partial, total)
    print("grid_total", partial.tolist(), int(total[0]), v[:4].tolist(), v[-1])


if __name__ == "__main__":
    main()
