/*
 * app.h — `warpvm [options] ./app [args...]` (app.c): run an nvcc-built program on warpvm.
 */
#ifndef WV_TOOLS_APP_H
#define WV_TOOLS_APP_H

#include <stddef.h>
#include <stdint.h>

/* The options `warpvm run` and `warpvm ./app` share (parsed by one function in warpvm.c). */
typedef struct wv_vm_opts {
  const char *machine, *async_delivery, *memory_model, *schedule;
  uint64_t wpw, seed, max_steps, timeout, stack;
  uint64_t threads;          /* --threads N (0: not given, every core) */
  int has_seed, has_max_steps, has_timeout;
  int stats, verbose;
  int profile;               /* --profile */
  const char *profile_json, *trace; /* --profile-json FILE, --trace FILE */
  int no_contract;           /* --no-contract */
  const char *checks;        /* --check LIST (validated: wv_checks_parse) */
  const char *engine;        /* --engine interp|jit|auto (validated) */
  int no_jit_cache;          /* --no-jit-cache */
  const char *preload_first; /* ./app in sanitizer builds: their runtime must be loaded before ours */
} wv_vm_opts;

/* The wall-clock watchdog the options give: --timeout S, else none if --max-steps was given (0 turns
 * every watchdog off, N > 0 asks for the deterministic one), else the default. */
#define WV_DEFAULT_TIMEOUT 60
static inline uint32_t wv_cli_timeout(const wv_vm_opts *o) {
  return o->has_timeout ? (uint32_t)o->timeout : o->has_max_steps ? 0 : WV_DEFAULT_TIMEOUT;
}

/* argv[0] is the program. Returns only on failure (an exit status). */
int wv_cli_run_app(const wv_vm_opts *o, int argc, char **argv);

/* The path execvp would run for `prog` (a name with a '/' as is, else searched in PATH); 0 if found. */
int wv_cli_find_program(const char *prog, char *out, size_t cap);

#endif
