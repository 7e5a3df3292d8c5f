#!/usr/bin/env python3
"""The comparisons of the QEMU IOMMU test (README.md here, "IOMMUs"), given
what iommu_truth.py recorded in DIR (vmcore.elf, regs.txt, trace.log,
serial.log with the test module's `ptfs-dma` lines):

  iommu_agree.py [--perturb] TOOL IOMMU DIR    IOMMU: vtd, vtd-sm, amdvi or smmuv3

Three modes, each reported on its own:
  device  the device's entry is read here from the dump, only to find its
          table root -- VT-d: RTADDR_REG's root table -> root entry ->
          context entry (legacy, VT-d spec 9.1-9.3) or scalable context
          entry -> PASID directory -> PASID 0's entry (9.4-9.6; Linux
          drivers/iommu/intel/pasid.h PASID_RID2PASID is 0); AMD-Vi: the
          DTE at Device Table Base + DeviceID * 32 (AMD IOMMU spec 2.2.2);
          SMMUv3: the STE of the StreamID in the linear or 2-level stream
          table (Arm IHI 0070 5.1-5.2) -- and ptfs walks it through the
          per-device sections ([vtd] context / pasid_entry, [amdvi] dte,
          [smmu] ste0..3 + ssid 0, which ptfs reads the CD of itself), in a
          capture.ini written beside the ELF dump that names it as its
          memory ([memory guest] dump = vmcore.elf: ptfs-capture(5),
          "Memory from a dump"; read in place);
  iommu   the same walks from the registers alone: one [iommu NAME] section
          (issue #32 item 1) and contexts NAME.BB:DD.F or NAME.sidN, in
          the same capture.ini beside the dump;
  roots   no registers: `ptfs-tool roots --iommu TYPE` on the dump alone
          must list the table the registers name, and the [iommu] section
          it prints, pasted beside the dump, must give the same walks
          (issue #32 item 4).
Each mode walks every page of every buffer the guest module printed (its
IOVA must reach the printed physical address) and the last traced
translation of every IOVA page QEMU traced (vtd_dmar_translate,
amdvi_translation_result, smmuv3_translate_success): agree, unmapped-stale
(streaming DMA torn down since), reused (the IOVA now holds a buffer of the
guest module, and the walk reaches that) or disagree.  The guest's own
iommu_iova_to_phys() must have agreed with the CPU's address of each page.
Exit 1 on any disagreement.  --perturb moves every physical address the
module printed for its first device by a page: each of that device's pages
must then disagree (the test checks that it would see a wrong walk)."""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

import dumpwalk

A52 = (1 << 52) - 1
PAGE = 0x1000
DMA_LINE = re.compile(r'ptfs-dma (\S+) sid=(-?\d+) kind=(\w+) iova=0x([0-9a-f]+) '
                      r'phys=0x([0-9a-f]+) len=0x([0-9a-f]+) iommu=0x([0-9a-f]+) bad=(\d+)')
TRACES = {
    # QEMU hw/i386/trace-events, hw/arm/trace-events (the log backend's text)
    'vtd': re.compile(r'vtd_dmar_translate dev ([0-9a-f]+):([0-9a-f]+)\.([0-9a-f]+) '
                      r'iova 0x([0-9a-f]+) -> gpa 0x([0-9a-f]+)'),
    # the IOTLB entry QEMU fills: sid = bus << 8 | devfn, the request's
    # address, the raw leaf (its address bits the page: 51:12 masked below)
    'vtd-iotlb': re.compile(r'vtd_iotlb_page_update IOTLB page update sid 0x([0-9a-f]+) '
                            r'iova 0x([0-9a-f]+) slpte 0x([0-9a-f]+)'),
    'amdvi': re.compile(r'amdvi_translation_result devid: ([0-9a-f]+):([0-9a-f]+)\.([0-9a-f]+) '
                        r'gpa 0x([0-9a-f]+) hpa 0x([0-9a-f]+)'),
    'smmuv3': re.compile(r'smmuv3_translate_success \S+ sid=0x([0-9a-f]+) '
                         r'iova=0x([0-9a-f]+) translated=0x([0-9a-f]+)'),
}
FORMAT = {'vtd': 'intel-vtd', 'vtd-sm': 'intel-vtd', 'amdvi': 'amd-vi', 'smmuv3': 'arm-smmuv3'}


def fail(msg):
    sys.exit('iommu_agree: ' + msg)


class Device:
    def __init__(self, bdf, sid):
        self.bdf = bdf                       # 0000:00:01.0
        b, d, f = re.match(r'[0-9a-f]{4}:([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$', bdf).groups()
        self.rid = int(b, 16) << 8 | int(d, 16) << 3 | int(f)
        self.sid = sid if sid >= 0 else self.rid
        self.short = bdf[5:]                 # lspci's form: 00:01.0
        self.maps = []                       # (iova, phys, len)
        self.guest_bad = 0


def read_module(serial):
    devs = collections.OrderedDict()
    done = False
    for line in open(serial, errors='replace'):
        if 'ptfs-dma done' in line:
            done = True
        m = DMA_LINE.search(line)
        if not m:
            continue
        bdf, sid, _, iova, phys, ln, iommu, bad = m.groups()
        d = devs.setdefault(bdf, Device(bdf, int(sid)))
        d.maps.append((int(iova, 16), int(phys, 16), int(ln, 16)))
        d.guest_bad += int(bad) + (int(iommu, 16) != int(phys, 16))
    if not done or not devs:
        fail('%s: no complete report of the guest module (ptfs-dma lines)' % serial)
    return devs


def read_regs(work, iommu):
    """Registers from HMP xp (regs.txt) and, where QEMU traces their
    writes, from the trace: both must agree."""
    regs = {}
    for line in open(os.path.join(work, 'regs.txt')):
        name, value, _ = line.split()
        regs[name] = int(value, 16)
    traced = {}
    for line in open(os.path.join(work, 'trace.log'), errors='replace'):
        # QEMU hw/i386/intel_iommu.c vtd_root_table_setup traces the root
        # table's address and, apart, whether TTM is scalable (bit 10, Linux
        # DMA_RTADDR_SMT): put back together as RTADDR_REG holds them.
        m = re.search(r'vtd_reg_dmar_root addr 0x([0-9a-f]+) scalable ([01])', line)
        if m:
            traced['rtaddr'] = int(m.group(1), 16) | int(m.group(2)) << 10
        m = re.search(r'smmuv3_write_mmio addr: 0x(8[08]) val:0x([0-9a-f]+)', line)
        if m:
            traced['strtab_base' if m.group(1) == '80' else 'strtab_base_cfg'] = int(m.group(2), 16)
    for k, v in traced.items():
        if k in regs and regs[k] != v:
            fail('register %s: xp reads 0x%x, the trace says 0x%x' % (k, regs[k], v))
    print('iommu_agree: registers %s (xp%s)' % (
        ', '.join('%s=0x%x' % kv for kv in sorted(regs.items())),
        ', and the trace agrees' if traced else ''))
    return regs


def vtd_section(dump, regs, dev, scalable):
    rt = regs['rtaddr'] & A52 & ~0xfff
    bus, devfn = dev.rid >> 8, dev.rid & 0xff
    lo, hi = dump.q(rt + bus * 16), dump.q(rt + bus * 16 + 8)
    if not scalable:
        if not lo & 1:
            return None
        ct = lo & A52 & ~0xfff
        clo, chi = dump.q(ct + devfn * 16), dump.q(ct + devfn * 16 + 8)
        return 'context = 0x%016x%016x' % (chi, clo) if clo & 1 else None
    # scalable: the lower context table serves devfn 0-127, the upper 128-255
    half = lo if devfn < 128 else hi
    if not half & 1:
        return None
    ce = (half & A52 & ~0xfff) + (devfn & 0x7f) * 32
    clo = dump.q(ce)
    if not clo & 1:
        return None
    dirent = dump.q(clo & A52 & ~0xfff)          # PASID 0: directory entry 0
    if not dirent & 1:
        return None
    pe = dirent & A52 & ~0xfff                   # PASID 0: table entry 0
    return 'pasid_entry = ' + ' '.join('0x%x' % dump.q(pe + 8 * i) for i in range(8))


def amdvi_section(dump, regs, dev):
    base = regs['dev_table_base'] & A52 & ~0xfff
    w0 = dump.q(base + dev.rid * 32)
    return 'dte = 0x%x' % w0 if w0 & 1 else None


def smmu_ste(dump, regs, sid):
    base = regs['strtab_base'] & A52 & ~0x3f
    cfg = regs['strtab_base_cfg']
    split, fmt = cfg >> 6 & 0x1f, cfg >> 16 & 3
    if fmt == 1:   # 2-level: L1STD at base + (sid >> SPLIT) * 8, L2Ptr 51:6
        l1 = dump.q(base + (sid >> split) * 8)
        if not l1 & 0x1f:   # Span 0: invalid
            return None
        ste = (l1 & A52 & ~0x3f) + (sid & ((1 << split) - 1)) * 64
    else:
        ste = base + sid * 64
    words = [dump.q(ste + 8 * i) for i in range(4)]
    return words if words[0] & 1 else None


def section_for(iommu, dump, regs, dev):
    if iommu in ('vtd', 'vtd-sm'):
        # RTADDR_REG.TTM (11:10): 00 legacy, 01 scalable (VT-d spec 10.4.6);
        # the test of each mode must have got it
        ttm = regs['rtaddr'] >> 10 & 3
        if ttm != (iommu == 'vtd-sm'):
            fail('RTADDR_REG 0x%x: TTM %d, not the %s mode this test is of' %
                 (regs['rtaddr'], ttm, 'scalable' if iommu == 'vtd-sm' else 'legacy'))
        body = vtd_section(dump, regs, dev, ttm == 1)
        return '[vtd %s]\n%s\n' % (dev.name, body) if body else None
    if iommu == 'amdvi':
        body = amdvi_section(dump, regs, dev)
        return '[amdvi %s]\n%s\n' % (dev.name, body) if body else None
    words = smmu_ste(dump, regs, dev.sid)
    if not words:
        return None
    return '[smmu %s]\n%sssid = 0\n' % (dev.name, ''.join('ste%d = 0x%x\n' % (i, w)
                                                       for i, w in enumerate(words)))


def write_capture(work, mode, sections):
    """WORK as a capture directory: a capture.ini beside the dump naming it
    as its memory ([memory guest] dump = vmcore.elf, read in place;
    ptfs-capture(5) "Memory from a dump") with SECTIONS beside the dump's
    own contexts.  A copy is kept as capture-MODE.ini."""
    for old in os.listdir(work):   # an earlier run's capture directories (two capture.ini are refused)
        if old.startswith('cap-') and os.path.isdir(os.path.join(work, old)):
            shutil.rmtree(os.path.join(work, old))
    ini = ['[capture]', 'version = 1', 'description = ptfs qemu-iommu, %s mode' % mode, '',
           '[memory guest]', 'dump = vmcore.elf', '']
    text = '\n'.join(ini) + '\n'.join(sections)
    for name in ('capture.ini', 'capture-%s.ini' % mode):
        with open(os.path.join(work, name), 'w') as f:
            f.write(text)
    return work


def ptfs_walk(tool, cap, ctx, vas):
    out = []
    for i in range(0, len(vas), 512):
        chunk = vas[i:i + 512]
        r = subprocess.run([tool, 'walk', '--json', cap, ctx] + ['0x%x' % v for v in chunk],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            fail('ptfs-tool walk %s %s failed (%d): %s' % (cap, ctx, r.returncode, r.stderr.strip()))
        res = [json.loads(l)['result'] for l in r.stdout.splitlines() if l.strip()]
        if len(res) != len(chunk):
            fail('ptfs-tool walk gave %d results for %d IOVAs' % (len(res), len(chunk)))
        out += res
    return out


def walked_pa(res):
    if res.get('status') != 'mapped':
        return None
    if res.get('space') != 'sysmem':
        return 'space ' + str(res.get('space'))
    return int(res['pa'], 16)


def read_traces(iommu, work, devs):
    """The last traced translation of each (device, IOVA page)."""
    rx = TRACES['vtd' if iommu == 'vtd-sm' else iommu]
    by_rid = {d.rid: d for d in devs.values()}
    by_sid = {d.sid: d for d in devs.values()}
    last = collections.OrderedDict()
    other = 0
    for line in open(os.path.join(work, 'trace.log'), errors='replace'):
        m = rx.search(line)
        iotlb = not m and iommu in ('vtd', 'vtd-sm') and TRACES['vtd-iotlb'].search(line)
        if not m and not iotlb:
            continue
        g = (m or iotlb).groups()
        if iotlb:
            dev, iova, pa = by_rid.get(int(g[0], 16)), int(g[1], 16), int(g[2], 16) & A52 & ~0xfff
        elif iommu == 'smmuv3':
            dev, iova, pa = by_sid.get(int(g[0], 16)), int(g[1], 16), int(g[2], 16)
        else:
            rid = int(g[0], 16) << 8 | int(g[1], 16) << 3 | int(g[2], 16)
            dev, iova, pa = by_rid.get(rid), int(g[3], 16), int(g[4], 16)
        if dev is None:
            other += 1
            continue
        key = (dev.bdf, iova & ~(PAGE - 1))
        last.pop(key, None)
        last[key] = (dev, iova, pa)
    return list(last.values()), other


def compare(tool, cap, devs, ctxname, traces):
    """Counts per kind of evidence: (agree, unmapped-stale, reused,
    disagree), and the disagreements."""
    counts = {'module': [0, 0, 0, 0], 'trace': [0, 0, 0, 0]}
    sizes = collections.Counter()   # the leaves the module's pages walk through
    bad = []
    for dev in devs.values():
        ctx = ctxname(dev)
        if ctx is None:
            counts['module'][3] += sum(ln // PAGE for _, _, ln in dev.maps)
            bad.append('%s: no context found' % dev.bdf)
            continue
        vas, want = [], []
        for iova, phys, ln in dev.maps:
            for off in range(0, ln, PAGE):
                sub = (off // PAGE * 0x38) & 0xff8   # an offset in the page too
                vas.append(iova + off + sub)
                want.append(phys + off + sub)
        for va, pa, res in zip(vas, want, ptfs_walk(tool, cap, ctx, vas)):
            got = walked_pa(res)
            if got == pa:
                counts['module'][0] += 1
                sizes[int(res['page_size'], 16)] += 1
            else:
                counts['module'][3] += 1
                bad.append('%s IOVA 0x%x: the guest maps 0x%x, ptfs %s' % (
                    dev.bdf, va, pa, 'faults' if got is None else got if isinstance(got, str) else
                    'reaches 0x%x' % got))
        mine = {}
        for iova, phys, ln in dev.maps:
            for off in range(0, ln, PAGE):
                mine[iova + off] = phys + off
        rows = [(iova, pa) for d, iova, pa in traces if d is dev]
        for (iova, pa), res in zip(rows, ptfs_walk(tool, cap, ctx, [i for i, _ in rows])):
            got = walked_pa(res)
            size = int(res.get('page_size', '0x1000'), 16)
            if got is None:
                counts['trace'][1] += 1
            elif isinstance(got, int) and (got == pa or got & ~(size - 1) == pa):
                counts['trace'][0] += 1
            elif isinstance(got, int) and mine.get(iova & ~(PAGE - 1)) == got & ~(PAGE - 1):
                counts['trace'][2] += 1
            else:
                counts['trace'][3] += 1
                bad.append('%s traced IOVA 0x%x -> 0x%x, ptfs %s' % (dev.bdf, iova, pa, got))
    print('iommu_agree: the guest module\'s pages agree through leaves of %s' %
          ', '.join('%d KiB: %d' % (k >> 10, v) for k, v in sorted(sizes.items())))
    return counts, bad


def report(iommu, mode, counts, bad):
    for b in bad[:30]:
        print('iommu_agree: DISAGREE (%s) %s' % (mode, b))
    for kind, (a, s, r, d) in counts.items():
        print('iommu_agree: %s %s mode, %s: agree %d, unmapped-stale %d, reused %d, disagree %d' %
              (iommu, mode, 'guest module pages' if kind == 'module' else 'QEMU traced IOVAs',
               a, s, r, d))
    return 1 if bad else 0


def mode_iommu(tool, iommu, work, regs, devs, traces):
    """The registers alone: [iommu io0] (issue #32 item 1)."""
    body = ['[iommu io0]', 'type = ' + FORMAT[iommu]]
    body += ['%s = 0x%x' % kv for kv in sorted(regs.items())]
    return iommu_section_agrees(tool, iommu, work, 'iommu', '\n'.join(body) + '\n', devs, traces)


def table_of(iommu, regs):
    """The table address the registers name (what roots must find)."""
    if iommu == 'smmuv3':
        return regs['strtab_base'] & A52 & ~0x3f
    return regs['rtaddr' if iommu.startswith('vtd') else 'dev_table_base'] & A52 & ~0xfff


def mode_roots(tool, iommu, work, regs, devs, traces):
    """No registers: `roots --iommu` on the dump alone must find the table
    the IOMMU's registers name, and its [iommu] section, pasted, must give
    every device the walks QEMU's answers give (issue #32 item 4)."""
    r = subprocess.run([tool, 'roots', '--iommu', FORMAT[iommu], '--json',
                        os.path.join(work, 'vmcore.elf')],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        print('iommu_agree: DISAGREE (roots) ptfs-tool roots: ' + r.stderr.strip())
        return 1
    cands = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith('{"')]
    cands = [c for c in cands if 'section' in c]
    want = table_of(iommu, regs)
    found = [i for i, c in enumerate(cands) if int(c['pa'], 16) == want]
    print('iommu_agree: roots --iommu %s: %d candidates, the registers\' table 0x%x %s' % (
        FORMAT[iommu], len(cands), want,
        'ranked %d (score %d of best %d)' % (found[0] + 1, cands[found[0]]['score'],
                                              cands[0]['score']) if found else 'NOT FOUND'))
    if not found:
        print('iommu_agree: DISAGREE (roots) no candidate at 0x%x: %s' % (
            want, ' '.join(c['pa'] for c in cands[:10])))
        return 1
    # The section as printed, under the name the comparison looks for.
    lines = cands[found[0]]['section'].splitlines()
    body = '\n'.join(['[iommu io0]'] + lines[1:]) + '\n'
    return iommu_section_agrees(tool, iommu, work, 'roots', body, devs, traces)


def iommu_section_agrees(tool, iommu, work, mode, body, devs, traces):
    """BODY, an [iommu io0] section, beside the dump: every device's pages
    and traced IOVAs compared with QEMU's answers."""
    cap = write_capture(work, mode, [body])
    r = subprocess.run([tool, 'info', cap], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        print('iommu_agree: DISAGREE (%s) ptfs-tool info: %s' % (mode, r.stderr.strip()))
        return 1
    names = set(re.findall(r'^# (\S+)', r.stdout, re.M))

    def ctxname(dev):
        # VT-d: the device's RID_PASID entry is the device's context (.pasidN
        # are the others); SMMUv3 stage 1: the CD of SubstreamID 0.
        base = 'io0.' + ('sid%d' % dev.sid if iommu == 'smmuv3' else dev.short)
        order = (base + '.ssid0', base) if iommu == 'smmuv3' else (base, base + '.pasid0')
        for n in order:
            if n in names:
                return n
        return None
    print('iommu_agree: %s %s mode: contexts %s' % (
        iommu, mode, ' '.join(str(ctxname(d)) for d in devs.values())))
    counts, bad = compare(tool, cap, devs, ctxname, traces)
    return report(iommu, mode, counts, bad)


def main(argv):
    perturb = argv[1:2] == ['--perturb']
    if perturb:
        argv = argv[:1] + argv[2:]
    if len(argv) != 4 or argv[2] not in FORMAT:
        sys.exit(__doc__)
    tool, iommu, work = argv[1], argv[2], argv[3]
    dump_path = os.path.join(work, 'vmcore.elf')
    dump = dumpwalk.Dump(dump_path)
    devs = read_module(os.path.join(work, 'serial.log'))
    if perturb:   # the harness's own check: a wrong answer must be caught
        d = next(iter(devs.values()))
        d.maps = [(iova, phys + PAGE, ln) for iova, phys, ln in d.maps]
    guest_bad = sum(d.guest_bad for d in devs.values())
    npages = sum(ln // PAGE for d in devs.values() for _, _, ln in d.maps)
    print('iommu_agree: the guest module mapped %d pages on %d devices (%s); '
          'iommu_iova_to_phys disagreed with the CPU on %d' %
          (npages, len(devs), ' '.join(devs), guest_bad))
    regs = read_regs(work, iommu)
    traces, other = read_traces(iommu, work, devs)
    print('iommu_agree: %d traced IOVA pages (%d translations of devices the module did not map)' %
          (len(traces), other))
    sections = []
    for dev in devs.values():
        dev.name = 'pci-' + dev.short.replace(':', '-') if iommu != 'smmuv3' else 'sid%d' % dev.sid
        s = section_for(iommu, dump, regs, dev)
        if s:
            sections.append(s)
        else:
            dev.name = None
    cap = write_capture(work, 'device', sections)
    counts, bad = compare(tool, cap, devs, lambda d: d.name, traces)
    rc = report(iommu, 'device', counts, bad)
    rc |= mode_iommu(tool, iommu, work, regs, devs, traces)
    rc |= mode_roots(tool, iommu, work, regs, devs, traces)
    if guest_bad:
        print('iommu_agree: DISAGREE the guest: iommu_iova_to_phys differs from the CPU '
              'on %d pages' % guest_bad)
        rc = 1
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
