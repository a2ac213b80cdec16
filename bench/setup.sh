#!/usr/bin/env bash
# bench/setup.sh — install what bench/run.sh needs, from Debian packages: warpvm's build (cmake, gcc, make,
# liblz4-dev, libzstd-dev), PoCL, the OpenCL implementation for CPUs the benchmark compares with
# (pocl-opencl-icd, and ocl-icd-opencl-dev + opencl-headers to build against it), matplotlib for the chart
# (python3-matplotlib), lscpu for the machine's name (util-linux), git for the commit.
# Safe to run again: it installs only what is missing. Needs root (or sudo) when something is.
set -euo pipefail
need=()
for p in cmake gcc make liblz4-dev libzstd-dev git pocl-opencl-icd ocl-icd-opencl-dev opencl-headers python3-matplotlib util-linux; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "bench/setup: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
