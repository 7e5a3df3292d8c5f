#!/usr/bin/env python3
"""live_roots.py -- a live x86-64 guest with VT-d: `ptfs-tool roots` and pa/
lookups live against the same on an ELF dump of the same stopped guest
(issue #39 items 9 and 10; bench/README.md, "Live guests: roots and pa/").

Boots the qemu-iommu test's q35 guest (-device intel-iommu, a virtio-blk and
a virtio-net device behind it: check_tests/qemu/iommu_truth.py's command
line, its RAM a shared file), waits for PTFS-READY, stops it, dumps it as
ELF, then measures, each against its baseline measured in this run:
  - `ptfs-tool roots SOCKET` and `ptfs-tool roots vmcore.elf`: wall and CPU
    time (best of --reps), the candidates, how many of them are [vtd];
  - pa/sysmem/ADDR in a mount of the socket and in a mount of the dump:
    the first lookup (the reverse index is built) and the median of the
    next --lookups (other addresses; the guest unchanged).
usage: live_roots.py --ptfs P --tool T --kernel K --initrd I --work DIR [--mem 512M]
The initrd is mkinitramfs_iommu.sh's (its probe module may be an empty file:
the guest then only says that insmod failed).  Prints one markdown table.
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'check_tests', 'qemu'))
import iommu_truth  # noqa: E402  (the IOMMU guest's command line)
from qemu_truth import Qmp, wait_marker  # noqa: E402


def timed(cmd, reps):
    """Best wall time of REPS runs, the CPU time (user + sys) of that run, and its stdout."""
    best = None
    for _ in range(reps):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.time()
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        wall = time.time() - t
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        if best is None or wall < best[0]:
            best = (wall, cpu, out)
    return best


def candidates(text):
    """(all, [vtd] ones, formats named on the comment lines) of roots' text output."""
    heads = [ln for ln in text.decode().splitlines() if ln.startswith('# score=')]
    secs = re.findall(r'^\[(\w+) root-', text.decode(), re.M)
    fmts = sorted(set(re.findall(r' format=(\S+)', '\n'.join(heads))))
    return len(heads), secs.count('vtd'), fmts


def mount(ptfs, src, mnt):
    os.makedirs(mnt, exist_ok=True)
    p = subprocess.Popen([ptfs, src, mnt, '-f'], stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not os.path.ismount(mnt):
        if p.poll() is not None or time.time() > deadline:
            raise RuntimeError('ptfs %s did not mount' % src)
        time.sleep(0.01)
    return p


def umount(p, mnt):
    subprocess.call(['fusermount3', '-u', mnt])
    p.wait(30)


def lookups(ptfs, src, mnt, pas):
    """Seconds of the first pa/sysmem/ADDR read, and of each next one (distinct addresses)."""
    p = mount(ptfs, src, mnt)
    times = []
    try:
        for pa in pas:
            t = time.time()
            with open('%s/pa/sysmem/0x%x' % (mnt, pa)) as f:
                f.read()
            times.append(time.time() - t)
    finally:
        umount(p, mnt)
    return times[0], times[1:]


def ms(s):
    return '%.1f ms' % (s * 1e3) if s < 1 else '%.2f s' % s


def main():
    ap = argparse.ArgumentParser()
    for a in ('ptfs', 'tool', 'kernel', 'initrd', 'work'):
        ap.add_argument('--' + a, required=True)
    ap.add_argument('--mem', default='512M')
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--lookups', type=int, default=20)
    ap.add_argument('--timeout', type=float, default=300)
    args = ap.parse_args()
    args.iommu = 'vtd'
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    sockdir = tempfile.mkdtemp(prefix='ptfs-bench.')
    qsock, psock = sockdir + '/qmp.sock', sockdir + '/live.sock'
    ram = '/dev/shm/ptfs-bench-roots-%d.ram' % os.getpid()
    disk, elf, serial = work + '/disk.img', work + '/vmcore.elf', work + '/serial.log'
    with open(disk, 'wb') as f:
        f.write(b'\0' * (1 << 20))
    for f in (serial,):
        if os.path.exists(f):
            os.unlink(f)
    cmd = iommu_truth.qemu_cmdline(args, serial, qsock, disk, work + '/trace.log', (ram, psock, None))
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    row = {}
    try:
        deadline = time.time() + args.timeout
        q = Qmp(qsock, deadline, proc)
        wait_marker(serial, b'PTFS-READY', proc, deadline)
        q.cmd('stop')
        q.cmd('dump-guest-memory', paging=False, protocol='file:' + elf, format='elf')
        pages = [pa for _, pa in
                 (tuple(int(x, 16) for x in m.groups()) for m in
                  re.finditer(r'^([0-9a-f]+): ([0-9a-f]+) ', q.hmp('info tlb'), re.M))]
        # distinct mapped page addresses spread over the guest's RAM
        pas = sorted(set(pages))
        step = max(1, len(pas) // (args.lookups + 1))
        pas = pas[::step][:args.lookups + 1]
        # interleaved, best of each: whatever else loads the machine hits both sides
        for _ in range(args.reps):
            for k, src in (('live', psock), ('elf', elf)):
                t = timed([args.tool, 'roots', src], 1)
                if k not in row or t[0] < row[k][0]:
                    row[k] = t
        row['pa_live'] = lookups(args.ptfs, psock, work + '/mnt', pas)
        row['pa_elf'] = lookups(args.ptfs, elf, work + '/mnt', pas)
    finally:
        proc.kill()
        proc.wait()
        for f in (ram, elf, disk):
            if os.path.exists(f):
                os.unlink(f)
        shutil.rmtree(sockdir, ignore_errors=True)
    (lw, lc, lo), (ew, ec, eo) = row['live'], row['elf']
    ln, lv, lf = candidates(lo)
    en, ev, ef = candidates(eo)
    print('guest: q35, intel-iommu, %s, TCG, stopped; best of %d runs' % (args.mem, args.reps))
    print()
    print('| figure | live | ELF dump (baseline) | ratio | goal | result |')
    print('|---|---|---|---|---|---|')
    r = lw / ew
    print('| roots, wall | %s | %s | %.2fx | <=2x | %s |' % (ms(lw), ms(ew), r, 'PASS' if r <= 2 else 'MISS'))
    print('| roots, CPU | %s | %s | %.2fx | - | info |' % (ms(lc), ms(ec), lc / max(ec, 1e-6)))
    print('| roots, candidates ([vtd] of them) | %d (%d) | %d (%d) | - | - | info |' % (ln, lv, en, ev))
    print('| roots, formats named | %s | %s | - | every line | %s |' % (
        ','.join(lf) or '-', ','.join(ef) or '-', 'PASS' if lf and ef else 'MISS'))
    (f1, nx), (ef1, enx) = row['pa_live'], row['pa_elf']
    m, em = statistics.median(nx), statistics.median(enx)
    print('| pa/ lookup, first | %s | %s | %.2fx | - | info |' % (ms(f1), ms(ef1), f1 / ef1))
    print('| pa/ lookup, next %d (median, max) | %s, %s | %s, %s | %.2fx | <=50 ms | %s |' % (
        len(nx), ms(m), ms(max(nx)), ms(em), ms(max(enx)), m / em, 'PASS' if m <= 0.05 else 'MISS'))


if __name__ == '__main__':
    main()
