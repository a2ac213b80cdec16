#!/usr/bin/env bash
# make_dict.sh SRC OUTDIR — the libFuzzer dictionaries, generated from warpvm's own tables so they
# follow the code: OUTDIR/ptx.dict (every mnemonic of src/ir/ops.def, every directive the parser and
# decoder name, every modifier the decoder reads — types and state spaces among them —, special
# registers, operand forms) and OUTDIR/gcn.dict (the GCN assembler's mnemonics and register names).
set -euo pipefail
src=$1 out=$2
mkdir -p "$out"
quote() { sort -u | grep -v '^$' | sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/"&"/'; }
{
  sed -n 's/^OP([A-Z0-9_]*, *"\([^"]*\)".*/\1/p' "$src/src/ir/ops.def"
  grep -oh '"\.[A-Za-z0-9_]*"' "$src"/src/ptx/*.c "$src"/src/ir/*.c | tr -d '"'
  grep -oh '"[a-z][a-z0-9_]*"' "$src/src/ir/decode_ops.c" "$src/src/ir/decode.c" "$src/src/ir/ops.c" | tr -d '"' | sed 's/^/./'
  grep -oh '"%[a-z_][a-z_.0-9]*"' "$src"/src/*/*.c | tr -d '"'
  printf '%s\n' '{' '}' ';' ', ' '[' ']' '|' '::' '@%p1' '@!%p1' '%p1' '%r1' '%rd1' '%f1' '%fd1' '%h1' '%rs1' \
    '%r<8>' '%rd<8>' '%p<4>' '.b8 ' '[%rd1+4]' '0f3F800000' '0d3FF0000000000000' '0x7fffffff' '-1' \
    '$L__BB0_1' '$L__BB0_1:' 'bra.uni' '.version 8.0' '.target sm_90' '.address_size 64' \
    '.visible .entry k(' ' .param .u64 k_param_0' 'ret;' 'exit;' '0xffffffff' 'func_retval0' 'vprintf' 'malloc'
} | quote > "$out/ptx.dict"
{
  grep -oh '{"[a-z_0-9]*", OP_' "$src/src/amd/gcn.c" | sed 's/{"\([^"]*\)".*/\1/'
  printf '%s\n' v0 v1 v255 s0 s105 's[0:1]' 's[104:105]' vcc vcc_lo vcc_hi exec exec_lo exec_hi \
    'offset:4' 'lgkmcnt(0)' 'L0:' 'L0' ', ' '//' ';' '0x80000000' '-1' 'scc'
} | quote > "$out/gcn.dict"
