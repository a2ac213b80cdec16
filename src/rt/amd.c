/*
 * amd.c — running kernels on a modelled AMD machine (issue 3): the vm's machine selection, the
 * cache of lowered cross-lane programs (src/amd/lower.c writes GCN assembly, src/amd/gcn.c assembles
 * and runs it), the bridge that executes one warp collective by placing the warp's lanes in a wave
 * and running its lowered code — nothing falls back to the native shuffle — and the listing behind
 * `warpvm lower`.
 */
#include <stdlib.h>
#include <string.h>

#include "amd/gcn.h"
#include "amd/lower.h"
#include "exec/warp.h"
#include "rt/vm_internal.h"

int wv_amd_select(wv_vm *vm, const char *machine, uint32_t warps_per_wave) {
  vm->amd = NULL;
  if (machine && strcmp(machine, "sm_90")) {
    vm->amd = wv_amd_machine_find(machine);
    if (!vm->amd) return -1;
  }
  if (warps_per_wave > 2) return -1;
  if (warps_per_wave == 2 && (!vm->amd || vm->amd->wave != 64)) return -1;
  return 0;
}

void wv_amd_fini(wv_vm *vm) {
  for (uint32_t i = 0; i < vm->n_amd_progs; i++) wv_gcn_program_free(vm->amd_progs[i].prog);
  free(vm->amd_progs);
  vm->amd_progs = NULL;
  vm->n_amd_progs = 0;
}

const char *wv_machine_name(uint32_t i) {
  if (i == 0) return "sm_90";
  const wv_amd_machine *m = wv_amd_machine_at(i - 1);
  return m ? m->name : NULL;
}

const char *wv_machine_describe(uint32_t i) {
  static const char *const nv = "NVIDIA Hopper (default): warp 32, 227 KiB shared memory per block, 32 banks; "
                                "cross-lane: shfl.sync idx/up/down/bfly, vote.sync, match.sync, redux.sync";
  if (i == 0) return nv;
  const wv_amd_machine *m = wv_amd_machine_at(i - 1);
  return m ? m->xlane : NULL;
}

/* The lowered program for an instruction of this kind, assembled once per vm. */
static const wv_gcn_program *program(wv_vm *vm, const wv_insn *in, char *err, size_t errlen) {
  for (uint32_t i = 0; i < vm->n_amd_progs; i++) {
    const wv_amd_cache *c = &vm->amd_progs[i];
    if (c->op == in->op && c->mode == in->mode && c->type == in->type) return c->prog;
  }
  char *text = wv_amd_lower(vm->amd, in->op, in->mode, in->type, "L", err, errlen);
  if (!text) return NULL;
  wv_gcn_program *p = wv_gcn_assemble(text, strlen(text), "lowered.s", vm->amd->wave, err, errlen);
  free(text);
  if (!p) return NULL;
  wv_amd_cache *nc = realloc(vm->amd_progs, (vm->n_amd_progs + 1) * sizeof *nc);
  if (!nc) {
    wv_gcn_program_free(p);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  vm->amd_progs = nc;
  nc[vm->n_amd_progs++] = (wv_amd_cache){in->op, in->mode, in->type, p};
  return p;
}

/*
 * One warp collective on the AMD machine: the participating lanes of the warp sit at wave lanes
 * [base, base + 32) (base 32 for odd warps when two warps share a wave64), exec = those lanes,
 * v1..v4 hold the operands (lower.h's convention), the lowered code runs, v10 and vcc are the
 * results. Lanes outside the warp are inactive, so a read from them returns 0 as on the hardware.
 */
int wv_amd_collective(wv_exec *x, const wv_insn *rep, uint32_t lanes, wv_coll *c) {
  wv_vm *vm = x->vm;
  char err[512];
  pthread_mutex_lock(&vm->lock); /* the cache is the vm's: other workers of the launch use it too */
  const wv_gcn_program *p = program(vm, rep, err, sizeof err);
  pthread_mutex_unlock(&vm->lock);
  if (!p) return wv_fault_set(x, WV_ERR_UNSUPPORTED, -1, 0, 0, "lowering to %s failed: %s", vm->amd->name, err);
  wv_gcn_wave *w = malloc(sizeof *w);
  if (!w) return wv_fault_set(x, WV_ERR_NOMEM, -1, 0, 0, "out of host memory");
  wv_gcn_wave_init(w, vm->amd->wave, vm->amd->rdna);
  unsigned base = (vm->cfg.warps_per_wave == 2 && (x->warp->id & 1)) ? 32 : 0;
  for (unsigned l = 0; l < WV_WARP; l++) {
    unsigned wl = base + l;
    w->vgpr[1][wl] = (uint32_t)c->a[l];
    w->vgpr[2][wl] = rep->op == WV_OP_MATCH ? (uint32_t)(c->a[l] >> 32) : c->b[l];
    w->vgpr[3][wl] = c->c[l];
    w->vgpr[4][wl] = (c->pin >> l) & 1;
  }
  w->exec = (uint64_t)lanes << base;
  int rc = wv_gcn_run(w, p, err, sizeof err);
  if (rc) {
    free(w);
    return wv_fault_set(x, WV_ERR_FAULT, -1, 0, 0, "lowered %s code failed on %s: %s", wv_ops[rep->op].mnemonic,
                        vm->amd->name, err);
  }
  c->pd = (uint32_t)(w->vcc >> base) & lanes;
  int sext = rep->op == WV_OP_REDUX && rep->type == WV_T_S32; /* as the native path stores .s32 results */
  WV_FOR_LANES(lanes, l, {
    uint32_t v = w->vgpr[10][base + (unsigned)l];
    c->d[l] = sext ? (uint64_t)(int64_t)(int32_t)v : v;
  });
  free(w);
  return 0;
}

static int is_lowered(const wv_insn *in) {
  return in->ctl == WV_CTL_COLL || in->op == WV_OP_ACTIVEMASK;
}

/* The PTX source line `line` of the module, trimmed, into buf. */
static const char *source_line(const wv_module *m, uint32_t line, char *buf, size_t n) {
  const char *p = m->text, *end = m->text ? m->text + m->text_len : NULL;
  for (uint32_t l = 1; p && p < end && l < line; p++)
    if (*p == '\n') l++;
  size_t k = 0;
  while (p && p < end && (*p == ' ' || *p == '\t')) p++;
  while (p && p < end && *p != '\n' && *p != '\r' && k + 1 < n) buf[k++] = *p++;
  buf[k] = 0;
  return buf;
}

wv_status wv_module_print_lowering(wv_vm *vm, const wv_module *m, FILE *out) {
  if (!vm || !m || !out) return WV_ERR_INVALID;
  if (!vm->amd) return wv_seterr(vm, WV_ERR_INVALID, "no AMD machine selected (sm_90 runs PTX's own cross-lane instructions)");
  fprintf(out, "; warpvm lower: %s for %s (%s, wave%u%s), llvm-mc -arch=amdgcn -mcpu=%s\n", m->ir.filename, vm->amd->name,
          vm->amd->family, vm->amd->wave, vm->amd->rdna && vm->amd->wave == 64 ? ", permutes within 32-lane halves" : "",
          vm->amd->mcpu);
  fprintf(out, "; inputs: exec = the warp's participating lanes, v1 = a, v2 = b, v3 = c, v4 = vote predicate;\n"
               "; results: v10 = d, vcc = predicate output\n");
  char line[512], err[512], prefix[64];
  for (uint32_t f = 0; f < m->ir.nfuncs; f++) {
    const wv_func *fn = &m->ir.funcs[f];
    if (!fn->defined) continue;
    int header = 0;
    for (uint32_t i = 0; i < fn->ncode; i++) {
      const wv_insn *in = &fn->code[i];
      if (!is_lowered(in)) continue;
      if (!header) {
        fprintf(out, "\n; ==== %s %s\n", fn->is_entry ? "kernel" : "function", fn->name);
        header = 1;
      }
      snprintf(prefix, sizeof prefix, "L_f%u_i%u_", f, i);
      char *text = wv_amd_lower(vm->amd, in->op, in->mode, in->type, prefix, err, sizeof err);
      if (!text) return wv_seterr(vm, WV_ERR_UNSUPPORTED, "%s:%u: %s", m->ir.filename, in->line, err);
      fprintf(out, "\n; %s:%u: %s\n%s", m->ir.filename, in->line, source_line(m, in->line, line, sizeof line), text);
      free(text);
    }
  }
  return WV_OK;
}
