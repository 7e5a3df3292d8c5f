#!/usr/bin/env python3
"""Boots a Linux guest with an emulated IOMMU under QEMU (TCG), lets its
devices do DMA and the test module (iommu_probe/) map known buffers, then
records the IOMMU's registers and dumps the guest's memory (README.md here,
"IOMMUs").

  --iommu vtd        q35, -device intel-iommu (legacy translation tables)
  --iommu vtd-sm     q35, -device intel-iommu,x-scalable-mode=on
  --iommu amdvi      q35, -device amd-iommu
  --iommu smmuv3     aarch64 virt,iommu=smmuv3

Each with a virtio-blk-pci and a virtio-net-pci device behind the IOMMU
(disable-legacy=on,iommu_platform=on: the device uses the DMA API, Linux
drivers/virtio/virtio_ring.c vring_use_dma_api).

Output in --out DIR:
  vmcore.elf    dump-guest-memory, format elf, paging=false
  regs.txt      the IOMMU's registers, `NAME VALUE SOURCE` per line: from
                QEMU's trace (vtd_reg_dmar_root, smmuv3_write_mmio at
                offsets 0x80/0x88: QEMU hw/i386/trace-events,
                hw/arm/trace-events) and from HMP `xp` of the IOMMU's MMIO
                (VT-d at 0xfed90000, QEMU include/hw/i386/intel_iommu.h
                Q35_HOST_BRIDGE_IOMMU_ADDR, RTADDR_REG at 0x20; AMD-Vi at
                0xfed80000, hw/i386/amd_iommu.h AMDVI_BASE_ADDR, the Device
                Table Base Address register at 0; SMMUv3 at 0x09050000,
                hw/arm/virt.c VIRT_SMMU, STRTAB_BASE 0x80, STRTAB_BASE_CFG
                0x88)
  trace.log     QEMU's trace of the IOMMU's translations (log backend, -D)
  live.txt      with --live-tool: the guest's RAM is a shared file
                and a second QMP socket is ptfs's live source (issue #33
                item 3); while the guest is stopped, every page the module
                printed is walked through the live mount's device context
                (found by ptfs from the registers it reads itself) and
                compared with the printed address: `live IOMMU: agree N,
                disagree M`; then the same pages through `ptfs-tool
                snapshot` of the stopped guest: `snapshot: agree N,
                disagree M (BYTES bytes)`, then the disagreements
  serial.log, qemu.log
Exit status: 0 done, 1 failure (the reason on stderr)."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

from qemu_truth import Qmp, QmpError, wait_marker

DEVICES = ['-drive', 'if=none,id=d0,format=raw,readonly=on,file=%(disk)s',
           '-device', 'virtio-blk-pci,drive=d0,disable-legacy=on,iommu_platform=on',
           '-netdev', 'user,id=n0',
           '-device', 'virtio-net-pci,netdev=n0,disable-legacy=on,iommu_platform=on,romfile=']
IOMMUS = {
    # QEMU name, target, machine, IOMMU device, console, kernel options, trace events
    'vtd': ('x86_64', 'q35', ['-device', 'intel-iommu'], 'ttyS0',
            'intel_iommu=on', ['vtd_dmar_translate', 'vtd_iotlb_page_update', 'vtd_reg_dmar_root']),
    'vtd-sm': ('x86_64', 'q35', ['-device', 'intel-iommu,x-scalable-mode=on'], 'ttyS0',
               'intel_iommu=on,sm_on', ['vtd_dmar_translate', 'vtd_iotlb_page_update',
                                        'vtd_reg_dmar_root']),
    'amdvi': ('x86_64', 'q35', ['-device', 'amd-iommu'], 'ttyS0',
              '', ['amdvi_translation_result']),
    'smmuv3': ('aarch64', 'virt,iommu=smmuv3', [], 'ttyAMA0', '',
               ['smmuv3_translate_success', 'smmuv3_write_mmio']),
}
# HMP `xp` reads of the IOMMU's MMIO: register name, format, address
XP = {
    'vtd': [('rtaddr', 'g', 0xfed90020)],
    'vtd-sm': [('rtaddr', 'g', 0xfed90020)],
    'amdvi': [('dev_table_base', 'g', 0xfed80000)],
    'smmuv3': [('strtab_base', 'g', 0x09050080), ('strtab_base_cfg', 'w', 0x09050088)],
}


def qemu_cmdline(args, serial, sock, disk, trace, live):
    arch, machine, dev, console, opts, events = IOMMUS[args.iommu]
    cpu = ['-cpu', 'cortex-a57'] if arch == 'aarch64' else ['-cpu', 'max,la57=off', '-vga', 'none']
    cmd = ['qemu-system-' + arch, '-accel', 'tcg', '-M', machine] + cpu + dev
    if live:   # RAM ptfs can map, and a QMP socket of its own (live_test.py does the same)
        cmd += ['-object', 'memory-backend-file,id=ram,mem-path=%s,share=on,size=%s' % (live[0], args.mem),
                '-machine', 'memory-backend=ram', '-qmp', 'unix:%s,server=on,wait=off' % live[1]]
        if arch == 'aarch64':   # its vCPUs' registers: the gdbstub (ptfs-capture(5))
            cmd += ['-gdb', 'unix:%s,server=on,wait=off' % live[2]]
    cmd += [a % {'disk': disk} for a in DEVICES]
    for e in events:
        cmd += ['-trace', e]
    return cmd + ['-m', args.mem, '-smp', '1', '-D', trace,
                  '-kernel', args.kernel, '-initrd', args.initrd,
                  '-append', 'console=%s panic=-1 quiet iommu.strict=1 iommu.passthrough=0 %s' %
                  (console, opts),
                  '-display', 'none', '-monitor', 'none', '-no-reboot',
                  '-serial', 'file:' + serial, '-qmp', 'unix:%s,server=on,wait=off' % sock]


def xp(qmp, fmt, addr):
    """HMP `xp /1Fx ADDR` (F: w 32-bit, g 64-bit): `ADDR: 0xVALUE`."""
    text = qmp.hmp('xp /1%sx 0x%x' % (fmt, addr))
    m = re.match(r'^[0-9a-f]+:\s+0x([0-9a-f]+)\s*$', text.strip())
    if not m:
        raise QmpError('unexpected xp answer at 0x%x: %r' % (addr, text))
    return int(m.group(1), 16)


def live_walks(args, out, live_sock):
    """Every page the guest module printed, walked through the live source
    (its [iommu] section made by ptfs from the registers it reads over QMP),
    against the printed physical address."""
    import iommu_agree
    prefix = {'vtd': 'vtd0.', 'vtd-sm': 'vtd0.', 'amdvi': 'amdvi0.', 'smmuv3': 'smmu0.'}[args.iommu]
    devs = iommu_agree.read_module(out('serial.log'))
    r = subprocess.run([args.live_tool, 'info', live_sock], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        raise QmpError('ptfs-tool info %s: %s' % (live_sock, r.stderr.strip()))
    names = set(re.findall(r'^# (\S+)', r.stdout, re.M))
    # a snapshot of the stopped guest (ptfs-tool snapshot: the IOMMU's own tables and its
    # devices' page tables only) must walk as the live source does; --force: --out is
    # kept between runs, and snapshot refuses an existing OUT without it
    snap = out('snapshot.tar.gz')
    r = subprocess.run([args.live_tool, 'snapshot', '--force', live_sock, snap], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise QmpError('ptfs-tool snapshot %s: %s' % (live_sock, r.stderr.strip()))
    agree, bad, sagree, sbad = 0, [], 0, 0
    for dev in devs.values():
        # an SMMUv3 stage-1 stream's SubstreamID 0 is its CD 0 (iommu_agree.py's rule)
        ctx = prefix + ('sid%d' % dev.sid if args.iommu == 'smmuv3' else dev.short)
        ctx = ctx + '.ssid0' if ctx + '.ssid0' in names else ctx
        if ctx not in names:
            bad.append('%s: no live context (the live source has %s)' % (ctx, ' '.join(sorted(names))))
            continue
        vas, want = [], []
        for iova, phys, ln in dev.maps:
            for off in range(0, ln, iommu_agree.PAGE):
                vas.append(iova + off)
                want.append(phys + off)
        for va, pa, res in zip(vas, want, iommu_agree.ptfs_walk(args.live_tool, live_sock, ctx, vas)):
            got = iommu_agree.walked_pa(res)
            if got == pa:
                agree += 1
            else:
                bad.append('%s IOVA 0x%x: the guest maps 0x%x, the live walk %s' % (
                    ctx, va, pa, res.get('status')))
        for va, pa, res in zip(vas, want, iommu_agree.ptfs_walk(args.live_tool, snap, ctx, vas)):
            if iommu_agree.walked_pa(res) == pa:
                sagree += 1
            else:
                sbad += 1
                bad.append('%s IOVA 0x%x: the guest maps 0x%x, the snapshot %s' % (
                    ctx, va, pa, res.get('status')))
    with open(out('live.txt'), 'w') as f:
        f.write('live IOMMU: agree %d, disagree %d\n' % (agree, len(bad) - sbad))
        f.write('snapshot: agree %d, disagree %d (%d bytes)\n' % (sagree, sbad, os.path.getsize(snap)))
        f.write(''.join(b + '\n' for b in bad[:30]))
    print('iommu_truth: %s: live IOMMU: agree %d, disagree %d; its snapshot (%d bytes): agree %d, '
          'disagree %d' % (args.iommu, agree, len(bad) - sbad, os.path.getsize(snap), sagree, sbad))
    os.unlink(snap)


def run(args):
    os.makedirs(args.out, exist_ok=True)
    out = lambda name: os.path.join(args.out, name)
    for name in ('vmcore.elf', 'regs.txt', 'trace.log', 'serial.log', 'qemu.log', 'live.txt', 'ram.img'):
        if os.path.exists(out(name)):
            os.unlink(out(name))
    # A disk with known contents, for the guest to read through the IOMMU.
    with open(out('disk.img'), 'wb') as f:
        for i in range(256):
            f.write(bytes([i]) * 4096)
    sockdir = tempfile.mkdtemp(prefix='ptfs-qmp.')
    sock = os.path.join(sockdir, 'qmp.sock')
    live = ((out('ram.img'), os.path.join(sockdir, 'live.sock'), os.path.join(sockdir, 'gdb.sock'))
            if args.live_tool else None)
    t0 = time.time()
    deadline = t0 + args.timeout
    log = open(out('qemu.log'), 'wb')
    proc = subprocess.Popen(qemu_cmdline(args, out('serial.log'), sock, out('disk.img'),
                                         out('trace.log'), live),
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        qmp = Qmp(sock, deadline, proc)
        wait_marker(out('serial.log'), b'PTFS-READY', proc, deadline)
        t_ready = time.time()
        qmp.cmd('stop')
        regs = ['%s 0x%x xp' % (name, xp(qmp, fmt, addr)) for name, fmt, addr in XP[args.iommu]]
        with open(out('regs.txt'), 'w') as f:
            f.write('\n'.join(regs) + '\n')
        if live:
            live_walks(args, out, live[1])
        qmp.cmd('dump-guest-memory', paging=False, protocol='file:' + out('vmcore.elf'),
                format='elf')
        t_end = time.time()
        qmp.cmd('quit')
        proc.wait(30)
        print('iommu_truth: %s: ready after %.1f s, registers and dump in %.1f s' %
              (args.iommu, t_ready - t0, t_end - t_ready))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
        for p in (sock,) + (live[1:] if live else ()):
            if p and os.path.exists(p):
                os.unlink(p)
        os.rmdir(sockdir)
        if live and os.path.exists(live[0]):
            os.unlink(live[0])   # the guest's RAM: as large as -m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--iommu', required=True, choices=sorted(IOMMUS))
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--initrd', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--mem', default='256M')
    ap.add_argument('--timeout', type=float, default=240)
    ap.add_argument('--live-tool', help='ptfs-tool: also walk the live guest (live.txt)')
    args = ap.parse_args()
    try:
        run(args)
    except (QmpError, OSError, subprocess.TimeoutExpired) as e:
        print('iommu_truth: %s: %s' % (args.iommu, e), file=sys.stderr)
        tail = os.path.join(args.out, 'serial.log')
        if os.path.exists(tail):
            with open(tail, errors='replace') as f:
                sys.stderr.write('--- serial.log (tail)\n' + ''.join(f.readlines()[-20:]))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
