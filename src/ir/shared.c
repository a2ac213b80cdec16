/*
 * shared.c — the static .shared layout of every kernel, as ptxas lays it out: each kernel gets the
 * variables its call graph reaches, from offset 0 of its area (at .shared address WV_SHARED_BASE), so the kernels of a module do not share one area
 * and each kernel's size is what cudaFuncGetAttributes reports (sharedSizeBytes).
 *
 * The order is ptxas's (measured with ptxas 13.0 -v on small modules): the kernel's own
 * function-scope variables in declaration order; then, where the first function that names a
 * module-scope .shared variable is met, every module-scope variable the kernel reaches, in
 * declaration order; the other reached functions come in the order they were first declared, each
 * adding its own function-scope variables (after the module group if it is the function that brings
 * it). Each variable is aligned in turn. When the module declares an `extern .shared` array, a
 * non-empty static size is rounded up to max(16, the largest extern alignment); the dynamic area
 * starts there (16-byte aligned otherwise). More than 0xc000 bytes is ptxas's error.
 *
 * Function pointers, as ptxas 13.0 counts them (ptxas -v on small modules): a function that calls through a
 * register, names a function as a value, or names a variable initialised with function addresses (a table,
 * a vtable) reaches every function whose address the module takes that way.
 *
 * A function reached from several kernels is decoded once: a variable at the same offset in every
 * kernel that reaches it is an immediate; one whose offsets differ gets a relocation slot, a warp
 * special register the launch fills with the running kernel's offset (wv_func.shared_reloc).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/decode_int.h"

#define MAX_STATIC_SHARED 0xc000u /* ptxas: "uses too much shared data (0x... bytes, 0xc000 max)" */

typedef struct ulist {
  uint32_t *v;
  uint32_t n, cap;
} ulist;

typedef struct lay {
  wv_dec *d;
  uint32_t nf, nv;
  ulist *own, *mrefs, *callees;     /* per function */
  const ptx_func **pf;              /* per function: its definition (for messages) */
  uint32_t *fmark, *vmark, stamp;   /* reach / dedupe marks */
  uint8_t *taken, *fptrs;           /* per function: its address is taken; it uses function pointers */
  uint8_t *ftab;                    /* per variable: initialised with function addresses */
  uint32_t *vuse;                   /* per var: last function that named it (dedupe) */
  uint64_t *first;                  /* per var: offset in the first kernel reaching it, UINT64_MAX none */
  uint8_t *reloc;                   /* per var: offsets differ between kernels */
  uint32_t *rslot;                  /* per var: relocation index */
  ulist group, stack;
  uint32_t ext_align;               /* 0: no extern .shared in the module; else max(16, largest alignment) */
} lay;

static int push(ulist *l, uint32_t x) {
  if (wv_dgrow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v)) return -1;
  l->v[l->n++] = x;
  return 0;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* A name in function f's code: a module .shared variable it uses, or a function it calls. */
static int note_name(lay *L, uint32_t f, const char *name) {
  int64_t v;
  if (!name || !wv_symtab_get(L->d->modsyms, name, &v)) return 0;
  uint32_t i = (uint32_t)v;
  if ((v >> 32) == K_GVAR && L->d->mod->vars[i].space == WV_SPACE_SHARED && L->vuse[i] != f + 1) {
    L->vuse[i] = f + 1;
    return push(&L->mrefs[f], i);
  }
  if ((v >> 32) == K_FUNC && L->d->mod->funcs[i].defined && !L->d->mod->funcs[i].is_entry && L->fmark[i] != f + 1) {
    /* a kernel named in code is launched (dynamic parallelism), never called: its variables are its own */
    L->fmark[i] = f + 1;
    return push(&L->callees[f], i);
  }
  return 0;
}

/* A function the current unit names as a value: 1 (it is now taken). */
static int note_taken(lay *L, const char *name) {
  int64_t v;
  if (!name || !wv_symtab_get(L->d->modsyms, name, &v) || (v >> 32) != K_FUNC) return 0;
  L->taken[(uint32_t)v] = 1;
  return 1;
}

/* What each decoded function of the current unit declares, names and calls (the parser's summary of
 * its body). */
static int scan_unit(lay *L) {
  wv_dec *d = L->d;
  const ptx_module *a = d->ast;
  for (uint32_t i = 0; i < a->nvars; i++) {
    int64_t v;
    int table = 0;
    for (uint32_t k = 0; k < a->vars[i].ninit; k++)
      if (a->vars[i].init[k].kind == PTX_INIT_SYM || a->vars[i].init[k].kind == PTX_INIT_GENERIC)
        table |= note_taken(L, a->vars[i].init[k].sym);
    if (table && wv_symtab_get(d->modsyms, a->vars[i].name, &v) && (v >> 32) == K_GVAR) L->ftab[(uint32_t)v] = 1;
  }
  for (uint32_t i = 0; i < a->nfuncs; i++) {
    const ptx_func *pf = &a->funcs[i];
    uint32_t f = d->funcidx[d->funcbase[d->unit] + i];
    if (!pf->has_body || f == WV_DEC_NONE) continue;
    L->pf[f] = pf;
    for (uint32_t k = 0; k < pf->nshared; k++) {
      int64_t gi;
      if (wv_symtab_get(&d->fnshared, &pf->shared[k], &gi) && push(&L->own[f], (uint32_t)gi)) return -1;
    }
    for (uint32_t k = 0; k < pf->nrefs; k++)
      if (note_name(L, f, pf->refs[k])) return -1;
    for (uint32_t k = 0; k < pf->nvrefs; k++) L->fptrs[f] |= (uint8_t)note_taken(L, pf->vrefs[k]);
    L->fptrs[f] |= pf->calls_indirect;
  }
  return 0;
}

/* Once every unit is scanned: the functions of the current unit that name a table of function addresses. */
static void scan_tables(lay *L) {
  wv_dec *d = L->d;
  for (uint32_t i = 0; i < d->ast->nfuncs; i++) {
    uint32_t f = d->funcidx[d->funcbase[d->unit] + i];
    const ptx_func *pf = &d->ast->funcs[i];
    int64_t v;
    if (!pf->has_body || f == WV_DEC_NONE) continue;
    for (uint32_t k = 0; k < pf->nrefs && !L->fptrs[f]; k++)
      if (wv_symtab_get(d->modsyms, pf->refs[k], &v) && (v >> 32) == K_GVAR && L->ftab[(uint32_t)v]) L->fptrs[f] = 1;
  }
}

/* A function that uses function pointers may enter every function whose address is taken. */
static int add_indirect_callees(lay *L) {
  for (uint32_t f = 0; f < L->nf; f++)
    for (uint32_t c = 0; L->fptrs[f] && c < L->nf; c++)
      if (L->taken[c] && L->d->mod->funcs[c].defined && L->fmark[c] != f + 1) {
        L->fmark[c] = f + 1;
        if (push(&L->callees[f], c)) return -1;
      }
  return 0;
}

/* Marks with L->stamp every function kernel k reaches (k included). */
static int reach(lay *L, uint32_t k) {
  L->stack.n = 0;
  L->fmark[k] = L->stamp;
  if (push(&L->stack, k)) return -1;
  while (L->stack.n) {
    uint32_t f = L->stack.v[--L->stack.n];
    for (uint32_t i = 0; i < L->callees[f].n; i++) {
      uint32_t c = L->callees[f].v[i];
      if (L->fmark[c] == L->stamp) continue;
      L->fmark[c] = L->stamp;
      if (push(&L->stack, c)) return -1;
    }
  }
  return 0;
}

/* Variable v is at offset `off` of kernel k's area: pass 0 finds the variables whose offsets differ between
 * kernels, pass 1 fills the kernels' relocation tables. */
static void record(lay *L, uint32_t v, uint64_t off, wv_func *kf, int pass) {
  off += WV_SHARED_BASE; /* a variable's .shared address: the CTA's variables begin after what the GPU reserves */
  if (pass == 0) {
    if (L->first[v] == UINT64_MAX) L->first[v] = off;
    else if (L->first[v] != off) L->reloc[v] = 1;
  } else if (L->reloc[v]) {
    kf->shared_reloc[L->rslot[v]] = (uint32_t)off;
  }
}

static void place_list(lay *L, const ulist *l, uint64_t *top, wv_func *kf, int pass) {
  for (uint32_t i = 0; i < l->n; i++) {
    const wv_gvar *g = &L->d->mod->vars[l->v[i]];
    if (g->is_extern_shared) continue; /* the dynamic area, after the static one */
    uint64_t off = (*top + g->align - 1) & ~(uint64_t)(g->align - 1);
    *top = off + g->size;
    record(L, l->v[i], off, kf, pass);
  }
}

static int layout_kernel(lay *L, uint32_t k, int pass) {
  wv_dec *d = L->d;
  wv_func *kf = &d->mod->funcs[k];
  L->stamp++;
  if (reach(L, k)) return -1;
  L->group.n = 0; /* every module-scope variable the kernel reaches, in declaration order */
  for (uint32_t f = 0; f < L->nf; f++) {
    if (L->fmark[f] != L->stamp) continue;
    for (uint32_t i = 0; i < L->mrefs[f].n; i++) {
      uint32_t v = L->mrefs[f].v[i];
      if (L->vmark[v] != L->stamp && (L->vmark[v] = L->stamp, push(&L->group, v))) return -1;
    }
  }
  if (L->group.n > 1) qsort(L->group.v, L->group.n, sizeof *L->group.v, cmp_u32);
  uint64_t top = 0;
  int grouped = 0;
  place_list(L, &L->own[k], &top, kf, pass);
  if (L->mrefs[k].n) {
    place_list(L, &L->group, &top, kf, pass);
    grouped = 1;
  }
  for (uint32_t f = 0; f < L->nf; f++) {
    if (f == k || L->fmark[f] != L->stamp) continue;
    if (!grouped && L->mrefs[f].n) {
      place_list(L, &L->group, &top, kf, pass);
      grouped = 1;
    }
    place_list(L, &L->own[f], &top, kf, pass);
  }
  if (L->ext_align && top) top = (top + L->ext_align - 1) & ~(uint64_t)(L->ext_align - 1);
  if (top > MAX_STATIC_SHARED)
    return wv_derr(d, L->pf[k]->loc, "entry function '%s' uses too much shared data (0x%llx bytes, 0x%x max)", kf->name,
                   (unsigned long long)top, MAX_STATIC_SHARED);
  uint32_t dal = L->ext_align ? L->ext_align : 16;
  kf->shared_static = (uint32_t)top;
  kf->shared_dyn = (uint32_t)((top + dal - 1) & ~(uint64_t)(dal - 1));
  for (uint32_t i = 0; i < L->group.n; i++)
    if (d->mod->vars[L->group.v[i]].is_extern_shared) record(L, L->group.v[i], kf->shared_dyn, kf, pass);
  return 0;
}

static void lay_free(lay *L) {
  for (uint32_t f = 0; L->own && f < L->nf; f++) {
    free(L->own[f].v);
    free(L->mrefs[f].v);
    free(L->callees[f].v);
  }
  free(L->own);
  free(L->mrefs);
  free(L->callees);
  free(L->pf);
  free(L->fmark);
  free(L->vmark);
  free(L->vuse);
  free(L->first);
  free(L->reloc);
  free(L->rslot);
  free(L->taken);
  free(L->fptrs);
  free(L->ftab);
  free(L->group.v);
  free(L->stack.v);
}

static int lay_init(lay *L, wv_dec *d) {
  memset(L, 0, sizeof *L);
  L->d = d;
  L->nf = d->mod->nfuncs;
  L->nv = d->mod->nvars;
  size_t nf = L->nf + 1, nv = L->nv + 1;
  L->own = calloc(nf, sizeof *L->own);
  L->mrefs = calloc(nf, sizeof *L->mrefs);
  L->callees = calloc(nf, sizeof *L->callees);
  L->pf = calloc(nf, sizeof *L->pf);
  L->fmark = calloc(nf, sizeof *L->fmark);
  L->vmark = calloc(nv, sizeof *L->vmark);
  L->vuse = calloc(nv, sizeof *L->vuse);
  L->first = malloc(nv * sizeof *L->first);
  L->reloc = calloc(nv, 1);
  L->rslot = calloc(nv, sizeof *L->rslot);
  L->taken = calloc(nf, 1);
  L->fptrs = calloc(nf, 1);
  L->ftab = calloc(nv, 1);
  if (!L->own || !L->mrefs || !L->callees || !L->pf || !L->fmark || !L->vmark || !L->vuse || !L->first || !L->reloc ||
      !L->rslot || !L->taken || !L->fptrs || !L->ftab)
    return -1;
  memset(L->first, 0xff, nv * sizeof *L->first);
  for (uint32_t v = 0; v < L->nv; v++) {
    const wv_gvar *g = &d->mod->vars[v];
    if (g->space == WV_SPACE_SHARED && g->is_extern_shared && g->align > L->ext_align) L->ext_align = g->align;
    if (g->space == WV_SPACE_SHARED && g->is_extern_shared && L->ext_align < 16) L->ext_align = 16;
  }
  return 0;
}

/* Pass 0 gives every variable its offset in the first kernel reaching it and finds those whose
 * offsets differ; they get relocation slots, and pass 1 fills each kernel's table. */
static int layout_all(lay *L) {
  wv_irmod *m = L->d->mod;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      for (uint32_t v = 0; v < L->nv; v++) {
        wv_gvar *g = &m->vars[v];
        if (g->space != WV_SPACE_SHARED) continue;
        g->addr = L->first[v] == UINT64_MAX ? 0 : L->first[v];
        if (L->reloc[v]) {
          L->rslot[v] = m->nreloc;
          g->slot = WV_SLOT(WV_SLOT_SPECIAL, WV_SP_COUNT + m->nreloc++);
        }
      }
      if (!m->nreloc) return 0;
    }
    for (uint32_t k = 0; k < L->nf; k++) {
      wv_func *kf = &m->funcs[k];
      if (!kf->is_entry || !L->pf[k]) continue;
      if (pass == 1 && !(kf->shared_reloc = calloc(m->nreloc, sizeof *kf->shared_reloc)))
        return wv_derr(L->d, L->pf[k]->loc, "out of memory");
      if (layout_kernel(L, k, pass)) return -1;
    }
  }
  return 0;
}

int wv_dshared_layout(wv_dec *d) {
  lay L;
  int rc = -1;
  if (lay_init(&L, d)) {
    wv_derr(d, (ptx_loc){1, 1}, "out of memory");
    goto out;
  }
  for (uint32_t u = 0; u < d->nunits; u++) {
    d->unit = u;
    d->ast = d->units[u];
    d->modsyms = &d->unitsyms[u];
    if (scan_unit(&L)) goto out;
  }
  for (uint32_t u = 0; u < d->nunits; u++) {
    d->unit = u;
    d->ast = d->units[u];
    d->modsyms = &d->unitsyms[u];
    scan_tables(&L);
  }
  if (add_indirect_callees(&L)) goto out;
  memset(L.fmark, 0, (L.nf + 1) * sizeof *L.fmark); /* scan used it to dedupe callees */
  rc = layout_all(&L);
out:
  if (rc && !d->failed) wv_derr(d, (ptx_loc){1, 1}, "out of memory");
  lay_free(&L);
  return rc;
}
