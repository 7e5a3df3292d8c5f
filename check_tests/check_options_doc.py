#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_options_doc.py — the options the programs' help lists and the ones
their man pages document are the same (issue #25 item 6).

    check_options_doc.py SRCDIR PTFS_TOOL [PTFS]

- every --option a `ptfs-tool CMD --help` lists appears in ptfs-tool(1),
  and every --option ptfs-tool(1) names is listed by some --help;
- every `-o NAME` in the "ptfs options" part of `ptfs -h` appears in
  ptfs(1), and every `-o NAME` ptfs(1) documents as its own is listed;
- every ptfs-tool subcommand that reads a capture says in its --help how to
  give a umr log's generation (--gfx), since a log's generation cannot
  always be read from the log.
One "ok -"/"not ok -" line each; exit 1 on any failure.
"""
import os
import re
import subprocess
import sys


def run(*cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.stdout + r.stderr


def man_text(path):
    """The page's text with roff escapes for '-' undone and fonts dropped."""
    t = open(path, encoding="utf-8").read()
    t = t.replace("\\-", "-").replace("\\fB", "").replace("\\fI", "")
    return t.replace("\\fR", "").replace("\\fP", "").replace("\\&", "")


def main():
    src, tool = sys.argv[1], sys.argv[2]
    ptfs = sys.argv[3] if len(sys.argv) > 3 else None
    res = {"pass": 0, "fail": 0}

    def report(ok, what):
        res["pass" if ok else "fail"] += 1
        print(("ok - " if ok else "not ok - ") + what)

    opt = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]")
    top = run(tool, "--help")
    cmds = re.findall(r"^  ([a-z][a-z-]*) ", top.split("Commands:")[1].split("\n\n")[0], re.M)
    page = man_text(os.path.join(src, "man", "ptfs-tool.1"))
    in_help = set(opt.findall(top))
    for c in cmds:
        h = run(tool, c, "--help")
        found = set(opt.findall(h))
        in_help |= found
        for o in sorted(found):
            report(o in opt.findall(page), f"ptfs-tool {c} {o} is in ptfs-tool(1)")
        if c not in ("decode", "build"):   # a value, a spec: no capture is read
            report("--gfx" in h, f"ptfs-tool {c} --help says how to give a umr log's generation (--gfx)")
    # diff(1)'s option in the examples is not ptfs-tool's.
    foreign = {"--help", "--version", "--no-dereference"}
    for o in sorted(set(opt.findall(page)) - in_help - foreign):
        report(False, f"ptfs-tool(1) option {o} is listed by a --help")

    if ptfs:
        h = run(ptfs, "-h")
        own = h.split("ptfs options:")[1].split("\n\n")[0] if "ptfs options:" in h else ""
        listed = set(re.findall(r"-o ([a-z_]+)", own))
        report(bool(listed), "ptfs -h has a 'ptfs options:' part")
        page = man_text(os.path.join(src, "man", "ptfs.1"))
        # libfuse's own options (the rest of -h) are documented as FUSE's.
        generic = set(re.findall(r"-o ([a-z_]+)", h)) - listed
        documented = set(re.findall(r'^\.B[IR]? "?-o "?([a-z_]+)', page, re.M)) - generic
        for o in sorted(listed):
            report(re.search(r"-o " + o + r"\b", page) is not None, f"ptfs -o {o} is in ptfs(1)")
        for o in sorted(documented - listed):
            report(False, f"ptfs(1) option -o {o} is listed by ptfs -h")
    print(f"{res['pass']} passed, {res['fail']} failed")
    return 1 if res["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
