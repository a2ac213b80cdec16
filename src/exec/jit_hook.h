/*
 * jit_hook.h — all the scheduler knows of a compiling engine (src/jit): per function, the regions of
 * straight-line code that have compiled code. A region starts at instruction pc and covers len[pc]
 * instructions of one basic block, none of them control; entry[pc](x, mask) runs them for the group's lanes
 * `mask`, each on its active lanes as the interpreter would, and returns how many it completed: fewer than
 * len[pc] only before any effect of the next one, which the interpreter then runs (sched.c group_loop).
 */
#ifndef WV_JIT_HOOK_H
#define WV_JIT_HOOK_H

#include <stdint.h>

struct wv_exec;
typedef int (*wv_jit_entry)(struct wv_exec *x, uint32_t mask);

typedef struct wv_jit_code {
  uint32_t ncode;             /* the function's instructions */
  const uint16_t *len;        /* per pc: the length of the region starting there, 0: none */
  const wv_jit_entry *entry;  /* per pc: its code where len[pc] != 0 */
} wv_jit_code;

#endif
