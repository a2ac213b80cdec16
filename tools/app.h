/*
 * app.h — `warpvm [options] ./app [args...]` (app.c): run an nvcc-built program on warpvm.
 */
#ifndef WV_TOOLS_APP_H
#define WV_TOOLS_APP_H

#include <stdint.h>

typedef struct wv_app_opts {
  const char *machine, *async_delivery, *memory_model;
  uint32_t wpw, seed;
  int has_seed, has_max_steps;
  uint64_t max_steps;
  int stats, verbose;
  const char *preload_first; /* sanitizer builds: their runtime must be loaded before ours */
} wv_app_opts;

/* argv[0] is the program. Returns only on failure (an exit status). */
int wv_cli_run_app(const wv_app_opts *o, int argc, char **argv);

#endif
