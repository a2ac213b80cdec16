#!/usr/bin/env python3
"""gen_wgmma.py — writes ptx/wgmma.sm_90a.ptx and the `wgmma.*` lines of runs.txt (issue 13: Hopper's wgmma).

Usage: python3 gen_wgmma.py ptx   > ptx/wgmma.sm_90a.ptx
       python3 gen_wgmma.py runs  (the runs.txt lines)
       python3 gen_wgmma.py cases (the case table as JSON, for check_wgmma.py)

Every kernel is one warpgroup (or two) running ONE wgmma.mma_async form (or a chain of two) on data from its
input buffer (`rand32`), with no arithmetic of its own, so that the GPU decides every output bit:
  - shared memory: words [0, SMEM) of the input, each transformed by its region's mask (A's region, B's region:
    `(r & M) | O`, chosen per element type so that the values are raw bits — NaN, Inf, subnormals —, tame
    (narrow exponents, random mantissas and signs), wide (mixed exponents with subnormals, no Inf/NaN) or
    cancel (±1: sums cancelling to ±0)); the descriptors lay the operands over these raw bytes in a canonical
    layout (K- or MN-major, no swizzle, 32B, 64B, 128B, chosen LBO/SBO, a start inside a swizzle row), so every
    byte's place in A and B is the hardware's reading of the descriptor;
  - C (the accumulator registers) and A in registers: further words of the input, per thread, transformed;
  - output: each thread's D registers in order, out[tid·nd + i].
Integer C may be "edge" (near INT32_MAX/MIN, for .satfinite and wrapping).
"""
import json
import sys

NT = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "b1": 1,
      "f32": 32, "s32": 32}
KOF = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32, "b1": 256}


def rep(v, bits):
    """a per-element (mask) value repeated over a 32-bit word"""
    if bits >= 32:
        return v
    w = 0
    for i in range(32 // bits):
        w |= v << (i * bits)
    return w


# per element type and mode: (mask, or) on one element; None: raw bits
MODES = {
    "f16": {"tame": (0x8FFF, 0x3000), "wide": (0xBFFF, 0), "cancel": (0x8000, 0x3C00)},
    "bf16": {"tame": (0x81FF, 0x3E00), "wide": (0x87FF, 0x3800), "cancel": (0x8000, 0x3F80)},
    "tf32": {"tame": (0x81FFFFFF, 0x3E000000), "wide": (0x87FFFFFF, 0x38000000), "cancel": (0x80000000, 0x3F800000)},
    "e4m3": {"tame": (0x8F, 0x30), "wide": (0xBF, 0), "cancel": (0x80, 0x38)},
    "e5m2": {"tame": (0x87, 0x38), "wide": (0xBF, 0), "cancel": (0x80, 0x3C)},
    "f32": {"tame": (0x81FFFFFF, 0x3E000000), "wide": (0x87FFFFFF, 0x38000000), "cancel": (0x80000000, 0)},
}
MODES["f16c"] = {"tame": (0x8FFF, 0x3000), "wide": (0xBFFF, 0), "cancel": (0x8000, 0)}  # f16 accumulator C


def transform(t, mode):
    """(mask, or) on a 32-bit word of elements of type t, or 'edge' (int C near the limits)"""
    if mode == "raw":
        return (0xFFFFFFFF, 0)
    if mode == "edge":
        return "edge"
    if mode == "zero":
        return (0, 0)
    m, o = MODES[t][mode]
    b = NT["f16" if t == "f16c" else t]
    return (rep(m, b), rep(o, b))


# ---- canonical layouts (the PTX ISA's; CUTLASS cute/atom/mma_traits_sm90_gmma.hpp) ----
def swz_w(swz):
    return {0: 1, 1: 8, 2: 4, 3: 2}[swz]


def chunk(mn_major, swz, lbo, sbo, bits, mn, k):
    W, per = swz_w(swz), 128 // bits
    if not mn_major:
        r, g, kc = mn % 8, mn // 8, k // per
        return r * 16 + g * sbo + kc * lbo if W == 1 else r * 16 * W + g * sbo + kc * 16
    mc, kr, kg = mn // per, k % 8, k // 8
    return mc * sbo + kr * 16 + kg * lbo if W == 1 else mc % W * 16 + mc // W * lbo + kr * 16 * W + kg * sbo


def layout(t, rows, mn_major, swz, alt=False, koff=0, nk=1):
    """LBO, SBO and the byte span of a canonical operand of `rows` (M or N) × nk wgmma k-blocks, start offset koff
    (bytes) inside a swizzle row; alt: a no-swizzle layout with the roles of the offsets exchanged"""
    bits, K = NT[t], KOF[t]
    W = swz_w(swz)
    if not mn_major:  # K-major: LBO the 16-byte K chunks' stride (no swizzle), SBO the 8-row groups'
        if swz == 0:
            lbo, sbo = (128, 128 * 2 * nk) if not alt else ((rows // 8) * 128, 128)
        else:
            lbo, sbo = 16, 128 * W
    else:  # MN-major: no swizzle, SBO the 16-byte MN chunks' stride, LBO the 8-row K groups'; swizzled, the reverse
        nchunks = rows * bits // 128
        if swz == 0:
            lbo, sbo = (128 * nchunks, 128) if not alt else (128, 128 * 2 * nk)
        else:
            sbo, lbo = 128 * W, 128 * W * 2 * nk
    span = 0
    for kb in range(nk):
        for mn in range(rows):
            for k in range(K):
                kk = kb * K + k
                span = max(span, koff + chunk(mn_major, swz, lbo, sbo, bits, mn, kk) + 16)
    return lbo, sbo, (span + 1023) // 1024 * 1024


# ---- the cases ----
CASES = []


def case(name, dt, at, bt, n, a="ss", ta=0, tb=0, swa=1, swb=1, sd=1, sa=1, sb=1, ma="tame", mb="tame", mc="tame",
         wg=1, sat=False, alt=False, koff=0, chain=False, sd2=1, sdform="pred"):
    CASES.append(dict(name=name, dt=dt, at=at, bt=bt, n=n, a=a, ta=ta, tb=tb, swa=swa, swb=swb, sd=sd, sa=sa, sb=sb,
                      ma=ma, mb=mb, mc=mc, wg=wg, sat=sat, alt=alt, koff=koff, chain=chain, sd2=sd2, sdform=sdform))


# f16 -> f32: every swizzle, both majors, A from registers, N from 8 to 256, scales, scale-d
case("f16_f32_n8_k128", "f32", "f16", "f16", 8)
case("f16_f32_n16_k64_wide", "f32", "f16", "f16", 16, swa=2, swb=2, ma="wide", mb="wide", mc="wide")
case("f16_f32_n24_k32_raw", "f32", "f16", "f16", 24, swa=3, swb=3, ma="raw", mb="raw", mc="raw")
case("f16_f32_n40_knone", "f32", "f16", "f16", 40, swa=0, swb=0)
case("f16_f32_n64_knone_alt_cancel", "f32", "f16", "f16", 64, swa=0, swb=0, alt=True, ma="cancel", mb="cancel", mc="cancel")
case("f16_f32_n256_k128", "f32", "f16", "f16", 256)
case("f16_f32_n136_rs_k128", "f32", "f16", "f16", 136, a="rs")
case("f16_f32_n72_rs_k64_wide", "f32", "f16", "f16", 72, a="rs", swb=2, ma="wide", mb="wide", mc="wide")
case("f16_f32_n64_mn128", "f32", "f16", "f16", 64, ta=1, tb=1)
case("f16_f32_n64_mn64_wide", "f32", "f16", "f16", 64, ta=1, tb=1, swa=2, swb=2, ma="wide", mb="wide", mc="wide")
case("f16_f32_n32_mn32", "f32", "f16", "f16", 32, ta=1, tb=1, swa=3, swb=3)
case("f16_f32_n16_mnnone", "f32", "f16", "f16", 16, ta=1, tb=1, swa=0, swb=0)
case("f16_f32_n128_rs_mn128", "f32", "f16", "f16", 128, a="rs", tb=1)
case("f16_f32_n64_kmn", "f32", "f16", "f16", 64, ta=0, tb=1, swa=1, swb=2)
case("f16_f32_n64_mnk", "f32", "f16", "f16", 64, ta=1, tb=0, swa=3, swb=1)
case("f16_f32_n64_sd0", "f32", "f16", "f16", 64, sd=0)
case("f16_f32_n64_nega", "f32", "f16", "f16", 64, sa=-1)
case("f16_f32_n64_rs_negb", "f32", "f16", "f16", 64, a="rs", sb=-1)
case("f16_f32_n48_negab_raw", "f32", "f16", "f16", 48, sa=-1, sb=-1, ma="raw", mb="raw", mc="raw")
case("f16_f32_n64_koff128", "f32", "f16", "f16", 64, koff=32)
case("f16_f32_n64_koff64_wide", "f32", "f16", "f16", 64, swa=2, swb=2, koff=32, ma="wide", mb="wide", mc="wide")
case("f16_f32_n64_2wg", "f32", "f16", "f16", 64, wg=2)
case("f16_f32_n64_chain64", "f32", "f16", "f16", 64, swa=2, swb=2, chain=True, sd=0)
case("f16_f32_n64_chain128_mn", "f32", "f16", "f16", 64, ta=1, tb=1, chain=True)
# f16 -> f16
case("f16_f16_n8_k128", "f16", "f16", "f16", 8, mc="tame")
case("f16_f16_n64_k64_wide", "f16", "f16", "f16", 64, swa=2, swb=2, ma="wide", mb="wide", mc="wide")
case("f16_f16_n256_k128_raw", "f16", "f16", "f16", 256, ma="raw", mb="raw", mc="raw")
case("f16_f16_n24_rs_knone_cancel", "f16", "f16", "f16", 24, a="rs", swb=0, ma="cancel", mb="cancel", mc="cancel")
case("f16_f16_n64_sd0_mn", "f16", "f16", "f16", 64, ta=1, tb=1, sd=0)
case("f16_f16_n40_negab", "f16", "f16", "f16", 40, sa=-1, sb=-1, swa=3, swb=3)
# bf16 -> f32
case("bf16_f32_n8_k128", "f32", "bf16", "bf16", 8)
case("bf16_f32_n64_k64_wide", "f32", "bf16", "bf16", 64, swa=2, swb=2, ma="wide", mb="wide", mc="wide")
case("bf16_f32_n200_k128_raw", "f32", "bf16", "bf16", 200, ma="raw", mb="raw", mc="raw")
case("bf16_f32_n40_rs_knone", "f32", "bf16", "bf16", 40, a="rs", swb=0)
case("bf16_f32_n64_mn64", "f32", "bf16", "bf16", 64, ta=1, tb=1, swa=2, swb=2)
case("bf16_f32_n96_negab_cancel", "f32", "bf16", "bf16", 96, sa=-1, sb=-1, ma="cancel", mb="cancel", mc="cancel")
# tf32 -> f32 (K-major only)
case("tf32_n8_k128", "f32", "tf32", "tf32", 8)
case("tf32_n64_k64_wide", "f32", "tf32", "tf32", 64, swa=2, swb=2, ma="wide", mb="wide", mc="wide")
case("tf32_n256_k32_raw", "f32", "tf32", "tf32", 256, swa=3, swb=3, ma="raw", mb="raw", mc="raw")
case("tf32_n24_rs_knone", "f32", "tf32", "tf32", 24, a="rs", swb=0)
case("tf32_n64_cancel_nega", "f32", "tf32", "tf32", 64, sa=-1, ma="cancel", mb="cancel", mc="cancel")
case("tf32_n56_sd0_negb", "f32", "tf32", "tf32", 56, sd=0, sb=-1)
# fp8
case("e4m3_e4m3_f32_n8", "f32", "e4m3", "e4m3", 8)
case("e4m3_e5m2_f32_n64_wide", "f32", "e4m3", "e5m2", 64, swa=2, swb=2, ma="wide", mb="wide", mc="wide")
case("e5m2_e4m3_f32_n136_raw", "f32", "e5m2", "e4m3", 136, swa=3, swb=3, ma="raw", mb="raw", mc="raw")
case("e5m2_e5m2_f32_n256_rs", "f32", "e5m2", "e5m2", 256, a="rs")
case("e4m3_e4m3_f32_n64_knone_cancel", "f32", "e4m3", "e4m3", 64, swa=0, swb=0, ma="cancel", mb="cancel", mc="cancel")
case("e4m3_e4m3_f32_n32_negab_sd0", "f32", "e4m3", "e4m3", 32, sa=-1, sb=-1, sd=0)
case("e4m3_e4m3_f16_n64", "f16", "e4m3", "e4m3", 64)
case("e5m2_e5m2_f16_n24_rs_wide", "f16", "e5m2", "e5m2", 24, a="rs", ma="wide", mb="wide", mc="wide")
case("e5m2_e4m3_f16_n48_nega_raw", "f16", "e5m2", "e4m3", 48, sa=-1, swa=3, swb=2, ma="raw", mb="raw", mc="raw")
# integers (K-major only)
case("s8_s8_n8", "s32", "s8", "s8", 8, ma="raw", mb="raw", mc="raw")
case("u8_u8_n64_k64", "s32", "u8", "u8", 64, swa=2, swb=2, ma="raw", mb="raw", mc="raw")
case("s8_u8_n24_k32", "s32", "s8", "u8", 24, swa=3, swb=3, ma="raw", mb="raw", mc="raw")
case("u8_s8_n256_rs", "s32", "u8", "s8", 256, a="rs", ma="raw", mb="raw", mc="raw")
case("s8_s8_n48_knone_edge", "s32", "s8", "s8", 48, swa=0, swb=0, ma="raw", mb="raw", mc="edge")
case("s8_s8_n64_sat_edge", "s32", "s8", "s8", 64, sat=True, ma="raw", mb="raw", mc="edge")
case("u8_u8_n32_rs_sat_edge", "s32", "u8", "u8", 32, a="rs", sat=True, ma="raw", mb="raw", mc="edge")
case("s8_s8_n80_sd0", "s32", "s8", "s8", 80, sd=0, ma="raw", mb="raw", mc="raw")
case("s8_s8_n32_2wg", "s32", "s8", "s8", 32, wg=2, ma="raw", mb="raw", mc="raw")
# b1 (.and.popc)
case("b1_n8", "s32", "b1", "b1", 8, ma="raw", mb="raw", mc="raw")
case("b1_n64_k64", "s32", "b1", "b1", 64, swa=2, swb=2, ma="raw", mb="raw", mc="raw")
case("b1_n256_knone_edge", "s32", "b1", "b1", 256, swa=0, swb=0, ma="raw", mb="raw", mc="edge")
case("b1_n24_rs", "s32", "b1", "b1", 24, a="rs", ma="raw", mb="raw", mc="raw")
# scale-d as an immediate (0, 1) and as a negated predicate (!p)
case("f16_f32_n32_sdimm0", "f32", "f16", "f16", 32, sd=0, sdform="imm")
case("s8_s8_n16_sdimm1", "s32", "s8", "s8", 16, sd=1, sdform="imm", ma="raw", mb="raw", mc="raw")
case("bf16_f32_n24_sdnot", "f32", "bf16", "bf16", 24, sd=0, sdform="not")


def plan(c):
    """the shared-memory plan of a case: A's and B's regions (word offsets), descriptors' constant fields"""
    K, nk = KOF[c["at"]], 2 if c["chain"] else 1
    koff = c["koff"]
    p = {"nd": c["n"] // 4 if c["dt"] == "f16" else c["n"] // 2, "nthreads": 128 * c["wg"], "nk": nk}
    off = 0
    for op, rows, t, tr, sw in (("a", 64, c["at"], c["ta"], c["swa"]), ("b", c["n"], c["bt"], c["tb"], c["swb"])):
        if op == "a" and c["a"] == "rs":
            continue
        lbo, sbo, span = layout(t, rows, tr, sw, alt=c["alt"], koff=koff, nk=nk)
        count = c["wg"] if op == "a" else 1
        p[op] = dict(off=off, span=span, lbo=lbo, sbo=sbo, swz=sw, koff=koff, t=t)
        off += span * count
    p["smem"] = off
    p["cbase"] = off // 4
    p["abase"] = p["cbase"] + p["nthreads"] * p["nd"]
    p["words"] = p["abase"] + (p["nthreads"] * 4 if c["a"] == "rs" else 0)
    return p


def kstep(c, p, op):
    """the k-step of a chain: the next K elements of a K-major row (32 bytes swizzled, two chunks LBO apart
    without), or the next 16 rows of an MN-major operand (two 8-row groups: SBO apart swizzled, LBO apart without)"""
    d = p[op]
    tr = c["ta"] if op == "a" else c["tb"]
    if not tr:
        return 32 if d["swz"] else 2 * d["lbo"]
    return 2 * d["sbo"] if d["swz"] else 2 * d["lbo"]


def desc_hi(d):
    """the descriptor's fields other than the start address"""
    return (d["lbo"] >> 4) << 16 | (d["sbo"] >> 4) << 32 | d["swz"] << 62


def emit_fill(out, lab, w0, w1, tf, nthreads):
    out.append(f"  mov.u32 %r3, %r1;")
    out.append(f"  add.u32 %r3, %r3, {w0};")
    out.append(f"{lab}:")
    out.append(f"  setp.ge.u32 %p1, %r3, {w1};")
    out.append(f"  @%p1 bra {lab}_done;")
    out.append(f"  mul.wide.u32 %rd3, %r3, 4;")
    out.append(f"  add.s64 %rd4, %rd1, %rd3;")
    out.append(f"  ld.global.b32 %r4, [%rd4];")
    emit_tf(out, "%r4", tf)
    out.append(f"  shl.b32 %r6, %r3, 2;")
    out.append(f"  add.u32 %r6, %r6, %r2;")
    out.append(f"  st.shared.b32 [%r6], %r4;")
    out.append(f"  add.u32 %r3, %r3, {nthreads};")
    out.append(f"  bra {lab};")
    out.append(f"{lab}_done:")


def emit_tf(out, r, tf):
    if tf == "edge":  # t | (0x7ff80000 ^ (sign & 0xfff80000))
        out.append(f"  and.b32 %r8, {r}, 524287;")
        out.append(f"  shr.s32 %r9, {r}, 31;")
        out.append(f"  and.b32 %r9, %r9, -524288;")
        out.append(f"  xor.b32 %r9, %r9, 2146959360;")
        out.append(f"  or.b32 {r}, %r8, %r9;")
        return
    m, o = tf
    if m != 0xFFFFFFFF:
        out.append(f"  and.b32 {r}, {r}, {m};")
    if o:
        out.append(f"  or.b32 {r}, {r}, {o};")


def kernel(c):
    p = plan(c)
    nd, nt, K = p["nd"], p["nthreads"], KOF[c["at"]]
    f32d = c["dt"] == "f32"
    dreg = "%f" if f32d else "%d"
    out = [f".visible .entry wgmma_{c['name']}(.param .u64 p_in, .param .u64 p_out)", "{",
           "  .reg .pred %p<4>;", "  .reg .b32 %r<32>;", "  .reg .b64 %rd<24>;", "  .reg .b32 %a<4>;",
           f"  .reg .{'f32' if f32d else 'b32'} {dreg}<{nd}>;"]
    if p["smem"]:
        out.append(f"  .shared .align 1024 .b8 smem[{p['smem']}];")
    out += ["  ld.param.u64 %rd1, [p_in];", "  ld.param.u64 %rd2, [p_out];", "  cvta.to.global.u64 %rd1, %rd1;",
            "  cvta.to.global.u64 %rd2, %rd2;", "  mov.u32 %r1, %tid.x;"]
    out.append("  mov.u32 %r2, smem;" if p["smem"] else "  mov.u32 %r2, 0;")
    for op in ("a", "b"):
        if op in p:
            d = p[op]
            w0 = d["off"] // 4
            w1 = w0 + d["span"] * (c["wg"] if op == "a" else 1) // 4
            mode = c["ma"] if op == "a" else c["mb"]
            emit_fill(out, f"$fill_{op}", w0, w1, transform(d["t"], mode), nt)
    # C: words cbase + tid*nd + i; A in registers: abase + tid*4 + i
    ct = "f16c" if c["dt"] == "f16" else c["dt"]
    tfc = transform(ct, c["mc"]) if ct in MODES or c["mc"] in ("raw", "edge") else None
    out.append(f"  mul.lo.u32 %r10, %r1, {nd};")
    out.append(f"  add.u32 %r10, %r10, {p['cbase']};")
    out.append("  mul.wide.u32 %rd5, %r10, 4;")
    out.append("  add.s64 %rd5, %rd1, %rd5;")
    for i in range(nd):
        out.append(f"  ld.global.b32 %r4, [%rd5+{4 * i}];")
        emit_tf(out, "%r4", tfc)
        out.append(f"  mov.b32 {dreg}{i}, %r4;")
    if c["a"] == "rs":
        out.append("  shl.b32 %r11, %r1, 2;")
        out.append(f"  add.u32 %r11, %r11, {p['abase']};")
        out.append("  mul.wide.u32 %rd6, %r11, 4;")
        out.append("  add.s64 %rd6, %rd1, %rd6;")
        for i in range(4):
            out.append(f"  ld.global.b32 %r4, [%rd6+{4 * i}];")
            emit_tf(out, "%r4", transform(c["at"], c["ma"]) if c["at"] in MODES or c["ma"] == "raw" else None)
            out.append(f"  mov.b32 %a{i}, %r4;")
    # the generic-proxy writes to shared memory, made visible to wgmma's async proxy, then the CTA barrier
    out += ["  fence.proxy.async.shared::cta;", "  bar.sync 0;"]
    # descriptors: start = ((smem + off [+ warpgroup's A region] + koff) >> 4) & 0x3fff, the rest constant
    for op, rd in (("a", "%rd10"), ("b", "%rd11")):
        if op not in p:
            continue
        d = p[op]
        out.append(f"  add.u32 %r12, %r2, {d['off'] + d['koff']};")
        if op == "a" and c["wg"] > 1:
            out.append("  shr.u32 %r13, %r1, 7;")
            out.append(f"  mad.lo.u32 %r12, %r13, {d['span']}, %r12;")
        out.append("  shr.u32 %r12, %r12, 4;")
        out.append("  and.b32 %r12, %r12, 16383;")
        out.append(f"  cvt.u64.u32 {rd}, %r12;")
        out.append(f"  or.b64 {rd}, {rd}, {desc_hi(d)};")
    ntr = c["at"] in ("f16", "bf16")
    shape = f"m64n{c['n']}k{K}"
    mods = f"{shape}{'.satfinite' if c['sat'] else ''}.{c['dt']}.{c['at']}.{c['bt']}{'.and.popc' if c['at'] == 'b1' else ''}"
    dvec = "{" + ", ".join(f"{dreg}{i}" for i in range(nd)) + "}"
    avec = "{%a0, %a1, %a2, %a3}" if c["a"] == "rs" else "%rd10"

    def mma(sd):
        pred = "%p2"
        if c["sdform"] == "imm":
            pred = str(sd)
        else:  # "not": the predicate holds the opposite and the operand negates it
            out.append(f"  mov.b32 %r14, {sd if c['sdform'] == 'pred' else 1 - sd};")
            out.append("  setp.ne.b32 %p2, %r14, 0;")
            pred = "!%p2" if c["sdform"] == "not" else "%p2"
        tail = "" if c["at"] in ("s8", "u8", "b1") else f", {c['sa']}, {c['sb']}"
        if ntr:
            tail += f", {c['tb']}" if c["a"] == "rs" else f", {c['ta']}, {c['tb']}"
        out.append(f"  wgmma.mma_async.sync.aligned.{mods} {dvec}, {avec}, %rd11, {pred}{tail};")
        out.append("  wgmma.commit_group.sync.aligned;")

    out.append("  wgmma.fence.sync.aligned;")
    mma(c["sd"])
    if c["chain"]:  # the next k-block: both descriptors' start addresses advanced
        for op, rd in (("a", "%rd10"), ("b", "%rd11")):
            if op in p:
                out.append(f"  add.s64 {rd}, {rd}, {kstep(c, p, op) >> 4};")
        mma(c["sd2"])
        out.append("  wgmma.wait_group.sync.aligned 1;")
    out.append("  wgmma.wait_group.sync.aligned 0;")
    out.append(f"  mul.lo.u32 %r15, %r1, {nd * 4};")
    out.append("  cvt.u64.u32 %rd7, %r15;")
    out.append("  add.s64 %rd7, %rd2, %rd7;")
    for i in range(nd):
        out.append(f"  st.global.{'f32' if f32d else 'b32'} [%rd7+{4 * i}], {dreg}{i};")
    out += ["  ret;", "}", ""]
    return out


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "ptx"
    if what == "ptx":
        print("// Generated by tests/kernels/gen_wgmma.py (python3 gen_wgmma.py ptx): Hopper wgmma forms, one per kernel.")
        print(".version 8.4\n.target sm_90a\n.address_size 64\n")
        for c in CASES:
            print("\n".join(kernel(c)))
    elif what == "runs":
        for i, c in enumerate(CASES):
            p = plan(c)
            print(f"wgmma.{c['name']}.sm90a ptx/wgmma.sm_90a.ptx --kernel wgmma_{c['name']} --block {p['nthreads']} "
                  f"--arg buf:{p['words'] * 4}:rand32:{4001 + i} --arg buf:{p['nthreads'] * p['nd'] * 4} --print 1:x32")
    elif what == "cases":
        print(json.dumps([dict(c, plan=plan(c)) for c in CASES]))


if __name__ == "__main__":
    main()
