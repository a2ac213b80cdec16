#!/usr/bin/env bash
# record_on_gpu.sh — record the corpus's ground truth on a real NVIDIA GPU.
#
# Builds ptxrun from a copy of ptxrun.c (it is not tracked: copy /work/shared/tools/ptxrun.c into the
# git-ignored folder .device/ at the repository root, and pass `carry: [".device"]` to the device tool),
# runs every line of tests/kernels/runs.txt twice (the second pass only checks that the output is
# reproducible), and writes into OUTDIR (default: $OUT, else ./gpu_out):
#   golden.tgz      golden/ID.out for every run (stdout of the first pass), plus golden/ID.err where
#                   stderr was not empty
#   provenance.txt  GPU name, driver, compute capability, nvcc, date, host, the commands used, and lists
#                   of failed runs (nonzero exit) and of runs whose two passes differed
# Usage (from anywhere): tests/kernels/record_on_gpu.sh [OUTDIR] [ID-REGEX]
#   ID-REGEX restricts the runs (an awk regex on the ID), for re-recording a few.
# Environment: JOBS runs at a time (default 8); SANITIZE=1 also runs compute-sanitizer (memcheck once per
#   PTX file and kernel, racecheck on the shared-memory kernels, synccheck on tiles.*) and notes its
#   findings in provenance.txt, unless the plain passes took SANITIZE_IF_BEFORE seconds (default 240) or more.
set -uo pipefail
KDIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$KDIR/../.." && pwd)
OUTDIR=${1:-${OUT:-$PWD/gpu_out}}
FILTER=${2:-.}
JOBS=${JOBS:-8}
SRC=${PTXRUN_SRC:-$ROOT/.device/ptxrun.c}
CUDA=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$OUTDIR"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PROV="$OUTDIR/provenance.txt"
T0=$(date +%s)

# --- build ptxrun
. "$ROOT/tests/lib/ptxrun.sh"
build_ptxrun "$SRC" "$CUDA" "$WORK" || exit 1
BUILD=$PTXRUN_BUILD

# --- environment
{
  echo "recorded: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host: $(uname -srm)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>&1)"
  echo "nvidia-smi: $(nvidia-smi 2>&1 | grep -m1 -o 'Driver Version.*')"
  echo "nvcc on the GPU machine: $("$CUDA/bin/nvcc" --version 2>&1 | grep -m1 release)"
  echo "ptxrun build: $BUILD"
  echo "ptxrun.c sha256: $(sha256sum "$SRC" | cut -d' ' -f1)"
  echo "runs.txt sha256: $(sha256sum "$KDIR/runs.txt" | cut -d' ' -f1)"
  echo "command: cd tests/kernels && ptxrun PTXPATH ARGS... > golden/ID.out   (for each line ID PTXPATH ARGS... of runs.txt)"
  echo
  echo "--- nvidia-smi"
  nvidia-smi 2>&1
} >"$PROV"

# --- runs
cd "$KDIR"
grep -v '^[[:space:]]*\(#\|$\)' runs.txt | awk -v re="$FILTER" '$1 ~ re' >"$WORK/runs"
mkdir -p "$WORK/golden" "$WORK/pass2"
run_one() {  # PASSDIR ID PTX ARGS...
  local dir=$1 id=$2
  shift 2
  "$PTXRUN" "$@" >"$dir/$id.out" 2>"$dir/$id.err" </dev/null
  echo $? >"$dir/$id.rc"
}
for pass in golden pass2; do
  while read -r id ptx args; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    # shellcheck disable=SC2086
    run_one "$WORK/$pass" "$id" "$ptx" $args &
  done <"$WORK/runs"
  wait
done

# --- summary
fails=() diffs=()
while read -r id _; do
  rc=$(cat "$WORK/golden/$id.rc")
  [ "$rc" = 0 ] || fails+=("$id rc=$rc: $(head -c 300 "$WORK/golden/$id.err" | tr '\n' ' ')")
  cmp -s "$WORK/golden/$id.out" "$WORK/pass2/$id.out" || diffs+=("$id")
  [ -s "$WORK/golden/$id.err" ] || rm -f "$WORK/golden/$id.err"
  rm -f "$WORK/golden/$id.rc"
done <"$WORK/runs"
{
  echo
  echo "--- summary"
  echo "runs: $(wc -l <"$WORK/runs") (each run twice, $JOBS at a time); wall seconds: $(($(date +%s) - T0))"
  echo "failed runs (nonzero exit): ${#fails[@]}"
  for f in "${fails[@]}"; do echo "  $f"; done
  echo "runs whose two passes differed: ${#diffs[@]}"
  for d in "${diffs[@]}"; do
    echo "  $d"
    diff "$WORK/golden/$d.out" "$WORK/pass2/$d.out" | head -20 | sed 's/^/    /'
  done
} >>"$PROV"
tar -C "$WORK" -czf "$OUTDIR/golden.tgz" golden

# --- optional checks of the corpus itself (SANITIZE=1): memcheck once per (PTX, kernel) pair, racecheck on
# the shared-memory kernels, synccheck (collectives and __syncwarp with bad masks) on the sub-warp tiles. Only recorded in provenance.txt; the goldens come from the plain passes.
SAN=$(command -v compute-sanitizer || echo "$CUDA/bin/compute-sanitizer")
if [ "${SANITIZE:-0}" = 1 ] && [ -x "$SAN" ] && [ $(($(date +%s) - T0)) -lt "${SANITIZE_IF_BEFORE:-240}" ]; then
  mkdir -p "$WORK/san"
  awk '!seen[$2 " " $4]++' "$WORK/runs" >"$WORK/san.runs"
  san_one() {  # TOOL ID PTX ARGS...
    local tool=$1 id=$2
    shift 2
    timeout 90 "$SAN" --tool "$tool" --error-exitcode 99 "$PTXRUN" "$@" >"$WORK/san/$id.$tool" 2>&1 </dev/null
    echo $? >>"$WORK/san/$id.$tool"
  }
  while read -r id ptx args; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    # shellcheck disable=SC2086
    san_one memcheck "$id" "$ptx" $args &
  done <"$WORK/san.runs"
  grep -E '^(block\.(reduce256|scan256|scan_dyn256|sync_count)|atomics\.shared256|ref\.lastblock_sum|tiles\.sync(_b40)?)\.sm80 ' \
    "$WORK/runs" >"$WORK/race.runs"
  while read -r id ptx args; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    # shellcheck disable=SC2086
    san_one racecheck "$id" "$ptx" $args &
  done <"$WORK/race.runs"
  grep -E '^tiles\.' "$WORK/san.runs" >"$WORK/sync.runs"
  while read -r id ptx args; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    # shellcheck disable=SC2086
    san_one synccheck "$id" "$ptx" $args &
  done <"$WORK/sync.runs"
  wait
  {
    echo "compute-sanitizer: memcheck on $(wc -l <"$WORK/san.runs") runs (one per PTX file and kernel), racecheck on $(wc -l <"$WORK/race.runs"), synccheck on $(wc -l <"$WORK/sync.runs")"
    for f in "$WORK"/san/*; do
      [ "$(tail -n1 "$f")" = 0 ] && continue
      echo "  $(basename "$f"): exit $(tail -n1 "$f")"
      grep -E 'ERROR SUMMARY|Invalid|Race|hazard|error' "$f" | head -8 | sed 's/^/    /'
    done
    echo "sanitizer done at wall second $(($(date +%s) - T0))"
  } >>"$PROV"
fi
sed -n '/^--- summary/,$p' "$PROV"
