#!/usr/bin/env bash
# bench/omp/run.sh — warpvm's JIT against single-threaded OpenMP on whole programs (issue 15's last target;
# bench/omp/README.md). Builds every program of bench/omp/programs.txt twice — NAME.cu with nvcc (as a user
# builds it) and NAME.c with gcc -fopenmp — into build/bench/omp/, runs them (bench/omp/run.py: the CUDA build
# under warpvm --engine jit, the OpenMP build on 1 thread and on all), checks that both compute the same, and
# prints the medians as a Markdown table (also written to build/bench/omp/results.md and, unless --no-readme,
# --filter or WARPVM, into README.md's "Whole programs against OpenMP"). Needs warpvm built
# (./scripts/demo.sh or bench/run.sh), nvcc and python3. About 5 minutes at the default 5 repetitions.
#
#   bash bench/omp/run.sh [--reps N] [--filter NAME] [--no-readme]     (WARPVM=PATH: another build's warpvm)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=5 filter="" readme=1
usage() { sed -n 's/^#   //p' "$0" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || usage; reps="$2"; shift ;;
    --filter) [ $# -ge 2 ] || usage; filter="$2"; shift; readme=0 ;;
    --no-readme) readme=0 ;;
    -h|--help) sed -n 's/^#   //p' "$0"; exit 0 ;;
    *) usage ;;
  esac
  shift
done
W=${WARPVM:-build/warpvm}
[ -x "$W" ] || { echo "bench/omp/run.sh: build warpvm first (./scripts/demo.sh or bench/run.sh)" >&2; exit 1; }
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "bench/omp/run.sh: no nvcc (set NVCC or install the CUDA toolkit)" >&2; exit 1; }
CC=${CC:-gcc}
out=build/bench/omp
mkdir -p "$out"
# The builds: nvcc's defaults for device code (as tests/apps), the host -O2; the OpenMP C as the benchmark's C.
nvflags=(-O2 -std=c++17 -arch=sm_90)
ccflags=(-O2 -march=native -fopenmp -std=c17)
# stale BIN SRC...: BIN is missing or older than one of the SRCs.
stale() { local bin=$1 f; shift; for f; do [ "$bin" -nt "$f" ] || return 0; done; return 1; }
while read -r name _; do
  case "$name" in ''|'#'*) continue ;; esac
  [[ "$name" == *"$filter"* ]] || continue
  src=bench/omp/$name
  if stale "$out/$name.cuda" "$src.cu" "$src.h" bench/omp/common.h; then
    "$NVCC" "${nvflags[@]}" "$src.cu" -o "$out/$name.cuda"
  fi
  if stale "$out/$name.omp" "$src.c" "$src.h" bench/omp/common.h; then
    "$CC" "${ccflags[@]}" "$src.c" -o "$out/$name.omp" -lm
  fi
done < bench/omp/programs.txt

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- src include bench CMakeLists.txt 2>/dev/null || commit="$commit (with uncommitted changes)"
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
[ "$readme" = 1 ] && [ -z "${WARPVM:-}" ] && readme_args=(--readme README.md) || readme_args=()
python3 bench/omp/run.py --bin "$out" --warpvm "$W" --reps "$reps" --filter "$filter" --md "$out/results.md" "${readme_args[@]}" \
  --meta "commit $commit, $(date -u +%Y-%m-%d)" \
  --meta "machine: ${cpu:-$(uname -m)}, $(nproc) cores, $(uname -s) $(uname -r)" \
  --meta "nvcc: $("$NVCC" --version | sed -n 's/^Cuda compilation tools, //p') (${nvflags[*]})" \
  --meta "OpenMP: $("$CC" --version | head -1) (${ccflags[*]})"
