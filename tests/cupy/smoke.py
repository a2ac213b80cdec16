"""CuPy on warpvm, a smoke test: elementwise ufuncs and broadcasting, an ElementwiseKernel, a RawKernel from
CUDA C++ (NVRTC), a RawModule from a PTX file, a ReductionKernel, and CuPy's own reductions and scan. Every
value printed is an integer or an exactly representable float."""
import os
import tempfile

import cupy as cp

PTX = r"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry twice(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  shl.b32 %r2, %r2, 1;
  st.global.u32 [%rd3], %r2;
DONE:
  ret;
}
"""

SQUARE = r"""
extern "C" __global__ void square(const int *a, long long *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = (long long)a[i] * a[i];
}
"""


def main():
    a = cp.arange(1000, dtype=cp.int32)
    b = (a * 7) % 13
    print("ufunc", (a + b)[:6].get().tolist(), int((a * b).sum()), int((a // 7 - b).min()))
    f = cp.arange(64, dtype=cp.float32) * cp.float32(0.5)
    print("float", cp.sqrt(f * f)[:4].get().tolist(), float(cp.floor(f / 3).sum()), float((f - 7.5).max()))
    m = cp.arange(12, dtype=cp.float64).reshape(3, 4)
    print("broadcast", (m * cp.array([1.0, -1.0, 0.5, 2.0]) + cp.arange(3.0)[:, None]).get().tolist())

    axpy = cp.ElementwiseKernel("T x, T y, T a", "T z", "z = a * x + y", "axpy")
    print("elementwise_kernel", axpy(a, b, cp.int32(3))[:5].get().tolist(),
          axpy(f, f, cp.float32(0.25))[-3:].get().tolist())

    square = cp.RawKernel(SQUARE, "square")
    sq = cp.zeros(1000, dtype=cp.int64)
    square((4,), (256,), (a, sq, cp.int32(1000)))
    print("raw_kernel", sq[:5].get().tolist(), int(sq.sum()))

    path = os.path.join(tempfile.mkdtemp(), "twice.ptx")
    with open(path, "w") as fp:
        fp.write(PTX)
    twice = cp.RawModule(path=path).get_function("twice")
    x = cp.arange(100, dtype=cp.int32)
    twice((1,), (128,), (x, cp.uint32(100)))
    print("raw_module_ptx", x[:5].get().tolist(), int(x.sum()))

    mysum = cp.ReductionKernel("int32 x", "int64 y", "x * x", "a + b", "y = a", "0", "sum_of_squares")
    print("reduction_kernel", int(mysum(a)), mysum(a.reshape(10, 100), axis=1)[:3].get().tolist())
    print("reductions", int(a.sum()), int(b.max()), int(cp.argmax(b)), int(cp.argmin(a - 500)),
          float(f.mean()), cp.cumsum(a)[-3:].get().tolist())


if __name__ == "__main__":
    main()
