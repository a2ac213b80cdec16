/*
 * test_exec_memcheck.c — address arithmetic and what the GPU tolerates, through the C API:
 *   - 32-bit state-space addresses wrap (PTX ISA §6.4.1: an address is zero-extended, and truncated to
 *     the state space's address width; .shared, .local and .param addresses are 32 bits): [%r+imm] with
 *     a .u32 or .u64 register in .shared/.local/.param, negative immediates, stores and atomics through
 *     a wrapped address, a wrapped address that lands outside shared memory (a fault);
 *   - the GPU's memory map (src/exec/mem.h): how cudaMalloc's allocations are laid out (chunks, first fit,
 *     pages), reads outside an allocation but inside a mapping (the bytes the GPU would read: 0, another
 *     allocation's, a freed one's), reads and writes that still fault, large allocations, freed memory,
 *     where shared and local memory lie and how far reads reach around them;
 *   - the diagnostics (wv_diag_*): counts, the first records, the printed report, resets;
 *   - wv_config.checks: WV_CHECK_MEMCHECK turns the first invalid read into the usual fault report;
 *     wv_checks_parse.
 * Layout expectations are written in terms of the model's constants (mem.h), which are calibrated
 * against a GPU by tests/memprobe; the wrap expectations come from the PTX ISA.
 */
#include "wv_test.h"

#include "exec/mem.h"

static uint64_t rup(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* ---- wv_checks_parse ------------------------------------------------------------------------------ */

static void test_checks_parse(void **state) {
  (void)state;
  uint32_t c = 99;
  assert_int_equal(wv_checks_parse("memcheck", &c), WV_OK);
  assert_int_equal(c, WV_CHECK_MEMCHECK);
  assert_int_equal(wv_checks_parse("synccheck", &c), WV_OK);
  assert_int_equal(c, WV_CHECK_SYNCCHECK);
  assert_int_equal(wv_checks_parse("synccheck,memcheck", &c), WV_OK);
  assert_int_equal(c, WV_CHECK_MEMCHECK | WV_CHECK_SYNCCHECK);
  assert_int_equal(wv_checks_parse("", &c), WV_OK);
  assert_int_equal(c, 0);
  const char *bad[] = {"racecheck", "memcheck,", ",memcheck", "memcheck,,synccheck", "memchecks", "MEMCHECK"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    c = 99;
    assert_int_equal(wv_checks_parse(bad[i], &c), WV_ERR_INVALID);
    assert_int_equal(c, 0);
  }
  assert_int_equal(wv_checks_parse(NULL, &c), WV_ERR_INVALID);
}

/* ---- 32-bit addresses wrap ------------------------------------------------------------------------- */

/* s[i] = 100 + i; then every address form reaches s[1..4] through a sum that overflows 32 bits. */
static const char WRAP_SHARED_PTX[] = WVT_HDR
    ".visible .entry wrap_shared(.param .u32 pr, .param .u64 prd, .param .u64 pout)\n"
    "{\n"
    ".shared .align 4 .b8 s[32];\n"
    ".reg .b32 %r<24>; .reg .b64 %rd<16>; .reg .pred %p<2>;\n"
    "ld.param.u32 %r1, [pr];\n"                 /* 0xfffffffc */
    "ld.param.u64 %rd1, [prd];\n"               /* 0xfffffffc */
    "ld.param.u64 %rd2, [pout];\n"
    "mov.u32 %r2, s;\n"
    "mov.u32 %r20, 0;\n"
    "FILL:\n"
    "shl.b32 %r21, %r20, 2;\n add.u32 %r22, %r2, %r21;\n add.u32 %r23, %r20, 100;\n"
    "st.shared.u32 [%r22], %r23;\n"
    "add.u32 %r20, %r20, 1;\n setp.lt.u32 %p1, %r20, 8;\n @%p1 bra FILL;\n"
    "add.u32 %r3, %r2, %r1;\n"                  /* s - 4, wrapped in the register */
    "ld.shared.u32 %r4, [%r3+8];\n"             /* (1) .u32 register + imm overflows: s+4 */
    "add.u32 %r5, %r2, 12;\n"
    "ld.shared.u32 %r6, [%r5+-8];\n"            /* (2) a negative immediate: s+4 */
    "cvt.u64.u32 %rd3, %r2;\n"
    "add.s64 %rd4, %rd3, %rd1;\n"               /* s + 0xfffffffc in 64 bits */
    "ld.shared.u32 %r7, [%rd4+8];\n"            /* (3) .u64 register + imm, truncated: s+4 */
    "add.s64 %rd5, %rd3, 4294967304;\n"         /* s + 2^32 + 8 */
    "ld.shared.u32 %r8, [%rd5];\n"              /* (4) .u64 register above 2^32, truncated: s+8 */
    "mov.u32 %r9, 555;\n"
    "st.shared.u32 [%r3+16], %r9;\n"            /* (5) a store through a wrapped address: s+12 */
    "ld.shared.u32 %r10, [s+12];\n"
    "atom.shared.add.u32 %r11, [%r3+20], 1000;\n" /* (6) an atomic: s+16 */
    "ld.shared.u32 %r12, [s+16];\n"
    "add.u32 %r13, %r3, 24;\n"                  /* (7) a generic address of a wrapped shared address: s+20 */
    "cvt.u64.u32 %rd6, %r13;\n"
    "cvta.shared.u64 %rd7, %rd6;\n"
    "ld.u32 %r14, [%rd7];\n"
    "st.global.v4.u32 [%rd2], {%r4, %r6, %r7, %r8};\n"
    "st.global.v4.u32 [%rd2+16], {%r10, %r11, %r12, %r14};\n"
    "ret;\n"
    "}\n"
    /* a wrapped address: 4 - 8 = 0xfffffffc, past the 16 MiB shared window */
    ".visible .entry wrap_below(.param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<2>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u32 %r2, 4;\n"
    "ld.shared.u32 %r3, [%r2+-8]; // BELOW\n"
    "st.global.u32 [%rd1], %r3;\n"
    "ret;\n"
    "}\n";

static void test_wrap_shared(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load(vm, WRAP_SHARED_PTX);
  const wv_kernel *k = wvt_get(m, vm, "wrap_shared");
  wv_devptr out;
  assert_int_equal(wv_malloc(vm, 32, &out), WV_OK);
  uint32_t r = 0xfffffffcu;
  uint64_t rd = 0xfffffffcull;
  void *args[] = {&r, &rd, &out};
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args));
  uint32_t got[8];
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
  const uint32_t want[8] = {101, 101, 101, 102, 555, 104, 1104, 105};
  for (int i = 0; i < 8; i++) assert_int_equal(got[i], want[i]);
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 0);

  const wv_kernel *kb = wvt_get(m, vm, "wrap_below");
  void *bargs[] = {&out};
  wv_status st = wv_launch(vm, kb, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, bargs);
  wvt_assert_status(vm, st, WV_ERR_ILLEGAL_INSN); /* as the H100 reports it (tests/memprobe: shared 4) */
  wvt_assert_contains(wv_last_error(vm), "shared load of 4 bytes past the end of the shared window");
  wvt_assert_contains(wv_last_error(vm), "at address 0xfffffffc ");
  char want_line[32];
  snprintf(want_line, sizeof want_line, "PTX line %u ", wvt_line_of(WRAP_SHARED_PTX, "BELOW"));
  wvt_assert_contains(wv_last_error(vm), want_line);
}

static const char WRAP_LOCAL_PTX[] = WVT_HDR
    ".visible .entry wrap_local(.param .u32 pr, .param .u64 prd, .param .u64 pout)\n"
    "{\n"
    ".local .align 4 .b8 l[32];\n"
    ".reg .b32 %r<24>; .reg .b64 %rd<16>; .reg .pred %p<2>;\n"
    "ld.param.u32 %r1, [pr];\n"
    "ld.param.u64 %rd1, [prd];\n"
    "ld.param.u64 %rd2, [pout];\n"
    "mov.u32 %r2, l;\n"
    "mov.u32 %r20, 0;\n"
    "FILL:\n"
    "shl.b32 %r21, %r20, 2;\n add.u32 %r22, %r2, %r21;\n add.u32 %r23, %r20, 200;\n"
    "st.local.u32 [%r22], %r23;\n"
    "add.u32 %r20, %r20, 1;\n setp.lt.u32 %p1, %r20, 8;\n @%p1 bra FILL;\n"
    "add.u32 %r3, %r2, %r1;\n"                  /* l - 4, wrapped in the register */
    "ld.local.u32 %r4, [%r3+8];\n"              /* .u32 register + imm overflows: l+4 */
    "mov.u64 %rd3, l;\n"
    "add.s64 %rd4, %rd3, %rd1;\n"
    "ld.local.u32 %r5, [%rd4+8];\n"             /* .u64 register + imm, truncated: l+4 */
    "mov.u32 %r6, 777;\n"
    "st.local.u32 [%r3+16], %r6;\n"             /* a store through a wrapped address: l+12 */
    "ld.local.u32 %r7, [l+12];\n"
    "add.u32 %r8, %r2, 20;\n"
    "ld.local.u32 %r9, [%r8+-4];\n"             /* a negative immediate: l+16 */
    "st.global.v4.u32 [%rd2], {%r4, %r5, %r7, %r9};\n"
    "ret;\n"
    "}\n"
    /* kernel parameters: .param addresses are 32 bits too */
    ".visible .entry wrap_param(.param .u32 pa, .param .u32 pb, .param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [pout];\n"
    "mov.u64 %rd2, pa;\n"
    "add.s64 %rd3, %rd2, 4294967292;\n"         /* pa + 0xfffffffc */
    "ld.param.u32 %r1, [%rd3+8];\n"             /* truncated: pa + 4 = pb */
    "st.global.u32 [%rd1], %r1;\n"
    "ret;\n"
    "}\n";

static void test_wrap_local_and_param(void **state) {
  wv_vm *vm = *state;
  wv_module *m = wvt_load(vm, WRAP_LOCAL_PTX);
  wv_devptr out;
  assert_int_equal(wv_malloc(vm, 16, &out), WV_OK);
  uint32_t r = 0xfffffffcu;
  uint64_t rd = 0xfffffffcull;
  void *args[] = {&r, &rd, &out};
  wvt_expect_ok(vm, wv_launch(vm, wvt_get(m, vm, "wrap_local"), wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args));
  uint32_t got[4];
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
  assert_int_equal(got[0], 201);
  assert_int_equal(got[1], 201);
  assert_int_equal(got[2], 777);
  assert_int_equal(got[3], 204);

  uint32_t a = 11, b = 22;
  void *pargs[] = {&a, &b, &out};
  wvt_expect_ok(vm, wv_launch(vm, wvt_get(m, vm, "wrap_param"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, pargs));
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, 4), WV_OK);
  assert_int_equal(got[0], 22);
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 0);
}

/* ---- the GPU's memory map ---------------------------------------------------------------------- */

static const char PEEK_PTX[] = WVT_HDR
    ".visible .entry peek(.param .u64 pbase, .param .u64 poff, .param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<2>; .reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [pbase];\n ld.param.u64 %rd2, [poff];\n ld.param.u64 %rd3, [pout];\n"
    "add.s64 %rd4, %rd1, %rd2;\n"
    "ld.global.u32 %r1, [%rd4]; // PEEK\n"
    "st.global.u32 [%rd3], %r1;\n"
    "ret;\n"
    "}\n"
    ".visible .entry peek64(.param .u64 pbase, .param .u64 poff, .param .u64 pout)\n"
    "{\n"
    ".reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [pbase];\n ld.param.u64 %rd2, [poff];\n ld.param.u64 %rd3, [pout];\n"
    "add.s64 %rd4, %rd1, %rd2;\n"
    "ld.global.u64 %rd5, [%rd4];\n"
    "st.global.u64 [%rd3], %rd5;\n"
    "ret;\n"
    "}\n"
    ".visible .entry poke(.param .u64 pbase, .param .u64 poff, .param .u32 pv)\n"
    "{\n"
    ".reg .b32 %r<2>; .reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [pbase];\n ld.param.u64 %rd2, [poff];\n ld.param.u32 %r1, [pv];\n"
    "add.s64 %rd4, %rd1, %rd2;\n"
    "st.global.u32 [%rd4], %r1; // POKE\n"
    "ret;\n"
    "}\n"
    /* out[t] = in[t] for every thread: the threads past the end of `in` read outside it */
    ".visible .entry copy_all(.param .u64 pin, .param .u64 pout)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [pin];\n ld.param.u64 %rd2, [pout];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd3, %r1, 4;\n"
    "add.s64 %rd4, %rd1, %rd3;\n add.s64 %rd5, %rd2, %rd3;\n"
    "ld.global.u32 %r2, [%rd4]; // COPY_LOAD\n"
    "st.global.u32 [%rd5], %r2;\n"
    "ret;\n"
    "}\n";

typedef struct peeker {
  wv_vm *vm;
  const wv_kernel *peek, *peek64, *poke, *copy_all;
  wv_devptr out;
} peeker;

static peeker peeker_new(wv_vm *vm) {
  wv_module *m = wvt_load(vm, PEEK_PTX);
  peeker p = {vm, wvt_get(m, vm, "peek"), wvt_get(m, vm, "peek64"), wvt_get(m, vm, "poke"), wvt_get(m, vm, "copy_all"), 0};
  return p;
}

/* The u32 (or u64) a one-thread kernel reads at base + off (needs p->out). */
static wv_status peek(peeker *p, wv_devptr base, int64_t off, uint64_t *got, int wide) {
  void *args[] = {&base, &off, &p->out};
  uint64_t zero = 0;
  assert_int_equal(wv_memcpy_htod(p->vm, p->out, &zero, 8), WV_OK);
  wv_status st = wv_launch(p->vm, wide ? p->peek64 : p->peek, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args);
  *got = 0;
  if (st == WV_OK) assert_int_equal(wv_memcpy_dtoh(p->vm, got, p->out, wide ? 8 : 4), WV_OK);
  return st;
}

static uint64_t peek_ok(peeker *p, wv_devptr base, int64_t off) {
  uint64_t v;
  wvt_expect_ok(p->vm, peek(p, base, off, &v, 0));
  return v;
}

static void peek_faults(peeker *p, wv_devptr base, int64_t off) {
  uint64_t v;
  wv_status st = peek(p, base, off, &v, 0);
  wvt_assert_status(p->vm, st, WV_ERR_FAULT);
  wvt_assert_contains(wv_last_error(p->vm), "out-of-bounds global load of 4 bytes");
  char want[48];
  snprintf(want, sizeof want, "at address 0x%llx ", (unsigned long long)(base + (uint64_t)off));
  wvt_assert_contains(wv_last_error(p->vm), want);
}

static wv_devptr alloc_filled(wv_vm *vm, size_t n, uint8_t byte) {
  wv_devptr d;
  assert_int_equal(wv_malloc(vm, n, &d), WV_OK);
  assert_int_equal(wv_memset(vm, d, byte, n), WV_OK);
  return d;
}

/* Small allocations are packed at the allocation grain, first fit; a large one gets pages of its own. */
static void test_layout(void **state) {
  wv_vm *vm = *state;
  wv_devptr a, b, c, d, big, e, f, g, h2, mid;
  assert_int_equal(wv_malloc(vm, 100, &a), WV_OK);
  assert_int_equal(a, WV_GPU_HOME); /* the first chunk */
  assert_int_equal(wv_malloc(vm, 100, &b), WV_OK);
  assert_int_equal(wv_malloc(vm, WV_GPU_ALLOC_GRAIN + 1, &c), WV_OK);
  assert_int_equal(wv_malloc(vm, 1, &d), WV_OK);
  assert_int_equal(b - a, rup(100, WV_GPU_ALLOC_GRAIN));
  assert_int_equal(c - b, rup(100, WV_GPU_ALLOC_GRAIN));
  assert_int_equal(d - c, rup(WV_GPU_ALLOC_GRAIN + 1, WV_GPU_ALLOC_GRAIN));
  assert_int_equal(wv_malloc(vm, WV_GPU_CHUNK - WV_GPU_ALLOC_GRAIN + 1, &big), WV_OK); /* rounds up to a chunk: large */
  assert_int_equal(big, WV_GPU_PAGES);
  assert_int_equal(wv_malloc(vm, 4, &e), WV_OK); /* back in the chunk */
  assert_int_equal(e, d + WV_GPU_ALLOC_GRAIN);
  assert_int_equal(wv_malloc(vm, 3 * WV_GPU_PAGE, &f), WV_OK); /* the next free pages */
  assert_int_equal(f, big + WV_GPU_PAGE);
  assert_int_equal(wv_malloc(vm, WV_GPU_CHUNK / 2, &mid), WV_OK); /* half a chunk is small */
  assert_int_equal(mid, e + WV_GPU_ALLOC_GRAIN);
  /* a small one that fits no chunk opens one on the next free pages */
  assert_int_equal(wv_malloc(vm, WV_GPU_CHUNK - WV_GPU_ALLOC_GRAIN, &g), WV_OK);
  assert_int_equal(g, f + 3 * WV_GPU_PAGE);
  /* freed space is used again, first fit: in the first chunk, then pages */
  assert_int_equal(wv_free(vm, b), WV_OK);
  assert_int_equal(wv_malloc(vm, 8, &h2), WV_OK);
  assert_int_equal(h2, b);
  assert_int_equal(wv_free(vm, big), WV_OK);
  assert_int_equal(wv_malloc(vm, WV_GPU_PAGE, &big), WV_OK);
  assert_int_equal(big, WV_GPU_PAGES);
  assert_int_equal(wv_free(vm, f), WV_OK);
  assert_int_equal(wv_malloc(vm, 2 * WV_GPU_PAGE, &f), WV_OK); /* the first gap that holds it */
  assert_int_equal(f, WV_GPU_PAGES + WV_GPU_PAGE);
}

/* A read past the end of an allocation reads what the GPU would: 0 in the gap, the next allocation's
 * bytes beyond it; each read outside every allocation is an invalid read. */
static void test_overread(void **state) {
  wv_vm *vm = *state;
  peeker p = peeker_new(vm);
  wv_devptr a = alloc_filled(vm, 100, 0xa1), b = alloc_filled(vm, 100, 0xb2);
  assert_int_equal(wv_malloc(vm, 8, &p.out), WV_OK);
  assert_int_equal(peek_ok(&p, a, 100), 0);          /* just past the end */
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 1);
  char want[320];
  const char *r = wv_diag_record(vm, WV_DIAG_INVALID_READ, 0);
  assert_non_null(r);
  snprintf(want, sizeof want, "global load of 4 bytes at address 0x%llx (0 bytes after the nearest allocation at 0x%llx of size 100 bytes) in kernel 'peek', block (0,0,0), thread (0,0,0), PTX line %u of test.ptx",
           (unsigned long long)(a + 100), (unsigned long long)a, wvt_line_of(PEEK_PTX, "PEEK"));
  assert_string_equal(r, want);
  assert_int_equal(peek_ok(&p, a, (int64_t)(b - a)), 0xb2b2b2b2u); /* the next allocation: a valid read of b */
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 1);
  assert_int_equal(peek_ok(&p, b, -4), 0);            /* the end of a's grain, nearer to b */
  r = wv_diag_record(vm, WV_DIAG_INVALID_READ, 1);
  assert_non_null(r);
  snprintf(want, sizeof want, "(4 bytes before the nearest allocation at 0x%llx of size 100 bytes)", (unsigned long long)b);
  wvt_assert_contains(r, want);
  uint64_t v;
  wvt_expect_ok(vm, peek(&p, a, 96, &v, 1));          /* 4 bytes of a, 4 past its end */
  assert_int_equal(v, 0xa1a1a1a1ull);
  r = wv_diag_record(vm, WV_DIAG_INVALID_READ, 2);
  snprintf(want, sizeof want, "global load of 8 bytes at address 0x%llx (4 of them after the nearest allocation at 0x%llx of size 100 bytes)",
           (unsigned long long)(a + 96), (unsigned long long)a);
  wvt_assert_contains(r, want);
  assert_int_equal(peek_ok(&p, a, (int64_t)WV_GPU_CHUNK - 4), 0); /* the chunk's last word (a starts it) */
  /* the home region around the first chunk (a) */
  assert_int_equal(peek_ok(&p, a, (int64_t)WV_GPU_HOME_ABOVE - 4), 0);
  assert_int_equal(peek_ok(&p, a, -(int64_t)WV_GPU_HOME_BELOW), 0);
  wv_stats s;
  wv_get_stats(vm, &s);
  assert_int_equal(s.invalid_reads, 6);
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 6);
  /* outside every mapping: a fault, which is no invalid read */
  peek_faults(&p, a, (int64_t)WV_GPU_HOME_ABOVE);     /* no pages there yet */
  peek_faults(&p, a, -(int64_t)WV_GPU_HOME_BELOW - 4);
  wvt_assert_contains(wv_last_error(vm), "bytes before the nearest allocation at");
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 6);
}

/* Writes outside every allocation fault, wherever they land; a write into a neighbour is a write of it. */
static void test_overwrite_faults(void **state) {
  wv_vm *vm = *state;
  peeker p = peeker_new(vm);
  wv_devptr a = alloc_filled(vm, 100, 0xa1), b = alloc_filled(vm, 100, 0xb2);
  uint32_t val = 7;
  int64_t off = 100;
  void *args[] = {&a, &off, &val};
  wv_status st = wv_launch(vm, p.poke, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args);
  wvt_assert_status(vm, st, WV_ERR_FAULT);
  char want[256];
  snprintf(want, sizeof want, "out-of-bounds global store of 4 bytes (0 bytes after the nearest allocation at 0x%llx of size 100 bytes) at address 0x%llx in kernel 'poke', block (0,0,0), thread (0,0,0), PTX line %u of test.ptx",
           (unsigned long long)a, (unsigned long long)(a + 100), wvt_line_of(PEEK_PTX, "POKE"));
  assert_string_equal(wv_last_error(vm), want);
  off = (int64_t)(b - a);
  wvt_expect_ok(vm, wv_launch(vm, p.poke, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args));
  uint32_t back;
  assert_int_equal(wv_memcpy_dtoh(vm, &back, b, 4), WV_OK);
  assert_int_equal(back, 7);
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 0);
}

/* --check memcheck: the first invalid read is the usual fault report; a read of a neighbour is not one. */
static void test_memcheck(void **state) {
  (void)state;
  wv_config cfg = {.checks = WV_CHECK_MEMCHECK};
  wv_vm *vm = wv_create(&cfg);
  assert_non_null(vm);
  peeker p = peeker_new(vm);
  wv_devptr a = alloc_filled(vm, 100, 0xa1), b = alloc_filled(vm, 100, 0xb2);
  assert_int_equal(wv_malloc(vm, 8, &p.out), WV_OK);
  uint64_t v;
  wv_status st = peek(&p, a, 100, &v, 0);
  wvt_assert_status(vm, st, WV_ERR_FAULT);
  char want[256];
  snprintf(want, sizeof want, "out-of-bounds global load of 4 bytes (0 bytes after the nearest allocation at 0x%llx of size 100 bytes) at address 0x%llx in kernel 'peek', block (0,0,0), thread (0,0,0), PTX line %u of test.ptx",
           (unsigned long long)a, (unsigned long long)(a + 100), wvt_line_of(PEEK_PTX, "PEEK"));
  assert_string_equal(wv_last_error(vm), want);
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 0);
  assert_int_equal(peek_ok(&p, a, (int64_t)(b - a)), 0xb2b2b2b2u);
  wv_destroy(vm);
}

/* Counts and the first WV_DIAG_KEEP records, across launches; the printed report; the resets. */
static void test_diag_records(void **state) {
  wv_vm *vm = *state;
  peeker p = peeker_new(vm);
  wv_devptr in = alloc_filled(vm, 64, 1), out;
  assert_int_equal(wv_malloc(vm, 128, &out), WV_OK);
  void *args[] = {&in, &out};
  wvt_expect_ok(vm, wv_launch(vm, p.copy_all, wvt_dim(1, 1, 1), wvt_dim(32, 1, 1), 0, args));
  uint32_t got[32];
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, sizeof got), WV_OK);
  for (int t = 0; t < 32; t++) assert_int_equal(got[t], t < 16 ? 0x01010101u : 0);
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 16); /* threads 16..31 */
  for (uint32_t i = 0; i < WV_DIAG_KEEP; i++) { /* the first ones, in the order they happened */
    char want[96];
    snprintf(want, sizeof want, "at address 0x%llx (%u bytes after", (unsigned long long)(in + 64 + 4 * i), 4 * i);
    wvt_assert_contains(wv_diag_record(vm, WV_DIAG_INVALID_READ, i), want);
    snprintf(want, sizeof want, "thread (%u,0,0), PTX line %u ", 16 + i, wvt_line_of(PEEK_PTX, "COPY_LOAD"));
    wvt_assert_contains(wv_diag_record(vm, WV_DIAG_INVALID_READ, i), want);
  }
  assert_null(wv_diag_record(vm, WV_DIAG_INVALID_READ, WV_DIAG_KEEP));
  wvt_expect_ok(vm, wv_launch(vm, p.copy_all, wvt_dim(1, 1, 1), wvt_dim(20, 1, 1), 0, args));
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 20);

  FILE *f = tmpfile();
  assert_non_null(f);
  wv_diag_print(vm, f);
  rewind(f);
  char line[512];
  int n = 0;
  assert_non_null(fgets(line, sizeof line, f));
  wvt_assert_contains(line, "warpvm: 20 invalid reads: loads outside every allocation");
  wvt_assert_contains(line, "--check memcheck");
  while (fgets(line, sizeof line, f)) {
    wvt_assert_contains(line, "warpvm:   global load of 4 bytes at address 0x");
    n++;
  }
  assert_int_equal(n, WV_DIAG_KEEP);
  fclose(f);

  wv_stats s;
  wv_stats_reset(vm); /* the stats' counter goes, the diagnostics stay */
  wv_get_stats(vm, &s);
  assert_int_equal(s.invalid_reads, 0);
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 20);
  wv_diag_reset(vm);
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 0);
  assert_null(wv_diag_record(vm, WV_DIAG_INVALID_READ, 0));
  f = tmpfile();
  wv_diag_print(vm, f);
  assert_int_equal(ftell(f), 0); /* nothing recorded, nothing printed */
  fclose(f);
}

/* A large allocation's pages are mapped while it lives; a chunk keeps a freed allocation's bytes, and
 * goes with its last allocation (the first chunk's range stays mapped: the home region). */
static void test_large_and_freed(void **state) {
  wv_vm *vm = *state;
  peeker p = peeker_new(vm);
  assert_int_equal(wv_malloc(vm, 8, &p.out), WV_OK);
  wv_devptr small = alloc_filled(vm, 100, 0xc3), big = alloc_filled(vm, WV_GPU_CHUNK + 4, 0xd4);
  uint64_t mapped = rup(WV_GPU_CHUNK + 4, WV_GPU_PAGE);
  assert_int_equal(peek_ok(&p, big, (int64_t)WV_GPU_CHUNK), 0xd4d4d4d4u);
  assert_int_equal(peek_ok(&p, big, (int64_t)WV_GPU_CHUNK + 4), 0);
  assert_int_equal(peek_ok(&p, big, (int64_t)mapped - 4), 0);
  assert_int_equal(peek_ok(&p, big, -4), 0); /* the home region's end */
  peek_faults(&p, big, (int64_t)mapped);
  assert_int_equal(wv_free(vm, big), WV_OK);
  peek_faults(&p, big, 0);
  assert_int_equal(wv_free(vm, small), WV_OK);
  uint64_t before = wv_diag_count(vm, WV_DIAG_INVALID_READ);
  assert_int_equal(peek_ok(&p, small, 0), 0xc3c3c3c3u); /* a stale pointer into a chunk: an invalid read of its bytes */
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), before + 1);
  wv_devptr again;
  assert_int_equal(wv_malloc(vm, 100, &again), WV_OK); /* the same place, zeroed as cudaMalloc's memory is */
  assert_int_equal(again, small);
  assert_int_equal(peek_ok(&p, again, 0), 0);
  /* a chunk on pages of its own: unmapped when its last allocation goes */
  wv_devptr fill, other;
  assert_int_equal(wv_malloc(vm, WV_GPU_CHUNK - 2 * WV_GPU_ALLOC_GRAIN, &fill), WV_OK); /* the first chunk is full */
  other = alloc_filled(vm, 100, 0xe7);
  assert_int_equal(other, WV_GPU_PAGES);
  assert_int_equal(wv_free(vm, other), WV_OK);
  peek_faults(&p, other, 0);
}

/* Where shared and local memory lie and how far reads reach around them (mem.h): shared variables begin
 * at WV_SHARED_BASE, reads reach from WV_RESERVED_SMEM_END (below it: the CTA's system-software region) to the
 * CTA's memory rounded up to the grain; a thread's kernel frame
 * ends WV_GPU_LOCAL_RESERVED bytes below WV_GPU_LOCAL_TOP, reads reach from cudaLimitStackSize below that
 * to WV_GPU_LOCAL_TOP. Reads there are invalid reads of 0; writes, and reads beyond, fault. */
static void test_shared_and_local_reach(void **state) {
  wv_vm *vm = *state;
  enum { SH = WV_GPU_SHARED_GRAIN - 32 }; /* a multiple of 16: the block's shared size */
  char ptx[4096];
  snprintf(ptx, sizeof ptx,
           WVT_HDR
           ".visible .entry sh(.param .u32 poff, .param .u32 pst, .param .u64 pout)\n"
           "{\n"
           ".shared .align 4 .b8 s[%d];\n"
           ".reg .b32 %%r<8>; .reg .b64 %%rd<2>; .reg .pred %%p<2>;\n"
           "ld.param.u32 %%r1, [poff];\n ld.param.u32 %%r5, [pst];\n ld.param.u64 %%rd1, [pout];\n"
           "mov.u32 %%r2, s;\n add.u32 %%r3, %%r2, %%r1;\n"
           "setp.ne.u32 %%p1, %%r5, 0;\n"
           "@%%p1 st.shared.u32 [%%r3], %%r5;\n"
           "ld.shared.u32 %%r4, [%%r3];\n"
           "st.global.u32 [%%rd1], %%r4;\n"
           "ret;\n"
           "}\n"
           ".visible .entry lo(.param .u32 poff, .param .u32 pst, .param .u64 pout)\n"
           "{\n"
           ".local .align 4 .b8 l[16];\n"
           ".reg .b32 %%r<8>; .reg .b64 %%rd<2>; .reg .pred %%p<2>;\n"
           "ld.param.u32 %%r1, [poff];\n ld.param.u32 %%r5, [pst];\n ld.param.u64 %%rd1, [pout];\n"
           "mov.u32 %%r2, l;\n add.u32 %%r3, %%r2, %%r1;\n"
           "setp.ne.u32 %%p1, %%r5, 0;\n"
           "@%%p1 st.local.u32 [%%r3], %%r5;\n"
           "ld.local.u32 %%r4, [%%r3];\n"
           "st.global.u32 [%%rd1], %%r4;\n"
           "ret;\n"
           "}\n",
           SH);
  wv_module *m = wvt_load(vm, ptx);
  wv_devptr out;
  assert_int_equal(wv_malloc(vm, 4, &out), WV_OK);
  enum { STACK = 1024 }; /* the default cudaLimitStackSize */
  const uint32_t ltop = WV_GPU_LOCAL_TOP - WV_GPU_LOCAL_RESERVED, lbase = ltop - 16;
  struct {
    const char *k, *space;
    uint32_t base, size, reach; /* the variable's address, its size, the offset reads reach to */
    int64_t below;              /* the lowest offset a read reaches */
    wv_status under;            /* a read just below that */
  } c[] = {
      /* below shared address WV_RESERVED_SMEM_END: the CTA's system-software region (below) */
      {"sh", "shared", WV_SHARED_BASE, SH, WV_GPU_SHARED_GRAIN, -(int64_t)(WV_SHARED_BASE - WV_RESERVED_SMEM_END), WV_OK},
      {"lo", "local", lbase, 16, 16 + WV_GPU_LOCAL_RESERVED, -(int64_t)(STACK - 16), WV_ERR_FAULT},
  };
  for (int i = 0; i < 2; i++) {
    const wv_kernel *k = wvt_get(m, vm, c[i].k);
    uint32_t off, stv = 0, got = 1;
    void *args[] = {&off, &stv, &out};
    int64_t offs[] = {c[i].size, c[i].reach - 4, -4, c[i].below};
    wv_diag_reset(vm);
    for (int j = 0; j < 4; j++) {
      off = (uint32_t)offs[j];
      uint64_t before = wv_diag_count(vm, WV_DIAG_INVALID_READ);
      wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args));
      assert_int_equal(wv_memcpy_dtoh(vm, &got, out, 4), WV_OK);
      assert_int_equal(got, 0);
      assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), before + 1);
    }
    char want[160];
    if (i == 0) { /* the second record */
      snprintf(want, sizeof want, "shared load of 4 bytes at address 0x%x (%u bytes after the block's %u bytes of shared memory)",
               c[i].base + c[i].reach - 4, c[i].reach - 4 - c[i].size, SH);
      wvt_assert_contains(wv_diag_record(vm, WV_DIAG_INVALID_READ, 1), want);
    } else {
      snprintf(want, sizeof want, "local load of 4 bytes at address 0x%x (%u bytes above the thread's stack, which ends at 0x%x)",
               c[i].base + c[i].reach - 4, c[i].reach - 4 - c[i].size, ltop);
      wvt_assert_contains(wv_diag_record(vm, WV_DIAG_INVALID_READ, 1), want);
    }
    off = c[i].reach;
    wv_status st = wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args);
    wvt_assert_status(vm, st, WV_ERR_FAULT);
    snprintf(want, sizeof want, "out-of-bounds %s load of 4 bytes", c[i].space);
    wvt_assert_contains(wv_last_error(vm), want);
    off = (uint32_t)(c[i].below - 4);
    wvt_assert_status(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args), c[i].under);
    off = c[i].size, stv = 5;
    st = wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args);
    wvt_assert_status(vm, st, WV_ERR_FAULT);
    snprintf(want, sizeof want, "out-of-bounds %s store of 4 bytes", c[i].space);
    wvt_assert_contains(wv_last_error(vm), want);
    off = (uint32_t)-4; /* below the variable: the GPU's reserved shared memory, the rest of the stack */
    st = wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args);
    wvt_assert_status(vm, st, WV_ERR_FAULT);
    stv = 0;
  }
  /* shared addresses 0 .. WV_RESERVED_SMEM_END (cooperative groups' scratch: %reserved_smem_offset_1 to _end)
   * are the CTA's: a store there is read back, nothing is counted; below shared address 0 the address wraps
   * to 0xfffffffc, past the window */
  uint32_t off = 0u - WV_SHARED_BASE, stv = 77, got = 0;
  void *args[] = {&off, &stv, &out};
  wv_diag_reset(vm);
  for (uint32_t a = 0; a < WV_RESERVED_SMEM_END; a += WV_RESERVED_SMEM_END - 4) {
    off = a - WV_SHARED_BASE;
    wvt_expect_ok(vm, wv_launch(vm, wvt_get(m, vm, "sh"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args));
    assert_int_equal(wv_memcpy_dtoh(vm, &got, out, 4), WV_OK);
    assert_int_equal(got, 77);
  }
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 0);
  off = (uint32_t)-4 - WV_SHARED_BASE, stv = 0;
  wvt_assert_status(vm, wv_launch(vm, wvt_get(m, vm, "sh"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args), WV_ERR_ILLEGAL_INSN);
  /* a shared address past the 16 MiB window: what the GPU reports as an illegal instruction */
  off = WV_GPU_SHARED_WINDOW - WV_SHARED_BASE;
  wvt_assert_status(vm, wv_launch(vm, wvt_get(m, vm, "sh"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args), WV_ERR_ILLEGAL_INSN);
  off -= 4; /* inside the window, past the CTA's memory */
  wvt_assert_status(vm, wv_launch(vm, wvt_get(m, vm, "sh"), wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args), WV_ERR_FAULT);
}

/* cp.async from just past an allocation: the copy lands zeros and counts once (at issue). */
static const char CP_PTX[] = ".version 7.8\n.target sm_80\n.address_size 64\n"
    ".visible .entry cp(.param .u64 pin, .param .u64 pout)\n"
    "{\n"
    ".shared .align 16 .b8 s[16];\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [pin];\n ld.param.u64 %rd2, [pout];\n"
    "mov.u32 %r1, s;\n"
    "cp.async.ca.shared.global [%r1], [%rd1+16], 16;\n"
    "cp.async.wait_all;\n"
    "ld.shared.u32 %r2, [s];\n ld.shared.u32 %r3, [s+12];\n"
    "st.global.v2.u32 [%rd2], {%r2, %r3};\n"
    "ret;\n"
    "}\n";

static void test_async_copy_overread(void **state) {
  wv_vm *vm = *state;
  const wv_kernel *k = wvt_kernel(vm, CP_PTX, "cp");
  wv_devptr in = alloc_filled(vm, 20, 0xe5), out;
  assert_int_equal(wv_malloc(vm, 8, &out), WV_OK);
  void *args[] = {&in, &out};
  wvt_expect_ok(vm, wv_launch(vm, k, wvt_dim(1, 1, 1), wvt_dim(1, 1, 1), 0, args));
  uint32_t got[2];
  assert_int_equal(wv_memcpy_dtoh(vm, got, out, 8), WV_OK);
  assert_int_equal(got[0], 0xe5e5e5e5u);
  assert_int_equal(got[1], 0);
  assert_int_equal(wv_diag_count(vm, WV_DIAG_INVALID_READ), 1);
  wvt_assert_contains(wv_diag_record(vm, WV_DIAG_INVALID_READ, 0), "global load of 16 bytes at address");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_checks_parse),
      cmocka_unit_test_setup_teardown(test_wrap_shared, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_wrap_local_and_param, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_layout, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_overread, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_overwrite_faults, wvt_setup, wvt_teardown),
      cmocka_unit_test(test_memcheck),
      cmocka_unit_test_setup_teardown(test_diag_records, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_large_and_freed, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_shared_and_local_reach, wvt_setup, wvt_teardown),
      cmocka_unit_test_setup_teardown(test_async_copy_overread, wvt_setup, wvt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
