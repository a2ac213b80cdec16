#!/usr/bin/env bash
# same_counts.sh WARPVM [ID-REGEX] — every run of tests/kernels/runs.txt under --engine jit and --engine interp
# gives the same execution counters (--stats: warp and thread instructions, divergence, barriers, memory
# requests, ...): the JIT runs the same instructions on the same lanes, in the same time slices (README
# "Engines"). The outputs themselves are compared by the kernel.jit.* tests. Exit 0 when all agree.
set -u
WARPVM=$1
FILTER=${2:-.}
cd "$(dirname "$0")/../kernels" || exit 2
fail=0 n=0
while read -r id ptx rest; do
  [[ "$id" =~ ^[A-Za-z0-9] ]] || continue
  [[ "$id" =~ $FILTER ]] || continue
  n=$((n + 1))
  # shellcheck disable=SC2086
  a=$(eval "$WARPVM" run "$ptx" $rest --engine interp --stats 2>&1 >/dev/null | grep -vE '^(jit_|kernel_seconds)')
  # shellcheck disable=SC2086
  b=$(eval "$WARPVM" run "$ptx" $rest --engine jit --stats 2>&1 >/dev/null | grep -vE '^(jit_|kernel_seconds)')
  if [ "$a" != "$b" ]; then
    # a run whose counters vary from run to run under one engine (cp.async completion, host timing) has nothing
    # to compare: two more runs of each engine must all agree with their first before a difference counts
    varies=0
    for e in interp jit; do
      for _ in 1 2; do
        # shellcheck disable=SC2086
        c=$(eval "$WARPVM" run "$ptx" $rest --engine $e --stats 2>&1 >/dev/null | grep -vE '^(jit_|kernel_seconds)')
        { [ "$e" = interp ] && [ "$c" != "$a" ]; } || { [ "$e" = jit ] && [ "$c" != "$b" ]; } && varies=1
      done
    done
    if [ $varies -eq 1 ]; then
      echo "skip $id: its counters differ from run to run"
      continue
    fi
    fail=1
    echo "FAIL $id: the counters differ between --engine interp and --engine jit"
    diff <(echo "$a") <(echo "$b") | head -20
  fi
done <runs.txt
echo "same_counts: $n runs checked"
exit $fail
