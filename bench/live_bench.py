#!/usr/bin/env python3
"""live_bench.py -- a live QEMU guest's figures (issue #33 item 5; bench/README.md, "Live guests").

For each guest RAM size given: boots the qemu-live test's guest (its kernel
and initramfs) with a shared RAM file, stops it, then measures
  - the mount of its QMP socket (ptfs -f until the mount point is there),
  - ptfs's VmRSS after the mount and after `cat cpu0/maps`,
  - ptfs-tool walk of N VAs of cpu0 (info tlb's pages) live, and of the same
    VAs in an ELF dump of the same stopped guest (dump-guest-memory),
  - `cat cpu0/maps` under -o pause with the guest running, and how long
    QEMU says the guest was stopped (its STOP and RESUME event times).
usage: live_bench.py --ptfs P --tool T --kernel K --initrd I --work DIR MEM...
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'check_tests', 'qemu'))
import live_test  # noqa: E402  (the harness's QMP client and helpers)


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return -1


def timed(cmd):
    t = time.time()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.time() - t


def events(q):
    """STOP/RESUME event times QEMU queued on the harness connection (after a query)."""
    out = []
    q.s.setblocking(False)
    try:
        while True:
            line = q.f.readline()
            if not line:
                break
            m = json.loads(line)
            if m.get('event') in ('STOP', 'RESUME'):
                ts = m['timestamp']
                out.append((m['event'], ts['seconds'] + ts['microseconds'] / 1e6))
    except (BlockingIOError, OSError, ValueError, TypeError):
        pass
    q.s.setblocking(True)
    return out


def one(args, mem):
    work = os.path.join(args.work, mem)
    os.makedirs(work, exist_ok=True)
    ram = '/dev/shm/ptfs-bench-%d.ram' % os.getpid()
    qsock, psock = work + '/qmp.sock', work + '/ptfs.sock'
    for f in (qsock, psock, work + '/serial.log'):
        if os.path.exists(f):
            os.unlink(f)
    cmd = ['qemu-system-x86_64', '-accel', 'tcg', '-M', 'pc', '-cpu', 'max,la57=off', '-vga', 'none',
           '-m', mem, '-smp', '2',
           '-object', 'memory-backend-file,id=ram,mem-path=%s,share=on,size=%s' % (ram, mem),
           '-machine', 'memory-backend=ram', '-kernel', args.kernel, '-initrd', args.initrd,
           '-append', 'console=ttyS0 panic=-1 hugepages=4 quiet', '-display', 'none', '-monitor', 'none',
           '-no-reboot', '-serial', 'file:' + work + '/serial.log',
           '-qmp', 'unix:%s,server=on,wait=off' % qsock, '-qmp', 'unix:%s,server=on,wait=off' % psock]
    proc = subprocess.Popen(cmd)
    mnt = work + '/mnt'
    os.makedirs(mnt, exist_ok=True)
    fs = None
    row = {'mem': mem}
    try:
        q = live_test.Qmp(qsock, time.time() + 240)
        if not live_test.wait_marker(work + '/serial.log', b'PTFS-READY', time.time() + 240):
            raise RuntimeError('no PTFS-READY')
        q.cmd('stop')
        t = time.time()
        fs = subprocess.Popen([args.ptfs, psock, mnt, '-f'], stderr=subprocess.DEVNULL)
        while not os.path.ismount(mnt):
            time.sleep(0.005)
        row['mount_s'] = time.time() - t
        row['rss_mount_kib'] = rss_kib(fs.pid)
        row['maps_s'] = timed(['cat', mnt + '/cpu0/maps'])
        row['rss_maps_kib'] = rss_kib(fs.pid)
        live_test.umount(fs, mnt)
        fs = None
        pages = live_test.tlb_pages(q.hmp('info tlb', 0))
        vas = [va + 0x10 * (i % 256) for i, (va, _) in enumerate(pages * (1 + args.walks // max(1, len(pages))))]
        vas = ['0x%x' % v for v in vas[:args.walks]]
        elf = work + '/vmcore.elf'
        q.cmd('dump-guest-memory', paging=False, protocol='file:' + elf)
        row['walk_live_s'] = timed([args.tool, 'walk', psock, 'cpu0'] + vas)
        row['walk1_live_s'] = timed([args.tool, 'walk', psock, 'cpu0', vas[0]])
        row['walk1_elf_s'] = timed([args.tool, 'walk', elf, 'cpu0', vas[0]])
        row['walk_elf_s'] = timed([args.tool, 'walk', elf, 'cpu0'] + vas)
        os.unlink(elf)
        q.cmd('cont')
        fs = subprocess.Popen([args.ptfs, psock, mnt, '-f', '-o', 'pause'], stderr=subprocess.DEVNULL)
        while not os.path.ismount(mnt):
            time.sleep(0.005)
        events(q)
        row['maps_pause_s'] = timed(['cat', mnt + '/cpu0/maps'])
        time.sleep(0.2)
        ev = events(q)
        stops = [t for e, t in ev if e == 'STOP']
        resumes = [t for e, t in ev if e == 'RESUME']
        row['paused_s'] = resumes[-1] - stops[-1] if stops and resumes else None
        row['running_after'] = q.cmd('query-status')['running']
    finally:
        if fs:
            live_test.umount(fs, mnt)
        proc.kill()
        proc.wait()
        if os.path.exists(ram):
            os.unlink(ram)
    return row


def main():
    ap = argparse.ArgumentParser()
    for a in ('ptfs', 'tool', 'kernel', 'initrd', 'work'):
        ap.add_argument('--' + a, required=True)
    ap.add_argument('--walks', type=int, default=10000)
    ap.add_argument('mem', nargs='+')
    args = ap.parse_args()
    print('| guest RAM | mount | RSS at mount | cat maps | RSS after maps | walk of %d VAs live | same on an ELF '
          'dump | ratio | the same, less a 1-VA walk (the load) | maps under -o pause | guest stopped for |' % args.walks)
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for mem in args.mem:
        r = one(args, mem)
        net = (r['walk_live_s'] - r['walk1_live_s']) / max(1e-6, r['walk_elf_s'] - r['walk1_elf_s'])
        print('| %s | %.3f s | %.1f MiB | %.3f s | %.1f MiB | %.3f s | %.3f s | %.2fx | %.2fx | %.3f s | %s |' % (
            r['mem'], r['mount_s'], r['rss_mount_kib'] / 1024, r['maps_s'], r['rss_maps_kib'] / 1024,
            r['walk_live_s'], r['walk_elf_s'], r['walk_live_s'] / r['walk_elf_s'], net, r['maps_pause_s'],
            '%.3f s' % r['paused_s'] if r['paused_s'] is not None else 'n/a'), flush=True)


if __name__ == '__main__':
    main()
