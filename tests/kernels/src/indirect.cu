// indirect.cu — indirect calls (PTX `call` through a register with a .callprototype), as nvcc emits them
// for C function pointers and C++ virtual functions.
//   ind_table(in, out): tables of function pointers in __device__ and __constant__ memory, indexed by data
//     (so the lanes of a warp call different functions): 2 words per thread,
//     g_ops[in[t] % 5](in[t], t) and c_ops[(in[t] >> 8) % 5](in[t], 7).
//   ind_lanes(in, out): each lane picks one of four callees by a data bit pattern (divergent indirect
//     call; some lanes skip the call). 4 words per thread: the callee's result (its __activemask(),
//     a __reduce_add_sync or a __ballot_sync over the lanes that run it, or a popcount of them), the
//     __activemask() after the call (reconverged), the callee's own index, and a shuffle from the
//     lowest lane that ran the same callee.
//   ind_virtual(in, out, dtors): a polymorphic object per thread made with device `new` (Square, Circle,
//     Triangle: Triangle derives from Square and calls Square's area), virtual area(), a virtual scale()
//     that calls area(), a pointer to member function to the virtual area(), then `delete` through the
//     virtual destructor, which counts each class's destructions in dtors[] (atomicAdd). 4 words per
//     thread (area, scale(1.5), the member-pointer area, the class id); dtors[0..3] after the launch.
//   ind_recurse(in, out): fib(n) through a function pointer that calls itself through the pointer again
//     (recursion through indirect calls), n = in[t] % 13: 1 word per thread.
#include <cuda_runtime.h>

typedef int (*binop)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_xor(int a, int b) { return a ^ b; }
__device__ __noinline__ int op_min(int a, int b) { return a < b ? a : b; }
__device__ binop g_ops[5] = {op_add, op_sub, op_mul, op_xor, op_min};
__constant__ binop c_ops[5] = {op_min, op_xor, op_mul, op_sub, op_add};

extern "C" __global__ void ind_table(const unsigned *in, int *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, v = in[t];
  out[2 * t] = g_ops[v % 5]((int)v, (int)t);
  out[2 * t + 1] = c_ops[(v >> 8) % 5]((int)v, 7);
}

typedef unsigned (*lanefn)(unsigned);
__device__ __noinline__ unsigned lf_mask(unsigned x) { return __activemask(); }
__device__ __noinline__ unsigned lf_sum(unsigned x) { return __reduce_add_sync(__activemask(), x); }
__device__ __noinline__ unsigned lf_ballot(unsigned x) { return __ballot_sync(__activemask(), x & 1); }
__device__ __noinline__ unsigned lf_count(unsigned x) { return __popc(__activemask()) * 1000u + (x & 255u); }
__device__ lanefn g_lanefns[4] = {lf_mask, lf_sum, lf_ballot, lf_count};

extern "C" __global__ void ind_lanes(const unsigned *in, unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, v = in[t], *o = out + 4 * t;
  unsigned pick = (v >> 4) & 3;
  unsigned r = 0xdeadbeefu, src = 0xdeadbeefu;
  if ((v & 7) != 0) { // about 1 lane in 8 skips the call
    r = g_lanefns[pick](v);
    // the lowest lane of this lane's callee group, found with a match over the choice
    unsigned same = __match_any_sync(__activemask(), pick);
    src = __shfl_sync(same, v, __ffs(same) - 1);
  }
  o[0] = r;
  o[1] = __activemask();
  o[2] = (v & 7) != 0 ? pick : 4u;
  o[3] = src;
}

struct Shape {
  int id;
  __device__ explicit Shape(int i) : id(i) {}
  __device__ virtual float area() const = 0;
  __device__ virtual float scale(float k) const { return area() * k; }
  __device__ virtual ~Shape() {}
};
__device__ int *g_dtors;
struct Square : Shape {
  float s;
  __device__ Square(float x, int i = 1) : Shape(i), s(x) {}
  __device__ float area() const override { return s * s; }
  __device__ ~Square() override { atomicAdd(&g_dtors[1], 1); }
};
struct Circle : Shape {
  float r;
  __device__ explicit Circle(float x) : Shape(2), r(x) {}
  __device__ float area() const override { return 3.14159265f * r * r; }
  __device__ float scale(float k) const override { return area() * k + 1.0f; }
  __device__ ~Circle() override { atomicAdd(&g_dtors[2], 1); }
};
struct Triangle : Square {
  __device__ explicit Triangle(float x) : Square(x, 3) {}
  __device__ float area() const override { return Square::area() * 0.5f; }
  __device__ ~Triangle() override { atomicAdd(&g_dtors[3], 1); }
};

extern "C" __global__ void ind_virtual(const unsigned *in, float *out, int *dtors) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, v = in[t];
  if (t == 0) g_dtors = dtors;
  __syncthreads();
  float x = (float)(v & 0xffff) / 256.0f;
  Shape *s;
  switch (v % 3) {
  case 0: s = new Square(x); break;
  case 1: s = new Circle(x); break;
  default: s = new Triangle(x); break;
  }
  float (Shape::*pm)() const = &Shape::area;
  float *o = out + 4 * t;
  o[0] = s->area();
  o[1] = s->scale(1.5f);
  o[2] = (s->*pm)();
  o[3] = (float)s->id;
  atomicAdd(&dtors[0], 1);
  delete s;
}

typedef int (*selffn)(int, const void *);
__device__ __noinline__ int fib_ptr(int n, const void *self) {
  if (n < 2) return n;
  selffn f = (selffn)self;
  return f(n - 1, self) + f(n - 2, self);
}
__device__ selffn g_fib = fib_ptr;

extern "C" __global__ void ind_recurse(const unsigned *in, int *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  selffn f = g_fib;
  out[t] = f((int)(in[t] % 13), (const void *)f);
}
