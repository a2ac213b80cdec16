#!/usr/bin/env bash
# demo.sh — build warpvm, run the reference texts' shuffle examples on the virtual GPU, then an unmodified
# nvcc-built CUDA program (examples/warp_reduce.cu) under `warpvm ./program`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
W=build/warpvm
K=tests/kernels
echo "== __shfl_sync(0xffffffff, value, 3, 16): every lane gets lane 3's value of its 16-lane segment"
$W run examples/shuffle.ptx --kernel bcast_width16 --block 32 --arg buf:128 --print 0:s32 | tr '\n' ' '; echo
echo "== __shfl_down_sync(0xffffffff, value, 3, 16): the top 3 lanes of each segment keep their own value"
$W run examples/shuffle.ptx --kernel down3_width16 --block 32 --arg buf:128 --print 0:s32 | tr '\n' ' '; echo
echo "== scan4: __shfl_down_sync(0xff, val, offset, 8) on 2 blocks of 8 threads, with device printf"
$W run examples/shuffle.ptx --kernel scan4 --grid 2 --block 8 | sort -V | head -8
echo "== tree reduction of 0..31 with __shfl_down_sync: lane 0 holds the sum; --stats counters"
stats=$(mktemp)
$W run examples/shuffle.ptx --kernel tree_reduce --block 32 --arg buf:128:iota32 --print 0:u32 --stats 2>"$stats" |
  sed -n '2s/^/lane 0: /p'
grep -E '^(warp_instructions|thread_instructions|simt_efficiency|collectives|kernel_seconds):' "$stats" | sed 's/^/   /'
rm -f "$stats"
echo "== a device fault is reported with kernel, block, thread, PTX line and address (exit status 2)"
$W run examples/shuffle.ptx --kernel tree_reduce --block 64 --arg buf:128 || true
echo
echo "== an unmodified CUDA program: nvcc -cudart shared, then warpvm ./program"
NVCC=$(command -v nvcc || true)
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -n "$NVCC" ]; then
  mkdir -p build/examples
  "$NVCC" -cudart shared -arch=sm_80 -O2 examples/warp_reduce.cu -o build/examples/warp_reduce
  echo "\$ nvcc -cudart shared -arch=sm_80 -O2 examples/warp_reduce.cu -o build/examples/warp_reduce"
  echo "\$ build/warpvm ./build/examples/warp_reduce"
  $W ./build/examples/warp_reduce
  echo "\$ build/warpvm --machine gfx90a --stats ./build/examples/warp_reduce     # on the AMD wave64 model"
  $W --machine gfx90a --stats ./build/examples/warp_reduce
else
  echo "(nvcc not found: install the CUDA toolkit to build CUDA programs; warpvm itself needs no GPU)"
fi
