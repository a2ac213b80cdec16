/*
 * test_wgmma.c — Hopper's wgmma against the PTX ISA's definitions, computed here and not from warpvm: exact integer
 * products (u8·s8, b1 .and.popc) of matrices laid out in shared memory by this file's own reading of the ISA's
 * canonical layouts (a 128-byte swizzle written as "16-byte chunk c of row r is stored at chunk c XOR r % 8", the
 * no-swizzle core matrices of 8 rows × 16 bytes at LBO/SBO), A also from registers (the ISA's m16nNk32 A
 * fragment), D read back through the ISA's accumulator fragment (warp w of the warpgroup: rows 16w + lane/4 and
 * +8, columns 8·(i/4) + 2·(lane%4) + i%2), on two warpgroups; scale-d false; .satfinite. Then the decoder (sm_90a
 * only, operand counts, immediates, shapes), the sparse form refused at launch, faults: a partial warp, a
 * descriptor outside shared memory. (The float arithmetic and the layouts' other cases: tests/kernels wgmma.*.)
 */
#include "wv_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define HDR90A ".version 8.4\n.target sm_90a\n.address_size 64\n"

enum { NN = 24, ND = NN / 2, SMEM = 18432, A_OFF = 0, A_WG = 8192, B_OFF = 16384, NT = 256 };

/* One kernel: 256 threads (two warpgroups) copy in[0, SMEM/4) into shared memory, load C (and A's registers)
 * from in, run `insn` and store D to out[tid·ND + i]. Warpgroup 1's A lies A_WG bytes after warpgroup 0's. */
static const char *kernel(const char *insn, int a_regs, uint64_t adesc_hi, uint64_t bdesc_hi, int scale_d) {
  static char ptx[8192];
  char d[256] = "", ld[2048] = "", st[1024] = "";
  for (int i = 0; i < ND; i++) {
    snprintf(d + strlen(d), sizeof d - strlen(d), "%s%%d%d", i ? ", " : "", i);
    snprintf(ld + strlen(ld), sizeof ld - strlen(ld), "ld.global.u32 %%d%d, [%%rd5+%d];\n", i, 4 * i);
    snprintf(st + strlen(st), sizeof st - strlen(st), "st.global.u32 [%%rd6+%d], %%d%d;\n", 4 * i, i);
  }
  for (int i = 0; a_regs && i < 4; i++)
    snprintf(ld + strlen(ld), sizeof ld - strlen(ld), "ld.global.u32 %%a%d, [%%rd5+%d];\n", i, 4 * (ND + i));
  snprintf(ptx, sizeof ptx,
           HDR90A ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
                  ".reg .b32 %%d<%d>; .reg .b32 %%a<4>; .reg .b32 %%r<16>; .reg .b64 %%rd<16>; .reg .pred %%p<4>;\n"
                  ".shared .align 1024 .b8 smem[%d];\n"
                  "ld.param.u64 %%rd1, [pin]; ld.param.u64 %%rd2, [pout]; mov.u32 %%r1, %%tid.x; mov.u32 %%r2, smem;\n"
                  "mov.u32 %%r3, %%r1;\n"
                  "FILL: setp.ge.u32 %%p1, %%r3, %d; @%%p1 bra FILLED;\n"
                  "mul.wide.u32 %%rd3, %%r3, 4; add.u64 %%rd4, %%rd1, %%rd3; ld.global.u32 %%r4, [%%rd4];\n"
                  "shl.b32 %%r5, %%r3, 2; add.u32 %%r5, %%r5, %%r2; st.shared.u32 [%%r5], %%r4;\n"
                  "add.u32 %%r3, %%r3, %d; bra FILL;\n"
                  "FILLED: mul.lo.u32 %%r6, %%r1, %d; add.u32 %%r6, %%r6, %d; mul.wide.u32 %%rd3, %%r6, 4; add.u64 %%rd5, %%rd1, %%rd3;\n"
                  "%s"
                  "fence.proxy.async.shared::cta; bar.sync 0;\n"
                  "shr.u32 %%r7, %%r1, 7; mul.lo.u32 %%r7, %%r7, %d; add.u32 %%r7, %%r7, %%r2; add.u32 %%r7, %%r7, %d;\n"
                  "shr.u32 %%r7, %%r7, 4; and.b32 %%r7, %%r7, 16383; cvt.u64.u32 %%rd7, %%r7; or.b64 %%rd7, %%rd7, %llu;\n"
                  "add.u32 %%r8, %%r2, %d; shr.u32 %%r8, %%r8, 4; cvt.u64.u32 %%rd8, %%r8; or.b64 %%rd8, %%rd8, %llu;\n"
                  "mov.u32 %%r9, %d; setp.ne.u32 %%p2, %%r9, 0;\n"
                  "wgmma.fence.sync.aligned;\n"
                  "%s {%s}, %s, %%rd8, %%p2;\n"
                  "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n"
                  "mul.wide.u32 %%rd3, %%r1, %d; add.u64 %%rd6, %%rd2, %%rd3;\n%sret;\n}\n",
           ND, SMEM, SMEM / 4, NT, ND + 4, SMEM / 4, ld, A_WG, A_OFF, (unsigned long long)adesc_hi, B_OFF,
           (unsigned long long)bdesc_hi, scale_d, insn, d, a_regs ? "{%a0, %a1, %a2, %a3}" : "%rd7", ND * 4, st);
  return ptx;
}

static uint64_t desc_hi(uint32_t lbo, uint32_t sbo, int swz) {
  return (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 | (uint64_t)swz << 62;
}

/* byte of (row r, byte kb of its 32 K bytes) in a K-major operand: 128B swizzle (8 rows of 128 bytes, this
 * operand's 32 bytes in the first two chunks of each, chunk c stored at c ^ (r % 8)); no swizzle: core matrices
 * of 8 rows × 16 bytes, the second 16 bytes of K lbo further, the next 8 rows sbo further */
static uint32_t at_sw128(int r, int kb) { return (uint32_t)(r / 8 * 1024 + r % 8 * 128 + ((kb / 16) ^ (r % 8)) * 16 + kb % 16); }
static uint32_t at_none(int r, int kb, uint32_t lbo, uint32_t sbo) {
  return (uint32_t)(r / 8) * sbo + (uint32_t)(r % 8 * 16) + (uint32_t)(kb / 16) * lbo + (uint32_t)(kb % 16);
}

/* the accumulator fragment: D element i of thread t */
static void d_pos(int t, int i, int *row, int *col) {
  int w = (t >> 5) & 3, l = t & 31;
  *row = 16 * w + l / 4 + 8 * ((i >> 1) & 1);
  *col = 8 * (i >> 2) + 2 * (l & 3) + (i & 1);
}

/* u8·s8 (or b1 .and.popc), m64n24: A 64×32 bytes per warpgroup (its own), B 24×32 bytes */
static void run_int(wv_vm *vm, const char *insn, int a_regs, int b1, int scale_d, int edge, int sat) {
  static uint32_t in[SMEM / 4 + NT * (ND + 4)], out[NT * ND];
  static uint8_t A[2][64][32], B[NN][32];
  uint64_t s = 0x5eed + (uint64_t)(a_regs * 8 + b1 * 4 + edge * 2 + sat);
  uint8_t *sm = (uint8_t *)in;
  for (size_t i = 0; i < N(in); i++) in[i] = (uint32_t)wvt_rand(&s);
  if (edge) /* C near the int32 limits: .satfinite clamps, else the sum wraps */
    for (int t = 0; t < NT; t++)
      for (int i = 0; i < ND; i++) in[SMEM / 4 + t * (ND + 4) + i] = (i & 1) ? 0x7ffff000u + (uint32_t)t : 0x80000f00u - (uint32_t)t;
  for (int g = 0; g < 2; g++)
    for (int r = 0; r < 64; r++)
      for (int kb = 0; kb < 32; kb++) A[g][r][kb] = sm[A_OFF + g * A_WG + at_sw128(r, kb)];
  for (int n = 0; n < NN; n++)
    for (int kb = 0; kb < 32; kb++) B[n][kb] = sm[B_OFF + at_none(n, kb, 128, 512)];
  if (a_regs) /* the m16n8k32 A fragment of each warp's 16 rows: register j, byte h: row g + 8(j%2), byte 4q + h + 16(j/2) */
    for (int t = 0; t < NT; t++)
      for (int j = 0; j < 4; j++)
        for (int h = 0; h < 4; h++) {
          int w = (t >> 5) & 3, l = t & 31;
          A[t / 128][16 * w + l / 4 + 8 * (j & 1)][4 * (l & 3) + h + 16 * (j >> 1)] =
              (uint8_t)(in[SMEM / 4 + t * (ND + 4) + ND + j] >> 8 * h);
        }
  const wv_kernel *k = wvt_kernel(vm, kernel(insn, a_regs, desc_hi(16, 1024, 1), desc_hi(128, 512, 0), scale_d), "k");
  wvt_buf b[2] = {{in, sizeof in}, {out, sizeof out}};
  wvt_run_ok(vm, k, 1, NT, 2, b);
  for (int t = 0; t < NT; t++)
    for (int i = 0; i < ND; i++) {
      int r, c;
      d_pos(t, i, &r, &c);
      int64_t sum = scale_d ? (int32_t)in[SMEM / 4 + t * (ND + 4) + i] : 0;
      for (int kb = 0; kb < 32; kb++) {
        uint8_t a = A[t / 128][r][kb], bb = B[c][kb];
        sum += b1 ? __builtin_popcount(a & bb) : (int64_t)a * (int8_t)bb;
      }
      if (sat) sum = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum;
      if (out[t * ND + i] != (uint32_t)sum)
        fail_msg("%s: thread %d D%d (D[%d][%d]) = %08x, want %08x", insn, t, i, r, c, out[t * ND + i], (uint32_t)sum);
    }
}

static void test_wgmma_integer(void **state) {
  wv_vm *vm = *state;
  run_int(vm, "wgmma.mma_async.sync.aligned.m64n24k32.s32.u8.s8", 0, 0, 1, 0, 0);
  run_int(vm, "wgmma.mma_async.sync.aligned.m64n24k32.s32.u8.s8", 1, 0, 1, 0, 0);
  run_int(vm, "wgmma.mma_async.sync.aligned.m64n24k32.s32.u8.s8", 0, 0, 0, 0, 0);
  run_int(vm, "wgmma.mma_async.sync.aligned.m64n24k32.satfinite.s32.u8.s8", 1, 0, 1, 1, 1);
  run_int(vm, "wgmma.mma_async.sync.aligned.m64n24k32.s32.u8.s8", 0, 0, 1, 1, 0);
  run_int(vm, "wgmma.mma_async.sync.aligned.m64n24k256.s32.b1.b1.and.popc", 0, 1, 1, 0, 0);
  run_int(vm, "wgmma.mma_async.sync.aligned.m64n24k256.s32.b1.b1.and.popc", 1, 1, 0, 0, 0);
}

/* ---- the decoder ---- */
static void expect_error(const char *insn, const char *hdr, const char *needle) {
  char ptx[2048];
  snprintf(ptx, sizeof ptx,
           "%s.visible .entry k()\n{\n.reg .f32 %%f<130>; .reg .b32 %%r<130>; .reg .b64 %%rd<4>; .reg .pred %%p<2>;\n"
           "%s // HERE\nret;\n}\n", hdr, insn);
  wv_vm *vm = wv_create(NULL);
  assert_non_null(vm);
  wv_module *m = NULL;
  wv_status st = wv_module_load_string(vm, ptx, strlen(ptx), "bad.ptx", &m);
  char e[1100], where[32];
  snprintf(e, sizeof e, "%s", wv_last_error(vm));
  wv_destroy(vm);
  if (st == WV_OK) fail_msg("'%s' loaded", insn);
  snprintf(where, sizeof where, "bad.ptx:%u:", wvt_line_of(ptx, "HERE"));
  if (!strstr(e, where) || !strstr(e, needle)) fail_msg("'%s': message '%s' lacks '%s' or '%s'", insn, e, where, needle);
}

static void test_wgmma_decode_errors(void **state) {
  (void)state;
  const char *f4 = "{%f0, %f1, %f2, %f3}";
  char b[512];
  expect_error("wgmma.fence.sync.aligned;", WVT_HDR, "needs .target sm_90a");
  expect_error("wgmma.fence.sync.aligned;", ".version 8.4\n.target sm_90\n.address_size 64\n", "needs .target sm_90a");
  expect_error("wgmma.fence.aligned;", HDR90A, "needs .sync.aligned");
  expect_error("wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.s8 {%r0,%r1,%r2,%r3}, %rd1, %rd2, %p1;",
               ".version 8.3\n.target sm_90a\n.address_size 64\n", "mixed integer types needs PTX ISA .version 8.4");
  expect_error("wgmma.wait_group.sync.aligned %r1;", HDR90A, "immediate count");
  expect_error("wgmma.commit_group.sync.aligned 1;", HDR90A, "takes 0 operands");
  expect_error("wgmma.arrive.sync.aligned;", HDR90A, "wgmma.{fence,commit_group,wait_group,mma_async}");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 %s, %%rd1, %%rd2, %%p1, 1, 1, 0;", f4);
  expect_error(b, HDR90A, "takes 8 operands");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 %s, %%rd1, %%rd2, %%p1, 2, 1, 0, 0;", f4);
  expect_error(b, HDR90A, "imm-scale-a must be the immediate 1 or -1");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 %s, %%rd1, %%rd2, %%p1, 1, 1, 0, 2;", f4);
  expect_error(b, HDR90A, "imm-trans-b must be the immediate 0 or 1");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%%f0, %%f1, %%f2}, %%rd1, %%rd2, %%p1, 1, 1, 0, 0;");
  expect_error(b, HDR90A, "D needs 4 registers, found 3");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 %s, %%rd1, %%rd2, %%p1, 1, 1, 0, 0;", f4);
  expect_error(b, HDR90A, "no .m64n12k16 form");
  expect_error("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8,%r9,%r10,%r11,%r12,"
               "%r13,%r14,%r15,%r16,%r17,%r18,%r19}, %rd1, %rd2, %p1;", HDR90A, "no .m64n40k32 form");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k8.f32.f16.f16 %s, %%rd1, %%rd2, %%p1, 1, 1, 0, 0;", f4);
  expect_error(b, HDR90A, "no .m64n8k8 form");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%%r0, %%r1}, %%rd1, %%rd2, %%p1, 1, 1, 0, 0;");
  expect_error(b, HDR90A, "no .m64n8k16 form");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k16.satfinite.f32.f16.f16 %s, %%rd1, %%rd2, %%p1, 1, 1, 0, 0;", f4);
  expect_error(b, HDR90A, ".satfinite needs");
  expect_error("wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1 {%r0,%r1,%r2,%r3}, %rd1, %rd2, %p1;", HDR90A, ".and.popc");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 %s, %%rd1, %%rd2, %%p1, 1, 1, 0, 0;", f4);
  expect_error(b, HDR90A, "takes 6 operands");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 %s, {%%r0, %%r1, %%r2, %%r3}, %%rd2, %%p1, 1, 1, 0, 0;", f4);
  expect_error(b, HDR90A, "takes 7 operands");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 %s, %%rd1, %%rd2, %%r1, 1, 1, 0, 0;", f4);
  expect_error(b, HDR90A, "is not a predicate");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 %s, %%rd1, %%rd2, 2, 1, 1, 0, 0;", f4);
  expect_error(b, HDR90A, "scale-d must be a predicate, 0 or 1");
  snprintf(b, sizeof b, "wgmma.mma_async.sync.aligned.m64n8k16.rn.f32.f16.f16 %s, %%rd1, %%rd2, %%p1, 1, 1, 0, 0;", f4);
  expect_error(b, HDR90A, "unexpected modifier '.rn'");
}

/* valid forms warpvm does not run (sparse .sp) load, and the launch is refused naming the instruction */
static void test_wgmma_sparse_refused(void **state) {
  wv_vm *vm = *state;
  const char *ptx = HDR90A ".visible .entry k()\n{\n.reg .f32 %f<4>; .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
                           "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %r1, 0, %p1, "
                           "1, 1, 0, 0;\nret;\n}\n";
  const wv_kernel *k = wvt_kernel(vm, ptx, "k");
  wvt_buf b[1] = {{NULL, 0}};
  wv_status st = wvt_run(vm, k, 1, 128, 0, b);
  wvt_assert_status(vm, st, WV_ERR_UNSUPPORTED);
  wvt_assert_contains(wv_last_error(vm), "wgmma.mma_async.sp");
}

/* .sync.aligned: a partial warp is a device fault; so is a descriptor naming bytes outside shared memory */
static void test_wgmma_faults(void **state) {
  wv_vm *vm = *state;
  const char *div = HDR90A ".visible .entry k()\n{\n.reg .b32 %r<4>; .reg .pred %p;\n"
                           "mov.u32 %r0, %laneid; setp.lt.u32 %p, %r0, 16; @%p bra SKIP;\n"
                           "wgmma.fence.sync.aligned;\nSKIP: ret;\n}\n";
  const wv_kernel *k = wvt_kernel(vm, div, "k");
  wvt_buf nb[1] = {{NULL, 0}};
  wv_status st = wvt_run(vm, k, 1, 128, 0, nb);
  if (st == WV_OK) fail_msg("wgmma.fence by half a warp ran");
  wvt_assert_contains(wv_last_error(vm), "needs the whole warp");
  const char *far = HDR90A ".visible .entry k()\n{\n.reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
                           ".shared .align 16 .b8 s[64];\nmov.u32 %r1, s; setp.ne.u32 %p1, %r1, 0;\n"
                           "mov.b64 %rd1, 0x0000004000103000; mov.b64 %rd2, 0x0000004000103000;\n"
                           "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r0, %r1, %r2, %r3}, %rd1, %rd2, %p1;\nret;\n}\n";
  k = wvt_kernel(vm, far, "k");
  st = wvt_run(vm, k, 1, 128, 0, nb);
  if (st == WV_OK) fail_msg("wgmma read shared memory at 0x30000 of a CTA with 64 bytes");
  wvt_assert_contains(wv_last_error(vm), "shared");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_wgmma_integer, wvt_setup, wvt_teardown),
    cmocka_unit_test(test_wgmma_decode_errors),
    cmocka_unit_test_setup_teardown(test_wgmma_sparse_refused, wvt_setup, wvt_teardown),
    cmocka_unit_test_setup_teardown(test_wgmma_faults, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
