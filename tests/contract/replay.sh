#!/usr/bin/env bash
# replay.sh — run tests/contract/runs.txt under warpvm and compare with what the GPU printed (golden/).
#
#   tests/contract/replay.sh [--warpvm PATH] [--no-contract]
#
# Each run must print exactly golden/ID.out (recorded by record_on_gpu.sh). With --no-contract warpvm rounds
# every mul and add on its own, as before contraction was modelled: the script then counts the runs that
# differ from the GPU (the runs that depend on the fusion) and only reports.
# Exit status: 0 all match, 1 a mismatch, 77 no GPU recordings yet (CTest: skipped).
set -uo pipefail
CDIR=$(cd "$(dirname "$0")" && pwd)
WARPVM=${WARPVM:-$CDIR/../../build/warpvm}
EXTRA=""
while [ $# -gt 0 ]; do
  case $1 in
    --warpvm) WARPVM=$2; shift 2 ;;
    --no-contract) EXTRA=--no-contract; shift ;;
    -h | --help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "replay.sh: unknown option $1" >&2; exit 1 ;;
  esac
done
case $WARPVM in /*) ;; *) WARPVM=$PWD/$WARPVM ;; esac
cd "$CDIR" || exit 1
ls golden/*.out >/dev/null 2>&1 || { echo "replay.sh: skipped: no GPU recordings in tests/contract/golden yet (record_on_gpu.sh)"; exit 77; }
TMP=$(mktemp)
trap 'rm -f "$TMP"' EXIT
pass=0 fail=0 missing=0
while read -r id ptx args; do
  case $id in '' | '#'*) continue ;; esac
  if [ ! -f "golden/$id.out" ]; then missing=$((missing + 1)); echo "SKIP $id: no golden"; continue; fi
  # shellcheck disable=SC2086
  "$WARPVM" run "$ptx" $args $EXTRA >"$TMP" 2>&1
  if cmp -s "$TMP" "golden/$id.out"; then pass=$((pass + 1)); echo "ok   $id"
  else fail=$((fail + 1)); echo "DIFF $id: $(diff "$TMP" "golden/$id.out" | grep -c '^<') lines differ from the GPU"; fi
done <runs.txt
more=""
[ $missing -gt 0 ] && more=", $missing without golden"
echo "replay.sh${EXTRA:+ $EXTRA}: $pass of $((pass + fail)) runs print what the GPU printed$more"
[ -n "$EXTRA" ] && exit 0
[ $fail -eq 0 ]
