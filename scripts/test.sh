#!/usr/bin/env bash
# test.sh — build warpvm twice (normal, and ASan+UBSan) and run the whole CTest suite on both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs="$(nproc)"
# Both builds run the nvcc-built test programs (tests/programs, tests/apps): compile each once for both.
export WV_NVCC_CACHE="${WV_NVCC_CACHE:-$PWD/build/nvcc-cache}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DWV_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$jobs")
