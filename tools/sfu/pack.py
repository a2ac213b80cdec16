#!/usr/bin/env python3
"""pack.py — turn the tables record.cu wrote (RAWDIR/NAME.u32) into data/sfu/sm90.sfu.

    python3 tools/sfu/pack.py RAWDIR OUT.sfu [--store]
    python3 tools/sfu/pack.py --unpack FILE.sfu RAWDIR      (the inverse: RAWDIR/NAME.u32 again)

A table is n uint32 outputs. It is stored as its first differences (mod 2^32), the four bytes of
each difference split into four planes (all low bytes, then all second bytes, ...), compressed as one
Zstandard frame (the `zstd` command, level 19), or stored uncompressed in a Zstandard frame with
--store (or when `zstd` is missing). src/exec/sfu.c undoes this at load time and builds the
random-access form sfu.h reads. Needs numpy.

File layout (little-endian): "WVSFU\x02\0\0", u32 ntables, u32 0, then per table
{u32 id, u32 n, u32 offset, u32 zlen}, then the frames.
"""
import os
import shutil
import struct
import subprocess
import sys

import numpy as np

NAMES = ["rcp", "rsq0", "rsq1", "sqrt0", "sqrt1", "ex2", "lg2_0", "lg2_m1", "sin", "tanh",
         "ex2_f16", "tanh_f16", "ex2_bf16", "tanh_bf16"]  # the order of sfu.h's WV_SFU_* ids


def planes(v):
    d = (np.diff(v.astype(np.int64), prepend=0) & 0xffffffff).astype("<u4")
    return d.view(np.uint8).reshape(-1, 4).T.copy().tobytes()


def unplanes(b, n):
    d = np.frombuffer(b, dtype=np.uint8).reshape(4, n).T.copy().view("<u4").ravel()
    return (np.cumsum(d.astype(np.uint64)) & 0xffffffff).astype(np.uint32)


def zstd_store(raw):
    """A Zstandard frame holding raw blocks (RFC 8878 §3.1.1): no compression library needed."""
    out = bytearray(struct.pack("<IB", 0xFD2FB528, 0xE0))  # 8-byte content size, single segment
    out += struct.pack("<Q", len(raw))
    step = 1 << 17
    for k in range(0, max(len(raw), 1), step):
        blk = raw[k:k + step]
        last = 1 if k + step >= len(raw) else 0
        out += struct.pack("<I", last | (len(blk) << 3))[:3] + blk  # block type 0: raw
    return bytes(out)


def zstd(raw, store):
    if store or not shutil.which("zstd"):
        return zstd_store(raw)
    p = subprocess.run(["zstd", "-19", "--long=27", "-q", "-c", f"--stream-size={len(raw)}"], input=raw, capture_output=True, check=True)
    return p.stdout


def unzstd(z):
    if z[:4] == struct.pack("<I", 0xFD2FB528) and z[4] == 0xE0 and shutil.which("zstd") is None:
        out, k = bytearray(), 13  # a frame of raw blocks, as zstd_store writes
        while True:
            hdr = int.from_bytes(z[k:k + 3], "little")
            out += z[k + 3:k + 3 + (hdr >> 3)]
            k += 3 + (hdr >> 3)
            if hdr & 1:
                return bytes(out)
    return subprocess.run(["zstd", "-d", "-q", "-c"], input=z, capture_output=True, check=True).stdout


def unpack(path, rawdir):
    img = open(path, "rb").read()
    assert img[:8] == b"WVSFU\x02\x00\x00", "not a .sfu file"
    os.makedirs(rawdir, exist_ok=True)
    for k in range(struct.unpack_from("<I", img, 8)[0]):
        tid, n, off, zlen = struct.unpack_from("<4I", img, 16 + 16 * k)
        unplanes(unzstd(img[off:off + zlen]), n).astype("<u4").tofile(os.path.join(rawdir, NAMES[tid] + ".u32"))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--unpack":
        return unpack(sys.argv[2], sys.argv[3])
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    store = "--store" in sys.argv
    if len(args) != 2:
        sys.exit(__doc__)
    rawdir, out = args
    entries, frames = [], []
    for tid, name in enumerate(NAMES):
        v = np.fromfile(os.path.join(rawdir, name + ".u32"), dtype="<u4")
        raw = planes(v)
        assert np.array_equal(unplanes(raw, len(v)), v), "encoding does not round-trip"
        z = zstd(raw, store)
        entries.append((tid, len(v), len(z)))
        frames.append(z)
        print(f"{name:10s} n={len(v):8d} packed={len(z):8d}")
    head = b"WVSFU\x02\x00\x00" + struct.pack("<II", len(NAMES), 0)
    off = len(head) + 16 * len(NAMES)
    dirb = b""
    for (tid, n, zlen) in entries:
        dirb += struct.pack("<4I", tid, n, off, zlen)
        off += zlen
    with open(out, "wb") as f:
        f.write(head + dirb + b"".join(frames))
    print(f"{out}: {off} bytes")


if __name__ == "__main__":
    main()
