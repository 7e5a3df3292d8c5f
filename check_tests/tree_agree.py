#!/usr/bin/env python3
"""tree_agree.py LISTED LOOKUP — readdir and lookup agree on every node.

LISTED and LOOKUP are two mounts of one capture.  Every directory of LISTED
is listed (readdir; readdirplus fills the kernel's dentries there), and
every name listed is then resolved in LOOKUP, where nothing was ever
listed, so each path component is a FUSE lookup of its own: the name must
exist with the same type, inode number and size; a symlink must read the
same target there, and that target must resolve (stat through the link).
Issue #34 item 1: va/ listed stage-1 pages whose readlink said ENOENT.

walk/ lists nothing by design (docs/design.md §4), and pa/SPACE/ and vs/
are lookup-only: their listings are empty, which this checks too.
Prints "N nodes agree" or each disagreement (the first 20); exit 1 on any.
"""
import os
import stat
import sys

LOOKUP_ONLY = ("walk", "vs")


def kind(mode):
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISREG(mode):
        return "file"
    return "other %o" % mode


def main():
    listed, lookup = sys.argv[1], sys.argv[2]
    bad = []
    nodes = 0
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(os.path.join(listed, rel)) as it:
            names = sorted(e.name for e in it)
        base = os.path.basename(rel)
        parent = os.path.basename(os.path.dirname(rel))
        if names and (base in LOOKUP_ONLY or parent == "pa"):
            bad.append("%s/: a lookup-only directory lists %d names" % (rel, len(names)))
        for name in names:
            nodes += 1
            path = os.path.join(rel, name)
            try:
                a = os.lstat(os.path.join(listed, path))
            except OSError as e:
                bad.append("%s: listed, but lstat in the listing mount: %s" % (path, e.strerror))
                continue
            try:
                b = os.lstat(os.path.join(lookup, path))
            except OSError as e:
                bad.append("%s: listed, but lookup says %s" % (path, e.strerror))
                continue
            if kind(a.st_mode) != kind(b.st_mode):
                bad.append("%s: listed as %s, looked up as %s" % (path, kind(a.st_mode), kind(b.st_mode)))
                continue
            if a.st_ino != b.st_ino or a.st_size != b.st_size:
                bad.append("%s: ino/size %d/%d listed, %d/%d looked up" %
                           (path, a.st_ino, a.st_size, b.st_ino, b.st_size))
            if stat.S_ISDIR(b.st_mode):
                stack.append(path)
            elif stat.S_ISLNK(b.st_mode):
                try:
                    ta = os.readlink(os.path.join(listed, path))
                    tb = os.readlink(os.path.join(lookup, path))
                except OSError as e:
                    bad.append("%s: a symlink whose readlink says %s" % (path, e.strerror))
                    continue
                if ta != tb:
                    bad.append("%s: links to %s listed, %s looked up" % (path, ta, tb))
                try:
                    os.stat(os.path.join(lookup, path))
                except OSError as e:
                    bad.append("%s -> %s: the target does not resolve: %s" % (path, tb, e.strerror))
        if len(bad) >= 20:
            break
    for line in bad[:20]:
        print("  " + line)
    print("%d nodes agree" % nodes if not bad else "%d disagreements in %d nodes" % (len(bad), nodes))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
