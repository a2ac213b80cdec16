/*
 * ops.c — the tables that expand from ops.def (mnemonic, cost class, synopsis per opcode) and
 * the PTX type names and sizes.
 */
#include <string.h>

#include "ir/ir.h"

const wv_opinfo wv_ops[WV_OP_COUNT] = {
#define OP(id, mnem, dec, cls, syn) [WV_OP_##id] = {mnem, cls, syn},
#include "ops.def"
#undef OP
};

static const struct { const char *name; unsigned size; } types[WV_T_COUNT] = {
  [WV_T_NONE] = {"", 0},     [WV_T_B8] = {"b8", 1},     [WV_T_B16] = {"b16", 2},
  [WV_T_B32] = {"b32", 4},   [WV_T_B64] = {"b64", 8},   [WV_T_B128] = {"b128", 16},
  [WV_T_U8] = {"u8", 1},     [WV_T_U16] = {"u16", 2},   [WV_T_U32] = {"u32", 4},
  [WV_T_U64] = {"u64", 8},   [WV_T_S8] = {"s8", 1},     [WV_T_S16] = {"s16", 2},
  [WV_T_S32] = {"s32", 4},   [WV_T_S64] = {"s64", 8},   [WV_T_F16] = {"f16", 2},
  [WV_T_F16X2] = {"f16x2", 4}, [WV_T_BF16] = {"bf16", 2}, [WV_T_BF16X2] = {"bf16x2", 4},
  [WV_T_TF32] = {"tf32", 4}, [WV_T_F32] = {"f32", 4},   [WV_T_F64] = {"f64", 8},   [WV_T_PRED] = {"pred", 0},
};

wv_type wv_type_parse(const char *s) {
  for (int t = 1; t < WV_T_COUNT; t++)
    if (!strcmp(s, types[t].name)) return (wv_type)t;
  return WV_T_NONE;
}
const char *wv_type_name(wv_type t) { return t < WV_T_COUNT ? types[t].name : "?"; }
unsigned wv_type_size(wv_type t) { return t < WV_T_COUNT ? types[t].size : 0; }
int wv_type_is_float(wv_type t) {
  return t == WV_T_F16 || t == WV_T_F16X2 || t == WV_T_BF16 || t == WV_T_BF16X2 || t == WV_T_TF32 || t == WV_T_F32 ||
         t == WV_T_F64;
}
int wv_type_is_signed(wv_type t) { return t == WV_T_S8 || t == WV_T_S16 || t == WV_T_S32 || t == WV_T_S64; }
