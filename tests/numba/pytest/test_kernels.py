"""What a Numba project's own test suite looks like when its CI runs `warpvm python -m pytest`: ordinary
pytest tests of @cuda.jit kernels, checked against NumPy on the host (exact integer arithmetic)."""
import numpy as np
import pytest
from numba import cuda


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def warp_max(x, out):
    i = cuda.grid(1)
    v = x[i]
    off = 16
    while off > 0:
        v = max(v, cuda.shfl_xor_sync(0xFFFFFFFF, v, off))
        off //= 2
    out[i] = v


def test_device_is_there():
    assert cuda.is_available()
    assert cuda.get_current_device().compute_capability >= (7, 0)


@pytest.mark.parametrize("n", [1, 255, 256, 257, 10000])
def test_axpy(n):
    x = np.arange(n, dtype=np.int64) * 3 - n
    y = np.arange(n, dtype=np.int64) ** 2
    out = np.zeros(n, dtype=np.int64)
    axpy[(n + 255) // 256, 256](7, x, y, out)
    np.testing.assert_array_equal(out, 7 * x + y)


def test_warp_max():
    x = (np.arange(128, dtype=np.int32) * 7919) % 1009
    out = np.zeros_like(x)
    warp_max[2, 64](x, out)
    np.testing.assert_array_equal(out, np.repeat(x.reshape(4, 32).max(axis=1), 32))
