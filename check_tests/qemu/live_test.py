#!/usr/bin/env python3
"""live_test.py -- the qemu-live test (issue #33 item 4; README.md here, "Live").

Boots the Debian x86-64 guest with its RAM in a shared file
(-object memory-backend-file,share=on -machine memory-backend=ram) and two
QMP sockets: one for this harness, one for ptfs, one for ptfs-tool snapshot
(QEMU serves one client per monitor).  Then:
  1. with the guest stopped, ptfs mounts the QMP socket; for each vCPU, the
     VAs of QEMU's `info tlb` (and their neighbours) walk in the live mount's
     cpuN/walk/ to the PA QEMU's `gva2gpa` gives, or fault where it says
     Unmapped;
  2. the guest continues; the harness writes the mapper's mailbox word in the
     RAM file; the mapper maps a new page at a known VA; within the refresh
     time the mount's va/ shows it, and its walk/ gives the physical page
     QEMU's gva2gpa gives once the guest is stopped again, while a
     `ptfs-tool snapshot` taken (guest stopped, left stopped) before the
     change maps the mailbox as QEMU did and not the new page; a snapshot
     of the running guest continues it;
  3. unmounting leaves the guest running (query-status); a guest that exits
     under a new mount makes reads fail with EIO and a line in ptfs's log.
Python standard library only.  Exit 0 pass, 1 fail.
"""
import argparse
import errno
import json
import os
import re
import socket
import subprocess
import sys
import time

MAILBOX_VA = 0x2a0000000000
NEW_VA = 0x2b0000000000
FAILS = []


def ok(what):
    print('ok: ' + what, flush=True)


def bad(what):
    print('FAIL: ' + what, flush=True)
    FAILS.append(what)


class Qmp:
    def __init__(self, path, deadline):
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        self.f = self.s.makefile('rw')
        json.loads(self.f.readline())
        self.cmd('qmp_capabilities')

    def cmd(self, name, **args):
        m = {'execute': name}
        if args:
            m['arguments'] = args
        self.f.write(json.dumps(m) + '\n')
        self.f.flush()
        while True:
            r = json.loads(self.f.readline())
            if 'event' in r:
                continue
            if 'error' in r:
                raise RuntimeError('%s: %s' % (name, r['error']))
            return r['return']

    def hmp(self, line, cpu=None):
        args = {'command-line': line}
        if cpu is not None:
            args['cpu-index'] = cpu
        return self.cmd('human-monitor-command', **args)


def gva2gpa(q, cpu, va):
    t = q.hmp('gva2gpa 0x%x' % va, cpu)
    m = re.search(r'gpa: (0x[0-9a-f]+)', t)
    return int(m.group(1), 16) if m else None


def tlb_pages(text):
    pages = []
    for line in text.splitlines():
        m = re.match(r'([0-9a-f]+): ([0-9a-f]+) ', line)
        if m:
            pages.append((int(m.group(1), 16), int(m.group(2), 16)))
    return pages


def snap_pa(args, snap, cpu, va):
    """The PA `ptfs-tool walk` of a snapshot gives, None for a fault, a string for an error."""
    r = subprocess.run([args.ptfs_tool, 'walk', snap, 'cpu%d' % cpu, '0x%x' % va], capture_output=True, text=True)
    m = re.search(r'^result: mapped pa=sysmem:(0x[0-9a-f]+)', r.stdout, re.M)
    if m:
        return int(m.group(1), 16)
    if r.returncode == 0 and re.search(r'^result: fault=', r.stdout, re.M):
        return None
    return 'ERR %d %s' % (r.returncode, (r.stdout + r.stderr)[:200])


def snapshot(args, ssock, out):
    if os.path.exists(out):
        os.unlink(out)
    t0 = time.time()
    r = subprocess.run([args.ptfs_tool, 'snapshot', ssock, out], capture_output=True, text=True)
    (ok if r.returncode == 0 else bad)('ptfs-tool snapshot (%.2f s, load and check included): %s' %
                                       (time.time() - t0, (r.stdout + r.stderr).strip()))
    return r.returncode == 0


def walk_pa(mnt, cpu, va):
    """The PA the live mount's walk gives, None for a fault, 'ERR' for an error."""
    try:
        with open('%s/cpu%d/walk/0x%x' % (mnt, cpu, va)) as f:
            text = f.read()
    except OSError as e:
        return 'ERR %s' % e
    m = re.search(r'^result: mapped pa=sysmem:(0x[0-9a-f]+)', text, re.M)
    if m:
        return int(m.group(1), 16)
    if re.search(r'^result: fault=', text, re.M):
        return None
    return 'UNPARSED ' + text[:200]


def wait_marker(path, marker, deadline):
    while time.time() < deadline:
        try:
            with open(path, 'rb') as f:
                if marker in f.read():
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def gpa_to_file(gpa):
    # -M pc -m 128M: RAM below 4 GiB lies at the same offset in the backend (hw/i386/pc.c)
    return gpa


def mount(args, sock, mnt, log, extra=()):
    os.makedirs(mnt, exist_ok=True)
    cmd = [args.ptfs, sock, mnt, '-f', '-o', 'refresh=1'] + list(extra)
    p = subprocess.Popen(cmd, stdout=log, stderr=log)
    deadline = time.time() + 20
    while time.time() < deadline:
        if os.path.ismount(mnt):
            return p
        if p.poll() is not None:
            return None
        time.sleep(0.1)
    return None


def umount(p, mnt):
    subprocess.call(['fusermount3', '-u', mnt])
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()


def guest_procs(serial):
    """The pids ptfs-procs (procs.c) printed in the guest before PTFS-READY."""
    pids = set()
    with open(serial, 'rb') as f:
        for raw in f:
            line = raw.decode('utf-8', 'replace').strip()
            if line.startswith('PTFS-PROC '):
                pids.add(int(line.split()[1]))
    return pids


def mount_tasks(mnt):
    """The pids of the live mount's `tasks` (PID PPID COMM ...; `#` lines are notes)."""
    with open(mnt + '/tasks') as f:
        rows = [l.split() for l in f.read().splitlines()[1:] if l and not l.startswith('#')]
    return set(int(r[0]) for r in rows)


def check_agreement(q, mnt, ncpus):
    for cpu in range(ncpus):
        pages = tlb_pages(q.hmp('info tlb', cpu))
        vas = []
        for va, _ in pages[:: max(1, len(pages) // 150)]:
            vas += [va, va + 0x123, va + 0x1000]
        vas += [MAILBOX_VA + (cpu << 32), NEW_VA + (cpu << 32), 0x1000, 0xffff888000000000]
        agree = miss = 0
        for va in vas:
            want = gva2gpa(q, cpu, va)
            got = walk_pa(mnt, cpu, va)
            if got == want:
                agree += 1
            else:
                miss += 1
                if miss <= 5:
                    print('  cpu%d 0x%x: QEMU %s, ptfs %s' % (cpu, va, want if want is None else hex(want), got))
        (ok if not miss and agree > 100 else bad)(
            'cpu%d: %d VAs walk in the live mount to the PA gva2gpa gives (%d disagree)' % (cpu, agree, miss))


def run(args):
    work = args.work
    os.makedirs(work, exist_ok=True)
    ram = '/dev/shm/ptfs-live-%d.ram' % os.getpid()
    qsock, psock, ssock = work + '/qmp.sock', work + '/ptfs.sock', work + '/snap.sock'
    snap = work + '/before.tar.gz'
    for f in (qsock, psock, ssock, work + '/serial.log'):
        if os.path.exists(f):
            os.unlink(f)
    cmd = ['qemu-system-x86_64', '-accel', 'tcg', '-M', 'pc', '-cpu', 'max,la57=off', '-vga', 'none',
           '-m', args.mem, '-smp', '2',
           '-object', 'memory-backend-file,id=ram,mem-path=%s,share=on,size=%s' % (ram, args.mem),
           '-machine', 'memory-backend=ram',
           '-kernel', args.kernel, '-initrd', args.initrd,
           '-append', 'console=ttyS0 panic=-1 hugepages=4 quiet',
           '-display', 'none', '-monitor', 'none', '-no-reboot', '-serial', 'file:' + work + '/serial.log',
           '-qmp', 'unix:%s,server=on,wait=off' % qsock, '-qmp', 'unix:%s,server=on,wait=off' % psock,
           '-qmp', 'unix:%s,server=on,wait=off' % ssock]
    proc = subprocess.Popen(cmd)
    mnt = work + '/mnt'
    log = open(work + '/ptfs.log', 'w')
    fs = None
    try:
        deadline = time.time() + args.timeout
        q = Qmp(qsock, deadline)
        if not wait_marker(work + '/serial.log', b'PTFS-READY', deadline):
            bad('the guest boots to PTFS-READY')
            return
        q.cmd('stop')
        ok('the guest boots with a shared RAM file and stops')
        t0 = time.time()
        fs = mount(args, psock, mnt, log)
        if not fs:
            bad('ptfs mounts the live guest')
            return
        ok('ptfs mounts the live guest (%.2f s)' % (time.time() - t0))
        if q.cmd('query-status')['running']:
            bad('the mount leaves a stopped guest stopped')
        check_agreement(q, mnt, 2)
        # the guest's processes (procs.c, itself gone since) are the live mount's
        want, tasks0 = guest_procs(work + '/serial.log'), mount_tasks(mnt)
        (ok if want and want == tasks0 else bad)('the live mount\'s tasks are the guest\'s %d processes (only in '
                                                'the guest: %s; only in tasks: %s)' %
                                                (len(want), sorted(want - tasks0), sorted(tasks0 - want)))
        # mapper 1: the process that maps cpu1's mailbox (it exits below)
        box1 = gva2gpa(q, 1, MAILBOX_VA + (1 << 32))
        m1 = None
        for pid in sorted(tasks0):
            try:
                with open('%s/pid%d/walk/0x%x' % (mnt, pid, MAILBOX_VA + (1 << 32))) as f:
                    m = re.search(r'^result: mapped pa=sysmem:(0x[0-9a-f]+)', f.read(), re.M)
                if m and int(m.group(1), 16) == box1:
                    m1 = pid
            except OSError:
                pass
        (ok if m1 else bad)('pid%s maps cpu1\'s mailbox where QEMU does (0x%x)' % (m1, box1 or 0))

        # 2. a page mapped while the mount watches
        box = gva2gpa(q, 0, MAILBOX_VA)
        if box is None:
            bad('the mapper\'s mailbox is mapped on cpu0')
            return
        before = os.listdir(mnt + '/cpu0/va')
        name = [n for n in before if n == '0x%016x' % NEW_VA]
        (bad if name else ok)('before the change, cpu0/va/ has no page at 0x%x' % NEW_VA)
        if walk_pa(mnt, 0, NEW_VA) is not None:
            bad('before the change, cpu0/walk/0x%x faults' % NEW_VA)
        snapped = snapshot(args, ssock, snap)
        (bad if q.cmd('query-status')['running'] else ok)('the snapshot leaves the stopped guest stopped')
        got = snap_pa(args, snap, 0, MAILBOX_VA)
        (ok if snapped and got == box else bad)('the snapshot maps the mailbox 0x%x where QEMU does (QEMU %s, '
                                                'snapshot %s)' % (MAILBOX_VA, hex(box), hex(got) if isinstance(got, int) else got))
        q.cmd('cont')
        # unbuffered: a buffered file would serve the mapper's reply from its own cache
        fd = os.open(ram, os.O_RDWR)
        try:
            os.pwrite(fd, (1).to_bytes(8, 'little'), gpa_to_file(box) + 8)
            done = False
            for _ in range(200):
                if int.from_bytes(os.pread(fd, 8, gpa_to_file(box) + 16), 'little') == 1:
                    done = True
                    break
                time.sleep(0.05)
        finally:
            os.close(fd)
        if not done:
            bad('the guest maps its new page when the mailbox is written')
            return
        t1 = time.time()
        seen = None
        while time.time() - t1 < 1.0 + 0.5 and seen is None:
            pa = walk_pa(mnt, 0, NEW_VA)
            if isinstance(pa, int):
                seen = time.time() - t1
            else:
                time.sleep(0.1)
        (ok if seen is not None else bad)('within refresh=1 s of the change, cpu0/walk/0x%x gives a page '
                                          '(after %s s)' % (NEW_VA, '%.2f' % seen if seen is not None else '-'))
        listed = [n for n in os.listdir(mnt + '/cpu0/va') if n == '0x%016x' % NEW_VA]
        (ok if listed else bad)('cpu0/va/ lists the new page: %s' % (listed or '-'))
        q.cmd('stop')
        want = gva2gpa(q, 0, NEW_VA)
        got = walk_pa(mnt, 0, NEW_VA)
        (ok if want is not None and got == want else bad)(
            'cpu0/walk/0x%x gives the new page QEMU translates it to (QEMU %s, ptfs %s)' %
            (NEW_VA, hex(want) if want else want, hex(got) if isinstance(got, int) else got))
        got = snap_pa(args, snap, 0, NEW_VA)
        (ok if snapped and got is None else bad)('the snapshot taken before the change does not map 0x%x '
                                                 '(%s), the live mount does' % (NEW_VA, got))
        q.cmd('cont')
        snapped = snapshot(args, ssock, work + '/running.tar.gz')
        (ok if snapped and q.cmd('query-status')['running'] else bad)(
            'a snapshot of the running guest continues it')

        # 2b. a process that exits leaves the listing at the next refresh, and its pidN reads ENOENT
        if m1 and box1:
            held = open('%s/pid%d/info' % (mnt, m1), 'rb', buffering=0)   # opened before it exits
            fd = os.open(ram, os.O_RDWR)
            try:
                os.pwrite(fd, (2).to_bytes(8, 'little'), gpa_to_file(box1) + 8)
            finally:
                os.close(fd)
            time.sleep(1.5)   # the mapper exits; -o refresh=1 passes
            gone = None
            for _ in range(30):
                if m1 not in mount_tasks(mnt) and 'pid%d' % m1 not in os.listdir(mnt):
                    gone = True
                    break
                time.sleep(0.2)
            (ok if gone else bad)('after mapper 1 (pid %d) exits and a refresh, it is neither in tasks nor '
                                  'in the listing' % m1)
            try:
                with open('%s/pid%d/info' % (mnt, m1)) as f:
                    f.read()
                bad('pid%d/info reads after its process exited' % m1)
            except OSError as e:
                (ok if e.errno == errno.ENOENT else bad)('pid%d/info after its process exited: %s' % (m1, e))
            try:
                held.read(4096)
                bad('pid%d/info opened before its process exited still reads' % m1)
            except OSError as e:
                (ok if e.errno == errno.ESTALE else bad)('pid%d/info opened before its process exited: %s' %
                                                         (m1, e))
            held.close()
            rest = mount_tasks(mnt)
            (ok if rest == tasks0 - {m1} else bad)('the other processes stay (%d)' % len(rest))

        # 3. unmount: the guest runs on
        umount(fs, mnt)
        fs = None
        (ok if q.cmd('query-status')['running'] and proc.poll() is None else bad)(
            'unmounting leaves the guest running')
        fs = mount(args, psock, mnt, log)
        if not fs:
            bad('ptfs mounts the live guest again')
            return
        q.cmd('quit')
        proc.wait(timeout=30)
        time.sleep(0.3)
        try:
            with open(mnt + '/cpu0/walk/0x%x' % NEW_VA) as f:
                f.read()
            bad('a read after the guest exited fails with EIO (it succeeded)')
        except OSError as e:
            (ok if e.errno == errno.EIO else bad)('a read after the guest exited fails: %s' % e)
        (ok if fs.poll() is None else bad)('ptfs is still running after the guest exited')
        umount(fs, mnt)
        fs = None
        log.flush()
        with open(work + '/ptfs.log') as f:
            text = f.read()
        (ok if 'QEMU exited' in text else bad)('ptfs logs that the guest is gone')
    finally:
        if fs:
            umount(fs, mnt)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if os.path.exists(ram):
            os.unlink(ram)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ptfs', required=True)
    ap.add_argument('--ptfs-tool', required=True)
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--initrd', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--mem', default='128M')
    ap.add_argument('--timeout', type=float, default=180)
    args = ap.parse_args()
    try:
        run(args)
    except Exception as e:  # a harness fault is a failure with its reason
        bad('harness: %r' % e)
    print('%d failed' % len(FAILS))
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())
