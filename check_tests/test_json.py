#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One JSON convention over every subcommand (issue #25 item 2; ptfs-tool(1) JSON).

Runs every `ptfs-tool` subcommand that takes --json on every fixture and
checks what ptfs-tool(1) promises:
  - shape: one document for one answer (check, pa, audit, decode --value,
    decode --blob), JSON Lines for streams (walk: one line per VA, maps,
    diff, crosscheck, roots, info: one line per context, decode --oneline);
  - keys sorted in every object;
  - the same key for the same thing: no `pa_start`, `addr`, `leaf`, or a
    context called `name`; the KIND column under the format's own key
    (`mtype` for AMD, so no `kind` there);
  - types by key: addresses and sizes "0x..." strings, counts numbers
    (never booleans), yes/no values booleans, `flags` an array of strings;
  - and one type per key across every subcommand and fixture (null aside).
Prints TAP; exit 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TOOL = os.environ.get("PTFS_TOOL", "build/cli/ptfs-tool")
FIX = os.environ.get("PTFS_FIXTURES", "fixtures")

HEX = re.compile(r"^0x[0-9a-f]+$")
HEX_KEYS = {"va", "pa", "va_start", "va_end", "size", "page_size", "page_va", "span", "raw",
            "address", "expected_pa"}
COUNT_KEYS = {"index", "depth", "pages", "tables", "mapped", "root_entries",
              "leg_line", "ok", "unmapped", "pa_mismatch", "access_denied"}
BOOL_KEYS = {"captured", "complete", "address_complete", "reserved_bits"}
FORBIDDEN = {"pa_start", "addr", "leaf", "name"}
# Format: the key its KIND column has in walk/maps/diff (the maps header's KIND).
KIND_KEY = {"amd-gart": "mtype_name", "amd-gpuvm": "mtype_name", "intel-vtd": "emt_name",
            "intel-ept": "memory_type_name", "arm64": "attr_index_name",
            "arm-smmuv3": "attr_index_name"}
# Objects whose keys are names (levels, sizes, registers), not the convention's keys.
NAME_MAPS = {"levels", "mapped_bytes", "annotations", "registers", "registers_written",
             "pages_by_size", "kinds"}

# Context name -> its KIND key, for the capture being checked: a nested walk
# (a translated space's, docs/design.md §2.8) is another context's object.
CTX_KIND = {}
# crosscheck's side_a / side_b -> the KIND key of the context on that side (formats may differ)
SIDE_KIND = {}

n = 0
failed = 0
types = {}   # key -> {json type name: first place seen}


def report(ok, what):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (n, what))
    return ok


def pairs(kv):
    keys = [k for k, _ in kv]
    if keys != sorted(keys):
        raise ValueError("keys not sorted: %s" % keys)
    return dict(kv)


def tname(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "number"
    if isinstance(v, str):
        return "hexstring" if HEX.match(v) else "string"
    return type(v).__name__


def check_value(key, v, where, errs):
    t = tname(v)
    if key in FORBIDDEN:
        errs.append("%s: key %r (ptfs-tool(1) JSON names it otherwise)" % (where, key))
    if v is None:
        return
    if key in HEX_KEYS or key.endswith("_address") or key.endswith("_pa"):
        if t != "hexstring":
            errs.append("%s: %s=%r is not a \"0x...\" string" % (where, key, v))
    if key in COUNT_KEYS or key.endswith("_count"):
        if t != "number":
            errs.append("%s: %s=%r is not a count (number)" % (where, key, v))
    if key in BOOL_KEYS or key.endswith("_captured") or key.endswith("_truncated") or \
            key.endswith("_partial") or key.startswith("is_"):
        if t != "bool":
            errs.append("%s: %s=%r is not a boolean" % (where, key, v))
    if key == "flags" and not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
        errs.append("%s: flags=%r is not an array of strings" % (where, v))
    if isinstance(v, str) and v in ("yes", "no"):
        errs.append("%s: %s=%r: a yes/no value is a JSON boolean" % (where, key, v))
    # hex strings and plain strings are one type for a key that may be a name
    seen = types.setdefault(key, {})
    seen.setdefault("string" if t == "hexstring" and key not in HEX_KEYS else t, where)


def walk(obj, where, errs, kind_key):
    if isinstance(obj, dict):
        # KIND_KEY: one key, or a tuple of the keys of two contexts compared (crosscheck)
        keys = kind_key if isinstance(kind_key, tuple) else (kind_key,)
        if "flags" in obj and "page_size" in obj and not any(k in obj for k in keys):
            errs.append("%s: the KIND column is %r in this format" % (where, kind_key))
        for k, v in obj.items():
            check_value(k, v, where, errs)
            if k in NAME_MAPS and isinstance(v, dict):
                for sub in v.values():   # its keys are names; its values follow the rules
                    walk(sub, where, errs, kind_key)
            elif k in SIDE_KIND and isinstance(v, dict):
                walk(v, where, errs, SIDE_KIND[k])
            elif k == "nested" and isinstance(v, dict):
                walk(v, where, errs, CTX_KIND.get(v.get("context"), kind_key))
            else:
                walk(v, where, errs, kind_key)
    elif isinstance(obj, list):
        for x in obj:
            walk(x, where, errs, kind_key)


def run(args):
    r = subprocess.run([TOOL] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout, r.stderr


def parse(out, shape, expect_lines=None):
    """A list of parsed documents; raises ValueError on a wrong shape."""
    lines = out.splitlines()
    if shape == "doc":
        d = json.loads(out, object_pairs_hook=pairs)
        if not isinstance(d, dict):
            raise ValueError("one object expected")
        return [d]
    docs = [json.loads(l, object_pairs_hook=pairs) for l in lines]
    if any(not isinstance(d, dict) for d in docs):
        raise ValueError("JSON Lines: every line is one object")
    if expect_lines is not None and len(docs) != expect_lines:
        raise ValueError("%d lines for %d answers" % (len(docs), expect_lines))
    return docs


def case(what, args, shape, kind_key, okrc=(0, 1), expect_lines=None):
    rc, out, err = run(args)
    if rc not in okrc:
        return report(False, "%s: exit %d: %s" % (what, rc, err.strip()[:300])), []
    try:
        docs = parse(out, shape, expect_lines)
    except ValueError as e:
        return report(False, "%s: %s" % (what, e)), []
    errs = []
    for d in docs:
        walk(d, what, errs, kind_key)
    return report(not errs, what + ("" if not errs else ": " + "; ".join(errs[:4]))), docs


def kind_key(info):
    """The KIND column's key of the context INFO (info --json) describes."""
    if info.get("format") in ("arm64", "arm-smmuv3") and info.get("stage") == 2:
        return "mem_attr_name"   # stage 2: MemAttr, not a MAIR index (ptfs-formats(7))
    return KIND_KEY.get(info.get("format"), "kind_name")


def fixtures():
    out = []
    for f in sorted(os.listdir(FIX)):
        if f.endswith(".tar.gz") or f.endswith(".elf"):
            out.append(os.path.join(FIX, f))
        elif f == "gem5-m5out":
            out.append(os.path.join(FIX, f, "cpt.1234"))   # the checkpoint directory
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="ptfs-json.")
    caps = fixtures()
    report(len(caps) >= 10, "fixtures found: %d" % len(caps))
    for cap in caps:
        base = os.path.basename(cap)
        ok, infos = case("info %s" % base, ["info", "--json", cap], "lines", "kind_name", okrc=(0,))
        case("check %s" % base, ["check", "--json", cap], "doc", "kind_name")
        CTX_KIND.clear()
        CTX_KIND.update({i.get("context"): kind_key(i) for i in infos})
        for info in infos:
            ctx, fmt = info.get("context"), info.get("format")
            kk = kind_key(info)
            _, runs = case("maps %s %s" % (base, ctx), ["maps", "--json", cap, ctx], "lines", kk,
                           okrc=(0,))
            mapped = [r for r in runs if "pa" in r][:4]
            vas = [r["va_start"] for r in mapped] + ["0x0"]
            case("walk %s %s (%d VAs)" % (base, ctx, len(vas)), ["walk", "--json", cap, ctx] + vas,
                 "lines", kk, okrc=(0,), expect_lines=len(vas))
            case("walk %s %s (1 VA)" % (base, ctx), ["walk", "--json", cap, ctx, vas[0]], "lines", kk,
                 okrc=(0,), expect_lines=1)
            if mapped:
                r = mapped[0]
                case("pa %s %s:%s" % (base, r["space"], r["pa"]),
                     ["pa", "--json", cap, "%s:%s" % (r["space"], r["pa"])], "doc", kk)
                legs = os.path.join(tmp, "legs")
                with open(legs, "w") as f:
                    f.write("%s 4K r\n0x0 4K w\n" % r["va_start"])
                case("audit %s %s" % (base, ctx), ["audit", "--json", cap, ctx, legs], "doc", kk)
            lv_table = info.get("levels", {})
            report(isinstance(lv_table, dict) and lv_table, "info %s %s: levels is the per-level table" % (base, ctx))
            levels = list(lv_table) if isinstance(lv_table, dict) else []
            for lv in levels:
                case("decode --value %s %s" % (fmt, lv),
                     ["decode", "--json", "--format", fmt, "--level", lv, "--value", "0x1"],
                     "doc", kk, okrc=(0,))
        # roots: one object per candidate, then the summary
        case("roots %s" % base, ["roots", "--json", cap], "lines", "kind_name", okrc=(0,))
        # crosscheck: the first two contexts (any format), and the first against itself
        ctxs = [i.get("context") for i in infos]
        kk = kind_key(infos[0]) if infos else "kind_name"
        if ctxs:
            case("crosscheck %s %s %s" % (base, ctxs[0], ctxs[0]),
                 ["crosscheck", "--json", cap, ctxs[0], ctxs[0]], "lines", kk, okrc=(0,))
        if len(ctxs) >= 2:
            SIDE_KIND.update(side_a=CTX_KIND[ctxs[0]], side_b=CTX_KIND[ctxs[1]])
            case("crosscheck %s %s %s" % (base, ctxs[0], ctxs[1]),
                 ["crosscheck", "--json", cap, ctxs[0], ctxs[1]], "lines", kk)
            SIDE_KIND.clear()
    tm = os.path.join(FIX, "turing-mixed.tar.gz")
    case("diff turing-mixed vs -after", ["diff", "--json", tm, os.path.join(FIX, "turing-mixed-after.tar.gz")],
         "lines", "kind_name")
    case("diff turing-mixed vs -relocated", ["diff", "--json", tm,
                                             os.path.join(FIX, "turing-mixed-relocated.tar.gz")], "lines", "kind_name")
    case("diff gfx9 vs gfx12", ["diff", "--json", os.path.join(FIX, "amd-gfx9-vm.tar.gz"),
                                os.path.join(FIX, "amd-gfx12-vm.tar.gz")], "lines", "mtype_name")
    blob = os.path.join(tmp, "blob")
    with open(blob, "wb") as f:
        f.write((0x20102).to_bytes(8, "little") + bytes(8) + (0x1).to_bytes(8, "little"))
    bl = ["decode", "--json", "--blob", blob, "--base-pa", "0x1000", "--format", "nv-gmmu-ver2",
          "--level", "pde3"]
    case("decode --blob", bl, "doc", "kind_name", okrc=(0,))
    case("decode --blob --oneline", bl + ["--oneline"], "lines", "kind_name", okrc=(0,), expect_lines=3)
    # One type per key, across every subcommand and fixture.
    for key in sorted(types):
        kinds = {t for t in types[key] if t is not None}
        report(len(kinds) <= 1, "key %r has one type (%s)" % (
            key, ", ".join("%s in %s" % (t, types[key][t]) for t in sorted(kinds))))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
