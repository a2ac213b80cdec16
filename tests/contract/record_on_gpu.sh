#!/usr/bin/env bash
# record_on_gpu.sh — record what a real NVIDIA GPU prints for every run of tests/contract/runs.txt.
#
# Builds ptxrun from a copy of ptxrun.c (untracked: copy /work/shared/tools/ptxrun.c into the git-ignored
# folder .device/ at the repository root and carry it to the GPU machine), runs each line twice (the second
# pass only checks that the output is reproducible) and writes into OUTDIR (default: $OUT, else ./gpu_out):
#   golden.tgz      golden/ID.out, ptxrun's stdout of the first pass, for every run
#   provenance.txt  GPU, driver, ptxas the driver JITs with (its version), date, host, the commands, and the
#                   runs that failed or whose two passes differed
# Usage: tests/contract/record_on_gpu.sh [OUTDIR]
set -uo pipefail
CDIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$CDIR/../.." && pwd)
OUTDIR=${1:-${OUT:-$PWD/gpu_out}}
SRC=${PTXRUN_SRC:-$ROOT/.device/ptxrun.c}
CUDA=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$OUTDIR"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
[ -f "$SRC" ] || { echo "record_on_gpu: no ptxrun.c at $SRC" >&2; exit 1; }
cc -O2 -o "$WORK/ptxrun" "$SRC" -I"$CUDA/include" -L"$CUDA/lib64/stubs" -lcuda || exit 1
"$WORK/ptxrun" >/dev/null 2>&1
if [ $? -ne 1 ]; then # the stub library cannot run: link the driver's own
  LIBCUDA=$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')
  cc -O2 -o "$WORK/ptxrun" "$SRC" -I"$CUDA/include" "$LIBCUDA" || exit 1
fi
mkdir -p "$WORK/golden"
PROV="$OUTDIR/provenance.txt"
{
  echo "# tests/contract runs recorded by tests/contract/record_on_gpu.sh"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  echo "cuda toolkit: $("$CUDA/bin/nvcc" --version 2>/dev/null | grep release || echo none)"
  echo "commands: ptxrun PTXPATH ARGS... (run from tests/contract/), each twice"
} >"$PROV"
cd "$CDIR" || exit 1
failed="" unstable=""
while read -r id ptx args; do
  case $id in '' | '#'*) continue ;; esac
  # shellcheck disable=SC2086
  if ! "$WORK/ptxrun" "$ptx" $args >"$WORK/golden/$id.out" 2>"$WORK/err"; then failed="$failed $id"; cat "$WORK/err" >>"$PROV"; fi
  # shellcheck disable=SC2086
  "$WORK/ptxrun" "$ptx" $args >"$WORK/again" 2>/dev/null
  cmp -s "$WORK/again" "$WORK/golden/$id.out" || unstable="$unstable $id"
done <runs.txt
{
  echo "failed:${failed:- none}"
  echo "differed between passes:${unstable:- none}"
} >>"$PROV"
tar -czf "$OUTDIR/golden.tgz" -C "$WORK" golden
cat "$PROV"
