#!/usr/bin/env bash
# run_one.sh WARPVM_CLI NAME [SUITE_DIR] — one CTest test: run SUITE_DIR/NAME.py (SUITE_DIR: tests/numba, or
# tests/cupy) as `WARPVM_CLI PYTHON NAME.py` with the venv's Python (WARPVM_PYENV, default build-pyenv/ at the
# repository root, made by scripts/setup_python.sh) and compare its stdout exactly with
# SUITE_DIR/golden/NAME.stdout, what the same script printed on a GPU (tests/numba/record_on_gpu.sh). stderr is
# not compared (Numba's performance warnings, warpvm's notes).
# run_one.sh WARPVM_CLI --pytest: run `WARPVM_CLI PYTHON -m pytest tests/numba/pytest`, as a Numba project's CI
# would; it passes when pytest does (those tests check kernels against NumPy on the host).
# Exit status: 0 pass; 1 fail; 77 skipped (no venv with the suite's package; or no golden yet, after checking
# that the script runs); 2 usage. Environment: WV_TIMEOUT seconds for the run (default 300).
set -uo pipefail
if [ $# -ne 2 ] && [ $# -ne 3 ]; then
  echo "usage: $0 WARPVM_CLI NAME [SUITE_DIR]" >&2
  exit 2
fi
WV=$1 NAME=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SUITE=$(cd "${3:-$HERE}" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PYENV=${WARPVM_PYENV:-$ROOT/build-pyenv}
PY=$PYENV/bin/python
SCRIPT=$SUITE/$NAME.py
GOLDEN=$SUITE/golden/$NAME.stdout
[ "$NAME" = --pytest ] || [ -f "$SCRIPT" ] || { echo "no such script: $SCRIPT" >&2; exit 2; }
module=numba_cuda
[ "$(basename "$SUITE")" = cupy ] && module=cupy
if [ ! -x "$PY" ] || ! "$PY" -c "import $module" 2>/dev/null; then
  echo "SKIP: no Python venv with $module at $PYENV (scripts/setup_python.sh makes it)"
  exit 77
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# Python's own leaks at exit are no bug of warpvm's: LeakSanitizer (sanitizer builds) stays out of it.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# Private cache folders: a test reads no other run's compiled kernels (and writes none to $HOME).
export NUMBA_CACHE_DIR=$OUT/cache CUPY_CACHE_DIR=$OUT/cupy-cache
# Python's prints reach stdout as they happen, as in the recording, so device printf keeps its place.
export PYTHONUNBUFFERED=1
if [ "$NAME" = --pytest ]; then
  echo "run: $WV $PY -m pytest -q -p no:cacheprovider $HERE/pytest"
  cd "$OUT" && timeout -k 10 "${WV_TIMEOUT:-300}" "$WV" "$PY" -m pytest -q -p no:cacheprovider "$HERE/pytest" </dev/null
  exit $?
fi
echo "run: $WV $PY $SCRIPT"
timeout -k 10 "${WV_TIMEOUT:-300}" "$WV" "$PY" "$SCRIPT" >"$OUT/stdout" 2>"$OUT/stderr" </dev/null
code=$?
echo "exit code: $code"
if [ "$code" != 0 ]; then
  echo "--- stderr (last 40 lines)"
  tail -n 40 "$OUT/stderr"
  echo "FAIL: the script exited with $code"
  exit 1
fi
if [ ! -f "$GOLDEN" ]; then
  echo "--- stdout"
  cat "$OUT/stdout"
  echo "SKIP: no $GOLDEN yet (record it on a GPU: tests/numba/README.md)"
  exit 77
fi
if ! diff -u --label "golden/$NAME.stdout (GPU)" --label "stdout (warpvm)" "$GOLDEN" "$OUT/stdout"; then
  echo "--- stderr (last 30 lines)"
  tail -n 30 "$OUT/stderr"
  echo "FAIL: stdout differs from the GPU's"
  exit 1
fi
echo "PASS: stdout equals the GPU's ($(wc -l <"$GOLDEN") lines)"
