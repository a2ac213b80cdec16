#!/usr/bin/env bash
# replay.sh — builds tests/tensor/mma_probe.cu with nvcc and runs it under warpvm, which must write the GPU's
# recording (tests/tensor/golden/h100) byte for byte.
#   replay.sh run WARPVM WORKDIR        build (once) and run the probe into WORKDIR/out
#   replay.sh cmp WORKDIR GOLDEN CASE   compare WORKDIR/out/CASE.bin with GOLDEN/CASE.bin
# Exit 77 (skipped) when nvcc is not installed (CI has none); nvcc from $NVCC, PATH or /usr/local/cuda/bin.
set -u
here=$(cd "$(dirname "$0")" && pwd)
case ${1:-} in
run)
    [ $# -eq 3 ] || { echo "usage: $0 run WARPVM WORKDIR" >&2; exit 1; }
    nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
    [ -x "$nvcc" ] || { echo "$0: no nvcc: skipped"; exit 77; }
    mkdir -p "$3/out" || exit 1
    if [ ! -x "$3/mma_probe" ] || [ "$here/mma_probe.cu" -nt "$3/mma_probe" ] || [ "$here/mma_gen.h" -nt "$3/mma_probe" ]; then
        "$nvcc" -O2 -arch=sm_90 -std=c++17 "$here/mma_probe.cu" -o "$3/mma_probe" || exit 1
    fi
    rm -f "$3"/out/*.bin
    "$2" "$3/mma_probe" "$3/out" ;;
cmp)
    [ $# -eq 4 ] || { echo "usage: $0 cmp WORKDIR GOLDEN CASE" >&2; exit 1; }
    [ -f "$3/$4.bin" ] || { echo "no golden $3/$4.bin"; exit 1; }
    [ -f "$2/out/$4.bin" ] || { echo "no replay: run tensor.replay.run (nvcc needed)"; exit 77; }
    cmp "$3/$4.bin" "$2/out/$4.bin" && echo "$4: warpvm wrote the GPU's bytes" ;;
*) echo "usage: $0 run|cmp ..." >&2; exit 1 ;;
esac
