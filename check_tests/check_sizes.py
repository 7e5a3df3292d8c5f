#!/usr/bin/env python3
"""check_sizes.py — the size rules of HACKING.md ("Style") and core's map.

Fails when
  - a tracked code file (C, shell, Python, meson, a script) has more than
    900 lines (golden listings, fixtures and documents are not code);
  - a C function body has more than 120 lines (a brace-depth scan: a `{`
    at depth 0 that follows a `)` opens a function; string and character
    literals and comments are skipped);
  - the file map of core/ in HACKING.md (or core/README.md) does not match
    the tree: every file under core/ must be named there, and every
    core/ path named there must exist.
Prints the longest functions found.  Usage: check_sizes.py [SRCDIR]
(default $PTFS_SRCDIR or the repository holding this script).
"""
import os
import re
import subprocess
import sys

FILE_MAX = 900
FUNC_MAX = 120
CODE_EXT = (".c", ".h", ".sh", ".py", ".build")


def is_code(path, text):
    """C, shell, Python and meson files, and scripts without an extension (a #! line)."""
    return path.endswith(CODE_EXT) or ("." not in os.path.basename(path) and text.startswith("#!"))


def tracked(src):
    out = subprocess.run(["git", "-C", src, "ls-files", "-z"], capture_output=True, check=True)
    return [p for p in out.stdout.decode().split("\0") if p]


def is_text(path):
    try:
        with open(path, "rb") as f:
            return b"\0" not in f.read(8192)
    except OSError:
        return False


def strip_c(text):
    """TEXT with comments, strings and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def c_functions(text):
    """(name, first line, body lines) of every function defined in TEXT."""
    s = strip_c(text)
    # preprocessor lines (macros with braces) are not function bodies
    s = "\n".join("" if l.lstrip().startswith("#") else l for l in s.split("\n"))
    funcs = []
    depth = 0
    start = None
    name = None
    line = 1
    for i, c in enumerate(s):
        if c == "\n":
            line += 1
        elif c == "{":
            if depth == 0:
                head = s[max(0, i - 400):i].rstrip()
                m = re.search(r"(\w+)\s*\([^;{}]*\)\s*(?:__attribute__\s*\(\(.*\)\)\s*)?$", head, re.S)
                if m and m.group(1) not in ("if", "for", "while", "switch", "return", "sizeof"):
                    start, name = line, m.group(1)
                else:
                    start, name = None, None
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and start is not None:
                funcs.append((name, start, line - start + 1))
                start = None
            if depth < 0:
                depth = 0
    return funcs


def core_map(src, problems):
    """core/README.md's file map names every file of core/, HACKING.md's layer
    table every folder, and every core/ path either names exists."""
    files = sorted(p for p in tracked(src) if p.startswith("core/")
                   and os.path.basename(p) not in ("meson.build", "README.md"))
    with open(os.path.join(src, "core/README.md"), encoding="utf-8") as f:
        readme = f.read()
    with open(os.path.join(src, "HACKING.md"), encoding="utf-8") as f:
        hacking = f.read()
    table = readme[readme.find("## File map"):]
    # the map writes paths relative to core/: `walk/walk.c`, `include/pt_walk.h`
    named = set()
    for m in re.finditer(r"`((?:include|util|formats|load|sources|walk|linux|view)/[\w.]+)`", table):
        named.add("core/" + m.group(1))
    generic = [re.compile(r"core/formats/fmt_\w+\.c$")] if "`formats/fmt_NAME.c`" in table else []
    if "(`fmt_NAME.h`)" in table:
        generic.append(re.compile(r"core/formats/fmt_\w+\.h$"))
    if "`include/`" in table:
        generic.append(re.compile(r"core/include/"))   # "the public headers", each also in its row
    for f in files:
        if f not in named and not (f.startswith("core/include/") and f in named) and \
                not any(g.match(f) for g in generic if not f.startswith("core/include/")):
            problems.append("%s: not in core/README.md's file map" % f)
    for d in sorted({os.path.dirname(f) for f in files}):
        if "`%s/`" % d not in hacking:
            problems.append("%s/: not in HACKING.md's table of layers" % d)
    # every core/ path either document names exists (NAME is a placeholder)
    cited = {("core/" + m) for m in re.findall(
        r"`((?:include|util|formats|load|sources|walk|linux|view)/[\w.]*)`", readme)}
    cited |= set(re.findall(r"`(core/[\w./]*)`", hacking + readme))
    for p in sorted(cited):
        if "NAME" not in p and not os.path.exists(os.path.join(src, p)):
            problems.append("%s: named in HACKING.md or core/README.md but not in the tree" % p)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "PTFS_SRCDIR", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    problems = []
    longest = []
    for p in tracked(src):
        path = os.path.join(src, p)
        if not os.path.isfile(path) or not is_text(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        n = text.count("\n")
        if is_code(p, text) and n > FILE_MAX:
            problems.append("%s: %d lines (at most %d)" % (p, n, FILE_MAX))
        if p.endswith((".c", ".h")):
            for name, line, length in c_functions(text):
                longest.append((length, p, line, name))
                if length > FUNC_MAX:
                    problems.append("%s:%d: function %s has %d lines (at most %d)"
                                    % (p, line, name, length, FUNC_MAX))
    core_map(src, problems)
    longest.sort(reverse=True)
    print("longest functions:")
    for length, p, line, name in longest[:10]:
        print("  %4d %s:%d %s" % (length, p, line, name))
    for msg in problems:
        print("not ok - " + msg)
    print("%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
