#!/usr/bin/env bash
# llvm_mc_check.sh — checks that every cross-lane snippet src/amd/lower.c generates for MACHINE
# (gfx90a, gfx1100, gfx1100w64) is accepted by LLVM's AMDGPU assembler:
#   llvm-mc -arch=amdgcn -mcpu=MCPU [-mattr=+wavefrontsizeN] -show-encoding
# The snippets come from `DRIVER --print MACHINE` (DRIVER: the test_amd_lower binary of the build).
# Fails (exit 1) on any llvm-mc error or warning; exits 0 with "SKIP" when llvm-mc is not installed.
# When the installed llvm-mc does not know the machine's processor (LLVM 14 predates gfx11), the RDNA3
# snippets are checked against gfx1030 (RDNA2, the newest RDNA LLVM 14 knows) and the script says so;
# set WV_LLVM_MC_STRICT=1 to fail instead. LLVM_MC overrides the llvm-mc command.
#
# usage: tests/gcn/llvm_mc_check.sh MACHINE DRIVER
set -u
machine=${1:-}
driver=${2:-}
if [ -z "$machine" ] || [ -z "$driver" ]; then
  echo "usage: $0 MACHINE DRIVER   (MACHINE: gfx90a | gfx1100 | gfx1100w64; DRIVER: build/test_amd_lower)" >&2
  exit 2
fi
mc=${LLVM_MC:-llvm-mc}
if ! command -v "$mc" >/dev/null 2>&1; then
  echo "llvm_mc_check: SKIP: $mc is not installed"
  exit 0
fi
case "$machine" in
  gfx90a) mcpu=gfx90a; attr="" ;;
  gfx1100) mcpu=gfx1100; attr="-mattr=+wavefrontsize32,-wavefrontsize64" ;;
  gfx1100w64) mcpu=gfx1100; attr="-mattr=-wavefrontsize32,+wavefrontsize64" ;;
  *) echo "llvm_mc_check: unknown machine '$machine'" >&2; exit 2 ;;
esac
probe=$(printf 's_nop 0\n' | "$mc" -arch=amdgcn -mcpu="$mcpu" 2>&1 >/dev/null)
if printf '%s' "$probe" | grep -q "not a recognized processor"; then
  version=$("$mc" --version 2>/dev/null | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p' | head -1)
  if [ "${WV_LLVM_MC_STRICT:-0}" = 1 ]; then
    echo "llvm_mc_check: FAIL: llvm-mc ${version:-?} does not know -mcpu=$mcpu" >&2
    exit 1
  fi
  case "$mcpu" in
    gfx11*) fallback=gfx1030 ;;
    *) echo "llvm_mc_check: FAIL: llvm-mc ${version:-?} does not know -mcpu=$mcpu and there is no fallback" >&2; exit 1 ;;
  esac
  echo "llvm_mc_check: NOTE: llvm-mc ${version:-?} does not know -mcpu=$mcpu; checking $machine against -mcpu=$fallback (RDNA2) instead"
  mcpu=$fallback
fi
tmp=$(mktemp "${TMPDIR:-/tmp}/wv_llvm_mc.XXXXXX") || exit 1
trap 'rm -f "$tmp" "$tmp.out" "$tmp.err"' EXIT
if ! "$driver" --print "$machine" >"$tmp"; then
  echo "llvm_mc_check: FAIL: '$driver --print $machine' failed" >&2
  exit 1
fi
# shellcheck disable=SC2086
"$mc" -arch=amdgcn -mcpu="$mcpu" $attr -show-encoding "$tmp" >"$tmp.out" 2>"$tmp.err"
rc=$?
if [ $rc -ne 0 ] || grep -q -E "error:|warning:" "$tmp.err"; then
  sed "s|$tmp|$machine.s|g" "$tmp.err" >&2
  echo "llvm_mc_check: FAIL: llvm-mc -mcpu=$mcpu ${attr} rejected the $machine snippets (exit $rc)" >&2
  exit 1
fi
n=$(grep -c "encoding:" "$tmp.out")
want=$(grep -c -E "^[[:space:]]*[sv]_|^[[:space:]]*ds_" "$tmp")
if [ "$n" -ne "$want" ]; then
  echo "llvm_mc_check: FAIL: llvm-mc encoded $n instructions, the snippets have $want" >&2
  exit 1
fi
echo "llvm_mc_check: OK: $machine: all $n instructions of the $(grep -c "^; [a-z.]*sync\|^; bar" "$tmp") snippets assembled by llvm-mc -mcpu=$mcpu ${attr}"
