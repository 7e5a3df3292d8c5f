#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_roots_paste.py — a `ptfs-tool roots` suggestion walks as what it stands for (issue #34 item 3, issue #32 item 4).

For every fixture archive and every format, each candidate that `roots
--json --format F --min-score 0` says is the root of a context (root_of=CTX)
has its section pasted into the capture (extracted to a directory, the
section appended to capture.ini): the capture must load, and the maps of the
pasted context — every VA it maps, with its page, flags and final address —
must be CTX's own.  A suggestion that leaves out a key CTX's walk depends on
(space, output_space, aw, mode, tcr, ...) walks otherwise and fails here.
Sources that are not archives (an ELF core, a umr log, a gem5 directory)
take no pasted section: they are left out, and said so.

IOMMU tables (`roots --iommu TYPE`, issue #32 item 4): for every fixture
with [iommu NAME] sections, the candidate at each section's table must be
found (root_of=NAME) and its section, pasted in place of NAME's (with NAME's
name and segment, which memory does not hold), must give the same device
contexts (`info --json` of each, field for field) with the same maps.
A new user's complaint (issue #32 item 4): `roots` on gpu-vtd.tar.gz must
suggest aw = 39 for its 3-level table and name space/output_space hpa.

Environment: PTFS_TOOL, PTFS_FIXTURES.  One "ok -"/"not ok -" line per check.
"""
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

TOOL = os.environ["PTFS_TOOL"]
FIXTURES = os.environ["PTFS_FIXTURES"]
PASS = FAIL = 0


def report(ok, what):
    global PASS, FAIL
    if ok:
        PASS += 1
    else:
        FAIL += 1
    print(("ok - " if ok else "not ok - ") + what)


def run(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True)


def formats():
    """Every format name (`ptfs-tool roots --format nope` lists them)."""
    err = run("roots", "--format", "nope", os.path.join(FIXTURES, "vtd-sl.tar.gz")).stderr
    names = err[err.index("(") + 1:err.rindex(")")].replace(" or ", ", ").split(", ")
    return [n.strip() for n in names if n.strip()]


def maps(capture, ctx):
    r = run("maps", "--json", capture, ctx)
    if r.returncode != 0:
        return None, r.stderr.strip()
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    for row in rows:
        row.pop("context", None)
    return rows, ""


def ini_sections(text):
    """[(header, body lines)] in file order; the part before the first header has header None."""
    out = [[None, []]]
    for line in text.splitlines():
        if line.startswith("["):
            out.append([line.strip(), []])
        else:
            out[-1][1].append(line)
    return out


def ini_text(sections):
    lines = []
    for head, body in sections:
        if head is not None:
            lines.append(head)
        lines.extend(body)
    return "\n".join(lines) + "\n"


def keys(body):
    kv = {}
    for line in body:
        if "=" in line and not line.lstrip().startswith((";", "#")):
            k, v = line.split("=", 1)
            kv[k.strip()] = v.strip()
    return kv


def table_addr(kv):
    """The table an [iommu] section's registers point at (VT-d 63:12, AMD-Vi 51:12, SMMUv3 51:6)."""
    if kv["type"] == "intel-vtd":
        return int(kv["rtaddr"], 0) & ~0xfff
    if kv["type"] == "amd-vi":
        return int(kv["dev_table_base"], 0) & ((1 << 52) - 1) & ~0xfff
    return int(kv["strtab_base"], 0) & ((1 << 52) - 1) & ~0x3f


def infos(capture):
    r = run("info", "--json", capture)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return {o["context"]: o for o in map(json.loads, r.stdout.splitlines())}, ""


def iommu_checks(tmp):
    """Each [iommu] section of every fixture, replaced by the roots --iommu suggestion at its table."""
    found = 0
    for fx in sorted(os.listdir(FIXTURES)):
        if not fx.endswith(".tar.gz"):
            continue
        base = os.path.join(tmp, "io-" + fx[:-7])
        with tarfile.open(os.path.join(FIXTURES, fx)) as t:
            t.extractall(base)
        ini_path = os.path.join(base, "capture.ini")
        if not os.path.exists(ini_path):
            continue
        with open(ini_path) as f:
            secs = ini_sections(f.read())
        want, err = infos(base)
        for i, (head, body) in enumerate(secs):
            if not head or not head.startswith("[iommu "):
                continue
            name = head[len("[iommu "):-1].strip()
            kv = keys(body)
            addr = table_addr(kv)
            found += 1
            what = f"{fx} [iommu {name}] (table {addr:#x})"
            r = run("roots", "--json", "--min-score", "0", "--iommu", kv["type"], base)
            cands = [json.loads(l) for l in r.stdout.splitlines()]
            cand = next((c for c in cands if "summary" not in c and int(c["pa"], 0) == addr
                         and c["space"] == kv.get("space", "sysmem")), None)
            report(r.returncode == 0 and cand is not None,
                   f"{what}: roots --iommu {kv['type']} finds it"
                   + ("" if cand else f" (candidates: {[c.get('pa') for c in cands]}; {r.stderr.strip()})"))
            if cand is None:
                continue
            report(cand["root_of"] is not None and cand["score"] > 0 and cand["good"] > 0,
                   f"{what}: root_of={cand['root_of']} score={cand['score']} good={cand['good']}")
            sec = cand["section"].splitlines()
            body2 = sec[1:] + ([f"segment = {kv['segment']}"] if "segment" in kv else []) + [""]
            pasted = secs[:i] + [[f"[iommu {name}]", body2]] + secs[i + 1:]
            work = os.path.join(tmp, "io-paste")
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(base, work)
            with open(os.path.join(work, "capture.ini"), "w") as f:
                f.write(ini_text(pasted))
            got, err2 = infos(work)
            if want is None or got is None:
                report(False, f"{what}: the pasted capture loads ({err or err2})")
                continue
            mine = sorted(k for k, o in want.items() if o.get("iommu") == name)
            report(len(mine) > 0 and mine == sorted(k for k, o in got.items() if o.get("iommu") == name),
                   f"{what}: pasted, the same {len(mine)} device contexts")
            for ctx in mine:
                if ctx not in got:
                    continue
                a, _ = maps(base, ctx)
                b, _ = maps(work, ctx)
                same = got[ctx] == want[ctx] and a == b and a is not None
                diff = "" if same else "; info differs in " + ", ".join(
                    sorted(k for k in set(got[ctx]) | set(want[ctx]) if got[ctx].get(k) != want[ctx].get(k)))
                report(same, f"{what}: {ctx} has the same info and maps ({len(a or [])} runs){diff}")
    report(found >= 5, f"{found} [iommu] sections pasted from roots --iommu")


def gpu_vtd_check():
    """Issue #32 item 4: the 3-level VT-d table of gpu-vtd is suggested with aw = 39 and its spaces."""
    r = run("roots", "--json", "--format", "intel-vtd", os.path.join(FIXTURES, "gpu-vtd.tar.gz"))
    cands = [json.loads(l) for l in r.stdout.splitlines() if "summary" not in l]
    c = next((c for c in cands if c["pa"] == "0x100000"), None)
    sec = keys(c["section"].splitlines()[1:]) if c else {}
    report(c is not None and c["level_count"] == 3 and sec.get("aw") == "39"
           and sec.get("space") == "hpa" and sec.get("output_space") == "hpa",
           f"gpu-vtd.tar.gz: roots --format intel-vtd suggests the 3-level table with aw = 39,"
           f" space and output_space hpa ({sec})")


def main():
    fmts = formats()
    report(len(fmts) >= 9, f"roots names {len(fmts)} formats ({', '.join(fmts)})")
    pasted = 0
    with tempfile.TemporaryDirectory() as tmp:
        for fx in sorted(os.listdir(FIXTURES)):
            if not fx.endswith(".tar.gz"):
                continue
            path = os.path.join(FIXTURES, fx)
            base = os.path.join(tmp, fx[:-7])
            with tarfile.open(path) as t:
                t.extractall(base)
            if not os.path.exists(os.path.join(base, "capture.ini")):
                print(f"# {fx}: no capture.ini (a foreign source): left out")
                continue
            with open(os.path.join(base, "capture.ini")) as f:
                ini = f.read()
            for fmt in fmts:
                r = run("roots", "--json", "--min-score", "0", "--format", fmt, path)
                if r.returncode != 0:
                    report(False, f"{fx} --format {fmt}: roots: {r.stderr.strip()}")
                    continue
                cands = [json.loads(line) for line in r.stdout.splitlines()]
                for c in cands:
                    if "summary" in c or not c.get("root_of") or not c.get("section"):
                        continue
                    ctx = c["root_of"]
                    sec = c["section"]
                    name = sec.splitlines()[0].strip("[]").split()[1]
                    work = os.path.join(tmp, "paste")
                    shutil.rmtree(work, ignore_errors=True)
                    shutil.copytree(base, work)
                    with open(os.path.join(work, "capture.ini"), "w") as f:
                        f.write(ini + "\n" + sec + "\n")
                    what = f"{fx} --format {fmt}: [{name}] (root_of={ctx} at {c['pa']})"
                    want, _ = maps(work, ctx)
                    got, err = maps(work, name)
                    pasted += 1
                    if got is None:
                        report(False, f"{what}: the pasted capture does not load: {err}")
                        continue
                    diff = next((f"{a} != {b}" for a, b in zip(got, want) if a != b),
                                f"{len(got)} runs, {ctx} has {len(want)}")
                    report(got == want, f"{what}: walks as {ctx} ({len(want)} runs)"
                           + ("" if got == want else f"; first difference: {diff}"))
    report(pasted >= 10, f"{pasted} suggestions pasted")
    gpu_vtd_check()
    with tempfile.TemporaryDirectory() as tmp:
        iommu_checks(tmp)
    print(f"{PASS} passed, {FAIL} failed")
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
