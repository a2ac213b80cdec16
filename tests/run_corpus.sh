#!/usr/bin/env bash
# run_corpus.sh — replay the differential-test corpus under warpvm and compare with the GPU's output.
#
# For each run `ID PTXPATH ARGS...` of tests/kernels/runs.txt it runs, from tests/kernels/,
#   $WARPVM run PTXPATH ARGS...
# and compares its stdout with tests/kernels/golden/ID.out (recorded on a real GPU). Kernel printf lines
# may come out in another order across warps, so the printf part (the lines before the first `arg N:`
# line) is compared as a sorted multiset and the rest exactly, bit for bit (the .approx results
# too: src/exec/sfu.h is the GPU's unit). A failure prints a unified diff.
#
# Usage: tests/run_corpus.sh [--warpvm PATH] [--one ID | ID-REGEX...]
#   --warpvm PATH   the warpvm binary (default: $WARPVM, else build/warpvm)
#   --extra "ARGS"  more warpvm options for every run, e.g. "--machine gfx90a --warps-per-wave 2":
#                   the GPU's output is the golden whatever machine warpvm models
#   --same-as "ARGS"  also run it with these options instead of --extra's, and require the same stdout,
#                   byte for byte (printf order included), and exit status: e.g. --extra "--threads 2"
#                   --same-as "--threads 1"
#   --one ID        exactly one run (what each CTest test `kernel.ID` does)
#   ID-REGEX...     runs whose ID matches any of these extended regexes (default: all)
# Environment: WV_TIMEOUT seconds per run (default 300), WV_DIFF_LINES diff lines shown (default 80).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
KDIR=$HERE/kernels
WARPVM=${WARPVM:-$HERE/../build/warpvm}
ONE=""
EXTRA=""
SAME=""
PATS=()
while [ $# -gt 0 ]; do
  case $1 in
    --warpvm) WARPVM=$2; shift 2 ;;
    --extra) EXTRA=$2; shift 2 ;;
    --same-as) SAME=$2; shift 2 ;;
    --one) ONE=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) PATS+=("$1"); shift ;;
  esac
done
TIMEOUT=${WV_TIMEOUT:-300}
DIFFN=${WV_DIFF_LINES:-80}
case $WARPVM in /*) ;; *) WARPVM=$PWD/$WARPVM ;; esac
[ -x "$WARPVM" ] || { echo "run_corpus: warpvm binary not found or not executable: $WARPVM" >&2; exit 2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$KDIR" || exit 2

# split FILE PREFIX: PREFIX.printf gets the sorted lines before the first `arg N:` line, PREFIX.rest the others.
split() {
  awk -v p="$2.printf.raw" -v r="$2.rest" 'BEGIN { printf "" > p; printf "" > r }
    !seen && /^arg [0-9]+:$/ { seen = 1 }
    { print > (seen ? r : p) }' "$1"
  LC_ALL=C sort "$2.printf.raw" >"$2.printf"
}

# check ID PTX ARGS...: 0 pass, 1 fail, 77 no golden yet (skipped)
check() {
  local id=$1 ptx=$2
  shift 2
  local gold=golden/$id.out
  if [ ! -f "$gold" ]; then # warpvm runs it all the same: it must not fail
    # shellcheck disable=SC2086
    timeout "$TIMEOUT" "$WARPVM" run "$ptx" "$@" $EXTRA >/dev/null 2>"$TMP/err"
    local rc=$?
    if [ $rc -ne 0 ]; then
      echo "FAIL $id: no golden output yet, and warpvm exited with $rc"
      head -c 2000 "$TMP/err"
      return 1
    fi
    echo "SKIP $id: no golden output $KDIR/$gold yet (record it on a GPU: tests/kernels/README.md)"
    return 77
  fi
  # shellcheck disable=SC2086
  timeout "$TIMEOUT" "$WARPVM" run "$ptx" "$@" $EXTRA >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  split "$gold" "$TMP/g"
  split "$TMP/out" "$TMP/a"
  local ok=0
  if ! cmp -s "$TMP/g.printf" "$TMP/a.printf"; then
    ok=1
    echo "FAIL $id: printf output differs (compared as sorted lines)"
    diff -u --label "golden/$id.out (printf, sorted)" --label "warpvm (printf, sorted)" "$TMP/g.printf" "$TMP/a.printf" |
      head -n "$DIFFN"
  fi
  if ! cmp -s "$TMP/g.rest" "$TMP/a.rest"; then
    ok=1
    echo "FAIL $id: buffer output differs"
    diff -u --label "golden/$id.out" --label "warpvm" "$TMP/g.rest" "$TMP/a.rest" | head -n "$DIFFN"
  fi
  if [ $rc -ne 0 ]; then
    ok=1
    [ $rc -eq 124 ] && echo "FAIL $id: timed out after ${TIMEOUT}s" || echo "FAIL $id: warpvm exited with $rc"
    head -c 2000 "$TMP/err"
  fi
  if [ -n "$SAME" ]; then
    # shellcheck disable=SC2086
    timeout "$TIMEOUT" "$WARPVM" run "$ptx" "$@" $SAME >"$TMP/same" 2>/dev/null
    local src=$?
    if [ $src -ne $rc ] || ! cmp -s "$TMP/out" "$TMP/same"; then
      ok=1
      echo "FAIL $id: with $EXTRA (exit $rc) the output differs from the output with $SAME (exit $src)"
      diff -u --label "with $SAME" --label "with $EXTRA" "$TMP/same" "$TMP/out" | head -n "$DIFFN"
    fi
  fi
  [ $ok -eq 0 ] && echo "PASS $id"
  echo "  command: (cd tests/kernels && $WARPVM run $ptx $* $EXTRA)" >"$TMP/cmd"
  [ $ok -eq 0 ] || cat "$TMP/cmd"
  return $ok
}

pass=0 fail=0 skip=0 failed=()
found=0
while read -r id ptx args; do
  case $id in '' | \#*) continue ;; esac
  if [ -n "$ONE" ]; then
    [ "$id" = "$ONE" ] || continue
  elif [ ${#PATS[@]} -gt 0 ]; then
    m=0
    for p in "${PATS[@]}"; do [[ $id =~ $p ]] && m=1; done
    [ $m -eq 1 ] || continue
  fi
  found=$((found + 1))
  # shellcheck disable=SC2086
  check "$id" "$ptx" $args </dev/null
  case $? in
    0) pass=$((pass + 1)) ;;
    77) skip=$((skip + 1)) ;;
    *) fail=$((fail + 1)); failed+=("$id") ;;
  esac
done <runs.txt

if [ $found -eq 0 ]; then
  echo "run_corpus: no run matched${ONE:+ $ONE}" >&2
  exit 2
fi
if [ -z "$ONE" ]; then
  echo "corpus: $pass passed, $fail failed, $skip without a golden yet, of $found"
  for f in "${failed[@]}"; do echo "  failed: $f"; done
fi
[ $fail -eq 0 ] || exit 1
[ -n "$ONE" ] && [ $skip -gt 0 ] && exit 77
exit 0
