#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_field_names.py — one name for one field (issue #34 item 4).

For every format with an encoder (test_build_cli.py's table), two captures
are built from specs of the same pages: A with no leaf flags, B with one
one-bit leaf field set per page, and every field once.  Every field name
that `ptfs-tool diff A B` (text and --json `fields`), `maps` (flag words,
text and --json) and the `walk` result line print must be one of the
format's decoded field names: the keys of its entry files (`entries` of
`ptfs-tool export`).  Before, diff said `writeable` for x86-64, whose
entries and maps say `writable`.

Environment: PTFS_TOOL.  One "ok -"/"not ok -" line per check.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_build_cli import FORMATS, flags_for   # noqa: E402  (the one table of formats)

TOOL = os.environ["PTFS_TOOL"]
# names a run has in every format: its columns, not entry fields
RUN_KEYS = {"pa", "page_size", "flags"}
PASS = FAIL = 0


def report(ok, what):
    global PASS, FAIL
    PASS, FAIL = PASS + ok, FAIL + (not ok)
    print(("ok - " if ok else "not ok - ") + what)


def run(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True)


def spec(name, with_flags):
    head, section, spaces, flags, _ = FORMATS[name][:5]
    base = FORMATS[name][5] if len(FORMATS[name]) > 5 else 0
    va = base + (0x7f00 << 24 if name == "gart" else 1 << 30)
    text = f"[capture]\nversion = 1\n{head}\n\n{section}"
    for i, f in enumerate(flags + [None]):
        fl = flags_for(name, [f] if (with_flags and f) else [])[0]
        text += f"map = {va + i * 0x1000:#x} 4K {spaces[0]} {(0x100 + i) << 12:#x} {','.join(fl) or '-'}\n"
    return text


def fields_of(export_dir):
    """The keys of every entry file of every context (the entries files)."""
    keys = set()
    for ctx in os.listdir(export_dir):
        path = os.path.join(export_dir, ctx, "entries")
        if os.path.isfile(path):
            with open(path) as f:
                for line in f:
                    keys.update(m.group(1) for m in re.finditer(r" ([a-z0-9_]+)=", line))
    return keys


def check_format(name, tmp):
    caps = {}
    for side, with_flags in (("a", False), ("b", True)):
        sp = os.path.join(tmp, f"{name}-{side}.ini")
        with open(sp, "w") as f:
            f.write(spec(name, with_flags))
        caps[side] = os.path.join(tmp, f"{name}-{side}.tar.gz")
        r = run("build", sp, caps[side])
        if r.returncode != 0:
            report(False, f"{name}: build {side}: {r.stderr.strip()}")
            return
    known = set()
    for side in "ab":
        ex = os.path.join(tmp, f"{name}-{side}.export")
        r = run("export", caps[side], ex)
        if r.returncode != 0:
            report(False, f"{name}: export: {r.stderr.strip()}")
            return
        known |= fields_of(ex)
    printed = {}   # name -> where it was printed

    def saw(names, where):
        for n in names:
            printed.setdefault(n, where)

    for side in "ab":
        for line in run("maps", caps[side]).stdout.splitlines():
            saw((w for w in line.split()[6].split(",") if w != "-"), "maps")
        for line in run("maps", "--json", caps[side]).stdout.splitlines():
            saw(json.loads(line)["flags"], "maps --json")
    d = run("diff", caps["a"], caps["b"])
    changed = [l for l in d.stdout.splitlines() if " changed " in l]
    report(d.returncode == 1 and len(changed) > 0, f"{name}: diff sees the flags change ({len(changed)} runs)")
    for line in changed:
        saw((m.group(1) for m in re.finditer(r"(?:changed |, )([a-z0-9_]+): ", line)), "diff")
    for line in run("diff", "--json", caps["a"], caps["b"]).stdout.splitlines():
        o = json.loads(line)
        saw((f for f in o.get("fields", []) if f not in RUN_KEYS), "diff --json")
    r = run("walk", caps["b"], "c", f"{(FORMATS[name][5] if len(FORMATS[name]) > 5 else 0) + (0x7f00 << 24 if name == 'gart' else 1 << 30):#x}")
    m = re.search(r"flags=(\S+)", r.stdout)
    saw((w for w in (m.group(1).split(",") if m else []) if w != "-"), "walk")
    bad = sorted(f"{n} ({w})" for n, w in printed.items() if n not in known and n not in RUN_KEYS)
    report(not bad, f"{name}: {len(printed)} names printed are entry fields" +
           (f"; not fields: {', '.join(bad)}" if bad else ""))


def main():
    with tempfile.TemporaryDirectory(prefix="ptfs-fields.") as tmp:
        for name in FORMATS:
            check_format(name, tmp)
    print(f"{PASS} passed, {FAIL} failed")
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
