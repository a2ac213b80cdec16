#!/usr/bin/env python3
"""check_wgmma.py OUTDIR — a plausibility check of warpvm's `wgmma.*` outputs before the GPU recording exists.

For each case of gen_wgmma.py, rebuilds the kernel's input (ptxrun's xorshift32), the shared memory, A, B and C
as the kernel lays them (the canonical layouts of gen_wgmma.py, themselves checked against CuTe), computes
D = A·B + C in Python — exactly for integers (wrapping, or clamped with .satfinite), in double precision for floats
— and compares it with OUTDIR/wgmma.NAME.sm90a.out (the `--print 1:x32` lines of a run), through the PTX ISA's
fragments written out here independently of warpvm (D: row 16·(warp%4) + g + 8·((i/2)%2), column 8·(i/4) + 2q +
i%2; A in registers: the mma m16n8kK A fragment). Integers must match exactly; floats within a relative 2^-20 of
the sum of the magnitudes of the addends (2^-9 with an f16 accumulator, 2^-11 for fp8, whose wgmma keeps 13 bits), and NaN/Inf where the
double result is NaN/Inf. The GPU's recording decides the bits; this only catches gross errors.
"""
import math
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import gen_wgmma as G  # noqa: E402


def rand32(seed, n):
    x, out = seed, []
    for _ in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out.append(x)
    return out


def tf_word(w, tf):
    if tf == "edge":
        t = w & 0x7FFFF
        s = 0xFFFFFFFF if w & 0x80000000 else 0
        return t | ((s & 0xFFF80000) ^ 0x7FF80000)
    m, o = tf
    return (w & m) | o


def f_of(t, v):
    """the value of element bits v of type t"""
    if t in ("s8",):
        return v - 256 if v & 0x80 else v
    if t in ("u8", "b1"):
        return v
    if t == "s32":
        return v - (1 << 32) if v & 0x80000000 else v
    if t in ("f32", "tf32"):
        if t == "tf32":
            v &= 0xFFFFE000
        return struct.unpack("<f", struct.pack("<I", v))[0]
    if t == "f16":
        return struct.unpack("<e", struct.pack("<H", v))[0]
    if t == "bf16":
        return struct.unpack("<f", struct.pack("<I", v << 16))[0]
    if t == "e4m3":
        s, e, m = v >> 7, v >> 3 & 15, v & 7
        if e == 15 and m == 7:
            return math.nan
        x = (m / 8) * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
        return -x if s else x
    if t == "e5m2":
        return struct.unpack("<e", struct.pack("<H", v << 8))[0]
    raise ValueError(t)


def elem(buf, byte, bits, j):
    if bits == 1:
        return buf[byte + (j >> 3)] >> (j & 7) & 1
    nb = bits // 8
    return int.from_bytes(buf[byte + j * nb: byte + j * nb + nb], "little")


def operand(c, p, smem, op, rows, wgi, kb):
    """rows × K matrix (A: m×k; B: n×k) of raw element bits"""
    d = p[op]
    t, tr = d["t"], (c["ta"] if op == "a" else c["tb"])
    bits, K = G.NT[t], G.KOF[t]
    per = 128 // bits
    start = d["off"] + d["koff"] + (wgi * d["span"] if op == "a" else 0) + kb * G.kstep(c, p, op)
    W = G.swz_w(d["swz"])
    M = [[0] * K for _ in range(rows)]
    for mn in range(rows):
        for k in range(K):
            a = start + G.chunk(tr, d["swz"], d["lbo"], d["sbo"], bits, mn, k)
            a ^= (a >> 7 & (W - 1)) << 4  # smem starts 1024-aligned: offsets swizzle as addresses do
            j = (mn % per) if tr else (k % per)
            M[mn][k] = elem(smem, a, bits, j)
    return M


def a_regs_pos(t, lane, j, h):
    g, q = lane >> 2, lane & 3
    row = g + 8 * (j & 1)
    if t in ("f16", "bf16"):
        col = 2 * q + h + 8 * (j >> 1)
    elif t == "tf32":
        col = q + 4 * (j >> 1)
    elif t == "b1":
        col = 32 * q + h + 128 * (j >> 1)
    else:
        col = 4 * q + h + 16 * (j >> 1)
    return row, col


def check(c, outdir):
    p = G.plan(c)
    words = rand32(4001 + G.CASES.index(c), p["words"])
    nd, nt, N, K = p["nd"], p["nthreads"], c["n"], G.KOF[c["at"]]
    smem = bytearray(p["smem"])
    for op in ("a", "b"):
        if op in p:
            d = p[op]
            mode = c["ma"] if op == "a" else c["mb"]
            tf = G.transform(d["t"], mode)
            cnt = c["wg"] if op == "a" else 1
            for w in range(d["off"] // 4, (d["off"] + d["span"] * cnt) // 4):
                smem[4 * w:4 * w + 4] = tf_word(words[w], tf).to_bytes(4, "little")
    ct = "f16c" if c["dt"] == "f16" else c["dt"]
    tfc = G.transform(ct, c["mc"])
    try:
        lines = open(f"{outdir}/wgmma.{c['name']}.sm90a.out").read().split("\n")[1:]
    except OSError as e:
        return f"no output ({e})"
    got = [int(x, 16) for x in lines if x.strip()]
    if len(got) != nt * nd:
        return f"{len(got)} values, {nt * nd} expected"
    ints = c["dt"] == "s32"
    bad = 0
    for wgi in range(c["wg"]):
        A = {}  # per k-block: 64×K
        B = {}
        for kb in range(p["nk"]):
            B[kb] = operand(c, p, smem, "b", N, 0, kb)
            if c["a"] == "ss":
                A[kb] = operand(c, p, smem, "a", 64, wgi, kb)
            else:
                A[kb] = [[0] * K for _ in range(64)]
                bits = G.NT[c["at"]]
                tfa = G.transform(c["at"], c["ma"])
                for tid in range(128 * wgi, 128 * wgi + 128):
                    w, lane = (tid >> 5) & 3, tid & 31
                    for j in range(4):
                        v = tf_word(words[p["abase"] + tid * 4 + j], tfa)
                        for h in range(32 // bits):
                            r, col = a_regs_pos(c["at"], lane, j, h)
                            A[kb][16 * w + r][col] = v >> (h * bits) & ((1 << bits) - 1)
        for tid in range(128 * wgi, 128 * wgi + 128):
            w, lane = (tid >> 5) & 3, tid & 31
            g, q = lane >> 2, lane & 3
            cw = [tf_word(words[p["cbase"] + tid * nd + i], tfc) for i in range(nd)]
            gw = got[tid * nd: tid * nd + nd]
            ne = nd * 2 if c["dt"] == "f16" else nd
            for i in range(ne):
                row, col = 16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * q + (i & 1)
                if c["dt"] == "f16":
                    cv, gv = cw[i // 2] >> (16 * (i % 2)) & 0xFFFF, gw[i // 2] >> (16 * (i % 2)) & 0xFFFF
                else:
                    cv, gv = cw[i], gw[i]
                dt = "s32" if ints else ("f16" if c["dt"] == "f16" else "f32")
                acc, cmag = f_of(dt, cv), 0.0
                for kb in range(p["nk"]):
                    if not (c["sd"] if kb == 0 else c["sd2"]):
                        acc = 0
                    if not ints and not math.isnan(acc) and not math.isinf(acc):
                        cmag = abs(acc)
                    for k in range(K):
                        a, b = A[kb][row][k], B[kb][col][k]
                        if c["at"] == "b1":
                            acc += a & b
                            continue
                        x = f_of(c["at"], a) * c["sa"] * f_of(c["bt"], b) * c["sb"]
                        if math.isinf(acc) and math.isinf(x) and acc != x:
                            acc = math.nan
                        else:
                            acc = acc + x
                        if not math.isnan(x) and not math.isinf(x):
                            cmag += abs(x)
                    if ints and c["sat"]:
                        acc = max(-2 ** 31, min(2 ** 31 - 1, acc))
                if ints:
                    ok = gv == (acc & 0xFFFFFFFF)
                    want = acc & 0xFFFFFFFF
                else:
                    gf = f_of("f16" if c["dt"] == "f16" else "f32", gv)
                    want = acc
                    if math.isnan(acc):
                        ok = math.isnan(gf)
                    elif math.isinf(acc) or abs(acc) > (65504 if c["dt"] == "f16" else 3.4e38):
                        ok = math.isinf(gf) or math.isnan(gf) or abs(acc) > 1e300
                    else:
                        # f16 accumulators round in f16 at each step (fp8: two steps and an add): a few ulps
                        # fp8: addends truncated 13 bits below the largest and the sum to 13 bits (wgmma's rule)
                        fp8 = c["at"] in ("e4m3", "e5m2")
                        tol = cmag * (2.0 ** -9 if c["dt"] == "f16" else 2.0 ** -11 if fp8 else 2.0 ** -20) + 2.0 ** -24
                        ok = not math.isnan(gf) and (abs(gf - acc) <= tol or (math.isinf(gf) and cmag > 65504))
                if not ok:
                    bad += 1
                    if bad <= 3:
                        print(f"  {c['name']}: tid {tid} D[{row}][{col}] warpvm {gv:#x} ({f_of('s32' if ints else ('f16' if c['dt'] == 'f16' else 'f32'), gv)}) want {want}")
    return f"{bad} mismatches" if bad else None


def main():
    outdir = sys.argv[1]
    nbad = 0
    for c in G.CASES:
        r = check(c, outdir)
        if r:
            nbad += 1
            print(f"{c['name']}: {r}")
    print(f"{len(G.CASES) - nbad} of {len(G.CASES)} cases plausible")
    return 1 if nbad else 0


if __name__ == "__main__":
    sys.exit(main())
