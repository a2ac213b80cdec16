// printf.cu — device printf: conversions, flags, widths, precisions, length modifiers, many arguments,
// special floating values, from several warps and blocks and from divergent code. Every line starts with
// an identifying tag, so the lines can be compared as a sorted multiset (warps may print in any order).
// No %p and no %n: pointer values differ between machines.
#include "wv_compat.h"

__constant__ char wv_words[4][8] = {"alpha", "beta", "gamma", "delta"};

// One line of each kind per thread; run with several blocks and a partial warp.
extern "C" __global__ void printf_threads(const unsigned *in) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t];
  int s = (int)x >> 7;
  printf("T%u b=%d t=%d d=%d i=%i u=%u x=%x X=%X o=%o c=%c\n", t, blockIdx.x, threadIdx.x, s, -s, x, x, x, x & 0777,
         'A' + (int)(x % 26));
  float f = (float)(int)(x & 0xfffff) / 1024.0f - 512.0f;
  printf("F%u f=%f e=%e g=%g .3f=%.3f 12.4e=%12.4e s=%s\n", t, f, f, f, f, f, wv_words[x & 3]);
  if (threadIdx.x % 5 == 2)
    printf("D%u divergent lane=%u\n", t, threadIdx.x & 31);
}

// Formats from one thread.
extern "C" __global__ void printf_formats(int i, unsigned u, long long ll, double d, float f) {
  printf("ints [%d] [%5d] [%-5d] [%05d] [%+d] [% d] [%+05d] [%.3d] [%8.3d]\n", i, i, i, i, i, i, i, i, i);
  printf("neg [%d] [%5d] [%-6d|] [%06d] [%+d] [% d]\n", -i, -i, -i, -i, -i, -i);
  printf("unsigned [%u] [%x] [%X] [%o] [%#x] [%#X] [%#o] [%08x] [%-10x|] [%.0u]\n", u, u, u, u, u, u, u, u, u, 0u);
  printf("long [%lld] [%lli] [%llu] [%llx] [%llX] [%llo] [%20lld] [%-20lld|]\n", ll, ll, (unsigned long long)ll,
         (unsigned long long)ll, (unsigned long long)ll, (unsigned long long)ll, ll, ll);
  printf("long2 [%ld] [%lu] [%lx] [%hd] [%hu] [%hhd] [%hhu]\n", (long)ll, (unsigned long)ll, (unsigned long)ll,
         (short)i, (unsigned short)u, (signed char)i, (unsigned char)u);
  printf("double [%f] [%e] [%E] [%g] [%G] [%.0f] [%.1f] [%.10f] [%15.6f] [%-15.3e|] [%+.2e] [%#.0f] [%#g]\n", d, d,
         d, d, d, d, d, d, d, d, d, d, d);
  printf("float [%f] [%e] [%g] [%a] [%A] [%.3a]\n", f, f, f, f, f, f);
  printf("smallbig [%g] [%g] [%g] [%g] [%e] [%f] [%g]\n", 1e-5, 1e-4, 123456.0, 1234567.0, 1e300, 1e-300,
         5e-324);
  printf("chars [%c%c%c] [%5c] [%-5c|] [%%] [%s] [%10s] [%-10s|] [%.3s] [%7.2s]\n", 'x', 'y', 'z', 'q', 'r', "str",
         "right", "left", "truncate", "ab");
  printf("many %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
         16);
  printf("mixed %d %f %s %lld %c %u %e %x %g\n", i, d, "mid", ll, 'm', u, (double)f, u, d * 2);
  printf("no args at all\n");
  printf("");
  printf("two\nlines\n");
  printf("no newline at the end");
  printf("|after\n");
}

// IEEE specials through printf, from a table indexed by the thread (run with 24 threads).
__constant__ unsigned wv_pf_bits[24] = {0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0x7f800001u, 0x7f800000u, 0xff800000u,
                                        0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu,
                                        0x3f800000u, 0xbf800000u, 0x3eaaaaabu, 0x4b800001u, 0x3f7fffffu, 0x40490fdbu,
                                        0x358637bdu, 0x501502f9u, 0xc2f6e979u, 0x3c23d70au, 0x3dcccccdu, 0x447a0000u};
extern "C" __global__ void printf_specials() {
  unsigned t = threadIdx.x;
  float f = __uint_as_float(wv_pf_bits[t]);
  double d = (double)f;
  printf("S%02u %08x f=[%f] e=[%e] g=[%g] 8.2f=[%8.2f] +f=[%+f] .0e=[%.0e] G=[%G]\n", t, wv_pf_bits[t], d, d, d, d, d,
         d, d);
}
