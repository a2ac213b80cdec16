/*
 * main.c — wv_suite, the benchmark runner behind bench/run.sh (issue 11, "The benchmark"). For each
 * case of cases.c it runs the kernel on warpvm (with the interpreter, and with the JIT engine when warpvm has
 * LLVM), in C and under PoCL, checks that all agree bit for bit, and times them: one untimed warm-up, then
 * --reps repetitions, each running them one after the other (so bench/report.py can take their ratios within
 * a repetition). Then the
 * per-instruction-class microbenchmark (micro.c). One process runs one thread count (PoCL fixes its
 * pool at start-up): run.sh runs it with --threads 1 and --threads all.
 *
 *   wv_suite [--threads N|all] [--reps N] [--filter NAME] [--out FILE] [--kernels DIR]
 *            [--no-pocl] [--no-micro] [--print-micro CLASS]
 *
 * --out FILE gets one CSV row per timed run (section,kernel,impl,threads,rep,wall_s,cpu_s,
 * thread_instructions) after `# key=value` lines saying how it ran; stdout gets a summary.
 * Exit status: 0 ok, 1 usage, 2 a failure or a result that differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suite.h"

struct bs_report {
  FILE *f;
};

void bs_report_row(bs_report *r, const char *section, const char *kernel, const char *impl, uint32_t threads,
                   uint32_t rep, const bs_time *t, uint64_t thread_instructions) {
  if (r->f)
    fprintf(r->f, "%s,%s,%s,%u,%u,%.9f,%.9f,%llu\n", section, kernel, impl, threads, rep, t->wall, t->cpu,
            (unsigned long long)thread_instructions);
}

typedef struct opts {
  uint32_t threads, reps;
  const char *filter, *out, *dir, *print_micro;
  int pocl, micro, jit, interp;
  char dirbuf[4096];
} opts;

/* The three implementations of the case being run, and its buffers. */
typedef struct runner {
  const opts *o;
  bs_vm *vm;
  bs_vm *jit;  /* the same with wv_config.engine "jit"; NULL: warpvm has no JIT, or --no-jit */
  bs_ocl *ocl; /* NULL: no PoCL */
  bs_report *rep;
  char err[4096];
} runner;

static const char USAGE[] =
    "usage: wv_suite [--threads N|all] [--reps N] [--filter NAME] [--out FILE] [--kernels DIR]\n"
    "                [--no-pocl] [--no-jit] [--no-interp] [--no-micro] [--print-micro CLASS]\n"
    "  --threads N|all   warpvm's and PoCL's threads (default 1; all = the online CPUs)\n"
    "  --reps N          timed repetitions after one warm-up (default 7)\n"
    "  --filter NAME     only the kernels and instruction classes whose name contains NAME\n"
    "  --out FILE        the raw timings as CSV (bench/report.py reads them)\n"
    "  --kernels DIR     where NAME.ptx and NAME.cl are (default: bench/kernels)\n"
    "  --no-pocl         skip PoCL;  --no-jit: skip warpvm's JIT engine;  --no-micro: skip the instruction classes\n"
    "  --no-interp       skip warpvm's interpreter on the kernels (to profile the JIT alone)\n"
    "  --print-micro CLASS  print the PTX of an instruction class's kernel and exit\n";

static int parse_u32(const char *v, uint32_t max, uint32_t *out) {
  char *end;
  unsigned long n = strtoul(v, &end, 10);
  if (v[0] < '1' || v[0] > '9' || *end || n > max) return 0;
  return *out = (uint32_t)n, 1;
}

/* 0 to run, -1 after --help, 1 after a usage error. */
static int parse_opts(int argc, char **argv, opts *o) {
  const char *slash = strrchr(__FILE__, '/');
  *o = (opts){.threads = 1, .reps = 7, .pocl = 1, .micro = 1, .jit = 1, .interp = 1};
  /* __FILE__ is bench/suite/main.c: the kernels are in ../kernels */
  snprintf(o->dirbuf, sizeof o->dirbuf, "%.*s../kernels", slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__);
  o->dir = o->dirbuf;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) return fputs(USAGE, stdout), -1;
    if (!strcmp(a, "--no-pocl")) { o->pocl = 0; continue; }
    if (!strcmp(a, "--no-micro")) { o->micro = 0; continue; }
    if (!strcmp(a, "--no-jit")) { o->jit = 0; continue; }
    if (!strcmp(a, "--no-interp")) { o->interp = 0; continue; }
    static const char *const VALUED[] = {"--threads", "--reps", "--filter", "--out", "--kernels", "--print-micro"};
    int known = 0;
    for (size_t k = 0; k < sizeof VALUED / sizeof VALUED[0]; k++) known |= !strcmp(a, VALUED[k]);
    if (!known) return fprintf(stderr, "wv_suite: unknown option %s\n%s", a, USAGE), 1;
    if (!v) return fprintf(stderr, "wv_suite: %s: missing value\n%s", a, USAGE), 1;
    i++;
    if (!strcmp(a, "--threads") && !strcmp(v, "all")) {
      long n = sysconf(_SC_NPROCESSORS_ONLN);
      o->threads = n > 0 ? (uint32_t)n : 1;
    } else if (!strcmp(a, "--threads") && parse_u32(v, 4096, &o->threads)) {
    } else if (!strcmp(a, "--reps") && parse_u32(v, 1000, &o->reps)) {
    } else if (!strcmp(a, "--filter")) o->filter = v;
    else if (!strcmp(a, "--out")) o->out = v;
    else if (!strcmp(a, "--kernels")) o->dir = v;
    else if (!strcmp(a, "--print-micro")) o->print_micro = v;
    else return fprintf(stderr, "wv_suite: bad value %s %s\n%s", a, v, USAGE), 1;
  }
  return 0;
}

static int failed(runner *r, const bs_case *c, const char *impl) {
  fprintf(stderr, "wv_suite: %s on %s: %s\n", c->name, impl, r->err);
  return 2;
}

static int check(runner *r, const bs_case *c, const char *impl, void *const *want, void *const *got) {
  if (!bs_compare(c, want, got, r->err, sizeof r->err)) return 0;
  fprintf(stderr, "wv_suite: %s on %s computed a WRONG result: %s\n", c->name, impl, r->err);
  return 2;
}

/* One timed and checked run of the case on warpvm v (impl: "warpvm" or "warpvm_jit"). */
static int run_vm(runner *r, bs_vm *v, const char *impl, const bs_case *c, uint32_t rep, void *const *want, void **got) {
  bs_time t0, t;
  uint64_t ti = 0;
  if (bs_vm_clear(v, r->err, sizeof r->err)) return failed(r, c, impl);
  bs_clock(&t0);
  if (bs_vm_run(v, &ti, r->err, sizeof r->err)) return failed(r, c, impl);
  t = bs_since(&t0);
  if (bs_vm_read(v, got, r->err, sizeof r->err)) return failed(r, c, impl);
  if (check(r, c, impl, want, got)) return 2;
  if (rep) bs_report_row(r->rep, "kernel", c->name, impl, r->o->threads, rep, &t, ti);
  return 0;
}

/* One repetition of one case: warpvm (interpreter, JIT), C, PoCL in turn, each timed and checked. */
static int run_rep(runner *r, const bs_case *c, uint32_t rep, bs_host *h, void *const *want, void **got) {
  bs_time t0, t;
  uint32_t th = r->o->threads;
  if (r->o->interp && run_vm(r, r->vm, "warpvm", c, rep, want, got)) return 2;
  if (r->jit && run_vm(r, r->jit, "warpvm_jit", c, rep, want, got)) return 2;

  bs_val args[BS_MAX_ARGS];
  bs_host_clear_outputs(c, h);
  bs_host_args(c, h, args);
  bs_clock(&t0);
  c->native(args, c);
  t = bs_since(&t0);
  if (check(r, c, "C", want, h->buf)) return 2;
  if (rep) bs_report_row(r->rep, "kernel", c->name, "c", th, rep, &t, 0);

  if (!r->ocl) return 0;
  if (bs_ocl_clear(r->ocl, r->err, sizeof r->err)) return failed(r, c, "PoCL");
  bs_clock(&t0);
  if (bs_ocl_run(r->ocl, r->err, sizeof r->err)) return failed(r, c, "PoCL");
  t = bs_since(&t0);
  if (bs_ocl_read(r->ocl, got, r->err, sizeof r->err)) return failed(r, c, "PoCL");
  if (check(r, c, "PoCL", want, got)) return 2;
  if (rep) bs_report_row(r->rep, "kernel", c->name, "pocl", th, rep, &t, 0);
  return 0;
}

/* The outputs of one untimed C run: what warpvm and PoCL must produce. */
static int make_want(const bs_case *c, bs_host *h, void **want) {
  bs_val args[BS_MAX_ARGS];
  bs_host_args(c, h, args);
  c->native(args, c);
  for (uint32_t i = 0; i < c->nbufs; i++)
    if (!(want[i] = malloc(c->bufs[i].bytes))) return -1;
    else memcpy(want[i], h->buf[i], c->bufs[i].bytes);
  return 0;
}

static int run_case(runner *r, const bs_case *c) {
  bs_host h;
  void *want[BS_MAX_BUFS] = {0}, *got[BS_MAX_BUFS] = {0};
  int rc = 0;
  if (bs_host_make(c, &h) || make_want(c, &h, want)) rc = (fprintf(stderr, "wv_suite: out of memory\n"), 2);
  for (uint32_t i = 0; i < c->nbufs && !rc; i++)
    if (!(got[i] = calloc(1, c->bufs[i].bytes))) rc = (fprintf(stderr, "wv_suite: out of memory\n"), 2);
  if (!rc && bs_vm_prepare(r->vm, c, r->o->dir, &h, r->err, sizeof r->err)) rc = failed(r, c, "warpvm");
  if (!rc && r->jit && bs_vm_prepare(r->jit, c, r->o->dir, &h, r->err, sizeof r->err)) rc = failed(r, c, "warpvm_jit");
  if (!rc && r->ocl && bs_ocl_prepare(r->ocl, c, r->o->dir, &h, r->err, sizeof r->err)) rc = failed(r, c, "PoCL");
  for (uint32_t rep = 0; rep <= r->o->reps && !rc; rep++) rc = run_rep(r, c, rep, &h, want, got);
  bs_vm_release(r->vm);
  if (r->jit) bs_vm_release(r->jit);
  if (r->ocl) bs_ocl_release(r->ocl);
  for (uint32_t i = 0; i < BS_MAX_BUFS; i++) free(want[i]), free(got[i]);
  bs_host_free(c, &h);
  if (!rc) printf("%-12s ok (warpvm%s, C%s agree)\n", c->name, r->jit ? ", its JIT" : "", r->ocl ? ", PoCL" : "");
  fflush(stdout);
  return rc;
}

static void write_header(FILE *f, const opts *o, const runner *r) {
  fprintf(f, "# threads=%u\n# reps=%u\n# warpvm_threads=%d\n# warpvm_jit=%d\n# pocl_device=%s\n# pocl_version=%s\n",
          o->threads, o->reps, bs_vm_threads_supported(), r->jit != NULL, r->ocl ? bs_ocl_device(r->ocl) : "none",
          r->ocl ? bs_ocl_version(r->ocl) : "none");
  for (uint32_t i = 0; i < BS_NCASES; i++) fprintf(f, "# case=%s:%s\n", BS_CASES[i].name, BS_CASES[i].what);
  fprintf(f, "section,kernel,impl,threads,rep,wall_s,cpu_s,thread_instructions\n");
}

static int run_all(const opts *o, bs_report *rep) {
  runner r = {.o = o, .rep = rep};
  if (!(r.vm = bs_vm_open(o->threads, "interp", r.err, sizeof r.err))) return fprintf(stderr, "wv_suite: %s\n", r.err), 2;
  if (o->jit && bs_vm_has_jit() && !(r.jit = bs_vm_open(o->threads, "jit", r.err, sizeof r.err)))
    return fprintf(stderr, "wv_suite: %s\n", r.err), 2;
  if (o->pocl && !(r.ocl = bs_ocl_open(o->threads, r.err, sizeof r.err)))
    fprintf(stderr, "wv_suite: %s; going on without PoCL\n", r.err);
  if (rep->f) write_header(rep->f, o, &r);
  printf("wv_suite: %u thread(s)%s, JIT: %s, %u repetitions, PoCL: %s\n", o->threads,
         bs_vm_threads_supported() ? "" : " (this warpvm runs launches on one thread)", r.jit ? "yes" : "no", o->reps,
         r.ocl ? bs_ocl_device(r.ocl) : "none");
  int rc = 0;
  for (uint32_t i = 0; i < BS_NCASES && !rc; i++)
    if (!o->filter || strstr(BS_CASES[i].name, o->filter)) rc = run_case(&r, &BS_CASES[i]);
  if (!rc && o->micro && o->threads == 1) {
    rc = bs_micro(r.vm, o->reps, o->filter, rep) ? 2 : 0;
    if (!rc) printf("micro        ok\n");
  }
  bs_ocl_close(r.ocl);
  bs_vm_close(r.vm);
  bs_vm_close(r.jit);
  return rc;
}

int main(int argc, char **argv) {
  opts o;
  int rc = parse_opts(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : 1;
  if (o.print_micro) return bs_micro_print(o.print_micro) ? (fprintf(stderr, "wv_suite: no class %s\n", o.print_micro), 1) : 0;
  bs_report rep = {NULL};
  if (o.out && !(rep.f = fopen(o.out, "w"))) return fprintf(stderr, "wv_suite: cannot write %s\n", o.out), 2;
  rc = run_all(&o, &rep);
  if (rep.f && fclose(rep.f)) rc = rc ? rc : (fprintf(stderr, "wv_suite: cannot write %s\n", o.out), 2);
  return rc;
}
