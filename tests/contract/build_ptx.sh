#!/usr/bin/env bash
# build_ptx.sh — regenerate tests/contract/ptx/*.ptx, the contraction corpus that check.sh compares with
# ptxas, from tests/contract/src/*.cu, and record the commands and nvcc version in ptx/BUILD.txt.
#
#   every source:            nvcc -arch=sm_80 -ptx -O3 src/NAME.cu -o ptx/NAME.sm_80.ptx
#   some also:               -use_fast_math (NAME_fast), -ftz=true -prec-div=false -prec-sqrt=false
#                            (NAME_ftz), and -arch=sm_90
#   drift.cu's two (drift, drift_fast) are also the runs of runs.txt, recorded on a GPU (golden/).
#
# Usage: tests/contract/build_ptx.sh [--all DIR]
#   --all DIR  instead, every source with every variant into DIR (not committed: Thrust/CUB make large
#              files), for a wider check: tests/contract/check.sh DIR/*.ptx
# Environment: NVCC (default /usr/local/cuda/bin/nvcc).
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
OUT=ptx
ALL=0
if [ "${1:-}" = "--all" ]; then ALL=1; OUT=$2; fi
mkdir -p "$OUT"
LOG=$OUT/BUILD.txt
{
  echo "# PTX build record, written by tests/contract/build_ptx.sh (run from tests/contract/)."
  echo "# $("$NVCC" --version | grep -E 'release|Build' | tr '\n' ' ')"
  echo
} >"$LOG"

# nv NAME ARCH SUFFIX [nvcc flags...]
nv() {
  local name=$1 arch=$2 suffix=$3
  shift 3
  echo "$NVCC -arch=$arch -ptx -O3 $* src/$name.cu -o $OUT/$name$suffix.$arch.ptx" >>"$LOG"
  "$NVCC" -arch="$arch" -ptx -O3 "$@" "src/$name.cu" -o "$OUT/$name$suffix.$arch.ptx" -diag-suppress 1444
}

numeric="stencil solvers nbody softmax numeric physics ml loops drift"
if [ $ALL = 1 ]; then
  for n in $numeric cccl complex; do
    nv "$n" sm_80 ""
    nv "$n" sm_80 _fast -use_fast_math
    nv "$n" sm_80 _ftz -ftz=true -prec-div=false -prec-sqrt=false
    nv "$n" sm_90 ""
  done
  exit 0
fi
for n in $numeric cccl complex; do nv "$n" sm_80 ""; done
for n in softmax nbody ml physics numeric drift; do nv "$n" sm_80 _fast -use_fast_math; done
for n in stencil solvers; do nv "$n" sm_80 _ftz -ftz=true -prec-div=false -prec-sqrt=false; done
for n in ml numeric; do nv "$n" sm_90 ""; done
