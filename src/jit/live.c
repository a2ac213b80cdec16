/*
 * live.c — which registers of a PTX function are live where (jit.h wv_jit_live): the classic backward
 * data-flow over the instruction graph, so that a compiled region stores back only the registers some later
 * instruction may read. It errs on the side of "live": an instruction whose operands the JIT does not know
 * exactly (anything select.c does not compile, except bra, ret/exit and bar) reads every register, and only an
 * unguarded write kills (a guarded one leaves the other lanes' values, which may be read later). Each thread's
 * path is a path of this graph, so a register dead at a point is dead there for every lane that stands there;
 * lanes elsewhere keep their values, as a store that does not happen changes nothing. Except where a lane reads
 * another's register: a collective's source operand (shfl.sync's a) is live everywhere, since a collective whose
 * membermask names lanes that are elsewhere (undefined in the PTX ISA; the interpreter reads what their registers
 * hold then) reads the register of a lane standing at any point.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/handlers.h"
#include "exec/warp.h"
#include "jit/jit.h"

/* Whether `in` is an instruction the JIT leaves to the interpreter whose register reads are exactly its source
 * slots and which writes no register: cp.async's copy (a: the shared address, b: the global one, c: src-size),
 * commit_group, wait_group and wait_all. Otherwise every register would be live before each of them, and a
 * region ending there would store back all it wrote (async_copy's four tile regions stored 8 dead registers). */
static int reads_sources_only(const wv_insn *in) {
  return in->op == WV_OP_CP && (in->mode == WV_CP_COPY || in->mode == WV_CP_COMMIT || in->mode == WV_CP_WAIT_GROUP ||
                                in->mode == WV_CP_WAIT_ALL);
}

/* Registers instruction `in` may read (1: every register) and those it surely overwrites. */
static int effects(const wv_insn *in, uint32_t *use, uint32_t *nuse, uint32_t *kill, uint32_t *nkill) {
  wv_jop o;
  *nuse = *nkill = 0;
  int known = wv_jit_select(in, &o), exact = !known && reads_sources_only(in);
  if (!known && !exact && !(in->ctl == WV_CTL_BRA || in->ctl == WV_CTL_RET || in->ctl == WV_CTL_EXIT || in->ctl == WV_CTL_BAR))
    return 1;
  if (in->ctl == WV_CTL_BAR && in->mode != WV_BAR_SYNC && in->mode != WV_BAR_ARRIVE) return 1;
  /* every source field, over-approximated: a predicate index there reads as some register, which only keeps
   * that one live */
  unsigned nst = o.kind == WV_JK_ST ? (o.vec > 1 ? o.vec : 1) : 0; /* (a store's values: d[0 .. vec - 1]) */
  const uint32_t src[] = {in->a, in->b, in->c, in->e, nst > 0 ? in->d[0] : WV_NOSLOT, nst > 1 ? in->d[1] : WV_NOSLOT,
                          nst > 2 ? in->d[2] : WV_NOSLOT, nst > 3 ? in->d[3] : WV_NOSLOT};
  for (size_t i = 0; i < sizeof src / sizeof *src; i++)
    if (src[i] != WV_NOSLOT && WV_SLOT_BANK(src[i]) == WV_SLOT_REG) use[(*nuse)++] = WV_SLOT_INDEX(src[i]);
  uint32_t d[4];
  unsigned nd = known && in->guard < 0 ? wv_jop_dregs(in, &o, d) : 0;
  for (unsigned i = 0; i < nd; i++)
    if (d[i] != WV_NOSLOT && WV_SLOT_BANK(d[i]) == WV_SLOT_REG) kill[(*nkill)++] = WV_SLOT_INDEX(d[i]);
  return 0;
}

/* (jit.h) */
uint64_t *wv_jit_live(const wv_func *f, uint32_t *words_out) {
  uint32_t n = f->ncode, w = (f->nregs + 63) / 64;
  if (!w) w = 1;
  *words_out = w;
  uint64_t *live = calloc((size_t)(n + 1) * w, sizeof *live), *acc = calloc(w, sizeof *acc), *cross = calloc(w, sizeof *cross);
  if (!live || !acc || !cross) {
    free(live);
    free(acc);
    free(cross);
    return NULL;
  }
  for (uint32_t pc = 0; pc < n; pc++) { /* the registers other lanes read */
    uint32_t a = f->code[pc].a;
    if (f->code[pc].ctl == WV_CTL_COLL && a != WV_NOSLOT && WV_SLOT_BANK(a) == WV_SLOT_REG && WV_SLOT_INDEX(a) < (uint64_t)w * 64)
      cross[WV_SLOT_INDEX(a) / 64] |= 1ull << (WV_SLOT_INDEX(a) % 64);
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (uint32_t pc = n; pc-- > 0;) {
      const wv_insn *in = &f->code[pc];
      /* live out: the successors' live in */
      memset(acc, 0, w * sizeof *acc);
      int falls = !((in->ctl == WV_CTL_BRA || in->ctl == WV_CTL_RET || in->ctl == WV_CTL_EXIT || in->ctl == WV_CTL_TRAP) &&
                    in->guard < 0);
      if (falls)
        for (uint32_t i = 0; i < w; i++) acc[i] |= live[(size_t)(pc + 1) * w + i];
      if (in->ctl == WV_CTL_BRA && in->target < n)
        for (uint32_t i = 0; i < w; i++) acc[i] |= live[(size_t)in->target * w + i];
      uint32_t use[8], nuse, kill[4], nkill;
      if (effects(in, use, &nuse, kill, &nkill)) {
        memset(acc, 0xff, w * sizeof *acc);
      } else {
        for (uint32_t i = 0; i < nkill; i++)
          if (kill[i] < f->nregs) acc[kill[i] / 64] &= ~(1ull << (kill[i] % 64));
        for (uint32_t i = 0; i < nuse; i++)
          if (use[i] < (uint64_t)w * 64) acc[use[i] / 64] |= 1ull << (use[i] % 64);
      }
      for (uint32_t i = 0; i < w; i++) acc[i] |= cross[i];
      uint64_t *dst = &live[(size_t)pc * w];
      if (memcmp(dst, acc, w * sizeof *acc)) {
        memcpy(dst, acc, w * sizeof *acc);
        changed = 1;
      }
    }
  }
  for (uint32_t i = 0; i < w; i++) live[(size_t)n * w + i] = cross[i];
  free(acc);
  free(cross);
  return live;
}
