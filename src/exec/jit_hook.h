/*
 * jit_hook.h — all the scheduler knows of a compiling engine (src/jit): per function, the regions of
 * straight-line code that have compiled code. A region starts at instruction pc and covers len[pc]
 * instructions, none of them control but forward branches whose two paths meet again inside it
 * (jit.h wv_jit_branch) and a guard to the kernel's end (wv_jit_guard: it stops before the guard where a lane
 * takes it, and another region starts after it); entry[pc](x, mask) runs them for the group's lanes `mask`,
 * each on its active lanes as the interpreter would, and returns how many it went past: fewer than len[pc] only
 * before any effect of the next one, which the interpreter then runs (sched.c group_loop). The loop says where the group must stop
 * (x->jit_stop, its reconvergence point) and whether it is the warp's only group (x->jit_alone): a branch
 * whose lanes part runs compiled only then, and never where the group must stop at its join. Where a path no
 * lane takes was passed over, or the lanes parted, the region adds to x->jit_skipped, jit_split and jit_tless
 * what the loop's counts must lose or gain to be the interpreter's (instructions, thread instructions,
 * divergent branches and reconvergences; group_loop's jit_branches). A region followed by a branch back to its
 * start is a loop's body: where all the group's lanes take the branch and the time slice has room for it and the
 * region again (x->jit_room), the region runs again itself, adding each turn to x->jit_extra.
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
