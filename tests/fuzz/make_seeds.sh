#!/usr/bin/env bash
# make_seeds.sh SRC OUT [MAX_PTX] — the seed corpora of the libFuzzer harnesses, one folder per target
# under OUT (recreated each time; OUT/nvcc caches what nvcc made):
#   ptx             every PTX file of the repo (nvcc output of tests/kernels, tests/ptx, tests/cli and its
#                   malformed cases, tests/cudart, examples); a file over MAX_PTX bytes (default 65536,
#                   the harness's -max_len) becomes one seed per kernel: its header, the functions
#                   before the kernel, and the kernel
#   fatbin          tests/unit/data/fatbin/*.fatbin (nvcc 13 builds: compression modes, archs, -G, -rdc,
#                   LTO-IR) and, when nvcc is on PATH, `nvcc -fatbin` of the repo's .cu files (several
#                   archs and compression modes) and the .nv_fatbin of the programs below
#   fatbin_wrapper  each fatbin behind the harness's 8-byte header (wrapper version 1), and the -rdc
#                   pair ab_linked + ab_prelinked as a version-2 wrapper
#   elf             the ELF files of tests/unit/data/fatbin and, with nvcc, `nvcc -cubin` output and
#                   host programs (-cudart shared and static)
#   gcn             tests/gcn/*.s and, with a built warpvm (WARPVM, default SRC/build/warpvm), what
#                   `warpvm lower` makes of the repo's shuffle/vote/tile kernels for each AMD model
#   cudart          call programs written below (stream, capture/graph, event, memory sequences)
set -euo pipefail
src=$(cd "$1" && pwd) out=$2 max_ptx=${3:-65536}
mkdir -p "$out"
for t in ptx fatbin fatbin_wrapper elf gcn cudart; do rm -rf "${out:?}/$t"; mkdir -p "$out/$t"; done

# ---- ptx ----
split_ptx() { # FILE DIR PREFIX: one seed per .entry (header + functions so far + the entry)
  awk -v dir="$2" -v pre="$3" -v cap=32768 '
    function flush_item() {
      if (item ~ /^[ \t]*(\.visible[ \t]+|\.weak[ \t]+)?\.entry/) {
        n++; f = sprintf("%s/%s.k%02d.ptx", dir, pre, n); printf "%s%s", hdr, item > f; close(f)
      } else if (length(hdr) < cap) hdr = hdr item
      item = ""; open = 0
    }
    {
      line = $0 "\n"
      if (!open && $0 ~ /^[ \t]*(\.visible[ \t]+|\.weak[ \t]+|\.extern[ \t]+)?\.(entry|func)/) open = 1
      if (!open) { if (length(hdr) < cap) hdr = hdr line; next }
      item = item line
      t = $0; o = gsub(/\{/, "", t); t = $0; c = gsub(/\}/, "", t); depth += o - c; seen += o
      if (depth <= 0 && (seen > 0 || $0 ~ /;[ \t]*$/)) { flush_item(); depth = 0; seen = 0 }
    }' "$1"
}
while IFS= read -r f; do
  name=$(echo "${f#"$src"/}" | tr '/' '_')
  if [ "$(wc -c < "$f")" -le "$max_ptx" ]; then cp "$f" "$out/ptx/$name"
  else split_ptx "$f" "$out/ptx" "${name%.ptx}"; fi
done < <(find "$src/tests/kernels/ptx" "$src/tests/ptx" "$src/tests/cli" "$src/tests/cudart" "$src/examples" \
           -name '*.ptx' -type f | sort)
find "$out/ptx" -size +"$max_ptx"c -delete # a kernel alone over the limit is not worth truncating

# ---- nvcc builds (cached) ----
nv="$out/nvcc"
nvcc_bin=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc_bin" ] && [ ! -f "$nv/.done" ]; then
  echo "make_seeds: building fatbin and ELF seeds with $nvcc_bin (once)"
  rm -rf "$nv"; mkdir -p "$nv"
  ( cd "$nv"
    cus=("$src"/examples/*.cu "$src"/tests/cudart/rt_kernels.cu "$src"/tests/cli/printf_order.cu "$src"/tests/ptx/coop/coop.cu
         "$src"/tests/programs/graphs.cu "$src"/tests/programs/warp_vote.cu)
    i=0
    for cu in "${cus[@]}"; do
      [ -f "$cu" ] || continue
      i=$((i + 1)); b="s$i"
      "$nvcc_bin" -fatbin -arch=sm_80 "$cu" -o "$b.sm80.fatbin" 2>/dev/null || true
      "$nvcc_bin" -fatbin -gencode arch=compute_80,code=[sm_80,compute_80] -gencode arch=compute_90,code=[sm_90,compute_90] \
        -Xfatbin -compress-mode=speed "$cu" -o "$b.multi_lz4.fatbin" 2>/dev/null || true
      "$nvcc_bin" -fatbin -arch=sm_90 -Xfatbin -compress-mode=none "$cu" -o "$b.none.fatbin" 2>/dev/null || true
      "$nvcc_bin" -cubin -arch=sm_80 "$cu" -o "$b.sm80.cubin" 2>/dev/null || true
      "$nvcc_bin" -std=c++17 -I"$(dirname "$cu")" -cudart shared -arch=sm_80 "$cu" -o "$b.shared.elf" 2>/dev/null &&
        strip "$b.shared.elf" || true
    done
    "$nvcc_bin" -cubin -arch=sm_90 -G "$src/tests/unit/data/fatbin/k.cu" -o k.debug.cubin 2>/dev/null || true
    "$nvcc_bin" -arch=sm_80 "$src/tests/unit/data/fatbin/k.cu" -o k.static.elf 2>/dev/null && strip k.static.elf || true
    for e in *.elf; do
      [ -f "$e" ] && objcopy -O binary --only-section=.nv_fatbin "$e" "${e%.elf}.section.fatbin" 2>/dev/null || true
    done
    touch .done )
fi

# ---- fatbin, fatbin_wrapper, elf ----
shopt -s nullglob
data="$src/tests/unit/data/fatbin"
for f in "$data"/*.fatbin "$nv"/*.fatbin; do
  [ -s "$f" ] || continue
  cp "$f" "$out/fatbin/"
  { printf '\0\0\0\0\0\0\0\0'; cat "$f"; } > "$out/fatbin_wrapper/v1_$(basename "$f")"
done
{ printf '\1\0\0\0\0\0\0\0'; cat "$data/ab_linked.fatbin" "$data/ab_prelinked.fatbin"; } > "$out/fatbin_wrapper/v2_ab"
{ printf '\1\0\0\0\0\0\0\0'; cat "$data/k_multi.fatbin"; } > "$out/fatbin_wrapper/v2_k_multi"
for f in "$data"/*.elf "$nv"/*.elf "$nv"/*.cubin; do [ -s "$f" ] && cp "$f" "$out/elf/"; done

# ---- gcn ----
cp "$src"/tests/gcn/*.s "$out/gcn/"
# What warpvm lowers cross-lane PTX to on each AMD model (`warpvm lower`, when a build has the CLI), cut
# at blank lines into pieces of at most 12 KiB, 20 per file and machine.
warpvm=${WARPVM:-$src/build/warpvm}
if [ -x "$warpvm" ]; then
  for f in "$src"/examples/shuffle.ptx "$src"/tests/kernels/ptx/{ref_shfl,vote,tiles}.sm_80.ptx; do
    for m in gfx90a gfx1100 gfx1100w64; do
      "$warpvm" lower "$f" --machine "$m" 2>/dev/null |
        awk -v pre="$out/gcn/lower_$(basename "$f" .ptx)_$m" '
          { chunk = chunk $0 "\n" }
          /^$/ && length(chunk) > 8192 { if (n < 20) { printf "%s", chunk > (pre "_" n ".s"); close(pre "_" n ".s") } n++; chunk = "" }
          END { if (n < 20 && chunk != "") printf "%s", chunk > (pre "_" n ".s") }'
    done
  done
fi

# ---- cudart: programs of calls (fuzz_cudart.c's opcodes: the byte % 34) ----
seed() { local f=$1; shift; local s=""; for b in "$@"; do s+=$(printf '\\x%02x' "$b"); done; printf "$s" > "$out/cudart/$f"; }
# device buffer 0 (1 KiB), stream 0, add<<<1,32,0,s0>>>(buf0, 1, 32), copy back, sync, destroy, free
seed launch_stream   19 0 0x50   0 0 0   29 0 0 3 0  0 0  7 0  1 0 0 0  32  0   25 6 0 0 0 0x08 2 \
                     2 0   1 0   23 0   31
# capture a launch and a memset on stream 0, instantiate, launch the graph twice, time it with events
seed capture_graph   19 0 0x50   0 0 1   11 0 0   29 0 0 3 0  0 0  7 0  1 0 0 0  32  0   27 1 0 0 0x08 7 0 \
                     12 0 0   15 0 0   4 0 0   4 1 0   6 0 0   16 0 0   16 0 0   6 1 0   7 1   9 0 1 \
                     17 0   18 0   5 0   5 1   1 0   23 0
# pinned + managed + pitched memory, host registration, 2-D copy, a host function, symbols
seed memory_kinds    21 1 0x48   22 2 0x10   20 3 0x44 4   24 0 1 4 0   25 1 0 6 0 0x10 4   28 3 0 1 0 0x48 0x10 0x10 4 3 1 \
                     30 4   29 0 0 3 0  2 0  7 0  5 0 0 0  16  4   31   33 8 0 0   23 1   23 2   23 3   24 0
# misuse: double destroy, waiting on a destroyed event, launching on a destroyed stream, a fault, reset
seed misuse          0 0 0   4 0 0   5 0   5 0   10 0 0   1 0   29 3 0 0 0  7 0  7 0  0 0 0 0  0  0   31   2 0 \
                     23 0   19 0 3   23 0   23 0   32 0 0
