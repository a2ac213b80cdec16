#!/usr/bin/env bash
# explore.sh OUTFILE — on a GPU machine: builds explore.cu and memprobe (nvcc, -cudart shared -arch=sm_90), runs
# the measurements below, JOBS (default 16) processes at a time, and writes their output, in list order, to
# OUTFILE (tests/memprobe/golden/explore.out). README.md says what each decides. About two minutes.
# explore.sh --list prints the list (one "PROGRAM ARGS..." a line): check_explore.sh replays it under warpvm.
set -u
if [ $# -ne 1 ]; then echo "usage: $0 OUTFILE | --list" >&2; exit 2; fi
HERE=$(cd "$(dirname "$0")" && pwd)
probes() {
  # which sizes are small (packed in a chunk) and where a second chunk goes
  for x in 1048576 1048577 1310720 1572864 1835008 2096640 2097151 2097152; do echo "explore thr $x"; done
  echo "explore seq 16 $(for i in $(seq 40); do printf '65536 '; done)1048576 1048576 1048576 1048576 100"
  echo "explore seq 100 100 -1 100 200 -2 100 100 -5 100"
  echo "explore seq 100 3145728 -2 3145728 2097152 -4 2097152 1048576 100"
  echo "explore seq 16 3145728 3145728 3145728 67108864 3145728 1073741824 3145728 100"
  echo "explore seq 1048576 1048576 1048576 1048576 100 1048576"
  # freed memory: used again? zeroed? an emptied chunk unmapped?
  for x in 100 1048576 3145728; do echo "explore reuse $x"; done
  echo "explore chunkrel"
  # the mapped range around the first chunk, without and with a large allocation (2 MiB steps)
  for l in 0 3145728; do for k in $(seq -64 96); do echo "explore map $l $((k * 2097152))"; done; done
  for o in -167772160 -201326592 -268435456 -402653184 -536870912 77594620 77594624; do echo "explore map 0 $o"; done
  # shared: where the window ends (addresses 0xfffffc, 0x1000000, ...; 0: below the variables)
  for a in 0xfffbfc 0xfffc00 0x7ffc00 0x1ffc00 0xfffffc00 0xfffffbfc; do echo "memprobe shared-unwritten 4 $a"; done
  # local: how far below and above a 64-byte frame reads reach
  for d in -4 -0x200 -0x3c0 -0x400 -0x404 -0x480 -0x800 -0x1000 -0x10000 -0x100000 -0xfffd80 0x27c 0x280; do
    echo "memprobe local-unwritten 2 $(((d + 0x100000000) & 0xffffffff))"
  done
  echo "explore frames"
}
if [ "$1" = --list ]; then probes; exit 0; fi
touch "$1" || exit 2
OUTF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
CUDA=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH=$CUDA/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$(mktemp -d)
trap 'rm -rf "$B"' EXIT
cd "$HERE" || exit 2
F="-O2 -std=c++17 -cudart shared -arch=sm_90"
"$CUDA/bin/nvcc" $F explore.cu -o "$B/explore" || exit 1
"$CUDA/bin/nvcc" $F memprobe.cu mp_shared.cu mp_dyn.cu mp_generic.cu -o "$B/memprobe" || exit 1
probes | nl -ba -w4 -nrz -s' ' >"$B/list"
mkdir -p "$B/res"
cd "$B" || exit 2
xargs -P "${JOBS:-16}" -L 1 sh -c 'n=$0; ./"$@" >res/$n 2>&1 || echo "$*: exit $?" >>res/$n' <list
cat res/* >"$OUTF"
echo "explore: $(wc -l <"$OUTF") lines in $OUTF"
