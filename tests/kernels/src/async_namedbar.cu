// async_namedbar.cu — producer/consumer through named barriers (inline PTX bar.sync / bar.arrive), double
// buffered: barrier 1 + b = "buffer b full", barrier 3 + b = "buffer b empty", each over 128 threads.
//   nb_pc(in, out, rounds), block 128 (+ optional extra warps that only do bar.sync 0 at the end):
//     warps 0-1 (64 producers) for round r, b = r % 2: if r >= 2, bar.sync 3+b, 128 (wait until the
//     consumers emptied it); buf[b][t] = in[r*64 + t] * 3 + r; bar.arrive 1+b, 128.
//     warps 2-3 (64 consumers), c = t - 64: bar.sync 1+b, 128; out[r*64 + c] = buf[b][c] + buf[b][63 - c] * 2;
//     if r + 2 < rounds, bar.arrive 3+b, 128.
#define BAR_SYNC(id, n) asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory")
#define BAR_ARRIVE(id, n) asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory")

extern "C" __global__ void nb_pc(const unsigned *in, unsigned *out, unsigned rounds) {
  __shared__ unsigned buf[2][64];
  unsigned t = threadIdx.x;
  if (t < 64) {
    for (unsigned r = 0; r < rounds; r++) {
      unsigned b = r % 2;
      if (r >= 2) BAR_SYNC(3 + b, 128);
      buf[b][t] = in[r * 64 + t] * 3u + r;
      BAR_ARRIVE(1 + b, 128);
    }
  } else if (t < 128) {
    unsigned c = t - 64;
    for (unsigned r = 0; r < rounds; r++) {
      unsigned b = r % 2;
      BAR_SYNC(1 + b, 128);
      out[r * 64 + c] = buf[b][c] + buf[b][63 - c] * 2u;
      if (r + 2 < rounds) BAR_ARRIVE(3 + b, 128);
    }
  }
}
