#!/usr/bin/env python3
"""mkiommu_big.py DIR N MODE — a directory capture of N VT-d devices (N <= 65536).

MODE iommu: one [iommu big] section (legacy VT-d, rtaddr) over a root table
and 256 context tables: device k is requester ID k, its context entry
second-level (TT 00) into one shared empty table, DID = bus + 1; every
device whose function is 7 is in pass-through (TT 10).
MODE plain: the same N devices as N [vtd dBBDDF] sections with the same
context entries (`context = HI LO`), so that the two captures make the same
contexts (the IOMMU tree benchmark, bench/run; test_mount_iommu.sh).
Layouts: VT-d spec §9.1 (root entry), §9.3 (context entry).
"""
import os
import struct
import sys

BASE = 0x100000
SLPT = BASE                 # one empty second-level table (AW 39: 3 levels)
ROOT = BASE + 0x1000
CTX = BASE + 0x2000         # context table of bus B at CTX + B * 0x1000


def ctx_entry(bdf):
    tt = 2 if bdf & 7 == 7 else 0
    lo = SLPT | tt << 2 | 1
    hi = 1 | ((bdf >> 8) + 1) << 8          # AW 1 (39-bit), DID bus + 1
    return lo, hi


def main():
    out, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(os.path.join(out, "mem"), exist_ok=True)
    size = CTX + 256 * 0x1000 - BASE if mode == "iommu" else 0x1000
    mem = bytearray(size)
    lines = ["[capture]", "version = 1", "format = intel-vtd", "",
             "[memory tables]", "space = sysmem", "base = 0x%x" % BASE,
             "file = mem/sysmem.bin", ""]
    if mode == "iommu":
        for bus in range(256):
            if bus * 256 < n:
                struct.pack_into("<QQ", mem, ROOT - BASE + 16 * bus, (CTX + bus * 0x1000) | 1, 0)
        for bdf in range(n):
            lo, hi = ctx_entry(bdf)
            struct.pack_into("<QQ", mem, CTX - BASE + (bdf >> 8) * 0x1000 + 16 * (bdf & 255), lo, hi)
        lines += ["[iommu big]", "type = intel-vtd", "rtaddr = 0x%x" % ROOT, ""]
    else:
        for bdf in range(n):
            lo, hi = ctx_entry(bdf)
            lines += ["[vtd d%02x%02x%x]" % (bdf >> 8, (bdf >> 3) & 31, bdf & 7),
                      "context = 0x%016x%016x" % (hi, lo), ""]
    with open(os.path.join(out, "mem", "sysmem.bin"), "wb") as f:
        f.write(mem)
    with open(os.path.join(out, "capture.ini"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
