#!/usr/bin/env bash
# record_on_gpu.sh [OUT] — record the apps' goldens on a real NVIDIA GPU: ../programs/record_on_gpu.sh run on
# this suite (it says what it does and writes). Then unpack OUT/golden.tgz here (tests/apps/golden/) and copy
# OUT/PROVENANCE.md into it.
HERE=$(cd "$(dirname "$0")" && pwd)
WV_SUITE=$HERE exec bash "$HERE/../programs/record_on_gpu.sh" "$@"
