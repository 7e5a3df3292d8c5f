#!/usr/bin/env python3
"""fake_qmp.py SOCKET SCENARIO [RAMFILE] -- a QMP server of canned answers for
the live source's tests (test_live.sh; issue #33): a guest whose RAM file is
RAMFILE (1 MiB, written by the test), one x86-64 vCPU with CR3 0x1000, and
hostile variants.  Each command received is appended to SOCKET.log.  Serves
until killed.  Python standard library only.

Scenarios: good, running (query-status says running), silent (never greets),
nogreet (a line that is no greeting), garbage (a greeting, then garbage),
endless (a greeting, then a message that never ends), slow (the greeting a
byte a second), mtree_past (RAM past the file), hugereg (CR3 of 17 digits),
noshare (share=off), nofile (a backend without mem-path), nobackend (no
memory-backend), arm (an aarch64 target), nopaging (CR0.PG clear); IOMMUs
(test_live_iommu.sh): vtd (q35's intel_iommu window, GSTS.TES set,
RTADDR_REG 0x10000), vtdoff (TES clear), amdvi (amdvi-mmio, IommuEn set,
Device Table Base 0x30000, one 4 KiB page), vtdbadxp (xp answers nonsense),
twovtd (two intel_iommu windows), vtdpci (vtd whose query-pci names its
functions); linux (test_live_tasks.sh: RAMFILE is
mklinuxram's synthetic Linux guest, all of it RAM from 0, CR3 its kernel's); aarch64 (test_live_arm64.sh): armgdb (a
running guest whose gdbstub serves SOCKET.gdb: CPU#0 with its MMU on, TTBR1
0x10000, TTBR0 0x13000, CPU#1 with it off; an SMMUv3 the guest has not
turned on), armgdbstopped (the same,
stopped), armgdbbad (the gdbstub's reply has a bad checksum), armgdblinux
(test_live_tasks.sh: RAMFILE is mklinuxram's arm64 guest, all of it RAM from
0; CPU#0 in EL1 with SP_EL0 pid 51's task_struct, CPU#1 in EL0).
Answers out of turn (-o pause, issue #39 item 2; each a running guest):
latestop (stop answered 3.5 s late, after the client's 3 s bound),
latecont (cont answered 3.5 s late), nostop (stop takes but is never
answered), twice (every answer sent twice), stale (every answer preceded by
a copy of the previous one), noid (answers without the command's "id").
Error lines (issue #39 item 6): implicit (-m alone: QEMU's own pc.ram, anonymous,
share=off, no mem-path), qomclose / qomsilent / qomjson (the first qom-get:
the socket closed mid-answer, no answer, not JSON), sizeneg / sizestr /
sizefloat / sizehuge (the backend's size -1, "1M", 1.5, 2^64), atreset (a
vCPU held at reset by -S: CR0 0x60000010, EFER 0), armgdbreset (aarch64:
every vCPU's MMU off), armgdbsilent (a running guest whose gdbstub stops it
and never answers).
A live root (issue #39 item 7): SOCKET.cr3, when the test writes it, is
CPU#0's CR3 from then on.
Every answer carries the command's "id" (QEMU docs/interop/qmp-spec.rst)
but noid's; the guest's run state is written to SOCKET.state at each change.
"""
import json
import os
import socket
import sys
import threading
import time

GREETING = {"QMP": {"version": {"qemu": {"micro": 0, "minor": 2, "major": 7}, "package": "fake"},
                    "capabilities": ["oob"]}}
MTREE = ('FlatView #0\r\n AS "I/O", root: io\r\n Root memory region: io\r\n'
         '  0000000000000000-0000000000000007 (prio 0, i/o): ram\r\n\r\n'
         'FlatView #1\r\n AS "memory", root: system\r\n AS "cpu-memory-0", root: system\r\n'
         ' Root memory region: system\r\n'
         '  0000000000000000-000000000009ffff (prio 0, ram): ram\r\n'
         '  00000000000a0000-00000000000bffff (prio 1, i/o): vga-lowmem\r\n'
         '  00000000000c0000-00000000000fffff (prio 0, ram): ram @00000000000c0000 KVM\r\n'
         '%s')
# The linux scenario: the whole RAM file as guest RAM from 0 (mklinuxram's guest).
MTREE_LINUX = ('FlatView #0\r\n AS "memory", root: system\r\n Root memory region: system\r\n'
               '  0000000000000000-%016x (prio 0, ram): ram\r\n')
# The IOMMUs' MMIO windows as QEMU 7.2 names them (hw/i386/intel_iommu.c, amd_iommu.c).
VTD_WIN = '  00000000fed90000-00000000fed9022f (prio 0, i/o): intel_iommu\r\n'
AMDVI_WIN = '  00000000fed80000-00000000fed83fff (prio 0, i/o): amdvi-mmio\r\n'
SMMU_WIN = '  0000000009050000-000000000906ffff (prio 0, i/o): arm-smmuv3\r\n'
XP = {  # scenario: {address: value}
    'vtd': {0xfed9001c: 0xc0000000, 0xfed90020: 0x10000},
    'vtdoff': {0xfed9001c: 0x00000000, 0xfed90020: 0x10000},
    'twovtd': {0xfed9001c: 0xc0000000, 0xfed90020: 0x10000},
    'amdvi': {0xfed80018: 0x1, 0xfed80000: 0x30000},
}
PAST = '  0000000100000000-00000001000fffff (prio 0, ram): ram @0000000000080000\r\n'
REGS = ('CPU#0\r\nRAX=0000000000000000 RBX=0000000000000000\r\n'
        'CR0=%s CR2=0000000000000000 CR3=%s CR4=00000020\r\n'
        'DR6=00000000ffff0ff0 DR7=0000000000000400\r\nEFER=0000000000000d00\r\n')


# QEMU 7.2's aarch64 target description, trimmed: the core registers numbered
# from 0 (cpsr is 33), the system registers by regnum (target/arm/gdbstub.c).
CORE_XML = ('<?xml version="1.0"?><!DOCTYPE feature SYSTEM "gdb-target.dtd">'
            '<feature name="org.gnu.gdb.aarch64.core">' +
            ''.join('<reg name="x%d" bitsize="64"/>' % i for i in range(31)) +
            '<reg name="sp" bitsize="64" type="data_ptr"/><reg name="pc" bitsize="64" type="code_ptr"/>'
            '<reg name="cpsr" bitsize="32"/></feature>')
SYS_XML = ('<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd">'
           '<feature name="org.qemu.gdb.arm.sys.regs">'
           '<reg name="ID_MMFR5" bitsize="64" regnum="68" group="cp_regs"/>'
           '<reg name="SCTLR" bitsize="64" regnum="74" group="cp_regs"/>'
           '<reg name="TTBR0_EL1" bitsize="64" regnum="146" group="cp_regs"/>'
           '<reg name="TCR_EL1" bitsize="64" regnum="149" group="cp_regs"/>'
           '<reg name="TTBR1_EL1" bitsize="64" regnum="150" group="cp_regs"/>'
           '<reg name="SP_EL0" bitsize="64" regnum="151" group="cp_regs"/></feature>')
TARGET_XML = ('<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd"><target>'
              '<architecture>aarch64</architecture><xi:include href="aarch64-core.xml"/>'
              '<xi:include href="system-registers.xml"/></target>')
# TCR_EL1: T0SZ = T1SZ = 25 (39-bit halves), TG0 4K (0), TG1 4K (2), IPS 40-bit (2)
TCR = 25 | 25 << 16 | 2 << 30 | 2 << 32
# per thread: cpsr (EL1h: 0x3c5), SCTLR (M bit 0), TCR, TTBR0, TTBR1, SP_EL0 (a user SP: no task)
GDB_REGS = {1: {33: (0x3c5, 4), 74: (0x30d0199d, 8), 149: (TCR, 8), 146: (0x13000, 8), 150: (0x10000, 8),
                151: (0xfffff000, 8)},
            2: {33: (0x3c5, 4), 74: (0x30d01998, 8), 149: (TCR, 8), 146: (0, 8), 150: (0, 8), 151: (0, 8)}}
# armgdblinux: mklinuxram's arm64 guest (linux_util.c): TTBR1 its swapper_pg_dir 0x1000, 48-bit
# halves (T0SZ = T1SZ = 16, TG1 4K, IPS 48-bit, TBI0); CPU#0 in EL1 running pid 51 (SP_EL0 its
# task_struct, arch/arm64/include/asm/current.h) with pid 50's PGD in TTBR0, CPU#1 in EL0 (SP_EL0 a user SP)
TCR48 = 16 | 16 << 16 | 2 << 30 | 5 << 32 | 1 << 37
GDB_REGS_LINUX = {1: {33: (0x3c5, 4), 74: (0x30d0199d, 8), 149: (TCR48, 8), 146: (0x102000, 8),
                      150: (0x1000, 8), 151: (0xffff000000024000, 8)},
                  2: {33: (0x3c0, 4), 74: (0x30d0199d, 8), 149: (TCR48, 8), 146: (0x100000, 8),
                      150: (0x1000, 8), 151: (0xfffffffff000, 8)}}


def gdb_frame(data, bad=False):
    cs = (sum(data.encode()) + bad) & 0xff
    return ('$%s#%02x' % (data, cs)).encode()


def serve_gdb(conn, scn, state):
    """QEMU's gdbstub as far as the live source uses it: a stop on connect."""
    set_running(state, False)
    if scn == 'armgdbsilent':   # another debugger's, or a hung stub: the stop on connect, then nothing
        time.sleep(3600)
    conn.sendall(gdb_frame('T02thread:01;'))
    buf, thread = b'', 1
    while True:
        d = conn.recv(4096)
        if not d:
            return
        buf += d
        while b'#' in buf and len(buf) >= buf.index(b'#') + 3:
            i, j = buf.index(b'$'), buf.index(b'#')
            cmd, buf = buf[i + 1:j].decode(), buf[j + 3:]
            conn.sendall(b'+')
            if cmd.startswith('qSupported'):
                r = 'PacketSize=1000;qXfer:features:read+;vContSupported+;multiprocess+'
            elif cmd.startswith('qXfer:features:read:'):
                name, rng = cmd[len('qXfer:features:read:'):].rsplit(':', 1)
                off, ln = (int(x, 16) for x in rng.split(','))
                doc = {'target.xml': TARGET_XML, 'aarch64-core.xml': CORE_XML,
                       'system-registers.xml': SYS_XML}.get(name)
                ln = min(ln, 300)   # chunks, as a long file comes
                r = 'E00' if doc is None else ('m' if off + ln < len(doc) else 'l') + doc[off:off + ln]
            elif cmd == 'qfThreadInfo':
                r = 'mp01.01,p01.02'
            elif cmd == 'qsThreadInfo':
                r = 'l'
            elif cmd.startswith('Hgp1.'):
                thread, r = int(cmd[5:], 16), 'OK'
            elif cmd.startswith('p'):
                v, n = (GDB_REGS_LINUX if scn == 'armgdblinux' else GDB_REGS).get(thread, {}).get(
                    int(cmd[1:], 16), (None, 0))
                if scn == 'armgdbreset' and int(cmd[1:], 16) == 74:
                    v &= ~1   # SCTLR_EL1.M clear: the MMU off, as at reset
                r = '' if v is None else v.to_bytes(n, 'little').hex()
            else:
                r = ''
            conn.sendall(gdb_frame(r, scn == 'armgdbbad' and cmd.startswith('p')))


def gdb_listen(s, scn, state):
    while True:
        conn, _ = s.accept()
        try:
            serve_gdb(conn, scn, state)
        except OSError:
            pass
        conn.close()


def set_running(state, run):
    state['running'] = run
    with open(state['path'] + '.state', 'w') as f:
        f.write('running\n' if run else 'paused\n')


# query-pci (QEMU qapi/pci.json PciInfo) of scenario vtdpci: q35's host bridge, the two devices the
# VT-d tables set up (00:03.0 nvme, 00:04.0 virtio-net), and behind a root port 01:00.0 (e1000e)
PCI = [{'bus': 0, 'devices': [
    {'bus': 0, 'slot': 0, 'function': 0, 'class_info': {'class': 1536, 'desc': 'Host bridge'},
     'id': {'vendor': 32902, 'device': 10688}, 'qdev_id': '', 'regions': []},
    {'bus': 0, 'slot': 3, 'function': 0, 'class_info': {'class': 264}, 'id': {'vendor': 6966, 'device': 16},
     'qdev_id': 'nvme0', 'regions': []},
    {'bus': 0, 'slot': 4, 'function': 0, 'class_info': {'class': 512}, 'id': {'vendor': 6900, 'device': 4096},
     'qdev_id': '', 'regions': []},
    {'bus': 0, 'slot': 28, 'function': 0, 'class_info': {'class': 1540}, 'id': {'vendor': 6966, 'device': 12},
     'qdev_id': 'rp0', 'regions': [], 'pci_bridge': {
         'bus': {'number': 1, 'secondary': 1, 'subordinate': 1},
         'devices': [{'bus': 1, 'slot': 0, 'function': 0, 'class_info': {'class': 512},
                      'id': {'vendor': 32902, 'device': 4307}, 'qdev_id': 'nic0', 'regions': []}]}}]}]


def answers(scn, ram, state):
    pci = PCI if scn == 'vtdpci' else None
    scn = 'vtd' if scn == 'vtdpci' else scn
    share = scn != 'noshare'
    target = 'aarch64' if scn.startswith('arm') else 'x86_64'

    sizes = {'sizeneg': -1, 'sizestr': '1M', 'sizefloat': 1.5, 'sizehuge': 1 << 64}

    def qom(path, prop):
        if path == '/machine' and prop == 'memory-backend':
            return {'return': '' if scn == 'nobackend' else '/objects/pc.ram' if scn == 'implicit' else
                    '/objects/ram'}
        if path == '/objects/pc.ram' and prop == 'share':
            return {'return': False}
        if path == '/objects/ram' and prop == 'size' and scn in sizes:
            return {'return': sizes[scn]}
        if path == '/objects/ram':
            if prop == 'share':
                return {'return': share}
            if prop == 'size':
                return {'return': os.path.getsize(ram) if scn in ('linux', 'armgdblinux') else 1 << 20}
            if prop == 'mem-path':
                if scn == 'nofile':
                    return {'error': {'class': 'GenericError', 'desc': "Property 'mem-path' not found"}}
                return {'return': ram}
        return {'error': {'class': 'GenericError', 'desc': 'no %s of %s' % (prop, path)}}

    def hmp(line):
        if line == 'info mtree -f' and scn in ('linux', 'armgdblinux'):
            return MTREE_LINUX % (os.path.getsize(ram) - 1)
        if line == 'info mtree -f':
            extra = {'mtree_past': PAST, 'vtd': VTD_WIN, 'vtdoff': VTD_WIN, 'vtdbadxp': VTD_WIN,
                     'twovtd': VTD_WIN + VTD_WIN.replace('fed9', 'fea9'), 'amdvi': AMDVI_WIN,
                     'armgdb': SMMU_WIN}
            return MTREE % extra.get(scn, '')
        if line.startswith('xp /1'):
            addr = int(line.split()[-1], 16)
            if scn == 'vtdbadxp':
                return 'Cannot access memory\r\n'
            unit = 'w' if line.startswith('xp /1w') else 'g'
            val = XP.get(scn, {}).get(addr, 0)
            return '%016x: 0x%0*x\r\n' % (addr, 8 if unit == 'w' else 16, val)
        if line == 'info registers -a':
            cr3 = '1' + '0' * 16 if scn == 'hugereg' else '0000000000001000'
            if os.path.exists(state['path'] + '.cr3'):   # the test moves the vCPU to another task
                with open(state['path'] + '.cr3') as f:
                    cr3 = f.read().strip()
            cr0 = '00000033' if scn == 'nopaging' else '60000010' if scn == 'atreset' else '80050033'
            regs = REGS % (cr0, cr3)
            return regs.replace('EFER=0000000000000d00', 'EFER=0000000000000000') if scn == 'atreset' else regs
        return ''

    def answer(msg):
        cmd = msg.get('execute')
        a = msg.get('arguments', {})
        if cmd == 'qmp_capabilities':
            return {'return': {}}
        if cmd == 'query-target':
            return {'return': {'arch': target}}
        if cmd == 'query-chardev':
            devs = [{'frontend-open': True, 'filename': 'unix:%s,server=on' % state['path'],
                     'label': 'compat_monitor0'}]
            if scn.startswith('armgdb'):
                devs.append({'frontend-open': True, 'label': 'gdb',
                             'filename': 'disconnected:unix:%s.gdb,server=on' % state['path']})
            return {'return': devs}
        if cmd == 'qom-get':
            return qom(a.get('path'), a.get('property'))
        if cmd == 'human-monitor-command':
            return {'return': hmp(a.get('command-line'))}
        if cmd == 'query-pci' and pci is not None:
            return {'return': pci}
        if cmd == 'query-status':
            return {'return': {'running': state['running'], 'status': 'running' if state['running'] else 'paused'}}
        if cmd == 'stop':
            set_running(state, False)
            return {'return': {}}
        if cmd == 'cont':
            set_running(state, True)
            return {'return': {}}
        return {'error': {'class': 'CommandNotFound', 'desc': 'The command %s has not been found' % cmd}}
    return answer


def serve(conn, scn, ram, log, state):
    f = conn.makefile('rwb', buffering=0)
    if scn == 'silent':
        time.sleep(3600)
    if scn == 'nogreet':
        f.write(b'SSH-2.0-OpenSSH_9.2\r\n')
        time.sleep(3600)
    if scn == 'slow':
        for c in json.dumps(GREETING).encode():
            f.write(bytes([c]))
            time.sleep(1)
    f.write(json.dumps(GREETING).encode() + b'\r\n')
    answer = answers(scn, ram, state)
    n, prev = 0, None
    for line in f:
        msg = json.loads(line)
        with open(log, 'a') as lf:
            lf.write(json.dumps(msg) + '\n')
        n += 1
        if scn == 'garbage' and n == 2:
            f.write(b'\x00\xffnot json at all\r\n')
            continue
        if msg.get('execute') == 'qom-get' and scn in ('qomclose', 'qomsilent', 'qomjson'):
            if scn == 'qomclose':
                f.write(b'{"return": "/obj')
                return
            if scn == 'qomsilent':
                time.sleep(3600)
            f.write(b'{"return": /objects/ram}\r\n')
            continue
        if scn == 'endless' and n == 2:
            while True:
                f.write(b'{"return": "' + b'x' * 65536)
        # an event first, as QEMU sends them between answers
        if msg.get('execute') == 'stop':
            f.write(b'{"timestamp": {"seconds": 1, "microseconds": 2}, "event": "STOP"}\r\n')
        a = answer(msg)
        if 'id' in msg and scn != 'noid':
            a['id'] = msg['id']
        out = json.dumps(a).encode() + b'\r\n'
        if scn == 'nostop' and msg.get('execute') == 'stop':
            continue
        if (scn, msg.get('execute')) in (('latestop', 'stop'), ('latecont', 'cont')):
            time.sleep(3.5)
        if scn == 'stale' and prev:
            f.write(prev)
        f.write(out)
        if scn == 'twice':
            f.write(out)
        prev = out


def main():
    path, scn = sys.argv[1], sys.argv[2]
    ram = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else '/nonexistent'
    state = {'running': scn in ('running', 'armgdb', 'armgdbbad', 'armgdbsilent', 'armgdbreset', 'latestop', 'latecont', 'nostop', 'twice',
                                'stale'),
             'path': os.path.abspath(path)}
    set_running(state, state['running'])
    if scn.startswith('armgdb'):   # bound before the QMP socket, which the test waits for
        if os.path.exists(path + '.gdb'):
            os.unlink(path + '.gdb')
        g = socket.socket(socket.AF_UNIX)
        g.bind(path + '.gdb')
        g.listen(4)
        threading.Thread(target=lambda: gdb_listen(g, scn, state), daemon=True).start()
    if os.path.exists(path):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.listen(4)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=lambda: serve_safe(conn, scn, ram, path + '.log', state), daemon=True).start()


def serve_safe(conn, scn, ram, log, state):
    try:
        serve(conn, scn, ram, log, state)
    except (OSError, ValueError):
        pass
    finally:
        conn.close()


if __name__ == '__main__':
    main()
