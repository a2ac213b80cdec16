#!/usr/bin/env bash
# test_cli.sh — checks the `warpvm` command line: usage errors (malformed or out-of-range numbers among
# them), --help/--version, `list`, PTX error reports (FILE:LINE:COL: error: ...), device faults, the
# watchdog, --stats, output ordering, many --arg, and byte-for-byte agreement with ptxrun.
#
#   tests/cli/test_cli.sh WARPVM_BINARY SRC_DIR
#
# The kernels are hand-written (kernels.ptx, bad/*.ptx) or nvcc output (printf_order.ptx); they test
# error handling and the tool, not GPU values. Prints "N passed, M failed"; exits 1 on any failure.
set -u
if [ $# -ne 2 ]; then echo "usage: $0 WARPVM_BINARY SRC_DIR" >&2; exit 2; fi
WV=$1
SRC=$2
DIR=$SRC/tests/cli
K=$DIR/kernels.ptx
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
TIMEOUT=
command -v timeout >/dev/null 2>&1 && TIMEOUT="timeout 60"

# wv ARGS...: run warpvm; $rc, $TMP/out, $TMP/err hold the result.
wv() { $TIMEOUT "$WV" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

# check NAME WHY...: record the current test; WHY is empty when it passed.
problems=()
why() { problems+=("$*"); }
check() {
  if [ ${#problems[@]} -eq 0 ]; then
    pass=$((pass + 1)); echo "ok   $1"
  else
    fail=$((fail + 1)); echo "FAIL $1"
    for p in "${problems[@]}"; do echo "       $p"; done
    echo "       stdout: $(head -c 400 "$TMP/out" | tr '\n' '|')"
    echo "       stderr: $(head -c 400 "$TMP/err" | tr '\n' '|')"
  fi
  problems=()
}
want_rc() { [ "$rc" -eq "$1" ] || why "exit status $rc, want $1"; }
want_err() { grep -Eq -- "$1" "$TMP/err" || why "stderr lacks /$1/"; }
want_err_i() { grep -Eiq -- "$1" "$TMP/err" || why "stderr lacks /$1/ (any case)"; }
want_out() { grep -Eq -- "$1" "$TMP/out" || why "stdout lacks /$1/"; }
# The line of a marker comment in a file.
marker_line() { grep -n -- "$2" "$1" | head -n 1 | cut -d: -f1; }

# ---- usage errors: exit 1 and a usage line on stderr -------------------------------------------
usage_case() {
  local name=$1; shift
  wv "$@"
  want_rc 1
  want_err '^usage: warpvm '
  check "usage: $name"
}
usage_case "no command"
usage_case "unknown command" frobnicate
usage_case "run without arguments" run
usage_case "run without --kernel" run "$K"
usage_case "run with two files" run "$K" "$K" --kernel scale2
usage_case "unknown option" run "$K" --kernel scale2 --frob
usage_case "option without value" run "$K" --kernel
usage_case "bad --grid" run "$K" --kernel scale2 --grid x
usage_case "bad --max-steps" run "$K" --kernel spin --max-steps lots
usage_case "unknown --arg type" run "$K" --kernel scale2 --arg u16:3 --arg buf:4 --arg u32:1
usage_case "--arg without colon" run "$K" --kernel scale2 --arg buf
usage_case "zero-size buffer" run "$K" --kernel scale2 --arg buf:0 --arg buf:4 --arg u32:1
usage_case "unknown buffer fill" run "$K" --kernel scale2 --arg buf:8:ones --arg buf:4 --arg u32:1
usage_case "zero rand32 seed" run "$K" --kernel scale2 --arg buf:8:rand32:0 --arg buf:4 --arg u32:1
usage_case "too few --arg" run "$K" --kernel scale2 --arg buf:8
usage_case "--print of a scalar" run "$K" --kernel scale2 --arg buf:8 --arg buf:8 --arg u32:0 --print 2:u32
usage_case "--print index out of range" run "$K" --kernel scale2 --arg buf:8 --arg buf:8 --arg u32:0 --print 3:u32
usage_case "unknown --check" run "$K" --kernel scale2 --check racecheck
usage_case "bad --check list" run "$K" --kernel scale2 --check memcheck,
usage_case "--threads 0" run "$K" --kernel scale2 --threads 0
usage_case "--threads abc" run "$K" --kernel scale2 --threads abc
usage_case "--threads -2" run "$K" --kernel scale2 --threads -2
usage_case "--threads 1025" run "$K" --kernel scale2 --threads 1025
usage_case "--threads 2x" run "$K" --kernel scale2 --threads 2x
usage_case "--threads without a value" run "$K" --kernel scale2 --threads
usage_case "app: --threads 0" --threads 0 ./app
usage_case "app: --threads many" --threads many ./app
usage_case "list without file" list
usage_case "list with two files" list "$K" "$K"
usage_case "contractions without file" contractions
usage_case "contractions with an option" contractions --no-contract "$K"

# ---- numbers: whole, and within their type (warpvm is stricter than ptxrun here) -------------------
# Each malformed or out-of-range number is a usage error whose message names the argument.
bad_number() {
  local name=$1 want=$2; shift 2
  wv "$@"
  want_rc 1
  want_err '^usage: warpvm '
  grep -Fq -- "$want" "$TMP/err" || why "stderr does not name '$want'"
  check "bad number: $name"
}
S3="--arg buf:4 --arg buf:4"
bad_number "u32:abc" "u32:abc" run "$K" --kernel scale2 $S3 --arg u32:abc
bad_number "u32:99999999999 (out of range)" "u32:99999999999" run "$K" --kernel scale2 $S3 --arg u32:99999999999
bad_number "u32:4294967296" "u32:4294967296" run "$K" --kernel scale2 $S3 --arg u32:4294967296
bad_number "s32:-2147483649" "s32:-2147483649" run "$K" --kernel scale2 $S3 --arg s32:-2147483649
bad_number "u32:1.5" "u32:1.5" run "$K" --kernel scale2 $S3 --arg u32:1.5
bad_number "u32: (empty)" "u32:" run "$K" --kernel scale2 $S3 --arg u32:
bad_number "u32 with a leading space" "u32: 12" run "$K" --kernel scale2 $S3 --arg "u32: 12"
bad_number "u64:12junk" "u64:12junk" run "$K" --kernel scale2 $S3 --arg u64:12junk
bad_number "u64:18446744073709551616" "u64:18446744073709551616" run "$K" --kernel scale2 $S3 --arg u64:18446744073709551616
bad_number "s64:-9223372036854775809" "s64:-9223372036854775809" run "$K" --kernel scale2 $S3 --arg s64:-9223372036854775809
bad_number "s64:0x (no digits)" "s64:0x" run "$K" --kernel scale2 $S3 --arg s64:0x
bad_number "f32:xyz" "f32:xyz" run "$K" --kernel scale2 $S3 --arg f32:xyz
bad_number "f32:1e40 (overflows)" "f32:1e40" run "$K" --kernel scale2 $S3 --arg f32:1e40
bad_number "f64:1e400 (overflows)" "f64:1e400" run "$K" --kernel scale2 $S3 --arg f64:1e400
bad_number "f64:1.5x" "f64:1.5x" run "$K" --kernel scale2 $S3 --arg f64:1.5x
bad_number "buf:-1" "buf:-1" run "$K" --kernel scale2 --arg buf:-1 --arg buf:4 --arg u32:1
bad_number "buf:16x" "buf:16x" run "$K" --kernel scale2 --arg buf:16x --arg buf:4 --arg u32:1
bad_number "buf:99999999999999999999" "buf:99999999999999999999" run "$K" --kernel scale2 --arg buf:99999999999999999999 --arg buf:4 --arg u32:1
bad_number "rand32:7junk" "buf:8:rand32:7junk" run "$K" --kernel scale2 --arg buf:8:rand32:7junk --arg buf:4 --arg u32:1
bad_number "rand32:99999999999" "buf:8:rand32:99999999999" run "$K" --kernel scale2 --arg buf:8:rand32:99999999999 --arg buf:4 --arg u32:1
bad_number "--grid 2x" "--grid 2x" run "$K" --kernel scale2 --grid 2x
bad_number "--grid 2,x" "--grid 2,x" run "$K" --kernel scale2 --grid 2,x
bad_number "--grid 1,2,3,4" "--grid 1,2,3,4" run "$K" --kernel scale2 --grid 1,2,3,4
bad_number "--grid 1,,2" "--grid 1,,2" run "$K" --kernel scale2 --grid 1,,2
bad_number "--grid -1" "--grid -1" run "$K" --kernel scale2 --grid -1
bad_number "--block 4294967296" "--block 4294967296" run "$K" --kernel scale2 --block 4294967296
bad_number "--shared abc" "--shared abc" run "$K" --kernel scale2 --shared abc
bad_number "--shared 4294967296" "--shared 4294967296" run "$K" --kernel scale2 --shared 4294967296
bad_number "--seed 4294967296" "--seed" run "$K" --kernel scale2 --seed 4294967296
bad_number "--max-steps 99999999999999999999" "--max-steps" run "$K" --kernel spin --max-steps 99999999999999999999

# Edge values that are whole and in range: stored exactly as C reads them (two's complement for a negative
# unsigned, IEEE bits, underflow to a subnormal or 0).
scalars() { wv run "$DIR/ptxrun_cases.ptx" --kernel store_scalars --arg buf:48 "$@" --print 0:x64; }
scalars --arg u32:-2147483648 --arg u64:-9223372036854775808 --arg f32:0x1.fffffep127 --arg f64:-0 --arg s32:+7 \
        --arg s64:18446744073709551615
want_rc 0
printf 'arg 0:\n0x0000000080000000\n0x8000000000000000\n0x000000007f7fffff\n0x8000000000000000\n0x0000000000000007\n0xffffffffffffffff\n' |
  cmp -s - "$TMP/out" || why "stored values differ"
check "numbers: edge values of every scalar type"
scalars --arg u32:0xffffffff --arg u64:0777 --arg f32:1e-46 --arg f64:0x1p-1074 --arg s32:010 --arg s64:-0
want_rc 0
printf 'arg 0:\n0x00000000ffffffff\n0x00000000000001ff\n0x0000000000000000\n0x0000000000000001\n0x0000000000000008\n0x0000000000000000\n' |
  cmp -s - "$TMP/out" || why "stored values differ"
check "numbers: hex and octal integers, underflowing floats"

# More than 64 --arg: a kernel of 70 parameters gets every one (ptxrun stops at 64).
{
  echo ".version 7.0"; echo ".target sm_80"; echo ".address_size 64"
  printf '.visible .entry sum70(.param .u64 out'; for i in $(seq 1 70); do printf ', .param .u32 p%d' "$i"; done; echo ')'
  echo '{'; echo '  .reg .b32 %r<3>;'; echo '  .reg .b64 %rd<2>;'; echo '  ld.param.u64 %rd1, [out];'; echo '  mov.u32 %r1, 0;'
  for i in $(seq 1 70); do echo "  ld.param.u32 %r2, [p$i];"; echo '  add.u32 %r1, %r1, %r2;'; done
  echo '  st.global.u32 [%rd1], %r1;'; echo '  ret;'; echo '}'
} >"$TMP/sum70.ptx"
args70=(); for i in $(seq 1 70); do args70+=(--arg "u32:$i"); done
wv run "$TMP/sum70.ptx" --kernel sum70 --arg buf:4 "${args70[@]}" --print 0:u32
want_rc 0
printf 'arg 0:\n2485\n' | cmp -s - "$TMP/out" || why "the sum of 1..70 is not 2485"
check "71 --arg: every parameter of a 71-parameter kernel is passed"

# buf:N:@FILE reads at most N bytes of the file.
printf '\001\000\000\000\002\000\000\000\003\000\000\000' >"$TMP/three.bin"
wv run "$K" --kernel scale2 --arg buf:4 --arg buf:8:@"$TMP/three.bin" --arg u32:0 --print 1:u32
want_rc 0
printf 'arg 1:\n1\n2\n' | cmp -s - "$TMP/out" || why "want the file's first 8 bytes"
check "buf:8:@FILE takes the first 8 bytes of a longer file"
t0=$(date +%s)
wv run "$K" --kernel scale2 --arg buf:4 --arg buf:8:@/dev/zero --arg u32:0 --print 1:u32
want_rc 0
printf 'arg 1:\n0\n0\n' | cmp -s - "$TMP/out" || why "want 8 zero bytes"
[ $(($(date +%s) - t0)) -le 10 ] || why "took $(($(date +%s) - t0)) s"
check "buf:8:@/dev/zero reads 8 bytes of an endless file"

# ---- --help / --version ----------------------------------------------------------------------
for h in --help -h; do
  wv $h
  want_rc 0
  want_out '^usage: warpvm run '
  want_out 'warpvm list '
  want_out 'warpvm contractions '
  want_out -- '--no-contract'
  want_out -- '--max-steps'
  check "help: $h"
done
version=$(sed -n 's/^#define WARPVM_VERSION "\(.*\)"/\1/p' "$SRC/include/warpvm.h")
wv --version
want_rc 0
[ "$(cat "$TMP/out")" = "warpvm $version" ] || why "stdout is not 'warpvm $version'"
check "--version"

# ---- warpvm ./app: what it refuses before running anything ----------------------------------------
wv ./no-such-program-here
want_rc 127
want_err 'no-such-program-here: no such program'
check "app: a missing program"
wv --machine nosuch /bin/true
want_rc 1
want_err 'unknown --machine'
check "app: a bad option before the program"
wv --stats
want_rc 1
want_err 'missing program'
check "app: options but no program"
wv --check memchek /bin/true
want_rc 1
want_err 'bad --check'
check "app: an unknown --check name is a usage error"
# (A program built with the static runtime runs on warpvm's libcuda.so.1: tests/programs, variant static.)

# ---- list ------------------------------------------------------------------------------------
wv list "$K"
want_rc 0
for k in scale2 oob_store oob_past_end spin overread peek shwrap; do want_out "^kernel $k\b"; done
want_out 'scale2_param_0.*u64.*size 8.*align 8.*offset 0'
want_out 'scale2_param_1.*u64.*size 8.*align 8.*offset 8'
want_out 'scale2_param_2.*u32.*size 4.*align 4.*offset 16'
check "list shows kernels and parameters"

# ---- contractions: what ptxas fuses (tests/contract/cases.ptx: 'single' is a*b + c) -----------------
C=$SRC/tests/contract/cases.ptx
mline=$(marker_line "$C" 'mul.f32 %t1, %a, %b;')
wv contractions "$C"
want_rc 0
want_out "cases.ptx:$mline: mul fused\$"
want_out "cases.ptx:$((mline + 1)): add fma $mline\$"
want_out 'mul kept: the product has a use other than a contractible add/sub'
check "contractions: a*b + c is fused, a product that is also stored is not"
# run: fused by default, rounded twice with --no-contract ((1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 or 0)
printf '\x00\x08\x80\x3f\x00\x08\x80\x3f\x00\x10\x80\xbf' > "$TMP/in.bin"
wv run "$C" --kernel single --arg buf:128:@"$TMP/in.bin" --arg f32:0 --print 0:x32
want_rc 0
[ "$(sed -n 18p "$TMP/out")" = 0x33800000 ] || why "a*b + c is not 2^-24 (0x33800000): $(sed -n 18p "$TMP/out")"
check "run: a*b + c rounded once"
wv run "$C" --kernel single --arg buf:128:@"$TMP/in.bin" --arg f32:0 --print 0:x32 --no-contract
want_rc 0
[ "$(sed -n 18p "$TMP/out")" = 0x00000000 ] || why "a*b + c with --no-contract is not 0: $(sed -n 18p "$TMP/out")"
check "run --no-contract: a*b + c rounded twice"

# ---- malformed PTX: exit 1, "FILE:LINE:COL: error: ..." at the line that is wrong ---------------
# The expected line is the one marked "ERROR HERE", else the file's last line (truncated file,
# binary garbage without newlines).
ptx_error_case() {
  local f=$1 cmd=$2 line first rest
  line=$(marker_line "$f" 'ERROR HERE')
  [ -n "$line" ] || line=$(awk 'END { print NR }' "$f")
  if [ "$cmd" = run ]; then wv run "$f" --kernel k --arg buf:4; else wv list "$f"; fi
  want_rc 1
  first=$(head -n 1 "$TMP/err")
  case "$first" in
    "$f:"*) rest=${first#"$f:"}
            echo "$rest" | grep -Eq '^[0-9]+:[0-9]+: error: ' || why "first stderr line not FILE:LINE:COL: error: ..."
            [ "${rest%%:*}" = "$line" ] || why "error on line ${rest%%:*}, want $line" ;;
    *) why "first stderr line does not start with '$f:'" ;;
  esac
  grep -Eq "^$(printf '%s' "$f" | sed 's/[][\.*^$+?(){}|/]/\\&/g'):[0-9]+:[0-9]+: error: " "$TMP/err" ||
    why "no line matches ^FILE:[0-9]+:[0-9]+: error: "
  check "bad PTX ($cmd): $(basename "$f")"
}
for f in "$DIR"/bad/*.ptx; do ptx_error_case "$f" run; done
ptx_error_case "$DIR/bad/unknown_opcode.ptx" list

wv run "$TMP/no-such-file.ptx" --kernel k
want_rc 1
want_err 'no-such-file\.ptx'
check "missing PTX file"

# ---- device errors: exit 2 ---------------------------------------------------------------------
wv run "$K" --kernel no_such_kernel
want_rc 2
want_err 'no_such_kernel'
check "unknown kernel"

line=$(marker_line "$K" 'FAULT HERE')
wv run "$K" --kernel oob_store --grid 2 --block 32 --arg u64:0xdeadbee0
want_rc 2
want_err 'oob_store'
want_err_i 'block[^0-9]*1'
want_err_i 'thread[^0-9]*3'
want_err_i "line[^0-9]*$line([^0-9]|\$)"
want_err_i 'deadbee0'
check "store to an unmapped address names kernel, block, thread, line, address"

line=$(grep -n 'FAULT HERE' "$K" | sed -n 2p | cut -d: -f1)
wv run "$K" --kernel oob_past_end --block 32 --arg buf:64
want_rc 2
want_err 'oob_past_end'
want_err_i 'block'
want_err_i 'thread[^0-9]*(1[6-9]|2[0-9]|3[01])'
want_err_i "line[^0-9]*$line([^0-9]|\$)"
want_err_i '0x[0-9a-f]+'
check "store past the end of a buffer"

# ---- what the GPU lets pass: reads outside an allocation, --check memcheck ------------------------
# overread: 32 threads read a 16-word buffer; the 16 past its end read what the GPU maps there.
line=$(marker_line "$K" 'OVERREAD HERE')
{ echo "arg 0:"; for i in $(seq 0 15); do echo "$i"; done; } >"$TMP/want"
wv run "$K" --kernel overread --block 32 --arg buf:64 --arg buf:64:iota32 --arg u32:16 --print 0:u32 --stats
want_rc 0
cmp -s "$TMP/out" "$TMP/want" || why "stdout is not in[0..15]"
want_err '^invalid_reads: 16$'
want_err '^warpvm: 16 invalid reads: loads outside every allocation'
[ "$(grep -c '^warpvm:   global load of 4 bytes at address 0x' "$TMP/err")" = 5 ] || why "want the first 5 records"
want_err "^warpvm:   global load of 4 bytes at address 0x[0-9a-f]+ \\(0 bytes after the nearest allocation at 0x[0-9a-f]+ of size 64 bytes\\) in kernel 'overread', block \\(0,0,0\\), thread \\(16,0,0\\), PTX line $line of "
want_err "thread \\(20,0,0\\), PTX line $line "
check "a read past the end of a buffer runs as on a GPU and is reported at exit"

wv run "$K" --kernel overread --block 32 --arg buf:64 --arg buf:64:iota32 --arg u32:16 --print 0:u32 --check memcheck
want_rc 2
[ -s "$TMP/out" ] && why "stdout not empty after a fault"
want_err "^warpvm: device fault: out-of-bounds global load of 4 bytes \\(0 bytes after the nearest allocation at 0x[0-9a-f]+ of size 64 bytes\\) at address 0x[0-9a-f]+ in kernel 'overread', block \\(0,0,0\\), thread \\(16,0,0\\), PTX line $line of "
grep -q 'invalid read' "$TMP/err" && why "an invalid-read report besides the fault"
check "--check memcheck: the first read past the end is a device fault"

# badmask: lanes 16..31 run a shfl.sync whose membermask does not name them (undefined in the PTX ISA).
line=$(marker_line "$K" 'BADMASK HERE')
wv run "$K" --kernel badmask --block 32 --arg buf:128 --print 0:u32 --stats
want_rc 0
want_err '^collective_undefined: 1$'
want_err '^warpvm: 1 undefined collective: warp collectives whose membermasks the PTX ISA leaves undefined'
want_err "^warpvm:   shfl.sync with membermask 0x0000ffff run by lanes 0xffffffff: lanes execute it with a membermask that does not name them, in kernel 'badmask', block \\(0,0,0\\), thread \\(0,0,0\\), PTX line $line of "
check "an undefined collective runs and is reported at exit"

wv run "$K" --kernel badmask --block 32 --arg buf:128 --print 0:u32 --check synccheck
want_rc 2
[ -s "$TMP/out" ] && why "stdout not empty after a fault"
want_err "^warpvm: device fault: undefined warp collective: shfl.sync with membermask 0x0000ffff run by lanes 0xffffffff: lanes execute it with a membermask that does not name them in kernel 'badmask', block \\(0,0,0\\), thread \\(0,0,0\\), PTX line $line of "
check "--check synccheck: an undefined collective is a device fault"

wv run "$K" --kernel overread --block 32 --arg buf:64 --arg buf:64:iota32 --arg u32:16 --print 0:u32 --check synccheck
want_rc 0
cmp -s "$TMP/out" "$TMP/want" || why "stdout is not in[0..15]"
check "--check synccheck is accepted"

line=$(marker_line "$K" 'PEEK HERE')
# 256 MiB past the first allocation: outside everything the GPU maps (tests/memprobe: read 4 end+268435456)
wv run "$K" --kernel peek --arg buf:64 --arg s64:268435456 --arg buf:4
want_rc 2
want_err "out-of-bounds global load of 4 bytes .* in kernel 'peek', block \\(0,0,0\\), thread \\(0,0,0\\), PTX line $line "
check "a read far past the end of a buffer still faults"

wv run "$K" --kernel shwrap --arg u32:0xfffffffc --arg buf:4 --print 1:u32
want_rc 0
printf 'arg 1:\n101\n' | cmp -s - "$TMP/out" || why "ld.shared [s + 0xfffffffc + 8] is not s[1] (101)"
[ -s "$TMP/err" ] && why "stderr not empty"
check "ld.shared [%r+imm] wraps modulo 2^32"

wv run "$K" --kernel spin --max-steps 1000
want_rc 2
want_err_i 'watchdog'
check "--max-steps 1000 stops an endless kernel"

t0=$(date +%s)
wv run "$K" --kernel spin --timeout 1
want_rc 2
want_err 'watchdog: the launch ran for more than 1 s'
[ $(($(date +%s) - t0)) -le 10 ] || why "took $(($(date +%s) - t0)) s"
check "--timeout 1 stops an endless kernel after about a second"
wv run "$K" --kernel spin --timeout x
want_rc 1
check "--timeout x is a usage error"

wv run "$K" --kernel scale2 --grid 0 --arg buf:8 --arg buf:8 --arg u32:0
want_rc 2
check "empty grid is a launch error"

# ---- a good run: exact output, --stats -----------------------------------------------------------
{ echo "arg 0:"; for i in $(seq 0 63); do echo $((2 * i + 1)); done; } >"$TMP/want"
wv run "$K" --kernel scale2 --grid 2 --block 32 --arg buf:256 --arg buf:256:iota32 --arg u32:64 --print 0:u32 --stats
want_rc 0
cmp -s "$TMP/out" "$TMP/want" || why "stdout differs from the expected 'arg 0:' block"
for s in launches warp_instructions thread_instructions divergent_branches reconvergences barriers \
         collectives collective_undefined global_loads global_stores shared_loads shared_stores \
         local_loads local_stores atomics invalid_reads ctas; do
  want_err "^$s: [0-9]+\$"
done
want_err '^simt_efficiency: [0-9]+\.[0-9]{4}$'
want_err '^kernel_seconds: [0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'
grep -Eq '^thread_instructions: [1-9]' "$TMP/err" || why "thread_instructions is 0"
want_err '^simt_efficiency: 1\.0000$'
check "run scale2 with --print and --stats"

# ---- --engine: the same output under each engine; jit without LLVM is refused -------------------------
wv run "$K" --kernel scale2 --grid 2 --block 32 --arg buf:256 --arg buf:256:iota32 --arg u32:64 --print 0:u32 --engine fast
want_rc 1
want_err 'bad --engine'
check "--engine: an unknown engine is a usage error"
for e in interp auto jit; do
  wv run "$K" --kernel scale2 --grid 2 --block 32 --arg buf:256 --arg buf:256:iota32 --arg u32:64 --print 0:u32 \
     --engine $e --no-jit-cache --stats
  if [ "$e" = jit ] && [ "$rc" -eq 1 ]; then
    want_err '^warpvm: the JIT is unavailable: warpvm was built without LLVM$'
  else
    want_rc 0
    cmp -s "$TMP/out" "$TMP/want" || why "stdout differs from the expected 'arg 0:' block"
    want_err '^jit_compile_ms: [0-9]+\.[0-9]{3}$'
    [ "$e" = jit ] && ! grep -Eq '^jit_functions: [1-9]' "$TMP/err" && why "--engine jit compiled nothing"
  fi
  check "--engine $e"
done

# ---- LLVM is opened only to compile (src/jit/llvm_load.c): where it cannot be, --engine jit says why and exits 1,
# auto runs the interpreter -----------------------------------------------------------------------------------------
if $TIMEOUT "$WV" run "$K" --kernel scale2 --grid 1 --block 32 --arg buf:256 --arg buf:256 --arg u32:32 --engine jit \
     --no-jit-cache >/dev/null 2>&1; then
  WARPVM_LLVM=$TMP/no-such-libLLVM.so wv run "$K" --kernel scale2 --grid 2 --block 32 --arg buf:256 --arg buf:256:iota32 \
    --arg u32:64 --print 0:u32 --engine jit
  want_rc 1
  want_err "^warpvm: the JIT is unavailable: cannot load LLVM \\($TMP/no-such-libLLVM.so\\): "
  check "--engine jit where libLLVM does not load"
  WARPVM_LLVM=$TMP/no-such-libLLVM.so wv run "$K" --kernel scale2 --grid 2 --block 32 --arg buf:256 --arg buf:256:iota32 \
    --arg u32:64 --print 0:u32 --engine auto --stats
  want_rc 0
  cmp -s "$TMP/out" "$TMP/want" || why "stdout differs from the expected 'arg 0:' block"
  want_err '^jit_functions: 0$'
  check "--engine auto where libLLVM does not load: the interpreter"
fi

# ---- the JIT's disk cache: compiled once (on two threads: a file of two objects), then loaded, the same output;
# a damaged file only means compiling again ---------------------------------------------------------------------
R=$SRC/bench/kernels/reduce.ptx
ra=(--kernel reduce --grid 8 --block 256 --arg buf:65536:rand32:1 --arg buf:32 --arg u32:16384 --print 1:u32 --threads 2 --stats)
wv run "$R" "${ra[@]}" --engine interp
cp "$TMP/out" "$TMP/want_r"
XDG_CACHE_HOME=$TMP/cache wv run "$R" "${ra[@]}" --engine jit
if [ "$rc" -eq 1 ] && grep -q 'built without LLVM' "$TMP/err"; then
  echo "skip: the JIT's disk cache (built without LLVM)"
else
  want_rc 0
  cmp -s "$TMP/out" "$TMP/want_r" || why "compiled: stdout differs from the interpreter's"
  want_err '^jit_functions: 1$'
  want_err '^jit_cached: 0$'
  files=$(ls "$TMP/cache/warpvm/jit/"*.jit 2>/dev/null | wc -l)
  [ "$files" = 1 ] || why "want one file in the cache, found $files"
  check "--engine jit compiles and keeps the code in \$XDG_CACHE_HOME/warpvm/jit"
  XDG_CACHE_HOME=$TMP/cache wv run "$R" "${ra[@]}" --engine jit
  want_rc 0
  cmp -s "$TMP/out" "$TMP/want_r" || why "from the cache: stdout differs from the interpreter's"
  want_err '^jit_cached: 1$'
  grep -Eq '^jit_compile_ms: ([0-9]\.|[1-4][0-9]\.)' "$TMP/err" || why "loading from the cache took 50 ms or more"
  check "a second run loads the compiled code from the cache"
  for f in "$TMP/cache/warpvm/jit/"*.jit; do head -c 40 "$f" >"$f.cut" && mv "$f.cut" "$f"; done
  XDG_CACHE_HOME=$TMP/cache wv run "$R" "${ra[@]}" --engine jit
  want_rc 0
  cmp -s "$TMP/out" "$TMP/want_r" || why "damaged cache: stdout differs from the interpreter's"
  want_err '^jit_cached: 0$'
  check "a damaged cache file is compiled again"
fi

wv run "$K" --kernel scale2 --grid 2 --block 32 --arg buf:256 --arg buf:256:iota32 --arg u32:64 --print 0:u32
[ -s "$TMP/err" ] && why "stderr not empty without --stats"
cmp -s "$TMP/out" "$TMP/want" || why "stdout differs"
check "run without --stats is quiet on stderr"

wv run "$DIR/printf_order.ptx" --kernel hello --block 2 --arg buf:8 --print 0:u32
want_rc 0
printf 'arg 0:\n100\n101\n' >"$TMP/want"
[ "$(grep -c '^hello from thread [01]$' "$TMP/out")" = 2 ] || why "want two 'hello from thread' lines"
[ "$(sed -n 3p "$TMP/out")" = "arg 0:" ] || why "printf output is not before the --print block"
tail -n 3 "$TMP/out" | cmp -s - "$TMP/want" || why "--print block differs"
check "kernel printf comes before the --print blocks"

# ---- the stack limit of recursive calls (cudaLimitStackSize) -------------------------------------
# On an H100 with the default 1 KiB stack this function ran 60 calls deep and faulted at 80 (recursion_h100.txt).
wv run "$K" --kernel recurse --block 32 --arg buf:4 --arg u32:60 --print 0:u32
want_rc 0
want_out '^60$'
check "a recursion 60 calls deep fits the default 1 KiB stack (as on an H100)"
wv run "$K" --kernel recurse --block 32 --arg buf:4 --arg u32:80 --print 0:u32
want_rc 2
want_err 'stack overflow'
check "a recursion 80 calls deep overflows the default stack (as on an H100)"
line=$(marker_line "$K" 'RECURSIVE CALL')
wv run "$K" --kernel recurse --block 32 --arg buf:4 --arg u32:100000 --print 0:u32
want_rc 2
want_err 'stack overflow'
want_err "PTX line $line"
want_err '1024-byte limit'
check "a recursion 100000 calls deep is a stack overflow fault at the call's line"
wv run "$K" --kernel recurse --block 32 --arg buf:4 --arg u32:5000 --print 0:u32 --stack 100000
want_rc 0
want_out '^5000$'
check "--stack 100000 allows a recursion 5000 calls deep"

# ---- --schedule: serial (default), interleave, random:SEED ---------------------------------------
# (one thread runs the CTAs: with several, serial blocks run side by side)
order() { wv run "$K" --kernel finish_order --grid 8 --block 32 --arg buf:40 --print 0:u32 --threads 1 "$@"; sed -n '3,10p' "$TMP/out" | tr '\n' ' '; }
o_serial=$(order); want_rc 0
[ "$o_serial" = "0 1 2 3 4 5 6 7 " ] || why "serial order is '$o_serial', want grid order"
o_def=$(order --schedule serial)
[ "$o_def" = "$o_serial" ] || why "--schedule serial differs from the default"
o_r1=$(order --schedule random:1); o_r1b=$(order --schedule random:1); o_r2=$(order --schedule random:2)
[ "$o_r1" = "$o_r1b" ] || why "random:1 is not reproducible ('$o_r1' then '$o_r1b')"
[ "$o_r1" != "$o_serial" ] || [ "$o_r2" != "$o_serial" ] || why "random schedules give grid order"
[ "$(echo "$o_r1" | tr ' ' '\n' | sort -n | tr '\n' ' ')" = " 0 1 2 3 4 5 6 7 " ] || why "random:1 lost a block: '$o_r1'"
check "--schedule: serial runs blocks in grid order, random:SEED in a reproducible other order"

wv run "$K" --kernel reverse_chain --grid 16 --block 64 --arg buf:64 --arg u32:16 --max-steps 2000000 --threads 1
want_rc 2
want_err 'watchdog'
check "--schedule serial: a block waiting for a later block never finishes (watchdog)"
for sch in interleave random:3; do
  wv run "$K" --kernel reverse_chain --grid 16 --block 64 --arg buf:64 --arg u32:16 --print 0:u32 --schedule $sch --max-steps 2000000
  want_rc 0
  [ "$(grep -c '^1$' "$TMP/out")" = 16 ] || why "not every flag set"
  check "--schedule $sch: resident blocks wait for each other and finish"
done
for sch in interleave random:3; do
  wv run "$K" --kernel wait_in_branch --grid 2 --block 32 --arg buf:260 --print 0:u32 --schedule $sch --max-steps 2000000 --stats
  want_rc 0
  [ "$(grep -c '^4294967295$' "$TMP/out")" = 64 ] || why "a lane's activemask where its warp met again is not all 32 lanes"
  want_err '^divergent_branches: 2$' # (each CTA's one split; a polling loop that all its lanes go round is none)
  want_err '^reconvergences: 2$'
  check "--schedule $sch: lanes polling inside a branch, until another block's flag, meet their warp again"
done
wv run "$K" --kernel finish_order --grid 8 --block 32 --arg buf:40 --schedule sometimes
want_rc 1
want_err 'bad --schedule'
check "--schedule: an unknown schedule is a usage error"

# ---- --threads N: the CTAs on N threads, what comes out as with one ----------------------------------
T=$SRC/tests/ptx/threads/threads.ptx
wv run "$T" --kernel lines --grid 40 --block 64 --arg u32:3000 --threads 1
cp "$TMP/out" "$TMP/lines1"
want_rc 0
for b in $(seq 0 39); do for l in 0 1 2; do echo "block $b line $l"; done; done | cmp -s - "$TMP/lines1" ||
  why "one thread does not print the blocks' lines in grid order"
for n in 2 3 8; do
  wv run "$T" --kernel lines --grid 40 --block 64 --arg u32:3000 --threads $n
  want_rc 0
  cmp -s "$TMP/out" "$TMP/lines1" || why "--threads $n prints another order than --threads 1"
done
check "--threads: printf lines in grid order, each block's in order, as with one thread"

for n in 1 2 4; do
  wv run "$T" --kernel faults --grid 64 --block 32 --arg buf:256 --arg u32:5 --arg u32:9 --arg u32:300000 --threads $n \
    --print 0:u32
  want_rc 2
  want_err "at address 0x8 in kernel 'faults', block \\(5,0,0\\)"
  [ "$(grep -c '^block' "$TMP/out")" = 6 ] || why "--threads $n: not exactly blocks 0..5 printed"
  [ "$(tail -n 1 "$TMP/out")" = "block 5" ] || why "--threads $n: block 5 is not the last line"
  check "--threads $n: the fault reported is the first in grid order (block 5), not block 9's that came first"
done

wv run "$T" --kernel forever --grid 6 --block 32 --threads 2 --max-steps 100000
want_rc 2
want_err 'watchdog: more than 100000 warp instructions'
check "--threads 2: --max-steps stops an endless launch"

# ---- names of any length (CUTLASS's mangled kernel names are ~1,500 bytes) ------------------------
long=_ZN7cutlass6Kernel$(head -c 1500 /dev/zero | tr '\0' 'x')E
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry %s(.param .u64 %s_p)\n{\n.reg .b64 %%rd<2>;\nld.param.u64 %%rd1, [%s_p];\nst.global.u32 [%%rd1], 42;\nret;\n}\n' \
  "$long" "$long" "$long" >"$TMP/long.ptx"
wv run "$TMP/long.ptx" --kernel "$long" --arg buf:4 --print 0:u32
want_rc 0
want_out '^42$'
check "a kernel with a 1,500-byte name loads and runs by name"

# ---- byte for byte what ptxrun printed on a GPU (ptxrun_cases.sh, ptxrun_golden.txt) -----------
# One check per case: its stdout and exit status.
bash "$DIR/ptxrun_cases.sh" "$WV" run >"$TMP/cases" 2>/dev/null
: >"$TMP/out"
: >"$TMP/err"
section() { awk -v n="$1" '/^== case /{ on = ($3 == n ":") } on' "$2"; }
# Where a case gives ptxrun a malformed or out-of-range number, warpvm stops with a usage error instead
# (exit 1, nothing on stdout; the section above checks the messages): these cases, numbered as in
# ptxrun_cases.sh, differ from the GPU recording on purpose.
STRICT=" 2 3 14 15 16 17 18 19 31 "
ncase=$(grep -c '^== case ' "$DIR/ptxrun_golden.txt")
for i in $(seq 1 "$ncase"); do
  section "$i" "$DIR/ptxrun_golden.txt" >"$TMP/want"
  case $STRICT in
    *" $i "*) { head -n 1 "$TMP/want"; echo "== rc 1"; } >"$TMP/want.strict"; mv "$TMP/want.strict" "$TMP/want" ;;
  esac
  section "$i" "$TMP/cases" >"$TMP/got"
  if ! cmp -s "$TMP/want" "$TMP/got"; then
    why "differs from ptxrun (< ptxrun, > warpvm):"
    while IFS= read -r l; do why "  $l"; done < <(diff "$TMP/want" "$TMP/got" | head -n 8)
  fi
  check "as ptxrun: $(head -n 1 "$TMP/want" | cut -c 4-90)"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
