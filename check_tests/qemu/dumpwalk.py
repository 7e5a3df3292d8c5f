#!/usr/bin/env python3
"""An independent x86-64 walk of a QEMU ELF dump, to cross-check the truth
files of the agreement test without ptfs (README.md here).

It reads the ELF core (PT_LOAD segments at p_paddr; the "QEMU" notes'
QEMUCPUState with CR3 at offset 416 and CR4 at 424, QEMU
target/i386/arch_dump.c), and walks like QEMU's own debug walker
(target/i386/helper.c x86_cpu_get_phys_page_attrs_debug: only the present
bit is checked; PS in a PDPTE or PDE ends the walk; a VA whose bits above
47, or 56 under CR4.LA57, are not a sign extension is unmapped).

  dumpwalk.py truth ELF TRUTH        every `cpuN VA PA|unmapped` line of TRUTH
                                     walked again in the dump; exit 1 on a
                                     difference
  dumpwalk.py tlb ELF CPU TLBFILE    the pages of vCPU CPU's tables, printed
                                     as QEMU's `info tlb` prints them
                                     (target/i386/monitor.c print_pte), equal
                                     to TLBFILE; exit 1 on a difference
  dumpwalk.py pages ELF CPU          one line per page: VA SIZE PA
  dumpwalk.py cpus ELF               one line per vCPU: cpuN CR3 CR4

An arm64 dump (no QEMU notes) has one context, `kernel`, walked from
swapper_pg_dir through TTBR1 (truth mode only).
"""
import mmap
import struct
import sys

PT_LOAD, PT_NOTE, PN_XNUM = 1, 4, 0xffff
ADDR = 0x000ffffffffff000       # bits 51:12 (QEMU PG_ADDRESS_MASK)
TLB_MASK = 0x3fffffffff000      # the masks info tlb prints with
SIZES = {1: 1 << 30, 2: 1 << 21, 3: 1 << 12}


class Dump:
    def __init__(self, path):
        f = open(path, 'rb')
        self.m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        m = self.m
        if m[:4] != b'\x7fELF' or m[4] != 2 or m[5] != 1:
            raise SystemExit('%s: not a little-endian ELF64 file' % path)
        (e_type, _, _, _, e_phoff, e_shoff, _, _, e_phentsize, e_phnum,
         _, _, _) = struct.unpack_from('<HHIQQQIHHHHHH', m, 16)
        if e_type != 4:
            raise SystemExit('%s: not an ET_CORE file' % path)
        if e_phnum == PN_XNUM:   # the real count is section 0's sh_info
            e_phnum = struct.unpack_from('<I', m, e_shoff + 44)[0]
        self.loads = []
        self.cpus = []
        self.vmcoreinfo = {}
        for i in range(e_phnum):
            p_type, _, off, _, paddr, filesz, _, _ = struct.unpack_from(
                '<IIQQQQQQ', m, e_phoff + i * e_phentsize)
            if p_type == PT_LOAD and filesz and off != 2**64 - 1:
                self.loads.append((paddr, filesz, off))
            elif p_type == PT_NOTE:
                self._notes(off, filesz)
        self.loads.sort()

    def _notes(self, off, size):
        end = off + size
        while off + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from('<III', self.m, off)
            name = bytes(self.m[off + 12:off + 12 + namesz]).rstrip(b'\0')
            desc = off + 12 + (namesz + 3) // 4 * 4
            if name == b'QEMU' and ntype == 0:
                version, qsize = struct.unpack_from('<II', self.m, desc)
                if version != 1 or qsize < 432:
                    raise SystemExit('QEMU note version %d size %d' % (version, qsize))
                self.cpus.append(struct.unpack_from('<QQ', self.m, desc + 416))
            elif name == b'VMCOREINFO':
                text = bytes(self.m[desc:desc + descsz]).decode(errors='replace')
                for line in text.splitlines():
                    k, _, v = line.partition('=')
                    self.vmcoreinfo[k] = v
            off = desc + (descsz + 3) // 4 * 4

    def q(self, pa):
        """The u64 at guest-physical pa, or 0 where no segment has it
        (QEMU's debug reads of unbacked memory read as zero-ish too; our
        guest's tables are all in RAM, so this never matters in practice)."""
        for base, size, off in self.loads:
            if base <= pa and pa + 8 <= base + size:
                return struct.unpack_from('<Q', self.m, off + pa - base)[0]
        raise KeyError('PA 0x%x is not in the dump' % pa)


def walk(d, cpu, va):
    """QEMU's answer for va: the PA, or None (unmapped)."""
    cr3, cr4 = d.cpus[cpu]
    la57 = bool(cr4 >> 12 & 1)
    top = 56 if la57 else 47
    sext = va >> top
    if sext not in (0, (1 << (64 - top)) - 1):
        return None
    table = cr3 & ~0xfff & ADDR
    shifts = [48, 39, 30, 21, 12] if la57 else [39, 30, 21, 12]
    for i, shift in enumerate(shifts):
        e = d.q(table + ((va >> shift) & 0x1ff) * 8)
        if not e & 1:
            return None
        if shift == 12 or (shift in (30, 21) and e >> 7 & 1):
            size = 1 << shift
            return (e & ADDR & ~(size - 1)) | (va & (size - 1))
        table = e & ADDR


def pages(d, cpu):
    """(va, size, entry) of every present leaf, in VA order; the VA sign-
    extended as info tlb prints it (target/i386/monitor.c addr_canonical)."""
    cr3, cr4 = d.cpus[cpu]
    la57 = bool(cr4 >> 12 & 1)
    out = []

    def rec(table, level, base):   # level 0 pml5 .. 4 pt
        for i in range(512):
            e = d.q(table + i * 8)
            if not e & 1:
                continue
            shift = 48 - 9 * level
            va = base | i << shift
            if level == 4 or (level in (2, 3) and e >> 7 & 1):
                out.append((va, 1 << shift, e))
            else:
                rec(e & TLB_MASK, level + 1, va)

    rec(cr3 & TLB_MASK, 0 if la57 else 1, 0)
    canon = 56 if la57 else 47
    return [((va | -(1 << (canon + 1))) & (2**64 - 1) if va >> canon & 1 else va, s, e)
            for va, s, e in out]

# ---- AArch64, the kernel's TTBR1 tables (Arm ARM D8.3: 4 KiB granule,
# 48-bit VA, start level 0; a table or page descriptor has bits 1:0 = 0b11,
# a block (level 1 or 2) 0b01; output address bits 47:12; AF is bit 10).
# The root is swapper_pg_dir's physical address: SYMBOL(swapper_pg_dir) -
# NUMBER(kimage_voffset) (Linux arch/arm64/include/asm/memory.h
# __pa_symbol).  QEMU's debug walk (target/arm/ptw.c) faults on AF = 0
# (cortex-a57 has no hardware access-flag update): such a page is
# unmapped for gva2gpa.
A64_OA = 0x0000fffffffff000


def a64_root(d):
    vi = d.vmcoreinfo
    if vi.get('NUMBER(TCR_EL1_T1SZ)', '0x10') not in ('0x10', '16') or vi.get('PAGESIZE') != '4096':
        raise SystemExit('dumpwalk: only a 4 KiB-granule 48-bit arm64 kernel is walked here')
    return (int(vi['SYMBOL(swapper_pg_dir)'], 16) - int(vi['NUMBER(kimage_voffset)'], 16)) % 2**64


def a64_walk(d, root, va):
    if va >> 48 != 0xffff:
        return None
    table = root
    for level in range(4):
        shift = 39 - 9 * level
        e = d.q(table + ((va >> shift) & 0x1ff) * 8)
        kind = e & 3
        if kind == 3 and level < 3:
            table = e & A64_OA
            continue
        if (kind == 3 and level == 3) or (kind == 1 and level in (1, 2)):
            if not e >> 10 & 1:
                return None
            size = 1 << shift
            return (e & A64_OA & ~(size - 1)) | (va & (size - 1))
        return None


def a64_pages(d, root):
    """(va, size, descriptor) of every valid leaf of TTBR1, in VA order."""
    out = []

    def rec(table, level, base):
        for i in range(512):
            e = d.q(table + i * 8)
            shift = 39 - 9 * level
            va = base | i << shift
            if e & 3 == 3 and level < 3:
                rec(e & A64_OA, level + 1, va)
            elif (e & 3 == 3 and level == 3) or (e & 3 == 1 and level in (1, 2)):
                out.append((va, 1 << shift, e))

    rec(root, 0, 0xffff << 48)
    return out


def tlb_line(va, size, e):
    mask = {1 << 30: 0x3ffffc0000000, 1 << 21: 0x3ffffffe00000}.get(size, TLB_MASK)
    if size == 4096:
        e &= ~(1 << 7)   # print_pte gets `pte & ~PG_PSE_MASK` for a PTE
    flags = ''.join(c if e >> b & 1 else '-' for c, b in
                    (('X', 63), ('G', 8), ('P', 7), ('D', 6), ('A', 5), ('C', 4),
                     ('T', 3), ('U', 2), ('W', 1)))
    return '%016x: %016x %s' % (va, e & mask, flags)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    d = Dump(argv[2])
    if argv[1] == 'cpus':
        for i, (cr3, cr4) in enumerate(d.cpus):
            print('cpu%d 0x%x 0x%x' % (i, cr3, cr4))
        return 0
    if argv[1] == 'pages':
        for va, size, e in pages(d, int(argv[3])):
            print('0x%016x 0x%x 0x%x' % (va, size, e & ADDR & ~(size - 1)))
        return 0
    if argv[1] == 'tlb':
        got = pages(d, int(argv[3]))
        mine = [tlb_line(*p) for p in got]
        sizes = {}
        for _, size, _ in got:
            sizes[size] = sizes.get(size, 0) + 1
        hist = ', '.join('%s %d' % ({1 << 12: '4K', 1 << 21: '2M', 1 << 30: '1G'}[k], v)
                         for k, v in sorted(sizes.items()))
        theirs = [l.strip() for l in open(argv[4]) if l.strip()]
        bad = [(a, b) for a, b in zip(mine, theirs) if a != b]
        if bad or len(mine) != len(theirs):
            for a, b in bad[:10]:
                print('dump: %s\nqemu: %s' % (a, b))
            print('dumpwalk: cpu%s: %d pages in the dump, %d in info tlb, %d differ' %
                  (argv[3], len(mine), len(theirs), len(bad)))
            return 1
        print('dumpwalk: cpu%s: %d pages (%s), equal to info tlb' % (argv[3], len(mine), hist))
        return 0
    if argv[1] == 'truth':
        n = bad = 0
        for line in open(argv[3]):
            ctx, va, pa = line.split()
            if ctx == 'kernel' and not d.cpus:   # arm64: the VMCOREINFO root
                got = a64_walk(d, a64_root(d), int(va, 16))
            else:
                got = walk(d, int(ctx[3:]), int(va, 16))
            got = 'unmapped' if got is None else '0x%x' % got
            n += 1
            if got != pa:
                bad += 1
                print('%s %s: qemu %s, dump walk %s' % (ctx, va, pa, got))
        print('dumpwalk: %d VAs, %d differ' % (n, bad))
        return 1 if bad else 0
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
