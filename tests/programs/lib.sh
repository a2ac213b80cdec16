# lib.sh — shared by build.sh, run_one.sh and record_on_gpu.sh (sourced, not run): reading a suite's programs.txt
# and expect.txt, finding nvcc, and what each variant's nvcc flags are.
#
# A suite is a folder holding programs.txt, the sources it names, golden/ and optionally expect.txt: this folder
# (tests/programs, the default) or another one named by the environment variable WV_SUITE (tests/apps).
# shellcheck shell=bash
# shellcheck disable=SC2034  # P_* and V_FLAGS are for the scripts that source this file

PROGRAMS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)  # the scripts and check.h
SUITE_DIR=$(cd "${WV_SUITE:-$PROGRAMS_DIR}" && pwd) || return 1
# SUITE_REL: the suite's folder relative to the repository root (for messages and PROVENANCE.md)
SUITE_REL=$(realpath --relative-to="$PROGRAMS_DIR/../.." "$SUITE_DIR")

# find_nvcc (tests/lib/nvcc.sh)
# shellcheck source=../lib/nvcc.sh
source "$PROGRAMS_DIR/../lib/nvcc.sh"

# program_entries: every program line of programs.txt, comments and blank lines removed.
program_entries() {
  grep -v '^[[:space:]]*\(#\|$\)' "$SUITE_DIR/programs.txt"
}

# load_program NAME: sets P_VARIANTS (array), P_SOURCES (array), P_FLAGS (array), P_ARGS (array);
# returns 1 if NAME is not in programs.txt.
load_program() {
  local line variants sources rest
  line=$(program_entries | awk -v n="$1" '$1 == n' | head -n1)
  [ -n "$line" ] || return 1
  read -r _ variants sources rest <<<"$line"
  IFS=, read -r -a P_VARIANTS <<<"$variants"
  IFS=, read -r -a P_SOURCES <<<"$sources"
  P_FLAGS=() P_ARGS=()
  local in_args=0 w
  # shellcheck disable=SC2086  # split the flags and arguments on blanks, as written
  for w in $rest; do
    if [ "$in_args" = 0 ] && [ "$w" = -- ]; then
      in_args=1
    elif [ "$in_args" = 0 ]; then
      P_FLAGS+=("$w")
    else
      P_ARGS+=("$w")
    fi
  done
}

# variant_flags VARIANT: sets V_FLAGS (array), the nvcc flags that make the variant; returns 1 if unknown.
variant_flags() {
  case "$1" in
    sm80) V_FLAGS=(-cudart shared -arch=sm_80) ;;
    sm90) V_FLAGS=(-cudart shared -arch=sm_90) ;;
    sm90a) V_FLAGS=(-cudart shared -arch=sm_90a) ;;  # Hopper's arch-specific features (wgmma, setmaxnreg)
    sm90-none | sm90-speed | sm90-balance | sm90-size)
      V_FLAGS=(-cudart shared -arch=sm_90 -Xfatbin "-compress-mode=${1#sm90-}") ;;
    static) V_FLAGS=(-arch=sm_90) ;;  # nvcc's default: the static runtime, linked into the program
    sass90) V_FLAGS=(-cudart shared -gencode "arch=compute_90,code=sm_90") ;;  # SASS only, no PTX
    *) return 1 ;;
  esac
}

# cutlass_dir: prints the folder holding CUTLASS's include/ and tools/util/include/ ($WV_CUTLASS, else the
# nvidia-cutlass wheel's copy in the venv scripts/setup_python.sh makes); returns 1 if there is none.
cutlass_dir() {
  local d
  for d in "${WV_CUTLASS:-}" "$PROGRAMS_DIR"/../../build-pyenv/lib/python3*/site-packages/cutlass_library/source; do
    if [ -n "$d" ] && [ -f "$d/include/cutlass/cutlass.h" ]; then
      (cd "$d" && pwd)
      return 0
    fi
  done
  return 1
}

# expect_kind NAME: prints "KIND REGEX" from expect.txt, or nothing (also when the suite has no expect.txt).
expect_kind() {
  [ -f "$SUITE_DIR/expect.txt" ] || return 0
  awk -v n="$1" '!/^[[:space:]]*(#|$)/ && $1 == n {
      sub(/^[[:space:]]*[^[:space:]]+[[:space:]]+/, ""); print; exit }' "$SUITE_DIR/expect.txt"
}
