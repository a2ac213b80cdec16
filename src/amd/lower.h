/*
 * lower.h — the lowering generator of issue 3: each PTX cross-lane instruction (shfl.sync, vote.sync,
 * match.sync, redux.sync, elect.sync, bar.warp.sync) as AMDGPU machine code, printed in LLVM's AMDGPU
 * assembly syntax, for a few modelled AMD machines. The text is what src/amd/gcn.c assembles and runs,
 * and what `llvm-mc -arch=amdgcn -mcpu=MCPU` accepts (tests/gcn/llvm_mc_check.sh).
 *
 * It owns: the table of AMD machines (wv_amd_machine) and wv_amd_lower. No global mutable state.
 */
#ifndef WV_AMD_LOWER_H
#define WV_AMD_LOWER_H

#include <stddef.h>

typedef struct wv_amd_machine {
  const char *name;      /* "gfx90a", "gfx1100", "gfx1100w64" */
  const char *mcpu;      /* llvm-mc -mcpu value: "gfx90a", "gfx1100" */
  const char *family;    /* "CDNA2", "RDNA3" */
  unsigned wave;         /* 64 or 32 */
  int rdna;              /* RDNA spellings (v_add_nc_u32 ...) and wave64 permutes confined to 32-lane halves */
  unsigned lds_bytes, lds_banks; /* LDS one workgroup can allocate, and its banks (dword wide) */
  const char *xlane;     /* one line: the machine and the cross-lane instructions it has */
} wv_amd_machine;

const wv_amd_machine *wv_amd_machine_find(const char *name); /* NULL if unknown */
const wv_amd_machine *wv_amd_machine_at(unsigned i);         /* i-th machine, NULL past the end */

/*
 * Inputs/outputs of every lowered snippet (a fixed register convention, so one program serves any
 * instruction of that kind): exec = the participating lanes of ONE 32-lane CUDA warp placed in the
 * wave at lanes [base, base+32) with base 0 or 32 (wave64 may hold the warp in its upper half);
 * v1 = a (for .b64 match: the low word), v2 = b (shfl) or the high word (match.b64), v3 = c (shfl),
 * v4 = the vote predicate as 0/1. Results: v10 = d, vcc = the predicate output (shfl's p, vote
 * all/any/uni, match.all's p, elect's p), as lane bits of the wave (0 outside exec). The snippet
 * derives the lane within the warp and the warp's base from v_mbcnt (it does not assume base 0),
 * uses only v5..v31 and s20..s39 as scratch besides v10 and vcc, and leaves exec as it found it.
 *
 * Per instruction:
 *   shfl (mode WV_SHFL_IDX/UP/DOWN/BFLY, any 32-bit type): v10 = d, vcc = p. A source lane outside
 *     exec reads 0 (ds_bpermute_b32; PTX leaves it undefined).
 *   vote (WV_VOTE_ALL/ANY/UNI: vcc = the result on every participating lane; WV_VOTE_BALLOT: v10).
 *   match (WV_MATCH_ANY: v10 = the warp-lane mask of lanes with my value; WV_MATCH_ALL: v10 = the
 *     membermask or 0, vcc = p), type WV_T_B32 or WV_T_B64 (v1 low word, v2 high word).
 *   redux (WV_REDUX_ADD/MIN/MAX with WV_T_U32 or WV_T_S32; AND/OR/XOR with WV_T_B32, U32 or S32):
 *     v10 = the 32-bit result (the caller sign-extends .s32 if it keeps 64-bit registers).
 *   elect (mode/type ignored): v10 = the leader's lane in the warp, vcc = the leader.
 *   bar.warp.sync (WV_OP_BAR with mode WV_BAR_WARPSYNC): a single `s_nop 0`; a wave runs in lockstep.
 *
 * label_prefix (NULL = none; letters, digits, '_', '.', not starting with a digit) starts every label
 * the snippet defines, so several snippets can be printed in one file. Returns malloc'd text (one
 * instruction per line, comments after ';'), or NULL with a one-line reason in err for an unknown
 * machine, opcode, mode or type.
 */
char *wv_amd_lower(const wv_amd_machine *m, int op, int mode, int type, const char *label_prefix,
                   char *err, size_t errlen);

#endif
