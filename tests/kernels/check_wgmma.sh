#!/usr/bin/env bash
# check_wgmma.sh WARPVM_CLI — runs every `wgmma.*` line of runs.txt under warpvm and checks the outputs with
# check_wgmma.py (an independent Python model of wgmma: exact for integers, within rounding for floats). The GPU's
# recording (golden/wgmma.*.out, once recorded) decides the bits; this checks layouts, fragments and operands.
# Exit: 0 all plausible, 1 not, 2 usage, 77 no python3 (CTest: skipped).
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 WARPVM_CLI" >&2; exit 2; }
WV=$1
KDIR=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cd "$KDIR" || exit 1
rc=0
while read -r id ptx rest; do
  read -ra args <<<"$rest"
  "$WV" run "$ptx" "${args[@]}" >"$OUT/$id.out" 2>"$OUT/$id.err" || { echo "FAIL: $id: $(head -c 300 "$OUT/$id.err")"; rc=1; }
done < <(grep '^wgmma\.' runs.txt)
python3 check_wgmma.py "$OUT" || rc=1
exit $rc
