#!/usr/bin/env bash
# setup.sh — install what building and testing warpvm needs, from Debian packages only; the Python venv
# with numba-cuda from PyPI for tests/numba (scripts/setup_python.sh); and, optionally, NVIDIA's
# disassembler from PyPI for tests/contract/check.sh (skipped without it).
# Safe to run again: it installs only what is missing. Needs root (or sudo) when something is.
set -euo pipefail
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v make >/dev/null 2>&1 || need+=(make)
[ -f /usr/include/cmocka.h ] || need+=(libcmocka-dev)
[ -f /usr/include/lz4.h ] || need+=(liblz4-dev)
[ -f /usr/include/zstd.h ] || need+=(libzstd-dev)
# The libFuzzer smoke of tests/fuzz (scripts/test.sh; skipped without them): clang-14 and its libFuzzer,
# llvm-14 for `tests/fuzz/run.sh --coverage` (llvm-profdata-14, llvm-cov-14).
command -v clang-14 >/dev/null 2>&1 || need+=(clang-14)
compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null || need+=(libclang-rt-14-dev)
command -v llvm-cov-14 >/dev/null 2>&1 || need+=(llvm-14)
# The JIT engine (src/jit, README "Engines"): LLVM 15's C API and shared library. Optional for the build (without
# it only the interpreter runs), installed here so that CI builds and tests both engines.
[ -f /usr/lib/llvm-15/include/llvm-c/LLJIT.h ] || need+=(llvm-15-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# tests/contract/check.sh compares warpvm's FMA contraction with ptxas's SASS: where the CUDA toolkit's ptxas
# is here but nvdisasm is not, try NVIDIA's PyPI package. Optional: a failure only leaves that test skipped.
if { command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ]; } && ! command -v nvdisasm >/dev/null 2>&1 &&
   [ ! -x /usr/local/cuda/bin/nvdisasm ] && command -v python3 >/dev/null 2>&1 &&
   ! python3 -c 'import nvidia, os, sys; sys.exit(not any(os.path.exists(os.path.join(p, "cu13/bin/nvdisasm")) for p in nvidia.__path__))' 2>/dev/null; then
  echo "setup: pip install nvidia-cuda-nvdisasm (for tests/contract/check.sh; optional)"
  python3 -m pip install -q nvidia-cuda-nvdisasm >/dev/null 2>&1 || echo "setup: could not install nvidia-cuda-nvdisasm; contract.ptxas will be skipped"
fi

# tests/numba runs Numba in a venv with numba-cuda from PyPI (scripts/setup_python.sh). In CI it must be there;
# elsewhere a failure (no network) only leaves those tests skipped.
if ! bash "$(dirname "$0")/setup_python.sh"; then
  [ "${CI:-}" = true ] && { echo "setup: the Numba venv could not be made" >&2; exit 1; }
  echo "setup: the Numba venv could not be made; tests/numba will be skipped"
fi
