#!/usr/bin/env python3
"""Boots a Linux guest under QEMU (TCG), stops it over QMP and records what
QEMU itself says about its page tables, beside dumps of its memory.

Output in --out DIR (everything the agreement test compares):
  vmcore.elf         dump-guest-memory, format elf, paging=false
  vmcore.kdump-flat  dump-guest-memory, format kdump-zlib (QEMU 7.2 writes
                     makedumpfile's flattened stream; qapi/dump.json)
  tlb-cpuN.txt       `info tlb` of vCPU N, as QEMU prints it
  regs-cpuN.txt      `info registers` of vCPU N (CR3/CR4, for the report)
  truth.txt          one line per VA asked: `cpuN VA PA|unmapped`, PA being
                     `gva2gpa VA` of vCPU N (target/i386/helper.c
                     x86_cpu_get_phys_page_attrs_debug: only present bits
                     are checked, a non-canonical VA is unmapped)
  live.txt           with --live-tool (aarch64): the guest's RAM is also a
                     shared file, with a gdbstub socket and a second QMP
                     socket for ptfs's live source (issue #33 item 1); every
                     kernel VA of truth.txt is walked through the live
                     source's cpuN.ttbr1 (N the vCPU gva2gpa asked, its
                     TTBR1_EL1 and TCR_EL1 read by ptfs from the gdbstub)
                     while the guest is stopped: `live: agree N, disagree M`
                     then the disagreements
  live-tasks.txt     with --live-tool and ptfs-procs in the guest: what
                     tasks_agree.py says of the live source's pidN contexts
                     (the guest stopped), pid1's x-route and x-cpu, then
                     `exit N`
  serial.log, qemu.log

The QMP client is the standard library only (socket + json; the protocol is
docs/interop/qmp-spec.txt in QEMU).  Exit status: 0 done, 1 failure (the
reason on stderr)."""
import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import time


class QmpError(Exception):
    pass


class Qmp:
    """One QMP session: a command waits for its own return, collecting the
    asynchronous events that arrive before it."""

    def __init__(self, path, deadline, proc):
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                self.sock.close()
                if proc.poll() is not None:
                    raise QmpError('qemu exited before its QMP socket opened')
                if time.time() > deadline:
                    raise QmpError('no QMP socket at ' + path)
                time.sleep(0.05)
        self.sock.settimeout(300)
        self.f = self.sock.makefile('rwb')
        self.events = []
        greeting = self._read()
        if 'QMP' not in greeting:
            raise QmpError('not a QMP greeting: %r' % greeting)
        self.cmd('qmp_capabilities')

    def _read(self):
        line = self.f.readline()
        if not line:
            raise QmpError('QMP connection closed')
        return json.loads(line)

    def cmd(self, name, **args):
        msg = {'execute': name}
        if args:
            msg['arguments'] = args
        self.f.write(json.dumps(msg).encode() + b'\n')
        self.f.flush()
        while True:
            reply = self._read()
            if 'event' in reply:
                self.events.append(reply)
                continue
            if 'error' in reply:
                raise QmpError('%s: %s' % (name, reply['error'].get('desc', reply['error'])))
            return reply.get('return')

    def hmp(self, line, cpu=None):
        args = {'command-line': line}
        if cpu is not None:
            args['cpu-index'] = cpu
        return self.cmd('human-monitor-command', **args)


TLB_LINE = re.compile(r'^([0-9a-f]{16}): ([0-9a-f]{16}) ([-X][-G][-P][-D][-A][-C][-T][-U][-W])$')


def parse_tlb(text):
    """`info tlb` lines (target/i386/monitor.c print_pte): VA: PA flags."""
    pages = []
    for line in text.splitlines():
        m = TLB_LINE.match(line.strip())
        if not m:
            raise QmpError('unexpected info tlb line: %r' % line)
        pages.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    return pages


def parse_gva2gpa(text, va):
    text = text.strip()
    if text == 'Unmapped':
        return None
    m = re.match(r'^gpa: 0x([0-9a-f]+)$', text)
    if not m:
        raise QmpError('unexpected gva2gpa answer for 0x%016x: %r' % (va, text))
    return int(m.group(1), 16)


def pick_vas(pages, la57, rng, budget):
    """VAs to ask about: pages info tlb lists (inside, at both neighbours, and
    2 MiB / 1 GiB further where a large page may end), random user and
    kernel VAs, and non-canonical ones.  The answer is QEMU's in every case,
    so the picks only decide coverage."""
    top = 56 if la57 else 47
    m64 = (1 << 64) - 1
    vas = set()
    user = [p for p in pages if p[0] < 1 << 63]
    big = [p for p in pages if p[2][2] == 'P']
    kern = [p for p in pages if p[0] >= 1 << 63]
    for va, _, _ in rng.sample(user, min(len(user), budget // 4)):
        vas.add(va)
        vas.add(va + rng.randrange(0x1000))
    for va, _, flags in rng.sample(kern, min(len(kern), budget // 4)):
        vas.add(va + rng.randrange(0x1000))
        if flags[2] == 'P':   # PS: a 2 MiB or 1 GiB leaf
            vas.add(va + rng.randrange(0x1000, 0x200000))
            vas.add((va + rng.randrange(0x200000, 0x40000000)) & m64)
    # Every large leaf of the user half (few), and its neighbours below.
    for va, _, flags in big:
        if va < 1 << 63:
            vas.add(va + rng.randrange(0x200000))
    for va, _, flags in rng.sample(pages, min(len(pages), budget // 8)):
        vas.add((va - 0x1000) & m64)
        vas.add((va + 0x1000) & m64)
        if flags[2] == 'P':
            vas.add((va + 0x200000) & m64)
            vas.add((va + 0x40000000) & m64)
    # Random VAs in the lower and upper canonical halves, and inside the
    # lowest-addressed kernel region (the direct map, mostly large pages).
    for _ in range(budget // 16):
        vas.add(rng.randrange(1 << top))
        vas.add((m64 << top | rng.randrange(1 << top)) & m64)
    if kern:
        base = kern[0][0]
        for _ in range(budget // 16):
            vas.add(base + rng.randrange(256 << 20))
    # Non-canonical under 4-level, 5-level or both (SDM vol. 3A 4.5:
    # bits 63:48, or 63:57 with LA57, must equal bit 47 or 56).
    vas.update([1 << 47, (1 << 47) + 0x1234, 1 << 56, 1 << 63, 0x00ff000000000000,
                0xffff7fffffffffff, 0xfeffffffffffffff, 0x0100000000000000,
                0x123456789abcdef0, 0x8000000000001000])
    return sorted(v & m64 for v in vas)


def wait_marker(path, marker, proc, deadline):
    while True:
        try:
            with open(path, 'rb') as f:
                if marker in f.read():
                    return
        except FileNotFoundError:
            pass
        if proc.poll() is not None:
            raise QmpError('qemu exited (status %d) before %r on the console' %
                           (proc.returncode, marker.decode()))
        if time.time() > deadline:
            raise QmpError('no %r on the console within the time limit' % marker.decode())
        time.sleep(0.2)


def qemu_cmdline(args, serial, sock, live=None):
    if args.arch == 'aarch64':
        # hw/arm/virt.c: fw_cfg (for vmcoreinfo) is on the virt board too.
        machine = ['-M', 'virt', '-cpu', args.cpu or 'cortex-a57']
        console = 'console=ttyAMA0'
    else:
        machine = ['-M', 'pc', '-cpu', args.cpu or 'max,la57=off', '-vga', 'none']
        console = 'console=ttyS0'
    return ([args.qemu or 'qemu-system-' + args.arch, '-accel', 'tcg'] + machine +
            ['-m', args.mem, '-smp', str(args.smp), '-device', 'vmcoreinfo',
             '-kernel', args.kernel, '-initrd', args.initrd,
             '-append', console + ' panic=-1 hugepages=4 quiet ' + args.append,
             '-display', 'none', '-monitor', 'none', '-no-reboot',
             '-serial', 'file:' + serial, '-qmp', 'unix:%s,server=on,wait=off' % sock] +
            ([] if not live else
             ['-object', 'memory-backend-file,id=ram,mem-path=%s,share=on,size=%s' % (live[0], args.mem),
              '-machine', 'memory-backend=ram', '-qmp', 'unix:%s,server=on,wait=off' % live[1],
              '-gdb', 'unix:%s,server=on,wait=off' % live[2]]))


def live_walks(args, out, live, el1):
    """truth.txt's kernel VAs through the live source (ptfs-tool walk on
    its QMP socket), against gva2gpa's answers."""
    rows = [l.split() for l in open(out('truth.txt'))]
    rows = [(int(va, 16), None if pa == 'unmapped' else int(pa, 16)) for _, va, pa in rows
            if int(va, 16) >> 48 == 0xffff]
    ctx = 'cpu%d.ttbr1' % el1
    got = []
    for i in range(0, len(rows), 256):
        chunk = rows[i:i + 256]
        r = subprocess.run([args.live_tool, 'walk', '--json', live[1], ctx] + ['0x%x' % v for v, _ in chunk],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        res = [json.loads(l)['result'] for l in r.stdout.splitlines() if l.strip()]
        if r.returncode != 0 or len(res) != len(chunk):
            raise QmpError('ptfs-tool walk %s %s: exit %d: %s' % (live[1], ctx, r.returncode, r.stderr.strip()))
        got += res
    bad = []
    for (va, pa), res in zip(rows, got):
        mine = int(res['pa'], 16) if res.get('status') == 'mapped' and res.get('space') == 'sysmem' else None
        if mine != pa:
            bad.append('%s 0x%016x: gva2gpa %s, the live walk %s' % (
                ctx, va, 'unmapped' if pa is None else '0x%x' % pa, res.get('status') if mine is None
                else '0x%x' % mine))
    with open(out('live.txt'), 'w') as f:
        f.write('live: agree %d, disagree %d\n' % (len(rows) - len(bad), len(bad)))
        f.write(''.join(b + '\n' for b in bad[:30]))
    print('qemu_truth: live (%s from the gdbstub): agree %d, disagree %d' % (ctx, len(rows) - len(bad),
                                                                           len(bad)))


def live_tasks(args, out, live):
    """The guest's processes through the live source (issue #40 item 7):
    tasks_agree.py on the QMP socket while the guest is stopped, its output
    and exit status into live-tasks.txt."""
    r = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tasks_agree.py'),
                        args.live_tool, live[1], out('serial.log')],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    route = subprocess.run([args.live_tool, 'info', live[1], 'pid1'], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True).stdout
    with open(out('live-tasks.txt'), 'w') as f:
        f.write(r.stdout)
        f.write(''.join(l + '\n' for l in route.splitlines() if l.startswith(('x-route:', 'x-cpu:'))))
        f.write('exit %d\n' % r.returncode)
    print('qemu_truth: live processes: %s' % (r.stdout.splitlines() or ['?'])[0])


def record_x86(qmp, args, out, rng):
    """Per vCPU: info registers, info tlb, and gva2gpa of the picked VAs."""
    truth = []
    for cpu in range(args.smp):
        regs = qmp.hmp('info registers', cpu)
        with open(out('regs-cpu%d.txt' % cpu), 'w') as f:
            f.write(regs)
        la57 = bool(int(re.search(r'CR4=([0-9a-f]+)', regs).group(1), 16) & 1 << 12)
        tlb = qmp.hmp('info tlb', cpu)
        with open(out('tlb-cpu%d.txt' % cpu), 'w') as f:
            f.write(tlb)
        for va in pick_vas(parse_tlb(tlb), la57, rng, args.budget):
            pa = parse_gva2gpa(qmp.hmp('gva2gpa 0x%x' % va, cpu), va)
            truth.append('cpu%d 0x%016x %s' % (cpu, va, 'unmapped' if pa is None else '0x%x' % pa))
    return truth


def record_arm64(qmp, args, out, rng):
    """QEMU 7.2 has no `info tlb` for Arm, and its dumps no TTBR: the VAs
    are picked from the kernel's own tables in the ELF dump (dumpwalk.py;
    the root from VMCOREINFO) and asked of a vCPU in EL1, where gva2gpa
    translates TTBR1 addresses with the kernel's rights (target/arm/ptw.c
    uses the current translation regime and EL)."""
    import dumpwalk
    el1 = None
    for cpu in range(args.smp):
        regs = qmp.hmp('info registers', cpu)
        with open(out('regs-cpu%d.txt' % cpu), 'w') as f:
            f.write(regs)
        if el1 is None and re.search(r'PSTATE=[0-9a-f]+ \S+ EL1', regs):
            el1 = cpu
    if el1 is None:
        raise QmpError('no vCPU stopped in EL1')
    d = dumpwalk.Dump(out('vmcore.elf'))
    pages = dumpwalk.a64_pages(d, dumpwalk.a64_root(d))
    # The same picks as on x86, from the dump's page list in info tlb's
    # shape (VA, PA, flags with P for a block).
    shaped = [(va, e & dumpwalk.A64_OA, '--P' if size > 4096 else '---') for va, size, e in pages]
    vas = [v for v in pick_vas(shaped, False, rng, 2 * args.budget) if v >> 48 == 0xffff]
    vas += [0xfffe000000000000, 0x0001000000000000, 1 << 63, 0xffff000000000000]
    truth = []
    for va in sorted(set(vas)):
        pa = parse_gva2gpa(qmp.hmp('gva2gpa 0x%x' % va, el1), va)
        truth.append('kernel 0x%016x %s' % (va, 'unmapped' if pa is None else '0x%x' % pa))
    return truth, el1


def dump_both(qmp, out):
    qmp.cmd('dump-guest-memory', paging=False, protocol='file:' + out('vmcore.elf'), format='elf')
    qmp.cmd('dump-guest-memory', paging=False, protocol='file:' + out('vmcore.kdump-flat'),
            format='kdump-zlib')


def run(args):
    os.makedirs(args.out, exist_ok=True)
    out = lambda name: os.path.join(args.out, name)
    for name in os.listdir(args.out):
        if name.startswith(('vmcore', 'tlb-', 'regs-', 'truth', 'serial', 'qmp', 'live')):
            os.unlink(out(name))
    # AF_UNIX paths are short (108 bytes): the socket goes in a short dir.
    sockdir = tempfile_dir()
    sock = os.path.join(sockdir, 'qmp.sock')
    t0 = time.time()
    deadline = t0 + args.timeout
    log = open(out('qemu.log'), 'wb')
    live = None
    if args.live_tool:   # the RAM file sits in the work directory: as large as -m, removed after
        live = (out('ram.img'), os.path.join(sockdir, 'live.sock'), os.path.join(sockdir, 'gdb.sock'))
    proc = subprocess.Popen(qemu_cmdline(args, out('serial.log'), sock, live),
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        qmp = Qmp(sock, deadline, proc)
        wait_marker(out('serial.log'), b'PTFS-READY', proc, deadline)
        t_ready = time.time()
        time.sleep(0.5)   # x86: each ptfs-mapper spins on its vCPU: CR3 is its table
        qmp.cmd('stop')
        rng = random.Random(args.seed)
        t_dump = time.time()
        if args.arch == 'aarch64':   # the picks need the dump; the guest stays stopped
            dump_both(qmp, out)
            truth, el1 = record_arm64(qmp, args, out, rng)
            if live:
                with open(out('truth.txt'), 'w') as f:
                    f.write('\n'.join(truth) + '\n')
                live_walks(args, out, live, el1)
                if 'PTFS-PROC ' in open(out('serial.log'), errors='replace').read():
                    live_tasks(args, out, live)
        else:
            truth = record_x86(qmp, args, out, rng)
            t_dump = time.time()
            dump_both(qmp, out)
        with open(out('truth.txt'), 'w') as f:
            f.write('\n'.join(truth) + '\n')
        t_end = time.time()
        qmp.cmd('quit')
        proc.wait(30)
        print('qemu_truth: %s -cpu %s: ready after %.1f s, %d VAs asked, dumps and answers in %.1f s' %
              (args.arch, args.cpu or 'default', t_ready - t0, len(truth), t_end - t_dump))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
        for p in [sock] + list(live or ())[1:]:
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
        os.rmdir(sockdir)
        if live and os.path.exists(live[0]):
            os.unlink(live[0])


def tempfile_dir():
    import tempfile
    return tempfile.mkdtemp(prefix='ptfs-qmp.')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--arch', default='x86_64', choices=['x86_64', 'aarch64'])
    ap.add_argument('--qemu', help='default qemu-system-ARCH')
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--initrd', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--cpu', help='default max,la57=off (x86_64), cortex-a57 (aarch64)')
    ap.add_argument('--mem', default='128M')
    ap.add_argument('--smp', type=int, default=2)
    ap.add_argument('--append', default='')
    ap.add_argument('--timeout', type=float, default=120)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--live-tool', help='ptfs-tool: also walk the live guest (aarch64; live.txt)')
    ap.add_argument('--budget', type=int, default=320,
                    help='about how many VAs to ask per vCPU')
    args = ap.parse_args()
    try:
        run(args)
    except (QmpError, OSError, subprocess.TimeoutExpired) as e:
        print('qemu_truth: %s: %s' % (args.cpu, e), file=sys.stderr)
        tail = os.path.join(args.out, 'serial.log')
        if os.path.exists(tail):
            with open(tail, errors='replace') as f:
                sys.stderr.write('--- serial.log (tail)\n' + ''.join(f.readlines()[-15:]))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
