#!/usr/bin/env bash
# record_on_gpu.sh — record the --profile suite's ground truth with Nsight Compute on a real NVIDIA GPU.
#
# Builds ptxrun from a copy of ptxrun.c (not tracked: copy /work/shared/tools/ptxrun.c into the git-ignored
# folder .device/ at the repository root, and pass `carry: [".device"]` to the device tool), then for every
# line `ID GROUP COMPARE ARGS...` of tests/profile/cases.txt runs
#   ncu --metrics METRICS --csv --print-units base --cache-control all --clock-control base \
#       ptxrun tests/profile/kernels.ptx ARGS...
# and writes into OUTDIR (default: $OUT, else ./gpu_out):
#   golden/ID.csv       ncu's CSV for the launch (one row per metric: every METRICS below)
#   golden/PROVENANCE.md  GPU, driver, ncu and nvcc versions, date, the exact commands, failures
#   golden.tgz          the golden/ folder in one file
# Then commit: unpack golden.tgz into tests/profile/ (golden/ID.csv, golden/PROVENANCE.md); the CTest tests
# profile.ncu (counts equal where definitions match) and profile.rank (estimated cycles rank each GROUP as
# gpu__time_duration.sum does) stop skipping.
# Usage (from anywhere): tests/profile/record_on_gpu.sh [OUTDIR] [ID-REGEX]
# Environment: CUDA_HOME (default /usr/local/cuda), NCU (default: ncu in PATH, else $CUDA_HOME/bin/ncu),
#   REPEAT (default 3: gpu__time_duration.sum is recorded that many times, each a separate ncu run; the
#   CSV keeps every run's rows, the checks use the median).
set -uo pipefail
PDIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$PDIR/../.." && pwd)
OUTDIR=${1:-${OUT:-$PWD/gpu_out}}
FILTER=${2:-.}
REPEAT=${REPEAT:-3}
SRC=${PTXRUN_SRC:-$ROOT/.device/ptxrun.c}
CUDA=${CUDA_HOME:-/usr/local/cuda}
NCU=${NCU:-$(command -v ncu || echo "$CUDA/bin/ncu")}
mkdir -p "$OUTDIR/golden"
OUTDIR=$(cd "$OUTDIR" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The counts warpvm compares (cases.txt COMPARE) and what is only recorded (instruction totals are SASS's,
# the duration is the ranking's).
METRICS=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_pred_on.sum,\
smsp__sass_branch_targets_threads_divergent.sum,smsp__sass_branch_targets.sum,smsp__sass_inst_executed_op_branch.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.max,gpu__time_duration.sum

# --- build ptxrun
. "$ROOT/tests/lib/ptxrun.sh"
build_ptxrun "$SRC" "$CUDA" "$WORK" || exit 1
BUILD=$PTXRUN_BUILD
[ -x "$NCU" ] || { echo "record_on_gpu: no ncu (set NCU=)" >&2; exit 1; }

PROV=$OUTDIR/golden/PROVENANCE.md
{
  echo "# Provenance of tests/profile/golden"
  echo
  echo "Every \`ID.csv\` is what Nsight Compute printed for the launch \`ID\` of \`../cases.txt\` on a real GPU,"
  echo "made by \`tests/profile/record_on_gpu.sh\`; no value was written by hand or computed on a CPU."
  echo
  echo "- recorded: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "- host: $(uname -srm)"
  echo "- gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.max.sm --format=csv,noheader 2>&1)"
  echo "- ncu: $("$NCU" --version 2>&1 | tail -1)"
  echo "- nvcc (kernels.ptx was built by build_ptx.sh): see the .version/.target header of kernels.ptx"
  echo "- ptxrun build: \`$BUILD\` (ptxrun.c sha256 $(sha256sum "$SRC" | cut -d' ' -f1))"
  echo "- kernels.ptx sha256: $(sha256sum "$PDIR/kernels.ptx" | cut -d' ' -f1)"
  echo "- cases.txt sha256: $(sha256sum "$PDIR/cases.txt" | cut -d' ' -f1)"
  echo "- command per case (repeated $REPEAT times, rows appended):"
  echo "  \`ncu --metrics <the list in record_on_gpu.sh> --csv --print-units base --cache-control all --clock-control base ptxrun kernels.ptx ARGS...\`"
  echo
  echo "## Failures"
} >"$PROV"

cd "$PDIR"
FAILED=0
while read -r id group compare args; do
  case "$id" in ''|'#'*) continue ;; esac
  echo "$id" | awk -v re="$FILTER" '$0 ~ re {ok=1} END {exit !ok}' || continue
  out=$OUTDIR/golden/$id.csv
  : >"$out"
  for r in $(seq 1 "$REPEAT"); do
    # shellcheck disable=SC2086
    if ! "$NCU" --metrics "$METRICS" --csv --print-units base --cache-control all --clock-control base \
         "$PTXRUN" kernels.ptx $args >"$WORK/run.csv" 2>"$WORK/run.err"; then
      echo "- $id (run $r): ncu failed: $(tail -3 "$WORK/run.err" | tr '\n' ' ')" >>"$PROV"
      FAILED=1
      continue
    fi
    # ncu prints the program's stdout and its own ==PROF== lines too: keep the CSV rows
    grep '^"' "$WORK/run.csv" | { [ "$r" = 1 ] && cat || grep -v '^"ID"'; } >>"$out"
  done
  echo "recorded $id: $(grep -c gpu__time_duration "$out") duration rows"
done <cases.txt
[ "$FAILED" = 0 ] && echo "none" >>"$PROV"
tar -C "$OUTDIR" -czf "$OUTDIR/golden.tgz" golden
echo "record_on_gpu: wrote $OUTDIR/golden.tgz"
