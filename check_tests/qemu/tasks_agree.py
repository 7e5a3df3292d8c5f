#!/usr/bin/env python3
"""The task check of the QEMU agreement test (README.md here, "Processes";
issue #40 item 7): the guest's own account of its processes against ptfs's.

  tasks_agree.py TOOL DUMP SERIAL_LOG [pa]

SERIAL_LOG holds what ptfs-procs (procs.c) printed in the guest just before
the dump: `PTFS-PROC PID PPID THREADS COMM` per user process (from /proc/PID/stat)
and `PTFS-PM PID VA PFN [none|x]` for sampled present pages (from
/proc/PID/pagemap, read as root, so with PFNs; `none`: a PROT_NONE VMA, whose
PTEs pagemap calls present while their P bit is 0; `x`: an executable VMA).
Then:
  - `TOOL tasks --json DUMP` lists exactly those pids (each a context
    pidN), with the same ppid, thread count and comm (the kernel keeps 15
    bytes: include/linux/sched.h TASK_COMM_LEN);
  - `TOOL walk --json DUMP pidN VA` maps every sampled VA to PFN << 12 in
    sysmem (THP: pagemap reports each 4 KiB subpage's PFN,
    fs/proc/task_mmu.c pagemap_pmd_range, as the walk's PA of the VA does),
    and faults `unmapped` at a PROT_NONE page (the CPU's answer:
    arch/x86/include/asm/pgtable.h pte_present() counts _PAGE_PROTNONE;
    arm64's PTE_PROT_NONE is an invalid descriptor, asm/pgtable.h);
    a page of an executable VMA must walk without `xd`: the walk is the
    CPU's in user mode, and under PTI only the user copy at pgd + 4 KiB
    lets it fetch there (arch/x86/mm/pti.c __pti_set_user_pgtbl() sets NX
    in the kernel copy's user entries), so a pidN rooted at the kernel
    copy fails here while its PFNs still agree.
The one process that runs between the sample and the dump is RUNNER (pid
1, the init script: it forks ptfs-procs, waits, and goes on to the idle
loop): a writable page of its own that it writes after the fork is copied
there (the copy-on-write break of mm/memory.c do_wp_page(): the fork left
the page shared), so its PFN may change after the sample.  Such pages,
still mapped and writable in ptfs's walk, are counted apart as `moved`, at
most MOVED_MAX; any other difference is a disagreement.
With `pa` (once per guest: each answer loads the dump), who maps a page:
  - ptfs-family (family.c, its `PTFS-FAMILY PARENT CHILD SHARED PRIVATE`
    line) must have done what it says in the guest's own pagemap: its
    first MAP_SHARED page one frame in parent and child, its second private
    page one frame (copy-on-write, unbroken), its first private page two
    (the child's write broke it), the parent 3 threads; then `TOOL pa
    --json` of each of those frames names exactly the family's processes
    that the guest says map it;
  - every other frame the sample shows in two or more processes (busybox's
    text, shared by every process that runs it), up to SHARED_MAX of them:
    `TOOL pa` names at least those processes (the sample is partial, so
    ptfs may name more), RUNNER left out (its pages may have moved);
  - ptfs maps no user page outside the process's VMAs: every run of
    `TOOL maps --json DUMP pidN` with the user flag (arm64: ap_user) lies inside the VMAs
    ptfs-procs listed (`PTFS-VMA PID LO HI`, /proc/PID/maps), RUNNER
    left out (it runs on after the sample).
Prints the counts; exit 1 with every disagreement listed."""
import json
import subprocess
import sys

RUNNER = 1
MOVED_MAX = 8
SHARED_MAX = 6


def guest(serial):
    procs, pm, family, vmas = {}, {}, None, {}
    with open(serial, 'rb') as f:
        for raw in f:
            line = raw.decode('utf-8', 'replace').rstrip('\r\n')
            if line.startswith('PTFS-PROC '):
                _, pid, ppid, threads, comm = line.split(' ', 4)
                procs[int(pid)] = (int(ppid), comm[:15], int(threads))
            elif line.startswith('PTFS-VMA '):
                f = line.split()
                vmas.setdefault(int(f[1]), []).append((int(f[2], 16), int(f[3], 16)))
            elif line.startswith('PTFS-FAMILY '):
                family = tuple(int(x, 0) for x in line.split()[1:5])
            elif line.startswith('PTFS-PM '):
                f = line.split()
                pm.setdefault(int(f[1]), []).append((int(f[2], 16), int(f[3], 16), f[4:5] == ['none'],
                                                     f[4:5] == ['x']))
    return procs, pm, family, vmas


def user(flags):
    """Whether a run or page of these maps flags is reachable from user mode:
    x86-64's `user` (U/S), arm64's `ap_user` (AP[1])."""
    return 'user' in flags or 'ap_user' in flags


def writable(flags):
    """Whether it is writable: x86-64's `writable` (R/W), arm64's AP[2]
    clear (no `ap_rdonly`)."""
    return 'writable' in flags or ('ap_user' in flags and 'ap_rdonly' not in flags)


def outside_vmas(tool, dump, pid, vmas, bad):
    """Checks pidN's user runs against its VMAs; returns the runs checked."""
    r = subprocess.run([tool, 'maps', '--json', dump, 'pid%d' % pid], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        bad.append('ptfs-tool maps pid%d: exit %d: %s' % (pid, r.returncode, r.stderr.strip()[:200]))
        return 0
    spans = sorted(vmas)
    n = 0
    for line in r.stdout.splitlines():
        run = json.loads(line)
        if not user(run.get('flags', [])):
            continue
        n += 1
        lo, hi = int(run['va_start'], 16), int(run['va_end'], 16)
        for a, b in spans:   # the run, cut by each VMA in order, must be used up
            if a <= lo < b:
                lo = min(b, hi)
            if lo >= hi:
                break
        if lo < hi:
            bad.append('pid%d: ptfs maps user VAs 0x%x-0x%x outside every VMA of /proc/%d/maps' % (pid, lo, hi, pid))
    return n


def pa_pids(tool, dump, pfn):
    """The pids TOOL pa names for frame PFN, or an error string."""
    r = subprocess.run([tool, 'pa', '--json', dump, 'sysmem:0x%x' % (pfn << 12)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode not in (0, 1):
        return 'ptfs-tool pa sysmem:0x%x: exit %d: %s' % (pfn << 12, r.returncode, r.stderr.strip()[:200])
    try:
        return {p['pid'] for p in json.loads(r.stdout).get('processes', [])}
    except ValueError:
        return 'ptfs-tool pa sysmem:0x%x: not JSON' % (pfn << 12)


def who_maps(tool, dump, procs, pm, family, bad):
    """The `pa` checks of the docstring; returns (frames checked, family frames)."""
    at = {(pid, va): pfn for pid, pages in pm.items() for va, pfn, none, _ in pages if not none}
    want = {}
    if family is None:
        bad.append('no PTFS-FAMILY line: ptfs-family (family.c) did not run')
    else:
        par, chi, sh, pv = family
        got = {k: (at.get((par, va)), at.get((chi, va))) for k, va in
               (('shared', sh), ('cow', pv + 4096), ('broken', pv))}
        if procs.get(par, (0, '', 0))[2] != 3:
            bad.append('ptfs-family pid %d: the guest says %s threads, not 3' % (par, procs.get(par, (0, '', '?'))[2]))
        if None in got['shared'] + got['cow'] + got['broken']:
            bad.append('ptfs-family: pagemap sampled no frame at one of its pages: %r' % (got,))
        elif got['shared'][0] != got['shared'][1] or got['cow'][0] != got['cow'][1] or \
                got['broken'][0] == got['broken'][1]:
            bad.append('ptfs-family: the guest did not share as family.c intends: %r' % (got,))
        else:
            want[got['shared'][0]] = {par, chi}
            want[got['cow'][0]] = {par, chi}
            want[got['broken'][0]] = {par}
            want[got['broken'][1]] = {chi}
        for pfn, pids in want.items():
            mine = pa_pids(tool, dump, pfn)
            if isinstance(mine, str):
                bad.append(mine)
            elif mine & {par, chi} != pids:
                bad.append('frame 0x%x: the guest says pids %s of ptfs-family map it, ptfs-tool pa names %s' % (
                    pfn, sorted(pids), sorted(mine & {par, chi})))
    byframe = {}
    for (pid, va), pfn in at.items():
        if pid != RUNNER and pfn not in want:
            byframe.setdefault(pfn, set()).add(pid)
    shared = sorted((pfn, pids) for pfn, pids in byframe.items() if len(pids) >= 2)[:SHARED_MAX]
    for pfn, pids in shared:
        mine = pa_pids(tool, dump, pfn)
        if isinstance(mine, str):
            bad.append(mine)
        elif not pids <= mine:
            bad.append('frame 0x%x: the guest says pids %s map it, ptfs-tool pa names %s' % (
                pfn, sorted(pids), sorted(mine)))
    return len(shared), len(want)


def main():
    tool, dump, serial = sys.argv[1:4]
    procs, pm, family, vmas = guest(serial)
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
        elif (mine[pid]['ppid'], mine[pid]['comm'], mine[pid]['threads']) != procs[pid]:
            bad.append('pid %d: the guest says ppid %d comm %r threads %d, ptfs ppid %d comm %r threads %d' % (
                pid, procs[pid][0], procs[pid][1], procs[pid][2], mine[pid]['ppid'], mine[pid]['comm'],
                mine[pid]['threads']))
    npfn = nnone = nexec = 0
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
        for (va, pfn, none, x), w in zip(pages, res):
            got = w['result']
            npfn += 1
            if none:
                nnone += 1
                if got.get('status') != 'fault' or got.get('fault') != 'unmapped':
                    bad.append('pid%d 0x%x: PROT_NONE, ptfs %s' % (pid, va, json.dumps(got)[:160]))
            elif got.get('status') != 'mapped' or got.get('space') != 'sysmem' or int(got['pa'], 16) >> 12 != pfn:
                what = 'pid%d 0x%x: pagemap PFN 0x%x, ptfs %s' % (pid, va, pfn, json.dumps(got)[:160])
                if (pid == RUNNER and got.get('status') == 'mapped' and writable(got.get('flags', []))
                        and len(moved) < MOVED_MAX):
                    moved.append(what)
                else:
                    bad.append(what)
            elif x:
                nexec += 1
                if 'xd' in got.get('flags', []):
                    bad.append('pid%d 0x%x: executable in the guest (its VMA is r-x), ptfs walks it xd '
                               '(a PTI kernel copy?) %s' % (pid, va, json.dumps(got)[:160]))
    whom = ''
    if sys.argv[4:5] == ['pa']:
        nshared, nfam = who_maps(tool, dump, procs, pm, family, bad)
        nruns = sum(outside_vmas(tool, dump, pid, vmas.get(pid, []), bad)
                    for pid in sorted(set(procs) & set(mine)) if pid != RUNNER)
        whom = '; who maps: %d family frames, %d shared frames; %d user runs inside the VMAs' % (
            nfam, nshared, nruns)
    print('tasks_agree: %d processes in the guest, %d in ptfs; %d sampled pages (%d PROT_NONE, '
          '%d executable); %d moved since the sample (pid %d ran on: copy-on-write)%s; %d disagreements' % (
              len(procs), len(mine), npfn, nnone, nexec, len(moved), RUNNER, whom, len(bad)))
    for m in moved:
        print('  moved: ' + m)
    for b in bad[:40]:
        print('  ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
