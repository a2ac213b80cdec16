/*
 * cfg.c — control-flow analysis of a decoded function: basic blocks, the post-dominator tree
 * (Cooper, Harvey & Kennedy's iterative algorithm on the reversed CFG, rooted at a virtual exit
 * node that ret/exit/trap reach), and for every conditional branch its reconvergence point:
 * the first instruction of its block's immediate post-dominator (WV_RPC_EXIT when paths meet
 * only at the function's end, WV_RPC_NONE when they never meet, e.g. an infinite loop).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

typedef struct cfg {
  uint32_t nb;           /* blocks; node nb is the virtual exit */
  uint32_t *start;       /* first instruction of each block */
  uint32_t *succ;        /* two successors per block (UINT32_MAX = none) */
  uint32_t *blk;         /* instruction → block */
} cfg;

static int ends_block(const wv_insn *in) {
  return in->ctl == WV_CTL_BRA || in->ctl == WV_CTL_RET || in->ctl == WV_CTL_EXIT || in->ctl == WV_CTL_TRAP;
}

static int build(const wv_func *f, cfg *g) {
  uint32_t n = f->ncode;
  uint8_t *lead = calloc(n + 1, 1);
  g->blk = calloc(n + 1, sizeof *g->blk);
  if (!lead || !g->blk) { free(lead); return -1; }
  lead[0] = 1;
  for (uint32_t i = 0; i < n; i++) {
    const wv_insn *in = &f->code[i];
    if (in->ctl == WV_CTL_BRA && in->target < n) lead[in->target] = 1;
    if (ends_block(in) && i + 1 < n) lead[i + 1] = 1;
  }
  g->nb = 0;
  for (uint32_t i = 0; i < n; i++) g->nb += lead[i];
  g->start = calloc(g->nb + 1, sizeof *g->start);
  g->succ = malloc((size_t)(g->nb + 1) * 2 * sizeof *g->succ);
  if (!g->start || !g->succ) { free(lead); return -1; }
  uint32_t b = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (lead[i]) g->start[b++] = i;
    g->blk[i] = b - 1;
  }
  uint32_t exitn = g->nb;
  for (uint32_t k = 0; k < g->nb; k++) {
    uint32_t last = (k + 1 < g->nb ? g->start[k + 1] : n) - 1;
    const wv_insn *in = &f->code[last];
    uint32_t *s = &g->succ[2 * k];
    s[0] = s[1] = UINT32_MAX;
    uint32_t fall = last + 1 < n ? g->blk[last + 1] : exitn;
    switch (in->ctl) {
    case WV_CTL_BRA:
      s[0] = in->target < n ? g->blk[in->target] : exitn;
      if (in->guard >= 0) s[1] = fall;
      break;
    case WV_CTL_RET: case WV_CTL_EXIT: case WV_CTL_TRAP:
      s[0] = exitn;
      if (in->guard >= 0) s[1] = fall;
      break;
    default:
      s[0] = fall;
      break;
    }
  }
  free(lead);
  return 0;
}

/* Post-dominators: dominators of the reversed graph, rooted at exit. */
static int postdom(const cfg *g, uint32_t *ipdom) {
  uint32_t N = g->nb + 1, exitn = g->nb;
  /* predecessors in the reversed graph = successors in the CFG; the reversed graph's edges
   * go from a node to its CFG predecessors, which we collect here */
  uint32_t *npred = calloc(N, sizeof *npred), *off = calloc(N + 1, sizeof *off);
  uint32_t *order = malloc(N * sizeof *order), *rpo = malloc(N * sizeof *rpo);
  uint32_t *stack = malloc(N * 2 * sizeof *stack);
  uint8_t *seen = calloc(N, 1);
  if (!npred || !off || !order || !rpo || !stack || !seen) goto oom;
  for (uint32_t b = 0; b < g->nb; b++)
    for (int k = 0; k < 2; k++) if (g->succ[2 * b + k] != UINT32_MAX) npred[g->succ[2 * b + k]]++;
  for (uint32_t i = 0; i < N; i++) off[i + 1] = off[i] + npred[i];
  uint32_t *preds = malloc((off[N] + 1) * sizeof *preds);
  if (!preds) goto oom;
  memset(npred, 0, N * sizeof *npred);
  for (uint32_t b = 0; b < g->nb; b++)
    for (int k = 0; k < 2; k++) {
      uint32_t s = g->succ[2 * b + k];
      if (s != UINT32_MAX) preds[off[s] + npred[s]++] = b;
    }
  /* iterative DFS from exit over CFG-predecessor edges, recording postorder */
  uint32_t no = 0, sp = 0;
  stack[sp++] = exitn;
  stack[sp++] = 0;
  seen[exitn] = 1;
  while (sp) {
    uint32_t it = stack[sp - 1], v = stack[sp - 2];
    if (it < npred[v]) {
      stack[sp - 1]++;
      uint32_t p = preds[off[v] + it];
      if (!seen[p]) { seen[p] = 1; stack[sp++] = p; stack[sp++] = 0; }
    } else {
      order[v] = no;
      rpo[no++] = v;
      sp -= 2;
    }
  }
  for (uint32_t i = 0; i < N; i++) ipdom[i] = UINT32_MAX;
  ipdom[exitn] = exitn;
  for (int changed = 1; changed;) {
    changed = 0;
    for (uint32_t k = no; k-- > 0;) { /* reverse postorder */
      uint32_t b = rpo[k];
      if (b == exitn) continue;
      uint32_t nd = UINT32_MAX;
      for (int j = 0; j < 2; j++) { /* "predecessors" in the reversed graph: CFG successors */
        uint32_t s = g->succ[2 * b + j];
        if (s == UINT32_MAX || ipdom[s] == UINT32_MAX) continue;
        if (nd == UINT32_MAX) { nd = s; continue; }
        uint32_t x = s, y = nd;
        while (x != y) {
          while (order[x] < order[y]) x = ipdom[x];
          while (order[y] < order[x]) y = ipdom[y];
        }
        nd = x;
      }
      if (nd != ipdom[b]) { ipdom[b] = nd; changed = 1; }
    }
  }
  free(preds);
  free(npred); free(off); free(order); free(rpo); free(stack); free(seen);
  return 0;
oom:
  free(npred); free(off); free(order); free(rpo); free(stack); free(seen);
  return -1;
}

int wv_cfg_reconvergence(wv_func *f, char *err, size_t errlen) {
  if (!f->ncode) return 0;
  cfg g;
  memset(&g, 0, sizeof g);
  uint32_t *ipdom = NULL;
  int rc = -1;
  if (build(f, &g)) goto out;
  ipdom = malloc((g.nb + 1) * sizeof *ipdom);
  if (!ipdom || postdom(&g, ipdom)) goto out;
  for (uint32_t i = 0; i < f->ncode; i++) {
    wv_insn *in = &f->code[i];
    if ((in->ctl != WV_CTL_BRA && in->ctl != WV_CTL_RET) || in->guard < 0) continue;
    uint32_t p = ipdom[g.blk[i]];
    in->rpc = p == UINT32_MAX ? WV_RPC_NONE : p == g.nb ? WV_RPC_EXIT : g.start[p];
  }
  rc = 0;
out:
  if (rc && err && errlen) {
    strncpy(err, "out of memory in control-flow analysis", errlen - 1);
    err[errlen - 1] = 0;
  }
  free(ipdom);
  free(g.start);
  free(g.succ);
  free(g.blk);
  return rc;
}
