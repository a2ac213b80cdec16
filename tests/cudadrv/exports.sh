#!/usr/bin/env bash
# exports.sh LIB PROCS_DEF — warpvm's libcuda.so.1 must carry NVIDIA's SONAME and define every entry point
# of CUDA's driver (procs.def's EXPORT rows, generated from the toolkit), and export nothing of warpvm's own
# but the warpvm C API (wv_*) and what its runtime shares with it (wvcu_*).
set -euo pipefail
lib=$1 list=$2
command -v objdump >/dev/null || { echo "objdump missing: skipped"; exit 77; }
soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
[ "$soname" = "libcuda.so.1" ] || { echo "SONAME is '$soname', want libcuda.so.1"; exit 1; }
have=$(objdump -T "$lib" | awk '$0 ~ /\.text/ {print $NF}' | sort -u)
want=$(sed -nE 's/^EXPORT(_PT)?\(([A-Za-z0-9_]+).*/\2/p' "$list" | sort -u)
missing=$(comm -13 <(echo "$have") <(echo "$want"))
[ -z "$missing" ] || { echo "not exported:"; echo "$missing" | head -20; exit 1; }
leaked=$(echo "$have" | grep -Ev '^(cu|wv_|wvcu_)' || true)
[ -z "$leaked" ] || { echo "internal symbols exported:"; echo "$leaked" | head; exit 1; }
echo "libcuda.so.1: $(echo "$want" | wc -l) driver entry points exported"
