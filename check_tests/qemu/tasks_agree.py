#!/usr/bin/env python3
"""The task check of the QEMU agreement test (README.md here, "Processes";
issue #40 item 7): the guest's own account of its processes against ptfs's.

  tasks_agree.py TOOL DUMP SERIAL_LOG

SERIAL_LOG holds what ptfs-procs (procs.c) printed in the guest just before
the dump: `PTFS-PROC PID PPID COMM` per user process (from /proc/PID/stat)
and `PTFS-PM PID VA PFN [none]` for sampled present pages (from
/proc/PID/pagemap, read as root, so with PFNs; `none`: a PROT_NONE VMA, whose
PTEs pagemap calls present while their P bit is 0).  Then:
  - `TOOL tasks --json DUMP` lists exactly those pids (each a context
    pidN), with the same ppid and comm (the kernel keeps 15 bytes:
    include/linux/sched.h TASK_COMM_LEN);
  - `TOOL walk --json DUMP pidN VA` maps every sampled VA to PFN << 12 in
    sysmem (THP: pagemap reports each 4 KiB subpage's PFN,
    fs/proc/task_mmu.c pagemap_pmd_range, as the walk's PA of the VA does),
    and faults `unmapped` at a PROT_NONE page (the CPU's answer:
    arch/x86/include/asm/pgtable.h pte_present() counts _PAGE_PROTNONE).
The one process that runs between the sample and the dump is RUNNER (pid
1, the init script: it forks ptfs-procs, waits, and goes on to the idle
loop): a writable page of its own that it writes after the fork is copied
there (the copy-on-write break of mm/memory.c do_wp_page(): the fork left
the page shared), so its PFN may change after the sample.  Such pages,
still mapped and writable in ptfs's walk, are counted apart as `moved`, at
most MOVED_MAX; any other difference is a disagreement.
Prints the counts; exit 1 with every disagreement listed."""
import json
import subprocess
import sys

RUNNER = 1
MOVED_MAX = 8


def guest(serial):
    procs, pm = {}, {}
    with open(serial, 'rb') as f:
        for raw in f:
            line = raw.decode('utf-8', 'replace').rstrip('\r\n')
            if line.startswith('PTFS-PROC '):
                _, pid, ppid, comm = line.split(' ', 3)
                procs[int(pid)] = (int(ppid), comm[:15])
            elif line.startswith('PTFS-PM '):
                f = line.split()
                pm.setdefault(int(f[1]), []).append((int(f[2], 16), int(f[3], 16), f[4:] == ['none']))
    return procs, pm


def main():
    tool, dump, serial = sys.argv[1:4]
    procs, pm = guest(serial)
    if not procs:
        sys.exit('tasks_agree: no PTFS-PROC line in %s (ptfs-procs did not run)' % serial)
    r = subprocess.run([tool, 'tasks', '--json', dump], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        sys.exit('tasks_agree: ptfs-tool tasks %s failed (%d): %s' % (dump, r.returncode, r.stderr.strip()))
    mine = {t['pid']: t for t in json.loads(r.stdout)}
    bad = []
    for pid in sorted(set(procs) | set(mine)):
        if pid not in mine:
            bad.append('pid %d (%s): in the guest, not in ptfs-tool tasks' % (pid, procs[pid][1]))
        elif pid not in procs:
            bad.append('pid %d (%s): in ptfs-tool tasks, not in the guest' % (pid, mine[pid]['comm']))
        elif (mine[pid]['ppid'], mine[pid]['comm']) != procs[pid]:
            bad.append('pid %d: the guest says ppid %d comm %r, ptfs ppid %d comm %r' % (
                pid, procs[pid][0], procs[pid][1], mine[pid]['ppid'], mine[pid]['comm']))
    npfn = nnone = 0
    moved = []
    for pid, pages in sorted(pm.items()):
        if pid not in mine:
            continue
        r = subprocess.run([tool, 'walk', '--json', dump, 'pid%d' % pid] + ['0x%x' % p[0] for p in pages],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        res = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        if r.returncode != 0 or len(res) != len(pages):
            bad.append('ptfs-tool walk pid%d: exit %d: %s' % (pid, r.returncode, r.stderr.strip()[:200]))
            continue
        for (va, pfn, none), w in zip(pages, res):
            got = w['result']
            npfn += 1
            if none:
                nnone += 1
                if got.get('status') != 'fault' or got.get('fault') != 'unmapped':
                    bad.append('pid%d 0x%x: PROT_NONE, ptfs %s' % (pid, va, json.dumps(got)[:160]))
            elif got.get('status') != 'mapped' or got.get('space') != 'sysmem' or int(got['pa'], 16) >> 12 != pfn:
                what = 'pid%d 0x%x: pagemap PFN 0x%x, ptfs %s' % (pid, va, pfn, json.dumps(got)[:160])
                if (pid == RUNNER and got.get('status') == 'mapped' and 'writable' in got.get('flags', [])
                        and len(moved) < MOVED_MAX):
                    moved.append(what)
                else:
                    bad.append(what)
    print('tasks_agree: %d processes in the guest, %d in ptfs; %d sampled pages (%d PROT_NONE); '
          '%d moved since the sample (pid %d ran on: copy-on-write); %d disagreements' % (
              len(procs), len(mine), npfn, nnone, len(moved), RUNNER, len(bad)))
    for m in moved:
        print('  moved: ' + m)
    for b in bad[:40]:
        print('  ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
