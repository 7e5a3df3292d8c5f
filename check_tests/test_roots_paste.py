#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_roots_paste.py — a `ptfs-tool roots` suggestion walks as what it stands for (issue #34 item 3).

For every fixture archive and every format, each candidate that `roots
--json --format F --min-score 0` says is the root of a context (root_of=CTX)
has its section pasted into the capture (extracted to a directory, the
section appended to capture.ini): the capture must load, and the maps of the
pasted context — every VA it maps, with its page, flags and final address —
must be CTX's own.  A suggestion that leaves out a key CTX's walk depends on
(space, output_space, aw, mode, tcr, ...) walks otherwise and fails here.
Sources that are not archives (an ELF core, a umr log, a gem5 directory)
take no pasted section: they are left out, and said so.

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
    print(f"{PASS} passed, {FAIL} failed")
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
