#!/usr/bin/env bash
# check_explore.sh WARPVM SRCDIR BUILDDIR — the CTest test `memprobe.explore`: builds explore.cu and memprobe with
# nvcc, replays explore.sh's list under `WARPVM`, one process a probe, and compares each probe's lines with what
# the GPU printed for it (golden/explore.out: the probes' outputs in list order). Lines the model leaves out on
# purpose are skipped, each with its reason (README.md, "explore"):
#   - explore map L OFF, 98 MiB <= OFF <= 128 MiB: the driver's own memory, different from run to run;
#   - lines 5 to 8 of `explore seq 16 3145728 3145728 3145728 67108864 ...`: the GPU puts allocations of 64 MiB
#     and more elsewhere (and the 3 MiB one after them follows); warpvm puts them on the pages after the home region;
#   - explore frames: where ptxas puts a callee's frame, and the stack size the driver derives from it.
# Exit status: 0 same; 1 different (a diff per probe); 77 skipped: no nvcc, or no recording.
set -uo pipefail
if [ $# -ne 3 ]; then echo "usage: $0 WARPVM SRCDIR BUILDDIR" >&2; exit 2; fi
WV=$1 SRC=$(cd "$2" && pwd) BUILD=$3
case $WV in /*) ;; *) WV=$PWD/$WV ;; esac
# shellcheck source=../lib/nvcc.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/nvcc.sh"
NVCC=$(find_nvcc) || NVCC=""
[ -n "$NVCC" ] || { echo "memprobe.explore: no nvcc: skipped"; exit 77; }
GOLD=$SRC/golden/explore.out
[ -f "$GOLD" ] || { echo "memprobe.explore: no recording ($GOLD): skipped"; exit 77; }
mkdir -p "$BUILD" || exit 2
BUILD=$(cd "$BUILD" && pwd)
build() { # OUTPUT SOURCES...: nvcc unless OUTPUT is newer than every source
  local out=$1 s fresh=1
  shift
  [ -x "$BUILD/$out" ] || fresh=0
  for s in "$@"; do [ "$SRC/$s" -nt "$BUILD/$out" ] && fresh=0; done
  [ "$fresh" = 1 ] || (cd "$SRC" && "$NVCC" -O2 -std=c++17 -cudart shared -arch=sm_90 "$@" -o "$BUILD/$out") ||
    { echo "memprobe.explore: building $out failed"; exit 1; }
}
build explore explore.cu
build memprobe memprobe.cu mp_shared.cu mp_dyn.cu mp_generic.cu
cd "$BUILD" || exit 2
bash "$SRC/explore.sh" --list >explore.list || exit 2
at=1 bad=0 compared=0 skipped=0
while read -r prog args; do
  timeout 60 "$WV" "./$prog" $args >probe.out 2>probe.err || echo "$prog $args: exit $?" >>probe.out
  n=$(wc -l <probe.out)
  sed -n "${at},$((at + n - 1))p" "$GOLD" >probe.want
  at=$((at + n))
  skip=""
  case "$prog $args" in
    "explore map "*)
      off=${args##* }
      [ "$off" -ge 102760448 ] && [ "$off" -le 134217728 ] && skip=all ;;
    "explore seq 16 3145728 3145728 3145728 67108864 "*) skip="5,8" ;;
    "explore frames") skip=all ;;
  esac
  if [ "$skip" = all ]; then skipped=$((skipped + n)); continue; fi
  if [ -n "$skip" ]; then
    sed -i "${skip}d" probe.out probe.want
    skipped=$((skipped + n - $(wc -l <probe.out)))
  fi
  compared=$((compared + $(wc -l <probe.out)))
  if ! diff -u --label "golden/explore.out (GPU): $prog $args" --label "warpvm" probe.want probe.out; then bad=1; fi
done <explore.list
if [ "$at" -le "$(wc -l <"$GOLD")" ]; then
  echo "FAIL: golden/explore.out has $(($(wc -l <"$GOLD") - at + 1)) lines more than the probes printed"
  bad=1
fi
[ "$bad" = 0 ] || { echo "FAIL: warpvm's memory model differs from the GPU's (src/exec/mem.h; tests/memprobe/README.md)"; exit 1; }
echo "PASS: $compared lines as on the GPU ($skipped skipped on purpose)"
