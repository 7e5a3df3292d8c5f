#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_formats_doc.py — ptfs-formats(7) against the decoders.

    check_formats_doc.py PAGE PTFS_TOOL

Two checks (issue #25 item 3), one "ok -"/"not ok -" line each:

1. Every bit table the page marks with a line `.\\" check FORMAT LEVEL
   [ROLE]` is decoded row by row: a value with just that field's bits set
   (`ptfs-tool decode --value V --format F --level L --json`) must give the
   field back with exactly those bits — as the number the bits hold, or in
   place (the value itself; in the high half of a 16-byte entry, its
   position there) — and no reserved bit.  A documented range that is off
   by one bit fails.
2. Every field name any decoder prints (the JSON keys of every level of
   every format, over a set of values that reach each entry kind) appears
   in the page in bold, so no field goes undocumented.

Exit 0 when every check passed, 1 otherwise.  Standard library only.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# Keys every decode prints that are not entry fields (ptfs-tool decode's
# own envelope): the page documents them in its conventions, not per format.
ENVELOPE = {"format", "level", "level_candidates", "raw", "index", "entry_address"}


def decode(tool, fmt, level, value, role=None):
    cmd = [tool, "decode", "--value", hex(value), "--format", fmt,
           "--level", level, "--json"]
    if role:
        cmd += ["--role", role]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        return None, r.stderr.strip()
    return json.loads(r.stdout.splitlines()[0]), None


def as_int(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.startswith("0x"):
        return int(v, 16)
    return None


def tables(page):
    """(format, level, role, base, [(hi, lo, field)]) for every checked table."""
    out, cur, rows, intable = [], None, [], False
    for line in open(page, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r'^\.\\" check (\S+) (\S+)((?: \S+)*)$', line)
        if m:
            opts = m.group(3).split()
            role = next((o for o in opts if "=" not in o), None)
            base = next((int(o[5:], 0) for o in opts if o.startswith("base=")), 0)
            cur = (m.group(1), m.group(2), role, base)
            continue
        if line == ".TS":
            intable, rows = True, []
            continue
        if line == ".TE":
            if cur:
                out.append(cur + (rows,))
            intable, cur = False, None
            continue
        if intable and cur and "\t" in line:
            cols = line.split("\t")
            m = re.match(r"^(\d+)(?::(\d+))?$", cols[0])
            if m:
                hi = int(m.group(1))
                lo = int(m.group(2)) if m.group(2) else hi
                rows.append((hi, lo, cols[1]))
    return out


def check_rows(tool, fmt, level, role, base, rows, report):
    """BASE: bits set besides the field (a leaf's present and page-size bits)."""
    for hi, lo, field in rows:
        mask = ((1 << (hi - lo + 1)) - 1) << lo
        what = f"{fmt} {level}: {field} is bits {hi}:{lo}"
        d, err = decode(tool, fmt, level, mask | base, role)
        if d is None:
            report(False, what, f"decode failed: {err}")
            continue
        if field not in d:
            report(False, what, f"no field {field} in the decode")
            continue
        got = as_int(d[field])
        accepted = {mask >> lo, mask}
        if lo >= 64:
            accepted.add(mask >> 64)
        reserved = as_int(d.get("reserved_mask", "0x0")) or 0
        ok = got in accepted and reserved & mask == 0
        report(ok, what, f"printed {d[field]!r}, reserved_mask {d.get('reserved_mask')}")


def values_for(nbits):
    """Values that reach every entry kind: zero, each bit alone, all ones."""
    vals = [0, (1 << nbits) - 1]
    vals += [1 << b for b in range(nbits)]
    vals += [(1 << b) | 1 for b in range(1, nbits)]
    return vals


def blob_keys(tool, tmp, fmt, level, esize):
    """The keys of every entry of a blob of values_for() at LEVEL (one process)."""
    with open(tmp, "wb") as f:
        for v in values_for(8 * esize):
            f.write(v.to_bytes(esize, "little"))
    cmd = [tool, "decode", "--blob", tmp, "--base-pa", "0", "--format", fmt,
           "--level", level, "--entry-size", str(esize), "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 1) or not r.stdout.strip():
        return set()
    return {k for e in json.loads(r.stdout)["entries"] for k in e}


def decoder_keys(tool, tmp):
    """{(format, key)} of every key the decoders print, by format and level."""
    keys = set()
    r = subprocess.run([tool, "decode", "--help"], capture_output=True, text=True)
    levels = re.findall(r"^\s+([a-z0-9-]+): depths? [0-9-]+, levels? (.+)$", r.stdout, re.M)
    for fmt, names in levels:
        for level in names.split():
            for esize in (8, 16):
                found = blob_keys(tool, tmp, fmt, level, esize)
                keys |= {(fmt, k) for k in found if k not in ENVELOPE}
    return keys, [f for f, _ in levels]


def main():
    page, tool = sys.argv[1], sys.argv[2]
    state = {"pass": 0, "fail": 0}

    def report(ok, what, detail=""):
        state["pass" if ok else "fail"] += 1
        print(("ok - " if ok else "not ok - ") + what + ("" if ok else f" ({detail})"))

    for fmt, level, role, base, rows in tables(page):
        if not rows:
            report(False, f"{fmt} {level}: the checked table has rows")
        check_rows(tool, fmt, level, role, base, rows, report)

    text = open(page, encoding="utf-8").read().replace("\\-", "-")
    with tempfile.TemporaryDirectory() as tmp:
        keys, formats = decoder_keys(tool, os.path.join(tmp, "blob"))
    report(bool(formats), "ptfs-tool decode --help lists the formats and levels")
    for fmt in formats:
        report(f".SH {fmt.upper()}" in text, f"{fmt} has a section in the page")
    for fmt, key in sorted(keys):
        documented = re.search(r"(\\fB|^\.(B|BR|RB|IR|BI) (.* )?|^[0-9:,]+\t)" + re.escape(key) + r"\b", text, re.M)
        report(bool(documented), f"{fmt}: field {key} is documented")
    print(f"{state['pass']} passed, {state['fail']} failed")
    return 1 if state["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
