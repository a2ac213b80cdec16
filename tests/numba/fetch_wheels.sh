#!/usr/bin/env bash
# fetch_wheels.sh DIR [--with-llvmlite] — download, for the GPU machine (CPython 3.12, x86-64 Linux, no
# network), the wheels of the Numba stack pinned in requirements.txt, without their dependencies: numba-cuda,
# numba, cuda-bindings, cuda-core, cuda-pathfinder (about 21 MB); with --with-llvmlite also llvmlite (about
# 60 MB more: carry it only where the machine has no llvmlite 0.50). numpy is the machine's own.
# record_on_gpu.sh --wheels DIR installs them there.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || { [ $# = 2 ] && [ "$2" != --with-llvmlite ]; }; then
  echo "usage: $0 DIR [--with-llvmlite]" >&2
  exit 2
fi
DIR=$1
HERE=$(cd "$(dirname "$0")" && pwd)
want=(numba-cuda numba cuda-bindings cuda-core cuda-pathfinder)
[ $# = 2 ] && want+=(llvmlite)
pins=()
for name in "${want[@]}"; do
  pin=$(grep -E "^$name==" "$HERE/requirements.txt") || { echo "fetch_wheels: $name is not pinned in requirements.txt" >&2; exit 1; }
  pins+=("$pin")
done
mkdir -p "$DIR"
plat=()
for p in manylinux_2_34_x86_64 manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_24_x86_64 manylinux_2_17_x86_64 \
         manylinux2014_x86_64 manylinux1_x86_64; do
  plat+=(--platform "$p")
done
python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp "${plat[@]}" -d "$DIR" "${pins[@]}"
ls -l "$DIR"/*.whl
du -ch "$DIR"/*.whl | tail -n 1
