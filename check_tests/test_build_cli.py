#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_build_cli.py — `ptfs-tool build` gives the spec back (issue #25 item 4).

For every format with an encoder, random specs (fixed seeds: a failure
names its seed) of non-overlapping mappings with random sizes, spaces and
flags are built, to a directory and to a .tar.gz; then `ptfs-tool maps
--json` of the result, expanded page by page, must be exactly the spec:
every 4 KiB of every map line at its PA, in its space, with its flags and
no others, and nothing else mapped.  Twice the same spec gives the same
archive bytes.  Bad specs fail with the spec's file and line.  Every stacked shape the loader
accepts (a guest in gpa over EPT or over arm64 stage 2; a GPU's IOVA sysmem
over VT-d, AMD-Vi or SMMUv3; three stages) builds, and every page of every
map line walks to its final address (issue #34 item 2); a failed build
leaves no output.

Environment: PTFS_TOOL.  One "ok -"/"not ok -" line per check.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

TOOL = os.environ["PTFS_TOOL"]

# format: (capture.ini head, section, page spaces, one-bit leaf flags, VA bits)
FORMATS = {
    "ver2": ("format = nv-gmmu-ver2", "[pdb c]\nspace = vidmem\n",
             ["vidmem", "sysmem", "peer0", "peer3"],
             ["read_only", "atomic_disable", "privilege", "volatile"], 49),
    "ver3-gh100": ("format = nv-gmmu-ver3", "[pdb c]\nspace = sysmem\nchip = gh100\n",
                   ["vidmem", "sysmem", "peer1"],
                   ["read_only", "no_atomic", "privileged", "uncached", "access_counting_disabled"], 57),
    "ver3-gb100": ("format = nv-gmmu-ver3", "[pdb c]\nspace = vidmem\nchip = gb100\n",
                   ["vidmem", "sysmem"], ["read_only", "no_atomic"], 57),
    "gart": ("format = amd-gart", "[gart c]\nMC_VM_FB_OFFSET = 0x20\n",
             ["vram", "sysmem"], ["readable", "writeable", "executable", "snooped", "tmz"], 40),
    "gpuvm-gfx9": ("format = amd-gpuvm", "[vm c]\ngfx = 9\nfb_offset = 0x20\n", ["vram", "sysmem"],
                   ["readable", "writeable", "executable", "snooped", "tmz"], 48),
    "gpuvm-gfx11": ("format = amd-gpuvm", "[vm c]\ngfx = 11\n", ["vram", "sysmem"],
                    ["readable", "writeable", "executable", "snooped"], 48),
    "gpuvm-gfx12": ("format = amd-gpuvm", "[vm c]\ngfx = 12\ncntl = 0x7\n", ["vram", "sysmem"],
                    ["readable", "writeable", "executable", "snooped", "tmz"], 48),
    "x86-64": ("format = x86-64", "[cpu c]\n", ["sysmem"],
               ["writable", "user", "pwt", "pcd", "global", "xd"], 48),
    "x86-64-high": ("format = x86-64", "[cpu c]\n", ["sysmem"], ["writable", "global", "xd"], 48,
                    0xffff800000000000),
    "x86-64-la57": ("format = x86-64", "[cpu c]\nla57 = 1\nmaxphyaddr = 46\n", ["sysmem"],
                    ["writable", "user", "xd"], 57, 0xff00000000000000),
    "vtd": ("format = intel-vtd", "[vtd c]\n", ["sysmem"], ["r", "w", "x", "snp", "tm"], 48),
    "vtd-hpa": ("format = intel-vtd", "[vtd c]\naw = 57\nspace = gpa\noutput_space = hpa\n",
                ["hpa"], ["r", "w"], 57),
    "ept": ("format = intel-ept", "[ept c]\noutput_space = hpa\n", ["hpa"],
            ["read", "write", "execute", "user_execute"], 48),
    "amd-vi": ("format = amd-vi", "[amdvi c]\n", ["sysmem"], ["ir", "iw", "fc", "u"], 48),
    "amd-vi-mode6": ("format = amd-vi", "[amdvi c]\nmode = 6\nspace = hpa\noutput_space = gpa\n",
                     ["gpa"], ["ir", "iw"], 64),
    "arm64": ("format = arm64", "[arm64 c]\n", ["sysmem"], ["ap_rdonly", "ap_user", "pxn", "uxn", "ns"], 48),
    "arm64-upper": ("format = arm64", "[arm64 c]\n", ["sysmem"], ["ap_rdonly", "ap_user", "uxn"], 48,
                    0xffff000000000000),
    "arm64-s2": ("format = arm64", "[arm64 c]\nstage = 2\n", ["sysmem"],
                 ["s2ap_read", "s2ap_write", "xn"], 48),
    "smmuv3": ("format = arm-smmuv3", "[smmu c]\n", ["sysmem"], ["ap_rdonly", "ap_user", "pxn", "uxn", "ns"], 48),
    "smmuv3-upper": ("format = arm-smmuv3", "[smmu c]\nspace = hpa\noutput_space = gpa\n", ["gpa"],
                     ["ap_rdonly", "ap_user", "uxn"], 48, 0xffff000000000000),
    "smmuv3-s2": ("format = arm-smmuv3", "[smmu c]\nste0 = 0xd\n", ["sysmem"],
                  ["s2ap_read", "s2ap_write", "xn"], 48),
}


def flags_for(name, fl):
    """The spec's flags (a leaf must be present) and the flags maps must show for them."""
    if name.startswith("vtd"):
        return fl, fl if ("r" in fl or "w" in fl) else fl + ["r"]   # a page is R unless asked
    if name == "ept":
        if "write" in fl and "read" not in fl:
            fl = fl + ["read"]     # write without read is a misconfiguration (SDM)
        return fl, fl if {"read", "write", "execute"} & set(fl) else fl + ["read"]
    if not name.endswith("-s2") and name.startswith(("arm64", "smmuv3")) and "ap_user" in fl and "ap_rdonly" not in fl and "pxn" not in fl:
        return fl, fl + ["pxn"]    # EL0-writable is never EL1-executable (fmt_arm64.c s1_perm)
    return fl, fl
PASS = FAIL = 0


def report(ok, what):
    global PASS, FAIL
    if ok:
        PASS += 1
    else:
        FAIL += 1
    print(("ok - " if ok else "not ok - ") + what)


def spec_for(name, seed):
    head, section, spaces, flags, vabits = FORMATS[name][:5]
    base = FORMATS[name][5] if len(FORMATS[name]) > 5 else 0
    r = random.Random(seed)
    maps, va = [], base + (r.randrange(1, 1 << 12) << 21 if name != "gart" else (0x7f00 << 24))
    for _ in range(r.randrange(1, 12)):
        page = r.choice([1 << 12, 1 << 16, 1 << 21])
        size = page * r.randrange(1, 4) + (r.randrange(0, 4) << 12 if r.random() < 0.3 else 0)
        va = (va + r.choice([0, 1 << 12, 1 << 16, 1 << 21]) + page - 1) // page * page
        pa = r.randrange(1 << 8, 1 << 14) * page   # below 32 GiB: every format's fields
        fl, shown = flags_for(name, [f for f in flags if r.random() < 0.3])
        maps.append((va, size, r.choice(spaces), pa, fl, shown))
        va += size
    if name == "gart":   # one flat table: keep the span small
        maps = [m for m in maps if m[0] + m[1] <= (0x7f00 << 24) + (1 << 28)] or maps[:1]
    text = f"[capture]\nversion = 1\n{head}\n\n{section}"
    for va, size, sp, pa, fl, _ in maps:
        text += f"map = {va:#x} {size:#x} {sp} {pa:#x} {','.join(fl) if fl else '-'}\n"
    return text, maps


def pages_of_spec(maps):
    out = {}
    for va, size, sp, pa, _, shown in maps:
        for off in range(0, size, 4096):
            out[va + off] = (sp, pa + off, frozenset(shown))
    return out


def pages_of_maps(capture):
    r = subprocess.run([TOOL, "maps", "--json", capture], capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        m = json.loads(line)
        va, end = int(m["va_start"], 16), int(m["va_end"], 16)
        pa = int(m["pa"], 16)
        fl = frozenset(m["flags"])
        for off in range(0, end - va, 4096):
            out[va + off] = (m["space"], pa + off, fl)
    return out


def build(spec_text, out, tmp):
    path = os.path.join(tmp, "spec.ini")
    with open(path, "w") as f:
        f.write(spec_text)
    return subprocess.run([TOOL, "build", path, out], capture_output=True, text=True)


# Stacked shapes (issue #34 item 2): a context whose tables or pages are in a
# translated space ([space NAME] translate = CTX), built in one spec with its
# translator.  The translator maps some of those addresses itself; the
# builder maps the window of the upper context's tables there on its own.
IOMMUS = {
    "vtd": "[vtd iommu0]\nspace = hpa\noutput_space = hpa\n",
    "amdvi": "[amdvi iommu0]\nspace = hpa\noutput_space = hpa\n",
    "smmuv3": "[smmu iommu0]\nspace = hpa\noutput_space = hpa\n",
    "smmuv3-s2": "[smmu iommu0]\nstage = 2\nspace = hpa\noutput_space = hpa\n",
}
IOMMU_READ = {"vtd": "r", "amdvi": "ir", "smmuv3": "-", "smmuv3-s2": "s2ap_read"}
GPUS = {
    # name: (format, section head, its table space, its page space in vram/vidmem, a flag)
    "ver2": ("nv-gmmu-ver2", "[pdb gpu0]\n", "vidmem", "read_only"),
    "ver3": ("nv-gmmu-ver3", "[pdb gpu0]\nchip = gh100\n", "vidmem", "read_only"),
    "gpuvm": ("amd-gpuvm", "[vm gpu0]\ngfx = 9\n", "vram", "readable"),
}


def stacked_specs():
    """(name, spec text) of every stacked shape the loader accepts."""
    out = [("x86-64 guest in gpa over ept", """[capture]
version = 1
format = x86-64

[cpu guest]
space = gpa
map = 0x400000 8K gpa 0x10000 writable
map = 0x7fff00000000 2M gpa 0x200000
map = 0x800000 4K gpa 0x3000000

[ept ept0]
space = hpa
output_space = hpa
map = 0x0 16M hpa 0x40000000 read,write

[space gpa]
translate = ept0
"""), ("arm64 guest in ipa over arm64 stage 2", """[capture]
version = 1
format = arm64

[arm64 guest]
space = ipa
map = 0x400000 8K ipa 0x10000 ap_rdonly
map = 0x40000000 2M ipa 0x200000

[arm64 vm]
stage = 2
space = pa
map = 0x0 4M pa 0x80000000 s2ap_read,s2ap_write

[space ipa]
translate = vm
""")]
    out.append(("ver2 in sysmem over vtd in gpa over ept (three stages)", """[capture]
version = 1
format = nv-gmmu-ver2

[pdb gpu0]
space = sysmem
map = 0x100000 8K sysmem 0x8000 read_only

[vtd iommu0]
space = gpa
output_space = gpa
map = 0x8000 8K gpa 0x20000 r

[ept ept0]
space = hpa
output_space = hpa
map = 0x0 1M hpa 0x40000000 read

[space sysmem]
translate = iommu0

[space gpa]
translate = ept0
"""))
    for g, (fmt, head, local, flag) in GPUS.items():
        for io, sec in IOMMUS.items():
            rd = IOMMU_READ[io]
            # tables in the GPU's own memory, then in the IOVA space itself
            for tables in (local, "sysmem"):
                if g == "gpuvm" and tables == "sysmem":
                    continue    # amd-gpuvm tables are in vram (fb_offset), never behind the IOMMU
                spc = "" if g == "gpuvm" else f"space = {tables}\n"
                out.append((f"{g} (tables in {tables}) in an IOVA sysmem over {io}", f"""[capture]
version = 1
format = {fmt}

{head}{spc}map = 0x0 64K {local} 0x10000000
map = 0x100000 8K sysmem 0x8000 {flag}
map = 0x200000 4K sysmem 0x400000

{sec}map = 0x8000 8K hpa 0x87654000 {rd}

[space sysmem]
translate = iommu0
"""))
    return out


def spec_lines(text):
    """{section name: [(va, size, space, pa, flags)]} and {space: translating section}."""
    maps, xl, sec, cur_space = {}, {}, None, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            parts = line.strip("[]").split()
            sec = parts[1] if len(parts) > 1 else ""
            cur_space = sec if parts[0] == "space" else None
        elif line.startswith("map ="):
            w = line.split("=", 1)[1].split()
            size = int(w[1][:-1]) * {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[w[1][-1]] \
                if w[1][-1] in "KMG" else int(w[1], 0)
            fl = [] if len(w) < 5 or w[4] == "-" else w[4].split(",")
            maps.setdefault(sec, []).append((int(w[0], 0), size, w[2], int(w[3], 0), fl))
        elif cur_space and line.startswith("translate"):
            xl[cur_space] = line.split("=", 1)[1].strip()
    return maps, xl


def final_of(maps, xl, space, pa):
    """Where SPACE:PA lands through the spec's own map lines (None: its stage 2 does not map it)."""
    for _ in range(3):
        if space not in xl:
            return space, pa
        for va, size, sp, p, _ in maps.get(xl[space], []):
            if va <= pa < va + size:
                space, pa = sp, p + pa - va
                break
        else:
            return None
    return space, pa


def check_stacked(tmp):
    """Every stacked shape builds, and every page of every map line walks to its final address."""
    for what, text in stacked_specs():
        maps, xl = spec_lines(text)
        for kind in ("dir", "tar.gz"):
            out = os.path.join(tmp, "stacked-" + what.replace(" ", "_") + "." + kind)
            r = build(text, out, tmp)
            if r.returncode != 0:
                report(False, f"{what} ({kind}): build: {r.stderr.strip()}")
                continue
            ok, bad = 0, []
            for ctx, lines in maps.items():
                got = {}
                m = subprocess.run([TOOL, "maps", "--json", out, ctx], capture_output=True, text=True)
                for row in m.stdout.splitlines():
                    j = json.loads(row)
                    va, end = int(j["va_start"], 16), int(j["va_end"], 16)
                    for off in range(0, end - va, 4096):
                        fin = (j["final_space"], int(j["final_pa"], 16) + off) if "final_pa" in j else None
                        got[va + off] = (j["space"], int(j["pa"], 16) + off, set(j["flags"]), fin,
                                         j.get("final_fault"))
                for va, size, sp, pa, fl in lines:
                    for off in range(0, size, 4096):
                        g = got.get(va + off)
                        fin = final_of(maps, xl, sp, pa + off)
                        want_fin = fin if sp in xl else None
                        if g and g[0] == sp and g[1] == pa + off and set(fl) <= g[2] and g[3] == want_fin:
                            ok += 1
                        else:
                            bad.append(f"{ctx} {va + off:#x}: {g} (want {sp} {pa + off:#x} final {want_fin})")
            report(not bad and ok > 0, f"{what} ({kind}): {ok} pages walk to their final address"
                   + (f"; first wrong: {bad[0]}" if bad else ""))


def check_refusals(tmp):
    """Spec errors of stacked specs are named as such; a failed build leaves no output."""
    nested = """[capture]
version = 1
format = x86-64

[cpu guest]
space = gpa
map = 0x400000 8K SPACE 0x10000

[ept ept0]
space = hpa
output_space = hpa

[space gpa]
translate = ept0
"""
    r = build(nested.replace("SPACE", "sysmem"), os.path.join(tmp, "n1.tar.gz"), tmp)
    err = r.stderr.strip()
    report(r.returncode == 2 and "spec.ini:7:" in err and "no space 'sysmem'" in err and "gpa" in err
           and "encoder" not in err, f"a guest page in sysmem is the spec's error, naming gpa ({err})")
    r = build(nested.replace("SPACE", "gpa"), os.path.join(tmp, "n2.tar.gz"), tmp)
    report(r.returncode == 0, f"the issue's guest behind EPT builds ({r.stderr.strip()})")
    vtd = "[capture]\nversion = 1\nformat = intel-vtd\n\n[vtd c]\nmap = 0x1000 4K sysmem 0 read\n"
    r = build(vtd, os.path.join(tmp, "v.tar.gz"), tmp)
    err = r.stderr.strip()
    report(r.returncode == 2 and "'read' is not a one-bit field" in err and all(
        f" {f}," in err or f" {f})" in err for f in ("r", "w", "x", "snp")),
        f"an unknown flag names the valid ones ({err})")
    # a build whose walk back fails (END below the mapped page) writes nothing
    endbad = "[capture]\nversion = 1\nformat = amd-gpuvm\n\n[vm c]\ngfx = 9\npage_table_end_addr = 0x10\n" \
             "map = 0x200000 4K vram 0x10000\n"
    for kind in ("tar.gz", "dir"):
        out = os.path.join(tmp, "endbad." + kind)
        r = build(endbad, out, tmp)
        err = r.stderr.strip()
        report(r.returncode == 2 and not os.path.exists(out) and "encoder" not in err and "out_of_range" in err,
               f"a failed build ({kind}) leaves no {os.path.basename(out)} and blames no encoder ({err})")
    os.mkdir(os.path.join(tmp, "keep"))
    with open(os.path.join(tmp, "keep", "mine"), "w") as f:
        f.write("x")
    r = build(endbad, os.path.join(tmp, "keep"), tmp)
    report(r.returncode != 0 and os.path.exists(os.path.join(tmp, "keep", "mine")),
           "a build into a directory that is not empty touches nothing in it")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name in FORMATS:
            for seed in range(12):
                text, maps = spec_for(name, seed)
                want = pages_of_spec(maps)
                for kind in ("dir", "tar.gz"):
                    out = os.path.join(tmp, f"{name}-{seed}.{kind}")
                    r = build(text, out, tmp)
                    if r.returncode != 0:
                        report(False, f"{name} seed {seed} ({kind}): build: {r.stderr.strip()}")
                        continue
                    got = pages_of_maps(out)
                    report(got == want, f"{name} seed {seed} ({kind}): maps gives the spec's "
                           f"{len(want)} pages back")
                again = os.path.join(tmp, f"{name}-{seed}-again.tar.gz")
                build(text, again, tmp)
                with open(os.path.join(tmp, f"{name}-{seed}.tar.gz"), "rb") as a, open(again, "rb") as b:
                    report(a.read() == b.read(), f"{name} seed {seed}: the same spec, the same bytes")
        # Bad specs: one line naming the spec's file and line, exit 2.
        head = "[capture]\nversion = 1\nformat = nv-gmmu-ver2\n\n[pdb c]\nspace = vidmem\n"
        bad = {
            "an overlap": (head + "map = 0x1000 8K vidmem 0\nmap = 0x2000 4K vidmem 0x10000\n", ":8:"),
            "a flag that is no field": (head + "map = 0x1000 4K vidmem 0 writable\n", ":7:"),
            "a space of another format": (head + "map = 0x1000 4K vram 0\n", ":7:"),
            "a misaligned PA": (head + "map = 0x1000 4K vidmem 0x1234\n", ":7:"),
            "a [memory] section": (head + "[memory m]\nspace = vidmem\n", ":7:"),
            "a hex number without 0x": (head + "map = 1000 4K vidmem 1f000\n", ":7:"),
            "arm64 VAs in both halves": ("[capture]\nversion = 1\nformat = arm64\n\n[arm64 c]\n"
                                         "map = 0x1000 4K sysmem 0\n"
                                         "map = 0xffff000000000000 4K sysmem 0x1000\n", ":5:"),
            "smmuv3 VAs in both halves": ("[capture]\nversion = 1\nformat = arm-smmuv3\n\n[smmu c]\n"
                                          "map = 0x1000 4K sysmem 0\n"
                                          "map = 0xffff000000000000 4K sysmem 0x1000\n", ":5:"),
            "an smmuv3 page outside output_space": ("[capture]\nversion = 1\nformat = arm-smmuv3\n\n"
                                                    "[smmu c]\nmap = 0x1000 4K hpa 0\n", ":6:"),
        }
        for what, (text, line) in bad.items():
            r = build(text, os.path.join(tmp, "bad"), tmp)
            err = r.stderr.strip()
            report(r.returncode == 2 and "spec.ini" + line in err and len(err.splitlines()) == 1,
                   f"build refuses {what} on one line naming the spec line ({err})")
        check_stacked(tmp)
        check_refusals(tmp)
    print(f"{PASS} passed, {FAIL} failed")
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
