/*
 * diag.c — the vm's diagnostics: things a GPU lets pass but that are bugs (include/warpvm.h,
 * wv_diag_kind). Each kind has a row in KINDS (its name, what it means, its wv_stats counter); the
 * executor reports an occurrence with wv_diag_add and writes the record into the buffer it gets for
 * the first WV_DIAG_KEEP. Also the parser of check lists (wv_config.checks).
 */
#include <stddef.h>
#include <string.h>

#include "rt/vm_internal.h"

static const struct {
  const char *one, *many; /* "invalid read", "invalid reads" */
  const char *meaning;    /* what it is and what to do about it */
  size_t stat;            /* offset of its counter in wv_stats */
} KINDS[WV_DIAG_KINDS] = {
    [WV_DIAG_INVALID_READ] = {"invalid read", "invalid reads",
                              "loads outside every allocation, which a GPU lets pass (they read 0, a neighbouring "
                              "allocation's bytes or a freed one's; --check memcheck stops at the first)",
                              offsetof(wv_stats, invalid_reads)},
    [WV_DIAG_UNDEF_COLLECTIVE] = {"undefined collective", "undefined collectives",
                                  "warp collectives whose membermasks the PTX ISA leaves undefined (the GPU's "
                                  "result is not reliable; --check synccheck stops at the first)",
                                  offsetof(wv_stats, collective_undefined)},
};

char *wv_diag_add(wv_vm *vm, wv_diag_kind kind) {
  uint64_t n = vm->diag.count[kind]++;
  (*(uint64_t *)((char *)&vm->stats + KINDS[kind].stat))++;
  if (n >= WV_DIAG_KEEP) return NULL;
  vm->diag.kept[kind][n][0] = 0;
  return vm->diag.kept[kind][n];
}

void wv_diag_count_more(wv_vm *vm, wv_diag_kind kind, uint64_t n) {
  vm->diag.count[kind] += n;
  *(uint64_t *)((char *)&vm->stats + KINDS[kind].stat) += n;
}

uint64_t wv_diag_count(const wv_vm *vm, wv_diag_kind kind) {
  return vm && (unsigned)kind < WV_DIAG_KINDS ? vm->diag.count[kind] : 0;
}

const char *wv_diag_record(const wv_vm *vm, wv_diag_kind kind, uint32_t i) {
  if (!vm || (unsigned)kind >= WV_DIAG_KINDS || i >= WV_DIAG_KEEP || i >= vm->diag.count[kind]) return NULL;
  return vm->diag.kept[kind][i];
}

void wv_diag_print(const wv_vm *vm, FILE *out) {
  if (!vm || !out) return;
  for (unsigned k = 0; k < WV_DIAG_KINDS; k++) {
    uint64_t n = vm->diag.count[k];
    if (!n) continue;
    fprintf(out, "warpvm: %llu %s: %s. %s:\n", (unsigned long long)n, n == 1 ? KINDS[k].one : KINDS[k].many,
            KINDS[k].meaning, n > WV_DIAG_KEEP ? "The first ones" : n == 1 ? "It was" : "They were");
    for (uint32_t i = 0; i < WV_DIAG_KEEP && i < n; i++) fprintf(out, "warpvm:   %s\n", vm->diag.kept[k][i]);
  }
}

void wv_diag_reset(wv_vm *vm) {
  if (vm) memset(&vm->diag, 0, sizeof vm->diag);
}

wv_status wv_checks_parse(const char *list, uint32_t *checks) {
  static const struct { const char *name; uint32_t bit; } NAMES[] = {
      {"memcheck", WV_CHECK_MEMCHECK},
      {"synccheck", WV_CHECK_SYNCCHECK},
  };
  uint32_t c = 0;
  if (checks) *checks = 0;
  if (!list || !checks) return WV_ERR_INVALID;
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, ",");
    uint32_t bit = 0;
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
      if (strlen(NAMES[i].name) == n && !strncmp(p, NAMES[i].name, n)) bit = NAMES[i].bit;
    if (!bit) return WV_ERR_INVALID; /* an unknown or empty name */
    c |= bit;
    p += n;
    if (*p == ',' && !*++p) return WV_ERR_INVALID; /* a trailing comma */
  }
  *checks = c;
  return WV_OK;
}
