#!/usr/bin/env python3
"""perfjit.py WARPVM KERNELS_DIR — WARPVM_JIT_PERFMAP=1 (README "Engines", src/jit/perfjit.c): a run of the benchmark's
collatz writes, in $TMPDIR, a jitdump that `perf inject --jit` reads: perf's header (magic, version, this machine's
ELF machine, the process's pid) and one JIT_CODE_LOAD record per compiled region, named "collatz:PTXLINE" after the
line its region starts at, with the region's bytes, which start where the perf map says that region starts. Exit 0
when so (77: warpvm has no JIT)."""
import glob, os, re, struct, subprocess, sys, tempfile

warpvm, kdir = sys.argv[1], sys.argv[2]
ptx = os.path.join(kdir, "collatz.ptx")
with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, TMPDIR=tmp, WARPVM_JIT_PERFMAP="1", WARPVM_JIT_CACHE="0")
    r = subprocess.run([warpvm, "run", ptx, "--kernel", "collatz", "--grid", "4", "--block", "256", "--arg",
                        "buf:4096", "--arg", "u32:1", "--engine", "jit", "--stats"], env=env, capture_output=True,
                       text=True)
    if "the JIT is unavailable" in r.stderr:
        sys.exit(77)
    assert r.returncode == 0, r.stderr
    regions = int(re.search(r"^jit_regions: (\d+)$", r.stderr, re.M).group(1))
    dumps = glob.glob(os.path.join(tmp, "jit-*.dump"))
    assert len(dumps) == 1, dumps
    data = open(dumps[0], "rb").read()
    pid = int(re.search(r"jit-(\d+)\.dump$", dumps[0]).group(1))
    magic, version, hsize, mach, _, hpid, _, _ = struct.unpack_from("<IIIIIIQQ", data, 0)
    assert magic == 0x4A695444 and version == 1 and hsize == 40 and hpid == pid, (magic, version, hsize, hpid, pid)
    assert mach == {"x86_64": 62, "aarch64": 183}.get(os.uname().machine, mach), mach
    at, loads = hsize, {}
    while at < len(data):
        rid, total, _ = struct.unpack_from("<IIQ", data, at)
        assert total >= 16 and at + total <= len(data), (at, total)
        if rid == 0:
            rpid, _, vma, addr, size, _ = struct.unpack_from("<IIQQQQ", data, at + 16)
            end = data.index(b"\0", at + 56)
            name = data[at + 56:end].decode()
            code = data[end + 1:at + total]
            assert rpid == pid and vma == addr and size == len(code) and size > 0, (name, size, len(code))
            loads[addr] = (name, code)
        at += total
    assert at == len(data)
    assert len(loads) == regions, (len(loads), regions)
    lines = open(ptx).read().split("\n")
    for addr, (name, code) in loads.items():
        m = re.fullmatch(r"collatz:(\d+)", name)
        assert m and 0 < int(m.group(1)) <= len(lines), name
    pmap = "/tmp/perf-%d.map" % pid  # (perf's fixed place for the map)
    try:
        starts = {int(l.split()[0], 16): l.split()[2] for l in open(pmap) if l.strip()}
    finally:
        if os.path.exists(pmap):
            os.remove(pmap)
    for addr, (name, _) in loads.items():
        assert starts.get(addr) == name, (hex(addr), name, starts.get(addr))
print("ok: %d regions in the jitdump, named as in the perf map" % regions)
