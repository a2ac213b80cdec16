/*
 * target.h — the `.version` and `.target` a PTX module may declare (target.c). Each check returns 0, or
 * -1 with the reason (no location) in msg.
 */
#ifndef WV_PTX_TARGET_H
#define WV_PTX_TARGET_H

#include <stddef.h>

int ptx_version_check(unsigned major, unsigned minor, char *msg, size_t cap);
/* One word of `.target`: a target name (sm_90, sm_120a, compute_90, ...) or an option (texmode_unified,
 * texmode_independent, debug), valid for PTX ISA major.minor. */
int ptx_target_check(const char *word, unsigned major, unsigned minor, char *msg, size_t cap);

#endif
