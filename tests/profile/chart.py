#!/usr/bin/env python3
"""chart.py WARPVM OUT.svg — the README's profiling chart: for each pair of the walkthrough (a bank conflict and
its fix, a divergent branch and a uniform one, strided and coalesced loads), warpvm's estimated time and the count
that explains it, as horizontal bars in one SVG (no plotting library needed)."""
import json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PAIRS = [("transpose_strided", "transpose_padded", "shared_ld_wavefronts", "shared-load wavefronts"),
         ("div_lt10", "div_warp", "inst_executed", "warp instructions"),
         ("load_strided", "load_coalesced", "global_ld_sectors", "global-load sectors")]


def run(warpvm, cid, tmp):
    args = [l.split()[3:] for l in open(os.path.join(HERE, "cases.txt")) if l.split() and l.split()[0] == cid][0]
    j = os.path.join(tmp, cid + ".json")
    subprocess.run([warpvm, "run", os.path.join(HERE, "kernels.ptx")] + args + ["--profile-json", j],
                   check=True, stdout=subprocess.DEVNULL)
    return json.load(open(j))["launches"][0]["warpvm"]


def main():
    warpvm, out = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp()
    rows = []
    for bad, good, metric, label in PAIRS:
        b, g = run(warpvm, bad, tmp), run(warpvm, good, tmp)
        rows.append((bad, good, label, b[metric], g[metric], b["est_seconds"] * 1e6, g["est_seconds"] * 1e6))
    W, H, left, bar = 760, 70 + 110 * len(rows), 190, 16
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           '<text x="10" y="22" font-size="15" font-weight="bold">warpvm --profile: each kernel and its fix</text>',
           '<text x="10" y="40" fill="#555">bars: estimated time on an H100 (us), and the count that explains it</text>']
    y = 60
    for bad, good, label, cb, cg, tb, tg in rows:
        svg.append(f'<text x="10" y="{y + 12}" font-weight="bold">{bad} vs {good}</text>')
        for k, (name, t, c, col) in enumerate(((bad, tb, cb, "#d9534f"), (good, tg, cg, "#5cb85c"))):
            yy = y + 22 + k * 40
            scale_t = (W - left - 120) / max(tb, tg)
            scale_c = (W - left - 120) / max(cb, cg, 1)
            svg.append(f'<text x="10" y="{yy + 12}">{name}</text>')
            svg.append(f'<rect x="{left}" y="{yy}" width="{t * scale_t:.1f}" height="{bar}" fill="{col}"/>')
            svg.append(f'<text x="{left + t * scale_t + 5:.1f}" y="{yy + 12}">{t:.2f} us</text>')
            svg.append(f'<rect x="{left}" y="{yy + bar + 2}" width="{c * scale_c:.1f}" height="{bar // 2}" fill="{col}" opacity="0.45"/>')
            svg.append(f'<text x="{left + c * scale_c + 5:.1f}" y="{yy + bar + 10}" fill="#555">{c:.0f} {label}</text>')
        y += 110
    svg.append('</svg>')
    open(out, "w").write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
