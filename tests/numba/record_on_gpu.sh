#!/usr/bin/env bash
# record_on_gpu.sh [--wheels DIR] [OUTDIR] — on a machine with an NVIDIA GPU and its driver, run every
# tests/numba/*.py script with python3 (twice: both runs must print the same) and write what each printed
# to OUTDIR/NAME.stdout, plus OUTDIR/PROVENANCE.md (GPU, driver, Python and package versions, how Numba
# linked). OUTDIR defaults to tests/numba/golden. No network needed.
#
# The Numba stack: with --wheels DIR, the wheels in DIR (fetch_wheels.sh) are installed with
# `pip install --no-index --no-deps --target /tmp/numba-site` and come first on the path, the rest (numpy,
# llvmlite unless carried) being the machine's; without it, the machine's own numba-cuda. Scripts run as
# `python3 run_script` through a two-line launcher that puts that folder first on sys.path and imports
# numba-cuda's redirector (its .pth file, which maps `numba.cuda` to numba-cuda, is read only from
# site-packages folders, not from PYTHONPATH). NVVM, libdevice and libcudadevrt.a come from the CUDA
# toolkit: CUDA_HOME defaults to /usr/local/cuda.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WHEELS=""
if [ "${1:-}" = --wheels ]; then
  WHEELS=${2:?usage: $0 [--wheels DIR] [OUTDIR]}
  shift 2
fi
OUTDIR=${1:-$HERE/golden}
[ $# -le 1 ] || { echo "usage: $0 [--wheels DIR] [OUTDIR]" >&2; exit 2; }
PY=${PYTHON:-python3}
SITE=""
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PYTHONUNBUFFERED=1
mkdir -p "$OUTDIR"

if [ -n "$WHEELS" ]; then
  SITE=/tmp/numba-site
  rm -rf "$SITE"
  "$PY" -m pip install -q --disable-pip-version-check --no-index --no-deps --no-compile --target "$SITE" "$WHEELS"/*.whl ||
    { echo "record: cannot install the wheels of $WHEELS" >&2; exit 1; }
fi
export WV_NUMBA_SITE=$SITE
# The launcher: python3 -c "$LAUNCH" SCRIPT runs SCRIPT as __main__ with the carried packages first.
LAUNCH='import os, sys, runpy
site = os.environ.get("WV_NUMBA_SITE")
if site: sys.path.insert(0, site)
import _numba_cuda_redirector
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")'

# What runs: versions, where numba.cuda comes from, the device, how a kernel is linked.
cat >"$OUTDIR/.env.py" <<'PY'
import importlib.metadata as md, platform, sys
import numba, numba.cuda as cuda
from numba.cuda.cudadrv import driver, nvvm
print("python|%s (%s)" % (platform.python_version(), sys.executable))
for p in ("numba-cuda", "numba", "llvmlite", "cuda-bindings", "cuda-core", "cuda-pathfinder", "numpy"):
    try:
        d = md.distribution(p)
        print("%s|%s (%s)" % (p, d.version, d.locate_file("")))
    except md.PackageNotFoundError:
        print("%s|not installed" % p)
print("numba.cuda|%s" % cuda.__file__)
dev = cuda.get_current_device()
print("device|%s, compute capability %d.%d" % (dev.name.decode() if isinstance(dev.name, bytes) else dev.name, *dev.compute_capability))
print("nvvm|%s" % ".".join(map(str, nvvm.NVVM().get_version())))
print("linker|%s" % ("nvJitLink (PTX linked into a cubin)" if driver._have_nvjitlink() else "the driver's cuLink* with PTX"))
PY
"$PY" -c "$LAUNCH" "$OUTDIR/.env.py" >"$OUTDIR/.env" 2>"$OUTDIR/.env.err"
if [ $? != 0 ] || ! awk -F'|' '$1 == "numba.cuda" && /numba_cuda/ { ok = 1 } END { exit !ok }' "$OUTDIR/.env"; then
  echo "record: Numba's CUDA target does not work here (numba.cuda must come from numba-cuda):" >&2
  cat "$OUTDIR/.env" "$OUTDIR/.env.err" >&2
  exit 1
fi

fail=0
names=()
for script in "$HERE"/*.py; do
  name=$(basename "$script" .py)
  names+=("$name")
  for pass in 1 2; do
    if ! (cd /tmp && timeout 600 "$PY" -c "$LAUNCH" "$script" >"$OUTDIR/.$name.$pass" 2>"$OUTDIR/.$name.err"); then
      echo "record: $name failed (pass $pass):" >&2
      tail -n 30 "$OUTDIR/.$name.err" >&2
      fail=1
      continue 2
    fi
  done
  if ! cmp -s "$OUTDIR/.$name.1" "$OUTDIR/.$name.2"; then
    echo "record: $name printed different things in two runs:" >&2
    diff "$OUTDIR/.$name.1" "$OUTDIR/.$name.2" >&2
    fail=1
    continue
  fi
  mv "$OUTDIR/.$name.1" "$OUTDIR/$name.stdout"
  echo "== $name.stdout"
  cat "$OUTDIR/$name.stdout"
done

env_of() { awk -F'|' -v k="$1" '$1 == k { sub(/^[^|]*[|]/, ""); print }' "$OUTDIR/.env"; }
{
  echo "# Provenance of tests/numba/golden"
  echo
  echo "Every \`NAME.stdout\` is what \`tests/numba/NAME.py\` printed when run with Python on a real GPU by"
  echo "\`tests/numba/record_on_gpu.sh\` (twice, the same both times). No value here was written by hand."
  echo
  echo "| | |"
  echo "| --- | --- |"
  echo "| recorded | $(date -u '+%Y-%m-%d %H:%M:%S UTC') |"
  echo "| GPU | $(nvidia-smi --query-gpu=name,compute_cap,memory.total --format=csv,noheader 2>/dev/null | head -n 1) |"
  echo "| driver | $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1) |"
  echo "| host | $(uname -srm) |"
  for k in python numba-cuda numba llvmlite cuda-bindings cuda-core cuda-pathfinder numpy numba.cuda device nvvm linker; do
    echo "| $k | $(env_of "$k") |"
  done
  echo "| wheels | ${WHEELS:+carried from $WHEELS: }$(cd "${WHEELS:-/nonexistent}" 2>/dev/null && ls *.whl | tr '\n' ' ') |"
  echo "| scripts | sha256 of the sorted sha256s of tests/numba/*.py: $(cd "$HERE" && sha256sum ./*.py | sort | sha256sum | cut -c1-64) |"
  echo
  echo "## How"
  echo
  echo "    bash tests/numba/record_on_gpu.sh ${WHEELS:+--wheels $WHEELS }OUTDIR"
  echo
  echo "Scripts: ${names[*]}"
} >"$OUTDIR/PROVENANCE.md"
rm -f "$OUTDIR"/.env "$OUTDIR"/.env.err "$OUTDIR"/.env.py "$OUTDIR"/.*.2 "$OUTDIR"/.*.err "$OUTDIR"/.*.1
echo "== PROVENANCE.md"
cat "$OUTDIR/PROVENANCE.md"
exit $fail
