#!/usr/bin/env python3
"""report.py — turns wv_suite's raw timings (bench/suite/main.c writes them, bench/run.sh runs it) into
docs/bench.md (tables), docs/bench.png (chart, matplotlib) and the README's performance table, between
the lines <!-- bench:begin --> and <!-- bench:end -->.

    report.py --one FILE --all FILE [--md FILE] [--png FILE] [--readme FILE] [--meta KEY=VALUE ...]

--one is the run with one thread, --all the run with all threads. Every time is the median over the
repetitions; a ratio is the median over the repetitions of the ratio taken within each repetition
(warpvm's time over C's or PoCL's time, measured one after the other), so slow phases of a noisy
machine hit both sides of it. Thread-instructions per second: warpvm's thread-instructions (wv_stats)
over its median wall time. An instruction class costs (time - time of the empty loop) over
(thread-instructions - those of the empty loop), both from the same repetition, median over them.
"""
import argparse
import csv
import os
import re
import statistics
import sys
from collections import defaultdict

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def load(path):
    """Header (# key=value lines; `case` may repeat) and rows of a wv_suite --out file."""
    meta, cases, rows = {}, {}, []
    with open(path) as f:
        lines = [l for l in f if l.strip()]
    for l in lines:
        if l.startswith("# "):
            k, _, v = l[2:].rstrip("\n").partition("=")
            if k == "case":
                name, _, what = v.partition(":")
                cases[name] = what
            else:
                meta[k] = v
    for r in csv.DictReader(l for l in lines if not l.startswith("#")):
        r["rep"], r["threads"] = int(r["rep"]), int(r["threads"])
        r["wall_s"], r["cpu_s"] = float(r["wall_s"]), float(r["cpu_s"])
        r["thread_instructions"] = int(r["thread_instructions"])
        rows.append(r)
    return meta, cases, rows


def by_rep(rows, section):
    """{kernel: {rep: {impl: row}}}"""
    out = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        if r["section"] == section:
            out[r["kernel"]][r["rep"]][r["impl"]] = r
    return out


ENGINES = (("warpvm", "", "interp"), ("warpvm_jit", "jit_", "jit"))  # (impl in the CSV, key prefix, name)


def kernel_stats(rows):
    """Per kernel: medians of each implementation's wall and CPU time, warpvm's thread-instructions, and for
    each warpvm engine (keys prefixed "" for the interpreter, "jit_" for the JIT) the within-repetition
    ratios warpvm/C and warpvm/PoCL (wall and CPU) and thread-instructions per second."""
    stats = {}
    for kernel, reps in by_rep(rows, "kernel").items():
        s = {}
        for impl in ("warpvm", "warpvm_jit", "c", "pocl"):
            runs = [rep[impl] for rep in reps.values() if impl in rep]
            if runs:
                s[impl + "_wall"] = statistics.median(r["wall_s"] for r in runs)
                s[impl + "_cpu"] = statistics.median(r["cpu_s"] for r in runs)
        s["ti"] = max(rep["warpvm"]["thread_instructions"] for rep in reps.values())
        for impl, pre, _ in ENGINES:
            if impl + "_wall" not in s:
                continue
            for other in ("c", "pocl"):
                for t in ("wall", "cpu"):
                    ratios = [rep[impl][t + "_s"] / rep[other][t + "_s"] for rep in reps.values()
                              if impl in rep and other in rep and rep[other][t + "_s"] > 0]
                    if ratios:
                        s[f"{pre}x_{other}_{t}"] = statistics.median(ratios)
            s[pre + "tips_wall"], s[pre + "tips_cpu"] = s["ti"] / s[impl + "_wall"], s["ti"] / s[impl + "_cpu"]
        stats[kernel] = s
    return stats


def micro_stats(rows):
    """Per instruction class: ns (CPU time) per thread-instruction, median over repetitions."""
    out = {}
    reps = by_rep(rows, "micro")
    base = reps.get("empty", {})
    for cls, rs in reps.items():
        if cls == "empty":
            continue
        ns = []
        for rep, impls in rs.items():
            if rep not in base:
                continue
            r, e = impls["warpvm"], base[rep]["warpvm"]
            dti = r["thread_instructions"] - e["thread_instructions"]
            if dti > 0:
                ns.append((r["cpu_s"] - e["cpu_s"]) / dti * 1e9)
        if ns:
            out[cls] = {"ns": statistics.median(ns)}
    return out


def ms(s):
    return "—" if s is None else f"{s * 1e3:.3g}" if s < 1 else f"{s * 1e3:.0f}"


def num(x, digits=3):
    return "—" if x is None else f"{x:.{digits}g}" if x < 1000 else f"{x:.0f}"


def mtips(x):
    return "—" if x is None else f"{x / 1e6:.0f}"


def kernel_table(order, one, all_, n_all, t):
    """Markdown table of the kernels for time kind t ('wall' or 'cpu'): one row per kernel and warpvm engine."""
    head = (f"| kernel | engine | thread-instr | warpvm 1 thr ms | M thr-instr/s | × C | × PoCL | "
            f"warpvm {n_all} thr ms | M thr-instr/s | × C | × PoCL | C ms | PoCL 1 thr ms | PoCL {n_all} thr ms |")
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    for k in order:
        a, b = one[k], all_.get(k, {})
        for impl, pre, name in ENGINES:
            if impl + "_wall" not in a:
                continue
            cells = [f"`{k}`", name, f"{a['ti'] / 1e6:.1f} M"]
            for d in (a, b):
                cells += [ms(d.get(f"{impl}_{t}")), mtips(d.get(f"{pre}tips_{t}")), num(d.get(f"{pre}x_c_{t}")),
                          num(d.get(f"{pre}x_pocl_{t}"))]
            cells += [ms(a.get(f"c_{t}")), ms(a.get(f"pocl_{t}")), ms(b.get(f"pocl_{t}"))]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def micro_table(micro):
    lines = ["| instruction class | ns per thread-instruction | M thread-instr/s | ns per warp-instruction |",
             "| --- | --- | --- | --- |"]
    for cls, m in micro.items():
        lines.append(f"| `{cls}` | {m['ns']:.2f} | {1e3 / m['ns']:.0f} | {32 * m['ns']:.0f} |"
                     if m["ns"] > 0 else f"| `{cls}` | {m['ns']:.2f} (below the noise) | — | — |")
    return "\n".join(lines)


def chart(path, order, one, all_, micro, n_all, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(16, 5.2))
    x = range(len(order))
    jit = any("jit_tips_cpu" in one[k] for k in order)
    bars = [(one, "tips_cpu", "interpreter, 1 thread (CPU time)"), (all_, "tips_wall", f"interpreter, {n_all} threads (wall time)")]
    if jit:
        bars += [(one, "jit_tips_cpu", "JIT, 1 thread (CPU time)"), (all_, "jit_tips_wall", f"JIT, {n_all} threads (wall time)")]
    w = 0.8 / len(bars)
    for j, (d, key, label) in enumerate(bars):
        ax[0].bar([i + (j - (len(bars) - 1) / 2) * w for i in x], [d.get(k, {}).get(key, 0) / 1e6 for k in order], w,
                  label=label)
    ax[0].set_title("warpvm: M thread-instructions/s")
    ax[0].legend(fontsize=8)
    series = [(one, "x_c_cpu", "interpreter × C (1 thread, CPU time)"), (one, "x_pocl_cpu", "interpreter × PoCL (1 thread)"),
              (all_, "x_pocl_wall", f"interpreter × PoCL ({n_all} threads each, wall time)")]
    if jit:
        series += [(one, "jit_x_c_cpu", "JIT × C (1 thread, CPU time)"), (one, "jit_x_pocl_cpu", "JIT × PoCL (1 thread)")]
    w3 = 0.8 / len(series)
    for j, (d, key, label) in enumerate(series):
        ax[1].bar([i + (j - (len(series) - 1) / 2) * w3 for i in x], [d.get(k, {}).get(key, 0) for k in order], w3,
                  label=label)
    ax[1].set_yscale("log")
    ax[1].axhline(1, color="black", lw=0.6)
    ax[1].set_title("warpvm's time ÷ C's and PoCL's (lower is better)")
    ax[1].legend(fontsize=8)
    for a in ax[:2]:
        a.set_xticks(list(x))
        a.set_xticklabels(order, rotation=35, ha="right")
        a.grid(axis="y", alpha=0.3)
    names = list(micro)
    ax[2].barh(names, [micro[c]["ns"] for c in names])
    ax[2].invert_yaxis()
    ax[2].set_title("ns per thread-instruction (1 thread)")
    ax[2].grid(axis="x", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def readme_block(order, one, all_, n_all, micro, meta, note):
    jit = any("jit_tips_cpu" in one[k] for k in order)
    lines = [BEGIN,
             f"Taken with `bash bench/run.sh` at commit `{meta.get('commit', '?')}` on {meta.get('date', '?')}, "
             f"{meta.get('machine', '?')}; medians of {meta.get('reps', '?')} repetitions, CPU time with one "
             f"thread, wall time with {n_all}. × C and × PoCL: warpvm's time over the same kernel's in C (-O2 "
             "-march=native, one thread) and in OpenCL C under PoCL with as many threads"
             + (" (engine: `interp`, the interpreter; `jit`, the JIT engine, `--engine jit`)" if jit else "")
             + ". All tables and the chart: [docs/bench.md](docs/bench.md)." + (f" {note}" if note else ""),
             "",
             f"| kernel | engine | M thread-instr/s, 1 thread | × C | × PoCL | M thread-instr/s, {n_all} threads | × C | × PoCL |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for k in order:
        a, b = one[k], all_.get(k, {})
        for impl, pre, name in ENGINES:
            if pre + "tips_cpu" not in a:
                continue
            lines.append(f"| `{k}` | {name} | {mtips(a[pre + 'tips_cpu'])} | {num(a.get(pre + 'x_c_cpu'))} | "
                         f"{num(a.get(pre + 'x_pocl_cpu'))} | {mtips(b.get(pre + 'tips_wall'))} | "
                         f"{num(b.get(pre + 'x_c_wall'))} | {num(b.get(pre + 'x_pocl_wall'))} |")
    if micro:
        lines += ["", "Nanoseconds per thread-instruction on one thread, by instruction class:", "",
                  "| " + " | ".join(f"`{c}`" for c in micro) + " |", "|" + " --- |" * len(micro),
                  "| " + " | ".join(f"{m['ns']:.2f}" for m in micro.values()) + " |"]
    lines.append(END)
    return "\n".join(lines)


def update_readme(path, block):
    text = open(path).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"report.py: {path} has no {BEGIN} ... {END} lines to replace")
    pre, rest = text.split(BEGIN, 1)
    post = rest.split(END, 1)[1]
    with open(path, "w") as f:
        f.write(pre + block + post)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--one", required=True)
    ap.add_argument("--all", required=True)
    ap.add_argument("--md")
    ap.add_argument("--png")
    ap.add_argument("--readme")
    ap.add_argument("--meta", action="append", default=[], help="KEY=VALUE: commit, date, machine, ...")
    args = ap.parse_args()
    meta1, cases, rows1 = load(args.one)
    meta_all, _, rows_all = load(args.all)
    meta = dict(meta1)
    meta.update(kv.split("=", 1) for kv in args.meta)
    one, all_ = kernel_stats(rows1), kernel_stats(rows_all)
    micro = micro_stats(rows1)
    order = [k for k in cases if k in one]
    n_all = meta_all.get("threads", "?")
    note = ""
    if meta_all.get("warpvm_threads") == "0":
        note = (f"This warpvm runs a launch on one thread: its {n_all}-thread columns are one thread again "
                "(PoCL's have all threads).")
    ptx_version = meta.get("nvcc", "?")
    title = (f"warpvm benchmark — commit {meta.get('commit', '?')}, {meta.get('date', '?')}, "
             f"{meta.get('machine', '?')}")
    md = [f"# warpvm benchmark results",
          "",
          "Written by `bash bench/run.sh` (bench/report.py); what is measured and how: "
          "[bench/README.md](../bench/README.md).",
          "",
          f"- commit `{meta.get('commit', '?')}`, {meta.get('date', '?')}",
          f"- machine: {meta.get('machine', '?')}",
          f"- C: {meta.get('cc', '?')}, `-O2 -march=native`, one thread; PTX: {ptx_version}, "
          "`nvcc -arch=sm_80 -ptx -O3`; PoCL: " + meta1.get("pocl_version", "none") + ", device "
          + meta1.get("pocl_device", "none"),
          f"- {meta1.get('reps', '?')} timed repetitions after a warm-up; medians; ratios are medians of "
          "the ratios within each repetition",
          ]
    if note:
        md.append(f"- {note}")
    md += ["", "![benchmark chart](bench.png)", "",
           "warpvm with one thread and with all; × C: warpvm's time over C's (one thread); × PoCL: warpvm's "
           "time over PoCL's with as many threads as warpvm had. Every output of warpvm and PoCL equals C's bit "
           "for bit. With one thread, CPU time is the steadier measure on a shared machine; with all, wall "
           "time is what counts (CPU time adds up every thread of the process).", "",
           "## Kernels, CPU time", "",
           kernel_table(order, one, all_, n_all, "cpu"), "",
           "## Kernels, wall time", "",
           kernel_table(order, one, all_, n_all, "wall"), "",
           "## The kernels", ""]
    md += [f"- `{k}`: {cases[k]}" for k in order]
    if micro:
        md += ["", "## Instruction classes (warpvm, one thread)", "",
               "Each class: 32 copies of one instruction in a loop run by 64 blocks of 256 threads, less the "
               "same loop empty, CPU time (`build/bench/wv_suite --print-micro CLASS` prints the PTX).", "",
               micro_table(micro)]
    md.append("")
    if args.md:
        with open(args.md, "w") as f:
            f.write("\n".join(md))
    if args.png:
        chart(args.png, order, one, all_, micro, n_all, title)
    if args.readme:
        update_readme(args.readme, readme_block(order, one, all_, n_all, micro, meta, note))
    if not (args.md or args.png or args.readme):
        print("\n".join(md))


if __name__ == "__main__":
    main()
