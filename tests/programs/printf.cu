// printf.cu — device printf: conversions %d %i %u %x %X %o %ld %lld %lu %f %e %E %g %G %s %c %%, flags,
// widths and precisions (also `*`), from one thread and from one full warp (lines in lane order), interleaved
// with the host's own lines at the synchronisation points. Only one warp ever prints at a time.
#include "check.h"

__device__ const char *names[4] = {"zero", "one", "two", "three"};

__global__ void one_thread(int i, unsigned u, long l, long long ll, float f, double d, const char *s) {
  if (blockIdx.x != 1 || threadIdx.x != 3) return;  // one thread of 4 x 64 prints
  printf("ints: %d %i %u %x %X %o\n", i, i, u, u, u, u);
  printf("longs: %ld %lld %lu %llx\n", l, ll, (unsigned long)l, (unsigned long long)ll);
  printf("width: [%6d] [%-6d] [%06d] [%+d] [% d]\n", i, i, i, i, i);
  printf("floats: %f %.2f %10.3f %-10.1f| %e %.3E %g %G\n", f, f, d, d, d, d, f, d);
  printf("more g: %g %g %g %g %.10g\n", 0.0001, 123456789.0, 1e-10, 100.0, d);
  printf("specials: %f %f %e\n", 1.0 / 0.0, -1.0 / 0.0, -0.0);
  printf("strings: [%s] [%10s] [%-10s] [%.3s] %c%c%c %%\n", s, s, s, s, 'w', 'v', 'm');
  printf("table: %s %s %s %s\n", names[0], names[1], names[2], names[3]);
  printf("many: %d %d %d %d %d %d %d %d %d %d %d %d %f %f\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1.5, 2.5);
}

__global__ void one_warp(const int *v) {
  if (blockIdx.x == 2 && threadIdx.x < 32) {  // warp 0 of block 2: lane order
    int lane = threadIdx.x;
    printf("lane %2d: v=%4d hex=%08x frac=%.3f %s\n", lane, v[lane], v[lane] * 2654435761u, v[lane] / 8.0f,
           lane % 2 ? "odd" : "even");
  }
}

int main() {
  begin();
  const char text[] = "cuda";
  char *ds;
  CK(cudaMalloc(&ds, sizeof text));
  CK(cudaMemcpy(ds, text, sizeof text, cudaMemcpyHostToDevice));
  printf("-- one thread\n");
  one_thread<<<4, 64>>>(-42, 3735928559u, -1234567890123L, 0x123456789abcLL, 3.14159274f, -2.718281828459045, ds);
  CK(cudaDeviceSynchronize());
  printf("-- one warp\n");
  int h[32], *dv;
  for (int i = 0; i < 32; i++) h[i] = i * i - 100;
  CK(cudaMalloc(&dv, sizeof h));
  CK(cudaMemcpy(dv, h, sizeof h, cudaMemcpyHostToDevice));
  one_warp<<<3, 96>>>(dv);
  CK(cudaDeviceSynchronize());
  printf("-- done\n");
  CK(cudaFree(ds));
  CK(cudaFree(dv));
  return finish("printf");
}
