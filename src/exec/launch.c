/*
 * launch.c — a launch from start to end: the configuration checks, the launch's shared description
 * (wv_launch_desc), the choice of how its CTAs run, and the statistics.
 *   - A normal launch under the default serial schedule runs its CTAs in grid order, each to its end,
 *     on the vm's worker threads (workers.c), unless something in it needs one global order: the weak
 *     memory model (one launch-wide set of pending stores drawn from one random sequence), random
 *     cp.async delivery (one random sequence), or device malloc/free (they change the allocation
 *     table every worker reads). Those run on one worker, which is the same code.
 *   - A kernel that reaches CUDA's device runtime gets its grid's device-runtime state (cdp.h); the
 *     grids its threads launch run once it has finished (cdp.c), before the host's launch returns.
 *   - A cooperative launch and --schedule interleave|random keep CTAs resident and give them turns
 *     (run_resident) on the calling thread, in whole clusters when the launch has clusters of several CTAs.
 *     Under the serial schedule the workers claim whole clusters (workers.c, cluster.c wv_cluster_run).
 */
#include <stdlib.h>

#include "exec/profile.h"
#include "exec/sched.h"
#include "rt/vm_internal.h"

#define COOP_MAX_CTAS 65536u
#define COOP_MAX_BYTES (2ull << 30) /* host memory all resident CTAs of a cooperative launch may take */

uint32_t wv_exec_coop_limit(const wv_func *kfn, const uint32_t block[3], uint32_t dyn_shared) {
  uint64_t nthreads = (uint64_t)block[0] * block[1] * block[2];
  uint64_t shared_size = (uint64_t)kfn->shared_dyn + dyn_shared;
  if (!nthreads || nthreads > 1024 || block[2] > 64 || shared_size > WV_MAX_SHARED) return 0;
  uint64_t n = COOP_MAX_BYTES / wv_cta_footprint(kfn, (uint32_t)nthreads, shared_size);
  return n < COOP_MAX_CTAS ? (uint32_t)n : COOP_MAX_CTAS;
}

static uint32_t sched_rand(sched *s) {
  s->rng ^= s->rng << 13;
  s->rng ^= s->rng >> 17;
  s->rng ^= s->rng << 5;
  return s->rng;
}

/* CTAs of this shape the modelled GPU keeps resident at once (16 SMs of 2048 threads, 32 CTAs and
 * 228 KB of shared memory each). */
static uint32_t resident_ctas(uint32_t nthreads, uint32_t shared_size) {
  uint32_t warps = (nthreads + WV_WARP - 1) / WV_WARP, per_sm = 64 / warps;
  if (per_sm > 32) per_sm = 32;
  if (shared_size && 228u * 1024 / shared_size < per_sm) per_sm = 228u * 1024 / shared_size;
  return WV_GPU_SMS * (per_sm ? per_sm : 1);
}

/* Launches with resident CTAs (a cooperative launch: all of them; --schedule interleave|random: as
 * many as the modelled GPU holds, the next CTA in grid order taking a finished one's place; a cluster
 * launch: whole clusters). The
 * resident CTAs take turns — round robin, or in a random order with random slices — one turn being a
 * time slice of each live warp, so a CTA that spins on memory another CTA writes (grid.sync(), a
 * flag) lets that CTA run, and a warp found polling gives up its turn early (sched.c). A CTA's memory is
 * taken at its first turn, from a finished CTA's where there is one: resident CTAs cost host memory
 * only while they have started and not finished.
 *
 * Clusters (cluster.c): the slots come in groups of a cluster's size; a group's CTAs start together (all
 * their shared memory exists before any of them runs), a finished CTA keeps its memory (another CTA may
 * still read it) until the whole cluster has finished, and then the next cluster takes the group. A CTA of
 * a cluster with nothing to run may be released by another CTA of its cluster: only a round in which no
 * CTA moved makes the next one strict, where such a CTA is a deadlock (wv_cta_turn). */
#define HELD (UINT64_MAX - 1) /* a finished CTA of a cluster still running: memory kept, no turns */
static wv_status run_resident(sched *s, uint32_t window, int random) {
  wv_vm *vm = s->x.vm;
  const wv_launch_desc *L = s->L;
  uint64_t nctas = L->nctas;
  uint32_t cs = L->csize > 1 ? L->csize : 1;
  wv_status st = WV_OK;
  s->poll_yield = 1;
  if (window > nctas) window = (uint32_t)nctas;
  window = window / cs * cs;
  if (window < cs) window = cs;
  uint32_t ngroups = window / cs;
  wv_cta *ctas = calloc(window, sizeof *ctas), *spare = calloc(window, sizeof *spare);
  uint32_t *order = calloc(window, sizeof *order), *left = calloc(ngroups, sizeof *left);
  uint64_t *ci = calloc(window, sizeof *ci); /* the CTA (its place in the run order) in each slot, NONE when done */
  wv_cluster *cls = cs > 1 ? calloc(ngroups, sizeof *cls) : NULL;
  if (!ctas || !spare || !order || !ci || !left || (cs > 1 && !cls)) {
    free(ctas), free(spare), free(order), free(ci), free(left), free(cls);
    return wv_seterr(vm, WV_ERR_NOMEM, "out of host memory for %u resident CTAs", window);
  }
  uint32_t nspare = 0, n = window; /* order[0..n): the slots of live CTAs, in turn order */
  uint64_t next = window;
  for (uint32_t i = 0; i < window; i++) order[i] = i, ci[i] = i;
  int stuck_round = 0;
  while (n && st == WV_OK) {
    uint32_t j = 0; /* a round costs what the live CTAs do: the finished ones leave the order */
    for (uint32_t k = 0; k < n; k++)
      if (ci[order[k]] != UINT64_MAX) order[j++] = order[k];
    if (!(n = j)) break;
    for (uint32_t i = n - 1; random && i > 0; i--) { /* this round's order */
      uint32_t r = sched_rand(s) % (i + 1), t = order[i];
      order[i] = order[r];
      order[r] = t;
    }
    s->strict = stuck_round; /* the last round moved nothing: a CTA with nothing to run is deadlocked */
    stuck_round = 1;
    for (uint32_t k = 0; k < n && st == WV_OK; k++) {
      uint32_t slot = order[k], g0 = slot / cs * cs;
      wv_cta *cta = &ctas[slot];
      if (ci[slot] == HELD || ci[slot] == UINT64_MAX) continue;
      if (!cta->warps) { /* its cluster's first turn: a finished CTA's memory, or new, for each CTA of it */
        wv_cta *members[WV_MAX_CLUSTER];
        for (uint32_t r = 0; r < cs; r++) {
          wv_cta *c = &ctas[g0 + r];
          int reused = nspare > 0;
          if (reused) *c = spare[--nspare];
          if ((!reused && wv_cta_alloc(s, c)) ||
              (cs > 1 ? 0 : wv_cta_start(s, c, ci[g0 + r], reused))) {
            st = wv_seterr(vm, WV_ERR_NOMEM, "out of host memory for %u resident CTAs", window);
            break;
          }
          c->stuck = reused; /* (cs > 1: whether to clear its memory at the start below) */
          members[r] = c;
        }
        if (st) break;
        if (cs > 1) {
          wv_cluster_form(&cls[g0 / cs], members, L->cluster);
          for (uint32_t r = 0; r < cs && !st; r++)
            if (wv_cta_start(s, members[r], wv_cluster_seq_ci(L->grid, L->cluster, ci[g0 + r]), members[r]->stuck))
              st = wv_seterr(vm, WV_ERR_NOMEM, "out of host memory for %u resident CTAs", window);
          if (st) break;
        }
        left[g0 / cs] = cs;
      }
      s->x.cta = cta;
      if (random) s->slice = 1 + sched_rand(s) % (2 * WV_SCHED_SLICE);
      cta->clk_bias += s->warp_insns - cta->clk_out; /* other CTAs' turns do not age its waits */
      int r = wv_cta_turn(s);
      cta->clk_out = s->warp_insns;
      if (r != 2) stuck_round = 0;
      if (r < 0) st = wv_seterr(vm, s->x.fault.status, "%s", s->msg);
      if (r == 0 && cs == 1) { /* its memory waits for the next CTA to start; the next in grid order takes its slot */
        wv_cta_drop(s, cta);
        s->ctas++;
        spare[nspare++] = *cta;
        memset(cta, 0, sizeof *cta);
        ci[slot] = next < nctas ? next++ : UINT64_MAX;
      } else if (r == 0) { /* a CTA of a cluster: its memory stays until the whole cluster has finished */
        ci[slot] = HELD;
        s->ctas++;
        if (--left[g0 / cs] == 0)
          for (uint32_t q = g0; q < g0 + cs; q++) { /* the next cluster takes the group */
            wv_cta_drop(s, &ctas[q]);
            spare[nspare++] = ctas[q];
            memset(&ctas[q], 0, sizeof ctas[q]);
            ci[q] = next < nctas ? next++ : UINT64_MAX;
          }
      }
    }
  }
  for (uint32_t i = 0; i < window; i++) {
    wv_cta_drop(s, &ctas[i]);
    wv_cta_free(&ctas[i]);
  }
  for (uint32_t i = 0; i < nspare; i++) wv_cta_free(&spare[i]);
  free(ctas), free(spare), free(order), free(ci), free(left), free(cls);
  return st;
}

/* The builtins.def flags of every builtin the kernel reaches through its calls. */
static uint32_t reach_flags(const wv_irmod *m, const wv_func *f, uint8_t *seen) {
  uint32_t fi = (uint32_t)(f - m->funcs), fl = 0;
  if (seen[fi]) return 0;
  seen[fi] = 1;
  for (uint32_t i = 0; i < f->ncode; i++) {
    const wv_insn *in = &f->code[i];
    if (in->ctl != WV_CTL_CALL || !in->aux) continue;
    int b = ((const wv_callinfo *)in->aux)->builtin;
    if (b) {
      fl |= wv_builtin_flags(b);
      continue;
    }
    uint32_t c;
    for (uint32_t k = 0; wv_call_target(m, in, k, &c); k++) /* an indirect call: each function it may enter */
      fl |= reach_flags(m, &m->funcs[c], seen);
  }
  return fl;
}

#define WV_REACH_KNOWN 0x80000000u

/* reach_flags of a kernel, found at its first launch and kept in its module (one thread runs a vm's launches). */
static uint32_t kernel_reach(struct wv_module *mod, const wv_func *kfn) {
  uint32_t fi = (uint32_t)(kfn - mod->ir.funcs);
  if (!mod->reach) mod->reach = calloc(mod->ir.nfuncs + 1, sizeof *mod->reach);
  if (mod->reach && (mod->reach[fi] & WV_REACH_KNOWN)) return mod->reach[fi] & ~WV_REACH_KNOWN;
  uint8_t *seen = calloc(mod->ir.nfuncs + 1, 1);
  uint32_t fl = seen ? reach_flags(&mod->ir, kfn, seen) : WV_BF_HEAP | WV_BF_DEVRT; /* out of memory: the safe side */
  if (seen && mod->reach) mod->reach[fi] = fl | WV_REACH_KNOWN;
  free(seen);
  return fl;
}

static const char *unsupported_in(const wv_irmod *m, const wv_func *f, uint8_t *seen) {
  uint32_t fi = (uint32_t)(f - m->funcs);
  if (seen[fi]) return NULL;
  seen[fi] = 1;
  if (f->unsupported) return f->unsupported;
  for (uint32_t i = 0; i < f->ncode; i++) {
    uint32_t c;
    if (f->code[i].ctl != WV_CTL_CALL || !f->code[i].aux) continue;
    for (uint32_t k = 0; wv_call_target(m, &f->code[i], k, &c); k++) { /* indirect: each function it may enter */
      const char *u = unsupported_in(m, &m->funcs[c], seen);
      if (u) return u;
    }
  }
  return NULL;
}

const char *wv_exec_unsupported(const wv_irmod *m, const wv_func *f) {
  uint8_t *seen = calloc(m->nfuncs + 1, 1);
  if (!seen) return "out of host memory";
  const char *u = unsupported_in(m, f, seen);
  free(seen);
  return u;
}

/* Workers for a normal launch under the serial schedule: the vm's, or one where the launch needs a
 * global order (the file's comment; reach: the builtins' flags the kernel reaches). */
static uint32_t grid_workers(wv_vm *vm, const wv_launch_desc *L, uint32_t reach) {
  uint32_t n = vm->nthreads;
  uint64_t units = L->csize > 1 ? L->nctas / L->csize : L->nctas; /* clusters run whole on one worker */
  if (n <= 1 || units <= 1 || vm->weak || vm->async_mode == WV_ASYNC_RANDOM || (reach & WV_BF_HEAP)) return 1;
  return units < n ? (uint32_t)units : n;
}

static wv_status check_config(wv_vm *vm, const wv_func *kfn, const uint32_t grid[3], const uint32_t block[3],
                              uint32_t dyn_shared, int coop) {
  uint64_t nthreads = (uint64_t)block[0] * block[1] * block[2];
  if (!grid[0] || !grid[1] || !grid[2] || !nthreads)
    return wv_seterr(vm, WV_ERR_LAUNCH, "invalid launch configuration: a grid or block dimension is 0");
  if (nthreads > 1024 || block[2] > 64)
    return wv_seterr(vm, WV_ERR_LAUNCH, "invalid launch configuration: block (%u,%u,%u) has more than 1024 threads or z > 64",
                     block[0], block[1], block[2]);
  if (grid[1] > 65535 || grid[2] > 65535 || grid[0] > 0x7fffffffu)
    return wv_seterr(vm, WV_ERR_LAUNCH, "invalid launch configuration: grid (%u,%u,%u) exceeds (2^31-1, 65535, 65535)",
                     grid[0], grid[1], grid[2]);
  if (kfn->reqntid[0] && (block[0] != kfn->reqntid[0] || block[1] != kfn->reqntid[1] || block[2] != kfn->reqntid[2]))
    return wv_seterr(vm, WV_ERR_LAUNCH, "invalid launch configuration: kernel '%s' requires .reqntid %u,%u,%u", kfn->name,
                     kfn->reqntid[0], kfn->reqntid[1], kfn->reqntid[2]);
  uint64_t shared_size = (uint64_t)kfn->shared_dyn + dyn_shared;
  if (shared_size > WV_MAX_SHARED)
    return wv_seterr(vm, WV_ERR_LAUNCH, "invalid launch configuration: %llu bytes of shared memory exceed the %u-byte limit",
                     (unsigned long long)shared_size, WV_MAX_SHARED);
  uint64_t nctas = (uint64_t)grid[0] * grid[1] * grid[2];
  if (coop) {
    uint32_t lim = wv_exec_coop_limit(kfn, block, dyn_shared);
    if (nctas > lim)
      return wv_seterr(vm, WV_ERR_LAUNCH,
                       "invalid cooperative launch: grid (%u,%u,%u) has %llu blocks, more than the %u that can be resident at "
                       "once with block (%u,%u,%u) and %llu bytes of shared memory",
                       grid[0], grid[1], grid[2], (unsigned long long)nctas, lim, block[0], block[1], block[2],
                       (unsigned long long)shared_size);
  }
  return WV_OK;
}

/* Resident CTAs in turns on the calling thread (the file's comment). */
static wv_status run_turns(const wv_launch_desc *L, int coop) {
  wv_vm *vm = L->vm;
  sched *s = wv_sched_new(L);
  if (!s) return wv_seterr(vm, WV_ERR_NOMEM, "out of host memory");
  uint32_t window = coop ? (uint32_t)L->nctas : resident_ctas(L->nthreads, L->shared_size);
  wv_status st = run_resident(s, window, vm->sched_mode == WV_SCHED_RANDOM);
  wv_mm_commit_all(&s->x); /* the end of the launch makes every store visible */
  wv_sched_fold_stats(s, vm);
  wv_sched_free(s);
  return st;
}

/* The launch's cluster shape (flags' WV_LAUNCH_CLUSTER, else the kernel's .reqnctapercluster, else 1x1x1) and
 * the rules a GPU's driver checks (the CUDA Programming Guide, "Thread Block Clusters"). */
static wv_status cluster_shape(wv_vm *vm, const wv_func *kfn, const uint32_t grid[3], uint32_t flags, uint32_t c[3],
                               int *explicit_cluster) {
  uint32_t fc[3] = {(flags >> 8) & 0xffu, (flags >> 16) & 0xffu, (flags >> 24) & 0xffu};
  int given = fc[0] || fc[1] || fc[2];
  *explicit_cluster = given || kfn->explicit_cluster;
  for (int k = 0; k < 3; k++) c[k] = given ? fc[k] : kfn->reqcluster[0] ? kfn->reqcluster[k] : 1;
  if (given && kfn->reqcluster[0] && (c[0] != kfn->reqcluster[0] || c[1] != kfn->reqcluster[1] || c[2] != kfn->reqcluster[2]))
    return wv_seterr(vm, WV_ERR_CLUSTER, "invalid cluster: kernel '%s' is compiled for clusters of %ux%ux%u, launched with %ux%ux%u",
                     kfn->name, kfn->reqcluster[0], kfn->reqcluster[1], kfn->reqcluster[2], c[0], c[1], c[2]);
  if (kfn->explicit_cluster && !given && !kfn->reqcluster[0])
    return wv_seterr(vm, WV_ERR_CLUSTER, "invalid cluster: kernel '%s' (.explicitcluster) needs a cluster shape at launch", kfn->name);
  if (!c[0] || !c[1] || !c[2])
    return wv_seterr(vm, WV_ERR_CLUSTER, "invalid cluster: a cluster dimension is 0 (%ux%ux%u)", c[0], c[1], c[2]);
  uint32_t n = c[0] * c[1] * c[2], lim = (flags & WV_LAUNCH_NONPORTABLE_CLUSTER) ? WV_MAX_CLUSTER : 8;
  if (kfn->maxclusterrank && kfn->maxclusterrank < lim) lim = kfn->maxclusterrank;
  if (c[0] > WV_MAX_CLUSTER || c[1] > WV_MAX_CLUSTER || c[2] > WV_MAX_CLUSTER || n > lim)
    return wv_seterr(vm, WV_ERR_CLUSTER, "invalid cluster: %ux%ux%u is %u blocks, more than the %u allowed%s", c[0], c[1], c[2],
                     n, lim, lim == 8 ? " (16 with cudaFuncAttributeNonPortableClusterSizeAllowed)" : "");
  if (grid[0] % c[0] || grid[1] % c[1] || grid[2] % c[2])
    return wv_seterr(vm, WV_ERR_CLUSTER, "invalid cluster: grid (%u,%u,%u) is not a multiple of the cluster %ux%ux%u", grid[0],
                     grid[1], grid[2], c[0], c[1], c[2]);
  return WV_OK;
}

wv_status wv_exec_grid(wv_vm *vm, struct wv_module *mod, const wv_func *kfn, const uint32_t grid[3],
                       const uint32_t block[3], uint32_t dyn_shared, const uint8_t *kparams, uint32_t kparam_size,
                       uint32_t flags, uint32_t depth) {
  int coop = (flags & WV_LAUNCH_COOPERATIVE) != 0;
  wv_status st = check_config(vm, kfn, grid, block, dyn_shared, coop);
  uint32_t cl[3];
  int explicit_cluster;
  if (!st) st = cluster_shape(vm, kfn, grid, flags, cl, &explicit_cluster);
  if (st) return st;
  wv_launch_desc L = {.vm = vm, .mod = &mod->ir, .kfn = kfn, .dyn_shared = dyn_shared, .kparams = kparams,
                      .kparam_size = kparam_size};
  memcpy(L.grid, grid, sizeof L.grid);
  memcpy(L.block, block, sizeof L.block);
  L.nthreads = block[0] * block[1] * block[2];
  L.shared_size = kfn->shared_dyn + dyn_shared;
  L.nctas = (uint64_t)grid[0] * grid[1] * grid[2];
  memcpy(L.cluster, cl, sizeof L.cluster);
  L.csize = cl[0] * cl[1] * cl[2];
  L.explicit_cluster = explicit_cluster;
  if (coop) { /* the grid workspace cooperative_groups' grid.sync() counts arrivals in (driver_abi.h) */
    const uint32_t ws[2] = {8, 0}; /* wsSize, barrier */
    uint8_t *h;
    if (wv_heap_alloc_kind(&vm->heap, sizeof ws, 16, WV_ALLOC_INTERNAL, &L.grid_ws) ||
        !(h = wv_heap_lookup(&vm->heap, L.grid_ws, sizeof ws))) {
      if (L.grid_ws) wv_heap_free(&vm->heap, L.grid_ws);
      return wv_seterr(vm, WV_ERR_NOMEM, "out of device memory for the grid workspace");
    }
    memcpy(h, ws, sizeof ws);
  }
  uint32_t reach = kernel_reach(mod, kfn);
  wv_cdp_grid cdp; /* the device runtime's state of this grid (cdp.h) */
  int devrt = (reach & WV_BF_DEVRT) != 0;
  if (devrt && wv_cdp_begin(vm, mod, depth, &cdp)) {
    if (L.grid_ws) wv_heap_free(&vm->heap, L.grid_ws);
    return wv_seterr(vm, WV_ERR_NOMEM, "out of memory for the device runtime's launch slots");
  }
  if (vm->cfg.profile) wv_prof_launch_begin(vm, &L);
  L.jit = wv_engine_prepare(vm, mod, kfn, L.nctas * L.nthreads, &L.jit_late); /* compiled code (engine.c), NULL: interpret */
  double t0 = wv_now();
  L.deadline = vm->devrt.deadline; /* the host launch's, for every grid it leads to */
  if (coop || vm->sched_mode != WV_SCHED_SERIAL) st = run_turns(&L, coop);
  else st = wv_run_grid(&L, grid_workers(vm, &L, reach));
  double took = wv_now() - t0;
  vm->stats.kernel_seconds += took;
  wv_engine_end(vm, mod, kfn, took, !L.jit);
  if (vm->cfg.profile) wv_prof_launch_end(vm, &L, wv_now() - t0, st);
  vm->stats.launches++;
  if (L.grid_ws) wv_heap_free(&vm->heap, L.grid_ws);
  if (devrt) wv_cdp_end(vm, &cdp); /* the grids it launched wait on the vm's stack */
  return st;
}

wv_status wv_exec_launch(wv_vm *vm, struct wv_module *mod, const wv_func *kfn, const uint32_t grid[3],
                         const uint32_t block[3], uint32_t dyn_shared, const uint8_t *kparams, uint32_t kparam_size,
                         uint32_t flags) {
  vm->devrt.deadline = vm->cfg.timeout_seconds ? wv_now() + vm->cfg.timeout_seconds : 0;
  vm->devrt.insns0 = vm->stats.warp_instructions;
  wv_status st = wv_exec_grid(vm, mod, kfn, grid, block, dyn_shared, kparams, kparam_size, flags, 0);
  return wv_cdp_run_pending(vm, st); /* dynamic parallelism: the grids it launched, and theirs (cdp.h) */
}
