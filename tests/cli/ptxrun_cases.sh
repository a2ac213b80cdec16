#!/usr/bin/env bash
# ptxrun_cases.sh — command lines on which `warpvm run` must print what the reference runner
# ptxrun (shared/tools/ptxrun.c) prints on a real GPU, byte for byte, with the same exit status.
# They cover ptxrun's own parsing: buffer fills, scalar parsing, --print formats, the order and
# kind of errors. For each case it prints "== case N: ARGS", the runner's stdout, "== rc STATUS".
#
#   tests/cli/ptxrun_cases.sh /path/to/ptxrun          > ptxrun_golden.txt   (on a GPU machine)
#   tests/cli/ptxrun_cases.sh /path/to/warpvm run      | diff ptxrun_golden.txt -
#
# ptxrun_golden.txt was made the first way (an NVIDIA H200, driver 580); test_cli.sh does the second.
# Cases that give ptxrun a malformed or out-of-range number are usage errors under warpvm on purpose
# (test_cli.sh lists them in STRICT).
# Files are named relative to this folder so the output does not depend on where it lies.
# The option strings below ($B4, $S, $(all N)) are split into words on purpose.
# shellcheck disable=SC2046,SC2086
set -u
if [ $# -lt 1 ]; then echo "usage: $0 RUNNER [ARG]..." >&2; exit 2; fi
case $1 in /*) ;; */*) set -- "$PWD/$1" "${@:2}" ;; esac
RUN=("$@")
cd "$(dirname "$0")" || exit 2
n=0
c() {
  n=$((n + 1))
  echo "== case $n: $*"
  "${RUN[@]}" "$@" 2>/dev/null
  echo "== rc $?"
}
all() { echo "--print $1:u32 --print $1:s32 --print $1:x32 --print $1:u64 --print $1:s64 --print $1:x64 --print $1:f32 --print $1:f64"; }
P=ptxrun_cases.ptx
B4="--arg buf:16:iota32 --arg buf:4:iota32 --arg buf:8 --arg buf:8"
S="--print 0:x32 --print 0:x64 --print 0:u64 --print 0:s64 --print 0:f32 --print 0:f64"

# buffer fills, every --print type
c $P --kernel noop4 --arg buf:64:iota32 --arg buf:100:rand32:12345 --arg buf:37:@$P --arg buf:8 $(all 0) $(all 1) $(all 2) $(all 3)
c $P --kernel noop4 --arg buf:256:rand32:1 --arg buf:256:rand32:0xdeadbeef --arg buf:44:rand32:-1 --arg buf:40:rand32:99999999999 $(all 0) $(all 1) $(all 2) $(all 3)
c $P --kernel noop4 --arg buf:16x --arg buf:0x20:iota32 --arg buf:010:iota32 --arg buf:12:rand32:7junk $(all 0) $(all 1) $(all 2) $(all 3)
# --print: unknown types are found at the first element, after the header; sscanf "%d:%7s"
c $P --kernel noop4 $B4 --print 0:zz --print 0:u32
c $P --kernel noop4 $B4 --print 1:f64 --print 1:x6 --print 0:u3
c $P --kernel noop4 $B4 --print "0:u32 x" --print " 1:u32" --print +0:x32
c $P --kernel noop4 $B4 --print 0:u32abcdefgh
c $P --kernel noop4 $B4 --print 0:x32 --print 4:u32
c $P --kernel noop4 --arg buf:16:iota32 --arg buf:4:iota32 --arg buf:8 --arg u64:5 --print 0:x32 --print 3:u32
c $P --kernel noop4 $B4 --print 0:x32 --print -1:u32
c $P --kernel noop4 $B4 --print 0:x32 --print 0u32
c $P --kernel noop4 $B4 --print 0:
# scalars: strtoll / strtoull / strtof / strtod, u64 with a leading '-'
c $P --kernel store_scalars --arg buf:48 --arg u32:-1 --arg u64:-1 --arg f32:0.1 --arg f64:1e-310 --arg s32:0x7fffffff --arg s64:-9223372036854775808 $S
c $P --kernel store_scalars --arg buf:48 --arg u32:99999999999999999999 --arg u64:-99999999999999999999 --arg f32:nan --arg f64:-inf --arg s32:-2147483649 --arg s64:18446744073709551615 $S
c $P --kernel store_scalars --arg buf:48 --arg u32:0x1ffffffff --arg u64:-18446744073709551615 --arg f32:1e40 --arg f64:0x1p-1074 --arg s32:abc --arg s64:-0 $S
c $P --kernel store_scalars --arg buf:48 --arg "u32:  12" --arg "u64: -5" --arg f32:-0 --arg f64:inf --arg s32:010 --arg s64:0x $S
c $P --kernel store_scalars --arg buf:48 --arg u32:4294967296 --arg u64:18446744073709551616 --arg f32:0x1.fffffep127 --arg f64:1e400 --arg s32:-0x80000000 --arg s64:-1 $S
c $P --kernel store_scalars --arg buf:48 --arg u32:1.5 --arg u64:-0x8000000000000001 --arg f32:1e-46 --arg f64:-nan --arg s32:+7 --arg s64:1e3 $S
c $P --kernel store_scalars --arg buf:48 --arg u32: --arg u64: --arg f32: --arg f64: --arg s32: --arg s64: $S
c $P --kernel store_scalars --arg buf:0x30 --arg u32:3 --arg u64:0777 --arg f32:3.4028235e38 --arg f64:2.2250738585072014e-308 --arg s32:-1 --arg s64:-1 --grid 3,2 --block 4,1,1 $S
# errors: usage (1) and device (2)
c $P --kernel noop4 --arg buf:0 --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel noop4 --arg zz:1 --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel noop4 --arg buf:8:rand32:0 --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel noop4 --arg buf:8:@no-such-file --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel noop4 --arg buf:8: --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel noop4 --arg buffer:8 --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel noop4 --arg bufferx:8 --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel noop4 --arg buf:abc --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel noop4 --grid abc
c $P --kernel noop4 --grid ,2
c $P --kernel noop4 --grid 2,x --block 1 --arg buf:8 --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel noop4 --grid 0 --arg buf:8 --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel noop4 --block 2000 --arg buf:8 --arg buf:8 --arg buf:8 --arg buf:8
c $P --kernel no_such_kernel
c $P --kernel
c $P --kernel noop4 extra
c $P --kernel noop4 --frob
c $P --kernel noop4 --arg buf:8 --arg buf:8 --arg buf:8 --arg buf:8 --shared 0x10 --print 0:x32
c no-such-file.ptx --kernel noop4
# real kernels: results, and device printf before the --print blocks
c kernels.ptx --kernel scale2 --grid 2 --block 32 --arg buf:256 --arg buf:256:rand32:9 --arg u32:50 --print 0:s32 --print 1:x32
c printf_order.ptx --kernel hello --block 2 --arg buf:8 --print 0:u32
exit 0
