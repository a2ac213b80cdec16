#!/usr/bin/env bash
# build_ptx.sh — remake kernels.ptx from kernels.cu (committed, so tests need no nvcc): sm_90, -lineinfo
# (the PTX carries .loc lines, which the report names), -O3 as nvcc's default device code.
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
"$NVCC" -arch=sm_90 -lineinfo -ptx -o kernels.ptx kernels.cu
