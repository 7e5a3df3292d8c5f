#!/usr/bin/env python3
"""measure_shape.py — the shape of the code in figures (issue #41; HACKING.md, "Layers").

Not a test: it prints what a refactor of the layers is measured by, taken
from the code and the build's objects, so a before and an after can be
compared line by line:

  - lines per layer (core's folders, then fs/ and cli/), C files only;
  - files of 800 lines or more (the cap is 900: check_sizes.py);
  - circles between files of one folder: file A calls a function B defines
    and B (through any path inside the folder) calls one A defines, from
    `nm` of each object; every strongly connected component of 2 files or
    more, the goal being none over 2 (and, for comparison, the circles when
    a use of data such as a registry's table of ops counts too);
  - calls that run up core's layers (check_link.py's table; none is
    allowed, check_tests/layer_debt.txt stays empty);
  - decodes of a raw IOMMU word outside core/formats/ (check_decode.py);
  - files outside core/formats/ that name an IOMMU in their code (comments
    aside): intel-vtd, amd-vi, arm-smmuv3, vtd, amdvi, smmu, any case;
  - files outside core/formats/ with a format's name ("intel-vtd", "x86-64",
    ...: the `.name` of each struct pt_format) as a string;
  - static functions of one name in two or more folders of core/ (the same
    helper, or the same table layout, written twice across layers);
  - files outside core/util/ that call realloc( (the growable array is pt_vec.h).

    measure_shape.py [SRCDIR [BUILDDIR]]

SRCDIR defaults to the repository holding this script, BUILDDIR to
SRCDIR/build (configured and built: the objects are read with nm).
"""
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cgrep  # noqa: E402
import check_decode  # noqa: E402
import check_link  # noqa: E402

BIG = 800
IOMMU_NAME = re.compile(r'intel-vtd|amd-vi|arm-smmuv3|vtd|amdvi|smmu', re.I)


def c_files(srcdir, top):
    """Sorted C files (.c, .h) under SRCDIR/TOP, relative to SRCDIR."""
    out = []
    for dirpath, dirs, files in os.walk(os.path.join(srcdir, top)):
        dirs.sort()
        for f in files:
            if f.endswith(('.c', '.h')):
                out.append(os.path.relpath(os.path.join(dirpath, f), srcdir).replace(os.sep, '/'))
    return sorted(out)


def read(srcdir, rel):
    with open(os.path.join(srcdir, rel), encoding='utf-8', errors='replace') as f:
        return f.read()


def nlines(text):
    return text.count('\n') + (1 if text and not text.endswith('\n') else 0)


def groups(srcdir):
    """[(name, [files])]: core's folders in layer order (and any other), fs, cli."""
    core = os.path.join(srcdir, 'core')
    folders = sorted(d for d in os.listdir(core) if os.path.isdir(os.path.join(core, d)))
    known = [d for d in ['include'] + check_link.LAYERS if d in folders]
    known += [d for d in folders if d not in known]
    out = [('core/' + d, c_files(srcdir, 'core/' + d)) for d in known]
    out += [(p, c_files(srcdir, p)) for p in check_link.PROGRAMS]
    return out


def print_lines(srcdir, grp, sizes):
    print('== lines per layer (C files) ==')
    total = 0
    for name, files in grp:
        n = sum(sizes[f] for f in files)
        total += n
        print('%-14s %6d lines %4d files' % (name, n, len(files)))
    print('%-14s %6d lines' % ('total', total))


def print_big(sizes):
    big = sorted(((n, f) for f, n in sizes.items() if n >= BIG), key=lambda x: (-x[0], x[1]))
    print()
    print('== files of %d lines or more: %d (%d of 850 or more) ==' % (
        BIG, len(big), sum(1 for n, _ in big if n >= 850)))
    for n, f in big:
        print('%5d %s' % (n, f))


def components(nodes, edges):
    """Strongly connected components (Tarjan, iterative), each sorted."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def folder_circles(objs, syms, where, calls_only):
    """[sorted files] of each circle of 2 files or more inside one folder, and
    {(caller, callee): symbols}.  CALLS_ONLY: an edge is a call of a function
    (nm type T); else a use of any symbol (a registry's table of ops too)."""
    edges, calls = {}, {}
    for rel, _folder, _obj in objs:
        for s in syms[rel][1]:
            callee = where.get(s)
            if not callee or callee == rel or os.path.dirname(callee) != os.path.dirname(rel):
                continue
            if calls_only and syms[callee][0].get(s) not in ('T', 'W'):
                continue
            edges.setdefault(rel, set()).add(callee)
            calls[(rel, callee)] = calls.get((rel, callee), 0) + 1
    comps = [c for c in components(sorted(r for r, _f, _o in objs), edges) if len(c) >= 2]
    comps.sort(key=lambda c: (os.path.dirname(c[0]), -len(c), c))
    return comps, calls


def print_circles(objs, syms, where):
    """Circles between the files of one folder, from the objects' symbols."""
    comps, calls = folder_circles(objs, syms, where, True)
    data, _ = folder_circles(objs, syms, where, False)
    print()
    print('== circles of calls between files of one folder: %d (%d over 2 files) ==' % (
        len(comps), sum(1 for c in comps if len(c) > 2)))
    for c in comps:
        inside = [(a, b) for a in c for b in c if (a, b) in calls]
        print('%s/: %d files, %d symbols used across them: %s' % (
            os.path.dirname(c[0]), len(c), sum(calls[e] for e in inside),
            ' '.join(os.path.basename(f) for f in c)))
    print('counting uses of data (a registry\'s table of ops) too: %d circles, sizes %s' % (
        len(data), ' '.join(str(len(c)) for c in data)))


def print_upcalls(objs, syms, where):
    calls = check_link.up_calls(objs, syms, where)
    pairs = {}
    for _s, caller, layer, _callee in calls:
        key = (check_link.folder_of(caller), layer)
        pairs[key] = pairs.get(key, 0) + 1
    print()
    print('== calls that run up the layers: %d (symbol, caller) pairs, %d symbols ==' % (
        len(calls), len({c[0] for c in calls})))
    for (low, high), n in sorted(pairs.items(), key=lambda x: (check_link.rank(x[0][0]), x[0][1])):
        syms_ = sorted({s for s, c, l, _ in calls if check_link.folder_of(c) == low and l == high})
        print('%-8s -> %-8s %3d  %s' % (low, high, n, ' '.join(syms_)))


def print_decodes(srcdir):
    found, _at = check_decode.scan(srcdir)
    files = sorted({f for f, _ in found})
    print()
    print('== raw IOMMU word decodes outside core/formats/: %d in %d files ==' % (
        sum(found.values()), len(files)))
    for pat in check_decode.PATTERNS:
        n = sum(c for (f, p), c in found.items() if p == pat)
        if n:
            print('%-16s %3d' % (pat, n))


def print_iommu_names(srcdir, grp):
    named = []
    for name, files in grp:
        if name == 'core/formats':
            continue
        for f in files:
            code = cgrep.strip(read(srcdir, f))
            if IOMMU_NAME.search(code):
                named.append(f)
    print()
    print('== files outside core/formats/ that name an IOMMU in code: %d ==' % len(named))
    for name, _files in grp:
        here = [os.path.basename(f) for f in named if f.startswith(name + '/')]
        if here:
            print('%-14s %2d  %s' % (name, len(here), ' '.join(here)))


def format_names(srcdir):
    """The formats' names, from `.name = "..."` of a struct pt_format in core/formats/."""
    names = set()
    for f in c_files(srcdir, 'core/formats'):
        text = read(srcdir, f)
        for m in re.finditer(r'struct pt_format\s+\w+\s*=\s*\{[^}]*?\.name\s*=\s*"([^"]+)"', text):
            names.add(m.group(1))
    return sorted(names)


def print_format_strings(srcdir, grp):
    names = format_names(srcdir)
    rx = re.compile(r'"(%s)"' % '|'.join(re.escape(n) for n in names))
    hits = []
    for name, files in grp:
        if name == 'core/formats':
            continue
        for f in files:
            got = sorted(set(rx.findall(cgrep.strip(read(srcdir, f)))))
            if got:
                hits.append('%s (%s)' % (f, ' '.join(got)))
    print()
    print('== files outside core/formats/ with a format\'s name as a string: %d (of %d names) ==' % (
        len(hits), len(names)))
    for h in hits:
        print(h)


def print_static_twins(srcdir, grp):
    """Static functions of one name in files of different folders of core/:
    the same helper (or the same layout) written twice across layers."""
    rx = re.compile(r'^static\s+(?:inline\s+)?[\w\s*]*?\b(\w+)\s*\([^;]*?\)\s*\{', re.M)
    seen = {}
    for name, files in grp:
        if not name.startswith('core/'):
            continue
        for f in files:
            if f.endswith('.c'):
                for m in rx.finditer(cgrep.strip(read(srcdir, f))):
                    seen.setdefault(m.group(1), set()).add(f)
    twins = sorted((n, sorted(fs)) for n, fs in seen.items()
                   if len({os.path.dirname(f) for f in fs}) > 1)
    print()
    print('== static functions of one name in two or more folders of core/: %d ==' % len(twins))
    for n, fs in twins:
        print('%-16s %s' % (n, ' '.join(f[len('core/'):] for f in fs)))


def print_realloc(srcdir, grp):
    hits = []
    for name, files in grp:
        if name == 'core/util':
            continue
        hits += [f for f in files
                 if re.search(r'\brealloc\s*\(', cgrep.strip(read(srcdir, f)))]
    print()
    print('== files outside core/util/ that call realloc(: %d ==' % len(hits))
    if hits:
        print(' '.join(hits))


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # `| head` ends it quietly
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    srcdir = argv[1] if len(argv) > 1 else here
    builddir = argv[2] if len(argv) > 2 else os.path.join(srcdir, 'build')
    grp = groups(srcdir)
    sizes = {f: nlines(read(srcdir, f)) for _n, files in grp for f in files}
    print_lines(srcdir, grp, sizes)
    print_big(sizes)
    objs, _cmds = check_link.read_objects(srcdir, builddir, ('core',) + tuple(check_link.PROGRAMS))
    syms, where = check_link.symbol_table(objs)
    print_circles(objs, syms, where)
    core_objs = [o for o in objs if o[0].startswith('core/')]
    print_upcalls(core_objs, syms, where)
    print_decodes(srcdir)
    print_iommu_names(srcdir, grp)
    print_format_strings(srcdir, grp)
    print_static_twins(srcdir, grp)
    print_realloc(srcdir, grp)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
