#!/usr/bin/env python3
"""shrink_elf.py IN OUT — keep an ELF64 executable's headers and the sections the ELF reader tests
look at (dynamic section and its strings, symbol tables, section names, the CUDA fatbin sections),
and drop the bytes of every other section (code, read-only data, unwind tables): those become
SHT_NOBITS with their addresses and sizes unchanged. The file is compacted, section and program
header offsets are rewritten; a segment whose bytes were dropped gets a file size of 0. The result is
for reading only (it does not run): make.sh uses it to keep a static-cudart build small."""
import struct
import sys

KEEP = {".interp", ".note.gnu.build-id", ".note.ABI-tag", ".gnu.hash", ".dynsym", ".dynstr",
        ".gnu.version", ".gnu.version_r", ".dynamic", ".nv_fatbin", "__nv_relfatbin",
        ".nvFatBinSegment", "__nv_module_id", ".comment", ".symtab", ".strtab", ".shstrtab"}
SHT_NOBITS = 8


def main(src, dst):
    data = open(src, "rb").read()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "ELF64 little-endian only"
    phoff, shoff = struct.unpack_from("<QQ", data, 0x20)
    phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", data, 0x36)
    secs = [list(struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)) for i in range(shnum)]
    names_off = secs[shstrndx][4]

    def name(s):
        start = names_off + s[0]
        return data[start:data.index(b"\0", start)].decode()

    out = bytearray(data[:64])
    out += data[phoff:phoff + phnum * phentsize]
    moved = {}  # old file offset range start -> (old size, new offset) of kept sections
    for s in sorted(secs[1:], key=lambda s: s[4]):
        kept = name(s) in KEEP and s[1] != SHT_NOBITS
        align = max(1, min(s[8], 16))
        if kept:
            while len(out) % align:
                out.append(0)
            moved[s[4]] = (s[5], len(out))
            out += data[s[4]:s[4] + s[5]]
            s[4] = moved[s[4]][1]
        else:
            if s[1] != SHT_NOBITS:
                s[1] = SHT_NOBITS
            s[4] = len(out)
    phdrs = bytearray(data[phoff:phoff + phnum * phentsize])
    for i in range(phnum):
        p = list(struct.unpack_from("<IIQQQQQQ", phdrs, i * phentsize))
        if p[0] == 6:  # PT_PHDR
            p[1] = 64
        elif p[0] == 1 and p[2] == 0:  # the PT_LOAD holding the headers keeps just them
            p[5] = p[6] = min(p[5], 64 + phnum * phentsize)
        elif p[2] in moved and p[5] <= moved[p[2]][0]:
            p[2] = moved[p[2]][1]
        elif p[5]:
            p[2], p[5] = 0, 0
        struct.pack_into("<IIQQQQQQ", phdrs, i * phentsize, *p)
    out[64:64 + len(phdrs)] = phdrs
    while len(out) % 8:
        out.append(0)
    new_shoff = len(out)
    for s in secs:
        out += struct.pack("<IIQQQQIIQQ", *s)
        out += b"\0" * (shentsize - 64)
    struct.pack_into("<QQ", out, 0x20, 64, new_shoff)
    open(dst, "wb").write(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
