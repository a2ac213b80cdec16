#!/usr/bin/env bash
# lower_roundtrip.sh WARPVM SRC — `warpvm lower` output of real nvcc PTX assembles with llvm-mc.
# For every corpus PTX file with cross-lane instructions, the whole listing (PTX lines are `;` comments)
# must assemble for gfx90a without an error or a warning. Skips (exit 0) when llvm-mc is not installed.
set -uo pipefail
W=$1 SRC=$2
MC=$(command -v llvm-mc || command -v llvm-mc-14 || true)
if [ -z "$MC" ]; then echo "SKIP: llvm-mc is not installed"; exit 0; fi
pass=0 fail=0
for f in examples/shuffle.ptx tests/kernels/ptx/ref_shfl.sm_80.ptx tests/kernels/ptx/shfl_battery.sm_80.ptx \
         tests/kernels/ptx/vote.sm_80.ptx tests/kernels/ptx/vote.sm_90.ptx tests/kernels/ptx/sm90.sm_90.ptx \
         tests/kernels/ptx/shfl_typed.sm_80.ptx tests/kernels/ptx/its.sm_80.ptx; do
  out=$(cd "$SRC" && "$W" lower "$f" --machine gfx90a 2>&1) || { echo "FAIL $f: warpvm lower failed: $out"; fail=$((fail + 1)); continue; }
  n=$(printf '%s\n' "$out" | grep -c '^[a-z]')
  msg=$(printf '%s\n' "$out" | "$MC" -arch=amdgcn -mcpu=gfx90a -filetype=obj -o /dev/null 2>&1)
  if [ -n "$msg" ] || [ "$n" -eq 0 ]; then echo "FAIL $f ($n instructions): $msg" | head -5; fail=$((fail + 1))
  else echo "ok   $f: $n instructions assemble"; pass=$((pass + 1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
