#!/usr/bin/env python3
"""bench/omp/run.py — runs the OpenMP comparison (bench/omp/README.md); bench/omp/run.sh builds and calls it.

For each program of programs.txt: one untimed warm-up of each configuration (it fills warpvm's JIT cache, so the
timed runs find their code there, as a user's second run does), then REPS rounds that each run every
configuration once, in turn, so that a slow spell of the machine falls on all of them alike:

  omp-1     the OpenMP build, OMP_NUM_THREADS=1
  wv-1      the CUDA build under warpvm --engine jit --threads 1
  wv-all    the CUDA build under warpvm --engine jit (a thread per core)
  omp-all   the OpenMP build, a thread per core

Each run prints `NAME time_ms=T checksum=C` (common.h); the wall time of the whole process is measured here too.
Every checksum must agree with omp-1's within the program's tolerance, or the run fails (exit 2). Prints a
Markdown table of medians and the ratios to omp-1, and writes it to --md and into --readme's omp part.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def parse_programs(path):
    progs = []
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if line:
            progs.append((line[0], float(line[1]), line[2:]))
    return progs


def run_one(cmd, env, name):
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = (time.monotonic() - t0) * 1e3
    line = [l for l in p.stdout.splitlines() if l.startswith(name + " time_ms=")]
    if p.returncode != 0 or len(line) != 1:
        sys.exit("bench/omp: %s failed (exit %d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    f = dict(kv.split("=", 1) for kv in line[0].split()[1:])
    return float(f["time_ms"]), float(f["checksum"]), wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="where NAME.cuda and NAME.omp are")
    ap.add_argument("--warpvm", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--filter", default="")
    ap.add_argument("--md", default="")
    ap.add_argument("--meta", action="append", default=[])
    ap.add_argument("--readme", default="", help="a file whose <!-- omp:begin --> ... <!-- omp:end --> part becomes the table")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    progs = [p for p in parse_programs(os.path.join(here, "programs.txt")) if a.filter in p[0]]
    ncpu = str(os.cpu_count() or 1)
    base = dict(os.environ)
    configs = [
        ("omp-1", lambda n, args: [os.path.join(a.bin, n + ".omp")] + args, {"OMP_NUM_THREADS": "1"}),
        ("wv-1", lambda n, args: [a.warpvm, "--engine", "jit", "--threads", "1", os.path.join(a.bin, n + ".cuda")] + args, {}),
        ("wv-all", lambda n, args: [a.warpvm, "--engine", "jit", os.path.join(a.bin, n + ".cuda")] + args, {}),
        ("omp-all", lambda n, args: [os.path.join(a.bin, n + ".omp")] + args, {"OMP_NUM_THREADS": ncpu}),
    ]
    rows = []
    for name, tol, args in progs:
        res = {c[0]: [] for c in configs}
        for rep in range(a.reps + 1):
            for cname, cmd, extra in configs:
                env = dict(base, **extra)
                ms, ck, wall = run_one(cmd(name, args), env, name)
                ref = res["omp-1"][0][1] if res["omp-1"] else ck
                if abs(ck - ref) > tol * max(abs(ref), 1e-300):
                    sys.exit("bench/omp: %s: %s's checksum %.17g differs from omp-1's %.17g by more than %g (relative)"
                             % (name, cname, ck, ref, tol))
                if rep:  # (the first round is the warm-up)
                    res[cname].append((ms, ck, wall))
        med = {c: statistics.median(v[0] for v in res[c]) for c in res}
        wall = {c: statistics.median(v[2] for v in res[c]) for c in res}
        rows.append((name, " ".join(args), med, wall))
        print("%-11s omp-1 %8.1f ms  wv-1 %8.1f ms (x%.2f)  wv-all %8.1f ms (x%.2f)  omp-all %8.1f ms" % (
            name, med["omp-1"], med["wv-1"], med["wv-1"] / med["omp-1"], med["wv-all"], med["wv-all"] / med["omp-1"],
            med["omp-all"]), flush=True)
    if not rows:
        sys.exit("bench/omp: no program matches --filter %r" % a.filter)
    r1 = [r[2]["wv-1"] / r[2]["omp-1"] for r in rows]
    ra = [r[2]["wv-all"] / r[2]["omp-all"] for r in rows]
    ra1 = [r[2]["wv-all"] / r[2]["omp-1"] for r in rows]
    w1 = [r[3]["wv-1"] / r[3]["omp-1"] for r in rows]
    out = ["| program | args | OpenMP, 1 thread | warpvm JIT, 1 thread | × OpenMP-1 | warpvm JIT, %s threads | × OpenMP-1 "
           "| OpenMP, %s threads | × OpenMP-%s | whole process × OpenMP-1 (1 thread) |" % (ncpu, ncpu, ncpu),
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for (name, args, med, wall), x1, xa1, xa, xw in zip(rows, r1, ra1, ra, w1):
        out.append("| `%s` | %s | %.1f ms | %.1f ms | %.2f | %.1f ms | %.2f | %.1f ms | %.2f | %.2f |" % (
            name, args or "(default)", med["omp-1"], med["wv-1"], x1, med["wv-all"], xa1, med["omp-all"], xa, xw))
    out.append("| **median** | | | | **%.2f** | | **%.2f** | | **%.2f** | **%.2f** |" % (
        statistics.median(r1), statistics.median(ra1), statistics.median(ra), statistics.median(w1)))
    table = "\n".join(out)
    print()
    print(table)
    for m in a.meta:
        print("- " + m)
    text = "Medians of %d runs (`bash bench/omp/run.sh`); %s.\n\n%s\n" % (a.reps, "; ".join(a.meta), table)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    if a.readme:
        doc = open(a.readme).read()
        b, e = doc.find("<!-- omp:begin -->\n"), doc.find("<!-- omp:end -->")
        if b < 0 or e < b:
            sys.exit("bench/omp: no <!-- omp:begin --> ... <!-- omp:end --> in " + a.readme)
        with open(a.readme, "w") as f:
            f.write(doc[:b] + "<!-- omp:begin -->\n" + text + doc[e:])


if __name__ == "__main__":
    main()
