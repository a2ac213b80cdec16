#!/usr/bin/env bash
# run_on_gpu.sh OUTDIR — record what a real NVIDIA GPU does with addresses a program does not own
# (tests/memprobe/README.md). Needs nvcc and a GPU; no network. Builds memprobe (memprobe.cu and the
# mp_*.cu kernels, -cudart shared -arch=sm_90) and memprobe_info, runs them natively, and writes to OUTDIR:
#   golden/memprobe.out   memprobe's stdout (copy it to tests/memprobe/golden/: check.sh compares with it)
#   memprobe.err          its stderr;  memprobe.pass2.out  a second run (reproducibility)
#   memprobe_info.out     where shared/local memory and the generic windows lie, reserved shared memory,
#                         the stack limit (facts for the model, not replayed)
#   sanitizer/*.txt       compute-sanitizer --tool memcheck on single probes (a write/read just past an
#                         allocation, a read landing in the next allocation, shared/local reads past the end)
#   PROVENANCE.md         GPU, driver, nvcc, date, commands, exit statuses, whether the passes agreed
#   build.log
# Environment: CUDA_HOME (default /usr/local/cuda), JOBS probes at a time (default 8). Each pass is limited to
# 180 s and each sanitizer run to 30 s, so the whole script stays under 10 minutes (about one to two, normally).
# Exit status: 0 when everything built and both passes printed the same compared lines.
set -uo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 OUTDIR" >&2; exit 2; fi
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1/golden" "$1/sanitizer" || exit 2
OUT=$(cd "$1" && pwd)
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA/bin/nvcc
SAN=""
for c in "$CUDA/bin/compute-sanitizer" "$CUDA/compute-sanitizer/compute-sanitizer" "$(command -v compute-sanitizer 2>/dev/null)"; do
  if [ -n "$c" ] && [ -x "$c" ]; then SAN=$c; break; fi
done
JOBS=${JOBS:-8}
BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT
export LD_LIBRARY_PATH=$CUDA/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T0=$(date +%s)

cd "$HERE" || exit 2
BUILD1="$NVCC -O2 -std=c++17 -cudart shared -arch=sm_90 memprobe.cu mp_shared.cu mp_dyn.cu mp_generic.cu"
BUILD2="$NVCC -O2 -std=c++17 -cudart shared -arch=sm_90 memprobe_info.cu"
{ $BUILD1 -o "$BIN/memprobe" && $BUILD2 -o "$BIN/memprobe_info"; } >"$OUT/build.log" 2>&1 || {
  echo "run_on_gpu: the build failed (see $OUT/build.log)" >&2
  cat "$OUT/build.log" >&2
  exit 1
}

cd "$BIN" || exit 2
MEMPROBE_JOBS=$JOBS timeout 180 ./memprobe >"$OUT/golden/memprobe.out" 2>"$OUT/memprobe.err"
rc1=$?
MEMPROBE_JOBS=$JOBS timeout 180 ./memprobe >"$OUT/memprobe.pass2.out" 2>/dev/null
rc2=$?
timeout 60 ./memprobe_info >"$OUT/memprobe_info.out" 2>&1
rc3=$?
same=yes
cmp -s <(grep -v '^info ' "$OUT/golden/memprobe.out") <(grep -v '^info ' "$OUT/memprobe.pass2.out") || same=no

san() { # NAME ARGS...: compute-sanitizer memcheck on one probe
  local name=$1
  shift
  if [ -n "$SAN" ]; then
    { echo "\$ compute-sanitizer --tool memcheck ./memprobe $*"; timeout 30 "$SAN" --tool memcheck ./memprobe "$@"; echo "exit status $?"; } \
      >"$OUT/sanitizer/$name.txt" 2>&1
  else
    echo "no compute-sanitizer (looked in $CUDA/bin, $CUDA/compute-sanitizer and PATH)" >"$OUT/sanitizer/$name.txt"
  fi
}
san write_end+1 write 100 1
san read_end+1 read 100 end 1
san read_end+413 read 100 end 413
san shared_past_end shared-unwritten 4 1024
san dyn_past_end dyn-unwritten 0 100
san local_past_end local-unwritten 2 64

{
  echo "# Provenance of tests/memprobe/golden/memprobe.out"
  echo
  echo "Recorded by \`tests/memprobe/run_on_gpu.sh\` on $(date -u '+%Y-%m-%d %H:%M:%S UTC') ($(( $(date +%s) - T0 )) s)."
  echo
  echo "| | |"
  echo "| --- | --- |"
  echo "| GPU | $(nvidia-smi --query-gpu=name,compute_cap,memory.total --format=csv,noheader 2>&1 | head -n 1) |"
  echo "| driver | $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1 | head -n 1) |"
  echo "| host | $(uname -srm) |"
  echo "| nvcc | $("$NVCC" --version 2>&1 | grep -m1 release) |"
  echo "| build | \`(cd tests/memprobe && $BUILD1 -o memprobe)\`, \`$BUILD2 -o memprobe_info\` |"
  echo "| sources sha256 | $(cd "$HERE" && cat memprobe.cu mp_shared.cu mp_dyn.cu mp_generic.cu | sha256sum | cut -d' ' -f1) |"
  echo "| run | \`MEMPROBE_JOBS=$JOBS ./memprobe > golden/memprobe.out\` (exit status $rc1), twice (second: $rc2); \`./memprobe_info\` ($rc3) |"
  echo "| both passes print the same compared lines | $same |"
  echo
  echo "Lines starting with \`info \` are not compared by check.sh (absolute addresses, values of shared/local memory"
  echo "nobody wrote, writes outside allocations — which warpvm refuses on purpose)."
} >"$OUT/PROVENANCE.md"
echo "run_on_gpu: wrote $OUT (memprobe exit $rc1/$rc2, passes agree: $same)"
[ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ "$same" = yes ]
