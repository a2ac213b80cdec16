/*
 * warpvm.c — the `warpvm` command-line tool, written against the public API (include/warpvm.h).
 *
 * It owns the command line and nothing of the machine:
 *   warpvm run FILE.ptx --kernel NAME ...   runs one kernel. Its arguments and its stdout are those
 *                                           of the reference runner shared/tools/ptxrun.c, byte for
 *                                           byte, so one command line gives the same output on a GPU
 *                                           and here; --stats and --max-steps are warpvm's own.
 *   warpvm list FILE.ptx                    the kernels of a module and their parameters.
 *   warpvm [OPTIONS] ./app [ARGS...]        runs an nvcc-built program (nvcc -cudart shared) with warpvm
 *                                           as its GPU (app.c).
 *   warpvm --help | -h | --version
 * Exit status: 0 success, 1 usage or PTX error, 2 device / VM error (message on stderr).
 * Buffer fills, scalar values, `--print` formats and the order in which errors are found follow
 * ptxrun exactly; keep them in step with it. Two differences on purpose: a number ptxrun would misread
 * silently (u32:abc, 12junk, a value its type cannot hold, --grid 2,x) is a usage error here, and any
 * number of --arg / --print is taken (ptxrun stops at 64).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warpvm.h"
#include "amd/gcn.h"
#include "app.h"

enum { EXIT_USAGE = 1, EXIT_DEVICE = 2 };

static const char USAGE[] =
    "usage: warpvm run FILE.ptx --kernel NAME [--grid X,Y,Z] [--block X,Y,Z] [--shared BYTES]\n"
    "                  [--arg SPEC]... [--print INDEX:TYPE]... [--stats] [--max-steps N] [--timeout S]\n"
    "                  [--machine NAME] [--warps-per-wave 1|2] [--async-delivery at-wait|eager|random:SEED]\n"
    "                  [--memory-model sc|weak] [--seed N] [--schedule serial|interleave|random:SEED]\n"
    "                  [--stack BYTES] [--check memcheck,synccheck] [--no-contract] [--threads N] [--engine E] [--no-jit-cache]\n"
    "                  [--profile] [--profile-json FILE] [--trace FILE]\n"
    "       warpvm list FILE.ptx\n"
    "       warpvm contractions FILE.ptx\n"
    "       warpvm machines\n"
    "       warpvm lower FILE.ptx --machine NAME\n"
    "       warpvm gcn FILE.s [--wave 64|32|8] [--rdna] [--set vN=A,B,...]... [--exec MASK]   (see gcn --help)\n"
    "       warpvm [--machine NAME] [--warps-per-wave 1|2] [--max-steps N] [--timeout S] [--async-delivery D]\n"
    "              [--memory-model sc|weak] [--seed N] [--schedule S] [--check LIST] [--no-contract] [--threads N] [--engine E]\n"
    "              [--stats] [--verbose] [--profile] [--profile-json FILE] [--trace FILE]\n"
    "              ./app [ARGS...]\n"
    "       warpvm --help | -h | --version\n";

static const char HELP[] =
    "\n"
    "run     run one kernel of FILE.ptx to completion (same arguments and output as ptxrun)\n"
    "  --kernel NAME        the .entry to launch\n"
    "  --grid X[,Y[,Z]]     grid size in blocks (missing components are 1; default 1,1,1; each < 2^32)\n"
    "  --block X[,Y[,Z]]    block size in threads (default 1,1,1)\n"
    "  --shared BYTES       dynamic shared memory per block (default 0; < 2^32)\n"
    "  --arg SPEC           the next kernel parameter, in order (one for each parameter at least, any number):\n"
    "      u32:N  s32:N  u64:N  s64:N               an integer (decimal, 0x hex, 0 octal): u32/s32 from -2^31\n"
    "                                                to 2^32-1, u64/s64 from -2^63 to 2^64-1 (the same bits)\n"
    "      f32:X  f64:X                              a float in strtod syntax (inf, nan, 0x1p-3) the type holds\n"
    "      buf:BYTES                                 a zero-filled device buffer (its address is passed)\n"
    "      buf:BYTES:iota32                          filled with the u32 sequence 0,1,2,...\n"
    "      buf:BYTES:rand32:SEED                     filled with xorshift32 u32 values from SEED (SEED != 0)\n"
    "      buf:BYTES:@PATH                           filled from the file's first BYTES bytes (rest zero)\n"
    "      A number that is not whole (abc, 12junk, 1.5 for an integer) or out of range is a usage error.\n"
    "  --print INDEX:TYPE   after the launch, print buffer argument INDEX (0-based among all --arg)\n"
    "                       as TYPE = u32|s32|x32|u64|s64|x64|f32|f64, one value per line after a\n"
    "                       line \"arg INDEX:\"; f32/f64 print the exact bits in hex and the value\n"
    "  --stats              print the execution counters to stderr after the run\n"
    "  --profile            per launch and per PTX line: instructions by class, divergence, shared-memory\n"
    "                       wavefronts and bank conflicts, global sectors, barrier waits, estimated cycles and\n"
    "                       hints, on stderr after the run (README \"Profiling\")\n"
    "  --profile-json FILE  the same as JSON, keyed by Nsight Compute's metric names where they match\n"
    "  --trace FILE         a Chrome/Perfetto trace: launches, blocks per worker thread, barrier waits, cp.async\n"
    "  --max-steps N        watchdog: stop after N warp instructions (0: no watchdog at all)\n"
    "  --timeout S          watchdog: stop a launch that runs longer than S seconds (default 60 unless\n"
    "                       --max-steps is given; 0 = none)\n"
    "  --stack BYTES        stack per thread for recursive calls (default 1024, CUDA's cudaLimitStackSize)\n"
    "  --machine NAME       sm_90 (default, NVIDIA) or an AMD model: gfx90a, gfx1100, gfx1100w64; on AMD every\n"
    "                       cross-lane instruction runs as its lowered code (ds_bpermute_b32 ...)\n"
    "  --warps-per-wave N   wave64 machines: 1 = a warp per wave (upper half idle), 2 = a warp per half\n"
    "  --memory-model M     sc (default: every store visible at once) or weak (global stores become visible\n"
    "                       late and out of order unless fences/release-acquire/atomics/barriers order them)\n"
    "  --seed N             the weak model's (and nothing else's) random choices; one seed, one outcome\n"
    "  --async-delivery M   when cp.async data lands: at-wait (default: at the matching wait, the latest a\n"
    "                       correct program allows), eager (at issue), random:SEED (in between)\n"
    "  --schedule S         how the CTAs run: serial (default: one after another, in grid order), interleave\n"
    "                       (as many resident as the modelled GPU holds, in turns of a time slice), or\n"
    "                       random:SEED (resident CTAs in random order and slices): races between CTAs show\n"
    "  --check LIST         stop at bugs a GPU lets pass, LIST comma-separated: memcheck (a load outside every\n"
    "                       allocation is a device fault; without it such loads read what the GPU would read\n"
    "                       and are reported at exit), synccheck (undefined use of a warp collective)\n"
    "  --no-contract        run each mul and add as written, each rounded (as ptxas --fmad=false would); by\n"
    "                       default a mul.f32/.f64 and an add/sub without rounding modifier run as one fma,\n"
    "                       rounded once, wherever ptxas fuses them (docs/CONTRACTION.md), as on the GPU\n"
    "  --engine E           interp, jit or auto (default auto; also WARPVM_ENGINE): jit compiles straight-line\n"
    "                       code through LLVM into vector code on first launch (README \"Engines\"); auto does so\n"
    "                       for launches of 65536 threads or more when warpvm has LLVM; --profile interprets\n"
    "  --no-jit-cache       keep no compiled code in ~/.cache/warpvm/jit (also WARPVM_JIT_CACHE=0)\n"
    "  --threads N          threads that run the CTAs, 1 to 1024 (default: one per core, joining a launch once it\n"
    "                       has run 100 us): CTAs start in grid order on all of them, output and fault reports\n"
    "                       as with one; cooperative launches,\n"
    "                       --schedule interleave|random, --memory-model weak, --async-delivery random and\n"
    "                       kernels calling device malloc/free use one\n"
    "  Kernel printf output goes to stdout before the --print blocks.\n"
    "\n"
    "list    print each kernel of FILE.ptx with its parameters (name, type, size, align, offset)\n"
    "\n"
    "contractions  every product (mul.f32/.f64; div.approx/.full, rcp.approx) and add/sub ptxas may fuse,\n"
    "        and what it does with them (FILE:LINE: mul|div|rcp fused|kept|partly|dead[: why],\n"
    "        add|sub fma MULLINE, add|sub separate (mul MULLINE: why));\n"
    "        tests/contract/check.sh compares this with ptxas's own code\n"
    "\n"
    "machines  the machines --machine accepts, with their warp/wave size, LDS and cross-lane instructions\n"
    "\n"
    "lower   every cross-lane PTX instruction of FILE.ptx, followed by the AMD GCN code it becomes on\n"
    "        --machine NAME (llvm-mc -arch=amdgcn assembles it; `warpvm gcn` runs it)\n"
    "\n"
    "Exit status: 0 success, 1 usage or PTX error, 2 device or VM error (message on stderr).\n";

/* ---- messages ---------------------------------------------------------------------------- */

static int usage_error(const char *msg) {
  fflush(stdout);
  fprintf(stderr, "warpvm: %s\n%s", msg, USAGE);
  return EXIT_USAGE;
}

static int usage_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_errorf(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return usage_error(msg);
}

static const char *status_name(wv_status st) {
  const char *name = wv_status_name(st);
  return name ? name : "error";
}

/* A failed API call during `run`: the library's one-line report, tagged with the status unless it says it. */
static int vm_error(const wv_vm *vm, wv_status st) {
  const char *msg = wv_last_error(vm), *name = status_name(st);
  fflush(stdout);
  if (strstr(msg, name)) fprintf(stderr, "warpvm: %s\n", msg);
  else fprintf(stderr, "warpvm: %s: %s\n", name, msg);
  return EXIT_DEVICE;
}

/* A PTX file that does not load: the report is already "FILE:LINE:COL: error: ...". Exit status 1. */
static int load_module(wv_vm *vm, const char *path, wv_module **mod) {
  if (wv_module_load_file(vm, path, mod) == WV_OK) return 0;
  fprintf(stderr, "%s\n", wv_last_error(vm));
  return EXIT_USAGE;
}

static int known_machine(const char *name) {
  for (uint32_t i = 0; wv_machine_name(i); i++)
    if (!strcmp(wv_machine_name(i), name)) return 1;
  return 0;
}

static wv_vm *create_vm(const wv_config *cfg) {
  if (cfg && cfg->machine && !known_machine(cfg->machine)) {
    usage_error("unknown --machine (see `warpvm machines`)");
    return NULL;
  }
  wv_vm *vm = wv_create(cfg);
  if (!vm && cfg && cfg->async_delivery && wv_create(&(wv_config){.async_delivery = cfg->async_delivery}) == NULL)
    usage_error("bad --async-delivery (at-wait, eager or random:SEED)");
  else if (!vm && cfg && cfg->schedule && wv_create(&(wv_config){.schedule = cfg->schedule}) == NULL)
    usage_error("bad --schedule (serial, interleave or random:SEED)");
  else if (!vm && cfg && cfg->warps_per_wave == 2) usage_error("--warps-per-wave 2 needs a wave64 machine (gfx90a, gfx1100w64)");
  else if (!vm) fprintf(stderr, "warpvm: out of memory\n");
  return vm;
}

static void print_stats(const wv_vm *vm) {
  wv_stats s;
  wv_get_stats(vm, &s);
  double eff = s.warp_instructions ? (double)s.thread_instructions / (32.0 * (double)s.warp_instructions) : 0.0;
  fflush(stdout);
  fprintf(stderr,
          "launches: %" PRIu64 "\nwarp_instructions: %" PRIu64 "\nthread_instructions: %" PRIu64 "\n"
          "simt_efficiency: %.4f\ndivergent_branches: %" PRIu64 "\nreconvergences: %" PRIu64 "\n"
          "forced_yields: %" PRIu64 "\n"
          "barriers: %" PRIu64 "\ncollectives: %" PRIu64 "\ncollective_undefined: %" PRIu64 "\n"
          "global_loads: %" PRIu64 "\nglobal_stores: %" PRIu64 "\nshared_loads: %" PRIu64 "\n"
          "shared_stores: %" PRIu64 "\nlocal_loads: %" PRIu64 "\nlocal_stores: %" PRIu64 "\n"
          "atomics: %" PRIu64 "\nasync_copies: %" PRIu64 "\nasync_early_reads: %" PRIu64 "\n"
          "invalid_reads: %" PRIu64 "\nctas: %" PRIu64 "\nkernel_seconds: %.6f\n"
          "jit_compile_ms: %.3f\njit_functions: %" PRIu64 "\njit_regions: %" PRIu64 "\njit_instructions: %" PRIu64 "\n"
          "jit_cached: %" PRIu64 "\n",
          s.launches, s.warp_instructions, s.thread_instructions, eff, s.divergent_branches,
          s.reconvergences, s.forced_yields, s.barriers, s.collectives, s.collective_undefined, s.global_loads,
          s.global_stores, s.shared_loads, s.shared_stores, s.local_loads, s.local_stores, s.atomics,
          s.async_copies, s.async_early_reads, s.invalid_reads,
          s.ctas, s.kernel_seconds, s.jit_seconds * 1e3, s.jit_functions, s.jit_regions, s.jit_instructions,
          s.jit_cached);
}

/* Device printf text goes through stdout's own buffer, so it stays ahead of the --print blocks. */
static void printf_to_stdout(void *user, const char *text, size_t len) {
  (void)user;
  fwrite(text, 1, len, stdout);
}

/* ---- run: options ------------------------------------------------------------------------- */

typedef struct run_opts {
  const char *file, *kernel;
  unsigned grid[3], block[3], shared;
  const char **specs;   /* --arg, in order (as many as given) */
  int nspec;
  const char **prints;  /* --print */
  int nprint;
  wv_vm_opts vm;        /* --stats --max-steps --machine --async-delivery --memory-model --seed --warps-per-wave --check */
} run_opts;

/*
 * Numbers on the command line are whole C numbers: an integer in decimal, 0x hex or 0 octal, a float in
 * strtod's syntax (inf, nan and hex floats included), nothing before or after it. What ptxrun would
 * misread silently — "abc", "12junk", "1.5" for an integer, a value its type cannot hold — is a usage
 * error naming the argument.
 */
static int whole_integer(const char *s, int allow_sign, uint64_t *mag, int *neg) {
  *neg = 0;
  if (allow_sign && (*s == '-' || *s == '+')) *neg = *s++ == '-';
  if (!isdigit((unsigned char)*s)) return 0;
  char *end;
  errno = 0;
  *mag = strtoull(s, &end, 0);
  return !*end && !errno;
}

/* An unsigned count up to max. */
static int parse_count_max(const char *s, uint64_t max, uint64_t *out) {
  int neg;
  return whole_integer(s, 0, out, &neg) && *out <= max;
}

static int parse_count(const char *s, uint64_t *out) { return parse_count_max(s, UINT64_MAX, out); }

/* An integer of `bits` bits, given as either its signed or its unsigned value: -2^(bits-1) .. 2^bits-1. */
static int parse_bits(const char *s, unsigned bits, uint64_t *out) {
  uint64_t mag, umax = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
  int neg;
  if (!whole_integer(s, 1, &mag, &neg)) return 0;
  if (neg ? mag > 1ull << (bits - 1) : mag > umax) return 0;
  *out = (neg ? 0 - mag : mag) & umax;
  return 1;
}

/* A float: strtod's syntax, not overflowing to infinity (underflow rounds, as C literals do). */
static int parse_real(const char *s, int is64, double *out) {
  if (!*s || isspace((unsigned char)*s)) return 0;
  char *end;
  errno = 0;
  double d = is64 ? strtod(s, &end) : (double)strtof(s, &end);
  if (*end || end == s || (errno == ERANGE && isinf(d))) return 0;
  *out = d;
  return 1;
}

/* --grid/--block "X[,Y[,Z]]": one to three counts, missing ones 1 (ptxrun's dims). */
static int parse_dims(const char *s, unsigned d[3]) {
  d[0] = d[1] = d[2] = 1;
  char part[32];
  for (int k = 0; k < 3; k++) {
    size_t n = strcspn(s, ",");
    uint64_t v;
    if (n >= sizeof part) return 0;
    memcpy(part, s, n);
    part[n] = 0;
    if (!parse_count_max(part, UINT32_MAX, &v)) return 0;
    d[k] = (unsigned)v;
    if (!s[n]) return 1;
    s += n + 1;
  }
  return 0; /* a fourth component */
}

/* If argv[*i] is one of the options `run` and `./app` share, takes it (and its value) into o: 1, or an
 * exit status (< 0 never; usage_error's) as -status after printing why; 0 if it is not one of them. */
static int parse_vm_opt(int argc, char **argv, int *i, wv_vm_opts *o) {
  const char *a = argv[*i];
  int more = *i + 1 < argc;
  if (!strcmp(a, "--stats")) o->stats = 1;
  else if (!strcmp(a, "--profile")) o->profile = 1;
  else if (!strcmp(a, "--profile-json") && more) o->profile_json = argv[++*i];
  else if (!strcmp(a, "--trace") && more) o->trace = argv[++*i];
  else if (!strcmp(a, "--max-steps") && more) {
    if (!parse_count(argv[++*i], &o->max_steps)) return -usage_error("bad --max-steps");
    o->has_max_steps = 1;
  } else if (!strcmp(a, "--timeout") && more) {
    if (!parse_count(argv[++*i], &o->timeout) || o->timeout > 0xffffffffu) return -usage_error("bad --timeout");
    o->has_timeout = 1;
  } else if (!strcmp(a, "--stack") && more) {
    if (!parse_count(argv[++*i], &o->stack) || o->stack > 0xffffffffu) return -usage_error("bad --stack");
  } else if (!strcmp(a, "--machine") && more) o->machine = argv[++*i];
  else if (!strcmp(a, "--async-delivery") && more) o->async_delivery = argv[++*i];
  else if (!strcmp(a, "--schedule") && more) o->schedule = argv[++*i];
  else if (!strcmp(a, "--memory-model") && more) {
    o->memory_model = argv[++*i];
    if (strcmp(o->memory_model, "sc") && strcmp(o->memory_model, "weak")) return -usage_error("bad --memory-model (sc or weak)");
  } else if (!strcmp(a, "--seed") && more) {
    if (!parse_count_max(argv[++*i], UINT32_MAX, &o->seed)) return -usage_error("bad --seed (an integer from 0 to 4294967295)");
    o->has_seed = 1;
  } else if (!strcmp(a, "--check") && more) {
    uint32_t c;
    if (wv_checks_parse(argv[++*i], &c) != WV_OK) return -usage_error("bad --check (memcheck, synccheck, comma-separated)");
    o->checks = argv[*i];
  } else if (!strcmp(a, "--no-contract")) o->no_contract = 1;
  else if (!strcmp(a, "--engine") && more) {
    o->engine = argv[++*i];
    if (strcmp(o->engine, "interp") && strcmp(o->engine, "jit") && strcmp(o->engine, "auto"))
      return -usage_error("bad --engine (interp, jit or auto)");
    char why[512];
    if (!strcmp(o->engine, "jit") && !wv_has_jit()) {
      fprintf(stderr, "warpvm: the JIT is unavailable: %s\n", wv_jit_unavailable(why, sizeof why) ? why : "?");
      return -EXIT_USAGE;
    }
  } else if (!strcmp(a, "--no-jit-cache")) o->no_jit_cache = 1;
  else if (!strcmp(a, "--threads") && more) {
    if (!parse_count_max(argv[++*i], 1024, &o->threads) || !o->threads)
      return -usage_error("bad --threads (an integer from 1 to 1024)");
  }
  else if (!strcmp(a, "--warps-per-wave") && more) {
    if (!parse_count(argv[++*i], &o->wpw) || o->wpw < 1 || o->wpw > 2) return -usage_error("bad --warps-per-wave (1 or 2)");
  } else return 0;
  return 1;
}

/* Options in any order, as ptxrun; returns 0, or an exit status after printing why. -1: --help. */
static int parse_run_opts(int argc, char **argv, run_opts *o) {
  int rc;
  memset(o, 0, sizeof *o);
  for (int k = 0; k < 3; k++) o->grid[k] = o->block[k] = 1;
  o->specs = calloc((size_t)argc + 1, sizeof *o->specs); /* never more --arg or --print than words */
  o->prints = calloc((size_t)argc + 1, sizeof *o->prints);
  if (!o->specs || !o->prints) { fprintf(stderr, "warpvm: out of host memory\n"); return EXIT_DEVICE; }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    uint64_t v;
    if (!strcmp(a, "--kernel") && more) o->kernel = argv[++i];
    else if (!strcmp(a, "--grid") && more) {
      if (!parse_dims(argv[++i], o->grid))
        return usage_errorf("bad --grid %s (X[,Y[,Z]]: one to three integers from 0 to 4294967295)", argv[i]);
    } else if (!strcmp(a, "--block") && more) {
      if (!parse_dims(argv[++i], o->block))
        return usage_errorf("bad --block %s (X[,Y[,Z]]: one to three integers from 0 to 4294967295)", argv[i]);
    } else if (!strcmp(a, "--shared") && more) {
      if (!parse_count_max(argv[++i], UINT32_MAX, &v))
        return usage_errorf("bad --shared %s (bytes: an integer from 0 to 4294967295)", argv[i]);
      o->shared = (unsigned)v;
    } else if (!strcmp(a, "--arg") && more) o->specs[o->nspec++] = argv[++i];
    else if (!strcmp(a, "--print") && more) o->prints[o->nprint++] = argv[++i];
    else if ((rc = parse_vm_opt(argc, argv, &i, &o->vm)) != 0) { if (rc < 0) return -rc; }
    else if (!strcmp(a, "--help") || !strcmp(a, "-h")) return -1;
    else if (a[0] != '-' && !o->file) o->file = a;
    else return usage_error("unknown option");
  }
  if (!o->file || !o->kernel) return usage_error("need FILE.ptx and --kernel");
  return 0;
}

/* ---- run: arguments ----------------------------------------------------------------------- */

typedef struct run_arg {
  int is_buf;
  size_t bytes;
  wv_devptr dptr;
  unsigned char scalar[8];
  unsigned char *wide; /* a zero-padded copy when the kernel's parameter is larger than 8 bytes */
} run_arg;

/* The whole of a file (ptxrun's slurp, exit status 1 when it cannot be read). */
static unsigned char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "warpvm: cannot open %s\n", path); return NULL; }
  size_t cap = 1 << 16, n = 0;
  unsigned char *b = malloc(cap);
  for (size_t got; b && (got = fread(b + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      unsigned char *nb = realloc(b, cap *= 2);
      if (!nb) { free(b); b = NULL; }
      else b = nb;
    }
  }
  int bad = !b || ferror(f);
  fclose(f);
  if (bad) { free(b); fprintf(stderr, "warpvm: cannot read %s\n", path); return NULL; }
  *len = n;
  return b;
}

/* ptxrun's `fill`: how is NULL (zeros), "iota32", "rand32:SEED" or "@PATH" (at most `bytes` bytes of the
 * file, the rest zero). spec is the whole --arg, for messages. Returns 0 or an exit status. */
static int fill(unsigned char *h, size_t bytes, const char *how, const char *spec) {
  memset(h, 0, bytes);
  if (!how) return 0;
  if (!strcmp(how, "iota32")) {
    for (size_t i = 0; i + 4 <= bytes; i += 4) { uint32_t v = (uint32_t)(i / 4); memcpy(h + i, &v, 4); }
  } else if (!strncmp(how, "rand32:", 7)) {
    uint64_t seed;
    if (!parse_bits(how + 7, 32, &seed))
      return usage_errorf("bad --arg %s (the rand32 seed is an integer from -2147483648 to 4294967295)", spec);
    uint32_t x = (uint32_t)seed;
    if (!x) return usage_error("rand32 seed must be nonzero");
    for (size_t i = 0; i + 4 <= bytes; i += 4) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; memcpy(h + i, &x, 4); }
  } else if (how[0] == '@') {
    FILE *f = fopen(how + 1, "rb");
    if (!f) { fprintf(stderr, "warpvm: cannot open %s\n", how + 1); return EXIT_USAGE; }
    size_t got = fread(h, 1, bytes, f); /* a shorter file leaves the rest zero */
    int bad = got < bytes && ferror(f);
    fclose(f);
    if (bad) { fprintf(stderr, "warpvm: cannot read %s\n", how + 1); return EXIT_USAGE; }
  } else return usage_error("unknown buffer fill");
  return 0;
}

static int make_buffer(wv_vm *vm, const char *v, const char *spec, run_arg *a) {
  char size[32];
  size_t n = strcspn(v, ":");
  uint64_t bytes = 0;
  a->is_buf = 1;
  if (n < sizeof size) {
    memcpy(size, v, n);
    size[n] = 0;
  }
  if (n >= sizeof size || !parse_count_max(size, SIZE_MAX, &bytes) || !bytes)
    return usage_errorf("bad buffer size in --arg %s (bytes: an integer from 1 to %zu)", spec, (size_t)SIZE_MAX);
  a->bytes = (size_t)bytes;
  unsigned char *h = malloc(a->bytes);
  if (!h) { fprintf(stderr, "warpvm: out of host memory for a %zu-byte buffer\n", a->bytes); return EXIT_DEVICE; }
  int rc = fill(h, a->bytes, v[n] == ':' ? v + n + 1 : NULL, spec);
  wv_status st = WV_OK;
  if (!rc && (st = wv_malloc(vm, a->bytes, &a->dptr)) == WV_OK) st = wv_memcpy_htod(vm, a->dptr, h, a->bytes);
  free(h);
  return rc ? rc : st ? vm_error(vm, st) : 0;
}

/* ptxrun's `parse_arg`, with whole numbers only: a value its type cannot hold is a usage error. */
static int parse_arg(wv_vm *vm, const char *spec, run_arg *a) {
  memset(a, 0, sizeof *a);
  char type[8] = {0};
  const char *colon = strchr(spec, ':');
  if (!colon || colon - spec > 6) return usage_error("bad --arg");
  memcpy(type, spec, (size_t)(colon - spec));
  const char *v = colon + 1;
  uint64_t bits;
  double d;
  if (!strcmp(type, "buf")) return make_buffer(vm, v, spec, a);
  if (!strcmp(type, "u32") || !strcmp(type, "s32")) {
    if (!parse_bits(v, 32, &bits))
      return usage_errorf("bad --arg %s (%s: an integer from -2147483648 to 4294967295)", spec, type);
    uint32_t x = (uint32_t)bits; memcpy(a->scalar, &x, 4);
  } else if (!strcmp(type, "u64") || !strcmp(type, "s64")) {
    if (!parse_bits(v, 64, &bits))
      return usage_errorf("bad --arg %s (%s: an integer from -9223372036854775808 to 18446744073709551615)", spec, type);
    memcpy(a->scalar, &bits, 8);
  } else if (!strcmp(type, "f32")) {
    if (!parse_real(v, 0, &d)) return usage_errorf("bad --arg %s (f32: a number within the float range)", spec);
    float x = (float)d; memcpy(a->scalar, &x, 4);
  } else if (!strcmp(type, "f64")) {
    if (!parse_real(v, 1, &d)) return usage_errorf("bad --arg %s (f64: a number within the double range)", spec);
    memcpy(a->scalar, &d, 8);
  } else return usage_error("unknown --arg type");
  return 0;
}

/*
 * params[i] points at argument i's value, as cuLaunchKernel wants. A parameter wider than the
 * 8 bytes an argument holds (a by-value struct) gets a zero-padded copy; too few --arg is an error
 * (cuLaunchKernel would read past the array).
 */
static int bind_params(const wv_kernel *k, run_arg *args, int nspec, void **params) {
  uint32_t np = wv_kernel_param_count(k);
  if (np > (uint32_t)nspec) {
    char msg[160];
    snprintf(msg, sizeof msg, "kernel %s takes %" PRIu32 " parameters, %d --arg given", wv_kernel_name(k), np, nspec);
    return usage_error(msg);
  }
  for (int i = 0; i < nspec; i++) {
    run_arg *a = &args[i];
    void *val = a->is_buf ? (void *)&a->dptr : (void *)a->scalar;
    uint32_t size = (uint32_t)i < np ? wv_kernel_param(k, (uint32_t)i).size : 0;
    if (size > 8) {
      if (!(a->wide = calloc(1, size))) { fprintf(stderr, "warpvm: out of host memory\n"); return EXIT_DEVICE; }
      memcpy(a->wide, val, 8);
      val = a->wide;
    }
    params[i] = val;
  }
  return 0;
}

/* ---- run: output -------------------------------------------------------------------------- */

/* ptxrun's `print_buf`: the header comes first, an unknown TYPE is noticed at the first element. */
static int print_buf(wv_vm *vm, int idx, const char *type, const run_arg *a) {
  unsigned char *h = malloc(a->bytes);
  if (!h) { fprintf(stderr, "warpvm: out of host memory\n"); return EXIT_DEVICE; }
  wv_status st = wv_memcpy_dtoh(vm, h, a->dptr, a->bytes);
  if (st) { free(h); return vm_error(vm, st); }
  printf("arg %d:\n", idx);
  size_t step = type[1] == '6' ? 8 : 4;
  int rc = 0;
  for (size_t i = 0; !rc && i + step <= a->bytes; i += step) {
    uint32_t u; uint64_t q = 0; float f; double d = 0;
    memcpy(&u, h + i, 4); memcpy(&f, h + i, 4);
    if (step == 8) { memcpy(&q, h + i, 8); memcpy(&d, h + i, 8); }
    if (!strcmp(type, "u32")) printf("%" PRIu32 "\n", u);
    else if (!strcmp(type, "s32")) printf("%" PRId32 "\n", (int32_t)u);
    else if (!strcmp(type, "x32")) printf("0x%08" PRIx32 "\n", u);
    else if (!strcmp(type, "u64")) printf("%" PRIu64 "\n", q);
    else if (!strcmp(type, "s64")) printf("%" PRId64 "\n", (int64_t)q);
    else if (!strcmp(type, "x64")) printf("0x%016" PRIx64 "\n", q);
    else if (!strcmp(type, "f32")) printf("0x%08" PRIx32 " %.9g\n", u, f);
    else if (!strcmp(type, "f64")) printf("0x%016" PRIx64 " %.17g\n", q, d);
    else rc = usage_error("unknown --print type");
  }
  free(h);
  return rc;
}

static int print_results(wv_vm *vm, const run_opts *o, const run_arg *args) {
  for (int i = 0; i < o->nprint; i++) {
    int idx;
    char type[8] = {0};
    if (sscanf(o->prints[i], "%d:%7s", &idx, type) != 2 || idx < 0 || idx >= o->nspec || !args[idx].is_buf)
      return usage_error("bad --print");
    int rc = print_buf(vm, idx, type, &args[idx]);
    if (rc) return rc;
  }
  return 0;
}

/* ---- commands ----------------------------------------------------------------------------- */

/* Load, look up, build arguments, launch, print: the order in which ptxrun finds its errors. */
static int run_kernel(wv_vm *vm, const run_opts *o, run_arg *args, void **params) {
  wv_module *mod;
  const wv_kernel *k;
  int rc = load_module(vm, o->file, &mod);
  if (rc) return rc;
  wv_status st = wv_kernel_get(mod, o->kernel, &k);
  if (st) {
    fprintf(stderr, "warpvm: %s: no kernel named '%s' in %s\n", status_name(st), o->kernel, o->file);
    return EXIT_DEVICE; /* as ptxrun, where cuModuleGetFunction fails */
  }
  for (int i = 0; i < o->nspec && !rc; i++) rc = parse_arg(vm, o->specs[i], &args[i]);
  if (rc || (rc = bind_params(k, args, o->nspec, params))) return rc;
  wv_dim3 grid = {o->grid[0], o->grid[1], o->grid[2]}, block = {o->block[0], o->block[1], o->block[2]};
  st = wv_launch(vm, k, grid, block, o->shared, params);
  if (st) rc = vm_error(vm, st);
  else {
    fflush(stdout);
    rc = print_results(vm, o, args);
  }
  if (o->vm.stats) print_stats(vm);
  fflush(stdout);
  if (wv_profile_write(vm, o->vm.profile ? stderr : NULL, o->vm.profile_json, o->vm.trace) && !rc) rc = EXIT_USAGE; /* a file it cannot write */
  wv_diag_print(vm, stderr); /* what the GPU let pass: invalid reads, ... */
  return rc;
}

static int cmd_run(int argc, char **argv) {
  run_opts o;
  int rc = parse_run_opts(argc, argv, &o);
  if (rc) {
    if (rc < 0) { fputs(USAGE, stdout); fputs(HELP, stdout); rc = 0; } /* --help */
    free(o.specs);
    free(o.prints);
    return rc;
  }
  wv_config cfg = {.max_steps = o.vm.max_steps, .timeout_seconds = wv_cli_timeout(&o.vm), .stack_bytes = (uint32_t)o.vm.stack, .printf_out = printf_to_stdout, .printf_user = NULL,
                   .machine = o.vm.machine, .warps_per_wave = (uint32_t)o.vm.wpw,
                   .async_delivery = o.vm.async_delivery, .memory_model = o.vm.memory_model, .schedule = o.vm.schedule,
                   .seed = (uint32_t)o.vm.seed, .no_contract = o.vm.no_contract,
                   .threads = (uint32_t)o.vm.threads, .engine = o.vm.engine, .no_jit_cache = o.vm.no_jit_cache,
                   .profile = (o.vm.profile || o.vm.profile_json ? WV_PROFILE_ON : 0) | (o.vm.trace ? WV_PROFILE_ON | WV_PROFILE_TRACE : 0)};
  if (o.vm.checks) wv_checks_parse(o.vm.checks, &cfg.checks);
  wv_vm *vm = create_vm(&cfg);
  run_arg *args = calloc((size_t)o.nspec + 1, sizeof *args);
  void **params = calloc((size_t)o.nspec + 1, sizeof *params);
  if (!vm) rc = EXIT_USAGE;
  else if (!args || !params) { fprintf(stderr, "warpvm: out of host memory\n"); rc = EXIT_DEVICE; }
  else rc = run_kernel(vm, &o, args, params);
  for (int i = 0; args && i < o.nspec; i++) free(args[i].wide);
  free(args);
  free(params);
  free(o.specs);
  free(o.prints);
  if (vm) wv_destroy(vm);
  return rc;
}

static void list_kernel(const wv_kernel *k) {
  uint32_t np = wv_kernel_param_count(k), bytes = 0;
  for (uint32_t i = 0; i < np; i++) {
    wv_param_info p = wv_kernel_param(k, i);
    if (p.offset + p.size > bytes) bytes = p.offset + p.size;
  }
  printf("kernel %s: %" PRIu32 " params, %" PRIu32 " param bytes, %" PRIu32 " static shared bytes\n",
         wv_kernel_name(k), np, bytes, wv_kernel_static_shared(k));
  for (uint32_t i = 0; i < np; i++) {
    wv_param_info p = wv_kernel_param(k, i);
    printf("  [%" PRIu32 "] %s: %s size %" PRIu32 " align %" PRIu32 " offset %" PRIu32 "\n", i, p.name,
           p.type, p.size, p.align, p.offset);
  }
}

static int cmd_list(int argc, char **argv) {
  if (argc == 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) { fputs(USAGE, stdout); return 0; }
  if (argc != 1 || argv[0][0] == '-') return usage_error("list takes one FILE.ptx");
  wv_vm *vm = create_vm(NULL);
  if (!vm) return EXIT_DEVICE;
  wv_module *mod;
  int rc = load_module(vm, argv[0], &mod);
  for (uint32_t i = 0, n = rc ? 0 : wv_module_kernel_count(mod); i < n; i++) {
    if (i) putchar('\n');
    list_kernel(wv_module_kernel_at(mod, i));
  }
  wv_destroy(vm);
  return rc;
}

/* `warpvm contractions FILE.ptx`: the FMA contraction decisions (docs/CONTRACTION.md). */
static int cmd_contractions(int argc, char **argv) {
  if (argc == 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) { fputs(USAGE, stdout); return 0; }
  if (argc != 1 || argv[0][0] == '-') return usage_error("contractions takes one FILE.ptx");
  wv_vm *vm = create_vm(NULL);
  if (!vm) return EXIT_DEVICE;
  wv_module *mod;
  int rc = load_module(vm, argv[0], &mod);
  if (!rc) {
    wv_status st = wv_module_print_contractions(vm, mod, stdout);
    if (st) rc = vm_error(vm, st);
  }
  wv_destroy(vm);
  return rc;
}

/* `warpvm machines`: the machines kernels can run on. */
static int cmd_machines(int argc, char **argv) {
  (void)argv;
  if (argc) return usage_error("machines takes no arguments");
  for (uint32_t i = 0; wv_machine_name(i); i++) printf("%-11s %s\n", wv_machine_name(i), wv_machine_describe(i));
  return 0;
}

/* `warpvm lower FILE.ptx --machine M [--warps-per-wave N]`: every cross-lane PTX instruction and the
 * AMD code it becomes (the code `run --machine M` executes). */
static int cmd_lower(int argc, char **argv) {
  const char *file = NULL, *machine = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--machine") && i + 1 < argc) machine = argv[++i];
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(USAGE, stdout); return 0; }
    else if (argv[i][0] != '-' && !file) file = argv[i];
    else return usage_error("unknown option");
  }
  if (!file || !machine) return usage_error("lower needs FILE.ptx and --machine");
  if (!strcmp(machine, "sm_90")) return usage_error("lower needs an AMD machine (see `warpvm machines`)");
  wv_config cfg = {.machine = machine};
  wv_vm *vm = create_vm(&cfg);
  if (!vm) return EXIT_USAGE;
  wv_module *mod;
  int rc = load_module(vm, file, &mod);
  if (!rc) {
    wv_status st = wv_module_print_lowering(vm, mod, stdout);
    if (st) rc = vm_error(vm, st);
  }
  wv_destroy(vm);
  return rc;
}

/*
 * `warpvm gcn FILE.s`: one wave of the AMD model of src/amd/gcn.h, whose only cross-lane instructions
 * are ds_permute_b32 / ds_bpermute_b32. Assembles FILE.s for the wave size, initialises VGPRs from
 * --set (v0 is the lane id unless set), runs the program once and prints every register it wrote.
 */
static int cmd_gcn(int argc, char **argv) {
  static const char GCN_HELP[] =
      "usage: warpvm gcn FILE.s [--wave 64|32|8] [--rdna] [--set vN=A,B,...]... [--exec MASK]\n"
      "\n"
      "Runs FILE.s (AMDGPU assembly, LLVM spelling, one instruction per line, ';' and '//' comments) on one\n"
      "wave of the AMD model and prints every VGPR it wrote as \"vN: lane0 lane1 ...\" (u32 decimal), then\n"
      "written SGPRs (\"sN: x\") and vcc / exec (hex) if written.\n"
      "  --wave N        64 (GCN/CDNA, default), 32 (RDNA wave32) or 8 (toy wave of the reference examples)\n"
      "  --rdna          wave64 as on RDNA (GFX10-11.5): ds_(b)permute stay inside each 32-lane half\n"
      "  --set vN=A,...  lanes 0..k-1 of vN get A,... (the other lanes 0); v0 defaults to the lane id\n"
      "  --exec MASK     initial exec mask (default: all lanes)\n"
      "Instructions: v_mov_b32 v_mbcnt_lo_u32_b32 v_mbcnt_hi_u32_b32 v_lshlrev_b32 v_add_u32 v_add_nc_u32\n"
      "  v_sub_u32 v_sub_nc_u32 v_and_b32 v_or_b32 v_xor_b32 v_cmp_{eq,ne,lt,le,gt,ge}_{u32,i32}\n"
      "  v_cndmask_b32 v_readlane_b32 v_readfirstlane_b32 s_mov_b32 s_mov_b64 ds_permute_b32\n"
      "  ds_bpermute_b32 [offset:N] s_waitcnt s_nop s_endpgm\n"
      "Exit status: 0 success, 1 usage or assembly error (FILE:LINE:COL: error: ...).\n";
  const char *file = NULL, *sets[64];
  int nset = 0, rdna = 0, have_exec = 0;
  unsigned wave = 64;
  uint64_t exec = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "--wave") && more) {
      const char *v = argv[++i];
      if (!strcmp(v, "64") || !strcmp(v, "32") || !strcmp(v, "8")) wave = (unsigned)atoi(v);
      else return usage_error("--wave must be 64, 32 or 8");
    } else if (!strcmp(a, "--rdna")) rdna = 1;
    else if (!strcmp(a, "--set") && more) {
      if (nset == 64) return usage_error("too many --set");
      sets[nset++] = argv[++i];
    } else if (!strcmp(a, "--exec") && more) {
      if (!parse_count(argv[++i], &exec)) return usage_error("bad --exec");
      have_exec = 1;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(GCN_HELP, stdout); return 0; }
    else if (a[0] != '-' && !file) file = a;
    else return usage_error("unknown option");
  }
  if (!file) return usage_error("gcn needs FILE.s");
  if (have_exec && wave < 64 && (exec >> wave)) return usage_error("--exec has bits beyond the wave's lanes");
  size_t len;
  unsigned char *text = read_file(file, &len);
  if (!text) return EXIT_USAGE;
  char err[512];
  wv_gcn_program *prog = wv_gcn_assemble((const char *)text, len, file, wave, err, sizeof err);
  free(text);
  if (!prog) { fprintf(stderr, "%s\n", err); return EXIT_USAGE; }
  wv_gcn_wave *w = malloc(sizeof *w);
  int rc = 0;
  if (!w) { fprintf(stderr, "warpvm: out of memory\n"); rc = EXIT_DEVICE; }
  else {
    wv_gcn_wave_init(w, wave, rdna);
    if (have_exec) w->exec = exec;
    for (int i = 0; i < nset && !rc; i++)
      if (wv_gcn_set_vgpr(w, sets[i], err, sizeof err)) rc = usage_error(err);
    if (!rc && wv_gcn_run(w, prog, err, sizeof err)) { fprintf(stderr, "warpvm: %s\n", err); rc = EXIT_DEVICE; }
    if (!rc) wv_gcn_print_written(w, stdout);
  }
  free(w);
  wv_gcn_program_free(prog);
  return rc;
}

/* warpvm [OPTIONS] PROGRAM [ARGS...]: options up to the first word that is not one. */
static int cmd_app(int argc, char **argv) {
  wv_vm_opts o = {0};
  int i = 0, rc;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "--")) { i++; break; }
    if ((rc = parse_vm_opt(argc, argv, &i, &o)) < 0) return -rc;
    if (rc) continue;
    if (!strcmp(argv[i], "--verbose")) o.verbose = 1;
    else return usage_error("unknown option");
  }
  if (i == argc) return usage_error("missing program to run");
  /* The same checks as `run`, before the program starts. */
  wv_config cfg = {.machine = o.machine, .warps_per_wave = (uint32_t)o.wpw, .async_delivery = o.async_delivery,
                   .memory_model = o.memory_model, .schedule = o.schedule};
  wv_vm *vm = create_vm(&cfg);
  if (!vm) return EXIT_USAGE;
  wv_destroy(vm);
#ifdef WV_SANITIZER_PRELOAD
  o.preload_first = WV_SANITIZER_PRELOAD;
#endif
  return wv_cli_run_app(&o, argc - i, argv + i);
}

int main(int argc, char **argv) {
  const char *cmd = argc > 1 ? argv[1] : NULL;
  if (!cmd) return usage_error("missing command");
  if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2);
  if (!strcmp(cmd, "list")) return cmd_list(argc - 2, argv + 2);
  if (!strcmp(cmd, "contractions")) return cmd_contractions(argc - 2, argv + 2);
  if (!strcmp(cmd, "gcn")) return cmd_gcn(argc - 2, argv + 2);
  if (!strcmp(cmd, "machines")) return cmd_machines(argc - 2, argv + 2);
  if (!strcmp(cmd, "lower")) return cmd_lower(argc - 2, argv + 2);
  if (!strcmp(cmd, "--version")) { puts("warpvm " WARPVM_VERSION); return 0; }
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    fputs(USAGE, stdout);
    fputs(HELP, stdout);
    return 0;
  }
  char prog[4096];
  if (cmd[0] == '-' || strchr(cmd, '/') || !wv_cli_find_program(cmd, prog, sizeof prog)) return cmd_app(argc - 1, argv + 1);
  return usage_error("unknown command");
}
