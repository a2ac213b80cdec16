// mma_probe.cu — records the raw D fragments of warp-level mma.sync on a real GPU, for issue 13.
//
// For each case of mma_gen.h it regenerates the operands on the host (mma_gen.h is the specification), packs
// them into per-lane registers, runs one warp per test, and writes OUTDIR/<case>.bin (header + D words of
// every lane of every test), OUTDIR/<case>.samples.txt (inputs and outputs of tests 0..3 in hex) and
// OUTDIR/summary.txt (test count, FNV-1a 64 checksum of the payload, and a layout self-check: the tests whose
// result is exact in any arithmetic must match the host). Build: nvcc -O2 -arch=sm_90 -std=c++17.
// Usage: mma_probe OUTDIR [--tests N] [--host-only]   (--host-only writes the input samples, runs no GPU)
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <string>
#include <vector>
#include "mma_gen.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

// ---- device: one warp = one test; a/b/c/d hold MG_AW/MG_BW/MG_CW/MG_CW words per lane ----------------------
template <int CS>
__global__ void probe(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d, int ntests)
{
    int test = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (test >= ntests) return;  // warp-uniform
    size_t i = (size_t)test * 32 + lane;
    const uint32_t *A = a + i * MG_AW, *B = b + i * MG_BW, *C = c + i * MG_CW;
    uint32_t *D = d + i * MG_CW;
    if constexpr (CS == MG_F16_F16) {
        uint32_t d0, d1;
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                     : "=r"(d0), "=r"(d1)
                     : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "r"(C[0]), "r"(C[1]));
        D[0] = d0; D[1] = d1;
    } else if constexpr (CS == MG_F64) {
        double a0 = __longlong_as_double((long long)(((uint64_t)A[1] << 32) | A[0]));
        double b0 = __longlong_as_double((long long)(((uint64_t)B[1] << 32) | B[0]));
        double c0 = __longlong_as_double((long long)(((uint64_t)C[1] << 32) | C[0]));
        double c1 = __longlong_as_double((long long)(((uint64_t)C[3] << 32) | C[2]));
        double d0, d1;
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                     : "=d"(d0), "=d"(d1) : "d"(a0), "d"(b0), "d"(c0), "d"(c1));
        uint64_t u0 = (uint64_t)__double_as_longlong(d0), u1 = (uint64_t)__double_as_longlong(d1);
        D[0] = (uint32_t)u0; D[1] = (uint32_t)(u0 >> 32); D[2] = (uint32_t)u1; D[3] = (uint32_t)(u1 >> 32);
    } else if constexpr (CS == MG_S32_S8 || CS == MG_S32_S8_SAT) {
        int d0, d1, d2, d3;
#define MMA_S8(SAT) asm volatile("mma.sync.aligned.m16n8k32.row.col" SAT ".s32.s8.s8.s32 {%0,%1,%2,%3}, " \
        "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) \
        : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), \
          "r"(C[0]), "r"(C[1]), "r"(C[2]), "r"(C[3]))
        if constexpr (CS == MG_S32_S8_SAT) MMA_S8(".satfinite"); else MMA_S8("");
        D[0] = (uint32_t)d0; D[1] = (uint32_t)d1; D[2] = (uint32_t)d2; D[3] = (uint32_t)d3;
    } else {  // f32 accumulators
        float c0 = __uint_as_float(C[0]), c1 = __uint_as_float(C[1]), c2 = __uint_as_float(C[2]),
              c3 = __uint_as_float(C[3]), d0, d1, d2, d3;
#define MMA_F32(SHAPE_TYPES) asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
        "{%8,%9}, {%10,%11,%12,%13};" : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3) \
        : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3))
        if constexpr (CS == MG_F32_F16) MMA_F32("m16n8k16.row.col.f32.f16.f16.f32");
        else if constexpr (CS == MG_F32_BF16) MMA_F32("m16n8k16.row.col.f32.bf16.bf16.f32");
        else if constexpr (CS == MG_F32_TF32) MMA_F32("m16n8k8.row.col.f32.tf32.tf32.f32");
        else if constexpr (CS == MG_F32_E4M3 || CS == MG_F32_E4M3_X) MMA_F32("m16n8k32.row.col.f32.e4m3.e4m3.f32");
        else if constexpr (CS == MG_F32_E5M2 || CS == MG_F32_E5M2_X) MMA_F32("m16n8k32.row.col.f32.e5m2.e5m2.f32");
        D[0] = __float_as_uint(d0); D[1] = __float_as_uint(d1); D[2] = __float_as_uint(d2); D[3] = __float_as_uint(d3);
    }
}

typedef void (*kernel_fn)(const uint32_t *, const uint32_t *, const uint32_t *, uint32_t *, int);
static const kernel_fn kernels[MG_NCASES] = {probe<MG_F32_F16>, probe<MG_F16_F16>, probe<MG_F32_BF16>,
    probe<MG_F32_TF32>, probe<MG_F32_E4M3>, probe<MG_F32_E5M2>, probe<MG_S32_S8>, probe<MG_S32_S8_SAT>, probe<MG_F64>,
    probe<MG_F32_E4M3_X>, probe<MG_F32_E5M2_X>};

// ---- host -----------------------------------------------------------------------------------------------
static uint64_t fnv1a(const void *p, size_t n, uint64_t h = 0xcbf29ce484222325ull)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

// D expected for tests exact in any arithmetic (ints; the MG_SMALLINT class); false if the test is not one.
static bool exact_expected(mg_case cs, const mg_test &t, int row, int col, uint64_t *bits)
{
    const mg_case_info &ci = mg_cases[cs];
    if (mg_is_int(cs)) {
        long long s = (int32_t)(uint32_t)t.c[row][col];
        for (int k = 0; k < ci.k; k++) s += (long long)(int8_t)t.a[row][k] * (int8_t)t.b[k][col];
        if (cs == MG_S32_S8_SAT) s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
        *bits = (uint32_t)(int32_t)(uint32_t)(uint64_t)s;
        return true;
    }
    if (mg_is_x(cs) || t.cls != MG_SMALLINT) return false;
    double s = mg_to_double(ci.cd, t.c[row][col]);
    for (int k = 0; k < ci.k; k++) s += mg_to_double(ci.ab, t.a[row][k]) * mg_to_double(ci.ab, t.b[k][col]);
    *bits = mg_from_double(ci.cd, s);
    return true;
}

// element (word w, half h) of lane l's D, as bits of the D format
static uint64_t d_elem(mg_case cs, const uint32_t *dl, int w, int h)
{
    if (mg_cases[cs].cd == MG_FMT_F16) return (dl[w] >> (16 * h)) & 0xffff;
    if (mg_cases[cs].cd == MG_FMT_F64) return ((uint64_t)dl[w + 1] << 32) | dl[w];
    return dl[w];
}

static void write_samples(const std::string &path, mg_case cs, int n, const std::vector<uint32_t> *d)
{
    FILE *f = fopen(path.c_str(), "w");
    if (!f) { perror(path.c_str()); exit(1); }
    const mg_case_info &ci = mg_cases[cs];
    static uint32_t a[32][MG_AW], b[32][MG_BW], c[32][MG_CW];
    fprintf(f, "# %s: tests 0..%d, matrices as bits (A MxK row-major, B KxN row-major, C MxN), then per-lane "
               "registers (hex words) A | B | C | D\n", ci.name, n - 1);
    for (int i = 0; i < n; i++) {
        mg_test t;
        mg_gen_test(cs, (uint32_t)i, &t);
        mg_pack_lanes(cs, &t, a, b, c);
        fprintf(f, "test %d class %d\nA\n", i, t.cls);
        for (int m = 0; m < ci.m; m++) { for (int k = 0; k < ci.k; k++) fprintf(f, " %llx", (unsigned long long)t.a[m][k]); fputc('\n', f); }
        fprintf(f, "B\n");
        for (int k = 0; k < ci.k; k++) { for (int x = 0; x < ci.n; x++) fprintf(f, " %llx", (unsigned long long)t.b[k][x]); fputc('\n', f); }
        fprintf(f, "C\n");
        for (int m = 0; m < ci.m; m++) { for (int x = 0; x < ci.n; x++) fprintf(f, " %llx", (unsigned long long)t.c[m][x]); fputc('\n', f); }
        fprintf(f, "lanes\n");
        for (int l = 0; l < 32; l++) {
            fprintf(f, "%2d:", l);
            for (int w = 0; w < MG_AW; w++) fprintf(f, " %08x", a[l][w]);
            fprintf(f, " |");
            for (int w = 0; w < MG_BW; w++) fprintf(f, " %08x", b[l][w]);
            fprintf(f, " |");
            for (int w = 0; w < ci.d_words; w++) fprintf(f, " %08x", c[l][w]);
            if (d) {
                fprintf(f, " |");
                for (int w = 0; w < ci.d_words; w++) fprintf(f, " %08x", (*d)[((size_t)i * 32 + l) * ci.d_words + w]);
            }
            fputc('\n', f);
        }
    }
    fclose(f);
}

// the .bin header: 64 bytes, little-endian
struct bin_header {
    char magic[8];          // "WVMMA1\0\0"
    uint32_t version;       // 1
    uint32_t case_id;       // enum mg_case
    uint32_t ntests;
    uint32_t d_words;       // 32-bit words of D per lane
    uint64_t seed;          // mg_cases[case_id].seed
    char name[32];          // mg_cases[case_id].name, NUL-padded
};
static_assert(sizeof(bin_header) == 64, "header is 64 bytes");

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s OUTDIR [--tests N] [--host-only]\n", argv[0]); return 1; }
    std::string out = argv[1];
    int ntests = 3300;  // 300 per float class, 825 per integer class
    bool host_only = false;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--tests") && i + 1 < argc) ntests = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--host-only")) host_only = true;
        else { fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], argv[i]); return 1; }
    }
    if (ntests < 4 || ntests > 1000000) { fprintf(stderr, "%s: --tests must be in [4, 1000000]\n", argv[0]); return 1; }
    FILE *sum = fopen((out + "/summary.txt").c_str(), "w");
    if (!sum) { perror((out + "/summary.txt").c_str()); return 1; }
    fprintf(sum, "# case ntests d_words payload_bytes fnv1a64(payload) exact_checked exact_mismatches\n");
    int bad_total = 0;
    if (!host_only) {
        cudaDeviceProp prop;
        CK(cudaGetDeviceProperties(&prop, 0));
        fprintf(sum, "# device: %s, sm_%d%d\n", prop.name, prop.major, prop.minor);
        printf("device: %s, sm_%d%d\n", prop.name, prop.major, prop.minor);
    }
    for (int ci_ = 0; ci_ < MG_NCASES; ci_++) {
        mg_case cs = (mg_case)ci_;
        const mg_case_info &ci = mg_cases[cs];
        if (host_only) { write_samples(out + "/" + ci.name + ".samples.txt", cs, 4, nullptr); continue; }
        size_t nl = (size_t)ntests * 32;
        std::vector<uint32_t> ha(nl * MG_AW), hb(nl * MG_BW), hc(nl * MG_CW), hd(nl * MG_CW);
        std::vector<mg_test> tests(ntests);
        for (int i = 0; i < ntests; i++) {
            mg_gen_test(cs, (uint32_t)i, &tests[i]);
            mg_pack_lanes(cs, &tests[i], (uint32_t(*)[MG_AW])&ha[(size_t)i * 32 * MG_AW],
                          (uint32_t(*)[MG_BW])&hb[(size_t)i * 32 * MG_BW], (uint32_t(*)[MG_CW])&hc[(size_t)i * 32 * MG_CW]);
        }
        uint32_t *da, *db, *dc, *dd;
        CK(cudaMalloc(&da, ha.size() * 4)); CK(cudaMalloc(&db, hb.size() * 4));
        CK(cudaMalloc(&dc, hc.size() * 4)); CK(cudaMalloc(&dd, hd.size() * 4));
        CK(cudaMemcpy(da, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dc, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(dd, 0xff, hd.size() * 4));
        kernels[cs]<<<(ntests + 3) / 4, 128>>>(da, db, dc, dd, ntests);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(hd.data(), dd, hd.size() * 4, cudaMemcpyDeviceToHost));
        CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc)); CK(cudaFree(dd));
        // compact to d_words per lane
        std::vector<uint32_t> d(nl * ci.d_words);
        for (size_t l = 0; l < nl; l++) for (int w = 0; w < ci.d_words; w++) d[l * ci.d_words + w] = hd[l * MG_CW + w];
        // exact self-check (validates the fragment packing on the GPU)
        long checked = 0, bad = 0;
        int step = ci.cd == MG_FMT_F64 ? 2 : 1, halves = ci.cd == MG_FMT_F16 ? 2 : 1;
        for (int i = 0; i < ntests; i++) for (int l = 0; l < 32; l++)
            for (int w = 0; w < ci.d_words; w += step) for (int h = 0; h < halves; h++) {
                int row, col;
                uint64_t want;
                mg_d_pos(cs, l, w, h, &row, &col);
                if (!exact_expected(cs, tests[i], row, col, &want)) continue;
                checked++;
                uint64_t got = d_elem(cs, &d[((size_t)i * 32 + l) * ci.d_words], w, h);
                if (got != want && bad++ < 5)
                    fprintf(stderr, "%s: test %d lane %d word %d half %d (D[%d][%d]): got %llx, exact %llx\n",
                            ci.name, i, l, w, h, row, col, (unsigned long long)got, (unsigned long long)want);
            }
        bad_total += bad != 0;
        bin_header hdr;
        memset(&hdr, 0, sizeof hdr);
        memcpy(hdr.magic, "WVMMA1", 6);
        hdr.version = 1; hdr.case_id = (uint32_t)cs; hdr.ntests = (uint32_t)ntests; hdr.d_words = (uint32_t)ci.d_words;
        hdr.seed = ci.seed;
        strncpy(hdr.name, ci.name, sizeof hdr.name - 1);
        std::string path = out + "/" + ci.name + ".bin";
        FILE *f = fopen(path.c_str(), "wb");
        if (!f || fwrite(&hdr, sizeof hdr, 1, f) != 1 || fwrite(d.data(), 4, d.size(), f) != d.size() || fclose(f)) {
            perror(path.c_str()); return 1;
        }
        fprintf(sum, "%s %d %d %zu %016llx %ld %ld\n", ci.name, ntests, ci.d_words, d.size() * 4,
                (unsigned long long)fnv1a(d.data(), d.size() * 4), checked, bad);
        printf("%-36s %5d tests  exact-checked %7ld  mismatches %ld\n", ci.name, ntests, checked, bad);
        write_samples(out + "/" + ci.name + ".samples.txt", cs, 4, &d);
    }
    fclose(sum);
    if (bad_total) fprintf(stderr, "%d case(s) disagree with exact arithmetic: check the fragment packing\n", bad_total);
    return bad_total ? 2 : 0;
}
