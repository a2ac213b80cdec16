"""Shared memory and cuda.syncthreads(): a block-wise reversal, a tiled matrix product (small
integers in float32, so every sum is exact), a block-wide tree sum, and dynamic shared memory sized
at launch."""
import numpy as np
from numba import cuda, float32, int32

TILE = 16


@cuda.jit
def reverse_blocks(a, out):
    buf = cuda.shared.array(128, dtype=int32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * 128
    buf[t] = a[base + t]
    cuda.syncthreads()
    out[base + t] = buf[127 - t]


@cuda.jit
def matmul(A, B, C):
    sA = cuda.shared.array((TILE, TILE), dtype=float32)
    sB = cuda.shared.array((TILE, TILE), dtype=float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0.0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        k = t * TILE
        sA[tx, ty] = A[x, k + ty] if x < A.shape[0] and k + ty < A.shape[1] else 0
        sB[tx, ty] = B[k + tx, y] if k + tx < B.shape[0] and y < B.shape[1] else 0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = acc


@cuda.jit
def block_sum(a, out):
    s = cuda.shared.array(256, dtype=int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i] if i < a.size else 0
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


@cuda.jit
def rotate_dynamic(a, out, shift):
    buf = cuda.shared.array(0, dtype=float32)    # dynamic: sized by the launch
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    base = cuda.blockIdx.x * n
    buf[t] = a[base + t]
    cuda.syncthreads()
    out[base + t] = buf[(t + shift) % n]


def main():
    a = np.arange(512, dtype=np.int32) * 3 + 1
    out = np.zeros_like(a)
    reverse_blocks[4, 128](a, out)
    print("reverse", out[:4].tolist(), out[126:130].tolist(), out[-3:].tolist())

    A = ((np.arange(45 * 70).reshape(45, 70) * 5 % 9) - 4).astype(np.float32)
    B = ((np.arange(70 * 33).reshape(70, 33) * 3 % 11) - 5).astype(np.float32)
    C = np.zeros((45, 33), dtype=np.float32)
    matmul[(3, 3), (TILE, TILE)](A, B, C)
    print("matmul", C[0, :6].tolist(), C[44, -4:].tolist(), float(np.abs(C).max()))
    print("matmul_sample", C[::7, ::5].ravel().tolist())

    v = (np.arange(10000, dtype=np.int32) * 37) % 1001 - 500
    partial = np.zeros(40, dtype=np.int32)
    block_sum[40, 256](v, partial)
    print("block_sum", partial[:6].tolist(), partial[-2:].tolist(), int(partial.sum()))

    f = np.arange(3 * 96, dtype=np.float32) * np.float32(0.25)
    g = np.zeros_like(f)
    rotate_dynamic[3, 96, 0, 96 * 4](f, g, 5)
    print("dynamic_shared", g[:4].tolist(), g[91:97].tolist(), g[-1])


if __name__ == "__main__":
    main()
