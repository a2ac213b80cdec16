#!/usr/bin/env bash
# make.sh — regenerates the fatbin / ELF test data of tests/unit/test_fatbin.c from k.cu, a.cu and
# b.cu with the nvcc on PATH (or /usr/local/cuda/bin); no GPU is needed. See README.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cp "$here"/k.cu "$here"/a.cu "$here"/b.cu .

section() { objcopy -O binary --only-section="$2" "$1" "$3"; }

# One .nv_fatbin per compression mode: the device-link container, then k.cu's (SASS + PTX).
for mode in none speed balance size; do
  nvcc -cudart shared -arch=sm_80 -Xfatbin -compress-mode="$mode" k.cu -o "k_$mode"
  section "k_$mode" .nv_fatbin "$here/k_$mode.fatbin"
done
# Several archs: SASS sm_80 sm_90, PTX compute_80 compute_90 compute_100.
nvcc -cudart shared -gencode arch=compute_80,code=[sm_80,compute_80] \
  -gencode arch=compute_90,code=[sm_90,compute_90] -gencode arch=compute_100,code=compute_100 k.cu -o k_multi
section k_multi .nv_fatbin "$here/k_multi.fatbin"
# SASS only.
nvcc -cudart shared -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 k.cu -o k_sass
section k_sass .nv_fatbin "$here/k_sass.fatbin"
# Arch-specific and family targets.
nvcc -cudart shared -gencode arch=compute_90a,code=[sm_90a,compute_90a] \
  -gencode arch=compute_100f,code=[sm_100f,compute_100f] -gencode arch=compute_120,code=sm_120 \
  -Xfatbin -compress-mode=size k.cu -o k_arch
section k_arch .nv_fatbin "$here/k_arch.fatbin"
# -G: entries carry the source name, ptxas options and the debug flag.
nvcc -cudart shared -arch=sm_80 -G -Xfatbin -compress-mode=size k.cu -o k_debug
section k_debug .nv_fatbin "$here/k_debug.fatbin"
# -rdc: the linked SASS (.nv_fatbin) and the per-unit containers (__nv_relfatbin).
nvcc -cudart shared -rdc=true -arch=sm_80 a.cu b.cu -o ab
section ab .nv_fatbin "$here/ab_linked.fatbin"
section ab __nv_relfatbin "$here/ab_prelinked.fatbin"
# LTO-IR (-dlto): an object's prelinked container, kind 8, encrypted.
nvcc -c -rdc=true -gencode arch=compute_80,code=lto_80 a.cu -o a_lto.o
section a_lto.o __nv_relfatbin "$here/a_lto.fatbin"

# The PTX nvcc produces (fatbinary stores it minified; the test applies the same rule).
nvcc -arch=sm_80 -ptx k.cu -o "$here/k_sm80.ptx"
nvcc -arch=sm_90 -ptx k.cu -o "$here/k_sm90.ptx"
nvcc -arch=compute_100 -ptx k.cu -o "$here/k_sm100.ptx"
nvcc -arch=sm_80 -rdc=true -ptx a.cu -o "$here/a.ptx"
nvcc -arch=sm_80 -rdc=true -ptx b.cu -o "$here/b.ptx"

# Executables: -cudart shared (stripped; with a DT_RUNPATH), and the default static cudart
# (with a DT_RPATH; only two symbols kept, code and data bytes dropped by shrink_elf.py).
nvcc -cudart shared -arch=sm_80 -Xlinker -rpath=/opt/warpvm/lib k.cu -o k_shared_exe
strip -o "$here/k_shared.elf" k_shared_exe
nvcc -arch=sm_80 -Xlinker --disable-new-dtags -Xlinker -rpath=/opt/legacy/lib k.cu -o k_static_exe
marker="$(nm k_static_exe | awk '$3 ~ /^libcudart_static_/ && !n++ { print $3 }')"
strip --keep-symbol=__cudaRegisterFatBinary --keep-symbol="$marker" -o k_static_kept k_static_exe
python3 "$here/shrink_elf.py" k_static_kept "$here/k_static.elf"

nvcc --version | tail -2 | head -1 > "$here/NVCC_VERSION"
ls -l "$here"
