#!/usr/bin/env bash
# test.sh — build warpvm twice (normal, and ASan+UBSan) and run the whole CTest suite on both, then
# fuzz each libFuzzer harness of tests/fuzz for a short while (WV_FUZZ_SECONDS, default 10; 0 skips it;
# WV_FUZZ_TARGETS picks harnesses, default all; skipped with a message where clang-14 has no libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs="$(nproc)"
# Both builds run the nvcc-built test programs (tests/programs, tests/apps): compile each once for both.
export WV_NVCC_CACHE="${WV_NVCC_CACHE:-$PWD/build/nvcc-cache}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
# The sanitizer build keeps assert() (Debug) at -O1, as the sanitizers' authors advise: ASan and UBSan find the same
# errors, and its ctest takes about half the time of -O0 (which kept ./scripts/test.sh past 30 minutes).
# Its corpus JIT tests load the code the normal build's compiled (tests/CMakeLists.txt WV_TEST_JIT_CACHE).
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DWV_SANITIZE=ON \
  -DWV_TEST_JIT_CACHE="$PWD/build/jit-cache" >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$jobs")
secs="${WV_FUZZ_SECONDS:-10}"
if [ "$secs" != 0 ]; then
  rc=0
  # shellcheck disable=SC2086
  bash tests/fuzz/run.sh --smoke "$secs" ${WV_FUZZ_TARGETS:-} || rc=$?
  [ "$rc" -eq 77 ] && echo "test.sh: fuzz smoke skipped"
  [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || exit "$rc"
fi
