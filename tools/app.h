/*
 * app.h — `warpvm [options] ./app [args...]` (app.c): run an nvcc-built program on warpvm.
 */
#ifndef WV_TOOLS_APP_H
#define WV_TOOLS_APP_H

#include <stddef.h>
#include <stdint.h>

/* The options `warpvm run` and `warpvm ./app` share (parsed by one function in warpvm.c). */
typedef struct wv_vm_opts {
  const char *machine, *async_delivery, *memory_model;
  uint64_t wpw, seed, max_steps;
  int has_seed, has_max_steps;
  int stats, verbose;
  const char *checks;        /* --check LIST (validated: wv_checks_parse) */
  const char *preload_first; /* ./app in sanitizer builds: their runtime must be loaded before ours */
} wv_vm_opts;

/* argv[0] is the program. Returns only on failure (an exit status). */
int wv_cli_run_app(const wv_vm_opts *o, int argc, char **argv);

/* The path execvp would run for `prog` (a name with a '/' as is, else searched in PATH); 0 if found. */
int wv_cli_find_program(const char *prog, char *out, size_t cap);

#endif
