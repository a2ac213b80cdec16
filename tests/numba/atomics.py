"""Atomics on global and shared memory: a histogram (atomic add), atomic max/min, compare-and-swap
as a lock-free counter, a shared-memory histogram merged into global memory, and float atomic adds
of integers (exact in any order)."""
import numpy as np
from numba import cuda, int32, uint32


@cuda.jit
def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i] % bins.size, 1)


@cuda.jit
def extremes(data, result):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.max(result, 0, data[i])
        cuda.atomic.min(result, 1, data[i])


@cuda.jit
def cas_count(counter, tickets):
    i = cuda.grid(1)
    if i < tickets.size:
        while True:
            old = counter[0]
            if cuda.atomic.compare_and_swap(counter, old, old + 1) == old:
                break
        tickets[i] = 1 if old < tickets.size else 0


@cuda.jit
def shared_histogram(data, bins):
    local = cuda.shared.array(16, dtype=uint32)
    t = cuda.threadIdx.x
    if t < 16:
        local[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < data.size:
        cuda.atomic.add(local, data[i] & 15, 1)
        i += stride
    cuda.syncthreads()
    if t < 16:
        cuda.atomic.add(bins, t, local[t])


@cuda.jit
def float_sum(vals, acc):
    i = cuda.grid(1)
    if i < vals.size:
        cuda.atomic.add(acc, i % 4, vals[i])


@cuda.jit
def exchange(slots, order):
    i = cuda.grid(1)
    if i < order.size:
        order[i] = cuda.atomic.exch(slots, 0, i) >= 0   # every thread sees some earlier value


def main():
    data = (np.arange(100000, dtype=np.int64) * 2654435761) % 1000003
    data = data.astype(np.int32)
    bins = np.zeros(64, dtype=np.int32)
    histogram[(data.size + 255) // 256, 256](data, bins)
    print("histogram", bins[:8].tolist(), int(bins.sum()), int(bins.max()), int(bins.min()))

    vals = ((np.arange(5000, dtype=np.int64) * 7919) % 100003 - 50000).astype(np.int32)
    res = np.array([np.iinfo(np.int32).min, np.iinfo(np.int32).max], dtype=np.int32)
    extremes[20, 256](vals, res)
    print("max_min", res.tolist())

    counter = np.zeros(1, dtype=np.int32)
    tickets = np.zeros(3000, dtype=np.int32)
    cas_count[12, 256](counter, tickets)
    print("cas", int(counter[0]), int(tickets.sum()))

    small = (np.arange(50000, dtype=np.int64) * 48271 % 2147483647).astype(np.int32)
    sb = np.zeros(16, dtype=np.uint32)
    shared_histogram[8, 128](small, sb)
    print("shared_histogram", sb.tolist(), int(sb.sum()))

    fv = (np.arange(4096) % 97 - 48).astype(np.float32)
    acc = np.zeros(4, dtype=np.float32)
    float_sum[16, 256](fv, acc)
    print("float_atomic", acc.tolist())

    slots = np.zeros(1, dtype=np.int32)
    order = np.zeros(1024, dtype=np.int32)
    exchange[4, 256](slots, order)
    print("exch", int(order.sum()), 0 <= int(slots[0]) < 1024)


if __name__ == "__main__":
    main()
