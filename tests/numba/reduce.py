"""cuda.reduce: Numba's built-in parallel reduction kernel, on integer sums, float sums of exactly
representable values, max and min, with an initial value, on arrays that take one block and many,
and into a device array (res=)."""
import numpy as np
from numba import cuda


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.reduce
def max_reduce(a, b):
    return a if a > b else b


@cuda.reduce
def min_reduce(a, b):
    return a if a < b else b


def main():
    for n in (1, 31, 1000, 65537, 1 << 20):
        a = ((np.arange(n, dtype=np.int64) * 2654435761) % 1000) - 500
        print("sum_int64", n, int(sum_reduce(a)))

    f = (((np.arange(300000) * 37) % 201) - 100).astype(np.float32) * np.float32(0.5)
    print("sum_float32", float(sum_reduce(f)), float(sum_reduce(f, init=1000.0)))

    i32 = ((np.arange(123457, dtype=np.int64) * 48271) % 2147483647 - 1073741823).astype(np.int32)
    print("max_min_int32", int(max_reduce(i32)), int(min_reduce(i32)))

    d = cuda.to_device(np.arange(5000, dtype=np.float64) * 0.25)
    res = cuda.device_array(1, dtype=np.float64)
    sum_reduce(d, res=res)
    print("device_res", float(res.copy_to_host()[0]))


if __name__ == "__main__":
    main()
