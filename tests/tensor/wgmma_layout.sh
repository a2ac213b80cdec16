#!/usr/bin/env bash
# wgmma_layout.sh WORKDIR — builds wgmma_layout.cu (host code: CuTe's canonical GMMA layouts against
# src/exec/wgmma_layout.c) with nvcc and CUTLASS's headers (../programs/lib.sh cutlass_dir: $WV_CUTLASS or the
# venv of scripts/setup_python.sh) and runs it. Exit: 0 every element agrees, 1 not, 77 no nvcc or CUTLASS.
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 WORKDIR" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$1
# shellcheck source=../programs/lib.sh
. "$ROOT/tests/programs/lib.sh"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "no nvcc: skipped"; exit 77; }
CUTLASS=$(cutlass_dir) || { echo "no CUTLASS headers (scripts/setup_python.sh or WV_CUTLASS): skipped"; exit 77; }
mkdir -p "$WORK"
cc -std=c17 -O1 -c "$ROOT/src/exec/wgmma_layout.c" -I"$ROOT/src" -o "$WORK/wgmma_layout_c.o" || exit 1
"$NVCC" -std=c++17 -O1 -w -I"$CUTLASS/include" -I"$ROOT/src" "$HERE/wgmma_layout.cu" "$WORK/wgmma_layout_c.o" \
  -o "$WORK/wgmma_layout" 2>&1 | grep -v "^ERROR: cast_smem_ptr" || true
[ -x "$WORK/wgmma_layout" ] || exit 1
"$WORK/wgmma_layout" 2>&1 | grep -v "cast_smem_ptr_to_uint not supported"
exit "${PIPESTATUS[0]}"
