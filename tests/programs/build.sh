#!/usr/bin/env bash
# build.sh OUTDIR NAME VARIANT — builds one variant of a test program (programs.txt) into OUTDIR/NAME.VARIANT.
#
# Every build is `nvcc -O2 -std=c++17 VARIANT-FLAGS PROGRAM-FLAGS`, run from the suite's folder (tests/programs/,
# or $WV_SUITE: see lib.sh) with relative source paths (so __FILE__, which a failed assert prints, is the same
# everywhere). -O2 sets the host compiler's level only: nvcc's device code (the PTX) is the same at any -O.
# A program of several sources is compiled one file at a time (-c, in parallel) and then linked by nvcc (which
# also device-links -rdc=true code).
# Idempotent: nothing is done while OUTDIR/NAME.VARIANT is newer than its sources, the headers of the suite and
# of tests/programs, this script, lib.sh and programs.txt, and was built by the same command
# (OUTDIR/NAME.VARIANT.cmd). With WV_NVCC_CACHE set, a build of the same command from the same inputs is copied
# from that folder instead of compiled again (see below).
# Exit status: 0 built or up to date; 77 no nvcc, or no CUTLASS for a program that needs it (CTest: skipped);
# 2 usage; 1 the build failed.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -ne 3 ]; then
  echo "usage: $0 OUTDIR NAME VARIANT" >&2
  exit 2
fi
OUTDIR=$1 NAME=$2 VARIANT=$3
NVCC_BIN=$(find_nvcc) || {
  echo "build.sh: nvcc not found (set NVCC, put it on PATH, or install CUDA in /usr/local/cuda): skipped" >&2
  exit 77
}
load_program "$NAME" || { echo "build.sh: no program '$NAME' in programs.txt" >&2; exit 2; }
variant_flags "$VARIANT" || { echo "build.sh: unknown variant '$VARIANT'" >&2; exit 2; }
case ",$(IFS=,; echo "${P_VARIANTS[*]}")," in
  *",$VARIANT,"*) ;;
  *) echo "build.sh: '$NAME' has no variant '$VARIANT' (programs.txt lists: ${P_VARIANTS[*]})" >&2; exit 2 ;;
esac

mkdir -p "$OUTDIR" || exit 1
OUTDIR=$(cd "$OUTDIR" && pwd)
BIN=$OUTDIR/$NAME.$VARIANT
# @CUTLASS@ in a program's flags: the CUTLASS headers (PyPI's nvidia-cutlass); without them the program is skipped
case " ${P_FLAGS[*]} " in
  *@CUTLASS@*)
    CUTLASS=$(cutlass_dir) || {
      echo "build.sh: $NAME needs CUTLASS's headers (bash scripts/setup_python.sh, or WV_CUTLASS=DIR): skipped" >&2
      exit 77
    }
    P_FLAGS=("${P_FLAGS[@]//@CUTLASS@/$CUTLASS}") ;;
esac
FLAGS=(-O2 -std=c++17 "${V_FLAGS[@]}" "${P_FLAGS[@]}")
CMD="$NVCC_BIN ${FLAGS[*]} ${P_SOURCES[*]}"

# --- up to date?
cd "$SUITE_DIR" || exit 1
inputs=("${P_SOURCES[@]}")  # what the compiler reads from the repository: the sources and the headers near them
for h in ./*.h "$PROGRAMS_DIR"/*.h; do [ -e "$h" ] && inputs+=("$h"); done
for s in "${P_SOURCES[@]}"; do
  for h in "$(dirname "$s")"/*.h; do [ -e "$h" ] && inputs+=("$h"); done
done
deps=("${inputs[@]}" "$PROGRAMS_DIR/build.sh" "$PROGRAMS_DIR/lib.sh" "$SUITE_DIR/programs.txt")
fresh=0
if [ -x "$BIN" ] && [ "$(cat "$BIN.cmd" 2>/dev/null)" = "$CMD" ]; then
  fresh=1
  for d in "${deps[@]}"; do
    if [ "$d" -nt "$BIN" ]; then fresh=0; break; fi
  done
fi

# --- in the cache? WV_NVCC_CACHE names a folder that build trees share (scripts/test.sh's two builds): a build
# is kept there under a hash of the command, nvcc's version and the contents of the inputs, and copied out again.
# cache_store FILE: keep FILE there (a cache that cannot be written is no error).
KEY=""
cache_store() {
  [ -n "$KEY" ] && [ ! -e "$WV_NVCC_CACHE/$KEY" ] && mkdir -p "$WV_NVCC_CACHE" &&
    cp "$1" "$WV_NVCC_CACHE/.$KEY.$$" && mv -f "$WV_NVCC_CACHE/.$KEY.$$" "$WV_NVCC_CACHE/$KEY"
  return 0
}
if [ -n "${WV_NVCC_CACHE:-}" ]; then
  KEY=$({ echo "$CMD"; "$NVCC_BIN" --version; cat "${inputs[@]}"; } | sha256sum | cut -c1-40)
fi
if [ "$fresh" = 1 ]; then
  cache_store "$BIN"
  exit 0
fi
if [ -n "$KEY" ] && [ -x "$WV_NVCC_CACHE/$KEY" ] && cp "$WV_NVCC_CACHE/$KEY" "$BIN.$$" && mv -f "$BIN.$$" "$BIN"; then
  echo "$CMD" >"$BIN.cmd"
  exit 0
fi

# --- build into a private folder, then move into place
WORK=$(mktemp -d "$OUTDIR/.build.$NAME.$VARIANT.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
LOG=$WORK/log
if [ "${#P_SOURCES[@]}" = 1 ]; then
  "$NVCC_BIN" "${FLAGS[@]}" "${P_SOURCES[0]}" -o "$WORK/bin" >"$LOG" 2>&1
  rc=$?
else
  objs=() pids=()
  for s in "${P_SOURCES[@]}"; do
    o=$WORK/$(basename "${s%.cu}").o
    objs+=("$o")
    "$NVCC_BIN" "${FLAGS[@]}" -c "$s" -o "$o" >"$o.log" 2>&1 &
    pids+=($!)
  done
  rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  cat "$WORK"/*.o.log >"$LOG"
  if [ "$rc" = 0 ]; then
    "$NVCC_BIN" "${FLAGS[@]}" "${objs[@]}" -o "$WORK/bin" >>"$LOG" 2>&1
    rc=$?
  fi
fi
if [ "$rc" != 0 ] || [ ! -x "$WORK/bin" ]; then
  echo "build.sh: building $NAME.$VARIANT failed: (cd $SUITE_DIR && $CMD)" >&2
  cat "$LOG" >&2
  exit 1
fi
echo "$CMD" >"$WORK/cmd"
cache_store "$WORK/bin"
mv -f "$WORK/bin" "$BIN" && mv -f "$WORK/cmd" "$BIN.cmd" || exit 1
exit 0
