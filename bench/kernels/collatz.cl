// collatz.cl - collatz.cu in OpenCL C 1.2 for PoCL (bench/suite/pocl.c), line for line (OpenCL C 1.2
// has clz but not ctz: the trailing zeros of x are 31 - clz(x & -x)).
kernel void collatz(global uint *steps, uint first) {
  uint i = get_global_id(0);
  uint x = first + i, s = 0;
  while (x != 1) {
    if (x & 1) {
      x = 3 * x + 1;
      uint z = 31 - clz(x & -x);
      x >>= z;
      s += 1 + z;
    } else {
      x >>= 1;
      s++;
    }
  }
  steps[i] = s;
}
