# nvcc.sh — finding nvcc, for every test script that compiles CUDA (sourced, not run).
# shellcheck shell=bash

# find_nvcc: prints the nvcc to use ($NVCC, $NVCC_BIN, nvcc on PATH, /usr/local/cuda/bin/nvcc); returns 1 if none.
find_nvcc() {
  local c
  for c in "${NVCC:-}" "${NVCC_BIN:-}" "$(command -v nvcc 2>/dev/null)" /usr/local/cuda/bin/nvcc; do
    if [ -n "$c" ] && [ -x "$c" ]; then
      echo "$c"
      return 0
    fi
  done
  return 1
}
