#!/usr/bin/env python3
"""check_circles.py — the files of one folder (core/*, fs/, cli/) call each other one way.

HACKING.md ("The layers and the load chain") draws the load as a chain:
each file is called by the one before it and never calls it back (issue
#41 item 3).  This checks the shape at the link, as check_link.py checks
the layers: for each object of core/, fs/ and cli/ (the build's
compile_commands.json), `nm` gives the functions it calls; file A -> file
B when A calls a function (nm type T) B defines in the same folder.  Every
strongly connected component of that graph (measure_shape.py's circle
finder) is a circle; it fails on

  - a circle of more than LIMIT files in one folder that DEBT below
    does not name exactly (two files may share a pair of helpers; three
    or more are a knot: move the function where its name says, pass a
    callback down as an argument, or move the shared helper to a leaf);
  - a line of DEBT whose circle is gone or changed (paid: delete or
    update the line, so that the list only shrinks).

Before the real check it proves it can fail, on an injected graph.

    check_circles.py SRCDIR BUILDDIR

$NM names the nm to use (default nm).  Prints one line per case and
`N passed, M failed`; exits 1 on any failure.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_link  # noqa: E402
import measure_shape  # noqa: E402
from cgrep import Report  # noqa: E402

LIMIT = 2
# Circles of more than LIMIT files allowed for now, each (folder, [files],
# why).  Only shrinks: a line whose circle is gone or changed fails.
DEBT = [
    # (the last, core/load's iommu.c/iommu_walk.c/iommu_seen.c, was paid
    # when iommu_dev.c took what the visitors call below them)
]


def edges_of(objs, syms, where):
    """{caller: {callee: [symbols]}} between files of one folder, calls only."""
    out = {}
    for rel, _folder, _obj in objs:
        for s in sorted(syms[rel][1]):
            callee = where.get(s)
            if not callee or callee == rel or os.path.dirname(callee) != os.path.dirname(rel):
                continue
            if syms[callee][0].get(s) not in ('T', 'W'):
                continue
            out.setdefault(rel, {}).setdefault(callee, []).append(s)
    return out


def circles(nodes, edges):
    """[sorted files] of every circle of 2 files or more."""
    graph = {a: set(b) for a, b in edges.items()}
    return [c for c in measure_shape.components(sorted(nodes), graph) if len(c) >= 2]


def describe(comp, edges):
    """"a.c -> b.c (pt_x, pt_y); b.c -> a.c (pt_z)": the calls inside one circle."""
    parts = []
    for a in comp:
        for b in comp:
            got = edges.get(a, {}).get(b)
            if got:
                parts.append('%s -> %s (%s)' % (os.path.basename(a), os.path.basename(b),
                                                ', '.join(got[:4]) + (', ...' if len(got) > 4 else '')))
    return '; '.join(parts)


def check(nodes, edges, debt):
    """The findings, one line each, and the circles over LIMIT that DEBT names."""
    errs, known = [], []
    listed = {(folder, tuple(sorted(files))) for folder, files, _why in debt}
    found = set()
    for comp in circles(nodes, edges):
        if len(comp) <= LIMIT:
            continue
        folder = os.path.dirname(comp[0])
        key = (folder, tuple(sorted(os.path.basename(f) for f in comp)))
        found.add(key)
        if key in listed:
            known.append('%s/: %s' % (folder, ' '.join(key[1])))
            continue
        errs.append('%s/: a circle of %d files (over %d): %s; make it one way (a function where '
                    'its name says, a callback passed down, a shared helper in a leaf: HACKING.md, '
                    '"The layers and the load chain")' % (folder, len(comp), LIMIT, describe(comp, edges)))
    for folder, files, _why in debt:
        key = (folder, tuple(sorted(files)))
        if key not in found:
            errs.append('check_circles.py DEBT: %s/: %s is no longer a circle as listed: paid or '
                        'changed, delete or update its line' % (folder, ' '.join(key[1])))
    return errs, known


def probes(case):
    """The check fails when it should, on injected graphs."""
    n = ['core/load/a.c', 'core/load/b.c', 'core/load/c.c', 'core/walk/d.c']
    three = {n[0]: {n[1]: ['pt_b']}, n[1]: {n[2]: ['pt_c']}, n[2]: {n[0]: ['pt_a']}}
    errs, _ = check(n, three, [])
    case(len(errs) == 1 and errs[0].startswith('core/load/: a circle of 3 files') and
         'c.c -> a.c (pt_a)' in errs[0],
         'probe: a circle of 3 files is reported with its calls', '; '.join(errs)[:300])
    two = {n[0]: {n[1]: ['pt_b']}, n[1]: {n[0]: ['pt_a']}}
    errs, _ = check(n, two, [])
    case(not errs, 'probe: a circle of 2 files passes', '; '.join(errs)[:300])
    chain = {n[0]: {n[1]: ['pt_b']}, n[1]: {n[2]: ['pt_c']}}
    errs, _ = check(n, chain, [])
    case(not errs, 'probe: a one-way chain of 3 files passes', '; '.join(errs)[:300])
    listed = [('core/load', ['a.c', 'b.c', 'c.c'], 'probe')]
    errs, known = check(n, three, listed)
    case(not errs and known == ['core/load/: a.c b.c c.c'],
         'probe: a circle DEBT names exactly passes', '; '.join(errs)[:300])
    errs, _ = check(n, chain, listed)
    case(any('no longer a circle as listed' in e for e in errs),
         'probe: a DEBT line whose circle is gone is reported (delete it)')
    # the listed circle with a fourth file drawn in: c.c -> e.c -> b.c
    n4 = n[:3] + ['core/load/e.c']
    grown = dict(three)
    grown[n[2]] = {n[0]: ['pt_a'], n4[3]: ['pt_e']}
    grown[n4[3]] = {n[1]: ['pt_b2']}
    errs, _ = check(n4, grown, listed)
    case(any(e.startswith('core/load/: a circle of 4 files') for e in errs) and
         any('no longer a circle as listed' in e for e in errs),
         'probe: a listed circle that grew is reported, and so is its line', '; '.join(errs)[:300])


def main(argv):
    if len(argv) < 3:
        print('usage: check_circles.py SRCDIR BUILDDIR', file=sys.stderr)
        return 2
    srcdir, builddir = argv[1], argv[2]
    objs, _cmds = check_link.read_objects(srcdir, builddir, ('core',) + tuple(check_link.PROGRAMS))
    if not objs:
        print('check_circles.py: no object in %s/compile_commands.json' % builddir,
              file=sys.stderr)
        return 2
    syms, where = check_link.symbol_table(objs)
    rep = Report()
    probes(rep.case)
    errs, known = check([r for r, _f, _o in objs], edges_of(objs, syms, where), DEBT)
    for e in errs:
        rep.case(False, e)
    for k in known:
        rep.case(True, 'listed in DEBT (to pay): %s' % k)
    if not errs:
        rep.case(True, '%d objects of core/, fs/ and cli/: no circle of more than %d files in a folder beyond DEBT'
                 % (len(objs), LIMIT))
    return rep.done()


if __name__ == '__main__':
    sys.exit(main(sys.argv))
