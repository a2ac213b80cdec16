/* mma_gen.h — the operand generator and fragment packing of the tensor-core probe (mma_probe.cu).
 *
 * Pure C17 (also compiled as CUDA C++ host code), no globals: this file IS the specification of the inputs
 * recorded on the GPU. A later analysis #includes it, calls mg_gen_test(case, test, &t) to get the exact
 * matrices A (MxK), B (KxN), C (MxN) of a test as raw bit patterns, and maps the recorded D registers back
 * to matrix elements with mg_d_pos(). See README.md in this folder. */
#ifndef MMA_GEN_H
#define MMA_GEN_H

#include <stdint.h>
#include <string.h>

/* ---- cases ------------------------------------------------------------------------------------------- */
enum mg_case {
    MG_F32_F16,   /* mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 */
    MG_F16_F16,   /* mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 */
    MG_F32_BF16,  /* mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 */
    MG_F32_TF32,  /* mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 */
    MG_F32_E4M3,  /* mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 */
    MG_F32_E5M2,  /* mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 */
    MG_S32_S8,    /* mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 (wraps) */
    MG_S32_S8_SAT,/* mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 */
    MG_F64,       /* mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 */
    MG_F32_E4M3_X,/* the e4m3 instruction again, on the fp8 classes below (mg_xclass): targeted fp8 tests */
    MG_F32_E5M2_X,/* the e5m2 instruction again, on the fp8 classes */
    MG_NCASES
};

/* Element formats. Floats are described by exponent/mantissa widths; bits are stored right-aligned
 * (tf32 is stored as an f32 bit pattern whose low 13 bits are normally zero). */
enum mg_fmt { MG_FMT_F16, MG_FMT_BF16, MG_FMT_TF32, MG_FMT_F32, MG_FMT_E4M3, MG_FMT_E5M2, MG_FMT_F64,
              MG_FMT_S8, MG_FMT_S32 };

struct mg_case_info {
    const char *name;       /* file stem of the recording */
    int m, n, k;
    enum mg_fmt ab, cd;     /* A/B element format, C/D element format */
    int d_words;            /* 32-bit words of D per lane (f64 registers count two words, low word first) */
    uint64_t seed;          /* case seed, see mg_test_seed */
};

static const struct mg_case_info mg_cases[MG_NCASES] = {
    {"m16n8k16_f32_f16_f16_f32",     16, 8, 16, MG_FMT_F16,  MG_FMT_F32, 4, 0x7E450001u},
    {"m16n8k16_f16_f16_f16_f16",     16, 8, 16, MG_FMT_F16,  MG_FMT_F16, 2, 0x7E450002u},
    {"m16n8k16_f32_bf16_bf16_f32",   16, 8, 16, MG_FMT_BF16, MG_FMT_F32, 4, 0x7E450003u},
    {"m16n8k8_f32_tf32_tf32_f32",    16, 8, 8,  MG_FMT_TF32, MG_FMT_F32, 4, 0x7E450004u},
    {"m16n8k32_f32_e4m3_e4m3_f32",   16, 8, 32, MG_FMT_E4M3, MG_FMT_F32, 4, 0x7E450005u},
    {"m16n8k32_f32_e5m2_e5m2_f32",   16, 8, 32, MG_FMT_E5M2, MG_FMT_F32, 4, 0x7E450006u},
    {"m16n8k32_s32_s8_s8_s32",       16, 8, 32, MG_FMT_S8,   MG_FMT_S32, 4, 0x7E450007u},
    {"m16n8k32_satfinite_s32_s8_s8_s32", 16, 8, 32, MG_FMT_S8, MG_FMT_S32, 4, 0x7E450008u},
    {"m8n8k4_f64_f64_f64_f64",       8, 8, 4,   MG_FMT_F64,  MG_FMT_F64, 4, 0x7E450009u},
    {"m16n8k32_f32_e4m3_e4m3_f32_x", 16, 8, 32, MG_FMT_E4M3, MG_FMT_F32, 4, 0x7E45000Au},
    {"m16n8k32_f32_e5m2_e5m2_f32_x", 16, 8, 32, MG_FMT_E5M2, MG_FMT_F32, 4, 0x7E45000Bu},
};

/* ---- operand classes: test t of a float case uses class t % MG_NFCLASS, of an integer case t % MG_NICLASS */
enum mg_fclass {
    MG_UNIFORM,     /* random sign/mantissa, exponents in [-3,3]; C likewise */
    MG_MIXEXP,      /* exponents uniform over the format's normal range clipped to [-15,15]: products 2^-30..2^30 */
    MG_CANCEL_PAIRS,/* A[m][2j+1] = -A[m][2j] (last mantissa bit flipped in half the cases), B[2j+1][n] = B[2j][n] */
    MG_CANCEL_C,    /* uniform A,B; C = -(exact sum of the row's products) rounded to C's format */
    MG_BIGC,        /* uniform A,B; C exponent = product exponent + d, d uniform in [-30,30] per element */
    MG_SUBNORMAL,   /* A,B: 1/3 subnormal, 1/3 near the smallest normal, 1/3 in [-3,3]; C subnormal/tiny */
    MG_NANINF,      /* uniform, then 1..3 elements of A, B or C set to +-Inf, +-0 or a NaN with a random payload */
    MG_SMALLINT,    /* even rows of A all 1.0, odd rows ints in [-4,4]; B ints in [-4,4]; C ints in [-64,64]: exact */
    MG_SINGLE,      /* one nonzero product per row (at k = random) + C with exponent offset in [-30,30] */
    MG_LADDER,      /* row m: k products of magnitude 2^(e0 - s*p(k)), p a random permutation, s in {1,2,3,4,6,8} */
    MG_STICKY,      /* C = +-2^E*(1.x); every product ~2^(E-P-r), P = C's precision, r in [0,6]: tiny addends */
    MG_NFCLASS
};
enum mg_iclass {
    MG_I_UNIFORM,   /* A,B uniform in [-128,127]; C uniform 32-bit */
    MG_I_EXTREME,   /* A,B in {-128,-127,127,0,1,-1}; C small */
    MG_I_OVERFLOW,  /* A,B extreme, C within 2^19 of INT32_MAX or INT32_MIN: the sum crosses the limits */
    MG_I_SMALL,     /* A,B in [-4,4], C in [-64,64] */
    MG_NICLASS
};

/* fp8 classes of the _x cases (test t uses t % MG_NXCLASS). B[k][n] = +-2^b (b in [-2,2]), so every product is
 * an A element scaled exactly; A is zero except where a class puts values; C is 0 unless said. */
enum mg_xclass {
    MG_X_PAIR,      /* row m: two products, exponents e1 and e1 - d (d in [0, 2*(emax-emin)]), at random k1 != k2 */
    MG_X_CANCEL3,   /* x, -x (last bit flipped half the time) and a third product 2^-d below x: truncation before cancelling? */
    MG_X_SINGLEC,   /* one product, C = +-1.m * 2^(e + d), d in [-30, 30], both signs: the rounding of C + product */
    MG_X_POSITION,  /* products x at k1 = t % 32 and -x(1 - 2^-j) at a random k2, a small one at k3: grouping by position */
    MG_X_MANY,      /* all 32 products of one exponent, random signs and mantissas (1/2 of rows: plus one 2^-d below) */
    MG_X_SPREAD,    /* 32 products with exponents spread over the whole range (as class 1), C = 0 */
    MG_NXCLASS
};

/* ---- the generator: splitmix64 ------------------------------------------------------------------------ */
static inline uint64_t mg_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* uniform integer in [lo, hi] (modulo bias is irrelevant here, but it is part of the definition) */
static inline int mg_range(uint64_t *s, int lo, int hi) { return lo + (int)(mg_next(s) % (uint64_t)(hi - lo + 1)); }
/* the state a test starts from */
static inline uint64_t mg_test_seed(enum mg_case c, uint32_t test)
{
    uint64_t s = mg_cases[c].seed ^ ((uint64_t)test * 0xD1B54A32D192ED03ull);
    (void)mg_next(&s);
    return s;
}

/* ---- formats ------------------------------------------------------------------------------------------ */
struct mg_fmt_info { int ebits, mbits, bias; };
static inline struct mg_fmt_info mg_fi(enum mg_fmt f)
{
    switch (f) {
    case MG_FMT_F16: return (struct mg_fmt_info){5, 10, 15};
    case MG_FMT_BF16: return (struct mg_fmt_info){8, 7, 127};
    case MG_FMT_TF32: return (struct mg_fmt_info){8, 10, 127};
    case MG_FMT_E4M3: return (struct mg_fmt_info){4, 3, 7};
    case MG_FMT_E5M2: return (struct mg_fmt_info){5, 2, 15};
    case MG_FMT_F64: return (struct mg_fmt_info){11, 52, 1023};
    default: return (struct mg_fmt_info){8, 23, 127};
    }
}
/* bits of a float format from its fields (tf32: placed in f32 bits, low 13 bits zero) */
static inline uint64_t mg_pack(enum mg_fmt f, int sign, int efield, uint64_t mant)
{
    struct mg_fmt_info fi = mg_fi(f);
    uint64_t b = ((uint64_t)sign << (fi.ebits + fi.mbits)) | ((uint64_t)efield << fi.mbits)
               | (mant & ((1ull << fi.mbits) - 1));
    return f == MG_FMT_TF32 ? b << 13 : b;
}
/* largest normal exponent (unbiased): e4m3 reaches 8 (S.1111.110 is 448), the others stop below all-ones */
static inline int mg_emax(enum mg_fmt f)
{
    struct mg_fmt_info fi = mg_fi(f);
    return f == MG_FMT_E4M3 ? 8 : (1 << fi.ebits) - 2 - fi.bias;
}
static inline int mg_emin(enum mg_fmt f) { return 1 - mg_fi(f).bias; }
/* a normal number with random sign and mantissa and unbiased exponent e (clipped to the normal range) */
static inline uint64_t mg_normal(uint64_t *s, enum mg_fmt f, int e)
{
    if (e > mg_emax(f)) e = mg_emax(f);
    if (e < mg_emin(f)) e = mg_emin(f);
    uint64_t mant = mg_next(s);
    if (f == MG_FMT_E4M3 && e == 8) mant &= 3;  /* keep clear of the NaN encoding S.1111.111 */
    return mg_pack(f, (int)(mg_next(s) & 1), e + mg_fi(f).bias, mant);
}
/* decode to double (exact for every format here); NaN/Inf decoded too */
static inline double mg_to_double(enum mg_fmt f, uint64_t b)
{
    if (f == MG_FMT_F64) { double d; memcpy(&d, &b, 8); return d; }
    if (f == MG_FMT_S8) return (double)(int8_t)b;
    if (f == MG_FMT_S32) return (double)(int32_t)b;
    if (f == MG_FMT_TF32) b >>= 13;
    struct mg_fmt_info fi = mg_fi(f);
    int sign = (int)(b >> (fi.ebits + fi.mbits)) & 1;
    int ef = (int)(b >> fi.mbits) & ((1 << fi.ebits) - 1);
    uint64_t mant = b & ((1ull << fi.mbits) - 1);
    double v;
    if (f == MG_FMT_E4M3 && ef == 15 && mant == 7) v = __builtin_nan("");
    else if (f != MG_FMT_E4M3 && ef == (1 << fi.ebits) - 1) v = mant ? __builtin_nan("") : __builtin_inf();
    else if (ef == 0) v = __builtin_ldexp((double)mant, 1 - fi.bias - fi.mbits);
    else v = __builtin_ldexp((double)(mant | (1ull << fi.mbits)), ef - fi.bias - fi.mbits);
    return sign ? -v : v;
}
/* round a double to f16/bf16/f32/f64 bits, round-to-nearest-even, overflow to Inf (C operands only) */
static inline uint64_t mg_from_double(enum mg_fmt f, double v)
{
    if (f == MG_FMT_F64) { uint64_t b; memcpy(&b, &v, 8); return b; }
    if (f == MG_FMT_F32) { float x = (float)v; uint32_t b; memcpy(&b, &x, 4); return b; }
    struct mg_fmt_info fi = mg_fi(f);
    int sign = __builtin_signbit(v) ? 1 : 0;
    double a = sign ? -v : v;
    if (a != a) return mg_pack(f, 0, (1 << fi.ebits) - 1, 1ull << (fi.mbits - 1));
    int e;
    (void)__builtin_frexp(a, &e);              /* a = fr * 2^e, fr in [0.5,1) */
    int q = e - 1 - fi.mbits;                  /* exponent of one ulp */
    if (q < 1 - fi.bias - fi.mbits) q = 1 - fi.bias - fi.mbits;
    double sc = __builtin_ldexp(a, -q);        /* exact */
    uint64_t mi = (uint64_t)sc;                /* integer significand, rounded to nearest even below; */
    double fr = sc - (double)mi;               /* it may carry to 2^(mbits+1) */
    if (fr > 0.5 || (fr == 0.5 && (mi & 1))) mi++;
    if (a == 0) return mg_pack(f, sign, 0, 0);
    if (mi >> (fi.mbits + 1)) { mi >>= 1; q++; }
    if (mi < (1ull << fi.mbits)) return mg_pack(f, sign, 0, mi);           /* subnormal (or zero) */
    int ef = q + fi.mbits + fi.bias;
    if (ef >= (1 << fi.ebits) - 1) return mg_pack(f, sign, (1 << fi.ebits) - 1, 0);  /* Inf */
    return mg_pack(f, sign, ef, mi);
}

/* ---- one test --------------------------------------------------------------------------------------- */
#define MG_MAXM 16
#define MG_MAXN 8
#define MG_MAXK 32
struct mg_test {
    int cls;                              /* mg_fclass or mg_iclass */
    uint64_t a[MG_MAXM][MG_MAXK];         /* A[m][k] bits */
    uint64_t b[MG_MAXK][MG_MAXN];         /* B[k][n] bits */
    uint64_t c[MG_MAXM][MG_MAXN];         /* C[m][n] bits */
};

static inline int mg_is_int(enum mg_case c) { return mg_cases[c].ab == MG_FMT_S8; }
static inline int mg_is_x(enum mg_case c) { return c == MG_F32_E4M3_X || c == MG_F32_E5M2_X; }
static inline int mg_nclass(enum mg_case c)
{
    return mg_is_int(c) ? (int)MG_NICLASS : mg_is_x(c) ? (int)MG_NXCLASS : (int)MG_NFCLASS;
}

static inline uint64_t mg_subnormal(uint64_t *s, enum mg_fmt f)
{
    uint64_t mant = mg_next(s) | 1;  /* nonzero */
    return mg_pack(f, (int)(mg_next(s) & 1), 0, mant);
}
/* small integers in A/B formats (exact in every format, |v| <= 4) */
static inline uint64_t mg_int_ab(enum mg_fmt f, int v)
{
    if (v == 0) return 0;
    int sign = v < 0, a = sign ? -v : v, e = 0;
    while ((2 << e) <= a) e++;
    uint64_t frac = (uint64_t)(a - (1 << e));                 /* below 2^e */
    int mb = mg_fi(f).mbits;
    return mg_pack(f, sign, e + mg_fi(f).bias, e ? frac << (mb - e) : 0);
}

static inline void mg_gen_float(enum mg_case cs, uint64_t *s, int cls, struct mg_test *t)
{
    const struct mg_case_info *ci = &mg_cases[cs];
    enum mg_fmt fa = ci->ab, fc = ci->cd;
    int M = ci->m, N = ci->n, K = ci->k;
    /* default: uniform A, B, C; classes then overwrite */
    for (int m = 0; m < M; m++) for (int k = 0; k < K; k++) t->a[m][k] = mg_normal(s, fa, mg_range(s, -3, 3));
    for (int k = 0; k < K; k++) for (int n = 0; n < N; n++) t->b[k][n] = mg_normal(s, fa, mg_range(s, -3, 3));
    for (int m = 0; m < M; m++) for (int n = 0; n < N; n++) t->c[m][n] = mg_normal(s, fc, mg_range(s, -3, 3));
    int lo = mg_emin(fa) < -15 ? -15 : mg_emin(fa), hi = mg_emax(fa) > 15 ? 15 : mg_emax(fa);
    switch (cls) {
    case MG_MIXEXP:
        for (int m = 0; m < M; m++) for (int k = 0; k < K; k++) t->a[m][k] = mg_normal(s, fa, mg_range(s, lo, hi));
        for (int k = 0; k < K; k++) for (int n = 0; n < N; n++) t->b[k][n] = mg_normal(s, fa, mg_range(s, lo, hi));
        for (int m = 0; m < M; m++) for (int n = 0; n < N; n++)
            t->c[m][n] = mg_range(s, 0, 3) ? mg_normal(s, fc, mg_range(s, -30, 30)) : 0;
        break;
    case MG_CANCEL_PAIRS:
        for (int m = 0; m < M; m++) for (int k = 0; k + 1 < K; k += 2)
            t->a[m][k + 1] = t->a[m][k] ^ mg_pack(fa, 1, 0, 0) ^ ((mg_next(s) & 1) ? mg_pack(fa, 0, 0, 1) : 0);
        for (int k = 0; k + 1 < K; k += 2) for (int n = 0; n < N; n++) t->b[k + 1][n] = t->b[k][n];
        for (int m = 0; m < M; m++) for (int n = 0; n < N; n++)
            t->c[m][n] = mg_range(s, 0, 1) ? mg_normal(s, fc, mg_range(s, -40, 0)) : 0;
        break;
    case MG_CANCEL_C:
        for (int m = 0; m < M; m++) for (int n = 0; n < N; n++) {
            double sum = 0;  /* exact in double: products of <= 11-bit significands, exponents in [-6,6] (f64: rounded) */
            for (int k = 0; k < K; k++) sum += mg_to_double(fa, t->a[m][k]) * mg_to_double(fa, t->b[k][n]);
            t->c[m][n] = mg_from_double(fc, -sum);
        }
        break;
    case MG_BIGC:
        for (int m = 0; m < M; m++) for (int n = 0; n < N; n++) {
            int d = mg_range(s, -30, 30);
            t->c[m][n] = mg_normal(s, fc, d);
        }
        break;
    case MG_SUBNORMAL: {
        uint64_t *ab[2] = {&t->a[0][0], &t->b[0][0]};
        int cnt[2] = {MG_MAXM * MG_MAXK, MG_MAXK * MG_MAXN};
        for (int w = 0; w < 2; w++) for (int i = 0; i < cnt[w]; i++) {
            int r = mg_range(s, 0, 2);
            ab[w][i] = r == 0 ? mg_subnormal(s, fa) : r == 1 ? mg_normal(s, fa, mg_emin(fa) + mg_range(s, 0, 3))
                                                              : mg_normal(s, fa, mg_range(s, -3, 3));
        }
        for (int m = 0; m < M; m++) for (int n = 0; n < N; n++) {
            int r = mg_range(s, 0, 2);
            t->c[m][n] = r == 0 ? mg_subnormal(s, fc) : r == 1 ? mg_normal(s, fc, mg_emin(fc) + mg_range(s, 0, 24)) : 0;
        }
        break;
    }
    case MG_NANINF: {
        int nspecial = mg_range(s, 1, 3);
        for (int i = 0; i < nspecial; i++) {
            int which = mg_range(s, 0, 2), kind = mg_range(s, 0, 4);
            enum mg_fmt f = which == 2 ? fc : fa;
            struct mg_fmt_info fi = mg_fi(f);
            int sign = (int)(mg_next(s) & 1);
            uint64_t v;
            if (f == MG_FMT_E4M3) v = kind < 2 ? mg_pack(f, sign, 15, 7) : kind < 4 ? mg_pack(f, sign, 15, 6) : mg_pack(f, sign, 0, 0);
            else if (kind == 0) v = mg_pack(f, sign, (1 << fi.ebits) - 1, 0);                     /* Inf */
            else if (kind == 1) v = mg_pack(f, sign, (1 << fi.ebits) - 1, 1ull << (fi.mbits - 1)); /* quiet NaN */
            else if (kind == 2) v = mg_pack(f, sign, (1 << fi.ebits) - 1, mg_next(s) | 1);        /* any NaN */
            else if (kind == 3) v = mg_pack(f, sign, (1 << fi.ebits) - 1, 0);                     /* Inf again */
            else v = mg_pack(f, sign, 0, 0);                                                      /* zero (Inf*0) */
            if (which == 0) t->a[mg_range(s, 0, M - 1)][mg_range(s, 0, K - 1)] = v;
            else if (which == 1) t->b[mg_range(s, 0, K - 1)][mg_range(s, 0, N - 1)] = v;
            else t->c[mg_range(s, 0, M - 1)][mg_range(s, 0, N - 1)] = v;
        }
        break;
    }
    case MG_SMALLINT:
        for (int m = 0; m < M; m++) for (int k = 0; k < K; k++)
            t->a[m][k] = (m & 1) ? mg_int_ab(fa, mg_range(s, -4, 4)) : mg_int_ab(fa, 1);
        for (int k = 0; k < K; k++) for (int n = 0; n < N; n++) t->b[k][n] = mg_int_ab(fa, mg_range(s, -4, 4));
        for (int m = 0; m < M; m++) for (int n = 0; n < N; n++) t->c[m][n] = mg_from_double(fc, mg_range(s, -64, 64));
        break;
    case MG_SINGLE:
        for (int m = 0; m < M; m++) {
            int kk = mg_range(s, 0, K - 1);
            for (int k = 0; k < K; k++) if (k != kk) t->a[m][k] = 0;
            for (int n = 0; n < N; n++) t->c[m][n] = mg_range(s, 0, 7) ? mg_normal(s, fc, mg_range(s, -30, 30)) : 0;
        }
        break;
    case MG_LADDER: {
        static const int steps[6] = {1, 2, 3, 4, 6, 8};
        for (int k = 0; k < K; k++) for (int n = 0; n < N; n++) t->b[k][n] = mg_normal(s, fa, 0);
        for (int m = 0; m < M; m++) {
            int p[MG_MAXK];
            for (int k = 0; k < K; k++) p[k] = k;
            for (int k = K - 1; k > 0; k--) { int j = mg_range(s, 0, k), x = p[k]; p[k] = p[j]; p[j] = x; }
            int st = steps[mg_range(s, 0, 5)];
            int e0 = hi;
            for (int k = 0; k < K; k++) {
                int e = e0 - st * p[k];
                t->a[m][k] = e < mg_emin(fa) ? 0 : mg_normal(s, fa, e);
            }
            for (int n = 0; n < N; n++) t->c[m][n] = mg_range(s, 0, 1) ? mg_normal(s, fc, e0 - st * mg_range(s, -2, K)) : 0;
        }
        break;
    }
    case MG_STICKY:
        for (int m = 0; m < M; m++) {
            int P = fc == MG_FMT_F16 ? 11 : fc == MG_FMT_F64 ? 53 : 24;   /* C's precision */
            int elo = 2 * mg_emin(fa) + P + 6 > -4 ? 2 * mg_emin(fa) + P + 6 : -4;
            int E = mg_range(s, elo, elo + 8);
            for (int n = 0; n < N; n++) t->c[m][n] = mg_normal(s, fc, E);
            int r = mg_range(s, 0, 6);
            int pe = E - P - r;
            for (int k = 0; k < K; k++) t->a[m][k] = mg_normal(s, fa, pe / 2);
            for (int k = 0; k < K; k++) for (int n = 0; n < N; n++) t->b[k][n] = mg_normal(s, fa, pe - pe / 2);
        }
        break;
    default: break;
    }
}

static inline void mg_gen_int(enum mg_case cs, uint64_t *s, int cls, struct mg_test *t)
{
    static const int ext[6] = {-128, -127, 127, 0, 1, -1};
    const struct mg_case_info *ci = &mg_cases[cs];
    for (int m = 0; m < ci->m; m++) for (int k = 0; k < ci->k; k++) {
        int v = cls == MG_I_UNIFORM ? mg_range(s, -128, 127) : cls == MG_I_SMALL ? mg_range(s, -4, 4) : ext[mg_range(s, 0, 5)];
        t->a[m][k] = (uint8_t)v;
    }
    for (int k = 0; k < ci->k; k++) for (int n = 0; n < ci->n; n++) {
        int v = cls == MG_I_UNIFORM ? mg_range(s, -128, 127) : cls == MG_I_SMALL ? mg_range(s, -4, 4) : ext[mg_range(s, 0, 5)];
        t->b[k][n] = (uint8_t)v;
    }
    for (int m = 0; m < ci->m; m++) for (int n = 0; n < ci->n; n++) {
        uint32_t v;
        if (cls == MG_I_UNIFORM) v = (uint32_t)mg_next(s);
        else if (cls == MG_I_OVERFLOW)
            v = (mg_next(s) & 1) ? (uint32_t)(INT32_MAX - mg_range(s, 0, 1 << 19)) : (uint32_t)(INT32_MIN + mg_range(s, 0, 1 << 19));
        else v = (uint32_t)mg_range(s, -64, 64);
        t->c[m][n] = v;
    }
}

static inline void mg_gen_x(enum mg_case cs, uint64_t *s, int cls, uint32_t test, struct mg_test *t)
{
    const struct mg_case_info *ci = &mg_cases[cs];
    enum mg_fmt fa = ci->ab, fc = ci->cd;
    int M = ci->m, N = ci->n, K = ci->k, lo = mg_emin(fa), hi = mg_emax(fa);
    for (int k = 0; k < K; k++) for (int n = 0; n < N; n++)
        t->b[k][n] = mg_pack(fa, (int)(mg_next(s) & 1), mg_range(s, -2, 2) + mg_fi(fa).bias, 0);
    for (int m = 0; m < M; m++) {
        int k1 = mg_range(s, 0, K - 1), k2 = (k1 + mg_range(s, 1, K - 1)) % K, k3 = (k2 + mg_range(s, 1, K - 2)) % K;
        if (k3 == k1) k3 = (k3 + 1) % K == k2 ? (k3 + 2) % K : (k3 + 1) % K;
        int e1 = mg_range(s, hi - 4, hi), d = mg_range(s, 0, 2 * (hi - lo));
        switch (cls) {
        case MG_X_PAIR:
            t->a[m][k1] = mg_normal(s, fa, e1);
            t->a[m][k2] = e1 - d < lo ? mg_subnormal(s, fa) : mg_normal(s, fa, e1 - d);
            break;
        case MG_X_CANCEL3:
            t->a[m][k1] = mg_normal(s, fa, e1);
            t->a[m][k2] = t->a[m][k1] ^ mg_pack(fa, 1, 0, 0) ^ ((mg_next(s) & 1) ? mg_pack(fa, 0, 0, 1) : 0);
            t->a[m][k3] = e1 - d < lo ? mg_subnormal(s, fa) : mg_normal(s, fa, e1 - d);
            break;
        case MG_X_SINGLEC:
            t->a[m][k1] = mg_normal(s, fa, mg_range(s, lo, hi));
            for (int n = 0; n < N; n++) t->c[m][n] = mg_normal(s, fc, mg_range(s, -30, 30));
            break;
        case MG_X_POSITION:
            k1 = (int)(test % (uint32_t)K);
            if (k2 == k1) k2 = (k1 + 1) % K;
            if (k3 == k1 || k3 == k2) k3 = (k2 + 1) % K == k1 ? (k2 + 2) % K : (k2 + 1) % K;
            t->a[m][k1] = mg_normal(s, fa, e1);
            t->a[m][k2] = t->a[m][k1] ^ mg_pack(fa, 1, 0, 0) ^ mg_pack(fa, 0, 0, (uint64_t)mg_range(s, 0, 3));
            t->a[m][k3] = e1 - d < lo ? mg_subnormal(s, fa) : mg_normal(s, fa, e1 - d);
            break;
        case MG_X_MANY:
            for (int k = 0; k < K; k++) t->a[m][k] = mg_normal(s, fa, e1 - 2);
            if (m & 1) t->a[m][k1] = e1 - 2 - d < lo ? mg_subnormal(s, fa) : mg_normal(s, fa, e1 - 2 - d);
            break;
        default: /* MG_X_SPREAD */
            for (int k = 0; k < K; k++) t->a[m][k] = mg_normal(s, fa, mg_range(s, lo, hi));
            break;
        }
    }
}

/* The inputs of test `test` of case `cs`. */
static inline void mg_gen_test(enum mg_case cs, uint32_t test, struct mg_test *t)
{
    uint64_t s = mg_test_seed(cs, test);
    memset(t, 0, sizeof *t);
    t->cls = (int)(test % (uint32_t)mg_nclass(cs));
    if (mg_is_int(cs)) mg_gen_int(cs, &s, t->cls, t);
    else if (mg_is_x(cs)) mg_gen_x(cs, &s, t->cls, test, t);
    else mg_gen_float(cs, &s, t->cls, t);
}

/* ---- fragment packing (PTX ISA "Matrix Fragments for mma.m16n8k*" / "mma.m8n8k4 .f64" figures) ----------
 * g = lane >> 2 (groupID), q = lane & 3 (threadID_in_group). Registers are 32-bit words; 16-bit elements:
 * element h of a word sits in bits [16h, 16h+16); 8-bit: element j in bits [8j, 8j+8); f64 registers are two
 * words, low word first.
 *   16-bit A (m16n8k16), word r<4, half h:  row g + 8*(r&1),  col 2q + h + 8*(r>>1)
 *   16-bit B (m16n8k16), word r<2, half h:  k 2q + h + 8r,   n g
 *   tf32 A (m16n8k8),    word r<4:          row g + 8*(r&1),  col q + 4*(r>>1)
 *   tf32 B (m16n8k8),    word r<2:          k q + 4r,         n g
 *   8-bit A (m16n8k32),  word r<4, byte j:  row g + 8*(r&1),  col 4q + j + 16*(r>>1)
 *   8-bit B (m16n8k32),  word r<2, byte j:  k 4q + j + 16r,   n g
 *   f64 A (m8n8k4), one f64 register:       row g, col q;     f64 B: k q, n g
 *   C/D f32 or s32 (m16n8), word r<4:       row g + 8*(r>>1), col 2q + (r&1)
 *   C/D f16 (m16n8), word r<2, half h:      row g + 8r,       col 2q + h
 *   C/D f64 (m8n8), f64 register r<2:       row g,            col 2q + r */
#define MG_AW 4  /* words per lane given to the kernel for A, B, C/D (unused words are zero) */
#define MG_BW 2
#define MG_CW 4

/* position of D (and C) element: word w of lane l, sub-element h (half for f16, 0 otherwise) */
static inline void mg_d_pos(enum mg_case cs, int lane, int w, int h, int *row, int *col)
{
    int g = lane >> 2, q = lane & 3;
    if (mg_cases[cs].cd == MG_FMT_F16) { *row = g + 8 * w; *col = 2 * q + h; }
    else if (mg_cases[cs].cd == MG_FMT_F64) { *row = g; *col = 2 * q + w / 2; }
    else { *row = g + 8 * (w >> 1); *col = 2 * q + (w & 1); }
}

/* pack a test into per-lane words: a[lane][MG_AW], b[lane][MG_BW], c[lane][MG_CW] */
static inline void mg_pack_lanes(enum mg_case cs, const struct mg_test *t,
                                 uint32_t a[32][MG_AW], uint32_t b[32][MG_BW], uint32_t c[32][MG_CW])
{
    enum mg_fmt fa = mg_cases[cs].ab;
    memset(a, 0, 32 * MG_AW * 4); memset(b, 0, 32 * MG_BW * 4); memset(c, 0, 32 * MG_CW * 4);
    for (int l = 0; l < 32; l++) {
        int g = l >> 2, q = l & 3;
        if (fa == MG_FMT_F16 || fa == MG_FMT_BF16) {
            for (int r = 0; r < 4; r++) for (int h = 0; h < 2; h++)
                a[l][r] |= (uint32_t)t->a[g + 8 * (r & 1)][2 * q + h + 8 * (r >> 1)] << (16 * h);
            for (int r = 0; r < 2; r++) for (int h = 0; h < 2; h++)
                b[l][r] |= (uint32_t)t->b[2 * q + h + 8 * r][g] << (16 * h);
        } else if (fa == MG_FMT_TF32) {
            for (int r = 0; r < 4; r++) a[l][r] = (uint32_t)t->a[g + 8 * (r & 1)][q + 4 * (r >> 1)];
            for (int r = 0; r < 2; r++) b[l][r] = (uint32_t)t->b[q + 4 * r][g];
        } else if (fa == MG_FMT_F64) {
            a[l][0] = (uint32_t)t->a[g][q]; a[l][1] = (uint32_t)(t->a[g][q] >> 32);
            b[l][0] = (uint32_t)t->b[q][g]; b[l][1] = (uint32_t)(t->b[q][g] >> 32);
        } else { /* 8-bit: e4m3, e5m2, s8 */
            for (int r = 0; r < 4; r++) for (int j = 0; j < 4; j++)
                a[l][r] |= (uint32_t)(t->a[g + 8 * (r & 1)][4 * q + j + 16 * (r >> 1)] & 0xff) << (8 * j);
            for (int r = 0; r < 2; r++) for (int j = 0; j < 4; j++)
                b[l][r] |= (uint32_t)(t->b[4 * q + j + 16 * r][g] & 0xff) << (8 * j);
        }
        for (int w = 0; w < mg_cases[cs].d_words; w++) {
            int row, col;
            if (mg_cases[cs].cd == MG_FMT_F16) {
                for (int h = 0; h < 2; h++) { mg_d_pos(cs, l, w, h, &row, &col); c[l][w] |= (uint32_t)t->c[row][col] << (16 * h); }
            } else {
                mg_d_pos(cs, l, w, 0, &row, &col);
                c[l][w] = (uint32_t)(t->c[row][col] >> (mg_cases[cs].cd == MG_FMT_F64 ? 32 * (w & 1) : 0));
            }
        }
    }
}

#endif
