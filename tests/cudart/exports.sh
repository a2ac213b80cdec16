#!/usr/bin/env bash
# exports.sh LIB MAJOR ENTRY_POINTS — warpvm's libcudart.so.MAJOR must carry NVIDIA's SONAME and define every
# entry point of entry_points.txt with the symbol version libcudart.so.MAJOR (what nvcc-built programs bind
# to), and export nothing of warpvm's own internals.
set -euo pipefail
lib=$1 major=$2 list=$3
command -v objdump >/dev/null || { echo "objdump missing: skipped"; exit 77; }
soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
[ "$soname" = "libcudart.so.$major" ] || { echo "SONAME is '$soname', want libcudart.so.$major"; exit 1; }
have=$(objdump -T "$lib" | awk -v v="libcudart.so.$major" '$0 ~ /\.text/ && $(NF-1) == v {print $NF}' | sort -u)
want=$(grep -E '^[A-Za-z_]' "$list" | sort -u)
missing=$(comm -13 <(echo "$have") <(echo "$want"))
[ -z "$missing" ] || { echo "not exported with version libcudart.so.$major:"; echo "$missing" | head -20; exit 1; }
leaked=$(objdump -T "$lib" | awk '$0 ~ /\.text/ {print $NF}' | grep -Ev '^(cuda|__cuda)' || true)
[ -z "$leaked" ] || { echo "internal symbols exported:"; echo "$leaked" | head; exit 1; }
echo "libcudart.so.$major: $(echo "$want" | wc -l) entry points, all versioned libcudart.so.$major"
