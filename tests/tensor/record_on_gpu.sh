#!/usr/bin/env bash
# record_on_gpu.sh — build tests/tensor/mma_probe.cu and record the tensor-core fragments on the local GPU.
# Usage: bash tests/tensor/record_on_gpu.sh OUTDIR [TARBALL]
#   OUTDIR gets <case>.bin, <case>.samples.txt, summary.txt, probe.log, PROVENANCE.txt;
#   TARBALL (optional, e.g. $OUT/mma_h100.tgz) gets OUTDIR packed as one .tgz (the device tool returns <= 8 files).
# Needs nvcc and an sm_90 GPU; takes well under a minute on an H100. Exit status: the probe's (2 = the layout
# self-check disagreed; the recording is still written and worth keeping).
set -u
if [ $# -lt 1 ] || [ $# -gt 2 ]; then echo "usage: $0 OUTDIR [TARBALL]" >&2; exit 1; fi
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
bin=$(mktemp -d)/mma_probe
build="nvcc -O2 -arch=sm_90 -std=c++17 $here/mma_probe.cu -o $bin"
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
$build || { echo "$0: build failed" >&2; exit 1; }
timeout 100 "$bin" "$out" 2>&1 | tee "$out/probe.log"
rc=${PIPESTATUS[0]}
{
    echo "recorded: $start .. $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    echo "git: $(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown) (tests/tensor/mma_gen.h defines the inputs)"
    echo "build: nvcc -O2 -arch=sm_90 -std=c++17 tests/tensor/mma_probe.cu -o mma_probe"
    echo "run: mma_probe OUTDIR    (exit status $rc)"
    echo "--- nvidia-smi --query-gpu=name,driver_version,vbios_version,compute_cap,clocks.max.sm --format=csv"
    nvidia-smi --query-gpu=name,driver_version,vbios_version,compute_cap,clocks.max.sm --format=csv 2>&1
    echo "--- nvidia-smi -L"
    nvidia-smi -L 2>&1
    echo "--- nvcc --version"
    nvcc --version 2>&1
    echo "--- sha256sum"
    (cd "$out" && sha256sum ./*.bin 2>&1)
} > "$out/PROVENANCE.txt"
cat "$out/summary.txt" 2>/dev/null
if [ $# -eq 2 ]; then
    tar -C "$(dirname "$out")" -czf "$2" "$(basename "$out")" && ls -l "$2"
fi
exit "$rc"
