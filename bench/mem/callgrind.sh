#!/bin/sh
# callgrind.sh [BUILD] — instructions per lane access of each memops.ptx kernel (README.md beside it).
# Each case runs at two round counts under valgrind --tool=callgrind; the difference in instructions over the
# difference in lane accesses (the kernel's memory instructions x 32 lanes) is the cost of one lane's access,
# loop overhead (about 5 warp instructions per 8 accesses) included.
B=${1:-build}
D=$(dirname "$0")
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$B/warpvm" run "$D/memops.ptx" "$@" 2>&1 |
       sed -n 's/.*Collected : *//p'; }
acc() { # kernel, accesses per round per thread, args before the rounds, args after
  k=$1 n=$2 pre=$3 post=$4
  a=$(ir --kernel "$k" --grid 4 --block 256 $pre --arg u32:20 $post)
  b=$(ir --kernel "$k" --grid 4 --block 256 $pre --arg u32:120 $post)
  echo "$k $a $b" | awk -v n="$n" '{ printf "%-8s %8.1f instr/lane access  (%s .. %s Ir)\n", $1, ($3-$2)/(100*1024*n), $2, $3 }'
}
acc lds 8 "--arg buf:4096"
acc sts 8 "--arg buf:4096"
acc ldg 8 "--arg buf:8192:iota32 --arg buf:4096"
acc ldgen 8 "--arg buf:8192:iota32 --arg buf:4096"
acc stg 8 "--arg buf:8192"
acc atomg 4 "--arg buf:4096"
acc cpa 8 "--arg buf:495616:rand32:7 --arg buf:1024" "--async-delivery at-wait"
acc cpa 8 "--arg buf:495616:rand32:7 --arg buf:1024" "--async-delivery eager"
acc cpae 9 "--arg buf:495616:rand32:7 --arg buf:1024" "--async-delivery at-wait"
# Whole kernels (matmul.ptx, n = 128): host instructions per simulated thread-instruction, start-up included.
for k in mm_tiled mm_naive; do
  set -- --kernel $k --grid 8,8 --block 16,16 --arg buf:65536:rand32:5 --arg buf:65536:rand32:6 --arg buf:65536 --arg u32:128
  t=$("$B/warpvm" run "$D/matmul.ptx" "$@" --stats 2>&1 | sed -n 's/^thread_instructions: //p')
  i=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$B/warpvm" run "$D/matmul.ptx" "$@" 2>&1 | sed -n 's/.*Collected : *//p')
  echo "$k $i $t" | awk '{ printf "%-8s %8.1f instr/thread-instruction  (%s Ir, %s thread-instructions)\n", $1, $2/$3, $2, $3 }'
done
