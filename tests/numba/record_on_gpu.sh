#!/usr/bin/env bash
# record_on_gpu.sh [--wheels DIR] [--tar FILE] — on a machine with an NVIDIA GPU, its driver and the CUDA
# toolkit, from a copy of the repository: run every tests/numba/*.py and tests/cupy/*.py script with python3
# (twice: both runs must print the same) and write what each printed to that suite's golden/NAME.stdout, with
# golden/PROVENANCE.md (GPU, driver, Python and package versions, how Numba linked). With --tar FILE, the two
# golden folders are also packed into FILE (paths from the repository root: `tar xf FILE` there puts them in
# place). No network needed. Exit status 0 when every script was recorded.
#
# The Numba stack: with --wheels DIR, the wheels in DIR (fetch_wheels.sh) are installed with
# `pip install --no-index --no-deps --target /tmp/numba-site` and come first on the path, the rest (numpy,
# llvmlite unless carried, CuPy) being the machine's; without it, the machine's own packages. Scripts run as
# `python3 -c LAUNCH script.py`, a launcher that puts that folder first on sys.path and imports numba-cuda's
# redirector (its .pth file, which maps `numba.cuda` to numba-cuda, is read only from site-packages folders,
# not from PYTHONPATH). NVVM, libdevice and libcudadevrt.a come from the CUDA toolkit: CUDA_HOME defaults to
# /usr/local/cuda.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WHEELS="" TAR=""
while [ $# -gt 0 ]; do
  case $1 in
  --wheels) WHEELS=${2:?--wheels needs a folder}; shift 2 ;;
  --tar) TAR=${2:?--tar needs a file name}; shift 2 ;;
  *) echo "usage: $0 [--wheels DIR] [--tar FILE]" >&2; exit 2 ;;
  esac
done
PY=${PYTHON:-python3}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PYTHONUNBUFFERED=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

SITE=""
if [ -n "$WHEELS" ]; then
  SITE=/tmp/numba-site
  rm -rf "$SITE"
  "$PY" -m pip install -q --disable-pip-version-check --no-index --no-deps --no-compile --target "$SITE" "$WHEELS"/*.whl ||
    { echo "record: cannot install the wheels of $WHEELS" >&2; exit 1; }
fi
export WV_NUMBA_SITE=$SITE
LAUNCH='import os, sys, runpy
site = os.environ.get("WV_NUMBA_SITE")
if site: sys.path.insert(0, site)
try:
    import _numba_cuda_redirector
except ImportError:
    pass
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")'

# What runs: versions, where numba.cuda comes from, the device, how Numba links; one "key|value" a line.
cat >"$TMP/env.py" <<'PY'
import importlib.metadata as md, platform, sys
print("python|%s (%s)" % (platform.python_version(), sys.executable))
for p in ("numba-cuda", "numba", "llvmlite", "cuda-bindings", "cuda-core", "cuda-pathfinder", "numpy", "cupy-cuda13x"):
    try:
        d = md.distribution(p)
        print("%s|%s (%s)" % (p, d.version, d.locate_file("")))
    except md.PackageNotFoundError:
        print("%s|not installed" % p)
try:
    import numba.cuda as cuda
    from numba.cuda.cudadrv import driver, nvvm
    print("numba.cuda|%s" % cuda.__file__)
    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
    print("device|%s, compute capability %d.%d" % (name, *dev.compute_capability))
    print("nvvm|%s" % ".".join(map(str, nvvm.NVVM().get_version())))
    print("linker|%s" % ("nvJitLink (PTX linked into a cubin)" if driver._have_nvjitlink() else "the driver's cuLink* with PTX"))
except Exception as e:
    print("numba.cuda|unusable: %s" % e)
try:
    import cupy
    print("cupy|%s, CUPY_COMPILE_WITH_PTX=%s" % (cupy.__version__, __import__("os").environ.get("CUPY_COMPILE_WITH_PTX", "unset")))
except Exception as e:
    print("cupy|unusable: %s" % e)
PY
"$PY" -c "$LAUNCH" "$TMP/env.py" >"$TMP/env" 2>"$TMP/env.err" || { cat "$TMP/env.err" >&2; exit 1; }
env_of() { awk -F'|' -v k="$1" '$1 == k { sub(/^[^|]*[|]/, ""); print }' "$TMP/env"; }
cat "$TMP/env"

fail=0
# record SUITE KEYS...: every SUITE/*.py into SUITE/golden, PROVENANCE.md listing KEYS of the environment.
record() {
  local suite=$1 name script pass
  shift
  local out=$suite/golden names=()
  mkdir -p "$out"
  for script in "$suite"/*.py; do
    name=$(basename "$script" .py)
    for pass in 1 2; do
      if ! (cd "$TMP" && timeout 600 "$PY" -c "$LAUNCH" "$script" >"$TMP/$name.$pass" 2>"$TMP/$name.err"); then
        echo "record: $suite/$name.py failed (pass $pass):" >&2
        tail -n 30 "$TMP/$name.err" >&2
        fail=1
        continue 2
      fi
    done
    if ! cmp -s "$TMP/$name.1" "$TMP/$name.2"; then
      echo "record: $suite/$name.py printed different things in two runs:" >&2
      diff "$TMP/$name.1" "$TMP/$name.2" >&2
      fail=1
      continue
    fi
    cp "$TMP/$name.1" "$out/$name.stdout"
    names+=("$name")
    echo "== ${suite#"$ROOT"/}/golden/$name.stdout"
    cat "$out/$name.stdout"
  done
  local rel=${suite#"$ROOT"/} k
  {
    echo "# Provenance of $rel/golden"
    echo
    echo "Every \`NAME.stdout\` is what \`$rel/NAME.py\` printed when run with Python on a real GPU by"
    echo "\`tests/numba/record_on_gpu.sh\` (twice, the same both times). No value here was written by hand."
    echo
    echo "| | |"
    echo "| --- | --- |"
    echo "| recorded | $(date -u '+%Y-%m-%d %H:%M:%S UTC') |"
    echo "| GPU | $(nvidia-smi --query-gpu=name,compute_cap,memory.total --format=csv,noheader 2>/dev/null | head -n 1) |"
    echo "| driver | $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1) |"
    echo "| host | $(uname -srm) |"
    for k in python "$@"; do
      echo "| $k | $(env_of "$k") |"
    done
    echo "| wheels | ${WHEELS:+carried from $WHEELS: }$( (cd "${WHEELS:-/nonexistent}" 2>/dev/null && ls ./*.whl) | sed 's|^\./||' | tr '\n' ' ') |"
    echo "| scripts | sha256 of the sorted sha256s of $rel/*.py: $(cd "$suite" && sha256sum ./*.py | sort | sha256sum | cut -c1-64) |"
    echo
    echo "## How"
    echo
    echo "    bash tests/numba/record_on_gpu.sh${WHEELS:+ --wheels $WHEELS}${TAR:+ --tar FILE}"
    echo
    echo "Recorded: ${names[*]}"
  } >"$out/PROVENANCE.md"
  echo "== $rel/golden/PROVENANCE.md"
  cat "$out/PROVENANCE.md"
}

if awk -F'|' '$1 == "numba.cuda" && /numba_cuda/ { ok = 1 } END { exit !ok }' "$TMP/env"; then
  record "$HERE" numba-cuda numba llvmlite cuda-bindings cuda-core cuda-pathfinder numpy numba.cuda device nvvm linker
else
  echo "record: Numba's CUDA target does not work here (numba.cuda must come from numba-cuda): $(env_of numba.cuda)" >&2
  fail=1
fi
if env_of cupy | grep -q unusable; then
  echo "record: CuPy does not work here: $(env_of cupy)" >&2
  fail=1
else
  record "$ROOT/tests/cupy" cupy-cuda13x cupy numpy
fi
if [ -n "$TAR" ]; then
  (cd "$ROOT" && tar cf "$TAR" tests/numba/golden tests/cupy/golden) && echo "== packed into $TAR"
fi
exit $fail
