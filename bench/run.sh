#!/usr/bin/env bash
# bench/run.sh — warpvm's benchmark in one command (issue 11). Builds wv_suite (bench/suite/) in build/
# as a Release build, runs it with one thread and with all (each kernel on warpvm, in C and under PoCL,
# checked bit for bit; then the instruction classes), and writes docs/bench.md, docs/bench.png and the
# README's performance table (bench/report.py), with the machine, commit and date. bench/README.md says
# what is measured. About 1.5 minutes on a busy 2-core machine; --quick: 2 repetitions, 40 s.
#
#   bash bench/run.sh [--quick] [--reps N] [--no-readme]
#
# Needs PoCL and matplotlib: bash bench/setup.sh installs them. Raw timings: build/bench/threads-*.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=7 readme=1
usage() { sed -n 's/^#   //p' "$0" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) reps=2 ;;
    --reps) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || usage; reps="$2"; shift ;;
    --no-readme) readme=0 ;;
    -h|--help) sed -n 's/^#   //p' "$0"; exit 0 ;;
    *) usage ;;
  esac
  shift
done

py=""
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import matplotlib' 2>/dev/null; then py="$p"; break; fi
done
[ -n "$py" ] || { echo "bench/run.sh: no python3 with matplotlib (bash bench/setup.sh installs it)" >&2; exit 1; }

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target wv_suite >/dev/null
mkdir -p build/bench docs
build/bench/wv_suite --threads 1 --reps "$reps" --out build/bench/threads-1.csv
build/bench/wv_suite --threads all --reps "$reps" --no-micro --out build/bench/threads-all.csv

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- src include bench CMakeLists.txt 2>/dev/null || commit="$commit (with uncommitted changes)"
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' build/CMakeCache.txt)
args=(--one build/bench/threads-1.csv --all build/bench/threads-all.csv --md docs/bench.md --png docs/bench.png
      --meta "commit=$commit" --meta "date=$(date -u +%Y-%m-%d)"
      --meta "machine=${cpu:-$(uname -m)}, $(nproc) cores, $(uname -s) $(uname -r)"
      --meta "cc=$("${cc:-cc}" --version | head -1)"
      --meta "nvcc=$(sed -n 's|^// *\(Cuda compilation tools.*\)|\1|p' bench/kernels/matmul.ptx | head -1)")
[ "$readme" = 1 ] && args+=(--readme README.md)
"$py" bench/report.py "${args[@]}"
echo "bench/run.sh: wrote docs/bench.md, docs/bench.png$([ "$readme" = 1 ] && echo ", README.md's performance table")"
