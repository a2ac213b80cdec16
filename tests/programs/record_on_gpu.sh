#!/usr/bin/env bash
# record_on_gpu.sh [OUT] — record the test programs' ground truth on a real NVIDIA GPU, unattended.
#
# On a machine with nvcc and a GPU (no network needed), from anywhere in a copy of the repository:
#   bash tests/programs/record_on_gpu.sh "$OUT"
# records the suite tests/programs; WV_SUITE=DIR (tests/apps/record_on_gpu.sh sets it) records another suite.
# 1. builds every variant of every program of programs.txt with build.sh (JOBS at a time, default: all cores);
# 2. runs each build directly on the GPU (no warpvm), one at a time so that programs checking free memory see
#    no other process, twice (the second pass only checks that the output is reproducible), capturing stdout,
#    stderr and the exit code;
# 3. checks that all variants of a program printed the same (stdout, exit code, and for `stderr` programs of
#    expect.txt the stderr lines matching its regex);
# 4. writes OUT/golden/NAME.stdout, NAME.exit (and NAME.stderr) from the program's first variant,
#    OUT/golden.tgz (the same golden/ folder in one file), OUT/raw.tgz (every variant's full stdout, stderr and
#    exit code of both passes, and the build logs) and OUT/PROVENANCE.md (machine, driver, nvcc, date,
#    commands, per-program variants and every discrepancy).
# Programs of kind `error` in expect.txt (builds warpvm must refuse) are built and run too, as a check that
# they work on a GPU, but get no golden files.
# Then: copy OUT/golden/* (or unpack OUT/golden.tgz) and OUT/PROVENANCE.md into the suite's golden/.
# Environment: JOBS (parallel builds), RUN_TIMEOUT (seconds per run, default 60), CUDA_HOME.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OUT=${1:-${OUT:-$PWD/gpu_out}}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 8)}
T0=$(date +%s)
NVCC_BIN=$(find_nvcc) || { echo "record_on_gpu: nvcc not found" >&2; exit 1; }
CUDA=${CUDA_HOME:-$(cd "$(dirname "$NVCC_BIN")/.." && pwd)}
# The programs use the shared runtime: let the loader find NVIDIA's libcudart.so.13 (nvcc sets no rpath).
export LD_LIBRARY_PATH="$CUDA/lib64:$CUDA/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT/golden" || exit 1
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
BIN=$WORK/bin
mkdir -p "$BIN" "$WORK/raw/pass1" "$WORK/raw/pass2" "$WORK/raw/build"

# --- the (program, variant) pairs
: >"$WORK/pairs"
while read -r name variants _; do
  IFS=, read -r -a vs <<<"$variants"
  for v in "${vs[@]}"; do echo "$name $v" >>"$WORK/pairs"; done
done < <(program_entries)
npairs=$(wc -l <"$WORK/pairs")
echo "record_on_gpu: $npairs builds of $(program_entries | wc -l) programs, $JOBS at a time"

# --- 1. build, in parallel
while read -r name v; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  (
    bash "$PROGRAMS_DIR/build.sh" "$BIN" "$name" "$v" >"$WORK/raw/build/$name.$v.log" 2>&1
    echo $? >"$WORK/raw/build/$name.$v.rc"
  ) &
done <"$WORK/pairs"
wait
T_BUILD=$(($(date +%s) - T0))
build_fail=()
while read -r name v; do
  [ "$(cat "$WORK/raw/build/$name.$v.rc")" = 0 ] || build_fail+=("$name.$v")
done <"$WORK/pairs"
echo "record_on_gpu: built in ${T_BUILD}s; ${#build_fail[@]} failed"

# --- 2. run, one at a time, twice
for pass in pass1 pass2; do
  while read -r name v; do
    [ -x "$BIN/$name.$v" ] || continue
    load_program "$name"
    r=$WORK/raw/$pass/$name.$v
    (cd "$BIN" && timeout -k 5 "${RUN_TIMEOUT:-60}" "./$name.$v" "${P_ARGS[@]}" >"$r.stdout" 2>"$r.stderr" </dev/null)
    echo $? >"$r.exit"
  done <"$WORK/pairs"
done
T_RUN=$(($(date +%s) - T0 - T_BUILD))
echo "record_on_gpu: ran in ${T_RUN}s"

# --- 3./4. compare the variants, write the goldens
# filtered R NAME: the part of run R (a path without extension) that a golden holds, as FILE.stdout/.exit/.stderr
filtered() {
  local r=$1 name=$2 dst=$3 kind regex
  read -r kind regex <<<"$(expect_kind "$name")"
  cp "$r.stdout" "$dst.stdout"
  cp "$r.exit" "$dst.exit"
  rm -f "$dst.stderr"
  if [ "${kind:-}" = stderr ]; then grep -E -e "$regex" "$r.stderr" >"$dst.stderr"; fi
  return 0
}
report=$WORK/report
: >"$report"
failed=() variant_diffs=() pass_diffs=()
while read -r name variants _; do
  IFS=, read -r -a vs <<<"$variants"
  read -r kind regex <<<"$(expect_kind "$name")"
  ref=${vs[0]}
  line="| \`$name\` | ${variants//,/, } |"
  if [ ! -f "$WORK/raw/pass1/$name.$ref.exit" ]; then
    echo "$line not built |" >>"$report"
    continue
  fi
  mkdir -p "$WORK/f/$name"
  for v in "${vs[@]}"; do
    [ -f "$WORK/raw/pass1/$name.$v.exit" ] || continue
    filtered "$WORK/raw/pass1/$name.$v" "$name" "$WORK/f/$name/$v"
    filtered "$WORK/raw/pass2/$name.$v" "$name" "$WORK/f/$name/$v.2"
    for ext in stdout exit stderr; do
      [ -f "$WORK/f/$name/$v.$ext" ] || continue
      cmp -s "$WORK/f/$name/$v.$ext" "$WORK/f/$name/$v.2.$ext" || pass_diffs+=("$name.$v.$ext")
      if [ "$v" != "$ref" ] && ! cmp -s "$WORK/f/$name/$ref.$ext" "$WORK/f/$name/$v.$ext"; then
        variant_diffs+=("$name: $v.$ext differs from $ref.$ext")
        diff "$WORK/f/$name/$ref.$ext" "$WORK/f/$name/$v.$ext" | head -n 20 | sed 's/^/    /' >>"$WORK/variant_diff_text"
      fi
    done
  done
  code=$(cat "$WORK/f/$name/$ref.exit")
  summary=$(tail -n 1 "$WORK/f/$name/$ref.stdout" | cut -c1-100)
  if [ "${kind:-}" = error ]; then
    echo "$line (no golden: warpvm must refuse this build) exit $code, last line: \`$summary\` |" >>"$report"
  else
    for ext in stdout exit stderr; do
      [ -f "$WORK/f/$name/$ref.$ext" ] && cp "$WORK/f/$name/$ref.$ext" "$OUT/golden/$name.$ext"
    done
    echo "$line exit $code, last line: \`$summary\` |" >>"$report"
  fi
  [ "$code" = 0 ] || failed+=("$name.$ref (exit $code): $(grep -m3 'FAIL' "$WORK/f/$name/$ref.stdout" | tr '\n' ' ')")
done < <(program_entries)
tar -C "$WORK" -czf "$OUT/raw.tgz" raw
tar -C "$OUT" -czf "$OUT/golden.tgz" golden  # the same files in one, for transports that limit the file count

# --- PROVENANCE.md
{
  echo "# Provenance of $SUITE_REL/golden"
  echo
  echo "Every \`NAME.stdout\`, \`NAME.exit\` (and \`NAME.stderr\`: the stderr lines matching the regex of"
  echo "\`expect.txt\`) is what the program's first variant in \`programs.txt\` printed when run directly on a real"
  echo "GPU, built by \`build.sh\` with nvcc. No value here was written by hand."
  echo
  echo "## Machine"
  echo
  echo "| | |"
  echo "| --- | --- |"
  echo "| recorded | $(date -u '+%Y-%m-%d %H:%M:%S UTC') |"
  echo "| GPU | $(nvidia-smi --query-gpu=name,compute_cap,memory.total --format=csv,noheader 2>&1 | head -n 4 | tr '\n' ';') |"
  echo "| driver | $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1 | head -n1) ($(nvidia-smi 2>&1 | grep -m1 -o 'CUDA Version: [0-9.]*')) |"
  echo "| host | $(uname -srm) |"
  echo "| nvcc | \`$NVCC_BIN\`: $("$NVCC_BIN" --version 2>&1 | grep -m1 -i 'release' | sed 's/^[[:space:]]*//') |"
  echo "| LD_LIBRARY_PATH | \`$LD_LIBRARY_PATH\` |"
  echo "| programs.txt | sha256 $(sha256sum "$SUITE_DIR/programs.txt" | cut -d' ' -f1) |"
  [ -f "$SUITE_DIR/expect.txt" ] && echo "| expect.txt | sha256 $(sha256sum "$SUITE_DIR/expect.txt" | cut -d' ' -f1) |"
  echo "| sources | sha256 of the sorted sha256s of $SUITE_REL/**/*.{cu,h}, tests/programs/*.h and examples/*.cu: $(cd "$PROGRAMS_DIR/../.." && sha256sum "$SUITE_REL"/*.cu "$SUITE_REL"/*.h "$SUITE_REL"/*/*.cu "$SUITE_REL"/*/*.h tests/programs/*.h examples/*.cu 2>/dev/null | sort -u | sha256sum | cut -d' ' -f1) |"
  echo
  echo "## How"
  echo
  echo "    $0 $*   (JOBS=$JOBS, RUN_TIMEOUT=${RUN_TIMEOUT:-60})"
  echo
  echo "Each build: \`build.sh OUTDIR NAME VARIANT\`, i.e. from $SUITE_REL/"
  echo "\`nvcc -O2 -std=c++17 VARIANT-FLAGS PROGRAM-FLAGS SOURCES -o NAME.VARIANT\` (several sources: \`-c\` each, then"
  echo "linked by nvcc); each run: \`cd BUILD && ./NAME.VARIANT ARGS > stdout 2> stderr\`, one at a time, twice."
  echo "$npairs builds in ${T_BUILD} s ($JOBS at a time), runs (both passes) in ${T_RUN} s, total $(($(date +%s) - T0)) s."
  echo
  echo "## Programs"
  echo
  echo "| program | variants (the first is the golden's source) | result on the GPU |"
  echo "| --- | --- | --- |"
  cat "$report"
  echo
  echo "## Discrepancies"
  echo
  echo "- builds that failed: ${#build_fail[@]}"
  for b in "${build_fail[@]}"; do
    echo "  - \`$b\`:"
    head -n 15 "$WORK/raw/build/$b.log" | sed 's/^/        /'
  done
  echo "- programs whose first variant exited non-zero: ${#failed[@]}"
  for f in "${failed[@]}"; do echo "  - $f"; done
  echo "- variants that differ from their program's first variant: ${#variant_diffs[@]}"
  for d in "${variant_diffs[@]}"; do echo "  - $d"; done
  [ -s "$WORK/variant_diff_text" ] && cat "$WORK/variant_diff_text"
  echo "- runs whose second pass differed from the first: ${#pass_diffs[@]}"
  for d in "${pass_diffs[@]}"; do echo "  - $d"; done
  if load_program assert; then
    echo
    echo "## Where the device's assert message went"
    echo
    for v in "${P_VARIANTS[@]}"; do
      r=$WORK/raw/pass1/assert.$v
      [ -f "$r.exit" ] || continue
      echo "- assert.$v: stdout lines with 'Assertion': $(grep -c Assertion "$r.stdout"); stderr lines with 'Assertion': $(grep -c Assertion "$r.stderr"); full stderr:"
      head -n 10 "$r.stderr" | sed 's/^/        /'
    done
  fi
  echo
  echo "## nvidia-smi"
  echo
  nvidia-smi 2>&1 | sed 's/^/    /'
} >"$OUT/PROVENANCE.md"

echo "record_on_gpu: $(find "$OUT/golden" -type f | wc -l) golden files in $OUT/golden; total $(($(date +%s) - T0)) s"
echo "record_on_gpu: build failures ${#build_fail[@]}, non-zero exits ${#failed[@]}, variant differences ${#variant_diffs[@]}, pass differences ${#pass_diffs[@]}"
[ "${#build_fail[@]}" = 0 ] && [ "${#failed[@]}" = 0 ] && [ "${#variant_diffs[@]}" = 0 ] && [ "${#pass_diffs[@]}" = 0 ]
