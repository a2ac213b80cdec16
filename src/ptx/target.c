/*
 * target.c — which `.version` and `.target` a module may declare: the PTX ISA versions up to 9.x, every
 * target the PTX ISA names (sm_10 .. sm_121f, with the arch-specific `a` and family `f` forms and the
 * compute_ spelling) and the ISA version each first appears in, as ptxas 13.0 checks them ("PTX .version
 * 8.0 does not support .target sm_120"). A target past the ones named here (a newer GPU) is accepted:
 * what decides whether its PTX runs is whether warpvm implements every instruction it uses, which the
 * decoder checks one instruction at a time.
 */
#include <stdio.h>
#include <string.h>

#include "ptx/target.h"

#define NEWEST_MAJOR 9 /* PTX ISA 9.x: CUDA 13 */

/* Each target and the first PTX ISA version (major * 10 + minor) that has it (ptxas 13.0). */
static const struct { const char *name; unsigned since; } targets[] = {
  {"sm_10", 10},   {"sm_11", 10},   {"sm_12", 12},   {"sm_13", 12},   {"sm_20", 20},   {"sm_21", 20},
  {"sm_30", 30},   {"sm_32", 40},   {"sm_35", 31},   {"sm_37", 41},   {"sm_50", 40},   {"sm_52", 41},
  {"sm_53", 42},   {"sm_60", 50},   {"sm_61", 50},   {"sm_62", 50},   {"sm_70", 60},   {"sm_72", 61},
  {"sm_75", 63},   {"sm_80", 70},   {"sm_86", 71},   {"sm_87", 74},   {"sm_88", 73},   {"sm_89", 78},
  {"sm_90", 78},   {"sm_90a", 80},  {"sm_100", 86},  {"sm_100a", 86}, {"sm_100f", 88}, {"sm_101", 86},
  {"sm_101a", 86}, {"sm_101f", 88}, {"sm_103", 88},  {"sm_103a", 88}, {"sm_103f", 88}, {"sm_110", 90},
  {"sm_110a", 90}, {"sm_110f", 90}, {"sm_120", 87},  {"sm_120a", 87}, {"sm_120f", 88}, {"sm_121", 88},
  {"sm_121a", 88}, {"sm_121f", 88},
};
#define LAST_KNOWN_SM 121

int ptx_version_check(unsigned major, unsigned minor, char *msg, size_t cap) {
  if (major >= 1 && major <= NEWEST_MAJOR && minor <= 9) return 0;
  snprintf(msg, cap, "PTX ISA version %u.%u is %s", major, minor,
           major > NEWEST_MAJOR ? "newer than warpvm knows (it reads PTX ISA 1.0 to 9.x)" : "not a PTX ISA version");
  return -1;
}

/* "sm_NN" / "compute_NN" with an optional a/f: the number and the suffix in *sm, *suffix; -1 otherwise. */
static int split_target(const char *t, unsigned *sm, char *suffix) {
  const char *p = !strncmp(t, "sm_", 3) ? t + 3 : !strncmp(t, "compute_", 8) ? t + 8 : NULL;
  if (!p || *p < '1' || *p > '9') return -1;
  unsigned n = 0;
  int nd = 0;
  for (; *p >= '0' && *p <= '9' && nd < 4; p++, nd++) n = n * 10 + (unsigned)(*p - '0');
  *suffix = 0;
  if (*p == 'a' || *p == 'f') *suffix = *p++;
  if (*p || nd < 2) return -1;
  *sm = n;
  return 0;
}

int ptx_target_check(const char *t, unsigned major, unsigned minor, char *msg, size_t cap) {
  if (!strcmp(t, "texmode_unified") || !strcmp(t, "texmode_independent") || !strcmp(t, "debug")) return 0;
  if (!strcmp(t, "map_f64_to_f32")) {
    snprintf(msg, cap, "'.target map_f64_to_f32' (sm_1x's doubles as floats) is not supported");
    return -1;
  }
  unsigned sm;
  char suffix;
  if (split_target(t, &sm, &suffix)) {
    snprintf(msg, cap, "unknown target '%s' (a target is sm_NN, sm_NNa or sm_NNf, e.g. sm_90)", t);
    return -1;
  }
  char name[24];
  snprintf(name, sizeof name, "sm_%u%s", sm, suffix == 'a' ? "a" : suffix == 'f' ? "f" : "");
  for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
    if (strcmp(name, targets[i].name)) continue;
    if (major * 10 + minor >= targets[i].since) return 0;
    snprintf(msg, cap, "PTX ISA version %u.%u does not support .target %s (it needs %u.%u or later)", major, minor, t,
             targets[i].since / 10, targets[i].since % 10);
    return -1;
  }
  if (sm > LAST_KNOWN_SM) return 0; /* a newer GPU than the list: its instructions are checked one by one */
  snprintf(msg, cap, "unknown target '%s'", t);
  return -1;
}
