/*
 * contractions.c — `warpvm contractions`: the FMA contraction decisions the decoder recorded
 * (src/ir/contract.c, wv_func.fusions), one line per contractible mul and add/sub.
 */
#include <stdio.h>

#include "rt/vm_internal.h"

static const char *why_text(int why) {
  switch (why) {
  case WV_WHY_USE: return "the product has a use other than a contractible add/sub";
  case WV_WHY_BLOCK: return "the product is used in another block";
  case WV_WHY_LOST: return "an add/sub took the other operand's product";
  case WV_WHY_FTZ: return "an add/sub reading it differs in .ftz";
  case WV_WHY_TWICE: return "an add/sub reads the product twice";
  default: return NULL;
  }
}

static void print_one(const char *file, const wv_fusion *r, FILE *out) {
  static const char *const mul_status[] = {"", "kept", "fused", "partly", "dead"};
  const char *why = why_text(r->why);
  if (r->kind == WV_FU_MUL) {
    fprintf(out, "%s:%u: %s %s%s%s\n", file, r->line, wv_ops[r->op].mnemonic, mul_status[r->status], why ? ": " : "",
            why ? why : "");
    return;
  }
  const char *op = wv_ops[r->op].mnemonic;
  if (r->status == WV_FU_FMA) fprintf(out, "%s:%u: %s fma %u\n", file, r->line, op, r->mul_line);
  else if (r->mul_line) fprintf(out, "%s:%u: %s separate (mul %u: %s)\n", file, r->line, op, r->mul_line, why ? why : "");
  else fprintf(out, "%s:%u: %s separate\n", file, r->line, op);
}

wv_status wv_module_print_contractions(wv_vm *vm, const wv_module *m, FILE *out) {
  if (!vm || !m || !out) return WV_ERR_INVALID;
  for (uint32_t f = 0; f < m->ir.nfuncs; f++) {
    const wv_func *fn = &m->ir.funcs[f];
    for (uint32_t i = 0; fn->defined && i < fn->nfusions; i++) print_one(m->ir.filename, &fn->fusions[i], out);
  }
  return WV_OK;
}
