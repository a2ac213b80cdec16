#!/bin/bash
# misuse_probe.sh OUT — on a machine with nvcc and an NVIDIA GPU: build misuse_probe.cu and record what
# CUDA does (misuse cases, printf FIFO) in OUT/*.txt. tests/cudart/misuse_h100.txt is those files joined.
O=$1
cd "$(dirname "$0")" || exit 1
nvcc --version | tail -2 > $O/env.txt; nvidia-smi --query-gpu=name,driver_version --format=csv >> $O/env.txt
nvcc -O2 -cudart shared -arch=sm_90 -o /tmp/misuse_probe misuse_probe.cu 2>$O/build.txt || exit 1
timeout 120 /tmp/misuse_probe > $O/misuse.txt 2>&1
pf() { # fifo n threads
  timeout 60 /tmp/misuse_probe printf "$@" > /tmp/pf.out 2>/tmp/pf.err
  echo "== printf fifo=$1 n=$2 threads=${3:-0}: $(tr '\n' ' ' < /tmp/pf.err) lines=$(wc -l < /tmp/pf.out) bytes=$(wc -c < /tmp/pf.out)"
  echo "first: $(head -n 3 /tmp/pf.out | tr '\n' '|') last: $(tail -n 3 /tmp/pf.out | tr '\n' '|')"
  if [ "${3:-0}" != 0 ]; then echo "threads seen: $(cut -c1-4 /tmp/pf.out | sort -u | tr '\n' ' ' | head -c 2000)"; fi
}
{
pf 0 200000
pf 4096 1000
pf 8192 1000
pf 65536 10000
pf 4096 4 256
pf 4096 100 32
pf 1 10
pf 100 10
pf 1000 10
} > $O/printf.txt 2>&1
timeout 60 /tmp/misuse_probe wide 1000000 > /tmp/w.out 2>/tmp/w.err
{ echo "wide: $(cat /tmp/w.err) bytes=$(wc -c < /tmp/w.out) lines=$(wc -l < /tmp/w.out)"; head -c 100 /tmp/w.out | od -c | head -3; tail -c 30 /tmp/w.out | od -c; } > $O/wide.txt 2>&1
