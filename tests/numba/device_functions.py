"""Device functions (@cuda.jit(device=True)): called from kernels and from each other, returning
tuples, with an explicit signature, and inlined; math with exact results (integer division and
modulo of negative numbers, sqrt of squares, floor/ceil, fma of small values, bit operations);
print() from the device."""
import math

import numpy as np
from numba import cuda, float64, int64


@cuda.jit(device=True)
def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


@cuda.jit(device=True)
def divmod_py(a, b):
    return a // b, a % b                     # Python's floor semantics, not C's


@cuda.jit(int64(int64), device=True)
def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@cuda.jit(device=True, inline="always")
def hypot_int(x, y):
    return math.sqrt(float64(x * x + y * y))


@cuda.jit
def kernel(xs, ys, out):
    i = cuda.grid(1)
    if i < xs.size:
        x, y = xs[i], ys[i]
        q, r = divmod_py(x, y)
        out[i, 0] = gcd(abs(x), abs(y))
        out[i, 1] = q
        out[i, 2] = r
        out[i, 3] = collatz_steps(abs(x) + 1)
        out[i, 4] = (x ^ y) & 0xFF | (x << 3) >> 1


@cuda.jit
def exact_math(v, out):
    i = cuda.grid(1)
    if i < v.size:
        x = v[i]
        out[i, 0] = math.sqrt(x * x)
        out[i, 1] = math.floor(x / 4.0)
        out[i, 2] = math.ceil(x / 4.0)
        out[i, 3] = math.fabs(x - 50.0)
        out[i, 4] = cuda.fma(x, 0.5, 0.25)
        out[i, 5] = hypot_int(3 * int64(x), 4 * int64(x))


@cuda.jit
def hello(n):
    i = cuda.grid(1)
    if i == 0:
        print("hello from the device:", n, n * 2)


def main():
    xs = ((np.arange(40, dtype=np.int64) * 7919) % 211) - 105
    ys = ((np.arange(40, dtype=np.int64) * 104729) % 37) - 18
    ys[ys == 0] = 7
    out = np.zeros((40, 5), dtype=np.int64)
    kernel[2, 32](xs, ys, out)
    for row in (0, 1, 13, 39):
        print("ints", xs[row], ys[row], out[row].tolist())
    print("ints_total", out.sum(axis=0).tolist())

    v = np.arange(0, 100, 3, dtype=np.float64)
    m = np.zeros((v.size, 6), dtype=np.float64)
    exact_math[1, 64](v, m)
    print("math", m[1].tolist(), m[17].tolist(), m.sum(axis=0).tolist())

    hello[1, 32](21)
    cuda.synchronize()


if __name__ == "__main__":
    main()
