#!/usr/bin/env python3
"""The PCI check of the QEMU IOMMU test (README.md here, "IOMMUs"; issue #40
item 5): the guest's own account of its PCI functions against ptfs's.

  pci_agree.py TOOL DUMP SERIAL_LOG [CAPTURE_DIR]

SERIAL_LOG holds what the guest's /init printed just before the dump, one
`ptfs-pci: BDF VENDOR DEVICE CLASS DRIVER` line per /sys/bus/pci/devices/*
entry (sysfs's vendor, device and 24-bit class files, the basename of the
driver symlink or `-`).  Then `TOOL pci --json DUMP` (the kernel's
pci_root_buses walked through its BTF and kallsyms) must list exactly those
functions with the same ids, class (base, sub and prog-if) and driver.
With CAPTURE_DIR (the dump with an [iommu] section beside it), every line
of `TOOL devices --json CAPTURE_DIR` must be a function the guest lists,
with its vendor, device, class (base and sub) and driver.
Prints the counts; exit 1 with every disagreement listed."""
import json
import subprocess
import sys


def guest(serial):
    devs = {}
    with open(serial, 'rb') as f:
        for raw in f:
            line = raw.decode('utf-8', 'replace').rstrip('\r\n')
            if line.startswith('ptfs-pci: '):
                bdf, ven, dev, cls, drv = line.split()[1:6]
                devs[bdf] = (int(ven, 16), int(dev, 16), int(cls, 16), '' if drv == '-' else drv)
    return devs


def main():
    tool, dump, serial = sys.argv[1:4]
    want = guest(serial)
    bad = []
    if not want:
        print('pci: the guest printed no ptfs-pci line')
        return 1
    r = subprocess.run([tool, 'pci', '--json', dump], capture_output=True, text=True)
    if r.returncode:
        print('pci: %s pci --json %s: exit %d: %s' % (tool, dump, r.returncode, r.stderr.strip()))
        return 1
    got = {}
    for d in json.loads(r.stdout):
        got[d['bdf']] = (int(d['vendor'], 16), int(d['device'], 16),
                         int(d['class'], 16) << 8 | int(d.get('prog_if', '0x0'), 16), d.get('driver'))
    for bdf in sorted(set(want) | set(got)):
        if want.get(bdf) != got.get(bdf):
            bad.append('%s: guest %s, ptfs %s' % (bdf, want.get(bdf), got.get(bdf)))
    drivers = sum(1 for v in want.values() if v[3])
    print('pci: guest %d functions (%d with a driver), ptfs %d, disagree %d'
          % (len(want), drivers, len(got), len(bad)))
    if len(sys.argv) > 4:
        r = subprocess.run([tool, 'devices', '--json', sys.argv[4]], capture_output=True, text=True)
        lines = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
        named = 0
        for x in lines:
            bdf = '0000:' + x['bdf'] if x.get('bdf', '').count(':') == 1 else x.get('bdf')
            w = want.get(bdf)
            if w is None:
                bad.append('devices: %s is no function of the guest' % x.get('bdf', x.get('sid')))
                continue
            g = (int(x.get('vendor', '-1'), 16), int(x.get('device', '-1'), 16),
                 int(x.get('class', '-1'), 16), x.get('driver'))
            if g != (w[0], w[1], w[2] >> 8, w[3]):
                bad.append('devices: %s: guest %s, the line %s' % (bdf, w, g))
            else:
                named += 1
        print('devices: %d IOMMU device lines, %d named as the guest names them' % (len(lines), named))
        if r.returncode or not lines:
            bad.append('devices: %s devices --json %s: exit %d, %d lines'
                       % (tool, sys.argv[4], r.returncode, len(lines)))
    for b in bad:
        print('  ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
