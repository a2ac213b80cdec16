# ptxrun.sh — building the reference GPU runner ptxrun on a GPU machine, for the record_on_gpu.sh scripts
# (sourced, not run).
# shellcheck shell=bash

# build_ptxrun SRC CUDA OUTDIR: compiles SRC (a copy of /work/shared/tools/ptxrun.c) into OUTDIR/ptxrun against
# the driver stub library, or against the real libcuda.so.1 when the stub-linked binary does not load (a usage
# error, exit 1, means it loaded). Sets PTXRUN (the binary) and PTXRUN_BUILD (the command, for provenance files).
build_ptxrun() {
  local src=$1 cuda=$2 dir=$3 lib
  [ -f "$src" ] || { echo "record_on_gpu: no ptxrun.c at $src" >&2; return 1; }
  PTXRUN_BUILD="cc -O2 -o $dir/ptxrun $src -I$cuda/include -L$cuda/lib64/stubs -lcuda"
  $PTXRUN_BUILD || return 1
  "$dir/ptxrun" >/dev/null 2>&1
  if [ $? -ne 1 ]; then
    lib=$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')
    PTXRUN_BUILD="cc -O2 -o $dir/ptxrun $src -I$cuda/include $lib"
    $PTXRUN_BUILD || return 1
  fi
  PTXRUN=$dir/ptxrun
}
