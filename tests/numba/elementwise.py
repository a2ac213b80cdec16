"""Elementwise kernels: 1D and 2D grids, grid-stride loops, several dtypes, device arrays and host
arrays, a CUDA ufunc (@vectorize). Every value printed is an integer or an exactly representable float."""
import numpy as np
from numba import cuda, vectorize


@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit
def saxpy(alpha, x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.size, stride):   # grid-stride loop
        out[i] = alpha * x[i] + y[i]


@cuda.jit
def index_2d(out):
    x, y = cuda.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = x * 1000 + y + cuda.blockIdx.x * 10000000


@cuda.jit
def mixed(i64, u8, f64, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = f64[i] * 0.25 + (i64[i] >> 3) - u8[i]


@vectorize(["int32(int32, int32)", "float64(float64, float64)"], target="cuda")
def clamp_diff(a, b):
    d = a - b
    return d if d > 0 else -d


def main():
    n = 1000
    a = np.arange(n, dtype=np.int32)
    b = (np.arange(n, dtype=np.int32) * 7) % 13
    out = np.zeros(n, dtype=np.int32)
    add[(n + 255) // 256, 256](a, b, out)
    print("add", out[:8].tolist(), out[-4:].tolist(), int(out.sum()))

    x = (np.arange(4096, dtype=np.float32) - 2048) * np.float32(0.5)
    y = np.arange(4096, dtype=np.float32) * np.float32(0.125)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    dout = cuda.device_array_like(x)
    saxpy[7, 64](np.float32(3.0), dx, dy, dout)      # 448 threads walk 4096 elements
    s = dout.copy_to_host()
    print("saxpy", s[:4].tolist(), s[2048:2052].tolist(), s[-2:].tolist(), float(s.astype(np.float64).sum()))

    m = np.zeros((37, 53), dtype=np.int64)
    index_2d[(3, 4), (16, 16)](m)
    print("index_2d", m[0, :3].tolist(), m[36, 50:].tolist(), m[17, 17], int(m.sum()))

    i64 = np.arange(300, dtype=np.int64) * 1000003 - 150000000
    u8 = (np.arange(300) % 256).astype(np.uint8)
    f64 = np.arange(300, dtype=np.float64) * 3.0
    o = np.zeros(300, dtype=np.float64)
    mixed[2, 160](i64, u8, f64, o)
    print("mixed", o[:3].tolist(), o[150:153].tolist(), o[-1], float(o.sum()))

    p = np.arange(20, dtype=np.int32) * 3
    q = np.full(20, 25, dtype=np.int32)
    print("vectorize int32", clamp_diff(p, q).tolist())
    print("vectorize float64", clamp_diff(p.astype(np.float64) * 0.5, q.astype(np.float64)).tolist()[:6])


if __name__ == "__main__":
    main()
