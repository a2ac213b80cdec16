#!/usr/bin/env bash
# run_one.sh WARPVM_CLI SRCDIR BUILDDIR NAME VARIANT — one CTest test: build a program variant (build.sh), run
# `WARPVM_CLI ./NAME.VARIANT ARGS...` in BUILDDIR and compare with what the GPU printed:
#   stdout      exactly golden/NAME.stdout
#   exit code   exactly golden/NAME.exit
#   stderr      only for programs of kind `stderr` in expect.txt: the lines matching its regex must equal
#               golden/NAME.stderr (the rest of stderr, e.g. warpvm's own fault report, is not compared)
# Programs of kind `error` in expect.txt instead must exit non-zero with a stderr line matching the regex.
# SRCDIR is the suite's folder (tests/programs, tests/apps: see lib.sh). The run's output stays in
# BUILDDIR/out/NAME.VARIANT.{stdout,stderr}.
# Exit status: 0 pass; 1 fail; 77 skipped (no nvcc, or no golden recorded yet); 2 usage.
# Environment: WV_TIMEOUT seconds for the run (default 120).
set -uo pipefail
if [ $# -ne 5 ]; then
  echo "usage: $0 WARPVM_CLI SRCDIR BUILDDIR NAME VARIANT" >&2
  exit 2
fi
WV=$1 SRCDIR=$2 BUILDDIR=$3 NAME=$4 VARIANT=$5
export WV_SUITE=$SRCDIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
GOLDEN=$SUITE_DIR/golden

bash "$PROGRAMS_DIR/build.sh" "$BUILDDIR" "$NAME" "$VARIANT"
rc=$?
[ "$rc" = 0 ] || exit $((rc == 77 ? 77 : rc == 2 ? 2 : 1))
load_program "$NAME" || exit 2
read -r KIND REGEX <<<"$(expect_kind "$NAME")"
: "${KIND:=}" "${REGEX:=}"

mkdir -p "$BUILDDIR/out"
OUTP=$BUILDDIR/out/$NAME.$VARIANT
cd "$BUILDDIR" || exit 1
echo "run: (cd $BUILDDIR && $WV ./$NAME.$VARIANT ${P_ARGS[*]})"
timeout -k 10 "${WV_TIMEOUT:-120}" "$WV" "./$NAME.$VARIANT" "${P_ARGS[@]}" >"$OUTP.stdout" 2>"$OUTP.stderr" </dev/null
code=$?
echo "exit code: $code"

if [ "$KIND" = error ]; then
  ok=1
  [ "$code" != 0 ] || { echo "FAIL: warpvm ran a program it must refuse (exit code 0)"; ok=0; }
  grep -Eq -e "$REGEX" "$OUTP.stderr" || { echo "FAIL: no stderr line matches /$REGEX/ (expect.txt)"; ok=0; }
  echo "--- stderr"
  head -n 20 "$OUTP.stderr"
  [ "$ok" = 1 ] && echo "PASS: refused with a message matching /$REGEX/"
  exit $((1 - ok))
fi

files=(stdout exit)
[ "$KIND" = stderr ] && files+=(stderr)
for f in "${files[@]}"; do
  if [ ! -f "$GOLDEN/$NAME.$f" ]; then
    echo "--- stderr (last 10 lines)"
    tail -n 10 "$OUTP.stderr"
    echo "SKIP: no $GOLDEN/$NAME.$f yet (record it on a GPU: see README.md)"
    exit 77
  fi
done
ok=1
if ! diff -u --label "golden/$NAME.stdout (GPU)" --label "stdout (warpvm)" "$GOLDEN/$NAME.stdout" "$OUTP.stdout"; then
  echo "FAIL: stdout differs from the GPU's"
  ok=0
fi
want=$(tr -d '[:space:]' <"$GOLDEN/$NAME.exit")
if [ "$code" != "$want" ]; then
  echo "FAIL: exit code $code, the GPU's was $want"
  ok=0
fi
if [ "$KIND" = stderr ]; then
  if ! { grep -E -e "$REGEX" "$OUTP.stderr" || true; } |
    diff -u --label "golden/$NAME.stderr (GPU, lines matching /$REGEX/)" --label "stderr (warpvm), same lines" \
      "$GOLDEN/$NAME.stderr" -; then
    echo "FAIL: the stderr lines matching /$REGEX/ differ from the GPU's"
    ok=0
  fi
fi
if [ "$ok" = 0 ]; then
  echo "--- stderr (last 30 lines)"
  tail -n 30 "$OUTP.stderr"
  exit 1
fi
echo "PASS: $NAME.$VARIANT printed what the GPU printed"
exit 0
