// collatz.cu - the benchmark's divergent loop (bench/suite/): thread i counts the Collatz steps of
// first + i down to 1 (odd: 3x+1, even: x/2; the odd side does the halvings
// that follow at once), so the lanes of a warp leave the loop at different
// times and take different sides of the branch. u32 arithmetic: starting values below 113383 never
// pass 2^32.
// PTX: nvcc -arch=sm_80 -ptx -O3 collatz.cu -o collatz.ptx
extern "C" __global__ void collatz(unsigned *steps, unsigned first) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = first + i, s = 0;
  while (x != 1) {
    if (x & 1) {
      x = 3 * x + 1;           // then halve it as often as it is even, in one go
      unsigned z = __ffs(x) - 1;
      x >>= z;
      s += 1 + z;
    } else {
      x >>= 1;
      s++;
    }
  }
  steps[i] = s;
}
