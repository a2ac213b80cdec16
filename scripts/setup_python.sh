#!/usr/bin/env bash
# setup_python.sh — the Python venv the Numba tests (tests/numba) run in: numba-cuda and its CUDA 13
# bindings from PyPI, at the versions of tests/numba/requirements.txt, in WARPVM_PYENV (default
# build-pyenv/ at the repository root). Numba compiles Python to PTX with NVVM, which it takes from the
# CUDA toolkit (/usr/local/cuda, or CUDA_HOME), as it does libdevice and, for grid sync, libcudadevrt.a.
# Safe to run again: it installs only what is missing or at another version. Called by scripts/setup.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYENV=${WARPVM_PYENV:-$ROOT/build-pyenv}
REQ=$ROOT/tests/numba/requirements.txt
REQ2=$ROOT/tests/apps/cutlass-requirements.txt  # installed --no-deps (it says why)
PY=${PYTHON:-python3}
stamp=$PYENV/.requirements
if [ -x "$PYENV/bin/python" ] && [ -f "$stamp" ] && cmp -s "$stamp" <(cat "$REQ" "$REQ2") && "$PYENV/bin/python" -c 'import numba_cuda, cuda.core' 2>/dev/null; then
  exit 0
fi
command -v "$PY" >/dev/null 2>&1 || { echo "setup_python: no $PY; the Numba tests will be skipped" >&2; exit 1; }
if ! "$PY" -c 'import venv, ensurepip' 2>/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
fi
echo "setup_python: making the Numba venv in $PYENV (tests/numba/requirements.txt)"
[ -x "$PYENV/bin/python" ] || "$PY" -m venv "$PYENV"
"$PYENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQ"
"$PYENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$REQ2"
cat "$REQ" "$REQ2" >"$stamp"
