#!/usr/bin/env bash
# run.sh — fuzzes warpvm with the libFuzzer harnesses of tests/fuzz (see README.md there).
#
#   tests/fuzz/run.sh [--coverage] [--smoke] [--build DIR] [SECONDS] [TARGET...]
#
# Builds the harnesses in DIR (default build-fuzz, clang-14, -DWV_FUZZ=ON) if needed, makes the seeds
# (make_seeds.sh) and the dictionaries (make_dict.sh), then runs each TARGET (default: all of ptx fatbin
# fatbin_wrapper elf gcn cudart) for SECONDS (default 30) on its corpus DIR/corpus/TARGET, which keeps
# growing from run to run. Prints per target the executions, executions per second, libFuzzer's
# coverage counts (cov: edges reached, ft: features), the corpus size and the verdict, and appends
# them to DIR/fuzz-report.txt. A crash, hang (-timeout), leak, out-of-memory (-rss_limit_mb) or
# broken promise (WVF_CHECK) fails the run (exit 1) and leaves the reproducer in DIR/artifacts/TARGET/
# (replay it with `DIR/tests/fuzz/fuzz_TARGET FILE`). Exit 77 when clang-14 or libFuzzer is missing.
#
# --smoke     start from the seeds alone, in DIR/corpus-smoke (emptied first), so a short run always
#             fuzzes for its SECONDS instead of replaying a corpus grown by long runs (scripts/test.sh)
# --coverage  afterwards, builds DIR-cov (-DWV_FUZZ_COVERAGE=ON: clang's source-based coverage, no
#             sanitizers), replays every target's corpus and seeds once and prints the line coverage
#             of src/ per target, then per stage over all targets (llvm-profdata-14, llvm-cov-14); an
#             HTML report goes to DIR-cov/html. `run.sh --coverage 0` measures the corpus as it is.
# Environment: CC (default clang-14); FUZZ_ARGS, more libFuzzer flags for every target (e.g.
# "-jobs=4 -workers=4" for long runs on more cores; each job then logs to DIR/logs/fuzz-N.log, and the
# table shows only the verdict).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
coverage=0 smoke=0 build="$src/build-fuzz" secs=30 targets=()
all=(ptx fatbin fatbin_wrapper elf gcn cudart)
while [ $# -gt 0 ]; do
  case "$1" in
    --coverage) coverage=1 ;;
    --smoke) smoke=1 ;;
    --build) build=$(realpath -m "$2"); shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    [0-9]*) secs=$1 ;;
    *) [[ " ${all[*]} " == *" $1 "* ]] || { echo "run.sh: unknown target '$1' (${all[*]})" >&2; exit 2; }
       targets+=("$1") ;;
  esac
  shift
done
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# Per target: -max_len, -timeout (seconds one input may take), dictionary.
declare -A max_len=([ptx]=65536 [fatbin]=131072 [fatbin_wrapper]=131072 [elf]=1048576 [gcn]=16384 [cudart]=4096)
declare -A timeout=([ptx]=30 [fatbin]=10 [fatbin_wrapper]=10 [elf]=10 [gcn]=30 [cudart]=30)
declare -A dict=([ptx]=ptx.dict [gcn]=gcn.dict)
RSS_MB=2048

cc=${CC:-clang-14}
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "run.sh: $cc not found (scripts/setup.sh installs clang-14): fuzzing skipped"; exit 77
fi
if [ ! -f "$("$cc" -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]; then
  echo "run.sh: $cc has no libFuzzer (libclang_rt.fuzzer-x86_64.a): fuzzing skipped"; exit 77
fi

configure() { # DIR EXTRA-CMAKE-ARGS...
  local dir=$1; shift
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    CC=$cc cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWV_FUZZ=ON "$@" >/dev/null || return 1
  fi
  cmake --build "$dir" --target fuzz -j"$(nproc)" >"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log"; return 1; }
}
configure "$build" || { echo "run.sh: building the harnesses failed"; exit 1; }
bash "$here/make_dict.sh" "$src" "$build/dict" || exit 1
bash "$here/make_seeds.sh" "$src" "$build/seeds" "${max_len[ptx]}" || exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

field() { grep -o "$1 *[0-9]*" "$2" | tail -1 | grep -o '[0-9]*$'; }

failed=0
fuzzed=("${targets[@]}")
[ "$secs" -gt 0 ] || fuzzed=() # 0 seconds: no fuzzing, only --coverage of the corpus as it is
[ ${#fuzzed[@]} -eq 0 ] || printf '%-15s %6s %11s %8s %6s %7s %14s  %s\n' target seconds executions exec/s cov ft corpus result
for t in "${fuzzed[@]}"; do
  bin="$build/tests/fuzz/fuzz_$t" corpus="$build/corpus/$t" art="$build/artifacts/$t" log="$build/logs/$t.log"
  if [ $smoke -eq 1 ]; then corpus="$build/corpus-smoke/$t"; rm -rf "$corpus"; fi
  mkdir -p "$corpus" "$art" "$build/logs"
  args=(-max_total_time="$secs" -max_len="${max_len[$t]}" -timeout="${timeout[$t]}" -rss_limit_mb=$RSS_MB
        -close_fd_mask=1 -print_final_stats=1 -artifact_prefix="$art/")
  [ -n "${dict[$t]:-}" ] && args+=(-dict="$build/dict/${dict[$t]}")
  # shellcheck disable=SC2086
  (cd "$build/logs" && nice -n 10 "$bin" "${args[@]}" ${FUZZ_ARGS:-} "$corpus" "$build/seeds/$t" >"$log" 2>&1)
  rc=$?
  execs=$(field 'stat::number_of_executed_units:' "$log") rate=$(field 'stat::average_exec_per_sec:' "$log")
  last=$(grep -E '(DONE|NEW|REDUCE|pulse|INITED|RELOAD) +cov:' "$log" | tail -1)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*') ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*')
  corp=$(echo "$last" | grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' | cut -d' ' -f2)
  result=ok
  if [ $rc -ne 0 ]; then
    failed=1
    repro=$(grep -o 'Test unit written to .*' "$log" | tail -1 | sed 's/Test unit written to //')
    why=$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|fuzz check failed|out-of-memory' "$log" |
          sed 's/^==[0-9]*==//' | cut -c1-160)
    result="FAILED (exit $rc): ${why:-see $log}${repro:+; reproducer $repro}"
  fi
  line=$(printf '%-15s %6s %11s %8s %6s %7s %14s  %s' "$t" "$secs" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
         "${corp:-?}" "$result")
  echo "$line"
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $line" >> "$build/fuzz-report.txt"
done
[ $failed -eq 0 ] || echo "run.sh: a target failed: its log is $build/logs/TARGET.log"

if [ $coverage -eq 1 ]; then
  cov_dir="$build-cov"
  for tool in llvm-profdata-14 llvm-cov-14; do
    command -v $tool >/dev/null || { echo "run.sh: $tool not found (apt-get install llvm-14): no coverage"; exit 1; }
  done
  configure "$cov_dir" -DWV_FUZZ_COVERAGE=ON || { echo "run.sh: building the coverage harnesses failed"; exit 1; }
  rm -rf "$cov_dir/prof"; mkdir -p "$cov_dir/prof"
  objects=()
  echo
  printf '%-15s %9s %22s   (lines of src/ linked into the harness, over its corpus and seeds)\n' target inputs "line coverage"
  for t in "${targets[@]}"; do
    bin="$cov_dir/tests/fuzz/fuzz_$t"
    objects+=(-object "$bin")
    n=$(find "$build/corpus/$t" "$build/seeds/$t" -type f | wc -l)
    if ! LLVM_PROFILE_FILE="$cov_dir/prof/$t.%p.profraw" "$bin" -runs=0 -max_len="${max_len[$t]}" \
         -timeout="${timeout[$t]}" -rss_limit_mb=$RSS_MB -close_fd_mask=1 "$build/corpus/$t" "$build/seeds/$t" \
         >"$cov_dir/prof/$t.log" 2>&1; then
      # An input crashed, which ends the replay: one process per input instead (crashes counted, not measured).
      rm -f "$cov_dir"/prof/"$t".*.profraw
      crashed=0
      while IFS= read -r f; do
        LLVM_PROFILE_FILE="$cov_dir/prof/$t.%p.profraw" "$bin" -runs=1 -timeout="${timeout[$t]}" \
          -rss_limit_mb=$RSS_MB -close_fd_mask=1 "$f" >>"$cov_dir/prof/$t.log" 2>&1 || crashed=$((crashed + 1))
      done < <(find "$build/corpus/$t" "$build/seeds/$t" -type f)
      echo "run.sh: $crashed inputs of $t crash (not counted in its coverage)"
    fi
    llvm-profdata-14 merge -sparse "$cov_dir"/prof/"$t".*.profraw -o "$cov_dir/prof/$t.profdata"
    total=$(llvm-cov-14 report "$bin" -instr-profile="$cov_dir/prof/$t.profdata" -ignore-filename-regex='tests/|/usr/' 2>/dev/null |
            awk '$1 == "TOTAL" { printf "%d/%d (%s)", $8 - $9, $8, $10 }')
    printf '%-15s %9s %22s\n' "$t" "$n" "$total"
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) coverage $t: $n inputs, lines $total" >> "$build/fuzz-report.txt"
  done
  llvm-profdata-14 merge -sparse "$cov_dir"/prof/*.profraw -o "$cov_dir/prof/all.profdata"
  echo
  echo "all targets together, lines of src/ by stage:"
  llvm-cov-14 report "${objects[@]:1}" -instr-profile="$cov_dir/prof/all.profdata" -ignore-filename-regex='tests/|/usr/' 2>/dev/null |
    awk '$1 ~ /^src\// || $1 ~ /\/src\// { sub(/.*src\//, "src/", $1); split($1, p, "/"); d = p[1] "/" p[2];
           lines[d] += $8; missed[d] += $9 }
         $1 == "TOTAL" { tl = $8; tm = $9 }
         END { for (d in lines) printf "  %-12s %6d/%-6d %5.1f%%\n", d, lines[d] - missed[d], lines[d], 100 * (lines[d] - missed[d]) / lines[d];
               printf "  %-12s %6d/%-6d %5.1f%%\n", "total", tl - tm, tl, 100 * (tl - tm) / tl }' | sort
  llvm-cov-14 show "${objects[@]:1}" -instr-profile="$cov_dir/prof/all.profdata" -ignore-filename-regex='tests/|/usr/' \
    -format=html -output-dir="$cov_dir/html" >/dev/null 2>&1 && echo "HTML report: $cov_dir/html/index.html"
fi
exit $failed
