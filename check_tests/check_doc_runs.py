#!/usr/bin/env python3
"""check_doc_runs.py — every `$ COMMAND` a Markdown doc shows gives the output it shows.

In a ```sh block (at any indent: recipes sit in list items), a line
`$ COMMAND` is run and the lines after it, up to the next `$ ` line or the
block's end, are what it must print on stdout, line for line (trailing
blanks aside; a line `…` stands for any number of lines).  Lines before a
block's first `$ ` are commands without shown output and are left to the
other checks of test_docs.sh.

A command runs with bash in the source root, `build/cli/ptfs-tool` (or
`../build/cli/ptfs-tool`) replaced by the tool under test, stderr dropped,
its exit status ignored (diff and crosscheck exit 1 on a difference).  A
command that names `mnt/` runs in a directory whose `mnt` is the
`ptfs-tool export` of a bundled capture (byte for byte what the mount
shows) and `fixtures` the bundled fixtures; it passes when the output of
one of MOUNTED's captures is the one shown.  A command that names
`guest.elf` runs in a directory holding the synthetic Linux guest's dump
of that name (`$PTFS_MKLINUX guest.elf gs shared`, check_tests/mklinux.c:
no bundled fixture is a Linux dump, and one would be 16 MiB).

Usage: check_doc_runs.py SRCDIR TOOL DOC...
Prints `not ok` lines with the difference, then `N commands, M differ`.
Exit 0 when every command printed what its doc shows and each DOC shows one.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# The captures a doc's mnt/ commands are run against, in this order.
MOUNTED = ("turing-mixed", "iommu-vtd")
TOOL_RE = re.compile(r"(?:\.\./)?build/cli/ptfs-tool(?![\w/.-])")
ELLIPSIS = "…"


def shown_commands(path):
    """(line number, command, expected lines) for every `$ ` line of PATH's sh blocks."""
    out = []
    indent = None
    cur = None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if indent is None:
                m = re.match(r"^(\s*)```sh\s*$", line)
                if m:
                    indent = m.group(1)
                continue
            if re.match(r"^\s*```\s*$", line):
                indent, cur = None, None
                continue
            text = line[len(indent):] if line.startswith(indent) else line.lstrip()
            if text.startswith("$ "):
                cur = (n, text[2:], [])
                out.append(cur)
            elif cur is not None:
                cur[2].append(text.rstrip())
    return out


def matches(expected, got):
    """True when GOT (text) is EXPECTED line for line, `…` standing for any lines."""
    lines = [l.rstrip() for l in got.splitlines()]
    pat = "".join(r"(?:[^\n]*\n)*?" if e.strip() == ELLIPSIS else re.escape(e) + r"\n"
                  for e in expected)
    return re.fullmatch(pat, "".join(l + "\n" for l in lines)) is not None


def run(cmd, cwd, tool):
    cmd = TOOL_RE.sub(lambda m: shlex.quote(tool), cmd)
    env = dict(os.environ, LC_ALL="C")
    try:
        p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=120)
    except subprocess.TimeoutExpired:
        return "(timed out after 120 s)\n"
    return p.stdout.decode("utf-8", "replace")


def exported(src, tool, tmp, name, cache):
    """A directory holding mnt (the export of fixtures/NAME.tar.gz) and fixtures."""
    if name not in cache:
        d = os.path.join(tmp, name)
        os.makedirs(d)
        os.symlink(os.path.join(src, "fixtures"), os.path.join(d, "fixtures"))
        r = subprocess.run([tool, "export", os.path.join(src, "fixtures", name + ".tar.gz"),
                            os.path.join(d, "mnt")], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        cache[name] = d if r.returncode == 0 else None
    return cache[name]


def guest(tmp, cache):
    """A directory holding guest.elf, the synthetic Linux guest, or None without PTFS_MKLINUX."""
    if "guest.elf" not in cache:
        mk = os.environ.get("PTFS_MKLINUX")
        d = os.path.join(tmp, "guest")
        os.makedirs(d)
        ok = mk and subprocess.run([mk, os.path.join(d, "guest.elf"), "gs", "shared"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        cache["guest.elf"] = d if ok else None
    return cache["guest.elf"]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    src, tool, docs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3:]
    tmp = tempfile.mkdtemp(prefix="ptfs-docruns.")
    cache = {}
    total = failed = 0
    empty = []
    try:
        for doc in docs:
            cmds = shown_commands(os.path.join(src, doc))
            if not cmds:
                empty.append(doc)
            for n, cmd, expected in cmds:
                total += 1
                if re.search(r"(^|[\s'\"])mnt/", cmd):
                    dirs = [exported(src, tool, tmp, c, cache) for c in MOUNTED]
                    outs = [run(cmd, d, tool) for d in dirs if d]
                elif re.search(r"(^|\s)guest\.elf(\s|$)", cmd):
                    d = guest(tmp, cache)
                    outs = [run(cmd, d, tool)] if d else ["(no guest.elf: PTFS_MKLINUX unset or failed)\n"]
                else:
                    outs = [run(cmd, src, tool)]
                if any(matches(expected, o) for o in outs):
                    continue
                failed += 1
                print("not ok - %s:%d: $ %s" % (doc, n, cmd))
                for e in expected:
                    print("    shown: %s" % e)
                got = next((o for o in outs if o), outs[0] if outs else "(no capture exported)\n")
                for o in got.splitlines()[:30]:
                    print("    got:   %s" % o)
    finally:
        for root, dirs, _ in os.walk(tmp):
            for d in dirs:
                if not os.path.islink(os.path.join(root, d)):   # fixtures/ is the source's
                    os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(tmp, ignore_errors=True)
    for doc in empty:
        print("not ok - %s shows no `$ ` command" % doc)
    print("%d commands, %d differ" % (total, failed))
    sys.exit(1 if failed or empty else 0)


if __name__ == "__main__":
    main()
