#!/usr/bin/env bash
# build_ptx.sh — regenerate tests/kernels/ptx/*.ptx from tests/kernels/src/*.cu and record the exact
# commands (and tool versions) in ptx/BUILD.txt.
#
#   nvcc 13.0 for sm_80 and sm_90:  nvcc -arch=sm_XX -ptx -O3 [extra flags] src/NAME.cu -o ptx/NAME.sm_XX.ptx
#   clang-14 for sm_70 (nvcc 13 dropped sm_70), CUDA mode with no CUDA headers or libdevice; the
#   sources include wv_compat.h, which stands in for the few CUDA header functions they use:
#     clang-14 --cuda-gpu-arch=sm_70 --cuda-device-only -S -nocudalib -nocudainc -O3
#              -Xclang -target-feature -Xclang +ptx64 src/NAME.cu -o ptx/NAME.sm_70.ptx
#   The sm_70 files are genuine clang output for .target sm_70 (PTX ISA 6.4), not retargeted nvcc output.
#
# Usage: tests/kernels/build_ptx.sh [--check]   (--check also assembles every file with ptxas)
# Environment: NVCC (default /usr/local/cuda/bin/nvcc), CLANG (default clang-14), PTXAS (default ptxas
# next to NVCC).
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
CLANG=${CLANG:-clang-14}
PTXAS=${PTXAS:-$(dirname "$NVCC")/ptxas}
mkdir -p ptx
LOG=ptx/BUILD.txt
{
  echo "# PTX build record, written by tests/kernels/build_ptx.sh (run from tests/kernels/)."
  echo "# $("$NVCC" --version | grep -E 'release|Build' | tr '\n' ' ')"
  echo "# $("$CLANG" --version | head -1)"
  echo
} >"$LOG"

run() {
  echo "$*" >>"$LOG"
  "$@"
}

# nv NAME ARCH [OUTNAME [extra nvcc flags...]]
nv() {
  local name=$1 arch=$2 out=${3:-$1}
  shift 3 2>/dev/null || shift $#
  run "$NVCC" -arch="$arch" -ptx -O3 "$@" "src/$name.cu" -o "ptx/$out.$arch.ptx"
}
# cl NAME  (sm_70 through clang)
cl() {
  run "$CLANG" --cuda-gpu-arch=sm_70 --cuda-device-only -S -nocudalib -nocudainc -O3 -Wno-unknown-cuda-version \
    -Xclang -target-feature -Xclang +ptx64 "src/$1.cu" -o "ptx/$1.sm_70.ptx"
}

# sm_70 (clang-14)
for n in ref_shfl shfl_battery vote block control; do cl "$n"; done
# sm_80 (nvcc)
for n in ref_shfl shfl_battery shfl_typed vote block atomics control printf intops fp32 fp64 fpconv fpapprox fpftz its async_pipeline async_prim async_barrier async_cg async_namedbar async_memmodel async_mbarrier tiles isa10 half indirect cg_large_tile atom_half half_set mma mma_subbyte; do
  nv "$n" sm_80
done
nv fp32 sm_80 fp32_ftz -ftz=true
nv fpapprox sm_80 fpapprox_fast -use_fast_math
# sm_90 (nvcc)
for n in ref_shfl shfl_battery vote block atomics control fp32 fpconv sm90 its async_pipeline async_prim async_barrier async_cg async_namedbar async_memmodel async_mbarrier tiles isa10 half indirect sregs cg_large_tile vecatom atom_half half_set half_oob mma mma_subbyte cluster; do nv "$n" sm_90; done
# sm_90a (nvcc): .multicast::cluster is meant for sm_90a
for n in bulk tmap; do nv "$n" sm_90a; done
# sm_90a, written directly as PTX (one wgmma form per kernel, up to 128 accumulator registers)
echo "python3 gen_wgmma.py ptx > ptx/wgmma.sm_90a.ptx" >>"$LOG"
python3 gen_wgmma.py ptx >ptx/wgmma.sm_90a.ptx

if [ "${1:-}" = "--check" ]; then
  for f in ptx/*.ptx; do
    arch=sm_90
    case "$f" in *.sm_90a.ptx) arch=sm_90a ;; esac  # wgmma is sm_90a only
    "$PTXAS" -arch=$arch "$f" -o /dev/null || { echo "ptxas $arch failed: $f" >&2; exit 1; }
    case "$f" in *.sm_70.ptx | *.sm_80.ptx) "$PTXAS" -arch=sm_80 "$f" -o /dev/null ||
      { echo "ptxas sm_80 failed: $f" >&2; exit 1; } ;; esac
  done
  echo "all PTX files assemble (ptxas sm_90; sm_70/sm_80 files also for sm_80)"
fi
