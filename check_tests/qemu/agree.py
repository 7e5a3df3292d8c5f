#!/usr/bin/env python3
"""The comparisons of the QEMU agreement test (README.md here), given the
truth qemu_truth.py recorded.

  agree.py walks TOOL DUMP TRUTH
      `TOOL walk --json DUMP cpuN VA...` for every line of TRUTH: a VA QEMU
      maps must be mapped at QEMU's PA in space sysmem; a VA QEMU answers
      Unmapped must fault.  The kernel-half VAs are walked once more in
      context `kernel` (the root VMCOREINFO names), which shares the kernel
      half of every process's table (Linux arch/x86/mm/pgtable.c pgd_ctor
      copies it; no PTI here: CR3 is the kernel PGD), so it must give cpu0's
      answers too.
  agree.py va DIR CONTEXT TLBFILE
      the names in DIR/CONTEXT/va/ (a mount or an export) must be exactly
      the VAs QEMU's `info tlb` lists (one name per page, none twice).

Prints the counts; exit 1 with every disagreement listed."""
import collections
import json
import os
import subprocess
import sys

KERNEL_HALF = 1 << 63


def ptfs_walk(tool, dump, ctx, vas):
    out = []
    for i in range(0, len(vas), 256):   # bounded command lines
        chunk = vas[i:i + 256]
        r = subprocess.run([tool, 'walk', '--json', dump, ctx] + ['0x%x' % v for v in chunk],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit('agree: ptfs-tool walk %s %s failed (%d): %s' %
                     (dump, ctx, r.returncode, r.stderr.strip()))
        res = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]   # JSON Lines
        if len(res) != len(chunk):
            sys.exit('agree: ptfs-tool walk gave %d results for %d VAs' % (len(res), len(chunk)))
        out += res
    return out


def verdict(qemu_pa, res):
    """None when ptfs agrees with QEMU, else what differs."""
    r = res['result']
    if qemu_pa == 'unmapped':
        if r.get('status') == 'fault':
            return None
        return 'QEMU unmapped, ptfs mapped at %s %s' % (r.get('space'), r.get('pa'))
    if r.get('status') != 'mapped':
        return 'QEMU %s, ptfs fault %s at %s %s' % (qemu_pa, r.get('fault'), r.get('level'),
                                                  r.get('index'))
    if r.get('space') != 'sysmem' or int(r['pa'], 16) != int(qemu_pa, 16):
        return 'QEMU %s, ptfs %s %s' % (qemu_pa, r.get('space'), r.get('pa'))
    return None


def cmd_walks(tool, dump, truth_path):
    truth = collections.defaultdict(list)
    for line in open(truth_path):
        ctx, va, pa = line.split()
        truth[ctx].append((int(va, 16), pa))
    bad = []
    faults = collections.Counter()
    n = mapped = 0
    for ctx in sorted(truth):
        rows = truth[ctx]
        for (va, pa), res in zip(rows, ptfs_walk(tool, dump, ctx, [v for v, _ in rows])):
            n += 1
            mapped += pa != 'unmapped'
            if res['result'].get('status') == 'fault':
                faults[res['result'].get('fault')] += 1
            why = verdict(pa, res)
            if why:
                bad.append('%s 0x%016x: %s' % (ctx, va, why))
    # The kernel half once more through the VMCOREINFO root.
    # (An arm64 truth file is of context kernel already: nothing to repeat.)
    kern = [(va, pa) for va, pa in truth.get('cpu0', []) if va >= KERNEL_HALF]
    nk = 0
    for (va, pa), res in zip(kern, ptfs_walk(tool, dump, 'kernel', [v for v, _ in kern])):
        nk += 1
        why = verdict(pa, res)
        if why:
            bad.append('kernel 0x%016x: %s' % (va, why))
    for b in bad:
        print('agree: DISAGREE %s: %s' % (os.path.basename(dump), b))
    print('agree: %s: %d VAs checked against gva2gpa (%d mapped, %d unmapped; ptfs faults: %s),'
          ' %d kernel-half VAs through context kernel, %d disagreements' %
          (os.path.basename(dump), n, mapped, n - mapped,
           ', '.join('%s %d' % kv for kv in sorted(faults.items())) or 'none', nk, len(bad)))
    return 1 if bad else 0


def cmd_va(top, ctx, tlb_path):
    want = ['0x' + l.split(':')[0] for l in open(tlb_path) if l.strip()]
    have = os.listdir(os.path.join(top, ctx, 'va'))
    # Compared as sets: an export's readdir order is its file system's.
    missing = sorted(set(want) - set(have))
    extra = sorted(set(have) - set(want))
    for v in missing[:20]:
        print('agree: DISAGREE %s/va: info tlb lists %s, va/ does not' % (ctx, v))
    for v in extra[:20]:
        print('agree: DISAGREE %s/va: va/ lists %s, info tlb does not' % (ctx, v))
    print('agree: %s/va: %d pages compared with info tlb, %d missing, %d extra' %
          (ctx, len(want), len(missing), len(extra)))
    return 1 if missing or extra or len(have) != len(set(have)) else 0


def main(argv):
    if len(argv) == 5 and argv[1] == 'walks':
        return cmd_walks(argv[2], argv[3], argv[4])
    if len(argv) == 5 and argv[1] == 'va':
        return cmd_va(argv[2], argv[3], argv[4])
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
