/*
 * gcn.h — a single-wave model of an AMD GCN/CDNA/RDNA compute unit whose only cross-lane hardware is
 * ds_permute_b32 / ds_bpermute_b32 (issue 3), plus a tiny assembler for a subset of the AMDGPU
 * assembly syntax (LLVM spelling) and an interpreter for it.
 *
 * It owns: the wave state (VGPRs, SGPRs, vcc, exec, scc, wave size, the RDNA half-wave flag), the two
 * permute instructions, the assembler (text → wv_gcn_program, labels and branches, errors
 * "FILE:LINE:COL: error: ..."), the interpreter (bounded: WV_GCN_MAX_STEPS), the `--set vN=a,b,...` initialiser and the result printer used by `warpvm gcn`.
 * It shares nothing with the PTX machine and has no global mutable state.
 *
 * Wave sizes: 64 (GCN/CDNA, and RDNA in wave64 mode when `rdna` is set), 32 (RDNA wave32), and 8
 * (a toy size for the 8-lane examples of shared/reference/shfl-lowering-to-ds-permute.zh.md §3).
 * The permute lane index is (addr + offset) bits [7:2] on wave64, [6:2] on wave32, [4:2] on the
 * 8-lane toy; with `rdna` set, wave64 permutes work on each 32-lane half independently.
 */
#ifndef WV_AMD_GCN_H
#define WV_AMD_GCN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define WV_GCN_NVGPR 256  /* v0..v255 */
#define WV_GCN_NSGPR 106  /* s0..s105 (GFX9's addressable SGPRs); vcc and exec are separate */
#define WV_GCN_MAXLANES 64

typedef struct wv_gcn_wave {
  unsigned size;     /* 64, 32 or 8 lanes */
  int rdna;          /* wave64 only: permutes confined to 32-lane halves (GFX10..GFX11.5 wave64) */
  uint64_t exec;     /* bit i: lane i active (bits >= size are ignored) */
  uint64_t vcc;
  int scc;           /* scalar condition code: set by SALU bitwise ops and s_cmp_*, read by s_cbranch_scc* */
  uint32_t sgpr[WV_GCN_NSGPR];
  uint32_t vgpr[WV_GCN_NVGPR][WV_GCN_MAXLANES];
  /* what the program wrote, for printing: one bit per VGPR / SGPR; bit 0 vcc, bit 1 exec, bit 2 scc */
  uint64_t vgpr_written[WV_GCN_NVGPR / 64];
  uint64_t sgpr_written[(WV_GCN_NSGPR + 63) / 64];
  unsigned special_written;
} wv_gcn_wave;

/* Zeroes the wave, sets its size (64, 32 or 8) and exec to all lanes, v0 to the lane id. 0 or -1. */
int wv_gcn_wave_init(wv_gcn_wave *w, unsigned size, int rdna);

/* The mask of lanes that exist in the wave (size bits). */
uint64_t wv_gcn_lane_mask(const wv_gcn_wave *w);

/* The lane that lane `lane` addresses with byte address addr + offset (32-bit sum). */
unsigned wv_gcn_permute_lane(const wv_gcn_wave *w, unsigned lane, uint32_t addr, uint32_t offset);

/* ds_permute_b32 vdst, vaddr, vdata offset:offset (forward: lane pushes vdata to the lane it addresses). */
void wv_gcn_ds_permute(wv_gcn_wave *w, unsigned vdst, unsigned vaddr, unsigned vdata, uint32_t offset);
/* ds_bpermute_b32 vdst, vaddr, vdata offset:offset (backward: lane pulls vdata from the lane it addresses). */
void wv_gcn_ds_bpermute(wv_gcn_wave *w, unsigned vdst, unsigned vaddr, unsigned vdata, uint32_t offset);

/* "vN=a,b,c": lanes 0..k-1 of vN get a,b,c (C strtoll/strtoull syntax, 32-bit), the other lanes 0.
 * Returns 0, or -1 with a one-line reason in err. */
int wv_gcn_set_vgpr(wv_gcn_wave *w, const char *spec, char *err, size_t errlen);

/* ---- assembler and interpreter ---------------------------------------------------------------- */

typedef struct wv_gcn_program wv_gcn_program;

#define WV_GCN_MAX_LINE 4096     /* longest accepted source line, in bytes */
#define WV_GCN_MAX_INSNS 65536   /* most instructions in one program */
#define WV_GCN_MAX_STEPS 1000000 /* most instructions one wv_gcn_run executes (loops included) */

/*
 * Assembles len bytes of text for a wave of wave_size lanes (the size decides whether lane masks are
 * 64-bit: vcc / s[N:N+1], or 32-bit: vcc_lo / sN). One instruction per line; `;` and `//` start a
 * comment; `NAME:` at the start of a line defines a label (letters, digits, `_`, `.`; it may be followed
 * by an instruction), which s_branch / s_cbranch_{execz,execnz,vccz,vccnz,scc0,scc1} name, before or
 * after their definition (a duplicate or undefined label is an error). On error returns NULL and writes "FILE:LINE:COL: error: message" into err (file names
 * the source in messages). Never reads past len; any bytes are accepted as input.
 */
wv_gcn_program *wv_gcn_assemble(const char *text, size_t len, const char *file, unsigned wave_size,
                                char *err, size_t errlen);
void wv_gcn_program_free(wv_gcn_program *p);
size_t wv_gcn_program_size(const wv_gcn_program *p);

/* Runs the program on w, whose size must be the one it was assembled for, until it runs past its last
 * instruction or reaches s_endpgm. At most WV_GCN_MAX_STEPS instructions are executed: a program that
 * runs longer (a loop that never exits) stops with -1 and "runaway program: ..." in err. 0 or -1. */
int wv_gcn_run(wv_gcn_wave *w, const wv_gcn_program *p, char *err, size_t errlen);

/*
 * Prints what the program wrote: every written VGPR as "vN: x0 x1 ... x(size-1)" (u32 decimal, lanes in
 * order), then every written SGPR as "sN: x", then "vcc: 0x..." / "exec: 0x..." (hex, size bits) and
 * "scc: 0|1" if written. Registers in ascending order.
 */
void wv_gcn_print_written(const wv_gcn_wave *w, FILE *out);

#endif
