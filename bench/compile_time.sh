#!/usr/bin/env bash
# bench/compile_time.sh — how long the JIT takes to compile each benchmark kernel (the README's compile
# times, issue 15's "< 100 ms"): `warpvm run --engine jit --no-jit-cache --stats` of one block of each kernel
# of bench/kernels, its jit_compile_ms, the median of REPS runs (default 3); then the median of the eight.
# Threads: the JIT compiles a function's regions on up to --threads of them (default 2).
#
#   bash bench/compile_time.sh [--threads N] [--reps N]     (WARPVM=PATH: another build's warpvm, to compare)
set -euo pipefail
cd "$(dirname "$0")/.."
threads=2 reps=3
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads="$2"; shift ;;
    --reps) reps="$2"; shift ;;
    *) sed -n 's/^#   //p' "$0" >&2; exit 1 ;;
  esac
  shift
done
W=${WARPVM:-build/warpvm}
[ -x "$W" ] || { echo "bench/compile_time.sh: build warpvm first (./scripts/demo.sh or bench/run.sh)" >&2; exit 1; }
f=$(mktemp)
trap 'rm -f "$f"' EXIT
one() { # kernel, then its arguments: the median of $reps compile times in ms
  local k=$1; shift
  for _ in $(seq "$reps"); do
    "$W" run "bench/kernels/$k.ptx" --kernel "$k" "$@" --engine jit --threads "$threads" --no-jit-cache --stats 2>&1 |
      awk '/^jit_compile_ms/ {print $2}'
  done | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
{
  echo "matmul $(one matmul --block 16,16 --arg buf:262144 --arg buf:262144 --arg buf:262144 --arg u32:256)"
  echo "reduce $(one reduce --block 256 --arg buf:16777216 --arg buf:1024 --arg u32:4194304)"
  echo "scan $(one scan --block 256 --arg buf:4194304 --arg buf:4194304)"
  echo "histogram $(one histogram --block 256 --arg buf:16777216 --arg buf:1024 --arg u32:4194304)"
  echo "transpose $(one transpose --block 32,8 --arg buf:16777216 --arg buf:16777216 --arg u32:2048)"
  echo "collatz $(one collatz --block 256 --arg buf:393216 --arg u32:1)"
  echo "warp_reduce $(one warp_reduce --block 256 --arg buf:8388608 --arg buf:65536 --arg u32:2097152)"
  echo "async_copy $(one async_copy --block 256 --arg buf:16777216 --arg buf:16777216 --arg u32:32)"
} > "$f"
awk '{printf "%-12s %7.1f ms\n", $1, $2}' "$f"
awk '{print $2}' "$f" | sort -n | awk -v t="$threads" -v c="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" '
  {v[NR] = $1}
  END {printf "median of the %d: %.1f ms (range %.1f-%.1f; %s thread(s), commit %s)\n", NR, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR], t, c}'
