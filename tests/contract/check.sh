#!/usr/bin/env bash
# check.sh — compares warpvm's FMA contraction decisions (`warpvm contractions`, src/ir/contract.c) with
# the FFMA/DFMA ptxas writes, PTX line by PTX line, for each architecture.
#
#   tests/contract/check.sh [--warpvm PATH] [--arch sm_80,sm_90] [--verbose] FILE.ptx...
#   tests/contract/check.sh [--warpvm PATH] --corpus   (cases.ptx, tests/contract/ptx, tests/kernels/ptx,
#                                                       examples: what CTest's contract.ptxas runs)
#   tests/contract/check.sh --observe FILE.ptx > OBSERVED.txt
#
# Each file goes through `ptxas -O3 -lineinfo -arch=ARCH` (every ARCH not below its .target) and
# `nvdisasm -gp`, which names the PTX line of every SASS instruction. warpvm says, per line:
#   add|sub fma M    the add/sub is fused with the mul of line M: ptxas must write FFMA/DFMA there, no FADD/DADD
#   add|sub separate it stays an add: FADD/DADD there, no FFMA/DFMA
#   mul fused        no float instruction left on the mul's line
#   mul kept|partly  the mul stays: FMUL/DMUL (or an FADD/DADD for a product by 2) on its line
# (div.approx/div.full/rcp.approx products are compared through their adds only).
# A line without any float instruction in the SASS (ptxas deleted or merged it) is counted as gone, not
# compared. Exit status: 0 all agree, 1 a disagreement, 77 ptxas or nvdisasm missing (CTest: skipped).
# --observe writes ptxas's side only: a header with the tools and commands, then for every PTX line with a
# float instruction "LINE ARCH FFMA/DFMA FADD/DADD FMUL/DMUL PTX-TEXT" (tests/contract/cases.ptxas.txt,
# which tests/unit/test_contract.c compares with warpvm where ptxas is not installed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
warpvm=${WARPVM:-$here/../../build/warpvm}
archs=sm_80,sm_90
verbose=0
observe=0
files=()
while [ $# -gt 0 ]; do
  case $1 in
    --warpvm) warpvm=$2; shift 2 ;;
    --arch) archs=$2; shift 2 ;;
    --verbose|-v) verbose=1; shift ;;
    --observe) observe=1; shift ;;
    --corpus) files+=("$here/cases.ptx" "$here"/ptx/*.ptx "$here"/../kernels/ptx/*.ptx "$here"/../../examples/*.ptx); shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done

ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
nvdisasm=${NVDISASM:-$(command -v nvdisasm || true)}
if [ -z "$nvdisasm" ]; then # the CUDA toolkit's, else PyPI's nvidia-cuda-nvdisasm (scripts/setup.sh)
  for c in /usr/local/cuda/bin/nvdisasm $(python3 -c 'import nvidia, glob
for p in nvidia.__path__: print(*glob.glob(p + "/*/bin/nvdisasm"))' 2>/dev/null); do
    [ -x "$c" ] && { nvdisasm=$c; break; }
  done
fi
if [ ! -x "$ptxas" ] || [ -z "$nvdisasm" ] || [ ! -x "$nvdisasm" ]; then
  echo "check.sh: skipped: needs ptxas (CUDA toolkit) and nvdisasm (CUDA toolkit, or pip install nvidia-cuda-nvdisasm)"
  exit 77
fi
[ ${#files[@]} -gt 0 ] || { echo "check.sh: no PTX files given"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# sass_lines FILE ARCH > LINES: per PTX line, the FFMA/DFMA, FADD/DADD and FMUL/DMUL ptxas wrote for it
sass_lines() {
  "$ptxas" -O3 -lineinfo -arch="$2" "$1" -o "$tmp/a.cubin" 2> "$tmp/ptxas.err" || return 1
  "$nvdisasm" -gp -c "$tmp/a.cubin" > "$tmp/sass.txt" || return 2
  awk '/^[[:space:]]*\/\/## File/ { match($0, /line [0-9]+/); line = substr($0, RSTART + 5, RLENGTH - 5); next }
       /\/\*[0-9a-f]+\*\// && line != "" {
         s = $0; sub(/^[[:space:]]*\/\*[0-9a-f]+\*\/[[:space:]]*/, "", s); sub(/^@!?U?P[0-9T]+[[:space:]]+/, "", s)
         split(s, w, /[ .;]/); op = w[1]
         if (op == "FFMA" || op == "DFMA") fma[line]++
         else if (op == "FADD" || op == "DADD") add[line]++
         else if (op == "FMUL" || op == "DMUL") mul[line]++
         seen[line] = 1 }
       END { for (l in seen) print l, fma[l] + 0, add[l] + 0, mul[l] + 0 }' "$tmp/sass.txt" | sort -n
}

if [ $observe = 1 ]; then
  f=${files[0]}
  echo "# What ptxas makes of $(basename "$f"), written by tests/contract/check.sh --observe."
  echo "# ptxas: $("$ptxas" --version | grep -E 'release') ($("$ptxas" --version | tail -1))"
  echo "# nvdisasm: $("$nvdisasm" --version | grep -E 'release') ($("$nvdisasm" --version | tail -1))"
  echo "# for ARCH in $archs: ptxas -O3 -lineinfo -arch=ARCH $(basename "$f") -o a.cubin && nvdisasm -gp -c a.cubin"
  echo "# LINE ARCH FFMA/DFMA FADD/DADD FMUL/DMUL PTX: the SASS instructions of each PTX line that has one of them"
  IFS=, read -r -a archlist <<< "$archs"
  for arch in "${archlist[@]}"; do
    sass_lines "$f" "$arch" > "$tmp/lines" || { echo "check.sh: ptxas or nvdisasm failed on $f" >&2; exit 1; }
    awk -v arch="$arch" 'NR == FNR { text[FNR] = $0; next }
      $2 + $3 + $4 > 0 { t = text[$1]; gsub(/^[[:space:]]+|[[:space:]]+$/, "", t); gsub(/[[:space:]]+/, " ", t); print $1, arch, $2, $3, $4, t }' "$f" "$tmp/lines"
  done
  exit 0
fi

[ -x "$warpvm" ] || { echo "check.sh: no warpvm at $warpvm (--warpvm PATH)"; exit 1; }
echo "check.sh: $("$ptxas" --version | tail -1 | sed 's/^Build //'), nvdisasm $("$nvdisasm" --version | tail -1 | sed 's/^Build //')"
status=0
IFS=, read -r -a archlist <<< "$archs"
for arch in "${archlist[@]}"; do
  tot_files=0; tot_pairs=0; tot_adds=0; tot_muls=0; tot_bad=0; tot_gone=0; tot_fused=0
  for f in "${files[@]}"; do
    target=$(grep -m1 -o '^\.target[[:space:]]*sm_[0-9]*' "$f" | grep -o '[0-9]*$')
    [ -n "$target" ] && [ "$target" -gt "${arch#sm_}" ] && continue
    # an arch-specific target (sm_90a) is assembled for exactly that architecture, or not at all
    if grep -q -m1 '^\.target[[:space:]]*sm_[0-9]*a' "$f"; then [ "$target" = "${arch#sm_}" ] || continue; fi
    sass_lines "$f" "$arch$(grep -q -m1 '^\.target[[:space:]]*sm_[0-9]*a' "$f" && echo a)" > "$tmp/sass.lines"
    case $? in
      0) ;;
      1) echo "check.sh: $f: ptxas -arch=$arch failed: $(head -1 "$tmp/ptxas.err")"; status=1; continue ;;
      *) echo "check.sh: $f: nvdisasm failed"; status=1; continue ;;
    esac
    "$warpvm" contractions "$f" > "$tmp/wv.txt" || { echo "check.sh: $f: warpvm contractions failed"; status=1; continue; }
    tot_files=$((tot_files + 1))
    awk -v file="$f" -v arch="$arch" -v verbose=$verbose '
      NR == FNR { fma[$1] = $2; add[$1] = $3; mul[$1] = $4; next }
      {
        split($1, p, ":"); line = p[length(p) - 1]; kind = $2; what = $3
        f = fma[line] + 0; a = add[line] + 0; m = mul[line] + 0
        if (what ~ /^(fused|kept|partly|dead)/) {
          if (what == "dead" || kind != "mul") next   # div/rcp: their own FMULs stay on the line
          muls++
          if (f + a + m == 0 && what != "fused") { gone++; next }
          ok = what == "fused" ? (f + a + m == 0) : (m + a > 0)
        } else {
          adds++
          if ($0 ~ /fma [0-9]+$/ || $0 ~ /\(mul [0-9]+:/) pairs++
          if (f + a == 0) { gone++; next }
          if (what == "fma") { fused++; ok = f > 0 && a == 0 } else ok = a > 0 && f == 0
        }
        if (!ok) { bad++; printf "%s:%s: %s: warpvm says \"%s\", ptxas wrote %d FFMA/DFMA, %d FADD/DADD, %d FMUL/DMUL\n", file, line, arch, substr($0, index($0, $2)), f, a, m }
        else if (verbose) printf "%s:%s: %s: agree: %s\n", file, line, arch, substr($0, index($0, $2))
      }
      END { printf "%d %d %d %d %d %d\n", pairs, adds, muls, bad, gone, fused > "/dev/stderr" }' \
      "$tmp/sass.lines" "$tmp/wv.txt" 2> "$tmp/counts"
    read -r pairs adds muls bad gone fused < "$tmp/counts"
    tot_pairs=$((tot_pairs + pairs)); tot_adds=$((tot_adds + adds)); tot_muls=$((tot_muls + muls))
    tot_bad=$((tot_bad + bad)); tot_gone=$((tot_gone + gone)); tot_fused=$((tot_fused + fused))
  done
  echo "check.sh: $arch: $tot_files files, $tot_pairs mul/add pairs, $tot_adds adds/subs ($tot_fused fused), $tot_muls muls; $tot_bad disagree, $tot_gone gone in ptxas"
  [ "$tot_bad" -eq 0 ] || status=1
done
exit $status
