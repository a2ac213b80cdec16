/*
 * test_mma.c — the warp-level matrix instructions against the PTX ISA's own definitions, computed here and not
 * from warpvm: each lane's fragment registers per the ISA's "Matrix Fragments for mma.m*n*k*" figures (written
 * out below element by element, independently of src/exec/h_mma.c), exact integer products (s8/u8/s4/u4/b1 and
 * small-integer f16/tf32, where every rounding rule gives the same bits), ldmatrix/stmatrix/movmatrix with every
 * element distinct; then the decoder: wrong operand counts and register widths are load errors with the line,
 * and valid forms warpvm does not run load and refuse the launch naming the instruction. (The bit-exact float
 * arithmetic is checked against the H100 recording by tensor.model and tensor.replay.*.)
 */
#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- a kernel running one mma form: lane l reads its A, B, C words from in[l*16 + ...], writes D to out[l*8 + j] */
static const char *mma_kernel(const char *insn, int na, int nb, int nc, int nd) {
  static char ptx[4096];
  char dl[64] = "", al[64] = "", bl[64] = "", cl[64] = "", loads[1024] = "", stores[512] = "";
  int r = 0;
  for (int i = 0; i < nd; i++) snprintf(dl + strlen(dl), 64 - strlen(dl), "%s%%d%d", i ? "," : "", i);
  for (int i = 0; i < na; i++, r++) snprintf(al + strlen(al), 64 - strlen(al), "%s%%a%d", i ? "," : "", i);
  for (int i = 0; i < nb; i++, r++) snprintf(bl + strlen(bl), 64 - strlen(bl), "%s%%b%d", i ? "," : "", i);
  for (int i = 0; i < nc; i++, r++) snprintf(cl + strlen(cl), 64 - strlen(cl), "%s%%c%d", i ? "," : "", i);
  r = 0;
  for (int i = 0; i < na; i++) snprintf(loads + strlen(loads), 1024 - strlen(loads), "ld.global.u32 %%a%d, [%%rd3+%d];\n", i, 4 * r++);
  for (int i = 0; i < nb; i++) snprintf(loads + strlen(loads), 1024 - strlen(loads), "ld.global.u32 %%b%d, [%%rd3+%d];\n", i, 4 * r++);
  for (int i = 0; i < nc; i++) snprintf(loads + strlen(loads), 1024 - strlen(loads), "ld.global.u32 %%c%d, [%%rd3+%d];\n", i, 4 * r++);
  for (int i = 0; i < nd; i++) snprintf(stores + strlen(stores), 512 - strlen(stores), "st.global.u32 [%%rd4+%d], %%d%d;\n", 4 * i, i);
  snprintf(ptx, sizeof ptx,
           WVT_HDR ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
                   ".reg .b32 %%a<4>; .reg .b32 %%b<2>; .reg .b32 %%c<4>; .reg .b32 %%d<4>; .reg .b32 %%r<2>; .reg .b64 %%rd<6>;\n"
                   "ld.param.u64 %%rd1, [pin]; ld.param.u64 %%rd2, [pout]; mov.u32 %%r1, %%laneid;\n"
                   "mul.wide.u32 %%rd5, %%r1, 64; add.u64 %%rd3, %%rd1, %%rd5;\n"
                   "mul.wide.u32 %%rd5, %%r1, 32; add.u64 %%rd4, %%rd2, %%rd5;\n"
                   "%s%s {%s}, {%s}, {%s}, {%s};\n%sret;\n}\n",
           loads, insn, dl, al, bl, cl, stores);
  return ptx;
}

/* element positions of the ISA's figures: A[m][k], B[k][n], C[m][n] of lane (g = lane/4, q = lane%4) */
typedef struct { int m, n, k, bits, na, nb, nc; } form;
/* the ISA gives, for each fragment element index i of a lane (register i / per, part i % per): */
static void a_pos(const form *f, int g, int q, int i, int *row, int *col) {
  int per = 32 / f->bits, half = f->na * per / (f->m == 16 ? 2 : 1); /* elements per row-half */
  if (f->m == 8) { *row = g; *col = q * per + i; return; }
  /* m16: registers alternate rows g, g+8 (a0..a(per-1): row g; next register: g+8; then k + 4*per) */
  int reg = i / per, j = i % per;
  *row = g + 8 * (reg & 1);
  *col = q * per + j + 4 * per * (reg >> 1);
  (void)half;
}
static void b_pos(const form *f, int g, int q, int i, int *row, int *col) {
  int per = 32 / f->bits, reg = i / per, j = i % per;
  *row = q * per + j + 4 * per * reg;
  *col = g;
}
static void c_pos(const form *f, int g, int q, int i, int *row, int *col) {
  (void)f;
  *row = g + 8 * (i >> 1);
  *col = 2 * q + (i & 1);
}

static int64_t elem(uint32_t w, int bits, int j, int sgn) {
  uint32_t v = bits == 32 ? w : (w >> (j * bits)) & ((1u << bits) - 1);
  if (sgn && bits < 32 && (v >> (bits - 1))) return (int64_t)v - ((int64_t)1 << bits);
  return v;
}

/* runs an integer mma form on random fragments and checks every D register against the ISA's definition */
static void check_int_form(wv_vm *vm, const char *insn, form f, int sa, int sb, int sat, int b1op) {
  const wv_kernel *k = wvt_kernel(vm, mma_kernel(insn, f.na, f.nb, f.nc, f.nc), "k");
  uint64_t s = 0x1234 + (uint64_t)f.k;
  for (int rep = 0; rep < 4; rep++) {
    uint32_t in[32 * 16], out[32 * 8];
    for (size_t i = 0; i < N(in); i++) in[i] = (uint32_t)wvt_rand(&s);
    for (int l = 0; l < 32; l++) /* C near the int32 limits in rep 3: wrap or saturate */
      for (int i = 0; i < f.nc; i++)
        if (rep == 3) in[l * 16 + f.na + f.nb + i] = (i & 1) ? 0x7ffffff0u + (uint32_t)(l & 7) : 0x80000010u - (uint32_t)l;
    wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, 32, 2, b);
    static int64_t A[16][256], B[256][8], C[16][8];
    int per = 32 / f.bits;
    for (int l = 0; l < 32; l++) {
      int g = l >> 2, q = l & 3, r, c;
      for (int i = 0; i < f.na * per; i++) { a_pos(&f, g, q, i, &r, &c); A[r][c] = elem(in[l * 16 + i / per], f.bits, i % per, sa); }
      for (int i = 0; i < f.nb * per; i++) { b_pos(&f, g, q, i, &r, &c); B[r][c] = elem(in[l * 16 + f.na + i / per], f.bits, i % per, sb); }
      for (int i = 0; i < f.nc; i++) { c_pos(&f, g, q, i, &r, &c); C[r][c] = (int32_t)in[l * 16 + f.na + f.nb + i]; }
    }
    for (int l = 0; l < 32; l++)
      for (int i = 0; i < f.nc; i++) {
        int r, c;
        c_pos(&f, l >> 2, l & 3, i, &r, &c);
        int64_t sum = C[r][c];
        for (int kk = 0; kk < f.k; kk++)
          sum += b1op == 1 ? (A[r][kk] ^ B[kk][c]) : b1op == 2 ? (A[r][kk] & B[kk][c]) : A[r][kk] * B[kk][c];
        if (sat) sum = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum;
        uint32_t want = (uint32_t)sum;
        if (out[l * 8 + i] != want)
          fail_msg("%s: rep %d lane %d D%d (D[%d][%d]) = %08x, want %08x", insn, rep, l, i, r, c, out[l * 8 + i], want);
      }
  }
}

static void test_mma_integer_forms(void **state) {
  wv_vm *vm = *state;
  check_int_form(vm, "mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32", (form){8, 8, 16, 8, 1, 1, 2}, 1, 0, 0, 0);
  check_int_form(vm, "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32", (form){16, 8, 16, 8, 2, 1, 4}, 1, 1, 1, 0);
  check_int_form(vm, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32", (form){16, 8, 32, 8, 4, 2, 4}, 0, 1, 0, 0);
  check_int_form(vm, "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32", (form){8, 8, 32, 4, 1, 1, 2}, 1, 1, 0, 0);
  check_int_form(vm, "mma.sync.aligned.m16n8k32.row.col.s32.u4.s4.s32", (form){16, 8, 32, 4, 2, 1, 4}, 0, 1, 0, 0);
  check_int_form(vm, "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32", (form){16, 8, 64, 4, 4, 2, 4}, 0, 0, 1, 0);
  check_int_form(vm, "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc", (form){8, 8, 128, 1, 1, 1, 2}, 0, 0, 0, 1);
  check_int_form(vm, "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc", (form){16, 8, 128, 1, 2, 1, 4}, 0, 0, 0, 2);
  check_int_form(vm, "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc", (form){16, 8, 256, 1, 4, 2, 4}, 0, 0, 0, 1);
}

/* f16 and tf32 forms on small integers: every product and sum exact, so the ISA's definition decides the bits */
static uint16_t f16_of(int v) { /* |v| <= 8 */
  if (!v) return 0;
  int a = v < 0 ? -v : v, e = 0;
  while ((2 << e) <= a) e++;
  return (uint16_t)((v < 0 ? 0x8000 : 0) | (e + 15) << 10 | ((a - (1 << e)) << (10 - e)));
}
static void test_mma_float_exact(void **state) {
  wv_vm *vm = *state;
  static const struct { const char *insn; form f; int tf32; } fs[] = {
    {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", {16, 8, 8, 16, 2, 1, 4}, 0},
    {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", {16, 8, 16, 16, 4, 2, 4}, 2},
    {"mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", {16, 8, 4, 32, 2, 1, 4}, 1},
    {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", {16, 8, 8, 32, 4, 2, 4}, 1},
  };
  uint64_t s = 99;
  for (size_t t = 0; t < N(fs); t++) {
    const form *f = &fs[t].f;
    const wv_kernel *k = wvt_kernel(vm, mma_kernel(fs[t].insn, f->na, f->nb, f->nc, f->nc), "k");
    uint32_t in[32 * 16] = {0}, out[32 * 8];
    static int A[16][16], B[16][8], C[16][8];
    int per = 32 / f->bits;
    for (int l = 0; l < 32; l++) {
      int g = l >> 2, q = l & 3, r, c;
      for (int i = 0; i < f->na * per; i++) {
        int v = (int)(wvt_rand(&s) % 17) - 8;
        a_pos(f, g, q, i, &r, &c);
        A[r][c] = v;
        uint32_t bits = fs[t].tf32 == 1 ? wvt_f2u((float)v) : fs[t].tf32 == 2 ? wvt_f2u((float)v) >> 16 : f16_of(v);
        in[l * 16 + i / per] |= per == 1 ? bits : bits << (16 * (i % per));
      }
      for (int i = 0; i < f->nb * per; i++) {
        int v = (int)(wvt_rand(&s) % 17) - 8;
        b_pos(f, g, q, i, &r, &c);
        B[r][c] = v;
        uint32_t bits = fs[t].tf32 == 1 ? wvt_f2u((float)v) : fs[t].tf32 == 2 ? wvt_f2u((float)v) >> 16 : f16_of(v);
        in[l * 16 + f->na + i / per] |= per == 1 ? bits : bits << (16 * (i % per));
      }
      for (int i = 0; i < f->nc; i++) {
        int v = (int)(wvt_rand(&s) % 201) - 100;
        c_pos(f, g, q, i, &r, &c);
        C[r][c] = v;
        in[l * 16 + f->na + f->nb + i] = wvt_f2u((float)v);
      }
    }
    wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
    wvt_run_ok(vm, k, 1, 32, 2, b);
    for (int l = 0; l < 32; l++)
      for (int i = 0; i < f->nc; i++) {
        int r, c;
        c_pos(f, l >> 2, l & 3, i, &r, &c);
        int sum = C[r][c];
        for (int kk = 0; kk < f->k; kk++) sum += A[r][kk] * B[kk][c];
        if (out[l * 8 + i] != wvt_f2u((float)sum))
          fail_msg("%s: lane %d D%d = %08x, want %g", fs[t].insn, l, i, out[l * 8 + i], (double)sum);
      }
  }
}

/* ---- ldmatrix / stmatrix / movmatrix: matrices of distinct halves, rows at permuted addresses ---- */
/* lane l's row address: sm + ((l*13+5) % 32) * 16. ldmatrix: sm <- in (256 words), then out[l*4+i] = register i.
 * stmatrix: register i = in[l*4+i], sm (zeroed) <- stmatrix, out <- sm. */
static const char *ldst_kernel(const char *insn, int nregs, int store) {
  static char ptx[4096];
  char io[512] = "";
  for (int i = 0; i < nregs; i++)
    snprintf(io + strlen(io), 512 - strlen(io), store ? "ld.global.u32 %%d%d, [%%rd3+%d];\n" : "st.global.u32 [%%rd3+%d], %%d%d;\n",
             store ? i : 4 * i, store ? 4 * i : i);
  snprintf(ptx, sizeof ptx,
           WVT_HDR ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
                   ".shared .align 16 .b8 sm[1024];\n"
                   ".reg .b32 %%d<4>; .reg .b32 %%r<8>; .reg .b64 %%rd<6>; .reg .pred %%p;\n"
                   "ld.param.u64 %%rd1, [pin]; ld.param.u64 %%rd2, [pout]; mov.u32 %%r1, %%laneid;\n"
                   "mov.u32 %%r2, %%r1;\n"
                   "CP: shl.b32 %%r3, %%r2, 2; cvt.u64.u32 %%rd5, %%r3; add.u64 %%rd4, %%rd1, %%rd5; ld.global.u32 %%r4, [%%rd4];\n"
                   "%s mov.u32 %%r5, sm; add.u32 %%r5, %%r5, %%r3; st.shared.u32 [%%r5], %%r4;\n"
                   "add.u32 %%r2, %%r2, 32; setp.lt.u32 %%p, %%r2, 256; @%%p bra CP;\n"
                   "bar.warp.sync -1;\n"
                   "mul.lo.u32 %%r6, %%r1, 13; add.u32 %%r6, %%r6, 5; rem.u32 %%r6, %%r6, 32; shl.b32 %%r6, %%r6, 4;\n"
                   "mov.u32 %%r7, sm; add.u32 %%r7, %%r7, %%r6;\n"
                   "mul.wide.u32 %%rd5, %%r1, 16; add.u64 %%rd3, %%rd%d, %%rd5;\n"
                   "%s%s;\n%s"
                   "%s"
                   "ret;\n}\n",
           store ? "mov.u32 %r4, 0;" : "", store ? 1 : 2, store ? io : "", insn, store ? "" : io,
           store ? "bar.warp.sync -1;\nmov.u32 %r2, %r1;\n"
                   "CO: shl.b32 %r3, %r2, 2; mov.u32 %r5, sm; add.u32 %r5, %r5, %r3; ld.shared.u32 %r4, [%r5];\n"
                   "cvt.u64.u32 %rd5, %r3; add.u64 %rd4, %rd2, %rd5; st.global.u32 [%rd4], %r4;\n"
                   "add.u32 %r2, %r2, 32; setp.lt.u32 %p, %r2, 256; @%p bra CO;\n" : "");
  return ptx;
}

static void test_ldmatrix_stmatrix(void **state) {
  wv_vm *vm = *state;
  static uint16_t sm[512];
  static uint32_t regs_in[32 * 64];
  for (int i = 0; i < 512; i++) sm[i] = (uint16_t)(0x4000 + i); /* slot s (16 bytes) holds halves 8s..8s+7 */
  for (int l = 0; l < 32; l++)
    for (int i = 0; i < 4; i++) regs_in[l * 4 + i] = (0x4000u + 64 * i + 2 * l) | (0x4000u + 64 * i + 2 * l + 1) << 16;
  for (int store = 0; store < 2; store++)
    for (int x = 1; x <= 4; x *= 2)
      for (int trans = 0; trans < 2; trans++) {
        char insn[128], regs[64] = "";
        for (int i = 0; i < x; i++) snprintf(regs + strlen(regs), sizeof regs - strlen(regs), "%s%%d%d", i ? "," : "", i);
        if (store) snprintf(insn, sizeof insn, "stmatrix.sync.aligned.m8n8.x%d%s.shared.b16 [%%r7], {%s}", x, trans ? ".trans" : "", regs);
        else snprintf(insn, sizeof insn, "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 {%s}, [%%r7]", x, trans ? ".trans" : "", regs);
        const wv_kernel *k = wvt_kernel(vm, ldst_kernel(insn, x, store), "k");
        static uint32_t out[256];
        memset(out, 0, sizeof out);
        wvt_buf b[2] = {{store ? (void *)regs_in : (void *)sm, store ? sizeof regs_in : sizeof sm}, {out, sizeof out}};
        wvt_run_ok(vm, k, 1, 32, 2, b);
        for (int l = 0; l < 32; l++)
          for (int i = 0; i < x; i++)
            for (int h = 0; h < 2; h++) {
              /* the ISA: matrix i's row r is at lane 8i + r's address; lane l holds row l/4, columns 2(l%4)+h
                 (.trans: row 2(l%4)+h, column l/4) */
              int r = trans ? 2 * (l & 3) + h : l >> 2, c = trans ? l >> 2 : 2 * (l & 3) + h;
              int slot = ((8 * i + r) * 13 + 5) % 32;
              uint16_t reg = (uint16_t)((store ? regs_in[l * 4 + i] : out[l * 4 + i]) >> 16 * h);
              uint16_t mem = store ? ((const uint16_t *)out)[slot * 8 + c] : (uint16_t)(0x4000 + slot * 8 + c);
              if (reg != mem) fail_msg("%s: lane %d reg %d half %d: register %04x, memory %04x", insn, l, i, h, reg, mem);
            }
      }
}

static void test_movmatrix(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm,
      WVT_HDR ".visible .entry k(.param .u64 pout)\n{\n.reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
              "mov.u32 %r1, %laneid; shl.b32 %r2, %r1, 1; add.u32 %r2, %r2, 0x100; add.u32 %r3, %r2, 1;\n"
              "shl.b32 %r3, %r3, 16; or.b32 %r2, %r2, %r3;\n"
              "movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;\n"
              "ld.param.u64 %rd1, [pout]; mul.wide.u32 %rd2, %r1, 4; add.u64 %rd1, %rd1, %rd2; st.global.u32 [%rd1], %r3;\nret;\n}\n",
      "k");
  uint32_t out[32];
  wvt_buf b[1] = {{out, sizeof out}};
  wvt_run_ok(vm, k, 1, 32, 1, b);
  /* lane l holds element (l/4, 2(l%4)+h) = 0x100 + 2l + h; after the transpose, lane l holds (2(l%4)+h, l/4) */
  for (int l = 0; l < 32; l++)
    for (int h = 0; h < 2; h++) {
      int r = 2 * (l & 3) + h, c = l >> 2, src = r * 4 + c / 2;
      uint16_t want = (uint16_t)(0x100 + 2 * src + (c & 1)), got = (uint16_t)(out[l] >> 16 * h);
      if (got != want) fail_msg("movmatrix lane %d half %d = %04x, want %04x", l, h, got, want);
    }
}


/* ---- wmma through memory: whatever the fragment layout, load → mma → store must give D = A·B + C in memory.
 * Small integers, so every rounding rule gives the same bits; strides larger than the matrix; both layouts. */
typedef struct {
  const char *shape, *ta, *tc, *mmatypes; /* mmatypes: the type suffix of wmma.mma */
  int m, n, k, na, nb, nc, abits, cbits;  /* registers; element bits (A/B, C/D) */
  int aflt, cflt;                         /* 0 int, 1 f16, 2 bf16, 3 f32/tf32, 4 f64 */
  int b1;                                 /* .xor.popc */
} wform;

static uint64_t enc_elem(int flt, int bits, int v) {
  switch (flt) {
  case 1: return f16_of(v);
  case 2: return wvt_f2u((float)v) >> 16;
  case 3: return wvt_f2u((float)v);
  case 4: return wvt_d2u((double)v);
  default: return (uint64_t)v & ((bits == 64 ? 0 : 1ull << bits) - 1);
  }
}
static void put_elem(uint8_t *mem, size_t idx, int bits, uint64_t v) {
  if (bits < 8) {
    size_t bit = idx * (size_t)bits;
    mem[bit / 8] = (uint8_t)((mem[bit / 8] & ~(((1u << bits) - 1) << bit % 8)) | (v << bit % 8));
  } else memcpy(mem + idx * (size_t)bits / 8, &v, (size_t)bits / 8);
}

static void check_wmma(wv_vm *vm, const wform *f, int acol, int bcol, int pad) {
  char ptx[4096], regs[4][128];
  int cnt[4] = {f->na, f->nb, f->nc, f->nc};
  const char *rt[4] = {"a", "b", "c", "d"};
  for (int r = 0; r < 4; r++) {
    regs[r][0] = 0;
    for (int i = 0; i < cnt[r]; i++)
      snprintf(regs[r] + strlen(regs[r]), 128 - strlen(regs[r]), "%s%%%s%d", i ? "," : "", rt[r], i);
  }
  int lda = (acol ? f->m : f->k) + pad, ldb = (bcol ? f->k : f->n) + pad, ldc = f->n + pad;
  const char *rty = f->aflt == 4 ? ".f64" : ".b32", *cty = f->cflt == 4 ? ".f64" : ".b32";
  snprintf(ptx, sizeof ptx,
           WVT_HDR ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"
                   ".reg %s %%a<8>; .reg %s %%b<8>; .reg %s %%c<8>; .reg %s %%d<8>; .reg .b64 %%rd<5>;\n"
                   "ld.param.u64 %%rd1, [pa]; ld.param.u64 %%rd2, [pb]; ld.param.u64 %%rd3, [pc]; ld.param.u64 %%rd4, [pd];\n"
                   "wmma.load.a.sync.aligned.%s.%s.global.%s {%s}, [%%rd1], %d;\n"
                   "wmma.load.b.sync.aligned.%s.%s.global.%s {%s}, [%%rd2], %d;\n"
                   "wmma.load.c.sync.aligned.row.%s.global.%s {%s}, [%%rd3], %d;\n"
                   "wmma.mma%s.sync.aligned.%s.%s.%s.%s {%s}, {%s}, {%s}, {%s};\n"
                   "wmma.store.d.sync.aligned.row.%s.global.%s [%%rd4], {%s}, %d;\nret;\n}\n",
           rty, rty, cty, cty, acol ? "col" : "row", f->shape, f->ta, regs[0], lda, bcol ? "col" : "row", f->shape, f->ta,
           regs[1], ldb, f->shape, f->tc, regs[2], ldc, f->b1 ? ".xor.popc" : "", acol ? "col" : "row", bcol ? "col" : "row",
           f->shape, f->mmatypes, regs[3], regs[0], regs[1], regs[2], f->shape, f->tc, regs[3], ldc);
  const wv_kernel *k = wvt_kernel(vm, ptx, "k");
  static int A[32][128], B[128][32], C[32][32];
  static uint8_t ma[32 * 160 * 8], mb[160 * 40 * 8], mc[32 * 40 * 8], md[32 * 40 * 8];
  memset(ma, 0, sizeof ma), memset(mb, 0, sizeof mb), memset(mc, 0, sizeof mc), memset(md, 0, sizeof md);
  uint64_t s = 7 + (uint64_t)f->m * 31 + (uint64_t)f->k;
  int lo = f->abits == 1 ? 0 : f->abits == 4 ? -8 : -3, hi = f->abits == 1 ? 1 : f->abits == 4 ? 7 : 3;
  if (!strcmp(f->ta, "u8") || !strcmp(f->ta, "u4")) lo = 0;
  for (int r = 0; r < f->m; r++)
    for (int c = 0; c < f->k; c++) {
      A[r][c] = lo + (int)(wvt_rand(&s) % (uint64_t)(hi - lo + 1));
      put_elem(ma, acol ? (size_t)c * lda + r : (size_t)r * lda + c, f->abits, enc_elem(f->aflt, f->abits, A[r][c]));
    }
  for (int r = 0; r < f->k; r++)
    for (int c = 0; c < f->n; c++) {
      B[r][c] = lo + (int)(wvt_rand(&s) % (uint64_t)(hi - lo + 1));
      put_elem(mb, bcol ? (size_t)c * ldb + r : (size_t)r * ldb + c, f->abits, enc_elem(f->aflt, f->abits, B[r][c]));
    }
  for (int r = 0; r < f->m; r++)
    for (int c = 0; c < f->n; c++) {
      C[r][c] = (int)(wvt_rand(&s) % 101) - 50;
      put_elem(mc, (size_t)r * ldc + c, f->cbits, enc_elem(f->cflt, f->cbits, C[r][c]));
    }
  wvt_buf b[4] = {{ma, sizeof ma}, {mb, sizeof mb}, {mc, sizeof mc}, {md, sizeof md}};
  wvt_run_ok(vm, k, 1, 32, 4, b);
  for (int r = 0; r < f->m; r++)
    for (int c = 0; c < f->n; c++) {
      int sum = C[r][c];
      for (int kk = 0; kk < f->k; kk++) sum += f->b1 ? (A[r][kk] ^ B[kk][c]) : A[r][kk] * B[kk][c];
      uint64_t want = enc_elem(f->cflt, f->cbits, sum), got = 0;
      memcpy(&got, md + ((size_t)r * ldc + c) * (size_t)f->cbits / 8, (size_t)f->cbits / 8);
      if (got != want)
        fail_msg("wmma %s .%s (%s.%s, pad %d): D[%d][%d] = %llx, want %llx", f->shape, f->ta, acol ? "col" : "row",
                 bcol ? "col" : "row", pad, r, c, (unsigned long long)got, (unsigned long long)want);
    }
}

static void test_wmma_memory(void **state) {
  wv_vm *vm = *state;
  static const wform fs[] = {
    {"m16n16k16", "f16", "f32", "f32.f32", 16, 16, 16, 8, 8, 8, 16, 32, 1, 3, 0},
    {"m16n16k16", "f16", "f16", "f16.f16", 16, 16, 16, 8, 8, 4, 16, 16, 1, 1, 0},
    {"m32n8k16", "f16", "f32", "f32.f32", 32, 8, 16, 8, 8, 8, 16, 32, 1, 3, 0},
    {"m8n32k16", "f16", "f32", "f32.f32", 8, 32, 16, 8, 8, 8, 16, 32, 1, 3, 0},
    {"m16n16k16", "bf16", "f32", "f32.bf16.bf16.f32", 16, 16, 16, 4, 4, 8, 16, 32, 2, 3, 0},
    {"m32n8k16", "bf16", "f32", "f32.bf16.bf16.f32", 32, 8, 16, 8, 2, 8, 16, 32, 2, 3, 0},
    {"m8n32k16", "bf16", "f32", "f32.bf16.bf16.f32", 8, 32, 16, 2, 8, 8, 16, 32, 2, 3, 0},
    {"m16n16k16", "s8", "s32", "s32.s8.s8.s32", 16, 16, 16, 2, 2, 8, 8, 32, 0, 0, 0},
    {"m32n8k16", "u8", "s32", "s32.u8.u8.s32", 32, 8, 16, 4, 1, 8, 8, 32, 0, 0, 0},
    {"m8n32k16", "s8", "s32", "s32.s8.s8.s32", 8, 32, 16, 1, 4, 8, 8, 32, 0, 0, 0},
    {"m16n16k8", "tf32", "f32", "f32.tf32.tf32.f32", 16, 16, 8, 4, 4, 8, 32, 32, 3, 3, 0},
    {"m8n8k4", "f64", "f64", "f64.f64.f64.f64", 8, 8, 4, 1, 1, 2, 64, 64, 4, 4, 0},
  };
  for (size_t i = 0; i < N(fs); i++)
    for (int lay = 0; lay < 4; lay++) check_wmma(vm, &fs[i], lay & 1, lay >> 1, lay == 3 ? 8 : 0);
  static const wform sub[] = { /* .s4/.u4/.b1: A .row, B .col only */
    {"m8n8k32", "s4", "s32", "s32.s4.s4.s32", 8, 8, 32, 1, 1, 2, 4, 32, 0, 0, 0},
    {"m8n8k32", "u4", "s32", "s32.u4.u4.s32", 8, 8, 32, 1, 1, 2, 4, 32, 0, 0, 0},
    {"m8n8k128", "b1", "s32", "s32.b1.b1.s32", 8, 8, 128, 1, 1, 2, 1, 32, 0, 0, 1},
  };
  for (size_t i = 0; i < N(sub); i++) check_wmma(vm, &sub[i], 0, 1, 0), check_wmma(vm, &sub[i], 0, 1, 128);
}

/* ---- decoder ---- */
#define MHEAD WVT_HDR ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<12>;\n.reg .f64 %fd<4>;\n.reg .b64 %rd<4>;\n"

static void expect_error(const char *body, const char *marker, const char *needle) {
  char ptx[2048] = MHEAD;
  strcat(ptx, body);
  strcat(ptx, "\nret;\n}\n");
  wv_vm *vm = wv_create(NULL);
  assert_non_null(vm);
  wv_module *m = NULL;
  wv_status st = wv_module_load_string(vm, ptx, strlen(ptx), "bad.ptx", &m);
  char e[1100], prefix[64];
  snprintf(e, sizeof e, "%s", wv_last_error(vm));
  wv_destroy(vm);
  if (st != WV_ERR_PARSE) fail_msg("%s: status %s, want a parse error; message: %s", body, wv_status_name(st), e);
  snprintf(prefix, sizeof prefix, "bad.ptx:%u:", wvt_line_of(ptx, marker));
  if (strncmp(e, prefix, strlen(prefix)) || !strstr(e, ": error: ")) fail_msg("message '%s' does not start with %s", e, prefix);
  wvt_assert_contains(e, needle);
}

static void test_mma_decode_errors(void **state) {
  (void)state;
  expect_error("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6}, {%r8,%r9}, {%r0,%r1,%r2,%r3};",
               "mma.sync", "A needs 4 registers, found 3");
  expect_error("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd0,%fd1}, {%r1}, {%fd2}, {%fd0,%fd1};", "mma.sync",
               "needs a 64-bit register");
  expect_error("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r0,%r1};",
               "mma.sync", "no .m16n8k16 form");
  expect_error("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r0,%r1,%r2,%r3};",
               "mma.sync", ".row.col");
  expect_error("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32 {%r0,%r1}, {%r4}, {%r8}, {%r0,%r1};", "mma.sync", ".xor.popc");
  expect_error("ldmatrix.sync.aligned.m8n8.shared.b16 {%r0}, [%rd1];", "ldmatrix", ".x1, .x2 or .x4");
  expect_error("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0,%r1}, [%rd1];", "ldmatrix", "needs 4 registers, found 2");
  expect_error("movmatrix.sync.aligned.m8n8.b16 %r0, %r1;", "movmatrix", "needs .trans");
  expect_error("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0,%r1,%r2,%r3}, [%rd1];", "wmma.load",
               "needs 8 registers, found 4");
  expect_error("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, "
               "{%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6};", "wmma.mma", "C needs 8 registers, found 7");
  expect_error("wmma.load.c.sync.aligned.row.m16n16k8.global.f16 {%r0,%r1,%r2,%r3}, [%rd1];", "wmma.load", "no .m16n16k8 form");
}

/* valid PTX that warpvm does not run: the module loads, the kernel's launch is refused naming it */
static void test_mma_unsupported_forms(void **state) {
  wv_vm *vm = *state;
  const char *ptx = MHEAD "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f32 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%r8,%r9}, "
                          "{%r10,%r11}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7};\nret;\n}\n";
  const wv_kernel *k = wvt_kernel(vm, ptx, "k");
  wvt_buf b[1] = {{NULL, 0}};
  wv_status st = wvt_run(vm, k, 1, 32, 1, b);
  wvt_assert_status(vm, st, WV_ERR_UNSUPPORTED);
  wvt_assert_contains(wv_last_error(vm), "mma.sync.aligned.m8n8k4");
  char where[32];
  snprintf(where, sizeof where, "test.ptx:%u:", wvt_line_of(ptx, "mma.sync"));
  wvt_assert_contains(wv_last_error(vm), where);
}

/* a partial warp may not run a .sync.aligned matrix instruction */
static void test_mma_needs_whole_warp(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, mma_kernel("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32", 1, 1, 2, 2), "k");
  static uint32_t in[32 * 16], out[32 * 8];
  wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
  wv_status st = wvt_run(vm, k, 1, 32, 2, b); /* whole warp: fine */
  wvt_expect_ok(vm, st);
  const char *div = WVT_HDR ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<8>; .reg .pred %p;\n"
                            "mov.u32 %r0, %laneid; setp.lt.u32 %p, %r0, 16; @%p bra SKIP;\n"
                            "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r1,%r2}, {%r3}, {%r4}, {%r5,%r6};\n"
                            "SKIP: ret;\n}\n";
  k = wvt_kernel(vm, div, "k");
  wvt_buf nb[1] = {{NULL, 0}};
  st = wvt_run(vm, k, 1, 32, 1, nb);
  if (st == WV_OK) fail_msg("mma.sync by half a warp ran");
  wvt_assert_contains(wv_last_error(vm), "needs the whole warp");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_mma_integer_forms, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_mma_float_exact, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_ldmatrix_stmatrix, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_movmatrix, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_wmma_memory, wvt_setup, wvt_teardown),
    cmocka_unit_test(test_mma_decode_errors),
    cmocka_unit_test_setup_teardown(test_mma_unsupported_forms, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_mma_needs_whole_warp, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
