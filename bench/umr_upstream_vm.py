#!/usr/bin/env python3
# umr's upstream VM known-answer tests, run through ptfs (issue #20): each case
# of umr's src/test/test_vm.c (envdef, ASIC, VMID, VA; every read must give
# 0x0706050403020100, test 16 must fail) goes through
# `ptfs-tool walk --asic ASIC --json`, then 8 bytes are read at the resulting
# PA from the envdef's own VRAM@/SYSRAM@ records.  No umr file is in this tree:
#   python3 bench/umr_upstream_vm.py build/cli/ptfs-tool DIR
# where DIR holds umr's test/vm/direct_vm_test*.envdef (a umr checkout,
# gitlab.freedesktop.org/tomstdenis/umr).  The case list is umr's, the gfx8
# (polaris11) cases 13 and 14 left out.
import json, re, subprocess, sys
TOOL, DIR = sys.argv[1], sys.argv[2]
ASIC_GFX = {"raven1": 9, "vega10": 9, "aldebaran": 9, "navi10": 10, "gfx11_vm_test": 11}
cases = [(0,"raven1",0,0x444000),(1,"raven1",3,0x800100400800),(2,"navi10",0,0x446000),(3,"navi10",3,0x15600000),
 (5,"navi10",3,0x30380F000),(6,"navi10",3,0x304A0F000),(7,"navi10",3,0xff0064e000),(8,"navi10",3,0xff00650000),
 (9,"vega10",8,0x7ffff6768000),(10,"vega10",8,0x7f3bcca00000),(11,"vega10",8,0x7f26faa00000),(12,"vega10",8,0x7f334f600000),
 (15,"navi10",0,0x8000001000),(16,"navi10",0,0xffffe11000),(17,"gfx11_vm_test",5,0x2e0a2000),(18,"aldebaran",3,0x7f8047e00000)]
def mem(path):
    m = {"vram": {}, "sysmem": {}}
    t = open(path).read()
    for k, a, body in re.findall(r"^\s*(VRAM|SYSRAM)@(?:0x)?([0-9a-fA-F]+)\s*=\s*\{([^}]*)\}", t, re.M):
        b = bytes.fromhex(re.sub(r"[^0-9a-fA-F]", "", body))
        sp = m["vram" if k == "VRAM" else "sysmem"]
        for i, x in enumerate(b): sp[int(a, 16) + i] = x
    return m
ok = 0
for n, asic, vmid, va in cases:
    f = "%s/direct_vm_test%d.envdef" % (DIR, n)
    r = subprocess.run([TOOL, "walk", "--asic", asic, "--json", f, "vmid%d" % vmid, hex(va)], capture_output=True, text=True)
    want_fail = n == 16
    got = None
    try:
        res = json.loads(r.stdout)["result"]
        if res.get("status") in ("mapped", "aperture"):
            sp, pa = res["space"], int(res["pa"], 16)
            m = mem(f)[sp]
            if all(pa + i in m for i in range(8)):
                got = int.from_bytes(bytes(m[pa + i] for i in range(8)), "little")
            why = "%s:0x%x" % (sp, pa)
        else:
            why = "%s %s" % (res.get("fault"), res.get("level", ""))
    except Exception:
        why = (r.stderr.strip() or r.stdout.strip())[:200]
    good = (got is None) if want_fail else (got == 0x0706050403020100)
    ok += good
    print("test%-2d %-13s vmid%d va 0x%x: %s %s%s" % (n, asic, vmid, va, "PASS" if good else "FAIL", why,
          "" if got is None else " read 0x%016x" % got))
print("%d/%d give umr's answer" % (ok, len(cases)))
