/*
 * builtin_names.c — the external device functions warpvm provides, by PTX name (builtins.def): the
 * decoder's lookup and each builtin's flags (launch.c reads them to choose workers and to give a grid
 * its device-runtime context).
 */
#include <string.h>

#include "ir/ir.h"

static const struct { const char *name; int id; } names[] = {
#define B(id, fl, syn)
#define N(id, nm) {nm, WV_BUILTIN_##id},
#include "ir/builtins.def"
#undef B
#undef N
};

static const uint32_t flags[WV_BUILTIN_COUNT] = {
#define B(id, fl, syn) [WV_BUILTIN_##id] = (fl),
#define N(id, nm)
#include "ir/builtins.def"
#undef B
#undef N
};

int wv_builtin_lookup(const char *name) {
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(name, names[i].name)) return names[i].id;
  return WV_BUILTIN_NONE;
}

uint32_t wv_builtin_flags(int id) { return id > 0 && id < WV_BUILTIN_COUNT ? flags[id] : 0; }
