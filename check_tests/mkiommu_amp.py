#!/usr/bin/env python3
"""mkiommu_amp.py DIR SHAPE [N] — a directory capture whose IOMMU tables fan out:
a few KiB of tables that name one table from many slots (issue #39 item 1).

SHAPE (N: devices or streams sharing the tables, default 1):
  vtd-pasid   VT-d scalable (rtaddr TTM 01): N devices on bus 0 share one
              PASID directory of 2^14 entries (PDTS 7), each pointing at one
              PASID table of 64 pass-through entries (PGTT 100): 140 KiB that
              name 2^20 PASIDs per device.
  amd-gcr3    AMD-Vi: N DTEs (GV 1, GLX 01: two GCR3 levels, GIoV 1, Mode 0)
              share a GCR3 L1 table whose 512 entries point at one L0 table of
              512 valid entries: 8 KiB of GCR3 tables that name 2^18 PASIDs.
  amd-gcr3-dt as amd-gcr3, the L1 entries pointing at the device table itself
              (its DTEs' first words are read as GCR3 entries).
  smmu-l1cd   SMMUv3 linear stream table of N STEs (Config 101, S1Fmt 01,
              S1CDMax 20) sharing one L1CD table of 2^14 descriptors, each
              pointing at one leaf of 64 valid CDs.
  smmu-cd     SMMUv3: N STEs (S1Fmt 00, S1CDMax 10) share one linear CD table
              of 1,024 valid CDs.
Layouts: VT-d spec §9.1, §9.4-9.6, §11.4.5; AMD IOMMU spec 48882 §2.2.2,
§2.2.6, §3.3.1; Arm IHI 0070 §5.2-5.4, §6.3.23/24.
"""
import os
import struct
import sys

BASE = 0x100000


def vtd_pasid(mem, n):
    root, ctx, pdir, ptab = BASE, BASE + 0x1000, BASE + 0x2000, BASE + 0x22000
    struct.pack_into("<Q", mem, root - BASE, ctx | 1)             # bus 0, devfn 0-127
    for d in range(n):
        struct.pack_into("<QQ", mem, ctx - BASE + 32 * d, pdir | 7 << 9 | 1, 0)
    for i in range(1 << 14):
        struct.pack_into("<Q", mem, pdir - BASE + 8 * i, ptab | 1)
    for i in range(64):                                           # PGTT 100, AW 39
        struct.pack_into("<Q", mem, ptab - BASE + 64 * i, 4 << 6 | 1 << 2 | 1)
    return ptab + 0x1000 - BASE, "type = intel-vtd\nrtaddr = 0x%x\n" % (root | 1 << 10)


def amd_gcr3(mem, n, at_dt):
    dt, l1, l0, cr3 = BASE, BASE + 0x1000, BASE + 0x2000, BASE + 0x3000
    q0 = 3 | cr3 | 1 << 54 | 1 << 55 | 1 << 56 | ((l1 >> 12) & 7) << 58
    q1 = ((l1 >> 15) & 0xffff) << 16 | ((l1 >> 31) & 0x1fffff) << 43
    for d in range(n):
        struct.pack_into("<QQ", mem, 32 * d, q0, q1)
    for i in range(512):
        struct.pack_into("<Q", mem, l1 - BASE + 8 * i, (dt if at_dt else l0) | 1)
        struct.pack_into("<Q", mem, l0 - BASE + 8 * i, cr3 | 1)
    return cr3 + 0x1000 - BASE, "type = amd-vi\ndev_table_base = 0x%x\n" % dt


CD0 = 16 | 1 << 30 | 1 << 31 | 5 << 32 | 1 << 41   # T0SZ 16, EPD1, V, IPS 5, AA64


def smmu(mem, n, fmt):
    ste, tab, leaf, ttb = BASE, BASE + 0x10000, BASE + 0x30000, BASE + 0x31000
    log2 = max(n - 1, 0).bit_length()
    cdmax = 20 if fmt else 10
    for s in range(n):
        struct.pack_into("<QQ", mem, 64 * s, 1 | 5 << 1 | fmt << 4 | tab | cdmax << 59, 2)
    if fmt:
        for i in range(1 << 14):
            struct.pack_into("<Q", mem, tab - BASE + 8 * i, leaf | 1)
        cds = [(leaf, 64)]
    else:
        cds = [(tab, 1024)]
    for at, k in cds:
        for i in range(k):
            struct.pack_into("<QQ", mem, at - BASE + 64 * i, CD0, ttb)
    return ttb + 0x1000 - BASE, ("type = arm-smmuv3\nstrtab_base = 0x%x\nstrtab_base_cfg = %d\n"
                                 % (ste, log2))


def main():
    out, shape = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    mem = bytearray(0x40000)
    if shape == "vtd-pasid":
        size, sec = vtd_pasid(mem, n)
        fmt = "intel-vtd"
    elif shape in ("amd-gcr3", "amd-gcr3-dt"):
        size, sec = amd_gcr3(mem, n, shape == "amd-gcr3-dt")
        fmt = "amd-vi"
    elif shape in ("smmu-l1cd", "smmu-cd"):
        size, sec = smmu(mem, n, 1 if shape == "smmu-l1cd" else 0)
        fmt = "arm-smmuv3"
    else:
        sys.exit("mkiommu_amp.py: unknown shape '%s'" % shape)
    os.makedirs(os.path.join(out, "mem"), exist_ok=True)
    with open(os.path.join(out, "mem", "sysmem.bin"), "wb") as f:
        f.write(mem[:size])
    with open(os.path.join(out, "capture.ini"), "w") as f:
        f.write("[capture]\nversion = 1\nformat = %s\n\n[memory tables]\nspace = sysmem\n"
                "base = 0x%x\nfile = mem/sysmem.bin\n\n[iommu io]\n%s" % (fmt, BASE, sec))


if __name__ == "__main__":
    main()
