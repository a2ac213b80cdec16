#!/usr/bin/env bash
# check.sh WARPVM SRCDIR BUILDDIR — the CTest test `memprobe`: builds memprobe with nvcc (-cudart shared),
# runs `WARPVM ./memprobe` in BUILDDIR and compares its stdout with golden/memprobe.out, what a GPU printed
# (run_on_gpu.sh). Lines starting with "info " are not compared. A read far outside every mapping
# (`read S end+268435456`) faults on the GPU with cudaErrorIllegalAddress or cudaErrorInvalidAddressSpace,
# which of the two varies from run to run (golden/pass_diff.txt): on those lines the two compare equal.
# SRCDIR is tests/memprobe.
# Exit status: 0 same; 1 different (a unified diff shows how); 77 skipped: no nvcc, or no GPU recording yet.
set -uo pipefail
if [ $# -ne 3 ]; then echo "usage: $0 WARPVM SRCDIR BUILDDIR" >&2; exit 2; fi
WV=$1 SRC=$(cd "$2" && pwd) BUILD=$3
case $WV in /*) ;; *) WV=$PWD/$WV ;; esac
# shellcheck source=../lib/nvcc.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/nvcc.sh"
NVCC=$(find_nvcc) || NVCC=""
[ -n "$NVCC" ] || { echo "memprobe: no nvcc: skipped"; exit 77; }
GOLD=$SRC/golden/memprobe.out
if [ ! -f "$GOLD" ]; then
  echo "memprobe: no GPU recording yet ($GOLD): run tests/memprobe/run_on_gpu.sh on a GPU (README.md); skipped"
  exit 77
fi
mkdir -p "$BUILD" || exit 2
BUILD=$(cd "$BUILD" && pwd)
SOURCES=(memprobe.cu mp_shared.cu mp_dyn.cu mp_generic.cu)
fresh=1
[ -x "$BUILD/memprobe" ] || fresh=0
for s in "${SOURCES[@]}"; do [ "$SRC/$s" -nt "$BUILD/memprobe" ] && fresh=0; done
if [ "$fresh" = 0 ]; then
  (cd "$SRC" && "$NVCC" -O2 -std=c++17 -cudart shared -arch=sm_90 "${SOURCES[@]}" -o "$BUILD/memprobe") ||
    { echo "memprobe: the build failed"; exit 1; }
fi
cd "$BUILD" || exit 2
MEMPROBE_JOBS=2 timeout 300 "$WV" ./memprobe >out.txt 2>err.txt
rc=$?
# compared lines: no info lines; the far read's two error codes as one (see above)
compared() {
  grep -v '^info ' "$1" |
    sed -E 's/^(read [0-9]+ end\+268435456: error) cudaError(IllegalAddress|InvalidAddressSpace)$/\1 cudaErrorIllegalAddress|InvalidAddressSpace/'
}
compared "$GOLD" >want.txt
compared out.txt >got.txt
if ! diff -u --label "golden/memprobe.out (GPU)" --label "warpvm" want.txt got.txt; then
  echo "FAIL: warpvm's memory model differs from the GPU's (src/exec/mem.h; tests/memprobe/README.md)"
  exit 1
fi
[ "$rc" = 0 ] || { echo "FAIL: memprobe exited $rc under warpvm"; exit 1; }
echo "PASS: $(wc -l <got.txt) probes as on the GPU"
