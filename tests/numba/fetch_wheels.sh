#!/usr/bin/env bash
# fetch_wheels.sh DIR [PACKAGE...] — download, for the GPU machine (CPython 3.12, x86-64 Linux, no network),
# the wheels of the Numba stack pinned in requirements.txt, without their dependencies. PACKAGEs default to
# numba-cuda numba cuda-bindings cuda-core cuda-pathfinder (20.8 MB: 1.9 + 3.9 + 8.4 + 6.6 + 0.1); name
# fewer to carry only what the machine lacks (numba-cuda numba: 5.8 MB), or add llvmlite (59.7 MB) for a
# machine without llvmlite 0.50. numpy and CuPy are the machine's own.
# record_on_gpu.sh --wheels DIR installs them there.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 DIR [PACKAGE...]" >&2
  exit 2
fi
DIR=$1
shift
HERE=$(cd "$(dirname "$0")" && pwd)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(numba-cuda numba cuda-bindings cuda-core cuda-pathfinder)
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
