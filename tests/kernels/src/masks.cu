// masks.cu — how the GPU forms warp collectives when the lanes that execute one .sync instruction
// together carry different membermasks. Every lane computes a mask by `mode`, optionally inside a
// branch that only some lanes take, and runs redux.sync.add (v = lane + 1), vote.sync.ballot
// (lane & 2), match.any.sync (lane & 8) and shfl.sync.idx (from the mask's lowest lane) with it.
// out[(warp * 32 + lane) * 5 + k]: k = 0 the mask, 1 redux, 2 ballot, 3 match, 4 shfl.
//   mode 0: 16-lane tiles, 0xffff << (lane & 16)           (all lanes)
//   mode 1: a binary partition: the lanes with lane & 4, and the others (masks from a ballot)
//   mode 2: interleaved quarters 0x0f0f0f0f << (lane & 4)
//   mode 3: labels lane % 3 (masks from match.any)
//   mode 4: 8-lane tiles restricted to the lanes present (0xff << (lane & 24)) & activemask
// branch: 0 no branch; 1 only odd lanes run it; 2 only lanes with lane & 2; 3 only lanes < 20.
static __device__ __forceinline__ unsigned laneid() { unsigned l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }

static __device__ __noinline__ void body(unsigned *o, int mode) {
  unsigned lane = laneid(), act = __activemask(), m = 0;
  switch (mode) {
  case 0: m = 0xffffu << (lane & 16); break;
  case 1: { unsigned b = __ballot_sync(act, lane & 4); m = (lane & 4) ? b : act & ~b; break; }
  case 2: m = 0x0f0f0f0fu << (lane & 4); break;
  case 3: m = __match_any_sync(act, lane % 3); break;
  default: m = (0xffu << (lane & 24)) & act; break;
  }
  unsigned r, bal, mat, sh;
  asm volatile("redux.sync.add.u32 %0, %1, %2;" : "=r"(r) : "r"(lane + 1), "r"(m));
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, %2; }" : "=r"(bal) : "r"(lane & 2), "r"(m));
  asm volatile("match.any.sync.b32 %0, %1, %2;" : "=r"(mat) : "r"(lane & 8), "r"(m));
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 31, %3;" : "=r"(sh) : "r"(lane * 100), "r"(__ffs(m) - 1), "r"(m));
  o[0] = m; o[1] = r; o[2] = bal; o[3] = mat; o[4] = sh;
}

extern "C" __global__ void masks(unsigned *out, int mode, int branch) {
  unsigned lane = laneid();
  unsigned *o = out + (size_t)threadIdx.x * 5;
  for (int k = 0; k < 5; k++) o[k] = 0xccccccccu;
  bool take = branch == 0 || (branch == 1 && (lane & 1)) || (branch == 2 && (lane & 2)) || (branch == 3 && lane < 20);
  if (take) body(o, mode);
}
